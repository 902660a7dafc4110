"""Pods on three tiers (core.fabric.podcore): each pod's leaves and own spines under one shared core layer."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.analysis.pods import mixed_links, mixed_plan, mixed_wiring, pod_growth, pods_lines, pods_summary
from core.design import Design
from core.errors import DesignError
from core.fabric.podgraph import pods_aggregated_graph, pods_fabric_graph, pods_graph_elements
from core.fabric.pods import size_pods
from core.plan import plan

MIXED = Design(gpu="H100", nodes=64, pods="B200:32:800", tiers=3)


def test_hand_computed_counts():
    f = size_pods(MIXED)
    h100, b200 = f.pods
    # pod 1: H100 x 64 nodes, QM9700 64 x 400G at 1:1: SUs of 32 nodes, 8 rail leaves each: 2 x 8 = 16 leaves of
    # 32 uplinks; a spine keeps 64 / 2 = 32 ports down at sos 1: 16 x 32 / 32 = 16 spines, 32 / 16 = 2 per pair,
    # 32 down and 32 core uplinks each
    assert (h100.leaves, h100.uplinks_per_leaf, h100.own_spines, h100.links_per_leaf_spine_pair) == (16, 32, 16, 2)
    assert (h100.spine_down_ports, h100.spine_uplinks) == (32, 32)
    # pod 2: B200 x 32 nodes at 800G, Q3400 144 x 800G: one SU of 32 nodes, 8 leaves of 32 uplinks = 256 links; a
    # spine keeps 72 down: the smallest divisor of 32 >= ceil(256 / 72) = 4 is 4 spines, 8 per pair, 64 down, 64 up
    assert (b200.leaves, b200.uplinks_per_leaf, b200.own_spines, b200.links_per_leaf_spine_pair) == (8, 32, 4, 8)
    assert (b200.spine_down_ports, b200.spine_uplinks) == (64, 64)
    # core: S = 800G, the first pod's QM9700 has no 800G port: the fastest pod's Q3400 core, R = 144; a 400G
    # uplink takes a whole port (b = 1); G = gcd(16, 4) = 4 groups: a group has 16 / 4 = 4 H100 spines and 1 B200
    # spine below it; C from ceil((4 x 32 + 1 x 64) / 144) = 2: 2 divides 32 and 64, 4 x 16 + 1 x 32 = 96 <= 144
    assert (f.tiers, f.core_switch, f.core_speed_gbps, f.core_radix) == (3, "Q3400", 800, 144)
    assert (f.core_groups, f.cores_per_group, f.cores, f.core_ports_used) == (4, 2, 8, 96)
    assert h100.uplinks_per_core_port == 1 and (h100.links_per_spine_core_pair, b200.links_per_spine_core_pair) == (16, 32)
    assert f.switches == 24 + 20 + 8 and f.spines == 0
    # across the core: pod 1 at min(400 NIC, 16 x 32 x 400 / 512 = 400 leaf up, 16 x 32 x 400 / 512 = 400 core up);
    # the slower half is 384 of pod 1's GPUs at 400 Gb/s
    # pod 2's CX8 at 800G sits in a PCIe Gen5 x16 host (DGX B200): 400 Gb/s per NIC reach the fabric (core.hostlink)
    assert h100.cross_gbps_per_gpu == 400 and b200.cross_gbps_per_gpu == 400
    assert f.bisection_gbps == 384 * 400


def test_one_pod_counts_are_the_single_fabric_three_tier_plans():
    """A pod alone is planned by core.fabric.sizing's three-tier rule: pod 1 above is H100 x 64 on three tiers."""
    alone = plan(Design(gpu="H100", nodes=64, tiers=3)).fabric
    pod = size_pods(MIXED).pods[0]
    assert (alone.pod_count, alone.leaf_count, alone.leaf_uplinks, alone.spine_count, alone.spine_uplinks) == (
        1, pod.leaves, pod.uplinks_per_leaf, pod.own_spines, pod.spine_uplinks)
    assert alone.core_count == pod.own_spines == 16  # one pod: C = 1 core per group, G = 16 groups


