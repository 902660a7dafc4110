"""Optimize: the cheapest design that meets the user's constraints, the Pareto front of capex against
performance (each point opens its design) and, per switch family, what ruled it out (thin: form ->
core.formats.optimizelink -> core.analysis.optimize -> core.figures.optimize).

It plans the sidebar's design: its GPU model, size (unless sizing from a budget or power, which varies the
GPU count and says so) and every field the search does not set; the search sets fabric, switch per tier,
port and uplink speed, NIC, planes and plane mode, topology, tiers and leaf oversubscription."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from core import i18n
from core.analysis.jobsplit import Split
from core.analysis.objectives import MONEY, money_text, objective_text
from core.analysis.optimize import OBJECTIVES, default_topologies, capex_of, design_label, objective_word
from core.analysis.optimizewords import bandwidth_against, front_rule, max_hops_help, searched_words
from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import FabricPlannerError
from core import units, vocab
from core.figures import optimize as figs
from core.figures.keynumbers import size_caption
from core.formats import optimizelink, sharelink
from core.i18n import N_, _, as_sentence
from core.perf.sizes import format_size
from core.perf.training import PRESETS
from core.text import unbroken
from webui import charts, inferencestate, jobs, jobwork, pagestate, safe, state, tablefit

PAGE_PATH = "optimize"
STORE = "fp_opt"  # the search settings of this session (optimizelink's keys -> values)
W = "opt_w_"  # widget key prefix
SIZE_CHOICES = (2**20, 16 * 2**20, 256 * 2**20, 2**30, 4 * 2**30)
MODEL_PX = 220
"""The training job's box at its narrowest [px]: a preset's name whole ("DeepSeek-V3 (671B MoE)")."""
FABRIC_LABELS = {"any": _("InfiniBand or Ethernet"), "infiniband": _("InfiniBand only"), "ethernet": _("Ethernet only")}
SEARCHED = N_("searched: the page tries every value")
COUNT = st.column_config.NumberColumn(format="localized")  # 1,080 candidates, as every count on every page


# The search settings in the link (webui.pagestate)
LINK = pagestate.PageLink(STORE, optimizelink.decode, lambda key: key.startswith(optimizelink.SEARCH.prefix))


def _sidebar_design() -> tuple[Design, int, str] | None:
    """The sidebar's design, its GPU count and its size in words (``16,384 x B300 in 2,048 nodes``); None (and
    the reason shown) when the sidebar has no design the engine can resolve."""
    cur: state.Current | None = st.session_state.get("fp_current")
    if cur is None or cur.design is None:
        st.error(_("The sidebar has no valid design; fix it there first (the Optimize page plans the sidebar's "
                   "GPU model and size)."))
        return None
    if cur.plan is not None:
        return cur.design, cur.plan.resolved.gpus, size_caption(cur.plan)
    try:
        resolved = resolve_design(cur.design)
    except FabricPlannerError as exc:
        message, _suggestion = safe.message(exc)
        st.error(_("The sidebar's design cannot be resolved: {message}").format(message=message))
        return None
    return cur.design, resolved.gpus, _("{gpus} x {system}").format(gpus=i18n.number(resolved.gpus),
                                                                      system=resolved.system.id)


def _key(values: dict, design: Design, gpus: int) -> str:
    """The search's settings, the sidebar's design and its GPU count, and the largest design a search may look at
    on this server, as JSON (``webui.jobwork.optimize_search``)."""
    settings = {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items() if k != "run"}
    serving = dict(inferencestate.LINK.values()) if values.get("srate") else None
    return json.dumps({"values": settings, "design": design.model_dump_json(), "gpus": gpus, "serving": serving,
                       "max_gpus": jobs.LIMITS["optimize"].max_gpus}, sort_keys=True)


def _design_link(design) -> str:
    return state.share_url(state.DESIGNER_PATH, {**sharelink.encode(design), state.LANG_KEY: i18n.current()})


def _linked(text: str, design) -> str:
    """``text`` (escaped) as a markdown link to ``design`` on the Designer, for a cell of ``st.table``."""
    return f"[{safe.md(text)}]({_design_link(design)})"


def _form(values: dict, size: str, gpus: int, topology: str) -> None:
    catalog = load_catalog()
    switches = [s.id for s in catalog.switches]
    searched = _(SEARCHED)
    with st.form(W + "form", border=True):
        st.markdown(_("Plans the sidebar's design: **{size}**; every setting the search does not vary (GPUs per "
                      "node, scale-up domain, racks, cable media, prices, power, storage, management, spares, growth) is "
                      "the sidebar's. Change the GPU model or size in the sidebar.").format(size=safe.md(size)))
        st.caption(_("Searched, so the sidebar's values of these are not used: fabric, switch per tier, port and "
                     "uplink speed, NIC, planes and plane mode, topology (the sidebar's is among those tried), tiers, "
                     "leaf oversubscription."))
        c1, c2, c3 = st.columns([1.4, 1.6, 1.3])  # the objective whole ("whole-cluster capex") at 1,024 px
        modes = {"gpus": _("the sidebar's size ({gpus} GPUs)").format(gpus=i18n.number(gpus)),
                 "envelope": _("the most GPUs within the budget or power (searched: the GPU count varies)")}
        mode = c1.radio(_("Size by"), list(modes), index=list(modes).index(values["mode"]),
                        format_func=lambda m: modes[m], key=W + "mode")
        objective = c2.selectbox(_("Cheapest by"), list(OBJECTIVES),
                                 index=list(OBJECTIVES).index(values["obj"]),
                                 format_func=objective_word, key=W + "obj",
                                 help=_("Whole-cluster capex: every BOM row (GPU nodes, compute fabric, storage "
                                        "fabric, management networks; the default). Compute-fabric capex: its "
                                        "switches, transceivers, cables and NICs only. Total cost of ownership: "
                                        "capex and energy over the design's years; cost per GPU-hour: that over "
                                        "every GPU-hour. Days to train needs a training job, cost per million "
                                        "output tokens a serving rate. The budget is on the whole cluster."))
        fabric = c3.radio(_("Fabric allowed"), list(FABRIC_LABELS), index=list(FABRIC_LABELS).index(values["fab"]),
                          format_func=lambda f: FABRIC_LABELS[f], horizontal=True, key=W + "fab", help=searched)
        s1, s2 = st.columns([3, 1])  # the required planes whole at 1,024 px
        allowed = s1.multiselect(_("Switch models allowed (empty: every switch of the fabric)"), switches,
                                 default=[s for s in values["sw"] if s in switches], key=W + "sw",
                                 placeholder=_("every switch of the fabric"), help=searched)
        planes = s2.number_input(_("Required planes"), 0, 8, int(values["pl"]), 1, key=W + "pl",
                                 help=i18n.sentences(searched, _("Redundancy: with 2 or more planes the fabric keeps "
                                                                         "running when a plane's switch fails.")))
        topologies = st.multiselect(
            _("Topologies tried (empty: {default})").format(
                default=i18n.join([vocab.TOPOLOGY.word(t) for t in default_topologies(topology)])),
            list(vocab.TOPOLOGY.ids),
            default=[t for t in values["top"] if t in vocab.TOPOLOGY.ids], key=W + "top",
            format_func=vocab.TOPOLOGY.word, placeholder=_("the default topologies"), help=searched)
        st.caption(_("Constraints: 0 means no limit."))
        # three rows, each column as wide as its label (webui.tablefit.input_columns): one line each at 1,024 px
        unit = state.bandwidth_unit()  # the link holds GB/s (opt_bus); the box speaks the sidebar's unit
        per_gbyte = units.from_gbytes(1.0) if unit == "Gb/s" else 1.0
        labels = {"os": _("Max. oversubscription (x:1)"), "bisr": _("Max. bisection ratio (x:1)"),
                  "hops": _("Max. switch hops"), "tiers": _("Max. tiers"),
                  "usd": i18n.in_currency(_("Budget, whole cluster [USD]")),
                  "bus": _("Min. all-reduce busbw [{unit}]").format(unit=unit), "bsz": _("at message size"),
                  "kw": _("Max. facility power [kW]")}
        d1, d2 = tablefit.input_columns([(labels["os"], True), (labels["bisr"], True)])
        oversub = d1.number_input(labels["os"], 0.0, 16.0, float(values["os"]), 0.5, key=W + "os", help=searched)
        ratio = d2.number_input(labels["bisr"], 0.0, 16.0, float(values["bisr"]), 0.25,
                                key=W + "bisr", help=_("Half of all GPUs' injection bandwidth over the bisection "
                                                       "bandwidth: 1 = 1:1, non-blocking; 2 = 2:1, a GPU gets half "
                                                       "its NIC rate across the worst balanced cut."))
        e1, e2, e3 = tablefit.input_columns([(labels["hops"], True), (labels["tiers"], True), (labels["usd"], False)])
        hops = e1.number_input(labels["hops"], 0, 9, int(values["hops"]), 1, key=W + "hops",
                               help=as_sentence(max_hops_help()))
        tiers = e2.number_input(labels["tiers"], 0, 3, int(values["tiers"]), 1, key=W + "tiers", help=searched)
        # the link holds US dollars (opt_usd, opt_susd); the boxes speak the sidebar's currency, a box per rate
        rate, per = i18n.fx_rate(), "" if i18n.currency() == i18n.DEFAULT_CURRENCY else f"_{i18n.locale()}"
        budget = e3.number_input(labels["usd"], 0.0, 1e13 * rate,
                                 float(values["usd"]) * rate, 1e6, format="%.0f", key=W + "usd" + per)
        b1, b2, b3 = tablefit.input_columns([(labels["bus"], False), (labels["bsz"], False), (labels["kw"], False)])
        busbw = b1.number_input(labels["bus"], 0.0, 10_000.0 * per_gbyte,
                                float(values["bus"]) * per_gbyte, 10.0 * per_gbyte,
                                key=W + "bus" + ("_bits" if unit == "Gb/s" else ""))
        sizes = list(dict.fromkeys([*SIZE_CHOICES, values["bsz"]]))
        size = b2.selectbox(labels["bsz"], sizes, index=sizes.index(values["bsz"]), format_func=format_size,
                            key=W + "bsz")
        power = b3.number_input(labels["kw"], 0.0, 10_000_000.0, float(values["kw"]), 100.0, key=W + "kw")
        labels.update(model=_("Training job"), days=_("Max. days to train"), tok=_("Tokens to train [T]"),
                      srate=_("Serving rate [requests/s]"),
                      susd=i18n.in_currency(_("Max. cost per million output tokens [USD]")))
        f1, f2, f3 = tablefit.input_columns([(labels["model"], True, MODEL_PX), (labels["days"], False),
                                             (labels["tok"], False)])
        models = ["", *PRESETS]
        model = f1.selectbox(labels["model"], models, index=models.index(values["model"]), key=W + "model",
                             format_func=lambda m: PRESETS[m].name if m else _("none"),
                             help=_("A job to train: the front then plots days to train, and Max. days to train "
                                    "limits them."))
        days = f2.number_input(labels["days"], 0.0, 100_000.0, float(values["days"]), 1.0, key=W + "days")
        tokens = f3.number_input(labels["tok"], 0.001, 1000.0, float(values["tok"]), 0.5, key=W + "tok")
        g1, g2 = tablefit.input_columns([(labels["srate"], True), (labels["susd"], True)])
        srate = g1.number_input(labels["srate"], 0.0, 1e7, float(values["srate"]), 1.0, key=W + "srate",
                                help=_("0 = no serving target. Else every design must serve this request rate with "
                                       "the Inference page's model, lengths, precisions and TTFT/TPOT targets (the "
                                       "cheapest split searched per design); the front then plots the cost per "
                                       "million output tokens."))
        susd = g2.number_input(labels["susd"], 0.0, 1e6 * rate,
                               float(values["susd"]) * rate, 0.1, key=W + "susd" + per,
                               help=_("0 = no limit; needs a serving rate."))
        if st.form_submit_button(_("Search"), type="primary"):
            values.update(mode=mode, obj=objective, pl=int(planes), fab=fabric, sw=tuple(allowed), top=tuple(topologies),
                          os=float(oversub), bisr=float(ratio), hops=int(hops), tiers=int(tiers), bus=float(busbw) / per_gbyte, bsz=int(size), kw=float(power),
                          usd=_dollars(budget, values["usd"], rate), model=model, days=float(days), tok=float(tokens),
                          srate=float(srate), susd=_dollars(susd, values["susd"], rate), run="1")


def _dollars(shown: float, dollars: float, rate: float) -> float:
    """A money box's value (``shown``, in the sidebar's currency at ``rate`` per US dollar) in US dollars, for the
    link; the link's own ``dollars`` when the box still shows them, so an untouched box does not change the link."""
    return float(dollars) if float(shown) == float(dollars) * rate else float(shown) / rate


