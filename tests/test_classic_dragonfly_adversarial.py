"""Valiant and minimal routing of a classic Dragonfly's link load under uniform and adversarial traffic
(``core.analysis.load``'s ``adversarial`` pattern, ``core.fabric.classic_dragonfly.global_loads``) against networkx
and against Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008.

* networkx, group level: the groups' graph (one vertex a group, the wiring's global edges between them); minimal
  routing splits each connection over its shortest path (``nx.all_shortest_paths``: the direct edge) and the pair's
  parallel links; Valiant over every two-hop path (``nx.all_simple_paths`` with cutoff 2, enumerated explicitly);
  the model's global links equal that split link by link, on shapes hypothesis draws.
* networkx, router level: every connection routed explicitly on ``fabric_graph`` (the local links to and from the
  global links, every intermediate group's local link between its two global links;
  ``tests/test_classic_dragonfly_analyses._explicit``) equals the model's local and global loads, same shapes.
* Kim et al. 2008, Section 4.2 (worst-case traffic, every node of group i to group i + 1): minimal routing leaves a
  node 1/(a h) of its injection rate (all of a group's traffic on its one global link to the next group), Valiant
  about 50%; uniform traffic under Valiant half the global links' capacity.
"""

from __future__ import annotations

import math

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.analysis.load import link_load, link_load_arrays
from core.design import Design
from core.errors import FabricPlannerError
from core.fabric.classic_dragonfly import global_loads
from core.fabric.topology import fabric_graph
from core.fabric.wiring import Wiring
from core.plan import plan
from tests.test_classic_dragonfly_analyses import _explicit, _model

KIM = Design(gpu="H100", topology="classic-dragonfly", switch="QM9700", nodes=72, su_nodes=2, group_leaves=4,
             nics_per_node=1, global_ratio=1.0)
"""Kim et al.'s balanced shape, small: a = 4 routers of p = 2 nodes, h = 2 global links used a router (of its 59
ports), a h + 1 = 9 groups, one global link a pair."""


def _groups_graph(p) -> tuple[nx.MultiGraph, dict]:
    """The groups of ``p`` as a multigraph (one edge a global link) and each router's group."""
    g = fabric_graph(p)
    group = {v: d["pod"] for v, d in g.nodes(data=True) if d["role"] == "leaf"}
    out = nx.MultiGraph()
    out.add_nodes_from(set(group.values()))
    for a, b, e in g.edges(data=True):
        if a in group and b in group and group[a] != group[b]:
            out.add_edges_from([(group[a], group[b])] * e["links"])
    return out, group


