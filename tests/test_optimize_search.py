"""The optimizer as the user drives it: the objective chosen (capex, TCO, cost per GPU-hour, days to train), the
training job's split searched with the fabric (checked against a fresh split search of every candidate's own plan),
what a search has found so far (its progress reports end on its answer), the command line's progress bar, one
design-in-words for labels and the review pack, and the Optimize page's progress with Cancel."""

from __future__ import annotations

import io
import json
import math
import time

import pytest

from core.analysis import jobsplit
from core.analysis.objectives import OBJECTIVES, objective_value, order, usd_per_gpu_hour
from core.analysis.optimize import Constraints, Grid, design_label, optimize, pareto_front
from core.cost import HOURS_PER_YEAR
from core.design import Design
from core.designwords import design_words, plan_words
from core.errors import InputError
from core.i18n import language
from core.perf.training import choose_split, parse_job
from core.plan import plan

GRID = Grid(fabrics=("infiniband",), oversubscription=(1.0, 2.0), planes=(1,), plane_modes=("per-port",),
            uplinks=("same",))
JOB = parse_job({"model": "llama3-8b", "tokens_to_train": 1e12})


@pytest.fixture(scope="module")
def with_job():
    """Every candidate costed (``bounded=False``: the bounds would decide some by their days, without a capex), the
    brute force's reference."""
    return optimize("H100", 256, Constraints(job=JOB), GRID, workers=1, bounded=False)


# --- objectives ------------------------------------------------------------------------------------

@pytest.mark.parametrize("objective", ["cluster", "compute", "tco", "gpu_hour"])
def test_each_money_objective_picks_the_feasible_candidate_lowest_by_it(objective):
    result = optimize("H100", 256, Constraints(), GRID, workers=1, objective=objective)
    full = optimize("H100", 256, Constraints(), GRID, workers=1, objective=objective, bounded=False)  # all costed
    feasible = [c for c in full.candidates if c.feasible]
    assert result.best.index == min(feasible, key=lambda c: order(c, objective)).index
    value = {"cluster": lambda c: c.capex_usd, "compute": lambda c: c.network_capex_usd,
             "tco": lambda c: c.tco_usd, "gpu_hour": usd_per_gpu_hour}[objective]
    assert round(value(result.best), 2) == round(min(value(c) for c in feasible), 2)


def test_tco_and_cost_per_gpu_hour_are_the_plans():
    result = optimize("H100", 256, Constraints(), GRID, workers=1, objective="tco")
    p = result.best_plan
    assert result.best.tco_usd == pytest.approx(p.cost.tco_usd, abs=0.01)
    assert usd_per_gpu_hour(result.best) == pytest.approx(
        p.cost.tco_usd / (p.resolved.gpus * p.cost.tco_years * HOURS_PER_YEAR))
    assert result.summary()["best"]["metrics"]["tco_usd"] == round(p.cost.tco_usd, 2)


def test_days_needs_a_job_and_the_serving_cost_a_target():
    with pytest.raises(InputError, match="needs a training job"):
        optimize("H100", 256, Constraints(), GRID, workers=1, objective="days")
    with pytest.raises(InputError, match="needs a serving target"):
        optimize("H100", 256, Constraints(), GRID, workers=1, objective="usd_per_mtok")
    with pytest.raises(InputError, match="objective must be one of"):
        optimize("H100", 256, Constraints(), GRID, workers=1, objective="cheap")
    assert set(OBJECTIVES) == {"cluster", "compute", "tco", "gpu_hour", "days", "usd_per_mtok"}


def test_days_objective_picks_the_fastest_and_the_front_is_capex_against_days(with_job):
    result = optimize("H100", 256, Constraints(job=JOB), GRID, workers=1, objective="days")
    feasible = [c for c in result.candidates if c.feasible]
    assert result.best.days == min(c.days for c in feasible)
    assert [c.index for c in result.pareto] == [c.index for c in pareto_front(feasible, "days", "cluster")]
    assert "(days to train the job), the lowest of" in result.explanation[0]


# --- the job's split, searched with the fabric ----------------------------------------------------

