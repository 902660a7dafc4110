"""Racks, rows, cable lengths and media (core.physical): unit tests and property tests."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import DesignError, InputError
from core.fabric.sizing import size_fabric
from core.fabric.topology import fabric_graph
from core.formats import sharelink
from core.physical.layout import NetDevice, place
from core.physical.lengths import BIN_EDGES_M, bin_lengths, length_m, link_lengths
from core.physical.media import choose_media, media_for, pick_transceiver
from core.physical.racks import load_racks
from core.plan import plan

CATALOG = load_catalog()
RACKS = load_racks()
ROUTING = RACKS.routing


def laid_out(design: Design, networks=None):
    resolved = resolve_design(design, CATALOG)
    fabric = size_fabric(resolved)
    return resolved, fabric, place(resolved, fabric, networks, CATALOG)


# ---------------------------------------------------------------------------------------------- presets


def test_every_rack_preset_is_sourced_and_dated():
    for preset in RACKS.presets:
        assert preset.source.strip() and preset.as_of[:4] == "2026"
        assert 0 <= preset.reserved_u < preset.rack_units
    for part in (RACKS.hall, RACKS.routing):
        assert part.source.strip() and part.as_of


def test_default_preset_is_the_smallest_that_holds_the_systems_rack():
    assert laid_out(Design(gpu="H100", nodes=8))[2].preset == "superpod-41"  # 4 x 10.2 kW
    assert laid_out(Design(gpu="B300", nodes=8))[2].preset == "dense-60"  # 4 x 14.5 kW
    assert laid_out(Design(gpu="GB200-NVL72", gpus=72))[2].preset == "nvl72-liquid"  # ~120 kW


def test_a_lower_power_limit_spreads_the_nodes():
    _r, _f, layout = laid_out(Design(gpu="H100", nodes=16, rack_kw=21.0))
    assert layout.nodes_per_rack == 2 and layout.counts()["compute"] == 8
    assert all(r.kw <= 21.0 + 1e-9 for r in layout.racks)


# ---------------------------------------------------------------------------------------------- bad input


def test_rack_limit_below_one_node_is_a_design_error_with_a_way_out_that_builds():
    with pytest.raises(DesignError) as info:
        plan(Design(gpu="H100", nodes=8, rack_kw=8.0))
    assert "10.2 kW" in info.value.message and "the 8 kW rack power limit" in info.value.message
    assert info.value.fixes
    for _phrase, changes in info.value.fixes:
        plan(Design(**{**Design(gpu="H100", nodes=8, rack_kw=8.0).model_dump(exclude_defaults=True), **changes}))


def test_nvl72_rack_in_an_air_preset_points_to_the_liquid_preset():
    with pytest.raises(DesignError) as info:
        plan(Design(gpu="GB200-NVL72", gpus=144, rack_preset="superpod-41"))
    assert "nvl72-liquid" in info.value.suggestion
    phrase, changes = info.value.fixes[0]
    assert changes["rack_preset"] == "nvl72-liquid"
    assert plan(Design(gpu="GB200-NVL72", gpus=144, **changes)).layout.counts()["compute"] == 2


def test_unknown_rack_preset_names_the_known_ones():
    with pytest.raises(InputError) as info:
        plan(Design(gpu="H100", nodes=4, rack_preset="cabinet"))
    assert "air-15" in str(info.value) and "network-52" not in str(info.value)


def test_explicit_nodes_per_rack_above_the_limit_is_capped_with_a_note():
    p = plan(Design(gpu="B300", nodes=16, nodes_per_rack=8))  # 8 x 10U does not fit 48U
    assert p.layout.nodes_per_rack == 4 and p.layout.notes


def test_a_length_no_media_reaches_is_a_clear_design_error():
    resolved = resolve_design(Design(gpu="H100", nodes=4), CATALOG)
    with pytest.raises(DesignError) as info:
        choose_media(CATALOG, resolved, 5000.0, "auto", cage_ports=2, cage="OSFP", link_class="leaf-spine")
    assert "5,000.0 m" in info.value.message and info.value.suggestion


def test_cli_rack_flags():
    run = lambda *a: subprocess.run([sys.executable, "-m", "core", "plan", *a], capture_output=True,  # noqa: E731
                                    text=True)
    ok = run("--gpu", "h100", "--nodes", "16", "--rack-kw", "21", "--format", "json")
    assert ok.returncode == 0, ok.stderr
    assert '"racks"' in ok.stdout
    bad = run("--gpu", "h100", "--nodes", "16", "--rack-kw", "5")
    assert bad.returncode == 3 and "10.2 kW" in bad.stderr and "Traceback" not in bad.stderr
    worse = run("--gpu", "h100", "--nodes", "16", "--rack-kw", "-3")
    assert worse.returncode == 2 and "Traceback" not in worse.stderr


def test_share_link_round_trips_the_rack_fields_and_old_links_still_work():
    design = Design(gpu="H100", nodes=64, rack_preset="air-15", rack_kw=12.5, rack_units=45, cable_media="smf")
    params = sharelink.encode(design)
    assert {"rp", "rkw", "ru"} <= set(params)
    assert sharelink.decode(params)[0] == design
    old, warnings = sharelink.decode({"v": "1", "g": "H100", "n": "64", "cm": "copper"})
    assert old.cable_media == "copper" and not warnings
    _bad, warnings = sharelink.decode({"v": "1", "rp": "bogus"})
    assert warnings and "Rack preset" in warnings[0]


# ---------------------------------------------------------------------------------------------- positions


def test_superpod_su_is_four_compute_racks_the_leaf_rack_four_compute_racks():
    _r, _f, layout = laid_out(Design(gpu="H100", nodes=128))
    first_row = [r for r in layout.racks if r.row == 0]
    kinds = [r.kind for r in first_row[:9]]
    assert kinds == ["compute"] * 4 + ["network"] + ["compute"] * 4
    assert {s.kind for s in first_row[4].slots} == {"leaf"}
    # spines central: in a middle row of their own
    spine_rows = {layout.position(f"p0.spine{k}").row for k in range(16)}
    assert len(spine_rows) == 1 and layout.rows[next(iter(spine_rows))].kind == "central"


def test_positions_of_every_device_are_distinct_and_inside_their_rack():
    design = Design(gpu="H100", nodes=40, planes=1)
    resolved, fabric, layout = laid_out(design)
    graph = fabric_graph(plan(design))
    seen = set()
    for vertex in graph.nodes:
        pos = layout.position(vertex)
        rack = layout.rack(pos.rack)
        assert 1 <= pos.u and pos.u + pos.height_u - 1 <= rack.u_total
        for u in range(pos.u, int(pos.u + pos.height_u)):
            assert (pos.rack, u) not in seen, vertex
            seen.add((pos.rack, u))
    with pytest.raises(InputError):
        layout.position("node99999")
    with pytest.raises(InputError):
        layout.position("bogus")


def test_other_networks_devices_are_placed_in_management_racks_and_per_rack():
    devices = [NetDevice(prefix="mgmt.ufm", count=4, height_u=1, watts_each=500, kind="management"),
               NetDevice(prefix="oob.switch", count=3, height_u=1, watts_each=100, kind="management", per_rack=True),
               NetDevice(prefix="storage.array", count=2, height_u=2, watts_each=1500, kind="storage")]

    class Networks:
        def devices(self):
            return devices

    _r, _f, layout = laid_out(Design(gpu="H100", nodes=16), Networks())
    counts = layout.counts()
    assert counts["management"] == 1 and counts["storage"] == 1
    assert layout.position("mgmt.ufm3").rack == layout.position("mgmt.ufm0").rack
    top = layout.position("oob.switch0")
    assert top.u == layout.rack(top.rack).u_total  # the reserved top U
    assert layout.position("storage.array1").height_u == 2


# ---------------------------------------------------------------------------------------------- lengths


def test_length_rule_in_rack_in_row_and_across_rows():
    _r, _f, layout = laid_out(Design(gpu="H100", nodes=128))
    u = ROUTING.u_mm / 1000
    slack = lambda run: run * (1 + ROUTING.slack_fraction) + 2 * ROUTING.slack_end_m  # noqa: E731
    # node0 (U1-8) and node1 (U9-16) share rack R01-01: 8 U between their centres + the in-rack crossing
    assert length_m(layout, "node0", "node1") == pytest.approx(slack(8 * u + ROUTING.in_rack_m))
    # node0 (rack 1) to node4 (rack 2, next to it): up, one rack width along, down
    a, b = layout.rack(layout.position("node0").rack), layout.rack(layout.position("node4").rack)
    run = 2 * ((a.u_total - 4) * u + ROUTING.tray_above_rack_m) + abs(a.x_m - b.x_m)
    assert length_m(layout, "node0", "node4") == pytest.approx(slack(run))
    # across rows: the row pitch is part of the run
    far = length_m(layout, "p0.leaf0", "p0.spine0")
    leaf, spine = layout.rack(layout.position("p0.leaf0").rack), layout.rack(layout.position("p0.spine0").rack)
    assert leaf.row != spine.row and far > abs(leaf.y_m - spine.y_m)


def test_bins_cover_every_length_and_count_links():
    lengths = np.array([0.5, 3.0, 3.01, 49.9, 50.0, 700.0])
    out = bin_lengths("leaf-spine", lengths, np.array([1, 2, 3, 4, 5, 6]), np.zeros(6, dtype=int))
    assert out.links == 21 and sum(b.links for b in out.bins) == 21
    spans = {b.label(): b.links for b in out.bins}
    assert spans == {"<= 3 m": 3, "3-5 m": 3, "30-50 m": 9, "> 500 m": 6}
    assert BIN_EDGES_M[0] == 0 and math.isinf(BIN_EDGES_M[-1])


# ---------------------------------------------------------------------------------------------- media


@pytest.mark.parametrize("length, policy, kind, part", [
    (1.5, "auto", "dac", "DAC-400G"), (4.0, "auto", "acc", "ACC-400G"), (20.0, "auto", "mmf", "OSFP-800G-2xSR4"),
    (80.0, "auto", "smf", "OSFP-800G-2xDR4"), (300.0, "auto", "smf", "OSFP-800G-2xDR4-500M"),
    (1.5, "optics", "mmf", "OSFP-800G-2xSR4"), (1.5, "smf", "smf", "OSFP-800G-2xDR4"),
    (1200.0, "smf", "smf", "OSFP-800G-2xFR4"),
])
def test_media_by_reach_ndr(length, policy, kind, part):
    resolved = resolve_design(Design(gpu="H100", nodes=4), CATALOG)
    choice = choose_media(CATALOG, resolved, length, policy, cage_ports=2, cage="OSFP")
    assert choice.kind == kind and (choice.cable or choice.module).id == part
    assert choice.reach_m >= length


def test_xdr_has_no_passive_copper_and_aoc_is_ethernet_only():
    xdr = resolve_design(Design(gpu="B300", nodes=4), CATALOG)
    assert choose_media(CATALOG, xdr, 1.0, "auto", cage_ports=2, cage="OSFP").cable.id == "ACC-800G"
    assert choose_media(CATALOG, xdr, 10.0, "aoc", cage_ports=2, cage="OSFP").kind == "smf"
    eth = resolve_design(Design(gpu="H100", nodes=4, fabric="ethernet", switch="SN5600", port_speed_gbps=400), CATALOG)
    assert choose_media(CATALOG, eth, 30.0, "aoc", cage_ports=2, cage="OSFP").kind == "aoc"


def test_media_for_looks_a_link_up_by_length():
    p = plan(Design(gpu="H100", nodes=127))
    for m in p.media:
        assert media_for(p.media, m.link_class, m.max_m) == m
    assert pick_transceiver(CATALOG, p.resolved, "switch", 2, 10_000, media="mmf", cage="OSFP", strict=True) is None


def test_bom_lists_cables_by_bin_and_optics_by_type():
    p = plan(Design(gpu="H100", nodes=127))
    cables = [r for r in p.bom if r.category == "cable" and getattr(r, "network", "compute") == "compute"
              and ("node-leaf" in r.item or "leaf-spine" in r.item)]  # the compute fabric's links
    assert all(r.item.endswith(" m)") for r in cables)
    assert any("leaf-spine links across rows" in r.why and "multimode" in r.why for r in cables)
    assert sum(r.quantity for r in cables) == 1016 + 1024
    racks = p.summary()["racks"]
    assert (racks["compute"], racks["network"], p.summary()["racks_compute"]) == (32, 5, 32)
    assert racks["total"] == sum(racks[k] for k in ("compute", "network", "storage", "management"))


# ---------------------------------------------------------------------------------------------- properties

SYSTEMS = ["H100", "B200", "B300", "A100", "GB200-NVL72"]


@st.composite
def designs(draw):
    gpu = draw(st.sampled_from(SYSTEMS))
    nodes = draw(st.integers(1, 1500))
    if gpu == "GB200-NVL72":
        nodes = 18 * max(1, nodes // 18)
    return Design(gpu=gpu, nodes=nodes, topology=draw(st.sampled_from(["rail-optimized", "top-of-rack"])),
                  cable_media=draw(st.sampled_from(["auto", "aoc", "optics", "smf", "copper"])),
                  rack_kw=draw(st.one_of(st.none(), st.floats(15.0, 150.0))),
                  rack_units=draw(st.one_of(st.none(), st.sampled_from([42, 48, 52]))))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs())
def test_no_rack_over_its_limits_media_reach_covers_lengths_and_bins_sum_to_links(design):
    try:
        p = plan(design)
    except DesignError:
        return
    layout = p.layout
    for rack in layout.racks:
        assert rack.kw <= rack.kw_limit + 1e-6, rack.name
        assert rack.u_used <= rack.u_total + 1e-9
        for slot in rack.slots:
            assert slot.first_u >= 1 and slot.top_u <= rack.u_total + 1e-9
    for m in p.media:
        assert m.reach_m >= m.max_m
    f = p.fabric
    links = {"node-leaf": f.node_leaf_links * f.planes, "leaf-spine": f.leaf_spine_links * f.planes,
             "spine-core": f.spine_core_links * f.planes}
    for item in p.lengths:
        assert sum(b.links for b in item.bins) == links[item.link_class] == item.links
    assert sum(m.links for m in p.media) == sum(links.values())
    nodes_placed = sum(s.count for r in layout.racks for s in r.slots if s.kind in ("node", "nvl72"))
    assert nodes_placed == p.resolved.nodes


def test_lengths_of_131072_gpus_are_fast():
    import time

    resolved = resolve_design(Design(gpu="B300", gpus=131072), CATALOG)
    fabric = size_fabric(resolved)
    start = time.perf_counter()
    layout = place(resolved, fabric, None, CATALOG)
    lengths = link_lengths(resolved, fabric, layout)
    took = time.perf_counter() - start
    assert sum(x.links for x in lengths) == (fabric.node_leaf_links + fabric.leaf_spine_links
                                            + fabric.spine_core_links) * fabric.planes
    assert took < 5.0  # the benchmark measures the median (target 1 s); this only guards against a blow-up


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.sampled_from([0.0, *BIN_EDGES_M[1:-1]]), st.floats(0.0, 900.0)),
                          st.integers(0, 12), st.integers(0, 2)), min_size=1, max_size=60))
def test_bin_lengths_equals_the_bins_counted_one_by_one(entries):
    """Each bin holds the lengths in (edge, next edge] (the first also 0): its links, longest and link-weighted
    mean, and the route most of its links take (the first on a tie), as a plain loop over the entries counts
    them; lengths exactly on an edge go to the lower bin."""
    lengths = np.array([e[0] for e in entries])
    weights = np.array([e[1] for e in entries], dtype=np.int64)
    routes = np.array([e[2] for e in entries], dtype=np.int64)
    got = bin_lengths("node-leaf", lengths, weights, routes)
    expected: dict[int, list] = {}
    for length, weight, route in entries:
        if weight <= 0:
            continue
        b = next(i for i in range(len(BIN_EDGES_M) - 1) if length <= BIN_EDGES_M[i + 1])
        expected.setdefault(b, []).append((length, weight, route))
    assert [(x.low_m, x.high_m) for x in got.bins] == [(BIN_EDGES_M[b], BIN_EDGES_M[b + 1]) for b in sorted(expected)]
    for x, b in zip(got.bins, sorted(expected)):
        part = expected[b]
        links = sum(w for _l, w, _r in part)
        by_route = [sum(w for _l, w, r in part if r == k) for k in range(3)]
        assert x.links == links
        assert x.max_m == round(max(length for length, _w, _r in part), 2)
        assert x.mean_m == round(float(sum(Fraction(length) * w for length, w, _r in part) / links), 2)
        assert x.route == ("in-rack", "in-row", "across-rows")[by_route.index(max(by_route))]
    assert got.links == int(weights.sum())
    exact = sum((Fraction(length) * w for length, w, _r in entries), Fraction(0))
    assert got.total_m == round(float(exact), 1)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.floats(0.0, 900.0), st.integers(1, 5000), st.integers(0, 2)), min_size=1, max_size=40),
       st.randoms(use_true_random=False))
def test_bin_lengths_do_not_depend_on_how_links_are_grouped(entries, rnd):
    """The same links as one entry per link (split, shuffled) or as entries with link counts bin alike, in every
    byte: the sums are exact (a block's lengths times its multiplicity equal its links one by one)."""
    lengths = np.array([e[0] for e in entries])
    weights = np.array([e[1] for e in entries], dtype=np.int64)
    routes = np.array([e[2] for e in entries], dtype=np.int64)
    split = [(length, 1 if w == 1 else k, route) for length, w, route in entries
             for k in ([w] if w == 1 else [w // 2, w - w // 2]) if k]
    split += [(length, 1, route) for length, w, route in entries[:3] for _ in range(w)]
    merged = [(length, 2 * w if i < 3 else w, route) for i, (length, w, route) in enumerate(entries)]
    rnd.shuffle(split)
    a = bin_lengths("leaf-spine", *(np.array(c) for c in zip(*split)))
    b = bin_lengths("leaf-spine", *(np.array(c, dtype=t) for c, t in zip(zip(*merged), (float, np.int64, np.int64))))
    assert a == b and a.model_dump_json() == b.model_dump_json()
    assert bin_lengths("leaf-spine", lengths, weights, routes).links == sum(weights)


def test_rack_places_give_the_layouts_positions_and_are_shared_between_designs():
    """``Arrangement.places`` (all ``RackPlaces.arrays`` reads, the cable lengths' cache key): over an optimizer grid
    (switch models of different power and height, speeds, planes, topologies, tiers, ratios) the arrays of the
    places are the built layout's rack positions and device tables, and places are shared between designs."""
    from core.analysis.optimize import Constraints, Grid, candidate_designs
    from core.networks import size_networks
    from core.physical.layout import arrange

    catalog = load_catalog()
    prefixes = ("node", "p")
    seen: dict[tuple, tuple] = {}
    arranged = 0
    for gpu, gpus in (("H100", 2048), ("GB200", 1152)):
        grid = Grid(switches=("QM9700", "Q3400", "SN5600", "TH5"), nics=("CX7",), oversubscription=(1.0, 2.0))
        for design in candidate_designs(gpu, gpus, Constraints(), grid)[::3]:
            try:
                resolved = resolve_design(design, catalog)
                fabric = size_fabric(resolved)
                arrangement = arrange(resolved, fabric, size_networks(resolved, fabric, catalog))
            except (DesignError, InputError):
                continue
            places = arrangement.places(prefixes)
            x, y, top, row, tables = places.arrays()
            layout = arrangement.layout()
            assert np.array_equal(x, [r.x_m for r in layout.racks]) and np.array_equal(y, [r.y_m for r in layout.racks])
            assert np.array_equal(top, [r.u_total for r in layout.racks])
            assert np.array_equal(row, [r.row for r in layout.racks])
            for prefix, (starts, racks_, first, height) in tables.items():
                refs = layout.index[prefix][1]
                assert list(starts) == layout.index[prefix][0] and list(racks_) == [r for r, _s in refs], design
                assert list(first) == [layout.racks[r].slots[s].first_u for r, s in refs]
                assert list(height) == [layout.racks[r].slots[s].height_u for r, s in refs]
            assert {p for p in layout.index if p.startswith(prefixes)} == set(tables)
            seen.setdefault(places, design)
            arranged += 1
    assert len(seen) >= 30 and arranged - len(seen) >= arranged // 4
