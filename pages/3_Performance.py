"""Performance: NCCL collectives and a training step on the design (thin: widgets -> core -> figures)."""

from __future__ import annotations


import pandas as pd
import streamlit as st

from core.formats import sharelink
from core.perf.collectives import IN_NETWORK, OPS, format_size, load_constants, size_sweep, sweep
from core.design import Design, parse_design
from core.errors import FabricPlannerError
from core.figures.perf import busbw_figure, comparison_figure, scaling_figure, step_figure
from core.plan import plan as make_plan
from core.perf.training import PRESETS, estimate, fitting_split, parse_job, scaling, scaling_gpu_counts
from webui import state

FABRIC_CHOICES = {
    "eth2": ("Ethernet RoCE, 2:1", dict(fabric="ethernet", oversubscription=2.0)),
    "eth1": ("Ethernet RoCE, non-blocking", dict(fabric="ethernet", oversubscription=1.0)),
    "ib1": ("InfiniBand, non-blocking", dict(fabric="infiniband", oversubscription=1.0)),
    "ib2": ("InfiniBand, 2:1", dict(fabric="infiniband", oversubscription=2.0)),
}
SIZES_SHOWN = [8, 2**20, 64 * 2**20, 2**30, 16 * 2**30]


def _ops(text: str) -> tuple[str, ...]:
    values = tuple(dict.fromkeys(v.strip().lower() for v in text.split(",") if v.strip()))
    if not values or any(v not in OPS for v in values):
        raise sharelink.ParamError("not a list of collectives")
    return values


P = sharelink.Param
PERF = sharelink.register_extension("perf_", [
    P("op", "collectives", _ops, ",".join, ("all-reduce",), "comma-separated: " + ", ".join(OPS)),
    P("all", "show every algorithm", sharelink.parse_choice(["1", "0"]), str, "1", "1 or 0"),
    P("jg", "collective GPUs (0 = all)", sharelink.parse_int(0, 1_000_000), str, 0, "0 to 1,000,000"),
    P("model", "model", sharelink.parse_choice(list(PRESETS)), str, "llama3-70b", ", ".join(PRESETS)),
    P("seq", "sequence length", sharelink.parse_int(128, 1_048_576), str, 8192, "128 to 1,048,576"),
    P("gbs", "global batch", sharelink.parse_int(1, 1_000_000), str, 512, "1 to 1,000,000"),
    P("mbs", "micro-batch", sharelink.parse_int(1, 64), str, 1, "1 to 64"),
    P("prec", "precision", sharelink.parse_choice(["bf16", "fp8"]), str, "bf16", "bf16 or fp8"),
    P("tp", "tensor parallel", sharelink.parse_int(1, 64), str, 8, "1 to 64"),
    P("pp", "pipeline parallel", sharelink.parse_int(1, 128), str, 4, "1 to 128"),
    P("cp", "context parallel", sharelink.parse_int(1, 64), str, 1, "1 to 64"),
    P("ep", "expert parallel", sharelink.parse_int(1, 1024), str, 1, "1 to 1024"),
    P("vp", "virtual pipeline stages", sharelink.parse_int(1, 64), str, 1, "1 to 64"),
    P("tg", "training GPUs (0 = all that fit)", sharelink.parse_int(0, 1_000_000), str, 0, "0 to 1,000,000"),
    P("tok", "tokens to train [T]", sharelink.parse_float(0.001, 1000.0), sharelink.format_number, 1.0,
      "0.001 to 1000 (trillions)"),
    P("eff", "achievable FLOP/s fraction (0 = default)", sharelink.parse_float(0.0, 1.0), sharelink.format_number,
      0.0, "0 to 1"),
    P("cmp", "comparison fabric", sharelink.parse_choice(list(FABRIC_CHOICES)), str, "eth2",
      ", ".join(FABRIC_CHOICES)),
])
W = "perf_w_"  # widget keys
DEFAULTS = {p.key: p.default for p in PERF.params}


def _design_and_plan():
    """The design from the app's sidebar (app.py) or, run on its own, from the share link."""
    cur = st.session_state.get("fp_current")
    if cur is not None:
        state.show_warnings(cur)  # the app's link warnings, as on the other pages
        return cur.design, cur.plan, cur.error, []
    design, warnings = sharelink.decode(st.query_params.to_dict())
    try:
        return design, make_plan(design), None, warnings
    except FabricPlannerError as exc:
        return design, None, exc, warnings


