"""Cached engine results and figures of the Resilience page (pages/6_Resilience.py), keyed by the design's
JSON, the page's settings and the language (the results hold translated notes), as ``webui.cached`` does
for the Designer. Nothing here mutates what it returns."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from core.analysis import availability as avail
from core.analysis import failure, load, sparing, spof
from core.design import Design
from core.figures import resilience as figs
from core.figures.topology import element_name
from core import units
from core.units import from_tbits
from core.fabric.sizing import ROLE_LABELS
from core.i18n import N_, _, language as speaking
from core.errors import FabricPlannerError
from core.plan import plan
from webui import jobs, jobwork, safe



def _plan(key: str):
    return plan(Design.model_validate_json(key))


def trials_for(gpus: int) -> int:
    """The availability's trials (``core.analysis.availability.shown_trials``: the review pack shows the same)."""
    return avail.shown_trials(gpus)


def outcome(kind: str, fn, *args) -> tuple[bool, object]:
    """``(True, value)`` of the engine's ``fn(*args)`` (``webui.jobwork``) run as a job of ``kind``
    (``webui.jobs``), or ``(False, None)`` while it runs or when it stopped (the page then says so); an engine
    error is shown here and counts as not finished."""
    finished, value = jobs.result(kind, json.dumps([fn.__name__, args]), fn, *args)
    if finished and isinstance(value, FabricPlannerError):
        st.error(safe.error_text(value))
        return False, None
    return finished, value


def what_if(key: str, failures: tuple[str, ...], settings_json: str | None, naming: str = ""):
    """(finished, ``FailureResult``) of the Performance page's job (its step time and days too); its notes under the
    naming scheme ``naming`` (JSON; "": the default names)."""
    return outcome("failure", jobwork.what_if, key, tuple(failures), settings_json, naming)


@st.cache_resource(max_entries=64, show_spinner=False)
def topology(key: str, failed: tuple[str, ...], unit: str, language: str, _result=None, naming: str = ""):
    """(figure with failed elements marked, failed vertex ids, aggregated?); ``_result`` is the what-if of
    ``failed`` (None when nothing failed); its devices named under the exports' naming ``naming``
    (``webui.cached.naming_json``; empty: the default names)."""
    from webui.cached import scheme_of_json

    with speaking(language):
        p = _plan(key)
        result = _result if failed else None
        vertices = figs.failed_vertices(p, result)
        from core.figures import is_aggregated

        return (figs.failure_topology_figure(p, vertices, unit=unit, naming=scheme_of_json(naming)), vertices,
                is_aggregated(p, every_pod=False))


@st.cache_resource(max_entries=64, show_spinner=False)
def healthy_vs_failed(key: str, failures: tuple[str, ...], settings_json: str | None, language: str, unit: str,
                      _result=None, _system=None):
    """The bars of ``_result``, the what-if of ``failures`` on ``_system``'s design (the other arguments key the
    cache)."""
    with speaking(language):
        return figs.healthy_vs_failed_figure(_result, unit=unit, system=_system)


