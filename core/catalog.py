"""Hardware catalog: typed, sourced hardware data loaded from ``assets/catalog/*.toml``.

Every entry carries ``source`` (URL or document name) and ``as_of`` (ISO date).
Every price is a range with its basis and sources (the price book):

* ``price_low_usd`` <= ``price_usd`` (typical) <= ``price_high_usd`` [USD per unit]; for systems
  ``node_price_low_usd`` / ``node_price_usd`` / ``node_price_high_usd``.
* ``price_basis`` says what the typical figure is: ``list`` (vendor list), ``street`` (reseller or
  marketplace price a cluster buyer is quoted), ``hyperscale`` (volume / white-box price) or
  ``estimate`` (derived or assumed, see ``price_source``).
* ``price_source`` names the sources of all three numbers.

The range is read by a convention the design's ``price_basis`` setting uses (``PRICE_POINT``):
``low`` is the lowest public price found (volume, white-box, hyperscale-class deals; real
hyperscale contract prices are not public), ``typical`` the street price, ``high`` the list price or
the highest quote found. ``Design.price_basis = "street"`` (default) prices a design at ``typical``,
``"list"`` at ``high`` and ``"hyperscale"`` at ``low``; the low-high range is shown either way.

Units, stated once for the whole module:

* NVLink bandwidth in GB/s (1e9 bytes/s); the ``_bidir`` suffix means the sum of
  both directions, ``_per_direction`` one direction.
* Network port speeds in Gb/s (1e9 bits/s), always per direction.
* Power in W, prices in USD, reach in m, memory in GB.

Languages: ids, names, sources and field values (``price_basis``, ``fabric``, ``kind``, ``media``)
are data and stay as written; display code translates them. ``KIND_LABELS`` (the kinds' names)
and ``PRICE_BASIS_LABELS`` (the ``price_basis`` values, plus ``override`` for a BOM row whose price
the user set) are English marked with ``N_()``: show them with ``_(label)``. An entry's ``notes``
text is in the translation catalog too (``tools/babel_toml.py``): show it with ``_(entry.notes)``.
Error messages are in the language of the request.
"""

from __future__ import annotations

import difflib

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from core import vocab
from core.errors import InputError, shown
from core.i18n import N_, _

CATALOG_DIR = Path(__file__).resolve().parent.parent / "assets" / "catalog"

PriceBasis = Literal["list", "street", "hyperscale", "estimate"]
DesignPriceBasis = Literal["street", "list", "hyperscale"]
PRICE_POINT: dict[str, str] = {"street": "typical", "list": "high", "hyperscale": "low"}
"""``Design.price_basis`` -> the point of each catalog price range it prices at."""
Fabric = Literal["infiniband", "ethernet"]
CloudTransport = Literal["efa", "tcpx", "tcpxo"]
"""A cloud provider's GPU network transport (``Nic.transport``; ``core.vocab.TRANSPORT`` names them): AWS Elastic
Fabric Adapter, Google GPUDirect-TCPX (A3 High) and GPUDirect-TCPXO (A3 Mega). Each is a fabric class of the
collective model (``assets/catalog/collectives.toml`` ``[[fabric]]``) next to InfiniBand and Ethernet RoCE."""

KIND_LABELS = {"systems": N_("GPU systems"), "nics": N_("NICs"), "switches": N_("Switches"),
               "transceivers": N_("Transceivers"), "cables": N_("Cables"), "nvlink": N_("NVLink generations"),
               "appliances": N_("Appliances")}
"""Catalog kind (``Catalog`` field) -> its name, English marked for translation: ``_(KIND_LABELS[kind])``."""
PRICE_BASIS_LABELS = {term.id: term.label for term in vocab.PRICE_BASES}
"""``price_basis`` value -> its word, marked (``core.vocab.PRICE_BASES``, which ``vocab.PRICE_BASES.label`` shows)."""
PRICE_BASIS_MEANINGS = {"list": N_("the vendor's published list price"),
                        "street": N_("a reseller or reported purchase price"),
                        "hyperscale": N_("a volume or white-box price")}
