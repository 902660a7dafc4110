"""Cached engine results and figures, keyed by the design's JSON (so one slider move redoes only what changed).

Figures are built by ``core.figures`` (pure); this module only memoises them
for the Streamlit process. ``cache_resource`` hands back the same object
without copying; nothing here mutates what it returns.
"""

from __future__ import annotations

import io
import re

import pandas as pd
import streamlit as st

from core import figures
from core.fabric.bandwidth import tier_capacities_gbits
from core.catalog import load_catalog
from core.design import Design
from core.plan import plan
from core.analysis.whatif import oversubscription_sweep, sweep_display_table

SELECTED = "_fp_selected"
CATALOG = load_catalog()


def _plan(key: str):
    return plan(Design.model_validate_json(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def topology(key: str, selected: str | None, unit: str):
    """(figure, aggregated?, drawn elements) of the topology diagram."""
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
    graph, _ = figures.topology_graph(_plan(key))
    data = graph.nodes.get(vertex, {})
    return figures.vertex_name(graph, vertex) if data else vertex


@st.cache_resource(max_entries=64, show_spinner=False)
def scaleup(key: str, unit: str):
    return figures.scaleup_figure(_plan(key), unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def bandwidth_hierarchy(key: str, unit: str):
    return figures.bandwidth_hierarchy_figure(_plan(key), unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def tier_capacity(key: str, unit: str):
    p = _plan(key)
    return figures.tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric), unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def sweep(key: str) -> pd.DataFrame:
    return oversubscription_sweep(Design.model_validate_json(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def oversubscription(key: str, unit: str):
    return figures.oversubscription_figure(sweep(key), Design.model_validate_json(key).oversubscription, unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def sweep_table(key: str, unit: str) -> pd.DataFrame:
    return sweep_display_table(sweep(key), unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def switch_groups(key: str) -> pd.DataFrame:
    p = _plan(key)
    return pd.DataFrame([
        {"role": g.role, "switches per plane": g.count, "down ports": g.down_ports_used, "up ports": g.up_ports_used,
         "free ports": g.ports_free, "radix": g.radix, "cabling": g.description}
        for g in p.fabric.switch_groups
    ])


@st.cache_resource(max_entries=64, show_spinner=False)
def capex(key: str):
    return figures.capex_figure(_plan(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def power(key: str):
    return figures.power_figure(_plan(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def bom(key: str) -> pd.DataFrame:
    return _plan(key).bom_frame()


BOM_COLUMNS = ["category", "item", "where", "quantity", "unit_price_usd", "extended_price_usd", "why",
               "unit_power_w", "extended_power_w", "price_basis", "catalog_id"]
_END_WORDS = re.compile(r"(,\s*)?\b(?:XDR |NDR )?(?:switch|NIC) end\b")


def bom_item_name(name: str) -> str:
    """A catalog name without its "switch end" / "NIC end" words: the BOM's ``where`` column says which
    end a row is for (a module sold for the switch end can sit in a node's twin-port cage)."""
    text = _END_WORDS.sub("", name)
    text = re.sub(r"\(\s*,\s*", "(", text)
    text = re.sub(r"\(\s*\)", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


@st.cache_resource(max_entries=64, show_spinner=False)
def bom_table(key: str) -> pd.DataFrame:
    """The BOM as the Designer shows it: what, where, how many and the price first; ids and power last.

    The engine's item text is the catalog name plus where the row sits (``(leaf)``, ``(switch side,
    node-leaf)``, ``(node side)``); that suffix becomes the ``where`` column.
    """
    frame = bom(key).copy()
    names = {e.id: e.name for _, e in CATALOG.all_entries()}
    items, wheres = [], []
    for item, catalog_id in zip(frame["item"], frame["catalog_id"]):
        name = names.get(catalog_id, "")
        where = item[len(name):].strip() if name and item.startswith(name) else ""
        items.append(bom_item_name(name) if where else item)
        wheres.append(where.strip("()") if where.startswith("(") else where)
    frame["item"] = items
    frame["where"] = wheres
    return frame[BOM_COLUMNS]


@st.cache_data(max_entries=16, show_spinner=False)
def bom_csv(key: str) -> str:
    return bom(key).to_csv(index=False)


@st.cache_data(max_entries=16, show_spinner=False)
def bom_xlsx(key: str) -> bytes:
    buffer = io.BytesIO()
    p = _plan(key)
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        p.bom_frame().to_excel(writer, sheet_name="BOM", index=False)
        pd.DataFrame({"design (JSON)": [p.design.to_json()]}).to_excel(writer, sheet_name="design", index=False)
    return buffer.getvalue()
