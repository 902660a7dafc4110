"""The NetBox import of a design with pods (``core.analysis.pods``): every pod's devices, ports and cables and the
shared spine layer.

Each pod is exported as ``core.formats.netbox`` exports it alone (its plan, ``MixedPlan.plans``), under the pod's
naming scheme (``core.formats.podslurm.pod_scheme``: ``pod2-gpu001``, ``pod2-leaf001``); a name that takes no
prefix from the scheme (a PDU, a storage system) and a cable label get ``pod<n>-`` too, so no two pods share a
name. The pods' own spines (each pod planned alone has some) and their cables are left out; the shared spines
(``spine001`` ...: the design's switch prefix, the first pod's padding) and the leaf-spine cables of the mixed
cabling plan (``core.analysis.pods.mixed_links``: which leaf port meets which spine port) take their place.
Pods on three tiers (``core.fabric.podcore``) keep their own spines and leaf-spine cables; their own cores and
their cables are left out, and the shared cores (``core001`` ...) and the spine-core cables of the mixed cabling
plan (which pod spine port meets which core port) take their place.

Racks, positions and lengths are the hall's (``MixedPlan.hall``, ``core.physical.podlayout``: every pod's racks and
the shared spines' or cores' in one hall, named ``R{row}-{position}`` over the whole hall): every device, a shared
switch and the first pod's extra out-of-band switches too, has its rack and lowest U there; every cable's length
runs between its two ends' places there (a leaf-spine cable to its shared spine's rack, a spine-core cable to its
shared core's, ``core.physical.cabling``'s rule), and its media, part and transceivers are those of its length bin
among the pod's hall media (``MixedPlan.media``, which the mixed bill counts). Every field is English.
"""

from __future__ import annotations

import itertools
from typing import Iterator

from core.analysis.failure.podnames import shared_switches  # the shared layer's names: one rule
from core.analysis.pods import MixedPlan, mixed_links, mixed_wiring
from core.catalog import load_catalog
from core.fabric.naming import Namer, NamingScheme
from core.fabric.podwiring import PodsWiring
from core.fabric.wiring import Wiring
from core.formats.podslurm import mixed_of, pod_scheme
from core.physical.cabling import CableRow, bin_media, cabling_rows, class_media, placed_ends
from core.physical.media import media_for


def _tag(pod: int):
    """A function naming a device, rack or cable of pod number ``pod``: ``pod<n>-`` before a name without it."""
    tag = f"pod{pod}-"
    return lambda name: name if not name or name.startswith(tag) else tag + name


def _own_spines(p, scheme: NamingScheme, three: bool = False) -> set[str]:
    """Names of the switches a pod planned alone has that the mixed import leaves out: its spines, or its cores
    for pods on three tiers (``three``); every plane's."""
    namer, wiring = Namer.of(p, scheme), Wiring.of(p)
    role = "core" if three else "spine"
    return {namer.switch(role, k, plane, island) for plane, island in wiring.plane_islands()
            for k in range(wiring.cores if three else wiring.spines)}


def spine_names(mixed: MixedPlan, naming: NamingScheme | None) -> list[str]:
    """Names of the shared spines (the design's switch prefix, padded as the first pod's spines)."""
    namer = Namer.of(mixed.plans[0], naming)
    return [namer.switch("spine", j) for j in range(mixed.fabric.spines)]


def in_hall(mixed: MixedPlan, pod: int):
    """The plan of the pod at position ``pod`` with its racks where the hall has them (``PodsHall.views``: its own
    ids, the hall's rack names and places), its compute media the hall's (``MixedPlan.media``) and its rack PDUs
    those of its racks there and its in-band network the whole design's (``_drawn``)."""
    p = mixed.plans[pod]
    networks = _drawn(mixed, pod)
    return p.model_copy(update={"layout": mixed.hall.views[pod], "media": mixed.media[pod],
                                "lengths": mixed.lengths[pod], "networks": _fitting(networks)})


