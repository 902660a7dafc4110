"""``python -m core train --sharp`` reports what is modelled (leftperf 2): on a fabric whose switches do not reduce
(Ethernet, a torus) the JSON says ``"sharp": false`` with the request and the reason, the table says none and why;
on InfiniBand with SHARP switches it is modelled and said so. The Performance page's job follows the same rule
(``core.perf.placement.sharp_used``)."""

import json

import pytest

from conftest import run_cli as run
from core.design import Design
from core.perf import jobform
from core.perf.placement import SHARP_ABSENT, sharp_used
from core.plan import plan

JOB = ("train", "--gpu", "H100", "--gpus", "256", "--model", "llama3-70b", "--tp", "8", "--pp", "4",
       "--no-distributed-optimizer", "--sharp")


@pytest.mark.parametrize("design, reason", [
    (("--fabric", "ethernet"), "feature of InfiniBand switches"),
    (("--topology", "torus"), "joined node to node"),
])
def test_sharp_asked_where_switches_do_not_reduce_is_reported_as_not_modelled(capsys, design, reason):
    code, out, err = run(capsys, *JOB, *design, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["sharp"] is False and data["sharp_requested"] is True
    assert reason in data["sharp_absent"]
    assert all(c["algorithm"] != "sharp" for c in data["communication"])
    code, text, err = run(capsys, *JOB, *design)
    assert code == 0, err
    line = next(ln for ln in text.splitlines() if ln.startswith("SHARP"))
    assert "none." in line and data["sharp_absent"] in line  # the table says what the JSON says
    _c, zh_json, _e = run(capsys, "--lang", "zh", *JOB, *design, "--format", "json")
    assert zh_json == out  # machine output stays English


def test_sharp_on_quantum_infiniband_is_modelled_and_said(capsys):
    code, out, err = run(capsys, *JOB, "--fabric", "infiniband", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["sharp"] is True and data["sharp_requested"] is True and data["sharp_absent"] is None
    assert any(c["algorithm"] == "sharp" for c in data["communication"])
    code, text, _e = run(capsys, *JOB, "--fabric", "infiniband")
    assert "considered (needs the SHARP plugin" in next(ln for ln in text.splitlines() if ln.startswith("SHARP"))


def test_sharp_not_asked_prints_no_sharp_line_and_says_false(capsys):
    code, out, _e = run(capsys, *JOB[:-1], "--fabric", "ethernet", "--format", "json")
    data = json.loads(out)
    assert data["sharp"] is False and data["sharp_requested"] is False
    assert data["sharp_absent"].startswith(SHARP_ABSENT["fabric"].split(";")[0])
    _c, text, _e = run(capsys, *JOB[:-1], "--fabric", "ethernet")
    assert not any(ln.startswith("SHARP") for ln in text.splitlines())


def test_page_job_and_cli_share_the_rule():
    """The Performance page's job (``jobform.job_from_settings``) asks SHARP through ``sharp_used`` as the CLI does."""
    eth = plan(Design(gpu="H100", gpus=256, fabric="ethernet"))
    ib = plan(Design(gpu="H100", gpus=256, fabric="infiniband"))
    assert not sharp_used(eth, True) and sharp_used(ib, True) and not sharp_used(ib, False)
    settings = {"model": "llama3-70b", "seq": 8192, "gbs": 1024, "mbs": 1, "prec": "bf16", "tp": 8, "pp": 4, "cp": 1,
                "ep": 1, "vp": 1, "sharp": "1"}
    assert jobform.job_from_settings(ib, settings).sharp is True
    assert jobform.job_from_settings(eth, settings).sharp is False
