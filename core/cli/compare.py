"""``python -m core compare A.json B.json [C.json D.json]``: up to four designs side by side, as the Compare page.

Every number is ``core.analysis.compare.compare``'s (the page's): the key numbers, cost and power, the
all-reduce busbw at ``--sizes``, each against the ``--baseline`` design, and the BOM difference. A column is
named by its design's ``name`` or else its file name. JSON (``--format json``, English): ``baseline``
(1-based), ``sizes_bytes``, ``metrics`` (``key``, ``label``, ``better``, ``kind``, ``group``; the unit is in
the key: ``*_usd`` USD, ``*_kw`` kW, ``bisection_tbits`` Tb/s one direction, ``scaleout_gbits_per_gpu`` Gb/s
per direction, ``busbw_gbytes_*`` GB/s), ``columns`` (``name``, ``file``, ``design``, ``error``, ``notes``,
``values``, ``deltas`` against the baseline: ``absolute``, ``percent``, ``verdict``) and ``bom_changes``
(quantities and extended prices [USD] per column).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.common import DESIGN_FILE, add_format_option, display_width, pad, positive_int, size, to_json
from core.errors import InputError
from core.i18n import _


def register(subparsers) -> None:
    """Add the ``compare`` sub-command."""
    from core.analysis.compare import MAX_DESIGNS, MAX_SIZES

    parser = subparsers.add_parser(
        "compare", help=_("compare up to four designs side by side"),
        description=_("Compare two to {most} designs side by side, as the Compare page does: key numbers, cost "
                      "and power, all-reduce busbw, each against the baseline design, and the bill of materials "
                      "difference.").format(most=MAX_DESIGNS))
    parser.add_argument("designs", nargs="+", metavar=DESIGN_FILE,
                        help=_("design files (JSON, as plan --format json writes under design or the Designer "
                               "downloads), two to {most}").format(most=MAX_DESIGNS))
    parser.add_argument("--baseline", type=positive_int, default=1, metavar="N",
                        help=_("the design the others are measured against, 1 for the first (default 1)"))
    parser.add_argument("--sizes", type=_sizes, default="1MiB,1GiB", metavar="SIZE,SIZE",
                        help=_("all-reduce message sizes, one to {most}, comma-separated (default 1MiB,1GiB)")
                        .format(most=MAX_SIZES))
    add_format_option(parser)
    add_units_option(parser)
    parser.set_defaults(handler=run)


def _sizes(text: str) -> tuple[int, ...]:
    """``--sizes``: one to ``MAX_SIZES`` message sizes [bytes], each as ``--busbw-size`` reads it."""
    from core.analysis.compare import MAX_SIZES

    items = [item for item in text.split(",") if item.strip()]
    if not 1 <= len(items) <= MAX_SIZES:
        raise argparse.ArgumentTypeError(_("give one to {most} sizes, comma-separated").format(most=MAX_SIZES))
    return tuple(dict.fromkeys(size(item) for item in items))


def comparison_from_args(args: argparse.Namespace):
    """The ``core.analysis.compare.Comparison`` of the files and options; ``InputError`` for a bad count or
    baseline (a design that cannot be built is its column's ``error``, as on the page)."""
    from core.analysis.compare import MAX_DESIGNS, compare
    from core.formats.comparelink import clean_name
    from core.formats.design_file import read_design_file

    if not 2 <= len(args.designs) <= MAX_DESIGNS:
        raise InputError(_("give two to {most} design files, got {count}").format(most=MAX_DESIGNS,
                                                                                 count=len(args.designs)))
    if args.baseline > len(args.designs):
        raise InputError(_("--baseline {baseline} but only {count} designs").format(baseline=args.baseline,
                                                                                    count=len(args.designs)))
    designs = []
    for file in args.designs:
        design = read_design_file(file)
        designs.append((clean_name(design.name or Path(file).stem), design))
    comparison = compare(designs, args.baseline - 1, sizes=args.sizes)
    # rows no design has a value for (no training job or deployment given here) are left out
    comparison.rows = tuple(m for m in comparison.rows if any(m.key in c.values for c in comparison.columns))
    return comparison


def comparison_json(comparison, files: list[str], unit: str = "GB/s") -> dict:
    """The comparison as JSON data (the module docstring lists the keys; the notes' bandwidths in ``unit``)."""
    from core.analysis.compare import bom_changes, metric_label

    deltas = comparison.deltas()
    columns = []
    for i, (col, file) in enumerate(zip(comparison.columns, files)):
        columns.append({
            "name": col.name, "file": file, "design": json.loads(col.design.model_dump_json(exclude_defaults=True)),
            "error": col.error, "notes": col.all_notes(unit), "values": dict(col.values),
            "deltas": {key: None if d is None else {"absolute": d.absolute, "percent": d.percent,
                                                    "verdict": d.verdict}
                       for key, d in deltas[i].items()}})
    changes = bom_changes([c.plan for c in comparison.columns], comparison.baseline)
    return {"baseline": comparison.baseline + 1, "sizes_bytes": list(comparison.sizes),
            "metrics": [{"key": m.key, "label": metric_label(m, comparison.level2, comparison.families),
                         "better": m.better,
                         "kind": m.kind, "group": m.group} for m in comparison.rows],
            "columns": columns,
            "bom_changes": [{"category": c.category, "item": c.item, "catalog_id": c.catalog_id, "end": c.end,
                             "quantities": list(c.quantities), "extended_usd": list(c.extended_usd), "why": c.why}
                            for c in changes]}


def render_table(comparison, unit: str = "GB/s") -> str:
    """The Compare page's table (``core.figures.compare.comparison_rows``, bandwidths in ``unit``: "GB/s" or
    "Gb/s", ``--units``) as aligned text, then each column's error or notes."""
    from core.figures.compare import comparison_rows, design_header

    rows, _verdicts = comparison_rows(comparison, unit)
    lines = []
    if rows:
        lines = _table_lines(rows)
    for i, col in enumerate(comparison.columns):
        for problem in ([_("cannot build this design: {message}").format(message=col.error)] if col.error else []) \
                + col.all_notes(unit):
            lines.append(f"{design_header(i, col.name)}: {' '.join(problem.split())}")
    return "\n".join(lines) + "\n"


def _table_lines(rows: list[dict]) -> list[str]:
    """``comparison_rows``' rows as aligned lines, a heading line for each metric group."""
    headers = list(rows[0])[1:]  # the metric's group is a heading line instead
    widths = {h: max(display_width(h), *(display_width(r[h]) for r in rows)) for h in headers}
    group_header = list(rows[0])[0]
    lines, group = ["  ".join(pad(h, widths[h]) for h in headers).rstrip()], None
    for r in rows:
        if r[group_header] != group:
            group = r[group_header]
            lines += ["", group]
        lines.append("  ".join(pad(r[h], widths[h]) for h in headers).rstrip())
    return lines


def run(args: argparse.Namespace) -> str:
    comparison = comparison_from_args(args)
    if args.format == "json":
        return to_json(comparison_json(comparison, list(args.designs), bandwidth_unit(args))) + "\n"
    return render_table(comparison, bandwidth_unit(args))
