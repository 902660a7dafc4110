"""NetBox bulk-import CSVs of a design: devices, the interfaces the cables land on, and cables.

Field names are NetBox's own bulk-import form fields, read from its source: ``netbox/dcim/forms/bulk_import.py``
of netbox-community/netbox at v4.6.8 (commit 43fe81f9e833228c9869f7ddadb67e6c5f145060, 2026-08-22):
``DeviceImportForm.Meta.fields``, ``InterfaceImportForm.Meta.fields`` and ``CableImportForm.Meta.fields``;
choice values from ``netbox/dcim/choices.py`` of the same commit (``DeviceStatusChoices``,
``DeviceFaceChoices``, ``LinkStatusChoices``, ``CableTypeChoices``, ``CableLengthUnitChoices``,
``InterfaceTypeChoices``). ``tests/test_netbox.py`` checks every header here against those lists.

* ``netbox-devices``: every server and switch, ``status`` ``planned``, in ``site`` (default
  ``DEFAULT_SITE``), with rack, position (lowest U) and face when the plan has a rack layout. ``role``,
  ``manufacturer`` and ``device_type`` name NetBox objects that must exist before the import (NetBox
  resolves them by name and by device-type ``model``): roles ``GPU server``, ``Leaf switch``,
  ``Spine switch``, ``Core switch``; manufacturers from the ``vendor`` the catalog declares on every system,
  NIC, switch and appliance (``Generic`` for a class entry any maker builds); device types by model
  (``QM9700``, ``DGX H100``).
* ``netbox-interfaces``: every port the cabling plan uses, named as the cabling plan names it
  (``core.physical.cabling``), with its type and speed [Kbps, NetBox's unit]. Import it when the device
  types carry no interface templates with these names.
* ``netbox-cables``: one row per cable of the cabling plan: A and B ends as ``dcim.interface``
  terminations, ``type`` from the media (DAC passive/active, AOC, MMF, SMF), ``status`` ``planned``,
  ``label`` the cable id, and the length in metres when the plan has a layout.

Device names follow ``core.fabric.naming`` (the ``NamingScheme`` the user set). Every field is English.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Iterator, TextIO

from core.catalog import Switch, System, load_catalog
from core.errors import FabricPlannerError, InputError, shown
from core.formats.asbuilt import FoundEnd, FoundLink, bounded_lines, check_count, checked_name, decoded
from core.fabric import domainlevels
from core.fabric.families import export_word
from core.fabric.naming import Namer, NamingScheme
from core.fabric.wiring import LINK_CLASSES, Wiring
from core.formats.exports import Export
from core.formats.podnetbox import mixed_devices, plan_cabling_rows
from core.formats.podslurm import mixed_of
from core.i18n import N_, _
from core.physical.cabling import CableRow, network_device_counts, other_name, position_of

NETBOX_VERSION = "v4.6.8 (commit 43fe81f9e833228c9869f7ddadb67e6c5f145060)"
DEFAULT_SITE = "gpu-cluster"
"""Site name when none is given (a NetBox site of this name must exist)."""

DEVICE_FIELDS = ("name", "role", "manufacturer", "device_type", "status", "site", "rack", "position", "face",
                 "description")
"""Columns of the devices CSV, all ``DeviceImportForm`` fields."""
INTERFACE_FIELDS = ("device", "name", "type", "speed", "description")
"""Columns of the interfaces CSV, all ``InterfaceImportForm`` fields."""
CABLE_FIELDS = ("side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name",
                "type", "status", "label", "length", "length_unit", "description")
"""Columns of the cables CSV, all ``CableImportForm`` fields."""

ROLES = {"server": "GPU server", "leaf": "Leaf switch", "spine": "Spine switch", "core": "Core switch"}
"""NetBox roles of the compute fabric's devices by tier; a family's own words replace a tier's
(``core.fabric.families.export_word``'s ``role:<tier>``: a classic Dragonfly's routers are ``Router``)."""
NETWORK_ROLE_WORDS = {"storage": "Storage", "inband": "In-band", "oob": "OOB", "compute": "Compute"}
SWITCH_ROLE_WORDS = {"leaf": "leaf", "spine": "spine", "switch": "", "storage-leaf": "target leaf"}
"""A switch role of ``core.networks.model.SwitchRole`` -> its words in a NetBox role name (``<network> <words>
switch``): a lone ``switch`` adds none ("OOB switch"), the storage systems' leaves are the target leaves ("Storage
target leaf switch", apart from the nodes' "Storage leaf switch")."""
DEVICE_ROLES = {"storage": "Storage system", "ufm": "UFM appliance", "head": "Head node", "nfs": "NFS storage",
                "pdu": "PDU"}
