"""Wide tables that show what matters at a 1,024 px window: the important columns first and narrow enough that
together they fit the main area (``MAIN_PX``) without scrolling sideways; a short header carries its full words
in its tooltip. The other columns follow, a sideways scroll away. Widths are the data grid's (``webui.tables``:
``CHAR_PX`` a character, ``CELL_PADDING_PX`` a cell's padding; ``small`` / ``medium`` / ``large`` as Streamlit
draws them)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from core import vocab
from core.i18n import N_, _, embedded, in_currency
from webui import tables

MAIN_PX = tables.PAGE_PX_AT_1024
"""The main area's width at a 1,024 px window with the sidebar open [px]."""
MAIN_PX_AT_1280 = MAIN_PX + 1280 - 1024
"""The main area's width at a 1,280 px window [px]: the sidebar keeps its width, the main area takes the rest."""
NAMED_PX = {"small": 75, "medium": 200, "large": 400}
"""Streamlit's named column widths [px]."""
HEADER_CHARS = 16
"""The longest short header [``core.figures.style.text_width``, a CJK character two]."""


def column_px(values, config: dict | None, name: str) -> int:
    """The width a column is drawn at [px]: its configured width, else as wide as its header and widest value
    (``webui.tables.fitting_width``)."""
    config = config or {}
    width = config.get("width")
    if isinstance(width, int):
        return width
    if width in NAMED_PX:
        return NAMED_PX[width]
    return tables.fitting_width(values, config.get("label") or name)


def leading_px(frame: pd.DataFrame, config: dict, columns) -> int:
    """The width the ``columns`` of ``frame`` take side by side [px] (``column_px`` each)."""
    return sum(column_px(frame[c].tolist(), config.get(c), c) for c in columns)


def order(frame: pd.DataFrame, first) -> list[str]:
    """``frame``'s columns with ``first`` (those present) leading, the others after them in their order."""
    lead = [c for c in first if c in frame.columns]
    return lead + [c for c in frame.columns if c not in lead]


# --- the bill of materials ------------------------------------------------------------------------------

BOM_FIRST = ("item", "where", "quantity", "extended_price_usd")
"""The BOM columns a reader needs at a glance, in this order (ids of ``core.figures.billitems.BOM_HEADERS``); the unit
price follows them, then the category and the rest."""
BOM_PX = {"item": 190, "where": 140, "where_beside_pod": 110}
"""The BOM's text columns that would take the window [px]: the part's name and where it sits, cut to fit (whole in
the cell's tooltip and the downloads); where narrower beside the pod column of a design with pods (75 px)."""
BOM_WHY_PX = MAIN_PX - BOM_PX["item"]
"""The why column's width [px]: beside the item column, which stays pinned at the left, it fits the main area at a
1,024 px window, so a sideways scroll shows a row's name and its whole count's words together."""
WRAP_MIN_PX = 65
"""The data grid wraps a cell's text only in rows taller than 4rem (64 px) [px] (Streamlit's ``isWrappingAllowed``)."""
LINE_PX = 20
"""A wrapped line of the grid's 14 px font [px]."""
ROW_PAD_PX = 16
"""A wrapped cell's padding above and below its lines together [px]."""
MOST_LINES = 6
"""The most lines a row is drawn tall for; a longer why reads whole in its tooltip and the downloads."""
ROWS_IN_VIEW = 8
"""Rows a wrapped table shows before it scrolls (the grid's own height shows three of its tall rows)."""


def bom_columns(bom: pd.DataFrame, header: dict[str, str], col) -> tuple[list[str], dict]:
    """(column order, column configuration) of the Designer's BOM table: ``BOM_FIRST`` leading within ``MAIN_PX``,
    category and the rest after. ``header``: column id -> its header (``bom_headers``); ``col``: column id -> the
    frame's column (the id in English, the header in other languages)."""
    money = ("unit_price_usd", "extended_price_usd")
    config = {
        col("category"): st.column_config.TextColumn(  # whole: a wrapped row would break "transceiver" in two
            header["category"], width=tables.fitting_width(bom[col("category")], header["category"])),
        col("item"): st.column_config.TextColumn(header["item"], width=BOM_PX["item"], pinned=True),
        col("where"): st.column_config.TextColumn(
            header["where"], width=BOM_PX["where_beside_pod" if col("pod") in bom.columns else "where"],
            help=_("Switch role, or the link end and link class a transceiver or cable serves")),
        col("pod"): st.column_config.TextColumn(
            header["pod"], width="small", help=_("The pod whose devices the row buys; shared: the shared layer")),
        col("quantity"): st.column_config.NumberColumn(header["quantity"], format="localized"),
        **{col(c): tables.money_column(header[c], bom[col(c)]) for c in money if col(c) in bom.columns},
        col("unit_power_w"): st.column_config.NumberColumn(header["unit_power_w"], format="localized"),
        col("extended_power_w"): st.column_config.NumberColumn(header["extended_power_w"], format="localized"),
        col("why"): st.column_config.TextColumn(header["why"], width=BOM_WHY_PX),
        col("price_basis"): st.column_config.TextColumn(header["price_basis"]),
        col("catalog_id"): st.column_config.TextColumn(header["catalog_id"]),
    }
    first = [col(c) for c in (*BOM_FIRST[:2], "pod", *BOM_FIRST[2:], "unit_price_usd", "category")]  # pods: whose
    return order(bom, first), {c: v for c, v in config.items() if c in bom.columns}


