"""Bounds before detail (``core.analysis.optimize``, ``core.cost.cost_floor``): the bounded search decides what the
search that costs every candidate decides, and no bound is ever wrong.

The reference is ``optimize(..., bounded=False)``: every candidate that passes the checks before the physical layer
is laid out, billed and costed (``tests/test_optimize.py`` checks that search against ``core.plan.plan`` of every
design). The bounded search must return the same optimum, front, rejection counts, feasible count, explanation and
switch families, with the same numbers for every candidate it costed; and the capex and power floors must never
exceed the full plan's, on any design (a property test over designs and their settings).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.analysis.optimize import Constraints, Grid, candidate_designs, families, optimize
from core.catalog import load_catalog
from core.cost import (class_links, cost_floor, link_length_floors, links_cost_floor, links_floor, network_floor_rows,
                       other_network_rows)
from core.design import Design
from core.errors import FabricPlannerError
from core.plan import plan

ETHERNET = Grid(fabrics=("ethernet",), switches=("SN5600", "TH5"), oversubscription=(1.0, 2.0, 3.0))
"""Small enough to cost every candidate, and with designs the bounds prune at 256 GPUs."""
MIXED = Grid(switches=("QM9700", "SN5600"), port_speeds=(400,), nics=("CX7", "CX8"), oversubscription=(1.0, 3.0))


def _same(bounded, full) -> None:
    """The two searches decide the same."""
    assert bounded.considered == full.considered
    assert bounded.feasible == full.feasible
    assert bounded.rejected == full.rejected
    assert (bounded.best is None) == (full.best is None)
    if full.best is None:
        assert bounded.explanation == full.explanation
        return
    assert bounded.best.index == full.best.index
    assert bounded.best.capex_usd == full.best.capex_usd
    assert [c.index for c in bounded.pareto] == [c.index for c in full.pareto]
    assert bounded.explanation == full.explanation
    assert (bounded.other_family and bounded.other_family.index) == (full.other_family and full.other_family.index)
    rows = lambda r: [(f.fabric, f.switch, f.topology, f.considered, f.feasible,  # noqa: E731
                       f.cheapest and f.cheapest.index, f.reason, f.ruled_out) for f in families(r.candidates,
                                                                                                  r.objective)]
    assert rows(bounded) == rows(full)
    by_index = {c.index: c for c in full.candidates}
    for c in bounded.candidates:
        reference = by_index[c.index]
        assert c.reason == reference.reason
        if c.pruned:  # decided by its floor: never below the capex it was not costed for
            assert c.feasible and not math.isnan(c.capex_floor_usd)
            assert c.capex_floor_usd <= reference.capex_usd and c.power_floor_kw <= reference.facility_kw
            assert c.network_floor_usd <= reference.network_capex_usd
        elif not math.isnan(c.capex_usd):
            assert c.metrics() == reference.metrics()
            assert c.network_by_category == reference.network_by_category


@pytest.mark.parametrize("objective", ["cluster", "compute"])
def test_pruned_search_equals_costing_every_candidate(objective):
    """No constraint: the bounds prune feasible candidates (the test would pass vacuously otherwise) and the
    optimum, front, families, counts and explanation are those of costing every candidate."""
    bounded = optimize("H100", 256, Constraints(), ETHERNET, workers=1, objective=objective)
    full = optimize("H100", 256, Constraints(), ETHERNET, workers=1, objective=objective, bounded=False)
    assert bounded.pruned > 0 and full.pruned == 0
    assert bounded.costed < full.costed
    # without constraints every feasible candidate is costed or decided by its bounds, and nothing else is costed
    assert full.costed == full.feasible and bounded.costed == bounded.feasible - bounded.pruned
    assert bounded.summary()["costed"] == bounded.costed and "planned" not in bounded.summary()
    _same(bounded, full)


def test_a_training_job_is_decided_by_its_days_as_costing_every_candidate():
    """With a training job the front is days against capex, and the days come from the split search, which reads no
    bill: it runs before the floor, and a candidate a cheaper costed one of its family beats on days is decided by
    its bounds. The answer, front, families, rejections and the pruned candidates' days are those of costing every
    candidate, without a limit and with a step-time limit that rules out part of the grid (a candidate over it is
    never pruned: it is ruled out after its bill, as before)."""
    from core.perf.training import parse_job

    job = parse_job({"model": "llama3-8b", "tokens_to_train": 1e12})
    full = optimize("H100", 256, Constraints(job=job), ETHERNET, workers=1, bounded=False)
    steps = sorted(c.step_s for c in full.candidates if c.feasible)
    for constraints in (Constraints(job=job), Constraints(job=job, max_step_s=steps[len(steps) // 2])):
        bounded = optimize("H100", 256, constraints, ETHERNET, workers=1)
        if constraints.max_step_s is not None:
            full = optimize("H100", 256, constraints, ETHERNET, workers=1, bounded=False)
            assert full.rejected.get("maximum step time")
        assert full.pruned == 0 and bounded.pruned > 0
        _same(bounded, full)
        by_index = {c.index: c for c in full.candidates}
        for c in bounded.candidates:
            if c.pruned:
                assert (c.days, c.step_s, c.split) == (by_index[c.index].days, by_index[c.index].step_s,
                                                       by_index[c.index].split)


def _budget(fraction: float) -> float:
    """A budget between the cheapest and the dearest costed design of ``MIXED`` at 512 GPUs [USD]."""
    full = optimize("H100", 512, Constraints(), MIXED, workers=1, bounded=False)
    costs = sorted(c.capex_usd for c in full.candidates if c.feasible)
    return costs[0] + fraction * (costs[-1] - costs[0])


@pytest.mark.parametrize("limits", [
    {"budget": 0.0},
    {"budget": 0.1, "min_busbw_gbytes": 300.0},
    {"max_power_kw": None},  # set from the cheapest design's power below
    {"budget": -1.0},  # nothing meets it: the explanation's nearest value needs every cost
])
def test_floors_decide_budget_and_power_as_the_full_bill(limits):
    """Budget and power decided by the floors before the physical layer reject exactly what the full bill
    rejects, under the same constraint; the cheapest design one constraint ruled out is still named."""
    limits = dict(limits)
    if "budget" in limits:
        limits["budget_usd"] = _budget(limits.pop("budget"))
    if "max_power_kw" in limits:
        full = optimize("H100", 512, Constraints(), MIXED, workers=1, bounded=False)
        powers = sorted(c.facility_kw for c in full.candidates if c.feasible)
        limits["max_power_kw"] = powers[len(powers) // 3]
    constraints = Constraints(**limits)
    bounded = optimize("H100", 512, constraints, MIXED, workers=1, strict=False)
    full = optimize("H100", 512, constraints, MIXED, workers=1, strict=False, bounded=False)
    _same(bounded, full)
    floored = [c for c in bounded.candidates if c.reason in ("budget_usd", "max_power_kw") and math.isnan(c.capex_usd)]
    if bounded.best is not None and "budget_usd" in limits:
        assert floored, "the floors decided no budget: the test checks nothing"


def test_parallel_bounded_search_equals_costing_every_candidate():
    """Split over workers (each switch family whole in one part), the bounded search still decides the same."""
    bounded = optimize("H100", 256, Constraints(), ETHERNET, workers=2)
    full = optimize("H100", 256, Constraints(), ETHERNET, workers=1, bounded=False)
    assert bounded.pruned > 0
    _same(bounded, full)


_DESIGNS = {gpus: candidate_designs("H100", gpus, Constraints(), Grid(switches=("QM9700", "Q3400", "SN5600", "TH5"),
                                                                      nics=("CX7", "BF3", "CX8")))
            for gpus in (64, 1024, 8192)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gpus=st.sampled_from(sorted(_DESIGNS)), pick=st.integers(min_value=0), spares=st.sampled_from(["off", "default"]),
       basis=st.sampled_from(["street", "list", "hyperscale"]), media=st.sampled_from(["auto", "aoc", "optics", "smf"]),
       override=st.sampled_from([None, ("TH5", 0.0), ("QM9700", 1.0), ("CX7", 5000.0)]))
def test_floors_never_exceed_the_full_plan(gpus, pick, spares, basis, media, override):
    """Property: for any buildable design (a grid design with its spares, price basis, cable media and a price
    override drawn), each floor of ``cost_floor`` is at most the full plan's capex, compute fabric capex and
    facility power. A bound that is ever wrong fails here."""
    designs = _DESIGNS[gpus]
    design = designs[pick % len(designs)]
    update = {"spares": spares, "price_basis": basis, "cable_media": media}
    if override is not None:
        update["price_overrides"] = {override[0]: override[1]}
    try:
        design = type(design)(**{**design.model_dump(), **update})
        p = plan(design)
    except FabricPlannerError:
        return
    catalog = load_catalog()
    others = other_network_rows(p.resolved, catalog, p.networks)
    least = network_floor_rows(p.resolved, p.fabric, catalog, least=True)  # the search's first floor's networks
    for lengths, rows in ((None, others), (p.lengths, others), (None, least)):  # counts alone, length bins
        floor = cost_floor(p.resolved, p.fabric, catalog, rows, lengths)
        assert floor.capex_usd <= p.cost.capex_usd
        assert floor.network_capex_usd <= p.cost.network_capex_usd
        assert floor.facility_kw <= p.cost.facility_kw
        assert floor.capex_usd > 0 and floor.facility_kw > 0
    # the search's first floor in two steps (``_Evaluator.link``): its counts without the links, then what they add
    counted = cost_floor(p.resolved, p.fabric, catalog, least, links=False)
    linked = links_cost_floor(p.resolved, p.fabric, catalog)
    whole = cost_floor(p.resolved, p.fabric, catalog, least)
    for name in ("capex_usd", "network_capex_usd", "tco_usd", "facility_kw"):
        parts = getattr(counted, name) + getattr(linked, name)
        assert parts == pytest.approx(getattr(whole, name), rel=1e-12, abs=1e-6)
        assert getattr(counted, name) <= getattr(whole, name)
    assert linked.capex_usd == pytest.approx(links_floor(p.resolved, p.fabric, catalog), rel=1e-12) or \
        p.resolved.nic.transport is not None


def test_counts_floor_leaves_out_only_the_links():
    """The first floor without its links (``cost_floor(links=False)``) is below the floor with them by exactly
    ``links_cost_floor`` on designs whose links cost something (so the two-step floor is the one-step floor)."""
    catalog = load_catalog()
    p = plan(Design(gpu="H100", gpus=1024, fabric="ethernet", switch="TH5"))
    least = network_floor_rows(p.resolved, p.fabric, catalog, least=True)
    counted = cost_floor(p.resolved, p.fabric, catalog, least, links=False)
    linked = links_cost_floor(p.resolved, p.fabric, catalog)
    assert linked.capex_usd > 0 and linked.facility_kw == 0
    assert counted.capex_usd + linked.capex_usd == pytest.approx(cost_floor(p.resolved, p.fabric, catalog,
                                                                            least).capex_usd, rel=1e-12)


def _row_totals(rows) -> dict:
    """Per (category, network, spare): the rows' extended prices [USD: point, low, high] and power [W]."""
    out: dict = {}
    for r in rows:
        total = out.setdefault((r.category, r.network, r.spare), [0.0, 0.0, 0.0, 0.0])
        for i, value in enumerate((r.unit_price_usd, r.unit_price_low_usd, r.unit_price_high_usd, r.unit_power_w)):
            total[i] += r.quantity * value
    return out


