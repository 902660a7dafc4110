"""The port-to-port cabling plan: one row per cable of every network, streamed.

``cabling_rows(plan, naming)`` yields one ``CableRow`` per physical link (cable id, network, link class,
both ends' rack / U / device / port, speed, media, length and the transceiver part at each end) without
ever holding the whole list: a 131,072-GPU design (about 400,000 cables) streams in a few seconds and a
few MB (``benchmarks/bench_cabling.py``). Who connects to whom, and on which port ordinal of each end, is
the wiring index's (``core.fabric.wiring.Wiring.links``, the links ``core.fabric.topology.fabric_graph``
bundles; ``tests/test_cabling.py`` checks the two agree); this module names the ordinals' ports. Device
names come from ``core.fabric.naming.Namer`` (the one naming scheme every export uses).

Port layout (``PortLayout``), per switch model, 1-based as the switch shows it:

* **InfiniBand, Quantum-2 and Quantum-X800** (QM9700, Q3400, Q3200: twin-port OSFP cages, two ports per
  cage): ``<asic>/<cage>/<port>``, e.g. ``1/3/1`` and ``1/3/2`` are the two ports of cage 3; a split port
  (NDR200 on a QM9700, four per cage) adds the split lane: ``1/3/1/2``. Source: NVIDIA MLNX-OS User
  Manual v3.11.2016, *InfiniBand Interface* ("For Quantum-2 based systems, there will be an additional
  hierarchy - the cage level, which, for Quantum-2 systems, contains 2 physical ports ... <Asic/Cage/Port>
  (e.g., "interface ib 1/3/1 and interface ib 1/3/2")",
  https://docs.nvidia.com/networking/display/nvidiamlnxosusermanualv3112016/infiniband+interface).
  That Quantum-X800 names its twin-port cages the same way is an assumption (same cage hierarchy).
* **InfiniBand, one port per cage** (QM8700, SB7800): ``1/<port>``; a split port (HDR100) ``1/<port>/<lane>``
  (same manual: "Splitting a port changes the notation of that port from x/y to x/y/z ... splitting port 5
  into 2 lanes gives the following new ports: 1/5/1 & 1/5/2"; ``interface ib 1/1`` in the MLNX-OS
  *InfiniBand Interface Commands*).
* **NVIDIA Spectrum Ethernet** (SN5600, SN5400, SN4600C, SN2201; Cumulus Linux / NVUE): ``swp<cage>``, a
  broken-out cage ``swp<cage>s<lane>`` with 0-based lanes (NVUE reference, *Profile-Based Configuration*:
  "With breakout 4x, parent ports swp1 through swp32 split into sub-interfaces swp1s0 through swp32s3",
  https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/Profile-Based-Configuration/).
  An 800G cage broken out to 2 x 400G is ``swp1s0``, ``swp1s1``.
* **Other Ethernet** (Broadcom class entries, Arista, Cisco chassis): ``Ethernet<cage>``, a broken-out cage
  ``Ethernet<cage>/<lane>`` (1-based), the usual fixed-switch form; not checked against each vendor's OS
  (an assumption; the catalog's class entries have no one OS).
* **NVLink, second level** (``nvlink_links``): ``osfp<c>`` on a first-level NVLink switch tray and on a level-2
  NVLink switch unit, ``nvlink<c>`` on a node whose own cages carry its level-2 NVLinks (DGX H100), ``c`` the
  1-based OSFP cage of 4 NVLinks (NVIDIA published no port names for these cages: the planner's).
* **Nodes**: ``nic<k>/port<p>``, NIC ``k`` (rail, 1-based) and its port ``p`` (the plane, 1-based). A neutral
  name: the host's interface names (``ibp24s0``, ``mlx5_0`` on a DGX H100) depend on PCI enumeration and
  the OS, so the plan names the NIC by rail, as the SuperPOD reference architectures number rails.

Port assignment (field engineers' conventions, as in NVIDIA's SuperPOD RAs, where DGX downlinks take the
leaf's lower ports and spine uplinks the upper half; the ordinals are ``core.fabric.wiring``'s, the port each
ordinal names is this module's ``_port_plan`` per switch role):

* downlinks on the lower ports, uplinks from the first cage after the most downlinks the leaf can have
  (``FabricPlan.leaf_down_ports_max``), so every leaf's uplinks start on the same port;
* rail-optimized: node ``k`` of a scalable unit is on port ``k`` of every rail leaf of that SU (the same
  port number on each rail); top-of-rack: node ``k``'s NIC ``r`` on port ``k * rails + r``;
* leaf ``l``'s ``j``-th link to spine ``s``: leaf uplink ``s * pair + j`` and spine port ``l * pair + j``
  (``l`` counted within the pod in three tiers); spine ``j`` of pod ``P`` to core ``c`` of group ``j``:
  core port ``P * pair + k``, so every pod sits on the same core ports;
* ports are counted in units of the switch's down-speed port (what the radix counts): an 800G uplink on a
  leaf whose 800G cages break out to 2 x 400G toward the NICs takes a whole cage (``swp33``).

Positions, lengths and media: rack and U come from ``Plan.layout`` (``core.physical.layout``), each
cable's length from its two ends by ``core.physical.lengths``'s routing rule (rounded up to 0.1 m), and
its media, cable part and transceivers from the media of its length bin (``Plan.media``,
``core.physical.media.media_for``). Without a layout (a plan built by hand), rack, U and length are empty
and the media are those of the plan's bill of materials for the link class. Devices no rack holds (rack
PDUs) and the far end of a site uplink (``SITE``) have no rack, U or length.

The other networks (``Plan.networks``: storage, in-band, out-of-band, and the compute fabric's UFM
links) follow the compute fabric; ``core.networks`` sizes their link sets by count and speed, and
``network_links`` assigns the ends (its docstring; the planner's assignment, not a published cabling
guide's). Their devices are named by ``other_name`` (``storage-leaf001``, ``mgmt-ufm002``, ``pdu004``),
padded as ``core.fabric.naming`` pads, because ``Namer`` names the compute fabric only.

Languages: every field of a row is machine-readable English (ids, port names, media keys).
"""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace
from typing import Iterator, NamedTuple

