"""Golden tests of the serving model (core/perf/serving.py) against published results on accelerators other than
NVIDIA's, held out from what set the constants, within 15% where the model can express the run.

No point here set a constant: the ``CDNA 3``, ``Da Vinci`` and ``Gaudi 3`` rows of assets/catalog/serving.toml
borrow Hopper's fractions, and these points check that borrowing.

Expressed and compared (MLPerf Inference, Datacenter, closed division, Llama 2 70B, Offline scenario, 8 GPUs of
one node, result ``Tokens per second`` = generated tokens per second of the node):

* v4.1 (2024-08-28), AMD, 8xMI300X_2xEPYC-9374F, llama2-70b-99: 23,514.8 tokens/s, 80.15 samples/s.
  mlcommons/inference_results_v4.1 @a2f5d66, closed/AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99/Offline/
  performance/run_1/mlperf_log_summary.txt. FP8 weights and activations and an FP8 KV cache
  (closed/AMD/code/llama2-70b-99/README.md: Quark ``w_fp8_a_fp8_o_fp8``, vLLM's FP8 KV-cache scales).
* v5.0 (2025-04-02), AMD, 8xMI325X_2xEPYC_9575F, llama2-70b-99.9: 33,928.1 tokens/s, 114.262 samples/s.
  closed/AMD/results/8xMI325X_2xEPYC_9575F/llama2-70b-99.9/Offline/performance/run_1/mlperf_log_summary.txt, as
  mirrored in ntuhpc/mlperf_inference_results_v5.0 @cf35411 (the official repository's copy is not stored here).
* v5.1 (2025-09-09), AMD, 8xMI300X_2xEPYC_9575F, llama2-70b-99: 27,803.9 tokens/s Offline (vLLM 0.9, ROCm 6.4.1),
  and 8xMI325X_2xEPYC_9575F_1: 34,520.4 tokens/s. closed/AMD/results/<system>/summary.html "Results Table",
  mirrored in ntuhpc/inference_results_v5.1 @965182b; their samples/s are not in the stored copy, so the output
  per sample is the two earlier runs' mean (295) [D].

Server scenario (the same systems; the largest Poisson request rate whose 99th-percentile TTFT stays within 2 s and
TPOT within 200 ms): v4.1 8x MI300X 21,028.23 tokens/s (71.74 samples/s; its Server mlperf_log_summary.txt beside
the Offline one), v5.0 8x MI325X 30,724.51 tokens/s (103.83 samples/s; llama2-70b-99.9/Server/performance/run_1/
mlperf_log_summary.txt), v5.1 8x MI300X 24,593.8 and 8x MI325X 32,027.6 tokens/s (the same summary.html tables).
Expressed as ``serving_search.max_rate`` with TTFT 2,000 ms and TPOT 200 ms targets. All four are pinned misses,
estimated 18-79% high: MLPerf's limits are 99th percentiles and the estimate's TTFT and TPOT are means (the v5.0
MI325X run's mean TPOT was 160 ms with its 99th percentile at 199 ms, the limit), so the estimate admits a rate the
tail would refuse; the MI300X points add the Offline misses' reasons.

How the run is expressed: Llama 2 70B is the Llama 3 70B shape with Llama 2's 32,000-token vocabulary
(meta-llama/Llama-2-70b-hf config.json: 80 layers, hidden 8192, 64 heads, 8 KV heads, FFN 28672); FP8 weights and
KV cache; one model copy per GPU (tensor parallel 1: the same submitter also ran the benchmark on one MI300X), the
node's eight copies aggregated, at unbounded concurrency (Offline: every sample queued at once). Prompts: the
benchmark's 24,576 OpenOrca samples hold 5,463,976 input tokens, 222 per sample [S: FlashLab-MBZUAI/HBFSim @96cf1b3
validation/calibration/h100-llama2-70b-calibration-protocol.json, the digest-checked MLCommons pickle's
``tok_input_length`` sum]; outputs: the run's own tokens / samples (293.4 and 296.9 per sample) [D].

Misses, pinned: MI300X is estimated 60% high in v4.1 and 36% high in v5.1, while the MI325X of v5.0 and v5.1, the
same CDNA 3 chip at the same dense peak (1,307 BF16 TFLOP/s), lands within 15% (+12%, +10%). The estimate is compute
bound and treats the two alike; measured, the v5.0 MI325X node delivers 1.22x the v5.1 MI300X node. The MI325X runs
its chip at 1,000 W against the MI300X's 750 W (systems.toml) with 13% more HBM bandwidth, so the MI300X's sustained
clocks, not its datasheet peak, set its pace; the MI300X's own software gained 1.18x from v4.1 to v5.1 as well. The
borrowed Hopper fractions know neither. The tests keep each miss inside the band it misses by, so a change that
makes one worse fails.

Expert all-to-all on the unified bus (held out; the serving model's DeepEP constants were fitted on H800):
DeepEP-Ascend's low-latency kernels on an "A3 384 SuperPOD" (CloudMatrix 384), 128 tokens per batch, hidden 7168,
top-8, INT8 dispatch, BF16 combine, pure HCCS: dispatch 132 / 139 / 153 us and combine 126 / 135 / 151 us at EP 8 /
16 / 32 (sgl-project/sgl-kernel-npu README.md @060a3fa, "DeepEP-Ascend Performance", "Low-Latency Kernels with Pure
HCCS"). Its ranks are dies (each 910C package is two devices, each a rank: Huawei CANN HCCL guide hcclug_000066);
the catalog counts packages, so EP 2k dies is expressed as k packages with the tokens of their two dies (256). The
INT8 dispatch is one byte per value, as the model's FP8 dispatch. Combine lands within 15% at every EP; dispatch is
a pinned miss, 35-43% low: the model's fixed dispatch cost is DeepEP's CUDA kernel's on H800 (35 us), and
DeepEP-Ascend's dispatch (quantizing to INT8 on the way) costs about 100 us at EP 8, growing with EP inside the
domain, where the model adds nothing. This checks the serving model's all-to-all on the bus, not HCCL's
collectives: HCCL keeps its *not validated* badge (no published HCCL collective measurement with its hardware named
was found).

Not expressible, so not compared (said here and in docs/model.md rather than approximated):

* The CloudMatrix 384 paper's serving throughput (Zuo et al., "Serving Large Language Models on Huawei
  CloudMatrix384", arXiv 2506.12708, 2025-06-15: DeepSeek-R1, prefill 6,688 tokens/s per NPU, decode 1,943 tokens/s
  per NPU at TPOT < 50 ms and 538 at < 15 ms, EP320 decode). Every one of those runs is INT8 (W8A8); the Ascend 910C
  has no FP8 or FP4 units and the serving model has no INT8 precision, so the deployment cannot be expressed: FP8 is
  refused on the 910C (tested below) and a BF16 estimate is a different run.
* MLPerf Training on AMD: v5.0 (2025-06-04) AMD's only benchmark on MI300X and MI325X was Llama 2 70B LoRA
  fine-tuning (training_results_v5.0 AMD/results/MI300X_EPYC_9575F_pytorch and MI325X_EPYC_9575F_pytorch,
  llama2_70b_lora/result_*.txt, mirrored in prishajain1/training_results_v5.0 @0fdc28f). The training estimate
  models pre-training (every weight trained); LoRA trains low-rank adapters on frozen weights, so its step is not
  what the estimate computes.
* MLPerf Training on Intel Gaudi 2: v4.0 (2024-06-12) GPT-3 175B on 1,024 cards (mlcommons/training_results_v4.0
  @62f111b Intel-HabanaLabs/results/HLS-Gaudi2-N128-PT/gpt3/result_*.txt; the earlier rounds' 384-card runs are the
  same benchmark) and Llama 2 70B LoRA on 8 cards (HLS-Gaudi2-PT/llama2_70b_lora). The catalog has Gaudi 3, not
  Gaudi 2, and the GPT-3 benchmark is published as time to a target perplexity from a checkpoint, not as throughput.
  No Gaudi 3 MLPerf Training result was found.

So no published training run backs an AMD, Intel or Huawei family: the training estimate keeps its "Not validated
on {family}" sentence for them (core.perf.training_calibration.error_band_sentence, one truth:
``TrainingCatalog.calibrated``), tested in tests/test_training_validation.py.
"""