def _group_split(p, arrays, valiant: bool) -> dict[tuple[int, int], float]:
    """``(group A, group B) -> load A->B`` [Gb/s] on each global link between them: every connection split over its
    networkx shortest path (minimal) or every two-hop path (Valiant), then evenly over each pair's links."""
    groups, _group = _groups_graph(p)
    simple = nx.Graph(groups)
    w = Wiring.of(p)
    nics = p.resolved.nics_per_node
    load: dict[tuple[int, int], float] = {}
    port_s, port_d, demand = arrays["pairs"]
    for ps, pd_, dem in zip(port_s.tolist(), port_d.tolist(), demand.tolist()):
        ga, gb = (w.pod_of_leaf(w.leaf_of(w.group_of_node(port // nics), port % nics)) for port in (ps, pd_))
        if ga == gb:
            continue
        if valiant and simple.number_of_nodes() > 2:
            paths = [q for q in nx.all_simple_paths(simple, ga, gb, cutoff=2) if len(q) == 3]
        else:
            paths = list(nx.all_shortest_paths(simple, ga, gb))
        for path in paths:
            for x, y in zip(path, path[1:]):
                load[x, y] = load.get((x, y), 0.0) + dem / len(paths) / groups.number_of_edges(x, y)
    return load


def _model_groups(arrays, group) -> dict[tuple[int, int], list[float]]:
    """The model's global links under adaptive routing: ``(group A, group B) -> [load A->B of each link]``."""
    out: dict[tuple[int, int], list[float]] = {}
    for direction in ("up", "down"):
        for i, value in enumerate(arrays[("global", direction)][0].tolist()):
            a, b = arrays["names"]("global", direction, i).split(" -> ")
            out.setdefault((group[a], group[b]), []).append(value)
    return out


SHAPES = st.tuples(st.sampled_from((2, 4)), st.sampled_from((1, 2, 3)), st.sampled_from((0.05, 0.25, 1.0)),
                   st.integers(3, 7), st.sampled_from(("uniform", "adversarial")), st.sampled_from(("minimal", "valiant")),
                   st.integers(0, 3))
"""Nodes per router, routers per group, global ratio, groups, pattern, routing, nodes missing from the last group."""


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SHAPES)
def test_loads_equal_networkx_shortest_paths_and_valiant_enumeration(shape):
    su, sus, ratio, groups, pattern, routing, short = shape
    design = Design(gpu="H100", topology="classic-dragonfly", switch="QM9700", su_nodes=su, nics_per_node=1,
                    group_leaves=sus, global_ratio=ratio, nodes=su * sus * groups - min(short, su * sus - 1))
    try:
        p = plan(design)
    except FabricPlannerError:
        return
    if p.fabric.pod_count < 2:
        return
    r, arrays = link_load_arrays(p, pattern, "rail", seed=3, global_routing=routing)
    valiant = routing == "valiant"
    # group level: networkx's paths, split evenly over each pair's links
    _groups, group = _groups_graph(p)
    want = _group_split(p, arrays, valiant)
    got = _model_groups(arrays, group)
    for pair, loads in got.items():
        assert all(math.isclose(v, want.get(pair, 0.0), rel_tol=1e-9, abs_tol=1e-6) for v in loads), pair
    assert set(want) <= set(got)
    # router level: every connection routed explicitly (local, global, local; Valiant through every other group)
    explicit, model = _explicit(p, arrays, valiant), _model(arrays)
    for link in set(explicit) | set(model):
        assert math.isclose(model.get(link, 0.0), explicit.get(link, 0.0), rel_tol=1e-9, abs_tol=1e-6), link
    assert routing in r.method and any("Closed form" in n for n in r.notes)


def test_kim_2008_worst_case_minimal_is_one_over_a_h_and_valiant_about_half():
    p = plan(KIM)
    f = p.fabric
    a, h, g = f.groups_per_pod * f.leaves_per_group, 2, f.pod_count
    assert (a, f.nodes_per_group, g, f.global_pair_links) == (4, 2, 9, 1) and g == a * h + 1
    loads = global_loads(f)
    assert loads.share(loads.adversarial_minimal) == 1 / (a * h)  # Kim et al.: 1/(a h) under minimal routing
    assert math.isclose(loads.share(loads.adversarial_valiant), (g - 2) / (2 * (g - 1)))  # 7/16
    line = None
    for routing, load in (("minimal", loads.adversarial_minimal), ("valiant", loads.adversarial_valiant)):
        r = link_load(p, "adversarial", "rail", global_routing=routing)
        glob = max(t.ar_max for t in r.tiers if t.tier == "global")
        assert math.isclose(glob, load, rel_tol=1e-9), routing  # the model's busiest global link is the closed form
        line = r.nic_gbps_per_gpu
        if routing == "minimal":  # every GPU gets the global link's share: e C / D of its line rate
            assert math.isclose(r.ar.median, line * 0.95 / load, rel_tol=1e-9)
            assert r.group == p.resolved.gpus // g  # the default group: one Dragonfly group's GPUs
    assert line == 50.0  # 8 GPUs on one 400G NIC


def test_kim_2008_large_balanced_valiant_near_half_uniform_valiant_half_of_minimal():
    """a = 2p = 2h (Kim et al.'s balance, Section 3.1): p = h = 4, a = 8, a h + 1 = 33 groups, one link a pair."""
    p = plan(Design(gpu="H100", topology="classic-dragonfly", switch="QM9700", nodes=8 * 4 * 33, su_nodes=4,
                    group_leaves=8, nics_per_node=1, global_ratio=1.0))
    f = p.fabric
    assert (f.groups_per_pod * f.leaves_per_group, f.nodes_per_group, f.pod_count, f.global_pair_links) == (8, 4, 33, 1)
    loads = global_loads(f)
    assert loads.share(loads.adversarial_minimal) == 1 / 32
    assert 0.45 < loads.share(loads.adversarial_valiant) < 0.5  # Kim et al.: about 50% (31/64)
    assert loads.uniform_valiant == 2 * loads.uniform_minimal  # two global hops: twice the load
    r = link_load(p, "adversarial", "rail", global_routing="valiant")
    assert math.isclose(max(t.ar_max for t in r.tiers if t.tier == "global"), loads.adversarial_valiant, rel_tol=1e-9)


def test_adversarial_needs_two_groups_and_names_its_group():
    from core.errors import InputError

    p = plan(KIM)
    try:
        link_load(p, "adversarial", "rail", job_gpus=64, group=64)
    except InputError as exc:
        assert "one group of 64 GPUs further" in str(exc)
    else:
        raise AssertionError("a shift of the whole job is refused")
    r = link_load(p, "adversarial", "rail", job_gpus=64)  # one group's GPUs: half the job to the other half
    assert r.group == 32
