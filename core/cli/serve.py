"""``python -m core serve``: inference serving on the design: TTFT, TPOT, throughput per GPU, KV-cache transfer, cost.

With a split (any ``--prefill-*`` or ``--decode-*`` option) the deployment is estimated as given; without one
``core.perf.serving_search.search`` picks the splits and node counts (``--explain`` lists the candidates).
Without ``--rate`` or ``--concurrency`` the deployment is shown at the largest rate within the targets (or, with
no target, at the default utilisation, ``serving.toml [memory]``, of its capacity: the rate where a pool saturates). JSON (``--format json``): ``ServingEstimate.summary()`` (``ttft_s``,
``tpot_s``, ``prefill.input_tokens_per_s_per_gpu``, ``decode.output_tokens_per_s_per_gpu``,
``kv_transfer.gbytes_per_s``, ``usd_per_million_output_tokens``, ``meets_slo``, the breakdowns) plus
``max_rate_per_s``, ``balanced_prefill_decode_ratio``, ``search`` (when searched; ``candidates`` with
``--explain``) and ``what_if_frontend`` (with ``--no-fabric``: the same deployment without the compute fabric).
``--export inference-sim|vidur`` writes the deployment as that serving simulator's input instead
(``core.formats.serving_exports``).
"""

from __future__ import annotations

import argparse
import re

from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.common import (
    add_design_options,
    add_format_option,
    add_pod_option,
    design_from_args,
    job_plan,
    said,
    non_negative_int,
    number,
    positive_float,
    positive_int,
    row,
    separator,
    to_json,
)
from core.cli.train import add_custom_model_options, custom_model
from core.errors import DesignError, InputError, TargetError
from core import units
from core.i18n import N_, _, current
from core.i18n import usd as money
from core.perf.placement import level_label
from core.perf.serving import pool_name
from core.perf.sizes import format_size
from core.design import tidy_spaces
from core.figures.serving import STEP_PARTS, TTFT_PARTS
from core.scaleup import domain_word, link_word
from core.units import bandwidth, from_gbytes

POOLS = ("prefill", "decode")
DEGREES = ("nodes", "tp", "dp", "ep", "pp")
DEGREE_HELP = {"nodes": N_("nodes of the {pool} pool"), "tp": N_("tensor-parallel degree of the {pool} pool's attention"),
               "dp": N_("attention data-parallel ranks of a {pool} instance"),
               "ep": N_("expert-parallel degree of the {pool} pool (over tp x dp GPUs)"),
               "pp": N_("pipeline stages of a {pool} instance")}
POOL_NAMES = {"prefill": N_("prefill"), "decode": N_("decode (in aggregated mode: the one pool)")}
WORKLOAD_FLAGS = {"input_tokens": "--input-tokens", "output_tokens": "--output-tokens", "cache_hit": "--cache-hit",
                  "rate": "--rate", "concurrency": "--concurrency", "ttft_ms": "--ttft-ms", "tpot_ms": "--tpot-ms"}
"""The workload's fields and the options that give them (messages name the option)."""