from core.catalog import Catalog, Switch, load_catalog
from core.errors import FabricPlannerError
from core.fabric import domainlevels
from core.fabric.naming import Namer, NamingScheme, device_groups, other_stem
from core.fabric.wiring import LINK_CLASSES, Wiring
from core.memo import stage

CABLE_COLUMNS = (
    "cable_id", "network", "link_class",
    "a_rack", "a_u", "a_device", "a_port",
    "z_rack", "z_u", "z_device", "z_port",
    "speed_gbps", "media", "length_m", "cable_part", "a_transceiver", "z_transceiver",
)
"""Columns of the cabling plan, in order (CSV header, XLSX plan sheet)."""



class CableRow(NamedTuple):
    """One cable. Ends: A is the lower tier (node, leaf, spine), Z the upper (leaf, spine, core)."""

    cable_id: str
    network: str
    """``compute``, ``nvlink`` (the level-2 NVLink cables), ``storage``, ``inband`` or ``oob``."""
    link_class: str
    """``node-leaf``, ``leaf-spine``, ``spine-core`` (compute); ``nvlink-l2`` (a first-level domain to a level-2
    NVLink switch) or ``nvlink-direct`` (rack to rack, NVL36x2); the network's own classes otherwise."""
    a_rack: str
    a_u: int | None
    """Lowest U the A device occupies in its rack (1-based), None without a layout."""
    a_device: str
    a_port: str
    z_rack: str
    z_u: int | None
    z_device: str
    z_port: str
    speed_gbps: int
    """Link speed, per direction [Gb/s]."""
    media: str
    """``dac``, ``acc``, ``aoc`` (cable with its ends built in), ``mmf`` or ``smf`` (fibre between transceivers)."""
    length_m: float | None
    """Cable length [m] (slack included, as ``core.physical.lengths`` states; rounded up to 0.1 m), None
    without a layout."""
    cable_part: str
    """Catalog id of the cable: the DAC/ACC/AOC itself, or the fibre cord between two transceivers."""
    a_transceiver: str
    """Catalog id of the transceiver in the A port ("" for DAC/ACC/AOC, whose ends are the cable's)."""
    z_transceiver: str


