"""Figures and tables of inference serving (``core.perf.serving``): where a token's time goes, per design.

``time_figure`` stacks each design's time per output token (compute, HBM, NVLink, fabric, overhead: the
decode step's ``breakdown``) above its time to first token (queueing, prefill, KV-cache transfer, first decode
step); ``comparison_rows`` is the same deployment's numbers per design. Labels in the current language; design labels are escaped for Plotly (``style.plain``).
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core.figures.style import base_layout, plain
from core.i18n import N_, _, usd
from core.units import number

STEP_PARTS = {"compute": N_("compute"), "hbm": N_("HBM"), "nvlink": N_("NVLink"), "fabric": N_("scale-out fabric"),
              "overhead": N_("overhead")}
"""``StepTime.breakdown()`` keys -> their names."""
TTFT_PARTS = {"queue": N_("queueing"), "prefill": N_("prefill"), "kv_transfer": N_("KV-cache transfer"),
              "first_decode": N_("first decode step")}
"""``ServingEstimate.ttft_parts`` keys -> their names."""
COLOURS = {"compute": "#5d6d7e", "hbm": "#d35400", "nvlink": "#117a65", "fabric": "#2e86c1", "overhead": "#bdc3c7",
           "queue": "#c39bd3", "prefill": "#7d3c98", "kv_transfer": "#2874a6", "first_decode": "#48c9b0"}


def _bars(fig: go.Figure, labels: list[str], parts: dict[str, list[float]], names: dict[str, str], row: int) -> None:
    """One stacked horizontal bar per design in subplot ``row``: each part's milliseconds."""
    for key, values in parts.items():
        if not any(values):
            continue
        name = _(names[key])
        fig.add_trace(go.Bar(y=labels, x=values, orientation="h", name=name, marker_color=COLOURS[key],
                             legendgroup=str(row),
                             hovertemplate=plain(name) + ": %{x:.3g} ms<extra>%{y}</extra>"), row=row, col=1)


def _totals(fig: go.Figure, labels: list[str], totals: list[float], row: int) -> float:
    """The total at each bar's end ("unbounded" where it is); returns the largest finite total [ms]."""
    finite = [t for t in totals if math.isfinite(t)]
    top = max(finite or [1.0])
    text = [f"  {number(t)} ms" if math.isfinite(t) else "  " + _("unbounded") for t in totals]
    fig.add_trace(go.Scatter(y=labels, x=[t if math.isfinite(t) else 0 for t in totals], mode="text", text=text,
                             textposition="middle right", showlegend=False, hoverinfo="skip"), row=row, col=1)
    return top


def time_figure(estimates: dict, height: int = 420) -> go.Figure:
    """Per design (label -> ``ServingEstimate``): time per output token by component and time to first token by
    part [ms], as stacked horizontal bars in two panels; an unbounded part (the load exceeds a pool) is left out
    and its total says so."""
    labels = [plain(label) for label in estimates]
    fig = make_subplots(rows=2, cols=1, vertical_spacing=0.2, subplot_titles=(
        _("Time per output token [ms]"), _("Time to first token [ms]")))
    steps = [e.decode.step.breakdown() for e in estimates.values()]
    _bars(fig, labels, {k: [s[k] * 1e3 for s in steps] for k in STEP_PARTS}, STEP_PARTS, 1)
    tops = [_totals(fig, labels, [e.tpot_s * 1e3 for e in estimates.values()], 1)]
    parts = {k: [e.ttft_parts[k] * 1e3 if math.isfinite(e.ttft_parts[k]) else 0.0 for e in estimates.values()]
             for k in TTFT_PARTS}
    _bars(fig, labels, parts, TTFT_PARTS, 2)
    tops.append(_totals(fig, labels, [e.ttft_s * 1e3 for e in estimates.values()], 2))
    fig.update_layout(barmode="stack", hovermode="closest", legend=dict(
        orientation="h", yanchor="top", y=-0.08, x=0.0, traceorder="grouped"))
    for row, top in enumerate(tops, start=1):
        fig.update_xaxes(range=[0, top * 1.3], row=row, col=1)
        fig.update_yaxes(autorange="reversed", row=row, col=1)
    fig.update_annotations(font_size=13, x=0.0, xanchor="left")
    base_layout(fig, _("Where a token's time goes"), height + 40 * len(labels))
    fig.update_layout(margin=dict(b=90))
    return fig


TABLE_COLUMNS = (N_("Design"), N_("TTFT [ms]"), N_("TPOT [ms]"), N_("Output tokens/s per GPU"),
                 N_("Cost per million output tokens"), N_("Energy per output token [J]"), N_("Meets the targets"))
"""The comparison table's headers (English, marked; shown translated)."""


def _shown(value: float) -> str:
    """A number as the table shows it (``core.units.number``), or "unbounded"."""
    return number(value) if math.isfinite(value) else _("unbounded")


def comparison_rows(results: list[tuple[str, object]]) -> list[dict]:
    """One row per design: (label, ``ServingEstimate`` or the error it raised), as display text in the current
    language (ms, tokens/s, J as ``core.units.number``; the cost as ``usd``); a design that raised shows "-" (its
    message is the caller's to show, with its suggestion)."""
    rows = []
    for label, e in results:
        if isinstance(e, Exception):
            values = [label, *["-"] * (len(TABLE_COLUMNS) - 1)]
        else:
            values = [label, _shown(e.ttft_s * 1e3), _shown(e.tpot_s * 1e3), _shown(e.decode.tokens_per_s_per_gpu),
                      usd(e.usd_per_million_output_tokens, cents=True), _shown(e.joules_per_output_token),
                      _("yes") if e.meets_slo else _("no")]
        rows.append(dict(zip((_(c) for c in TABLE_COLUMNS), values)))
    return rows
