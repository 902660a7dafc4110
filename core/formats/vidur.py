"""Vidur command line of a serving deployment, ``--export vidur``.

Format followed: Vidur (microsoft/vidur, commit 7d47513) takes command-line flags only: ``python -m
vidur.main --FLAG VALUE ...``, the fields of ``vidur/config/config.py`` ``SimulationConfig`` flattened by
``vidur/config/flat_dataclass.py`` (a nested dataclass's fields get the snake-case class name as prefix,
``replica_config_device``; a polymorphic field gets a ``<field>_type`` flag, ``replica_scheduler_config_type
sarathi``). The export is a shell script running that command, its comment saying what is approximate.

What Vidur expresses, from the deployment and the planner's estimate (``core.perf.serving``):

* the model, by shape: Vidur's model of the same layers, heads, KV heads, hidden, MLP width and vocabulary
  (``vidur/config/model_config.py``: Llama 2 and 3, CodeLlama 34B, InternLM(2) 20B, Phi-2, Qwen 72B);
* the GPU (``replica_config_device``: a100 or h100; A800 and H800 on their A100 and H100 profiles) and the node
  (``replica_config_network_device``: ``*_dgx`` for 8 GPUs with NVSwitch, ``*_pairwise_nvlink`` for 4);
* ``tp`` and ``pp`` per replica; the pool's attention data-parallel ranks as replicas (a dense model's ranks
  are independent ``tp x pp`` replicas); the Sarathi scheduler (chunked prefill, as the aggregated mode
  models it) with the estimate's prefill chunk, KV-cache capacity (blocks) and largest batch;
* the workload: fixed input and output lengths, Poisson arrivals at the request rate (the estimate's rate
  when the workload gives a concurrency or no load: Vidur has no closed loop).

What Vidur cannot express, refused with ``InputError`` (the message names the way out): prefill/decode
disaggregation, mixture-of-experts models (no expert parallelism), models without a Vidur model of the same
shape, GPUs without Vidur profiles, nodes of other than 4 or 8 GPUs, splits Vidur's predictor rejects (tensor
parallel beyond a node, ``tp x pp`` neither below nor a multiple of a node, layers not divisible by ``pp``).
Written as comments, not approximated silently: FP8/FP4 weights and KV cache (Vidur's execution times are its
FP16 profiles), prefix-cache hits (Vidur prefills every input token), the fabric (Vidur models only the
all-reduce and send/recv of its profiled node: no switch tiers, rails or oversubscription), a missing Vidur
profile of the model on the GPU.
"""

from __future__ import annotations

import math
import shlex

from core.errors import InputError
from core.formats.filenames import design_slug
from core.formats.serving_exports import ServingExport, hf_model_id
from core.i18n import N_, _
from core.perf.serving import ServingEstimate, decode_context
from core.perf.serving_constants import load_serving_constants
from core.perf.training import ModelSpec
from core.plan import Plan
from core.units import percent

SOURCE = "microsoft/vidur vidur/config/config.py, flat_dataclass.py (commit 7d47513)"
"""Where the flags come from."""

VIDUR_MODELS: dict[str, tuple[int, int, int, int, int, int]] = {
    "codellama/CodeLlama-34b-Instruct-hf": (48, 64, 8, 8192, 22016, 32768),
    "meta-llama/Llama-2-7b-hf": (32, 32, 32, 4096, 11008, 32768),
    "meta-llama/Llama-2-70b-hf": (80, 64, 8, 8192, 28672, 32768),
    "meta-llama/Meta-Llama-3-8B": (32, 32, 8, 4096, 14336, 128256),
    "meta-llama/Meta-Llama-3-70B": (80, 64, 8, 8192, 28672, 128256),
    "microsoft/phi-2": (32, 32, 32, 2560, 10240, 51200),
    "internlm/internlm-20b": (60, 40, 40, 5120, 13824, 103168),
    "internlm/internlm2-20b": (48, 48, 8, 6144, 16384, 92544),
    "Qwen/Qwen-72B": (80, 64, 64, 8192, 24576, 152064),
}
"""Vidur's models (``get_name()``) and their shapes: (num_layers, num_q_heads, num_kv_heads, embedding_dim,
mlp_hidden_dim, vocab_size) of ``vidur/config/model_config.py`` at commit 7d47513."""

VIDUR_DEVICES: dict[str, str] = {"A100": "a100", "A800": "a100", "H100": "h100", "H800": "h100"}
"""Planner system id -> Vidur device (``vidur/types/device_sku_type.py``: a40, a100, h100). A800 and H800 have
the A100's and H100's SMs (their NVLink differs; Vidur takes the node's from its network profile)."""

VIDUR_NODES: dict[tuple[str, int], str] = {("a100", 8): "a100_dgx", ("h100", 8): "h100_dgx",
                                           ("a100", 4): "a100_pairwise_nvlink", ("h100", 4): "h100_pairwise_nvlink"}
"""(Vidur device, GPUs per node) -> Vidur network device (``vidur/config/node_sku_config.py``: num_devices_per_node
8 for the DGX nodes, 4 for the pairwise-NVLink ones)."""