def _drawn(mixed: MixedPlan, pod: int):
    """The networks the pod at position ``pod``'s own cabling plan draws in the hall
    (``core.analysis.podmgmt.drawn_networks``: its rack PDUs those of its racks there, its in-band network the
    mixed bill's)."""
    from core.analysis.podmgmt import built_racks, drawn_networks, pod_networks

    return drawn_networks(mixed.plans[pod], pod_networks(mixed, pod), built_racks(mixed.hall.views[pod].racks))


def _switch_ports(oob) -> int:
    """Ports of one out-of-band switch of ``oob`` (its model's largest port mode; 0 without a switch)."""
    model = load_catalog().switch(oob.switches[0].model) if oob is not None and oob.switches else None
    return max((m.ports for m in model.port_modes), default=0) if model is not None else 0


def _fitting(networks):
    """``networks`` with as many ``pdu-mgmt`` links as the pod's own out-of-band switches' ports take once its other
    management links are spread over them (``core.physical.cabling``: each class in blocks of ``ceil(count /
    switches)`` a switch); its PDUs beyond them are cabled to free ports and its extra switches
    (``_management_rows``). Its PDU devices stay every one."""
    oob = networks.oob if networks is not None else None
    if oob is None or not oob.switches or not oob.switches[0].count:
        return networks
    count, ports = oob.switches[0].count, _switch_ports(oob)
    others = sum(-(-link.count // count) for link in oob.links if link.kind in ("bmc", "switch-mgmt", "device-mgmt"))
    room = max(0, count * (ports - others))
    links = tuple(link.model_copy(update={"count": min(link.count, room)}) if link.kind == "pdu-mgmt" else link
                  for link in oob.links)
    return networks.model_copy(update={"oob": oob.model_copy(update={"links": links})})


def mixed_devices(mixed: MixedPlan, naming: NamingScheme | None, site: str, devices) -> Iterator[tuple]:
    """Rows of the devices CSV of ``mixed`` (``devices``: ``core.formats.netbox.devices``, for one pod): every pod's
    devices but its own spines (three tiers: cores), renamed, in the hall's racks (module docstring), a pod's extra
    out-of-band switches after its own, then the shared spines (cores) in theirs."""
    from core.formats.netbox import DEVICE_ROLES, ROLES, device_type, manufacturer

    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
    three = wiring.three_tiers
    role_out = ROLES["core" if three else "spine"]
    for i, (pod, p) in enumerate(zip(mixed.fabric.pods, mixed.plans)):
        scheme = pod_scheme(naming, pod.index + 1)
        tag, skip = _tag(pod.index + 1), _own_spines(p, scheme, three)
        prefix, first, extra = _extra_oob(mixed, naming, i)
        for name, role, maker, model, status, where, rack, position, face, vertex in devices(
                in_hall(mixed, i), scheme, site):
            if not (role == role_out and name in skip):
                yield (tag(name), role, maker, model, status, where, rack, position, face,
                       wiring.local_id(i, vertex))
            if vertex == f"{prefix}{first - 1}":  # the pod's extra out-of-band switches, in the shared racks
                for device, extra_name in extra:
                    place = mixed.hall.layout.position(wiring.local_id(i, device))
                    yield (extra_name, role, maker, model, status, where, place.rack, str(place.u), "front",
                           wiring.local_id(i, device))
    switch = load_catalog().switch(mixed.fabric.core_switch if three else mixed.fabric.spine_switch)
    for device, name in shared_switches(mixed, naming):
        place = mixed.hall.layout.position(device)
        yield (name, role_out, manufacturer(switch), device_type(switch), "planned", site, place.rack,
               str(place.u), "front", device)
    for device, name in _shared_pdus(mixed):  # not placed, as every pod's PDUs
        yield name, DEVICE_ROLES["pdu"], "Generic", "PDU", "planned", site, "", "", "", device


def mixed_cabling_rows(mixed: MixedPlan, naming: NamingScheme | None) -> Iterator[CableRow]:
    """Every cable of ``mixed`` as ``CableRow``: each pod's cabling plan in the hall (``in_hall``) without its own
    spines' (three tiers: cores') cables, renamed, then the leaf-spine (spine-core) cables to the shared spines
    (cores), measured in the hall, with the media of their length bins (module docstring)."""
    three = mixed.fabric.tiers == 3
    namers, kept = [], []  # per pod: its out-of-band cables, those of its own spines (cores) freed, its ends
    for i, (pod, p) in enumerate(zip(mixed.fabric.pods, mixed.plans)):
        scheme = pod_scheme(naming, pod.index + 1)
        tag, skip = _tag(pod.index + 1), _own_spines(p, scheme, three)
        namers.append(Namer.of(p, scheme))
        oob, freed, taken = [], [], set()
        kept.append((oob, freed, taken))
        for row in cabling_rows(in_hall(mixed, i), scheme):
            lost = row.a_device in skip or row.z_device in skip  # a cable of the pod's own spines (cores)
            row = row._replace(cable_id=tag(row.cable_id), a_device=tag(row.a_device), z_device=tag(row.z_device))
            if lost:
                if row.network == "oob":
                    freed.append(row)
                continue
            if row.network == "oob":
                oob.append(row)
            taken.update(((row.a_device, row.a_port), (row.z_device, row.z_port)))
            yield row
    yield from _shared_layer_rows(mixed, naming, namers)
    numbers = itertools.count(1)
    for i, (oob, freed, taken) in enumerate(kept):
        yield from _management_rows(mixed, naming, i, (oob, freed, taken), numbers)


def _extra_oob(mixed: MixedPlan, naming: NamingScheme | None,
               pod: int = 0) -> tuple[str, int, list[tuple[str, str]]]:
    """``(id prefix, first extra index, [(id, name)])`` of the extra out-of-band switches of the pod at position
    ``pod`` (``core.analysis.podmgmt.extra_oob_switches``: ``oob.switch4``, ``pod1-oob-switch005``), named as its
    own."""
    from core.analysis.podmgmt import extra_oob_switches
    from core.physical.cabling import network_device_counts, other_name

    prefix, first, count = extra_oob_switches(mixed, pod)
    scheme, counts = pod_scheme(naming, mixed.fabric.pods[pod].index + 1), network_device_counts(mixed.plans[pod])
    tag = _tag(mixed.fabric.pods[pod].index + 1)
    return prefix, first, [(f"{prefix}{k}", tag(other_name(f"{prefix}{k}", scheme, counts)))
                           for k in range(first, first + count)]


def _oob_ends(mixed: MixedPlan, pod: int, used: list[CableRow], freed: list[CableRow],
              naming: NamingScheme | None = None) -> Iterator[tuple[str, int | None, str, str]]:
    """``(rack, U, switch name, port)`` of the out-of-band switch ports of the pod at position ``pod`` its PDUs
    beyond its own switches' room and (the first pod's) the shared layer's management take: those its own spines
    (cores) freed (``freed``), then its switches' ports no cable of ``used`` takes, switch by switch, named as their
    cabled ports are (``swp17``), then its extra switches' (``_extra_oob``, in the shared racks)."""
    import re

    for row in freed:
        yield row.z_rack, row.z_u, row.z_device, row.z_port
    taken: dict[str, set[str]] = {}
    where: dict[str, tuple[str, int | None, str]] = {}
    for row in used + freed:
        if row.link_class in ("bmc", "switch-mgmt", "device-mgmt", "pdu-mgmt"):
            taken.setdefault(row.z_device, set()).add(row.z_port)
            where.setdefault(row.z_device, (row.z_rack, row.z_u, row.z_port))
    count = _switch_ports(mixed.plans[pod].networks.oob)
    for device, (rack, u, sample) in where.items():
        for n in range(1, count + 1):
            port = re.sub(r"\d+$", str(n), sample)
            if port not in taken[device]:
                yield rack, u, device, port
    sample = next(iter(where.values()), ("", None, "1"))[2]
    for device, name in _extra_oob(mixed, naming, pod)[2]:
        place = mixed.hall.layout.position(PodsWiring(mixed.fabric, ()).prefix(pod) + device)
        for n in range(1, count + 1):
            yield place.rack, place.u, name, re.sub(r"\d+$", str(n), sample)


def _management_rows(mixed: MixedPlan, naming: NamingScheme | None, pod: int, cabled: tuple,
                     numbers: Iterator[int]) -> Iterator[CableRow]:
    """The out-of-band cables the pod at position ``pod``'s own cabling plan leaves out (``core.analysis.podmgmt``):
    its PDUs beyond its own switches' room (``_fitting``), and for the first pod the shared spines' (cores')
    management ports and their racks' PDUs (``switch-mgmt``, ``pdu-mgmt``), on its ports ``_oob_ends`` gives,
    measured in the hall (a PDU has no place, so no length); then its extra out-of-band switches' uplinks
    (``_extra_uplink_rows``). ``cabled``: its out-of-band cables, those its own spines (cores) freed and its cabled
    ``(device, port)`` ends; ids ``M000001`` ... from ``numbers``; nothing when it has no out-of-band switch port."""
    from core.physical.cabling import network_device_counts, other_name

    used, freed, taken = cabled
    template = next((r for r in used + freed if r.link_class == "switch-mgmt"), None)
    if template is None:
        return
    ends, i = placed_ends(mixed.hall.layout), mixed.fabric.pods[pod].index + 1
    built = _drawn(mixed, pod)
    pdus = next(link.count for link in built.oob.links if link.kind == "pdu-mgmt")
    drawn = next(link.count for link in _fitting(built).oob.links if link.kind == "pdu-mgmt")
    scheme, counts = pod_scheme(naming, i), network_device_counts(mixed.plans[pod].model_copy(
        update={"networks": built}))
    whole = PodsWiring(mixed.fabric, ()).prefix(pod)
    hosts = [(whole + f"pdu{k}", _tag(i)(other_name(f"pdu{k}", scheme, counts)), "pdu-mgmt")
             for k in range(drawn, pdus)]
    if pod == 0:
        hosts += [(device, name, "switch-mgmt") for device, name in shared_switches(mixed, naming)]
        hosts += [(device, name, "pdu-mgmt") for device, name in _shared_pdus(mixed)]
    for (device, name, kind), (rack, u, switch, port) in zip(hosts, _oob_ends(mixed, pod, used, freed, naming)):
        a_end = ends.of(device)
        z_end = ends.of(_hall_id(mixed.hall.layout, rack, u))
        yield template._replace(cable_id=f"M{next(numbers):06d}", link_class=kind, a_rack=a_end[0], a_u=a_end[1],
                                a_device=name, a_port="mgmt1", z_rack=rack, z_u=u, z_device=switch, z_port=port,
                                length_m=ends.length(a_end, z_end))
    yield from _extra_uplink_rows(mixed, naming, pod, used, taken, numbers)


def _extra_uplink_rows(mixed: MixedPlan, naming: NamingScheme | None, pod: int, used: list[CableRow],
                       taken: set[tuple[str, str]], numbers: Iterator[int]) -> Iterator[CableRow]:
    """The 100G uplinks of the extra out-of-band switches of the pod at position ``pod`` (``_extra_oob``) to its
    in-band leaves, as its own switches' (``core.physical.cabling``'s ``oob-uplink`` rule:
    ``oob_uplinks_per_switch`` each, their up ports the own switches' names, the leaves in turn after the own
    switches' uplinks, each on its lowest free port; ``taken``: the ``(device, port)`` ends the pod's cabling plan
    uses), measured in the hall; ids from ``numbers``."""
    import re

    from core.networks.policy import ipolicy

    template = [r for r in used if r.link_class == "oob-uplink"]
    leaves = list(dict.fromkeys(r.z_device for r in template))
    extra = _extra_oob(mixed, naming, pod)[2]
    if not template or not extra:
        return
    per = ipolicy("oob_uplinks_per_switch")
    ports = [r.a_port for r in template[:per]]
    ids = {r.z_device: _hall_id(mixed.hall.layout, r.z_rack, r.z_u) for r in template}
    ends, whole = placed_ends(mixed.hall.layout), PodsWiring(mixed.fabric, ()).prefix(pod)
    for k, (device, name) in enumerate(extra):
        a_end = ends.of(whole + device)
        for j, port in enumerate(ports):
            leaf = leaves[(len(template) + k * per + j) % len(leaves)]
            sample = next(r.z_port for r in template if r.z_device == leaf)
            free = next(re.sub(r"\d+$", str(n), sample) for n in range(1, 10**4)
                        if (leaf, re.sub(r"\d+$", str(n), sample)) not in taken)
            taken.add((leaf, free))
            z_end = ends.of(ids[leaf])
            yield template[0]._replace(cable_id=f"M{next(numbers):06d}", a_rack=a_end[0], a_u=a_end[1], a_device=name,
                                       a_port=port, z_rack=z_end[0], z_u=z_end[1], z_device=leaf, z_port=free,
                                       length_m=ends.length(a_end, z_end))


def _shared_pdus(mixed: MixedPlan) -> list[tuple[str, str]]:
    """``(id, name)`` of the shared racks' PDUs (``core.analysis.podmgmt``): ``pdu0``, ``pdu001`` ..."""
    from core.analysis.podmgmt import PDU_PREFIX, shared_pdus

    count = shared_pdus(mixed.hall)
    digits = max(3, len(str(count)))
    return [(f"{PDU_PREFIX}{k}", f"{PDU_PREFIX}{k + 1:0{digits}d}") for k in range(count)]


def _hall_id(layout, rack: str, u: int | None) -> str:
    """The hall's id of the device at the lowest U ``u`` of rack ``rack`` ("" when none is there)."""
    for r in layout.racks:
        if r.name != rack or u is None:
            continue
        for slot in r.slots:
            offset = (u - slot.first_u) / slot.height_u
            if 0 <= offset < slot.count and offset == int(offset):
                return f"{slot.prefix}{slot.start + int(offset)}"
    return ""


def _shared_layer_rows(mixed: MixedPlan, naming: NamingScheme | None, namers: list[Namer]) -> Iterator[CableRow]:
    """The leaf-spine cables to the shared spines, or on three tiers the spine-core cables to the shared cores
    (``mixed_links``), measured in the hall, with the media of their length bins (module docstring)."""
    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
    kind, role = ("spine-core", "spine") if wiring.three_tiers else ("leaf-spine", "leaf")
    shared = dict(shared_switches(mixed, naming))
    ends = placed_ends(mixed.hall.layout)
    fallback = [class_media(p)[kind] for p in mixed.plans]
    number = 0
    for link_class, a, a_port, z, z_port, speed in mixed_links(mixed):
        if link_class != kind:
            continue
        number += 1
        i, own = wiring.parse(a)
        pod = mixed.fabric.pods[i]
        _role, plane, island, k = Wiring.parse(own)
        lower = _tag(pod.index + 1)(namers[i].switch(role, k, plane, island))
        a_end, z_end = ends.of(a), ends.of(z)
        length = ends.length(a_end, z_end)
        found = media_for(mixed.media[i], kind, length) if length is not None else None
        m = bin_media(found) if found is not None else fallback[i]
        yield CableRow(f"S{number:06d}", "compute", kind, a_end[0], a_end[1], lower, a_port, z_end[0], z_end[1],
                       shared[z], z_port, speed, m[0], length, m[1], m[2], m[3])


def plan_cabling_rows(plan, naming: NamingScheme | None) -> Iterator[CableRow]:
    """The cabling plan of ``plan`` as the exports write it (the cabling CSV and XLSX, NetBox's cables): its own
    ``core.physical.cabling.cabling_rows``, or for a design with pods every pod's cables and the leaf-spine cables
    to the shared spines (``mixed_cabling_rows``)."""
    mixed = mixed_of(plan)
    return cabling_rows(plan, naming) if mixed is None else mixed_cabling_rows(mixed, naming)
