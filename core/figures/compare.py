"""Charts of a comparison (``core.analysis.compare.Comparison``), grouped by design: capex by BOM category,
bandwidth per GPU, days to train. Pure Plotly; text in the current language; designs that could not be
planned (or whose job does not fit) are left out of a chart rather than drawn as zero."""

from __future__ import annotations

import plotly.graph_objects as go

from core.analysis.compare import Comparison, busbw_key, category_capex
from core.cost import CATEGORY_LABELS
from core.figures.billitems import item_and_where
from core.figures.cost import category_name
from core.figures.keynumbers import per_pod_value
from core import units, vocab
from core.figures.style import CATEGORY_COLOURS, base_layout, plain, sep, wrap_text
from core.i18n import _, bracketed, in_currency, pgettext, usd
from core.perf.sizes import format_size

DESIGN_COLOURS = ("#2e86c1", "#d35400", "#117a65", "#7d3c98")


def _names(comparison: Comparison, key: str | None = None) -> list[tuple[int, str]]:
    """(index, name) of the designs drawn; the names are the user's, so ``plain`` (shown as typed, never as HTML)."""
    return [(i, plain(c.name)) for i, c in enumerate(comparison.columns)
            if c.plan is not None and (key is None or key in c.values)]


def cost_figure(comparison: Comparison, height: int = 380) -> go.Figure:
    """Capex [USD] per design, stacked by BOM category (compute, NIC, switch, transceiver, cable)."""
    shown = _names(comparison)
    fig = go.Figure()
    for category in CATEGORY_LABELS:
        values = [category_capex(comparison.columns[i].plan)[category] for i, _n in shown]
        fig.add_trace(go.Bar(x=[n for _i, n in shown], y=values, name=category_name(category),
                             marker_color=CATEGORY_COLOURS.get(category, "#999"),
                             customdata=[usd(v) for v in values],
                             hovertemplate="%{x}: %{customdata}<extra>" + category_name(category) + "</extra>"))
    base_layout(fig, in_currency(_("Capex by category, per design [USD, estimates]")), height)
    top = max((sum(category_capex(comparison.columns[i].plan).values()) for i, _n in shown), default=0.0)
    fig.update_layout(barmode="stack", yaxis=units.money_axis(top * 1.05, title=units.money_unit(), rangemode="tozero"),
                      xaxis=dict(automargin=True),
                      legend=dict(orientation="h", yref="container", y=0, yanchor="bottom"))  # under slanted names
    return fig


def bandwidth_figure(comparison: Comparison, height: int = 380, unit: str = "GB/s") -> go.Figure:
    """Per GPU, one direction, in ``unit`` ("GB/s" or "Gb/s", one prefix for the whole axis): injection (the
    GPU's scale-out NIC bandwidth) and all-reduce busbw at each size, grouped by design. (Bisection / all GPUs
    is not drawn: it is half the injection on a non-blocking fabric and reads as 2:1; the table has the
    bisection ratio.) A design with pods draws every pod's injection, each bar labelled by its pod; its busbw is
    pod 1's (the page's note says so)."""
    series = [("scaleout_gbits_per_gpu", vocab.injection("name"), 1.0)]
    series += [(busbw_key(s), _("All-reduce busbw at {size}").format(size=format_size(s)), 8.0)
               for s in comparison.sizes]  # busbw in GB/s: x 8 to Gb/s
    shown = _names(comparison)
    gbits = {i: _bars(comparison.columns[i], series) for i, _n in shown}
    divisor, label = units.scale(max((v for rows in gbits.values() for _k, v in rows), default=0.0), unit)
    fig = go.Figure()
    for (i, name), colour in zip(shown, DESIGN_COLOURS):
        keys = gbits[i]
        # labels on at most two lines, so they slant only in a narrow chart
        fig.add_trace(go.Bar(x=[wrap_text(k, 16) for k, _v in keys], y=[v / divisor for _k, v in keys], name=name,
                             marker_color=colour, customdata=[[k, units.bandwidth(v, unit)] for k, v in keys],
                             hovertemplate="%{customdata[0]}: %{customdata[1]}<extra>" + name
                             + "</extra>"))
    base_layout(fig, _("Bandwidth per GPU, per design [{unit}, one direction]").format(unit=label), height)
    # the legend at the foot of the figure, under the axis labels however many lines they take
    fig.update_layout(barmode="group", yaxis=dict(title=label, rangemode="tozero"), xaxis=dict(automargin=True),
                      legend=dict(orientation="h", yref="container", y=0, yanchor="bottom"))
    return fig


