"""ZeRO stages 0-3 / FSDP in the training estimator: memory per GPU, the data-parallel traffic and its overlap.

ZeRO (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC20,
arXiv 1910.02054, Fig. 1): stage 1 shards the optimizer state, 2 the gradients too, 3 the parameters too,
which then are all-gathered per layer in forward and again in backward (1.5x the data-parallel volume of
stages 1-2 per gradient synchronisation, sec. 7.2.2) and the gradients reduce-scattered.
"""

import pytest
from hypothesis import assume, given, settings, strategies as st

from core.design import Design
from core.errors import DesignError
from core.perf.training import PRESETS, _memory, estimate, parse_job
from core.plan import plan

P1024 = plan(Design(gpu="H100", gpus=1024))


def job(**kw):
    return parse_job({"model": "llama3-70b", "seq_len": 8192, "global_batch": 512, "tp": 8, "pp": 4, **kw})


def total(j, dp, m=16):
    return sum(_memory(j, dp, m).parts.values())


def test_zero_stage_defaults_follow_the_two_switches():
    assert job().zero == 1
    assert job(distributed_optimizer=False).zero == 0
    assert job(shard_gradients=True).zero == 2
    assert job(shard_gradients=True, zero_stage=3).zero == 3
    assert job(zero_stage=0).zero == 0


def test_zero_stage_1_and_2_keep_the_switches_numbers():
    """A declared stage gives exactly what the legacy switches give (golden runs use the switches)."""
    for stage, legacy in ((0, dict(distributed_optimizer=False)), (1, {}), (2, dict(shard_gradients=True))):
        assert _memory(job(zero_stage=stage), 32, 16).parts == _memory(job(**legacy), 32, 16).parts
        a = estimate(P1024, job(zero_stage=stage))
        b = estimate(P1024, job(**legacy))
        assert a.step_time_s == b.step_time_s


def test_zero3_shards_the_parameters():
    """Stage 3 keeps no whole bf16 copy: weights are the gathered layers only (at most two), the fp32 master
    shard lives in the optimizer state."""
    z1, z3 = _memory(job(), 32, 16).parts, _memory(job(zero_stage=3), 32, 16).parts
    layer = (PRESETS["llama3-70b"].attention_params + PRESETS["llama3-70b"].dense_mlp_params) / 8
    embedding = PRESETS["llama3-70b"].vocab * 8192 / 8
    assert z3["weights"] * 2**30 == pytest.approx(2 * max(layer, embedding) * 2.0)
    assert z3["weights"] < z1["weights"] / 5
    assert z3["optimizer"] == pytest.approx(z1["optimizer"])
    assert z3["activations"] == z1["activations"]


def test_zero3_gathers_every_layer_every_micro_batch():
    """Per micro-batch and layer: 2 all-gathers (forward, backward) + 1 reduce-scatter; hidden behind the whole
    step's compute, so ZeRO-3 costs more traffic than ZeRO-1 but mostly overlapped."""
    e1, e3 = estimate(P1024, job()), estimate(P1024, job(zero_stage=3))
    dp1 = next(c for c in e1.comm if c.kind == "DP")
    dp3 = next(c for c in e3.comm if c.kind == "DP")
    layers = 20  # 80 layers over pp 4
    assert dp3.calls == 3 * e3.microbatches * layers
    assert dp3.window_s == pytest.approx(e3.compute_s)
    assert dp3.volume_bytes > dp1.volume_bytes * e3.microbatches
    assert e3.step_time_s >= e1.step_time_s


def test_zero3_moe_shards_the_experts_over_the_expert_data_parallel_group():
    p = plan(Design(gpu="H100", gpus=512))
    j = parse_job(dict(model="qwen3-30b-a3b", seq_len=4096, tp=1, pp=1, ep=8, global_batch=512, zero_stage=3))
    e = estimate(p, j)
    kinds = {c.kind: c for c in e.comm}
    assert kinds["DP (experts)"].group_size == 512 // 8
    assert kinds["DP (experts)"].calls == 3 * e.microbatches * 48


STAGES = st.sampled_from([0, 1, 2, 3])


@settings(max_examples=40, deadline=None)
@given(zero=STAGES, model=st.sampled_from(["llama3-8b", "llama3-70b", "qwen3-30b-a3b", "mixtral-8x7b"]),
       tp=st.sampled_from([1, 2, 8]), pp=st.sampled_from([1, 2, 4]), vp=st.sampled_from([1, 2]),
       dp_exp=st.integers(0, 6), more=st.integers(1, 3))
def test_sharding_over_more_ranks_never_raises_memory(zero, model, tp, pp, vp, dp_exp, more):
    """The same stage over 2^k times more data-parallel ranks never needs more memory per GPU."""
    j = parse_job(dict(model=model, seq_len=4096, tp=tp, pp=pp, vp=vp if pp > 1 else 1, zero_stage=zero))
    assert total(j, 2 ** (dp_exp + more)) <= total(j, 2**dp_exp) * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(model=st.sampled_from(["llama3-8b", "llama3-70b", "gpt3-175b", "qwen3-30b-a3b", "deepseek-v3"]),
       tp=st.sampled_from([1, 4, 8]), pp=st.sampled_from([1, 2, 4, 8]), vp=st.sampled_from([1, 2, 4]),
       dp_exp=st.integers(2, 8))
