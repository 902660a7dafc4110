"""Every design field is declared once (``core.design.FIELDS``) and round-trips through every surface
generated from the declarations: share link, CLI options, design file and the sidebar's widgets.

The strategy draws every field of ``Design`` (not a subset): a test fails when a field is added whose
declaration lacks a surface, or whose surfaces do not give it back.
"""

from __future__ import annotations

import argparse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import vocab
from core.catalog import load_catalog
from core.cli.common import add_design_options, design_args, parsed_design
from core.design import FIELDS, Design, Surface, field_bounds, field_type, offered_port_speeds, resolve_nic_and_speed
from core.formats import sharelink, xlsx
from core.physical.racks import load_racks

CATALOG = load_catalog()

V1_LINK_KEYS = {
    "g": "gpu", "n": "nodes", "ng": "gpus", "gpn": "gpus_per_node", "nvl": "nvlink_generation",
    "nvd": "nvlink_domain_gpus", "f": "fabric", "ps": "port_speed_gbps", "nic": "nics_per_node",
    "pl": "planes", "sw": "switch", "t": "topology", "npr": "nodes_per_rack", "os": "oversubscription",
    "sos": "spine_oversubscription", "ti": "tiers", "cm": "cable_media", "pue": "pue",
    "kwh": "electricity_usd_per_kwh", "yrs": "tco_years", "px": "price_overrides", "pw": "power_overrides",
    "nm": "nic", "lsw": "leaf_switch", "ssw": "spine_switch", "csw": "core_switch", "us": "uplink_speed_gbps",
    "pm": "plane_mode", "su": "su_nodes", "pod": "pod_sus", "gt": "grow_to", "pb": "price_basis",
    "rp": "rack_preset", "rkw": "rack_kw", "ru": "rack_units", "st": "storage", "spn": "storage_ports_per_node",
    "sps": "storage_port_speed_gbps", "sts": "storage_systems", "sto": "storage_oversubscription",
    "mg": "management", "sp": "spares",
}
"""The version 1 link keys as links in the wild use them (frozen: a renamed key breaks old links)."""
V1_CODES = {"fabric": ("ib", "eth"), "topology": ("rail", "tor", "ro"), "plane_mode": ("port", "rail"),
            "storage": ("auto", "ib", "eth", "none"), "management": ("on", "off")}


def test_every_field_declares_every_surface():
    assert list(FIELDS) == list(Design.model_fields)
    for field, surface in FIELDS.items():
        assert isinstance(surface, Surface)
        assert surface.link and surface.flag.startswith("--") and surface.label and surface.help, field
        assert surface.help_text() and surface.title(), field
    assert len({s.link for s in FIELDS.values()}) == len(FIELDS)
    assert len({s.flag for s in FIELDS.values()}) == len(FIELDS)


def test_v1_link_keys_and_codes_are_frozen():
    assert V1_LINK_KEYS.items() <= sharelink.FIELDS.items()  # new fields add keys; none is renamed or reused
    for field, codes in V1_CODES.items():  # a new id adds its code after these (Dragonfly+: df); none changes
        assert FIELDS[field].vocab.codes[:len(codes)] == codes


def test_a_field_without_a_surface_cannot_be_declared():
    from typing import Annotated

    from pydantic import BaseModel

    from core import design as design_module

    class Bad(BaseModel):
        x: Annotated[int, "no surface"] = 1

    original = design_module.Design
    try:
        design_module.Design = Bad
        with pytest.raises(TypeError, match="exactly one Surface"):
            design_module._surfaces()
    finally:
        design_module.Design = original


# --- a valid design, every field drawn -----------------------------------------------------------
SPEEDS = {fabric: offered_port_speeds(CATALOG, fabric) for fabric in vocab.FABRIC.ids}
PRESETS = [p.id for p in load_racks().compute_presets]


def _number(field: str):
    low, high, low_open, _ = field_bounds(field)
    if field_type(field) is int:
        return st.integers(int(low) + (1 if low_open else 0), min(int(high), 10_000))
    values = st.floats(low, high, allow_nan=False, exclude_min=low_open)
    return values.map(lambda v: round(v, 3)).filter(lambda v: v > low if low_open else v >= low)


