"""A mixed design planned: its pods under one spine layer (``core.fabric.pods``), the bill, the cables and the
stages.

Each pod is planned alone (``core.plan.plan`` of ``core.fabric.pods.pod_design``: its nodes, NICs, leaves, their
cables and optics, racks and the other networks of its system); the mixed plan keeps every row of those bills but
the pods' own spine switches, and buys the shared spine layer once (``MixedFabric.spines`` of its model). The
leaf-spine cables and leaf-end optics are the pods' own (one per leaf uplink at the pod's speed); the spine-end
optics are counted on the shared spines, in their cages (``core.analysis.podoptics``). The storage and management networks are each pod's
own, summed, but for the shared spine layer's switch management ports and rack PDUs in place of the pods' own
spines' (``core.analysis.podmgmt``).

The cabling plan of the compute fabric (``mixed_links``) is ``core.fabric.podwiring``'s wiring (its ids
``pod2.node3``, ``pod2.p0.leaf1``, ``spine0`` and its rule of which leaf uplink takes which spine port, as
``1/<port>/<lane>``), so a spine layer sized for the final stage moves
no cable. ``pod_growth`` compares consecutive stages with ``core.analysis.stages``' cable comparison.

On several planes (``MixedFabric.planes``) each pod planned alone carries its planes (its leaves, cables and optics
are every plane's); the shared spines (cores), their optics and management ports are bought for every plane, and the
cabling plan is every plane's (``core.fabric.podwiring``: ``p1.spine0``). A view that reads one plane calls
``mixed_wiring`` without ``planes`` and refuses with ``core.fabric.pods.one_plane_only``'s ``DesignError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from core.analysis.compare import bom_changes
from core.analysis.podoptics import shared_spine_optics
from core.analysis.stages import Bought, PodStep, StageDelta, cable_delta, counted, fabric_transceivers_bought
from core.catalog import load_catalog
from core.cost import BomRow, build_bom
from core.design import Design
from core.errors import InputError
from core.fabric.podwiring import PodsWiring
from core.fabric.pods import (
    MixedFabric, one_plane_only, pod_design, pod_specs, pod_stages, size_pods, two_tiers_only,
)
from core.fabric.wiring import Wiring
from core import units
from core.i18n import _, ngettext, usd
from core.perf.collectives import collective
from core.physical.cabling import compute_links
from core.physical.lengths import LinkLengths
from core.physical.media import MediaBin, select_media
from core.physical.podlayout import PodsHall, kept_racks, pods_hall, pods_link_lengths
from core.plan import Plan, plan


@dataclass(frozen=True)
class MixedPlan:
    """One stage of a mixed design: the sized fabric, each present pod's own plan and the mixed bill."""

    fabric: MixedFabric
    plans: tuple[Plan, ...]
    """The present pods' plans, each alone (in ``fabric.pods`` order)."""
    bom: tuple[BomRow, ...]
    hall: PodsHall | None = None
    """Every pod's racks and the shared spines' (three tiers: cores') in one hall (``core.physical.podlayout``)."""
    lengths: tuple[tuple[LinkLengths, ...], ...] = ()
    """Per pod the lengths of its compute link classes in the hall (``pods_link_lengths``)."""
    media: tuple[tuple[MediaBin, ...], ...] = ()
    """Per pod the media of each length bin of ``lengths`` (the mixed bill's cables and optics)."""

    @property
    def capex_usd(self) -> float:
        """Capex of the mixed design [USD] (every row of ``bom``)."""
        return sum(row.extended_price_usd for row in self.bom)

    @property
    def power_kw(self) -> float:
        """IT power of the mixed design [kW] (every row of ``bom``)."""
        return sum(row.quantity * row.unit_power_w for row in self.bom) / 1000

    @property
    def level2_switches(self) -> int:
        """The switch units of every present pod's second NVLink level (``Plan.level2_switches``)."""
        return sum(p.level2_switches for p in self.plans)

    @property
    def level2_cables(self) -> int:
        """The cables of every present pod's second NVLink level (``Plan.level2_cables``)."""
        return sum(p.level2_cables for p in self.plans)


def _spine_row(p: Plan, bom: tuple[BomRow, ...] | None = None) -> BomRow | None:
    """The compute fabric's spine switch row of one pod's own plan (of ``bom``, default its own bill)."""
    spine = p.resolved.tier_switches["spine"]
    item = _("{name} (spine)").format(name=spine.name)
    return next((row for row in (p.bom if bom is None else bom) if row.category == "switch"
                 and row.network == "compute" and row.item == item and not row.spare), None)


