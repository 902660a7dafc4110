"""The collective algorithms (NCCL's, and the mesh / HCCL-style ones other libraries run), one function each,
and the registry the sweep iterates. Which of them a run chooses from is its library's set (``library_default``:
``[[library]]`` in collectives.toml; NCCL's is ``NCCL_DEFAULT``).

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

from core import scaleup
from core.i18n import _, bracketed
from core.perf.constants import (AlgorithmConstants, ChannelCap, CollectiveConstants, LibraryConstants,
                                 ProtocolConstants, load_constants, parse_nccl_version)
from core.perf.placement import Links, Placement, dtree_max_degree


@dataclass
class AlgorithmCurve:
    """One algorithm's best-protocol time per size."""

    algorithm: str
    time_us: np.ndarray
    protocol: np.ndarray  # protocol name per size
    nccl_picks: np.ndarray | None = None
    """Sizes at which NCCL's tuner prefers this algorithm to the ring (None = all). The curve is what
    the algorithm does when forced (NCCL_ALGO); when the ring is also a candidate, ``Sweep.best``
    only picks it where this is true."""


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
    nic_ports: float = 0.0
    """NIC ports serving the emptiest NVLink domain (NCCL's tree uses one channel per NIC; 0 = unknown)."""
    tree_share: float | None = None
    """Share kept by NCCL's tree traffic (``contention(..., "tree")``; None = ``ring_share``)."""
    nccl_version: tuple[int, int, int] = ()  # type: ignore[assignment]
    """The NCCL release modelled (``core.perf.constants.nccl_version_of``; empty = the catalog default)."""
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
    """Switch latency of the farthest path plus the transport's, per network step [us]."""
    nvl: float = field(init=False)
    """NVLink bandwidth per GPU (infinite for a lone rank per domain: no NVLink step); on a mesh, what its rings get."""
    nvl_direct: float = field(init=False)
    """Scale-up bandwidth per GPU to all its domain peers at once (a mesh: the links to those peers)."""
    nic: float = field(init=False)
    egress: float = field(init=False)
    domain_sizes: list[int] = field(init=False)
    """Distinct ranks-per-domain counts (a partly filled last domain adds one)."""
    nvls_ok: bool = field(init=False)
    caps: ChannelCap = field(init=False)
    """NCCL's per-channel caps for this GPU architecture in the modelled release."""
    lib: LibraryConstants = field(init=False)
    """The collective library modelled (``constants.active_library``)."""

    def __post_init__(self) -> None:
        p, lk = self.placement, self.links
        self.alg = self.constants.algorithms
        self.n, self.d, self.m = p.n, p.ranks_per_domain, p.domains
        self.d_min = p.min_ranks_per_domain
        self.hop_us = p.hops * lk.hop_latency_us + (lk.transport_latency_us if p.domains > 1 else 0.0)
        self.nvl = lk.nvlink if self.d > 1 else math.inf
        self.nvl_direct = self.nvl
        if lk.mesh_peer and self.d > 1:  # a mesh: rings and direct sends use only the links to the d - 1 peers
            self.nvl = scaleup.ring_gbytes(lk.mesh_peer, self.d)
            self.nvl_direct = scaleup.all_peers_gbytes(lk.mesh_peer, self.d)
        self.nic = lk.nic_per_gpu
        self.egress = self.d_min * self.nic
        self.domain_sizes = sorted({self.d, p.last}) if self.m > 1 else [self.d]
        self.nvls_ok = lk.nvls_efficiency is not None and self.d > 1
        if self.tree_share is None:
            self.tree_share = self.ring_share
        if not self.nccl_version:
            self.nccl_version = parse_nccl_version(self.constants.nccl.default_version)
        self.caps = self.constants.channel_caps(lk.compute_capability, self.nccl_version)
        self.lib = self.constants.library_entry()

    def nvls_efficiency(self, k: int) -> float:
        """NVLS efficiency for a domain of ``k`` ranks: NCCL's nvlsEfficiency, lower on large
        (multi-node NVLink) domains (``nvls_large_domain_efficiency``, fitted to a full NVL72 rack)."""
        eff = self.links.nvls_efficiency or 0.0
        if k > self.alg.nvls_large_domain_gpus:
            eff = min(eff, self.alg.nvls_large_domain_efficiency)
        return eff

    def nvls_allreduce_algbw(self, extra_transfers: float = 0.0) -> float:
        """NVLS all-reduce algbw of the slowest domain (0 when NVLS is unavailable).

        A domain of ``k`` ranks reaches ``nvl x eff x k/(k+1)`` (NVIDIA/nccl-tests#212, sjeaugey:
        algbw = busbw x n/(n+1)); NVLS-tree passes the network's share once more
        (``extra_transfers``: k/(k+1+extra)).
        """
        if not self.nvls_ok:
            return 0.0

        def one(k: int) -> float:  # a domain holding k ranks (a lone rank needs no NVLink step)
            return self.nvl * self.nvls_efficiency(k) * k / (k + 1 + extra_transfers) if k > 1 else math.inf

        return min(one(k) for k in self.domain_sizes)

    def nvls_fill_us(self) -> float:
        """Pipeline fill of NVLS, growing as sqrt(k/8) with the ranks k of the domain (``nvls_fill_scaling``)."""
        if self.alg.nvls_fill_scaling == "sqrt":
            return self.alg.nvls_fill_us * math.sqrt(max(1.0, self.d / 8))
        return self.alg.nvls_fill_us

    def node_index(self) -> int:
        """NCCL's node-count column of its per-channel tables: 0 for 1 node, 1 for 2, 2 for more."""
        return 0 if self.m <= 1 else (1 if self.m == 2 else 2)

    def ll_max_busbw(self) -> float:
        """NCCL's cap on the LL protocol's busbw (tuning.cc llMaxBws) [GB/s]; none for a library without NCCL's
        caps (RCCL applies them only outside its AMD branch)."""
        if not self.lib.nccl_caps:
            return math.inf
        if self.m <= 1:
            return self.caps.ll_max_single_node
        return self.constants.channels.ll_max_multi_node[0 if self.m == 2 else 1]

    def tree_channels(self) -> int:
        """Channels of NCCL's tree graph: one per NIC of a domain, doubled when a channel carries
        at least 25 GB/s unless the GPU is newer than Ampere with < 50 GB/s per channel and more
        than 4 channels (src/graph/search.cc ncclTopoDupChannels), at most MAXCHANNELS."""
        ch = self.constants.channels
        nch = max(1, int(round(self.nic_ports)))
        per_channel = self.egress / nch
        cc = self.links.compute_capability
        skip = cc > ch.dup_skip_min_compute_capability and per_channel < ch.dup_skip_below_gbytes \
            and nch > ch.dup_skip_min_channels
        if per_channel >= ch.dup_min_gbytes and not skip:
            nch *= 2
        return min(nch, ch.max_channels)

    def tree_factor(self, pr: ProtocolConstants) -> float:
        """The protocol's tree bandwidth factor; its 2-domain row where the library has one (RCCL bwRatio)."""
        if self.m == 2 and pr.tree_bw_factor_two_domains is not None:
            return pr.tree_bw_factor_two_domains
        return pr.tree_bw_factor

    def tree_cap_algbw(self) -> float:
        """NCCL's tree algbw cap across domains (busBw <= nChannels x perChMaxTreeBw, algbw = busBw x .5) [GB/s];
        none for a library without NCCL's caps."""
        if not self.lib.nccl_caps:
            return math.inf
        return 0.5 * self.tree_channels() * self.caps.tree[self.node_index()]

    def ring_intra_step_us(self, pr: ProtocolConstants) -> float:
        """Latency of one intra-domain ring step: NCCL's NVLink hwLat, at least the network post overhead
        once the ring leaves the domain (tuning.cc: intraLat = max(intraLat, netOverhead), x3 for Simple)."""
        if self.m <= 1:
            return pr.ring_nvlink_step_us
        overhead = self.alg.ring_net_overhead_us * (self.alg.ring_net_overhead_simple_factor
                                                    if pr.name == "Simple" else 1.0)
        return max(pr.ring_nvlink_step_us, overhead)

    def tree_inter_share(self) -> float:
        """Fabric algbw of NCCL's double binary tree between domains, as a share of the domain's egress.

        Each of the two trees carries half the array; a domain sends (and receives) that half once
        per tree neighbour (parent and children: reduce up, broadcast down), so the busiest domain
        moves S x (its neighbours in both trees) / 2 per direction (``dtree_max_degree``): 1 on 2
        domains (root of one tree, leaf of the other), 2/3 on 3, 1/2 from 4 on.
        """
        return 2.0 / dtree_max_degree(self.m) if self.m > 1 else 1.0

    def blackwell_nvls_tree_slow(self) -> bool:
        """NVLS-tree on Blackwell across ``blackwell_nvls_tree_slow_domains`` or more domains in a release
        before ``blackwell_nvls_tree_fixed`` (NVIDIA/nccl#2035, fixed in 2.30.3)."""
        nc = self.constants.nccl
        return (self.links.compute_capability >= 10.0 and self.m >= nc.blackwell_nvls_tree_slow_domains
                and self.nccl_version < parse_nccl_version(nc.blackwell_nvls_tree_fixed))


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
        lat = pr.ring_base_latency_us + (nsteps - inter) * ctx.ring_intra_step_us(pr) + inter * (
            pr.ring_net_step_us + ctx.hop_us)
        busbw = bw * pr.ring_bw_factor
        if pr.name == "LL":  # tuning.cc: busBw = min(llMaxBw, busBw * .5)
            busbw = min(busbw, ctx.ll_max_busbw())
        transfer = S / (busbw * ratio * 1e3)
        extra = fill(ctx.alg.ring_fill_us_per_step * nsteps, transfer) if pr.name == "Simple" else 0.0
        cand[pr.name] = lat + transfer + extra
    return AlgorithmCurve("ring", *best_protocol(cand))


