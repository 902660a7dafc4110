"""Figures of the Resilience page: the topology with failed elements marked, healthy against failed key
numbers, the load heatmap on the topology's blocks and the per-GPU bandwidth histogram. Pure Plotly; text in
the current language (every caller caches per language).

* ``failed_vertices(plan, result)``: the drawn vertex ids a ``FailureResult`` failed (switches by name, a
  plane's switches, the nodes of a failed NIC or rack, of a rack whose feeds are all lost, or of an HGX node that
  lost an NVSwitch chip, when nodes are drawn one by one). Link bundles and NVL72 switch trays are not drawn as
  vertices (the topology has no NVLink level): they are failed by the form only.
* ``failure_topology_figure``: ``core.figures.topology.topology_figure`` with a red cross on each failed
  vertex (the same vertex ids as ``customdata``, so a click on a cross names the switch too).
* ``healthy_vs_failed_figure``: each number of the failed design as a share of the healthy one [%].
* ``load_heatmap_figure`` / ``bandwidth_histogram_figure``: ``core.analysis.load.LoadResult``.
"""

from __future__ import annotations

import functools
import math
import re

import plotly.graph_objects as go

from core.analysis.failure import FailureResult
from core.analysis.failure.nvlink2 import level2_row
from core.analysis.load import DIRECTION_LABELS, LoadResult, tier_label as load_tier_label
from core import units
from core.design import tidy_spaces
from core.scaleup import other_words
from core.figures.style import base_layout, wrap_title
from core.units import from_gbytes, from_tbits
from core.fabric.families import words
from core.fabric.wiring import Wiring
from core.figures.topology import topology_figure, topology_graph
from core.i18n import _

FAILED_COLOUR = "#c0392b"
HEALTHY_COLOUR = "#2e86c1"
ECMP_COLOUR = "#d35400"
_NIC = re.compile(r"^node(\d+)\.nic\d+$")
_RACK = re.compile(r"^rack(\d+)$")
_PLANE = re.compile(r"^p(\d+)$")
_HGX_CHIP = re.compile(r"^node(\d+)\.nvswitch\d+$")
_FEED = re.compile(r"^rack(\d+)\.feed[ab]$", re.IGNORECASE)


def failed_vertices(plan, result: FailureResult | None) -> set[str]:
    """Vertex ids of the drawn topology that ``result`` failed."""
    if result is None:
        return set()
    graph, _aggregated = topology_graph(plan, every_pod=False)  # the what-if analyses pod 1 of a design with pods
    out: set[str] = set()
    nodes_per_rack = max(1, plan.resolved.nodes_per_rack)
    for item in result.failed:
        name = item["element"]
        if name in graph:
            out.add(name)
        elif m := _PLANE.match(name):
            plane = int(m[1])
            out.update(v for v, d in graph.nodes(data=True) if d.get("plane") == plane and d.get("role") != "server")
        elif m := _NIC.match(name):
            if Wiring.node_id(int(m[1])) in graph:
                out.add(Wiring.node_id(int(m[1])))
        elif m := _RACK.match(name):
            first = int(m[1]) * nodes_per_rack
            out.update(Wiring.node_id(n) for n in range(first, first + nodes_per_rack) if Wiring.node_id(n) in graph)
        elif (m := _HGX_CHIP.match(name)) and Wiring.node_id(int(m[1])) in graph:  # the node is out (Fabric Manager)
            out.add(Wiring.node_id(int(m[1])))
        elif (m := _FEED.match(name)) and not item.get("redundant"):  # every feed of the rack lost: the rack
            first = int(m[1]) * nodes_per_rack
            out.update(Wiring.node_id(n) for n in range(first, first + nodes_per_rack) if Wiring.node_id(n) in graph)
    return out


def failure_topology_figure(plan, failed: set[str], unit: str = "Gb/s", height: int = 560,
                            naming=None) -> go.Figure:
    """The topology diagram with a red cross on every failed vertex; click a switch to fail or restore it; its
    devices named under the exports' naming scheme ``naming`` (None: the default names)."""
    fig = topology_figure(plan, selected=None, unit=unit, height=height, every_pod=False,
                          slot="full", naming=naming)  # the page's whole width
    xs, ys, ids = [], [], []
    for trace in fig.data:
        data = getattr(trace, "customdata", None)
        if data is None or trace.x is None:
            continue
        for x, y, c in zip(trace.x, trace.y, data):
            vertex = c[0] if isinstance(c, (list, tuple)) else c
            if vertex in failed and vertex not in ids:
                xs.append(x)
                ys.append(y)
                ids.append(vertex)
    if ids:
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="markers", customdata=ids, hovertext=[_("{name}: failed").format(name=v) for v in ids],
            hoverinfo="text", marker=dict(symbol="x", size=18, color=FAILED_COLOUR, line=dict(width=1, color="white")),
            name=_("failed ({count})").format(count=len(ids)), showlegend=True))
    return fig


