"""``python -m core train``: estimate one training step, its throughput and days to train on the design."""

from __future__ import annotations

import argparse

from core.cli.common import (
    add_design_options,
    cluster_note,
    design_from_args,
    fraction,
    positive_int,
    to_json,
    tokens,
)
from core.errors import InputError


def register(subparsers) -> None:
    """Add the ``train`` sub-command."""
    from core.perf.training import PRESETS

    tr = subparsers.add_parser(
        "train", help="estimate a training step on the design",
        description="Estimate step time, tokens/s, communication share and days to train on the design.")
    add_design_options(tr)
    m = tr.add_argument_group("model (a preset, or a custom architecture with --layers ... --vocab)")
    m.add_argument("--model", type=str.lower, choices=list(PRESETS), default="llama3-70b")
    for name, helptext in (("layers", "transformer layers"), ("hidden", "hidden size"), ("ffn", "MLP width"),
                           ("heads", "attention heads"), ("kv-heads", "key/value heads"), ("vocab", "vocabulary")):
        m.add_argument(f"--{name}", type=positive_int, help=f"custom model: {helptext}")
    j = tr.add_argument_group("job")
    j.add_argument("--seq-len", type=positive_int, default=8192, help="sequence length [tokens] (default 8192)")
    j.add_argument("--global-batch", type=positive_int, default=1024, help="sequences per step (default 1024)")
    j.add_argument("--micro-batch", type=positive_int, default=1)
    j.add_argument("--precision", type=str.lower, choices=["bf16", "fp8"], default="bf16")
    for name, default in (("tp", 8), ("pp", 1), ("cp", 1), ("ep", 1), ("vp", 1)):
        j.add_argument(f"--{name}", type=positive_int, default=default,
                       help=f"{name.upper()} degree (default {default})")
    j.add_argument("--dp", type=positive_int, help="data-parallel degree (default: GPUs / (tp x pp x cp))")
    j.add_argument("--job-gpus", type=positive_int, metavar="N",
                   help="GPUs the job uses (default: --gpus as given, else every GPU of the design)")
    j.add_argument("--recompute", type=str.lower, choices=["none", "selective", "full"], default="selective")
    j.add_argument("--efficiency", type=fraction, metavar="FRACTION",
                   help="achievable fraction of dense peak FLOP/s (default from assets/catalog/collectives.toml)")
    j.add_argument("--tokens", type=tokens, default=1e12, help="tokens to train, e.g. 1T or 15e12 (default 1T)")
    tr.add_argument("--format", choices=["json", "table"], default="table")
    tr.set_defaults(handler=run)




def _job_from_args(args: argparse.Namespace, gpus: int | None = None):
    from core.perf.training import ModelSpec, model_preset, parse_job

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


def run(args: argparse.Namespace) -> str:
    from core.plan import plan
    from core.perf.training import estimate

    design = design_from_args(args)
    job = _job_from_args(args, args.job_gpus or design.gpus)
    result = estimate(plan(design), job)
    s = result.summary()
    if args.format == "json":
        return to_json(s) + "\n"
    par = s["parallelism"]
    lines = [
        f"{s['model']} ({s['params_b']:,.1f}B parameters) on {s['gpus']:,} GPUs: tp {par['tp']} pp {par['pp']} "
        f"cp {par['cp']} dp {par['dp']} ep {par['ep']} vp {par['vp']}; seq {s['seq_len']:,}, "
        f"global batch {s['global_batch']:,}, {s['precision']}" + cluster_note(design.gpus, s["cluster_gpus"],
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
