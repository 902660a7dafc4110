"""Training-step estimator: how long one step of a transformer takes on a planned cluster.

The step is the compute of one pipeline stage over all its micro-batches, plus the
pipeline bubble, plus the part of each parallelism's communication that is not hidden
behind compute::

    step = m * t_mb + (pp - 1) / vp * t_mb + sum_x exposed_x
    exposed_x = max((1 - overlap_x) * comm_x, comm_x - window_x)

``overlap_x`` is the share a framework hides when there is compute enough; ``window_x``
is the compute that communication can actually run behind:

* TP: the compute of the layers it belongs to (all of the stage's compute);
* CP: the attention-score compute it is pipelined with;
* PP: the stage's compute (sends of one micro-batch overlap the next one's math);
* DP: one micro-batch's forward and backward (Megatron reduces gradients during the
  last micro-batch's backward and gathers parameters during the first one's forward);
  DP and expert-DP share that window in proportion to their time; under ZeRO-3 each layer's gathers and
  reduce-scatters run behind the other layers' compute, so the window is all of it;
* EP: the compute of the mixture-of-experts layers.

Finally no more communication is hidden in total than there is compute, so
``step >= compute + bubble`` and ``step >= total communication + bubble``.

where ``m = global_batch / (micro_batch * dp)`` micro-batches, ``t_mb`` the compute of
one micro-batch on one stage (model FLOPs / (peak x achievable fraction)), and
``comm_x`` the time of tensor (TP), context (CP), pipeline (PP), data (DP) and expert
(EP) parallel communication on this fabric from ``core.collectives``. Model FLOPs
follow NVIDIA/dgxc-benchmarking's formula (6 x active parameters + attention scores
+ logits per token); the achievable fraction of peak is by GPU architecture and dense/MoE
(``assets/catalog/training.toml``) unless the job sets it.

Memory per GPU is that of the fullest pipeline stage (``_memory``): its layers' weights,
gradients and optimizer state under the job's ZeRO stage (``TrainingJob.zero``, ``_state_bytes``: 0 nothing
sharded; 1 the optimizer state over data-parallel ranks, Megatron-Core's distributed optimizer, the default;
2 the gradients too, as Llama 3 ran FSDP: an fp32 shard and one model chunk's fp32 accumulator; 3 the
parameters too, FSDP full sharding: one or two layers gathered at a time), the embedding and logits on the
first and last stage, DualPipe's second parameter copy, and activations = micro-batches in
flight under the schedule (1F1B, interleaved, DualPipe; ``_in_flight``) x per-layer bytes from
Korthikanti et al. 2022 term by term (``activation_bytes_per_token``: grouped-query attention,
SwiGLU, FlashAttention, MLA latents, FP8-cached linear inputs, MoE routed copies), split over
TP (sequence parallel) and CP. Within ``[memory] tolerance`` of the usable HBM a job is a
warning with its margin; beyond it an error. Overlap and bytes-per-parameter constants are in
``assets/catalog/collectives.toml`` ``[training]``.

Rank layout (Megatron default order tp-cp-dp-pp): TP ranks are adjacent GPUs, CP
groups stride TP, DP groups stride TP x CP, pipeline stages stride TP x CP x DP; EP
groups are carved out of the DP x CP x TP ranks with stride TP x CP.

Units: time in seconds [s] unless a name says us; bytes; FLOP; memory in GB of HBM, counted as GiB
(2^30 B), the unit GPU memory is sold in (an "80 GB" H100 reports 81,559 MiB; ``[memory] capacity_unit_bytes``
in training.toml); communication volumes in GB (1e9 B).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core.memo import stage
from core.perf import congestion
from core.perf.collectives import nccl_release, nccl_release_now, sweep
from core.perf.commview import BusbwPlan, busbw_plan_bytes
from core.perf.compute import FULL_RECOMPUTE_FACTOR, micro_batch_compute, precision_peak_tflops
from core.perf.constants import constants_for, load_constants
from core.perf.expert_dispatch import ep_layer
from core.perf.placement import links, p2p_contention, place
from core.perf.training_constants import load_training_catalog
from core.design import describe_validation_error
from core.errors import DesignError, InputError, shown
from core.i18n import _
from core.plan import Plan, cost_basis, tco_share_usd_per_s
from core.units import percent

Precision = Literal["bf16", "fp8", "fp8-128", "mxfp8", "nvfp4"]
"""Training precisions: ``[[precision]]`` in assets/catalog/training.toml (FP8 with per-tensor or block scaling,
MXFP8 and NVFP4 on Blackwell)."""
Recompute = Literal["none", "selective", "full"]
Schedule = Literal["1f1b", "dualpipe"]
Activation = Literal["swiglu", "gelu", "relu2"]
ACTIVATION_MATRICES: dict[str, int] = {"swiglu": 3, "gelu": 2, "relu2": 2}
"""MLP weight matrices of each activation: SwiGLU gate, up and down; GELU and squared ReLU up and down."""
ZeroStage = Literal[0, 1, 2, 3]
CpComm = Literal["ring", "all-to-all"]
CP_COMMS: tuple[str, ...] = ("ring", "all-to-all")
"""Context-parallel exchanges a job may declare (the CLI, the link and the page offer these)."""
ZERO_STAGES: tuple[int, ...] = (0, 1, 2, 3)
"""ZeRO stages a job may declare (3 = FSDP full sharding); the CLI, the link and the page offer these."""
Offload = Literal["none", "optimizer"]
OFFLOADS: tuple[str, ...] = ("none", "optimizer")
"""CPU offload a job may declare (``optimizer``: ZeRO-Offload); the CLI, the link and the page offer these."""
SECONDS_PER_DAY = 86400.0
MAX_GLOBAL_BATCH = 1_000_000
"""Largest global batch [sequences] the estimator, the share link and the page accept."""
DEFAULT_MODEL = "llama3-70b"
"""The default training job's model (a ``PRESETS`` key). With the constants below, the one declaration of the
default job that ``python -m core train``, the Performance page, its link (``core.formats.joblink``), the Compare
and Sweep pages and the review pack read."""
DEFAULT_SEQ_LEN = 8192
"""The default job's sequence length [tokens]."""
DEFAULT_GLOBAL_BATCH = 1024
"""The default job's global batch [sequences], rounded up to a multiple of micro-batch x dp (``fitting_split``)."""
DEFAULT_TP, DEFAULT_PP = 8, 4
"""The first split the search tries (``choose_split``), cut to the design (``fitting_split``). The default split
itself is the search's answer, the fastest that fits (``default_split``)."""


class ModelSpec(BaseModel):
    """A decoder-only transformer, dense or mixture-of-experts.

    Parameters
    ----------
    name : str
    layers, hidden, ffn, heads, kv_heads, vocab : int
        Architecture; ``ffn`` is the dense MLP width.
    mlp_matrices : int
        3 for SwiGLU (gate, up, down), 2 for GELU or squared ReLU (up, down); experts have the same MLP.
    activation : {"swiglu", "gelu", "relu2"} or None
        The MLP's activation (``relu2``: squared ReLU, Nemotron-4); None = from ``mlp_matrices`` (3 SwiGLU,
        2 GELU). Given alone it sets ``mlp_matrices``.
    tied_embeddings : bool
        Input and output embeddings share weights.
    moe_layers, experts, top_k, shared_experts, moe_ffn : int
        Mixture of experts: layers whose MLP is an expert layer, routed experts,
        experts per token, always-on shared experts, expert MLP width.
    q_lora_rank, kv_lora_rank, qk_nope_dim, qk_rope_dim, v_head_dim : int
        Multi-head latent attention (DeepSeek); 0 = standard attention.
    source : str
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    layers: int = Field(ge=1, le=1000)
    hidden: int = Field(ge=64, le=200_000)
    ffn: int = Field(ge=1, le=1_000_000)
    heads: int = Field(ge=1, le=4096)
    kv_heads: int = Field(ge=1, le=4096)
    vocab: int = Field(ge=1, le=10_000_000)
    mlp_matrices: int = Field(default=3, ge=2, le=3)
    activation: Activation | None = None
    tied_embeddings: bool = False
    moe_layers: int = Field(default=0, ge=0)
    experts: int = Field(default=0, ge=0)
    top_k: int = Field(default=0, ge=0)
    shared_experts: int = Field(default=0, ge=0)
    moe_ffn: int = Field(default=0, ge=0)
    q_lora_rank: int = Field(default=0, ge=0)
    kv_lora_rank: int = Field(default=0, ge=0)
    qk_nope_dim: int = Field(default=0, ge=0)
    qk_rope_dim: int = Field(default=0, ge=0)
    v_head_dim: int = Field(default=0, ge=0)
    dropout: bool = False
    """Dropout after attention and MLP (its masks are saved for backward; Korthikanti et al. count them)."""
    first_dense_layers: int | None = Field(default=None, ge=0)
    """Dense layers before the first MoE layer (default: layers - moe_layers)."""
    head_size: int = Field(default=0, ge=0, le=4096)
    """Per-head dimension when it is not ``hidden / heads`` (Qwen3, gpt-oss); 0 = ``hidden / heads``."""
    sliding_window: int = Field(default=0, ge=0)
    """Tokens a sliding-window attention layer attends to (gpt-oss: 128); 0 = none."""
    sliding_layers: int = Field(default=0, ge=0)
    """Layers with sliding-window attention (the rest attend to the whole context)."""
    source: str = "user-defined"

    @model_validator(mode="before")
    @classmethod
    def _matrices_from_activation(cls, data):
        if isinstance(data, dict) and data.get("activation") in ACTIVATION_MATRICES and "mlp_matrices" not in data:
            data = {**data, "mlp_matrices": ACTIVATION_MATRICES[data["activation"]]}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> "ModelSpec":
        if self.activation is not None and ACTIVATION_MATRICES[self.activation] != self.mlp_matrices:
            raise ValueError(_("activation {activation} has {matrices} MLP matrices, not mlp_matrices = "
                               "{given}").format(activation=self.activation,
                                                 matrices=ACTIVATION_MATRICES[self.activation],
                                                 given=self.mlp_matrices))
        if self.mla and not (self.qk_rope_dim and self.qk_nope_dim and self.v_head_dim):
            raise ValueError(_("multi-head latent attention (kv_lora_rank) needs qk_nope_dim, qk_rope_dim and "
                               "v_head_dim"))
        if self.first_dense_layers is not None and self.first_dense_layers + self.moe_layers > self.layers:
            raise ValueError(_("first_dense_layers + moe_layers cannot exceed layers"))
        if self.kv_heads > self.heads or self.heads % self.kv_heads:
            raise ValueError(_("heads must be a multiple of kv_heads"))
        if self.moe_layers > self.layers:
            raise ValueError(_("moe_layers cannot exceed layers"))
        if self.moe_layers and not (self.experts and self.top_k and self.moe_ffn):
            raise ValueError(_("a mixture-of-experts model needs experts, top_k and moe_ffn"))
        if self.top_k > self.experts:
            raise ValueError(_("top_k cannot exceed experts"))
        if self.sliding_layers > self.layers or (self.sliding_layers and not self.sliding_window):
            raise ValueError(_("sliding_layers needs a sliding_window and cannot exceed layers"))
        return self

    # --- sizes --------------------------------------------------------------------------
    @property
    def is_moe(self) -> bool:
        return self.moe_layers > 0

    @property
    def mlp_kind(self) -> str:
        """The MLP's activation: ``activation``, else SwiGLU for 3 matrices and GELU for 2."""
        return self.activation or ("swiglu" if self.mlp_matrices == 3 else "gelu")

    @property
    def attention_kind(self) -> str:
        """``mla`` (latent attention), ``mha`` (as many key/value heads as heads) or ``gqa``."""
        return "mla" if self.mla else "mha" if self.kv_heads == self.heads else "gqa"

    @property
    def mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def head_dim(self) -> int:
        return self.head_size or self.hidden // self.heads

    @property
    def qk_dim(self) -> int:
        return self.qk_nope_dim + self.qk_rope_dim if self.mla else self.head_dim

    @property
    def v_dim(self) -> int:
        return self.v_head_dim if self.mla else self.head_dim

    @property
    def attention_params(self) -> float:
        """Parameters of one attention block (projections only)."""
        h, a = self.hidden, self.heads
        if self.mla:
            q = (h * self.q_lora_rank + self.q_lora_rank * a * self.qk_dim) if self.q_lora_rank else h * a * self.qk_dim
            kv = h * (self.kv_lora_rank + self.qk_rope_dim) + self.kv_lora_rank * a * (self.qk_nope_dim + self.v_dim)
            return float(q + kv + a * self.v_dim * h)
        return float(h * self.head_dim * (2 * a + 2 * self.kv_heads))

    @property
    def dense_mlp_params(self) -> float:
        return float(self.mlp_matrices * self.hidden * self.ffn)

    @property
    def expert_params_per_layer(self) -> float:
        """Routed experts of one MoE layer (sharded by expert parallelism)."""
        return float(self.experts * self.mlp_matrices * self.hidden * self.moe_ffn)

    @property
    def moe_layer_dense_params(self) -> float:
        """Shared experts and router of one MoE layer (replicated like dense weights)."""
        return float(self.shared_experts * self.mlp_matrices * self.hidden * self.moe_ffn + self.hidden * self.experts)

    @property
    def embedding_params(self) -> float:
        return float(self.vocab * self.hidden * (1 if self.tied_embeddings else 2))

    @property
    def expert_params(self) -> float:
        return self.moe_layers * self.expert_params_per_layer

    @property
    def dense_params(self) -> float:
        """Every parameter that is not a routed expert."""
        dense_layers = self.layers - self.moe_layers
        return (self.layers * self.attention_params + dense_layers * self.dense_mlp_params
                + self.moe_layers * self.moe_layer_dense_params + self.embedding_params)

    @property
    def total_params(self) -> float:
        return self.dense_params + self.expert_params

    @property
    def active_params(self) -> float:
        """Parameters one token passes through (embeddings counted once)."""
        routed = self.moe_layers * self.top_k * self.mlp_matrices * self.hidden * self.moe_ffn
        return self.dense_params - self.vocab * self.hidden * (0 if self.tied_embeddings else 1) + routed

    def attended_tokens(self, context: float) -> float:
        """Keys one query attends to, summed over the layers [tokens x layers] at ``context`` tokens: full layers
        see the whole context, sliding-window layers at most the window."""
        sliding = self.sliding_layers
        return (self.layers - sliding) * context + sliding * min(context, self.sliding_window)

    def flops_per_token(self, seq_len: int) -> float:
        """Model FLOPs per token for forward + backward (NVIDIA/dgxc-benchmarking formula).

        6 x (active non-embedding parameters) + 6 x vocab x hidden (logits)
        + 6 x layers x seq x heads x (qk_dim + v_dim) (attention scores, not halved for causal masking; a
        sliding-window layer counts at most its window: ``attended_tokens``).
        """
        non_embedding = self.active_params - self.vocab * self.hidden
        scores = 6.0 * self.attended_tokens(seq_len) * self.heads * (self.qk_dim + self.v_dim)
        return 6.0 * non_embedding + 6.0 * self.vocab * self.hidden + scores