def add_workload_options(parser, prefix: str = "", rate_required: bool = False):
    """The model, workload, mode and precision options of a serving deployment, with the Inference page's defaults
    (``core.formats.inferencelink.DEFAULTS``: one set of defaults for the page and the command line); ``prefix``:
    ``serve-`` for the optimizer's and the sweep's serving target (``--serve-rate``). Returns the deployment group
    for the split options. ``workload_of(args, prefix)`` and ``serving_settings(args, prefix)`` read them back."""
    from typing import get_args

    from core.formats.inferencelink import DEFAULTS as D
    from core.perf.serving import KvPrecision, Mode, PrecisionSetting
    from core.perf.serving_constants import load_serving_constants
    from core.perf.training import PRESETS

    busy = load_serving_constants().memory.default_utilisation
    f = lambda name: f"--{prefix}{name}"  # noqa: E731
    w = parser.add_argument_group(_("model and workload"))
    w.add_argument(f("model"), dest=f"{prefix}model".replace("-", "_"), type=str.lower, choices=list(PRESETS),
                   default=None if prefix else D["model"],
                   help=_("model preset (default {model})").format(model=D["model"]) if not prefix else
                   _("model preset served: the optimizer then asks that the design serve the load within the "
                     "targets; a sweep of a serving metric serves it"))
    w.add_argument(f("input-tokens"), type=positive_int, default=D["in"],
                   help=_("prompt length [tokens] (default {n})").format(n=D["in"]))
    w.add_argument(f("output-tokens"), type=positive_int, default=D["out"],
                   help=_("output length [tokens] (default {n})").format(n=D["out"]))
    w.add_argument(f("cache-hit"), type=number, default=D["hit"], metavar="FRACTION",
                   help=_("share of input tokens found in the prefix cache, from 0 to below 1 (default 0)"))
    if rate_required:
        w.add_argument(f("rate"), type=positive_float, metavar="PER_S", help=_("request rate to serve [requests/s]"))
    else:
        load = w.add_mutually_exclusive_group()
        load.add_argument(f("rate"), type=positive_float, metavar="PER_S",
                          help=_("request rate [requests/s]; without it (or --concurrency) the largest rate within "
                                 "the targets, or without targets {share} of the capacity").format(
                              share=units.percent(busy).replace("%", "%%")))  # argparse's help escapes %
        load.add_argument(f("concurrency"), type=positive_int, metavar="N",
                          help=_("requests in flight (closed loop)"))
    w.add_argument(f("ttft-ms"), type=number, metavar="MS", default=D["ttft"],
                   help=_("time-to-first-token target [ms] (default {ms}; 0 = none)").format(ms=f"{D['ttft']:g}"))
    w.add_argument(f("tpot-ms"), type=number, metavar="MS", default=D["tpot"],
                   help=_("time-per-output-token target [ms] (default {ms}; 0 = none)").format(ms=f"{D['tpot']:g}"))
    d = parser.add_argument_group(_("deployment (leave every split option out to search them)") if not prefix
                                  else _("serving deployment (searched)"))
    d.add_argument(f("mode"), type=str.lower, choices=list(get_args(Mode)), default=D["mode"],
                   help=_("one pool for prefill and decode, or separate pools (default {mode}, as on the Inference "
                          "page)").format(mode=D["mode"]))
    d.add_argument(f("precision"), type=str.lower, choices=list(get_args(PrecisionSetting)), default=D["prec"],
                   help=_("weights' precision (default {default}: FP8 where the accelerator runs FP8, else BF16)"
                          ).format(default=D["prec"]))
    d.add_argument(f("kv-precision"), type=str.lower, choices=list(get_args(KvPrecision)), default=D["kvp"],
                   help=_("KV cache's precision (default {default})").format(default=D["kvp"]))
    return d


def workload_of(args: argparse.Namespace, prefix: str = "") -> dict:
    """The workload the options of ``add_workload_options`` give (fields not offered are None; a target of 0 is
    none)."""
    key = prefix.replace("-", "_")
    out = {name: getattr(args, key + name, None) for name in WORKLOAD_FLAGS}
    for target in ("ttft_ms", "tpot_ms"):
        out[target] = out[target] or None
    return out


def serving_settings(args: argparse.Namespace, prefix: str = "") -> dict:
    """The Inference page's settings (``core.formats.inferencelink`` keys) the options give: what a sweep of a
    serving metric serves on each design, as the Sweep page serves the page's settings (splits chosen for each)."""
    from core.formats.inferencelink import DEFAULTS, FIELDS

    key = prefix.replace("-", "_")
    w = workload_of(args, prefix)
    settings = {**DEFAULTS, "model": getattr(args, key + "model") or DEFAULTS["model"],
                "mode": getattr(args, key + "mode") or DEFAULTS["mode"], "prec": getattr(args, key + "precision"),
                "kvp": getattr(args, key + "kv_precision")}
    for link_key, (_model, name) in FIELDS.items():
        if name in w:
            settings[link_key] = w[name] if w[name] is not None else (0 if name.endswith("_ms") else DEFAULTS[link_key])
    settings["load"] = "rate" if w["rate"] is not None else "conc" if w["concurrency"] is not None else "none"
    return settings