@st.composite
def designs(draw) -> Design:
    system = draw(st.sampled_from(CATALOG.systems))
    fabric = draw(st.sampled_from([None, *vocab.FABRIC.ids]))
    fab = fabric or system.default_fabric
    speed = draw(st.sampled_from([None, *SPEEDS[fab]]))
    try:
        engine_speed = resolve_nic_and_speed(CATALOG, system, fab, speed)[1]
    except Exception:
        engine_speed = speed or system.default_port_speed_gbps
    switches = [s.id for s in CATALOG.fabric_switches(fab, engine_speed)]
    all_switches = [s.id for s in CATALOG.switches if s.role == "fabric"]
    gpn = draw(st.sampled_from([None, system.gpus_per_node, 1, 2, 4]))
    per_node = gpn or system.gpus_per_node
    data = {
        "gpu": system.id, "fabric": fabric, "port_speed_gbps": speed,
        "switch": draw(st.sampled_from([None, *switches])) if switches else None,
        "gpus_per_node": gpn,
        "nvlink_domain_gpus": draw(st.sampled_from([None, 1, per_node, 2 * per_node])),
        "nvlink_generation": draw(st.sampled_from([None, *[g.generation for g in CATALOG.nvlink]])),
        "nic": draw(st.sampled_from([None, *[n.id for n in CATALOG.nics]])),
        "rack_preset": draw(st.sampled_from([None, *PRESETS])),
        "uplink_speed_gbps": draw(st.sampled_from([None, *SPEEDS[fab]])),
        "storage_port_speed_gbps": draw(st.sampled_from([None, *SPEEDS[fab]])),
        "price_overrides": draw(st.dictionaries(st.sampled_from(["QM9700", "CX7", "SN5600"]),
                                                st.integers(0, 10**6).map(float), max_size=2)),
        "power_overrides": draw(st.dictionaries(st.sampled_from(["QM9700", "CX7"]),
                                                st.integers(0, 10**4).map(float), max_size=2)),
        "spares": draw(st.sampled_from(["off", "default", "switch=N+1", "switch=N+2,transceiver=2%"])),
        "name": draw(st.one_of(st.none(), st.text(st.sampled_from("ab Z09<>&\"'/:@.-_%[]()$*# 集群"), min_size=1,
                                                  max_size=80).map(lambda t: " ".join(t.split()) or None))),
        "stages": draw(st.one_of(st.none(), st.lists(st.integers(1, 10**6), min_size=1, max_size=4, unique=True).map(
            lambda counts: ",".join(str(c) for c in sorted(counts))))),
        "nvlink_domains": draw(st.one_of(st.none(), st.lists(
            st.tuples(st.sampled_from([8, 36, 72, 144, 576]), st.integers(1, 3)), min_size=1, max_size=3).map(
            lambda items: ",".join(f"{size}x{count}" if count > 1 else str(size) for size, count in items)))),
        "torus_dims": draw(st.one_of(st.none(), st.lists(st.integers(1, 64), min_size=1, max_size=3).map(
            lambda dims: "x".join(map(str, dims))))),
        "pods": draw(st.one_of(st.none(), st.lists(st.builds(  # a pod's speed: one the fabric offers, as ps
            lambda system, nodes, speed, stage: f"{system}:{nodes}" + (f":{speed}" if speed else "")
            + (f"@{stage}" if stage else ""), st.sampled_from(["H100", "B200", "GB200-NVL72"]), st.integers(1, 4096),
            st.sampled_from([None, *SPEEDS[fab]]), st.integers(0, 3)), min_size=1, max_size=3).map(",".join))),
        "calibration": draw(st.one_of(st.none(), st.builds(
            lambda net, nvl, lat, name: f"net={net},nvlink={nvl},lat={lat}" + (f",name={name}" if name else ""),
            st.sampled_from([0.2, 0.85, 1, 2]), st.sampled_from([0.5, 1.25]), st.sampled_from([-20, 0, 4318.5]),
            st.sampled_from(["", "Pod A", "a, b=c"])))),
    }
    for tier in ("leaf_switch", "spine_switch", "core_switch"):
        data[tier] = draw(st.sampled_from([None, *all_switches]))
    if draw(st.booleans()):
        data["gpus"] = draw(st.integers(1, 4096))
    else:
        data["nodes"] = draw(st.integers(1, 4096))
    for field, surface in FIELDS.items():
        if field in data or field in ("nodes", "gpus"):
            continue
        if surface.vocab is not None:
            data[field] = draw(st.sampled_from(surface.vocab.ids))
        elif field_type(field) in (int, float):
            data[field] = draw(st.one_of(st.none(), _number(field))) if Design.model_fields[field].default is None \
                else draw(_number(field))
        else:
            raise AssertionError(f"the test draws no value for {field}: add its kind to designs()")
    return Design.model_validate({k: v for k, v in data.items() if v is not None})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs())
