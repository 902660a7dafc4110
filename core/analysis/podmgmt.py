"""The out-of-band management of a design with pods' shared spine layer (pods on three tiers: shared core layer):
its switches' management ports and its racks' PDUs.

Each pod planned alone (``core.analysis.pods``) sizes its out-of-band network for its own spines (three tiers: its
own cores) and racks; the mixed design has no such switches but the shared ones, in racks of their own
(``core.physical.podlayout``). So on the whole design:

* each pod's ``switch-mgmt`` links lose its own spines' (three tiers: cores'; one management port per switch);
* the first pod's out-of-band network takes the shared spines' (cores') management ports (one each) and the shared
  racks' PDUs (``pdus_per_other_rack`` per rack, ``core.networks.policy``), cabled to the ports its own spines
  freed and then to its switches' free ports (``core.formats.podnetbox``).

Each pod's out-of-band switches are then re-sized for the ports they serve on the whole design (``resized``): as a
pod alone sizes them (``core.networks.management.size_oob``: ``ceil(ports / radix)``), never fewer than the pod
alone has (the cabling plan and NetBox draw those), each carrying ``ceil(ports / switches)`` ports (the bill's
"x of y ports used"). The first pod's extra switches (``extra_oob_switches``) take the shared layer's ports its
own switches have no room for; they stand in the shared layer's racks (``extra_switches``,
``core.physical.podlayout``: in the free U and power of the shared racks, else in network racks of their own in
the shared rows, whose PDUs they serve too). Their 100G uplinks to the in-band network are not added (the in-band
network is sized for the pod alone).

The mixed bill (``core.analysis.pods.mixed_plan``) counts these links and switches and the cabling plan and
NetBox exports draw them (``core.formats.podnetbox``), so all three give the same management cables and switches.
"""

from __future__ import annotations

import math

from core.fabric.podwiring import PodsWiring
from core.fabric.wiring import Wiring
from core.i18n import _
from core.networks.policy import ipolicy

MANAGEMENT_PORTS = ("bmc", "switch-mgmt", "device-mgmt", "pdu-mgmt")
"""The out-of-band link classes that take a port of an out-of-band switch each (``size_oob``'s ports)."""
PDU_PREFIX = "pdu"
"""Id prefix of the shared racks' PDUs (``pdu0`` ...; named ``pdu001`` in the exports, no pod prefix)."""


def shared_count(fabric) -> int:
    """Switches of the shared layer of the ``core.fabric.pods.MixedFabric`` ``fabric``: its shared spines, or its
    shared cores on three tiers; every plane's (``MixedFabric.planes``)."""
    return fabric.cores_total if fabric.tiers == 3 else fabric.spines_total


def shared_racks(hall) -> list[str]:
    """Names of the racks of the ``core.physical.podlayout.PodsHall`` ``hall`` in its shared rows (the shared
    spines' or cores', and the extra out-of-band switches'), in hall order."""
    return [r.name for r in hall.layout.racks if not hall.pods_of_rows[r.row]]


def shared_pdus(hall) -> int:
    """Rack PDUs of the shared racks of the ``core.physical.podlayout.PodsHall`` ``hall`` (``pdus_per_other_rack``
    each)."""
    return hall.spine_racks * ipolicy("pdus_per_other_rack")


def with_shared_management(plan, networks, first: bool, spines: int, pdus: int, own: int | None = None):
    """``networks`` (``core.networks.ClusterNetworks`` of the pod ``plan`` planned alone) as the mixed design has
    them (module docstring): ``switch-mgmt`` without the pod's ``own`` switches the shared layer replaces (default
    its own spines; pods on three tiers: its own cores) and, for the ``first`` pod, with the ``spines`` shared
    switches' ports and the ``pdus`` shared racks' PDUs (``pdu-mgmt``); unchanged without an out-of-band network."""
    if networks is None or networks.oob is None:
        return networks
    own = _own_spines(Wiring.of(plan)) if own is None else own
    links = []
    for link in networks.oob.links:
        count = link.count
        if link.kind == "switch-mgmt":
            count = max(0, count - own) + (spines if first else 0)
        elif link.kind == "pdu-mgmt" and first:
            count += pdus
        links.append(link.model_copy(update={"count": count}) if count != link.count else link)
    oob = resized(networks.oob.model_copy(update={"links": tuple(links)}), own, spines if first else 0,
                  pdus if first else 0)
    return networks.model_copy(update={"oob": oob})


