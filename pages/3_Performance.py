"""Performance: NCCL collectives and a training step on the design (thin: widgets -> core -> figures)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import FabricPlannerError
from core.figures.keynumbers import cards_html, size_caption, training_key_numbers
from core.figures.perf import busbw_figure, comparison_figure, scaling_figure, step_figure
from core.formats import sharelink
from core.formats.joblink import COMPARE_FABRICS, LIMITS
from core.perf import jobform
from core.perf.collectives import OPS, load_constants, size_sweep, sweep
from core.perf.training import PRESETS, estimate, scaling, scaling_gpu_counts
from core.plan import plan as make_plan
from webui import jobstate, safe, state

W = jobstate.W


def _design_and_plan():
    """The design from the app's sidebar (app.py) or, run on its own, from the share link."""
    cur = st.session_state.get("fp_current")
    if cur is not None:
        state.show_warnings(cur)  # the app's link warnings, as on the other pages
        return cur.design, cur.plan, cur.error, [], False
    design, warnings = sharelink.decode(st.query_params.to_dict())
    try:
        return design, make_plan(design), None, warnings, True
    except FabricPlannerError as exc:
        return design, None, exc, warnings, True


def _show_error(exc: BaseException) -> None:
    message, suggestion = safe.message(exc)
    st.error(message + (f"\n\n**What would work:** {suggestion}" if suggestion else ""))


def _number(col, label: str, key: str, step: int = 1, **kw):
    low, high = LIMITS[key]
    return col.number_input(label, min_value=low, max_value=high, step=step, key=W + key, **kw)