HALL_ROUNDS = 8
"""Most rounds of ``_in_hall``'s fixed point (a pod's in-band network grown for its out-of-band switches' uplinks
and the hall holding it: one or two reach it)."""


def _in_hall(fabric: MixedFabric, plans: list[Plan]) -> tuple[PodsHall, tuple, tuple, list[tuple[BomRow, ...]]]:
    """(hall, lengths per pod, media per pod, bill per pod) of the present pods' ``plans`` (module docstring): each
    pod's bill is its own (``core.cost.build_bom``) with its compute cables' media from the hall's lengths and its
    other networks as the whole design has them (``core.analysis.podmgmt.whole_networks``). The hall's shared layer
    is the shared spines, or for pods on three tiers the shared cores. A pod whose in-band network grows on the whole
    design (its out-of-band switches' uplinks) has its racks arranged again around it
    (``core.analysis.podmgmt.placed_layout``), and the hall, its racks' PDUs and the networks are repeated until
    the in-band switches the hall holds are those the bill buys (a fixed point, at most ``HALL_ROUNDS`` rounds)."""
    from core.analysis.podmgmt import built_racks, extra_switches, hall_networks, placed_layout, placed_networks

    catalog = load_catalog()
    wiring = PodsWiring(fabric, tuple(Wiring.of(p) for p in plans))
    top = catalog.switch(fabric.core_switch if wiring.three_tiers else fabric.spine_switch)
    watts = plans[0].resolved.power_overrides.get(top.id, top.power_w)
    placed = [p.networks for p in plans]  # the networks each pod's layout holds
    layouts = [p.layout for p in plans]
    for _round in range(HALL_ROUNDS):
        kept = [built_racks(kept_racks(wiring, i, layout)) for i, layout in enumerate(layouts)]  # their PDUs
        hall = pods_hall(wiring, layouts, top, watts, extra=extra_switches(fabric, plans, kept))
        networks = hall_networks(fabric, plans, hall)
        wanted = [placed_networks(p, whole) for p, whole in zip(plans, networks)]
        if all(w is n or (w is not None and n is not None and w.devices() == n.devices())
               for w, n in zip(wanted, placed)):
            break
        placed, layouts = wanted, [placed_layout(p, w) for p, w in zip(plans, wanted)]
    lengths = pods_link_lengths(hall, wiring)
    media = tuple(select_media(catalog, p.resolved, own) for p, own in zip(plans, lengths))
    boms = [build_bom(p.resolved, p.fabric, catalog, media=m, networks=whole)
            for p, m, whole in zip(plans, media, networks)]
    return hall, lengths, media, boms


def mixed_plan(design: Design, stage: int | None = None) -> MixedPlan:
    """Plan ``design`` (with ``pods``) at growth stage ``stage`` (None: the final stage; module docstring).

    Raises ``DesignError`` (``core.fabric.pods.size_pods``) or ``InputError`` (a pod's NIC or speed the catalog
    does not offer)."""
    fabric = size_pods(design, stage)
    fabric_kind = plan(pod_design(design, 0, "")).resolved.fabric
    sized = size_pods(design, fabric.sized_for_stage)
    three = {"tiers": 3} if fabric.tiers == 3 else {}  # each pod alone as one spine pod (core.fabric.podcore)
    plans = {pod.index: plan(pod_design(design, pod.index, fabric_kind).model_copy(
        update={"oversubscription": pod.oversubscription, **three,
                **({"spine_oversubscription": pod.spine_oversubscription} if three else {})})) for pod in sized.pods}
    present = [plans[pod.index] for pod in fabric.pods]
    hall, lengths, media, boms = _in_hall(fabric, present)
    if three:
        from core.analysis.podcoreplan import mixed_three_tiers

        return MixedPlan(**mixed_three_tiers(fabric, list(plans.values()), present, boms, media), hall=hall,
                         lengths=lengths, media=media)
    rows: list[BomRow] = []
    spine_row = None
    catalog = load_catalog()
    for pod, p, bom, own_media in zip(fabric.pods, present, boms, media):
        own = _spine_row(p, bom)  # the pod's uplinks end on the shared spines (core.analysis.podoptics)
        rows += [row.model_copy(update={"pod": pod.index + 1}) for row in shared_spine_optics(  # the pod's own rows
            fabric, pod, p, own_media, tuple(row for row in bom if row is not own), catalog)]
    for p in plans.values():
        own = _spine_row(p)
        if own is not None and own.catalog_id == fabric.spine_switch:
            spine_row = own
            break
    if spine_row is not None:
        why = (_("{spines} spines shared by {pods} pods: each leaf spreads its uplinks evenly over them; "
                 "{used} of {radix} ports at {speed}G used on each (sized for stage {stage})") if fabric.stages > 1
               else _("{spines} spines shared by {pods} pods: each leaf spreads its uplinks evenly over them; "
                      "{used} of {radix} ports at {speed}G used on each")).format(
            spines=fabric.spines, pods=len(sized.pods), used=fabric.spine_ports_used, radix=fabric.spine_radix,
            speed=fabric.spine_speed_gbps, stage=fabric.sized_for_stage)
        rows.insert(0, spine_row.model_copy(update={"quantity": fabric.spines_total,
                                                    "why": in_planes(fabric, why)}))
        rows[1:1] = shared_spares(rows[0], design.spares, catalog)
    return MixedPlan(fabric=fabric, plans=tuple(present), bom=tuple(rows), hall=hall, lengths=lengths, media=media)


