"""Shared look of every figure: fonts, tier, rail and category colours, and the base layout."""

from __future__ import annotations

import math

import plotly.graph_objects as go

TIER_Y = {"server": 0.0, "leaf": 1.0, "spine": 2.0, "core": 3.0}
TIER_COLOURS = {"server": "#5d6d7e", "leaf": "#2e86c1", "spine": "#117a65", "core": "#7d3c98"}
TIER_NAMES = {"server": "Servers", "leaf": "Leaf", "spine": "Spine", "core": "Core"}
RAIL_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#393b79", "#ad494a", "#637939", "#7b4173", "#3182bd", "#e6550d", "#31a354",
)
HIGHLIGHT = "#f39c12"
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=13)
CATEGORY_COLOURS = {"compute": "#5d6d7e", "NIC": "#2e86c1", "switch": "#117a65", "transceiver": "#d35400",
                    "cable": "#7d3c98", "facility overhead": "#bdc3c7"}


def rail_colour(rail: int) -> str:
    return RAIL_COLOURS[rail % len(RAIL_COLOURS)] if rail is not None and rail >= 0 else TIER_COLOURS["leaf"]


def base_layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    """Title at the left, transparent background, the shared font."""
    fig.update_layout(
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=15)),
        height=height, margin=dict(l=10, r=10, t=60, b=10), font=FONT,
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


def line_width(links: int, max_links: int) -> float:
    """Line width by link count, in four steps (1 to 6 px)."""
    if max_links <= 1:
        return 1.5
    share = math.log1p(links) / math.log1p(max_links)
    return (1.0, 2.0, 3.5, 6.0)[min(3, int(share * 4))]

