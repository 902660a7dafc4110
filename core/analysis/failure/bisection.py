"""Bisection of a failed design, per stage and plane (``core.analysis.failure``, "Bisection").

The worst balanced cut puts every failed leaf, NIC and (with several pods) spine on one side; failed spines of a
two-tier fabric and failed cores sit above the cut and reduce both sides. Gb/s, one direction.
"""

from __future__ import annotations

from core.analysis.failure.shape import Shape
from core.analysis.failure.switches import _Fabric
from core.fabric.bandwidth import tier_capacities_gbits
from core.i18n import N_
from core.plan import Plan

STAGES = ("injection", "leaf_up", "spine_up")
STAGE_LABELS = {"injection": N_("NIC injection"), "leaf_up": N_("leaf uplinks"), "spine_up": N_("spine uplinks"),
                "global": N_("global links"), "torus": N_("torus links across the cut")}
"""Stage keys of ``FailureResult.stages_tbits`` in words (``global``: the global links across the cut of a
Dragonfly+, ``core.analysis.failure.graphwhatif``; ``torus``: a torus's, ``core.analysis.failure.toruswhatif``)."""


class _Damage:
    """Capacity the failures take from one side of the cut, per ``(plane and island, stage)`` and per unit of the
    cut (a pod, a leaf group or a node: the finest unit the relevant stages share) [Gb/s, one direction]."""

    def __init__(self, shape: Shape, relevant: list[str]):
        self.shape = shape
        self.unit = "pod" if "spine_up" in relevant else ("group" if "leaf_up" in relevant else "node")
        self.half_units = {"pod": shape.pods, "group": shape.groups, "node": shape.nodes}[self.unit] // 2
        """Units on one side of a balanced cut (at least one is counted)."""
        self.by_stage: dict = {}

    def unit_of_node(self, n):
        """The cut's unit node ``n`` belongs to."""
        s, unit = self.shape, self.unit
        g = s.group_of_node(n)
        return ("pod", s.pod_of_group(g)) if unit == "pod" else (("group", g) if unit == "group" else ("node", n))

    def unit_of_leaf(self, k):
        """The cut's unit leaf ``k`` belongs to (a pod or a leaf group)."""
        s = self.shape
        g = s.group_of_leaf(k)
        return ("pod", s.pod_of_group(g)) if self.unit == "pod" else ("group", g)

    def hurt(self, pi, stage, u, gbits):
        """Add ``gbits`` [Gb/s] lost by unit ``u`` at ``stage`` of plane and island ``pi``."""
        if gbits > 0:
            self.by_stage.setdefault((pi, stage), {}).setdefault(u, 0.0)
            self.by_stage[(pi, stage)][u] += gbits


def _relevant_stages(shape: Shape) -> list[str]:
    """The stages a balanced cut crosses: NIC injection always, leaf uplinks with several leaf groups, spine
    uplinks with several pods of three tiers."""
    relevant = ["injection"]
    if "spine" in shape.roles and shape.groups > 1:
        relevant.append("leaf_up")
        if shape.pods > 1:  # one pod below three tiers
            relevant.append("spine_up")
    return relevant


def _leaf_usable(s: Shape, down_gbps, up_links):
    """What a leaf can carry up: its down ports [Gb/s] or its ``up_links`` uplinks, the smaller."""
    return min(down_gbps, up_links * s.up_gbps)


