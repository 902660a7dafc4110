"""NetworkX graphs of a design with pods: every pod's servers and leaves under the shared spine layer, read from
the pods' wiring (``core.fabric.podwiring``), in the shapes ``core.fabric.topology`` gives one fabric.

``pods_fabric_graph``      every pod leaf and shared spine (servers each, grouped or none), as ``fabric_graph``.
``pods_aggregated_graph``  each pod's ``aggregated_graph`` bundles under one vertex of the shared spines (on three
                           tiers: each pod's own spines under one vertex of the shared cores).

Vertices of a pod carry ``pod_index`` (the pod's position in ``MixedFabric.pods``) besides ``core.fabric.topology``'s
attributes; edges carry ``links``, ``capacity_gbps`` and ``speed_gbps`` (per link, one direction [Gb/s]: a pod's
node-leaf links at its port speed, its leaf-spine links at its uplink speed).
"""

from __future__ import annotations

import networkx as nx

from core.fabric.podwiring import PodsWiring
from core.fabric.topology import (
    MAX_BLOCKS, _add_links, _add_servers, _count_ports, _place, _server_bundles, wiring_aggregated,
)
from core.i18n import _, ngettext

SHARED_SPINES = "spines"
"""The aggregated graph's vertex of the shared spine layer."""
SHARED_CORES = "cores"
"""The aggregated graph's vertex of the shared core layer (pods on three tiers)."""


def pods_graph_elements(wiring: PodsWiring, planes: int | None = None) -> int:
    """Elements (vertices + 2 per edge) of the full graph of ``wiring``, servers grouped, without building it (of
    its first ``planes`` planes; default all)."""
    shown = planes or wiring.planes
    spines = wiring.fabric.spines
    per_plane = spines + wiring.fabric.cores
    total = 0
    for own in wiring.wirings:
        shared = own.spines if wiring.three_tiers else spines  # the spines each leaf reaches
        total += own.groups
        per_plane += own.leaves + 2 * own.groups * len(own.leaves_of_group(0)) + 2 * own.leaves * shared
    if wiring.three_tiers:  # every pod spine reaches the C cores of its group
        per_plane += sum(pod.own_spines for pod in wiring.fabric.pods) * (1 + 2 * wiring.fabric.cores_per_group)
    return total + shown * per_plane


def pods_fabric_graph(wiring: PodsWiring, leaf_radix: tuple[int, ...], leaf_cost: tuple[float, ...],
                      servers: str = "grouped", planes: int | None = None) -> nx.Graph:
    """Switch-level graph of a design with pods (``core.fabric.topology.fabric_graph``'s vertices and edges).

    Parameters
    ----------
    wiring : PodsWiring
        The pods' wiring.
    leaf_radix, leaf_cost : tuple
        Per pod (``wiring.fabric.pods`` order): its leaf's ports at the down speed, and the down ports one uplink
        takes (``ResolvedDesign.leaf_uplink_cost``).
    servers : {"each", "grouped", "none"}
        One vertex per server, one per scalable unit/leaf group of a pod, or none.
    planes : int, optional
        How many planes to include (default all; ``core.fabric.podwiring``: plane ``q``'s ids).

    Returns
    -------
    networkx.Graph
        Pods' vertices with ``pod_index``; shared spines ``spine<j>`` with ``radix`` (ports at the spine speed)
        and ``port_units`` (ports used at the spine speed: a broken-out port carries several uplinks). On three
        tiers the pods' own spines (``pod2.p0.spine0``, ``radix`` at the pod's uplink speed) and the shared cores
        ``core<k>`` with ``radix`` and ``port_units`` at the core speed.
    """
    f = wiring.fabric
    shown = range(planes or wiring.planes)
    graph = nx.Graph(speed_gbps=f.pods[0].port_speed_gbps, tiers=f.tiers, pods=len(f.pods), planes=f.planes)
    for i, own in enumerate(wiring.wirings):
        local = nx.Graph()
        server_of = _add_servers(local, own, servers)
        for v, data in local.nodes(data=True):
            graph.add_node(wiring.local_id(i, v), **data, pod_index=i)
        for q in shown:
            plane, island = wiring.plane_of(q)
            for device in own.devices("leaf", plane, island):
                place = {**_place(own, device, own.tor), "pod": i}
                graph.add_node(wiring.local_id(i, device.id), role="leaf", plane=plane, island=island, **place,
                               radix=leaf_radix[i], leaf_cost=leaf_cost[i], pod_index=i)
            for kind, a, b, count, speed in _server_bundles(own.bundles(plane, island), servers, server_of):
                if kind == "node-leaf" and count > 0:
                    graph.add_edge(wiring.local_id(i, a), wiring.local_id(i, b), links=count,
                                   capacity_gbps=count * speed, speed_gbps=speed)
    for q in shown:
        _add_shared(graph, wiring, q)
    _count_ports(graph, 1.0)
    for q in shown:
        for j in range(f.spines):
            data = graph.nodes[wiring.shared_spine_id(j, q)]
            data["port_units"] = f.spine_ports_used
            data["ports_free"] = f.spine_radix - f.spine_ports_used
        for k in range(f.cores):  # a core port broken out carries several spine uplinks
            data = graph.nodes[wiring.shared_core_id(k, q)]
            data["port_units"] = units = sum(f.pods[graph.nodes[v]["pod_index"]].core_ports()
                                             for v in graph.adj[wiring.shared_core_id(k, q)])
            data["ports_free"] = f.core_radix - units
    return graph


