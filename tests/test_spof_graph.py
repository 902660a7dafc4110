"""Single points of failure of a Dragonfly+ (``core.analysis.spof_graph``, ``core.analysis.spof``) against brute
force on the full networkx graph with every server: each switch, one-cable bundle and NIC taken out alone, the
nodes left outside the part holding the most nodes counted; and against networkx's articulation points and
bridges."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from core.analysis.spof import degrading_label, remedy_label, single_points
from core.analysis.spof_graph import cut_points
from core.design import Design
from core.errors import FabricPlannerError
from core.fabric.topology import fabric_graph
from core.plan import plan
from tests.spofbrute import brute, cut_off

GRID = [dict(nodes=n, group_leaves=gl, global_ratio=gr, oversubscription=ov, nics_per_node=nics, planes=planes,
             nic="CX7-2P" if planes == 2 else "CX7")
        for n, gl, gr, ov, nics, planes in itertools.product(
            (5, 40, 100, 200, 400), (None, 1, 2), (0.01, 0.25, 1.0), (1.0, 8.0), (1, 2), (1, 2))]


def _plans():
    out = []
    for kw in GRID:
        try:
            out.append(plan(Design(gpu="H100", topology="dragonfly", switch="QM9700", **kw)))
        except FabricPlannerError:
            continue
    return out


PLANS = _plans()
SAMPLE = [p for p in PLANS if p.design.nodes <= 200][::11] + \
    [p for p in PLANS if p.design.global_ratio == 0.01 and p.design.group_leaves == 1][:2]
"""Every 11th design of at most 200 nodes and two whose only global link between two groups is a single point."""


def test_the_grid_has_single_points_of_every_kind():
    tiers = {c.tier for p in PLANS for c in cut_points(p)}
    assert {"leaf", "spine", "nic", "global"} <= tiers
    assert any(p.fabric.planes == 2 for p in PLANS) and any(p.fabric.pod_count > 2 for p in PLANS)


@pytest.mark.parametrize("p", SAMPLE, ids=lambda p: f"{p.design.nodes}n-{p.fabric.pod_count}g-"
                         f"{p.fabric.spines_per_pod}s-{p.resolved.nics_per_node}nic-{p.fabric.planes}pl")
def test_single_points_equal_brute_force(p):
    r = single_points(p)
    gpn = p.resolved.gpus_per_node
    found = {e.element: e.gpus_lost for e in r.elements if e.tier != "feed"}
    assert found == {k: v * gpn for k, v in brute(p).items()}


@pytest.mark.parametrize("p", [p for p in SAMPLE if p.fabric.planes == 1])
def test_switches_listed_are_the_articulation_points_that_separate_servers(p):
    h = fabric_graph(p, servers="each")
    listed = {c.key[0] for c in cut_points(p) if c.tier in ("leaf", "spine")}
    articulation = set(nx.articulation_points(h))
    assert listed <= articulation
    for v in articulation - listed:  # the others cut off no server, or are servers
        g = h.copy()
        g.remove_node(v)
        assert h.nodes[v]["role"] == "server" or cut_off(g) == 0
    bridges = {frozenset(e) for e in nx.bridges(h)}
    for c in cut_points(p):
        if c.tier in ("link", "global"):
            assert frozenset(c.key[:2]) in bridges


def test_no_spine_is_a_single_point_with_several_spines_per_group():
    for p in PLANS:
        if p.fabric.spines_per_pod > 1:
            assert all(c.tier != "spine" for c in cut_points(p))


def test_a_global_bundle_lowers_the_bisection_and_its_remedies_are_priced():
    p = plan(Design(gpu="H100", nodes=256, topology="dragonfly", switch="QM9700", group_leaves=16))
    r = single_points(p)
    assert r.elements == ()
    glob = [d for d in r.degrading if d.tier == "global"]
    assert len(glob) == 1 and 0 < glob[0].bisection_share_left < 1 and 0 < glob[0].share_left < 1
    g = fabric_graph(p)
    assert glob[0].count == sum(1 for a, b in g.edges if g.nodes[a]["role"] == g.nodes[b]["role"] == "spine")
    assert "%" in degrading_label(glob[0]) and r.to_json()["degrading"][-1]["bisection_share_left"] < 1
    one_spine = next(p for p in PLANS if any(c.tier == "spine" for c in cut_points(p)))
    spine = next(e for e in single_points(one_spine).elements if e.tier == "spine")
    assert spine.remedy == "n_plus_1_group" and spine.remedy_capex_usd > 0 and "spine" in remedy_label(spine)
