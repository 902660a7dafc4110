"""The spine-leaf / fat-tree diagram of a planned design, built from ``core.fabric.topology`` graphs.

``topology_figure`` draws the switch-level graph of plane 1 up to ``FULL_GRAPH_LIMIT`` elements,
then the aggregated graph (by scalable unit, pod and rail); ``count_drawn_elements`` counts the
markers plus line segments a figure draws (the diagram stays <= ``DRAW_BUDGET``).
"""

from __future__ import annotations

import math
from collections import defaultdict

import networkx as nx
import plotly.graph_objects as go

from core import plurals, vocab
from core.analysis.failure.spec import export_namer, failure_namer
from core.analysis.pods import MixedPlan, mixed_wiring
from core.analysis.whole import design_mixed
from core.errors import FabricPlannerError
from core.fabric.families import family as family_module, node_to_node, tier_words, words
from core.fabric.podgraph import pods_aggregated_graph, pods_fabric_graph, pods_graph_elements
from core.fabric.topology import aggregated_graph, fabric_graph
from core.fabric.wiring import Wiring
from core.units import bandwidth as format_bandwidth
from core.figures.style import (
    HIGHLIGHT, TIER_COLOURS, TIER_NAMES, TIER_Y, FigureSpec, base_layout, line_width, rail_colour,
    scatter, sep,
)
from core.i18n import N_, _, ngettext

DRAW_BUDGET = 2000
"""Most markers + line segments the topology diagram draws at any size."""
FULL_GRAPH_LIMIT = 1200
"""Above this many elements (plane 0, servers grouped) the diagram draws the aggregated graph."""


# --- topology ----------------------------------------------------------------------------------
def full_graph_elements(plan) -> int:
    """Elements (vertices + 2 per edge: a segment and a hover point) of plane 0's full graph, servers grouped; a
    family's links in classes its fields do not count (``core.fabric.families.link_counts``: a classic Dragonfly's
    local links, every pair of a group's routers) are drawn too.

    Computed from the sized fabric without building the graph, so the choice
    between the full and the aggregated drawing costs nothing at any size.
    """
    f = plan.fabric
    if f.tiers == 1:
        return 2 + 2
    vertices = f.group_count + f.leaf_count + f.spine_count + f.core_count
    edges = f.group_count * f.leaves_per_group
    if f.tiers == 2:
        edges += f.leaf_count * f.spine_count
    else:
        edges += f.leaf_count * f.spines_per_pod + f.spine_count * f.cores_per_group
    from core.fabric.families import link_counts  # a family's links its fields do not count (a Dragonfly's local ones)

    edges += sum(link_counts(f).values()) // max(1, f.planes)
    return vertices + 2 * edges


SERVERS_EACH_MAX = 16
"""Up to this many nodes every server is drawn; above, one vertex per scalable unit / leaf group."""


def mixed_of(plan) -> MixedPlan | None:
    """The mixed plan of ``plan``'s design with pods (``core.analysis.whole.design_mixed``); None without pods or
    when its pods cannot be planned together (the page says why elsewhere; the drawing shows pod 1)."""
    try:
        return design_mixed(plan.design)
    except FabricPlannerError:
        return None


def is_aggregated(plan, every_pod: bool = True) -> bool:
    """Whether the diagram draws the aggregated graph (the full one would pass ``FULL_GRAPH_LIMIT``; a design with
    pods: every pod's leaves and the shared spines, or with ``every_pod`` False pod 1's own fabric)."""
    mixed = mixed_of(plan) if every_pod else None
    if mixed is not None:
        return pods_graph_elements(mixed_wiring(mixed, three_tiers=True, planes=True), 1) > FULL_GRAPH_LIMIT
    return full_graph_elements(plan) > FULL_GRAPH_LIMIT


def row_name(family: str | None, role: str) -> str:
    """The diagram's label of tier ``role``'s row (``server``, ``leaf``, ``spine``, ``core``), in the current
    language: family ``family``'s ``row:<role>`` word (a classic Dragonfly's "Routers"), else ``TIER_NAMES``'. The
    app's diagram and the draw.io export read it."""
    return words(family, f"row:{role}", TIER_NAMES[role])


def topology_graph(plan, every_pod: bool = True) -> tuple[nx.Graph, bool]:
    """The graph to draw and whether it is aggregated (see ``is_aggregated``); a design with pods: every pod
    under the shared spines (``core.fabric.podgraph``), or with ``every_pod`` False pod 1's own fabric (the
    failure what-if, which analyses pod 1)."""
    mixed = mixed_of(plan) if every_pod else None
    if mixed is not None:
        wiring = mixed_wiring(mixed, three_tiers=True, planes=True)  # core.fabric.podgraph draws them; plane 1
        if is_aggregated(plan):
            return pods_aggregated_graph(wiring), True
        servers = "each" if mixed.fabric.nodes <= SERVERS_EACH_MAX else "grouped"
        return pods_fabric_graph(wiring, tuple(p.fabric.radix for p in mixed.plans),
                                 tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), servers, planes=1), False
    if not is_aggregated(plan, every_pod):
        servers = "each" if plan.resolved.nodes <= SERVERS_EACH_MAX else "grouped"
        return fabric_graph(plan, servers=servers, planes=1), False
    return aggregated_graph(plan), True


