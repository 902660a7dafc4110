"""Sweep: one design setting (or two, a heatmap) against one metric, the sidebar's design fixed otherwise (thin:
widgets -> core.formats.sweeplink -> core.analysis.sweep -> core.figures.sweep)."""

from __future__ import annotations

import csv
import io

import pandas as pd
import streamlit as st

from core import i18n
from core.analysis import sweep as sw
from core.design import Design
from core.errors import FabricPlannerError, InputError
from core.figures import sweep as figs
from core.formats import sweeplink
from core.formats.joblink import DEFAULTS
from core.i18n import _
from core.perf.jobform import FITTED
from core.perf.sizes import format_size
from webui import charts, inferencestate, jobs, jobstate, jobwork, pagestate, safe, state, tablefit

PAGE_PATH = "sweep"
STORE = "fp_sw"  # this session's sweep settings (sweeplink.decode's values)
W = "sw_w_"  # widget key prefix
SIZE_CHOICES = (64 * 2**10, 2**20, 16 * 2**20, 256 * 2**20, 2**30, 4 * 2**30, 16 * 2**30)
NONE = ""


# The sweep settings in the link (webui.pagestate)
LINK = pagestate.PageLink(STORE, sweeplink.decode, lambda key: key.startswith(sweeplink.SWEEP.prefix))


def _job() -> tuple[dict, tuple[str, ...]]:
    """The Performance page's job (the session's, else the link's) and the settings the user left alone there,
    which are fitted to the sweep's base design as that page fits them."""
    ss = st.session_state
    jobstate.init(pagestate.link_params())
    store = dict(ss[jobstate.STORE])
    fitted = ss.get(jobstate.FITTED_STORE) or {}
    return store, tuple(k for k in FITTED if k in fitted and (fitted[k] is None or fitted[k] == store.get(k)))


@st.cache_resource(max_entries=16, show_spinner=False)
def _figure(key: str, language: str, unit: str, _result: sw.SweepResult):
    """The figure of ``_result``, the sweep of ``key`` (the spec as JSON), bandwidth in ``unit``."""
    with i18n.language(language):
        return figs.figure(_result, unit=unit)


def _axis_controls(store: dict, axis: str, column, optional: bool) -> None:
    """Setting and values of one axis (``x`` or ``y``); the store keeps the last valid values."""
    ss = st.session_state
    setting_key, values_key = axis, axis + "v"
    options = ([NONE] if optional else []) + list(sw.SETTINGS)
    if W + axis not in ss or ss[W + axis] not in options:
        ss[W + axis] = store[setting_key] if store[setting_key] in options else options[0]
    label = _("Second setting (heatmap)") if optional else _("Setting")
    chosen = column.selectbox(label, options, key=W + axis,
                              format_func=lambda k: _("none") if k == NONE else sw.setting_label(k))
    if chosen != store[setting_key]:  # a new setting starts from its default values
        store[setting_key] = chosen
        store[values_key] = sweeplink.default_values(chosen) if chosen else ()
        ss.pop(W + values_key, None)
    if not chosen:
        return
    setting = sw.SETTINGS[chosen]
    choices = setting.values() if setting.kind == sw.CATEGORICAL else None  # None: numbers or free text (torus)
    if choices is not None:  # ids as values, words in the current language as labels
        choices = list(choices)
        if W + values_key not in ss:
            ss[W + values_key] = [v for v in store[values_key] if v in choices]
        picked = column.multiselect(_("Values"), choices, key=W + values_key,
                                    format_func=lambda v: figs.value_label(chosen, v))
        store[values_key] = tuple(v for v in choices if v in picked)
        return
    if W + values_key not in ss:
        ss[W + values_key] = sweeplink.format_values(store[values_key]).replace(",", ", ")
    text = column.text_input(_("Values"), key=W + values_key, max_chars=sweeplink.MAX_TEXT,
                             help=_("comma-separated, or start:stop:step (e.g. 64:512:64)"))
    try:
        store[values_key] = sweeplink.parse_values(chosen, text)
    except InputError as exc:
        column.error(safe.md(str(exc)))


def _controls(store: dict) -> None:
    ss = st.session_state
    c1, c2, c3 = st.columns([1, 1, 1.3])
    _axis_controls(store, "x", c1, optional=False)
    _axis_controls(store, "y", c2, optional=True)
    metrics = list(sw.METRICS)
    if W + "m" not in ss or ss[W + "m"] not in metrics:
        ss[W + "m"] = store["m"]
    store["m"] = c3.selectbox(_("Metric"), metrics, key=W + "m",
                              format_func=lambda k: sw.metric_label(k, store["sz"]) if k != "busbw_gbytes"
                              else _("All-reduce busbw"))
    if store["m"] == "busbw_gbytes":
        sizes = list(dict.fromkeys([*SIZE_CHOICES, store["sz"]]))
        if W + "sz" not in ss or ss[W + "sz"] not in sizes:
            ss[W + "sz"] = store["sz"]
        store["sz"] = c3.selectbox(_("at message size"), sizes, key=W + "sz", format_func=format_size)


