"""The storage fabric: nodes' storage ports and the storage systems on their own leaf-spine fabric.

Sizing, one step per sentence of ``explanation`` (all rules and defaults in ``assets/catalog/networks.toml``
with their sources; the reference is the DGX SuperPOD H100 RA, RA-11333-001 V11, Tables 7 and 8):

1. **Kind and speed.** ``Design.storage`` (``auto`` = the compute fabric's kind); ports per node (RA: 2
   per DGX) at the storage port speed (RA: 400G NDR, at most the compute port speed); the switch is the
   compute fabric maker's first fabric switch of that kind offering the speed, else a generic class entry
   (``core.networks.makers``; QM9700 for NDR on an NVIDIA fabric, as in the RA), and the sizing says which.
2. **Storage systems.** ``Design.storage_systems`` or ``ceil(nodes x storage_gbps_per_node / system
   port bandwidth)``; their ports land on switch ports of the storage speed through splitters
   (``ceil(system ports x system speed / switch speed)``; the RA's "NDR Cables, 2x 200 Gbps").
3. **One tier** when node, storage and UFM ports fit one switch.
4. **Node leaves**: at most ``down_up_split(radix, o)`` node ports each (``core.fabric.sizing``; ``o`` =
   storage oversubscription, RA "near 4:3"); the ports spread evenly, uplinks ``ceil(down / o)``.
5. **Storage leaves** at 1:1 (RA: "storage devices are connected at a 1:1 port to uplink ratio"): at
   least enough for the storage ports, and one per scalable unit while each stays at least half full
   (policy ``storage_leaves_per_su``). UFM appliances take spare down ports there (no uplinks of
   their own: management traffic).
6. **Spines**: the fewest ``S >= ceil(uplinks / radix)`` such that every leaf's uplinks, rounded up to
   a multiple of ``S`` (never below its oversubscription), fit the leaf and every spine's ports fit.
7. If two tiers cannot hold the ports, the fabric is split into the fewest equal **storage pods** that
   fit (a third tier is not modelled); each pod has its share of the storage systems.

Counts are totals over pods. The default 127-node H100 design reproduces the RA's 16 storage QM9700
(8 node leaves, 4 storage leaves, 4 spines) and its 494 node-leaf + leaf-spine storage cables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from core.catalog import Catalog
from core.design import ResolvedDesign
from core.errors import DesignError, InputError
from core.fabric.sizing import FabricPlan, down_up_split
from core import units, vocab
from core.i18n import _, ngettext, sentences
from core.networks.makers import SwitchChoice, choice_note, network_switch, optics_note
from core.networks.media import fibre, module
from core.networks.model import DeviceSet, LinkSet, NetworkSizing, SwitchSet, TransceiverUse
from core.networks.policy import ipolicy, policy

STORAGE_APPLIANCE = "STORAGE-PFS-8x200"
UFM_APPLIANCE = "UFM-APPLIANCE"


@dataclass(frozen=True)
class _Shape:
    """One pod's storage fabric."""

    tiers: int
    node_leaves: int = 0
    node_down: int = 0
    node_up: int = 0
    storage_leaves: int = 0
    storage_down: int = 0
    storage_up: int = 0
    spines: int = 0
    spine_down: int = 0
    ufm_ports: int = 0


def scalable_units(resolved: ResolvedDesign, fabric: FabricPlan) -> int:
    """Scalable units of the compute fabric (top-of-rack: groups of 32 nodes, the RA's SU size)."""
    if resolved.topology != "top-of-rack" and fabric.group_count:
        return max(1, fabric.group_count * max(1, fabric.islands if resolved.topology == "rail-only" else 1))
    return max(1, math.ceil(resolved.nodes / 32))


def storage_switch(catalog: Catalog, kind: str, speed: int, maker: str) -> SwitchChoice:
    """The fabric switch of ``kind`` offering ``speed`` [Gb/s] the storage fabric buys, with why: the compute
    fabric's ``maker``'s first, else a generic class entry, else the catalog's first (``core.networks.makers``);
    ``InputError`` naming the speeds offered when no switch of ``kind`` offers ``speed``."""
    options = catalog.fabric_switches(kind, speed)
    if not options:
        offered = sorted({m.speed_gbps for s in catalog.fabric_switches(kind) for m in s.port_modes})
        raise InputError(_("no {fabric} switch in the catalog offers {speed}G storage ports; set the storage port "
                           "speed to one of {speeds} Gb/s").format(fabric=kind, speed=speed,
                                                                  speeds=", ".join(map(str, offered))))
    return network_switch(options, maker)