def register(subparsers) -> None:
    """Add the ``serve`` sub-command."""
    from core.formats.serving_exports import serving_exports

    sv = subparsers.add_parser(
        "serve", help=_("estimate inference serving on the design"),
        description=_("Estimate time to first token, time per output token, throughput per GPU, the KV-cache "
                      "transfer and the cost per million output tokens of a model served on the design; without a "
                      "split, search the splits and node counts for the cheapest that meets the targets."))
    add_design_options(sv)
    add_pod_option(sv, "deployment")
    d = add_workload_options(sv)
    add_custom_model_options(sv.add_argument_group(_("custom model (instead of --model)")))
    for pool in POOLS:
        for degree in DEGREES:
            d.add_argument(f"--{pool}-{degree}", type=positive_int, metavar="N",
                           help=_(DEGREE_HELP[degree]).format(pool=_(POOL_NAMES[pool])))
    d.add_argument("--redundant-experts", type=non_negative_int, metavar="N",
                   help=_("extra expert copies per pool (default: the fewest that make ep divide the expert slots)"))
    d.add_argument("--no-fabric", action="store_true",
                   help=_("also estimate the deployment without the compute fabric (expert parallelism inside one "
                          "NVLink domain, KV cache over the front-end network) and show the difference"))
    d.add_argument("--explain", action="store_true", help=_("list the deployments the search estimated"))
    d.add_argument("--export", choices=list(serving_exports()),
                   help=_("write the deployment as a serving simulator's input instead of the estimate"))
    add_format_option(sv)
    add_units_option(sv)
    sv.set_defaults(handler=run)


def model_of(args: argparse.Namespace):
    """The model the options give: a custom architecture (``--layers`` ...), else the ``--model`` preset."""
    from core.perf.training import model_preset

    return custom_model(args) or model_preset(args.model)


def flag_names(message: str, prefix: str = "") -> str:
    """A validation message with the deployment's field paths (``workload.rate``) named as options (``--rate``;
    ``--serve-rate`` with ``prefix`` ``serve-``, as ``add_workload_options`` declares them)."""
    for name, flag in WORKLOAD_FLAGS.items():
        message = re.sub(rf"\bworkload\.{name}\b", flag.replace("--", "--" + prefix, 1), message)
    for pool in POOLS:
        for degree in DEGREES:
            message = re.sub(rf"\b{pool}\.{degree}\b", f"--{pool}-{degree}", message)
        message = re.sub(rf"\b{pool}\.redundant_experts\b", "--redundant-experts", message)
    return message


def _workload(args: argparse.Namespace) -> dict:
    return workload_of(args)


def _split_given(args: argparse.Namespace) -> bool:
    return any(getattr(args, f"{pool}_{degree}") is not None for pool in POOLS for degree in DEGREES)


def _deployment(args: argparse.Namespace, system=None):
    """The deployment the options give (``InputError`` naming the option), the precision ``auto`` resolved for
    ``system`` (``core.perf.serving.weight_precision``) when given."""
    from core.perf.serving import parse_deployment, weight_precision
    from core.perf.serving_search import redundant_experts

    mode = args.mode
    model = model_of(args)
    if mode == "aggregated":
        given = [f"--prefill-{d}" for d in DEGREES if getattr(args, f"prefill_{d}") is not None]
        if given:
            raise InputError(_("{options}: aggregated mode has one pool, given by the --decode-* options; use "
                               "--mode disaggregated for a prefill pool").format(options=", ".join(given)))
    pools = {}
    for pool in POOLS:
        split = {d: getattr(args, f"{pool}_{d}") or 1 for d in DEGREES}
        extra = args.redundant_experts
        if extra is None:
            extra = redundant_experts(model.experts, split["ep"]) if model.is_moe else 0
        pools[pool] = {**split, "redundant_experts": extra}
    precision = args.precision if system is None else weight_precision(args.precision, system)
    return _parsed(parse_deployment, {"model": model, "mode": mode, "precision": precision,
                                      "kv_precision": args.kv_precision, "workload": _workload(args), **pools})


def _parsed(call, *arguments, **keywords):
    """``call(...)`` with an ``InputError``'s field paths named as options."""
    try:
        return call(*arguments, **keywords)
    except InputError as exc:
        raise InputError(flag_names(str(exc))) from None


