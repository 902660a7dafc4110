"""Cached engine results and figures, keyed by the design's JSON (so one slider move redoes only what changed).

Figures are built by ``core.figures`` (pure); this module only memoises them
for the Streamlit process. ``cache_resource`` hands back the same object
without copying; nothing here mutates what it returns. A cached figure is frozen (``frozen``):
``st.plotly_chart`` asks it for its plain form on every run, made once here instead of a deep copy
each time.

Everything here holds text in a language (and money in a currency), so every cached function takes ``language``
(the caller passes ``core.i18n.locale()``, the language and the currency): it is part of the cache key and the body
runs in that language and currency.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import figures
from core.i18n import N_, _, language as speaking
from core.fabric.bandwidth import tier_capacities_gbits
from core.catalog import load_catalog
from core.cost import role_words
from core.design import Design
from core.fabric.naming import NamingScheme
from core.plan import plan
from core.analysis.whatif import oversubscription_sweep, sweep_display_table
from core.analysis.whole import whole_plan

SELECTED = "_fp_selected"
CATALOG = load_catalog()


def _plan(key: str):
    return plan(Design.model_validate_json(key))


def frozen(fig):
    """``fig``, whose ``to_dict()`` gives the plain form made now, the same dict every time (never change either).

    ``st.plotly_chart`` calls ``to_dict()`` on every run, a deep copy of every trace: about a tenth of a
    Designer rerun at 1,024 GPUs (``benchmarks/bench_load.py``), for figures that never change once cached.
    What the chart shows is the same: it is the very dict the deep copy gave."""
    plain = fig.to_dict()
    fig.to_dict = lambda: plain  # plotly lets a known attribute be set; the instance's wins over the class's
    return fig


@st.cache_resource(max_entries=64, show_spinner=False)
def topology(key: str, selected: str | None, unit: str, language: str, naming: str = ""):
    """(figure, aggregated?, drawn elements) of the topology diagram, its devices named under the exports' naming
    ``naming`` (``naming_json``; empty: the default names)."""
    with speaking(language):
        p = _plan(key)
        fig = frozen(figures.topology_figure(p, selected=selected, unit=unit, naming=scheme_of_json(naming)))
        aggregated = figures.is_aggregated(p)
        return fig, aggregated, figures.count_drawn_elements(fig)


def naming_json(plan) -> str:
    """The exports' naming scheme the session holds (the Designer's hand-off options, ``state.NAMING_STORE``)
    checked against ``plan``, as a cache key: its JSON, or empty for the default names."""
    from core.formats.linknames import scheme_of
    from webui import state

    scheme = scheme_of(st.session_state.get(state.NAMING_STORE), plan)
    return scheme.model_dump_json() if scheme is not None else ""


def scheme_of_json(naming: str):
    """The ``core.fabric.naming.NamingScheme`` of ``naming_json``'s text; None for the default names."""
    return NamingScheme.model_validate_json(naming) if naming else None


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
    """The clicked vertex's name as the drawing's hover says it (the exports' names under the session's naming)."""
    from core.figures.topology import device_names

    p = _plan(key)
    graph, _aggregated = figures.topology_graph(p)
    data = graph.nodes.get(vertex, {})
    names = device_names(p, graph, scheme_of_json(naming_json(p)))
    return figures.vertex_name(graph, vertex, names) if data else vertex


def vertex_label(key: str, vertex: str, language: str) -> str:
    """The clicked switch's name in ``language`` (the page shows it; the callback's copy may be in another)."""
    with speaking(language):
        return _vertex_label(key, vertex)


@st.cache_resource(max_entries=64, show_spinner=False)
def scaleup(key: str, unit: str, language: str):
    with speaking(language):
        return frozen(figures.scaleup_figure(_plan(key), unit=unit))


@st.cache_resource(max_entries=64, show_spinner=False)
def bandwidth_hierarchy(key: str, unit: str, language: str):
    with speaking(language):
        return frozen(figures.bandwidth_hierarchy_figure(_plan(key), unit=unit))


@st.cache_resource(max_entries=64, show_spinner=False)
def tier_capacity(key: str, unit: str, language: str):
    with speaking(language):
        p = _plan(key)
        return frozen(figures.tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric), unit=unit))


