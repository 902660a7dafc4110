"""The Performance page's job settings turned into engine inputs, and its tables and notes.

The page (and later the Compare page) holds a flat dict of settings, keyed as in the share link
(``core.formats.joblink``: ``model``, ``seq``, ``gbs``, ``mbs``, ``prec``, ``tp``, ``pp``, ``cp``,
``ep``, ``vp``, ``tg``, ``tok``, ``eff``). This module:

* ``fitted_defaults`` chooses the model, tp, pp and global batch the user left alone so the job
  fits the design (a 2-node and a 131,072-GPU design both open without an error);
* ``training_gpus`` and ``job_from_settings`` build the ``TrainingJob``;
* ``alternative_design`` is the same design on another fabric;
* ``collective_rows``, ``placement_notes``, ``communication_rows`` and ``comparison_rows`` are the
  page's tables and captions as plain data.
"""

from __future__ import annotations

from typing import Mapping

from core.design import Design, parse_design
from core.errors import DesignError, FabricPlannerError
from core.perf.collectives import IN_NETWORK, Sweep, sweep
from core.perf.sizes import format_size
from core.perf.training import MAX_GLOBAL_BATCH, PRESETS, TrainingEstimate, estimate, fitting_split, parse_job
from core.plan import Plan, plan as make_plan

FITTED = ("model", "tp", "pp", "gbs")
"""Settings the page refits to the design while the user has not set them."""
SIZES_SHOWN = (8, 2**20, 64 * 2**20, 2**30, 16 * 2**30)
"""Message sizes [bytes] of the Performance page's table."""


