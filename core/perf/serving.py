"""Inference serving on a planned cluster: prefill and decode pools on the fabric.

A *deployment* serves one model on GPUs of the plan, aggregated (one pool does prefill and
decode, chunked prefill sharing the GPUs) or disaggregated (a prefill pool hands each request's
KV cache to a decode pool over the network). Each pool is ``replicas`` copies of one *instance*
of ``tp x dp x pp`` GPUs: attention is ``tp``-way tensor parallel in ``dp`` data-parallel ranks
(SGLang's DP attention), the experts of a mixture-of-experts layer are ``ep``-way expert
parallel over the ``tp x dp`` GPUs of a stage (expert tensor parallel = ``tp x dp / ep``), and
``pp`` pipeline stages hold the layers. Ranks fill NVLink domains in order, as
``core.perf.placement.place`` lays out every communicator.

Each phase is a roofline per component (attention, dense MLP, experts, logits): its time is
the larger of its FLOPs over the achievable compute and its bytes over the achievable HBM
bandwidth (``assets/catalog/serving.toml``), plus the communication the other micro-batch
does not hide (two-batch overlap):

* decode step (one output token for a batch of ``B`` sequences per rank): weights read once,
  experts only when a token of the step picks them, the KV cache of every sequence read, the
  tensor-parallel all-reduce per layer (``core.perf.collectives``), expert dispatch and combine
  per MoE layer (DeepEP's low-latency kernels: a fixed cost, the switch hops, bytes inside the
  NVLink domain over NVLink and the rest over the NIC's share of the fabric); plus a fixed step
  overhead. TPOT = the step time; the batch is capped by the KV cache that fits.
* prefill batch (``tokens_per_batch`` new tokens per rank): the same components with the
  attention's quadratic term (causal: a new token attends to the cached prefix and half the
  new tokens), DeepEP's normal kernels for the all-to-all.
* TTFT = queueing (M/D/1 at the prefill pool's utilisation) + the request's prefill batch +
  the KV-cache transfer to decode + one decode step.
* KV-cache transfer: the prompt's cache (MLA's compressed latent, grouped-query heads, sliding
  windows) over the NICs between the pools, or over the front-end network when the what-if
  removes the compute fabric.
* Load: a request rate (open loop: Little's law sets the decode batch, solved for the fixed
  point of batch and TPOT) or a concurrency (closed loop), or neither (the busier pool at
  the default utilisation of its capacity, `serving.toml [memory]`).
* Cost: the cluster's TCO per second (``core.cost``: capex over the TCO years plus energy) times
  the deployment's share of the GPUs, over the output tokens per second; energy per token at
  the deployment's share of facility power.

Units: time in seconds [s] unless a name says ms or us; bytes [B] (GB = 1e9 B for traffic, GiB
= 2^30 B for HBM capacity, as the training model); FLOP; bandwidths per direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core import plurals
from core.design import describe_validation_error
from core.errors import DesignError, InputError
from core.i18n import _
from core.perf.expert_dispatch import ep_layer
from core.perf.placement import contention, has_pods, links, place
from core.perf.serving_constants import load_serving_constants
from core.perf.training import ModelSpec, collective_time, model_preset, precision_peak_tflops
from core.perf.training_constants import load_training_catalog
from core.plan import Plan, cost_basis, tco_share_usd_per_s

Mode = Literal["aggregated", "disaggregated"]
ServingPrecision = Literal["bf16", "fp8", "fp4"]
AUTO_PRECISION = "auto"
"""The weight-precision setting that means ``default_precision`` of the design's accelerator: the default of the
Inference page, its link (``core.formats.inferencelink``) and ``python -m core serve``."""
PrecisionSetting = Literal["auto", "bf16", "fp8", "fp4"]
"""A weight precision as set: ``AUTO_PRECISION`` or one of ``ServingPrecision``."""
KvPrecision = Literal["bf16", "fp8"]
Network = Literal["fabric", "frontend"]
BATCH_TOLERANCE = 1e-3
"""The decode batch a rate sets is found to this share of the KV cache's cap [sequences per rank]."""
MAX_TOKENS = 1_000_000
"""Longest input or output [tokens] the model, the link and the page accept."""


class PoolSplit(BaseModel):
    """How one pool is split: ``nodes`` of the plan, each instance ``tp x dp x pp`` GPUs, experts ``ep``-way."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    nodes: int = Field(default=1, ge=1, le=1_000_000)
    tp: int = Field(default=1, ge=1, le=1024)
    dp: int = Field(default=1, ge=1, le=4096)
    ep: int = Field(default=1, ge=1, le=4096)
    pp: int = Field(default=1, ge=1, le=128)
    redundant_experts: int = Field(default=0, ge=0, le=4096)
    """Extra copies of busy experts (EPLB; DeepSeek and SGLang run 32 with DeepSeek-V3) so the expert slots
    split evenly over ``ep`` ranks."""

    @property
    def instance_gpus(self) -> int:
        """GPUs of one model instance."""
        return self.tp * self.dp * self.pp


class Workload(BaseModel):
    """What the deployment serves and the latency it must keep.

    ``rate`` [requests/s] (open loop) or ``concurrency`` [requests in flight] (closed loop), or
    neither (as many as the KV cache holds); ``ttft_ms`` and ``tpot_ms`` are the targets [ms].
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int = Field(default=2000, ge=1, le=MAX_TOKENS)
    output_tokens: int = Field(default=500, ge=1, le=MAX_TOKENS)
    cache_hit: float = Field(default=0.0, ge=0, lt=1, description="Share of input tokens found in the prefix cache.")
    rate: float | None = Field(default=None, gt=0, le=1e7)
    concurrency: int | None = Field(default=None, ge=1, le=100_000_000)
    ttft_ms: float | None = Field(default=None, gt=0, le=3_600_000)
    tpot_ms: float | None = Field(default=None, gt=0, le=60_000)

    @model_validator(mode="after")
    def _one_load(self) -> "Workload":
        if self.rate is not None and self.concurrency is not None:
            raise ValueError(_("give a request rate or a concurrency, not both"))
        return self

    @property
    def new_tokens(self) -> float:
        """Input tokens per request not found in the prefix cache (at least 1)."""
        return max(1.0, self.input_tokens * (1 - self.cache_hit))


