"""The out-of-band management of a design with pods' shared spine layer (pods on three tiers: shared core layer):
its switches' management ports and its racks' PDUs.

Each pod planned alone (``core.analysis.pods``) sizes its out-of-band network for its own spines (three tiers: its
own cores) and racks; the mixed design has no such switches but the shared ones, in racks of their own
(``core.physical.podlayout``). So on the whole design:

* each pod's ``switch-mgmt`` links lose its own spines' (three tiers: cores'; one management port per switch);
* each pod's rack PDUs (``pdu-mgmt`` links and its PDU devices) are those of its racks as the hall builds them
  (``core.networks.management.built_racks`` and ``rack_pdus``, the single fabric's rule: ``pdus_per_compute_rack``
  per compute rack and ``pdus_per_other_rack`` per other rack, ``core.networks.policy``), not those of its racks
  as its own layout builds them (a pod planned alone, ``core.plan.plan``): the racks the hall drops (its own
  spines', three tiers: cores') have none, the racks it keeps have theirs;
* the first pod's out-of-band network takes the shared spines' (cores') management ports (one each) and the shared
  racks' PDUs (``pdus_per_other_rack`` per rack, ``core.networks.policy``), cabled to the ports its own spines
  freed and then to its switches' free ports (``core.formats.podnetbox``).

Each pod's out-of-band switches are then re-sized for the ports they serve on the whole design (``resized``): as a
pod alone sizes them (``core.networks.management.size_oob``: ``ceil(ports / radix)``), never fewer than the pod
alone has (the cabling plan and NetBox draw those), each carrying ``ceil(ports / switches)`` ports (the bill's
"x of y ports used"). The first pod's extra switches (``extra_oob_switches``) take the shared layer's ports its
own switches have no room for; they stand in the shared layer's racks (``extra_switches``,
``core.physical.podlayout``: in the free U and power of the shared racks, else in network racks of their own in
the shared rows, whose PDUs they serve too). A pod whose out-of-band switches change has its in-band network
re-sized for their 100G uplinks as a single fabric's is (``core.networks.management.size_inband`` with the
out-of-band switch count, ``oob_uplinks_per_switch`` uplinks each; in-band and out-of-band repeated until the
counts hold, as ``core.networks.size_networks`` does): the ``oob-uplink`` links, the in-band leaves' ports and,
when they overflow, its switches. Those switches stand in the pod's own racks: its layout is arranged again around
its in-band network as the whole design has it (``placed_networks``, ``placed_layout``) and the hall, its racks'
PDUs and the networks are repeated until they agree (``core.analysis.pods``' hall fixed point).

The mixed bill (``core.analysis.pods.mixed_plan``) counts these links and switches, the hall places them, and the
cabling plan and NetBox exports draw them (``drawn_networks``, ``core.formats.podnetbox``), so all four give the same
management cables and switches (``tests/test_pods_one_count.py``).
"""

from __future__ import annotations

import math

from core import plurals
from core.fabric.podwiring import PodsWiring
from core.fabric.wiring import Wiring
from core.i18n import _
from core.networks.management import built_racks, rack_pdus
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


def hall_racks(hall) -> list[tuple[int, int]]:
    """``built_racks`` of each pod's racks in the ``core.physical.podlayout.PodsHall`` ``hall``, in pod order."""
    return [built_racks(view.racks) for view in hall.views]


def as_built(networks, racks: tuple[int, int]):
    """``networks`` (``core.networks.ClusterNetworks`` of a pod planned alone) with its rack PDUs (its ``pdu``
    devices and ``pdu-mgmt`` links) those of its ``racks`` as the hall builds them (``built_racks``; module
    docstring), its out-of-band switches as the pod alone has them; unchanged without an out-of-band network."""
    if networks is None or networks.oob is None:
        return networks
    return networks.model_copy(update={"oob": _with_pdus(networks.oob, rack_pdus(racks))})


def placed_networks(plan, whole):
    """The networks of the pod ``plan`` (planned alone) whose devices its racks hold in the hall (module docstring):
    its own (the pod alone's out-of-band switches; the extra ones stand in the shared racks) with the in-band
    network of ``whole`` (``whole_networks``: re-sized for its out-of-band switches' uplinks), so the hall places
    the in-band switches the bill buys; ``plan.networks`` itself when that places no other device."""
    networks = plan.networks
    if whole is None or networks is None or whole.inband is None:
        return networks
    placed = networks.model_copy(update={"inband": whole.inband})
    return networks if placed.devices() == networks.devices() else placed


