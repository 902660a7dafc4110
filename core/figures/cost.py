"""Cost and power charts: capex and power by category; which prices move capex most."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from core.analysis.whole import whole_summary
from core.figures.keynumbers import unbilled_by_cards
from core.units import money_axis, money_column, money_range, money_unit, percent, power as power_text, power_in, power_scale
from core.cost import CATEGORY_LABELS, in_category_order, price_sensitivity
from core.figures.style import CATEGORY_COLOURS, base_layout, plain, text_width, wrap_text
from core.i18n import N_, _, in_currency, usd
from core.networks import network_name

FACILITY_OVERHEAD = N_("facility overhead")
"""The power chart's last bar: facility power above the IT load (cooling, conversion), from the PUE."""


def category_name(category: str) -> str:
    """A BOM category (the engine's English key, ``core.cost.CATEGORY_LABELS``) in the current language."""
    if category == "facility overhead":
        return _(FACILITY_OVERHEAD)
    return _(CATEGORY_LABELS[category]) if category in CATEGORY_LABELS else category


def capex_figure(plan) -> go.Figure:
    """Capex by category [USD] with shares."""
    frame = plan.bom_frame().groupby("category", sort=False)["extended_price_usd"].sum()
    frame = frame.reindex(in_category_order(frame.index))
    total = frame.sum()
    fig = go.Figure(go.Bar(
        x=[category_name(c) for c in frame.index], y=list(frame.values),
        marker_color=[CATEGORY_COLOURS.get(c, "#999") for c in frame.index],
        text=[percent(v / total) for v in frame.values], textposition="outside", cliponaxis=False,
        customdata=[usd(v) for v in frame.values],
        hovertemplate=_("%{x}: %{customdata} (%{text} of capex)") + "<extra></extra>"))  # short bar labels stay legible
    base_layout(fig, in_currency(_("Capex by category: {total} total, {per_gpu} per GPU [USD, estimates]")).format(
        total=usd(total), per_gpu=usd(plan.cost.capex_per_gpu_usd)), 360)
    fig.update_layout(yaxis=money_axis(frame.max() * 1.15, title=money_unit(), range=[0, frame.max() * 1.15]),
                      xaxis=dict(tickangle=-40),
                      uniformtext=dict(minsize=10, mode="show"))
    return fig


def power_figure(plan) -> go.Figure:
    """IT power by category plus the facility overhead implied by the PUE, in one unit (kW, or MW from a facility
    of 1,000 kW: ``core.units.power_scale`` of the chart's total, so the title's IT power reads as the IT power
    card's, ``core.units.power``) on the axis, the bar labels and the title."""
    frame = plan.bom_frame().groupby("category", sort=False)["extended_power_w"].sum() / 1000
    frame = frame[frame > 0]
    frame = frame.reindex(in_category_order(frame.index))
    overhead = plan.cost.facility_kw - plan.cost.it_kw
    labels = list(frame.index) + ["facility overhead"]
    values = list(frame.values) + [overhead]
    top = max(values) if values else 1.0
    scale = power_scale(max(top, plan.cost.facility_kw))  # the title's totals as the cards write them: 1.22 MW
    divisor, unit = scale
    fig = go.Figure(go.Bar(  # labels of bars under 5% of the tallest only on hover: they would overlap
        x=[category_name(c) for c in labels], y=[v / divisor for v in values],
        marker_color=[CATEGORY_COLOURS.get(c, "#999") for c in labels],
        # the number alone on a bar (its unit is the axis's and the title's): "0.383 MW" ran past a 1,024 px chart
        text=[power_in(v, scale, unit=False) if v >= 0.05 * top else "" for v in values], textposition="outside",
        cliponaxis=False, customdata=[power_in(v, scale) for v in values],
        hovertemplate="%{x}: %{customdata}<extra></extra>"))
    base_layout(fig, _("Power by category: IT {it}, facility {facility} at PUE {pue} [{unit}]").format(
        it=power_in(plan.cost.it_kw, scale), facility=power_in(plan.cost.facility_kw, scale), pue=f"{plan.cost.pue:g}",
        unit=unit), 360)
    fig.update_layout(yaxis=dict(title=unit, range=[0, top / divisor * 1.15]), xaxis=dict(tickangle=-40),
                      uniformtext=dict(minsize=10, mode="show"))
    return fig


AXIS_TITLE_CHARS = 48
"""The price-sensitivity axis title's line length [Latin letters]: the plot beside the part names and the legend
is about half the page wide at a 1,024 px window."""
LOW_OPACITY = 0.55
"""The price-sensitivity chart's low-price bars: their category's colour, lighter."""
LEGEND_GREY = "#5d6d7e"
"""The price-sensitivity legend's keys: one neutral colour in the bars' two shades (the bars are by category)."""