"""A published price's ``price_basis`` -> where such a price comes from, marked: the Catalog page's price-basis list
and the customer pack's price column (``core.formats.citation.price_basis_text``) say it in these words."""
VENDOR_LABELS = {"NVIDIA": N_("NVIDIA"), "Broadcom": N_("Broadcom"), "Arista": N_("Arista"), "Cisco": N_("Cisco"),
                 "Huawei": N_("Huawei"), "H3C": N_("H3C"), "Ruijie": N_("Ruijie"), "AMD": N_("AMD"),
                 "Intel": N_("Intel"), "AWS": N_("AWS"), "Google": N_("Google"), "Generic": N_("Generic")}
"""A catalog ``vendor`` value -> its name, English marked: ``_(VENDOR_LABELS.get(v, v))`` (Chinese makers' own
Chinese names in the translation: 华为, 新华三, 锐捷). ``Generic``: a class entry any maker builds (a white-box
Tomahawk switch, a sized-generic storage system), whose maker the design does not choose."""
Maker = Annotated[str, Field(min_length=1, description=(
    "Maker as it sells the product (VENDOR_LABELS translates it; Generic for a class entry any maker builds). "
    "Declared on every NIC, switch and appliance: the NetBox exports take their manufacturer from it."))]


def vendor_label(entry) -> str:
    """A system's, switch's or NIC's maker in the request's language (``VENDOR_LABELS``; the value as written when
    unlisted)."""
    vendor = entry.vendor
    return _(VENDOR_LABELS[vendor]) if vendor in VENDOR_LABELS else vendor


def grouped_by_vendor(entries: list) -> list:
    """``entries`` grouped by maker, the makers in order of first appearance (catalog order within each)."""
    order: dict[str, int] = {}
    for entry in entries:
        order.setdefault(entry.vendor, len(order))
    return sorted(entries, key=lambda e: order[e.vendor])


_UNKNOWN_MODEL = {
    "systems": N_("unknown system model {key}; known: {known}"),
    "nics": N_("unknown NIC model {key}; known: {known}"),
    "switches": N_("unknown switch model {key}; known: {known}"),
    "transceivers": N_("unknown transceiver model {key}; known: {known}"),
    "cables": N_("unknown cable model {key}; known: {known}"),
    "appliances": N_("unknown appliance model {key}; known: {known}"),
}


class _Entry(BaseModel):
    """Fields shared by every catalog entry."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Identifier users type; matched case-insensitively.")
    aliases: tuple[str, ...] = ()
    name: str
    source: str = Field(description="URL or document name for the technical numbers.")
    as_of: str = Field(description="ISO date the numbers were checked.")
    notes: str = ""

    @field_validator("source", "as_of", "name", "id")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError(_("must not be empty"))
        return value

    def __hash__(self) -> int:
        """Of the id (equal entries have equal ids; equality still compares every field): entries are in the keys of
        the engine's cached stages (``core.memo.stage``, a switch in every sizing's), and hashing every field, a
        switch's port modes each, took some 14 µs a switch (1 µs by its id)."""
        return hash(self.id)


def _check_range(low: float, typical: float, high: float) -> None:
    if not low <= typical <= high:
        raise ValueError(_("price range must satisfy low <= typical <= high (got {low}, {typical}, {high})").format(
            low=low, typical=typical, high=high))


def price_point(low: float, typical: float, high: float, basis: str) -> float:
    """The price of a range at a design ``price_basis`` (``PRICE_POINT``) [USD]."""
    return {"low": low, "typical": typical, "high": high}[PRICE_POINT.get(basis, "typical")]


