"""The bisection ratio: half the injection of all GPUs over the bisection, 1.0 = non-blocking."""

import pytest

from core.design import Design
from core.fabric.bandwidth import bisection_gbits, bisection_ratio, tier_capacities_gbits
from core.plan import plan


def test_pure_function():
    assert bisection_ratio(1000.0, 500.0) == 1.0
    assert bisection_ratio(1000.0, 250.0) == 2.0
    assert bisection_ratio(1000.0, 1000.0) == 1.0  # more than half the injection: still non-blocking
    assert bisection_ratio(0.0, 0.0) == 1.0


def test_non_blocking_two_tier_is_one_to_one():
    result = plan(Design(gpu="H100", nodes=64))
    assert result.fabric.tiers == 2
    injection = tier_capacities_gbits(result.resolved, result.fabric)["injection"]
    assert bisection_gbits(result.resolved, result.fabric) == pytest.approx(injection / 2)
    assert result.bandwidth.bisection_ratio == pytest.approx(1.0)


def test_two_to_one_at_the_leaf_is_two_to_one():
    result = plan(Design(gpu="H100", nodes=84, switch="QM9700", oversubscription=2.0))  # 2 full SUs
    assert result.fabric.tiers == 2
    assert result.bandwidth.leaf_oversubscription == pytest.approx(2.0)
    assert result.bandwidth.bisection_ratio == pytest.approx(2.0)
    injection = tier_capacities_gbits(result.resolved, result.fabric)["injection"]
    assert bisection_ratio(injection, bisection_gbits(result.resolved, result.fabric)) == pytest.approx(2.0)
