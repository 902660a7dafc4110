"""Typed results of the network sizing: switch sets, link sets, device sets, one network, the cluster.

Counts are whole-cluster totals. Port speeds are per direction [Gb/s]. Ids follow the compute
fabric's style (0-based): ``storage.leaf0``, ``storage.spine0``, ``storage.array0``, ``inband.leaf0``,
``inband.spine0``, ``oob.switch0``, ``mgmt.head0``, ``mgmt.ufm0``, ``mgmt.nfs0``, ``pdu0``.

Languages: ``description`` and ``explanation`` texts are in the language of the request
(``core.i18n``); ``role``, ``kind``, ``network`` and catalog ids are keys, English in every language.
"""

from __future__ import annotations

from typing import Iterator, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from core.i18n import N_, _

NetworkName = Literal["compute", "storage", "inband", "oob"]
NETWORKS: tuple[str, ...] = ("compute", "storage", "inband", "oob")


class NetworkWords(NamedTuple):
    """A network's names, English marked for translation (``network_name`` translates them)."""
    name: str
    """The network itself (its switches and links): ``compute fabric``, ``storage fabric``."""
    bill: str
    """What its bill and its ``Plan.summary()["networks"]`` entry hold: the compute network's holds the GPU nodes."""
    short: str
    """In a word, for a table with a column per network."""


NETWORK_WORDS: dict[str, NetworkWords] = {
    "compute": NetworkWords(N_("compute fabric"), N_("compute (nodes and fabric)"), N_("compute")),
    "storage": NetworkWords(N_("storage fabric"), N_("storage fabric"), N_("storage")),
    "inband": NetworkWords(N_("in-band management"), N_("in-band management"), N_("in-band")),
    "oob": NetworkWords(N_("out-of-band management"), N_("out-of-band management"), N_("out-of-band")),
}
"""Network key -> its names: the one table of network names that every form (Designer, CLI, XLSX, review pack,
key numbers) reads through ``network_name``; ``tests/test_network_names.py`` fails on a second one."""


def network_name(network: str, form: Literal["name", "bill", "short"] = "name") -> str:
    """A network's name in the current language (``NETWORK_WORDS``; ``form`` picks which), the key itself for a
    key it does not know."""
    words = NETWORK_WORDS.get(network)
    return _(getattr(words, form)) if words else network

SwitchRole = Literal["leaf", "storage-leaf", "spine", "switch"]
SWITCH_ROLE_LABELS = {"leaf": N_("leaf"), "storage-leaf": N_("storage leaf"), "spine": N_("spine"),
                      "switch": N_("switch")}
DeviceKind = Literal["storage", "ufm", "head", "nfs", "pdu"]
LINK_KIND_LABELS = {"node-leaf": N_("node-leaf"), "storage-leaf": N_("storage-leaf"), "ufm-leaf": N_("UFM-leaf"),
                    "leaf-spine": N_("leaf-spine"), "head-leaf": N_("head node-leaf"), "nfs-leaf": N_("NFS-leaf"),
                    "oob-uplink": N_("OOB uplink"), "isl": N_("ISL"), "site-uplink": N_("site uplink"),
                    "bmc": N_("BMC"), "switch-mgmt": N_("switch management"), "device-mgmt": N_("appliance management"),
                    "pdu-mgmt": N_("PDU"), "ufm-b2b": N_("UFM back-to-back")}
"""Link set kind (a key) -> its name in texts, marked for translation."""


class SwitchSet(BaseModel):
    """Switches of one role and model, cabled alike. Ports are per switch (the fullest one)."""

    model_config = ConfigDict(frozen=True)

    role: SwitchRole
    model: str
    """Catalog switch id."""
    count: int
    id_prefix: str
    """Device ids are ``{id_prefix}{first + i}`` for ``i < count``."""
    first: int = 0
    down_ports_used: int
    up_ports_used: int
    peer_ports_used: int = 0
    """Ports to the switch's pair (MLAG inter-switch links)."""
    radix: int
    """Ports at ``port_speed_gbps``."""
    port_speed_gbps: int
    description: str
    choice: str = ""
    """Whose switch this is and why, one sentence (``core.networks.makers.choice_note``; the BOM's reason)."""
    height_u: float = 1.0
    """Rack units per switch [U] (catalog)."""
    watts_each: float = 0.0
    """Typical power per switch [W] (catalog, before overrides)."""

    @property
    def ports_used(self) -> int:
        return self.down_ports_used + self.up_ports_used + self.peer_ports_used

    def ids(self) -> Iterator[str]:
        for i in range(self.first, self.first + self.count):
            yield f"{self.id_prefix}{i}"


class TransceiverUse(BaseModel):
    """Transceivers of one model on one link set."""

    model_config = ConfigDict(frozen=True)

    model: str
    count: int
    end: Literal["switch", "node", "device"]
    """``switch``: a switch's cage; ``node``: a compute node's port; ``device``: an appliance's port (UFM)."""
    why: str