def main() -> None:
    """The page, top to bottom; returns early (instead of st.stop) so app.py can still draw the share box."""
    st.title("Performance")
    link_warnings = jobstate.init(st.query_params.to_dict())
    design, plan, error, design_warnings, standalone = _design_and_plan()
    for w in design_warnings + link_warnings:
        st.warning(safe.md(w))
    if plan is None:
        _show_error(error)
        return

    r = plan.resolved
    jobstate.fit(plan)
    jobstate.seed_widgets(r.gpus)
    st.caption(
        f"{size_caption(plan)} · NVLink domain {r.nvlink_domain_gpus} GPUs · "
        f"{'InfiniBand' if r.fabric == 'infiniband' else 'Ethernet RoCE'} {r.port_speed_gbps}G x {r.nics_per_node} "
        f"NICs/node · {plan.fabric.tiers} tier(s) · oversubscription {plan.bandwidth.oversubscription:g}:1 · "
        "NCCL-style latency-bandwidth model; constants and sources: assets/catalog/collectives.toml"
    )
    constants = load_constants()

    # --- collectives ---------------------------------------------------------------------------------
    st.subheader("Collectives")
    c1, c2, c3 = st.columns([2.2, 1.3, 1.5])
    ops = c1.multiselect("Collectives", list(OPS), key=W + "op", help="nccl-tests operations; S is the whole array.")
    job_gpus = c2.number_input("GPUs in the communicator (0 = all)", min_value=0, max_value=r.gpus, step=1, key=W + "jg",
                               help="0 = every GPU of the design. Ranks fill NVLink domains, then nodes, in order.")
    show_all = c3.toggle("Every algorithm", key=W + "all", help="Off: only the fastest algorithm per collective.")

    n = int(job_gpus) or r.gpus
    if not ops:
        st.info("Pick at least one collective.")
    else:
        try:
            sweeps = [sweep(plan, op, size_sweep(8, 16 * 2**30, 64), gpus=n) for op in ops]
            refs = [ref for op in ops for ref in constants.references(r.system.id, n, op, r.nics_per_node)]
            st.plotly_chart(busbw_figure(sweeps, refs, show_all_algorithms=show_all), key="busbw_chart",
                            config={"displaylogo": False})
            st.caption(safe.md(" ".join(jobform.placement_notes(sweeps, n, r.system.id, refs))))
            st.dataframe(pd.DataFrame(jobform.collective_rows(plan, ops, n)), hide_index=True, width="stretch")
        except FabricPlannerError as exc:
            _show_error(exc)

    # --- training settings ---------------------------------------------------------------------------
    st.subheader("Training step")
    # three rows, so every label and value fits half of a 1,024 px page
    cols = st.columns([2, 1, 1])
    model = cols[0].selectbox("Model", list(PRESETS), key=W + "model", format_func=lambda k: PRESETS[k].name)
    seq = _number(cols[1], "Sequence length", "seq", step=1024)
    gbs = _number(cols[2], "Global batch", "gbs", step=64, help="sequences per step")
    cols = st.columns(4)
    mbs = _number(cols[0], "Micro-batch", "mbs")
    prec = cols[1].selectbox("Precision", ["bf16", "fp8"], key=W + "prec")
    tokens = cols[2].number_input("Tokens [T]", min_value=0.001, max_value=1000.0, step=0.5, key=W + "tok",
                                  format="%.3g", help="tokens to train, in trillions")
    eff = cols[3].number_input("FLOP/s fraction", min_value=0.0, max_value=1.0, step=0.05, key=W + "eff",
                               help="achievable fraction of dense peak for the math; 0 = default "
                                    f"({constants.training.compute_efficiency:g} bf16, "
                                    f"{constants.training.fp8_compute_efficiency:g} fp8, "
                                    f"{constants.training.moe_compute_efficiency:g} MoE)")
    cols = st.columns(6)
    tp = _number(cols[0], "TP", "tp", help="tensor parallel")
    pp = _number(cols[1], "PP", "pp", help="pipeline parallel")
    cp = _number(cols[2], "CP", "cp", help="context parallel")
    ep = _number(cols[3], "EP", "ep", help="expert parallel (mixture-of-experts models only)")
    vp = _number(cols[4], "VP", "vp", help="virtual pipeline stages per GPU (interleaving shrinks the bubble)")
    tg = cols[5].number_input("GPUs", min_value=0, max_value=r.gpus, step=8, key=W + "tg",
                              help="GPUs the training job uses; 0 = the most GPUs of the design that tp x pp x cp "
                                   "divides (and whose smallest global batch stays within 1,000,000 sequences)")
    choice = st.selectbox("Compare with", list(COMPARE_FABRICS), key=W + "cmp",
                          format_func=lambda k: COMPARE_FABRICS[k][0],
                          help="The same job on this design with another fabric (switch and speed re-chosen).")
    settings = {"op": tuple(ops), "all": "1" if show_all else "0", "jg": int(job_gpus), "model": model, "seq": int(seq),
                "gbs": int(gbs), "mbs": int(mbs), "prec": prec, "tp": int(tp), "pp": int(pp), "cp": int(cp),
                "ep": int(ep), "vp": int(vp), "tg": int(tg), "tok": float(tokens), "eff": float(eff), "cmp": choice}
    jobstate.remember(settings)
    if standalone:
        jobstate.sync_url_standalone()

    # --- training: results ---------------------------------------------------------------------------
    try:
        job = jobform.job_from_settings(plan, settings)
        here = estimate(plan, job)
    except FabricPlannerError as exc:
        _show_error(exc)
        return

    alt_label = COMPARE_FABRICS[choice][0]
    this_label = jobform.fabric_label(plan)
    other, other_error, alt_plan = None, None, None
    try:
        alt_plan = jobform.alternative_plan(design, COMPARE_FABRICS[choice][1], r.fabric)
        other = estimate(alt_plan, job)
    except FabricPlannerError as exc:
        other_error = exc

    st.markdown(cards_html(training_key_numbers(here)), unsafe_allow_html=True)  # escaped in core
    st.caption(safe.md(jobform.memory_caption(here, PRESETS[model].name, settings)))

    steps = {this_label: here}
    if other is not None:
        steps[alt_label] = other
    st.plotly_chart(step_figure(steps), key="step_chart", config={"displaylogo": False})
    comm = jobform.communication_rows(here)
    if comm:
        st.dataframe(pd.DataFrame(comm), hide_index=True, width="stretch")

    # --- scaling ---------------------------------------------------------------------------------------
    st.subheader("Scaling")
    model_parallel = job.tp * job.pp * job.cp
    rows = scaling(plan, job, scaling_gpu_counts(model_parallel, r.gpus, here.gpus))
    if len(rows) >= 2:
        st.plotly_chart(scaling_figure(rows), key="scaling_chart", config={"displaylogo": False})
        st.caption("Weak scaling: each point adds data-parallel replicas with the same batch per replica; "
                   "efficiency is tokens/s per GPU relative to the smallest job that fits.")
    else:
        st.info("Scaling needs at least two GPU counts that fit this split; plan more nodes or lower tp x pp x cp.")

    # --- two fabrics -------------------------------------------------------------------------------------
    st.subheader("Two fabrics, same job")
    if other is None:
        _show_error(other_error)
    else:
        st.plotly_chart(comparison_figure([
            {"label": this_label, "days": here.days_to_train, "cost_usd": here.cost_usd},
            {"label": alt_label, "days": other.days_to_train, "cost_usd": other.cost_usd}]),
            key="compare_chart", config={"displaylogo": False})
        st.dataframe(pd.DataFrame(jobform.comparison_rows([(this_label, here, plan), (alt_label, other, alt_plan)])),
                     hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(c, format="localized")
                                    for c in ("tokens/s", "run cost [USD]", "cluster capex [USD]")})
        st.caption(f"{alt_label}: {other.days_to_train - here.days_to_train:+,.2f} days and "
                   f"{other.cost_usd - here.cost_usd:+,.0f} USD for this run versus this design. "
                   "Costs are the job's share of each cluster's TCO per day (capex over the TCO years plus energy), "
                   "from catalog price estimates.")


main()
