"""Performance: NCCL collectives and a training step on the design (thin: widgets -> core -> figures)."""

from __future__ import annotations

from typing import get_args

import pandas as pd
import streamlit as st

from core import units
from core import i18n
from core.errors import FabricPlannerError
from core.fabric.families import words
from core.figures.keynumbers import cards_html, training_key_numbers
from core.figures.subtitle import design_subtitle
from core.figures.perf import busbw_figure, collective_table_rows, comparison_figure, scaling_figure, step_figure
from core.formats import sharelink
from core.formats import joblink
from core.formats.joblink import COMPARE_FABRICS, COMPARE_LINK, LIMITS, MAX_COMPARE_LINK, NCCL_RELEASES
from core.i18n import N_, _, after_full_width
from core.perf import congestion, jobform, modelshape
from core.perf.collectives import (OPS, load_constants, nccl_release_scope, set_nccl_release, size_sweep, sweep,
                                   sharp_absent, validation_badge)
from core.perf.constants import library_label
from core.perf.training_calibration import error_band_sentence
from core.scaleup import accelerator_noun, domain_word, in_noun
from core.perf.compute import precision_label
from core.perf.training import CP_COMMS, OFFLOADS, PRESETS, Precision, scaling, scaling_gpu_counts
from core.analysis import podjob
from core.analysis.whole import plan_with_pods, whole_plan
from webui import calibration, charts, jobstate, pagestate, podpick, safe, state, tablefit, tables

W = jobstate.W
CP_COMM_LABELS = {"ring": N_("ring"), "all-to-all": N_("all-to-all")}
OFFLOAD_LABELS = {"none": N_("none"), "optimizer": N_("optimizer to CPU memory")}


def _design_and_plan():
    """The design from the app's sidebar (app.py) or, run on its own, from the share link."""
    cur = st.session_state.get("fp_current")
    if cur is not None:
        state.show_warnings(cur)  # the app's link warnings, as on the other pages
        return cur.design, cur.plan, cur.error, [], False
    design, warnings = sharelink.decode(pagestate.link_params())
    try:
        return design, plan_with_pods(design), None, warnings, True  # with its pods, as the sidebar
    except FabricPlannerError as exc:
        return design, None, exc, warnings, True


def _show_error(exc: BaseException) -> None:
    st.error(safe.error_text(exc))


def _standalone_language() -> None:
    """Run as a page of its own (AppTest of the page file), ``lang=`` of the link picks the language;
    in the app, app.py has set it already."""
    if "fp_current" not in st.session_state:
        chosen = i18n.from_locale(st.query_params.get("lang"))
        if chosen:
            i18n.set_language(chosen)


def _sentences(sentences: list[str]) -> str:
    """Sentences run together: a space after each in English, none after a Chinese full stop."""
    return ("" if i18n.current() == "zh" else " ").join(sentences)


def _number(col, label: str, key: str, step: int = 1, **kw):
    low, high = LIMITS[key]
    return col.number_input(label, min_value=low, max_value=high, step=step, key=W + key, **kw)



def _custom_model_inputs() -> str:
    """The custom model's inputs (one per ``modelshape.SHAPE_FIELDS``, labelled by the field's name, its help
    translated); returns the shape in the link's form (``modelshape.encode_shape``), or the values as given when
    they do not make a model (the estimate then says which field and why)."""
    values = {}
    with st.expander(_("Custom model"), expanded=True):
        cols = st.columns(6)
        for i, f in enumerate(modelshape.SHAPE_FIELDS):
            col, key = cols[i % 6], jobstate.SHAPE_W + f.name
            if f.kind == "choice":
                labels = modelshape.CHOICE_LABELS[f.name]
                values[f.name] = col.selectbox(f.name, list(modelshape.CHOICES[f.name]), key=key, help=_(f.help),
                                               format_func=lambda v, labels=labels: _(labels[v]))
            elif f.kind == "bool":
                values[f.name] = col.checkbox(f.name, key=key, help=_(f.help))
            else:
                values[f.name] = col.number_input(f.name, min_value=f.low, max_value=f.high, step=1, key=key,
                                                  help=_(f.help))
    try:
        return modelshape.encode_shape(modelshape.build_model(values))
    except FabricPlannerError:
        return ",".join(f"{k}:{int(v) if isinstance(v, bool) else v}" for k, v in values.items())