@st.cache_resource(max_entries=64, show_spinner=False)
def spof_table(key: str, language: str, _result=None, _system=None,
               _family: str | None = None, _namer=None, naming: str = "") -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Single points of failure of ``_result`` (``spof.single_points`` of the design ``key``, whose system is
    ``_system`` and fabric family ``_family``: its tiers in its words), one row each, headers in ``language``; and
    the notes. ``_namer``: the exports' names the elements are said by (``failure.spec.failure_namer``) under the
    naming scheme ``naming`` (JSON, the cache's key: "" the default names)."""
    with speaking(language):
        result = _result
        rows = [{_("element"): element_name(_family, e.element, _namer), _("tier"): failure.tier_label(e.tier, _system, _family), _("GPUs lost"): e.gpus_lost,
                 _("remedy"): spof.remedy_label(e), _("remedy capex [USD]"): e.remedy_capex_usd}
                for e in result.elements]
        columns = [_("element"), _("tier"), _("GPUs lost"), _("remedy"), _("remedy capex [USD]")]
        degrading = tuple(_(spof.SECTION_LINES[section]).format(
            example=element_name(_family, d.example, _namer), tier=failure.tier_label(d.tier, _system, _family), count=f"{d.count:,}",
            effect=spof.degrading_label(d)) for section, rows in spof.degrading_sections(result) for d in rows)
        return pd.DataFrame(rows, columns=columns), degrading + tuple(result.notes)


def availability(key: str, job_gpus: int, rates: tuple, gpus: int):
    """(finished, ``Availability``) of the design ``key`` of ``gpus`` GPUs."""
    return outcome("availability", jobwork.availability, key, job_gpus, tuple(rates))


def pods_availability(key: str, job_gpus: int, rates: tuple):
    """(finished, ``PodsAvailability``) of the design with pods ``key`` over the whole fabric."""
    return outcome("availability", jobwork.pods_availability, key, job_gpus, tuple(rates))


@st.cache_resource(max_entries=64, show_spinner=False)
def spares(key: str, policy: tuple, lead_days: int, rates: tuple, language: str):
    """(Spares, its rows as a table with headers in ``language``)."""
    from core.formats.resiliencelink import rate_overrides

    with speaking(language):
        result = sparing.with_spares(_plan(key), dict(policy), lead_days=lead_days,
                                     rates=avail.rates_with(rate_overrides(rates)))
        from core.cost import CATEGORY_LABELS

        from core.spares import pod_label

        rows = [{_("category"): _(CATEGORY_LABELS.get(r.row.category, r.row.category)), _("item"): r.row.item,
                 _("pod"): pod_label(r.row.pod), _("installed"): r.installed, _("spares"): r.row.quantity,
                 _("rule"): r.rule, _("coverage in lead time"): units.percent(r.coverage),  # never 100% below one
                 _("spares price [USD]"): r.row.extended_price_usd, _("unit price [USD]"): r.row.unit_price_usd,
                 _("why"): r.row.why} for r in result.rows]
        pods = [_("pod")] if any(r.row.pod is not None for r in result.rows) else []  # whose devices it spares
        columns = [_("category"), _("item"), *pods, _("installed"), _("spares"), _("rule"), _("coverage in lead time"),
                   _("spares price [USD]"), _("unit price [USD]"), _("why")]
        return result, pd.DataFrame(rows, columns=columns)


def load_result(key: str, pattern: str, placement: str, group: int, settings_json: str | None,
                global_routing: str = "minimal"):
    """(finished, ``LoadResult``); ``global_routing`` between the groups of a Dragonfly+ or a Dragonfly."""
    return outcome("load", jobwork.link_load, key, pattern, placement, group, settings_json, global_routing)


@st.cache_resource(max_entries=32, show_spinner=False)
def load_figures(key: str, pattern: str, placement: str, group: int, settings_json: str | None, routing: str,
                 language: str, unit: str, _result=None, global_routing: str = "minimal", _family: str | None = None):
    """The heatmap and histogram of ``_result`` (the load of the other arguments; ``_family``: the design's fabric
    family, whose words name the heatmap's blocks)."""
    with speaking(language):
        result = _result
        return (figs.load_heatmap_figure(result, routing, family=_family),
                figs.bandwidth_histogram_figure(result, unit=unit))


TIER_LOADS = {"ar_max": (N_("worst, adaptive"), N_("The most loaded link's load over its capacity, adaptive routing")),
              "ecmp_max": (N_("worst, ECMP"), N_("The most loaded link's load over its capacity, static ECMP")),
              "ecmp_mean": (N_("mean load"), N_("The links' mean load over their capacity, static ECMP")),
              "ecmp_overloaded": (N_("overloaded, ECMP"), N_("Links loaded over their capacity, static ECMP")),
              "ecmp_max_flows": (N_("most flows, ECMP"), N_("The most flows on one link, static ECMP"))}
"""The tier table's load columns: ``TierLoad`` field -> (short header, its words in the header's tooltip); short,
so a design with pods' table (a pod column more) fits a 1,280 px window whole."""
_PERCENT = ("ar_max", "ecmp_max", "ecmp_mean")


def tier_table(result, unit: str, family: str | None = None) -> pd.DataFrame:
    """The load model's tiers (in the words of the fabric ``family``), headers in the current language, link speeds
    in ``unit``; a design with pods: a row per pod and tier, the tier named after its pod as the heatmap's rows
    (``pod 2 leaf-spine up``, ``core.analysis.loadpods``; the pods' systems are in the table above it), so the
    table has no column more than one fabric's."""
    rows = [{_("tier"): (_("pod {pod}").format(pod=t.pod) + " " if hasattr(t, "pod") else "") + _(
                 "{tier} {direction}").format(tier=load.tier_label(t.tier, family),
                                              direction=_(load.DIRECTION_LABELS[t.direction])),
             _("links"): t.links, _("link speed"): units.bandwidth(t.link_gbps, unit),
             **{_(head): units.percent(getattr(t, field)) if field in _PERCENT else getattr(t, field)
                for field, (head, _words) in TIER_LOADS.items()}} for t in result.tiers]
    return pd.DataFrame(rows)


def tier_columns() -> dict:
    """The tier table's column configuration (``tier_table``'s headers in the current language): links with
    separators, the loads as ``core.units.percent`` wrote them (the CLI's "3.12%", not Streamlit's "3.13%"), each
    load's words in its header's tooltip."""
    config = {_("links"): st.column_config.NumberColumn(format="localized")}  # 2,048 links, as on every page
    for field, (head, words) in TIER_LOADS.items():
        config[_(head)] = (st.column_config.TextColumn(help=_(words), alignment="right") if field in _PERCENT else
                           st.column_config.NumberColumn(help=_(words), format="localized"))
    return config


def stage_table(result, unit: str) -> pd.DataFrame:
    """The bisection's stages, healthy and remaining, one direction, in ``unit``."""
    rows = [{_("stage"): _(failure.STAGE_LABELS[stage]), _("healthy"): units.bandwidth(from_tbits(v["healthy"]), unit),
             _("remaining"): units.bandwidth(from_tbits(v["remaining"]), unit)}
            for stage, v in result.stages_tbits.items()]
    return pd.DataFrame(rows)


def role_label(role: str) -> str:
    return _(ROLE_LABELS.get(role, role))


CLASS_LABELS = {"gpu_node": N_("GPU node"), "nic": N_("NIC"), "link": N_("link"), "switch": N_("switch"),
                "transceiver": N_("transceiver"), "cable": N_("cable")}
"""Element classes of ``reliability.toml`` (ids) in words."""


def class_label(name: str) -> str:
    return _(CLASS_LABELS[name]) if name in CLASS_LABELS else name


def table_height(rows: int, limit: int = 560) -> int:
    """Pixels that show ``rows`` table rows without blank space (at most ``limit``)."""
    return min(limit, 35 * (rows + 1) + 3)
