"""Pods on three tiers: each pod's leaves and its own spines, the pods' spines under one shared core layer.

When the pods do not fit one shared spine layer (``core.fabric.pods``; with ``Design.tiers`` auto) or the design
asks for three tiers, every pod keeps its own two-tier fabric, leaves and spines, as a brownfield cluster does, and
the pods' spines join one shared core layer, spine ``j`` of every pod to core group ``j`` as the single-fabric
three-tier Clos joins its pods (``core.fabric.sizing``'s three-tier rule; pods of other spine counts put several
spines into each group, step 3). The sizing, closed form, in steps:

1. **Each pod alone, one spine pod.** Pod ``p`` is planned alone as three tiers (``core.fabric.pods.pod_design``
   at ``tiers`` 3: its system's defaults, the design's leaf and spine oversubscription): that rule's leaves ``L_p``,
   uplinks per leaf ``u_p``, spines ``N_p`` (each with ``L_p * u_p / N_p`` down ports, room kept for its core
   uplinks) and core uplinks per spine ``U_p = ceil(down_p / sos)`` at its uplink speed ``s_p`` [Gb/s per
   direction]. A pod must be one spine pod (its plan alone has one pod); a larger one is a ``DesignError`` whose
   way out gives it the most nodes one spine pod holds.
2. **Core speed and model.** The core ports run at ``S``, the fastest pod's uplink speed; the core model is the
   first pod's core switch when it runs ``S``, else the fastest pod's; ``R`` its ports at ``S``. A slower uplink takes
   ``b_p`` lanes of a core port as the shared spine layer does (one rule for both layers:
   ``core.fabric.pods.shared_layer``; steps 1 and 5's per-pod plans: ``core.fabric.pods.pod_plans``).
3. **Core groups.** ``G = gcd_p N_p`` groups (the single-fabric rule's ``N`` when every pod has ``N`` spines).
   Own spine ``k`` of pod ``p`` reaches core group ``k mod G`` (spine ``j`` of every pod to group ``j`` when every
   pod has ``G`` spines), so each group has ``N_p / G`` spines of every pod below it and every pod reaches every
   core: balanced for any spine counts (``G`` divides each).
4. **Cores per group.** ``C`` is the smallest count, from ``ceil(sum_p (N_p / G) * (U_p / b_p) / R)`` up, that
   divides every ``U_p`` (each spine spreads its uplinks evenly, ``U_p / C`` to each core of its group) and for
   which each core's ports ``sum_p (N_p / G) * ceil((U_p / C) / b_p)`` fit ``R``; a spine whose ``U_p`` ``C`` does
   not divide takes the next multiple of ``C`` (a lower spine oversubscription, re-planned alone: the same leaves
   and spines) where its free ports allow. With one pod, or pods of equal spine counts, this is
   ``core.fabric.sizing``'s rule (one pod: ``C = 1``; ``k`` identical full pods: the single-fabric plan's ``C`` and
   ``U``). None fits: ``DesignError`` with ways out.
5. **Stages.** Stage ``k`` holds the pods added up to ``k`` with their leaves, spines and core links; with
   ``Design.pods_final`` the core layer is sized for the final stage (adding a stage moves no cable), else for the
   stage's pods.

Across pods a collective crosses the core: each pod's per-GPU rate is the smaller of its own (NICs, leaf uplinks)
and its core uplinks' share ``N_p * U_p * s_p / GPUs_p`` (``PodLeaves.cross_gbps_per_gpu``); the bisection is the
slowest half of the GPUs at those rates (``MixedFabric.bisection_gbps``).
"""

from __future__ import annotations

import math

from core.catalog import Catalog
from core.design import Design, ResolvedDesign, resolve_design
from core.errors import DesignError
from core.fabric.pods import (
    MixedFabric, PodLeaves, _leaves, fewer_nodes, plane_of, pod_plans, pod_specs, pod_stages, pods_text, shared_layer,
    smallest_even_split,
)
from core.fabric.sizing import FabricPlan, size_fabric
from core.i18n import _