def _label_position(value: float, widest: float) -> str:
    """A bar's label inside it when the bar takes most of its half of the axis (outside it would run into the
    part names on the left or off the chart on the right), else just beyond its end."""
    return "inside" if widest > 0 and abs(value) > 0.6 * widest else "outside"


PART_LABEL_CHARS = 30
"""The widest part name on the price-sensitivity chart's axis [Latin letters, a CJK character two]."""


def part_label(item: str, width: int = PART_LABEL_CHARS) -> str:
    """A BOM part name short enough for a chart axis: the name up to its first comma, cut after the last whole word
    (or character) that fits ``width`` (``core.figures.style.text_width``), with an ellipsis; the start of the
    name as published, so it reads as the BOM's: ``"NVIDIA ConnectX-7, 1x 400G NDR / 400GbE OSFP"`` ->
    ``"NVIDIA ConnectX-7"``."""
    text = item
    for comma in (", ", "，"):
        text = text.split(comma)[0]
    text = text.strip() or item
    if text_width(text) <= width:
        return text
    words, kept = text.split(" "), ""
    for word in words:
        if text_width(f"{kept} {word}".strip()) > width - 1:
            break
        kept = f"{kept} {word}".strip()
    if not kept:  # one long word or Chinese text without spaces: cut between characters
        for char in text:
            if text_width(kept + char) > width - 1:
                break
            kept += char
    return kept.rstrip(" -/,") + "…"


def price_sensitivity_figure(plan, top: int = 5) -> go.Figure:
    """The ``top`` catalog prices that move capex most (``core.cost.price_sensitivity``), as a tornado.

    Each bar runs from the capex with that one part at the low end of its price range to the capex with it
    at the high end, every other price held at the design's basis; the axis is the change from the
    headline capex [USD].
    """
    swings = price_sensitivity(plan.bom, top)
    capex = plan.cost.capex_usd
    swings = swings[::-1]  # widest on top
    names = [s.catalog_id for s in swings]  # the bars' keys; the axis shows the BOM's part names
    labels = [plain(part_label(s.item)) for s in swings]
    hover = [_("{item}: {quantity} x {unit_range} per unit; capex {capex_range}").format(
        item=s.item, quantity=f"{s.quantity:,}", unit_range=money_range(s.unit_low_usd, s.unit_high_usd),
        capex_range=money_range(s.capex_low_usd, s.capex_high_usd)) for s in swings]
    widest = max([abs(s.capex_low_usd - capex) for s in swings] + [abs(s.capex_high_usd - capex) for s in swings]
                 + [1.0])
    fig = go.Figure()
    fig.add_trace(go.Bar(
        y=names, x=[s.capex_low_usd - capex for s in swings], orientation="h", name=_("at its low price"),
        marker_color=[CATEGORY_COLOURS.get(s.category, "#999") for s in swings], opacity=LOW_OPACITY,
        showlegend=False,
        customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        text=[usd(s.capex_low_usd - capex) for s in swings], cliponaxis=False,
        textposition=[_label_position(s.capex_low_usd - capex, widest) for s in swings]))
    fig.add_trace(go.Bar(
        y=names, x=[s.capex_high_usd - capex for s in swings], orientation="h", name=_("at its high price"),
        marker_color=[CATEGORY_COLOURS.get(s.category, "#999") for s in swings], showlegend=False,
        customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        text=[usd(s.capex_high_usd - capex, signed=True) for s in swings], cliponaxis=False,
        textposition=[_label_position(s.capex_high_usd - capex, widest) for s in swings]))
    for name, opacity in ((_("at its low price"), LOW_OPACITY), (_("at its high price"), 1.0)):
        # the legend's keys in the bars' shading (light = low, dark = high); the bars' colour is their category
        fig.add_trace(go.Bar(y=[None], x=[None], orientation="h", name=name, marker_color=LEGEND_GREY,
                             opacity=opacity, hoverinfo="skip"))
    base_layout(fig, in_currency(_("The {count} prices that move capex most [USD]")).format(count=len(swings)),
                160 + 50 * max(1, len(swings)))
    fig.update_layout(barmode="overlay", xaxis=money_axis(
        widest * 1.35, -widest * 1.35, range=[-widest * 1.35, widest * 1.35],
        title=wrap_text(in_currency(_("capex change from {capex}, one part at the low or high end of its price range "
                                      "[USD]")).format(capex=usd(capex)), AXIS_TITLE_CHARS)),
                      yaxis=dict(title=None, tickmode="array", tickvals=names, ticktext=labels), showlegend=True)
    return fig


