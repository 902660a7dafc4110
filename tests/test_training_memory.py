"""The training estimator's memory model, schedules and compute fractions (core/perf/training.py).

Activation formulas: Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
Models" (arXiv 2205.05198), sec. 4.1 Eq. 1-2 and Table 2: per layer s b h (34 + 5 a s / h) bytes
without parallelism or recompute; tensor + sequence parallelism divide everything by t; selective
recompute drops the 5 a s / h term; interleaving multiplies the first stage by 1 + (p - 1) / (p m).
"""

import pytest

from core.design import Design
from core.errors import DesignError
from core.plan import plan
from core.perf.training import (PRESETS, ModelSpec, _in_flight, _memory, activation_bytes_per_token, estimate,
                                parse_job, stage_layers)
from core.perf.training_constants import load_training_catalog

P1024 = plan(Design(gpu="H100", gpus=1024))
GPT = ModelSpec(name="gpt", layers=24, hidden=2048, ffn=8192, heads=16, kv_heads=16, vocab=50000, mlp_matrices=2,
                dropout=True)


def job(**kw):
    return parse_job({"model": "llama3-70b", "seq_len": 8192, "global_batch": 512, "tp": 8, "pp": 4, **kw})


def test_korthikanti_34_plus_5as_over_h_exactly():
    """GPT (GELU, dropout), no FlashAttention, no recompute: 34 h + 5 a s bytes per token per layer."""
    j = parse_job(dict(model=GPT, seq_len=2048, tp=1, pp=1, recompute="none", flash_attention=False,
                       global_batch=64))
    assert activation_bytes_per_token(GPT, j, False) == pytest.approx(34 * 2048 + 5 * 16 * 2048)
    sel = j.model_copy(update={"recompute": "selective"})
    assert activation_bytes_per_token(GPT, sel, False) == pytest.approx(34 * 2048)  # Korthikanti Table 2
    full = j.model_copy(update={"recompute": "full"})
    assert activation_bytes_per_token(GPT, full, False) == pytest.approx(2 * 2048)


def test_flash_attention_saves_no_score_matrix():
    j = parse_job(dict(model=GPT, seq_len=32768, tp=1, pp=1, recompute="none", global_batch=64))
    flash = activation_bytes_per_token(GPT, j, False)
    eager = activation_bytes_per_token(GPT, j.model_copy(update={"flash_attention": False}), False)
    assert eager - flash == pytest.approx(5 * 16 * 32768 - 4 * 16)  # the s x s terms minus the fp32 log-sum-exp


def test_grouped_query_attention_and_swiglu_terms():
    llama = PRESETS["llama3-405b"]
    j = job(model="llama3-405b")
    h, f, d = 16384, 53248, 128
    expected = (2 * h + 2 * h + 2 * (128 + 2 * 8) * d + 2 * h + 4 * 128) + (2 * h + 2 * h + 2 * 2 * f + 2 * f)
    assert activation_bytes_per_token(llama, j, False) == pytest.approx(expected)
    mha = llama.model_copy(update={"kv_heads": 128})
    assert activation_bytes_per_token(mha, j, False) - expected == pytest.approx(2 * 2 * (128 - 8) * d)


def test_fp8_activation_caching_halves_linear_inputs():
    llama = PRESETS["llama3-70b"]
    bf16 = activation_bytes_per_token(llama, job(), False)
    fp8 = activation_bytes_per_token(llama, job(precision="fp8"), False)
    h, f = 8192, 28672
    assert bf16 - fp8 == pytest.approx(h + 64 * 128 + h + f)  # QKV, output projection, MLP and down-proj inputs
    assert activation_bytes_per_token(llama, job(precision="fp8", fp8_activations=False), False) == bf16


def test_mla_selective_recompute_keeps_only_the_latents():
    ds = PRESETS["deepseek-v3"]
    j = parse_job(dict(model="deepseek-v3", seq_len=4096, tp=1, pp=16, ep=64, global_batch=8192))
    sel = activation_bytes_per_token(ds, j, False)
    none = activation_bytes_per_token(ds, j.model_copy(update={"recompute": "none"}), False)
    assert none - sel == pytest.approx(2 * 128 * (2 * 192 + 128))  # Q, K, V of the up-projections
    moe = activation_bytes_per_token(ds, j, True)
    assert moe > sel  # 8 routed copies + 1 shared expert


def test_sequence_and_context_parallel_divide_activations():
    a = _memory(job(tp=8, cp=1), dp=32, microbatches=16).parts["activations"]
    b = _memory(job(tp=4, cp=2), dp=32, microbatches=16).parts["activations"]
    assert a == pytest.approx(b, rel=0.02)  # t x cp the same: tokens per GPU the same (logits aside)
    c = _memory(job(tp=8, cp=2), dp=16, microbatches=32).parts["activations"]
    assert c == pytest.approx(a / 2, rel=0.02)


