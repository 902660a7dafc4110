"""The design file format (core.design.to_json / DESIGN_FILE_VERSION, core.formats.design_file): every field
written, a version, older files without one still read, newer versions refused, any valid Design round-trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from core.cli import main
from core.design import DESIGN_FILE_VERSION, MAX_DESIGN_FILE_BYTES, Design
from core.errors import InputError
from core.formats.design_file import design_from_bytes, read_design_file

names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30).filter(lambda t: t.strip())
maybe = lambda strategy: st.none() | strategy  # noqa: E731
bounded = lambda lo, hi: st.floats(lo, hi, allow_nan=False, allow_infinity=False)  # noqa: E731
overrides = lambda high: st.dictionaries(names, bounded(0, high), max_size=3)  # noqa: E731

FIELDS = {
    "gpu": names, "gpus_per_node": maybe(st.integers(1, 72)), "nvlink_generation": maybe(st.integers(1, 6)),
    "nvlink_domain_gpus": maybe(st.integers(1, 576)), "fabric": maybe(st.sampled_from(["infiniband", "ethernet"])),
    "port_speed_gbps": maybe(st.integers(1, 100_000)), "nics_per_node": maybe(st.integers(1, 16)),
    "planes": st.integers(1, 8), "switch": maybe(names),
    "topology": st.sampled_from(["rail-optimized", "top-of-rack", "rail-only"]),
    "nodes_per_rack": maybe(st.integers(1, 72)), "oversubscription": bounded(0.25, 16),
    "spine_oversubscription": bounded(1, 16), "tiers": st.sampled_from(["auto", 1, 2, 3]),
    "pue": bounded(1, 3), "electricity_usd_per_kwh": bounded(0, 2), "tco_years": bounded(0.01, 30),
    "price_overrides": overrides(1e9), "power_overrides": overrides(1e7), "nic": maybe(names),
    "leaf_switch": maybe(names), "spine_switch": maybe(names), "core_switch": maybe(names),
    "uplink_speed_gbps": maybe(st.integers(1, 100_000)), "plane_mode": st.sampled_from(["per-port", "per-rail"]),
    "su_nodes": maybe(st.integers(1, 1_000_000)), "pod_sus": maybe(st.integers(1, 4096)),
    "grow_to": maybe(st.integers(1, 1_000_000)), "price_basis": st.sampled_from(["street", "list", "hyperscale"]),
}
"""A strategy per Design field (fields added later by other work keep their defaults here)."""


@st.composite
def designs(draw) -> Design:
    data = {field: draw(strategy) for field, strategy in FIELDS.items() if field in Design.model_fields}
    size = draw(st.sampled_from(["nodes", "gpus", None]))
    if size:
        data[size] = draw(st.integers(1, 1_000_000))
    return Design(**data)


@settings(max_examples=300, deadline=None)
@given(designs())
def test_any_valid_design_round_trips_through_its_file(design):
    text = design.to_json()
    data = json.loads(text)
    assert data["version"] == DESIGN_FILE_VERSION and list(data)[0] == "version"
    assert set(data) == {"version", *Design.model_fields}  # every field, defaults included
    assert Design.from_json(text) == design
    assert design_from_bytes(text.encode("utf-8"), "'f.json'") == design


def test_defaults_are_written_so_a_changed_default_does_not_change_the_file():
    data = json.loads(Design(nodes=64).to_json())
    assert data["pue"] == 1.3 and data["oversubscription"] == 1.0 and data["planes"] == 1
    assert data["tiers"] == "auto" and data["price_basis"] == "street" and data["gpu"] == "H100"
    assert data["switch"] is None  # null: the catalog's default for the system, resolved when planned


def test_older_files_without_version_still_read(tmp_path):
    old = '{\n  "gpu": "B200",\n  "nodes": 95,\n  "oversubscription": 2.0\n}'  # an export before version 1
    path = tmp_path / "old.json"
    path.write_text(old)
    assert read_design_file(path) == Design(gpu="B200", nodes=95, oversubscription=2.0)
    assert Design.from_json(old) == Design(gpu="B200", nodes=95, oversubscription=2.0)


@pytest.mark.parametrize("version,words", [
    (2, "version 2 is newer than this app reads"),
    (999999, "newer than this app reads"),
    (0, "must be a whole number"),
    (-1, "must be a whole number"),
    (1.5, "must be a whole number"),
    ('"1"', "must be a whole number"),
    ("true", "must be a whole number"),
    ("null", "must be a whole number"),
    ("[1]", "must be a whole number"),
    ("1" * 60, "must be a whole number"),
])
def test_unknown_versions_are_refused_with_a_clear_message(version, words):
    text = f'{{"version": {version}, "nodes": 8}}'
    with pytest.raises(InputError) as exc:
        design_from_bytes(text.encode(), "'x.json'")
    message = str(exc.value)
    assert words in message and "\n" not in message and len(message) < 300


def test_hostile_files_are_one_line_errors():
    cases = {
        b"\xff\xfe\x00garbage": "not UTF-8",
        b"[" * 5000 + b"]" * 5000: "nested more than",
        b'{"nodes": ' + b"9" * 5000 + b"}": "digit number",
        b'{"nodes": 8, "evil": "<script>alert(1)</script>"}': "is not a design field",
        b'{"nodes": 8, "nodes": 9}': "twice",
        b'"just text"': "must hold a JSON object",
        b"{not json": "not valid JSON",
        b" " * (MAX_DESIGN_FILE_BYTES + 1): "larger than 1 MB",
        b'{"version": 1, "gpus": 8, "nodes": 1}': "not both",
    }
    for data, words in cases.items():
        with pytest.raises(InputError) as exc:
            design_from_bytes(data, "'up.json'")
        assert words in str(exc.value), (data[:40], str(exc.value))
        assert "\n" not in str(exc.value) and len(str(exc.value)) <= 400


def test_the_cli_reads_a_versioned_file_and_a_newer_one_exits_2(tmp_path, capsys):
    design = Design(gpu="H100", nodes=127, switch="QM9700")
    path = tmp_path / "fabric-h100-1016-ib.json"
    path.write_text(design.to_json())
    assert main(["plan", "--design", str(path), "--format", "json"]) in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert out["switches"]["total"] == 48  # NVIDIA DGX SuperPOD H100 RA, Table 4, 4 SU: 32 leaf + 16 spine
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**json.loads(design.to_json()), "version": DESIGN_FILE_VERSION + 1}))
    assert main(["plan", "--design", str(newer)]) == 2
    err = capsys.readouterr().err
    assert "newer than this app reads" in err and "Traceback" not in err
