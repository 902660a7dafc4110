"""``python -m core plan``: size a design and print its summary, JSON or bill of materials."""

from __future__ import annotations

import argparse
import io
import json
import sys

from core import plurals, scaleup, units, vocab
from core.fabric import domainlevels
from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.common import add_design_options, add_format_option, design_from_args, row, to_json
from core.analysis.whole import ratio_text
from core.i18n import N_, _, ngettext, usd
from core.fabric.families import group_hops, summary_rows, words
from core.spares import policy_words
from core.perf.constants import library_label
from core.figures.keynumbers import (fabric_capex_cli, family_links_text, level2_links_words, level2_modules_words,
                                     level2_switches_words, per_pod_value, provider_fabric, provider_links)



def register(subparsers) -> None:
    """Add the ``plan`` sub-command."""
    parser = subparsers.add_parser("plan", help=_("plan a cluster design"), description=_("Plan a cluster design."))
    add_design_options(parser)
    add_format_option(parser, ("json", "table", "csv"),
                      _("json: summary + BOM; table: readable summary; csv: the bill of materials"))
    add_units_option(parser)
    parser.set_defaults(handler=run)


def _fabric_word(summary: dict) -> str:
    """The compute fabric's display name, as the Designer's subtitle writes it (``vocab.fabric_label``: a cloud
    instance's transport by its name, else "InfiniBand" / "Ethernet RoCE")."""
    from core.catalog import load_catalog

    return vocab.fabric_label(summary["fabric"], load_catalog().nic(summary["nic_model"]).transport)