def _bars(col, series) -> list[tuple[str, float]]:
    """(label, Gb/s) of one design's bars: each metric of ``series`` (key, label, factor to Gb/s) it has; a metric
    with every pod's values (``Column.pods``) a bar per pod, labelled by the pod and its system."""
    out = []
    for key, label, to_gbits in series:
        if key not in col.values:
            continue
        pods = col.pods.get(key)
        if pods and len(pods) == len(col.pod_systems):  # short words: four bars fit side by side at 1,024 px
            words = (_("Injection, pod {pod} ({system})") if key == "scaleout_gbits_per_gpu"
                     else _("{metric}, pod {pod} ({system})"))
            out += [(words.format(metric=label, pod=n, system=system), v * to_gbits)
                    for n, (v, system) in enumerate(zip(pods, col.pod_systems), start=1)]
        else:
            out.append((label, col.values[key] * to_gbits))
    return out


def days_figure(comparison: Comparison, height: int = 340) -> go.Figure:
    """Days to train the comparison's job on each design (designs where it does not fit are left out)."""
    shown = _names(comparison, "days_to_train")
    days = [comparison.columns[i].values["days_to_train"] for i, _n in shown]
    fig = go.Figure(go.Bar(x=[n for _i, n in shown], y=days,
                           marker_color=[DESIGN_COLOURS[i % len(DESIGN_COLOURS)] for i, _n in shown],
                           text=[_("{days} d").format(days=units.days(d)) for d in days], textposition="auto",
                           customdata=[units.days(d) for d in days],
                           hovertemplate=_("%{x}: %{customdata} days") + "<extra></extra>"))
    base_layout(fig, _("Days to train the job, per design"), height)
    fig.update_layout(yaxis=dict(title=_("days"), rangemode="tozero"), showlegend=False)
    return fig


# --- tables ------------------------------------------------------------------------------------------------
BANDWIDTH_KINDS = {"tbits": units.from_tbits, "gbits": float, "gbytes": units.from_gbytes}
"""Bandwidth kinds of ``core.analysis.compare.Metric`` -> to Gb/s."""
NATIVE_UNITS = {"tbits": "Gb/s", "gbits": "Gb/s", "gbytes": "GB/s"}
"""The unit a bandwidth kind is shown in when the caller names none (the CLI)."""


def format_value(value: float, kind: str, unit: str | None = None, tick: bool = False) -> str:
    """One number of the comparison table, in the current language; a bandwidth with its unit, in ``unit``
    ("GB/s" or "Gb/s"; default the kind's own system), money in ``core.i18n.usd`` (``tick``: an axis tick's
    round amount, without trailing zeros); a step time [s] as every table that sets steps side by side writes it
    (``core.units.seconds``: 6.003 and 6.010 differ, "6" and "6.01" hid it beside the delta's "+0.007")."""
    if kind == "usd":
        return usd(value, trim=tick)
    if kind == "usd_cents":
        return usd(value, cents=True)
    if kind in BANDWIDTH_KINDS:
        return units.bandwidth(BANDWIDTH_KINDS[kind](value), unit or NATIVE_UNITS[kind])
    if kind == "share":  # the one share format (core.units.percent: 6.62%, as the Designer's card)
        return units.percent(value)
    if kind == "ratio":
        return units.ratio(value)
    if kind == "kw":
        return units.kw(value)
    if kind == "days":  # the one days format (core.units.days)
        return units.days(value)
    if kind == "seconds" and not tick:  # a step beside another: three decimals, as Performance's two-fabric table
        return units.seconds(value)
    if kind in ("seconds", "ms"):  # as the Inference page's cards (core.units.number); a step's axis tick
        return units.number(value)
    return f"{value:,.0f}"


def format_delta(d, kind: str, unit: str | None = None) -> str:
    """``+1,234 (+5.0%)``, ``+$17.8 M (+11,944.1%)``: the absolute part in the metric's unit, the relative part with
    one decimal and separators."""
    if d.verdict == "same":
        return "="
    if d.pods is not None and kind in BANDWIDTH_KINDS:  # a design with pods: each pod that moved
        return sep().join(_("pod {number}: {change}").format(
            number=i + 1, change=units.signed_bandwidth(BANDWIDTH_KINDS[kind](diff), unit or NATIVE_UNITS[kind]))
            for i, diff in enumerate(d.pods) if abs(diff) > 1e-9)
    if kind in ("usd", "usd_cents"):
        absolute = usd(d.absolute, signed=True, cents=kind == "usd_cents")
    elif kind in BANDWIDTH_KINDS:
        absolute = units.signed_bandwidth(BANDWIDTH_KINDS[kind](d.absolute), unit or NATIVE_UNITS[kind])
    elif kind == "share":
        absolute = _("{points} pts").format(points=f"{d.absolute * 100:+.1f}")
    elif kind == "ratio":
        absolute = f"{d.absolute:+.3g}"
    elif kind == "kw":  # exact in kW (units.kw: 1,245, 40.8) under the row's kW or MW (row_cells)
        absolute = ("+" if d.absolute > 0 else "-" if d.absolute < 0 else "") + units.kw(abs(d.absolute)) + " kW"
    elif kind == "seconds":  # to the millisecond under the row's significant figures (row_cells)
        absolute = f"{d.absolute:+,.3f} s"
    elif kind == "days":
        absolute = f"{d.absolute:+,.2f}"
    elif kind == "ms":
        absolute = f"{d.absolute:+,.1f}"
    else:
        absolute = f"{d.absolute:+,.0f}"
    return absolute if d.percent is None else bracketed(absolute, f"{d.percent:+,.1f}%")