def test_least_network_rows_never_exceed_the_exact_ones():
    """``network_floor_rows(least=True)`` (the other networks sized for a fabric of at most one switch, shared by
    the fabrics of one shape) is, total by total, at most the exact rows of each design, lower for some (the
    out-of-band network's switch ports), and a design whose exact rows raise raises with the least ones too."""
    catalog = load_catalog()
    from core.analysis.optimize import _Evaluator

    evaluator = _Evaluator(Constraints(), catalog)
    lower = 0
    for design in _DESIGNS[1024][::7] + _DESIGNS[8192][::29]:
        try:
            resolved = evaluator.resolve(design)
            fabric, _bandwidth = evaluator.size(resolved)
        except FabricPlannerError:
            continue
        try:
            exact = _row_totals(network_floor_rows(resolved, fabric, catalog))
        except FabricPlannerError:
            with pytest.raises(FabricPlannerError):
                network_floor_rows(resolved, fabric, catalog, least=True)
            continue
        least = _row_totals(network_floor_rows(resolved, fabric, catalog, least=True))
        assert set(least) <= set(exact)
        for key, totals in least.items():
            assert all(a <= b + 1e-6 * max(1.0, b) for a, b in zip(totals, exact[key])), key
        lower += least != exact
    assert lower, "no design's least rows differ from its exact ones: the test checks nothing"


