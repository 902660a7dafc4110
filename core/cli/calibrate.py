"""``python -m core calibrate``: fit the collective model to the cluster's own nccl-tests measurements.

Reads one or more nccl-tests logs (``core.formats.nccltests``), fits ``net``, ``nvlink`` and ``lat`` on the
design given (``core.perf.calibration.fit``) and prints the fitted calibration with each parameter's standard
error, the error before and after, and every point (``--format table|json|csv``). The last line says how to apply
it: ``--calibration "..."`` on any command, ``cal=...`` in a link.
"""

from __future__ import annotations

import argparse
import csv
import io

from core.cli.common import add_design_options, add_format_option, design_from_args, positive_int, row, to_json
from core.errors import InputError, os_reason, shown
from core.i18n import _
from core.units import microseconds, percent

OPS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "broadcast")
PARAMETER_LABELS = {"net": "net", "nvlink": "nvlink", "lat": "lat [µs]"}


def register(subparsers) -> None:
    """Add the ``calibrate`` sub-command."""
    parser = subparsers.add_parser(
        "calibrate", help=_("fit the collective model to your nccl-tests measurements"),
        description=_("Fit the collective model's scale-out and NVLink efficiency and a fixed latency to "
                      "nccl-tests logs measured on the cluster the design describes; print the calibration, each "
                      "parameter's standard error, the error before and after and every point."))
    add_design_options(parser)
    parser.add_argument("--nccl-tests", dest="logs", metavar="FILE", action="append", required=True,
                        help=_("a nccl-tests log (all_reduce_perf, all_gather_perf, reduce_scatter_perf, "
                               "alltoall_perf output; repeatable)"))
    parser.add_argument("--op", choices=OPS,
                        help=_("the collective, when a log does not name it (its command line or 'Collective test "
                               "starting' line)"))
    parser.add_argument("--ranks", type=positive_int, metavar="N",
                        help=_("GPUs the runs used, when a log has no '# Rank' lines"))
    parser.add_argument("--calibration-name", dest="calibration_name", default="", metavar="TEXT",
                        help=_("a name for the calibration (default: the first log's file name)"))
    add_format_option(parser, ("table", "json", "csv"))
    parser.set_defaults(handler=run)


def _read(path: str) -> str:
    from core.formats.nccltests import MAX_BYTES

    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise InputError(_("cannot read {path}: {reason}").format(path=shown(path), reason=os_reason(exc))) from None
    return data.decode("utf-8", errors="replace")


def run(args: argparse.Namespace) -> str:
    from pathlib import Path

    from core.formats import nccltests
    from core.perf.calibration import fit
    from core.plan import plan

    design = design_from_args(args).model_copy(update={"calibration": None})
    runs = []
    for path in args.logs:
        try:
            runs.append(nccltests.parse(_read(path), op=args.op, gpus=args.ranks, name=Path(path).name))
        except InputError as exc:
            raise InputError(_("{path}: {problem}").format(path=shown(Path(path).name), problem=str(exc))) from None
    result = fit(plan(design), runs, name=args.calibration_name or Path(args.logs[0]).name)
    if args.format == "json":
        return to_json({"calibration": result.calibration.text(), "parameters": {
            p: {"value": getattr(result.calibration, p), "stderr": result.stderr[p], "determined": p in result.determined}
            for p in PARAMETER_LABELS}, "rms_error_before_pct": result.rms_before_pct,
            "rms_error_after_pct": result.rms_after_pct, "points": result.points}) + "\n"
    if args.format == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(result.points[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(result.points)
        return out.getvalue()
    return _table(result)


def _table(result) -> str:
    lines = []
    for p, label in PARAMETER_LABELS.items():
        value, error = getattr(result.calibration, p), result.stderr[p]
        state = (f"± {error:.3g}" if error is not None else
                 _("not determined by these runs") if p not in result.determined else _("at its bound"))
        lines.append(row(label, f"{value:g} {state}"))
    lines.append(row(_("error"), _("{before} before, {after} after (root mean square over {count} points)").format(
        before=percent(result.rms_before_pct / 100), after=percent(result.rms_after_pct / 100),
        count=len(result.points))))
    lines.append("")
    lines.append(f"{'size [B]':>14} {'measured':>14} {'before':>12} {'after':>12} {'error':>8}")
    for point in result.points:
        lines.append(f"{point['size']:>14,} {microseconds(point['measured_us']):>14} "
                     f"{microseconds(point['before_us']):>12} {microseconds(point['after_us']):>12} "
                     f"{percent(point['residual_pct'] / 100, signed=True):>8}")
    lines.append("")
    lines.append(_("Apply it: --calibration \"{text}\" on any command, or cal={text} in a link.").format(
        text=result.calibration.text()))
    return "\n".join(lines) + "\n"
