"""Plotly figures of a planned design: pure functions, no Streamlit, testable without a server.

``topology_figure``          spine-leaf / fat-tree diagram from ``core.topology`` graphs
``scaleup_figure``           one NVLink domain (HGX node or NVL72 rack): GPUs, NVSwitch chips, links
``bandwidth_hierarchy_figure``, ``tier_capacity_figure``, ``oversubscription_figure``
``capex_figure``, ``power_figure``
``count_drawn_elements``     markers plus line segments a figure draws (the diagram stays <= ``DRAW_BUDGET``)

Bandwidths are given in Gb/s by the engine and shown in the unit the caller
asks for ("Gb/s" or "GB/s", see ``core.keynumbers.format_bandwidth``).
"""

from __future__ import annotations

import math
from collections import defaultdict

import networkx as nx
import pandas as pd
import plotly.graph_objects as go

from core.catalog import load_catalog
from core.keynumbers import _num, format_bandwidth, format_power, format_usd
from core.topology import aggregated_graph, fabric_graph

DRAW_BUDGET = 2000
"""Most markers + line segments the topology diagram draws at any size."""
FULL_GRAPH_LIMIT = 1200
"""Above this many elements (plane 0, servers grouped) the diagram draws the aggregated graph."""

TIER_Y = {"server": 0.0, "leaf": 1.0, "spine": 2.0, "core": 3.0}
TIER_COLOURS = {"server": "#5d6d7e", "leaf": "#2e86c1", "spine": "#117a65", "core": "#7d3c98"}
TIER_NAMES = {"server": "Servers", "leaf": "Leaf", "spine": "Spine", "core": "Core"}
RAIL_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#393b79", "#ad494a", "#637939", "#7b4173", "#3182bd", "#e6550d", "#31a354",
)
HIGHLIGHT = "#f39c12"
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=13)
CATEGORY_COLOURS = {"compute": "#5d6d7e", "NIC": "#2e86c1", "switch": "#117a65", "transceiver": "#d35400",
                    "cable": "#7d3c98", "facility overhead": "#bdc3c7"}


def rail_colour(rail: int) -> str:
    return RAIL_COLOURS[rail % len(RAIL_COLOURS)] if rail is not None and rail >= 0 else TIER_COLOURS["leaf"]


def _base_layout(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0.0, xanchor="left", font=dict(size=15)),
        height=height, margin=dict(l=10, r=10, t=60, b=10), font=FONT,
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


