"""The Performance page's job settings turned into engine inputs, and its tables and notes.

The page (and later the Compare page) holds a flat dict of settings, keyed as in the share link
(``core.formats.joblink``: ``model``, ``seq``, ``gbs``, ``mbs``, ``prec``, ``tp``, ``pp``, ``cp``,
``ep``, ``vp``, ``tg``, ``tok``, ``eff``). This module:

* ``fitted_defaults`` chooses the model, tp, pp and global batch the user left alone so the job
  fits the design (a 2-node and a 131,072-GPU design both open without an error), the split by the
  default split's rule (``core.perf.training.default_split``, as ``python -m core train``);
* ``training_gpus`` and ``job_from_settings`` build the ``TrainingJob``;
* ``alternative_design`` is the same design on another fabric;
* ``collective_rows``, ``placement_notes``, ``communication_rows``, ``comparison_rows`` and
  ``congestion_notes`` are the page's tables and captions as plain data;
* ``estimate_under`` runs the estimate under the job's routing (``rt``) and placement (``pl``).
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Mapping

from core import plurals, units, vocab
from core.units import ratio
from core.catalog import load_catalog
from core.design import Design, parse_design, tidy_spaces
from core.cost import holds_level2
from core.errors import DesignError, FabricPlannerError
from core.fabric.families import counted, words
from core.fabric.pods import pod_specs, pods_text
from core.i18n import N_, _, as_sentence, ngettext, number, pgettext, sentences
from core.perf import congestion
from core.perf.algorithms import fastest_label
from core.perf.collectives import IN_NETWORK, Sweep, algorithm_label, level_label, sweep
from core.perf.placement import sharp_used
from core.perf.sizes import format_size
from core.perf.modelshape import CUSTOM, decode_shape
from core.perf.constants import test_tool
from core.perf.training import (DEFAULT_GLOBAL_BATCH, MAX_GLOBAL_BATCH, PRESETS, ModelSpec, TrainingEstimate, comm_collective_label,
                                DEFAULT_MODEL, default_split, estimate, estimate_or_ways_out, fitting_split,
                                parallelism_label, parse_job)
from core.plan import Plan, cost_basis, plan as make_plan, shown_share
from core.scaleup import domain_word, in_noun

FITTED = ("model", "tp", "pp", "gbs")
"""Settings the page refits to the design while the user has not set them."""
SIZES_SHOWN = (8, 2**20, 64 * 2**20, 2**30, 16 * 2**30)
"""Message sizes [bytes] of the Performance page's table."""

# The tables' column headers (English, marked): the row dicts below are keyed by ``_(header)``, the
# header in the language of the request. Code that picks a column by name translates it the same way:
# ``_(jobform.TOKENS_PER_S)``.
COLLECTIVE_COLUMNS = (N_("collective"), N_("size"), N_("fastest"), N_("time [µs]"), N_("algbw [GB/s]"),
                      N_("busbw [GB/s]"))
COMMUNICATION_COLUMNS = (N_("parallelism"), N_("collective"), N_("group"), N_("calls"), N_("volume [GB]"),
                         N_("time [s]"), N_("hidden"), N_("exposed [s]"), N_("algorithm"), N_("over"))
COMPARISON_COLUMNS = (N_("fabric"), N_("switch"), N_("routing"), N_("step [s]"), N_("tokens/s"), N_("communicating"), N_("days"),
                      N_("run cost [USD]"), N_("cluster capex [USD]"),
                      vocab.COMPUTE_FABRIC_WORDS[False]["share"])
TOKENS_PER_S, RUN_COST_USD, CLUSTER_CAPEX_USD = N_("tokens/s"), N_("run cost [USD]"), N_("cluster capex [USD]")
COMPARISON_NUMBER_COLUMNS = (TOKENS_PER_S, RUN_COST_USD, CLUSTER_CAPEX_USD)
"""Comparison columns the page shows as localized numbers (English; translate with ``_()``)."""


def _row(columns: tuple[str, ...], values: tuple) -> dict:
    """One table row: each marked header in the request's language -> its value."""
    return {_(column): value for column, value in zip(columns, values, strict=True)}


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