def _shared_factors(s: Shape, fab: _Fabric, relevant: list[str]) -> dict:
    """``(plane and island, stage) -> share`` of the stage's capacity both halves keep (a dead plane: 0; dead
    spines of a two-tier fabric or one pod, dead cores: above the cut, so both halves lose alike)."""
    dead = fab.dead
    shared: dict = {}
    full_down = s.nodes_per_group * s.links_per_node_leaf * s.port_gbps  # a full group's leaf (leaf_up: 2+ tiers)
    for pi in s.pis():
        p, i = pi
        if p in dead.planes:
            for stage in relevant:
                shared[(pi, stage)] = 0.0
            continue
        if "leaf_up" in relevant and s.pods == 1:  # the spines above every leaf: both halves lose alike
            dead_sp = fab.dead_spines_per_pod.get((p, i, 0), 0)
            live = (fab.pod_spines - dead_sp) * s.pair_links
            base = _leaf_usable(s, full_down, s.leaf_uplinks)
            shared[(pi, "leaf_up")] = _leaf_usable(s, full_down, live) / base if base else 1.0
        if "spine_up" in relevant:
            factors = []
            for j in range(s.spines_per_pod):
                alive = s.cores_per_group - fab.dead_cores_per_group.get((p, i, j), 0)
                up = s.spine_uplinks[0]
                down = s.leaves_per_pod * s.pair_links  # a full pod's spine
                factors.append(min(down, up * alive / s.cores_per_group) / min(down, up) if min(down, up) else 1.0)
            shared[(pi, "spine_up")] = sum(factors) / len(factors)
    return shared


def _injection_damage(s: Shape, fab: _Fabric, damage: _Damage) -> None:
    """NIC injection: every lost port of a node (its NIC dead, its leaf or plane dead), at the port speed."""
    w = s.wiring
    dead = fab.dead
    lost_nodes: dict = {}
    for p, i, k in dead.leaves:
        if p in dead.planes:
            continue
        g = w.group_of_leaf(k)
        first = g * w.nodes_per_group
        per_node = w.links_per_node_leaf
        for n in range(first, first + w.group_nodes(g)):
            lost_nodes.setdefault(n, {}).setdefault((p, i), 0)
            lost_nodes[n][(p, i)] += per_node
    for n, nics in dead.nics.items():
        for nic in nics:
            i = nic % w.islands
            lr = nic // w.islands
            g = w.group_of_node(n)
            for p in range(w.planes):
                if p in dead.planes or (p, i, w.leaf_of(g, lr)) in dead.leaves:
                    continue
                lost_nodes.setdefault(n, {}).setdefault((p, i), 0)
                lost_nodes[n][(p, i)] += 1
    for n, per_pi in lost_nodes.items():
        for pi, ports in per_pi.items():
            damage.hurt(pi, "injection", damage.unit_of_node(n), ports * w.port_gbps)


