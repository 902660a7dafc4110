"""``python -m core optimize``: the cheapest design on the grid that meets the constraints, and the front.

JSON (``--format json``): ``best.design`` (a design JSON ``plan --design`` accepts), ``best.summary``
(``plan``'s summary keys), ``best.metrics``, ``best.explanation``, ``pareto[]`` (each ``design`` and
``metrics``), ``metric``, ``considered``, ``costed`` (laid out and costed in full), ``pruned`` (feasible, decided
by their bounds), ``sizings``, ``feasible``, ``rejected`` (count per reason), ``seconds``. A constraint set nothing
meets exits 3 naming the constraint that ruled most out.
"""

from __future__ import annotations

import argparse
import sys

from core.analysis.optimizewords import front_rule, max_hops_help, searched_words
from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.common import (DESIGN_FILE, add_format_option, model_name, number, positive_int, ratio, row, size,
                             to_json, tokens)
from core.cli.serve import add_workload_options, flag_names, workload_of
from core import units
from core.errors import shown
from core.i18n import _, in_currency, usd
from core import i18n
from core.vocab import TOPOLOGY


def register(subparsers) -> None:
    """Add the ``optimize`` sub-command."""
    from core.analysis.optimize import DEFAULT_TOPOLOGIES
    from core.analysis.objectives import OBJECTIVES
    from core.perf.training import PRESETS

    op = subparsers.add_parser(
        "optimize", help=_("find the cheapest design that meets constraints"),
        description=_("Search every buildable combination of fabric, switch per tier, port and uplink speed, planes "
                      "and plane mode, topology, tiers and leaf oversubscription, and print the cheapest design "
                      "that meets every constraint and the Pareto front of capex against performance."))
    op.add_argument("--design", metavar=DESIGN_FILE,
                    help=_("start from a design JSON file (as plan --design reads it, at most 1 MB), as the "
                           "Optimize page starts from the sidebar: its GPU/system model, GPU count and every field "
                           "the search does not set (NVLink domain, nodes per rack, prices, ...); --gpu and --gpus "
                           "override the first two, the search chooses the fabric"))
    op.add_argument("--first-pod", action="store_true",
                    help=_("with a --design file that has pods: search its first pod alone (its GPU/system model and "
                           "nodes, every other field of the design kept), as the Optimize page's button does"))
    op.add_argument("--gpu", type=model_name, help=_("GPU/system model (default H100, or the --design file's)"))
    op.add_argument("--gpus", type=positive_int,
                    help=_("total GPU count (default: the design's size, as plan takes it: --nodes, else the --design "
                           "file's, else 4 nodes); leave it out with --budget-usd or --max-power-kw to find the most "
                           "GPUs whose cheapest design fits"))
    op.add_argument("--nodes", type=positive_int,
                    help=_("the GPU count as nodes of the GPU/system model (its GPUs per node; NVLink racks come "
                           "whole), when --gpus is not given"))
    c = op.add_argument_group(_("constraints"))
    c.add_argument("--fabric", type=str.lower, choices=["any", "infiniband", "ethernet"], default="any",
                   help=_("fabric allowed (default any)"))
    c.add_argument("--switches", type=str, metavar="MODEL,MODEL",
                   help=_("switch models allowed at every tier, comma-separated (default: every fabric switch)"))
    c.add_argument("--vendors", type=str, metavar="MAKER,MAKER",
                   help=_("switch makers allowed, comma-separated (e.g. H3C,Huawei; default any); narrows --switches"))
    c.add_argument("--max-oversubscription", type=ratio, metavar="RATIO",
                   help=_("largest end-to-end down:up ratio, X or X:Y, >= 1"))
    c.add_argument("--max-bisection-ratio", type=ratio, metavar="RATIO",
                   help=_("largest bisection ratio, X or X:Y: half of all GPUs' injection bandwidth over the "
                          "bisection bandwidth (1 = 1:1, non-blocking)"))
    c.add_argument("--min-bisection-gbytes-per-gpu", type=number, metavar="GBYTES",
                   help=_("older constraint, kept for scripts: smallest bisection / all GPUs [GB/s, one direction]; "
                          "reads half the NIC rate for a non-blocking fabric (prefer --max-bisection-ratio)"))
    c.add_argument("--max-hops", type=positive_int, metavar="N", help=max_hops_help())
    c.add_argument("--min-busbw-gbytes", type=number, metavar="GBYTES",
                   help=_("smallest all-reduce busbw over every GPU [GB/s] at --busbw-size"))
    c.add_argument("--busbw-size", type=size, default=1 << 30, metavar="SIZE",
                   help=_("message size of the busbw constraint and of the front (default 1GiB)"))
    c.add_argument("--max-tiers", type=positive_int, choices=[1, 2, 3], metavar="N", help=_("most switch tiers"))
    c.add_argument("--min-planes", type=positive_int, metavar="N",
                   help=_("fewest network planes (redundancy: the fabric keeps running when a plane fails)"))
    c.add_argument("--max-power-kw", type=number, metavar="KW", help=_("largest facility power with PUE [kW]"))
    c.add_argument("--budget-usd", type=number, metavar="USD", help=_("largest capex of the whole cluster [USD]"))
    c.add_argument("--model", type=str.lower, choices=list(PRESETS),
                   help=_("training job's model preset; the front then plots days to train, each design at the "
                          "job's fastest tp/pp split on it (the split search of python -m core train)"))
    c.add_argument("--max-days", type=number, metavar="DAYS", help=_("most days to train the job (needs --model)"))
    c.add_argument("--max-step-s", type=number, metavar="SECONDS", help=_("longest step time [s] (needs --model)"))
    c.add_argument("--tokens", type=tokens, default=1e12, metavar="TOKENS",
                   help=_("tokens to train, e.g. 1T or 15e12 (default 1T)"))
    add_workload_options(op, prefix="serve-", rate_required=True)
    c.add_argument("--max-usd-per-million-tokens", type=number, metavar="USD",
                   help=_("highest cost per million output tokens of the serving target (needs --serve-model)"))
    op.add_argument("--objective", choices=list(OBJECTIVES), default="cluster",
                    help=_("what the best design minimises: cluster = the whole cluster's capex (GPU nodes, compute "
                           "fabric, storage and management networks; the default), compute = the compute fabric's "
                           "capex alone (its switches, transceivers, cables and NICs), tco = total cost of ownership "
                           "(capex and energy), gpu_hour = cost per GPU-hour (the TCO over every GPU-hour), days = "
                           "days to train the job (needs --model), usd_per_mtok = cost per million output tokens "
                           "(needs --serve-model)"))
    g = op.add_argument_group(_("grid"))
    g.add_argument("--oversubscription-grid", type=str, metavar="R,R", default="1,1.5,2,3",
                   help=_("leaf down:up ratios to try (default 1,1.5,2,3)"))
    g.add_argument("--topologies", type=str, metavar="T,T",
                   help=_("topologies to try, comma-separated, of {choices} (default {default}, and the --design "
                          "file's topology)").format(
                       choices=", ".join(TOPOLOGY.ids), default=",".join(DEFAULT_TOPOLOGIES)))
    g.add_argument("--single-model", action="store_true",
                   help=_("one switch model at every tier (default: the spine/core model may differ)"))
    g.add_argument("--workers", type=positive_int,
                   help=_("worker processes (default: up to 2); at most the CPUs this process may use: a larger "
                          "number is cut to that, with a note on stderr"))
    add_format_option(op)
    add_units_option(op)
    op.set_defaults(handler=run)


