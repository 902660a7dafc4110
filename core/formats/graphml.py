"""GraphML export of the compute fabric: every server and switch of every plane, names from ``core.fabric.naming``.

``graphml_graph(plan, naming)`` is the graph the file holds (a ``networkx.Graph``); ``write_graphml`` streams it
as GraphML (http://graphml.graphdrawing.org/, the 1.0 schema: ``<key>`` declarations with ``attr.name`` and
``attr.type``, then ``<graph edgedefault="undirected">`` with ``<node>``, ``<edge>`` and ``<data>``), so
``networkx.read_graphml`` loads back the same graph (vertices, edges and every attribute with its type).

Vertex attributes:
  role            ``server``, ``leaf``, ``spine``, ``core``
  tier            0 servers, 1 leaf, 2 spine, 3 core
  model           catalog id of the switch model of that tier, or of the GPU system for servers
  ports           switch ports at the port speed (radix), or NICs of a server
  port_speed_gbps port speed [Gb/s, per direction]: a leaf's down ports, the uplink speed for spines and
                  cores, a server's NIC ports
  bandwidth_gbps  ``ports * port_speed_gbps`` [Gb/s, per direction] (a switch's or server's total)
  ports_used, ports_free  switches only (a broken-out leaf's uplinks count as the ports they take)
  plane, island   1-based (switches); group (SU / leaf group), rail, pod: 1-based where they apply
  x, y            position as the app's diagram lays it out: y the tier row (0 servers .. 3 core), x in
                  [0, 1] across the row (planes side by side)
Edge attributes: ``links`` (parallel links), ``speed_gbps`` [Gb/s per link, per direction],
``capacity_gbps`` (``links * speed_gbps``, per direction).
Graph attributes: the design's headline (``gpus``, ``nodes``, ``tiers``, ``planes``, ...) and ``aggregated``
(``"no"``, or why servers are grouped).

A design with pods: every pod's servers and leaves and the shared spines (``core.formats.podexports``: names
``pod2-gpu001``, ``spine001``; each vertex's attributes from its pod, ``pod`` its number), graph attribute ``pods``.

Size: a 131,072-GPU design (B300, 16,384 servers, 21,376 vertices, 296,096 edges, 44 MB) streams in 7.7 s
median (9.7 s worst of 3) with the 2-core machine at load average 22, 4.6 s at a lighter load
(``benchmarks/bench_exports.py``); about half of it is building the engine's graph
(``core.fabric.topology.fabric_graph``). Past ``MAX_ELEMENTS`` vertices + edges servers are grouped per
scalable unit (vertex ``servers`` attribute = node count) and the graph attribute ``aggregated`` says so.

Machine-readable: English whatever the request's language.
"""

from __future__ import annotations

from typing import TextIO
from xml.sax.saxutils import escape, quoteattr

import networkx as nx

from core.fabric import domainlevels
from core.fabric.families import clos_tiers, export_word
from core.fabric.naming import Namer, NamingScheme
from core.fabric.topology import fabric_graph
from core.fabric.wiring import Wiring
from core.formats.exports import Export
from core.formats.podslurm import mixed_of
from core.i18n import DEFAULT_LANGUAGE, N_, language

MAX_ELEMENTS = 2_000_000
"""Vertices + edges of the full graph (servers each) above which servers are grouped per SU."""
TIER = {"server": 0, "leaf": 1, "spine": 2, "core": 3}

NODE_KEYS = (("role", "string"), ("tier", "long"), ("model", "string"), ("ports", "long"),
             ("port_speed_gbps", "long"), ("bandwidth_gbps", "long"), ("ports_used", "long"),
             ("ports_free", "long"), ("plane", "long"), ("island", "long"), ("group", "long"), ("rail", "long"),
             ("pod", "long"), ("servers", "long"), ("x", "double"), ("y", "double"))
EDGE_KEYS = (("links", "long"), ("speed_gbps", "long"), ("capacity_gbps", "long"))
GRAPH_KEYS = (("name", "string"), ("gpus", "long"), ("nodes", "long"), ("gpu_model", "string"),
              ("fabric", "string"), ("topology", "string"), ("tiers", "long"), ("planes", "long"),
              ("islands", "long"), ("port_speed_gbps", "long"), ("uplink_speed_gbps", "long"),
              ("aggregated", "string"), ("units", "string"))
POD_GRAPH_KEYS = (("pods", "long"),)
"""Graph keys a design with pods adds (after ``GRAPH_KEYS``, declared only then)."""


