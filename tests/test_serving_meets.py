"""The serving search asks of each node count and rate whether the estimate meets the targets
(``core.perf.serving.meets_targets``). Since overloaded deployments serve at saturation, each overloaded estimate
also solved the saturated pools (a bisection for the saturation rate and the pools again), work the answer never
read: an overloaded deployment's queue is unbounded, so it never meets a target. The search at a rate it meets got
slower (40 requests/s aggregated on 32 H100: 28-34 ms against 20-22 ms); it now decides those before the pools are
solved, with the same answers."""

from __future__ import annotations

import pytest

from core.design import Design
from core.perf import serving
from core.perf import serving_search
from core.plan import plan

WORKLOAD = dict(input_tokens=2000, output_tokens=500, ttft_ms=2000, tpot_ms=50)


@pytest.fixture(scope="module")
def h100():
    return plan(Design())


def _dep(mode: str, workload: dict, nodes: int = 4) -> serving.Deployment:
    split = {"prefill": {"nodes": 1, "tp": 2}, "decode": {"nodes": nodes - 1, "tp": 2}} if mode == "disaggregated" \
        else {"decode": {"nodes": nodes, "tp": 2}}
    return serving.parse_deployment({"model": "llama3.3-70b", "mode": mode, **split, "workload": workload})


@pytest.mark.parametrize("mode", ["aggregated", "disaggregated"])
@pytest.mark.parametrize("load", [{"rate": 0.5}, {"rate": 20.0}, {"rate": 40.0}, {"rate": 70.0}, {"rate": 10_000.0},
                                  {"concurrency": 64}, {"concurrency": 100_000}, {},
                                  {"rate": 40.0, "ttft_ms": None, "tpot_ms": None},
                                  {"rate": 30.0, "ttft_ms": 300.0, "tpot_ms": 20.0}])
def test_meets_targets_is_the_estimates_answer(h100, mode, load):
    dep = _dep(mode, {**WORKLOAD, **load})
    assert serving.meets_targets(h100, dep) == serving.estimate(h100, dep).meets_slo


@pytest.mark.parametrize("mode", ["aggregated", "disaggregated"])
def test_an_overloaded_deployment_is_decided_before_its_pools_are_solved(h100, mode, monkeypatch):
    dep = _dep(mode, {**WORKLOAD, "rate": 10_000.0})
    assert serving.estimate(h100, dep).overloaded
    solved = []
    monkeypatch.setattr(serving, "_saturation", lambda *a: solved.append(a) or 0.0)
    monkeypatch.setattr(serving, "_solve_batch", lambda *a: solved.append(a) or 1.0)
    assert not serving.meets_targets(h100, dep) and not solved


def test_the_search_at_a_rate_it_meets_solves_no_saturated_pool(h100, monkeypatch):
    """40 requests/s aggregated on 32 H100: the node counts below the answer are overloaded; none is solved at
    saturation, and the answer is the one the estimates give."""
    calls = []
    saturation = serving._saturation
    monkeypatch.setattr(serving, "_saturation", lambda *a: calls.append(a) or saturation(*a))
    result = serving_search.search(h100, "llama3.3-70b", {**WORKLOAD, "rate": 40}, mode="aggregated")
    assert result.best is not None and result.best_estimate.meets_slo and not calls
    fewer = result.best.decode.model_copy(update={"nodes": result.best.decode.nodes - result.best.decode.nodes // 2})
    assert not serving.estimate(h100, result.best.model_copy(update={"decode": fewer})).meets_slo
