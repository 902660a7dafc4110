"""Figures of a sweep (``core.analysis.sweep``): a line (numeric setting), bars (categorical setting) or a
heatmap (two settings). Pure Plotly; titles, axes and hovers in the current language.

Infeasible points are gaps: no line segment, no bar, a blank cell. Each carries the engine's reason on
hover: a grey cross on the axis below the gap (line, bars) or the blank cell itself (heatmap).
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from core.design import FIELDS
from core.analysis.sweep import CATEGORICAL, METRICS, SETTINGS, SweepResult, csv_rows, metric_label, setting_label
from core.figures.compare import format_value
from core.figures.style import TIER_COLOURS, base_layout, plain, wrap_text
from core.i18n import N_, _, embedded, fx_rate, ngettext, number, sentences
from core.units import money_column, money_unit

LINE_COLOUR = TIER_COLOURS["leaf"]
GAP_COLOUR = "#a6acaf"
HOVER_CHARS = 64
"""Most visible characters per hover line (a reason wraps)."""


def value_label(setting: str, value) -> str:
    """A swept value as shown on the axis: choice ids as they are (product names, ids), numbers grouped."""
    if value is None:
        return ""
    if SETTINGS[setting].kind == CATEGORICAL:
        field = FIELDS.get(setting)  # a design field's vocabulary names its ids; model ids are shown as they are
        return field.vocab.label(value) if field is not None and field.vocab is not None else str(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def same_note(result: SweepResult, point) -> str:
    """A point's note in the sweep's table: which earlier point builds the same design (``SweepPoint.same_as``:
    the swept setting changes nothing there), its value(s) as the axis shows them; "" for a design of its own."""
    if point.same_as is None:
        return ""
    earlier = result.points[point.same_as]
    spec = result.spec
    value = value_label(spec.x.setting, earlier.x)
    if spec.y:
        value += " / " + value_label(spec.y.setting, earlier.y)
    return _("same design as {value}: the setting changes nothing here").format(value=value)


def download_rows(result: SweepResult) -> list[dict]:
    """The sweep's rows for a file, the page's download and ``python -m core sweep``'s CSV and JSON alike
    (``core.analysis.sweep.csv_rows``: English keys, ``planned`` and ``same_as``), with the page's table's ``note``
    (``same_note``, in the current language as the reason) before the reason."""
    rows = csv_rows(result)
    for row, point in zip(rows, result.points):
        reason = row.pop("reason")
        row["note"] = same_note(result, point)
        row["reason"] = reason
    return rows


BASE_SENTENCES = {"page": N_("Each point is the sidebar's design, {size}, with {swept} set to the point's value."),
                  "cli": N_("Each point is the design the options give, {size}, with {swept} set to the point's "
                            "value.")}
"""Which design every point starts from: the Sweep page's caption (the sidebar's design) and ``python -m core
sweep``'s line under its table (the design its options give)."""


def base_size(design, plan) -> str:
    """The base design's GPUs and size in words (``1,024 x H100 in 128 nodes``, ``keynumbers.size_caption``), or
    the design's own when ``plan`` is None (it cannot be built)."""
    from core.figures.keynumbers import size_caption

    if plan is not None:
        return size_caption(plan)
    return _("{gpus} x {system}").format(gpus=number(design.gpus), system=design.gpu) if design.gpus else \
        _("{nodes} nodes of {system}").format(nodes=number(design.nodes or 0), system=design.gpu)


def base_sentence(result: SweepResult, plan, where: str = "page") -> str:
    """The sentence naming the design every point of ``result`` starts from and the setting(s) swept
    (``BASE_SENTENCES[where]``; ``plan``: the base design's, None when it cannot be built)."""
    spec = result.spec
    swept = [setting_label(spec.x.setting)] + ([setting_label(spec.y.setting)] if spec.y else [])
    return _(BASE_SENTENCES[where]).format(size=base_size(spec.base, plan), swept=embedded(" / ".join(swept)))


def gap_word(point) -> str:
    """What a point without a value is, in the chart, the table and ``python -m core sweep``: "cannot be built", or
    "no value" when its design was built and only the metric has none there (``SweepPoint.planned``)."""
    return _("no value") if point.planned else _("cannot be built")