def _init_widgets() -> list[str]:
    """First run of the session: the link's perf_ values become the widgets' state."""
    if st.session_state.get("_perf_init"):
        return []
    params = st.query_params.to_dict()
    values, warnings = PERF.decode(params)
    for key, value in values.items():
        st.session_state[W + key] = list(value) if key == "op" else value
    st.session_state[W + "all"] = values["all"] == "1"
    # values the link did not set are defaults, refitted to the design (see _fit_defaults)
    st.session_state["_perf_fitted"] = {k: None for k in FITTED if PERF.prefix + k not in params}
    st.session_state["_perf_init"] = True
    return warnings


def _split(plan, model: str, fixed: dict) -> dict:
    """tp, pp and global batch for ``model`` on ``plan``: values in ``fixed`` kept, the others the page's
    defaults cut to fit (see core.training.fitting_split)."""
    split = fitting_split(
        plan, PRESETS[model], cp=int(fixed["cp"]), micro_batch=int(fixed["mbs"]), vp=int(fixed["vp"]),
        job_gpus=int(fixed["tg"] or 0) or None, tp=fixed.get("tp"), pp=fixed.get("pp"), global_batch=fixed.get("gbs"),
        default_tp=DEFAULTS["tp"], default_pp=DEFAULTS["pp"], default_global_batch=DEFAULTS["gbs"])
    return {"model": model, "tp": split["tp"], "pp": split["pp"], "gbs": split["global_batch"]}


def _fits(plan, values: dict, fixed: dict) -> bool:
    job = dict(model=values["model"], seq_len=int(fixed["seq"]), global_batch=int(values["gbs"]),
               micro_batch=int(fixed["mbs"]), precision=fixed["prec"], tp=int(values["tp"]), pp=int(values["pp"]),
               cp=int(fixed["cp"]), ep=int(fixed["ep"]), vp=int(fixed["vp"]),
               gpus=min(int(fixed["tg"] or 0), plan.resolved.gpus) or None)
    try:
        estimate(plan, parse_job(job))
    except FabricPlannerError:
        return False
    return True


def fitted_defaults(plan, fixed: dict, free: set[str]) -> dict:
    """The model, tp, pp and global batch in ``free`` chosen so the job fits ``plan`` (a 2-node and a
    131,072-GPU design both open without an error): the default model if it fits in memory, else the
    largest smaller preset that does. ``fixed`` holds the widget values the user or the link set."""
    default = DEFAULTS["model"]
    if "model" in free:
        size = PRESETS[default].total_params
        models = [default] + sorted((k for k in PRESETS if PRESETS[k].total_params < size),
                                    key=lambda k: -PRESETS[k].total_params)
    else:
        models = [fixed["model"]]
    first = None
    for model in models:
        values = _split(plan, model, {**fixed, **{k: None for k in free if k != "model"}})
        first = first or values
        if _fits(plan, values, fixed):
            return {k: values[k] for k in free}
    return {k: first[k] for k in free}


FITTED = ("model", "tp", "pp", "gbs")


def _fit_defaults(plan) -> None:
    """Keep the defaults the user has not changed fitted to the current design; a value the user or the
    link set is left alone (it may not fit: the page then says why)."""
    ss = st.session_state
    fitted = {k: v for k, v in (ss.get("_perf_fitted") or {}).items() if v is None or ss.get(W + k) == v}
    design_key = plan.design.model_dump_json()
    if fitted and (None in fitted.values() or ss.get("_perf_fitted_for") != design_key):
        fixed = {k: ss.get(W + k) for k in ("model", "tp", "pp", "gbs", "cp", "mbs", "tg", "seq", "prec", "ep",
                                            "vp")}
        fit = fitted_defaults(plan, fixed, set(fitted))
        for key in fitted:
            ss[W + key] = fitted[key] = fit[key]
    ss["_perf_fitted"] = fitted
    ss["_perf_fitted_for"] = design_key


def _sync_url(values: dict) -> None:
    wanted = PERF.encode(values)
    qp = st.query_params
    current = qp.to_dict()
    changes = {k: v for k, v in wanted.items() if current.get(k) != v}
    if changes:
        qp.update(changes)
    for key in current:
        if key.startswith(PERF.prefix) and key not in wanted:
            del qp[key]


def _show_error(exc: FabricPlannerError) -> None:
    message = getattr(exc, "message", None) or str(exc)
    suggestion = getattr(exc, "suggestion", "")
    st.error(message + (f"\n\n**What would work:** {suggestion}" if suggestion else ""))


