"""The compute fabric as it is wired: the one place that knows how a sized fabric's devices are named and joined.

``core.fabric.sizing`` says *how many* switches and links a fabric has; ``Wiring`` says *which* device is
joined to which, on which port ordinal, at what speed. Every consumer (the topology graphs, the cabling plan,
rack layout and cable lengths, the exports, the failure, SPOF, load and availability analyses) asks it instead
of re-deriving the pattern, so a wiring rule exists once (``tests/test_wiring.py`` greps for copies).

Terms (as in ``core.fabric.sizing``; counts per plane and island unless a name says otherwise):

* **plane** ``p``: an independent copy of the fabric; NIC port ``p + 1`` of every NIC is in plane ``p``.
* **island** ``i``: an independent fabric inside a plane (a rail of a rail-only fabric, a per-rail plane);
  local rail ``lr`` of island ``i`` is NIC ``lr * islands + i``.
* **group** ``g`` (scalable unit): the nodes ``g * nodes_per_group ...`` and their leaves; rail-optimized,
  leaf ``g * leaves_per_group + lr`` serves local rail ``lr`` of every node of the group (down port = the
  node's position in the group); top-of-rack, leaf ``g`` serves every NIC of the group's nodes (down port =
  position * rails + lr); one tier, leaf 0 serves every NIC (down port = node * rails + lr).
* **pod**: in three tiers, the ``groups_per_pod`` groups whose leaves share ``spines_per_pod`` spines; spine
  ``j`` of every pod (``j = spine % spines_per_pod``) reaches core group ``j`` of ``cores_per_group`` cores.

Device ids: servers ``node<n>``; switches ``p<plane>.<role><k>`` with one island, ``p<plane>.i<island>.<role><k>``
with several (``k`` counts within one plane and island).

Link ordinals: each link has the ordinal of the port it takes on each end, among that device's down ports
(a leaf's node ports, a spine's leaf ports, a core's spine ports) or up ports (a leaf's spine ports, a spine's
core ports), 0-based; ``core.physical.cabling`` turns ordinals into port names. Link *classes* are
``node-leaf``, ``leaf-spine`` and ``spine-core``.

Speeds are per direction [Gb/s]: ``port_gbps`` for node-leaf links, ``up_gbps`` above the leaves.
Building a ``Wiring`` is O(pods) (flat in cluster size); enumerating its links is O(links), streamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator, NamedTuple

import numpy as np

from core.fabric.families import family as topology_family
from core.fabric.sizing import FabricPlan

if TYPE_CHECKING:  # a family's wiring, with this module's interface (core.fabric.families)
    from core.fabric.dragonfly import DragonflyWiring

ROLES = ("leaf", "spine", "core")
"""Switch roles from the bottom up."""
LINK_CLASSES = ("node-leaf", "leaf-spine", "spine-core")
"""Link classes from the bottom up (the class of a link between role ``ROLES[t]`` and the tier above)."""
_SWITCH_ID = re.compile(r"^p(\d+)\.(?:i(\d+)\.)?(leaf|spine|core)(\d+)$")
_NODE_ID = re.compile(r"^node(\d+)$")
PLANE_PREFIX = r"p(\d+)\."
"""A regex fragment that reads a switch id's plane prefix (its group: the plane), for languages built on the ids
(the failure specs' ``p1.su2-rail4``)."""


class Link(NamedTuple):
    """One cable of the compute fabric.

    ``a``/``b`` are device ids (lower end first), ``a_port``/``b_port`` the port ordinals on each end (module
    docstring), ``speed_gbps`` the link speed per direction [Gb/s].
    """

    kind: str
    a: str
    a_port: int
    b: str
    b_port: int
    speed_gbps: int


class Bundle(NamedTuple):
    """The parallel links between two devices: ``count`` links of ``speed_gbps`` [Gb/s, per direction]."""

    kind: str
    a: str
    b: str
    count: int
    speed_gbps: int


class Device(NamedTuple):
    """A switch of the compute fabric: its id, role and place (``pod``/``group``/``rail`` -1 when not defined)."""

    id: str
    role: str
    plane: int
    island: int
    index: int
    """Position among the switches of its role in one plane and island."""
    pod: int
    group: int
    rail: int


_UNPATTERNED = {"leaf_uplinks": 0, "leaf_down_ports_max": 0, "port_gbps": 0, "up_gbps": 0, "spine_uplinks": ()}
"""``Wiring``'s fields read only for its links' speeds and port ordinals (``Wiring.links``, ``bundles``), never
for which devices its links join (``Wiring.pattern``)."""


@dataclass(frozen=True)
class Wiring:
    """How one sized folded-Clos fabric is wired (module docstring for the terms; counts per plane and island).

    Hashable and equal for two plans with the same link pattern (switch models, speeds aside), so it can key
    caches of whatever depends only on the wiring.
    """

    tiers: int
    planes: int
    islands: int
    rails: int
    """NICs per node in one island (the local rails)."""
    nodes: int
    tor: bool
    """Top-of-rack: one leaf serves all NICs of its group's nodes."""
    groups: int
    nodes_per_group: int
    leaves_per_group: int
    groups_per_pod: int
    pods: int
    spines_per_pod: int
    cores_per_group: int
    leaves: int
    spines: int
    cores: int
    pair_links: int
    """Links between a leaf and each of its spines."""
    spine_uplinks: tuple[int, ...]
    """Uplinks of each spine, per pod (three tiers; empty otherwise)."""
    spine_core_pairs: tuple[int, ...]
    """Links between a spine and each core of its core group, per pod (three tiers; empty otherwise)."""
    leaf_uplinks: int
    leaf_down_ports_max: int
    port_gbps: int
    up_gbps: int

    family = "clos"
    """Topology family (``core.fabric.wiring.wiring_of`` picks the family's wiring)."""
    spines_with_pods = False
    """The layout rule: whether the spines stand in their pod's rows (a Dragonfly+ group's spines) rather than in
    central racks (``core.physical.layout``)."""

    @property
    def roles(self) -> tuple[str, ...]:
        """Switch roles present, from the bottom up."""
        return ROLES[:self.tiers]

    def group_blocks(self, link_class: str):
        """The links of ``link_class`` that repeat group by group, for measuring one group per class of groups that
        stand alike (``core.physical.lengths``): ``(groups, (prefix, devices per group, devices) of the lower end,
        the same of the upper end, pattern)``, ``pattern(na, nb)`` giving a group's links as arrays of lower and
        upper device offsets in the group and links per pair; None where the class does not repeat so (a folded
        Clos: its leaf-spine links are counted per pair of rack cells instead)."""
        return None

    def pair_blocks(self, link_class: str):
        """The links of ``link_class`` that join every two groups the same way, for measuring them per distance
        between the groups and pair of group places (``core.physical.lengths``): ``(role, groups, devices per group,
        d, offset_a, offset_b)``, one link from device ``offset_a`` of group ``G`` to device ``offset_b`` of group
        ``G + d`` for every entry and every ``G`` below ``groups - d``; None where the class is not so (the
        Dragonflies' global links are)."""
        return None

    @property
    def link_classes(self) -> tuple[str, ...]:
        """Link classes present, from the bottom up."""
        return LINK_CLASSES[:self.tiers]

    def pattern(self) -> "Wiring":
        """This wiring with what only its links' speeds and ports read at zero (``_UNPATTERNED``: the speeds, the
        leaves' uplinks and down ports, the spines' uplinks): the link pattern alone, every device, bundle and
        index array (``bundle_arrays``, ``group_blocks``) the same, so what depends only on it (the cable lengths,
        ``core.physical.lengths.placed_link_lengths``) is keyed by it and shared by fabrics differing in speed."""
        return replace(self, **_UNPATTERNED)

    # construction -----------------------------------------------------------------------------------------
    @staticmethod
    def of(plan) -> "Wiring":
        """The wiring of ``plan`` (a ``core.plan.Plan``; memoised by its fabric and node counts)."""
        resolved = plan.resolved
        return wiring_of(plan.fabric, resolved.nodes, resolved.nics_per_node)

    # device ids ---------------------------------------------------------------------------------------------
    def prefix(self, plane: int, island: int = 0) -> str:
        """Id prefix of the switches of ``plane`` and ``island``: ``p0.`` or ``p0.i2.``."""
        return plane_prefix(plane, island, self.islands)

    def switch_id(self, role: str, k: int, plane: int = 0, island: int = 0) -> str:
        """Id of switch ``k`` of ``role`` in ``plane`` and ``island``: ``p0.leaf3``, ``p1.i2.spine0``."""
        return f"{self.prefix(plane, island)}{role}{k}"

    @staticmethod
    def node_id(n: int) -> str:
        """Id of server ``n``: ``node<n>``."""
        return f"node{n}"

    @staticmethod
    def parse(device: str) -> tuple[str, int, int, int] | None:
        """``(role, plane, island, k)`` of a switch id (island 0 when the id has none); None if not a switch id."""
        found = _SWITCH_ID.match(device)
        if found is None:
            return None
        plane, island, role, k = found.groups()
        return role, int(plane), int(island or 0), int(k)

    def plane_islands(self) -> list[tuple[int, int]]:
        """Every ``(plane, island)``, planes outer."""
        return [(p, i) for p in range(self.planes) for i in range(self.islands)]

    def count(self, role: str) -> int:
        """Switches of ``role`` in one plane and island."""
        return {"leaf": self.leaves, "spine": self.spines, "core": self.cores}[role]

    def switch_ids(self, role: str) -> Iterator[str]:
        """Ids of every switch of ``role``: plane by plane, island by island, then by index."""
        for plane, island in self.plane_islands():
            prefix = self.prefix(plane, island)
            for k in range(self.count(role)):
                yield f"{prefix}{role}{k}"

    def all_switch_ids(self) -> Iterator[str]:
        """Every switch id, role by role from the leaves up (``switch_ids`` order within a role)."""
        for role in ROLES:
            yield from self.switch_ids(role)

    def devices(self, role: str, plane: int = 0, island: int = 0) -> Iterator[Device]:
        """The switches of ``role`` in one plane and island with their place."""
        prefix = self.prefix(plane, island)
        for k in range(self.count(role)):
            if role == "leaf":
                group = self.group_of_leaf(k)
                yield Device(f"{prefix}leaf{k}", role, plane, island, k, self.pod_of_group(group), group,
                             self.rail_of_leaf(k))
            elif role == "spine":
                yield Device(f"{prefix}spine{k}", role, plane, island, k, self.pod_of_spine(k), -1, -1)
            else:
                yield Device(f"{prefix}core{k}", role, plane, island, k, -1, -1, -1)

    # where things are -----------------------------------------------------------------------------------------
    @staticmethod
    def nic(local_rail: int, island: int, islands: int) -> int:
        """NIC index (0-based) of local rail ``local_rail`` of ``island``."""
        return local_rail * islands + island

    def nic_of(self, local_rail: int, island: int = 0) -> int:
        """NIC index (0-based) of local rail ``local_rail`` of ``island`` in this fabric."""
        return self.nic(local_rail, island, self.islands)

    def group_of_node(self, n: int) -> int:
        return 0 if self.tiers == 1 else n // self.nodes_per_group

    def group_nodes(self, g: int) -> int:
        """Nodes in group ``g`` (the last group may be partial)."""
        if self.tiers == 1:
            return self.nodes
        return max(0, min(self.nodes_per_group, self.nodes - g * self.nodes_per_group))

    def leaf_of(self, g: int, local_rail: int) -> int:
        """Leaf (within a plane and island) serving local rail ``local_rail`` of group ``g``."""
        if self.tiers == 1:
            return 0
        return g if self.tor else g * self.leaves_per_group + local_rail

    def node_port(self, n: int, local_rail: int) -> tuple[int, int]:
        """``(leaf, down port ordinal)`` of local rail ``local_rail`` of node ``n``."""
        if self.tiers == 1:
            return 0, n * self.rails + local_rail
        g, k = divmod(n, self.nodes_per_group)
        if self.tor:
            return g, k * self.rails + local_rail
        return g * self.leaves_per_group + local_rail, k

    @property
    def links_per_node_leaf(self) -> int:
        """Links from one node to one of its leaves in one island (all its rails on a shared leaf)."""
        return self.rails if (self.tor or self.tiers == 1) else 1

    def group_of_leaf(self, k: int) -> int:
        return 0 if self.tiers == 1 else k // self.leaves_per_group

    def rail_of_leaf(self, k: int) -> int:
        """Local rail a leaf serves (-1 on top of rack, where it serves every rail; 0 with one tier)."""
        return -1 if self.tor else k % self.leaves_per_group

    def pod_of_group(self, g: int) -> int:
        return g // self.groups_per_pod if self.tiers == 3 else 0

    def pod_of_leaf(self, k: int) -> int:
        return self.pod_of_group(self.group_of_leaf(k))

    def pod_of_spine(self, k: int) -> int:
        return k // self.spines_per_pod if self.tiers == 3 else 0

    @staticmethod
    def class_ends(kind: str) -> tuple[tuple[str, str], tuple[str, str]]:
        """``((A role, its port side), (Z role, its port side))`` of link class ``kind``: ``<lower>-<upper>`` joins
        the lower device's up ports (a node's NIC ports) to the upper's down ports."""
        lower, upper = kind.split("-")
        return (lower, "up"), (upper, "down")

    def spine_up_ports(self, fabric: FabricPlan) -> int:
        """Up ports of every spine (a full pod's count, ``FabricPlan.spine_uplinks``, so every spine's uplinks start
        on the same port); 0 without a core tier."""
        return fabric.spine_uplinks if "core" in self.roles else 0

    def leaf_down_ports(self, k: int) -> int:
        """Node ports used on leaf ``k``."""
        return self.group_nodes(self.group_of_leaf(k)) * self.links_per_node_leaf

    @property
    def leaves_per_pod(self) -> int:
        return self.groups_per_pod * self.leaves_per_group if self.tiers == 3 else self.leaves

    def spines_of_leaf(self, k: int) -> range:
        """Spines leaf ``k`` reaches (``pair_links`` links to each)."""
        if self.tiers == 3:
            pod = self.pod_of_leaf(k)
            return range(pod * self.spines_per_pod, (pod + 1) * self.spines_per_pod)
        return range(self.spines)

    def leaves_of_spine(self, k: int) -> range:
        """Leaves spine ``k`` reaches."""
        if self.tiers == 3:
            pod = self.pod_of_spine(k)
            return range(pod * self.leaves_per_pod, min(self.leaves, (pod + 1) * self.leaves_per_pod))
        return range(self.leaves)

    def cores_of_spine(self, k: int) -> range:
        """Cores spine ``k`` reaches (its core group; ``core_pair_links(k)`` links to each)."""
        j = k % self.spines_per_pod
        return range(j * self.cores_per_group, (j + 1) * self.cores_per_group)

    def core_pair_links(self, spine: int) -> int:
        """Links between spine ``spine`` and each core of its group."""
        return self.spine_core_pairs[self.pod_of_spine(spine)] if self.spine_core_pairs else 0

    # pods (for the failure analysis: a pod's spines and leaves as a block) ---------------------------------------
    def spines_of_pod(self, pod: int) -> range:
        """Spines of ``pod`` (every spine with two tiers, none with one; the spines each of its leaves reaches)."""
        if self.tiers == 3:
            return range(pod * self.spines_per_pod, (pod + 1) * self.spines_per_pod)
        return range(self.spines)

    def leaves_of_pod(self, pod: int) -> range:
        """Leaves of ``pod`` (every leaf with one or two tiers; the last pod may be partial)."""
        if self.tiers == 3:
            return range(pod * self.leaves_per_pod, min(self.leaves, (pod + 1) * self.leaves_per_pod))
        return range(self.leaves)

    # links ------------------------------------------------------------------------------------------------------
    def links(self, plane: int = 0, island: int = 0) -> Iterator[Link]:
        """Every cable of one plane and island: node-leaf node by node (rail by rail), leaf-spine leaf by leaf,
        spine-core spine by spine (the cabling plan's order)."""
        prefix = self.prefix(plane, island)
        new = tuple.__new__  # new(Link, (...)) is Link(...) without its Python-level __new__ (a third faster)
        speed, up = self.port_gbps, self.up_gbps
        leaf_ids = [f"{prefix}leaf{k}" for k in range(self.leaves)]
        nics = [self.nic_of(lr, island) for lr in range(self.rails)]
        for n in range(self.nodes):
            node = f"node{n}"
            for lr in range(self.rails):
                leaf, port = self.node_port(n, lr)
                yield new(Link, ("node-leaf", node, nics[lr], leaf_ids[leaf], port, speed))
        if self.tiers < 2:
            return
        pair = self.pair_links
        for leaf in range(self.leaves):
            spines = self.spines_of_leaf(leaf)
            local = leaf - self.pod_of_leaf(leaf) * self.leaves_per_pod
            lid = leaf_ids[leaf]
            for j, spine in enumerate(spines):
                sid = f"{prefix}spine{spine}"
                for x in range(pair):
                    yield new(Link, ("leaf-spine", lid, j * pair + x, sid, local * pair + x, up))
        if self.tiers < 3:
            return
        for spine in range(self.spines):
            pod = self.pod_of_spine(spine)
            links = self.spine_core_pairs[pod]
            sid = f"{prefix}spine{spine}"
            for c, core in enumerate(self.cores_of_spine(spine)):
                cid = f"{prefix}core{core}"
                for x in range(links):
                    yield new(Link, ("spine-core", sid, c * links + x, cid, pod * self.spine_core_pairs[0] + x, up))

    def bundles(self, plane: int = 0, island: int = 0) -> Iterator[Bundle]:
        """The links of one plane and island bundled by device pair (``links`` order, one bundle per pair)."""
        prefix = self.prefix(plane, island)
        per_node = self.links_per_node_leaf
        rails = range(self.leaves_per_group if per_node == 1 else 1)
        for g in range(self.groups):  # a group's leaf ids once, for all its nodes
            leaves = [f"{prefix}leaf{self.leaf_of(g, lr)}" for lr in rails]
            for n in self.nodes_of_group(g):
                node = f"node{n}"
                for leaf in leaves:
                    yield Bundle("node-leaf", node, leaf, per_node, self.port_gbps)
        if self.tiers < 2:
            return
        for leaf in range(self.leaves):
            for spine in self.spines_of_leaf(leaf):
                yield Bundle("leaf-spine", f"{prefix}leaf{leaf}", f"{prefix}spine{spine}", self.pair_links,
                             self.up_gbps)
        if self.tiers < 3:
            return
        for spine in range(self.spines):
            links = self.core_pair_links(spine)
            for core in self.cores_of_spine(spine):
                if links:
                    yield Bundle("spine-core", f"{prefix}spine{spine}", f"{prefix}core{core}", links, self.up_gbps)

    # groups and bundles for the physical layer (rack layout, cable lengths, cabling plan) ------------------------
    def nodes_of_group(self, g: int) -> range:
        """The servers of group ``g`` (its scalable unit; every node with one tier)."""
        first = 0 if self.tiers == 1 else g * self.nodes_per_group
        return range(first, first + self.group_nodes(g))

    def leaves_of_group(self, g: int) -> list[int] | range:
        """The leaves (within a plane and island) serving group ``g``, by local rail (one on top of rack); with two or
        three tiers rail-optimized, a range (``leaf_of``: consecutive by local rail)."""
        per = self.leaves_per_group if self.links_per_node_leaf == 1 else 1
        if self.tiers > 1 and not self.tor:
            first = self.leaf_of(g, 0)
            return range(first, first + per)
        return [self.leaf_of(g, lr) for lr in range(per)]

    def bundle_arrays(self, kind: str) -> tuple[str, np.ndarray, str, np.ndarray, np.ndarray]:
        """The bundles of link class ``kind`` (one of ``link_classes``) in one plane and island (the same in each)
        as index arrays ``(A role, A indices, B role, B indices, links per bundle)``, the A role of node-leaf
        ``node``: ``bundles``' rules over arrays, for vectorised consumers (``core.physical.lengths``), in
        ``bundles`` order but for node-leaf, which comes rail by rail (every node's first leaf, then every
        node's second...). ``tests/test_wiring.py`` checks the two agree."""
        if kind == "node-leaf":
            per = len(self.leaves_of_group(0))  # leaves of each node, by local rail
            node = np.tile(np.arange(self.nodes), per)
            leaf = self.leaf_of(self.group_of_node(node), np.repeat(np.arange(per), self.nodes))
            if np.isscalar(leaf):  # one leaf
                leaf = np.full(node.shape, leaf)
            return "node", node, "leaf", leaf, np.full(node.shape, self.links_per_node_leaf, dtype=np.int64)
        a_role, a, b_role, first, count, links = self.bundle_ranges(kind)
        bundle = np.repeat(np.arange(len(a)), count)  # each A device's bundles, its B devices one after the other
        b = first[bundle] + (np.arange(len(bundle)) - np.repeat(np.cumsum(count) - count, count))
        return a_role, a[bundle], b_role, b, links[bundle]

    def bundle_ranges(self, kind: str) -> tuple[str, np.ndarray, str, np.ndarray, np.ndarray, np.ndarray]:
        """The bundles of the switch-to-switch class ``kind`` (leaf-spine or spine-core) in one plane and island as
        ranges: each A device's B devices are consecutive (a leaf's spines: its pod's, ``spines_of_leaf``; a spine's
        cores: its core group, ``cores_of_spine``), so ``(A role, A indices, B role, each A device's first B index,
        its B devices, links per bundle)``, the A devices without a link left out; ``bundle_arrays`` expands them
        (the rule written once), ``core.physical.lengths._ranged`` counts the links' lengths per range."""
        if kind == "leaf-spine":
            per = len(self.spines_of_leaf(0))
            leaf = np.arange(self.leaves)
            first = self.pod_of_leaf(leaf) * per + np.zeros(leaf.shape, dtype=np.int64)  # (a number with two tiers)
            return ("leaf", leaf, "spine", first, np.full(leaf.shape, per, dtype=np.int64),
                    np.full(leaf.shape, self.pair_links, dtype=np.int64))
        if kind != "spine-core":
            raise ValueError(f"no ranges of link class {kind!r}")
        per = self.cores_per_group
        spine = np.arange(self.spines)
        links = np.array(self.spine_core_pairs, dtype=np.int64)[self.pod_of_spine(spine)]
        keep = (links > 0) & (per > 0)
        spine = spine[keep]
        return ("spine", spine, "core", (spine % self.spines_per_pod) * per,
                np.full(spine.shape, per, dtype=np.int64), links[keep])

    @staticmethod
    def parse_node(device: str) -> int | None:
        """Index ``n`` of a server id ``node<n>``; None if ``device`` is not a server id."""
        found = _NODE_ID.match(device)
        return None if found is None else int(found[1])

    def core_group_of(self, k: int) -> int:
        """Core group of core ``k`` (the spines ``j`` of every pod reach core group ``j``)."""
        return k // max(1, self.cores_per_group)


def plane_prefix(plane: int, island: int, islands: int) -> str:
    """Id prefix of the switches of ``plane`` and ``island`` of a fabric of ``islands`` islands per plane: ``p0.``
    (one island) or ``p0.i2.``."""
    return f"p{plane}." if islands == 1 else f"p{plane}.i{island}."


@lru_cache(maxsize=256)
def wiring_of(fabric: FabricPlan, nodes: int, nics: int) -> "Wiring | DragonflyWiring":
    """The ``Wiring`` of a sized fabric with ``nodes`` servers of ``nics`` NICs (memoised); another topology
    family's wiring (``core.fabric.families``) for a fabric of that family."""
    other = topology_family(fabric.family)
    if other is not None:
        return other.wiring(fabric, nodes, nics)
    f = fabric
    islands = max(1, f.islands)
    pods = f.pod_count if f.tiers == 3 else 1
    three = f.tiers == 3
    return Wiring(
        tiers=f.tiers, planes=f.planes, islands=islands, rails=nics // islands, nodes=nodes,
        tor=f.topology == "top-of-rack" and f.tiers > 1, groups=f.group_count, nodes_per_group=f.nodes_per_group,
        leaves_per_group=f.leaves_per_group, groups_per_pod=max(1, f.groups_per_pod), pods=pods,
        spines_per_pod=f.spines_per_pod, cores_per_group=f.cores_per_group, leaves=f.leaf_count // islands,
        spines=f.spine_count // islands, cores=f.core_count // islands, pair_links=f.links_per_leaf_spine_pair,
        spine_uplinks=tuple(f.spine_uplinks_in_pod(p) for p in range(pods)) if three else (),
        spine_core_pairs=tuple(f.spine_core_pair_links(p) for p in range(pods)) if three else (),
        leaf_uplinks=f.leaf_uplinks, leaf_down_ports_max=f.leaf_down_ports_max, port_gbps=f.port_speed_gbps,
        up_gbps=f.uplink_speed_gbps or f.port_speed_gbps,
    )