def count_sentence(result: SweepResult) -> str:
    """How many points can be built, and how many of those have no value of the metric (the page's caption and
    the command's last line)."""
    built = _("{feasible} of {count} points can be built.").format(feasible=result.buildable,
                                                                   count=len(result.points))
    empty = result.buildable - result.feasible
    return sentences(built, ngettext("{count} of them has no value of this metric (the reason beside it says why).",
                                     "{count} of them have no value of this metric (the reasons beside them say why).",
                                     empty).format(count=empty) if empty else "")


def repeats_caption(result: SweepResult) -> str:
    """Says how many points repeat an earlier point's design (``SweepResult.repeats``); "" when none does."""
    if not result.repeats:
        return ""
    return ngettext("{count} point builds the same design as an earlier one (its note names it).",
                    "{count} points build the same design as an earlier one (their notes name it).",
                    result.repeats).format(count=result.repeats)


def _reason(text: str | None) -> str:
    """The reason, wrapped for a hover box and shown as text (``plain``)."""
    return "<br>".join(plain(line) for line in wrap_text(text or "", HOVER_CHARS).split("<br>"))


def nice_ticks(values: list[float | None], count: int = 5, from_zero: bool = True) -> list[float]:
    """About ``count`` round tick values from 0 (or the smallest value, if negative; without ``from_zero`` from the
    smallest value, as a heatmap's colour bar spans only its cells' values) to the largest value."""
    feasible = [v for v in values if v is not None]
    if not feasible:
        return []
    low, high = min(0.0, min(feasible)) if from_zero else min(feasible), max(feasible)
    if high <= low:
        return [low]
    raw = (high - low) / max(1, count - 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    return [round(first + i * step, 10) for i in range(int(math.ceil((high - first) / step)) + 1)]


MONEY_KINDS = ("usd", "usd_cents")
"""Metric kinds that are money [USD], shown in the session's currency (``core.i18n.usd``)."""


def _axis_ticks(result: SweepResult, values: list[float | None], axis: bool = True, unit: str | None = None) -> dict:
    """Tick values and their text in the metric's unit and the current language (money: 万 / 亿 in Chinese);
    an ``axis`` starts at 0 and spans its ticks (so the top one shows); a colour bar (not ``axis``) spans only the
    values, so its ticks do too (from 0, a bar over $64,099 to $76,682 had no tick in it and showed no number)."""
    kind = METRICS[result.spec.metric].kind
    rate = fx_rate() if kind in MONEY_KINDS else 1.0  # money: round ticks in the shown currency, placed in US dollars
    ticks = [t / rate for t in nice_ticks([v * rate if v is not None else None for v in values], from_zero=axis)]
    if not ticks:
        return {}
    out = dict(tickvals=ticks, ticktext=[format_value(t, kind, unit, tick=True) for t in ticks])
    if axis and len(ticks) > 1:
        out["range"] = [ticks[0], ticks[-1] + 0.03 * (ticks[-1] - ticks[0])]
    return out


def value_column(result: SweepResult, unit: str | None = None) -> list[str | None]:
    """Each point's value as the table's column writes it (``format_value``; an amount's column with its decimals
    picked once, ``core.units.money_column``), None where a point has no value: the page's table and ``python -m
    core sweep``."""
    kind = METRICS[result.spec.metric].kind
    values = [p.value for p in result.points]
    if kind == "usd":
        texts = iter(money_column([v for v in values if v is not None]))
        return [next(texts) if v is not None else None for v in values]
    return [format_value(v, kind, unit) if v is not None else None for v in values]


def _value_text(result: SweepResult, value: float | None, unit: str | None = None) -> str:
    return format_value(value, METRICS[result.spec.metric].kind, unit) if value is not None else ""


def title(result: SweepResult) -> str:
    """The chart's title; the settings' labels set between Chinese words by ``core.i18n.embedded`` (a space only
    beside a Latin letter or a digit: ``随 Dragonfly 全局比的变化``)."""
    spec = result.spec
    if spec.y is None:
        return _("{metric} against {setting}").format(metric=metric_label(spec.metric, spec.size),
                                                      setting=embedded(setting_label(spec.x.setting)))
    return _("{metric} by {setting} and {other}").format(metric=metric_label(spec.metric, spec.size),
                                                         setting=embedded(setting_label(spec.x.setting)),
                                                         other=embedded(setting_label(spec.y.setting)))


def figure(result: SweepResult, height: int = 420, unit: str | None = None) -> go.Figure:
    """The chart of ``result``: a heatmap for two settings, else a line (numeric) or bars (categorical)."""
    if result.spec.y is not None:
        return heatmap_figure(result, height, unit)
    if SETTINGS[result.spec.x.setting].kind == CATEGORICAL:
        return bar_figure(result, height, unit)
    return line_figure(result, height, unit)


def _gap_floor(values: list[float | None]) -> float:
    feasible = [v for v in values if v is not None]
    return min(0.0, min(feasible)) if feasible else 0.0


def _gaps(result: SweepResult, xs: list) -> go.Scatter | None:
    gaps = [(x, p) for x, p in zip(xs, result.points) if p.value is None]
    if not gaps:
        return None
    floor = _gap_floor(result.values)
    words = {gap_word(p) for _x, p in gaps}
    return go.Scatter(
        x=[x for x, _p in gaps], y=[floor] * len(gaps), mode="markers", cliponaxis=False,
        name=words.pop() if len(words) == 1 else _("no value"),
        marker=dict(symbol="x", size=14, color=GAP_COLOUR, line=dict(width=1, color=GAP_COLOUR)),
        customdata=[[value_label(result.spec.x.setting, p.x), gap_word(p), _reason(p.reason)] for _x, p in gaps],
        hovertemplate="%{customdata[0]}: %{customdata[1]}<br>%{customdata[2]}<extra></extra>")


NOTHING_TO_DRAW = N_("Nothing to draw: no point has a value of this metric. Each cross says why on hover; the "
                     "table lists every reason.")
"""A sweep's chart when no point has a value: said in the plot instead of an empty axis (-1 to 1) and a legend
entry for a line that is not there."""


def _say_nothing(fig: go.Figure, result: SweepResult, axis: bool = True) -> None:
    """When no point of ``result`` has a value: ``NOTHING_TO_DRAW`` in the middle of the plot, the line's (or bars')
    legend entry, the value axis's ticks and a heatmap's colour bar (not ``axis``) left out."""
    if result.feasible:
        return
    fig.add_annotation(text=wrap_text(plain(_(NOTHING_TO_DRAW)), HOVER_CHARS), x=0.5, y=0.5, xref="paper",
                       yref="paper", showarrow=False, font=dict(size=14))
    if not axis:
        fig.data[0].update(showscale=False)
        return
    fig.data[0].update(showlegend=False)
    fig.update_yaxes(range=[0, 1], showticklabels=False, showgrid=False, zeroline=False)


LOG_SPAN = 20
"""A numeric axis whose largest value is at least this many times its smallest (all above 0) is drawn on a log scale."""


def x_scale(xs: list) -> str:
    """``log`` when the swept values span ``LOG_SPAN`` or more (16 to 20,000 nodes), else ``linear``."""
    numbers = [float(x) for x in xs]
    return "log" if numbers and min(numbers) > 0 and max(numbers) / min(numbers) >= LOG_SPAN else "linear"


def line_figure(result: SweepResult, height: int = 420, unit: str | None = None) -> go.Figure:
    spec = result.spec
    xs = list(spec.x.values)
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=xs, y=result.values, mode="lines+markers", connectgaps=False, name=metric_label(spec.metric, spec.size),
        line=dict(color=LINE_COLOUR, width=2.5), marker=dict(size=8, color=LINE_COLOUR),
        customdata=[[value_label(spec.x.setting, p.x), _value_text(result, p.value, unit)] for p in result.points],
        hovertemplate="%{customdata[0]}: %{customdata[1]}<extra></extra>"))
    gaps = _gaps(result, xs)
    if gaps is not None:
        fig.add_trace(gaps)
    base_layout(fig, title(result), height)
    fig.update_layout(showlegend=gaps is not None, legend=dict(orientation="h", y=-0.22, x=0),
                      xaxis=dict(title=setting_label(spec.x.setting), tickvals=xs, type=x_scale(xs),
                                 ticktext=[value_label(spec.x.setting, x) for x in xs]),
                      yaxis=dict(title=metric_label(spec.metric, spec.size),
                                 **_axis_ticks(result, result.values, unit=unit)))
    _say_nothing(fig, result)
    return fig