def tree(ctx: SweepContext) -> AlgorithmCurve | None:
    """NCCL's double binary tree between NVLink domains, a chain inside (all-reduce)."""
    d, m, S = ctx.d, ctx.m, ctx.sizes
    levels = math.ceil(math.log2(m)) if m > 1 else 0
    # The chain inside a domain sends the array up and down (algbw nvl / 2). Between domains the
    # busiest domain sends S x (its tree neighbours) / 2 (tree_inter_share, from NCCL's own tree
    # construction): on 2 domains each is the root of one tree and the leaf of the other and sends
    # the array once (NCCL raises the intra bandwidth to up to twice the inter one for this case,
    # search.cc, tuning.cc "nNodes <= 2 ? bwIntra"; busbw up to ~2x the NIC rate, AddyLaddy,
    # NVIDIA/nccl#812); on 3 domains 1.5 times (NVIDIA/nccl#1801: 3 GB200 partitions, tree busbw
    # 1.2x the ring's); from 4 on twice (algbw = egress / 2).
    if m == 1:
        algbw = 0.5 * ctx.nvl
    else:
        algbw = min(0.5 * ctx.nvl, ctx.egress * ctx.tree_share * ctx.tree_inter_share())
    algbw *= ctx.alg.tree_bw_factor
    if m > 1:  # busBw <= nChannels x perChMaxTreeBw (tuning.cc), algbw = busBw x .5
        algbw = min(algbw, ctx.tree_cap_algbw())
    cand = {}
    for pr in ctx.protocols:
        lat = pr.tree_base_latency_us + 2 * ((d - 1) * pr.tree_nvlink_step_us + levels * (
            pr.tree_net_step_us + ctx.hop_us))
        proto_algbw = algbw * ctx.tree_factor(pr)
        if pr.name == "LL":  # tuning.cc: busBw = min(busBw / 3.8, llMaxBw), algbw = busBw x .5
            proto_algbw = min(proto_algbw, 0.5 * ctx.ll_max_busbw())
        transfer = S / (proto_algbw * 1e3)
        extra = fill(ctx.alg.ring_fill_us_per_step * 2 * (d - 1 + levels), transfer) if pr.name == "Simple" else 0.0
        cand[pr.name] = lat + transfer + extra
    time_us, protocol = best_protocol(cand)
    return AlgorithmCurve("tree", time_us, protocol, _nccl_tree_picks(ctx) if m > 2 else None)


