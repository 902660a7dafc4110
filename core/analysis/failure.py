"""Failure what-if: fail switches, planes or NICs of a planned design and compare with the healthy one.

``what_if(plan, failures)`` takes a ``core.plan.Plan`` and failure specs and returns a
``FailureResult``; the plan is never changed (frozen models; a degraded *copy* feeds the
collective and training models). Element names are those of ``core.fabric.topology.fabric_graph``:

* ``p0.leaf3``, ``p0.spine1``, ``p0.core2`` (``p<plane>.i<island>.leaf3`` with islands: rail-only,
  per-rail planes); ``leaf3`` alone means plane 0 (island 0); ``su2-rail4`` is the rail-4 leaf of
  scalable unit 2 (both 1-based, plane 0) in rail-optimized fabrics; a top-of-rack leaf is its rack's ToR;
* ``p1``: a whole plane;
* ``node5.nic2``: NIC 2 of node 5 (all its ports, one per plane);
* ``rack3``: rack 3 (0-based) without power: its nodes and, top-of-rack, its ToR switches.

A spec is ``tier:count`` (``spine:2``: that many elements of the tier, chosen where they hurt most:
a leaf group's leaves before the next group's, so nodes are cut off soonest; a pod's spines before the
next pod's; a core group's cores before the next; a node's NICs before the next node's; named in
``FailureResult.failed``) or ``tier:name`` / ``name``. Tiers: ``leaf`` (alias ``tor``), ``spine``,
``core``, ``plane``, ``nic``, ``rack`` (``rack3``: the rack's power lost, its nodes and, in top-of-rack
fabrics, its ToRs).

Method (closed form over the fabric's symmetry; no per-GPU or per-link loop, so it costs the same at
131,072 GPUs as at 64; ``tests/test_failure.py`` checks it against networkx reachability and max-flow):

* **Cut off**: switch components per plane (and island) are found at pod / leaf granularity (a leaf
  reaches its plane's spines while one of them lives; pods join through core groups with a live core
  and live spine j in both); nodes (and NVLink domains of several nodes, which forward over NVLink)
  join the components their live ports reach. GPUs outside the component holding the most nodes are
  cut off.
* **Degraded**: a GPU of a connected node whose NIC lost a port (a dead NIC, leaf, plane, or a leaf cut
  off from the rest). When the NIC lost every port, NCCL forwards the GPU's traffic over NVLink to a NIC
  on another rail (PXN: "inter-node communication using a non-local NIC, using NVLink and an intermediate
  GPU", NCCL environment-variable docs, ``NCCL_PXN_DISABLE``, on by default since NCCL 2.12):
  ``gpus_via_pxn``. Nodes of one multi-node NVLink domain (NVL72 trays) are assumed to forward to each
  other the same way, so a tray without a live NIC is degraded, not cut off, while its rack reaches the
  fabric.
* **Bisection** (one direction): per stage (NIC injection, leaf uplinks, spine uplinks) and per plane,
  the worst balanced cut puts every failed leaf, NIC and (with several pods) spine on one side; failed
  spines of a two-tier fabric and failed cores sit above the cut and reduce both sides. The bisection
  is the sum over planes of each plane's smallest stage, as ``core.fabric.bandwidth.bisection_gbits``
  (exact when the failures fit in one half, as the max-flow tests check).
* **busbw**: ``core.perf.collectives.collective`` all-reduce and all-to-all of ``BUSBW_BYTES`` on the connected GPUs of a
  degraded copy of the plan whose NIC rate is the slowest connected node's surviving share (a collective
  runs at the pace of its slowest rank; PXN moves a lost rail's share onto another NIC) and whose leaf
  and spine oversubscription are the worst live switch's.
* **Step time**: ``core.perf.training.estimate`` of the job on the same degraded copy.
* **ECMP**: a live switch whose uplinks lost some (not all) of their next hops while others of its tier
  kept all of theirs: its flows hash onto fewer paths (upward groups).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from core.errors import DesignError, InputError, shown
from core.fabric.bandwidth import tier_capacities_gbits
from core.i18n import N_, _
from core.plan import Plan

TIERS = ("leaf", "spine", "core", "plane", "nic", "rack")
TIER_ALIASES = {"tor": "leaf"}
TIER_LABELS = {"leaf": N_("leaf"), "spine": N_("spine"), "core": N_("core"), "plane": N_("plane"), "nic": N_("NIC"),
               "rack": N_("rack")}
STAGES = ("injection", "leaf_up", "spine_up")
STAGE_LABELS = {"injection": N_("NIC injection"), "leaf_up": N_("leaf uplinks"), "spine_up": N_("spine uplinks")}
BUSBW_BYTES = 1 << 30
"""Message size of the all-reduce busbw figure (1 GiB, large enough to be bandwidth-bound)."""
MAX_FAILURES = 10_000
"""Most elements one what-if fails."""


class FailureResult(BaseModel):
    """The failed design against the healthy one. Bandwidths one direction; Tb/s = 1e12 bit/s, GB/s = 1e9 byte/s."""

    model_config = ConfigDict(frozen=True)

    failed: tuple[dict, ...]
    """``{"element", "tier", "chosen"}``: ``chosen`` when picked by a ``tier:count`` spec."""
    gpus: int
    nodes: int
    gpus_disconnected: int
    nodes_disconnected: int
    gpus_degraded: int
    """GPUs of connected nodes whose NIC lost at least one port."""
    gpus_via_pxn: int
    """Of those, GPUs whose NIC lost every port: their traffic crosses NVLink to another rail's NIC (PXN)."""
    bisection_tbits_one_direction: float
    healthy_bisection_tbits_one_direction: float
    stages_tbits: dict
    """Per stage: ``{"healthy", "remaining"}`` bisection-side capacity [Tb/s, one direction] (the damaged half)."""
    busbw_gbytes: float | None
    healthy_busbw_gbytes: float | None
    busbw_method: str
    alltoall_busbw_gbytes: float | None = None
    healthy_alltoall_busbw_gbytes: float | None = None
    """All-to-all of ``BUSBW_BYTES`` on the same GPUs and degraded copy [GB/s]."""
    step_time_s: float | None = None
    healthy_step_time_s: float | None = None
    ecmp_unbalanced: tuple[dict, ...] = ()
    """``{"tier", "switches", "healthy_paths", "remaining_paths"}`` per tier and remaining next-hop count."""
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """Machine-readable keys (English), as ``python -m core failure --format json`` prints them."""
        return {
            "failed": list(self.failed),
            "gpus": self.gpus,
            "nodes": self.nodes,
            "gpus_disconnected": self.gpus_disconnected,
            "nodes_disconnected": self.nodes_disconnected,
            "gpus_degraded": self.gpus_degraded,
            "gpus_via_pxn": self.gpus_via_pxn,
            "bisection_tbits_one_direction": round(self.bisection_tbits_one_direction, 6),
            "stages_tbits_one_direction": {k: {kk: round(vv, 6) for kk, vv in v.items()}
                                           for k, v in self.stages_tbits.items()},
            "busbw_gbytes": None if self.busbw_gbytes is None else round(self.busbw_gbytes, 3),
            "busbw_bytes": BUSBW_BYTES,
            "busbw_method": self.busbw_method,
            "alltoall_busbw_gbytes": None if self.alltoall_busbw_gbytes is None else round(self.alltoall_busbw_gbytes, 3),
            "step_time_s": None if self.step_time_s is None else round(self.step_time_s, 6),
            "ecmp_unbalanced": list(self.ecmp_unbalanced),
            "healthy": {
                "bisection_tbits_one_direction": round(self.healthy_bisection_tbits_one_direction, 6),
                "busbw_gbytes": None if self.healthy_busbw_gbytes is None else round(self.healthy_busbw_gbytes, 3),
                "alltoall_busbw_gbytes": None if self.healthy_alltoall_busbw_gbytes is None
                else round(self.healthy_alltoall_busbw_gbytes, 3),
                "step_time_s": None if self.healthy_step_time_s is None else round(self.healthy_step_time_s, 6),
            },
            "notes": list(self.notes),
        }