def _constraints(args: argparse.Namespace):
    from core.analysis.optimize import Constraints
    from core.errors import InputError
    from core.perf.training import parse_job

    if (args.max_days is not None or args.max_step_s is not None) and not args.model:
        raise InputError(_("--max-days and --max-step-s need --model"))
    job = parse_job({"model": args.model, "tokens_to_train": args.tokens}) if args.model else None
    serving = _serving_target(args)
    from core.formats import sharelink
    from core.formats.optimizelink import allowed_switches, parse_vendors

    switches = tuple(s.strip() for s in args.switches.split(",") if s.strip()) if args.switches else None
    try:
        vendors = parse_vendors(args.vendors) if args.vendors else None
    except sharelink.ParamError as exc:
        raise InputError(f"--vendors: {exc}") from None
    switches = allowed_switches(switches, vendors)
    return Constraints(fabric=args.fabric, switches=switches, max_oversubscription=args.max_oversubscription,
                       min_bisection_gbytes_per_gpu=args.min_bisection_gbytes_per_gpu,
                       max_bisection_ratio=args.max_bisection_ratio, max_hops=args.max_hops,
                       min_busbw_gbytes=args.min_busbw_gbytes, busbw_size=args.busbw_size, max_tiers=args.max_tiers,
                       max_power_kw=args.max_power_kw, budget_usd=args.budget_usd, job=job,
                       max_days=args.max_days, max_step_s=args.max_step_s, min_planes=args.min_planes,
                       serving=serving, max_usd_per_million_tokens=args.max_usd_per_million_tokens)