class Deployment(BaseModel):
    """A model served on the plan: mode, precision, pools and workload.

    In aggregated mode the ``decode`` split is the one pool (it prefills too) and ``prefill`` is
    ignored. ``network = "frontend"``: the what-if without the scale-out fabric (every instance
    inside one NVLink domain, KV-cache transfer over the front-end network).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: ModelSpec
    mode: Mode = "disaggregated"
    precision: PrecisionSetting = "fp8"
    """``auto`` = ``default_precision`` of the plan's accelerator, resolved when the deployment is estimated or
    searched (``estimate``, ``serving_search.search``)."""
    kv_precision: KvPrecision = "bf16"
    prefill: PoolSplit = PoolSplit()
    decode: PoolSplit = PoolSplit()
    workload: Workload = Workload()
    network: Network = "fabric"

    @property
    def pools(self) -> tuple[PoolSplit, ...]:
        """The pools that hold GPUs (one in aggregated mode)."""
        return (self.decode,) if self.mode == "aggregated" else (self.prefill, self.decode)


def default_precision(system) -> str:
    """The weight precision a deployment gets by default on ``system``: FP8 where its matrix units run FP8 (a dense
    FP8 peak in the catalog), else BF16 (Ascend 910B, A100, MI250X)."""
    return "fp8" if system.peak_tflops("fp8") > 0 else "bf16"


def weight_precision(setting: str, system) -> str:
    """The precision ``setting`` means on ``system``: ``default_precision`` for ``AUTO_PRECISION``, else itself."""
    return default_precision(system) if setting == AUTO_PRECISION else setting


def parse_deployment(data: dict) -> Deployment:
    """Validate a mapping into a ``Deployment``; ``model`` may be a preset name. ``InputError`` naming the field."""
    data = dict(data)
    if isinstance(data.get("model"), str):
        data["model"] = model_preset(data["model"])
    try:
        return Deployment.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc)) from exc


# --------------------------------------------------------------------------------------
# The model's shapes for serving
# --------------------------------------------------------------------------------------
def kv_values_per_token_layer(model: ModelSpec) -> int:
    """Values one token stores in one layer's KV cache: MLA's latent and rotary key
    (``kv_lora_rank + qk_rope_dim``), else a key and a value per KV head (``2 x kv_heads x head_dim``)."""
    if model.mla:
        return model.kv_lora_rank + model.qk_rope_dim
    return 2 * model.kv_heads * model.head_dim


def kv_cache_bytes(model: ModelSpec, tokens: float, kv_bytes: float) -> float:
    """Bytes of one sequence's KV cache at ``tokens`` of context, all layers [B] (``kv_bytes`` per value)."""
    return model.attended_tokens(tokens) * kv_values_per_token_layer(model) * kv_bytes


def _score_dims(model: ModelSpec, phase: str) -> int:
    """Query-key plus value dimensions per head a key costs in attention. MLA decodes with the projections
    absorbed into the latent (``kv_lora_rank + qk_rope_dim`` and ``kv_lora_rank``), prefills without."""
    if model.mla and phase == "decode":
        return 2 * model.kv_lora_rank + model.qk_rope_dim
    return model.qk_dim + model.v_dim


# --------------------------------------------------------------------------------------
# One step's work on one GPU
# --------------------------------------------------------------------------------------
@dataclass
class Component:
    """One component's work in a step on one GPU: FLOPs [FLOP], HBM bytes [B], and its roofline time [s]."""

    name: str
    flops: float
    hbm_bytes: float
    compute_s: float = 0.0
    memory_s: float = 0.0

    @property
    def time_s(self) -> float:
        return max(self.compute_s, self.memory_s)

    @property
    def bound(self) -> str:
        """``compute`` or ``hbm``: what sets the component's time."""
        return "compute" if self.compute_s >= self.memory_s else "hbm"


@dataclass
class CommTime:
    """One communication of a step on one GPU: time inside the NVLink domain and on the fabric [s]."""

    kind: str
    nvlink_s: float
    fabric_s: float
    level: str
    bytes: float
    """Bytes one GPU sends per step [B]."""
    fabric_bytes: float = 0.0
    """Of them, bytes leaving the NVLink domain [B]."""

    @property
    def time_s(self) -> float:
        return self.nvlink_s + self.fabric_s


@dataclass
class StepTime:
    """One step (decode) or batch (prefill) of a pool on one GPU."""

    components: list[Component]
    comm: list[CommTime]
    overlap: float
    overhead_s: float
    stages: int = 1

    @property
    def work_s(self) -> float:
        """Roofline time of one stage's components [s]."""
        return sum(c.time_s for c in self.components)

    @property
    def comm_s(self) -> float:
        return sum(c.time_s for c in self.comm)

    @property
    def exposed_comm_s(self) -> float:
        """Communication not hidden behind the other micro-batch's work [s]: max((1-overlap) t, t - work)."""
        t = self.comm_s
        return max((1 - self.overlap) * t, t - self.work_s) if t > 0 else 0.0

    @property
    def slack_s(self) -> float:
        """Compute idle while memory-bound components wait for HBM, all stages [s]."""
        return self.stages * sum(max(0.0, c.memory_s - c.compute_s) for c in self.components)

    @property
    def time_s(self) -> float:
        """Stage time x stages + overhead [s]."""
        return self.stages * (self.work_s + self.exposed_comm_s) + self.overhead_s

    def breakdown(self) -> dict[str, float]:
        """The step split into compute, HBM, NVLink, fabric and overhead [s]; sums to ``time_s``."""
        out = {"compute": 0.0, "hbm": 0.0, "nvlink": 0.0, "fabric": 0.0, "overhead": self.overhead_s}
        for c in self.components:
            out[c.bound] += c.time_s * self.stages
        share = self.exposed_comm_s / self.comm_s if self.comm_s > 0 else 0.0
        for c in self.comm:
            out["nvlink"] += c.nvlink_s * share * self.stages
            out["fabric"] += c.fabric_s * share * self.stages
        return out


def _bytes_per_weight(dep: Deployment) -> float:
    return load_serving_constants().precision.weight(dep.precision)


def _roofline(components: list[Component], peak_flops: float, score_flops: float,
              hbm_bytes_per_s: float) -> list[Component]:
    """Fill each component's compute and memory time at the achievable FLOP/s (``score_flops`` for the attention
    scores, which run at the KV cache's precision: DeepSeek's MLA core in BF16) and bytes/s."""
    for c in components:
        c.compute_s = c.flops / (score_flops if c.name == "attention scores" else peak_flops)
        c.memory_s = c.hbm_bytes / hbm_bytes_per_s
    return components


def _expert_reads(model: ModelSpec, split: PoolSplit, tokens_per_rank: float) -> float:
    """Routed experts one GPU reads in one MoE layer: its ``experts / ep`` experts, each read when at least one
    of the instance's ``dp x tokens_per_rank`` tokens picks it (each token picks ``top_k`` of ``experts``)."""
    local = (model.experts + split.redundant_experts) / split.ep
    tokens = split.dp * tokens_per_rank
    picked = 1.0 - (1.0 - model.top_k / model.experts) ** tokens
    return local * picked


def _components(dep: Deployment, split: PoolSplit, tokens: float, context: float, kv_read_tokens: float,
                phase: str) -> list[Component]:
    """The components of one step on one GPU of a pool: ``tokens`` new tokens per attention rank, each attending
    to ``context`` tokens, reading ``kv_read_tokens`` tokens of KV cache per sequence-layer; weights at the
    serving precision, the layers of one pipeline stage."""
    m, w = dep.model, _bytes_per_weight(dep)
    kv_b = load_serving_constants().precision.kv(dep.kv_precision)
    stage = 1.0 / split.pp
    tp, etp = split.tp, split.tp * split.dp / split.ep
    dense_layers = m.layers - m.moe_layers
    kv_shard = 1 if m.mla else min(tp, m.kv_heads)
    heads = m.heads / tp
    attn_params = m.attention_params * m.layers / tp * stage
    scores = 2.0 * heads * _score_dims(m, phase) * m.attended_tokens(context) * stage
    kv_read = m.attended_tokens(kv_read_tokens) * kv_values_per_token_layer(m) * kv_b / kv_shard * stage
    out = [Component("attention", 2 * attn_params * tokens, attn_params * w),
           Component("attention scores", scores * tokens, kv_read * (tokens if phase == "decode" else 1.0))]
    mlp = dense_layers * m.dense_mlp_params / tp * stage
    if mlp:
        out.append(Component("dense MLP", 2 * mlp * tokens, mlp * w))
    if m.is_moe:
        expert = m.expert_params_per_layer / m.experts / etp  # one expert: its MLP matrices
        routed_tokens = tokens * split.dp * m.top_k / split.ep
        layers = m.moe_layers * stage
        shared = m.moe_layer_dense_params / tp
        out.append(Component("experts", 2 * layers * (expert * routed_tokens + shared * tokens),
                             layers * (expert * _expert_reads(m, split, tokens) + shared) * w))
    logits = m.vocab * m.hidden / tp * stage
    logit_tokens = tokens if phase == "decode" else tokens / dep.workload.new_tokens  # a prompt's last token
    out.append(Component("logits", 2 * logits * logit_tokens, logits * w))
    return out


