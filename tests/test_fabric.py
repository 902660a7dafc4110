"""Unit and property tests of fabric sizing, bandwidth and the fabric graphs."""

import math

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.fabric.bandwidth import bisection_gbits
from core.design import Design
from core.errors import DesignError
from core.fabric.sizing import down_up_split
from core.plan import plan
from core.fabric.topology import aggregated_graph, fabric_graph

SWITCH_SPEEDS = [("QM9700", 400, "infiniband"), ("QM9700", 200, "infiniband"), ("QM8700", 200, "infiniband"),
                 ("Q3400", 800, "infiniband"), ("SN5600", 400, "ethernet"), ("SN5600", 200, "ethernet")]

small_designs = st.builds(
    lambda gpu, nodes, gpn, sw, topo, over, rails, planes, tiers: dict(
        gpu=gpu, nodes=nodes, gpus_per_node=gpn, switch=sw[0], port_speed_gbps=sw[1], fabric=sw[2],
        topology=topo, oversubscription=over, nics_per_node=min(rails, gpn), planes=planes, tiers=tiers),
    gpu=st.sampled_from(["H100", "B300"]),  # B300's ConnectX-8 runs 2 x 400GbE: two planes
    nodes=st.integers(1, 160),
    gpn=st.sampled_from([1, 2, 4, 8]),
    sw=st.sampled_from(SWITCH_SPEEDS),
    topo=st.sampled_from(["rail-optimized", "top-of-rack"]),
    over=st.sampled_from([1.0, 1.5, 2.0, 3.0]),
    rails=st.sampled_from([1, 2, 4, 8]),
    planes=st.sampled_from([1, 2]),
    tiers=st.sampled_from(["auto", "auto", 2, 3]),
)


def _plan_or_none(kwargs):
    try:
        return plan(Design(**kwargs))
    except DesignError:
        return None


def test_down_up_split():
    assert down_up_split(64, 1) == (32, 32)
    assert down_up_split(64, 2) == (42, 21)
    assert down_up_split(64, 3) == (48, 16)
    assert down_up_split(144, 1) == (72, 72)
    for radix in range(2, 300):
        for over in (1, 1.5, 2, 3, 4, 7):
            down, up = down_up_split(radix, over)
            assert down + up <= radix and down / up <= over + 1e-9


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_designs)
def test_graph_respects_radix_and_connects_every_node(kwargs):
    result = _plan_or_none(kwargs)
    if result is None:
        return
    graph = fabric_graph(result, servers="each")
    fabric = result.fabric
    # ports never exceed the radix, and the graph agrees with the plan's switch groups
    for vertex, data in graph.nodes(data=True):
        if data["role"] != "server":
            assert 0 <= data["ports_used"] <= fabric.radix, vertex
    for group in fabric.switch_groups:
        assert group.ports_used <= fabric.radix
    by_role = {}
    for _, data in graph.nodes(data=True):
        by_role[data["role"]] = by_role.get(data["role"], 0) + 1
    assert by_role.get("leaf", 0) == fabric.leaf_count_total
    assert by_role.get("spine", 0) == fabric.spine_count_total
    assert by_role.get("core", 0) == fabric.core_count_total
    # every node reaches every other node (so every GPU reaches every other)
    assert nx.is_connected(graph)
    # balanced: a leaf has the same number of links to each spine it uses
    for u, v, data in graph.edges(data=True):
        roles = {graph.nodes[u]["role"], graph.nodes[v]["role"]}
        if roles == {"leaf", "spine"}:
            assert data["links"] == fabric.links_per_leaf_spine_pair
        if roles == {"spine", "core"}:
            spine = u if graph.nodes[u]["role"] == "spine" else v
            assert data["links"] == fabric.spine_core_pair_links(graph.nodes[spine]["pod"])
    # links in the graph match the plan's link counts
    links = {"node_leaf": 0, "leaf_spine": 0, "spine_core": 0}
    for u, v, data in graph.edges(data=True):
        roles = tuple(sorted((graph.nodes[u]["role"], graph.nodes[v]["role"])))
        key = {("leaf", "server"): "node_leaf", ("leaf", "spine"): "leaf_spine", ("core", "spine"): "spine_core"}[roles]
        links[key] += data["links"]
    summary = result.summary()
    assert links == summary["links"]