def _sidebar_plan():
    """The sidebar design's plan (None when it has none): the headline compares the answer's bandwidth with it."""
    cur: state.Current | None = st.session_state.get("fp_current")
    return None if cur is None else cur.plan


def _best(result) -> None:
    best = result.best
    other = "compute" if result.objective == "cluster" else "cluster"
    said = _("Cheapest design for **{size}** that meets every constraint: **{design}** ({objective}: {value}; "
             "{other_objective}: {other_capex}).") if result.objective in MONEY else \
        _("Best design for **{size}** that meets every constraint: **{design}** ({objective}: {value}; "
          "{other_objective}: {other_capex}).")
    st.success(unbroken(i18n.sentences(said.format(
        size=safe.md(size_caption(result.best_plan)), design=safe.md(design_label(best)),
        value=objective_text(best, result.objective), objective=objective_word(result.objective, best),
        other_capex=i18n.usd(capex_of(best, other)), other_objective=objective_word(other, best)),
        bandwidth_against(result.best_plan, _sidebar_plan(), state.bandwidth_unit()))))
    if best.split:
        split = Split(*best.split)
        st.markdown(_("The training job's fastest split on it: **{split}**, global batch {batch}, {step} s per step, "
                      "{days} days (the split search of the Performance page, run for every design).").format(
            split=split.words(), batch=i18n.number(split.global_batch), step=units.seconds(split.step_s),
            days=units.days(split.days)))
    for line in result.explained(state.bandwidth_unit()):
        st.markdown("- " + safe.md(line))
    st.link_button(_("Open the cheapest design in the Designer"), _design_link(best.design), type="primary")