from __future__ import annotations

import pytest

from core.design import Design
from core.errors import DesignError
from core.perf import serving
from core.perf.serving_search import max_rate
from core.perf.training import model_preset
from core.plan import plan

TOLERANCE = 0.15
MLPERF_INPUT_TOKENS = 222
"""Mean prompt of the MLPerf Llama 2 70B OpenOrca set: 5,463,976 tokens over 24,576 samples."""
MLPERF = [  # id, gpu, published tokens/s of the node, output tokens per sample
    ("v4.1-8xMI300X", "MI300X", 23_514.8, 23_514.8 / 80.15),
    ("v5.0-8xMI325X", "MI325X", 33_928.1, 33_928.1 / 114.262),
    ("v5.1-8xMI300X", "MI300X", 27_803.9, 295),
    ("v5.1-8xMI325X", "MI325X", 34_520.4, 295),
]
MISSES = {
    "v4.1-8xMI300X": (0.65, "60% high: the MI300X at 750 W and the first-round ROCm / vLLM stack (module docstring)"),
    "v5.1-8xMI300X": (0.40, "36% high: the MI300X at 750 W; the MI325X at 1,000 W lands within 15%"),
}


def llama2_70b():
    """Llama 2 70B: the Llama 3 70B shape with Llama 2's 32,000-token vocabulary."""
    return model_preset("llama3-70b").model_copy(update={"name": "Llama 2 70B", "vocab": 32000})


