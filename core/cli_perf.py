"""Command line for performance: ``python -m core collective`` and ``python -m core train``.

``register(subparsers)`` adds both sub-commands; ``core.cli.build_parser`` calls it.
Each handler takes the parsed arguments and returns the text to print. Bad input
raises ``InputError`` (exit code 2), impossible designs or splits ``DesignError`` (3).
"""

from __future__ import annotations

import argparse
import json
import math

from core.cli import _positive_int, add_design_options, design_from_args
from core.collectives import ALGORITHMS, OPS, collective, format_size, parse_size
from core.errors import InputError


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _tokens(text: str) -> float:
    """``1T``, ``15e12``, ``300B`` (decimal: K, M, B/G, T)."""
    scale = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
    body = text.strip()
    factor = 1.0
    if body and body[-1].casefold() in scale:
        factor, body = scale[body[-1].casefold()], body[:-1]
    try:
        value = float(body) * factor
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a token count like 1T or 15e12, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"token count must be positive, got {text!r}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {text}")
    return value


def register(subparsers) -> None:
    """Add the ``collective`` and ``train`` sub-commands."""
    from core.training import PRESETS

    col = subparsers.add_parser(
        "collective", help="predict an NCCL collective on the design",
        description="Predict time, algbw and busbw (nccl-tests definitions) of one collective on the design.")
    add_design_options(col)
    g = col.add_argument_group("collective")
    g.add_argument("--op", type=str.lower, choices=OPS, default="all-reduce", help="collective (default all-reduce)")
    g.add_argument("--size", type=_size, default=parse_size("1GiB"), metavar="SIZE",
                   help="message size: B, KiB, MiB, GiB (binary) or KB, MB, GB (decimal); default 1GiB")
    g.add_argument("--job-gpus", type=_positive_int, metavar="N",
                   help="GPUs in the communicator (default: --gpus as given, else every GPU of the design)")
    g.add_argument("--algorithm", type=str.lower, choices=ALGORITHMS, help="force one algorithm (default: fastest)")
    col.add_argument("--format", choices=["json", "table"], default="table")
    col.set_defaults(handler=_cmd_collective)

    tr = subparsers.add_parser(
        "train", help="estimate a training step on the design",
        description="Estimate step time, tokens/s, communication share and days to train on the design.")
    add_design_options(tr)
    m = tr.add_argument_group("model (a preset, or a custom architecture with --layers ... --vocab)")
    m.add_argument("--model", type=str.lower, choices=list(PRESETS), default="llama3-70b")
    for name, helptext in (("layers", "transformer layers"), ("hidden", "hidden size"), ("ffn", "MLP width"),
                           ("heads", "attention heads"), ("kv-heads", "key/value heads"), ("vocab", "vocabulary")):
        m.add_argument(f"--{name}", type=_positive_int, help=f"custom model: {helptext}")
    j = tr.add_argument_group("job")
    j.add_argument("--seq-len", type=_positive_int, default=8192, help="sequence length [tokens] (default 8192)")
    j.add_argument("--global-batch", type=_positive_int, default=1024, help="sequences per step (default 1024)")
    j.add_argument("--micro-batch", type=_positive_int, default=1)
    j.add_argument("--precision", type=str.lower, choices=["bf16", "fp8"], default="bf16")
    for name, default in (("tp", 8), ("pp", 1), ("cp", 1), ("ep", 1), ("vp", 1)):
        j.add_argument(f"--{name}", type=_positive_int, default=default,
                       help=f"{name.upper()} degree (default {default})")
    j.add_argument("--dp", type=_positive_int, help="data-parallel degree (default: GPUs / (tp x pp x cp))")
    j.add_argument("--job-gpus", type=_positive_int, metavar="N",
                   help="GPUs the job uses (default: --gpus as given, else every GPU of the design)")
    j.add_argument("--recompute", type=str.lower, choices=["none", "selective", "full"], default="selective")
    j.add_argument("--efficiency", type=_fraction, metavar="FRACTION",
                   help="achievable fraction of dense peak FLOP/s (default from assets/catalog/collectives.toml)")
    j.add_argument("--tokens", type=_tokens, default=1e12, help="tokens to train, e.g. 1T or 15e12 (default 1T)")
    tr.add_argument("--format", choices=["json", "table"], default="table")
    tr.set_defaults(handler=_cmd_train)


def _requested_gpus(args: argparse.Namespace, design) -> int | None:
    """The job's GPU count: ``--job-gpus``, else the GPU count asked for (``--gpus`` or the design file)."""
    return args.job_gpus or design.gpus


def _cluster_note(requested: int | None, cluster: int, used: int) -> str:
    if requested is not None and cluster != requested and used == requested:
        return f"; the cluster has {cluster:,} GPUs ({requested:,} rounded up to whole nodes)"
    if cluster != used:
        return f"; the cluster has {cluster:,} GPUs"
    return ""