def training_gpus(plan: Plan, settings: Mapping) -> int:
    """GPUs the training job uses: ``tg``, or (0) the most that tp x pp x cp divides and whose
    smallest global batch (micro-batch x dp) stays within ``MAX_GLOBAL_BATCH``. 0 if none fit."""
    model_parallel = int(settings["tp"]) * int(settings["pp"]) * int(settings["cp"])
    asked = int(settings.get("tg") or 0)
    if asked:
        return min(asked, plan.resolved.gpus)
    dp = plan.resolved.gpus // model_parallel
    dp = min(dp, MAX_GLOBAL_BATCH // max(1, int(settings["mbs"])))
    return dp * model_parallel


def job_from_settings(plan: Plan, settings: Mapping):
    """The ``TrainingJob`` of ``settings`` on ``plan``; ``DesignError`` when the split exceeds the design."""
    gpus = training_gpus(plan, settings)
    model_parallel = int(settings["tp"]) * int(settings["pp"]) * int(settings["cp"])
    if gpus < 1:
        raise DesignError(f"tp x pp x cp = {model_parallel} is more than the design's {plan.resolved.gpus:,} GPUs.",
                          "Lower the model-parallel degrees or plan more nodes.")
    return parse_job(dict(
        model=settings["model"], seq_len=int(settings["seq"]), global_batch=int(settings["gbs"]),
        micro_batch=int(settings["mbs"]), precision=settings["prec"], tp=int(settings["tp"]),
        pp=int(settings["pp"]), cp=int(settings["cp"]), ep=int(settings["ep"]), vp=int(settings["vp"]),
        gpus=gpus, compute_efficiency=float(settings.get("eff") or 0) or None,
        tokens_to_train=float(settings.get("tok", 1.0)) * 1e12))


def _split(plan: Plan, model: str, fixed: Mapping, defaults: Mapping) -> dict:
    """tp, pp and global batch for ``model``: values in ``fixed`` kept (None = free), the others the
    defaults cut to fit (``core.perf.training.fitting_split``)."""
    job_gpus = training_gpus(plan, {**fixed, "tp": 1, "pp": 1, "cp": 1}) if int(fixed.get("tg") or 0) else None
    split = fitting_split(
        plan, PRESETS[model], cp=int(fixed["cp"]), micro_batch=int(fixed["mbs"]), vp=int(fixed["vp"]),
        job_gpus=job_gpus, tp=fixed.get("tp"), pp=fixed.get("pp"), global_batch=fixed.get("gbs"),
        default_tp=defaults["tp"], default_pp=defaults["pp"], default_global_batch=defaults["gbs"])
    return {"model": model, "tp": split["tp"], "pp": split["pp"], "gbs": split["global_batch"]}


def _fits(plan: Plan, settings: Mapping) -> bool:
    try:
        estimate(plan, job_from_settings(plan, settings))
    except FabricPlannerError:
        return False
    return True


def fitted_defaults(plan: Plan, fixed: Mapping, free: set[str], defaults: Mapping) -> dict:
    """Values for the settings in ``free`` (a subset of ``FITTED``) chosen so the job fits ``plan``.

    The default model if it fits in memory, else the largest smaller preset that does; tp, pp and
    the global batch from ``fitting_split``. ``fixed`` holds the settings the user or the link set
    (every key of ``defaults``); ``defaults`` are the link defaults (``core.formats.joblink.DEFAULTS``).
    """
    default = defaults["model"]
    if "model" in free:
        size = PRESETS[default].total_params
        models = [default] + sorted((k for k in PRESETS if PRESETS[k].total_params < size),
                                    key=lambda k: -PRESETS[k].total_params)
    else:
        models = [fixed["model"]]
    first = None
    for model in models:
        values = _split(plan, model, {**fixed, **{k: None for k in free if k != "model"}}, defaults)
        first = first or values
        if _fits(plan, {**fixed, **values}):
            return {k: values[k] for k in free}
    return {k: first[k] for k in free}


def alternative_design(design: Design, changes: Mapping, current_fabric: str) -> Design:
    """``design`` with ``changes`` (fabric, oversubscription); a new fabric gets its own switch and speed."""
    data = design.model_dump(exclude_defaults=True)
    if changes.get("fabric", current_fabric) != current_fabric:
        for key in ("switch", "port_speed_gbps"):
            data.pop(key, None)
    data.update(changes)
    return parse_design(data)


def alternative_plan(design: Design, changes: Mapping, current_fabric: str) -> Plan:
    return make_plan(alternative_design(design, changes, current_fabric))


def collective_rows(plan: Plan, ops, gpus: int, sizes=SIZES_SHOWN) -> list[dict]:
    """The fastest algorithm, time, algbw and busbw of each collective at each size in ``sizes``."""
    rows = []
    for op in ops:
        pick = sweep(plan, op, list(sizes), gpus=gpus)
        t, a, pr = pick.best()
        for size, tt, aa, pp_, bw, bb in zip(sizes, t, a, pr, pick.algbw(t), pick.busbw(t)):
            rows.append({"collective": op, "size": format_size(size), "fastest": f"{aa} ({pp_})",
                         "time [us]": round(float(tt), 1), "algbw [GB/s]": float(f"{bw:.4g}"),
                         "busbw [GB/s]": float(f"{bb:.4g}")})
    return rows


def placement_notes(sweeps: list[Sweep], gpus: int, system_id: str, references: list) -> list[str]:
    """What the busbw chart assumes and shows, in sentences."""
    p = sweeps[0].placement
    notes = [f"{gpus:,} GPUs: {p.domains:,} NVLink domain(s) of {p.ranks_per_domain}"
             + (f" (the last holds {p.last}, and its NICs set the fabric pace)" if p.last != p.ranks_per_domain
                else "")
             + f", {p.nodes:,} node(s), {p.groups:,} leaf group(s), {p.pods:,} pod(s); farthest path: "
             f"{p.level} ({p.hops} switch hops).",
             "Ring and tree all-reduce assume ideal rank placement and no ECMP collisions, so "
             "oversubscription mostly affects all-to-all (MoE)."]
    if references:
        notes.append("Red markers: published nccl-tests measurements (" + "; ".join(
            f"{ref.label}: {ref.source}" for ref in references) + ").")
        notes.append("Known gap: between about 64 KB and 64 MB the model is optimistic (8x A100 +18-64%, "
                     "H200 and GB200 +30-40% at 1 MB, H100 +25% at 64 KB) because it does not model NCCL's "
                     "per-channel protocol limits; large messages are within 15%.")
    else:
        notes.append(f"No published nccl-tests points for {gpus:,} x {system_id} in the reference set "
                     "(8 GPUs of A100, H100, H200, H800; 4 x GB200; 16 x A100 with 4 NICs; 1,984 x H200).")
    if any(name in IN_NETWORK for sw in sweeps for name in sw.curves):
        notes.append("NVLS and SHARP reduce inside the switch, so their busbw (computed with the "
                     "point-to-point factor 2(n-1)/n, as nccl-tests does) exceeds the link rate: it is the "
                     "link speed a ring would need to match them, not a real link speed.")
    return notes


def communication_rows(estimate_: TrainingEstimate) -> list[dict]:
    """One row per parallelism's communication: group, calls, volume, time, hidden share, exposed time."""
    rows = []
    for c in estimate_.summary()["communication"]:
        rows.append({"parallelism": c["parallelism"], "collective": c["collective"], "group": c["group_size"],
                     "calls": c["calls"], "volume [GB]": c["volume_gbytes"], "time [s]": c["time_s"],
                     "hidden": f"{c['hidden_fraction']:.0%}", "exposed [s]": c["exposed_s"],
                     "algorithm": c["algorithm"], "over": c["fabric_level"]})
    return rows


def fabric_label(plan: Plan) -> str:
    r = plan.resolved
    return (f"This design ({'InfiniBand' if r.fabric == 'infiniband' else 'Ethernet RoCE'}, "
            f"{plan.bandwidth.oversubscription:g}:1)")


def comparison_rows(runs: list[tuple[str, TrainingEstimate, Plan]]) -> list[dict]:
    """The same job on several designs: step, throughput, days and the run's and cluster's cost."""
    return [
        {"fabric": label, "switch": p.resolved.switch.id, "step [s]": round(e.step_time_s, 3),
         "tokens/s": round(e.tokens_per_s), "communicating": f"{e.comm_fraction:.1%}",
         "days": round(e.days_to_train, 2), "run cost [USD]": round(e.cost_usd),
         "cluster capex [USD]": round(p.cost.capex_usd), "network share": f"{p.cost.network_share:.1%}"}
        for label, e, p in runs]


def memory_caption(estimate_: TrainingEstimate, model_name: str, settings: Mapping) -> str:
    """Parameters, the split and memory per GPU in one sentence, plus the estimate's warnings."""
    s = estimate_.summary()
    return (f"{model_name}: {s['params_b']:,.1f}B parameters ({s['active_params_b']:,.1f}B active), "
            f"{estimate_.gpus:,} GPUs = tp {settings['tp']} x pp {settings['pp']} x cp {settings['cp']} x dp "
            f"{estimate_.dp}; {estimate_.microbatches} micro-batches per step; memory per GPU "
            + ", ".join(f"{k} {v:.1f}" for k, v in estimate_.memory_gb.items())
            + f" GB of {estimate_.hbm_gb:g} GB. " + " ".join(estimate_.warnings))
