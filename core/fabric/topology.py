"""NetworkX graphs of a sized fabric: switch-level, and aggregated for drawing.

``fabric_graph``      every switch (and optionally every server, or one node
                      per scalable unit of servers); edges carry ``links``
                      (parallel link count) and ``capacity_gbps`` (one
                      direction). Used to verify the sizing (ports, reach,
                      min-cut bisection) and to draw small designs.
``aggregated_graph``  switches and servers bundled by block (scalable unit or
                      pod) and rail; its size is bounded at any cluster size.

Languages: vertex ``label`` texts are in the language of the request (``core.i18n``); ``role`` is a
key (``leaf``, ``spine``, ``core``, ``server``). An aggregated vertex's label is
``"<span>: <count ...>"`` (a full-width colon in Chinese); the span alone (``SU 3``,
``pods 1-4``) is its ``span`` attribute.
"""

from __future__ import annotations

import math
from typing import Iterable

import networkx as nx

from core.fabric.families import words
from core.fabric.sizing import FabricPlan
from core.fabric.wiring import Bundle, Device, Wiring
from core.i18n import N_, _

MAX_BLOCKS = 12
"""Most blocks (SUs or pods) the aggregated graph draws before bundling them."""


def _add_links(graph: nx.Graph, a: str, b: str, count: int, speed_gbps: int) -> None:
    """Add ``count`` parallel links of ``speed_gbps`` [Gb/s, one direction] between ``a`` and ``b``."""
    if count <= 0:
        return
    if graph.has_edge(a, b):
        graph[a][b]["links"] += count
        graph[a][b]["capacity_gbps"] += count * speed_gbps
    else:
        graph.add_edge(a, b, links=count, capacity_gbps=count * speed_gbps)


def fabric_graph(plan, servers: str = "each", planes: int | None = None) -> nx.Graph:
    """Switch-level graph of ``plan`` (a ``core.plan.Plan``), read from its wiring (``core.fabric.wiring``).

    Parameters
    ----------
    plan : core.plan.Plan
        The planned design.
    servers : {"each", "grouped", "none"}
        One vertex per server, one per scalable unit/leaf group, or none.
    planes : int, optional
        How many planes to include (default all).

    Returns
    -------
    networkx.Graph
        Vertices have ``role`` (server, leaf, spine, core) and, for switches,
        ``plane``, ``island``, ``radix`` (ports at the switch's down speed); leaves also ``group``,
        ``rail``, ``pod`` and ``port_units`` (ports used counted at the down speed: an uplink on a
        broken-out leaf takes ``up_port_cost`` of them). Edges have ``links`` and ``capacity_gbps``
        (one direction; node-leaf links at the port speed, the others at the uplink speed). Islands
        (rail-only rails, per-rail planes) are separate components joined only through the servers.
        Switch vertices are the wiring's devices role by role, edges its bundles, for every link class
        the wiring has.
    """
    fabric: FabricPlan = plan.fabric
    wiring = Wiring.of(plan)
    if "torus" in wiring.link_classes:  # the servers are the torus's vertices
        servers = "each"
    graph = nx.Graph(speed_gbps=wiring.port_gbps, tiers=wiring.tiers, family=wiring.family)
    radix = {"leaf": fabric.radix, "spine": fabric.spine_radix or fabric.radix, "core": fabric.core_radix or fabric.radix}
    server_of = _add_servers(graph, wiring, servers)
    railless = fabric.topology == "top-of-rack"  # a top-of-rack leaf has no rail, with one tier too
    shown = planes or wiring.planes
    for plane, island in wiring.plane_islands():
        if plane >= shown:
            break
        for role in wiring.roles:
            for device in wiring.devices(role, plane, island):
                graph.add_node(device.id, role=role, plane=plane, island=island,
                               **_place(wiring, device, railless), radix=radix[role])
        bundles = _server_bundles(wiring.bundles(plane, island), servers, server_of)
        graph.add_edges_from((a, b, {"links": count, "capacity_gbps": count * speed})
                             for _kind, a, b, count, speed in bundles if count > 0)
    _count_ports(graph, plan.resolved.leaf_uplink_cost)
    return graph


def _add_servers(graph: nx.Graph, wiring: Wiring, servers: str) -> dict[str, str]:
    """Add the server vertices (``servers`` as in ``fabric_graph``); returns the vertex standing for each
    server's group when servers are grouped (``{node id: "servers<g>"}``, else empty)."""
    server_of: dict[str, str] = {}
    if servers == "each":
        for n in range(wiring.nodes):
            graph.add_node(wiring.node_id(n), role="server", group=wiring.group_of_node(n))
    if servers != "grouped":
        return server_of
    for g in range(wiring.groups):
        members = wiring.nodes_of_group(g)
        graph.add_node(f"servers{g}", role="server", group=g, nodes=len(members))
        server_of.update((wiring.node_id(n), f"servers{g}") for n in members)
    return server_of