"""NetBox device roles of the other networks' switches (``<network> <role> switch``) and end devices."""
CABLE_TYPES = {"dac": "dac-passive", "acc": "dac-active", "aoc": "aoc", "mmf": "mmf", "smf": "smf", "utp": "cat5e"}
"""Cabling-plan media -> NetBox ``CableTypeChoices`` value."""
IB_TYPES = {100: "infiniband-edr", 200: "infiniband-hdr", 400: "infiniband-ndr", 800: "infiniband-xdr"}
ETHERNET_TYPES = {1: "1000base-t", 100: "100gbase-x-qsfp28", 200: "200gbase-x-qsfp56", 400: "400gbase-x-osfp",
                  800: "800gbase-x-osfp", 1600: "1.6tbase-x-osfp1600"}
"""Port speed [Gb/s] -> NetBox ``InterfaceTypeChoices`` value; ``other`` for anything else."""


def manufacturer(entry) -> str:
    """Manufacturer of a catalog system, NIC, switch or appliance: its declared ``vendor`` (``Generic`` for a
    class entry any maker builds, such as a white-box Tomahawk switch).

    HGX boards ship in many vendors' servers; without the OEM in the catalog they are listed under the platform's
    maker (``NVIDIA``), an assumption."""
    return entry.vendor


def device_type(entry: System | Switch) -> str:
    """Device-type model of a catalog entry: the switch id (``QM9700``), the system's model (``DGX H100``)."""
    if isinstance(entry, Switch):
        return entry.id
    name = entry.name.removeprefix("NVIDIA ")
    for stop in (" with ", " (", ","):
        name = name.split(stop)[0]
    if "per compute tray" in entry.name:
        name += " compute tray"
    return name.strip()


def _interface_type(speed: int, fabric: str) -> str:
    table = IB_TYPES if fabric == "infiniband" else ETHERNET_TYPES
    return table.get(speed, "other")


def devices(plan, naming: NamingScheme | None = None, site: str = DEFAULT_SITE) -> Iterator[tuple]:
    """Rows of the devices CSV (``DEVICE_FIELDS``): servers, then leaves, spines and cores of every plane (a design
    with pods: every pod's and the shared spines, ``core.formats.podnetbox``)."""
    mixed = mixed_of(plan)
    if mixed is not None:
        yield from mixed_devices(mixed, naming, site, devices)
        return
    namer = Namer.of(plan, naming)
    resolved, wiring = plan.resolved, Wiring.of(plan)
    layout = getattr(plan, "layout", None)

    def where(vertex: str) -> tuple[str, str, str]:
        rack, u = position_of(layout, vertex)
        return (rack, str(u), "front") if rack and u is not None else ("", "", "")

    system = resolved.system
    server = (ROLES["server"], manufacturer(system), device_type(system))
    for n in range(resolved.nodes):
        vertex = wiring.node_id(n)
        yield (namer.node(n), *server, "planned", site, *where(vertex), vertex)
    for role in wiring.roles:
        switch = resolved.tier_switches[role]
        kind = (export_word(wiring.family, f"role:{role}", ROLES[role]), manufacturer(switch), device_type(switch))
        for plane, island in wiring.plane_islands():
            for device in wiring.devices(role, plane, island):
                yield (namer.switch(role, device.index, plane, island), *kind, "planned", site, *where(device.id),
                       device.id)
    yield from _level2_devices(resolved, naming or NamingScheme(), site, where)
    yield from _network_devices(plan, naming or NamingScheme(), site, where)