def in_planes(fabric: MixedFabric, why: str) -> str:
    """A shared layer's bill words ``why`` (one plane's) for every plane of ``fabric``: unchanged in one plane."""
    if fabric.planes < 2:
        return why
    return _("{planes} identical planes, each: {why}").format(planes=fabric.planes, why=why)


def shared_spares(row: BomRow, setting: str, catalog) -> tuple[BomRow, ...]:
    """The spare rows of the shared layer's switch ``row`` (the shared spines, or cores on three tiers) under the
    ``Design.spares`` setting: no pod's bill holds them (each pod's own spines' spares go with its spines)."""
    from core.spares import spare_rows

    return spare_rows([row], setting, lambda: {e.id: e.name for _kind, e in catalog.all_entries()})


def planes_line(summary: dict) -> list[tuple[str, str]]:
    """The line of ``pods_lines`` saying the counts are per plane, for a summary of pods on several planes (none in
    one plane)."""
    planes = summary.get("planes", 1)
    if planes < 2:
        return []
    return [(_("planes"), ngettext(
        "{planes} identical plane ({mode}): the leaves, uplinks and shared switches above are per plane; the "
        "bandwidths and totals below are every plane's",
        "{planes} identical planes ({mode}): the leaves, uplinks and shared switches above are per plane; the "
        "bandwidths and totals below are every plane's", planes).format(
        planes=planes, mode=_(summary["plane_mode"])))]


def mixed_wiring(mixed: MixedPlan, three_tiers: bool = False, planes: bool = False) -> PodsWiring:
    """The wiring of ``mixed``'s compute fabric: the pods' own wirings under the shared spines
    (``core.fabric.podwiring``). Pods on three tiers only for a caller that handles them (``three_tiers``: the
    topology graphs, the cabling plan, the NetBox and simulator exports, the stages, the whole-fabric what-if, link
    load, availability and as-built check); any other is refused with ``two_tiers_only``'s ``DesignError``. Pods on
    several planes likewise only for a caller that handles them (``planes``; else ``one_plane_only``'s)."""
    if not three_tiers:
        two_tiers_only(mixed.fabric)
    if not planes:
        one_plane_only(mixed.fabric)
    return PodsWiring(mixed.fabric, tuple(Wiring.of(p) for p in mixed.plans))


