"""The optimizer (core/analysis/optimize.py, python -m core optimize): exhaustive over its grid.

A brute force plans every grid design through ``core.plan.plan`` and predicts busbw through
``core.perf.collectives.collective`` (the public entry points, none of the optimizer's shortcuts),
then applies the constraints itself; the optimizer must find the same optimum, the same front and
the same feasible count. Properties: tightening a constraint never lowers the optimum's cost, and
the winner re-planned meets every constraint.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_cli as run
from core import units
from core.analysis.optimize import Constraints, Grid, candidate_designs, design_label, optimize
from core.i18n import language, usd
from i18n_check import english_leaks
from core.errors import DesignError, FabricPlannerError, InputError
from core.perf.collectives import collective
from core.plan import plan

SMALL = Grid(switches=("QM9700", "SN5600", "QM8700"), port_speeds=(200, 400), planes=(1, 2),
             tiers=(1, 2, 3), oversubscription=(1.0, 2.0))
"""A grid small enough to brute-force: 3 switch models, 2 speeds, every topology and plane mode."""


def _brute(gpu: str, gpus: int, constraints: Constraints, grid: Grid) -> list[dict]:
    """Every grid design planned through the public engine, with its metrics and whether it meets all."""
    rows = []
    for index, design in enumerate(candidate_designs(gpu, gpus, constraints, grid)):
        try:
            p = plan(design)
            busbw = collective(p, "all-reduce", constraints.busbw_size)["busbw_gbytes"]
        except FabricPlannerError:
            continue
        bw = p.bandwidth
        hops = max(bw.hops_same_rail, bw.hops_same_rail_other_su, bw.hops_cross_rail, bw.hops_cross_pod)
        metrics = {"capex": p.cost.capex_usd, "busbw": busbw, "tiers": p.fabric.tiers,
                   "over": bw.oversubscription, "bisection": bw.bisection_tbits_one_direction * 1000 / 8 / p.resolved.gpus,
                   "hops": hops, "power": p.cost.facility_kw, "switches": p.fabric.switch_count_total}
        ok = all((
            constraints.max_tiers is None or metrics["tiers"] <= constraints.max_tiers,
            constraints.max_oversubscription is None or metrics["over"] <= constraints.max_oversubscription + 1e-9,
            constraints.min_bisection_gbytes_per_gpu is None
            or metrics["bisection"] >= constraints.min_bisection_gbytes_per_gpu - 1e-9,
            constraints.max_hops is None or metrics["hops"] <= constraints.max_hops,
            constraints.budget_usd is None or metrics["capex"] <= constraints.budget_usd,
            constraints.max_power_kw is None or metrics["power"] <= constraints.max_power_kw,
            constraints.min_busbw_gbytes is None or busbw >= constraints.min_busbw_gbytes - 1e-3,
        ))
        rows.append({"index": index, "design": design, "ok": ok, **metrics})
    return rows


def _brute_front(rows: list[dict]) -> list[tuple[float, float]]:
    front, best = [], -math.inf
    for r in sorted((r for r in rows if r["ok"]), key=lambda r: (round(r["capex"], 2), r["switches"], r["index"])):
        if round(r["busbw"] / 0.1) > best:  # the front's tie rule: busbw equal at 0.1 GB/s
            front.append((round(r["capex"], 2), round(r["busbw"], 2)))
            best = round(r["busbw"] / 0.1)
    return front


CASES = [
    ("H100", 512, Constraints()),
    ("H100", 512, Constraints(min_busbw_gbytes=300)),
    ("H100", 1024, Constraints(max_tiers=2, max_oversubscription=1.0)),
    ("B200", 1024, Constraints(fabric="ethernet", min_bisection_gbytes_per_gpu=20, max_hops=3)),
]


@pytest.mark.parametrize("gpu,gpus,constraints", CASES)
def test_same_optimum_front_and_feasible_count_as_brute_force(gpu, gpus, constraints):
    rows = _brute(gpu, gpus, constraints, SMALL)
    result = optimize(gpu, gpus, constraints, SMALL, workers=1)
    ok = [r for r in rows if r["ok"]]
    assert result.feasible == len(ok)
    assert result.considered == len(candidate_designs(gpu, gpus, constraints, SMALL))
    best = min(ok, key=lambda r: (round(r["capex"], 2), r["switches"], r["index"]))
    assert result.best.design == best["design"]
    assert result.best_plan.cost.capex_usd == pytest.approx(best["capex"], abs=0.01)
    front = [(round(c.capex_usd, 2), round(c.busbw_gbytes, 2)) for c in result.pareto]
    assert front == _brute_front(rows)
    assert sum(result.rejected.values()) == result.considered - result.feasible


def test_parallel_search_equals_serial():
    grid = Grid(switches=("QM9700", "SN5600"), oversubscription=(1.0, 1.5, 2.0))
    serial = optimize("H100", 2048, Constraints(min_busbw_gbytes=300), grid, workers=1)
    parallel = optimize("H100", 2048, Constraints(min_busbw_gbytes=300), grid, workers=2)
    assert serial.considered >= 400  # the parallel path runs
    assert parallel.best.design == serial.best.design
    assert [c.index for c in parallel.pareto] == [c.index for c in serial.pareto]
    assert parallel.rejected == serial.rejected and parallel.feasible == serial.feasible


def _meets(design, constraints: Constraints) -> bool:
    p = plan(design)
    bw = p.bandwidth
    busbw = collective(p, "all-reduce", constraints.busbw_size)["busbw_gbytes"]
    hops = max(bw.hops_same_rail, bw.hops_same_rail_other_su, bw.hops_cross_rail, bw.hops_cross_pod)
    return all((
        constraints.max_tiers is None or p.fabric.tiers <= constraints.max_tiers,
        constraints.max_oversubscription is None or bw.oversubscription <= constraints.max_oversubscription + 1e-9,
        constraints.min_bisection_gbytes_per_gpu is None
        or bw.bisection_tbits_one_direction * 1000 / 8 / p.resolved.gpus >= constraints.min_bisection_gbytes_per_gpu - 1e-9,
        constraints.max_hops is None or hops <= constraints.max_hops,
        constraints.budget_usd is None or p.cost.capex_usd <= constraints.budget_usd,
        constraints.max_power_kw is None or p.cost.facility_kw <= constraints.max_power_kw,
        constraints.min_busbw_gbytes is None or busbw >= constraints.min_busbw_gbytes - 1e-3,
    ))


TINY = Grid(switches=("QM9700", "SN5600"), port_speeds=(400,), planes=(1,), topologies=("rail-optimized", "top-of-rack"),
            tiers=(2, 3), oversubscription=(1.0, 2.0, 3.0))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(busbw=st.sampled_from([None, 200.0, 300.0, 340.0, 360.0]),
       bisection=st.sampled_from([None, 10.0, 20.0, 40.0]),
       over=st.sampled_from([None, 1.0, 1.5, 2.0]),
       hops=st.sampled_from([None, 3, 5]))
def test_tightening_never_lowers_the_optimum_and_the_winner_meets_every_constraint(busbw, bisection, over, hops):
    loose = Constraints(min_busbw_gbytes=busbw, min_bisection_gbytes_per_gpu=bisection, max_oversubscription=over,
                        max_hops=hops)
    try:
        base = optimize("H100", 1024, loose, TINY, workers=1)
    except DesignError:
        return
    assert _meets(base.best.design, loose)
    for tight in (loose.tightened(min_busbw_gbytes=(busbw or 0) + 20),
                  loose.tightened(min_bisection_gbytes_per_gpu=(bisection or 0) + 10),
                  loose.tightened(max_oversubscription=1.0),
                  loose.tightened(max_hops=3),
                  loose.tightened(budget_usd=base.best.capex_usd * 1.001)):
        try:
            result = optimize("H100", 1024, tight, TINY, workers=1)
        except DesignError:
            continue
        assert result.best.capex_usd >= base.best.capex_usd - 0.01
        assert _meets(result.best.design, tight)


def test_shortcuts_match_full_planning():
    """The family shortcut (explicit tiers = auto's copy, fewer rejected in closed form) and the cached stages
    shared by NIC models agree with planning every design."""
    grid = Grid(switches=("QM9700", "SN5600", "TH5"), port_speeds=(400,), tiers=(1, 2, 3),
                nics=("CX7", "BF3", "BF3-DPU", "CX8"), oversubscription=(1.0, 1.5, 3.0))
    result = optimize("H100", 4096, Constraints(), grid, workers=1)
    for cand in result.candidates:
        try:
            p = plan(cand.design)
        except FabricPlannerError:
            assert not cand.feasible
            continue
        assert cand.feasible, cand.reason
        if cand.pruned:  # decided by its bounds (tests/test_optimize_bounds.py): its floor, not its capex
            assert cand.capex_floor_usd <= p.cost.capex_usd
        else:
            assert cand.capex_usd == pytest.approx(p.cost.capex_usd, abs=0.01)
        assert cand.tiers == p.fabric.tiers and cand.switches == p.fabric.switch_count_total
        assert cand.busbw_gbytes == pytest.approx(collective(p, "all-reduce", 1 << 30)["busbw_gbytes"], abs=1e-3)


def test_explanation_names_the_binding_constraint_and_the_other_family():
    result = optimize("H100", 2048, Constraints(min_busbw_gbytes=300),
                      Grid(switches=("QM9700", "SN5600"), oversubscription=(1.0, 2.0)), workers=1)
    text = " ".join(result.explanation)
    assert "minimum all-reduce busbw" in text
    other = result.other_family
    assert other is not None and other.design.fabric != result.best.design.fabric
    share = (other.capex_usd - result.best.capex_usd) / other.capex_usd
    assert f"{units.percent(share)} cheaper" in text  # the one percent format (core.units.percent)
    assert other.capex_usd >= result.best.capex_usd
    # the explanation is worded again in the user's bandwidth unit, not searched again
    busbw = [line for line in result.explained("Gb/s") if line.startswith("All-reduce busbw")]
    assert busbw == [f"All-reduce busbw {units.bandwidth(units.from_gbytes(result.best.busbw_gbytes), 'Gb/s')} "
                     f"at 1 GiB over 2,048 GPUs."] and "b/s" in busbw[0]
    assert result.explained("GB/s") == result.explanation
    assert "GB/s" not in " ".join(result.explained("Gb/s"))  # constraint values too


def test_infeasible_constraints_name_the_one_that_ruled_everything_out():
    with pytest.raises(DesignError) as info:
        optimize("H100", 512, Constraints(min_busbw_gbytes=5000), TINY, workers=1)
    assert "minimum all-reduce busbw" in info.value.message
    with pytest.raises(InputError):
        optimize("H100", 512, Constraints(switches=("NOPE",)), TINY, workers=1)


def test_cli_json_keys_and_the_design_plans(capsys, tmp_path):
    code, out, _err = run(capsys, "optimize", "--gpu", "H100", "--gpus", "512", "--switches", "QM9700,SN5600",
                          "--min-busbw-gbytes", "300", "--busbw-size", "1GiB", "--max-tiers", "2",
                          "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert {"best", "pareto", "considered", "feasible", "rejected", "seconds"} <= set(data)
    assert {"design", "summary", "explanation"} <= set(data["best"])
    assert {"gpus", "switches", "cost", "bandwidth"} <= set(data["best"]["summary"])
    assert data["pareto"] and {"design", "metrics"} <= set(data["pareto"][0])
    path = tmp_path / "best.json"
    path.write_text(json.dumps(data["best"]["design"]))
    code, out, _err = run(capsys, "plan", "--design", str(path), "--format", "json")
    assert code == 0
    planned = json.loads(out)
    assert planned["cost"]["capex_usd"] == data["best"]["summary"]["cost"]["capex_usd"]
    assert planned["tiers"] <= 2


def test_cli_infeasible_exits_3_naming_the_constraint(capsys):
    code, _out, err = run(capsys, "optimize", "--gpus", "512", "--switches", "QM9700", "--budget-usd", "1000",
                          "--format", "json")
    assert code == 3
    assert "budget" in err


def test_cli_table_and_bad_input(capsys):
    code, out, _err = run(capsys, "optimize", "--gpus", "256", "--switches", "QM9700", "--format", "table")
    assert code == 0 and "QM9700" in out
    code, _out, err = run(capsys, "optimize", "--gpus", "256", "--switches", "NOPE")
    assert code == 2
    code, _out, err = run(capsys, "optimize", "--gpus", "256", "--max-days", "3")
    assert code == 2 and "--model" in err


def test_job_constraint_ranks_the_front_by_days_at_the_jobs_fastest_split():
    from core.perf.training import choose_split, parse_job

    job = parse_job({"model": "llama3-70b", "tokens_to_train": 1e12})
    grid = Grid(switches=("QM9700", "SN5600"), port_speeds=(400,), planes=(1,), topologies=("rail-optimized",),
                tiers=(2,), oversubscription=(1.0, 2.0))
    loose = optimize("H100", 1024, Constraints(job=job), grid, workers=1)
    assert loose.metric == "days" and loose.pareto
    days = [c.days for c in loose.pareto]
    assert days == sorted(days, reverse=True) and len(set(days)) == len(days)  # cheaper first, each faster
    expected = choose_split(plan(loose.best.design), job).best
    assert loose.best.days == pytest.approx(expected.estimate.days_to_train, rel=1e-9)
    assert loose.best.split[:2] == (expected.tp, expected.pp)
    fastest = min(c.days for c in loose.candidates if c.feasible)
    tight = optimize("H100", 1024, Constraints(job=job, max_days=fastest * 1.0001), grid, workers=1)
    assert tight.best.days <= fastest * 1.0001 and tight.best.capex_usd >= loose.best.capex_usd
    with pytest.raises(DesignError) as info:
        optimize("H100", 1024, Constraints(job=job, max_days=fastest * 0.5), grid, workers=1)
    assert "maximum days to train" in info.value.message


@pytest.mark.golden
@pytest.mark.parametrize("gpus,leaf,spine", [(248, 8, 4), (504, 16, 8), (1016, 32, 16)])
def test_superpod_choices_give_the_published_compute_fabric(gpus, leaf, spine):
    """NVIDIA DGX SuperPOD with DGX H100, RA-11333-001 V11 (2023-09-22), Table 4 "Compute fabric component
    count": 1, 2 and 4 SUs (31, 63, 127 DGX H100) take 8/4, 16/8 and 32/16 QM9700 leaves/spines,
    https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/ .
    On the RA's own choices (QM9700 at every tier, 400G, rail-optimized, one plane) and its non-blocking
    requirement, the cheapest design on tiers 1-3 is that fabric."""
    grid = Grid(switches=("QM9700",), port_speeds=(400,), planes=(1,), topologies=("rail-optimized",),
                tiers=(1, 2, 3), oversubscription=(1.0,))
    result = optimize("H100", gpus, Constraints(fabric="infiniband", max_oversubscription=1.0), grid, workers=1)
    s = result.best_plan.summary()
    assert (s["tiers"], s["switches"]["leaf"], s["switches"]["spine"], s["switches"]["core"]) == (2, leaf, spine, 0)


# --- required planes and sizing from a budget or power envelope ---------------------------
ENVELOPE_GRID = Grid(fabrics=("infiniband",), oversubscription=(1.0,), planes=(1,), plane_modes=("per-port",),
                     topologies=("rail-optimized",))


def test_required_planes_rule_out_fewer_planes_and_never_lower_the_cost():
    from core.analysis.optimize import optimize as search

    grid = Grid(fabrics=("infiniband",), oversubscription=(1.0,), planes=(1, 2), topologies=("rail-optimized",))
    free = search("H100", 512, Constraints(fabric="infiniband"), grid, workers=1)
    two = search("H100", 512, Constraints(fabric="infiniband", min_planes=2), grid, workers=1)
    assert two.best.design.planes >= 2 and all(c.design.planes >= 2 for c in two.candidates if c.feasible)
    assert two.best.capex_usd >= free.best.capex_usd
    assert two.rejected.get("required planes", 0) > 0  # the one-plane candidates, by name


def test_largest_within_a_budget_matches_brute_force_over_sizes():
    from core.analysis.optimize import largest_within, optimize as search

    budget = 9e6
    found = largest_within("H100", Constraints(budget_usd=budget), ENVELOPE_GRID, workers=1)
    fits = [n for n in range(8, 400, 8)
            if search("H100", n, Constraints(budget_usd=budget), ENVELOPE_GRID, workers=1, strict=False).best]
    assert found.gpus == max(fits) and found.step_gpus == 8
    assert found.result.best.capex_usd <= budget and found.next_gpus == found.gpus + 8
    assert "budget" in found.next_reason
    assert found.searches <= 15


def test_largest_within_a_power_envelope_and_bad_input():
    from core.analysis.optimize import largest_within

    found = largest_within("H100", Constraints(max_power_kw=300.0), ENVELOPE_GRID, workers=1)
    assert found.result.best.facility_kw <= 300.0 and found.gpus % 8 == 0 and found.gpus >= 8
    with pytest.raises(InputError):
        largest_within("H100", Constraints(), ENVELOPE_GRID, workers=1)
    with pytest.raises(DesignError):
        largest_within("H100", Constraints(budget_usd=1000.0), ENVELOPE_GRID, workers=1)


# --- speed without changing a number ------------------------------------------------
EXACT = Grid(switches=("QM9700", "SN5600", "TH5"), nics=("CX7", "BF3", "CX8"), port_speeds=(400,), uplinks=("same",),
             planes=(1, 2), tiers=(1, 2, 3), oversubscription=(1.0, 2.0))
"""Two fabrics, switch models of equal and different height, two NIC cages, one and two planes per-port and
per-rail, every topology, tiers 1-3 and two ratios: the cached lengths and media are shared between
candidates here (the test checks that they are), and the family shortcuts run."""


def test_cached_evaluator_equals_an_uncached_plan_of_every_candidate_exactly():
    """Every candidate the optimizer costs has, to the cent and to the last bit of every metric, what
    ``core.plan`` (its own layout, lengths from the built racks, media per design) and an all-reduce sweep
    of that plan give with every stage cache bypassed (``core.memo.uncached``); candidates it rejects for an engine
    error are those planning rejects. Every candidate is costed here (``bounded=False``; what the bounds decide
    instead: ``tests/test_optimize_bounds.py``)."""
    from core import plan as plan_module
    from core.analysis import optimize as opt
    from core.cost import in_compute_fabric
    from core.memo import STAGES, uncached
    from core.perf.collectives import sweep
    from core.physical.lengths import placed_link_lengths
    from core.physical.media import chosen_media

    for cached in STAGES:
        cached.cache_clear()
    result = optimize("H100", 2048, Constraints(), EXACT, workers=1, bounded=False)
    costed = [c for c in result.candidates if not math.isnan(c.capex_usd)]
    assert len(costed) >= 150 and result.feasible == len(costed)
    # the caches were shared (fewer length and media computations than designs costed), so the test covers them
    assert placed_link_lengths.cache.misses < len(costed) and chosen_media.cache.misses < len(costed)
    catalog = opt.load_catalog()
    for cand in result.candidates:
        with uncached():
            try:
                p = plan_module._plan(cand.design, catalog)
            except FabricPlannerError:
                assert not cand.feasible and math.isnan(cand.capex_usd)
                continue
            swept = sweep(p, "all-reduce", [1 << 30])
        assert cand.feasible, (cand.design, cand.reason)
        bw, cost = p.bandwidth, p.cost
        by_category: dict[str, float] = {}
        for row in p.bom:
            if in_compute_fabric(row):  # the cards' boundary: the UFM's management links and storage out
                by_category[row.category] = by_category.get(row.category, 0.0) + row.extended_price_usd
        assert (cand.capex_usd, cand.network_capex_usd, cand.facility_kw) == \
            (cost.capex_usd, cost.network_capex_usd, cost.facility_kw)
        assert round(cand.capex_usd, 2) == round(cost.capex_usd, 2)
        assert cand.network_by_category == by_category
        assert (cand.tiers, cand.switches, cand.oversubscription, cand.hops) == (
            p.fabric.tiers, p.fabric.switch_count_total, bw.oversubscription,
            max(bw.hops_same_rail, bw.hops_same_rail_other_su, bw.hops_cross_rail, bw.hops_cross_pod))
        assert cand.bisection_gbytes_per_gpu == bw.bisection_tbits_one_direction * 1000 / 8 / p.resolved.gpus
        assert cand.busbw_gbytes == float(swept.busbw(swept.best()[0])[0])


def test_grid_designs_are_the_validated_designs():
    """``candidate_designs`` validates each grid value once and copies a validated base: the designs equal
    the ones built field by field (values, their types, the design file)."""
    from core.analysis.optimize import GRID_FIELDS
    from core.design import Design

    for gpu, gpus, grid in (("H100", 512, Grid()), ("GB200", 1152, EXACT)):
        fast = candidate_designs(gpu, gpus, Constraints(min_planes=3), grid)
        for d in fast:
            full = Design(gpu=d.gpu, gpus=d.gpus, **{k: getattr(d, k) for k in GRID_FIELDS})
            assert d == full and d.to_json() == full.to_json()
            assert all(type(d.__dict__[k]) is type(full.__dict__[k]) for k in full.__dict__)
    with pytest.raises(ValueError):  # a value no design takes is refused as before (pydantic's error)
        candidate_designs("H100", 512, Constraints(), Grid(switches=("QM9700",), oversubscription=(-1.0,)))


@pytest.mark.parametrize("gpu,gpus,changes", [
    ("H100", 16384, {"tiers": 3, "oversubscription": 2.0}),
    ("H100", 2048, {"topology": "top-of-rack", "fabric": "ethernet", "leaf_switch": "SN5600"}),
    ("H100", 4096, {"planes": 2, "plane_mode": "per-rail", "tiers": 3}),
    ("H100", 1024, {"planes": 2, "plane_mode": "per-rail", "topology": "rail-only"}),
    ("GB200", 4608, {}),
    ("H100", 8, {}),
])
def test_the_rack_arrangement_gives_the_layouts_cable_lengths(gpu, gpus, changes):
    """The optimizer's lengths (``arrange`` + ``arranged_link_lengths``, no racks built) equal the plan's (from the
    ``Layout``), and ``place`` is the arrangement's layout."""
    from core.catalog import load_catalog
    from core.design import Design, resolve_design
    from core.fabric.sizing import size_fabric
    from core.physical.layout import arrange, place
    from core.physical.lengths import arranged_link_lengths, link_lengths, placed_link_lengths
    from core.plan import as_built

    catalog = load_catalog()
    r = resolve_design(Design(gpu=gpu, gpus=gpus, **changes), catalog)
    f = size_fabric(r)
    networks = as_built(r, f, catalog).networks  # the plan's: its PDUs those of the racks as built
    layout = place(r, f, networks, catalog)
    arrangement = arrange(r, f, networks)
    assert arrangement.layout() == layout
    placed_link_lengths.cache_clear()
    first = arranged_link_lengths(r, f, arrangement)
    assert first == link_lengths(r, f, layout)
    # one computation, cached by the rack places (a new arrangement of the same design: the same places)
    assert arranged_link_lengths(r, f, arrange(r, f, networks)) is first and len(placed_link_lengths.cache) == 1
    p = plan(Design(gpu=gpu, gpus=gpus, **changes))
    assert p.layout == layout and p.lengths == link_lengths(r, f, layout)
    with pytest.raises(TypeError):
        arranged_link_lengths(r, f, layout)


def test_a_device_no_rack_holds_rejects_the_candidate_as_planning_does():
    """A 47U chassis leaf at the top of a dense compute rack: planning raises, the search counts the reason
    and goes on (it used to stop with the error)."""
    grid = Grid(switches=("ARISTA-7800R3-576", "SN5600"), topologies=("top-of-rack",), port_speeds=(400,),
                planes=(1,), tiers=(2,), oversubscription=(1.0,))
    result = optimize("B200", 2048, Constraints(fabric="ethernet"), grid, workers=1)
    chassis = [c for c in result.candidates if c.design.leaf_switch == "ARISTA-7800R3-576"]
    assert chassis and all("does not fit" in c.reason for c in chassis)
    with pytest.raises(DesignError):
        plan(chassis[0].design)
    assert result.best is not None and result.best.design.leaf_switch == "SN5600"


def _size_island_by_full_plans(resolved):
    """``core.fabric.sizing._size_island`` as it was before its speed-up: every leaf down-port candidate sized
    in full, the first of the fewest (tiers, switches) kept, and the note for fewer down ports."""
    from core.fabric import sizing

    leaf_down_max, _up = sizing._leaf_split(resolved)
    low = max(1, math.ceil(leaf_down_max * 0.75))
    step = max(1, math.ceil((leaf_down_max - low + 1) / sizing.MAX_LEAF_DOWN_CANDIDATES))
    one = resolved.nodes * resolved.nics_per_node <= resolved.switch_ports and resolved.design.tiers in ("auto", 1)
    if one or resolved.design.oversubscription <= 1 or resolved.su_nodes is not None:
        candidates = [leaf_down_max]
    else:
        candidates = list(range(leaf_down_max, low - 1, -step))
    best, first_error = None, None
    for leaf_down in candidates:
        try:
            candidate = sizing._size_fabric(resolved, leaf_down)
        except DesignError as exc:
            first_error = first_error or exc
            continue
        if best is None or (candidate.tiers, candidate.switch_count) < (best.tiers, best.switch_count):
            best = candidate
    if best is None:
        raise first_error
    if best.leaf_down_ports_max < leaf_down_max:
        note = ("Leaves use at most {used} of the {most} down ports {ratio}:1 allows: that balances on fewer "
                "switches.").format(used=best.leaf_down_ports_max, most=leaf_down_max,
                                    ratio=f"{resolved.design.oversubscription:g}")
        best = best.model_copy(update={"explanation": (note, *best.explanation)})
    return best


@pytest.mark.parametrize("gpu, gpus", [("H100", 16384), ("H100", 3000), ("B200", 2048), ("GB200", 4608)])
def test_sizing_scores_leaf_candidates_as_their_full_plans_do(gpu, gpus):
    """The losing leaf down-port counts are compared by (tiers, switches) without building their groups and
    explanation; each score is its full plan's, and the plan chosen (explanation, groups, every field) is the one
    sizing every candidate in full gives, errors included (oversubscribed grids: several candidates each)."""
    import random

    from core.catalog import load_catalog
    from core.design import resolve_design
    from core.fabric import sizing

    catalog = load_catalog()
    grid = Grid(oversubscription=(1.5, 2.0, 3.0, 4.0), uplinks=("same", "fastest"))
    designs = candidate_designs(gpu, gpus, Constraints(), grid, catalog)
    random.Random(gpus).shuffle(designs)
    several = 0
    for design in designs[:120]:
        try:
            resolved = resolve_design(design, catalog)
        except FabricPlannerError:
            continue
        try:
            expected = _size_island_by_full_plans(resolved)
        except DesignError as exc:
            with pytest.raises(DesignError) as got:
                sizing._size_island(resolved)
            assert (got.value.message, got.value.suggestion) == (exc.message, exc.suggestion)
            continue
        assert sizing._size_island(resolved).model_dump() == expected.model_dump()
        leaf_down_max, _up = sizing._leaf_split(resolved)
        for leaf_down in range(leaf_down_max, max(1, math.ceil(leaf_down_max * 0.75)) - 1, -1):
            several += 1
            try:
                full = sizing._size_fabric(resolved, leaf_down)
            except DesignError as exc:
                with pytest.raises(DesignError) as got:
                    sizing._score(resolved, leaf_down)
                assert got.value.message == exc.message
                continue
            assert sizing._score(resolved, leaf_down) == (full.tiers, full.switch_count)
    assert several > 200


def test_catalog_lookup_index_equals_a_scan_and_follows_a_copy():
    """``Catalog._find`` by its id/alias index finds what a scan in order finds (case and surrounding spaces
    ignored), unknown keys still raise the message listing the known ids, and a copy with other entries
    finds only its own."""
    from core.catalog import load_catalog

    catalog = load_catalog()
    for kind, find in (("systems", catalog.system), ("nics", catalog.nic), ("switches", catalog.switch),
                       ("transceivers", catalog.transceiver), ("cables", catalog.cable),
                       ("appliances", catalog.appliance)):
        entries = getattr(catalog, kind)
        for entry in entries:
            for key in (entry.id, *entry.aliases):
                scanned = next(e for e in entries if key.casefold() in
                               (e.id.casefold(), *(a.casefold() for a in e.aliases)))
                assert find(f" {key.upper()} ") is scanned is entry
        with pytest.raises(InputError, match="known: " + entries[0].id):
            find("no-such-model")
    first, second = catalog.switches[:2]
    copy = catalog.model_copy(update={"switches": (first,)})
    assert copy.switch(first.id) is first
    with pytest.raises(InputError):
        copy.switch(second.id)
    assert catalog.switch(second.id) is second


def test_cached_curves_give_what_a_fresh_sweep_gives():
    """The algorithms' curves are cached by their arguments (``core.perf.collectives._curves``) and shared between
    plans that place the ranks alike: every time, pick and note equals an uncached sweep, in both languages."""
    from core.i18n import language
    from core.memo import uncached
    from core.perf.collectives import _curves, sweep

    designs = candidate_designs("H100", 2048, Constraints(), Grid(switches=("QM9700", "SN5600"), nics=("CX7", "CX8"),
                                                                 tiers=(2, 3), oversubscription=(1.0, 2.0)))[::7]
    _curves.cache_clear()
    swept = 0
    for lang in ("en", "zh"):
        with language(lang):
            for design in designs:
                try:
                    p = plan(design)
                except FabricPlannerError:
                    continue
                for size in ([1 << 20, 1 << 30], [1 << 30]):
                    with uncached():
                        fresh = sweep(p, "all-reduce", size)
                    shared = sweep(p, "all-reduce", size)
                    t, a, pr = fresh.best()
                    t2, a2, pr2 = shared.best()
                    assert (t.tolist(), list(a), list(pr)) == (t2.tolist(), list(a2), list(pr2))
                    assert fresh.notes == shared.notes
                    swept += 1
    assert swept >= 40 and 4 < len(_curves.cache) < swept


def test_shared_resolution_equals_resolving_each_design():
    """Resolving reads neither ``tiers`` nor ``oversubscription``: the resolution ``_evaluate_families`` shares over a
    run of designs, with each design put in (``_evaluate_family``), equals ``resolve_design`` of that design (every
    field), errors are the same errors, and a run resolves once."""
    from core.analysis import optimize as opt
    from core.design import resolve_design
    from core.memo import copied

    catalog = opt.load_catalog()
    designs = candidate_designs("H100", 1024, Constraints(), Grid(switches=("QM9700", "SN5600", "TH5"),
                                                                 oversubscription=(1.0, 1.5, 3.0)))
    runs: dict[tuple, list] = {}
    for design in designs:
        runs.setdefault(opt._fields_key(design, opt._UNRESOLVED), []).append(design)
    resolved = 0
    for run in runs.values():
        try:
            shared = resolve_design(run[0], catalog)
        except FabricPlannerError as exc:
            for design in run:
                with pytest.raises(type(exc)) as raised:
                    resolve_design(design, catalog)
                assert str(raised.value) == str(exc)
            continue
        for design in run:
            got = copied(shared, {"design": design})
            assert got == resolve_design(design, catalog) and got.design is design
            resolved += 1
    assert resolved > 100 and len(runs) * 4 < len(designs)  # one resolution served many designs

    calls = []
    evaluator = opt._Evaluator(Constraints(), catalog)
    evaluator.resolve = lambda design: calls.append(design) or resolve_design(design, catalog)
    groups = opt._families(designs)
    for _family in opt._evaluate_families(evaluator, designs, groups):
        pass
    assert len(calls) == len(runs)  # each run resolved once, however many families and designs it holds


def test_a_budget_search_stops_at_the_callers_limit():
    """The app's envelope search looks at no design above its limit per search (webui.jobs: 32,768 GPUs); a budget
    that buys more answers with the largest after one search and says where the limit is."""
    from core.analysis.optimize import largest_within

    envelope = largest_within("H100", Constraints(budget_usd=1e13), Grid(oversubscription=(1.0,), planes=(1,)),
                              workers=1, max_gpus=64)
    assert envelope.gpus == 64 and envelope.at_limit and envelope.searches == 1
    assert "at most 64 GPUs" in envelope.next_reason and "python -m core optimize" in envelope.next_reason


def test_a_constraint_binds_only_within_the_margin_and_far_limits_say_so():
    """The winner 40% above a busbw floor was "Binding constraint: ..."; now a limit that rules out no cheaper design
    binds only within ``BINDING_MARGIN`` of the winner's value, and a far one is named with its margin."""
    from dataclasses import replace

    from core.analysis.optimize import BINDING_MARGIN, explain

    result = optimize("H100", 2048, Constraints(), Grid(switches=("QM9700",), port_speeds=(400,), planes=(1,),
                                                        topologies=("rail-optimized",), oversubscription=(1.0,)),
                      workers=1)
    best = result.best
    ruled_out = replace(best, index=-1, reason="min_busbw_gbytes", capex_usd=best.capex_usd * 2,
                        failed=("min_busbw_gbytes",))  # dearer: it rules out nothing cheaper

    def said(floor):
        return " ".join(explain(best, None, [best, ruled_out], Constraints(min_busbw_gbytes=floor), "busbw_gbytes"))

    far = said(best.busbw_gbytes * 0.6)
    assert "Binding constraint" not in far and f"at least {units.percent(1 / 0.6 - 1)} to spare" in far  # of the limit
    assert "minimum all-reduce busbw" in far
    near = said(best.busbw_gbytes * (1 - BINDING_MARGIN / 2))
    assert "Binding constraint: minimum all-reduce busbw (this design" in near


def test_rail_only_winner_is_warned_with_the_cheapest_design_that_joins_the_rails():
    grid = Grid(switches=("QM9700",), port_speeds=(400,), planes=(1,), topologies=("rail-only", "rail-optimized"),
                oversubscription=(1.0,))
    result = optimize("H100", 512, Constraints(), grid, workers=1)
    assert result.best.design.topology == "rail-only"
    text = " ".join(result.explanation)
    assert "If the job has expert-parallel all-to-all" in text and "it is rail-only" in text  # no job: a note
    assert "joins every rail and is non-blocking (bisection ratio 1:1)" in text and "Warning" not in text
    joined = min((c for c in result.candidates if c.feasible and c.design.topology != "rail-only"),
                 key=lambda c: c.capex_usd)
    assert design_label(joined) in text


def _rail_only_pair():
    """A feasible rail-only 3:1 winner and a dearer rail-optimized 1:1 design, as candidates of one grid."""
    grid = Grid(switches=("QM9700",), port_speeds=(400,), planes=(1,), topologies=("rail-only", "rail-optimized"),
                oversubscription=(1.0, 3.0))
    result = optimize("H100", 512, Constraints(), grid, workers=1)
    return result, [c for c in result.candidates if c.feasible]


def test_a_job_with_all_to_all_gets_a_warning_and_the_nearest_design_that_carries_it():
    """The winner is rail-only: a mixture-of-experts job (expert-parallel all-to-all) is warned, with the cheapest
    design of the search that is neither rail-only nor oversubscribed and what it costs more; a dense job whose
    pipeline stays on its rails is not; without a job the limits are a note."""
    from core.analysis.optimize import capex_of, explain, job_cross_traffic
    from core.perf.training import parse_job

    result, feasible = _rail_only_pair()
    best = result.best
    assert best.design.topology == "rail-only"
    able = min((c for c in feasible if c.design.topology != "rail-only" and units.ratio(c.oversubscription) == "1:1"),
               key=capex_of)
    moe, dense = parse_job({"model": "mixtral-8x7b"}), parse_job({"model": "llama3-70b", "pp": 1})
    assert job_cross_traffic(moe, None) == ["expert-parallel all-to-all"] and job_cross_traffic(dense, None) == []

    def said(job):
        return " ".join(explain(best, None, result.candidates, Constraints(job=job), "days"))

    warned = said(moe)
    assert "Warning: the training job has expert-parallel all-to-all, and it is rail-only" in warned
    assert f"{design_label(able)}, {usd(able.capex_usd)} (+{usd(able.capex_usd - best.capex_usd)})" in warned
    assert "Warning" not in said(dense) and "rail-only (no spine" not in said(dense)
    assert "If the job has" in said(None) and "Warning" not in said(None)
    only_rail_only = [c for c in result.candidates if c.design.topology == "rail-only"]
    assert "No design the search kept meets every constraint, joins every rail" in " ".join(
        explain(best, None, only_rail_only, Constraints(job=moe), "days"))


def test_oversubscribed_leaves_are_warned_for_all_to_all():
    from dataclasses import replace

    from core.analysis.optimize import explain
    from core.perf.training import parse_job

    result, feasible = _rail_only_pair()
    dense_tree = min((c for c in feasible if c.design.topology == "rail-optimized"
                      and c.design.oversubscription == 3.0), key=lambda c: c.capex_usd)
    text = " ".join(explain(dense_tree, None, result.candidates, Constraints(job=parse_job({"model": "mixtral-8x7b"})),
                            "days"))
    # the plan's bisection ratio, end to end (the headline's), not the leaves' 3:1 setting: 8/3 = 2.67:1
    assert units.ratio(dense_tree.oversubscription) == "2.67:1"
    assert "its bisection ratio is 2.67:1, so traffic across the fabric (all-to-all, between nodes far apart) gets " \
           "as little as 37.5% of the injection bandwidth" in text and "rail-only (no spine" not in text
    # the rule reads the plan's bisection ratio (the headline's), not the design's leaf setting
    moe = Constraints(job=parse_job({"model": "mixtral-8x7b"}))
    assert "Warning" not in " ".join(explain(replace(dense_tree, oversubscription=1.0), None, result.candidates, moe,
                                             "days"))
    assert "Warning" in " ".join(explain(replace(dense_tree, design=dense_tree.design.model_copy(
        update={"oversubscription": 1.0})), None, result.candidates, moe, "days"))


def test_a_torus_winner_is_warned_by_its_bisection_ratio_with_the_nearest_design_that_carries_all_traffic():
    """A torus has no leaves (its design's leaf ratio is 1:1) but its cut is 6:1 (review48 #2: no warning): a MoE
    job is warned by the bisection ratio the headline prints, with the cheapest non-blocking design that joins the
    rails, never another torus."""
    from core.analysis.optimize import capex_of, explain
    from core.perf.training import parse_job

    grid = Grid(fabrics=("ethernet",), port_speeds=(400,), planes=(1,), topologies=("torus", "rail-optimized"),
                oversubscription=(1.0,))
    result = optimize("H100", 512, Constraints(), grid, workers=1)
    best = result.best
    assert best.design.topology == "torus" and best.design.oversubscription == 1.0
    # 64 nodes as 4x4x4, 6 of 8 NIC ports cabled (one per neighbour): half the injection 64 x 6 x 400 / 2 = 76.8 Tb/s
    # over the cut's 2 x 4 x 4 = 32 links of 400 Gb/s = 12.8 Tb/s: 6:1
    assert units.ratio(best.oversubscription) == "6:1"
    text = " ".join(explain(best, None, result.candidates, Constraints(job=parse_job({"model": "deepseek-v3"})),
                            "days"))
    able = min((c for c in result.candidates if c.costed and c.design.topology == "rail-optimized"
                and units.ratio(c.oversubscription) == "1:1"), key=capex_of)
    assert "Warning: the training job has expert-parallel all-to-all, and its bisection ratio is 6:1" in text
    assert "16.7% of the injection bandwidth" in text
    assert f"non-blocking (bisection ratio 1:1): {design_label(able)}, {usd(able.capex_usd)}" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_torus_winner_s_caveats_name_no_rails(lang, monkeypatch):
    """A torus has no rails (every NIC of a node on the one torus): its caveats note all-to-all alone and the
    nearest non-blocking design without "joins every rail", and a pipeline stage boundary inside a node is no
    cross-rail traffic on it, while a rail-optimized design of the same size still says both."""
    from core.analysis import optimize as opt
    from core.design import Design
    from core.perf.training import parse_job

    grid = Grid(fabrics=("ethernet",), port_speeds=(400,), planes=(1,), topologies=("torus", "rail-optimized"),
                oversubscription=(1.0,))
    result = optimize("H100", 512, Constraints(), grid, workers=1)
    assert result.best.design.topology == "torus"
    dense = parse_job({"model": "llama3-70b"})
    monkeypatch.setattr(opt, "_searched_split_job", lambda _p, job: job.model_copy(update={"pp": 8}))  # 12 GPUs
    torus, clos = plan(Design(gpu="H100", gpus=96, topology="torus")), plan(Design(gpu="H100", gpus=96))
    with language(lang):
        text = " ".join(opt.explain(result.best, None, result.candidates, Constraints(), "days"))
        rails, pipeline = ((("所有轨道", "不同轨道"), "位于不同轨道上的流水线阶段") if lang == "zh" else
                           (("every rail", "different rails"), "pipeline stages on different rails"))
        assert "all-to-all" in text and "1:1" in text and not any(said in text for said in rails)
        assert opt.job_cross_traffic(dense, torus) == [] and opt.job_cross_traffic(dense, clos) == [pipeline]


def test_a_cheaper_design_ruled_out_by_a_far_limit_does_not_make_it_binding():
    """A cheaper design failing only the busbw floor used to make the floor "binding" however far the winner is
    above it; now the floor binds only within the margin, and the ruled-out design is still named."""
    from dataclasses import replace

    from core.analysis.optimize import BINDING_MARGIN, explain

    result, _feasible = _rail_only_pair()
    best = result.best
    cheaper = replace(best, index=-1, reason="min_busbw_gbytes", capex_usd=best.capex_usd * 0.9,
                      failed=("min_busbw_gbytes",), busbw_gbytes=best.busbw_gbytes * 0.5)

    def said(floor):
        return " ".join(explain(best, None, [best, cheaper], Constraints(min_busbw_gbytes=floor), "busbw_gbytes"))

    far = said(best.busbw_gbytes * 0.7)
    assert "Binding constraint" not in far and "No constraint binds" in far
    assert "fails only minimum all-reduce busbw" in far and usd(cheaper.capex_usd) in far
    near = said(best.busbw_gbytes * (1 - BINDING_MARGIN / 2))
    assert "Binding constraint: minimum all-reduce busbw" in near and f"within {BINDING_MARGIN:.0%}" in near


def test_design_label_says_the_design_in_words():
    result = optimize("H100", 2048, Constraints(), Grid(switches=("QM9700",), port_speeds=(400,), planes=(1,),
                                                        topologies=("rail-optimized",), oversubscription=(2.0,)),
                      workers=1)
    label = design_label(result.best)
    # 2,048 GPUs: the last scalable unit's leaves are partly filled, so 1.92:1 end to end (review47 #1: named)
    assert label.startswith("2-tier QM9700 InfiniBand, rail-optimized, 2:1 at the leaf, bisection ratio 1.92:1, "
                            "400G ports")
    with language("zh"):
        assert not english_leaks(design_label(result.best).replace("QM9700", "").replace("G", ""))


def test_dragonfly_candidates_are_priced_as_their_plans_and_tried_once_per_shape():
    """A Dragonfly+ in the grid: every feasible candidate's capex, switches and busbw are its plan's exactly (the
    global links' lengths and media included), and it is tried once per shape, not once per tier count."""
    grid = Grid(switches=("QM9700", "SN5600"), port_speeds=(400,), planes=(1,), topologies=("dragonfly", "rail-optimized"),
                oversubscription=(1.0, 2.0))
    result = optimize("H100", 4096, Constraints(), grid, workers=1, bounded=False)  # every feasible one costed
    dragonflies = [c for c in result.candidates if c.design.topology == "dragonfly"]
    assert dragonflies and all(c.design.tiers == "auto" for c in dragonflies)
    assert len({c.design.model_dump_json() for c in dragonflies}) == len(dragonflies)
    with_global_links = 0
    for cand in (c for c in dragonflies if c.feasible):
        p = plan(cand.design)
        with_global_links += p.fabric.global_links > 0
        assert cand.capex_usd == pytest.approx(p.cost.capex_usd, abs=0.01)
        assert cand.switches == p.fabric.switch_count_total
    assert with_global_links >= 2


def test_cli_topologies_grid_and_a_bad_one(capsys):
    code, out, _err = run(capsys, "optimize", "--gpus", "512", "--topologies", "dragonfly", "--switches", "QM9700",
                          "--oversubscription-grid", "1", "--format", "json")
    assert code == 0 and "dragonfly" in out
    code, out, _err = run(capsys, "optimize", "--gpus", "64", "--topologies", "torus", "--switches", "QM9700",
                          "--oversubscription-grid", "1", "--format", "json")
    assert code == 0 and "torus" in out  # the torus family joins the grid when asked
    code, _out, err = run(capsys, "optimize", "--gpus", "64", "--topologies", "hypercube")
    assert code == 2 and "--topologies" in err


def test_per_rail_planes_are_separate_fabrics_for_all_to_all():
    """Per-rail planes split the rails into fabrics no switch joins (``Bandwidth.islands``), as rail-only does: a
    mixture-of-experts job is warned, and the nearest design joins every rail (per-port planes)."""
    from core.analysis.optimize import explain
    from core.perf.training import parse_job

    grid = Grid(switches=("QM9700",), port_speeds=(200,), planes=(1, 2), plane_modes=("per-rail", "per-port"),
                topologies=("rail-optimized",), oversubscription=(1.0,))
    result = optimize("H100", 256, Constraints(), grid, workers=1, bounded=False)  # every feasible one costed
    per_rail = [c for c in result.candidates if c.feasible and c.design.plane_mode == "per-rail" and c.planes == 2]
    joined = [c for c in result.candidates if c.feasible and not (c.design.plane_mode == "per-rail" and c.planes > 1)]
    assert per_rail and joined and all(c.islands == 2 for c in per_rail) and all(c.islands == 1 for c in joined)
    best = min(per_rail, key=lambda c: c.capex_usd)
    text = " ".join(explain(best, None, result.candidates, Constraints(job=parse_job({"model": "mixtral-8x7b"})),
                            "days"))
    assert "Warning" in text and "per-rail planes are separate fabrics" in text
    assert design_label(min(joined, key=lambda c: c.capex_usd)) in text


def test_pipeline_stages_across_rails_count_as_cross_rail_traffic(monkeypatch):
    """The search fits the job's split per design; a stage of ``gpus / pp`` GPUs that is not a whole number of nodes
    pairs GPUs of different local ranks at a stage boundary (different rails), a whole number keeps them on one."""
    from core.analysis import optimize as opt
    from core.design import Design
    from core.perf.training import parse_job

    p = plan(Design(gpu="H100", gpus=96))  # 12 nodes of 8
    dense = parse_job({"model": "llama3-70b"})
    for pp, crosses in ((8, True), (4, False), (1, False)):  # stages of 12, 24 and 96 GPUs
        monkeypatch.setattr(opt, "_searched_split_job", lambda _p, job, pp=pp: job.model_copy(update={"pp": pp}))
        assert ("pipeline stages on different rails" in opt.job_cross_traffic(dense, p)) is crosses


def test_a_classic_dragonfly_search_is_costed():
    """Every classic Dragonfly candidate used to raise ``KeyError: 'local'`` in the links floor (review48 #1): the
    search answers, each candidate costed or ruled out with a reason, its routers the only switch model."""
    result = optimize("H100", 512, Constraints(), Grid(topologies=("classic-dragonfly",)), workers=1)
    assert result.best is not None and result.best.design.topology == "classic-dragonfly"
    assert all(c.feasible or c.reason for c in result.candidates)
    assert all(c.design.spine_switch is None and c.design.core_switch is None for c in result.candidates)
    assert "  " not in design_label(result.best) and "Dragonfly" in design_label(result.best)


def test_a_search_over_every_family_answers_and_tries_each():
    from core import vocab

    grid = Grid(port_speeds=(400,), planes=(1,), topologies=tuple(vocab.TOPOLOGY.ids), oversubscription=(1.0, 2.0))
    result = optimize("H100", 512, Constraints(), grid, workers=1)
    assert result.best is not None
    costed = {c.design.topology for c in result.candidates if c.costed}
    assert costed == set(vocab.TOPOLOGY.ids)  # every family costed at least once (no crash, none all refused)


def test_a_family_is_tried_once_per_field_it_reads():
    """A torus has no switches, tiers or leaf ratio and takes one plane (``core.fabric.families.unsearched_fields``):
    the grid tries it once per fabric, port speed and NIC (it tried 1,812 at 512 H100: every leaf and upper switch
    model, uplink, plane and leaf ratio); a classic Dragonfly once per router model, uplink speed and plane count;
    a Dragonfly+ without per-rail planes, which it refuses."""
    from core.fabric.families import unsearched_fields

    def designs(topology):
        return candidate_designs("H100", 512, Constraints(), Grid(topologies=(topology,)))

    clos = designs("rail-optimized")
    torus = designs("torus")
    assert len(torus) == len({(d.fabric, d.port_speed_gbps, d.nic) for d in torus}) \
        == len({(d.fabric, d.port_speed_gbps) for d in clos}) == 7  # InfiniBand 200/400/800G, Ethernet 100-800G
    assert all(d.leaf_switch is None and d.spine_switch is None and d.tiers == "auto" and d.oversubscription == 1.0
               and d.planes == 1 for d in torus)
    classic = designs("classic-dragonfly")
    assert len(classic) == len({(d.fabric, d.port_speed_gbps, d.leaf_switch, d.uplink_speed_gbps, d.planes)
                                for d in clos if d.plane_mode == "per-port"}) == 66
    plus = designs("dragonfly")
    assert {d.plane_mode for d in plus} == {"per-port"} and all(d.core_switch is None for d in plus)
    assert len(plus) == len({(d.fabric, d.port_speed_gbps, d.leaf_switch, d.spine_switch, d.uplink_speed_gbps,
                              d.planes, d.oversubscription) for d in clos if d.plane_mode == "per-port"}) == 1208
    assert unsearched_fields("rail-optimized") == ()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_design_label_starts_with_a_space_or_doubles_one(lang):
    """Every family's label, with and without its sizing's dimensions (an optimizer candidate has none: the torus's
    label began " Ethernet RoCE torus", and the page's bold marker then showed as text: review48 #4)."""
    from core import vocab
    from core.designwords import design_words
    from core.design import Design

    with language(lang):
        for topology in vocab.TOPOLOGY.ids:
            for fabric in ("infiniband", "ethernet"):
                for tiers in (0, 1, 2):
                    for dims in ((), (4, 4, 4)):
                        d = Design(gpu="H100", gpus=512, topology=topology, fabric=fabric, port_speed_gbps=400)
                        text = design_words(d, tiers, dims=dims)
                        assert text == text.strip() and "  " not in text, (topology, text)