def _level2_devices(resolved, scheme: NamingScheme, site: str, where) -> Iterator[tuple]:
    """The second NVLink level's devices (``core.fabric.domainlevels``), named and placed as the cabling plan names
    and places them: the first-level NVLink switch trays that carry a rack's level-2 cages, then the level-2 NVLink
    switch units."""
    spec = domainlevels.level2_for(resolved.system)
    if spec is None or not resolved.nvlink_rack_gpus:
        return
    trays, per_rack = domainlevels.level1_trays(resolved), resolved.nvlink_level1_nodes
    tray_kind = ("NVLink switch tray", manufacturer(resolved.system), "NVLink switch tray")
    for first in range(0, resolved.nodes, per_rack) if trays else ():
        for t in range(trays):
            device = domainlevels.level1_tray_id(first, t)
            yield (domainlevels.level2_device_name(device, resolved, scheme), *tray_kind, "planned", site,
                   *where(device), device)
    kind = ("NVLink level-2 switch", manufacturer(resolved.system), spec.switch.name)
    for device, _domain, _unit in domainlevels.level2_switch_ids(resolved):
        yield (domainlevels.level2_device_name(device, resolved, scheme), *kind, "planned", site, *where(device),
               device)


def _network_devices(plan, scheme: NamingScheme, site: str, where) -> Iterator[tuple]:
    """Devices of ``plan.networks``: the storage, in-band and OOB switches, storage systems, UFM appliances,
    head nodes, NFS storage and rack PDUs (named by ``core.physical.cabling.other_name``)."""
    networks = getattr(plan, "networks", None)
    if networks is None:
        return
    catalog = load_catalog()
    counts = network_device_counts(plan)
    appliances = {a.id: a for a in getattr(catalog, "appliances", ())}
    seen: set[str] = set()
    groups = [("compute", g) for g in networks.compute_devices]
    groups += [(n.network, g) for n in networks.sized() for g in (*n.switches, *n.devices)]
    for network, group in groups:
        role = getattr(group, "role", None)
        if role is not None:
            role_name = " ".join(w for w in (NETWORK_ROLE_WORDS.get(network, network),
                                             SWITCH_ROLE_WORDS.get(role, role.replace("-", " ")), "switch") if w)
            try:
                entry = catalog.switch(group.model)
                maker, model = manufacturer(entry), device_type(entry)
            except FabricPlannerError:
                maker, model = "Generic", group.model
        else:
            role_name = DEVICE_ROLES.get(group.kind, group.kind)
            entry = appliances.get(group.model)
            maker = manufacturer(entry) if entry is not None else "Generic"
            model = group.model or "PDU"
        for device in group.ids():
            if device in seen:
                continue
            seen.add(device)
            yield (other_name(device, scheme, counts), role_name, maker, model, "planned", site, *where(device),
                   device)


def interfaces(plan, naming: NamingScheme | None = None) -> Iterator[tuple]:
    """Rows of the interfaces CSV (``INTERFACE_FIELDS``): both ends of every cable, in cable order."""
    networks = getattr(plan, "networks", None)
    fabrics = {"compute": plan.resolved.fabric, "inband": "ethernet", "oob": "ethernet",
               "storage": networks.storage.fabric if networks is not None and networks.storage else "ethernet"}
    for row in _cabling(plan, naming):
        kind = _interface_type(row.speed_gbps, fabrics.get(row.network, "ethernet"))
        speed_kbps = row.speed_gbps * 1_000_000
        yield row.a_device, row.a_port, kind, speed_kbps, row.cable_id
        if row.z_port:  # a site uplink's far end is the site network's, not a device of the design
            yield row.z_device, row.z_port, kind, speed_kbps, row.cable_id


