"""``python -m core failure --model`` and ``load --pattern job`` take the split ``train`` takes when --tp / --pp are
not given (``core.cli.common.split_job`` -> ``core.perf.training.default_split``): the fastest that fits, as the
Performance and Resilience pages (``core.perf.jobform``). Before, both defaulted to tp 8 pp 1, so the same design's
healthy step differed (torus 512 H100: failure 18.410 s, train 16.460 s)."""

from __future__ import annotations

import pytest

from tests.conftest import cli_json as _cli_json


def cli_json(*argv) -> dict:
    return _cli_json(*argv, "--format", "json")

DESIGNS = {"default": [], "torus 512": ["--topology", "torus", "--gpus", "512"],
           "Dragonfly+ 4096": ["--topology", "dragonfly", "--gpus", "4096"]}
FAIL = {"default": "leaf:1", "torus 512": "link:1", "Dragonfly+ 4096": "leaf:1"}


@pytest.mark.parametrize("name", list(DESIGNS))
def test_failure_healthy_step_is_trains_step(name):
    design = DESIGNS[name]
    train = cli_json("train", *design, "--model", "llama3-70b")
    failure = cli_json("failure", *design, "--model", "llama3-70b", "--fail", FAIL[name])
    assert failure["healthy"]["step_time_s"] == pytest.approx(train["step_time_s"], rel=1e-4)


def test_torus_default_split_is_not_tp8_pp1():
    """The torus of 512 H100s: train's fastest split is tp 4 pp 4 (16.46 s), not the old default tp 8 pp 1; given
    --tp 8 --pp 1, failure times that split as train does."""
    design = DESIGNS["torus 512"]
    train = cli_json("train", *design, "--model", "llama3-70b")
    assert (train["parallelism"]["tp"], train["parallelism"]["pp"]) != (8, 1)
    pinned = cli_json("train", *design, "--model", "llama3-70b", "--tp", "8", "--pp", "1")
    failure = cli_json("failure", *design, "--model", "llama3-70b", "--tp", "8", "--pp", "1", "--fail", "link:1")
    assert failure["healthy"]["step_time_s"] == pytest.approx(pinned["step_time_s"], rel=1e-4)
    assert pinned["step_time_s"] > train["step_time_s"]


def _args(*argv):
    from core.cli import build_parser

    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize("model", ["llama3-70b", "mixtral-8x7b"])
def test_load_job_pattern_takes_trains_split(model):
    """The job pattern's job is the one train estimates: tp, pp, ep and global batch (a mixture of experts' ep
    searched with the split, as train searches it)."""
    from core.analysis.loadpods import design_job_plan
    from core.cli.load import _job
    from core.plan import plan

    design = ["--topology", "dragonfly", "--gpus", "4096"]
    train = cli_json("train", *design, "--model", model)
    args = _args("load", *design, "--pattern", "job", "--model", model)
    from core.cli.common import design_from_args

    job = _job(args, design_job_plan(plan(design_from_args(args))))
    split = train["parallelism"]
    assert (job.tp, job.pp, job.ep, job.global_batch) == (split["tp"], split["pp"], split["ep"],
                                                          train["global_batch"])


def test_split_help_says_the_default_rule():
    from core.cli import build_parser

    for command in ("failure", "load"):
        parser = build_parser()
        sub = next(a for a in parser._actions if a.dest == "command" or getattr(a, "choices", None) and
                   command in (a.choices or {}))
        tp = next(a for a in sub.choices[command]._actions if a.dest == "tp")
        assert tp.default is None and "the fastest split that fits" in tp.help


def test_a_job_whose_global_batch_is_no_multiple_of_dp_is_said():
    """The pods' job note (``core.analysis.loadpods``) still says a given job's batch that dp does not divide:
    1,024 over dp = 768 / 8 = 96 is estimated at 1,056."""
    from core.analysis.loadpods import design_job_plan, design_link_load
    from core.design import Design
    from core.perf.training import model_preset, parse_job
    from core.plan import plan

    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    job = parse_job(dict(model=model_preset("llama3-70b"), tp=8, pp=1, gpus=design_job_plan(p).resolved.gpus))
    notes = design_link_load(p, "job", "rail", job=job).notes
    assert any("global batch of 1,056" in note for note in notes)