def _link_rows_usd(p) -> float:
    """The compute fabric's cables and transceivers of ``p``'s bill, installed (not spares) [USD]: its rows by
    ``core.cost.in_compute_fabric`` (the UFM's management links are not the fabric's)."""
    from core.cost import in_compute_fabric

    return sum(r.extended_price_usd for r in p.bom
               if in_compute_fabric(r) and r.category in ("cable", "transceiver") and not r.spare)


def _drawn_plan(gpus, pick, basis, media, per_rack, override):
    """The plan of the grid design ``pick`` at ``gpus`` with the price basis, cable media, nodes per rack and price
    override drawn (``None``: that field as it is), or ``None`` when the design cannot be built."""
    designs = _DESIGNS[gpus]
    design = designs[pick % len(designs)]
    update = {"price_basis": basis, "cable_media": media}
    if per_rack is not None:
        update["nodes_per_rack"] = per_rack
    if override is not None:
        update["price_overrides"] = {override[0]: override[1]}
    try:
        return plan(type(design)(**{**design.model_dump(), **update}))
    except FabricPlannerError:
        return None


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gpus=st.sampled_from(sorted(_DESIGNS)), pick=st.integers(min_value=0),
       basis=st.sampled_from(["street", "list", "hyperscale"]),
       media=st.sampled_from(["auto", "copper", "aoc", "optics", "smf"]),
       per_rack=st.sampled_from([None, 1, 2, 8]),
       override=st.sampled_from([None, ("ACC-400G", 0.0), ("DAC-400G", 9000.0), ("OSFP-800G-2xSR4", 1.0),
                                 ("FIBER-MMF-OM4-MPO12", 0.0), ("QSFP56-200G-SR4", 20000.0)]))
