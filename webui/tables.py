"""Tables as the pages show them: money columns written by ``core.i18n.usd``, the one money format (Streamlit's
own ``format="dollar"`` writes ``$853,064,232.00`` beside ``$853 M`` on the cards)."""

from __future__ import annotations

import html
import math

import pandas as pd
import streamlit as st

from core.figures.style import text_width
from core.i18n import _, in_currency, number
from core.units import money_column as money_texts

CHAR_PX = 8.5
"""Width of a digit, a capital or a sign ("$", "%") in the data grid's 14 px font [px], with a little air."""
NARROW_CHAR_PX = 6.5
"""Width of a lower-case letter, a space or punctuation in that font [px] (measured: ``cluster capex [USD]`` 112 px
of text): counted as a digit, the two-fabric table's money headers took 130 px too many and cut its last header at a
1,600 px window."""
NARROW_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz ,.;:'\"()[]-/")
WIDE_CHAR_PX = 14.0
"""Width of a CJK character in the data grid's 14 px font [px]: one em (measured: 带外管理 56 px). Counted as two
Latin characters (17 px) the By network table's five Chinese columns summed wider than the page at 1,024 px and it
said it scrolls when it did not."""
CELL_PADDING_PX = 28
"""A cell's padding and the header's sort-arrow room together [px]."""
MAX_FIT_PX = 320
"""The widest a column fitted to its values gets [px]."""


def money(frame: pd.DataFrame | list[dict], columns) -> pd.DataFrame:
    """A copy of ``frame`` with each of ``columns`` (those present) as money text, its decimals picked once per
    column (``core.units.money_column``); missing values stay empty."""
    out = pd.DataFrame(frame).copy()
    for column in columns:
        if column in out.columns:
            out[column] = [text if v is not None and not pd.isna(v) else ""
                           for v, text in zip(out[column], money_texts(list(out[column])))]
    return out


def fitting_width(values, label: str | None = None, most: float = MAX_FIT_PX) -> int:
    """Pixels a column needs to show its widest value (and its header) whole, at most ``most`` (``MAX_FIT_PX``;
    ``math.inf`` for a pinned name every row must show whole): the grid sizes a column by its first rows only, so
    a larger total further down was cut ("$79,891,4...")."""
    widest = max([text_px(str(v)) for v in values] + [text_px(label or "")], default=0)
    return int(min(most, widest + CELL_PADDING_PX))


def text_px(text: str) -> float:
    """The width of ``text`` in the data grid's font [px]: ``NARROW_CHAR_PX`` a lower-case letter, space or
    punctuation, ``WIDE_CHAR_PX`` a CJK character (``core.figures.style.text_width`` counts it two), ``CHAR_PX`` any
    other (a digit, a capital, a sign)."""
    wide = text_width(text) - len(text)  # the CJK characters
    narrow = sum(char in NARROW_CHARS for char in text)
    return narrow * NARROW_CHAR_PX + wide * WIDE_CHAR_PX + (len(text) - wide - narrow) * CHAR_PX


def money_column(label: str | None = None, values=None, **kwargs) -> st.column_config.TextColumn:
    """The column config of a money column made by :func:`money` (text, right-aligned like numbers); ``label``
    (the column's header, naming US dollars: ``Capex [USD]``) is shown in the session's currency (``Capex [CNY]``,
    ``core.i18n.in_currency``); with ``values`` (the column's texts) it is as wide as its widest value
    (``fitting_width``)."""
    shown = in_currency(label) if label else label
    if values is not None and "width" not in kwargs:
        kwargs["width"] = fitting_width(values, shown)
    return st.column_config.TextColumn(shown, **kwargs)


def _cell(value) -> str:
    """A value of a turned table as text: numbers as ``core.i18n.number`` writes them (a float with one decimal
    unless whole), missing values empty, text as it is."""
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return number(value) if float(value).is_integer() else number(value, 1)


def turned(rows: list[dict], key: str) -> pd.DataFrame:
    """``rows`` (one dict per item: a pod, a pool, a design) a quarter turned: one column per item, headed by its
    ``key`` value, and one row per other field, named in the first column (headed ``key``); values as text
    (``_cell``: a column now holds several kinds). A table of a few items and many fields stays as narrow as the
    items are few: thirteen fields across cut the last columns off at 1,024 px ("Uplinks per s…") without a hint
    that the table scrolls. Show it with ``hide_index=True``."""
    frame = pd.DataFrame(rows)
    items = [str(v) for v in frame[key]]
    body = frame.drop(columns=[key]).map(_cell).T
    body.columns = items
    body.insert(0, key, list(body.index))
    return body.reset_index(drop=True)