@settings(max_examples=150, deadline=None)
@given(small_designs)
def test_bisection_never_exceeds_half_the_injection(kwargs):
    result = _plan_or_none(kwargs)
    if result is None:
        return
    bw = result.bandwidth
    assert 0 < bw.bisection_tbits_one_direction <= bw.injection_tbits_one_direction / 2 + 1e-9
    assert bw.oversubscription >= 1


@settings(max_examples=200, deadline=None)
@given(
    base=small_designs,
    step=st.integers(1, 400),
)
def test_switches_and_capex_never_fall_as_nodes_grow(base, step):
    base = {**base, "tiers": "auto"}
    smaller = _plan_or_none(base)
    larger = _plan_or_none({**base, "nodes": base["nodes"] + step})
    if smaller is None or larger is None:
        return
    assert larger.summary()["switches"]["total"] >= smaller.summary()["switches"]["total"]
    if base["oversubscription"] == 1:  # fixed scalable units: every tier grows on its own too
        for role in ("leaf", "spine"):
            assert larger.summary()["switches"][role] >= smaller.summary()["switches"][role], role
    assert larger.cost.capex_usd >= smaller.cost.capex_usd
    assert larger.cost.it_kw >= smaller.cost.it_kw


@settings(max_examples=100, deadline=None)
@given(small_designs)
def test_design_json_round_trip(kwargs):
    design = Design(**kwargs)
    assert Design.from_json(design.to_json()) == design


