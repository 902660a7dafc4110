"""``python -m core train``: estimate one training step, its throughput and days to train on the design."""

from __future__ import annotations

import argparse
from typing import get_args

from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.collective import add_congestion_options, add_nccl_version_option, algorithm_label, congestion_of
from core.cli.common import (
    add_design_options,
    add_format_option,
    add_pod_option,
    cluster_note,
    design_from_args,
    job_plan,
    said,
    fraction,
    pad,
    positive_int,
    row,
    separator,
    to_json,
    tokens,
)
from core.design import tidy_spaces
from core.i18n import N_, _, number, usd
from core.perf.placement import level_label, sharp_absent, sharp_used
from core import units
from core.units import bandwidth, from_gbytes


def add_custom_model_options(group) -> None:
    """The custom architecture's options (one per ``core.perf.modelshape.SHAPE_FIELDS``: ``--layers`` ...
    ``--first-dense-layers``) in ``group``; ``custom_model`` reads them back. The ``train`` and ``serve``
    commands share them."""
    from core.perf.modelshape import CHOICES, SHAPE_FIELDS

    for f in SHAPE_FIELDS:
        what = _("custom model: {what}").format(what=_(f.help))
        if f.kind == "choice":
            group.add_argument(f.option, type=str.lower, choices=CHOICES[f.name], help=what)
        elif f.kind == "bool":
            group.add_argument(f.option, action="store_const", const=True, default=None, help=what)
        else:
            group.add_argument(f.option, type=int, metavar="N", help=what)


def custom_model(args: argparse.Namespace):
    """The ``ModelSpec`` the custom options give, or None without them; ``InputError`` naming what is missing or
    inconsistent (``core.perf.modelshape.build_model``)."""
    from core.perf.modelshape import SHAPE_FIELDS, build_model

    values = {f.name: getattr(args, f.name, None) for f in SHAPE_FIELDS}
    if all(v is None for v in values.values()):
        return None
    return build_model(values)


MEMORY_LABELS = {"weights": N_("weights"), "gradients": N_("gradients"), "optimizer": N_("optimizer"),
                 "activations": N_("activations")}
"""Parts of the memory per GPU as the table shows them (English: the JSON key itself)."""
def _shown(value: str) -> str:
    """An engine text of a communication row (``core.perf.training``'s labels: parallelism and collective) or the
    custom model's name, as the table shows it."""
    from core.perf.training import comm_collective_label, parallelism_label

    return _("custom") if value == "custom" else comm_collective_label(parallelism_label(value))


def _algbw(comm: dict, unit: str) -> str:
    """A communication row's algbw (nccl-tests' definition: the bytes of each call over its time, here the step's
    volume over its time) in ``unit`` (``--units``); "-" where the time is not a transfer alone (the host offload
    rows: CPU Adam) or is nil."""
    if comm["fabric_level"] == "host" or comm["time_s"] <= 0:
        return "-"
    return bandwidth(from_gbytes(comm["volume_gbytes"] / comm["time_s"]), unit)