# --------------------------------------------------------------------------------------
# The fabric's shape, one plane and island (counts from FabricPlan)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shape:
    tiers: int
    planes: int
    islands: int
    rails: int
    """NICs per node in one island."""
    nics: int
    nodes: int
    gpus_per_node: int
    nodes_per_domain: int
    nodes_per_rack: int
    leaves: int
    spines: int
    cores: int
    groups: int
    nodes_per_group: int
    leaves_per_group: int
    groups_per_pod: int
    pods: int
    spines_per_pod: int
    cores_per_group: int
    tor: bool
    port_gbps: float
    up_gbps: float
    leaf_uplinks: int
    pair_links: int
    spine_uplinks: tuple[int, ...]
    """Uplinks of each spine, per pod."""

    @staticmethod
    def of(plan: Plan) -> "Shape":
        f, r = plan.fabric, plan.resolved
        islands = f.islands
        pods = f.pod_count if f.tiers == 3 else 1
        return Shape(
            tiers=f.tiers, planes=f.planes, islands=islands, rails=r.nics_per_node // islands, nics=r.nics_per_node,
            nodes=r.nodes, gpus_per_node=r.gpus_per_node,
            nodes_per_domain=max(1, r.nvlink_domain_gpus // r.gpus_per_node), nodes_per_rack=max(1, r.nodes_per_rack),
            leaves=f.leaf_count // islands, spines=f.spine_count // islands, cores=f.core_count // islands,
            groups=f.group_count, nodes_per_group=f.nodes_per_group, leaves_per_group=f.leaves_per_group,
            groups_per_pod=max(1, f.groups_per_pod), pods=pods, spines_per_pod=f.spines_per_pod,
            cores_per_group=f.cores_per_group, tor=f.topology == "top-of-rack", port_gbps=f.port_speed_gbps,
            up_gbps=f.uplink_speed_gbps or f.port_speed_gbps, leaf_uplinks=f.leaf_uplinks,
            pair_links=f.links_per_leaf_spine_pair,
            spine_uplinks=tuple(f.spine_uplinks_in_pod(p) for p in range(pods)) if f.tiers == 3 else (),
        )

    # names ---------------------------------------------------------------------------
    def prefix(self, p: int, i: int) -> str:
        return f"p{p}." if self.islands == 1 else f"p{p}.i{i}."

    def group_nodes(self, g: int) -> int:
        if self.tiers == 1:
            return self.nodes
        return max(0, min(self.nodes_per_group, self.nodes - g * self.nodes_per_group))

    def leaf_of(self, g: int, lr: int) -> int:
        """Leaf (within a plane and island) of local rail ``lr`` of group ``g``."""
        if self.tiers == 1:
            return 0
        return g if self.tor else g * self.leaves_per_group + lr

    def group_of_leaf(self, k: int) -> int:
        return 0 if self.tiers == 1 else k // self.leaves_per_group

    def pod_of_group(self, g: int) -> int:
        return g // self.groups_per_pod if self.tiers == 3 else 0

    def leaf_down_ports(self, k: int) -> int:
        nodes = self.group_nodes(self.group_of_leaf(k))
        return nodes * (self.rails if (self.tor or self.tiers == 1) else 1)

    @property
    def racks(self) -> int:
        return -(-self.nodes // self.nodes_per_rack)

    def pis(self):
        return [(p, i) for p in range(self.planes) for i in range(self.islands)]


@dataclass
class Dead:
    leaves: set = field(default_factory=set)  # (p, i, k)
    spines: set = field(default_factory=set)
    cores: set = field(default_factory=set)
    planes: set = field(default_factory=set)
    nics: dict = field(default_factory=dict)  # node -> set of NICs (0 .. nics-1)


# --------------------------------------------------------------------------------------
# Parsing failure specs
# --------------------------------------------------------------------------------------
_SWITCH = re.compile(r"^(?:p(\d+)\.)?(?:i(\d+)\.)?(leaf|spine|core)(\d+)$")
_SU_RAIL = re.compile(r"^(?:p(\d+)\.)?su(\d+)-rail(\d+)$")
_PLANE = re.compile(r"^p(\d+)$")
_NIC = re.compile(r"^node(\d+)\.nic(\d+)$")
_RACK = re.compile(r"^rack(\d+)$")


def _unknown(text: str, shape: Shape) -> InputError:
    return InputError(_("unknown element {name}; name a switch like {example}, a plane p0-p{last}, or a NIC like "
                        "node0.nic0, or give a tier and a count like spine:2").format(
        name=shown(text), example=shape.prefix(0, 0) + "leaf0", last=shape.planes - 1))


def _element(tier: str, key: tuple, shape: Shape) -> str:
    if tier == "plane":
        return f"p{key[0]}"
    if tier == "nic":
        return f"node{key[0]}.nic{key[1]}"
    if tier == "rack":
        return f"rack{key[0]}"
    p, i, k = key
    return f"{shape.prefix(p, i)}{tier}{k}"


def parse_name(text: str, shape: Shape, tier: str | None = None) -> tuple[str, tuple]:
    """``(tier, key)`` of an element name; ``InputError`` for a name the design does not have."""
    name = text.strip().lower()
    m = _SWITCH.match(name)
    if m:
        p, i, role, k = int(m[1] or 0), int(m[2] or 0), m[3], int(m[4])
        count = {"leaf": shape.leaves, "spine": shape.spines, "core": shape.cores}[role]
        if p >= shape.planes or i >= shape.islands or k >= count or (tier and tier != role):
            raise _unknown(text, shape)
        return role, (p, i, k)
    m = _SU_RAIL.match(name)
    if m and not shape.tor and shape.tiers > 1 and shape.islands == 1:
        p, g, r = int(m[1] or 0), int(m[2]) - 1, int(m[3]) - 1
        if p >= shape.planes or not (0 <= g < shape.groups) or not (0 <= r < shape.rails) or tier not in (None, "leaf"):
            raise _unknown(text, shape)
        return "leaf", (p, 0, shape.leaf_of(g, r))
    m = _PLANE.match(name)
    if m and tier in (None, "plane"):
        if int(m[1]) >= shape.planes:
            raise _unknown(text, shape)
        return "plane", (int(m[1]),)
    m = _RACK.match(name)
    if m and tier in (None, "rack"):
        if int(m[1]) >= shape.racks:
            raise _unknown(text, shape)
        return "rack", (int(m[1]),)
    m = _NIC.match(name)
    if m and tier in (None, "nic"):
        if int(m[1]) >= shape.nodes or int(m[2]) >= shape.nics:
            raise _unknown(text, shape)
        return "nic", (int(m[1]), int(m[2]))
    raise _unknown(text, shape)


def _worst_order(tier: str, shape: Shape):
    """Elements of ``tier`` in the order a count fails them: where they hurt most first."""
    pis = shape.pis()
    if tier == "leaf":
        for g in range(shape.groups if shape.tiers > 1 else 1):
            lrs = [0] if (shape.tor or shape.tiers == 1) else range(shape.leaves_per_group)
            for lr in lrs:
                for p, i in pis:
                    yield (p, i, shape.leaf_of(g, lr))
    elif tier == "spine":
        per_pod = shape.spines_per_pod if shape.tiers == 3 else shape.spines
        for pod in range(shape.pods if shape.tiers == 3 else 1):
            for p, i in pis:
                for j in range(per_pod):
                    yield (p, i, pod * per_pod + j)
    elif tier == "core":
        for p, i in pis:
            for k in range(shape.cores):
                yield (p, i, k)
    elif tier == "plane":
        for p in range(shape.planes):
            yield (p,)
    elif tier == "nic":
        for n in range(shape.nodes):
            for r in range(shape.nics):
                yield (n, r)
    elif tier == "rack":
        for k in range(shape.racks):
            yield (k,)


def _tier_size(tier: str, shape: Shape) -> int:
    per_pi = {"leaf": shape.leaves, "spine": shape.spines, "core": shape.cores}
    if tier in per_pi:
        return per_pi[tier] * shape.planes * shape.islands
    if tier == "rack":
        return shape.racks
    return shape.planes if tier == "plane" else shape.nodes * shape.nics


def resolve_failures(plan: Plan, failures) -> list[tuple[str, tuple, bool]]:
    """``(tier, key, chosen)`` of every element the specs name or choose; ``InputError`` for bad specs."""
    shape = Shape.of(plan)
    named: list[tuple[str, tuple]] = []
    counts: list[tuple[str, int]] = []
    for spec in failures:
        text = str(spec).strip()
        tier, _sep, rest = text.partition(":") if ":" in text else ("", "", text)
        tier = TIER_ALIASES.get(tier.strip().lower(), tier.strip().lower())
        if tier and tier not in TIERS:
            raise InputError(_("unknown tier {tier}; known: {known}").format(tier=shown(tier),
                                                                           known=", ".join(TIERS + ("tor",))))
        rest = rest.strip()
        if tier and rest.isdigit():
            count = int(rest)
            if count < 1:
                raise InputError(_("fail at least 1 element, got {value}").format(value=shown(text)))
            counts.append((tier, count))
        else:
            named.append(parse_name(rest, shape, tier or None))
    out: list[tuple[str, tuple, bool]] = []
    seen = set()
    for tier, key in named:
        if (tier, key) not in seen:
            seen.add((tier, key))
            out.append((tier, key, False))
    for tier, count in counts:
        size = _tier_size(tier, shape)
        taken = sum(1 for t, _k in seen if t == tier)
        if count + taken > size or count > MAX_FAILURES:
            raise InputError(_("cannot fail {count} {tier} elements: the design has {size} ({taken} already "
                               "named)").format(count=count, tier=tier, size=size, taken=taken))
        for key in _worst_order(tier, shape):
            if count == 0:
                break
            if (tier, key) in seen:
                continue
            seen.add((tier, key))
            out.append((tier, key, True))
            count -= 1
    return out


def _dead_of(elements, shape: Shape) -> Dead:
    dead = Dead()
    for tier, key, _chosen in elements:
        if tier == "leaf":
            dead.leaves.add(key)
        elif tier == "spine":
            dead.spines.add(key)
        elif tier == "core":
            dead.cores.add(key)
        elif tier == "plane":
            dead.planes.add(key[0])
        elif tier == "rack":  # the rack's power: its nodes (every NIC) and, top-of-rack, its ToRs
            first = key[0] * shape.nodes_per_rack
            for n in range(first, min(shape.nodes, first + shape.nodes_per_rack)):
                dead.nics.setdefault(n, set()).update(range(shape.nics))
                if shape.tor and shape.tiers > 1:
                    for p, i in shape.pis():
                        dead.leaves.add((p, i, shape.leaf_of(n // shape.nodes_per_group, 0)))
        else:
            dead.nics.setdefault(key[0], set()).add(key[1])
    return dead


# --------------------------------------------------------------------------------------
# Connectivity
# --------------------------------------------------------------------------------------
class _Union:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        parent = self.parent
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


class _Fabric:
    """Switch-level state of a failed design, answered per leaf at pod / leaf granularity."""

    def __init__(self, shape: Shape, dead: Dead):
        self.shape, self.dead = shape, dead
        self.dead_spines_per_pi: dict = {}
        self.dead_spines_per_pod: dict = {}  # (p, i, pod) -> count
        for p, i, k in dead.spines:
            self.dead_spines_per_pi[(p, i)] = self.dead_spines_per_pi.get((p, i), 0) + 1
            pod = k // shape.spines_per_pod if shape.tiers == 3 else 0
            self.dead_spines_per_pod[(p, i, pod)] = self.dead_spines_per_pod.get((p, i, pod), 0) + 1
        self.dead_cores_per_group: dict = {}
        for p, i, k in dead.cores:
            j = k // max(1, shape.cores_per_group)
            self.dead_cores_per_group[(p, i, j)] = self.dead_cores_per_group.get((p, i, j), 0) + 1
        self.pod_root: dict = {}  # (p, i) -> {pod: root} for touched planes in three tiers
        if shape.tiers == 3:
            touched = {(p, i) for p, i, _k in dead.spines} | {(p, i) for p, i, _k in dead.cores}
            for pi in touched:
                self.pod_root[pi] = self._pod_components(*pi)

    def leaf_alive(self, p: int, i: int, k: int) -> bool:
        return p not in self.dead.planes and (p, i, k) not in self.dead.leaves

    def spine_alive(self, p, i, k) -> bool:
        return p not in self.dead.planes and (p, i, k) not in self.dead.spines

    def live_uplinks(self, p: int, i: int, k: int) -> int:
        """Uplinks of leaf ``k`` to live spines (the leaf itself assumed alive)."""
        s = self.shape
        if s.tiers == 1:
            return 0
        pod = s.pod_of_group(s.group_of_leaf(k))
        dead = (self.dead_spines_per_pod.get((p, i, pod), 0) if s.tiers == 3 else self.dead_spines_per_pi.get((p, i), 0))
        per = s.spines_per_pod if s.tiers == 3 else s.spines
        return (per - dead) * s.pair_links

    def _pod_components(self, p: int, i: int) -> dict:
        s = self.shape
        union = _Union()
        for pod in range(s.pods):
            union.find(pod)
        for j in range(s.spines_per_pod):
            if self.dead_cores_per_group.get((p, i, j), 0) >= s.cores_per_group:
                continue
            alive_pods = [pod for pod in range(s.pods) if (p, i, pod * s.spines_per_pod + j) not in self.dead.spines]
            for pod in alive_pods[1:]:
                union.union(alive_pods[0], pod)
        return {pod: union.find(pod) for pod in range(s.pods)}

    def label(self, p: int, i: int, k: int):
        """The switch component leaf ``k`` of plane ``p``, island ``i`` belongs to (None: leaf dead)."""
        if not self.leaf_alive(p, i, k):
            return None
        s = self.shape
        if s.tiers == 1:
            return ("f", p, i)
        if s.tiers == 2:
            if self.dead_spines_per_pi.get((p, i), 0) >= s.spines:
                return ("l", p, i, k)
            return ("f", p, i)
        pod = s.pod_of_group(s.group_of_leaf(k))
        if self.dead_spines_per_pod.get((p, i, pod), 0) >= s.spines_per_pod:
            return ("l", p, i, k)
        roots = self.pod_root.get((p, i))
        return ("f", p, i, roots[pod] if roots else 0)


@dataclass
class _Unit:
    """Nodes that see the fabric alike: ``count`` nodes with the same ports."""

    count: int
    ports: list  # (p, i, nic, label or None)
    labels: frozenset


def _node_ports(fab: _Fabric, g: int, dead_nics: set) -> list:
    s = fab.shape
    ports = []
    for p, i in s.pis():
        for lr in range(s.rails):
            nic = lr * s.islands + i
            if nic in dead_nics:
                ports.append((p, i, nic, None))
                continue
            ports.append((p, i, nic, fab.label(p, i, s.leaf_of(g, lr))))
    return ports


def _units(fab: _Fabric) -> list[tuple[list[_Unit], int]]:
    """Pieces that share NVLink: ``(units, nodes)``; a piece's labels are the union of its units'.

    A node count below zero means that many separate nodes alike (no NVLink between them). Groups whose
    leaves all live and reach their plane's spines see the fabric alike (per pod): their ports are
    computed once, and with one node per NVLink domain their nodes form one piece per pod.
    """
    s, dead = fab.shape, fab.dead
    group_count = s.groups if s.tiers > 1 else 1
    npg = s.nodes_per_group if s.tiers > 1 else s.nodes
    dead_leaf_groups = {s.group_of_leaf(k) for _p, _i, k in dead.leaves}
    isolated_pods = set()
    if s.tiers == 2:
        if any(n >= s.spines for n in fab.dead_spines_per_pi.values()):
            isolated_pods.add(0)
    elif s.tiers == 3:
        isolated_pods = {pod for (_p, _i, pod), n in fab.dead_spines_per_pod.items() if n >= s.spines_per_pod}
    broken_by_group: dict[int, list] = {}
    for node in dead.nics:
        broken_by_group.setdefault(node // npg if s.tiers > 1 else 0, []).append(node)
    clean: dict = {}

    def clean_ports(g):
        pod = s.pod_of_group(g)
        key = g if (g in dead_leaf_groups or pod in isolated_pods) else ("pod", pod)
        if key not in clean:
            clean[key] = _node_ports(fab, g, set())
        return key, clean[key]

    def make(ports, count):
        return _Unit(count, ports, frozenset(x[3] for x in ports if x[3] is not None))

    pieces = []
    if s.nodes_per_domain == 1:
        merged: dict = {}
        for g in range(group_count):
            n = s.group_nodes(g)
            broken = broken_by_group.get(g, ())
            if n - len(broken) > 0:
                key, ports = clean_ports(g)
                merged[key] = (ports, merged.get(key, (ports, 0))[1] + n - len(broken))
            for node in broken:
                pieces.append(([make(_node_ports(fab, g, dead.nics[node]), 1)], 1))
        for ports, count in merged.values():
            pieces.append(([make(ports, count)], -count))  # negative: that many separate nodes
        return pieces
    d = s.nodes_per_domain
    units_of: dict = {}
    for first in range(0, s.nodes, d):
        last = min(s.nodes, first + d)
        units = []
        node = first
        while node < last:
            g = node // npg if s.tiers > 1 else 0
            end = min(last, (g + 1) * npg) if s.tiers > 1 else last
            broken = [x for x in broken_by_group.get(g, ()) if node <= x < end]
            if end - node - len(broken) > 0:
                key, ports = clean_ports(g)
                if key not in units_of:
                    units_of[key] = make(ports, 0)
                units.append(_Unit(end - node - len(broken), ports, units_of[key].labels))
            for x in broken:
                units.append(make(_node_ports(fab, g, dead.nics[x]), 1))
            node = end
        pieces.append((units, last - first))
    return pieces


# --------------------------------------------------------------------------------------
# The analysis
# --------------------------------------------------------------------------------------
@dataclass
class Analysis:
    """Raw numbers of one failed state (``what_if`` wraps them with the perf models)."""

    nodes_disconnected: int
    gpus_degraded: int
    gpus_via_pxn: int
    worst_port_fraction: float
    stages_gbits: dict  # stage -> (healthy side, remaining side) [Gb/s]
    bisection_gbits: float
    healthy_bisection_gbits: float
    ecmp: list
    worst_leaf_up_fraction: float
    worst_spine_up_fraction: float


def _gpu_nics(shape: Shape) -> list[tuple[int, ...]]:
    gpn, nics = shape.gpus_per_node, shape.nics
    if nics >= gpn:
        return [tuple(range(g * nics // gpn, (g + 1) * nics // gpn)) for g in range(gpn)]
    return [(g * nics // gpn,) for g in range(gpn)]


def analyse(plan: Plan, elements) -> Analysis:
    shape = Shape.of(plan)
    dead = _dead_of(elements, shape)
    fab = _Fabric(shape, dead)
    pieces = _units(fab)

    # components: labels joined by pieces; pieces with no live port stand alone
    union = _Union()
    for units, _n in pieces:
        labels = [lab for u in units for lab in u.labels]
        for lab in labels[1:]:
            union.union(labels[0], lab)
    size: dict = {}
    for units, n in pieces:
        labels = [lab for u in units for lab in u.labels]
        if labels:  # a piece with no live port reaches no switch: cut off, never the main component
            root = union.find(labels[0])
            size[root] = size.get(root, 0) + abs(n)
    main = max(size, key=size.get) if size else None
    main_nodes = size.get(main, 0) if main is not None else 0
    nodes_disconnected = shape.nodes - main_nodes

    gpu_nics = _gpu_nics(shape)
    degraded = pxn = 0
    worst_fraction = 1.0
    total_ports = shape.nics * shape.planes
    for units, _n in pieces:
        labels = [lab for u in units for lab in u.labels]
        if main is None or not labels or union.find(labels[0]) != main:
            continue  # the piece (node, or NVLink domain of nodes) is cut off
        for u in units:
            lost = {}
            for _p, _i, nic, lab in u.ports:
                ok = lab is not None and union.find(lab) == main
                lost.setdefault(nic, [0, 0])
                lost[nic][0] += 0 if ok else 1
                lost[nic][1] += 1
            bad = sum(lost[n][0] for n in lost)
            worst_fraction = min(worst_fraction, 1 - bad / max(1, total_ports))
            for nics in gpu_nics:
                if any(lost[n][0] for n in nics):
                    degraded += u.count
                    if all(lost[n][0] == lost[n][1] for n in nics):
                        pxn += u.count

    stages, bisection, healthy = _bisection(plan, shape, fab)
    ecmp, leaf_frac, spine_frac = _ecmp(shape, fab)
    return Analysis(nodes_disconnected, degraded, pxn, worst_fraction, stages, bisection, healthy, ecmp,
                    leaf_frac, spine_frac)


def _bisection(plan: Plan, shape: Shape, fab: _Fabric):
    """Per stage and plane: the healthy half and the damaged half [Gb/s, one direction] (module docstring)."""
    caps = tier_capacities_gbits(plan.resolved, plan.fabric)
    npi = shape.planes * shape.islands
    relevant = ["injection"]
    if shape.tiers >= 2 and shape.groups > 1:
        relevant.append("leaf_up")
        if shape.tiers == 3 and shape.pods > 1:
            relevant.append("spine_up")
    dead = fab.dead
    unit = "pod" if "spine_up" in relevant else ("group" if "leaf_up" in relevant else "node")
    half_units = {"pod": shape.pods, "group": shape.groups, "node": shape.nodes}[unit] // 2
    s = shape

    def unit_of_node(n):
        g = n // s.nodes_per_group if s.tiers > 1 else 0
        return ("pod", s.pod_of_group(g)) if unit == "pod" else (("group", g) if unit == "group" else ("node", n))

    def unit_of_leaf(k):
        g = s.group_of_leaf(k)
        return ("pod", s.pod_of_group(g)) if unit == "pod" else ("group", g)

    # damage per (pi, stage, unit) beyond what both halves share
    damage: dict = {}

    def hurt(pi, stage, u, gbits):
        if gbits > 0:
            damage.setdefault((pi, stage), {}).setdefault(u, 0.0)
            damage[(pi, stage)][u] += gbits

    shared: dict = {}  # (pi, stage) -> factor both halves keep
    two_tier_shared = shape.tiers == 2 or (shape.tiers == 3 and shape.pods == 1)
    full_down = (s.nodes_per_group * (s.rails if s.tor else 1)) * s.port_gbps if s.tiers > 1 else 0

    def leaf_usable(down_gbps, up_links):
        return min(down_gbps, up_links * s.up_gbps)

    for pi in s.pis():
        p, i = pi
        if p in dead.planes:
            for stage in relevant:
                shared[(pi, stage)] = 0.0
            continue
        if "leaf_up" in relevant and two_tier_shared:
            pod_key = (p, i, 0) if shape.tiers == 3 else None
            dead_sp = fab.dead_spines_per_pod.get(pod_key, 0) if pod_key else fab.dead_spines_per_pi.get(pi, 0)
            per = s.spines_per_pod if shape.tiers == 3 else s.spines
            live = (per - dead_sp) * s.pair_links
            base = leaf_usable(full_down, s.leaf_uplinks)
            shared[(pi, "leaf_up")] = leaf_usable(full_down, live) / base if base else 1.0
        if "spine_up" in relevant:
            factors = []
            for j in range(s.spines_per_pod):
                alive = s.cores_per_group - fab.dead_cores_per_group.get((p, i, j), 0)
                up = s.spine_uplinks[0]
                down = s.groups_per_pod * s.leaves_per_group * s.pair_links
                factors.append(min(down, up * alive / s.cores_per_group) / min(down, up) if min(down, up) else 1.0)
            shared[(pi, "spine_up")] = sum(factors) / len(factors)

    # injection: every lost port of a node (NIC dead, its leaf or plane dead)
    lost_nodes: dict = {}
    for p, i, k in dead.leaves:
        if p in dead.planes:
            continue
        g = s.group_of_leaf(k)
        first = g * s.nodes_per_group if s.tiers > 1 else 0
        per_node = s.rails if (s.tor or s.tiers == 1) else 1
        for n in range(first, first + s.group_nodes(g)):
            lost_nodes.setdefault(n, {}).setdefault((p, i), 0)
            lost_nodes[n][(p, i)] += per_node
    for n, nics in dead.nics.items():
        for nic in nics:
            i = nic % s.islands
            lr = nic // s.islands
            g = n // s.nodes_per_group if s.tiers > 1 else 0
            for p in range(s.planes):
                if p in dead.planes or (p, i, s.leaf_of(g, lr)) in dead.leaves:
                    continue
                lost_nodes.setdefault(n, {}).setdefault((p, i), 0)
                lost_nodes[n][(p, i)] += 1
    for n, per_pi in lost_nodes.items():
        for pi, ports in per_pi.items():
            hurt(pi, "injection", unit_of_node(n), ports * s.port_gbps)

    # leaf uplinks: a dead leaf, a leaf with fewer live down ports, or (with pods) fewer live spines
    if "leaf_up" in relevant:
        touched = {(p, i, k) for p, i, k in dead.leaves}
        for n, nics in dead.nics.items():
            g = n // s.nodes_per_group
            for nic in nics:
                for p in range(s.planes):
                    touched.add((p, nic % s.islands, s.leaf_of(g, nic // s.islands)))
        if not two_tier_shared:
            for (p, i, pod), _c in fab.dead_spines_per_pod.items():
                for g in range(pod * s.groups_per_pod, min(s.groups, (pod + 1) * s.groups_per_pod)):
                    for lr in range(s.leaves_per_group):
                        touched.add((p, i, s.leaf_of(g, lr)))
        for p, i, k in touched:
            pi = (p, i)
            if p in dead.planes:
                continue
            down = s.leaf_down_ports(k) * s.port_gbps
            factor = shared.get((pi, "leaf_up"), 1.0)
            base = leaf_usable(down, s.leaf_uplinks) * factor
            if not fab.leaf_alive(p, i, k):
                now = 0.0
            else:
                g = s.group_of_leaf(k)
                first = g * s.nodes_per_group
                lost = 0
                for n in range(first, first + s.group_nodes(g)):
                    for nic in dead.nics.get(n, ()):
                        if nic % s.islands == i and s.leaf_of(g, nic // s.islands) == k:
                            lost += 1
                live_down = down - lost * s.port_gbps
                now = leaf_usable(live_down, fab.live_uplinks(p, i, k))
            hurt(pi, "leaf_up", unit_of_leaf(k), max(0.0, base - now))

    # spine uplinks (three tiers, several pods): a dead spine, or a spine whose leaves lost down capacity
    if "spine_up" in relevant:
        touched_spines = set(dead.spines)
        for p, i, k in dead.leaves:
            pod = s.pod_of_group(s.group_of_leaf(k))
            for j in range(s.spines_per_pod):
                touched_spines.add((p, i, pod * s.spines_per_pod + j))
        for p, i, k in touched_spines:
            if p in dead.planes:
                continue
            pi = (p, i)
            pod, j = divmod(k, s.spines_per_pod)
            pod_groups = min(s.groups_per_pod, s.groups - pod * s.groups_per_pod)
            down_links = pod_groups * s.leaves_per_group * s.pair_links
            alive = s.cores_per_group - fab.dead_cores_per_group.get((p, i, j), 0)
            up = s.spine_uplinks[pod] * alive / s.cores_per_group
            base = min(down_links, up) * s.up_gbps
            if (p, i, k) in dead.spines:
                now = 0.0
            else:
                dead_leaves = sum(1 for g in range(pod * s.groups_per_pod, pod * s.groups_per_pod + pod_groups)
                                  for lr in range(s.leaves_per_group) if (p, i, s.leaf_of(g, lr)) in dead.leaves)
                now = min(down_links - dead_leaves * s.pair_links, up) * s.up_gbps
            hurt(pi, "spine_up", ("pod", pod), max(0.0, base - now))

    stages = {}
    total = 0.0
    healthy_total = 0.0
    per_stage_remaining = {st: 0.0 for st in relevant}
    for pi in s.pis():
        values = []
        for stage in relevant:
            half = caps[stage] / npi / 2
            kept = half * shared.get((pi, stage), 1.0)
            hurts = damage.get((pi, stage), {})
            # the worst cut: the most damaged units (up to half of them) on one side
            worst = sorted(hurts.values(), reverse=True)[:max(1, half_units)]
            side = max(0.0, kept - sum(worst))
            per_stage_remaining[stage] += side
            values.append(side)
        total += min(values)
        healthy_total += min(caps[stage] / npi / 2 for stage in relevant)
    for stage in relevant:
        stages[stage] = (caps[stage] / 2, per_stage_remaining[stage])
    return stages, total, healthy_total


def _ecmp(shape: Shape, fab: _Fabric):
    """Upward ECMP groups that lost some next hops; the worst live leaf's and spine's uplink share left."""
    s, dead = shape, fab.dead
    rows: dict = {}
    leaf_frac = spine_frac = 1.0
    if s.tiers >= 2:
        per = s.spines_per_pod if s.tiers == 3 else s.spines
        if s.tiers == 2:
            for (p, i), n_dead in fab.dead_spines_per_pi.items():
                if p in dead.planes or n_dead >= per:
                    continue
                live = s.leaves - sum(1 for q, j, _k in dead.leaves if (q, j) == (p, i))
                key = ("leaf", per, per - n_dead)
                rows[key] = rows.get(key, 0) + live
                leaf_frac = min(leaf_frac, (per - n_dead) / per)
        else:
            for (p, i, pod), n_dead in fab.dead_spines_per_pod.items():
                if p in dead.planes or n_dead >= per:
                    continue
                live = sum(1 for g in range(pod * s.groups_per_pod, min(s.groups, (pod + 1) * s.groups_per_pod))
                           for lr in range(s.leaves_per_group) if fab.leaf_alive(p, i, s.leaf_of(g, lr)))
                key = ("leaf", per, per - n_dead)
                rows[key] = rows.get(key, 0) + live
                leaf_frac = min(leaf_frac, (per - n_dead) / per)
    if s.tiers == 3:
        for (p, i, j), n_dead in fab.dead_cores_per_group.items():
            if p in dead.planes or n_dead >= s.cores_per_group:
                continue
            live = sum(1 for pod in range(s.pods) if fab.spine_alive(p, i, pod * s.spines_per_pod + j))
            key = ("spine", s.cores_per_group, s.cores_per_group - n_dead)
            rows[key] = rows.get(key, 0) + live
            spine_frac = min(spine_frac, (s.cores_per_group - n_dead) / s.cores_per_group)
    out = [{"tier": t, "switches": n, "healthy_paths": h, "remaining_paths": r}
           for (t, h, r), n in sorted(rows.items()) if n]
    return out, leaf_frac, spine_frac


# --------------------------------------------------------------------------------------
# what_if
# --------------------------------------------------------------------------------------
def degraded_plan(plan: Plan, worst_port_fraction: float, leaf_up_fraction: float, spine_up_fraction: float) -> Plan:
    """A copy of ``plan`` with the failed state's slowest NIC share and worst switch oversubscription.

    The NIC rate per port is scaled by ``worst_port_fraction`` (the slowest connected node's surviving
    ports: a collective runs at its slowest rank's pace, and PXN puts a lost rail's share on another NIC);
    leaf and spine oversubscription are divided by the worst live switch's surviving uplink share.
    ``plan`` itself is not changed.
    """
    resolved = plan.resolved.model_copy(update={"port_speed_gbps": plan.resolved.port_speed_gbps
                                                * worst_port_fraction})
    bw = plan.bandwidth
    bandwidth = bw.model_copy(update={
        "leaf_oversubscription": bw.leaf_oversubscription / max(leaf_up_fraction, 1e-9),
        "spine_oversubscription": bw.spine_oversubscription / max(spine_up_fraction, 1e-9)})
    return plan.model_copy(update={"resolved": resolved, "bandwidth": bandwidth})


def _busbw(plan: Plan, gpus: int, op: str = "all-reduce") -> float | None:
    from core.perf.collectives import collective

    if gpus < 2:
        return None
    return float(collective(plan, op, BUSBW_BYTES, gpus=gpus)["busbw_gbytes"])


def _step(plan: Plan, job, gpus_available: int) -> tuple[float | None, str | None]:
    from core.perf.training import estimate

    gpus = job.gpus or plan.resolved.gpus
    if gpus > gpus_available:
        return None, _("the job's {gpus} GPUs no longer fit: {left} GPUs are still connected").format(
            gpus=f"{gpus:,}", left=f"{gpus_available:,}")
    try:
        return estimate(plan, job).step_time_s, None
    except DesignError as exc:
        return None, str(exc)


def what_if(plan: Plan, failures, job=None) -> FailureResult:
    """Fail ``failures`` (specs: ``tier:count``, ``tier:name`` or a name; module docstring) on ``plan``.

    ``job`` (a ``core.perf.training.TrainingJob``) adds the training step time, healthy and failed.
    Raises ``InputError`` for an unknown element or tier, or more failures than the tier has.
    """
    failures = list(failures)
    if not failures:
        raise InputError(_("name at least one element to fail, like spine:1 or {example}").format(
            example=Shape.of(plan).prefix(0, 0) + "leaf0"))
    shape = Shape.of(plan)
    elements = resolve_failures(plan, failures)
    a = analyse(plan, elements)
    gpus = plan.resolved.gpus
    connected_gpus = gpus - a.nodes_disconnected * shape.gpus_per_node
    notes = []
    if a.gpus_via_pxn:
        notes.append(_("{gpus} GPUs lost every port of their NIC: NCCL's PXN sends their traffic over NVLink to a "
                       "NIC on another rail, which then carries two GPUs' share.").format(gpus=f"{a.gpus_via_pxn:,}"))
    degraded = degraded_plan(plan, a.worst_port_fraction, a.worst_leaf_up_fraction, a.worst_spine_up_fraction)
    healthy_busbw = _busbw(plan, gpus)
    busbw = _busbw(degraded, connected_gpus) if a.worst_port_fraction > 0 else None
    healthy_a2a = _busbw(plan, gpus, "all-to-all")
    a2a = _busbw(degraded, connected_gpus, "all-to-all") if a.worst_port_fraction > 0 else None
    method = ("core.perf all-reduce (and all-to-all) of 1 GiB on the connected GPUs; NIC rate scaled to the slowest connected "
              f"node's surviving ports ({a.worst_port_fraction:.3f}); leaf/spine oversubscription divided by the "
              f"worst live switch's surviving uplinks ({a.worst_leaf_up_fraction:.3f} / "
              f"{a.worst_spine_up_fraction:.3f})")
    step = healthy_step = None
    if job is not None:
        healthy_step, _why = _step(plan, job, gpus)
        step, why = _step(degraded, job, connected_gpus)
        if why:
            notes.append(why)
    return FailureResult(
        failed=tuple({"element": _element(t, k, shape), "tier": t, "chosen": c} for t, k, c in elements),
        gpus=gpus, nodes=shape.nodes,
        gpus_disconnected=a.nodes_disconnected * shape.gpus_per_node, nodes_disconnected=a.nodes_disconnected,
        gpus_degraded=a.gpus_degraded, gpus_via_pxn=a.gpus_via_pxn,
        bisection_tbits_one_direction=a.bisection_gbits / 1000,
        healthy_bisection_tbits_one_direction=a.healthy_bisection_gbits / 1000,
        stages_tbits={k: {"healthy": v[0] / 1000, "remaining": v[1] / 1000} for k, v in a.stages_gbits.items()},
        busbw_gbytes=busbw, healthy_busbw_gbytes=healthy_busbw, busbw_method=method,
        alltoall_busbw_gbytes=a2a, healthy_alltoall_busbw_gbytes=healthy_a2a,
        step_time_s=step, healthy_step_time_s=healthy_step, ecmp_unbalanced=tuple(a.ecmp), notes=tuple(notes),
    )


__all__ = ["FailureResult", "Shape", "TIERS", "analyse", "degraded_plan", "parse_name", "resolve_failures", "what_if"]