def flags_of(dep) -> str:
    """The options that give ``dep``'s mode and splits (``--mode disaggregated --prefill-nodes 4 ...``)."""
    parts = ["--mode", dep.mode]
    for pool in POOLS if dep.mode == "disaggregated" else ("decode",):
        split = getattr(dep, pool)
        parts += [f"--{pool}-{d} {getattr(split, d)}" for d in DEGREES]
    return " ".join(parts)


def _searched(planned, args: argparse.Namespace):
    """The search's result for the options; ``TargetError`` with its reason and ways out when nothing meets the
    targets (``serving_search.missed_targets``, as the Inference page says it)."""
    from core.perf.serving_search import missed_targets, search

    result = _parsed(search, planned, model_of(args), _workload(args), mode=args.mode, precision=args.precision,
                     kv_precision=args.kv_precision)
    if result.best is None:
        raise missed_targets(result)
    return result


def _given(planned, args: argparse.Namespace):
    """The deployment the options give, estimated; a split that does not fit says what the search finds instead
    (estimated, as options)."""
    from core.perf.serving import estimate
    from core.perf.serving_search import search, ways_out_text

    dep = _deployment(args, planned.resolved.system)
    try:
        estimate(planned, dep)
    except DesignError as exc:
        found = search(planned, dep.model, _workload(args), mode=args.mode, precision=args.precision,
                       kv_precision=args.kv_precision)
        if found.best is None:  # nothing fits as asked either: the search's reason and its estimated ways out
            raise TargetError(exc.message, " ".join(x for x in (found.reason, ways_out_text(found.ways_out)
                                                                or exc.suggestion) if x)) from None
        raise DesignError(exc.message, _("The search finds one that fits and meets the targets: {options}.").format(
            options=flags_of(found.best))) from None
    return dep


def run(args: argparse.Namespace) -> str:
    from core.perf.serving import Workload, estimate
    from core.analysis.whole import pod_count
    from core.perf.serving_search import max_rate, shown_load, shown_rate, what_if_frontend

    design = design_from_args(args)
    planned, on_pod = job_plan(design, args.pod, bandwidth_unit(args), "deployment")  # with pods: the pod it is served on, charged as the page does
    result = None
    if _split_given(args):
        dep = _given(planned, args)
    else:
        result = _searched(planned, args)
        # the search's splits at the workload as given (its rate, concurrency or none: shown_load below), as the
        # Inference page serves a search's answer (core.perf.servingform.deployment)
        dep = result.best.model_copy(update={"workload": _parsed(Workload.model_validate, _workload(args))})
    top = max_rate(planned, dep)
    top = None if top is None else shown_rate(top)  # as shown, the load chosen without one (shown_load)
    dep = shown_load(planned, dep)
    est = estimate(planned, dep)
    if args.export:
        from core.formats.serving_exports import serving_export_text

        return serving_export_text(planned, dep, args.export, est)
    s = est.summary()
    s["max_rate_per_s"] = top
    if on_pod:
        s["pod"] = {"pod": args.pod if args.pod <= pod_count(design) else 1, "note": on_pod}
    s["balanced_prefill_decode_ratio"] = _ratio(planned, dep)
    if result is not None:
        s["search"] = result.summary()
        if args.explain:
            s["search"]["candidates_estimated"] = result.explain()
    if args.no_fabric:
        s["what_if_frontend"] = what_if_frontend(planned, dep)
    if args.format == "json":
        return to_json(s) + "\n"
    return "\n".join(_table(s, result, args, planned.resolved.system)) + "\n"


def _ratio(planned, dep) -> float | None:
    """The balanced prefill:decode node ratio of a disaggregated deployment (None in aggregated mode, or when no
    decode batch meets the TPOT target)."""
    from core.perf.serving_search import balanced_ratio

    if dep.mode == "aggregated":
        return None
    try:
        return balanced_ratio(planned, dep)
    except DesignError:
        return None


def _ms(seconds: float | None) -> str:
    """A latency as the Inference page writes it (``core.units.milliseconds``: ``1,984 ms``); "-" for none."""
    return "-" if seconds is None else units.milliseconds(seconds)


