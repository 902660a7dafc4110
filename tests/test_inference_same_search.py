"""The Inference page asks the serving search what ``python -m core serve`` asks (review45 2.2), and serves each
compared design with that design's own search (review45 2.1), naming each bar's split."""

from __future__ import annotations

import contextlib
import io

import pytest

from core.cli import main
from core.design import Design
from core.figures.serving import comparison_rows, time_figure
from core.formats import inferencelink as link
from core.perf import servingform
from core.perf.serving_search import describe
from core.plan import plan
from tests import pagetest
from tests.test_inference_page import unescape
from webui import inference

open_page = pagetest.opener("../pages/8_Inference.py")


def test_a_prompt_that_misses_ttft_shows_the_clis_reason_and_ways_out():
    """1,000,000 input tokens on the default design: the CLI finds a tp 8 prefill that meets relaxed targets; the
    page used to say only that the prompt's KV cache does not fit."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["serve", "--input-tokens", "1000000", "--output-tokens", "1"]) == 3
    cli = err.getvalue().strip().removeprefix("the deployment misses its targets: ")
    at = open_page({"v": "1", "inf_in": "1000000", "inf_out": "1"})
    page = " ".join(unescape(at.error[0].value).replace("**What would work:**", "").replace("\u2060", "").split())
    assert "relax the targets to TTFT" in page and "tp 8" in page
    assert " ".join(cli.split()) == page


@pytest.fixture(scope="module")
def served():
    design = Design()
    return design, inference.serve(design, plan(design), dict(link.DEFAULTS))


def test_each_compared_design_is_served_as_the_page_serves_that_design(served):
    """The RoCE bar is the Ethernet design served directly at this design's rate (review45: TPOT 26.4 ms on the bar
    against 16.2 ms served directly, a different split)."""
    design, s = served
    here = s.here
    bars = dict(s.others)
    labels = {label: key for key, (label, _changes) in inference.ALTERNATIVES.items()}
    assert set(bars) == {"GB200-NVL72, same GPUs", "H100, Ethernet RoCE non-blocking"}
    for label, bar in bars.items():
        key = labels[label]
        alt = plan(inference.alternative_design(design, key, plan(design).resolved.fabric, here.gpus))
        direct = servingform.estimate_on(alt, {**link.DEFAULTS, "load": "rate", "rate": here.rate})
        assert bar.deployment == direct.deployment, label
        assert bar.tpot_s == pytest.approx(direct.tpot_s) and bar.ttft_s == pytest.approx(direct.ttft_s)
    roce = dict(s.others)["H100, Ethernet RoCE non-blocking"]
    assert roce.tpot_s * 1e3 == pytest.approx(here.tpot_s * 1e3, rel=0.05)  # the same split: no 10 ms "penalty"


def test_the_table_and_the_hover_name_each_bars_split(served):
    _design, s = served
    results = [("this design", s.here), *s.others]
    rows = comparison_rows(results)
    here = s.here.deployment  # disaggregated: prefill 2 nodes tp 1, decode 2 nodes tp 4 pp 2 (the CLI's answer)
    assert (rows[0]["Prefill split"], rows[0]["Decode split"]) == (
        f"{here.prefill.nodes} nodes, tp 1", f"{here.decode.nodes} nodes, tp 4 pp 2")
    for row, (_l, e) in zip(rows, results):
        assert row["Decode split"].startswith(f"{e.deployment.decode.nodes} node")
    fig = time_figure(dict(results))
    bar = next(t for t in fig.data if t.type == "bar" and t.customdata is not None)
    assert list(bar.customdata) == ["split: " + describe(e.deployment) for _l, e in results]
    assert "%{customdata}" in bar.hovertemplate