def _server_bundles(bundles: Iterable[Bundle], servers: str, server_of: dict[str, str]) -> Iterable[Bundle]:
    """``bundles`` (the wiring's, of one plane and island) as ``fabric_graph`` draws them with ``servers``: as
    they are (each), without the node-leaf ones (none), or with a node's end replaced by the vertex standing
    for its group (``server_of``) and the node-leaf bundles of a group's nodes to one leaf summed, first
    (grouped)."""
    if servers == "each":
        return bundles
    if servers != "grouped":
        return (b for b in bundles if b.kind != "node-leaf")
    summed: dict[tuple[str, str, int], int] = {}
    rest = []
    for bundle in bundles:
        kind, node, leaf, count, speed = bundle
        if kind == "node-leaf":
            key = (server_of[node], leaf, speed)
            summed[key] = summed.get(key, 0) + count
        else:
            rest.append(bundle)
    return [*(Bundle("node-leaf", a, leaf, count, speed) for (a, leaf, speed), count in summed.items()), *rest]


def _place(wiring: Wiring, device: Device, railless: bool) -> dict:
    """Where switch ``device`` sits: a leaf's ``group``, ``rail`` (-1 when ``railless``) and ``pod``; a core's
    ``core_group``; another switch's ``pod`` (and ``group`` when its family groups such switches)."""
    if device.role == "leaf":
        return dict(group=device.group, rail=-1 if railless else device.rail, pod=device.pod)
    if device.role == "core":
        return dict(core_group=wiring.core_group_of(device.index))
    return dict(pod=device.pod) if device.group < 0 else dict(pod=device.pod, group=device.group)


def _count_ports(graph: nx.Graph, leaf_cost: float) -> None:
    """Set ``ports_used``, ``port_units`` and ``ports_free`` of every switch vertex from its edges (an uplink of a
    leaf takes ``leaf_cost`` ports at the down speed, or the leaf vertex's own ``leaf_cost``)."""
    roles = dict(graph.nodes(data="role"))
    for vertex, data in graph.nodes(data=True):
        if data["role"] != "server":
            used = up = 0
            for neighbour, edge in graph.adj[vertex].items():
                used += edge["links"]
                if roles[neighbour] != "server":
                    up += edge["links"]
            data["ports_used"] = used
            cost = data.get("leaf_cost", leaf_cost)  # a pod's own leaves' (a design with pods)
            data["port_units"] = units = used - up + cost * up if data["role"] == "leaf" else used
            data["ports_free"] = data["radix"] - math.ceil(units - 1e-9)


def _span(word: str, first: int, last: int) -> str:
    """``SU 3``, ``pods 1-4``, ``leafs 5-8``: the blocks one bundle of the aggregated graph holds."""
    if first == last:
        single = {"pod": _("pod {first}"), "SU": _("SU {first}"), "leaf": _("leaf {first}"),
                  "group": _("group {first}")}[word]
        return single.format(first=first)
    several = {"pod": _("pods {first}-{last}"), "SU": _("SUs {first}-{last}"), "leaf": _("leafs {first}-{last}"),
               "group": _("groups {first}-{last}")}[word]
    return several.format(first=first, last=last)


def aggregated_graph(plan) -> nx.Graph:
    """Bounded graph of one plane for drawing: bundles of servers, leaves, spines and cores.

    Blocks are scalable units (two tiers) or pods (three tiers); past
    ``MAX_BLOCKS`` consecutive blocks are bundled together. Leaves are split by
    rail in rail-optimized fabrics. Vertices carry ``role``, ``count`` (switches
    or servers in the bundle), ``label``, ``block`` and ``rail``; edges carry
    ``links`` and ``capacity_gbps`` (one direction). At most about
    ``MAX_BLOCKS * (rails + 2) + 2`` vertices at any size. With islands (rail-only rails, per-rail planes)
    it draws one island (graph attribute ``islands`` says how many there are).
    """
    return wiring_aggregated(Wiring.of(plan))


