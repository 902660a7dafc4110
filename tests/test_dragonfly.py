"""Dragonfly+ (core.fabric.dragonfly): sizing, wiring, bisection and hops against networkx, on small instances."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.design import Design, resolve_design
from core.errors import DesignError
from core.fabric.bandwidth import bisection_gbits, tier_capacities_gbits
from core.fabric.dragonfly import DragonflyWiring, hop_counts, spine_global_links
from core.fabric.sizing import size_fabric
from core.fabric.wiring import Wiring, wiring_of
from core.formats import sharelink
from core.plan import plan

small = st.fixed_dictionaries(dict(
    su_nodes=st.integers(1, 6),
    sus_per_group=st.integers(1, 3),
    rails=st.sampled_from([1, 2]),
    global_ratio=st.sampled_from([0.25, 0.5, 1.0, 2.0]),
    oversubscription=st.sampled_from([1.0, 2.0]),
    nodes=st.integers(1, 120),
    planes=st.sampled_from([1, 2]),
))


def _design(p: dict, **changes) -> Design:
    kwargs = dict(gpu="H100", gpus_per_node=p["rails"], nics_per_node=p["rails"], switch="QM9700",
                  topology="dragonfly", su_nodes=p["su_nodes"], group_leaves=p["sus_per_group"] * p["rails"],
                  global_ratio=p["global_ratio"], oversubscription=p["oversubscription"], nodes=p["nodes"],
                  planes=p["planes"], nic="CX7-2P" if p["planes"] == 2 else None)
    return Design(**{**kwargs, **changes})


def _sized(design: Design):
    """(resolved, fabric, wiring) or None when the design cannot be built."""
    try:
        resolved = resolve_design(design)
        fabric = size_fabric(resolved)
    except DesignError:
        return None
    return resolved, fabric, wiring_of(fabric, resolved.nodes, resolved.nics_per_node)


def _graph(wiring, plane: int = 0) -> nx.Graph:
    graph = nx.Graph()
    for b in wiring.bundles(plane):
        graph.add_edge(b.a, b.b, capacity=b.count * b.speed_gbps, links=b.count, kind=b.kind)
    return graph


@settings(max_examples=60, deadline=None)
@given(small)
def test_ports_within_radix_and_links_balanced(p):
    sized = _sized(_design(p))
    if sized is None:
        return
    resolved, fabric, wiring = sized
    assert isinstance(wiring, DragonflyWiring) and wiring.family == "dragonfly"
    for group in fabric.switch_groups:
        assert group.port_units_used <= group.radix, group
    used: Counter = Counter()
    for plane, island in wiring.plane_islands():
        for link in wiring.links(plane, island):
            used[link.a] += 1
            used[link.b] += 1
    assert all(used[s] <= fabric.radix for s in wiring.all_switch_ids())
    # every pair of groups joined by the same number of global links; every leaf to each spine of its group alike
    pairs = Counter()
    for b in wiring.bundles():
        if b.kind == "global":
            ga, gb = (wiring.group_of_spine(wiring.parse(x)[3]) for x in (b.a, b.b))
            assert ga != gb
            pairs[frozenset((ga, gb))] += b.count
        elif b.kind == "leaf-spine":
            assert b.count == fabric.links_per_leaf_spine_pair
    groups = fabric.pod_count
    assert set(pairs.values()) <= {fabric.global_pair_links} and len(pairs) == groups * (groups - 1) // 2
    per_spine = spine_global_links(wiring.spines_per_pod * wiring.global_ports, wiring.spines_per_pod,
                                   (groups - 1) * fabric.global_pair_links)
    assert max(per_spine) - min(per_spine) <= 1 and max(per_spine) <= fabric.global_ports_per_spine


@settings(max_examples=40, deadline=None)
@given(small)
def test_link_counts_and_unique_port_ordinals(p):
    sized = _sized(_design(p))
    if sized is None:
        return
    resolved, fabric, wiring = sized
    links = [link for plane, island in wiring.plane_islands() for link in wiring.links(plane, island)]
    counts = Counter(link.kind for link in links)
    assert counts["node-leaf"] == fabric.node_leaf_links * fabric.planes
    assert counts["leaf-spine"] == fabric.leaf_spine_links * fabric.planes
    assert counts["global"] == fabric.global_links * fabric.planes
    ends = [(link.b, "down", link.b_port) for link in links if link.kind != "global"]
    ends += [(link.a, "up", link.a_port) for link in links if link.kind != "node-leaf"]
    ends += [(link.b, "up", link.b_port) for link in links if link.kind == "global"]
    assert len(ends) == len(set(ends))  # spines' global ordinals are up ordinals: no clash with their down ports
    bundled = Counter()
    for plane, island in wiring.plane_islands():
        for b in wiring.bundles(plane, island):
            bundled[b.kind] += b.count
    assert bundled == counts


def _max_flow(graph: nx.Graph, first: set[str], second: set[str]) -> float:
    flow = nx.DiGraph()
    for a, b, data in graph.edges(data=True):
        flow.add_edge(a, b, capacity=data["capacity"])
        flow.add_edge(b, a, capacity=data["capacity"])
    for n in first:
        flow.add_edge("SRC", n)
    for n in second:
        flow.add_edge(n, "DST")
    return nx.maximum_flow_value(flow, "SRC", "DST")


@settings(max_examples=25, deadline=None)
@given(small, st.sampled_from([2, 4, 6]))
def test_bisection_is_the_min_cut_between_halves_of_the_groups(p, groups):
    """With an even number of full groups, the analytic bisection (one plane) equals the max flow between the
    nodes of the first half of the groups and those of the second."""
    p = {**p, "planes": 1}
    nodes = groups * p["sus_per_group"] * p["su_nodes"]
    sized = _sized(_design(p, nodes=nodes))
    if sized is None or sized[1].pod_count != groups:
        return
    resolved, fabric, wiring = sized
    per_group = p["sus_per_group"] * p["su_nodes"]
    half = {f"node{n}" for n in range(nodes // 2)}
    other = {f"node{n}" for n in range(nodes // 2, nodes)}
    assert nodes // 2 % per_group == 0
    cut = _max_flow(_graph(wiring), half, other)
    capacities = tier_capacities_gbits(resolved, fabric)
    assert bisection_gbits(resolved, fabric) == pytest.approx(cut)
    assert cut <= capacities["injection"] / 2 + 1e-6


def _leaf(wiring, group: int) -> str:
    return wiring.switch_id("leaf", group * wiring.groups_per_pod * wiring.leaves_per_group)


@settings(max_examples=30, deadline=None)
@given(small)
def test_hop_counts_are_networkx_shortest_paths(p):
    sized = _sized(_design({**p, "planes": 1}))
    if sized is None:
        return
    resolved, fabric, wiring = sized
    hops = hop_counts(wiring)
    graph = _graph(wiring)
    leaves = list(wiring.switch_ids("leaf"))
    pods = {leaf: wiring.pod_of_leaf(wiring.parse(leaf)[3]) for leaf in leaves}
    switches = graph.subgraph([v for v in graph if not v.startswith("node")])
    lengths = dict(nx.all_pairs_shortest_path_length(switches))
    for a, b in itertools.combinations(leaves, 2):
        expected = hops.same_group if pods[a] == pods[b] else hops.other_group
        assert lengths[a][b] + 1 == expected  # switches on the path = edges + 1
    # no intermediate with two groups: Valiant is minimal there (none with one group)
    assert hops.valiant == (_valiant(wiring, switches) if wiring.group_count > 2 else hops.other_group)


def _valiant(wiring, switches: nx.Graph) -> int:
    """Longest, over groups G, H and an intermediate I, of the shortest route leaf(G) -> a spine of I -> leaf(H)
    inside the three groups with G's direct links to H removed (switches on the route)."""
    groups = wiring.group_count
    if groups < 3:
        return 0
    worst = 0
    spines = {g: [v for v in switches if v.startswith("p0.spine") and
                  wiring.group_of_spine(wiring.parse(v)[3]) == g] for g in range(groups)}
    for g, h, i in itertools.permutations(range(groups), 3):
        members = [v for v in switches if _group_of(wiring, v) in (g, h, i)]
        sub = nx.Graph(switches.subgraph(members))
        sub.remove_edges_from([(a, b) for a, b in sub.edges if {_group_of(wiring, a), _group_of(wiring, b)} == {g, h}])
        src, dst = _leaf(wiring, g), _leaf(wiring, h)
        from_src = nx.single_source_shortest_path_length(sub, src)
        to_dst = nx.single_source_shortest_path_length(sub, dst)
        worst = max(worst, min(from_src[s] + to_dst[s] + 1 for s in spines[i]))
    return worst


