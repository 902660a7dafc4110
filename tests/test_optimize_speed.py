"""The optimizer's speed-ups change no number: each shortcut against the computation it replaces."""

from __future__ import annotations

import math
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.analysis.optimize import Constraints, Grid, candidate_designs
from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import DesignError, FabricPlannerError


@pytest.mark.parametrize("gpu, gpus", [("H100", 16384), ("H100", 3000), ("B200", 2048), ("GB200", 4608),
                                       ("H100", 131072)])
def test_the_sizing_score_floor_never_exceeds_the_score(gpu, gpus):
    """``core.fabric.sizing._score_floor`` (which lets ``_size_island`` skip leaf down-port counts) is at most the
    (tiers, switches) ``_size_fabric`` scores, lexicographically, at every down-port count it could try (errors:
    any floor), over oversubscribed grids with explicit tiers, faster uplinks and both kinds of planes."""
    from core.fabric import sizing

    catalog = load_catalog()
    grid = Grid(oversubscription=(1.0, 1.5, 2.0, 3.0, 4.0), uplinks=("same", "faster"),
                topologies=("rail-optimized", "top-of-rack", "rail-only"))
    designs = candidate_designs(gpu, gpus, Constraints(), grid, catalog)
    random.Random(gpus).shuffle(designs)
    checked = skipped = 0
    for design in designs[:150]:
        try:
            resolved = resolve_design(design, catalog)
        except FabricPlannerError:
            continue
        if resolved.islands > 1:
            resolved = resolved.model_copy(update={"nics_per_node": resolved.rails_per_island, "islands": 1})
        most, _up = sizing._leaf_split(resolved)
        for leaf_down in range(most, max(1, math.ceil(most * 0.75)) - 1, -1):
            floor = sizing._score_floor(resolved, leaf_down)
            try:
                score = sizing._score(resolved, leaf_down)
            except DesignError:
                skipped += 1
                continue
            assert floor <= score, (design, leaf_down, floor, score)
            checked += 1
    assert checked > 300


def test_busbw_at_one_size_is_the_sweeps_number_to_the_bit():
    """``core.perf.collectives.busbw_at`` (the optimizer's busbw) equals ``sweep(...)``'s ``busbw(best()[0])``
    bit for bit, over designs of several shapes and message sizes."""
    from core.perf.collectives import busbw_at, sweep
    from core.plan import plan

    catalog = load_catalog()
    designs = candidate_designs("H100", 4096, Constraints(), Grid(), catalog)
    random.Random(7).shuffle(designs)
    compared = 0
    for design in designs[:40]:
        try:
            p = plan(design)
        except FabricPlannerError:
            continue
        for size in (1, 4096, 1 << 20, 1 << 30, 3 * (1 << 31)):
            result = sweep(p, "all-reduce", [size])
            assert busbw_at(p, "all-reduce", size) == float(result.busbw(result.best()[0])[0])
            compared += 1
    assert compared > 60


def _too_few_tiers_at_every_count(resolved, tiers: int) -> bool:
    """``core.analysis.optimize._too_few_tiers`` as it was: every leaf down-port count from three quarters of the
    most up to it checked (any error: False)."""
    from core.fabric.sizing import _leaf_split, max_nodes

    island = resolved
    if resolved.islands > 1:
        island = resolved.model_copy(update={"nics_per_node": resolved.rails_per_island, "islands": 1})
    try:
        most, _up = _leaf_split(island)
        low = max(1, math.ceil(most * 0.75))
        return all(island.nodes > max_nodes(island, tiers, down) for down in range(low, most + 1))
    except FabricPlannerError:
        return False


@pytest.mark.parametrize("gpu, gpus, extra", [("H100", 16384, {}), ("H100", 3000, {}), ("GB200", 4608, {}),
                                               ("B200", 2048, {"su_nodes": 24}), ("H100", 1024, {"pod_sus": 2})])