# --------------------------------------------------------------------------------------
# Communication
# --------------------------------------------------------------------------------------
def _ep_time(plan: Plan, dep: Deployment, split: PoolSplit, tokens: float, phase: str) -> CommTime | None:
    """Expert dispatch and combine of one step on one GPU: ``ep_layer`` (``core.perf.expert_dispatch``, the model
    training shares; DeepEP's low-latency kernels in decode, normal in prefill) for every MoE layer of a stage,
    among the ``tp x dp`` GPUs of a stage."""
    m = dep.model
    ranks = split.tp * split.dp
    if not m.is_moe or split.ep <= 1 or ranks <= 1:
        return None
    kernel = "low-latency" if phase == "decode" else "normal"
    e = ep_layer(plan, ranks, tokens / split.tp, m.top_k, m.hidden, kernel)  # a TP group splits its tokens
    layers = m.moe_layers / split.pp
    return CommTime("EP", layers * e.nvlink_s, layers * e.fabric_s, e.level, layers * e.bytes,
                    layers * e.bytes * e.remote)


def _tp_time(plan: Plan, dep: Deployment, split: PoolSplit, tokens: float) -> CommTime | None:
    """Tensor-parallel all-reduces of one step on one GPU: two per layer of a stage (after attention and after the
    MLP) of ``tokens x hidden`` BF16 values, at NCCL's fastest algorithm on this fabric."""
    if split.tp <= 1:
        return None
    m = dep.model
    nbytes = tokens * m.hidden * 2.0
    t, _alg, level = collective_time(plan, "all-reduce", nbytes, split.tp, 1)
    calls = 2 * m.layers / split.pp
    if level == "nvlink":
        return CommTime("TP", calls * t, 0.0, level, calls * nbytes)
    return CommTime("TP", 0.0, calls * t, level, calls * nbytes, calls * nbytes)


def _pp_time(plan: Plan, dep: Deployment, split: PoolSplit, tokens: float) -> CommTime | None:
    """Pipeline sends of one step: ``pp - 1`` hand-offs of ``tokens x hidden`` BF16 values."""
    if split.pp <= 1:
        return None
    nbytes = tokens * dep.model.hidden * 2.0
    t, _alg, level = collective_time(plan, "all-gather", nbytes, 2, split.tp * split.dp)
    hops = split.pp - 1
    if level == "nvlink":
        return CommTime("PP", hops * t / split.pp, 0.0, level, nbytes)
    return CommTime("PP", 0.0, hops * t / split.pp, level, nbytes, nbytes)


def _dense_gain(architecture: str, dep: Deployment) -> float:
    """How much more of peak a dense model's GEMMs reach than a mixture-of-experts model's (the serving fractions
    are fitted on DeepSeek-V3): the training model's dense / MoE ratio for the architecture (1 for MoE models)."""
    if dep.model.is_moe:
        return 1.0
    tc = load_training_catalog()
    precision = "bf16" if dep.precision == "bf16" else "fp8"
    return tc.compute_efficiency(architecture, precision, False) / tc.compute_efficiency(architecture, precision, True)


def _step(plan: Plan, dep: Deployment, split: PoolSplit, tokens: float, context: float, phase: str) -> StepTime:
    """One decode step (``tokens`` = sequences per rank, each at ``context``) or prefill batch (``tokens`` new
    tokens per rank attending to ``context`` on average) on one GPU of ``split``."""
    r = plan.resolved
    c = load_serving_constants()
    eff = c.efficiency_of(r.system.architecture)
    peak = precision_peak_tflops(r.system, dep.precision) * 1e12
    fraction = (eff.decode_compute if phase == "decode" else eff.prefill) * _dense_gain(r.system.architecture, dep)
    kv_tokens = context if phase == "decode" else tokens
    score_peak = precision_peak_tflops(r.system, dep.kv_precision) * 1e12
    comps = _roofline(_components(dep, split, tokens, context, kv_tokens, phase), peak * fraction,
                      score_peak * fraction, r.system.hbm_tbytes_per_s * 1e12 * eff.hbm)
    comm = [x for x in (_ep_time(plan, dep, split, tokens, phase), _tp_time(plan, dep, split, tokens),
                        _pp_time(plan, dep, split, tokens)) if x is not None]
    if phase == "decode":
        return StepTime(comps, comm, c.decode.overlap, c.decode.step_overhead_us * 1e-6, split.pp)
    return StepTime(comps, comm, c.prefill.overlap, 0.0, split.pp)


# --------------------------------------------------------------------------------------
# Memory and fit
# --------------------------------------------------------------------------------------
def weights_per_gpu_bytes(dep: Deployment, split: PoolSplit) -> float:
    """Weights one GPU of ``split`` holds [B]: the dense part over ``tp x pp``, the routed experts over the
    ``tp x dp x pp`` GPUs of the instance (``ep`` ranks, each expert ``tp x dp / ep``-way tensor parallel)."""
    m = dep.model
    slots = (m.experts + split.redundant_experts) / m.experts if m.is_moe else 1.0
    return (m.dense_params / (split.tp * split.pp)
            + m.expert_params * slots / split.instance_gpus) * _bytes_per_weight(dep)


def kv_per_sequence_gpu_bytes(dep: Deployment, split: PoolSplit, context: float) -> float:
    """KV cache one sequence of a rank keeps on one GPU at ``context`` tokens [B]: a stage's layers, the KV heads
    split over ``tp`` (MLA's latent is not: every tensor-parallel rank keeps it whole)."""
    m = dep.model
    shard = 1 if m.mla else min(split.tp, m.kv_heads)
    kv_b = load_serving_constants().precision.kv(dep.kv_precision)
    return kv_cache_bytes(m, context, kv_b) / (shard * split.pp)


def usable_hbm_bytes(plan: Plan) -> float:
    """HBM per GPU left for weights and KV cache [B]: the catalog's GiB less the serving reserve."""
    unit = load_training_catalog().memory.capacity_unit_bytes
    return plan.resolved.system.hbm_gbytes * unit * (1 - load_serving_constants().memory.reserve_fraction)


def max_batch(plan: Plan, dep: Deployment, split: PoolSplit, context: float) -> int:
    """Sequences per rank and micro-batch whose KV cache fits beside the weights (0 if the weights do not fit)."""
    free = usable_hbm_bytes(plan) - weights_per_gpu_bytes(dep, split)
    if free <= 0:
        return 0
    return int(free / (split.pp * kv_per_sequence_gpu_bytes(dep, split, context)))


