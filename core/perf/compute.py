"""Compute time of one training micro-batch from the GPU and the model's shapes.

Instead of one achievable fraction of peak per architecture, the time of a micro-batch on one pipeline
stage is the sum of what its kernels need (``assets/catalog/training.toml`` ``[compute]``, ``[[precision]]``,
``[[kernels]]``)::

    t = GEMM FLOPs / (peak_p x gemm_p x width / (width + w_half))                       dense layers, output
      + expert FLOPs / (peak_p x gemm_p x width_e / (width_e + w_half) x n / (n + n_half))   routed experts
      + score FLOPs / (peak_bf16 x attention x chunk / (chunk + c_half))                 FlashAttention
      + (cast_bytes_p x GEMM operand elements + elementwise_bytes x hidden x layers
         + activation_bytes x MLP inner width x layers (experts: x their copies)
         + moe_bytes x hidden x routed copies) / (HBM bandwidth x memory_fraction)       memory-bound kernels

``peak_p`` is the GPU's dense tensor peak at the precision's format (``System.peak_tflops``), ``gemm_p`` the
share of it a large GEMM sustains on this architecture (fitted per architecture and precision, so the FP8
scaling recipe, MXFP8 and NVFP4 each have their own), ``width`` the GEMM's narrow side on one GPU (per
linear layer for the dense ones, tp splitting the side it shards: ``dense_gemm_shape``; the expert width for the
experts), ``n`` the tokens one local expert receives per micro-batch (tokens per GPU x top_k x ep / experts: few experts per GPU get many tokens each, many get few),
``chunk`` the sequence one context-parallel rank holds. Quantizing GEMM operands and the elementwise and
token-permutation kernels are memory-bound: they do not speed up with the precision, which is why an MoE model
gains far less from FP8 than a dense one (published DeepSeek-V3 on GB300: 1.13x).

Power limits and clocks are not a separate term: the catalog's dense peaks are per system and already differ
by them (B200 at 1,000 W: 2.25 PFLOP/s BF16, GB200 at 1,200 W: 2.5), and the published same-split pairs show no
further dependence on power (GB200 / B200 on Llama 3 8B FP8: 1.03, their peak ratio 1.11). What Blackwell Ultra
gains at the same peaks (1,400 W, twice the softmax SFU rate) is in its own ``[[kernels]]`` shares.

Units: FLOP, bytes, seconds, TFLOP/s and TB/s as in ``core.catalog.System``.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import SettingError
from core.i18n import _
from core.perf.training_constants import load_training_catalog

FULL_RECOMPUTE_FACTOR = 4.0 / 3.0
"""Full activation recompute runs every forward twice: forward + backward = 3 forwards become 4."""


def precision_peak_tflops(system, precision: str) -> float:
    """Dense tensor peak of one GPU of ``system`` at ``precision`` [TFLOP/s].

    ``precision`` is a training precision (``[[precision]]`` in training.toml: bf16, fp8, fp8-128, mxfp8,
    nvfp4) or a tensor-core format (bf16, fp8, fp4). ``SettingError`` (a ``DesignError``) naming the precisions the GPU has when it
    has no tensor cores for this one; the microscaling formats (MXFP8, NVFP4) need Blackwell's FP4-capable
    tensor cores (a GPU with an FP4 peak in the catalog).
    """
    cat = load_training_catalog()
    names = {p.name: p for p in cat.precision}
    fmt = names[precision].peak if precision in names else precision
    microscaled = precision in ("mxfp8", "nvfp4")
    peak = system.peak_tflops(fmt)
    if peak <= 0 or (microscaled and system.peak_tflops("fp4") <= 0):
        have = ([p.name for p in cat.precision if _supports(system, p.name, p.peak)] if precision in names else
                [f for f in ("bf16", "fp8", "fp4") if system.peak_tflops(f) > 0])  # a tensor-core format (serving)
        raise precision_error(system, precision, have)
    return peak


def precision_error(system, precision: str, have: list[str]) -> SettingError:
    """The error for a ``precision`` ``system``'s matrix units do not run (NVIDIA's Tensor Cores, AMD's Matrix
    Cores, Ascend's Cube units: named generically), with the precisions it has (``have``) as the fix."""
    return SettingError("precision", _("{gpu} has no {precision} matrix units.").format(
        gpu=system.gpu_name, precision=precision.upper()), _("Use precision {have}.").format(have=", ".join(have)))