VIDUR_PROFILED: dict[str, frozenset[str]] = {
    "a100": frozenset({"Qwen/Qwen-72B", "codellama/CodeLlama-34b-Instruct-hf", "internlm/internlm-20b",
                       "meta-llama/Llama-2-70b-hf", "meta-llama/Llama-2-7b-hf", "meta-llama/Meta-Llama-3-70B",
                       "meta-llama/Meta-Llama-3-8B", "microsoft/phi-2"}),
    "h100": frozenset({"Qwen/Qwen-72B", "codellama/CodeLlama-34b-Instruct-hf", "internlm/internlm-20b",
                       "meta-llama/Llama-2-70b-hf", "meta-llama/Llama-2-7b-hf", "microsoft/phi-2"}),
}
"""Models with compute profiles shipped in Vidur's ``data/profiling/compute/<device>/`` at commit 7d47513."""

BLOCK_TOKENS = 16
"""Tokens per KV-cache block (``BaseReplicaSchedulerConfig.block_size`` default)."""
PREDICTION_DEFAULTS = {"tokens_per_request": 4096, "batch_size": 128, "prefill_chunk_size": 4096}
"""Vidur's ``prediction_max_*`` defaults (``BaseExecutionTimePredictorConfig``); raised to cover the deployment."""
KV_GRANULARITY = 64
"""``kv_cache_prediction_granularity`` default [tokens]: the predictor's KV-length grid step."""


def vidur_model(model: ModelSpec) -> str | None:
    """The Vidur model with ``model``'s shape (``VIDUR_MODELS``), or ``None``."""
    shape = (model.layers, model.heads, model.kv_heads, model.hidden, model.ffn, model.vocab)
    return next((name for name, dims in VIDUR_MODELS.items() if dims == shape and not model.is_moe), None)


def _refuse_deployment(est: ServingEstimate) -> None:
    """``InputError`` for a deployment Vidur has no way to express: disaggregated, MoE, a model it lacks."""
    dep = est.deployment
    if dep.mode == "disaggregated":
        raise InputError(_("Vidur cannot express a disaggregated deployment: it has no prefill/decode pools, every "
                           "replica serves both phases. Export an aggregated deployment to Vidur, or use the "
                           "inference-sim export, which takes both pools."))
    if dep.model.is_moe:
        raise InputError(_("Vidur simulates dense models only; {model} is a mixture of experts (Vidur has no expert "
                           "parallelism). Use the inference-sim export.").format(model=dep.model.name))
    if vidur_model(dep.model) is None:
        raise InputError(_("Vidur has no model of {model}'s shape; its models: {models}. Use one of them or the "
                           "inference-sim export.").format(model=dep.model.name, models=", ".join(VIDUR_MODELS)))


def _refuse_hardware(plan: Plan, est: ServingEstimate) -> tuple[str, str]:
    """(device, network device) in Vidur's names; ``InputError`` when Vidur has none or its
    predictor rejects the split."""
    r, split = plan.resolved, est.deployment.decode
    device = VIDUR_DEVICES.get(r.system.id)
    if device is None:
        raise InputError(_("Vidur has GPU profiles for A40, A100 and H100 only (A800 and H800 on them), not {gpu}. "
                           "Use the inference-sim export.").format(gpu=r.system.id))
    node = VIDUR_NODES.get((device, r.gpus_per_node))
    if node is None:
        raise InputError(_("Vidur's {device} nodes hold 4 or 8 GPUs; this system has {gpus}. Use the inference-sim "
                           "export.").format(device=device, gpus=r.gpus_per_node))
    workers, per_node, layers = split.tp * split.pp, r.gpus_per_node, est.deployment.model.layers
    if split.tp > per_node or not (workers < per_node or workers % per_node == 0) or layers % split.pp:
        raise InputError(_("Vidur cannot run tp {tp} x pp {pp}: its tensor parallelism stays inside a node of {node} "
                           "GPUs, tp x pp must be below or a multiple of that, and pp must divide the {layers} "
                           "layers. Change the split.").format(tp=split.tp, pp=split.pp, node=per_node, layers=layers))
    return device, node


def _rounded_up(value: float, step: int) -> int:
    """``value`` rounded up to a multiple of ``step``."""
    return int(math.ceil(value / step) * step)


