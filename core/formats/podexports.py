"""The graph exports of a design with pods (GraphML, draw.io): every pod's servers and leaves under the shared spine
layer, read from the whole fabric's graph (``core.fabric.podgraph``), so every pod is in the file.

Names are the NetBox and Slurm exports' (``core.formats.podnetbox``): a pod's devices under the pod's naming
scheme (``core.formats.podslurm.pod_scheme``: ``pod2-gpu001``, ``pod2-leaf001``), a group of a pod's servers drawn
as one vertex ``pod2-gpu-su01``, the shared spines ``spine001`` ... (the design's switch prefix). GraphML's vertex
and edge attributes are ``core.formats.graphml``'s, each from its pod: the GPU system, NICs and port speed of the
pod's servers, the leaf model, radix and port speed of its leaves, and ``pod`` (the pod's number, 1-based); the
shared spines carry the spine model, radix, spine port speed [Gb/s per direction] and ports used, and no ``pod``.
Pods on three tiers (``core.fabric.podcore``): each pod's own spines under the pod's names with their pod's spine
model and uplink speed, and the shared cores ``core001`` ... (the design's switch prefix) with the core model,
radix, speed and ports used, no ``pod``.

Machine-readable: English whatever the request's language.
"""

from __future__ import annotations

import networkx as nx

from core.analysis.pods import MixedPlan, mixed_wiring
from core.fabric.naming import Namer, NamingScheme
from core.fabric.podgraph import pods_fabric_graph
from core.fabric.podwiring import PodsWiring
from core.formats.podnetbox import shared_switches
from core.formats.podslurm import pod_scheme

MAX_ELEMENTS = 2_000_000
"""Vertices + edges of the full graph (servers each) above which servers are grouped per SU (as one fabric's
GraphML, ``core.formats.graphml.MAX_ELEMENTS``)."""


def pods_full_elements(wiring: PodsWiring) -> int:
    """Vertices + edges of the whole fabric's graph with every server a vertex, without building it."""
    f = wiring.fabric
    total = (f.spines + f.cores) * wiring.planes
    for own in wiring.wirings:
        spines = own.spines if wiring.three_tiers else f.spines  # the spines each leaf reaches
        total += own.nodes + wiring.planes * (own.leaves + own.nodes * len(own.leaves_of_group(0))
                                              + own.leaves * spines)
        if wiring.three_tiers:  # the pod's own spines and their bundles to their groups' cores
            total += wiring.planes * own.spines * (1 + f.cores_per_group)
    return total


def pods_whole_graph(mixed: MixedPlan, servers: str) -> nx.Graph:
    """``core.fabric.podgraph.pods_fabric_graph`` of ``mixed`` (each pod's leaf radix and uplink cost from its own
    plan), with ``servers`` ``each``, ``grouped`` or ``none``."""
    return pods_fabric_graph(mixed_wiring(mixed, three_tiers=True, planes=True),
                             tuple(p.fabric.radix for p in mixed.plans),
                             tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), servers)


class PodNames:
    """The export name of each vertex of the whole fabric's graph (module docstring)."""

    def __init__(self, mixed: MixedPlan, naming: NamingScheme | None):
        self.mixed = mixed
        self.wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
        self.namers = [Namer.of(p, pod_scheme(naming, pod.index + 1)) for pod, p in zip(mixed.fabric.pods, mixed.plans)]
        self.spines = dict(shared_switches(mixed, naming))  # the shared cores on three tiers: the design's names

    def pod_of(self, vertex: str) -> tuple[int, str] | None:
        """``(pod position, the pod's own vertex id)``; None for a shared spine."""
        return self.wiring.parse(vertex)

    def device(self, device: str) -> str:
        """The name of a device id of the whole fabric (``pod2.node3``, ``pod2.p0.leaf1``, ``spine0``)."""
        found = self.pod_of(device)
        return self.spines[device] if found is None else self.namers[found[0]].vertex(found[1])

    def __call__(self, vertex: str, data: dict) -> str:
        """The name of ``vertex`` (attributes ``data``): a device name, or a group of servers' ``<prefix>-su<g>``."""
        found = self.pod_of(vertex)
        if found is None:
            return self.spines[vertex]
        i, own = found
        namer = self.namers[i]
        if data["role"] == "server" and "nodes" in data:
            digits = namer.scheme.digits(self.wiring.wirings[i].groups)
            return f"{namer.scheme.node_prefix}-su{data['group'] + 1:0{digits}d}"
        return namer.vertex(own)