def wiring_aggregated(wiring, max_blocks: int = MAX_BLOCKS) -> nx.Graph:
    """``aggregated_graph`` of a fabric's wiring (``core.fabric.wiring``), bundling past ``max_blocks`` blocks."""
    speed, tiers = wiring.port_gbps, wiring.tiers
    graph = nx.Graph(speed_gbps=speed, tiers=tiers, planes=wiring.planes, aggregated=True, islands=wiring.islands,
                     family=wiring.family)

    def add(name, **attrs):
        if graph.has_node(name):
            graph.nodes[name]["count"] += attrs["count"]
        else:
            graph.add_node(name, **attrs)

    def link(a, b, count):
        _add_links(graph, a, b, count, speed)

    if tiers == 1:
        add("leaf", role="leaf", count=1, label=_("switch"), block=0, rail=-1)
        add("servers", role="server", count=wiring.nodes, label=_("{count} nodes").format(count=wiring.nodes),
            block=0, rail=-1)
        link("servers", "leaf", wiring.leaf_down_ports(0))
        return graph

    grouped = "global" in wiring.link_classes  # Dragonfly+: groups of leaves and spines joined by global links
    groups_per_block = wiring.groups_per_pod if tiers == 3 or grouped else 1
    blocks = math.ceil(wiring.groups / groups_per_block)
    blocks_per_bundle = math.ceil(blocks / max_blocks)
    bundles = math.ceil(blocks / blocks_per_bundle)
    block_word = "group" if grouped else "pod" if tiers == 3 else ("leaf" if wiring.tor else "SU")
    rails = 1 if wiring.tor else wiring.leaves_per_group
    if not grouped:
        top = "spine" if tiers == 2 else "core"
        count = wiring.count(top)
        label = _("{count} spines") if tiers == 2 else _("{count} cores")
        add(top + "s", role=top, count=count, label=label.format(count=count), block=-1, rail=-1)

    for bundle in range(bundles):
        first_block = bundle * blocks_per_bundle
        last_block = min(blocks, first_block + blocks_per_bundle) - 1
        first_group = first_block * groups_per_block
        last_group = min(wiring.groups, (last_block + 1) * groups_per_block) - 1
        groups = last_group - first_group + 1
        node_count = wiring.nodes_of_group(last_group).stop - wiring.nodes_of_group(first_group).start
        span = _span(block_word, first_block + 1, last_block + 1)
        servers = f"servers{bundle}"
        add(servers, role="server", count=node_count, label=_("{span}: {count} nodes").format(span=span, count=node_count),
            span=span, block=bundle, rail=-1)
        if tiers == 3 or grouped:
            spine = f"spines{bundle}"
            spines = (last_block - first_block + 1) * wiring.spines_per_pod
            label = (_("{span}: {count} spines") if wiring.count("spine") else  # a Dragonfly: its routers' ports
                     _("{span}: global ports of {count} routers"))
            add(spine, role="spine", count=spines, label=label.format(span=span, count=spines),
                span=span, block=bundle, rail=-1, first=first_block + 1, last=last_block + 1)
            if not grouped:
                uplinks = sum(wiring.spine_uplinks[first_block:last_block + 1])
                link(spine, "cores", uplinks * wiring.spines_per_pod)
        else:
            spine = "spines"
        for r in range(rails):
            leaf = f"leaf{bundle}.{r}"
            label = (words(wiring.family, "graph:rail", N_("{span} rail {rail}: {count} leaves")) if rails > 1
                     else words(wiring.family, "graph:leaves", N_("{span} leaves: {count} leaves")))
            add(leaf, role="leaf", count=groups, label=label.format(span=span, rail=r + 1, count=groups),
                span=span, block=bundle, rail=r if rails > 1 else -1)
            link(servers, leaf, node_count * wiring.links_per_node_leaf)
            link(leaf, spine, groups * wiring.leaf_uplinks)
    if grouped:
        _global_bundles(graph, wiring, blocks, blocks_per_bundle, bundles)
    return graph


def _global_bundles(graph: nx.Graph, wiring, blocks: int, blocks_per_bundle: int, bundles: int) -> None:
    """Global links between the spine bundles of the aggregated graph (``global_pair_links`` between each pair of
    Dragonfly+ groups, at the uplink speed [Gb/s per direction]); those between groups of one bundle are the spine
    vertex's ``global_inside``."""
    sizes = [min(blocks, (b + 1) * blocks_per_bundle) - b * blocks_per_bundle for b in range(bundles)]
    pair = wiring.global_pair_links
    for a in range(bundles):
        graph.nodes[f"spines{a}"]["global_inside"] = pair * sizes[a] * (sizes[a] - 1) // 2
        for b in range(a + 1, bundles):
            _add_links(graph, f"spines{a}", f"spines{b}", pair * sizes[a] * sizes[b], wiring.up_gbps)