def _nccl_tree_picks(ctx: SweepContext) -> np.ndarray:
    """Sizes at which NCCL's tuner prefers the tree to the ring beyond 2 domains.

    NCCL's tuning model (tuning.cc ncclTopoTuneModel, every release since 2.5) gives both the same
    graph bandwidth B per channel but converts the tree's busbw to algbw with ratio .5 after a .92
    refinement, the ring's with n / 2(n-1): beyond 2 nodes it always rates the ring faster for
    large messages, although the real tree moves less data on 3 domains (NVIDIA/nccl#1801: NCCL
    chose the ring, NCCL_ALGO=TREE was 19-23% faster). The tree is then NCCL's choice only where
    its logarithmic latency wins. Same latencies and protocol factors as ``ring`` and ``tree``.
    """
    n, d, m, S = ctx.n, ctx.d, ctx.m, ctx.sizes
    bw = min(ctx.nvl, ctx.egress * ctx.ring_share)
    tree_bw = min(ctx.nvl, ctx.egress * ctx.tree_share)
    nsteps, inter = 2 * (n - 1), min(2 * (n - 1), 2 * m)
    levels = math.ceil(math.log2(m))
    cap = ctx.tree_cap_algbw()
    ring_t, tree_t = [], []
    for pr in ctx.protocols:
        ring_bus = bw * pr.ring_bw_factor
        tree_alg = min(0.5 * tree_bw * ctx.alg.tree_bw_factor, cap) * ctx.tree_factor(pr)
        if pr.name == "LL":
            ring_bus = min(ring_bus, ctx.ll_max_busbw())
            tree_alg = min(tree_alg, 0.5 * ctx.ll_max_busbw())
        ring_lat = pr.ring_base_latency_us + (nsteps - inter) * ctx.ring_intra_step_us(pr) + inter * (
            pr.ring_net_step_us + ctx.hop_us)
        tree_lat = pr.tree_base_latency_us + 2 * ((d - 1) * pr.tree_nvlink_step_us + levels * (
            pr.tree_net_step_us + ctx.hop_us))
        ring_t.append(ring_lat + S / (ring_bus * n / nsteps * 1e3))
        tree_t.append(tree_lat + S / (tree_alg * 1e3))
    return np.min(np.vstack(tree_t), axis=0) < np.min(np.vstack(ring_t), axis=0)


