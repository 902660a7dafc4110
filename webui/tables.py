"""Tables as the pages show them: money columns written by ``core.i18n.usd``, the one money format (Streamlit's
own ``format="dollar"`` writes ``$853,064,232.00`` beside ``$853 M`` on the cards)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.i18n import in_currency, usd


def money(frame: pd.DataFrame | list[dict], columns) -> pd.DataFrame:
    """A copy of ``frame`` with each of ``columns`` (those present) as ``usd`` text; missing values stay empty."""
    out = pd.DataFrame(frame).copy()
    for column in columns:
        if column in out.columns:
            out[column] = [usd(v) if v is not None and not pd.isna(v) else "" for v in out[column]]
    return out


def money_column(label: str | None = None, **kwargs) -> st.column_config.TextColumn:
    """The column config of a money column made by :func:`money` (text, right-aligned like numbers); ``label``
    (the column's header, naming US dollars: ``Capex [USD]``) is shown in the session's currency (``Capex [CNY]``,
    ``core.i18n.in_currency``)."""
    return st.column_config.TextColumn(in_currency(label) if label else label, **kwargs)