def test_links_floor_never_exceeds_the_bills_links(gpus, pick, basis, media, per_rack, override):
    """Property: the compute links' floor (``core.cost.links_floor``: no layout, each link at least the cheapest
    media it may take at the shortest length its racks allow; with the layout's length bins, each bin at the least
    its longest link's media may cost) is at most the bill's cables and transceivers of the compute links, for any
    design of the grid with its price basis, cable media, nodes per rack and a price override of a cable or module
    drawn."""
    p = _drawn_plan(gpus, pick, basis, media, per_rack, override)
    if p is None:
        return
    assert links_floor(p.resolved, p.fabric, load_catalog()) <= _link_rows_usd(p) * (1 + 1e-12)
    assert links_floor(p.resolved, p.fabric, load_catalog(), p.lengths) <= _link_rows_usd(p) * (1 + 1e-12)


def test_refined_floors_never_exceed_the_evaluation_and_are_near_it():
    """Over many grid designs at three sizes, each evaluated as the bounded search does (``_Evaluator``: its
    bounds, then its floors raised by its rack arrangement's length bins, ``refine``, then its full bill): the
    raised floors are at most its capex and compute fabric capex, never below the counts' floors, and the compute
    links' floor per length bin is within a few percent of the bill's links on average (the counts' floor, which
    prices every link between racks at the shortest length, is far below it)."""
    from core.analysis.optimize import _Evaluator
    from core.physical.lengths import arranged_link_lengths
    from core.plan import as_built

    catalog = load_catalog()
    evaluator = _Evaluator(Constraints(), catalog)
    checked, ratios, counts_ratios = 0, [], []
    for designs in _DESIGNS.values():
        for index, design in enumerate(designs[::41]):
            cand = evaluator.evaluate(index, design, detail=False)
            if cand.pending is None:
                continue
            before = (cand.capex_floor_usd, cand.network_floor_usd)
            evaluator.refine(cand, cand.pending)
            assert (cand.capex_floor_usd, cand.network_floor_usd) >= before
            state = cand.pending
            evaluator.detail(cand, state)
            if math.isnan(cand.capex_usd):
                continue
            assert cand.capex_floor_usd <= cand.capex_usd and cand.network_floor_usd <= cand.network_capex_usd
            resolved, fabric = state.resolved, state.fabric
            lengths = arranged_link_lengths(resolved, fabric, as_built(resolved, fabric, catalog).arrangement)
            bill = sum(v for k, v in cand.network_by_category.items() if k in ("cable", "transceiver"))
            p = plan(design)
            exact = _link_rows_usd(p)
            assert lengths == p.lengths
            if exact:
                ratios.append(links_floor(resolved, fabric, catalog, lengths) / exact)
                counts_ratios.append(links_floor(resolved, fabric, catalog) / exact)
            assert bill >= exact
            checked += 1
    assert checked > 100
    assert max(ratios) <= 1 + 1e-12 and sum(ratios) / len(ratios) > 0.95 > 0.8 > sum(counts_ratios) / len(ratios)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gpus=st.sampled_from(sorted(_DESIGNS)), pick=st.integers(min_value=0),
       basis=st.sampled_from(["street", "list", "hyperscale"]),
       media=st.sampled_from(["auto", "copper", "aoc", "optics"]), per_rack=st.sampled_from([None, 1, 2, 8]),
       override=st.sampled_from([None, ("ACC-400G", 0.0), ("DAC-400G", 9000.0), ("OSFP-800G-2xSR4", 1.0)]))
