"""An overloaded deployment (a request rate above what its pools serve) runs its pools saturated: it serves the
rate where the first pool saturates (``core.perf.serving.capacity``) and the requests beyond it queue without bound.
Aggregated, it served 0 requests/s (chunked prefill asked more than all of the GPUs' time, the decode step
stretched to infinity): 0 output tokens/s per GPU, 0 GB/s on the fabric and an unbounded time per output token on
the Inference page and in ``serve``; disaggregated with the prefill pool short, it claimed the rate its decode
pool could serve, more than its prefill pool does."""

from __future__ import annotations

import json
import math

import pytest

from conftest import run_cli as run
from core.design import Design
from core.perf import serving
from core.plan import plan

SPLIT = ["--ttft-ms", "0", "--tpot-ms", "0", "--decode-nodes", "4", "--decode-tp", "2"]


@pytest.fixture(scope="module")
def h100():
    return plan(Design())


def _dep(mode: str, rate: float, **pools) -> serving.Deployment:
    split = {"prefill": {"nodes": 1, "tp": 2}, "decode": {"nodes": 3, "tp": 2}} if mode == "disaggregated" else \
        {"decode": {"nodes": 4, "tp": 2}}
    return serving.parse_deployment({"model": "llama3.3-70b", "mode": mode, "precision": "fp8", **split, **pools,
                                     "workload": {"rate": rate}})


@pytest.mark.parametrize("mode", ["aggregated", "disaggregated"])
def test_an_overloaded_deployment_serves_its_saturation_rate(h100, mode):
    dep = _dep(mode, 10_000.0)
    e = serving.estimate(h100, dep)
    top = serving.capacity(h100, dep)
    assert e.overloaded and e.warnings and math.isinf(e.ttft_s) and not e.meets_slo
    assert e.rate == pytest.approx(top, rel=1e-6)  # what the pools serve, saturated: not 0, not the rate asked
    assert math.isfinite(e.tpot_s) and e.output_tokens_per_s_per_gpu > 0 and e.input_tokens_per_s_per_gpu > 0
    assert math.isfinite(e.usd_per_million_output_tokens) and math.isfinite(e.joules_per_output_token)
    assert max(e.prefill.utilisation, e.decode.utilisation) == pytest.approx(1.0, rel=1e-6)  # the first pool's
    assert math.isfinite(e.ttft_parts["prefill"]) and math.isinf(e.ttft_parts["queue"])  # the queue is unbounded
    json.dumps(e.summary(), allow_nan=False)  # JSON without inf
    assert e.summary()["overloaded"] is True and e.summary()["tpot_s"] == e.tpot_s


def test_a_saturated_pools_fabric_traffic_is_its_steps(h100):
    """The fabric's load of an overloaded pool is the saturated pool's steps, as at any rate: aggregated, its
    infinite step made it 0 GB/s."""
    dep = _dep("aggregated", 10_000.0, decode={"nodes": 4, "tp": 16})  # two nodes an instance: tp over the fabric
    e = serving.estimate(h100, dep)
    below = serving.estimate(h100, _dep("aggregated", 0.5 * e.rate, decode={"nodes": 4, "tp": 16}))
    load = e.fabric_load["decode"]["gbytes_per_s_per_gpu"]
    assert e.overloaded and not below.overloaded
    assert load > below.fabric_load["decode"]["gbytes_per_s_per_gpu"] > 0


def test_a_load_it_serves_is_the_rate_asked(h100):
    dep = _dep("aggregated", 20.0)
    e = serving.estimate(h100, dep)
    assert not e.overloaded and e.rate == 20.0 and math.isfinite(e.ttft_s)
    assert e.summary()["overloaded"] is False


@pytest.mark.parametrize("lang, asked, zero", [("en", "10,000 requests/s asked, 70.7 served", "0 output tokens/s"),
                                              ("zh", "要求每秒 10,000 个请求，实际服务每秒 70.7 个", "0 个输出")])
def test_serve_says_the_rate_asked_and_served(capsys, lang, asked, zero):
    code, out, err = run(capsys, "serve", "--mode", "aggregated", "--rate", "10000", *SPLIT, "--lang", lang)
    assert code == 0, err
    assert asked in out and zero not in out
    assert "inf" not in out.lower().replace("infiniband", "")
    code, out, err = run(capsys, "serve", "--mode", "aggregated", "--rate", "10000", *SPLIT, "--format", "json")
    assert code == 0, err  # was a ValueError: an infinite time per output token in JSON
    s = json.loads(out)
    assert s["overloaded"] is True and s["rate_per_s"] == pytest.approx(70.7, rel=1e-2)
    assert s["decode"]["output_tokens_per_s_per_gpu"] > 0


@pytest.mark.parametrize("lang, words", [("en", "10,000 requests/s asked, 71 served"),
                                         ("zh", "要求每秒 10,000 个请求，实际服务每秒 71 个")])
def test_the_time_to_first_token_card_says_the_rate_asked_and_served(h100, lang, words):
    from core.figures.keynumbers import serving_key_numbers
    from core.i18n import language

    e = serving.estimate(h100, _dep("aggregated", 10_000.0))
    with language(lang):
        cards = {k.key: k for k in serving_key_numbers(e)}
    assert words in cards["ttft"].help
    assert cards["output_per_gpu"].value not in ("0", "0.0")
    assert cards["output_per_gpu"].help.endswith(("saturated: it serves no more", "满负荷：无法再多服务"))
    with language(lang):
        (below,) = [k for k in serving_key_numbers(serving.estimate(h100, _dep("aggregated", 20.0)))
                    if k.key == "output_per_gpu"]
    assert "saturated" not in below.help and "满负荷" not in below.help


def test_a_way_out_on_a_bigger_design_says_the_design_grows(h100):
    """A way out that re-plans the design at more nodes than it has names the design's new size as a growth, not as
    the nodes the deployment uses: "use 842 nodes: aggregated 566 nodes ..." read as a contradiction."""
    from core.perf.serving_search import search

    found = search(h100, "llama3.3-70b", {"input_tokens": 2000, "output_tokens": 500, "ttft_ms": 2000,
                                          "tpot_ms": 50, "rate": 10_000}, mode="aggregated")
    grown = [w for w in found.ways_out if w.startswith("grow the design to ")]
    assert grown, found.ways_out
    assert not any(w.startswith("use ") and "nodes:" in w and int(w.split()[1].replace(",", "")) > 4
                   for w in found.ways_out), found.ways_out