def _layer_positions(graph: nx.Graph) -> dict[str, tuple[float, float]]:
    """x in [0, 1] per tier (leaves ordered by block then rail); servers under their leaves."""
    pos: dict[str, tuple[float, float]] = {}
    by_role: dict[str, list] = defaultdict(list)
    for v, data in graph.nodes(data=True):
        by_role[data["role"]].append(v)

    def order(v):
        d = graph.nodes[v]
        block = d.get("block", d.get("group", 0))
        return (d.get("pod_index", 0), block if block is not None else 0, d.get("rail", -1), _index(v))

    def spread(items):
        slots, slot = [], 0.0  # a design with pods: a gap of two leaves between pods
        for i, v in enumerate(items):
            if i and graph.nodes[v].get("pod_index", 0) != graph.nodes[items[i - 1]].get("pod_index", 0):
                slot += 2
            slots.append(slot)
            slot += 1
        last = max(1.0, slots[-1]) if slots else 1.0
        return {v: (0.5 if len(items) == 1 else x / last) for v, x in zip(items, slots)}

    leaves = sorted(by_role["leaf"], key=order)
    for v, x in spread(leaves).items():
        pos[v] = (x, TIER_Y["leaf"])
    for role in ("spine", "core"):
        items = sorted(by_role[role], key=lambda v: (graph.nodes[v].get("block", graph.nodes[v].get("pod", 0)) or 0,
                                                    _index(v)))
        for v, x in {v: (0.5 if len(items) == 1 else i / (len(items) - 1)) for i, v in enumerate(items)}.items():
            pos[v] = (x, TIER_Y[role])
    # servers: each its own x. Servers wired to the same switches (a scalable unit in a rail-optimized
    # fabric, a rack under its top-of-rack leaf) share the span of those switches, spread evenly in it.
    pitch = 1.0 / max(1, len(leaves) - 1) if len(leaves) > 1 else 1.0
    clusters: dict[frozenset, list] = defaultdict(list)
    for v in by_role["server"]:
        clusters[frozenset(u for u in graph.neighbors(v) if u in pos)].append(v)
    for neighbours, servers in clusters.items():
        xs = [pos[u][0] for u in neighbours] or [0.5]
        lo, hi = min(xs), max(xs)
        if hi - lo < 0.8 * pitch:  # one leaf (or a few close ones): use the room around it
            mid = (lo + hi) / 2
            lo, hi = mid - 0.4 * pitch, mid + 0.4 * pitch
        servers.sort(key=_index)
        n = len(servers)
        for i, v in enumerate(servers):
            x = (lo + hi) / 2 if n == 1 else lo + (hi - lo) * i / (n - 1)
            pos[v] = (x, TIER_Y["server"])
    return pos


def server_text(plan, graph: nx.Graph, v: str, drawn: int, names=None) -> str:
    """The label under a server vertex: one server by its name (``server_name``: ``gpu003``; its number alone when
    more than 8 are drawn), a group ``SU 2: 32 nodes`` (shorter when many are drawn)."""
    data = graph.nodes[v]
    count = data.get("count", data.get("nodes", 1))
    nodes = plurals.nodes(count)
    if data.get("label"):  # aggregated: "pods 1-3: 1944 nodes"
        span = data.get("span") or data["label"].split(":")[0]
        return f"{span}<br>{nodes}" if drawn <= 4 else f"{span}<br>{count:,}" if drawn <= 7 else f"{count:,}"
    if "nodes" not in data:  # one server
        return server_name(v, names) if drawn <= 8 else f"{int(_index(v)) + 1}"
    group = data.get("group", 0) + 1
    if plan.fabric.topology == "rail-optimized" and plan.fabric.tiers > 1:
        word = _("SU {n}").format(n=group)
    else:
        word = _("group {n}").format(n=group)
    if drawn <= 4:  # two short lines: four of them fit under a 300 px chart
        return f"{word}<br>{nodes}"
    return f"{word}<br>{count:,}" if drawn <= 7 else f"{count:,}"  # the legend says they are nodes


SWITCH_NAMES = {"leaf": N_("leaf {n}"), "spine": N_("spine {n}"), "core": N_("core {n}")}
"""A switch of a tier by its number, as the hover texts name it (a family's own: its ``WORDS["name:<role>"]``)."""


def switch_name(family: str | None, role: str, number: int) -> str:
    """Switch ``number`` (1-based) of tier ``role`` as people call it in family ``family`` (a
    ``FabricPlan.family``; None: a folded Clos): ``leaf 3``, or the family's word (a Dragonfly's ``router 3``)."""
    if role not in SWITCH_NAMES:
        return f"{role} {number}"
    return words(family, f"name:{role}", SWITCH_NAMES[role]).format(n=number)


def link_name(family: str | None, link: str) -> str:
    """A link as the wiring names it (``p0.leaf3 -> p0.spine1#2``, ``node5.nic2 -> p0.leaf0``) with each switch
    end as ``switch_name`` calls it in family ``family`` (``leaf 4 -> spine 2#2``, a Dragonfly's
    ``router 4 -> router 9``); any other end as it is."""
    def end(device: str) -> str:
        stem, hash_, cable = device.partition("#")
        parsed = Wiring.parse(stem)
        return device if parsed is None else switch_name(family, parsed[0], parsed[3] + 1) + hash_ + cable

    return " -> ".join(end(device) for device in link.split(" -> "))


