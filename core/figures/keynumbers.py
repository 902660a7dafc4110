"""The headline numbers as display text, from ``Plan.summary()`` (what ``python -m core plan --format json`` prints).

Building them from the summary dict means the web page and a test reading
the CLI's JSON produce the same text for the same design. Labels and help texts are in the
current language (``core.i18n``); in Chinese, large dollar amounts are written in 万 / 亿.
"""

from __future__ import annotations

import unicodedata

from dataclasses import dataclass

from core import plurals, units, vocab
from core.catalog import load_catalog
from core.fabric.families import SWITCH_LABELS, switch_label, words
from core.figures.style import CJK_FONTS, sep
from core.networks import network_name
from core.text import html_text
from core.units import bandwidth, from_gbytes, from_tbits, kw, power, ratio
from core.units import number as significant
from core.i18n import N_, _, after_full_width, embedded, ngettext, number, usd


@dataclass(frozen=True)
class KeyNumber:
    key: str
    label: str
    value: str
    help: str


CAPEX = N_("Capex, whole cluster")
"""The whole design's capex at its price basis: the capex card's label and the workbook's row (one name)."""

def key_numbers(summary: dict, unit: str = "GB/s") -> list[KeyNumber]:
    """The metrics: GPUs, switches per tier (leaf, spine, core), links, transceivers, bisection,
    per-GPU scale-up and scale-out bandwidth, capex of the compute fabric and of the whole cluster, capex per
    GPU, IT power (13 numbers)."""
    sw = summary["switches"]
    links = summary["links"]
    xcvr = summary["transceivers"]
    bw = summary["bandwidth"]
    cost = summary["cost"]
    power_kw = summary["power"]
    nvlink_gbits = bw["nvlink_gbytes_per_gpu_bidir"] * 8
    return in_noun([*_base_numbers(summary, unit, sw, links, xcvr, bw, cost, power_kw, nvlink_gbits),
                    *_growth_numbers(summary)], summary.get("nvlink"))


def in_noun(numbers: list[KeyNumber], source) -> list[KeyNumber]:
    """``numbers`` with their labels and help texts saying ``source``'s accelerator noun ("NPU" for Ascend;
    ``core.scaleup.in_noun``); ``source``: the system, its ``Plan.nvlink_summary()`` or None (GPUs)."""
    from core.scaleup import in_noun as said

    return [KeyNumber(n.key, said(n.label, source), n.value, said(n.help, source)) for n in numbers]


def _growth_numbers(summary: dict) -> list[KeyNumber]:
    """With ``grow_to``: how far the installed spines, cores and leaf uplinks let the cluster grow."""
    growth = summary.get("growth")
    if not growth or not growth.get("max_nodes_without_recabling") or growth["grow_to_nodes"] <= summary["nodes"]:
        return []
    return [KeyNumber("growth", _("Grows without recabling to"),
                      _("{nodes} nodes").format(nodes=f"{growth['max_nodes_without_recabling']:,}"),
                      _("the spines, cores and every leaf's uplinks are installed for {grow_to} nodes; adding nodes "
                        "up to this count only adds leaves, NICs and their links (the Cost tab lists them)").format(
                            grow_to=f"{growth['grow_to_nodes']:,}"))]


def provider_fabric(summary: dict) -> str | None:
    """On a cloud instance's adapters (``Nic.transport``) why the design has no switch counts (no switch is bought,
    the BOM has none; the sized Clos only stands in for the hops a collective crosses), in words; None for a fabric
    that is bought. The Designer's switch cards and ``python -m core plan`` say it."""
    transport = load_catalog().nic(summary["nic_model"]).transport
    if not transport:
        return None
    return _("The compute fabric is the cloud provider's ({transport}): no switch is bought; the collective model "
             "counts the hops of a stand-in Clos of {count} switches.").format(
        transport=vocab.TRANSPORT.label(transport), count=f"{summary['switches']['total']:,}")


def provider_links(summary: dict) -> str | None:
    """On a cloud instance's adapters (``Nic.transport``) why the design has no link count (no cable or optic is
    bought; the stand-in Clos's links only count the hops), in words; None for a fabric that is bought. The
    Designer's Links card and ``python -m core plan`` say it, as ``provider_fabric`` for the switches."""
    transport = load_catalog().nic(summary["nic_model"]).transport
    if not transport:
        return None
    return _("The links are the cloud provider's ({transport}): no cable or optic is bought; the stand-in Clos has "
             "{count} links.").format(transport=vocab.TRANSPORT.label(transport),
                                      count=f"{sum(summary['links'].values()):,}")


def family_links_text(summary: dict) -> str | None:
    """The links by class in the words of ``summary``'s topology family (its ``card:links:help``: a Dragonfly's
    node-router, local and global links, all planes), translated; None when it declares none (a folded Clos's
    node-leaf, leaf-spine and spine-core words apply)."""
    own = words(summary.get("topology"), "card:links:help", None)
    links = summary["links"]  # (``global`` is a keyword: ``{global_}``)
    every = _all_planes(summary)
    if own is None:
        return None
    return own.format_map(_NoneOf({**{f"{k}_": f"{v:,}" for k, v in links.items()},
                                   **{k: f"{v:,}" for k, v in links.items()}, "all_planes": every}))


def _all_planes(summary: dict) -> str:
    """`` (all planes)`` after the links by class of a design of more than one plane; one plane: nothing to add up."""
    return _(" (all planes)") if summary.get("planes", 1) > 1 else ""


