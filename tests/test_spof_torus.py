"""Torus single points of failure (core.analysis.torusspof): hand counts, networkx's articulation points and bridges
of the node graph, and the failure what-if's blast radius (review48 #9)."""

from __future__ import annotations

import networkx as nx
import pytest

from core.analysis.failure import what_if
from core.analysis.spof import degrading_label, single_points
from core.design import Design
from core.fabric import torus
from core.fabric.wiring import wiring_of
from core.plan import plan


def _multigraph(p) -> nx.MultiGraph:
    w = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
    g = nx.MultiGraph()
    g.add_nodes_from(f"node{n}" for n in range(w.nodes))
    for link in w.links():
        g.add_edge(link.a, link.b)
    return g


def test_4x4x4_hand_counts():
    """4x4x4, one link per neighbour (8 NICs, 6 neighbours): 192 links, 64 per dimension, 384 cabled NIC ports,
    bisection 2 k^(n-1) = 32 links, so one cut link leaves 31/32."""
    p = plan(Design(gpu="H100", gpus=512, topology="torus"))
    assert p.fabric.torus_dims == (4, 4, 4) and p.fabric.torus_width == 1
    assert p.fabric.torus_links == 192 and torus.bisection_links((4, 4, 4)) == 32
    result = single_points(p)
    assert result.count == 0
    links = [d for d in result.degrading if d.tier == "link" and d.effect.startswith("ring")]
    assert [d.count for d in links] == [64, 64, 64]
    assert all(d.gpus_affected == 4 * 8 and d.share_left == 0.5 for d in links)  # a ring of 4 nodes as a line
    cut = [d for d in links if d.bisection_share_left < 1]
    assert len(cut) == 1 and cut[0].bisection_share_left == pytest.approx(31 / 32)
    assert "96.9%" in degrading_label(cut[0])
    nic = next(d for d in result.degrading if d.effect == "torus_nic")
    assert nic.count == 64 * 6
    node = next(d for d in result.degrading if d.effect == "torus_node")
    assert node.count == 64 and node.gpus_affected == 3 * 3 * 8  # 3 other nodes on each of its 3 rings


@pytest.mark.parametrize("nodes,dims,nics", [(2, "2", 1), (2, "2", 2), (3, "3", 2), (8, "2x4", 3), (8, "2x2x2", 3),
                                              (12, "3x4", 8), (27, "3x3x3", 6)])
def test_single_points_equal_networkx_and_the_what_if(nodes, dims, nics):
    p = plan(Design(gpu="H100", nodes=nodes, topology="torus", torus_dims=dims, nics_per_node=nics))
    g = _multigraph(p)
    simple = nx.Graph(g)
    bridges = {tuple(sorted(e)) for e in nx.bridges(g)} if nodes > 1 else set()
    assert not set(nx.articulation_points(simple)), "no one node parts a torus"
    result = single_points(p)
    links = {tuple(sorted(e.element.split("-"))) for e in result.elements if e.tier == "link"}
    assert links == bridges
    gpn = p.resolved.gpus_per_node
    for e in result.elements:
        assert e.gpus_lost == what_if(p, [e.element]).gpus_disconnected == gpn
    if not bridges:  # every link and NIC degrades, none cuts a GPU off: the what-if agrees on the examples
        for d in result.degrading:
            if d.tier in ("link", "nic"):
                assert what_if(p, [d.example]).gpus_disconnected == 0


@pytest.mark.parametrize("dims,per_rack", [((4, 4), 3), ((4, 4, 4), 4), ((3, 5), 4), ((6,), 2), ((2, 6), 4), ((2, 2, 2), 3),
                                            ((2, 3, 4), 5), ((4, 4, 4), 8), ((5,), 1), ((8, 8), 8)])
def test_a_racks_nodes_lost_cut_off_as_networkx_finds(dims, per_rack):
    """A rack's only feed takes its rack's consecutive nodes (folded order) and those they part from the larger rest:
    ``cut_off`` against networkx's components; none below the vertex connectivity (a ring's rack of two nodes at
    positions 1 and 4 of six parts it)."""
    from core.analysis.torusspof import connectivity, cut_off

    w = torus.TorusWiring(dims=dims, width=1, nodes=torus.vertices(dims), port_gbps=400)
    g = nx.Graph((b.a, b.b) for b in w.bundles())
    kappa = connectivity(dims)
    assert kappa == nx.node_connectivity(g)
    parted = 0
    for start in range(0, w.nodes, per_rack):
        rest = g.copy()
        count = min(per_rack, w.nodes - start)
        rest.remove_nodes_from(f"node{n}" for n in range(start, start + count))
        expected = rest.number_of_nodes() - max((len(c) for c in nx.connected_components(rest)), default=0)
        assert cut_off(w, start, count) == expected
        if count < kappa:
            assert expected == 0
        parted += expected
    if dims in ((6,), (2, 6)):
        assert parted > 0  # the folded order's racks do part a ring


def test_one_feed_racks_on_a_torus_list_their_feed_with_the_nodes_they_part(monkeypatch):
    """A one-feed room: each rack's feed is a single point; its blast radius is its rack's nodes and those they part
    from the rest, as networkx finds on the node graph (a ring of 6 racked 2 to a rack: the middle rack parts it; the
    torus's failure what-if does not take feeds)."""
    from core.analysis import failure

    monkeypatch.setattr(failure.power, "_feeds_for", lambda preset: (1, "N"))
    for dims, nodes in (("6", 6), ("4x4", 16)):
        p = plan(Design(gpu="H100", nodes=nodes, topology="torus", torus_dims=dims, nics_per_node=4,
                        nodes_per_rack=2))
        feeds = [e for e in single_points(p).elements if e.tier == "feed"]
        assert len(feeds) == nodes // 2
        g = nx.Graph(_multigraph(p))
        for rack, e in enumerate(feeds):
            rest = g.copy()
            rest.remove_nodes_from([f"node{2 * rack}", f"node{2 * rack + 1}"])
            parted = rest.number_of_nodes() - max(len(c) for c in nx.connected_components(rest))
            assert e.gpus_lost == (2 + parted) * 8
        if dims == "6":
            assert sorted(e.gpus_lost for e in feeds) == [16, 16, 32]  # positions 1 and 4 lost part 0,5 from 2,3