def _group_of(wiring, vertex: str) -> int:
    role, _plane, _island, k = wiring.parse(vertex)
    return wiring.group_of_spine(k) if role == "spine" else wiring.pod_of_leaf(k)


@settings(max_examples=30, deadline=None)
@given(small, st.integers(1, 40))
def test_counts_never_fall_as_nodes_grow(p, step):
    """Switches, node and group links never fall as nodes grow. The global links can: every pair of ``g`` groups
    gets the same ``floor(P / (g - 1))`` links, so 9 groups of 20 global ports take 2 x 36 = 72 links and 12
    groups 1 x 66 = 66 (the model's equal pairs, Kim et al.'s fully connected groups). What holds is that each
    group leaves fewer than ``g - 1`` of its ``P`` global ports unused."""
    smaller, larger = _sized(_design(p)), _sized(_design(p, nodes=p["nodes"] + step))
    if smaller is None or larger is None:
        return
    for name in ("leaf_count", "spine_count", "node_leaf_links", "leaf_spine_links"):
        assert getattr(larger[1], name) >= getattr(smaller[1], name), name
    for _resolved, fabric, wiring in (smaller, larger):
        groups, ports = fabric.pod_count, fabric.spines_per_pod * fabric.global_ports_per_spine
        if groups > 1:
            assert ports - (groups - 1) < (groups - 1) * fabric.global_pair_links <= ports


