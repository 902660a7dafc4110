"""The serving search (``core.perf.serving_search``): every answer is a deployment ``estimate`` confirms.

* ``search`` with a rate picks a deployment that meets the targets when re-estimated, and one prefill instance
  fewer misses them (the fewest nodes); without a rate it is at its ``max_rate``.
* ``max_rate`` meets the targets at the rate it returns and misses 1% above; it grows with a looser target;
  None when nothing meets them; without targets it is the pools' capacity.
* ``balanced_ratio`` is the ratio of the pools' per-node rates the estimate itself reports.
* ``what_if_frontend`` keeps every instance inside one NVLink domain and moves the KV cache to the front end.
* Nothing meets the targets: a reason, and ways out a further search confirms.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import pytest

from core.design import Design
from core.perf.serving import estimate, parse_deployment
from core.perf.serving import capacity
from core.perf.serving_search import (
    balanced_ratio,
    max_rate,
    redundant_experts,
    search,
    split_options,
    what_if_frontend,
    with_rate,
)
from core.perf.training import model_preset
from core.plan import plan

WORKLOAD = dict(input_tokens=2000, output_tokens=500, ttft_ms=2000, tpot_ms=100)


@lru_cache(maxsize=None)
def _plan(gpu: str = "H100", nodes: int = 16):
    return plan(Design(gpu=gpu, nodes=nodes))


def _lmsys_like(**workload):
    """DeepSeek-V3 as LMSYS deployed it on H100 (prefill EP32, decode EP64), on 12 of 16 nodes."""
    return parse_deployment(dict(model="deepseek-v3", prefill=dict(nodes=4, dp=32, ep=32),
                                 decode=dict(nodes=8, dp=64, ep=64), workload={**WORKLOAD, **workload}))


def test_search_with_a_rate_meets_the_targets_on_the_fewest_nodes():
    p = _plan()
    result = search(p, "deepseek-v3", {**WORKLOAD, "rate": 30}, mode="disaggregated")
    best = result.best
    assert best is not None and best.mode == "disaggregated"
    again = estimate(p, best)
    assert again.meets_slo and again.rate == pytest.approx(30)
    assert again.gpus == result.best_estimate.gpus == result.candidates[0].gpus
    assert again.ttft_s * 1e3 <= WORKLOAD["ttft_ms"] and again.tpot_s * 1e3 <= WORKLOAD["tpot_ms"]
    fewer = best.prefill.nodes - split_step(p, best.prefill)
    if fewer >= split_step(p, best.prefill):  # one prefill instance fewer misses the targets
        smaller = best.model_copy(update={"prefill": best.prefill.model_copy(update={"nodes": fewer})})
        assert not estimate(p, smaller).meets_slo
    ranked = [c for c in result.candidates if c.meets]
    assert [c.gpus for c in ranked] == sorted(c.gpus for c in ranked)  # fewest GPUs first


def split_step(p, split) -> int:
    g = p.resolved.gpus_per_node
    return math.lcm(split.instance_gpus, g) // g


def test_search_without_a_rate_is_the_cheapest_at_its_max_rate():
    p = _plan()
    result = search(p, "deepseek-v3", WORKLOAD, mode=None)
    best, chosen = result.best, result.candidates[0]
    assert best is not None and chosen.meets
    top = max_rate(p, best)
    assert chosen.rate == pytest.approx(top, rel=2e-3)
    assert estimate(p, with_rate(best, chosen.rate)).meets_slo
    costs = [c.estimate.usd_per_million_output_tokens for c in result.candidates if c.meets]
    assert costs[0] == pytest.approx(min(costs), rel=2e-3)
    assert {row["verdict"] for row in result.explain()} <= {"chosen", "meets the targets; ranked lower",
                                                            "misses the targets"}
    summary = result.summary()
    assert summary["chosen"]["meets_slo"] and summary["reason"] is None and summary["splits_considered"]["decode"] > 0


def test_max_rate_meets_the_targets_and_misses_just_above():
    p = _plan()
    dep = _lmsys_like()
    top = max_rate(p, dep)
    assert top is not None and 0 < top < capacity(p, dep)
    assert estimate(p, with_rate(dep, top)).meets_slo
    assert not estimate(p, with_rate(dep, top * 1.01)).meets_slo


def test_max_rate_grows_with_a_looser_target():
    p = _plan()
    rates = [max_rate(p, _lmsys_like(ttft_ms=ttft)) for ttft in (700, 1000, 2000, 5000)]
    assert all(r is not None for r in rates)
    assert rates == sorted(rates) and rates[0] < rates[-1]


@pytest.mark.parametrize("mode", ["disaggregated", "aggregated"])
def test_max_rate_none_when_nothing_meets_and_capacity_without_targets(mode):
    p = _plan()
    assert max_rate(p, _lmsys_like(tpot_ms=0.5).model_copy(update={"mode": mode})) is None
    free = _lmsys_like(ttft_ms=None, tpot_ms=None).model_copy(update={"mode": mode})
    top = max_rate(p, free)
    assert top == pytest.approx(capacity(p, free), rel=1e-5)
    assert math.isfinite(estimate(p, with_rate(free, top)).ttft_s)
    assert math.isinf(estimate(p, with_rate(free, top * 1.01)).ttft_s)  # a pool saturates above it


def test_balanced_ratio_is_the_pools_per_node_rates():
    p = _plan()
    dep = _lmsys_like(tpot_ms=None)  # the decode node at its full KV cache: the estimate's decode capacity
    ratio = balanced_ratio(p, dep)
    e = estimate(p, with_rate(dep, 1.0))
    w = dep.workload
    prefill_node = e.prefill.capacity_tokens_per_s / w.new_tokens / dep.prefill.nodes
    decode_node = e.decode.capacity_tokens_per_s / w.output_tokens / dep.decode.nodes
    assert ratio == pytest.approx(decode_node / prefill_node, rel=1e-3)
    tight = balanced_ratio(p, _lmsys_like(tpot_ms=20))  # a tighter TPOT: smaller decode batches, fewer prefill nodes
    assert tight < ratio


def test_what_if_frontend_confines_expert_parallelism_to_the_domain():
    p = plan(Design(gpu="GB200-NVL72", nodes=72))  # two NVL72 domains
    dep = parse_deployment(dict(model="deepseek-v3", prefill=dict(nodes=18, dp=72, ep=72, redundant_experts=32),
                                decode=dict(nodes=36, dp=144, ep=144, redundant_experts=32),
                                workload={**WORKLOAD, "rate": 20}))
    out = what_if_frontend(p, dep)
    assert out["resplit"] == ["decode"] and out["reason"] is None
    front = out["frontend"]
    domain = p.resolved.nvlink_domain_gpus
    for pool in ("prefill", "decode"):
        split = front[pool]["split"]
        assert split["tp"] * split["dp"] * split["pp"] <= domain
    assert front["network"] == "frontend" and front["kv_transfer"]["level"] == "frontend"
    assert out["fabric"]["kv_transfer"]["level"] != "frontend"
    d = out["difference"]
    assert d["ttft_s"] == pytest.approx(front["ttft_s"] - out["fabric"]["ttft_s"])
    assert d["ttft_s"] > 0  # the front end is slower for the KV cache


def test_what_if_frontend_says_when_the_model_does_not_fit_a_domain():
    out = what_if_frontend(_plan(), _lmsys_like(rate=10))  # 671B at FP8 does not fit 8 x 80 GB
    assert out["frontend"] is None and out["difference"] is None
    assert "does not fit one NVLink domain of 8 GPUs" in out["reason"]


def test_nothing_fits_gives_a_reason_and_checked_ways_out():
    p = _plan()
    result = search(p, "llama3-405b", WORKLOAD, precision="bf16", max_nodes=1)
    assert result.best is None and result.best_estimate is None
    assert "does not fit" in result.reason
    assert result.ways_out and any(w.startswith("use ") for w in result.ways_out)


def test_a_target_too_tight_names_the_fastest_and_a_relaxed_target_that_works():
    p = _plan()
    result = search(p, "deepseek-v3", {**WORKLOAD, "tpot_ms": 1})
    assert result.best is None
    assert "TPOT target of 1 ms" in result.reason and "fastest step takes" in result.reason
    relax = next(w for w in result.ways_out if w.startswith("relax the targets"))
    ttft, tpot = (float(x.replace(",", "")) for x in re.search(r"TTFT (\S+) ms and TPOT (\S+) ms", relax).groups())
    assert tpot > 1
    again = search(p, "deepseek-v3", {**WORKLOAD, "ttft_ms": ttft, "tpot_ms": tpot}, ways_out=False)
    assert again.best is not None
    assert estimate(p, with_rate(again.best, again.candidates[0].rate)).meets_slo


def test_a_rate_beyond_the_cluster_says_how_many_nodes():
    p = _plan()
    result = search(p, "deepseek-v3", {**WORKLOAD, "rate": 5000}, mode="disaggregated")
    assert result.best is None and "requests/s needs at least" in result.reason
    assert any(w.startswith("serve at most") for w in result.ways_out)


def test_redundant_experts_make_ep_divide_the_slots():
    assert redundant_experts(256, 72) == 32  # SGLang / DeepSeek's EP72 on 9 H100 nodes: 288 slots
    assert redundant_experts(256, 16) == 0
    assert (256 + redundant_experts(256, 3)) % 3 == 0 and redundant_experts(256, 3) < 3


@pytest.mark.parametrize("network", ["fabric", "frontend"])
def test_split_options_divide_the_model_and_the_nodes(network):
    p = _plan()
    m = model_preset("deepseek-v3")
    options = split_options(p, m, network)
    assert options
    for s in options:
        assert m.heads % s.tp == 0 and (s.tp * s.dp) % s.ep == 0 and (m.experts + s.redundant_experts) % s.ep == 0
        assert (s.nodes * p.resolved.gpus_per_node) % s.instance_gpus == 0
        if network == "frontend":
            assert s.instance_gpus <= p.resolved.nvlink_domain_gpus
    dense = split_options(p, model_preset("llama3.3-70b"))
    assert all(s.dp == 1 and s.ep == 1 for s in dense)