def check_split(plan: Plan, dep: Deployment, split: PoolSplit, pool: str) -> None:
    """``DesignError`` naming the field when ``split`` does not divide its nodes, the model or the NVLink domain."""
    r, m = plan.resolved, dep.model
    pool_gpus = split.nodes * r.gpus_per_node
    label = pool_label(pool, dep.mode == "aggregated")
    checks = [
        (pool_gpus % split.instance_gpus != 0,
         _("{pool}: {gpus} GPUs on {nodes} do not split into instances of tp x dp x pp = {inst} GPUs.")),
        ((split.tp * split.dp) % split.ep != 0,
         _("{pool}: ep {ep} must divide tp x dp = {ranks} (the experts spread over the ranks of a stage).")),
        (m.is_moe and (m.experts + split.redundant_experts) % split.ep != 0,
         _("{pool}: ep {ep} must divide the {experts} expert slots (the model's experts and the redundant ones).")),
        (not m.is_moe and split.ep > 1, _("{pool}: {model} has no experts; ep must be 1.")),
        (split.tp > m.heads or m.heads % split.tp != 0, _("{pool}: tp {tp} must divide the model's {heads} heads.")),
        (split.pp > m.layers, _("{pool}: pp {pp} is more than the model's {layers} layers.")),
        (dep.network == "frontend" and split.instance_gpus > max(1, r.nvlink_domain_gpus),
         _("{pool}: without the compute fabric an instance must fit one NVLink domain of {domain} GPUs, not "
           "{inst}.")),
    ]
    for failed, message in checks:
        if failed:
            raise DesignError(message.format(
                pool=label, gpus=f"{pool_gpus:,}", nodes=plurals.nodes(split.nodes), inst=split.instance_gpus,
                ep=split.ep, ranks=split.tp * split.dp, experts=m.experts + split.redundant_experts, model=m.name, tp=split.tp,
                heads=m.heads, pp=split.pp, layers=m.layers, domain=r.nvlink_domain_gpus),
                _("Change the {pool} split; the Inference page's search (python -m core serve without a split) "
                  "lists splits that fit.").format(pool=label))


def check_pool(plan: Plan, dep: Deployment, split: PoolSplit, name: str) -> None:
    """``DesignError`` when pool ``name``'s ``split`` cannot serve: it does not divide its pool, the model or the
    NVLink domain (``check_split``), its weights do not fit the usable HBM, or one prompt's KV cache does not fit
    beside them. The one fit rule of a pool, for the estimate and the search."""
    check_split(plan, dep, split, name)
    label = pool_label(name, dep.mode == "aggregated")
    weights = weights_per_gpu_bytes(dep, split)
    usable = usable_hbm_bytes(plan)
    if weights >= usable:
        unit = load_training_catalog().memory.capacity_unit_bytes
        raise DesignError(
            _("{pool}: {model} needs {weights} GiB of weights per GPU at {precision} with this split, more than "
              "the {usable} GiB usable.").format(pool=label, model=dep.model.name,
                                                weights=f"{weights / unit:.0f}", precision=dep.precision.upper(),
                                                usable=f"{usable / unit:.0f}"),
            _("Spread the model over more GPUs (larger tp, ep or pp) or use a lower precision."))
    if weights + kv_per_sequence_gpu_bytes(dep, split, dep.workload.input_tokens) * split.pp > usable:
        raise DesignError(
            _("{pool}: the KV cache of one {tokens}-token prompt does not fit beside the weights.").format(
                pool=label, tokens=f"{dep.workload.input_tokens:,}"),
            _("Spread the model over more GPUs (larger tp, ep or pp), use an FP8 KV cache or a shorter input."))


def _check_fit(plan: Plan, dep: Deployment) -> None:
    """Every pool fits (``check_pool``), the pools within the plan's nodes, the precision supported."""
    r = plan.resolved
    precision_peak_tflops(r.system, dep.precision)
    names = ("decode",) if dep.mode == "aggregated" else ("prefill", "decode")
    for name, split in zip(names, dep.pools):
        check_pool(plan, dep, split, name)
    nodes = sum(p.nodes for p in dep.pools)
    if nodes > r.nodes:
        raise DesignError(_("The deployment needs {need} nodes, the cluster has {have}.").format(
            need=f"{nodes:,}", have=f"{r.nodes:,}"), _("Use fewer nodes per pool or plan more nodes."))


def pool_name(pool: str, aggregated: bool = False) -> str:
    """Pool ``pool``'s short name, a table's row or column: ``prefill``, ``decode``, or aggregated mode's one pool
    (``aggregated``), which prefills and decodes, as ``pool_label`` names it."""
    return pool_label(pool, aggregated) if aggregated else {"prefill": _("prefill"), "decode": _("decode")}[pool]


def pool_label(pool: str, aggregated: bool = False) -> str:
    """``prefill pool`` / ``decode pool``, or ``serving pool``: aggregated mode's one pool (``aggregated``; its split
    is the ``decode`` one), as the Inference page's controls name it."""
    if aggregated:
        return _("serving pool")
    return {"prefill": _("prefill pool"), "decode": _("decode pool")}.get(pool, pool)


# --------------------------------------------------------------------------------------
# Pools under load
# --------------------------------------------------------------------------------------
@dataclass
class PoolResult:
    """One pool at the deployment's load."""

    name: str
    split: PoolSplit
    gpus: int
    replicas: int
    ranks: int
    """Attention data-parallel ranks of the pool (replicas x dp)."""
    step: StepTime
    batch: float
    """Decode: sequences per rank and micro-batch; prefill: new tokens per rank and batch."""
    max_batch: int
    tokens_per_s: float
    """Decode: output tokens/s of the pool; prefill: new input tokens/s of the pool."""
    capacity_tokens_per_s: float
    """The same at full batch (prefill: busy all the time; decode: the KV cache full)."""
    utilisation: float

    @property
    def tokens_per_s_per_gpu(self) -> float:
        return self.tokens_per_s / self.gpus

    def summary(self) -> dict:
        s = self.split
        return {"nodes": s.nodes, "gpus": self.gpus, "replicas": self.replicas,
                "split": {"tp": s.tp, "dp": s.dp, "ep": s.ep, "pp": s.pp},
                "batch_per_rank": self.batch, "max_batch_per_rank": self.max_batch,
                "step_s": self.step.time_s, "utilisation": self.utilisation,
                "breakdown_s": self.step.breakdown()}


def _ranks(plan: Plan, split: PoolSplit) -> tuple[int, int, int]:
    """(GPUs, instances, attention ranks) of a pool."""
    gpus = split.nodes * plan.resolved.gpus_per_node
    replicas = gpus // split.instance_gpus
    return gpus, replicas, replicas * split.dp


def decode_context(dep: Deployment) -> float:
    """Average context of a decoding sequence [tokens]: the prompt and half the output."""
    return dep.workload.input_tokens + dep.workload.output_tokens / 2


def prefill_context(dep: Deployment) -> float:
    """Average context a new prompt token attends to [tokens]: the cached prefix and half the new tokens."""
    w = dep.workload
    return w.input_tokens * w.cache_hit + w.new_tokens / 2


def shared_step_s(step: StepTime, prefill_share: float) -> float:
    """A decode step [s] when chunked prefill shares the GPUs (aggregated mode) and needs ``prefill_share`` of
    their time: prefill first fills the compute left idle by memory-bound components (``StepTime.slack_s``), then
    stretches the step: ``T = step`` while ``share x T <= slack``, else ``T = (step - slack) / (1 - share)``."""
    t = step.time_s
    if prefill_share <= 0 or prefill_share * t <= step.slack_s:
        return t
    if prefill_share >= 1:
        return math.inf
    return (t - step.slack_s) / (1 - prefill_share)


def decode_rate(plan: Plan, dep: Deployment, split: PoolSplit, batch: float, prefill_share: float) -> float:
    """Output tokens/s of a decode pool at ``batch`` sequences per rank and micro-batch (``prefill_share``: the GPU
    time chunked prefill needs in aggregated mode, 0 disaggregated)."""
    _gpus, _replicas, ranks = _ranks(plan, split)
    step = shared_step_s(_step(plan, dep, split, batch, decode_context(dep), "decode"), prefill_share)
    return ranks * split.pp * batch / step


