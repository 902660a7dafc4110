"""The design: what the user asks for, as a frozen, validated pydantic model.

A ``Design`` holds only the user's choices; ``None`` means "take the default
from the catalog" (e.g. the GPU system's NIC count). ``resolve_design`` turns
it into a ``ResolvedDesign`` where every value is concrete and checked against
the catalog.
"""

from __future__ import annotations

import json
import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from core.catalog import Catalog, Nic, Switch, System, load_catalog
from core.errors import DesignError, InputError

Topology = Literal["rail-optimized", "top-of-rack"]
FabricKind = Literal["infiniband", "ethernet"]
Tiers = Literal["auto", 1, 2, 3]
CableMedia = Literal["auto", "copper", "aoc", "optics"]

MAX_GPUS = 1_000_000


class Design(BaseModel):
    """A cluster design as the user states it.

    Parameters
    ----------
    gpu : str
        GPU/system model id from the catalog (case-insensitive), e.g. ``"H100"``.
    nodes : int, optional
        Number of nodes (servers, or NVL72 compute trays). Set this or ``gpus``.
    gpus : int, optional
        Total GPU count; sets ``nodes = ceil(gpus / gpus_per_node)``.
    gpus_per_node : int, optional
        GPUs per node; default from the system.
    nvlink_generation : int, optional
        NVLink generation; default from the GPU.
    nvlink_domain_gpus : int, optional
        GPUs in one NVLink domain (8 for HGX, 72 for NVL72); default from the system.
    fabric : {"infiniband", "ethernet"}, optional
        Scale-out fabric; default from the system.
    port_speed_gbps : int, optional
        NIC and switch port speed, per direction [Gb/s].
    nics_per_node : int, optional
        Scale-out NICs per node, i.e. rails.
    planes : int
        Independent parallel fabrics; every NIC has one port in each plane.
    switch : str, optional
        Fabric switch model id; default: the catalog's first switch of the
        fabric that offers the port speed (catalog order is preference order).
    topology : {"rail-optimized", "top-of-rack"}
        Rail-optimized: NIC *i* of every node in a scalable unit goes to leaf *i*.
        Top-of-rack: all NICs of a node go to its rack's leaf.
    nodes_per_rack : int, optional
        Nodes per rack; default from the system.
    oversubscription : float
        Leaf down:up port ratio (>= 1; 1 is non-blocking).
    spine_oversubscription : float
        Spine down:up ratio in three-tier fabrics (>= 1).
    tiers : {"auto", 1, 2, 3}
        Switch tiers; ``auto`` picks the fewest that fit.
    cable_media : {"auto", "copper", "aoc", "optics"}
        ``auto`` uses copper within a rack and optics elsewhere.
    pue : float
        Power usage effectiveness (facility power / IT power, >= 1).
    electricity_usd_per_kwh : float
        Electricity price [USD/kWh].
    tco_years : float
        Years of operation for the total cost of ownership [years].
    price_overrides : dict of str to float
        Catalog id -> unit price [USD], replacing the catalog estimate.
    power_overrides : dict of str to float
        Catalog id -> unit power [W].
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    gpu: str = "H100"
    nodes: int | None = Field(default=None, ge=1, le=MAX_GPUS)
    gpus: int | None = Field(default=None, ge=1, le=MAX_GPUS)
    gpus_per_node: int | None = Field(default=None, ge=1, le=72)
    nvlink_generation: int | None = Field(default=None, ge=1, le=6)
    nvlink_domain_gpus: int | None = Field(default=None, ge=1, le=576)
    fabric: FabricKind | None = None
    port_speed_gbps: int | None = Field(default=None, gt=0)
    nics_per_node: int | None = Field(default=None, ge=1, le=16)
    planes: int = Field(default=1, ge=1, le=8)
    switch: str | None = None
    topology: Topology = "rail-optimized"
    nodes_per_rack: int | None = Field(default=None, ge=1, le=72)
    oversubscription: float = Field(default=1.0, ge=1.0, le=16.0)
    spine_oversubscription: float = Field(default=1.0, ge=1.0, le=16.0)
    tiers: Tiers = "auto"
    cable_media: CableMedia = "auto"
    pue: float = Field(default=1.3, ge=1.0, le=3.0)
    electricity_usd_per_kwh: float = Field(default=0.10, ge=0.0, le=2.0)
    tco_years: float = Field(default=5.0, gt=0.0, le=30.0)
    price_overrides: dict[str, float] = Field(default_factory=dict)
    power_overrides: dict[str, float] = Field(default_factory=dict)

    @field_validator("price_overrides", "power_overrides")
    @classmethod
    def _non_negative(cls, value: dict[str, float]) -> dict[str, float]:
        for key, number in value.items():
            if not math.isfinite(number) or number < 0:
                raise ValueError(f"override for {key!r} must be a finite number >= 0, got {number}")
        return value

    @field_validator("tiers", mode="before")
    @classmethod
    def _tiers_from_text(cls, value):
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
        return value

    @model_validator(mode="after")
    def _size_given(self) -> "Design":
        if self.nodes is not None and self.gpus is not None:
            raise ValueError("give nodes or gpus, not both")
        if self.nodes is None and self.gpus is None:
            object.__setattr__(self, "nodes", 4)
        return self

    # --- JSON round trip ------------------------------------------------------
    def to_json(self) -> str:
        """The design as JSON, only the fields that differ from the defaults."""
        return json.dumps(self.model_dump(mode="json", exclude_defaults=True), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Design":
        """Parse a design from JSON; raise ``InputError`` with a readable message."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"design file is not valid JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise InputError("design file must hold a JSON object")
        return parse_design(data)


