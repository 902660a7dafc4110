"""Golden checks of the training-step estimator against NVIDIA/dgxc-benchmarking: weak scaling and FLOP counts.

Sources (NVIDIA DGX Cloud benchmarking recipes, DGX H100 with InfiniBand NDR, Quantum-2 and CX-7):

* GPT-3 175B, NeMo Megatron, TP=4 PP=8 VP=12 MBS=1 seq 2048, GBS = 2 x GPUs:
  NVIDIA/dgxc-benchmarking nemo_megatron/README_175b.md (commit 0b71cfda): BF16 step 8.309 s
  (128 GPUs), 8.49 s (2048 GPUs); FP8 5.626 s (128 GPUs).
* Llama 3.1 405B, NeMo 24.09, TP=8 PP=9 CP=2 VP=7 MBS=1 seq 8192:
  NVIDIA/dgxc-benchmarking llama3.1/README_405b.md (commit 143b90dd): BF16 17.20 s (576 GPUs,
  GBS 252), 17.62 s (2304 GPUs, GBS 1008); FP8 11.24 s (576 GPUs).
* DeepSeek-V3 671B, TP=2 PP=16 EP=64 MBS=1 seq 4096, GBS 8192 on 1024 H100:
  NVIDIA/dgxc-benchmarking deepseek_v3/pretrain/README.md (commit 14fb6ae6): 52.04 s.

Every step time above and below is a run of assets/catalog/training_runs.toml (fit or held out, with the
constant it set): tests/test_training_calibration.py checks them all against the 15% target and pins the
misses (DeepSeek-V3's dgxc recipe is one: NeMo 25.09 ran the same model 2x faster). This file keeps the checks
that are not one run's step time. From the same release of the recipes (NVIDIA/dgxc-benchmarking commit
143b90dd, NeMo 24.09, DGX H100):

* Llama 3.1 70B, TP=4 PP=4 CP=2 VP=5 MBS=1 seq 8192, GBS = 2 x GPUs (llama3.1/README_70b.md):
  BF16 14.72 s (64 GPUs), 14.98 s (2048 GPUs); FP8 11.01 s (64 GPUs); model FLOPs 3.94e15 per sample.
* Llama 3.1 8B, TP=1 PP=1 CP=2 MBS=1 seq 8192, GBS = 16 x GPUs (llama3.1/README_8b.md):
  BF16 12.91 s (8 GPUs), 13.10 s (128 GPUs); FP8 9.67 s (8 GPUs).
"""

import pytest

from core.design import Design
from core.plan import plan
from core.perf.training import estimate, parse_job

pytestmark = pytest.mark.golden
LLAMA70 = dict(model="llama3-70b", seq_len=8192, tp=4, pp=4, cp=2, vp=5, micro_batch=1)


def test_held_out_weak_scaling_is_nearly_flat_as_published():
    """README_70b.md: 14.72 s on 64 GPUs to 14.98 s on 2048 (+1.8%) at a fixed batch per replica."""
    small, large = (estimate(plan(Design(gpu="H100", gpus=g)), parse_job({**LLAMA70, "gpus": g, "global_batch": 2 * g}))
                    for g in (64, 2048))
    assert 1.0 <= large.step_time_s / small.step_time_s <= 1.0 + 0.018 + 0.05


def test_model_flops_match_dgxc_formula():
    """dgxc-benchmarking: Llama 3.1 405B model FLOPs per 8192-token sample 2.17e16; GPT-3 175B per 2048-token 2.20e15."""
    from core.perf.training import PRESETS

    assert PRESETS["llama3-405b"].flops_per_token(8192) * 8192 == pytest.approx(2.17e16, rel=0.02)
    assert PRESETS["gpt3-175b"].flops_per_token(2048) * 2048 == pytest.approx(2.20e15, rel=0.02)
    assert PRESETS["llama3-70b"].flops_per_token(8192) * 8192 == pytest.approx(3.94e15, rel=0.01)  # README_70b.md


def test_preset_sizes_match_published_parameter_counts():
    """Llama 3 8B/70B/405B (model cards); DeepSeek-V3 671B total, 37B active (deepseek-ai/DeepSeek-V3 README)."""
    from core.perf.training import PRESETS

    assert PRESETS["llama3-8b"].total_params == pytest.approx(8.03e9, rel=0.02)
    assert PRESETS["llama3-70b"].total_params == pytest.approx(70.6e9, rel=0.02)
    assert PRESETS["llama3-405b"].total_params == pytest.approx(405.9e9, rel=0.02)
    assert PRESETS["deepseek-v3"].total_params == pytest.approx(671e9, rel=0.02)
    assert PRESETS["deepseek-v3"].active_params == pytest.approx(37e9, rel=0.05)