# --------------------------------------------------------------------------------------
# Switch port layouts
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PortLayout:
    """Port names of one switch model at one port speed, and its port units.

    units : int        Ports at the unit speed (the speed the radix counts: a leaf's down speed).
    per_cage : int     Unit ports per cage.
    style : str        ``ib-cage`` (Quantum-2 class), ``ib`` (one port per cage), ``cumulus``, ``ethernet``.
    native : int       Ports per cage without a splitter cable (2 on twin-port InfiniBand cages, else 1).
    """

    model: str
    style: str
    cages: int
    per_cage: int
    native: int

    @property
    def units(self) -> int:
        return self.cages * self.per_cage

    def name(self, unit: int, cost: int = 1) -> str:
        """Name of the port that starts at unit ``unit`` (0-based) and takes ``cost`` units."""
        cage, within = divmod(unit, self.per_cage)
        per_cage = max(1, self.per_cage // cost)  # ports of this size one cage holds
        lane = within // cost
        if self.style == "ib-cage":
            if per_cage <= self.native:
                return f"1/{cage + 1}/{lane * self.native // per_cage + 1}"
            split = per_cage // self.native
            port, sub = divmod(lane, split)
            return f"1/{cage + 1}/{port + 1}/{sub + 1}"
        if self.style == "ib":
            return f"1/{cage + 1}" if per_cage == 1 else f"1/{cage + 1}/{lane + 1}"
        if self.style == "cumulus":
            return f"swp{cage + 1}" if per_cage == 1 else f"swp{cage + 1}s{lane}"
        return f"Ethernet{cage + 1}" if per_cage == 1 else f"Ethernet{cage + 1}/{lane + 1}"


def port_style(switch: Switch) -> tuple[str, int]:
    """(naming style, native ports per cage) of a catalog switch (module docstring)."""
    if switch.fabric == "infiniband":
        if switch.cage_type.lower().startswith("osfp twin-port"):
            return "ib-cage", 2
        return "ib", 1
    if switch.asic.startswith("Spectrum"):
        return "cumulus", 1
    return "ethernet", 1


def port_layout(switch: Switch, unit_speed_gbps: int) -> PortLayout:
    """The ``PortLayout`` of ``switch`` counted in ports of ``unit_speed_gbps`` [Gb/s]."""
    style, native = port_style(switch)
    ports = switch.ports_at(unit_speed_gbps) or switch.cages
    return PortLayout(model=switch.id, style=style, cages=switch.cages, per_cage=max(1, ports // switch.cages),
                      native=native)


@lru_cache(maxsize=64)
def _names(layout: PortLayout, start: int, count: int, cost: int) -> tuple[str, ...]:
    """Names of ``count`` ports of ``cost`` units each from unit ``start``."""
    return tuple(layout.name(start + i * cost, cost) for i in range(count))


def uplink_start(layout: PortLayout, down_units: int, up_ports: int, cost: int) -> int:
    """First unit of the uplinks: the first whole cage after ``down_units`` when the uplinks still fit,
    else the first unit after the downlinks aligned to the uplink size."""
    cage_aligned = math.ceil(down_units / layout.per_cage) * layout.per_cage
    if cage_aligned + up_ports * cost <= layout.units:
        return cage_aligned
    return math.ceil(down_units / cost) * cost


# --------------------------------------------------------------------------------------
# Media and transceivers per link class (from the plan's BOM; the layout's media when present)
# --------------------------------------------------------------------------------------
class ClassMedia(NamedTuple):
    media: str
    cable_part: str
    a_transceiver: str
    z_transceiver: str


def class_media(plan, catalog: Catalog | None = None) -> dict[str, ClassMedia]:
    """Media and transceiver part ids of each compute link class, read from ``plan.bom``.

    ``core.cost.build_bom`` adds, in link-class order, one DAC/ACC/AOC row per class cabled that way, then
    one switch-side transceiver row per optical class, one node-side row, and one fibre row per optical
    class; the counts and order identify the class of each row (quantities equal the class's link count).
    """
    catalog = catalog or load_catalog()
    fabric, planes = plan.fabric, plan.fabric.planes
    links = {"node-leaf": fabric.node_leaf_links * planes, "leaf-spine": fabric.leaf_spine_links * planes,
             "spine-core": fabric.spine_core_links * planes}
    present = [c for c in LINK_CLASSES if links[c]]
    kinds = {c.id: c for c in catalog.cables}
    direct: dict[str, tuple[str, str]] = {}
    switch_side: list[str] = []
    node_side = ""
    fibres: list[tuple[str, str]] = []
    for row in plan.bom:
        if row.category == "cable" and row.catalog_id in kinds:
            cable = kinds[row.catalog_id]
            if cable.kind == "fiber":
                fibres.append((cable.media, cable.id))
                continue
            for c in present:
                if c not in direct and links[c] == row.quantity:
                    direct[c] = (cable.kind, cable.id)
                    break
        elif row.category == "transceiver":
            if row.end == "switch":
                switch_side.append(row.catalog_id)
            elif row.end == "node":
                node_side = row.catalog_id
    optical = [c for c in present if c not in direct]
    out: dict[str, ClassMedia] = {}
    for c in present:
        if c in direct:
            out[c] = ClassMedia(direct[c][0], direct[c][1], "", "")
            continue
        k = optical.index(c)
        module = switch_side[k] if k < len(switch_side) else ""
        media, fibre = fibres[k] if k < len(fibres) else ("smf", "")
        a_end = node_side if c == "node-leaf" else module
        out[c] = ClassMedia(media, fibre, a_end, module)
    return out


def bin_media(media_bin) -> ClassMedia:
    """``ClassMedia`` of a ``core.physical.media.MediaBin`` (the layout's media for one length bin)."""
    if media_bin.cable_id:
        return ClassMedia(media_bin.kind, media_bin.cable_id, "", "")
    a_end = media_bin.node_module_id if media_bin.link_class == "node-leaf" else media_bin.switch_module_id
    return ClassMedia(media_bin.kind, media_bin.fibre_id, a_end, media_bin.switch_module_id)


# --------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------
class _Ends:
    """Rack, U and cable length of devices placed by ``plan.layout`` (``core.physical.layout.Layout``).

    Lengths follow ``core.physical.lengths``'s routing rule (same rack: the height difference plus the
    crossing; other racks: up to the tray, along the trays by the Manhattan distance between the rack
    centres, down; then the slack), computed per link here with the same constants;
    ``tests/test_cabling.py`` checks it equals ``core.physical.lengths.length_m``.
    """

    NOWHERE = ("", None, -1, 0.0, 0.0, 0.0, 0.0)

    def __init__(self, plan):
        self.layout = getattr(plan, "layout", None)
        self.cache: dict[str, tuple] = {}
        if self.layout is not None:
            from core.physical.racks import load_racks

            routing = load_racks().routing
            self.u_m = routing.u_mm / 1000
            self.in_rack_m, self.tray_m = routing.in_rack_m, routing.tray_above_rack_m
            self.stretch, self.ends_m = 1 + routing.slack_fraction, 2 * routing.slack_end_m
            self.rack_index = {r.name: i for i, r in enumerate(self.layout.racks)}

    def of(self, device_id: str) -> tuple:
        """``(rack name, lowest U, rack index, U centre, run up to the tray [m], rack x [m], rack y [m])``;
        ``NOWHERE`` (rack index -1) when not placed."""
        found = self.cache.get(device_id)
        if found is not None:
            return found
        found = self.NOWHERE
        if self.layout is not None:
            try:
                rack, slot, offset = self.layout.slot_of(device_id)
            except (FabricPlannerError, KeyError, ValueError):
                rack = None
            if rack is not None:
                first = slot.first_u + offset * slot.height_u
                centre = first + slot.height_u / 2 - 1
                found = (rack.name, int(first), self.rack_index[rack.name], centre,
                         (rack.u_total - centre) * self.u_m + self.tray_m, rack.x_m, rack.y_m)
        if not device_id.startswith("node"):  # switches repeat on many cables; nodes come in runs
            self.cache[device_id] = found
        return found

    def length(self, a: tuple, z: tuple) -> float | None:
        """Cable length [m] between two ``of`` results, rounded up to 0.1 m (None when either is not placed)."""
        if a[2] < 0 or z[2] < 0:
            return None
        if a[2] == z[2]:
            run = abs(a[3] - z[3]) * self.u_m + self.in_rack_m
        else:
            run = a[4] + z[4] + abs(a[5] - z[5]) + abs(a[6] - z[6])
        return math.ceil((run * self.stretch + self.ends_m) * 10 - 1e-6) / 10


def placed_ends(layout) -> _Ends:
    """The ``_Ends`` of the devices ``layout`` places (a ``core.physical.layout.Layout`` that is no plan's, such as
    the hall of a design with pods): ``of(device)`` and ``length(a, z)`` [m] as the cabling plan measures them."""
    return _Ends(SimpleNamespace(layout=layout))


def position_of(layout, device_id: str) -> tuple[str, int | None]:
    """``(rack name, lowest U)`` of ``device_id`` in ``layout`` (``("", None)`` without a layout or position)."""
    if layout is None:
        return "", None
    try:
        position = layout.position(device_id)
    except (FabricPlannerError, KeyError, ValueError):
        return "", None
    return position.rack, position.u


def nvlink_cable_count(resolved) -> int:
    """Level-2 NVLink cables of a two-level NVLink design (``core.fabric.domainlevels``, the bill of materials'
    count); 0 with one level."""
    return domainlevels.scaleup_of(resolved).totals()["level2_cables"] if resolved.nvlink_rack_gpus else 0


def nvlink_links(plan, scheme: NamingScheme) -> Iterator[tuple[str, str, str, str, str, str, str, int]]:
    """The level-2 NVLink cables (``core.fabric.domainlevels.level2_links``, in its order) as ``(link class, A id,
    A name, A port, Z id, Z name, Z port, speed)``: a node's cage ``nvlink<c>``, a switch tray's or level-2 unit's
    ``osfp<c>`` (1-based); speed per direction [Gb/s] = NVLinks per cable x one NVLink's rate."""
    resolved = plan.resolved
    up = domainlevels.scaleup_of(resolved)
    if up.level2 is None or not resolved.nvlink_rack_gpus:
        return
    speed = round(up.level2.links_per_cable * up.link_gbytes * 8)
    namer = Namer.of(plan, scheme)
    names: dict[str, str] = {}

    def name(device: str) -> str:
        found = names.get(device)
        if found is None:
            node = Wiring.parse_node(device)
            found = names[device] = (namer.node(node) if node is not None
                                     else domainlevels.level2_device_name(device, resolved, scheme))
        return found

    for kind, a, a_cage, z, z_cage in domainlevels.level2_links(resolved):
        a_port = f"osfp{a_cage + 1}" if a.startswith("nvsw") else f"nvlink{a_cage + 1}"
        yield kind, a, name(a), a_port, z, name(z), f"osfp{z_cage + 1}", speed


def nvlink_summary(plan) -> list[dict]:
    """Per level-2 NVLink link class (``nvlink_links``): ``link_class``, ``cables``, ``longest_m`` and ``mean_m``
    [m] (None without a layout), ``media`` and ``part`` (the catalog cable), for the Racks & cabling tab; empty with
    one NVLink level."""
    resolved = plan.resolved
    spec = domainlevels.level2_for(resolved.system) if resolved.nvlink_rack_gpus else None
    if spec is None:
        return []
    ends = _Ends(plan)
    found: dict[str, list] = {}
    for kind, a, _a_cage, z, _z_cage in domainlevels.level2_links(resolved):
        length = ends.length(ends.of(a), ends.of(z))
        entry = found.setdefault(kind, [0, None, 0.0])
        entry[0] += 1
        if length is not None:
            entry[1] = max(entry[1] or 0.0, length)
            entry[2] += length
    return [{"link_class": kind, "cables": count, "longest_m": longest,
             "mean_m": None if longest is None else round(total / count, 1), "media": spec.cable.media,
             "part": spec.cable.id} for kind, (count, longest, total) in found.items()]


def cable_count(plan) -> int:
    """Cables of the plan: the compute fabric's (every plane: node-leaf + leaf-spine + spine-core links), the
    level-2 NVLink cables of a two-level NVLink design (``nvlink_cable_count``) and,
    when ``plan.networks`` holds them, the compute fabric's UFM links and every link of the other networks."""
    f = plan.fabric
    count = (f.node_leaf_links + f.leaf_spine_links + f.spine_core_links) * f.planes
    count += nvlink_cable_count(plan.resolved)
    networks = getattr(plan, "networks", None)
    if networks is not None:
        count += sum(link.count for link in networks.compute_links)
        count += sum(network.link_count for network in networks.sized())
    return count


def _port_plan(plan, wiring: Wiring, role: str) -> tuple[PortLayout, int, int, int]:
    """``(port layout, down ports, up ports, units per up port)`` of switch role ``role`` (module docstring): a
    leaf's down ports are its node ports (every port of a leaf no tier is above), a spine's its leaf ports, a
    core's every port; the top role has no up ports. A spine's up ports are the sizing's full-pod count
    (``FabricPlan.spine_uplinks``), so every spine's uplinks start on the same port (``Wiring.spine_uplinks``
    holds each pod's, a partial pod's fewer)."""
    resolved = plan.resolved
    layout = port_layout(resolved.tier_switches[role], wiring.port_gbps if role == "leaf" else wiring.up_gbps)
    top = role == wiring.roles[-1] and not (role == "leaf" and wiring.leaf_uplinks)  # a Dragonfly's routers: up
    if role == "leaf":
        down = layout.units if top else max(wiring.leaf_down_ports_max,
                                            wiring.nodes_per_group * wiring.links_per_node_leaf)
        return layout, down, 0 if top else wiring.leaf_uplinks, max(1, round(resolved.leaf_uplink_cost))
    if role == "spine":
        return layout, wiring.leaves_per_pod * wiring.pair_links, wiring.spine_up_ports(plan.fabric), 1
    return layout, layout.units, 0, 1


def port_units(plan, wiring: Wiring) -> dict[str, tuple[PortLayout, tuple[int, ...], tuple[int, ...], int]]:
    """Per switch role, ``(port layout, first unit of each down port, first unit of each up port, units per up
    port)`` by port ordinal (``core.fabric.wiring``): downlinks from the first port, uplinks from
    ``uplink_start``. Unit ``u`` is the switch's port number ``u + 1`` where a port takes one unit (the
    InfiniBand port numbers ``ibnetdiscover`` shows)."""
    out = {}
    for role in wiring.roles:
        layout, down, up, cost = _port_plan(plan, wiring, role)
        start = uplink_start(layout, down, up, cost)
        out[role] = (layout, tuple(range(min(down, layout.units))), tuple(start + i * cost for i in range(up)), cost)
    return out


def port_names(plan, wiring: Wiring) -> dict[tuple[str, str], tuple[str, ...]]:
    """Port names by port ordinal (``core.fabric.wiring``) of each switch role's ``down`` and ``up`` ports
    (``port_units``)."""
    out = {}
    for role, (layout, down, up, cost) in port_units(plan, wiring).items():
        out[role, "down"] = _names(layout, 0, len(down), 1)
        out[role, "up"] = _names(layout, up[0], len(up), cost) if up else ()
    return out


def node_port(nic: int, plane: int) -> str:
    """A server's port name: ``nic<k>/port<p>`` of NIC ``nic`` and plane ``plane`` (both 0-based, named 1-based)."""
    return f"nic{nic + 1}/port{plane + 1}"


def compute_links(plan) -> Iterator[tuple[str, str, str, str, str, int]]:
    """Every link of the compute fabric as ``(link class, A vertex, A port, Z vertex, Z port, speed)``.

    The links are ``core.fabric.wiring.Wiring.links`` (ids ``node3``, ``p0.leaf1``, ``p0.i2.spine0``; speed
    per direction [Gb/s]), plane by plane and island by island; ports are the switches' port names of each
    link's port ordinals (module docstring) and the nodes' ``nic<k>/port<p>`` (NIC ``k``, plane ``p``).
    """
    wiring = Wiring.of(plan)
    switch_ports = port_names(plan, wiring)
    nics = plan.resolved.nics_per_node
    for plane, island in wiring.plane_islands():
        ports = {**switch_ports, ("node", "up"): tuple(node_port(nic, plane) for nic in range(nics))}
        names = {kind: tuple(ports[end] for end in wiring.class_ends(kind)) for kind in wiring.link_classes}
        for kind, a, a_port, z, z_port, speed in wiring.links(plane, island):
            a_names, z_names = names[kind]
            yield kind, a, a_names[a_port], z, z_names[z_port], speed


# --------------------------------------------------------------------------------------
# The other networks (storage, in-band, out-of-band) and the compute fabric's UFM links
# --------------------------------------------------------------------------------------
SITE = "site-network"
"""Z device of a link to the site (data-centre) network: the far end is the site's, not the design's."""
_NODE_PORTS = {"storage": "stor", "inband": "inband"}
"""Node port name stem on the storage and in-band networks (``stor1``, ``stor2``, ``inband1``, ...)."""


class _Ports:
    """Hands out each device's ports once: switches from their port layout (downlinks from port 1, uplinks
    from ``up_start``), hosts and appliances by a stem and a 1-based number (``mgmt1``)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.next: dict[tuple[str, str], int] = {}

    def take(self, device: str, side: str, start: int = 0) -> int:
        key = (device, side)
        index = self.next.get(key, start)
        self.next[key] = index + 1
        return index

    def switch_end(self, sw: dict, device: str, side: str, speed: int) -> str:
        """Next free port of a network switch: one port at the switch set's speed per link (a slower link runs
        on it); a speed the model has no mode for (an SN2201's 100G uplinks) on its uplink cages."""
        model, port_speed, up, _peer = sw[device]
        switch, _layout = _model_layout(self.catalog, model, port_speed)
        if switch is not None and speed != port_speed and switch.ports_at(speed) is None:
            return _switch_port(self.catalog, model, speed, self.take(device, "uplink-cage"))
        upper_start = self.next.get((device, "upper-start"))
        if side == "down" and (upper_start is None or self.next.get((device, "ports"), 0) < upper_start):
            index = self.take(device, "ports")
        else:  # uplinks and peer links (and a downlink past them) share the ports above the downlinks
            if upper_start is None:
                self.next[(device, "upper-start")] = max(up, self.next.get((device, "ports"), 0))
            index = self.take(device, "upper", self.next[(device, "upper-start")])
        return _switch_port(self.catalog, model, port_speed, index)

    def host_end(self, device: str, stem: str) -> str:
        """The next port of host ``device`` named ``stem`` and a 1-based number (``mgmt1``)."""
        return f"{stem}{self.take(device, stem) + 1}"

    def homed(self, hosts: list[str], leaves: list[str], count: int,
              balance: bool = True) -> Iterator[tuple[str, str]]:
        """(host, leaf) per link, each host's links on different leaves where it has several. ``balance``:
        each link to the leaf with the fewest ports taken so far; otherwise host ``i``'s ``k``-th link to
        leaf ``g * per_host + k`` of its group ``g`` of consecutive hosts (the first link class on empty
        leaves: the same balance, in order)."""
        if not hosts or not leaves:
            return
        per_host = max(1, -(-count // len(hosts)))
        groups = max(1, len(leaves) // per_host)
        per_group = -(-len(hosts) // groups)
        heap = [(self.next.get((leaf, "ports"), 0), i, leaf) for i, leaf in enumerate(leaves)]
        heapq.heapify(heap)
        mine: dict[str, set] = {}
        for i in range(count):
            h, k = divmod(i, per_host)
            if h >= len(hosts):
                h, k = i % len(hosts), per_host + i // len(hosts)
            host = hosts[h]
            if not balance:
                yield host, leaves[((h // per_group) * per_host + k) % len(leaves)]
                continue
            taken = mine.setdefault(host, set())
            if len(taken) >= len(leaves):
                taken.clear()
            skipped = []
            while True:  # the least-loaded leaf this host is not on yet
                load, position, leaf = heapq.heappop(heap)
                if leaf not in taken:
                    break
                skipped.append((load, position, leaf))
            for entry in skipped:
                heapq.heappush(heap, entry)
            heapq.heappush(heap, (load + 1, position, leaf))
            taken.add(leaf)
            yield host, leaf



@stage(0.002, sizeof=lambda found: 4096)
def _model_layout(catalog: Catalog, model: str, speed: int) -> tuple[Switch | None, PortLayout | None]:
    """The catalog switch ``model`` and its port layout at ``speed`` (None, None when the catalog lacks it); cached
    by these arguments (``core.memo.stage``: a port name per cable asks it; the switch is the catalog's own and
    a layout a few hundred bytes)."""
    try:
        switch = catalog.switch(model)
    except FabricPlannerError:
        switch = None
    return switch, (port_layout(switch, speed) if switch is not None and switch.ports_at(speed) is not None else None)


def _switch_port(catalog: Catalog, model: str, speed: int, index: int) -> str:
    """Port ``index`` (0-based) of a catalog switch at ``speed``; ``port<n>`` for a model the catalog lacks.

    An SN2201's four 100G uplinks follow its 48 RJ45 ports (``swp49``..``swp52``, Cumulus numbering;
    that they continue the access ports' numbers is an assumption)."""
    switch, layout = _model_layout(catalog, model, speed)
    if switch is None:
        return f"port{index + 1}"
    if layout is None:  # e.g. the SN2201's QSFP28 uplinks: after its access ports
        return f"swp{switch.cages + index + 1}" if port_style(switch)[0] == "cumulus" else f"port{index + 1}"
    return layout.name(index) if index < layout.units else f"port{index + 1}"


def _spread(ends: list[str], count: int) -> list[str]:
    """``count`` link ends over ``ends``: each end in turn, as many times as it takes (0 ends: none)."""
    if not ends:
        return []
    per = -(-count // len(ends))
    return [ends[i // per] for i in range(count)]


def _ids(groups, *roles_or_kinds) -> list[str]:
    """Device ids of the groups whose role (or kind) is one of ``roles_or_kinds``."""
    return [i for g in groups if (getattr(g, "role", None) or g.kind) in roles_or_kinds for i in g.ids()]


def _switch_models(network) -> dict[str, tuple[str, int, int]]:
    """id -> (catalog model, port speed, first uplink port) of the network's switches."""
    out = {}
    for group in network.switches:
        for i in group.ids():
            out[i] = (group.model, group.port_speed_gbps, group.down_ports_used,
                      group.down_ports_used + group.up_ports_used)
    return out


def _compute_ufm_links(plan, networks, ports: _Ports, ufms: list[str]) -> Iterator[tuple]:
    """The compute fabric's UFM appliances' links (``ufm-leaf``): free down ports of the last scalable unit's
    leaves (plane 0), then the ports above the uplinks when those are used up."""
    wiring = Wiring.of(plan)
    for link in networks.compute_links:
        if link.kind != "ufm-leaf" or not ufms:
            continue
        group_leaves = wiring.leaves_of_group(max(0, wiring.groups - 1))
        if not group_leaves:  # a torus: no leaf to home them on
            return
        leaves = [wiring.switch_id("leaf", k, 0, i) for i in range(wiring.islands) for k in group_leaves]
        first_free = wiring.leaf_down_ports(group_leaves[0])
        leaf_layout, down_max, up, cost = _port_plan(plan, wiring, "leaf")
        above = uplink_start(leaf_layout, down_max, up, cost) + up * cost  # the first port above the uplinks
        for ufm, leaf in ports.homed(ufms, leaves, link.count, balance=False):
            index = ports.take(leaf, "ufm", first_free)
            if down_max <= index < above:  # the free down ports are used up: the ports above the uplinks
                index = ports.next[(leaf, "ufm")] = above
                ports.next[(leaf, "ufm")] += 1
            name = leaf_layout.name(index) if index < leaf_layout.units else f"port{index + 1}"
            yield "compute", "ufm-leaf", ufm, ports.host_end(ufm, "ib"), leaf, name, link.speed_gbps, link


def _management_hosts(kind: str, plan, networks, ufms: list[str], devices: dict, nodes: list[str]) -> list[str]:
    """The devices an out-of-band link class serves: nodes' BMCs, every switch's management port, the appliances'
    management ports, or the PDUs."""
    if kind == "bmc":
        return nodes
    if kind == "switch-mgmt":
        return [*Wiring.of(plan).all_switch_ids(), *(i for n in networks.sized() for g in n.switches for i in g.ids())]
    if kind == "device-mgmt":
        return [*ufms, *(i for n in networks.sized() for g in n.devices if g.kind != "pdu" for i in g.ids())]
    return devices["pdu"]


def _sized_network_links(plan, networks, network, ports: _Ports, nodes: list[str],
                         ufms: list[str]) -> Iterator[tuple]:
    """Links of one sized network (``network_links``' rules, in its order), ends assigned from ``ports``."""
    sw = _switch_models(network)
    switches = _ids(network.switches, "switch")
    leaves = _ids(network.switches, "leaf") or (switches if network.network != "oob" else [])  # one tier
    storage_leaves = _ids(network.switches, "storage-leaf") or leaves
    spines = _ids(network.switches, "spine")
    devices = {kind: _ids(network.devices, kind) for kind in ("storage", "ufm", "head", "nfs", "pdu")}
    for link in network.links:
        kind, count, speed = link.kind, link.count, link.speed_gbps
        name = network.network
        if kind == "node-leaf":
            for host, leaf in ports.homed(nodes, leaves, count, balance=False):
                yield (name, kind, host, ports.host_end(host, _NODE_PORTS.get(name, name)), leaf,
                       ports.switch_end(sw, leaf, "down", speed), speed, link)
        elif kind in ("storage-leaf", "ufm-leaf", "head-leaf", "nfs-leaf"):
            hosts = devices[{"storage-leaf": "storage", "ufm-leaf": "ufm", "head-leaf": "head",
                             "nfs-leaf": "nfs"}[kind]]
            if kind == "ufm-leaf" and not hosts:
                hosts = ufms
            targets = storage_leaves if kind in ("storage-leaf", "ufm-leaf") else leaves
            stem = "mgmt" if name == "oob" else ("ib" if network.fabric == "infiniband" else "eth")
            for host, leaf in ports.homed(hosts, targets, count):
                yield (name, kind, host, ports.host_end(host, stem), leaf,
                       ports.switch_end(sw, leaf, "down", speed), speed, link)
        elif kind == "leaf-spine":
            lower = leaves + [s for s in storage_leaves if s not in leaves]
            for i, leaf in enumerate(_spread(lower, count)):
                spine = spines[i % len(spines)] if spines else SITE
                yield (name, kind, leaf, ports.switch_end(sw, leaf, "up", speed), spine,
                       ports.switch_end(sw, spine, "down", speed), speed, link)
        elif kind == "isl":
            pairs = [(leaves[i], leaves[i + 1]) for i in range(0, len(leaves) - 1, 2)]
            for a, z in _spread(pairs, count):
                yield (name, kind, a, ports.switch_end(sw, a, "peer", speed), z,
                       ports.switch_end(sw, z, "peer", speed), speed, link)
        elif kind == "site-uplink":
            for device in _spread(spines or leaves or switches, count):
                yield name, kind, device, ports.switch_end(sw, device, "up", speed), SITE, "", speed, link
        elif kind == "oob-uplink":  # sized with the in-band network: OOB switches up to its leaves
            oob = networks.oob
            lower = _ids(oob.switches, "switch") if oob is not None else []
            oob_sw = _switch_models(oob) if oob is not None else {}
            for i, device in enumerate(_spread(lower, count)):
                z = leaves[i % len(leaves)] if leaves else SITE
                z_port = ports.switch_end(sw, z, "down", speed) if z in sw else ""
                yield ("oob", kind, device, ports.switch_end(oob_sw, device, "up", speed), z, z_port, speed, link)
        elif kind in ("bmc", "switch-mgmt", "device-mgmt", "pdu-mgmt"):
            hosts = _management_hosts(kind, plan, networks, ufms, devices, nodes)
            if not hosts:
                continue
            order = [hosts[i % len(hosts)] for i in range(count)]
            for device, oob in zip(order, _spread(switches, count)):
                stem = "bmc" if kind == "bmc" else "mgmt"
                yield (name, kind, device, ports.host_end(device, stem), oob, ports.switch_end(sw, oob, "down", speed),
                       speed, link)
        elif kind == "ufm-b2b":
            all_ufms = [*ufms, *(i for n in networks.sized() for g in n.devices if g.kind == "ufm"
                                 for i in g.ids())]
            pairs = [(all_ufms[i], all_ufms[i + 1]) for i in range(0, len(all_ufms) - 1, 2)]
            for a, z in _spread(pairs, count):
                yield name, kind, a, ports.host_end(a, "ha"), z, ports.host_end(z, "ha"), speed, link


def network_links(plan, catalog: Catalog | None = None) -> Iterator[tuple]:
    """Links of ``plan.networks``: ``(network, link class, A id, A port, Z id, Z port, speed, LinkSet)``.

    ``core.networks`` sizes each link set by count and speed; who connects to whom is assigned here, in order:

    * host and appliance links to leaves (``node-leaf``, ``storage-leaf``, ``ufm-leaf``, ``head-leaf``,
      ``nfs-leaf``): a device with ``p`` links to a network puts port ``k`` on leaf ``g * p + k`` of its
      group ``g`` of consecutive devices (so a node's two in-band or storage ports land on two leaves, as in
      the SuperPOD RAs' dual-homed nodes); the compute fabric's UFM links take the last scalable unit's free
      leaf ports (the RA's 32nd DGX position);
    * ``leaf-spine``: each leaf's uplinks in turn over the spines; ``isl``: leaf pairs (0-1, 2-3, ...);
      ``oob-uplink``: OOB switches over the in-band leaves; ``site-uplink``: spines (or leaves) to
      ``SITE``;
    * out-of-band (``bmc``, ``switch-mgmt``, ``device-mgmt``, ``pdu-mgmt``): blocks of consecutive devices
      per OOB switch; ``ufm-b2b``: UFM pairs back to back.

    A link set whose count exceeds what its devices list gives (``device-mgmt``: appliances with several
    management ports) goes round the devices again (``mgmt2``). This assignment is the planner's, not a
    published cabling guide's.
    """
    networks = getattr(plan, "networks", None)
    if networks is None:
        return
    catalog = catalog or load_catalog()
    ports = _Ports(catalog)
    nodes = [Wiring.node_id(n) for n in range(plan.resolved.nodes)]
    ufms = [i for d in networks.compute_devices if d.kind == "ufm" for i in d.ids()]
    yield from _compute_ufm_links(plan, networks, ports, ufms)
    for network in networks.sized():
        yield from _sized_network_links(plan, networks, network, ports, nodes, ufms)


def link_set_media(link, catalog: Catalog, a_is_switch: bool) -> ClassMedia:
    """``ClassMedia`` of a ``core.networks`` link set: its cable's kind (or fibre media) and transceivers."""
    cable = next((c for c in catalog.cables if c.id == link.cable), None) if link.cable else None
    media = "" if cable is None else (cable.media if cable.kind == "fiber" else cable.kind)
    switch_module = next((t.model for t in link.transceivers if t.end == "switch"), "")
    host_module = next((t.model for t in link.transceivers if t.end in ("node", "device")), "")
    if not media and (switch_module or host_module):
        module = next((t for t in catalog.transceivers if t.id in (switch_module, host_module)), None)
        media = module.media if module is not None else ""
    return ClassMedia(media, link.cable, switch_module if a_is_switch else host_module, switch_module)


def other_name(device_id: str, scheme: NamingScheme, counts: dict[str, int]) -> str:
    """Name of a device of the other networks: ``storage.leaf0`` -> ``storage-leaf001`` (switches get the
    scheme's switch prefix), ``mgmt.ufm1`` -> ``mgmt-ufm002``, ``pdu3`` -> ``pdu004``; 1-based and padded as
    ``core.fabric.naming`` pads (the digits of the largest index of that kind, at least ``min_digits``)."""
    if device_id == SITE:
        return SITE
    head, number = device_id.rstrip("0123456789"), device_id[len(device_id.rstrip("0123456789")):]
    digits = scheme.digits(counts.get(head, 1))
    return f"{other_stem(scheme, head)}{int(number or 0) + 1:0{digits}d}"


def network_device_counts(plan) -> dict[str, int]:
    """Devices per id prefix of ``plan.networks`` (for the names' padding)."""
    counts: dict[str, int] = {}
    for group in device_groups(plan):
        counts[group.id_prefix] = max(counts.get(group.id_prefix, 0), group.first + group.count)
    return counts


def cabling_rows(plan, naming: NamingScheme | None = None, catalog: Catalog | None = None) -> Iterator[CableRow]:
    """The cabling plan of ``plan`` (a ``core.plan.Plan``), one ``CableRow`` per cable, streamed.

    Compute fabric first (node-leaf, leaf-spine, spine-core; plane by plane), then the level-2 NVLink cables of a
    two-level NVLink design (``nvlink_links``: A the first-level domain's node or switch tray, Z the level-2 unit or,
    for a pair cabled directly, the other rack's tray), then the storage, in-band and out-of-band networks when
    ``plan.networks`` holds them. Cable ids are ``C`` and a 1-based number padded
    to the digits of the total (``C000001``). With a layout, each cable's media is that of its length bin
    (``core.physical.media.media_for`` over ``plan.media``); without one, the BOM's media of its class.
    """
    namer = Namer.of(plan, naming)
    fallback = class_media(plan, catalog)
    bins = tuple(getattr(plan, "media", ()) or ())
    ends = _Ends(plan)
    id_format = "C%%0%dd" % max(6, len(str(cable_count(plan))))
    names: dict[str, str] = {}
    chosen: dict[tuple[str, float], ClassMedia] = {}
    if bins:
        from core.physical.media import media_for
    else:
        media_for = None

    def name(vertex: str) -> str:
        found = names.get(vertex)
        if found is None:
            found = namer.vertex(vertex)
            if not vertex.startswith("node"):
                names[vertex] = found
        return found

    def media(link_class: str, length: float | None) -> ClassMedia:
        if media_for is None or length is None:
            return fallback[link_class]
        key = (link_class, length)
        found = chosen.get(key)
        if found is None:
            media_bin = media_for(bins, link_class, length)
            found = bin_media(media_bin) if media_bin is not None else fallback[link_class]
            chosen[key] = found
        return found

    number = 0
    last = ("", "", _Ends.NOWHERE)
    switches: dict[str, tuple[str, tuple]] = {}  # upper end: (name, position), looked up once per switch
    length_of, row = ends.length, CableRow
    for link_class, a, a_port, z, z_port, speed in compute_links(plan):
        number += 1
        if a != last[0]:
            last = (a, name(a), ends.of(a))
        a_end = last[2]
        upper = switches.get(z)
        if upper is None:
            upper = switches[z] = (name(z), ends.of(z))
        z_end = upper[1]
        length = length_of(a_end, z_end)
        m = media(link_class, length)
        yield row(id_format % number, "compute", link_class, a_end[0], a_end[1], last[1], a_port,
                  z_end[0], z_end[1], upper[0], z_port, speed, m[0], length, m[1], m[2], m[3])

    catalog = catalog or load_catalog()
    scheme = naming or NamingScheme()
    cable = domainlevels.level2_for(plan.resolved.system)
    for link_class, a, a_name, a_port, z, z_name, z_port, speed in nvlink_links(plan, scheme):
        number += 1
        a_end, z_end = ends.of(a), ends.of(z)
        yield row(id_format % number, "nvlink", link_class, a_end[0], a_end[1], a_name, a_port, z_end[0], z_end[1],
                  z_name, z_port, speed, cable.cable.media, length_of(a_end, z_end), cable.cable.id, cable.module.id,
                  cable.module.id)
    counts = network_device_counts(plan)
    def any_name(device: str) -> str:
        compute = Wiring.parse_node(device) is not None or Wiring.parse(device) is not None
        return name(device) if compute else other_name(device, scheme, counts)

    set_media: dict[tuple, ClassMedia] = {}  # per link set (by value) and end
    for network, link_class, a, a_port, z, z_port, speed, link in network_links(plan, catalog):
        number += 1
        a_end, z_end = ends.of(a), ends.of(z)
        a_switch = bool(re.search(r"(leaf|spine|core|switch)\d+$", a))
        key = (link, a_switch)
        m = set_media.get(key)
        if m is None:
            m = set_media[key] = link_set_media(link, catalog, a_switch)
        yield row(id_format % number, network, link_class, a_end[0], a_end[1], any_name(a), a_port,
                  z_end[0], z_end[1], any_name(z), z_port, speed, m[0], length_of(a_end, z_end), m[1], m[2],
                  m[3] if z != SITE else "")
