"""Single points of failure of a design with pods: the whole fabric, every pod under the shared spines.

``core.analysis.spof.single_points`` sends a design with pods here. The switch tiers are read from the pods' wiring
(``core.fabric.podwiring``): one graph of every pod's servers (folded by scalable unit, weighted by their GPUs, as
``core.analysis.spof_graph`` folds one fabric), every pod's leaves and the shared spines, an edge per bundle; a
leaf or spine is a single point exactly when it is a cut vertex, a cable when its bundle is one cable and a bridge
(``spof_graph``'s Tarjan search), the GPUs lost those outside the part holding the most GPUs. Pods on three tiers
(``core.fabric.podcore``): every pod's own spines and the shared cores instead of the shared spines, the
spine-core bundles too. What lies below the
switches is each pod's own and is taken from each pod's own analysis (its plan alone): a lone NIC, a rack's only
power feed, the parts inside a node or rack (NVSwitch chips and trays) and the degrading classes, each named with
its pod's prefix (``pod2.rack0.nvswitch-tray0``: ``PodsWiring.local_id``). The remedies of the shared fabric's single points are named but not
priced (``remedy_capex_usd`` None: the pods' bill is not re-planned per remedy).
"""

from __future__ import annotations

import numpy as np

from core.analysis.pods import MixedPlan, mixed_wiring
from core.analysis.spof_graph import _bicliques, _cuts, _Graph
from core.i18n import _

SWITCH_TIERS = frozenset({"leaf", "spine", "core", "link", "global"})
"""Tiers the whole fabric's graph decides (the pods' own analyses decide the others)."""
REMEDIES = {"leaf": "plane", "spine": "n_plus_1", "link": "plane"}
"""Remedy key (``core.analysis.spof.REMEDY_LABELS``) of a single point of the shared fabric, by tier."""


def _graph(mixed: MixedPlan) -> tuple[_Graph, list[str]]:
    """The folded graph of ``mixed`` (module docstring) and each vertex's device id (a server block: ``""``)."""
    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
    planes = range(wiring.planes)
    blocks: list[tuple[int, list[int]]] = []  # (GPUs, leaf vertices) of every server vertex
    leaf_base, leaf_count = [], 0
    for own in wiring.wirings:
        leaf_base.append(leaf_count)
        leaf_count += own.leaves  # per plane: plane q's leaves after plane q - 1's
    for i, own in enumerate(wiring.wirings):
        gpn = mixed.plans[i].resolved.gpus_per_node
        for g in range(own.groups):
            leaves = sorted({q * leaf_count + leaf_base[i] + k for q in planes for k in own.leaves_of_group(g)})
            blocks += ([(own.group_nodes(g) * gpn, leaves)] if len(leaves) > 1
                       else [(gpn, leaves)] * own.group_nodes(g))  # one leaf: its loss parts the nodes too
    first_leaf, first_spine = len(blocks), len(blocks) + leaf_count * wiring.planes
    spines = len(_spine_ids(wiring, 0))  # per plane
    spine_ids = [device for q in planes for device in _spine_ids(wiring, q)]
    ids = [""] * len(blocks) + [wiring.leaf_id(i, k, q) for q in planes for i, own in enumerate(wiring.wirings)
                                for k in range(own.leaves)] + spine_ids
    cables: dict = {}
    for b, (_gpus, leaves) in enumerate(blocks):
        for leaf in leaves:
            cables[b, first_leaf + leaf] = None  # a block's ports: never one cable
    lower, upper, count = [], [], []
    for q in planes:
        for i, own in enumerate(wiring.wirings):
            pair = mixed.fabric.pods[i].links_per_leaf_spine_pair
            for k in range(own.leaves):
                for j in _spines_of_pod(wiring, i):
                    lower.append(first_leaf + q * leaf_count + leaf_base[i] + k)
                    upper.append(first_spine + q * spines + j)
                    count.append(pair)
    if wiring.three_tiers:  # every pod spine to the cores of its group, the cores after the spines
        ids += [wiring.shared_core_id(k, q) for q in planes for k in range(mixed.fabric.cores)]
        for q in planes:
            for i, pod in enumerate(mixed.fabric.pods):
                for local, j in enumerate(_spines_of_pod(wiring, i)):
                    for core in wiring.cores_of_spine(local):
                        lower.append(first_spine + q * spines + j)
                        upper.append(first_spine + len(spine_ids) + q * mixed.fabric.cores + core)
                        count.append(pod.links_per_spine_core_pair)
    lo, hi, n = _bicliques(np.array(lower), np.array(upper), np.array(count), cables)
    for u, v, c in zip(lo.tolist(), hi.tolist(), n.tolist()):
        cables[u, v] = c
    adj: list[list[int]] = [[] for _v in ids]
    for u, v in cables:
        adj[u].append(v)
        adj[v].append(u)
    names = [("su", b) for b in range(len(blocks))] + [("leaf", k) for k in range(leaf_count * wiring.planes)] + [
        ("spine", j) for j in range(len(spine_ids))] + [("core", k) for k in range(mixed.fabric.cores_total)]
    return _Graph([gpus for gpus, _l in blocks] + [0] * (len(ids) - len(blocks)), adj, cables, names, {}), ids


