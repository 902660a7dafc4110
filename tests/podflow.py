"""Reference numbers of a pods design's failure what-if from its whole fabric's graph (networkx), shared by the pods
tests (``test_pods_three_analyses``, ``test_pods_planes_analyses``): the upward arcs of the live fabric and, per pod,
the max-flow into its top switches and the GPUs cut off."""

from __future__ import annotations

import networkx as nx


def upward(graph: nx.Graph, switches: set, lost: dict, rank: dict) -> nx.DiGraph:
    """The live fabric of ``graph`` (``core.fabric.podgraph``'s, edges with ``capacity_gbps`` [Gb/s] and ``links``) as
    arcs from the lower role to the higher (``rank``: role -> level), each at its capacity less its ``lost`` cables
    (``(lower, upper) -> cables``), without the failed ``switches``."""
    up = nx.DiGraph()
    up.add_nodes_from(graph.nodes(data=True))
    for u, v, data in graph.edges(data=True):
        lo, hi = sorted((u, v), key=lambda x: rank[graph.nodes[x]["role"]])
        cap = data["capacity_gbps"] * (data["links"] - lost.get((lo, hi), 0)) / data["links"]
        if u not in switches and v not in switches and cap > 0:
            up.add_edge(lo, hi, capacity=cap)
    up.remove_nodes_from(switches)
    return up


def into_top(up: nx.DiGraph, plans, top: str) -> list[tuple[float, int]]:
    """Per pod of ``plans`` (the mixed plan's, in pod order): the max-flow [Gb/s] from its servers into the live
    switches of role ``top`` over ``up``'s arcs (``upward``), and its GPUs outside the connected part holding the
    most GPUs."""
    gpn = [p.resolved.gpus_per_node for p in plans]
    gpus = {v: gpn[d["pod_index"]] for v, d in up.nodes(data=True) if d["role"] == "server"}
    keep = max(nx.connected_components(up.to_undirected()), key=lambda part: sum(gpus.get(v, 0) for v in part))
    out = []
    for i in range(len(plans)):
        flow = up.copy()
        for v, d in up.nodes(data=True):
            if d["role"] == "server" and d["pod_index"] == i:
                flow.add_edge("S", v)
            if d["role"] == top:
                flow.add_edge(v, "T")
        value = nx.maximum_flow_value(flow, "S", "T") if "T" in flow else 0.0
        out.append((value, sum(g for v, g in gpus.items() if up.nodes[v]["pod_index"] == i and v not in keep)))
    return out


def index_graph(design) -> nx.Graph:
    """``core.fabric.podgraph``'s graph of the pods ``design`` (two or three tiers, every plane), every server a
    vertex: the index graph the exports are checked against."""
    from core.analysis.pods import mixed_plan, mixed_wiring
    from core.fabric.podgraph import pods_fabric_graph

    mixed = mixed_plan(design)
    return pods_fabric_graph(mixed_wiring(mixed, three_tiers=True, planes=True),
                             tuple(p.fabric.radix for p in mixed.plans),
                             tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), "each")


def is_the_index_graph(found: nx.Graph, design) -> bool:
    """Whether the device graph ``found`` (names as the exports write them) is isomorphic to ``design``'s index graph
    (``index_graph``) with every vertex matched to the one of its name (``core.formats.podexports.PodNames``) and
    every edge's link count equal: the same wiring, device by device (an unlabelled isomorphism of these symmetric
    graphs is too slow)."""
    from core.analysis.pods import mixed_plan
    from core.formats.podexports import PodNames

    want = index_graph(design)
    names = PodNames(mixed_plan(design), None)
    for vertex, data in want.nodes(data=True):
        data["name"] = names(vertex, data)
    for vertex, data in found.nodes(data=True):
        data["name"] = vertex
    return nx.is_isomorphic(found, want, node_match=lambda a, b: a["name"] == b["name"],
                            edge_match=lambda a, b: a["links"] == b["links"])
