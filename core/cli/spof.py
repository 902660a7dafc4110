"""``python -m core spof``: single points of failure of the design, blast radius and priced remedies."""

from __future__ import annotations

import argparse

from core.cli.common import add_design_options, add_format_option, design_from_args, positive_int, row, to_json
from core.i18n import _, ngettext, usd
from core import vocab


def register(subparsers) -> None:
    """Add the ``spof`` sub-command."""
    parser = subparsers.add_parser(
        "spof", help=_("list single points of failure"),
        description=_("List every element whose loss alone cuts GPUs off or splits the cluster, with the GPUs "
                      "lost and a remedy priced from the catalog, and the elements whose loss only lowers "
                      "bandwidth (NVLink switch trays, link bundles, a rack's second power feed)."))
    add_design_options(parser)
    parser.add_argument("--limit", type=positive_int, default=20,
                        help=_("most elements the table lists (default 20; json lists all)"))
    from core.cli.export import add_naming_options

    add_naming_options(parser.add_argument_group(_("device names (as the exports name them)")))
    add_format_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> str:
    from core.analysis.failure import tier_label
    from core.analysis.failure.spec import failure_namer
    from core.cli.export import naming_from_args
    from core.analysis.spof import (SECTION_HEADINGS, degrading_label, degrading_sections, headline, remedy_label,
                                    single_points)
    from core.figures.topology import element_name
    from core.plan import plan

    design = design_from_args(args)
    naming_from_args(args)  # a bad prefix is said before the work
    planned = plan(design)
    result, system, family = single_points(planned), planned.resolved.system, planned.fabric.family
    # the exports' names under the design's naming, the engine id in brackets (pods: pod2-leaf001, R05-01 feedA)
    namer = failure_namer(planned, naming_from_args(args, planned))
    if args.format == "json":
        return to_json(result.to_json()) + "\n"
    lines = [headline(result.count)]  # the page's and the review pack's line
    if result.count:
        for e in result.elements[:args.limit]:
            cost = _("cost unknown") if e.remedy_capex_usd is None else usd(e.remedy_capex_usd)
            lines.append(row(element_name(family, e.element, namer), _("{tier}: {gpus} GPUs lost; remedy: {remedy} (+{cost} {fabric} capex)").format(
                tier=tier_label(e.tier, system, family), gpus=f"{e.gpus_lost:,}", remedy=remedy_label(e), cost=cost,
                fabric=vocab.compute_fabric())))
        if result.count > args.limit:
            lines.append(_("... and {more} more (--limit, or --format json for all)").format(
                more=f"{result.count - args.limit:,}"))
    for section, rows in degrading_sections(result):
        lines.append(_(SECTION_HEADINGS[section]))
        for d in rows:
            lines.append(row(element_name(family, d.example, namer), ngettext("{tier}, {count} element like it: {effect}",
                                                 "{tier}, {count} elements like it: {effect}", d.count).format(
                tier=tier_label(d.tier, system, family), count=f"{d.count:,}", effect=degrading_label(d))))
    lines.extend(result.notes)
    return "\n".join(lines) + "\n"
