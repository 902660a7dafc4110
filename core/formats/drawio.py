"""draw.io export: the app's topology diagram as an uncompressed mxGraph file (``.drawio``).

The file is ``<mxfile><diagram><mxGraphModel><root>`` with the two cells draw.io expects (``id="0"``, the
root, and ``id="1" parent="0"``, the default layer), then one cell per drawn element: a title, a label per
tier row, one vertex per switch / server (or bundle) and one edge per link bundle (``edge="1"`` with
``source`` and ``target``). It draws what the Designer's Topology tab draws (``core.figures.topology``):
plane 1, every switch and server up to ``SERVERS_EACH_MAX`` nodes, servers grouped per scalable unit
above, and past ``FULL_GRAPH_LIMIT`` elements the aggregated graph (``core.fabric.topology.aggregated_graph``:
bundles by SU / pod and rail, at most about 200 vertices at any size), in the same positions: tiers in rows,
core at the top and servers at the bottom, leaves ordered by block then rail, servers under their leaves.
The title says which view it is. Leaves and their links take the app's rail colours; line width grows with
the links in a bundle; an edge's label is ``links x speed``.

A design with pods draws every pod under the shared spines (the Topology tab's drawing of it), names as
``core.formats.podexports`` gives them (``pod2-gpu001``, ``spine001``).

Names follow ``core.fabric.naming`` (the Slurm, NetBox and GraphML exports use the same). Machine-readable
hand-off: English whatever the request's language.
"""

from __future__ import annotations

from typing import TextIO
from xml.sax.saxutils import quoteattr

from core.fabric.families import tier_words
from core.fabric.naming import Namer, NamingScheme
from core.fabric.wiring import Wiring
from core.formats.exports import Export, in_file_language
from core.formats.podslurm import mixed_of
from core.formats.slurm import compress_hostlist
from core.i18n import N_

ROW_HEIGHT = 170
"""Vertical distance between tier rows [px]."""
MIN_PITCH = 70
"""Least horizontal room per vertex of the fullest row [px]."""
SIZE = {"server": (70, 44), "leaf": (78, 30), "spine": (78, 30), "core": (78, 30)}
"""Vertex width, height [px] per role (aggregated bundles are drawn larger)."""
EDGE_LABELS_MAX = 60
"""Up to this many edges their labels (``links x speed``) show; above they are kept but hidden."""


def _names(plan, graph, naming: NamingScheme | None) -> dict[str, str]:
    """The label of each vertex: device names, or what a bundle holds (a design with pods: ``_pod_names``)."""
    if graph.graph.get("pods"):
        return _pod_names(plan, graph, naming)
    f, wiring, namer = plan.fabric, Wiring.of(plan), Namer.of(plan, naming)
    labels = {}
    for vertex, data in graph.nodes(data=True):
        if data.get("label"):  # aggregated bundle (English: written inside write_drawio's language("en"))
            labels[vertex] = data["label"]
        elif data["role"] == "server" and "nodes" in data:
            hosts = compress_hostlist(namer.node(n) for n in wiring.nodes_of_group(data["group"]))
            word = "SU" if f.topology == "rail-optimized" and f.tiers > 1 else "group"
            labels[vertex] = f"{word} {data['group'] + 1}: {data['nodes']} nodes<br>{hosts}"
        else:
            labels[vertex] = namer.vertex(vertex)
    return labels


def _pod_names(plan, graph, naming: NamingScheme | None) -> dict[str, str]:
    """The label of each vertex of a design with pods' graph (``core.figures.topology.topology_graph``: every pod
    under the shared spines): the exports' names (``core.formats.podexports.PodNames``), a group of a pod's
    servers with its pod, node count and host list, or what a bundle holds."""
    from core.formats.podexports import PodNames

    names = PodNames(mixed_of(plan), naming)
    labels = {}
    for vertex, data in graph.nodes(data=True):
        if data.get("label"):
            labels[vertex] = data["label"]
        elif data["role"] == "server" and "nodes" in data:
            i = data["pod_index"]
            hosts = compress_hostlist(names.namers[i].node(n)
                                      for n in names.wiring.wirings[i].nodes_of_group(data["group"]))
            labels[vertex] = (f"pod {names.mixed.fabric.pods[i].index + 1} group {data['group'] + 1}: "
                              f"{data['nodes']} nodes<br>{hosts}")
        else:
            labels[vertex] = names(vertex, data)
    return labels


def _title(plan, graph, aggregated: bool) -> str:
    """The diagram's title: the design and which view is drawn (a design with pods: every pod and the shared
    spines)."""
    from core.figures.topology import view_words

    mixed = mixed_of(plan) if graph.graph.get("pods") else None
    nodes = plan.resolved.nodes if mixed is None else mixed.fabric.nodes
    view = view_words(plan.fabric.family, nodes, aggregated)  # in the family's words (a torus: no switches)
    if mixed is not None:
        f = mixed.fabric
        pods = ", ".join(f"pod {pod.index + 1}: {pod.gpus:,} x {pod.system}" for pod in f.pods)
        shared = f"{f.cores} shared cores" if f.tiers == 3 else f"{f.spines} shared spines"
        planes = f" per plane: plane 1 of {f.planes}" if f.planes > 1 else ""  # the Topology tab draws plane 1
        return f"{f.gpus:,} GPUs in {len(f.pods)} pods ({pods}) under {shared}{planes}<br>{view}"
    f = plan.fabric
    plane = f": plane 1 of {f.planes}" if f.planes > 1 else ""  # one plane: it is the design's
    return f"{plan.resolved.gpus:,} x {plan.resolved.system.id}, {f.topology}, {tier_words(f)}{plane}<br>{view}"


