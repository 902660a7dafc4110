"""Multi-level NVLink (scale-up) domains: first-level domains joined by a second NVSwitch level, and mixed sizes.

A *first-level* NVLink domain is what one rack's (GB200 NVL72: 72 GPUs; NVL36: 36) or one node's (HGX H100: 8)
own NVSwitches join. A larger NVLink domain joins several of them through *level-2* NVLink switches: NVIDIA's
NVLink Switch System (256 H100 GPUs of 32 DGX H100) and the GB200 NVL576 (16 NVL36 racks: an NVL72 rack has no free
NVLink port, ``level1_fit``). The
second level's numbers, published and assumed, are in ``assets/catalog/scaleup.toml`` (one entry per family of
systems, with its sources and the reason for each assumption).

Model, per NVLink domain of ``d`` GPUs made of ``r = d / g1`` first-level domains of ``g1`` GPUs:

* each GPU has ``u`` NVLinks to the second level (``Level2.uplinks_per_gpu``), so the domain has ``d * u``
  level-2 links, ``ceil(g1 * u / links_per_cable)`` cables per first-level domain (each cable carries
  ``links_per_cable`` NVLinks, an OSFP cage) and ``ceil(d * u / ports)`` level-2 switch units (``ports`` NVLink
  ports each, all its chips); a domain of one first-level domain has no second level;
* per-GPU bandwidth, one direction [GB/s]: inside a first-level domain the GPU's NVLink (``l1``); to GPUs of
  other first-level domains of the same NVLink domain ``min(l1, u x link rate)`` (the *taper* is their ratio);
* NVLink SHARP (NVLS) across the second level: NVIDIA published in-switch reductions on the NVSwitch chips
  but no NVLS figure across the NVLink Switch System's second level, so a communicator that spans first-level
  domains is predicted with the other algorithms only (``core.perf.collectives``) - not modelled, said so.

Domains are laid from node 0: first the sizes ``Design.nvlink_domains`` lists, then domains of the design's
NVLink domain size (``Design.nvlink_domain_gpus``, default the system's own), the last one partial when the racks
run out. ``ResolvedDesign.nvlink_domain_gpus`` is the largest of them: the collective and training models place a
job in the largest domains first, as a scheduler given the blocks would. Everything here is O(number of
distinct domain sizes) except ``ScaleUp.domains``, which walks the domains.

Units: GB/s (1e9 bytes/s) one direction unless a name says ``bidir``; prices USD; power W.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

from pydantic import BaseModel, ConfigDict, Field

from core.catalog import CATALOG_DIR, System, _Priced, load_catalog, read_toml
from core.design import ResolvedDesign, first_level_size, nvlink_domain_size
from core.errors import DesignError
from core.i18n import N_, _, ngettext, pgettext

SCALEUP_FILE = CATALOG_DIR / "scaleup.toml"


class Level2Switch(_Priced):
    """A level-2 NVLink switch unit (a 1U NVLink Switch or a switch tray): its NVLink ports, all chips."""

    ports: int = Field(ge=1, description="NVLink ports of the unit, all its chips.")
    chips: int = Field(ge=1, description="NVSwitch chips in the unit.")
    rack_units: float = Field(default=1, gt=0, description="Height of the unit [U].")


class Level2Module(_Priced):
    """One optical module of a level-2 NVLink cable (two per cable, one at each end): the bill's transceiver."""


class Level2Cable(_Priced):
    """One level-2 NVLink cable's fibre: ``Level2.links_per_cable`` NVLinks between two ``Level2Module``."""

    media: str = Field(default="smf", description="The cabling plan's media of the cable (``core.physical.cabling``).")


