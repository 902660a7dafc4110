"""The Inference page's settings as a deployment on a design (like ``core.perf.jobform`` for training): the
settings' keys (``core.formats.inferencelink`` declares them, with their limits, for the link), the workload and
fixed split fields they give, and the splits and pool sizes chosen where a setting is 0 (``AUTO``):

* pool nodes: aggregated, every node of the design serves; disaggregated, ``PREFILL_SHARE`` of them prefill (at
  least one) and the rest decode;
* a pool's split: the smallest model instance (a divisor of the pool's GPUs) whose weights take at most
  ``WEIGHT_SHARE`` of a GPU's usable HBM, the rest left to the KV cache. A mixture-of-experts model runs its
  attention data-parallel and its experts over every GPU of the instance (``dp = ep = instance``, SGLang's
  DP attention with DeepEP); a dense model is tensor parallel within one NVLink domain (``tp`` a divisor of its
  heads), pipeline parallel beyond. Redundant experts: the fewest extra slots that split evenly over ``ep``.
  Settings the user fixed are kept; what does not fit is the serving model's to say (``estimate`` raises).

With every pool and split left at 0, ``deployment`` takes the serving search's answer instead
(``core.perf.serving_search.search``: the cheapest deployment that meets the targets, as ``python -m core serve``
without a split); the rules above apply when the search finds none or a setting fixes part of a split.
``estimate_on`` shows the deployment at ``serving_search.shown_load``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

from core.errors import DesignError
from core.perf.serving import (Deployment, PoolSplit, Workload, estimate, usable_hbm_bytes, weight_precision,
                               weights_per_gpu_bytes)
from core.perf.serving_search import SearchResult, missed_targets, search, shown_load, with_rate
from core.perf.training import model_preset
from core.plan import Plan

SPLIT_FIELDS = {"n": "nodes", "tp": "tp", "dp": "dp", "ep": "ep", "pp": "pp", "rx": "redundant_experts"}
"""Link key (after the pool's letter) -> ``PoolSplit`` field."""
AUTO = 0
"""A pool's node count or split degree the page chooses for the design."""


def workload(values: Mapping[str, Any]) -> Workload:
    """The serving model's ``Workload`` of the settings (a target of 0 is none; the load as ``inf_load`` says)."""
    load = values["load"]
    return Workload(input_tokens=values["in"], output_tokens=values["out"], cache_hit=values["hit"],
                    rate=values["rate"] if load == "rate" else None,
                    concurrency=values["conc"] if load == "conc" else None,
                    ttft_ms=values["ttft"] or None, tpot_ms=values["tpot"] or None)


def given_split(values: Mapping[str, Any], pool: str) -> dict[str, int]:
    """The split fields of ``pool`` (``"p"`` or ``"d"``) the settings fix (``PoolSplit`` names; unset ones left out)."""
    return {field: values[pool + key] for key, field in SPLIT_FIELDS.items() if values[pool + key] != AUTO}


WEIGHT_SHARE = 0.5
"""Most of a GPU's usable HBM the chosen split gives the weights; the rest holds the KV cache (an assumption
of the page's starting point, not of the serving model)."""
PREFILL_SHARE = 1 / 3
"""Share of the nodes the page gives the prefill pool when it chooses (LMSYS's DeepSeek-V3 deployment ran 4
prefill and 9 decode nodes, lmsys.org/blog/2025-05-05-large-scale-ep); the search balances it."""
def pool_nodes(plan: Plan, dep: Deployment, values: Mapping[str, Any]) -> tuple[int, int]:
    """(prefill, decode) nodes: the settings', or chosen for ``plan`` where they are 0 (prefill 0 when aggregated).
    Chosen counts are whole multiples of the nodes the smallest instance of ``dep``'s model needs (``unit_nodes``)."""
    total = plan.resolved.nodes
    if values["mode"] == "aggregated":
        return 0, values["dn"] or total
    unit = min(unit_nodes(plan, dep, given_split(values, "p")), total)
    prefill = values["pn"] or min(max(unit, round(total * PREFILL_SHARE / unit) * unit), max(1, total - 1))
    rest = max(1, total - prefill)
    unit = unit_nodes(plan, dep, given_split(values, "d"))
    return prefill, values["dn"] or (rest // unit * unit or rest)


def unit_nodes(plan: Plan, dep: Deployment, given: Mapping[str, int]) -> int:
    """Nodes of the smallest instance of ``dep``'s model whose weights fit (``WEIGHT_SHARE``), the ``given`` split
    fields kept; instances of a power of two GPUs or whole nodes are tried (1 when none fits)."""
    r = plan.resolved
    sizes = sorted({2 ** k for k in range(r.gpus.bit_length())} | set(range(r.gpus_per_node, r.gpus + 1,
                                                                           r.gpus_per_node)))
    usable = usable_hbm_bytes(plan)
    for size in sizes:
        split = _shape(dep, size, given, r.nvlink_domain_gpus)
        if split is not None and weights_per_gpu_bytes(dep, split) <= WEIGHT_SHARE * usable:
            return -(-split.instance_gpus // r.gpus_per_node)
    return 1


def _divisors(n: int) -> list[int]:
    """The divisors of ``n``, ascending (pairs up to its square root)."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def _shape(dep: Deployment, instance: int, given: Mapping[str, int], domain: int) -> PoolSplit | None:
    """The split of an ``instance``-GPU model instance, the ``given`` fields kept (None: they do not divide it)."""
    m = dep.model
    if m.is_moe:
        tp, pp = given.get("tp", 1), given.get("pp", 1)
        if instance % (tp * pp):
            return None
        dp = given.get("dp", instance // (tp * pp))
        ep = given.get("ep", tp * dp)
    else:
        dp, ep = given.get("dp", 1), given.get("ep", 1)
        if instance % dp:
            return None
        tp = given.get("tp") or max(t for t in _divisors(instance // dp)
                                    if m.heads % t == 0 and t <= max(1, domain) and instance // dp % t == 0)
        pp = given.get("pp", instance // (tp * dp))
    if ep < 1 or m.is_moe and (tp * dp) % ep:
        return None
    slots = (-m.experts) % ep if m.is_moe else 0
    return PoolSplit(nodes=1, tp=tp, dp=dp, ep=ep, pp=min(max(pp, 1), m.layers),
                     redundant_experts=given.get("redundant_experts", slots))


def fit_split(plan: Plan, dep: Deployment, nodes: int, given: Mapping[str, int]) -> PoolSplit:
    """The split of a pool of ``nodes`` nodes of ``plan`` for ``dep``'s model and precision: the ``given`` fields
    as they are, the others chosen (module docstring). When no instance fits, the largest one tried."""
    r = plan.resolved
    gpus = max(1, nodes) * r.gpus_per_node
    usable, last = usable_hbm_bytes(plan), None
    for instance in _divisors(gpus):
        split = _shape(dep, instance, given, r.nvlink_domain_gpus)
        if split is None or gpus % split.instance_gpus:
            continue
        last = split.model_copy(update={"nodes": max(1, nodes)})
        if weights_per_gpu_bytes(dep, last) <= WEIGHT_SHARE * usable:
            return last
    return last or PoolSplit(**{**given, "nodes": max(1, nodes)})


def base_deployment(values: Mapping[str, Any], network: str = "fabric", system=None) -> Deployment:
    """The settings' model, mode, precisions, workload and network, the pools' splits left at their defaults (what
    a search sizes: the optimizer's serving target). The weight precision ``auto`` is resolved for ``system``
    (``core.perf.serving.weight_precision``) when given, else kept (the search resolves it on each design)."""
    precision = values["prec"] if system is None else weight_precision(values["prec"], system)
    return Deployment(model=model_preset(values["model"]), mode=values["mode"], precision=precision,
                      kv_precision=values["kvp"], workload=workload(values), network=network)


def deployment(plan: Plan, values: Mapping[str, Any], network: str = "fabric",
               nodes: tuple[int, int] | None = None) -> Deployment:
    """The deployment the settings ``values`` (``inferencelink.decode``'s) mean on ``plan``; ``nodes`` (prefill,
    decode) in place of the settings' node counts (another design's, ``same_gpus``).

    With every pool size and split left at 0 (and no ``nodes``), the serving search's cheapest deployment that meets
    the targets in the settings' mode (``serving_search.search``: what ``python -m core serve --mode M`` answers
    without a split); when none does, or a setting fixes part of a split, ``chosen_deployment``."""
    return _searched(plan, values, network, nodes)[0]


def _searched(plan: Plan, values: Mapping[str, Any], network: str,
              nodes: tuple[int, int] | None) -> tuple[Deployment, SearchResult | None]:
    """``deployment`` and, when the settings leave the split to the search and it finds none on the compute fabric,
    the search's result (its reason and estimated ways out: ``python -m core serve``'s answer to the same
    question)."""
    if nodes is None and not any(given_split(values, pool) for pool in ("p", "d")):
        base = base_deployment(values, network, plan.resolved.system)
        result = search(plan, base.model, base.workload, mode=base.mode, precision=base.precision,
                        kv_precision=base.kv_precision, network=network, ways_out=network == "fabric")
        if result.best is not None:
            return result.best.model_copy(update={"workload": base.workload}), None
        # the no-fabric what-if keeps its own reason (an instance must fit one domain): the search's is the serving
        # question's, the one ``serve`` answers
        return chosen_deployment(plan, values, network, nodes), result if network == "fabric" else None
    return chosen_deployment(plan, values, network, nodes), None


def chosen_deployment(plan: Plan, values: Mapping[str, Any], network: str = "fabric",
                      nodes: tuple[int, int] | None = None) -> Deployment:
    """The settings' deployment with the pools and splits left at 0 chosen by this module's rules (the module
    docstring); ``nodes`` as ``deployment``."""
    base = base_deployment(values, network, plan.resolved.system)
    prefill_nodes, decode_nodes = nodes or pool_nodes(plan, base, values)
    decode = fit_split(plan, base, decode_nodes, given_split(values, "d"))
    prefill = fit_split(plan, base, prefill_nodes, given_split(values, "p")) if prefill_nodes else PoolSplit()
    return base.model_copy(update={"prefill": prefill, "decode": decode})


def same_gpus(plan: Plan, other: Plan, dep: Deployment) -> tuple[int, int]:
    """(prefill, decode) nodes of ``other`` holding the GPUs ``dep``'s pools have on ``plan`` (rounded up to whole
    nodes)."""
    here, there = plan.resolved.gpus_per_node, other.resolved.gpus_per_node
    nodes = (0 if dep.mode == "aggregated" else dep.prefill.nodes, dep.decode.nodes)
    return tuple(-(-n * here // there) if n else 0 for n in nodes)  # type: ignore[return-value]


def estimate_on(plan: Plan, values: Mapping[str, Any], network: str = "fabric", nodes=None,
                rate: float | None = None):
    """``core.perf.serving.estimate`` of the settings' deployment on ``plan`` at the load it is shown at
    (``serving_search.shown_load``: with no load set, the largest within the targets), or at ``rate`` requests/s
    when given (another design compared at this one's rate: the same load on each); raises its errors.

    When the split is left to the search and it finds none that meets the targets, the page's own choice
    (``chosen_deployment``) is estimated with the search's reason and ways out as a warning; when that choice
    cannot serve either, the search's answer is the error (``serving_search.missed_targets``), as ``python -m core
    serve`` says it."""
    dep, missed = _searched(plan, values, network, nodes)
    try:
        est = estimate(plan, with_rate(dep, rate) if rate is not None else shown_load(plan, dep))
    except DesignError:
        if missed is None:
            raise
        raise missed_targets(missed) from None
    if missed is not None:
        est = dataclasses.replace(est, warnings=[*est.warnings, str(missed_targets(missed))])
    return est