def test_too_few_tiers_by_its_ends_equals_every_count(gpu, gpus, extra):
    """``_too_few_tiers`` decides from the least and the most leaf down-port count; every count checked gives the
    same answer, over grids of both topologies, planes, faster uplinks, fixed scalable units and pods."""
    from core.analysis.optimize import _too_few_tiers
    from core.design import Design

    catalog = load_catalog()
    base = Design(gpu=catalog.system(gpu).id, gpus=gpus, **extra)
    grid = Grid(oversubscription=(1.0, 1.5, 3.0, 4.0), uplinks=("same", "faster"), tiers=(1,),
                topologies=("rail-optimized", "top-of-rack", "rail-only"))
    designs = candidate_designs(gpu, gpus, Constraints(), grid, catalog, base=base)
    random.Random(gpus).shuffle(designs)
    answers = set()
    for design in designs[:250]:
        try:
            resolved = resolve_design(design, catalog)
        except FabricPlannerError:
            continue
        for tiers in (1, 2, 3):
            expected = _too_few_tiers_at_every_count(resolved, tiers)
            assert _too_few_tiers(resolved, tiers) == expected, (design, tiers)
            answers.add(expected)
    assert answers == {True, False}


def _leaf_down_with_the_switches(resolved):
    """The leaf down-port count ``_size_island`` sized at before its choice was made from the numbers alone: every
    count from the most down to three quarters of it (by the same step) sized with the resolved design itself, the
    first of the fewest (tiers, switches); the most when none can be sized."""
    from core.fabric import sizing

    most, _up = sizing._leaf_split(resolved)
    if (resolved.nodes * resolved.nics_per_node <= resolved.switch_ports and resolved.design.tiers in ("auto", 1)
            or resolved.design.oversubscription <= 1 or resolved.su_nodes is not None):
        return most
    low = max(1, math.ceil(most * 0.75))
    step = max(1, math.ceil((most - low + 1) / sizing.MAX_LEAF_DOWN_CANDIDATES))
    scores = []
    for leaf_down in range(most, low - 1, -step):
        try:
            scores.append((sizing._score(resolved, leaf_down), leaf_down))
        except DesignError:
            continue
    return min(scores, key=lambda pair: pair[0])[1] if scores else most


@pytest.mark.parametrize("gpu, gpus, extra", [("H100", 16384, {}), ("H100", 3000, {}), ("GB200", 4608, {}),
                                               ("B200", 2048, {"su_nodes": 24}), ("H100", 1024, {"pod_sus": 2})])
def test_the_leaf_down_choice_from_numbers_equals_the_one_with_the_switches(gpu, gpus, extra):
    """``core.fabric.sizing._best_leaf_down`` (of the island's numbers, ``IslandNumbers``, no switch model)
    chooses the count the search over the resolved design itself chooses, over grids of every switch, both
    topologies, explicit tiers, faster uplinks, fixed scalable units and pods; where no count can be sized,
    sizing raises the most count's error, as before."""
    from core.design import Design
    from core.fabric import sizing

    catalog = load_catalog()
    base = Design(gpu=catalog.system(gpu).id, gpus=gpus, **extra)
    grid = Grid(oversubscription=(1.0, 1.5, 3.0, 4.0), uplinks=("same", "faster"), tiers=("auto", 2, 3),
                topologies=("rail-optimized", "top-of-rack", "rail-only"))
    designs = candidate_designs(gpu, gpus, Constraints(), grid, catalog, base=base)
    random.Random(gpus + 1).shuffle(designs)
    chosen = raised = 0
    for design in designs[:200]:
        try:
            resolved = resolve_design(design, catalog)
        except FabricPlannerError:
            continue
        if resolved.islands > 1 or resolved.topology not in ("rail-optimized", "top-of-rack", "rail-only"):
            continue
        expected = _leaf_down_with_the_switches(resolved)
        numbers = sizing.IslandNumbers.of(resolved)
        assert sizing._best_leaf_down(numbers) == expected, design
        try:
            sizing._size_fabric(resolved, expected)
        except DesignError as exc:
            with pytest.raises(DesignError) as found:
                sizing._size_island(resolved)
            assert str(found.value) == str(exc) and exc.message, design
            raised += 1
            continue
        assert sizing._size_island(resolved).leaf_down_ports_max == expected
        chosen += 1
    assert chosen > 20, (chosen, raised)