def _alternative(design: Design, choice: str) -> Design:
    label, changes = FABRIC_CHOICES[choice]
    data = design.model_dump(exclude_defaults=True)
    for key in ("switch", "port_speed_gbps"):  # the other fabric has its own switches and speeds
        if changes["fabric"] != (design.fabric or make_plan(design).resolved.fabric):
            data.pop(key, None)
    data.update(changes)
    return parse_design(data)


# ------------------------------------------------------------------------------------------------
st.title("Performance")
link_warnings = _init_widgets()
design, plan, error, design_warnings = _design_and_plan()
for w in design_warnings + link_warnings:
    st.warning(w)
if plan is None:
    _show_error(error) if isinstance(error, FabricPlannerError) else st.error(str(error))
    st.stop()

r = plan.resolved
_fit_defaults(plan)
st.caption(
    f"{r.gpus:,} x {r.system.id} in {r.nodes:,} nodes · NVLink domain {r.nvlink_domain_gpus} GPUs · "
    f"{'InfiniBand' if r.fabric == 'infiniband' else 'Ethernet RoCE'} {r.port_speed_gbps}G x {r.nics_per_node} "
    f"NICs/node · {plan.fabric.tiers} tier(s) · oversubscription {plan.bandwidth.oversubscription:g}:1 · "
    "NCCL-style latency-bandwidth model; constants and sources: assets/catalog/collectives.toml"
)
constants = load_constants()
ss = st.session_state

# --- collectives ---------------------------------------------------------------------------------
st.subheader("Collectives")
c1, c2, c3 = st.columns([3, 1.2, 1.2])
ops = c1.multiselect("Collectives", list(OPS), key=W + "op", help="nccl-tests operations; S is the whole array.")
ss[W + "jg"] = min(int(ss.get(W + "jg") or 0), r.gpus)
job_gpus = c2.number_input("GPUs in the communicator (0 = all)", min_value=0, max_value=r.gpus, step=1, key=W + "jg",
                           help="0 = every GPU of the design. Ranks fill NVLink domains, then nodes, in order.")
show_all = c3.toggle("Every algorithm", key=W + "all", help="Off: only the fastest algorithm per collective.")
n = int(job_gpus) or r.gpus
if not ops:
    st.info("Pick at least one collective.")
else:
    try:
        sizes = size_sweep(8, 16 * 2**30, 64)
        sweeps = [sweep(plan, op, sizes, gpus=n) for op in ops]
        refs = [ref for op in ops for ref in constants.references(r.system.id, n, op, r.nics_per_node)]
        st.plotly_chart(busbw_figure(sweeps, refs, show_all_algorithms=show_all), key="busbw_chart",
                        config={"displaylogo": False})
        p = sweeps[0].placement
        notes = [f"{n:,} GPUs: {p.domains:,} NVLink domain(s) of {p.ranks_per_domain}"
                 + (f" (the last holds {p.last}, and its NICs set the fabric pace)" if p.last != p.ranks_per_domain
                    else "")
                 + f", {p.nodes:,} node(s), {p.groups:,} leaf group(s), {p.pods:,} pod(s); farthest path: "
                 f"{p.level} ({p.hops} switch hops).",
                 "Ring and tree all-reduce assume ideal rank placement and no ECMP collisions, so "
                 "oversubscription mostly affects all-to-all (MoE)."]
        if refs:
            notes.append("Red markers: published nccl-tests measurements (" + "; ".join(
                f"{ref.label}: {ref.source}" for ref in refs) + ").")
            notes.append("Known gap: between about 64 KB and 64 MB the model is optimistic (8x A100 +18-64%, "
                         "H200 and GB200 +30-40% at 1 MB, H100 +25% at 64 KB) because it does not model NCCL's "
                         "per-channel protocol limits; large messages are within 15%.")
        else:
            notes.append(f"No published nccl-tests points for {n:,} x {r.system.id} in the reference set "
                         "(8 GPUs of A100, H100, H200, H800; 4 x GB200; 16 x A100 with 4 NICs; 1,984 x H200).")
        if any(name in IN_NETWORK for sw in sweeps for name in sw.curves):
            notes.append("NVLS and SHARP reduce inside the switch, so their busbw (computed with the "
                         "point-to-point factor 2(n-1)/n, as nccl-tests does) exceeds the link rate: it is the "
                         "link speed a ring would need to match them, not a real link speed.")
        st.caption(" ".join(notes))
        rows = []
        for sw in sweeps:
            pick = sweep(plan, sw.op, SIZES_SHOWN, gpus=n)
            t, a, pr = pick.best()
            for size, tt, aa, pp_, bw, bb in zip(SIZES_SHOWN, t, a, pr, pick.algbw(t), pick.busbw(t)):
                rows.append({"collective": sw.op, "size": format_size(size), "fastest": f"{aa} ({pp_})",
                             "time [us]": round(float(tt), 1), "algbw [GB/s]": float(f"{bw:.4g}"),
                             "busbw [GB/s]": float(f"{bb:.4g}")})
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    except FabricPlannerError as exc:
        _show_error(exc)