def nvls(ctx: SweepContext) -> AlgorithmCurve | None:
    """NVLink SHARP (multimem reductions in the NVSwitch; Hopper and later).

    All-reduce across domains becomes NCCL's NVLS-tree (NVLS inside, tree between);
    reduce-scatter and all-gather run inside one domain only.
    """
    alg, S, m = ctx.alg, ctx.sizes, ctx.m
    if not ctx.nvls_ok:
        if ctx.forced and ctx.links.nvls_efficiency is None:
            ctx.notes.append(_("NVLS needs NVSwitch generation 3 or later (Hopper+) in an NVLink domain"))
        return None
    if ctx.op == "all-reduce":
        if m > 1 and ctx.blackwell_nvls_tree_slow():
            ctx.notes.append(_("NVLS-tree across {domains} NVLink domains on Blackwell is left out: before NCCL "
                               "2.30.3 it ran far below the ring there (NVIDIA/nccl#2035) and its speed is not "
                               "modelled; the prediction uses ring or tree.").format(domains=m))
            return None
        lat = alg.nvls_nvlink_latency_us
        if m == 1:
            algbw = ctx.nvls_allreduce_algbw()
        else:  # NVLS-tree: NVLS inside the domain, a tree between domains
            levels = math.ceil(math.log2(m))
            lat += 2 * levels * (alg.nvls_tree_net_latency_us + ctx.hop_us)
            algbw = ctx.nvls_allreduce_algbw(alg.nvls_tree_extra_transfers)
            # the tree between domains: on 2 domains each sends the array once (tuning.cc: "Handle
            # 2 node case of NVLSTree", interBw x 2), on 3 the busiest 1.5 times, from 4 on twice
            inter = ctx.egress * ctx.tree_share * ctx.tree_inter_share()
            algbw = min(algbw, inter)
            caps = ctx.caps
            per_channel = caps.nvls_tree[ctx.node_index()]
            if caps.nvls_channels and per_channel > 0:  # busBw <= nvlsChannels x perChMaxNVLSTreeBw
                algbw = min(algbw, caps.nvls_channels * per_channel * ctx.n / (2 * (ctx.n - 1)))
        transfer = S / (algbw * 1e3)
        return _simple_only("nvls", lat + transfer + fill(ctx.nvls_fill_us(), transfer))
    if m == 1:  # NVLS reduce-scatter / all-gather inside one domain: send (or receive) S once
        algbw = ctx.nvl * ctx.nvls_efficiency(ctx.d)
        transfer = S / (algbw * 1e3)
        return _simple_only("nvls", alg.nvls_nvlink_latency_us + transfer + fill(ctx.nvls_fill_us(), transfer))
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


