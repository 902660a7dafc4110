"""Inference: a model served on the sidebar's design, its latency, throughput, cost and the network's part (thin:
widgets -> core.formats.inferencelink -> webui.inference -> core.perf.serving -> core.figures)."""

from __future__ import annotations

import json
from typing import get_args

import pandas as pd
import streamlit as st

from core import i18n, units
from core.figures.keynumbers import cards_html, kv_key_numbers, serving_key_numbers, size_caption
from core.figures.serving import (TABLE_COLUMNS, compared_note, comparison_rows, fabric_idle_note, fabric_load_caption,
                                  fabric_load_note, fabric_load_rows, fabric_load_title, time_figure)
from core.formats import inferencelink as link
from core.formats.serving_exports import serving_export_file_name, serving_exports
from core.i18n import N_, _
from core.perf.serving import AUTO_PRECISION, KvPrecision, PrecisionSetting, default_precision, pool_name
from core.perf.serving_constants import load_serving_constants
from core.perf.training import PRESETS
from core.design import tidy_spaces
from core.scaleup import domain_word, in_noun, link_word
from webui import cached, charts, inference, inferencestate, podpick, safe, state, tables

PAGE_PATH = "inference"
W = "inf_w_"  # widget key prefix
SEARCHED = "fp_inf_search"  # the last split search's explanation rows
MODES = {"disaggregated": N_("disaggregated"), "aggregated": N_("aggregated")}
LOADS = {"none": N_("none (the most within the targets)"), "rate": N_("request rate"),
         "conc": N_("concurrency")}
SPLIT_LABELS = {"n": N_("Nodes"), "tp": "TP", "dp": "DP", "ep": "EP", "pp": "PP", "rx": N_("Redundant experts")}
SPLIT_HELP = {"n": N_("nodes of the design in this pool"), "tp": N_("tensor parallel: GPUs sharing each layer"),
              "dp": N_("attention data parallel: ranks of one instance, each with its own sequences"),
              "ep": N_("expert parallel: GPUs the experts of a layer spread over (mixture-of-experts models)"),
              "pp": N_("pipeline parallel: stages holding the layers"),
              "rx": N_("extra copies of busy experts so the expert slots split evenly over ep")}
AUTO_HELP = N_("0 = chosen for the design; the split in force is in the table below.")

LINK, STORE = inferencestate.LINK, inferencestate.STORE


def _seed(store: dict, key: str) -> str:
    """The widget key of setting ``key``, given the stored value when Streamlit dropped its state."""
    if W + key not in st.session_state:
        st.session_state[W + key] = store[key]
    return W + key


def _number(col, store: dict, key: str, label: str, step: float, **kw):
    low, high = link.widget_limits(key)
    whole = isinstance(link.DEFAULTS[key], int)
    kind = int if whole else float
    return col.number_input(label, min_value=kind(low), max_value=kind(high), step=kind(step),
                            key=_seed(store, key), **kw)


def _show_error(exc: BaseException, box=st.error) -> None:
    box(safe.error_text(exc))


def _precision_word(value: str, system) -> str:
    """A weight-precision option: ``auto`` with what it means on the design's accelerator (``default_precision``)."""
    if value != AUTO_PRECISION:
        return value.upper()
    return _("auto ({precision})").format(precision=default_precision(system).upper()) if system else _("auto")


def _model_controls(store: dict, system=None) -> None:
    # four columns of their own, the KV cache's narrow: "auto (BF16)" whole at 1,024 px (two precisions sharing
    # a column cut it to "auto (I")
    c1, c2, c3, c4 = st.columns([1.1, 1.1, 1.1, 0.7])
    store["model"] = c1.selectbox(_("Model"), list(PRESETS), key=_seed(store, "model"),
                                  format_func=lambda k: PRESETS[k].name)
    store["mode"] = c2.selectbox(_("Serving mode"), list(MODES), key=_seed(store, "mode"),
                                 format_func=lambda k: _(MODES[k]),
                                 help=_("Disaggregated: a prefill pool hands each request's KV cache to a decode "
                                        "pool over the network. Aggregated: one pool does both."))
    store["prec"] = c3.selectbox(_("Precision"), list(get_args(PrecisionSetting)), key=_seed(store, "prec"),
                                 format_func=lambda v: _precision_word(v, system),
                                 help=_("of the weights; auto = FP8 where the accelerator runs FP8, else BF16; FP4 "
                                        "on GPUs that have it"))
    store["kvp"] = c4.selectbox(_("KV cache"), list(get_args(KvPrecision)), key=_seed(store, "kvp"), format_func=str.upper,
                                help=_("precision of the KV cache"))