def _place(data: dict) -> dict:
    """A switch vertex's ``plane`` and ``island`` attributes, 1-based (``core.formats.graphml``)."""
    return {"plane": data["plane"] + 1, "island": data["island"] + 1}


def graphml_records(mixed: MixedPlan, naming: NamingScheme | None) -> tuple[dict, nx.Graph, dict, dict]:
    """What the GraphML file of ``mixed`` holds: ``(graph attributes, the whole fabric's graph, vertex -> name,
    name -> attributes)`` (``core.formats.graphml``'s attributes, module docstring)."""
    from core.formats.graphml import TIER

    f = mixed.fabric
    full = pods_full_elements(mixed_wiring(mixed, three_tiers=True, planes=True))
    grouped = full > MAX_ELEMENTS
    source = pods_whole_graph(mixed, "grouped" if grouped else "each")
    first = mixed.plans[0]
    graph = dict(
        name=" + ".join(f"{pod.gpus} x {pod.system}" for pod in f.pods), gpus=f.gpus, nodes=f.nodes,
        gpu_model=", ".join(dict.fromkeys(pod.system for pod in f.pods)), fabric=first.resolved.fabric,
        topology=first.fabric.topology, tiers=f.tiers, planes=f.planes, islands=1, pods=len(f.pods),
        port_speed_gbps=f.pods[0].port_speed_gbps, uplink_speed_gbps=f.spine_speed_gbps or f.core_speed_gbps,
        aggregated=("servers grouped per scalable unit: the full graph would have "
                    f"{full:,} vertices + edges (more than {MAX_ELEMENTS:,})") if grouped else "no",
        units="port_speed_gbps, speed_gbps, capacity_gbps, bandwidth_gbps: Gb/s per direction")
    name_of = PodNames(mixed, naming)
    names, vertices = {}, {}
    for vertex, data in source.nodes(data=True):
        role = data["role"]
        attrs = {"role": role, "tier": TIER[role]}
        if role == "core" or (role == "spine" and "pod_index" in data):  # three tiers: a pod's spine, a core
            pod = f.pods[data["pod_index"]] if role == "spine" else None
            speed = pod.uplink_speed_gbps if pod is not None else f.core_speed_gbps
            attrs.update(model=pod.spine_switch if pod is not None else f.core_switch, ports=data["radix"],
                         port_speed_gbps=speed, bandwidth_gbps=data["radix"] * speed,
                         ports_used=data["port_units"], ports_free=data["ports_free"], **_place(data))
            if pod is not None:
                attrs["pod"] = pod.index + 1
        elif role == "spine":
            attrs.update(model=f.spine_switch, ports=f.spine_radix, port_speed_gbps=f.spine_speed_gbps,
                         bandwidth_gbps=f.spine_radix * f.spine_speed_gbps, ports_used=f.spine_ports_used,
                         ports_free=f.spine_radix - f.spine_ports_used, **_place(data))
        else:
            i = data["pod_index"]
            pod, resolved = f.pods[i], mixed.plans[i].resolved
            if role == "server":
                attrs.update(model=pod.system, ports=resolved.nics_per_node, port_speed_gbps=pod.port_speed_gbps,
                             bandwidth_gbps=resolved.nics_per_node * pod.port_speed_gbps, group=data["group"] + 1)
                if "nodes" in data:
                    attrs["servers"] = data["nodes"]
            else:
                attrs.update(model=pod.leaf_switch, ports=data["radix"], port_speed_gbps=pod.port_speed_gbps,
                             bandwidth_gbps=data["radix"] * pod.port_speed_gbps, ports_used=data["ports_used"],
                             ports_free=data["ports_free"], **_place(data), group=data["group"] + 1)
                if data["rail"] >= 0:
                    attrs["rail"] = data["rail"] + 1
            attrs["pod"] = pod.index + 1
        names[vertex] = name_of(vertex, data)
        vertices[names[vertex]] = attrs
    return graph, source, names, vertices