@st.cache_resource(max_entries=64, show_spinner=False)
def sweep(key: str, language: str) -> pd.DataFrame:
    """The oversubscription what-if (its ``note`` column holds the engine's messages, in ``language``)."""
    with speaking(language):
        return oversubscription_sweep(Design.model_validate_json(key))


@st.cache_resource(max_entries=64, show_spinner=False)
def oversubscription(key: str, unit: str, language: str):
    with speaking(language):
        return frozen(figures.oversubscription_figure(sweep(key, language),
                                                      Design.model_validate_json(key).oversubscription, unit=unit))


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
            {role: role_words(g.role, p.fabric.family), count: g.count, down: g.down_ports_used, up: g.up_ports_used,
             free: g.ports_free, radix: g.radix, cabling: g.description}
            for g in p.fabric.switch_groups
        ])


@st.cache_resource(max_entries=64, show_spinner=False)
def capex(key: str, language: str):
    with speaking(language):
        return frozen(figures.capex_figure(whole_plan(_plan(key))))


@st.cache_resource(max_entries=64, show_spinner=False)
def power(key: str, language: str):
    with speaking(language):
        return frozen(figures.power_figure(whole_plan(_plan(key))))


@st.cache_resource(max_entries=64, show_spinner=False)
def bom(key: str, language: str) -> pd.DataFrame:
    with speaking(language):
        return whole_plan(_plan(key)).bom_frame()


# The people's BOM table lives in core.formats.xlsx (the XLSX and the review pack use it too). It is imported where
# a BOM is drawn, not with this module: the workbook writer (openpyxl) takes about 0.07 s of CPU to import, which
# the first Designer run of a server process paid on every tab, although only Cost & power and Hand-off use it.
def bom_headers() -> dict[str, str]:
    """Column id -> its header in this run's language (``core.figures.billitems.bom_headers``)."""
    from core.figures import billitems

    return billitems.bom_headers()


@st.cache_resource(max_entries=64, show_spinner=False)
def bom_table(key: str, language: str) -> pd.DataFrame:
    """The BOM as the Designer shows it (``core.formats.xlsx.bom_table``), in ``language``."""
    from core.formats import xlsx

    with speaking(language):
        return xlsx.bom_table(whole_plan(_plan(key)))


@st.cache_data(max_entries=16, show_spinner=False)
def bom_csv(key: str, language: str) -> str:
    """The BOM download as CSV: column names and keys (category, price basis) stay as the engine writes them,
    for scripts; the item and why texts are in ``language``."""
    return bom(key, language).to_csv(index=False)


@st.cache_data(max_entries=16, show_spinner=False)
def reserved_table(key: str, language: str) -> pd.DataFrame:
    """What growth to ``grow_to`` still buys (``Plan.reserved_bom``), as the Designer shows it; empty without it."""
    from core.formats.xlsx import category_label

    with speaking(language):
        rows = _plan(key).reserved_bom
        return pd.DataFrame([{
            "category": category_label(r.category), "item": r.item, "quantity": r.quantity,
            "unit_price_usd": r.unit_price_usd, "extended_price_usd": r.extended_price_usd, "why": r.why,
            "catalog_id": r.catalog_id} for r in rows], columns=["category", "item", "quantity", "unit_price_usd",
                                                                 "extended_price_usd", "why", "catalog_id"])


@st.cache_data(max_entries=16, show_spinner=False)
def bom_xlsx(key: str, language: str, share_link: str | None = None, unit: str = "GB/s") -> bytes:
    """The review workbook (``core.formats.xlsx.design_xlsx``) in ``language``, with the design's share link,
    bandwidth in ``unit``."""
    from core.formats import xlsx

    with speaking(language):
        return xlsx.design_xlsx(whole_plan(_plan(key)), share_link=share_link, unit=unit)


@st.cache_data(max_entries=8, show_spinner=False)
def export_bytes(key: str, name: str, naming: str, language: str) -> bytes:
    """Export ``name`` (``core.formats.exports``) of the design under the naming scheme ``naming`` (its JSON),
    as UTF-8 bytes. Exports are English in every language (``core.formats.exports.FILE_LANGUAGE``); ``language``
    is the one a refusal is said in."""
    from core.formats.exports import export_text

    with speaking(language):
        return export_text(_plan(key), name, NamingScheme.model_validate_json(naming)).encode("utf-8")