def register(subparsers) -> None:
    """Add the ``train`` sub-command."""
    from core.perf.training import (CP_COMMS, DEFAULT_GLOBAL_BATCH, DEFAULT_MODEL, DEFAULT_SEQ_LEN, OFFLOADS,
                                    PRESETS, ZERO_STAGES, Precision)

    tr = subparsers.add_parser(
        "train", help=_("estimate a training step on the design"),
        description=_("Estimate step time, tokens/s, communication share and days to train on the design."))
    add_design_options(tr)
    add_pod_option(tr)
    m = tr.add_argument_group(_("model (a preset, or a custom architecture with --layers ... --vocab)"))
    m.add_argument("--model", type=str.lower, choices=list(PRESETS), default=DEFAULT_MODEL,
                   help=_("model preset (default {default})").format(default=DEFAULT_MODEL))
    add_custom_model_options(m)
    j = tr.add_argument_group(_("job"))
    j.add_argument("--seq-len", type=positive_int, default=DEFAULT_SEQ_LEN,
                   help=_("sequence length [tokens] (default {default})").format(default=DEFAULT_SEQ_LEN))
    j.add_argument("--global-batch", type=positive_int,
                   help=_("sequences per step (default {default}, rounded up to a multiple of micro-batch x dp)").format(
                       default=f"{DEFAULT_GLOBAL_BATCH:,}"))
    j.add_argument("--micro-batch", type=positive_int, default=1, help=_("sequences per micro-batch (default 1)"))
    j.add_argument("--precision", type=str.lower, choices=list(get_args(Precision)), default="bf16",
                   help=_("training precision: FP8 with per-tensor (fp8) or 128-element block scaling (fp8-128); MXFP8 and NVFP4 on Blackwell "
                          "(default {default})").format(default="bf16"))
    for name in ("tp", "pp"):
        j.add_argument(f"--{name}", type=positive_int,
                       help=_("{name} degree (default: the fastest split that fits; --explain lists them)").format(
                           name=name.upper()))
    for name in ("cp", "vp"):
        j.add_argument(f"--{name}", type=positive_int,
                       help=_("{name} degree (default 1; with --search the fastest that fits)").format(
                           name=name.upper()))
    j.add_argument("--cp-comm", choices=CP_COMMS, default="ring",
                   help=_("context-parallel exchange: ring (send/recv pipelined with attention) or all-to-all "
                          "(DeepSpeed-Ulysses: heads scattered; heads / tp must split over cp) (default ring)"))
    j.add_argument("--ep", type=positive_int,
                   help=_("EP degree (default 1; for a mixture-of-experts model the fastest that fits, searched with "
                          "the split; --explain lists them)"))
    j.add_argument("--dp", type=positive_int, help=_("data-parallel degree (default: GPUs / (tp x pp x cp))"))
    j.add_argument("--job-gpus", type=positive_int, metavar="N",
                   help=_("GPUs the job uses (default: --gpus as given, else every GPU of the design)"))
    j.add_argument("--recompute", type=str.lower, choices=["none", "selective", "full"], default="selective",
                   help=_("activation recomputation (default selective)"))
    j.add_argument("--schedule", type=str.lower, choices=["1f1b", "dualpipe"], default="1f1b",
                   help=_("pipeline schedule: 1f1b (interleaved when --vp > 1) or DeepSeek's dualpipe "
                          "(default 1f1b)"))
    j.add_argument("--balanced-stages", action="store_true",
                   help=_("first and last pipeline stages hold one layer fewer (as Llama 3 did)"))
    j.add_argument("--fp8-activations", choices=["auto", "on", "off"], default="auto",
                   help=_("cache linear-layer inputs in FP8 for the backward pass (default auto: with fp8)"))
    j.add_argument("--no-distributed-optimizer", action="store_true",
                   help=_("keep the whole optimizer state on every data-parallel rank (no ZeRO-1 sharding)"))
    j.add_argument("--shard-gradients", action="store_true",
                   help=_("shard the gradients over data-parallel ranks too (ZeRO-2, FSDP as Llama 3: fp32 shards, "
                          "one model chunk's accumulator, a reduce-scatter per chunk and group of micro-batches)"))
    j.add_argument("--zero", type=int, choices=ZERO_STAGES, metavar="{0,1,2,3}",
                   help=_("ZeRO stage: 0 nothing sharded, 1 the optimizer state (the default), 2 the gradients too "
                          "(as --shard-gradients), 3 the parameters too (FSDP full sharding: each layer gathered in "
                          "forward and backward); wins over the two options above"))
    j.add_argument("--offload", type=str.lower, choices=OFFLOADS, default="none",
                   help=_("CPU offload (ZeRO-Offload): optimizer keeps the optimizer state in host memory and runs "
                          "Adam on the CPU; the gradients go to the host during backward (overlapped), the updated "
                          "parameters come back before the next forward (not overlapped) (default none)"))
    j.add_argument("--efficiency", type=fraction, metavar="FRACTION",
                   help=_("achievable fraction of dense peak FLOP/s (default: from the GPU, the precision and the "
                          "model's shapes, fitted to published runs)"))
    j.add_argument("--tokens", type=tokens, default=1e12,
                   help=_("tokens to train, e.g. 1T or 15e12 (default 1T)"))
    j.add_argument("--search", action="store_true",
                   help=_("search vp, cp and the ZeRO stage too (those not given), with tp, pp and ep: the fastest "
                          "split that fits"))
    j.add_argument("--explain", action="store_true",
                   help=_("list the tp/pp splits considered and why the chosen one wins"))
    f = tr.add_argument_group(_("fabric assumptions"))
    f.add_argument("--sharp", action="store_true",
                   help=_("let the job's collectives use InfiniBand SHARP (NCCL CollNet); it needs the SHARP plugin, "
                          "NCCL_COLLNET_ENABLE=1 and Quantum HDR or later switches, so it is off by default"))
    add_nccl_version_option(f)
    add_congestion_options(f)
    add_format_option(tr)
    add_units_option(tr)
    tr.set_defaults(handler=run)


