"""SimAI topology file of a design (the ns-3 backend's input), ``--format simai``.

Format followed: what aliyun/SimAI (commit cef83f9d) writes in
``astra-sim-alibabacloud/inputs/topo/gen_Topo_Template.py`` and reads in
``astra-sim-alibabacloud/astra-sim/network_frontend/ns3/common.h`` (``SetupNetwork``) and
``AstraSimNetwork.cc`` (``main``). Whitespace-separated tokens, no comments (the reader has none)::

    <nodes> <gpus_per_server> <nvswitches> <switches> <links> <gpu_type>
    <the NVSwitch ids> <the network switch ids>
    <src> <dst> <rate> <latency> <error_rate>        (one line per link, <links> of them)

* ``nodes`` counts every vertex: GPUs, NVSwitches and network switches. GPUs are ids 0 .. G-1 (GPU *g*
  of server *n* is ``n * gpus_per_node + g``), NVSwitches the next ids (SimAI maps GPU *i* to NVSwitch
  ``G + i // gpus_per_server``, so there is exactly one NVSwitch vertex per server, as the template's
  default ``nv_switch_per_server = 1``), then the network switches: leaves, spines, cores, plane by plane.
* SimAI's "server" is the group of GPUs joined by one NVSwitch, so ``gpus_per_server`` is the NVLink
  domain (8 for an HGX node, 72 for an NVL72 rack). Each GPU has one NVLink line to its NVSwitch at
  NVLink per GPU per direction (``Plan.bandwidth``; the template's default is 2880Gbps).
* SimAI models one NIC per GPU: each GPU has one line to its leaf per plane (two planes = the
  template's dual-ToR / dual-plane), at the port speed. Leaf-spine and spine-core links as the
  planner sizes them; several parallel links between the same two switches are one line at their
  summed rate, because the reader keeps one interface per neighbour pair (``nbr2if[snode][dnode]``),
  as the template does (one ASW-PSW line at ``ap_bandwidth``).
* ``rate`` and ``latency`` are ns-3 attribute strings (``400Gbps``, ``0.0005ms``); latencies are the
  template's defaults (``assets/catalog/simulators.toml``), ``error_rate`` 0 (its default).
* ``gpu_type`` is the GPU model id; SimAI knows A100, A800, H100, H800 and H20 and treats any other
  name as ``NONE`` (no model-specific bus bandwidth tables).

Three tiers: the template writes two (ASW, PSW), but the reader takes any link list and routes by
shortest paths (``CalculateRoute``: breadth-first search with ECMP over switch vertices), so a
three-tier fabric is written as planned.

Islands (per-rail planes, rail-only rails): every island's switches (ids role-major, then plane by plane and
island by island, ``_ids``), each GPU's one NIC line to the leaf of its NIC's island (NIC *i* on island ``i mod
islands``, local rail ``i // islands``, as ``core.fabric.wiring`` cables it; per-rail planes: plane ``i mod
planes``). Between two rails the file has no switch path: SimAI's reader forwards only through switches and
NVSwitches, never through a GPU (``CalculateRoute`` queues node types 1 and 2). SimAI sends such traffic as NCCL's
PXN does when run with ``AS_PXN_ENABLE=1`` (``MockNcclGroup.cc``: a flow to another server's GPU on another rail
goes over NVLink to the sender server's GPU on the receiver's rail first, then over that rail; SimAI
``docs/configuration/env-variables.md``, commit cef83f9d); the export's description says so.

Not expressible, raised as ``DesignError`` instead of approximated: fewer (or more) NICs than GPUs in a
node (SimAI gives every GPU its own NIC), and a design without NVLink (SimAI maps every GPU to an NVSwitch).

Streamed: lines are written as they are generated (a 131,072-GPU design is about 300,000 lines).

A design with pods is written whole, every pod under the shared spines (``core.formats.podsims``: one GPU type and
one NVLink domain size per file, and what the file does with several).
"""

from __future__ import annotations

from typing import Iterator, TextIO

from core.errors import NotHandledError
from core.fabric.families import node_to_node
from core.fabric.wiring import ROLES, Wiring
from core.formats.astrasim import simulator_latencies
from core.formats.exports import Export
from core.formats.podlabel import pods_describer
from core.hostlink import fed_cabled_port_gbits
from core.i18n import N_, _

