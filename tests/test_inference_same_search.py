"""The Inference page asks the serving search what ``python -m core serve`` asks (review45 2.2), and serves each
compared design with that design's own search (review45 2.1), naming each bar's split."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from core import units
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
    assert set(bars) == {"GB200-NVL72, as many GPUs in whole racks", "H100, Ethernet RoCE non-blocking"}
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
    assert [c.split("<br>")[0] for c in bar.customdata] == ["split: " + describe(e.deployment) for _l, e in results]
    assert all(c.endswith(" used") for c in bar.customdata)  # and the GPUs each uses (words2)
    assert "%{customdata}" in bar.hovertemplate


def _cli_serve(*args: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["serve", *args, "--format", "json"]) == 0
    return json.loads(out.getvalue())


def test_every_bar_is_the_clis_serve_for_its_design_at_the_shared_rate():
    """review46 1: on 16,384 H100 the "this design" bar was the page's own deployment (all 2,048 nodes at the largest
    rate within the targets: TTFT 1,098 ms) while the RoCE bar was the fewest GPUs at that rate (1,139 prefill nodes,
    1,996 ms), so the bars differed by the rule, not the fabric. Each bar is now ``serve --rate R`` of its design
    (this design: 15,256 of 16,384 GPUs, TTFT 1,997 ms), and the table says how many GPUs each one uses."""
    design = Design(gpus=16384)
    rate = inference.serve(design, plan(design), dict(link.DEFAULTS)).here.rate
    table = open_page({"v": "1", "ng": "16384"}).dataframe[-1].value.set_index("Design")
    designs = {"this design": [], "GB200-NVL72, as many GPUs in whole racks": ["--gpu", "GB200-NVL72"],
               "H100, Ethernet RoCE non-blocking": ["--fabric", "ethernet", "--oversubscription", "1"]}
    assert set(table.columns) == set(designs)
    for label, args in designs.items():
        cli = _cli_serve("--gpus", "16384", *args, "--rate", repr(rate))
        assert table.loc["GPUs used", label] == f"{cli['gpus']:,} of {cli['cluster_gpus']:,}", label
        assert table.loc["Prefill split", label].startswith(f"{cli['prefill']['nodes']:,} nodes"), label
        assert table.loc["Decode split", label].startswith(f"{cli['decode']['nodes']:,} nodes"), label
        assert table.loc["TTFT [ms]", label] == units.number(cli["ttft_s"] * 1e3), label
        assert table.loc["TPOT [ms]", label] == units.number(cli["tpot_s"] * 1e3), label
    # this design's bar is not the page's all-node deployment: the rule is the others' (fewest GPUs at the rate)
    assert table.loc["GPUs used", "this design"] == "15,256 of 16,384"
    assert table.loc["GPUs used", "GB200-NVL72, as many GPUs in whole racks"] == "6,828 of 16,416"  # 1,707 of 4,104 trays
