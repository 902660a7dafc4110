"""The optimizer with a serving target: the cheapest design whose cheapest deployment serves the rate within the
latency targets, and the cost per million output tokens as the front's axis."""

from __future__ import annotations

import math

import pytest

from core.analysis.optimize import Constraints, Grid, optimize
from core.errors import DesignError
from core.perf.serving import parse_deployment
from core.perf.serving_search import search

GRID = Grid(fabrics=("infiniband", "ethernet"), planes=(1,), topologies=("rail-optimized",), tiers=(2,),
            oversubscription=(1.0, 3.0), uplinks=("same",), mixed_tiers=False)


def _target(rate: float) -> object:
    return parse_deployment({"model": "llama3.3-70b", "mode": "aggregated", "precision": "fp8",
                             "workload": {"input_tokens": 2000, "output_tokens": 500, "rate": rate,
                                          "ttft_ms": 3000, "tpot_ms": 100}})


def test_serving_target_picks_a_design_whose_deployment_meets_it():
    result = optimize("H100", 128, Constraints(serving=_target(4.0)), GRID, workers=1)
    best = result.best
    assert result.metric == "usd_per_mtok" and best is not None
    assert best.serving_gpus > 0 and math.isfinite(best.usd_per_mtok)
    assert any("per million output tokens" in line for line in result.explanation)
    again = search(result.best_plan, "llama3.3-70b", _target(4.0).workload, mode="aggregated", ways_out=False)
    assert again.best_estimate.gpus == best.serving_gpus and again.best_estimate.meets_slo
    assert result.summary()["best"]["metrics"]["usd_per_million_output_tokens"] == pytest.approx(
        best.usd_per_mtok, rel=1e-3)


def test_an_unservable_rate_is_named():
    with pytest.raises(DesignError) as info:
        optimize("H100", 16, Constraints(serving=_target(1e4)), GRID, workers=1)
    assert "serving load within TTFT and TPOT" in str(info.value)


def test_cost_ceiling_rules_out_designs():
    cheap = optimize("H100", 128, Constraints(serving=_target(4.0)), GRID, workers=1).best.usd_per_mtok
    with pytest.raises(DesignError) as info:
        optimize("H100", 128, Constraints(serving=_target(4.0), max_usd_per_million_tokens=cheap * 0.5), GRID,
                 workers=1)
    assert "cost per million output tokens" in str(info.value)