class Level2(BaseModel):
    """The second NVLink level of a family of systems (``assets/catalog/scaleup.toml``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    nvswitch_generation: int = Field(ge=1)
    systems: tuple[str, ...]
    example: str
    uplinks_per_gpu: int = Field(ge=1, description="NVLinks per GPU from the first level to the second.")
    max_domain_gpus: int = Field(ge=1, description="Largest NVLink domain published [GPUs].")
    links_per_cable: int = Field(ge=1, description="NVLinks one cable (an OSFP cage) carries.")
    level1_trays: int = Field(default=0, ge=0, description=(
        "NVLink switch trays of a rack-level first-level domain, which carry its level-2 cages (0: the first level "
        "is one node, whose own cages carry them)."))
    level1_tray_ports: int = Field(default=0, ge=0, description=(
        "NVLink ports of one first-level switch tray, all its chips: the tray's GPU links and uplinks must fit "
        "(``level1_fit``); 0: not checked."))
    direct_pairs: tuple[int, ...] = Field(default=(), description=(
        "First-level domain sizes [GPUs] of which a domain of exactly two is cabled tray to tray, with no level-2 "
        "switch (GB200 NVL36x2)."))
    source: str
    as_of: str
    notes: str = ""
    switch: Level2Switch
    module: Level2Module
    cable: Level2Cable


@lru_cache(maxsize=1)
def level2_table() -> tuple[Level2, ...]:
    """Every catalogued second NVLink level (``assets/catalog/scaleup.toml``), validated."""
    return tuple(Level2(**entry) for entry in read_toml(SCALEUP_FILE, N_("catalog file")).get("level2", []))


@lru_cache(maxsize=1)
def level2_part_ids() -> frozenset[str]:
    """Catalog ids of every second NVLink level's switch unit, module and fibre (``level2_bom``'s rows): the compute
    network's rows that are scale-up, not scale-out (``core.cost.CostSummary.scaleup_capex_usd``)."""
    return frozenset(i for entry in level2_table() for i in (entry.switch.id, entry.module.id, entry.cable.id))


def bill_entries() -> Iterator[tuple[str, _Priced]]:
    """``(kind, entry)`` of every priced part a bill can hold, once each: the catalog's (``Catalog.all_entries``)
    and every second NVLink level's switch unit, module and fibre (kinds ``switches``, ``transceivers``,
    ``cables``), which ``scaleup.toml`` prices. Where a bill's parts are named, sourced or priced for people (the
    bill's item names, the review pack's sources, the Catalog page's price book), this is the list."""
    seen = set()
    parts = ((kind, part) for level2 in level2_table()
             for kind, part in (("switches", level2.switch), ("transceivers", level2.module), ("cables", level2.cable)))
    for kind, entry in (*load_catalog().all_entries(), *parts):
        if entry.id not in seen:
            seen.add(entry.id)
            yield kind, entry


def level2_for(system: System) -> Level2 | None:
    """The second NVLink level published for ``system`` (by its catalog id), or None."""
    return next((entry for entry in level2_table() if system.id in entry.systems), None)


def level1_fit(spec: Level2, system: System, gpus_per_node: int) -> int:
    """The most GPUs [whole nodes] a rack-level first-level domain of ``spec`` can hold when its GPUs also go up to
    the second level: its trays' ports (``level1_trays x level1_tray_ports``) over each GPU's links inside
    (``System.nvlink_links_per_gpu``) plus its uplinks (``uplinks_per_gpu``). GB200: 9 x 144 = 1,296 ports /
    (18 + 18) = 36 GPUs, an NVL36 rack; an NVL72 rack's 72 GPUs x 18 take every port. 0 when not checked
    (``level1_tray_ports`` 0, or a node-level first level)."""
    if not spec.level1_trays or not spec.level1_tray_ports:
        return 0
    gpus = spec.level1_trays * spec.level1_tray_ports // (system.nvlink_links_per_gpu + spec.uplinks_per_gpu)
    return gpus // gpus_per_node * gpus_per_node


@dataclass(frozen=True)
class Domain:
    """One NVLink domain: its nodes from ``first_node``, its GPUs, first-level domains and second level."""

    index: int
    first_node: int
    nodes: int
    gpus: int
    racks: int
    """First-level domains (racks, or nodes for HGX) it joins."""
    level2_switches: int
    level2_links: int
    level2_cables: int
    direct: bool = False
    """Two first-level domains cabled to each other with no level-2 switch (``Level2.direct_pairs``)."""