@pytest.mark.parametrize("gpu, gpus, grid", [
    ("H100", 16384, Grid()),
    ("H100", 3000, Grid(oversubscription=(1.0, 2.0), uplinks=("same", "faster"), planes=(1, 2))),
    ("GB200", 4608, Grid(fabrics=("ethernet",), topologies=("rail-optimized", "top-of-rack", "rail-only"))),
    ("B200", 2048, Grid(nics=("CX7", "BF3", "CX8"), planes=(1, 2))),
])
def test_the_shared_busbw_equals_the_unshared_computation(gpu, gpus, grid):
    """The optimizer's busbw, one computation per ``BusbwPlan`` view (``_all_reduce_busbw``), equals
    ``busbw_at`` on each candidate's own plan (the same error when it raises) under the routing, placement and NCCL
    release in force, over candidates of several grids; and candidates do share it."""
    from core.analysis import optimize as opt
    from core.perf import congestion
    from core.perf.collectives import busbw_at, nccl_release
    from core.plan import Plan

    catalog = load_catalog()
    designs = candidate_designs(gpu, gpus, Constraints(), grid, catalog)  # in order: neighbours share
    evaluator = opt._Evaluator(Constraints(), catalog)
    compared = 0
    for routing, placement, release in (("auto", "topo", None), ("ecmp", "scatter", None),
                                        ("auto", "topo", "2.18.5")):
        opt._all_reduce_busbw.cache_clear()
        compared_here = 0
        with congestion.assumptions(routing, placement), nccl_release(release):
            for design in designs[:6000]:  # in grid order until views were shared (the plane mode is read)
                if compared_here >= 100 and opt._all_reduce_busbw.cache.hits:
                    break
                try:
                    resolved = evaluator.resolve(design)
                    fabric, bandwidth = evaluator.size(resolved)
                except FabricPlannerError:
                    continue
                own = Plan.model_construct(resolved=resolved, fabric=fabric, bandwidth=bandwidth, bom=(), cost=None,
                                           reserved_bom=())
                try:
                    expected = busbw_at(own, "all-reduce", evaluator.c.busbw_size)
                except FabricPlannerError as exc:
                    with pytest.raises(type(exc), match=re.escape(str(exc))):
                        evaluator._busbw(resolved, fabric, bandwidth)
                    continue
                assert evaluator._busbw(resolved, fabric, bandwidth) == expected, design
                compared += 1
                compared_here += 1
        assert opt._all_reduce_busbw.cache.hits > 0
    assert compared > 100  # over the three assumptions


def test_a_family_whose_resolution_raises_gives_each_design_the_reason_it_would_have_alone():
    """The family shortcut for a resolution that raises (``_evaluate_family``: resolving reads no tiers, so the
    explicit-tier designs take the auto design's reason without resolving): each such design's reason is the one
    evaluating it alone gives, and the grid has such designs (the test would pass vacuously otherwise)."""
    from core.analysis.optimize import _Evaluator, optimize

    grid = Grid(switches=("QM9700", "TH5"), nics=("CX7", "BF3", "CX8"), tiers=(1, 2, 3), oversubscription=(1.0, 3.0))
    designs = candidate_designs("H100", 1024, Constraints(), grid)
    result = optimize("H100", 1024, Constraints(), grid, workers=1)
    alone = _Evaluator(Constraints(), load_catalog())
    raised = 0
    for cand in result.candidates:
        design = designs[cand.index]
        if not isinstance(design.tiers, int):
            continue
        try:
            alone.resolve(design)
        except FabricPlannerError:
            raised += 1
            assert cand.reason and cand.reason == alone.evaluate(cand.index, design).reason
    assert raised > 0


def test_a_run_reads_its_candidates_alike():
    """``_Run`` (the ``BusbwPlan``'s design and resolution parts and the other networks' views, made once per run of
    designs that differ only in ``_UNRESOLVED`` fields, ``_evaluate_families``) equals each candidate's own
    (``_Run.of`` its resolved design), and the busbw view built from it equals ``BusbwPlan.of`` the candidate's plan,
    over a grid's runs (per-port planes among them); and the cached Clos sizing (``core.fabric.sizing._sized_clos``,
    of a ``ClosSizing`` with its planes keyed at 1) is the resolved design's own sizing, field for field."""
    from types import SimpleNamespace

    from core.analysis import optimize as opt
    from core.analysis.perfview import BusbwPlan
    from core.fabric import sizing
    from core.memo import uncached
    from core.perf.commview import PerfBandwidth, PerfFabric

    catalog = load_catalog()
    designs = candidate_designs("H100", 2048, Constraints(), Grid(switches=("QM9700", "TH5", "SN5600"),
                                                                   nics=("CX7", "CX8")), catalog)
    evaluator = opt._Evaluator(Constraints(), catalog)
    runs = {}
    compared = planes = 0
    for design in designs:
        key = opt._fields_key(design, opt._UNRESOLVED)
        try:
            resolved = evaluator.resolve(design)
        except FabricPlannerError:
            continue
        run = runs.setdefault(key, opt._Run.of(resolved, catalog))  # the run's first design's
        assert opt._Run.of(resolved, catalog) == run
        try:
            fabric, bandwidth = evaluator.size(resolved)
        except FabricPlannerError:
            continue
        if design.topology not in opt.FAMILY_TOPOLOGIES:  # the sizing of the resolved design itself, uncached
            with uncached():
                assert fabric == sizing._size_clos(resolved, words=False)
        plan = SimpleNamespace(design=resolved.design, resolved=resolved, fabric=fabric, bandwidth=bandwidth)
        assert BusbwPlan(run.calibration, run.busbw, PerfFabric.of(fabric), PerfBandwidth.of(bandwidth)) == \
            BusbwPlan.of(plan)
        compared += 1
        planes += resolved.planes > 1
    assert compared > 500 and planes > 50 and len(runs) < compared / 2