def test_su_bins_are_the_layouts_and_never_exceed_the_bills_links(gpus, pick, basis, media, per_rack, override):
    """Property: the node-leaf length bins read from a design's SUs before any arrangement
    (``core.physical.lengths.su_node_leaf_lengths``) are its plan's, and the compute links' floor raised by them
    (``core.cost.links_binned_raise``: those bins priced per bin where that is higher) is at most the bill's cables
    and transceivers of the compute links, for any design of the grid with its price basis, cable media, nodes per
    rack and a price override drawn."""
    from core.cost import links_binned_raise
    from core.physical.lengths import su_node_leaf_lengths

    p = _drawn_plan(gpus, pick, basis, media, per_rack, override)
    if p is None:
        return
    catalog = load_catalog()
    sus = su_node_leaf_lengths(p.resolved, p.fabric)
    assert sus is not None or not any(x.link_class == "node-leaf" for x in p.lengths)
    if sus is None:
        return
    assert sus == next(x for x in p.lengths if x.link_class == "node-leaf")
    raised = links_cost_floor(p.resolved, p.fabric, catalog).capex_usd + links_binned_raise(
        p.resolved, p.fabric, catalog, (sus,)).capex_usd
    assert raised <= _link_rows_usd(p) * (1 + 1e-12)


def test_su_bins_raise_the_floors_below_the_evaluation_and_catch_a_planted_error():
    """Over many grid designs at three sizes, each evaluated as the bounded search does (``_Evaluator``: its counts'
    floor, the links' floor, ``link``, then its SUs' node-leaf bins, ``su_bins``, then its full bill): the floors
    ``su_bins`` raises stay at most the capex and compute fabric capex, and it raises some by more than the slack
    the check allows (a bound 2% of the compute fabric capex too high is caught)."""
    from core.analysis.optimize import _Evaluator

    evaluator = _Evaluator(Constraints(), load_catalog())
    raised, planted = 0, 0
    for designs in _DESIGNS.values():
        for index, design in enumerate(designs[::23]):
            cand = evaluator.evaluate(index, design, detail=False)
            if cand.pending is None:
                continue
            state = cand.pending
            evaluator.link(cand, state)
            if cand.pending is None:
                continue
            before = cand.capex_floor_usd
            rose = evaluator.su_bins(cand, state)
            assert rose == (cand.capex_floor_usd > before) and state.su_binned
            evaluator.detail(cand, state)
            if math.isnan(cand.capex_usd):
                continue
            assert cand.capex_floor_usd <= cand.capex_usd and cand.network_floor_usd <= cand.network_capex_usd
            raised += rose
            planted += cand.capex_floor_usd + 0.02 * cand.network_capex_usd > cand.capex_usd
    assert raised > 50 and planted > 0


