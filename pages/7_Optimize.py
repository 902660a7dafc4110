"""Optimize: the cheapest design that meets the user's constraints, the Pareto front of capex against
performance (each point opens its design) and, per switch family, what ruled it out (thin: form ->
core.formats.optimizelink -> core.analysis.optimize -> core.figures.optimize)."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from core import i18n
from core.analysis.optimize import design_label, largest_within, optimize
from core.catalog import load_catalog
from core.errors import FabricPlannerError
from core.figures import optimize as figs
from core.formats import optimizelink, sharelink
from core.i18n import _
from core.perf.sizes import format_size
from core.perf.training import PRESETS
from webui import safe, state, tables

PAGE_PATH = "optimize"
STORE = "fp_opt"  # the search settings of this session (optimizelink's keys -> values)
W = "opt_w_"  # widget key prefix
SIZE_CHOICES = (2**20, 16 * 2**20, 256 * 2**20, 2**30, 4 * 2**30)
FABRIC_LABELS = {"any": _("InfiniBand or Ethernet"), "infiniband": _("InfiniBand only"), "ethernet": _("Ethernet only")}


def _store() -> dict:
    """The search settings; read from the link at the session's first run of this page."""
    ss = st.session_state
    if STORE not in ss:
        params = ss.get("_fp_link") or st.query_params.to_dict()
        values, warnings = optimizelink.decode(params)
        cur = ss.get("fp_current")
        if not any(k.startswith(optimizelink.SEARCH.prefix) for k in params) and cur is not None \
                and cur.plan is not None:  # start from the Designer's design
            values["gpu"], values["n"] = cur.plan.resolved.system.id, cur.plan.resolved.gpus
        ss[STORE] = values
        ss["fp_opt_params"] = {k: v for k, v in params.items() if k.startswith(optimizelink.SEARCH.prefix)}
    return ss[STORE]


def _warnings() -> list[str]:
    """The link's warnings, in this run's language."""
    return optimizelink.decode(st.session_state.get("fp_opt_params") or {})[1]


@st.cache_resource(max_entries=8, show_spinner=False)
def _search(key: str, language: str):
    """The search of ``key`` (the settings as JSON); the result, or the domain error when it cannot run."""
    values = json.loads(key)
    with i18n.language(language):
        try:
            if values["mode"] == "envelope":
                return largest_within(values["gpu"], optimizelink.constraints(values), workers=1)
            return optimize(values["gpu"], values["n"], optimizelink.constraints(values), workers=1, strict=False)
        except FabricPlannerError as exc:
            return exc


def _key(values: dict) -> str:
    return json.dumps({k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items() if k != "run"},
                      sort_keys=True)


def _design_link(design) -> str:
    return state.share_url(state.DESIGNER_PATH, {**sharelink.encode(design), state.LANG_KEY: i18n.current()})


