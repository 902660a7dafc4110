"""Properties of the training estimate, checked on drawn jobs.

* More GPUs at a fixed split (more data-parallel replicas, the same micro-batches per replica) never lower the
  throughput of a step.
* A faster fabric (a higher NIC port speed) never slows a step.
  Both also with expert parallelism across nodes (the dispatch model serving shares) and CPU offload.
* The compute of a micro-batch never grows with the tokens each expert receives (a larger ep), and a lower
  precision never slows the GEMMs.
"""

from __future__ import annotations

from functools import lru_cache

from hypothesis import assume, given, settings, strategies as st

from core.design import Design
from core.errors import DesignError
from core.perf.compute import micro_batch_compute
from core.perf.training import estimate, parse_job
from core.plan import plan

SETTINGS = settings(max_examples=15, deadline=None)
models = st.sampled_from(["llama3-8b", "llama3-70b", "qwen3-30b-a3b"])


@lru_cache(maxsize=None)
def _plan(port_speed: int = 400, gpus: int = 1024):
    return plan(Design(gpu="H100", gpus=gpus, port_speed_gbps=port_speed))


def _estimate(p, **job):
    try:
        return estimate(p, parse_job(job))
    except DesignError:
        return None


@SETTINGS
@given(models, st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]), st.integers(1, 8), st.sampled_from([2, 4]),
       st.integers(1, 16), st.sampled_from(["bf16", "fp8"]))
def test_more_gpus_at_a_fixed_split_never_lower_throughput(model, tp, pp, dp, more, m, precision):
    split = dict(model=model, seq_len=4096, tp=tp, pp=pp, precision=precision, recompute="full")
    small = _estimate(_plan(), **split, gpus=tp * pp * dp, global_batch=m * dp)
    large = _estimate(_plan(), **split, gpus=tp * pp * dp * more, global_batch=m * dp * more)
    assume(small is not None and large is not None)  # too many misfits fail hypothesis's health check
    assert large.tokens_per_s >= small.tokens_per_s * (1 - 1e-9)


@SETTINGS
@given(st.sampled_from([8, 16, 32]), st.sampled_from([1, 2]), st.sampled_from(["none", "optimizer"]),
       st.sampled_from([2, 4]), st.sampled_from([2, 4]))
def test_more_gpus_never_lower_throughput_with_experts_and_offload(ep, tp, offload, dp, more):
    split = dict(model="qwen3-30b-a3b", seq_len=4096, tp=tp, pp=1, ep=ep, precision="fp8", recompute="full",
                 offload=offload)
    gpus = max(ep, tp) * dp
    small = _estimate(_plan(), **split, gpus=gpus, global_batch=8 * gpus // tp)
    large = _estimate(_plan(), **split, gpus=gpus * more, global_batch=8 * gpus * more // tp)
    assume(small is not None and large is not None)
    assert large.tokens_per_s >= small.tokens_per_s * (1 - 1e-9)


@SETTINGS
@given(st.sampled_from([16, 32, 64]), st.sampled_from([1, 2]), st.sampled_from(["none", "optimizer"]),
       st.sampled_from([(200, 400), (400, 800), (200, 800)]))
def test_a_faster_fabric_never_slows_expert_dispatch_across_nodes(ep, tp, offload, speeds):
    slow, fast = speeds
    job = dict(model="qwen3-30b-a3b", seq_len=4096, tp=tp, pp=1, ep=ep, gpus=256, global_batch=512,
               precision="fp8", recompute="full", offload=offload)
    a, b = _estimate(_plan(slow, 256), **job), _estimate(_plan(fast, 256), **job)
    assume(a is not None and b is not None)
    assert any(c.kind == "EP" and c.fabric_level != "nvlink" for c in a.comm)
    assert b.step_time_s <= a.step_time_s * (1 + 1e-9)


@SETTINGS
@given(models, st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]), st.sampled_from([(200, 400), (400, 800),
                                                                                      (200, 800)]))
def test_a_faster_fabric_never_slows_a_step(model, tp, pp, speeds):
    slow, fast = speeds
    job = dict(model=model, seq_len=4096, tp=tp, pp=pp, gpus=256, global_batch=2048, recompute="full")
    a, b = _estimate(_plan(slow, 256), **job), _estimate(_plan(fast, 256), **job)
    assume(a is not None and b is not None)
    assert b.step_time_s <= a.step_time_s * (1 + 1e-9)


@SETTINGS
@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]), st.sampled_from([1024, 4096, 8192]))
def test_compute_never_grows_with_tokens_per_expert_or_lower_precision(ep, micro_batch, seq):
    system = _plan().resolved.system
    base = dict(model="qwen3-30b-a3b", seq_len=seq, tp=1, micro_batch=micro_batch, gpus=64)
    fewer, more = (micro_batch_compute(parse_job({**base, "ep": e}), system, 1.0) for e in (ep, ep * 2))
    assert more.total_s <= fewer.total_s * (1 + 1e-12)
    bf16, fp8 = (micro_batch_compute(parse_job({**base, "ep": ep, "precision": p}), system, 1.0).gemm_s
                 for p in ("bf16", "fp8"))
    assert fp8 < bf16
