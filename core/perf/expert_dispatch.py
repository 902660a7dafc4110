"""Expert parallelism's token dispatch and combine per MoE layer: the one model serving and training share.

A mixture-of-experts layer sends each token to the ranks holding its ``top_k`` experts (dispatch) and brings the
weighted expert outputs back (combine). Both the serving estimate (``core.perf.serving``: prefill and decode
steps) and the training estimate (``core.perf.training``: forward and backward of each micro-batch) time one
layer's exchange with ``ep_layer`` here, so a change to the all-to-all model moves both.

The kernels are DeepEP's (deepseek-ai/DeepEP; Megatron-Core's ``flex`` token dispatcher runs them in training):
*low-latency* kernels (decode: small batches, every expert copy sent on its own, CUDA graphs) and *normal*
kernels (prefill and training: a token goes once to each remote NVLink domain holding one of its experts and is
forwarded inside it over NVLink; the ranks first exchange how many tokens they send). Constants:
``assets/catalog/serving.toml [expert_parallel]``.

Units: time in seconds [s] unless a name says us; bytes [B]; bandwidths per direction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from core.perf.placement import contention, links, place, spans_level2
from core.perf.serving_constants import load_serving_constants
from core.plan import Plan

Kernel = Literal["low-latency", "normal"]


def remote_domains(top_k: int, domains: int) -> float:
    """Expected other NVLink domains a token's ``top_k`` experts fall in, experts spread evenly over ``domains``
    (each pick misses a given domain with probability 1 - 1/domains)."""
    return (domains - 1) * (1 - (1 - 1 / domains) ** top_k)


@dataclass(frozen=True)
class EpLayer:
    """One MoE layer's expert dispatch and combine on one GPU [s], split into the part inside the NVLink domain
    and the part on the fabric; ``remote``: share of the bytes leaving the domain."""

    dispatch_s: float
    combine_s: float
    nvlink_s: float
    fabric_s: float
    remote: float
    level: str
    bytes: float
    """Bytes one GPU sends in the layer, dispatch and combine [B]."""


def ep_layer(plan: Plan, ranks: int, tokens: float, top_k: int, hidden: int, kernel: Kernel, *, stride: int = 1,
             bytes_per_value: tuple[float, float] | None = None) -> EpLayer:
    """Dispatch and combine of one MoE layer among ``ranks`` expert-parallel GPUs ``stride`` apart, ``tokens`` per
    rank each sent to ``top_k`` experts of ``hidden`` values, with DeepEP's ``kernel`` (see the module).

    Each direction: ``base + hops x hop latency (if it leaves the domain) + max(local bytes / NVLink, remote bytes /
    (NIC line rate x share x rdma efficiency))`` (the NVLink and RDMA copies run at once). ``bytes_per_value``:
    (dispatch, combine) bytes per value; default the inference kernels' FP8 dispatch with its scales and BF16
    combine (``serving.toml [expert_parallel]``). The remote share is that of the destination ranks outside the
    sender's NVLink domain (low-latency: every expert copy goes on its own; normal: a token goes once per remote
    domain and is forwarded over NVLink). In a two-level NVLink domain whose ranks span racks
    (``core.perf.placement.spans_level2``) the local bytes also wait for their share to other racks over the second
    level (``_local_s``).
    """
    if kernel not in get_args(Kernel):
        raise ValueError(f"kernel must be one of {get_args(Kernel)}, not {kernel!r}")
    k = load_serving_constants().expert_parallel
    p = place(plan, ranks, stride)
    lk = links(plan)
    remote = 0.0 if p.domains <= 1 else 1.0 - p.ranks_per_domain / ranks
    if kernel == "normal" and p.domains > 1:
        remote = remote_domains(top_k, p.domains) / top_k
    values = tokens * top_k * hidden
    share = contention(plan, p, "uniform") if remote else 1.0
    nic = lk.nic_per_gpu_line * share * k.rdma_efficiency * 1e9
    local_s = _local_s(plan, p, lk.nvlink)
    bases = ((k.low_latency_dispatch_base_us, k.low_latency_combine_base_us) if kernel == "low-latency"
             else (k.normal_base_us, k.normal_base_us))
    per_values = bytes_per_value or (k.dispatch_bytes_per_value, k.combine_bytes_per_value)
    times, nvl, fab = [], 0.0, 0.0
    for base_us, per_value in zip(bases, per_values):
        nbytes = values * per_value
        fixed = (base_us + (p.hops * lk.hop_latency_us if remote else 0.0)) * 1e-6
        local, far = local_s(nbytes * (1 - remote)), nbytes * remote / nic
        if far >= local:  # NVLink and RDMA copies run at once: the slower sets the pace
            fab += fixed + far
        else:
            nvl += local + (0.0 if remote else fixed)
            fab += fixed if remote else 0.0
        times.append(fixed + max(local, far))
    return EpLayer(times[0], times[1], nvl, fab, remote, p.level, values * sum(per_values))


def _local_s(plan: Plan, p, nvlink: float):
    """The time [s] of a GPU's bytes to the ranks of its own NVLink domain, as a function of those bytes, over
    ``nvlink`` [GB/s, one direction, effective]; when the domain's ranks of placement ``p`` span racks of a
    two-level NVLink domain (``spans_level2``), the share bound for other racks (their ranks' share, experts spread
    evenly) crosses the second level at its bandwidth (``links`` with the placement) and the slower of the two sets
    the pace (every byte leaves over the GPU's own links)."""
    if not spans_level2(plan, p):
        return lambda nbytes: nbytes / (nvlink * 1e9)
    in_rack = max(1, min(p.ranks_per_domain, plan.resolved.nvlink_rack_gpus // max(1, p.stride)))
    other = 1 - in_rack / p.ranks_per_domain
    level2 = links(plan, placement=p).nvlink
    return lambda nbytes: max(nbytes / (nvlink * 1e9), nbytes * other / (level2 * 1e9))
