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


@pytest.mark.slow
def test_the_optimize_page_settings_carry_the_serving_target():
    """The Optimize page's serving rate (link ``opt_srate``) makes the Inference page's settings the target: the
    link round-trips, and the search job gives a design whose deployment serves the rate."""
    import json

    from core.design import Design
    from core.formats import inferencelink, optimizelink
    from webui import jobwork

    values, warnings = optimizelink.decode({"opt_srate": "2", "opt_susd": "5", "opt_fab": "infiniband"})
    assert not warnings and values["srate"] == 2.0 and optimizelink.encode(values) == {
        "opt_srate": "2", "opt_susd": "5", "opt_fab": "infiniband"}
    serving = {**inferencelink.DEFAULTS, "mode": "aggregated"}
    c = optimizelink.constraints(values, serving)
    assert c.serving.workload.rate == 2.0 and c.serving.mode == "aggregated" and c.max_usd_per_million_tokens == 5
    assert optimizelink.constraints({**values, "srate": 0.0}, serving).serving is None
    key = json.dumps({"values": {**{k: list(v) if isinstance(v, tuple) else v for k, v in values.items()},
                                 "topo": None}, "design": Design(gpu="H100", nodes=4).model_dump_json(), "gpus": 32,
                      "serving": serving, "max_gpus": 4096}, sort_keys=True)
    result = jobwork.optimize_search(key)
    assert result.best is not None and result.metric == "usd_per_mtok" and result.best.usd_per_mtok <= 5


def test_the_serving_step_is_the_search_on_the_plan_at_any_price():
    """The optimizer's serving step (``core.analysis.servingstep.served``) runs the search on what it reads of a
    plan but its price (``core.analysis.perfview.unpriced``): over a sample of the optimizer's grid, its answer is
    a fresh search's on the plan itself (GPUs and output tokens/s), and designs that differ only in price share
    one entry."""
    import random

    from core.analysis import servingstep
    from core.analysis.optimize import candidate_designs
    from core.analysis.perfview import unpriced
    from core.perf import congestion
    from core.perf.collectives import nccl_release_now
    from core.errors import FabricPlannerError
    from core.plan import plan

    target = _target(2.0)
    designs = candidate_designs("H100", 32, Constraints(), Grid())
    random.Random(7).shuffle(designs)
    checked = 0
    for design in designs[:60]:
        try:
            p = plan(design)
        except FabricPlannerError:
            continue
        fresh = search(p, target.model, target.workload, mode=target.mode, precision=target.precision,
                       kv_precision=target.kv_precision, ways_out=False).best_estimate
        found = servingstep.served(unpriced(p), target, congestion.current(), nccl_release_now())
        assert (found is None) == (fresh is None)
        if found is not None:
            assert found == (fresh.gpus, fresh.output_tokens_per_s)
            gpus, usd = servingstep.price(p, target)
            assert gpus == fresh.gpus and usd == pytest.approx(fresh.usd_per_million_output_tokens, rel=1e-9)
            checked += 1
    assert checked >= 8
    dear = plan(designs[0].model_copy(update={"price_overrides": {"H100": 1.0}}))
    assert unpriced(dear) == unpriced(plan(designs[0]))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cli_writes_the_front_and_the_duration_as_the_page(monkeypatch, capsys, lang):
    """``optimize``'s front column is the page's money with cents (``usd(cents=True)``, was a hand-made
    ``:,.3f``) and its duration the page's (``optimizewords.searched_words``: ``units.number``; the CLI wrote
    ``.2f``, the page ``.1f``)."""
    from core import units
    from core.analysis.optimizewords import searched_words
    from core.cli import main as cli_main
    from core.analysis import optimize as engine
    from core.i18n import language, usd

    result = optimize("H100", 128, Constraints(serving=_target(4.0)), GRID, workers=1)
    monkeypatch.setattr(engine, "optimize", lambda *a, **k: result)
    assert cli_main(["--lang", lang, "optimize", "--gpu", "H100", "--gpus", "128"]) == 0
    out = capsys.readouterr().out
    with language(lang):
        assert all(usd(c.usd_per_mtok, cents=True) in out for c in result.pareto)
        assert searched_words(result) in " ".join(out.split())
        assert ("Searched in " if lang == "en" else "") + units.number(result.seconds) in searched_words(result)
