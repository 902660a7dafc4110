"""Every pod on the views of a design with pods: the pods' wiring (core.fabric.podwiring) against the cabling
plan and the sizing, the graphs (core.fabric.podgraph) and the topology drawing of every pod."""

from __future__ import annotations

import networkx as nx
import pytest

from core.analysis.pods import mixed_links, mixed_plan, mixed_wiring
from core.design import Design
from core.fabric.podgraph import SHARED_SPINES, pods_aggregated_graph, pods_fabric_graph, pods_graph_elements
from core.figures.topology import count_drawn_elements, topology_figure, topology_graph
from core.plan import plan

TWO = Design(gpu="H100", nodes=64, pods="B200:32:400")
"""An H100 pod of 512 GPUs and a B200 pod of 256 under one spine layer."""
BREAKOUT = Design(gpu="H100", nodes=64, pods="B200:32:800")


@pytest.mark.parametrize("design", [TWO, BREAKOUT], ids=["same speed", "faster pod"])
def test_the_wiring_is_the_cabling_plan_and_the_sizing(design):
    mixed = mixed_plan(design)
    wiring = mixed_wiring(mixed)
    f = mixed.fabric
    cables = list(mixed_links(mixed))
    uplinks = [c for c in cables if c[0] == "leaf-spine"]
    assert len(uplinks) == sum(pod.uplinks for pod in f.pods)
    bundles = {(b.a, b.b): b.count for b in wiring.bundles() if b.kind == "leaf-spine"}
    counted: dict = {}
    for _kind, a, _ap, z, _zp, _speed in uplinks:
        counted[a, z] = counted.get((a, z), 0) + 1
    assert counted == bundles
    spine_ports = {}
    for _kind, _a, _ap, z, zp, _speed in uplinks:
        spine_ports.setdefault(z, set()).add(zp.rsplit("/", 1)[0])
    assert {len(ports) for ports in spine_ports.values()} == {f.spine_ports_used}
    node_leaf = sum(b.count for b in wiring.bundles() if b.kind == "node-leaf")
    assert node_leaf == sum(p.fabric.node_leaf_links for p in mixed.plans) == sum(c[0] == "node-leaf" for c in cables)


def test_ids_parse_back_to_their_pod():
    wiring = mixed_wiring(mixed_plan(TWO))
    assert wiring.node_id(1, 3) == "pod2.node3" and wiring.leaf_id(1, 1) == "pod2.p0.leaf1"
    assert wiring.parse("pod2.p0.leaf1") == (1, "p0.leaf1") and wiring.parse("spine0") is None
    assert wiring.parse("pod9.node0") is None


def test_the_full_graph_holds_every_pod_under_the_shared_spines():
    mixed = mixed_plan(TWO)
    wiring = mixed_wiring(mixed)
    graph = pods_fabric_graph(wiring, tuple(p.fabric.radix for p in mixed.plans),
                              tuple(p.resolved.leaf_uplink_cost for p in mixed.plans))
    leaves = [v for v, d in graph.nodes(data=True) if d["role"] == "leaf"]
    spines = [v for v, d in graph.nodes(data=True) if d["role"] == "spine"]
    assert len(leaves) == 16 + 8 and len(spines) == mixed.fabric.spines
    assert {graph.nodes[v]["pod_index"] for v in leaves} == {0, 1}
    assert all(graph.degree(s) == len(leaves) for s in spines)  # every leaf reaches every spine
    assert nx.is_connected(graph)
    assert sum(d["links"] for _a, _b, d in graph.edges(data=True)) == sum(
        p.fabric.node_leaf_links for p in mixed.plans) + sum(pod.uplinks for pod in mixed.fabric.pods)
    assert all(graph.nodes[v]["ports_free"] >= 0 for v in leaves + spines)
    assert pods_graph_elements(wiring) == graph.number_of_nodes() + 2 * graph.number_of_edges()


def test_the_aggregated_graph_bundles_each_pod_under_one_spine_vertex():
    mixed = mixed_plan(TWO)
    graph = pods_aggregated_graph(mixed_wiring(mixed))
    assert graph.nodes[SHARED_SPINES]["count"] == mixed.fabric.spines
    servers = [d for _v, d in graph.nodes(data=True) if d["role"] == "server"]
    assert sum(d["count"] for d in servers) == 64 + 32
    assert {d["span"].split(",")[0] for d in servers} == {"pod 1", "pod 2"}
    up = sum(d["links"] for a, b, d in graph.edges(data=True) if SHARED_SPINES in (a, b))
    assert up == sum(pod.uplinks for pod in mixed.fabric.pods)


