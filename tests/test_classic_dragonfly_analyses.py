"""Single points, availability and link load of a classic Dragonfly (routers joined all to all in a group, global
links between routers of two groups) against networkx: the single points are the cut vertices and one-cable bridges
that separate servers (brute force on the full graph with every server), the availability's local and global links
are the graph's and its Monte Carlo equals an enumeration of every router state, and the link loads equal an
explicit routing of every connection written here on the graph (minimal and Valiant)."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from core.analysis.availability import ClassRate, availability, default_rates, element_counts, shape_of, wiring
from core.analysis.load import link_load, link_load_arrays
from core.analysis.spof import degrading_label, single_points
from core.analysis.spof_graph import cut_points
from core.design import Design
from core.errors import FabricPlannerError
from core.fabric.topology import fabric_graph
from core.fabric.wiring import Wiring
from core.plan import plan
from tests.spofbrute import brute, cut_off

GRID = [dict(nodes=n, su_nodes=su, group_leaves=None if gl is None else gl * nics, global_ratio=gr,
             nics_per_node=nics, planes=planes, nic="CX7-2P" if planes == 2 else "CX7")
        for n, su, gl, gr, nics, planes in itertools.product((6, 13, 24, 40), (2, 4), (None, 1, 2, 3),
                                                             (0.01, 0.25, 1.0), (1, 2), (1, 2))]


def _plans():
    out = []
    for kw in GRID:
        try:
            out.append(plan(Design(gpu="H100", topology="classic-dragonfly", switch="QM9700", **kw)))
        except FabricPlannerError:
            continue
    return out


PLANS = _plans()
SAMPLE = PLANS[::13] + [p for p in PLANS if any(c.tier in ("global", "link") for c in cut_points(p))][:3]
"""Every 13th design and three with a one-cable global or local link that is a single point."""


def test_the_grid_has_single_points_of_every_kind():
    tiers = {c.tier for p in PLANS for c in cut_points(p)}
    assert {"leaf", "nic", "global", "link"} <= tiers
    assert any(p.fabric.planes == 2 for p in SAMPLE) and any(p.fabric.pod_count > 2 for p in SAMPLE)


@pytest.mark.parametrize("p", SAMPLE, ids=lambda p: f"{p.design.nodes}n-{p.fabric.pod_count}g-"
                         f"{p.fabric.global_pair_links}lam-{p.resolved.nics_per_node}nic-{p.fabric.planes}pl")
def test_single_points_equal_brute_force(p):
    r = single_points(p)
    gpn = p.resolved.gpus_per_node
    found = {e.element: e.gpus_lost for e in r.elements if e.tier != "feed"}
    assert found == {k: v * gpn for k, v in brute(p).items()}


@pytest.mark.parametrize("p", [p for p in SAMPLE if p.fabric.planes == 1])
def test_single_points_are_the_cut_vertices_and_bridges_that_separate_servers(p):
    h = fabric_graph(p, servers="each")
    cuts = cut_points(p)
    listed = {c.key[0] for c in cuts if c.tier == "leaf"}
    articulation = set(nx.articulation_points(h))
    assert listed <= articulation
    for v in articulation - listed:  # the others cut off no server, or are servers
        g = h.copy()
        g.remove_node(v)
        assert h.nodes[v]["role"] == "server" or cut_off(g) == 0
    bridges = {frozenset(e) for e in nx.bridges(h)}
    for c in cuts:
        if c.tier in ("link", "global"):
            assert frozenset(c.key[:2]) in bridges
            assert (c.tier == "global") == (h.nodes[c.key[0]]["pod"] != h.nodes[c.key[1]]["pod"])


def test_local_and_global_links_degrade_at_scale():
    p = plan(Design(gpu="H100", gpus=16384, switch="QM9700", topology="classic-dragonfly"))
    r = single_points(p)
    assert r.elements == ()  # 8 rails: no router, NIC or link alone cuts a node off
    by_tier = {d.tier: d for d in r.degrading}
    local, glob = by_tier["link"], by_tier["global"]
    a = p.fabric.groups_per_pod * p.fabric.leaves_per_group
    assert local.effect == "local_capacity" and local.share_left == pytest.approx((a - 2) / (a - 1))
    assert local.count == p.fabric.pod_count * a * (a - 1) // 2
    assert glob.effect == "global_capacity" and 0 < glob.share_left < 1
    assert "%" in degrading_label(local) and "spine" not in " ".join(r.notes).lower()


# ------------------------------------------------------------------------------------------------ availability
SMALL = Design(gpu="H100", topology="classic-dragonfly", switch="QM9700", nodes=12, su_nodes=4, group_leaves=2,
               nics_per_node=1, global_ratio=0.5)
"""3 groups of 2 routers of 4 nodes (and one of 1 router): few enough routers to enumerate their states."""


def _switch_only(q: float) -> dict[str, ClassRate]:
    """Rates where only switches fail, down with probability ``q``."""
    rates = default_rates()
    zero = {"afr": 0.0, "mttr_hours": 1.0}
    r = q / (1 - q)
    return {**{k: rates[k].model_copy(update=zero) for k in ("gpu_node", "nic", "link")},
            "switch": rates["switch"].model_copy(update={"afr": r * 8760.0, "mttr_hours": 1.0})}


def test_availability_reads_the_local_and_global_links_of_the_graph():
    p = plan(SMALL)
    shape = shape_of(p)
    g = fabric_graph(p)
    routers = [(a, b, e["links"]) for a, b, e in g.edges(data=True)
               if g.nodes[a]["role"] == g.nodes[b]["role"] == "leaf"]
    local = sum(n for a, b, n in routers if g.nodes[a]["pod"] == g.nodes[b]["pod"])
    glob = sum(n for a, b, n in routers if g.nodes[a]["pod"] != g.nodes[b]["pod"])
    assert (len(shape.local_links), len(shape.global_links)) == (local, glob) and local and glob
    assert shape.spines == 0 and shape.leaf_uplinks == 0
    assert element_counts(shape)["link"] == shape.nodes * shape.links_per_node + local + glob
    assert "local and global links" in availability(p, trials=10).method


def test_availability_monte_carlo_equals_every_router_state():
    p = plan(SMALL)
    shape = shape_of(p)
    q, trials = 0.2, 20_000
    link_leaf, _spine, _core = wiring(shape)
    local, glob = np.asarray(shape.local_links).T, np.asarray(shape.global_links).T
    need = shape.nodes - shape.nodes_per_group
    p_run = e_share = e_sq = 0.0
    for state in itertools.product((False, True), repeat=shape.leaves):
        down = np.array(state)
        weight = q ** down.sum() * (1 - q) ** (len(down) - down.sum())
        usable = (~down[link_leaf]).all(axis=1).sum()
        share = min((~down[ends[0]] & ~down[ends[1]]).mean() for ends in (local, glob))
        p_run += weight * (usable >= need)
        e_share += weight * share
        e_sq += weight * share * share
    sd = math.sqrt(max(0.0, e_sq - e_share ** 2))
    a = availability(p, job_gpus=need * shape.gpus_per_node, trials=trials, seed=3, rates=_switch_only(q))
    assert abs(a.job_run_fraction - p_run) <= 4 * math.sqrt(p_run * (1 - p_run) / trials)
    assert abs(a.expected_bandwidth_share - e_share) <= 4 * sd / math.sqrt(trials) + 1e-9


# ------------------------------------------------------------------------------------------------ link load
LOADED = Design(gpu="H100", topology="classic-dragonfly", switch="QM9700", nodes=22, su_nodes=4, group_leaves=16,
                global_ratio=0.05)
"""3 groups of 16 routers (2 SUs of 8 rails; the last group partial), 2 global links per group pair."""


def _explicit(p, arrays, valiant: bool) -> dict[tuple[str, str], float]:
    """``(router a, router b) -> load a->b`` [Gb/s] on every router-to-router link: each connection routed here on
    the graph (same group: the local edge; other group: every global edge between the two groups alike, with the
    local edges to and from it; Valiant: through every other group alike, the local edge between the two global
    edges in it)."""
    g = fabric_graph(p)
    group = {v: d["pod"] for v, d in g.nodes(data=True) if d["role"] == "leaf"}
    between: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for a, b, e in g.edges(data=True):
        if a in group and b in group and group[a] != group[b]:
            for x, y in ((a, b), (b, a)):
                between.setdefault((group[x], group[y]), []).extend([(x, y)] * e["links"])
    w, nics = Wiring.of(p), p.resolved.nics_per_node
    load: dict[tuple[str, str], float] = {}

    def add(x, y, value):
        if x != y:
            load[x, y] = load.get((x, y), 0.0) + value

    port_s, port_d, demand = arrays["pairs"]
    for ps, pd_, dem in zip(port_s.tolist(), port_d.tolist(), demand.tolist()):
        rs, rd = (w.switch_id("leaf", w.leaf_of(w.group_of_node(port // nics), port % nics), 0) for port in (ps, pd_))
        gs, gd = group[rs], group[rd]
        if gs == gd:
            add(rs, rd, dem)
            continue
        legs = [[gd]] if not valiant else [[c, gd] for c in sorted(set(group.values())) if c not in (gs, gd)]
        for path in legs:
            hops = [[(rs, 1.0)]]  # routers the connection is at, with its share, after each global hop
            at = gs
            for nxt in path:
                links, landed = between[at, nxt], []
                for r, share in hops[-1]:
                    for x, y in links:
                        part = share / len(links)
                        add(r, x, dem * part / len(legs))  # local to the router holding the link
                        add(x, y, dem * part / len(legs))  # the global link
                        landed.append((y, part))
                hops.append(landed)
                at = nxt
            for r, share in hops[-1]:
                add(r, rd, dem * share / len(legs))
    return load


def _model(arrays) -> dict[tuple[str, str], float]:
    """``(router a, router b) -> load a->b`` [Gb/s] of the model's local and global rows under adaptive routing."""
    out: dict[tuple[str, str], float] = {}
    for tier, direction in itertools.product(("local", "global"), ("up", "down")):
        for i, value in enumerate(arrays[(tier, direction)][0].tolist()):
            a, b = arrays["names"](tier, direction, i).split(" -> ")
            out[a, b] = out.get((a, b), 0.0) + value
    return out