def test_plan_has_bom_cost_bandwidth_and_global_optics():
    result = plan(Design(gpu="H100", nodes=1024, topology="dragonfly", switch="QM9700", group_leaves=16))
    fabric = result.fabric
    assert fabric.family == "dragonfly" and fabric.pod_count == 16 and fabric.global_links == 16 * 15 // 2 * 34
    assert isinstance(Wiring.of(result), DragonflyWiring)
    assert sum(b.links for b in result.media if b.link_class == "global") == fabric.global_links
    assert sum(r.quantity for r in result.bom if r.category == "cable" and "(global" in r.item) == fabric.global_links
    assert any(r.category == "transceiver" and "global)" in r.item for r in result.bom)
    assert result.cost.network_capex_usd > 0
    assert result.bandwidth.hops_cross_pod == 4 and result.bandwidth.hops_valiant in (5, 7)
    assert result.bandwidth.bisection_tbits_one_direction < result.bandwidth.injection_tbits_one_direction / 2


def test_group_not_whole_scalable_units_is_a_design_error():
    with pytest.raises(DesignError) as err:
        plan(Design(gpu="H100", nodes=64, topology="dragonfly", switch="QM9700", group_leaves=12))
    assert "multiple of 8" in err.value.suggestion or err.value.fixes


@pytest.mark.parametrize("lang, words", [("en", "At most 32 leaves fit in one group."),
                                         ("zh", "一个组最多容纳 32 台叶交换机。")])
def test_group_too_large_names_the_largest(lang, words):
    """The plan's error names the largest group that fits (its ways out replace the sizing's suggestion, so the
    message says it), and every way out re-plans and builds."""
    from core.i18n import language

    design = Design(gpu="H100", nodes=64, topology="dragonfly", switch="QM9700", group_leaves=48)
    with language(lang), pytest.raises(DesignError) as err:
        plan(design)
    assert "48" in err.value.message and words in err.value.message
    assert err.value.fixes
    for _phrase, changes in err.value.fixes:
        plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))
    plan(Design(**{**design.model_dump(exclude_defaults=True), "group_leaves": 32}))  # the largest builds


def test_too_many_groups_has_ways_out_that_build():
    """32 nodes per group of 1 leaf, 32 global ports: at most 33 groups; 40 groups refuse with ways out."""
    design = Design(gpu="H100", gpus_per_node=1, nics_per_node=1, nodes=40 * 32, topology="dragonfly",
                    switch="QM9700", group_leaves=1)
    with pytest.raises(DesignError) as err:
        plan(design)
    assert "40 Dragonfly+ groups" in str(err.value) and "at most 33 groups" in str(err.value)
    for _phrase, changes in err.value.fixes:
        plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))