def _style(role: str, colour: str, aggregated: bool) -> str:
    shape = "rounded=0" if role == "server" else "rounded=1;arcSize=30"
    return (f"{shape};whiteSpace=wrap;html=1;fillColor={colour};strokeColor=#ffffff;fontColor=#ffffff;"
            f"fontSize={10 if aggregated else 11};")


def write_drawio(plan, out: TextIO, naming: NamingScheme) -> None:
    """Stream the draw.io file of ``plan`` (plane 1, laid out like the app's diagram) to ``out``, every word in
    English whatever the request's language (the title's tiers and the rows' names as the bundles'; the CLI's
    ``export`` and the Designer's download are the same bytes: ``core.formats.exports.FILE_LANGUAGE``)."""
    with in_file_language():
        _write_drawio(plan, out, naming)


def _write_drawio(plan, out: TextIO, naming: NamingScheme) -> None:
    """``write_drawio``'s file, written in the language in force."""
    # imported here: the figures package loads Plotly, which the CLI's parser (it lists every format) need not
    from core.figures.style import TIER_COLOURS, TIER_Y, line_width, rail_colour
    from core.figures.topology import _layer_positions, row_name, topology_graph

    graph, aggregated = topology_graph(plan)
    pos = _layer_positions(graph)
    labels = _names(plan, graph, naming)
    per_row: dict[float, int] = {}
    for _x, y in pos.values():
        per_row[y] = per_row.get(y, 0) + 1
    scale = 1.6 if aggregated else 1.0
    pitch = max(MIN_PITCH, int(SIZE["leaf"][0] * scale) + 12)  # boxes of the fullest row never overlap
    width = max(900, pitch * max(per_row.values(), default=1))
    top = max(TIER_Y[d["role"]] for _v, d in graph.nodes(data=True))
    left = 150

    def centre(vertex):
        x, y = pos[vertex]
        return left + x * width, 90 + (top - y) * ROW_HEIGHT

    w = out.write
    w('<mxfile host="fabric-planner" type="device">\n'
      '  <diagram id="fabric" name="Fabric plane 1">\n'
      f'    <mxGraphModel dx="{int(width + 2 * left)}" dy="{int(top * ROW_HEIGHT + 260)}" grid="1" gridSize="10" '
      'guides="1" tooltips="1" connect="1" arrows="0" fold="1" page="0" pageScale="1" math="0" shadow="0">\n'
      '      <root>\n'
      '        <mxCell id="0"/>\n'
      '        <mxCell id="1" parent="0"/>\n')
    title = _title(plan, graph, aggregated)
    w(f'        <mxCell id="title" value={quoteattr(title)} style="text;html=1;align=left;verticalAlign=top;'
      f'fontSize=14;" vertex="1" parent="1"><mxGeometry x="{left}" y="0" width="{int(width)}" height="50" '
      'as="geometry"/></mxCell>\n')
    for role, y in TIER_Y.items():
        if y <= top and any(d["role"] == role for _v, d in graph.nodes(data=True)):
            label = quoteattr(row_name(plan.fabric.family, role))
            w(f'        <mxCell id="row-{role}" value={label} style="text;html=1;align=right;'
              f'fontStyle=1;fontSize=13;" vertex="1" parent="1"><mxGeometry x="0" y="{int(75 + (top - y) * ROW_HEIGHT)}" '
              'width="110" height="30" as="geometry"/></mxCell>\n')
    ids = {}
    for index, (vertex, data) in enumerate(graph.nodes(data=True)):
        ids[vertex] = f"v{index}"
        role = data["role"]
        colour = rail_colour(data.get("rail", -1)) if role == "leaf" else TIER_COLOURS[role]
        vw, vh = (int(s * scale) for s in SIZE[role])
        if role == "server" and "<br>" in labels[vertex]:
            vw, vh = int(vw * 1.8), int(vh * 1.3)
        cx, cy = centre(vertex)
        w(f'        <mxCell id="v{index}" value={quoteattr(labels[vertex])} style="{_style(role, colour, aggregated)}" '
          f'vertex="1" parent="1"><mxGeometry x="{cx - vw / 2:.1f}" y="{cy - vh / 2:.1f}" width="{vw}" '
          f'height="{vh}" as="geometry"/></mxCell>\n')
    max_links = max((d["links"] for _a, _b, d in graph.edges(data=True)), default=1)
    text = "" if graph.number_of_edges() <= EDGE_LABELS_MAX else "textOpacity=0;"  # labels kept, hidden when many
    for index, (a, b, data) in enumerate(graph.edges(data=True)):
        lower, upper = sorted((a, b), key=lambda v: TIER_Y[graph.nodes[v]["role"]])
        upper_role = graph.nodes[upper]["role"]
        rail = graph.nodes[lower].get("rail", -1) if graph.nodes[lower]["role"] == "leaf" else \
            graph.nodes[upper].get("rail", -1)
        colour = TIER_COLOURS["core"] if upper_role == "core" else rail_colour(rail)
        speed = data["capacity_gbps"] // data["links"]
        label = f"{data['links']:,} x {speed}G"
        w(f'        <mxCell id="e{index}" value={quoteattr(label)} style="endArrow=none;html=1;strokeColor={colour};'
          f'strokeWidth={line_width(data["links"], max_links):g};opacity=75;fontSize=9;labelBackgroundColor=#ffffff;'
          f'{text}" edge="1" parent="1" source="{ids[lower]}" target="{ids[upper]}">'
          '<mxGeometry relative="1" as="geometry"/></mxCell>\n')
    w('      </root>\n    </mxGraphModel>\n  </diagram>\n</mxfile>\n')


EXPORTS = (
    Export("drawio", write_drawio, ".drawio", "application/vnd.jgraph.mxfile",
           N_("draw.io diagram of the fabric, laid out like the Topology tab"), every_pod=True),
)
