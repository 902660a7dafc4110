"""The failure what-if of a topology family other than the folded Clos (Dragonfly+), on its graph.

``what_if`` (``core.analysis.failure.whatif``) sends a plan whose ``fabric.family`` is not ``clos`` here (the classic
Dragonfly), but for a family whose module declares ``FAILURE_CLOSED_FORM``: a Dragonfly+ is measured in closed form
over its groups by ``core.analysis.failure.dragonflywhatif``, which reads this module's spec language and result, and
this module's ``what_if_graph`` is its reference (the tests compare the two). This module fails elements on the switch and server graph of
``core.fabric.topology.fabric_graph`` (the wiring's bundles, global links included) and measures it with networkx.
It returns the same ``FailureResult``.

Element names (the subset of the failure-spec language, ``core.analysis.failure``, that applies):

* ``p0.leaf3``, ``p0.spine5`` (``leaf3`` alone: plane 0); ``p1``: a whole plane; ``node5.nic2``: NIC 2 of node 5
  (its port in every plane);
* ``p0.leaf3-spine1``: the bundle between a leaf and a spine of its group; ``p0.spine3-spine17``: a global bundle
  between spines of two groups (either order); a classic Dragonfly's local bundle between two routers of a group,
  ``p0.leaf0-leaf1`` (tier ``link``); ``#2``: cable 2 of the bundle (0-based) alone.

Counts (``tier:count``): ``leaf`` and ``spine`` in index order (one group's before the next; a leaf in every
plane before the next leaf, a group's spines plane by plane); ``plane``; ``nic`` (a node's NICs before the next
node's); ``link`` (leaf uplink bundles, the first leaf's first); ``global`` (global bundles, the first pair of
groups' first, in every plane). Tiers: ``TIERS`` (``tor`` and ``bundle`` are aliases, as in the Clos).

Method (per what-if, every switch, server and bundle a vertex or an edge; ``MAX_GPUS`` bounds the cost):

* **Cut off**: connected components of the failed graph, servers included (a server joins the switches its live
  ports reach: NVLink PXN forwards within a node); GPUs of servers outside the component holding the most servers
  are cut off.
* **Degraded**: GPUs of connected servers whose NIC lost a port: the port's cable, leaf or plane failed, or its
  leaf is outside its plane's main part (the switch component of the plane, servers left out, holding the most
  live server ports). ``gpus_via_pxn``: those whose NIC lost every port.
* **Bisection** (one direction): ``plan.bandwidth.bisection_tbits_one_direction`` scaled by the maximum flow
  between the two halves of the groups (by index; with one group, the two halves of its nodes) on the failed
  switch graph over the same flow on the healthy graph; a super source feeds the leaves of one half, a super sink
  drains the other's, each leaf at its live node links x port speed [Gb/s]. ``stages_tbits``: the damaged half's
  NIC injection and leaf uplinks and the global links across the cut.
* **busbw, step time**: ``degraded_plan`` with the slowest connected server's surviving port share, the worst
  leaf's surviving uplink share (leaves of their plane's main part) and the worst group's surviving global-link
  share (``_global_share``).
* **ECMP**: live leaves of a main part that lost some of their group's spines (``switches``) or cables only
  (``links``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import networkx as nx

from core.analysis.failure.connectivity import _gpu_nics
from core.analysis.failure.spec import _NIC, _PLANE, _resolve, _switch_name, cable_out_of_range
from core.analysis.failure.whatif import (
    FailureResult, _busbw, _healthy_nvlink, _nothing_failed, _pxn_note, _step, degraded_plan,
)
from core.analysis.failure.dragonflyglobal import bundle_links, end_role, global_bundle_count, pair_bundles
from core.errors import InputError, shown
from core.fabric.families import family
from core.fabric.topology import fabric_graph
from core.fabric.wiring import Wiring
from core.i18n import _
from core.plan import Plan
from core.units import percent

TIERS = ("leaf", "spine", "plane", "nic", "link", "global")
"""Tiers of the graph what-if (``tier:count``)."""
MAX_GPUS = 65_536
"""Most GPUs the graph what-if takes. Measured (H100, QM9700, default groups; ``spine:3 global:5 node5.nic2``) on
a 2-core machine shared with other work: 32,768 GPUs 3 s, 65,536 GPUs 7 to 10 s, 131,072 GPUs 13 to 17 s (two
maximum flows of about 3 to 7 s each and the failed state's 4 s there); larger designs are refused."""
_BUNDLE = re.compile(r"^(.+)-(spine|leaf)(\d+)(?:#(\d+))?$")
"""A bundle: its lower switch's name, its upper switch's role (a classic Dragonfly's global links join two routers,
its leaves, of two groups: ``p0.leaf0-leaf32``) and index, a cable."""
_SERVER = "server"
LOCAL_CABLES = 1
"""Cables of a classic Dragonfly's local bundle (``core.fabric.classic_dragonfly``: one local link between every
two routers of a group)."""


class _Net:
    """The wiring of a plan (counts per plane) and, built when first asked (``graph``), its graph."""

    def __init__(self, plan: Plan, wiring, graph: nx.Graph | None = None):
        self.plan, self.wiring, self._graph = plan, wiring, graph

    @staticmethod
    def of(plan: Plan) -> "_Net":
        """The wiring of ``plan``; its graph waits for ``graph``."""
        return _Net(plan, Wiring.of(plan))

    @property
    def graph(self) -> nx.Graph:
        """The healthy graph of the plan (servers one by one); ``InputError`` above ``MAX_GPUS``."""
        if self._graph is None:
            if self.plan.resolved.gpus > MAX_GPUS:
                raise InputError(_("the failure what-if of this topology runs on its graph, which takes too long "
                                   "above {most} GPUs ({gpus} here). Plan it as rail-optimized (the closed form of "
                                   "the folded Clos has no size limit), or fewer GPUs.").format(
                    most=f"{MAX_GPUS:,}", gpus=f"{self.plan.resolved.gpus:,}"))
            self._graph = fabric_graph(self.plan, servers="each")
        return self._graph

    @property
    def planes(self) -> int:
        return self.wiring.planes

    @property
    def closed(self) -> bool:
        """Whether the family's global links follow the Dragonflies' circulant rule (its module declares
        ``FAILURE_CLOSED_FORM``): its bundles are counted without the graph (``dragonflyglobal``)."""
        return bool(getattr(family(self.wiring.family), "FAILURE_CLOSED_FORM", None))

    def global_bundles(self, plane: int) -> list[tuple[str, str]]:
        """``(spine, spine)`` of every global bundle of ``plane``, pair of groups by pair of groups."""
        if self.closed:
            return list(self.closed_bundles(plane))
        return [(b.a, b.b) for b in self.wiring.bundles(plane) if b.kind == "global"]

    def closed_bundles(self, plane: int):
        """``global_bundles`` of a closed-form family, one by one (``dragonflyglobal.pair_bundles``)."""
        w = self.wiring
        role = end_role(w)
        for a in range(w.pods):
            for b in range(a + 1, w.pods):
                yield from ((w.switch_id(role, x, plane), w.switch_id(role, y, plane))
                            for x, y, _n in pair_bundles(w, a, b))

    def links(self, a: str, b: str) -> int:
        """Cables between switches ``a`` and ``b`` (0: not cabled to each other)."""
        if not self.closed or end_role(self.wiring) != "spine":
            return self.graph[a][b]["links"] if self.graph.has_edge(a, b) else 0
        return bundle_links(self.wiring, a, b)


# --------------------------------------------------------------------------------------------- the spec language
def _unknown(text: str, net: _Net) -> InputError:
    """No element of the design (``core.analysis.failure.spec.resolve_failures`` says it with the design's
    examples)."""
    from core.analysis.failure.spec import UnknownElement

    return UnknownElement(text)


def _element(tier: str, key: tuple) -> str:
    """The name of element ``key`` of ``tier`` (``_parse``'s keys)."""
    if tier == "plane":
        return f"p{key[0]}"
    if tier == "nic":
        return f"{Wiring.node_id(key[0])}.nic{key[1]}"
    if tier in ("link", "global"):
        a, b, cable = key
        return f"{a}-{b.split('.')[-1]}" + ("" if cable is None else f"#{cable}")
    return key[0]


def _parse_bundle(m, text: str, net: _Net, tier: str | None) -> tuple[str, tuple]:
    """``(tier, (lower id, upper id, cable or None))`` of a bundle name matched by ``_BUNDLE``."""
    role, p, island, k = _switch_name(m[1])
    upper = m[2]
    w = net.wiring
    same = role == upper == "leaf" and k < w.count(role) and int(m[3]) < w.count(upper) and \
        w.pod_of_leaf(k) == w.pod_of_leaf(int(m[3]))
    local = same and "local" in w.link_classes  # a classic Dragonfly's local bundle: two routers of a group
    kind = "link" if (role, upper) == ("leaf", "spine") or local else "global"
    if p >= net.planes or island or k >= w.count(role) or int(m[3]) >= w.count(upper) \
            or tier not in (None, kind) or (kind == "global" and role != upper) or (same and not local):
        raise _unknown(text, net)
    a, b = w.switch_id(role, k, p), w.switch_id(upper, int(m[3]), p)
    if kind == "global" or local:
        a, b = sorted((a, b), key=lambda s: _switch_name(s)[3])
    # a local bundle is one cable (core.fabric.classic_dragonfly's bundles), counted without the graph
    cables = 0 if role == upper and a == b else LOCAL_CABLES if local else net.links(a, b)
    if not cables:
        raise InputError(_("{name}: no such bundle; the two switches are not cabled to each other in this "
                           "design").format(name=shown(text)))
    cable = None if m[4] is None else int(m[4])
    if cable is not None and cable >= cables:
        raise cable_out_of_range(text, cables)
    return kind, (a, b, cable)


def _parse(text: str, net: _Net, tier: str | None = None) -> tuple[str, tuple]:
    """``(tier, key)`` of an element name; ``InputError`` for a name the design does not have."""
    name = text.strip().lower()
    w = net.wiring
    switch = _switch_name(name)
    if switch:
        role, p, island, k = switch
        if p >= net.planes or island or k >= w.count(role) or tier not in (None, role):
            raise _unknown(text, net)
        return role, (w.switch_id(role, k, p),)
    m = _PLANE.match(name)
    if m and tier in (None, "plane") and int(m[1]) < net.planes:
        return "plane", (int(m[1]),)
    m = _NIC.match(name)
    if m and tier in (None, "nic") and int(m[1]) < w.nodes and int(m[2]) < w.rails:
        return "nic", (int(m[1]), int(m[2]))
    m = _BUNDLE.match(name)
    lower = _switch_name(m[1]) if m else None
    if lower and lower[0] in ("leaf", "spine"):
        return _parse_bundle(m, text, net, tier)
    raise _unknown(text, net)


def _order(tier: str, net: _Net):
    """Keys of ``tier`` in the order a count fails them (module docstring)."""
    w, planes = net.wiring, range(net.planes)
    if tier == "leaf":
        yield from ((w.switch_id("leaf", k, p),) for k in range(w.leaves) for p in planes)
    elif tier == "spine":
        yield from ((w.switch_id("spine", k, p),) for g in range(w.pods) for p in planes for k in w.spines_of_pod(g))
    elif tier == "plane":
        yield from ((p,) for p in planes)
    elif tier == "nic":
        yield from ((n, r) for n in range(w.nodes) for r in range(w.rails))
    elif tier == "link":
        for (leaf,) in _order("leaf", net):
            p, k = _switch_name(leaf)[1], _switch_name(leaf)[3]
            yield from ((leaf, w.switch_id("spine", s, p), None) for s in w.spines_of_leaf(k))
        if "local" in w.link_classes:  # a classic Dragonfly's local bundles, group by group, pair by pair
            for g in range(w.pods):
                routers = list(w.leaves_of_pod(g))
                yield from ((w.switch_id("leaf", a, p), w.switch_id("leaf", b, p), None)
                            for i, a in enumerate(routers) for b in routers[i + 1:] for p in planes)
    elif tier == "global" and net.closed:
        role = end_role(w)
        for a, b in net.closed_bundles(0):
            yield from ((w.switch_id(role, _switch_name(a)[3], p), w.switch_id(role, _switch_name(b)[3], p), None)
                        for p in planes)
    elif tier == "global":
        per_plane = [net.global_bundles(p) for p in planes]
        yield from ((*per_plane[p][j], None) for j in range(len(per_plane[0])) for p in planes)


def _size(tier: str, net: _Net) -> int:
    """Elements of ``tier`` in the design (all planes)."""
    w, planes = net.wiring, net.planes
    return {"leaf": w.leaves * planes, "spine": w.spines * planes, "plane": planes, "nic": w.nodes * w.rails,
            "link": (w.leaves * len(w.spines_of_leaf(0)) + _local_bundles(w)) * planes,
            "global": (global_bundle_count(w) if net.closed else len(net.global_bundles(0))) * planes}[tier]


def _local_bundles(w) -> int:
    """Local bundles of one plane (a classic Dragonfly's: one between every two routers of a group; 0 else)."""
    if "local" not in w.link_classes:
        return 0
    return sum(len(w.leaves_of_pod(g)) * (len(w.leaves_of_pod(g)) - 1) // 2 for g in range(w.pods))


def tiers_of(plan: Plan) -> tuple[str, ...]:
    """The tiers ``plan`` has elements of (no global links with one group; no spines and no leaf-spine bundles in a
    Dragonfly, whose routers are its leaves)."""
    net = _Net(plan, Wiring.of(plan), nx.Graph())
    return tuple(t for t in TIERS if _size(t, net) > 0)


def resolve(plan: Plan, failures, net: _Net | None = None) -> list[tuple[str, tuple, bool]]:
    """``(tier, key, chosen)`` of every element the specs name or choose; ``InputError`` for bad specs."""
    net = net or _Net.of(plan)
    from core.fabric.families import tier_aliases

    return _resolve(failures, TIERS, lambda rest, tier: _parse(rest, net, tier), lambda t: _size(t, net),
                    lambda t: _order(t, net), tier_aliases(plan.fabric.family))


# ------------------------------------------------------------------------------------------------ the failed state
@dataclass
class _State:
    """The failed graph and what the measures need of it."""

    graph: nx.Graph
    lost_ports: Counter = field(default_factory=Counter)
    """``(node, nic) -> ports lost`` (cable, leaf or plane failed, or the leaf outside its plane's main part)."""
    main: set = field(default_factory=set)
    """Vertices of the component holding the most servers."""
    main_parts: set = field(default_factory=set)
    """Switches of their plane's main part."""


def _fail(net: _Net, elements) -> nx.Graph:
    """A copy of the healthy graph without the failed switches, NIC ports and cables."""
    g = net.graph.copy()
    w = net.wiring
    for tier, key, _chosen in elements:
        if tier in ("leaf", "spine"):
            g.remove_nodes_from(key)
        elif tier == "plane":
            g.remove_nodes_from([w.switch_id(r, k, key[0]) for r in w.roles for k in range(w.count(r))])
        elif tier == "nic":
            n, r = key
            leaf = w.leaf_of(w.group_of_node(n), r)
            g.remove_edges_from((Wiring.node_id(n), w.switch_id("leaf", leaf, p)) for p in range(net.planes))
        elif g.has_edge(key[0], key[1]):
            _cut(g, key)
    return g


def _cut(g: nx.Graph, key: tuple) -> None:
    """Take a bundle (``cable`` None) or one of its cables [Gb/s per cable: the bundle's capacity / links]."""
    a, b, cable = key
    edge = g[a][b]
    if cable is None or edge["links"] <= 1:
        g.remove_edge(a, b)
        return
    per = edge["capacity_gbps"] / edge["links"]
    edge["links"] -= 1
    edge["capacity_gbps"] -= per


def _main_parts(net: _Net, g: nx.Graph) -> set:
    """Switches of their plane's main part: per plane, the switch component holding the most live server ports (of
    equal ones, the one holding the first switch in the graph's order: leaves by index, then spines)."""
    order = {v: i for i, v in enumerate(g)}
    switches = g.subgraph(v for v, d in g.nodes(data=True) if d["role"] != _SERVER)
    best: dict[int, tuple[int, int, set]] = {}
    for part in nx.connected_components(switches):
        plane = g.nodes[next(iter(part))]["plane"]
        ports = sum(1 for v in part for u in g.adj[v] if g.nodes[u]["role"] == _SERVER)
        rank = (ports, -min(order[v] for v in part))
        if plane not in best or rank > best[plane][:2]:
            best[plane] = (*rank, part)
    return set().union(*(part for _n, _o, part in best.values())) if best else set()


def _state(net: _Net, elements) -> _State:
    """The failed graph, its main component and main parts, and every lost NIC port."""
    g = _fail(net, elements)
    servers = [v for v, d in g.nodes(data=True) if d["role"] == _SERVER]
    main = max(nx.connected_components(g), key=lambda c: sum(1 for v in c if g.nodes[v]["role"] == _SERVER))
    s = _State(g, main=main, main_parts=_main_parts(net, g))
    w = net.wiring
    for node in servers:
        n = Wiring.parse_node(node)
        for r in range(w.rails):
            leaf = w.leaf_of(w.group_of_node(n), r)
            lost = sum(1 for p in range(net.planes)
                       if w.switch_id("leaf", leaf, p) not in s.main_parts
                       or not g.has_edge(node, w.switch_id("leaf", leaf, p)))
            if lost:
                s.lost_ports[node, r] = lost
    return s


# ------------------------------------------------------------------------------------------------------- measures
def _connectivity(net: _Net, s: _State) -> dict:
    """Servers cut off, GPUs degraded and via PXN, the slowest connected server's port share."""
    r = net.plan.resolved
    gpu_nics = _gpu_nics(_Dims(r.gpus_per_node, net.wiring.rails))
    ports = net.wiring.rails * net.planes
    cut = sum(1 for n in range(net.wiring.nodes) if Wiring.node_id(n) not in s.main)
    degraded = pxn = 0
    worst = 1.0
    for n in range(net.wiring.nodes):
        node = Wiring.node_id(n)
        if node not in s.main:
            continue
        lost = [s.lost_ports.get((node, nic), 0) for nic in range(net.wiring.rails)]
        worst = min(worst, 1 - sum(lost) / ports)
        degraded += sum(1 for nics in gpu_nics if any(lost[x] for x in nics))
        pxn += sum(1 for nics in gpu_nics if all(lost[x] == net.planes for x in nics))
    return {"nodes_cut": cut, "degraded": degraded, "pxn": pxn, "port_fraction": worst}


@dataclass(frozen=True)
class _Dims:
    """GPUs and NICs of a node (what ``connectivity._gpu_nics`` reads)."""

    gpus_per_node: int
    nics: int


def _up_share(net: _Net, s: _State, role: str, upper) -> float:
    """The worst surviving share of uplink cables (``upper(vertex, data)`` says which neighbours are up) of the
    switches of ``role`` in their plane's main part; 1.0 without such switches."""
    worst = 1.0
    h, g = net.graph, s.graph
    for v in s.main_parts:
        if h.nodes[v]["role"] != role:
            continue
        healthy = sum(e["links"] for u, e in h.adj[v].items() if upper(u, h.nodes[u]))
        if healthy:
            live = sum(e["links"] for u, e in g.adj[v].items() if upper(u, g.nodes[u]))
            worst = min(worst, live / healthy)
    return worst


def _global_share(net: _Net, s: _State) -> float:
    """The worst Dragonfly+ group's surviving share of its global links, per plane: the live spine-to-spine cables of
    its spines in their plane's main part over the healthy ones of all its spines; 1.0 without global links. Every
    leaf of a group reaches each of its spines, so the group's traffic to the other groups spreads over all their
    global links: a failed spine costs its group that spine's links, not a share of every spine's."""
    h, g = net.graph, s.graph
    healthy: Counter = Counter()
    live: Counter = Counter()
    for v, d in h.nodes(data=True):
        if d["role"] == "spine":
            healthy[d["plane"], d.get("pod")] += sum(e["links"] for u, e in h.adj[v].items()
                                                     if h.nodes[u]["role"] == "spine")
    for v in s.main_parts:
        d = h.nodes[v]
        if d["role"] == "spine":
            live[d["plane"], d.get("pod")] += sum(e["links"] for u, e in g.adj[v].items()
                                                  if g.nodes[u]["role"] == "spine")
    return min((live[k] / healthy[k] for k in live if healthy[k]), default=1.0)


def _ecmp(net: _Net, s: _State) -> list[dict]:
    """Live leaves of a main part that lost some of their spines (``switches``) or only cables (``links``)."""
    h, g = net.graph, s.graph
    groups: Counter = Counter()
    for v in s.main_parts:
        if h.nodes[v]["role"] != "leaf":
            continue
        up = [u for u in h.adj[v] if h.nodes[u]["role"] == "spine"]
        live = [u for u in g.adj[v] if g.nodes[u]["role"] == "spine"]
        if len(live) < len(up):
            groups["switches", len(up), len(live)] += 1
        else:
            cables = sum(h[v][u]["links"] for u in up)
            left = sum(g[v][u]["links"] for u in live)
            if left < cables:
                groups["links", cables, left] += 1
    return [{"tier": "leaf", "switches": n, "healthy_paths": a, "remaining_paths": b, "unit": unit}
            for (unit, a, b), n in sorted(groups.items())]


def _halves(net: _Net) -> tuple[set, set]:
    """Servers of the two halves of the cut: the groups' (by index), or with one group its nodes'."""
    w = net.wiring
    if w.pods > 1:
        sus = range(min(w.groups, w.pods // 2 * w.groups_per_pod))  # the scalable units of the first groups
        first = {n for su in sus for n in w.nodes_of_group(su)}
    else:
        first = set(range(w.nodes // 2))
    return ({Wiring.node_id(n) for n in first},
            {Wiring.node_id(n) for n in range(w.nodes) if n not in first})


def _flow(g: nx.Graph, halves: tuple[set, set]) -> float:
    """Maximum flow [Gb/s, one direction] from the leaves of one half to the other's on the switches of ``g``,
    each leaf fed at its live node links' capacity from its half's servers."""
    role = g.nodes(data="role")
    flow = nx.Graph()
    flow.add_edges_from((a, b, {"capacity_gbps": e["capacity_gbps"]}) for a, b, e in g.edges(data=True)
                        if role[a] != _SERVER and role[b] != _SERVER)
    source, sink = ("source",), ("sink",)
    flow.add_nodes_from((source, sink))
    for end, servers in zip((source, sink), halves):
        caps: Counter = Counter()
        for node in servers:
            if node in g:
                for leaf, e in g.adj[node].items():
                    caps[leaf] += e["capacity_gbps"]
        flow.add_edges_from((end, leaf, {"capacity_gbps": c}) for leaf, c in caps.items())
    if not flow.degree(source) or not flow.degree(sink):
        return 0.0
    return float(nx.maximum_flow_value(flow, source, sink, capacity="capacity_gbps"))


def _side(g: nx.Graph, servers: set, kind: str) -> float:
    """Capacity [Gb/s, one direction] of one half: its servers' NIC links (``injection``) or its leaves' uplinks
    (``leaf_up``)."""
    leaves = {leaf for node in servers if node in g for leaf in g.adj[node]}
    if kind == "injection":
        return sum(e["capacity_gbps"] for node in servers if node in g for e in g.adj[node].values())
    return sum(e["capacity_gbps"] for leaf in leaves for u, e in g.adj[leaf].items() if g.nodes[u]["role"] == "spine")


def _across(g: nx.Graph, net: _Net) -> float:
    """Global-link capacity [Gb/s, one direction] between the two halves' groups: the switch-to-switch edges between
    groups of different halves (a Dragonfly+'s spines, a classic Dragonfly's routers)."""
    first = net.wiring.pods // 2  # groups 0 .. first - 1 hold the first half's servers
    total = 0.0
    for a, b, e in g.edges(data=True):
        da, db = g.nodes[a], g.nodes[b]
        if _SERVER not in (da["role"], db["role"]) and (da["pod"] < first) != (db["pod"] < first):
            total += e["capacity_gbps"]
    return total


def _bisection(net: _Net, s: _State) -> tuple[float, float, dict]:
    """(failed, healthy bisection [Gb/s, one direction], stages ``{stage: (healthy, remaining)}`` [Gb/s])."""
    healthy = net.plan.bandwidth.bisection_tbits_one_direction * 1000
    halves = _halves(net)
    base = _flow(net.graph, halves)
    failed = healthy * (_flow(s.graph, halves) / base) if base else 0.0
    stages = {k: (min(_side(net.graph, h, k) for h in halves), min(_side(s.graph, h, k) for h in halves))
              for k in ("injection", "leaf_up")}
    if net.wiring.pods > 1:
        stages["global"] = (_across(net.graph, net), _across(s.graph, net))
    return failed, healthy, stages


def _notes(net: _Net, c: dict, shares: tuple[float, float, float]) -> list[str]:
    """The method and the PXN note, in words."""
    notes = [_pxn_note(c["pxn"])] if c["pxn"] else []
    cut = _("the two halves of the groups") if net.wiring.pods > 1 else _("the two halves of the nodes")
    notes.append(_("Computed on the topology's graph (`networkx`): GPUs outside the connected part holding the most "
                   "nodes are cut off; the bisection is the healthy one scaled by the maximum flow between {cut} on "
                   "the failed graph over the same flow on the healthy graph; busbw and step time on a degraded copy "
                   "with the slowest connected node's surviving NIC ports ({ports}), the worst leaf's surviving "
                   "uplinks ({leaf}) and the worst group's surviving global links ({spine}).").format(
        cut=cut, ports=percent(shares[0]), leaf=percent(shares[1]), spine=percent(shares[2])))
    return notes


def what_if_graph(plan: Plan, failures, job=None) -> FailureResult:
    """``what_if`` of a plan of another family than the folded Clos, on its graph (module docstring)."""
    net = _Net.of(plan)
    if not failures:
        raise _nothing_failed(net.wiring.switch_id("leaf", 0))
    elements = resolve(plan, failures, net)
    s = _state(net, elements)
    c = _connectivity(net, s)
    shares = (c["port_fraction"], _up_share(net, s, "leaf", lambda u, d: d["role"] == "spine"),
              _global_share(net, s))
    notes = _notes(net, c, shares)
    method = ("networkx graph; core.perf all-reduce (and all-to-all) of 1 GiB on the connected GPUs; NIC rate scaled "
              f"to the slowest connected node's surviving ports ({shares[0]:.3f}); leaf oversubscription divided by "
              f"the worst leaf's surviving uplinks ({shares[1]:.3f}), spine oversubscription by the worst group's "
              f"surviving global links ({shares[2]:.3f}); bisection: max-flow between the halves, failed / healthy")
    return result(plan, elements, c, shares, _bisection(net, s), _ecmp(net, s), notes, method, job)


def result(plan: Plan, elements, c: dict, shares: tuple[float, float, float], bisection: tuple[float, float, dict],
           ecmp: list[dict], notes: list[str], method: str, job=None) -> FailureResult:
    """The ``FailureResult`` of measured connectivity ``c`` (``_connectivity``'s keys), surviving ``shares`` (NIC
    ports, leaf uplinks, spine global links), ``bisection`` (failed and healthy [Gb/s, one direction], stages
    ``{stage: (healthy, remaining)}`` [Gb/s]) and ``ecmp``: the degraded copy's busbw and step time added."""
    failed_bisection, healthy_bisection, stages = bisection
    gpus, gpn = plan.resolved.gpus, plan.resolved.gpus_per_node
    connected = gpus - c["nodes_cut"] * gpn
    degraded = degraded_plan(plan, *shares)
    alive = shares[0] > 0
    nvl, domain_busbw = _healthy_nvlink(plan)  # no NVLink element fails here
    healthy_run = failed_run = None
    if job is not None:
        healthy_run, _why = _step(plan, job, gpus)
        failed_run, why = _step(degraded, job, connected)
        notes = notes + ([why] if why else [])
    return FailureResult(
        failed=tuple({"element": _element(t, k), "tier": t, "chosen": ch, "redundant": False}
                     for t, k, ch in elements),
        gpus=gpus, nodes=plan.resolved.nodes, gpus_disconnected=c["nodes_cut"] * gpn,
        nodes_disconnected=c["nodes_cut"], gpus_degraded=c["degraded"], gpus_via_pxn=c["pxn"],
        bisection_tbits_one_direction=failed_bisection / 1000,
        healthy_bisection_tbits_one_direction=healthy_bisection / 1000,
        stages_tbits={k: {"healthy": v[0] / 1000, "remaining": v[1] / 1000} for k, v in stages.items()},
        busbw_gbytes=_busbw(degraded, connected) if alive else None, healthy_busbw_gbytes=_busbw(plan, gpus),
        busbw_method=method, alltoall_busbw_gbytes=_busbw(degraded, connected, "all-to-all") if alive else None,
        healthy_alltoall_busbw_gbytes=_busbw(plan, gpus, "all-to-all"),
        step_time_s=failed_run and failed_run.step_time_s, healthy_step_time_s=healthy_run and healthy_run.step_time_s,
        days_to_train=failed_run and failed_run.days_to_train,
        healthy_days_to_train=healthy_run and healthy_run.days_to_train, ecmp_unbalanced=tuple(ecmp),
        nvlink_gbytes_per_gpu_one_direction=nvl, healthy_nvlink_gbytes_per_gpu_one_direction=nvl,
        domain_busbw_gbytes=domain_busbw, healthy_domain_busbw_gbytes=domain_busbw, notes=tuple(notes))