SIMAI_GPU_TYPES = ("A100", "A800", "H100", "H800", "H20")
"""GPU types SimAI's reader maps to a model (``common.h`` SetupNetwork; ``AstraParamParse.hh`` also H20)."""


def _rate(gbps: float) -> str:
    text = f"{gbps:.3f}".rstrip("0").rstrip(".")
    return f"{text}Gbps"


def _delay(ns: float) -> str:
    text = f"{ns / 1e6:.9f}".rstrip("0").rstrip(".")
    return f"{text}ms"


def check_expressible(plan) -> None:
    """Raise ``NotHandledError`` when SimAI's format cannot express ``plan`` (see the module docstring)."""
    r, fabric = plan.resolved, plan.fabric
    if node_to_node(fabric.family):
        raise NotHandledError(_("SimAI builds its fabrics of switches, and a torus joins its nodes node to node."),
                          _("Use the GraphML or ASTRA-sim export of a torus, or a rail-optimized topology."))
    if r.nics_per_node * 1 != r.gpus_per_node:
        raise NotHandledError(
            _("SimAI gives every GPU its own NIC, but this design has {nics} NICs for {gpus} GPUs per node.")
            .format(nics=r.nics_per_node, gpus=r.gpus_per_node),
            _("Use {gpus} NICs per node to export it.").format(gpus=r.gpus_per_node))
    if r.nvlink_domain_gpus < 2:
        raise NotHandledError(
            _("SimAI joins the GPUs of a server through an NVSwitch, but this design has no NVLink domain."),
            _("Use a GPU system with NVLink to export it."))


