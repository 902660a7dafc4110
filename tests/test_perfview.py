"""What the performance estimates read of a plan (``core.analysis.perfview.PerfPlan``) covers every family and
scale-up: the optimizer's serving and training steps, run on the plan's view (reading outside it raises), give a
fresh search's answer on the plan itself, for a torus, a two-level NVLink domain, mesh and Unified Bus systems, a
Dragonfly+, a three-tier Clos, a cloud transport and a calibrated design."""

from __future__ import annotations

import pickle

import pytest

from core.analysis import jobsplit, servingstep
from core.analysis.perfview import UNIT_COST, unpriced
from core.design import Design
from core.errors import FabricPlannerError
from core.memo import uncached
from core.perf.serving import parse_deployment
from core.perf.serving_search import search
from core.perf import congestion
from core.perf.collectives import nccl_release_now
from core.perf.training import choose_split, parse_job
from core.plan import plan
from core.presets import find_preset

DESIGNS = {
    "torus": Design(gpu="H100", nodes=64, topology="torus", torus_dims="4x4x4"),
    "nvl576": Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576, nvlink_rack_gpus=36),
    "mi300x": Design(gpu="MI300X", gpus=256),
    "cloudmatrix": Design(gpu="CloudMatrix384", gpus=768),
    "dragonfly+": Design(gpu="H100", topology="dragonfly", switch="QM9700", nodes=128, group_leaves=8),
    "three-tier": Design(gpu="H100", gpus=16384, tiers="3"),
    "efa": find_preset("aws-p5-efa").design,
    "calibrated": Design(gpu="H100", gpus=256, fabric="ethernet", calibration="net=0.8,nvlink=0.9,lat=2"),
}
JOB = parse_job({"model": "mixtral-8x7b", "tokens_to_train": 1e12})
TARGET = parse_deployment({"model": "llama3-8b", "mode": "aggregated", "precision": "fp8",
                           "workload": {"input_tokens": 1000, "output_tokens": 200, "rate": 4.0, "ttft_ms": 3000,
                                        "tpot_ms": 100}})


def _answer(fn):
    try:
        return fn()
    except FabricPlannerError as exc:
        return type(exc).__name__


@pytest.mark.parametrize("name", DESIGNS)
def test_the_steps_on_the_view_are_the_searches_on_the_plan(name):
    try:
        p = plan(DESIGNS[name])
    except FabricPlannerError:
        pytest.skip("not buildable in this catalog")
    view = unpriced(p)
    assert view.cost == UNIT_COST and hash(view) == hash(unpriced(p))
    for made in (view, jobsplit.bounds_view(view)):  # a worker process may send one
        assert pickle.loads(pickle.dumps(made)) == made
    with uncached():
        fresh = _answer(lambda: choose_split(p, JOB, search_ep=True).best)
        split = _answer(lambda: jobsplit.fastest(p, JOB))
        if isinstance(fresh, str):
            assert split == fresh
        else:
            assert (split.tp, split.pp, split.ep, split.step_s, split.days) == (
                fresh.tp, fresh.pp, fresh.ep, fresh.estimate.step_time_s, fresh.estimate.days_to_train)
        best = _answer(lambda: search(p, TARGET.model, TARGET.workload, mode=TARGET.mode, precision=TARGET.precision,
                                      kv_precision=TARGET.kv_precision, ways_out=False).best_estimate)
        served = servingstep.served(view, TARGET, congestion.current(), nccl_release_now())
    assert served == (None if best is None or isinstance(best, str) else (best.gpus, best.output_tokens_per_s))


@pytest.mark.parametrize("name", ["three-tier", "dragonfly+"])
def test_the_cached_split_follows_the_placement_and_routing_in_force(name):
    """The cached split search is keyed by the assumptions it runs under: after a run with topology-ordered
    placement, a scattered one (which reads the leaf groups' and pods' counts) gets its own answer, equal to a fresh
    search (a cache keyed by the plan alone would return the first)."""
    p = plan(Design(gpu="H100", gpus=2048, oversubscription=3) if name == "three-tier" else DESIGNS[name])
    for routing, placement in (("auto", "topo"), ("auto", "scatter"), ("ecmp", "scatter")):
        with congestion.assumptions(routing, placement):
            split = jobsplit.fastest(p, JOB)
            fresh = choose_split(p, JOB, search_ep=True).best
        assert (split.tp, split.pp, split.ep, split.step_s) == (
            fresh.tp, fresh.pp, fresh.ep, fresh.estimate.step_time_s), (routing, placement)
