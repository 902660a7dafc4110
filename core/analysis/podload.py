"""Link load of uniform traffic over the shared spines of a design with pods: every pod's leaf-spine links, per pod.

Uniform traffic (in expectation): every GPU sends at its share of its server's node-leaf capacity (line rate,
``links_per_node_leaf x port`` to each of its group's leaves / GPUs per server) [Gb/s per direction], spread evenly
over every other GPU of the whole fabric (all pods). Under adaptive routing:

* traffic to a GPU of the same leaf group (scalable unit, or rack on top of rack) stays below the spines; the rest
  of a group's traffic goes up, spread evenly over the group's leaves and each leaf's uplinks (``u_p`` at the pod's
  uplink speed, ``u_p / N`` to every shared spine: ``core.fabric.podwiring``);
* the traffic into a group from every GPU outside it comes down the same way, onto the group's leaves' uplinks.

Per pod, the busiest leaf's uplinks up and down [Gb/s per direction] against their capacity. On several planes
(two tiers) every plane is loaded alike (each GPU offers each plane its ports' or rails' share there): the rows are one
plane's leaves.

**Pods on three tiers** (``core.fabric.podcore``): a leaf's uplinks go to its pod's own spines, the same rule
(``pods_spine_load``); traffic leaving the pod then climbs its spines' core uplinks (``pods_core_load``): the pod's
GPUs' traffic to every GPU of the other pods, spread evenly over its ``N_p`` spines and each spine's ``U_p``
uplinks at the pod's uplink speed, and the other pods' traffic into it comes down the same way. A pod of fast servers
sends more into a pod of slower uplinks than that pod sends back: the down direction of the slow pod loads most.
Expected values of the uniform pattern (``core.analysis.load``'s ``uniform`` draws one random permutation); no
ECMP hashing.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from core.analysis.pods import MixedPlan, mixed_wiring


class PodSpineLoad(BaseModel):
    """One pod's leaf-spine links under uniform traffic (module docstring); loads per direction [Gb/s]."""

    model_config = ConfigDict(frozen=True)

    pod: int
    """The pod's number (1-based)."""
    system: str
    up_gbps: float
    """Offered to the busiest leaf's uplinks, up (to the shared spines)."""
    down_gbps: float
    """Offered to the busiest leaf's uplinks, down (from the shared spines)."""
    capacity_gbps: float
    """One leaf's uplinks to the shared spines."""

    @property
    def utilization(self) -> float:
        """The larger of the up and down loads over the capacity (above 1: overloaded)."""
        return max(self.up_gbps, self.down_gbps) / self.capacity_gbps if self.capacity_gbps else 0.0


def _groups(mixed: MixedPlan) -> list[tuple[int, int, int, float]]:
    """``(pod position, GPUs, leaves, rate per GPU [Gb/s per direction])`` of every leaf group of every pod."""
    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)  # every plane alike: one plane's leaves
    out = []
    for i, own in enumerate(wiring.wirings):
        gpn = mixed.plans[i].resolved.gpus_per_node
        for g in range(own.groups):
            nodes, leaves = own.group_nodes(g), len(own.leaves_of_group(g))
            if nodes:
                out.append((i, nodes * gpn, leaves, leaves * own.links_per_node_leaf * own.port_gbps / gpn))
    return out


def pods_spine_load(mixed: MixedPlan) -> list[PodSpineLoad]:
    """Per pod of ``mixed`` (in ``mixed.fabric.pods`` order), the busiest leaf's uplinks under uniform traffic over
    the whole fabric (module docstring)."""
    groups = _groups(mixed)
    gpus = sum(g[1] for g in groups)
    sent = sum(g[1] * g[3] for g in groups)  # every GPU's rate [Gb/s per direction]
    out = []
    for i, pod in enumerate(mixed.fabric.pods):
        up = down = 0.0
        for _pod, n, leaves, rate in (g for g in groups if g[0] == i):
            outside = (gpus - n) / max(1, gpus - 1)  # share of a sender's peers outside its group
            up = max(up, n * rate * outside / leaves)
            down = max(down, (sent - n * rate) * n / max(1, gpus - 1) / leaves)
        out.append(PodSpineLoad(pod=pod.index + 1, system=pod.system, up_gbps=up, down_gbps=down,
                                capacity_gbps=pod.uplinks_per_leaf * pod.uplink_speed_gbps))
    return out


def pods_core_load(mixed: MixedPlan) -> list[PodSpineLoad]:
    """Pods on three tiers: per pod of ``mixed`` (in ``mixed.fabric.pods`` order), one own spine's core uplinks under
    uniform traffic over the whole fabric (module docstring; every spine of a pod carries the same share), as
    ``PodSpineLoad`` rows of a spine's uplinks (``capacity_gbps``: its ``U_p`` uplinks at the pod's uplink speed);
    empty on two tiers."""
    if mixed.fabric.tiers != 3:
        return []
    groups = _groups(mixed)
    gpus = sum(g[1] for g in groups)
    sent = sum(g[1] * g[3] for g in groups)  # every GPU's rate [Gb/s per direction]
    out = []
    for i, pod in enumerate(mixed.fabric.pods):
        mine = sum(g[1] for g in groups if g[0] == i)
        own = sum(g[1] * g[3] for g in groups if g[0] == i)
        up = own * (gpus - mine) / max(1, gpus - 1) / pod.own_spines  # to the other pods' GPUs, over its spines
        down = (sent - own) * mine / max(1, gpus - 1) / pod.own_spines
        out.append(PodSpineLoad(pod=pod.index + 1, system=pod.system, up_gbps=up, down_gbps=down,
                                capacity_gbps=pod.spine_uplinks * pod.uplink_speed_gbps))
    return out