class _NoneOf(dict):
    """A link count the family's words name but the design does not have (one Dragonfly group: no global links) is
    0."""

    def __missing__(self, key: str) -> str:
        return "0"


def unbilled_by_cards(summary: dict) -> tuple[int, int]:
    """Links and transceivers of the compute network that the Links and Transceivers cards leave out: the UFM
    appliances' (the By network table's compute row, ``summary["networks"]["compute"]``, less the fabric's node,
    switch-to-switch and their optics, ``summary["links"]`` and ``summary["transceivers"]``); (0, 0) without it."""
    compute = (summary.get("networks") or {}).get("compute") or {}
    links = sum(summary["links"].values())
    xcvr = summary["transceivers"]["switch_side"] + summary["transceivers"]["node_side"]
    return max(0, compute.get("links", links) - links), max(0, compute.get("transceivers", xcvr) - xcvr)


def _ufm_words(count: int, counted) -> str:
    """``; not counted: the UFM appliances' 4 links (the By network table's compute row has them)`` ("" for none):
    ``counted`` the counted noun of ``core.plurals`` (``plurals.links``, ``plurals.transceivers``), so each card
    names what it leaves out (Chinese counts links with 条 and modules with 个)."""
    return _("; not counted: the UFM appliances' {counted} (the By network table's compute row counts them)").format(
        counted=counted(count)) if count else ""


def _links_number(summary: dict, links: dict) -> KeyNumber:
    """The Links card: the count by class, or on a cloud instance's adapters the provider's (``provider_links``)."""
    why = provider_links(summary)
    if why:
        return KeyNumber("links", _("Links"), _("provider's"), why)
    own, ufm = family_links_text(summary), _ufm_words(unbilled_by_cards(summary)[0], plurals.links)
    if own is not None:
        return KeyNumber("links", _("Links"), f"{sum(links.values()):,}", own + level2_links_words(links) + ufm)
    return KeyNumber("links", _("Links"), f"{sum(links.values()):,}",
                     _("node-leaf {node_leaf}, leaf-spine {leaf_spine}, spine-core {spine_core}").format(
                         node_leaf=f"{links['node_leaf']:,}", leaf_spine=f"{links['leaf_spine']:,}",
                         spine_core=f"{links['spine_core']:,}") + _all_planes(summary) + ("" if "global" not in links else _(
                             "; global {links} ({family} groups)").format(
                                 links=f"{links['global']:,}", family=vocab.TOPOLOGY.label(summary["topology"]))) + (
                         "" if "torus" not in links else _("; torus {links}, node to node").format(
                             links=f"{links['torus']:,}")) + level2_links_words(links) + ufm)


def _model(summary: dict, tier: str) -> str:
    return summary.get("switch_models", {}).get(tier, summary["switch_model"])


def _tier_switches(tier: str, count: int, switch: str) -> str:
    """``1 QM9700 leaf switch`` / ``24 QM9700 leaf switches`` (the spine's and core's alike)."""
    if tier == "leaf":
        text = ngettext("{count} {switch} leaf switch", "{count} {switch} leaf switches", count)
    elif tier == "spine":
        text = ngettext("{count} {switch} spine switch", "{count} {switch} spine switches", count)
    else:
        text = ngettext("{count} {switch} core switch", "{count} {switch} core switches", count)
    return text.format(count=f"{count:,}", switch=switch)


def _switch_numbers(summary: dict, sw: dict) -> list[KeyNumber]:
    """The leaf, spine and core switch cards; on a cloud instance's adapters the provider's, not counts
    (``provider_fabric``)."""
    why = provider_fabric(summary)
    if why:
        return [KeyNumber(f"switches_{t}", _(SWITCH_LABELS[t]), _("provider's"), why) for t in ("leaf", "spine", "core")]
    topology = summary.get("topology")  # a family's own words for its switches (a Dragonfly's routers)
    tiers = plurals.tiers(summary["tiers"])  # the total holds a second NVLink level's units: "in 2 tiers and ..."
    every = _("{tiers} and NVLink level 2").format(tiers=tiers) if sw.get("nvlink_level2") else tiers
    return [KeyNumber(f"switches_{t}", label, f"{sw[t]:,}",
                      (_(SWITCH_NONE[t]).format(tiers=tiers, total=plurals.switches(sw["total"]))
                       if not sw[t] and t in SWITCH_NONE else words(topology, f"card:{t}:help", SWITCH_HELP).format(
        count=f"{sw[t]:,}", switch=_model(summary, t), switches=_tier_switches(t, sw[t], _model(summary, t)),
        planes=plurals.planes(summary["planes"]), total=plurals.switches(sw["total"]), tiers=every))
                      + level2_switches_words(sw))
        for t, label in switch_cards(topology)]


def switch_cards(topology: str | None) -> list[tuple[str, str]]:
    """(tier, label) of the switch tiers ``topology``'s family has a card for, leaf to core, in the current language:
    a family declares None for a tier it lacks (``card:<tier>``; a classic Dragonfly: its routers alone, a torus:
    none). The key-number cards and the XLSX Summary's switch rows (``core.formats.xlsx``) read it."""
    return [(t, label) for t in ("leaf", "spine", "core")
            if (label := switch_label(topology, t)) is not None]