def _verdict(value_s: float | None, target_ms: float | None) -> str:
    if target_ms is None:
        return ""
    met = value_s is not None and value_s * 1e3 <= target_ms
    return ("；" if current() == "zh" else "; ") + (_("target {target} ms: met") if met else _("target {target} ms: missed")).format(
        target=f"{target_ms:,g}")


PARTS = {**TTFT_PARTS, **STEP_PARTS}
"""Breakdown keys as the table names them: the Inference page's time chart's names."""


def _parts(parts: dict, system) -> str:
    """Breakdown parts and their milliseconds, the scale-up part named after ``system``'s links; compute that no
    component is bound by (every one waits on HBM: ``StepTime.breakdown`` counts a component's time to its
    bound) is said to be hidden under HBM, not "compute 0.0"."""
    def said_part(k: str, v: float) -> str:
        if k == "compute" and v == 0 and parts.get("hbm", 0) > 0:
            return _("compute hidden under HBM")
        return f"{link_word(system) if k == 'nvlink' else _(PARTS[k])} {_ms(v)}"

    return separator().join(said_part(k, v) for k, v in parts.items())


def _table(s: dict, result, args: argparse.Namespace, system) -> list[str]:
    """The human output: what is served where, latencies against the targets, throughput, KV transfer, cost."""
    from core.perf.serving_search import rate_text

    w = s["workload"]
    mode = _("disaggregated") if s["mode"] == "disaggregated" else _("aggregated")
    lines = [said(_("{model} on {gpus} of {cluster} GPUs: {mode}, {precision} weights, {kv} KV cache; {input} input "
                    "and {output} output tokens per request")).format(
        model=s["model"], gpus=f"{s['gpus']:,}", cluster=f"{s['cluster_gpus']:,}", mode=mode,
        precision=s["precision"].upper(), kv=s["kv_precision"].upper(), input=f"{w['input_tokens']:,}",
        output=f"{w['output_tokens']:,}")]
    if "pod" in s:
        lines.append(said(s["pod"]["note"]))
    pools = [("prefill", s["prefill"]), ("decode", s["decode"])] if s["prefill"] else [("decode", s["decode"])]
    for name, pool in pools:
        sp = pool["split"]
        lines.append(row(pool_name(name, not s["prefill"]), _("{nodes} nodes: {replicas} x (tp {tp} dp {dp} ep {ep} pp {pp}); "
                                  "utilisation {load}").format(
            nodes=f"{pool['nodes']:,}", replicas=f"{pool['replicas']:,}", tp=sp["tp"], dp=sp["dp"], ep=sp["ep"],
            pp=sp["pp"], load=units.percent(pool['utilisation']))))
    if result is not None:
        lines.append(row(_("search"), _("{count} deployments estimated; rule: {rule} (--explain lists them)").format(
            count=len(result.candidates), rule=_(result.rule))))
    top = s["max_rate_per_s"]
    text = (_("{rate}; at most {top} requests/s within the targets") if w["ttft_ms"] or w["tpot_ms"]
            else _("{rate}; a pool saturates at {top} requests/s"))
    rate = rate_text(s["rate_per_s"])
    if s["overloaded"]:
        rate = _("{asked} requests/s asked, {served} served").format(asked=rate_text(w["rate"]), served=rate)
    else:
        rate = _("{rate} requests/s").format(rate=rate)
    lines.append(row(_("load"), text.format(rate=rate, top=rate_text(top) if top else "-")))
    lines.append(row("TTFT", _("{ttft} ({parts}){verdict}").format(
        ttft=_ms(s["ttft_s"]), parts=_parts(s["ttft_breakdown_s"], system), verdict=_verdict(s["ttft_s"], w["ttft_ms"]))))
    lines.append(row("TPOT", _("{tpot} ({parts}){verdict}").format(
        tpot=_ms(s["tpot_s"]), parts=_parts(s["decode"]["breakdown_s"], system), verdict=_verdict(s["tpot_s"], w["tpot_ms"]))))
    lines += _throughput_lines(s, system, bandwidth_unit(args))
    lines += [_("warning: {warning}").format(warning=x) for x in s["warnings"]]
    if "what_if_frontend" in s:
        lines += _frontend_lines(s["what_if_frontend"], system, not s["prefill"])
    if result is not None and args.explain:
        lines += _explain_lines(result)
    elif args.explain:
        lines.append(_("A split was given, so nothing was searched (leave every split option out to search)."))
    return lines