def placed_layout(plan, networks):
    """The rack layout of the pod ``plan`` planned alone holding ``networks`` (``placed_networks``): its own
    layout when they are its own networks, else its racks arranged again around their devices as a plan arranges
    them (``core.physical.lengths.arranged_lengths``, the same cached stage)."""
    if networks is plan.networks:
        return plan.layout
    from core.design import ResolvedFields
    from core.i18n import current
    from core.physical.layout import devices_to_place
    from core.physical.lengths import arranged_lengths
    from core.physical.racks import load_racks

    devices = tuple(devices_to_place(plan.resolved, networks))
    return arranged_lengths(ResolvedFields.of(plan.resolved), plan.fabric, devices, load_racks(), current())[0].layout()


def drawn_networks(plan, whole, racks: tuple[int, int]):
    """The networks the pod ``plan``'s own cabling plan and NetBox devices draw in the hall
    (``core.formats.podnetbox.in_hall``): the pod alone's with its rack PDUs those of its ``racks`` there
    (``as_built``) and, when the whole design's in-band network (``whole.inband``, ``whole_networks``) has more
    switches than the pod alone's, that in-band network, its ``oob-uplink`` links those of the pod's own
    out-of-band switches (the extra ones' are drawn after them) and the new switches' management ports on the
    ``switch-mgmt`` links."""
    built = as_built(plan.networks, racks)
    alone = plan.networks.inband if plan.networks is not None else None
    if whole is None or alone is None or whole.inband is None or whole.inband.switch_count == alone.switch_count:
        return built
    own = {link.kind: link.count for link in alone.links}
    inband = whole.inband.model_copy(update={"links": tuple(
        link.model_copy(update={"count": own.get("oob-uplink", 0)}) if link.kind == "oob-uplink" else link
        for link in whole.inband.links)})
    grown = whole.inband.switch_count - alone.switch_count
    oob = built.oob.model_copy(update={"links": tuple(
        link.model_copy(update={"count": link.count + grown}) if link.kind == "switch-mgmt" else link
        for link in built.oob.links)})
    return built.model_copy(update={"inband": inband, "oob": oob})


def _with_pdus(oob, pdus: int):
    """The out-of-band network ``oob`` with ``pdus`` rack PDUs: its ``pdu`` devices and ``pdu-mgmt`` links (one count)."""
    links = tuple(link.model_copy(update={"count": pdus}) if link.kind == "pdu-mgmt" else link for link in oob.links)
    devices = tuple(d.model_copy(update={"count": pdus}) if d.kind == "pdu" else d for d in oob.devices)
    return oob.model_copy(update={"links": links, "devices": devices})


def with_shared_management(plan, networks, first: bool, spines: int, pdus: int, own: int | None = None,
                           racks: tuple[int, int] | None = None, three: bool = False):
    """``networks`` (``core.networks.ClusterNetworks`` of the pod ``plan`` planned alone) as the mixed design has
    them (module docstring): ``switch-mgmt`` without the pod's ``own`` switches the shared layer replaces (default
    its own spines; pods on three tiers: its own cores), its rack PDUs those of its ``racks`` in the hall
    (``built_racks``; default the pod alone's, in its own layout) and, for the ``first`` pod, with the ``spines`` shared
    switches' ports and the ``pdus`` shared racks' PDUs (``pdu-mgmt`` links and ``pdu`` devices, one count); its
    out-of-band switches re-sized for their ports (``resized``; ``three``: pods on three tiers, whose shared layer
    is cores) and its in-band network for their uplinks (``_inband_for``); unchanged without an out-of-band
    network."""
    if networks is None or networks.oob is None:
        return networks
    own = _own_spines(Wiring.of(plan)) if own is None else own
    estimate = next((link.count for link in networks.oob.links if link.kind == "pdu-mgmt"), 0)
    built = estimate if racks is None else rack_pdus(racks)
    oob = _with_pdus(networks.oob, built + (pdus if first else 0))
    links = tuple(link.model_copy(update={"count": max(0, link.count - own) + (spines if first else 0)})
                  if link.kind == "switch-mgmt" else link for link in oob.links)
    if racks is not None and built != estimate:
        oob = oob.model_copy(update={"explanation": (*oob.explanation, _(
            "Rack PDUs of the pod's racks as the hall builds them: {pdus} = {compute} x {per_compute} + {other} x "
            "{per_other} (the pod alone, in its own layout, has {estimate}).").format(
            pdus=f"{built:,}", compute=plurals.compute_racks(racks[0]), per_compute=ipolicy("pdus_per_compute_rack"),
            other=plurals.other_racks(racks[1]), per_other=ipolicy("pdus_per_other_rack"), estimate=f"{estimate:,}"))})
    unsized = oob.model_copy(update={"links": links})
    freed, taken, added = own, spines if first else 0, pdus if first else 0
    oob, inband, grown = resized(unsized, freed, taken, added, three), networks.inband, 0
    for _round in range(10):  # in-band <-> out-of-band: a fixed point, as core.networks.size_networks reaches it
        if networks.inband is None or oob.switch_count == networks.oob.switch_count:
            break
        inband = _inband_for(plan, networks.inband, oob.switch_count)
        if inband.switch_count - networks.inband.switch_count == grown:
            break
        grown = inband.switch_count - networks.inband.switch_count  # their management ports on the OOB network
        oob = resized(unsized.model_copy(update={"links": tuple(
            link.model_copy(update={"count": link.count + grown}) if link.kind == "switch-mgmt" else link
            for link in links)}), freed, taken, added, three)
    return networks.model_copy(update={"oob": oob, "inband": inband})