def _scaleup_value(bw: dict, nvlink_gbits: float, unit: str) -> str:
    """The scale-up card's value: ``nvlink_gbits`` [Gb/s, both directions] in ``unit``; a design with pods gives
    every pod's (``nvlink_gbytes_per_gpu_bidir_pods`` [GB/s], ``core.analysis.whole``), ``900 GB/s / 1.8 TB/s``."""
    return per_pod_value(bw.get("nvlink_gbytes_per_gpu_bidir_pods"), 8, nvlink_gbits, unit)


def per_pod_value(pods: list | None, gbits: float, value: float, unit: str) -> str:
    """A per-GPU card's value in ``unit``: ``value`` [Gb/s]; a design with pods gives every pod's ``pods`` (each
    times ``gbits`` in Gb/s) in pod order, equal values once: the one convention of the bandwidth cards (and of
    the Compare page's injection row, ``core.figures.compare``)."""
    if not pods:
        return bandwidth(value, unit)
    return " / ".join(dict.fromkeys(bandwidth(v * gbits, unit) for v in pods))


def _base_numbers(summary, unit, sw, links, xcvr, bw, cost, power_kw, nvlink_gbits) -> list[KeyNumber]:
    from core.scaleup import accelerator_noun

    nvl = summary.get("nvlink", {})  # a summary without one (an old JSON file): GPUs
    injection = per_pod_value(bw.get("scaleout_gbits_per_gpu_pods"), 1, bw["scaleout_gbits_per_gpu"], unit)
    return [
        KeyNumber("gpus", _("GPUs"), f"{summary['gpus']:,}", _pods_words(summary) or
                  _("{nodes} nodes x {gpus_per_node} {model} {nouns}").format(
                      nodes=f"{summary['nodes']:,}", gpus_per_node=summary["gpus_per_node"],
                      model=summary["gpu_model"], nouns=accelerator_noun(nvl, plural=True)) + _growth_note(summary)),
        *_switch_numbers(summary, sw),
        _links_number(summary, links),
        KeyNumber("transceivers", _("Transceivers"), _("provider's"), provider_links(summary)) if provider_links(summary)
        else KeyNumber("transceivers", _("Transceivers"), f"{xcvr['switch_side'] + xcvr['node_side']:,}",
                       words(summary.get("topology"), "transceivers", N_(  # a torus: no switch side (its WORDS)
                           "switch side {switch_side}, node side {node_side}")).format(
                           switch_side=f"{xcvr['switch_side']:,}", node_side=f"{xcvr['node_side']:,}")
                       + level2_modules_words(nvl) + _ufm_words(unbilled_by_cards(summary)[1], plurals.transceivers)),
        KeyNumber("bisection", _("Bisection (1 dir)"),
                  bandwidth(from_tbits(bw["bisection_tbits_one_direction"]), unit),
                  _("worst balanced cut of the nodes, one direction; bisection ratio {ratio} (half the injection "
                    "of all GPUs over the bisection; 1:1 = non-blocking)").format(
                      ratio=ratio(bw['oversubscription']))),
        KeyNumber("scaleup", _("NVLink/GPU (bidir)"), _scaleup_value(bw, nvlink_gbits, unit),
                  _("Scale-up: NVLink per GPU, both directions summed ({bandwidth})").format(
                      bandwidth=_scaleup_value(bw, from_gbytes(bw["nvlink_gbytes_per_gpu_bidir"]), unit)))
        if summary.get("nvlink", {}).get("generation", 1) else  # another scale-up technology says its name
        KeyNumber("scaleup", _("Scale-up/GPU (bidir)"), _scaleup_value(bw, nvlink_gbits, unit),
                  _("Scale-up: {name} per GPU, both directions summed ({bandwidth})").format(
                      name=summary["nvlink"].get("name", ""),
                      bandwidth=_scaleup_value(bw, from_gbytes(bw["nvlink_gbytes_per_gpu_bidir"]), unit))),
        KeyNumber("scaleout", vocab.injection("label"), injection,
                  _("{injection}: its scale-out NIC bandwidth, one direction, all planes ({bandwidth}); bisection ratio "
                    "{ratio}").format(injection=vocab.injection("name"), bandwidth=injection,
                                      ratio=ratio(bw['oversubscription']))),
        KeyNumber("capex", _(CAPEX), usd(cost["capex_usd"]),
                  _("{capex} at {basis} prices, range {range} (every catalog price at the low or high end of "
                    "its range); {fabric} {network} ({share})").format(
                      capex=usd(cost["capex_usd"]), network=usd(cost["network_capex_usd"]),
                      fabric=vocab.compute_fabric(level2=bool(cost.get("scaleup_capex_usd"))),
                      share=units.percent(cost['network_share']), basis=vocab.PRICE_BASIS.word(
                          cost.get("price_basis", "street")),
                      range=units.money_range(cost.get("capex_usd_low", cost["capex_usd"]),
                                              cost.get("capex_usd_high", cost["capex_usd"])))
                  + _network_split(summary, "capex_usd")),
        KeyNumber("capex_fabric", *fabric_capex_words(cost)),
        KeyNumber("capex_per_gpu", _(vocab.CAPEX_PER_GPU), usd(cost["capex_per_gpu_usd"]),
                  _("{amount} per GPU").format(amount=usd(cost["capex_per_gpu_usd"]))),
        KeyNumber("it_power", _("IT power"), power(power_kw["it_kw"]),
                  _("{it} IT ({fabric} {network}); facility {facility} at PUE {pue}").format(  # as the card
                      it=power(power_kw["it_kw"]), network=power(power_kw["network_kw"]),
                      fabric=vocab.compute_fabric(level2=bool(cost.get("scaleup_capex_usd"))),
                      facility=power(power_kw["facility_kw"]), pue=f"{power_kw['pue']:g}")
                  + _network_split(summary, "power_kw")),
    ]