def _one_spine_pod(design: Design, index: int, resolved: ResolvedDesign, catalog: Catalog
                   ) -> tuple[ResolvedDesign, FabricPlan]:
    """Pod ``index`` planned alone as three tiers (step 1); more than one spine pod, or too large for three tiers, is
    a ``DesignError`` whose way out gives the pod the most nodes one spine pod holds."""
    three = plane_of(resolve_design(resolved.design.model_copy(update={"tiers": 3}), catalog))
    try:
        fabric = size_fabric(three)
    except DesignError as exc:
        reason, fabric = exc.message, None
    else:
        reason = _("{pods} spine pods").format(pods=fabric.pod_count)
    if fabric is not None and fabric.pod_count == 1:
        return three, fabric
    most = fabric.groups_per_pod * fabric.nodes_per_group if fabric is not None else 0
    phrase, fix = fewer_nodes(design, index, most)
    raise DesignError(
        _("Pod {pod} ({system}, {nodes} nodes) is not one spine pod on three tiers: {reason}.").format(
            pod=index + 1, system=three.system.id, nodes=f"{three.nodes:,}", reason=reason),
        _("Each pod keeps one set of spines under the shared core: {phrase}, and put the rest in another pod.")
        .format(phrase=phrase), fixes=((phrase, fix),) if most > 0 else ())


def _pod_row(index: int, spec, resolved: ResolvedDesign, fabric: FabricPlan) -> dict:
    """A pod's ``PodLeaves`` fields from its plan alone as one spine pod (step 1; ``links_per_spine_core_pair`` and
    ``uplinks_per_core_port`` wait for the core)."""
    row = _leaves(index, spec, resolved, fabric)
    down = fabric.leaf_count * fabric.links_per_leaf_spine_pair
    return {**row, "uplinks_per_spine_port": 1, "links_per_leaf_spine_pair": fabric.links_per_leaf_spine_pair,
            "own_spines": fabric.spines_per_pod, "spine_switch": resolved.tier_switches["spine"].id,
            "spine_radix": fabric.spine_radix or fabric.radix, "spine_down_ports": down,
            "spine_uplinks": fabric.spine_uplinks, "spine_oversubscription": resolved.design.spine_oversubscription}


def _more_core_uplinks(resolved: ResolvedDesign, fabric: FabricPlan, uplinks: int
                       ) -> tuple[ResolvedDesign, FabricPlan] | None:
    """The pod re-planned alone with ``uplinks`` core uplinks per spine (the spine oversubscription lowered in
    proportion), the same leaves and spines; None when the ratio would fall below 1 or the plan changes."""
    down = fabric.leaf_count * fabric.links_per_leaf_spine_pair
    if uplinks > down:  # a design's spine oversubscription is at least 1
        return None
    try:
        again = plane_of(resolve_design(resolved.design.model_copy(update={"spine_oversubscription": down / uplinks})))
        sized = size_fabric(again)
    except DesignError:
        return None
    same = (sized.pod_count, sized.leaf_count, sized.leaf_uplinks, sized.spines_per_pod, sized.spine_uplinks)
    return (again, sized) if same == (1, fabric.leaf_count, fabric.leaf_uplinks, fabric.spines_per_pod,
                                      uplinks) else None


def _core_ports(rows: list[dict], groups: int, cores: int) -> int:
    """Ports each core uses at the core speed (step 4): ``sum_p (N_p / G) * ceil((U_p / C) / b_p)``."""
    return sum(row["own_spines"] // groups * math.ceil(row["spine_uplinks"] // cores / row["uplinks_per_core_port"])
               for row in rows)


