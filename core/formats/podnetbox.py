"""The NetBox import of a design with pods (``core.analysis.pods``): every pod's devices, ports and cables and the
shared spine layer.

Each pod is exported as ``core.formats.netbox`` exports it alone (its plan, ``MixedPlan.plans``), under the pod's
naming scheme (``core.formats.podslurm.pod_scheme``: ``pod2-gpu001``, ``pod2-leaf001``); a name that takes no
prefix from the scheme (a PDU, a storage system), a rack and a cable label get ``pod<n>-`` too, so no two pods
share a name. The pods' own spines (each pod planned alone has some) and their cables are left out; the shared
spines (``spine001`` ...: the design's switch prefix, the first pod's padding) and the leaf-spine cables of the
mixed cabling plan (``core.analysis.pods.mixed_links``: which leaf port meets which spine port) take their place.
A leaf-spine cable keeps the media, length and part of the pod's own cable on that leaf port (the shared spines
stand where the pod's own would: an approximation of the length); the shared spines have no rack position (the
rack layouts are per pod). Every field is English.
"""

from __future__ import annotations

from typing import Iterator

from core.analysis.pods import MixedPlan, mixed_links, mixed_wiring
from core.catalog import load_catalog
from core.fabric.naming import Namer, NamingScheme
from core.fabric.wiring import Wiring
from core.formats.podslurm import mixed_of, pod_scheme
from core.physical.cabling import CableRow, cabling_rows


def _tag(pod: int):
    """A function naming a device, rack or cable of pod number ``pod``: ``pod<n>-`` before a name without it."""
    tag = f"pod{pod}-"
    return lambda name: name if not name or name.startswith(tag) else tag + name


def _own_spines(p, scheme: NamingScheme) -> set[str]:
    """Names of the spines a pod planned alone has (left out of the mixed import)."""
    namer, wiring = Namer.of(p, scheme), Wiring.of(p)
    return {namer.switch("spine", k) for k in range(wiring.spines)}


def spine_names(mixed: MixedPlan, naming: NamingScheme | None) -> list[str]:
    """Names of the shared spines (the design's switch prefix, padded as the first pod's spines)."""
    namer = Namer.of(mixed.plans[0], naming)
    return [namer.switch("spine", j) for j in range(mixed.fabric.spines)]


def mixed_devices(mixed: MixedPlan, naming: NamingScheme | None, site: str, devices) -> Iterator[tuple]:
    """Rows of the devices CSV of ``mixed`` (``devices``: ``core.formats.netbox.devices``, for one pod): every pod's
    devices but its own spines, renamed (module docstring), then the shared spines."""
    from core.formats.netbox import ROLES, device_type, manufacturer

    wiring = mixed_wiring(mixed)
    for i, (pod, p) in enumerate(zip(mixed.fabric.pods, mixed.plans)):
        scheme = pod_scheme(naming, pod.index + 1)
        tag, skip = _tag(pod.index + 1), _own_spines(p, scheme)
        for name, role, maker, model, status, where, rack, position, face, vertex in devices(p, scheme, site):
            if not (role == ROLES["spine"] and name in skip):
                yield (tag(name), role, maker, model, status, where, tag(rack), position, face,
                       wiring.local_id(i, vertex))
    switch = load_catalog().switch(mixed.fabric.spine_switch)
    for j, name in enumerate(spine_names(mixed, naming)):
        yield (name, ROLES["spine"], manufacturer(switch), device_type(switch), "planned", site, "", "", "",
               wiring.spine_id(j))


def mixed_cabling_rows(mixed: MixedPlan, naming: NamingScheme | None) -> Iterator[CableRow]:
    """Every cable of ``mixed`` as ``CableRow``: each pod's cabling plan without its own spines' cables, renamed,
    then the leaf-spine cables to the shared spines (module docstring)."""
    wiring = mixed_wiring(mixed)
    namers, kept = [], {}  # kept: (pod, leaf name, leaf port) -> the pod's own cable on that port
    for pod, p in zip(mixed.fabric.pods, mixed.plans):
        scheme = pod_scheme(naming, pod.index + 1)
        tag, skip = _tag(pod.index + 1), _own_spines(p, scheme)
        namers.append(Namer.of(p, scheme))
        for row in cabling_rows(p, scheme):
            if row.a_device in skip or row.z_device in skip:
                if row.network == "compute" and row.link_class == "leaf-spine":
                    kept[pod.index, row.a_device, row.a_port] = row
                continue
            yield row._replace(cable_id=tag(row.cable_id), a_rack=tag(row.a_rack), a_device=tag(row.a_device),
                               z_rack=tag(row.z_rack), z_device=tag(row.z_device))
    spines = spine_names(mixed, naming)
    number = 0
    for kind, a, a_port, z, z_port, speed in mixed_links(mixed):
        if kind != "leaf-spine":
            continue
        number += 1
        i, own = wiring.parse(a)
        pod = mixed.fabric.pods[i]
        leaf = namers[i].switch("leaf", Wiring.parse(own)[3])
        like = kept.get((pod.index, leaf, a_port))
        ends = dict(cable_id=f"S{number:06d}", a_device=_tag(pod.index + 1)(leaf), a_port=a_port, z_rack="", z_u=None,
                    z_device=spines[int(z[len("spine"):])], z_port=z_port, speed_gbps=speed)
        if like is not None:
            yield like._replace(a_rack=_tag(pod.index + 1)(like.a_rack), **ends)
        else:
            yield CableRow(network="compute", link_class="leaf-spine", a_rack="", a_u=None, media="", length_m=None,
                           cable_part="", a_transceiver="", z_transceiver="", **ends)


def plan_cabling_rows(plan, naming: NamingScheme | None) -> Iterator[CableRow]:
    """The cabling plan of ``plan`` as the exports write it (the cabling CSV and XLSX, NetBox's cables): its own
    ``core.physical.cabling.cabling_rows``, or for a design with pods every pod's cables and the leaf-spine cables
    to the shared spines (``mixed_cabling_rows``)."""
    mixed = mixed_of(plan)
    return cabling_rows(plan, naming) if mixed is None else mixed_cabling_rows(mixed, naming)