def _workload_controls(store: dict) -> None:
    c1, c2, c3 = st.columns(3)
    store["in"] = _number(c1, store, "in", _("Input tokens"), 100, help=_("prompt tokens per request"))
    store["out"] = _number(c2, store, "out", _("Output tokens"), 100, help=_("generated tokens per request"))
    store["hit"] = _number(c3, store, "hit", _("Prefix-cache hit rate"), 0.05, format="%g",
                           help=_("share of the prompt's tokens already in the prefix cache"))
    c1, c2, c3, c4 = st.columns([1.6, 1.2, 1.2, 1.2])
    share = load_serving_constants().memory.default_utilisation
    store["load"] = c1.radio(_("Load"), list(LOADS), key=_seed(store, "load"),
                             format_func=lambda k: _(LOADS[k]).format(share=units.percent(share)),
                             help=_("None: the largest request rate that meets the TTFT and TPOT targets; without a "
                                    "target, {share} of what the busier pool can serve. A request rate is an open loop "
                                    "(requests arrive whatever the latency); a concurrency a closed loop (a new "
                                    "request when one finishes).").format(share=units.percent(share)))
    if store["load"] == "conc":
        store["conc"] = _number(c2, store, "conc", _("Requests in flight"), 16)
    else:
        store["rate"] = _number(c2, store, "rate", _("Requests/s"), 1.0, disabled=store["load"] != "rate",
                                format="%.3g")
    store["ttft"] = _number(c3, store, "ttft", _("TTFT target [ms]"), 100.0, format="%g",
                            help=_("time to first token; 0 = no target"))
    store["tpot"] = _number(c4, store, "tpot", _("TPOT target [ms]"), 5.0, format="%g",
                            help=_("time per output token; 0 = no target"))


def _pool_controls(store: dict, pool: str, title: str) -> None:
    st.markdown("**" + title + "**")
    cols = st.columns([1.1, 1, 1, 1, 1, 1.9])  # "Redundant experts" on one line at 1,024 px
    auto = _(AUTO_HELP)
    dense = not PRESETS[store["model"]].is_moe
    for col, key in zip(cols, link.SPLIT_FIELDS):
        label = _(SPLIT_LABELS[key]) if key in ("n", "rx") else SPLIT_LABELS[key]
        store[pool + key] = _number(col, store, pool + key, label, 1, help=i18n.sentences(_(SPLIT_HELP[key]), auto),
                                    disabled=dense and key in ("ep", "rx"))


def _split_table(e, system) -> None:
    """The pools in force: nodes, GPUs (``system``'s noun), instances and split, batch and utilisation."""
    pools = [e.decode] if e.deployment.mode == "aggregated" else [e.prefill, e.decode]
    rows = [{_("Pool"): pool_name(p.name, len(pools) == 1), _("Nodes"): p.split.nodes, in_noun(_("GPUs"), system): p.gpus, _("Instances"): p.replicas,
             "TP": p.split.tp, "DP": p.split.dp, "EP": p.split.ep, "PP": p.split.pp,
             _("Redundant experts"): p.split.redundant_experts,
             _("Batch per rank"): round(p.batch, 1), _("Most per rank"): p.max_batch,
             _("Utilisation"): units.percent(p.utilisation)} for p in pools]
    tables.show_turned(rows, _("Pool"))  # a column per pool: twelve fields across were cut at 1,024 px
    st.caption(_("Batch per rank: decode sequences (prefill: new tokens) per attention rank in one step; most per "
                 "rank: what the KV cache beside the weights holds."))


