"""The failure what-if of a design with pods on the whole fabric: every pod's servers and leaves under the shared
spines (``core.fabric.podwiring``), some leaves and shared spines lost, what each pod loses.

Elements are the wiring's device ids: a pod's leaf ``pod2.p0.leaf1``, a shared spine ``spine0``. Per pod, in closed
form from the wiring (O(groups x leaves per group + leaves), never a graph):

* **GPUs cut off**: a server is cut off when every leaf it is cabled to is lost; when every shared spine is lost
  the pods' leaf groups are apart, and the GPUs outside the group (scalable unit) holding the most GPUs are cut
  off too (as the single points count the GPUs lost: those outside the part holding the most GPUs).
* **Servers degraded**: servers still connected that lost some of their leaves (a rail's NIC ports).
* **Injection** [Gb/s per direction]: the node-leaf capacity of the pod's servers to leaves that live.
* **To the spines** [Gb/s per direction]: the most the pod's servers can send into the shared spine layer, the
  max-flow from all its servers to the live spines: each live leaf passes the lesser of its live servers' links
  and its links to live spines (``u_p / N`` per spine at the pod's uplink speed). Traffic between pods crosses it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from core.analysis.pods import MixedPlan, mixed_wiring
from core.errors import InputError
from core.i18n import _


class PodLoss(BaseModel):
    """What one pod loses (module docstring); bandwidths per direction [Gb/s]."""

    model_config = ConfigDict(frozen=True)

    pod: int
    """The pod's number (1-based)."""
    system: str
    gpus: int
    gpus_cut_off: int
    nodes_cut_off: int
    nodes_degraded: int
    injection_gbps: float
    healthy_injection_gbps: float
    spine_gbps: float
    healthy_spine_gbps: float


def pod_elements(mixed: MixedPlan) -> list[str]:
    """Every element the whole-fabric what-if takes: the shared spines, then every pod's leaves (device ids)."""
    wiring = mixed_wiring(mixed)
    return [wiring.spine_id(j) for j in range(mixed.fabric.spines)] + [
        wiring.leaf_id(i, k) for i, own in enumerate(wiring.wirings) for k in range(own.leaves)]


def whole_failures(mixed: MixedPlan, failed: list[str]) -> list[str]:
    """The whole-fabric elements (``pod_elements`` ids) of the failure what-if's ``failed`` elements of pod 1 planned
    alone: its spines are the shared spines, its leaves pod 1's (``PodsWiring.whole_of_alone``); the others (a NIC,
    a rack, a spine the shared layer does not have) have no whole-fabric counterpart here and are left out."""
    wiring = mixed_wiring(mixed)
    out = []
    for element in failed:
        whole = wiring.whole_of_alone(element)
        if whole is not None and whole not in out:
            out.append(whole)
    return out


def alone_note(mixed: MixedPlan, plan) -> str:
    """What the failure what-if of pod 1 planned alone (``plan``, its ``FabricPlan`` tiers) draws against the design's
    shared spine layer: its own spines' count and model, and the shared spines'."""
    f = plan.fabric  # pod 1's own tiers
    return _("Pod 1 ({system}) is drawn and analysed as if alone, with the spines it would have alone ({count} x "
             "{model}); the design's shared spines are {shared} x {shared_model}. A spine or leaf failed here is "
             "failed on the whole fabric above too.").format(
        system=plan.resolved.system.id, count=f.spine_count, model=plan.resolved.tier_switches["spine"].id, shared=mixed.fabric.spines,
        shared_model=mixed.fabric.spine_switch)


def _lost(mixed: MixedPlan, failed: list[str]) -> tuple[set[int], list[set[int]]]:
    """The lost shared spines and each pod's lost leaves (indices) of ``failed`` device ids; ``InputError`` for an
    id that is not a shared spine or a pod's leaf."""
    wiring = mixed_wiring(mixed)
    spines = {wiring.spine_id(j): j for j in range(mixed.fabric.spines)}
    lost_spines, lost_leaves = set(), [set() for _w in wiring.wirings]
    for element in failed:
        found = wiring.parse(element)
        if element in spines:
            lost_spines.add(spines[element])
            continue
        own = wiring.wirings[found[0]] if found is not None else None
        parsed = own.parse(found[1]) if own is not None else None
        if parsed is None or parsed[0] != "leaf" or parsed[1] or parsed[2] or parsed[3] >= own.leaves:
            raise InputError(_("Unknown element {element}: a shared spine (such as {spine}) or a pod's leaf (such as "
                               "{leaf}).").format(element=element, spine=wiring.spine_id(0), leaf=wiring.leaf_id(0, 0)))
        lost_leaves[found[0]].add(parsed[3])
    return lost_spines, lost_leaves