def healthy_vs_failed_figure(result: FailureResult, height: int = 420, unit: str = "GB/s", system=None) -> go.Figure:
    """Failed against healthy, each as a share of the healthy value [%]; the hover has both values (bandwidth
    in ``unit``); the scale-up row named after ``system``'s links."""
    rows = []
    connected = result.gpus - result.gpus_disconnected
    count = "{:,.0f}".format
    rows.append((_("GPUs connected"), result.gpus, connected, count))
    gbits = functools.partial(_bandwidth_text, unit=unit)
    rows.append((_("bisection"), from_tbits(result.healthy_bisection_tbits_one_direction),
                 from_tbits(result.bisection_tbits_one_direction), gbits))
    if result.healthy_busbw_gbytes:
        rows.append((_("all-reduce busbw"), from_gbytes(result.healthy_busbw_gbytes),
                     from_gbytes(result.busbw_gbytes or 0.0), gbits))
    if result.healthy_alltoall_busbw_gbytes:
        rows.append((_("all-to-all busbw"), from_gbytes(result.healthy_alltoall_busbw_gbytes),
                     from_gbytes(result.alltoall_busbw_gbytes or 0.0), gbits))
    if result.healthy_nvlink_gbytes_per_gpu_one_direction and result.gpus_nvlink_degraded:
        words = other_words(system)
        rows.append((_("NVLink per GPU, worst domain") if words is None and not result.nvlink_level2_of
                     else level2_row(chart=True)
                     if words is None else _("{link} per GPU, worst domain").format(link=words[0]), from_gbytes(result.healthy_nvlink_gbytes_per_gpu_one_direction),
                     from_gbytes(result.nvlink_gbytes_per_gpu_one_direction or 0.0), gbits))
    if result.healthy_step_time_s and result.step_time_s:
        # speed (1 / step time): lower is worse, like the other bars
        rows.append((_("training speed"), 1 / result.healthy_step_time_s, 1 / result.step_time_s,
                     "{:,.4f}".format))
    labels = [r[0] for r in rows][::-1]
    rows = rows[::-1]
    fig = go.Figure()
    fig.add_trace(go.Bar(y=labels, x=[100.0] * len(rows), name=_("healthy"), marker_color=HEALTHY_COLOUR,
                         orientation="h", customdata=[r[3](r[1]) for r in rows],
                         hovertemplate="%{y}: %{customdata}<extra></extra>"))
    shares = [100.0 * r[2] / r[1] if r[1] else 0.0 for r in rows]
    fig.add_trace(go.Bar(y=labels, x=shares, name=_("failed"), marker_color=FAILED_COLOUR, orientation="h",
                         text=[f"{s:.0f}%" for s in shares], textposition="outside", cliponaxis=False,
                         customdata=[r[3](r[2]) for r in rows],
                         hovertemplate="%{y}: %{customdata}<extra></extra>"))
    base_layout(fig, _("Failed design against the healthy one [% of healthy]"), height)
    fig.update_layout(barmode="group", xaxis=dict(title="%", range=[0, 132]), yaxis=dict(automargin=True),
                      legend=dict(orientation="h", y=-0.2, traceorder="reversed"), bargap=0.25)
    return fig


