"""Plotly figures of the Performance page: pure functions of engine results, no Streamlit.

``busbw_figure``        bus bandwidth vs message size (log-log), per collective and algorithm,
                        with published nccl-tests points marked
``step_figure``         training step broken into compute, bubble and exposed communication
``scaling_figure``      weak-scaling efficiency and communication share vs GPU count
``comparison_figure``   the same job on two fabrics: days to train and dollars
"""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core import units
from core.units import money_axis, money_unit
from core.figures.style import base_layout, plain, sep
from core.i18n import _, number, usd
from core.perf.algorithms import algorithm_label, fastest_label, names_protocols
from core.perf.collectives import IN_NETWORK, ReferencePoint, Sweep, format_size
from core.perf.jobform import COLLECTIVE_COLUMNS
from core.perf.constants import test_tool
from core.perf.training import parallelism_label
from core.scaleup import in_noun


def collective_table_rows(rows: list[dict], unit: str) -> list[dict]:
    """``core.perf.jobform.collective_rows`` with algbw and busbw (the engine's GB/s) as text in ``unit`` ("GB/s" or
    "Gb/s", each value with its own prefix) and the time in microseconds (``core.units.microseconds``: ``26,338 µs``)
    under headers without a unit: the Performance page's table and the review pack's write them the same way."""
    time = _(COLLECTIVE_COLUMNS[3])
    names = {_(COLLECTIVE_COLUMNS[4]): _("algbw"), _(COLLECTIVE_COLUMNS[5]): _("busbw"), time: _("time")}
    return [{names.get(k, k): units.bandwidth(units.from_gbytes(v), unit) if k in names and k != time else
             units.microseconds(v) if k == time else v for k, v in r.items()} for r in rows]


ALGO_COLOURS = {"ring": "#2e86c1", "tree": "#117a65", "nvls": "#d35400", "sharp": "#7d3c98",
                "hierarchical": "#b7950b", "direct": "#5d6d7e"}
OP_DASH = {"all-reduce": "solid", "reduce-scatter": "dash", "all-gather": "dot", "all-to-all": "dashdot",
           "broadcast": "longdash"}
PART_COLOURS = {"compute": "#2e86c1", "pipeline bubble": "#aab7b8", "TP": "#d35400", "CP": "#af601a",
                "PP": "#7d3c98", "DP": "#117a65", "DP (experts)": "#45b39d", "EP": "#c0392b"}
REF_SYMBOLS = ("diamond", "square", "triangle-up", "star", "x", "cross")


def _layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    base_layout(fig, title, height)
    fig.update_layout(hovermode="closest",
                      legend=dict(orientation="v", yanchor="top", y=1.0, xanchor="left", x=1.01))
    return fig


def size_ticks(low: float = 8, high: float = 16 * 2**30) -> tuple[list[float], list[str]]:
    """Tick positions every 8x from ``low`` to ``high`` with nccl-tests style labels."""
    values, labels, v = [], [], 8.0
    while v <= high * 1.0001:
        if v >= low / 1.0001:
            values.append(v)
            labels.append(format_size(v).replace(" ", ""))
        v *= 8
    return values, labels


