"""In-band and out-of-band management networks and the management nodes, sized as the DGX SuperPOD
H100 RA (RA-11333-001 V11, Tables 7 and 8) cables them; every rule and default is a ``[[policy]]`` of
``assets/catalog/networks.toml`` with its source.

**Management nodes.** Head (BCM / Slurm) nodes: 4 up to 4 SUs (RA Table 7), 2 more per further 16 SUs
(assumption); user (NFS) storage: one per 128 nodes (assumption); UFM appliances: an HA pair per
InfiniBand fabric (RA Table 7: 4 for compute + storage), 2 ports each on the compute fabric (Table 4's
"Compute + UFM" cables = node links + 4).

**In-band (SN4600C on an NVIDIA fabric, 100GbE; ``core.networks.makers``).** Ports: 2 per node, 2 per head node, 8 for the NFS storage, 2 uplinks
per OOB switch (Table 8). Leaves come in MLAG pairs (2 ISL cables per pair) with 4 uplinks each, so a
leaf takes at most ``radix - 4 - 2`` ports; two spines when there is more than one pair, each with 2
uplinks to the site network (Table 8: 4 CWDM4 uplinks); a pod is at most as many leaf pairs as two
spines hold, and larger clusters get more pods (each uplinked to the site).

**Out-of-band (SN2201 on an NVIDIA fabric, 48 x 1GbE).** One port per node BMC, per switch of every network (compute,
storage, in-band), per UFM and head node, 2 per storage system and NFS system, and per rack PDU
(3 per compute rack, 2 per other rack; racks estimated before the layout exists); switches =
``ceil(ports / 48)``, each with 2 100G uplinks to the in-band network; a Cat5e back-to-back cable per
UFM pair (Table 8: 127 + 64 + 8 + 8 + 2 + 108 cables and 16 uplinks at 4 SUs).

In-band and OOB depend on each other (OOB uplinks take in-band ports; in-band switches take OOB ports);
the sizing repeats until the counts stop changing (two or three rounds).
"""

from __future__ import annotations

import math

from core import plurals
from core.catalog import Catalog
from core.design import ResolvedDesign
from core.fabric.families import words
from core.fabric.sizing import FabricPlan
from core.i18n import N_, _, ngettext, sentences
from core.networks.makers import (SwitchChoice, choice_note, head_node_model, management_switches,
                                  network_switch)
from core.networks.model import DeviceSet, LinkSet, NetworkSizing, SwitchSet, TransceiverUse
from core.networks.policy import ipolicy

INBAND_SWITCH = "SN4600C"
"""The DGX SuperPOD RA's in-band switch: what an NVIDIA compute fabric's in-band network buys
(``management_switch``; another maker's fabric gets its own or a generic class entry)."""
OOB_SWITCH = "SN2201"
"""The RA's out-of-band switch (as ``INBAND_SWITCH``)."""
NFS_STORAGE = "NFS-STORAGE"


def management_switch(resolved: ResolvedDesign, catalog: Catalog, speed_gbps: int) -> SwitchChoice:
    """The management-role switch at ``speed_gbps`` [Gb/s] a management network buys: the compute fabric maker's,
    else a generic class entry (``core.networks.makers.network_switch``)."""
    choice = network_switch(management_switches(catalog, speed_gbps), resolved.switch.vendor)
    if choice is None:
        raise ValueError(f"the catalog has no management switch offering {speed_gbps}G")
    return choice


def head_nodes(sus: int) -> int:
    """Management (head) nodes for ``sus`` scalable units."""
    extra = math.ceil(max(0, sus - 4) / 16)
    return ipolicy("head_nodes_base") + ipolicy("head_nodes_extra_per_16_sus") * extra


def nfs_systems(nodes: int) -> int:
    return math.ceil(nodes / ipolicy("nodes_per_nfs"))


def inband_switch(resolved: ResolvedDesign, catalog: Catalog) -> tuple[SwitchChoice, int]:
    """The in-band switch ``size_inband`` buys (``management_switch``) and its ports at the in-band port speed (64
    when the catalog lists none)."""
    speed = ipolicy("inband_port_speed_gbps")
    choice = management_switch(resolved, catalog, speed)
    return choice, choice.switch.ports_at(speed) or 64


