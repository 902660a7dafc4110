"""NCCL's collective algorithms, one function each, and the registry the sweep iterates.

Every algorithm has the same signature: ``fn(ctx: SweepContext) -> AlgorithmCurve | None``. It
returns its best-protocol time per message size, or None when it does not apply to this op or
placement (and, when the caller forced algorithms, may add a note to ``ctx.notes`` saying why).
The shared placement and link arithmetic (which links a rank crosses, their effective bandwidth,
contention against oversubscription) is computed once in ``SweepContext``; an algorithm only
states its steps, latency and transfer volume. Time of one algorithm and protocol::

    t(S) = latency + S / algbw + fill(S)

Adding an algorithm (e.g. PAT): write ``def pat(ctx) -> AlgorithmCurve | None`` below and add
``"pat": Algorithm(pat, ops=(...))`` to ``REGISTRY``; ``core.perf.collectives.sweep`` picks it up.

Units: sizes in bytes, time in microseconds [us], bandwidth in GB/s (1e9 bytes/s), one direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from core.i18n import _
from core.perf.constants import AlgorithmConstants, CollectiveConstants, ProtocolConstants
from core.perf.placement import Links, Placement


@dataclass
class AlgorithmCurve:
    """One algorithm's best-protocol time per size."""

    algorithm: str
    time_us: np.ndarray
    protocol: np.ndarray  # protocol name per size


@dataclass
class SweepContext:
    """What every algorithm needs for one op on one placement (computed once per sweep).

    Bandwidths are effective GB/s per GPU, one direction. ``egress`` is the fabric bandwidth
    of the emptiest NVLink domain (its ranks' NICs set the fabric pace); ``ring_share`` and
    ``uniform_share`` are the shares of it kept against oversubscription for neighbour
    ("ring") and spread ("uniform") traffic (``core.perf.placement.contention``).
    """

    op: str
    sizes: np.ndarray
    placement: Placement
    links: Links
    constants: CollectiveConstants
    protocols: list[ProtocolConstants]
    ring_share: float
    uniform_share: float
    forced: bool
    """The caller restricted the algorithms: say why a requested one does not apply."""
    notes: list[str] = field(default_factory=list)
    # derived once in __post_init__ (plain attributes: every protocol loop reads them)
    alg: AlgorithmConstants = field(init=False)
    n: int = field(init=False)
    d: int = field(init=False)
    """Ranks per NVLink domain."""
    m: int = field(init=False)
    """NVLink domains the communicator spans."""
    d_min: int = field(init=False)
    """Ranks (and so NICs) of the emptiest domain."""
    hop_us: float = field(init=False)
    nvl: float = field(init=False)
    """NVLink bandwidth per GPU (infinite for a lone rank per domain: no NVLink step)."""
    nic: float = field(init=False)
    egress: float = field(init=False)
    domain_sizes: list[int] = field(init=False)
    """Distinct ranks-per-domain counts (a partly filled last domain adds one)."""
    nvls_ok: bool = field(init=False)

    def __post_init__(self) -> None:
        p, lk = self.placement, self.links
        self.alg = self.constants.algorithms
        self.n, self.d, self.m = p.n, p.ranks_per_domain, p.domains
        self.d_min = p.min_ranks_per_domain
        self.hop_us = p.hops * lk.hop_latency_us
        self.nvl = lk.nvlink if self.d > 1 else math.inf
        self.nic = lk.nic_per_gpu
        self.egress = self.d_min * self.nic
        self.domain_sizes = sorted({self.d, p.last}) if self.m > 1 else [self.d]
        self.nvls_ok = lk.nvls_efficiency is not None and self.d > 1

    def nvls_allreduce_algbw(self) -> float:
        """NVLS all-reduce algbw of the slowest domain (0 when NVLS is unavailable)."""
        if not self.nvls_ok:
            return 0.0

        def one(k: int) -> float:  # a domain holding k ranks (a lone rank needs no NVLink step)
            return self.nvl * self.links.nvls_efficiency * k / (k + 1) if k > 1 else math.inf

        return min(one(k) for k in self.domain_sizes)