def test_two_identical_pods_are_the_single_fabric_with_two_pods():
    # H100 x 256 on three tiers: a pod holds 32 / 8 = 4 SUs = 128 nodes (32 leaves, 32 spines, U = 32); two pods'
    # spines under core groups of C: the fewest with 2 x 32 / C <= 64 is C = 1, so 32 groups x 1 = 32 cores
    single = plan(Design(gpu="H100", nodes=256, tiers=3)).fabric
    f = size_pods(Design(gpu="H100", nodes=128, pods="H100:128", tiers=3))
    assert single.pod_count == 2 and (single.leaf_count, single.spine_count, single.core_count) == (64, 64, 32)
    assert (f.leaves, f.own_spines, f.cores, f.cores_per_group) == (64, 64, 32, single.cores_per_group)
    assert all(p.spine_uplinks == single.spine_uplinks for p in f.pods)


def _flow_between_pods(graph: nx.Graph) -> float:
    """Max flow [Gb/s, one direction] from every server of pod 1 to every server of pod 2 (networkx)."""
    flow = nx.DiGraph()
    for u, v, data in graph.edges(data=True):
        flow.add_edge(u, v, capacity=data["capacity_gbps"])
        flow.add_edge(v, u, capacity=data["capacity_gbps"])
    for v, data in graph.nodes(data=True):
        if data["role"] == "server":
            flow.add_edge(*(("S", v) if data["pod_index"] == 0 else (v, "T")))
    return nx.maximum_flow_value(flow, "S", "T")


def _graph(mixed, servers: str = "each"):
    return pods_fabric_graph(mixed_wiring(mixed, three_tiers=True), tuple(p.fabric.radix for p in mixed.plans),
                             tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), servers=servers)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(systems=st.sampled_from([("H100", "B200"), ("H100", "H100"), ("B200", "H200")]),
       sus=st.integers(1, 2), speed=st.sampled_from([None, 800]), ratio=st.sampled_from([1.0, 2.0]),
       sos=st.sampled_from([1.0, 2.0]))
def test_ports_balance_and_bisection_is_the_max_flow(systems, sus, speed, ratio, sos):
    """Two pods of equal GPUs (whole scalable units of 16 nodes) on three tiers: every switch within its radix,
    every leaf-spine and spine-core pair balanced, and the bisection (the pods' halves: pod 1 against pod 2) equal to
    the max flow between the pods' servers on the whole graph."""
    nodes = 16 * sus
    design = Design(gpu=systems[0], nodes=nodes, pods=f"{systems[1]}:{nodes}" + (f":{speed}" if speed else ""),
                    tiers=3, oversubscription=ratio, spine_oversubscription=sos, su_nodes=16)
    try:
        mixed = mixed_plan(design)
    except DesignError as exc:
        assert exc.suggestion
        return
    grouped = _graph(mixed, "grouped")
    assert grouped.number_of_nodes() + 2 * grouped.number_of_edges() == pods_graph_elements(
        mixed_wiring(mixed, three_tiers=True))
    graph = _graph(mixed)
    for v, data in graph.nodes(data=True):
        if data["role"] != "server":
            assert data["ports_free"] >= 0, v
    f = mixed.fabric
    for i, pod in enumerate(f.pods):
        for v, data in graph.nodes(data=True):
            if data.get("pod_index") == i and data["role"] == "leaf":
                ups = [e["links"] for u, e in graph.adj[v].items() if graph.nodes[u]["role"] == "spine"]
                assert len(ups) == pod.own_spines and set(ups) == {pod.links_per_leaf_spine_pair}
            if data.get("pod_index") == i and data["role"] == "spine":
                ups = [e["links"] for u, e in graph.adj[v].items() if graph.nodes[u]["role"] == "core"]
                assert len(ups) == f.cores_per_group and set(ups) == {pod.links_per_spine_core_pair}
                assert pod.own_spines % f.core_groups == 0
                assert pod.spine_down_ports + pod.spine_uplinks <= pod.spine_radix
    assert f.bisection_gbps == pytest.approx(_flow_between_pods(graph))