# --- training --------------------------------------------------------------------------------------
st.subheader("Training step")
cols = st.columns([1.7, 1, 1, 0.8, 0.8, 1])
model = cols[0].selectbox("Model", list(PRESETS), key=W + "model", format_func=lambda k: PRESETS[k].name)
seq = cols[1].number_input("Sequence length", min_value=128, max_value=1_048_576, step=1024, key=W + "seq")
gbs = cols[2].number_input("Global batch [sequences]", min_value=1, max_value=1_000_000, step=64, key=W + "gbs")
mbs = cols[3].number_input("Micro-batch", min_value=1, max_value=64, step=1, key=W + "mbs")
prec = cols[4].selectbox("Precision", ["bf16", "fp8"], key=W + "prec")
tokens = cols[5].number_input("Tokens to train [T]", min_value=0.001, max_value=1000.0, step=0.5, key=W + "tok",
                              format="%.3g")
cols = st.columns(7)
tp = cols[0].number_input("TP", min_value=1, max_value=64, step=1, key=W + "tp", help="tensor parallel")
pp = cols[1].number_input("PP", min_value=1, max_value=128, step=1, key=W + "pp", help="pipeline parallel")
cp = cols[2].number_input("CP", min_value=1, max_value=64, step=1, key=W + "cp", help="context parallel")
ep = cols[3].number_input("EP", min_value=1, max_value=1024, step=1, key=W + "ep",
                          help="expert parallel (mixture-of-experts models only)")
vp = cols[4].number_input("VP", min_value=1, max_value=64, step=1, key=W + "vp",
                          help="virtual pipeline stages per GPU (interleaving shrinks the bubble)")
ss[W + "tg"] = min(int(ss.get(W + "tg") or 0), r.gpus)
tg = cols[5].number_input("Training GPUs", min_value=0, max_value=r.gpus, step=8, key=W + "tg",
                          help="0 = the most GPUs of the design that tp x pp x cp divides")
eff = cols[6].number_input("FLOP/s fraction", min_value=0.0, max_value=1.0, step=0.05, key=W + "eff",
                           help="achievable fraction of dense peak for the math; 0 = default "
                                f"({constants.training.compute_efficiency:g} bf16, "
                                f"{constants.training.fp8_compute_efficiency:g} fp8, "
                                f"{constants.training.moe_compute_efficiency:g} MoE)")
choice = st.selectbox("Compare with", list(FABRIC_CHOICES), key=W + "cmp",
                      format_func=lambda k: FABRIC_CHOICES[k][0],
                      help="The same job on this design with another fabric (switch and speed re-chosen).")

values = {"op": tuple(ops), "all": "1" if show_all else "0", "jg": int(job_gpus), "model": model, "seq": int(seq),
          "gbs": int(gbs), "mbs": int(mbs), "prec": prec, "tp": int(tp), "pp": int(pp), "cp": int(cp),
          "ep": int(ep), "vp": int(vp), "tg": int(tg), "tok": float(tokens), "eff": float(eff), "cmp": choice}
_sync_url(values)