@pytest.fixture(scope="module")
def loaded():
    p = plan(LOADED)
    assert p.fabric.pod_count == 3 and p.fabric.global_pair_links == 2
    return p


@pytest.mark.parametrize(("pattern", "placement", "routing"), [
    ("uniform", "node", "minimal"), ("uniform", "rail", "valiant"), ("ring", "node", "minimal"),
    ("ring", "node", "valiant"), ("pp", "rail", "minimal"), ("alltoall", "random", "valiant"),
    ("adversarial", "rail", "minimal"), ("adversarial", "node", "valiant")])
def test_adaptive_routing_equals_explicit_routing(loaded, pattern, placement, routing):
    r, arrays = link_load_arrays(loaded, pattern, placement, seed=2, global_routing=routing)
    explicit = _explicit(loaded, arrays, routing == "valiant")
    model = _model(arrays)
    assert explicit and any(v > 0 for v in model.values())
    for link in set(explicit) | set(model):
        assert math.isclose(model.get(link, 0.0), explicit.get(link, 0.0), rel_tol=1e-9, abs_tol=1e-6), link
    assert {t.tier for t in r.tiers} == {"node_leaf", "local", "global"} and routing in r.method
    assert any("local link" in n for n in r.notes) and not any("Dragonfly+" in n for n in r.notes)


