"""Golden validation of the training estimator against published training runs, within 25%.

None of these runs set a constant: the compute fractions in assets/catalog/training.toml were set
from NVIDIA/dgxc-benchmarking (Hopper, Blackwell) and Korthikanti et al. 2022 (Ampere); the overlap
and byte constants in collectives.toml [training] from dgxc-benchmarking and Megatron-Core docs.

Sources
-------
* Llama 3 405B: Llama Team, "The Llama 3 Herd of Models" (arXiv 2407.21783), sec. 3.3.2 and
  Table 4: 8,192 H100, TP 8, CP 1, PP 16, DP 64, seq 8,192, batch size per DP 32, 16M tokens per
  batch (2,048 sequences): 430 TFLOP/s per GPU, 43% BF16 MFU; 16,384 H100, DP 128, batch size per
  DP 16: 400 TFLOP/s, 41% ("due to the lower batch size per DP group"). Meta's RoCE fabric (400 Gb/s
  per GPU). What they ran, as sec. 3.3.2 states it: an interleaved schedule with V stages per rank
  ("Overall pipeline bubble ratio is (PP-1)/(V*M)"), micro-batches grouped N at a time per chunk;
  one Transformer layer fewer on the first and last stage ("the first model chunk on the first
  stage has only the embedding"); FSDP that "shards optimizer states and gradients" but keeps the
  parameters after forward, FP32 gradient accumulation and reduce-scatter; "without activation
  checkpointing" (FlashAttention: our recompute "selective" saves the same tensors for a dense model).
  V is not given as a number. Removing one layer leaves the first chunk with only the embedding only
  if a chunk is one layer slot, i.e. V = (126 + 2) / 16 = 8; V = 8 is also what a search over
  vp = 1, 2, 4, 8 picks (the fastest that fits; 16 would be half a layer per chunk). The tests use
  vp 8 and say so. Also reported at SC'24 (Balaji, "Herding Llamas"; glennklockwood.com/garden/llama-3.1).
* DeepSeek-V3: DeepSeek-AI, "DeepSeek-V3 Technical Report" (arXiv 2412.19437), sec. 1 and 3.1-3.3,
  Table 1: 2,048 H800, PP 16, EP 64 over 8 nodes, ZeRO-1 DP, no TP, DualPipe, FP8 mixed precision,
  seq 4,096, batch 15,360 sequences; "180K H800 GPU hours per trillion tokens" (2.664M GPU hours
  for 14.8T tokens of pre-training): 1e12 / (180e3 x 3600) = 1,543 tokens/s per GPU.
* Megatron-LM SC21: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU
  Clusters Using Megatron-LM" (SC21, arXiv 2104.04473), Table 1: 1T GPT (128 layers, hidden 25,600,
  160 heads, vocab 51,200, seq 2,048), TP 8, PP 64, 3,072 A100, batch 3,072: 163 TFLOP/s per GPU
  counted with their Eq. 3 F = 96 B s l h^2 (1 + s/6h + V/16lh) (activation recomputation included),
  i.e. a step of F / (163e12 x 3072) = 102.6 s (their 84 days for 450B tokens follows from it).
  Full recompute, no distributed optimizer (2021), dropout. On the catalog's A100 80 GB (Selene's part).
* MegaScale: Jiang et al., "MegaScale: Scaling Large Language Model Training to More Than 10,000
  GPUs" (NSDI 2024, arXiv 2402.15627), abstract and Table 2: the Megatron-LM baseline on a 175B
  model, seq 2,048, batch 6,144: 41.2% MFU on 12,288 Ampere GPUs (MegaScale's 55.2% is 1.34x it)
  and about 49% on 3,072. The paper does not list the baseline's split in the abstract; TP 8 PP 8
  is assumed here (Megatron's usual 175B split), on the catalog's A800 (80 GB Ampere) over RoCE.
"""

import pytest

from core.design import Design
from core.plan import plan
from core.errors import DesignError
from core.perf.training import estimate, parse_job

pytestmark = pytest.mark.golden
TOLERANCE = 0.25

LLAMA3_405B = dict(model="llama3-405b", seq_len=8192, tp=8, pp=16, vp=8, global_batch=2048, balanced_stages=True,
                   shard_gradients=True)
"""Meta's published setup (sec. 3.3.2, Table 4); vp 8 is inferred, not published (see above)."""
ONE_T = dict(name="GPT 1T (Megatron-LM SC21)", layers=128, hidden=25600, ffn=102400, heads=160, kv_heads=160,
             vocab=51200, mlp_matrices=2, tied_embeddings=True, dropout=True)