def test_cabling_plan_uses_each_core_port_once_and_counts_every_link():
    mixed = mixed_plan(MIXED)
    links = list(mixed_links(mixed))
    by_kind = Counter(kind for kind, *_rest in links)
    # node-leaf: 64 x 8 + 32 x 8 = 768; leaf-spine: 16 x 32 + 8 x 32 = 768; spine-core: 16 x 32 + 4 x 64 = 768
    assert by_kind == {"node-leaf": 768, "leaf-spine": 768, "spine-core": 768}
    ends = Counter((z, pz) for kind, _a, _pa, z, pz, _s in links if kind == "spine-core")
    assert max(ends.values()) == 1 and len({z for z, _p in ends}) == 8
    assert Counter(z for z, _p in ends) == {f"core{k}": 96 for k in range(8)}  # 4 x 16 + 1 x 32 ports each
    spine_ends = Counter((a, pa) for kind, a, pa, *_rest in links if kind == "spine-core")
    assert max(spine_ends.values()) == 1


def test_bill_buys_the_shared_cores_once_and_keeps_the_pods_spines():
    mixed = mixed_plan(MIXED)
    compute = [r for r in mixed.bom if r.category == "switch" and r.network == "compute" and not r.spare]
    cores = [r for r in compute if r.item.endswith("(core)")]
    assert len(cores) == 1 and cores[0].quantity == 8 and cores[0].catalog_id == "Q3400"
    spines = {r.catalog_id: r.quantity for r in compute if r.item.endswith("(spine)")}
    assert spines == {"QM9700": 16, "Q3400": 4}
    summary = pods_summary(mixed)
    assert summary["cores"]["count"] == 8 and summary["switches"] == 52
    assert any("8 Q3400 at 800G in 4 groups of 2" in words for _label, words in pods_lines(summary))


def test_stages_sized_for_the_final_stage_add_a_pod_and_move_nothing():
    design = MIXED.model_copy(update={"pods": "B200:32:800@1", "pods_final": True})
    assert size_pods(design, 0).cores == size_pods(design, 1).cores == 8  # sized for stage 1: G = 4, C = 2
    (step,) = pod_growth(design)
    assert (step.cables_moved, step.cables_removed, step.switches_removed) == (0, 0, 0)
    # pod 2 adds 8 leaves and 4 spines; 32 x 8 node-leaf + 8 x 32 leaf-spine + 4 x 64 spine-core cables
    assert step.switches_added == 8 + 4 and step.cables_added == 32 * 8 + 8 * 32 + 4 * 64


def test_auto_tiers_fall_back_to_three_when_no_shared_spine_layer_fits():
    with pytest.raises(DesignError):
        size_pods(Design(gpu="H100", nodes=128, pods="B200:128:800", tiers=2))
    f = size_pods(Design(gpu="H100", nodes=128, pods="B200:128:800"))
    # H100 x 128: 32 spines of 32 uplinks; B200 x 128: 16 leaves x 72 uplinks over 18 spines, 64 uplinks each;
    # G = gcd(32, 18) = 2; C from ceil((16 x 32 + 9 x 64) / 144) = 8 (divides 32 and 64): 16 x 4 + 9 x 8 = 136
    assert f.tiers == 3 and [(p.own_spines, p.spine_uplinks) for p in f.pods] == [(32, 32), (18, 64)]
    assert (f.core_groups, f.cores_per_group, f.core_ports_used) == (2, 8, 136)