def fabric_capex_words(cost: dict) -> tuple[str, str, str]:
    """The compute fabric's capex card: its label, value and help, from ``Plan.summary()``'s ``cost`` (money in
    USD, shown in the current currency). With a second NVLink level its switch units and cables are in the figure
    (``scaleup_capex_usd``, a part of ``network_capex_usd``): the label says so and the help splits it."""
    network, nvlink = cost["network_capex_usd"], cost.get("scaleup_capex_usd", 0.0)
    label = vocab.compute_fabric("capex", bool(nvlink))
    if not nvlink:
        return label, usd(network), _(
            "{network} for the compute fabric alone: its switches, transceivers, cables and the nodes' NICs "
            "({share} of the whole cluster). Not included: the GPU nodes, racks, the UFM appliances and their "
            "links, the storage fabric and the management networks.").format(network=usd(network), share=units.percent(cost['network_share']))
    return label, usd(network), _(
        "{network} ({share} of the whole cluster): the scale-out fabric's switches, transceivers, cables and the "
        "nodes' NICs {fabric}, and the second NVLink level's switch units, modules and fibres {nvlink}. Not "
        "included: the GPU nodes, racks, the UFM appliances and their links, the storage fabric and the "
        "management networks.").format(
        network=usd(network), share=units.percent(cost['network_share']), fabric=usd(network - nvlink), nvlink=usd(nvlink))


def level2_links_words(links: dict) -> str:
    """The Links card's words for a second NVLink level's cables, which its count holds (``Plan.level2_cables``,
    ``summary["links"]["nvlink_level2"]``; their modules are on the Transceivers card), for the card and the plan
    CLI; "" with one level."""
    cables = links.get("nvlink_level2", 0)
    return _("; NVLink level 2 {cables} (its optical cables, included)").format(cables=f"{cables:,}") if cables else ""


def level2_switches_words(switches: dict) -> str:
    """The switch cards' words after their total, for a second NVLink level's switch units, which it holds
    (``Plan.level2_switches``, ``summary["switches"]["nvlink_level2"]``; the By network table's compute row and the
    capex hold them too), for the cards and the plan CLI; "" with one level."""
    units = switches.get("nvlink_level2", 0)
    return _(", of which NVLink level 2 {switches} (its switch units)").format(
        switches=f"{units:,}") if units else ""


def level2_modules_words(nvlink: dict) -> str:
    """The Transceivers card's words for a second NVLink level's optical modules (two per level-2 cable, both on the
    switch side, ``domainlevels.level2_bom``), from ``Plan.summary()``'s ``nvlink``, for the card and the plan CLI;
    "" without one."""
    cables = nvlink.get("level2_cables_total", 0)
    return _("; of which NVLink level 2 {modules}").format(modules=f"{2 * cables:,}") if cables else ""


def fabric_share_words(cost: dict) -> tuple[str, str]:
    """The compute fabric's share of capex: its label and help, from ``Plan.summary()``'s ``cost`` (or a
    ``CostSummary``'s fields as a dict). The share is of ``network_capex_usd``, which holds a second NVLink level's
    switch units, modules and fibres (``scaleup_capex_usd``): the label names it then, as ``fabric_capex_words``'s
    does."""
    label = vocab.compute_fabric("share", bool(cost.get("scaleup_capex_usd")))
    if not cost.get("scaleup_capex_usd"):
        return label, _("NICs, switches, transceivers and cables as a share of capex")
    return label, _(
        "the scale-out fabric's NICs, switches, transceivers and cables and the second NVLink level's switch units, "
        "modules and fibres, as a share of capex")


def whatif_capex_note(plan) -> str:
    """The note under the leaf-oversubscription what-if of ``plan`` (a ``Plan``, the what-if's design) when its
    network capex per GPU holds a second NVLink level's parts (``CostSummary.scaleup_capex_usd``,
    ``fabric_capex_words``): how much per GPU [USD, in the current currency], the same in every row; "" without
    one."""
    nvlink = plan.cost.scaleup_capex_usd
    if not nvlink:
        return ""
    return _("The {fabric} capex per GPU includes the second NVLink level's switch units and cables, {nvlink} per "
             "GPU in every row, and the switch counts its {units} switch units (the leaves do not change them).").format(
        fabric=embedded(vocab.compute_fabric("word", True)), nvlink=usd(nvlink / plan.resolved.gpus),
        units=f"{plan.level2_switches:,}")


def fabric_capex_cli(cost: dict) -> str:
    """The plan CLI's words for the compute fabric's capex (``fabric_capex_words``'s split): `` (of which NVLink
    level 2 $11.5 M)`` when the figure holds a second NVLink level's parts, else ""."""
    nvlink = cost.get("scaleup_capex_usd", 0.0)
    return _(" (of which NVLink level 2 {nvlink})").format(nvlink=usd(nvlink)) if nvlink else ""


def _network_split(summary: dict, key: str) -> str:
    """``; by network: compute fabric $45.9 M, storage fabric $4.32 M, ...`` (capex) or the same in kW (power);
    empty when the design has only the compute fabric."""
    networks = summary.get("networks") or {}
    if not any(v.get(key) for n, v in networks.items() if n != "compute"):
        return ""
    shown = usd if key == "capex_usd" else power
    parts = [after_full_width(_("{network} {amount}").format(network=network_name(n, "bill"), amount=shown(v[key])))
             for n, v in networks.items() if v.get(key)]  # zh: 计算（节点与计算网络）11.8亿美元, no space after ）
    return _("; by network: {parts}").format(parts=sep().join(parts))


