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

import networkx as nx

from core.fabric.sizing import FabricPlan
from core.i18n import _

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


def _leaf_meta(fabric: FabricPlan, leaf: int) -> tuple[int, int, int]:
    """(group, rail, pod) of leaf index ``leaf`` in one plane."""
    group = leaf // fabric.leaves_per_group
    rail = leaf % fabric.leaves_per_group if fabric.topology != "top-of-rack" else -1
    pod = group // fabric.groups_per_pod if fabric.tiers == 3 else 0
    return group, rail, pod


def fabric_graph(plan, servers: str = "each", planes: int | None = None) -> nx.Graph:
    """Switch-level graph of ``plan`` (a ``core.plan.Plan``).

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
    """
    fabric: FabricPlan = plan.fabric
    resolved = plan.resolved
    speed = fabric.port_speed_gbps
    up_speed = fabric.uplink_speed_gbps or speed
    islands = fabric.islands
    rails = resolved.nics_per_node // islands
    nodes = resolved.nodes
    graph = nx.Graph(speed_gbps=speed, tiers=fabric.tiers)
    leaf_cost = resolved.leaf_uplink_cost
    radix = {"leaf": fabric.radix, "spine": fabric.spine_radix or fabric.radix, "core": fabric.core_radix or fabric.radix}
    leaf_count, spine_count, core_count = (fabric.leaf_count // islands, fabric.spine_count // islands,
                                           fabric.core_count // islands)

    def link(a, b, count):
        _add_links(graph, a, b, count, speed)

    def uplink(a, b, count):
        _add_links(graph, a, b, count, up_speed)

    if servers == "each":
        for n in range(nodes):
            graph.add_node(f"node{n}", role="server", group=n // fabric.nodes_per_group)
    elif servers == "grouped":
        for g in range(fabric.group_count):
            count = min(fabric.nodes_per_group, nodes - g * fabric.nodes_per_group)
            graph.add_node(f"servers{g}", role="server", group=g, nodes=count)

    for plane, island in ((p, i) for p in range(planes or fabric.planes) for i in range(islands)):
        p = f"p{plane}." if islands == 1 else f"p{plane}.i{island}."
        for leaf in range(leaf_count):
            group, rail, pod = _leaf_meta(fabric, leaf)
            graph.add_node(f"{p}leaf{leaf}", role="leaf", plane=plane, island=island, group=group, rail=rail, pod=pod,
                           radix=radix["leaf"])
        for spine in range(spine_count):
            pod = spine // fabric.spines_per_pod if fabric.tiers == 3 else 0
            graph.add_node(f"{p}spine{spine}", role="spine", plane=plane, island=island, pod=pod, radix=radix["spine"])
        for core in range(core_count):
            graph.add_node(f"{p}core{core}", role="core", plane=plane, island=island,
                           core_group=core // max(1, fabric.cores_per_group), radix=radix["core"])

        # servers to leaves
        if servers != "none":
            for group in range(fabric.group_count):
                first = group * fabric.nodes_per_group
                members = range(first, min(nodes, first + fabric.nodes_per_group))
                for r in range(fabric.leaves_per_group):
                    leaf = f"{p}leaf{0 if fabric.tiers == 1 else group * fabric.leaves_per_group + r}"
                    per_node = 1 if fabric.topology != "top-of-rack" and fabric.tiers > 1 else rails
                    if fabric.tiers == 1:
                        per_node = rails
                    if servers == "each":
                        for n in members:
                            link(f"node{n}", leaf, per_node)
                    else:
                        link(f"servers{group}", leaf, per_node * len(members))
                    if fabric.tiers == 1:
                        break

        # leaves to spines
        if fabric.tiers == 2:
            for leaf in range(leaf_count):
                for spine in range(spine_count):
                    uplink(f"{p}leaf{leaf}", f"{p}spine{spine}", fabric.links_per_leaf_spine_pair)
        elif fabric.tiers == 3:
            for leaf in range(leaf_count):
                _group, _rail, pod = _leaf_meta(fabric, leaf)
                for j in range(fabric.spines_per_pod):
                    uplink(f"{p}leaf{leaf}", f"{p}spine{pod * fabric.spines_per_pod + j}",
                           fabric.links_per_leaf_spine_pair)
            for spine in range(spine_count):
                j = spine % fabric.spines_per_pod
                pair = fabric.spine_core_pair_links(spine // fabric.spines_per_pod)
                for c in range(fabric.cores_per_group):
                    uplink(f"{p}spine{spine}", f"{p}core{j * fabric.cores_per_group + c}", pair)

    for vertex, data in graph.nodes(data=True):
        if data["role"] != "server":
            used = sum(e["links"] for _a, _b, e in graph.edges(vertex, data=True))
            data["ports_used"] = used
            units = used
            if data["role"] == "leaf":
                up = sum(e["links"] for a, b, e in graph.edges(vertex, data=True)
                         if graph.nodes[b if a == vertex else a]["role"] != "server")
                units = used - up + leaf_cost * up
            data["port_units"] = units
            data["ports_free"] = data["radix"] - math.ceil(units - 1e-9)
    return graph


def _span(word: str, first: int, last: int) -> str:
    """``SU 3``, ``pods 1-4``, ``leafs 5-8``: the blocks one bundle of the aggregated graph holds."""
    if first == last:
        single = {"pod": _("pod {first}"), "SU": _("SU {first}"), "leaf": _("leaf {first}")}[word]
        return single.format(first=first)
    several = {"pod": _("pods {first}-{last}"), "SU": _("SUs {first}-{last}"), "leaf": _("leafs {first}-{last}")}[word]
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
    fabric: FabricPlan = plan.fabric
    resolved = plan.resolved
    speed = fabric.port_speed_gbps
    nodes = resolved.nodes
    islands = fabric.islands
    graph = nx.Graph(speed_gbps=speed, tiers=fabric.tiers, planes=fabric.planes, aggregated=True, islands=islands)
    spine_count, core_count = fabric.spine_count // islands, fabric.core_count // islands

    def add(name, **attrs):
        if graph.has_node(name):
            graph.nodes[name]["count"] += attrs["count"]
        else:
            graph.add_node(name, **attrs)

    def link(a, b, count):
        _add_links(graph, a, b, count, speed)

    if fabric.tiers == 1:
        add("leaf", role="leaf", count=1, label=_("switch"), block=0, rail=-1)
        add("servers", role="server", count=nodes, label=_("{count} nodes").format(count=nodes), block=0, rail=-1)
        link("servers", "leaf", fabric.node_leaf_links // islands)
        return graph

    groups_per_block = fabric.groups_per_pod if fabric.tiers == 3 else 1
    blocks = math.ceil(fabric.group_count / groups_per_block)
    blocks_per_bundle = math.ceil(blocks / MAX_BLOCKS)
    bundles = math.ceil(blocks / blocks_per_bundle)
    block_word = "pod" if fabric.tiers == 3 else ("SU" if fabric.topology != "top-of-rack" else "leaf")
    rails = fabric.leaves_per_group if fabric.topology != "top-of-rack" else 1

    if fabric.tiers == 2:
        add("spines", role="spine", count=spine_count,
            label=_("{count} spines").format(count=spine_count), block=-1, rail=-1)
    else:
        add("cores", role="core", count=core_count,
            label=_("{count} cores").format(count=core_count), block=-1, rail=-1)

    for bundle in range(bundles):
        first_block = bundle * blocks_per_bundle
        last_block = min(blocks, first_block + blocks_per_bundle) - 1
        first_group = first_block * groups_per_block
        last_group = min(fabric.group_count, (last_block + 1) * groups_per_block) - 1
        groups = last_group - first_group + 1
        first_node = first_group * fabric.nodes_per_group
        node_count = min(nodes, (last_group + 1) * fabric.nodes_per_group) - first_node
        span = _span(block_word, first_block + 1, last_block + 1)
        servers = f"servers{bundle}"
        add(servers, role="server", count=node_count, label=_("{span}: {count} nodes").format(span=span, count=node_count),
            span=span, block=bundle, rail=-1)
        if fabric.tiers == 3:
            spine = f"spines{bundle}"
            spines = (last_block - first_block + 1) * fabric.spines_per_pod
            add(spine, role="spine", count=spines, label=_("{span}: {count} spines").format(span=span, count=spines),
                span=span, block=bundle, rail=-1)
            uplinks = sum(fabric.spine_uplinks_in_pod(pod) for pod in range(first_block, last_block + 1))
            link(spine, "cores", uplinks * fabric.spines_per_pod)
        else:
            spine = "spines"
        per_node = 1 if fabric.topology != "top-of-rack" else resolved.nics_per_node // islands
        for r in range(rails):
            leaf = f"leaf{bundle}.{r}"
            label = (_("{span} rail {rail}: {count} leaves") if rails > 1 else _("{span} leaves: {count} leaves"))
            add(leaf, role="leaf", count=groups, label=label.format(span=span, rail=r + 1, count=groups),
                span=span, block=bundle, rail=r if rails > 1 else -1)
            link(servers, leaf, node_count * per_node)
            link(leaf, spine, groups * fabric.leaf_uplinks)
    return graph
