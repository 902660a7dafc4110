"""The split search over tp, pp, vp, cp, ep and the ZeRO stage (``core.perf.training.choose_split``)."""

import json

import pytest
from conftest import run_cli

from core.design import Design
from core.errors import DesignError
from core.perf.training import MAX_SEARCH_VP, MIN_CP_CHUNK, choose_split, parse_job
from core.plan import plan

FULL = dict(search_vp=True, search_cp=True, search_zero=True)


@pytest.fixture(scope="module")
def h100_64():
    return plan(Design(gpu="H100", gpus=64))


def test_full_search_picks_the_fastest_that_fits_and_never_loses_to_the_tp_pp_search(h100_64):
    job = parse_job(dict(model="llama3-8b", seq_len=16384, global_batch=256, gpus=64))
    narrow = choose_split(h100_64, job)
    full = choose_split(h100_64, job, **FULL)
    fitting = [c for c in full.candidates if c.fits]
    assert full.best.estimate.step_time_s == min(c.estimate.step_time_s for c in fitting)
    assert full.best.estimate.step_time_s <= narrow.best.estimate.step_time_s
    assert len({c.key() for c in full.candidates}) == len(full.candidates)  # no split estimated twice
    assert {"tp", "pp", "vp", "cp", "zero"} <= set(full.searched())
    best = full.best
    got = best.estimate.job
    assert (got.tp, got.pp, got.vp, got.cp, got.zero) == (best.tp, best.pp, best.vp, best.cp, best.zero)


def test_searched_vp_splits_the_layers_evenly_and_cp_keeps_long_chunks(h100_64):
    job = parse_job(dict(model="llama3-8b", seq_len=16384, global_batch=256, gpus=64))
    full = choose_split(h100_64, job, search_vp=True, search_cp=True)
    layers = job.model.layers
    for c in full.candidates:
        assert c.vp == 1 or (c.pp > 1 and layers % (c.pp * c.vp) == 0 and c.vp <= MAX_SEARCH_VP)
        assert c.cp == 1 or job.seq_len // c.cp >= MIN_CP_CHUNK
    assert {c.cp for c in full.candidates} == {1, 2, 4, 8}
    assert {c.vp for c in full.candidates} > {1}


def test_zero_stage_search_rescues_a_split_that_runs_out_of_memory():
    one_node = plan(Design(gpu="H100", gpus=8))
    job = parse_job(dict(model="llama3-8b", seq_len=8192, global_batch=64, gpus=8, zero_stage=0))
    with pytest.raises(DesignError):  # unsharded Adam state of 8B parameters does not fit 80 GB at tp 1 pp 1
        choose_split(one_node, job, tp=1, pp=1)
    found = choose_split(one_node, job, tp=1, pp=1, search_zero=True)
    stages = {c.zero: c for c in found.candidates}
    assert not stages[0].fits and "GiB" in stages[0].problem
    assert found.best.zero >= 1 and found.best.estimate.job.zero == found.best.zero
    assert set(stages) == {0, 1, 2, 3}  # the split that fits is tried at every stage (refinement)


def test_zero_stage_search_keeps_the_fastest_stage(h100_64):
    job = parse_job(dict(model="llama3-8b", seq_len=8192, global_batch=256, gpus=64))
    found = choose_split(h100_64, job, search_zero=True)
    best = found.best
    same_split = [c for c in found.candidates if c.fits and c.key()[:5] == best.key()[:5]]
    assert len(same_split) >= 2  # the winner was compared at other ZeRO stages
    assert best.estimate.step_time_s == min(c.estimate.step_time_s for c in same_split)


def test_cli_search_reports_the_full_split(capsys):
    code, out, _err = run_cli(capsys, "train", "--gpu", "H100", "--gpus", "64", "--model", "llama3-8b", "--seq-len",
                              "16384", "--global-batch", "256", "--search", "--explain", "--format", "json")
    data = json.loads(out)
    chosen, par = data["split_choice"]["chosen"], data["parallelism"]
    assert code == 0 and (chosen["tp"], chosen["pp"], chosen["vp"], chosen["cp"]) == (
        par["tp"], par["pp"], par["vp"], par["cp"])
    assert chosen["zero_stage"] == data["zero_stage"]
    considered = data["split_choice"]["considered"]
    assert len({c["cp"] for c in considered}) > 1 and len({c["zero_stage"] for c in considered}) > 1


def test_cli_search_keeps_what_is_given(capsys):
    code, out, _err = run_cli(capsys, "train", "--gpu", "H100", "--gpus", "64", "--model", "llama3-8b", "--cp", "2",
                              "--zero", "3", "--search", "--explain", "--format", "json")
    data = json.loads(out)
    considered = data["split_choice"]["considered"]
    assert code == 0 and {c["cp"] for c in considered} == {2} and {c["zero_stage"] for c in considered} == {3}
    assert data["parallelism"]["cp"] == 2 and data["zero_stage"] == 3


def test_cli_search_text_names_the_searched_fields(capsys):
    code, out, _err = run_cli(capsys, "train", "--gpu", "H100", "--gpus", "64", "--model", "llama3-8b", "--seq-len",
                              "16384", "--global-batch", "256", "--search")
    split = next(line for line in out.splitlines() if line.startswith("split"))
    assert code == 0 and " cp " in split and "ZeRO" in split