def _form(values: dict) -> None:
    catalog = load_catalog()
    systems = [s.id for s in catalog.systems]
    switches = [s.id for s in catalog.switches]
    with st.form(W + "form", border=True):
        c1, c2, c3, c4 = st.columns([1, 1, 1, 2])
        gpu = c1.selectbox(_("GPU model"), systems, index=systems.index(values["gpu"]) if values["gpu"] in systems
                           else 0, key=W + "gpu")
        modes = {"gpus": _("a GPU count"), "envelope": _("the most GPUs within the budget or power")}
        mode = c2.radio(_("Size by"), list(modes), index=list(modes).index(values["mode"]),
                        format_func=lambda m: modes[m], key=W + "mode")
        gpus = c3.number_input(_("GPUs"), min_value=1, max_value=1_000_000, value=int(values["n"]), step=64,
                               key=W + "n", help=_("Used when sizing by a GPU count."))
        fabric = c4.radio(_("Fabric allowed"), list(FABRIC_LABELS), index=list(FABRIC_LABELS).index(values["fab"]),
                          format_func=lambda f: FABRIC_LABELS[f], horizontal=True, key=W + "fab")
        allowed = st.multiselect(_("Switch models allowed (empty: every switch of the fabric)"), switches,
                                 default=[s for s in values["sw"] if s in switches], key=W + "sw",
                                 placeholder=_("every switch of the fabric"))
        st.caption(_("Constraints: 0 means no limit."))
        d1, d2, d3, d4, d5 = st.columns(5)
        oversub = d1.number_input(_("Max. oversubscription (x:1)"), 0.0, 16.0, float(values["os"]), 0.5, key=W + "os")
        bisection = d2.number_input(_("Min. bisection per GPU [GB/s]"), 0.0, 10_000.0, float(values["bis"]), 5.0,
                                    key=W + "bis")
        hops = d3.number_input(_("Max. switch hops"), 0, 9, int(values["hops"]), 1, key=W + "hops")
        tiers = d4.number_input(_("Max. tiers"), 0, 3, int(values["tiers"]), 1, key=W + "tiers")
        planes = d5.number_input(_("Required planes"), 0, 8, int(values["pl"]), 1, key=W + "pl",
                                 help=_("Redundancy: with 2 or more planes the fabric keeps running when a plane's "
                                        "switch fails."))
        e1, e2, e3, e4 = st.columns(4)
        busbw = e1.number_input(_("Min. all-reduce busbw [GB/s]"), 0.0, 10_000.0, float(values["bus"]), 10.0,
                                key=W + "bus")
        sizes = list(dict.fromkeys([*SIZE_CHOICES, values["bsz"]]))
        size = e2.selectbox(_("at message size"), sizes, index=sizes.index(values["bsz"]), format_func=format_size,
                            key=W + "bsz")
        power = e3.number_input(_("Max. facility power [kW]"), 0.0, 10_000_000.0, float(values["kw"]), 100.0,
                                key=W + "kw")
        budget = e4.number_input(_("Budget [USD]"), 0.0, 1e13, float(values["usd"]), 1e6, format="%.0f",
                                 key=W + "usd")
        f1, f2, f3 = st.columns([2, 1, 1])
        models = ["", *PRESETS]
        model = f1.selectbox(_("Training job (the front then plots days to train)"), models,
                             index=models.index(values["model"]), key=W + "model",
                             format_func=lambda m: PRESETS[m].name if m else _("none"))
        days = f2.number_input(_("Max. days to train"), 0.0, 100_000.0, float(values["days"]), 1.0, key=W + "days")
        tokens = f3.number_input(_("Tokens to train [T]"), 0.001, 1000.0, float(values["tok"]), 0.5, key=W + "tok")
        if st.form_submit_button(_("Search"), type="primary"):
            values.update(gpu=gpu, mode=mode, n=int(gpus), pl=int(planes), fab=fabric, sw=tuple(allowed), os=float(oversub), bis=float(bisection),
                          hops=int(hops), tiers=int(tiers), bus=float(busbw), bsz=int(size), kw=float(power),
                          usd=float(budget), model=model, days=float(days), tok=float(tokens), run="1")


def _best(result) -> None:
    best = result.best
    st.success(_("Cheapest design that meets every constraint: **{design}**, {capex}.").format(
        design=safe.md(design_label(best)), capex=i18n.usd(best.capex_usd)))
    for line in result.explanation:
        st.markdown("- " + safe.md(line))
    st.link_button(_("Open the cheapest design in the Designer"), _design_link(best.design), type="primary")


def _chart(result) -> None:
    event = st.plotly_chart(figs.pareto_figure(result, unit=state.bandwidth_unit()), key=W + "pareto",
                            on_select="rerun",
                            selection_mode=("points",), config={"displaylogo": False})
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    if points:
        index = int(points[0]["customdata"][0])
        chosen = next((c for c in result.candidates if c.index == index), None)
        if chosen is not None:
            c1, c2 = st.columns([4, 1])
            c1.markdown(_("Selected: **{design}**, {capex}.").format(design=safe.md(design_label(chosen)),
                                                                     capex=i18n.usd(chosen.capex_usd)))
            c2.link_button(_("Open in Designer"), _design_link(chosen.design), width="stretch")