def show_turned(rows: list[dict], key: str, container=None, fit: bool = False) -> None:
    """``rows`` drawn as ``turned`` makes them: the field names pinned on the left as wide as the longest, each
    item's column right-aligned like numbers, every row shown (the grid's default height hid the last ones)
    (``container``: where, default the page; ``fit``: each item's column as wide as its widest value,
    ``fitting_width``, for texts longer than the header the grid sizes it by: a serving split was cut)."""
    frame = turned(rows, key)
    config = {key: st.column_config.TextColumn(key, pinned=True, width=fitting_width(frame[key], key))}
    config.update({column: st.column_config.TextColumn(
        column, alignment="right", **({"width": fitting_width(frame[column], str(column))} if fit else {}))
        for column in frame.columns[1:]})
    where = container or st
    where.dataframe(frame, hide_index=True, width="stretch", column_config=config, height=ROW_PX * (len(frame) + 1) + 3)
    if scrolls_at_1024(frame):  # measured: two designs of long names beside long field names scrolled too
        say_it_scrolls(where, table_px(frame))


def say_it_scrolls(where=None, table_width: float | None = None) -> None:
    """The caption under a table that scrolls sideways in a 1,024 px window (``where``: the container, default
    the page), shown only while the page is narrower than the table (``table_width`` [px], ``table_px``; a CSS
    container query on the page's width, ``PAGE_CONTAINER_CSS``): in a wider window the table fits and the caption
    would say what does not happen. None: shown at every width."""
    text = _("In a narrow window the table scrolls sideways to its last columns.")
    if table_width is None:
        (where or st).caption(text)
        return
    fits = math.ceil(table_width) + GRID_BORDER_PX  # the page's width from which the grid shows every column
    tag = f"fp-scrolls-{fits}"
    (where or st).caption(f'<style>@container {PAGE_CONTAINER} (min-width: {fits}px) {{ '
                          f'[data-testid="stElementContainer"]:has(.{tag}) {{ display: none; }} }}</style>'
                          f'<span class="{tag}">{html.escape(text)}</span>', unsafe_allow_html=True)


def table_px(frame: pd.DataFrame) -> float:
    """The width of ``frame``'s columns together, each as wide as its header and widest value (``fitting_width``)
    [px] (measured in Chromium: the Inference page's comparisons, 676 and 987 px, as the grid draws them)."""
    return sum(fitting_width(frame[c], str(c)) for c in frame.columns)


def scrolls_at_1024(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` is wider (``table_px``) than the page at a 1,024 px window (``PAGE_PX_AT_1024``): the grid
    then scrolls sideways."""
    return table_px(frame) > PAGE_PX_AT_1024


def show_wide(frame: pd.DataFrame, where=None, **kwargs) -> None:
    """``frame`` as ``st.dataframe(frame, **kwargs)`` draws it (``where``: the container, default the page), and
    under it ``say_it_scrolls`` when it scrolls at 1,024 px (``scrolls_at_1024``): nine columns of cable lengths
    and media ran off the page there without a hint."""
    (where or st).dataframe(frame, **kwargs)
    if scrolls_at_1024(frame):
        say_it_scrolls(where, table_px(frame))


PAGE_PX_AT_1024 = 564
"""Width of the page's content in a 1,024 px window with the sidebar open [px] (measured: the main block 724 px
less its 80 px padding on each side)."""
ROW_PX = 35
"""Height of a data grid row, the header's too [px]."""
GRID_BORDER_PX = 2
"""The data grid's border, left and right together [px] (measured: a 564 px page holds a 562 px grid)."""
PAGE_CONTAINER = "fp-page"
"""The CSS container name of the page's main block (``PAGE_CONTAINER_CSS``)."""
PAGE_CONTAINER_CSS = ('[data-testid="stMainBlockContainer"] {container-type: inline-size; container-name: '
                      + PAGE_CONTAINER + ';} ')
"""The page's main block as a CSS size container (app.py's style), so a caption can show only while the page is
narrower than its table (``say_it_scrolls``): a media query sees the window, not whether the sidebar is open."""