def _sc21_step_s(batch, seq, layers, hidden, vocab, tflops_per_gpu, gpus):
    """Narayanan et al. SC21 Eq. 3: FLOPs per iteration with recomputation, over the achieved FLOP/s."""
    flops = 96 * batch * seq * layers * hidden**2 * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))
    return flops / (tflops_per_gpu * 1e12 * gpus)


def _llama(gpus, **change):
    return estimate(plan(Design(gpu="H100", gpus=gpus, fabric="ethernet")),
                    parse_job({**LLAMA3_405B, "gpus": gpus, **change}))


@pytest.mark.parametrize("gpus,published_mfu", [(8192, 0.43), (16384, 0.41)])
def test_llama3_405b_mfu(gpus, published_mfu):
    """Meta's schedule and sharding as published: 8,192 GPUs +21%, 16,384 GPUs +19% (2026-12-01)."""
    e = _llama(gpus)
    assert abs(e.mfu / published_mfu - 1) <= TOLERANCE, f"{e.mfu:.3f} vs {published_mfu}"


def test_llama3_405b_mfu_falls_with_the_batch_per_replica_as_published():
    """Table 4: 43% -> 41% (x0.953) from DP 64 to DP 128 at 16M tokens per batch: the bubble (PP-1)/(V*M)
    doubles with half the micro-batches, and the gradient reduce-scatter has less compute to hide behind."""
    ratio = _llama(16384).mfu / _llama(8192).mfu
    assert ratio == pytest.approx(0.41 / 0.43, rel=0.05)
    assert ratio < 1


def test_llama3_405b_bubble_is_metas_formula():
    """sec. 3.3.2: 'Overall pipeline bubble ratio is (PP-1)/(V*M)', M micro-batches per replica (Table 4:
    batch size per DP 32 and 16, one sequence per micro-batch)."""
    for gpus, m in ((8192, 32), (16384, 16)):
        e = _llama(gpus)
        assert e.microbatches == m
        assert e.bubble_s / e.compute_s == pytest.approx((16 - 1) / (8 * m))


def test_llama3_405b_1f1b_would_be_the_old_known_gap():
    """Before the schedule was modelled as Meta ran it, the test job used 1F1B (vp 1): with 16 micro-batches
    per replica its bubble is 15/16 of the compute and MFU came out about 27% below 41%. Pinned so the
    cause stays visible: the gap was the schedule, not the fabric or the compute fraction."""
    e = _llama(16384, vp=1)
    assert e.bubble_s / e.compute_s == pytest.approx(15 / 16)
    assert -0.35 < e.mfu / 0.41 - 1 < -0.20


def test_llama3_405b_interleaved_memory_does_not_shrink_with_vp_at_m_equal_pp():
    """With m = pp = 16 the interleaved warm-up (2 (pp - rank - 1) + (vp - 1) pp + 1 chunks) reaches all
    m x vp chunks on ranks 0-7: they hold every micro-batch whatever vp is, 8 layers x 16 on rank 1
    against 1F1B's 8 x 15. Without gradient sharding vp 2, 4 and 8 need the same memory."""
    needed = {vp: sum(_llama(16384, vp=vp, shard_gradients=False).memory_gb.values()) for vp in (2, 4, 8)}
    assert needed[2] == pytest.approx(needed[4]) == pytest.approx(needed[8])
    one = _llama(16384, vp=1, shard_gradients=False)
    assert needed[8] / sum(one.memory_gb.values()) == pytest.approx(1 + 8 * 0.533e9 / 2**30 / 71.7, rel=0.02)


def test_llama3_405b_vp_search_picks_eight():
    """v is not published: among vp 1, 2, 4, 8 (16 would split a layer) the fastest that fits is 8, on both sizes."""
    for gpus in (8192, 16384):
        fits = {}
        for vp in (1, 2, 4, 8):
            try:
                fits[vp] = _llama(gpus, vp=vp).step_time_s
            except DesignError:
                pass
        assert min(fits, key=fits.get) == 8, fits


@pytest.mark.parametrize("gpus", [8192, 16384])
def test_llama3_405b_fits_as_published(gpus):
    """Meta trained this without activation checkpointing on 80 GB H100s: an estimate, not a refusal. With
    8,192 GPUs (32 micro-batches: rank 1 holds 17.6 of them) the memory is a warning within the model's
    tolerance; with 16,384 (16: every one) it fits with the gradients sharded."""
    e = _llama(gpus)
    usable = 80 * 0.95  # GiB: HBM capacity is binary (training.toml [memory] capacity_unit_bytes)
    needed = sum(e.memory_gb.values())
    assert needed < usable * 1.05
    assert (needed > usable) == (gpus == 8192) == any("Memory is tight" in w for w in e.warnings)
    assert e.memory_gb["gradients"] < 2.0  # a 1/128 or 1/64 fp32 shard plus one chunk's fp32 accumulator