_LLAMA_SRC = ("meta-llama/llama-models models/sku_list.py and the Llama 3 paper Table 3 "
              "(dim, layers, heads, kv heads, ffn 14336/28672/53248, vocab 128256)")
PRESETS: dict[str, ModelSpec] = {
    "llama3-8b": ModelSpec(name="Llama 3 8B", layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8,
                           vocab=128256, source=_LLAMA_SRC),
    "llama3-70b": ModelSpec(name="Llama 3 70B", layers=80, hidden=8192, ffn=28672, heads=64, kv_heads=8,
                            vocab=128256, source=_LLAMA_SRC),
    "llama3-405b": ModelSpec(name="Llama 3.1 405B", layers=126, hidden=16384, ffn=53248, heads=128, kv_heads=8,
                             vocab=128256, source=_LLAMA_SRC),
    "gpt3-175b": ModelSpec(name="GPT-3 175B", layers=96, hidden=12288, ffn=49152, heads=96, kv_heads=96,
                           vocab=51200, mlp_matrices=2, tied_embeddings=True, dropout=True,
                           source="NVIDIA/dgxc-benchmarking nemo_megatron/README_175b.md (96 layers, hidden 12288, "
                                  "vocab 51200, FFN 4h); 96 heads per Brown et al. 2020 Table 2.1"),
    "deepseek-v3": ModelSpec(name="DeepSeek-V3 (671B MoE)", layers=61, hidden=7168, ffn=18432, heads=128,
                             kv_heads=128, vocab=129280, moe_layers=58, experts=256, top_k=8, shared_experts=1,
                             moe_ffn=2048, q_lora_rank=1536, kv_lora_rank=512, qk_nope_dim=128, qk_rope_dim=64,
                             v_head_dim=128,
                             source="deepseek-ai/DeepSeek-V3 config (hidden 7168, 61 layers, first 3 dense, "
                                    "256 routed + 1 shared experts of 2048, top-8, MLA ranks 1536/512)"),
    "deepseek-r1": ModelSpec(name="DeepSeek-R1 (671B MoE)", layers=61, hidden=7168, ffn=18432, heads=128,
                             kv_heads=128, vocab=129280, moe_layers=58, experts=256, top_k=8, shared_experts=1,
                             moe_ffn=2048, q_lora_rank=1536, kv_lora_rank=512, qk_nope_dim=128, qk_rope_dim=64,
                             v_head_dim=128,
                             source="deepseek-ai/DeepSeek-R1 config.json: the DeepSeek-V3 architecture (same shape)"),
    "llama3.3-70b": ModelSpec(name="Llama 3.3 70B", layers=80, hidden=8192, ffn=28672, heads=64, kv_heads=8,
                              vocab=128256, source="meta-llama/Llama-3.3-70B-Instruct config.json (the Llama 3.1 70B "
                                                   "shape: 80 layers, hidden 8192, 64 heads, 8 kv heads, ffn 28672)"),
    "qwen3-235b-a22b": ModelSpec(name="Qwen3-235B-A22B (MoE)", layers=94, hidden=4096, ffn=12288, heads=64,
                                 kv_heads=4, head_size=128, vocab=151936, moe_layers=94, experts=128, top_k=8,
                                 moe_ffn=1536,
                                 source="Qwen/Qwen3-235B-A22B config.json (94 layers, hidden 4096, 64 heads, 4 kv "
                                        "heads, head_dim 128, 128 experts of 1536, top-8, vocab 151936)"),
    "qwen3-30b-a3b": ModelSpec(name="Qwen3-30B-A3B (MoE)", layers=48, hidden=2048, ffn=6144, heads=32, kv_heads=4,
                               head_size=128, vocab=151936, moe_layers=48, experts=128, top_k=8, moe_ffn=768,
                               source="Qwen/Qwen3-30B-A3B config.json (48 layers, hidden 2048, 32 heads, 4 kv heads, "
                                      "head_dim 128, 128 experts of 768, top-8)"),
    "gpt-oss-120b": ModelSpec(name="gpt-oss-120b (MoE)", layers=36, hidden=2880, ffn=2880, heads=64, kv_heads=8,
                              head_size=64, vocab=201088, moe_layers=36, experts=128, top_k=4, moe_ffn=2880,
                              sliding_window=128, sliding_layers=18,
                              source="openai/gpt-oss-120b config.json (36 layers alternating 128-token sliding and "
                                     "full attention, hidden 2880, 64 heads of 64, 8 kv heads, 128 experts of 2880, "
                                     "top-4, vocab 201088)"),
    "gpt-oss-20b": ModelSpec(name="gpt-oss-20b (MoE)", layers=24, hidden=2880, ffn=2880, heads=64, kv_heads=8,
                             head_size=64, vocab=201088, moe_layers=24, experts=32, top_k=4, moe_ffn=2880,
                             sliding_window=128, sliding_layers=12,
                             source="openai/gpt-oss-20b config.json (24 layers alternating sliding and full "
                                    "attention, 32 experts of 2880, top-4)"),
    "qwen3-8b": ModelSpec(name="Qwen3-8B", layers=36, hidden=4096, ffn=12288, heads=32, kv_heads=8, head_size=128,
                          vocab=151936, source="Qwen/Qwen3-8B config.json (36 layers, hidden 4096, intermediate 12288, "
                                               "32 heads, 8 kv heads, head_dim 128, vocab 151936, untied)"),
    "qwen3-32b": ModelSpec(name="Qwen3-32B", layers=64, hidden=5120, ffn=25600, heads=64, kv_heads=8, head_size=128,
                           vocab=151936, source="Qwen/Qwen3-32B config.json (64 layers, hidden 5120, intermediate "
                                                "25600, 64 heads, 8 kv heads, head_dim 128, vocab 151936, untied)"),
    "mixtral-8x7b": ModelSpec(name="Mixtral 8x7B (MoE)", layers=32, hidden=4096, ffn=14336, heads=32, kv_heads=8,
                              vocab=32000, moe_layers=32, experts=8, top_k=2, moe_ffn=14336,
                              source="mistralai/Mixtral-8x7B-v0.1 config.json (32 layers, hidden 4096, 8 experts of "
                                     "14336, top-2, 32 heads, 8 kv heads, vocab 32000); Jiang et al. 2024, arXiv "
                                     "2401.04088 Table 1"),
    "mixtral-8x22b": ModelSpec(name="Mixtral 8x22B (MoE)", layers=56, hidden=6144, ffn=16384, heads=48, kv_heads=8,
                               vocab=32768, moe_layers=56, experts=8, top_k=2, moe_ffn=16384,
                               source="mistralai/Mixtral-8x22B-v0.1 config.json (56 layers, hidden 6144, 8 experts "
                                      "of 16384, top-2, 48 heads, 8 kv heads; vocab 32768 as the instruct release, "
                                      "32000 in the first upload)"),
    "nemotron4-340b": ModelSpec(name="Nemotron-4 340B", layers=96, hidden=18432, ffn=73728, heads=96, kv_heads=8,
                                vocab=256000, activation="relu2",
                                source="NVIDIA, 'Nemotron-4 340B Technical Report' (arXiv 2406.11704) Table 1: 96 "
                                       "layers, hidden 18432, 96 heads, 8 KV heads, vocab 256,000, squared-ReLU MLP "
                                       "of 4h = 73728, untied embeddings"),
}


def model_preset(name: str) -> ModelSpec:
    key = name.strip().casefold()
    if key not in PRESETS:
        raise InputError(_("unknown model {name}; presets: {presets} (or give a custom architecture)").format(
            name=shown(name), presets=", ".join(PRESETS)))
    return PRESETS[key]


class TrainingJob(BaseModel):
    """What to train and how it is split over GPUs.

    ``dp`` defaults to ``gpus / (tp * pp * cp)``; ``gpus`` defaults to the whole plan.
    ``compute_efficiency``, when set, is the achievable fraction of the GPU's dense peak for the
    model's math; by default the compute follows from the GPU and the shapes (``core.perf.compute``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: ModelSpec
    seq_len: int = Field(default=DEFAULT_SEQ_LEN, ge=1, le=10_000_000)
    global_batch: int = Field(default=DEFAULT_GLOBAL_BATCH, ge=1, le=MAX_GLOBAL_BATCH,
                              description="Sequences per step.")
    micro_batch: int = Field(default=1, ge=1)
    precision: Precision = "bf16"
    tp: int = Field(default=DEFAULT_TP, ge=1, le=1024)
    pp: int = Field(default=1, ge=1, le=1024)
    cp: int = Field(default=1, ge=1, le=1024)
    ep: int = Field(default=1, ge=1, le=4096)
    vp: int = Field(default=1, ge=1, le=128)
    dp: int | None = Field(default=None, ge=1)
    gpus: int | None = Field(default=None, ge=1)
    recompute: Recompute = "selective"
    compute_efficiency: float | None = Field(default=None, gt=0, le=1)
    tokens_to_train: float = Field(default=1e12, gt=0)
    schedule: Schedule = Field(default="1f1b", description=(
        "Pipeline schedule: 1F1B (interleaved when vp > 1) or DeepSeek's DualPipe."))
    balanced_stages: bool = Field(default=False, description=(
        "First and last pipeline stages hold one layer fewer (they also hold the embedding and the loss), "
        "as Llama 3 did."))
    fp8_activations: bool | None = Field(default=None, description=(
        "Cache the inputs of linear layers in FP8 for the backward pass (default: when precision is fp8)."))
    flash_attention: bool = Field(default=True, description="Fused attention: no s x s score matrix is saved.")
    sharp: bool = Field(default=False, description=(
        "Let NCCL use InfiniBand SHARP (CollNet) for the job's collectives: needs the SHARP plugin, "
        "NCCL_COLLNET_ENABLE=1 and Quantum HDR or later switches; off as in a stock NCCL run. The model applies "
        "SHARP to all-reduce only (NCCL CollNet), so it speeds up the data-parallel gradients when the "
        "distributed optimizer is off (one all-reduce), not the default reduce-scatter + all-gather."))
    distributed_optimizer: bool = Field(default=True, description=(
        "Shard optimizer state over data-parallel ranks (ZeRO-1 / Megatron distributed optimizer)."))
    shard_gradients: bool = Field(default=False, description=(
        "Shard the gradients over data-parallel ranks too (ZeRO-2; FSDP without resharding the parameters after "
        "forward, as Llama 3 did): each GPU keeps its shard of fp32 gradients and the accumulator of the model chunk "
        "in backward, and reduce-scatters each chunk's gradients once per group of micro-batches. Implies the "
        "optimizer sharding."))
    cp_comm: CpComm = Field(default="ring", description=(
        "How context parallelism exchanges attention inputs: ring (send/recv of K and V around the cp ranks, "
        "pipelined with the attention math) or all-to-all (DeepSpeed-Ulysses: heads scattered, sequence gathered; "
        "the heads per TP rank must split over cp)."))
    zero_stage: ZeroStage | None = Field(default=None, description=(
        "What data-parallel ranks shard (ZeRO stage; wins over the two switches above when set): 0 nothing (one "
        "all-reduce of the gradients), 1 the optimizer state (Megatron distributed optimizer), 2 the gradients too "
        "(as shard_gradients), 3 the parameters too (FSDP full sharding: each layer's parameters all-gathered in "
        "forward and again in backward, its gradients reduce-scattered, every micro-batch). None = from "
        "distributed_optimizer and shard_gradients."))
    offload: Offload = Field(default="none", description=(
        "CPU offload (ZeRO-Offload): optimizer keeps the optimizer in host memory (fp32 master weights, Adam "
        "moments and fp32 gradients of the GPU's shard) and runs Adam on the CPU; each step the gradients go to "
        "the host during backward (overlapped) and the updated parameters come back before the next forward "
        "(not overlapped)."))

    @property
    def zero(self) -> int:
        """The ZeRO stage in force: ``zero_stage``, else 2 with ``shard_gradients``, 1 with the distributed
        optimizer, 0 without."""
        if self.zero_stage is not None:
            return self.zero_stage
        return 2 if self.shard_gradients else 1 if self.distributed_optimizer else 0


def parse_job(data: dict) -> TrainingJob:
    """Validate a mapping into a ``TrainingJob``; ``model`` may be a preset name."""
    data = dict(data)
    if isinstance(data.get("model"), str):
        data["model"] = model_preset(data["model"])
    try:
        return TrainingJob.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc)) from exc


@dataclass
class CommPart:
    """One parallelism's communication per step on one GPU."""

    kind: str
    collective: str
    group_size: int
    calls: int
    bytes_per_call: float
    time_s: float
    overlap: float
    algorithm: str
    fabric_level: str
    window_s: float = math.inf
    """Compute this communication can hide behind [s]."""
    exposed_s: float = -1.0
    """Time not hidden [s]; filled by ``estimate`` (default: max((1-overlap) t, t - window))."""

    def __post_init__(self) -> None:
        if self.exposed_s < 0:
            self.exposed_s = self.time_s * (1 - self.overlap)
            if math.isfinite(self.window_s):
                self.exposed_s = max(self.exposed_s, self.time_s - self.window_s)

    @property
    def volume_bytes(self) -> float:
        return self.calls * self.bytes_per_call

    @property
    def hidden_s(self) -> float:
        return self.time_s - self.exposed_s