def _inband_for(plan, alone, oob_switches: int):
    """The in-band network of the pod ``plan`` (``alone``: the pod alone's) sized for ``oob_switches`` out-of-band
    switches' 100G uplinks, as a single fabric's (``core.networks.management.size_inband``: the pod's nodes, head
    nodes and NFS storage, ``oob_uplinks_per_switch`` uplinks per out-of-band switch), its switches' height and
    power the catalog's (as ``core.networks`` fills them)."""
    from core.catalog import load_catalog
    from core.networks.management import size_inband

    catalog = load_catalog()
    heads = sum(d.count for d in alone.devices if d.kind == "head")
    nfs = sum(d.count for d in alone.devices if d.kind == "nfs")
    inband = size_inband(plan.resolved, catalog, heads, nfs, oob_switches)
    switches = tuple(s.model_copy(update={"height_u": catalog.switch(s.model).rack_units,
                                          "watts_each": catalog.switch(s.model).power_w}) for s in inband.switches)
    return inband.model_copy(update={"switches": switches, "devices": alone.devices})


def whole_networks(plan, first: bool, fabric, pdus: int, racks: tuple[int, int] | None = None):
    """The networks of the pod ``plan`` (planned alone) as the whole design of the ``core.fabric.pods.MixedFabric``
    ``fabric`` has them (``with_shared_management``: without the switches the shared layer replaces, its rack PDUs
    those of its ``racks`` in the hall, for the ``first`` pod with the shared layer's management ports and its
    racks' ``pdus`` PDUs): what the mixed bill buys, the By network table counts and the review pack shows."""
    return with_shared_management(plan, plan.networks, first, shared_count(fabric), pdus,
                                  own=_own_replaced(plan, fabric), racks=racks, three=fabric.tiers == 3)


def mixed_networks(mixed) -> list:
    """``whole_networks`` of every pod of ``mixed`` (a ``core.analysis.pods.MixedPlan``), in pod order (None for a
    pod without other networks), each with its racks as the hall builds them."""
    return hall_networks(mixed.fabric, mixed.plans, mixed.hall)


def pod_networks(mixed, pod: int):
    """``whole_networks`` of the pod at position ``pod`` of ``mixed`` (a ``core.analysis.pods.MixedPlan``; as
    ``mixed_networks`` has it)."""
    return whole_networks(mixed.plans[pod], pod == 0, mixed.fabric, shared_pdus(mixed.hall),
                          built_racks(mixed.hall.views[pod].racks))


def hall_networks(fabric, plans, hall) -> list:
    """``whole_networks`` of the pods ``plans`` (each planned alone, in pod order) of ``fabric`` in the
    ``core.physical.podlayout.PodsHall`` ``hall``: each with its racks there, the first with the shared racks'."""
    pdus = shared_pdus(hall)
    return [whole_networks(p, i == 0, fabric, pdus, racks) for i, (p, racks) in enumerate(zip(plans, hall_racks(hall)))]