def _solve_batch(plan: Plan, dep: Deployment, split: PoolSplit, wanted: float, cap: int, prefill_share: float,
                 full: float) -> float:
    """Smallest batch per rank whose output rate reaches ``wanted`` tokens/s (bisection to ``BATCH_TOLERANCE`` of
    the cap, from above: the rate grows with the batch), or ``cap`` when even the full KV cache does not (``full``:
    ``decode_rate`` at ``cap`` [tokens/s])."""
    if full <= wanted:
        return float(cap)
    lo, hi = 0.0, float(cap)
    while hi - lo > BATCH_TOLERANCE * cap:
        mid = (lo + hi) / 2
        if decode_rate(plan, dep, split, max(mid, 1e-9), prefill_share) < wanted:
            lo = mid
        else:
            hi = mid
    return hi


def prefill_tokens(plan: Plan, dep: Deployment, split: PoolSplit) -> float:
    """New tokens per rank in one prefill batch: ``tokens_per_batch``, fewer when the KV cache of that many prompt
    tokens (with their prompts' cached prefix) does not fit beside the weights [tokens]."""
    w = dep.workload
    free = usable_hbm_bytes(plan) - weights_per_gpu_bytes(dep, split)
    per_prompt = kv_per_sequence_gpu_bytes(dep, split, w.input_tokens) * split.pp
    fits = free / per_prompt * w.new_tokens if per_prompt > 0 else math.inf
    return float(min(load_serving_constants().prefill.tokens_per_batch, max(1, math.floor(fits))))


def prefill_pool(plan: Plan, dep: Deployment, split: PoolSplit, rate: float, name: str) -> PoolResult:
    """A pool prefilling ``rate`` requests/s in batches of ``prefill_tokens`` new tokens per rank."""
    gpus, replicas, ranks = _ranks(plan, split)
    batch = prefill_tokens(plan, dep, split)
    step = _step(plan, dep, split, batch, prefill_context(dep), "prefill")
    capacity = ranks * batch * split.pp / step.time_s
    wanted = rate * dep.workload.new_tokens
    return PoolResult(name, split, gpus, replicas, ranks, step, batch, int(batch), min(wanted, capacity), capacity,
                      wanted / capacity)


def prefill_latency(plan: Plan, dep: Deployment, pool: PoolResult) -> tuple[float, float]:
    """(queueing, prefill) time of one request [s]: M/D/1 wait at the pool's utilisation for one request's
    prefill as the service time, and that prefill: its new tokens, in as many batches as they span."""
    rho = pool.utilisation
    new = dep.workload.new_tokens
    alone = _step(plan, dep, pool.split, min(pool.batch, new), prefill_context(dep), "prefill").time_s
    own = alone * max(1.0, new / pool.batch)
    if rho >= 1:  # the queue grows without bound; the request's own prefill does not
        return math.inf, own
    return rho / (2 * (1 - rho)) * own, own


# --------------------------------------------------------------------------------------
# KV-cache transfer
# --------------------------------------------------------------------------------------
@dataclass
class KvTransfer:
    """The prompt's KV cache moving from a prefill rank to a decode rank."""

    bytes_per_request: float
    """[B]"""
    time_s: float
    gbytes_per_s: float
    """Total at the deployment's request rate [GB/s]."""
    level: str
    """Farthest fabric level crossed (``frontend`` in the what-if without the compute fabric)."""
    network_gbytes_per_s: float
    """What the network offers the transfer between the pools [GB/s, one direction]: the NICs of the smaller pool
    (the cache leaves the one and enters the other), at most the fabric's bisection when it crosses the fabric;
    both at ``efficiency`` of their line rate."""
    efficiency: float = 1.0
    """The share of line rate a bulk RDMA transfer reaches (``serving.toml [kv_transfer] efficiency``), which
    ``network_gbytes_per_s`` and the transfer time apply."""
    bound: str = "nics"
    """What sets ``network_gbytes_per_s``: ``"nics"`` (the smaller pool's) or ``"bisection"`` (the fabric's)."""

    @property
    def load(self) -> float:
        """The transfer's share of what the network between the pools offers."""
        return self.gbytes_per_s / self.network_gbytes_per_s if self.network_gbytes_per_s else math.inf

    def summary(self) -> dict:
        return {"bytes_per_request": self.bytes_per_request, "time_s": self.time_s, "gbytes_per_s": self.gbytes_per_s,
                "level": self.level, "network_gbytes_per_s": self.network_gbytes_per_s, "load": self.load,
                "efficiency": self.efficiency, "bound": self.bound}


def frontend_gbits_per_node(plan: Plan) -> float:
    """Front-end bandwidth per node [Gb/s, per direction]: the planned storage network's ports, else the
    catalog's front-end figure (``serving.toml [kv_transfer]``)."""
    from core.networks.storage import node_storage_ports

    storage = plan.networks.storage if plan.networks else None
    if storage is not None:
        return storage.port_speed_gbps * node_storage_ports(plan.resolved.design)
    return load_serving_constants().kv_transfer.frontend_gbps_per_node


def _kv_transfer(plan: Plan, dep: Deployment, prefill: PoolSplit, rate: float) -> KvTransfer:
    """One request's KV cache from its prefill rank's GPUs (one per KV shard and stage) to decode: a fixed cost,
    the switch hops between the pools and the bytes over those GPUs' NIC share, or over the node's front-end
    ports in the what-if without the compute fabric."""
    k = load_serving_constants().kv_transfer
    r, m = plan.resolved, dep.model
    nbytes = kv_cache_bytes(m, dep.workload.input_tokens, load_serving_constants().precision.kv(dep.kv_precision))
    senders = (1 if m.mla else min(prefill.tp, m.kv_heads)) * prefill.pp
    gpus = sum(p.nodes for p in dep.pools) * r.gpus_per_node
    pool_gpus = min(p.nodes for p in dep.pools) * r.gpus_per_node  # the smaller pool's NICs bound the path
    bisection = math.inf  # [GB/s, one direction] the fabric's, when the cache crosses it
    if dep.network == "frontend":
        per_gpu = frontend_gbits_per_node(plan) / 8 / r.gpus_per_node * k.efficiency
        hops, level = 3, "frontend"
    else:
        p = place(plan, min(gpus, r.gpus))
        lk = links(plan)
        if p.domains <= 1:  # both pools in one NVLink domain: the cache moves over NVLink
            per_gpu = lk.nvlink * k.efficiency
        else:
            per_gpu = lk.nic_per_gpu_line * k.efficiency * contention(plan, p, "uniform")
            bisection = plan.bandwidth.bisection_tbits_one_direction * 1000 / 8 * k.efficiency
        hops, level = p.hops, p.level
    time = (k.base_latency_us + hops * links(plan).hop_latency_us) * 1e-6 + nbytes / (senders * per_gpu * 1e9)
    nics = pool_gpus * per_gpu
    return KvTransfer(nbytes, time, rate * nbytes / 1e9, level, min(nics, bisection), k.efficiency,
                      "bisection" if bisection < nics else "nics")


