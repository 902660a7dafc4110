"""ASTRA-sim 2.x network configuration of a design (the analytical backend's YAML), ``--format astra-sim``.

Format followed: the analytical network backend's parser, astra-sim/astra-network-analytical
``common/network-parser/NetworkParser.cpp`` (commit 599a0473, the ``extern/network_backend/analytical``
submodule of astra-sim/astra-sim commit 518bd513), and the examples it ships
(``input/Ring_FullyConnected_Switch.yml``; astra-sim ``examples/network/analytical/HGX-H100-validated.yml``)::

    topology: [ Switch, Switch ]     # one building block per dimension: Ring, FullyConnected or Switch
    npus_count: [ 8, 4 ]             # NPUs per dimension; every entry > 1; the product is the NPU count
    bandwidth: [ 419.1, 46.6 ]       # per NPU link, per direction [GB/s, the backend's GB = 2^30 B]
    latency: [ 936.25, 500.0 ]       # per hop [ns]; a Switch dimension counts 2 hops (NPU -> switch -> NPU)

Dimensions, innermost first (an NPU's coordinates are its index in each, as the backend numbers them):

1. the NVLink domain (NVSwitch: ``Switch``), ``nvlink_domain_gpus`` GPUs, at NVLink per GPU per direction;
2. the leaf level: the GPUs under one leaf set (a scalable unit's rail leaves, or one top-of-rack
   leaf's nodes), counted in NVLink domains, at the scale-out bandwidth per GPU (all planes);
3. the spine level (two or three tiers): leaf sets per pod (or in the whole fabric), at the per-GPU
   bandwidth divided by the leaf oversubscription (``Plan.bandwidth.leaf_oversubscription``);
4. the core level (three tiers): pods, divided again by the spine oversubscription.

A dimension of one (a single node, a single leaf set, one pod) is left out: the backend rejects
``npus_count`` of 1. GPU *k* of a domain reaches GPU *k* of another domain over its own rail, as a
rail-optimized fabric (or a top-of-rack leaf) connects them; traffic between rails takes the NVLink
dimension first (PXN), which is how the backend routes a multi-dimensional topology.

The backend reads bandwidth in "GB/s" as 2^30 bytes per second (``bw_GBps_to_Bpns`` in
``common/NetworkFunction.cpp``: ``bw_GBps * (1 << 30) / 1e9``); the planner's GB/s are 10^9 bytes/s, so
the values are converted (x 10^9 / 2^30) and the comment beside them gives both. Latencies are the
simulators' published defaults (``assets/catalog/simulators.toml``), not measurements.

Only the network file is emitted. ASTRA-sim also takes a system configuration
(``--system-configuration``, JSON, e.g. ``examples/system/native_collectives/HGX-H100-validated.json``)
whose ``all-reduce-implementation`` (and all-gather, reduce-scatter, all-to-all) lists name one collective
algorithm per dimension; that file is about the collective algorithms, not the network, and is not
generated here (the header comment says how many entries it needs).

Regular designs only: every leaf set, pod and NVLink domain must be full, since the backend's
dimensions are a regular grid. A design with a partial scalable unit raises ``DesignError`` naming the
nearest node counts that export.

A design with pods is written whole (``core.formats.podsims``: the pods' leaf sets joined by the shared spines,
each dimension at the slowest pod's bandwidth, and why).
"""

from __future__ import annotations

import math
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel, ConfigDict

from core import plurals, units
from core.errors import DesignError, NotHandledError
from core.fabric.families import export_word
from core.fabric.wiring import Wiring
from core.formats.podlabel import pods_describer
from core.i18n import N_, _
from core.formats.exports import Export, in_file_language

SIMULATORS_TOML = Path(__file__).resolve().parents[2] / "assets" / "catalog" / "simulators.toml"
GIB_PER_GB = 1e9 / 2**30
"""ASTRA-sim's "GB/s" is 2^30 B/s: a planner GB/s (10^9 B/s) is this many of them."""


