"""``python -m core collective``: predict one NCCL collective on the design."""

from __future__ import annotations

import argparse

from core.cli.common import add_design_options, cluster_note, design_from_args, positive_int, size, to_json
from core.perf.collectives import ALGORITHMS, OPS, collective
from core.perf.sizes import format_size, parse_size


def register(subparsers) -> None:
    """Add the ``collective`` sub-command."""
    col = subparsers.add_parser(
        "collective", help="predict an NCCL collective on the design",
        description="Predict time, algbw and busbw (nccl-tests definitions) of one collective on the design.")
    add_design_options(col)
    g = col.add_argument_group("collective")
    g.add_argument("--op", type=str.lower, choices=OPS, default="all-reduce", help="collective (default all-reduce)")
    g.add_argument("--size", type=size, default=parse_size("1GiB"), metavar="SIZE",
                   help="message size: B, KiB, MiB, GiB (binary) or KB, MB, GB (decimal); default 1GiB")
    g.add_argument("--job-gpus", type=positive_int, metavar="N",
                   help="GPUs in the communicator (default: --gpus as given, else every GPU of the design)")
    g.add_argument("--algorithm", type=str.lower, choices=ALGORITHMS, help="force one algorithm (default: fastest)")
    col.add_argument("--format", choices=["json", "table"], default="table")
    col.set_defaults(handler=run)



def run(args: argparse.Namespace) -> str:
    from core.plan import plan

    design = design_from_args(args)
    requested = args.job_gpus or design.gpus
    result = collective(plan(design), args.op, args.size, gpus=requested, algorithm=args.algorithm)
    if args.format == "json":
        return to_json(result) + "\n"
    p = result["placement"]
    last = p["gpus_in_last_nvlink_domain"]
    lines = [
        f"{result['op']} of {format_size(result['bytes'])} on {result['gpus']:,} GPUs "
        f"({p['nvlink_domains']:,} NVLink domain(s) of {p['gpus_per_nvlink_domain']}"
        + (f", the last with {last}" if last != p["gpus_per_nvlink_domain"] else "")
        + f", {p['nodes']:,} nodes, fabric level {p['fabric_level']})"
        + cluster_note(design.gpus, result["cluster_gpus"], result["gpus"]),
        f"fastest       {result['algorithm']} ({result['protocol']})"
        + ("  - in-network reduction: busbw is not a link speed" if result["in_network"] else ""),
        f"time          {result['time_us']:,.1f} us",
        f"algbw         {result['algbw_gbytes']:,.2f} GB/s",
        f"busbw         {result['busbw_gbytes']:,.2f} GB/s (bottleneck link line rate "
        f"{result['bottleneck_line_gbytes']:,.1f} GB/s)",
        "all algorithms " + ", ".join(f"{k} {v:,.1f} us" for k, v in result["algorithms_time_us"].items()),
    ]
    return "\n".join(lines) + "\n"
