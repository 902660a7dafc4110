"""The maximum flow of a network given as arrays (``core.analysis.failure.maxflow``): SciPy's Dinic against
networkx's maximum flow on random undirected networks (parallel edges, self-loops, zero capacities, a sink out of
reach), whole capacities scaled by their greatest common divisor, and the networkx path for capacities that are not
whole or whose sum does not fit 32 bits."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.failure import maxflow


def _reference(vertices, a, b, cap, source, sink) -> float:
    g = nx.Graph()
    g.add_nodes_from(range(vertices))
    for x, y, c in zip(a, b, cap):
        if x != y:
            c += g[x][y]["capacity"] if g.has_edge(x, y) else 0.0
            g.add_edge(x, y, capacity=c)
    return float(nx.maximum_flow_value(g, source, sink))


@st.composite
def _network(draw, whole=True):
    vertices = draw(st.integers(2, 12))
    edges = draw(st.lists(st.tuples(st.integers(0, vertices - 1), st.integers(0, vertices - 1),
                                    st.integers(0, 50) if whole else st.floats(0, 50, allow_nan=False)),
                          max_size=40))
    source, sink = draw(st.sampled_from([(s, t) for s in range(vertices) for t in range(vertices) if s != t]))
    a = np.array([e[0] for e in edges], dtype=np.int64)
    b = np.array([e[1] for e in edges], dtype=np.int64)
    cap = np.array([float(e[2]) for e in edges], dtype=float)
    scale = draw(st.sampled_from([1, 200, 400, 800]))  # Gb/s speeds: a common factor the gcd takes out
    return vertices, a, b, cap * scale, source, sink


@settings(max_examples=200, deadline=None)
@given(_network())
def test_dinic_equals_networkx_on_whole_capacities(net):
    assert maxflow.max_flow(*net) == pytest.approx(_reference(*net))


@settings(max_examples=100, deadline=None)
@given(_network(whole=False))
def test_capacities_not_whole_take_networkx(net):
    assert maxflow.max_flow(*net) == pytest.approx(_reference(*net))


def test_the_paths_taken(monkeypatch):
    calls = []
    real = maxflow._dinic
    monkeypatch.setattr(maxflow, "_dinic", lambda *args: calls.append(args[3].tolist()) or real(*args))
    a, b = np.array([0, 1, 0]), np.array([1, 2, 2])
    assert maxflow.max_flow(3, a, b, np.array([800.0, 400.0, 1200.0]), 0, 2) == 1600.0
    assert calls == [[2, 1, 3]]  # divided by their gcd, 400
    assert maxflow.max_flow(3, a, b, np.array([0.5, 0.25, 1.0]), 0, 2) == 1.25  # not whole: networkx
    big = np.array([2.0**31, 2.0**31, 2.0**32])
    assert maxflow.max_flow(3, a, b, big + np.array([1, 0, 0]), 0, 2) == 2.0**31 + 2.0**32  # over 32 bits
    assert len(calls) == 1
    assert maxflow.max_flow(3, a, b, np.zeros(3), 0, 2) == 0.0  # nothing carries
    assert maxflow.max_flow(4, a, b, np.ones(3), 0, 3) == 0.0  # the sink out of reach