def _serving_target(args: argparse.Namespace):
    """The serving target the ``--serve-*`` options give (``Constraints.serving``), or None without
    ``--serve-model``; ``InputError`` naming the option."""
    from core.errors import InputError
    from core.perf.serving import parse_deployment

    if not args.serve_model:
        if args.serve_rate is not None or args.max_usd_per_million_tokens is not None:
            raise InputError(_("--serve-rate and --max-usd-per-million-tokens need --serve-model"))
        return None
    if args.serve_rate is None:
        raise InputError(_("--serve-model needs --serve-rate: the request rate the design must serve"))
    workload = {k: v for k, v in workload_of(args, "serve-").items() if v is not None}
    try:
        return parse_deployment({"model": args.serve_model, "mode": args.serve_mode or "disaggregated",
                                 "precision": args.serve_precision, "kv_precision": args.serve_kv_precision,
                                 "workload": workload})
    except InputError as exc:
        raise InputError(flag_names(str(exc), "serve-")) from None


def _grid(args: argparse.Namespace, base=None):
    """The search grid of the command's options; without ``--topologies`` the default topologies of the base
    design's topology (``base``: the ``--design`` file's design, or None)."""
    from core.analysis.optimize import Grid, default_topologies
    from core.cli.common import leaf_ratio
    from core.errors import InputError

    try:
        values = tuple(leaf_ratio(v) for v in args.oversubscription_grid.split(",") if v.strip())
    except argparse.ArgumentTypeError as exc:
        raise InputError(_("--oversubscription-grid: {problem}").format(problem=exc)) from None
    if not values:
        raise InputError(_("--oversubscription-grid needs at least one ratio"))
    if args.topologies is None:
        topologies = default_topologies(base.topology if base else None)
    else:
        topologies = tuple(dict.fromkeys(t.strip().lower() for t in args.topologies.split(",") if t.strip()))
        if not topologies or any(t not in TOPOLOGY.ids for t in topologies):
            raise InputError(_("--topologies: expected some of {choices}, got {value}").format(
                choices=", ".join(TOPOLOGY.ids), value=shown(args.topologies)))
    return Grid(oversubscription=values, mixed_tiers=not args.single_model, topologies=topologies)


def _searched_size(args: argparse.Namespace):
    """The search's GPU model, count and base design: ``--gpu`` and ``--gpus`` (or ``--nodes`` of the model), else
    the ``--design`` file's (read as every command reads it, ``core.formats.design_file``), else H100 and the default
    design's size (4 nodes, as ``plan`` and the web page take it); no count with ``--budget-usd`` or
    ``--max-power-kw`` alone (the most GPUs that fit are searched). The base is the file's design (its GPU model
    ``--gpu``'s), whose fields the search does not set every candidate keeps (``core.analysis.optimize.base_design``,
    as the Optimize page starts from the sidebar's design: a two-level NVLink domain stays two levels), else None;
    a design with pods has several GPU models, which one search cannot."""
    from core.analysis.whole import first_pod, one_fabric_only
    from core.catalog import load_catalog
    from core.design import Design, resolve_design
    from core.errors import InputError
    from core.formats.design_file import read_design_file

    sized = args.gpus is not None or args.budget_usd is not None or args.max_power_kw is not None
    if not args.design:
        gpu = args.gpu or "H100"
        if sized and args.nodes is None:
            return gpu, args.gpus, None
        return gpu, args.gpus or resolve_design(Design(gpu=gpu, nodes=args.nodes or Design().nodes)).gpus, None
    design = read_design_file(args.design)
    if args.first_pod:
        design = first_pod(design)
    refused = one_fabric_only(design, "optimize", "cli_first_pod")  # a design with pods: one fabric is searched
    if refused:
        raise InputError(refused)
    gpu = load_catalog().system(args.gpu or design.gpu).id
    base = design if gpu == design.gpu else Design.model_validate({**design.model_dump(), "gpu": gpu})
    if args.gpus is None and args.nodes is not None:
        return gpu, resolve_design(base.model_copy(update={"nodes": args.nodes, "gpus": None})).gpus, base
    return gpu, args.gpus or resolve_design(base).gpus, base