def mixed_links(mixed: MixedPlan) -> Iterator[tuple[str, str, str, str, str, int]]:
    """Every compute-fabric cable of ``mixed`` as ``(link class, A device, A port, Z device, Z port, speed)``
    [speed in Gb/s per direction]: each pod's node-leaf cables (its own cabling plan), then the leaf-spine cables
    of ``core.fabric.podwiring.PodsWiring.uplinks`` with the leaves' port names and the spines' ``1/<port>/<lane>``
    (module docstring: ids and port order); on three tiers each pod's own leaf-spine cables, then the spine-core
    cables of ``PodsWiring.core_links`` with the spines' own up-port names and the cores' ``1/<port>/<lane>``."""
    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
    leaf_ports: dict[int, dict[str, list[str]]] = {}  # pod -> the pod's own leaf (spine) id -> its up-port names
    for i, p in enumerate(mixed.plans):
        ports = leaf_ports[i] = {}
        for kind, a, a_port, z, z_port, speed in compute_links(p):
            if kind == "node-leaf" or (wiring.three_tiers and kind == "leaf-spine"):
                yield kind, wiring.local_id(i, a), a_port, wiring.local_id(i, z), z_port, speed
            elif kind in ("leaf-spine", "spine-core"):
                ports.setdefault(a, []).append(a_port)
    for up in wiring.core_links():  # three tiers: the pods' own spines to the shared cores
        own = wiring.wirings[up.pod].switch_id("spine", up.spine, *wiring.plane_of(up.plane))
        yield ("spine-core", wiring.own_spine_id(up.pod, up.spine, up.plane), leaf_ports[up.pod][own][up.spine_port],
               wiring.shared_core_id(up.core, up.plane), f"1/{up.core_port + 1}/{up.lane + 1}", up.speed_gbps)
    for up in wiring.uplinks():
        own = wiring.wirings[up.pod].switch_id("leaf", up.leaf, *wiring.plane_of(up.plane))
        yield ("leaf-spine", wiring.leaf_id(up.pod, up.leaf, up.plane), leaf_ports[up.pod][own][up.leaf_port],
               wiring.shared_spine_id(up.spine, up.plane), f"1/{up.spine_port + 1}/{up.lane + 1}", up.speed_gbps)


def _switch_ids(mixed: MixedPlan) -> set[str]:
    """The switches of ``mixed`` as a stage comparison tells them apart: the pods' leaves by id and the shared
    spines by id and model (``mixed_cables``)."""
    f = mixed.fabric
    model = f.core_switch if f.tiers == 3 else f.spine_switch
    ids = {f"{shared}:{model}" for shared in mixed_wiring(mixed, three_tiers=True, planes=True).shared_ids()}
    for kind, _a, _pa, z, _pz, _speed in mixed_links(mixed):
        if kind == "node-leaf" or (kind == "leaf-spine" and mixed.fabric.tiers == 3):  # leaves; pods' own spines
            ids.add(z)
    return ids


def mixed_cables(mixed: MixedPlan) -> dict:
    """Every compute-fabric cable of ``mixed``: (A end, Z end) -> (link class, speed [Gb/s]); a shared spine end (a
    shared core's on three tiers) is its id and model (``spine0:Q3400``), so a layer of another model re-terminates
    the cables it takes over."""
    f = mixed.fabric
    shared, model = ("spine-core", f.core_switch) if f.tiers == 3 else ("leaf-spine", f.spine_switch)
    return {((a, pa), (f"{z}:{model}" if kind == shared else z, pz)): (kind, speed)
            for kind, a, pa, z, pz, speed in mixed_links(mixed)}


def pod_delta(before: MixedPlan, after: MixedPlan) -> StageDelta:
    """What going from one stage of a mixed design to the next buys and recables (``core.analysis.stages``), a
    pod's second NVLink level's switch units and cables counted as a design's without pods (``stages.counted``)."""
    bought = tuple(Bought(category=c.category, item=c.item, catalog_id=c.catalog_id,
                          quantity=c.quantity_change(1, 0), usd=c.usd_change(1, 0))
                   for c in bom_changes([before, after]) if c.quantity_change(1, 0) > 0)
    ids_before, ids_after = _switch_ids(before), _switch_ids(after)
    return StageDelta(
        from_nodes=before.fabric.nodes, to_nodes=after.fabric.nodes, from_gpus=before.fabric.gpus,
        to_gpus=after.fabric.gpus, capex_usd=after.capex_usd - before.capex_usd, bought=bought,
        transceivers_bought=fabric_transceivers_bought(before.bom, after.bom),
        tiers=(before.fabric.tiers, after.fabric.tiers), pods=_pod_steps(before, after),
        **counted(before, after, ids_before, ids_after, cable_delta(mixed_cables(before), mixed_cables(after))))


def _pod_steps(before: MixedPlan, after: MixedPlan) -> tuple[PodStep, ...]:
    """Every pod after a growth step with its nodes before (0: the step adds it) and after."""
    had = {pod.index: pod.nodes for pod in before.fabric.pods}
    return tuple(PodStep(pod=pod.index + 1, system=pod.system, from_nodes=had.get(pod.index, 0), to_nodes=pod.nodes)
                 for pod in after.fabric.pods)


def pod_plans(design: Design) -> list[MixedPlan]:
    """The mixed plan of ``design`` at each of its pods' stages (``InputError`` when every pod is built now)."""
    stages = pod_stages(design)
    if len(stages) < 2:
        raise InputError(_("No growth stages: add pods at later stages, such as {example}.").format(
            example="B200:32@1"))
    return [mixed_plan(design, stage) for stage in stages]


