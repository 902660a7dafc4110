"""The port-to-port cabling plan: one row per cable of every network, streamed.

``cabling_rows(plan, naming)`` yields one ``CableRow`` per physical link (cable id, network, link class,
both ends' rack / U / device / port, speed, media, length and the transceiver part at each end) without
ever holding the whole list: a 131,072-GPU design (about 400,000 cables) streams in a few seconds and a
few MB (``benchmarks/bench_cabling.py``). Who connects to whom follows the engine's link structure
(``core.fabric.topology.fabric_graph``, checked against it in ``tests/test_cabling.py``), computed from
the ``FabricPlan`` counts by arithmetic instead of a graph. Device names come from
``core.fabric.naming.Namer`` (the one naming scheme every export uses).

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
* **Nodes**: ``nic<k>/port<p>``, NIC ``k`` (rail, 1-based) and its port ``p`` (the plane, 1-based). A neutral
  name: the host's interface names (``ibp24s0``, ``mlx5_0`` on a DGX H100) depend on PCI enumeration and
  the OS, so the plan names the NIC by rail, as the SuperPOD reference architectures number rails.

Port assignment (field engineers' conventions, as in NVIDIA's SuperPOD RAs, where DGX downlinks take the
leaf's lower ports and spine uplinks the upper half):

* downlinks on the lower ports, uplinks from the first cage after the most downlinks the leaf can have
  (``FabricPlan.leaf_down_ports_max``), so every leaf's uplinks start on the same port;
* rail-optimized: node ``k`` of a scalable unit is on port ``k`` of every rail leaf of that SU (the same
  port number on each rail); top-of-rack: node ``k``'s NIC ``r`` on port ``k * rails + r``;
* leaf ``l``'s ``j``-th link to spine ``s``: leaf uplink ``s * pair + j`` and spine port ``l * pair + j``
  (``l`` counted within the pod in three tiers); spine ``j`` of pod ``P`` to core ``c`` of group ``j``:
  core port ``P * pair + k``, so every pod sits on the same core ports;
* ports are counted in units of the switch's down-speed port (what the radix counts): an 800G uplink on a
  leaf whose 800G cages break out to 2 x 400G toward the NICs takes a whole cage (``swp33``).

Positions, lengths and media: rack and U come from ``Plan.layout`` when the plan has one (the racks and
rows of ``core.physical.layout``), lengths and media from ``core.physical.lengths`` / ``media`` when
present; otherwise rack, U and length are empty and the media and transceiver parts are those of the
plan's bill of materials for the link class (one module family per class, as ``core.cost`` picks them).
Links of the storage, in-band and out-of-band networks come from ``Plan.networks`` when present.

Languages: every field of a row is machine-readable English (ids, port names, media keys).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, NamedTuple

from core.catalog import Catalog, Switch, load_catalog
from core.errors import FabricPlannerError
from core.fabric.naming import Namer, NamingScheme

CABLE_COLUMNS = (
    "cable_id", "network", "link_class",
    "a_rack", "a_u", "a_device", "a_port",
    "z_rack", "z_u", "z_device", "z_port",
    "speed_gbps", "media", "length_m", "cable_part", "a_transceiver", "z_transceiver",
)
"""Columns of the cabling plan, in order (CSV header, XLSX plan sheet)."""

LINK_CLASSES = ("node-leaf", "leaf-spine", "spine-core")


class CableRow(NamedTuple):
    """One cable. Ends: A is the lower tier (node, leaf, spine), Z the upper (leaf, spine, core)."""

    cable_id: str
    network: str
    """``compute``, ``storage``, ``inband`` or ``oob``."""
    link_class: str
    """``node-leaf``, ``leaf-spine``, ``spine-core`` (compute); the network's own classes otherwise."""
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
            self.rack_index = {id(r): i for i, r in enumerate(self.layout.racks)}

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
                found = (rack.name, int(first), self.rack_index[id(rack)], centre,
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


def position_of(layout, device_id: str) -> tuple[str, int | None]:
    """``(rack name, lowest U)`` of ``device_id`` in ``layout`` (``("", None)`` without a layout or position)."""
    if layout is None:
        return "", None
    try:
        position = layout.position(device_id)
    except (FabricPlannerError, KeyError, ValueError):
        return "", None
    return position.rack, position.u


def cable_count(plan) -> int:
    """Cables of the compute fabric (every plane): node-leaf + leaf-spine + spine-core links."""
    f = plan.fabric
    return (f.node_leaf_links + f.leaf_spine_links + f.spine_core_links) * f.planes


def compute_links(plan) -> Iterator[tuple[str, str, str, str, str, int]]:
    """Every link of the compute fabric as ``(link class, A vertex, A port, Z vertex, Z port, speed)``.

    Vertex ids are ``fabric_graph``'s (``node3``, ``p0.leaf1``, ``p0.i2.spine0``); ports are the switches'
    port names (module docstring) and the nodes' ``nic<k>/port<p>``.
    """
    fabric, resolved = plan.fabric, plan.resolved
    tiers, islands, planes = fabric.tiers, fabric.islands, fabric.planes
    rails = resolved.nics_per_node // islands
    nodes = resolved.nodes
    speed = fabric.port_speed_gbps
    up_speed = fabric.uplink_speed_gbps or speed
    switches = resolved.tier_switches
    cost = max(1, round(resolved.leaf_uplink_cost))
    leaf_layout = port_layout(switches["leaf"], speed)
    spine_layout = port_layout(switches["spine"], up_speed)
    core_layout = port_layout(switches["core"], up_speed)
    tor = fabric.topology == "top-of-rack"
    npg, lpg = fabric.nodes_per_group, fabric.leaves_per_group
    leaves, spines, cores = fabric.leaf_count // islands, fabric.spine_count // islands, fabric.core_count // islands
    pair = fabric.links_per_leaf_spine_pair
    per_node_leaf = rails if (tor or tiers == 1) else 1
    # leaf port names: downlinks, then uplinks
    down_max = leaf_layout.units if tiers == 1 else max(fabric.leaf_down_ports_max, npg * per_node_leaf)
    down_names = _names(leaf_layout, 0, min(down_max, leaf_layout.units), 1)
    up_count = fabric.leaf_uplinks if tiers > 1 else 0
    up_names = _names(leaf_layout, uplink_start(leaf_layout, down_max, up_count, cost), up_count, cost)
    spp = fabric.spines_per_pod if tiers == 3 else spines
    leaves_per_pod = fabric.groups_per_pod * lpg if tiers == 3 else leaves
    spine_down = leaves_per_pod * pair
    spine_down_names = _names(spine_layout, 0, spine_down, 1)
    spine_up_count = fabric.spine_uplinks if tiers == 3 else 0
    spine_up_names = _names(spine_layout, uplink_start(spine_layout, spine_down, spine_up_count, 1),
                            spine_up_count, 1)
    full_core_pair = fabric.spine_core_pair_links(0) if tiers == 3 else 0
    core_names = _names(core_layout, 0, core_layout.units, 1) if tiers == 3 else ()
    node_ports = [[f"nic{nic + 1}/port{plane + 1}" for nic in range(resolved.nics_per_node)]
                  for plane in range(planes)]

    for plane in range(planes):
        for island in range(islands):
            p = f"p{plane}." if islands == 1 else f"p{plane}.i{island}."
            leaf_ids = [f"{p}leaf{k}" for k in range(leaves)]
            nic_names = node_ports[plane]
            # node-leaf
            for n in range(nodes):
                node = f"node{n}"
                if tiers == 1:
                    g, k = 0, n
                else:
                    g, k = divmod(n, npg)
                for lr in range(rails):
                    nic = lr * islands + island
                    if tiers == 1:
                        leaf, port = 0, k * rails + lr
                    elif tor:
                        leaf, port = g, k * rails + lr
                    else:
                        leaf, port = g * lpg + lr, k
                    yield "node-leaf", node, nic_names[nic], leaf_ids[leaf], down_names[port], speed
            if tiers < 2:
                continue
            spine_ids = [f"{p}spine{s}" for s in range(spines)]
            # leaf-spine
            for leaf in range(leaves):
                if tiers == 2:
                    first, local = 0, leaf
                else:
                    pod = (leaf // lpg) // fabric.groups_per_pod
                    first, local = pod * spp, leaf - pod * leaves_per_pod
                lid = leaf_ids[leaf]
                for j in range(spp):
                    sid = spine_ids[first + j]
                    for x in range(pair):
                        yield ("leaf-spine", lid, up_names[j * pair + x], sid, spine_down_names[local * pair + x],
                               up_speed)
            if tiers < 3:
                continue
            core_ids = [f"{p}core{c}" for c in range(cores)]
            cpg = fabric.cores_per_group
            for s in range(spines):
                pod, j = divmod(s, spp)
                links = fabric.spine_core_pair_links(pod)
                sid = spine_ids[s]
                for c in range(cpg):
                    cid = core_ids[j * cpg + c]
                    for x in range(links):
                        yield ("spine-core", sid, spine_up_names[c * links + x], cid,
                               core_names[pod * full_core_pair + x], up_speed)


def cabling_rows(plan, naming: NamingScheme | None = None, catalog: Catalog | None = None) -> Iterator[CableRow]:
    """The cabling plan of ``plan`` (a ``core.plan.Plan``), one ``CableRow`` per cable, streamed.

    Compute fabric first (node-leaf, leaf-spine, spine-core; plane by plane), then the storage, in-band and
    out-of-band networks when ``plan.networks`` holds them. Cable ids are ``C`` and a 1-based number padded
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
