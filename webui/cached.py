"""Cached engine results and figures, keyed by the design's JSON (so one slider move redoes only what changed).

Figures are built by ``core.figures`` (pure); this module only memoises them
for the Streamlit process. ``cache_resource`` hands back the same object
without copying; nothing here mutates what it returns.

Everything here holds text in a language, so every cached function takes ``language`` (the caller
passes ``core.i18n.current()``): it is part of the cache key and the body runs in that language.
"""

from __future__ import annotations

import io
import re

import pandas as pd
import streamlit as st

from core import figures
from core import i18n
from core.i18n import N_, _, language as speaking
from core.fabric.bandwidth import tier_capacities_gbits
from core.fabric.sizing import ROLE_LABELS
from core.catalog import PRICE_BASIS_LABELS, load_catalog
from core.cost import CATEGORY_LABELS
from core.design import Design
from core.plan import plan
from core.analysis.whatif import oversubscription_sweep, sweep_display_table

SELECTED = "_fp_selected"
CATALOG = load_catalog()


def _plan(key: str):
    return plan(Design.model_validate_json(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def topology(key: str, selected: str | None, unit: str, language: str):
    """(figure, aggregated?, drawn elements) of the topology diagram."""
    with speaking(language):
        p = _plan(key)
        fig = figures.topology_figure(p, selected=selected, unit=unit)
        aggregated = figures.is_aggregated(p)
        return fig, aggregated, figures.count_drawn_elements(fig)


def on_topology_select(key: str) -> None:
    """Remember the clicked switch (its vertex id is the point's customdata) for this design."""
    event = st.session_state.get("topology_chart") or {}
    points = (event.get("selection") or {}).get("points") or []
    for point in points:
        vertex = point.get("customdata")
        if isinstance(vertex, list):
            vertex = vertex[0] if vertex else None
        if isinstance(vertex, str) and not vertex.startswith("servers"):
            st.session_state[SELECTED] = (key, vertex, _vertex_label(key, vertex))
            return
    st.session_state.pop(SELECTED, None)


def _vertex_label(key: str, vertex: str) -> str:
    graph, _aggregated = figures.topology_graph(_plan(key))
    data = graph.nodes.get(vertex, {})
    return figures.vertex_name(graph, vertex) if data else vertex


def vertex_label(key: str, vertex: str, language: str) -> str:
    """The clicked switch's name in ``language`` (the page shows it; the callback's copy may be in another)."""
    with speaking(language):
        return _vertex_label(key, vertex)


@st.cache_resource(max_entries=64, show_spinner=False)
def scaleup(key: str, unit: str, language: str):
    with speaking(language):
        return figures.scaleup_figure(_plan(key), unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def bandwidth_hierarchy(key: str, unit: str, language: str):
    with speaking(language):
        return figures.bandwidth_hierarchy_figure(_plan(key), unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def tier_capacity(key: str, unit: str, language: str):
    with speaking(language):
        p = _plan(key)
        return figures.tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric), unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def sweep(key: str, language: str) -> pd.DataFrame:
    """The oversubscription what-if (its ``note`` column holds the engine's messages, in ``language``)."""
    with speaking(language):
        return oversubscription_sweep(Design.model_validate_json(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def oversubscription(key: str, unit: str, language: str):
    with speaking(language):
        return figures.oversubscription_figure(sweep(key, language), Design.model_validate_json(key).oversubscription,
                                               unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def sweep_table(key: str, unit: str, language: str) -> pd.DataFrame:
    with speaking(language):
        return sweep_display_table(sweep(key, language), unit)


SWITCH_GROUP_COLUMNS = (N_("role"), N_("switches per plane"), N_("down ports"), N_("up ports"), N_("free ports"),
                        N_("radix"), N_("cabling"))
"""Headers of the Designer's switch-group table (English, translated where the table is built)."""


@st.cache_resource(max_entries=64, show_spinner=False)
def switch_groups(key: str, language: str) -> pd.DataFrame:
    """One row per switch group: role, count per plane, ports used, radix and cabling; headers in ``language``."""
    with speaking(language):
        p = _plan(key)
        role, count, down, up, free, radix, cabling = (_(c) for c in SWITCH_GROUP_COLUMNS)
        return pd.DataFrame([
            {role: _(ROLE_LABELS.get(g.role, g.role)), count: g.count, down: g.down_ports_used, up: g.up_ports_used,
             free: g.ports_free, radix: g.radix, cabling: g.description}
            for g in p.fabric.switch_groups
        ])


@st.cache_resource(max_entries=64, show_spinner=False)
def capex(key: str, language: str):
    with speaking(language):
        return figures.capex_figure(_plan(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def power(key: str, language: str):
    with speaking(language):
        return figures.power_figure(_plan(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def bom(key: str, language: str) -> pd.DataFrame:
    with speaking(language):
        return _plan(key).bom_frame()


BOM_COLUMNS = ["category", "item", "where", "quantity", "unit_price_usd", "extended_price_usd", "why",
               "unit_power_w", "extended_power_w", "price_basis", "catalog_id"]


def category_label(category: str) -> str:
    """A BOM category in the current language (``compute`` -> 计算)."""
    return _(CATEGORY_LABELS[category]) if category in CATEGORY_LABELS else category


def price_basis_label(basis: str) -> str:
    """A price basis in the current language (``estimate`` -> 估算)."""
    return _(PRICE_BASIS_LABELS[basis]) if basis in PRICE_BASIS_LABELS else basis


_END_WORDS = re.compile(r"(,\s*)?\b(?:XDR |NDR )?(?:switch|NIC) end\b")


def bom_item_name(name: str) -> str:
    """A catalog name without its "switch end" / "NIC end" words: the BOM's ``where`` column says which
    end a row is for (a module sold for the switch end can sit in a node's twin-port cage)."""
    text = _END_WORDS.sub("", name)
    text = re.sub(r"\(\s*,\s*", "(", text)
    text = re.sub(r"\(\s*\)", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


@st.cache_resource(max_entries=64, show_spinner=False)
def bom_table(key: str, language: str) -> pd.DataFrame:
    """The BOM as the Designer shows it: what, where, how many and the price first; ids and power last.

    The engine's item text is the catalog name plus where the row sits (``(leaf)``, ``(switch side,
    node-leaf)``, ``(node side)``); that suffix becomes the ``where`` column. The columns keep their
    ids (the page labels them); category and price basis are shown in ``language``.
    """
    with speaking(language):
        frame = bom(key, language).copy()
        names = {e.id: e.name for _entry_kind, e in CATALOG.all_entries()}
        items, wheres = [], []
        for item, catalog_id in zip(frame["item"], frame["catalog_id"]):
            name = names.get(catalog_id, "")
            where = item[len(name):].strip() if name and item.startswith(name) else ""
            items.append(bom_item_name(name) if where else item)
            wheres.append(where[1:-1].strip() if where[:1] in "(（" and where[-1:] in ")）" and where else where)
        frame["item"] = items
        frame["where"] = wheres
        frame["category"] = [category_label(c) for c in frame["category"]]
        frame["price_basis"] = [price_basis_label(b) for b in frame["price_basis"]]
        return frame[BOM_COLUMNS]


@st.cache_data(max_entries=16, show_spinner=False)
def bom_csv(key: str, language: str) -> str:
    """The BOM download as CSV: column names and keys (category, price basis) stay as the engine writes them,
    for scripts; the item and why texts are in ``language``."""
    return bom(key, language).to_csv(index=False)


@st.cache_data(max_entries=16, show_spinner=False)
def reserved_table(key: str, language: str) -> pd.DataFrame:
    """What growth to ``grow_to`` still buys (``Plan.reserved_bom``), as the Designer shows it; empty without it."""
    with speaking(language):
        rows = _plan(key).reserved_bom
        return pd.DataFrame([{
            "category": category_label(r.category), "item": r.item, "quantity": r.quantity,
            "unit_price_usd": r.unit_price_usd, "extended_price_usd": r.extended_price_usd, "why": r.why,
            "catalog_id": r.catalog_id} for r in rows], columns=["category", "item", "quantity", "unit_price_usd",
                                                                 "extended_price_usd", "why", "catalog_id"])


BOM_HEADERS = {
    "category": N_("category"), "item": N_("item"), "where": N_("where"), "quantity": N_("qty"),
    "unit_price_usd": N_("unit USD"), "extended_price_usd": N_("total USD"), "unit_power_w": N_("unit W"),
    "extended_power_w": N_("total W"), "why": N_("why (how the count was derived)"),
    "price_basis": N_("price basis"), "catalog_id": N_("catalog id"),
}
"""BOM column id -> its header for people (the Designer's table, the XLSX in other languages than English)."""


def bom_headers() -> dict[str, str]:
    return {column: _(header) for column, header in BOM_HEADERS.items()}


@st.cache_data(max_entries=16, show_spinner=False)
def bom_xlsx(key: str, language: str) -> bytes:
    """The BOM download as an XLSX workbook (a BOM and a design sheet), for people: in English the engine's
    frame with its column ids (as ``bom_csv``); in another language the Designer's table with translated
    headers, categories and price basis, and translated sheet names. The CSV stays the engine's, for scripts."""
    buffer = io.BytesIO()
    with speaking(language):
        p = _plan(key)
        english = language == i18n.DEFAULT_LANGUAGE
        frame = bom(key, language) if english else bom_table(key, language).rename(columns=bom_headers())
        with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
            frame.to_excel(writer, sheet_name="BOM" if english else _("Bill of materials")[:31], index=False)
            pd.DataFrame({_("design (JSON)"): [p.design.to_json()]}).to_excel(
                writer, sheet_name="design" if english else _("Design")[:31], index=False)
    return buffer.getvalue()