def row_cells(values: list[float], kind: str, unit: str | None = None) -> list[str]:
    """One row of the comparison table across the designs, as the Designer's and Performance's cards write each
    number: an amount with its decimals picked once (``core.units.money_column``), a power as its Designer card
    (``core.units.power``: ``52.9 kW`` beside ``5.87 MW``, each unit said), a step time [s]
    with the card's significant figures, beside another with as many decimals in each as the one that needs the
    most (``core.units.alike``: ``2.13 s``, ``239 s`` alone); every other kind ``format_value``'s. The deltas
    stay exact (``format_delta``: kW, milliseconds)."""
    if kind == "usd":
        return units.money_column(values)
    if kind == "kw":
        return [units.power(v) for v in values]
    if kind == "seconds":  # a design alone: the card's very number (units.alike's "a number alone")
        return [f"{text} s" for text in (units.alike(values) if len(values) > 1 else map(units.number, values))]
    return [format_value(v, kind, unit) for v in values]


def design_header(index: int, name: str) -> str:
    return f"{index + 1}. {name}"


def delta_header(index: int) -> str:
    return _("{number}. vs baseline").format(number=index + 1)


def comparison_rows(comparison: Comparison, unit: str = "GB/s") -> tuple[list[dict], list[dict]]:
    """The comparison table: one row per metric, per design its value and (except the baseline) its delta; a
    row's unit and decimals picked once across the designs (``row_cells``).

    Returns ``(rows, verdicts)``: ``verdicts`` has the same shape, ``better``/``worse``/``same``/``neutral``
    on delta cells and None elsewhere (the page colours by it). A missing value shows as ``-``; bandwidth in
    ``unit`` ("GB/s" or "Gb/s")."""
    from core.analysis.compare import GROUPS, metric_label

    deltas = comparison.deltas()
    rows, verdicts = [], []
    # the metric's group (Design, Cost and power, ...), not the communicator group size "group" of core.perf
    metric_header, group_header = _("metric"), pgettext("comparison table", "group")
    for m in comparison.rows:
        row = {group_header: _(GROUPS[m.group]),
               metric_header: metric_label(m, comparison.level2, comparison.families)}
        verdict = {group_header: None, metric_header: None}
        shown = [col for col in comparison.columns if m.key not in col.pods and m.key in col.values]
        cells = iter(row_cells([col.values[m.key] for col in shown], m.kind, unit))
        for i, col in enumerate(comparison.columns):  # a row across the designs: its unit and decimals picked once
            head = design_header(i, col.name)
            row[head] = (per_pod_value(col.pods[m.key], 1, 0, unit) if m.key in col.pods else
                         next(cells) if m.key in col.values else "-")
            verdict[head] = None
            if i != comparison.baseline:
                d = deltas[i][m.key]
                row[delta_header(i)] = format_delta(d, m.kind, unit) if d is not None else "-"
                verdict[delta_header(i)] = d.verdict if d is not None else None
        rows.append(row)
        verdicts.append(verdict)
    return rows, verdicts


def bom_rows(comparison: Comparison) -> list[dict]:
    """The BOM difference table: every item whose quantity or price differs, per design its quantity, and
    against the baseline the change in quantity and USD, with the BOM's reason (``core.analysis.compare``)."""
    from core.analysis.compare import BOM_DIFF_COLUMNS, bom_changes, change_text

    changes = bom_changes([c.plan for c in comparison.columns], comparison.baseline)
    category, item, where, catalog_id, change, why = (_(c) for c in BOM_DIFF_COLUMNS)
    rows = []
    for ch in changes:
        name, sits = item_and_where(ch.item, ch.catalog_id)  # the part as published, where it sits apart (the bill's)
        row = {category: category_name(ch.category), item: name, where: sits, catalog_id: ch.catalog_id}
        for i, col in enumerate(comparison.columns):
            row[design_header(i, col.name)] = f"{ch.quantities[i]:,}"
        row[change] = "; ".join(f"{i + 1}: {change_text(ch, i, comparison.baseline)}"
                                for i in range(len(comparison.columns)) if i != comparison.baseline
                                and ch.quantity_change(i, comparison.baseline) != 0
                                or (i != comparison.baseline and ch.usd_change(i, comparison.baseline) != 0))
        row[why] = ch.why
        rows.append(row)
    return rows
