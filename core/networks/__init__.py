"""The cluster's other networks, sized like the compute fabric: storage, in-band and out-of-band management.

May import: ``core.fabric`` and the ground floor (``catalog``, ``design``, ``errors``, ``i18n``, ``memo``).

API: ``size_networks(resolved, fabric, catalog, racks=None) -> ClusterNetworks`` (frozen pydantic) with ``.storage``,
``.inband`` and ``.oob`` (each a ``NetworkSizing``, or None when the design has none: ``Design.storage =
"none"``, ``Design.management = False``) and the compute fabric's UFM appliances and links
(``.compute_devices``, ``.compute_links``). Each sizing holds switches by role and model
(``SwitchSet``: count, ports used, radix, port speed [Gb/s]), link classes (``LinkSet``: count, speed,
the cable and transceivers the BOM buys), end devices (``DeviceSet``: storage systems, UFM appliances,
head nodes, NFS storage, PDUs), its oversubscription, uplinks to the site and an ``explanation`` (one
sentence per sizing step, in the current language). ``network_parts(resolved, fabric, catalog)``: what every
sizing of a design's networks shares whatever the racks (``NetworkParts``), ``networks_for(resolved, fabric,
catalog, parts, racks)``: the networks sized from it for some racks (``core.plan.as_built``'s rounds). Device ids: ``storage.leaf0``, ``storage.spine0``,
``storage.array0``, ``inband.leaf0``, ``inband.spine0``, ``oob.switch0``, ``mgmt.head0``, ``mgmt.ufm0``
(compute fabric's first, then the storage fabric's), ``mgmt.nfs0``, ``pdu0``; all 0-based.

Modules: ``storage`` (the storage fabric), ``management`` (in-band, out-of-band, management nodes),
``policy`` (the sourced rules and defaults of ``assets/catalog/networks.toml``), ``media`` (storage
optics), ``model`` (the types). The reference is NVIDIA's DGX SuperPOD H100 RA (RA-11333-001 V11),
Appendix A Tables 7 and 8; ``tests/test_golden_networks.py`` reproduces its 4-SU counts.
"""

from __future__ import annotations

from typing import NamedTuple

from core.catalog import Catalog
from core.design import ResolvedDesign
from core.fabric.sizing import FabricPlan
from core.errors import FabricPlannerError
from core.i18n import current as current_language
from core.memo import spoken, stage, text_bytes, view
from core.networks.management import (compute_ufm, head_nodes, inband_ports, inband_switch, inband_switch_count,
                                      nfs_systems, oob_switch_count, size_inband, size_oob)
from core.networks.model import (
    NETWORK_WORDS,
    NETWORKS,
    ClusterNetworks,
    DeviceSet,
    LinkSet,
    NetworkSizing,
    SwitchSet,
    TransceiverUse,
    network_name,
)
from core.networks.storage import scalable_units, size_storage

__all__ = ["NETWORKS", "NETWORK_WORDS", "ClusterNetworks", "DeviceSet", "LinkSet", "NetworkParts", "NetworkSizing",
           "SwitchSet", "TransceiverUse", "network_name", "network_parts", "networks_for", "size_networks",
           "sized_networks"]


NetworkDesign = view("NetworkDesign", "management storage storage_ports_per_node storage_port_speed_gbps "
                     "storage_oversubscription storage_systems")
NetworkSystem = view("NetworkSystem", "default_port_speed_gbps vendor")
NetworkSwitch = view("NetworkSwitch", "vendor")
NetworkInputs = view("NetworkInputs", "fabric nodes nodes_per_rack topology", design=NetworkDesign,
                     system=NetworkSystem, switch=NetworkSwitch)
