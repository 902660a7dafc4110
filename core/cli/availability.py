"""``python -m core availability``: availability over time, spares in the BOM, the monitoring checklist.

JSON (``--format json``, English): ``availability`` (``core.analysis.availability.Availability``:
``method``, ``elements``, ``expected_down``, ``job_run_fraction``, ``expected_gpus_cut_off``,
``expected_bandwidth_share``, ``expected_bisection_tbits_one_direction``, ``rates`` ...; on a family the model does
not read, a torus, the sentence saying so, as the table's ``availability`` row, the spares and checklist still given),
``spares``
(``core.analysis.sparing.Spares``: ``rows[]``, ``spares_capex_usd``, ``capex_with_spares_usd`` ...) and
``monitoring`` (rows with ``id``, ``tiers``, ``counter``, ``threshold``, ``source``). A design with pods
(``--pods``): ``availability`` is the whole fabric's, per pod and in total (``core.cli.podavailability``).
"""

from __future__ import annotations

import argparse

from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.common import (MAX_SEED, add_design_options, add_format_option, design_from_args, positive_int, row,
                             seed, to_json)
from core.errors import InputError, shown
from core.i18n import _, ngettext, usd
from core.i18n import number as grouped
from core.units import bandwidth, from_tbits, number, percent


def register(subparsers) -> None:
    """Add the ``availability`` sub-command."""
    parser = subparsers.add_parser(
        "availability", help=_("availability over time, spares and the monitoring checklist of a design"),
        description=_("Availability over time (failure rates from assets/catalog/reliability.toml), spares in "
                      "the bill of materials and the monitoring checklist."))
    add_design_options(parser)
    add_format_option(parser)
    add_units_option(parser)
    g = parser.add_argument_group(_("availability"))
    g.add_argument("--job-gpus", type=positive_int, metavar="N",
                   help=_("GPUs the job needs healthy and reachable (default: the whole cluster)"))
    g.add_argument("--trials", type=positive_int, default=1000, help=_("Monte Carlo trials (default 1000)"))
    g.add_argument("--seed", type=seed, default=0,
                   help=_("random seed, 0 to {most} (default 0)").format(most=f"{MAX_SEED:,}"))
    g.add_argument("--rate", action="append", default=[], metavar="CLASS.FIELD=VALUE",
                   help=_("override a failure rate, e.g. {example} [afr: failures per year; mttr: hours] (repeatable)")
                   .format(example="--rate=switch.afr=0.08"))
    g.add_argument("--lead-days", type=positive_int, default=90,
                   help=_("restock lead time for spare coverage [days] (default 90)"))
    parser.set_defaults(handler=run)


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise InputError(_("{what} wants NAME=VALUE, got {value}").format(what=what, value=shown(item)))
        out[key.strip()] = value.strip()
    return out


def _rates(items: list[str]):
    from core.analysis.availability import rates_with

    changes: dict[str, dict] = {}
    for key, value in _pairs(items, "--rate").items():
        name, _dot, field = key.partition(".")
        field = {"mttr": "mttr_hours"}.get(field, field)
        try:
            number = float(value)
        except ValueError:
            raise InputError(_("--rate {key}: {value} is not a number").format(key=shown(key), value=shown(value)))
        changes.setdefault(name, {})[field] = number
    return rates_with(changes)


DOWN = (("nodes", "gpu_node"), ("nics", "nic"), ("links", "link"), ("switches", "switch"))
"""The down-on-average row's elements: its word and the availability class."""


def _down(avail, name: str) -> str:
    """Elements of class ``name`` down on average, as the page's column (``expected_down_text``)."""
    from core.analysis.availability import expected_down_text

    return expected_down_text(avail, name)