def _job_from_args(args: argparse.Namespace, gpus: int | None = None, sharp: bool = False):
    """The job the flags ask for; ``sharp``: SHARP modelled (``core.perf.placement.sharp_used``: asked for, and the
    design's switches offer it)."""
    from core.perf.training import DEFAULT_GLOBAL_BATCH, model_preset, parse_job

    model = custom_model(args) or model_preset(args.model)
    fp8_act = {"auto": None, "on": True, "off": False}[getattr(args, "fp8_activations", "auto")]
    return parse_job(dict(model=model, seq_len=args.seq_len, global_batch=args.global_batch or DEFAULT_GLOBAL_BATCH,
                          micro_batch=args.micro_batch, precision=args.precision, tp=args.tp or 1, pp=args.pp or 1,
                          cp=args.cp or 1, ep=args.ep or 1, vp=args.vp or 1, dp=args.dp, gpus=gpus,
                          recompute=args.recompute, compute_efficiency=args.efficiency,
                          tokens_to_train=args.tokens, schedule=args.schedule, balanced_stages=args.balanced_stages,
                          fp8_activations=fp8_act, distributed_optimizer=not args.no_distributed_optimizer,
                          shard_gradients=args.shard_gradients, zero_stage=args.zero, cp_comm=args.cp_comm,
                          offload=args.offload, sharp=sharp))


def _split_name(candidate, searched: tuple[str, ...], aligned: bool = False) -> str:
    """``tp 8 x pp 16`` and the other fields the search varied (``vp``, ``cp``, ``ep``, ``ZeRO``) as every surface
    writes a split (``jobform.split_words``), or padded in columns when ``aligned`` (``--explain``'s table)."""
    from core.perf.jobform import split_words

    widths = {"tp": 2, "pp": 2, "vp": 1, "cp": 2, "ep": 3, "ZeRO": 1}
    parts = {"ZeRO" if name == "zero" else name: getattr(candidate, name)
             for name in ("tp", "pp", "vp", "cp", "ep", "zero") if name in ("tp", "pp") or name in searched}
    if not aligned:
        return split_words(**parts)
    return " ".join(f"{name} {value:>{widths[name]}}" for name, value in parts.items())


def _split_lines(choice) -> list[str]:
    """The splits considered, one line each, and why the chosen one wins."""
    best = choice.best
    lines = [_("splits considered ({count}); the fastest step among those that fit wins:").format(
        count=len(choice.candidates))]
    searched = choice.searched()
    for i, c in enumerate(choice.candidates):
        name = _split_name(c, searched, aligned=True)
        if c.fits:
            e = c.estimate
            if i == choice.chosen:
                verdict = _("chosen")
            else:
                verdict = _("fits, {slower} slower").format(slower=units.percent(e.step_time_s / best.estimate.step_time_s - 1))
            text = _("dp {dp}, global batch {batch}: step {step} s, MFU {mfu}, {memory} GiB/GPU; {verdict}").format(
                dp=number(e.dp), batch=number(c.global_batch), step=units.seconds(e.step_time_s),
                mfu=units.percent(e.mfu), memory=units.gibibytes(sum(e.memory_gb.values())), verdict=verdict)
        else:
            text = _("does not fit: {problem}").format(problem=c.problem)
        if c.first_tried:
            text += " " + _("(the first split tried)")
        lines.append("  " + name + "  " + text)
    return lines


def run(args: argparse.Namespace) -> str:
    from core.perf.collectives import nccl_release

    with congestion_of(args), nccl_release(args.nccl_version):
        return _run(args)