def _render_table(summary: dict, tiers: str, pods: dict | None = None, unit: str = "GB/s") -> str:
    """The plan CLI's table of ``summary`` (``Plan.summary()``); ``tiers`` the fabric's tiers in its family's words
    (``core.fabric.families.tier_words``). ``pods``: a design with pods, its every-pod words (``models``:
    ``core.analysis.whole.pods_models``; ``scaleup``: each pod's scale-up sentence) for the headline, the bandwidth
    and scale-up rows, where the summary's own fields are pod 1's. Bandwidths in ``unit`` ("GB/s" or "Gb/s",
    ``core.units.bandwidth``), power by ``core.units.power``."""
    out = io.StringIO()
    w = out.write
    nvl = summary["nvlink"]
    w(words(summary.get("topology"), "cli:headline", N_(  # a torus: no switch tiers, no switch
        "{gpus} x {model} {noun} in {nodes}; {fabric} {speed}G, {topology}, {tiers}, {planes}, switch "
        "{switch}")).format(
        gpus=f"{summary['gpus']:,}", model=summary["gpu_model"], noun=scaleup.accelerator_noun(nvl, plural=True),
        nodes=plurals.nodes(summary["nodes"]), fabric=_fabric_word(summary),
        speed=pods["models"]["speed"] if pods else summary["port_speed_gbps"],
        topology=vocab.TOPOLOGY.word(summary["topology"]), tiers=tiers, planes=plurals.planes(summary["planes"]),
        switch=pods["models"]["switch"] if pods else summary["switch_model"]) + "\n")
    models = summary.get("switch_models", {})
    if not pods and (len(set(models.values())) > 1 or summary.get("uplink_speed_gbps", summary["port_speed_gbps"])
                     != summary["port_speed_gbps"]):  # a design with pods: each pod's models in its own row
        w(row(_("tier models"), _("leaf {leaf} ({down}G down, {up}G up), spine {spine}, core {core}").format(
            leaf=models["leaf"], spine=models["spine"], core=models["core"], down=summary["port_speed_gbps"],
            up=summary["uplink_speed_gbps"])) + "\n")
    if summary.get("islands", 1) > 1:
        islands = (_("{islands} independent fabrics per plane ({mode}); traffic between them crosses {link} inside "
                     "the node") if summary["topology"] == "rail-only" else
                   _("{islands} independent fabrics in all, one per plane ({mode}); traffic between them crosses "
                     "{link} or the host"))
        w(row(_("islands"), islands.format(link=scaleup.link_word(nvl), islands=summary["islands"],
            mode=_("rail-only") if summary["topology"] == "rail-only" else _("per-rail planes"))) + "\n")
    growth = summary.get("growth", {})
    if growth and growth["grow_to_nodes"] > summary["nodes"]:
        w(row(_("growth"), _("sized for {grow_to} nodes; reserved network {reserved}; grows to {most} nodes "
                             "without recabling").format(
            grow_to=f"{growth['grow_to_nodes']:,}", reserved=usd(growth["reserved_network_capex_usd"]),
            most=f"{growth['max_nodes_without_recabling']:,}")) + "\n")
    s = summary["switches"]
    own = words(summary.get("topology"), "cli:switches", None)  # a family's own tiers (a Dragonfly's routers)
    clos = _("leaf {leaf}  spine {spine}  core {core}  total {total}")
    w(row(_("switches"), provider_fabric(summary) or (own or clos).format(
        leaf=f"{s['leaf']:,}", spine=f"{s['spine']:,}", core=f"{s['core']:,}", total=f"{s['total']:,}")
        + ("" if provider_fabric(summary) else level2_switches_words(s))) + "\n")
    li = summary["links"]
    if provider_links(summary):
        w(row(_("links"), provider_links(summary)) + "\n")
    elif family_links_text(summary):  # a family's own link classes (a Dragonfly's local links)
        w(row(_("links"), family_links_text(summary) + level2_links_words(li)) + "\n")
    elif "torus" not in summary:  # a torus's links are node to node (its own row below)
        w(row(_("links"), _("node-leaf {node_leaf}  leaf-spine {leaf_spine}  spine-core {spine_core}").format(
            node_leaf=f"{li['node_leaf']:,}", leaf_spine=f"{li['leaf_spine']:,}",
            spine_core=f"{li['spine_core']:,}") + ("" if "global" not in li else _("  global {links}").format(
                links=f"{li['global']:,}")) + level2_links_words(li)) + "\n")
    if "dragonfly" in summary:
        d = summary["dragonfly"]
        hops = group_hops(d["hops_same_group"], d["hops_other_group"], d["hops_valiant"])
        # the family's name as the label (untranslated, as the design line says it): within the rows' label width
        w(row("Dragonfly+", ngettext("{groups} groups of {leaves} leaves and {spines} spines; {pair} "
                                               "global link per group pair, {links} in all; switch hops {hops}",
                                               "{groups} groups of {leaves} leaves and {spines} spines; {pair} "
                                               "global links per group pair, {links} in all; switch hops {hops}",
                                               d["global_links_per_group_pair"]).format(
            groups=f"{d['groups']:,}", leaves=d["leaves_per_group"], spines=d["spines_per_group"],
            pair=f"{d['global_links_per_group_pair']:,}", links=f"{d['global_links']:,}", hops=hops) if d["groups"] > 1
            else _("one group of {leaves} leaves and {spines} spines, no global links; switch hops {hops}").format(
            leaves=d["leaves_per_group"], spines=d["spines_per_group"], hops=hops)) + "\n")
    if "torus" in summary:
        d = summary["torus"]
        w(row(_("Torus"), ngettext("{dims}, {width} link to each of {ports} neighbours; {links} links; bisection "
                                   "{cut} links; diameter {diameter} hops, average {average}",
                                   "{dims}, {width} links to each of {ports} neighbours; {links} links; bisection "
                                   "{cut} links; diameter {diameter} hops, average {average}",
                                   d["width"]).format(
            dims="x".join(map(str, d["dims"])), width=d["width"], ports=d["ports_per_node"] // max(1, d["width"]),
            links=f"{d['links']:,}", cut=f"{d['bisection_links']:,}", diameter=d["diameter_hops"],
            average=f"{d['average_hops']:.2f}") + ("" if "ocs" not in d else _("; {cubes} OCS cubes, {switches} optical "
                                                                           "circuit switches").format(
            cubes=d["ocs"]["cubes"], switches=d["ocs"]["switches"]))) + "\n")
    for label, text in summary_rows(summary):  # another topology family's own rows
        w(row(label, text) + "\n")
    t = summary["transceivers"]
    w(row(_("transceivers"), words(summary.get("topology"), "transceivers", N_(  # a torus: no switch side
        "switch side {switch_side}  node side {node_side}")).format(
        switch_side=f"{t['switch_side']:,}", node_side=f"{t['node_side']:,}")
        + level2_modules_words(summary.get("nvlink", {}))) + "\n")
    b = summary["bandwidth"]
    w(row(_("bandwidth"), _(  # the bisection ratio as every page names it (core.analysis.whole.ratio_text)
        "{link} {nvlink} per GPU (both directions); {injection} {scaleout} (one direction); bisection "
        "{bisection} (one direction); bisection ratio {oversubscription}, half the injection over the bisection (one "
        "direction)").format(link=scaleup.link_word(nvl), injection=vocab.injection(),
        # a design with pods: every pod's, equal values once, as the Designer's cards (keynumbers.per_pod_value)
        nvlink=per_pod_value(b.get("nvlink_gbytes_per_gpu_bidir_pods"), 8,
                             units.from_gbytes(b["nvlink_gbytes_per_gpu_bidir"]), unit),
        scaleout=per_pod_value(b.get("scaleout_gbits_per_gpu_pods"), 1, b["scaleout_gbits_per_gpu"], unit),
        bisection=units.bandwidth(units.from_tbits(b["bisection_tbits_one_direction"]), unit),
        oversubscription=ratio_text(b["oversubscription"], b.get("oversubscription_slower_half")))) + "\n")
    scale = pods["scaleup"] if pods else [scaleup.describe(
        summary["nvlink"], library_label(summary["nvlink"]["collective_library"]), unit)]
    for i, text in enumerate(scale):  # a design with pods: a line per pod under one label
        w(row(_("scale-up") if i == 0 else "", text) + "\n")
    n = summary["nvlink"]
    if n.get("levels") == 2:  # core.fabric.domainlevels
        w(row(_("NVLink levels"), _("{racks} x {level1} GPUs per domain; level 2, {counts}; {l2} per GPU (one "
                                     "direction), taper {taper}").format(
            racks=n["domain_gpus"] // n["level1_gpus"], level1=n["level1_gpus"],
            counts=domainlevels.level2_words(n, n["domain_gpus"]),
            l2=units.bandwidth(units.from_gbytes(n["level2_gbytes_per_gpu_per_direction"]), unit),
            taper=units.ratio(1 / n["level2_taper"])))
          + (_("; {pairs} pairs of racks cabled to each other, no level-2 switch (NVL36x2)").format(
              pairs=f"{n['direct_pairs']:,}") if n.get("direct_pairs") else "") + "\n")
    c = summary["cost"]
    p = summary["power"]
    w(row(_("cost"), _("capex {capex} ({per_gpu} per GPU; {fabric} {network} = {share}) - estimates at {basis} "
                       "prices, range {range}").format(
        capex=usd(c["capex_usd"]), per_gpu=usd(c["capex_per_gpu_usd"]),
        fabric=vocab.compute_fabric(level2=bool(c.get("scaleup_capex_usd"))),
        network=usd(c["network_capex_usd"]) + fabric_capex_cli(c),
        share=units.percent(c["network_share"]), basis=vocab.PRICE_BASES.label(c["price_basis"]),
        range=units.money_range(c["capex_usd_low"], c["capex_usd_high"]))) + "\n")
    if c.get("spares", "off") != "off":
        w(row(_("spares"), _("{spend} of the capex above ({policy}; on a shelf, no power)").format(
            spend=usd(c["spares_capex_usd"]),
            policy=policy_words(c["spares"]))) + "\n")
    w(row(_("power"), _("IT {it} ({fabric} {network}), facility {facility} at PUE {pue}").format(
        fabric=vocab.compute_fabric(level2=bool(c.get("scaleup_capex_usd"))), it=units.power(p["it_kw"]),
        network=units.power(p["network_kw"]), facility=units.power(p["facility_kw"]), pue=f"{p['pue']:g}")) + "\n")
    for line in summary["explanation"]:
        w(f"  - {line}\n")
    return out.getvalue()