model_parallel = int(tp) * int(pp) * int(cp)
train_gpus = int(tg) or (r.gpus // model_parallel) * model_parallel
job_data = dict(model=model, seq_len=int(seq), global_batch=int(gbs), micro_batch=int(mbs), precision=prec,
                tp=int(tp), pp=int(pp), cp=int(cp), ep=int(ep), vp=int(vp), gpus=train_gpus or None,
                compute_efficiency=float(eff) or None, tokens_to_train=float(tokens) * 1e12)
try:
    if train_gpus < 1:
        raise FabricPlannerError(f"tp x pp x cp = {model_parallel} is more than the design's {r.gpus:,} GPUs. "
                                 "Lower the model-parallel degrees or plan more nodes.")
    job = parse_job(job_data)
    here = estimate(plan, job)
except FabricPlannerError as exc:
    _show_error(exc)
    st.stop()

alt_label = FABRIC_CHOICES[choice][0]
this_label = f"This design ({'InfiniBand' if r.fabric == 'infiniband' else 'Ethernet RoCE'}, " \
             f"{plan.bandwidth.oversubscription:g}:1)"
other, other_error = None, None
try:
    alt_plan = make_plan(_alternative(design, choice))
    other = estimate(alt_plan, job)
except FabricPlannerError as exc:
    other_error = exc

s = here.summary()
m = st.columns(6)
m[0].metric("Step time", f"{here.step_time_s:.2f} s", border=True)
m[1].metric("Tokens/s", f"{here.tokens_per_s:,.0f}", border=True)
m[2].metric("MFU", f"{here.mfu:.1%}", border=True, help="model FLOPs / (GPUs x dense peak x time)")
m[3].metric("Communicating", f"{here.comm_fraction:.1%}", border=True,
            help="share of the step spent in communication that compute does not hide")
m[4].metric("Days to train", f"{here.days_to_train:,.1f}", border=True,
            help=f"{job.tokens_to_train:.3g} tokens at this throughput")
m[5].metric("Cost of the run", f"${here.cost_usd / 1e6:,.2f}M", border=True,
            help="share of the cluster's TCO per day (catalog price estimates) x days")
st.caption(f"{PRESETS[model].name}: {s['params_b']:,.1f}B parameters ({s['active_params_b']:,.1f}B active), "
           f"{here.gpus:,} GPUs = tp {tp} x pp {pp} x cp {cp} x dp {here.dp}; {here.microbatches} micro-batches "
           f"per step; memory per GPU " + ", ".join(f"{k} {v:.1f}" for k, v in here.memory_gb.items())
           + f" GB of {here.hbm_gb:g} GB. " + " ".join(here.warnings))

steps = {this_label: here}
if other is not None:
    steps[alt_label] = other
st.plotly_chart(step_figure(steps), key="step_chart", config={"displaylogo": False})
comm = pd.DataFrame(s["communication"])
if not comm.empty:
    comm = comm.rename(columns={"parallelism": "parallelism", "volume_gbytes": "volume [GB]", "time_s": "time [s]",
                                "exposed_s": "exposed [s]", "group_size": "group", "fabric_level": "over"})
    comm.pop("overlap")
    comm["hidden"] = comm.pop("hidden_fraction").map(lambda v: f"{v:.0%}")
    st.dataframe(comm[["parallelism", "collective", "group", "calls", "volume [GB]", "time [s]", "hidden",
                       "exposed [s]", "algorithm", "over"]], hide_index=True, width="stretch")

# --- scaling ---------------------------------------------------------------------------------------
st.subheader("Scaling")
counts = scaling_gpu_counts(model_parallel, r.gpus, train_gpus)
rows = scaling(plan, job, counts)
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
    rows = [{"label": this_label, "days": here.days_to_train, "cost_usd": here.cost_usd},
            {"label": alt_label, "days": other.days_to_train, "cost_usd": other.cost_usd}]
    st.plotly_chart(comparison_figure(rows), key="compare_chart", config={"displaylogo": False})
    table = pd.DataFrame([
        {"fabric": label, "switch": p_.resolved.switch.id, "step [s]": round(e.step_time_s, 3),
         "tokens/s": round(e.tokens_per_s), "communicating": f"{e.comm_fraction:.1%}",
         "days": round(e.days_to_train, 2), "run cost [USD]": round(e.cost_usd),
         "cluster capex [USD]": round(p_.cost.capex_usd), "network share": f"{p_.cost.network_share:.1%}"}
        for label, e, p_ in ((this_label, here, plan), (alt_label, other, alt_plan))])
    st.dataframe(table, hide_index=True, width="stretch")
    delta_days = other.days_to_train - here.days_to_train
    delta_cost = other.cost_usd - here.cost_usd
    st.caption(f"{alt_label}: {delta_days:+,.2f} days and {delta_cost:+,.0f} USD for this run versus this design. "
               "Costs are the job's share of each cluster's TCO per day (capex over the TCO years plus energy), "
               "from catalog price estimates.")
