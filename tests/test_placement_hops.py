"""The collectives' farthest path (``core.perf.placement.place``) takes its hops from the fabric's own hop counts
(review43 MED: they were hard-coded 1/3/4/5, so a classic Dragonfly said 4 across groups where its wiring has 3
and a switchless torus said 1 switch hop), and the NIC line rate counts the ports the fabric cables (a torus)."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.fabric import torus
from core.fabric.families import family
from core.fabric.wiring import wiring_of
from core.formats import sharelink
from core.perf.jobform import placement_notes
from core.perf.placement import bottleneck_line_gbytes, links, place
from core.plan import plan


def _plan(**query):
    design, _warnings = sharelink.decode({"v": "1", **query})
    return plan(design)


def _family_hops(p):
    r = p.resolved
    return family(p.fabric.family).hop_counts(wiring_of(p.fabric, r.nodes, r.nics_per_node))


@pytest.mark.parametrize("query", [{"t": "dfc", "ng": "4096"}, {"t": "df", "ng": "4096"}])
def test_dragonflies_place_at_their_own_hop_counts(query):
    p = _plan(**query)
    hops, gpn = _family_hops(p), p.resolved.gpus_per_node
    whole = place(p)
    assert whole.pods > 1 and (whole.hops, whole.level) == (hops.other_group, "global")
    in_group = place(p, gpus=2 * p.fabric.nodes_per_group * gpn)  # two leaf groups of one Dragonfly group
    assert (in_group.groups, in_group.pods) == (2, 1) and in_group.hops == hops.same_group
    one_leaf = place(p, gpus=2 * gpn)
    assert (one_leaf.groups, one_leaf.hops) == (1, hops.same_leaf)


def test_classic_dragonfly_4096_is_3_hops_across_groups_as_the_designer_says():
    p = _plan(t="dfc", ng="4096")
    assert place(p).hops == p.bandwidth.hops_cross_pod == 3  # router, global, router: every router pair joined
    assert place(p, gpus=2 * p.fabric.nodes_per_group * 8).level == "local"  # no spines: router to router


def test_clos_keeps_its_tiers_hops():
    p = _plan(ng="16384")
    assert (place(p).hops, place(p).level) == (p.bandwidth.hops_cross_pod, "core") == (5, "core")
    assert place(p, gpus=2 * p.fabric.nodes_per_group * 8).hops == p.bandwidth.hops_same_rail_other_su == 3
    assert place(p, gpus=16).hops == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(2, 6), min_size=1, max_size=3).map(tuple), st.data())
def test_torus_span_hops_are_networkx_shortest_paths(dims, data):
    w = torus.TorusWiring(dims=dims, width=1, nodes=math.prod(dims), port_gbps=400)
    graph = nx.Graph()
    graph.add_nodes_from(f"node{n}" for n in range(w.nodes))
    graph.add_edges_from((b.a, b.b) for b in w.bundles())
    nodes = data.draw(st.integers(1, w.nodes))
    job = [f"node{n}" for n in range(nodes)]
    far = max((nx.shortest_path_length(graph, a, b) for a in job for b in job), default=0)
    assert torus.span_hops(dims, nodes) == far
    if nodes == w.nodes:
        assert far == torus.hop_counts(w).same_group == torus.diameter(dims)


def test_torus_places_at_its_diameter_in_links_not_one_switch_hop():
    p = _plan(t="tr", ng="512")  # 4x4x4, 64 nodes of 8 GPUs
    assert p.fabric.torus_dims == (4, 4, 4)
    whole = place(p)
    assert (whole.hops, whole.level) == (6, "torus")  # diameter 2 + 2 + 2
    assert place(p, gpus=16).hops == 1  # two neighbours
    assert place(p, gpus=8 * 8).hops == 2 + 1  # a 4-ring and half the next: positions 0, 3 / 1, 3 (fold)
    notes = placement_notes([type("S", (), {"placement": whole, "curves": {}})()], 512, p.resolved.system.id, [])
    assert "(6 link hops)" in notes[0] and "switch hop" not in notes[0] and "leaf group" not in notes[0]


def test_torus_line_rate_counts_the_cabled_nics():
    p = _plan(t="tr", ng="512")  # 8 NICs of 400 Gb/s per node, 6 cabled (two per dimension)
    assert p.resolved.nics_per_node == 8
    assert links(p).nic_per_gpu_line == pytest.approx(6 * 400 / 8 / 8)  # 37.5 GB/s per GPU
    assert bottleneck_line_gbytes(p, place(p)) == pytest.approx(300.0)  # per node, one direction
    clos = _plan(ng="512")
    assert links(clos).nic_per_gpu_line == pytest.approx(50.0)  # every NIC cabled


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_published_points_names_the_gpu_not_the_system_id(lang):
    """Performance said "No published nccl-tests points for 576 x GB200-NVL72" (a system id as if a GPU) on a
    two-level NVLink design: the note names the GPU as the catalog does (``System.gpu_name``)."""
    from core.i18n import language

    p = _plan(g="GB200-NVL72", n="144", nvd="144")
    sweep = type("S", (), {"placement": place(p), "curves": {}})()
    with language(lang):
        note = placement_notes([sweep], 576, p.resolved.system.id, [])[-1]
    assert "576 x GB200-NVL72" not in note and "576 × GB200-NVL72" not in note
    assert p.resolved.system.gpu_name == "B200 (GB200 superchip)" and p.resolved.system.gpu_name in note
