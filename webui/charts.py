"""The app's one way to draw a chart: ``st.plotly_chart`` with the title wrapped for where the chart is drawn.

Plotly never wraps a title and the server never knows how wide a chart is drawn, so every call says which share
of the main area the chart takes (``core.figures.style.SLOT_CHARS``: full, three fifths, half, two fifths) and its
title is wrapped for that slot at 1,024 px, the narrowest supported window (``fit_title``).
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from core.figures.style import fit_title


def chart(fig, slot: str, where=None, **kwargs):
    """``(where or st).plotly_chart(fig, **kwargs)`` with ``fig``'s title wrapped for ``slot``; what it returns.

    ``fig`` is not changed (a cached figure stays as cached): the chart gets its plain form with the new title,
    made once here (``st.plotly_chart`` asks for ``to_dict()``, as ``webui.cached.frozen``)."""
    plain = fig.to_dict()
    fitted = {**plain, "layout": fit_title(plain.get("layout") or {}, slot)}
    shown = go.Figure()
    shown.to_dict = lambda: fitted  # plotly lets a known attribute be set; the instance's wins over the class's
    return (where or st).plotly_chart(shown, **kwargs)