def test_links_floor_counts_the_links_the_lengths_bin():
    """The floor's links per class (``class_links``, from the fabric's counts) are the links the layout's lengths
    bin, class by class, over Clos, top-of-rack, rail-only, Dragonfly+ and per-rail planes."""
    from core.fabric.wiring import wiring_of

    checked = 0
    for designs in _DESIGNS.values():
        for design in designs[::97]:
            try:
                p = plan(design)
            except FabricPlannerError:
                continue
            wiring = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
            binned = {lengths.link_class: lengths.links for lengths in p.lengths}
            assert {c: n for c, n in class_links(p.fabric, wiring) if n} == binned
            checked += 1
    assert checked > 20


def test_links_floor_prices_links_between_racks_above_passive_copper():
    """A rail-optimized fabric's leaves stand in racks of their own, so no node-leaf link is 2 m or shorter: the
    floor of a 200G Ethernet design (no 200G copper reaches between racks) is its optics, within a few percent of
    the bill's, and a top-of-rack design's in-rack links may take passive copper (a lower floor per link)."""
    short, apart = link_length_floors()
    assert short < 2.0 < apart
    base = Design(gpu="H100", gpus=1024, fabric="ethernet", port_speed_gbps=200, switch="SN5600")
    rail = plan(base.model_copy(update={"topology": "rail-optimized"}))
    floor = links_floor(rail.resolved, rail.fabric, load_catalog())
    assert 0.9 * _link_rows_usd(rail) <= floor <= _link_rows_usd(rail)
    tor = plan(base.model_copy(update={"topology": "top-of-rack"}))
    assert links_floor(tor.resolved, tor.fabric, load_catalog()) <= _link_rows_usd(tor)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gpus=st.sampled_from(sorted(_DESIGNS)), pick=st.integers(min_value=0), per_rack=st.sampled_from([None, 1, 2]),
       reach=st.sampled_from([1.0, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 7.0, 10.0, 20.0]))
def test_links_within_a_reach_never_exceed_the_layouts(gpus, pick, per_rack, reach):
    """Property: the links floor's count of the links that may be ``reach`` metres long or shorter, per class
    (``core.cost._node_links_within`` for a node-leaf class of leaves in racks of their own,
    ``_tor_links_within`` for one of top-of-rack leaves, ``_switch_links_within`` for a folded Clos's leaf-spine and
    spine-core links and a Dragonfly+'s leaf-spine and global links: from the rack geometry alone), is at least the
    layout's count of links that short (every link measured, ``core.physical.lengths.link_arrays``),
    for any design of the grid with its nodes per rack drawn. A count that is ever too low fails here."""
    from core.cost import _SWITCH_ENDS, _node_links_within, _switch_links_within, _tor_links_within
    from core.fabric.wiring import wiring_of
    from core.physical.layout import compute_rack_fit
    from core.physical.lengths import link_arrays

    designs = _DESIGNS[gpus]
    design = designs[pick % len(designs)]
    try:
        p = plan(design if per_rack is None else design.model_copy(update={"nodes_per_rack": per_rack}))
    except FabricPlannerError:
        return
    wiring = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
    fit = lambda: compute_rack_fit(p.resolved)  # noqa: E731
    for link_class, (lengths, links, _routes) in link_arrays(p.resolved, p.fabric, p.layout).items():
        total = int(links.sum())
        # the drawn reach, and the shortest and median links' lengths (a reach some links are within)
        for length in {reach, *(float(np.quantile(lengths, q)) for q in (0, 0.5) if len(lengths))}:
            short = int(links[lengths <= length].sum())
            if link_class == "node-leaf":
                within = _tor_links_within if wiring.tor else _node_links_within
                assert short <= within(p.resolved, p.fabric, wiring, length, total, link_class, fit)
            elif link_class in _SWITCH_ENDS.get(wiring.family, ()):
                assert short <= _switch_links_within(p.resolved, p.fabric, wiring, length, total, link_class, fit)


