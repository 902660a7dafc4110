"""Overload and imbalance: a traffic pattern placed on the cluster, the load on every link and the
spread of per-GPU achievable bandwidth, under adaptive routing and under static ECMP hashing.

``link_load(plan, pattern, placement, ...)`` returns a ``LoadResult``. Patterns (one communicator
layout each; ranks as Megatron orders them, tensor parallel fastest):

* ``ring``: ring all-reduce of each data-parallel group (ranks ``stride`` apart, default the GPUs of a
  node: tensor parallel inside the node); every member sends to the next member.
* ``tree``: NCCL's double binary tree over the same groups (two trees, the second one the first
  mirrored; every tree edge carries traffic both ways, half the data per tree).
* ``alltoall``: all-to-all inside each expert-parallel group of ``group`` ranks ``stride`` apart (default 8
  ranks a node apart: tensor parallel inside the node, expert parallel across nodes, Megatron's order).
* ``pp``: pipeline send/recv between ``group`` stages (default 4) ``job / stages`` ranks apart, both ways
  (activations forward, gradients back).
* ``uniform``: a uniformly random permutation (each rank sends to one other random rank; seeded).
* ``adversarial``: every rank sends to the rank one group further (``group`` GPUs apart, the last group's to the
  first): by default a group is a Dragonfly (Dragonfly+) group or a three-tier pod, else a scalable unit (half the
  job when the job is one group or less). On a Dragonfly this is Kim et al.'s worst case (ISCA 2008, Section 4.2:
  every node of group i to group i + 1), all of a group's traffic on the few global links to its neighbour group
  under minimal routing.
* ``job``: the training job's mix: each fabric collective of ``core.perf.training.estimate`` as the
  pattern above (DP -> ring, PP -> pp, EP -> alltoall, CP -> ring), weighted by its bytes per step.

A ring, tree or all-to-all group given without a stride that the default spacing (a node apart) does not fit is
spaced one GPU apart: a group of every GPU is a ring or an all-to-all over every GPU.

Placements: ``node`` ranks fill nodes in order and every GPU sends on its own NIC (rail-unaware: a
flow between different rails crosses the spines of a rail-optimized fabric); ``rail`` the same packed
ranks with NCCL's rail-aligned routing (PXN, ``NCCL_PXN_DISABLE=0`` by default since NCCL 2.12: a flow
leaves the node on the NIC of the receiver's rail, after an NVLink hop); ``random`` the job's nodes
drawn at random from the cluster (a fragmented scheduler; seeded), rail-aligned. Pairs inside one
NVLink domain use NVLink and load no fabric link. Fabrics with rail islands (rail-only, per-rail
planes) have no path between rails, so they always route rail-aligned.

Load model (per direction; one plane is computed and the others, cabled alike, carry the same):
every GPU that has fabric peers offers its NIC share at line rate (``nics x planes x port / gpus per
node`` Gb/s, split evenly over the planes and over its fabric connections), so the result is the
saturated case a bandwidth-bound collective is in. Each connection is ``flows`` flows (NCCL's
channels: ``ring_flows_per_port`` for rings and trees, ``p2p_flows_per_peer`` for point-to-point and
all-to-all; ``assets/catalog/congestion.toml``).

* Adaptive routing spreads a leaf's (a pod's) upward traffic evenly over all its uplinks, and the
  traffic into a leaf evenly over the links into it (packet spraying; flows per link are not defined).
* Static ECMP hashes every flow onto one uplink at each tier (seeded uniform draws, one per flow
  and tier; the parallel link into the destination too): the balls-into-bins model of
  ``core.perf.congestion.ecmp_kept``, here per link rather than in expectation.
* A link offered ``D`` against capacity ``C`` passes the share ``min(1, e C / D)`` of every flow on it
  (``e`` = ``adaptive_efficiency``, 0.95, on switch-to-switch links, as ``congestion.tier_share``;
  1 on the NIC links); a flow gets the smallest share along its path (a feasible rate, at most the
  max-min fair one). As ``congestion.tier_share``, ECMP's share of a flow is never above adaptive
  routing's. A GPU's achievable bandwidth is the sum of its flows' rates over every plane [Gb/s, one
  direction].

Dragonfly+ (``core.fabric.dragonfly``) and Dragonfly (``core.fabric.classic_dragonfly``): their groups are the pods
and their global links a tier of their own (``global``; direction ``up`` from the lower-numbered group of a link's
pair, ``down`` the other way), read from the wiring (``bundle_arrays("global")``: between spines, between routers).
Routing between groups, stated in every result (``global_routing``):

* ``minimal``: a connection from group A to group B crosses one of the ``lam`` direct global links between them;
  adaptive routing spreads A->B traffic evenly over them, static ECMP hashes each flow onto one.
* ``valiant`` (non-minimal, Kim et al. 2008): through an intermediate group C, every other group alike (adaptive
  routing: the A->B traffic split evenly over the ``g - 2`` groups; static ECMP: each flow hashed onto one C and
  one link of each pair). Every connection crosses two global links, so the global tier carries about twice the
  minimal load under uniform traffic; a flow's share is the worst over the links its split can take. The
  intermediate group's leaf-spine links are not counted (the intermediate-spine route of Shpiner et al.).

A Dragonfly has no spine: its routers are the leaves (no leaf-spine tier) and its local links, one between every
two routers of a group, a tier of their own (``local``), loaded by ``core.analysis.loadlocal`` on the same routes
(inside a group the direct local link; between groups local, global, local; Valiant local, global, local in the
intermediate group, global, local).

Cost: arrays of one entry per flow (numpy), no graph: a ring on 131,072 GPUs is 262,144 flows;
``tests/test_load.py`` checks the loads against explicit shortest-path routing on
``core.fabric.topology.fabric_graph``.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from core import vocab  # ground floor: vocabularies
from core.analysis.failure import Shape
from core.errors import DesignError, InputError, shown
from core.analysis.torusload import DIRECTION_LABELS as TORUS_DIRECTION_LABELS, TIER_LABELS as TORUS_TIER_LABELS
from core.fabric.families import graph_model, load_notes, node_to_node, require_model, words
from core.fabric.wiring import Wiring
from core.i18n import N_, _
from core.perf import congestion
from core.plan import Plan
from core.units import percent

PATTERNS = ("ring", "tree", "alltoall", "pp", "uniform", "adversarial", "job")
PATTERN_LABELS = {"ring": N_("ring all-reduce (data parallel)"), "tree": N_("tree all-reduce (data parallel)"),
                  "alltoall": N_("all-to-all (expert parallel)"), "pp": N_("pipeline send/recv"),
                  "uniform": N_("uniform random pairs"), "adversarial": N_("adversarial (next group)"),
                  "job": N_("the training job's mix")}
PLACEMENTS = ("node", "rail", "random")
PLACEMENT_LABELS = {"node": N_("by node (each GPU on its own NIC)"), "rail": N_("rail-aligned (PXN)"),
                    "random": N_("random nodes, rail-aligned")}
TIERS = ("node_leaf", "leaf_spine", "spine_core", "local", "global")
TIER_LABELS = {"node_leaf": N_("node-leaf"), "leaf_spine": N_("leaf-spine"), "spine_core": N_("spine-core"),
               "local": N_("local"), "global": N_("global"), **TORUS_TIER_LABELS}


def tier_label(tier: str, family: str | None = None) -> str:
    """A load tier (``TIER_LABELS``) in words, translated: in the words of ``family`` (a ``FabricPlan.family``; its
    ``link:<class>`` words, ``core.fabric.families.words``, the tier's link class: a classic Dragonfly's node-router
    links, as its bill names them) where it has its own."""
    return words(family, "link:" + tier.replace("_", "-"), TIER_LABELS[tier])


def method_caption(family: str | None) -> str:
    """How the loads are computed, in a sentence under the link-load tables, translated: in the words of
    ``family`` (a ``FabricPlan.family``; its ``load:caption``, ``core.fabric.families.words``) where a folded Clos's
    uplinks and leaves are not its own."""
    return words(family, "load:caption", N_(
        "Loads are offered traffic over capacity with every GPU sending at its NIC line rate, one plane (the others "
        "are cabled alike). Adaptive routing spreads a group's traffic evenly over its uplinks; static ECMP hashes "
        "every flow onto one uplink per tier (seeded); a flow gets the smallest share along its path. This is where "
        "a placement or a 2:1 leaf leaves GPUs idle."))


GLOBAL_ROUTINGS = ("minimal", "valiant")
GLOBAL_ROUTING_LABELS = {"minimal": N_("minimal (direct global links)"),
                         "valiant": N_("Valiant (through an intermediate group)")}
DIRECTIONS = ("up", "down")
DIRECTION_LABELS = {"up": N_("up"), "down": N_("down"), **TORUS_DIRECTION_LABELS}
ROUTING_LABELS = {"ar": N_("adaptive routing"), "ecmp": N_("static ECMP")}
DEFAULT_ALLTOALL_GROUP = 8
"""Expert-parallel group [GPUs]; spaced a node apart by default (tensor parallel inside the node, Megatron)."""
DEFAULT_PP_STAGES = 4
MAX_FLOWS = 16_000_000
"""Most flows one computation samples (memory bound: about 8 bytes per flow and array)."""
HOT_LINKS = 10
HEAT_BLOCKS = 48
"""Most blocks (leaf groups or pods, binned) per tier in the heatmap data."""
HIST_BINS = 40


class Spread(BaseModel):
    """Per-GPU achievable bandwidth [Gb/s, one direction, all planes]."""

    model_config = ConfigDict(frozen=True)
    min: float
    median: float
    max: float
    mean: float


class TierLoad(BaseModel):
    """One tier and direction: utilisation = offered load / capacity of a link (above 1: overloaded)."""

    model_config = ConfigDict(frozen=True)
    tier: str
    direction: str
    links: int
    """Links of the tier in one plane."""
    link_gbps: float
    offered_gbps: float
    """Traffic offered to the tier in one plane [Gb/s]."""
    ar_max: float
    ar_mean: float
    ar_overloaded: int
    ecmp_max: float
    ecmp_mean: float
    ecmp_overloaded: int
    ecmp_max_flows: int
    ecmp_mean_flows: float
    """Flows per link over every link of the tier (ECMP)."""


class LoadResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    pattern: str
    placement: str
    job_gpus: int
    group: int
    seed: int
    routing: str
    """The design's routing class (``core.perf.congestion.fabric_class``)."""
    nic_gbps_per_gpu: float
    """Line rate per GPU [Gb/s, one direction, all planes]: the most a GPU can get."""
    gpus_on_fabric: int
    """GPUs with at least one fabric peer (the others talk over NVLink only)."""
    flows: int
    """Flows of one plane (connections x flows per connection)."""
    flows_per_connection: int
    tiers: tuple[TierLoad, ...]
    ar: Spread | None
    ecmp: Spread | None
    hot_links: tuple[dict, ...]
    """The most loaded links under ECMP: ``{"link", "tier", "direction", "ecmp_util", "ecmp_flows", "ar_util"}``
    (NIC links only when overloaded: at saturated load every NIC link runs at line rate)."""
    blocks: tuple[dict, ...]
    """Heatmap cells: ``{"tier", "direction", "first", "last", "ar_max", "ecmp_max"}`` per block of leaf groups
    (pods for spine-core links, the Dragonfly+ group the traffic leaves for global links), 0-based, at most ``HEAT_BLOCKS`` per tier and direction."""
    histogram: dict
    """``{"edges": [...], "ar": [...], "ecmp": [...]}``: per-GPU bandwidth histogram [Gb/s]."""
    mix: tuple[dict, ...] = ()
    """For ``job``: ``{"kind", "pattern", "group", "weight"}`` per component."""
    notes: tuple[str, ...] = ()
    method: str = ""

    def to_json(self) -> dict:
        def r(x):
            return round(float(x), 4)
        return {
            "pattern": self.pattern, "placement": self.placement, "job_gpus": self.job_gpus, "group": self.group,
            "seed": self.seed, "routing": self.routing, "nic_gbps_per_gpu": r(self.nic_gbps_per_gpu),
            "gpus_on_fabric": self.gpus_on_fabric, "flows": self.flows,
            "flows_per_connection": self.flows_per_connection,
            "tiers": [{k: (r(v) if isinstance(v, float) else v) for k, v in t.model_dump().items()}
                      for t in self.tiers],
            "per_gpu_gbps": {name: None if s is None else {k: r(v) for k, v in s.model_dump().items()}
                             for name, s in (("adaptive", self.ar), ("ecmp", self.ecmp))},
            "hot_links": [{k: (r(v) if isinstance(v, float) else v) for k, v in h.items()} for h in self.hot_links],
            "mix": list(self.mix),
            "notes": list(self.notes),
            "method": self.method,
        }