def test_interleaved_first_stage_is_korthikanti_factor():
    j = job(pp=8, vp=4)
    assert _in_flight(j, 0, 64) == pytest.approx(8 * (1 + 7 / (8 * 4)))
    assert _in_flight(job(pp=8), 0, 64) == 8 and _in_flight(job(pp=8), 7, 64) == 1
    assert _in_flight(job(pp=8), 0, 3) == 3  # fewer micro-batches than stages
    assert _in_flight(job(pp=8, schedule="dualpipe"), 5, 64) == 9  # DeepSeek-V3 Table 2: PP + 1


def test_balanced_stages_as_llama3():
    assert stage_layers(126, 16, balanced=True) == [7] + [8] * 14 + [7]
    assert stage_layers(126, 16) == [8] * 14 + [7] * 2
    assert sum(stage_layers(61, 16)) == 61 and max(stage_layers(61, 16)) == 4
    assert stage_layers(3, 2, balanced=True) == [2, 1]  # too few layers to balance: even split


def test_dualpipe_keeps_two_parameter_copies_and_hides_expert_all_to_all():
    base = dict(model="deepseek-v3", seq_len=4096, tp=1, pp=16, ep=64, global_batch=15360, precision="fp8",
                gpus=2048)
    p = plan(Design(gpu="H800", gpus=2048))
    one = estimate(p, parse_job(base))
    dual = estimate(p, parse_job({**base, "schedule": "dualpipe"}))
    assert dual.memory_gb["weights"] == pytest.approx(2 * one.memory_gb["weights"])
    assert dual.bubble_s < one.bubble_s and dual.step_time_s < one.step_time_s
    ep_one = next(c for c in one.comm if c.kind == "EP")
    ep_dual = next(c for c in dual.comm if c.kind == "EP")
    assert ep_dual.exposed_s < ep_one.exposed_s


def test_distributed_optimizer_shards_the_optimizer_state():
    sharded = _memory(job(), dp=32, microbatches=16).parts["optimizer"]
    whole = _memory(job(distributed_optimizer=False), dp=32, microbatches=16).parts["optimizer"]
    assert whole == pytest.approx(32 * sharded, rel=1e-6)


def test_embedding_sits_on_first_and_last_stage():
    m = _memory(job(pp=4), dp=32, microbatches=16)
    assert m.stage == 0  # the first stage holds the most micro-batches and the embedding


def test_near_the_limit_is_a_warning_with_the_margin_beyond_it_an_error():
    """Memory within the model's tolerance (training.toml [memory]) of the usable HBM warns; beyond, refuses."""
    tol = load_training_catalog().memory.tolerance
    usable = 80 * 0.95
    e = estimate(P1024, job(model="llama3-70b", tp=4, pp=4))
    needed = sum(e.memory_gb.values())
    assert needed < usable * (1 - tol) and not any("Memory is tight" in w for w in e.warnings)
    llama = plan(Design(gpu="H100", gpus=8192, fabric="ethernet"))
    tight = estimate(llama, parse_job(dict(model="llama3-405b", seq_len=8192, tp=8, pp=16, vp=8, global_batch=2048,
                                           balanced_stages=True, shard_gradients=True, gpus=8192)))
    assert usable < sum(tight.memory_gb.values()) <= usable * (1 + tol)
    assert any("Memory is tight" in w and "%" in w for w in tight.warnings)
    with pytest.raises(DesignError, match="per GPU"):
        estimate(llama, parse_job(dict(model="llama3-405b", seq_len=8192, tp=8, pp=16, global_batch=2048,
                                       gpus=8192, vp=2)))


def test_compute_fraction_by_architecture_and_override():
    """The compute follows from each GPU's kernels (training.toml [[kernels]]): the effective share of peak differs
    by architecture, a mixture-of-experts model reaches less of it than a dense one, and a job's own fraction
    replaces the model."""
    a100 = estimate(plan(Design(gpu="A800", gpus=64)), job(model="llama3-8b", tp=8, pp=1, global_batch=64))
    h100 = estimate(plan(Design(gpu="H100", gpus=64)), job(model="llama3-8b", tp=8, pp=1, global_batch=64))
    b200 = estimate(plan(Design(gpu="B200", gpus=64)), job(model="llama3-8b", tp=8, pp=1, global_batch=64))
    assert len({round(e.compute_efficiency, 4) for e in (a100, h100, b200)}) == 3
    assert all(0.2 < e.compute_efficiency < 0.8 for e in (a100, h100, b200))
    moe = estimate(P1024, parse_job(dict(model="deepseek-v3", seq_len=4096, global_batch=8192, tp=2, pp=16, ep=64)))
    assert moe.compute_efficiency < h100.compute_efficiency
    forced = estimate(plan(Design(gpu="H100", gpus=64)), job(model="llama3-8b", tp=8, pp=1, global_batch=64,
                                                               compute_efficiency=0.3))
    assert forced.compute_efficiency == 0.3 and forced.compute_s > h100.compute_s


def test_hopper_defaults_match_what_the_page_quotes():
    """The Performance page's help quotes collectives.toml [training]; the Hopper row must agree with it."""
    from core.perf.constants import load_constants
    k = load_constants().training
    hopper = load_training_catalog().architecture_efficiency("Hopper")
    assert (hopper.dense_bf16, hopper.dense_fp8, hopper.moe_bf16) == (k.compute_efficiency,
                                                                       k.fp8_compute_efficiency,
                                                                       k.moe_compute_efficiency)


