"""The compute fabric of a design with pods as it is wired: the one place that knows how the pods' devices are
named and joined to the shared spine layer (``core.fabric.pods`` sizes it; ``core.fabric.wiring`` wires each pod).

* **Device ids.** A pod's servers and leaves are its own wiring's ids (``core.fabric.wiring.Wiring``: one plane,
  one island) after the pod prefix ``pod<n>.`` (``n`` the pod's number, 1-based): ``pod2.node3``,
  ``pod2.p0.leaf1``, and a group of a pod's servers drawn as one vertex ``pod2.servers0``. The shared spines are
  ``spine<j>`` (``j`` 0-based).
* **Leaf-spine bundles** are named by their leaf and spine as a pod's own are: ``pod2.p0.leaf1-spine0``.
* **Node-leaf links** are each pod's own (``Wiring.bundles``/``links`` of plane 0).
* **Leaf-spine links.** Each leaf of pod ``p`` spreads its ``u_p`` uplinks evenly over the ``N`` shared spines:
  ``u_p / N`` links (``PodLeaves.links_per_leaf_spine_pair``) at the pod's uplink speed [Gb/s per direction] to
  every spine; leaf uplink ``k`` (in the pod's own up-port order) goes to spine ``k // (u_p / N)``. Each spine's
  ports are handed out in the order of the pods' stages, then pods, leaves and uplinks, one port per ``b_p``
  uplinks (``PodLeaves.uplinks_per_spine_port``: breakout lanes), so a later stage's pods take the ports after
  the earlier ones' and a spine layer sized for the final stage moves no cable; a pod's lanes never share a spine
  port with the next pod's.

Building a ``PodsWiring`` is O(pods); enumerating its links is O(links), streamed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, NamedTuple

from core.fabric.pods import MixedFabric, PodLeaves
from core.fabric.wiring import Bundle, Wiring

_POD_ID = re.compile(r"^pod(\d+)\.(.+)$")
_SPINE = "spine"


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

    def leaf_id(self, pod: int, k: int) -> str:
        """Id of leaf ``k`` of the pod at position ``pod``: ``pod2.p0.leaf1``."""
        return self.prefix(pod) + self.wirings[pod].switch_id("leaf", k)

    def local_id(self, pod: int, device: str) -> str:
        """The id ``device`` (of the pod's own wiring, or a vertex name of its drawing) under the pod's prefix."""
        return self.prefix(pod) + device

    @staticmethod
    def spine_id(j: int) -> str:
        """Id of shared spine ``j`` (0-based): ``spine0``."""
        return _SPINE + str(j)

    def link_id(self, pod: int, k: int, j: int) -> str:
        """Id of the link bundle from leaf ``k`` of the pod at position ``pod`` to shared spine ``j`` (as a pod's own
        ``p0.leaf3-spine1``): ``pod2.p0.leaf1-spine0``."""
        return f"{self.leaf_id(pod, k)}-{self.spine_id(j)}"

    def parse_link(self, element: str) -> tuple[int, int, int] | None:
        """``(pod position, leaf, shared spine)`` of a ``link_id``; None for another id or one this fabric lacks."""
        leaf, dash, spine = element.rpartition("-")
        found = self.parse(leaf) if dash and spine.startswith(_SPINE) and spine[len(_SPINE):].isdigit() else None
        parsed = Wiring.parse(found[1]) if found is not None else None
        if parsed is None or parsed[0] != "leaf" or parsed[1] or parsed[2]:
            return None
        j = int(spine[len(_SPINE):])
        ok = parsed[3] < self.wirings[found[0]].leaves and j < self.fabric.spines
        return (found[0], parsed[3], j) if ok else None

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
        ``p0.spine1`` is shared spine ``spine1``, its leaf ``p0.leaf3`` is ``pod1.p0.leaf3``; None for another
        element or one the whole fabric does not have."""
        parsed = Wiring.parse(element.strip().lower())
        if parsed is None or parsed[1] or parsed[2]:
            return None
        role, k = parsed[0], parsed[3]
        if role == "spine":
            return self.spine_id(k) if k < self.fabric.spines else None
        return self.leaf_id(0, k) if role == "leaf" and k < self.wirings[0].leaves else None

    def alone_of_whole(self, element: str) -> str | None:
        """The id in the first pod planned alone of a whole-fabric shared spine or first-pod leaf (``spine1``:
        ``p0.spine1``; ``pod1.p0.leaf3``: ``p0.leaf3``); None for another pod's device (``whole_of_alone``'s
        inverse)."""
        if element.startswith(_SPINE) and element[len(_SPINE):].isdigit():
            return "p0." + element
        found = self.parse(element)
        return found[1] if found is not None and found[0] == 0 else None

    # links ------------------------------------------------------------------------------------------------------
    def order(self) -> list[int]:
        """Pod positions in the order their uplinks take spine ports: by stage, then position."""
        pods = self.fabric.pods
        return sorted(range(len(pods)), key=lambda i: (pods[i].stage, i))

    def uplinks(self) -> Iterator[Uplink]:
        """Every leaf-spine cable, pod by pod (``order``), leaf by leaf, uplink by uplink (module docstring)."""
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
                                 pod.uplink_speed_gbps)
            for spine in range(spines):
                before[spine] += -(-taken[spine] // lanes)

    def bundles(self) -> Iterator[Bundle]:
        """The links bundled by device pair: each pod's node-leaf bundles (its own wiring, plane 0, prefixed),
        then every pod leaf to every shared spine (``u_p / N`` links at the pod's uplink speed)."""
        for i, wiring in enumerate(self.wirings):
            prefix = self.prefix(i)
            for kind, a, b, count, speed in wiring.bundles():
                if kind == "node-leaf":
                    yield Bundle(kind, prefix + a, prefix + b, count, speed)
        for i, wiring in enumerate(self.wirings):
            pod = self.fabric.pods[i]
            for k in range(wiring.leaves):
                leaf = self.leaf_id(i, k)
                for j in range(self.fabric.spines):
                    yield Bundle("leaf-spine", leaf, self.spine_id(j), pod.links_per_leaf_spine_pair,
                                 pod.uplink_speed_gbps)
