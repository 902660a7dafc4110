"""The bill of a design with pods on three tiers (``core.fabric.podcore``): each pod's own plan as one spine pod,
with the shared core layer bought once in place of the pods' own cores.

Each present pod is planned alone on three tiers (``core.analysis.pods.mixed_plan``): its nodes, leaves, its own
spines, the node-leaf, leaf-spine and spine-core cables and optics and its other networks are its own bill's rows.
The mixed bill keeps every row but the pod's own core switches (installed, not spare), and buys the shared cores
once (``MixedFabric.cores`` of the core model). The cables' lengths and media are the hall's
(``core.physical.podlayout``: every pod's racks with its own spines, the shared cores' racks in the middle rows;
a spine-core cable runs from the pod's spine rack to its core's rack). The spine-core switch-side optics are
counted by end, as the shared spine layer's leaf-spine ones (``core.analysis.podoptics``): at the pod's own spines
and at the shared cores, in their cages at the core speed. The out-of-band
network loses each pod's own cores' management ports and the first pod's takes the shared cores' and their racks'
PDUs (``core.analysis.podmgmt.with_shared_management``).
"""

from __future__ import annotations

from core.cost import BomRow
from core.fabric.pods import MixedFabric
from core.i18n import _


def _core_row(p, bom: tuple[BomRow, ...]) -> BomRow | None:
    """The compute fabric's core switch row of one pod's own bill ``bom`` (installed, not spare)."""
    core = p.resolved.tier_switches["core"]
    item = _("{name} (core)").format(name=core.name)
    return next((row for row in bom if row.category == "switch" and row.network == "compute" and row.item == item
                 and not row.spare), None)


def mixed_three_tiers(fabric: MixedFabric, sized: list, present: list, boms: list, media: tuple) -> dict:
    """The ``core.analysis.pods.MixedPlan`` fields of pods on three tiers (module docstring).

    Parameters
    ----------
    fabric : MixedFabric
        The sized pods (``tiers`` 3) at the stage.
    sized : list of core.plan.Plan
        The own plans of the pods the core layer is sized for (the final stage's with ``Design.pods_final``): the
        shared core row is the first of their core rows of the core model.
    present : list of core.plan.Plan
        The present pods' own plans on three tiers (``fabric.pods`` order).
    boms : list of tuple of BomRow
        Each present pod's own bill in the hall (``core.analysis.pods._in_hall``: its compute cables' media from
        the hall's lengths, its out-of-band network with the shared cores' management).
    media : tuple of tuple of MediaBin
        Each present pod's compute media bins in the hall: its spine-core switch-side optics are counted at its own
        spines and at the shared cores (``core.analysis.podoptics.shared_spine_optics``).

    Returns
    -------
    dict
        ``fabric``, ``plans`` and ``bom`` (every pod's rows but its own cores, the shared cores first; prices in
        USD as the pods' own bills).
    """
    from core.analysis.podoptics import shared_spine_optics
    from core.catalog import load_catalog

    rows: list[BomRow] = []
    catalog = load_catalog()
    for pod, p, bom, own_media in zip(fabric.pods, present, boms, media):
        own = _core_row(p, bom)
        rows += [row.model_copy(update={"pod": pod.index + 1}) for row in shared_spine_optics(  # the pod's own rows
            fabric, pod, p, own_media, tuple(row for row in bom if row is not own), catalog)]
    shared = next((row for row in (_core_row(p, p.bom) for p in sized)
                   if row is not None and row.catalog_id == fabric.core_switch), None)
    if shared is not None:
        from core.analysis.pods import in_planes

        rows.insert(0, shared.model_copy(update={
            "quantity": fabric.cores_total,
            "why": in_planes(fabric, (_(
                "{cores} cores shared by {pods} pods: {groups} groups of {per_group}, spine j of every pod to "
                     "group j; {used} of {radix} ports at {speed}G used on each core (sized for stage "
                     "{stage})") if fabric.stages > 1 else _(  # one stage: nothing said of stages
                "{cores} cores shared by {pods} pods: {groups} groups of {per_group}, spine j of every pod to "
                "group j; {used} of {radix} ports at {speed}G used on each core")).format(cores=fabric.cores, pods=len(sized), groups=fabric.core_groups,
                                        per_group=fabric.cores_per_group, used=fabric.core_ports_used,
                                        radix=fabric.core_radix, speed=fabric.core_speed_gbps,
                                        stage=fabric.sized_for_stage))}))
        from core.analysis.pods import shared_spares

        rows[1:1] = shared_spares(rows[0], present[0].resolved.design.spares, catalog)
    return {"fabric": fabric, "plans": tuple(present), "bom": tuple(rows)}