def test_switch_links_within_a_reach_bound_some_fabrics():
    """``_switch_links_within`` is below the class's links for a fabric of 1U switches at a 3 m reach (an active
    copper cable's at 800G), so the floor prices the rest above copper, and never above them."""
    from core.cost import _switch_links_within
    from core.fabric.wiring import wiring_of

    counted = []
    for design in _DESIGNS[8192][::53]:
        try:
            p = plan(design)
        except FabricPlannerError:
            continue
        wiring = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
        if wiring.family != "clos" or p.fabric.tiers < 2:
            continue
        links = p.fabric.leaf_spine_links * p.fabric.planes
        within = _switch_links_within(p.resolved, p.fabric, wiring, 3.0, links, "leaf-spine")
        assert 0 <= within <= links
        counted.append(within < links)
    assert any(counted) and len(counted) > 5


def test_leaf_spine_links_within_a_reach_bound_by_the_spine_rows():
    """A folded Clos's spines stand in central rows (``core.physical.layout``), so a leaf-spine link within a reach
    joins a leaf of a row near a spine row (``core.cost._central_leaf_links``): never above the count from the rack
    geometry alone, and below it for most 16,384-GPU fabrics at 5 and 7 m (active copper's reaches). Hand counts:
    racks fill from U1, so a 1U leaf in a 52U leaf rack holding its SU's 8 leaves climbs at least 52 - 7.5 = 44.5U,
    a 2U spine in a full network rack (25 in its 50 usable U) at least 52 - 49 = 3U, 47.5U together (the TH5 leaf
    is 2U: 52 - 15 = 37U); a 7 m link then leaves
    (7 - 2 x 0.5) / 1.1 - 2 x 0.3 - 47.5 x 0.04445 = 2.743 m of tray: the two rows a line pitch (1.2 m deep + 1.2 m
    of aisles) away in its own column, not one two lines away (4.8 m) nor on its own line in another column (two
    1.2 m end aisles and a 0.6 m rack: 3.0 m); at 10 m (5.470 m of tray), lines 0, 1 and 2: 2 x 1 + 2 x 3 + 2 x 1."""
    from core.cost import _central_leaf_links, _rows_within, _switch_links_within
    from core.fabric.wiring import wiring_of
    from core.physical.layout import compute_rack_fit, lowest_climb_u

    u_m = 0.04445
    assert _rows_within(7.0, 47.5 * u_m) == 2
    assert _rows_within(10.0, 47.5 * u_m) == 10
    assert _rows_within(3.0, 47.5 * u_m) == 0
    p = plan(Design(gpu="H100", gpus=16384, fabric="ethernet", switch="TH5", topology="rail-optimized"))
    assert lowest_climb_u(p.resolved, p.fabric, "leaf", 48) == 52 - 7.5 * p.resolved.tier_switches["leaf"].rack_units
    counted = []
    for design in candidate_designs("H100", 16384, Constraints(), Grid())[::97]:
        try:
            p = plan(design)
        except FabricPlannerError:
            continue
        wiring = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
        if wiring.family != "clos" or p.fabric.tiers < 2:
            continue
        fit = compute_rack_fit(p.resolved)
        links = p.fabric.leaf_spine_links * p.fabric.planes
        for reach in (5.0, 7.0):
            geometry = _switch_links_within(p.resolved, p.fabric, wiring, reach, links, "leaf-spine")
            within = _switch_links_within(p.resolved, p.fabric, wiring, reach, links, "leaf-spine", lambda: fit)
            assert 0 <= within <= geometry
            assert within == min(geometry, _central_leaf_links(p.resolved, p.fabric, wiring, reach, lambda: fit))
            counted.append(within < geometry)
    assert sum(counted) > len(counted) / 2 and len(counted) > 10


def test_spine_core_links_within_a_short_reach_bound_along_the_row():
    """A folded Clos's spine racks stand in one run and the cores' from the next rack (``core.physical.layout``), so
    when a link is too short to cross to another line of rows, only the spine racks next to the first core rack
    reach one (``core.cost._spine_core_links``). Hand count, 16,384 H100 on three tiers of TH5 (2U): a full network
    rack holds 25 in its 50 usable U, so a spine and a core each climb at least 52 - 24.5 x 2 = 3U; a 3 m link leaves
    2 / 1.1 - 0.6 - 6 x 0.04445 = 0.951 m of tray: one spine rack (0.6 m away) of 25 spines with 64 up ports each,
    1,600 links; at 5 m (2.77 m of tray, beyond a 2.4 m line pitch) no bound."""
    from core.cost import _spine_core_links
    from core.fabric.wiring import wiring_of

    p = plan(Design(gpu="H100", gpus=16384, fabric="ethernet", switch="TH5", tiers=3))
    wiring = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
    assert wiring.spine_up_ports(p.fabric) == 64
    assert _spine_core_links(p.resolved, p.fabric, wiring, 3.0) == 1 * 25 * 64
    assert _spine_core_links(p.resolved, p.fabric, wiring, 5.0) == math.inf


