"""Where a communicator's ranks sit on the fabric, and the bandwidths one rank sees.

``place`` fills NVLink domains, nodes, leaf groups and pods in order and reports the farthest
fabric level crossed; ``contention`` is the share of a node's fabric bandwidth it keeps against
leaf and spine oversubscription and the fabric's routing (``core.perf.congestion``) for a traffic
pattern (ring, NCCL's double binary tree, all-to-all), ``p2p_contention`` the same for a pipeline
send; ``dtree_parents``, ``dtree_max_degree`` and ``tree_crossing`` follow NCCL's tree construction
(src/graph/trees.cc); ``links`` gives the effective (calibrated)
and line-rate NVLink and NIC bandwidths per GPU [GB/s, one direction] and what the hardware
supports (NVLS, SHARP); ``bottleneck_line_gbytes`` the line rate of the slowest link ring traffic
crosses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from core.errors import DesignError, InputError
from core.fabric.families import cabled_nics, family as family_of, job_hops, node_to_node
from core.fabric.domainlevels import scaleup_of
from core.hostlink import fed_nic_gbits
from core.i18n import N_, _
from core import scaleup as mesh
from core import vocab
from core.perf import congestion
from core.perf.constants import CollectiveConstants, constants_for
from core.plan import Plan


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
    """Switch hops on the longest fabric path the job uses (0 if it stays in NVLink; on a torus, links)."""
    level: str
    """``nvlink``, ``leaf``, ``spine``, ``core``, ``global`` (a Dragonfly's groups), ``local`` (a classic Dragonfly's
    group: router to router) or ``torus`` (node to node): the highest fabric level crossed (``fabric_hops``)."""
    ranks_last_domain: int = 0
    """Ranks in the last NVLink domain (0 = same as ``ranks_per_domain``)."""
    dragonfly: bool = False
    """The pods are Dragonfly+ (or Dragonfly) groups (joined by global links, not cores)."""
    family: str = ""
    """The topology family's name when ``dragonfly`` (``Dragonfly+``, ``Dragonfly``), for the notes."""
    pod_tier: bool = False
    """Traffic between pods crosses a tier of its own (``has_pods``: a three-tier Clos's cores, a Dragonfly's global
    links); else the fabric has no pods to count (two tiers: one leaf-spine block), so the notes name none, and
    "pod" keeps meaning a design's pods (``Design.pods``)."""
    link_hops: bool = False
    """``hops`` count links, not switches: a node-to-node family (the torus, ``core.fabric.families.node_to_node``)
    with no leaf groups or pods to count."""

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
        raise InputError(_("a collective needs at least 2 GPUs, got {n}").format(n=n))
    if stride < 1:
        raise InputError(_("stride must be at least 1, got {stride}").format(stride=stride))
    span = n * stride
    if span > r.gpus:
        values = dict(n=f"{n:,}", stride=stride, span=f"{span:,}", cluster=f"{r.gpus:,}")
        raise DesignError(
            (_("a job of {n} GPUs spaced {stride} apart needs {span} GPUs, but the cluster has {cluster}.")
             if stride > 1 else _("a job of {n} GPUs needs {span} GPUs, but the cluster has {cluster}.")
             ).format(**values),
            _("Plan at least {nodes} nodes or use fewer GPUs.").format(
                nodes=f"{math.ceil(span / r.gpus_per_node):,}"),
        )
    domain = r.nvlink_domain_gpus if r.nvlink_domain_gpus > 1 else 1
    d = max(1, min(n, domain // stride)) if stride < domain else 1
    m = math.ceil(n / d)
    nodes = math.ceil(span / r.gpus_per_node)
    per_group = max(1, f.nodes_per_group) if f.tiers > 1 else max(1, r.nodes)
    groups = 1 if f.tiers == 1 else math.ceil(nodes / per_group)
    pods = math.ceil(groups / max(1, f.groups_per_pod)) if has_pods(f) else 1
    nodes_in_group = min(nodes, per_group)
    nodes_in_pod = min(nodes, per_group * max(1, f.groups_per_pod)) if has_pods(f) else nodes
    hops, level = fabric_hops(plan, nodes, groups, pods) if m > 1 else (0, "nvlink")
    last = n - (m - 1) * d
    return Placement(n, stride, d, m, nodes, groups, pods, nodes_in_group, nodes_in_pod, hops, level, last,
                     f.global_links > 0, vocab.TOPOLOGY.label(f.family) if f.global_links else "",
                     pod_tier=has_pods(f), link_hops=node_to_node(f.family) and m > 1)


def fabric_hops(plan: Plan, nodes: int, groups: int, pods: int) -> tuple[int, str]:
    """Switch hops on the farthest path of a job on ``nodes`` packed nodes spanning ``groups`` leaf groups and
    ``pods`` pods, and the highest level it crosses: the fabric's own hop counts, the one rule ``Plan.bandwidth``
    holds (``core.fabric.bandwidth``: a family's ``hop_counts(wiring)``, the folded Clos's tiers), so the notes,
    the latency term and the Designer agree. A node-to-node family (the torus) counts the links between the
    job's farthest nodes (its ``job_hops``: no switch, every node forwards; level ``torus``)."""
    b = plan.bandwidth
    own = job_hops(plan.fabric, nodes)
    if own is not None:
        return own, "torus"
    if groups == 1:  # one leaf group: its nodes share their leaves (a family's same leaf: 1)
        return (b.hops_same_rail if family_of(plan.fabric.family) is not None else 1), "leaf"
    if pods == 1:  # leaf, spine, leaf; a group without spines (a classic Dragonfly's): its local links
        spines = any(g.role == "spine" for g in plan.fabric.switch_groups)
        return b.hops_same_rail_other_su, ("spine" if spines else "local")
    return b.hops_cross_pod, ("global" if plan.fabric.global_links else "core")


@lru_cache(maxsize=512)
def _btree(nranks: int, rank: int) -> tuple[int, int, int]:
    """(parent, child0, child1) of ``rank`` in NCCL's binary tree (src/graph/trees.cc ncclGetBtree; -1 = none)."""
    bit = 1
    while bit < nranks:
        if bit & rank:
            break
        bit <<= 1
    if rank == 0:
        return -1, -1, (bit >> 1 if nranks > 1 else -1)
    up = (rank ^ bit) | (bit << 1)
    if up >= nranks:
        up = rank ^ bit
    lowbit = bit >> 1
    down0 = -1 if lowbit == 0 else rank - lowbit
    down1 = -1 if lowbit == 0 else rank + lowbit
    while down1 >= nranks:
        down1 = -1 if lowbit == 0 else rank + lowbit
        lowbit >>= 1
    return up, down0, down1


def dtree_parents(nranks: int) -> tuple[np.ndarray, np.ndarray]:
    """Every rank's parent in NCCL's two trees (-1 = root), vectorised: ``_btree`` for all ranks at once
    (the parent of rank r > 0 is (r ^ b) | (b << 1), or r ^ b when that is out of range, b = r's lowest
    set bit), the second tree the first mirrored (even count) or shifted by one (odd count)."""
    r = np.arange(nranks, dtype=np.int64)
    bit = r & -r
    up = (r ^ bit) | (bit << 1)
    first = np.where(up >= nranks, r ^ bit, up)
    first[0] = -1
    if nranks % 2:
        moved = first[(r - 1) % nranks]
        second = np.where(moved == -1, -1, (moved + 1) % nranks)
    else:
        moved = first[nranks - 1 - r]
        second = np.where(moved == -1, -1, nranks - 1 - moved)
    return first, second


@lru_cache(maxsize=512)
def dtree_max_degree(nranks: int) -> int:
    """Most tree neighbours (parent + children, both trees) of any rank in NCCL's double binary tree.

    src/graph/trees.cc ncclGetDtree (NCCL 2.30.7, identical since 2.4): the first tree is
    ncclGetBtree, the second its mirror (even count) or its shift by one (odd count). 2 for 2
    ranks, 3 for 3, 4 from 4 on (an interior rank of one tree is a leaf of the other).
    """
    if nranks <= 1:
        return 0
    degree = np.zeros(nranks, dtype=np.int64)
    for parents in dtree_parents(nranks):
        has = parents != -1
        degree += has
        degree += np.bincount(parents[has], minlength=nranks)
    return int(degree.max())


def _dtree_parents(nranks: int, rank: int) -> tuple[int, int]:
    """``rank``'s parent in each of NCCL's two trees (ncclGetDtree: the second is the first mirrored
    for an even count, shifted by one for an odd count; -1 = root)."""
    first = _btree(nranks, rank)[0]
    if nranks % 2:
        up = _btree(nranks, (rank - 1 + nranks) % nranks)[0]
        second = -1 if up == -1 else (up + 1) % nranks
    else:
        up = _btree(nranks, nranks - 1 - rank)[0]
        second = -1 if up == -1 else nranks - 1 - up
    return first, second


def tree_crossing(block: float) -> float:
    """Share of NCCL's double-binary-tree traffic that leaves a block of ``block`` consecutive domains
    (a leaf group or pod), for a job not aligned to the blocks.

    In ncclGetBtree a share 2^-(k+1) of the edges join ranks 2^k apart, and an edge d ranks long
    crosses a block boundary at an arbitrary offset with probability min(1, d / block); every edge
    carries the same half-array. Summed: (log2(block) / 2 + 1) / block for a power of two (e.g.
    0.5 for blocks of 4, 0.11 for 32), against a ring's 1 / block (0.25, 0.03): the tree's long
    edges leave a group more often. The same for every job size that spans blocks, so a growing job
    never sees less crossing; checked against the exact average over NCCL's own trees
    (tests/test_collectives_nccl.py).
    """
    if block <= 1:
        return 1.0
    return min(1.0, (math.log2(block) / 2 + 1) / block)


def has_pods(fabric) -> bool:
    """Whether traffic between pods crosses a tier of its own: the cores of a three-tier Clos, the global links
    between Dragonfly+ groups (its groups are the pods; the spines' up ports carry the global links)."""
    return fabric.tiers == 3 or fabric.global_links > 0


def level_label(level: str, system=None) -> str:
    """``Placement.level`` (and ``"fabric"``, a point-to-point send between domains, or ``"nvlink+fabric"``, a
    pipeline or a context-parallel ring some of whose sends stay inside a domain and some leave it) for display; the
    scale-up level is named after ``system``'s links (``core.scaleup.link_word``: NVLink, HCCS, ...) when it is given."""
    if level == "nvlink" and system is not None:
        return mesh.link_word(system)
    if level == "nvlink+fabric":  # point-to-point sends (a pipeline, a ring) partly leaving the domain
        return _("{scaleup} + fabric").format(scaleup=level_label("nvlink", system))
    labels = {"nvlink": _("nvlink"), "leaf": _("leaf"), "spine": _("spine"), "core": _("core"),
              "fabric": _("fabric"), "global": _("global links"),
              "local": _("local links"), "torus": _("torus links"), "host": _("host (CPU memory)")}
    return labels.get(level, level)


def down_ports(plan: Plan, role: str) -> int:
    """Ports used downwards on one switch of ``role`` (the flows of a tier share its uplinks); what ``contention``
    reads of a tier besides its oversubscription."""
    for g in plan.fabric.switch_groups:
        if g.role == role and not getattr(g, "reserved", False) and g.down_ports_used:
            return int(g.down_ports_used)
    return max(1, plan.fabric.leaf_down_ports_max)


def _tiers_share(plan: Plan, f1: float, f2: float, flows_per_port: float) -> float:
    """The smaller share kept at the leaf and spine tiers for crossing fractions ``f1``, ``f2``
    (``core.perf.congestion.tier_share`` under the routing class in force)."""
    return _tiers_bound(plan, f1, f2, flows_per_port)[0]


def _tiers_bound(plan: Plan, f1: float, f2: float, flows_per_port: float) -> tuple[float, str]:
    """``_tiers_share`` and the tier that keeps it: ``"nic"`` (no tier takes anything), ``"leaf"`` (the leaf
    uplinks), ``"spine"`` (the spines' uplinks to the cores) or ``"global"`` (Dragonfly+'s global links)."""
    bw = plan.bandwidth
    routing = congestion.routing_class(plan.resolved)
    share, level = 1.0, "nic"
    if f1 > 0:
        leaf = congestion.tier_share(routing, f1, max(1.0, bw.leaf_oversubscription), down_ports(plan, "leaf"),
                                     flows_per_port)
        if leaf < share:
            share, level = leaf, "leaf"
    if f2 > 0:
        spine = congestion.tier_share(routing, f2, max(1.0, bw.spine_oversubscription), down_ports(plan, "spine"),
                                      flows_per_port)
        if spine < share:
            share, level = spine, "global" if plan.fabric.global_links > 0 else "spine"
    return share, level


def uniform_fractions(p: Placement) -> tuple[float, float]:
    """Shares of spread (all-to-all) traffic of a communicator placed as ``p`` that leave a leaf group and a pod:
    the peers outside them."""
    f1 = (p.nodes - p.nodes_in_group) / (p.nodes - 1) if p.groups > 1 else 0.0
    f2 = (p.nodes - p.nodes_in_pod) / (p.nodes - 1) if p.pods > 1 else 0.0
    return f1, f2


def _spread_fractions(plan: Plan) -> tuple[float, float]:
    """Nodes scattered over the whole cluster: a peer sits in another of the G leaf groups (P pods)
    with probability 1 - 1/G (1 - 1/P)."""
    f = plan.fabric
    groups = max(1, f.group_count) if f.tiers > 1 else 1
    pods = max(1, f.pod_count) if has_pods(f) else 1
    return (1 - 1 / groups if groups > 1 else 0.0), (1 - 1 / pods if pods > 1 else 0.0)


def contention(plan: Plan, p: Placement, pattern: str) -> float:
    """Share of a node's fabric bandwidth it keeps when ``pattern`` traffic meets oversubscription and routing.

    A fraction ``f1`` of each node's traffic leaves its leaf group (scalable unit or
    top-of-rack leaf) and shares the leaf uplinks, which carry 1/o1 of the down
    capacity; likewise ``f2`` leaves the pod through spines at ``o2``. Each tier keeps
    ``core.perf.congestion.tier_share`` of that traffic under the fabric's routing class
    (adaptive routing: about ``min(1, 1/(f o))``; static ECMP: less, by hash collisions);
    the node keeps the smaller. ``ring``: with packed (topology-ordered) ranks one node per
    group and pod sends out, on NCCL's channels per NIC. ``uniform``: traffic spread evenly
    over the job's other nodes (all-to-all), on NCCL's channels per remote peer. ``tree``: NCCL's
    double binary tree between the domains (``tree_crossing``: its edges join domains 1, 2, 4, ...
    apart, so 2-3.5x a ring's share of its traffic leaves a group), on ``tree_flows_per_port`` flows (each
    tree channel talks to a parent and children). With ``scatter``
    placement (``congestion.assumptions``: the nodes scattered over the cluster's G leaf groups,
    as a busy scheduler leaves them) any peer is in another group with probability 1 - 1/G,
    for both patterns.
    """
    return fabric_bound(plan, p, pattern)[0]


def fabric_bound(plan: Plan, p: Placement, pattern: str) -> tuple[float, str]:
    """``contention``'s share and what keeps it, the one rule the collective model applies and the CLI names:
    ``"nic"`` (nothing beyond the node's NICs), ``"leaf"``, ``"spine"``, ``"global"`` (``_tiers_bound``), or on a
    torus ``"torus-rings"`` (a node's share of its cabled ports for rings per dimension) and ``"torus-cut"``
    (all-to-all over the job's block: its bisection, links and ports)."""
    if p.domains <= 1 or p.nodes <= 1:
        return 1.0, "nic"
    if node_to_node(plan.fabric.family):  # no switches: rings per dimension, all-to-all over the block's cuts
        from core.fabric.torus import node_shares

        f = plan.fabric
        shares = node_shares(f.torus_dims, f.torus_width, f.port_speed_gbps,
                             cabled_nics(f, plan.resolved.nics_per_node), p.nodes)  # of the cabled ports (``links``)
        share = shares["uniform" if pattern == "uniform" else "ring"]
        return share, ("nic" if share >= 1.0 else "torus-cut" if pattern == "uniform" else "torus-rings")
    c = congestion.load_constants()
    if pattern == "ring":
        f1 = 1.0 / p.nodes_in_group if p.groups > 1 else 0.0
        f2 = 1.0 / p.nodes_in_pod if p.pods > 1 else 0.0
    elif pattern == "tree":  # NCCL's double binary tree over the domains, blocks of a group's (pod's) domains
        per_domain = max(1.0, p.nodes / p.domains)
        f1 = tree_crossing(p.nodes_in_group / per_domain) if p.groups > 1 else 0.0
        f2 = tree_crossing(p.nodes_in_pod / per_domain) if p.pods > 1 else 0.0
    else:
        f1, f2 = uniform_fractions(p)
    if congestion.current().placement == "scatter":  # never less crossing than packed ranks
        s1, s2 = _spread_fractions(plan)
        f1, f2 = max(f1, s1), max(f2, s2)
    flows = {"ring": c.ring_flows_per_port, "tree": c.tree_flows_per_port}.get(
        pattern, c.p2p_flows_per_peer * (p.nodes - 1))
    return _tiers_bound(plan, f1, f2, flows)


def p2p_contention(plan: Plan, job_gpus: int, distance_gpus: int) -> float:
    """Share of a node's fabric bandwidth a point-to-point send to the rank ``distance_gpus`` away keeps.

    Pipeline stages sit ``tp x cp x dp`` GPUs apart (Megatron's rank order). With packed ranks a
    node's peer is ``distance / gpus_per_node`` nodes on, so that fraction of a group's nodes
    (all of them once the distance reaches the group) send through the leaf uplinks, and likewise
    for pods; with spread placement, 1 - 1/G as for the collectives. NCCL drives ``p2p_flows_per_peer`` flows.
    """
    p = place(plan, min(plan.resolved.gpus, max(2, int(job_gpus))))
    if p.nodes <= 1 or distance_gpus < plan.resolved.gpus_per_node:
        return 1.0
    hop = distance_gpus / plan.resolved.gpus_per_node
    f1 = min(1.0, hop / p.nodes_in_group) if p.groups > 1 else 0.0
    f2 = min(1.0, hop / p.nodes_in_pod) if p.pods > 1 else 0.0
    if congestion.current().placement == "scatter":
        s1, s2 = _spread_fractions(plan)
        f1, f2 = max(f1, s1), max(f2, s2)
    return _tiers_share(plan, f1, f2, congestion.load_constants().p2p_flows_per_peer)


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
    mesh_peer: float = 0.0
    """Effective bandwidth to one peer of a direct-mesh scale-up domain [GB/s, one direction]; 0 for a
    switch domain (``core.perf.mesh``: a mesh communicator of ``d`` ranks gets ``d - 1`` of these)."""
    transport_latency_us: float = 0.0
    """What the fabric class's transport adds to each network step [us] (``FabricConstants``)."""


def spans_level2(plan: Plan, placement: "Placement | None") -> bool:
    """Whether ``placement``'s ranks inside one NVLink domain span several first-level domains (racks), so their
    NVLink traffic crosses the second NVSwitch level (``core.fabric.domainlevels``)."""
    level1 = plan.resolved.nvlink_rack_gpus
    return bool(level1) and placement is not None and placement.ranks_per_domain * placement.stride > level1


def links(plan: Plan, constants: CollectiveConstants | None = None, placement: "Placement | None" = None) -> Links:
    """Effective bandwidths of ``plan``'s NVLink and NICs, and what the hardware supports (``constants``: default
    the bundled ones as the design's calibration corrects them).

    With ``placement`` whose ranks span first-level domains of a two-level NVLink domain (``spans_level2``), the
    NVLink figures are the second level's per GPU (``ScaleUp.level2_gbytes_per_gpu``: the bottleneck of a ring
    that crosses it; conservative for all-to-all, of which only the share leaving the rack crosses) and NVLS is
    not offered: NVIDIA published no NVLink SHARP figure across the second level, so it is not modelled. The NIC
    figures count the ports the fabric cables (``core.fabric.families.cabled_nics``: a torus leaves some unused)."""
    c = constants or constants_for(plan)
    r = plan.resolved
    mesh_peer = 0.0
    if r.nvlink_domain_gpus > 1:
        nvl_line = r.nvlink_gbytes_per_gpu_bidir / 2
        if spans_level2(plan, placement):
            nvl_line = scaleup_of(r).level2_gbytes_per_gpu
        efficiency = c.nvlink_efficiency(r.nvlink_generation)  # the collective library's scale-up share
        nvl = nvl_line * efficiency
        if r.system.is_mesh:
            links = max(1, r.system.nvlink_links_per_gpu)  # the resolved bandwidth: a failure what-if scales it
            mesh_peer = efficiency * mesh.peer_gbytes(nvl_line / links, links, r.system.nvlink_domain_gpus)  # board wiring
    else:
        nvl_line = nvl = c.pcie.gbytes_per_direction
    fab = c.fabric_constants(fabric_class(plan))
    nic_line = cabled_nics(plan.fabric, r.nics_per_node) * fed_nic_gbits(r) / 8 / r.gpus_per_node  # cabled, host-fed
    nvls = (c.nvls_efficiency(r.system.nvswitch_generation) if r.nvlink_domain_gpus > 1
            and not spans_level2(plan, placement) else None)
    sharp = c.nccl_sharp_version(r.switch.id) if sharp_case(plan, c) == "offered" else None  # in the switches
    return Links(nvl, nvl_line, nic_line * fab.nic_efficiency, nic_line, nvls, sharp, fab.switch_hop_latency_us,
                 r.fabric, c.compute_capability(r.system.architecture), mesh_peer=mesh_peer,
                 transport_latency_us=fab.transport_latency_us)


def sharp_case(plan: Plan, constants: CollectiveConstants | None = None) -> str:
    """Whether ``plan``'s fabric switches offer an in-network reduction NCCL can use (InfiniBand SHARP, CollNet): the
    one rule ``links`` (``Links.sharp``), the forced algorithm's check and every line that names SHARP follow.
    ``"offered"``; else why not: ``"fabric"`` (not InfiniBand: Ethernet switches do not reduce), ``"switches"``
    (its family joins nodes node to node, ``core.fabric.families.node_to_node``: no switch to reduce in),
    ``"catalog"`` (the switch model declares no SHARP, ``collectives.toml`` ``[[sharp]]``) or ``"nccl"`` (a SHARP
    NCCL cannot use: SHARPv1)."""
    c = constants or constants_for(plan)
    if c.fabric_constants(fabric_class(plan)).kind != "infiniband":
        return "fabric"
    if node_to_node(plan.fabric.family):
        return "switches"
    entry = c.sharp_entry(plan.resolved.switch.id)
    return "catalog" if entry is None else "offered" if entry.nccl_collnet else "nccl"


def sharp_used(plan: Plan, requested: bool) -> bool:
    """Whether a job that asks for SHARP (``requested``) has it modelled on ``plan``: only where its switches offer it
    (``sharp_case``). The one rule the Performance page's job, the pack and ``python -m core train`` apply, so a
    request on Ethernet or a torus is reported as not modelled (``sharp_absent`` says why)."""
    return bool(requested) and sharp_case(plan) == "offered"


SHARP_ABSENT = {
    "fabric": N_("In-network reduction is a feature of InfiniBand switches; this design's {fabric} switches "
                 "do not reduce."),
    "switches": N_("In-network reduction happens in switches; this design's nodes are joined node to node, "
                   "without switches."),
    "catalog": N_("{switch} has no in-network reduction in the catalog."),
    "nccl": N_("{switch} has {version}, which NCCL cannot use: NCCL's SHARP plugin needs Quantum HDR switches or "
               "later."),
}
"""Why a design's collectives have no SHARP, by ``sharp_case`` (``sharp_absent``)."""


def sharp_absent(plan: Plan) -> str | None:
    """Why ``plan``'s fabric offers no SHARP (``SHARP_ABSENT``), in the current language; None when its switches offer
    it (``sharp_case``): what the Performance page and ``python -m core collective`` say instead of a SHARP line."""
    c = constants_for(plan)
    case = sharp_case(plan, c)
    if case == "offered":
        return None
    r = plan.resolved
    return _(SHARP_ABSENT[case]).format(fabric=vocab.fabric_label(r.fabric, r.nic.transport), switch=r.switch.id,
                                        version=c.sharp_version(r.switch.id) or "")


def fabric_class(plan: Plan) -> str:
    """The collective model's fabric class of ``plan``: its NIC's cloud transport (``efa``, ``tcpx``, ``tcpxo``)
    when the NIC is a cloud instance's adapter, else its fabric (``infiniband``, ``ethernet``)."""
    return plan.resolved.nic.transport or plan.resolved.fabric


def bottleneck_line_gbytes(plan: Plan, placement: Placement) -> float:
    """Line rate of the slowest link a rank's ring traffic crosses [GB/s, one direction].

    NVLink per GPU inside one domain; across domains the smaller of NVLink and the
    NIC ports of the emptiest domain serving this communicator
    (``min_ranks_per_domain`` x NIC per GPU: a partly filled last domain has fewer NICs).
    """
    lk = links(plan, placement=placement)
    nics = bottleneck_nics(plan, placement)
    return nics * lk.nic_per_gpu_line if nics else lk.nvlink_line


def bottleneck_nics(plan: Plan, placement: Placement) -> int:
    """How many GPUs' NIC bandwidth ``bottleneck_line_gbytes`` adds up (the emptiest domain's egress: its ranks x
    each GPU's NIC line rate), or 0 when one GPU's NVLink sets it: what the CLI names the value by."""
    if placement.domains == 1:
        return 0
    lk = links(plan, placement=placement)
    egress = placement.min_ranks_per_domain * lk.nic_per_gpu_line
    return placement.min_ranks_per_domain if placement.ranks_per_domain == 1 or egress <= lk.nvlink_line else 0
