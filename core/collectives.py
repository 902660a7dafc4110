"""Collective communication on a planned cluster: a latency-bandwidth model of NCCL.

For a job of ``n`` GPUs placed on a ``Plan`` this predicts, per message size, the
time of all-reduce, reduce-scatter, all-gather, all-to-all and broadcast under each
algorithm the hardware supports, and which one is fastest:

* ``ring``: NCCL's ring, pipelined over all ranks; crosses the fabric at NVLink-domain
  boundaries.
* ``tree``: NCCL's double binary tree between NVLink domains, a chain inside.
* ``nvls``: NVLink SHARP (multimem reductions in the NVSwitch; Hopper and later). Across
  domains it becomes NCCL's NVLS-tree (NVLS inside, tree between).
* ``sharp``: InfiniBand SHARP in-network reduction (NCCL CollNet) between domains,
  NVLink (NVLS where available) inside; only on InfiniBand switches that support it.
* ``hierarchical``: reduce-scatter inside the NVLink domain, a ring across domains
  on each rail, all-gather inside.
* ``direct``: all-to-all as pairwise sends (with PXN, so traffic stays on its rail).

Every algorithm is evaluated for NCCL's three protocols (LL, LL128, Simple); the
fastest protocol is reported. Time of one algorithm and protocol::

    t(S) = latency + S / algbw + fill(S)

with NCCL's per-step latencies (``src/graph/tuning.cc``), per-protocol bandwidth
factors, effective link bandwidths calibrated to published nccl-tests results, and a
pipeline-fill term for the Simple protocol. All constants live in
``assets/catalog/collectives.toml`` with their sources.

Bandwidth definitions follow NVIDIA/nccl-tests ``doc/PERFORMANCE.md``
(https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)::

    algbw = S / t
    busbw = algbw * 2(n-1)/n   all-reduce
    busbw = algbw * (n-1)/n    reduce-scatter, all-gather, all-to-all (S = whole array)
    busbw = algbw              broadcast

Why ``busbw`` can exceed a link's line rate for ``nvls`` and ``sharp``: busbw applies
the point-to-point all-reduce factor 2(n-1)/n, which assumes every byte of the
reduction crosses a GPU's link 2(n-1)/n times. With NVLink SHARP or InfiniBand SHARP
the switch does the additions, each GPU sends and receives the array about once, so
algbw approaches the link rate itself and busbw reaches almost twice it ("the BusBW is
no longer reflecting any real bandwidth on the system", sjeaugey, NVIDIA/nccl-tests#212).
``hierarchical`` on few NVLink domains can also exceed the NIC rate: it sends only
2(m-1)/m of the array across m domains, not 2(n-1)/n, so busbw <= line x m/(m-1)
(the same effect makes NCCL's tree on two nodes exceed the NIC rate, AddyLaddy,
NVIDIA/nccl#812). ``direct`` all-to-all sends part of the array over NVLink while the
rest crosses the NIC, so its busbw <= NIC line x (n-1)/(n-d) for d ranks per domain.

Placement: ranks fill NVLink domains in order; a job that partly fills its last domain
runs at the pace of that domain, whose fewer GPUs have fewer NICs (``Placement.last``).
So 9 GPUs (8 + 1) are slower than 16 (8 + 8): the lone GPU's NIC carries its share.
Ring, tree and NVLS-tree traffic crosses leaf or pod uplinks only on the few edges that
join neighbouring groups (NCCL orders ranks by node), so they see "ring" contention;
all-to-all spreads over every node and sees "uniform" contention. Both assume ideal
rank placement and no ECMP collisions.

Known gap: NCCL runs fewer channels for small and medium messages, and caps LL and
LL128 per channel (``tuning.cc`` llMaxBws, perChMaxRingLL128Bws); the model does not,
so it is optimistic between about 64 KB and 64 MB: all-reduce busbw on 8x A100 is
predicted 64% (1 MB), 50% (16 MB) and 18% (64 MB) above the Azure ND A100 v4
measurements; 8x H200 +39% and 4x GB200 +32% at 1 MB; 8x H100 +25% at 64 KB. Large
messages (>= 256 MB) and multi-node points are within 15% (tests/test_collectives_golden.py).

Units: sizes in bytes, time in microseconds [us], bandwidth in GB/s (1e9 bytes/s),
one direction.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from core.catalog import CATALOG_DIR, read_toml
from core.errors import DesignError, InputError
from core.plan import Plan

Op = Literal["all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast"]
OPS: tuple[str, ...] = ("all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast")
ALGORITHMS: tuple[str, ...] = ("ring", "tree", "nvls", "sharp", "hierarchical", "direct")
IN_NETWORK: frozenset[str] = frozenset({"nvls", "sharp"})
PROTOCOLS: tuple[str, ...] = ("LL", "LL128", "Simple")

CONSTANTS_FILE = CATALOG_DIR / "collectives.toml"


# --------------------------------------------------------------------------------------
# Constants file
# --------------------------------------------------------------------------------------
class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ProtocolConstants(_Strict):
    name: Literal["LL", "LL128", "Simple"]
    ring_base_latency_us: float = Field(ge=0)
    tree_base_latency_us: float = Field(ge=0)
    ring_nvlink_step_us: float = Field(ge=0)
    tree_nvlink_step_us: float = Field(ge=0)
    ring_net_step_us: float = Field(ge=0)
    tree_net_step_us: float = Field(ge=0)
    ring_bw_factor: float = Field(gt=0, le=1)
    tree_bw_factor: float = Field(gt=0, le=1)
    source: str


class AlgorithmConstants(_Strict):
    tree_bw_factor: float = Field(gt=0, le=1)
    tree_source: str
    nvls_nvlink_latency_us: float = Field(ge=0)
    nvls_net_latency_us: float = Field(ge=0)
    nvls_tree_net_latency_us: float = Field(ge=0)
    nvls_source: str
    collnet_nvlink_latency_us: float = Field(ge=0)
    collnet_net_latency_us: float = Field(ge=0)
    collnet_efficiency: float = Field(gt=0, le=1)
    collnet_efficiency_min_compute_capability: float = Field(ge=0)
    collnet_source: str
    ring_fill_us_per_step: float = Field(ge=0)
    ring_fill_source: str
    nvls_fill_us: float = Field(ge=0)
    nvls_fill_source: str
    alltoall_peer_latency_us: float = Field(ge=0)
    alltoall_base_latency_us: float = Field(ge=0)
    alltoall_source: str
    alltoall_pxn: bool
    alltoall_pxn_note: str


class NvlinkEfficiency(_Strict):
    generation: int = Field(ge=1)
    efficiency: float = Field(gt=0, le=1)
    source: str


class NvlsEfficiency(_Strict):
    nvswitch_generation: int = Field(ge=1)
    efficiency: float = Field(gt=0, le=1)
    source: str


class FabricConstants(_Strict):
    kind: Literal["infiniband", "ethernet"]
    nic_efficiency: float = Field(gt=0, le=1)
    switch_hop_latency_us: float = Field(ge=0)
    source: str


class SharpCapability(_Strict):
    switch: str
    version: str
    nccl_collnet: bool = True
    """NCCL can use it through the SHARP plugin (CollNet); SHARPv1 cannot (Quantum HDR and later only)."""
    source: str


class ArchitectureConstants(_Strict):
    name: str
    compute_capability: float = Field(gt=0)
    source: str


class PcieConstants(_Strict):
    gbytes_per_direction: float = Field(gt=0)
    source: str


class TrainingConstants(_Strict):
    compute_efficiency: float = Field(gt=0, le=1)
    compute_efficiency_source: str
    fp8_compute_efficiency: float = Field(gt=0, le=1)
    fp8_compute_efficiency_source: str
    moe_compute_efficiency: float = Field(gt=0, le=1)
    moe_compute_efficiency_source: str
    tp_overlap: float = Field(ge=0, le=1)
    pp_overlap: float = Field(ge=0, le=1)
    dp_overlap: float = Field(ge=0, le=1)
    cp_overlap: float = Field(ge=0, le=1)
    ep_overlap: float = Field(ge=0, le=1)
    overlap_source: str
    weight_bytes_per_param: float = Field(gt=0)
    grad_bytes_per_param: float = Field(gt=0)
    optimizer_bytes_per_param: float = Field(ge=0)
    bytes_per_param_source: str
    activation_bytes_per_token_hidden: float = Field(gt=0)
    activation_source: str
    memory_reserve_fraction: float = Field(ge=0, lt=1)
    memory_reserve_source: str


class ReferencePoint(_Strict):
    """Published nccl-tests measurements for one system, GPU count and collective."""

    system: str
    gpus: int = Field(ge=2)
    op: Literal["all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast"]
    points: tuple[tuple[float, float], ...] = Field(description="(bytes, busbw GB/s) pairs")
    algorithm: str
    label: str
    source: str
    nics_per_node: int | None = None


class Meta(_Strict):
    as_of: str
    busbw_source: str


class CollectiveConstants(_Strict):
    """Everything in ``assets/catalog/collectives.toml``."""

    meta: Meta
    protocol: tuple[ProtocolConstants, ...]
    algorithms: AlgorithmConstants
    nvlink: tuple[NvlinkEfficiency, ...]
    nvls: tuple[NvlsEfficiency, ...]
    fabric: tuple[FabricConstants, ...]
    sharp: tuple[SharpCapability, ...]
    architecture: tuple[ArchitectureConstants, ...]
    pcie: PcieConstants
    training: TrainingConstants
    reference: tuple[ReferencePoint, ...] = ()

    def references(self, system_id: str, gpus: int, op: str, nics_per_node: int | None = None):
        """Published points for this system, GPU count and collective (NIC count must match when stated)."""
        return [r for r in self.reference
                if r.system.casefold() == system_id.casefold() and r.gpus == gpus and r.op == op
                and (r.nics_per_node is None or r.nics_per_node == nics_per_node)]

    def proto(self, name: str) -> ProtocolConstants:
        return next(p for p in self.protocol if p.name == name)

    def nvlink_efficiency(self, generation: int) -> float:
        known = {e.generation: e.efficiency for e in self.nvlink}
        if generation in known:
            return known[generation]
        return known[min(known, key=lambda g: abs(g - generation))]

    def nvls_efficiency(self, nvswitch_generation: int) -> float | None:
        """NVLS efficiency, or None when the NVSwitch has no multimem reductions (< gen 3)."""
        if nvswitch_generation < 3:
            return None
        known = {e.nvswitch_generation: e.efficiency for e in self.nvls}
        return known.get(nvswitch_generation, known[max(known)])

    def fabric_constants(self, kind: str) -> FabricConstants:
        return next(f for f in self.fabric if f.kind == kind)

    def sharp_entry(self, switch_id: str) -> SharpCapability | None:
        for entry in self.sharp:
            if entry.switch.casefold() == switch_id.casefold():
                return entry
        return None

    def sharp_version(self, switch_id: str) -> str | None:
        """The switch's SHARP version (any), or None."""
        entry = self.sharp_entry(switch_id)
        return entry.version if entry else None

    def nccl_sharp_version(self, switch_id: str) -> str | None:
        """The switch's SHARP version if NCCL can use it for all-reduce (CollNet), else None."""
        entry = self.sharp_entry(switch_id)
        return entry.version if entry and entry.nccl_collnet else None

    def compute_capability(self, architecture: str) -> float:
        """CUDA compute capability of a GPU architecture (0 when unknown)."""
        for entry in self.architecture:
            if entry.name.casefold() == architecture.casefold():
                return entry.compute_capability
        return 0.0


