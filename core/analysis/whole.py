"""The whole design's numbers: a design without pods is its plan; a design with pods (``Design.pods``) is its mixed
plan's totals (``core.analysis.pods.mixed_plan``: every pod's leaves, the shared spine layer, the pods' nodes,
networks and bill), in the shapes the single design's numbers use, so every page and command shows the same totals.

* ``whole_plan(plan)``: ``plan`` itself without pods; with pods, ``plan`` (the first pod's fabric, racks and
  explanation) carrying the mixed bill and its cost summary (``core.cost.summarize_cost`` of the mixed rows over
  every pod's GPUs), which the BOM and Cost tabs, the capex and power charts and the cost cards read.
* ``whole_summary(plan)``: ``Plan.summary()`` without pods, byte for byte; with pods, the mixed totals in its keys
  (GPUs, nodes, switches by tier with the shared spines, links, transceivers, capex low/typical/high, power, the
  bisection) and ``mixed_pods`` (``core.analysis.pods.pods_summary``: the pods and the bound across them). The
  per-GPU injection and scale-up bandwidth are the slowest pod's (a collective across pods runs at its rate), and
  every pod's, in pod order, in ``nvlink_gbytes_per_gpu_bidir_pods`` and ``scaleout_gbits_per_gpu_pods``; the
  bisection ratio (``oversubscription``) is as defined for any design: half of every GPU's injection over the
  bisection (``core.fabric.bandwidth.bisection_ratio``); ``oversubscription_slower_half`` is the worst cut's
  slower side's (``MixedFabric.slower_half``): its GPUs' injection over the bisection (1:1 when no leaf tapers).
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import ConfigDict

from core import plurals
from core.analysis.pods import MixedPlan, bound_words, cross_pod_busbw, mixed_plan, pods_summary
from core.fabric.bandwidth import bisection_ratio
from core.fabric.pods import pod_specs
from core.cost import CostSummary, summarize_cost
from core.design import Design
from core.errors import FabricPlannerError
from core.i18n import N_, _, current, language as speaking, number, sentences
from core.plan import Plan, plan


@lru_cache(maxsize=32)
def _mixed_cached(key: str, language: str) -> MixedPlan:
    """``mixed_plan`` of the design JSON ``key`` (its final stage), its texts in ``language``."""
    with speaking(language):
        return mixed_plan(Design.model_validate_json(key))


def design_mixed(design: Design) -> MixedPlan | None:
    """The mixed plan of ``design`` (None without pods); cached by the design and the current language. Raises what
    ``mixed_plan`` raises (``DesignError``, ``InputError``)."""
    if not design.pods:
        return None
    return _mixed_cached(design.model_dump_json(), current())


def plan_with_pods(design: Design) -> Plan:
    """``core.plan.plan(design)`` once the design's pods build together (``design_mixed``): the one rule by which
    every command (``core.cli.common.design_from_args``) and page (``webui.state.sidebar``) plans a design, so a
    design whose pods cannot be built is an error everywhere, never the first pod's design without them. Raises
    ``plan``'s error first (the design's own), then ``mixed_plan``'s (``DesignError`` with its ways out,
    ``InputError``)."""
    planned = plan(design)
    design_mixed(design)
    return planned


class WholePlan(Plan):
    """A design with pods as one plan: the first pod's plan (``fabric``, ``bandwidth``, ``layout`` and the rest are
    the first pod's) with the mixed bill and its cost, whose ``summary()`` gives the mixed totals (module
    docstring)."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    mixed: MixedPlan

    def summary(self) -> dict:
        """``Plan.summary()`` with the mixed totals and ``mixed_pods`` (``whole_summary``)."""
        return _totals(super().summary(), self.mixed, self.cost)

    def cost_basis(self) -> tuple[CostSummary, int]:
        """The mixed cost summary and every pod's GPUs: a job is charged its GPUs' share of the whole design."""
        return self.cost, self.mixed.fabric.gpus