def inband_ports(resolved: ResolvedDesign, heads: int, nfs: int, oob_switches: int) -> tuple[int, int, int, int]:
    """In-band ports ``(the nodes', the heads head nodes', the nfs NFS systems', the oob_switches out-of-band
    switches' uplinks)``: the in-band network's ports are their sum."""
    return (resolved.nodes * ipolicy("inband_ports_per_node"), heads * ipolicy("head_node_inband_ports"),
            nfs * ipolicy("nfs_inband_ports"), oob_switches * ipolicy("oob_uplinks_per_switch"))


def inband_pairs(ports: int, radix: int) -> tuple[int, int, int]:
    """``(leaf pairs, leaf pairs per pod, pods)`` of an in-band network of ``ports`` ports on ``radix``-port
    switches (closed form): leaves take ``radix - uplinks - ISL`` ports; one pair needs no spine (one pod)."""
    up = ipolicy("inband_leaf_uplinks")
    pairs = max(1, math.ceil(ports / (2 * (radix - up - ipolicy("inband_isl_per_pair")))))
    if pairs == 1:
        return 1, 1, 1
    pairs_per_pod = max(1, (radix - ipolicy("inband_site_uplinks_per_spine")) * 2 // (2 * up))  # two spines take
    return pairs, pairs_per_pod, math.ceil(pairs / pairs_per_pod)  # (2 x up) links per leaf pair


def inband_switch_count(ports: int, radix: int) -> int:
    """Switches of ``size_inband`` for ``ports`` ports on ``radix``-port switches: its leaves and spines (2 a pod
    when more than one pair), without building its sizing."""
    pairs, _per_pod, pods = inband_pairs(ports, radix)
    return 2 * pairs + (2 * pods if pairs > 1 else 0)


def size_inband(resolved: ResolvedDesign, catalog: Catalog, heads: int, nfs: int, oob_switches: int) -> NetworkSizing:
    """The in-band management network for the nodes, head nodes, NFS storage and OOB uplinks."""
    speed = ipolicy("inband_port_speed_gbps")
    choice, radix = inband_switch(resolved, catalog)
    switch = choice.switch
    per_node = ipolicy("inband_ports_per_node")
    node_ports, head_ports, nfs_ports, oob_ports = inband_ports(resolved, heads, nfs, oob_switches)
    ports = node_ports + head_ports + nfs_ports + oob_ports
    up = ipolicy("inband_leaf_uplinks")
    isl = ipolicy("inband_isl_per_pair")
    site_per_top = ipolicy("inband_site_uplinks_per_spine")
    down_max = radix - up - isl
    pairs, pairs_per_pod, pods = inband_pairs(ports, radix)
    leaves = 2 * pairs
    why = [sentences(_("In-band management ({switch}, {speed}GbE): {nodes} nodes x {per_node} + {heads} head nodes x "
                       "{head_each} + {nfs_ports} NFS storage ports + {oob_ports} OOB uplinks = {ports} ports.").format(
        switch=switch.id, speed=speed, nodes=f"{resolved.nodes:,}", per_node=per_node, heads=heads,
        head_each=ipolicy("head_node_inband_ports"), nfs_ports=nfs_ports, oob_ports=oob_ports, ports=f"{ports:,}"),
        choice_note(choice))]
    switches: list[SwitchSet] = []
    links: list[LinkSet] = []
    down = math.ceil(ports / leaves)
    if pairs == 1:
        spines, site = 0, site_per_top * leaves
        why.append(_("One leaf pair ({down} ports each, {isl} ISL cables) uplinked to the site network with {site} "
                     "links.").format(down=down, isl=isl, site=site))
        switches.append(SwitchSet(role="leaf", model=switch.id, count=2, id_prefix="inband.leaf", down_ports_used=down,
                                  up_ports_used=site_per_top, peer_ports_used=isl // 2 if isl else 0, radix=radix,
                                  port_speed_gbps=speed, description=_("in-band leaf")))
        leaf_spine = 0
    else:
        spines = 2 * pods
        site = site_per_top * spines
        leaf_spine = leaves * up
        spine_down = math.ceil(leaf_spine / spines)
        why.append(_("{leaves} leaves in MLAG pairs of at most {down_max} ports ({down} used), {up} uplinks each "
                     "and {isl} ISL cables per pair; {spines} spines with {site} uplinks to the site network.").format(
            leaves=leaves, down_max=down_max, down=down, up=up, isl=isl, spines=spines, site=site))
        if pods > 1:
            why.append(ngettext("{pods} in-band pod of at most {pairs} leaf pairs, each uplinked to the site.",
                                "{pods} in-band pods of at most {pairs} leaf pairs, each uplinked to the site.",
                                pods).format(pods=pods, pairs=pairs_per_pod))
        switches.append(SwitchSet(role="leaf", model=switch.id, count=leaves, id_prefix="inband.leaf",
                                  down_ports_used=down, up_ports_used=up, peer_ports_used=isl // 2 if isl else 0,
                                  radix=radix, port_speed_gbps=speed, description=_("in-band leaf")))
        switches.append(SwitchSet(role="spine", model=switch.id, count=spines, id_prefix="inband.spine",
                                  down_ports_used=spine_down, up_ports_used=site_per_top, radix=radix,
                                  port_speed_gbps=speed, description=_("in-band spine")))
    cwdm4 = catalog.transceiver("QSFP28-100G-CWDM4")
    links.append(LinkSet(kind="node-leaf", count=node_ports, speed_gbps=speed, cable="AOC-200G",
                         description=_("node in-band ports (the RA's 200G QSFP56 AOC)")))
    if head_ports:
        links.append(LinkSet(kind="head-leaf", count=head_ports, speed_gbps=speed, cable="AOC-100G",
                             description=_("head nodes to leaves")))
    if nfs_ports:
        links.append(LinkSet(kind="nfs-leaf", count=nfs_ports, speed_gbps=speed, cable="AOC-100G",
                             description=_("NFS storage to leaves")))
    if oob_ports:
        links.append(LinkSet(kind="oob-uplink", count=oob_ports, speed_gbps=speed, cable="AOC-100G",
                             description=_("OOB switch uplinks to leaves")))
    links.append(LinkSet(kind="isl", count=pairs * isl, speed_gbps=speed, cable="DAC-100G",
                         description=_("inter-switch links of leaf pairs")))
    if leaf_spine:
        links.append(LinkSet(kind="leaf-spine", count=leaf_spine, speed_gbps=speed, cable="AOC-100G",
                             description=_("leaves to spines")))
    links.append(LinkSet(kind="site-uplink", count=site, speed_gbps=speed, cable="", transceivers=(
        TransceiverUse(model=cwdm4.id, count=site, end="switch", why=_("our end of each site uplink")),),
        description=_("uplinks to the site network (the far end is the site's)")))
    switches = [s.model_copy(update={"choice": choice_note(choice)}) for s in switches]
    devices = [DeviceSet(kind="head", model=head_node_model(resolved.system.vendor), count=heads, id_prefix="mgmt.head",
                         description=_("management (head) nodes"))]
    if nfs:
        devices.append(DeviceSet(kind="nfs", model=NFS_STORAGE, count=nfs, id_prefix="mgmt.nfs",
                                 description=_("user (NFS) storage")))
    return NetworkSizing(network="inband", fabric="ethernet", port_speed_gbps=speed, tiers=1 if pairs == 1 else 2,
                         islands=pods, oversubscription=down / up if up else 1.0, switches=tuple(switches),
                         links=tuple(links), devices=tuple(devices), site_uplinks=site, explanation=tuple(why))


def rack_estimate(resolved: ResolvedDesign, sus: int) -> tuple[int, int]:
    """(compute racks, other racks) before the layout exists: ``ceil(nodes / nodes per rack)`` and one
    network rack per SU plus ``other_racks_base`` management racks (policy; the RA's 32 + 6 at 4 SUs)."""
    return math.ceil(resolved.nodes / resolved.nodes_per_rack), sus + ipolicy("other_racks_base")


def built_racks(racks) -> tuple[int, int]:
    """``(compute racks, other racks)`` of ``racks`` (``core.physical.layout.Rack``, each with its ``kind``: the
    racks as a layout builds them)."""
    compute = sum(1 for rack in racks if rack.kind == "compute")
    return compute, len(racks) - compute


def rack_pdus(racks: tuple[int, int]) -> int:
    """Rack PDUs of ``racks`` (``(compute racks, other racks)``: ``rack_estimate``'s or ``built_racks``'):
    ``pdus_per_compute_rack`` per compute rack and ``pdus_per_other_rack`` per other rack (``core.networks.policy``:
    the one per-rack rule of a single fabric and of pods)."""
    return racks[0] * ipolicy("pdus_per_compute_rack") + racks[1] * ipolicy("pdus_per_other_rack")


def _oob_device_ports(catalog: Catalog, *, heads: int, ufms: int, storage_systems: int, nfs: int) -> int:
    """Out-of-band ports of the appliances: one per UFM and head node, the storage systems' and NFS systems'."""
    return ufms + heads + storage_systems * ipolicy("storage_array_oob_ports") + \
        nfs * catalog.appliance(NFS_STORAGE).oob_ports


def _oob_ports(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, *, sus: int, other_switches: int,
               heads: int, ufms: int, storage_systems: int, nfs: int,
               built: tuple[int, int] | None) -> tuple[int, int, int, int]:
    """``size_oob``'s ports ``(node BMCs, switch management ports, appliance ports, rack PDUs)`` (its arguments)."""
    return (resolved.nodes, fabric.switch_count_total + other_switches,
            _oob_device_ports(catalog, heads=heads, ufms=ufms, storage_systems=storage_systems, nfs=nfs),
            rack_pdus(rack_estimate(resolved, sus) if built is None else built))


def oob_switch_count(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, *, sus: int,
                     other_switches: int, heads: int, ufms: int, storage_systems: int, nfs: int,
                     built: tuple[int, int] | None = None) -> int:
    """Switches of ``size_oob`` with these arguments, ``ceil(ports / radix)``, without building its sizing."""
    return math.ceil(sum(_oob_ports(resolved, fabric, catalog, sus=sus, other_switches=other_switches, heads=heads,
                                    ufms=ufms, storage_systems=storage_systems, nfs=nfs, built=built))
                     / ipolicy("oob_switch_ports"))


def size_oob(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, *, sus: int, other_switches: int,
             heads: int, ufms: int, storage_systems: int, nfs: int,
             built: tuple[int, int] | None = None) -> tuple[NetworkSizing, int]:
    """The out-of-band network and its uplinks to the in-band one; ``other_switches`` = switches of every
    other network but the compute fabric (their management ports); ``built``: the racks as the layout builds them
    (``built_racks``), whose PDUs it counts (``rack_pdus``), else ``rack_estimate``'s (before the layout exists)."""
    choice = management_switch(resolved, catalog, 1)
    switch = choice.switch
    radix = ipolicy("oob_switch_ports")
    bmc, switch_mgmt, device_mgmt, pdus = _oob_ports(resolved, fabric, catalog, sus=sus, other_switches=other_switches,
                                                     heads=heads, ufms=ufms, storage_systems=storage_systems, nfs=nfs,
                                                     built=built)
    compute_racks, other_racks = rack_estimate(resolved, sus)
    estimate = rack_pdus((compute_racks, other_racks))
    ports = bmc + switch_mgmt + device_mgmt + pdus
    count = math.ceil(ports / radix)
    uplinks = count * ipolicy("oob_uplinks_per_switch")
    b2b = ufms // 2
    terms = dict(switch=switch.id, bmc=f"{bmc:,}", switches=f"{switch_mgmt:,}", devices=device_mgmt,
                 pdus=f"{pdus:,}", ports=f"{ports:,}")
    why = [
        _("Out-of-band management ({switch}, 1GbE): {bmc} node BMCs + {switches} switch management ports + {devices} "
          "appliance ports + {pdus} rack PDUs ({compute_racks} x {per_compute} + {other_racks} x {per_other}, "
          "estimated) = {ports} ports.").format(
            **terms, compute_racks=plurals.compute_racks(compute_racks), per_compute=ipolicy("pdus_per_compute_rack"),
            other_racks=plurals.other_racks(other_racks), per_other=ipolicy("pdus_per_other_rack"))
        if pdus == estimate else
        _("Out-of-band management ({switch}, 1GbE): {bmc} node BMCs + {switches} switch management ports + {devices} "
          "appliance ports + {pdus} rack PDUs = {ports} ports.").format(**terms),
        sentences(_("{count} switches = ceil({ports} / {radix}), each with {per} 100G uplinks to the in-band "
                    "network.").format(count=count, ports=f"{ports:,}", radix=radix,
                                       per=ipolicy("oob_uplinks_per_switch")), choice_note(choice)),
    ]
    if pdus != estimate:
        why.insert(1, _(
            "Rack PDUs of the racks as the layout builds them: {pdus} = {compute} x {per_compute} + {other} x "
            "{per_other} (the estimate before the layout was {estimate}).").format(
            pdus=f"{pdus:,}", compute=plurals.compute_racks(built[0]), per_compute=ipolicy("pdus_per_compute_rack"),
            other=plurals.other_racks(built[1]), per_other=ipolicy("pdus_per_other_rack"), estimate=f"{estimate:,}"))
    down = math.ceil(ports / count) if count else 0
    links = [LinkSet(kind="bmc", count=bmc, speed_gbps=1, cable="CAT5E-1G", description=_("node BMC ports")),
             LinkSet(kind="switch-mgmt", count=switch_mgmt, speed_gbps=1, cable="CAT5E-1G",
                     description=_("switch management ports")),
             LinkSet(kind="device-mgmt", count=device_mgmt, speed_gbps=1, cable="CAT5E-1G",
                     description=_("UFM, head node and storage management ports") if ufms else
                     _("head node and storage management ports")),
             LinkSet(kind="pdu-mgmt", count=pdus, speed_gbps=1, cable="CAT5E-1G", description=_("rack PDUs"))]
    if b2b:
        links.append(LinkSet(kind="ufm-b2b", count=b2b, speed_gbps=1, cable="CAT5E-1G",
                             description=_("UFM HA pairs, back to back")))
        why.append(ngettext("{count} Cat5e cable joins each UFM pair back to back.",
                            "{count} Cat5e cables join the UFM pairs back to back.", b2b).format(count=b2b))
    devices = (DeviceSet(kind="pdu", model="", count=pdus, id_prefix="pdu",
                         description=_("rack PDUs (bought with the racks)")),)
    return NetworkSizing(
        network="oob", fabric="ethernet", port_speed_gbps=1, tiers=1, oversubscription=1.0,
        switches=(SwitchSet(role="switch", model=switch.id, count=count, id_prefix="oob.switch", down_ports_used=down,
                            up_ports_used=0, radix=radix, port_speed_gbps=1,
                            description=_("out-of-band switch (its 100G uplinks are separate QSFP28 ports)"),
                            choice=choice_note(choice)),),
        links=tuple(links), devices=devices, site_uplinks=0, explanation=tuple(why),
    ), uplinks


def compute_ufm(resolved: ResolvedDesign, catalog: Catalog, family: str | None = None,
                ) -> tuple[tuple[DeviceSet, ...], tuple[LinkSet, ...], tuple[str, ...]]:
    """The compute fabric's UFM HA pair and its links (InfiniBand only), to its leaves in the words of the fabric's
    ``family`` (a ``FabricPlan.family``; a classic Dragonfly's routers)."""
    if resolved.fabric != "infiniband":
        return (), (), ()
    count = ipolicy("ufm_per_infiniband_fabric")
    ports = count * ipolicy("ufm_ports_compute")
    ufm_module = catalog.transceiver("QSFP56-200G-SR4")
    cord = catalog.cable("FIBER-MMF-OM4-MPO12")
    devices = (DeviceSet(kind="ufm", model="UFM-APPLIANCE", count=count, id_prefix="mgmt.ufm",
                         description=_("UFM appliances of the compute fabric (HA pair)")),)
    links = (LinkSet(kind="ufm-leaf", count=ports, speed_gbps=200, cable=cord.id, transceivers=(
        TransceiverUse(model=ufm_module.id, count=ports, end="device", why=words(family, "ufm:end", N_(
            "UFM side; the leaf side uses a spare half of a twin-port cage"))),),
        label=words(family, "ufm:link", N_("UFM-leaf")),
        description=words(family, "ufm:links", N_("UFM appliances to compute leaves"))),)
    why = (words(family, "ufm:why", N_("{count} UFM appliances manage the compute fabric (an HA pair), {ports} links "
                                       "to its leaves.")).format(count=count, ports=ports),)
    return devices, links, why