def _search_box(plan, store: dict, served) -> None:
    """The serving search's answers for the split in force (``Served.max_rate``, ``Served.ratio``) and a button
    that puts the cheapest split into the controls."""
    rate = served.max_rate
    notes = [_("Largest load within the targets: {rate} requests/s.").format(rate=units.number(rate))
             if rate is not None else _("No load meets the targets with this split.")]
    if served.ratio is not None:
        notes.append(_("Prefill:decode nodes that balance the pools: {ratio}.").format(ratio=f"{served.ratio:.2f}"))
    st.markdown(i18n.sentences(*(safe.md(n) for n in notes)))
    st.button(_("Find the cheapest split that meets the targets"), key=W + "search", on_click=_search,
              args=(plan, dict(store)))
    rows = st.session_state.get(SEARCHED)
    if rows:
        with st.expander(_("Splits the search tried"), expanded=False):
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def _exports(cur, served) -> None:
    """Download buttons: the deployment as each serving simulator's input, or why it cannot be one."""
    st.subheader(_("For serving simulators"))
    cols = st.columns(max(1, len(served.exports)))
    for col, (name, text) in zip(cols, served.exports.items()):
        label = _(serving_exports()[name].label)
        if isinstance(text, Exception):
            # the export's name above why it cannot be: its name ends in a list ("dense models, aggregated
            # deployments") and the reason has a colon of its own, so one line read "...: ...: ..."
            col.caption(f"**{safe.md(label)}**  \n{safe.message(text)[0]}")
            continue
        col.download_button(label, text, file_name=serving_export_file_name(cur.plan, name),
                            mime=serving_exports()[name].mime, key=W + "export_" + name)


def _search(plan, values: dict) -> None:
    """Button callback: run the search and put its best deployment's split into the controls."""
    result = inference.search(plan, values)
    st.session_state[SEARCHED] = list(result.explain())
    if result.best is not None:
        for key, value in inference.split_values(result.best).items():
            st.session_state[STORE][key] = value
            st.session_state[W + key] = value


def _comparison(results: list[tuple[str, object]], system=None) -> None:
    """The comparison table (``core.figures.serving.comparison_rows``; ``system``: the rows' one system, or None),
    then each design that cannot serve the deployment with its reason and what would work."""
    tables.show_turned(comparison_rows(results, system), _(TABLE_COLUMNS[0]), fit=True)  # a column per design
    for label, result in results:
        if isinstance(result, Exception):
            message, suggestion = safe.message(result)
            st.warning(safe.with_way_out(_("{label}: {note}").format(label=f"**{safe.md(label)}**", note=message),
                                         suggestion))


@st.cache_resource(max_entries=32, show_spinner=False)
def _served(key: str, language: str, _design, _plan, _values: dict):
    """``webui.inference.serve`` of ``key`` (the design and the settings as JSON) in ``language``, and its time
    figure (None when the deployment does not serve)."""
    with i18n.language(language):
        served = inference.serve(_design, _plan, _values)
        if isinstance(served.here, Exception):
            return served, None
        shown = {label: e for label, e in [*served.mine.items(), *served.others] if not isinstance(e, Exception)}
        links = {**dict.fromkeys(shown, link_word(_plan.resolved.system)), **served.links}
        rate = inference.compared_rate(served.here, _values)
        return served, cached.frozen(time_figure(shown, scaleup_links=links, rate=rate))


def _what_if(here, without, plan) -> None:
    """The same deployment without the compute fabric (KV transfer over the front-end network, every instance in
    one scale-up domain of ``plan``), or why it cannot be."""
    st.subheader(_("Without the compute fabric"))
    if isinstance(without, Exception):
        _show_error(without, st.warning)
        return
    _comparison([(_("with the compute fabric"), here), (_("without: front-end network only"), without)],
                plan.resolved.system)
    st.caption(i18n.sentences(tidy_spaces(_(
        "Without the compute fabric every instance stays inside one {domain} and the KV cache moves over the "
        "front-end network (the storage network's ports, else the catalog's front-end figure).").format(
        domain=domain_word(plan.resolved.system))), _(
        "Its cost and energy leave out the compute fabric: its switches, optics, cables and compute NICs, their "
        "capex and their power.")))


