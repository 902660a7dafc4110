"""Collective communication on a planned cluster: a latency-bandwidth model of NCCL.

For a job of ``n`` GPUs placed on a ``Plan`` this predicts, per message size, the
time of all-reduce, reduce-scatter, all-gather, all-to-all and broadcast under each
algorithm the hardware supports, and which one is fastest. By default the candidates are
what a stock NCCL run chooses from (``NCCL_DEFAULT``; NCCL 2.30.7 src/graph/tuning.cc
enables every algorithm except CollNet, which needs ``NCCL_COLLNET_ENABLE``, and NVLS-tree
on a single node; PAT only with one rank per node):

* ``ring``: NCCL's ring, pipelined over all ranks; crosses the fabric at NVLink-domain
  boundaries.
* ``tree``: NCCL's double binary tree between NVLink domains, a chain inside. The busiest
  domain sends the array once per tree neighbour over 2 (NCCL's own trees, src/graph/trees.cc):
  algbw up to the domain's NICs on 2 domains (root of one tree, leaf of the other), 2/3 of them on
  3, half from 4 on. Capped at NCCL's per-channel tree bandwidth x one channel per NIC (tuning.cc
  perChMaxTreeBws of the modelled release). Beyond 2 domains NCCL's tuner rates the ring faster
  at large sizes (its tree ratio .5 x .92 against the ring's n/2(n-1)), so the tree is NCCL's
  choice only where its latency wins, although forced (NCCL_ALGO=TREE) it is faster on 3 domains
  (NVIDIA/nccl#1801); ``Sweep.best`` follows NCCL's choice, the curve is the forced tree.
* ``nvls``: NVLink SHARP (multimem reductions in the NVSwitch; Hopper and later). Across
  domains it becomes NCCL's NVLS-tree (NVLS inside, the tree above between domains).
  Domains of more than 8 ranks (multi-node NVLink, NVL72) use a lower efficiency fitted to
  a full NVL72 rack, and the pipeline fill grows as sqrt(k/8).
* ``pat``: NCCL's PAT reduce-scatter / all-gather when each node holds one rank.
* ``direct``: all-to-all as pairwise sends (with PXN, so traffic stays on its rail).

Only when asked for (``sharp=True`` or ``algorithms=``):

* ``sharp``: InfiniBand SHARP in-network reduction (NCCL CollNet) between domains,
  NVLink (NVLS where available) inside; only on InfiniBand switches that support it, and
  in practice only with the SHARP plugin installed and ``NCCL_COLLNET_ENABLE=1``.
* ``hierarchical``: reduce-scatter inside the NVLink domain, a ring across domains
  on each rail, all-gather inside (not an NCCL algorithm; frameworks build it from calls).

The NCCL release is a model input (``nccl_version``; default the current stock release,
``[nccl] default_version`` in collectives.toml): it selects the release's per-channel tuning
caps, and before 2.30.3 NVLS-tree on Blackwell across 4 or more NVLink domains is left out (it ran
far below the ring there, NVIDIA/nccl#2035; its speed is not modelled), so such a job is
predicted with ring or tree.

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
Ring traffic crosses leaf or pod uplinks only on the few edges that join neighbouring groups
(NCCL orders ranks by node): "ring" contention. Tree and NVLS-tree traffic follows NCCL's double
binary tree, whose edges join domains 1, 2, 4, ... apart, on 4 flows per port: "tree" contention
(``core.perf.placement.tree_crossing``). All-to-all spreads over every node: "uniform"
contention. Routing and ECMP hash collisions as ``core.perf.congestion`` models them.

Known gaps (tests/test_collectives_golden.py pins them): single-node all-reduce at 1-64 MB
stays optimistic even with NCCL's LL cap (llMaxBws): A100 +41% at 1 MB, +50% at 16 MB,
+18% at 64 MB (Azure ND A100 v4); H200 and GB200 (4 GPUs) +24% at 1 MB; H100 +24% at
64 KB. Two NVL72 racks over InfiniBand (NVLS-tree) +31% at 512 MB to +15% at 2 GB (within 10%
from 4 GB). Twenty NVL72 racks (coreweave/nccl-tests#48, NCCL 2.26.2): the measured curve is a
ring (its ~4.4-5.4 ms fixed cost is the ring's step latency in NCCL's own model); with NVLS-tree
left out for that release (the run also set NCCL_NVLS_ENABLE=0) the model predicts the tree (+46%
at 16 GB to +235% at 512 MB). Why NCCL chose the ring is not settled: its 2.26.2 source neither
disables the tree across multi-node NVLink cliques nor counts hosts as nodes (20 nodes); its
tuner would pick the ring only if its topology search gave the tree graph well under a third
of the ring graph's bandwidth, which needs the run's topology to check (test docstring). The
ring alone is -3% to +40%. Large messages inside one NVLink domain, 2-4 node H100, A100 and B200
jobs, 3 GB200 partitions and 2 NVL72 racks from 4 GB are within 15%.

Other libraries: a system's ``collective_library`` (RCCL, HCCL, Gaudi's HCCL) selects its own algorithm set
and constants (``[[library]]`` in collectives.toml; ``core.perf.constants.for_library``) over the same
placement and contention model; ``Sweep.validated`` says whether published measurements back that library on
the placement, and ``validation_badge`` words it for the pages.

Units: sizes in bytes, time in microseconds [us], bandwidth in GB/s (1e9 bytes/s),
one direction.
"""