def what_if_rows(result: FailureResult, unit: str = "GB/s", system=None) -> list[tuple[str, str, str]]:
    """The numbers of a failure what-if as (what, healthy, failed) texts, bandwidth in ``unit`` ("GB/s" or "Gb/s",
    one direction): the Resilience page's table and the review pack's failure scenario; the scale-up rows named
    after ``system``'s links."""
    from core.i18n import number

    def gbytes(value: float | None) -> str:
        return "-" if value is None else units.bandwidth(from_gbytes(value), unit)

    rows = [
        (_("GPUs cut off"), "0", number(result.gpus_disconnected)),
        (_("nodes cut off"), "0", number(result.nodes_disconnected)),
        (_("GPUs degraded"), "0", number(result.degraded_gpus)),  # NIC or NVLink, each once
        (_("bisection, one direction"), units.bandwidth(from_tbits(result.healthy_bisection_tbits_one_direction), unit),
         units.bandwidth(from_tbits(result.bisection_tbits_one_direction), unit)),
    ]
    if result.healthy_busbw_gbytes is not None:
        rows.append((_("all-reduce busbw, 1 GiB"), gbytes(result.healthy_busbw_gbytes), gbytes(result.busbw_gbytes)))
    if result.healthy_alltoall_busbw_gbytes is not None:
        rows.append((_("all-to-all busbw, 1 GiB"), gbytes(result.healthy_alltoall_busbw_gbytes),
                     gbytes(result.alltoall_busbw_gbytes)))
    if result.healthy_nvlink_gbytes_per_gpu_one_direction is not None:
        words = other_words(system)
        rows.append((_("NVLink per GPU, worst domain, one direction") if words is None and not result.nvlink_level2_of
                     else level2_row()
                     if words is None else _("{link} per GPU, worst domain, one direction").format(link=words[0]),
                     gbytes(result.healthy_nvlink_gbytes_per_gpu_one_direction),
                     gbytes(result.nvlink_gbytes_per_gpu_one_direction or 0)))
        rows.append((_("GPUs with less NVLink bandwidth") if words is None else
                     _("GPUs with less {link} bandwidth").format(link=words[0]), "0", number(result.gpus_nvlink_degraded)))
    if result.healthy_domain_busbw_gbytes is not None:
        words = other_words(system)
        rows.append((_("all-reduce busbw in one NVLink domain, 1 GiB") if words is None else
                     tidy_spaces(_("all-reduce busbw in one {domain}, 1 GiB").format(domain=words[1])), gbytes(result.healthy_domain_busbw_gbytes),
                     gbytes(result.domain_busbw_gbytes)))
    if result.healthy_step_time_s is not None:
        rows.append((_("training step [s] (the Performance page's job)"), units.seconds(result.healthy_step_time_s),
                     "-" if result.step_time_s is None else units.seconds(result.step_time_s)))
        if result.healthy_days_to_train is not None:
            rows.append((_("days to train"), units.days(result.healthy_days_to_train),
                         "-" if result.days_to_train is None else units.days(result.days_to_train)))
    else:
        rows.append((_("training step [s] (the Performance page's job)"), "-", "-"))
    return rows


def _bandwidth_text(gbits: float, unit: str) -> str:
    return units.bandwidth(gbits, unit)


def _row_label(tier: str, direction: str, family: str | None = None) -> str:
    return _("{tier} {direction}").format(tier=load_tier_label(tier, family), direction=_(DIRECTION_LABELS[direction]))


HEATMAP_TICKS = 4
"""Most x ticks of the load heatmap (block numbers)."""
HEATMAP_AXIS_CHARS = 24
"""Widest line of the load heatmap's x-axis title [characters; a CJK one counts two]: a half-page chart at 1,024 px."""
ROW_PX = 22
"""The load heatmap's least row height [px]: its row names (``pod 2 spine-core down``) one under another."""