@dataclass(frozen=True)
class ScaleUp:
    """The NVLink domains of a resolved design (``scaleup_of``)."""

    level1_gpus: int
    gpus_per_node: int
    domain_gpus: int
    """The largest NVLink domain [GPUs] (``ResolvedDesign.nvlink_domain_gpus``)."""
    runs: tuple[tuple[int, int], ...]
    """(domain size [GPUs], how many in a row), in node order."""
    level2: Level2 | None
    level1_gbytes_per_gpu: float
    """NVLink per GPU inside a first-level domain, one direction [GB/s]."""
    link_gbytes: float
    """One NVLink, one direction [GB/s]."""
    level2_left: float = 0.0
    """``ResolvedDesign.nvlink_level2_gbytes_per_gpu``: a failure what-if's level-2 bandwidth left per GPU [GB/s,
    one direction]; 0 = as built."""

    @property
    def level1_nodes(self) -> int:
        """Nodes of one first-level domain."""
        return max(1, self.level1_gpus // self.gpus_per_node)

    @property
    def two_level(self) -> bool:
        """Whether any domain joins several first-level domains through a second NVSwitch level."""
        return any(size > self.level1_gpus for size, _count in self.runs)

    @property
    def level2_gbytes_per_gpu(self) -> float:
        """Per-GPU bandwidth to GPUs of other first-level domains of the same NVLink domain, one direction
        [GB/s]: ``min(first level, uplinks x link rate)``, or the first level and ``level2_left`` when a failure
        what-if set it; 0 without a second level."""
        if not self.two_level or self.level2 is None:
            return 0.0
        return min(self.level1_gbytes_per_gpu, self.level2_left or self.level2.uplinks_per_gpu * self.link_gbytes)

    @property
    def taper(self) -> float:
        """Second-level over first-level bandwidth per GPU (1.0 = non-blocking, 0.5 = 2:1); 1.0 with one level."""
        return self.level2_gbytes_per_gpu / self.level1_gbytes_per_gpu if self.level2_gbytes_per_gpu else 1.0

    def domain_size(self, gpus: int) -> Domain:
        """The counts of one domain of ``gpus`` GPUs (``index`` and ``first_node`` 0)."""
        racks = max(1, -(-gpus // self.level1_gpus))
        if racks < 2 or self.level2 is None:
            return Domain(0, 0, gpus // self.gpus_per_node, gpus, racks, 0, 0, 0)
        u, spec = self.level2.uplinks_per_gpu, self.level2
        per_rack = math.ceil(self.level1_gpus * u / spec.links_per_cable)
        if racks == 2 and self.level1_gpus in spec.direct_pairs:  # each cable joins the two racks
            return Domain(0, 0, gpus // self.gpus_per_node, gpus, racks, 0, self.level1_gpus * u, per_rack, True)
        links = gpus * u
        return Domain(0, 0, gpus // self.gpus_per_node, gpus, racks, math.ceil(links / spec.switch.ports), links,
                      racks * per_rack)

    def domains(self) -> Iterator[Domain]:
        """Every NVLink domain in node order (O(domains))."""
        index = node = 0
        for size, count in self.runs:
            shape = self.domain_size(size)
            for _k in range(count):
                yield Domain(index, node, shape.nodes, shape.gpus, shape.racks, shape.level2_switches,
                             shape.level2_links, shape.level2_cables, shape.direct)
                index, node = index + 1, node + shape.nodes

    def totals(self) -> dict[str, int]:
        """``domains``, ``level2_domains`` (domains with level-2 switches), ``direct_domains`` (pairs cabled to each
        other, ``Level2.direct_pairs``) and their ``direct_links`` and ``direct_cables``, ``level2_switches``,
        ``level2_chips``, ``level2_links`` and ``level2_cables`` (both kinds) of the whole cluster (O(distinct
        sizes))."""
        out = dict.fromkeys(("domains", "level2_domains", "level2_switches", "level2_chips", "level2_links",
                             "level2_cables", "direct_domains", "direct_links", "direct_cables"), 0)
        for size, count in self.runs:
            shape = self.domain_size(size)
            out["domains"] += count
            out["level2_domains"] += count if shape.level2_switches else 0
            out["direct_domains"] += count if shape.direct else 0
            out["direct_links"] += count * shape.level2_links if shape.direct else 0
            out["direct_cables"] += count * shape.level2_cables if shape.direct else 0
            out["level2_switches"] += count * shape.level2_switches
            out["level2_links"] += count * shape.level2_links
            out["level2_cables"] += count * shape.level2_cables
        out["level2_chips"] = out["level2_switches"] * (self.level2.switch.chips if self.level2 else 0)
        return out

    def domain_of_node(self, node: int) -> int:
        """The index of the NVLink domain that holds ``node`` (0-based)."""
        index = first = 0
        for size, count in self.runs:
            nodes = max(1, size // self.gpus_per_node)
            if node < first + nodes * count:
                return index + (node - first) // nodes
            index, first = index + count, first + nodes * count
        return max(0, index - 1)


def domain_runs(resolved: ResolvedDesign) -> tuple[tuple[int, int], ...]:
    """(domain size [GPUs], count) in node order: the listed sizes (``Design.nvlink_domains``), then full domains of
    the design's NVLink domain size (``Design.nvlink_domain_gpus``, default the system's), then the partial last
    one (whole first-level domains)."""
    runs: list[tuple[int, int]] = []
    for size in resolved.nvlink_domain_sizes:
        if runs and runs[-1][0] == size:
            runs[-1] = (size, runs[-1][1] + 1)
        else:
            runs.append((size, 1))
    rest = resolved.gpus - sum(resolved.nvlink_domain_sizes)
    domain = max(1, min(resolved.nvlink_domain_gpus, nvlink_domain_size(
        resolved.system, resolved.design.gpus_per_node, resolved.design.nvlink_domain_gpus)))
    if rest >= domain:
        runs.append((domain, rest // domain))
    if rest % domain:
        runs.append((rest % domain, 1))
    return tuple(runs)


def scaleup_of(resolved: ResolvedDesign) -> ScaleUp:
    """The NVLink domains of ``resolved``: their sizes, first and second level (``ScaleUp``)."""
    if resolved.nvlink_generation:
        link = load_catalog().nvlink_generation(resolved.nvlink_generation).link_gbytes_per_direction
    else:  # not NVLink (xGMI, HCCS, UB): the system's own links [GB/s, one direction]
        link = resolved.nvlink_gbytes_per_gpu_bidir / 2 / max(1, resolved.system.nvlink_links_per_gpu)
    return ScaleUp(
        level1_gpus=max(1, resolved.nvlink_level1_gpus), gpus_per_node=resolved.gpus_per_node,
        domain_gpus=resolved.nvlink_domain_gpus, runs=domain_runs(resolved),
        level2=level2_for(resolved.system) if resolved.nvlink_rack_gpus else None,
        level1_gbytes_per_gpu=resolved.nvlink_gbytes_per_gpu_bidir / 2, link_gbytes=link,
        level2_left=resolved.nvlink_level2_gbytes_per_gpu)


def check_scaleup(resolved: ResolvedDesign) -> None:
    """A domain of two NVLink levels can be built: the system has a catalogued second level and the domain is
    within its published size (``DesignError`` with ways out, else nothing)."""
    if not resolved.nvlink_rack_gpus:
        return
    spec, level1, domain = level2_for(resolved.system), resolved.nvlink_rack_gpus, resolved.nvlink_domain_gpus
    if spec is None:
        known = ", ".join(system for entry in level2_table() for system in entry.systems)
        raise DesignError(
            _("{system} has no published second NVLink level to join its {level1}-GPU NVLink domains into "
              "{domain}; the catalog has one for {known}.").format(
                system=resolved.system.id, level1=level1, domain=domain, known=known),
            _("Use an NVLink domain of at most {level1} GPUs, or set the first NVLink level to {domain} GPUs "
              "(one flat domain).").format(level1=level1, domain=domain))
    fit = level1_fit(spec, resolved.system, resolved.gpus_per_node) if resolved.nvlink_level1_nodes > 1 else 0
    if fit and level1 > fit:
        links = resolved.system.nvlink_links_per_gpu
        raise DesignError(
            _("First-level NVLink domains of {level1} GPUs cannot join a second NVLink level: their {trays} switch "
              "trays have {ports} NVLink ports and their GPUs take {inside} of them ({links} each), leaving {free} for "
              "the {up} uplinks ({per_gpu} per GPU). A shipped NVL72 rack gives every port to its GPUs; an NVL36 "
              "rack ({fit} GPUs) leaves half its ports free.").format(
                level1=level1, trays=spec.level1_trays, ports=f"{spec.level1_trays * spec.level1_tray_ports:,}",
                inside=f"{level1 * links:,}", links=links,
                free=f"{max(0, spec.level1_trays * spec.level1_tray_ports - level1 * links):,}",
                up=f"{level1 * spec.uplinks_per_gpu:,}", per_gpu=spec.uplinks_per_gpu, fit=fit),
            _("Use first-level NVLink domains of {fit} GPUs (NVL36 racks), or an NVLink domain of at most {level1} "
              "GPUs (one level).").format(fit=fit, level1=level1))
    if domain > spec.max_domain_gpus:
        raise DesignError(
            _("An NVLink domain of {domain} GPUs is larger than the {most} GPUs NVIDIA published for {example}.")
            .format(domain=domain, most=spec.max_domain_gpus, example=spec.example),
            _("Use an NVLink domain of at most {most} GPUs.").format(most=spec.max_domain_gpus))


def ways_out(design, system: System) -> list[list[tuple[str, dict]]]:
    """Candidate changes for an NVLink domain that cannot be built (``core.plan.ways_out`` plans each), in two
    groups, least change first: the nearest domain sizes in whole first-level domains, then the design's NVLink
    level fields back to the system's (``design``: a ``core.design.Design``)."""
    requested = design.nvlink_domain_gpus
    sizes: list[tuple[str, dict]] = []
    if requested:
        level1 = first_level_size(system, design.gpus_per_node, requested, design.nvlink_rack_gpus)
        for gpus in sorted({-(-requested // level1) * level1, requested // level1 * level1} - {0, requested},
                           reverse=True):
            sizes.append((ngettext("use an NVLink domain of {gpus} GPUs ({racks} first-level domain)",
                                   "use an NVLink domain of {gpus} GPUs ({racks} first-level domains)",
                                   gpus // level1).format(gpus=gpus, racks=gpus // level1),
                          {"nvlink_domain_gpus": gpus}))
    fields: list[tuple[str, dict]] = []
    if design.nvlink_domains is not None:
        fields.append((_("drop the mixed NVLink domain sizes"), {"nvlink_domains": None}))
    spec = level2_for(system)
    fit = level1_fit(spec, system, design.gpus_per_node or system.gpus_per_node) if spec is not None else 0
    if fit and requested and requested % fit == 0 and design.nvlink_rack_gpus not in (None, fit):
        fields.append((_("use first-level NVLink domains of {gpus} GPUs (racks whose switches have free ports)")
                       .format(gpus=fit), {"nvlink_rack_gpus": fit}))
    if requested and design.nvlink_rack_gpus is None:
        fields.append((_("make the NVLink domain one level of {gpus} GPUs").format(gpus=requested),
                       {"nvlink_rack_gpus": requested}))
    if requested or design.nvlink_rack_gpus is not None:
        fields.append((_("use the system's own NVLink domain"),
                       {"nvlink_domain_gpus": None, "nvlink_rack_gpus": None, "nvlink_domains": None}))
    return [sizes, fields]


def levels_summary(resolved: ResolvedDesign) -> dict:
    """The NVLink levels of ``resolved`` for the plan's summary: ``level1_gpus``, ``levels`` (1 or 2),
    ``level1_chips`` (the switch chips of one first-level domain, which a GPU's links reach; 0 with one level),
    ``level2_gbytes_per_gpu_per_direction`` [GB/s], ``level2_taper`` (1.0 = non-blocking), the largest domain's
    ``level2_switches``, ``level2_links`` and ``level2_cables`` (of ``level2_links_per_cable`` links each) and the
    cluster's ``domains``, ``level2_switches_total``, ``level2_chips_total``,
    ``level2_links_total`` and ``level2_cables_total`` (``direct_pairs`` of them pairs of racks cabled to each other,
    NVL36x2), and ``domain_sizes`` (``[[GPUs, count], ...]`` in node
    order)."""
    up = scaleup_of(resolved)
    totals = up.totals()
    largest = up.domain_size(up.domain_gpus)
    return {
        "level1_gpus": up.level1_gpus, "levels": 2 if up.two_level else 1,
        "level1_chips": level1_chips(resolved) if up.two_level else 0,
        "level2_gbytes_per_gpu_per_direction": up.level2_gbytes_per_gpu, "level2_taper": round(up.taper, 4),
        "level2_switches": largest.level2_switches, "level2_links": largest.level2_links,
        "level2_cables": largest.level2_cables,
        "level2_links_per_cable": up.level2.links_per_cable if up.level2 else 0, "domains": totals["domains"],
        "level2_switches_total": totals["level2_switches"], "level2_chips_total": totals["level2_chips"],
        "level2_links_total": totals["level2_links"], "level2_cables_total": totals["level2_cables"],
        "direct_pairs": totals["direct_domains"],
        "domain_sizes": [list(run) for run in up.runs],
    }


def level2_words(levels: dict, domain_gpus: int) -> str:
    """The second NVLink level's counts in words, per domain and in all, as every surface says them (the Designer's
    drawing, the plan CLI): ``levels`` is ``levels_summary``'s dict, ``domain_gpus`` the largest domain [GPUs].
    The largest domain's switch units, links and cables (a domain's drawing shows one), then the whole cluster's
    switch units and cables (the bill's)."""
    per_domain = _("each domain of {domain} GPUs: {switches} switch units, {links} links in {cables} cables of "
                   "{per_cable} links").format(
        domain=f"{domain_gpus:,}", switches=f"{levels['level2_switches']:,}",
        links=f"{levels['level2_links']:,}", cables=f"{levels['level2_cables']:,}",
        per_cable=levels["level2_links_per_cable"])
    total = ngettext("{domains} domain in all: {switches} switch units, {cables} cables",
                     "all {domains} domains: {switches} switch units, {cables} cables", levels["domains"]).format(
        domains=f"{levels['domains']:,}", switches=f"{levels['level2_switches_total']:,}",
        cables=f"{levels['level2_cables_total']:,}")
    return per_domain + pgettext("between clauses", "; ") + total


def domain_chips(resolved: ResolvedDesign) -> int:
    """NVSwitch chips of the largest NVLink domain: ``System.nvswitch_chips_for`` the domain with one level; with
    two, its first-level domains' chips plus its level-2 switches' chips."""
    if not resolved.nvlink_rack_gpus:
        return resolved.system.nvswitch_chips_for(resolved.nvlink_domain_gpus)
    up = scaleup_of(resolved)
    largest = up.domain_size(up.domain_gpus)
    chips = up.level2.switch.chips if up.level2 else 0
    return largest.racks * level1_chips(resolved) + largest.level2_switches * chips


def level1_chips(resolved: ResolvedDesign) -> int:
    """NVSwitch chips of one first-level NVLink domain of a two-level design: a rack-level first level's catalogued
    trays x chips (a GB200 rack has 9 trays of 2 chips, NVL72 and NVL36 alike), else ``System.nvswitch_chips_for``
    its GPUs (a node's own chips)."""
    trays = level1_trays(resolved)
    if trays:
        return trays * level2_for(resolved.system).switch.chips
    return resolved.system.nvswitch_chips_for(resolved.nvlink_level1_gpus)


def level1_extra_trays(resolved: ResolvedDesign) -> int:
    """First-level NVLink switch trays a two-level design's racks hold beyond those its nodes' price and power include
    (``systems.toml``: a GB200 compute tray carries 9 / 18 of an NVL72 rack's switch trays): every first-level rack's
    ``level1_trays`` less that share, rounded up. GB200, 4 NVL36 racks of 9 compute trays: 36 - 36 x 9 / 18 = 18.
    0 with one level or a first level of the system's own domain."""
    trays = level1_trays(resolved)
    system = resolved.system
    per_system = max(1, system.nvlink_domain_gpus // system.gpus_per_node)
    if not trays or resolved.nvlink_level1_nodes >= per_system:
        return 0
    racks = -(-resolved.nodes // resolved.nvlink_level1_nodes)
    return math.ceil(racks * trays - resolved.nodes * trays / per_system)


def level2_bom(resolved: ResolvedDesign, add) -> None:
    """The second NVLink level's rows of the bill of materials: its switch units, its cables' optical modules
    (transceivers, two per cable) and fibres (cables), and the first-level racks' switch trays beyond the nodes'
    share (``level1_extra_trays``, category compute: part of the racks, as the nodes' own share is), each with its
    count explained; nothing with one level. ``add(category, entry, quantity, why, item=...)`` is
    ``core.cost.build_bom``'s row maker."""
    up = scaleup_of(resolved) if resolved.nvlink_rack_gpus else None
    if up is None or up.level2 is None or not up.two_level:
        return
    spec, totals = up.level2, up.totals()
    per_gpu = spec.uplinks_per_gpu
    if totals["level2_switches"]:
        add("switch", spec.switch, totals["level2_switches"], ngettext(
            "{domains} NVLink domain of two levels: {links} level-2 NVLinks ({per_gpu} per GPU) / {ports} ports per "
            "unit, rounded up per domain",
            "{domains} NVLink domains of two levels: {links} level-2 NVLinks ({per_gpu} per GPU) / {ports} ports per "
            "unit, rounded up per domain", totals["level2_domains"]).format(
                domains=f"{totals['level2_domains']:,}",
                links=f"{totals['level2_links'] - totals['direct_links']:,}", per_gpu=per_gpu,
                ports=spec.switch.ports) + _level2_switch_sum(up),
            item=_("{name} (NVLink level 2)").format(name=spec.switch.name))
    extra = level1_extra_trays(resolved)
    if extra:
        add("compute", spec.switch, extra, _(
            "{racks} first-level racks of {level1} GPUs x {trays} switch trays, less the {trays} per {system} GPUs the "
            "nodes' price and power include, rounded up").format(
                racks=f"{-(-resolved.nodes // resolved.nvlink_level1_nodes):,}", level1=up.level1_gpus,
                trays=spec.level1_trays, system=resolved.system.nvlink_domain_gpus),
            item=_("{name} (NVLink level 1)").format(name=spec.switch.name))
    why = []
    if totals["level2_cables"] > totals["direct_cables"]:
        why.append(_("{per_gpu} NVLinks per GPU x {level1} GPUs per first-level domain / {per_cable} NVLinks per "
                     "cable, rounded up, for each first-level domain of a two-level NVLink domain").format(
                         per_gpu=per_gpu, level1=up.level1_gpus, per_cable=spec.links_per_cable))
    if totals["direct_cables"]:
        why.append(_("{pairs} pairs of first-level domains cabled tray to tray with no level-2 switch: {per_gpu} "
                     "NVLinks per GPU x {level1} GPUs / {per_cable} NVLinks per cable per pair").format(
                         pairs=f"{totals['direct_domains']:,}", per_gpu=per_gpu, level1=up.level1_gpus,
                         per_cable=spec.links_per_cable))
    cables, clauses = f"{totals['level2_cables']:,}", pgettext("between clauses", "; ").join(why)
    add("transceiver", spec.module, 2 * totals["level2_cables"],
        _("2 per cable x {cables} cables = {modules}: ").format(
            cables=cables, modules=f"{2 * totals['level2_cables']:,}") + clauses,
        item=_("{name} (NVLink level 2)").format(name=spec.module.name), end="switch")  # both ends on switch trays
    add("cable", spec.cable, totals["level2_cables"], _("{cables} cables: ").format(cables=cables) + clauses,
        item=_("{name} (NVLink level 2)").format(name=spec.cable.name))


def _level2_switch_sum(up) -> str:
    """The level-2 switch row's sum, domain size by domain size (``ScaleUp.domain_size``: ceil(links / ports) per
    domain): ``: 4 x ceil(2,592 / 144) = 72``."""
    sizes: dict[tuple[int, int], int] = {}
    for size, count in up.runs:
        shape = up.domain_size(size)
        if shape.level2_switches:
            sizes[shape.level2_links, up.level2.switch.ports] = sizes.get(
                (shape.level2_links, up.level2.switch.ports), 0) + count
    terms = " + ".join(_("{count} x ceil({links} / {ports})").format(count=f"{count:,}", links=f"{links:,}", ports=ports)
                       for (links, ports), count in sizes.items())
    return _(": {terms} = {switches}").format(terms=terms, switches=f"{up.totals()['level2_switches']:,}")


def level2_switch_ids(resolved: ResolvedDesign) -> Iterator[tuple[str, int, int]]:
    """``(device id, domain, unit)`` of every level-2 NVLink switch unit, in domain order: ``nvl<d>.l2sw<k>``
    (the one naming rule of the second level; the failure specs name the same unit ``domain<d>.l2switch<k>``)."""
    if not resolved.nvlink_rack_gpus:
        return
    for domain in scaleup_of(resolved).domains():
        for k in range(domain.level2_switches):
            yield f"nvl{domain.index}.l2sw{k}", domain.index, k


def level1_tray_id(first_node: int, tray: int) -> str:
    """Device id of NVLink switch tray ``tray`` (0-based) of the rack-level first-level domain whose first node is
    ``first_node``: ``nvsw<first_node + tray>`` (a rack holds at least as many nodes as trays, so no two trays share
    an id, and a rack's trays are numbered as its nodes are: the layout shifts both alike)."""
    return f"nvsw{first_node + tray}"


def level1_trays(resolved: ResolvedDesign) -> int:
    """NVLink switch trays per first-level domain that carry its level-2 cages: the catalogued count for a rack-level
    first level of a two-level design (``Level2.level1_trays``), else 0 (a node's own cages carry them)."""
    spec = level2_for(resolved.system) if resolved.nvlink_rack_gpus else None
    return spec.level1_trays if spec is not None and resolved.nvlink_level1_nodes > 1 else 0


def level2_links(resolved: ResolvedDesign) -> Iterator[tuple[str, str, int, str, int]]:
    """Every level-2 NVLink cable as ``(link class, A device id, A cage, Z device id, Z cage)``, cages 0-based, domain
    by domain in node order (the one wiring rule of the second level):

    * a first-level domain's ``c = ceil(g1 x u / links_per_cable)`` cables leave it from its own cages: a node's
      (``node<n>``, cage ``j``) or, for a rack, its switch trays' (cable ``j`` on tray ``j mod T``, cage ``j div T``,
      ``level1_tray_id``);
    * ``nvlink-l2``: cable ``g = r x c + j`` of the domain (rack ``r``, its cable ``j``) lands on level-2 unit
      ``g mod S`` (``nvl<d>.l2sw<k>``, ``level2_switch_ids``), cage ``g div S``: each rack's cables spread evenly over
      the units, each unit's cages filled in rack order;
    * ``nvlink-direct`` (``Level2.direct_pairs``): cable ``j`` joins the same cage of the two racks.

    As many cables as ``ScaleUp.totals()["level2_cables"]`` (the bill of materials' count)."""
    from core.fabric.wiring import Wiring

    up = scaleup_of(resolved) if resolved.nvlink_rack_gpus else None
    if up is None or up.level2 is None:
        return
    spec, trays = up.level2, level1_trays(resolved)
    per_rack = math.ceil(up.level1_gpus * spec.uplinks_per_gpu / spec.links_per_cable)

    def end(first: int, j: int) -> tuple[str, int]:
        return (level1_tray_id(first, j % trays), j // trays) if trays else (Wiring.node_id(first), j)

    for domain in up.domains():
        if not domain.level2_cables:
            continue
        firsts = [domain.first_node + r * up.level1_nodes for r in range(domain.racks)]
        if domain.direct:
            for j in range(per_rack):
                yield ("nvlink-direct", *end(firsts[0], j), *end(firsts[1], j))
            continue
        units = domain.level2_switches
        for r, first in enumerate(firsts):
            for j in range(per_rack):
                g = r * per_rack + j
                yield ("nvlink-l2", *end(first, j), f"nvl{domain.index}.l2sw{g % units}", g // units)


def level2_device_name(device_id: str, resolved: ResolvedDesign, scheme) -> str:
    """Display name of a second-level device id (``scheme``: a ``core.fabric.naming.NamingScheme``), 1-based and padded
    as ``core.fabric.naming`` pads, after the switch prefix: tray ``nvsw<n>`` -> ``nvl005-nvsw4`` (tray 4 of the
    first-level domain the Slurm block export names ``nvl005``); unit ``nvl<d>.l2sw<k>`` -> ``nvd001-l2sw007`` (level-2
    unit 7 of NVLink domain 1); any other id unchanged."""
    up = scaleup_of(resolved)
    if device_id.startswith("nvsw") and device_id[4:].isdigit():
        node = int(device_id[4:])
        rack, tray = divmod(node, up.level1_nodes)
        racks = -(-resolved.nodes // up.level1_nodes)
        return f"{scheme.switch_prefix}nvl{rack + 1:0{scheme.digits(racks)}d}-nvsw{tray + 1}"
    head, _dot, unit = device_id.partition(".l2sw")
    if head.startswith("nvl") and head[3:].isdigit() and unit.isdigit():
        largest = up.domain_size(up.domain_gpus).level2_switches
        return f"{level2_domain_name(int(head[3:]), resolved, scheme)}-l2sw{int(unit) + 1:0{scheme.digits(largest)}d}"
    return device_id


def level2_domain_name(index: int, resolved: ResolvedDesign, scheme) -> str:
    """The exports' name of two-level NVLink domain ``index`` (0-based; ``scheme``: a
    ``core.fabric.naming.NamingScheme``): ``nvd001``, after the switch prefix, padded over the design's domains, as
    its level-2 units' names begin (``level2_device_name``: ``nvd001-l2sw007``)."""
    return f"{scheme.switch_prefix}nvd{index + 1:0{scheme.digits(scaleup_of(resolved).totals()['domains'])}d}"


def assumption_lines(resolved: ResolvedDesign) -> list[str]:
    """What the second NVLink level of ``resolved`` assumes, in words of the request's language (its catalog
    entry's notes, ``assets/catalog/scaleup.toml``); empty with one level."""
    spec = level2_for(resolved.system) if resolved.nvlink_rack_gpus else None
    if spec is None:
        return []
    return [_("Second NVLink level: {notes} Sources in the catalog's scale-up table.").format(notes=_(spec.notes))]


def customer_assumption_lines(resolved: ResolvedDesign) -> list[str]:
    """``assumption_lines`` for the customer's review pack: the same assumptions told from the catalog entry's
    figures (uplinks, their ratio to the links inside the first level, the level-2 unit's ports, NVLinks per cable),
    without the research notes' field names and evidence grades ("uplinks_per_gpu = 18 [A]"); empty with one
    level."""
    from core.units import ratio

    spec = level2_for(resolved.system) if resolved.nvlink_rack_gpus else None
    if spec is None:
        return []
    inside = resolved.system.nvlink_links_per_gpu
    return [_("Second NVLink level: each GPU sends {uplinks} NVLinks up, {ratio} against its {inside} inside the "
              "first level, to level-2 switch units of {ports} NVLink ports; one cable carries {per_cable} NVLinks "
              "(assumed). Sources in the catalog's scale-up table.").format(
        uplinks=spec.uplinks_per_gpu, ratio=ratio(inside / spec.uplinks_per_gpu), inside=inside,
        ports=spec.switch.ports, per_cable=spec.links_per_cable)]