class _Priced(_Entry):
    price_usd: float = Field(ge=0, description="Typical unit price [USD] (street unless price_basis says otherwise).")
    price_low_usd: float = Field(ge=0, description="Lowest public unit price found [USD].")
    price_high_usd: float = Field(ge=0, description="List price or highest quote found [USD].")
    price_basis: PriceBasis
    price_source: str
    power_w: float = Field(ge=0, description="Typical power per unit [W].")
    power_source: str

    @model_validator(mode="after")
    def _ordered_range(self):
        _check_range(self.price_low_usd, self.price_usd, self.price_high_usd)
        return self

    def price_at(self, basis: str) -> float:
        """Unit price at a design ``price_basis`` (street, list, hyperscale) [USD]."""
        return price_point(self.price_low_usd, self.price_usd, self.price_high_usd, basis)


class NvlinkGeneration(BaseModel):
    """One NVLink generation."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generation: int = Field(ge=1)
    architecture: str
    link_gbytes_per_direction: float = Field(gt=0, description="Per link, one direction [GB/s].")
    max_links_per_gpu: int = Field(ge=1)
    gpu_gbytes_bidir: float = Field(gt=0, description="Per GPU, both directions summed [GB/s].")
    source: str
    as_of: str

    @property
    def link_gbytes_bidir(self) -> float:
        """Per link, both directions summed [GB/s]."""
        return 2 * self.link_gbytes_per_direction


ScaleupKind = Literal["switch", "mesh"]
CollectiveLibrary = Literal["nccl", "rccl", "hccl", "hccl-gaudi"]


class System(_Entry):
    """A GPU (or NPU, or accelerator card) and the system (node) it ships in.

    A *node* is the unit that owns NICs: an 8-GPU HGX/DGX server, or one
    compute tray (4 GPUs) of an NVL72 rack. ``nvlink_domain_gpus`` is the
    scale-up domain: 8 for HGX boards, 72 for NVL72 racks, 384 for a CloudMatrix 384.
    ``node_power_w`` and ``node_price_usd`` are per node; for NVL72 they are the
    rack's figures divided by its compute trays (NVLink switch trays included).

    The ``nvlink_*`` and ``nvswitch_*`` fields describe the *scale-up* domain whatever its
    technology (``scaleup_name``: NVLink, Infinity Fabric (xGMI), HCCS, Unified Bus, RoCE (Gaudi));
    the names stay for the NVIDIA entries and every caller. ``scaleup_kind`` says how it is built:

    * ``switch``: every accelerator's ``nvlink_links_per_gpu`` links go to switch chips
      (``nvswitch_chips_per_domain``: NVSwitch, Huawei UB switches); any peer is reachable at the
      whole per-GPU bandwidth.
    * ``mesh``: the links go straight to the peers, ``nvlink_links_per_gpu / (domain - 1)`` to each
      (AMD xGMI: 7 links, one per peer of 8; Gaudi 3: 21 ports, 3 per peer of 8); one link carries
      ``nvlink_gbytes_per_gpu_bidir / links`` and there are no switch chips.

    ``nvlink_generation`` is the NVLink generation (``assets/catalog/nvlink.toml``), 0 for a domain
    that is not NVLink. ``collective_library`` names the library that runs the collectives.
    """

    gpu_name: str
    architecture: str
    vendor: str = "NVIDIA"
    collective_library: CollectiveLibrary = "nccl"
    scaleup_kind: ScaleupKind = "switch"
    scaleup_name: str = "NVLink"
    scaleup_named_domain: bool = Field(default=True, description=(
        "The domain is called after its technology (NVLink domain, HCCS domain); False: a scale-up domain."))
    accelerator_noun: Literal["GPU", "NPU"] = Field(default="GPU", description="What the maker calls the chip.")
    nvlink_generation: int = Field(ge=0, description="NVLink generation; 0 = the scale-up domain is not NVLink.")
    nvlink_links_per_gpu: int = Field(ge=0, description="Scale-up links (or ports) per accelerator.")
    nvlink_gbytes_per_gpu_bidir: float = Field(gt=0, description="Both directions summed [GB/s].")
    nvswitch_chips_per_domain: int = Field(ge=0)
    nvswitch_generation: int = Field(ge=0, description="0 when the domain has no NVSwitch.")
    nvlink_two_level_rack_gpus: int = Field(default=0, ge=0, description=(
        "GPUs of a first-level NVLink domain (rack) when a second NVLink level joins several and the design sets "
        "none: a rack whose own switches keep free ports for the uplinks (GB200/GB300: an NVL36 rack, since an "
        "NVL72 rack's switch trays give every port to its GPUs; assets/catalog/scaleup.toml); 0: the system's own "
        "domain."))
    scaleup_switch_racks: int = Field(default=0, ge=0, description=(
        "Racks per scale-up domain holding only its switches (CloudMatrix 384: 4 unified-bus racks)."))
    gpus_per_node: int = Field(ge=1)
    nvlink_domain_gpus: int = Field(ge=1)
    hbm_gbytes: float = Field(gt=0)
    hbm_tbytes_per_s: float = Field(gt=0, description="HBM bandwidth [TB/s].")
    dense_bf16_tflops: float = Field(gt=0, description="Dense BF16 tensor throughput per GPU [TFLOP/s].")
    dense_fp8_tflops: float = Field(default=0.0, ge=0, description=(
        "Dense FP8 tensor throughput per GPU [TFLOP/s], no sparsity; 0 = no FP8 tensor cores."))
    dense_fp4_tflops: float = Field(default=0.0, ge=0, description=(
        "Dense FP4 (NVFP4/MXFP4) tensor throughput per GPU [TFLOP/s], no sparsity; 0 = no FP4 tensor cores."))
    low_precision_source: str = ""
    gpu_power_w: float = Field(gt=0, description="GPU board power (TGP) [W].")
    node_power_w: float = Field(gt=0, description="Whole node at maximum [W].")
    node_price_usd: float = Field(ge=0, description="Typical price per node [USD].")
    node_price_low_usd: float = Field(ge=0, description="Lowest public price per node found [USD].")
    node_price_high_usd: float = Field(ge=0, description="List price or highest quote per node [USD].")
    price_basis: PriceBasis
    price_source: str
    power_source: str
    node_rack_units: float = Field(gt=0)
    nodes_per_rack: int = Field(ge=1, description="Default nodes per rack (power and cooling limited).")
    default_fabric: Fabric
    default_nic: str
    default_nics_per_node: int = Field(ge=1)
    default_port_speed_gbps: int = Field(gt=0, description="Per direction [Gb/s].")
    node_ports_per_transceiver: int = Field(
        ge=1, description="NIC ports carried by one node-side transceiver (2 for DGX twin-port OSFP cages)."
    )
    nic_pcie_gen: int = Field(default=0, ge=0, le=6, description=(
        "PCIe generation of the host's link to each NIC (core.hostlink); 0 = the NIC is not a PCIe card (ports on "
        "the accelerator) or the link was not captured: not checked."))
    nic_pcie_lanes: int = Field(default=0, ge=0, description="PCIe lanes of the host's link to each NIC.")
    nic_pcie_source: str = Field(default="", description="Where the host's NIC link is stated, with [P]/[S]/[A].")
    nic_pcie_as_of: str = Field(default="", description="ISO date the NIC link was checked.")

    @model_validator(mode="after")
    def _ordered_range(self) -> "System":
        _check_range(self.node_price_low_usd, self.node_price_usd, self.node_price_high_usd)
        return self

    def peak_tflops(self, precision: str) -> float:
        """Dense tensor peak per GPU at ``precision`` (``bf16``, ``fp8``, ``fp4``) [TFLOP/s]; 0 when the GPU has no
        tensor cores for it."""
        return {"bf16": self.dense_bf16_tflops, "fp8": self.dense_fp8_tflops, "fp4": self.dense_fp4_tflops}[precision]

    def price_at(self, basis: str) -> float:
        """Node price at a design ``price_basis`` (street, list, hyperscale) [USD]."""
        return price_point(self.node_price_low_usd, self.node_price_usd, self.node_price_high_usd, basis)

    def nvswitch_chips_for(self, domain_gpus: int) -> int:
        """NVSwitch chips in an NVLink domain of ``domain_gpus`` GPUs: the system's count, scaled
        when the domain differs from the system's (0 when the system has no NVSwitch)."""
        chips = self.nvswitch_chips_per_domain
        if chips and domain_gpus != self.nvlink_domain_gpus:
            chips = max(1, round(chips * domain_gpus / self.nvlink_domain_gpus))
        return chips

    @property
    def nvlink_gbytes_per_gpu_per_direction(self) -> float:
        """Scale-up bandwidth per GPU, one direction [GB/s]."""
        return self.nvlink_gbytes_per_gpu_bidir / 2

    @property
    def scaleup_link_gbytes_per_direction(self) -> float:
        """One scale-up link (or port), one direction [GB/s]: the per-GPU bandwidth over the links
        (0 when the system has no scale-up links)."""
        links = self.nvlink_links_per_gpu
        return self.nvlink_gbytes_per_gpu_per_direction / links if links else 0.0

    @property
    def is_mesh(self) -> bool:
        """True when the scale-up domain is a direct mesh (no switch chips)."""
        return self.scaleup_kind == "mesh"

    @model_validator(mode="after")
    def _domain_is_whole_nodes(self) -> "System":
        if self.nvlink_domain_gpus % self.gpus_per_node and self.nvlink_domain_gpus > self.gpus_per_node:
            raise ValueError(_("nvlink_domain_gpus must be a multiple of gpus_per_node"))
        if self.is_mesh and (self.nvswitch_chips_per_domain or self.nvlink_domain_gpus - 1 > self.nvlink_links_per_gpu):
            raise ValueError(_("a mesh scale-up domain has no switch chips and at least one link to every peer"))
        return self