def _chart(result) -> None:
    event = charts.chart(figs.pareto_figure(result, unit=state.bandwidth_unit()), "full", key=W + "pareto",
                            on_select="rerun",
                            selection_mode=("points",), config={"displaylogo": False})
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    if points:  # the topmost trace's point (the star, then the front, then the cloud) where several were picked
        index = int(max(points, key=lambda point: point.get("curve_number", 0))["customdata"][0])
        chosen = next((c for c in result.candidates if c.index == index), None)
        if chosen is not None:
            c1, c2 = st.columns([4, 1])
            c1.markdown(unbroken(_("Selected: **{design}** ({objective}: {capex}).").format(
                design=safe.md(design_label(chosen)), capex=objective_text(chosen, result.objective),
                objective=objective_word(result.objective, chosen))))
            c2.link_button(_("Open in Designer"), _design_link(chosen.design), width="stretch")


def _tables(result) -> None:
    by_index = {c.index: c for c in result.candidates}
    st.markdown("#### " + _("Pareto front"))
    unit = state.bandwidth_unit()
    rows = figs.front_rows(result, unit)
    capex = figs.capex_title(result.objective, result.pareto)
    performance = figs.metric_title(result.metric, unit)
    money_metric = result.metric == "usd_per_mtok"  # a price per unit: the one money format, with cents
    # static tables: their cells wrap, so a design's words are whole at every width, and each front row's design
    # (each family's cheapest) is the link that opens it on the Designer (a data grid cut the words and hid a
    # link column past its right edge at 1,024 px)
    st.caption(i18n.sentences(front_rule(result.metric, unit), _("Click a design to open it in the Designer.")))
    shown = units.alike([r["performance"] for r in rows])  # the designs side by side (153 as the answer says)
    st.table(pd.DataFrame([{
        _("Design"): _linked(r["design"], by_index[r["index"]].design),
        capex: safe.md(r["capex"]),  # markdown cells: a dollar sign is text, not the start of a formula
        performance: safe.md(i18n.usd(r["performance_usd"], cents=True)) if money_metric else value,
        _("Tiers"): str(r["tiers"]), _("Switches"): i18n.number(r["switches"]),
        _("Facility power [kW]"): units.kw(r["power_kw"])} for r, value in zip(rows, shown)]), hide_index=True,
        border="horizontal")
    st.markdown("#### " + _("Switch families"))
    st.caption(_("Each family is a fabric, a leaf switch model (none for a topology without switches) and a "
                 "topology; a family with no design that meets every constraint shows what ruled most of it out."))
    st.table(pd.DataFrame([{
        _("Family"): safe.md(r["family"]), _("Candidates"): i18n.number(r["considered"]),
        _("Meet every constraint"): i18n.number(r["feasible"]),
        _("Cheapest"): _linked(r["cheapest"], by_index[r["cheapest_index"]].design)
        if r["cheapest_index"] is not None else "", _("Ruled out by"): safe.md(r["ruled_out_by"]),
    } for r in figs.family_rows(result)]), hide_index=True, border="horizontal")
    with st.expander(_("Rejected candidates by reason"), expanded=False):
        st.dataframe(pd.DataFrame([{_("Reason"): r["reason"], _("Candidates"): r["candidates"]}
                                   for r in figs.rejected_rows(result)]), hide_index=True, width="stretch",
                     column_config={_("Candidates"): COUNT})