def precision_label(name: str) -> str:
    """A training precision (``Precision``) for display: the format's name, FP8 with its scaling."""
    labels = {"fp8": _("FP8 (per-tensor scaling)"), "fp8-128": _("FP8 (block scaling)")}
    return labels.get(name, name.upper())


def _supports(system, name: str, fmt: str) -> bool:
    """Whether ``system`` has tensor cores for training precision ``name`` (format ``fmt``)."""
    if system.peak_tflops(fmt) <= 0:
        return False
    return name not in ("mxfp8", "nvfp4") or system.peak_tflops("fp4") > 0


def supported_precisions(system) -> list[str]:
    """The training precisions ``system``'s tensor cores run, in the catalog's order (bf16 first)."""
    return [p.name for p in load_training_catalog().precision if _supports(system, p.name, p.peak)]


@dataclass
class MicroBatchCompute:
    """One micro-batch's compute on one GPU of the fullest pipeline stage, by kernel kind [s], and its model FLOPs."""

    gemm_s: float
    expert_s: float
    attention_s: float
    cast_s: float
    elementwise_s: float
    moe_s: float
    flops: float
    """Model FLOPs of the micro-batch on this GPU (the dgxc-benchmarking count, ``ModelSpec.flops_per_token``)."""

    @property
    def total_s(self) -> float:
        return self.gemm_s + self.expert_s + self.attention_s + self.cast_s + self.elementwise_s + self.moe_s

    def parts(self) -> dict[str, float]:
        """The kinds' times [s] by name."""
        return {"gemm": self.gemm_s, "experts": self.expert_s, "attention": self.attention_s, "casts": self.cast_s,
                "elementwise": self.elementwise_s, "moe_routing": self.moe_s}


def _operand_elements(mdl) -> tuple[float, float]:
    """(dense, per routed copy) GEMM operand widths of one token summed over the model's linear layers: each
    linear layer K x N quantizes its input (K) and its output gradient (N)."""
    h = mdl.hidden
    qkv = mdl.attention_params / h - mdl.heads * mdl.v_dim  # every projection but the output one, per unit hidden
    attn = (h + qkv) + (mdl.heads * mdl.v_dim + h)
    first = mdl.ffn * (2 if mdl.mlp_matrices == 3 else 1)
    dense_mlp = (h + first) + (mdl.ffn + h)
    copy = (h + 2 * mdl.moe_ffn) + (mdl.moe_ffn + h)
    dense_layers = mdl.layers - mdl.moe_layers
    dense = mdl.layers * attn + dense_layers * dense_mlp + mdl.moe_layers * mdl.shared_experts * copy
    return dense + h + mdl.vocab, mdl.moe_layers * mdl.top_k * copy


def dense_gemm_shape(mdl, tp: int, half: float) -> float:
    """FLOP-weighted share of the large-GEMM rate the model's dense linear layers reach on one GPU of a ``tp``-way
    split: each linear layer K x N (column-parallel ones split N by tp, row-parallel ones K) at w / (w + ``half``),
    w = min(K, N) its narrow side on the GPU; the output layer included, the router left out (tiny)."""
    h = mdl.hidden
    in_proj = mdl.attention_params / h - mdl.heads * mdl.v_dim
    out_proj = mdl.heads * mdl.v_dim
    first = mdl.ffn * (2 if mdl.mlp_matrices == 3 else 1)
    shared_ffn = mdl.shared_experts * mdl.moe_ffn
    dense_layers = mdl.layers - mdl.moe_layers
    linears = [  # (count, K, N) on one GPU
        (mdl.layers, h, in_proj / tp), (mdl.layers, out_proj / tp, h),
        (dense_layers, h, first / tp), (dense_layers, mdl.ffn / tp, h),
        (mdl.moe_layers, h, 2 * shared_ffn / tp), (mdl.moe_layers, shared_ffn / tp, h),
        (1, h, mdl.vocab / tp),
    ]
    flops = time = 0.0
    for count, k, n in linears:
        if count and k > 0 and n > 0:
            work = count * k * n
            w = min(k, n)
            flops += work
            time += work * (w + half) / w
    return flops / time if time else 1.0