def test_clos_sizings_of_switch_models_alike_are_one():
    """``size_fabric(words=False)`` sizes with stand-ins for the switch models and port speeds
    (``core.fabric.sizing._sized_clos``): designs whose switches or speeds differ but whose numbers agree (TH5 and
    SN5600, 64 x 800G; TH4, 64 x 400G) share one sizing, and each plan is still its own design's, field for field
    (its groups' ``switch_id`` its models', its speeds its own); a design that cannot be sized raises its own error,
    naming its switch."""
    from core.design import Design
    from core.fabric import sizing
    from core.memo import uncached

    catalog = load_catalog()
    sizing._sized_clos.cache_clear()
    plans = {}
    for switch in ("TH5", "SN5600"):
        resolved = resolve_design(Design(gpu="H100", gpus=16384, fabric="ethernet", switch=switch, tiers=3,
                                         oversubscription=2.0), catalog)
        plans[switch] = sizing.size_fabric(resolved, words=False)
        with uncached():
            assert plans[switch] == sizing._size_clos(resolved, words=False)
        assert {g.switch_id for g in plans[switch].switch_groups} == {switch}
    assert len(sizing._sized_clos.cache) == 1 and sizing._sized_clos.cache.info()["hits"] == 1
    # speeds apart too (the stand-ins ``_ANY_DOWN``, ``_ANY_UP``): TH4 at 200G sizes as TH5 and SN5600 at 400G
    # (128 ports each)
    resolved = resolve_design(Design(gpu="H100", gpus=16384, fabric="ethernet", switch="TH4", nic="CX7",
                                     port_speed_gbps=200, tiers=3, oversubscription=2.0), catalog)
    th4 = sizing.size_fabric(resolved, words=False)
    with uncached():
        assert th4 == sizing._size_clos(resolved, words=False)
    assert (th4.port_speed_gbps, th4.uplink_speed_gbps, th4.radix) == (200, 200, 128) and th4 != plans["TH5"]
    assert {(g.switch_id, g.down_speed_gbps, g.up_speed_gbps) for g in th4.switch_groups} == {("TH4", 200, 200)}
    assert plans["TH5"].port_speed_gbps == 400 and plans["TH5"].radix == 128
    assert len(sizing._sized_clos.cache) == 1 and sizing._sized_clos.cache.info()["hits"] == 2
    resolved = resolve_design(Design(gpu="H100", gpus=16384, fabric="ethernet", switch="SN5600", tiers=1), catalog)
    with pytest.raises(DesignError, match="SN5600"):
        sizing.size_fabric(resolved, words=False)


_FLOOR_DESIGNS = {
    "H100": [d for gpus in (64, 4096, 16384) for d in candidate_designs(
        "H100", gpus, Constraints(), Grid(switches=("QM9700", "Q3400", "SN5600", "TH5"), nics=("CX7", "CX8"),
                                          oversubscription=(1.0, 3.0)))],
    "GB200-NVL72": candidate_designs(  # NVLink domains of two levels: the second level's rows
        "GB200-NVL72", 2304, Constraints(), Grid(switches=("QM9700", "Q3400"), oversubscription=(1.0, 2.0)),
        base=Design(gpu="GB200-NVL72", gpus=2304, nvlink_domain_gpus=144))}
"""``test_floor_units_price_the_bills_rows``' designs, by GPU."""


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gpu=st.sampled_from(sorted(_FLOOR_DESIGNS)), pick=st.integers(min_value=0), other=st.integers(min_value=0),
       basis=st.sampled_from(["street", "list", "hyperscale"]),
       override=st.sampled_from([None, ("Q3400", 0.0), ("QM9700", 1.0), ("CX7", 5000.0), ("SN5600", 7.5)]),
       watts=st.sampled_from([None, ("TH5", 10.0), ("Q3400", 0.0)]))
