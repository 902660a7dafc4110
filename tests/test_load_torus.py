"""Torus link load (core.analysis.torusload): hops against networkx shortest paths, the uniform all-to-all against
the bisection's closed form, rings per dimension (review48 #9)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from core.analysis.load import link_load, link_load_arrays
from core.design import Design
from core.fabric import torus
from core.fabric.wiring import wiring_of
from core.plan import plan


@pytest.fixture(scope="module")
def cube():
    return plan(Design(gpu="H100", gpus=512, topology="torus"))


def test_uniform_alltoall_is_the_bisection_bound(cube):
    """All 512 GPUs to all: a node pair carries 64 GPU pairs x 300 Gb/s / 504 peers; crossing the cut one way
    32 x 32 node pairs over 2 k^(n-1) = 32 links of 400 Gb/s; dimension-order routing on the symmetric 4x4x4 loads
    every link alike, at that share."""
    result = link_load(cube, "alltoall", "node", group=512)
    pair = 64 * 300 / 504
    bound = 32 * 32 * pair / (torus.bisection_links((4, 4, 4)) * 400)
    assert bound == pytest.approx(3.0476, abs=1e-4)
    for t in result.tiers:
        assert t.links == 64 and t.ar_max == pytest.approx(bound) and t.ar_mean == pytest.approx(bound)
        assert t.ecmp_max >= t.ar_max - 1e-9
    assert result.ar.max == pytest.approx(300 / bound)  # every GPU at its link share


@pytest.mark.parametrize("dims,gpus", [("4x4x4", 512), ("3x5", 120), ("2x4", 64), ("6", 48)])
def test_traffic_times_hops_equals_the_links_load(dims, gpus):
    """Minimal routing: the load on every link summed equals each connection's demand times its shortest path on
    the node graph (networkx), under adaptive routing."""
    p = plan(Design(gpu="H100", gpus=gpus, topology="torus", torus_dims=dims))
    w = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
    g = nx.Graph((b.a, b.b) for b in w.bundles())
    dist = dict(nx.all_pairs_shortest_path_length(g))
    for pattern in ("uniform", "alltoall", "ring"):
        result, arrays = link_load_arrays(p, pattern, "node")
        total = sum(t.offered_gbps for t in result.tiers)
        assert total > 0
        ar_total = sum(float(np.sum(a[0])) for key, a in arrays.items() if isinstance(key, tuple))
        s, d, demand = arrays["pairs"]
        gpn = p.resolved.gpus_per_node
        hops = np.array([dist[f"node{a // gpn}"][f"node{b // gpn}"] for a, b in zip(s.tolist(), d.tolist())])
        assert ar_total == pytest.approx(float(np.sum(demand * hops)), rel=1e-9)


def test_ring_loads_each_hop_with_a_nodes_rings(cube):
    """A ring in rank order, a GPU a node apart: each node's 8 GPUs (300 Gb/s each) send to the next node, 2,400 Gb/s
    on a 400 Gb/s link: 600% on every link a single-hop step crosses."""
    result = link_load(cube, "ring", "node")
    assert max(t.ar_max for t in result.tiers) == pytest.approx(6.0)
    assert result.ar.min == pytest.approx(300 / 6)
    assert any("dimension-order" in n for n in result.notes)