"""What sizing the other networks reads of a resolved design (``core.memo.view``): its storage and management
settings, the fabric kind, nodes, nodes per rack, topology, the system's default port speed and maker, and the
compute fabric switch's maker (whose switches and head nodes the other networks buy, ``core.networks.makers``)."""
NetworkFabric = view("NetworkFabric", "group_count islands switch_count_total family")
"""What sizing the other networks reads of the fabric plan: its leaf groups, islands, switch count and family (the
compute fabric's UFM rows name its leaves in its words)."""
NetworkShape = view("NetworkShape", "group_count islands")
"""What the storage fabric reads of the fabric plan (``NetworkFabric`` but the switch count, which only the
out-of-band network and the compute fabric's UFM read)."""
PartsFabric = view("PartsFabric", "group_count islands family")
"""What the racks-independent part of a sizing (``sized_parts``) reads of the fabric plan: its shape and family (and
whether it has switches, an argument of its own: the compute fabric's UFMs; the switch count is the out-of-band
network's alone), so fabrics that differ in their switch count share it."""


def _sizing_bytes(network: NetworkSizing | None) -> int:
    """Upper bound of the memory one network's sizing holds [bytes]: 640 B per switch set, device set, link set and
    sentence and their text, 2 kB for the rest (measured at 0.55 kB an item, 11 kB an in-band sizing with its text;
    ``tests/test_memo.py``): a tighter bound keeps a search's every in-band sizing in its cache."""
    if network is None:
        return 64
    items = (*network.switches, *network.devices, *network.links)
    return 2048 + 640 * (len(items) + len(network.explanation)) + text_bytes(
        [*network.explanation, *(getattr(item, "description", "") or "" for item in items)])


@stage(0.03, lambda found: 1024 + _sizing_bytes(found[0]) + sum(1024 + 2 * len(d.description) for d in found[1]),
       errors=(FabricPlannerError,))
def _storage_of(resolved: NetworkInputs, shape: NetworkShape, catalog: Catalog, language: str) -> tuple:
    """``size_storage`` of the views of a resolved design and of its fabric plan's shape, in ``language``; cached
    by these arguments (``core.memo.stage``): fabrics that differ only in their switch count share it."""
    with spoken(language):
        return size_storage(resolved, shape, catalog, ufm=resolved.design.management)


@stage(0.05, _sizing_bytes, errors=(FabricPlannerError,))
def _inband_of(resolved: NetworkInputs, catalog: Catalog, heads: int, nfs: int, oob_switches: int,
               language: str) -> NetworkSizing:
    """``size_inband`` of the view of a resolved design for ``heads`` head nodes, ``nfs`` NFS systems and
    ``oob_switches`` out-of-band switches, in ``language``, its rack units and power filled (``_physical_sizing``);
    cached by these arguments (``core.memo.stage``)."""
    with spoken(language):
        return _physical_sizing(size_inband(resolved, catalog, heads, nfs, oob_switches), catalog)


def networks_bytes(networks: ClusterNetworks) -> int:
    """Upper bound of the memory ``networks`` holds [bytes]: 640 B per switch set, device set, link set and
    sentence, 256 B per part of a network, and the sentences' text (measured at 0.64 kB an item with the text;
    ``tests/test_memo.py``)."""
    items = [networks.compute_devices, networks.compute_links, networks.compute_explanation]
    for network in networks.sized():
        items += [network.switches, network.devices, network.links, network.explanation]
    return 4096 + sum(256 + 640 * len(part) for part in items) + text_bytes(
        [*networks.compute_explanation, *(t for n in networks.sized() for t in n.explanation)])


def size_networks(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog,
                  racks: tuple[int, int] | None = None) -> ClusterNetworks:
    """Size the storage, in-band and out-of-band networks of a planned design (closed form), cached by what it
    reads (``sized_networks``): designs that differ elsewhere (switch models, NICs, speeds) share one sizing.
    ``racks``: ``(compute racks, other racks)`` as the layout builds them (``management.built_racks``), whose
    PDUs the out-of-band network serves; None before the layout exists (``management.rack_estimate``'s)."""
    return sized_networks(NetworkInputs.of(resolved), NetworkFabric.of(fabric), catalog, current_language(), racks)