def wrapped_row_px(texts, width: int) -> int:
    """The row height [px] that shows the longest of ``texts`` whole in a column ``width`` px wide, its words wrapped
    (``tables.text_px`` counts a little wide, room for the line ends a word does not fill), at most ``MOST_LINES``
    lines and at least
    ``WRAP_MIN_PX`` (below it the grid draws one cut line): the BOM's why (``BOM_WHY_PX``), whose split rows' "of
    which ..." part was cut off."""
    usable = width - tables.CELL_PADDING_PX
    lines = max([math.ceil(tables.text_px(str(t)) / usable) for t in texts] + [1])
    return max(WRAP_MIN_PX, min(MOST_LINES, lines) * LINE_PX + ROW_PAD_PX)


def wrapped_table_px(rows: int, row_px: int) -> int:
    """The height of a table of ``rows`` rows of ``row_px`` [px] (``wrapped_row_px``) that shows ``ROWS_IN_VIEW`` of
    them and its header [px] (all of them when fewer)."""
    return tables.ROW_PX + min(rows, ROWS_IN_VIEW) * row_px + 3


# --- the Catalog page's price book ------------------------------------------------------------------------

PRICE_BOOK_FIRST = ("id", "low_usd", "typical_usd", "high_usd")
"""The price book's columns a buyer reads first (ids of the Catalog page's ``PRICE_BOOK_COLUMNS``): the part and its
whole range, low to high; the kind, name, basis and sources follow. The name led before the prices, as wide as
the longest name: the high end was cut off at a 1,280 px window."""


def price_book_columns(book: pd.DataFrame, col, money) -> tuple[list[str], dict]:
    """(column order, column configuration) of the price book ``book`` (prices as ``tables.money`` text):
    ``PRICE_BOOK_FIRST`` leading within ``MAIN_PX``, the id pinned and whole, each price as wide as its widest
    value. ``col``: column id -> the frame's column (the id in English, the header in other languages); ``money``:
    price column id -> its header naming US dollars (``low [USD]``, shown in the session's currency)."""
    config = {col("id"): st.column_config.TextColumn(col("id"), pinned=True,
                                                     width=tables.fitting_width(book[col("id")], col("id"))),
              **{col(c): tables.money_column(label, book[col(c)].tolist()) for c, label in money.items()},
              col("price_source"): st.column_config.TextColumn(col("price_source"), width="large")}
    return order(book, [col(c) for c in PRICE_BOOK_FIRST]), config


# --- the Sweep page's points ------------------------------------------------------------------------------

def sweep_points_columns(frame: pd.DataFrame, reason: str) -> tuple[dict, int | None]:
    """(column configuration, row height [px] or None) of the Sweep page's table: its ``reason`` column (the
    frame's header, last) takes what the columns before it leave of ``MAIN_PX`` (at least Streamlit's ``medium``)
    and wraps there, its rows tall enough for the longest reason (``wrapped_row_px``), so a reason reads whole at a
    1,024 px window instead of running past the window's edge; ({}, None) without that column."""
    if reason not in frame.columns:
        return {}, None
    before = [c for c in frame.columns if c != reason]
    width = max(NAMED_PX["medium"], MAIN_PX - leading_px(frame, {}, before))
    return {reason: st.column_config.TextColumn(reason, width=width)}, wrapped_row_px(frame[reason], width)


# --- the oversubscription what-if -------------------------------------------------------------------------