def expert_tokens(job) -> float:
    """Tokens one local expert receives per micro-batch: the GPU's tokens x top_k spread over the experts, of
    which it holds experts / ep (0 for a dense model)."""
    mdl = job.model
    if not mdl.is_moe:
        return 0.0
    return job.seq_len / job.cp * job.micro_batch / job.tp * mdl.top_k * job.ep / mdl.experts


def micro_batch_compute(job, system, stage_share: float) -> MicroBatchCompute:
    """Compute of one micro-batch of ``job`` on one GPU of ``system`` holding ``stage_share`` of the layers.

    ``job`` is a ``core.perf.training.TrainingJob``; see the module docstring for the terms. Full recompute
    multiplies every term by 4/3.
    """
    cat = load_training_catalog()
    c = cat.compute
    mdl = job.model
    kernels = cat.architecture_compute(system.architecture)
    recipe = cat.recipe(job.precision)
    if job.precision not in kernels.gemm:
        raise precision_error(system, job.precision, [p for p in supported_precisions(system) if p in kernels.gemm])
    peak = precision_peak_tflops(system, job.precision) * 1e12 * kernels.gemm[job.precision]
    bf16 = system.peak_tflops("bf16") * 1e12
    bandwidth = system.hbm_tbytes_per_s * 1e12 * c.memory_fraction
    chunk = job.seq_len / job.cp
    tokens = chunk * job.micro_batch / job.tp  # per GPU: TP splits every GEMM's width, SP the token-wise kernels
    scale = stage_share * (FULL_RECOMPUTE_FACTOR if job.recompute == "full" else 1.0)
    routed = mdl.moe_layers * mdl.top_k * 3.0 * mdl.hidden * mdl.moe_ffn
    scores = 6.0 * mdl.attended_tokens(job.seq_len) * mdl.heads * (mdl.qk_dim + mdl.v_dim)
    dense_flops = 6.0 * (mdl.active_params - routed) * tokens  # active_params counts the output layer once
    gemm = dense_flops / (peak * dense_gemm_shape(mdl, job.tp, c.gemm_width_half))
    expert = 0.0
    moe = 0.0
    if mdl.is_moe:
        n = expert_tokens(job)
        shape = mdl.moe_ffn / (mdl.moe_ffn + c.gemm_width_half) * n / (n + c.expert_tokens_half)
        expert = 6.0 * routed * tokens / (peak * shape)
        moe = c.moe_bytes * mdl.hidden * mdl.moe_layers * mdl.top_k * tokens / bandwidth
    attention = scores * tokens / (bf16 * kernels.attention * chunk / (chunk + c.attention_chunk_half))
    dense_ops, copy_ops = _operand_elements(mdl)
    cast = recipe.cast_bytes * (dense_ops + copy_ops) * tokens / bandwidth
    inner = (mdl.layers - mdl.moe_layers) * mdl.ffn + mdl.moe_layers * (mdl.top_k + mdl.shared_experts) * mdl.moe_ffn
    elementwise = (c.elementwise_bytes * mdl.hidden * mdl.layers + c.activation_bytes * inner) * tokens / bandwidth
    flops = mdl.flops_per_token(job.seq_len) * tokens
    return MicroBatchCompute(gemm * scale, expert * scale, attention * scale, cast * scale, elementwise * scale,
                             moe * scale, flops * stage_share)


__all__ = ["MicroBatchCompute", "dense_gemm_shape", "expert_tokens", "micro_batch_compute", "precision_label",
           "precision_peak_tflops", "supported_precisions"]