def full_elements(plan) -> int:
    """Vertices + edges of the full graph, every plane, servers each (from the sizing, without building it; a
    topology family beyond the Clos counts its wiring's bundles of one plane and island, O(bundles))."""
    f = plan.fabric
    if not clos_tiers(f.family):
        w = Wiring.of(plan)
        switches = sum(w.count(role) for role in w.roles)
        return plan.resolved.nodes + f.planes * w.islands * (switches + sum(1 for _b in w.bundles(0, 0)))
    node_leaf_edges = plan.resolved.nodes * (1 if f.tiers == 1 else f.leaves_per_group) * f.islands
    per_plane = f.leaf_count + f.spine_count + f.core_count + node_leaf_edges
    if f.tiers == 2:
        per_plane += f.leaf_count * (f.spine_count // f.islands)
    elif f.tiers == 3:
        per_plane += f.leaf_count * f.spines_per_pod + f.spine_count * f.cores_per_group
    return plan.resolved.nodes + per_plane * f.planes


class _Records:
    """What the file holds, computed once: graph attributes, vertices (name -> attributes) in order, and the
    engine graph's edges with their endpoints' names (edges are read on demand: about 300,000 at 131,072 GPUs)."""

    def __init__(self, plan, naming: NamingScheme | None):
        mixed = mixed_of(plan)
        if mixed is not None:  # a design with pods: every pod under the shared spines
            from core.formats.podexports import graphml_records

            self.graph, self.source, self.names, self.vertices = graphml_records(mixed, naming)
            _layout(self.vertices, by_pod=True)
            return
        namer = Namer.of(plan, naming)
        resolved, fabric = plan.resolved, plan.fabric
        grouped = full_elements(plan) > MAX_ELEMENTS
        self.source = fabric_graph(plan, servers="grouped" if grouped else "each")
        grouped = grouped and any("nodes" in data for _v, data in self.source.nodes(data=True))  # a torus: never
        up_speed = fabric.uplink_speed_gbps or fabric.port_speed_gbps
        speed = {"server": fabric.port_speed_gbps, "leaf": fabric.port_speed_gbps, "spine": up_speed,
                 "core": up_speed}
        models = {role: switch.id for role, switch in resolved.tier_switches.items()}
        group_digits = namer.scheme.digits(fabric.group_count)
        self.graph = dict(
            name=f"{resolved.gpus} x {resolved.system.id}", gpus=resolved.gpus, nodes=resolved.nodes,
            gpu_model=resolved.system.id, fabric=resolved.fabric, topology=fabric.topology, tiers=fabric.tiers,
            planes=plan.planes, islands=fabric.islands, port_speed_gbps=fabric.port_speed_gbps,
            uplink_speed_gbps=up_speed,
            aggregated=("servers grouped per scalable unit: the full graph would have "
                        f"{full_elements(plan):,} vertices + edges (more than {MAX_ELEMENTS:,})") if grouped else "no",
            units="port_speed_gbps, speed_gbps, capacity_gbps, bandwidth_gbps: Gb/s per direction",
            **_nvlink_attributes(resolved),
        )
        self.names: dict[str, str] = {}
        self.vertices: dict[str, dict] = {}
        for vertex, data in self.source.nodes(data=True):
            role = data["role"]
            if role == "server" and "nodes" in data:  # the servers of a group, as one vertex
                name = f"{namer.scheme.node_prefix}-su{data['group'] + 1:0{group_digits}d}"
            else:
                name = namer.vertex(vertex)
            attrs = {"role": export_word(fabric.family, role, role), "tier": TIER[role]}  # a Dragonfly's router
            if role == "server":
                attrs.update(model=resolved.system.id, ports=resolved.nics_per_node, port_speed_gbps=speed[role],
                             bandwidth_gbps=resolved.nics_per_node * speed[role], group=data["group"] + 1)
                if "nodes" in data:
                    attrs["servers"] = data["nodes"]
            else:
                attrs.update(model=models.get(role, resolved.switch.id), ports=data["radix"],
                             port_speed_gbps=speed[role], bandwidth_gbps=data["radix"] * speed[role],
                             ports_used=data["ports_used"], ports_free=data["ports_free"],
                             plane=data["plane"] + 1, island=data["island"] + 1)
                if role == "leaf":
                    attrs.update(group=data["group"] + 1, pod=data["pod"] + 1)
                    if data["rail"] >= 0:
                        attrs["rail"] = data["rail"] + 1
                elif role == "spine":
                    attrs["pod"] = data["pod"] + 1
            self.names[vertex] = name
            self.vertices[name] = attrs
        _layout(self.vertices)

    def edges(self):
        """``(a, b, links, speed_gbps, capacity_gbps)`` with vertex names, in the engine graph's order."""
        names = self.names
        for a, b, data in self.source.edges(data=True):
            links, capacity = data["links"], data["capacity_gbps"]
            yield names[a], names[b], links, capacity // links, capacity


def _nvlink_attributes(resolved) -> dict:
    """Two NVLink levels as graph attributes (the graph is the scale-out fabric's; ``core.fabric.domainlevels``):
    ``nvlink_domain_gpus``, ``nvlink_level1_gpus`` and ``nvlink_level2_switches``; none with one level."""
    if not resolved.nvlink_rack_gpus:
        return {}
    return {"nvlink_domain_gpus": resolved.nvlink_domain_gpus, "nvlink_level1_gpus": resolved.nvlink_rack_gpus,
            "nvlink_level2_switches": domainlevels.scaleup_of(resolved).totals()["level2_switches"]}


def graphml_graph(plan, naming: NamingScheme | None = None) -> nx.Graph:
    """The graph the GraphML file holds: vertices named by ``Namer``, attributes as the module docstring says."""
    records = _Records(plan, naming)
    graph = nx.Graph(**records.graph)
    graph.add_nodes_from(records.vertices.items())
    graph.add_edges_from((a, b, {"links": links, "speed_gbps": speed, "capacity_gbps": capacity})
                         for a, b, links, speed, capacity in records.edges())
    return graph


def _layout(vertices: dict[str, dict], by_pod: bool = False) -> None:
    """``x``, ``y`` per vertex: tier rows as in the app's diagram, vertices in order across each row (``by_pod``:
    a design with pods, each pod's vertices together)."""
    rows: dict[int, list] = {tier: [] for tier in TIER.values()}
    for name, data in vertices.items():
        rows[data["tier"]].append(name)  # by tier: a family's role may have its own word (a Dragonfly's router)
    for tier, names in rows.items():
        names.sort(key=lambda v: (vertices[v].get("pod", 0) if by_pod else 0, vertices[v].get("plane", 0),
                                  vertices[v].get("island", 0), vertices[v].get("group", 0), vertices[v].get("rail", 0), v))
        n = len(names)
        for i, name in enumerate(names):
            vertices[name]["x"] = 0.5 if n == 1 else round(i / (n - 1), 6)
            vertices[name]["y"] = float(tier)


def _value(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return escape(str(value))


def write_graphml(plan, out: TextIO, naming: NamingScheme) -> None:
    """Stream the GraphML file of ``plan`` to ``out``."""
    with language(DEFAULT_LANGUAGE):
        records = _Records(plan, naming)
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    w('<!-- Compute fabric written by fabric planner. Speeds and capacities in Gb/s per direction; names follow '
      'one naming scheme with the Slurm, NetBox and draw.io exports. -->\n')
    w('<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
      'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
      'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
      'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n')
    ids = {}
    graph_keys = GRAPH_KEYS + (POD_GRAPH_KEYS if "pods" in records.graph else ())
    for kind, keys in (("graph", graph_keys), ("node", NODE_KEYS), ("edge", EDGE_KEYS)):
        for index, (attr, kind_type) in enumerate(keys):
            key = f"{kind[0]}{index}"
            ids[(kind, attr)] = key
            w(f'  <key id="{key}" for="{kind}" attr.name="{attr}" attr.type="{kind_type}"/>\n')
    w('  <graph id="fabric" edgedefault="undirected">\n')
    for attr, _type in graph_keys:
        if attr in records.graph:
            w(f'    <data key="{ids[("graph", attr)]}">{_value(records.graph[attr])}</data>\n')
    node_ids = [(attr, ids[("node", attr)]) for attr, _t in NODE_KEYS]
    quoted = {}
    chunk: list[str] = []
    for name, data in records.vertices.items():
        quoted[name] = quoteattr(name)
        chunk.append(f'    <node id={quoted[name]}>'
                     + "".join(f'<data key="{key}">{_value(data[attr])}</data>' for attr, key in node_ids
                               if attr in data) + "</node>\n")
        if len(chunk) >= 4096:
            w("".join(chunk))
            chunk.clear()
    links_key, speed_key, capacity_key = (ids[("edge", attr)] for attr, _t in EDGE_KEYS)
    for a, b, links, speed, capacity in records.edges():
        chunk.append(f'    <edge source={quoted[a]} target={quoted[b]}><data key="{links_key}">{links}</data>'
                     f'<data key="{speed_key}">{speed}</data><data key="{capacity_key}">{capacity}</data></edge>\n')
        if len(chunk) >= 4096:
            w("".join(chunk))
            chunk.clear()
    w("".join(chunk))
    w("  </graph>\n</graphml>\n")


EXPORTS = (
    Export("graphml", write_graphml, ".graphml", "application/graphml+xml",
           N_("GraphML: every server and switch with tier, model, ports and bandwidth"), every_pod=True),
)