def _found(progress) -> None:
    """What the search under way has found (``core.analysis.searchwatch.SearchProgress``): candidates decided, the
    best design and the Pareto front so far, redrawn with the progress bar."""
    st.caption(_("{done} of {total} candidates decided, {feasible} meet every constraint so far.").format(
        done=i18n.number(progress.done), total=i18n.number(progress.total), feasible=i18n.number(progress.feasible)))
    if progress.best is None:
        return
    st.markdown(unbroken(_("Best so far: **{design}**, {value} {objective}.").format(
        design=safe.md(design_label(progress.best)), value=objective_text(progress.best, progress.objective),
        objective=objective_word(progress.objective))))
    unit = state.bandwidth_unit()
    money = figs.capex_title(progress.objective)
    performance = figs.metric_title(progress.metric, unit)
    st.markdown("**" + _("Pareto front so far") + "**")
    shown = units.alike([figs.metric_value(c, progress.metric, unit) for c in progress.front])  # as ``_tables``
    st.table(pd.DataFrame([{  # wrapped as the finished front is (``_tables``)
        _("Design"): safe.md(design_label(c)), money: safe.md(money_text(c, progress.objective)),
        performance: safe.md(i18n.usd(c.usd_per_mtok, cents=True)) if progress.metric == "usd_per_mtok" else
        value} for c, value in zip(progress.front, shown)]), hide_index=True, border="horizontal")