def test_node_links_within_a_reach_bound_su_by_su():
    """``_node_links_within`` bounds a folded Clos's node-leaf links SU by SU (a node links only to its SU's leaves,
    whose racks stand in one block amid the SU's compute racks on one row): never above the leaf-by-leaf count
    (each leaf reaching the nodes of every line), and below it for some rail-optimized fabrics at 5 m (an active
    copper cable's reach), so the floor prices more of them above copper. Hand count of the nodes near one SU's
    leaf block: DGX H100 (8U) four to a rack, a 1U leaf, 5 m: the climbs and the tray run leave
    (5 - 2 x 0.5) / 1.1 - 2 x 0.3 - 1U / 2 = 3.014 m; the k-th rack on either side (k x 0.6 m along the row) holds
    the nodes whose climb ((i + 1/2) x 8U, i from the top) fits what is left: 4, 4, 3 and 2 (k = 1..4), 13 a side,
    26 nodes, each with all its links (8 rails) at most."""
    from core.cost import _devices_within, _node_links_within
    from core.fabric.wiring import wiring_of
    from core.physical.layout import compute_rack_fit

    assert _devices_within(8 * 0.04445, 4, 1, 5.0, own_line=True) == 26
    lower = []
    for design in _DESIGNS[8192][::31]:
        try:
            p = plan(design)
        except FabricPlannerError:
            continue
        wiring = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
        if wiring.tor or p.fabric.tiers < 2:
            continue
        fit = compute_rack_fit(p.resolved)
        links = p.fabric.node_leaf_links * p.fabric.planes
        within = _node_links_within(p.resolved, p.fabric, wiring, 5.0, links, "node-leaf", lambda: fit)
        nodes = _devices_within(min(p.resolved.system.node_rack_units, fit[2] / fit[3]) * 0.04445, fit[3],
                                p.resolved.switch.rack_units, 5.0)
        by_leaf = min(links, p.fabric.leaf_count_total * wiring.links_per_node_leaf * nodes)
        assert 0 <= within <= by_leaf
        lower.append(within < by_leaf)
    assert any(lower) and len(lower) > 5


@pytest.mark.parametrize("gpu,gpus,step", [("H100", 8192, 389), ("GB200-NVL72", 1152, 97), ("B300", 2048, 211)])
def test_least_racks_never_exceed_the_layouts(gpu, gpus, step):
    """``core.cost.least_racks`` (the first floor's racks for the other networks' PDUs, before any layout) is, part by
    part, at most the racks the plan's layout builds (``core.plan.built_counts``), with any nodes per rack, and the
    other networks' floor rows for them are at most the exact rows of the plan's racks: total by total, lower than
    those for no racks for some designs (their PDUs counted)."""
    from core.cost import least_racks
    from core.plan import built_counts

    catalog = load_catalog()
    raised = 0
    for design in candidate_designs(gpu, gpus, Constraints(), Grid())[::step]:
        for per_rack in (None, 3):
            try:
                p = plan(design if per_rack is None else design.model_copy(update={"nodes_per_rack": per_rack}))
            except FabricPlannerError:
                continue
            least, built = least_racks(p.resolved), built_counts(p.layout)
            assert least[0] <= built[0] and least[1] <= built[1], (design, per_rack)
            floor = _row_totals(network_floor_rows(p.resolved, p.fabric, catalog, least=True, racks=least))
            exact = _row_totals(network_floor_rows(p.resolved, p.fabric, catalog, racks=built))
            for key, totals in floor.items():
                assert all(a <= b + 1e-6 * max(1.0, b) for a, b in zip(totals, exact[key])), key
            raised += floor != _row_totals(network_floor_rows(p.resolved, p.fabric, catalog, least=True))
    assert raised, "no design's rows for its least racks differ from those for none: the test checks nothing"