def pods_what_if(mixed: MixedPlan, failed: list[str]) -> list[PodLoss]:
    """What each pod of ``mixed`` loses when the ``failed`` leaves and shared spines are lost (module docstring),
    in ``mixed.fabric.pods`` order."""
    wiring = mixed_wiring(mixed)
    f = mixed.fabric
    lost_spines, lost_leaves = _lost(mixed, failed)
    live_spines = f.spines - len(lost_spines)
    groups = []  # (pod position, group, connected GPUs) of every leaf group, for the largest part without spines
    out = []
    for i, own in enumerate(wiring.wirings):
        pod, gpn = f.pods[i], mixed.plans[i].resolved.gpus_per_node
        node_links = own.links_per_node_leaf * own.port_gbps  # one server to one of its leaves [Gb/s]
        up = pod.links_per_leaf_spine_pair * pod.uplink_speed_gbps  # one leaf to one shared spine [Gb/s]
        cut = degraded = 0
        injection = healthy_injection = spine = healthy_spine = 0.0
        for g in range(own.groups):
            nodes, leaves = own.group_nodes(g), own.leaves_of_group(g)
            live = [k for k in leaves if k not in lost_leaves[i]]
            healthy_injection += nodes * len(leaves) * node_links
            injection += nodes * len(live) * node_links
            cut += 0 if live else nodes
            degraded += nodes if live and len(live) < len(leaves) else 0
            healthy_spine += len(leaves) * min(nodes * node_links, f.spines * up)
            spine += len(live) * min(nodes * node_links, live_spines * up)
            groups.append((i, g, nodes * gpn if live else 0))
        out.append(dict(pod=pod.index + 1, system=pod.system, gpus=pod.gpus, nodes_cut_off=cut,
                        gpus_cut_off=cut * gpn, nodes_degraded=degraded, injection_gbps=injection,
                        healthy_injection_gbps=healthy_injection, spine_gbps=spine, healthy_spine_gbps=healthy_spine))
    if not live_spines:  # the leaf groups are apart: only the one holding the most GPUs is kept
        keep = max(groups, key=lambda item: item[2])
        for i, g, gpus in groups:
            if gpus and (i, g) != keep[:2]:
                own, gpn = wiring.wirings[i], mixed.plans[i].resolved.gpus_per_node
                out[i]["nodes_cut_off"] += own.group_nodes(g)
                out[i]["gpus_cut_off"] += own.group_nodes(g) * gpn
                if len([k for k in own.leaves_of_group(g) if k not in lost_leaves[i]]) < len(own.leaves_of_group(g)):
                    out[i]["nodes_degraded"] -= own.group_nodes(g)
    return [PodLoss(**row) for row in out]


def loss_rows(losses: list[PodLoss], unit: str) -> list[dict[str, str]]:
    """A row per pod of ``losses`` for a table, in the current language: the pod and its system, GPUs cut off of
    its GPUs, servers degraded, injection and bandwidth into the shared spines (left of healthy, in ``unit``:
    ``core.units.bandwidth``, per direction)."""
    from core.i18n import number
    from core.units import bandwidth

    def left(now: float, healthy: float) -> str:
        return _("{now} of {healthy}").format(now=bandwidth(now, unit), healthy=bandwidth(healthy, unit))

    return [{_("Pod"): _("pod {pod}").format(pod=loss.pod) + f" ({loss.system})",
             _("GPUs cut off"): _("{lost} of {gpus}").format(lost=number(loss.gpus_cut_off), gpus=number(loss.gpus)),
             _("Servers degraded"): number(loss.nodes_degraded),
             _("Injection (1 dir)"): left(loss.injection_gbps, loss.healthy_injection_gbps),
             _("Into the shared spines (1 dir)"): left(loss.spine_gbps, loss.healthy_spine_gbps)}
            for loss in losses]
