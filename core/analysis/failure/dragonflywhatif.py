"""The failure what-if of a Dragonfly+ in closed form over its groups (``core.analysis.failure``).

It answers what ``core.analysis.failure.graphwhatif`` measures on the full graph (the same element names, counts and
``FailureResult``), without building the graph: a group none of whose switches, NICs or cables failed (an
*untouched* group, a full one, of a Dragonfly+ of several groups) is wired like every other untouched group, so the
untouched groups of a plane are handled as one block; only the *touched* groups (a failed leaf, spine, NIC,
leaf-spine cable or global cable in them, the partial last group, the group of a one-group design) are looked at
switch by switch. The cost of the components and shares grows with the failures, not with the GPUs; the
bisection's maximum flow runs on the switches' network as wired (below). The graph what-if stays the reference:
``tests/test_failure_dragonfly_closed.py`` compares the two on every tier over a grid of designs.

Rules (per plane; a failed plane has no switch):

* **Switch components**: the untouched groups form one component ``U`` (each is a complete leaf-spine graph, and
  every two groups share ``lam >= 1`` global links). A touched group's live leaves and live spines join through
  their live bundles; a live spine joins ``U`` through a global link to an untouched group, and a live spine of
  another touched group through a bundle with a live cable (``core.analysis.failure.dragonflyglobal``).
  A plane's *main part* is the component with the most live server ports (ties: the one with the first switch,
  leaves before spines, as the graph what-if).
* **Cut off**: a node joins the components its live NIC ports reach, in every plane; the component holding the
  most nodes is the main one (ties: the one with the first node); the nodes outside it are cut off.
* **Degraded, via PXN, port share**: a connected node's NIC port is lost when its cable, leaf or plane failed or
  its leaf is outside its plane's main part; GPUs counted as ``core.analysis.failure.connectivity._gpu_nics``.
* **Uplink shares, ECMP**: a leaf of a main part keeps ``live leaf-spine cables / (s x)``; a group keeps ``live
  global cables of its main-part spines / its spines' global cables`` (a failed spine's cables and a cable to a
  failed spine are lost; every leaf reaches every spine of its group, so the group's traffic to the others spreads
  over all of them); untouched groups lose only the cables to failed spines.
* **Bisection** [Gb/s, one direction]: the healthy bisection ``B`` scaled by ``F_failed / F_healthy``, ``F`` the
  maximum flow between the two halves of the groups by index (with one group, of its nodes), the graph what-if's
  measure. ``F`` is the sum over live planes of the maximum flow on the plane's switches' network as wired
  (``_network``): every switch a vertex, every switch-to-switch bundle of the wiring (``bundle_arrays``: leaf-spine
  and global, a classic Dragonfly's local and global) an edge of its live cables at the uplink speed ``r``, a failed
  switch without edges, a lost bundle (or some of its cables) taken off; each leaf fed from the source with its live
  node links of the first half (``n`` nodes of ``d`` [Gb/s] each) and into the sink with the second half's. It is the
  graph what-if's network without the servers (a server's links only feed its leaves) and exact; about 4,000
  switches and 200,000 bundles at 131,072 GPUs, so it runs in SciPy's compiled Dinic
  (``core.analysis.failure.maxflow``). ``stages_tbits``: the halves' NIC injection and leaf uplinks (the smaller
  half), the global links between the halves (``floor(g/2) ceil(g/2) lam r`` healthy, per plane, less the lost ones
  that cross).

An earlier reduction merged a half's untouched groups into one vertex; a minimum cut can pass between them (a lost
global bundle with failed spines: 180 nodes, 8 leaves a group, global ratio 2), so the flow no longer reduces them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from core.analysis.failure.connectivity import _gpu_nics
from core.analysis.failure.dragonflyglobal import end_role, spine_links
from core.analysis.failure.graphwhatif import _Dims, _Net, resolve, result
from core.analysis.failure.maxflow import max_flow
from core.analysis.failure.spec import _switch_name
from core.analysis.failure.switches import _Union
from core.analysis.failure.whatif import FailureResult, _nothing_failed, _pxn_note
from core.i18n import N_, _
from core.memo import stage, view
from core.plan import Plan
from core.units import percent

_WHOLE = 1 << 30
"""Cables lost when a whole bundle fails."""


@dataclass
class _Failed:
    """The failed elements by kind (switch indices within a plane)."""

    planes: set = field(default_factory=set)
    leaves: set = field(default_factory=set)  # (plane, leaf)
    spines: set = field(default_factory=set)  # (plane, spine)
    nics: set = field(default_factory=set)  # (node, rail)
    cables: Counter = field(default_factory=Counter)  # (plane, "l", leaf, spine) / (plane, "g", spine, spine)
    # / (plane, "r", router, router): a classic Dragonfly's local bundle

    @staticmethod
    def of(elements) -> "_Failed":
        f = _Failed()
        for tier, key, _chosen in elements:
            if tier == "plane":
                f.planes.add(key[0])
            elif tier == "nic":
                f.nics.add(key)
            elif tier in ("leaf", "spine"):
                _role, p, _i, k = _switch_name(key[0])
                (f.leaves if tier == "leaf" else f.spines).add((p, k))
            else:
                _ra, p, _i, a = _switch_name(key[0])
                b = _switch_name(key[1])[3]
                kind = "g" if tier != "link" else "r" if _switch_name(key[1])[0] == "leaf" else "l"  # r: local
                ends = (a, b) if kind == "l" else (min(a, b), max(a, b))
                f.cables[(p, kind, *ends)] += _WHOLE if key[2] is None else 1
        return f


def half_nodes(w) -> int:
    """Nodes of the first half of the cut, ``0 .. half_nodes - 1``, of wiring ``w``: the first ``groups // 2``
    groups' scalable units (the graph what-if's halves), or with one group the first half of its nodes."""
    return w.pods // 2 * w.groups_per_pod * w.nodes_per_group if w.pods > 1 else w.nodes // 2


class _Model:
    """A plan's Dragonfly+ geometry and its failed elements, with the live links between switches."""

    def __init__(self, net: _Net, failed: _Failed):
        self.w = w = net.wiring
        self.f = failed
        self.net = net
        self.groups, self.s, self.x = w.pods, self._spines_per_group(w), w.pair_links
        self.rails, self.planes = w.rails, w.planes
        self.node_gbps = w.links_per_node_leaf * w.port_gbps
        self.up = w.up_gbps
        self.lam = w.global_pair_links
        self.gpus_per_node = net.plan.resolved.gpus_per_node
        self.nodes, self.npg, self.gpp, self.lpg, self.sus_total = (w.nodes, w.nodes_per_group, w.groups_per_pod,
                                                                    w.leaves_per_group, w.groups)
        self._leaf_spines: dict = {}
        self.cut_leaves = {(p, a) for p, kind, a, _b in failed.cables if kind == "l"}
        self._spine_globals: dict = {}
        self.first = self.groups // 2  # groups 0 .. first - 1: the first half (several groups)
        self.half_node = half_nodes(w)
        self.dead_nics: dict[int, set] = {}
        for n, r in failed.nics:
            self.dead_nics.setdefault(n, set()).add(r)
        touched = {n // self.npg // self.gpp for n in self.dead_nics}
        touched |= {self.group_of_leaf(k) for _p, k in failed.leaves}
        touched |= {self.group_of_switch(k) for _p, k in failed.spines}
        for p, kind, a, b in failed.cables:
            touched |= {self.group_of_leaf(a) if kind == "l" else self.group_of_switch(a), self.group_of_switch(b)}
        last = self.groups - 1
        if self.groups == 1 or len(self.leaves(last)) < len(self.leaves(0)):
            touched.add(last)
        self.touched = sorted(touched)
        self.touched_set = touched
        self.untouched = [g for g in range(self.groups) if g not in touched]

    @staticmethod
    def _spines_per_group(w) -> int:
        return w.spines_per_pod

    def group_of_switch(self, k: int) -> int:
        """Dragonfly+ group of the switch ``k`` at a global link's end (a spine)."""
        return k // self.s

    # geometry (the wiring's rules, read once: ``DragonflyWiring`` answers through its ``clos``) ----------------
    def group_of_leaf(self, k: int) -> int:
        """Dragonfly+ group of leaf ``k``."""
        return k // self.lpg // self.gpp

    def leaves(self, g: int) -> range:
        """Leaves of Dragonfly+ group ``g``."""
        return range(g * self.gpp * self.lpg, min(self.sus_total, (g + 1) * self.gpp) * self.lpg)

    def spines(self, g: int) -> range:
        """Spines of Dragonfly+ group ``g``."""
        return range(g * self.s, (g + 1) * self.s)

    def su_nodes(self, su: int) -> range:
        """Nodes of scalable unit ``su``."""
        return range(su * self.npg, min(self.nodes, (su + 1) * self.npg))

    def group_node_count(self, g: int) -> int:
        """Nodes of Dragonfly+ group ``g``."""
        return max(0, min(self.nodes, (g + 1) * self.gpp * self.npg) - g * self.gpp * self.npg)

    # live links ------------------------------------------------------------------------------------------------
    def lost(self, p: int, kind: str, a: int, b: int, links: int) -> int:
        """Cables lost of a live bundle of ``links`` cables (all of them when the bundle failed whole)."""
        key = (p, kind, a, b) if kind == "l" else (p, kind, min(a, b), max(a, b))
        return min(links, self.f.cables.get(key, 0))

    def leaf_live(self, p: int, k: int) -> bool:
        return p not in self.f.planes and (p, k) not in self.f.leaves

    def spine_live(self, p: int, j: int) -> bool:
        return p not in self.f.planes and (p, j) not in self.f.spines

    def leaf_spines(self, p: int, k: int) -> tuple[tuple[int, int], ...]:
        """``(spine, live cables)`` of leaf ``k``'s live spines with a live cable (one tuple shared by the leaves of
        a group whose cables are all there: ``clean_spines``)."""
        if (p, k) not in self.cut_leaves:
            return self.clean_spines(p, self.group_of_leaf(k))
        out = self._leaf_spines.get((p, k))
        if out is None:
            out = []
            for j in self.spines(self.group_of_leaf(k)):
                if self.spine_live(p, j):
                    live = self.x - self.lost(p, "l", k, j, self.x)
                    if live > 0:
                        out.append((j, live))
            out = self._leaf_spines[p, k] = tuple(out)
        return out

    def clean_spines(self, p: int, g: int) -> tuple[tuple[int, int], ...]:
        """``leaf_spines`` of a leaf of group ``g`` none of whose cables failed."""
        out = self._leaf_spines.get((p, "group", g))
        if out is None:
            out = self._leaf_spines[p, "group", g] = tuple((j, self.x) for j in self.spines(g) if self.spine_live(p, j))
        return out

    def spine_globals(self, p: int, j: int) -> list[tuple[int, int, int]]:
        """``(far spine, healthy cables, live cables)`` of spine ``j``'s global bundles (live: 0 when either end
        failed)."""
        out = self._spine_globals.get((p, j))
        if out is None:
            out = []
            for far, links in spine_links(self.w, j).items():
                live = 0
                if self.spine_live(p, j) and self.spine_live(p, far):
                    live = links - (self.lost(p, "g", j, far, links) if self.f.cables else 0)
                out.append((far, links, live))
            self._spine_globals[p, j] = out
        return out

    def group_of_spine(self, j: int) -> int:
        return j // self.s

    def first_half(self, group: int) -> bool:
        return group < self.first

    # servers ---------------------------------------------------------------------------------------------------
    def sus(self, group: int) -> range:
        """Scalable units of Dragonfly+ group ``group``."""
        return range(group * self.gpp, min(self.sus_total, (group + 1) * self.gpp))

    def leaf_feeds(self, p: int, k: int) -> tuple[float, float, int]:
        """``(first half, second half)`` live node links into leaf ``k`` [Gb/s] and its live server ports."""
        su, rail = divmod(k, self.lpg)
        if not self.leaf_live(p, k):
            return 0.0, 0.0, 0
        nodes = self.su_nodes(su)
        dead = [n for n in nodes if rail in self.dead_nics.get(n, ())] if self.dead_nics else []
        a = max(0, min(nodes.stop, self.half_node) - nodes.start) - sum(1 for n in dead if n < self.half_node)
        b = len(nodes) - len(dead) - a
        return a * self.node_gbps, b * self.node_gbps, a + b


def _components(m: _Model, p: int):
    """Switch components of plane ``p``: ``(union, root of the main part)``; vertices
    ``("l", leaf)``, ``("s", spine)`` of touched groups and ``"U"`` (the untouched groups)."""
    union = _Union()
    ports: Counter = Counter()
    first: dict = {}
    verts = []
    if m.untouched:
        verts.append(("U", sum(m.group_node_count(g) for g in m.untouched) * m.rails, (0, m.leaves(m.untouched[0])[0])))
        union.find("U")
    clean = ()
    for g in m.touched:
        for k in m.leaves(g):
            if m.leaf_live(p, k):
                verts.append((("l", k), m.leaf_feeds(p, k)[2], (0, k)))
                union.find(("l", k))
                live = m.leaf_spines(p, k)
                if live is m.clean_spines(p, g):  # the group's clean leaves: their spines joined once, below
                    if live:
                        union.union(("l", k), ("s", live[0][0]))
                        clean = live
                    continue
                for j, _live in live:
                    union.union(("l", k), ("s", j))
        if clean:
            for j, _n in clean[1:]:
                union.union(("s", clean[0][0]), ("s", j))
            clean = ()
        for j in m.spines(g):
            if not m.spine_live(p, j):
                continue
            verts.append((("s", j), 0, (1, j)))
            union.find(("s", j))
            for far, _links, live in m.spine_globals(p, j):
                if live:
                    union.union(("s", j), "U" if m.group_of_spine(far) not in m.touched_set else ("s", far))
    for v, count, key in verts:
        root = union.find(v)
        ports[root] += count
        first[root] = min(first.get(root, key), key)
    main = max(ports, key=lambda r: (ports[r], tuple(-x for x in first[r]))) if ports else None
    return union, main


def _units(m: _Model):
    """Nodes alike: ``(count, first node, ports)``, ``ports[rail]`` the ``(plane, vertex)`` of each live port
    (vertex None: the port is lost)."""
    w = m.w
    live_planes = [p for p in range(m.planes) if p not in m.f.planes]
    units = []
    if m.untouched:
        count = sum(m.group_node_count(g) for g in m.untouched)
        ports = [[(p, "U" if p in live_planes else None) for p in range(m.planes)] for _r in range(m.rails)]
        units.append((count, m.untouched[0] * m.gpp * m.npg, ports))
    for g in m.touched:
        for su in m.sus(g):
            nodes = m.su_nodes(su)
            broken = [n for n in nodes if n in m.dead_nics]
            for dead, count, start in [(set(), len(nodes) - len(broken), next((n for n in nodes if n not in
                                                                               m.dead_nics), None))] + \
                    [(m.dead_nics[n], 1, n) for n in broken]:
                if not count:
                    continue
                ports = [[(p, ("l", w.leaf_of(su, r)) if r not in dead and m.leaf_live(p, w.leaf_of(su, r))
                           else None) for p in range(m.planes)] for r in range(m.rails)]
                units.append((count, start, ports))
    return units


def _connectivity(m: _Model, components=None) -> tuple[dict, dict]:
    """``_connectivity``'s numbers of the graph what-if and the main parts ``{plane: (union, root)}``
    (``components(m, p)``: a plane's switch components, ``_components`` by default)."""
    parts = {p: (components or _components)(m, p) for p in range(m.planes) if p not in m.f.planes}
    joined = _Union()
    comps: dict = {}
    placed = []
    for count, start, ports in _units(m):
        labels = [(p, parts[p][0].find(v)) for rail in ports for p, v in rail if v is not None]
        for lab in labels[1:]:
            joined.union(labels[0], lab)
        placed.append((count, start, ports, labels))
    for count, start, _ports, labels in placed:
        key = joined.find(labels[0]) if labels else ("alone", start)
        size, low = comps.get(key, (0, start))
        comps[key] = (size + (count if labels else 1), min(low, start))
    main = max(comps, key=lambda c: (comps[c][0], -comps[c][1]))
    gpu_nics = _gpu_nics(_Dims(m.gpus_per_node, m.rails))
    cut, degraded, pxn, worst = m.w.nodes - comps[main][0], 0, 0, 1.0
    for count, start, ports, labels in placed:
        key = joined.find(labels[0]) if labels else ("alone", start)
        if key != main:
            continue
        inside = count if labels else 1
        lost = [sum(1 for p, v in rail if v is None or parts[p][0].find(v) != parts[p][1]) for rail in ports]
        worst = min(worst, 1 - sum(lost) / (m.rails * m.planes))
        degraded += inside * sum(1 for nics in gpu_nics if any(lost[x] for x in nics))
        pxn += inside * sum(1 for nics in gpu_nics if all(lost[x] == m.planes for x in nics))
    return {"nodes_cut": cut, "degraded": degraded, "pxn": pxn, "port_fraction": worst}, parts


def _in_main(parts: dict, p: int, v) -> bool:
    return p in parts and parts[p][0].find(v) == parts[p][1]


def _shares_ecmp(m: _Model, parts: dict) -> tuple[float, float, list[dict]]:
    """The worst main-part leaf's surviving uplink share, the worst group's surviving global-link share (the live
    global cables of its main-part spines over all its spines' healthy ones, per plane) and the ECMP groups (the
    graph what-if's ``_up_share``, ``_global_share`` and ``_ecmp``)."""
    w = m.w
    leaf_share = 1.0
    groups: Counter = Counter()
    far_lost: Counter = Counter()  # (plane, untouched group) -> its cables to failed spines
    healthy: Counter = Counter()  # (plane, touched group) -> its spines' global cables, healthy
    live_globals: Counter = Counter()  # (plane, touched group) -> live global cables of its main-part spines
    for p in parts:
        for g in m.touched:
            for k in m.leaves(g):
                if not m.leaf_live(p, k) or not _in_main(parts, p, ("l", k)):
                    continue
                live = m.leaf_spines(p, k)
                cables = sum(n for _j, n in live)
                leaf_share = min(leaf_share, cables / (m.s * m.x))
                if len(live) < m.s:
                    groups["switches", m.s, len(live)] += 1
                elif cables < m.s * m.x:
                    groups["links", m.s * m.x, cables] += 1
            for j in m.spines(g):
                links = m.spine_globals(p, j)
                healthy[p, g] += sum(n for _f, n, _l in links)
                if not m.spine_live(p, j):
                    for far, n, _live in links:
                        if m.group_of_spine(far) not in m.touched_set:
                            far_lost[p, m.group_of_spine(far)] += n
                    continue
                if _in_main(parts, p, ("s", j)):
                    live_globals[p, g] += sum(live for _f, _n, live in links)
    shares = [live_globals[k] / n for k, n in healthy.items() if n and k in live_globals]
    for (p, far), n in far_lost.items():
        if _in_main(parts, p, "U"):
            shares.append(1 - n / sum(sum(spine_links(w, j).values()) for j in m.spines(far)))
    spine_share = min(shares, default=1.0)
    ecmp = [{"tier": "leaf", "switches": n, "healthy_paths": a, "remaining_paths": b, "unit": unit}
            for (unit, a, b), n in sorted(groups.items())]
    return leaf_share, spine_share, ecmp


_KINDS = {"l": ("leaf", "spine"), "r": ("leaf", "leaf")}
"""The roles at the two ends of a failed cable's bundle by its kind in ``_Failed.cables`` (``g``, a global bundle:
the wiring's ``dragonflyglobal.end_role`` at both ends)."""


def _network(w, f: _Failed, p: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The switches' network of plane ``p`` of wiring ``w`` as wired, with the failures ``f`` (module docstring): ``(vertices, one end,
    other end, capacity [Gb/s, per direction], source, sink)`` of its edges, parallel edges unsummed. Its
    switches are numbered role by role (the wiring's ``roles``), then the source and the sink; every
    switch-to-switch class of the wiring (``bundle_arrays``) joins them at the uplink speed, the node-leaf links feed
    each leaf from the source (the first half's nodes) and into the sink (the others')."""
    offset, vertices = {}, 0
    for role in w.roles:
        offset[role], vertices = vertices, vertices + w.count(role)
    source, sink = vertices, vertices + 1
    dead = np.zeros(vertices, dtype=bool)
    for role, failed in (("leaf", f.leaves), ("spine", f.spines)):
        for q, k in failed:
            if q == p:
                dead[offset[role] + k] = True
    ends = [w.bundle_arrays(kind) for kind in w.link_classes if kind != "node-leaf"]
    a = np.concatenate([offset[ra] + ia for ra, ia, _rb, _ib, _n in ends])
    b = np.concatenate([offset[rb] + ib for _ra, _ia, rb, ib, _n in ends])
    links = np.concatenate([n for *_e, n in ends]).astype(np.int64)
    if f.cables:
        key = np.minimum(a, b) * vertices + np.maximum(a, b)
        for (q, kind, x, y), lost in f.cables.items():
            if q != p:
                continue
            rx, ry = _KINDS.get(kind) or (end_role(w),) * 2
            u, v = offset[rx] + x, offset[ry] + y
            at = np.flatnonzero(key == min(u, v) * vertices + max(u, v))  # the bundle's entries (a link each, or one)
            left = max(0, int(links[at].sum()) - lost)
            links[at] = 0
            links[at[:1]] = left
    live = ~(dead[a] | dead[b])
    _kind, node, _role, leaf, per = w.bundle_arrays("node-leaf")
    leaf = offset["leaf"] + leaf
    on = ~dead[leaf]
    for n, r in f.nics:  # bundle_arrays' node-leaf order: rail by rail
        on[r * w.nodes + n] = False
    first = node < half_nodes(w)
    feed = per * w.port_gbps
    into = np.bincount(leaf[on & first], weights=feed[on & first], minlength=vertices)  # from the source [Gb/s]
    out = np.bincount(leaf[on & ~first], weights=feed[on & ~first], minlength=vertices)  # to the sink [Gb/s]
    fed, drained = np.flatnonzero(into), np.flatnonzero(out)
    return (vertices + 2, np.concatenate((a[live], np.full(len(fed), source), drained)),
            np.concatenate((b[live], fed, np.full(len(drained), sink))),
            np.concatenate((links[live] * w.up_gbps, into[fed], out[drained])), source, sink)


def flows(w, f: _Failed) -> float:
    """Maximum flow [Gb/s, one direction] between the halves of wiring ``w`` with the failures ``f``: the sum over
    its live planes of the maximum flow on each plane's switches' network (``_network``;
    ``core.analysis.failure.maxflow``)."""
    return sum(max_flow(*_network(w, f, p)) for p in range(w.planes) if p not in f.planes)


def _flow_bytes(found) -> int:
    """Upper bound of the memory of a ``healthy_flow`` answer [bytes]: one number."""
    return 64


@stage(0.002, _flow_bytes, max_entries=256)
def healthy_flow(wiring) -> float:
    """``flows`` of the healthy ``wiring`` [Gb/s, one direction] (keyed by the wiring: the what-ifs of one design,
    and of designs wired alike, share it)."""
    return flows(wiring, _Failed())


def bisection(plan: Plan, wiring, failed: _Failed) -> tuple[float, float]:
    """``(failed, healthy)`` bisection [Gb/s, one direction]: the plan's healthy bisection scaled by the maximum
    flow between the halves with the failures over the same flow healthy (the graph what-if's measure)."""
    healthy = plan.bandwidth.bisection_tbits_one_direction * 1000
    base = healthy_flow(wiring)
    return (healthy * flows(wiring, failed) / base if base else 0.0), healthy


def _stages(m: _Model) -> dict:
    """``{stage: remaining [Gb/s]}`` of the failed state: the smaller half's NIC injection and leaf uplinks, the
    global links across the halves."""
    inj, up = [0.0, 0.0], [0.0, 0.0]
    across = 0.0
    for p in range(m.planes):
        if p in m.f.planes:
            continue
        for g in m.untouched:
            half = 0 if m.first_half(g) else 1
            inj[half] += m.group_node_count(g) * m.rails * m.node_gbps
            up[half] += len(m.leaves(g)) * m.s * m.x * m.up
        lost_across = 0
        for g in m.touched:
            for k in m.leaves(g):
                a, b, _n = m.leaf_feeds(p, k)
                cables = sum(n for _j, n in m.leaf_spines(p, k)) if m.leaf_live(p, k) else 0
                for half, feed in enumerate((a, b)):
                    inj[half] += feed
                    up[half] += cables * m.up if feed > 0 else 0.0
            for j in m.spines(g):
                for far, links, live in m.spine_globals(p, j):
                    fg = m.group_of_spine(far)
                    if m.first_half(g) != m.first_half(fg) and (fg not in m.touched_set or j < far):
                        lost_across += links - live
        if m.groups > 1:
            across += m.first * (m.groups - m.first) * m.lam * m.up - lost_across * m.up
    stages = {"injection": min(inj), "leaf_up": min(up)}
    if m.groups > 1:
        stages["global"] = across
    return stages


HEALTHY_WIRING = ("pods spines_per_pod pair_links rails planes links_per_node_leaf port_gbps up_gbps global_pair_links "
                  "nodes nodes_per_group groups_per_pod leaves_per_group groups link_classes")
"""What a healthy Dragonfly's measures read of its wiring (``_Model`` and the global links' rule,
``core.analysis.failure.dragonflyglobal``): its counts, speeds and link classes."""
HealthyResolved = view("HealthyResolved", "gpus_per_node")
HealthyPlan = view("HealthyPlan", "", resolved=HealthyResolved)
HealthyNet = view("HealthyNet", "", wiring=view("HealthyWiring", HEALTHY_WIRING), plan=HealthyPlan)
"""What ``healthy_measures`` reads of a ``_Net`` (``core.memo.view``): the wiring's ``HEALTHY_WIRING`` and the plan's
GPUs per node."""


def _healthy_bytes(found) -> int:
    """Upper bound of the memory of a healthy ``_stages`` answer [bytes]: a dict of at most three stages (``tests/test_memo.py``)."""
    return 1024


@stage(0.001, _healthy_bytes, max_entries=256)
def healthy_measures(net: HealthyNet) -> dict:
    """``_stages`` of the healthy Dragonfly+ ``net`` (a ``HealthyNet`` view: cached by what it reads, so the what-ifs
    of one design, and of designs wired alike, share it)."""
    return _stages(_Model(net, _Failed()))


def _notes(m: _Model, c: dict, shares: tuple[float, float, float], family: str | None = None) -> list[str]:
    """The method and the PXN note, in words: the method in the words of ``family`` (a ``FabricPlan.family``; its
    ``WORDS``' ``failure:note``: a classic Dragonfly's routers have no uplinks and no spine), else a Dragonfly+'s."""
    from core.fabric.families import words

    notes = [_pxn_note(c["pxn"])] if c["pxn"] else []
    cut = _("the two halves of the groups") if m.groups > 1 else _("the two halves of the nodes")
    notes.append(words(family, "failure:note", N_(
                   "Computed in closed form over the topology's groups (the untouched groups of a plane as one "
                   "block): GPUs outside the connected part holding the most nodes are cut off; the bisection is the "
                   "healthy one scaled by the maximum flow between {cut} with the failures over the same flow "
                   "healthy; busbw and step time on a degraded copy with the slowest connected node's surviving NIC "
                   "ports ({ports}), the worst leaf's surviving uplinks ({leaf}) and the worst group's surviving "
                   "global links ({spine}).")).format(
        cut=cut, ports=percent(shares[0]), leaf=percent(shares[1]), spine=percent(shares[2])))
    return notes


def what_if_closed(plan: Plan, failures, job=None) -> FailureResult:
    """``what_if`` of a Dragonfly+ in closed form over its groups (module docstring)."""
    net = _Net.of(plan)
    if not failures:
        raise _nothing_failed(net.wiring.switch_id("leaf", 0))
    elements = resolve(plan, failures, net)
    m = _Model(net, _Failed.of(elements))
    c, parts = _connectivity(m)
    leaf_share, spine_share, ecmp = _shares_ecmp(m, parts)
    shares = (c["port_fraction"], leaf_share, spine_share)
    healthy_stages, stages = healthy_measures(HealthyNet.of(net)), _stages(m)
    failed, healthy = bisection(plan, net.wiring, m.f)
    method = ("closed form over the Dragonfly+ groups; core.perf all-reduce (and all-to-all) of 1 GiB on the "
              f"connected GPUs; NIC rate scaled to the slowest connected node's surviving ports ({shares[0]:.3f}); "
              f"leaf oversubscription divided by the worst leaf's surviving uplinks ({shares[1]:.3f}), spine "
              f"oversubscription by the worst group's surviving global links ({shares[2]:.3f}); bisection: max-flow "
              "between the halves on the switches' network as wired, failed / healthy")
    both = {k: (healthy_stages[k], stages[k]) for k in stages}
    return result(plan, elements, c, shares, (failed, healthy, both), ecmp, _notes(m, c, shares), method,
                  job)