# --------------------------------------------------------------------------------------
# The estimate
# --------------------------------------------------------------------------------------
@dataclass
class ServingEstimate:
    """A deployment at its load on a plan. Times [s]; ``ttft_s`` is ``inf`` when the load exceeds a pool."""

    deployment: Deployment
    prefill: PoolResult
    decode: PoolResult
    kv: KvTransfer | None
    rate: float
    """Requests/s served."""
    ttft_parts: dict[str, float]
    tpot_s: float
    gpus: int
    cluster_gpus: int
    usd_per_s: float
    """The deployment's share of the cluster's TCO per second [USD/s]."""
    watts: float
    """The deployment's share of facility power [W]."""
    warnings: list[str] = field(default_factory=list)
    fabric_load: dict[str, dict[str, float]] = field(default_factory=dict)
    """Each pool's traffic on the scale-out fabric and the share of each tier it takes (``fabric_load``)."""
    overloaded: bool = False
    """The load asked is more than the deployment serves: the pools run saturated at ``rate`` (``capacity``),
    the rest of the requests queue without bound (``ttft_s`` is ``inf``)."""

    @property
    def ttft_s(self) -> float:
        return sum(self.ttft_parts.values())

    @property
    def output_tokens_per_s(self) -> float:
        return self.rate * self.deployment.workload.output_tokens

    @property
    def input_tokens_per_s(self) -> float:
        return self.rate * self.deployment.workload.input_tokens

    @property
    def output_tokens_per_s_per_gpu(self) -> float:
        """Output tokens per second of the decode pool (aggregated: the one pool) over its GPUs."""
        return self.decode.tokens_per_s_per_gpu

    @property
    def input_tokens_per_s_per_gpu(self) -> float:
        """Prompt tokens per second (cache hits included) over the GPUs that prefill (aggregated: the one pool)."""
        gpus = self.prefill.gpus if self.deployment.mode == "disaggregated" else self.decode.gpus
        return self.input_tokens_per_s / gpus

    @property
    def usd_per_million_output_tokens(self) -> float:
        return self.usd_per_s / self.output_tokens_per_s * 1e6 if self.output_tokens_per_s else math.inf

    @property
    def joules_per_output_token(self) -> float:
        return self.watts / self.output_tokens_per_s if self.output_tokens_per_s else math.inf

    @property
    def meets_slo(self) -> bool:
        w = self.deployment.workload
        ttft_ok = math.isfinite(self.ttft_s) and (w.ttft_ms is None or self.ttft_s * 1e3 <= w.ttft_ms)
        tpot_ok = w.tpot_ms is None or self.tpot_s * 1e3 <= w.tpot_ms
        return ttft_ok and tpot_ok

    def summary(self) -> dict:
        """Plain JSON-ready numbers (``None`` for an unbounded time)."""
        d, w = self.deployment, self.deployment.workload
        finite = lambda x: x if math.isfinite(x) else None  # noqa: E731
        prefill = {**self.prefill.summary(), "input_tokens_per_s_per_gpu": self.input_tokens_per_s_per_gpu}
        decode = {**self.decode.summary(), "output_tokens_per_s_per_gpu": self.output_tokens_per_s_per_gpu}
        return {
            "model": d.model.name, "mode": d.mode, "precision": d.precision, "kv_precision": d.kv_precision,
            "network": d.network, "gpus": self.gpus, "cluster_gpus": self.cluster_gpus,
            "workload": w.model_dump(), "rate_per_s": self.rate,
            "ttft_s": finite(self.ttft_s), "tpot_s": finite(self.tpot_s), "overloaded": self.overloaded,
            "ttft_breakdown_s": {k: finite(v) for k, v in self.ttft_parts.items()},
            "output_tokens_per_s": self.output_tokens_per_s, "input_tokens_per_s": self.input_tokens_per_s,
            "prefill": prefill if d.mode == "disaggregated" else None, "decode": decode,
            "kv_transfer": self.kv.summary() if self.kv else None,
            "usd_per_million_output_tokens": finite(self.usd_per_million_output_tokens),
            "joules_per_output_token": finite(self.joules_per_output_token),
            "meets_slo": self.meets_slo, "warnings": list(self.warnings), "fabric_load": self.fabric_load,
        }


def _load(plan: Plan, dep: Deployment, capacity: float, prefill_capacity: float) -> tuple[float, float | None]:
    """(requests/s, decode batch per rank or None to solve from the rate) for the workload's load: its rate; a
    concurrency's sequences spread over the decode ranks (the rate then follows from Little's law); or, with
    neither, ``default_utilisation`` of the rate where a pool saturates (``capacity``)."""
    w = dep.workload
    if w.rate is not None:
        return w.rate, None
    if w.concurrency is None:
        busy = load_serving_constants().memory.default_utilisation
        return busy * _saturation(plan, dep, prefill_capacity, capacity), None
    _gpus, _replicas, ranks = _ranks(plan, dep.decode)
    cap = max_batch(plan, dep, dep.decode, decode_context(dep))
    batch = min(cap, w.concurrency / (ranks * dep.decode.pp))
    return _closed_loop_rate(plan, dep, batch, prefill_capacity), batch


def _saturation(plan: Plan, dep: Deployment, prefill_tps: float, decode_tps: float) -> float:
    """The request rate at which the first pool saturates [requests/s], from the prefill pool's new input tokens/s
    at full utilisation and the decode pool's output tokens/s with its KV cache full (``capacity``)."""
    w = dep.workload
    if dep.mode == "disaggregated":
        return min(prefill_tps / w.new_tokens, decode_tps / w.output_tokens)
    full = decode_step(plan, dep, max_batch(plan, dep, dep.decode, decode_context(dep)))
    per_step = decode_tps * full.time_s  # output tokens of one full-cache step

    def short(rate: float) -> bool:  # the decode pool falls short of the rate's output tokens
        return per_step / shared_step_s(full, rate * w.new_tokens / prefill_tps) < rate * w.output_tokens

    lo, hi = 0.0, prefill_tps / w.new_tokens
    if not short(hi * (1 - 1e-9)):
        return hi
    for _i in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if short(mid) else (mid, hi)
    return lo


def capacity(plan: Plan, dep: Deployment) -> float:
    """Request rate at which the first pool saturates [requests/s].

    Disaggregated: the smaller of the prefill pool's rate at full utilisation (new input tokens/s over new
    tokens per request) and the decode pool's with its KV cache full (output tokens/s over output tokens).
    Aggregated: the rate at which the full-cache decode rate, its step stretched by chunked prefill's share of the
    GPUs (``shared_step_s`` at utilisation ``rate x new tokens / prefill capacity``), equals the rate's output
    tokens (bisection: the one grows with the rate, the other falls), or the prefill capacity if lower.

    Raises
    ------
    DesignError
        As ``estimate``: the deployment does not fit the plan.
    """
    _check_fit(plan, dep)
    cap = max_batch(plan, dep, dep.decode, decode_context(dep))
    split = dep.decode if dep.mode == "aggregated" else dep.prefill
    prefill_tps = prefill_pool(plan, dep, split, 0.0, "prefill").capacity_tokens_per_s
    return _saturation(plan, dep, prefill_tps, decode_rate(plan, dep, dep.decode, max(cap, 1), 0.0))