def _pods_words(mixed, unit: str) -> dict:
    """Every pod's words for the plan table (``_render_table``'s ``pods``): the headline's switch models and port
    speeds (``core.analysis.whole.pods_models``) and each pod's scale-up sentence prefixed by its pod, bandwidths
    in ``unit``."""
    from core.analysis.whole import pods_models

    scale = []
    for pod, p in zip(mixed.fabric.pods, mixed.plans):
        nvl = p.nvlink_summary()
        scale.append(_("pod {pod}: {words}").format(pod=pod.index + 1, words=scaleup.describe(
            nvl, library_label(nvl["collective_library"]), unit)))
    return {"models": pods_models(mixed), "scaleup": scale}


def run(args: argparse.Namespace) -> str:
    from core.cost import bom_dataframe
    from core.fabric.families import tier_words
    from core.formats.entry import rounded_note
    from core.plan import plan

    design = design_from_args(args)
    result = plan(design)
    rounded = design.gpus and rounded_note(design.gpus, result.resolved.gpus_per_node)
    if rounded:  # said as the sidebar says it, on stderr: the output stays the plan (MCP passes it on as a note)
        print(rounded, file=sys.stderr)
    mixed = None
    if design.pods:  # core.analysis.pods: the pods under one spine layer, after the first pod alone
        from core.analysis.pods import mixed_plan, pods_summary
        from core.cli.pods import pods_table

        mixed = mixed_plan(design)
        if args.format == "csv":
            return bom_dataframe(mixed.bom).to_csv(index=False)
    if args.format == "csv":
        return result.bom_frame().to_csv(index=False)
    if mixed is not None:  # the totals of every pod (core.analysis.whole)
        from core.analysis.whole import whole_summary

        summary = whole_summary(result)
        summary["mixed_pods"] = pods_summary(mixed)
    else:
        summary = result.summary()
    if mixed is not None:
        if args.format != "json":
            unit = bandwidth_unit(args)
            words = _pods_words(mixed, unit)  # the shared fabric's tiers, not the first pod's alone
            return _render_table(summary, words["models"]["tiers"], words, unit) + pods_table(
                summary["mixed_pods"], unit)
    if args.format == "json":
        from core.analysis.whole import exported_summary

        summary = exported_summary(summary)  # pods: each value the pods differ in is null, every pod's in a list
        summary["design"] = json.loads(design.model_dump_json(exclude_defaults=True))
        bill = result.bom_frame() if mixed is None else bom_dataframe(mixed.bom)  # the whole design's: capex sums it
        summary["bom"] = json.loads(bill.to_json(orient="records"))
        if result.reserved_bom:  # grow_to: what growth still buys, apart from what is installed now
            summary["reserved_bom"] = json.loads(bom_dataframe(result.reserved_bom).to_json(orient="records"))
        return to_json(summary)
    return _render_table(summary, tier_words(result.fabric), unit=bandwidth_unit(args))