class PodPlan(Plan):
    """One pod of a design with pods planned alone (``MixedPlan.plans``: its system, NICs, leaves), for the job or
    deployment that runs on it, carrying the whole design's cost and GPUs it is charged a share of."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    whole_cost: CostSummary
    whole_gpus: int

    def cost_basis(self) -> tuple[CostSummary, int]:
        """The whole design's cost summary and GPUs (``WholePlan.cost_basis``), not the pod's own as if alone."""
        return self.whole_cost, self.whole_gpus


def whole_plan(p: Plan) -> Plan:
    """``p`` without pods; with pods a ``WholePlan``: ``p`` carrying the mixed bill and its cost (module
    docstring): capex [USD], capex per GPU over every pod's GPUs, power [kW], TCO, compute racks summed over the
    pods, and the hops between pods (``MixedFabric.cross_pod_hops``) in its bandwidth. Pods that cannot be
    planned together (``mixed_plan`` raises) give ``p``: no page or command gets here with them
    (``plan_with_pods`` refuses them first)."""
    if isinstance(p, WholePlan):
        return p
    try:
        mixed = design_mixed(p.design)
    except FabricPlannerError:  # pods that cannot be planned together: the caller says why (mixed_plan raises it)
        return p
    if mixed is None:
        return p
    totals = p.resolved.model_copy(update={"gpus": mixed.fabric.gpus, "nodes": mixed.fabric.nodes})
    cost = summarize_cost(totals, mixed.bom).model_copy(update={
        "racks_compute": sum(pod.cost.racks_compute for pod in mixed.plans)})
    bandwidth = p.bandwidth.model_copy(update={"hops_cross_pod": mixed.fabric.cross_pod_hops,  # across the pods
                                               "oversubscription": pods_ratios(mixed)[0]})  # the design's ratio
    return WholePlan.model_construct(**{**dict(p), "bom": mixed.bom, "cost": cost, "mixed": mixed,
                                        "bandwidth": bandwidth})


def pods_ratios(mixed: MixedPlan) -> tuple[float, float]:
    """The bisection ratio of the design with pods ``mixed`` as its words define it for any design: half of every
    GPU's NIC injection over the bisection (``core.fabric.bandwidth.bisection_ratio``), and the slower half's (the
    worst cut's side, ``MixedFabric.slower_half``: its GPUs' injection over the bisection; 1:1 when no leaf tapers),
    the fabric's own taper. The one source of the summary's ``oversubscription`` and ``oversubscription_slower_half``
    (the CLI, Compare, the cards), the whole plan's ``bandwidth.oversubscription`` and ``ratio_words``."""
    f = mixed.fabric
    rates = [pod.bandwidth.scaleout_gbits_per_gpu for pod in mixed.plans]
    injection = sum(pod.resolved.gpus * rate for pod, rate in zip(mixed.plans, rates))
    slower = sum(gpus * rates[i] for i, gpus in f.slower_half())
    return bisection_ratio(injection, f.bisection_gbps), slower / f.bisection_gbps


def ratio_words(p: Plan) -> str:
    """The bisection ratio of ``p``'s design in words of the current language: ``2:1``; a design with pods its
    whole ratio (``pods_ratios``) and, where it differs, the slower half's in plain words, ``1.33:1 (1:1 for
    traffic from the half of the GPUs with the slower NICs)``: what the Designer's bandwidth readout, the review pack's and the Performance page's caption say."""
    whole = whole_plan(p)
    mixed = getattr(whole, "mixed", None)
    return ratio_text(whole.bandwidth.oversubscription) if mixed is None else ratio_text(*pods_ratios(mixed))