def test_every_field_round_trips_through_link_cli_and_design_file(design):
    assert Design.from_json(design.to_json()) == design
    decoded, warnings = sharelink.decode(sharelink.encode(design))
    assert warnings == [] and decoded == design
    parser = argparse.ArgumentParser()
    add_design_options(parser)
    assert parsed_design(parser.parse_args(design_args(design))) == design  # read back, not planned


def _sidebar_form(design: Design) -> Design:
    """What the sidebar's widgets give back for ``design`` (the link-decoded design is what the sidebar shows)."""
    from core.design import parse_design
    from webui import state

    widgets: dict = {}
    state._set_widgets(design, widgets)
    system = CATALOG.system(design.gpu)
    speed = design.port_speed_gbps or resolve_nic_and_speed(CATALOG, system, design.fabric or system.default_fabric,
                                                            None)[1]
    data, problems = state._design_data(widgets, system, speed)
    assert problems == []
    return parse_design({k: v for k, v in data.items() if v is not None})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs())
def test_every_field_round_trips_through_the_sidebar_widgets(design):
    got = _sidebar_form(design)
    system = CATALOG.system(design.gpu)
    gpn = design.gpus_per_node or system.gpus_per_node
    # the sidebar shows a size in nodes, a system's own value as the value itself, an uplink at the port speed as auto
    expected = design.model_copy(update={
        "gpus": None, "nodes": -(-design.gpus // gpn) if design.gpus else design.nodes,
        "gpus_per_node": None if gpn == system.gpus_per_node else gpn,
        "fabric": None if (design.fabric or system.default_fabric) == system.default_fabric else design.fabric,
        "uplink_speed_gbps": None if design.uplink_speed_gbps == (design.port_speed_gbps or resolve_nic_and_speed(
            CATALOG, system, design.fabric or system.default_fabric, None)[1]) else design.uplink_speed_gbps,
    })
    assert got == expected


def test_xlsx_design_table_labels_every_field_from_its_declaration():
    from core.plan import plan

    rows = xlsx.design_rows(plan(Design(gpus=256, fabric="ethernet", management=False)))
    assert [r[2] for r in rows] == list(FIELDS)
    assert all(label == FIELDS[key].title() for label, _value, key in rows)
    by_key = {r[2]: r[1] for r in rows}
    assert by_key["fabric"] == "Ethernet RoCE" and by_key["management"] == "off"


# --- a field added by one declaration: Design.name ------------------------------------------------
def test_the_design_name_reaches_link_cli_file_sidebar_and_the_review_packs_title(capsys):
    from core.cli import main
    from core.formats.report import design_report_html
    from core.plan import plan

    design = Design(nodes=8, name="Pod A <b>for</b> ACME https://x.example")
    assert sharelink.encode(design)["name"] == design.name
    assert sharelink.decode({"name": "  Pod\nA  "})[0].name == "Pod A"  # one line
    assert Design(name=" x ").name == "x"
    for bad in ("", "   ", "x" * 81, "a\u202eb"):
        assert sharelink.decode({"name": bad})[0].name is None
        assert len(sharelink.decode({"name": bad})[1]) == 1
    html = design_report_html(plan(design), name=design.name, share_link="https://example.test/?name=x")
    assert "Pod A &lt;b&gt;for&lt;/b&gt; ACME" in html and "<b>for</b>" not in html
    assert main(["report", "--nodes", "8", "--name", "x" * 81]) == 2
    assert "80" in capsys.readouterr().err


def test_the_sidebar_names_the_design_from_the_link():
    from streamlit.testing.v1 import AppTest

    from tests.pagetest import ENTRY

    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update({"v": "1", "n": "8", "name": "Pod A"})
    at.run()
    assert not at.exception
    assert at.session_state["fp_current"].design.name == "Pod A"
    assert at.sidebar.text_input(key="w_name").value == "Pod A"
    at.sidebar.text_input(key="w_name").set_value("Pod B").run()
    assert at.session_state["fp_current"].design.name == "Pod B"
    at.sidebar.text_input(key="w_name").set_value("").run()
    assert at.session_state["fp_current"].design.name is None
