"""Non-minimal (Valiant) routing of the classic Dragonfly (``core.fabric.classic_dragonfly``): its hops against
networkx shortest paths on the wired graph of small instances (hypothesis), and uniform random traffic's throughput
against Kim et al.'s formulas and the global links' load counted flow by flow on the graph.

Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008: Section 4 (routing):
a minimal route crosses one global channel (local, global, local); Valiant's algorithm routes each packet first to
a randomly selected intermediate group, then to its destination, each leg minimal, so it crosses two global
channels and up to three local ones, and under uniform random traffic reaches half the throughput of minimal
routing on the global channels (50% of capacity on the balanced network). Section 3.1: ``a = 2p = 2h`` balances
the channels, a packet crossing two local channels for one global one.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import DesignError
from core.fabric import classic_dragonfly as cdf
from core.fabric.sizing import size_fabric
from core.fabric.wiring import Wiring, wiring_of


def _wired(rails: int, p: int, a: int, nodes: int, **changes):
    design = Design(gpu="H100", gpus_per_node=rails, nics_per_node=rails, nodes=nodes, topology="classic-dragonfly",
                    switch="QM9700", su_nodes=p, group_leaves=a, **changes)
    f = size_fabric(resolve_design(design, load_catalog()))
    return f, wiring_of(f, nodes, rails)


def _routers(w) -> tuple[nx.Graph, list[list[str]]]:
    """One plane's router graph (local and global links) and the routers of each group."""
    g = nx.Graph()
    for b in w.bundles(0):
        if b.kind != "node-leaf":
            g.add_edge(b.a, b.b)
    groups = [[w.clos.switch_id("leaf", k) for k in w.routers_of_group(x)] for x in range(w.pods)]
    g.add_nodes_from(r for group in groups for r in group)
    return g, groups


def _valiant_by_networkx(g: nx.Graph, groups: list[list[str]]) -> int:
    """Router-to-router hops of the longest Valiant route: for every source ``s`` (group A), intermediate group C
    and destination ``d`` (group B), a shortest path from ``s`` to C among A's and C's routers, landing on any
    router of C it can end at, then a shortest path from there to ``d`` among C's and B's routers."""
    worst = 0
    for a, c, b in itertools.permutations(range(len(groups)), 3):
        ac = g.subgraph(groups[a] + groups[c])
        cb = g.subgraph(groups[c] + groups[b])
        to_d = {x: nx.single_source_shortest_path_length(cb, x) for x in groups[c]}
        for s in groups[a]:
            dist = nx.single_source_shortest_path_length(ac, s)
            first = min(dist[x] for x in groups[c])
            landing = [x for x in groups[c] if dist[x] == first]
            worst = max(worst, first + max(to_d[x][d] for x in landing for d in groups[b]))
    return worst


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rails=st.sampled_from([1, 2, 4]), p=st.integers(1, 4), sus=st.integers(1, 3), groups=st.integers(3, 6),
       short=st.integers(0, 3), ratio=st.sampled_from([0.25, 0.5, 1.0, 2.0]))
def test_valiant_hops_are_networkx_shortest_paths(rails, p, sus, groups, short, ratio):
    a = rails * sus
    nodes = max(1, p * sus * groups - short)  # the last scalable unit, and so the last group, may be short
    try:
        f, w = _wired(rails, p, a, nodes, global_ratio=ratio)
    except DesignError:
        return  # a group its routers' ports cannot join all to all with the global ports it needs
    g, members = _routers(w)
    hops = cdf.hop_counts(w)
    if w.pods < 3:  # no intermediate group: Valiant is minimal with two groups, none with one
        assert hops.valiant == (hops.other_group if w.pods == 2 else 0)
        return
    assert hops.valiant == _valiant_by_networkx(g, members) + 1  # switches: router hops + 1
    assert hops.valiant <= 6  # Kim et al.: 2 global hops and at most 3 local ones
    # inside a group, the detour through a third router: the shortest path without the direct local link
    group = g.subgraph(members[0]).copy()
    if len(members[0]) > 2:
        x, y = members[0][:2]
        group.remove_edge(x, y)
        assert hops.valiant_same_group == nx.shortest_path_length(group, x, y) + 1 == 3
    else:
        assert hops.valiant_same_group == 0


def test_valiant_is_up_to_two_global_and_three_local_hops_on_slingshot():
    """Slingshot's balanced group (a = 32, p = 16, h = 17) at 64 groups, 8 links per pair (all its 17 x 32 ports allow): a group's links to
    another group sit on 8 of its 32 routers, so the longest Valiant route is local, global, local, global, local:
    6 switches; minimal 4. At 8 groups (74 links per pair) every router reaches every group: 3 and 4."""
    f, w = _wired(1, 16, 32, 16 * 32 * 64)
    hops = cdf.hop_counts(w)
    assert (f.pod_count, f.global_pair_links, hops.other_group, hops.valiant, hops.valiant_same_group) == (
        64, 8, 4, 6, 3)
    f, w = _wired(1, 16, 32, 16 * 32 * 8)
    hops = cdf.hop_counts(w)
    assert (f.pod_count, f.global_pair_links, hops.other_group, hops.valiant) == (8, 74, 3, 4)


