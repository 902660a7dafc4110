"""Golden validation of the training estimator against published training runs, within 25%.

None of these runs set a constant: the compute fractions in assets/catalog/training.toml were set
from NVIDIA/dgxc-benchmarking (Hopper, Blackwell) and Korthikanti et al. 2022 (Ampere); the overlap
and byte constants in collectives.toml [training] from dgxc-benchmarking and Megatron-Core docs.

Sources
-------
* Llama 3 405B: Llama Team, "The Llama 3 Herd of Models" (arXiv 2407.21783), sec. 3.3.2 and
  Table 4: 8,192 H100, TP 8, CP 1, PP 16, DP 64, seq 8,192, 16M tokens per batch (2,048
  sequences): 430 TFLOP/s per GPU, 43% BF16 MFU; 16,384 H100, DP 128: 400 TFLOP/s, 41%. Meta's
  RoCE fabric (400 Gb/s per GPU); first and last stages one layer fewer; "without activation
  checkpointing" (FlashAttention: our recompute "selective" saves the same tensors for a dense
  model). Also reported at SC'24 (Balaji, "Herding Llamas"; glennklockwood.com/garden/llama-3.1).
* DeepSeek-V3: DeepSeek-AI, "DeepSeek-V3 Technical Report" (arXiv 2412.19437), sec. 1 and 3.1-3.3,
  Table 1: 2,048 H800, PP 16, EP 64 over 8 nodes, ZeRO-1 DP, no TP, DualPipe, FP8 mixed precision,
  seq 4,096, batch 15,360 sequences; "180K H800 GPU hours per trillion tokens" (2.664M GPU hours
  for 14.8T tokens of pre-training): 1e12 / (180e3 x 3600) = 1,543 tokens/s per GPU.
* Megatron-LM SC21: Narayanan et al., "Efficient Large-Scale Language Model Training on GPU
  Clusters Using Megatron-LM" (SC21, arXiv 2104.04473), Table 1: 1T GPT (128 layers, hidden 25,600,
  160 heads, vocab 51,200, seq 2,048), TP 8, PP 64, 3,072 A100, batch 3,072: 163 TFLOP/s per GPU
  counted with their Eq. 3 F = 96 B s l h^2 (1 + s/6h + V/16lh) (activation recomputation included),
  i.e. a step of F / (163e12 x 3072) = 102.6 s (their 84 days for 450B tokens follows from it).
  Full recompute, no distributed optimizer (2021), dropout. The catalog's A100 is the 40 GB part
  (Selene had 80 GB): the memory check is stricter than the run was; the step does not depend on it.
* MegaScale: Jiang et al., "MegaScale: Scaling Large Language Model Training to More Than 10,000
  GPUs" (NSDI 2024, arXiv 2402.15627), abstract and Table 2: the Megatron-LM baseline on a 175B
  model, seq 2,048, batch 6,144: 41.2% MFU on 12,288 Ampere GPUs (MegaScale's 55.2% is 1.34x it)
  and about 49% on 3,072. The paper does not list the baseline's split in the abstract; TP 8 PP 8
  is assumed here (Megatron's usual 175B split), on the catalog's A800 (80 GB Ampere) over RoCE.
"""

import pytest

from core.design import Design
from core.plan import plan
from core.perf.training import estimate, parse_job

pytestmark = pytest.mark.golden
TOLERANCE = 0.25

LLAMA3_405B = dict(model="llama3-405b", seq_len=8192, tp=8, pp=16, global_batch=2048, balanced_stages=True)
ONE_T = dict(name="GPT 1T (Megatron-LM SC21)", layers=128, hidden=25600, ffn=102400, heads=160, kv_heads=160,
             vocab=51200, mlp_matrices=2, tied_embeddings=True, dropout=True)


def _sc21_step_s(batch, seq, layers, hidden, vocab, tflops_per_gpu, gpus):
    """Narayanan et al. SC21 Eq. 3: FLOPs per iteration with recomputation, over the achieved FLOP/s."""
    flops = 96 * batch * seq * layers * hidden**2 * (1 + seq / (6 * hidden) + vocab / (16 * layers * hidden))
    return flops / (tflops_per_gpu * 1e12 * gpus)


def _llama(gpus):
    return estimate(plan(Design(gpu="H100", gpus=gpus, fabric="ethernet")), parse_job({**LLAMA3_405B, "gpus": gpus}))


@pytest.mark.parametrize("gpus,published_mfu", [(8192, 0.43)])
def test_llama3_405b_mfu(gpus, published_mfu):
    e = _llama(gpus)
    assert abs(e.mfu / published_mfu - 1) <= TOLERANCE, f"{e.mfu:.3f} vs {published_mfu}"


def test_llama3_405b_on_16k_is_an_estimate_but_low_known_gap():
    """Known gap: Meta ran an interleaved schedule with a flexible number of contiguous micro-batches
    (paper sec. 3.3.2); with 16 micro-batches per replica our interleaved memory (Megatron's warm-up)
    does not fit 80 GB, and 1F1B's bubble (15/16 of the compute) puts MFU about 27% below the
    published 41%. The estimate exists (a memory warning, not a refusal); this pins the gap."""
    e = _llama(16384)
    assert e.step_time_s > 0 and any("Memory is tight" in w for w in e.warnings)
    error = e.mfu / 0.41 - 1
    assert -0.35 < error < -0.15, f"gap changed: {error:+.1%}; update the README's error band"


@pytest.mark.parametrize("gpus", [8192, 16384])
def test_llama3_405b_fits_with_a_margin_warning_not_an_error(gpus):
    e = _llama(gpus)
    usable = 80 * 0.95
    needed = sum(e.memory_gb.values())
    assert abs(needed / usable - 1) < 0.05
    assert any("Memory is tight" in w for w in e.warnings)


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
    e = estimate(plan(Design(gpu="A100", gpus=3072)), parse_job(dict(
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
