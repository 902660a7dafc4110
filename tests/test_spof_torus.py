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
    # torfix48c: a cube's three dimensions tie at 32 links, so a link of ANY of them lies across a balanced cut of 31
    assert [d.bisection_share_left for d in links] == [pytest.approx(31 / 32)] * 3
    assert all("96.9%" in degrading_label(d) for d in links)
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


@pytest.mark.parametrize("element", ["node0-node1", "node0-node4", "node0-node16", "node5.nic0"])
def test_one_lost_link_of_any_dimension_leaves_31_of_32_in_the_what_if(element):
    """torfix48c (rev48b #2): the what-if's bisection after one link of any dimension of 4x4x4 is the worst balanced
    cut's, 31 of 32 links (12.8 Tb/s -> 12.4 Tb/s one direction), as SPOF says; not a fixed slab's 32/32."""
    p = plan(Design(gpu="H100", gpus=512, topology="torus"))
    r = what_if(p, [element])
    assert r.bisection_tbits_one_direction / r.healthy_bisection_tbits_one_direction == pytest.approx(31 / 32)
    assert r.healthy_bisection_tbits_one_direction == pytest.approx(12.8)
    assert r.bisection_tbits_one_direction == pytest.approx(12.4)


def test_two_links_across_one_cut_and_a_node_hand_counts():
    """Two links of dimension 1 on the same slab boundary (node0-node1, node4-node5): 30/32; on boundaries of two
    different cuts (node0-node1, node0-node4): still 31/32 (no one balanced slab cut crosses both). A lost node
    takes its 2 links of each dimension, one across each of the cuts through it: 31/32."""
    p = plan(Design(gpu="H100", gpus=512, topology="torus"))
    share = lambda fails: (lambda r: r.bisection_tbits_one_direction / r.healthy_bisection_tbits_one_direction)(
        what_if(p, fails))
    assert share(["node0-node1", "node4-node5"]) == pytest.approx(30 / 32)
    assert share(["node0-node1", "node0-node4"]) == pytest.approx(31 / 32)
    assert share(["node5"]) == pytest.approx(31 / 32)


def test_a_longer_dimension_alone_is_cut_and_the_what_if_agrees_with_brute_force():
    """4x8 (one link per neighbour, 4 NICs): the 8-ring's cut is 2 x 32 / 8 = 8 links, the 4-ring's 16: only a
    link of dimension 2 lowers it (7/8). On 4x4 (16 nodes) the what-if's figure after one link equals the brute
    force least cut over all C(16, 8) balanced halves: two cables per neighbour, 16 -> 15 after one cable."""
    from itertools import combinations

    assert torus.cut_dimensions((4, 8)) == (1,) and torus.cut_dimensions((4, 4, 4)) == (0, 1, 2)
    assert torus.link_lost((4, 8), 1, 0).bisection_links == 8 and torus.link_lost((4, 8), 1, 1).bisection_links == 7
    p = plan(Design(gpu="H100", gpus=16 * 8, topology="torus", torus_dims="4x4"))
    assert p.fabric.torus_width == 2 and torus.bisection_links((4, 4)) == 8  # 8 NICs over 4 neighbours: 2 cables each
    g = _multigraph(p)
    g.remove_edge("node0", "node1")  # one cable of the bundle
    edges = [(int(a[4:]), int(b[4:])) for a, b in g.edges()]
    brute = min(sum((a in half) != (b in half) for a, b in edges)
                for half in map(set, combinations(range(16), 8)) if 0 in half)
    r = what_if(p, ["node0-node1#0"])
    assert brute == 15
    assert r.bisection_tbits_one_direction / r.healthy_bisection_tbits_one_direction == pytest.approx(brute / 16)


@pytest.mark.parametrize("gpus,dims", [(512, None), (16 * 8, "4x4"), (12 * 8, "3x4"), (8 * 8, "2x4"),
                                       (6 * 8, "6")])
def test_the_what_ifs_gpus_degraded_are_the_single_points_rows_gpus(gpus, dims):
    """One definition of a degraded GPU on a torus (``TorusWiring.degraded_nodes``): every GPU of a ring that lost
    a cable or a node, as the single points' rows say ("breaks its ring of 32 GPUs into a line", "their other 72
    GPUs"); the what-if counted only the lost link's two end nodes (16) and none for a lost node (0)."""
    p = plan(Design(gpu="H100", gpus=gpus, topology="torus", torus_dims=dims))
    rows = [d for d in single_points(p).degrading if d.tier in ("link", "nic", "node")]
    assert {d.tier for d in rows} == {"link", "nic", "node"}
    for d in rows:
        assert what_if(p, [d.example]).degraded_gpus == d.gpus_affected, d.example


def test_4x4x4_degraded_hand_counts():
    """4x4x4, 8 GPUs a node: a link's ring is 4 nodes (32 GPUs), a lost node breaks 3 rings of 3 other nodes (72);
    two links of one ring degrade it once; links of two rings through node 0 degrade 4 + 4 - 1 nodes."""
    p = plan(Design(gpu="H100", gpus=512, topology="torus"))
    assert what_if(p, ["node0-node2"]).degraded_gpus == 32
    assert what_if(p, ["node0"]).degraded_gpus == 72
    assert what_if(p, ["node0-node2", "node1-node3"]).degraded_gpus == 32  # the ring 0, 2, 3, 1 (folded order)
    assert what_if(p, ["node0-node2", "node0-node8"]).degraded_gpus == 7 * 8
    assert what_if(p, ["node5.nic0"]).degraded_gpus == 32


@pytest.mark.parametrize("lang, said", [("en", "degraded      72 GPUs on rings that lost a link or a node"),
                                        ("zh", "72 个 GPU 所在的环失去了链路或节点")])
def test_the_failure_cli_says_the_rings_rule(capsys, lang, said):
    """The CLI's "degraded" row said "32 GPUs lost a NIC port" for a lost bundle whose ends alone lost ports: it says
    the rings' rule now, as the page's card help and the single points' rows (a node: 72 GPUs)."""
    from core.cli import main

    assert main(["--lang", lang, "failure", "--gpus", "512", "--topology", "torus", "--fail", "node0"]) == 0
    out = capsys.readouterr().out
    assert said in out and "NIC port" not in out and "网卡端口" not in out