def _spec(store: dict, design: Design) -> sw.SweepSpec:
    needs = sw.METRICS[store["m"]].needs
    job, fit = _job() if needs in ("job", "busbw") else (None, ())
    serving = dict(inferencestate.LINK.values()) if needs == "serving" else None
    y = sw.Axis(setting=store["y"], values=tuple(store["yv"])) if store["y"] and store["yv"] else None
    return sw.SweepSpec(base=design, x=sw.Axis(setting=store["x"], values=tuple(store["xv"])), y=y,
                        metric=store["m"], size=int(store["sz"]), job=job, fit=fit, defaults=dict(DEFAULTS),
                        serving=serving)


def _slug(cur) -> str:
    try:
        from core.formats.filenames import design_slug
        return design_slug(cur.plan)
    except (ImportError, AttributeError):  # the plan did not build: the design's own words
        d = cur.design
        return f"fabric-{str(d.gpu).lower()}-{d.gpus or d.nodes}"


def _csv(result: sw.SweepResult) -> str:
    rows = figs.download_rows(result)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _table(result: sw.SweepResult, unit: str) -> None:
    spec = result.spec
    rows = []
    for p, value in zip(result.points, figs.value_column(result, unit)):
        row = {sw.setting_label(spec.x.setting): figs.value_label(spec.x.setting, p.x)}
        if spec.y:
            row[sw.setting_label(spec.y.setting)] = figs.value_label(spec.y.setting, p.y)
        row[sw.metric_label(spec.metric, spec.size)] = value or "-"
        if result.repeats:  # a setting the design ignores here: the rows say which point they repeat (in view)
            row[_("note")] = figs.same_note(result, p)
        if any(q.reason for q in result.points):  # the column only when a point has no value
            row[_("Why there is no value")] = (p.reason if p.planned else _("{gap}: {reason}").format(
                gap=figs.gap_word(p), reason=p.reason)) if p.reason else ""  # the header says "no value" already
        rows.append(row)
    frame = pd.DataFrame(rows)
    config, row_px = tablefit.sweep_points_columns(frame, _("Why there is no value"))  # the reason wraps, whole
    sized = dict(row_height=row_px, height=tablefit.wrapped_table_px(len(frame), row_px)) if row_px else {}
    st.dataframe(frame, hide_index=True, width="stretch", column_config=config, **sized)


def _first(values: dict, params) -> dict | None:
    """The link's settings at the page's first run, its swept setting the one the sidebar's design starts from
    (``sw.default_setting``: one its topology reads) when the link names none."""
    cur = st.session_state.get("fp_current")
    if "sw_x" in params or cur is None or cur.design is None:
        return None
    x = sw.default_setting(cur.design)
    return None if x in (values["x"], values["y"]) else {**values, "x": x, "xv": sweeplink.default_values(x)}


def main() -> None:
    store = LINK.values(_first)
    st.title(_("Sweep"))
    st.caption(_("One setting of the sidebar's design against one metric, every other setting fixed; a second "
                 "setting gives a heatmap. Each point is planned by the engine; a point that cannot be built is a "
                 "gap, with the reason on hover. Costs are estimates from the catalog's price book."))
    LINK.show_warnings(_("Some values in the sweep link were not applied; the rest is shown."))
    cur = st.session_state.get("fp_current")
    if cur is not None:
        state.show_warnings(cur)  # the link's design keys, as on every page
    if cur is None or cur.design is None:
        st.info(_("Set a valid design in the sidebar first."))
        return
    state.set_page_link(PAGE_PATH, sweeplink.encode(store))  # the sweep's settings, kept by a way out's link
    if state.first_pod_way_out("sweep", PAGE_PATH):  # a design with pods (core.analysis.whole)
        return
    if cur.plan is None and cur.error is not None:
        st.caption(_("The sidebar's design itself cannot be built; the sweep starts from it anyway."))
    _controls(store)
    state.set_page_link(PAGE_PATH, sweeplink.encode(store))
    if not store["xv"]:
        st.info(_("Choose at least one value to sweep."))
        return
    spec = _spec(store, cur.design)
    for said in sw.ignored_said(cur.design, (spec.x, spec.y)):  # a setting a swept topology ignores: said so
        st.info(said)
    if sw.METRICS[spec.metric].needs == "job":
        st.caption(_("Training metrics: the Performance page's job, its unset settings fitted once to the sidebar's "
                     "design, then the same job at every point."))
    key = spec.model_dump_json()
    finished, result = jobs.result("sweep", key, jobwork.sweep, key, what=_("Planning the points"))
    if not finished:
        return
    if isinstance(result, FabricPlannerError):
        st.error(safe.error_text(result))
        return
    fig = _figure(key, i18n.locale(), cur.unit, result)
    charts.chart(fig, "full", key=W + "chart", config={"displaylogo": False})
    st.caption(i18n.sentences(figs.base_sentence(result, cur.plan), figs.count_sentence(result),
                              figs.repeats_caption(result) if result.repeats else ""))
    _table(result, cur.unit)
    st.download_button(_("Download CSV"), _csv(result), file_name=f"{_slug(cur)}-sweep-{spec.metric}.csv",
                       mime="text/csv", key=W + "csv")


main()