class SimLatency(BaseModel):
    """One simulator latency default (``assets/catalog/simulators.toml``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    id: str
    ns: float
    """One way, per link or hop [ns]."""
    what: str
    source: str
    as_of: str


@lru_cache(maxsize=1)
def simulator_latencies() -> dict[str, SimLatency]:
    """The latency defaults of the simulator exports, by id."""
    with SIMULATORS_TOML.open("rb") as handle:
        data = tomllib.load(handle)
    return {entry["id"]: SimLatency.model_validate(entry) for entry in data["latency"]}


class Dimension(BaseModel):
    """One ASTRA-sim dimension."""

    model_config = ConfigDict(frozen=True)
    level: str
    """``nvlink``, ``leaf``, ``spine`` or ``core``."""
    topology: str
    npus: int
    gbytes_per_s: float
    """Per NPU link, per direction [GB/s = 10^9 B/s] (the planner's unit)."""
    latency_ns: float
    """Per hop [ns]."""

    @property
    def astra_bandwidth(self) -> float:
        """The value ASTRA-sim reads, in its GB/s of 2^30 B/s."""
        return self.gbytes_per_s * GIB_PER_GB


def _nearest(nodes: int, unit: int) -> str:
    """``Plan 96 or 128 nodes to export it.``: the multiples of ``unit`` either side of ``nodes``."""
    low, high = (nodes // unit) * unit, (nodes // unit + 1) * unit
    if low < 1:
        return _("Plan {high} nodes to export it.").format(high=f"{high:,}")
    return _("Plan {low} or {high} nodes to export it.").format(low=f"{low:,}", high=f"{high:,}")


def dimensions(plan) -> list[Dimension]:
    """The ASTRA-sim dimensions of ``plan`` (a ``core.plan.Plan``), innermost first; see the module docstring.

    Raises ``DesignError`` when the design is not a regular grid (a partial scalable unit, pod or
    NVLink domain) or has a single GPU.
    """
    resolved, wiring, bandwidth = plan.resolved, Wiring.of(plan), plan.bandwidth
    latency = simulator_latencies()
    gpus, gpn, domain = resolved.gpus, resolved.gpus_per_node, resolved.nvlink_domain_gpus
    link_ns = latency["astrasim-network-link"].ns
    per_gpu = bandwidth.scaleout_gbits_per_gpu / 8

    single_leaf_set = wiring.tiers == 1 or wiring.groups == 1
    group_nodes = resolved.nodes if single_leaf_set else wiring.nodes_per_group
    group_gpus = group_nodes * gpn
    pods = wiring.pods if not single_leaf_set else 1
    pod_gpus = group_gpus * wiring.groups_per_pod if pods > 1 else gpus
    domain_nodes = max(1, domain // gpn)
    unit_nodes = math.lcm(pod_gpus // gpn if pods > 1 else group_nodes, domain_nodes)
    regular = (gpus == resolved.nodes * gpn and gpus % max(1, domain) == 0
               and (single_leaf_set or (resolved.nodes % group_nodes == 0 and group_gpus % max(1, domain) == 0))
               and (pods == 1 or wiring.groups % wiring.groups_per_pod == 0))
    if not regular:
        raise NotHandledError(
            _("ASTRA-sim's analytical network is a regular grid of dimensions, but this design has a "
              "partial scalable unit, pod or NVLink domain ({nodes} nodes in groups of {unit}).")
            .format(nodes=f"{resolved.nodes:,}", unit=f"{unit_nodes:,}"),
            _nearest(resolved.nodes, unit_nodes))

    dims: list[Dimension] = []
    if domain > 1:
        dims.append(Dimension(level="nvlink", topology="Switch", npus=min(domain, gpus),
                              gbytes_per_s=bandwidth.nvlink_gbytes_per_gpu_per_direction,
                              latency_ns=latency["astrasim-nvlink-dimension"].ns))
    if single_leaf_set:
        dims.append(Dimension(level="leaf", topology="Switch", npus=gpus // max(1, domain),
                              gbytes_per_s=per_gpu, latency_ns=link_ns))
    else:
        leaf_over = max(1.0, bandwidth.leaf_oversubscription)
        dims.append(Dimension(level="leaf", topology="Switch", npus=group_gpus // max(1, domain),
                              gbytes_per_s=per_gpu, latency_ns=link_ns))
        dims.append(Dimension(level="spine", topology="Switch", npus=pod_gpus // group_gpus,
                              gbytes_per_s=per_gpu / leaf_over, latency_ns=2 * link_ns))
        if pods > 1:
            spine_over = max(1.0, bandwidth.spine_oversubscription)
            dims.append(Dimension(level="core", topology="Switch", npus=gpus // pod_gpus,
                                  gbytes_per_s=per_gpu / leaf_over / spine_over, latency_ns=3 * link_ns))
    dims = [d for d in dims if d.npus > 1]
    if not dims:
        raise NotHandledError(_("ASTRA-sim needs at least 2 NPUs; this design has {gpus}.").format(gpus=gpus),
                          _("Plan at least 2 GPUs."))
    assert math.prod(d.npus for d in dims) == gpus
    return dims


_LEVEL = {"nvlink": "NVLink domain (NVSwitch)", "leaf": "leaf level (GPUs under one leaf set)",
          "spine": "spine level (leaf sets joined by the spines)", "core": "core level (pods joined by the cores)"}


def level_name(level: str, family: str | None = None) -> str:
    """Dimension ``level``'s English name (``_LEVEL``), or the one topology family ``family`` declares for it
    (``core.fabric.families.export_word``'s ``astra:<level>``: a classic Dragonfly's routers and groups)."""
    return export_word(family, f"astra:{level}", _LEVEL[level])


def _number(value: float) -> str:
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text if "." in text else text + ".0"


def write(plan, out: TextIO, naming=None) -> None:
    """Write the ASTRA-sim analytical network YAML of ``plan`` to ``out`` (``naming`` is not used: NPUs are numbered),
    every word in English whatever the request's language (``core.formats.exports.FILE_LANGUAGE``); a design that
    is no grid of dimensions is refused in the request's language. A design with pods is written whole
    (``core.formats.podsims``)."""
    from core.formats.podsims import astra_dimensions, write_mixed_astra
    from core.formats.podslurm import mixed_of

    mixed = mixed_of(plan)
    dims = dimensions(plan) if mixed is None else astra_dimensions(mixed)
    with in_file_language():
        if mixed is None:
            _write(plan, dims, out)
        else:
            write_mixed_astra(mixed, dims, out)


def _write(plan, dims: list[Dimension], out: TextIO) -> None:
    """``write``'s file of a design without pods, its dimensions ``dims``, in the language in force."""
    from core.figures.subtitle import design_subtitle

    b = plan.bandwidth
    out.write("# ASTRA-sim 2.x analytical network configuration (--network-configuration), written by fabric planner\n")
    out.write(f"# design: {design_subtitle(plan)}\n")  # the Designer's words (its subtitle)
    family = plan.fabric.family
    stages = export_word(family, "astra:oversubscription", "leaf {leaf}, spine {spine}").format(
        leaf=units.ratio(b.leaf_oversubscription), spine=units.ratio(b.spine_oversubscription))
    write_dimensions(dims, f"# oversubscription: {stages} (bandwidth of the outer dimensions divided by it)\n", out,
                     family)


def write_dimensions(dims: list[Dimension], oversubscription: str, out: TextIO, family: str | None = None) -> None:
    """Write the comments on the format and on ``dims`` (``oversubscription``: its comment line) and the YAML of
    ``dims`` to ``out``; each dimension named in topology family ``family``'s words (``level_name``)."""
    out.write("# format: astra-network-analytical common/network-parser/NetworkParser.cpp; one entry per dimension,\n")
    out.write("#   innermost first; the NPU count is the product of npus_count.\n")
    out.write("# bandwidth: per NPU link, per direction, in ASTRA-sim's GB/s = 2^30 B/s (NetworkFunction.cpp\n")
    out.write("#   bw_GBps_to_Bpns); the planner's 10^9 B/s values are given beside each dimension.\n")
    out.write("# latency: per hop [ns]; a Switch dimension counts 2 hops. Defaults published by the simulators\n")
    out.write("#   (assets/catalog/simulators.toml), not measured: edit for your cluster.\n")
    out.write(oversubscription)
    out.write(f"# system configuration (not written here): list {plurals.algorithms(len(dims))} in each "
              "*-implementation entry, e.g. [" + ", ".join(['"ring"'] * len(dims)) + "]\n")
    for i, d in enumerate(dims, 1):
        out.write(f"# dimension {i}: {level_name(d.level, family)}: {d.npus:,} NPUs, {_number(d.gbytes_per_s)} GB/s "
                  f"(10^9 B/s) = {_number(d.astra_bandwidth)} GB/s (2^30 B/s) per direction, {_number(d.latency_ns)} ns\n")
    out.write("topology: [ " + ", ".join(d.topology for d in dims) + " ]\n")
    out.write("npus_count: [ " + ", ".join(str(d.npus) for d in dims) + " ]\n")
    out.write("bandwidth: [ " + ", ".join(_number(d.astra_bandwidth) for d in dims) + " ]  # GB/s (2^30 B/s)\n")
    out.write("latency: [ " + ", ".join(_number(d.latency_ns) for d in dims) + " ]  # ns\n")


LABEL = N_("ASTRA-sim 2.x analytical network configuration (YAML)")


describe = pods_describer(LABEL, "astra_note")
"""The export's label for a plan, with a design's pods what the file says of them (``podsims.astra_note``)."""


EXPORTS = (Export("astra-sim", write, ".yml", "application/yaml", LABEL, describe=describe, every_pod=True),)