def _run(args: argparse.Namespace) -> str:
    from core.analysis.whole import pod_count
    from core.perf.training import default_split, estimate_or_ways_out, fitting_split

    design = design_from_args(args)
    planned, on_pod = job_plan(design, args.pod, bandwidth_unit(args))  # with pods: the pod the job runs on, charged as the page does
    job = _job_from_args(args, args.job_gpus or (planned.resolved.gpus if on_pod else design.gpus),
                         sharp=sharp_used(planned, args.sharp))
    choice = None
    search_ep = args.ep is None and job.model.is_moe
    search = {"search_vp": args.search and args.vp is None, "search_cp": args.search and args.cp is None,
              "search_zero": args.search and args.zero is None and not args.shard_gradients
              and not args.no_distributed_optimizer}
    if args.tp is None or args.pp is None or search_ep or any(search.values()):
        choice = default_split(planned, job, tp=args.tp, pp=args.pp, global_batch=args.global_batch,
                               search_ep=search_ep, **search)
        result = choice.best.estimate
    else:
        if args.global_batch is None:  # the default rounded up to a multiple of micro-batch x dp, as the page does
            batch = fitting_split(planned, job.model, cp=job.cp, micro_batch=job.micro_batch, vp=job.vp,
                                  job_gpus=job.gpus, tp=job.tp, pp=job.pp)["global_batch"]
            job = job.model_copy(update={"global_batch": batch})
        result = estimate_or_ways_out(planned, job)
    s = result.summary()
    if on_pod:
        s["pod"] = {"pod": args.pod if args.pod <= pod_count(design) else 1, "note": on_pod}
    from core.perf.constants import load_constants, nccl_version_of

    s["assumptions"] = {"routing": args.routing, "placement": args.placement,
                        "nccl_version": ".".join(map(str, nccl_version_of(args.nccl_version, load_constants())))}
    s["sharp_requested"] = bool(args.sharp)  # "sharp": whether it is modelled; "sharp_absent": why the design has none
    s["sharp_absent"] = sharp_absent(planned)
    from core.perf.training_calibration import error_band, error_band_sentence
    from core.perf.training_constants import load_training_catalog

    architecture = planned.resolved.system.architecture
    moe = result.job.model.is_moe
    low, high, runs, scope = error_band(architecture, s["precision"], moe)
    s["expected_error"] = {"low": low, "high": high, "held_out_runs": runs, "scope": scope,
                           "validated": load_training_catalog().calibrated(architecture)}
    if args.format == "json":
        if choice is not None:
            s["split_choice"] = choice.summary() if args.explain else {"chosen": choice.best.summary(),
                                                                        "rule": "fastest step among the splits that fit"}
        return to_json(s) + "\n"
    from core.perf.jobform import split_words

    par = s["parallelism"]
    head = _("{model} ({params}B parameters) on {gpus} GPUs: {split}; seq {seq}, global batch {batch}, "
             "{precision}").format(
        model=_shown(s["model"]), params=f"{s['params_b']:,.1f}", gpus=number(s["gpus"]),
        split=split_words(**{name: par[name] for name in ("tp", "pp", "cp", "dp", "ep", "vp")}),
        seq=number(s["seq_len"]), batch=number(s["global_batch"]), precision=s["precision"])
    memory = separator().join(f"{_(MEMORY_LABELS[k]) if k in MEMORY_LABELS else k} {units.gibibytes(v)}"
                              for k, v in result.memory_gb.items())  # unrounded, as the page's caption
    lines = [said(head + cluster_note(planned.resolved.gpus if on_pod else design.gpus, s["cluster_gpus"], s["gpus"]))]
    if on_pod:
        lines.append(said(on_pod))
    if choice is not None:
        fitting = sum(c.fits for c in choice.candidates)
        text = _("{split} chosen: the fastest of {fitting} splits that fit ({count} considered; --explain lists them)")
        lines.append(row(_("split"), text.format(split=_split_name(choice.best, choice.searched()), fitting=fitting,
                                                 count=len(choice.candidates))))
    lines += [
        row(_("step time"), _("{step} s  (compute {compute}, bubble {bubble}, exposed communication {exposed})").format(
            step=units.number(s["step_time_s"]), compute=units.number(s["compute_s"]),
            bubble=units.number(s["bubble_s"]), exposed=units.number(s["exposed_comm_s"]))),
        row(_("throughput"), _("{tokens} tokens/s, MFU {mfu}, communication {share} of the step").format(
            tokens=number(result.tokens_per_s), mfu=units.percent(result.mfu),
            share=units.percent(result.comm_fraction))),
        row(_("to train"), _("{tokens} tokens: {days} days, {cost} (share of cluster TCO, estimate)").format(
            tokens=number(s["tokens_to_train"]), days=units.days(result.days_to_train), cost=usd(result.cost_usd))),
        row(_("memory/GPU"), _("{parts} GiB of {hbm} GiB").format(parts=memory, hbm=f"{s['hbm_gb']:g}")),
    ]
    unit = bandwidth_unit(args)
    for c in s["communication"]:
        lines.append("  " + tidy_spaces(_("{parallelism} {collective} group {group}  {volume} GB  {time} s, algbw "
                                          "{algbw}, {hidden} hidden, {algorithm} over {level}").format(
            parallelism=pad(_shown(c["parallelism"]), 13), collective=pad(_shown(c["collective"]), 28),
            group=f"{units.cell(c['group_size']):>5}", volume=f"{units.cell(c['volume_gbytes']):>10}",
            time=f"{units.cell(c['time_s']):>8}",
            algbw=_algbw(c, unit), hidden=units.percent(c['hidden_fraction']),
            algorithm=algorithm_label(c["algorithm"]), level=level_label(c["fabric_level"], planned.resolved.system))))
    if s["sharp"]:
        lines.append(row(_("SHARP"), _("considered (needs the SHARP plugin and NCCL_COLLNET_ENABLE=1)")))
    elif args.sharp:  # asked for where the switches do not reduce: not modelled, and why
        lines.append(row(_("SHARP"), _("none. {reason}").format(reason=s["sharp_absent"])))
    lines.append(error_band_sentence(architecture, s["precision"], moe))
    lines += [_("warning: {warning}").format(warning=w) for w in s["warnings"]]
    if choice is not None and args.explain:
        lines += _split_lines(choice)
    elif args.explain:
        lines.append(_("--tp and --pp were both given, so no split was chosen (leave one out to compare splits)."))
    return "\n".join(lines) + "\n"