def test_the_drawing_shows_every_pod_with_its_system_and_leaf_speed():
    p = plan(BREAKOUT)
    graph, _aggregated = topology_graph(p)
    assert any(d.get("pod_index") == 1 for _v, d in graph.nodes(data=True))
    fig = topology_figure(p)
    labels = [a.text for a in fig.layout.annotations]
    assert any("pod 1" in t and "H100" in t and "400G" in t for t in labels)
    assert any("pod 2" in t and "B200" in t and "800G" in t for t in labels)
    assert "2 pods" in fig.layout.title.text and "shared spines" in fig.layout.title.text
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert "Servers (96 nodes)" in legend
    assert count_drawn_elements(fig) <= 2000


def test_the_legend_counts_each_switch_model_of_the_pods():
    """16 QM9700 leaves for pod 1's 64 H100 nodes and 8 Q3400 for pod 2's 32 B200 nodes at 800G: each model with its
    own count, not "24 x QM9700 + Q3400"; on three tiers the pods' own spines (16 + 4) the same way."""
    legend = [t.name for t in topology_figure(plan(BREAKOUT)).data if t.showlegend is not False]
    assert "Leaf (16 x QM9700 + 8 x Q3400)" in legend, legend
    three = [t.name for t in topology_figure(plan(BREAKOUT.model_copy(update={"tiers": "3"}))).data
             if t.showlegend is not False]
    assert "Spine (16 x QM9700 + 4 x Q3400)" in three, three


def test_a_design_without_pods_draws_as_before():
    p = plan(Design(gpu="H100", nodes=64))
    graph, _aggregated = topology_graph(p)
    assert not any("pod_index" in d for _v, d in graph.nodes(data=True))
    assert not topology_figure(p).layout.annotations


@pytest.mark.parametrize("design", [TWO, Design(gpu="H100", nodes=16, topology="top-of-rack", pods="B200:8")],
                         ids=["rail-optimized", "top-of-rack"])
def test_single_points_are_the_whole_fabrics_cut_vertices(design):
    """The leaves and shared spines listed are exactly the switches whose loss alone leaves GPUs outside the part
    holding the most GPUs on the whole fabric's graph (every server, networkx), with those GPUs."""
    from core.analysis.spof import single_points

    mixed = mixed_plan(design)
    wiring = mixed_wiring(mixed)
    graph = pods_fabric_graph(wiring, tuple(p.fabric.radix for p in mixed.plans),
                              tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), servers="each")
    gpus = {v: mixed.plans[d["pod_index"]].resolved.gpus_per_node for v, d in graph.nodes(data=True)
            if d["role"] == "server"}
    expected = {}
    for v, d in graph.nodes(data=True):
        if d["role"] in ("leaf", "spine"):
            rest = graph.subgraph(u for u in graph if u != v)
            kept = max(sum(gpus.get(u, 0) for u in part) for part in nx.connected_components(rest))
            if sum(gpus.values()) - kept:
                expected[v] = sum(gpus.values()) - kept
    result = single_points(plan(design))
    found = {e.element: e.gpus_lost for e in result.elements if e.tier in ("leaf", "spine")}
    assert found == expected
    assert all(e.element.startswith("pod ") for e in result.elements if e.tier not in ("leaf", "spine", "link"))
    assert "whole fabric" in result.notes[0]


def test_one_tier_with_pods_is_a_design_error_whose_ways_out_build():
    """Pods sit on two or three tiers: a design asking for one says so, and each way out it offers re-plans and
    builds (three tiers are planned: core.fabric.podcore)."""
    from core.errors import DesignError

    design = Design(gpu="H100", nodes=64, pods="B200:32", tiers="1")
    with pytest.raises(DesignError) as caught:
        mixed_plan(design)
    assert "two or three tiers" in caught.value.message and caught.value.fixes  # dropping the pods: 1 tier fails
    for _phrase, changes in caught.value.fixes:
        changed = design.model_copy(update=changes)
        if changed.pods:
            assert mixed_plan(changed).fabric.gpus == 768
        else:
            assert plan(changed).resolved.gpus == 512


def test_the_failure_what_if_draws_pod_one_which_it_analyses():
    """The Resilience what-if analyses pod 1 of a design with pods: its drawing is pod 1's own fabric, whose
    vertices are the what-if's element names."""
    from core.figures.resilience import failure_topology_figure

    p = plan(TWO)
    graph, _aggregated = topology_graph(p, every_pod=False)
    assert not any("pod_index" in d for _v, d in graph.nodes(data=True)) and "p0.spine0" in graph
    assert not failure_topology_figure(p, set()).layout.annotations
