"""Tables as the pages show them: money columns written by ``core.i18n.usd``, the one money format (Streamlit's
own ``format="dollar"`` writes ``$853,064,232.00`` beside ``$853 M`` on the cards)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.figures.style import text_width
from core.i18n import in_currency, usd

CHAR_PX = 8.5
"""Width of a Latin character (a digit, "$", ",") in the data grid's 14 px font [px]; a CJK character is two."""
CELL_PADDING_PX = 28
"""A cell's padding and the header's sort-arrow room together [px]."""
MAX_FIT_PX = 320
"""The widest a column fitted to its values gets [px]."""


def money(frame: pd.DataFrame | list[dict], columns) -> pd.DataFrame:
    """A copy of ``frame`` with each of ``columns`` (those present) as ``usd`` text; missing values stay empty."""
    out = pd.DataFrame(frame).copy()
    for column in columns:
        if column in out.columns:
            out[column] = [usd(v) if v is not None and not pd.isna(v) else "" for v in out[column]]
    return out


def fitting_width(values, label: str | None = None) -> int:
    """Pixels a column needs to show its widest value (and its header) whole, at most ``MAX_FIT_PX``: the grid
    sizes a column by its first rows only, so a larger total further down was cut ("$79,891,4...")."""
    widest = max([text_width(str(v)) for v in values] + [text_width(label or "")], default=0)
    return int(min(MAX_FIT_PX, widest * CHAR_PX + CELL_PADDING_PX))


def money_column(label: str | None = None, values=None, **kwargs) -> st.column_config.TextColumn:
    """The column config of a money column made by :func:`money` (text, right-aligned like numbers); ``label``
    (the column's header, naming US dollars: ``Capex [USD]``) is shown in the session's currency (``Capex [CNY]``,
    ``core.i18n.in_currency``); with ``values`` (the column's texts) it is as wide as its widest value
    (``fitting_width``)."""
    shown = in_currency(label) if label else label
    if values is not None and "width" not in kwargs:
        kwargs["width"] = fitting_width(values, shown)
    return st.column_config.TextColumn(shown, **kwargs)