def _cores_per_group(rows: list[dict], plans: dict, specs, radix: int, groups: int) -> int | None:
    """``C`` (step 4): the smallest core group size whose cores' ports fit ``radix``, every ``U_p`` raised to the
    next multiple of ``C`` where its pod re-plans so (``_more_core_uplinks``). Updates ``rows`` and ``plans`` to
    the raised pods; None when no size fits."""
    units = sum(row["own_spines"] // groups * row["spine_uplinks"] / row["uplinks_per_core_port"] for row in rows)
    most = min(row["spine_radix"] - row["spine_down_ports"] for row in rows)
    return smallest_even_split(
        rows, "spine_uplinks", plans, max(1, math.ceil(units / radix - 1e-9)), max(1, most),
        lambda index, want: _more_core_uplinks(*plans[index], want),
        lambda row, plan: {**row, **_pod_row(row["index"], specs[row["index"]], *plan),
                           "uplinks_per_core_port": row["uplinks_per_core_port"]},
        lambda trial, cores: _core_ports(trial, groups, cores) <= radix)


def _core_error(design: Design, rows: list[dict], switch: str, radix: int, speed: int) -> DesignError:
    """The pods' spines' uplinks do not fit any balanced core layer of ``switch`` (ways out named; the one given as
    data drops the last extra pod)."""
    specs = pod_specs(design)
    phrase = _("drop pod {pod}").format(pod=len(specs))
    ports = sum(math.ceil(row["spine_uplinks"] / row["uplinks_per_core_port"]) for row in rows)
    return DesignError(
        _("The pods' spines have {ports} uplink ports at {speed}G for each shared core group, and no balanced "
          "core layer of {switch} switches of {radix} ports holds them.").format(
            ports=f"{ports:,}", speed=speed, switch=switch, radix=radix),
        _("Use fewer pods ({drop}), a core switch with more ports (core_switch), or a higher spine "
          "oversubscription.").format(drop=phrase), fixes=((phrase, {"pods": pods_text(specs[:-1])}),))


def size_three_tiers(design: Design, stage: int | None, catalog: Catalog) -> MixedFabric:
    """Size the pods of ``design`` on three tiers at ``stage`` (None: the final one) by the module's steps.

    Parameters
    ----------
    design : Design
        A design with ``pods``.
    stage : int, optional
        The growth stage: the pods added at stages up to it are present.
    catalog : Catalog
        The catalog.

    Returns
    -------
    MixedFabric
        ``tiers`` 3: the present pods with their own spines, the shared core layer sized for ``sized_for_stage``.

    Raises
    ------
    DesignError
        A pod that is not a folded Clos or not one spine pod, an unknown system, or spine uplinks no
        balanced core layer holds; each with ways out.
    """
    specs, stage, sized_for, first, plans = pod_plans(
        design, stage, catalog, lambda design, index, resolved: _one_spine_pod(design, index, resolved, catalog))
    rows = [_pod_row(i, specs[i], *plans[i]) for i in sorted(plans)]
    core, speed, radix = shared_layer(first, plans, rows, "core")
    groups = math.gcd(*(row["own_spines"] for row in rows))
    cores = _cores_per_group(rows, plans, specs, radix, groups) if radix else None
    if cores is None:
        raise _core_error(design, rows, core.id, radix, speed)
    present = [row for row in rows if specs[row["index"]].stage <= stage]
    pods = tuple(PodLeaves(**row, links_per_spine_core_pair=row["spine_uplinks"] // cores) for row in present)
    return MixedFabric(stage=stage, pods=pods, spine_switch="", spine_speed_gbps=0, spine_radix=0, spines=0,
                       spine_ports_used=0, sized_for_stage=sized_for, tiers=3, core_switch=core.id,
                       core_speed_gbps=speed, core_radix=radix, core_groups=groups, cores_per_group=cores,
                       core_ports_used=_core_ports(present, groups, cores), planes=first.planes,
                       plane_mode=first.plane_mode, stages=len(pod_stages(design)))
