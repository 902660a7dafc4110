"""The failure what-if of a torus (``core.fabric.torus``): nodes, NICs and links lost, measured on its graph.

``what_if`` (``core.analysis.failure.whatif``) sends a plan whose ``fabric.family`` is ``torus`` here. It returns
the same ``FailureResult``.

Element names (0-based, as the failure-spec language): ``node5`` (a node and every link of its ports),
``node5.nic2`` (NIC 2 of node 5: the links on its port), ``node5-node6`` (the bundle between two neighbours,
either order; ``node5-node6#1``: cable 1 of it alone). Counts (``tier:count``): ``link`` (neighbour bundles
across the bisection cut first, where they hurt most), ``node`` and ``nic`` (node 0's NICs before node 1's) in
index order.

Method (the torus graph, one vertex per node, one edge per neighbour bundle of its live cables; at most
``MAX_NODES`` nodes):

* **Cut off**: nodes lost, and the nodes outside the component holding the most live nodes. A torus has no
  path around a lost node other than through its neighbours, which the graph has.
* **Degraded**: GPUs of connected nodes on a ring that lost a cable (a NIC's or a cable) or a node, slower for
  every node of it (``core.fabric.torus.TorusWiring.degraded_nodes``, the rule the single points' rows count by).
* **Bisection** (one direction): the closed form (``bisection_links``) less the cables lost across the worst
  balanced cut: two slabs of a narrowest cut's dimension (``cut_dimensions``, all three of a cube's) at every place
  along its rings (``_cut_share``); one lost link of any of them leaves ``(B w - 1) / (B w)``.
* **busbw, step time**: the collective model (``core.perf.collectives``, ``core.perf.training``), the numbers every
  other page shows, on a degraded copy of the plan (``degraded_plan``) whose NIC rate keeps the torus's surviving
  share: for all-reduce and the training step the rings per dimension's (``_ring_share``: a dimension with a lost
  cable runs at its worst ring's share, ``w_left / w``, or half when a ring lost a whole bundle or a node, as a
  line, ``link_lost``), for all-to-all the bisection's.
"""

from __future__ import annotations

from collections import Counter

import networkx as nx
import numpy as np

from core.analysis.failure.spec import _NIC
from core.analysis.failure.whatif import BUSBW_BYTES, FailureResult, _busbw, _nothing_failed, _steps, degraded_plan
from core.errors import InputError, shown
from core.fabric import torus
from core.fabric.wiring import Wiring, wiring_of
from core.i18n import _
from core.units import percent

MAX_NODES = 4096
"""Most nodes the graph what-if of a torus measures (max-flow on the node graph)."""
TIERS = ("node", "nic", "link")