def _pods_words(summary: dict) -> str:
    """A design with pods (``core.analysis.whole.whole_summary``): ``pod 1: 64 nodes of H100; pod 2: ...; the
    per-GPU bandwidths are every pod's, in pod order; pod 2, the slowest, bounds ...``; empty without pods."""
    mixed = summary.get("mixed_pods")
    if not mixed:
        return ""
    pods = sep().join(_("pod {pod}: {nodes} nodes of {system}").format(
        pod=pod["pod"], nodes=f"{pod['nodes']:,}", system=pod["system"]) for pod in mixed["pods"])
    if mixed.get("pods_alike"):
        return _("{pods}; the per-GPU bandwidths are every pod's, in pod order; every pod has the same rate "
                 "across pods").format(pods=pods)
    return _("{pods}; the per-GPU bandwidths are every pod's, in pod order; pod {slowest}, the slowest, bounds a "
             "collective across pods").format(pods=pods, slowest=mixed["slowest_pod"])


def _growth_note(summary: dict) -> str:
    """``; grows to N nodes without recabling`` (and the growth target when ``grow_to`` is set)."""
    growth = summary.get("growth")
    if not growth or not growth.get("max_nodes_without_recabling"):
        return ""
    if growth["grow_to_nodes"] > summary["nodes"]:
        return _("; sized for {grow_to} nodes, grows to {most} without recabling").format(
            grow_to=f"{growth['grow_to_nodes']:,}", most=f"{growth['max_nodes_without_recabling']:,}")
    return _("; grows to {most} nodes without recabling").format(most=f"{growth['max_nodes_without_recabling']:,}")


SWITCH_HELP = N_("{switches}, all {planes}; {total} in {tiers}")
"""The switch cards' tooltip (``{switches}``: :func:`_tier_switches`, ``{total}``: ``core.plurals.switches``)."""
SWITCH_NONE = {"spine": N_("none: no spine layer in {tiers}; {total} in all"),
               "core": N_("none: no core layer in {tiers}; {total} in all")}
"""The spine and core cards' tooltips when the tier has no switch (no model to name)."""