def mlperf_offline(gpu: str, output_tokens: float) -> float:
    """Estimated generated tokens/s of one 8-GPU node in the MLPerf Offline scenario (FP8, one copy per GPU)."""
    dep = serving.parse_deployment({
        "model": llama2_70b(), "mode": "aggregated", "precision": "fp8", "kv_precision": "fp8",
        "decode": {"nodes": 1, "tp": 1},
        "workload": {"input_tokens": MLPERF_INPUT_TOKENS, "output_tokens": round(output_tokens),
                     "concurrency": 1_000_000}})
    return serving.estimate(plan(Design(gpu=gpu, nodes=2)), dep).output_tokens_per_s


@pytest.mark.parametrize("run, gpu, published, output_tokens", MLPERF)
def test_mlperf_inference_llama2_70b_offline(run, gpu, published, output_tokens):
    got = mlperf_offline(gpu, output_tokens)
    band = MISSES.get(run, (TOLERANCE, ""))[0]
    assert abs(got / published - 1) <= band, (run, got, published)
    if run in MISSES:  # a pinned miss stays a miss of the stated sign, not a silent pass
        assert got / published - 1 > TOLERANCE


def test_borrowed_fractions_are_marked_as_such():
    from core.perf.serving_constants import load_serving_constants

    constants = load_serving_constants()
    for family in ("CDNA 3", "CDNA 4", "Gaudi 3", "Da Vinci (Ascend 910B)", "Da Vinci (Ascend 910C)"):
        assert constants.efficiency_of(family).source.startswith("[A]"), family


def test_cloudmatrix_int8_deployment_cannot_be_expressed():
    """The paper's W8A8 DeepSeek-R1 on the 910C: no FP8 units, and the model has no INT8, so FP8 is refused."""
    dep = serving.parse_deployment({
        "model": "deepseek-r1", "precision": "fp8",
        "prefill": {"nodes": 2, "dp": 16, "ep": 16, "redundant_experts": 32},
        "decode": {"nodes": 20, "dp": 160, "ep": 160, "redundant_experts": 64},
        "workload": {"input_tokens": 4096, "output_tokens": 1}})
    with pytest.raises(DesignError, match="FP8"):
        serving.decode_step(plan(Design(gpu="CloudMatrix384", nodes=48)), dep, 96)
    assert "int8" not in serving.ServingPrecision.__args__


DEEPEP_ASCEND = {8: (132, 126), 16: (139, 135), 32: (153, 151)}  # EP in dies: (dispatch us, combine us)
DISPATCH_MISS = 0.45
"""The dispatch's pinned miss: 35-43% low (DeepEP-CUDA's fixed cost; the Ascend kernel's is larger)."""


@pytest.mark.parametrize("dies", sorted(DEEPEP_ASCEND))
def test_deepep_ascend_low_latency_on_the_unified_bus(dies):
    e = serving.ep_layer(plan(Design(gpu="CloudMatrix384", nodes=48)), dies // 2, 2 * 128, 8, 7168, "low-latency")
    dispatch, combine = DEEPEP_ASCEND[dies]
    assert e.level == "nvlink" and e.remote == 0  # inside the 384-NPU domain: on the bus, never the RoCE plane
    assert abs(e.combine_s * 1e6 / combine - 1) <= TOLERANCE, (e.combine_s * 1e6, combine)
    assert -DISPATCH_MISS <= e.dispatch_s * 1e6 / dispatch - 1 < -TOLERANCE, (e.dispatch_s * 1e6, dispatch)


MLPERF_SERVER = [  # id, gpu, published tokens/s of the node, output tokens per sample, band of the pinned miss
    ("v4.1-8xMI300X", "MI300X", 21_028.23, 21_028.23 / 71.74, 0.85),
    ("v5.0-8xMI325X", "MI325X", 30_724.51, 30_724.51 / 103.83, 0.30),
    ("v5.1-8xMI300X", "MI300X", 24_593.8, 295, 0.60),
    ("v5.1-8xMI325X", "MI325X", 32_027.6, 295, 0.25),
]


@pytest.mark.parametrize("run, gpu, published, output_tokens, band", MLPERF_SERVER)
def test_mlperf_inference_llama2_70b_server(run, gpu, published, output_tokens, band):
    """Pinned misses, all high: MLPerf's TTFT / TPOT limits are 99th percentiles, the estimate's are means."""
    dep = serving.parse_deployment({
        "model": llama2_70b(), "mode": "aggregated", "precision": "fp8", "kv_precision": "fp8",
        "decode": {"nodes": 1, "tp": 1},
        "workload": {"input_tokens": MLPERF_INPUT_TOKENS, "output_tokens": round(output_tokens),
                     "ttft_ms": 2000, "tpot_ms": 200}})
    rate = max_rate(plan(Design(gpu=gpu, nodes=2)), dep)
    error = rate * round(output_tokens) / published - 1
    assert TOLERANCE < error <= band, (run, error)