# --- topology ----------------------------------------------------------------------------------
def full_graph_elements(plan) -> int:
    """Elements (vertices + 2 per edge: a segment and a hover point) of plane 0's full graph, servers grouped.

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
    return vertices + 2 * edges


SERVERS_EACH_MAX = 16
"""Up to this many nodes every server is drawn; above, one vertex per scalable unit / leaf group."""


def is_aggregated(plan) -> bool:
    """Whether the diagram draws the aggregated graph (the full one would pass ``FULL_GRAPH_LIMIT``)."""
    return full_graph_elements(plan) > FULL_GRAPH_LIMIT


def topology_graph(plan) -> tuple[nx.Graph, bool]:
    """The graph to draw and whether it is aggregated (see ``is_aggregated``)."""
    if not is_aggregated(plan):
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
        return (block if block is not None else 0, d.get("rail", -1), _index(v))

    def spread(items):
        n = len(items)
        return {v: (0.5 if n == 1 else i / (n - 1)) for i, v in enumerate(items)}

    leaves = sorted(by_role["leaf"], key=order)
    for v, x in spread(leaves).items():
        pos[v] = (x, TIER_Y["leaf"])
    for role in ("spine", "core"):
        items = sorted(by_role[role], key=lambda v: (graph.nodes[v].get("block", graph.nodes[v].get("pod", 0)) or 0,
                                                    _index(v)))
        for v, x in spread(items).items():
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


def server_text(plan, graph: nx.Graph, v: str, drawn: int) -> str:
    """The label under a server vertex: ``node 3``, ``SU 2: 32 nodes`` (shorter when many are drawn)."""
    data = graph.nodes[v]
    count = data.get("count", data.get("nodes", 1))
    if data.get("label"):  # aggregated: "pods 1-3: 1944 nodes"
        span = data["label"].split(":")[0]
        return data["label"] if drawn <= 5 else f"{span}<br>{count:,}" if drawn <= 12 else f"{count:,}"
    if "nodes" not in data:  # one server
        return f"node {int(_index(v)) + 1}" if drawn <= 8 else f"{int(_index(v)) + 1}"
    group = data.get("group", 0) + 1
    word = "SU" if plan.fabric.topology == "rail-optimized" and plan.fabric.tiers > 1 else "group"
    if drawn <= 5:
        return f"{word} {group}: {count:,} nodes"
    return f"{word} {group}<br>{count:,}" if drawn <= 12 else f"{count:,}"  # the legend says they are nodes


def vertex_name(graph: nx.Graph, v: str) -> str:
    """What people call a vertex: its label, else e.g. ``leaf 3`` or ``servers of group 2``."""
    data = graph.nodes[v]
    if data.get("label"):
        return data["label"]
    if data["role"] == "server":
        return f"servers of group {data.get('group', 0) + 1}" if "nodes" in data else f"server {int(_index(v)) + 1}"
    return f"{data['role']} {int(_index(v)) + 1}"


def _index(name: str) -> float:
    digits = "".join(c if c.isdigit() or c == "." else " " for c in name).split()
    try:
        return float(digits[-1]) if digits else 0.0
    except ValueError:
        return 0.0


def _width(links: int, max_links: int) -> float:
    """Line width by link count, in four steps (1 to 6 px)."""
    if max_links <= 1:
        return 1.5
    share = math.log1p(links) / math.log1p(max_links)
    return (1.0, 2.0, 3.5, 6.0)[min(3, int(share * 4))]


def _switch_hover(plan, graph: nx.Graph, v: str, data: dict, aggregated: bool) -> str:
    switch = plan.resolved.switch
    role = data["role"]
    if aggregated:
        group = next((g for g in plan.fabric.switch_groups if g.role == role), None)
        count = data.get("count", 1)
        lines = [f"<b>{data.get('label', v)}</b>", f"{count:,} x {switch.id} ({role})"]
        if group is not None:
            lines.append(f"per switch: {group.down_ports_used} down + {group.up_ports_used} up = "
                         f"{group.ports_used} of {group.radix} ports used, {group.ports_free} free"
                         + (" (full block)" if len([g for g in plan.fabric.switch_groups if g.role == role]) > 1
                            else ""))
        return "<br>".join(lines)
    rail = data.get("rail", -1)
    where = []
    if role == "leaf":
        where.append(f"SU/group {data.get('group', 0) + 1}")
        if plan.fabric.tiers == 1 or plan.fabric.topology != "rail-optimized":
            where.append(f"all {plan.resolved.rails} rails" if plan.resolved.rails > 1 else "1 rail")
        elif rail is not None and rail >= 0:
            where.append(f"rail {rail + 1}")
    if data.get("pod") is not None and plan.fabric.tiers == 3 and role in ("leaf", "spine"):
        where.append(f"pod {data['pod'] + 1}")
    return "<br>".join([
        f"<b>{vertex_name(graph, v)}</b>" + (f" ({', '.join(where)})" if where else ""),
        f"{switch.name}",
        f"ports used {data['ports_used']} of {data['radix']} at {plan.fabric.port_speed_gbps}G, "
        f"free {data['ports_free']}",
    ])


def _server_hover(plan, data: dict, aggregated: bool) -> str:
    r = plan.resolved
    count = data.get("count", data.get("nodes", 1))
    label = data.get("label") or (f"servers of group {data.get('group', 0) + 1}" if "nodes" in data else "server")
    return "<br>".join([
        f"<b>{label}</b>", f"{count:,} nodes x {r.gpus_per_node} GPUs = {count * r.gpus_per_node:,} {r.system.id}",
        f"{r.nics_per_node} x {r.nic.id} NICs per node at {r.port_speed_gbps}G",
    ])


def topology_figure(plan, selected: str | None = None, unit: str = "Gb/s", height: int = 560) -> go.Figure:
    """Spine-leaf / fat-tree diagram of plane 0 of ``plan``.

    Tiers are layers (core, spine, leaf, servers); leaves and their links are
    coloured by rail; line width grows with the links in a bundle; hover shows
    the model, ports used and free, and bundle bandwidth. ``selected`` (a
    vertex id, as in ``customdata``) highlights that switch and its links.
    Legend entries toggle tiers. Past ``FULL_GRAPH_LIMIT`` elements the
    aggregated graph is drawn and the title says so.
    """
    graph, aggregated = topology_graph(plan)
    f = plan.fabric
    pos = _layer_positions(graph)
    if selected is not None and selected not in graph:
        selected = None
    max_links = max((d["links"] for _, _, d in graph.edges(data=True)), default=1)

    # edges bucketed into traces by (tier group, colour, width); hover points at the midpoints
    buckets: dict[tuple, list] = defaultdict(list)
    hover_points: dict[str, list] = defaultdict(list)
    highlight_segments = []
    for a, b, data in graph.edges(data=True):
        lower, upper = sorted((a, b), key=lambda v: TIER_Y[graph.nodes[v]["role"]])
        upper_role = graph.nodes[upper]["role"]
        rail = graph.nodes[lower].get("rail", -1) if graph.nodes[lower]["role"] == "leaf" else \
            graph.nodes[upper].get("rail", -1)
        colour = TIER_COLOURS["core"] if upper_role == "core" else rail_colour(rail)
        width = _width(data["links"], max_links)
        segment = (pos[lower], pos[upper])
        if selected in (a, b):
            highlight_segments.append(segment)
        buckets[(upper_role, colour, width)].append(segment)
        name_a, name_b = vertex_name(graph, lower), vertex_name(graph, upper)
        hover_points[upper_role].append((
            (pos[lower][0] + pos[upper][0]) / 2, (pos[lower][1] + pos[upper][1]) / 2,
            f"{name_a} - {name_b}<br>{data['links']:,} link(s) x {f.port_speed_gbps}G = "
            f"{format_bandwidth(data['capacity_gbps'], unit)} per direction",
        ))

    fig = go.Figure()
    dim = 0.25 if selected else 0.75
    for (role, colour, width), segments in sorted(buckets.items(), key=lambda kv: (TIER_Y[kv[0][0]], kv[0][2])):
        xs, ys = [], []
        for (x0, y0), (x1, y1) in segments:
            xs += [x0, x1, None]
            ys += [y0, y1, None]
        fig.add_trace(go.Scatter(
            x=xs, y=ys, mode="lines", line=dict(color=colour, width=width), opacity=dim,
            hoverinfo="skip", legendgroup=role, showlegend=False, name=f"{role} links",
        ))
    if highlight_segments:
        xs, ys = [], []
        for (x0, y0), (x1, y1) in highlight_segments:
            xs += [x0, x1, None]
            ys += [y0, y1, None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=HIGHLIGHT, width=4),
                                 hoverinfo="skip", showlegend=False, name="selected links"))
    for role, points in hover_points.items():
        fig.add_trace(go.Scatter(
            x=[p[0] for p in points], y=[p[1] for p in points], mode="markers",
            marker=dict(size=10, color="rgba(0,0,0,0)"), hovertext=[p[2] for p in points],
            hoverinfo="text", legendgroup=role, showlegend=False, name=f"{role} link bundles",
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
            hovers.append(_server_hover(plan, d, aggregated) if role == "server" else
                          _switch_hover(plan, graph, v, d, aggregated))
            texts.append(server_text(plan, graph, v, len(vs)) if role == "server" else
                         f"{count:,}" if aggregated and role != "leaf" else "")
        line_w = [3 if v == selected else 1 for v in vs]
        line_c = [HIGHLIGHT if v == selected else "white" for v in vs]
        symbol = "square" if role == "server" else "circle"
        fig.add_trace(go.Scatter(
            x=[pos[v][0] for v in vs], y=[pos[v][1] for v in vs], mode="markers+text",
            marker=dict(size=sizes, color=colours, symbol=symbol, line=dict(width=line_w, color=line_c)),
            text=texts, textposition={"server": "bottom center", "core": "top center"}.get(role, "middle right"),
            textfont=dict(size=11), customdata=vs, hovertext=hovers, hoverinfo="text",
            name=_legend_name(plan, role, len(vs), graph, aggregated), legendgroup=role,
        ))

    planes = f.planes
    parts = [f"{f.tiers} tier{'s' if f.tiers > 1 else ''}", f"{f.leaf_count:,} lea{'ves' if f.leaf_count > 1 else 'f'}"]
    if f.spine_count:
        parts.append(f"{f.spine_count:,} spines")
    if f.core_count:
        parts.append(f"{f.core_count:,} cores")
    title = "Scale-out fabric, plane 1 of " + str(planes) + ": " + ", ".join(parts)
    if planes > 1:
        title += f" per plane ({planes} identical planes)"
    if aggregated:
        title += "<br><sup>Aggregated view: switches and servers bundled by block and rail; numbers are counts</sup>"
    else:
        title += ("<br><sup>Every switch and server drawn</sup>" if plan.resolved.nodes <= SERVERS_EACH_MAX else
                  "<br><sup>Every switch drawn; servers grouped per scalable unit / leaf</sup>")
    rails = f.leaves_per_group if f.topology == "rail-optimized" and f.tiers > 1 else 0
    if rails > 1:
        title += "<br><sup>Leaf and link colour = rail: " + "  ".join(
            f"<span style='color:{rail_colour(r)}'>&#9679;</span> {r + 1}" for r in range(rails)) + "</sup>"
    _base_layout(fig, title, height)
    top = max(TIER_Y[graph.nodes[v]["role"]] for v in graph.nodes)
    fig.update_layout(
        showlegend=True,
        legend=dict(orientation="h", x=0, xanchor="left", y=-0.01, yanchor="top", groupclick="togglegroup",
                    itemclick="toggle", font=dict(size=12)),
        xaxis=dict(visible=False, range=[min(0.0, *(p[0] for p in pos.values())) - 0.05,
                                         max(1.0, *(p[0] for p in pos.values())) + 0.08], fixedrange=False),
        yaxis=dict(tickvals=[TIER_Y[r] for r in TIER_Y if TIER_Y[r] <= top],
                   ticktext=[TIER_NAMES[r] for r in TIER_Y if TIER_Y[r] <= top],
                   range=[-0.5, top + 0.45], showgrid=False, zeroline=False),
        hovermode="closest", clickmode="event+select", dragmode="pan",
        margin=dict(l=10, r=10, t=90 if rails > 1 else 70, b=50),
    )
    return fig


def _legend_name(plan, role: str, drawn: int, graph: nx.Graph, aggregated: bool) -> str:
    f = plan.fabric
    total = {"leaf": f.leaf_count, "spine": f.spine_count, "core": f.core_count}.get(role)
    if role == "server":
        return f"Servers ({plan.resolved.nodes:,} node{'s' if plan.resolved.nodes != 1 else ''})"
    return f"{TIER_NAMES[role]} ({total:,} x {plan.resolved.switch.id})"


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


# --- scale-up ----------------------------------------------------------------------------------
# nvidia-smi topo -m of a DGX-1V: NVLink count between GPU pairs (hybrid cube-mesh, 6 links per GPU).
DGX1_CUBE_MESH = {
    (0, 1): 1, (0, 2): 1, (0, 3): 2, (0, 4): 2, (1, 2): 2, (1, 3): 1, (1, 5): 2, (2, 3): 2, (2, 6): 1,
    (3, 7): 1, (4, 5): 1, (4, 6): 1, (4, 7): 2, (5, 6): 2, (5, 7): 1, (6, 7): 2,
}


def nvlink_links_per_gpu(plan) -> int:
    """NVLink links per GPU for the chosen generation: bidir bandwidth / per-link bidir bandwidth."""
    r = plan.resolved
    generation = load_catalog().nvlink_generation(r.nvlink_generation)
    return max(0, round(r.nvlink_gbytes_per_gpu_bidir / generation.link_gbytes_bidir))


def nvswitch_spread_text(links: int, per_chip: list[int]) -> str:
    """How a GPU's NVLink links spread over the NVSwitch chips, in words."""
    chips = len(per_chip)
    if len(set(per_chip)) == 1:
        each = "one" if per_chip[0] == 1 else str(per_chip[0])
        return f"{links} links per GPU, {each} to each of {chips} NVSwitch chips"
    return f"{links} links per GPU spread over {chips} NVSwitch chips ({'+'.join(map(str, per_chip))})"


