"""An NVLink domain of two levels (``core.fabric.domainlevels``): its first-level domains (racks, or nodes), the
level-2 NVLink switches that join them, and the counts and bandwidths of each level."""

from __future__ import annotations

import plotly.graph_objects as go

from core.fabric.domainlevels import level2_words, levels_summary, scaleup_of
from core.figures.style import TIER_COLOURS, FigureSpec, base_layout, scatter, wrap_text
from core.i18n import _, join
from core.units import bandwidth as format_bandwidth, ratio

MAX_DRAWN = 12
"""Most first-level domains or level-2 switch units drawn one by one; beyond it every few is drawn and the hover
says how many each mark stands for."""


DRAWING_PX = 300
"""Height of a switched domain's drawing, its top row's numbers to its bottom row's [px]: the figure is this, its
title and its caption (``fit_height``). At a fixed 560 px the drawing took what the title and caption left, and in
a two-fifths column it floated in 100 px of blank above and below; pods stack one figure per pod."""
DRAWING_Y = [-0.2, 1.2]
"""The drawing's y range: GPUs (or trays) at 1 with their numbers above, switches at 0 with theirs below (above the
top row 0.2 of the range, 43 px of ``DRAWING_PX``: half a 22 px square and a line of 10 px numbers; at 1.1 the
numbers of a two-level domain's first level were cut in half)."""


def fit_height(fig: FigureSpec, title_top: int, note: str, height: int | None) -> None:
    """Margins for the title (``title_top`` px) and the caption ``note`` under the drawing; the figure's height
    ``height``, or (None) ``DRAWING_PX`` more than the margins."""
    bottom = 24 + 15 * (note.count("<br>") + 1)
    fig.update_layout(margin=dict(l=10, r=10, t=title_top, b=bottom), height=height or title_top + DRAWING_PX + bottom)


def _marks(count: int) -> list[int]:
    """Indices of the units drawn out of ``count`` (all up to ``MAX_DRAWN``, else evenly spread, ends kept)."""
    if count <= MAX_DRAWN:
        return list(range(count))
    return sorted({round(k * (count - 1) / (MAX_DRAWN - 1)) for k in range(MAX_DRAWN)})


def _labels(drawn: dict) -> list[str]:
    """Unit numbers under the drawn marks: every one up to 6 marks, else the first and the last (the hover names
    each), so the numbers never touch in a half-width column."""
    keys = list(drawn)
    return [str(k + 1) if len(keys) <= 6 or i in (0, len(keys) - 1) else "" for i, k in enumerate(keys)]


