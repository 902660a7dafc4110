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
from core import units
from core.units import from_tbits
from core.fabric.sizing import ROLE_LABELS
from core.i18n import N_, _, language as speaking
from core.perf import congestion, jobform
from core.plan import plan



def _plan(key: str):
    return plan(Design.model_validate_json(key))


def trials_for(gpus: int) -> int:
    """The availability's trials (``core.analysis.availability.shown_trials``: the review pack shows the same)."""
    return avail.shown_trials(gpus)


def job_of(p, settings_json: str | None):
    """The Performance page's job on ``p`` (None when it does not fit the design)."""
    if not settings_json:
        return None
    try:
        return jobform.job_from_settings(p, json.loads(settings_json))
    except Exception:  # noqa: BLE001 - a job that does not fit: no step time, said on the page
        return None


@st.cache_resource(max_entries=64, show_spinner=False)
def what_if(key: str, failures: tuple[str, ...], settings_json: str | None, language: str):
    """The ``FailureResult`` of the Performance page's job (its step time and days too)."""
    with speaking(language):
        p = _plan(key)
        job = job_of(p, settings_json)
        settings = json.loads(settings_json) if settings_json else {}
        with congestion.assumptions(settings.get("rt", "auto"), settings.get("pl", "topo")):
            return failure.what_if(p, list(failures), job=job)


@st.cache_resource(max_entries=64, show_spinner=False)
def topology(key: str, failed: tuple[str, ...], unit: str, language: str):
    """(figure with failed elements marked, failed vertex ids, aggregated?)."""
    with speaking(language):
        p = _plan(key)
        result = failure.what_if(p, list(failed)) if failed else None
        vertices = figs.failed_vertices(p, result)
        from core.figures import is_aggregated

        return figs.failure_topology_figure(p, vertices, unit=unit), vertices, is_aggregated(p)


@st.cache_resource(max_entries=64, show_spinner=False)
def healthy_vs_failed(key: str, failures: tuple[str, ...], settings_json: str | None, language: str, unit: str):
    with speaking(language):
        return figs.healthy_vs_failed_figure(what_if(key, failures, settings_json, language), unit=unit)


@st.cache_resource(max_entries=64, show_spinner=False)
def spof_table(key: str, language: str) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Single points of failure, one row each, headers in ``language``; and the notes."""
    with speaking(language):
        result = spof.single_points(_plan(key))
        rows = [{_("element"): e.element, _("tier"): _(failure.TIER_LABELS[e.tier]), _("GPUs lost"): e.gpus_lost,
                 _("remedy"): spof.remedy_label(e), _("remedy capex [USD]"): e.remedy_capex_usd}
                for e in result.elements]
        columns = [_("element"), _("tier"), _("GPUs lost"), _("remedy"), _("remedy capex [USD]")]
        degrading = tuple(_("Degrading, not a single point: {example} ({tier}, {count} like it) {effect}.").format(
            example=d.example, tier=_(failure.TIER_LABELS[d.tier]), count=f"{d.count:,}",
            effect=spof.degrading_label(d)) for d in result.degrading)
        return pd.DataFrame(rows, columns=columns), degrading + tuple(result.notes)


@st.cache_resource(max_entries=64, show_spinner=False)
def availability(key: str, job_gpus: int, rates: tuple, language: str):
    from core.formats.resiliencelink import rate_overrides

    with speaking(language):
        p = _plan(key)
        return avail.availability(p, job_gpus=job_gpus or None, trials=trials_for(p.resolved.gpus), seed=0,
                                  rates=avail.rates_with(rate_overrides(rates)))


@st.cache_resource(max_entries=64, show_spinner=False)
def spares(key: str, policy: tuple, lead_days: int, rates: tuple, language: str):
    """(Spares, its rows as a table with headers in ``language``)."""
    from core.formats.resiliencelink import rate_overrides

    with speaking(language):
        result = sparing.with_spares(_plan(key), dict(policy), lead_days=lead_days,
                                     rates=avail.rates_with(rate_overrides(rates)))
        from core.cost import CATEGORY_LABELS

        rows = [{_("category"): _(CATEGORY_LABELS.get(r.row.category, r.row.category)), _("item"): r.row.item,
                 _("installed"): r.installed, _("spares"): r.row.quantity, _("rule"): r.rule,
                 _("coverage in lead time"): r.coverage, _("spares price [USD]"): r.row.extended_price_usd,
                 _("unit price [USD]"): r.row.unit_price_usd, _("why"): r.row.why} for r in result.rows]
        columns = [_("category"), _("item"), _("installed"), _("spares"), _("rule"), _("coverage in lead time"),
                   _("spares price [USD]"), _("unit price [USD]"), _("why")]
        return result, pd.DataFrame(rows, columns=columns)


@st.cache_resource(max_entries=32, show_spinner=False)
def load_result(key: str, pattern: str, placement: str, group: int, settings_json: str | None, language: str):
    with speaking(language):
        p = _plan(key)
        job = job_of(p, settings_json) if pattern == "job" else None
        return load.link_load(p, pattern, placement, group=group or None, seed=0, job=job)


@st.cache_resource(max_entries=32, show_spinner=False)
def load_figures(key: str, pattern: str, placement: str, group: int, settings_json: str | None, routing: str,
                 language: str, unit: str):
    with speaking(language):
        result = load_result(key, pattern, placement, group, settings_json, language)
        return figs.load_heatmap_figure(result, routing), figs.bandwidth_histogram_figure(result, unit=unit)


def tier_table(result, unit: str) -> pd.DataFrame:
    """The load model's tiers, headers in the current language, link speeds in ``unit``."""
    rows = [{_("tier"): _("{tier} {direction}").format(tier=_(load.TIER_LABELS[t.tier]),
                                                       direction=_(load.DIRECTION_LABELS[t.direction])),
             _("links"): t.links, _("link speed"): units.bandwidth(t.link_gbps, unit),
             _("worst load, adaptive"): t.ar_max, _("worst load, ECMP"): t.ecmp_max,
             _("mean load"): t.ecmp_mean, _("overloaded links, ECMP"): t.ecmp_overloaded,
             _("most flows on a link, ECMP"): t.ecmp_max_flows} for t in result.tiers]
    return pd.DataFrame(rows)


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
