"""The constants of the collective and training models, read from ``assets/catalog/collectives.toml``.

Every value there carries its source (NCCL ``src/graph/tuning.cc``, maintainer statements,
published nccl-tests runs); this module only validates the file (pydantic, ``extra="forbid"``)
and answers look-ups (protocol, NVLink and NVLS efficiency, fabric, SHARP capability).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from core.catalog import CATALOG_DIR, CloudTransport, Fabric, read_toml
from core.errors import InputError, shown
from core.i18n import _

PROTOCOLS: tuple[str, ...] = ("LL", "LL128", "Simple")
CONSTANTS_FILE = CATALOG_DIR / "collectives.toml"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ProtocolConstants(_Strict):
    name: Literal["LL", "LL128", "Simple"]
    ring_base_latency_us: float = Field(ge=0)
    tree_base_latency_us: float = Field(ge=0)
    ring_nvlink_step_us: float = Field(ge=0)
    tree_nvlink_step_us: float = Field(ge=0)
    ring_net_step_us: float = Field(ge=0)
    tree_net_step_us: float = Field(ge=0)
    ring_bw_factor: float = Field(gt=0, le=1)
    tree_bw_factor: float = Field(gt=0, le=1)
    tree_bw_factor_two_domains: float | None = Field(default=None, gt=0, le=2)
    """The tree factor on exactly 2 domains when it differs (RCCL's bwRatio rows: 2 nodes / more)."""
    source: str


class AlgorithmConstants(_Strict):
    tree_bw_factor: float = Field(gt=0, le=1)
    tree_source: str
    nvls_nvlink_latency_us: float = Field(ge=0)
    nvls_net_latency_us: float = Field(ge=0)
    nvls_tree_net_latency_us: float = Field(ge=0)
    nvls_source: str
    collnet_nvlink_latency_us: float = Field(ge=0)
    collnet_net_latency_us: float = Field(ge=0)
    collnet_efficiency: float = Field(gt=0, le=1)
    collnet_efficiency_min_compute_capability: float = Field(ge=0)
    collnet_source: str
    ring_fill_us_per_step: float = Field(ge=0)
    ring_fill_source: str
    ring_net_overhead_us: float = Field(ge=0)
    ring_net_overhead_simple_factor: float = Field(ge=1)
    ring_net_overhead_source: str
    nvls_fill_us: float = Field(ge=0)
    nvls_fill_source: str
    alltoall_peer_latency_us: float = Field(ge=0)
    alltoall_base_latency_us: float = Field(ge=0)
    alltoall_source: str
    pat_base_latency_us: float = Field(ge=0)
    pat_log_latency_divisor: float = Field(gt=0)
    pat_rank_latency_us: float = Field(ge=0)
    pat_bw_factor: float = Field(gt=0, le=1)
    pat_source: str
    alltoall_pxn: bool
    alltoall_pxn_note: str
    nvls_large_domain_gpus: int = Field(ge=2)
    nvls_large_domain_efficiency: float = Field(gt=0, le=1)
    nvls_large_domain_source: str
    nvls_fill_scaling: Literal["sqrt", "none"]
    nvls_fill_scaling_source: str
    nvls_tree_extra_transfers: float = Field(ge=0)
    nvls_tree_source: str


class ChannelConstants(_Strict):
    """How many channels NCCL's tree uses (src/graph/search.cc) and its channel limit."""

    max_channels: int = Field(ge=1)
    dup_min_gbytes: float = Field(gt=0)
    dup_skip_min_compute_capability: float = Field(ge=0)
    dup_skip_below_gbytes: float = Field(gt=0)
    dup_skip_min_channels: int = Field(ge=1)
    ll_max_multi_node: tuple[float, float]
    """NCCL's llMaxBws for 2 and for more nodes [GB/s of busbw]."""
    source: str


class ChannelCap(_Strict):
    """NCCL's per-channel busbw caps for one GPU architecture, by node count (1, 2, more) [GB/s]."""

    name: str
    compute_capability: float = Field(gt=0)
    tree: tuple[float, float, float]
    nvls_tree: tuple[float, float, float]
    ll_max_single_node: float = Field(gt=0)
    """NCCL's llMaxBws on one node [GB/s of busbw]."""
    nvls_channels: int = Field(ge=0)
    nccl_from: str = "0.0.0"
    """First NCCL release whose tuning.cc has these values (inclusive)."""
    nccl_before: str | None = None
    """First NCCL release that changed them (exclusive; None = still current)."""
    source: str


class LibraryConstants(_Strict):
    """One collective library as an algorithm set over the shared placement model (``core.perf.libraries``).

    ``algorithms``: what a stock run of the library chooses from (``core.perf.algorithms.REGISTRY`` keys);
    ``protocol``: its own protocol rows when they differ from NCCL's (their names say which protocols it runs);
    ``scaleup_efficiency``: achieved / line rate of the scale-up link (replaces the NVLink efficiencies);
    ``nccl_caps``: NCCL's per-channel caps (perChMaxTreeBws, llMaxBws) apply; ``step_us`` / ``net_step_us`` /
    ``base_latency_us``: per-step latencies of the mesh and hierarchical (HCCL-style) algorithms [us];
    ``validated``: where published measurements back it (``all``, ``single-domain`` or ``none``).
    """

    name: str
    label: str
    test_tool: str = "nccl-tests"
    """The library's own benchmark, whose table a measurement comes as (nccl-tests, rccl-tests, hccl_test)."""
    algorithms: tuple[str, ...] = ()
    """Empty: the registry's stock NCCL set (``core.perf.algorithms.NCCL_DEFAULT``)."""
    protocol: tuple[ProtocolConstants, ...] = ()
    tree_bw_factor: float | None = Field(default=None, gt=0, le=1)
    ring_fill_us_per_step: float | None = Field(default=None, ge=0)
    scaleup_efficiency: float | None = Field(default=None, gt=0, le=1)
    nccl_caps: bool = True
    base_latency_us: float = Field(default=0.0, ge=0)
    step_us: float = Field(default=0.0, ge=0)
    net_step_us: float = Field(default=0.0, ge=0)
    validated: Literal["all", "single-domain", "none"] = "none"
    source: str


class NcclConstants(_Strict):
    """The NCCL release the model follows by default, and the releases whose behaviour differs."""

    default_version: str
    """The current stock release (the sweep's default ``nccl_version``)."""
    oldest_version: str
    """The oldest release accepted; older ones are refused (their tables were not checked)."""
    blackwell_nvls_tree_fixed: str
    """First release whose NVLS-tree is fast on Blackwell beyond ``blackwell_nvls_tree_slow_domains`` - 1 domains."""
    blackwell_nvls_tree_slow_domains: int = Field(ge=2)
    """From this many NVLink domains on, NVLS-tree on Blackwell before ``blackwell_nvls_tree_fixed`` was slow."""
    releases: tuple[str, ...] = Field(min_length=1)
    """Releases a page offers, the default first (each must lie in oldest_version .. default_version)."""
    source: str


class NvlinkEfficiency(_Strict):
    generation: int = Field(ge=1)
    efficiency: float = Field(gt=0, le=1)
    source: str


class NvlsEfficiency(_Strict):
    nvswitch_generation: int = Field(ge=1)
    efficiency: float = Field(gt=0, le=1)
    source: str


class FabricConstants(_Strict):
    """One fabric class: a fabric kind (``core.catalog.Fabric``) or a cloud transport (``CloudTransport``)."""

    kind: Fabric | CloudTransport
    nic_efficiency: float = Field(gt=0, le=1)
    """Achieved bytes per NIC port over its line rate, one direction, for NCCL traffic."""
    switch_hop_latency_us: float = Field(ge=0)
    transport_latency_us: float = Field(default=0.0, ge=0)
    """Latency the transport adds to every network step of a collective beyond InfiniBand verbs [us] (a cloud
    transport's software path: SRD through the EFA provider, TCP through the GPUDirect-TCPX(O) plugin)."""
    source: str


class SharpCapability(_Strict):
    switch: str
    version: str
    nccl_collnet: bool = True
    """NCCL can use it through the SHARP plugin (CollNet); SHARPv1 cannot (Quantum HDR and later only)."""
    source: str


class ArchitectureConstants(_Strict):
    name: str
    compute_capability: float = Field(gt=0)
    source: str


class PcieConstants(_Strict):
    gbytes_per_direction: float = Field(gt=0)
    source: str


class TrainingConstants(_Strict):
    compute_efficiency: float = Field(gt=0, le=1)
    compute_efficiency_source: str
    fp8_compute_efficiency: float = Field(gt=0, le=1)
    fp8_compute_efficiency_source: str
    moe_compute_efficiency: float = Field(gt=0, le=1)
    moe_compute_efficiency_source: str
    tp_overlap: float = Field(ge=0, le=1)
    pp_overlap: float = Field(ge=0, le=1)
    dp_overlap: float = Field(ge=0, le=1)
    cp_overlap: float = Field(ge=0, le=1)
    ep_overlap: float = Field(ge=0, le=1)
    overlap_source: str
    weight_bytes_per_param: float = Field(gt=0)
    grad_bytes_per_param: float = Field(gt=0)
    optimizer_bytes_per_param: float = Field(ge=0)
    bytes_per_param_source: str
    activation_bytes_per_token_hidden: float = Field(gt=0)
    activation_source: str
    memory_reserve_fraction: float = Field(ge=0, lt=1)
    memory_reserve_source: str


class ReferencePoint(_Strict):
    """Published nccl-tests measurements for one system, GPU count and collective."""

    system: str
    gpus: int = Field(ge=2)
    op: Literal["all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast"]
    points: tuple[tuple[float, float], ...] = Field(description="(bytes, busbw GB/s) pairs")
    algorithm: str
    label: str
    source: str
    nics_per_node: int | None = None


class Meta(_Strict):
    as_of: str
    busbw_source: str


class CollectiveConstants(_Strict):
    """Everything in ``assets/catalog/collectives.toml``."""

    meta: Meta
    protocol: tuple[ProtocolConstants, ...]
    algorithms: AlgorithmConstants
    nvlink: tuple[NvlinkEfficiency, ...]
    nvls: tuple[NvlsEfficiency, ...]
    fabric: tuple[FabricConstants, ...]
    sharp: tuple[SharpCapability, ...]
    architecture: tuple[ArchitectureConstants, ...]
    pcie: PcieConstants
    training: TrainingConstants
    channels: ChannelConstants
    channel_cap: tuple[ChannelCap, ...]
    nccl: NcclConstants
    reference: tuple[ReferencePoint, ...] = ()
    library: tuple[LibraryConstants, ...] = ()
    active_library: str = "nccl"
    """The library these constants model (``core.perf.libraries.for_library`` sets it)."""

    def __hash__(self) -> int:
        """Of a few fields (equal constants hash alike; equality still compares every field): hashing every
        field would cost more than the cached stages keyed by the constants save (``core.memo.stage``)."""
        return hash((self.meta, self.active_library, self.algorithms))

    def channel_caps(self, compute_capability: float, nccl_version: tuple[int, ...] | None = None) -> ChannelCap:
        """The per-channel caps of the newest architecture row at or below ``compute_capability``
        (NCCL's compCapIndex: Volta below 8.0, Ampere, Hopper from 9.0, Blackwell from 10.0) in
        the tables of NCCL release ``nccl_version`` (default: ``nccl.default_version``)."""
        version = nccl_version or parse_nccl_version(self.nccl.default_version)
        rows = sorted((c for c in self.channel_cap
                       if parse_nccl_version(c.nccl_from) <= version
                       and (c.nccl_before is None or version < parse_nccl_version(c.nccl_before))),
                      key=lambda c: c.compute_capability)
        chosen = rows[0]
        for row in rows:
            if compute_capability >= row.compute_capability:
                chosen = row
        return chosen

    def references(self, system_id: str, gpus: int, op: str, nics_per_node: int | None = None):
        """Published points for this system, GPU count and collective (NIC count must match when stated)."""
        return [r for r in self.reference
                if r.system.casefold() == system_id.casefold() and r.gpus == gpus and r.op == op
                and (r.nics_per_node is None or r.nics_per_node == nics_per_node)]

    def library_entry(self, name: str | None = None) -> LibraryConstants:
        """The library ``name`` (default: the active one); ``InputError`` names the known ones."""
        key = (name or self.active_library).casefold()
        for entry in self.library:
            if entry.name.casefold() == key:
                return entry
        raise InputError(_("unknown collective library {name}; known: {known}").format(
            name=shown(name or self.active_library), known=", ".join(e.name for e in self.library)))

    def protocols(self) -> list[ProtocolConstants]:
        """The protocols the active library runs, in ``PROTOCOLS`` order (RCCL on MI300X: no LL128)."""
        names = {p.name for p in self.protocol}
        return [self.proto(name) for name in PROTOCOLS if name in names]

    def proto(self, name: str) -> ProtocolConstants:
        return next(p for p in self.protocol if p.name == name)

    def nvlink_efficiency(self, generation: int) -> float:
        known = {e.generation: e.efficiency for e in self.nvlink}
        if generation in known:
            return known[generation]
        return known[min(known, key=lambda g: abs(g - generation))]

    def nvls_efficiency(self, nvswitch_generation: int) -> float | None:
        """NVLS efficiency, or None when the NVSwitch has no multimem reductions (< gen 3)."""
        if nvswitch_generation < 3:
            return None
        known = {e.nvswitch_generation: e.efficiency for e in self.nvls}
        return known.get(nvswitch_generation, known[max(known)])

    def fabric_constants(self, kind: str) -> FabricConstants:
        return next(f for f in self.fabric if f.kind == kind)

    def sharp_entry(self, switch_id: str) -> SharpCapability | None:
        for entry in self.sharp:
            if entry.switch.casefold() == switch_id.casefold():
                return entry
        return None

    def sharp_version(self, switch_id: str) -> str | None:
        """The switch's SHARP version (any), or None."""
        entry = self.sharp_entry(switch_id)
        return entry.version if entry else None

    def nccl_sharp_version(self, switch_id: str) -> str | None:
        """The switch's SHARP version if NCCL can use it for all-reduce (CollNet), else None."""
        entry = self.sharp_entry(switch_id)
        return entry.version if entry and entry.nccl_collnet else None

    def compute_capability(self, architecture: str) -> float:
        """CUDA compute capability of a GPU architecture (0 when unknown)."""
        for entry in self.architecture:
            if entry.name.casefold() == architecture.casefold():
                return entry.compute_capability
        return 0.0


def parse_nccl_version(text: str | tuple[int, ...]) -> tuple[int, int, int]:
    """``"2.26.2"`` (also ``"v2.26.2-1"``, ``"2.26"``) -> ``(2, 26, 2)``; ``InputError`` for anything else."""
    if isinstance(text, tuple):
        return (tuple(int(x) for x in text) + (0, 0, 0))[:3]  # type: ignore[return-value]
    return _parse_nccl_text(str(text))


@lru_cache(maxsize=256)
def _parse_nccl_text(text: str) -> tuple[int, int, int]:
    match = re.fullmatch(r"\s*v?(\d{1,2})\.(\d{1,3})(?:\.(\d{1,3}))?(?:-\d{1,3})?\s*", str(text))
    if not match:
        raise InputError(_("cannot read NCCL version {text}; write it as NCCL prints it, e.g. 2.26.2").format(
            text=shown(text)))
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def nccl_version_of(text: str | None, constants: "CollectiveConstants") -> tuple[int, int, int]:
    """The NCCL release a prediction models: ``text`` parsed, or the catalog's default (the current
    stock release). ``InputError`` for a release older than ``nccl.oldest_version`` (its tuning
    tables were not checked) or newer than the default (not known yet)."""
    default = parse_nccl_version(constants.nccl.default_version)
    if text is None or (isinstance(text, str) and not text.strip()):
        return default
    version = parse_nccl_version(text)
    oldest = parse_nccl_version(constants.nccl.oldest_version)
    if version < oldest or version > default:
        raise InputError(_("NCCL {version} is outside the releases the model knows ({oldest} to {newest}); "
                           "use one of those.").format(version=".".join(map(str, version)),
                                                      oldest=constants.nccl.oldest_version,
                                                      newest=constants.nccl.default_version))
    return version


def load_constants_from(path: Path) -> CollectiveConstants:
    """Load and validate a collectives constants file; ``InputError`` names the problem."""
    data = read_toml(path, _("collective constants file"))
    try:
        constants = CollectiveConstants.model_validate(data)
    except ValueError as exc:
        raise InputError(_("{file} is invalid: {error}").format(file=path.name, error=exc)) from exc
    if {p.name for p in constants.protocol} != set(PROTOCOLS):
        raise InputError(_("{file} must define the protocols {protocols}").format(
            file=path.name, protocols=", ".join(PROTOCOLS)))
    if constants.nccl.releases[0] != constants.nccl.default_version:
        raise InputError(_("{file}: the first NCCL release offered must be the default").format(file=path.name))
    for release in constants.nccl.releases:
        nccl_version_of(release, constants)
    kinds = (*get_args(Fabric), *get_args(CloudTransport))
    if sorted(f.kind for f in constants.fabric) != sorted(kinds):
        raise InputError(_("{file} must define fabric constants once for each of {kinds}").format(
            file=path.name, kinds=", ".join(kinds)))
    return constants


@lru_cache(maxsize=1)
def load_constants() -> CollectiveConstants:
    """The bundled constants (cached, immutable)."""
    return load_constants_from(CONSTANTS_FILE)




LATENCY_FIELDS = {
    "protocol": ("ring_base_latency_us", "tree_base_latency_us"),
    "algorithms": ("nvls_nvlink_latency_us", "nvls_net_latency_us", "nvls_tree_net_latency_us",
                   "collnet_nvlink_latency_us", "collnet_net_latency_us", "alltoall_base_latency_us",
                   "pat_base_latency_us"),
}
"""The fixed (base) latency of each algorithm and protocol: a calibration's ``lat`` is added to each [us]."""


@lru_cache(maxsize=8)
def for_library(library: str = "nccl") -> CollectiveConstants:
    """The bundled constants as collective library ``library`` uses them (``[[library]]`` in collectives.toml):
    its own protocol rows, tree factor and pipeline fill where it states them, its scale-up link efficiency in
    place of the NVLink ones; everything else shared. ``InputError`` for an unknown library."""
    c = load_constants()
    lib = c.library_entry(library)
    update: dict = {"active_library": lib.name}
    if lib.protocol:
        update["protocol"] = lib.protocol
    alg = {k: v for k, v in (("tree_bw_factor", lib.tree_bw_factor),
                             ("ring_fill_us_per_step", lib.ring_fill_us_per_step)) if v is not None}
    if alg:
        update["algorithms"] = c.algorithms.model_copy(update=alg)
    if lib.scaleup_efficiency is not None:
        update["nvlink"] = tuple(e.model_copy(update={"efficiency": lib.scaleup_efficiency}) for e in c.nvlink)
    if update == {"active_library": c.active_library}:  # NCCL: the bundled object itself
        return c
    return c.model_copy(update=update)


@lru_cache(maxsize=64)
def calibrated(text: str | None, library: str = "nccl") -> CollectiveConstants:
    """The constants of collective library ``library`` (``for_library``) corrected by a calibration
    (``core.design.Calibration`` in its text form; None: uncorrected): each fabric's NIC efficiency times ``net``
    and each NVLink (scale-up) and NVLS efficiency times ``nvlink`` (capped at 1), ``lat`` [us] added to every
    base latency (floored at 0)."""
    from core.design import parse_calibration

    c = for_library(library)
    if not text:
        return c
    cal = parse_calibration(text)

    def shifted(model, fields):
        return model.model_copy(update={f: max(0.0, getattr(model, f) + cal.lat) for f in fields})

    return c.model_copy(update={
        "fabric": tuple(f.model_copy(update={"nic_efficiency": min(1.0, f.nic_efficiency * cal.net)}) for f in c.fabric),
        "nvlink": tuple(e.model_copy(update={"efficiency": min(1.0, e.efficiency * cal.nvlink)}) for e in c.nvlink),
        "nvls": tuple(e.model_copy(update={"efficiency": min(1.0, e.efficiency * cal.nvlink)}) for e in c.nvls),
        "protocol": tuple(shifted(p, LATENCY_FIELDS["protocol"]) for p in c.protocol),
        "algorithms": shifted(c.algorithms, LATENCY_FIELDS["algorithms"]),
    })


def library_label(name: str) -> str:
    """The own name of collective library ``name`` (``System.collective_library``: ``rccl`` -> ``RCCL``), as
    ``assets/catalog/collectives.toml`` declares it; ``InputError`` for an unknown library."""
    return load_constants().library_entry(name).label


def test_tool(name: str) -> str:
    """The benchmark of collective library ``name`` (``System.collective_library``) as
    ``assets/catalog/collectives.toml`` declares it: nccl-tests for NCCL, rccl-tests for RCCL, hccl_test for
    Huawei's HCCL; ``InputError`` for an unknown library."""
    return load_constants().library_entry(name).test_tool


def constants_for(plan) -> CollectiveConstants:
    """The collective constants of ``plan``: those of its system's collective library, corrected by its design's
    calibration if any."""
    return calibrated(plan.design.calibration, plan.resolved.system.collective_library)
