"""Share-link codec: round trips (hypothesis), defaults left out, every bad value warned about by name."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.formats import sharelink
from core.catalog import load_catalog
from core.design import Design, first_level_size, most_nodes, nvlink_domain_size, resolve_nic_and_speed
from core.plan import plan

CATALOG = load_catalog()
SPEEDS = {f: sorted({m.speed_gbps for s in CATALOG.fabric_switches(f) for m in s.port_modes}
                    & {sp for n in CATALOG.nics if f in n.fabrics for sp in n.speeds_on(f)})
          for f in ("infiniband", "ethernet")}
IDS = [e.id for _, e in CATALOG.all_entries()]
finite = dict(allow_nan=False, allow_infinity=False)


@st.composite
def designs(draw):
    system = draw(st.sampled_from(CATALOG.systems))
    fabric = draw(st.sampled_from([None, "infiniband", "ethernet"]))
    effective_fabric = fabric or system.default_fabric
    speed = draw(st.sampled_from([None, *SPEEDS[effective_fabric]]))
    effective_speed = resolve_nic_and_speed(CATALOG, system, effective_fabric, speed)[1]  # the engine's rule
    switches = [s.id for s in CATALOG.fabric_switches(effective_fabric, effective_speed)]
    gpn = draw(st.one_of(st.none(), st.integers(1, 72)))
    effective_gpn = gpn or system.gpus_per_node
    domains = [1, *range(effective_gpn, 577, effective_gpn)]
    domain = draw(st.sampled_from([None, *domains]))
    level1 = first_level_size(system, gpn, nvlink_domain_size(system, gpn, domain), None)
    size = draw(st.sampled_from(["nodes", "gpus"]))  # nodes within the GPU limit (a link refuses more)
    nodes = draw(st.integers(1, most_nodes(effective_gpn, level1 // effective_gpn))) if size != "gpus" else None
    gpus = draw(st.integers(1, 1_000_000)) if size != "nodes" else None
    prices = st.dictionaries(st.sampled_from(IDS), st.floats(0, 1e9, **finite), max_size=3)
    powers = st.dictionaries(st.sampled_from(IDS), st.floats(0, 1e7, **finite), max_size=3)  # bound: 1e7 W
    return Design(
        gpu=system.id, nodes=nodes, gpus=gpus, gpus_per_node=gpn,
        nvlink_generation=draw(st.sampled_from([None, *[g.generation for g in CATALOG.nvlink]])),
        nvlink_domain_gpus=domain,
        fabric=fabric, port_speed_gbps=speed, nics_per_node=draw(st.one_of(st.none(), st.integers(1, 16))),
        planes=draw(st.integers(1, 8)), switch=draw(st.sampled_from([None, *switches])),
        topology=draw(st.sampled_from(["rail-optimized", "top-of-rack"])),
        nodes_per_rack=draw(st.one_of(st.none(), st.integers(1, 72))),
        oversubscription=draw(st.floats(1, 16, **finite)), spine_oversubscription=draw(st.floats(1, 16, **finite)),
        tiers=draw(st.sampled_from(["auto", 1, 2, 3])), cable_media=draw(st.sampled_from(["auto", "copper", "aoc",
                                                                                          "optics"])),
        pue=draw(st.floats(1, 3, **finite)), electricity_usd_per_kwh=draw(st.floats(0, 2, **finite)),
        tco_years=draw(st.floats(0, 30, exclude_min=True, **finite)),
        price_overrides=draw(prices), power_overrides=draw(powers),
    )


@settings(max_examples=300, deadline=None)
@given(designs())
def test_round_trip(design):
    params = sharelink.encode(design)
    decoded, warnings = sharelink.decode(params)
    assert warnings == []
    assert decoded == design
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in params.items())
    assert set(params) <= set(sharelink.KEYS)


def test_defaults_are_left_out():
    assert sharelink.encode(Design()) == {"v": "1"}
    params = sharelink.encode(Design(nodes=128, oversubscription=2.0, fabric="ethernet"))
    assert params == {"v": "1", "n": "128", "os": "2", "f": "eth"}


def test_aliases_canonicalised_and_full_names_accepted():
    design, warnings = sharelink.decode({"g": "dgx-h100", "sw": "quantum-2", "f": "InfiniBand", "t": "top-of-rack"})
    assert warnings == []
    assert (design.gpu, design.switch, design.fabric, design.topology) == ("H100", "QM9700", "infiniband",
                                                                           "top-of-rack")


@pytest.mark.parametrize("params,key,accepted", [
    ({"n": "abc"}, "'n' (Nodes)", "whole number from 1 to 1,000,000"),
    ({"n": "0"}, "'n' (Nodes)", "whole number from 1 to 1,000,000"),
    ({"os": "0.2"}, "'os' (Oversubscription (leaf down:up))", "from 0.25 to 16"),
    ({"os": "nan"}, "'os'", "from 0.25 to 16"),
    ({"g": "H999"}, "'g' (GPU model)", "H100"),
    ({"f": "token-ring"}, "'f' (Fabric)", "ib (InfiniBand) or eth"),
    ({"ps": "123"}, "'ps' (Port speed [Gb/s])", "400"),
    ({"sw": "QM8700"}, "'sw' (Switch model)", "QM9700"),  # no 400G mode on the default fabric/speed
    ({"sw": "SN4600C"}, "'sw' (Switch model)", "QM9700"),  # a management switch
    ({"f": "eth", "sw": "QM9700"}, "'sw' (Switch model)", "SN5600"),
    ({"ti": "4"}, "'ti' (Tiers)", "auto, 1, 2 or 3"),
    ({"px": "QM9700:cheap"}, "'px' (Price overrides [USD])", "ID:USD"),
    ({"px": "NOPE:1"}, "'px' (Price overrides [USD])", "ID:USD"),
    ({"yrs": "0"}, "'yrs' (TCO years)", "above 0, up to 30"),
    ({"nvd": "12"}, "'nvd' (NVLink domain [GPUs])", "multiple"),
    ({"zz": "1"}, "'zz' is unknown", "Known: v, g, n"),
    ({"v": "9"}, "'v' (link version)", "Accepted: 1"),
])
def test_bad_values_warn_and_the_rest_applies(params, key, accepted):
    design, warnings = sharelink.decode({**params, "n": params.get("n", "64"), "pue": "1.5"})
    assert len(warnings) == 1, warnings
    assert key in warnings[0] and accepted in warnings[0]
    assert design.pue == 1.5  # the rest of the link still applies
    if "n" not in params:
        assert design.nodes == 64


def test_decode_never_raises_on_garbage():
    junk = {"n": "\x00", "g": "", "os": "1e999", "px": ",,,:", "pw": "a=b=c", "ps": "-1", "v": "", "t": "x" * 500}
    design, warnings = sharelink.decode(junk)
    assert isinstance(design, Design) and len(warnings) == len(junk)
    plan(design)  # the fallback design plans


def test_extension_keys_are_skipped_and_extensions_round_trip():
    ext = sharelink.register_extension("test_", [
        sharelink.Param("mbs", "micro-batch", sharelink.parse_int(1, 64), str, 1, "1 to 64"),
        sharelink.Param("m", "model", sharelink.parse_choice(["a", "b"]), str, "a", "a or b"),
    ])
    assert sharelink.extension("test_") is ext
    params = {**sharelink.encode(Design(nodes=8)), **ext.encode({"mbs": 8, "m": "a"})}
    assert params == {"v": "1", "n": "8", "test_mbs": "8"}
    design, warnings = sharelink.decode({**params, "other_x": "1"})
    assert warnings == [] and design == Design(nodes=8)
    values, ext_warnings = ext.decode({**params, "test_mbs": "999", "test_zz": "1"})
    assert values == {"mbs": 1, "m": "a"}
    assert any("'test_mbs' (micro-batch)" in w and "1 to 64" in w for w in ext_warnings)
    assert any("'test_zz' is unknown" in w for w in ext_warnings)
    with pytest.raises(ValueError):
        sharelink.register_extension("nounderscore", [])


def test_numbers_are_exact_and_short():
    for value in (1.0, 1.5, 0.1, 1 / 3, 1e-7, 12345678.9, math.pi):
        assert float(sharelink.format_number(value)) == value
    assert sharelink.format_number(2.0) == "2"
    assert sharelink.parse_float(0, 1e20)("1e 16") == 1e16  # '+' decoded as a space


@pytest.mark.parametrize("link, speed", [({"pods": "B300:32:801"}, 801),
                                         ({"f": "eth", "pods": "B200:8,B300:32:800@1"}, 800)])
def test_a_pod_speed_the_fabric_does_not_offer_drops_the_pods_with_a_warning(link, speed):
    """A pod's NIC and leaf speed follows the design's port-speed rule (``offered_port_speeds``): one the fabric
    does not offer is warned about by name and the pods are not applied, as a bad ``ps``; one it offers is kept."""
    design, warnings = sharelink.decode({"v": "1", "n": "64", **link})
    assert design.pods is None and len(warnings) == 1
    assert f"'pods' (Extra pods) = '{link['pods']}' was ignored" in warnings[0]
    assert f"runs at {speed} Gb/s" in warnings[0]
    design, warnings = sharelink.decode({"v": "1", "n": "64", "pods": "B300:32:800@1"})
    assert design.pods == "B300:32:800@1" and not warnings
    plan(design)