def test_static_ecmp_takes_one_path_per_flow(loaded):
    r, arrays = link_load_arrays(loaded, "uniform", "node", seed=5)
    per_conn = r.flows_per_connection
    port_s, port_d, demand = arrays["pairs"]
    w, nics = Wiring.of(loaded), loaded.resolved.nics_per_node
    router = [w.leaf_of(w.group_of_node(port // nics), port % nics) for port in range(w.nodes * nics)]
    group = [w.pod_of_leaf(k) for k in router]
    crossing = sum(1 for s, d in zip(port_s.tolist(), port_d.tolist()) if group[s] != group[d]) * per_conn
    glob_flows = sum(arrays[("global", d)][2].sum() for d in ("up", "down"))
    assert glob_flows == crossing  # minimal: one global link per flow between groups
    inside = sum(1 for s, d in zip(port_s.tolist(), port_d.tolist())
                 if group[s] == group[d] and router[s] != router[d]) * per_conn
    local_flows = sum(arrays[("local", d)][2].sum() for d in ("up", "down"))
    assert inside <= local_flows <= inside + 2 * crossing  # at most a local hop on each side
    assert r.ecmp.mean <= r.ar.mean + 1e-9


def test_valiant_spreads_a_ring_over_the_global_links():
    p = plan(Design(gpu="H100", gpus=16384, switch="QM9700", topology="classic-dragonfly"))
    worst = {routing: max(t.ar_max for t in link_load(p, "ring", "node", global_routing=routing).tiers
                          if t.tier == "global") for routing in ("minimal", "valiant")}
    assert worst["valiant"] < worst["minimal"]