def _storage_side(storage_ports: int, ufm_ports: int, radix: int, sus: int) -> tuple[int, int, int, int]:
    """``_two_tier``'s storage leaves at 1:1 for ``storage_ports`` storage ports and ``ufm_ports`` UFM ports of
    ``sus`` scalable units: (storage leaves, storage ports, uplinks and UFM ports of each)."""
    st_max, _st = down_up_split(radix, 1.0)
    attached = storage_ports + ufm_ports
    need = math.ceil(attached / st_max) if attached else 0
    half_full = math.ceil(attached / max(1, st_max // 2)) if attached else 0
    storage_leaves = max(need, min(sus * ipolicy("storage_leaves_per_su"), half_full))
    storage_down = math.ceil(storage_ports / storage_leaves) if storage_leaves else 0
    ufm_per_leaf = math.ceil(ufm_ports / storage_leaves) if storage_leaves else 0
    return storage_leaves, storage_down, storage_down, ufm_per_leaf


def _with_node_leaves(node_leaves: int, node_ports: int, storage: tuple[int, int, int, int], ufm_ports: int,
                      radix: int, o: float) -> _Shape | None:
    """``_two_tier``'s shape with ``node_leaves`` node leaves for ``node_ports`` node ports, beside ``storage``
    (storage leaves, their storage ports, uplinks and UFM ports each): the fewest spines such that every leaf's
    uplinks, rounded up to a multiple of the spines, fit the leaf and every spine's ports fit; None when none fits."""
    storage_leaves, storage_down, storage_up, ufm_per_leaf = storage
    node_down = math.ceil(node_ports / node_leaves) if node_leaves else 0
    node_up = math.ceil(node_down / o - 1e-9) if node_down else 0
    total_up = node_leaves * node_up + storage_leaves * storage_up
    if total_up == 0:
        return None  # no uplink (nor with more node leaves: fewer node ports each)
    for spines in range(max(1, math.ceil(total_up / radix)), radix + 1):
        n_up = math.ceil(node_up / spines) * spines if node_up else 0
        s_up = math.ceil(storage_up / spines) * spines if storage_up else 0
        if node_down + n_up > radix or storage_down + ufm_per_leaf + s_up > radix:
            return None  # rounding only grows with the spine count: try one more node leaf
        per_spine = (node_leaves * n_up + storage_leaves * s_up) // spines
        if per_spine <= radix:
            return _Shape(2, node_leaves, node_down, n_up, storage_leaves, storage_down, s_up, spines, per_spine,
                          ufm_ports)
    return None


@lru_cache(maxsize=1024)
def _two_tier(node_ports: int, storage_ports: int, ufm_ports: int, radix: int, o: float, sus: int) -> _Shape | None:
    """The smallest balanced two-tier shape for one pod, or None if two tiers cannot hold it (a pure function
    of its numbers and the policy, memoised; the shape is frozen).

    Node leaves start at the fewest that hold the node ports at ``down_up_split(radix, o)``; when the
    uplinks rounded to a multiple of the spine count do not fit, one more node leaf is tried (fewer
    ports each), up to ``radix`` more and never more than ``radix`` (none of more fits: the storage pods' search,
    ``_storage_shape``, asks one pod count after another, and a hall of 131,072 GPUs asks up to 26)."""
    down_max, _up = down_up_split(radix, o)
    if down_max < 1:
        return None
    side = _storage_side(storage_ports, ufm_ports, radix, sus)
    fewest = math.ceil(node_ports / down_max) if node_ports else 0
    # with node ports (and uplinks: an oversubscription below 10^9), a shape has at most ``radix`` node leaves: each
    # sends every spine at least one uplink (its uplinks a multiple of the spines), so a spine takes a port of each
    most = min(fewest + radix, radix) if node_ports and 1 / o > 1e-9 else fewest + radix
    for node_leaves in range(fewest, most + 1):
        shape = _with_node_leaves(node_leaves, node_ports, side, ufm_ports, radix, o)
        if shape is not None:
            return shape
    return None


def _storage_shape(nodes: int, per_node: int, node_ports: int, storage_ports: int, ufm_ports: int, radix: int,
                   o: float, sus: int, switch, why: list[str]) -> tuple[_Shape, int]:
    """``(shape, pods)`` of the storage fabric: one switch when every port fits, else two tiers split into as
    few pods as hold the ports; the reasons are appended to ``why``."""
    pods = 1
    shape: _Shape | None
    if node_ports + storage_ports + ufm_ports <= radix:
        shape = _Shape(1, ufm_ports=ufm_ports)
        why.append(_("One tier: all {ports} ports fit one switch.").format(ports=node_ports + storage_ports + ufm_ports))
    else:
        shape = None
        while shape is None:
            pod_nodes = math.ceil(nodes / pods)
            if pod_nodes < 1 or pods > nodes:
                raise DesignError(_("the storage fabric does not fit two tiers of {switch}").format(switch=switch.id),
                                  _("Use fewer storage ports per node or a storage switch with more ports."))
            shape = _two_tier(pod_nodes * per_node, math.ceil(storage_ports / pods), math.ceil(ufm_ports / pods),
                              radix, o, math.ceil(sus / pods))
            if shape is None:
                pods += 1
        why.append(ngettext("{leaves} node leaf of at most {down_max} node ports: {down} down and ceil({down} / {o}) "
                            "= {up} up each (oversubscription {ratio}).",
                            "{leaves} node leaves of at most {down_max} node ports: {down} down and ceil({down} / "
                            "{o}) = {up} up each (oversubscription {ratio}).", shape.node_leaves * pods).format(
            leaves=shape.node_leaves * pods, down_max=down_up_split(radix, o)[0], down=shape.node_down,
            o=f"{o:.3g}", up=shape.node_up, ratio=units.ratio(shape.node_down / shape.node_up if shape.node_up else 1)))
        if shape.storage_leaves:
            count = shape.storage_leaves * pods
            leaves_words = (ngettext("{leaves} storage leaf at 1:1 (at least one per scalable unit while half full): "
                                     "{down} storage ports and {up} uplinks each; UFM ports use spare ports there.",
                                     "{leaves} storage leaves at 1:1 (at least one per scalable unit while half full): "
                                     "{down} storage ports and {up} uplinks each; UFM ports use spare ports there.",
                                     count) if ufm_ports else
                            ngettext("{leaves} storage leaf at 1:1 (at least one per scalable unit while half full): "
                                     "{down} storage ports and {up} uplinks each.",
                                     "{leaves} storage leaves at 1:1 (at least one per scalable unit while half full): "
                                     "{down} storage ports and {up} uplinks each.", count))
            why.append(leaves_words.format(leaves=shape.storage_leaves * pods, down=shape.storage_down,
                                           up=shape.storage_up))
        why.append(ngettext("{spines} spine: {uplinks} leaf uplinks spread evenly, {per_spine} ports used per spine.",
                            "{spines} spines: {uplinks} leaf uplinks spread evenly, {per_spine} ports used per spine.",
                            shape.spines * pods).format(
            spines=shape.spines * pods, uplinks=f"{(shape.node_leaves * shape.node_up + shape.storage_leaves * shape.storage_up) * pods:,}",
            per_spine=shape.spine_down))
        if pods > 1:
            why.append(ngettext("Split into {pods} storage pod: two tiers of {switch} do not hold the ports (a third "
                                "tier is not modelled).",
                                "Split into {pods} storage pods: two tiers of {switch} do not hold the ports (a third "
                                "tier is not modelled).", pods).format(pods=pods, switch=switch.id))
    return shape, pods


def _storage_switches(shape: _Shape, pods: int, switch, speed: int, radix: int, node_ports: int, storage_ports: int,
                      ufm_ports: int, choice: str = "") -> tuple[list[SwitchSet], int]:
    """``(switch sets, leaf-spine links)`` of the storage fabric: a single switch, or node leaves, storage leaves
    (with the UFM ports) and spines per pod; ``choice``: whose switch it is and why (every set's)."""
    switches = [s.model_copy(update={"choice": choice}) for s in _storage_sets(
        shape, pods, switch, speed, radix, node_ports, storage_ports, ufm_ports)]
    leaf_spine = (shape.node_leaves * shape.node_up + shape.storage_leaves * shape.storage_up) * pods \
        if shape.tiers != 1 else 0
    return switches, leaf_spine


def _storage_sets(shape: _Shape, pods: int, switch, speed: int, radix: int, node_ports: int, storage_ports: int,
                  ufm_ports: int) -> list[SwitchSet]:
    """The storage fabric's switch sets (``_storage_switches``)."""
    switches: list[SwitchSet] = []
    if shape.tiers == 1:
        switches.append(SwitchSet(role="switch", model=switch.id, count=1, id_prefix="storage.leaf",
                                  down_ports_used=node_ports + storage_ports + ufm_ports, up_ports_used=0, radix=radix,
                                  port_speed_gbps=speed, description=_("single storage switch")))
    else:
        switches.append(SwitchSet(role="leaf", model=switch.id, count=shape.node_leaves * pods, id_prefix="storage.leaf",
                                  down_ports_used=shape.node_down, up_ports_used=shape.node_up, radix=radix,
                                  port_speed_gbps=speed, description=_("node-facing storage leaf")))
        if shape.storage_leaves:
            ufm_per_leaf = math.ceil(shape.ufm_ports / shape.storage_leaves)
            switches.append(SwitchSet(role="storage-leaf", model=switch.id, count=shape.storage_leaves * pods,
                                      id_prefix="storage.leaf", first=shape.node_leaves * pods,
                                      down_ports_used=shape.storage_down + ufm_per_leaf, up_ports_used=shape.storage_up,
                                      radix=radix, port_speed_gbps=speed, description=_("storage-system leaf")))
        switches.append(SwitchSet(role="spine", model=switch.id, count=shape.spines * pods, id_prefix="storage.spine",
                                  down_ports_used=shape.spine_down, up_ports_used=0, radix=radix,
                                  port_speed_gbps=speed, description=_("storage spine")))
    return switches


def node_storage_ports(design) -> int:
    """Storage-network ports per compute node: the design's, else the policy default (0 = none)."""
    per_node = design.storage_ports_per_node
    return ipolicy("storage_ports_per_node") if per_node is None else per_node


def size_storage(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, ufm: bool
                 ) -> tuple[NetworkSizing | None, tuple[DeviceSet, ...]]:
    """The storage fabric of a design and its UFM appliances (``ufm``: management on, InfiniBand),
    or ``(None, ())`` when the design has none."""
    design = resolved.design
    if design.storage == "none":
        return None, ()
    kind = resolved.fabric if design.storage == "auto" else design.storage
    per_node = node_storage_ports(design)
    if per_node == 0:
        return None, ()
    speed = design.storage_port_speed_gbps or min(ipolicy("storage_port_speed_gbps"),
                                                  resolved.system.default_port_speed_gbps)
    choice = storage_switch(catalog, kind, speed, resolved.switch.vendor)
    switch = choice.switch
    radix = switch.ports_at(speed) or 0
    o = design.storage_oversubscription or policy("storage_oversubscription")
    nodes = resolved.nodes
    node_ports = nodes * per_node
    appliance = catalog.appliance(STORAGE_APPLIANCE)
    system_gbps = appliance.fabric_ports * appliance.fabric_port_speed_gbps
    systems = design.storage_systems
    sized_systems = systems is None
    if systems is None:
        systems = math.ceil(nodes * policy("storage_gbps_per_node") / system_gbps - 1e-9)
    storage_ports = math.ceil(systems * system_gbps / speed - 1e-9) if systems else 0
    ufm_count = ipolicy("ufm_per_infiniband_fabric") if ufm and kind == "infiniband" else 0
    ufm_ports = ufm_count * ipolicy("ufm_ports_storage")
    sus = scalable_units(resolved, fabric)
    why = [
        sentences(_("Storage fabric ({fabric}): {nodes} nodes x {per_node} storage ports at {speed}G = {ports} node "
                    "ports on {switch} switches ({radix} ports at {speed}G).").format(
            fabric=vocab.FABRIC.label(kind), nodes=f"{nodes:,}", per_node=per_node, speed=speed, ports=f"{node_ports:,}",
            switch=switch.id, radix=radix), choice_note(choice)),
    ]
    if sized_systems:
        why.append(ngettext("{systems} storage system = ceil({nodes} nodes x {per_node_gbps} Gb/s per node / "
                            "{system_gbps} Gb/s per system), {ports} switch ports at {speed}G.",
                            "{systems} storage systems = ceil({nodes} nodes x {per_node_gbps} Gb/s per node / "
                            "{system_gbps} Gb/s per system), {ports} switch ports at {speed}G.", systems).format(
            systems=systems, nodes=f"{nodes:,}", per_node_gbps=f"{policy('storage_gbps_per_node'):g}",
            system_gbps=system_gbps, ports=storage_ports, speed=speed))
    else:
        why.append(ngettext("{systems} storage system as set, {ports} switch ports at {speed}G.",
                            "{systems} storage systems as set, {ports} switch ports at {speed}G.", systems).format(
            systems=systems, ports=storage_ports, speed=speed))

    shape, pods = _storage_shape(nodes, per_node, node_ports, storage_ports, ufm_ports, radix, o, sus, switch, why)
    switches, leaf_spine = _storage_switches(shape, pods, switch, speed, radix, node_ports, storage_ports, ufm_ports,
                                             choice_note(choice))

    # --- media: switch-side modules per switch (twin-port cages), node-side per port, a fibre per link
    per_cage = switch.ports_per_cage(speed)
    try:
        switch_module = module(catalog, kind, speed, per_cage, "switch", switch.cage_type)
    except DesignError:  # no module carries a whole cage at this speed (4 x 200G): one module per port
        per_cage = 1
        switch_module = module(catalog, kind, speed, 1, "switch", switch.cage_type)
    node_module = module(catalog, kind, speed, 1, "node", "QSFP112" if speed == 400 else "")
    cord = fibre(catalog, switch_module)
    coded = optics_note(switch_module, switch)

    def cages(ports: int, count: int) -> int:
        return math.ceil(ports / per_cage) * count

    leaves = [s for s in switches if s.role in ("leaf", "switch")]
    st_leaves = [s for s in switches if s.role == "storage-leaf"]
    spines = [s for s in switches if s.role == "spine"]
    if shape.tiers == 1:
        node_side_cages = cages(node_ports, 1)
        storage_side_cages = cages(storage_ports, 1) if storage_ports else 0
    else:
        node_side_cages = sum(cages(s.down_ports_used, s.count) for s in leaves)
        storage_side_cages = sum(cages(shape.storage_down, s.count) for s in st_leaves)
    up_cages = sum(cages(s.up_ports_used, s.count) for s in (*leaves, *st_leaves)) + \
        sum(cages(s.down_ports_used, s.count) for s in spines)
    ufm_module = module(catalog, kind, 200, 1, "node") if ufm_ports and kind == "infiniband" else None
    links = [
        LinkSet(kind="node-leaf", count=node_ports, speed_gbps=speed, cable=cord.id, transceivers=(
            TransceiverUse(model=switch_module.id, count=node_side_cages, end="switch",
                           why=sentences(_("storage leaves' node ports, {per_cage} per cage").format(per_cage=per_cage),
                                         coded)),
            TransceiverUse(model=node_module.id, count=node_ports, end="node",
                           why=_("one per node storage port")),
        ), description=_("node storage ports to leaves")),
    ]
    if storage_ports:
        links.append(LinkSet(kind="storage-leaf", count=storage_ports, speed_gbps=speed, cable=cord.id, transceivers=(
            TransceiverUse(model=switch_module.id, count=storage_side_cages, end="switch",
                           why=sentences(_("storage-system ports, {per_cage} per cage; the systems' own optics are "
                                           "in their price").format(per_cage=per_cage), coded)),
        ), description=_("storage-system ports to leaves (splitters to {speed}G system ports)").format(
            speed=appliance.fabric_port_speed_gbps)))
    if ufm_ports:
        links.append(LinkSet(kind="ufm-leaf", count=ufm_ports, speed_gbps=200, cable=cord.id, transceivers=(
            (TransceiverUse(model=ufm_module.id, count=ufm_ports, end="device",
                            why=_("UFM side; the leaf side uses a spare half of a twin-port cage")),) if ufm_module else ()
        ), description=_("UFM appliances to storage leaves")))
    if leaf_spine:
        links.append(LinkSet(kind="leaf-spine", count=leaf_spine, speed_gbps=speed, cable=cord.id, transceivers=(
            TransceiverUse(model=switch_module.id, count=up_cages, end="switch",
                           why=sentences(_("leaf uplinks and spine ports, {per_cage} per cage").format(
                               per_cage=per_cage), coded)),
        ), description=_("storage leaves to spines")))

    devices = []
    if systems:
        devices.append(DeviceSet(kind="storage", model=appliance.id, count=systems, id_prefix="storage.array",
                                 description=_("storage systems")))
    ufm_devices: tuple[DeviceSet, ...] = ()
    if ufm_count:
        ufm_devices = (DeviceSet(kind="ufm", model=UFM_APPLIANCE, count=ufm_count, id_prefix="mgmt.ufm",
                                 description=_("UFM appliances of the storage fabric (HA pair)")),)
        devices.extend(ufm_devices)
        why.append(_("{count} UFM appliances manage the storage fabric (an HA pair, {ports} port each).").format(
            count=ufm_count, ports=ipolicy("ufm_ports_storage")))
    node_down = shape.node_down if shape.tiers == 2 else node_ports
    node_up = shape.node_up if shape.tiers == 2 else 0
    return NetworkSizing(
        network="storage", fabric=kind, port_speed_gbps=speed, tiers=shape.tiers, islands=pods,
        oversubscription=(node_down / node_up) if node_up else 1.0,
        switches=tuple(switches), links=tuple(links), devices=tuple(devices), explanation=tuple(why),
    ), ufm_devices