def test_llama3_405b_without_gradient_sharding_needs_more_at_8k():
    """The sharded gradients are what lets Meta's interleaved schedule fit at DP 64 (sec. 3.3.2)."""
    with pytest.raises(DesignError, match="per GPU"):
        _llama(8192, shard_gradients=False)


def test_llama3_405b_long_context_cp16_is_a_known_gap():
    """Table 4, third row: 16,384 H100, TP 8, CP 16, PP 16, DP 8, sequences of 131,072 tokens, 16M tokens per
    batch (128 sequences, 16 per DP group): 380 TFLOP/s, 38% MFU. With the 8K rows' schedule (vp 8, assumed) the
    estimate is about 32% above it (37% when attention ran at the GEMM fraction; now at FlashAttention's
    own share by chunk, core.perf.compute). Known gap, pinned. At 128K the attention scores are 57% of the model
    FLOPs (PaLM's 12 L H Q T term, the MFU convention Meta cites, not halved for causal masking; 8% at 8K),
    and the estimate has no document mask and no CP load imbalance: the likeliest cause. Meta's all-gather context parallelism ('latency is exposed in
    the critical path', sec. 3.3.2) differs from our hidden ring attention too, but exposing all of it
    (K and V together are 1/8 of Q with GQA: about 67 MB per layer and micro-batch) would cost only ~0.4 s of 11 s."""
    e = _llama(16384, seq_len=131072, cp=16, global_batch=128)
    assert e.microbatches == 16 and e.dp == 8
    error = e.mfu / 0.38 - 1
    assert 0.25 < error < 0.50, f"gap changed: {error:+.1%}; update the error band in docs/validation.md"


def test_deepseek_v3_tokens_per_gpu_hour():
    e = estimate(plan(Design(gpu="H800", gpus=2048)), parse_job(dict(
        model="deepseek-v3", seq_len=4096, tp=1, pp=16, ep=64, global_batch=15360, precision="fp8",
        schedule="dualpipe", gpus=2048)))
    published = 1e12 / (180e3 * 3600)  # tokens/s per GPU
    ours = e.tokens_per_s / e.gpus
    assert abs(ours / published - 1) <= TOLERANCE, f"{ours:.0f} vs {published:.0f} tokens/s/GPU"
    # GPU hours for the 14.8T pre-training tokens: published 2.664M
    gpu_hours = 14.8e12 / ours / 3600
    assert abs(gpu_hours / 2.664e6 - 1) <= TOLERANCE


def test_deepseek_v3_fits_h800_memory():
    e = estimate(plan(Design(gpu="H800", gpus=2048)), parse_job(dict(
        model="deepseek-v3", seq_len=4096, tp=1, pp=16, ep=64, global_batch=15360, precision="fp8",
        schedule="dualpipe", gpus=2048)))
    assert sum(e.memory_gb.values()) < 80 * 0.95


def test_megatron_sc21_one_trillion_step_time():
    published = _sc21_step_s(3072, 2048, 128, 25600, 51200, 163, 3072)
    assert published == pytest.approx(102.6, rel=0.01)
    e = estimate(plan(Design(gpu="A100-80GB", gpus=3072)), parse_job(dict(
        model=ONE_T, seq_len=2048, tp=8, pp=64, global_batch=3072, recompute="full", flash_attention=False,
        distributed_optimizer=False, gpus=3072)))
    assert abs(e.step_time_s / published - 1) <= TOLERANCE, f"{e.step_time_s:.1f} s vs {published:.1f} s"


def _megascale(gpus):
    return estimate(plan(Design(gpu="A800", gpus=gpus, fabric="ethernet")), parse_job(dict(
        model="gpt3-175b", seq_len=2048, tp=8, pp=8, global_batch=6144, gpus=gpus)))


@pytest.mark.parametrize("gpus,published_mfu", [(3072, 0.49), (12288, 55.2 / 1.34 / 100)])
def test_megascale_megatron_baseline_mfu(gpus, published_mfu):
    e = _megascale(gpus)
    assert abs(e.mfu / published_mfu - 1) <= TOLERANCE, f"{e.mfu:.3f} vs {published_mfu:.3f}"


def test_megascale_strong_scaling_falls_as_published():
    """MFU falls from about 49% to 41.2% (x0.84) from 3,072 to 12,288 GPUs at a fixed batch of 6,144:
    fewer micro-batches per replica, so the pipeline bubble and the exposed gradient sync grow."""
    ratio = _megascale(12288).mfu / _megascale(3072).mfu
    assert ratio == pytest.approx(0.412 / 0.49, rel=0.10)
