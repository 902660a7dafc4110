"""Single points of failure of a topology family other than the folded Clos (the Dragonflies), by cut vertices.

``core.analysis.spof.single_points`` sends a plan whose ``fabric.family`` is not ``clos`` here. The Clos's
closed forms are its tiers'; this module reads the family's wiring (``core.fabric.wiring.Wiring``'s interface:
``leaf_of``, ``group_nodes``, ``bundle_arrays``) and finds, in one depth-first search, every element whose single
loss leaves GPUs outside the part holding the most servers (the failure what-if's measure,
``core.analysis.failure.graphwhatif``).

Method:

* **One plane's switch graph with the servers folded by scalable unit**: a vertex per SU (weight: its nodes; the
  nodes of an SU have the same leaves, so they stay together through the others when a switch or a
  switch-to-switch cable fails), or a vertex per node of an SU with one leaf, a vertex per switch, an edge per
  bundle of every switch-to-switch class of the wiring (``switch_classes``: a Dragonfly+'s leaf-spine and global
  links, a Dragonfly's local and global links between routers; a global bundle is the links between two switches of
  two groups). A switch is a single point exactly when it is a cut vertex of this graph; a cable exactly
  when its bundle is one cable and a bridge (Tarjan's lowpoints, O(vertices + bundles); the GPUs cut off from the
  sizes of the parts the cut leaves, the largest kept).
* **Several planes**: a server keeps its ports in the other planes, so no switch or switch-to-switch cable of one
  plane cuts it off; only a NIC can (its port in every plane).
* **NICs**: a node with one NIC is cut off by it (its every port); with more, a NIC's loss leaves the others.
* **Power feeds**: a rack with one feed loses its nodes with it (``core.analysis.failure.power``).

``tests/test_spof_graph.py`` checks, on small designs, that the list equals the articulation points and bridges
networkx finds on the full graph with every server, and each blast radius the graph what-if's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.fabric.wiring import Wiring



def switch_classes(w) -> tuple[str, ...]:
    """Link classes of wiring ``w`` between two switches (every class but the servers' ``node-leaf``): the bundles
    that are edges of the graph."""
    return tuple(kind for kind in w.link_classes if kind != "node-leaf")


@dataclass(frozen=True)
class Cut:
    """One single point: ``tier`` (``leaf``, ``spine``, ``link``, ``global``, ``nic``), its element ``key`` as the
    graph what-if names it (``(switch id,)``, ``(id a, id b, None)``, ``(node, rail)``) and the nodes cut off."""

    tier: str
    key: tuple
    nodes_lost: int


@dataclass
class _Graph:
    """One plane's graph: the server vertices first (scalable units or nodes), then the switches of every role."""

    weight: list[int]
    adj: list[list[int]]
    cables: dict
    """``(u, v)`` with ``u < v`` -> cables of the bundle."""
    names: list[tuple[str, int]]
    """``(role, index)`` of every vertex (``su`` for scalable units)."""
    kinds: dict
    """``(u, v)`` with ``u < v`` -> link class of the bundle (its last class when several join the pair)."""


def _graph(w) -> _Graph:
    """The folded graph of plane 0 of wiring ``w`` (module docstring)."""
    blocks = []  # (nodes, leaves) of every server vertex
    for g in range(w.groups):
        leaves = sorted(set(w.leaves_of_group(g)))
        if len(leaves) > 1:
            blocks.append((w.group_nodes(g), leaves))
        else:  # one leaf: its loss parts the nodes from each other too
            blocks += [(1, leaves)] * w.group_nodes(g)
    offset, names = {"su": 0}, [("su", b) for b in range(len(blocks))]
    for role in w.roles:
        offset[role] = len(names)
        names += [(role, k) for k in range(w.count(role))]
    weight = [nodes for nodes, _l in blocks] + [0] * (len(names) - len(blocks))
    cables: dict = {}
    kinds: dict = {}
    for b, (_nodes, leaves) in enumerate(blocks):
        for leaf in leaves:
            cables[b, offset["leaf"] + leaf] = None  # a block's ports: never one cable
    for kind in switch_classes(w):
        ra, a, rb, b, count = w.bundle_arrays(kind)
        ua, ub = a + offset[ra], b + offset[rb]
        if ra != rb:
            ua, ub, count = _bicliques(ua, ub, count, cables)
        else:
            ua, ub, count = _cliques(ua, ub, count, cables, len(names))
        lo, hi = np.minimum(ua, ub), np.maximum(ua, ub)
        pairs, inverse = np.unique(lo * len(names) + hi, return_inverse=True)
        summed = np.bincount(inverse, weights=count).astype(np.int64)
        for key, c in zip(pairs.tolist(), summed.tolist()):
            pair = divmod(key, len(names))
            had = cables.get(pair, 0)
            cables[pair] = None if had is None else had + c
            kinds[pair] = kind
    adj: list[list[int]] = [[] for _v in names]
    for u, v in cables:
        adj[u].append(v)
        adj[v].append(u)
    return _Graph(weight, adj, cables, names, kinds)


def _cliques(ua: np.ndarray, ub: np.ndarray, count: np.ndarray, cables: dict, n: int):
    """The bundles ``ua[i]``-``ub[i]`` between switches of one role without those of complete graphs of at least
    three switches (a Dragonfly group's routers, joined all to all by local links): such a graph, less any one switch
    or bundle, stays connected, so it is put in ``cables`` as a ring through its switches (never one cable), which
    keeps every single failure's parts the same with ``a`` edges instead of ``a (a - 1) / 2``."""
    if not len(ua):
        return ua, ub, count
    label = np.arange(n)
    while True:  # connected components by least label (a complete graph settles in two rounds)
        low = np.minimum(label[ua], label[ub])
        new = label.copy()
        np.minimum.at(new, ua, low)
        np.minimum.at(new, ub, low)
        new = new[new]
        if (new == label).all():
            break
        label = new
    lo, hi = np.minimum(ua, ub), np.maximum(ua, ub)
    comp = label[lo]
    distinct = np.unique(lo * n + hi)
    pairs_per = np.bincount(label[distinct // n], minlength=n)
    members = np.bincount(label[np.unique(np.r_[ua, ub])], minlength=n)
    complete = (members >= 3) & (pairs_per == members * (members - 1) // 2)
    for c in np.flatnonzero(complete).tolist():
        ring = np.flatnonzero(label == c).tolist()
        for u, v in zip(ring, ring[1:] + ring[:1]):
            cables[min(u, v), max(u, v)] = None
    keep = ~complete[comp]
    return ua[keep], ub[keep], count[keep]


def _bicliques(lower: np.ndarray, upper: np.ndarray, count: np.ndarray, cables: dict):
    """The bundles ``lower[i]``-``upper[i]`` (``count`` cables) without those of complete bipartite blocks of at
    least two lower and two upper switches (every leaf of a group to every spine of it): such a block, less any one
    switch or bundle, stays connected, so it is put in ``cables`` as a ring through its switches (never one cable),
    which keeps every single failure's parts the same with a + s edges instead of a x s."""
    order = np.lexsort((upper, lower))
    lower, upper, count = lower[order], upper[order], count[order]
    starts = np.flatnonzero(np.r_[True, lower[1:] != lower[:-1]])
    blocks: dict[tuple, list[int]] = {}
    for start, end in zip(starts.tolist(), np.r_[starts[1:], len(lower)].tolist()):
        blocks.setdefault(tuple(upper[start:end].tolist()), []).append(start)
    keep = np.ones(len(lower), dtype=bool)
    for uppers, firsts in blocks.items():
        if len(uppers) < 2 or len(firsts) < 2:
            continue
        ring = [int(lower[f]) for f in firsts] + list(uppers)
        for u, v in zip(ring, ring[1:] + ring[:1]):
            cables[min(u, v), max(u, v)] = None
        for f in firsts:
            keep[f:f + len(uppers)] = False
    return lower[keep], upper[keep], count[keep]


def _cuts(g: _Graph) -> tuple[dict[int, int], dict[tuple[int, int], int]]:
    """``({cut vertex: servers cut off}, {bridge (u, v), u < v: servers cut off})`` of a connected ``g``:
    iterative Tarjan from vertex 0; a vertex's loss keeps the largest of the parts it leaves."""
    n = len(g.adj)
    disc, low, sub = [-1] * n, [0] * n, list(g.weight)
    parts: dict[int, list[int]] = {}
    bridges: dict[tuple[int, int], int] = {}
    total = sum(g.weight)
    disc[0] = low[0] = 0
    clock, stack = 1, [(0, -1, iter(g.adj[0]))]
    while stack:
        v, parent, it = stack[-1]
        u = next(it, None)
        if u is None:
            stack.pop()
            if parent >= 0:
                sub[parent] += sub[v]
                low[parent] = min(low[parent], low[v])
                if low[v] >= disc[parent]:
                    parts.setdefault(parent, []).append(sub[v])
                if low[v] > disc[parent]:
                    bridges[min(v, parent), max(v, parent)] = total - max(sub[v], total - sub[v])
            continue
        if u == parent:
            continue
        if disc[u] >= 0:
            low[v] = min(low[v], disc[u])
            continue
        disc[u] = low[u] = clock
        clock += 1
        stack.append((u, v, iter(g.adj[u])))
    cut = {}
    for v, separated in parts.items():
        rest = total - g.weight[v] - sum(separated)
        sizes = separated + ([rest] if v else [])  # the root (an SU) has no part above it
        if len(sizes) > 1:
            cut[v] = total - g.weight[v] - max(sizes)
    return cut, bridges


def cut_points(plan) -> list[Cut]:
    """Every element of ``plan`` (a ``core.plan.Plan`` of another family than the folded Clos) whose single loss
    cuts nodes off, with the nodes it cuts off (module docstring); power feeds aside (``core.analysis.spof``)."""
    w = Wiring.of(plan)
    out: list[Cut] = []
    if w.planes == 1 and w.nodes > 1:
        g = _graph(w)
        vertices, bridges = _cuts(g)
        for v, lost in sorted(vertices.items()):
            role, k = g.names[v]
            if role != "su" and lost:
                out.append(Cut(role, (w.switch_id(role, k, 0),), lost))
        for (u, v), lost in sorted(bridges.items()):
            (ra, a), (rb, b) = g.names[u], g.names[v]
            if lost and g.cables[u, v] == 1:
                tier = "global" if g.kinds.get((u, v)) == "global" else "link"
                out.append(Cut(tier, (w.switch_id(ra, a, 0), w.switch_id(rb, b, 0), None), lost))
    if w.rails == 1 and w.nodes > 1:  # a lone NIC holds the node's every port
        out += [Cut("nic", (n, 0), 1) for n in range(w.nodes)]
    return out