SWEEP_SHORT = {
    "leaf oversubscription": (N_("leaf ratio"), N_("Leaf oversubscription, down:up")),
    "bisection ratio": (N_("bisection ratio"), N_("Bisection ratio end to end (half the injection over the bisection) "
                                                  "of this design planned at that leaf ratio")),
    "cross-fabric per GPU [{unit}]": (N_("per GPU [{unit}]"),
                                      N_("Cross-fabric bandwidth per GPU, one direction, with this design planned at that ratio")),
    "{fabric} capex per GPU [USD]": (N_("fabric/GPU [USD]"), N_("Compute fabric capex per GPU")),
    "switches": (N_("switches"), None),
    "bisection [{unit}]": (N_("bisection [{unit}]"), N_("Bisection bandwidth, one direction")),
}
"""The what-if table's (``core.analysis.whatif.sweep_display_table``) leading columns, by their header's English
text: (short header, its words in the tooltip). In this order; the note comes after the first ``SWEEP_IN_VIEW``
of them, the others (buildable, tiers) follow."""
SWEEP_IN_VIEW = 4
"""The what-if's leading columns that fit ``MAIN_PX`` whole (the leaf ratio and the bisection ratio it builds,
bandwidth and cost per GPU); the note follows them, whole at a 1,280 px window (``MAIN_PX_AT_1280``: it says why a
ratio cell reads ``1.5:1 → 1.44:1``), then the switches and the bisection."""


def sweep_columns(frame: pd.DataFrame, unit: str) -> tuple[list[str], dict]:
    """(column order, column configuration) of the Bandwidth tab's oversubscription what-if table in ``unit``
    (``GB/s`` or ``Gb/s``; the bisection in the prefix its largest value picks)."""
    # the bisection column's unit is the table's own (``whatif.bisection_scale``, from its largest value)
    bisection = next((u for u in (f"{p}{unit[1]}/s" for p in "GTP")
                      if _("bisection [{unit}]").format(unit=u) in frame.columns), f"T{unit[1]}/s")
    units = {"cross-fabric per GPU [{unit}]": unit, "bisection [{unit}]": bisection}
    config, first = {}, []
    for english, (short, words) in SWEEP_SHORT.items():
        shown = units.get(english, "")
        names = {in_currency(_(english).format(unit=shown, fabric=embedded(vocab.compute_fabric("word", level2)))): level2
                 for level2 in (False, True)}  # the capex's name as whatif.capex_fabric gave the header
        full = next((name for name in names if name in frame.columns), None)
        if full is None:
            continue
        label, tip = _(short).format(unit=shown), _(words) if words else None
        if names[full] and words:  # the tooltip names what the header names: NVLink level 2 too
            tip = full
        partly = len(first) >= SWEEP_IN_VIEW  # after the note, partly in view at 1,280 px: its numbers at its left
        config[full] = (tables.money_column(label, frame[full].tolist(), help=tip) if "USD" in english else
                        st.column_config.Column(label, help=tip, width=tables.fitting_width(frame[full].tolist(), label),
                                                alignment="left" if partly else None))
        first.append(full)
    note = _("note")
    if note in frame.columns:
        config[note] = st.column_config.TextColumn(note, width=tables.fitting_width(frame[note].tolist(), note))
        first.insert(SWEEP_IN_VIEW, note)
    return order(frame, first), config


# --- cable lengths and media ------------------------------------------------------------------------------

MEDIA_FIRST = ("Link class", "Length", "Links", "Media", "Longest [m]")
"""The Racks tab's cable table (``webui.physical_tab``) columns a buyer needs first, by their header's English text:
which links, how long, how many, on what; the mean, route, part and reach follow."""
MEDIA_SHORT = {"Longest [m]": (N_("Max [m]"), N_("The longest link of the bin, slack included [m]"))}
"""Its headers shortened to fit (short header, the full words in the tooltip)."""


def media_columns(frame: pd.DataFrame) -> tuple[list[str], dict]:
    """(column order, column configuration) of the cable lengths and media table, headers in the current
    language: ``MEDIA_FIRST`` leading within ``MAIN_PX``, links with separators, lengths as text in the one length
    format (``core.units.metres``, as the review pack and the bill's words write them)."""
    config = {_("Links"): st.column_config.NumberColumn(format="localized")}  # 2,048 links, as on every page
    for english, (short, words) in MEDIA_SHORT.items():
        config[_(english)] = st.column_config.TextColumn(_(short), help=_(words))
    return order(frame, [_(c) for c in MEDIA_FIRST]), config


# --- the training step's communication --------------------------------------------------------------------

COMM_FIRST = ("parallelism", "exposed [s]", "time [s]", "hidden")
"""The Performance page's communication table (``core.perf.jobform.COMMUNICATION_COLUMNS``) columns that say where
the step's time goes, first: which parallelism's traffic, its time not hidden behind compute, its time and the share
hidden; the collective follows (partly in view), then the group, calls, volume, algorithm and level."""
COMM_COLLECTIVE_PX = 190
"""The collective's width [px]: ``all-gather + reduce-scatter`` cut to fit (whole in the cell's tooltip)."""
SECONDS_SHOWN = "0.0000"
"""The widest time the grid shows in the table [s] (four decimals)."""