def run(args: argparse.Namespace) -> str:
    from core.analysis.jobsplit import Split
    from core.analysis.objectives import PER_UNIT, cost_axis, objective_text
    from core.analysis.optimize import capex_of, design_label, largest_within, objective_word, optimize, usable_cpus
    from core.errors import InputError, shown
    from core.figures.keynumbers import size_caption
    from core.figures.optimize import metric_value, money_cells

    envelope = None
    args.gpu, args.gpus, base = _searched_size(args)
    bar = ProgressBar(sys.stderr) if args.format != "json" and sys.stderr.isatty() else None
    if args.workers is not None and args.workers > usable_cpus():
        print(_("note: --workers {asked} is more than the {cpus} CPUs this process may use; using {cpus}").format(
            asked=shown(args.workers), cpus=usable_cpus()), file=sys.stderr)
        args.workers = usable_cpus()
    if args.gpus is None:  # --budget-usd or --max-power-kw without a size: the most GPUs that fit
        try:
            envelope = largest_within(args.gpu, _constraints(args), _grid(args, base), workers=args.workers,
                                      objective=args.objective, base=base, on_progress=bar)
        finally:
            if bar is not None:
                bar.close()
        result = envelope.result
    else:
        try:
            result = optimize(args.gpu, args.gpus, _constraints(args), _grid(args, base), workers=args.workers,
                              objective=args.objective, base=base, on_progress=bar)
        finally:
            if bar is not None:
                bar.close()
    if args.format == "json":
        return to_json(envelope.summary() if envelope else result.summary()) + "\n"
    best = result.best
    lines = []
    if envelope is not None:
        lines.append(row(_("most GPUs"), _("{gpus} {gpu} GPUs ({searches} searches); {next} GPUs do not fit: {reason}")
                         .format(gpus=f"{envelope.gpus:,}", gpu=args.gpu, searches=envelope.searches,
                                 next=f"{envelope.next_gpus:,}", reason=envelope.next_reason or "-")))
    lines += [row(_("plans"), size_caption(result.best_plan)), row(_("best"), design_label(best)),
              row(_("capex"), _("{capex} whole cluster, {network} compute fabric; best by {objective}").format(
                  capex=usd(best.capex_usd), network=usd(best.network_capex_usd),
                  objective=objective_word(result.objective, best)))]
    if result.objective not in ("cluster", "compute"):
        lines.append(row(objective_word(result.objective), objective_text(best, result.objective)))
    if best.split:
        lines.append(row(_("job's split"), _("{split}, global batch {batch}: {step} s per step, {days} days").format(
            split=Split(*best.split).words(), batch=i18n.number(best.split[4]), step=units.seconds(best.step_s),
            days=units.days(best.days))))
    unit = bandwidth_unit(args)
    lines += ["  " + line for line in result.explained(unit)]
    lines.append(row(_("searched"), searched_words(result)))
    metric = {"busbw_gbytes": _("busbw [{unit}]").format(unit=unit), "days": _("days to train"),
              "usd_per_mtok": in_currency(_("USD per million output tokens"))}[result.metric]
    lines.append(row(_("front"), _("{objective} against {metric}:").format(objective=objective_word(cost_axis(result.objective)),
                                                                           metric=metric)))
    lines.append("  " + front_rule(result.metric, unit))
    if len(result.pareto) > 1:  # rows at one shown price: what separates them (review45 2.9)
        lines.append("  " + _("The second column is what each design costs more than the cheapest on the front."))
    per_unit = cost_axis(result.objective) in PER_UNIT
    cheapest = capex_of(result.pareto[0], result.objective) if result.pareto else 0.0
    column = money_cells(result.pareto, result.objective)  # a column's decimals picked once, as the page's table
    for c, money in zip(result.pareto, column):  # busbw in G of ``unit`` to 0.1 GB/s (the front's step), as the page
        value = {"busbw_gbytes": i18n.number(metric_value(c, result.metric, unit), 1), "days": units.days(c.days),
                 "usd_per_mtok": usd(c.usd_per_mtok, cents=True)}[result.metric]  # as the page's front table
        more = "-" if c is result.pareto[0] else usd(capex_of(c, result.objective) - cheapest, signed=True,
                                                     cents=per_unit)
        lines.append(f"  {money:>18}  {more:>12}  {value:>8}  {design_label(c)}")
    lines.append(row(_("rejected"), ""))
    for reason, count in sorted(result.rejected.items(), key=lambda kv: (-kv[1], kv[0]))[:10]:
        lines.append(f"  {count:>7,}  {reason}")
    return "\n".join(lines) + "\n"


class ProgressBar:
    """The search's progress on a terminal: one line on ``stream`` (stderr, only when it is a terminal), redrawn
    as the search reports (``core.analysis.searchwatch.SearchProgress``): a bar, candidates decided of the total,
    how many meet every constraint and the best so far; erased when the search ends."""

    WIDTH = 24

    def __init__(self, stream):
        self.stream = stream
        self.drawn = False

    def __call__(self, state) -> None:
        from core.analysis.objectives import objective_text

        filled = int(self.WIDTH * state.fraction)
        line = _("{bar} {done} of {total} candidates, {feasible} meet every constraint").format(
            bar="[" + "#" * filled + "." * (self.WIDTH - filled) + "]", done=f"{state.done:,}",
            total=f"{state.total:,}", feasible=f"{state.feasible:,}")
        if state.best is not None:
            line += _("; best so far {value}").format(value=objective_text(state.best, state.objective))
        self.stream.write("\r" + line[:160] + "\033[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """Erase the bar (the answer follows on stdout)."""
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False