def _closed_loop_rate(plan: Plan, dep: Deployment, batch: float, prefill_capacity: float) -> float:
    """Requests/s of a closed loop of ``concurrency`` clients (Little's law: rate = concurrency / time per request,
    the time growing with the rate through prefill queueing and, aggregated, the GPU time prefill takes from
    decode); bisection on the rate, which the loop's time makes monotone."""
    w = dep.workload
    split = dep.decode if dep.mode == "aggregated" else dep.prefill
    step = _step(plan, dep, dep.decode, max(batch, 1e-9), decode_context(dep), "decode")
    in_flight = batch * _ranks(plan, dep.decode)[2] * dep.decode.pp
    kv = _kv_transfer(plan, dep, dep.prefill, 0.0).time_s if dep.mode == "disaggregated" else 0.0

    def excess(rate: float) -> float:
        pool = prefill_pool(plan, dep, split, rate, "prefill")
        wait, own = prefill_latency(plan, dep, pool)
        share = pool.utilisation if dep.mode == "aggregated" else 0.0
        return rate * (wait + own + kv + w.output_tokens * shared_step_s(step, share)) - in_flight

    lo, hi = 0.0, prefill_capacity / w.new_tokens * (1 - 1e-9)
    for _i in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(mid) < 0 else (lo, mid)
    return lo


@dataclass
class _Loaded:
    """A deployment at its load before its decode batch is solved (``estimate``'s first stage): what decides whether
    the load overloads it."""

    dep: Deployment
    """The deployment, its ``auto`` precision resolved."""
    cap: int
    """Most decode sequences per rank (``max_batch``)."""
    prefill_tps: float
    """The prefill pool's new input tokens/s at full utilisation [tokens/s]."""
    capacity: float
    """The decode pool's output tokens/s with its KV cache full and no prefill sharing its GPUs [tokens/s]."""
    rate: float
    """The load [requests/s] (``_load``)."""
    batch: float | None
    """The decode batch per rank a concurrency gives, None to solve it from the rate."""
    first: tuple[PoolResult, float, float]
    """The pools at ``rate`` before the decode batch is solved (``_prefill_at``)."""

    @property
    def overloaded(self) -> bool:
        """The load is more than the deployment serves: the decode pool's utilisation above one (the decode pool's
        ``PoolResult.utilisation``, ``_utilisation``) or the prefill pool's at one or above."""
        prefill, _share, full = self.first
        wanted = self.rate * self.dep.workload.output_tokens
        return _utilisation(wanted, full) > 1 + 1e-6 or prefill.utilisation >= 1


def _at_load(plan: Plan, dep: Deployment) -> _Loaded:
    """``estimate``'s first stage: the deployment checked against the plan, its load and its pools at that load
    before the decode batch is solved. Raises as ``estimate``."""
    if dep.precision == AUTO_PRECISION:
        dep = dep.model_copy(update={"precision": default_precision(plan.resolved.system)})
    _check_fit(plan, dep)
    dc = dep.decode
    cap = max_batch(plan, dep, dc, decode_context(dep))
    if cap < 1:
        raise DesignError(
            _("decode pool: not one sequence of {tokens} tokens fits in the KV cache beside the weights.").format(
                tokens=f"{decode_context(dep):,.0f}"),
            _("Shorten the input or output, spread the model over more GPUs or use an FP8 KV cache."))
    probe = prefill_pool(plan, dep, dc if dep.mode == "aggregated" else dep.prefill, 0.0, "prefill")
    capacity = decode_rate(plan, dep, dc, cap, 0.0)
    rate, batch = _load(plan, dep, capacity, probe.capacity_tokens_per_s)
    return _Loaded(dep, cap, probe.capacity_tokens_per_s, capacity, rate, batch, _prefill_at(plan, dep, rate, cap))


def estimate(plan: Plan, dep: Deployment) -> ServingEstimate:
    """Estimate ``dep`` served on ``plan``: TTFT, TPOT, throughput per pool, KV-cache transfer, cost and energy.

    Raises
    ------
    DesignError
        A split does not divide its pool, the model or the NVLink domain; the pools need more nodes than
        the plan has; the weights do not fit; the GPU has no tensor cores for the precision.
    """
    return _estimated(plan, _at_load(plan, dep))


def served_estimate(plan: Plan, dep: Deployment) -> ServingEstimate | None:
    """``estimate(plan, dep)``, or None where the load overloads the deployment, decided before its pools are solved
    (``_Loaded.overloaded``: the requests beyond what they serve queue without bound, so the time to first token is
    unbounded and never meets a target): a search's estimate of a node count. Raises as ``estimate``."""
    loaded = _at_load(plan, dep)
    return None if loaded.overloaded else _estimated(plan, loaded)


def meets_targets(plan: Plan, dep: Deployment) -> bool:
    """Whether ``dep`` served on ``plan`` meets its workload's TTFT and TPOT targets: ``estimate(plan, dep).meets_slo``,
    False without solving the pools where the load overloads them (``served_estimate``): a search's test of a rate.
    Raises as ``estimate``."""
    served = served_estimate(plan, dep)
    return served is not None and served.meets_slo


def _estimated(plan: Plan, loaded: _Loaded) -> ServingEstimate:
    """``estimate``'s second stage: the pools solved at the load (overloaded: at the rate where they saturate, the
    rest of the load queueing without bound), the KV-cache transfer, the latencies, cost and energy."""
    dep, cap, rate = loaded.dep, loaded.cap, loaded.rate
    w, dc = dep.workload, dep.decode
    prefill, decode = _pools(plan, dep, rate, loaded.batch, cap, loaded.first)
    warnings: list[str] = []
    if decode.utilisation > 1 or prefill.utilisation >= 1:
        warnings.append(_("The load is more than the deployment can serve: requests queue without bound."))
    overloaded = loaded.overloaded
    if overloaded:  # the pools serve what they can, saturated; the rest of the load queues
        rate = min(rate, _saturation(plan, dep, loaded.prefill_tps, loaded.capacity))
        prefill, decode = _pools(plan, dep, rate, None, cap)
    kv = _kv_transfer(plan, dep, dep.prefill, rate) if dep.mode == "disaggregated" else None
    wait, own = prefill_latency(plan, dep, prefill)
    if overloaded:
        wait = math.inf
    held = decode.ranks * dc.pp * cap
    if w.concurrency is not None and w.concurrency > held and rate > 0:  # clients beyond the KV cache wait
        wait += (w.concurrency - held) / rate
        warnings.append(_("{waiting} of the {clients} clients wait for room in the KV cache ({held} sequences fit)."
                          ).format(waiting=f"{w.concurrency - held:,}", clients=f"{w.concurrency:,}",
                                   held=f"{held:,}"))
    parts = {"queue": wait, "prefill": own, "kv_transfer": kv.time_s if kv else 0.0, "first_decode": decode.step.time_s}
    est = _finish(plan, dep, prefill, decode, kv, rate, parts, warnings)
    est.overloaded = overloaded
    return est


def _prefill_at(plan: Plan, dep: Deployment, rate: float, cap: int) -> tuple[PoolResult, float, float]:
    """The prefill pool at ``rate`` requests/s (aggregated: the one pool's prefill), the share of the GPUs' time it
    takes from decode (aggregated; 0 disaggregated) and the decode pool's output tokens/s with its KV cache full
    (``cap`` sequences per rank) at that share [tokens/s]."""
    dc = dep.decode
    prefill = prefill_pool(plan, dep, dc if dep.mode == "aggregated" else dep.prefill, rate, "prefill")
    prefill_share = prefill.utilisation if dep.mode == "aggregated" else 0.0
    return prefill, prefill_share, decode_rate(plan, dep, dc, cap, prefill_share)


