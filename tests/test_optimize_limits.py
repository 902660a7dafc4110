"""Bounds before detail for the searches under a limit or with an objective other than capex
(``core.analysis.optimize``: ``_decide``, ``_prunes``, ``_Evaluator.refused``, ``_Evaluator.early_serving`` with a
training job): the bounded search must decide what the search that costs every candidate decides
(``optimize(..., bounded=False)``): the same optimum, front, rejection counts, feasible count, explanation and
switch families, with fewer candidates costed; and the floors the refinement raises never exceed the bill's."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.analysis.linkpower import links_power_floor
from core.analysis.optimize import Constraints, _Evaluator, optimize
from core.catalog import load_catalog
from core.cost import cost_floor, other_network_rows
from core.errors import FabricPlannerError
from core.plan import plan
from core.perf.serving import parse_deployment
from core.perf.training import parse_job
from test_optimize_bounds import _DESIGNS, ETHERNET, MIXED, _same


def _target(rate: float = 8.0) -> object:
    return parse_deployment({"model": "llama3.3-70b", "mode": "aggregated", "precision": "fp8",
                             "workload": {"input_tokens": 2000, "output_tokens": 500, "rate": rate,
                                          "ttft_ms": 3000, "tpot_ms": 100.0}})


def _job() -> object:
    return parse_job({"model": "llama3-8b", "tokens_to_train": 1e11})


@pytest.mark.parametrize("objective", ["tco", "gpu_hour"])
def test_a_tco_objective_prunes_by_its_floor_as_costing_every_candidate(objective):
    """The TCO and the cost per GPU-hour are the front's money axis: a candidate a cheaper costed one beats at its
    TCO floor is decided by its bounds, and the answer is that of costing every candidate."""
    bounded = optimize("H100", 256, Constraints(), ETHERNET, workers=1, objective=objective)
    full = optimize("H100", 256, Constraints(), ETHERNET, workers=1, objective=objective, bounded=False)
    assert bounded.pruned > 0 and full.pruned == 0 and bounded.costed < full.costed
    _same(bounded, full)
    by_index = {c.index: c for c in full.candidates}
    assert all(c.tco_floor_usd <= by_index[c.index].tco_usd for c in bounded.candidates if c.pruned)


def test_the_days_objective_prunes_as_costing_every_candidate():
    """Days to train as the objective (the front's performance): a candidate a cheaper costed one of its family
    trains at least as fast is decided by its bounds."""
    constraints = Constraints(job=_job())
    bounded = optimize("H100", 64, constraints, ETHERNET, workers=1, objective="days")
    full = optimize("H100", 64, constraints, ETHERNET, workers=1, objective="days", bounded=False)
    assert bounded.pruned > 0 and bounded.costed < full.costed
    _same(bounded, full)


def test_the_cost_per_token_objective_prunes_as_costing_every_candidate():
    """The cost per million output tokens as the objective: a candidate a cheaper costed one (of its family) serves
    at most at its floor's cost per token is decided by its bounds."""
    constraints = Constraints(serving=_target())
    bounded = optimize("H100", 32, constraints, ETHERNET, workers=1, objective="usd_per_mtok")
    full = optimize("H100", 32, constraints, ETHERNET, workers=1, objective="usd_per_mtok", bounded=False)
    assert bounded.pruned > 0 and bounded.costed < full.costed
    _same(bounded, full)


@pytest.mark.parametrize("objective", ["cluster", "usd_per_mtok"])
def test_a_job_and_a_serving_target_are_decided_before_the_bill_as_costing_every_candidate(objective):
    """A training job and a serving target: the job's split and the serving search run before the bill, and a
    candidate within the job's limits is decided by the cost per token at its floor; with a step-time limit that
    rules out part of the grid (those candidates are costed, as the job's checks come first)."""
    job = _job()
    free = optimize("H100", 32, Constraints(job=job, serving=_target()), ETHERNET, workers=1, bounded=False)
    steps = sorted(c.step_s for c in free.candidates if c.feasible)
    for constraints in (Constraints(job=job, serving=_target()),
                        Constraints(job=job, serving=_target(), max_step_s=steps[len(steps) // 2])):
        bounded = optimize("H100", 32, constraints, ETHERNET, workers=1, objective=objective)
        full = optimize("H100", 32, constraints, ETHERNET, workers=1, objective=objective, bounded=False)
        assert bounded.pruned > 0 and bounded.costed < full.costed
        _same(bounded, full)


def _limits(kind: str) -> Constraints:
    """A budget or power limit between the cheapest and the dearest feasible design of ``MIXED`` at 512 GPUs."""
    full = optimize("H100", 512, Constraints(), MIXED, workers=1, bounded=False)
    if kind == "budget":
        costs = sorted(c.capex_usd for c in full.candidates if c.feasible)
        return Constraints(budget_usd=costs[len(costs) // 3])
    powers = sorted(c.facility_kw for c in full.candidates if c.feasible)
    return Constraints(max_power_kw=powers[len(powers) // 3])


@pytest.mark.parametrize("kind", ["budget", "power"])
@pytest.mark.parametrize("objective", ["cluster", "compute", "tco"])
def test_a_limit_is_decided_by_the_refined_floors_as_the_full_bill(kind, objective):
    """Under a budget or power limit, a candidate its rack arrangement's floors put over the limit is ruled out
    without its bill (its capex unknown, its counts' floor within the limit), and the answer, rejections and
    explanation are those of costing every candidate."""
    constraints = _limits(kind)
    bounded = optimize("H100", 512, constraints, MIXED, workers=1, objective=objective, strict=False)
    full = optimize("H100", 512, constraints, MIXED, workers=1, objective=objective, strict=False, bounded=False)
    _same(bounded, full)
    limit, key = (constraints.budget_usd, "budget_usd") if kind == "budget" else (constraints.max_power_kw,
                                                                                  "max_power_kw")
    counts = _Evaluator(constraints, load_catalog())  # what the counts' floor alone leaves pending
    refused = [c for c in bounded.candidates if c.reason == key and math.isnan(c.capex_usd)
               and counts.evaluate(c.index, c.design, detail=False).pending is not None]
    assert refused, "the refined floors ruled nothing out: the test checks nothing"
    by_index = {c.index: c for c in full.candidates}
    for c in refused:
        assert c.capex_floor_usd <= by_index[c.index].capex_usd
        assert c.power_floor_kw <= by_index[c.index].facility_kw


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gpus=st.sampled_from(sorted(_DESIGNS)), pick=st.integers(min_value=0),
       media=st.sampled_from(["auto", "copper", "aoc", "optics", "smf"]),
       per_rack=st.sampled_from([None, 1, 2, 8]),
       override=st.sampled_from([None, ("ACC-400G", 0.0), ("OSFP-800G-2xSR4", 0.0), ("OSFP-800G-2xSR4", 40.0),
                                 ("QSFP56-200G-SR4", 0.5), ("FIBER-MMF-OM4-MPO12", 3.0)]))
def test_links_power_floor_never_exceeds_the_bill(gpus, pick, media, per_rack, override):
    """Property: the compute links' power floor from the layout's length bins (``links_power_floor``) is at most the
    bill's cables and transceivers of the compute links' power, and the refined floors (``cost_floor`` with it) are
    at most the full plan's power, TCO, capex and compute fabric capex, for any design of the grid with its cable
    media, nodes per rack and a power override of a cable or module drawn."""
    design = _DESIGNS[gpus][pick % len(_DESIGNS[gpus])]
    update = {"cable_media": media}
    if per_rack is not None:
        update["nodes_per_rack"] = per_rack
    if override is not None:
        update["power_overrides"] = {override[0]: override[1]}
    try:
        p = plan(type(design)(**{**design.model_dump(), **update}))
    except FabricPlannerError:
        return
    catalog = load_catalog()
    bill = sum(r.extended_power_w for r in p.bom
               if r.network == "compute" and r.category in ("cable", "transceiver") and not r.spare)
    watts = links_power_floor(p.resolved, p.fabric, catalog, p.lengths)
    assert 0 <= watts <= bill * (1 + 1e-12)
    floor = cost_floor(p.resolved, p.fabric, catalog, other_network_rows(p.resolved, catalog, p.networks), p.lengths,
                       watts)
    assert floor.facility_kw <= p.cost.facility_kw and floor.tco_usd <= p.cost.tco_usd
    assert floor.capex_usd <= p.cost.capex_usd and floor.network_capex_usd <= p.cost.network_capex_usd


def test_links_power_floor_is_near_the_bill():
    """Over grid designs at three sizes the links' power floor is within a percent of the bill's links on average
    (so the power limit decides candidates by it), and never above."""
    catalog = load_catalog()
    ratios = []
    for designs in _DESIGNS.values():
        for design in designs[::61]:
            try:
                p = plan(design)
            except FabricPlannerError:
                continue
            bill = sum(r.extended_power_w for r in p.bom
                       if r.network == "compute" and r.category in ("cable", "transceiver") and not r.spare)
            if bill:
                ratios.append(links_power_floor(p.resolved, p.fabric, catalog, p.lengths) / bill)
    assert len(ratios) > 30 and max(ratios) <= 1 + 1e-12 and sum(ratios) / len(ratios) > 0.99


def test_links_power_floor_of_the_bundled_catalog_is_the_uncached_one():
    """The bundled catalog's least unit powers are cached (``_bundled_optical_watts``, ``_bundled_cable_watts``): the
    floor is, to the bit, the one computed afresh from a copy of the catalog (never cached), with and without power
    overrides and for each cable media policy."""
    catalog = load_catalog()
    copy = catalog.model_copy()
    assert copy is not catalog
    found = 0
    for designs in _DESIGNS.values():
        for design in designs[::41]:
            for update in ({}, {"cable_media": "optics"}, {"cable_media": "aoc"}, {"cable_media": "smf"},
                           {"power_overrides": {"OSFP-800G-2xSR4": 3.5, "ACC-400G": 0.0}}):
                try:
                    p = plan(type(design)(**{**design.model_dump(), **update}))
                except FabricPlannerError:
                    continue
                cached = links_power_floor(p.resolved, p.fabric, catalog, p.lengths)
                assert cached == links_power_floor(p.resolved, p.fabric, copy, p.lengths)
                found += cached > 0
    assert found > 20


@pytest.mark.parametrize("objective", ["days", "gpu_hour"])
def test_a_limit_with_a_job_or_per_gpu_hour_is_decided_as_the_full_bill(objective):
    """A budget with days to train or the cost per GPU-hour as the objective: the candidates the floors rule out
    are costed only when the explanation may name them (never for days: costed, they stop at the budget before
    their days), and the answer and explanation are those of costing every candidate."""
    constraints = _limits("budget").tightened(job=_job())
    bounded = optimize("H100", 512, constraints, MIXED, workers=1, objective=objective, strict=False)
    full = optimize("H100", 512, constraints, MIXED, workers=1, objective=objective, strict=False, bounded=False)
    _same(bounded, full)
    assert bounded.costed < full.costed