def bar_figure(result: SweepResult, height: int = 420, unit: str | None = None) -> go.Figure:
    spec = result.spec
    labels = [value_label(spec.x.setting, x) for x in spec.x.values]
    fig = go.Figure()
    fig.add_trace(go.Bar(
        x=labels, y=result.values, name=metric_label(spec.metric, spec.size), marker_color=LINE_COLOUR,
        customdata=[_value_text(result, p.value, unit) for p in result.points],
        hovertemplate="%{x}: %{customdata}<extra></extra>"))
    gaps = _gaps(result, labels)
    if gaps is not None:
        fig.add_trace(gaps)
    base_layout(fig, title(result), height)
    fig.update_layout(showlegend=gaps is not None, legend=dict(orientation="h", y=-0.22, x=0), bargap=0.35,
                      xaxis=dict(title=setting_label(spec.x.setting), type="category", categoryorder="array",
                                 categoryarray=labels),
                      yaxis=dict(title=metric_label(spec.metric, spec.size),
                                 **_axis_ticks(result, result.values, unit=unit)))
    _say_nothing(fig, result)
    return fig


def heatmap_figure(result: SweepResult, height: int = 460, unit: str | None = None) -> go.Figure:
    spec = result.spec
    grid = result.grid()
    xs = [value_label(spec.x.setting, x) for x in spec.x.values]
    ys = [value_label(spec.y.setting, y) for y in spec.y.values]
    z = [[p.value for p in row] for row in grid]
    text = [[_value_text(result, p.value, unit) if p.value is not None else gap_word(p) + "<br>" + _reason(p.reason)
             for p in row] for row in grid]
    better_high = METRICS[spec.metric].better == "higher"
    fig = go.Figure(go.Heatmap(
        z=z, x=xs, y=ys, text=text, hoverongaps=True, colorscale="Viridis", reversescale=not better_high,
        colorbar=dict(title=dict(text=money_unit() if METRICS[spec.metric].kind in MONEY_KINDS else "", side="right"),
                      **_axis_ticks(result, [v for row in z for v in row], axis=False, unit=unit)),
        hovertemplate=setting_label(spec.x.setting).replace("%", "%%") + ": %{x}<br>"
        + setting_label(spec.y.setting).replace("%", "%%") + ": %{y}<br>%{text}<extra></extra>"))
    if len(xs) * len(ys) <= 100:
        fig.data[0].update(texttemplate="%{text}", textfont=dict(size=11))
        fig.data[0].update(text=[[t if p.value is not None else "" for t, p in zip(trow, prow)]
                                 for trow, prow in zip(text, grid)],
                           customdata=text, hovertemplate=fig.data[0].hovertemplate.replace("%{text}", "%{customdata}"))
    gaps = [(x, y, p) for row, y in zip(grid, ys) for p, x in zip(row, xs) if p.value is None]
    if gaps:  # a grey cross in each blank cell, the reason on hover
        fig.add_trace(go.Scatter(
            x=[x for x, _y, _p in gaps], y=[y for _x, y, _p in gaps], mode="markers", showlegend=False,
            marker=dict(symbol="x", size=12, color=GAP_COLOUR),
            customdata=[[gap_word(p), _reason(p.reason)] for _x, _y, p in gaps],
            hovertemplate="%{x} / %{y}: %{customdata[0]}<br>%{customdata[1]}<extra></extra>"))
    base_layout(fig, title(result), height)
    fig.update_layout(xaxis=dict(title=setting_label(spec.x.setting), type="category"),
                      yaxis=dict(title=setting_label(spec.y.setting), type="category"))
    _say_nothing(fig, result, axis=False)
    return fig
