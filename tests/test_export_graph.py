"""GraphML and draw.io exports: GraphML loads back with networkx to the same graph; the draw.io file is valid
mxGraph XML with one cell per drawn element and edge, laid out in tier rows like the app's diagram.

Format references: GraphML 1.0 (http://graphml.graphdrawing.org/specification.html: ``<key id for
attr.name attr.type>``, ``<graph edgedefault>``, ``<node id>``, ``<edge source target>``, ``<data key>``);
draw.io's uncompressed file (``<mxfile><diagram><mxGraphModel><root>``, cell ``0`` the root and cell ``1``
the default layer, vertices ``vertex="1"`` with an ``mxGeometry``, edges ``edge="1" source target``), as the
jgraph/drawio documentation and its example files store them.
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from core.design import Design
from core.fabric.naming import Namer, NamingScheme
from core.fabric.topology import fabric_graph
from core.figures.topology import topology_graph
from core.formats import graphml as graphml_module
from core.formats.exports import export_text, exports
from core.formats.graphml import graphml_graph
from core.i18n import language
from core.plan import plan

DESIGNS = {
    "1tier-4": Design(gpu="H100", nodes=4),
    "2su-64": Design(gpu="H100", nodes=64),
    "3tier-96": Design(gpu="H100", nodes=96, tiers="3"),
    "tor-48": Design(gpu="H100", nodes=48, topology="top-of-rack"),
    "rail-only-32": Design(gpu="H100", nodes=32, topology="rail-only"),
    "2plane-eth-64": Design(gpu="B300", nodes=64, fabric="ethernet", switch="SN5600", port_speed_gbps=400, planes=2),
    "nvl72-36": Design(gpu="GB200-NVL72", nodes=36),
    "dragonfly-64": Design(gpu="H100", nodes=64, topology="dragonfly", switch="QM9700", group_leaves=8),
}


def _same_graph(loaded: nx.Graph, expected: nx.Graph) -> None:
    graph_data = {k: v for k, v in loaded.graph.items() if k not in ("node_default", "edge_default")}
    assert graph_data == expected.graph
    assert dict(loaded.nodes(data=True)) == dict(expected.nodes(data=True))
    edges = lambda g: {frozenset((a, b)): d for a, b, d in g.edges(data=True)}  # noqa: E731
    assert edges(loaded) == edges(expected)


def test_formats_are_registered():
    names = set(exports())
    assert {"slurm", "slurm-block", "slurm-yaml", "graphml", "drawio"} <= names


# --- GraphML -------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", list(DESIGNS))
def test_graphml_loads_back_to_the_same_graph(key):
    p = plan(DESIGNS[key])
    text = export_text(p, "graphml")
    loaded = nx.read_graphml(io.StringIO(text))
    _same_graph(loaded, graphml_graph(p))


@pytest.mark.parametrize("key", list(DESIGNS))
def test_graphml_is_the_fabric_graph_renamed(key):
    """Every vertex and edge of the engine's graph (all planes), under the naming scheme's names."""
    p = plan(DESIGNS[key])
    scheme = NamingScheme(node_prefix="dgx", switch_prefix="sw-", min_digits=2)
    exported = nx.read_graphml(io.StringIO(export_text(p, "graphml", scheme)))
    engine = fabric_graph(p, servers="each")
    namer = Namer.of(p, scheme)
    renamed = nx.relabel_nodes(engine, {v: namer.vertex(v) for v in engine})
    assert set(exported) == set(renamed)
    assert {frozenset(e) for e in exported.edges} == {frozenset(e) for e in renamed.edges}
    for a, b, data in renamed.edges(data=True):
        assert exported[a][b]["links"] == data["links"]
        assert exported[a][b]["capacity_gbps"] == data["capacity_gbps"]
        assert exported[a][b]["links"] * exported[a][b]["speed_gbps"] == data["capacity_gbps"]
    tiers = {"server": 0, "leaf": 1, "spine": 2, "core": 3}
    switches = p.resolved.tier_switches
    for vertex, data in exported.nodes(data=True):
        assert data["tier"] == tiers[data["role"]]
        assert data["bandwidth_gbps"] == data["ports"] * data["port_speed_gbps"]
        if data["role"] == "server":
            assert vertex.startswith("dgx") and data["model"] == p.resolved.system.id
            assert data["ports"] == p.resolved.nics_per_node
        else:
            assert vertex.startswith("sw-") and data["model"] == switches[data["role"]].id
            assert data["ports_used"] + data["ports_free"] <= data["ports"]
            assert 0 <= data["x"] <= 1
        assert data["y"] == float(tiers[data["role"]])


def test_graphml_in_chinese_is_the_same_file():
    p = plan(DESIGNS["2su-64"])
    english = export_text(p, "graphml")
    with language("zh"):
        assert export_text(plan(DESIGNS["2su-64"]), "graphml") == english


def test_graphml_aggregates_past_the_limit_and_says_so(monkeypatch):
    p = plan(DESIGNS["2su-64"])
    monkeypatch.setattr(graphml_module, "MAX_ELEMENTS", 100)
    loaded = nx.read_graphml(io.StringIO(export_text(p, "graphml")))
    assert loaded.graph["aggregated"].startswith("servers grouped per scalable unit")
    servers = {v: d for v, d in loaded.nodes(data=True) if d["role"] == "server"}
    assert sorted(servers) == ["gpu-su001", "gpu-su002"]
    assert sum(d["servers"] for d in servers.values()) == 64
    monkeypatch.undo()
    assert nx.read_graphml(io.StringIO(export_text(p, "graphml"))).graph["aggregated"] == "no"


def test_graphml_full_elements_matches_the_graph():
    for key, design in DESIGNS.items():
        p = plan(design)
        g = fabric_graph(p, servers="each")
        assert graphml_module.full_elements(p) == g.number_of_nodes() + g.number_of_edges(), key


# --- draw.io -------------------------------------------------------------------------------------
def _cells(text):
    root = ET.fromstring(text)
    assert root.tag == "mxfile"
    diagram = root.find("diagram")
    model = diagram.find("mxGraphModel")
    cells = model.find("root").findall("mxCell")
    return cells


@pytest.mark.parametrize("key", list(DESIGNS) + ["big"])
def test_drawio_has_one_cell_per_drawn_element_and_edge(key):
    design = DESIGNS.get(key) or Design(gpu="B300", gpus=131_072, switch="Q3400")
    p = plan(design)
    text = export_text(p, "drawio")
    cells = _cells(text)
    by_id = {c.get("id"): c for c in cells}
    assert len(by_id) == len(cells), "cell ids are unique"
    assert by_id["0"].get("parent") is None and by_id["1"].get("parent") == "0"
    with language("en"):
        graph, aggregated = topology_graph(p)
    vertices = [c for c in cells if c.get("vertex") == "1" and c.get("id").startswith("v")]
    edges = [c for c in cells if c.get("edge") == "1"]
    rows = [c for c in cells if c.get("id", "").startswith("row-")]
    assert len(vertices) == graph.number_of_nodes()
    assert len(edges) == graph.number_of_edges()
    roles = {d["role"] for _v, d in graph.nodes(data=True)}
    assert len(rows) == len(roles) and by_id.get("title") is not None
    assert len(cells) == 2 + 1 + len(rows) + len(vertices) + len(edges)  # nothing else is drawn
    for edge in edges:
        assert by_id[edge.get("source")].get("vertex") == "1"
        assert by_id[edge.get("target")].get("vertex") == "1"
        assert edge.get("parent") == "1"
    for cell in vertices + rows:
        geometry = cell.find("mxGeometry")
        assert geometry is not None and float(geometry.get("width")) > 0
    if key == "big":
        assert aggregated and "Aggregated view" in by_id["title"].get("value")  # the diagram subtitle's words
        assert len(cells) <= 2000


def test_drawio_tiers_are_rows_core_on_top():
    p = plan(DESIGNS["3tier-96"])
    cells = _cells(export_text(p, "drawio"))
    rows = {c.get("id")[4:]: float(c.find("mxGeometry").get("y")) for c in cells if c.get("id", "").startswith("row-")}
    assert rows["core"] < rows["spine"] < rows["leaf"] < rows["server"]
    names = {c.get("value") for c in cells if c.get("vertex") == "1"}
    assert {"pod 1 rail 1: 3 leaves", "pod 1: 32 spines", "32 cores", "pod 1: 96 nodes"} <= names  # aggregated view


def test_drawio_names_follow_the_naming_scheme():
    cells = _cells(export_text(plan(DESIGNS["2su-64"]), "drawio", NamingScheme(switch_prefix="ib-")))
    names = {c.get("value") for c in cells if c.get("vertex") == "1"}
    assert {"ib-leaf001", "ib-leaf016", "ib-spine001", "ib-spine008"} <= names
    assert any(v.startswith("SU 1: 32 nodes") and "gpu[001-032]" in v for v in names if v)


def test_drawio_small_design_draws_every_server():
    cells = _cells(export_text(plan(DESIGNS["1tier-4"]), "drawio"))
    names = {c.get("value") for c in cells if c.get("vertex") == "1"}
    assert {"gpu001", "gpu002", "gpu003", "gpu004", "leaf001"} <= names


@pytest.mark.parametrize("design", [Design(), Design(topology="classic-dragonfly", gpus=4096),
                                    Design(topology="torus", gpus=512), Design(nodes=64, pods="B300:32:800")])
@pytest.mark.parametrize("name", ["drawio", "graphml", "slurm", "slurm-block"])
def test_the_chinese_designers_download_is_the_clis_english_file(name, design):
    """The Designer's download in Chinese (``webui.cached.export_bytes`` writes in the page's language) is the same
    bytes as ``python -m core export`` (English in every ``--lang``): the draw.io file's title said ``1 层`` and
    its rows ``服务器`` / ``叶层`` beside ``Every switch and server drawn``."""
    p = plan(design)
    with language("zh"):
        chinese = export_text(p, name)
    assert chinese == export_text(p, name)
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in chinese)