def element_name(family: str | None, element: str, namer=None) -> str:
    """A failure element's id as typed into the failure what-if (``p0.leaf0-leaf62``, ``p0.leaf3``, ``node5.nic2``)
    followed by its switches as family ``family`` names them where the family has its own word for them
    (``p0.leaf0-leaf62 (router 1 - router 63)``, ``switch_name``); the id alone otherwise. ``namer``: the
    exports' names (``core.analysis.failure.spec.export_namer``, ``ElementNames``): every element they name is said
    by them, the id in brackets (``leaf001 (p0.leaf0)``, ``leaf001 -> spine002 #1 (p0.leaf0-spine1#0)``,
    ``gpu006 nic3 (node5.nic2)``), then the family's own words (``leaf001 (p0.leaf0; router 1)``)."""
    exported = element if namer is None else namer.name(element)
    said = _family_words(family, element)
    if exported != element:
        return f"{exported} ({element if said is None else element + '; ' + said})"
    return element if said is None else f"{element} ({said})"


def _family_words(family: str | None, element: str) -> str | None:
    """A switch element's switches as family ``family`` names them (``router 1 - router 63``); None when the family
    has no word of its own for them."""
    stem, hash_, cable = element.partition("#")
    first, dash, second = stem.partition("-")
    parsed = Wiring.parse(first)
    if parsed is None or words(family, f"name:{parsed[0]}", None) is None:
        return None
    names = [switch_name(family, parsed[0], parsed[3] + 1)]
    if dash:
        other = Wiring.parse(first.rsplit(".", 1)[0] + "." + second if "." in first else second)
        if other is None:
            return None
        names.append(switch_name(family, other[0], other[3] + 1))
    return f"{' - '.join(names)}{hash_}{cable}"


def server_name(v: str, names=None) -> str:
    """One server vertex ``v`` (``node2``) by the name the exports and the single points give it (``names``:
    ``core.analysis.failure.spec.export_namer``'s ``ElementNames``: ``gpu003``), the one device-name rule of the
    charts' labels and hovers; without ``names`` (a design with pods' vertices), ``server 3``."""
    if names is not None:
        named = names.device_name(v)
        if named != v:
            return named
    return _("server {n}").format(n=int(_index(v)) + 1)


def device_names(plan, graph: nx.Graph, naming=None):
    """The exports' names of the devices of ``graph`` (``topology_graph`` of ``plan``) under the naming scheme
    ``naming`` (None: the default names): the whole fabric's for a design with pods drawn whole (``failure_namer``:
    ``pod2-leaf001``, ``spine001``), else ``export_namer``'s (``gpu003``, ``leaf001``; None for pod 1 drawn alone,
    whose vertices keep the family's words)."""
    return failure_namer(plan, naming) if graph.graph.get("pods") else export_namer(plan, naming)


def vertex_name(graph: nx.Graph, v: str, names=None) -> str:
    """What people call a vertex: its label, else ``servers of group 2``, one device's name as the exports give it
    (``names``: ``ElementNames.device_name``: ``gpu003``, ``leaf001``, a classic Dragonfly's ``router001``), or
    without ``names`` e.g. ``leaf 3`` (``switch_name`` in the graph's ``family``) or ``server 3``."""
    data = graph.nodes[v]
    if data.get("label"):
        return data["label"]
    named = names.device_name(v) if names is not None and "nodes" not in data else v
    if named != v:
        return named
    if data["role"] == "server":
        if "nodes" in data:
            return _("servers of group {n}").format(n=data.get("group", 0) + 1)
        return server_name(v, names)
    return switch_name(graph.graph.get("family"), data["role"], int(_index(v)) + 1)


def _index(name: str) -> float:
    digits = "".join(c if c.isdigit() or c == "." else " " for c in name).split()
    try:
        return float(digits[-1]) if digits else 0.0
    except ValueError:
        return 0.0



def _switch_hover(plan, graph: nx.Graph, v: str, data: dict, aggregated: bool, names=None) -> str:
    """A switch vertex's hover: its name (``vertex_name`` under ``names``), where it sits, model and ports."""
    role = data["role"]
    switch = plan.resolved.tier_switches.get(role, plan.resolved.switch)  # each tier may have its own model
    if aggregated:
        group = next((g for g in plan.fabric.switch_groups if g.role == role), None)
        count = data.get("count", 1)
        lines = [f"<b>{data.get('label', v)}</b>",
                 _("{count} x {switch} ({role})").format(count=f"{count:,}", switch=switch.id,
                                                         role=_role(role, plan.fabric.family))]
        if group is not None:
            ports = dict(down=group.down_ports_used, up=group.up_ports_used, used=group.ports_used,
                         radix=group.radix, free=group.ports_free)
            if len([g for g in plan.fabric.switch_groups if g.role == role]) > 1:
                lines.append(_("per switch: {down} down + {up} up = {used} of {radix} ports used, {free} free "
                               "(full block)").format(**ports))
            else:
                lines.append(_("per switch: {down} down + {up} up = {used} of {radix} ports used, "
                               "{free} free").format(**ports))
        return "<br>".join(lines)
    rail = data.get("rail", -1)
    where = []
    if role == "leaf":
        where.append(_("SU/group {n}").format(n=data.get("group", 0) + 1))
        if plan.fabric.tiers == 1 or plan.fabric.topology != "rail-optimized":
            rails = plan.resolved.rails
            where.append(_("all {rails} rails").format(rails=rails) if rails > 1 else _("1 rail"))
        elif rail is not None and rail >= 0 and plan.resolved.plane_mode == "per-rail":
            where.append(_("plane {plane}, NIC {nic} of every node").format(
                plane=data.get("island", 0) + 1, nic=Wiring.nic(rail, data.get("island", 0), plan.planes) + 1))
        elif rail is not None and rail >= 0:
            where.append(_("rail {n}").format(n=rail + 1))
    if data.get("pod") is not None and plan.fabric.tiers == 3 and role in ("leaf", "spine"):
        where.append(_("pod {n}").format(n=data["pod"] + 1))
    name = f"<b>{vertex_name(graph, v, names)}</b>"
    return "<br>".join([
        _("{name} ({where})").format(name=name, where=sep().join(where)) if where else name,
        f"{switch.name}",
        _("ports used {used} of {radix} at {speed}G, free {free}").format(
            used=data["ports_used"], radix=data["radix"], free=data["ports_free"],
            speed=plan.fabric.port_speed_gbps if role == "leaf" else plan.resolved.uplink_gbps),
    ])