def busbw_figure(sweeps: list[Sweep], references: list[ReferencePoint] = (), height: int = 520,
                 show_all_algorithms: bool = True, unit: str = "GB/s", system=None) -> go.Figure:
    """Bus bandwidth vs message size [bytes], log axes; bandwidth in ``unit`` ("GB/s", nccl-tests' own, or
    "Gb/s"), always in G (a log axis spans the prefixes). ``system``: the design's system, whose accelerator
    noun the title says and whose library's benchmark names the size axis (``core.scaleup.in_noun``,
    ``core.perf.constants.test_tool``; None: GPUs and nccl-tests).

    One line per collective and algorithm (colour = algorithm, dash = collective);
    the fastest algorithm at each size is drawn thick. Published points are markers.
    """
    per, label_unit = units.scale(0.0, unit, prefix=False)
    factor = 8 / per  # the engine's GB/s -> Gb/s -> the unit
    fig = go.Figure()
    library = system.collective_library if system is not None else "nccl"
    time_text = (_("%{{x:.3s}}B: busbw %{{y:.3g}} {unit}<br>algbw %{{customdata[1]:.3g}} {unit}, time "
                   "%{{customdata[0]}} (%{{customdata[2]}})") if names_protocols(library) else
                 _("%{{x:.3s}}B: busbw %{{y:.3g}} {unit}<br>algbw %{{customdata[1]:.3g}} {unit}, time "
                   "%{{customdata[0]}}")).format(unit=label_unit)
    for sw in sweeps:
        best_t, best_a, best_p = sw.best()
        if show_all_algorithms:
            for name, curve in sw.curves.items():
                label = f"{sw.op} · {algorithm_label(name)}"
                fig.add_trace(go.Scatter(
                    x=sw.sizes, y=[v * factor for v in sw.busbw(curve.time_us)], mode="lines",
                    name=label, legendgroup=f"{sw.op}-{name}",
                    line=dict(color=ALGO_COLOURS.get(name, "#555"), width=1.5, dash=OP_DASH.get(sw.op, "solid")),
                    opacity=0.55,
                    customdata=list(zip(map(units.microseconds, curve.time_us), [v * factor for v in sw.algbw(curve.time_us)],
                                        *([curve.protocol] if names_protocols(library) else []))),
                    hovertemplate=((_("{name} (in-network)").format(name=label) if name in IN_NETWORK else label)
                                   + "<br>" + time_text
                                   + "<extra></extra>"),
                ))
        fig.add_trace(go.Scatter(
            x=sw.sizes, y=[v * factor for v in sw.busbw(best_t)], mode="lines",
            name=_("{op} · fastest").format(op=sw.op),
            line=dict(color="#1b2631", width=3.2, dash=OP_DASH.get(sw.op, "solid")),
            customdata=list(zip([fastest_label(a, p, library) for a, p in zip(best_a, best_p)],
                                map(units.microseconds, best_t))),
            hovertemplate=(_("{op} fastest: %{{customdata[0]}}<br>%{{x:.3s}}B: busbw %{{y:.3g}} {unit}, time "
                             "%{{customdata[1]}}").format(op=sw.op, unit=label_unit)
                           + "<extra></extra>"),
        ))
    for i, ref in enumerate(references):
        xs = [p[0] for p in ref.points]
        ys = [p[1] * factor for p in ref.points]
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="markers", name=_("published: {label}").format(label=ref.label),
            marker=dict(symbol=REF_SYMBOLS[i % len(REF_SYMBOLS)], size=11, color="#e74c3c",
                        line=dict(color="#641e16", width=1)),
            hovertemplate=(_("{label} ({op}, {algorithm})<br>%{{x:.3s}}B: busbw %{{y:.4g}} {unit}<br>{source}").format(
                label=ref.label, op=ref.op, algorithm=algorithm_label(ref.algorithm), source=ref.source[:90],
                unit=label_unit)
                + "<extra></extra>"),
        ))
    ticks, labels = size_ticks()
    tool = test_tool(system.collective_library) if system is not None else "nccl-tests"
    fig.update_xaxes(type="log", title=_("message size ({tool} S)").format(tool=tool), tickvals=ticks,
                     ticktext=labels, range=[0.85, 10.35], showgrid=True, gridcolor="rgba(128,128,128,0.2)")
    fig.update_yaxes(type="log", title=_("bus bandwidth [{unit}]").format(unit=label_unit), showgrid=True,
                     gridcolor="rgba(128,128,128,0.2)",
                     exponentformat="none")
    ops = sep().join(dict.fromkeys(sw.op for sw in sweeps))
    n = sweeps[0].n if sweeps else 0
    return _layout(fig, in_noun(_("Bus bandwidth vs message size: {ops} on {gpus} GPUs").format(
        ops=ops, gpus=f"{n:,}"), system), height)