def _results(cur, plan, store: dict) -> None:
    key = json.dumps({"design": plan.design.model_dump_json(), "values": store}, sort_keys=True)
    served, figure = _served(key, i18n.locale(), plan.design, plan, dict(store))
    here = served.here
    if isinstance(here, Exception):
        _show_error(here)
        return
    system = plan.resolved.system
    st.markdown(cards_html(serving_key_numbers(here, system)), unsafe_allow_html=True)  # escaped in core
    for warning in here.warnings:
        st.warning(safe.md(warning))
    _split_table(here, system)
    st.markdown("**" + fabric_load_title() + "**")
    st.dataframe(pd.DataFrame(fabric_load_rows(here, cur.unit, system, plan.fabric.family)), hide_index=True, width="stretch")
    st.caption(i18n.sentences(fabric_load_caption(system, plan.fabric.family), fabric_idle_note(here, system),
                              fabric_load_note(here, plan.fabric.family)))
    _search_box(plan, store, served)
    if here.kv is not None:
        st.subheader(_("KV-cache transfer"))
        st.markdown(cards_html(kv_key_numbers(here.kv, cur.unit)), unsafe_allow_html=True)
    _what_if(here, served.without, plan)
    st.subheader(_("The same deployment on other designs"))
    rate = inference.compared_rate(here, store)
    note = compared_note(here, served.mine[_("this design")], rate, system)
    if note:
        st.caption(safe.md(note))
    charts.chart(figure, "full", key=W + "time", config={"displaylogo": False})
    _comparison([(_("this design"), served.mine[_("this design")]), *served.others])
    st.caption(_("Each design, this one too, serves this design's request rate, {rate} requests/s, so the times "
                 "compare at the same load, with the split the CLI's serve --rate chooses for that design at that "
                 "rate (the fewest GPUs that serve it within the targets), so this design's row can use fewer GPUs "
                 "than the deployment above; a split you fixed is kept, on the same GPUs per pool. The split rows "
                 "name each one and how many GPUs it uses; a design that cannot keep up shows an unbounded time. "
                 "Costs are each cluster's TCO share, from catalog price estimates.").format(
        rate=units.number(rate)))
    _exports(cur, served)


def main() -> None:
    store = LINK.values()
    st.title(_("Inference"))
    st.caption(_("A model served on the sidebar's design: time to first token, time per output token, throughput "
                 "and cost per token, and the network's part in them."))
    LINK.show_warnings(_("Some values in the inference link were not applied; the rest is shown."))
    cur = st.session_state.get("fp_current")
    if cur is not None:
        state.show_warnings(cur)  # the link's design keys (an unknown key or value), as on every page
    _model_controls(store, cur.plan.resolved.system if cur is not None and cur.plan is not None else None)
    _workload_controls(store)
    disaggregated = store["mode"] == "disaggregated"
    given = any(store[pool + key] for pool in link.POOLS for key in link.SPLIT_FIELDS)
    with st.expander(_("Pools and splits (0 = chosen for the design)"), expanded=given):
        if disaggregated:
            _pool_controls(store, "p", _("Prefill pool"))
        _pool_controls(store, "d", _("Decode pool") if disaggregated else _("Serving pool"))
    state.set_page_link(PAGE_PATH, link.encode(store))
    if cur is None:  # run on its own: no sidebar design
        st.info(_("The sidebar's design cannot be built; fix it there first."))
        return
    if cur.plan is None:  # the Designer's error and its way-out buttons, which set the sidebar (state.show_error)
        state.show_error(cur)
        return
    plan = podpick.pick_pod(cur.plan, cur.unit, "deployment")  # a design with pods: the deployment runs on one pod
    st.caption(safe.md(size_caption(plan)))
    _results(cur, plan, store)


main()
