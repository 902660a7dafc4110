"""The failed state of a failure what-if: which elements are lost (``core.analysis.failure``).

``_dead_of`` turns resolved elements into a ``Dead``: a rack without power takes its nodes' NICs (and,
top-of-rack, its ToRs); both feeds lost is the rack; an HGX NVSwitch chip takes its node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.analysis.failure.shape import Shape, _pair_links

@dataclass
class Dead:
    leaves: set = field(default_factory=set)  # (p, i, k)
    spines: set = field(default_factory=set)
    cores: set = field(default_factory=set)
    planes: set = field(default_factory=set)
    nics: dict = field(default_factory=dict)  # node -> set of NICs (0 .. nics-1)
    bundles: dict = field(default_factory=dict)  # (p, i, leaf, spine) -> set of lost cables
    core_bundles: dict = field(default_factory=dict)  # (p, i, spine, core) -> set of lost cables
    chips: dict = field(default_factory=dict)  # multi-node NVLink domain -> set of lost switch chips
    nodes_without_nvswitch: set = field(default_factory=set)  # HGX nodes that lost an NVSwitch chip
    feeds: dict = field(default_factory=dict)  # rack -> set of lost feeds (0 = A, 1 = B)
    racks_down: set = field(default_factory=set)  # racks without power (named, or every feed lost)
    mesh: dict = field(default_factory=dict)  # node -> set of lost direct-mesh links (a, b), GPU a < b

def _rack_down(dead: Dead, rack: int, shape: Shape) -> None:
    """The rack's power lost: its nodes (every NIC) and, top-of-rack, its ToRs."""
    dead.racks_down.add(rack)
    first = rack * shape.nodes_per_rack
    for n in range(first, min(shape.nodes, first + shape.nodes_per_rack)):
        dead.nics.setdefault(n, set()).update(range(shape.nics))
        if shape.tor:  # its ToR (``Wiring.tor``: top-of-rack with a switch tier above)
            for p, i in shape.pis():
                dead.leaves.add((p, i, shape.leaf_of(shape.group_of_node(n), 0)))


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
        elif tier == "rack":
            _rack_down(dead, key[0], shape)
        elif tier == "feed":
            dead.feeds.setdefault(key[0], set()).add(key[1])
        elif tier == "link":
            kind, p, i, a, b, cable = key
            cables = set(range(_pair_links(shape, kind, a))) if cable is None else {cable}
            target = dead.bundles if kind == "ls" else dead.core_bundles
            target.setdefault((p, i, a, b), set()).update(cables)
        elif tier in ("nvswitch", "tray"):
            chips = [key[1]] if tier == "nvswitch" else list(shape.chips_of_tray(key[1]))
            if shape.nodes_per_domain == 1:  # Fabric Manager's default: the baseboard stays uninitialised
                dead.nodes_without_nvswitch.add(key[0])
                dead.nics.setdefault(key[0], set()).update(range(shape.nics))
            else:
                dead.chips.setdefault(key[0], set()).update(chips)
        elif tier == "meshlink":
            dead.mesh.setdefault(key[0], set()).add(key[1:])
        elif tier == "nvlink2":
            continue  # the second NVLink level: no node or port lost (core.analysis.failure.nvlink2's notes)
        else:
            dead.nics.setdefault(key[0], set()).add(key[1])
    for rack, lost in dead.feeds.items():
        if len(lost) >= shape.feeds:
            _rack_down(dead, rack, shape)
    return dead