def test_every_candidates_days_are_its_own_fastest_split(with_job):
    """The cached split search (by what it reads) gives each feasible candidate exactly what a fresh split search
    of its own plan gives."""
    feasible = [c for c in with_job.candidates if c.feasible]
    assert feasible
    for c in feasible[:: max(1, len(feasible) // 25)]:
        fresh = choose_split(plan(c.design), JOB, search_ep=JOB.model.is_moe).best
        assert (c.split[0], c.split[1], c.split[2]) == (fresh.tp, fresh.pp, fresh.ep)
        assert c.days == fresh.estimate.days_to_train and c.step_s == fresh.estimate.step_time_s


def test_a_mixture_of_experts_jobs_split_skips_only_what_its_bound_rules_out():
    """Experts split too (ep searched): estimating the splits in the order of their compute + bubble bound and
    stopping past the fastest gives every candidate the full split search's answer."""
    moe = parse_job({"model": "mixtral-8x7b", "tokens_to_train": 1e12})
    grid = Grid(fabrics=("infiniband",), switches=("QM9700",), oversubscription=(1.0, 2.0, 3.0), uplinks=("same",))
    result = optimize("H100", 256, Constraints(job=moe), grid, workers=1)
    feasible = [c for c in result.candidates if c.feasible]
    assert len({c.split[:3] for c in feasible}) >= 1 and any(c.split[2] > 1 for c in feasible)
    for c in feasible[:: max(1, len(feasible) // 20)]:
        fresh = choose_split(plan(c.design), moe, search_ep=True).best
        assert c.split[:3] == (fresh.tp, fresh.pp, fresh.ep) and c.days == fresh.estimate.days_to_train


def test_the_fastest_split_is_never_slower_than_the_pages_default(with_job):
    from core.perf.training import estimate, fitting_split

    for c in [c for c in with_job.candidates if c.feasible][:10]:
        p = plan(c.design)
        split = fitting_split(p, JOB.model, cp=1, micro_batch=1, vp=1, job_gpus=None)
        default = estimate(p, JOB.model_copy(update={"tp": split["tp"], "pp": split["pp"], "dp": None,
                                                     "global_batch": split["global_batch"]}))
        assert c.days <= default.days_to_train * (1 + 1e-12)


def test_cheapest_design_that_trains_within_the_days_is_one_question(with_job):
    """A limit on days: the winner is the cheapest candidate whose fastest split trains within it (brute force
    over the unconstrained search's candidates), and it says its split."""
    days = sorted(c.days for c in with_job.candidates if c.feasible)
    limit = days[len(days) // 3]
    result = optimize("H100", 256, Constraints(job=JOB, max_days=limit), GRID, workers=1)
    able = [c for c in with_job.candidates if c.feasible and c.days <= limit * (1 + 1e-9)]
    assert result.best.index == min(able, key=lambda c: order(c, "cluster")).index
    assert result.best.days <= limit and result.summary()["best"]["metrics"]["split"]["tp"] == result.best.split[0]
    slower = [c for c in with_job.candidates if c.feasible and c.days > limit * (1 + 1e-9)]
    assert slower and result.rejected["maximum days to train"] == len(slower)


def test_the_split_cache_is_bounded():
    """The split searches are a stage of what the estimates read of a plan (``jobsplit.fastest_split``): bounded
    in entries and bytes, and plans that differ only in price share one entry."""
    cache = jobsplit.fastest_split.cache
    assert cache.max_entries == jobsplit.CACHE_ENTRIES and cache.max_bytes > 0
    jobsplit.fastest_split.cache_clear()
    cheap, dear = plan(Design(gpu="H100", gpus=128)), plan(Design(gpu="H100", gpus=128, price_overrides={"H100": 1.0}))
    assert cheap.cost.capex_usd != dear.cost.capex_usd
    assert jobsplit.fastest(cheap, JOB) == jobsplit.fastest(dear, JOB) and len(cache) == 1


# --- progress --------------------------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_progress_ends_on_the_answer(workers):
    """Candidates decided only grow, and the last report's best and front are the answer's (serial and split over
    worker processes)."""
    seen = []
    grid = Grid(oversubscription=(1.0, 2.0), planes=(1,), plane_modes=("per-port",))
    result = optimize("H100", 256, Constraints(max_oversubscription=1.5), grid, workers=workers,
                      on_progress=seen.append)
    assert seen and [s.done for s in seen] == sorted(s.done for s in seen)
    last = seen[-1]
    assert (last.done, last.total, last.feasible) == (result.considered, result.considered, result.feasible)
    assert last.best.index == result.best.index
    assert [c.index for c in last.front] == [c.index for c in result.pareto]
    assert all(s.best is None or s.best.resolved is None for s in seen)  # small enough to send to a page


def test_the_command_line_bar_draws_and_erases_on_a_terminal_only(capsys):
    from core.analysis.searchwatch import SearchProgress
    from core.cli import main
    from core.cli.optimize import ProgressBar

    stream = io.StringIO()
    bar = ProgressBar(stream)
    result = optimize("H100", 256, Constraints(), GRID, workers=1)
    bar(SearchProgress(done=10, total=40, feasible=3, best=result.best, front=(), objective="cluster",
                       metric="busbw_gbytes", seconds=1.0))
    bar.close()
    text = stream.getvalue()
    assert "[######..................] 10 of 40 candidates, 3 meet every constraint; best so far $" in text
    assert text.endswith("\r\033[K")
    # not a terminal (pytest captures stderr): no bar, and JSON stays JSON
    code = main(["optimize", "--gpu", "H100", "--gpus", "256", "--fabric", "infiniband", "--oversubscription-grid",
                 "1", "--workers", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0 and "candidates" not in err and json.loads(out)["best"]


def test_the_command_line_names_the_objective_and_the_winners_split(capsys):
    from core.cli import main

    code = main(["optimize", "--gpu", "H100", "--gpus", "256", "--fabric", "infiniband", "--oversubscription-grid",
                 "1", "--workers", "1", "--model", "llama3-8b", "--tokens", "1T", "--max-days", "30",
                 "--objective", "gpu_hour"])
    out = capsys.readouterr().out
    assert code == 0 and "cost per GPU-hour $" in out and "job's split   tp " in out
    code = main(["optimize", "--gpu", "H100", "--gpus", "256", "--objective", "days", "--workers", "1"])
    assert code != 0 and "needs a training job" in capsys.readouterr().err


# --- one design in words ------------------------------------------------------------------------------

def test_labels_and_the_review_pack_say_a_design_the_same_way():
    from core.formats import report

    result = optimize("H100", 2048, Constraints(), Grid(switches=("QM9700",), port_speeds=(400,), planes=(1,),
                                                          topologies=("rail-only",), oversubscription=(3.0,)),
                      workers=1)
    label = design_label(result.best)
    assert label.startswith("2-tier QM9700 InfiniBand, rail-only, 3:1 at the leaf, bisection ratio 2.67:1, 400G ports")
    assert label == design_words(result.best.design, result.best.tiers, total="2.67:1")
    p = result.best_plan
    words = plan_words(p)
    assert words.startswith(label.split(", 1 plane")[0]) and report.design_title(p).endswith(words)
    assert report._design_line(p).endswith(words)
    with language("zh"):
        assert "2 层" in design_label(result.best) and "叶交换机 3:1" in design_label(result.best)


def test_mixed_tiers_name_both_models():
    d = Design(gpu="H100", gpus=4096, fabric="ethernet", leaf_switch="TH5", spine_switch="TH6", port_speed_gbps=400)
    assert design_words(d, 2).startswith("2-tier TH5 leaves and TH6 spines Ethernet RoCE")
    assert design_words(d, 1).startswith("1-tier TH5 Ethernet RoCE")


# --- the page ---------------------------------------------------------------------------------------

def test_the_page_shows_what_the_search_found_so_far_and_cancels(monkeypatch):
    """No wait: the progress line with Cancel, then (once the worker has reported) the candidates decided, the
    best and the front so far; Cancel stops the search and says so."""
    from tests import pagetest
    from webui import jobs

    monkeypatch.setattr(jobs, "INLINE_WAIT_S", 0.0)
    monkeypatch.setattr(jobs, "FIRST_WAIT_S", 0.0)
    run = jobs.runner()
    before = {*run._outcomes, *(j.key for j in (*run._running, *run._queued))}
    link = {"v": "1", "g": "H100", "ng": "2048", "opt_run": "1", "opt_os": "3"}
    at = pagetest.open_page("../pages/7_Optimize.py", link)
    mine = [j for j in (*run._running, *run._queued) if j.key not in before and j.kind == "optimize"]
    if not mine:
        pytest.skip("the search finished before the page was drawn")
    job = mine[0]
    deadline = time.monotonic() + 60
    # the first reports may come from the checks before the bounds (no candidate costed yet, so no best)
    while (job.found is None or getattr(job.found, "best", None) is None) and job.state != jobs.DONE \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    if job.state == jobs.DONE:
        pytest.skip("the search finished before it reported")
    at.run()
    text = " ".join(e.value for e in at.caption) + " ".join(e.value for e in at.markdown)
    assert "candidates decided" in text and "meet every constraint so far" in text, text[:2000]
    assert "Best so far" in text and any("Pareto front so far" in e.value for e in at.markdown)
    cancel = [b for b in at.button if b.label == "Cancel"]
    assert cancel
    cancel[0].click().run()
    assert job.wait(10) and job.state == jobs.STOPPED and "Cancelled" in job.problem
    assert any("Cancelled the optimizer search" in e.value for e in at.warning), [e.value for e in at.warning]
    assert math.isfinite(job.elapsed())


def test_the_front_chart_names_its_money_and_fits_days_without_zero(with_job):
    from core.figures.optimize import pareto_figure

    result = optimize("H100", 256, Constraints(job=JOB), GRID, workers=1, objective="tco")
    fig = pareto_figure(result)
    assert fig.layout.title.text.startswith("Total cost of ownership against performance")
    days = [c.days for c in result.candidates if c.feasible]
    low, high = fig.layout.yaxis.range
    assert 0 < low <= min(days) and max(days) <= high
    assert fig.layout.xaxis.title.text.startswith("Total cost of ownership [USD]")