# --------------------------------------------------------------------------------------
# Pairs of ranks per pattern
# --------------------------------------------------------------------------------------
def _ring_pairs(n: int, stride: int, group: int):
    """Members ``t + stride k`` (k < group) of each of the ``n // (stride group)`` x stride communicators."""
    ranks = np.arange(n, dtype=np.int64)
    block = stride * group
    base = ranks - ranks % block
    k = (ranks % block) // stride
    t = ranks % stride
    nxt = base + ((k + 1) % group) * stride + t
    keep = ranks < (n // block) * block
    return ranks[keep], nxt[keep], np.ones(int(keep.sum()))


def _tree_pairs(n: int, stride: int, group: int):
    ranks = np.arange(n, dtype=np.int64)
    block = stride * group
    ranks = ranks[ranks < (n // block) * block]
    base = ranks - ranks % block
    k = (ranks % block) // stride
    t = ranks % stride
    src, dst = [], []
    for mirror in (False, True):
        pos = (group - 1 - k) if mirror else k
        has_parent = pos > 0
        parent_pos = (pos - 1) // 2
        parent_k = (group - 1 - parent_pos) if mirror else parent_pos
        child = ranks[has_parent]
        parent = (base + parent_k * stride + t)[has_parent]
        src += [child, parent]
        dst += [parent, child]
    s, d = np.concatenate(src), np.concatenate(dst)
    return s, d, np.full(len(s), 0.5)


def _alltoall_pairs(n: int, group: int, limit: int, stride: int = 1):
    """Every ordered pair of members ``t + stride k`` (k < group) of each communicator."""
    block = stride * group
    comms = (n // block) * stride
    if comms * group * (group - 1) > limit:
        raise InputError(_("an all-to-all of {group} GPUs over {gpus} GPUs is more than {limit} connections; "
                           "use a smaller group").format(group=f"{group:,}", gpus=f"{n:,}", limit=f"{limit:,}"))
    i = np.arange(group, dtype=np.int64)
    a, b = np.meshgrid(i, i, indexing="ij")
    off = a != b
    a, b = a[off] * stride, b[off] * stride
    c = np.arange(comms, dtype=np.int64)
    starts = (c // stride) * block + c % stride
    s = (starts[:, None] + a[None, :]).ravel()
    d = (starts[:, None] + b[None, :]).ravel()
    return s, d, np.ones(len(s))


def _pp_pairs(n: int, stages: int):
    dist = n // stages
    ranks = np.arange(dist * (stages - 1), dtype=np.int64)
    s = np.concatenate([ranks, ranks + dist])
    d = np.concatenate([ranks + dist, ranks])
    return s, d, np.ones(len(s))


def _uniform_pairs(n: int, rng: np.random.Generator):
    perm = rng.permutation(n)
    # a derangement: shift fixed points to the next rank's target
    ranks = np.arange(n, dtype=np.int64)
    fixed = perm == ranks
    if fixed.any():
        idx = np.flatnonzero(fixed)
        perm[idx] = perm[(idx + 1) % n]
        perm[(idx + 1) % n] = ranks[idx]
    keep = perm != ranks
    return ranks[keep], perm[keep].astype(np.int64), np.ones(int(keep.sum()))


# --------------------------------------------------------------------------------------
# The computation
# --------------------------------------------------------------------------------------
def _check(pattern: str, placement: str) -> None:
    if pattern not in PATTERNS:
        raise InputError(_("unknown pattern {pattern}; known: {known}").format(
            pattern=shown(pattern), known=", ".join(PATTERNS)))
    if placement not in PLACEMENTS:
        raise InputError(_("unknown placement {placement}; known: {known}").format(
            placement=shown(placement), known=", ".join(PLACEMENTS)))


def _pairs(plan: Plan, pattern: str, n: int, group: int | None, stride: int | None, rng, job, gpn: int | None = None):
    """(src ranks, dst ranks, weights, flows per connection, group, mix); ``gpn`` the GPUs a node holds in the
    patterns' default strides (None: ``plan``'s GPUs per node)."""
    c = congestion.load_constants()
    gpn = gpn or plan.resolved.gpus_per_node
    if pattern in ("ring", "tree"):
        st = stride or (min(gpn, n // 2) if group is None or group * min(gpn, n // 2) <= n else 1)
        g = group or n // st
        if st < 1 or g < 2 or st * g > n:
            raise InputError(_("a {pattern} group of {group} GPUs spaced {stride} apart does not fit {gpus} GPUs")
                             .format(pattern=pattern, group=g, stride=st, gpus=f"{n:,}"))
        s, d, w = (_ring_pairs if pattern == "ring" else _tree_pairs)(n, st, g)
        return s, d, w, c.ring_flows_per_port, g, ()
    if pattern == "alltoall":
        st = stride or (gpn if n >= 2 * gpn and (group is None or group * gpn <= n) else 1)
        g = group or max(2, min(DEFAULT_ALLTOALL_GROUP, n // st))
        if st < 1 or g < 2 or g * st > n:
            raise InputError(_("an all-to-all group of {group} GPUs spaced {stride} apart does not fit {gpus} GPUs")
                             .format(group=f"{g:,}", stride=st, gpus=f"{n:,}"))
        s, d, w = _alltoall_pairs(n, g, MAX_FLOWS // max(1, c.p2p_flows_per_peer), st)
        return s, d, w, c.p2p_flows_per_peer, g, ()
    if pattern == "pp":
        g = group or DEFAULT_PP_STAGES
        if g < 2 or g > n:
            raise InputError(_("{stages} pipeline stages do not fit {gpus} GPUs").format(stages=g, gpus=f"{n:,}"))
        s, d, w = _pp_pairs(n, g)
        return s, d, w, c.p2p_flows_per_peer, g, ()
    if pattern == "uniform":
        s, d, w = _uniform_pairs(n, rng)
        return s, d, w, c.p2p_flows_per_peer, n, ()
    if pattern == "adversarial":
        shift = group or _default_shift(plan, n, gpn)
        if shift >= n:
            raise InputError(_("an adversarial pattern sends each GPU's traffic one group of {group} GPUs further, "
                               "which needs a job of more than {group} GPUs, not {gpus}; use a smaller group or more "
                               "GPUs").format(group=f"{shift:,}", gpus=f"{n:,}"))
        s = np.arange(n, dtype=np.int64)
        return s, (s + shift) % n, np.ones(n), c.p2p_flows_per_peer, shift, ()
    return _job_pairs(plan, n, rng, job)


def _default_shift(plan: Plan, n: int, gpn: int) -> int:
    """The ``adversarial`` pattern's default group [GPUs] on a job of ``n`` GPUs (``gpn`` per node): one Dragonfly
    group or three-tier pod of ``plan``, else one scalable unit; half the job when that is the job or more."""
    f = plan.fabric
    nodes = f.groups_per_pod * f.nodes_per_group if f.pod_count > 1 else f.nodes_per_group
    return nodes * gpn if nodes * gpn < n else max(1, n // 2)


def _job_pairs(plan: Plan, n: int, rng, job, every_level: bool = False):
    """The training job's pairs (``_pairs``' tuple) from its step estimate on ``plan``: each fabric collective's
    ranks, weighted by its share of the step's bytes; ``every_level`` keeps the collectives that stay in ``plan``'s
    NVLink domains too (a design with pods, whose pods' domains differ: its flows drop the pairs in one domain)."""
    from core.perf.training import estimate

    if job is None:
        raise InputError(_("the job pattern needs a training job (model and parallelism)"))
    est = estimate(plan, job)
    c = congestion.load_constants()
    tp, cp, pp, ep = job.tp, job.cp, job.pp, job.ep
    gpus = est.gpus
    parts = []
    for part in est.comm:
        if (part.fabric_level == "nvlink" and not every_level) or part.group_size < 2:
            continue
        volume = float(part.bytes_per_call) * float(part.calls)
        if volume <= 0:
            continue
        kind = part.kind
        if kind.startswith("DP"):
            stride = tp * cp
            parts.append((kind, "ring", stride, part.group_size, volume))
        elif kind == "CP":
            parts.append((kind, "ring", tp, cp, volume))
        elif kind == "PP":
            parts.append((kind, "pp", None, pp, volume))
        elif kind == "EP":
            parts.append((kind, "alltoall", tp, ep, volume))
    if not parts:
        raise InputError(_("the training job sends nothing over the fabric (every collective stays in NVLink)"))
    total = sum(p[-1] for p in parts)
    src, dst, wts, mix = [], [], [], []
    flows = c.ring_flows_per_port
    for kind, pattern, stride, group, volume in parts:
        share = volume / total
        if pattern == "ring":
            stride = max(1, stride)
            group = max(2, min(group, gpus // stride))
            s, d, w = _ring_pairs(gpus, stride, group)
        elif pattern == "pp":
            s, d, w = _pp_pairs(gpus, group)
        else:
            group = max(2, min(group, gpus // max(1, stride)))
            s, d, w = _alltoall_pairs(gpus, group, MAX_FLOWS // max(1, c.p2p_flows_per_peer), max(1, stride))
            w = w / (group - 1)
        src.append(s)
        dst.append(d)
        wts.append(w * share)
        mix.append({"kind": kind, "pattern": pattern, "group": int(group), "weight": round(share, 6)})
    return (np.concatenate(src), np.concatenate(dst), np.concatenate(wts), flows, gpus, tuple(mix))


def _job_size(plan: Plan, pattern: str, job_gpus: int | None, gpus: int | None = None) -> int:
    """GPUs the pattern runs on (the whole cluster for ``job``, whose pairs may use fewer); raises when fewer than
    2 or more than the cluster has (``gpus``: the cluster's GPUs, None: ``plan``'s)."""
    gpus = gpus or plan.resolved.gpus
    if pattern == "job":
        n = gpus
    else:
        n = gpus if job_gpus is None else int(job_gpus)
    if n < 2:
        raise InputError(_("a traffic pattern needs at least 2 GPUs, got {n}").format(n=n))
    if n > gpus:
        raise DesignError(_("a job of {n} GPUs does not fit the cluster's {gpus} GPUs").format(
            n=f"{n:,}", gpus=f"{gpus:,}"), _("Use fewer GPUs or plan more nodes."))
    return n


def _kappa(load, cap, e=1.0):
    """Share of its flows a link passes: ``min(1, e C / D)`` for offered load ``load`` on capacity ``cap`` [Gb/s]."""
    return np.minimum(1.0, e * cap / np.maximum(load, 1e-300))


class _Flows:
    """The fabric connections of one plane: ranks placed on GPUs, NICs and leaves, and each connection's demand.

    Arrays are per connection (a source GPU and a destination GPU in different NVLink domains): ``gpu_s``,
    ``gpu_d``, ``node_s``, ``node_d``, ``weight``, ``port_s`` / ``port_d`` (node * NICs + NIC), ``leaf_s`` /
    ``leaf_d`` (island * leaves + leaf), ``cross`` (leaves differ), ``pod_s`` / ``pod_d`` and ``cross_pod``
    (three tiers), ``demand`` [Gb/s, per plane]; ``wsum`` per GPU, ``line_per_gpu`` [Gb/s, all planes]."""

    def __init__(self, plan: Plan, shape: Shape, src, dst, weight, n: int, placement: str, rng):
        r = plan.resolved
        gpn, nics, planes = r.gpus_per_node, r.nics_per_node, max(1, r.planes)
        self._place(shape, src, dst, weight, n, gpn, nics, placement, rng)
        # demand: each GPU offers its NIC share, per plane, over its fabric connections (weighted)
        self.line_per_gpu = nics * planes * r.port_speed_gbps / gpn
        per_plane = self.line_per_gpu / planes
        self.wsum = np.bincount(self.gpu_s, weights=self.weight, minlength=r.gpus)
        self.demand = per_plane * self.weight / np.maximum(self.wsum[self.gpu_s], 1e-300)  # per connection [Gb/s]

    def _place(self, shape: Shape, src, dst, weight, n: int, gpn: int, nics: int, placement: str, rng) -> None:
        """Ranks -> GPUs (the job's nodes in order, or a random choice of nodes), keeping only the pairs in
        different NVLink domains; each GPU's NIC, and the NIC a pair leaves by (the destination's rail when
        rail-aligned)."""
        job_nodes = math.ceil(n / gpn)
        if placement == "random":
            chosen = rng.permutation(shape.nodes)[:job_nodes]
        else:
            chosen = np.arange(job_nodes)
        gpu_s = chosen[src // gpn] * gpn + src % gpn
        gpu_d = chosen[dst // gpn] * gpn + dst % gpn
        node_s, node_d = gpu_s // gpn, gpu_d // gpn
        dom = shape.nodes_per_domain
        fabric_pair = (node_s // dom) != (node_d // dom)
        gpu_s, gpu_d, node_s, node_d, weight = (a[fabric_pair] for a in (gpu_s, gpu_d, node_s, node_d, weight))
        nic_of = (np.arange(gpn) * nics) // gpn
        nic_s, nic_d = nic_of[gpu_s % gpn], nic_of[gpu_d % gpn]
        self.rail_aligned = placement != "node" or shape.islands > 1
        self.exit_nic = nic_d if self.rail_aligned else nic_s
        self.nic_d = nic_d
        self.gpu_s, self.gpu_d, self.node_s, self.node_d, self.weight = gpu_s, gpu_d, node_s, node_d, weight

    def index(self, shape: Shape, nics: int) -> None:
        """Topology indices of one plane: ports, leaves, pods, and which connections cross leaves and pods."""
        w = shape.wiring

        def leaf_id(node, nic):
            island, lr = nic % w.islands, nic // w.islands
            return island * w.leaves + w.leaf_of(w.group_of_node(node), lr)

        self.npg = w.nodes_per_group  # every node with one tier
        self.port_s = self.node_s * nics + self.exit_nic
        self.port_d = self.node_d * nics + self.nic_d
        self.leaf_s, self.leaf_d = leaf_id(self.node_s, self.exit_nic), leaf_id(self.node_d, self.nic_d)
        self.cross = self.leaf_s != self.leaf_d
        self.pod_s = self.pod_d = None
        if "core" in w.roles or "global" in w.link_classes:  # pods, or Dragonfly+ groups
            def pod_of(leaf):
                return (leaf // w.leaves) * w.pods + w.pod_of_leaf(leaf % w.leaves)
            self.pod_s, self.pod_d = pod_of(self.leaf_s), pod_of(self.leaf_d)
            self.cross_pod = self.cross & (self.pod_s != self.pod_d)
        else:
            self.cross_pod = np.zeros(len(self.gpu_s), dtype=bool)


class _Links:
    """One plane's link counts: ``U`` uplinks per leaf, ``pair`` cables per leaf-spine pair, ``spp`` spines per
    pod, ``S`` uplinks per spine (0: no spine-core stage carries traffic), ``cpair`` cables per spine-core pair,
    ``n_leaves``, ``n_pods``, ``n_ports``; link speeds ``C_port`` and ``C_up`` [Gb/s]; ``eff`` adaptive efficiency."""

    def __init__(self, shape: Shape, nics: int):
        w = shape.wiring
        self.n_leaves = w.islands * w.leaves
        self.eff = congestion.load_constants().adaptive_efficiency
        self.C_port, self.C_up = float(w.port_gbps), float(w.up_gbps)
        self.n_ports = w.nodes * nics
        self.U = w.leaf_uplinks if w.spines else 0  # none with one tier, none to spines on a Dragonfly's routers
        self.pair = max(1, w.pair_links)
        self.spp = len(w.spines_of_pod(0))
        self.n_pods = w.islands * w.pods if "core" in w.roles else 0
        self.S = w.spine_uplinks[0] if w.spine_uplinks else 0  # none below three tiers
        self.cpair = max(1, w.core_pair_links(0))


def _adaptive_routing(shape: Shape, f: _Flows, k: _Links, share_nic):
    """Adaptive routing: each connection's share [0, 1] (its NIC links' and its leaf's and pod's uplinks spread
    evenly), and the even per-link loads [Gb/s] of the leaf-spine and spine-core links, up and down (None where
    the stage carries nothing); sets ``k.S`` to 0 when no connection crosses pods."""
    ar_share = share_nic.copy()
    cross, cross_pod, demand, U, C_up, eff = f.cross, f.cross_pod, f.demand, k.U, k.C_up, k.eff
    ar_up_link = ar_down_link = ar_sup_link = ar_sdown_link = None
    if U > 0:  # (no uplinks with one tier)
        up_tot = np.bincount(f.leaf_s[cross], weights=demand[cross], minlength=k.n_leaves)
        down_tot = np.bincount(f.leaf_d[cross], weights=demand[cross], minlength=k.n_leaves)
        ar_share[cross] = np.minimum(ar_share[cross], np.minimum(_kappa(up_tot[f.leaf_s[cross]] / U, C_up, eff),
                                                                 _kappa(down_tot[f.leaf_d[cross]] / U, C_up, eff)))
        ar_up_link = np.repeat(up_tot / U, U)
        ar_down_link = np.repeat(down_tot / U, U)
    if k.S > 0 and cross_pod.any():  # (no spine uplinks below three tiers)
        pup = np.bincount(f.pod_s[cross_pod], weights=demand[cross_pod], minlength=k.n_pods)
        pdown = np.bincount(f.pod_d[cross_pod], weights=demand[cross_pod], minlength=k.n_pods)
        per_pod_links = k.spp * k.S
        ar_share[cross_pod] = np.minimum(ar_share[cross_pod], np.minimum(
            _kappa(pup[f.pod_s[cross_pod]] / per_pod_links, C_up, eff),
            _kappa(pdown[f.pod_d[cross_pod]] / per_pod_links, C_up, eff)))
        ar_sup_link = np.repeat(pup / per_pod_links, per_pod_links)
        ar_sdown_link = np.repeat(pdown / per_pod_links, per_pod_links)
    else:
        k.S = 0
    return ar_share, (ar_up_link, ar_down_link, ar_sup_link, ar_sdown_link)


def _static_ecmp(shape: Shape, f: _Flows, k: _Links, ar_share, ar_links, per_conn: int, rng):
    """Static ECMP: every flow that leaves its leaf hashed onto one uplink per tier (seeded draws, in this order).

    Returns ``(fl, fdem, ecmp_share, link_sets, ecmp_loads)``: the connection of each crossing flow, its demand
    [Gb/s], its share [0, 1] (never above adaptive routing), ``(tier, direction, link id per flow (-1: none),
    links, capacity, AR per-link loads)`` per switch stage, and ``(tier, direction) -> (load [Gb/s], flows)``."""
    ar_up_link, ar_down_link, ar_sup_link, ar_sdown_link = ar_links
    U, pair, S, spp, C_up = k.U, k.pair, k.S, k.spp, k.C_up
    xc = np.flatnonzero(f.cross)
    fl = np.repeat(xc, per_conn)
    fdem = f.demand[fl] / per_conn
    ecmp_share = ar_share[fl]  # never better than adaptive routing (congestion.tier_share)
    link_sets = []  # (tier, direction, link id per crossing flow (-1: none), links, capacity, AR per-link loads)
    if U > 0 and len(fl):
        u = rng.integers(0, U, size=len(fl))
        j = u // pair
        ls, ld = f.leaf_s[fl], f.leaf_d[fl]
        up_id = ls * U + u
        down_id = ld * U + j * pair + (rng.integers(0, pair, size=len(fl)) if pair > 1 else 0)
        link_sets.append(("leaf_spine", "up", up_id, k.n_leaves * U, C_up, ar_up_link))
        link_sets.append(("leaf_spine", "down", down_id, k.n_leaves * U, C_up, ar_down_link))
        if S > 0:
            f_cp = f.cross_pod[fl]
            v = rng.integers(0, S, size=len(fl))
            sup_id = np.where(f_cp, (f.pod_s[fl] * spp + j) * S + v, -1)
            q2 = rng.integers(0, k.cpair, size=len(fl)) if k.cpair > 1 else 0
            sdown_id = np.where(f_cp, (f.pod_d[fl] * spp + j) * S + (v // k.cpair) * k.cpair + q2, -1)
            link_sets.append(("spine_core", "up", sup_id, k.n_pods * spp * S, C_up, ar_sup_link))
            link_sets.append(("spine_core", "down", sdown_id, k.n_pods * spp * S, C_up, ar_sdown_link))
    elif U > 0:
        empty = np.zeros(0, dtype=np.int64)
        link_sets.append(("leaf_spine", "up", empty, k.n_leaves * U, C_up, ar_up_link))
        link_sets.append(("leaf_spine", "down", empty, k.n_leaves * U, C_up, ar_down_link))
    ecmp_loads = {}
    for tier, direction, ids, count, cap, _ar in link_sets:
        if tier == "spine_core":
            ok = ids >= 0
            load = np.bincount(ids[ok], weights=fdem[ok], minlength=count)
            nflows = np.bincount(ids[ok], minlength=count)
            ecmp_share[ok] = np.minimum(ecmp_share[ok], _kappa(load[ids[ok]], cap, k.eff))
        else:
            load = np.bincount(ids, weights=fdem, minlength=count)
            nflows = np.bincount(ids, minlength=count)
            ecmp_share = np.minimum(ecmp_share, _kappa(load[ids], cap, k.eff))
        ecmp_loads[(tier, direction)] = (load, nflows)
    return fl, fdem, ecmp_share, link_sets, ecmp_loads


class _Global:
    """The global links of a Dragonfly+ or a Dragonfly (one plane): link ``i`` joins switches ``ends[0][i]`` and
    ``ends[1][i]`` (spines, or a Dragonfly's routers: ``role``) of groups ``a[i] < b[i]`` (the wiring's
    ``bundle_arrays("global")`` order, ``lam`` links per pair, pair by pair); ``routing`` ``minimal`` or ``valiant``
    (module docstring). After ``ecmp``, ``sel`` (the flows between groups) and ``chosen`` (per hop, the link of each
    and whether it runs up) say where static ECMP put them."""

    def __init__(self, shape: Shape, f: _Flows, k: _Links, routing: str):
        w = shape.wiring
        self.role, first, _role, second, _count = w.bundle_arrays("global")
        self.ends = (first, second)
        self.g, self.lam, self.routing = w.pods, w.global_pair_links, routing
        s = w.spines_per_pod  # the switches of a full group that carry its global links
        self.a, self.b = self.ends[0] // s, self.ends[1] // s
        self.n = len(self.a)
        self.f, self.k = f, k
        self.valiant = routing == "valiant" and self.g > 2
        self.x = np.flatnonzero(f.cross_pod) if f.pod_s is not None else np.zeros(0, dtype=np.int64)
        self.sel, self.chosen = np.zeros(0, dtype=np.int64), []

    def _pair(self, x, y):
        """Index of the unordered group pair ``{x, y}`` (``x != y``) in ``triu`` order."""
        lo, hi = np.minimum(x, y), np.maximum(x, y)
        return lo * self.g - lo * (lo + 1) // 2 + (hi - lo - 1)

    def _directed(self, demand_xy) -> tuple[np.ndarray, np.ndarray]:
        """Per-link even loads [Gb/s] up and down from the directed group-pair loads ``demand_xy`` (g x g)."""
        lam = max(1, self.lam)
        return demand_xy[self.a, self.b] / lam, demand_xy[self.b, self.a] / lam

    def adaptive(self, ar_share):
        """Adaptive routing: the group pairs' traffic spread evenly over their links; ``ar_share`` lowered in place
        for the connections between groups; returns the per-link loads up and down [Gb/s]."""
        f, g, x = self.f, self.g, self.x
        d = np.zeros((g, g))
        np.add.at(d, (f.pod_s[x], f.pod_d[x]), f.demand[x])
        if self.valiant:  # A->B split over every C: (A, C) and (C, B) each carry D_AB / (g - 2)
            out, into = d.sum(axis=1), d.sum(axis=0)
            d = (out[:, None] - d + into[None, :] - d) / (g - 2)
            np.fill_diagonal(d, 0.0)
        kappa = _kappa(d / max(1, self.lam), self.k.C_up, self.k.eff)
        if self.valiant:
            np.fill_diagonal(kappa, np.inf)
            worst = np.minimum(kappa.min(axis=1)[:, None], kappa.min(axis=0)[None, :])
        else:
            worst = kappa
        ar_share[x] = np.minimum(ar_share[x], worst[f.pod_s[x], f.pod_d[x]])
        return self._directed(d)

    def ecmp(self, fl, fdem, ecmp_share, rng) -> dict:
        """Static ECMP: each crossing flow between groups hashed onto a link (and, Valiant, an intermediate group
        first; seeded draws); ``ecmp_share`` lowered in place. Returns ``direction -> (load [Gb/s], flows)`` per
        link."""
        f, g, lam = self.f, self.g, max(1, self.lam)
        sel = np.flatnonzero(f.cross_pod[fl])
        src, dst = f.pod_s[fl[sel]], f.pod_d[fl[sel]]
        hops = [(src, dst)]
        if self.valiant:  # an intermediate group drawn among the g - 2 others
            mid = rng.integers(0, g - 2, size=len(sel))
            mid = mid + (mid >= np.minimum(src, dst))
            mid = mid + (mid >= np.maximum(src, dst))
            hops = [(src, mid), (mid, dst)]
        loads = {d: (np.zeros(self.n), np.zeros(self.n, dtype=np.int64)) for d in DIRECTIONS}
        links = [(self._pair(x, y) * lam + rng.integers(0, lam, size=len(sel)), x < y) for x, y in hops]
        self.sel, self.chosen = sel, links
        for link, up in links:
            for direction, on in (("up", up), ("down", ~up)):
                load, nflows = loads[direction]
                load += np.bincount(link[on], weights=fdem[sel][on], minlength=self.n)
                nflows += np.bincount(link[on], minlength=self.n)
        for link, up in links:
            used = np.where(up, loads["up"][0][link], loads["down"][0][link])
            ecmp_share[sel] = np.minimum(ecmp_share[sel], _kappa(used, self.k.C_up, self.k.eff))
        return loads

    def note(self, family: str) -> str:
        """The routing between groups, in words (``family``: the topology's name)."""
        if self.valiant:
            return _("Between {family} groups: Valiant routing, through an intermediate group (every other group "
                     "alike): each connection crosses two global links, about twice the minimal load.").format(
                family=family)
        return _("Between {family} groups: minimal routing, over the direct global links of each pair of groups "
                 "(Valiant routing, through an intermediate group, carries about twice that load on them).").format(
            family=family)


def _tier_row(tier, direction, links, cap, offered, ar_loads, e_loads, e_flows) -> TierLoad:
    """One tier and direction's row: utilisation (load / capacity ``cap`` [Gb/s]) under AR and ECMP, flows."""
    ar_u = ar_loads / cap
    e_u = e_loads / cap
    return TierLoad(tier=tier, direction=direction, links=int(links), link_gbps=cap, offered_gbps=float(offered),
                    ar_max=float(ar_u.max(initial=0)), ar_mean=float(ar_u.mean()) if links else 0.0,
                    ar_overloaded=int((ar_u > 1 + 1e-9).sum()), ecmp_max=float(e_u.max(initial=0)),
                    ecmp_mean=float(e_u.mean()) if links else 0.0, ecmp_overloaded=int((e_u > 1 + 1e-9).sum()),
                    ecmp_max_flows=int(e_flows.max(initial=0)),
                    ecmp_mean_flows=float(e_flows.mean()) if links else 0.0)


def _hot_links(naming: "_Names", stages: list) -> tuple[dict, ...]:
    """The ``HOT_LINKS`` links of highest ECMP utilisation (NIC links only when overloaded); ``stages`` are
    ``(tier, direction, ECMP loads, AR loads, flows, capacity)`` [Gb/s; capacity one number or one per link]."""
    cands = []
    for tier, direction, arr, ar_arr, flows_arr, capacity in stages:
        k = min(HOT_LINKS, len(arr))
        if k == 0:
            continue
        top = np.argpartition(-arr / capacity, k - 1)[:k]
        for idx in top:
            cap = capacity[idx] if np.ndim(capacity) else capacity
            # a NIC link is always at line rate under saturated load: listed only when overloaded
            if arr[idx] <= 0 or (tier == "node_leaf" and arr[idx] <= cap * (1 + 1e-9)):
                continue
            cands.append({"link": naming.link(tier, direction, int(idx)), "tier": tier, "direction": direction,
                          "ecmp_util": float(arr[idx] / cap), "ecmp_flows": int(flows_arr[idx]),
                          "ar_util": float(ar_arr[idx] / cap)})
    cands.sort(key=lambda h: (-h["ecmp_util"], h["link"]))
    return tuple(cands[:HOT_LINKS])


def _heat_blocks(shape: Shape, k: _Links, nics: int, npg: int, stages: list) -> list[dict]:
    """Heatmap blocks: the worst utilisation under ECMP and AR per block of leaf groups (node-leaf and leaf-spine
    links) or pods (spine-core), at most ``HEAT_BLOCKS`` per tier; ``stages`` are ``(tier, direction, ECMP loads,
    AR loads)`` [Gb/s]."""
    blocks = []
    w = shape.wiring
    groups = w.groups
    for tier, direction, e_arr, a_arr in stages:
        cap = k.C_port if tier == "node_leaf" else k.C_up
        if tier == "node_leaf":
            unit = (np.arange(k.n_ports) // nics) // npg  # leaf group of the port's node
            n_units = groups
        elif tier == "leaf_spine":
            leaf = np.arange(k.n_leaves * k.U) // k.U
            unit = w.group_of_leaf(leaf % w.leaves)  # (leaf-spine links: two tiers or more)
            n_units = groups
        elif tier == "global":  # the group the traffic leaves: a link's lower-numbered group up, the other down
            unit = w.bundle_arrays("global")[1 if direction == "up" else 3] // w.spines_per_pod
            n_units = max(1, shape.pods)
        elif tier == "local":  # a Dragonfly's local links: their group
            unit = w.bundle_arrays("local")[1] // w.spines_per_pod
            n_units = max(1, shape.pods)
        else:
            unit = (np.arange(len(e_arr)) // (k.spp * k.S)) % max(1, shape.pods)
            n_units = max(1, shape.pods)
        blocks += bin_blocks(tier, direction, unit, n_units, e_arr / cap, a_arr / cap)
    return blocks


def bin_blocks(tier: str, direction: str, unit, n_units: int, e_util, a_util) -> list[dict]:
    """Heatmap cells of one tier and direction: links in ``n_units`` units (``unit``: each link's, 0-based) binned
    into at most ``HEAT_BLOCKS`` blocks, each with the worst ECMP and adaptive utilisation (``e_util``, ``a_util``:
    per link, load over capacity) of its links (``LoadResult.blocks``)."""
    bins = min(HEAT_BLOCKS, n_units)
    b = (unit * bins) // max(1, n_units)
    e_max = np.zeros(bins)
    a_max = np.zeros(bins)
    np.maximum.at(e_max, b, e_util)
    np.maximum.at(a_max, b, a_util)
    out = []
    for i in range(bins):
        first = -(-i * n_units // bins)
        last = -(-(i + 1) * n_units // bins) - 1
        out.append({"tier": tier, "direction": direction, "first": int(first), "last": int(last),
                    "ar_max": round(float(a_max[i]), 4), "ecmp_max": round(float(e_max[i]), 4)})
    return out


def _spread(v) -> Spread:
    """Min, median, max and mean of per-GPU throughputs ``v`` [Gb/s]."""
    return Spread(min=float(v.min()), median=float(np.median(v)), max=float(v.max()), mean=float(v.mean()))


def link_load(plan: Plan, pattern: str = "ring", placement: str = "rail", *, job_gpus: int | None = None,
              group: int | None = None, stride: int | None = None, seed: int = 0, job=None,
              global_routing: str = "minimal") -> LoadResult:
    """The load of ``pattern`` placed by ``placement`` on ``plan`` (module docstring). ``job`` (a
    ``core.perf.training.TrainingJob``) is needed for ``pattern="job"``, whose GPUs it sets.

    ``InputError`` for an unknown pattern or placement, a group that does not fit the job, or a job larger
    than the cluster. ``global_routing`` (``GLOBAL_ROUTINGS``) routes between Dragonfly+ groups."""
    return _link_load(plan, pattern, placement, job_gpus=job_gpus, group=group, stride=stride, seed=seed, job=job,
                      global_routing=global_routing)


def link_load_arrays(plan: Plan, pattern: str = "ring", placement: str = "rail",
                     **options) -> tuple[LoadResult, dict]:
    """``link_load`` (same arguments) and the per-link numpy arrays of plane 0 behind it (for checks):
    ``(tier, direction) -> (ar_load, ecmp_load, ecmp_flows, capacity)`` [Gb/s], ``"pairs"`` ->
    ``(port_s, port_d, demand)`` per connection, and ``"names"`` -> a function ``(tier, direction, index) -> name``."""
    arrays: dict = {}
    return _link_load(plan, pattern, placement, arrays=arrays, **options), arrays


def _link_load(plan: Plan, pattern: str, placement: str, *, job_gpus: int | None = None, group: int | None = None,
               stride: int | None = None, seed: int = 0, job=None, arrays: dict | None = None,
               global_routing: str = "minimal") -> LoadResult:
    """``link_load``; ``arrays``, when given, receives what ``link_load_arrays`` returns.

    Steps: the pairs of the pattern, placed on GPUs with their demand (``_Flows``); the NIC links' share; adaptive
    routing (``_adaptive_routing``) and static ECMP (``_static_ecmp``); per-GPU throughput; per-tier rows, the
    hottest links, the heatmap blocks and the histogram."""
    _check(pattern, placement)
    if global_routing not in GLOBAL_ROUTINGS:
        raise InputError(_("unknown routing between groups {value}; use one of {choices}").format(
            value=shown(global_routing), choices=", ".join(GLOBAL_ROUTINGS)))
    require_model(plan.fabric, "load", _("The link-load analysis"))
    if node_to_node(plan.fabric.family):  # no switch: the pattern routed over its rings (core.analysis.torusload)
        from core.analysis.torusload import torus_link_load

        return torus_link_load(plan, pattern, placement, job_gpus=job_gpus, group=group, stride=stride, seed=seed,
                               job=job, arrays=arrays)
    r = plan.resolved
    shape = Shape.build(plan) if graph_model(plan.fabric.family, "load") else Shape.of(plan)
    nics, planes = r.nics_per_node, max(1, r.planes)
    n = _job_size(plan, pattern, job_gpus)
    rng = np.random.default_rng(seed)
    src, dst, weight, per_conn, grp, mix = _pairs(plan, pattern, n, group, stride, rng, job)
    if pattern == "job":
        n = int(max(src.max(initial=0), dst.max(initial=0)) + 1)
    f = _Flows(plan, shape, src, dst, weight, n, placement, rng)
    line_per_gpu, demand, gpu_s = f.line_per_gpu, f.demand, f.gpu_s

    notes = []
    if shape.islands > 1 and placement == "node":
        notes.append(_("This fabric has no path between rails: traffic is rail-aligned (PXN) whatever the placement."))

    m = len(gpu_s)
    if m == 0:
        return _empty(plan, pattern, placement, n, grp, seed, line_per_gpu, per_conn, mix, notes)
    flows_total = m * per_conn
    if flows_total > MAX_FLOWS:
        raise InputError(_("{flows} flows are more than the {limit} this model samples; use a smaller job or group")
                         .format(flows=f"{flows_total:,}", limit=f"{MAX_FLOWS:,}"))

    f.index(shape, nics)
    k = _Links(shape, nics)
    port_s, port_d, C_port = f.port_s, f.port_d, k.C_port
    inj = np.bincount(port_s, weights=demand, minlength=k.n_ports)
    ej = np.bincount(port_d, weights=demand, minlength=k.n_ports)
    share_nic = np.minimum(_kappa(inj[port_s], C_port), _kappa(ej[port_d], C_port))
    ar_share, ar_links = _adaptive_routing(shape, f, k, share_nic)
    glob = _Global(shape, f, k, global_routing) if "global" in shape.link_classes and shape.pods > 1 else None
    routers = _local(shape, f, k, glob)
    glob_ar = glob.adaptive(ar_share) if glob else None
    local_ar = routers.adaptive(ar_share) if routers else None
    fl, fdem, ecmp_share, link_sets, ecmp_loads = _static_ecmp(shape, f, k, ar_share, ar_links, per_conn, rng)
    family = vocab.TOPOLOGY.label(plan.fabric.family)
    if glob:
        for direction, ar_loads, loads in zip(DIRECTIONS, glob_ar, glob.ecmp(fl, fdem, ecmp_share, rng).values()):
            link_sets.append(("global", direction, None, glob.n, k.C_up, ar_loads))
            ecmp_loads[("global", direction)] = loads
        notes.append(glob.note(family))
    if routers:
        for direction, ar_loads, loads in zip(DIRECTIONS, local_ar, routers.ecmp(fl, fdem, ecmp_share).values()):
            link_sets.append(("local", direction, None, routers.n, k.C_up, ar_loads))
            ecmp_loads[("local", direction)] = loads
        notes.append(_("Inside a {family} group: the local link between the two routers; between groups a local "
                       "link to the router holding the global link, the global link, a local link to the "
                       "destination router.").format(family=family))
        minimal_only = words(plan.fabric.family, "load:note", None)  # a family's word on its group routing
        if minimal_only:
            notes.append(minimal_only)
    if glob:
        notes.extend(load_notes(plan.fabric, pattern, global_routing, _worst_by_tier(link_sets, ecmp_loads)))

    # --- per GPU
    planes_f = float(planes)
    ar_gpu = np.bincount(gpu_s, weights=demand * ar_share, minlength=r.gpus) * planes_f
    local = ~f.cross
    ecmp_gpu = (np.bincount(gpu_s[local], weights=(demand * ar_share)[local], minlength=r.gpus)
                + np.bincount(gpu_s[fl], weights=fdem * ecmp_share, minlength=r.gpus)) * planes_f
    active = f.wsum > 0
    ar_v, ecmp_v = ar_gpu[active], ecmp_gpu[active]

    # --- tiers
    tier_rows = []
    port_flows_s = np.bincount(port_s, minlength=k.n_ports) * per_conn
    port_flows_d = np.bincount(port_d, minlength=k.n_ports) * per_conn
    tier_rows.append(_tier_row("node_leaf", "up", k.n_ports, C_port, inj.sum(), inj, inj, port_flows_s))
    tier_rows.append(_tier_row("node_leaf", "down", k.n_ports, C_port, ej.sum(), ej, ej, port_flows_d))
    for tier, direction, _ids, count, cap, ar_loads in link_sets:
        load, nflows = ecmp_loads[(tier, direction)]
        tier_rows.append(_tier_row(tier, direction, count, cap, load.sum(), ar_loads, load, nflows))

    if len(ar_v) and ar_v.min() < line_per_gpu * (1 - 1e-9) and all(t.ar_max <= 1 + 1e-9 for t in tier_rows):
        notes.append(_efficiency_note(k.eff))
    if f.rail_aligned and inj.max(initial=0) > C_port * (1 + 1e-9):
        notes.append(pxn_note())
    # --- hottest links (ECMP)
    naming = _Names(shape.wiring, k)
    if arrays is not None:
        arrays["pairs"] = (port_s, port_d, demand)
        arrays["names"] = naming.link
        arrays[("node_leaf", "up")] = (inj, inj, port_flows_s, C_port)
        arrays[("node_leaf", "down")] = (ej, ej, port_flows_d, C_port)
        for tier, direction, _ids, _count, cap, ar_loads in link_sets:
            load, nflows = ecmp_loads[(tier, direction)]
            arrays[(tier, direction)] = (ar_loads, load, nflows, cap)
    hot = _hot_links(naming, [("node_leaf", "up", inj, inj, port_flows_s, C_port),
                              ("node_leaf", "down", ej, ej, port_flows_d, C_port)]
                     + [(t, d, ecmp_loads[(t, d)][0], a, ecmp_loads[(t, d)][1], c) for t, d, _i, _n, c, a in link_sets])

    # --- heatmap blocks: leaf groups (node-leaf and leaf-spine links), pods (spine-core)
    blocks = _heat_blocks(shape, k, nics, f.npg, [("node_leaf", "up", inj, inj), ("node_leaf", "down", ej, ej)]
                          + [(t, d, ecmp_loads[(t, d)][0], a) for t, d, _i, _n, _c, a in link_sets])

    edges = np.linspace(0.0, line_per_gpu, HIST_BINS + 1)
    hist = {"edges": [round(float(x), 3) for x in edges],
            "ar": np.histogram(np.clip(ar_v, 0, line_per_gpu), bins=edges)[0].tolist(),
            "ecmp": np.histogram(np.clip(ecmp_v, 0, line_per_gpu), bins=edges)[0].tolist()}

    return LoadResult(
        pattern=pattern, placement=placement, job_gpus=n, group=int(grp), seed=seed,
        routing=congestion.fabric_class(r), nic_gbps_per_gpu=line_per_gpu, gpus_on_fabric=int(active.sum()),
        flows=int(flows_total), flows_per_connection=int(per_conn), tiers=tuple(tier_rows),
        ar=_spread(ar_v), ecmp=_spread(ecmp_v), hot_links=hot, blocks=tuple(blocks), histogram=hist, mix=mix,
        notes=tuple(notes), method=METHOD + (f"; between {family} groups: {global_routing} routing" if glob else ""))


def _worst_by_tier(link_sets: list, ecmp_loads: dict) -> dict[str, float]:
    """The most loaded link of each switch-to-switch tier (both directions) under adaptive routing, as a share of its
    capacity (``link_sets``: ``_static_ecmp``'s, with the global and local rows added)."""
    out: dict[str, float] = {}
    for tier, _direction, _ids, _count, cap, ar_loads in link_sets:
        if ar_loads is not None and len(ar_loads):
            out[tier] = max(out.get(tier, 0.0), float(np.max(ar_loads)) / cap)
    return out


def pxn_note() -> str:
    """Why a NIC link is overloaded under rail-aligned (PXN) placement, in a sentence."""
    return _("Several GPUs of a node send to peers on the same rail: rail-aligned (PXN) their traffic shares that "
             "rail's NIC, which is overloaded; placed by node each GPU sends on its own NIC.")


def _efficiency_note(eff: float) -> str:
    """Why a GPU gets less than its line rate under adaptive routing while no link is offered more than its capacity:
    a switch-to-switch link passes at most the adaptive efficiency ``eff`` (a fraction) of it (``_kappa``)."""
    return _("Adaptive routing gets {eff} of a switch link's capacity through it (adaptive efficiency, as in the "
             "Performance page's congestion model): a flow on a link offered 100% gets {eff} of its rate, so a GPU "
             "can get less than its line rate while no link is above 100%.").format(eff=percent(eff))


def _local(shape: Shape, f: _Flows, k: _Links, glob: "_Global | None"):
    """The local links' model (``core.analysis.loadlocal.Local``) when the wiring has a ``local`` class (a
    Dragonfly's routers joined all to all in a group), else None."""
    if "local" not in shape.link_classes or shape.leaves < 2:
        return None
    from core.analysis.loadlocal import Local  # it reads this module's share rule

    return Local(shape.wiring, f, glob, k.C_up, k.eff)


METHOD = ("saturated offered load (each GPU with fabric peers offers its NIC line rate); adaptive routing: even "
          "spread over a leaf's (pod's) uplinks; static ECMP: every flow hashed onto one uplink per tier (seeded); "
          "a link passes min(1, e C / D) of its flows (e = adaptive_efficiency on switch links); a flow gets the "
          "smallest share on its path; ECMP never above adaptive routing (core.perf.congestion.tier_share)")


def _empty(plan, pattern, placement, n, grp, seed, line, per_conn, mix, notes):
    notes = list(notes) + [_("Every pair of this pattern sits in one NVLink domain: no fabric link carries it.")]
    return LoadResult(pattern=pattern, placement=placement, job_gpus=n, group=int(grp), seed=seed,
                      routing=congestion.fabric_class(plan.resolved), nic_gbps_per_gpu=line, gpus_on_fabric=0,
                      flows=0, flows_per_connection=int(per_conn), tiers=(), ar=None, ecmp=None, hot_links=(),
                      blocks=(), histogram={"edges": [], "ar": [], "ecmp": []}, mix=mix, notes=tuple(notes),
                      method=METHOD)


class _Names:
    """Names of one plane's links, their ends as ``core.fabric.wiring.Wiring`` names them (plane 0)."""

    def __init__(self, wiring: Wiring, k: _Links):
        self.w, self.k = wiring, k
        self.ends: dict = {}
        """Tier -> the wiring's ``bundle_arrays`` of it (switch-to-switch classes one link each), once."""

    def link(self, tier: str, direction: str, idx: int) -> str:
        """Name of link ``idx`` of ``tier`` in ``direction`` (``_Links`` numbering: node-leaf by node and NIC,
        leaf-spine by leaf and uplink, spine-core by spine and uplink, islands outer; a parallel cable of a
        switch pair ``#q`` on the upper end, 0-based; global in the wiring's
        ``global_spines`` order, ``up`` from the lower-numbered group)."""
        w, k = self.w, self.k
        if tier == "node_leaf":
            node, nic = divmod(idx, w.rails * w.islands)
            island, lr = nic % w.islands, nic // w.islands
            a, b = f"{w.node_id(node)}.nic{nic}", w.switch_id("leaf", w.node_port(node, lr)[0], 0, island)
        elif tier == "leaf_spine":
            leaf, u = divmod(idx, k.U)
            island, leaf = divmod(leaf, w.leaves)
            j, q = divmod(u, k.pair)
            spine = w.spines_of_leaf(leaf)[j]
            a = w.switch_id("leaf", leaf, 0, island)
            b = w.switch_id("spine", spine, 0, island) + (f"#{q}" if k.pair > 1 else "")
        elif tier in ("global", "local"):  # between two switches of one role (spines, or a Dragonfly's routers)
            if tier not in self.ends:
                self.ends[tier] = w.bundle_arrays(tier)
            role, first, _role, second, _count = self.ends[tier]
            a, b = (w.switch_id(role, int(e[idx]), 0) for e in (first, second))
        else:
            spine, v = divmod(idx, k.S)
            island, spine = divmod(spine, w.spines)
            core, q = w.cores_of_spine(spine)[v // k.cpair], v % k.cpair
            a = w.switch_id("spine", spine, 0, island)
            b = w.switch_id("core", core, 0, island) + (f"#{q}" if k.cpair > 1 else "")
        return f"{a} -> {b}" if direction == "up" else f"{b} -> {a}"


__all__ = ["LoadResult", "PATTERNS", "PATTERN_LABELS", "PLACEMENTS", "PLACEMENT_LABELS", "Spread", "TierLoad",
           "link_load"]