def pat(ctx: SweepContext) -> AlgorithmCurve | None:
    """NCCL's PAT (parallel aggregated trees) reduce-scatter / all-gather, one rank per node only.

    NCCL enables it by default when every node holds one rank of the communicator (tuning.cc
    ncclPatEnable: "PAT only supports 1 GPU per node"), e.g. a data-parallel group strided by
    the NVLink domain. Bandwidth: busBw x .75 of the NICs, not converted to algbw (tuning.cc);
    latency: baseLat 8 + log2(nodes) x netLat / 3.5 + 2.8 us per rank (tuning.cc v2.30).
    """
    n, m, S, alg = ctx.n, ctx.m, ctx.sizes, ctx.alg
    if ctx.d != 1 or m < 2 or ctx.op not in ("reduce-scatter", "all-gather"):
        return None
    pr = next(p for p in ctx.protocols if p.name == "Simple")
    levels = math.ceil(math.log2(m))
    lat = alg.pat_base_latency_us + levels * (pr.tree_net_step_us + ctx.hop_us) / alg.pat_log_latency_divisor \
        + n * alg.pat_rank_latency_us
    transfer = S / (alg.pat_bw_factor * ctx.egress * ctx.ring_share * 1e3)
    return _simple_only("pat", lat + transfer + fill(alg.ring_fill_us_per_step * levels, transfer))


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
    t_nvl = S * (d - 1) / n / (ctx.nvl_direct * 1e3) if d > 1 else 0.0 * S
    # the worst rank has the fewest NVLink peers: it sends (and receives) (n - d_min)/n of S on its NIC
    t_net = S * (n - ctx.d_min) / n / (ctx.nic * ctx.uniform_share * 1e3) if m > 1 else 0.0 * S
    return _simple_only("direct", lat + np.maximum(t_nvl, t_net))


# --------------------------------------------------------------------------------------
# HCCL-style algorithms (Huawei HCCL on Ascend, Habana HCCL on Gaudi): a mesh inside the scale-up domain,
# one inter-server algorithm between domains (HCCL_ALGO level0 / level1). Latencies are the library's own
# (``LibraryConstants.base_latency_us``, ``step_us`` per scale-up step, ``net_step_us`` per network step).
# --------------------------------------------------------------------------------------
def _mesh_phases(op: str) -> int:
    """Scale-up phases of ``op``: reduce-scatter or all-gather one, all-reduce two (RS + AG), broadcast two
    (scatter + all-gather)."""
    return 1 if op in ("reduce-scatter", "all-gather") else 2