def ratio_text(total: float, slower: float | None = None) -> str:
    """The bisection ratio ``total`` in words, ``2:1``, and the slower half's ``slower`` (a design with pods,
    ``pods_ratios``; None: none) where it reads otherwise, ``1.33:1 (1:1 for traffic from the half of the GPUs with
    the slower NICs)``: the one rule of
    ``ratio_words`` and of the plan command's bandwidth row, which has only the summary's numbers."""
    from core.units import ratio

    words, half = ratio(total), None if slower is None else ratio(slower)
    return words if half in (None, words) else _(
        "{ratio} ({slower} for traffic from the half of the GPUs with the slower NICs)").format(ratio=words, slower=half)


def _sum(dicts: list[dict]) -> dict:
    """Key-wise sum of dicts of numbers (nested dicts summed the same way; other values the first's)."""
    out = dict(dicts[0])
    for d in dicts[1:]:
        for k, v in d.items():
            if isinstance(v, dict):
                out[k] = _sum([out.get(k, {}), v])
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = out.get(k, 0) + v
    return out


PER_POD = ("port_speed_gbps", "uplink_speed_gbps", "nic_model", "switch_model")
"""A design with pods: the summary's top-level values each pod has its own of (``<key>_pods``: every pod's)."""
PER_POD_BANDWIDTH = ("nvlink_gbytes_per_gpu_bidir", "nvlink_gbytes_per_gpu_per_direction", "scaleout_gbits_per_gpu",
                     "scaleup_to_scaleout_ratio", "leaf_oversubscription")
"""A design with pods: the summary's ``bandwidth`` values each pod has its own of (``<key>_pods``: every pod's)."""


def exported_summary(s: dict) -> dict:
    """The summary ``s`` as an export prints it (``python -m core plan --format json``): with pods, each value of
    ``PER_POD`` and ``PER_POD_BANDWIDTH`` the pods do not share is null, every pod's in its ``<key>_pods`` list
    (pod order), as the table says ``400 / 800G``; a value every pod shares stays. Without pods ``s``."""
    if not s.get("mixed_pods"):
        return s
    out, bandwidth = dict(s), dict(s["bandwidth"])
    for target, keys in ((out, PER_POD), (bandwidth, PER_POD_BANDWIDTH)):
        for key in keys:
            if len(set(target[f"{key}_pods"])) > 1:
                target[key] = None
    out["bandwidth"] = bandwidth
    return out


def whole_summary(p: Plan) -> dict:
    """``p.summary()`` without pods (the same dict); with pods the mixed design's totals in its keys plus
    ``mixed_pods`` (module docstring)."""
    return whole_plan(p).summary()


def _totals(s: dict, mixed: MixedPlan, cost) -> dict:
    """The summary ``s`` of a ``WholePlan`` (the first pod's fabric, the mixed bill) with the mixed totals: counts
    summed over the pods (switches with the shared spines instead of the pods' own, every plane's), bisection [Tb/s, one
    direction] across the pods, the per-GPU bandwidths of the slowest pod, the pods' links by network (the
    in-band and out-of-band links as the whole design has them: ``core.analysis.podmgmt.mixed_networks``)."""
    f = mixed.fabric
    pods = [pod.summary() for pod in mixed.plans]
    slowest = pods[f.pods.index(f.slowest)]
    ratio, slower = pods_ratios(mixed)  # the design's bisection ratio, the slower half's named so
    s.update({
        "gpus": f.gpus, "nodes": f.nodes, "tiers": f.tiers,  # the shared fabric's: 2 with shared spines, 3 with cores
        "gpu_model": " + ".join(dict.fromkeys(pod.system for pod in f.pods)),
        "switches": _switches(f, pods),
        "links": _sum([pod["links"] for pod in pods]),
        "switch_models": {**s["switch_models"], "leaf": " + ".join(dict.fromkeys(pod.leaf_switch for pod in f.pods)),
                          "spine": _spine_models(f), "core": f.core_switch if f.tiers == 3 else f.spine_switch},
        "explanation": [line for line in s["explanation"] if line not in mixed.plans[0].fabric.explanation],
        "growth": None, "racks_compute": cost.racks_compute, "pods": len(f.pods),
        **{f"{key}_pods": [pod[key] for pod in pods] for key in PER_POD},
        "mixed_pods": pods_summary(mixed),
    })
    s["bandwidth"] = {**s["bandwidth"], **{k: slowest["bandwidth"][k] for k in (
        "nvlink_gbytes_per_gpu_bidir", "nvlink_gbytes_per_gpu_per_direction", "scaleout_gbits_per_gpu")},
        "bisection_tbits_one_direction": round(f.bisection_gbps / 1000, 6),
        "oversubscription": round(ratio, 4),
        "oversubscription_slower_half": round(slower, 4),
        **{f"{key}_pods": [pod["bandwidth"][key] for pod in pods] for key in PER_POD_BANDWIDTH}}
    if mixed.hall is not None:  # the whole hall's racks: every pod's rows and the shared spines'
        s["racks"] = hall_racks(mixed)
    networks = _sum([pod["networks"] for pod in pods])
    for name, own in s["networks"].items():  # the bill's parts and money; the pods' links
        own["links"] = networks.get(name, {}).get("links", own["links"])
    from core.analysis.podmgmt import mixed_networks

    whole = mixed_networks(mixed)  # as the bill buys them (core.analysis.podmgmt): the out-of-band network re-sized
    for name in ("inband", "oob"):  # for the shared layer, the in-band network for the out-of-band switches' uplinks
        if name in s["networks"]:
            s["networks"][name]["links"] = sum(getattr(n, name).link_count for n in whole
                                               if n is not None and getattr(n, name) is not None)
    return s