def test_every_efficiency_row_is_sourced():
    for entry in load_training_catalog().efficiency:
        assert entry.source.startswith("[") and len(entry.source) > 40 and entry.as_of


def test_memory_grows_with_micro_batch_and_sequence():
    small = estimate(P1024, job(model="llama3-8b", tp=1, pp=1, seq_len=2048, global_batch=1024))
    longer = estimate(P1024, job(model="llama3-8b", tp=1, pp=1, seq_len=4096, global_batch=1024))
    bigger = estimate(P1024, job(model="llama3-8b", tp=1, pp=1, seq_len=2048, global_batch=2048, micro_batch=2))
    assert longer.memory_gb["activations"] > small.memory_gb["activations"]
    assert bigger.memory_gb["activations"] > small.memory_gb["activations"]


# --- gradient sharding (ZeRO-2 / FSDP as Llama 3; training.toml [memory] sharded_gradient_*) -----------------
def test_sharded_gradients_are_a_fp32_shard_plus_one_chunk_accumulator():
    """arXiv 2407.21783 sec. 3.3.2: FSDP 'shards optimizer states and gradients', FP32 accumulation."""
    mc = load_training_catalog().memory
    base = job(model="llama3-70b", tp=8, pp=4, vp=5)
    plain = _memory(base, dp=32, microbatches=16)
    sharded = _memory(base.model_copy(update={"shard_gradients": True}), dp=32, microbatches=16)
    params = plain.parts["gradients"] * mc.capacity_unit_bytes / 2.0  # bf16 gradients: 2 B per parameter
    expected = mc.sharded_gradient_bytes_per_param * params * (1 / 32 + 1 / 5) / mc.capacity_unit_bytes
    assert sharded.parts["gradients"] == pytest.approx(expected, rel=1e-6)
    for part in ("weights", "optimizer", "activations"):
        assert sharded.parts[part] == pytest.approx(plain.parts[part])


def test_sharded_gradients_do_not_pay_without_interleaving():
    """With one model chunk (vp 1) the fp32 accumulator is the whole stage: more than bf16 gradients."""
    base = job(model="llama3-70b", tp=8, pp=4)
    plain = _memory(base, dp=32, microbatches=16).parts["gradients"]
    assert _memory(base.model_copy(update={"shard_gradients": True}), dp=32, microbatches=16).parts["gradients"] > plain


def test_sharded_gradients_imply_the_optimizer_sharding():
    whole = job(model="llama3-70b", distributed_optimizer=False)
    assert (_memory(whole.model_copy(update={"shard_gradients": True}), dp=32, microbatches=16).parts["optimizer"]
            == pytest.approx(_memory(job(model="llama3-70b"), dp=32, microbatches=16).parts["optimizer"]))


def test_sharded_gradients_reduce_scatter_once_per_group_of_pp_micro_batches():
    p = plan(Design(gpu="H100", gpus=512))
    for vp, gbs in ((1, 512), (5, 256), (5, 512)):  # dp 16: m = 16 or 32 with pp 4: 4 or 8 rounds with vp > 1
        e = estimate(p, job(model="llama3-70b", tp=8, pp=4, vp=vp, global_batch=gbs, shard_gradients=True, gpus=512))
        dp_part = next(c for c in e.comm if c.kind == "DP")
        m = e.microbatches
        rounds = -(-m // 4) if vp > 1 else 1
        assert dp_part.calls == rounds + 1, (vp, gbs, m)


def test_hbm_is_counted_in_binary_units():
    """An 'H100 80GB' reports 81,559 MiB (NVIDIA/nccl#1264): memory is counted in GiB against 80."""
    assert load_training_catalog().memory.capacity_unit_bytes == 2**30


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(pp=st.sampled_from([2, 4, 8, 16]), vp=st.sampled_from([2, 3, 4, 5]), m=st.integers(1, 64),
       rank=st.integers(0, 15))
def test_interleaving_never_holds_fewer_micro_batches_than_1f1b(pp, vp, m, rank):
    """Megatron's interleaved warm-up holds at least what 1F1B holds on every rank (never less memory)."""
    rank = rank % pp
    inter = _in_flight(job(pp=pp, vp=vp), rank, m)
    one = _in_flight(job(pp=pp), rank, m)
    assert inter >= one - 1e-9 and inter <= m + 1e-9


@settings(max_examples=20, deadline=None)
@given(vp=st.sampled_from([1, 2, 4, 8]), dp_exp=st.integers(3, 7))
def test_gradient_sharding_never_grows_with_more_data_parallel_ranks(vp, dp_exp):
    j = job(model="llama3-70b", tp=8, pp=4, vp=vp, shard_gradients=True)
    fewer = _memory(j, dp=2**dp_exp, microbatches=16).parts["gradients"]
    more = _memory(j, dp=2**(dp_exp + 1), microbatches=16).parts["gradients"]
    assert more <= fewer