def mesh(ctx: SweepContext) -> AlgorithmCurve | None:
    """HCCL's Mesh inside one scale-up domain: every rank exchanges its share with every peer at once over its
    own links, so each phase is one step moving (d-1)/d of the array per rank at the aggregate link rate."""
    d, S, lib = ctx.d, ctx.sizes, ctx.lib
    if ctx.m != 1 or d < 2:
        return None
    phases = _mesh_phases(ctx.op)
    t = lib.base_latency_us + phases * (lib.step_us + (d - 1) / d * S / (ctx.nvl_direct * 1e3))
    return _simple_only("mesh", t)


def _inter_ring(ctx: SweepContext) -> tuple[float, float, float] | None:
    """HCCL ring between domains: (steps, data moved per rank as a share of its part, share kept)."""
    m = ctx.m
    if ctx.op == "all-reduce":
        return 2 * (m - 1), 2 * (m - 1) / m, ctx.ring_share
    if ctx.op == "broadcast":
        return m - 1, 1.0, ctx.ring_share
    return m - 1, (m - 1) / m, ctx.ring_share


def _inter_rhd(ctx: SweepContext) -> tuple[float, float, float] | None:
    """Recursive halving-doubling (H-D_R): log2 steps on the largest power of 2 of the domains; the others
    first hand their part to a partner and get the result back (one step and one part each way more)."""
    if ctx.op == "broadcast":
        return None
    p = 2 ** int(math.floor(math.log2(ctx.m)))
    k, extra = math.log2(p), float(ctx.m != p)
    if ctx.op == "all-reduce":
        return 2 * k + 2 * extra, 2 * (p - 1) / p + extra, ctx.tree_share
    return k + extra, (p - 1) / p + extra, ctx.tree_share


def _inter_nhr(ctx: SweepContext) -> tuple[float, float, float] | None:
    """Nonuniform hierarchical ring (NHR; NB has the same steps and traffic here): ceil(log2 m) steps per
    phase and bandwidth-optimal traffic for any number of domains."""
    if ctx.op == "broadcast":
        return None
    m = ctx.m
    k = math.ceil(math.log2(m))
    if ctx.op == "all-reduce":
        return 2 * k, 2 * (m - 1) / m, ctx.tree_share
    return k, (m - 1) / m, ctx.tree_share


def _two_level(ctx: SweepContext, name: str, inter) -> AlgorithmCurve | None:
    """Mesh inside each domain, ``inter`` between domains on each rank's part (S / ranks of the emptiest domain,
    over its own NIC), mesh again inside: HCCL's level0 + level1 (the pipeline variant, which overlaps the two,
    is not modelled)."""
    if ctx.m < 2:
        return None
    shape = inter(ctx)
    if shape is None:
        return None
    steps, volume, share = shape
    d, S, lib = ctx.d, ctx.sizes, ctx.lib
    intra = _mesh_phases(ctx.op) * (lib.step_us + (d - 1) / d * S / (ctx.nvl_direct * 1e3)) if d > 1 else 0.0 * S
    inter_t = steps * (lib.net_step_us + ctx.hop_us) + volume * (S / ctx.d_min) / (ctx.nic * share * 1e3)
    return _simple_only(name, lib.base_latency_us + intra + inter_t)


def hccl_ring(ctx: SweepContext) -> AlgorithmCurve | None:
    """HCCL ring between domains, mesh inside."""
    return _two_level(ctx, "hccl-ring", _inter_ring)


def rhd(ctx: SweepContext) -> AlgorithmCurve | None:
    """HCCL recursive halving-doubling (H-D_R) between domains, mesh inside."""
    return _two_level(ctx, "rhd", _inter_rhd)


def nhr(ctx: SweepContext) -> AlgorithmCurve | None:
    """HCCL nonuniform hierarchical ring (NHR) between domains, mesh inside."""
    return _two_level(ctx, "nhr", _inter_nhr)


# --------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Algorithm:
    """One registered algorithm: its function, the collectives it implements, and whether a
    stock NCCL run uses it (``nccl_default``; the others only when asked for)."""

    fn: Callable[[SweepContext], AlgorithmCurve | None]
    ops: tuple[str, ...]
    nccl_default: bool = True