class LinkSet(BaseModel):
    """Links of one class: their count, speed and the media the BOM buys for them."""

    model_config = ConfigDict(frozen=True)

    kind: str
    """Link class key: ``node-leaf``, ``storage-leaf``, ``ufm-leaf``, ``leaf-spine``, ``head-leaf``,
    ``nfs-leaf``, ``oob-uplink``, ``isl``, ``site-uplink``, ``bmc``, ``switch-mgmt``, ``device-mgmt``,
    ``pdu-mgmt``, ``ufm-b2b``."""
    count: int
    speed_gbps: int
    """Per direction [Gb/s] (1 for 1GbE)."""
    cable: str = ""
    """Catalog cable id, one per link ("" = none bought here)."""
    transceivers: tuple[TransceiverUse, ...] = ()
    label: str = ""
    """The class in words, translated, where the fabric's family names it (a classic Dragonfly's UFM-router links);
    "": ``LINK_KIND_LABELS``'."""
    description: str


class DeviceSet(BaseModel):
    """End devices of one kind: storage systems, UFM appliances, head nodes, NFS storage, PDUs."""

    model_config = ConfigDict(frozen=True)

    kind: DeviceKind
    model: str
    """Catalog appliance id ("" = not bought here: rack PDUs belong to the racks)."""
    count: int
    id_prefix: str
    first: int = 0
    description: str
    height_u: float = 0.0
    """Rack units per device [U] (catalog; 0 = not placed: PDUs)."""
    watts_each: float = 0.0
    """Typical power per device [W] (catalog, before overrides)."""

    def ids(self) -> Iterator[str]:
        for i in range(self.first, self.first + self.count):
            yield f"{self.id_prefix}{i}"


class NetworkSizing(BaseModel):
    """One sized network (storage, in-band or out-of-band)."""

    model_config = ConfigDict(frozen=True)

    network: NetworkName
    fabric: Literal["infiniband", "ethernet"]
    port_speed_gbps: int
    """Node-facing port speed, per direction [Gb/s]."""
    tiers: int
    islands: int = 1
    """Independent copies (storage pods, in-band pods); counts above add them up."""
    oversubscription: float
    """Node-facing leaf down:up bandwidth ratio (1 = non-blocking; one tier: 1)."""
    switches: tuple[SwitchSet, ...]
    links: tuple[LinkSet, ...]
    devices: tuple[DeviceSet, ...] = ()
    site_uplinks: int = 0
    """Links to the site (data-centre core) network."""
    explanation: tuple[str, ...]

    @property
    def switch_count(self) -> int:
        return sum(s.count for s in self.switches)

    @property
    def link_count(self) -> int:
        return sum(link.count for link in self.links)

    def links_of(self, kind: str) -> int:
        return sum(link.count for link in self.links if link.kind == kind)

    def devices_of(self, kind: str) -> int:
        return sum(d.count for d in self.devices if d.kind == kind)

    def device_ids(self) -> Iterator[str]:
        for group in (*self.switches, *self.devices):
            yield from group.ids()


class ClusterNetworks(BaseModel):
    """The storage, in-band and out-of-band networks of a design (None where the design has none),
    and what the compute fabric gains beside its own sizing (its UFM appliances and their links)."""

    model_config = ConfigDict(frozen=True)

    storage: NetworkSizing | None = None
    inband: NetworkSizing | None = None
    oob: NetworkSizing | None = None
    compute_devices: tuple[DeviceSet, ...] = ()
    compute_links: tuple[LinkSet, ...] = ()
    compute_explanation: tuple[str, ...] = ()

    def sized(self) -> Iterator[NetworkSizing]:
        """The networks that exist, in the order storage, in-band, out-of-band."""
        for network in (self.storage, self.inband, self.oob):
            if network is not None:
                yield network

    @property
    def explanation(self) -> tuple[str, ...]:
        lines = list(self.compute_explanation)
        for network in self.sized():
            lines.extend(network.explanation)
        return tuple(lines)

    def device_ids(self) -> Iterator[str]:
        for network in self.sized():
            yield from network.device_ids()
        for group in self.compute_devices:
            yield from group.ids()

    def devices(self) -> list[dict]:
        """Devices to place in racks (``core.physical.layout.NetDevice`` fields): one entry per id prefix
        (``storage.leaf`` holds node and storage leaves, ``mgmt.ufm`` the compute and storage UFMs), with
        ``count``, ``height_u`` [U], ``watts_each`` [W], ``kind`` (``storage`` for the storage fabric's
        switches and systems, ``management`` for the rest) and ``model``. Rack PDUs are not placed."""
        merged: dict[str, dict] = {}
        sources: list[tuple[str, SwitchSet | DeviceSet]] = [("management", g) for g in self.compute_devices]
        for network in self.sized():
            for group in (*network.switches, *network.devices):
                ufm = isinstance(group, DeviceSet) and group.kind == "ufm"
                sources.append(("storage" if network.network == "storage" and not ufm else "management", group))
        for kind, group in sources:
            if isinstance(group, DeviceSet) and not group.model:
                continue
            entry = merged.setdefault(group.id_prefix, {"prefix": group.id_prefix, "count": 0, "height_u": group.height_u,
                                                        "watts_each": group.watts_each, "kind": kind, "model": group.model})
            entry["count"] = max(entry["count"], group.first + group.count)
            entry["height_u"] = max(entry["height_u"], group.height_u)
            entry["watts_each"] = max(entry["watts_each"], group.watts_each)
        return list(merged.values())