def scaleup_figure(plan, unit: str = "GB/s", height: int = 560) -> go.Figure:
    """One NVLink domain: GPUs (or compute trays), NVSwitch chips (or switch trays) and link counts.

    The domain is ``resolved.nvlink_domain_gpus`` GPUs; NVSwitch chips come
    from the system (scaled when the domain differs from the system's); each
    GPU's ``L`` links spread evenly over the ``C`` chips (``L // C`` each,
    the first ``L % C`` chips one more). Systems without NVSwitch draw
    direct GPU-GPU links (the DGX-1V cube-mesh as ``nvidia-smi topo`` shows it).
    """
    r = plan.resolved
    system = r.system
    generation = load_catalog().nvlink_generation(r.nvlink_generation)
    link_bidir = generation.link_gbytes_bidir
    domain, gpn = r.nvlink_domain_gpus, r.gpus_per_node
    links = nvlink_links_per_gpu(plan)
    chips = system.nvswitch_chips_per_domain
    if chips and domain != system.nvlink_domain_gpus:
        chips = max(1, round(chips * domain / system.nvlink_domain_gpus))
    fig = go.Figure()
    title = (f"Scale-up: NVLink {r.nvlink_generation} domain of {domain} GPUs"
             + (f" ({domain // gpn} nodes/trays of {gpn})" if domain > gpn else "")
             + f"<br><sup>{links} links per GPU x {format_bandwidth(link_bidir * 8, unit)} bidir = "
             f"{format_bandwidth(r.nvlink_gbytes_per_gpu_bidir * 8, unit)} per GPU (bidir)</sup>")
    _base_layout(fig, title, height)
    fig.update_layout(xaxis=dict(visible=False), yaxis=dict(visible=False), showlegend=False, hovermode="closest")

    if domain <= 1 or links == 0:
        xs = [i / max(1, gpn - 1) for i in range(gpn)]
        fig.add_trace(go.Scatter(x=xs, y=[1] * gpn, mode="markers+text", text=[f"GPU {i}" for i in range(gpn)],
                                 textposition="top center", marker=dict(size=26, symbol="square",
                                                                        color=TIER_COLOURS["server"])))
        fig.add_annotation(text="No NVLink domain: GPUs talk through the NICs", x=0.5, y=0.6, showarrow=False)
        return fig

    if not chips:  # direct links
        n = domain
        if n == 8 and gpn == 8:
            pairs = DGX1_CUBE_MESH
            note = "hybrid cube-mesh, no NVSwitch (DGX-1V as nvidia-smi topo -m shows it)"
        else:
            per = max(1, links // max(1, n - 1))
            pairs = {(i, j): per for i in range(n) for j in range(i + 1, n)}
            note = "direct GPU-GPU links, schematic"
        pos = {i: ((i % 4) / 3 if n >= 4 else i / max(1, n - 1), 1.0 if i < 4 else 0.0) for i in range(n)}
        for (a, b), count in pairs.items():
            fig.add_trace(go.Scatter(x=[pos[a][0], pos[b][0]], y=[pos[a][1], pos[b][1]], mode="lines",
                                     line=dict(width=1.5 + 2 * count, color=TIER_COLOURS["spine"]), opacity=0.7,
                                     hoverinfo="skip"))
        fig.add_trace(go.Scatter(
            x=[(pos[a][0] + pos[b][0]) / 2 for a, b in pairs], y=[(pos[a][1] + pos[b][1]) / 2 for a, b in pairs],
            mode="markers", marker=dict(size=10, color="rgba(0,0,0,0)"), hoverinfo="text",
            hovertext=[f"GPU {a} - GPU {b}: {c} link(s) = {format_bandwidth(c * link_bidir * 8, unit)} bidir"
                       for (a, b), c in pairs.items()]))
        fig.add_trace(go.Scatter(x=[p[0] for p in pos.values()], y=[p[1] for p in pos.values()],
                                 mode="markers+text", text=[f"GPU {i}" for i in pos], textposition="middle center",
                                 marker=dict(size=44, symbol="square", color="#d5dbdb",
                                             line=dict(color=TIER_COLOURS["server"], width=2)),
                                 hovertext=[f"GPU {i}: {links} NVLink links" for i in pos], hoverinfo="text"))
        fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=-0.02, showarrow=False, xanchor="left")
        fig.update_layout(yaxis=dict(visible=False, range=[-0.4, 1.4]), xaxis=dict(visible=False,
                                                                                   range=[-0.2, 1.2]))
        return fig

    # NVSwitch: GPUs (or trays) on top, chips (or switch trays) below
    per_pair = [links // chips + (1 if c < links % chips else 0) for c in range(chips)]
    gpu_units = domain if domain <= 16 else domain // gpn
    gpus_per_unit = domain // gpu_units
    chips_per_unit = 1 if chips <= 8 else 2
    chip_units = math.ceil(chips / chips_per_unit)
    unit_word = "GPU" if gpus_per_unit == 1 else "tray"
    top = {u: (u / max(1, gpu_units - 1), 1.0) for u in range(gpu_units)}
    bottom = {s: ((s + 0.5) / chip_units if chip_units > 1 else 0.5, 0.0) for s in range(chip_units)}
    max_count = gpus_per_unit * chips_per_unit * max(per_pair)
    segments: dict[float, list] = defaultdict(list)
    mids = []
    for u in range(gpu_units):
        for s in range(chip_units):
            chip_ids = range(s * chips_per_unit, min(chips, (s + 1) * chips_per_unit))
            count = gpus_per_unit * sum(per_pair[c] for c in chip_ids)
            if count == 0:
                continue
            dense = gpu_units * chip_units > 64  # e.g. NVL72: 18 trays x 9 switch trays, every pair linked
            width = 1.0 if dense else _width(count, max_count)
            segments[width].append((top[u], bottom[s]))
            mids.append(((top[u][0] + bottom[s][0]) / 2, 0.5,
                         f"{unit_word} {u + 1} - NVSwitch {'chip' if chips_per_unit == 1 else 'tray'} {s + 1}: "
                         f"{count} link(s) = {format_bandwidth(count * link_bidir * 8, unit)} bidir"))
    opacity = 0.8 if gpu_units * chip_units <= 64 else 0.45
    for width, segs in segments.items():
        xs, ys = [], []
        for (x0, y0), (x1, y1) in segs:
            xs += [x0, x1, None]
            ys += [y0, y1, None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(width=width, color=TIER_COLOURS["spine"]),
                                 opacity=opacity, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[m[0] for m in mids], y=[m[1] for m in mids], mode="markers",
                             marker=dict(size=8, color="rgba(0,0,0,0)"), hovertext=[m[2] for m in mids],
                             hoverinfo="text"))
    size_top = 40 if gpu_units <= 8 else (24 if gpu_units <= 16 else 16)
    fig.add_trace(go.Scatter(
        x=[p[0] for p in top.values()], y=[1.0] * gpu_units, mode="markers+text",
        text=[f"GPU {u}" if gpus_per_unit == 1 else f"{u + 1}" for u in top] if gpu_units <= 18 else None,
        textposition="middle center" if gpu_units <= 8 else "top center", textfont=dict(size=10),
        marker=dict(size=size_top, symbol="square", color="#d5dbdb", line=dict(color=TIER_COLOURS["server"], width=2)),
        hovertext=[f"{unit_word} {u + 1}: {gpus_per_unit} GPU(s) x {links} NVLink links" for u in top],
        hoverinfo="text"))
    fig.add_trace(go.Scatter(
        x=[p[0] for p in bottom.values()], y=[0.0] * chip_units, mode="markers+text",
        text=[f"NVSwitch {s + 1}" if chips_per_unit == 1 else f"{s + 1}" for s in bottom],
        textposition="bottom center", textfont=dict(size=10),
        marker=dict(size=30 if chip_units <= 8 else 20, symbol="diamond", color=TIER_COLOURS["spine"]),
        hovertext=[f"NVSwitch {'chip' if chips_per_unit == 1 else 'tray'} {s + 1} "
                   f"(gen {system.nvswitch_generation}; {chips_per_unit} chip(s))" for s in bottom],
        hoverinfo="text"))
    detail = nvswitch_spread_text(links, per_pair)
    if gpus_per_unit > 1:
        per_tray = gpus_per_unit * sum(per_pair[:chips_per_unit])
        detail += (f"<br>Top: {gpu_units} compute trays of {gpus_per_unit} GPUs; bottom: {chip_units} NVSwitch trays "
                   f"of {chips_per_unit} chips<br>Each line: {per_tray} links between a compute tray and a "
                   f"switch tray")
    # the node's NICs: the rails into the scale-out fabric
    fig.add_annotation(text=detail + f"<br>Scale-out: {r.nics_per_node} x {r.nic.id} at {r.port_speed_gbps}G per "
                       f"{'node' if gpus_per_unit == 1 else 'tray'} ({r.planes} plane(s))",
                       xref="paper", yref="paper", x=0, y=-0.02, showarrow=False, xanchor="left", yanchor="top",
                       align="left", font=dict(size=11))
    fig.update_layout(yaxis=dict(visible=False, range=[-0.45, 1.35]), xaxis=dict(visible=False, range=[-0.08, 1.08]),
                      margin=dict(l=10, r=10, t=70, b=95 if gpus_per_unit > 1 else 50))
    return fig