def _leaf_up_damage(s: Shape, fab: _Fabric, shared: dict, damage: _Damage) -> None:
    """Leaf uplinks: a dead leaf, a leaf with fewer live down ports or uplinks, or (with pods) fewer live spines;
    each touched leaf loses what it carried up healthy less what it carries now [Gb/s]."""
    w = s.wiring
    dead = fab.dead
    touched = {(p, i, k) for p, i, k in dead.leaves}
    for n, nics in dead.nics.items():
        g = w.group_of_node(n)
        for nic in nics:
            for p in range(w.planes):
                touched.add((p, nic % w.islands, w.leaf_of(g, nic // w.islands)))
    touched |= set(fab.leaf_lost)
    if w.pods > 1:  # a pod's dead spines hurt its own leaves (one pod: shared by both halves)
        for (p, i, pod), _c in fab.dead_spines_per_pod.items():
            for k in w.leaves_of_pod(pod):
                touched.add((p, i, k))
    for p, i, k in touched:
        pi = (p, i)
        if p in dead.planes:
            continue
        down = w.leaf_down_ports(k) * w.port_gbps
        factor = shared.get((pi, "leaf_up"), 1.0)
        base = _leaf_usable(s, down, w.leaf_uplinks) * factor
        if not fab.leaf_alive(p, i, k):
            now = 0.0
        else:
            g = w.group_of_leaf(k)
            first = g * w.nodes_per_group
            lost = 0
            for n in range(first, first + w.group_nodes(g)):
                for nic in dead.nics.get(n, ()):
                    if nic % w.islands == i and w.leaf_of(g, nic // w.islands) == k:
                        lost += 1
            live_down = down - lost * w.port_gbps
            now = _leaf_usable(s, live_down, fab.live_uplinks(p, i, k))
        damage.hurt(pi, "leaf_up", damage.unit_of_leaf(k), max(0.0, base - now))


def _spine_up_damage(s: Shape, fab: _Fabric, damage: _Damage) -> None:
    """Spine uplinks (three tiers, several pods): a dead spine, or a spine whose leaves, down cables or core
    cables were lost; each loses what it carried up healthy less what it carries now [Gb/s]."""
    w = s.wiring
    dead = fab.dead
    touched_spines = set(dead.spines) | set(fab.spine_up_lost) | set(fab.spine_down_lost)
    for p, i, k in dead.leaves:
        for sp in w.spines_of_leaf(k):
            touched_spines.add((p, i, sp))
    for p, i, k in touched_spines:
        if p in dead.planes:
            continue
        pi = (p, i)
        pod, j = divmod(k, w.spines_per_pod)
        pod_leaves = w.leaves_of_pod(pod)
        down_links = len(pod_leaves) * w.pair_links
        alive = w.cores_per_group - fab.dead_cores_per_group.get((p, i, j), 0)
        up = w.spine_uplinks[pod] * alive / w.cores_per_group
        base = min(down_links, up) * w.up_gbps
        if (p, i, k) in dead.spines:
            now = 0.0
        else:
            dead_leaves = sum(1 for leaf in pod_leaves if (p, i, leaf) in dead.leaves)
            lost_down = sum(n for leaf, n in fab.spine_down_lost.get((p, i, k), ()) if fab.leaf_alive(p, i, leaf))
            lost_up = sum(n for c, n in fab.spine_up_lost.get((p, i, k), ()) if (p, i, c) not in dead.cores)
            now = min(down_links - dead_leaves * w.pair_links - lost_down, up - lost_up) * w.up_gbps
        damage.hurt(pi, "spine_up", ("pod", pod), max(0.0, base - now))


def _worst_cut(s: Shape, caps: dict, relevant: list[str], shared: dict, damage: _Damage):
    """``(stages, bisection, healthy bisection)``: per plane and stage the healthy half [Gb/s] scaled by the
    shared factor, less the most damaged units (up to half of them) put on one side; a plane's bisection is its
    smallest stage, the design's the sum over planes; ``stages``: stage -> (healthy side, remaining side)."""
    npi = s.planes * s.islands
    stages = {}
    total = 0.0
    healthy_total = 0.0
    per_stage_remaining = {st: 0.0 for st in relevant}
    for pi in s.pis():
        values = []
        for stage in relevant:
            half = caps[stage] / npi / 2
            kept = half * shared.get((pi, stage), 1.0)
            hurts = damage.by_stage.get((pi, stage), {})
            # the worst cut: the most damaged units (up to half of them) on one side
            worst = sorted(hurts.values(), reverse=True)[:max(1, damage.half_units)]
            side = max(0.0, kept - sum(worst))
            per_stage_remaining[stage] += side
            values.append(side)
        total += min(values)
        healthy_total += min(caps[stage] / npi / 2 for stage in relevant)
    for stage in relevant:
        stages[stage] = (caps[stage] / 2, per_stage_remaining[stage])
    return stages, total, healthy_total


def _bisection(plan: Plan, shape: Shape, fab: _Fabric):
    """Per stage and plane: the healthy half and the damaged half [Gb/s, one direction] (module docstring).

    Steps: the stages the cut crosses, the share both halves keep, the damage per unit of the cut at NIC
    injection, leaf uplinks and spine uplinks, then the worst balanced cut."""
    caps = tier_capacities_gbits(plan.resolved, plan.fabric)
    relevant = _relevant_stages(shape)
    damage = _Damage(shape, relevant)
    shared = _shared_factors(shape, fab, relevant)
    _injection_damage(shape, fab, damage)
    if "leaf_up" in relevant:
        _leaf_up_damage(shape, fab, shared, damage)
    if "spine_up" in relevant:
        _spine_up_damage(shape, fab, damage)
    return _worst_cut(shape, caps, relevant, shared, damage)