def load_constants_from(path: Path) -> CollectiveConstants:
    """Load and validate a collectives constants file; ``InputError`` names the problem."""
    data = read_toml(path, "collective constants file")
    try:
        constants = CollectiveConstants.model_validate(data)
    except ValueError as exc:
        raise InputError(f"{path.name} is invalid: {exc}") from exc
    if {p.name for p in constants.protocol} != set(PROTOCOLS):
        raise InputError(f"{path.name} must define the protocols {', '.join(PROTOCOLS)}")
    if {f.kind for f in constants.fabric} != {"infiniband", "ethernet"}:
        raise InputError(f"{path.name} must define fabric constants for infiniband and ethernet")
    return constants


@lru_cache(maxsize=1)
def load_constants() -> CollectiveConstants:
    """The bundled constants (cached, immutable)."""
    return load_constants_from(CONSTANTS_FILE)


# --------------------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------------------
_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
}


MAX_SIZE_BYTES = 2**40
"""Largest message accepted (1 TiB): far beyond any GPU's memory, so larger is a typo."""


def parse_size(text: str | int | float) -> int:
    """Bytes from ``"1GiB"``, ``"512MB"``, ``"64K"``, ``"8"`` (K/M/G alone are binary, as in nccl-tests).

    Raises ``InputError`` for anything else: a size that is not positive, not a whole
    number of bytes (``1.5`` B; ``1.5KiB`` = 1536 B is fine) or above 1 TiB.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        match = re.fullmatch(r"\s*([+-]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*", str(text))
        if not match or match.group(2).casefold() not in _UNITS:
            raise InputError(
                f"cannot read size {text!r}; use a number with B, KiB, MiB, GiB, KB, MB or GB (e.g. 1GiB)"
            )
        value = float(match.group(1)) * _UNITS[match.group(2).casefold()]
    if not math.isfinite(value) or value > MAX_SIZE_BYTES:
        raise InputError(f"size {text!r} is above the 1 TiB limit; messages are at most a GPU's memory")
    if value <= 0:
        raise InputError(f"size must be positive, got {text!r}")
    if abs(value - round(value)) > 1e-6 * max(1.0, value):
        raise InputError(f"size {text!r} is {value:g} bytes; a message is a whole number of bytes")
    return int(round(value))


def format_size(nbytes: float) -> str:
    """``1073741824`` -> ``"1 GiB"`` (binary units, as nccl-tests prints them)."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            value = nbytes / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{nbytes:.0f} B"