def _min_cut_gbits(result, first_half):
    graph = fabric_graph(result, servers="each")
    flow = nx.DiGraph()
    for u, v, data in graph.edges(data=True):
        flow.add_edge(u, v, capacity=data["capacity_gbps"])
        flow.add_edge(v, u, capacity=data["capacity_gbps"])
    for n in range(result.resolved.nodes):
        if n in first_half:
            flow.add_edge("SRC", f"node{n}")  # infinite capacity
        else:
            flow.add_edge(f"node{n}", "DST")
    return nx.maximum_flow_value(flow, "SRC", "DST")


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(nodes=64, switch="QM9700"),  # 2 SUs, two tiers
        dict(nodes=84, switch="QM9700", oversubscription=2.0),  # 2 full SUs of 42 nodes
        dict(nodes=16, topology="top-of-rack", nodes_per_rack=2, oversubscription=3.0),
        dict(nodes=32, gpus_per_node=1, nics_per_node=1, topology="top-of-rack", nodes_per_rack=4,
             switch="QM8700", port_speed_gbps=200, tiers=3),
        dict(nodes=32, switch="QM9700"),  # one SU: everything meets on the rail leaves
    ],
)
def test_bisection_matches_min_cut(kwargs):
    """The analytic bisection equals the max flow between the two halves of the nodes (in node order,
    which splits scalable units, leaves and pods evenly for these designs)."""
    result = plan(Design(gpu="H100", **kwargs))
    nodes = result.resolved.nodes
    cut = _min_cut_gbits(result, set(range(nodes // 2)))
    assert cut == pytest.approx(bisection_gbits(result.resolved, result.fabric))


@settings(max_examples=25, deadline=None)
@given(small_designs)
def test_bisection_is_conservative_against_a_min_cut(kwargs):
    """For any design (partial scalable units too) the analytic bisection never exceeds the max flow
    across the node-order halving, one balanced cut among many."""
    result = _plan_or_none({**kwargs, "nodes": max(2, kwargs["nodes"] // 2 * 2)})
    if result is None:
        return
    cut = _min_cut_gbits(result, set(range(result.resolved.nodes // 2)))
    assert bisection_gbits(result.resolved, result.fabric) <= cut + 1e-6


def test_three_tier_error_names_largest_size():
    with pytest.raises(DesignError) as err:
        plan(Design(gpu="H100", gpus=131072, switch="QM9700"))
    assert "8,192 nodes" in str(err.value) and "65,536 GPUs" in str(err.value)
    assert err.value.suggestion


def test_forced_two_tiers_too_small_suggests_auto():
    with pytest.raises(DesignError) as err:
        plan(Design(gpu="H100", nodes=512, switch="QM9700", tiers=2))
    assert "2 tiers" in str(err.value) and "256 nodes" in str(err.value)
    assert "auto" in err.value.suggestion


def test_single_switch_when_everything_fits():
    s = plan(Design(gpu="H100", nodes=8, switch="QM9700")).summary()
    assert s["tiers"] == 1 and s["switches"]["total"] == 1
    assert plan(Design(gpu="H100", nodes=9, switch="QM9700")).summary()["tiers"] == 2


def test_nvl72_scalable_units_keep_racks_whole():
    result = plan(Design(gpu="GB200-NVL72", nodes=18 * 8))
    assert result.fabric.nodes_per_group % 18 == 0
    assert result.resolved.nvlink_domain_gpus == 72


def test_hops():
    two = plan(Design(gpu="H100", nodes=64)).bandwidth
    assert (two.hops_same_rail, two.hops_cross_rail, two.hops_cross_pod) == (1, 3, 3)
    three = plan(Design(gpu="H100", nodes=512)).bandwidth
    assert three.hops_cross_pod == 5


@pytest.mark.parametrize("gpus", [16, 1024, 16384, 65536])
def test_aggregated_graph_is_bounded(gpus):
    result = plan(Design(gpu="H100", gpus=gpus))
    graph = aggregated_graph(result)
    assert graph.number_of_nodes() + graph.number_of_edges() <= 500
    # the bundles still account for every switch and server of one plane
    counts = {}
    for _, data in graph.nodes(data=True):
        counts[data["role"]] = counts.get(data["role"], 0) + data["count"]
    assert counts["server"] == result.resolved.nodes
    assert counts["leaf"] == result.fabric.leaf_count
    assert counts.get("spine", 0) == result.fabric.spine_count
    assert counts.get("core", 0) == result.fabric.core_count


def test_per_gpu_bandwidth_units():
    bw = plan(Design(gpu="H100", nodes=4)).bandwidth
    assert bw.nvlink_gbytes_per_gpu_bidir == 900
    assert bw.nvlink_gbytes_per_gpu_per_direction == 450
    assert bw.scaleout_gbits_per_gpu == 400
    # 450 GB/s = 3,600 Gb/s per direction, 9x the 400 Gb/s NIC
    assert bw.scaleup_to_scaleout_ratio == pytest.approx(9.0)


def test_oversubscription_reported():
    # 3:1 on QM9700: 48 down, 16 up per leaf; 4 SUs x 8 rails = 32 leaves x 16 = 512 uplinks = 8 spines.
    bw = plan(Design(gpu="H100", nodes=192, oversubscription=3.0)).bandwidth
    assert bw.leaf_oversubscription == pytest.approx(3.0)
    assert bw.oversubscription == pytest.approx(3.0)
    assert bw.cross_fabric_gbits_per_gpu == pytest.approx(400 / 3)
    assert math.isclose(bw.bisection_tbits_one_direction, bw.injection_tbits_one_direction / 6)


def test_extra_uplinks_when_they_save_spines():
    """At 2:1 a leaf needs 21 uplinks, but 21 over 32 leaves only balances on 21 spines; 22 uplinks
    balance on 11 spines, so the engine cables 22 (fewer switches, slightly better than 2:1)."""
    result = plan(Design(gpu="H100", nodes=168, oversubscription=2.0))
    assert (result.fabric.leaf_uplinks, result.fabric.spine_count) == (22, 11)
    assert result.bandwidth.leaf_oversubscription == pytest.approx(42 / 22)


def test_partial_pod_spines_cable_only_what_they_need():
    """9 SUs of DGX H100 = pods of 4, 4 and 1 SU. The last pod's 32 spines carry 8 leaves x 1 link
    down, so at 1:1 they need 8 uplinks (4 to each core of their group of 2), not 32."""
    result = plan(Design(gpu="H100", nodes=288))
    fabric = result.fabric
    assert (fabric.pod_count, fabric.spines_per_pod, fabric.cores_per_group) == (3, 32, 2)
    assert fabric.partial_pod_spine_uplinks == 8
    assert fabric.spine_core_links == 2 * 32 * 32 + 32 * 8
    cores = [g for g in fabric.switch_groups if g.role == "core"][0]
    assert cores.down_ports_used == 2 * 16 + 4


def test_top_of_rack_leaves_never_straddle_racks():
    # 18 GB200 trays per rack x 4 NICs = 72 ports > 32 down ports: 3 leaves of 6 trays per rack
    result = plan(Design(gpu="GB200-NVL72", nodes=36, topology="top-of-rack"))
    assert (result.fabric.nodes_per_group, result.fabric.leaf_count) == (6, 6)
    # 6 DGX H100 per rack x 8 NICs = 48 ports: 2 leaves of 3 nodes per rack
    result = plan(Design(gpu="H100", nodes=12, nodes_per_rack=6, topology="top-of-rack"))
    assert (result.fabric.nodes_per_group, result.fabric.leaf_count) == (3, 4)


def test_nvl72_rounds_up_to_whole_racks_and_says_so():
    result = plan(Design(gpu="GB200-NVL72", gpus=100))
    assert result.resolved.nodes == 36 and result.resolved.gpus == 144
    assert any("rounded up" in line for line in result.summary()["explanation"])


def test_forced_extra_tier_is_explained():
    result = plan(Design(gpu="H100", nodes=100, tiers=3))
    assert result.fabric.tiers == 3
    assert "although 2 would do" in result.fabric.explanation[0]


def test_planes_need_nic_ports():
    with pytest.raises(DesignError, match="at most 1 plane"):
        plan(Design(gpu="H100", nodes=32, planes=2))
    ok = plan(Design(gpu="B300", nodes=32, fabric="ethernet", port_speed_gbps=400, planes=2))
    assert ok.resolved.nics_per_node == 8 and ok.bandwidth.scaleout_gbits_per_gpu == 800


def test_b300_on_ethernet_defaults_to_400g_and_says_so():
    result = plan(Design(gpu="B300", nodes=64, fabric="ethernet"))
    assert result.resolved.port_speed_gbps == 400
    assert any("2 planes" in note for note in result.resolved.notes)


def test_nodes_or_gpus_not_both():
    from core.design import parse_design
    from core.errors import InputError
    with pytest.raises(InputError, match="not both"):
        parse_design({"nodes": 10, "gpus": 80})


def test_edr_designs_get_an_edr_switch():
    assert plan(Design(gpu="V100", nodes=40)).resolved.switch.id == "SB7800"
    assert plan(Design(gpu="H100", nodes=40, port_speed_gbps=200)).resolved.switch.id == "QM9700"


def test_benchmark_designs_still_plan():
    """The designs benchmarks/bench_core.py times must stay buildable (the timing itself is not a test)."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_core.py"
    spec = importlib.util.spec_from_file_location("bench_core", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    for make in bench.CONFIGS.values():
        for gpus in bench.SIZES:
            assert plan(make(gpus)).resolved.gpus == gpus


def test_more_oversubscription_never_needs_more_switches():
    """Reviewer case: at 1,024 H100, 4:1 once needed 13 spines (51-node SUs, 13 uplinks that only
    balance on 13 spines) against 8 at 3:1. Leaves may now use fewer down ports to balance better."""
    totals = [plan(Design(gpu="H100", gpus=1024, oversubscription=o)).fabric.switch_count
              for o in (1, 1.5, 2, 3, 4, 5)]
    assert totals == sorted(totals, reverse=True)
    four = plan(Design(gpu="H100", gpus=1024, oversubscription=4))
    assert four.fabric.spine_count <= 8 and four.bandwidth.leaf_oversubscription <= 4