def _switches(f, pods: list[dict]) -> dict:
    """The mixed fabric ``f``'s switches (the shared spines instead of the pods' own, every plane's) and, as a single
    design's summary counts them (``Plan.summary``), the switch units of every pod's second NVLink level (``pods``:
    each pod's ``Plan.summary()``), which the total holds as the capex does."""
    level2 = sum(pod["switches"].get("nvlink_level2", 0) for pod in pods)
    return {"leaf": f.leaves * f.planes, "spine": (f.spines + f.own_spines) * f.planes, "core": f.cores_total,
            **({"nvlink_level2": level2} if level2 else {}), "total": f.switches_total + level2}


def _spine_models(f) -> str:
    """The spine model words of the mixed fabric ``f``: the shared spines' model, or on three tiers every pod's own
    spine model (``H100 + B200`` style)."""
    return " + ".join(dict.fromkeys(pod.spine_switch for pod in f.pods)) if f.tiers == 3 else f.spine_switch


def hall_racks(mixed: MixedPlan) -> dict:
    """The racks summary (``Layout.summary``) of the hall of ``mixed`` (``MixedPlan.hall``: every pod's racks and
    the shared spines'), its power limit [kW] the hottest rack's (each pod's racks have their own limit)."""
    layout = mixed.hall.layout
    worst = max(layout.racks, key=lambda rack: rack.kw)  # the most power in one rack (ties: the first)
    return {**layout.summary(), "power_limit_kw": worst.kw_limit}


def pods_note(mixed: MixedPlan, unit: str = "GB/s") -> str:
    """What a page or command that estimates one job says of a design with pods: the totals are every pod's, a job
    runs on pod 1 (its system), and an all-reduce of 1 GiB across every pod is bounded by the slowest pod (its bus
    bandwidth in ``unit``, ``cross_pod_busbw``)."""
    summary = pods_summary(mixed)
    return _("Pods: the numbers are every pod's totals; the collectives, the training job and the inference "
             "deployment run on pod 1 ({system}); an all-reduce of 1 GiB across every pod reaches at most {busbw} "
             "bus bandwidth ({bound}).").format(
        system=mixed.fabric.pods[0].system, busbw=cross_pod_busbw(summary, unit), bound=bound_words(summary))


def pod_count(design: Design) -> int:
    """How many pods ``design`` has (1 without ``pods``: the design is its one pod)."""
    return len(pod_specs(design))


