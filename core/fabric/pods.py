"""Mixed generations under one spine layer: pods of different GPU systems and leaf speeds, and their stages.

A design with ``Design.pods`` holds several **pods**: the design's own system and nodes are the first, each
extra pod names a GPU system, its nodes, its NIC and leaf port speed and the growth stage that adds it
(``core.design.check_pods``: ``B200:32:800@1``). The sizing rule:

* **Leaves, per pod.** Each pod gets its own leaves sized for its own nodes and NIC speed: the pod is planned
  alone as a two-tier fabric of its system (``pod_design``: its catalog defaults for NICs, speed and leaf switch,
  the first pod's fabric kind, topology and oversubscription), and keeps that sizing's leaves ``L_p`` and uplinks
  per leaf ``u_p`` at its leaf uplink speed ``s_p`` [Gb/s per direction]. Its own spines are not built.
* **One shared spine layer.** The spine ports run at the spine speed ``S``, the fastest pod's uplink speed; the
  spine model is the first pod's spine switch when it runs ``S``, else the fastest pod's. A slower uplink
  (``s_p < S``) takes a share of a spine port: ``b_p = ports at s_p / ports at S`` uplinks per port when the spine
  switch lists ``s_p`` as a breakout mode (an 800G port broken out to 2 x 400G: ``b_p = 2``); otherwise one whole
  port run at the lower speed (``b_p = 1``: InfiniBand and Ethernet ports run the slower rates of their
  generation). The spine count ``N`` divides every pod's ``u_p`` (each leaf spreads its uplinks evenly, ``u_p / N``
  to every spine) and is the smallest such divisor whose per-spine port count
  ``sum_p ceil(L_p * (u_p / N) / b_p)`` is within the spine radix ``R`` (ports at ``S``). When no divisor of the
  pods' uplinks fits (a small pod's leaves have few uplinks), a pod's leaves take more uplinks, the next multiple
  of ``N``, at a lower leaf oversubscription in proportion (the same leaves, more bandwidth up), for the smallest
  ``N`` that fits. None fits: ``DesignError`` with ways out. One pod alone gives today's two-tier spine count (``core.fabric.sizing``'s rule
  for a given ``u``: the smallest divisor of ``u`` at least ``ceil(L * u / R)``).
* **Across pods, the slower pod bounds.** A pod's per-GPU scale-out bandwidth is the smaller of its NICs' (``NICs
  per node x port speed / GPUs per node``) and its leaves' uplinks' share (``L_p * u_p * s_p / GPUs_p``) [Gb/s per
  direction]. A collective across pods runs at the slowest pod's rate (a ring or tree waits for its slowest member);
  the bisection is the worst cut into halves of equal GPU count: the slowest half of the GPUs, each at its pod's
  rate (``MixedFabric.bisection_gbps``). A job placed on one pod uses that pod's system, NICs and leaves
  (``core.analysis.pods`` plans each pod on its own).
* **Stages.** Stage ``k`` holds the pods added at stages up to ``k``. With ``Design.pods_final`` the spine layer is
  sized for the final stage from the start (so adding a stage only adds leaves, their cables and nothing moves);
  without it each stage's spine layer is sized for that stage's pods.

Only the folded Clos, rail-optimized or top-of-rack, takes pods; anything else is a ``DesignError`` saying which
setting to change. When the pods fit no shared spine layer (tiers auto) or the design asks for three tiers, each pod
keeps its own spines under a shared core layer (``core.fabric.podcore``).

**Planes** (``Design.planes``, either plane mode) are identical copies: the rule above runs once for one plane
(``plane_of``: per-port planes, every NIC's one port in it; per-rail planes, the ``nics / planes`` rails of NIC
``i mod planes = q``), each plane has its own shared spine layer (or core layer) of ``MixedFabric.spines``, and
``MixedFabric.planes`` copies of it are built. ``MixedFabric``'s and ``PodLeaves``' counts are per plane; the
``*_total`` properties multiply them by the planes; the bandwidths per GPU and the bisection are the whole design's
(every plane's, ``planes`` times one plane's). Each pod planned alone (``core.analysis.pods``) carries its planes: its
bill, racks and wiring are every plane's already.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import reduce
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from core.catalog import Catalog, load_catalog
from core.design import Design, ResolvedDesign, resolve_design
from core.errors import DesignError, InputError, NotHandledError
from core.fabric.sizing import FabricPlan, max_nodes, size_fabric
from core.hostlink import fed_cabled_port_gbits
from core.i18n import _, as_sentence


@dataclass(frozen=True)
class PodSpec:
    """One pod as the design states it: GPU system id, nodes, NIC and leaf port speed [Gb/s per direction]
    (None: the system's default) and the growth stage that adds it (0: built now)."""

    system: str
    nodes: int
    speed_gbps: int | None
    stage: int


def pod_specs(design: Design) -> tuple[PodSpec, ...]:
    """The pods of ``design``: its own system and size first (stage 0), then ``Design.pods`` in order."""
    first = PodSpec(design.gpu, design.nodes or 0, design.port_speed_gbps, 0)
    extra = []
    for item in (design.pods or "").split(","):
        if item:
            head, _at, stage = item.partition("@")
            system, nodes, *speed = head.split(":")
            extra.append(PodSpec(system, int(nodes), int(speed[0]) if speed else None, int(stage or 0)))
    return (first, *extra)


def pod_stages(design: Design) -> tuple[int, ...]:
    """The growth stages of ``design``'s pods, rising from 0 (``(0,)`` when every pod is built now)."""
    return tuple(sorted({spec.stage for spec in pod_specs(design)}))


_OWN_FIELDS = ("gpus", "gpus_per_node", "nvlink_generation", "nvlink_domain_gpus", "nvlink_rack_gpus",
               "nvlink_domains", "nics_per_node", "nic", "switch", "leaf_switch", "spine_switch", "core_switch",
               "uplink_speed_gbps", "nodes_per_rack", "rack_preset", "rack_kw", "rack_units", "su_nodes",
               "pod_sus", "grow_to", "stages", "name", "calibration")
"""Design fields an extra pod does not inherit from the first (its system's catalog defaults apply)."""


def pod_design(design: Design, index: int, fabric: str) -> Design:
    """The design of pod ``index`` planned alone as two tiers (module docstring): the first pod is ``design``
    without pods and growth; an extra pod keeps the first's fabric kind ``fabric``, topology, oversubscription,
    media, networks and prices, and takes its own system's defaults for the rest (but with per-port planes the first's
    NIC model, ``Design.nic``: each NIC has a port in every plane)."""
    spec = pod_specs(design)[index]
    base = {"pods": None, "pods_final": False, "tiers": 2, "grow_to": None, "stages": None}
    if index == 0:
        return design.model_copy(update=base)
    own = {field: None for field in _OWN_FIELDS}
    if design.planes > 1 and design.plane_mode == "per-port":  # every NIC needs a port in each plane
        own.pop("nic")
    return design.model_copy(update={**own, **base, "gpu": spec.system, "nodes": spec.nodes,
                                     "port_speed_gbps": spec.speed_gbps, "fabric": fabric})


class PodLeaves(BaseModel):
    """One pod's leaves and their uplinks into the shared spine layer (counts per plane; module docstring)."""

    model_config = ConfigDict(frozen=True)

    index: int
    system: str
    stage: int
    nodes: int
    gpus: int
    port_speed_gbps: int
    """NIC and leaf down-port speed, per direction [Gb/s]."""
    uplink_speed_gbps: int
    """Leaf uplink speed ``s_p``, per direction [Gb/s]."""
    leaf_switch: str
    leaves: int
    uplinks_per_leaf: int
    uplinks_per_spine_port: int
    """``b_p``: leaf uplinks one spine port carries (2: an 800G spine port broken out to 2 x 400G)."""
    links_per_leaf_spine_pair: int
    """``u_p / N``: links from each leaf of the pod to each spine."""
    gbps_per_gpu: float
    """The pod's per-GPU scale-out bandwidth out of its leaves, per direction [Gb/s], every plane's (module
    docstring)."""
    oversubscription: float
    """The leaf down:up ratio the pod is planned at: the design's, or lower when its leaves take more uplinks so
    that the shared spine count divides them (module docstring)."""
    own_spines: int = 0
    """Three tiers (``core.fabric.podcore``): the pod's own spines ``N_p`` (0 in two tiers: the spines are shared)."""
    spine_switch: str = ""
    """Three tiers: the pod's own spine model (its plan alone)."""
    spine_radix: int = 0
    """Three tiers: ports of the pod's spine at its uplink speed."""
    spine_down_ports: int = 0
    """Three tiers: leaf ports each of the pod's spines uses (``L_p * u_p / N_p``)."""
    spine_uplinks: int = 0
    """Three tiers: ``U_p``, core uplinks of each of the pod's spines at its uplink speed."""
    spine_oversubscription: float = 0.0
    """Three tiers: the spine down:up ratio the pod is planned at (the design's, or lower when its spines take
    more uplinks so that the core group size divides them)."""
    links_per_spine_core_pair: int = 0
    """Three tiers: ``U_p / C``, links from each of the pod's spines to each core of its core group."""
    uplinks_per_core_port: int = 1
    """Three tiers: ``b_p`` at the core: spine uplinks one core port carries (breakout lanes)."""
    planes: int = 1
    """Identical planes the counts above are built in (module docstring)."""

    @property
    def core_gbps_per_gpu(self) -> float | None:
        """Three tiers: the pod's core uplinks' share per GPU, ``planes * N_p * U_p * s_p / GPUs_p``, per direction
        [Gb/s]; None in two tiers."""
        if not self.own_spines:
            return None
        return self.planes * self.own_spines * self.spine_uplinks * self.uplink_speed_gbps / self.gpus

    @property
    def cross_gbps_per_gpu(self) -> float:
        """Per-GPU bandwidth of the pod's GPUs towards the other pods, per direction [Gb/s]: its own rate
        (``gbps_per_gpu``), bounded in three tiers by its core uplinks' share (``core_gbps_per_gpu``)."""
        core = self.core_gbps_per_gpu
        return self.gbps_per_gpu if core is None else min(self.gbps_per_gpu, core)

    def core_ports(self) -> int:
        """Three tiers: ports of a core one of the pod's spines below it takes, at the core speed:
        ``ceil((U_p / C) / b_p)`` (0 in two tiers)."""
        return math.ceil(self.links_per_spine_core_pair / self.uplinks_per_core_port)

    @property
    def uplinks(self) -> int:
        """Leaf-spine links of the pod (``L_p * u_p``)."""
        return self.leaves * self.uplinks_per_leaf

    def spine_ports(self, spines: int) -> int:
        """Ports of one spine the pod's uplinks take, at the spine speed: ``ceil(L_p * (u_p / N) / b_p)``."""
        return math.ceil(self.leaves * (self.uplinks_per_leaf // spines) / self.uplinks_per_spine_port)


class MixedFabric(BaseModel):
    """The pods present at one stage under one spine layer (module docstring); counts per plane (``*_total``: every
    plane's)."""

    model_config = ConfigDict(frozen=True)

    stage: int
    pods: tuple[PodLeaves, ...]
    spine_switch: str
    spine_speed_gbps: int
    """``S``: spine port speed, per direction [Gb/s]."""
    spine_radix: int
    """``R``: spine ports at ``S``."""
    spines: int
    """``N``: spines of the shared layer."""
    spine_ports_used: int
    """Ports each spine uses at ``S`` (within ``spine_radix``)."""
    sized_for_stage: int
    """The stage whose pods the spine layer is sized for (the final one with ``Design.pods_final``)."""
    stages: int = 1
    """How many growth stages the design's pods are added at (``pod_stages``; 1: every pod is built now, and the
    words say nothing of stages)."""
    tiers: int = 2
    """2: the pods' leaves under one shared spine layer; 3: each pod's leaves and own spines under one shared core
    layer (``core.fabric.podcore``; the shared spine fields above are then 0 and empty)."""
    core_switch: str = ""
    """Three tiers: the shared core model."""
    core_speed_gbps: int = 0
    """Three tiers: core port speed ``S``, the fastest pod's uplink speed, per direction [Gb/s]."""
    core_radix: int = 0
    """Three tiers: ``R``, core ports at ``S``."""
    core_groups: int = 0
    """Three tiers: ``G``, core groups (the greatest common divisor of the pods' spine counts; own spine ``k`` of a
    pod reaches group ``k mod G``, ``core.fabric.podcore``)."""
    cores_per_group: int = 0
    """Three tiers: ``C``, cores per group."""
    core_ports_used: int = 0
    """Three tiers: ports each core uses at ``S`` (every core has ``N_p / G`` spines of every pod below it)."""
    planes: int = 1
    """Identical planes, each with the counts above (module docstring; per-rail planes included)."""
    plane_mode: str = "per-port"
    """``Design.plane_mode``: per-port (every NIC has a port in each plane) or per-rail (NIC ``i`` in plane
    ``i mod planes`` only)."""

    @property
    def leaves(self) -> int:
        return sum(pod.leaves for pod in self.pods)

    @property
    def own_spines(self) -> int:
        """Three tiers: the present pods' own spines (0 in two tiers)."""
        return sum(pod.own_spines for pod in self.pods)

    @property
    def cores(self) -> int:
        """Three tiers: shared cores, ``G * C`` (0 in two tiers)."""
        return self.core_groups * self.cores_per_group

    @property
    def switches(self) -> int:
        return self.leaves + self.spines + self.own_spines + self.cores

    @property
    def switches_total(self) -> int:
        """Compute fabric switches of every plane."""
        return self.switches * self.planes

    @property
    def spines_total(self) -> int:
        """Shared spines of every plane."""
        return self.spines * self.planes

    @property
    def cores_total(self) -> int:
        """Three tiers: shared cores of every plane."""
        return self.cores * self.planes

    @property
    def gpus(self) -> int:
        return sum(pod.gpus for pod in self.pods)

    @property
    def cross_pod_hops(self) -> int:
        """Switches a shortest path from a GPU of one pod to a GPU of another crosses: leaf, shared spine, leaf
        (two tiers: 3); leaf, the pod's own spine, shared core, the other pod's spine, leaf (three tiers: 5)."""
        return 2 * self.tiers - 1

    @property
    def nodes(self) -> int:
        return sum(pod.nodes for pod in self.pods)

    @property
    def slowest(self) -> PodLeaves:
        """The pod with the smallest per-GPU bandwidth towards the other pods (``PodLeaves.cross_gbps_per_gpu``; the
        first of equals): it bounds collectives across pods."""
        return min(self.pods, key=lambda pod: pod.cross_gbps_per_gpu)

    @property
    def pods_alike(self) -> bool:
        """Every pod has the same per-GPU bandwidth towards the other pods: no pod is slower (``slowest`` is then
        only the first)."""
        return len({pod.cross_gbps_per_gpu for pod in self.pods}) == 1

    @property
    def cross_pod_gbps_per_gpu(self) -> float:
        """Per-GPU bandwidth of a collective across every pod: the slowest pod's, per direction [Gb/s] (in three
        tiers the collective crosses the core: each pod's rate bounded by its core uplinks' share)."""
        return self.slowest.cross_gbps_per_gpu

    def slower_half(self) -> list[tuple[int, float]]:
        """``(pod position, GPUs)`` of the worst balanced cut's side: half of every pod's GPUs, the slowest pods'
        first (``cross_gbps_per_gpu``; the first of equals first)."""
        half, out = self.gpus / 2, []
        for i in sorted(range(len(self.pods)), key=lambda i: self.pods[i].cross_gbps_per_gpu):
            take = min(self.pods[i].gpus, half)
            if take > 0:
                out.append((i, take))
            half -= take
        return out

    @property
    def bisection_gbps(self) -> float:
        """Bisection bandwidth of the mixed fabric, per direction [Gb/s]: its worst cut into two halves of equal GPU
        count, the half of the slowest GPUs (``slower_half``) at each pod's own per-GPU rate towards the other pods
        (``PodLeaves.cross_gbps_per_gpu``; the shared spine or core layer is non-blocking: every spine or core has a
        port for each uplink it receives). Each pod's own bisection (half its GPUs at its rate) is the cut of that
        pod alone; they do not add up to this one."""
        return sum(gpus * self.pods[i].cross_gbps_per_gpu for i, gpus in self.slower_half())


def three_tiers_refused(fabric: MixedFabric) -> DesignError | None:
    """The ``DesignError`` of a view, export or analysis that reads only the shared spine layer for pods on three
    tiers (``core.fabric.podcore``), with the way out of two tiers; None for pods on two tiers."""
    if fabric.tiers != 3:
        return None
    return NotHandledError(_("This view or export does not handle pods on three tiers yet (each pod's own spines under "
                         "a shared core layer); the plan, bill, topology, bandwidth and stages do."),
                       _("Set tiers to 2 if the pods fit one shared spine layer, or see each pod alone."))


def planes_refused(fabric: MixedFabric) -> DesignError | None:
    """The ``DesignError`` of a view, export or analysis that reads one plane only, for pods on several planes (with
    the ways out of one plane or each pod alone); None in one plane."""
    if fabric.planes < 2:
        return None
    return NotHandledError(
        _("This view or export does not handle pods on several planes yet (this design has {planes}); the plan, "
          "bill, cabling, topology, hall and bandwidth do.").format(planes=fabric.planes),
        _("Set planes to 1 (per-rail planes split the NICs, so one plane at the same port speed keeps the "
          "bandwidth per GPU), or plan each pod alone (its system and nodes, without pods).")
        if fabric.plane_mode == "per-rail" else
        _("Set planes to 1 (the same bandwidth per GPU needs NIC ports of planes times the speed, where the NIC runs "
          "it), or plan each pod alone (its system and nodes, without pods)."))


def one_plane_only(fabric: MixedFabric) -> None:
    """Raise ``planes_refused``'s ``DesignError`` for pods on several planes."""
    error = planes_refused(fabric)
    if error is not None:
        raise error


def two_tiers_only(fabric: MixedFabric) -> None:
    """Raise ``three_tiers_refused``'s ``DesignError`` for pods on three tiers."""
    error = three_tiers_refused(fabric)
    if error is not None:
        raise error


def _check_shape(design: Design, resolved: ResolvedDesign) -> None:
    """Pods need a folded Clos that is rail-optimized or top-of-rack (``DesignError``; the way out given as data drops
    the extra pods). Planes are built as identical copies (module docstring)."""
    drop = _("drop the extra pods")
    if resolved.topology not in ("rail-optimized", "top-of-rack"):
        raise DesignError(_("Pods share one spine layer: the topology must be rail-optimized or top-of-rack."),
                          _("Set the topology to rail-optimized, or {drop}.").format(drop=drop),
                          fixes=((drop, {"pods": None}),))


def plane_of(resolved: ResolvedDesign) -> ResolvedDesign:
    """One plane of a pod ``resolved`` as the sizing rule plans it (module docstring): per-port planes, the node's
    every NIC with its one port in the plane; per-rail planes (``islands``), the plane's ``nics / planes`` rails. Its
    ``planes`` is the count of identical planes (per-rail: the islands) and ``islands`` 1."""
    if resolved.islands <= 1:
        return resolved
    return resolved.model_copy(update={"nics_per_node": resolved.rails_per_island, "planes": resolved.islands,
                                       "islands": 1})


def _resolved_pod(design: Design, index: int, fabric: str, catalog: Catalog) -> ResolvedDesign:
    """Pod ``index`` resolved; an unknown system is a ``DesignError`` naming the catalog's systems, and an extra
    pod the engine cannot resolve (a port speed no NIC of the fabric runs) one naming the pod, each with a way out
    that drops it."""
    spec = pod_specs(design)[index]
    text = pods_text((spec, spec))  # the pod named as its user wrote it (pod 1 is the design's own, always known)
    drop = _("drop the extra pod {pod}").format(pod=text)
    fixes = ((drop, {"pods": pods_text(tuple(s for i, s in enumerate(pod_specs(design)) if i != index))}),)
    try:
        catalog.system(spec.system)
    except InputError:
        raise DesignError(
            _("The extra pod {pod}: the catalog has no GPU system {system}.").format(pod=text, system=spec.system),
            _("Use one of {systems}, or {drop}.").format(systems=", ".join(s.id for s in catalog.systems), drop=drop),
            fixes=fixes) from None
    try:
        resolved = resolve_design(pod_design(design, index, fabric), catalog)
    except InputError as exc:
        if not index:
            raise
        raise DesignError(_("The extra pod {pod}: {problem}").format(pod=text, problem=as_sentence(str(exc))),
                          as_sentence(drop), fixes=fixes) from None
    _check_shape(design, resolved)
    return resolved


def pods_text(specs: tuple[PodSpec, ...]) -> str | None:
    """``Design.pods`` for the extra pods of ``specs`` (the first is the design's own; None: no extra pod)."""
    return ",".join(f"{p.system}:{p.nodes}" + (f":{p.speed_gbps}" if p.speed_gbps else "")
                    + (f"@{p.stage}" if p.stage else "") for p in specs[1:]) or None


def _sized_alone(design: Design, index: int, resolved: ResolvedDesign) -> FabricPlan:
    """Pod ``index`` sized alone as two tiers; too large for two tiers is a ``DesignError`` whose way out gives
    the pod the most nodes two tiers hold (``core.fabric.sizing.max_nodes``), and for an extra pod one dropping it
    (``size_pods`` keeps the ways out that size)."""
    try:
        return size_fabric(resolved)
    except DesignError as exc:
        most = max_nodes(resolved, 2)
        phrase, fix = fewer_nodes(design, index, most)
        fixes = ((phrase, fix),) if most > 0 else ()
        suggestion = _("Pods sit on two tiers: {phrase}, and put the rest in another pod.").format(phrase=phrase)
        if index > 0:  # an extra pod can go (the first is the design's own)
            drop = _("drop pod {pod}").format(pod=index + 1)
            fixes += ((drop, {"pods": pods_text(tuple(s for i, s in enumerate(pod_specs(design)) if i != index))}),)
            suggestion = _("Pods sit on two tiers: {phrase}, and put the rest in another pod, or {drop}.").format(
                phrase=phrase, drop=drop)
        raise DesignError(
            _("Pod {pod} ({system}, {nodes} nodes) does not fit two tiers under the shared spine layer: "
              "{reason}").format(pod=index + 1, system=resolved.system.id, nodes=f"{resolved.nodes:,}",
                                 reason=exc.message), suggestion, fixes=fixes) from None


def fewer_nodes(design: Design, index: int, most: int) -> tuple[str, dict]:
    """The way out giving pod ``index`` of ``design`` at most ``most`` nodes: (its words, the design changes)."""
    specs = list(pod_specs(design))
    if index == 0:
        fix = {"nodes": most, "gpus": None}
    else:
        specs[index] = replace(specs[index], nodes=most)
        fix = {"pods": pods_text(tuple(specs))}
    return _("give pod {pod} at most {most} nodes").format(pod=index + 1, most=f"{most:,}"), fix


def breakout_lanes(switch, speed: int, radix: int) -> int:
    """``b_p``: uplinks at ``speed`` [Gb/s] one port of ``switch`` (``radix`` ports at the layer's speed) carries:
    its breakout lanes when it lists ``speed`` as a whole multiple of its ports, else 1 (a whole port run at the
    lower speed; module docstring)."""
    lanes = switch.ports_at(speed) or 0
    return lanes // radix if lanes > radix and lanes % radix == 0 else 1


class PodPlans(NamedTuple):
    """What the two- and three-tier sizings of the pods share (``pod_plans``): the pods, the stage asked, the stage
    the shared layer is sized for, the first pod resolved and each pod planned alone."""

    specs: tuple[PodSpec, ...]
    stage: int
    sized_for: int
    first: ResolvedDesign
    plans: dict[int, tuple[ResolvedDesign, FabricPlan]]
    """Pod index -> (resolved, its plan alone), for the pods present at ``sized_for``."""


def pod_plans(design: Design, stage: int | None, catalog: Catalog, plan_alone) -> PodPlans:
    """The pods of ``design`` present at the stage the shared layer is sized for (the final stage with
    ``Design.pods_final``, else ``stage``; None: the final one), each resolved (``_resolved_pod``, one plane of it:
    ``plane_of``) and planned alone
    by ``plan_alone(design, index, resolved)`` -> ``(resolved, FabricPlan)`` (two tiers: ``_sized_alone``; three
    tiers: ``core.fabric.podcore``'s one spine pod).

    Raises
    ------
    DesignError
        An unknown system, a pod of another shape, or ``plan_alone``'s error.
    """
    specs = pod_specs(design)
    final = max(spec.stage for spec in specs)
    stage = final if stage is None else stage
    sized_for = final if design.pods_final else stage
    first = plane_of(_resolved_pod(design, 0, "", catalog))
    plans: dict[int, tuple[ResolvedDesign, FabricPlan]] = {}
    for index, spec in enumerate(specs):
        if spec.stage <= sized_for:
            resolved = first if index == 0 else plane_of(_resolved_pod(design, index, first.fabric, catalog))
            plans[index] = plan_alone(design, index, resolved)
    return PodPlans(specs, stage, sized_for, first, plans)


_LANES = {"spine": "uplinks_per_spine_port", "core": "uplinks_per_core_port"}
"""The row field of a pod's breakout lanes at each shared layer's tier."""


def shared_layer(first: ResolvedDesign, plans: dict, rows: list[dict], tier: str):
    """The shared layer's switch at ``tier`` (``spine``: the shared spines; ``core``: the shared cores of
    ``core.fabric.podcore``): its speed ``S``, the fastest pod's uplink speed [Gb/s per direction]; its model, the
    first pod's switch at ``tier`` when it runs ``S``, else the fastest pod's; ``R``, its ports at ``S``. Sets each
    row's breakout lanes at that layer (``breakout_lanes``; ``uplinks_per_spine_port`` or
    ``uplinks_per_core_port``).

    Returns
    -------
    tuple
        ``(switch, S [Gb/s per direction], R [ports])``.
    """
    speed = max(row["uplink_speed_gbps"] for row in rows)
    switch = first.tier_switches[tier]
    if not switch.ports_at(speed):
        fastest = next(row["index"] for row in rows if row["uplink_speed_gbps"] == speed)
        switch = plans[fastest][0].tier_switches[tier]
    radix = switch.ports_at(speed) or 0
    for row in rows:
        row[_LANES[tier]] = breakout_lanes(switch, row["uplink_speed_gbps"], radix)
    return switch, speed, radix


def _leaves(index: int, spec: PodSpec, resolved: ResolvedDesign, fabric: FabricPlan) -> dict:
    """The fields of a pod's ``PodLeaves`` that do not depend on the spine layer (``resolved``: one plane,
    ``plane_of``; the bandwidth per GPU every plane's)."""
    uplink = fabric.uplink_speed_gbps or fabric.port_speed_gbps
    port_rate = fed_cabled_port_gbits(resolved)  # what a cabled port carries (core.hostlink)
    nic_rate = resolved.nics_per_node * port_rate / resolved.gpus_per_node
    up_rate = fabric.leaf_count * fabric.leaf_uplinks * uplink / resolved.gpus
    return dict(index=index, system=resolved.system.id, stage=spec.stage, nodes=resolved.nodes, gpus=resolved.gpus,
                port_speed_gbps=resolved.port_speed_gbps, uplink_speed_gbps=uplink,
                leaf_switch=resolved.tier_switches["leaf"].id, leaves=fabric.leaf_count,
                uplinks_per_leaf=fabric.leaf_uplinks, gbps_per_gpu=resolved.planes * min(nic_rate, up_rate),
                oversubscription=resolved.design.oversubscription, planes=resolved.planes)


def _spine_count(pods: list[dict], radix: int) -> int | None:
    """``N``: the smallest common divisor of the pods' uplinks per leaf whose per-spine ports fit ``radix``."""
    common = reduce(math.gcd, (pod["uplinks_per_leaf"] for pod in pods))
    units = sum(pod["leaves"] * pod["uplinks_per_leaf"] / pod["uplinks_per_spine_port"] for pod in pods)
    for spines in range(max(1, math.ceil(units / radix - 1e-9)), common + 1):
        if common % spines == 0 and sum(math.ceil(p["leaves"] * (p["uplinks_per_leaf"] // spines)
                                                  / p["uplinks_per_spine_port"]) for p in pods) <= radix:
            return spines
    return None


def _more_uplinks(resolved: ResolvedDesign, fabric: FabricPlan, uplinks: int
                  ) -> tuple[ResolvedDesign, FabricPlan] | None:
    """The pod re-planned alone with ``uplinks`` uplinks per leaf (a lower leaf oversubscription, in proportion) and
    the same leaves; None when its leaves have no room for them or the re-planning gives other leaves."""
    ratio = resolved.design.oversubscription * fabric.leaf_uplinks / uplinks
    if ratio < 0.25:  # the lowest oversubscription a design takes
        return None
    try:
        again = plane_of(resolve_design(resolved.design.model_copy(update={"oversubscription": ratio})))
        sized = size_fabric(again)
    except DesignError:
        return None
    return (again, sized) if (sized.leaf_count, sized.leaf_uplinks) == (fabric.leaf_count, uplinks) else None


def smallest_even_split(rows: list[dict], count: str, plans: dict, first: int, last: int, more, rebuild,
                        fits) -> int | None:
    """The smallest ``k`` in ``first..last`` that splits every row's ``row[count]`` evenly once each row ``k`` does
    not divide is re-planned with the next multiple of ``k`` (``more(index, want)``: the raised plan, or None when
    the row cannot take it; ``rebuild(row, plan)``: the row of that plan) and the trial rows fit (``fits(trial,
    k)``). Updates ``rows`` and ``plans`` (by row ``index``) to the raised rows; None when no ``k`` fits. The shared
    spine layer's count (``N``, uplinks per leaf) and a core group's size (``C``, a pod spine's core uplinks,
    ``core.fabric.podcore``) are chosen so."""
    for k in range(first, last + 1):
        raised = {}
        for row in rows:
            want = -(-row[count] // k) * k
            if want != row[count]:
                raised[row["index"]] = more(row["index"], want)
                if raised[row["index"]] is None:
                    break
        else:
            trial = [rebuild(row, raised[row["index"]]) if row["index"] in raised else row for row in rows]
            if fits(trial, k):
                plans.update(raised)
                rows[:] = trial
                return k
    return None


def _widened(sizing: list[dict], plans: dict, specs: tuple[PodSpec, ...], radix: int) -> int | None:
    """``N`` when no spine count divides the pods' uplinks as sized: the smallest ``N`` for which every pod whose
    uplinks per leaf ``N`` does not divide can take the next multiple of ``N`` (``_more_uplinks``) and the spines'
    ports fit ``radix``. Updates ``sizing`` and ``plans`` to the widened pods; None when no ``N`` fits."""
    units = sum(pod["leaves"] * pod["uplinks_per_leaf"] / pod["uplinks_per_spine_port"] for pod in sizing)
    return smallest_even_split(
        sizing, "uplinks_per_leaf", plans, max(1, math.ceil(units / radix - 1e-9)), radix,
        lambda index, want: _more_uplinks(*plans[index], want),
        lambda pod, plan: {**pod, **_leaves(pod["index"], specs[pod["index"]], *plan)},
        lambda trial, spines: sum(math.ceil(p["leaves"] * (p["uplinks_per_leaf"] // spines)
                                            / p["uplinks_per_spine_port"]) for p in trial) <= radix)


def _spine_error(design: Design, pods: list[dict], switch: str, radix: int, speed: int) -> DesignError:
    """The pods' uplinks do not fit any balanced spine layer of ``switch`` (ways out named; the one given as data
    drops the last extra pod)."""
    specs = pod_specs(design)
    phrase = _("drop pod {pod}").format(pod=len(specs))
    ports = sum(math.ceil(p["leaves"] * p["uplinks_per_leaf"] / p["uplinks_per_spine_port"]) for p in pods)
    common = reduce(math.gcd, (pod["uplinks_per_leaf"] for pod in pods))
    return DesignError(
        _("The pods' leaves have {ports} uplink ports at {speed}G for the shared spine layer, and no balanced layer "
          "of {switch} spines of {radix} ports holds them: the spine count must divide every leaf's uplinks ({common} "
          "as sized; a leaf takes more only where it has free ports).").format(
            ports=f"{ports:,}", speed=speed, switch=switch, radix=radix, common=common),
        _("Use fewer nodes per pod or fewer pods ({drop}), a spine switch with more ports (spine_switch), or a "
          "higher leaf oversubscription.").format(drop=phrase), fixes=((phrase, {"pods": pods_text(specs[:-1])}),))


def size_pods(design: Design, stage: int | None = None, catalog: Catalog | None = None) -> MixedFabric:
    """``_size_pods`` with the ways out of its ``DesignError`` checked: a fix (``DesignError.fixes``) is kept as data
    only when the design it gives sizes; the suggestion's words stay (the parameters, returns and errors of
    ``_size_pods``)."""
    try:
        return _size_pods(design, stage, catalog)
    except DesignError as exc:
        if not exc.fixes:
            raise
        kept, suggestion, gone = [], exc.suggestion, []
        for phrase, changes in exc.fixes:
            if _sizes(design.model_copy(update=changes), catalog):
                kept.append((phrase, changes))
                continue
            index = _lowered_pod(design, changes)  # a pod given fewer nodes (fewer_nodes) that the others' spines
            better = None if index is None else _most_that_builds(  # still refuse: the most that build with them
                design, index, pod_specs(design.model_copy(update=changes))[index].nodes, catalog)
            if better is not None:
                kept.append(better)
                suggestion = suggestion.replace(phrase, better[0])
            else:
                gone.append(phrase)
        if gone and kept:  # a way out that does not build is not offered in words either
            suggestion = kept[0][0]
            for phrase, _changes in kept[1:]:
                suggestion = _("{ways_out}, or {way_out}").format(ways_out=suggestion, way_out=phrase)
            suggestion = as_sentence(suggestion)
        raise DesignError(exc.message, suggestion, tuple(kept)) from None


def _sizes(design: Design, catalog: Catalog | None) -> bool:
    """Whether ``design`` sizes (its pods under their shared layer; without extra pods, as an ordinary design)."""
    try:
        _size_pods(design, None, catalog) if design.pods else size_fabric(resolve_design(design))
    except (DesignError, InputError):
        return False
    return True


def _lowered_pod(design: Design, changes: dict) -> int | None:
    """The pod whose node count alone ``changes`` lowers (a ``fewer_nodes`` way out), or None."""
    before, after = pod_specs(design), pod_specs(design.model_copy(update=changes))
    differ = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    if len(before) != len(after) or len(differ) != 1:
        return None
    i = differ[0]
    return i if after[i].nodes < before[i].nodes and replace(after[i], nodes=before[i].nodes) == before[i] else None


def _most_that_builds(design: Design, index: int, most: int, catalog: Catalog | None) -> tuple[str, dict] | None:
    """``fewer_nodes``' way out for pod ``index`` at the most nodes ``n`` below ``most`` (which does not build) such
    that the whole design sizes with every count from 1 to ``n`` ("at most ``n``" holds: the shared spines' balance is
    not monotone in a pod's size, B300 pods of 1-144 and 217-288 nodes beside one of 32 build, 145-216 do not), by
    sizing 1, 2, ... up to the first that does not (a few ms each), at most ``SCAN_NODES`` of them (then that many,
    all sized: true, if not the most); None when one node does not build either."""
    top = min(most - 1, SCAN_NODES)
    for n in range(1, top + 1):
        if not _sizes(design.model_copy(update=fewer_nodes(design, index, n)[1]), catalog):
            return fewer_nodes(design, index, n - 1) if n > 1 else None
    return fewer_nodes(design, index, top) if top > 0 else None


SCAN_NODES = 1024
"""Most pod sizes ``_most_that_builds`` sizes (about 2.5 ms each: a failing design's error stays within seconds)."""


def _size_pods(design: Design, stage: int | None = None, catalog: Catalog | None = None) -> MixedFabric:
    """Size the mixed fabric of ``design`` at ``stage`` (None: the final stage) by the module's rule.

    Parameters
    ----------
    design : Design
        A design with ``pods``.
    stage : int, optional
        The growth stage: the pods added at stages up to it are present.
    catalog : Catalog, optional
        The catalog (default the shipped one).

    Returns
    -------
    MixedFabric
        The pods present at ``stage`` under the spine layer sized for ``sized_for_stage``.

    Raises
    ------
    DesignError
        An unknown system, a pod that is not a one-plane folded Clos (one tier asked included), stages given both
        as node counts and as pods, or uplinks no balanced spine layer of the spine switch holds (with tiers auto:
        nor a core layer, ``core.fabric.podcore``); each with ways out.
    """
    catalog = catalog or load_catalog()
    if str(design.tiers) not in ("auto", "2", "3"):
        drop, auto = _("drop the extra pods"), _("set tiers to auto")
        raise DesignError(_("Pods sit on two or three tiers: this design asks for one tier."),
                          _("Set tiers to auto (each pod's leaves under the shared spines), or {drop}.").format(
                              drop=drop), fixes=((auto, {"tiers": "auto"}), (drop, {"pods": None})))
    if design.stages:
        raise DesignError(_("Growth stages are given twice: as node counts (stages) and as the pods' stages."),
                          _("Drop the stages and add each pod at its stage (SYSTEM:NODES@STAGE)."),
                          fixes=((_("Drop the stages"), {"stages": None}),))
    if design.tiers == 3:
        from core.fabric.podcore import size_three_tiers

        return size_three_tiers(design, stage, catalog)
    specs, stage, sized_for, first, plans = pod_plans(
        design, stage, catalog, lambda design, index, resolved: (resolved, _sized_alone(design, index, resolved)))
    sizing = [_leaves(i, specs[i], *plans[i]) for i in sorted(plans)]
    spine, speed, radix = shared_layer(first, plans, sizing, "spine")
    spines = _spine_count(sizing, radix) or _widened(sizing, plans, specs, radix)
    if spines is None:
        error = _spine_error(design, sizing, spine.id, radix, speed)
        if design.tiers == "auto":  # each pod under its own spines, the spines under a shared core layer
            from core.fabric.podcore import size_three_tiers

            try:
                return size_three_tiers(design, stage, catalog)
            except DesignError:
                pass
        raise error
    pods = tuple(PodLeaves(**pod, links_per_leaf_spine_pair=pod["uplinks_per_leaf"] // spines)
                 for pod in sizing if specs[pod["index"]].stage <= stage)
    return MixedFabric(stage=stage, pods=pods, spine_switch=spine.id, spine_speed_gbps=speed, spine_radix=radix,
                       spines=spines, spine_ports_used=sum(pod.spine_ports(spines) for pod in pods),
                       sized_for_stage=sized_for, planes=first.planes, plane_mode=first.plane_mode,
                       stages=len(pod_stages(design)))