@dataclass
class TrainingEstimate:
    job: TrainingJob
    gpus: int
    dp: int
    microbatches: int
    tokens_per_step: float
    flops_per_token: float
    peak_tflops: float
    compute_efficiency: float
    compute_s: float
    bubble_s: float
    comm: list[CommPart]
    memory_gb: dict[str, float]
    """Memory per GPU of the fullest stage by part [GiB = 2^30 B] (the key keeps its old name: links and scripts use it)."""
    hbm_gb: float
    """HBM per GPU as the catalog lists it ("80 GB" parts hold 80 GiB) [GiB]."""
    cost_usd_per_day: float
    warnings: list[str] = field(default_factory=list)
    cluster_gpus: int = 0
    memory_stage: int = 0
    """Pipeline stage (0-based) whose memory ``memory_gb`` is: the fullest."""

    @property
    def exposed_comm_s(self) -> float:
        return sum(c.exposed_s for c in self.comm)

    @property
    def total_comm_s(self) -> float:
        return sum(c.time_s for c in self.comm)

    @property
    def step_time_s(self) -> float:
        return self.compute_s + self.bubble_s + self.exposed_comm_s

    @property
    def tokens_per_s(self) -> float:
        return self.tokens_per_step / self.step_time_s

    @property
    def comm_fraction(self) -> float:
        """Share of the step spent in communication that compute does not hide."""
        return self.exposed_comm_s / self.step_time_s

    @property
    def mfu(self) -> float:
        return self.tokens_per_s * self.flops_per_token / (self.gpus * self.peak_tflops * 1e12)

    @property
    def days_to_train(self) -> float:
        return self.job.tokens_to_train / self.tokens_per_s / SECONDS_PER_DAY

    @property
    def cost_usd(self) -> float:
        """Share of the cluster's TCO per day (capex amortised + energy) x days, for this job's GPUs."""
        return self.cost_usd_per_day * self.days_to_train

    def summary(self) -> dict:
        """Plain JSON-ready numbers."""
        return {
            "model": self.job.model.name,
            "gpus": self.gpus,
            "cluster_gpus": self.cluster_gpus,
            "parallelism": {"tp": self.job.tp, "pp": self.job.pp, "cp": self.job.cp, "dp": self.dp,
                            "ep": self.job.ep, "vp": self.job.vp},
            "seq_len": self.job.seq_len,
            "global_batch": self.job.global_batch,
            "micro_batch": self.job.micro_batch,
            "microbatches_per_step": self.microbatches,
            "precision": self.job.precision,
            "sharp": self.job.sharp,
            "params_b": round(self.job.model.total_params / 1e9, 3),
            "active_params_b": round(self.job.model.active_params / 1e9, 3),
            "flops_per_token": self.flops_per_token,
            "compute_efficiency": self.compute_efficiency,
            "compute_s": round(self.compute_s, 4),
            "bubble_s": round(self.bubble_s, 4),
            "exposed_comm_s": round(self.exposed_comm_s, 4),
            "total_comm_s": round(self.total_comm_s, 4),
            "step_time_s": round(self.step_time_s, 4),
            "tokens_per_step": self.tokens_per_step,
            "tokens_per_s": round(self.tokens_per_s, 1),
            "mfu": round(self.mfu, 4),
            "comm_fraction": round(self.comm_fraction, 4),
            "tokens_to_train": self.job.tokens_to_train,
            "days_to_train": round(self.days_to_train, 3),
            "cost_usd": round(self.cost_usd, 0),
            "communication": [
                {"parallelism": c.kind, "collective": c.collective, "group_size": c.group_size, "calls": c.calls,
                 "bytes_per_call": round(c.bytes_per_call), "volume_gbytes": round(c.volume_bytes / 1e9, 3),
                 "time_s": round(c.time_s, 4), "overlap": c.overlap, "exposed_s": round(c.exposed_s, 4),
                 "hidden_fraction": round(c.hidden_s / c.time_s, 4) if c.time_s > 0 else 1.0,
                 "window_s": round(c.window_s, 4) if math.isfinite(c.window_s) else None,
                 "algorithm": c.algorithm, "fabric_level": c.fabric_level}
                for c in self.comm
            ],
            "memory_gb": {k: round(v, 2) for k, v in self.memory_gb.items()},
            "memory_stage": self.memory_stage,
            "schedule": self.job.schedule,
            "recompute": self.job.recompute,
            "zero_stage": self.job.zero,
            "offload": self.job.offload,
            "cp_comm": self.job.cp_comm,
            "hbm_gb": self.hbm_gb,
            "warnings": list(self.warnings),
        }


def memory_label(part: str) -> str:
    """A key of ``TrainingEstimate.memory_gb`` (weights, gradients, optimizer, activations) for display."""
    labels = {"weights": _("weights"), "gradients": _("gradients"), "optimizer": _("optimizer"),
              "activations": _("activations")}
    return labels.get(part, part)


def parallelism_label(kind: str) -> str:
    """``CommPart.kind`` (TP, CP, PP, DP, DP (experts), EP, Offload) for display."""
    return {"DP (experts)": _("DP (experts)"), "Offload": _("CPU offload")}.get(kind, kind)


def comm_collective_label(name: str) -> str:
    """``CommPart.collective`` for display: the NCCL operations keep their names, the sends are described."""
    labels = {"send/recv (ring attention)": _("send/recv (ring attention)"), "send/recv": _("send/recv"),
              "gradients to host": _("gradients to host"),
              "CPU Adam + parameters to GPU": _("CPU Adam + parameters to GPU")}
    return labels.get(name, name)