def _pools(plan: Plan, dep: Deployment, rate: float, batch: float | None, cap: int,
           first: tuple[PoolResult, float, float] | None = None) -> tuple[PoolResult, PoolResult]:
    """The prefill and decode pools (aggregated: the one pool's prefill and decode) at ``rate`` requests/s, the
    decode batch per rank ``batch`` or, None, the smallest that serves the rate (``_solve_batch``); ``first``:
    ``_prefill_at`` of the same rate, when known."""
    dc = dep.decode
    prefill, prefill_share, full = first or _prefill_at(plan, dep, rate, cap)
    if batch is None:
        batch = _solve_batch(plan, dep, dc, rate * dep.workload.output_tokens, cap, prefill_share, full)
    return prefill, _decode_pool(plan, dep, dc, batch, cap, prefill_share, rate, full)


def _utilisation(wanted: float, capacity: float) -> float:
    """A decode pool's utilisation: the output tokens/s wanted over what its full KV cache delivers (``inf`` when
    it delivers none)."""
    return wanted / capacity if capacity else math.inf


def _decode_pool(plan: Plan, dep: Deployment, split: PoolSplit, batch: float, cap: int, prefill_share: float,
                 rate: float, capacity: float) -> PoolResult:
    """The decode pool at ``batch`` sequences per rank; utilisation = the wanted output rate over what the full KV
    cache delivers (``capacity``: ``decode_rate`` at ``cap`` and ``prefill_share`` [tokens/s])."""
    gpus, replicas, ranks = _ranks(plan, split)
    step = _step(plan, dep, split, max(batch, 1e-9), decode_context(dep), "decode")
    step.overhead_s += shared_step_s(step, prefill_share) - step.time_s
    served = ranks * split.pp * batch / step.time_s
    wanted = rate * dep.workload.output_tokens
    pool = PoolResult("decode", split, gpus, replicas, ranks, step, batch, cap, min(served, wanted) if wanted else
                      served, capacity, _utilisation(wanted, capacity))
    return pool


def cluster_tco_and_power(plan: Plan, network: str = "fabric") -> tuple[float, float]:
    """The cluster's TCO [USD over ``Design.tco_years``] and facility power [kW] that serving shares out: the
    plan's (``CostSummary.tco_usd``, ``facility_kw``; a design with pods: the whole design's, ``Plan.cost_basis``),
    or with ``network = "frontend"`` (the what-if without the compute fabric) less the compute fabric's capex
    (``compute_fabric_capex_usd``: switches, optics, cables and the nodes' compute NICs) and its power at the
    design's PUE and its energy price."""
    cost = cost_basis(plan)[0]
    if network != "frontend":
        return cost.tco_usd, cost.facility_kw
    fabric_kw = cost.network_kw * cost.pue  # facility power of the compute fabric
    energy = cost.tco_years * cost.energy_usd_per_year * (fabric_kw / cost.facility_kw if cost.facility_kw else 0.0)
    return cost.tco_usd - cost.compute_fabric_capex_usd - energy, cost.facility_kw - fabric_kw


def _finish(plan: Plan, dep: Deployment, prefill: PoolResult, decode: PoolResult, kv: KvTransfer | None,
            rate: float, parts: dict[str, float], warnings: list[str]) -> ServingEstimate:
    """Cost, energy and the estimate: the deployment's GPUs' share of the cluster's TCO per second
    (``core.plan.tco_share_usd_per_s``) and of its facility power (a design with pods: the whole design's)."""
    r = plan.resolved
    cost, of_gpus = cost_basis(plan)
    gpus = sum(p.nodes for p in dep.pools) * r.gpus_per_node
    share = gpus / of_gpus
    tco_usd, facility_kw = cluster_tco_and_power(plan, dep.network)
    usd_per_s = tco_share_usd_per_s(tco_usd, cost.tco_years, gpus, of_gpus)
    served = min(rate, decode.tokens_per_s / dep.workload.output_tokens)
    est = ServingEstimate(dep, prefill, decode, kv, served, parts, decode.step.time_s, gpus, r.gpus, usd_per_s,
                          facility_kw * 1e3 * share, warnings)
    est.fabric_load = fabric_load(plan, est)
    return est


def _crossing(plan: Plan, gpus: int) -> tuple[float, float]:
    """Shares of spread (all-to-all) traffic among ``gpus`` consecutive GPUs that leave a leaf group and a pod."""
    from core.perf.placement import uniform_fractions

    return uniform_fractions(place(plan, max(2, min(gpus, plan.resolved.gpus)))) if gpus > 1 else (0.0, 0.0)


def fabric_load(plan: Plan, est: ServingEstimate) -> dict[str, dict[str, float]]:
    """Each pool's traffic on the scale-out fabric and the share of each tier's capacity it takes, per GPU.

    Traffic per GPU [GB/s, one direction]: the step's bytes for ranks outside the NVLink domain (expert dispatch
    and combine, tensor-parallel and pipeline traffic that leaves it) at the pool's pace (decode steps back to
    back; prefill at its utilisation), plus the KV-cache transfer spread over the pool's GPUs. Load: of the NIC's
    line rate (``nic``), of a GPU's share of the leaf uplinks (line rate / leaf oversubscription) for the part
    that leaves the leaf group (``leaf_uplinks``), and likewise at the spines (``spine_uplinks``); spread traffic
    leaves a group or pod in proportion to the peers outside it (``placement`` as for the collectives). None for
    a tier the fabric does not have (a one-tier Clos or a torus, whose nodes are joined node to node: no leaf
    uplinks; no spine uplinks where traffic between pods crosses no tier of its own, ``placement.has_pods``, the
    rule the collectives read: a two-tier Clos has none, a Dragonfly's are its global links between groups, at the
    spine oversubscription the collectives apply there).
    """
    lk, bw = links(plan), plan.bandwidth
    d = est.deployment
    kv_level = est.kv.level if est.kv else "nvlink"
    kv_fabric = est.kv.gbytes_per_s if est.kv and kv_level not in ("nvlink", "frontend") else 0.0
    kv_f1, kv_f2 = _crossing(plan, est.gpus)
    out = {}
    pools = [("prefill", est.prefill, est.prefill.utilisation), ("decode", est.decode, 1.0)]
    for name, pool, busy in pools[1:] if d.mode == "aggregated" else pools:
        step = pool.step
        comm = sum(c.fabric_bytes for c in step.comm) * step.stages / step.time_s * min(1.0, busy) / 1e9
        f1, f2 = _crossing(plan, pool.split.tp * pool.split.dp)
        kv = kv_fabric / pool.gpus
        traffic = comm + kv
        out[name] = {"gbytes_per_s_per_gpu": traffic, "nic": traffic / lk.nic_per_gpu_line,
                     "leaf_uplinks": (comm * f1 + kv * kv_f1) * max(1.0, bw.leaf_oversubscription)
                     / lk.nic_per_gpu_line if plan.fabric.tiers >= 2 else None,
                     "spine_uplinks": (comm * f2 + kv * kv_f2) * max(1.0, bw.spine_oversubscription)
                     / lk.nic_per_gpu_line if has_pods(plan.fabric) else None}
    return out


def decode_step(plan: Plan, dep: Deployment, batch: float) -> StepTime:
    """One decode step of the deployment's decode pool at ``batch`` sequences per rank, at the workload's average
    decode context (no prefill sharing the GPUs)."""
    return _step(plan, dep, dep.decode, batch, decode_context(dep), "decode")


def prefill_batch(plan: Plan, dep: Deployment) -> StepTime:
    """One prefill batch (``prefill_tokens`` new tokens per rank) of the deployment's prefill pool."""
    split = dep.decode if dep.mode == "aggregated" else dep.prefill
    return _step(plan, dep, split, prefill_tokens(plan, dep, split), prefill_context(dep), "prefill")