def cables(plan, naming: NamingScheme | None = None) -> Iterator[tuple]:
    """Rows of the cables CSV (``CABLE_FIELDS``), one per cable of the cabling plan between two devices of the
    design (site uplinks, whose far end is the site network's, are left to the site's own records)."""
    for row in _cabling(plan, naming):
        if row.z_port:
            yield _cable(row)


def _cabling(plan, naming: NamingScheme | None) -> Iterator[CableRow]:
    """The cabling plan of ``plan`` (a design with pods: every pod's and the shared spines',
    ``core.formats.podnetbox.plan_cabling_rows``)."""
    return plan_cabling_rows(plan, naming)


def _cable(row: CableRow) -> tuple:
    length = "" if row.length_m is None else f"{row.length_m:g}"
    return (row.a_device, "dcim.interface", row.a_port, row.z_device, "dcim.interface", row.z_port,
            CABLE_TYPES.get(row.media, ""), "planned", row.cable_id, length, "m" if length else "",
            f"{row.network} {row.link_class} {row.speed_gbps}G")


def _writer(fields: tuple[str, ...], rows):
    def write(plan, out: TextIO, naming: NamingScheme | None = None, **options) -> None:
        """Stream the CSV (header, then one line per row) to ``out``; ``options`` go to the row generator."""
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(fields)
        writer.writerows(rows(plan, naming, **options))
    return write


def _slug(text: str) -> str:
    """A NetBox slug: lower case, ``[a-z0-9-]``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _yaml_doc(fields: dict, interfaces: list[tuple[str, str]]) -> str:
    """One YAML document; strings written as JSON strings (valid YAML scalars), numbers and booleans bare."""
    import json

    lines = ["---"]
    for key, value in fields.items():
        lines.append(f"{key}: {json.dumps(value) if isinstance(value, str) else str(value).lower()}")
    lines.append("interfaces:")
    lines += [f"  - name: {json.dumps(name)}\n    type: {json.dumps(kind)}" for name, kind in interfaces]
    return "\n".join(lines) + "\n"


def device_type_documents(plan) -> Iterator[str]:
    """NetBox device types (netbox-community/devicetype-library schema: manufacturer, model, slug, u_height,
    is_full_depth, interfaces with name and type) of every switch model of ``plan``'s compute fabric and other
    networks, then a module type for its NIC (manufacturer, model, interfaces), as YAML documents.

    Switch interfaces: one per port at the switch's top speed, named as the cabling plan names them
    (``core.physical.cabling.port_layout``); NIC interfaces ``port<p>`` at the NIC's top speed [Gb/s]."""
    from core.physical.cabling import port_layout

    catalog = load_catalog()
    mixed = mixed_of(plan)
    plans = mixed.plans if mixed is not None else (plan,)  # a design with pods: every pod's models and NICs
    models = {s.id: s for p in plans for s in p.resolved.tier_switches.values()}
    for p in plans:
        networks = getattr(p, "networks", None)
        for network in (networks.sized() if networks is not None else ()):
            for group in network.switches:
                try:
                    models.setdefault(catalog.switch(group.model).id, catalog.switch(group.model))
                except FabricPlannerError:
                    continue
    for switch in models.values():
        layout = port_layout(switch, max(switch.speeds_gbps))
        kind = _interface_type(max(switch.speeds_gbps), switch.fabric)
        maker = manufacturer(switch)
        yield _yaml_doc({"manufacturer": maker, "model": device_type(switch), "slug": _slug(f"{maker}-{switch.id}"),
                         "u_height": switch.rack_units, "is_full_depth": True, "comments": switch.name},
                        [(layout.name(unit), kind) for unit in range(layout.units)])
    for resolved in {p.resolved.nic.id: p.resolved for p in plans}.values():
        nic = resolved.nic
        kind = _interface_type(max(nic.speeds_on(resolved.fabric)), resolved.fabric)
        yield _yaml_doc({"manufacturer": manufacturer(nic), "model": nic.id, "comments": nic.name},
                        [(f"port{p + 1}", kind) for p in range(nic.ports)])