def three_tier_summary(mixed, busbw: list[float], allreduce_bytes: int) -> dict:
    """``core.analysis.pods.pods_summary`` of pods on three tiers: per pod its leaves, own spines and core uplinks,
    the shared cores, totals [USD, kW, Gb/s per direction] and the all-reduce bus bandwidths ``busbw`` [GB/s] of a job
    on each pod of an ``allreduce_bytes`` message [bytes]; one across every pod is bounded by the smallest of them,
    each scaled by its pod's rate across the core over its own (an approximation for a bandwidth-bound message)."""
    f = mixed.fabric
    # across pods the core bounds each pod's share: its own bus bandwidth scaled by its rate across the core over its
    # own (a bandwidth-bound message; 1 unless the spines taper into the core)
    across = min(bw * min(1.0, pod.cross_gbps_per_gpu / pod.gbps_per_gpu) for pod, bw in zip(f.pods, busbw))
    return {
        "allreduce_bytes": allreduce_bytes, "cross_pod_allreduce_busbw_gbytes": across,
        "stage": f.stage, "core_sized_for_stage": f.sized_for_stage, "tiers": 3, "stages": f.stages,
        "pods": [{"pod": pod.index + 1, "system": pod.system, "stage": pod.stage, "nodes": pod.nodes,
                  "gpus": pod.gpus, "port_speed_gbps": pod.port_speed_gbps, "uplink_speed_gbps": pod.uplink_speed_gbps,
                  "leaf_switch": pod.leaf_switch, "leaves": pod.leaves, "uplinks_per_leaf": pod.uplinks_per_leaf,
                  "links_per_leaf_spine_pair": pod.links_per_leaf_spine_pair, "spine_switch": pod.spine_switch,
                  "spines": pod.own_spines, "spine_uplinks": pod.spine_uplinks,
                  "links_per_spine_core_pair": pod.links_per_spine_core_pair,
                  "uplinks_per_core_port": pod.uplinks_per_core_port, "core_ports_each": pod.core_ports(),
                  "gbps_per_gpu": pod.gbps_per_gpu, "cross_gbps_per_gpu": pod.cross_gbps_per_gpu,
                  "allreduce_busbw_gbytes": bw}
                 for pod, bw in zip(f.pods, busbw)],
        "cores": {"switch": f.core_switch, "count": f.cores, "groups": f.core_groups,
                  "per_group": f.cores_per_group, "speed_gbps": f.core_speed_gbps, "radix": f.core_radix,
                  "ports_used_each": f.core_ports_used},
        "switches": f.switches_total, "planes": f.planes, "plane_mode": f.plane_mode, "nodes": f.nodes, "gpus": f.gpus,
        "cross_pod_gbps_per_gpu": f.cross_pod_gbps_per_gpu, "slowest_pod": f.slowest.index + 1,
        "pods_alike": f.pods_alike,
        "bisection_tbits_one_direction": f.bisection_gbps / 1000,
        "capex_usd": round(mixed.capex_usd, 2), "it_kw": round(mixed.power_kw, 3),
    }


def three_tier_lines(summary: dict, unit: str = "GB/s") -> list[tuple[str, str]]:
    """(label, words) per line of ``three_tier_summary`` in the current language (``core.analysis.pods.pods_lines``'
    lines for pods on three tiers: port speeds by their line rate, bandwidths per direction in ``unit`` ("GB/s" or
    "Gb/s", ``core.units``), capex in US dollars, IT power)."""
    from core import units

    lines, staged = [], summary.get("stages", 1) > 1  # one stage: nothing said of stages
    for pod in summary["pods"]:
        lines.append((_("pod {pod}").format(pod=pod["pod"]), (_(
            "{system} x {nodes} nodes ({gpus} GPUs), stage {stage}: {leaves} {leaf} leaves at {speed}G, {uplinks} "
            "uplinks each at {up}G to its own {spines} {spine} spines, {spine_up} core uplinks each, {pair} to each "
            "core of its group; {rate} per GPU in the pod, {cross} across the core; all-reduce of 1 GiB on the "
            "pod {busbw} bus bandwidth") if staged else _(
            "{system} x {nodes} nodes ({gpus} GPUs): {leaves} {leaf} leaves at {speed}G, {uplinks} uplinks each at "
            "{up}G to its own {spines} {spine} spines, {spine_up} core uplinks each, {pair} to each core of its "
            "group; {rate} per GPU in the pod, {cross} across the core; all-reduce of 1 GiB on the pod {busbw} bus "
            "bandwidth")).format(
            system=pod["system"], nodes=f"{pod['nodes']:,}", gpus=f"{pod['gpus']:,}", stage=pod["stage"],
            leaves=f"{pod['leaves']:,}", leaf=pod["leaf_switch"], speed=pod["port_speed_gbps"],
            uplinks=pod["uplinks_per_leaf"], up=pod["uplink_speed_gbps"], spines=pod["spines"],
            spine=pod["spine_switch"], spine_up=pod["spine_uplinks"], pair=pod["links_per_spine_core_pair"],
            rate=units.bandwidth(pod["gbps_per_gpu"], unit), cross=units.bandwidth(pod["cross_gbps_per_gpu"], unit),
            busbw=units.bandwidth(units.from_gbytes(pod["allreduce_busbw_gbytes"]), unit))))
    c = summary["cores"]
    lines.append((_("shared cores"), (_(
        "{count} {switch} at {speed}G in {groups} groups of {per_group}, {used} of {radix} ports used on each core "
        "(sized for stage {stage})") if staged else _(
        "{count} {switch} at {speed}G in {groups} groups of {per_group}, {used} of {radix} ports used on each "
        "core")).format(
        count=c["count"], switch=c["switch"], speed=c["speed_gbps"], groups=c["groups"], per_group=c["per_group"],
        used=c["ports_used_each"], radix=c["radix"], stage=summary["core_sized_for_stage"])))
    from core.analysis.pods import planes_line, totals_lines  # it reads this module's lines for pods on three tiers

    return lines + planes_line(summary) + totals_lines(summary, unit)


def three_tiers_note() -> str:
    """The words under a summary of pods on three tiers (the review pack, the Pods tab), in the current language."""
    return _("The numbers above are the whole design's: every pod's nodes, leaves and own spines, the shared cores and "
             "the mixed bill. Each pod keeps its own two-tier fabric; the pods' spines join one shared core layer "
             "sized for the sum of their uplinks.")