def test_a_pod_of_several_spine_pods_is_refused_with_a_way_out_that_builds():
    design = Design(gpu="H100", nodes=64, pods="H100:512", tiers=3)
    with pytest.raises(DesignError) as info:
        size_pods(design)
    assert "one spine pod" in info.value.message and info.value.fixes
    for _phrase, changes in info.value.fixes:
        assert size_pods(design.model_copy(update=changes)).tiers == 3


def test_slurm_tree_puts_each_pods_spines_under_the_shared_cores():
    from core.formats.podslurm import mixed_tree

    tree = mixed_tree(mixed_plan(MIXED), None)
    top = tree.switches[-1]
    # pod 1: 2 SUs under its own spines' switch; pod 2: 1 SU under its own; both under the cores
    assert top.name == "cores" and top.switches == ["pod1-pod001", "pod2-pod001"]
    below = {s.name: s for s in tree.switches[:-1]}
    assert below["pod1-pod001"].switches == ["pod1-su001", "pod1-su002"] and below["pod2-pod001"].switches == [
        "pod2-su001"]
    assert "pod 2" in below["pod2-pod001"].stands_for and sum(len(s.nodes) for s in tree.switches) == 96


def test_consumers_of_the_shared_spines_refuse_three_tiers():
    """``mixed_wiring`` refuses pods on three tiers to a caller that reads only the shared spines; the whole-fabric
    analyses take them (tests/test_pods_three_analyses.py)."""
    from core.analysis.podwhatif import pods_what_if

    mixed = mixed_plan(MIXED)
    with pytest.raises(DesignError, match="three tiers"):
        mixed_wiring(mixed)
    assert len(pods_what_if(mixed, [])) == 2
    aggregated = pods_aggregated_graph(mixed_wiring(mixed, three_tiers=True))
    assert aggregated.nodes["cores"]["count"] == 8
    assert aggregated["pod1.spines0"]["cores"]["links"] == 16 * 32


@pytest.mark.parametrize("design", [Design(gpu="H100", nodes=8, pods="B200:8:800", tiers=3), MIXED])
def test_single_points_are_the_graphs_cut_switches(design):
    """The leaves, pods' own spines and shared cores listed are exactly the switches whose loss alone leaves GPUs
    outside the part holding the most GPUs on the whole graph (networkx), with those GPUs. H100 x 8 and B200 x 8:
    pod 2 has 1 spine (its loss cuts pod 2's 64 GPUs off) and G = gcd(2, 1) = 1 group of C = 1 core (its loss
    parts the pods: 64 GPUs)."""
    from core.analysis.podspof import fabric_cuts

    mixed = mixed_plan(design)
    graph = _graph(mixed)
    gpus = {v: mixed.plans[d["pod_index"]].resolved.gpus_per_node for v, d in graph.nodes(data=True)
            if d["role"] == "server"}
    expected = {}
    for v, d in graph.nodes(data=True):
        if d["role"] in ("leaf", "spine", "core"):
            rest = graph.subgraph(u for u in graph if u != v)
            kept = max(sum(gpus.get(u, 0) for u in part) for part in nx.connected_components(rest))
            if sum(gpus.values()) - kept:
                expected[v] = sum(gpus.values()) - kept
    found = {element: lost for tier, element, lost in fabric_cuts(mixed) if tier != "link"}
    assert found == expected
    if design.nodes == 8:
        assert found["core0"] == 64 and found["pod2.p0.spine0"] == 64


@pytest.mark.parametrize("tab", ["Topology", "Bandwidth", "Cost & power", "Racks & cabling", "Hand-off"])
def test_designer_shows_pods_on_three_tiers(tab):
    """The Designer from a link of pods on three tiers (AppTest): no error, the Pods box's shared cores line; the
    Racks & cabling tab draws the whole hall, the shared cores' rows in the middle (core.physical.podlayout)."""
    from streamlit.testing.v1 import AppTest

    from tests.pagetest import ENTRY

    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({"n": "64", "pods": "B200:32:800", "ti": "3", "tab": tab, "lang": "en"})
    at.run()
    assert not at.exception and not at.error
    assert any("8 Q3400 at 800G in 4 groups of 2" in str(m.value) for m in at.markdown)
    if tab == "Racks & cabling":
        assert any("the shared cores' racks stand in rows of their own" in str(c.value) for c in at.caption)
        assert not any("pod 1's alone" in str(i.value) for i in at.info)