def networks_figure(plan) -> go.Figure:
    """Capex [USD] and IT power [kW] by network (``Plan.summary()["networks"]``: compute with its nodes, the
    storage fabric, in-band and out-of-band management), side by side as shares of the totals; a design with pods:
    the whole design's (``core.analysis.whole.whole_summary``)."""
    networks = whole_summary(plan)["networks"]
    keys = [k for k in ("oob", "inband", "storage", "compute") if k in networks]
    capex = sum(networks[k]["capex_usd"] for k in keys) or 1.0
    power = sum(networks[k]["power_kw"] for k in keys) or 1.0
    names = [network_name(k, "bill") for k in keys]
    colours = {"compute": "#5d6d7e", "storage": "#2e86c1", "inband": "#117a65", "oob": "#d35400"}
    fig = go.Figure()
    for metric, total, label, shown in (("capex_usd", capex, _("capex"), usd),
                                        ("power_kw", power, _("IT power"), power_text)):
        values = [networks[k][metric] for k in keys]
        fig.add_trace(go.Bar(
            y=[label] * len(keys), x=[v / total * 100 for v in values], orientation="h", name=label,
            marker_color=[colours[k] for k in keys], showlegend=False,
            customdata=[[n, shown(v), percent(v / total)] for n, v in zip(names, values)],
            text=[percent(v / total) if v / total >= 0.04 else "" for v in values], textposition="inside",
            hovertemplate="%{customdata[0]}: %{customdata[1]} (%{customdata[2]})<extra></extra>"))
    for k, name in zip(keys, names):  # a legend entry per network (the bars carry one colour each)
        fig.add_trace(go.Bar(y=[None], x=[None], orientation="h", name=name, marker_color=colours[k],
                             hoverinfo="skip"))
    base_layout(fig, _("Capex and IT power by network [% of the totals]"), 230)
    fig.update_layout(barmode="stack", xaxis=dict(title=None, range=[0, 100], ticksuffix="%"), yaxis=dict(title=None),
                      legend=dict(orientation="h", y=-0.3, traceorder="reversed"))
    return fig


def networks_rows(plan) -> list[dict]:
    """``networks_table``'s numbers a row per network for the Designer's table with a column per network
    (``webui.tables.show_turned``): each network in a word (``core.networks.network_name``'s short form: the four
    fit beside each other at 1,024 px), counts as numbers, the capex as the
    one money format (``core.i18n.usd``, its currency in every cell) and the IT power as the one power format
    (``core.units.power``), labels in the current language."""
    table, keys = networks_table(plan), list(whole_summary(plan)["networks"])
    rows, records = [], table.to_dict("records")
    capex = money_column([row[_("Capex [USD]")] for row in records])  # one column: its decimals picked once
    for key, row, amount in zip(keys, records, capex):
        rows.append({_("Network"): network_name(key, "short"), _("Switches"): row[_("Switches")],
                     _("Links"): row[_("Links")], _("Transceivers"): row[_("Transceivers")],
                     _("Capex"): amount, _("IT power"): power_text(row[_("IT power [kW]")])})
    return rows


def networks_table(plan) -> pd.DataFrame:
    """Switches, links, transceivers, capex [USD] and IT power [kW] per network, headers in the current language; a
    design with pods: the whole design's (``core.analysis.whole.whole_summary``, as the review pack)."""
    networks = whole_summary(plan)["networks"]
    rows = [{_("Network"): network_name(k, "bill"), _("Switches"): v["switches"], _("Links"): v["links"],
             _("Transceivers"): v["transceivers"], _("Capex [USD]"): v["capex_usd"], _("IT power [kW]"): round(v["power_kw"], 1)}
            for k, v in networks.items()]
    return pd.DataFrame(rows)


def networks_note(plan) -> str:
    """What the By network table's compute row counts that the Links and Transceivers cards do not (the UFM
    appliances' links and transceivers, ``core.figures.keynumbers.unbilled_by_cards``), in one sentence of the
    current language; "" when they count the same. A design with pods: the whole design's."""
    links, transceivers = unbilled_by_cards(whole_summary(plan))
    if not (links or transceivers):
        return ""
    return _("The compute column is the compute network's whole bill: the fabric's node and switch-to-switch links and "
             "their transceivers (the Links and Transceivers cards) plus the UFM appliances' {links} links and "
             "{transceivers} transceivers.").format(links=f"{links:,}", transceivers=f"{transceivers:,}")