def size_sweep(start: float = 8, stop: float = 16 * 2**30, points: int = 64) -> np.ndarray:
    """``points`` message sizes [bytes], log-spaced from ``start`` to ``stop`` inclusive."""
    if points < 2 or start < 1 or stop <= start:
        raise InputError("a sweep needs at least 2 points and 1 <= start < stop")
    return np.geomspace(start, stop, points)


def bus_factor(op: str, n: int) -> float:
    """nccl-tests' busbw / algbw factor for ``op`` on ``n`` ranks (doc/PERFORMANCE.md)."""
    _check_op(op)
    if op == "all-reduce":
        return 2 * (n - 1) / n
    if op == "broadcast":
        return 1.0
    return (n - 1) / n


def _check_op(op: str) -> None:
    if op not in OPS:
        raise InputError(f"unknown collective {op!r}; known: {', '.join(OPS)}")


# --------------------------------------------------------------------------------------
# Placement of a job on the fabric
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Placement:
    """Where the ``n`` ranks of one communicator sit.

    ``stride`` is the GPU distance between consecutive ranks (1 for a whole job;
    e.g. ``TP`` for a data-parallel group). Ranks fill NVLink domains in order, so
    every domain holds ``ranks_per_domain`` ranks except the last, which holds
    ``ranks_last_domain`` (1 .. ranks_per_domain). A collective runs at the pace of
    its worst domain: a partly filled last domain has fewer GPUs, so fewer NICs, to
    carry its share of the fabric traffic.
    """

    n: int
    stride: int
    ranks_per_domain: int
    domains: int
    nodes: int
    groups: int
    pods: int
    nodes_in_group: int
    nodes_in_pod: int
    hops: int
    """Switch hops on the longest fabric path the job uses (0 if it stays in NVLink)."""
    level: str
    """``nvlink``, ``leaf``, ``spine`` or ``core``: the highest fabric level crossed."""
    ranks_last_domain: int = 0
    """Ranks in the last NVLink domain (0 = same as ``ranks_per_domain``)."""

    @property
    def last(self) -> int:
        """Ranks in the last (possibly partly filled) NVLink domain."""
        return self.ranks_last_domain or self.ranks_per_domain

    @property
    def min_ranks_per_domain(self) -> int:
        """Ranks in the emptiest domain: the NICs it has set the fabric pace."""
        return min(self.ranks_per_domain, self.last)