from __future__ import annotations

import contextvars
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd

from core import units
from core.errors import DesignError, InputError, shown
from core.i18n import N_, _
from core.i18n import current as current_language
from core.fabric.families import node_to_node, words
from core.memo import spoken, stage, text_bytes, view
from core.perf.calibration import calibration_label
from core.perf.algorithms import (NCCL_DEFAULT, REGISTRY, AlgorithmCurve, SweepContext, algorithm_label,
                                  library_default)
from core.perf.constants import (CollectiveConstants, ReferencePoint, constants_for, library_label, load_constants,
                                 nccl_version_of, parse_nccl_version)
from core.perf.placement import (Links, Placement, bottleneck_line_gbytes, bottleneck_nics, contention, fabric_bound, level_label, links, place,
                                 sharp_absent, sharp_case, spans_level2)
from core.perf.sizes import format_size, parse_size, size_sweep
from core.plan import Plan

Op = Literal["all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast"]
OPS: tuple[str, ...] = ("all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast")
ALGORITHMS: tuple[str, ...] = tuple(REGISTRY)
IN_NETWORK: frozenset[str] = frozenset({"nvls", "sharp"})
SHARP_REQUIREMENT = N_("InfiniBand SHARP (NCCL CollNet) needs the SHARP plugin (nccl-rdma-sharp-plugins or HPC-X), "
                       "NCCL_COLLNET_ENABLE=1 and Quantum HDR or later switches with SHARP enabled; stock NCCL does "
                       "not use it.")
"""Why ``sharp`` is off by default (translate with ``_()`` where shown)."""

__all__ = [
    "ALGORITHMS", "IN_NETWORK", "NCCL_DEFAULT", "OPS", "AlgorithmCurve", "CollectiveConstants", "Placement", "ReferencePoint",
    "SHARP_REQUIREMENT", "Sweep", "algorithm_label", "validation_badge", "bottleneck_line_gbytes", "bus_factor", "collective", "format_size", "level_label",
    "links", "load_constants", "nccl_release", "nccl_release_scope", "parse_size", "place", "set_nccl_release", "sharp_absent", "sharp_available",
    "size_sweep",
    "sweep",
]


_NCCL_RELEASE: contextvars.ContextVar[str | None] = contextvars.ContextVar("fp_nccl_release", default=None)


@contextmanager
def nccl_release(version: str | None):
    """Within the block, ``sweep`` (and so training estimates, which call it) models NCCL ``version``
    unless a call names its own; None = the catalog default. ``InputError`` for an unknown release."""
    if version is not None:
        nccl_version_of(version, load_constants())  # fail early, with the message
    token = _NCCL_RELEASE.set(version)
    try:
        yield version
    finally:
        _NCCL_RELEASE.reset(token)


@contextmanager
def nccl_release_scope():
    """A block within which ``set_nccl_release`` may set the modelled release (restored on exit); for a
    script that learns the release part-way through, such as a page reading its widget."""
    token = _NCCL_RELEASE.set(_NCCL_RELEASE.get())
    try:
        yield
    finally:
        _NCCL_RELEASE.reset(token)