def _check_fit(job: TrainingJob, plan: Plan) -> tuple[int, int, int]:
    """(gpus, dp, microbatches) after checking the split fits the cluster and the model."""
    r = plan.resolved
    mdl = job.model
    gpus = job.gpus or r.gpus
    if gpus > r.gpus:
        raise DesignError(_("the job asks for {gpus} GPUs but the cluster has {cluster}.").format(
                              gpus=f"{gpus:,}", cluster=f"{r.gpus:,}"),
                          _("Plan at least {nodes} nodes or lower gpus.").format(
                              nodes=f"{math.ceil(gpus / r.gpus_per_node):,}"))
    model_parallel = job.tp * job.pp * job.cp
    if job.dp is not None:
        if job.dp * model_parallel != gpus:
            raise DesignError(
                _("tp x pp x cp x dp = {tp} x {pp} x {cp} x {dp} = {product} is not the job's {gpus} GPUs.").format(
                    tp=job.tp, pp=job.pp, cp=job.cp, dp=job.dp, product=f"{job.dp * model_parallel:,}",
                    gpus=f"{gpus:,}"),
                _("Leave dp unset to derive it, or use {dp} with {gpus} GPUs.").format(
                    dp=gpus // model_parallel if gpus >= model_parallel else 1,
                    gpus=f"{model_parallel * max(1, gpus // model_parallel):,}"))
        dp = job.dp
    else:
        if gpus % model_parallel:
            fit = (gpus // model_parallel) * model_parallel
            raise DesignError(
                _("{gpus} GPUs cannot be split into tp x pp x cp = {model_parallel} groups.").format(
                    gpus=f"{gpus:,}", model_parallel=model_parallel),
                _("Use {gpus} GPUs (dp = {dp})").format(gpus=f"{fit:,}", dp=fit // model_parallel) if fit else
                _("Lower tp x pp x cp to at most {gpus}.").format(gpus=gpus))
        dp = gpus // model_parallel
    if mdl.heads % job.tp:
        raise DesignError(_("{heads} attention heads do not split over tp = {tp}.").format(heads=mdl.heads, tp=job.tp),
                          _("Pick a tp that divides the head count."))
    if job.pp * job.vp > mdl.layers + (2 if job.balanced_stages and job.pp > 1 else 0):
        raise DesignError(_("pp x vp = {stages} stages exceed the model's {layers} layers.").format(
                              stages=job.pp * job.vp, layers=mdl.layers),
                          _("Lower pp or vp."))
    if job.cp > 1 and job.cp_comm == "all-to-all" and mdl.heads % (job.tp * job.cp):
        raise DesignError(_("{heads} attention heads do not split over tp x cp = {tp} x {cp} for all-to-all context "
                            "parallelism (cp_comm).").format(heads=mdl.heads, tp=job.tp, cp=job.cp),
                          _("Use cp_comm ring, or a cp that divides heads / tp."))
    if job.seq_len % job.cp:
        raise DesignError(_("sequence length {seq_len} does not split over cp = {cp}.").format(
                              seq_len=job.seq_len, cp=job.cp),
                          _("Pick a cp that divides the sequence length."))
    if job.ep > 1:
        if not mdl.is_moe:
            raise DesignError(
                _("{model} is dense: expert parallelism needs a mixture-of-experts model.").format(model=mdl.name),
                _("Set ep to 1."))
        if mdl.experts % job.ep:
            raise DesignError(_("{experts} experts do not split over ep = {ep}.").format(
                                  experts=mdl.experts, ep=job.ep),
                              _("Pick an ep that divides the expert count."))
        if (job.tp * job.cp * dp) % job.ep:
            raise DesignError(_("ep = {ep} must divide tp x cp x dp = {product}.").format(
                                  ep=job.ep, product=job.tp * job.cp * dp),
                              _("Lower ep or raise dp."))
    per_step = job.micro_batch * dp
    if per_step > MAX_GLOBAL_BATCH:
        fit_dp = MAX_GLOBAL_BATCH // job.micro_batch
        values = dict(gpus=f"{fit_dp * model_parallel:,}", dp=f"{fit_dp:,}",
                      micro_batch=max(1, MAX_GLOBAL_BATCH // max(1, dp)))
        raise DesignError(
            _("micro-batch x dp = {micro_batch} x {dp} = {per_step} sequences per step is above the "
              "{limit}-sequence limit of the global batch.").format(
                micro_batch=job.micro_batch, dp=f"{dp:,}", per_step=f"{per_step:,}", limit=f"{MAX_GLOBAL_BATCH:,}"),
            (_("Train on at most {gpus} GPUs (dp {dp}), or lower the micro-batch to {micro_batch}.")
             if dp <= MAX_GLOBAL_BATCH else _("Train on at most {gpus} GPUs (dp {dp}).")).format(**values))
    if job.global_batch % per_step:
        lower = (job.global_batch // per_step) * per_step
        raise DesignError(
            _("global batch {global_batch} is not a multiple of micro-batch x dp = {per_step}.").format(
                global_batch=job.global_batch, per_step=per_step),
            _("Use a global batch of {lower} or {higher}.").format(lower=lower, higher=lower + per_step) if lower else
            _("Use a global batch of {per_step} (or a multiple), or fewer data-parallel replicas.").format(
                per_step=per_step))
    return gpus, dp, job.global_batch // per_step


def stage_layers(layers: int, pp: int, balanced: bool = False) -> list[int]:
    """Transformer layers on each pipeline stage.

    Even: ``layers`` split as evenly as possible, the extra layers on the first stages.
    Balanced (Llama 3, arXiv 2407.21783 sec. 3.3.2): the embedding and the loss each take one
    layer's place, so the first and the last stage hold one layer fewer (126 layers on 16 stages:
    7, 8 x 14, 7).
    """
    if pp == 1:
        return [layers]
    slots = layers + 2 if balanced else layers
    base, extra = divmod(slots, pp)
    counts = [base + (1 if i < extra else 0) for i in range(pp)]
    if balanced:
        counts[0] -= 1
        counts[-1] -= 1
        if min(counts) < 1:
            return stage_layers(layers, pp, False)
    return counts


def _in_flight(job: TrainingJob, rank: int, microbatches: int) -> float:
    """Micro-batches whose activations pipeline stage ``rank`` holds at its peak (units: one micro-batch
    through all of the stage's layers).

    1F1B: ``min(pp - rank, m)`` (Narayanan et al. SC21 sec. 2.2.1). Interleaved (vp > 1): Megatron's
    warm-up of ``2 (pp - rank - 1) + (vp - 1) pp + 1`` model chunks of 1/vp of the stage each, which for
    the first stage is Korthikanti et al.'s ``pp (1 + (pp - 1) / (pp vp))``, capped at all ``m x vp`` chunks:
    with as few micro-batches as stages (m = pp, Llama 3 405B on 16,384 GPUs) the warm-up covers the whole
    step on the first half of the ranks, which then run every forward before any backward and hold all m
    micro-batches whatever vp is (1F1B holds pp - rank). Megatron and Llama 3 group the micro-batches of a
    chunk by pp ("N", arXiv 2407.21783 sec. 3.3.2), which is the ``(vp - 1) pp`` term. DualPipe: ``pp + 1``
    on every device (DeepSeek-V3 report, Table 2).
    """
    pp, vp = job.pp, job.vp
    if job.schedule == "dualpipe":
        return float(pp + load_training_catalog().schedule.dualpipe_extra_microbatches)
    if vp > 1:
        return min(microbatches * vp, 2 * (pp - rank - 1) + (vp - 1) * pp + 1) / vp
    return float(min(pp - rank, microbatches))


def activation_bytes_per_token(mdl: "ModelSpec", job: TrainingJob, moe_layer: bool) -> float:
    """Bytes one layer saves for backward per token of a micro-batch, before TP / sequence-parallel sharding.

    Korthikanti et al., 'Reducing Activation Recomputation in Large Transformer Models' (arXiv 2205.05198,
    sec. 4.1, Eq. 1-2), term by term, generalised to what later models changed:

    * each norm saves its input (2h); each linear layer its input (h x linear bytes: 2, or 1 when
      linear inputs are cached in FP8 as Transformer Engine and DeepSeek-V3 sec. 3.3.2 do);
    * attention saves Q, K and V (2 (a + 2 kv) d: grouped-query attention shrinks K and V) and its
      output; without FlashAttention and without selective recompute also the s x s softmax, its
      dropout mask and output (5 a s); with it one fp32 log-sum-exp per head;
    * multi-head latent attention (DeepSeek) under selective recompute saves the compressed latents
      and recomputes the up-projections (DeepSeek-V3 sec. 3.2.3), else it saves Q, K, V as above;
    * the MLP saves its first linear layer's output (SwiGLU: gate and up, 2 x ffn; GELU: ffn) and the
      second linear layer's input (ffn); a MoE layer does so for each of the top-k routed copies of a
      token and each shared expert, and under selective recompute recomputes the SwiGLU output
      (DeepSeek-V3 sec. 3.2.3; Megatron-Core's moe_act recompute);
    * dropout masks (1 B per element) after attention and MLP when the model uses dropout.

    With these, GPT-3 (dropout, GELU, no FlashAttention, no recompute) gives Korthikanti's
    34 h + 5 a s bytes per token per layer exactly (tested). Full recompute saves only the layer input (2 h).
    """
    mc = load_training_catalog().memory
    h, a = mdl.hidden, mdl.heads
    if job.recompute == "full":
        return 2.0 * h
    fp8 = job.fp8_activations if job.fp8_activations is not None else job.precision != "bf16"
    lin = 1.0 if fp8 else 2.0
    mask = 1.0 * h if mdl.dropout else 0.0
    selective = job.recompute == "selective"
    # attention block
    attn = 2.0 * h + lin * h  # norm input, QKV input
    if mdl.mla:
        attn += 2.0 * (mdl.q_lora_rank + mdl.kv_lora_rank + mdl.qk_rope_dim)
        if not selective:
            attn += 2.0 * a * (2 * mdl.qk_dim + mdl.v_dim)
    else:
        attn += 2.0 * (a + 2 * mdl.kv_heads) * mdl.head_dim
    attn += lin * a * mdl.v_dim + mask  # output projection input, dropout mask
    if job.flash_attention:
        attn += mc.lse_bytes_per_head * a
    elif not selective:
        attn += 5.0 * a * job.seq_len  # softmax output, dropout mask and output: 5 a s (Korthikanti Eq. 1)
    # MLP block
    mlp = 2.0 * h + lin * h + mask  # norm input, first linear input, dropout mask
    if moe_layer:
        gate_up = (mdl.mlp_matrices - 1) * mdl.moe_ffn  # SwiGLU: gate and up; two-matrix MLP: up
        per_copy = lin * h + lin * gate_up + (0.0 if selective else lin * mdl.moe_ffn)
        mlp += (mdl.top_k + mdl.shared_experts) * per_copy
    else:
        first_out = mdl.ffn * (2 if mdl.mlp_matrices == 3 else 1)
        mlp += 2.0 * first_out + lin * mdl.ffn
    return attn + mlp


def _layer_params(mdl: "ModelSpec", moe_layer: bool, job: TrainingJob) -> tuple[float, float]:
    """(dense, expert) parameters of one layer on one GPU: dense split over TP, routed experts over EP."""
    if moe_layer:
        return (mdl.attention_params + mdl.moe_layer_dense_params) / job.tp, mdl.expert_params_per_layer / job.ep
    return (mdl.attention_params + mdl.dense_mlp_params) / job.tp, 0.0


def _state_bytes(job: TrainingJob, dense: float, expert: float, shards: tuple[int, int], layer: float,
                 layers: int) -> dict[str, float]:
    """Weights, gradients and optimizer state [bytes] on one GPU of a pipeline stage under the job's ZeRO stage.

    Parameters
    ----------
    dense, expert : float
        This GPU's dense (TP share) and routed-expert (EP share) parameters of the stage, unsharded.
    shards : (int, int)
        Ranks the dense and the expert parameters are sharded over (dp x cp; the expert-data-parallel group).
    layer : float
        Parameters of the stage's largest layer on this GPU, unsharded (what ZeRO-3 gathers at once).
    layers : int
        The stage's layers.

    Stage 0 keeps everything (bytes per parameter from collectives.toml ``[training]``); 1 shards the
    optimizer state; 2 (Llama 3's FSDP) also keeps a 1/N shard of fp32 gradients plus the fp32 accumulator of
    one model chunk (1/vp of the stage); 3 (FSDP full sharding, mixed precision) keeps no bf16 copy of the
    parameters: the optimizer's fp32 master shard is the parameter store, each layer is gathered in bf16 when
    used, the layer in use and the one prefetched (two at most), and its bf16 gradient is reduce-scattered
    into a 1/N fp32 shard. With CPU offload (``job.offload``) the optimizer state is in host memory, none on
    the GPU (``_check_host_memory``).
    """
    k = load_constants().training
    g = load_training_catalog().memory.sharded_gradient_bytes_per_param
    params = dense + expert
    shard = dense / shards[0] + expert / shards[1]
    zero = job.zero
    optimizer = 0.0 if job.offload == "optimizer" else k.optimizer_bytes_per_param * (shard if zero >= 1 else params)
    if zero == 3:
        return {"weights": min(2, layers) * layer * k.weight_bytes_per_param,
                "gradients": g * shard + layer * k.grad_bytes_per_param, "optimizer": optimizer}
    grads = g * (shard + params / job.vp) if zero == 2 else params * k.grad_bytes_per_param
    return {"weights": params * k.weight_bytes_per_param, "gradients": grads, "optimizer": optimizer}


@dataclass
class StageMemory:
    """Memory of the fullest pipeline stage [GB] and where it is."""

    parts: dict[str, float]
    stage: int
    layers: int


def _memory(job: TrainingJob, dp: int, microbatches: int) -> StageMemory:
    """Per-GPU memory [GB of HBM, counted in GiB] of the fullest pipeline stage.

    Each stage: its layers' weights, gradients and optimizer state under the job's ZeRO stage
    (``_state_bytes``; dense parameters sharded over dp x cp, routed experts over the expert-data-parallel
    group), DualPipe's second copy of the parameters, the embedding on the first stage and the output layer
    (plus fp32 logits) on the last, and activations = in-flight micro-batches (``_in_flight``) x the stage's
    layers x ``activation_bytes_per_token`` x tokens per micro-batch / (tp x cp).

    A middle stage with the layers (dense and MoE) of one already counted holds the same state, so with no more
    micro-batches in flight it cannot be fuller (ties keep the first): it is skipped, the answer unchanged.
    """
    tc = load_training_catalog()
    unit = tc.memory.capacity_unit_bytes
    mdl = job.model
    counts = stage_layers(mdl.layers, job.pp, job.balanced_stages)
    first_moe = mdl.layers - mdl.moe_layers if mdl.first_dense_layers is None else mdl.first_dense_layers
    expert_group = max(1, job.tp * job.cp * dp // job.ep)
    copies = tc.schedule.dualpipe_parameter_copies if job.schedule == "dualpipe" else 1
    tokens = job.seq_len / job.cp * job.micro_batch / job.tp  # per GPU, sequence-parallel shard
    act_dense = activation_bytes_per_token(mdl, job, False) if mdl.moe_layers < mdl.layers else 0.0
    act_moe = activation_bytes_per_token(mdl, job, True) if mdl.is_moe else 0.0
    embedding = mdl.vocab * mdl.hidden / job.tp
    d_dense, _e = _layer_params(mdl, False, job)
    m_dense, m_expert = _layer_params(mdl, True, job)
    best: StageMemory | None = None
    best_total = 0.0
    counted: dict[tuple[int, int], float] = {}  # a middle stage's (layers, MoE layers): most micro-batches in flight
    start = 0
    for rank, n in enumerate(counts):
        n_moe = max(0, min(start + n, mdl.moe_layers + first_moe) - max(start, first_moe)) if mdl.is_moe else 0
        start += n
        flight = _in_flight(job, rank, microbatches)
        if 0 < rank < job.pp - 1:
            if counted.get((n, n_moe), -1.0) >= flight:
                continue
            counted[n, n_moe] = flight
        layer = max(d_dense if n_moe < n else 0.0, m_dense + m_expert if n_moe else 0.0) * copies
        dense = (n - n_moe) * d_dense + n_moe * m_dense
        expert = n_moe * m_expert
        if rank == 0:
            dense += embedding
        if rank == job.pp - 1 and (job.pp > 1 or not mdl.tied_embeddings):
            dense += embedding
        if rank in (0, job.pp - 1):  # ZeRO-3 gathers the embedding and the output layer as units too
            layer = max(layer, embedding * copies)
        dense, expert = dense * copies, expert * copies
        act = tokens * ((n - n_moe) * act_dense + n_moe * act_moe) * flight
        if rank == job.pp - 1:
            act += tokens * mdl.vocab * tc.memory.logits_bytes_per_vocab
        state = _state_bytes(job, dense, expert, (dp * job.cp, expert_group), layer, n)
        parts = {part: nbytes / unit for part, nbytes in state.items()}
        parts["activations"] = act / unit
        total = sum(parts.values())
        if best is None or total > best_total:
            best, best_total = StageMemory(parts, rank, n), total
    return best


def _p2p_time_s(plan: Plan, nbytes: float, same_domain: bool, share: float = 1.0) -> float:
    """One point-to-point send [s]: NCCL ring Simple latency plus bytes over NVLink or the NIC
    (``share``: the NIC bandwidth kept against oversubscription and routing, ``placement.p2p_contention``)."""
    c = constants_for(plan)
    lk = links(plan, c)
    simple = c.proto("Simple")
    if same_domain:
        return (simple.ring_base_latency_us + simple.ring_nvlink_step_us) * 1e-6 + nbytes / (lk.nvlink * 1e9)
    return (simple.ring_base_latency_us + simple.ring_net_step_us) * 1e-6 + nbytes / (lk.nic_per_gpu * share * 1e9)


def collective_time(plan: Plan, op: str, nbytes: float, n: int, stride: int, sharp: bool = False) -> tuple[float, str, str]:
    """(time [s], fastest algorithm, fabric level) of one collective (``sharp``: SHARP allowed too), on what it
    reads of ``plan`` (``core.perf.commview.BusbwPlan``) under the routing, placement and NCCL release in force
    (``communicator_time``, cached by those arguments: an estimate and a search ask the same collective of the same
    ranks again and again)."""
    return communicator_time(BusbwPlan.of(plan), op, max(1.0, nbytes), n, stride, sharp, congestion.current(),
                             nccl_release_now())


def _time_bytes(found) -> int:
    """Upper bound of the memory of a ``communicator_time`` answer [bytes]: a number and two short names
    (``tests/test_memo.py``)."""
    return 320


def _time_key_bytes(key: tuple) -> int:
    """Upper bound of the memory of a ``communicator_time`` key [bytes]: its plan's view
    (``core.perf.commview.busbw_plan_bytes``: each key holds the view of the call that made it) and the small
    arguments (``tests/test_memo.py``)."""
    return busbw_plan_bytes(key[0]) + 640


@stage(0.08, _time_bytes, max_entries=8192, key_sizeof=_time_key_bytes)
def communicator_time(plan: BusbwPlan, op: str, nbytes: float, n: int, stride: int, sharp: bool,
                      assumed: congestion.Assumptions, release: str | None) -> tuple[float, str, str]:
    """(time [s], fastest algorithm, fabric level) of ``op`` on ``nbytes`` bytes among ``n`` ranks ``stride`` GPUs
    apart of ``plan`` (``sweep``'s choice at that size), under the routing and placement ``assumed`` and NCCL
    ``release`` (None: the catalog's default). The answer holds no words, so no language is an argument; its errors
    are not kept. At most 8,192 entries, and within its bytes: an entry counts its key too (``_time_key_bytes``: the
    plan's view each key holds, some 2 KB against the answer's few hundred bytes)."""
    with congestion.assumptions(assumed.routing, assumed.placement), nccl_release(release):
        result = sweep(plan, op, [nbytes], gpus=n, stride=stride, sharp=sharp)
    t, alg, _protocol = result.best()
    return float(t[0]) * 1e-6, str(alg[0]), result.placement.level


class _Timing:
    """The communication times of ``plan`` an estimate asks for: collectives (``collective_time``), point-to-point
    sends (``_p2p_time_s``) and the share of a NIC they keep (``placement.p2p_contention``), and expert dispatch
    and combine (``expert_dispatch.ep_layer``), each a pure function of ``plan`` and its arguments.

    ``estimate`` computes each when asked. The split search (``choose_split``) makes one with ``once`` for all its
    candidates: each distinct call (the same communicator: operation, bytes, ranks and stride) is computed once
    and its answer reused, since the same all-gather among the same ranks recurs across the splits
    (``functools.cache`` by the arguments, kept for the one search only).

    Parameters
    ----------
    plan : Plan
        The planned cluster every time is of.
    once : bool
        Compute each distinct call once for the life of this object.
    """

    def __init__(self, plan: Plan, once: bool = False):
        keep = functools.cache if once else (lambda fn: fn)
        self.plan = plan
        self.collective = keep(functools.partial(collective_time, plan))
        self.p2p = keep(functools.partial(_p2p_time_s, plan))
        self.p2p_share = keep(functools.partial(p2p_contention, plan))
        self.dispatch = keep(functools.partial(ep_layer, plan))


def _expose(comm: list[CommPart], compute_s: float) -> None:
    """Set each part's exposed time: max((1-overlap) t, t - window), windows shared, hidden <= compute.

    DP and expert-DP overlap the same micro-batch, so they split its window in proportion
    to their time. No more communication is hidden in total than there is compute: if the
    hidden parts add up to more, each is scaled down by the same factor.
    """
    shared = [c for c in comm if c.kind.startswith("DP")]
    shared_time = sum(c.time_s for c in shared)
    for c in comm:
        window = c.window_s
        if c in shared and shared_time > 0:
            window = c.window_s * c.time_s / shared_time
        exposed = c.time_s * (1 - c.overlap)
        if math.isfinite(window):
            exposed = max(exposed, c.time_s - window)
        c.exposed_s = exposed
    hidden = sum(c.hidden_s for c in comm)
    if hidden > compute_s > 0 or (hidden > 0 and compute_s <= 0):
        scale = max(0.0, compute_s) / hidden
        for c in comm:
            c.exposed_s = c.time_s - c.hidden_s * scale


class OutOfMemory(DesignError):
    """A split whose fullest pipeline stage needs more memory than a GPU has (``_check_memory``), or whose
    offloaded optimizer needs more host memory than a GPU's share (``_check_host_memory``): more sharding (a
    higher ZeRO stage) may make it fit, which the split search tries."""


def optimizer_shard_params(job: TrainingJob, dp: int) -> float:
    """Parameters whose optimizer state one GPU keeps [count]: its tensor/pipeline share of the dense parameters
    and its expert-parallel share of the routed experts, sharded over the data-parallel ranks (dp x cp; the
    experts over their expert-data-parallel group) from ZeRO stage 1 on; a pipeline stage's average."""
    mdl = job.model
    dense = mdl.dense_params / (job.tp * job.pp)
    expert = mdl.expert_params / (job.ep * job.pp) if mdl.is_moe else 0.0
    if job.zero >= 1:
        dense /= dp * job.cp
        expert /= max(1, job.tp * job.cp * dp // job.ep)
    return dense + expert


def _check_host_memory(job: TrainingJob, plan: Plan, dp: int) -> None:
    """With CPU offload: the optimizer state of a GPU's shard [GB] against the host memory per GPU
    (training.toml ``[offload]``); ``OutOfMemory`` beyond it."""
    if job.offload == "none":
        return
    off = load_training_catalog().offload
    host = off.host_of(plan.resolved.system.id)
    needed = optimizer_shard_params(job, dp) * off.host_bytes_per_param / 1e9
    if needed > host.memory_gbytes:
        raise OutOfMemory(
            _("The offloaded optimizer of {model} needs about {needed} GB of host memory per GPU with this split, "
              "more than the {host} GB a GPU's share of the host has.").format(
                model=job.model.name, needed=f"{needed:,.0f}", host=f"{host.memory_gbytes:,.0f}"),
            _("Use a higher ZeRO stage or more data-parallel ranks, or a larger tp or pp."))


def _offload_comm(job: TrainingJob, plan: Plan, dp: int, cp: "_Compute") -> list[CommPart]:
    """CPU offload's host traffic of one step on one GPU (training.toml ``[offload]``): the gradients of its
    optimizer shard copied to the host during the last micro-batch's backward (hidden as the data-parallel
    gradients are), then the CPU's Adam update at the host memory bandwidth and the updated bf16 parameters
    copied back, which the next forward waits for (never hidden)."""
    k = load_constants().training
    off = load_training_catalog().offload
    host = off.host_of(plan.resolved.system.id)
    shard = optimizer_shard_params(job, dp)
    link = host.link_gbytes * off.link_efficiency * 1e9
    down = shard * k.grad_bytes_per_param
    up = shard * k.weight_bytes_per_param
    adam_s = shard * off.adam_bytes_per_param / (host.memory_gbytes_per_s * off.memory_efficiency * 1e9)
    return [CommPart("Offload", "gradients to host", 1, 1, down, down / link, k.dp_overlap, "DMA", "host",
                     window_s=cp.t_mb),
            CommPart("Offload", "CPU Adam + parameters to GPU", 1, 1, up, adam_s + up / link, 0.0, "DMA", "host")]


def _check_memory(job: TrainingJob, plan: Plan, dp: int, m: int, warnings: list[str]) -> StageMemory:
    """Memory of the fullest pipeline stage [GiB per GPU] against the HBM left after the reserve: ``DesignError``
    (with the biggest part's remedy) beyond the memory model's tolerance, a warning when within it."""
    k = load_constants().training
    r = plan.resolved
    mdl = job.model
    tc = load_training_catalog()
    stage_memory = _memory(job, dp, m)
    memory = stage_memory.parts
    usable = r.system.hbm_gbytes * (1 - k.memory_reserve_fraction)
    needed = sum(memory.values())
    tolerance = tc.memory.tolerance
    if needed > usable * (1 + tolerance):
        biggest = max(memory, key=memory.get)
        hint = {
            "activations": _("Use full recompute, a larger tp, pp or cp, or a smaller micro-batch."),
            "weights": _("Use a larger tp or pp (or ep for experts)."),
            "gradients": _("Use a larger tp or pp (or ep for experts)."),
            "optimizer": _("Use more data-parallel ranks, or a larger tp or pp."),
        }[biggest]
        raise OutOfMemory(
            _("{model} needs about {needed} GiB per GPU with this split ({part} {part_gb} GiB), more than the "
              "{usable} GiB usable of {hbm} GiB.").format(
                model=mdl.name, needed=f"{needed:.0f}", part=memory_label(biggest), part_gb=f"{memory[biggest]:.0f}",
                usable=f"{usable:.0f}", hbm=f"{r.system.hbm_gbytes:g}"), hint)
    if needed > usable:
        warnings.append(_("Memory is tight: pipeline stage {stage} needs about {needed} GiB per GPU, {over} over the "
                          "{usable} GiB usable but within the memory model's {tolerance} tolerance; it may not fit "
                          "without tuning (e.g. full recompute or a larger pp).").format(
            stage=stage_memory.stage + 1, needed=f"{needed:.1f}", over=percent(needed / usable - 1),
            usable=f"{usable:.0f}", tolerance=percent(tolerance)))
    elif needed > usable * (1 - tolerance):
        warnings.append(_("Memory is tight: pipeline stage {stage} needs about {needed} GiB per GPU, a margin of "
                          "{margin} below the {usable} GiB usable, within the memory model's {tolerance} "
                          "tolerance.").format(
            stage=stage_memory.stage + 1, needed=f"{needed:.1f}", margin=percent(1 - needed / usable),
            usable=f"{usable:.0f}", tolerance=percent(tolerance)))
    return stage_memory


@dataclass
class _Compute:
    """One step's compute: ``peak`` [dense TFLOP/s per GPU at the job's precision], ``eff`` (fraction of it),
    ``flops_token`` [FLOP per token], ``layers_per_stage`` (the fullest stage's), ``t_mb`` [s per micro-batch on
    one stage], ``compute`` [s: ``m`` micro-batches], ``bubble`` [s: the pipeline schedule's idle time]."""

    peak: float
    eff: float
    flops_token: float
    layers_per_stage: int
    t_mb: float
    compute: float
    bubble: float


def _compute_time(job: TrainingJob, plan: Plan, m: int) -> _Compute:
    """Compute and pipeline bubble of one step of ``m`` micro-batches: a micro-batch's time from the GPU and the
    shapes (``core.perf.compute.micro_batch_compute``), or model FLOPs / (peak x ``job.compute_efficiency``) when
    the job sets the fraction; ``DesignError`` for a precision the GPU has no tensor cores for."""
    r = plan.resolved
    mdl = job.model
    tc = load_training_catalog()
    peak = precision_peak_tflops(r.system, job.precision)
    flops_token = mdl.flops_per_token(job.seq_len)
    layers_per_stage = max(stage_layers(mdl.layers, job.pp, job.balanced_stages))
    stage_share = layers_per_stage / mdl.layers
    parts = micro_batch_compute(job, r.system, stage_share)
    if job.compute_efficiency:
        eff = job.compute_efficiency
        hw_factor = FULL_RECOMPUTE_FACTOR if job.recompute == "full" else 1.0
        t_mb = parts.flops * hw_factor / (peak * 1e12 * eff)
    else:
        t_mb = parts.total_s
        eff = parts.flops / (peak * 1e12 * t_mb)
    compute = m * t_mb
    if job.schedule == "dualpipe":
        sc = tc.schedule
        fb = sc.forward_share + sc.backward_input_share  # F&B: a forward and a backward chunk overlapped
        bubble = max(0.0, (job.pp / 2 - 1) * (fb + sc.backward_input_share - 3 * sc.backward_weight_share)) * t_mb
    else:
        bubble = (job.pp - 1) / job.vp * t_mb
    return _Compute(peak, eff, flops_token, layers_per_stage, t_mb, compute, bubble)


_ACT_BYTES = 2.0
"""Bytes per activation element on the wire (bf16)."""


def _pipeline_crossings(stride: int, pp: int, domain: int) -> int:
    """Stage boundaries of a pipeline whose sends leave an NVLink domain [count, of ``pp - 1``].

    Ranks are packed from GPU 0 in domains of ``domain`` GPUs and stage ``i`` holds GPUs ``[i s, (i + 1) s)``
    (``s = stride = tp x cp x dp``, the module's rank order), each rank sending to the one ``s`` on. The boundary
    after stage ``i`` stays inside one domain only when both stages do, i.e. GPUs ``i s`` to ``(i + 2) s - 1`` share
    a domain; otherwise some rank's send crosses (the one just before the domain edge). Tp 4 x pp 8 on 8-GPU nodes:
    stages 0-1, 2-3, 4-5, 6-7 pair up in the nodes, so 3 of 7 boundaries (1-2, 3-4, 5-6) cross."""
    domain = max(1, domain)
    return sum(1 for i in range(max(0, pp - 1)) if i * stride // domain != ((i + 2) * stride - 1) // domain)


def _ring_crossings(tp: int, cp: int, gpus: int, domain: int) -> tuple[int, int]:
    """Sends of a step of the context-parallel rings that leave an NVLink domain, and all of that step's sends
    [count, over the GPUs the pattern takes to repeat].

    Ranks are packed from GPU 0 in domains of ``domain`` GPUs (the module's rank order: tp fastest, then cp), so a
    ring's ``cp`` ranks sit ``tp`` GPUs apart in a block of ``tp x cp`` GPUs and each sends to the next, the last
    back to the first. A send crosses when its two GPUs sit in different domains: when the block is larger than a
    domain, or when it straddles a domain's edge (blocks of 16 in 72-GPU racks: GPUs 64-79). The pattern repeats
    every lcm(tp x cp, domain) GPUs, so those (or the job's, if fewer) are counted. Tp 4 x cp 4 on 8-GPU nodes: in
    each block the sends 1-2 and 3-0 leave the node, 8 of 16."""
    block = max(1, tp * cp)
    span = max(block, min(gpus - gpus % block, math.lcm(block, max(1, domain))))
    g = np.arange(span)
    nxt = np.where((g % block) // tp == cp - 1, g - (cp - 1) * tp, g + tp)
    return int(np.count_nonzero(g // domain != nxt // domain)), span


def _sends_level(crossing: int, total: int) -> str:
    """The fabric level of point-to-point sends of which ``crossing`` of ``total`` leave their NVLink domain: one
    slow send bounds each step, so any crossing times them all on the fabric, and the level says whether some stay
    inside (``"nvlink+fabric"``, ``core.perf.placement.level_label``)."""
    return "nvlink" if crossing == 0 else "fabric" if crossing == total else "nvlink+fabric"


def _model_parallel_comm(job: TrainingJob, timing: _Timing, gpus: int, dp: int, m: int,
                         cp: _Compute) -> list[CommPart]:
    """Tensor-parallel (sequence parallel), context-parallel (ring attention) and pipeline (send/recv) traffic of
    one step: calls, bytes per call and time [s]."""
    k = load_constants().training
    r = timing.plan.resolved
    mdl = job.model
    comm: list[CommPart] = []
    s_local = job.seq_len / job.cp
    tokens_mb = s_local * job.micro_batch
    domain = max(1, r.nvlink_domain_gpus)
    moe_share = mdl.moe_layers / mdl.layers if mdl.is_moe else 0.0
    if job.tp > 1:
        size = tokens_mb * mdl.hidden * _ACT_BYTES  # whole activation tensor (nccl-tests S)
        # sequence parallel: per layer 2 all-gathers + 2 reduce-scatters forward, the same backward,
        # and with full recompute the forward again before the backward (12 instead of 8);
        # MoE layers with expert-TP 1 only split attention (half of them)
        dense_calls = 12 if job.recompute == "full" else 8
        per_layer = dense_calls * (1 - moe_share) + dense_calls / 2 * moe_share
        calls = round(per_layer * cp.layers_per_stage * m)
        t_ag, alg_ag, level = timing.collective("all-gather", size, job.tp, 1, job.sharp)
        t_rs, _alg, _level = timing.collective("reduce-scatter", size, job.tp, 1, job.sharp)
        comm.append(CommPart("TP", "all-gather + reduce-scatter", job.tp, calls, size,
                             calls / 2 * (t_ag + t_rs), k.tp_overlap, alg_ag, level, window_s=cp.compute))
    if job.cp > 1 and job.cp_comm == "all-to-all":
        comm.append(_ulysses_comm(job, timing, m, cp))
    elif job.cp > 1:
        kv_dim = (mdl.kv_lora_rank + mdl.qk_rope_dim) if mdl.mla else 2 * mdl.kv_heads * mdl.head_dim
        size = tokens_mb * kv_dim * _ACT_BYTES / job.tp
        calls = 3 * (job.cp - 1) * cp.layers_per_stage * m  # ring exchange: forward once, backward twice
        crossing, sends = _ring_crossings(job.tp, job.cp, gpus, domain)
        same = crossing == 0  # a ring step waits for its slowest send: one leaving the domain times them all
        share = 1.0 if same else timing.p2p_share(gpus, job.tp)  # neighbours sit tp GPUs apart
        scores = 6.0 * mdl.attended_tokens(job.seq_len) * mdl.heads * (mdl.qk_dim + mdl.v_dim)
        comm.append(CommPart("CP", "send/recv (ring attention)", job.cp, calls, size,
                             calls * timing.p2p(size, same, share), k.cp_overlap, "ring",
                             _sends_level(crossing, sends), window_s=cp.compute * scores / cp.flops_token))
    if job.pp > 1:
        size = tokens_mb * mdl.hidden * _ACT_BYTES / job.tp  # sequence-parallel shard
        calls = 2 * m * job.vp
        stride = job.tp * job.cp * dp  # stages sit tp x cp x dp apart
        crossing = _pipeline_crossings(stride, job.pp, domain)
        same = crossing == 0  # one slow hop bounds every step of the pipeline: then all sends are timed on it
        share = 1.0 if same else timing.p2p_share(gpus, stride)
        level = _sends_level(crossing, job.pp - 1)
        comm.append(CommPart("PP", "send/recv", job.pp, calls, size, calls * timing.p2p(size, same, share),
                             k.pp_overlap, "p2p", level, window_s=cp.compute))
    return comm


def _ulysses_comm(job: TrainingJob, timing: _Timing, m: int, cp: _Compute) -> CommPart:
    """Context parallelism by all-to-all (DeepSpeed-Ulysses, Jacobs et al. 2023, arXiv 2309.14509; Megatron-Core /
    Transformer Engine ``cp_comm_type="a2a"``): per layer and micro-batch, Q, K and V go from sequence shards to
    head shards before attention and the output back after it (two all-to-alls), the same two for the gradients
    in backward, and the forward's again under full recompute. Each all-to-all waits for its own layer's data,
    so it is mostly exposed, as expert parallelism's is (collectives.toml ``ep_overlap``)."""
    k = load_constants().training
    mdl = job.model
    tokens = job.seq_len / job.cp * job.micro_batch
    if mdl.mla:  # after the up-projections: per head a query and a key of qk_dim, a value of v_dim
        qkv = mdl.heads * (2 * mdl.qk_dim + mdl.v_dim)
    else:
        qkv = (mdl.heads + 2 * mdl.kv_heads) * mdl.head_dim
    qkv_bytes = tokens * qkv * _ACT_BYTES / job.tp
    out_bytes = tokens * mdl.heads * mdl.v_dim * _ACT_BYTES / job.tp
    t_qkv, alg, level = timing.collective("all-to-all", qkv_bytes, job.cp, job.tp, job.sharp)
    t_out, _alg, _level = timing.collective("all-to-all", out_bytes, job.cp, job.tp, job.sharp)
    rounds = (3 if job.recompute == "full" else 2) * cp.layers_per_stage * m  # pairs of all-to-alls
    return CommPart("CP", "all-to-all", job.cp, 2 * rounds, (qkv_bytes + out_bytes) / 2, rounds * (t_qkv + t_out),
                    k.ep_overlap, alg, level, window_s=cp.compute)


def _data_parallel_comm(job: TrainingJob, timing: _Timing, dp: int, m: int, cp: _Compute) -> list[CommPart]:
    """Data-parallel gradient (and parameter) traffic of one step over ``dp x cp`` ranks, and of the experts over
    their expert-data-parallel peers: ZeRO-3 per-layer gathers (``_fsdp_comm``), ZeRO-2 rounds, ZeRO-1
    reduce-scatter + all-gather, or (ZeRO-0) one all-reduce."""
    k = load_constants().training
    mdl = job.model
    tc = load_training_catalog()
    comm: list[CommPart] = []
    t_mb = cp.t_mb
    dense_grad = mdl.dense_params / (job.tp * job.pp) * k.grad_bytes_per_param
    n = dp * job.cp
    if job.zero == 3:
        comm.append(_fsdp_comm(job, timing, "DP", mdl.dense_params / (job.tp * job.pp), n, job.tp, m, cp))
    elif job.zero == 2:
        # ZeRO-2 / FSDP as Llama 3: each model chunk's fp32 gradients are reduce-scattered when the backward of
        # its group of micro-batches ends (groups of pp in the interleaved schedule: ceil(m / pp) per step;
        # 1F1B: once), the bf16 parameters all-gathered once; each round hides behind a micro-batch's backward
        g_bytes = tc.memory.sharded_gradient_bytes_per_param
        rounds = math.ceil(m / job.pp) if job.vp > 1 else 1
        params_gpu = mdl.dense_params / (job.tp * job.pp)
        t_rs, alg, level = timing.collective("reduce-scatter", params_gpu * g_bytes, n, job.tp, job.sharp)
        t_ag, _alg, _level = timing.collective("all-gather", params_gpu * k.weight_bytes_per_param, n, job.tp,
                                               job.sharp)
        per_call = params_gpu * (rounds * g_bytes + k.weight_bytes_per_param) / (rounds + 1)
        comm.append(CommPart("DP", "reduce-scatter + all-gather", n, rounds + 1, per_call, rounds * t_rs + t_ag,
                             k.dp_overlap, alg, level, window_s=rounds * t_mb))
    elif job.zero == 1:  # ZeRO-1: gradients reduce-scattered, updated parameters all-gathered
        t_rs, alg, level = timing.collective("reduce-scatter", dense_grad, n, job.tp, job.sharp)
        t_ag, _alg, _level = timing.collective("all-gather", dense_grad, n, job.tp, job.sharp)
        comm.append(CommPart("DP", "reduce-scatter + all-gather", n, 2, dense_grad, t_rs + t_ag,
                             k.dp_overlap, alg, level, window_s=t_mb))
    else:  # every rank keeps the whole optimizer: one all-reduce of the gradients (SHARP applies to it)
        t_ar, alg, level = timing.collective("all-reduce", dense_grad, n, job.tp, job.sharp)
        comm.append(CommPart("DP", "all-reduce", n, 1, dense_grad, t_ar, k.dp_overlap, alg, level,
                             window_s=t_mb))
    if mdl.is_moe:
        edp = max(1, job.tp * job.cp * dp // job.ep)
        if edp > 1:
            exp_params = mdl.expert_params / (job.ep * job.pp)
            exp_grad = exp_params * k.grad_bytes_per_param
            # expert-data-parallel peers hold the same experts: one in every ep ranks of a stage
            if job.zero == 3:
                comm.append(_fsdp_comm(job, timing, "DP (experts)", exp_params, edp, job.ep, m, cp))
            elif job.zero == 2:  # as the dense part: fp32 reduce-scatter per round, bf16 all-gather once
                g_bytes = tc.memory.sharded_gradient_bytes_per_param
                rounds = math.ceil(m / job.pp) if job.vp > 1 else 1
                t_rs, alg, level = timing.collective("reduce-scatter", exp_params * g_bytes, edp, job.ep, job.sharp)
                t_ag, _alg, _level = timing.collective("all-gather", exp_params * k.weight_bytes_per_param, edp,
                                                       job.ep, job.sharp)
                per_call = exp_params * (rounds * g_bytes + k.weight_bytes_per_param) / (rounds + 1)
                comm.append(CommPart("DP (experts)", "reduce-scatter + all-gather", edp, rounds + 1, per_call,
                                     rounds * t_rs + t_ag, k.dp_overlap, alg, level, window_s=rounds * t_mb))
            else:
                t_rs, alg, level = timing.collective("reduce-scatter", exp_grad, edp, job.ep, job.sharp)
                t_ag, _alg, _level = timing.collective("all-gather", exp_grad, edp, job.ep, job.sharp)
                comm.append(CommPart("DP (experts)", "reduce-scatter + all-gather", edp, 2, exp_grad,
                                     t_rs + t_ag, k.dp_overlap, alg, level, window_s=t_mb))
    return comm


def _fsdp_comm(job: TrainingJob, timing: _Timing, kind: str, params_gpu: float, n: int, stride: int, m: int,
               cp: _Compute) -> CommPart:
    """ZeRO-3 / FSDP full sharding over ``n`` ranks ``stride`` apart: every micro-batch, each layer's bf16
    parameters (``params_gpu`` per GPU for the stage, in equal parts per layer) all-gathered before its forward
    and again before its backward, and its gradients reduce-scattered (fp32, as ZeRO-2) after it. Each gather
    runs behind the previous layer's compute, so the window is the whole step's compute."""
    k = load_constants().training
    g_bytes = load_training_catalog().memory.sharded_gradient_bytes_per_param
    layer = params_gpu / max(1, cp.layers_per_stage)
    t_ag, alg, level = timing.collective("all-gather", layer * k.weight_bytes_per_param, n, stride, job.sharp)
    t_rs, _alg, _level = timing.collective("reduce-scatter", layer * g_bytes, n, stride, job.sharp)
    rounds = m * cp.layers_per_stage
    per_call = layer * (2 * k.weight_bytes_per_param + g_bytes) / 3
    return CommPart(kind, "all-gather + reduce-scatter", n, 3 * rounds, per_call, rounds * (2 * t_ag + t_rs),
                    k.dp_overlap, alg, level, window_s=cp.compute)


def _expert_parallel_comm(job: TrainingJob, timing: _Timing, m: int, cp: _Compute) -> list[CommPart]:
    """Expert-parallel dispatch and combine of one step: per MoE layer of a stage and micro-batch, the forward's
    dispatch and combine and the backward's (their gradients, the other way), each timed by the model serving uses
    (``core.perf.expert_dispatch.ep_layer``, DeepEP's normal kernels as Megatron-Core's ``flex`` dispatcher runs
    them) with BF16 values both ways, among ``ep`` ranks ``tp x cp`` apart that hold ``tokens / tp`` each."""
    k = load_constants().training
    mdl = job.model
    tc = load_training_catalog()
    tokens_gpu = job.seq_len / job.cp * job.micro_batch / job.tp
    e = timing.dispatch(job.ep, tokens_gpu, mdl.top_k, mdl.hidden, "normal", stride=job.tp * job.cp,
                        bytes_per_value=(_ACT_BYTES, _ACT_BYTES))
    rounds = math.ceil(mdl.moe_layers / job.pp) * m  # MoE layers of a stage x micro-batches
    ep_overlap = tc.schedule.dualpipe_ep_overlap if job.schedule == "dualpipe" else k.ep_overlap
    return [CommPart("EP", "all-to-all", job.ep, 4 * rounds, e.bytes / 2, rounds * 2 * (e.dispatch_s + e.combine_s),
                     ep_overlap, "DeepEP", e.level, window_s=cp.compute * mdl.moe_layers / mdl.layers)]


def estimate(plan: Plan, job: TrainingJob) -> TrainingEstimate:
    """Estimate one training step of ``job`` on ``plan``.

    Steps: the split's fit (``_check_fit``), memory (``_check_memory``), compute and bubble (``_compute_time``),
    then the communication of each parallelism (``_model_parallel_comm``, ``_data_parallel_comm``,
    ``_expert_parallel_comm``) and what of it the compute does not hide (``_expose``).

    Raises
    ------
    DesignError
        The split does not fit the cluster, the model or GPU memory (the message
        says what would).
    """
    return _estimate(job, _Timing(plan))


def _estimate(job: TrainingJob, timing: _Timing) -> TrainingEstimate:
    """``estimate`` of ``job`` on ``timing.plan``, its communication timed by ``timing`` (the split search shares
    one among its candidates)."""
    plan = timing.plan
    r = plan.resolved
    mdl = job.model
    gpus, dp, m = _check_fit(job, plan)
    warnings: list[str] = []
    slots = mdl.layers + (2 if job.balanced_stages and job.pp > 1 else 0)
    if slots % (job.pp * job.vp):
        warnings.append(_("{layers} layers do not split evenly into pp x vp = {chunks} chunks; "
                          "the fullest stage sets the pace.").format(layers=mdl.layers, chunks=job.pp * job.vp)
                        + _even_split_hint(job, slots, gpus))
    precision_peak_tflops(r.system, job.precision)  # a precision the GPU lacks is refused before the memory check
    stage_memory = _check_memory(job, plan, dp, m, warnings)
    _check_host_memory(job, plan, dp)
    cp = _compute_time(job, plan, m)
    comm = _model_parallel_comm(job, timing, gpus, dp, m, cp)
    if dp * job.cp > 1:
        comm += _data_parallel_comm(job, timing, dp, m, cp)
    if job.ep > 1:
        comm += _expert_parallel_comm(job, timing, m, cp)
    if job.offload != "none":
        comm += _offload_comm(job, plan, dp, cp)
    _expose(comm, cp.compute)
    # compute that overlaps the dispatch kernels runs on the SMs they leave
    compute_s = cp.compute + sum(c.hidden_s for c in comm if c.kind == "EP") * load_training_catalog().schedule.dispatch_sm_share

    cost, of_gpus = cost_basis(plan)
    per_day = tco_share_usd_per_s(cost.tco_usd, cost.tco_years, gpus, of_gpus) * SECONDS_PER_DAY
    return TrainingEstimate(
        job=job, gpus=gpus, dp=dp, microbatches=m, tokens_per_step=float(job.global_batch * job.seq_len),
        flops_per_token=cp.flops_token, peak_tflops=cp.peak, compute_efficiency=cp.eff, compute_s=compute_s,
        bubble_s=cp.bubble, comm=comm, memory_gb=stage_memory.parts, hbm_gb=r.system.hbm_gbytes,
        cost_usd_per_day=per_day, warnings=warnings, cluster_gpus=r.gpus, memory_stage=stage_memory.stage,
    )


def _even_split_hint(job: TrainingJob, slots: int, gpus: int) -> str:
    """`` pp P or vp V splits them evenly.``: the pp nearest the job's (at most ``gpus / (tp x cp)``) and the vp
    (at most 8) that divide the layers with the other kept; empty when neither exists."""
    group = job.tp * job.cp
    top = min(max(1, gpus // group), slots // job.vp)  # p x vp divides the slots, so p <= slots / vp
    pps = [p for p in range(2, top + 1) if slots % (p * job.vp) == 0 and gpus % (p * group) == 0]
    vps = [v for v in range(1, 9) if slots % (job.pp * v) == 0]
    ways = ([f"pp {min(pps, key=lambda p: (abs(p - job.pp), p))}"] if pps else []) + (
        [f"vp {min(vps, key=lambda v: (abs(v - job.vp), v))}"] if vps else [])
    if len(ways) == 2:
        return " " + _("{first} or {second} would split them evenly.").format(first=ways[0], second=ways[1])
    return " " + _("{first} would split them evenly.").format(first=ways[0]) if ways else ""


def _pow2_floor(n: int) -> int:
    """Largest power of two <= ``n`` (1 for n < 2)."""
    return 1 << (max(1, n).bit_length() - 1)


def fitting_split(
    plan: Plan, spec: ModelSpec, *, cp: int, micro_batch: int, vp: int, job_gpus: int | None,
    tp: int | None = None, pp: int | None = None, global_batch: int | None = None,
    default_tp: int = DEFAULT_TP, default_pp: int = DEFAULT_PP, default_global_batch: int = DEFAULT_GLOBAL_BATCH,
) -> dict[str, int]:
    """Tensor/pipeline parallel sizes and global batch that fit ``plan`` (values given are kept).

    Defaults are cut to fit: tp x pp x cp within the job's GPUs, tp within an
    NVLink domain and dividing the attention heads, pp at most the layers per
    virtual stage, and the global batch rounded up to a multiple of
    micro-batch x data-parallel size (capped near a million sequences).
    """
    r = plan.resolved
    gpus = min(job_gpus or 0, r.gpus) or r.gpus
    if tp is None:
        tp = min(default_tp, _pow2_floor(gpus // cp))
        if r.nvlink_domain_gpus > 1:
            tp = min(tp, _pow2_floor(r.nvlink_domain_gpus))
        while tp > 1 and spec.heads % tp:
            tp //= 2
    if pp is None:
        pp = max(1, min(default_pp, _pow2_floor(gpus // (tp * cp)), spec.layers // vp))
    if global_batch is None:
        dp = min(max(1, gpus // (tp * pp * cp)), max(1, MAX_GLOBAL_BATCH // micro_batch))
        per_step = micro_batch * dp  # the job trains on at most MAX_GLOBAL_BATCH // micro_batch replicas
        global_batch = min(math.ceil(default_global_batch / per_step) * per_step,
                           max(per_step, MAX_GLOBAL_BATCH // per_step * per_step))
    return {"tp": tp, "pp": pp, "global_batch": global_batch}


MIN_CP_CHUNK = 2048
"""Fewest tokens of a sequence per context-parallel rank the split search tries [tokens]: shorter chunks leave
attention too small to hide the K/V exchange (Megatron-Core's context-parallel guide recommends CP for sequences
of 8K tokens and more, with chunks of a few thousand)."""
MAX_SEARCH_VP = 8
"""Largest virtual-pipeline degree the split search tries (NeMo's published recipes use up to 8)."""
ZERO_REFINE = 4
"""The split search tries every ZeRO stage on this many of the fastest splits (``choose_split``)."""


@dataclass
class SplitCandidate:
    """One split ``choose_split`` tried: its estimate, or why it does not fit."""

    tp: int
    pp: int
    global_batch: int
    estimate: "TrainingEstimate | None" = None
    problem: str = ""
    """Why the split does not fit (the estimator's message), empty when it does."""
    first_tried: bool = False
    """The split the search starts from (``DEFAULT_TP`` x ``DEFAULT_PP`` cut to the design, ``fitting_split``)."""
    ep: int = 1
    """Expert-parallel degree (searched too for a mixture-of-experts model when ``search_ep``)."""
    vp: int = 1
    """Virtual-pipeline degree (searched when ``search_vp``)."""
    cp: int = 1
    """Context-parallel degree (searched when ``search_cp``)."""
    zero: int = 1
    """ZeRO stage (searched when ``search_zero``)."""

    @property
    def fits(self) -> bool:
        return self.estimate is not None

    def key(self) -> tuple[int, int, int, int, int, int]:
        """(tp, pp, vp, cp, ep, ZeRO stage): what tells two candidates apart."""
        return self.tp, self.pp, self.vp, self.cp, self.ep, self.zero

    def summary(self) -> dict:
        e = self.estimate
        return {"tp": self.tp, "pp": self.pp, "ep": self.ep, "vp": self.vp, "cp": self.cp, "zero_stage": self.zero,
                "global_batch": self.global_batch, "fits": self.fits,
                "dp": e.dp if e else None, "step_time_s": round(e.step_time_s, 4) if e else None,
                "mfu": round(e.mfu, 4) if e else None,
                "memory_gb": round(sum(e.memory_gb.values()), 2) if e else None,
                "problem": self.problem, "first_tried": self.first_tried}


@dataclass
class SplitChoice:
    """The splits ``choose_split`` considered, in the order tried, and the index of the chosen one."""

    candidates: list[SplitCandidate]
    chosen: int

    @property
    def best(self) -> SplitCandidate:
        return self.candidates[self.chosen]

    def searched(self) -> tuple[str, ...]:
        """The split fields whose value differs between candidates (``tp``, ``pp``, ``vp``, ``cp``, ``ep``,
        ``zero``), in that order: what the search varied."""
        names = ("tp", "pp", "vp", "cp", "ep", "zero")
        return tuple(n for i, n in enumerate(names) if len({c.key()[i] for c in self.candidates}) > 1)

    def summary(self) -> dict:
        return {"chosen": self.best.summary(), "rule": "fastest step among the splits that fit",
                "considered": [c.summary() for c in self.candidates]}


def _powers_of_two(limit: int) -> list[int]:
    return [1 << i for i in range(max(1, limit).bit_length()) if 1 << i <= limit]


def _search_cps(job: TrainingJob, gpus: int, search_cp: bool) -> list[int]:
    """Context-parallel degrees to try: the job's, or (``search_cp``) every power of two that splits the sequence
    into chunks of at least ``MIN_CP_CHUNK`` tokens (and, for all-to-all CP, divides the heads), the job's kept."""
    if not search_cp:
        return [job.cp]
    cps = [c for c in _powers_of_two(min(gpus, job.seq_len // MIN_CP_CHUNK))
           if job.seq_len % c == 0 and (job.cp_comm == "ring" or job.model.heads % c == 0)]
    return sorted(set(cps) | {job.cp})


def _search_vps(job: TrainingJob, pp: int, slots: int, search_vp: bool) -> list[int]:
    """Virtual-pipeline degrees to try for ``pp`` stages: the job's, or (``search_vp``) 1 without a pipeline and
    every power of two up to ``MAX_SEARCH_VP`` that splits the ``slots`` layers evenly over pp x vp."""
    if not search_vp:
        return [job.vp]
    if pp == 1:
        return [1]
    return [v for v in _powers_of_two(MAX_SEARCH_VP) if v == 1 or (slots % (pp * v) == 0 and pp * v <= slots)]


def _split_grid(plan: Plan, job: TrainingJob, gpus: int, tp: int | None, pp: int | None, max_pp: int,
                search_vp: bool, search_cp: bool) -> list[tuple[int, int, int, int]]:
    """(tp, pp, vp, cp) to try, the first split (``DEFAULT_TP`` x ``DEFAULT_PP`` cut to fit, ``fitting_split``) first: tp every power of
    two within an NVLink domain dividing the heads (unless given), pp every power of two up to ``max_pp`` and the
    layers per virtual stage (unless given), vp and cp as ``_search_vps`` and ``_search_cps`` say."""
    mdl = job.model
    domain = max(1, plan.resolved.nvlink_domain_gpus)
    slots = mdl.layers + (2 if job.balanced_stages else 0)  # balanced stages: embedding and loss take a layer's place
    default = fitting_split(plan, mdl, cp=job.cp, micro_batch=job.micro_batch, vp=job.vp, job_gpus=gpus, tp=tp,
                            pp=pp, default_global_batch=job.global_batch)
    grid = [(default["tp"], default["pp"], job.vp, job.cp)]
    for c in _search_cps(job, gpus, search_cp):
        tps = [tp] if tp else [t for t in _powers_of_two(min(domain, gpus // c)) if mdl.heads % t == 0]
        for t in tps:
            for p in [pp] if pp else _powers_of_two(min(max_pp, slots, max(1, gpus // (t * c)))):
                for v in _search_vps(job, p, slots, search_vp):
                    if (t, p, v, c) not in grid and (p * v <= slots or pp):
                        grid.append((t, p, v, c))
    return grid


def _try_split(timing: _Timing, job: TrainingJob, gpus: int, split: tuple[int, int, int, int], ep: int, zero: int,
               global_batch: int | None, default: bool) -> tuple[SplitCandidate, DesignError | None]:
    """Estimate ``job`` on ``timing.plan`` at one split (tp, pp, vp, cp), ep and ZeRO stage, with
    ``fitting_split``'s global batch, its communication timed by the search's ``timing``."""
    t, p, v, c = split
    batch = fitting_split(timing.plan, job.model, tp=t, pp=p, cp=c, micro_batch=job.micro_batch, vp=v, job_gpus=gpus,
                          global_batch=global_batch, default_global_batch=job.global_batch)["global_batch"]
    cand = SplitCandidate(t, p, batch, first_tried=default, ep=ep, vp=v, cp=c, zero=zero)
    try:
        cand.estimate = _estimate(job.model_copy(update={
            "tp": t, "pp": p, "vp": v, "cp": c, "ep": ep, "zero_stage": zero, "dp": None, "gpus": gpus,
            "global_batch": batch}), timing)
    except DesignError as exc:
        cand.problem = exc.message
        return cand, exc
    return cand, None


def choose_split(plan: Plan, job: TrainingJob, *, tp: int | None = None, pp: int | None = None,
                 global_batch: int | None = None, max_pp: int = 64, search_ep: bool = False,
                 search_vp: bool = False, search_cp: bool = False, search_zero: bool = False) -> SplitChoice:
    """Pick the split (tp and pp not given; with the flags also vp, cp, ep and the ZeRO stage) so ``job`` fits
    ``plan``: the fastest step of those that fit.

    Candidates: the first split (``fitting_split``: ``DEFAULT_TP`` x ``DEFAULT_PP`` cut to the design) first,
    then every (tp, pp, vp, cp) of ``_split_grid``, each with ``fitting_split``'s global batch (``global_batch``
    kept when given, else ``job.global_batch`` rounded up to a multiple of micro-batch x dp). With ``search_ep`` a
    mixture-of-experts model also tries, for each of these, every power of two for ep that divides the experts and
    tp x cp x dp (else ``job.ep`` is kept). With ``search_zero`` every split is tried at the job's ZeRO stage, one
    that runs out of memory (``OutOfMemory``, found before any compute is estimated) again at each other stage,
    lowest first, until one fits, and the ``ZERO_REFINE`` fastest splits that fit at every other stage too: the
    stages differ mostly in memory, and their data-parallel traffic moves the step time of a split less than the
    split itself does. Ties go to the smaller tp x pp, then the smaller ep, vp, cp and ZeRO stage. Raises the
    first candidate's ``DesignError`` when none fits.

    The candidates share one ``_Timing``: each distinct communicator (operation, bytes, ranks, stride) is timed
    once per search, however many splits use it.
    """
    mdl = job.model
    gpus = min(job.gpus or plan.resolved.gpus, plan.resolved.gpus)
    timing = _Timing(plan, once=True)
    candidates: list[SplitCandidate] = []
    first_error: DesignError | None = None
    stages = (job.zero, *(z for z in range(4) if z != job.zero)) if search_zero else (job.zero,)
    for n, split in enumerate(_split_grid(plan, job, gpus, tp, pp, max_pp, search_vp, search_cp)):
        t, p, _v, c = split
        eps = [job.ep]
        if search_ep and mdl.is_moe:
            ranks = t * c * max(1, gpus // (t * p * c))  # tp x cp x dp: the ranks EP groups come from
            eps = [e for e in _powers_of_two(min(mdl.experts, ranks)) if mdl.experts % e == 0 and ranks % e == 0]
        for e in eps:
            for zero in stages:  # the other stages only while this split runs out of memory
                cand, error = _try_split(timing, job, gpus, split, e, zero, global_batch, n == 0 and e == job.ep)
                candidates.append(cand)
                first_error = first_error or error
                if error is None or not isinstance(error, OutOfMemory):
                    break
    if search_zero:
        tried = {cand.key() for cand in candidates}
        fastest = sorted((cand for cand in candidates if cand.fits), key=lambda cand: cand.estimate.step_time_s)
        for best in fastest[:ZERO_REFINE]:
            for zero in range(4):
                if (*best.key()[:5], zero) not in tried:
                    cand, _error = _try_split(timing, job, gpus, (best.tp, best.pp, best.vp, best.cp), best.ep,
                                              zero, global_batch, False)
                    candidates.append(cand)
                    tried.add(cand.key())
    fitting = [i for i, c in enumerate(candidates) if c.fits]
    if not fitting:
        raise DesignError(_("None of the {count} tp/pp splits tried fits; the first ({tp} x {pp}): {problem}").format(
            count=len(candidates), tp=candidates[0].tp, pp=candidates[0].pp, problem=first_error.message),
            first_error.suggestion)
    chosen = min(fitting, key=lambda i: (round(candidates[i].estimate.step_time_s, 6),
                                         candidates[i].tp * candidates[i].pp, candidates[i].ep, candidates[i].vp,
                                         candidates[i].cp, candidates[i].zero))
    return SplitChoice(candidates, chosen)


def default_split(plan: Plan, job: TrainingJob, *, tp: int | None = None, pp: int | None = None,
                  global_batch: int | None = None, **search: bool) -> SplitChoice:
    """The split a job gets for the tp, pp and global batch not given: the fastest that fits (``choose_split``,
    starting from ``DEFAULT_TP`` x ``DEFAULT_PP``; the global batch ``job.global_batch`` rounded up to a multiple
    of micro-batch x dp). The one rule ``python -m core train``, the Performance page (``core.perf.jobform``),
    the Compare and Sweep pages and the review pack follow; ``search`` passes ``choose_split``'s other searches
    (``search_ep``, ``search_vp``, ``search_cp``, ``search_zero``). Raises ``DesignError`` when no split fits."""
    return choose_split(plan, job, tp=tp, pp=pp, global_batch=global_batch, **search)


def ways_out(plan: Plan, job: TrainingJob, limit: int = 3) -> list[tuple[str, dict]]:
    """Up to ``limit`` single changes to ``job`` that make it fit ``plan``, each estimated: ``(phrase, changes)``
    with ``changes`` the ``TrainingJob`` fields to set.

    Tried in this order: full recompute, ZeRO stage 3, CPU offload of the optimizer, precision bf16, micro-batch 1,
    vp 1, then every power of
    two for tp (within an NVLink domain, dividing the heads), pp (up to the layers per virtual stage) and, for a
    mixture of experts, ep (dividing the experts); a change of split takes ``fitting_split``'s global batch (the
    job's rounded up to a multiple of micro-batch x dp), named in the phrase when it moves.
    """
    r = plan.resolved
    mdl = job.model
    gpus = min(job.gpus or r.gpus, r.gpus)
    tries: list[tuple[str, dict]] = []
    if job.recompute != "full":
        tries.append((_("full recompute"), {"recompute": "full"}))
    if job.zero != 3:
        tries.append((_("ZeRO stage 3"), {"zero_stage": 3}))
    if job.offload == "none":
        tries.append((_("the optimizer offloaded to CPU memory"), {"offload": "optimizer"}))
    if job.precision != "bf16":
        tries.append((_("precision bf16"), {"precision": "bf16"}))
    for name, value in (("micro_batch", 1), ("vp", 1)):
        if getattr(job, name) != value:
            tries.append((f"{name.replace('_', '-')} {value}", {name: value}))
    tries += [(f"tp {t}", {"tp": t}) for t in _powers_of_two(min(max(1, r.nvlink_domain_gpus), gpus // job.cp))
              if t != job.tp and mdl.heads % t == 0]
    tries += [(f"pp {p}", {"pp": p}) for p in _powers_of_two(min(64, max(1, mdl.layers // job.vp))) if p != job.pp]
    if mdl.is_moe:
        tries += [(f"ep {e}", {"ep": e}) for e in _powers_of_two(mdl.experts) if e != job.ep and mdl.experts % e == 0]
    found: list[tuple[str, dict]] = []
    for phrase, change in tries:
        candidate = job.model_copy(update={**change, "dp": None, "gpus": gpus})
        batch = fitting_split(plan, mdl, cp=job.cp, micro_batch=candidate.micro_batch, vp=candidate.vp,
                              job_gpus=gpus, tp=candidate.tp, pp=candidate.pp,
                              default_global_batch=job.global_batch)["global_batch"]
        try:
            estimate(plan, candidate.model_copy(update={"global_batch": batch}))
        except DesignError:
            continue
        if batch != job.global_batch:
            change = {**change, "global_batch": batch}
            phrase = _("{change} (global batch {batch})").format(change=phrase, batch=f"{batch:,}")
        found.append((phrase, change))
        if len(found) >= limit:
            break
    return found


def estimate_or_ways_out(plan: Plan, job: TrainingJob) -> TrainingEstimate:
    """``estimate``; when the job does not fit, its ``DesignError`` again with the ways out that do
    (``ways_out``: each estimated) added to the suggestion and as ``fixes`` (``TrainingJob`` field changes)."""
    try:
        return estimate(plan, job)
    except DesignError as exc:
        fixes = ways_out(plan, job)
        if not fixes:
            raise
        ways = _("Each of these fits (estimated): {ways}.").format(ways="; ".join(p for p, _c in fixes))
        raise DesignError(exc.message, f"{exc.suggestion} {ways}".strip(), tuple(fixes)) from None


def scaling_gpu_counts(model_parallel: int, cluster_gpus: int, job_gpus: int) -> list[int]:
    """GPU counts for a weak-scaling sweep: model-parallel size x powers of two, plus the job's own."""
    return sorted({model_parallel * 2**k for k in range(0, 21) if model_parallel * 2**k <= cluster_gpus} | {job_gpus})


def scaling(plan: Plan, job: TrainingJob, gpu_counts: list[int]) -> list[dict]:
    """Weak scaling: the same per-replica batch on more data-parallel replicas.

    For each GPU count (a multiple of tp x pp x cp that fits the plan) the global
    batch grows with dp; efficiency = (tokens/s per GPU) / (tokens/s per GPU at the
    smallest count).
    """
    model_parallel = job.tp * job.pp * job.cp
    base_dp = (job.gpus or plan.resolved.gpus) // model_parallel
    per_replica = job.global_batch / max(1, base_dp)
    rows = []
    for count in gpu_counts:
        dp = count // model_parallel
        if dp < 1 or count > plan.resolved.gpus:
            continue
        batch = max(job.micro_batch * dp, int(round(per_replica * dp / (job.micro_batch * dp))) * job.micro_batch * dp)
        try:
            est = estimate(plan, job.model_copy(update={"gpus": dp * model_parallel, "dp": None,
                                                        "global_batch": batch}))
        except DesignError:
            continue
        rows.append({"gpus": est.gpus, "dp": est.dp, "global_batch": batch, "step_time_s": est.step_time_s,
                     "tokens_per_s": est.tokens_per_s, "tokens_per_s_per_gpu": est.tokens_per_s / est.gpus,
                     "comm_fraction": est.comm_fraction, "mfu": est.mfu})
    if rows:
        base = rows[0]["tokens_per_s_per_gpu"]
        for row in rows:
            row["scaling_efficiency"] = row["tokens_per_s_per_gpu"] / base
    return rows


__all__ = ["ModelSpec", "PRESETS", "TrainingJob", "TrainingEstimate", "CommPart", "SplitCandidate", "SplitChoice",
           "OutOfMemory", "MIN_CP_CHUNK", "MAX_SEARCH_VP", "ZERO_REFINE",
           "activation_bytes_per_token", "choose_split", "comm_collective_label", "estimate", "estimate_or_ways_out",
           "stage_layers", "ways_out",
           "memory_label", "model_preset", "parallelism_label", "parse_job", "scaling", "place"]