def _layout(plan):
    """Ids: GPUs, NVSwitches, then the switches of each plane; returns the counts and the first switch id."""
    r, wiring = plan.resolved, Wiring.of(plan)
    gpus = r.gpus
    domain = r.nvlink_domain_gpus
    nvswitches = -(-gpus // domain)
    per_plane = sum(wiring.count(role) for role in wiring.roles) * wiring.islands
    return gpus, domain, nvswitches, per_plane, gpus + nvswitches


def _ids(plan):
    """Id of switch ``index`` of each role (leaf, spine, core) in ``slot`` (``plane x islands + island``: the
    plane with per-port planes, the island with per-rail planes or rail-only rails): role-major, slot-minor (all
    leaves, then all spines, then all cores), as the template's dual-plane writer numbers ``asw_switch_1,
    asw_switch_2, psw_switch_1, psw_switch_2``; one function ``(slot, index) -> id`` per role."""
    wiring = Wiring.of(plan)
    counts = {role: wiring.count(role) for role in wiring.roles}
    first, firsts = _layout(plan)[-1], {}
    for role in ROLES:
        firsts[role] = first
        first += wiring.planes * wiring.islands * counts.get(role, 0)

    def numbering(role: str):
        return lambda slot, index: firsts[role] + slot * counts.get(role, 0) + index
    return tuple(numbering(role) for role in ROLES)


def _switch_ids(plan) -> dict[str, int]:
    """The SimAI id of every switch of the wiring (``_ids``), by device id."""
    wiring = Wiring.of(plan)
    number = dict(zip(ROLES, _ids(plan)))
    return {device.id: number[role](plane * wiring.islands + island, device.index) for role in wiring.roles
            for plane, island in wiring.plane_islands() for device in wiring.devices(role, plane, island)}


def _links(plan) -> Iterator[tuple[int, int, float, float]]:
    """Every line of the link list: ``(src, dst, rate [Gb/s, one direction], latency [ns])``, in the template's
    order: each GPU's NVLink line and its line to its leaf in every plane (with islands, its NIC's island's leaf
    only: NIC *i* is on island ``i mod islands``, local rail ``i // islands``), then the switch links plane by plane
    and island by island (the wiring's bundles, one line per switch pair at the bundle's summed rate)."""
    r, wiring = plan.resolved, Wiring.of(plan)
    gpus, domain, _nv, _per_plane, _base = _layout(plan)
    ids = _switch_ids(plan)
    latency = simulator_latencies()
    nic_ns, nv_ns = latency["simai-nic-link"].ns, latency["simai-nvlink-link"].ns
    nvlink_gbps = plan.bandwidth.nvlink_gbytes_per_gpu_per_direction * 8
    gpn, islands = r.gpus_per_node, wiring.islands
    port_gbps = fed_cabled_port_gbits(r)  # a port carries what the host feeds it (core.hostlink)
    for gpu in range(gpus):
        yield gpu, gpus + gpu // domain, nvlink_gbps, nv_ns
        node, nic = divmod(gpu, gpn)  # a GPU's NIC is its own (check_expressible)
        island, rail = nic % islands, nic // islands
        leaf, _port = wiring.node_port(node, rail)
        for plane in range(wiring.planes):
            yield gpu, ids[wiring.switch_id("leaf", leaf, plane, island)], port_gbps, nic_ns
    for plane, island in wiring.plane_islands():
        for bundle in _switch_bundles(wiring, plane, island):
            yield ids[bundle.a], ids[bundle.b], bundle.count * bundle.speed_gbps, nic_ns


def _switch_bundles(wiring: Wiring, plane: int, island: int = 0) -> Iterator:
    """The wiring's bundles of ``plane`` and ``island`` between two switches that hold links (SimAI's switch
    lines)."""
    return (b for b in wiring.bundles(plane, island) if b.kind != "node-leaf" and b.count > 0)


def link_count(plan) -> int:
    """Lines of the link list of ``plan``'s SimAI file (parallel switch links counted once per pair)."""
    wiring = Wiring.of(plan)
    return plan.resolved.gpus * (1 + wiring.planes) + wiring.planes * wiring.islands * sum(
        1 for _b in _switch_bundles(wiring, 0))


def write(plan, out: TextIO, naming=None) -> None:
    """Stream the SimAI topology file of ``plan`` to ``out`` (``naming`` is not used: SimAI numbers vertices); a
    design with pods is written whole (``core.formats.podsims``)."""
    from core.formats.podsims import write_mixed_simai
    from core.formats.podslurm import mixed_of

    mixed = mixed_of(plan)
    if mixed is not None:
        write_mixed_simai(mixed, out)
        return
    check_expressible(plan)
    r = plan.resolved
    gpus, domain, nvswitches, per_plane, base = _layout(plan)
    switches = per_plane * Wiring.of(plan).planes
    nodes = base + switches
    gpu_type = r.system.id if r.system.id in SIMAI_GPU_TYPES else r.system.id.replace(" ", "-")
    out.write(f"{nodes} {domain} {nvswitches} {switches} {link_count(plan)} {gpu_type}\n")
    out.write(" ".join(str(i) for i in range(gpus, nodes)) + " \n")
    write_lines(_links(plan), out)


def write_lines(links: Iterator[tuple[int, int, float, float]], out: TextIO) -> None:
    """Stream the link list ``links`` (``(src, dst, rate [Gb/s, one direction], latency [ns])``) to ``out``, in
    pieces of 4,096 lines."""
    buffer: list[str] = []
    for src, dst, gbps, ns in links:
        buffer.append(f"{src} {dst} {_rate(gbps)} {_delay(ns)} 0\n")
        if len(buffer) >= 4096:
            out.write("".join(buffer))
            buffer.clear()
    out.write("".join(buffer))


LABEL = N_("SimAI topology file for its ns-3 backend")


_pods_describe = pods_describer(LABEL, "simai_note")


def describe(plan) -> str:
    """The export's label for ``plan``: with a design's pods what the file says of them (``podsims.simai_note``),
    with islands (per-rail planes, rail-only rails; a pod's too) how SimAI routes between them (module
    docstring)."""
    from core.formats.podslurm import mixed_of

    mixed = mixed_of(plan)
    text = _pods_describe(plan)
    if not any(p.fabric.islands > 1 for p in (mixed.plans if mixed is not None else (plan,))):
        return text
    return _("{label}; {note}").format(label=text, note=_(
        "its rails meet only over NVLink in a server: run SimAI with AS_PXN_ENABLE=1 (NCCL's PXN), without which "
        "SimAI finds no route between rails"))


EXPORTS = (Export("simai", write, ".txt", "text/plain", LABEL, describe=describe, every_pod=True),)