def _throughput_lines(s: dict, system, unit: str = "GB/s") -> list[str]:
    """Throughput per GPU, the KV-cache transfer (in ``unit``: "GB/s" or "Gb/s", ``--units``), the balanced ratio
    and the cost."""
    lines = []
    text = _("{output} output tokens/s per GPU in decode").format(
        output=units.number(s['decode']['output_tokens_per_s_per_gpu']))
    if s["prefill"]:
        text = _("{input} input tokens/s per GPU in prefill").format(
            input=units.number(s['prefill']['input_tokens_per_s_per_gpu'])) + separator() + text
    lines.append(row(_("throughput"), text))
    kv = s["kv_transfer"]
    if kv:
        lines.append(row(_("KV transfer"), _("{rate} (one direction; {size} per request, {time}, over {level}; "
                                             "{load} of the network between the pools)").format(
            rate=bandwidth(from_gbytes(kv["gbytes_per_s"]), unit), size=format_size(kv["bytes_per_request"]),
            time=_ms(kv["time_s"]),
            level=_("the front-end network") if kv["level"] == "frontend" else level_label(kv["level"], system), load=units.percent(kv["load"]))))
    if s["balanced_prefill_decode_ratio"]:
        lines.append(row(_("balance"), _("prefill:decode nodes {ratio}:1 balance the pools").format(
            ratio=f"{s['balanced_prefill_decode_ratio']:.2f}")))
    usd, joules = s["usd_per_million_output_tokens"], s["joules_per_output_token"]
    lines.append(row(_("cost"), _("{usd} per million output tokens, {joules} J per output token (share of the "
                                  "cluster's TCO and power)").format(
        usd=money(usd, cents=True) if usd is not None else "-", joules=f"{joules:,.3g}" if joules is not None else "-")))
    return lines


def _frontend_lines(w: dict, system, aggregated: bool) -> list[str]:
    """The what-if without the compute fabric, as differences from the deployment (``aggregated``: its one pool)."""
    if w["frontend"] is None:
        return [row(_("no fabric"), w["reason"] or "")]
    d, f = w["difference"], w["frontend"]
    signed = lambda x, unit=1e3: "-" if x is None else f"{x * unit:+,.1f}"  # noqa: E731
    text = _("TTFT {ttft} ms, TPOT {tpot} ms at the same load; {tokens} output tokens/s and {usd} per million "
             "output tokens at the largest rate within the targets").format(
        ttft=signed(d["ttft_s"]), tpot=signed(d["tpot_s"]), tokens=signed(d["output_tokens_per_s"], 1),
        usd="-" if d["usd_per_million_output_tokens"] is None else money(d["usd_per_million_output_tokens"], signed=True,
                                                                          cents=True))
    lines = [row(_("no fabric"), text)]
    if w["resplit"]:
        pools = ", ".join(pool_name(p, aggregated) for p in w["resplit"])
        lines.append("  " + tidy_spaces(_("re-split within one {domain}: {pools}").format(
            domain=domain_word(system), pools=pools)))
    if f["warnings"]:
        lines += ["  " + _("warning: {warning}").format(warning=x) for x in f["warnings"]]
    return lines


def _explain_lines(result) -> list[str]:
    """The deployments the search estimated, one line each, best first."""
    from core.perf.serving_search import describe, rate_text

    lines = [_("deployments estimated ({count}), best first:").format(count=len(result.candidates))]
    for c in result.candidates:
        e = c.estimate
        ttft = _ms(e.ttft_s)
        verdict = _("meets the targets") if c.meets else _("misses the targets")
        usd = e.usd_per_million_output_tokens
        lines.append("  " + said(_("{deployment}: {gpus} GPUs, {rate} requests/s, TTFT {ttft}, TPOT {tpot}, "
                                   "{usd} per million output tokens; {verdict}")).format(
            deployment=describe(c.deployment), gpus=f"{c.gpus:,}", rate=rate_text(c.rate) if c.rate else "-",
            ttft=ttft, tpot=_ms(e.tpot_s), usd=money(usd, cents=True), verdict=verdict))
    return lines