def two_level_figure(plan, unit: str = "GB/s", height: int | None = None) -> go.Figure:
    """The largest NVLink domain of ``plan`` when it has two levels: first-level domains on top, level-2 switch
    units below, a line for each pair (each first-level domain's level-2 links spread evenly over the units);
    bandwidths per GPU per direction in ``unit`` (``core.units.bandwidth``); ``height`` as ``scaleup_figure``'s."""
    r = plan.resolved
    up = scaleup_of(r)
    spec = up.level2
    domain = up.domain_size(up.domain_gpus)
    racks, switches = domain.racks, 0 if domain.direct else max(1, domain.level2_switches)
    fig = FigureSpec()
    title = _("Scale-up: NVLink {generation} domain of {gpus} GPUs in two levels ({racks} x {level1} GPUs)").format(
        generation=r.nvlink_generation, gpus=up.domain_gpus, racks=racks, level1=up.level1_gpus)
    title += "<br><sup>" + _("first level {l1} per GPU, second level {l2} per GPU (one direction)").format(
        l1=format_bandwidth(up.level1_gbytes_per_gpu * 8, unit),
        l2=format_bandwidth(up.level2_gbytes_per_gpu * 8, unit)) + "</sup>"
    base_layout(fig, title, height or 560, slot="two_fifths")
    title_top = fig.margin_top
    fig.update_layout(xaxis=dict(visible=False), yaxis=dict(visible=False), showlegend=False, hovermode="closest")
    top_marks, bottom_marks = _marks(racks), _marks(switches) if switches else []
    top = {k: (i / max(1, len(top_marks) - 1), 1.0) for i, k in enumerate(top_marks)}
    bottom = {k: ((i + 0.5) / len(bottom_marks), 0.0) for i, k in enumerate(bottom_marks)}
    xs, ys = [], []
    for x0, y0 in top.values():
        for x1, y1 in bottom.values():
            xs += [x0, x1, None]
            ys += [y0, y1, None]
    if domain.direct:  # NVL36x2: the two racks' switch trays cabled to each other
        xs, ys = [0.0, 1.0, None], [1.0, 1.0, None]
    dense = len(top) * len(bottom) > 64
    fig.add_trace(scatter(x=xs, y=ys, mode="lines", line=dict(width=1.0 if dense else 2.0,
                                                              color=TIER_COLOURS["core"]),
                          opacity=0.35 if dense else 0.7, hoverinfo="skip"))
    per_rack = domain.level2_links // racks
    rack_hover = _("First-level domain {n}: {gpus} GPUs, {links} level-2 NVLinks in {cables} cables")
    fig.add_trace(scatter(
        x=[p[0] for p in top.values()], y=[1.0] * len(top), mode="markers+text",
        text=_labels(top), textposition="top center", textfont=dict(size=10),
        marker=dict(size=22 if len(top) <= 6 else 14, symbol="square", color="#d5dbdb",
                    line=dict(color=TIER_COLOURS["server"], width=2)),
        hovertext=[rack_hover.format(n=k + 1, gpus=up.level1_gpus, links=per_rack,
                                     cables=domain.level2_cables // racks) for k in top],
        hoverinfo="text"))
    fig.add_trace(scatter(
        x=[p[0] for p in bottom.values()], y=[0.0] * len(bottom), mode="markers+text",
        text=_labels(bottom), textposition="bottom center", textfont=dict(size=10),
        marker=dict(size=18 if len(bottom) <= 6 else 11, symbol="diamond", color=TIER_COLOURS["core"]),
        hovertext=[_("Level-2 NVLink switch {n}: {ports} ports, {chips} chips").format(
            n=k + 1, ports=spec.switch.ports, chips=spec.switch.chips) for k in bottom] if spec else None,
        hoverinfo="text"))
    detail = _("Top: {racks} first-level domains of {level1} GPUs (each its own NVSwitches); bottom: {switches} "
               "level-2 NVLink switch units").format(racks=racks, level1=up.level1_gpus, switches=switches) \
        if switches else _("Two first-level domains of {level1} GPUs whose switch trays are cabled to each other, "
                           "with no level-2 NVLink switch (NVL36x2)").format(level1=up.level1_gpus)
    if len(top) < racks or len(bottom) < switches:
        detail += "<br>" + _("{drawn_top} of {racks} and {drawn_bottom} of {switches} drawn").format(
            drawn_top=len(top), racks=racks, drawn_bottom=len(bottom), switches=switches)
    if spec is not None:
        detail += "<br>" + _("{per_gpu} NVLinks per GPU to the second level, taper {taper}; {counts}").format(
            per_gpu=spec.uplinks_per_gpu, taper=ratio(1 / up.taper),
            counts=level2_words(levels_summary(r), up.domain_gpus))
    if len(up.runs) > 1:
        detail += "<br>" + _("NVLink domains in the cluster: {sizes}").format(
            sizes=join([f"{count} x {size}" for size, count in up.runs]))
    note = wrap_text(detail, 36)
    fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=-0.02, showarrow=False, xanchor="left",
                       yanchor="top", align="left", font=dict(size=11))
    fig.update_layout(yaxis=dict(visible=False, range=DRAWING_Y), xaxis=dict(visible=False, range=[-0.08, 1.08]))
    fit_height(fig, title_top, note, height)
    return fig.figure()