def place(plan: Plan, gpus: int | None = None, stride: int = 1) -> Placement:
    """Place a communicator of ``gpus`` ranks (default: every GPU) on ``plan``.

    Raises ``InputError`` for fewer than 2 ranks and ``DesignError`` when the job
    does not fit the cluster.
    """
    r = plan.resolved
    f = plan.fabric
    n = r.gpus if gpus is None else int(gpus)
    if n < 2:
        raise InputError(f"a collective needs at least 2 GPUs, got {n}")
    if stride < 1:
        raise InputError(f"stride must be at least 1, got {stride}")
    span = n * stride
    if span > r.gpus:
        raise DesignError(
            f"a job of {n:,} GPUs{f' spaced {stride} apart' if stride > 1 else ''} needs {span:,} GPUs, "
            f"but the cluster has {r.gpus:,}.",
            f"Plan at least {math.ceil(span / r.gpus_per_node):,} nodes or use fewer GPUs.",
        )
    domain = r.nvlink_domain_gpus if r.nvlink_domain_gpus > 1 else 1
    d = max(1, min(n, domain // stride)) if stride < domain else 1
    m = math.ceil(n / d)
    nodes = math.ceil(span / r.gpus_per_node)
    per_group = max(1, f.nodes_per_group) if f.tiers > 1 else max(1, r.nodes)
    groups = 1 if f.tiers == 1 else math.ceil(nodes / per_group)
    pods = math.ceil(groups / max(1, f.groups_per_pod)) if f.tiers == 3 else 1
    nodes_in_group = min(nodes, per_group)
    nodes_in_pod = min(nodes, per_group * max(1, f.groups_per_pod)) if f.tiers == 3 else nodes
    if m == 1:
        hops, level = 0, "nvlink"
    elif groups == 1:
        hops, level = 1, "leaf"
    elif pods == 1:
        hops, level = 3, "spine"
    else:
        hops, level = 5, "core"
    last = n - (m - 1) * d
    return Placement(n, stride, d, m, nodes, groups, pods, nodes_in_group, nodes_in_pod, hops, level, last)


def _contention(plan: Plan, p: Placement, pattern: str) -> float:
    """Share of a node's fabric bandwidth it keeps when ``pattern`` traffic meets oversubscription.

    A fraction ``f1`` of each node's traffic leaves its leaf group (scalable unit or
    top-of-rack leaf) and shares the leaf uplinks, which carry 1/o1 of the down
    capacity; likewise ``f2`` leaves the pod through spines at ``o2``. The node keeps
    ``min(1, 1/(f1*o1), 1/(f2*o2))``. ``ring``: one node per group and pod sends
    out; ``uniform``: traffic spread evenly over the job's other nodes (tree, all-to-all).
    """
    if p.domains <= 1 or p.nodes <= 1:
        return 1.0
    bw = plan.bandwidth
    o1, o2 = max(1.0, bw.leaf_oversubscription), max(1.0, bw.spine_oversubscription)
    if pattern == "ring":
        f1 = 1.0 / p.nodes_in_group if p.groups > 1 else 0.0
        f2 = 1.0 / p.nodes_in_pod if p.pods > 1 else 0.0
    else:
        f1 = (p.nodes - p.nodes_in_group) / (p.nodes - 1) if p.groups > 1 else 0.0
        f2 = (p.nodes - p.nodes_in_pod) / (p.nodes - 1) if p.pods > 1 else 0.0
    share = 1.0
    if f1 > 0:
        share = min(share, 1.0 / (f1 * o1))
    if f2 > 0:
        share = min(share, 1.0 / (f2 * o2))
    return share


# --------------------------------------------------------------------------------------
# Link bandwidths
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Links:
    """Effective and line-rate bandwidths one rank sees [GB/s, one direction]."""

    nvlink: float
    nvlink_line: float
    nic_per_gpu: float
    nic_per_gpu_line: float
    nvls_efficiency: float | None
    sharp: str | None
    """SHARP version NCCL can use for in-network all-reduce, or None."""
    hop_latency_us: float
    fabric: str
    compute_capability: float = 0.0


def links(plan: Plan, constants: CollectiveConstants | None = None) -> Links:
    """Effective bandwidths of ``plan``'s NVLink and NICs, and what the hardware supports."""
    c = constants or load_constants()
    r = plan.resolved
    if r.nvlink_domain_gpus > 1:
        nvl_line = r.nvlink_gbytes_per_gpu_bidir / 2
        nvl = nvl_line * c.nvlink_efficiency(r.nvlink_generation)
    else:
        nvl_line = nvl = c.pcie.gbytes_per_direction
    fab = c.fabric_constants(r.fabric)
    nic_line = r.nics_per_node * r.planes * r.port_speed_gbps / 8 / r.gpus_per_node
    nvls = c.nvls_efficiency(r.system.nvswitch_generation) if r.nvlink_domain_gpus > 1 else None
    sharp = c.nccl_sharp_version(r.switch.id) if r.fabric == "infiniband" else None
    return Links(nvl, nvl_line, nic_line * fab.nic_efficiency, nic_line, nvls, sharp, fab.switch_hop_latency_us,
                 r.fabric, c.compute_capability(r.system.architecture))


def bottleneck_line_gbytes(plan: Plan, placement: Placement) -> float:
    """Line rate of the slowest link a rank's ring traffic crosses [GB/s, one direction].

    NVLink per GPU inside one domain; across domains the smaller of NVLink and the
    NIC ports of the emptiest domain serving this communicator
    (``min_ranks_per_domain`` x NIC per GPU: a partly filled last domain has fewer NICs).
    """
    lk = links(plan)
    if placement.domains == 1:
        return lk.nvlink_line
    egress = placement.min_ranks_per_domain * lk.nic_per_gpu_line
    return min(lk.nvlink_line, egress) if placement.ranks_per_domain > 1 else egress


# --------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------
@dataclass
class AlgorithmCurve:
    """One algorithm's best-protocol time per size."""

    algorithm: str
    time_us: np.ndarray
    protocol: np.ndarray  # protocol name per size


@dataclass
class Sweep:
    """Predictions for one collective over a range of message sizes."""

    op: str
    n: int
    placement: Placement
    sizes: np.ndarray
    curves: dict[str, AlgorithmCurve]
    notes: list[str] = field(default_factory=list)

    @property
    def factor(self) -> float:
        return bus_factor(self.op, self.n)

    def best(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(time_us, algorithm, protocol) of the fastest algorithm at each size."""
        names = list(self.curves)
        stack = np.vstack([self.curves[a].time_us for a in names])
        idx = np.argmin(stack, axis=0)
        cols = np.arange(stack.shape[1])
        protos = np.vstack([self.curves[a].protocol for a in names])
        return stack[idx, cols], np.array(names, dtype=object)[idx], protos[idx, cols]

    def algbw(self, time_us: np.ndarray) -> np.ndarray:
        """algbw = S / t [GB/s]."""
        return self.sizes / (time_us * 1e-6) / 1e9

    def busbw(self, time_us: np.ndarray) -> np.ndarray:
        return self.algbw(time_us) * self.factor

    def frame(self) -> pd.DataFrame:
        """Long table: one row per size and algorithm, plus ``fastest``."""
        best_t, best_a, _ = self.best()
        rows = []
        for name, curve in self.curves.items():
            rows.append(pd.DataFrame({
                "op": self.op, "gpus": self.n, "bytes": self.sizes, "algorithm": name,
                "protocol": curve.protocol, "time_us": curve.time_us,
                "algbw_gbytes": self.algbw(curve.time_us), "busbw_gbytes": self.busbw(curve.time_us),
                "fastest": best_a == name,
            }))
        return pd.concat(rows, ignore_index=True)

    def best_frame(self) -> pd.DataFrame:
        t, a, p = self.best()
        return pd.DataFrame({
            "op": self.op, "gpus": self.n, "bytes": self.sizes, "algorithm": a, "protocol": p,
            "time_us": t, "algbw_gbytes": self.algbw(t), "busbw_gbytes": self.busbw(t),
        })


def _best_protocol(candidates: dict[str, np.ndarray]) -> AlgorithmCurve:
    names = list(candidates)
    stack = np.vstack([candidates[p] for p in names])
    idx = np.argmin(stack, axis=0)
    return stack[idx, np.arange(stack.shape[1])], np.array(names, dtype=object)[idx]


def _fill(fill_us: float, transfer_us: np.ndarray) -> np.ndarray:
    """Pipeline fill: at most one extra transfer time (short messages have no pipeline to fill)."""
    return np.minimum(fill_us, transfer_us)


def sweep(
    plan: Plan,
    op: str,
    sizes,
    gpus: int | None = None,
    stride: int = 1,
    algorithms: tuple[str, ...] | None = None,
    constants: CollectiveConstants | None = None,
) -> Sweep:
    """Predict ``op`` for every size in ``sizes`` [bytes] on ``gpus`` ranks of ``plan``.

    Parameters
    ----------
    plan : Plan
        The planned cluster (``core.plan.plan(Design(...))``).
    op : str
        One of ``OPS``.
    sizes : array-like of float
        Message sizes in bytes, nccl-tests convention (the whole array for
        reduce-scatter, all-gather and all-to-all).
    gpus : int, optional
        Ranks in the communicator (default: every GPU of the plan).
    stride : int
        GPU distance between consecutive ranks (e.g. TP for a data-parallel group).
    algorithms : tuple of str, optional
        Restrict to these algorithms (those the hardware lacks are skipped).

    Returns
    -------
    Sweep
        Per-algorithm times; ``best()`` gives the fastest per size.
    """
    _check_op(op)
    c = constants or load_constants()
    S = np.asarray(sizes, dtype=float)
    if S.ndim == 0:
        S = S.reshape(1)
    if S.size == 0 or not np.all(np.isfinite(S)) or np.any(S < 1):
        raise InputError("message sizes must be finite and at least 1 byte")
    if algorithms is not None:
        unknown = [a for a in algorithms if a not in ALGORITHMS]
        if unknown:
            raise InputError(f"unknown algorithm {unknown[0]!r}; known: {', '.join(ALGORITHMS)}")
    p = place(plan, gpus, stride)
    lk = links(plan, c)
    alg = c.algorithms
    n, d, m = p.n, p.ranks_per_domain, p.domains
    d_min = p.min_ranks_per_domain  # ranks (and so NICs) of the emptiest domain: it sets the fabric pace
    hop_us = p.hops * lk.hop_latency_us
    nvl = lk.nvlink if d > 1 else math.inf
    nic = lk.nic_per_gpu
    egress = d_min * nic  # fabric bandwidth of the worst domain
    # Ring, tree and NVLS-tree move data between neighbouring domains on the same rail: NCCL
    # orders ranks by node, so only the few edges that join one leaf group (or pod) to the
    # next cross the uplinks -> "ring" contention. All-to-all spreads traffic over every
    # other node -> "uniform" contention. Both assume ideal rank placement and no ECMP
    # hash collisions, so oversubscription mostly shows in all-to-all (MoE) traffic.
    c_ring = _contention(plan, p, "ring")
    c_uni = _contention(plan, p, "uniform")
    domain_sizes = sorted({d, p.last}) if m > 1 else [d]
    protos = [c.proto(name) for name in PROTOCOLS]
    notes: list[str] = []
    curves: dict[str, AlgorithmCurve] = {}

    def want(name: str) -> bool:
        return algorithms is None or name in algorithms

    # ---- ring -------------------------------------------------------------------------
    if op != "all-to-all" and want("ring"):
        if op == "all-reduce":
            nsteps, inter, ratio = 2 * (n - 1), (min(2 * (n - 1), 2 * m) if m > 1 else 0), n / (2 * (n - 1))
        elif op == "broadcast":
            nsteps, inter, ratio = n - 1, m - 1, 1.0
        else:
            nsteps, inter, ratio = n - 1, m - 1, n / (n - 1)
        bw = nvl if m == 1 else min(nvl, egress * c_ring)
        cand = {}
        for pr in protos:
            lat = pr.ring_base_latency_us + (nsteps - inter) * pr.ring_nvlink_step_us + inter * (
                pr.ring_net_step_us + hop_us)
            transfer = S / (bw * pr.ring_bw_factor * ratio * 1e3)
            extra = _fill(alg.ring_fill_us_per_step * nsteps, transfer) if pr.name == "Simple" else 0.0
            cand[pr.name] = lat + transfer + extra
        curves["ring"] = AlgorithmCurve("ring", *_best_protocol(cand))

    # ---- tree (all-reduce) -------------------------------------------------------------
    if op == "all-reduce" and want("tree"):
        levels = math.ceil(math.log2(m)) if m > 1 else 0
        # every GPU in the chain and every domain in the tree sends the array up (reduce) and
        # down (broadcast) in the same direction: algbw is half the bottleneck (NCCL: ratio .5)
        algbw = 0.5 * (nvl if m == 1 else min(nvl, egress * c_ring)) * alg.tree_bw_factor
        cand = {}
        for pr in protos:
            lat = pr.tree_base_latency_us + 2 * ((d - 1) * pr.tree_nvlink_step_us + levels * (
                pr.tree_net_step_us + hop_us))
            transfer = S / (algbw * pr.tree_bw_factor * 1e3)
            extra = _fill(alg.ring_fill_us_per_step * 2 * (d - 1 + levels), transfer) if pr.name == "Simple" else 0.0
            cand[pr.name] = lat + transfer + extra
        curves["tree"] = AlgorithmCurve("tree", *_best_protocol(cand))

    # ---- NVLink SHARP --------------------------------------------------------------------
    nvls_ok = lk.nvls_efficiency is not None and d > 1

    def nvls_ar(k: int) -> float:
        """NVLS all-reduce algbw of a domain holding k ranks (a lone rank needs no NVLink step)."""
        return nvl * lk.nvls_efficiency * k / (k + 1) if k > 1 else math.inf

    nvls_algbw_ar = min(nvls_ar(k) for k in domain_sizes) if nvls_ok else 0.0
    if want("nvls") and op in ("all-reduce", "reduce-scatter", "all-gather"):
        if not nvls_ok:
            if algorithms is not None and lk.nvls_efficiency is None:
                notes.append("nvls needs NVSwitch generation 3 or later (Hopper+) in an NVLink domain")
        elif op == "all-reduce":
            lat = alg.nvls_nvlink_latency_us
            algbw = nvls_algbw_ar
            if m > 1:  # NVLS-tree: NVLS inside the domain, a tree between domains
                levels = math.ceil(math.log2(m))
                lat += 2 * levels * (alg.nvls_tree_net_latency_us + hop_us)
                algbw = min(algbw, 0.5 * egress * c_ring)
            transfer = S / (algbw * 1e3)
            t = lat + transfer + _fill(alg.nvls_fill_us, transfer)
            curves["nvls"] = AlgorithmCurve("nvls", t, np.full(S.shape, "Simple", dtype=object))
        elif m == 1:  # NVLS reduce-scatter / all-gather inside one domain: send (or receive) S once
            algbw = nvl * lk.nvls_efficiency
            transfer = S / (algbw * 1e3)
            t = alg.nvls_nvlink_latency_us + transfer + _fill(alg.nvls_fill_us, transfer)
            curves["nvls"] = AlgorithmCurve("nvls", t, np.full(S.shape, "Simple", dtype=object))

    # ---- InfiniBand SHARP (CollNet) --------------------------------------------------------
    if op == "all-reduce" and want("sharp"):
        if lk.sharp is None or m < 2:
            if algorithms is not None:
                notes.append("sharp needs an InfiniBand switch with SHARP and a job spanning NVLink domains")
        else:
            if nvls_ok:
                intra, lat = nvls_algbw_ar, alg.nvls_nvlink_latency_us
            else:  # chain reduce up to the NIC rank and broadcast back over NVLink, per domain
                intra = min((nvl * k / (2 * (k - 1)) if k > 1 else math.inf) for k in domain_sizes)
                lat = 2 * (alg.collnet_nvlink_latency_us * min(1, d - 1) + (d - 1) * 0.4)
            lat += alg.collnet_net_latency_us + 2 * hop_us
            # each domain sends the array up once and receives it once; reductions shrink traffic
            # at every switch level, so leaf/spine oversubscription does not apply. NCCL applies
            # its CollNet efficiency only on compute capability >= 9.0 (tuning.cc).
            eff = alg.collnet_efficiency if lk.compute_capability >= alg.collnet_efficiency_min_compute_capability else 1.0
            algbw = min(intra, egress * eff)
            transfer = S / (algbw * 1e3)
            t = lat + transfer + _fill(alg.nvls_fill_us, transfer)
            curves["sharp"] = AlgorithmCurve("sharp", t, np.full(S.shape, "Simple", dtype=object))

    # ---- hierarchical -----------------------------------------------------------------------
    if op in ("all-reduce", "reduce-scatter", "all-gather") and want("hierarchical") and m > 1 and d > 1:
        phases = 2 if op == "all-reduce" else 1  # intra phases: RS + AG, or one of them
        inter_steps = 2 * (m - 1) if op == "all-reduce" else m - 1
        inter_ratio = 2 * (m - 1) / m if op == "all-reduce" else (m - 1) / m
        rail = nic * c_ring
        cand = {}
        for pr in protos:
            intra_lat = phases * (pr.ring_base_latency_us + (d - 1) * pr.ring_nvlink_step_us)
            inter_lat = pr.ring_base_latency_us + inter_steps * (pr.ring_net_step_us + hop_us)
            intra_t = phases * (d - 1) / d * S / (nvl * pr.ring_bw_factor * 1e3)
            # the emptiest domain splits the array over only d_min rails
            inter_t = inter_ratio * (S / d_min) / (rail * pr.ring_bw_factor * 1e3)
            t = intra_lat + inter_lat + intra_t + inter_t
            if pr.name == "Simple":
                t = t + _fill(alg.ring_fill_us_per_step * phases * (d - 1), intra_t) + _fill(
                    alg.ring_fill_us_per_step * inter_steps, inter_t)
            cand[pr.name] = t
        curves["hierarchical"] = AlgorithmCurve("hierarchical", *_best_protocol(cand))

    # ---- all-to-all ---------------------------------------------------------------------------
    if op == "all-to-all" and want("direct"):
        lat = alg.alltoall_base_latency_us + (n - 1) * alg.alltoall_peer_latency_us + (hop_us if m > 1 else 0.0)
        t_nvl = S * (d - 1) / n / (nvl * 1e3) if d > 1 else 0.0 * S
        # the worst rank has the fewest NVLink peers: it sends (and receives) (n - d_min)/n of S on its NIC
        t_net = S * (n - d_min) / n / (nic * c_uni * 1e3) if m > 1 else 0.0 * S
        t = lat + np.maximum(t_nvl, t_net)
        curves["direct"] = AlgorithmCurve("direct", t, np.full(S.shape, "Simple", dtype=object))

    if not curves:
        raise InputError(
            f"none of the algorithms {', '.join(algorithms or ())} applies to {op} on this design"
        )
    return Sweep(op, n, p, S, curves, notes)


_ALGORITHM_OPS = {
    "ring": ("all-reduce", "reduce-scatter", "all-gather", "broadcast"),
    "tree": ("all-reduce",),
    "nvls": ("all-reduce", "reduce-scatter", "all-gather"),
    "sharp": ("all-reduce",),
    "hierarchical": ("all-reduce", "reduce-scatter", "all-gather"),
    "direct": ("all-to-all",),
}


def _check_algorithm(plan: Plan, op: str, algorithm: str, gpus: int | None) -> None:
    """Say why a forced algorithm cannot run.

    ``InputError`` when the algorithm does not implement ``op`` at all (a bad request);
    ``DesignError`` when the hardware or the job's placement rules it out (the design
    cannot do it; the message names what would).
    """
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    if op not in _ALGORITHM_OPS[algorithm]:
        raise InputError(f"{algorithm} does not implement {op}; it applies to {', '.join(_ALGORITHM_OPS[algorithm])}")
    c = load_constants()
    r = plan.resolved
    p = place(plan, gpus)
    if algorithm == "nvls":
        if r.nvlink_domain_gpus <= 1 or r.system.nvswitch_generation < 3:
            raise DesignError(
                f"nvls (NVLink SHARP) needs NVSwitch generation 3 or later (Hopper and newer); {r.system.id} has "
                + (f"NVSwitch generation {r.system.nvswitch_generation}." if r.system.nvswitch_generation
                   else "no NVSwitch."),
                "Use ring or tree, or an H100/H200/B200/GB200-class system.")
        if p.ranks_per_domain < 2:
            raise DesignError("nvls needs at least 2 ranks of the communicator in one NVLink domain.",
                              "Use a communicator with neighbouring GPUs (stride 1).")
        if op != "all-reduce" and p.domains > 1:
            raise DesignError(f"nvls {op} runs inside one NVLink domain; this job spans {p.domains} domains.",
                              f"Use at most {p.ranks_per_domain} GPUs, or ring or hierarchical.")
    elif algorithm == "sharp":
        if r.fabric != "infiniband":
            raise DesignError("sharp (in-network reduction) needs InfiniBand switches with SHARP; this design's "
                              "fabric is Ethernet, whose switches do not reduce.",
                              "Use --fabric infiniband with a Quantum switch (QM8700, QM9700, Q3400), or ring/tree.")
        entry = c.sharp_entry(r.switch.id)
        if entry is None:
            raise DesignError(f"sharp needs InfiniBand switches with SHARP; {r.switch.id} has none in the catalog.",
                              "Use a Quantum switch (QM8700, QM9700, Q3400), or ring/tree.")
        if not entry.nccl_collnet:
            raise DesignError(f"{r.switch.id} has {entry.version}, which NCCL cannot use: NCCL's SHARP plugin needs "
                              "Quantum HDR switches and ConnectX-6 or later (streaming aggregation).",
                              "Use a Quantum switch (QM8700, QM9700, Q3400), or ring/tree.")
        if p.domains < 2:
            raise DesignError("sharp reduces between NVLink domains; this job fits in one domain.",
                              f"Use more than {p.ranks_per_domain} GPUs, or nvls/ring inside the domain.")
    elif algorithm == "hierarchical" and (p.domains < 2 or p.ranks_per_domain < 2):
        raise DesignError("hierarchical needs a job spanning NVLink domains with at least 2 ranks in each.",
                          "Use ring or tree for this job.")


def collective(plan: Plan, op: str, size, gpus: int | None = None, algorithm: str | None = None) -> dict:
    """One prediction as plain data: op, algorithm, protocol, bytes, time_us, algbw_gbytes, busbw_gbytes.

    ``algorithm`` forces one algorithm; by default the fastest is chosen.
    """
    nbytes = parse_size(size)
    _check_op(op)
    if algorithm is not None:
        _check_algorithm(plan, op, algorithm, gpus)
    result = sweep(plan, op, [nbytes], gpus=gpus, algorithms=(algorithm,) if algorithm else None)
    if algorithm and algorithm not in result.curves:  # pragma: no cover - _check_algorithm covers every case
        raise InputError(f"algorithm {algorithm!r} does not apply to {op} on this design")
    t, a, pr = result.best()
    p = result.placement
    all_times = {name: round(float(curve.time_us[0]), 3) for name, curve in result.curves.items()}
    return {
        "op": op,
        "algorithm": str(a[0]),
        "protocol": str(pr[0]),
        "bytes": nbytes,
        "gpus": result.n,
        "cluster_gpus": plan.resolved.gpus,
        "time_us": round(float(t[0]), 3),
        "algbw_gbytes": round(float(result.algbw(t)[0]), 3),
        "busbw_gbytes": round(float(result.busbw(t)[0]), 3),
        "in_network": str(a[0]) in IN_NETWORK,
        "algorithms_time_us": all_times,
        "placement": {
            "gpus_per_nvlink_domain": p.ranks_per_domain, "gpus_in_last_nvlink_domain": p.last,
            "nvlink_domains": p.domains, "nodes": p.nodes,
            "leaf_groups": p.groups, "pods": p.pods, "fabric_level": p.level, "switch_hops": p.hops,
        },
        "bottleneck_line_gbytes": round(bottleneck_line_gbytes(plan, p), 3),
    }