def load_heatmap_figure(result: LoadResult, routing: str = "ecmp", height: int = 340,
                        family: str | None = None) -> go.Figure:
    """Worst link load per block of the topology (leaf groups; pods for spine-core links) [% of capacity];
    ``family`` (a ``FabricPlan.family``) names the blocks in its words (``load:blocks``: a Dragonfly's groups). A
    design with pods (blocks with ``pod``, ``core.analysis.loadpods``): a row per pod, tier and direction, its blocks
    the pod's leaf groups (on three tiers the pod's own spines for spine-core links)."""
    key = "ecmp_max" if routing == "ecmp" else "ar_max"
    rows: dict[tuple[int, str, str], list[dict]] = {}
    for b in result.blocks:
        rows.setdefault((b.get("pod", 0), b["tier"], b["direction"]), []).append(b)
    pods = sorted({p for p, _t, _d in rows}, reverse=True)  # drawn bottom up: pod 1 on top
    order = [(p, t, d) for p in pods for t in ("global", "local", "spine_core", "leaf_spine", "node_leaf", "dim3",
                                               "dim2", "dim1")
             for d in ("down", "up", "minus", "plus") if (p, t, d) in rows]  # a torus's dimensions, both ways
    width = max((len(v) for v in rows.values()), default=0)
    z, text, ylabels = [], [], []
    for p, t, d in order:
        cells = rows[(p, t, d)]
        values = [100.0 * c[key] for c in cells] + [None] * (width - len(cells))
        z.append(values)
        text.append([(_("blocks {first}-{last}").format(first=c["first"], last=c["last"]) if c["last"] > c["first"]
                      else _("block {first}").format(first=c["first"])) + f": {100 * c[key]:.0f}%" for c in cells]
                    + [""] * (width - len(cells)))
        ylabels.append((_("pod {pod}").format(pod=p) + " " if p else "") + _row_label(t, d, family))
    fig = go.Figure(go.Heatmap(
        z=z, y=ylabels, x=list(range(width)), text=text, hoverinfo="text", zmin=0, zmax=max(200.0, max(
            (v for r in z for v in r if v is not None), default=100.0)),
        colorscale=[[0, "#eaf2f8"], [0.5, "#f5b041"], [1, FAILED_COLOUR]],
        # under the chart, not beside it: the cells keep the width of a half-page column at 1,024 px
        # at most three labels: 0, 50, 100, 150, 200 ran together ("50100150200") in a half-page chart at 1,024 px
        colorbar=dict(title=dict(text="%", side="right"), orientation="h", y=-0.45, yanchor="top", thickness=10, len=0.8, tickangle=0,
                      nticks=HEATMAP_TICKS - 1),
        xgap=2, ygap=2))
    # a short title and the unit and routing as its subtitle: one line each in a half-page chart at 1,024 px, so
    # no title breaks mid-phrase at any width (a 58-character title wrapped even at 1,600 px)
    title = _("Worst link load per block") + "<br><sup>" + (
        _("% of link capacity, static ECMP") if routing == "ecmp" else _("% of link capacity, adaptive routing")
    ) + "</sup>"
    # every row named: a row is at least ROW_PX tall, so Plotly does not drop every other row's label
    base_layout(fig, title, max(height, 150 + ROW_PX * len(order)))
    fig.update_yaxes(tickmode="array", tickvals=ylabels, ticktext=ylabels)
    step = max(1, math.ceil(width / HEATMAP_TICKS))  # a few ticks: they fit a half-page chart at 1,024 px
    ticks = list(range(0, width, step))
    axis = words(family, "load:blocks", None) or (
        _("block: leaf groups (global: sender)") if (0, "global", "up") in rows else
        _("block of the pod's leaf groups (its spines for spine-core), left to right")
        if pods != [0] and any(t == "spine_core" for _p, t, _d in rows) else
        _("block of the pod's leaf groups, left to right") if pods != [0] else
        _("block of leaf groups (pods for spine-core), left to right"))
    axis, lines = wrap_title(axis, HEATMAP_AXIS_CHARS)  # a half-page chart at 1,024 px cut one long line
    # the colour bar under the wrapped axis title, placed in pixels: a fraction of the plot's height put it on the
    # title when many rows or a long (Chinese, three-tier) title left the plot short
    axis_px = 30 + 20 * lines  # tick labels and the title's lines [px]
    bottom = axis_px + 8 + 36  # the colour bar (10 px) with its tick labels under it [px]
    total = fig.layout.height + 20 * (lines - 1)
    plot = max(60, total - fig.layout.margin.t - bottom)
    fig.update_layout(xaxis=dict(title=axis, tickvals=ticks, ticktext=[str(t + 1) for t in ticks], tickangle=0),
                      yaxis=dict(automargin=True), height=total, margin=dict(b=bottom))
    fig.update_traces(colorbar_y=-(axis_px + 8) / plot)
    return fig


def bandwidth_histogram_figure(result: LoadResult, height: int = 340, unit: str = "GB/s") -> go.Figure:
    """How many GPUs achieve how much bandwidth, adaptive routing against static ECMP [one direction, in
    ``unit``]."""
    edges = result.histogram.get("edges") or []
    line = result.nic_gbps_per_gpu
    lines = sorted({p["nic_gbps_per_gpu"] for p in getattr(result, "pods", ())})  # a design with pods: each pod's
    divisor, label = units.scale(line, unit)
    centres = [(a + b) / 2 for a, b in zip(edges, edges[1:])]
    width = (edges[1] - edges[0]) if len(edges) > 1 else 1.0
    fig = go.Figure()
    for side, (key, name, colour) in enumerate((("ar", _("adaptive routing"), HEALTHY_COLOUR),
                                                ("ecmp", _("static ECMP"), ECMP_COLOUR))):
        # side by side in each bin (adaptive left, ECMP right): neither hides the other where both count GPUs
        fig.add_trace(go.Bar(x=[c / divisor for c in centres], y=result.histogram.get(key) or [],
                             width=width / divisor / 2, offset=(side - 1) * width / divisor / 2, name=name, marker_color=colour, opacity=0.7,
                             customdata=[units.bandwidth(c, unit) for c in centres],
                             hovertemplate=_("%{customdata}: %{y:,} GPUs") + "<extra>" + name + "</extra>"))
    base_layout(fig, _("Per-GPU achievable bandwidth [{unit}]").format(unit=label) + "<br><sup>" + _(
        "one direction; NIC line rate {line}").format(line=" / ".join(units.bandwidth(x, unit) for x in lines or [line]))
        + "</sup>", height)  # title and subtitle, each one line at 1,024 px (as the heatmap's)
    fig.update_layout(barmode="overlay", xaxis=dict(title=label, range=[0, line / divisor * 1.02]),
                      yaxis=dict(title=_("GPUs")), legend=dict(orientation="h", y=-0.25))
    return fig


__all__ = ["bandwidth_histogram_figure", "failed_vertices", "failure_topology_figure", "healthy_vs_failed_figure",
           "load_heatmap_figure"]