def test_cli_plans_a_dragonfly(capsys):
    from conftest import run_cli

    code, out, _err = run_cli(capsys, "plan", "--gpu", "H100", "--nodes", "1024", "--switch", "QM9700",
                              "--topology", "dragonfly", "--group-leaves", "16", "--global-ratio", "1", "--format", "json")
    assert code == 0
    summary = json.loads(out)
    assert summary["topology"] == "dragonfly" and summary["dragonfly"]["groups"] == 16
    assert summary["dragonfly"]["global_links"] == 16 * 15 // 2 * 34
    code, out, _err = run_cli(capsys, "plan", "--gpu", "H100", "--nodes", "1024", "--switch", "QM9700",
                              "--topology", "dragonfly", "--group-leaves", "12")
    assert code != 0


def test_share_link_and_design_file_round_trip():
    design = Design(gpu="H100", nodes=1024, topology="dragonfly", switch="QM9700", group_leaves=16, global_ratio=1.5)
    params = sharelink.encode(design)
    assert params["t"] == "df" and params["dfg"] == "16" and params["dgr"] == "1.5"
    decoded, warnings = sharelink.decode(params)
    assert decoded == design and not warnings
    assert Design.from_json(design.to_json()) == design


@settings(max_examples=20, deadline=None)
@given(small)
def test_global_spine_arrays_are_the_global_links(p):
    sized = _sized(_design(p))
    if sized is None:
        return
    wiring = sized[2]
    first, second = wiring.global_spines()
    links = list(wiring.global_links())
    assert [(f"p0.spine{a}", f"p0.spine{b}") for a, b in zip(first.tolist(), second.tolist())] == \
        [(link.a, link.b) for link in links]


def test_sidebar_restores_and_changes_a_dragonfly():
    """The share link of a Dragonfly+ restores the sidebar's widgets; changing them reaches the design and link."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    design = Design(gpu="H100", nodes=256, topology="dragonfly", switch="QM9700", group_leaves=8, global_ratio=1.5)
    at = AppTest.from_file(str(Path(__file__).with_name("apptest_entry.py")), default_timeout=60)
    at.query_params.update(sharelink.encode(design))
    at.run()
    assert not at.exception and not at.error
    assert at.session_state["fp_current"].design == design
    assert at.number_input(key="w_df_group").value == 8 and at.number_input(key="w_df_global").value == 1.5
    at.number_input(key="w_df_group").set_value(16).run()
    assert not at.exception and at.session_state["fp_current"].design.group_leaves == 16
    assert at.session_state["fp_current"].plan.fabric.pod_count == 4  # 8 SUs of 32 nodes, 2 per group
    assert dict(at.query_params)["dfg"] == "16"


@settings(max_examples=25, deadline=None)
@given(small)
def test_bisection_is_conservative_against_the_node_halving(p):
    """Any group count, partial SUs and groups too: the analytic bisection (the cut between halves of the groups)
    never exceeds the max flow across the node-order halving, one balanced cut among many (one plane)."""
    sized = _sized(_design({**p, "planes": 1, "nodes": max(2, p["nodes"] // 2 * 2)}))
    if sized is None:
        return
    resolved, fabric, wiring = sized
    nodes = resolved.nodes
    cut = _max_flow(_graph(wiring), {f"node{n}" for n in range(nodes // 2)},
                    {f"node{n}" for n in range(nodes // 2, nodes)})
    assert bisection_gbits(resolved, fabric) <= cut + 1e-6


def test_all_to_all_between_groups_is_bounded_by_the_global_links():
    """The collectives see the global links: the groups' traffic to other groups shares them at the spines'
    down:up ratio (injection over global bandwidth, minimal routing, stated in the notes)."""
    from core.perf.collectives import collective
    from core.perf.placement import place

    def a2a(ratio):
        p = plan(Design(gpu="H100", nodes=1024, topology="dragonfly", switch="QM9700", group_leaves=16,
                        global_ratio=ratio))
        return p, collective(p, "all-to-all", 1 << 30)

    thin, thin_run = a2a(0.5)
    full, full_run = a2a(1.0)
    assert thin.bandwidth.spine_oversubscription > 2 > full.bandwidth.spine_oversubscription >= 1
    assert thin_run["busbw_gbytes"] < 0.6 * full_run["busbw_gbytes"]
    assert place(thin).level == "global" and place(thin).hops == 4
    assert any("Valiant" in note for note in thin_run["notes"])
    clos = plan(Design(gpu="H100", nodes=1024, switch="QM9700"))
    assert collective(clos, "all-to-all", 1 << 30)["busbw_gbytes"] == pytest.approx(full_run["busbw_gbytes"], rel=0.01)