def _add_shared(graph: nx.Graph, wiring: PodsWiring, q: int) -> None:
    """Plane ``q``'s shared spines, pods' own spines and shared cores of ``pods_fabric_graph``, and its leaf-spine
    and spine-core edges."""
    f = wiring.fabric
    plane, island = wiring.plane_of(q)
    for j in range(f.spines):
        graph.add_node(wiring.shared_spine_id(j, q), role="spine", plane=plane, island=island, pod=-1,
                       radix=f.spine_radix)
    for i, pod in enumerate(f.pods):
        for k in range(pod.own_spines):
            graph.add_node(wiring.own_spine_id(i, k, q), role="spine", plane=plane, island=island, pod=i,
                           radix=pod.spine_radix, pod_index=i)
    for k in range(f.cores):
        graph.add_node(wiring.shared_core_id(k, q), role="core", plane=plane, island=island, pod=-1,
                       radix=f.core_radix)
    for kind, a, b, count, speed in wiring.plane_bundles(q):
        if kind in ("leaf-spine", "spine-core") and count > 0:
            graph.add_edge(a, b, links=count, capacity_gbps=count * speed, speed_gbps=speed)


def pods_aggregated_graph(wiring: PodsWiring) -> nx.Graph:
    """Bounded graph of one plane of a design with pods: each pod's ``aggregated_graph`` bundles (servers, leaves by
    rail; at most ``MAX_BLOCKS / pods`` blocks each, at least 2), their ids and spans under the pod's prefix, joined
    to one vertex of the shared spines (``SHARED_SPINES``) at each pod's uplink speed [Gb/s per direction]; graph
    attribute ``planes``: how many identical planes there are."""
    f = wiring.fabric
    graph = nx.Graph(speed_gbps=f.pods[0].port_speed_gbps, tiers=f.tiers, planes=f.planes, aggregated=True,
                     islands=1, pods=len(f.pods))
    top = SHARED_CORES if wiring.three_tiers else SHARED_SPINES
    if wiring.three_tiers:
        graph.add_node(SHARED_CORES, role="core", count=f.cores, block=-1, rail=-1,
                       label=ngettext("{count} shared core", "{count} shared cores", f.cores).format(count=f.cores))
    else:
        graph.add_node(SHARED_SPINES, role="spine", count=f.spines, block=-1, rail=-1,
                       label=ngettext("{count} shared spine", "{count} shared spines", f.spines).format(count=f.spines))
    per_pod = pods_span(wiring)
    for i, own in enumerate(wiring.wirings):
        pod = f.pods[i]
        local = wiring_aggregated(own, per_pod)
        local.remove_node(top)  # the pod's own top tier: the shared layer stands for it
        for v, data in local.nodes(data=True):
            data = {**data, "pod_index": i, "pod": i}
            if data.get("span"):  # on three tiers a pod alone is one spine pod: its span is the pod
                span = (_("pod {pod}").format(pod=pod.index + 1) if wiring.three_tiers else
                        _("pod {pod}, {span}").format(pod=pod.index + 1, span=data["span"]))
                data["label"] = data["label"].replace(data["span"], span, 1)
                data["span"] = span
            graph.add_node(wiring.local_id(i, v), **data)
        for a, b, data in local.edges(data=True):
            speed = pod.port_speed_gbps  # a pod's leaf-spine bundles (three tiers) at its uplink speed
            if "server" not in (local.nodes[a]["role"], local.nodes[b]["role"]):
                speed = pod.uplink_speed_gbps
                data = {**data, "capacity_gbps": data["links"] * speed}
            graph.add_edge(wiring.local_id(i, a), wiring.local_id(i, b), **data, speed_gbps=speed)
        for v, data in local.nodes(data=True):
            if data["role"] == "spine" and wiring.three_tiers:
                _add_links(graph, wiring.local_id(i, v), SHARED_CORES, data["count"] * pod.spine_uplinks,
                           pod.uplink_speed_gbps)
                graph[wiring.local_id(i, v)][SHARED_CORES]["speed_gbps"] = pod.uplink_speed_gbps
            if data["role"] == "leaf" and not wiring.three_tiers:
                _add_links(graph, wiring.local_id(i, v), SHARED_SPINES, data["count"] * pod.uplinks_per_leaf,
                           pod.uplink_speed_gbps)
                graph[wiring.local_id(i, v)][SHARED_SPINES]["speed_gbps"] = pod.uplink_speed_gbps
    return graph


def pods_span(wiring: PodsWiring) -> int:
    """Blocks each pod's bundles may take in ``pods_aggregated_graph`` (``MAX_BLOCKS`` shared by the pods)."""
    return max(2, MAX_BLOCKS // len(wiring.fabric.pods))