def set_nccl_release(version: str | None) -> None:
    """Model NCCL ``version`` for the rest of the enclosing ``nccl_release_scope`` (None = the default)."""
    if version is not None:
        nccl_version_of(version, load_constants())
    _NCCL_RELEASE.set(version)


def nccl_release_now() -> str | None:
    """The NCCL release modelled here (``nccl_release``, ``set_nccl_release``; None = the catalog default)."""
    return _NCCL_RELEASE.get()


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
        raise InputError(_("unknown collective {op}; known: {known}").format(op=shown(op), known=", ".join(OPS)))




@dataclass
class Sweep:
    """Predictions for one collective over a range of message sizes."""

    op: str
    n: int
    placement: Placement
    sizes: np.ndarray
    curves: dict[str, AlgorithmCurve]
    notes: list[str] = field(default_factory=list)
    sharp: bool = False
    """InfiniBand SHARP was among the candidates: asked for (``sweep(..., sharp=True)``) and offered by the fabric's
    switches (``core.perf.placement.sharp_case``)."""
    nccl_version: str = ""
    """The NCCL release modelled, e.g. ``"2.30.7"``."""
    library: str = "nccl"
    """The collective library modelled (the system's ``collective_library``)."""
    validated: bool = True
    """Published measurements back this library on this placement (``validation_badge`` says so when not)."""

    @property
    def factor(self) -> float:
        return bus_factor(self.op, self.n)

    def best(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(time_us, algorithm, protocol) of NCCL's choice at each size: the fastest algorithm among those
        NCCL's tuner would consider there (``AlgorithmCurve.nccl_picks``: NCCL prefers the ring to the
        tree at some sizes even where the tree is faster; only when the ring is a candidate)."""
        names = list(self.curves)
        ring = "ring" in self.curves
        stack = np.vstack([self.curves[a].time_us if self.curves[a].nccl_picks is None or not ring
                           else np.where(self.curves[a].nccl_picks, self.curves[a].time_us, np.inf)
                           for a in names])
        idx = np.argmin(stack, axis=0)
        cols = np.arange(stack.shape[1])
        protos = np.vstack([self.curves[a].protocol for a in names])
        times = np.vstack([self.curves[a].time_us for a in names])
        return times[idx, cols], np.array(names, dtype=object)[idx], protos[idx, cols]

    def algbw(self, time_us: np.ndarray) -> np.ndarray:
        """algbw = S / t [GB/s]."""
        return self.sizes / (time_us * 1e-6) / 1e9

    def busbw(self, time_us: np.ndarray) -> np.ndarray:
        return self.algbw(time_us) * self.factor

    def frame(self) -> pd.DataFrame:
        """Long table: one row per size and algorithm, plus ``fastest``."""
        best_t, best_a, _protocols = self.best()
        rows = []
        for name, curve in self.curves.items():
            rows.append(pd.DataFrame({
                "op": self.op, "gpus": self.n, "bytes": self.sizes, "algorithm": name,
                "protocol": curve.protocol, "time_us": curve.time_us,
                "algbw_gbytes": self.algbw(curve.time_us), "busbw_gbytes": self.busbw(curve.time_us),
                "fastest": best_a == name,
            }))
        return pd.concat(rows, ignore_index=True)


def sweep(
    plan: Plan,
    op: str,
    sizes,
    gpus: int | None = None,
    stride: int = 1,
    algorithms: tuple[str, ...] | None = None,
    constants: CollectiveConstants | None = None,
    sharp: bool = False,
    nccl_version: str | None = None,
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
        Restrict to these algorithms (those the hardware lacks are skipped). Default: what a
        stock NCCL run chooses from (``NCCL_DEFAULT``: ring, tree, NVLS / NVLS-tree, PAT,
        pairwise all-to-all), plus ``sharp`` when ``sharp`` is set.
    sharp : bool
        Also consider InfiniBand SHARP (NCCL CollNet). Off by default: NCCL uses it only with
        the SHARP plugin (nccl-rdma-sharp-plugins / HPC-X) installed and NCCL_COLLNET_ENABLE=1,
        on Quantum HDR or later switches with SHARP enabled (aggregation manager running).
    nccl_version : str, optional
        The NCCL release to model (``"2.26.2"``; default: the current stock release,
        ``nccl.default_version`` in collectives.toml). It selects the release's per-channel tuning
        caps (tree, NVLS-tree) and, before 2.30.3, leaves out NVLS-tree on Blackwell across 4 or
        more NVLink domains (slow there, NVIDIA/nccl#2035). ``InputError`` for an unknown release.
        None: the release set by an enclosing ``nccl_release(...)`` block, else the default.

    Returns
    -------
    Sweep
        Per-algorithm times; ``best()`` gives the fastest per size.
    """
    _check_op(op)
    S = _checked_sizes(sizes)
    lib, wanted, p, lk, shares, args = _sweep_context(plan, op, tuple(S.tolist()), gpus, stride, algorithms, constants,
                                                      sharp, nccl_version)
    r = plan.resolved
    notes: list[str] = []
    if constants is None and plan.design.calibration:  # the design's own calibration corrects the constants
        notes.append(calibration_label(plan.design))
    if spans_level2(plan, p):  # core.fabric.domainlevels: the second NVLink level's bandwidth, no NVLS across it
        notes.append(_("The ranks of one NVLink domain span {racks} first-level domains of {level1} GPUs: their "
                           "NVLink traffic crosses the second NVSwitch level at {gbytes} GB/s per GPU per direction; "
                           "NVLS (NVLink SHARP) across the second level is not modelled (NVIDIA published no figure).")
                         .format(racks=-(-p.ranks_per_domain * p.stride // r.nvlink_rack_gpus),
                                 level1=r.nvlink_rack_gpus, gbytes=f"{lk.nvlink_line:,.0f}"))
    if node_to_node(plan.fabric.family) and p.nodes > 1:  # say what the torus's share is
        uniform = shares[1] if shares[1] is not None else contention(plan, p, "uniform")
        notes.append(_("Torus: between nodes, all-reduce runs as NCCL-like rings per dimension (reduce-scatter "
                           "then all-gather, dimension by dimension, both ways round each ring) on that dimension's "
                           "links only, and all-to-all is bounded by the cut of the job's block; a node keeps "
                           "{ring} of its cabled NIC ports' bandwidth for rings, {uniform} for all-to-all.").format(
            ring=units.percent(shares[0]), uniform=units.percent(uniform)))
    if p.level == "global" and plan.fabric.pod_count == 2:  # a Dragonfly of two groups: Valiant is minimal
        notes.append(words(plan.fabric.family, "note:global_share:two", N_(
            "{family}: traffic between groups crosses the global links, at the groups' injection over their global "
            "bandwidth ({ratio}); with two groups Valiant (non-minimal) routing has no third group to pass through, "
            "so it takes the same one global hop and keeps that share.")).format(
            ratio=units.ratio(plan.bandwidth.spine_oversubscription), family=p.family))
    elif p.level == "global":  # a Dragonfly: say which routing the global links' share assumes
        notes.append(words(plan.fabric.family, "note:global_share", N_(
            "{family}: traffic between groups crosses the global links under minimal routing, at the groups' "
            "injection over their global bandwidth ({ratio}); Valiant (non-minimal) routing, which adaptive routers "
            "use against adversarial patterns, takes two global hops and would halve that share.")).format(
            ratio=units.ratio(plan.bandwidth.spine_oversubscription), family=p.family))
    curves, found = _curves(*args)
    notes += found
    if not curves:
        raise _none_applies(algorithms, op)
    version = args[10]
    return Sweep(op, p.n, p, S, dict(curves), notes, sharp="sharp" in wanted and lk.sharp is not None,
                 nccl_version=".".join(str(x) for x in version), library=lib.name,
                 validated=lib.validated == "all" or (lib.validated == "single-domain" and p.domains == 1))


def _checked_sizes(sizes) -> np.ndarray:
    """``sizes`` [bytes] as a 1-d float array; ``InputError`` unless each is finite and at least 1 byte."""
    S = np.asarray(sizes, dtype=float)
    if S.ndim == 0:
        S = S.reshape(1)
    if S.size == 0 or not np.all(np.isfinite(S)) or np.any(S < 1):
        raise InputError(_("message sizes must be finite and at least 1 byte"))
    return S


@lru_cache(maxsize=64)
def _checked_size(size: float) -> float:
    """One message size [bytes] as ``_checked_sizes`` checks it, as a float (a pure function of a number)."""
    return float(_checked_sizes([size])[0])


def _none_applies(algorithms: tuple[str, ...] | None, op: str) -> InputError:
    """The error of a sweep none of whose ``algorithms`` applies to ``op``."""
    return InputError(_("none of the algorithms {algorithms} applies to {op} on this design").format(
        algorithms=", ".join(algorithm_label(a) for a in algorithms or ()), op=op))


def _sweep_context(plan: Plan, op: str, sizes: tuple[float, ...], gpus: int | None, stride: int,
                   algorithms: tuple[str, ...] | None, constants: CollectiveConstants | None, sharp: bool,
                   nccl_version: str | None) -> tuple:
    """What ``sweep`` computes its curves from (its parameters; ``sizes`` [bytes] already checked): the collective
    library's entry, the algorithms wanted, the placement (``place``), its links (``links``), the shares of the NIC
    bandwidth kept against ring, uniform and tree contention (the uniform one None unless an algorithm wanted for
    ``op`` spreads its traffic, ``_TRAFFIC``: none reads it), and ``_curves``' arguments."""
    c = constants or constants_for(plan)
    if algorithms is not None:
        unknown = [a for a in algorithms if a not in ALGORITHMS]
        if unknown:
            raise InputError(_("unknown algorithm {algorithm}; known: {known}").format(
                algorithm=shown(unknown[0]), known=", ".join(ALGORITHMS)))
    lib = c.library_entry()
    nccl = lib.name == "nccl"
    wanted = (set(algorithms) if algorithms is not None
              else set(library_default(lib)) | ({"sharp"} if sharp and nccl else set()))
    version = nccl_version_of(nccl_version if nccl_version is not None else _NCCL_RELEASE.get(), c)
    p = place(plan, gpus, stride)
    r = plan.resolved
    nic_ports = r.nics_per_node * r.planes / max(1, r.gpus_per_node) * p.min_ranks_per_domain
    # Ring traffic moves between neighbouring domains on the same rail: NCCL orders ranks by
    # node, so only the few edges that join one leaf group (or pod) to the next cross the
    # uplinks -> "ring" contention. Tree and NVLS-tree follow NCCL's double binary tree (edges
    # 1, 2, 4, ... domains apart, 4 flows per port) -> "tree" contention. All-to-all spreads traffic over every
    # other node -> "uniform" contention. Both assume ideal rank placement and no ECMP
    # hash collisions, so oversubscription mostly shows in all-to-all (MoE) traffic.
    lk = links(plan, c, p)
    spread = any(_TRAFFIC.get(a) == "uniform" for a in wanted if op in REGISTRY[a].ops)
    shares = (contention(plan, p, "ring"), contention(plan, p, "uniform") if spread else None,
              contention(plan, p, "tree"))
    args = (op, sizes, CurvePlacement.of(p), lk, c, *shares, algorithms is not None, nic_ports, version,
            frozenset(wanted), current_language())
    return lib, wanted, p, lk, shares, args


CurvePlacement = view("CurvePlacement", "n ranks_per_domain domains last min_ranks_per_domain hops")
"""What the algorithms' curves read of a ``Placement`` (``core.perf.algorithms.SweepContext``: the ranks, their
domains, the last domain's ranks and the hops; ``core.memo.view``), the key of ``_curves``: placements that differ
only in their leaf groups and pods (which the contention shares already hold) share one computation."""


def busbw_at(plan: Plan, op: str, size: int) -> float:
    """The busbw [GB/s, nccl-tests convention, one direction] of ``op`` over every GPU of ``plan`` at ``size``
    bytes with NCCL's choice of algorithm: ``sweep(plan, op, [size])``'s ``busbw(best()[0])[0]``, the same
    number to the bit, without building the sweep (its notes, its frame arrays): the optimizer asks it of every
    candidate."""
    _check_op(op)
    bytes_ = _checked_size(size)
    _lib, _wanted, p, _lk, _shares, args = _sweep_context(plan, op, (bytes_,), None, 1, None, None, False, None)
    curves, _notes = _curves(*args)
    if not curves:
        raise _none_applies(None, op)
    ring = any(name == "ring" for name, _curve in curves)
    best_masked, best_time = None, None
    for _name, curve in curves:  # Sweep.best at one size: the first fastest of the algorithms NCCL would pick
        time_us = float(curve.time_us[0])
        masked = time_us if curve.nccl_picks is None or not ring or curve.nccl_picks[0] else math.inf
        if best_masked is None or masked < best_masked:
            best_masked, best_time = masked, time_us
    return bytes_ / (best_time * 1e-6) / 1e9 * bus_factor(op, p.n)


def validation_badge(sweeps) -> str | None:
    """The "not validated" badge for ``sweeps`` (one ``Sweep`` or several) in the request's language, or None when
    published measurements back every one (the library's ``validated`` scope in collectives.toml)."""
    items = [sweeps] if isinstance(sweeps, Sweep) else list(sweeps)
    unbacked = [s for s in items if not s.validated]
    if not unbacked:
        return None
    label = library_label(unbacked[0].library)
    return _("Not validated: no published {library} measurement backs this prediction on this placement; it follows "
             "{library}'s published algorithms, with the constants the catalog marks as assumptions.").format(
        library=label)


def _curves_bytes(found: tuple[tuple, tuple[str, ...]]) -> int:
    """Upper bound of the memory of some algorithms' curves and notes [bytes]: 1 kB and its arrays' data per
    curve (``tests/test_memo.py``)."""
    curves, notes = found
    return 1024 + sum(1024 + sum(a.nbytes for a in (c.time_us, c.protocol, c.nccl_picks) if a is not None)
                      for _name, c in curves) + text_bytes(notes)


@stage(0.05, _curves_bytes)
def _curves(op: str, sizes: tuple[float, ...], placement: CurvePlacement, links_: Links,
            constants: CollectiveConstants, ring_share: float, uniform_share: float | None, tree_share: float,
            forced: bool, nic_ports: float, nccl_version: tuple[int, int, int], wanted: frozenset[str],
            language: str) -> tuple[tuple, tuple[str, ...]]:
    """The curves of the algorithms ``wanted`` that apply to ``op`` (name, ``AlgorithmCurve`` pairs) and the notes
    they add (in ``language``), from the sweep context of these arguments (``SweepContext``; what the curves read of
    the placement, ``CurvePlacement``; sizes [bytes], shares of the NIC bandwidth kept against contention, the
    uniform one None where no algorithm reads it, NIC ports of the emptiest domain). Cached by them
    (``core.memo.stage``): plans that differ but place the ranks alike share one computation (the optimizer's
    candidates); the curves are shared, not copied, so no caller may change them."""
    with spoken(language):
        ctx = SweepContext(op=op, sizes=np.array(sizes, dtype=float), placement=placement, links=links_,
                           constants=constants, protocols=constants.protocols(), ring_share=ring_share,
                           uniform_share=uniform_share, tree_share=tree_share, forced=forced, nic_ports=nic_ports,
                           nccl_version=nccl_version)
        curves = []
        for name, algorithm in REGISTRY.items():
            if op not in algorithm.ops or name not in wanted:
                continue
            curve = algorithm.fn(ctx)
            if curve is not None:
                for array in (curve.time_us, curve.protocol, curve.nccl_picks):
                    if array is not None:
                        array.flags.writeable = False  # shared by every sweep of these arguments
                curves.append((name, curve))
    return tuple(curves), tuple(ctx.notes)


def sharp_available(plan: Plan, gpus: int | None = None, stride: int = 1) -> bool:
    """Whether ``sweep(..., sharp=True)`` can add SHARP here: InfiniBand switches whose SHARP NCCL
    can use (Quantum HDR or later) and a communicator spanning NVLink domains."""
    return links(plan).sharp is not None and place(plan, gpus, stride).domains > 1


def _check_algorithm(plan: Plan, op: str, algorithm: str, gpus: int | None, nccl_version: str | None = None) -> None:
    """Say why a forced algorithm cannot run.

    ``InputError`` when the algorithm does not implement ``op`` at all (a bad request);
    ``DesignError`` when the hardware or the job's placement rules it out (the design
    cannot do it; the message names what would).
    """
    if algorithm not in ALGORITHMS:
        raise InputError(_("unknown algorithm {algorithm}; known: {known}").format(
            algorithm=shown(algorithm), known=", ".join(ALGORITHMS)))
    if op not in REGISTRY[algorithm].ops:
        raise InputError(_("{algorithm} does not implement {op}; it applies to {ops}").format(
            algorithm=algorithm_label(algorithm), op=op, ops=", ".join(REGISTRY[algorithm].ops)))
    c = load_constants()
    r = plan.resolved
    p = place(plan, gpus)
    lib = c.library_entry(r.system.collective_library)
    allowed = set(library_default(lib)) | ({"sharp", "hierarchical"} if lib.name == "nccl" else set())
    if algorithm not in allowed:
        raise DesignError(_("{algorithm} is not an algorithm of {library}, the collective library of {system}.").format(
            algorithm=algorithm_label(algorithm), library=lib.label, system=r.system.id),
            _("Use one of {algorithms}.").format(algorithms=", ".join(
                algorithm_label(a) for a in REGISTRY if a in allowed and op in REGISTRY[a].ops)))
    quantum = _("Use a Quantum switch (QM8700, QM9700, Q3400), or ring/tree.")
    if algorithm == "nvls":
        if r.nvlink_domain_gpus <= 1 or r.system.nvswitch_generation < 3:
            raise DesignError(
                (_("NVLS (NVLink SHARP) needs NVSwitch generation 3 or later (Hopper and newer); {system} has "
                   "NVSwitch generation {generation}.") if r.system.nvswitch_generation else
                 _("NVLS (NVLink SHARP) needs NVSwitch generation 3 or later (Hopper and newer); {system} has "
                   "no NVSwitch.")).format(system=r.system.id, generation=r.system.nvswitch_generation),
                _("Use ring or tree, or an H100/H200/B200/GB200-class system."))
        if spans_level2(plan, p):
            raise DesignError(
                _("NVLS across the second NVLink level is not modelled: NVIDIA published no NVLink SHARP figure "
                  "across NVLink domains of two levels; this job's ranks span {racks} first-level domains.").format(
                    racks=-(-p.ranks_per_domain * p.stride // r.nvlink_rack_gpus)),
                _("Use at most {gpus} GPUs, or ring or tree.").format(gpus=r.nvlink_rack_gpus))
        if p.ranks_per_domain < 2:
            raise DesignError(_("NVLS needs at least 2 ranks of the communicator in one NVLink domain."),
                              _("Use a communicator with neighbouring GPUs (stride 1)."))
        if op != "all-reduce" and p.domains > 1:
            raise DesignError(
                _("NVLS {op} runs inside one NVLink domain; this job spans {domains} domains.").format(
                    op=op, domains=p.domains),
                _("Use at most {gpus} GPUs, or ring or hierarchical.").format(gpus=p.ranks_per_domain))
        version = nccl_version_of(nccl_version if nccl_version is not None else _NCCL_RELEASE.get(), c)
        fixed = parse_nccl_version(c.nccl.blackwell_nvls_tree_fixed)
        if (c.compute_capability(r.system.architecture) >= 10.0 and version < fixed
                and p.domains >= c.nccl.blackwell_nvls_tree_slow_domains):
            raise DesignError(
                _("NVLS-tree across {domains} NVLink domains on Blackwell was slow before NCCL {fixed} "
                  "(NVIDIA/nccl#2035); the model does not predict its speed in NCCL {version}.").format(
                    domains=p.domains, fixed=c.nccl.blackwell_nvls_tree_fixed,
                    version=".".join(str(x) for x in version)),
                _("Model NCCL {fixed} or later, or use ring or tree.").format(fixed=c.nccl.blackwell_nvls_tree_fixed))
    elif algorithm == "sharp":
        case = sharp_case(plan, c)  # the one rule of Links.sharp
        if case == "fabric":
            raise DesignError(_("sharp (in-network reduction) needs InfiniBand switches with SHARP; this design's "
                                "fabric is Ethernet, whose switches do not reduce."),
                              _("Use --fabric infiniband with a Quantum switch (QM8700, QM9700, Q3400), "
                                "or ring/tree."))
        if case == "switches":  # a torus: no switch to reduce in
            raise DesignError(_("sharp (in-network reduction) needs switches; this design's nodes are joined node "
                                "to node, without switches."), _("Use ring or tree, or a switched topology."))
        entry = c.sharp_entry(r.switch.id)
        if case == "catalog":
            raise DesignError(
                _("sharp needs InfiniBand switches with SHARP; {switch} has none in the catalog.").format(
                    switch=r.switch.id), quantum)
        if case == "nccl":
            raise DesignError(
                _("{switch} has {version}, which NCCL cannot use: NCCL's SHARP plugin needs Quantum HDR switches "
                  "and ConnectX-6 or later (streaming aggregation).").format(switch=r.switch.id,
                                                                             version=entry.version), quantum)
        if p.domains < 2:
            raise DesignError(_("sharp reduces between NVLink domains; this job fits in one domain."),
                              _("Use more than {gpus} GPUs, or NVLS/ring inside the domain.").format(
                                  gpus=p.ranks_per_domain))
    elif algorithm == "hierarchical" and (p.domains < 2 or p.ranks_per_domain < 2):
        raise DesignError(_("hierarchical needs a job spanning NVLink domains with at least 2 ranks in each."),
                          _("Use ring or tree for this job."))


_TRAFFIC = {"direct": "uniform", "tree": "tree", "nvls": "tree"}
"""The traffic pattern (``core.perf.placement.contention``) whose share an algorithm's fabric time uses
(``core.perf.algorithms``: all-to-all's ``uniform_share``, the trees' ``tree_share``); the others use the ring's.
Only an algorithm of the uniform pattern reads the uniform share (``_sweep_context`` computes it for those alone)."""


def collective(plan: Plan, op: str, size, gpus: int | None = None, algorithm: str | None = None,
               sharp: bool = False, nccl_version: str | None = None) -> dict:
    """One prediction as plain data: op, algorithm, protocol, bytes, time_us, algbw_gbytes, busbw_gbytes.

    ``algorithm`` forces one algorithm; by default the fastest of stock NCCL's is chosen, and
    ``sharp=True`` adds InfiniBand SHARP (CollNet; needs the SHARP plugin and
    NCCL_COLLNET_ENABLE=1, see ``sweep``); ``nccl_version`` the NCCL release modelled (``sweep``).
    ``notes`` are display sentences in the request's language (callers writing JSON drop them).
    ``fabric_bound``: the share of its NIC bandwidth a node keeps for the chosen algorithm's traffic and the level
    that keeps it (``core.perf.placement.fabric_bound``: ``nic`` when no switch tier or torus cut takes any).
    """
    nbytes = parse_size(size)
    _check_op(op)
    if algorithm is not None:
        _check_algorithm(plan, op, algorithm, gpus, nccl_version)
    result = sweep(plan, op, [nbytes], gpus=gpus, algorithms=(algorithm,) if algorithm else None, sharp=sharp,
                   nccl_version=nccl_version)
    if algorithm and algorithm not in result.curves:  # pragma: no cover - _check_algorithm covers every case
        raise InputError(_("algorithm {algorithm} does not apply to {op} on this design").format(
            algorithm=shown(algorithm), op=op))
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
        "sharp": result.sharp,  # considered only where the fabric's switches reduce (placement.sharp_case)
        "sharp_available": links(plan).sharp is not None and result.placement.domains > 1,
        "algorithms_time_us": all_times,
        "nccl_version": result.nccl_version,
        "collective_library": result.library,
        "validated": result.validated,
        "notes": list(result.notes),
        "placement": {
            "gpus_per_nvlink_domain": p.ranks_per_domain, "gpus_in_last_nvlink_domain": p.last,
            "nvlink_domains": p.domains, "nodes": p.nodes,
            "leaf_groups": p.groups, "pods": p.pods, "fabric_level": p.level, "switch_hops": p.hops,
        },
        "bottleneck_line_gbytes": round(bottleneck_line_gbytes(plan, p), 3),
        "bottleneck_nics": bottleneck_nics(plan, p),
        "fabric_bound": dict(zip(("share", "level"), fabric_bound(plan, p, _TRAFFIC.get(str(a[0]), "ring")))),
    }