def size_caption(plan) -> str:
    """How big the cluster is, in words a buyer uses: ``1,016 x H100 in 127 nodes``, or for NVLink
    racks ``576 GPUs in 8 GB200-NVL72 racks (144 compute trays of 4 GPUs)``; a design with pods
    (its plan or its ``core.analysis.whole.WholePlan``) ``768 GPUs in 2 pods (H100 + B200, 96 nodes)``. Racks a
    second NVLink level joins say into how many domains (``_joined``)."""
    from core.analysis.whole import whole_plan
    from core.scaleup import other_rack

    mixed = getattr(whole_plan(plan), "mixed", None)
    if mixed is not None:
        f = mixed.fabric
        return _("{gpus} GPUs in {pods} pods ({systems}, {nodes} nodes)").format(
            gpus=f"{f.gpus:,}", pods=len(f.pods), systems=" + ".join(dict.fromkeys(pod.system for pod in f.pods)),
            nodes=f"{f.nodes:,}")
    r = plan.resolved
    nodes_per_domain = r.nvlink_level1_nodes
    if nodes_per_domain > r.nodes_per_rack:  # a domain of several racks (CloudMatrix 384: 12 compute racks)
        domains = -(-r.nodes // nodes_per_domain)
        return ngettext("{gpus} accelerators in {domains} {system} domain ({nodes} nodes of {gpus_per_node}, "
                        "{racks} compute racks)",
                        "{gpus} accelerators in {domains} {system} domains ({nodes} nodes of {gpus_per_node}, "
                        "{racks} compute racks)", domains).format(
            gpus=f"{r.gpus:,}", domains=f"{domains:,}", system=r.system.id, nodes=f"{r.nodes:,}",
            gpus_per_node=r.gpus_per_node, racks=f"{-(-r.nodes // r.nodes_per_rack):,}")
    rack = other_rack(r.system, nodes_per_domain * r.gpus_per_node) if nodes_per_domain > 1 else None
    if rack is not None:
        racks = -(-r.nodes // nodes_per_domain)  # GB200-NVL72's trays in NVL36 racks: the system keeps its id
        return _joined(r, ngettext("{gpus} GPUs in {racks} {rack} rack of {system} trays ({nodes} compute trays of "
                        "{gpus_per_node} GPUs)",
                        "{gpus} GPUs in {racks} {rack} racks of {system} trays ({nodes} compute trays of "
                        "{gpus_per_node} GPUs)", racks).format(
            gpus=f"{r.gpus:,}", racks=f"{racks:,}", rack=rack, system=r.system.id,
            nodes=f"{r.nodes:,}", gpus_per_node=r.gpus_per_node))
    if nodes_per_domain > 1:
        racks = -(-r.nodes // nodes_per_domain)
        return _joined(r, ngettext("{gpus} GPUs in {racks} {system} rack ({nodes} compute trays of {gpus_per_node} GPUs)",
                        "{gpus} GPUs in {racks} {system} racks ({nodes} compute trays of {gpus_per_node} GPUs)",
                        racks).format(gpus=f"{r.gpus:,}", racks=f"{racks:,}",
                                      system=r.system.id,
                                      nodes=f"{r.nodes:,}", gpus_per_node=r.gpus_per_node))
    return _joined(r, ngettext("{gpus} x {system} in {nodes} node", "{gpus} x {system} in {nodes} nodes",
                               r.nodes).format(gpus=f"{r.gpus:,}", system=r.system.id, nodes=f"{r.nodes:,}"))


def _joined(r, size: str) -> str:
    """``size`` (``size_caption``'s racks) and, when a second NVLink level joins racks into larger domains, into how
    many and how large: ``576 GPUs in 16 NVL36 racks ... , joined by a second NVLink level into 4 domains of 144
    GPUs`` (``of up to`` when the domains differ in size)."""
    from core.fabric.domainlevels import scaleup_of

    up = scaleup_of(r)
    if not up.two_level:
        return size
    domains = up.totals()["domains"]
    if len({gpus for gpus, _count in up.runs}) == 1:
        words = ngettext("{size}, joined by a second NVLink level into {domains} domain of {gpus} GPUs",
                         "{size}, joined by a second NVLink level into {domains} domains of {gpus} GPUs", domains)
    else:
        words = ngettext("{size}, joined by a second NVLink level into {domains} domain of up to {gpus} GPUs",
                         "{size}, joined by a second NVLink level into {domains} domains of up to {gpus} GPUs",
                         domains)
    return words.format(size=size, domains=f"{domains:,}", gpus=f"{up.domain_gpus:,}")


def cards_html(numbers: list[KeyNumber]) -> str:
    """Key numbers as one HTML block of cards (a CSS grid that wraps to the page width; see app.py).

    Drawn as markdown HTML rather than one widget per number so the cards appear with the page's
    first text, before the browser has loaded the code for charts and inputs. Labels, values and
    help texts are HTML-escaped; ``data-testid`` names match Streamlit's metric cards so browser
    tests and tools find them the same way. Every card of the block is one grid column wide, the columns as
    wide as the block's widest value needs (``card_rem``) and every row as tall as the tallest: the rows are
    even, with no double-width card leaving a hole.
    """
    widest = max((_display_width(n.value) for n in numbers), default=0)
    cards = "".join(
        f'<div class="fp-card{" fp-wrap" if _display_width(n.value) > WIDE_VALUE else ""}" '
        f'data-key="{html_text(n.key)}" title="{html_text(n.help)}">'
        f'<div class="fp-label" data-testid="stMetricLabel">{html_text(n.label)}</div>'
        f'<div class="fp-value" data-testid="stMetricValue">{html_text(n.value)}</div></div>'
        for n in numbers)
    return f'<div class="fp-cards" style="--fp-card: {card_rem(widest):.1f}rem">{cards}</div>'


CARD_REM = 8.2
"""The narrowest card [rem]: a value of about ten digits at 1.35 rem, the padding and border (a 1,024 px page holds
four in a row)."""
COLUMN_REM = 0.7
"""A value's display column at 1.35 rem [rem] (a digit; a CJK character is two columns)."""
PADDING_REM = 1.7
"""A card's padding and border left and right, with a little air [rem]."""
WIDE_VALUE = 12
"""The widest value [display columns, ``_display_width``] the cards' width is fitted to: a wider one (a capex range,
both pods' NVLink) wraps onto a second line of its card (``fp-wrap``) rather than make every card wider."""


def card_rem(columns: int) -> float:
    """The width [rem] of the cards of a block whose widest value takes ``columns`` display columns: room for that
    value (at most ``WIDE_VALUE`` columns), never narrower than ``CARD_REM``."""
    return max(CARD_REM, PADDING_REM + COLUMN_REM * min(columns, WIDE_VALUE))


def _display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


CARDS_CSS = (
    '.fp-cards {font-family: "Source Sans Pro", "Source Sans 3", ' + CJK_FONTS + ', sans-serif; '
    f"display: grid; grid-template-columns: repeat(auto-fill, minmax(var(--fp-card, {CARD_REM}rem), 1fr)); "
    "grid-auto-rows: 1fr; gap: 0.6rem; margin: 0.25rem 0 0.75rem;} "
    ".fp-card {border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; padding: 0.55rem 0.75rem; "
    "cursor: help; min-width: 0;} "
    ".fp-label {font-size: 0.85rem; line-height: 1.25; color: rgba(49, 51, 63, 0.8); overflow-wrap: break-word;} "
    ".fp-value {font-size: 1.35rem; line-height: 1.4; white-space: nowrap; padding-top: 0.15rem;} "
    ".fp-wrap .fp-value {white-space: normal; text-wrap: balance;}"  # 900 GB/s / | 1.8 TB/s, not 1.8 | TB/s
)
"""The cards' style, one rule set for the app and (later) the report."""


def training_key_numbers(estimate_, system=None) -> list[KeyNumber]:
    """A ``core.perf.training.TrainingEstimate``'s headline numbers as key-number cards (see ``cards_html``), in
    ``system``'s accelerator noun (``in_noun``; None: GPUs)."""
    e = estimate_
    cost = usd(e.cost_usd)
    return in_noun([
        KeyNumber("step_time", _("Step time"), f"{significant(e.step_time_s)} s",  # the tables' three decimals in its help
                  _("seconds per optimizer step: {exact} s to the millisecond, as the tables that set step times side "
                    "by side write it; the card rounds to three significant figures").format(
                      exact=units.seconds(e.step_time_s))),
        KeyNumber("tokens_per_s", _("Tokens/s"), number(e.tokens_per_s), _("tokens trained per second, whole job")),
        KeyNumber("mfu", _("MFU"), units.percent(e.mfu), _("model FLOPs / (GPUs x dense peak x time)")),
        KeyNumber("comm", _("Communicating"), units.percent(e.comm_fraction),
                  _("share of the step spent in communication that compute does not hide")),
        KeyNumber("days", _("Days to train"), units.days(e.days_to_train),
                  _("{tokens} tokens at this throughput").format(tokens=number(e.job.tokens_to_train))),
        KeyNumber("cost", _("Cost of the run"), cost,
                  _("share of the cluster's TCO per day (catalog price estimates) x days")),
    ], system)


def cost_key_numbers(plan) -> list[KeyNumber]:
    """The Cost & power tab's cards: cost per GPU, network share, energy, TCO (with what a job pays of it per
    GPU-hour, ``core.plan.tco_share_usd_per_s``: the same for every GPU of every pod), racks."""
    from core.plan import cost_basis, shown_share, tco_share_usd_per_s

    cost = plan.cost
    basis, gpus = cost_basis(plan)
    per_gpu_hour = tco_share_usd_per_s(basis.tco_usd, basis.tco_years, 1, gpus) * 3600.0
    return [
        KeyNumber("capex_range", _("Capex range"),
                  units.money_range(cost.capex_usd_low, cost.capex_usd_high),
                  _("every catalog price at the low, then the high end of its range (the price book on the "
                    "Catalog page); the headline capex {capex} is at {basis} prices; {fabric} {range}").format(
                      capex=usd(cost.capex_usd), basis=vocab.PRICE_BASIS.word(cost.price_basis),
                      fabric=vocab.compute_fabric("word", bool(cost.scaleup_capex_usd)),
                      range=units.money_range(cost.network_capex_usd_low, cost.network_capex_usd_high))),
        KeyNumber("capex_per_gpu", _(vocab.CAPEX_PER_GPU), usd(cost.capex_per_gpu_usd),
                  _("capex / GPUs (estimates)")),
        KeyNumber("network_share", fabric_share_words({"scaleup_capex_usd": cost.scaleup_capex_usd})[0],
                  units.percent(shown_share(cost.network_share)),
                  fabric_share_words({"scaleup_capex_usd": cost.scaleup_capex_usd})[1]),
        KeyNumber("energy", _("Energy per year"), usd(cost.energy_usd_per_year),
                  _("facility {power} x 8,760 h x {price}/kWh").format(  # the power and price as the cards write them
                      power=power(cost.facility_kw), price=usd(plan.design.electricity_usd_per_kwh, cents=True))),
        KeyNumber("tco", _("TCO ({years} years)").format(years=f"{cost.tco_years:g}"), usd(cost.tco_usd),
                  _("capex + years x energy; staff, space, maintenance and financing not included; a job pays "
                    "its GPUs' share: {rate} per GPU-hour, the same for each GPU of every pod").format(
                      rate=usd(per_gpu_hour, cents=True))),
        KeyNumber("racks", _("Compute racks"), f"{cost.racks_compute:,}", _racks_help(plan)),
    ]


def _racks_help(plan) -> str:
    """The Compute racks card's words: the racks in all and the most power in one rack [kW] of ``plan``'s layout;
    a design with pods (``core.analysis.whole.WholePlan``): of its whole hall, against the hottest rack's limit."""
    hall = getattr(getattr(plan, "mixed", None), "hall", None)
    layout = hall.layout if hall is not None else getattr(plan, "layout", None)
    if layout is None:
        return _("racks of compute nodes")
    counts = layout.counts()
    limit = max(layout.racks, key=lambda r: r.kw).kw_limit if hall is not None else layout.power_limit_kw
    return _("racks of compute nodes; {total} racks in all, {network} of them for network switches, at most {kw} kW "
             "per rack of {limit} kW (Racks & cabling tab)").format(
        total=f"{counts['total']:,}", network=f"{counts['network']:,}", kw=kw(layout.max_kw_per_rack),
        limit=kw(limit))


def rack_key_numbers(plan) -> list[KeyNumber]:
    """The Racks & cabling tab's cards: racks by kind, the worst rack's power, rows, floor area."""
    from core.physical.racks import load_racks, preset_label

    layout = plan.layout
    counts = layout.counts()
    worst = max(layout.racks, key=lambda r: r.kw)  # the most power in one rack (ties: the first)
    numbers = [
        KeyNumber("racks_total", _("Racks"), f"{counts['total']:,}",
                  _("{compute} compute, {network} network, {storage} storage, {management} management").format(
                      **{k: f"{v:,}" for k, v in counts.items()})),
        KeyNumber("nodes_per_rack", _("Nodes per rack"), f"{layout.nodes_per_rack:,}",
                  _("under the {limit} kW and {units}U rack limits ({preset})").format(
                      limit=kw(layout.power_limit_kw), units=layout.rack_units, preset=preset_label(layout.preset))),
        KeyNumber("max_kw", _("Most power in a rack"), power(worst.kw),
                  _("{rack}, {share} of its {limit} kW limit").format(
                      rack=worst.name, share=units.percent(worst.kw / worst.kw_limit), limit=kw(worst.kw_limit))),
        KeyNumber("rows", _("Rows"), f"{len(layout.rows):,}",
                  _("scalable units in rows of up to {most} racks; spine, core and management racks in the middle")
                  .format(most=load_racks().hall.max_racks_per_row)),
        KeyNumber("floor", _("Floor area"), f"{layout.floor_area_m2:,.0f} m²",
                  _("{length} m x {width} m with aisles").format(
                      length=units.metres(layout.hall_length_m), width=units.metres(layout.hall_width_m))),
    ]
    longest = max((item.max_m for item in plan.lengths), default=0.0)
    if plan.lengths:
        numbers.append(KeyNumber("longest_cable", _("Longest compute cable"), f"{units.metres(longest)} m",
                                 _("the compute fabric's links (the storage and management cables are in the "
                                   "cabling plan), slack included; by link class in the cable lengths below")))
    return numbers


def serving_key_numbers(estimate_, system=None) -> list[KeyNumber]:
    """A ``core.perf.serving.ServingEstimate``'s headline numbers as key-number cards (see ``cards_html``): TTFT,
    TPOT, output and input tokens/s per GPU, cost per million output tokens, energy per output token, targets met;
    in ``system``'s accelerator noun (``in_noun``; None: GPUs)."""
    e = estimate_
    w, d = e.deployment.workload, e.deployment
    prefill_gpus = e.prefill.gpus if d.mode == "disaggregated" else e.decode.gpus
    targets = [_("TTFT {ms} ms").format(ms=f"{w.ttft_ms:,g}")] if w.ttft_ms else []
    targets += [_("TPOT {ms} ms").format(ms=f"{w.tpot_ms:,g}")] if w.tpot_ms else []
    met = _("yes") if e.meets_slo else _("no")
    return in_noun([
        KeyNumber("ttft", _("Time to first token"), units.milliseconds(e.ttft_s),
                  _("queueing, prefill, KV-cache transfer and the first decode step at {rate} requests/s").format(
                      rate=number(e.rate)) if not e.overloaded else
                  _("{asked} requests/s asked, {served} served: the pools run saturated and the rest of the requests "
                    "queue without bound").format(asked=number(w.rate), served=number(e.rate))),
        KeyNumber("tpot", _("Time per output token"), units.milliseconds(e.tpot_s),
                  _("one decode step of {batch} sequences per rank").format(batch=number(e.decode.batch))),
        KeyNumber("output_per_gpu", _("Output tokens/s per GPU in decode"), significant(e.output_tokens_per_s_per_gpu),
                  (_("output tokens per second of the decode pool over its {gpus} GPUs, saturated: it serves no "
                     "more") if e.overloaded else _("output tokens per second of the decode pool over its {gpus} GPUs")
                   ).format(gpus=f"{e.decode.gpus:,}")),
        KeyNumber("input_per_gpu", _("Input tokens/s per GPU in prefill"), significant(e.input_tokens_per_s_per_gpu),
                  _("prompt tokens per second over the {gpus} GPUs that prefill").format(gpus=f"{prefill_gpus:,}")),
        KeyNumber("usd_per_m", _("Cost per million output tokens"), usd(e.usd_per_million_output_tokens, cents=True),
                  _("the deployment's {gpus} GPUs' share of the cluster's TCO (capex over the TCO years plus "
                    "energy), catalog price estimates").format(gpus=f"{e.gpus:,}")),
        KeyNumber("joules", _("Energy per output token"),
                  _(units.UNBOUNDED) if units.unbounded(e.joules_per_output_token) else
                  f"{significant(e.joules_per_output_token)} J",
                  _("the deployment's share of facility power over its output tokens per second")),
        KeyNumber("slo", _("Meets the targets"), met,
                  _("targets: {targets}").format(targets=sep().join(targets)) if targets else _("no targets set")),
    ], system)


def kv_key_numbers(kv, unit: str = "GB/s") -> list[KeyNumber]:
    """A ``core.perf.serving.KvTransfer``'s numbers as cards: cache per request, transfer time, traffic at the
    deployment's rate, what the network between the pools offers and the share the transfer takes."""
    from core.perf.placement import level_label
    from core.perf.sizes import format_size

    level = _("front-end network") if kv.level == "frontend" else level_label(kv.level)
    bound = _("the fabric's bisection sets it") if kv.bound == "bisection" else _("the smaller pool's NICs set it")
    return [
        KeyNumber("kv_bytes", _("KV cache per request"), format_size(kv.bytes_per_request),
                  _("the prompt's cache, moved from a prefill rank to a decode rank")),
        KeyNumber("kv_time", _("Transfer time"), units.milliseconds(kv.time_s),
                  _("fixed cost, switch hops and the bytes over the sending GPUs' share of the network")),
        KeyNumber("kv_rate", _("KV traffic (1 dir)"), bandwidth(from_gbytes(kv.gbytes_per_s), unit),
                  _("at the deployment's request rate, one direction")),
        KeyNumber("kv_offered", _("Network between the pools (1 dir)"), bandwidth(from_gbytes(kv.network_gbytes_per_s), unit),
                  _("the smaller pool's NIC bandwidth (the cache leaves one pool and enters the other), at most the "
                    "fabric's bisection, each at {efficiency} of its line rate (a bulk RDMA transfer's efficiency); here "
                    "{bound}; one direction; farthest level crossed: {level}").format(
                      efficiency=units.percent(kv.efficiency), bound=bound, level=level)),
        KeyNumber("kv_load", _("Network load"), units.percent(kv.load),
                  _("KV traffic over what the network between the pools offers")),
    ]
