"""Plan a design end to end: resolve, size the fabric, bandwidth, bill of materials, cost.

``plan(design)`` is the one entry point the pages, the CLI and the share
links call. It is pure and deterministic; results are immutable.

A design that cannot be built raises ``DesignError`` whose suggestion names only
ways out that were checked: ``ways_out`` tries small changes (tiers to auto, per-rail
planes that fill the NICs evenly, another Dragonfly+ global ratio, a switch with more ports,
another port speed, fewer planes, the other topology, fewer NICs per node, more leaf
oversubscription, fewer nodes), re-plans each and
keeps the first ``MAX_WAYS_OUT`` that build; ``DesignError.fixes`` holds them as
design changes. A way out that cannot help (a larger-radix switch when none in
the catalog holds the nodes) is never offered.

Languages: a plan holds text in the language of the request (notes, explanations, BOM ``why``;
``core.i18n``), so the caches key by ``core.i18n.current()`` as well as the design. The way-out
phrases are in that language too and each is a substring of the error's suggestion (capitalised
first letter aside). ``Plan.summary()`` keeps its keys and ids English (machine-readable output);
its ``explanation`` lines are text in the current language.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, NamedTuple

import pandas as pd
from pydantic import BaseModel, ConfigDict, ValidationError

from core.fabric.bandwidth import Bandwidth, compute_bandwidth
from core import scaleup, units
from core.catalog import Catalog, load_catalog
from core.cost import BomRow, CostSummary, in_compute_fabric, bom_dataframe, build_bom, summarize_cost
from core.design import (
    Design,
    ResolvedDesign,
    ResolvedFields,
    default_switch,
    design_nics_per_node,
    offered_port_speeds,
    resolve_design,
    resolve_nic_and_speed,
    resolved_of,
)
from core.errors import DesignError, FabricPlannerError, GpuLimitError, joined
from core.memo import bounded, spoken, stage, text_bytes
from core.processes import env_int
from core.i18n import _, current, ngettext
from core.i18n import language as speaking
from core.fabric.families import (PLAN_HOPS, family as topology_family, hops_key, leaf_whatif, link_counts,
                                   switch_tiers)
from core.fabric import domainlevels
from core.fabric.sizing import FabricPlan, size_fabric
from core.networks import (NETWORKS, ClusterNetworks, NetworkFabric, NetworkInputs, network_parts,
                           networks_bytes, networks_for, size_networks)
from core.physical.layout import Arrangement, Layout, device_rack_count, devices_to_place, drafted_racks
from core.physical.lengths import LinkLengths, arranged_racks, placed_lengths
from core.physical.media import MediaBin, select_media
from core.physical.racks import RackCatalog, load_racks

MAX_WAYS_OUT = 3
"""Most ways out one error names."""


SHARE_DIGITS = 4
"""Decimals a share keeps in ``Plan.summary()`` (0.0535 = 5.35%): every view formats that one rounded value."""


SECONDS_PER_TCO_YEAR = 365.0 * 86400.0
"""Seconds in one year of ``Design.tco_years`` (365 days): the year every TCO share is taken over."""


def tco_share_usd_per_s(tco_usd: float, tco_years: float, gpus: float, of_gpus: float) -> float:
    """What ``gpus`` GPUs of a design of ``of_gpus`` GPUs cost per second [USD per second]: the design's TCO
    ``tco_usd`` [USD over ``tco_years`` years of 365 days: capex plus energy] spread evenly over every second of
    ``tco_years`` and over every GPU of the design, times ``gpus``. The one rule every job's cost uses: a training
    run's cost [USD] (x its seconds), a deployment's cost per million output tokens [USD] and the optimizer's cost
    per GPU-hour [USD per GPU-hour] (``gpus = of_gpus = 1``: x 3,600). A design with pods shares its whole TCO over
    all its GPUs (``Plan.cost_basis``): a job on one pod pays its GPUs' share of every pod and of the shared spines.

    Parameters
    ----------
    tco_usd : float
        The design's total cost of ownership [USD].
    tco_years : float
        Years the TCO covers (``Design.tco_years``).
    gpus : float
        GPUs the job uses.
    of_gpus : float
        GPUs of the whole design the TCO pays for.
    """
    return tco_usd / (tco_years * SECONDS_PER_TCO_YEAR) * gpus / of_gpus


def cost_basis(p) -> tuple[CostSummary, int]:
    """``p.cost_basis()`` of a ``Plan`` (the cost a job on some of its GPUs is charged a share of and the GPUs it
    is shared over); a view of a plan without that method (``core.analysis.perfview``) gives its own ``cost`` and
    ``resolved.gpus``."""
    own = getattr(p, "cost_basis", None)
    return own() if callable(own) else (p.cost, p.resolved.gpus)


def shown_share(share: float) -> float:
    """``share`` (0..1) rounded once, as ``Plan.summary()`` keeps it and every view formats it."""
    return round(share, SHARE_DIGITS)


class Plan(BaseModel):
    """Everything the engine knows about one design."""

    model_config = ConfigDict(frozen=True)

    resolved: ResolvedDesign
    fabric: FabricPlan
    bandwidth: Bandwidth
    bom: tuple[BomRow, ...]
    cost: CostSummary
    reserved_bom: tuple[BomRow, ...] = ()
    """Network items still to buy to grow to ``design.grow_to`` nodes (future leaves, pods' spines, links);
    ``bom`` is what is installed now, spines and cores for the final size included."""
    layout: Layout | None = None
    """Racks, rows and every device's position (``core.physical.layout``)."""
    lengths: tuple[LinkLengths, ...] = ()
    """Cable length distribution per compute link class (``core.physical.lengths``)."""
    media: tuple[MediaBin, ...] = ()
    """Media per link class and length bin (``core.physical.media.select_media``; ``media_for`` looks a link up)."""
    networks: ClusterNetworks | None = None
    """Storage, in-band and out-of-band networks (``core.networks.size_networks``)."""

    def cost_basis(self) -> tuple[CostSummary, int]:
        """The cost summary a job on some of this plan's GPUs is charged a share of and the GPUs it is shared over
        (``tco_share_usd_per_s``): the plan's own ``cost`` and GPUs; the plans of a design with pods
        (``core.analysis.whole``: the whole design's and a pod's) give the whole design's cost and GPUs."""
        return self.cost, self.resolved.gpus

    @property
    def reserved_network_capex_usd(self) -> float:
        return sum(r.extended_price_usd for r in self.reserved_bom)

    @property
    def design(self) -> Design:
        return self.resolved.design

    @property
    def planes(self) -> int:
        """The design's planes, as every surface names them: per-rail planes are the fabric's islands (the engine
        sizes them as one structure of ``fabric.planes`` = 1)."""
        return self.fabric.islands if self.resolved.plane_mode == "per-rail" else self.fabric.planes

    @property
    def switch_tiers(self) -> int:
        """The switch tiers as every surface counts them (``core.fabric.families.switch_tiers``: a torus 0, a
        classic Dragonfly its one router tier; ``summary()``'s ``tiers``, the design's words)."""
        return switch_tiers(self.fabric.family, self.fabric.tiers)

    @property
    def leaf_ratio(self) -> bool:
        """Whether the design's leaf oversubscription is a setting of this fabric (``core.fabric.families
        .leaf_whatif``; a classic Dragonfly's routers and a torus have none), so words say "2:1 at the leaf"."""
        return leaf_whatif(self.fabric.family)

    def bom_frame(self) -> pd.DataFrame:
        """The bill of materials as a pandas DataFrame (one row per item)."""
        return bom_dataframe(self.bom)

    def transceiver_counts(self) -> dict[str, int]:
        """Transceivers installed at the switch end and at the node end (spares on the shelf not counted)."""
        counts = {"switch_side": 0, "node_side": 0}
        for row in self.bom:
            if row.category == "transceiver" and row.network == "compute" and row.end and not row.spare:
                counts[f"{row.end}_side"] += row.quantity
        return counts

    @property
    def level2_cables(self) -> int:
        """The cables of a second NVLink level (``domainlevels.levels_summary``'s ``level2_cables_total``, the bill's
        level-2 cable row; 0 with one level): links of the compute network, counted by the Links card (with their
        optical modules on the Transceivers card) and the By network table's compute row, as the capex holds them."""
        return domainlevels.levels_summary(self.resolved)["level2_cables_total"]

    @property
    def level2_switches(self) -> int:
        """The switch units of a second NVLink level (``levels_summary``'s ``level2_switches_total``, the bill's level-2
        switch row; 0 with one level): switches of the compute network, in the switch cards' total (``summary()``'s
        ``switches["nvlink_level2"]``) as in the By network table's compute row and the capex."""
        return domainlevels.levels_summary(self.resolved)["level2_switches_total"]

    def nvlink_summary(self) -> dict:
        """Scale-up domain: NVLink generation (0 = not NVLink), links per GPU, bandwidth [GB/s], switch chips (the
        largest domain; with two levels, first-level chips of its racks plus its level-2 chips), its kind
        (``switch``/``mesh``), name, vendor and per-peer bandwidths (``core.scaleup.summary``) and its levels
        (``core.fabric.domainlevels.levels_summary``)."""
        r = self.resolved
        if r.nvlink_generation:
            generation = load_catalog().nvlink_generation(r.nvlink_generation)
            links = max(0, round(r.nvlink_gbytes_per_gpu_bidir / generation.link_gbytes_bidir))
        else:
            links = r.system.nvlink_links_per_gpu
        kind = scaleup.summary(r.system, r.nvlink_domain_gpus, r.nvlink_gbytes_per_gpu_bidir)
        own = r.nvlink_domain_gpus == r.system.nvlink_domain_gpus  # the bus racks come with the system's domain
        kind["switch_racks"] = r.system.scaleup_switch_racks * -(-r.gpus // r.nvlink_domain_gpus) if own else 0
        return {
            "generation": r.nvlink_generation,
            "links_per_gpu": links,
            "gbytes_per_gpu_bidir": r.nvlink_gbytes_per_gpu_bidir,
            "domain_gpus": r.nvlink_domain_gpus,
            "nvswitch_chips": domainlevels.domain_chips(r),
            "nvswitch_generation": r.system.nvswitch_generation,
            **kind,
            "link_gbytes_per_direction": (generation.link_gbytes_per_direction if r.nvlink_generation
                                          else kind["link_gbytes_per_direction"]),
            **domainlevels.levels_summary(r),
        }

    def networks_summary(self) -> dict:
        """``{compute, storage, inband, oob: {switches, links, transceivers, capex_usd, power_kw}}``: each
        network's switches, links, transceivers, capex [USD] and power [kW] from the BOM (compute holds the
        nodes, their NICs and the compute fabric's UFM appliances); their sum is the design's total. Counts
        are installed parts; capex includes the network's spares (``Design.spares``)."""
        out = {}
        for network in NETWORKS:
            rows = [r for r in self.bom if r.network == network]
            out[network] = {
                "switches": sum(r.quantity for r in rows if r.category == "switch" and not r.spare),
                "links": 0,
                "transceivers": sum(r.quantity for r in rows if r.category == "transceiver" and not r.spare),
                "capex_usd": round(sum(r.extended_price_usd for r in rows), 2),
                "power_kw": round(sum(r.extended_power_w for r in rows) / 1000, 3),
            }
        f = self.fabric
        out["compute"]["links"] = (f.node_leaf_links + f.leaf_spine_links + f.spine_core_links + f.global_links) \
            * f.planes + f.torus_links + sum(link_counts(f).values()) \
            + self.level2_cables  # (a Dragonfly's local links; a second NVLink level's cables)
        if self.networks is not None:
            out["compute"]["links"] += sum(link.count for link in self.networks.compute_links)
            for sized in self.networks.sized():
                out[sized.network]["links"] = sized.link_count
        return out

    def racks_summary(self) -> dict:
        """``{compute, network, storage, total, max_kw_per_rack, rows}`` (+ management, floor area, limit)."""
        if self.layout is None:
            return {"compute": self.cost.racks_compute, "network": 0, "storage": 0, "management": 0,
                    "total": self.cost.racks_compute, "max_kw_per_rack": 0.0, "rows": 0}
        return self.layout.summary()

    def summary(self) -> dict:
        """The headline numbers as plain JSON-ready data (counts summed over planes)."""
        fabric = self.fabric
        planes = fabric.planes
        resolved = self.resolved
        transceivers = self.transceiver_counts()
        level2_switches = self.level2_switches
        return {
            "gpus": resolved.gpus,
            "nodes": resolved.nodes,
            "gpu_model": resolved.system.id,
            "gpus_per_node": resolved.gpus_per_node,
            "fabric": resolved.fabric,
            "topology": resolved.topology,
            "switch_model": resolved.switch.id,
            "switch_models": {tier: s.id for tier, s in resolved.tier_switches.items()},
            "nic_model": resolved.nic.id,
            "port_speed_gbps": resolved.port_speed_gbps,
            "uplink_speed_gbps": resolved.uplink_gbps,
            "plane_mode": resolved.plane_mode,
            "islands": fabric.islands,
            "growth": {
                "grow_to_nodes": fabric.grow_to_nodes or resolved.nodes,
                "max_nodes_without_recabling": fabric.max_nodes_without_recabling,
                "reserved_network_capex_usd": round(self.reserved_network_capex_usd, 2),
            },
            "nics_per_node": resolved.nics_per_node,
            "planes": self.planes,
            "tiers": self.switch_tiers,  # a torus: no switch tier
            "scalable_units": fabric.group_count if resolved.topology != "top-of-rack" else None,
            "pods": fabric.pod_count if fabric.tiers == 3 else None,
            "switches": {
                "leaf": fabric.leaf_count_total,
                "spine": fabric.spine_count_total,
                "core": fabric.core_count_total,
                **({"nvlink_level2": level2_switches} if level2_switches else {}),  # its switch units
                "total": fabric.switch_count_total + level2_switches,
            },
            "links": {
                "node_leaf": fabric.node_leaf_links * planes,
                "leaf_spine": fabric.leaf_spine_links * planes,
                "spine_core": fabric.spine_core_links * planes,
                **({"global": fabric.global_links * planes} if fabric.global_links else {}),
                **({"torus": fabric.torus_links} if fabric.torus_links else {}),
                **link_counts(fabric),  # a family's other classes (a Dragonfly's local links)
                **({"nvlink_level2": self.level2_cables} if self.level2_cables else {}),  # its cables (optical)
            },
            "transceivers": transceivers,
            "bandwidth": {
                "nvlink_gbytes_per_gpu_bidir": self.bandwidth.nvlink_gbytes_per_gpu_bidir,
                "nvlink_gbytes_per_gpu_per_direction": self.bandwidth.nvlink_gbytes_per_gpu_per_direction,
                "scaleout_gbits_per_gpu": self.bandwidth.scaleout_gbits_per_gpu,
                "bisection_tbits_one_direction": round(self.bandwidth.bisection_tbits_one_direction, 6),
                "oversubscription": round(self.bandwidth.oversubscription, 4),
                "leaf_oversubscription": round(self.bandwidth.leaf_oversubscription, 4),
                "scaleup_to_scaleout_ratio": round(self.bandwidth.scaleup_to_scaleout_ratio, 3),
                **{hops_key(fabric.family, name): getattr(self.bandwidth, "hops_" + name) for name in PLAN_HOPS},
                "islands": self.bandwidth.islands,
                "cross_island_via": self.bandwidth.cross_island_via,
            },
            "cost": {
                "capex_usd": round(self.cost.capex_usd, 2),
                "capex_per_gpu_usd": round(self.cost.capex_per_gpu_usd, 2),
                "network_capex_usd": round(self.cost.network_capex_usd, 2),
                "scaleup_capex_usd": round(self.cost.scaleup_capex_usd, 2),
                "network_share": shown_share(self.cost.network_share),
                "energy_usd_per_year": round(self.cost.energy_usd_per_year, 2),
                "tco_usd": round(self.cost.tco_usd, 2),
                "tco_years": self.cost.tco_years,
                "capex_usd_low": round(self.cost.capex_usd_low, 2),
                "capex_usd_high": round(self.cost.capex_usd_high, 2),
                "network_capex_usd_low": round(self.cost.network_capex_usd_low, 2),
                "network_capex_usd_high": round(self.cost.network_capex_usd_high, 2),
                "price_basis": self.cost.price_basis,
                "spares": resolved.design.spares,
                "spares_capex_usd": round(self.cost.spares_capex_usd, 2),
                "spares_capex_usd_low": round(self.cost.spares_capex_usd_low, 2),
                "spares_capex_usd_high": round(self.cost.spares_capex_usd_high, 2),
                "price_note": "catalog price book at the design's price_basis (street = typical, list = high, "
                              "hyperscale = low) unless overridden; low/high: every price at its range's end",
            },
            "nvlink": self.nvlink_summary(),
            "power": {
                "it_kw": round(self.cost.it_kw, 3),
                "network_kw": round(self.cost.network_kw, 3),
                "facility_kw": round(self.cost.facility_kw, 3),
                "pue": self.cost.pue,
                "basis": "nodes at their maximum power, network parts at typical power; "
                         "energy assumes that draw around the clock (an upper bound)",
            },
            "racks_compute": self.layout.counts()["compute"] if self.layout else self.cost.racks_compute,
            "racks": self.racks_summary(),
            "networks": self.networks_summary(),
            "explanation": list(resolved.notes) + list(fabric.explanation),
            **self._family_summary(),
        }

    def _family_summary(self) -> dict:
        """The topology family's own summary (``core.fabric.families``; ``{"dragonfly": {...}}`` for a
        Dragonfly+); empty for a folded Clos (its summary keeps its keys)."""
        other = topology_family(self.fabric.family)
        return other.summary(self.fabric, self.bandwidth) if other is not None else {}


def plan(design: Design, catalog: Catalog | None = None) -> Plan:
    """Plan ``design`` against ``catalog`` (the bundled one by default).

    Raises
    ------
    InputError
        Unknown model or a combination the hardware does not offer.
    DesignError
        A design that cannot be built, with what would work.
    """
    try:
        if catalog is None:
            return _plan_cached(design, current())
        return _plan(design, catalog)
    except GpuLimitError as exc:  # the limit's own way out first, then what stops a design of that size
        _within_limit(design, exc, catalog)
    except DesignError as exc:
        fixes = (_ways_out_cached(design.model_dump_json(), current()) if catalog is None
                 else ways_out(design, catalog))
        if not fixes:
            raise DesignError(exc.message, "", ()) from None
        raise DesignError(exc.message, suggestion_of(fixes), fixes) from None


def _within_limit(design: Design, exc: GpuLimitError, catalog: Catalog | None) -> None:
    """Raise ``exc`` (a design over the GPU limit) with its own way out, ``exc.nodes`` nodes, and when a design of
    that many nodes does not build either, that design's problem and ways out in sentences of their own
    ("Plan at most 125,000 nodes (1,000,000 GPUs). 125,000 nodes need more than three tiers of QM9700 ...; three
    tiers hold at most 8,192 nodes ... Plan at most 8,192 nodes (65,536 GPUs)."); its fixes are those ways out,
    each with the node count it was checked at."""
    within = design.model_copy(update={"nodes": exc.nodes, "gpus": None})
    try:
        plan(within, catalog)
    except DesignError as then:
        fixes = tuple((phrase, {"nodes": exc.nodes, "gpus": None, **changes}) for phrase, changes in then.fixes)
        raise DesignError(exc.message, joined(exc.suggestion, str(then)), fixes) from None
    raise DesignError(exc.message, exc.suggestion, ((exc.suggestion, {"nodes": exc.nodes, "gpus": None}),)) from None


def suggestion_of(fixes: tuple[tuple[str, dict], ...]) -> str:
    """The sentence naming the ways out: ``Set tiers to auto, or use 2 planes.`` (each phrase in it)."""
    phrases = [phrase for phrase, _changes in fixes]
    suggestion = phrases[0]
    for phrase in phrases[1:]:
        suggestion = _("{ways_out}, or {way_out}").format(ways_out=suggestion, way_out=phrase)
    return _("{ways_out}.").format(ways_out=suggestion[0].upper() + suggestion[1:])


def _changed(design: Design, changes: dict) -> Design | None:
    data = {**design.model_dump(exclude_defaults=True), **changes}
    try:
        return Design.model_validate({k: v for k, v in data.items() if v is not None})
    except ValidationError:
        return None


def ways_out(design: Design, catalog: Catalog | None = None) -> tuple[tuple[str, dict], ...]:
    """Small changes that make ``design`` buildable, each checked by planning it: ``(phrase, changes)``.

    ``changes`` are ``Design`` fields (``None`` = back to the default); ``phrase`` says it in words
    ("set tiers to auto", "plan at most 8,192 nodes (65,536 GPUs)"). At most ``MAX_WAYS_OUT``, in
    the order of the module docstring (the least change first); empty if the design builds or
    nothing small helps.
    """
    catalog = catalog or load_catalog()
    language = current()
    run = (lambda d: _plan_cached(d, language)) if catalog is load_catalog() else (lambda d: _plan(d, catalog))

    def builds(changes: dict) -> bool:
        changed = _changed(design, changes)
        if changed is None or changed == design:
            return False
        try:
            run(changed)
            if changed.pods:  # every pod, not only the first the plan sizes (core.fabric.pods)
                from core.fabric.pods import size_pods

                size_pods(changed)
        except FabricPlannerError:
            return False
        return True

    found: list[tuple[str, dict]] = []
    for candidates in _candidates(design, catalog, builds):
        for phrase, changes in candidates():
            if builds(changes):
                found.append((phrase, changes))
                break
        if len(found) == MAX_WAYS_OUT:
            break
    return tuple(found)


def _candidates(
    design: Design, catalog: Catalog, builds: Callable[[dict], bool]
) -> list[Callable[[], list[tuple[str, dict]]]]:
    """Groups of candidate changes, least change first; the first that builds in each group is a way out."""
    try:
        system = catalog.system(design.gpu)
        fabric = design.fabric or system.default_fabric
        nic, speed, _notes = resolve_nic_and_speed(catalog, system, fabric, design.port_speed_gbps)
        leaf = design.leaf_switch or design.switch
        switch = catalog.switch(leaf) if leaf else default_switch(catalog, fabric, speed, nic)
    except FabricPlannerError:
        return []
    ports = switch.ports_at(speed) or 0
    rails = design_nics_per_node(design, system)

    def tiers():
        return [(_("set tiers to auto"), {"tiers": "auto"})] if design.tiers != "auto" else []

    def larger_switch():
        larger = sorted((s for s in catalog.fabric_switches(fabric, speed) if (s.ports_at(speed) or 0) > ports),
                        key=lambda s: s.ports_at(speed))
        key = "leaf_switch" if design.leaf_switch else "switch"
        return [(_("use the {switch} switch ({ports} x {speed}G)").format(switch=s.id, ports=s.ports_at(speed),
                                                                         speed=speed), {key: s.id})
                for s in larger]

    def other_speed():
        out = []
        for other in sorted(offered_port_speeds(catalog, fabric), reverse=True):
            if other == speed or (design.switch and not switch.ports_at(other)):
                continue
            out.append((_("run the ports at {speed} Gb/s").format(speed=other), {"port_speed_gbps": other}))
        return out

    def fewer_planes():
        return [(ngettext("use {planes} plane", "use {planes} planes", p).format(planes=p), {"planes": p})
                for p in range(design.planes - 1, 0, -1)]

    def per_rail_planes():
        """Per-rail planes that fill the NICs evenly (NIC i in plane i mod planes), one plane per NIC first; per-port
        planes: the same planes per rail (each NIC's one port in one plane, the same bandwidth per GPU)."""
        if design.plane_mode != "per-rail":
            return [(_("use per-rail planes"), {"plane_mode": "per-rail"})] \
                if design.planes > 1 else []
        counts = [p for p in range(min(rails, 8), 1, -1) if rails % p == 0 and p != design.planes]
        return [(_("use {planes} planes, one per NIC").format(planes=p) if p == rails else
                 ngettext("use {planes} plane", "use {planes} planes", p).format(planes=p), {"planes": p})
                for p in counts]

    def port_per_plane():
        """Per-port planes: a NIC of the design's fabric with a port at the design's speed in every plane."""
        if design.plane_mode == "per-rail" or design.planes < 2:
            return []
        return [(_("use the {nic} NIC ({ports} x {speed}G)").format(
            nic=n.id, ports=n.logical_ports(speed, fabric), speed=speed), {"nic": n.id})
            for n in catalog.nics if n.transport is None and n.id != nic.id and fabric in n.fabrics
            and n.logical_ports(speed, fabric) >= design.planes]

    def other_topology():
        if design.topology == "top-of-rack" or getattr(topology_family(design.topology), "GROUPS", False):
            return [(_("use rail-optimized topology"), {"topology": "rail-optimized"})]
        return [(_("use top-of-rack topology"), {"topology": "top-of-rack"})]

    def fewer_nics():
        return [(ngettext("use {count} NIC per node", "use {count} NICs per node", k).format(count=k),
                 {"nics_per_node": k})
                for k in range(min(rails - 1, 16), 0, -1)]

    def more_oversubscription():
        steps = (1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)
        return [(_("oversubscribe the leaves {ratio}").format(ratio=units.ratio(o)), {"oversubscription": o})
                for o in steps if o > design.oversubscription]

    def fewer_nodes():
        fewer = _most_nodes(design, catalog, builds)
        return [fewer] if fewer else []

    def field_fabric():
        """Back to the engine's default for each field-fabric option the design sets."""
        out = []
        if design.uplink_speed_gbps is not None:
            out.append((_("run the uplinks at the port speed"), {"uplink_speed_gbps": None}))
        for field, phrase in (("spine_switch", _("use the default spine switch")),
                              ("core_switch", _("use the default core switch")),
                              ("su_nodes", _("let the engine size the scalable units")),
                              ("pod_sus", _("let the engine size the pods")),
                              ("grow_to", _("drop the growth target")),
                              ("stages", _("drop the growth stages")),
                              ("group_leaves", _("let the engine size the Dragonfly groups")),
                              ("nvlink_domain_gpus", _("use the system's own scale-up domain"))):
            if getattr(design, field) is not None:
                out.append((phrase, {field: None}))
        if design.plane_mode == "per-rail":
            out.append((_("give every NIC a port in every plane"), {"plane_mode": "per-port", "planes": 1}))
        return out

    def rack_fit():
        """Rack presets with more power, the preset's own limit, fewer nodes per rack (only when set)."""
        out = []
        if design.rack_kw is not None:
            out.append((_("use the rack preset's power limit"), {"rack_kw": None}))
        if design.rack_units is not None:
            out.append((_("use the rack preset's height"), {"rack_units": None}))
        for preset in load_racks().compute_presets:
            if preset.id != design.rack_preset:
                out.append((_("use the {preset} rack preset ({kw} kW)").format(preset=preset.id, kw=units.kw(preset.power_kw)),
                            {"rack_preset": preset.id, "rack_kw": None, "rack_units": None}))
        for k in range((design.nodes_per_rack or 1) - 1, 0, -1):
            out.append((ngettext("put {count} node in a rack", "put {count} nodes in a rack", k).format(count=k),
                        {"nodes_per_rack": k}))
        return out

    def family_fields():
        """The topology family's own ways out (``core.fabric.families``: a Dragonfly+'s other global ratios)."""
        other = topology_family(design.topology)
        return other.ways_out(design) if other is not None else []

    racks_set = any(getattr(design, f) is not None for f in ("rack_preset", "rack_kw", "rack_units", "nodes_per_rack"))
    nvlink = [lambda group=group: group for group in domainlevels.ways_out(design, system)]  # core.fabric.domainlevels
    return [tiers, *nvlink, *([rack_fit] if racks_set else []), per_rail_planes, field_fabric, family_fields, larger_switch,
            other_speed, port_per_plane,
            fewer_planes, other_topology, fewer_nodes, fewer_nics, more_oversubscription]


def _most_nodes(design: Design, catalog: Catalog, builds: Callable[[dict], bool]) -> tuple[str, dict] | None:
    """The way out "plan at most N nodes": the largest node count below the design's that builds."""
    try:
        system = catalog.system(design.gpu)
    except FabricPlannerError:
        return None
    gpus_per_node = design.gpus_per_node or system.gpus_per_node
    nodes = design.nodes if design.gpus is None else -(-design.gpus // gpus_per_node)
    if nodes is None or nodes <= 1 or not builds({"nodes": 1, "gpus": None}):
        return None
    low, high = 1, nodes - 1  # builds(low); find the largest that builds (sizes only shrink the problem)
    while low < high:
        middle = (low + high + 1) // 2
        if builds({"nodes": middle, "gpus": None}):
            low = middle
        else:
            high = middle - 1
    if low == 1 and not builds({"nodes": low, "gpus": None}):
        return None
    return (_("plan at most {nodes} nodes ({gpus} GPUs)").format(nodes=f"{low:,}", gpus=f"{low * gpus_per_node:,}"),
            {"nodes": low, "gpus": None})


@lru_cache(maxsize=256)
def _ways_out_cached(key: str, language: str) -> tuple[tuple[str, dict], ...]:
    """``ways_out`` of the design JSON ``key``, its phrases in ``language`` (the caller's ``current()``)."""
    with speaking(language):
        return ways_out(Design.model_validate_json(key), load_catalog())


def _fabric_bytes(found: tuple[FabricPlan, Bandwidth]) -> int:
    """Upper bound of the memory of a fabric plan and its bandwidth [bytes]: 12 kB and 1 kB a switch group, and the
    plan's sentences (measured at 7-12 kB, at most 0.65 of this, over ``tools.equivalence``'s physical grid;
    ``tests/test_memo.py``)."""
    return 12288 + 1024 * len(found[0].switch_groups) + text_bytes(found[0].explanation)


@stage(0.01, _fabric_bytes, errors=(FabricPlannerError,))
def sized_fabric(resolved: ResolvedFields, language: str) -> tuple[FabricPlan, Bandwidth]:
    """``size_fabric`` of the resolved design of ``resolved`` (``core.design.resolved_of``), its sentences in
    ``language``, and its ``compute_bandwidth``; cached by these arguments (``core.memo.stage``)."""
    whole = resolved_of(resolved)
    with spoken(language):
        fabric = size_fabric(whole)
    return fabric, compute_bandwidth(whole, fabric)


def _plan(design: Design, catalog: Catalog) -> Plan:
    resolved = resolve_design(design, catalog)
    domainlevels.check_scaleup(resolved)
    # the stages that read the resolved design whole are cached by its fields, made once here
    fields, language = ResolvedFields.of(resolved), current()
    fabric, bandwidth = sized_fabric(fields, language)
    networks, arrangement, _racks = as_built(resolved, fabric, catalog, fields, language)
    layout, lengths, media, compute_racks = _placed(resolved, fields, fabric, networks, catalog, language, arrangement)
    bom = build_bom(resolved, fabric, catalog, layout=layout, media=media, networks=networks)
    cost = summarize_cost(resolved, bom)
    cost = cost.model_copy(update={"racks_compute": compute_racks})  # the layout's (Layout.counts), counted once
    return Plan(resolved=resolved, fabric=fabric, bandwidth=bandwidth, bom=bom, cost=cost,
                reserved_bom=_reserved(resolved, bom, catalog), layout=layout, lengths=lengths, media=media,
                networks=networks)


def _placed(resolved: ResolvedDesign, fields: ResolvedFields, fabric: FabricPlan, networks: ClusterNetworks,
            catalog: Catalog, language: str, arranged: Arrangement | None = None
            ) -> tuple[Layout, tuple[LinkLengths, ...], tuple[MediaBin, ...], int]:
    """``place``'s layout, ``fabric_media``'s lengths and media and the layout's compute racks of ``resolved`` (its
    fields ``fields``): the racks arranged and counted and the cable lengths measured once per arrangement's inputs
    (``arranged_lengths``, through ``placed_lengths``: ``arranged``, ``as_built``'s arrangement of these networks,
    read rather than arranged again when the stages run afresh), the media chosen once per lengths
    (``chosen_media``)."""
    arrangement, lengths, compute_racks = placed_lengths(fields, fabric, tuple(devices_to_place(resolved, networks)),
                                                         load_racks(), language, arranged)
    return arrangement.layout(), lengths, select_media(catalog, resolved, lengths), compute_racks


AS_BUILT_ROUNDS = 8
"""Most rounds of ``as_built``'s fixed point (two or three reach it: ``tests/test_pdus.py``)."""


def built_counts(layout) -> tuple[int, int]:
    """``(compute racks, other racks)`` of ``layout`` (a ``core.physical.layout.Layout`` or its ``Arrangement``) as
    it builds them (``counts``: what the Racks tab shows), whose PDUs the out-of-band network serves
    (``core.networks.management.rack_pdus``)."""
    counts = layout.counts()
    return counts["compute"], counts["total"] - counts["compute"]


class AsBuilt(NamedTuple):
    """``as_built``'s answer: the other networks, the rack arrangement holding them (``.layout()`` builds its
    racks) and the racks the networks' PDUs are those of (None: the estimate, no out-of-band network to serve)."""

    networks: ClusterNetworks
    arrangement: Arrangement
    racks: tuple[int, int] | None


def as_built(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, fields: ResolvedFields | None = None,
             language: str | None = None) -> AsBuilt:
    """The other networks and the rack arrangement of a single fabric, the networks' rack PDUs (``pdu`` devices,
    ``pdu-mgmt`` links, the out-of-band switches for their ports and the in-band network for those switches'
    uplinks) those of the racks as the layout builds them (``built_counts``), not the estimate made before it
    (``core.networks.management.rack_estimate``): ``built_networks``' networks, devices and racks sized for, and
    the arrangement of those devices, made once (the cached stage ``arranged_racks``, keyed by ``fields``, the
    resolved design's, and ``language``: made here when not given), no cable lengths measured: the plan's own
    placing after it (``_placed``, ``arranged_lengths``) reads it and measures its lengths once. As the pods'
    ``core.analysis.podmgmt.with_shared_management`` counts a pod's racks in the hall; the optimizer bills its
    candidates with it (``core.analysis.optimize``), so its costs are the plan's."""
    fields = ResolvedFields.of(resolved) if fields is None else fields
    language = current() if language is None else language
    racks_catalog = load_racks()
    networks, placed, sized_for = built_networks(fields, fabric, catalog, racks_catalog, language)
    return AsBuilt(networks, arranged_racks(fields, fabric, placed, racks_catalog, language)[0], sized_for)


def _built_bytes(found: tuple) -> int:
    """Upper bound of the memory of ``built_networks``' answer [bytes]: its networks' (``networks_bytes``), 1 kB a
    device and 256 B for the rest (``tests/test_memo.py``)."""
    return 256 + networks_bytes(found[0]) + 1024 * len(found[1])


def _built_key_bytes(key: tuple) -> int:
    """Upper bound of the memory of a ``built_networks`` key [bytes]: the resolved design's fields and the rack
    catalog (20 kB) and the fabric plan (12 kB and 1 kB a switch group, and its sentences: ``_fabric_bytes``;
    ``tests/test_memo.py``): a key may weigh as much as its answer."""
    return 20480 + _fabric_bytes((key[1],))


@stage(0.01, _built_bytes, errors=(FabricPlannerError,), key_sizeof=_built_key_bytes)
def built_networks(resolved: ResolvedFields, fabric: FabricPlan, catalog: Catalog, racks: RackCatalog,
                   language: str) -> tuple[ClusterNetworks, tuple, tuple[int, int] | None]:
    """``(networks, devices, racks)``: the other networks of the resolved design of ``resolved``
    (``core.design.resolved_of``) sized for the racks the layout builds with their devices, those devices
    (``devices_to_place``) and those racks (``(compute racks, other racks)``; None: no out-of-band network serves
    their PDUs, the networks sized for the estimate), in ``language``; cached by these arguments
    (``core.memo.stage``). The layout holds the networks' devices (management and storage racks), so the two are
    repeated until the racks the networks are sized for are the racks the layout builds (a fixed point from the
    estimate's, at most ``AS_BUILT_ROUNDS`` rounds). Each round sizes only what the racks change, the in-band and
    out-of-band networks (``core.networks.networks_for``; the rest, ``network_parts``, made once) and counts the
    racks (``_rack_counts``: the drafts', made once, and the devices' own) without arranging them."""
    whole = resolved_of(resolved)
    inputs, shape = NetworkInputs.of(whole), NetworkFabric.of(fabric)
    with spoken(language):
        parts = network_parts(inputs, shape, catalog)
        networks = networks_for(inputs, shape, catalog, parts)
        placed = tuple(devices_to_place(whole, networks))  # each sizing's devices made once (compared, then placed)
        if networks.oob is None or whole.nic.transport:  # no out-of-band network bought: no PDUs to serve
            return networks, placed, None
        sized_for, drafted = None, drafted_racks(resolved, fabric, racks, language).counts()
        counted = _rack_counts(drafted, resolved, fabric, placed, racks, language)
        for _round in range(AS_BUILT_ROUNDS):
            if counted == sized_for:
                break
            sized = networks_for(inputs, shape, catalog, parts, counted)
            devices = tuple(devices_to_place(whole, sized))
            networks, sized_for = sized, counted
            if devices != placed:  # the devices to place changed: their racks counted again
                placed, counted = devices, _rack_counts(drafted, resolved, fabric, devices, racks, language)
    return networks, placed, sized_for


def _rack_counts(drafted: tuple[int, int], resolved: ResolvedFields, fabric: FabricPlan, devices: tuple,
                 racks: RackCatalog, language: str) -> tuple[int, int]:
    """``built_counts`` of ``arranged_racks``' arrangement of these arguments, counted without arranging the racks:
    ``drafted``, the racks of its drafts (``core.physical.layout.drafted_racks``, ``Drafts.counts``), and the
    management and storage racks of ``devices`` (``device_rack_count``: the other networks' devices add only those,
    ``tests/test_as_built_rounds.py``); arranged when a device goes one per rack."""
    extra = device_rack_count(devices, racks)
    if extra is None:
        return built_counts(arranged_racks(resolved, fabric, devices, racks, language)[0])
    return drafted[0], drafted[1] + extra


def _reserved(resolved: ResolvedDesign, bom: tuple[BomRow, ...], catalog: Catalog) -> tuple[BomRow, ...]:
    """Network rows of the final (``grow_to``) design less those installed now: what growth still buys."""
    if not resolved.grow_to:
        return ()
    final = resolved.model_copy(update={"nodes": resolved.grow_to, "gpus": resolved.grow_to * resolved.gpus_per_node,
                                        "grow_to": None})
    now: dict[tuple, int] = {}
    for row in bom:
        now[(row.category, row.catalog_id, row.item, row.end)] = row.quantity
    rows = []
    fields, language = ResolvedFields.of(final), current()
    fabric, _bandwidth = sized_fabric(fields, language)
    networks = size_networks(final, fabric, catalog)
    layout, _lengths, media, _racks = _placed(final, fields, fabric, networks, catalog, language)
    # the compute fabric's rows only: the other networks' rows are not priced (none is the compute fabric's: their
    # compute-network rows, the UFM appliances' links, are its management, ``in_compute_fabric``; spares are row by row)
    for row in build_bom(final, fabric, catalog, layout=layout, media=media, networks=networks, other_rows=()):
        if not in_compute_fabric(row):  # the compute fabric's growth
            continue
        more = row.quantity - now.get((row.category, row.catalog_id, row.item, row.end), 0)
        if more > 0:
            rows.append(row.model_copy(update={"quantity": more, "why": _("reserved for growth to {nodes} nodes: "
                                                                          "{why}").format(
                nodes=f"{resolved.grow_to:,}", why=row.why)}))
    return tuple(rows)


PLAN_BASE_BYTES = 256 * 1024
PLAN_BYTES_PER_GPU = 64
"""A plan's memory is at most ``PLAN_BASE_BYTES + PLAN_BYTES_PER_GPU * gpus`` [bytes]: measured with tracemalloc
at 0.12-3.3 MB for 128-131,072 GPUs (14-47 B per GPU above 200 kB), checked by tests/test_memo.py."""
PLAN_CACHE_BYTES = env_int("FP_PLAN_CACHE_MB", 96, 0, 1 << 20) << 20
"""The plan cache's budget [bytes] (``FP_PLAN_CACHE_MB``, default 96 MB: about 330 plans of 1,024 GPUs or
eleven of 131,072)."""


def plan_bytes(p: Plan) -> int:
    """Upper bound of the memory ``p`` holds [bytes] (``PLAN_BASE_BYTES``, ``PLAN_BYTES_PER_GPU``)."""
    return PLAN_BASE_BYTES + PLAN_BYTES_PER_GPU * p.resolved.gpus


@bounded(PLAN_CACHE_BYTES, plan_bytes, max_entries=256)
def _plan_cached_key(key: str, language: str) -> Plan:
    """The plan of the design JSON ``key``, its texts in ``language`` (the caller's ``current()``)."""
    with speaking(language):
        return _plan(Design.model_validate_json(key), load_catalog())


def _plan_cached(design: Design, language: str) -> Plan:
    """``_plan`` of ``design`` with the bundled catalog, cached by the design and ``language`` (``current()``)."""
    return _plan_cached_key(design.model_dump_json(), language)