def whole_networks(plan, first: bool, fabric, pdus: int):
    """The networks of the pod ``plan`` (planned alone) as the whole design of the ``core.fabric.pods.MixedFabric``
    ``fabric`` has them (``with_shared_management``: without the switches the shared layer replaces, for the
    ``first`` pod with the shared layer's management ports and its racks' ``pdus`` PDUs): what the mixed bill buys,
    the By network table counts and the review pack shows."""
    return with_shared_management(plan, plan.networks, first, shared_count(fabric), pdus,
                                  own=_own_replaced(plan, fabric))


def mixed_networks(mixed) -> list:
    """``whole_networks`` of every pod of ``mixed`` (a ``core.analysis.pods.MixedPlan``), in pod order (None for a
    pod without other networks)."""
    pdus = shared_pdus(mixed.hall)
    return [whole_networks(p, i == 0, mixed.fabric, pdus) for i, p in enumerate(mixed.plans)]


def resized(oob, own: int, spines: int, pdus: int):
    """The out-of-band network ``oob`` (its links as the whole design has them) with its switches re-sized for their
    ports (module docstring) and a line of its explanation saying so; ``own``, ``spines`` and ``pdus``: the pod's
    own spines' ports it lost, the shared spines' and the shared racks' PDUs' it took."""
    ports = sum(link.count for link in oob.links if link.kind in MANAGEMENT_PORTS)
    groups = list(oob.switches)
    if not groups or not groups[0].radix:
        return oob
    group = groups[0]
    count = max(group.count, math.ceil(ports / group.radix))
    groups[0] = group.model_copy(update={"count": count, "down_ports_used": math.ceil(ports / count) if count else 0})
    why = _("On the whole design: {own} management ports of the pod's own spines freed, {spines} of the shared "
            "spines and {pdus} rack PDUs of their racks added: {ports} ports, {count} switches = max({alone}, "
            "ceil({ports} / {radix})).").format(own=f"{own:,}", spines=f"{spines:,}", pdus=f"{pdus:,}",
                                               ports=f"{ports:,}", count=f"{count:,}", alone=f"{group.count:,}",
                                               radix=group.radix)
    return oob.model_copy(update={"switches": tuple(groups), "explanation": (*oob.explanation, why)})


def _own_replaced(plan, fabric) -> int:
    """The switches of the pod ``plan`` alone the shared layer replaces: its own spines, or its own cores on three
    tiers (every plane's)."""
    wiring = Wiring.of(plan)
    return wiring.cores * len(wiring.plane_islands()) if fabric.tiers == 3 else _own_spines(wiring)


def _own_spines(wiring) -> int:
    """Spines of every plane and island of a pod's own ``wiring``."""
    return wiring.spines * len(wiring.plane_islands())


def _extra_count(fabric, first, racks: int) -> int:
    """Extra out-of-band switches the first pod ``first`` (its plan alone) adds when the shared layer stands in
    ``racks`` racks (``resized``)."""
    networks = first.networks
    whole = with_shared_management(first, networks, True, shared_count(fabric),
                                   racks * ipolicy("pdus_per_other_rack"), own=_own_replaced(first, fabric))
    return whole.oob.switches[0].count - networks.oob.switches[0].count


def extra_switches(fabric, first):
    """The ``core.physical.podlayout.ExtraSwitches`` of the out-of-band switches the first pod ``first`` (its plan
    alone) of the ``core.fabric.pods.MixedFabric`` ``fabric`` adds for the shared layer (module docstring), their
    count a function of the shared racks; None without an out-of-band network."""
    from core.physical.podlayout import ExtraSwitches

    networks = first.networks
    if networks is None or networks.oob is None or not networks.oob.switches or not networks.oob.switches[0].radix:
        return None
    own = networks.oob.switches[0]
    return ExtraSwitches(own.model, PodsWiring(fabric, ()).prefix(0) + own.id_prefix, own.first + own.count,
                         own.height_u, own.watts_each, lambda racks: _extra_count(fabric, first, racks))


def extra_oob_switches(mixed) -> tuple[str, int, int]:
    """``(id prefix, first, count)`` of the out-of-band switches the first pod of ``mixed`` (a
    ``core.analysis.pods.MixedPlan``) adds for the shared layer's management (``resized``): ids ``oob.switch4`` ...
    after its own; count 0 when its own have room (or it has no out-of-band network)."""
    first = mixed.plans[0]
    networks = first.networks
    if networks is None or networks.oob is None or not networks.oob.switches:
        return "", 0, 0
    own = networks.oob.switches[0]
    return own.id_prefix, own.first + own.count, _extra_count(mixed.fabric, first, mixed.hall.spine_racks)