RUNS_ON = {"job": N_("The job runs on pod {pod}: {system}, {nodes} nodes, {gpus} GPUs; the estimates use its system, "
                      "NICs and leaves."),
           "deployment": N_("The deployment runs on pod {pod}: {system}, {nodes} nodes, {gpus} GPUs; the estimates "
                            "use its system, NICs and leaves.")}
"""Which pod a workload runs on, by workload: a training job (the Performance page, ``train``, the review pack) or
a serving deployment (the Inference page, ``serve``)."""


def runs_on(pod, index: int, workload: str = "job") -> str:
    """The sentence naming the pod a ``workload`` ("job" or "deployment") runs on (``RUNS_ON``): ``pod`` (a
    ``MixedFabric`` pod: its system, nodes and GPUs) at ``index`` (0-based)."""
    return _(RUNS_ON[workload]).format(pod=index + 1, system=pod.system, nodes=f"{pod.nodes:,}", gpus=f"{pod.gpus:,}")


def pod_plan(p: Plan, pod: int, unit: str = "GB/s", workload: str = "job") -> tuple[Plan, str | None]:
    """The plan a workload on pod ``pod`` (1-based; out of range: pod 1) of ``p``'s design runs on, and the words
    saying so: ``(p, None)`` without pods; with pods the pod planned alone (``MixedPlan.plans``: its system, NICs and
    leaves; a ``PodPlan``, charged its GPUs' share of the whole design's TCO) and sentences naming the workload
    (``RUNS_ON``: "job" or "deployment"), the pod and the bound across pods (an all-reduce of 1 GiB, the slowest
    pod's, its bus bandwidth in ``unit``: ``cross_pod_busbw``). Raises what ``mixed_plan`` raises."""
    mixed = design_mixed(p.design)
    if mixed is None:
        return p, None
    index = pod - 1 if 1 <= pod <= len(mixed.plans) else 0
    own, summary = mixed.fabric.pods[index], pods_summary(mixed)
    whole = whole_plan(p)
    chosen = PodPlan.model_construct(**dict(mixed.plans[index]), whole_cost=whole.cost,
                                     whole_gpus=whole.cost_basis()[1])
    runs = runs_on(own, index, workload)
    busbw = cross_pod_busbw(summary, unit)
    bound = _(  # pods of one rate: no pod is the slowest (the review pack's words, ``bound_words``)
        "Every pod has the same rate across pods: an all-reduce of 1 GiB across every pod reaches at most {busbw} "
        "bus bandwidth.").format(busbw=busbw) if summary["pods_alike"] else _(
        "A collective across every pod runs at the slowest pod's rate (pod {slowest}): an all-reduce of 1 GiB across "
        "every pod reaches at most {busbw} bus bandwidth.").format(slowest=summary["slowest_pod"], busbw=busbw)
    return chosen, sentences(runs, bound)


ONE_FABRIC = {
    "sweep": N_("The sweep varies one fabric; this design has {count} pods under one spine layer, which it cannot "
                "vary together. Sweep the first pod alone ({pod}, every other setting of the design kept): {way}; or "
                "compare designs with pods on the Compare page."),
    "optimize": N_("The optimizer searches one fabric; this design has {count} pods under one spine layer, which it "
                   "cannot search together. Search the first pod alone ({pod}, every other setting of the design "
                   "kept): {way}."),
}
"""What the Sweep and Optimize pages (and ``python -m core sweep`` and ``optimize --design``) say of a design with pods, by tool: the way out
is the first pod alone (``first_pod``), reached as ``WAY_OUT`` says by surface."""
WAY_OUT = {"page": N_("the button below opens it on this page"),
           "cli": N_('the same command with --pods ""'),
           "cli_first_pod": N_("the same command with --first-pod")}
"""How each surface reaches the first pod alone: the page's button (a link to the page with ``first_pod``'s design),
the CLI's option that clears the design's pods (``sweep``'s ``--pods ""``, ``optimize``'s ``--first-pod``: a
``--design`` file's pods, ``first_pod``)."""