def step_figure(estimates: dict, height: int = 320) -> go.Figure:
    """Horizontal stacked bars: one per labelled estimate; compute, bubble, exposed comm per parallelism [s]."""
    fig = go.Figure()
    labels = list(estimates)
    parts: dict[str, list[float]] = {"compute": [], "pipeline bubble": []}
    kinds = []
    for est in estimates.values():
        for c in est.comm:
            if c.kind not in kinds:
                kinds.append(c.kind)
    for kind in kinds:
        parts[f"{kind}"] = []
    for est in estimates.values():
        parts["compute"].append(est.compute_s)
        parts["pipeline bubble"].append(est.bubble_s)
        exposed = {c.kind: c.exposed_s for c in est.comm}
        for kind in kinds:
            parts[kind].append(exposed.get(kind, 0.0))
    for name, values in parts.items():
        if not any(values):
            continue
        if name in ("compute", "pipeline bubble"):
            label = _("compute") if name == "compute" else _("pipeline bubble")
        else:
            label = _("{kind} comm (exposed)").format(kind=parallelism_label(name))
        fig.add_trace(go.Bar(
            y=labels, x=values, orientation="h", name=label, marker_color=PART_COLOURS.get(name, "#888"),
            customdata=[units.number(v) for v in values],  # as the bars' totals, the step card and ``train``
            hovertemplate=_("{part}: {seconds} s").format(part=label, seconds="%{customdata}") + "<extra>%{y}</extra>",
        ))
    totals = [est.step_time_s for est in estimates.values()]
    # bars side by side read alike ("6.00 s" above "6.01 s", not "6 s"); one bar as its step card
    shown = units.alike(totals) if len(totals) > 1 else [units.number(t) for t in totals]
    fig.add_trace(go.Scatter(y=labels, x=totals, mode="text", text=[f"  {t} s" for t in shown],
                             textposition="middle right", showlegend=False, hoverinfo="skip",
                             cliponaxis=False))  # "15.8 s" whole: the plot's edge cut the unit at 1,024 px
    fig.update_layout(barmode="stack")
    fig.update_xaxes(title=_("seconds per step"), range=[0, max(totals or [1]) * 1.25])
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, _("Training step: where the time goes"), height)


LEGEND_UNDER_PX = 70
"""Room under a two-axis chart's x-axis title for its legend [px]."""
LEGEND_UNDER_Y = -0.42
"""Where that legend's top stands [fraction of the plot's height; below the rotated ticks and the axis title]."""
PANEL_SPACING = 0.24
"""The gap between the two panels of "Same job, two fabrics" [fraction of the width]: room for the right panel's
money ticks and axis title, clear of the left panel."""


def scaling_figure(rows: list[dict], height: int = 380) -> go.Figure:
    """Weak-scaling efficiency [%] and exposed communication share [%] vs GPU count (log x)."""
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    gpus = [r["gpus"] for r in rows]
    fig.add_trace(go.Scatter(x=gpus, y=[100 * r["scaling_efficiency"] for r in rows], mode="lines+markers",
                             name=_("scaling efficiency"), line=dict(color="#2e86c1", width=3),
                             customdata=[[number(r["gpus"]), units.percent(r["scaling_efficiency"]),
                                          number(r["tokens_per_s"])] for r in rows],
                             hovertemplate=_("{gpus} GPUs: {efficiency} efficiency, {tokens} tokens/s").format(
                                 gpus="%{customdata[0]}", efficiency="%{customdata[1]}", tokens="%{customdata[2]}")
                             + "<extra></extra>"), secondary_y=False)
    fig.add_trace(go.Scatter(x=gpus, y=[100 * r["comm_fraction"] for r in rows], mode="lines+markers",
                             name=_("communication share of step"), line=dict(color="#c0392b", width=2, dash="dot"),
                             customdata=[[number(r["gpus"]), units.percent(r["comm_fraction"])] for r in rows],
                             hovertemplate=_("{gpus} GPUs: {share} of the step communicating").format(
                                 gpus="%{customdata[0]}", share="%{customdata[1]}") + "<extra></extra>"),
                  secondary_y=True)
    fig.update_xaxes(type="log", title=_("GPUs (data-parallel replicas added, same batch per replica)"),
                     tickvals=gpus, ticktext=[f"{g:,}" for g in gpus])
    shown = [100 * r["scaling_efficiency"] for r in rows] or [100]
    # room for every point: a design whose larger scale runs at more than 100% (a faster fabric share) is not cut
    fig.update_yaxes(title_text=_("scaling efficiency [%]"), range=[min(80, min(shown) - 5), max(102, max(shown) + 2)],
                     secondary_y=False)
    top = max([100 * r["comm_fraction"] for r in rows] or [1])
    fig.update_yaxes(title_text=_("communication share [%]"), range=[0, max(5.0, top * 1.25)], tickformat=".0f",
                     secondary_y=True, showgrid=False, tickmode="auto")
    _layout(fig, _("Scaling: tokens/s per GPU relative to the smallest job"), height + LEGEND_UNDER_PX)
    # the legend under the axis: at the right it sat on the right axis's title (two y axes, 1,024 px)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=LEGEND_UNDER_Y, xanchor="left", x=0.0),
                      margin=dict(b=LEGEND_UNDER_PX))
    return fig