ROLE_NAMES = {"leaf": N_("leaf"), "spine": N_("spine"), "core": N_("core"), "global": N_("global")}
"""A switch tier in running text: ``64 x QM9700 (leaf)``; ``global``: the Dragonfly+ global links' traces."""


def _role(role: str, family: str | None = None) -> str:
    """A switch tier in words, in ``family``'s own where it declares them (its ``WORDS``' ``tier:<role>``: a classic
    Dragonfly's routers)."""
    return words(family, f"tier:{role}", ROLE_NAMES[role]) if role in ROLE_NAMES else role


def _server_hover(plan, data: dict, aggregated: bool, name: str) -> str:
    """A server vertex's hover: its label (a group's) or ``name`` (one server's, ``server_name``), its GPUs, NICs."""
    r = plan.resolved
    count = data.get("count", data.get("nodes", 1))
    label = data.get("label") or (_("servers of group {n}").format(n=data.get("group", 0) + 1) if "nodes" in data
                                  else name)
    return "<br>".join([
        f"<b>{label}</b>",
        ngettext("{count} node x {gpus_per_node} GPUs = {gpus} {system}",
                 "{count} nodes x {gpus_per_node} GPUs = {gpus} {system}", count).format(
            count=f"{count:,}", gpus_per_node=r.gpus_per_node, gpus=f"{count * r.gpus_per_node:,}", system=r.system.id),
        _("{nics} x {nic} NICs per node at {speed}G").format(nics=r.nics_per_node, nic=r.nic.id,
                                                             speed=r.port_speed_gbps),
    ])


ARC_POINTS = 24
"""Points of each global-link arc."""


def _global_arcs(graph: nx.Graph, pos: dict, max_links: int) -> dict[tuple[str, str], tuple[list, list, float]]:
    """Spine-to-spine edges (Dragonfly+ global links) as arcs above the spine row: ``(a, b) -> (xs, ys, width)``;
    an arc rises with the distance it spans, so arcs between near groups stay under those between far ones."""
    ends = [(a, b, d) for a, b, d in graph.edges(data=True)  # a Dragonfly's router-to-router links too
            if graph.nodes[a]["role"] == graph.nodes[b]["role"] in ("spine", "leaf")]
    xs = [pos[v][0] for a, b, _d in ends for v in (a, b)]
    span = (max(xs) - min(xs)) if xs else 1.0
    arcs = {}
    for a, b, data in ends:
        (x0, y0), x1 = pos[a], pos[b][0]
        rise = 0.15 + 0.7 * abs(x1 - x0) / max(span, 1e-9)
        ts = [i / (ARC_POINTS - 1) for i in range(ARC_POINTS)]
        arcs[a, b] = ([x0 + (x1 - x0) * t for t in ts], [y0 + rise * 4 * t * (1 - t) for t in ts],
                      line_width(data["links"], max_links))
    return arcs