def best_protocol(candidates: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """(time, protocol name) of the fastest protocol at each size."""
    names = list(candidates)
    stack = np.vstack([candidates[p] for p in names])
    idx = np.argmin(stack, axis=0)
    return stack[idx, np.arange(stack.shape[1])], np.array(names, dtype=object)[idx]


def fill(fill_us: float, transfer_us: np.ndarray) -> np.ndarray:
    """Pipeline fill: at most one extra transfer time (short messages have no pipeline to fill)."""
    return np.minimum(fill_us, transfer_us)


def _simple_only(name: str, time_us: np.ndarray) -> AlgorithmCurve:
    return AlgorithmCurve(name, time_us, np.full(time_us.shape, "Simple", dtype=object))


# --------------------------------------------------------------------------------------
# The algorithms
# --------------------------------------------------------------------------------------
def ring(ctx: SweepContext) -> AlgorithmCurve | None:
    """NCCL's ring, pipelined over all ranks; crosses the fabric at NVLink-domain boundaries."""
    n, m, S = ctx.n, ctx.m, ctx.sizes
    if ctx.op == "all-reduce":
        nsteps, inter, ratio = 2 * (n - 1), (min(2 * (n - 1), 2 * m) if m > 1 else 0), n / (2 * (n - 1))
    elif ctx.op == "broadcast":
        nsteps, inter, ratio = n - 1, m - 1, 1.0
    else:
        nsteps, inter, ratio = n - 1, m - 1, n / (n - 1)
    bw = ctx.nvl if m == 1 else min(ctx.nvl, ctx.egress * ctx.ring_share)
    cand = {}
    for pr in ctx.protocols:
        lat = pr.ring_base_latency_us + (nsteps - inter) * pr.ring_nvlink_step_us + inter * (
            pr.ring_net_step_us + ctx.hop_us)
        transfer = S / (bw * pr.ring_bw_factor * ratio * 1e3)
        extra = fill(ctx.alg.ring_fill_us_per_step * nsteps, transfer) if pr.name == "Simple" else 0.0
        cand[pr.name] = lat + transfer + extra
    return AlgorithmCurve("ring", *best_protocol(cand))


def tree(ctx: SweepContext) -> AlgorithmCurve | None:
    """NCCL's double binary tree between NVLink domains, a chain inside (all-reduce)."""
    d, m, S = ctx.d, ctx.m, ctx.sizes
    levels = math.ceil(math.log2(m)) if m > 1 else 0
    # every GPU in the chain and every domain in the tree sends the array up (reduce) and
    # down (broadcast) in the same direction: algbw is half the bottleneck (NCCL: ratio .5)
    algbw = 0.5 * (ctx.nvl if m == 1 else min(ctx.nvl, ctx.egress * ctx.ring_share)) * ctx.alg.tree_bw_factor
    cand = {}
    for pr in ctx.protocols:
        lat = pr.tree_base_latency_us + 2 * ((d - 1) * pr.tree_nvlink_step_us + levels * (
            pr.tree_net_step_us + ctx.hop_us))
        transfer = S / (algbw * pr.tree_bw_factor * 1e3)
        extra = fill(ctx.alg.ring_fill_us_per_step * 2 * (d - 1 + levels), transfer) if pr.name == "Simple" else 0.0
        cand[pr.name] = lat + transfer + extra
    return AlgorithmCurve("tree", *best_protocol(cand))


def nvls(ctx: SweepContext) -> AlgorithmCurve | None:
    """NVLink SHARP (multimem reductions in the NVSwitch; Hopper and later).

    All-reduce across domains becomes NCCL's NVLS-tree (NVLS inside, tree between);
    reduce-scatter and all-gather run inside one domain only.
    """
    alg, S, m = ctx.alg, ctx.sizes, ctx.m
    if not ctx.nvls_ok:
        if ctx.forced and ctx.links.nvls_efficiency is None:
            ctx.notes.append(_("nvls needs NVSwitch generation 3 or later (Hopper+) in an NVLink domain"))
        return None
    if ctx.op == "all-reduce":
        lat = alg.nvls_nvlink_latency_us
        algbw = ctx.nvls_allreduce_algbw()
        if m > 1:  # NVLS-tree: NVLS inside the domain, a tree between domains
            levels = math.ceil(math.log2(m))
            lat += 2 * levels * (alg.nvls_tree_net_latency_us + ctx.hop_us)
            algbw = min(algbw, 0.5 * ctx.egress * ctx.ring_share)
        transfer = S / (algbw * 1e3)
        return _simple_only("nvls", lat + transfer + fill(alg.nvls_fill_us, transfer))
    if m == 1:  # NVLS reduce-scatter / all-gather inside one domain: send (or receive) S once
        algbw = ctx.nvl * ctx.links.nvls_efficiency
        transfer = S / (algbw * 1e3)
        return _simple_only("nvls", alg.nvls_nvlink_latency_us + transfer + fill(alg.nvls_fill_us, transfer))
    return None


def sharp(ctx: SweepContext) -> AlgorithmCurve | None:
    """InfiniBand SHARP in-network reduction (NCCL CollNet) between domains, NVLink (NVLS where available) inside."""
    alg, S, d, m = ctx.alg, ctx.sizes, ctx.d, ctx.m
    if ctx.links.sharp is None or m < 2:
        if ctx.forced:
            ctx.notes.append(_("sharp needs an InfiniBand switch with SHARP and a job spanning NVLink domains"))
        return None
    if ctx.nvls_ok:
        intra, lat = ctx.nvls_allreduce_algbw(), alg.nvls_nvlink_latency_us
    else:  # chain reduce up to the NIC rank and broadcast back over NVLink, per domain
        intra = min((ctx.nvl * k / (2 * (k - 1)) if k > 1 else math.inf) for k in ctx.domain_sizes)
        lat = 2 * (alg.collnet_nvlink_latency_us * min(1, d - 1) + (d - 1) * 0.4)
    lat += alg.collnet_net_latency_us + 2 * ctx.hop_us
    # each domain sends the array up once and receives it once; reductions shrink traffic
    # at every switch level, so leaf/spine oversubscription does not apply. NCCL applies
    # its CollNet efficiency only on compute capability >= 9.0 (tuning.cc).
    eff = (alg.collnet_efficiency if ctx.links.compute_capability >= alg.collnet_efficiency_min_compute_capability
           else 1.0)
    algbw = min(intra, ctx.egress * eff)
    transfer = S / (algbw * 1e3)
    return _simple_only("sharp", lat + transfer + fill(alg.nvls_fill_us, transfer))


def hierarchical(ctx: SweepContext) -> AlgorithmCurve | None:
    """Reduce-scatter inside the NVLink domain, a ring across domains on each rail, all-gather inside."""
    d, m, S, alg = ctx.d, ctx.m, ctx.sizes, ctx.alg
    if m < 2 or d < 2:
        return None
    all_reduce = ctx.op == "all-reduce"
    phases = 2 if all_reduce else 1  # intra phases: RS + AG, or one of them
    inter_steps = 2 * (m - 1) if all_reduce else m - 1
    inter_ratio = 2 * (m - 1) / m if all_reduce else (m - 1) / m
    rail = ctx.nic * ctx.ring_share
    cand = {}
    for pr in ctx.protocols:
        intra_lat = phases * (pr.ring_base_latency_us + (d - 1) * pr.ring_nvlink_step_us)
        inter_lat = pr.ring_base_latency_us + inter_steps * (pr.ring_net_step_us + ctx.hop_us)
        intra_t = phases * (d - 1) / d * S / (ctx.nvl * pr.ring_bw_factor * 1e3)
        # the emptiest domain splits the array over only d_min rails
        inter_t = inter_ratio * (S / ctx.d_min) / (rail * pr.ring_bw_factor * 1e3)
        t = intra_lat + inter_lat + intra_t + inter_t
        if pr.name == "Simple":
            t = t + fill(alg.ring_fill_us_per_step * phases * (d - 1), intra_t) + fill(
                alg.ring_fill_us_per_step * inter_steps, inter_t)
        cand[pr.name] = t
    return AlgorithmCurve("hierarchical", *best_protocol(cand))


def direct(ctx: SweepContext) -> AlgorithmCurve | None:
    """All-to-all as pairwise sends (with PXN, so traffic stays on its rail)."""
    n, d, m, S, alg = ctx.n, ctx.d, ctx.m, ctx.sizes, ctx.alg
    lat = alg.alltoall_base_latency_us + (n - 1) * alg.alltoall_peer_latency_us + (ctx.hop_us if m > 1 else 0.0)
    t_nvl = S * (d - 1) / n / (ctx.links.nvlink * 1e3) if d > 1 else 0.0 * S
    # the worst rank has the fewest NVLink peers: it sends (and receives) (n - d_min)/n of S on its NIC
    t_net = S * (n - ctx.d_min) / n / (ctx.nic * ctx.uniform_share * 1e3) if m > 1 else 0.0 * S
    return _simple_only("direct", lat + np.maximum(t_nvl, t_net))


# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Algorithm:
    """One registered algorithm: its function and the collectives it implements."""

    fn: Callable[[SweepContext], AlgorithmCurve | None]
    ops: tuple[str, ...]


REGISTRY: dict[str, Algorithm] = {
    "ring": Algorithm(ring, ("all-reduce", "reduce-scatter", "all-gather", "broadcast")),
    "tree": Algorithm(tree, ("all-reduce",)),
    "nvls": Algorithm(nvls, ("all-reduce", "reduce-scatter", "all-gather")),
    "sharp": Algorithm(sharp, ("all-reduce",)),
    "hierarchical": Algorithm(hierarchical, ("all-reduce", "reduce-scatter", "all-gather")),
    "direct": Algorithm(direct, ("all-to-all",)),
}
"""Algorithm name -> implementation, in the order the sweep tries them (ties go to the first)."""


def algorithm_label(name: str) -> str:
    """An algorithm's name (a ``REGISTRY`` key, or ``"p2p"``) for display.

    NCCL's own names (ring, tree, nvls, sharp) and p2p read the same in every language; the
    descriptive ones (hierarchical, direct) are translated.
    """
    labels = {"hierarchical": _("hierarchical"), "direct": _("direct")}
    return labels.get(name, name)