def batch_note(plan: Plan, settings: Mapping) -> str:
    """Why the global batch is not the default ``DEFAULT_GLOBAL_BATCH`` (1,024 sequences) when it is that default
    rounded up to a multiple of micro-batch x data-parallel size (``core.perf.training.fitting_split``; a batch
    that is not one does not split over the replicas): the rounding in words; "" otherwise."""
    gbs, mbs = int(settings["gbs"]), int(settings["mbs"])
    dp = training_gpus(plan, settings) // max(1, int(settings["tp"]) * int(settings["pp"]) * int(settings["cp"]))
    per_step = mbs * dp
    if per_step < 1 or DEFAULT_GLOBAL_BATCH % per_step == 0 or gbs != -(-DEFAULT_GLOBAL_BATCH // per_step) * per_step:
        return ""
    return _("Global batch {gbs} = {steps} x micro-batch {mbs} x dp {dp}: the default {default} is not a multiple of "
             "micro-batch x data-parallel size ({per_step}), so it is rounded up to the next one.").format(
        gbs=f"{gbs:,}", steps=f"{gbs // per_step:,}", mbs=mbs, dp=f"{dp:,}", default=f"{DEFAULT_GLOBAL_BATCH:,}",
        per_step=f"{per_step:,}")


def model_of(settings: Mapping) -> ModelSpec:
    """The settings' model: a preset by its key, or (``custom``) the shape in ``arch`` (``core.perf.modelshape``;
    empty = the default preset's shape, ``DEFAULT_MODEL``); ``InputError`` naming a bad shape's field."""
    if settings["model"] != CUSTOM:
        return PRESETS[settings["model"]]
    arch = str(settings.get("arch") or "")
    return decode_shape(arch) if arch else PRESETS[DEFAULT_MODEL].model_copy(update={"name": CUSTOM})


def split_words(**sizes: int) -> str:
    """A training split as every surface writes it, its parts in the order given: ``tp 8 x pp 4 x cp 1 x dp 18``
    (zh ``tp 8 × pp 4 × ...``): the Performance page's caption, Compare's job, ``python -m core train``."""
    return pgettext("between the parts of a training split", " x ").join(
        f"{name} {number(size) if isinstance(size, int) else size}" for name, size in sizes.items())


def job_caption(settings: Mapping, plan: Plan) -> str:
    """A comparison column's training job on ``plan`` in words (the Compare page's caption and the review pack's
    note): ``Job: Llama 3 70B, tp 8 x pp 4, global batch 1,024``, and why the global batch is not the default when
    it was rounded up (``batch_note``, as the Performance page says it: ``global batch 1,026`` on 576 GPUs)."""
    caption = _("Job: {model}, {split}, global batch {gbs}").format(
        model=model_of(settings).name, split=split_words(tp=settings["tp"], pp=settings["pp"]),
        gbs=number(int(settings["gbs"])))
    note = batch_note(plan, settings)
    return sentences(as_sentence(caption), note) if note else caption


def zero_stage(settings: Mapping) -> int | None:
    """The ZeRO stage the settings declare (``zero``: a stage, or ``auto`` = None, from ``zg``)."""
    value = str(settings.get("zero", "auto"))
    return None if value == "auto" else int(value)


def job_from_settings(plan: Plan, settings: Mapping):
    """The ``TrainingJob`` of ``settings`` on ``plan``; ``DesignError`` when the split exceeds the design."""
    gpus = training_gpus(plan, settings)
    model_parallel = int(settings["tp"]) * int(settings["pp"]) * int(settings["cp"])
    if gpus < 1:
        raise DesignError(_("tp x pp x cp = {model_parallel} is more than the design's {gpus} GPUs.").format(
                              model_parallel=model_parallel, gpus=f"{plan.resolved.gpus:,}"),
                          _("Lower the model-parallel degrees or plan more nodes."))
    return parse_job(dict(
        model=model_of(settings), seq_len=int(settings["seq"]), global_batch=int(settings["gbs"]),
        micro_batch=int(settings["mbs"]), precision=settings["prec"], tp=int(settings["tp"]),
        pp=int(settings["pp"]), cp=int(settings["cp"]), ep=int(settings["ep"]), vp=int(settings["vp"]),
        gpus=gpus, compute_efficiency=float(settings.get("eff") or 0) or None,
        tokens_to_train=float(settings.get("tok", 1.0)) * 1e12,
        sharp=sharp_used(plan, str(settings.get("sharp", "0")) == "1"),  # only where switches reduce
        shard_gradients=str(settings.get("zg", "0")) == "1", zero_stage=zero_stage(settings),
        cp_comm=str(settings.get("cpc", "ring")), offload=str(settings.get("off", "none"))))


def _split(plan: Plan, model: str, fixed: Mapping, defaults: Mapping) -> dict:
    """tp, pp and global batch for ``model``: values in ``fixed`` kept (None = free), the others the
    defaults cut to fit (``core.perf.training.fitting_split``): the search's first split."""
    job_gpus = training_gpus(plan, {**fixed, "tp": 1, "pp": 1, "cp": 1}) if int(fixed.get("tg") or 0) else None
    try:
        spec = model_of({**fixed, "model": model})
    except FabricPlannerError:  # a bad custom shape: sized as the default preset (the estimate then says why)
        spec = PRESETS[DEFAULT_MODEL]
    split = fitting_split(
        plan, spec, cp=int(fixed["cp"]), micro_batch=int(fixed["mbs"]), vp=int(fixed["vp"]),
        job_gpus=job_gpus, tp=fixed.get("tp"), pp=fixed.get("pp"), global_batch=fixed.get("gbs"),
        default_tp=defaults["tp"], default_pp=defaults["pp"], default_global_batch=defaults["gbs"])
    return {"model": model, "tp": split["tp"], "pp": split["pp"], "gbs": split["global_batch"]}


def _fastest(plan: Plan, model: str, fixed: Mapping, defaults: Mapping) -> dict | None:
    """tp, pp and global batch for ``model`` by the default split's rule (``core.perf.training.default_split``:
    the fastest split that fits, as ``python -m core train`` chooses it), values in ``fixed`` kept (None = free),
    under the settings' routing, placement and NCCL release; None when no split fits."""
    from core.perf.collectives import nccl_release

    first = _split(plan, model, fixed, defaults)
    try:
        job = job_from_settings(plan, {**fixed, **first}).model_copy(update={
            "gpus": training_gpus(plan, {**fixed, "tp": 1, "pp": 1, "cp": 1}) if int(fixed.get("tg") or 0) else None,
            "dp": None, "global_batch": int(defaults["gbs"])})
        with congestion.assumptions(fixed.get("rt", "auto"), fixed.get("pl", "topo")), \
                nccl_release(fixed.get("nccl")):
            best = default_split(plan, job, tp=fixed.get("tp"), pp=fixed.get("pp"), global_batch=fixed.get("gbs")).best
    except FabricPlannerError:
        return None
    return {"model": model, "tp": best.tp, "pp": best.pp, "gbs": best.global_batch}


def _fits(plan: Plan, settings: Mapping) -> bool:
    try:
        estimate(plan, job_from_settings(plan, settings))
    except FabricPlannerError:
        return False
    return True


def fitted_defaults(plan: Plan, fixed: Mapping, free: set[str], defaults: Mapping) -> dict:
    """Values for the settings in ``free`` (a subset of ``FITTED``) chosen so the job fits ``plan``.

    The default model if it fits in memory, else the largest smaller preset of the same kind (dense or
    mixture-of-experts) that does; tp, pp and the global batch as the default split's rule chooses them
    (``core.perf.training.default_split``: the fastest split that fits, the same answer as ``python -m core
    train``). ``fixed`` holds the settings the user or the link set (every key of ``defaults``); ``defaults`` are
    the link defaults (``core.formats.joblink.DEFAULTS``). When nothing fits, the first model with the search's
    first split (the page then says why it does not fit).
    """
    default = defaults["model"]
    if "model" in free:
        size, moe = PRESETS[default].total_params, PRESETS[default].is_moe
        models = [default] + sorted((k for k in PRESETS if PRESETS[k].total_params < size
                                     and PRESETS[k].is_moe == moe), key=lambda k: -PRESETS[k].total_params)
    else:
        models = [fixed["model"]]
    for model in models:
        values = _fastest(plan, model, {**fixed, **{k: None for k in free if k != "model"}}, defaults)
        if values is not None and _fits(plan, {**fixed, **values}):
            return {k: values[k] for k in free}
    first = _split(plan, models[0], {**fixed, **{k: None for k in free if k != "model"}}, defaults)
    return {k: first[k] for k in free}


def alternative_design(design: Design, changes: Mapping, current_fabric: str) -> Design:
    """``design`` with ``changes`` (fabric, oversubscription, another system); a new fabric gets its own switch and
    speed (every pod's speed too, ``Design.pods``), another system keeps ``current_fabric`` (the resolved one), and a
    design on a cloud instance's adapters (``Nic.transport``) gets the system's own NICs: a bought fabric."""
    data = design.model_dump(exclude_defaults=True)
    cloud = design.nic is not None and load_catalog().nic(design.nic).transport is not None
    if cloud or changes.get("fabric", current_fabric) != current_fabric:
        for key in ("switch", "port_speed_gbps", *(("nic", "nics_per_node") if cloud else ())):
            data.pop(key, None)
        if design.pods:  # every pod's speed re-chosen with the new fabric, as the first pod's
            data["pods"] = pods_text(tuple(replace(s, speed_gbps=None) for s in pod_specs(design)))
    if "gpu" in changes and "fabric" not in changes:  # another system keeps the fabric (and the switch naming it),
        data["fabric"] = current_fabric  # not its own default (GB200's InfiniBand under an Ethernet switch)
    data.update(changes)
    return parse_design(data)


def bought_what_if(plan: Plan, label: str) -> tuple[str, str]:
    """The comparison fabric's ``label`` and a sentence for the Performance page: on a cloud instance's adapters
    (``Nic.transport``) the comparison is a bought fabric in place of the provider's, so the label says "what-if"
    and the sentence says what changes; a bought design's label as it is and no sentence."""
    transport = plan.resolved.nic.transport
    if not transport:
        return label, ""
    return (_("what-if: {fabric}").format(fabric=label),
            _("What-if: the same nodes with the system's own NICs on a fabric that is bought, in place of the cloud "
              "provider's ({transport}), which this design does not buy; its capex includes that fabric.").format(
                transport=vocab.TRANSPORT.label(transport)))


def buildable_alternative(design: Design, changes: Mapping, current_fabric: str) -> tuple[Design, str]:
    """``alternative_design``, or when it does not build, it after its first way out (``DesignError.fixes``, as the
    Designer's first button: per-port planes a NIC cannot reach on the other fabric become per-rail planes), with
    the sentence saying so (empty when it builds as asked). Raises the ``DesignError`` when no way out builds."""
    changed = alternative_design(design, changes, current_fabric)
    try:
        make_plan(changed)
        return changed, ""
    except DesignError as exc:
        if not exc.fixes:
            raise
        phrase, fix = exc.fixes[0]
        data = {**changed.model_dump(exclude_defaults=True), **fix}
        return parse_design({k: v for k, v in data.items() if v is not None}), _(
            "The compared fabric cannot be built with this design's other settings: {reason} It is compared after "
            "the first way out: {way}.").format(reason=exc.message, way=phrase)


def alternative_plan(design: Design, changes: Mapping, current_fabric: str) -> Plan:
    """The plan of ``buildable_alternative``'s design."""
    return make_plan(buildable_alternative(design, changes, current_fabric)[0])


def sharp_option(sharp: bool) -> dict:
    """``sweep`` keyword for InfiniBand SHARP (off = NCCL's defaults): ``{"sharp": True}`` or nothing
    (also nothing while the collective API has no ``sharp`` option)."""
    return {"sharp": True} if sharp and "sharp" in inspect.signature(sweep).parameters else {}


def collective_rows(plan: Plan, ops, gpus: int, sizes=SIZES_SHOWN, sharp: bool = False) -> list[dict]:
    """The fastest algorithm, time, algbw and busbw of each collective at each size in ``sizes``
    (NCCL's default algorithms, plus SHARP when ``sharp``); call it inside the job's
    ``congestion.assumptions``."""
    rows, library = [], plan.resolved.system.collective_library
    for op in ops:
        pick = sweep(plan, op, list(sizes), gpus=gpus, **sharp_option(sharp))
        t, a, pr = pick.best()
        for size, tt, aa, pp_, bw, bb in zip(sizes, t, a, pr, pick.algbw(t), pick.busbw(t)):
            fastest = fastest_label(aa, pp_, library)  # names only: ring (LL), hierarchical (Simple), RHD
            rows.append(_row(COLLECTIVE_COLUMNS, (op, format_size(size), fastest, round(float(tt), 1),
                                                  float(bw), float(bb))))  # rounded once, where shown
    return rows


ROUTING_NOTES = {
    "topo": N_("Routing: {routing}; ranks packed in topology order, so ring and tree traffic leaves a leaf group "
               "only between neighbouring groups and oversubscription mostly affects all-to-all (MoE)."),
    "scatter": N_("Routing: {routing}; ranks spread over the cluster's leaf groups, so ring, tree and all-to-all "
                  "traffic all cross the oversubscribed uplinks.")}
"""The busbw chart's routing sentence by rank placement (``congestion.PLACEMENTS``); a family without leaf groups
declares its own (``core.fabric.families.words``, ``perf:routing:<placement>``: the torus; the Dragonflies, whose
taper is the global links' bisection ratio)."""
PLACEMENT_NOTES = {
    "topo": N_("Placement packed: ranks follow the topology (nodes in order, as a topology-aware scheduler places "
               "them), so ring and tree traffic leaves a leaf group only between neighbouring groups; pipeline "
               "stages, data-parallel groups and all-to-all still cross it."),
    "scatter": N_("Placement spread: the job's nodes are scattered over the cluster's leaf groups, as a busy "
                  "scheduler leaves them, so any peer is in another group with probability 1 - 1/groups (Meta "
                  "reports over 30% slower jobs from fragmented placement on its RoCE clusters).")}
"""The fabric comparison's placement sentence (``congestion_notes``); a family's own: ``perf:placement:<placement>``."""


def placement_notes(sweeps: list[Sweep], gpus: int, system_id: str, references: list, routing: str = "",
                    placement: str = "topo", unit: str = "GB/s", family: str | None = None) -> list[str]:
    """What the busbw chart assumes and shows, in sentences (``routing``: the class's label; ``unit``: the chart's
    bandwidth unit, "GB/s" or "Gb/s": in bits the published measurements' quotes, in GB/s, say so; ``family``: the
    fabric's ``FabricPlan.family``, whose own routing sentence replaces ``ROUTING_NOTES``' where it declares one)."""
    p = sweeps[0].placement
    pods = (ngettext("{count} {family} group", "{count} {family} groups", p.pods) if p.dragonfly else
            ngettext("{count} pod", "{count} pods", p.pods)).format(count=f"{p.pods:,}", family=p.family)
    system = load_catalog().system(system_id)
    scaleup = domain_word(system)
    values = dict(gpus=f"{gpus:,}", ranks=p.ranks_per_domain, last=p.last, pods=pods,
                  domains=ngettext("{count} {scaleup}", "{count} {scaleup}s", p.domains).format(
                      count=f"{p.domains:,}", scaleup=scaleup),
                  nodes=plurals.nodes(p.nodes),
                  groups=counted(family, "perf:groups", p.groups) or ngettext(
                      "{count} {leaf} group", "{count} {leaf} groups", p.groups).format(
                      count=f"{p.groups:,}", leaf=words(family, "tier:leaf", N_("leaf"))),
                  level=level_label(p.level, system),
                  hops=counted(family, "perf:hops", p.hops) or (
                      ngettext("{count} link hop", "{count} link hops", p.hops) if p.link_hops else
                      ngettext("{count} switch hop", "{count} switch hops", p.hops)).format(count=p.hops))
    if p.link_hops:  # node to node: no leaf groups or pods to count
        layout = (_("{gpus} GPUs: {domains} of {ranks} (the last holds {last}, and its NICs set the fabric pace), "
                    "{nodes} of the torus; farthest path: {level} ({hops}).") if p.last != p.ranks_per_domain else
                  _("{gpus} GPUs: {domains} of {ranks}, {nodes} of the torus; farthest path: {level} ({hops})."))
    elif not p.pod_tier:  # no tier between pods (two tiers): no pods to count; "pod" is a design's pod
        layout = (_("{gpus} GPUs: {domains} of {ranks} (the last holds {last}, and its NICs set the fabric pace), "
                    "{nodes}, {groups}; farthest path: {level} ({hops}).") if p.last != p.ranks_per_domain else
                  _("{gpus} GPUs: {domains} of {ranks}, {nodes}, {groups}; farthest path: {level} ({hops})."))
    elif p.last != p.ranks_per_domain:
        layout = _("{gpus} GPUs: {domains} of {ranks} (the last holds {last}, and its NICs set the fabric pace), "
                   "{nodes}, {groups}, {pods}; farthest path: {level} ({hops}).")
    else:
        layout = _("{gpus} GPUs: {domains} of {ranks}, {nodes}, {groups}, {pods}; farthest path: {level} "
                   "({hops}).")
    notes = [in_noun(tidy_spaces(layout.format(**values)), system),  # no space beside a Chinese domain word
             words(family, "perf:routing:" + placement, ROUTING_NOTES[placement]).format(routing=routing or "-")]
    if references:  # labels and sources are quoted as published
        notes.append(_("Red markers: published nccl-tests measurements ({references}).").format(
            references="; ".join(f"{ref.label}: {ref.source}" for ref in references)))
        if unit != "GB/s":  # the chart and table in bits; the sources are quoted as published
            notes.append(_("The sources above are quoted as published, in GB/s (bytes); the chart shows them in "
                           "{unit}.").format(unit=unit))
        notes.append(_("Known gap: between about 64 KiB and 64 MiB the model is optimistic on one node (8x A100 "
                       "+18-50%, H200 and GB200 +24% at 1 MiB, H100 +24% at 64 KiB): the measured LL and LL128 "
                       "rates stay below NCCL's own tuning model, which the model follows; large messages are within "
                       "15%."))
    else:
        notes.append(_("No published {tool} points for {gpus} x {system} in the reference set "
                       "(8 GPUs of A100, H100, H200, H800; 4 x GB200; 16 x A100 with 4 NICs; 1,984 x H200).").format(
            tool=test_tool(system.collective_library), gpus=f"{gpus:,}", system=system.gpu_name))  # a GPU's name
    if any(name in IN_NETWORK for sw in sweeps for name in sw.curves):
        notes.append(_("NVLS and SHARP reduce inside the switch, so their busbw (computed with the "
                       "point-to-point factor 2(n-1)/n, as nccl-tests does) exceeds the link rate: it is the "
                       "link speed a ring would need to match them, not a real link speed."))
    return notes


def communication_rows(estimate_: TrainingEstimate, system=None) -> list[dict]:
    """One row per parallelism's communication: group, calls, volume, time, hidden share, exposed time; the
    scale-up level named after ``system``'s links (``core.perf.placement.level_label``)."""
    rows = []
    for c in estimate_.summary()["communication"]:
        rows.append(_row(COMMUNICATION_COLUMNS, (
            parallelism_label(c["parallelism"]), comm_collective_label(c["collective"]), c["group_size"], c["calls"],
            c["volume_gbytes"], c["time_s"], units.percent(c['hidden_fraction']), c["exposed_s"],
            algorithm_label(c["algorithm"]), level_label(c["fabric_level"], system))))
    return rows


def fabric_name(plan: Plan) -> str:
    """The fabric class a collective crosses, by name: a cloud transport (``AWS EFA``), else ``InfiniBand`` or
    ``Ethernet RoCE`` in the current language."""
    r = plan.resolved
    if r.nic.transport is not None:
        return vocab.TRANSPORT.label(r.nic.transport)
    return "InfiniBand" if r.fabric == "infiniband" else _("Ethernet RoCE")


def job_ratio(plan: Plan) -> str:
    """The bisection ratio of the fabric a job runs on in words, ``1:1``: ``plan`` is the design's plan, or with pods
    the pod the job runs on planned alone (``core.analysis.whole.pod_plan``), whose fabric the estimates use. The one
    ratio the Performance page's caption (``ratio_caption``) and its chart and table labels (``fabric_label``,
    ``linked_label``) name."""
    return ratio(plan.bandwidth.oversubscription)


def ratio_caption(plan: Plan, whole_ratio: float) -> str:
    """The Performance caption's ratio: ``bisection ratio 1:1`` of the job's fabric (``job_ratio``), and where the
    whole design's (``whole_ratio``, a design with pods: ``core.analysis.whole.pods_ratios``) reads otherwise, that
    too: ``bisection ratio 1:1 (the job's pod; the whole design's 1.33:1)``."""
    own, whole = job_ratio(plan), ratio(whole_ratio)
    return _("bisection ratio {ratio}").format(ratio=own if own == whole else _(
        "{ratio} (the job's pod; the whole design's {whole})").format(ratio=own, whole=whole))


def fabric_label(plan: Plan) -> str:
    """The job's design in a few words, ``This design (InfiniBand, 1:1)`` (the bisection ratio: ``job_ratio``; the
    compared fabric's: ``alternative_label``)."""
    return _("This design ({fabric}, {oversubscription})").format(
        fabric=fabric_name(plan), oversubscription=job_ratio(plan))


def alternative_label(plan: Plan) -> str:
    """The compared fabric's design (``plan``: the Performance page's other fabric, planned) in a few words as
    ``fabric_label`` says this design's, ``Ethernet RoCE (1.97:1)``: its bisection ratio (``job_ratio``), not the
    leaf setting the comparison's choice names (``Ethernet RoCE 2:1``), which on a Dragonfly+ is another number."""
    return _("{fabric} ({oversubscription})").format(fabric=fabric_name(plan), oversubscription=job_ratio(plan))


def linked_label(plan: Plan) -> str:
    """The compared design of a pasted share link, in a few words."""
    r = plan.resolved
    return _("Linked design ({gpus} x {system}, {fabric}, {oversubscription})").format(
        gpus=f"{r.gpus:,}", system=r.system.id, fabric=fabric_name(plan), oversubscription=job_ratio(plan))


def routing_label(plan: Plan) -> str:
    """The routing class in force for ``plan`` (the design's, or the job's override), for display."""
    return _(congestion.ROUTING_LABELS[congestion.routing_class(plan.resolved)])


def comparison_rows(runs: list[tuple[str, TrainingEstimate, Plan]]) -> list[dict]:
    """The same job on several designs: step, throughput, days and the run's and cluster's cost (a job on one pod
    of a design with pods: the whole design's capex and compute fabric share, ``Plan.cost_basis``, which its cost
    shares). The share's header is the capex cards' (``core.vocab.compute_fabric``): "and NVLink level 2" when a
    row's share holds a second NVLink level's parts (``scaleup_capex_usd``).
    The days are text in the one days format (``core.units.days``), as the chart above the table writes them: the
    table read ``21.77`` (``round(days, 2)``) under the chart's ``21.8 d``. The step [s] is text with three decimals
    (``core.units.seconds``), as the Resilience page's training step: a number column dropped a rounding's trailing
    zero (``16.46`` above ``16.604``).

    The money columns (``RUN_COST_USD``, ``CLUSTER_CAPEX_USD``) hold the amounts [USD] as computed, for the one
    money format (``core.i18n.usd``) to round once: rounded to whole dollars here first, the run's cost read
    ``38.94万美元`` in the table under the page's ``38.93万美元`` card (389,349.6 USD).

    Call it inside the ``congestion.assumptions`` the estimates were made under (the routing column)."""
    level2 = holds_level2(cost_basis(p)[0] for _label, _e, p in runs)
    columns = (*COMPARISON_COLUMNS[:-1], vocab.COMPUTE_FABRIC_WORDS[level2]["share"])  # the capex cards' share name
    return [
        _row(columns, (label, p.resolved.switch.id, routing_label(p), units.seconds(e.step_time_s),
                                  round(e.tokens_per_s), units.percent(e.comm_fraction), units.days(e.days_to_train),
                                  e.cost_usd, cost_basis(p)[0].capex_usd,
                                  units.percent(shown_share(cost_basis(p)[0].network_share))))
        for label, e, p in runs]


def estimate_under(plan: Plan, job, settings: Mapping, ways_out: bool = False) -> TrainingEstimate:
    """``estimate(plan, job)`` with the job's routing (``rt``) and placement (``pl``) assumptions; with
    ``ways_out`` a job that does not fit says which single changes fit (``training.estimate_or_ways_out``)."""
    with congestion.assumptions(settings.get("rt", "auto"), settings.get("pl", "topo")):
        return estimate_or_ways_out(plan, job) if ways_out else estimate(plan, job)


def placement_contrast(runs: list[tuple[str, Plan]], job, settings: Mapping) -> str:
    """The same comparison under the other rank placement, in one sentence ("" when it does not fit)."""
    other = "scatter" if settings.get("pl", "topo") == "topo" else "topo"
    try:
        days = [estimate_under(p, job, {**settings, "pl": other}).days_to_train for _label, p in runs]
    except FabricPlannerError:
        return ""
    (this, _p1), (alt, _p2) = runs[0], runs[1]
    return _("With the other placement, {placement}: {this} {this_days} days, {other} {other_days} days "
             "({difference} days).").format(
        placement=_(congestion.PLACEMENT_LABELS[other]), this=this, this_days=units.days(days[0]), other=alt,
        other_days=units.days(days[1]), difference=units.days(days[1] - days[0], signed=True))


def congestion_notes(plans: list[tuple[str, Plan]], settings: Mapping) -> list[str]:
    """What the fabric comparison assumes about routing and placement, with sources, in sentences."""
    notes = [_("Fabric class from the design: InfiniBand uses adaptive routing; Ethernet on a Spectrum-4 switch "
               "with a BlueField-3 SuperNIC or ConnectX-8 uses Spectrum-X adaptive routing; AWS EFA sprays each "
               "flow's packets over many paths (SRD), counted as adaptive routing; any other Ethernet (Google "
               "GPUDirect-TCPX and TCPXO too) is static ECMP. The Routing setting overrides it for Ethernet designs.")]
    with congestion.assumptions(settings.get("rt", "auto"), settings.get("pl", "topo")):
        seen = []
        for label, p in plans:
            routing = congestion.routing_class(p.resolved)
            notes.append(_("{design}: {routing}.").format(design=label, routing=_(congestion.ROUTING_LABELS[routing])))
            if routing not in seen:
                seen.append(routing)
        notes.extend(congestion.describe(routing) for routing in seen)
    placement = settings.get("pl", "topo")  # each fabric's own sentence (a torus: no leaf groups), once each
    notes.extend(dict.fromkeys(words(p.fabric.family, "perf:placement:" + placement, PLACEMENT_NOTES[placement])
                               for _label, p in plans))
    notes.append(_("Assumed: flows share a link fairly and a tier is work-conserving, so this is average "
                   "throughput; a collective waiting for its slowest flow can be slower (Meta measured up to 40% "
                   "from spreading flows over more queue pairs, the model about 23%)."))
    notes.append(_("Constants and their sources: the catalog's congestion constants (Catalog page)."))
    return notes


def parameters_words(model: ModelSpec) -> str:
    """A model's parameters in words: a mixture of experts' total and those one token passes through
    (``671.0B parameters (37.6B active)``); a dense model's total and, when its input embedding is its own, the
    count without it (``70.6B parameters (69.5B without the input embedding)``: ``ModelSpec.active_params``
    leaves out the input embedding table, of which a token reads one row)."""
    total, active = f"{model.total_params / 1e9:,.1f}", f"{model.active_params / 1e9:,.1f}"
    if model.is_moe:
        return _("{params}B parameters ({active}B active)").format(params=total, active=active)
    if active == total:  # tied embeddings: every parameter is used by every token
        return _("{params}B parameters").format(params=total)
    return _("{params}B parameters ({active}B without the input embedding)").format(params=total, active=active)


def memory_caption(estimate_: TrainingEstimate, model_name: str, settings: Mapping, system=None) -> str:
    """Parameters, the split and memory per GPU in one sentence (in ``system``'s accelerator noun,
    ``core.scaleup.in_noun``; None: GPUs), plus the estimate's warnings."""
    s = estimate_.summary()
    memory = {k: units.gibibytes(v) for k, v in estimate_.memory_gb.items()}  # weights, gradients, optimizer, ...
    return (in_noun(_("{model}: {params}, {gpus} GPUs = {split}; {microbatches} per step; memory per GPU weights "
              "{weights}, gradients {gradients}, optimizer {optimizer}, activations {activations} GiB of {hbm} GiB. ").format(
                model=model_name, params=parameters_words(estimate_.job.model), gpus=f"{estimate_.gpus:,}",
                split=split_words(tp=settings["tp"], pp=settings["pp"], cp=settings["cp"], dp=estimate_.dp),
                microbatches=plurals.micro_batches(estimate_.microbatches), hbm=f"{estimate_.hbm_gb:g}", **memory), system)
            + " ".join(estimate_.warnings))