def _draw_arcs(fig, graph: nx.Graph, arcs: dict, hover_points: dict, dim: float, speed: int, unit: str,
               names=None) -> None:
    """The global-link arcs (``_global_arcs``) as traces, and their hover points (``speed`` per link [Gb/s]; the
    switches named by ``vertex_name`` under ``names``); a Dragonfly's local links (router to router inside a group)
    as one thin trace."""
    local: list[tuple[list, list, float]] = []
    legend = True  # the first global arc stands for all of them in the legend
    for (a, b), (xs, ys, width) in arcs.items():
        data = graph.edges[a, b]
        if graph.nodes[a].get("pod") == graph.nodes[b].get("pod") and graph.nodes[a]["role"] == "leaf":
            local.append((xs, ys, width))  # a Dragonfly's routers inside a group: one trace below
            continue
        fig.add_trace(scatter(x=xs, y=ys, mode="lines", line=dict(color=TIER_COLOURS["core"], width=width), opacity=dim,
                              hoverinfo="skip", showlegend=legend, legendgroup="global",
                              name=_("Global links between groups")))
        legend = False
        hover_points["global"].append((xs[len(xs) // 2], ys[len(ys) // 2], f"{vertex_name(graph, a, names)} - "
                                       f"{vertex_name(graph, b, names)}<br>" + ngettext(
            "{links} global link x {speed}G = {bandwidth} per direction",
            "{links} global links x {speed}G = {bandwidth} per direction", data["links"]).format(
            links=f"{data['links']:,}", speed=speed, bandwidth=format_bandwidth(data["capacity_gbps"], unit))))
    _local_arcs(fig, local, dim)


def _local_arcs(fig, arcs: list[tuple[list, list, float]], dim: float) -> None:
    """The local links between routers of one Dragonfly group, as thin arcs in the spine colour (one trace)."""
    if not arcs:
        return
    xs, ys = [], []
    for ax, ay, _width in arcs:
        xs += [*ax, None]
        ys += [*ay, None]
    fig.add_trace(scatter(x=xs, y=ys, mode="lines", line=dict(color=TIER_COLOURS["spine"], width=1),
                          opacity=dim / 2, hoverinfo="skip", showlegend=True, legendgroup="local",
                          name=_("Local links in a group")))


def topology_figure(plan, selected: str | None = None, unit: str = "Gb/s", height: int = 560,
                    every_pod: bool = True, slot: str = "three_fifths", naming=None) -> go.Figure:
    """Spine-leaf / fat-tree diagram of plane 0 of ``plan``.

    Tiers are layers (core, spine, leaf, servers); leaves and their links are
    coloured by rail; line width grows with the links in a bundle; hover shows
    the model, ports used and free, and bundle bandwidth. ``selected`` (a
    vertex id, as in ``customdata``) highlights that switch and its links.
    Legend entries toggle tiers. Past ``FULL_GRAPH_LIMIT`` elements the
    aggregated graph is drawn and the title says so. A design with pods draws every pod under the shared spines,
    each labelled with its system and leaf speed (``every_pod`` False: pod 1's own fabric). ``slot``: where the
    chart is drawn, its title wrapped for it (``SLOT_CHARS``; the Designer's three fifths of the page by default).
    ``naming``: the exports' naming scheme (``core.fabric.naming.NamingScheme``; None: the default) its servers are
    named by (``server_name``: ``gpu003``).
    """
    if node_to_node(plan.fabric.family):  # no switch tiers: the torus's own drawing
        from core.figures.torus import torus_figure
        return torus_figure(plan, height)
    graph, aggregated = topology_graph(plan, every_pod)
    mixed = mixed_of(plan) if graph.graph.get("pods") else None
    names = device_names(plan, graph, naming)
    f = plan.fabric
    pos = _layer_positions(graph)
    if selected is not None and selected not in graph:
        selected = None
    max_links = max((d["links"] for _, _, d in graph.edges(data=True)), default=1)

    # edges bucketed into traces by (tier group, colour, width); hover points at the midpoints
    buckets: dict[tuple, list] = defaultdict(list)
    hover_points: dict[str, list] = defaultdict(list)
    highlight_segments = []
    arcs = _global_arcs(graph, pos, max_links)
    for a, b, data in graph.edges(data=True):
        if (a, b) in arcs or (b, a) in arcs:
            continue
        lower, upper = sorted((a, b), key=lambda v: TIER_Y[graph.nodes[v]["role"]])
        upper_role = graph.nodes[upper]["role"]
        rail = graph.nodes[lower].get("rail", -1) if graph.nodes[lower]["role"] == "leaf" else \
            graph.nodes[upper].get("rail", -1)
        colour = TIER_COLOURS["core"] if upper_role == "core" else rail_colour(rail)
        width = line_width(data["links"], max_links)
        segment = (pos[lower], pos[upper])
        if selected in (a, b):
            highlight_segments.append(segment)
        buckets[(upper_role, colour, width)].append(segment)
        name_a, name_b = vertex_name(graph, lower, names), vertex_name(graph, upper, names)
        hover_points[upper_role].append((
            (pos[lower][0] + pos[upper][0]) / 2, (pos[lower][1] + pos[upper][1]) / 2,
            f"{name_a} - {name_b}<br>" + _("{links} x {speed}G = {bandwidth} per direction").format(
                links=plurals.links(data["links"]), speed=data.get("speed_gbps", f.port_speed_gbps),
                bandwidth=format_bandwidth(data["capacity_gbps"], unit)),
        ))

    fig = FigureSpec()
    dim = 0.25 if selected else 0.75
    for (role, colour, width), segments in sorted(buckets.items(), key=lambda kv: (TIER_Y[kv[0][0]], kv[0][2])):
        xs, ys = [], []
        for (x0, y0), (x1, y1) in segments:
            xs += [x0, x1, None]
            ys += [y0, y1, None]
        fig.add_trace(scatter(
            x=xs, y=ys, mode="lines", line=dict(color=colour, width=width), opacity=dim,
            hoverinfo="skip", legendgroup=role, showlegend=False, name=_("{role} links").format(role=_role(role)),
        ))
    if highlight_segments:
        xs, ys = [], []
        for (x0, y0), (x1, y1) in highlight_segments:
            xs += [x0, x1, None]
            ys += [y0, y1, None]
        fig.add_trace(scatter(x=xs, y=ys, mode="lines", line=dict(color=HIGHLIGHT, width=4),
                                 hoverinfo="skip", showlegend=False, name=_("selected links")))
    _draw_arcs(fig, graph, arcs, hover_points, dim, plan.fabric.uplink_speed_gbps or f.port_speed_gbps, unit, names)
    for role, points in hover_points.items():
        fig.add_trace(scatter(
            x=[p[0] for p in points], y=[p[1] for p in points], mode="markers",
            marker=dict(size=10, color="rgba(0,0,0,0)"), hovertext=[p[2] for p in points],
            hoverinfo="text", legendgroup=role, showlegend=False,
            name=_("{role} link bundles").format(role=_role(role)),
        ))

    # vertices: one trace per tier, leaves coloured by rail
    for role in ("server", "leaf", "spine", "core"):
        vs = [v for v, d in graph.nodes(data=True) if d["role"] == role]
        if not vs:
            continue
        colours, sizes, texts, hovers = [], [], [], []
        for v in vs:
            d = graph.nodes[v]
            colours.append(rail_colour(d.get("rail", -1)) if role == "leaf" else TIER_COLOURS[role])
            count = d.get("count", d.get("nodes", 1)) if role == "server" or aggregated else 1
            sizes.append(min(34, 16 + 4 * math.log10(max(1, count))) if (aggregated or role == "server") else
                         (14 if len(vs) <= 64 else 9))
            own = mixed.plans[d["pod_index"]] if mixed is not None and "pod_index" in d else plan  # its pod's
            hovers.append(_server_hover(own, d, aggregated, server_name(v, names)) if role == "server" else
                          _shared_spine_hover(mixed, graph, v, d, names) if mixed is not None and role == "spine"
                          and "pod_index" not in d else
                          _switch_hover(own, graph, v, d, aggregated, names))
            label = server_text(plan, graph, v, len(vs), names) if role == "server" else \
                "" if "first" in d else f"{count:,}" if aggregated and role != "leaf" else ""
            if role == "server" and len(vs) > 5 and "<br>" in label and len(texts) % 2:
                label = "<br><br>" + label  # two-line labels of neighbours alternate rows, so they never overlap
            texts.append(label)
        line_w = [3 if v == selected else 1 for v in vs]
        line_c = [HIGHLIGHT if v == selected else "white" for v in vs]
        symbol = "square" if role == "server" else "circle"
        position = {"server": "bottom center", "core": "top center"}.get(role, "middle right")
        _group_labels(fig, [(pos[v], graph.nodes[v]) for v in vs if "first" in graph.nodes[v]])
        fig.add_trace(scatter(
            x=[pos[v][0] for v in vs], y=[pos[v][1] for v in vs], mode="markers+text",
            marker=dict(size=sizes, color=colours, symbol=symbol, line=dict(width=line_w, color=line_c)),
            text=texts, textposition=position,
            textfont=dict(size=11), customdata=vs, hovertext=hovers, hoverinfo="text",
            name=_legend_name(plan, role, mixed), legendgroup=role,
        ))
    if mixed is not None:
        _pod_labels(fig, mixed, graph, pos)

    title = _title(plan, mixed, aggregated)
    base_layout(fig, title, height, slot=slot)
    title_top = fig.margin_top
    staggered = any(isinstance(s, str) and s.startswith("<br><br>") for tr in fig.data for s in (tr.get("text") or ()))
    top = max(TIER_Y[graph.nodes[v]["role"]] for v in graph.nodes)
    above = max((max(ys) for _xs, ys, _w in arcs.values()), default=top) - top  # global arcs rise above the spines
    fig.update_layout(
        showlegend=True,
        legend=dict(orientation="h", x=0, xanchor="left", y=-0.01, yanchor="top", groupclick="togglegroup",
                    itemclick="toggle", font=dict(size=12)),
        xaxis=dict(visible=False, range=[min(0.0, *(p[0] for p in pos.values())) - 0.05,
                                         max(1.0, *(p[0] for p in pos.values())) + 0.12], fixedrange=False),
        yaxis=dict(tickvals=[TIER_Y[r] for r in TIER_Y if TIER_Y[r] <= top],
                   ticktext=[row_name(plan.fabric.family, r) for r in TIER_Y if TIER_Y[r] <= top],
                   range=[(-0.85 if staggered else -0.5) - (0.45 if mixed is not None else 0),
                          top + max(0.45, above + 0.15)], showgrid=False,
                   zeroline=False),
        hovermode="closest", clickmode="event+select", dragmode="pan",
        margin=dict(l=10, r=10, t=title_top + 10, b=50),
    )
    return fig.figure()


def _title(plan, mixed: MixedPlan | None, aggregated: bool) -> str:
    """The topology diagram's title: the fabric's tiers and switch counts, what is drawn, the rail colours."""
    f = plan.fabric
    planes = f.planes
    if mixed is not None:
        return _pods_title(mixed, aggregated)
    parts = _title_parts(f)
    if planes > 1:
        title = _("Scale-out fabric, plane 1 of {planes}: {parts} per plane ({planes} identical planes)")
    elif plan.planes > 1:  # per-rail planes: every plane drawn, each its own fabric (the counts are all planes')
        title = _("Scale-out fabric, all {planes} planes: {parts}")
    else:
        title = _("Scale-out fabric: {parts}")
    title = title.format(planes=plan.planes, parts=sep().join(parts))
    sub = view_words(f.family, plan.resolved.nodes, aggregated)
    per_rail = f.islands if plan.resolved.plane_mode == "per-rail" else 1
    return title + _subtitle(sub, f.leaves_per_group if f.topology == "rail-optimized" and f.tiers > 1 else 0,
                             per_rail)


VIEW_WORDS = {"aggregated": N_("Aggregated view: switches and servers bundled by block and rail; numbers are counts"),
              "each": N_("Every switch and server drawn"),
              "grouped": N_("Every switch drawn; servers grouped per scalable unit / leaf")}
"""What the drawing of a design without pods shows, by view (``view_words``), in a folded Clos's words; a family
declares its own in its ``WORDS`` (``view:aggregated``, ``view:each``, ``view:grouped``: a torus has no switches,
leaves or scalable units; a Dragonfly's blocks are its groups)."""


def view_words(family: str | None, nodes: int, aggregated: bool) -> str:
    """What the topology drawing of a design of family ``family`` and ``nodes`` servers shows, in the current
    language and the family's words (``VIEW_WORDS``): the diagram's subtitle and the draw.io file's title (written
    in English)."""
    view = "aggregated" if aggregated else "each" if nodes <= SERVERS_EACH_MAX else "grouped"
    return words(family, f"view:{view}", VIEW_WORDS[view])


def _group_labels(fig, vertices: list[tuple[tuple[float, float], dict]]) -> None:
    """The groups each of a Dragonfly's group vertices stands for (``4-6``, ``7`` alone; its row is named Groups),
    as labels on a light ground under the vertex, clear of the arcs above; past 6 on the row, in two rows by turns
    (11 labels side by side run together at 1,024 px)."""
    for i, ((x, y), data) in enumerate(sorted(vertices, key=lambda item: item[0][0])):
        first, last = data["first"], data["last"]
        fig.add_annotation(x=x, y=y, yshift=-17 - (13 if i % 2 and len(vertices) > 6 else 0), showarrow=False,
                           text=f"{first}" if first == last else f"{first}-{last}", font=dict(size=10),
                           bgcolor="rgba(255,255,255,0.85)", borderpad=1)


def _title_parts(f) -> list[str]:
    """The drawing title's counts of one plane of fabric ``f``: its tiers (a family's own words,
    ``core.fabric.families.tier_words``), switches per tier, groups and global links."""
    if getattr(family_module(f.family), "tier_words", None) is not None:
        return [tier_words(f, counts=True)]
    parts = [tier_words(f),
             ngettext("{count} leaf", "{count} leaves", f.leaf_count).format(count=f"{f.leaf_count:,}")]
    if f.spine_count:
        parts.append(ngettext("{count} spine", "{count} spines", f.spine_count).format(count=f"{f.spine_count:,}"))
    if f.core_count:
        parts.append(ngettext("{count} core", "{count} cores", f.core_count).format(count=f"{f.core_count:,}"))
    if f.global_links:
        parts.append(ngettext("{count} {family} group", "{count} {family} groups", f.pod_count).format(
            count=f"{f.pod_count:,}", family=vocab.TOPOLOGY.label(f.family)))
        parts.append(ngettext("{count} global link", "{count} global links", f.global_links).format(
            count=f"{f.global_links:,}"))
    return parts


def _subtitle(sub: str, rails: int, planes: int = 1, every_plane: bool = True) -> str:
    """The title's subtitle: what is drawn and, with several rails, that a leaf's colour is its rail, as one
    ``<sup>`` line of two sentences (two ``<sup>`` lines would be rejoined without a stop when the review pack
    re-wraps the title for a whole page). ``planes``: per-rail planes, whose rails are named by the NIC they
    carry (``Wiring.nic``, as the cabling plan wires them: plane 1 of 2 holds NICs 1, 3, 5, 7) in every plane drawn
    (``every_plane``), else in plane 1 alone."""
    if rails <= 1:
        return f"<br><sup>{sub}</sup>"
    drawn = range(planes if every_plane else 1)
    glue = "\u00a0"  # a no-break space: a dot and its NICs, and the planes' numbers, never split across lines
    names = [f"{glue}/{glue}".join(str(Wiring.nic(r, i, planes) + 1) for i in drawn) for r in range(rails)]
    dots = "  ".join(f"<span style='color:{rail_colour(r)}'>&#9679;</span>{glue}{name}" for r, name in enumerate(names))
    if planes <= 1:
        rail_words = _("Leaf and link colour = rail: {rails}").format(rails=dots)
    elif every_plane:
        rail_words = _("Leaf and link colour = the NIC it carries in planes {planes}: {rails}").format(
            rails=dots, planes=f"{glue}/{glue}".join(str(i + 1) for i in drawn))
    else:
        rail_words = _("Leaf and link colour = the NIC it carries in plane 1: {rails}").format(rails=dots)
    return "<br><sup>" + _("{sentence}. {next}").format(sentence=sub, next=rail_words) + "</sup>"


def _pods_title(mixed: MixedPlan, aggregated: bool) -> str:
    """The title of a design with pods: pods, leaves and shared spines, and what is drawn."""
    f = mixed.fabric
    parts = [ngettext("{count} pod", "{count} pods", len(f.pods)).format(count=len(f.pods)),
             ngettext("{count} leaf", "{count} leaves", f.leaves).format(count=f"{f.leaves:,}"),
             ngettext("{count} shared spine", "{count} shared spines", f.spines).format(count=f"{f.spines:,}")]
    title = _("Scale-out fabric, pods under one spine layer: {parts}")
    if f.tiers == 3:  # each pod's own spines under the shared cores (core.fabric.podcore)
        parts[2:] = [_("{count} spines").format(count=f"{f.own_spines:,}"),
                     ngettext("{count} shared core", "{count} shared cores", f.cores).format(count=f"{f.cores:,}")]
        title = _("Scale-out fabric, pods under one core layer: {parts}")
    title = title.format(parts=sep().join(parts))
    if f.planes > 1:  # plane 1 drawn (pods_fabric_graph), the others identical
        title = _("{title} per plane; plane 1 of {planes} identical planes drawn").format(title=title, planes=f.planes)
    if aggregated:
        sub = _("Aggregated view: each pod's switches and servers bundled by block and rail; numbers are counts")
    else:
        sub = (_("Every pod's switches drawn, grouped by pod under the shared cores") if mixed.fabric.tiers == 3
               else _("Every pod's switches drawn, grouped by pod under the shared spines"))
    rails = max((p.fabric.leaves_per_group for p in mixed.plans if p.fabric.topology == "rail-optimized"), default=0)
    per_rail = f.planes if mixed.plans[0].resolved.plane_mode == "per-rail" else 1  # plane 1 drawn
    return title + _subtitle(sub, rails, per_rail, every_plane=False)


def _legend_name(plan, role: str, mixed: MixedPlan | None = None) -> str:
    """The legend entry of a tier: its name, switch count and model (a design with pods: every pod's)."""
    f = plan.fabric
    total = {"leaf": f.leaf_count, "spine": f.spine_count, "core": f.core_count}.get(role)
    if role == "server":
        nodes = plan.resolved.nodes if mixed is None else mixed.fabric.nodes
        return ngettext("Servers ({count} node)", "Servers ({count} nodes)", nodes).format(count=f"{nodes:,}")
    if mixed is not None:
        m = mixed.fabric
        per_pod = {"leaf": [(pod.leaf_switch, pod.leaves) for pod in m.pods]}.get(role)
        if role == "spine" and m.tiers == 3:  # the pods' own spines
            per_pod = [(pod.spine_switch, pod.own_spines) for pod in m.pods]
        if per_pod is None:  # the shared spines or cores: one model
            total, switch = (m.cores, m.core_switch) if role == "core" else (m.spines, m.spine_switch)
            return _(LEGEND_NAMES[role]).format(count=f"{total:,}", switch=switch)
        counts: dict[str, int] = {}
        for model, count in per_pod:
            counts[model] = counts.get(model, 0) + count
        if len(counts) == 1:
            (switch, total), = counts.items()
            return _(LEGEND_NAMES[role]).format(count=f"{total:,}", switch=switch)
        parts = " + ".join(_("{count} x {switch}").format(count=f"{n:,}", switch=model) for model, n in counts.items())
        return _(LEGEND_PARTS[role]).format(parts=parts)  # 16 x QM9700 + 8 x Q3400, not 24 x QM9700 + Q3400
    if role == "spine" and not total:  # a family without spines draws its groups there (a Dragonfly's)
        return words(f.family, "legend:spine", N_("Global ports of the groups' routers")).format(
            count=f"{f.pod_count:,}")
    return words(f.family, f"legend:{role}", LEGEND_NAMES[role]).format(
        count=f"{total:,}", switch=plan.resolved.tier_switches[role].id)


def _shared_spine_hover(mixed: MixedPlan, graph: nx.Graph, v: str, data: dict, names=None) -> str:
    """Hover text of a shared spine (or of the aggregated vertex of all of them): its name (``vertex_name`` under
    ``names``), model, pods and ports at the spine speed [Gb/s per direction]."""
    f = mixed.fabric
    lines = [f"<b>{vertex_name(graph, v, names)}</b>",
             _("{count} x {switch} ({role})").format(count=f"{data.get('count', 1):,}", switch=f.spine_switch,
                                                      role=_role("spine")),
             _("shared by {pods} pods; per switch {used} of {radix} ports used at {speed}G, {free} free").format(
                 pods=len(f.pods), used=f.spine_ports_used, radix=f.spine_radix, speed=f.spine_speed_gbps,
                 free=f.spine_radix - f.spine_ports_used)]
    return "<br>".join(lines)


POD_LABEL_DROP = 0.55
"""How far under the servers' row a pod's label stands (under the servers' own labels) [tier heights]."""


def _pod_labels(fig: FigureSpec, mixed: MixedPlan, graph: nx.Graph, pos: dict) -> None:
    """A label under each pod's servers and leaves: the pod, its GPU system and its leaf speed [Gb/s per
    direction]."""
    xs: dict[int, list[float]] = defaultdict(list)
    staggered = any(isinstance(t, str) and t.startswith("<br><br>") for tr in fig.data for t in (tr.get("text") or ()))
    drop = POD_LABEL_DROP + (0.35 if staggered else 0)  # under the servers' second row of labels
    for v, data in graph.nodes(data=True):
        if data["role"] == "leaf" and "pod_index" in data:
            xs[data["pod_index"]].append(pos[v][0])
    for i, pod in enumerate(mixed.fabric.pods):
        if xs.get(i):
            fig.add_annotation(
                x=(min(xs[i]) + max(xs[i])) / 2, y=TIER_Y["server"] - drop, showarrow=False,
                font=dict(size=12), yanchor="top",
                text=_("<b>pod {pod}</b>: {system}<br>{leaves} leaves at {speed}G").format(
                    pod=pod.index + 1, system=pod.system, leaves=f"{pod.leaves:,}", speed=pod.port_speed_gbps))


LEGEND_NAMES = {"leaf": N_("Leaf ({count} x {switch})"), "spine": N_("Spine ({count} x {switch})"),
                "core": N_("Core ({count} x {switch})")}
"""The legend's entry of a switch tier (English: the tier's axis name, ``TIER_NAMES``, and the count)."""
LEGEND_PARTS = {"leaf": N_("Leaf ({parts})"), "spine": N_("Spine ({parts})")}
"""The legend's entry of a tier whose pods use different switch models: each model's count (``16 x QM9700 + 8 x
Q3400``)."""


def count_drawn_elements(fig: go.Figure) -> int:
    """Markers plus line segments a figure draws (``None`` gaps split segments)."""
    total = 0
    for trace in fig.data:
        mode = getattr(trace, "mode", None) or ""
        xs = list(trace.x) if getattr(trace, "x", None) is not None else []
        if "lines" in mode:
            total += sum(1 for i in range(1, len(xs)) if xs[i] is not None and xs[i - 1] is not None)
        if "markers" in mode:
            total += sum(1 for x in xs if x is not None)
        if trace.type == "bar":
            total += len(xs) or len(list(trace.y or []))
    return total