@stage(0.18, networks_bytes, errors=(FabricPlannerError,))
def sized_networks(resolved: NetworkInputs, fabric: NetworkFabric, catalog: Catalog, language: str,
                   racks: tuple[int, int] | None = None) -> ClusterNetworks:
    """``size_networks`` of the views of a resolved design and its fabric plan, its explanations in ``language``,
    its rack PDUs those of ``racks`` (None: the estimate); cached by these arguments (``core.memo.stage``)."""
    with spoken(language):
        return _size_networks(resolved, fabric, catalog, racks)


def _size_networks(resolved, fabric, catalog: Catalog, racks: tuple[int, int] | None = None) -> ClusterNetworks:
    return networks_for(resolved, fabric, catalog, network_parts(resolved, fabric, catalog), racks)


class NetworkParts(NamedTuple):
    """What every sizing of a design's other networks holds whatever the racks (``network_parts``): whether management
    networks are bought, the storage fabric (its UFMs numbered after the compute fabric's) and the compute fabric's
    UFM devices, links and sentences (their rack units and power filled, ``_physical_sizing``), and the counts the
    in-band and out-of-band networks read: scalable units, head nodes, NFS systems, UFMs, storage systems and storage
    switches, and the in-band switch's ports (``management.inband_switch``). Only the out-of-band network's rack
    PDUs read the racks (``networks_for``)."""

    management: bool
    storage: NetworkSizing | None
    compute_devices: tuple
    compute_links: tuple
    compute_explanation: tuple
    sus: int
    heads: int
    nfs: int
    ufms: int
    storage_systems: int
    storage_switches: int
    inband_radix: int


def network_parts(resolved, fabric, catalog: Catalog) -> NetworkParts:
    """The ``NetworkParts`` of a resolved design and its fabric plan (or their views, ``NetworkInputs`` and
    ``NetworkFabric``), its sentences in the current language, cached by what they read (``sized_parts``): made once
    for every sizing of its other networks (``core.plan.as_built``'s rounds size them for each round's racks,
    ``networks_for``)."""
    return sized_parts(NetworkInputs.of(resolved), PartsFabric.of(fabric), fabric.switch_count_total > 0, catalog,
                       current_language())


def _parts_bytes(parts: NetworkParts) -> int:
    """Upper bound of the memory of a ``NetworkParts`` [bytes]: its storage sizing's (``_sizing_bytes``), 640 B per
    compute fabric device set, link set and sentence and their text, 1 kB for the rest (``tests/test_memo.py``)."""
    items = (*parts.compute_devices, *parts.compute_links)
    return 1024 + _sizing_bytes(parts.storage) + 640 * (len(items) + len(parts.compute_explanation)) + text_bytes(
        [*parts.compute_explanation, *(getattr(item, "description", "") or "" for item in items)])


@stage(0.02, _parts_bytes, errors=(FabricPlannerError,))
def sized_parts(resolved: NetworkInputs, fabric: PartsFabric, switched: bool, catalog: Catalog,
                language: str) -> NetworkParts:
    """``network_parts`` of the views of a resolved design and its fabric plan (``switched``: the fabric has switches),
    in ``language``; cached by these arguments (``core.memo.stage``)."""
    with spoken(language):
        management = resolved.design.management
        storage, storage_ufm = _storage_of(resolved, NetworkShape.of(fabric), catalog, language)
        if not management:
            return NetworkParts(False, _physical_sizing(storage, catalog), (), (), (), 0, 0, 0, 0, 0, 0, 0)
        # a fabric without switches (a torus) has no subnet manager to run
        compute_devices, compute_links, compute_why = (compute_ufm(resolved, catalog, fabric.family)
                                                       if switched else ((), (), ()))
    first = sum(d.count for d in compute_devices)
    if storage is not None and storage_ufm:  # storage UFMs number after the compute fabric's
        moved = tuple(d.model_copy(update={"first": first}) if d.kind == "ufm" else d for d in storage.devices)
        storage = storage.model_copy(update={"devices": moved})
    sus = scalable_units(resolved, fabric)
    return NetworkParts(True, _physical_sizing(storage, catalog),
                        tuple(_physical_device(d, catalog) for d in compute_devices), compute_links, compute_why,
                        sus, head_nodes(sus), nfs_systems(resolved.nodes), first + sum(d.count for d in storage_ufm),
                        storage.devices_of("storage") if storage is not None else 0,
                        storage.switch_count if storage is not None else 0, inband_switch(resolved, catalog)[1])


