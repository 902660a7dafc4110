"""``python -m core sweep``: one or two design settings against one metric, the other settings fixed."""

from __future__ import annotations

import argparse
import sys
import csv
import io

from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.common import (LABEL_WIDTH, add_design_options, add_format_option, design_from_args, display_width, pad,
                             said, size, to_json)
from core.cli.serve import add_workload_options, serving_settings
from core.errors import InputError, shown
from core.i18n import _


def _assignment(text: str) -> tuple[str, str]:
    key, found, values = text.partition("=")
    if not found or not key.strip():
        raise argparse.ArgumentTypeError(_("expected SETTING=VALUES, e.g. oversubscription=1,1.5,2,3; got {text}")
                                         .format(text=shown(text)))
    return key.strip().lower().replace("-", "_"), values


def register(subparsers) -> None:
    """Add the ``sweep`` sub-command."""
    from core.analysis.sweep import METRICS, SETTINGS
    from core.perf.training import PRESETS

    sw = subparsers.add_parser(
        "sweep", help=_("sweep one or two design settings against a metric"),
        description=_("Plan the design at every value of one setting (two give a grid), the other settings "
                      "fixed, and report one metric at each point; a point that cannot be built says why."))
    add_design_options(sw)
    g = sw.add_argument_group(_("sweep"))
    g.add_argument("--set", dest="sweep_x", type=_assignment, required=True, metavar="SETTING=VALUES",
                   help=_("the swept setting and its values, comma-separated or start:stop:step "
                          "(settings: {settings})").format(settings=", ".join(SETTINGS)))
    g.add_argument("--set2", dest="sweep_y", type=_assignment, metavar="SETTING=VALUES",
                   help=_("a second swept setting: every combination (a grid)"))
    g.add_argument("--metric", choices=list(METRICS), default="capex_per_gpu_usd",
                   help=_("what to report at each point (default capex_per_gpu_usd)"))
    g.add_argument("--size", dest="busbw_size", type=size, default=1 << 30, metavar="SIZE",
                   help=_("all-reduce message size of busbw_gbytes (default 1GiB)"))
    g.add_argument("--model", type=str.lower, choices=list(PRESETS),
                   help=_("training model of the job metrics (default: the Performance page's, fitted to the "
                          "design)"))
    g.add_argument("--tokens", type=float, metavar="T",
                   help=_("tokens to train, in trillions, for days_to_train (default 1)"))
    add_workload_options(sw, prefix="serve-")
    add_format_option(sw, ("table", "csv", "json"),
                      _("table: readable (in the --lang language); csv and json: machine-readable, English"))
    add_units_option(sw)
    sw.set_defaults(handler=run)


def spec_from_args(args: argparse.Namespace):
    """The ``SweepSpec`` the flags describe (``InputError`` on a bad setting or value)."""
    from core.analysis.sweep import METRICS, Axis, SweepSpec
    from core.analysis.whole import one_fabric_only
    from core.formats import sweeplink
    from core.formats.joblink import DEFAULTS
    from core.perf.jobform import FITTED

    base = design_from_args(args)
    refused = one_fabric_only(base, "sweep", "cli")  # a design with pods
    if refused:
        raise InputError(refused)
    x_key, x_text = args.sweep_x
    axes = [Axis(setting=x_key, values=sweeplink.parse_values(x_key, x_text))]
    if args.sweep_y:
        y_key, y_text = args.sweep_y
        axes.append(Axis(setting=y_key, values=sweeplink.parse_values(y_key, y_text)))
    from core.analysis.sweep import ignored_said

    for ignored in ignored_said(base, axes):  # a setting a swept topology does not read: its points the same, said so
        print(_("warning: {message}").format(message=ignored), file=sys.stderr)
    job, fit = None, ()
    if METRICS[args.metric].needs in ("job", "busbw"):
        job = dict(DEFAULTS)
        fit = tuple(FITTED)
        if args.model:
            job["model"] = args.model
            fit = tuple(k for k in FITTED if k != "model")
        if args.tokens is not None:
            if not 0 < args.tokens <= 1000:
                raise InputError(_("--tokens must be above 0 and at most 1000 (trillions)"))
            job["tok"] = float(args.tokens)
    serving = serving_settings(args, "serve-") if METRICS[args.metric].needs == "serving" else None
    return SweepSpec(base=base, x=axes[0], y=axes[1] if len(axes) > 1 else None, metric=args.metric,
                     size=args.busbw_size, job=job, fit=fit, defaults=dict(DEFAULTS), serving=serving)


def _base_plan(design):
    """The plan of the design every point starts from (the sweep planned it too, cached), None when it cannot be
    built."""
    from core.errors import FabricPlannerError
    from core.plan import plan

    try:
        return plan(design)
    except FabricPlannerError:
        return None


def run(args: argparse.Namespace) -> str:
    from core.analysis.sweep import sweep
    from core.figures.sweep import (base_sentence, count_sentence, download_rows, gap_word, repeats_caption,
                                    same_note, title, value_column, value_label)
    from core.i18n import sentences

    spec = spec_from_args(args)
    result = sweep(spec)
    rows = download_rows(result)
    if args.format == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()
    if args.format == "json":
        return to_json({"setting": spec.x.setting, "values": list(result.spec.x.values),
                        "setting2": spec.y.setting if spec.y else None,
                        "values2": list(result.spec.y.values) if spec.y else None,
                        "metric": spec.metric, "size_bytes": spec.size if spec.metric == "busbw_gbytes" else None,
                        "points": rows, "feasible": result.feasible, "job": result.job}) + "\n"
    lines = [title(result), ""]  # the chart's title (core.i18n.embedded spaces a Latin setting name in Chinese)
    labels, texts = [], []
    for p, value in zip(result.points, value_column(result, bandwidth_unit(args))):
        label = value_label(spec.x.setting, p.x)
        if spec.y:
            label = f"{label} / {value_label(spec.y.setting, p.y)}"
        text = value if value is not None else \
            _("{gap}: {reason}").format(gap=gap_word(p), reason=" ".join((p.reason or "").split()))
        note = same_note(result, p)  # the page's note column: the point builds an earlier point's design
        labels.append(said(label))
        texts.append(said(_("{value}  ({note})").format(value=text, note=note) if note else text))
    width = max(LABEL_WIDTH, *(display_width(label) + 1 for label in labels))  # one column for every value
    lines += [*(pad(label, width) + text for label, text in zip(labels, texts)), ""]
    lines.append(sentences(base_sentence(result, _base_plan(spec.base), "cli"), count_sentence(result),
                           repeats_caption(result)))
    return "\n".join(lines) + "\n"