REGISTRY: dict[str, Algorithm] = {
    "ring": Algorithm(ring, ("all-reduce", "reduce-scatter", "all-gather", "broadcast")),
    "tree": Algorithm(tree, ("all-reduce",)),
    "nvls": Algorithm(nvls, ("all-reduce", "reduce-scatter", "all-gather")),
    "pat": Algorithm(pat, ("reduce-scatter", "all-gather")),
    # CollNet needs the SHARP plugin and NCCL_COLLNET_ENABLE=1 (NCCL env docs; tuning.cc
    # disables CollNet when collnetEnable == 0): an explicit option, never a default
    "sharp": Algorithm(sharp, ("all-reduce",), nccl_default=False),
    # not an NCCL algorithm (a two-level scheme some frameworks build from NCCL calls)
    "hierarchical": Algorithm(hierarchical, ("all-reduce", "reduce-scatter", "all-gather"), nccl_default=False),
    "direct": Algorithm(direct, ("all-to-all",)),
    # other libraries' algorithms (core.perf.constants.LibraryConstants.algorithms), never NCCL's
    "mesh": Algorithm(mesh, ("all-reduce", "reduce-scatter", "all-gather", "broadcast"), nccl_default=False),
    "hccl-ring": Algorithm(hccl_ring, ("all-reduce", "reduce-scatter", "all-gather", "broadcast"), nccl_default=False),
    "rhd": Algorithm(rhd, ("all-reduce", "reduce-scatter", "all-gather"), nccl_default=False),
    "nhr": Algorithm(nhr, ("all-reduce", "reduce-scatter", "all-gather"), nccl_default=False),
}
"""Algorithm name -> implementation, in the order the sweep tries them (ties go to the first)."""

NCCL_DEFAULT: tuple[str, ...] = tuple(name for name, a in REGISTRY.items() if a.nccl_default)
"""What stock NCCL chooses from (NCCL 2.30: ring, tree, NVLS / NVLS-tree, PAT; p2p for all-to-all)."""


def library_default(library: LibraryConstants) -> tuple[str, ...]:
    """What a stock run of ``library`` chooses from: its ``algorithms``, or ``NCCL_DEFAULT`` when it names none."""
    return library.algorithms or NCCL_DEFAULT


NCCL_NAMES = {"nvls": "NVLS", "pat": "PAT"}
"""Algorithm ids NCCL writes in capitals (its logs and ``NCCL_ALGO``: NVLS, PAT); ring and tree read as NCCL's
lower-case names in prose (the glossary's "NCCL algorithm names")."""


def algorithm_label(name: str) -> str:
    """An algorithm's name (a ``REGISTRY`` key, or ``"p2p"``) for display.

    NCCL's own names (ring, tree, NVLS, PAT, sharp) and p2p read the same in every language, as NCCL writes them
    (``NCCL_NAMES``; ``assets/glossary.toml``, "NCCL algorithm names"); the descriptive ones (hierarchical, direct)
    and a published point's "default" (NCCL chose) are translated.
    """
    labels = {"hierarchical": _("hierarchical"), "direct": _("direct"), "default": _("NCCL's choice"),
              "mesh": _("mesh"), "hccl-ring": _("ring (HCCL)"), "rhd": "RHD", "nhr": "NHR", **NCCL_NAMES}
    return labels.get(name, name)


def fastest_label(algorithm: str, protocol: str, library: str) -> str:
    """The fastest algorithm as shown: with its protocol, "ring (LL)", when collective library ``library``
    (``System.collective_library``) runs NCCL's protocols (NCCL, or a library that declares its own protocol
    rows in ``assets/catalog/collectives.toml``: RCCL); the algorithm alone, "RHD", for one that declares none
    (HCCL): LL, LL128 and Simple are NCCL's names, not that library's."""
    return bracketed(algorithm_label(algorithm), protocol) if names_protocols(library) else algorithm_label(algorithm)


def names_protocols(library: str) -> bool:
    """Whether collective library ``library`` runs NCCL's protocols under their names (``fastest_label``)."""
    constants = load_constants()
    return library.casefold() == constants.active_library or bool(constants.library_entry(library).protocol)