def pod_growth(design: Design) -> list[StageDelta]:
    """The deltas of growing a mixed ``design`` through its pods' stages, one per step (``InputError`` when every
    pod is built now)."""
    plans = pod_plans(design)
    return [pod_delta(a, b) for a, b in zip(plans, plans[1:])]


def added_pods(design: Design) -> list[tuple[int, str]]:
    """(stage, ``SYSTEM x NODES`` words of the pods it adds) per later stage of a mixed ``design``."""
    specs = pod_specs(design)
    return [(stage, ", ".join(_("{system} x {nodes} nodes").format(system=s.system, nodes=f"{s.nodes:,}")
                              for s in specs if s.stage == stage)) for stage in pod_stages(design)[1:]]


COLLECTIVE_BYTES = 1 << 30
"""Message of the all-reduce the pods summary estimates [bytes] (1 GiB: bandwidth-bound)."""


def pod_busbw(mixed: MixedPlan) -> list[float]:
    """Bus bandwidth of a ``COLLECTIVE_BYTES`` all-reduce over each pod's GPUs, a job placed on that pod (its own
    plan: its system, NVLink, NICs and leaves; ``core.perf.collectives``) [GB/s]."""
    return [collective(p, "all-reduce", COLLECTIVE_BYTES)["busbw_gbytes"] for p in mixed.plans]


def pods_summary(mixed: MixedPlan) -> dict:
    """The mixed design's numbers as JSON-ready data (English keys): per pod, the shared spines, totals [USD, kW,
    Gb/s per direction], and the all-reduce bus bandwidth [GB/s] of a job on each pod (``pod_busbw``) and of one
    across every pod, which the slowest pod bounds (the smallest of the pods'; the longer ring's latency is left
    out, small beside a bandwidth-bound 1 GiB)."""
    f = mixed.fabric
    busbw = pod_busbw(mixed)
    if f.tiers == 3:
        from core.analysis.podcoreplan import three_tier_summary

        return three_tier_summary(mixed, busbw, COLLECTIVE_BYTES)
    return {
        "allreduce_bytes": COLLECTIVE_BYTES, "cross_pod_allreduce_busbw_gbytes": min(busbw),
        "stage": f.stage, "spine_sized_for_stage": f.sized_for_stage, "stages": f.stages,
        "pods": [{"pod": pod.index + 1, "system": pod.system, "stage": pod.stage, "nodes": pod.nodes,
                  "gpus": pod.gpus, "port_speed_gbps": pod.port_speed_gbps, "uplink_speed_gbps": pod.uplink_speed_gbps,
                  "leaf_switch": pod.leaf_switch, "leaves": pod.leaves, "uplinks_per_leaf": pod.uplinks_per_leaf,
                  "uplinks_per_spine_port": pod.uplinks_per_spine_port,
                  "links_per_leaf_spine_pair": pod.links_per_leaf_spine_pair,
                  "spine_ports_each": pod.spine_ports(f.spines), "gbps_per_gpu": pod.gbps_per_gpu,
                  "allreduce_busbw_gbytes": bw}
                 for pod, bw in zip(f.pods, busbw)],
        "spines": {"switch": f.spine_switch, "count": f.spines, "speed_gbps": f.spine_speed_gbps,
                   "radix": f.spine_radix, "ports_used_each": f.spine_ports_used},
        "switches": f.switches_total, "planes": f.planes, "plane_mode": f.plane_mode, "nodes": f.nodes,
        "gpus": f.gpus, "cross_pod_gbps_per_gpu": f.cross_pod_gbps_per_gpu, "slowest_pod": f.slowest.index + 1,
        "pods_alike": f.pods_alike, "bisection_tbits_one_direction": f.bisection_gbps / 1000,
        "capex_usd": round(mixed.capex_usd, 2), "it_kw": round(mixed.power_kw, 3),
    }


def pods_title(summary: dict | None) -> str:
    """The heading of a design's pods section (the Designer's box, the review pack): under one spine layer, or
    under one core layer for pods on three tiers (``summary`` from ``pods_summary``; None: not sized)."""
    if summary is not None and "cores" in summary:
        return _("Mixed pods under one core layer")
    return _("Mixed pods under one spine layer")