class _Torus:
    """The torus of a plan as arrays: neighbour pairs, their dimension, each end's ports."""

    def __init__(self, plan):
        resolved = plan.resolved
        self.wiring = wiring_of(plan.fabric, resolved.nodes, resolved.nics_per_node)
        self.dims, self.width = self.wiring.dims, self.wiring.width
        self.dim, self.a, self.b = self.wiring.pair_arrays()
        self.index = {(int(x), int(y)): i for i, (x, y) in enumerate(zip(self.a.tolist(), self.b.tolist()))}
        self.gbps = self.wiring.port_gbps
        self.nics = resolved.nics_per_node

    def bundle(self, x: int, y: int) -> int | None:
        """Index of the bundle between nodes ``x`` and ``y`` (either order), None if they are not neighbours."""
        return self.index.get((x, y), self.index.get((y, x)))

    def port_at(self, bundle: int, node: int, lane: int) -> int:
        """Port ordinal (= NIC) of ``lane`` of ``bundle`` at ``node``: the + end's + slot, the - end's - slot."""
        step = 1 if int(self.a[bundle]) == node else -1
        return self.wiring.port(int(self.dim[bundle]), step, lane)

    def cut_order(self) -> list[int]:
        """Bundles across the bisection's cut first (the slab boundary of the cut dimension), then the rest."""
        i = torus.cut_dimension(self.dims)
        k = self.dims[i]
        position = self.wiring.coords(self.a)[i]
        crossing = (self.dim == i) & ((position == k // 2 - 1) | (position == k - 1))
        return np.flatnonzero(crossing).tolist() + np.flatnonzero(~crossing).tolist()


def _resolve(t: _Torus, failures: list[str]) -> list[tuple[str, tuple, bool]]:
    """``(tier, key, chosen)`` of every failed element: node ``(n,)``, nic ``(n, k)``, cable ``(bundle, lane)``."""
    out: list[tuple[str, tuple, bool]] = []
    nodes = t.wiring.nodes
    for text in failures:
        spec = str(text).strip()
        tier, _sep, rest = spec.partition(":")
        if rest and tier in TIERS:
            if not rest.isdigit() or int(rest) < 1:
                raise InputError(_("{spec}: expected {tier}:COUNT with a count of at least 1").format(
                    spec=shown(spec), tier=tier))
            out += _counted(t, tier, int(rest), spec)
            continue
        out += _named(t, spec, nodes)
    return out


def resolve(plan, failures) -> list[tuple[str, tuple, bool]]:
    """``(tier, key, chosen)`` of every element ``failures`` name or choose (``core.analysis.failure.spec
    .resolve_failures`` of a torus); ``InputError`` for bad specs."""
    return _resolve(_Torus(plan), list(failures))


def tiers_of(plan) -> tuple[str, ...]:
    """The tiers a torus has elements of (``core.analysis.failure.spec.tiers_for``)."""
    return TIERS


def _counted(t: _Torus, tier: str, count: int, spec: str) -> list[tuple[str, tuple, bool]]:
    """The first ``count`` elements of ``tier``."""
    total = {"node": t.wiring.nodes, "nic": t.wiring.nodes * t.nics, "link": len(t.a)}[tier]
    if count > total:
        raise InputError(_("{spec}: the torus has {total} of them").format(spec=shown(spec), total=f"{total:,}"))
    if tier == "node":
        return [("node", (n,), True) for n in range(count)]
    if tier == "nic":
        return [("nic", divmod(i, t.nics), True) for i in range(count)]
    return [("link", (b, lane), True) for b in t.cut_order()[:count] for lane in range(t.width)]


def _named(t: _Torus, spec: str, nodes: int) -> list[tuple[str, tuple, bool]]:
    """One named element (``node5``, ``node5.nic2``, ``node5-node6``, ``node5-node6#1``)."""
    node = Wiring.parse_node(spec)
    if node is not None and node < nodes:
        return [("node", (node,), False)]
    found = _NIC.match(spec)
    if found and int(found[1]) < nodes and int(found[2]) < t.nics:
        return [("nic", (int(found[1]), int(found[2])), False)]
    ends, _hash, lane = spec.partition("#")
    first, _dash, second = ends.partition("-")
    x, y = Wiring.parse_node(first), Wiring.parse_node(second)
    bundle = t.bundle(x, y) if x is not None and y is not None else None
    if bundle is not None and (not _hash or lane.isdigit() and int(lane) < t.width):
        lanes = [int(lane)] if _hash else range(t.width)
        return [("link", (bundle, k), False) for k in lanes]
    from core.analysis.failure.spec import UnknownElement

    raise UnknownElement(spec)  # said with the torus's examples (spec.unknown_element)


def _graph(t: _Torus, lost_nodes: set[int], live: np.ndarray) -> nx.Graph:
    """The node graph with ``live`` cables per bundle (edges of none dropped) and ``lost_nodes`` removed."""
    graph = nx.Graph()
    graph.add_nodes_from(n for n in range(t.wiring.nodes) if n not in lost_nodes)
    for x, y, count in zip(t.a.tolist(), t.b.tolist(), live.tolist()):
        if count and x not in lost_nodes and y not in lost_nodes:
            graph.add_edge(x, y, capacity=count)
    return graph


def _cut_share(t: _Torus, live: np.ndarray, lost_nodes: set[int]) -> float:
    """Share of the bisection left: the worst balanced cut over the narrowest cut's dimensions
    (``torus.cut_dimensions``) and every place along their rings, two slabs of ``k // 2`` layers; every node lies on
    one side, so the cut keeps exactly the live cables of the bundles across its two boundaries (a lost node's
    none): ``cost - lost across`` over ``bisection_links x w``."""
    gone = np.zeros(t.wiring.nodes, dtype=bool)
    gone[list(lost_nodes)] = True
    left = np.where(gone[t.a] | gone[t.b], 0, live)
    position = t.wiring.coords(t.a)
    healthy = torus.bisection_links(t.dims) * t.width
    worst = healthy
    for i in torus.cut_dimensions(t.dims):
        k, along = t.dims[i], t.dim == i
        for start in range(max(1, k // 2)):  # slab from ``start``: boundaries after start - 1 and start + k//2 - 1
            across = along & ((position[i] == (start - 1) % k) | (position[i] == (start + k // 2 - 1) % k))
            worst = min(worst, healthy - int(t.width * across.sum() - left[across].sum()))
    return max(worst, 0) / healthy if healthy else 0.0


def what_if_torus(plan, failures, job=None) -> FailureResult:
    """Fail ``failures`` (module docstring) on the torus of ``plan``; ``job`` (a ``core.perf.training.TrainingJob``)
    adds the training step time, healthy and failed."""
    if not failures:
        raise _nothing_failed("node0-node1")
    if plan.resolved.nodes > MAX_NODES:
        raise InputError(_("The torus what-if measures up to {most} nodes on its graph; this design has {nodes}.")
                         .format(most=f"{MAX_NODES:,}", nodes=f"{plan.resolved.nodes:,}"))
    t = _Torus(plan)
    elements = _resolve(t, list(failures))
    lost_nodes = {key[0] for tier, key, _c in elements if tier == "node"}
    lost = Counter()  # bundle -> lanes lost
    for tier, key, _chosen in elements:
        if tier == "link":
            lost[key[0]] += 1
        elif tier == "nic":
            node, nic = key
            for bundle in np.flatnonzero((t.a == node) | (t.b == node)).tolist():
                for lane in range(t.width):
                    if t.port_at(bundle, node, lane) == nic:
                        lost[bundle] += 1
    live = np.full(len(t.a), t.width)
    for bundle, count in lost.items():
        live[bundle] = max(0, t.width - count)
    graph = _graph(t, lost_nodes, live)
    main = max(nx.connected_components(graph), key=len, default=set())
    cut = t.wiring.nodes - len(main)
    gpn = plan.resolved.gpus_per_node
    share = _cut_share(t, live, lost_nodes)
    healthy_bisection = plan.bandwidth.bisection_tbits_one_direction
    slowed = t.wiring.degraded_nodes(((int(t.dim[b]), int(t.a[b])) for b in lost), lost_nodes)
    degraded = len(main.intersection(slowed.tolist()))
    ring = _ring_share(t, live, lost_nodes)
    gpus, connected = plan.resolved.gpus, len(main) * gpn
    rings, cut_share = degraded_plan(plan, ring, 1.0, 1.0), degraded_plan(plan, share, 1.0, 1.0)
    alive = len(main) >= 2
    # the training step only with a job (the CLI without --model computes none, so its note does not name one)
    notes = [(_("Torus: busbw and the training step on a degraded copy of the design whose NIC rate keeps the rings "
                "per dimension's surviving share ({ring}; a ring that lost a node or a whole bundle runs as a line, at "
                "half), all-to-all at the bisection's ({cut}).") if job is not None else
              _("Torus: busbw on a degraded copy of the design whose NIC rate keeps the rings per dimension's "
                "surviving share ({ring}; a ring that lost a node or a whole bundle runs as a line, at half), "
                "all-to-all at the bisection's ({cut}).")).format(ring=percent(ring), cut=percent(share))]
    method = ("networkx node graph; cut off by components; bisection: the worst balanced slab cut over the narrowest "
              "cut's dimensions and places, live cables across it / healthy; "
              "core.perf all-reduce (and all-to-all) of 1 GiB"
              + (" and the training step" if job is not None else "") + " on the connected "
              f"GPUs, NIC rate scaled to the rings per dimension's surviving share ({ring:.3f}; all-to-all: the "
              f"bisection's, {share:.3f})")
    healthy_run, failed_run = _steps(plan, rings, job, gpus, connected, notes)
    return FailureResult(
        failed=tuple({"element": _element(t, tier, key), "tier": tier, "chosen": chosen, "redundant": False}
                     for tier, key, chosen in elements),
        gpus=gpus, nodes=t.wiring.nodes, gpus_disconnected=cut * gpn, nodes_disconnected=cut,
        gpus_degraded=degraded * gpn, gpus_via_pxn=0,
        bisection_tbits_one_direction=healthy_bisection * share,
        healthy_bisection_tbits_one_direction=healthy_bisection,
        stages_tbits={"torus": {"healthy": healthy_bisection, "remaining": healthy_bisection * share}},
        busbw_gbytes=_busbw(rings, connected) if alive else None, healthy_busbw_gbytes=_busbw(plan, gpus),
        busbw_method=method,
        alltoall_busbw_gbytes=_busbw(cut_share, connected, "all-to-all") if alive and share else None,
        healthy_alltoall_busbw_gbytes=_busbw(plan, gpus, "all-to-all"),
        step_time_s=failed_run and failed_run.step_time_s, healthy_step_time_s=healthy_run and healthy_run.step_time_s,
        days_to_train=failed_run and failed_run.days_to_train,
        healthy_days_to_train=healthy_run and healthy_run.days_to_train, notes=tuple(notes))


def _element(t: _Torus, tier: str, key: tuple) -> str:
    """The name of a failed element."""
    node = Wiring.node_id
    if tier == "node":
        return node(key[0])
    if tier == "nic":
        return f"{node(key[0])}.nic{key[1]}"
    bundle, lane = key
    x, y = sorted((int(t.a[bundle]), int(t.b[bundle])))
    return f"{node(x)}-{node(y)}" + (f"#{lane}" if t.width > 1 else "")


def _ring_share(t: _Torus, live: np.ndarray, lost_nodes: set[int]) -> float:
    """Share of its healthy NIC bandwidth an all-reduce keeps on the failed torus: the healthy rings per dimension's
    time (``torus.allreduce_phases``) over the failed one, where a dimension with a lost cable runs at its worst
    ring's share ``w_left / w`` and a ring that lost a whole bundle, or any ring when a node is lost, runs as a line
    (twice as long)."""
    phases = torus.allreduce_phases(t.dims, t.width, t.gbps, BUSBW_BYTES)
    slow = []
    for i, phase in enumerate(phases):
        left = live[t.dim == i]
        worst = int(left.min()) if len(left) else t.width
        broken = worst == 0 or bool(lost_nodes)  # a lost node breaks a ring of every dimension
        slow.append(phase * (2.0 if broken else t.width / worst))
    return sum(phases) / sum(slow)