def _global_loads(w, valiant: bool) -> float:
    """The most loaded global link, one direction, in units of a node port's line rate, under uniform random traffic
    (every node port sends to every other alike at its line rate), counted flow by flow on the graph: a group
    pair's traffic spread evenly over its global links (minimal), or over every intermediate group (Valiant)."""
    g, groups = _routers(w)
    p = w.clos.nodes_per_group
    ports = sum(len(x) for x in groups) * p
    links: dict[tuple[int, int], int] = {}
    index = {r: i for i, group in enumerate(groups) for r in group}
    for u, v in g.edges:
        if index[u] != index[v]:
            for key in ((index[u], index[v]), (index[v], index[u])):
                links[key] = links.get(key, 0) + 1
    load = dict.fromkeys(links, 0.0)
    for a, b in itertools.permutations(range(len(groups)), 2):
        demand = len(groups[a]) * p * len(groups[b]) * p / (ports - 1)
        legs = [[(a, b)]] if not valiant else [[(a, c), (c, b)] for c in range(len(groups)) if c not in (a, b)]
        for path in legs:
            for leg in path:
                load[leg] += demand / len(legs)
    return max(load[k] / links[k] for k in load)


@pytest.mark.parametrize("shape", [(1, 2, 4, 5, 1.0), (2, 2, 4, 4, 1.0), (1, 3, 6, 7, 1.0), (4, 2, 8, 3, 1.0),
                                   (1, 3, 6, 7, 0.25), (2, 2, 4, 5, 0.5)])
def test_uniform_throughput_global_share_is_the_flow_count_on_the_graph(shape):
    rails, p, a, groups, ratio = shape
    f, w = _wired(rails, p, a, p * (a // rails) * groups, global_ratio=ratio)
    throughput = cdf.uniform_throughput(f)
    if ratio < 1:  # few global links: they decide under minimal routing too
        assert throughput.minimal == pytest.approx(1 / _global_loads(w, False)) and throughput.minimal < 1
    for routing, share in (("minimal", throughput.minimal), ("valiant", throughput.valiant)):
        global_share = 1 / _global_loads(w, routing == "valiant")
        assert share <= min(1.0, global_share) + 1e-9
        # the global links decide it unless the local links (or the line rate) are narrower
        local_hops = (p * (a - 1) + p * a * (groups - 1) * (2 if routing == "minimal" else 3)) / (p * a * groups - 1)
        assert share == pytest.approx(min(1.0, global_share, (a - 1) / (p * local_hops)))


def test_kim_et_al_balanced_network_valiant_halves_uniform_throughput():
    """The largest balanced network of 64-port routers (a = 32, p = 16, h = 17, 545 groups, 1 link per pair):
    minimal routing carries uniform random traffic at the local links' share, 31 / (16 x ~2) = 97%; Valiant's two
    global hops leave the global links ``h / (2p)`` = 17/32 of the line rate, about the 50% Kim et al. report."""
    design = Design(gpu="H100", gpus_per_node=1, nics_per_node=1, nodes=279_040, topology="classic-dragonfly",
                    switch="QM9700")
    f = size_fabric(resolve_design(design, load_catalog()))
    t = cdf.uniform_throughput(f)
    ports, group = 279_040, 512
    assert t.valiant == pytest.approx(1 * (ports - 1) / (group ** 2 * 2))  # lam (P - 1) / (2 T^2)
    assert t.valiant == pytest.approx(17 / 32, rel=2e-3)
    hops = (16 * 31 + 512 * 544 * 2) / (ports - 1)
    assert t.minimal == pytest.approx(31 / (16 * hops)) and 0.96 < t.minimal < 0.98
    minimal_global = (ports - 1) / group ** 2  # the global links' share under minimal routing: 1.06, above the rate
    assert 2 * t.valiant == pytest.approx(minimal_global) and minimal_global > 1 > t.minimal  # Valiant halves it


def test_two_groups_have_no_intermediate_and_one_router_needs_no_network():
    f, _w = _wired(1, 2, 4, 2 * 4 * 2)
    t = cdf.uniform_throughput(f)
    assert f.pod_count == 2 and t.valiant == t.minimal
    f, _w = _wired(1, 1, 1, 1)
    assert cdf.uniform_throughput(f) == (1.0, 1.0)
    assert math.isclose(cdf.uniform_throughput(f).minimal, 1.0)
