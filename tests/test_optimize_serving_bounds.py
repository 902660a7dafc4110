"""Bounds before detail with a serving target (``core.analysis.optimize``: ``_Evaluator.early_serving``,
``_served_floored``): the serving search reads no bill, so it runs before the physical layer; a candidate no
deployment serves, or whose deployment costs more than the limit at its floor TCO, is ruled out without its bill.
The bounded search must decide what the search that costs every candidate decides (``optimize(..., bounded=False)``):
the same optimum, front, rejection counts, feasible count, explanation and switch families."""

from __future__ import annotations

import math

import pytest

from core.analysis.optimize import Constraints, optimize
from core.perf.serving import parse_deployment
from test_optimize_bounds import ETHERNET, _same


def _target(rate: float, tpot_ms: float = 100.0) -> object:
    return parse_deployment({"model": "llama3.3-70b", "mode": "aggregated", "precision": "fp8",
                             "workload": {"input_tokens": 2000, "output_tokens": 500, "rate": rate,
                                          "ttft_ms": 3000, "tpot_ms": tpot_ms}})


def _limit_between(constraints: Constraints, objective: str) -> float:
    """A cost-per-token limit that rules out about half of the grid's feasible designs [USD per million tokens]."""
    full = optimize("H100", 32, constraints, ETHERNET, workers=1, objective=objective, bounded=False)
    costs = sorted(c.usd_per_mtok for c in full.candidates if c.feasible)
    return costs[len(costs) // 2]


@pytest.mark.parametrize("objective", ["cluster", "usd_per_mtok"])
def test_a_cost_per_token_limit_is_decided_by_the_floor_as_costing_every_candidate(objective):
    """A limit on the cost per million output tokens: a candidate whose deployment at its floor TCO already costs
    more is ruled out without its bill (fewer candidates costed), and the answer, front, families, rejections and
    explanation are those of costing every candidate."""
    serving = _target(8.0)
    limited = Constraints(serving=serving, max_usd_per_million_tokens=_limit_between(Constraints(serving=serving),
                                                                                     objective))
    bounded = optimize("H100", 32, limited, ETHERNET, workers=1, objective=objective)
    full = optimize("H100", 32, limited, ETHERNET, workers=1, objective=objective, bounded=False)
    assert full.rejected.get("maximum cost per million output tokens")
    assert bounded.costed < full.costed
    _same(bounded, full)
    early = [c for c in bounded.candidates if c.reason and math.isnan(c.capex_usd) and c.serving_gpus]
    assert early and all(c.usd_per_mtok_floor > limited.max_usd_per_million_tokens for c in early)


def test_an_unservable_target_is_ruled_out_before_the_bill():
    """No deployment serves the rate: every buildable candidate is ruled out by the serving step before its bill,
    and the infeasible answer (its message) is that of costing every candidate."""
    unservable = Constraints(serving=_target(1e4))
    bounded = optimize("H100", 32, unservable, ETHERNET, workers=1, strict=False)
    full = optimize("H100", 32, unservable, ETHERNET, workers=1, strict=False, bounded=False)
    assert full.rejected.get("serving load within TTFT and TPOT")
    _same(bounded, full)


def test_a_serving_search_prunes_by_the_cost_per_token_floor_as_costing_every_candidate():
    """No limit on the cost per token: the front is capex against the cost per million output tokens, and a
    candidate a cheaper costed one of its family serves at most at its floor's cost per token is decided by its
    bounds; the answer, front, families, rejections and explanation are those of costing every candidate."""
    constraints = Constraints(serving=_target(8.0))
    bounded = optimize("H100", 32, constraints, ETHERNET, workers=1)
    full = optimize("H100", 32, constraints, ETHERNET, workers=1, bounded=False)
    assert full.pruned == 0 and bounded.pruned > 0
    _same(bounded, full)
    by_index = {c.index: c for c in full.candidates}
    assert all(c.usd_per_mtok_floor <= by_index[c.index].usd_per_mtok for c in bounded.candidates if c.pruned)