def main() -> None:
    values = LINK.values()
    st.title(_("Optimize"))
    st.caption(_("Searches every buildable combination of fabric, switch per tier, port and uplink speed, NIC, "
                 "planes and plane mode, topology, tiers and leaf oversubscription (1, 1.5, 2, 3:1) for the "
                 "sidebar's design, and keeps the designs that meet every constraint. Capex at the design's "
                 "prices (estimates)."))
    LINK.show_warnings(_("Some values in the search link were not applied; the rest is shown."))
    if st.session_state.get("fp_current") is not None:
        state.show_warnings(st.session_state["fp_current"])  # the link's design keys, as on every page
    sidebar = _sidebar_design()
    if sidebar is None:
        state.set_page_link(PAGE_PATH, optimizelink.encode(values))
        return
    design, gpus, size = sidebar
    state.set_page_link(PAGE_PATH, optimizelink.encode(values))  # the search's settings, kept by a way out's link
    if state.first_pod_way_out("optimize", PAGE_PATH):  # a design with pods (core.analysis.whole)
        return
    for note in optimizelink.legacy_notes(st.session_state.pop("fp_opt_legacy", None) or {}, design.gpu, size):
        st.warning(safe.md(note))  # once: the old link's keys are the sidebar's now
    if values.get("bis"):
        st.warning(safe.md(_("This link sets the older constraint minimum bisection per GPU (bisection / all GPUs, "
                             "which reads half the NIC rate for a non-blocking fabric) = {value}; it still "
                             "applies. The page's constraint is now the maximum bisection ratio (1:1 = "
                             "non-blocking).").format(value=units.bandwidth(units.from_gbytes(values["bis"]), state.bandwidth_unit()))))
    _form(values, size, gpus, design.topology)
    state.set_page_link(PAGE_PATH, optimizelink.encode(values))
    if values.get("run") != "1":
        st.info(_("Set the constraints and press Search. A search of a few thousand designs takes seconds."))
        return
    refused = jobs.too_large("optimize", gpus) if values["mode"] != "envelope" else None
    if refused:
        st.error(safe.md(i18n.sentences(refused, _("For this design, with its file from the Designer (Design as "
                                                   "JSON): {command}").format(
            command="python -m core optimize --design design.json"))))  # --gpu/--gpus alone drop the sidebar's fields
        return
    key = _key(values, design, gpus)
    finished, result = jobs.result("optimize", key, jobwork.optimize_search, key, what=_("Searching the designs"),
                                   found=_found)
    if not finished:
        return
    if isinstance(result, FabricPlannerError):
        message, suggestion = safe.message(result)
        st.error(message + ("  \n" + suggestion if suggestion else ""))
        return
    if values["mode"] == "envelope":
        envelope, result = result, result.result
        st.info(_("Most GPUs whose cheapest design meets every constraint: **{gpus}** {gpu} GPUs ({searches} "
                  "searches). {next} GPUs do not fit: {reason}").format(
                      gpus=i18n.number(envelope.gpus), gpu=design.gpu, searches=envelope.searches,
                      next=i18n.number(envelope.next_gpus), reason=safe.md(envelope.next_reason or "-")))
    st.caption(searched_words(result))
    if result.best is None:
        st.error(safe.md(_("{size}: {explanation}").format(size=size, explanation=i18n.sentences(*result.explanation))))
    else:
        _best(result)
        _chart(result)
    _tables(result)


main()
