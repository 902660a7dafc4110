"""The CLI's training and serving estimates on a design with pods run on one pod and charge it its GPUs' share of
the whole design's TCO, as the Performance and Inference pages and the review pack do (a reviewer found
``python -m core train`` charging pod 1 alone: $357,263 where the page said $403,967)."""

from __future__ import annotations

import contextlib
import io
import pytest
from conftest import cli_json

from core.analysis.whole import whole_plan
from core.design import Design
from core.plan import SECONDS_PER_TCO_YEAR, plan

MIXED = ["--gpu", "H100", "--nodes", "64", "--pods", "B200:32:800"]


@pytest.fixture(scope="module")
def whole():
    return whole_plan(plan(Design(gpu="H100", nodes=64, pods="B200:32:800")))


@pytest.mark.parametrize("pod,gpus", [(1, 512), (2, 256), (9, 512)])  # a pod past the last is pod 1
def test_train_charges_the_pods_share_of_the_whole_tco(whole, pod, gpus):
    s = cli_json("train", *MIXED, "--pod", str(pod), "--format", "json")
    assert s["gpus"] == gpus and s["cluster_gpus"] == gpus
    assert s["pod"]["pod"] == (pod if pod <= 2 else 1)
    assert f"pod {s['pod']['pod']}" in s["pod"]["note"]
    per_gpu_s = whole.cost.tco_usd / (whole.cost.tco_years * SECONDS_PER_TCO_YEAR * 768)  # 768 GPUs in all
    assert s["cost_usd"] == pytest.approx(per_gpu_s * gpus * s["days_to_train"] * 86400, rel=1e-3)


def test_serve_runs_on_the_chosen_pod():
    s = cli_json("serve", *MIXED, "--pod", "2", "--format", "json")
    assert s["cluster_gpus"] == 256 and s["pod"]["pod"] == 2


def test_without_pods_there_is_no_pod_note():
    assert "pod" not in cli_json("train", "--gpu", "H100", "--nodes", "8", "--format", "json")


@pytest.mark.parametrize("lang, job, deployment", [("en", "pod the job runs on", "pod the deployment runs on"),
                                                   ("zh", "作业运行所在的 Pod", "部署运行所在的 Pod")])
def test_serves_pod_option_names_a_deployment(capsys, lang, job, deployment):
    """``serve --pod``'s help said "pod the job runs on": a serving deployment is not a job."""
    from core.cli import main

    for command, words in (("train", job), ("serve", deployment)):
        with pytest.raises(SystemExit):
            main(["--lang", lang, command, "--help"])
        assert words in " ".join(capsys.readouterr().out.split())


def test_availability_cli_rounds_as_the_page_and_the_pack():
    """The Resilience page and the review pack show the expected usable GPUs with one decimal and the failures a
    day by ``core.units.number``; the CLI says the same (it said "usable 32" and "0.02 failures" for 31.8 and
    0.0185)."""
    from core.analysis.availability import availability
    from core.cli import main
    from core.i18n import number
    from core import units

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["availability", "--gpu", "H100", "--nodes", "4"]) == 0
    a = availability(plan(Design(gpu="H100", nodes=4)))
    text = out.getvalue()
    assert f"usable {number(a.expected_gpus_usable, 1)}," in text
    assert f"{units.number(a.interruptions_per_day)} failures a day" in text
    assert "1 nodes" not in text


@pytest.mark.parametrize("lang,args,said", [
    ("en", MIXED + ["--pod", "9"], "warning: --pod 9: this design has 2 pods. The {en} runs on pod 1: H100, 64 nodes"),
    ("zh", MIXED + ["--pod", "9"], "--pod 9：本设计只有 2 个 Pod。{zh}运行在 Pod 1 上：H100"),
    ("en", ["--gpu", "H100", "--nodes", "8", "--pod", "2"],
     "warning: --pod 2: this design has no pods, so the option has no effect"),
    ("zh", ["--gpu", "H100", "--nodes", "8", "--pod", "2"], "--pod 2"),
])
@pytest.mark.parametrize("command", ["train", "serve"])
def test_a_pod_past_the_last_is_said_not_silently_pod_one(command, lang, args, said):
    """``--pod`` past the last pod ran on pod 1 and, without pods, did nothing, with no word (a reviewer's finding):
    it is said on stderr, in the request's language, and the estimate still runs (pod 1, or the one fabric). The
    pod it runs on is named as the workload's pod sentence names it (``core.analysis.whole.RUNS_ON``): ``serve``'s
    is a deployment, not a job."""
    from core.cli import main

    workload = {"train": {"en": "job", "zh": "作业"}, "serve": {"en": "deployment", "zh": "部署"}}[command]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["--lang", lang, command, *args]) == 0
    assert said.format(**workload) in err.getvalue() and err.getvalue().count("--pod") == 1
    if command == "serve":
        assert "job" not in err.getvalue() and "作业" not in err.getvalue()
    if lang == "zh":
        assert "warning" not in err.getvalue() and "no effect" not in err.getvalue()
    quiet = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(quiet):
        assert main(["--lang", lang, command, *[a for a in args if a not in ("--pod", "9", "2")] , "--pod", "1"]) == 0
    assert "--pod" not in quiet.getvalue()
