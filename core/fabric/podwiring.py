"""The compute fabric of a design with pods as it is wired: the one place that knows how the pods' devices are
named and joined to the shared spine layer (``core.fabric.pods`` sizes it; ``core.fabric.wiring`` wires each pod).

* **Device ids.** A pod's servers and leaves are its own wiring's ids (``core.fabric.wiring.Wiring``: one plane,
  one island) after the pod prefix ``pod<n>.`` (``n`` the pod's number, 1-based): ``pod2.node3``,
  ``pod2.p0.leaf1``, and a group of a pod's servers drawn as one vertex ``pod2.servers0``. The shared spines are
  ``spine<j>`` (``j`` 0-based).
* **Leaf-spine bundles** are named by their leaf and spine as a pod's own are: ``pod2.p0.leaf1-spine0``.
* **Node-leaf links** are each pod's own (``Wiring.bundles``/``links`` of the plane; **Planes** below).
* **Leaf-spine links.** Each leaf of pod ``p`` spreads its ``u_p`` uplinks evenly over the ``N`` shared spines:
  ``u_p / N`` links (``PodLeaves.links_per_leaf_spine_pair``) at the pod's uplink speed [Gb/s per direction] to
  every spine; leaf uplink ``k`` (in the pod's own up-port order) goes to spine ``k // (u_p / N)``. Each spine's
  ports are handed out in the order of the pods' stages, then pods, leaves and uplinks, one port per ``b_p``
  uplinks (``PodLeaves.uplinks_per_spine_port``: breakout lanes), so a later stage's pods take the ports after
  the earlier ones' and a spine layer sized for the final stage moves no cable; a pod's lanes never share a spine
  port with the next pod's.

**Three tiers** (``MixedFabric.tiers`` 3, ``core.fabric.podcore``): each pod's wiring is its own three-tier
fabric of one spine pod; its leaves, its own spines (``pod2.p0.spine0``) and the leaf-spine links between them are
that wiring's (``Wiring.bundles`` of plane 0, prefixed; a leaf-spine bundle ``pod2.p0.leaf1-spine0`` names the
pod's own spine). The shared cores are ``core<k>`` (``k`` 0-based; core group ``k // C``). Own spine ``j`` of every
pod reaches core group ``j mod G`` (``core.fabric.podcore``: group ``j`` when every pod has ``G`` spines):
``U_p / C`` links (``PodLeaves.links_per_spine_core_pair``) at the pod's uplink speed to each core of the group,
spine up port ``c * (U_p / C) + x`` to the group's ``c``-th core (the pod's own wiring's order);
each core's ports are handed out as the shared spines' are (by stage, pod, spine and uplink, one port per ``b_p``
uplinks, ``PodLeaves.uplinks_per_core_port``), so a core layer sized for the final stage moves no cable.

**Planes** (``MixedFabric.planes``, ``core.fabric.pods``): identical copies, each with the wiring above. Plane ``q``
is the pods' own wirings' plane and island ``plane_of(q)`` (per-port planes ``(q, 0)``, per-rail planes ``(0, q)``),
its pod devices their ids in it (``pod2.p1.leaf3``; per-rail ``pod2.p0.i1.leaf3``, ``core.fabric.wiring``), its
shared spines and cores the same plane prefix (``p1.spine0``, ``p0.i1.core2``; in one plane ``spine0``, ``core0``).
A node's links in plane ``q`` are its pod's own wiring's links of that plane and island.

Building a ``PodsWiring`` is O(pods); enumerating its links is O(links), streamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, NamedTuple

from core.fabric.pods import MixedFabric, PodLeaves
from core.fabric.wiring import Bundle, Wiring, plane_prefix

_POD_ID = re.compile(r"^pod(\d+)\.(.+)$")
_SPINE = "spine"
_CORE = "core"


class Uplink(NamedTuple):
    """One leaf-spine cable of a mixed fabric: pod position ``pod`` (in ``MixedFabric.pods``), leaf ``leaf`` of
    the pod, its up-port ordinal ``leaf_port`` (0-based), shared spine ``spine``, the spine's port ordinal
    ``spine_port`` and breakout lane ``lane`` (0-based), and the speed [Gb/s per direction]."""

    pod: int
    leaf: int
    leaf_port: int
    spine: int
    spine_port: int
    lane: int
    speed_gbps: int
    plane: int = 0
    """The plane ``q`` (module docstring), 0-based."""


class CoreLink(NamedTuple):
    """One spine-core cable of pods on three tiers: pod position ``pod``, the pod's own spine ``spine``, its up-port
    ordinal ``spine_port`` (0-based), shared core ``core``, the core's port ordinal ``core_port`` and breakout lane
    ``lane`` (0-based), and the speed [Gb/s per direction]."""

    pod: int
    spine: int
    spine_port: int
    core: int
    core_port: int
    lane: int
    speed_gbps: int
    plane: int = 0
    """The plane ``q`` (module docstring), 0-based."""


@dataclass(frozen=True)
class PodsWiring:
    """How a mixed fabric is wired (module docstring): the sized pods and shared spines, and each present pod's
    own wiring (in ``fabric.pods`` order)."""

    fabric: MixedFabric
    wirings: tuple[Wiring, ...]

    # device ids -------------------------------------------------------------------------------------------------
    def prefix(self, pod: int) -> str:
        """Id prefix of the devices of the pod at position ``pod``: ``pod<n>.`` with its 1-based number."""
        return f"pod{self.fabric.pods[pod].index + 1}."

    def node_id(self, pod: int, n: int) -> str:
        """Id of server ``n`` of the pod at position ``pod``: ``pod2.node3``."""
        return self.prefix(pod) + Wiring.node_id(n)

    def leaf_id(self, pod: int, k: int, q: int = 0) -> str:
        """Id of leaf ``k`` in plane ``q`` of the pod at position ``pod``: ``pod2.p0.leaf1``."""
        return self.prefix(pod) + self.wirings[pod].switch_id("leaf", k, *self.plane_of(q))

    # planes -----------------------------------------------------------------------------------------------------
    @property
    def planes(self) -> int:
        """Identical planes of the fabric (``MixedFabric.planes``)."""
        return self.fabric.planes

    def plane_of(self, q: int) -> tuple[int, int]:
        """``(plane, island)`` of the pods' own wirings that plane ``q`` is (module docstring)."""
        return (0, q) if self.fabric.plane_mode == "per-rail" and self.planes > 1 else (q, 0)

    def shared_prefix(self, q: int) -> str:
        """Id prefix of the shared switches of plane ``q``: empty in one plane, else ``p1.`` (per-rail ``p0.i1.``)."""
        if self.planes < 2:
            return ""
        per_rail = self.fabric.plane_mode == "per-rail"
        return plane_prefix(*self.plane_of(q), self.planes if per_rail else 1)

    def shared_spine_id(self, j: int, q: int = 0) -> str:
        """Id of shared spine ``j`` of plane ``q``: ``spine0`` in one plane, ``p1.spine0`` in plane 1 of several."""
        return self.shared_prefix(q) + self.spine_id(j)

    def shared_core_id(self, k: int, q: int = 0) -> str:
        """Three tiers: id of shared core ``k`` of plane ``q``: ``core0`` in one plane, ``p1.core0`` in plane 1."""
        return self.shared_prefix(q) + self.core_id(k)

    def shared_ids(self) -> Iterator[str]:
        """Every shared switch's id, plane by plane: the shared spines (three tiers: the shared cores)."""
        count = self.fabric.cores if self.three_tiers else self.fabric.spines
        make = self.shared_core_id if self.three_tiers else self.shared_spine_id
        for q in range(self.planes):
            for k in range(count):
                yield make(k, q)

    def parse_shared(self, device: str) -> tuple[int, int] | None:
        """``(plane q, number)`` of a shared spine id (three tiers: shared core id); None for another id or one this
        fabric lacks."""
        base, count = (_CORE, self.fabric.cores) if self.three_tiers else (_SPINE, self.fabric.spines)
        for q in range(self.planes):
            head = self.shared_prefix(q) + base
            number = device[len(head):] if device.startswith(head) else ""
            if number.isdigit() and int(number) < count:
                return q, int(number)
        return None

    def plane_of_device(self, device: str) -> int | None:
        """The plane ``q`` of a leaf, own spine or shared switch id; None for a server or another id."""
        shared = self.parse_shared(device)
        if shared is not None:
            return shared[0]
        found = self.parse(device)
        parsed = Wiring.parse(found[1]) if found is not None else None
        if parsed is None:
            return None
        return next((q for q in range(self.planes) if self.plane_of(q) == (parsed[1], parsed[2])), None)

    def local_id(self, pod: int, device: str) -> str:
        """The id ``device`` (of the pod's own wiring, or a vertex name of its drawing) under the pod's prefix."""
        return self.prefix(pod) + device

    @staticmethod
    def spine_id(j: int) -> str:
        """Id of shared spine ``j`` (0-based): ``spine0``."""
        return _SPINE + str(j)

    def own_spine_id(self, pod: int, k: int, q: int = 0) -> str:
        """Three tiers: id of the own spine ``k`` in plane ``q`` of the pod at position ``pod``: ``pod2.p0.spine0``."""
        return self.prefix(pod) + self.wirings[pod].switch_id("spine", k, *self.plane_of(q))

    @staticmethod
    def core_id(k: int) -> str:
        """Three tiers: id of shared core ``k`` (0-based): ``core0``."""
        return _CORE + str(k)

    def cores_of_spine(self, k: int) -> range:
        """Three tiers: the shared cores own spine ``k`` of any pod reaches: core group ``k mod G``."""
        per = self.fabric.cores_per_group
        group = k % self.fabric.core_groups
        return range(group * per, (group + 1) * per)

    @property
    def three_tiers(self) -> bool:
        """Whether the pods stand on three tiers (their own spines under shared cores)."""
        return self.fabric.tiers == 3

    def link_id(self, pod: int, k: int, j: int, q: int = 0) -> str:
        """Id of the link bundle from leaf ``k`` of the pod at position ``pod`` to shared spine ``j`` of plane ``q``
        (as a pod's own ``p0.leaf3-spine1``): ``pod2.p0.leaf1-spine0``, in plane 1 of two
        ``pod2.p1.leaf1-p1.spine0``."""
        return f"{self.leaf_id(pod, k, q)}-{self.shared_spine_id(j, q)}"

    def parse_link(self, element: str) -> tuple[int, int, int] | None:
        """``(pod position, leaf, shared spine)`` of a ``link_id``; None for another id or one this fabric lacks."""
        leaf, dash, spine = element.rpartition("-")
        found = self.parse(leaf) if dash and spine.startswith(_SPINE) and spine[len(_SPINE):].isdigit() else None
        parsed = Wiring.parse(found[1]) if found is not None else None
        if parsed is None or parsed[0] != "leaf" or parsed[1] or parsed[2]:
            return None
        j = int(spine[len(_SPINE):])
        spines = self.wirings[found[0]].spines if self.three_tiers else self.fabric.spines
        ok = parsed[3] < self.wirings[found[0]].leaves and j < spines
        return (found[0], parsed[3], j) if ok else None

    def core_link_id(self, pod: int, k: int, core: int, q: int = 0) -> str:
        """Three tiers: id of the link bundle from own spine ``k`` of the pod at position ``pod`` to shared core
        ``core`` of plane ``q``: ``pod2.p0.spine0-core1``, in plane 1 of two ``pod2.p1.spine0-p1.core1``."""
        return f"{self.own_spine_id(pod, k, q)}-{self.shared_core_id(core, q)}"

    def parse_core(self, device: str) -> int | None:
        """Three tiers: the number of a shared core id (``core1``: 1); None for another id or a core this fabric
        lacks."""
        number = device[len(_CORE):] if device.startswith(_CORE) else ""
        return int(number) if number.isdigit() and int(number) < self.fabric.cores else None

    def parse_own_spine(self, device: str) -> tuple[int, int] | None:
        """Three tiers: ``(pod position, own spine)`` of an ``own_spine_id``; None for another id or one this fabric
        lacks."""
        found = self.parse(device) if self.three_tiers else None
        parsed = Wiring.parse(found[1]) if found is not None else None
        if parsed is None or parsed[0] != "spine" or parsed[1] or parsed[2]:
            return None
        return (found[0], parsed[3]) if parsed[3] < self.wirings[found[0]].spines else None

    def parse_core_link(self, element: str) -> tuple[int, int, int] | None:
        """Three tiers: ``(pod position, own spine, shared core)`` of a ``core_link_id``; None for another id or a
        pair the wiring does not join (the core outside the spine's group, ``cores_of_spine``)."""
        spine, dash, core = element.rpartition("-")
        own, c = (self.parse_own_spine(spine), self.parse_core(core)) if dash else (None, None)
        return (*own, c) if own is not None and c is not None and c in self.cores_of_spine(own[1]) else None

    def bundle_of(self, lower: str, upper: str) -> str | None:
        """The bundle id of a leaf-spine or spine-core cable between the device ids ``lower`` and ``upper``
        (``link_id``: ``pod2.p0.leaf1-spine0``, on planes ``pod2.p1.leaf1-p1.spine0``, also for a pod's own spine on
        three tiers; ``core_link_id``); None for another pair (a leaf and a shared spine of different planes)."""
        found = self.parse(lower)
        parsed = Wiring.parse(found[1]) if found is not None else None
        if parsed is not None and parsed[0] == "leaf" and not self.three_tiers:  # a shared spine of the leaf's plane
            shared = self.parse_shared(upper)
            ok = shared is not None and self.plane_of(shared[0]) == parsed[1:3]
            return self.link_id(found[0], parsed[3], shared[1], shared[0]) if ok else None
        zero = self.in_plane_zero(f"{lower}-{upper}") if self.three_tiers and self.planes > 1 else None
        if zero is not None:  # three tiers on planes: read in plane 0, named in its plane
            low, _dash, up = zero[1].partition("-")
            leaf, own, core = self.parse(low), self.parse_own_spine(up), self.parse_core_link(zero[1])
            parsed = Wiring.parse(leaf[1]) if leaf is not None and own is not None and own[0] == leaf[0] else None
            if parsed is not None and parsed[0] == "leaf":
                return self.link_id(leaf[0], parsed[3], own[1], zero[0])
            return self.core_link_id(*core, zero[0]) if core is not None else None
        if parsed is not None and parsed[0] == "leaf":
            own = self.parse_own_spine(upper)
            spine = own[1] if own is not None and own[0] == found[0] else None
            return self.link_id(found[0], parsed[3], spine) if spine is not None else None
        own, core = self.parse_own_spine(lower), self.parse_core(upper)
        return self.core_link_id(*own, core) if own is not None and core is not None else None

    def in_plane_zero(self, element: str) -> tuple[int, str] | None:
        """``(plane q, the same element's id in plane 0 of a one-plane fabric)`` of a switch, bundle or cable id of
        any plane (``pod2.p1.spine0-p1.core1#0``: ``(1, "pod2.p0.spine0-core1#0")``; shared ids lose their plane
        prefix, a pod's the plane's for plane 0's); None when its parts name no plane or different planes."""
        own = [plane_prefix(*self.plane_of(q), self.wirings[0].islands) for q in range(self.planes)]
        body, mark, cable = element.rpartition("#") if "#" in element else (element, "", "")
        for q in range(self.planes):
            shared, out = self.shared_prefix(q), []
            for part in body.split("-"):
                found = _POD_ID.match(part)
                if found is not None and found[2].startswith(own[q]):
                    out.append(f"pod{found[1]}.{own[0]}{found[2][len(own[q]):]}")
                elif found is None and part.startswith(shared):
                    out.append(part[len(shared):])
                else:
                    break
            else:
                return q, "-".join(out) + mark + cable
        return None

    def parse(self, device: str) -> tuple[int, str] | None:
        """``(pod position, the pod's own id)`` of a pod device id; None for a shared spine or another id."""
        found = _POD_ID.match(device)
        if found is None:
            return None
        number = int(found[1])
        pod = next((i for i, p in enumerate(self.fabric.pods) if p.index + 1 == number), None)
        return None if pod is None else (pod, found[2])

    def whole_of_alone(self, element: str) -> str | None:
        """The whole fabric's id of a switch of the first pod planned alone (the failure what-if's ids): its spine
        ``p0.spine1`` is shared spine ``spine1`` (on planes the same id: ``p1.spine1``, per-rail ``p0.i1.spine1``),
        its leaf ``p0.leaf3`` is ``pod1.p0.leaf3``; None for another element or one the whole fabric does not
        have."""
        parsed = Wiring.parse(element.strip().lower())
        q = next((q for q in range(self.planes) if parsed is not None and self.plane_of(q) == parsed[1:3]), None)
        if q is None:
            return None
        role, k = parsed[0], parsed[3]
        if role == "spine" and self.three_tiers:
            return self.own_spine_id(0, k, q) if k < self.wirings[0].spines else None
        if role == "spine":
            return self.shared_spine_id(k, q) if k < self.fabric.spines else None
        return self.leaf_id(0, k, q) if role == "leaf" and k < self.wirings[0].leaves else None

    def alone_of_whole(self, element: str) -> str | None:
        """The id in the first pod planned alone of a whole-fabric shared spine or first-pod leaf (``spine1``:
        ``p0.spine1``; on planes ``p1.spine1``: ``p1.spine1``; ``pod1.p0.leaf3``: ``p0.leaf3``); None for another
        pod's device (``whole_of_alone``'s inverse)."""
        shared = None if self.three_tiers else self.parse_shared(element)
        if shared is not None:
            return self.wirings[0].switch_id("spine", shared[1], *self.plane_of(shared[0]))
        found = self.parse(element)
        return found[1] if found is not None and found[0] == 0 else None

    def parse_plane_link(self, element: str) -> tuple[int, int, int, int] | None:
        """Two tiers: ``(plane q, pod position, leaf, shared spine)`` of a ``link_id`` of any plane
        (``pod2.p1.leaf1-p1.spine0``: plane 1); None for another id, one this fabric lacks or a leaf and spine of
        different planes."""
        leaf, dash, spine = element.rpartition("-")
        shared = self.parse_shared(spine) if dash and not self.three_tiers else None
        found = self.parse(leaf) if shared is not None else None
        parsed = Wiring.parse(found[1]) if found is not None else None
        if parsed is None or parsed[0] != "leaf" or self.plane_of(shared[0]) != parsed[1:3]:
            return None
        return (shared[0], found[0], parsed[3], shared[1]) if parsed[3] < self.wirings[found[0]].leaves else None

    # links ------------------------------------------------------------------------------------------------------
    def order(self) -> list[int]:
        """Pod positions in the order their uplinks take spine ports: by stage, then position."""
        pods = self.fabric.pods
        return sorted(range(len(pods)), key=lambda i: (pods[i].stage, i))

    def uplinks(self) -> Iterator[Uplink]:
        """Every leaf-spine cable to the shared spines, pod by pod (``order``), leaf by leaf, uplink by uplink (module
        docstring); none on three tiers, where each pod's leaf-spine cables are its own wiring's."""
        if self.three_tiers:
            return
        for q in range(self.planes):
            spines = self.fabric.spines
            before = [0] * spines  # ports the pods handed out so far take on each spine
            for i in self.order():
                pod: PodLeaves = self.fabric.pods[i]
                lanes, pair = pod.uplinks_per_spine_port, pod.links_per_leaf_spine_pair
                taken = [0] * spines  # this pod's uplinks on each spine so far (lanes)
                for leaf in range(self.wirings[i].leaves):
                    for k in range(pod.uplinks_per_leaf):
                        spine = k // pair
                        lane = taken[spine]
                        taken[spine] += 1
                        yield Uplink(i, leaf, k, spine, before[spine] + lane // lanes, lane % lanes,
                                     pod.uplink_speed_gbps, q)
                for spine in range(spines):
                    before[spine] += -(-taken[spine] // lanes)

    def core_links(self) -> Iterator[CoreLink]:
        """Three tiers: every spine-core cable, pod by pod (``order``), spine by spine, uplink by uplink (module
        docstring); none on two tiers."""
        for q in range(self.planes):
            before = [0] * self.fabric.cores  # ports the pods handed out so far take on each core
            for i in self.order():
                pod: PodLeaves = self.fabric.pods[i]
                lanes, pair = pod.uplinks_per_core_port, pod.links_per_spine_core_pair
                for spine in range(pod.own_spines):
                    for c, core in enumerate(self.cores_of_spine(spine)):
                        for x in range(pair):
                            yield CoreLink(i, spine, c * pair + x, core, before[core] + x // lanes, x % lanes,
                                           pod.uplink_speed_gbps, q)
                        before[core] += -(-pair // lanes)

    def bundles(self) -> Iterator[Bundle]:
        """The links bundled by device pair, plane by plane (module docstring): each pod's node-leaf bundles (its own
        wiring's of the plane, prefixed),
        then every pod leaf to every shared spine (``u_p / N`` links at the pod's uplink speed); on three tiers each
        pod's own leaf-spine bundles, then every pod spine to every core of its group (``U_p / C`` links)."""
        for q in range(self.planes):
            yield from self.plane_bundles(q)

    def plane_bundles(self, q: int) -> Iterator[Bundle]:
        """``bundles`` of plane ``q``."""
        three = self.three_tiers
        for i, wiring in enumerate(self.wirings):
            prefix = self.prefix(i)
            for kind, a, b, count, speed in wiring.bundles(*self.plane_of(q)):
                if kind == "node-leaf" or (three and kind == "leaf-spine"):
                    yield Bundle(kind, prefix + a, prefix + b, count, speed)
        if three:
            for i in range(len(self.wirings)):
                pod = self.fabric.pods[i]
                for k in range(pod.own_spines):
                    for core in self.cores_of_spine(k):
                        yield Bundle("spine-core", self.own_spine_id(i, k, q), self.shared_core_id(core, q),
                                     pod.links_per_spine_core_pair, pod.uplink_speed_gbps)
            return
        for i, wiring in enumerate(self.wirings):
            pod = self.fabric.pods[i]
            for k in range(wiring.leaves):
                leaf = self.leaf_id(i, k, q)
                for j in range(self.fabric.spines):
                    yield Bundle("leaf-spine", leaf, self.shared_spine_id(j, q), pod.links_per_leaf_spine_pair,
                                 pod.uplink_speed_gbps)