def _spine_ids(wiring, q: int) -> list[str]:
    """Ids of the spines of plane ``q`` of the whole fabric in graph order: the shared spines, or on three tiers every
    pod's own spines pod by pod (``pod2.p0.spine0``)."""
    if not wiring.three_tiers:
        return [wiring.shared_spine_id(j, q) for j in range(wiring.fabric.spines)]
    return [wiring.own_spine_id(i, k, q) for i, pod in enumerate(wiring.fabric.pods) for k in range(pod.own_spines)]


def _spines_of_pod(wiring, pod: int) -> range:
    """Positions in ``_spine_ids`` (of any plane) of the spines the leaves of the pod at position ``pod`` reach."""
    if not wiring.three_tiers:
        return range(wiring.fabric.spines)
    first = sum(p.own_spines for p in wiring.fabric.pods[:pod])
    return range(first, first + wiring.fabric.pods[pod].own_spines)


def fabric_cuts(mixed: MixedPlan) -> list[tuple[str, str, int]]:
    """``(tier, element, GPUs lost)`` of every leaf, shared spine and one-cable leaf-spine bundle of ``mixed`` whose
    single loss cuts GPUs off (module docstring); elements named by their device ids (``pod2.p0.leaf1``,
    ``pod2.p0.leaf1-spine0``: ``PodsWiring`` ids, each taken by ``core.analysis.podwhatif.pods_what_if``)."""
    g, ids = _graph(mixed)
    vertices, bridges = _cuts(g)
    out = [(g.names[v][0], ids[v], lost) for v, lost in sorted(vertices.items()) if g.names[v][0] != "su" and lost]
    out += [("link", f"{ids[u]}-{ids[v]}", lost) for (u, v), lost in sorted(bridges.items())
            if lost and g.cables[u, v] == 1 and ids[u] and ids[v]]
    return out


def _uplink_degrading(mixed: MixedPlan) -> list:
    """Per pod, the leaf-spine loss that lowers a leaf's uplinks without cutting a GPU off: a whole bundle to one of
    several shared spines (``(N - 1) / N`` left; on three tiers the pod's own spines), or one cable of a leaf's one
    bundle (``(c - 1) / c``), as ``core.analysis.spof`` lists a single fabric's."""
    from core.analysis.spof import Degrading

    wiring, out = mixed_wiring(mixed, three_tiers=True, planes=True), []
    for i, own in enumerate(wiring.wirings):
        pod, gpn = mixed.fabric.pods[i], mixed.plans[i].resolved.gpus_per_node
        spines = pod.own_spines if wiring.three_tiers else mixed.fabric.spines
        pair = pod.links_per_leaf_spine_pair
        gpus = own.group_nodes(0) * gpn // max(1, own.leaves_per_group if not own.tor else 1)
        example = wiring.link_id(i, 0, 0)
        leaves = own.leaves * wiring.planes  # every plane's
        if spines > 1:
            out.append(Degrading(tier="link", example=example, count=leaves * spines, effect="uplink_capacity",
                                 gpus_affected=gpus, share_left=(spines - 1) / spines))
        elif pair > 1:
            out.append(Degrading(tier="link", example=example, count=leaves * pair, effect="uplink_capacity",
                                 gpus_affected=gpus, share_left=(pair - 1) / pair))
    return out


def pods_single_points(mixed: MixedPlan):
    """``core.analysis.spof.single_points`` of a design with pods (module docstring): the whole fabric's cuts, and
    each pod's own analysis (its plan alone) for what lies below the switches; a ``SpofResult``."""
    from core.analysis.spof import SpofElement, SpofResult, single_points

    elements, degrading, notes = [], [], []
    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
    for i, p in enumerate(mixed.plans):
        own = single_points(p)  # named as the pod's own devices are on the whole fabric: pod2.node0.nic1
        elements += [e.model_copy(update={"element": wiring.local_id(i, e.element)}) for e in own.elements
                     if e.tier not in SWITCH_TIERS]
        degrading += [d.model_copy(update={"example": wiring.local_id(i, d.example)}) for d in own.degrading
                      if d.tier not in SWITCH_TIERS]
        notes += [note for note in own.notes if note not in notes]
    shared = [SpofElement(element=element, tier=tier, gpus_lost=lost, remedy=REMEDIES.get(tier, "plane"),
                          remedy_capex_usd=None) for tier, element, lost in fabric_cuts(mixed)]
    notes.insert(0, _("A design with pods: the leaves, the {spines} shared spines and their cables are checked on the "
                      "whole fabric (every pod under the shared spines; their remedies are not priced); NICs, power "
                      "feeds and the parts inside a node or rack are each pod's own.").format(
        spines=mixed.fabric.spines_total) if not wiring.three_tiers else _(
        "A design with pods on three tiers: the leaves, the pods' own spines, the {cores} shared cores and their "
        "cables are checked on the whole fabric (their remedies are not priced); NICs, power feeds and the parts "
        "inside a node or rack are each pod's own.").format(cores=mixed.fabric.cores_total))
    return SpofResult(elements=tuple(shared + elements), notes=tuple(notes),
                      degrading=tuple(degrading + _uplink_degrading(mixed)))