@pytest.mark.parametrize("page", ["../pages/6_Resilience.py", "../pages/3_Performance.py", "../pages/4_Compare.py", "../pages/8_Inference.py", "../pages/5_Sweep.py", "../pages/7_Optimize.py"])
def test_other_pages_work_on_pods_on_three_tiers(page):
    """The pages run on pods on three tiers (no error); the Resilience page's what-if fails the shared cores and
    every pod's spines and leaves, and says nothing is left out."""
    from tests.pagetest import open_page

    at = open_page(page, {"n": "64", "pods": "B200:32:800", "ti": "3"}, timeout=180)
    assert not at.exception and not at.error
    if "Resilience" in page:
        assert not any("three tiers yet" in str(i.value) for i in at.info)
        assert any("under the shared cores" in str(m.value) for m in at.markdown)


def test_graphml_holds_every_pods_spines_and_the_shared_cores():
    from core.formats.graphml import graphml_graph

    graph = graphml_graph(plan(MIXED))
    roles = Counter(d["role"] for _v, d in graph.nodes(data=True))
    # 64 + 32 servers, 16 + 8 leaves, 16 + 4 own spines, 8 shared cores
    assert roles == {"server": 96, "leaf": 24, "spine": 20, "core": 8} and graph.graph["tiers"] == 3
    cores = [d for v, d in graph.nodes(data=True) if d["role"] == "core"]
    assert {(d["model"], d["ports"], d["ports_used"], d["port_speed_gbps"]) for d in cores} == {("Q3400", 144, 96, 800)}
    assert {d["pod"] for _v, d in graph.nodes(data=True) if d["role"] == "spine"} == {1, 2}
    assert "core001" in graph and "pod2-spine004" in graph


def test_a_tapered_core_bounds_the_rate_across_pods():
    # spine oversubscription 2: pod 1 (H100) has 16 spines of 32 down, ceil(32 / 2) = 16 core uplinks; pod 2 (B200)
    # 3 spines of 88 down, 44 up; G = gcd(16, 3) = 1 group; C must divide both: C = 1 needs 16 x 16 + 3 x 44 = 388
    # ports > 144, C = 2 needs 194; C = 3 raises them to 18 and 45 (free ports allow): 16 x 6 + 3 x 15 = 141 <= 144.
    # Pod 1's core share is then 16 x 18 x 400 / 512 = 225 Gb/s per GPU against 400 in the pod; the bisection is
    # 384 GPUs of pod 1 at 225
    mixed = mixed_plan(MIXED.model_copy(update={"spine_oversubscription": 2.0}))
    f = mixed.fabric
    h100, b200 = f.pods
    assert (f.core_groups, f.cores_per_group, f.core_ports_used) == (1, 3, 141)
    assert (h100.own_spines, h100.spine_uplinks, b200.own_spines, b200.spine_uplinks) == (16, 18, 3, 45)
    assert (h100.gbps_per_gpu, h100.cross_gbps_per_gpu) == (400, 225)
    assert f.bisection_gbps == 384 * 225
    assert [p.fabric.spine_uplinks for p in mixed.plans] == [18, 45]  # the pods' own plans (the bill) re-planned so
    summary = pods_summary(mixed)
    own = summary["pods"][0]["allreduce_busbw_gbytes"]
    assert summary["cross_pod_allreduce_busbw_gbytes"] == pytest.approx(min(own * 225 / 400, summary["pods"][1][
        "allreduce_busbw_gbytes"] * summary["pods"][1]["cross_gbps_per_gpu"] / summary["pods"][1]["gbps_per_gpu"]))
