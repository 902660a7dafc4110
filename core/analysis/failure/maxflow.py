"""The maximum flow of an undirected network given as arrays (``core.analysis.failure``).

The failure what-ifs of the Dragonflies (``dragonflywhatif``, ``classicwhatif``) measure the bisection as the
maximum flow between the two halves of the servers on the switches' network as wired, about 4,000 switches and
200,000 bundles at 131,072 GPUs: too many for networkx's pure-Python algorithms within the what-if's 100 ms, so the
flow runs in SciPy's compiled Dinic (``scipy.sparse.csgraph.maximum_flow``), which takes integer capacities. An
undirected edge of capacity ``c`` is the two arcs ``a -> b`` and ``b -> a`` of capacity ``c`` each (the standard
reduction: a flow uses an edge in one direction). Capacities are divided by their greatest common divisor, which
leaves the maximum flow's value the same up to that factor; a network whose capacities are not whole numbers, or
whose total does not fit SciPy's 32-bit capacities, is solved by networkx instead (the same value, slower).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

_MOST = 2**31 - 1
"""Largest capacity sum SciPy's 32-bit capacities hold (a flow never exceeds the sum of its capacities)."""


def max_flow(vertices: int, a: np.ndarray, b: np.ndarray, capacity: np.ndarray, source: int, sink: int) -> float:
    """The maximum flow from ``source`` to ``sink`` of the undirected network on vertices ``0 .. vertices - 1``.

    Parameters
    ----------
    vertices : int
        Vertices of the network.
    a, b : numpy.ndarray of int
        The two ends of each edge (parallel edges add up; an edge from a vertex to itself carries nothing).
    capacity : numpy.ndarray of float
        Each edge's capacity, in either direction [any unit, e.g. Gb/s per direction].
    source, sink : int
        The flow's two ends (distinct vertices).

    Returns
    -------
    float
        The maximum flow [the capacities' unit]; 0 when the sink cannot be reached.
    """
    keep = (capacity > 0) & (a != b)
    a, b, capacity = a[keep], b[keep], capacity[keep]
    if not len(capacity):
        return 0.0
    whole = np.rint(capacity)
    if np.all(whole == capacity):
        whole = whole.astype(np.int64)
        unit = int(np.gcd.reduce(whole)) or 1
        scaled = whole // unit
        if int(scaled.sum()) <= _MOST:
            return float(_dinic(vertices, a, b, scaled, source, sink)) * unit
    return _networkx(a, b, capacity, source, sink)


def _dinic(vertices: int, a: np.ndarray, b: np.ndarray, capacity: np.ndarray, source: int, sink: int) -> int:
    """SciPy's Dinic on the two arcs of every edge (whole capacities whose sum fits 32 bits)."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import maximum_flow

    arcs = csr_array((np.concatenate((capacity, capacity)).astype(np.int32),
                      (np.concatenate((a, b)), np.concatenate((b, a)))), shape=(vertices, vertices))
    arcs.sum_duplicates()
    return int(maximum_flow(arcs, source, sink, method="dinic").flow_value)


def _networkx(a: np.ndarray, b: np.ndarray, capacity: np.ndarray, source: int, sink: int) -> float:
    """networkx's maximum flow on the same network (capacities that SciPy cannot take)."""
    g = nx.Graph()
    for x, y, c in zip(a.tolist(), b.tolist(), capacity.tolist()):
        c += g[x][y]["capacity"] if g.has_edge(x, y) else 0.0
        g.add_edge(x, y, capacity=c)
    if source not in g or sink not in g:
        return 0.0
    return float(nx.maximum_flow_value(g, source, sink))