def test_floor_units_price_the_bills_rows(gpu, pick, other, basis, override, watts):
    """Property: ``cost_floor``'s counted rows (``core.cost.floor_units`` times the fabric's ``switch_counts``) are the
    bill's (``core.cost._fabric_rows``, what ``build_bom`` lists) number for number and in their order, so its totals
    are the same bit for bit, for any grid design (every tier's switch model its own, one to three tiers, planes, a
    second NVLink level) at any price basis, price and power override; and a run's units (another design of the
    grid that differs only in ``_UNRESOLVED`` fields, the optimizer's ``_Run``) price it alike."""
    from core.cost import (FloorUnits, _FloorRow, _bought, _counted_rows, _fabric_rows, cost_floor, floor_units,
                           priced_row_adder)
    from core.cost import summarize_cost
    from core.fabric.sizing import size_fabric

    designs = _FLOOR_DESIGNS[gpu]
    design = designs[pick % len(designs)]
    update = {"price_basis": basis}
    if override is not None:
        update["price_overrides"] = {override[0]: override[1]}
    if watts is not None:
        update["power_overrides"] = {watts[0]: watts[1]}
    catalog = load_catalog()
    try:
        design = type(design)(**{**design.model_dump(), **update})
        resolved = resolve_design(design, catalog)
        fabric = size_fabric(resolved)
    except FabricPlannerError:
        return
    bill: list = []
    _fabric_rows(resolved, fabric, catalog, bill, priced_row_adder(resolved, bill))
    numbers = [tuple(getattr(r, name) for name in _FloorRow._fields if name not in ("item", "why", "end"))
               for r in bill]
    units = floor_units(resolved, catalog)
    assert isinstance(units, FloorUnits)
    counted = [*units.head, *_counted_rows(units, fabric)]
    assert [tuple(getattr(r, name) for name in _FloorRow._fields if name not in ("item", "why", "end"))
            for r in counted] == numbers
    floor = cost_floor(resolved, fabric, catalog, links=False, units=units)
    whole = summarize_cost(resolved, _bought(resolved, bill))  # the bill's totals, bit for bit
    assert floor == (whole.capex_usd, whole.network_capex_usd, whole.facility_kw, whole.tco_usd, whole.tco_years)
    assert floor == cost_floor(resolved, fabric, catalog, links=False)
    # a design of the same run (``_UNRESOLVED`` fields apart) prices it alike
    mate = designs[other % len(designs)]
    mate = type(design)(**{**design.model_dump(), "tiers": mate.tiers, "oversubscription": mate.oversubscription})
    try:
        mate_units = floor_units(resolve_design(mate, catalog), catalog)
    except FabricPlannerError:
        return
    assert mate_units == units


def test_balanced_uplinks_is_the_fewest_upper_switches_then_uplinks_of_every_balanced_choice():
    """``core.fabric.sizing._balanced_uplinks`` (tried by upper switch count, the fewest uplinks each divides) is the
    least (upper switches, uplinks) of every balanced choice enumerated: uplinks within the ratio and the radix,
    upper switches dividing them and taking at most their down capacity; None where there is none."""
    from core.fabric import sizing

    rng = random.Random(52)
    checked = found = 0
    for _trial in range(3000):
        radix = rng.choice((32, 36, 40, 48, 64, 72, 128, 144))
        lower = rng.choice((1, 2, 3, 7, 16, 31, 64, rng.randrange(1, 3000)))
        down = rng.randrange(1, radix + 1)
        ratio = rng.choice((0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0))
        speed_ratio, up_cost = rng.choice(((1.0, 1.0), (0.5, 2.0), (0.5, 1.0)))
        capacity = rng.randrange(1, radix + 1)
        u_min = max(1, math.ceil(down * speed_ratio / ratio - 1e-9))
        u_max = math.floor((radix - down) / up_cost + 1e-9)
        choices = [(n, u) for u in range(u_min, u_max + 1) for n in range(1, u + 1)
                   if u % n == 0 and lower * u <= n * capacity]
        expected = (min(choices)[1], min(choices)[0]) if choices else None
        assert sizing._balanced_uplinks.__wrapped__(lower, down, ratio, radix, capacity, speed_ratio,
                                                    up_cost) == expected
        checked += 1
        found += expected is not None
    assert checked == 3000 and 300 < found < 2900