def resized(oob, own: int, spines: int, pdus: int, three: bool = False):
    """The out-of-band network ``oob`` (its links as the whole design has them) with its switches re-sized for their
    ports (module docstring) and a line of its explanation saying so; ``own``, ``spines`` and ``pdus``: the pod's
    own spines' ports it lost, the shared spines' and the shared racks' PDUs' it took (``three``: pods on three
    tiers, the pod's own cores' and the shared cores')."""
    ports = sum(link.count for link in oob.links if link.kind in MANAGEMENT_PORTS)
    groups = list(oob.switches)
    if not groups or not groups[0].radix:
        return oob
    group = groups[0]
    count = max(group.count, math.ceil(ports / group.radix))
    groups[0] = group.model_copy(update={"count": count, "down_ports_used": math.ceil(ports / count) if count else 0})
    why = (_("On the whole design: {own} management ports of the pod's own cores freed, {spines} of the shared "
             "cores and {pdus} rack PDUs of their racks added: {ports} ports, {count} switches = max({alone}, "
             "ceil({ports} / {radix})).") if three else
           _("On the whole design: {own} management ports of the pod's own spines freed, {spines} of the shared "
             "spines and {pdus} rack PDUs of their racks added: {ports} ports, {count} switches = max({alone}, "
             "ceil({ports} / {radix})).")).format(own=f"{own:,}", spines=f"{spines:,}", pdus=f"{pdus:,}",
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


def _extra_count(fabric, pod, i: int, racks: int, built: tuple[int, int]) -> int:
    """Extra out-of-band switches the pod ``pod`` (its plan alone) at position ``i`` adds (``resized``): the first
    pod's when the shared layer stands in ``racks`` racks; ``built``: its racks in the hall (``built_racks``)."""
    networks = pod.networks
    whole = with_shared_management(pod, networks, i == 0, shared_count(fabric),
                                   racks * ipolicy("pdus_per_other_rack"), own=_own_replaced(pod, fabric),
                                   racks=built, three=fabric.tiers == 3)
    return whole.oob.switches[0].count - networks.oob.switches[0].count


def extra_switches(fabric, plans, built: list[tuple[int, int]]) -> tuple:
    """The ``core.physical.podlayout.ExtraSwitches`` of the out-of-band switches the pods ``plans`` (each planned
    alone; ``built``: each pod's racks the hall keeps, ``built_racks``) of the ``core.fabric.pods.MixedFabric``
    ``fabric`` add (module docstring): every other pod's whose own switches are too few for its racks' PDUs as
    built (a fixed count), then the first pod's for the shared layer (a count of the shared racks), placed in that
    order; none for a pod without an out-of-band network."""
    from core.physical.podlayout import ExtraSwitches

    wiring, first, others = PodsWiring(fabric, ()), [], []
    for i, (pod, racks) in enumerate(zip(plans, built)):
        networks = pod.networks
        if networks is None or networks.oob is None or not networks.oob.switches or not networks.oob.switches[0].radix:
            continue
        own = networks.oob.switches[0]
        count_of = ((lambda shared, p=pod, b=racks: _extra_count(fabric, p, 0, shared, b)) if i == 0 else
                    (lambda _shared, n=_extra_count(fabric, pod, i, 0, racks): n))
        if i == 0 or count_of(0):
            (first if i == 0 else others).append(ExtraSwitches(
                own.model, wiring.prefix(i) + own.id_prefix, own.first + own.count, own.height_u, own.watts_each,
                count_of))
    return (*others, *first)


def extra_oob_switches(mixed, pod: int = 0) -> tuple[str, int, int]:
    """``(id prefix, first, count)`` of the out-of-band switches the pod at position ``pod`` of ``mixed`` (a
    ``core.analysis.pods.MixedPlan``) adds (``resized``; the first pod's for the shared layer's management, any
    pod's for its racks' PDUs as built): ids ``oob.switch4`` ... after its own; count 0 when its own have room (or
    it has no out-of-band network)."""
    plan = mixed.plans[pod]
    networks = plan.networks
    if networks is None or networks.oob is None or not networks.oob.switches:
        return "", 0, 0
    own = networks.oob.switches[0]
    return own.id_prefix, own.first + own.count, _extra_count(mixed.fabric, plan, pod, mixed.hall.spine_racks,
                                                              hall_racks(mixed.hall)[pod])