def networks_for(resolved, fabric, catalog: Catalog, parts: NetworkParts,
                 racks: tuple[int, int] | None = None) -> ClusterNetworks:
    """``size_networks`` of a resolved design and its fabric plan (or their views) from its ``parts``
    (``network_parts``), sized for ``racks``: the in-band and out-of-band networks, the only ones the racks change
    (the out-of-band network serves their PDUs), its sentences in the current language."""
    if not parts.management:
        return ClusterNetworks(storage=parts.storage, inband=None, oob=None, compute_devices=())
    counts = dict(sus=parts.sus, heads=parts.heads, ufms=parts.ufms, storage_systems=parts.storage_systems,
                  nfs=parts.nfs)
    oob_switches = _oob_fixed_point(resolved, fabric, catalog, racks, radix=parts.inband_radix,
                                    storage_switches=parts.storage_switches, **counts)
    inband = _inband_of(NetworkInputs.of(resolved), catalog, parts.heads, parts.nfs, oob_switches,
                        current_language())
    oob, _uplinks = size_oob(resolved, fabric, catalog, other_switches=parts.storage_switches + inband.switch_count,
                             built=racks, **counts)
    return ClusterNetworks(storage=parts.storage, inband=inband,
                           oob=_physical_sizing(oob, catalog), compute_devices=parts.compute_devices,
                           compute_links=parts.compute_links, compute_explanation=parts.compute_explanation)


def _oob_fixed_point(resolved, fabric, catalog: Catalog, racks: tuple[int, int] | None, *, radix: int, sus: int,
                     storage_switches: int, heads: int, ufms: int, storage_systems: int, nfs: int) -> int:
    """The out-of-band switches the in-band network is sized for: in-band and out-of-band depend on each other (OOB
    uplinks take in-band ports, in-band switches take OOB ports), so their counts are repeated from no OOB switch
    until they stop changing (two or three rounds, at most 10: the last round's input then), in closed form
    (``management.inband_switch_count``, ``oob_switch_count``: the switch counts of the sizings, checked by
    ``tests/test_as_built_rounds.py``) before either network is built once; ``radix``: the in-band switch's ports
    (``management.inband_switch``)."""
    oob_switches = 0
    for _round in range(10):
        sized_for = oob_switches
        inband = inband_switch_count(sum(inband_ports(resolved, heads, nfs, sized_for)), radix)
        oob_switches = oob_switch_count(resolved, fabric, catalog, sus=sus, other_switches=storage_switches + inband,
                                        heads=heads, ufms=ufms, storage_systems=storage_systems, nfs=nfs, built=racks)
        if oob_switches == sized_for:
            break
    return sized_for


def _physical_switch(group: SwitchSet, catalog: Catalog) -> SwitchSet:
    """A switch set with its rack units [U] and typical power [W] from the catalog."""
    entry = catalog.switch(group.model)
    return group.model_copy(update={"height_u": entry.rack_units, "watts_each": entry.power_w})


def _physical_device(group: DeviceSet, catalog: Catalog) -> DeviceSet:
    """A device set with its rack units [U] and typical power [W] from the catalog (none without a model)."""
    if not group.model:
        return group
    entry = catalog.appliance(group.model)
    return group.model_copy(update={"height_u": entry.rack_units, "watts_each": entry.power_w})


def _physical_sizing(network: NetworkSizing | None, catalog: Catalog) -> NetworkSizing | None:
    """Fill each switch and device set's rack units [U] and typical power [W] from the catalog."""
    if network is None:
        return None
    return network.model_copy(update={"switches": tuple(_physical_switch(s, catalog) for s in network.switches),
                                      "devices": tuple(_physical_device(d, catalog) for d in network.devices)})
