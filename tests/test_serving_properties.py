"""Properties of the serving model and its search, checked on drawn workloads and loads.

* More load never lowers TTFT or TPOT.
* A faster fabric (a higher NIC port speed) never raises TTFT.
* The cost per output token falls as the rate rises towards ``max_rate``.
* More decode nodes never lower the output throughput at the same load.
"""

from __future__ import annotations

from functools import lru_cache

from hypothesis import given, settings, strategies as st

from core.design import Design
from core.perf.serving import estimate, parse_deployment
from core.perf.serving import capacity
from core.perf.serving_search import max_rate, with_rate
from core.plan import plan

SETTINGS = settings(max_examples=15, deadline=None)
lengths = st.integers(min_value=100, max_value=8000)
shares = st.floats(min_value=0.02, max_value=0.95)


@lru_cache(maxsize=None)
def _plan(port_speed: int = 400):
    return plan(Design(gpu="H100", nodes=16, port_speed_gbps=port_speed))


def _dep(mode: str, input_tokens: int, output_tokens: int, **workload):
    pools = dict(prefill=dict(nodes=4, dp=32, ep=32), decode=dict(nodes=8, dp=64, ep=64))
    if mode == "aggregated":
        pools = dict(decode=dict(nodes=8, dp=64, ep=64))
    return parse_deployment(dict(model="deepseek-v3", mode=mode, **pools, workload=dict(
        input_tokens=input_tokens, output_tokens=output_tokens, **workload)))


@SETTINGS
@given(st.sampled_from(["aggregated", "disaggregated"]), lengths, lengths, shares, shares)
def test_more_load_never_lowers_latency(mode, input_tokens, output_tokens, low, high):
    low, high = sorted((low, high))
    dep = _dep(mode, input_tokens, output_tokens)
    top = capacity(_plan(), dep)
    a, b = (estimate(_plan(), with_rate(dep, top * share)) for share in (low, high))
    assert a.ttft_s <= b.ttft_s * (1 + 1e-9)
    assert a.tpot_s <= b.tpot_s * (1 + 1e-9)


@SETTINGS
@given(lengths, lengths, st.floats(min_value=0.1, max_value=20.0), st.sampled_from([(200, 400), (400, 800), (200, 800)]))
def test_a_faster_fabric_never_raises_ttft(input_tokens, output_tokens, rate, speeds):
    slow, fast = speeds
    dep = _dep("disaggregated", input_tokens, output_tokens, rate=rate)
    assert estimate(_plan(fast), dep).ttft_s <= estimate(_plan(slow), dep).ttft_s * (1 + 1e-9)


@SETTINGS
@given(st.sampled_from(["aggregated", "disaggregated"]), lengths, shares, shares)
def test_cost_per_token_falls_as_the_rate_rises_to_max_rate(mode, input_tokens, low, high):
    low, high = sorted((low, high))
    dep = _dep(mode, input_tokens, 500, ttft_ms=5000, tpot_ms=150)
    top = max_rate(_plan(), dep)
    if top is None:
        return
    a, b = (estimate(_plan(), with_rate(dep, top * share)) for share in (low, high))
    last = estimate(_plan(), with_rate(dep, top))
    assert a.usd_per_million_output_tokens >= b.usd_per_million_output_tokens >= last.usd_per_million_output_tokens
    assert last.meets_slo


@SETTINGS
@given(lengths, lengths, st.floats(min_value=0.1, max_value=5.0))
def test_more_decode_nodes_never_lower_throughput(input_tokens, output_tokens, rate):
    dep = _dep("disaggregated", input_tokens, output_tokens, rate=rate)
    dep = dep.model_copy(update={"decode": dep.decode.model_copy(update={"dp": 32, "ep": 32})})  # 4-node instances
    more = dep.model_copy(update={"decode": dep.decode.model_copy(update={"nodes": 12})})
    assert estimate(_plan(), more).output_tokens_per_s >= estimate(_plan(), dep).output_tokens_per_s * (1 - 1e-9)