def run(args: argparse.Namespace) -> str:
    from core.analysis.availability import availability
    from core.analysis.monitoring import checklist, checklist_table
    from core.analysis.sparing import setting_policy, with_spares
    from core.plan import plan

    from core.analysis.whole import design_mixed
    from core.cli.podavailability import pods_lines, pods_result
    from core.fabric.families import require_model

    design = design_from_args(args)
    result, mixed = plan(design), design_mixed(design)  # with pods: the whole fabric, as the Resilience page
    rates = _rates(args.rate)
    try:  # a family the availability model does not read (a torus) still has its spares and checklist, as the page
        require_model(result.fabric, "availability", _("The availability model"))
    except InputError as exc:
        avail = str(exc)
    else:
        avail = (availability(result, job_gpus=args.job_gpus, trials=args.trials, seed=args.seed, rates=rates)
                 if mixed is None else pods_result(mixed, args, rates))
    # the design's --spares policy (core.cli.common; the catalog's when off), each spare row with its coverage, on a
    # family whose bill the sparing reads (BOM_MODELS, as the Resilience page's Spares tab); else why not
    try:
        require_model(result.fabric, "spares", _("The spares analysis"))
    except InputError as exc:
        spares = str(exc)
    else:
        spares = with_spares(result, setting_policy(result.design.spares) or {}, lead_days=args.lead_days, rates=rates)
    checks = checklist(result)
    if args.format == "json":
        return to_json({"availability": avail if isinstance(avail, str) else avail.to_json() if mixed is None
                        else avail.model_dump(),
                        "spares": spares if isinstance(spares, str) else spares.to_json(),
                        "monitoring": [{k: v for k, v in c.items() if k in
                                        ("id", "fabric", "tiers", "counter", "threshold", "source")} for c in checks]})
    spares_row = row(_("spares"), spares if isinstance(spares, str) else _(
        "{count} spare rows, {spend}; capex with spares {capex}").format(
        count=len(spares.rows), spend=usd(spares.spares_capex_usd), capex=usd(spares.capex_with_spares_usd)))
    if isinstance(avail, str):  # not modelled on this family: why, then its spares and checklist
        return "\n".join((row(_("availability"), avail), spares_row, "")) + "\n" + checklist_table(checks)
    if mixed is not None:
        return "\n".join(pods_lines(avail, spares)) + "\n" + checklist_table(checks)
    lines = [
        row(_("job"), _("on {job} of {total} GPUs: can run {fraction} of the time ({trials} trials, seed {seed})")
            .format(
            job=f"{avail.job_gpus:,}", total=f"{result.resolved.gpus:,}", fraction=percent(avail.job_run_fraction),
            trials=f"{avail.trials:,}", seed=avail.seed)),
        row(_("interruptions"), _("{per_day} failures a day across the cluster (one every {hours} h)").format(
            per_day=number(avail.interruptions_per_day),  # as the Resilience page and the review pack
            hours=number(24 / avail.interruptions_per_day) if avail.interruptions_per_day else "∞")),
        row(_("spare nodes"), ngettext("hold {nodes} node back and a job on the rest runs 99% of the time",
                                       "hold {nodes} nodes back and a job on the rest runs 99% of the time",
                                       avail.spare_nodes_for_99pct).format(nodes=f"{avail.spare_nodes_for_99pct:,}")),
        row(_("down on average"), _("nodes {nodes}, NICs {nics}, links {links}, switches {switches}").format(
            **{word: _down(avail, name) for word, name in DOWN})),
        row(_("GPUs"), _("usable {usable}, cut off {cut}, degraded {degraded} (expected)").format(
            usable=grouped(avail.expected_gpus_usable, 1), cut=grouped(avail.expected_gpus_cut_off, 1),
            degraded=grouped(avail.expected_gpus_degraded, 1))),
        row(_("bandwidth"), _("expected bisection {expected} of {healthy} (one direction)").format(
            expected=bandwidth(from_tbits(avail.expected_bisection_tbits_one_direction), bandwidth_unit(args)),
            healthy=bandwidth(from_tbits(avail.healthy_bisection_tbits_one_direction), bandwidth_unit(args)))),
        spares_row,
        *avail.notes,
        _("method: steady-state failures with repair, independent elements; Monte Carlo over nodes, NICs, links "
          "and switches"),
        "",
    ]
    return "\n".join(lines) + "\n" + checklist_table(checks)