def write_device_types(plan, out: TextIO, naming: NamingScheme | None = None, **options) -> None:
    """Stream the device and module types of ``plan`` (``device_type_documents``) as one multi-document YAML."""
    for document in device_type_documents(plan):
        out.write(document)


write_devices = _writer(DEVICE_FIELDS, devices)
write_interfaces = _writer(INTERFACE_FIELDS, interfaces)
write_cables = _writer(CABLE_FIELDS, cables)

EXPORTS = (
    Export(name="netbox-devices", write=write_devices, suffix=".csv", mime="text/csv",
           label=N_("NetBox devices (bulk-import CSV)"), every_pod=True),
    Export(name="netbox-interfaces", write=write_interfaces, suffix=".csv", mime="text/csv",
           label=N_("NetBox interfaces the cables use (bulk-import CSV)"), every_pod=True),
    Export(name="netbox-cables", write=write_cables, suffix=".csv", mime="text/csv",
           label=N_("NetBox cables from the cabling plan (bulk-import CSV)"), every_pod=True),
    Export(name="netbox-device-types", write=write_device_types, suffix=".yaml", mime="application/yaml",
           label=N_("NetBox device types of the switches and NIC (devicetype-library YAML)"), every_pod=True),
)



MAX_CABLES_BYTES = 64 * 1024 * 1024
"""Largest NetBox cables CSV ``read_cables`` reads [bytes]."""


def read_cables(data: bytes) -> list[FoundLink]:
    """The compute fabric's links of a NetBox cables CSV as this module writes it (``CABLE_FIELDS``), for
    ``core.analysis.verify``: each row's A and B device and interface, the speed [Gb/s per direction] its
    description ends with (``compute leaf-spine 400G``); rows of the other networks (a description naming another
    network or a UFM link) are left out. Bounded as ``core.formats.asbuilt`` says; ``InputError`` for a CSV without the side
    columns or a bad row."""
    what = _("NetBox cables CSV")
    text = decoded(data, what, MAX_CABLES_BYTES)
    for _number, _line in bounded_lines(text, what):  # line lengths checked before the CSV reader sees them
        pass
    try:
        rows = csv.DictReader(io.StringIO(text))
        header = rows.fieldnames or []
    except csv.Error as exc:
        raise InputError(_("the {what} is not CSV: {reason}").format(what=what, reason=shown(str(exc)))) from None
    needed = ("side_a_device", "side_a_name", "side_b_device", "side_b_name")
    if any(column not in header for column in needed):
        raise InputError(_("the {what} lacks the columns {columns} (export it with --format netbox-cables)").format(
            what=what, columns=", ".join(needed)))
    links = []
    try:
        for number, row in enumerate(rows, 2):
            where = _("line {line}").format(line=f"{number:,}")
            description = row.get("description") or ""
            words = description.split()
            if words and (words[0] != "compute" or len(words) > 1 and words[1] not in LINK_CLASSES):
                continue  # another network's cable, or the compute fabric's UFM links
            ends = [FoundEnd(checked_name(row.get(f"side_{s}_device") or "", what, where),
                             checked_name(row.get(f"side_{s}_name") or "", what, where)) for s in "ab"]
            speed = re.search(r"(\d+(?:\.\d+)?)G$", description.strip())
            links.append(FoundLink(ends[0], ends[1], float(speed[1]) if speed else None, "", number))
            check_count(links, what)
    except csv.Error as exc:
        raise InputError(_("the {what} is not CSV: {reason}").format(what=what, reason=shown(str(exc)))) from None
    return links