def comparison_figure(rows: list[dict], height: int = 340) -> go.Figure:
    """Side-by-side bars per fabric: days to train and training cost [USD]; the values across the bars, never
    turned on their side (a Chinese amount turned to fit a bar was hard to read)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=(_("Days to train"), _("Cost of the run (share of TCO)")),
                        horizontal_spacing=PANEL_SPACING)
    # a design's details on a second line: "This design<br>(InfiniBand, 1:1)", a linked design's too
    labels = [r["label"].replace(" (", "<br>(", 1).replace("（", "<br>（", 1) for r in rows]
    colours = ["#2e86c1", "#d35400", "#117a65", "#7d3c98"][: len(rows)]
    fig.add_trace(go.Bar(x=labels, y=[r["days"] for r in rows], marker_color=colours, showlegend=False,
                         text=[_("{days} d").format(days=units.days(r["days"])) for r in rows], textposition="auto",
                         customdata=[units.days(r["days"]) for r in rows], textangle=0,
                         hovertemplate=_("%{x}: %{customdata} days") + "<extra></extra>"), row=1, col=1)
    costs = [r["cost_usd"] for r in rows]
    fig.add_trace(go.Bar(x=labels, y=costs, marker_color=colours, showlegend=False,
                         text=[usd(c) for c in costs], customdata=[usd(c) for c in costs],
                         textposition="auto", textangle=0, hovertemplate="%{x}: %{customdata}<extra></extra>"),
                  row=1, col=2)
    fig.update_yaxes(title_text=_("days"), row=1, col=1, rangemode="tozero")
    fig.update_yaxes(title_text=money_unit(), row=1, col=2, rangemode="tozero", **money_axis(max(costs, default=0) * 1.1))
    return _layout(fig, _("Same job, two fabrics"), height)


def calibration_figure(points: list[dict], height: int = 420) -> go.Figure:
    """Measured nccl-tests time against the model before and after a calibration
    (``core.perf.calibration.CalibrationFit.points``): time [µs] against message size [bytes], log axes, one
    colour per run."""
    fig = go.Figure()
    runs = list(dict.fromkeys(p["run"] for p in points))
    for index, run in enumerate(runs):
        mine = [p for p in points if p["run"] == run]
        sizes = [p["size"] for p in mine]
        label = _("{run} ({op}, {gpus} GPUs)").format(run=plain(run), op=mine[0]["op"],
                                                     gpus=f"{mine[0]['gpus']:,}")  # a file name: shown as typed
        for key, name, mode, dash in (("measured_us", _("measured"), "markers", None),
                                      ("before_us", _("model"), "lines", "dot"),
                                      ("after_us", _("model, calibrated"), "lines", None)):
            fig.add_trace(go.Scatter(x=sizes, y=[p[key] for p in mine], mode=mode, name=f"{label}: {name}",
                                     legendgroup=run, line={"dash": dash} if dash else None,
                                     marker={"size": 7} if mode == "markers" else None,
                                     customdata=[units.microseconds(p[key]) for p in mine],
                                     hovertemplate="%{x:,} B: %{customdata}<extra>" + name + "</extra>"))
    ticks, labels = size_ticks(min(p["size"] for p in points), max(p["size"] for p in points))
    fig.update_xaxes(type="log", title=_("message size [bytes]"), tickvals=ticks, ticktext=labels)
    fig.update_yaxes(type="log", title=_("time [µs]"))
    fig = _layout(fig, _("nccl-tests measured and modelled"), height)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, xanchor="left", x=0.0))  # long run names
    return fig