def first_pod(design: Design) -> Design:
    """``design``'s first pod alone: its own system and nodes, every other field kept, without the extra pods
    (``Design.pods``, ``pods_final``); the design the Sweep and Optimize pages open for a design with pods."""
    return design.model_copy(update={"pods": None, "pods_final": False})


def one_fabric_only(design: Design, tool: str, surface: str = "page") -> str | None:
    """``ONE_FABRIC[tool]`` in the current language for a design with pods (None without), with the way out of
    ``surface`` (``WAY_OUT``): the tools that vary or search one fabric say so instead of working on the first pod
    alone unasked."""
    count = pod_count(design)
    if count < 2:
        return None
    pod = _("{system}, {nodes}").format(system=design.gpu, nodes=plurals.nodes(design.nodes)) if design.nodes else \
        _("{gpus} x {system}").format(gpus=number(design.gpus or 0), system=design.gpu)
    return _(ONE_FABRIC[tool]).format(count=count, pod=pod, way=_(WAY_OUT[surface]))


def bisection_note(mixed: MixedPlan, unit: str) -> str:
    """How the whole design's bisection (the Bisection card: the worst cut into halves of equal GPU count,
    ``MixedFabric.bisection_gbps``) relates to each pod's own (its plan alone), in ``unit`` (``core.units``, one
    direction), in the current language."""
    from core.units import bandwidth, from_tbits

    f = mixed.fabric
    side = ", ".join(_("{gpus} GPUs of pod {pod} at {rate}").format(
        gpus=f"{gpus:,.0f}", pod=f.pods[i].index + 1, rate=bandwidth(f.pods[i].gbps_per_gpu, unit))
        for i, gpus in f.slower_half())
    own = " + ".join(bandwidth(from_tbits(p.bandwidth.bisection_tbits_one_direction), unit) for p in mixed.plans)
    return _("The Bisection card ({whole}) is the whole fabric's worst cut into two halves of equal GPU count: the "
             "half of the slowest GPUs ({side}), each at its pod's rate per GPU. Each pod's section shows that pod's "
             "own bisection as if alone ({own}); they do not add up to the card, because the worst cut puts the "
             "slowest GPUs on one side.").format(whole=bandwidth(f.bisection_gbps, unit), side=side, own=own)


def design_models(design: Design) -> dict[str, str]:
    """``pods_models`` of ``design``'s pods; {} without pods or when they cannot be planned together (the caller then
    says the design's own fields): the one rule by which a headline (``core.figures.subtitle``) and the XLSX Summary
    (``core.formats.xlsx``) name every pod's speeds, switches and NICs."""
    try:
        return pods_models(design_mixed(design)) if design.pods else {}
    except FabricPlannerError:
        return {}


def pods_models(mixed: MixedPlan) -> dict[str, str]:
    """Every pod's words for a design's headline: ``switch`` (the pods' leaf models and the shared spines' model;
    each alone: ``leaves``, ``spine``), ``nic`` (every pod's NIC model), ``speed`` (every pod's port speed
    [Gb/s per direction], ``400 / 800``) and ``tiers`` (the shared fabric's tiers, ``2 tiers``: not the first
    pod's alone)."""
    f = mixed.fabric
    leaves, spine = " + ".join(dict.fromkeys(pod.leaf_switch for pod in f.pods)), _spine_models(f)
    words = _("{leaves} leaves, {spine} spines").format(leaves=leaves, spine=spine)
    if f.tiers == 3:
        words = _("{leaves} leaves, {spine} spines, {core} cores").format(leaves=leaves, spine=spine,
                                                                          core=f.core_switch)
    return {"switch": words, "leaves": leaves, "spine": spine,
            "nic": " + ".join(dict.fromkeys(p.resolved.nic.id for p in mixed.plans)),
            "speed": " / ".join(dict.fromkeys(str(pod.port_speed_gbps) for pod in f.pods)),
            "tiers": plurals.tiers(f.tiers)}