def _cmd_collective(args: argparse.Namespace) -> str:
    from core.plan import plan

    design = design_from_args(args)
    requested = _requested_gpus(args, design)
    result = collective(plan(design), args.op, args.size, gpus=requested, algorithm=args.algorithm)
    if args.format == "json":
        return json.dumps(result, indent=2) + "\n"
    p = result["placement"]
    last = p["gpus_in_last_nvlink_domain"]
    lines = [
        f"{result['op']} of {format_size(result['bytes'])} on {result['gpus']:,} GPUs "
        f"({p['nvlink_domains']:,} NVLink domain(s) of {p['gpus_per_nvlink_domain']}"
        + (f", the last with {last}" if last != p["gpus_per_nvlink_domain"] else "")
        + f", {p['nodes']:,} nodes, fabric level {p['fabric_level']})"
        + _cluster_note(design.gpus, result["cluster_gpus"], result["gpus"]),
        f"fastest       {result['algorithm']} ({result['protocol']})"
        + ("  - in-network reduction: busbw is not a link speed" if result["in_network"] else ""),
        f"time          {result['time_us']:,.1f} us",
        f"algbw         {result['algbw_gbytes']:,.2f} GB/s",
        f"busbw         {result['busbw_gbytes']:,.2f} GB/s (bottleneck link line rate "
        f"{result['bottleneck_line_gbytes']:,.1f} GB/s)",
        "all algorithms " + ", ".join(f"{k} {v:,.1f} us" for k, v in result["algorithms_time_us"].items()),
    ]
    return "\n".join(lines) + "\n"


def _job_from_args(args: argparse.Namespace, gpus: int | None = None):
    from core.training import ModelSpec, model_preset, parse_job

    custom = {k: getattr(args, k) for k in ("layers", "hidden", "ffn", "heads", "kv_heads", "vocab")}
    if any(v is not None for v in custom.values()):
        missing = [k.replace("_", "-") for k, v in custom.items() if v is None]
        if missing:
            raise InputError("a custom model needs --layers --hidden --ffn --heads --kv-heads --vocab; missing: "
                             + ", ".join(f"--{m}" for m in missing))
        try:
            model = ModelSpec(name="custom", **custom)
        except ValueError as exc:
            raise InputError(f"custom model: {exc.errors()[0]['msg'] if hasattr(exc, 'errors') else exc}") from None
    else:
        model = model_preset(args.model)
    return parse_job(dict(model=model, seq_len=args.seq_len, global_batch=args.global_batch,
                          micro_batch=args.micro_batch, precision=args.precision, tp=args.tp, pp=args.pp,
                          cp=args.cp, ep=args.ep, vp=args.vp, dp=args.dp, gpus=gpus,
                          recompute=args.recompute, compute_efficiency=args.efficiency,
                          tokens_to_train=args.tokens))


def _cmd_train(args: argparse.Namespace) -> str:
    from core.plan import plan
    from core.training import estimate

    design = design_from_args(args)
    job = _job_from_args(args, _requested_gpus(args, design))
    result = estimate(plan(design), job)
    s = result.summary()
    if args.format == "json":
        return json.dumps(s, indent=2) + "\n"
    par = s["parallelism"]
    lines = [
        f"{s['model']} ({s['params_b']:,.1f}B parameters) on {s['gpus']:,} GPUs: tp {par['tp']} pp {par['pp']} "
        f"cp {par['cp']} dp {par['dp']} ep {par['ep']} vp {par['vp']}; seq {s['seq_len']:,}, "
        f"global batch {s['global_batch']:,}, {s['precision']}" + _cluster_note(design.gpus, s["cluster_gpus"],
                                                                                s["gpus"]),
        f"step time     {s['step_time_s']:.3f} s  (compute {s['compute_s']:.3f}, bubble {s['bubble_s']:.3f}, "
        f"exposed communication {s['exposed_comm_s']:.3f})",
        f"throughput    {s['tokens_per_s']:,.0f} tokens/s, MFU {s['mfu']:.1%}, "
        f"communication {s['comm_fraction']:.1%} of the step",
        f"to train      {s['tokens_to_train']:.3g} tokens: {s['days_to_train']:,.1f} days, "
        f"${s['cost_usd']:,.0f} (share of cluster TCO, estimate)",
        "memory/GPU    " + ", ".join(f"{k} {v:.1f}" for k, v in s["memory_gb"].items())
        + f" GB of {s['hbm_gb']:g} GB",
    ]
    for c in s["communication"]:
        lines.append(f"  {c['parallelism']:<13} {c['collective']:<28} group {c['group_size']:>5}  "
                     f"{c['volume_gbytes']:>10,.1f} GB  {c['time_s']:>8.3f} s, {c['hidden_fraction']:.0%} hidden, "
                     f"{c['algorithm']} over {c['fabric_level']}")
    lines += [f"warning: {w}" for w in s["warnings"]]
    return "\n".join(lines) + "\n"