def _collective_table(rows: list[dict], unit: str) -> pd.DataFrame:
    """The collectives table with algbw and busbw (the engine's GB/s) as text in ``unit``, headers without one."""
    return pd.DataFrame(collective_table_rows(rows, unit))


def main() -> None:
    """The page, top to bottom; returns early (instead of st.stop) so app.py can still draw the share box."""
    _standalone_language()
    st.title(_("Performance"))
    link_warnings = jobstate.init(pagestate.link_params())
    design, plan, error, design_warnings, standalone = _design_and_plan()
    unit = state.bandwidth_unit()
    for w in sharelink.capped_warnings(design_warnings + link_warnings):
        st.warning(safe.md(w))
    if plan is None:
        if standalone:  # run on its own (no sidebar to apply a way out to): the error and its way out in words
            _show_error(error)
        else:  # the Designer's error and its way-out buttons, which set the sidebar (one renderer: state.show_error)
            state.show_error(st.session_state["fp_current"])
        return

    whole = plan  # the whole design: the fabric comparison changes it, then runs on the same pod (core.analysis.podjob)
    plan = podpick.pick_pod(plan, unit)  # a design with pods: the job runs on one pod (core.analysis.whole.pod_plan)
    design = plan.design
    r = plan.resolved
    jobstate.fit(plan)
    jobstate.seed_widgets(r.gpus)
    st.caption(after_full_width(  # the design as the Designer says it (core.figures.subtitle), then the job's model
        _("{design} · {scaleup} {domain} {noun} · {nics} NICs/node · {ratio} · {library}-style latency-bandwidth "
          "model").format(
            design=design_subtitle(plan), scaleup=domain_word(r.system), domain=r.nvlink_domain_gpus,
            noun=accelerator_noun(r.system, plural=True), library=library_label(r.system.collective_library),
            nics=r.nics_per_node,  # the job's fabric's, as its labels below; pods: the whole design's too
            ratio=jobform.ratio_caption(plan, whole_plan(whole).bandwidth.oversubscription)))
    )
    constants = load_constants()

    # --- network assumptions (collectives and training) ------------------------------------------------
    cols = st.columns(3)
    routing = cols[0].selectbox(
        _("Routing"), list(congestion.ROUTINGS), key=W + "rt", format_func=lambda k: _(congestion.ROUTING_LABELS[k]),
        help=_("From the design: InfiniBand uses adaptive routing; Ethernet on Spectrum-4 with a BlueField-3 SuperNIC "
               "or ConnectX-8 uses Spectrum-X adaptive routing; other Ethernet is RoCE with static ECMP. An override "
               "picks between the Ethernet classes."))
    placement = cols[1].selectbox(
        _("Rank placement"), list(congestion.PLACEMENTS), key=W + "pl",
        format_func=lambda k: _(congestion.PLACEMENT_LABELS[k]),
        help=words(plan.fabric.family, "perf:placement:help", N_(
            "Packed: nodes in topology order (a dedicated or topology-aware scheduler). Spread: nodes scattered "
            "over the cluster's leaf groups, as a busy shared cluster leaves them.")))
    nccl = st.session_state.get(W + "nccl", NCCL_RELEASES[0])
    if r.system.collective_library == "nccl":  # another library's tuning does not follow NCCL's releases
        nccl = cols[2].selectbox(
            _("NCCL release"), list(NCCL_RELEASES), key=W + "nccl",
            format_func=lambda v: _("{release} (current)").format(release=v) if v == NCCL_RELEASES[0] else v,
            help=_("The NCCL the prediction models. Releases differ in their tuning caps (tree, NVLS-tree) and, "
                   "before 2.30.3, in NVLS-tree on Blackwell across 4 or more NVLink domains, which ran far below "
                   "the ring (NVIDIA/nccl#2035) and is left out. Pick the release a measurement used to compare "
                   "with it."))
    set_nccl_release(nccl)  # for everything below (main runs inside nccl_release_scope)
    with congestion.assumptions(routing, placement):
        routing_in_force = jobform.routing_label(plan)

    # --- collectives ---------------------------------------------------------------------------------
    st.subheader(_("Collectives"))
    c1, c2, c3 = st.columns([2.2, 1.3, 2.0])  # the two toggles stacked: their labels fit at 1,024 px
    # the values are NCCL's operation names (the link's perf_op), shown as they are in every language
    ops = c1.multiselect(_("Collectives"), list(OPS), key=W + "op",
                         help=_("nccl-tests operations; S is the whole array."))
    job_gpus = c2.number_input(in_noun(_("GPUs in the communicator (0 = all)"), r.system), min_value=0,
                               max_value=r.gpus, step=1, key=W + "jg",
                               help=in_noun(_("0 = every GPU of the design. Ranks fill scale-up domains, then nodes, "
                                              "in order."), r.system))
    show_all = c3.toggle(_("Every algorithm"), key=W + "all", help=_("Off: only the fastest algorithm per collective."))
    absent = sharp_absent(plan)  # SHARP only where the fabric's switches reduce (core.perf.placement.sharp_case)
    in_network = absent is None
    sharp = c3.toggle(_("InfiniBand SHARP"), key=W + "sharp",
                      help=_("Off = what a stock NCCL run does. On: NCCL CollNet in-network reduction, which needs the "
                             "NCCL SHARP plugin (HPC-X), NCCL_COLLNET_ENABLE=1 and Quantum HDR or later switches with "
                             "SHARP enabled. InfiniBand only.")) if in_network else \
        st.session_state.get(W + "sharp", False)  # no SHARP on another fabric or without switches: not shown, kept
    if absent:  # the algorithms listed below have no SHARP: say why
        c3.caption(_("SHARP: none. {reason}").format(reason=absent))
    use_sharp = bool(sharp) and in_network

    n = int(job_gpus) or r.gpus
    if not ops:
        st.info(_("Pick at least one collective."))
    else:
        try:
            with congestion.assumptions(routing, placement):
                sweeps = [sweep(plan, op, size_sweep(8, 16 * 2**30, 64), gpus=n, **jobform.sharp_option(use_sharp))
                          for op in ops]
                rows = jobform.collective_rows(plan, ops, n, sharp=use_sharp)
            refs = [ref for op in ops for ref in constants.references(r.system.id, n, op, r.nics_per_node)]
            badge = validation_badge(sweeps)
            if badge:  # a library without published measurements on this placement: say so by the chart
                st.badge(_("not validated"), color="orange")
                st.caption(safe.md(badge))
            charts.chart(busbw_figure(sweeps, refs, show_all_algorithms=show_all, unit=unit, system=r.system), "full",
                            key="busbw_chart",
                            config={"displaylogo": False})
            release_notes = list(dict.fromkeys(note for s in sweeps for note in s.notes))
            st.caption(safe.md(_sentences(jobform.placement_notes(sweeps, n, r.system.id, refs, routing_in_force,
                                                                  placement, unit, plan.fabric.family)
                                          + release_notes)))
            st.dataframe(_collective_table(rows, unit), hide_index=True, width="stretch")
        except FabricPlannerError as exc:
            _show_error(exc)

    if not standalone:  # in the app: calibrate the model on the cluster's own nccl-tests logs
        calibration.section(st.session_state["fp_current"])

    # --- training settings ---------------------------------------------------------------------------
    st.subheader(_("Training step"))
    # three rows, so every label and value fits half of a 1,024 px page; select values are ids (the link's),
    # only their labels are translated, so a language switch keeps every setting
    cols = st.columns([2, 1, 1])
    model = cols[0].selectbox(_("Model"), [*PRESETS, modelshape.CUSTOM], key=W + "model",
                              format_func=lambda k: _("Custom model (by its shape)") if k == modelshape.CUSTOM
                              else PRESETS[k].name)
    seq = _number(cols[1], _("Sequence length"), "seq", step=1024)
    gbs = _number(cols[2], _("Global batch"), "gbs", step=64, help=_("sequences per step"))
    cols = st.columns(4)
    mbs = _number(cols[0], _("Micro-batch"), "mbs")
    prec = cols[1].selectbox(_("Precision"), list(get_args(Precision)), key=W + "prec", format_func=precision_label,
                             help=_("FP8 with per-tensor or 128-element block scaling; MXFP8 and NVFP4 need Blackwell"))
    tokens = cols[2].number_input(_("Tokens [T]"), min_value=0.001, max_value=1000.0, step=0.5, key=W + "tok",
                                  format="%.3g", help=_("tokens to train, in trillions"))
    eff = cols[3].number_input(_("FLOP/s fraction"), min_value=0.0, max_value=1.0, step=0.05, key=W + "eff",
                               help=_("achievable fraction of dense peak for the math; 0 = from the GPU, the precision "
                                      "and the model's shapes (fitted to published runs)"))
    cols = st.columns(6)
    tp = _number(cols[0], "TP", "tp", help=_("tensor parallel"))
    pp = _number(cols[1], "PP", "pp", help=_("pipeline parallel"))
    cp = _number(cols[2], "CP", "cp", help=_("context parallel"))
    ep = _number(cols[3], "EP", "ep", help=_("expert parallel (mixture-of-experts models only)"))
    vp = _number(cols[4], "VP", "vp", help=_("virtual pipeline stages per GPU (interleaving shrinks the bubble)"))
    tg = cols[5].number_input(in_noun(_("GPUs"), r.system), min_value=0, max_value=r.gpus, step=8, key=W + "tg",
                              help=_("GPUs the training job uses; 0 = the most GPUs of the design that tp x pp x cp "
                                     "divides (and whose smallest global batch stays within 1,000,000 sequences)"))
    arch = _custom_model_inputs() if model == modelshape.CUSTOM else jobstate.stored_arch()
    # rows of at most three: each label whole at 1,024 px ("Compare with", "CP exchange" broke mid-word in one row
    # of six; "Ethernet RoCE 2:1" was cut with the toggle beside it), the sharding toggle under the ZeRO stage
    cols = st.columns([1.4, 2])
    choices = joblink.compare_choices(plan.fabric.family)  # a torus: no leaves, so no 2:1 rows
    st.session_state[W + "cmp"] = joblink.compare_choice(st.session_state.get(W + "cmp"), plan.fabric.family)
    choice = cols[0].selectbox(
        _("Compare with"), list(choices), key=W + "cmp",
        format_func=lambda k: _("another design (share link)") if k == COMPARE_LINK else
        joblink.compare_label(k, plan.fabric.family),
        help=_("The same job on this design with another fabric (switch and speed re-chosen), or on any design: "
               "paste its share link."))
    link_text = cols[1].text_input(
        _("Share link of the design to compare with"), key=W + "cmpl", max_chars=MAX_COMPARE_LINK,
        disabled=choice != COMPARE_LINK, placeholder=sharelink.example_link(design),
        help=_("Copy the link of any design (the Share box of the app) and paste it here."))
    cols = st.columns(3)
    zero = cols[0].selectbox(
        _("ZeRO stage"), list(joblink.ZERO_CHOICES), key=W + "zero",
        format_func=lambda k: _("auto (1; 2 if sharded)") if k == "auto" else k,
        help=_("What data-parallel ranks shard: 0 nothing, 1 the optimizer state, 2 the gradients too, 3 the "
               "parameters too (FSDP full sharding: each layer's parameters gathered in forward and again in "
               "backward, its gradients reduce-scattered, every micro-batch)."))
    cpc = cols[1].selectbox(
        _("CP exchange"), list(CP_COMMS), key=W + "cpc", format_func=lambda k: _(CP_COMM_LABELS[k]),
        help=_("How context parallelism (CP > 1) exchanges attention inputs: a ring of sends pipelined with the "
               "attention math, or all-to-alls that scatter the heads (DeepSpeed-Ulysses; the heads per TP rank "
               "must split over CP)."))
    offload = cols[2].selectbox(
        _("CPU offload"), list(OFFLOADS), key=W + "off", format_func=lambda k: _(OFFLOAD_LABELS[k]),
        help=_("ZeRO-Offload: the optimizer state (fp32 master weights, Adam moments and gradients of the GPU's "
               "shard) in host memory and Adam on the CPU. The gradients go to the host during backward "
               "(overlapped); the updated parameters come back before the next forward (not overlapped)."))
    shard = st.toggle(_("Shard gradients"), key=W + "zg",  # below the ZeRO stage its "auto" follows
                      help=_("ZeRO-2 / FSDP as Llama 3 was trained: each GPU keeps an fp32 shard of the "
                             "gradients plus one model chunk's accumulator, reduced by reduce-scatter; off = "
                             "full gradients with the distributed optimizer (ZeRO-1)."))
    settings = {"op": tuple(ops), "all": "1" if show_all else "0", "jg": int(job_gpus), "model": model, "seq": int(seq),
                "gbs": int(gbs), "mbs": int(mbs), "prec": prec, "tp": int(tp), "pp": int(pp), "cp": int(cp),
                "ep": int(ep), "vp": int(vp), "tg": int(tg), "tok": float(tokens), "eff": float(eff), "cmp": choice,
                "cmpl": str(link_text or "").strip(), "rt": routing, "pl": placement, "sharp": "1" if sharp else "0",
                "nccl": nccl, "zg": "1" if shard else "0", "arch": arch, "zero": zero, "cpc": cpc,
                "off": offload, "pod": int(st.session_state.get(podpick.KEY, 1))}
    jobstate.remember(settings)
    if standalone:
        jobstate.sync_url_standalone()

    # --- training: results ---------------------------------------------------------------------------
    try:
        job = jobform.job_from_settings(plan, settings)
        here = jobform.estimate_under(plan, job, settings, ways_out=True)
    except FabricPlannerError as exc:
        _show_error(exc)
        return

    this_label = jobform.fabric_label(plan)
    other, other_error, alt_plan, alt_label, what_if = None, None, None, "", ""
    try:
        if choice == COMPARE_LINK:
            alt_design, alt_warnings = joblink.compare_design(settings["cmpl"])
            for w in sharelink.capped_warnings(alt_warnings):
                st.warning(safe.md(_("Comparison link: {warning}").format(warning=w)))
            alt_plan = podjob.linked_alternative(alt_design, settings["pod"])
            alt_label = jobform.linked_label(alt_plan)
        else:
            alt_plan = podjob.fabric_alternative(whole, COMPARE_FABRICS[choice][1], settings["pod"])
            alt_label, what_if = jobform.bought_what_if(plan, jobform.alternative_label(alt_plan))
            what_if = i18n.sentences(what_if, jobform.buildable_alternative(
                whole.design, COMPARE_FABRICS[choice][1], whole.resolved.fabric)[1])  # a way out taken
        other = jobform.estimate_under(alt_plan, job, settings)
    except FabricPlannerError as exc:
        other_error = exc

    st.markdown(cards_html(training_key_numbers(here, r.system)), unsafe_allow_html=True)  # escaped in core
    rounded = jobform.batch_note(plan, settings)  # the default global batch rounded to the replicas
    if rounded:
        st.caption(safe.md(rounded))
    st.caption(safe.md(jobform.memory_caption(here, job.model.name, settings, r.system)))
    st.caption(safe.md(error_band_sentence(r.system.architecture, job.precision, job.model.is_moe)))

    steps = {this_label: here}
    if other is not None:
        steps[alt_label] = other
    charts.chart(step_figure(steps), "full", key="step_chart", config={"displaylogo": False})
    comm = jobform.communication_rows(here, r.system)
    if comm:  # the numbers as the review pack writes them (core.units.cell); where the time goes fits 1,024 px
        comm_frame = pd.DataFrame([{k: v if isinstance(v, str) else units.cell(v) for k, v in row.items()}
                                   for row in comm])
        comm_order, comm_config = tablefit.comm_columns(comm_frame)
        st.dataframe(comm_frame, hide_index=True, width="stretch", column_order=comm_order, column_config=comm_config)

    # --- scaling ---------------------------------------------------------------------------------------
    st.subheader(_("Scaling"))
    model_parallel = job.tp * job.pp * job.cp
    with congestion.assumptions(routing, placement):
        rows = scaling(plan, job, scaling_gpu_counts(model_parallel, r.gpus, here.gpus))
    if len(rows) >= 2:
        charts.chart(scaling_figure(rows), "full", key="scaling_chart", config={"displaylogo": False})
        st.caption(_("Weak scaling: each point adds data-parallel replicas with the same batch per replica; "
                     "efficiency is tokens/s per GPU relative to the smallest job that fits."))
    else:
        st.info(_("Scaling needs at least two GPU counts that fit this split; plan more nodes or lower tp x pp x cp."))

    # --- two fabrics -------------------------------------------------------------------------------------
    st.subheader(_("Two fabrics, same job"))
    if what_if:  # a cloud design against a bought fabric, or the compared fabric after a way out
        st.caption(safe.md(what_if))
    if other is None:
        _show_error(other_error)
    else:
        charts.chart(comparison_figure([
            {"label": this_label, "days": here.days_to_train, "cost_usd": here.cost_usd},
            {"label": alt_label, "days": other.days_to_train, "cost_usd": other.cost_usd}]), "full",
            key="compare_chart", config={"displaylogo": False})
        with congestion.assumptions(routing, placement):
            compared = jobform.comparison_rows([(this_label, here, plan), (alt_label, other, alt_plan)])
        money_columns = [_(c) for c in (jobform.RUN_COST_USD, jobform.CLUSTER_CAPEX_USD)]
        compared_frame = tables.money(compared, money_columns)  # days and cost in view at 1,024 px
        fabrics_order, fabrics_config = tablefit.fabrics_columns(
            compared_frame, money_columns, [_(c) for c in jobform.COMPARISON_NUMBER_COLUMNS])
        st.dataframe(compared_frame, hide_index=True, width="stretch", column_order=fabrics_order,
                     column_config=fabrics_config)
        st.caption(_("{fabric}: {days} days and {usd} for this run versus this design. Costs are the job's share "
                     "of each cluster's TCO per day (capex over the TCO years plus energy), from catalog price "
                     "estimates.").format(fabric=alt_label, days=units.days(other.days_to_train - here.days_to_train, signed=True),
                                          usd=i18n.usd(other.cost_usd - here.cost_usd, signed=True)))
        basis = podjob.comparison_basis(whole, alt_plan, settings["pod"])
        if basis:  # a design with pods: which pod and which cost both runs use
            st.caption(safe.md(basis))
        runs = [(this_label, plan), (alt_label, alt_plan)]
        contrast = jobform.placement_contrast(runs, job, settings)
        st.caption(safe.md(_sentences(([contrast] if contrast else []) + jobform.congestion_notes(runs, settings))))


with nccl_release_scope():  # the NCCL release widget's choice holds for this run only
    main()