class Nic(_Priced):
    """A network adapter (NIC, SuperNIC or DPU)."""

    fabrics: tuple[Fabric, ...]
    port_speeds_gbps: tuple[int, ...] = Field(description="Supported speeds per port, per direction [Gb/s].")
    ethernet_port_speeds_gbps: tuple[int, ...] = Field(
        default=(), description="Speeds on Ethernet when they differ from port_speeds_gbps [Gb/s]."
    )
    ports: int = Field(ge=1, description="Physical ports (cages).")
    cage_type: str = Field(default="", description="Cage form factor, e.g. OSFP, QSFP112, QSFP56.")
    split_ports: int = Field(
        default=1, ge=1, description="On Ethernet, logical ports one cage splits into (ConnectX-8: 2 x 400GbE)."
    )
    host_interface: str
    pcie_gen: int = Field(default=0, ge=0, le=6, description=(
        "PCIe generation of ``host_interface`` (core.hostlink); 0 = not a PCIe card or not captured."))
    pcie_lanes: int = Field(default=0, ge=0, description=(
        "Most PCIe lanes the NIC takes from hosts (32 for a Socket Direct x16 + x16)."))
    vendor: Maker
    ultra_ethernet: bool = Field(default=False, description="The maker states Ultra Ethernet (UEC 1.0) support.")
    transport: CloudTransport | None = Field(default=None, description=(
        "A cloud instance's adapter: the provider's transport. Its fabric belongs to the provider (not bought: no "
        "switch, NIC, transceiver or cable in the BOM) and the collective model uses that transport's fabric "
        "class. None: a NIC you buy, on the design's fabric."))

    def speeds_on(self, fabric: str) -> tuple[int, ...]:
        """Port speeds offered on ``fabric``, per direction [Gb/s]."""
        if fabric == "ethernet" and self.ethernet_port_speeds_gbps:
            return self.ethernet_port_speeds_gbps
        return self.port_speeds_gbps

    def logical_ports(self, speed_gbps: int, fabric: str) -> int:
        """Logical ports at ``speed_gbps`` [Gb/s] on ``fabric``: cages x splits that fit the cage bandwidth.

        Each logical port can reach a different plane; 0 if the speed is not offered.
        """
        if speed_gbps not in self.speeds_on(fabric):
            return 0
        if fabric != "ethernet":
            return self.ports
        cage_gbps = max(self.port_speeds_gbps)
        return self.ports * max(1, min(self.split_ports, cage_gbps // speed_gbps))


class PortMode(BaseModel):
    """A switch's port count at one per-direction port speed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    speed_gbps: int = Field(gt=0, description="Per direction [Gb/s].")
    ports: int = Field(ge=1)


class Switch(_Priced):
    """A network switch with its port modes (speed -> port count)."""

    fabric: Fabric
    generation: str
    asic: str
    role: Literal["fabric", "management"] = "fabric"
    port_modes: tuple[PortMode, ...]
    cages: int = Field(ge=1, description="Physical cages (OSFP/QSFP); transceivers plug into cages.")
    cage_type: str
    capacity_tbps: float = Field(gt=0, description="Switching capacity, one direction summed over ports [Tb/s].")
    rack_units: float = Field(gt=0)
    vendor: Maker
    ultra_ethernet: bool = Field(default=False, description="The maker states Ultra Ethernet (UEC 1.0) support.")
    default_grid: bool = Field(default=True, description=(
        "Tried by the optimizer when no switch model or maker is asked; a maker's build of a chip the grid already "
        "has (a Tomahawk 5 box from H3C or Ruijie) joins when its maker or model is asked."))

    def ports_at(self, speed_gbps: int) -> int | None:
        """Port count at ``speed_gbps`` [Gb/s], or None if the speed is not offered."""
        for mode in self.port_modes:
            if mode.speed_gbps == speed_gbps:
                return mode.ports
        return None

    def ports_per_cage(self, speed_gbps: int) -> int:
        """Logical ports one cage (and so one switch-side transceiver) carries at ``speed_gbps``."""
        ports = self.ports_at(speed_gbps)
        if ports is None:
            raise ValueError(_("{switch} has no {speed}G mode").format(switch=self.id, speed=speed_gbps))
        return max(1, ports // self.cages)

    @property
    def speeds_gbps(self) -> tuple[int, ...]:
        return tuple(sorted(m.speed_gbps for m in self.port_modes))


class Transceiver(_Priced):
    """A pluggable optical transceiver. ``logical_ports`` links ride on one module."""

    form_factor: str
    fabrics: tuple[Fabric, ...]
    logical_ports: int = Field(ge=1)
    port_speed_gbps: int = Field(gt=0, description="Per logical port, per direction [Gb/s].")
    media: Literal["smf", "mmf"]
    connector: Literal["mpo", "lc"] = Field(default="mpo", description="Fibre connector (MPO for DR/SR, LC for FR).")
    reach_m: float = Field(gt=0)
    end: Literal["switch", "node", "any"]
    vendor: str = Field(default="Generic", description=(
        "Maker whose part number this is (NVIDIA for its coded modules); Generic = a class any maker sells."))


def form_factor_family(text: str) -> str:
    """First word of a cage or module form factor ("OSFP twin-port (finned)" -> "OSFP")."""
    return text.split()[0].upper() if text.strip() else ""


class Cable(_Priced):
    """A cable: copper (DAC passive, ACC active), active optical (AOC) or fibre patch."""

    kind: Literal["dac", "acc", "aoc", "fiber", "utp"]
    media: Literal["smf", "mmf", "copper", "aoc"] = Field(description="smf/mmf for fibre cords.")
    connector: Literal["mpo", "lc", "integrated"] = "integrated"
    fabrics: tuple[Fabric, ...]
    speed_gbps: int = Field(gt=0, description="Per link, per direction [Gb/s]; for fibre, the fastest link it is rated for.")
    reach_m: float = Field(gt=0)
    form_factor: str = Field("", description="Plug of a cable with integrated ends (QSFP28, QSFP56, OSFP); empty "
                             "where the catalog entry stands for plugs of several (``core.physical.media.cable_fits``).")


class Appliance(_Priced):
    """An end device of the storage and management networks (``assets/catalog/networks.toml``): a
    storage system, a UFM appliance, a management (head) node or user (NFS) storage.

    Ports per unit: ``fabric_ports`` at ``fabric_port_speed_gbps`` [Gb/s, per direction] on its
    InfiniBand or Ethernet fabric (storage systems: the storage fabric; UFM: the fabric it manages),
    ``inband_ports`` on the in-band management network, ``oob_ports`` 1GbE on the out-of-band one.
    """

    kind: Literal["storage", "ufm", "head", "nfs"]
    vendor: Maker
    rack_units: float = Field(gt=0)
    fabric_ports: int = Field(default=0, ge=0)
    fabric_port_speed_gbps: int = Field(default=0, ge=0, description="Per direction [Gb/s].")
    inband_ports: int = Field(default=0, ge=0)
    oob_ports: int = Field(default=0, ge=0)


KNOWN_LISTED = 12
"""Most catalog ids an unknown-model message lists (the closest to what was typed first)."""


def _known_ids(ids: list[str], key: str) -> str:
    """The ids an unknown-model message offers: all of them when few, else the ``KNOWN_LISTED`` closest to ``key``
    first and how many more (the Catalog page and ``python -m core catalog`` list them all)."""
    if len(ids) <= KNOWN_LISTED:
        return ", ".join(ids)
    close = difflib.get_close_matches(key.strip().upper(), [i.upper() for i in ids], n=3, cutoff=0.5)
    first = [i for i in ids if i.upper() in close]
    listed = (first + [i for i in ids if i not in first])[:KNOWN_LISTED]
    return ", ".join(listed) + _(" and {more} more").format(
        more=len(ids) - len(listed))


class Catalog(BaseModel):
    """The whole catalog, indexed by kind."""

    model_config = ConfigDict(frozen=True)

    nvlink: tuple[NvlinkGeneration, ...]
    systems: tuple[System, ...]
    nics: tuple[Nic, ...]
    switches: tuple[Switch, ...]
    transceivers: tuple[Transceiver, ...]
    cables: tuple[Cable, ...]
    appliances: tuple[Appliance, ...] = ()
    # Look-up index per kind: (the kind's tuple it was built from, folded id/alias -> entry). Rebuilt
    # when the tuple is not the same object (a copy with other entries), so it never goes stale.
    _index: dict = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _unique_ids(self) -> "Catalog":
        seen: dict[str, str] = {}
        for kind in ("systems", "nics", "switches", "transceivers", "cables", "appliances"):
            for entry in getattr(self, kind):
                for key in (entry.id, *entry.aliases):
                    folded = key.casefold()
                    if folded in seen:
                        raise ValueError(_("duplicate catalog id {key} in {kind} and {other}").format(
                            key=repr(key), kind=kind, other=seen[folded]))
                    seen[folded] = kind
        return self

    def __hash__(self) -> int:
        """Of the switch count (equal catalogs hash alike; equality compares every entry): the engine's cached
        stages take the catalog as an argument (``core.memo.stage``), and hashing every entry would cost more
        than they save."""
        return hash(len(self.switches))

    # --- look-ups -------------------------------------------------------------
    def _find(self, kind: str, key: str):
        entries = getattr(self, kind)
        index = self.__pydantic_private__["_index"]  # (not self._index: pydantic's slow private-attribute path)
        built = index.get(kind)
        if built is None or built[0] is not entries:
            table: dict = {}
            for entry in entries:  # first match wins, as a scan in order would (ids are unique anyway)
                for name in (entry.id, *entry.aliases):
                    table.setdefault(name.casefold(), entry)
            built = index[kind] = (entries, table)
        entry = built[1].get(key.strip().casefold())
        if entry is not None:
            return entry
        raise InputError(_(_UNKNOWN_MODEL[kind]).format(key=shown(key), known=_known_ids(
            [e.id for e in getattr(self, kind)], key)))

    def system(self, key: str) -> System:
        return self._find("systems", key)

    def nic(self, key: str) -> Nic:
        return self._find("nics", key)

    def switch(self, key: str) -> Switch:
        return self._find("switches", key)

    def transceiver(self, key: str) -> Transceiver:
        return self._find("transceivers", key)

    def cable(self, key: str) -> Cable:
        return self._find("cables", key)

    def appliance(self, key: str) -> Appliance:
        return self._find("appliances", key)

    def nvlink_generation(self, generation: int) -> NvlinkGeneration:
        for entry in self.nvlink:
            if entry.generation == generation:
                return entry
        known = ", ".join(str(e.generation) for e in self.nvlink)
        raise InputError(_("unknown NVLink generation {generation}; known: {known}").format(
            generation=generation, known=known))

    def fabric_switches(self, fabric: str, speed_gbps: int | None = None) -> list[Switch]:
        """Fabric-role switches of ``fabric`` that offer ``speed_gbps`` (any speed if None)."""
        return [
            s
            for s in self.switches
            if s.fabric == fabric and s.role == "fabric" and (speed_gbps is None or s.ports_at(speed_gbps))
        ]

    def canonical_id(self, key: str) -> str | None:
        """The catalog id of any entry whose id or alias is ``key`` (case-insensitive), else None."""
        folded = key.strip().casefold()
        for _kind, entry in self.all_entries():
            if folded == entry.id.casefold() or folded in (a.casefold() for a in entry.aliases):
                return entry.id
        return None

    def all_entries(self):
        """Yield ``(kind, entry)`` for every priced or sourced entry."""
        for kind in ("systems", "nics", "switches", "transceivers", "cables", "appliances"):
            for entry in getattr(self, kind):
                yield kind, entry


_FILES = {
    "nvlink": ("nvlink.toml", "generation"),
    "systems": ("systems.toml", "system"),
    "nics": ("nics.toml", "nic"),
    "switches": ("switches.toml", "switch"),
    "transceivers": ("optics.toml", "transceiver"),
    "cables": ("optics.toml", "cable"),
    "appliances": ("networks.toml", "appliance"),
}


def read_toml(path: Path, what: str) -> dict:
    """Parse a TOML data file; ``InputError`` says which ``what`` is missing or malformed.

    ``what`` names the file in English, marked with ``N_()`` by the caller (``N_("catalog file")``);
    the message shows it translated.
    """
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as exc:
        raise InputError(_("{what} missing: {path}").format(what=_(what), path=path)) from exc
    except tomllib.TOMLDecodeError as exc:
        raise InputError(_("{what} {file} is not valid TOML: {error}").format(
            what=_(what), file=path.name, error=exc)) from exc


def load_catalog_from(directory: Path) -> Catalog:
    """Load and validate every catalog file under ``directory``.

    Raises
    ------
    InputError
        A file is missing, is not valid TOML, or an entry fails validation; the
        message names the file and the field.
    """
    data: dict[str, list] = {}
    for kind, (filename, table) in _FILES.items():
        data[kind] = read_toml(directory / filename, N_("catalog file")).get(table, [])
    try:
        return Catalog.model_validate(data)
    except ValueError as exc:
        raise InputError(_("catalog under {directory} is invalid: {error}").format(
            directory=directory, error=exc)) from exc


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The bundled catalog (cached; the returned object is immutable)."""
    return load_catalog_from(CATALOG_DIR)