# --- bandwidth ---------------------------------------------------------------------------------
def bandwidth_scale(max_gbits: float, unit: str) -> tuple[float, str]:
    """(divisor of Gb/s, label) putting ``max_gbits`` in G, T or P units of ``unit`` ("GB/s" or "Gb/s"),
    so an axis and its bar labels share one unit."""
    per = 8 if unit == "GB/s" else 1
    letter = unit[1]
    value = max_gbits / per
    for scale, prefix in ((1e6, "P"), (1e3, "T")):
        if abs(value) >= scale:
            return per * scale, f"{prefix}{letter}/s"
    return per, f"G{letter}/s"


def _scaled(values: list[float], unit: str, prefix: bool = True) -> tuple[list[float], list[str], str]:
    """Values in Gb/s -> (axis values, bar labels, unit label), all in one unit (G only if not ``prefix``)."""
    divisor, label = bandwidth_scale(max(values, default=0) if prefix else 0, unit)
    scaled = [v / divisor for v in values]
    return scaled, [f"{_num(v)} {label}" for v in scaled], label


def bandwidth_hierarchy_figure(plan, unit: str = "GB/s") -> go.Figure:
    """Per-GPU bandwidth, one direction: NVLink, scale-out NICs, and the share of the bisection."""
    bw = plan.bandwidth
    rows = [
        ("NVLink (scale-up)", bw.nvlink_gbytes_per_gpu_per_direction * 8, TIER_COLOURS["spine"]),
        ("Scale-out NICs", bw.scaleout_gbits_per_gpu, TIER_COLOURS["leaf"]),
        ("Cross-fabric (bisection share)", bw.cross_fabric_gbits_per_gpu, TIER_COLOURS["core"]),
    ]
    values, texts, label = _scaled([r[1] for r in rows], unit, prefix=False)  # NVLink vs a NIC: one G scale
    fig = go.Figure(go.Bar(
        y=[r[0] for r in rows][::-1], x=values[::-1], orientation="h",
        marker_color=[r[2] for r in rows][::-1], text=texts[::-1],
        textposition="auto", hovertemplate="%{y}: %{text} per GPU, one direction<extra></extra>",
    ))
    _base_layout(fig, f"Bandwidth per GPU, one direction [{label}]", 300)
    fig.update_layout(xaxis_title=f"{label} per GPU, one direction", yaxis=dict(automargin=True))
    return fig