def comm_columns(frame: pd.DataFrame) -> tuple[list[str], dict]:
    """(column order, column configuration) of the training step's communication table, headers in the current
    language: ``COMM_FIRST`` leading within ``MAIN_PX``, the times as wide as four decimals."""
    config = {_("collective"): st.column_config.TextColumn(_("collective"), width=COMM_COLLECTIVE_PX)}
    for seconds in ("exposed [s]", "time [s]"):
        label = _(seconds)
        config[label] = st.column_config.Column(label, width=tables.fitting_width([SECONDS_SHOWN], label))
    return order(frame, [_(c) for c in (*COMM_FIRST, "collective")]), config


# --- the same job on two fabrics ---------------------------------------------------------------------------

FABRICS_FIRST = ("fabric", "days", "run cost [USD]", "step [s]", "tokens/s")
"""The Performance page's two-fabric table (``core.perf.jobform.COMPARISON_COLUMNS``) columns that answer "which
fabric, how long, how much" first: the fabric, days to train, the run's cost and the step; tokens/s follows (partly
in view), then the switch, routing, communication share, the cluster's capex and the compute fabric's share."""
FABRICS_LABEL_PX = 190
"""The fabric's width [px]: ``This design (InfiniBand, 1:1)`` cut to fit (whole in the cell's tooltip)."""


def fabrics_columns(frame: pd.DataFrame, money_columns, number_columns) -> tuple[list[str], dict]:
    """(column order, column configuration) of the two-fabric table, headers in the current language:
    ``FABRICS_FIRST`` leading within ``MAIN_PX``; ``money_columns`` (headers, as ``webui.tables.money`` made them)
    as money, ``number_columns`` (headers) as localized numbers."""
    config = {_("fabric"): st.column_config.TextColumn(_("fabric"), width=FABRICS_LABEL_PX)}
    for label in number_columns:
        config[label] = (tables.money_column(label, frame[label].tolist()) if label in money_columns
                         else st.column_config.NumberColumn(label, format="localized"))
    return order(frame, [_(c) for c in FABRICS_FIRST]), config


# --- a row of labelled inputs ------------------------------------------------------------------------------

FORM_PX = MAIN_PX - 32
"""The inside of a bordered form at a 1,024 px window [px]: ``MAIN_PX`` less its border and padding, 16 px a side."""
COLUMN_GAP_PX = 16
"""The gap between two of Streamlit's columns (``gap="small"``, 1 rem) [px]."""
HELP_ICON_PX = 26
"""A widget label's help icon and the space before it [px]."""
INPUT_MIN_PX = 124
"""The narrowest a number input shows its value and its - + buttons (at 112 px it drops them) [px]."""


def label_px(label: str, helped: bool = False) -> float:
    """The width a widget's ``label`` takes on one line [px] (``webui.tables.text_px``, a help icon's room when
    ``helped``), at least ``INPUT_MIN_PX``."""
    return max(INPUT_MIN_PX, tables.text_px(label) + (HELP_ICON_PX if helped else 0))


def row_px(labels: list[tuple]) -> list[float]:
    """The widths [px] ``input_columns`` gives a row of inputs' columns in proportion: per ``(label, helped)`` or
    ``(label, helped, least)`` its ``label_px``, at least ``least`` [px] (a select box of long names)."""
    return [max([label_px(item[0], item[1]), *item[2:]]) for item in labels]


def input_columns(labels: list[tuple]) -> list:
    """Streamlit columns for a row of inputs, one per ``(label, helped[, least])`` in the current language, each as
    wide as its label in proportion (``row_px``): a row whose widths and gaps together fit ``FORM_PX`` keeps every
    label on one line at a 1,024 px window, and so at any wider one (four equal columns wrapped "Max.
    oversubscription (x:1)" on three lines and "预算，整个集群 [美元]" on two)."""
    return st.columns(row_px(labels))


TEXT_PADDING_PX = 24
"""A text input's padding, left and right together [px]."""


def share_px(weights: list[float], index: int, width: float = MAIN_PX) -> float:
    """The width [px] of the column ``index`` of ``st.columns(weights)`` in an area ``width`` px wide (default the
    main area at a 1,024 px window): its share of the width the gaps leave."""
    return (width - COLUMN_GAP_PX * (len(weights) - 1)) * weights[index] / sum(weights)


def fitting_examples(examples: list[str], width: float) -> str:
    """``examples`` joined by commas, as many as a text input ``width`` px wide shows whole (the first always): its
    placeholder of four names was cut mid-name at 1,280 px ("..., pod1-gpu006 nvswitc"), which reads as a name."""
    shown = examples[:1]
    for example in examples[1:]:
        if tables.text_px(", ".join([*shown, example])) > width - TEXT_PADDING_PX:
            break
        shown.append(example)
    return ", ".join(shown)
