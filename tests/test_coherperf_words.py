"""Review43 findings (coherperf): the inference cards say which GPUs their tokens/s are over, the designs compared
on the Inference page run at the same request rate, and the spof lists put an HGX node's NVSwitch chip (its loss
leaves its node's GPUs unusable) under a heading that agrees, on the CLI and the Resilience page alike."""

from __future__ import annotations

import math

import pytest

from core.analysis.spof import NODE_INTERNAL, degrading_sections, single_points
from core.design import Design
from core.figures.keynumbers import serving_key_numbers
from core.formats import inferencelink as link
from core.formats import sharelink
from core.i18n import language
from core.plan import plan
from webui import inference
from conftest import run_cli


def _plan(**query):
    design, _warnings = sharelink.decode({"v": "1", **query})
    return design, plan(design)


def test_gb200_cards_say_per_gpu_in_decode_and_in_prefill_as_the_cli():
    from core.cli.serve import _throughput_lines

    _design, p = _plan(g="GB200-NVL72", n="144", nvd="144")
    from core.perf.servingform import estimate_on
    e = estimate_on(p, dict(link.DEFAULTS))
    with language("en"):
        cards = {n.key: n for n in serving_key_numbers(e)}
        cli = " ".join(_throughput_lines({**e.summary(), "balanced_prefill_decode_ratio": None}, p.resolved.system))
    assert cards["output_per_gpu"].label == "Output tokens/s per GPU in decode"
    assert cards["input_per_gpu"].label == "Input tokens/s per GPU in prefill"
    assert "output tokens/s per GPU in decode" in cli and "input tokens/s per GPU in prefill" in cli
    # the card's number is the decode pool's: over its GPUs, not the deployment's (review: 4,881 vs ~1,694)
    assert e.output_tokens_per_s_per_gpu == pytest.approx(e.output_tokens_per_s / e.decode.gpus)
    assert e.decode.gpus < e.gpus
    assert cards["output_per_gpu"].value == f"{e.output_tokens_per_s / e.decode.gpus:,.0f}"


@pytest.mark.parametrize("query", [{}, {"g": "GB200-NVL72", "n": "144", "nvd": "144"}])
def test_other_designs_are_compared_at_this_designs_request_rate(query):
    design, p = _plan(**query)
    served = inference.serve(design, p, dict(link.DEFAULTS))
    rate = served.here.rate
    assert served.others
    for _label, other in served.others:
        assert not isinstance(other, Exception)
        # the same load asked of each; a design that cannot carry it is at its saturation, its TTFT unbounded
        assert other.deployment.workload.rate == pytest.approx(rate)
        assert math.isclose(other.rate, rate, rel_tol=1e-9) or math.isinf(other.ttft_s)


def test_hgx_nvswitch_chip_is_a_node_internal_single_point_not_degrading():
    result = single_points(plan(Design(gpu="H100", nodes=64, switch="QM9700")))
    sections = dict(degrading_sections(result))
    assert [d.tier for d in sections[1]] == ["nvswitch"] and sections[1][0].effect in NODE_INTERNAL
    assert "nvswitch" not in [d.tier for d in sections[0]] and sections[0]


def test_spof_cli_lists_the_nvswitch_chip_under_a_heading_that_agrees(capsys):
    code, out, _err = run_cli(capsys, "spof", "--gpu", "H100", "--nodes", "64")
    assert code == 0
    degrading, _sep, inside = out.partition("Single points inside a node")
    assert "NVSwitch chip" in inside and "NVSwitch chip" not in degrading
    assert "cuts off no GPU):" in degrading
    assert "no one element cuts off a GPU" not in out


def test_resilience_sentences_use_the_same_sections():
    from webui.resilience_cache import spof_table

    p = plan(Design(gpu="H100", nodes=64, switch="QM9700"))
    result = single_points(p)
    _table, notes = spof_table.__wrapped__("k", "en", result, p.resolved.system, p.fabric.family) \
        if hasattr(spof_table, "__wrapped__") else spof_table("coherperf-k", "en", result, p.resolved.system,
                                                             p.fabric.family)
    nvswitch = [n for n in notes if "NVSwitch chip" in n]
    assert nvswitch and all(n.startswith("A single point inside a node, not the fabric's:") for n in nvswitch)
    assert not any(n.startswith("Degrading") and "unusable" in n for n in notes)