def parse_design(data: dict) -> Design:
    """Validate a mapping into a ``Design``, turning pydantic errors into one readable ``InputError``."""
    try:
        return Design.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc)) from exc


def describe_validation_error(exc: ValidationError) -> str:
    """One line per problem: ``field: message (got value)``."""
    parts = []
    for error in exc.errors():
        field = ".".join(str(p) for p in error["loc"]) or "design"
        got = error.get("input")
        shown = "" if isinstance(got, dict) else f" (got {got!r})"
        parts.append(f"{field}: {error['msg']}{shown}")
    return "; ".join(parts)


class ResolvedDesign(BaseModel):
    """A design with every default filled in from the catalog and checked."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    design: Design
    system: System
    nic: Nic
    switch: Switch
    nodes: int
    gpus: int
    gpus_per_node: int
    nvlink_generation: int
    nvlink_domain_gpus: int
    nvlink_gbytes_per_gpu_bidir: float
    fabric: FabricKind
    port_speed_gbps: int
    nics_per_node: int
    planes: int
    switch_ports: int
    topology: Topology
    nodes_per_rack: int
    notes: tuple[str, ...] = ()
    """Adjustments made while resolving (rounded node counts, speed limits), in words."""

    @property
    def rails(self) -> int:
        return self.nics_per_node

    @property
    def endpoints_per_plane(self) -> int:
        """NIC ports attached to one plane (one per NIC per node)."""
        return self.nodes * self.nics_per_node


def offered_port_speeds(catalog: Catalog, fabric: str) -> list[int]:
    """Port speeds [Gb/s] the engine can build on ``fabric``, ascending.

    A speed is offered when some NIC runs it on that fabric (``Nic.speeds_on``:
    ConnectX-8 runs 800G on InfiniBand but 2 x 400GbE on Ethernet) and some
    fabric switch of that fabric has a port mode at it. The web UI's port-speed
    list and the share-link check (``core.sharelink``) both use this rule.
    """
    switch_speeds = {m.speed_gbps for s in catalog.fabric_switches(fabric) for m in s.port_modes}
    nic_speeds = {sp for n in catalog.nics if fabric in n.fabrics for sp in n.speeds_on(fabric)}
    return sorted(switch_speeds & nic_speeds)


def default_switch(catalog: Catalog, fabric: str, speed_gbps: int, nic: Nic | None = None) -> Switch:
    """The default fabric switch for ``fabric`` at ``speed_gbps`` [Gb/s].

    On InfiniBand, prefers the switch of the NIC's generation (same top
    speed: ConnectX-6 and QM8700 at 200G, ConnectX-7 and QM9700 at 400G,
    ConnectX-8 and Q3400 at 800G; an EDR HCA does not link with an HDR100
    port). Otherwise catalog order: the catalog lists switches in the order a
    vendor reference design would pick them (SN5600 split to 2 x 400GbE is
    NVIDIA's Spectrum-X choice for 400G GPUs).
    """
    candidates = catalog.fabric_switches(fabric, speed_gbps)
    if not candidates:
        speeds = sorted({m.speed_gbps for s in catalog.fabric_switches(fabric) for m in s.port_modes})
        raise InputError(
            f"no {fabric} switch in the catalog offers {speed_gbps} Gb/s ports; offered speeds: "
            + ", ".join(f"{s}" for s in speeds)
        )
    if nic is not None and fabric == "infiniband":  # IB signalling ties HCA and switch generations
        top = max(nic.port_speeds_gbps)
        same_generation = [s for s in candidates if max(s.speeds_gbps) == top]
        if same_generation:
            return same_generation[0]
    return candidates[0]


def resolve_design(design: Design, catalog: Catalog | None = None) -> ResolvedDesign:
    """Fill every default from the catalog and check that the pieces fit together.

    Raises
    ------
    InputError
        An unknown model or a combination the hardware does not offer
        (e.g. a switch without the chosen port speed).
    DesignError
        A combination that cannot be built (e.g. more planes than the NIC has ports).
    """
    catalog = catalog or load_catalog()
    system = catalog.system(design.gpu)
    notes: list[str] = []
    gpus_per_node = design.gpus_per_node or system.gpus_per_node
    if design.gpus is not None:
        nodes = math.ceil(design.gpus / gpus_per_node)
    else:
        nodes = design.nodes  # set by the validator
    assert nodes is not None

    nvlink_generation = design.nvlink_generation or system.nvlink_generation
    generation = catalog.nvlink_generation(nvlink_generation)
    if nvlink_generation == system.nvlink_generation:
        nvlink_bidir = system.nvlink_gbytes_per_gpu_bidir
    else:
        links = min(system.nvlink_links_per_gpu or generation.max_links_per_gpu, generation.max_links_per_gpu)
        nvlink_bidir = links * generation.link_gbytes_bidir
    domain = design.nvlink_domain_gpus or (
        system.nvlink_domain_gpus if design.gpus_per_node in (None, system.gpus_per_node) else gpus_per_node
    )
    if domain < gpus_per_node and domain != 1:
        raise InputError(
            f"nvlink_domain_gpus ({domain}) must be 1 or at least gpus_per_node ({gpus_per_node})"
        )
    if domain > gpus_per_node and domain % gpus_per_node:
        raise InputError(f"nvlink_domain_gpus ({domain}) must be a multiple of gpus_per_node ({gpus_per_node})")
    nodes_per_domain = max(1, domain // gpus_per_node)
    if nodes % nodes_per_domain:
        whole = math.ceil(nodes / nodes_per_domain) * nodes_per_domain
        notes.append(
            f"{nodes} nodes rounded up to {whole}: an NVLink domain of {domain} GPUs comes as a whole rack "
            f"of {nodes_per_domain} nodes (NVLink switch trays, power shelves)."
        )
        nodes = whole
    gpus = nodes * gpus_per_node
    if gpus > MAX_GPUS:
        raise InputError(f"at most {MAX_GPUS:,} GPUs are supported (asked for {gpus:,})")

    fabric = design.fabric or system.default_fabric
    nic = catalog.nic(system.default_nic)
    if fabric not in nic.fabrics:
        fitting = [n for n in catalog.nics if fabric in n.fabrics]
        nic = max(fitting, key=lambda n: max(n.speeds_on(fabric)))
    port_speed = design.port_speed_gbps or system.default_port_speed_gbps
    if design.port_speed_gbps is None and port_speed not in nic.speeds_on(fabric):
        port_speed = max(nic.speeds_on(fabric))
        notes.append(
            f"{nic.id} runs at most {port_speed} Gb/s per port on {fabric}; "
            f"{system.id}'s {system.default_port_speed_gbps} Gb/s needs "
            f"{system.default_port_speed_gbps // port_speed} planes at {port_speed} Gb/s."
        )
    if port_speed not in nic.speeds_on(fabric):
        fitting = [n for n in catalog.nics if fabric in n.fabrics and port_speed in n.speeds_on(fabric)]
        if not fitting:
            speeds = sorted({s for n in catalog.nics if fabric in n.fabrics for s in n.speeds_on(fabric)})
            raise InputError(
                f"no {fabric} NIC in the catalog runs at {port_speed} Gb/s; offered: {', '.join(map(str, speeds))}"
            )
        nic = min(fitting, key=lambda n: (max(n.speeds_on(fabric)), n.price_usd))

    if design.switch:
        switch = catalog.switch(design.switch)
        if switch.fabric != fabric:
            raise InputError(f"switch {switch.id} is {switch.fabric}, but the fabric is {fabric}")
        if switch.role != "fabric":
            raise InputError(f"switch {switch.id} is a {switch.role} switch, not a fabric switch")
        if switch.ports_at(port_speed) is None:
            raise InputError(
                f"switch {switch.id} has no {port_speed} Gb/s port mode; it offers "
                + ", ".join(f"{m.ports}x{m.speed_gbps}G" for m in switch.port_modes)
            )
    else:
        switch = default_switch(catalog, fabric, port_speed, nic)
    switch_ports = switch.ports_at(port_speed)
    assert switch_ports is not None

    nics_per_node = design.nics_per_node or system.default_nics_per_node
    if design.gpus_per_node and not design.nics_per_node and system.default_nics_per_node == system.gpus_per_node:
        nics_per_node = gpus_per_node  # keep one NIC per GPU when the user changes GPUs per node
    nodes_per_rack = design.nodes_per_rack or system.nodes_per_rack
    if nodes_per_domain > 1 and nodes_per_rack % nodes_per_domain and design.nodes_per_rack is None:
        nodes_per_rack = nodes_per_domain

    ports_per_nic = nic.logical_ports(port_speed, fabric)
    if design.planes > ports_per_nic:
        raise DesignError(
            f"{nic.id} has {ports_per_nic} port(s) at {port_speed} Gb/s, so each rail reaches at most "
            f"{ports_per_nic} plane(s), not {design.planes}.",
            "Choose fewer planes, or a NIC and port speed with more ports (ConnectX-8 runs 2 x 400G).",
        )

    return ResolvedDesign(
        design=design,
        system=system,
        nic=nic,
        switch=switch,
        nodes=nodes,
        gpus=gpus,
        gpus_per_node=gpus_per_node,
        nvlink_generation=nvlink_generation,
        nvlink_domain_gpus=domain,
        nvlink_gbytes_per_gpu_bidir=nvlink_bidir,
        fabric=fabric,
        port_speed_gbps=port_speed,
        nics_per_node=nics_per_node,
        planes=design.planes,
        switch_ports=switch_ports,
        topology=design.topology,
        nodes_per_rack=nodes_per_rack,
        notes=tuple(notes),
    )