def test_a_higher_zero_stage_never_raises_memory(model, tp, pp, vp, dp_exp):
    """Stage 1 <= stage 0 always; stage 3 <= stage 2 always; stage 3 <= stage 1 over 4 or more ranks with two
    or more layers a stage (below that, gathering a layer beside its shard costs more than sharding saves).
    Stage 2 as Llama 3 ran it trades bf16 gradients for an fp32 accumulator: it is not compared with stage 1."""
    layers = PRESETS[model].layers
    if layers // pp < 2:
        return
    j = parse_job(dict(model=model, seq_len=4096, tp=tp, pp=pp, vp=vp if pp > 1 else 1))
    dp = 2**dp_exp
    mem = {z: total(j.model_copy(update={"zero_stage": z}), dp) for z in (0, 1, 2, 3)}
    assert mem[1] <= mem[0]
    assert mem[3] <= mem[2]
    assert mem[3] <= mem[1]


@settings(max_examples=25, deadline=None)
@given(zero=STAGES, model=st.sampled_from(["llama3-8b", "llama3-70b", "qwen3-30b-a3b"]),
       split=st.sampled_from([(8, 1), (8, 4), (4, 2), (1, 1)]), gbs=st.sampled_from([256, 1024]),
       fabric=st.sampled_from(["infiniband", "ethernet"]))
def test_a_faster_fabric_never_slows_a_step(zero, model, split, gbs, fabric):
    """Non-blocking against 2:1 oversubscription, and 8 NICs per node against 4: never a slower step."""
    tp, pp = split
    ep = 8 if PRESETS[model].is_moe else 1
    j = parse_job(dict(model=model, seq_len=4096, tp=tp, pp=pp, ep=ep, global_batch=gbs, zero_stage=zero))
    slow = plan(Design(gpu="H100", gpus=256, fabric=fabric, oversubscription=2.0, nics_per_node=4))
    mid = plan(Design(gpu="H100", gpus=256, fabric=fabric, oversubscription=2.0))
    fast = plan(Design(gpu="H100", gpus=256, fabric=fabric, oversubscription=1.0))
    try:
        steps = [estimate(p, j).step_time_s for p in (slow, mid, fast)]
    except DesignError:  # the split does not fit in memory: nothing to compare (memory is fabric-blind)
        assume(False)
    assert steps[1] <= steps[0] * (1 + 1e-9)
    assert steps[2] <= steps[1] * (1 + 1e-9)


def test_context_parallel_all_to_all():
    """Ulysses: two all-to-alls per layer and micro-batch forward (Q/K/V in, output back), two backward; over the
    cp ranks, TP apart; the heads per TP rank must split over cp."""
    p = plan(Design(gpu="H100", gpus=64))
    base = dict(model="llama3-8b", tp=2, pp=1, cp=4, seq_len=65536, global_batch=64, gpus=64)
    ring = estimate(p, parse_job(base))
    a2a = estimate(p, parse_job({**base, "cp_comm": "all-to-all"}))
    part = next(c for c in a2a.comm if c.kind == "CP")
    assert part.collective == "all-to-all" and part.group_size == 4
    assert part.calls == 4 * 32 * a2a.microbatches
    m = PRESETS["llama3-8b"]
    tokens = 65536 / 4
    expected = tokens * ((m.heads + 2 * m.kv_heads) * m.head_dim + m.heads * m.head_dim) * 2 / 2
    assert part.volume_bytes == pytest.approx(2 * 32 * a2a.microbatches * expected)
    assert a2a.compute_s == ring.compute_s
    full = estimate(p, parse_job({**base, "cp_comm": "all-to-all", "recompute": "full"}))
    assert next(c for c in full.comm if c.kind == "CP").calls == 6 * 32 * full.microbatches
    with pytest.raises(DesignError, match="cp_comm"):
        estimate(p, parse_job({**base, "cp": 32, "tp": 2, "cp_comm": "all-to-all", "seq_len": 65536}))


def test_cp_comm_and_zero_on_the_cli_and_the_link(capsys):
    import json

    from conftest import run_cli
    from core.formats.joblink import DEFAULTS, JOB

    code, out, _err = run_cli(capsys, "train", "--model", "llama3-8b", "--gpus", "64", "--tp", "2", "--pp", "1",
                              "--cp", "4", "--seq-len", "65536", "--cp-comm", "all-to-all", "--zero", "3",
                              "--format", "json")
    assert code == 0
    s = json.loads(out)
    assert s["cp_comm"] == "all-to-all" and s["zero_stage"] == 3
    values = {**DEFAULTS, "cpc": "all-to-all", "zero": "0"}
    decoded, warnings = JOB.decode(JOB.encode(values))
    assert decoded == values and not warnings