def tier_capacity_figure(plan, capacities_gbits: dict[str, float], unit: str = "GB/s") -> go.Figure:
    """Capacity of each fabric stage, all planes, one direction, plus the bisection."""
    names = {"injection": "Injection (all NIC ports)", "leaf_up": "Leaf -> spine", "spine_up": "Spine -> core"}
    labels = [names[k] for k in capacities_gbits] + ["Bisection"]
    values = list(capacities_gbits.values()) + [plan.bandwidth.bisection_tbits_one_direction * 1000]
    colours = [TIER_COLOURS["server"], TIER_COLOURS["leaf"], TIER_COLOURS["spine"]][: len(capacities_gbits)] + [
        TIER_COLOURS["core"]]
    scaled, texts, tunit = _scaled(values, unit)
    fig = go.Figure(go.Bar(x=labels, y=scaled, marker_color=colours, text=texts, textposition="auto",
                           hovertemplate="%{x}: %{text}<extra></extra>"))
    _base_layout(fig, f"Capacity per tier, all planes, one direction [{tunit}]", 320)
    fig.update_layout(yaxis_title=tunit)
    return fig


def oversubscription_figure(sweep: pd.DataFrame, current: float, unit: str = "GB/s") -> go.Figure:
    """Per-GPU cross-fabric bandwidth and network capex per GPU against leaf oversubscription."""
    ok = sweep[sweep["feasible"]]
    scale = 1 / 8 if unit == "GB/s" else 1
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=ok["oversubscription"], y=ok["cross_fabric_gbits_per_gpu"] * scale, mode="lines+markers",
        name=f"cross-fabric per GPU [{unit}]", line=dict(color=TIER_COLOURS["leaf"], width=3),
        hovertemplate="%{x:g}:1 -> %{y:.3g} " + unit + " per GPU<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=ok["oversubscription"], y=ok["network_capex_per_gpu_usd"], mode="lines+markers", yaxis="y2",
        name="network capex per GPU [USD]", line=dict(color=CATEGORY_COLOURS["transceiver"], dash="dot"),
        hovertemplate="%{x:g}:1 -> $%{y:,.0f} network per GPU<extra></extra>"))
    here = ok[ok["oversubscription"] == current]
    if len(here):
        fig.add_trace(go.Scatter(x=here["oversubscription"], y=here["cross_fabric_gbits_per_gpu"] * scale,
                                 mode="markers", marker=dict(size=16, color=HIGHLIGHT, symbol="star"),
                                 name="this design", hovertemplate="this design<extra></extra>"))
    bad = sweep[~sweep["feasible"]]
    _base_layout(fig, "Cross-fabric bandwidth per GPU vs leaf oversubscription (re-planned by the engine)", 340)
    fig.update_layout(
        xaxis=dict(title="leaf oversubscription (down:up)", tickvals=list(sweep["oversubscription"]),
                   ticktext=[f"{v:g}:1" for v in sweep["oversubscription"]]),
        yaxis=dict(title=f"{unit} per GPU, one direction", rangemode="tozero"),
        yaxis2=dict(title="network USD per GPU", overlaying="y", side="right", rangemode="tozero", showgrid=False,
                    tickprefix="$", tickformat=".3~s"),
        legend=dict(orientation="h", y=-0.3),
    )
    if len(bad):
        fig.add_annotation(text="not buildable at " + ", ".join(f"{v:g}:1" for v in bad["oversubscription"]),
                           xref="paper", yref="paper", x=1, y=1.0, showarrow=False, xanchor="right",
                           font=dict(size=11))
    return fig