def _tables(result) -> None:
    by_index = {c.index: c for c in result.candidates}
    st.markdown("#### " + _("Pareto front"))
    unit = state.bandwidth_unit()
    rows = figs.front_rows(result, unit)
    frame = pd.DataFrame([{
        _("Design"): r["design"], _("Capex"): r["capex"], figs.metric_title(result.metric, unit): r["performance"],
        _("Open"): _design_link(by_index[r["index"]].design), _("Tiers"): r["tiers"], _("Switches"): r["switches"],
        _("Power [kW]"): r["power_kw"]} for r in rows])
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        _("Capex"): tables.money_column(),
        figs.metric_title(result.metric, unit): st.column_config.NumberColumn(format="%.1f"),
        _("Power [kW]"): st.column_config.NumberColumn(format="%.0f"),
        _("Open"): st.column_config.LinkColumn(display_text=_("open in Designer")),
    })
    st.markdown("#### " + _("Switch families"))
    st.caption(_("Each family is a fabric, a leaf switch model and a topology; a family with no design that meets "
                 "every constraint shows what ruled most of it out."))
    fam = figs.family_rows(result)
    st.dataframe(pd.DataFrame([{
        _("Family"): r["family"], _("Candidates"): r["considered"], _("Meet every constraint"): r["feasible"],
        _("Cheapest"): r["cheapest"], _("Ruled out by"): r["ruled_out_by"],
        _("Open"): _design_link(by_index[r["cheapest_index"]].design) if r["cheapest_index"] is not None else None,
    } for r in fam]), hide_index=True, width="stretch", column_config={
        _("Open"): st.column_config.LinkColumn(display_text=_("open cheapest"))})
    with st.expander(_("Rejected candidates by reason"), expanded=False):
        st.dataframe(pd.DataFrame([{_("Reason"): r["reason"], _("Candidates"): r["candidates"]}
                                   for r in figs.rejected_rows(result)]), hide_index=True, width="stretch")


def main() -> None:
    values = _store()
    st.title(_("Optimize"))
    st.caption(_("Searches every buildable combination of fabric, switch per tier, port and uplink speed, NIC, "
                 "planes and plane mode, topology, tiers and leaf oversubscription (1, 1.5, 2, 3:1) for the GPU "
                 "count, and keeps the designs that meet every constraint. Capex at street prices (estimates)."))
    for warning in _warnings():
        st.warning(safe.md(warning))
    _form(values)
    state.set_page_link(PAGE_PATH, optimizelink.encode(values))
    if values.get("run") != "1":
        st.info(_("Set the constraints and press Search. A search of a few thousand designs takes seconds."))
        return
    with st.spinner(_("Searching the designs ...")):
        result = _search(_key(values), i18n.current())
    if isinstance(result, FabricPlannerError):
        message, suggestion = safe.message(result)
        st.error(message + ("  \n" + suggestion if suggestion else ""))
        return
    if values["mode"] == "envelope":
        envelope, result = result, result.result
        st.info(_("Most GPUs whose cheapest design meets every constraint: **{gpus}** {gpu} GPUs ({searches} "
                  "searches). {next} GPUs do not fit: {reason}").format(
                      gpus=i18n.number(envelope.gpus), gpu=values["gpu"], searches=envelope.searches,
                      next=i18n.number(envelope.next_gpus), reason=safe.md(envelope.next_reason or "-")))
    st.caption(_("{considered} candidates, {planned} planned, {feasible} meet every constraint; searched in "
                 "{seconds} s.").format(considered=i18n.number(result.considered), planned=i18n.number(result.planned),
                                       feasible=i18n.number(result.feasible), seconds=f"{result.seconds:.1f}"))
    if result.best is None:
        st.error(safe.md(" ".join(result.explanation)))
    else:
        _best(result)
        _chart(result)
    _tables(result)


main()
