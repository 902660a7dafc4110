"""Cost and power charts: capex and power by category."""

from __future__ import annotations

import plotly.graph_objects as go

from core.figures.keynumbers import format_power, format_usd
from core.cost import CATEGORY_LABELS
from core.figures.style import CATEGORY_COLOURS, base_layout
from core.i18n import N_, _

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
    total = frame.sum()
    fig = go.Figure(go.Bar(
        x=[category_name(c) for c in frame.index], y=list(frame.values),
        marker_color=[CATEGORY_COLOURS.get(c, "#999") for c in frame.index],
        text=[f"{v / total:.0%}" for v in frame.values], textposition="outside", cliponaxis=False,
        customdata=[format_usd(v) for v in frame.values],
        hovertemplate=_("%{x}: %{customdata} (%{text} of capex)") + "<extra></extra>"))  # short bar labels stay legible
    base_layout(fig, _("Capex by category: {total} total, {per_gpu} per GPU [USD, estimates]").format(
        total=format_usd(total), per_gpu=format_usd(plan.cost.capex_per_gpu_usd)), 360)
    fig.update_layout(yaxis=dict(title="USD", range=[0, frame.max() * 1.15]), xaxis=dict(tickangle=-40),
                      uniformtext=dict(minsize=10, mode="show"))
    return fig


def power_figure(plan) -> go.Figure:
    """IT power by category [kW] plus the facility overhead implied by the PUE."""
    frame = plan.bom_frame().groupby("category", sort=False)["extended_power_w"].sum() / 1000
    frame = frame[frame > 0]
    overhead = plan.cost.facility_kw - plan.cost.it_kw
    labels = list(frame.index) + ["facility overhead"]
    values = list(frame.values) + [overhead]
    fig = go.Figure(go.Bar(
        x=[category_name(c) for c in labels], y=values, marker_color=[CATEGORY_COLOURS.get(c, "#999") for c in labels],
        text=[format_power(v) for v in values], textposition="outside", cliponaxis=False,
        hovertemplate="%{x}: %{text}<extra></extra>"))
    base_layout(fig, _("Power by category: IT {it}, facility {facility} at PUE {pue} [kW]").format(
        it=format_power(plan.cost.it_kw), facility=format_power(plan.cost.facility_kw), pue=f"{plan.cost.pue:g}"), 360)
    fig.update_layout(yaxis=dict(title="kW", range=[0, max(values) * 1.15]), xaxis=dict(tickangle=-40),
                      uniformtext=dict(minsize=10, mode="show"))
    return fig