def pods_lines(summary: dict, unit: str = "GB/s") -> list[tuple[str, str]]:
    """(label, words) per line of a mixed design's summary (``pods_summary``), in the current language: a line per
    pod (system, nodes, port speeds by their line rate, leaves, uplinks, the bandwidth per GPU and the all-reduce on
    the pod), the shared spines, the bound across pods and the totals (capex in US dollars, IT power); bandwidths
    per direction in ``unit`` ("GB/s" or "Gb/s", ``core.units``); the ``plan`` command and the review pack show them."""
    if "cores" in summary:
        from core.analysis.podcoreplan import three_tier_lines

        return three_tier_lines(summary, unit)
    lines, staged = [], summary.get("stages", 1) > 1  # one stage: nothing said of stages
    for pod in summary["pods"]:
        lines.append((_("pod {pod}").format(pod=pod["pod"]), (_(
            "{system} x {nodes} nodes ({gpus} GPUs), stage {stage}: {leaves} {leaf} leaves at {speed}G, {uplinks} "
            "uplinks each at {up}G, {pair} to each spine, {share} per spine port; {rate} per GPU; all-reduce of "
            "1 GiB on the pod {busbw} bus bandwidth") if staged else _(
            "{system} x {nodes} nodes ({gpus} GPUs): {leaves} {leaf} leaves at {speed}G, {uplinks} uplinks each at "
            "{up}G, {pair} to each spine, {share} per spine port; {rate} per GPU; all-reduce of 1 GiB on the pod "
            "{busbw} bus bandwidth")).format(
            busbw=units.bandwidth(units.from_gbytes(pod["allreduce_busbw_gbytes"]), unit),
            system=pod["system"], nodes=f"{pod['nodes']:,}", gpus=f"{pod['gpus']:,}", stage=pod["stage"],
            leaves=f"{pod['leaves']:,}", leaf=pod["leaf_switch"], speed=pod["port_speed_gbps"],
            uplinks=pod["uplinks_per_leaf"], up=pod["uplink_speed_gbps"], pair=pod["links_per_leaf_spine_pair"],
            share=pod["uplinks_per_spine_port"], rate=units.bandwidth(pod["gbps_per_gpu"], unit))))
    s = summary["spines"]
    lines.append((_("shared spines"), (_(
        "{count} {switch} at {speed}G, {used} of {radix} ports used on each (sized for stage {stage})") if staged
        else _("{count} {switch} at {speed}G, {used} of {radix} ports used on each")).format(
        count=s["count"], switch=s["switch"], speed=s["speed_gbps"], used=s["ports_used_each"], radix=s["radix"],
        stage=summary["spine_sized_for_stage"])))
    return lines + planes_line(summary) + totals_lines(summary, unit)


def bound_words(summary: dict) -> str:
    """Who bounds a collective across pods (``pods_summary``): ``pod 1, the slowest, bounds it``, or, when every pod
    has the same per-GPU bandwidth across pods (``pods_alike``), that they are alike."""
    if summary.get("pods_alike"):
        return _("every pod has the same rate")
    return _("pod {pod}, the slowest, bounds it").format(pod=summary["slowest_pod"])


def cross_pod_busbw(summary: dict, unit: str) -> str:
    """The bus bandwidth of an all-reduce of 1 GiB across every pod (``pods_summary``) in ``unit`` ("GB/s" or
    "Gb/s", the user's; ``core.units.bandwidth``), as ``totals_lines`` and ``core.analysis.whole``'s sentences say it."""
    return units.bandwidth(units.from_gbytes(summary["cross_pod_allreduce_busbw_gbytes"]), unit)


def totals_lines(summary: dict, unit: str = "GB/s") -> list[tuple[str, str]]:
    """The last two of ``pods_lines`` (two tiers or three): the bound across pods (per GPU and all-reduce per
    direction in ``unit``, bisection one direction) and the mixed totals (capex in US dollars, IT power)."""
    return [(_("across pods"), _(
        "{rate} per GPU ({bound}); bisection {bisection} (one direction); "
        "all-reduce of 1 GiB across every pod at most {busbw} bus bandwidth").format(
        rate=units.bandwidth(summary["cross_pod_gbps_per_gpu"], unit), bound=bound_words(summary),
        busbw=cross_pod_busbw(summary, unit),
        bisection=units.bandwidth(units.from_tbits(summary["bisection_tbits_one_direction"]), unit))),
        (_("mixed total"), _("{gpus} GPUs, {switches} compute fabric switches, capex {capex}, IT power {power}")
         .format(gpus=f"{summary['gpus']:,}", switches=f"{summary['switches']:,}", capex=usd(summary["capex_usd"]),
                 power=units.power(summary["it_kw"])))]