def flags(plan: Plan, est: ServingEstimate) -> list[tuple[str, object]]:
    """Vidur's flags for ``est.deployment`` on ``plan``, in order: (flag name without ``--``, value).

    Values are ``int``, ``float`` or ``str`` as the flattened ``SimulationConfig`` field declares: the
    request rate [requests/s], lengths [tokens], the KV cache in blocks of ``BLOCK_TOKENS`` tokens.

    Raises
    ------
    InputError
        Vidur cannot express the deployment (see the module docstring).
    """
    _refuse_deployment(est)
    device, node = _refuse_hardware(plan, est)
    dep, pool = est.deployment, est.decode
    w, split = dep.workload, dep.decode
    tokens = w.input_tokens + w.output_tokens
    chunk = int(est.prefill.batch)
    blocks = math.ceil(pool.max_batch * split.pp * decode_context(dep) / BLOCK_TOKENS)
    predictor = "random_forrest_execution_time_predictor_config_prediction_max"
    return [
        ("replica_config_model_name", vidur_model(dep.model)), ("replica_config_device", device),
        ("replica_config_network_device", node), ("replica_config_tensor_parallel_size", split.tp),
        ("replica_config_num_pipeline_stages", split.pp),
        ("replica_config_memory_margin_fraction", float(load_serving_constants().memory.reserve_fraction)),
        ("cluster_config_num_replicas", pool.ranks), ("replica_scheduler_config_type", "sarathi"),
        ("sarathi_scheduler_config_chunk_size", chunk), ("sarathi_scheduler_config_batch_size_cap", pool.max_batch),
        ("sarathi_scheduler_config_num_blocks", blocks), ("request_generator_config_type", "synthetic"),
        ("length_generator_config_type", "fixed"),
        ("fixed_request_length_generator_config_prefill_tokens", w.input_tokens),
        ("fixed_request_length_generator_config_decode_tokens", w.output_tokens),
        ("fixed_request_length_generator_config_max_tokens", tokens),
        ("interval_generator_config_type", "poisson"),
        ("poisson_request_interval_generator_config_qps", float(w.rate if w.rate is not None else est.rate)),
        (f"{predictor}_tokens_per_request",
         max(PREDICTION_DEFAULTS["tokens_per_request"], _rounded_up(tokens, KV_GRANULARITY))),
        (f"{predictor}_batch_size", max(PREDICTION_DEFAULTS["batch_size"], pool.max_batch)),
        (f"{predictor}_prefill_chunk_size", max(PREDICTION_DEFAULTS["prefill_chunk_size"], chunk)),
    ]


def notes(plan: Plan, est: ServingEstimate) -> list[str]:
    """What the command leaves out or approximates, one English sentence each (comment lines of the script)."""
    dep, r = est.deployment, plan.resolved
    device = VIDUR_DEVICES[r.system.id]
    out = ["the fabric: Vidur models only the all-reduce and send/recv of its profiled node (no switch tiers, "
           "rails or oversubscription), so the estimate's fabric time is not in Vidur's."]
    if dep.precision != "bf16" or dep.kv_precision != "bf16":
        out.append(f"precision: Vidur's execution times are its FP16 profiles; the estimate is at "
                   f"{dep.precision.upper()} weights and a {dep.kv_precision.upper()} KV cache "
                   "(the KV-cache capacity is the estimate's, as num_blocks).")
    if dep.workload.cache_hit > 0:
        out.append(f"prefix cache: Vidur prefills every input token; the estimate finds "
                   f"{percent(dep.workload.cache_hit)} of them cached.")
    if dep.workload.rate is None:
        out.append(f"load: Vidur has open-loop arrivals only; the qps is the estimate's served rate "
                   f"({est.rate:.4g} requests/s).")
    if r.system.id not in ("A100", "H100") or r.system.hbm_gbytes != 80:
        out.append(f"GPU: {r.system.id} ({r.system.hbm_gbytes:g} GB) runs on Vidur's {device} profile (80 GB); "
                   "the KV-cache capacity is the estimate's.")
    name = vidur_model(dep.model)
    if hf_model_id(dep.model) != name:
        out.append(f"model: {dep.model.name} runs as Vidur's {name}, the model of the same shape.")
    if name not in VIDUR_PROFILED[device]:
        out.append(f"profile: Vidur ships no {device} compute profile of {name} at commit 7d47513; profile it "
                   "with vidur/profiling before running.")
    return out


def _ms(seconds: float) -> str:
    """A time [s] as ``"12.3 ms"``, or ``"unbounded"`` when the load exceeds the deployment."""
    return f"{seconds * 1e3:.4g} ms" if math.isfinite(seconds) else "unbounded"


def render(plan: Plan, est: ServingEstimate) -> str:
    """The shell script running Vidur on ``est.deployment``: header comment, notes, then the command.

    Raises
    ------
    InputError
        Vidur cannot express the deployment.
    """
    args = flags(plan, est)
    dep = est.deployment
    lines = ["#!/bin/sh",
             "# Vidur simulation of a serving deployment (run from a Vidur checkout), written by fabric planner",
             f"# format: {SOURCE}",
             f"# deployment: {dep.model.name}, {dep.mode}, {dep.precision.upper()} on {design_slug(plan)}; "
             f"estimate: TTFT {_ms(est.ttft_s)}, TPOT {_ms(est.tpot_s)} at {est.rate:.4g} requests/s",
             "# not expressed in Vidur:"]
    lines += [f"#   - {note}" for note in notes(plan, est)]
    lines.append("python -m vidur.main \\")
    lines += [f"  --{name} {shlex.quote(str(value))} \\" for name, value in args[:-1]]
    name, value = args[-1]
    lines.append(f"  --{name} {shlex.quote(str(value))}")
    return "\n".join(lines) + "\n"


SERVING_EXPORTS = (ServingExport("vidur", render, ".sh", "text/x-shellscript",
                                 N_("Vidur command line: dense models, aggregated deployments")),)
