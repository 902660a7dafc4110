"""Shared look of every figure: fonts, tier, rail and category colours, and the base layout."""

from __future__ import annotations

import math
import re

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


TITLE_CHARS = 36
"""Most visible characters per title line: a chart in half of a 1,024 px page still shows every word."""
_TAG = re.compile(r"<[A-Za-z/][^<>]*>|&#?\w+;")


def _visible(word: str) -> int:
    return len(_TAG.sub("x", word))


_WORD = re.compile(r"(?:<[A-Za-z/][^<>]*>|[^ ])+")
"""A word: a run of characters and whole HTML tags (``<span style='...'>`` holds spaces)."""


def _wrap_words(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in _WORD.findall(text):
        if line and _visible(line) + 1 + _visible(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + ([line] if line else [])


def wrap_title(title: str, width: int = TITLE_CHARS) -> tuple[str, int]:
    """A Plotly title broken into lines of at most ``width`` visible characters (Plotly never wraps).

    Segments separated by ``<br>`` are wrapped on their own; a ``<sup>...</sup>`` segment (a
    subtitle in a smaller font) gets 1.35 x the width and keeps ``<sup>`` on every line.
    Returns (text, number of lines).
    """
    out = []
    for segment in title.split("<br>"):
        if segment.startswith("<sup>") and segment.endswith("</sup>"):
            inner = segment[5:-6]
            out += [f"<sup>{line}</sup>" for line in _wrap_words(inner, int(width * 1.35))]
        else:
            out += _wrap_words(segment, width)
    return "<br>".join(out), len(out)


def wrap_text(text: str, width: int) -> str:
    """Annotation text wrapped to ``width`` visible characters per line (existing ``<br>`` kept)."""
    return "<br>".join(line for segment in text.split("<br>") for line in _wrap_words(segment, width))


def title_margin(lines: int) -> int:
    """Top margin [px] that fits ``lines`` title lines."""
    return max(60, 30 + 22 * lines)


def base_layout(fig: go.Figure, title: str, height: int, title_chars: int = TITLE_CHARS) -> go.Figure:
    """Title at the left (wrapped, see ``wrap_title``), transparent background, the shared font."""
    text, lines = wrap_title(title, title_chars)
    fig.update_layout(
        title=dict(text=text, x=0.0, xanchor="left", font=dict(size=15), yref="container", y=1.0, yanchor="top",
                   pad=dict(t=14)),
        height=height + 21 * max(0, lines - 2), margin=dict(l=10, r=10, t=title_margin(lines), b=10), font=FONT,
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


def line_width(links: int, max_links: int) -> float:
    """Line width by link count, in four steps (1 to 6 px)."""
    if max_links <= 1:
        return 1.5
    share = math.log1p(links) / math.log1p(max_links)
    return (1.0, 2.0, 3.5, 6.0)[min(3, int(share * 4))]



def _merge(into: dict, props: dict) -> None:
    """Deep-merge ``props`` into ``into`` as Plotly's ``update_layout`` does (nested dicts update)."""
    for key, value in props.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


class FigureSpec:
    """A Plotly figure built from plain dicts and turned into a ``go.Figure`` once, without validation.

    The diagram figures draw thousands of points in dozens of traces; building them through
    ``go.Scatter`` and ``update_layout`` validates every value (about 40 ms per topology diagram
    on this machine, most of a Designer rerun), while the same figure from dicts costs about 3 ms.
    Same method names as ``go.Figure`` (``add_trace`` takes a dict, e.g. ``scatter(...)``), so
    ``base_layout`` works on both; ``tests/test_figures.py`` checks the JSON is what the validated
    figure gives.
    """

    def __init__(self) -> None:
        self.data: list[dict] = []
        self.layout: dict = {}

    def add_trace(self, trace: dict) -> None:
        self.data.append(trace)

    def update_layout(self, **props) -> None:
        _merge(self.layout, props)

    def add_annotation(self, **props) -> None:
        self.layout.setdefault("annotations", []).append(props)

    @property
    def margin_top(self) -> int:
        return self.layout.get("margin", {}).get("t", 0)

    def figure(self) -> go.Figure:
        return go.Figure({"data": self.data, "layout": self.layout}, _validate=False)


def scatter(**props) -> dict:
    """A scatter trace as a dict (for ``FigureSpec.add_trace``)."""
    return {"type": "scatter", **props}
