"""Every pod in the exports of a design with pods: the cabling plan (CSV and XLSX), GraphML and draw.io hold every
pod's devices and the shared spines, as the whole fabric's wiring (core.fabric.podwiring) and graph
(core.fabric.podgraph) have them."""

from __future__ import annotations

import csv
import io

from core.analysis.pods import mixed_links, mixed_plan
from core.design import Design
from core.formats.cabling import write_xlsx
from core.formats.exports import export_text
from core.plan import plan

TWO = Design(gpu="H100", nodes=64, pods="B200:32:400")
"""An H100 pod of 512 GPUs and a B200 pod of 256 under one spine layer (as tests/test_pods_views.py)."""


def _compute(rows):
    """The compute fabric's node-leaf and leaf-spine cables of CSV rows (a pod's UFM appliance cables aside)."""
    return [r for r in rows if r["network"] == "compute" and r["link_class"] in ("node-leaf", "leaf-spine")]


def test_the_cabling_csv_holds_every_pod_and_the_shared_spine_cables():
    p = plan(TWO)
    rows = list(csv.DictReader(io.StringIO(export_text(p, "cabling"))))
    mixed = mixed_plan(TWO)
    cables = list(mixed_links(mixed))
    compute = _compute(rows)
    assert len(compute) == len(cables)  # every node-leaf cable of every pod and every leaf-spine cable
    assert sum(r["link_class"] == "leaf-spine" for r in compute) == sum(pod.uplinks for pod in mixed.fabric.pods)
    assert {r["a_device"].split("-")[0] for r in compute if r["link_class"] == "node-leaf"} == {"pod1", "pod2"}
    spines = {r["z_device"] for r in compute if r["link_class"] == "leaf-spine"}
    assert len(spines) == mixed.fabric.spines and not any(s.startswith("pod") for s in spines)
    ids = [r["cable_id"] for r in rows]
    assert len(ids) == len(set(ids))
    alone = list(csv.DictReader(io.StringIO(export_text(plan(Design(gpu="H100", nodes=64)), "cabling"))))
    assert len(rows) > len(alone)


def test_the_cabling_workbook_holds_the_same_cables(tmp_path):
    from openpyxl import load_workbook

    p = plan(TWO)
    target = tmp_path / "cabling.xlsx"
    write_xlsx(p, str(target))
    book = load_workbook(target, read_only=True)
    sheet = book[book.sheetnames[1]]
    values = list(sheet.iter_rows(values_only=True))
    csv_rows = list(csv.reader(io.StringIO(export_text(p, "cabling"))))
    assert len(values) == len(csv_rows)  # the header and every cable
    assert [v[0] for v in values[1:]] == [r[0] for r in csv_rows[1:]]
    assert any(str(v[5]).startswith("pod2-") for v in values[1:])


def _whole_graph(servers):
    from core.analysis.pods import mixed_wiring
    from core.fabric.podgraph import pods_fabric_graph

    mixed = mixed_plan(TWO)
    return pods_fabric_graph(mixed_wiring(mixed), tuple(p.fabric.radix for p in mixed.plans),
                             tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), servers)


def _same(exported, whole):
    """Whether ``exported`` is ``whole`` (the podgraph graph): isomorphic with roles and link counts kept."""
    import networkx as nx

    return nx.is_isomorphic(exported, whole, node_match=lambda a, b: a["role"] == b["role"],
                            edge_match=lambda a, b: a["links"] == b["links"])


def test_graphml_is_the_whole_fabric_graph(tmp_path):
    import networkx as nx

    target = tmp_path / "fabric.graphml"
    target.write_text(export_text(plan(TWO), "graphml"))
    exported = nx.read_graphml(target)
    whole = _whole_graph("each")
    assert _same(exported, whole)
    assert exported.graph["pods"] == 2 and exported.graph["gpus"] == 512 + 256
    servers = {v: d for v, d in exported.nodes(data=True) if d["role"] == "server"}
    assert {d["model"] for d in servers.values()} == {"H100", "B200"}
    assert sum(d["pod"] == 2 for d in servers.values()) == 32 and "pod2-gpu001" in servers
    spines = [d for _v, d in exported.nodes(data=True) if d["role"] == "spine"]
    assert spines and all("pod" not in d and d["ports_used"] <= d["ports"] for d in spines)


def _drawio_graph(text):
    """The graph a draw.io file draws: its vertex cells (but the title and row labels) and edge cells, each edge
    with the links of its label (``links x speed``)."""
    import xml.etree.ElementTree as ET

    import networkx as nx

    graph = nx.Graph()
    cells = ET.fromstring(text).iter("mxCell")
    labels = {}
    for cell in cells:
        if cell.get("vertex") == "1" and cell.get("id").startswith("v"):
            graph.add_node(cell.get("id"))
            labels[cell.get("id")] = cell.get("value")
        elif cell.get("edge") == "1":
            links = int(cell.get("value").split(" x ")[0].replace(",", ""))
            graph.add_edge(cell.get("source"), cell.get("target"), links=links)
    return graph, labels


def test_drawio_draws_the_whole_fabric_graph():
    import networkx as nx

    from core.figures.topology import topology_graph

    p = plan(TWO)
    drawn, labels = _drawio_graph(export_text(p, "drawio"))
    whole, aggregated = topology_graph(p)
    assert not aggregated and whole.graph["pods"] == 2
    assert nx.is_isomorphic(drawn, whole, edge_match=lambda a, b: a["links"] == b["links"])
    assert _same(whole, _whole_graph("grouped"))  # the drawing's graph is podgraph's (servers grouped)
    assert any(label.startswith("pod2-leaf") for label in labels.values())
    assert any(label.startswith("pod 2 group 1: 32 nodes") for label in labels.values())


def test_graphml_names_are_the_netbox_devices(tmp_path):
    import networkx as nx

    p = plan(TWO)
    target = tmp_path / "fabric.graphml"
    target.write_text(export_text(p, "graphml"))
    exported = nx.read_graphml(target)
    devices = {row["name"] for row in csv.DictReader(io.StringIO(export_text(p, "netbox-devices")))}
    assert set(exported.nodes) <= devices


def test_the_formats_say_whether_they_cover_every_pod():
    from core.formats.exports import pod_coverage

    whole, alone = pod_coverage(plan(TWO))
    assert {"slurm", "netbox-cables", "graphml", "drawio", "cabling", "ibsim", "simai", "astra-sim",
            "prometheus"} <= set(whole)
    assert not alone


def test_the_hand_off_name_examples_are_the_whole_designs():
    """The Hand-off tab's naming example showed pod 1's names (gpu001, gpu064, leaf001) for a design with pods,
    whose exports call its servers pod1-gpu001 ... pod2-gpu032: every example is a device of the netbox export."""
    from core.fabric.naming import NamingScheme
    from core.formats.nameexamples import name_examples

    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    scheme = NamingScheme(switch_prefix="sw-")
    examples = name_examples(p, scheme)
    assert examples == ["pod1-gpu001", "pod2-gpu032", "pod1-sw-leaf001", "sw-spine001"]
    devices = {r["name"] for r in csv.DictReader(io.StringIO(export_text(p, "netbox-devices", scheme)))}
    assert set(examples) <= devices
    alone = plan(Design(gpu="H100", nodes=64))
    assert name_examples(alone, scheme) == ["gpu001", "gpu064", "sw-leaf001"]