# --- cost and power ------------------------------------------------------------------------------
def capex_figure(plan) -> go.Figure:
    """Capex by category [USD] with shares."""
    frame = plan.bom_frame().groupby("category", sort=False)["extended_price_usd"].sum()
    total = frame.sum()
    fig = go.Figure(go.Bar(
        x=list(frame.index), y=list(frame.values), marker_color=[CATEGORY_COLOURS.get(c, "#999") for c in frame.index],
        text=[f"{format_usd(v)} ({v / total:.1%})" for v in frame.values], textposition="outside", cliponaxis=False,
        hovertemplate="%{x}: %{text}<extra></extra>"))
    _base_layout(fig, f"Capex by category: {format_usd(total)} total, "
                      f"{format_usd(plan.cost.capex_per_gpu_usd)} per GPU [USD, estimates]", 360)
    fig.update_layout(yaxis=dict(title="USD", range=[0, frame.max() * 1.15]))
    return fig


def power_figure(plan) -> go.Figure:
    """IT power by category [kW] plus the facility overhead implied by the PUE."""
    frame = plan.bom_frame().groupby("category", sort=False)["extended_power_w"].sum() / 1000
    frame = frame[frame > 0]
    overhead = plan.cost.facility_kw - plan.cost.it_kw
    labels = list(frame.index) + ["facility overhead"]
    values = list(frame.values) + [overhead]
    fig = go.Figure(go.Bar(
        x=labels, y=values, marker_color=[CATEGORY_COLOURS.get(c, "#999") for c in labels],
        text=[format_power(v) for v in values], textposition="outside", cliponaxis=False,
        hovertemplate="%{x}: %{text}<extra></extra>"))
    _base_layout(fig, f"Power by category: IT {format_power(plan.cost.it_kw)}, facility "
                      f"{format_power(plan.cost.facility_kw)} at PUE {plan.cost.pue:g} [kW]", 360)
    fig.update_layout(yaxis=dict(title="kW", range=[0, max(values) * 1.15]))
    return fig
