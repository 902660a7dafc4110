"""The wiring model's properties checked on every new family where the family's own tests left them open: the cost
never falls as a design grows (Dragonfly+, torus, two NVLink levels, mixed pods), every graph export of a Dragonfly+
and of a torus is the index's graph (``core.fabric.topology.fabric_graph``, read from the wiring), and the second
NVLink level as cabled (``core.fabric.domainlevels.level2_links``): the cabling plan's and NetBox's cables are its
graph, its cables spread evenly over the level-2 units, and the max-flow between two halves of a domain's racks is
the bandwidth per GPU the engine states (``ScaleUp.level2_gbytes_per_gpu``)."""

from __future__ import annotations

import csv
import io
import math
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.design import Design
from core.errors import DesignError
from core.fabric.domainlevels import level2_links, scaleup_of
from core.fabric.topology import fabric_graph
from core.formats.exports import export_text
from core.formats.ibnetdiscover import read_ibnetdiscover
from core.plan import plan
from tests.test_export_sim import gbps, read_simai
from tests.test_pods_exports import _drawio_graph
from tests.test_pods_sims import _graph_of_links

DRAGONFLY = Design(gpu="H100", nodes=64, topology="dragonfly", switch="QM9700", group_leaves=8)
"""Two Dragonfly+ groups of 8 leaves and 8 spines (as tests/test_export_graph.py's ``dragonfly-64``)."""
TORUS = Design(topology="torus", nodes=24, torus_dims="4x3x2")
NVL = Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)
"""576 GPUs in four NVLink domains of four NVL36 racks each, joined by level-2 NVLink switch trays."""


def _capex(design: Design) -> float | None:
    """The design's capex [USD], or None when it cannot be built."""
    try:
        return plan(design).cost.capex_usd
    except DesignError:
        return None


def _never_less(smaller: Design, larger: Design) -> None:
    low, high = _capex(smaller), _capex(larger)
    if low is not None and high is not None:
        assert high >= low, (smaller, larger)


# --------------------------------------------------------------------------------------------- cost monotone
@settings(max_examples=12, deadline=None)
@given(st.integers(1, 70), st.integers(1, 12), st.sampled_from([4, 8]))
def test_a_dragonfly_never_costs_less_with_more_nodes(su, more, group):
    """Its global links can fall as groups are added (tests/test_dragonfly.py), its cost cannot."""
    design = dict(gpu="H100", topology="dragonfly", switch="QM9700", group_leaves=group)
    _never_less(Design(**design, nodes=8 * su), Design(**design, nodes=8 * (su + more)))


@pytest.mark.parametrize("dims, longer", [((2, 2, 3), (3, 2, 3)), ((4, 3, 2), (4, 4, 2)), ((5, 4), (6, 4)),
                                          ((8, 2, 2), (8, 2, 3)), ((3, 3, 3), (5, 3, 3))])
def test_a_torus_never_costs_less_with_a_longer_dimension(dims, longer):
    """Across shapes the links can fall (2x2x3 has two links to each neighbour, 3x2x3 one: its nodes' ports spread
    over more neighbours), the cost cannot."""
    def design(shape):
        return Design(topology="torus", nodes=math.prod(shape), torus_dims="x".join(map(str, shape)))

    assert _capex(design(dims)) is not None and _capex(design(longer)) is not None
    _never_less(design(dims), design(longer))


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 40), st.integers(1, 20), st.sampled_from([144, 288, 576]))
def test_two_nvlink_levels_never_cost_less_with_more_racks(racks, more, domain):
    design = dict(gpu="GB200-NVL72", nvlink_domain_gpus=domain)
    _never_less(Design(**design, gpus=72 * racks), Design(**design, gpus=72 * (racks + more)))


@settings(max_examples=10, deadline=None)
@given(st.sampled_from([16, 32, 64]), st.integers(1, 40), st.integers(1, 24))
def test_mixed_pods_never_cost_less_when_a_pod_grows(first, second, more):
    pods = f"B300:{4 * second}:800"
    _never_less(Design(nodes=first, pods=pods), Design(nodes=first, pods=f"B300:{4 * (second + more)}:800"))
    _never_less(Design(nodes=first, pods=pods), Design(nodes=first + 8, pods=pods))


# ----------------------------------------------------------------------------------- every export is the graph
def _same(found: nx.Graph, want: nx.Graph, key: str = "links") -> bool:
    """Isomorphic with servers matched to servers and every edge's ``key`` equal."""
    def servers(a, b):
        return (a.get("role") == "server") == (b.get("role") == "server")

    return nx.is_isomorphic(found, want, node_match=servers, edge_match=lambda a, b: a[key] == b[key])


def _cabling_graph(p, network: str = "compute", classes: frozenset = frozenset({"ufm-leaf"})) -> nx.Graph:
    """The device graph of the cabling plan's ``network`` cables (but ``classes``: the UFM appliance's), each edge
    with its cable count; a device is a server when a node-to-node or node-leaf cable starts at it."""
    graph = nx.Graph()
    for row in csv.DictReader(io.StringIO(export_text(p, "cabling"))):
        if row["network"] != network or row["link_class"] in classes:
            continue
        a, z = row["a_device"], row["z_device"]
        graph.add_node(a, role="server" if row["link_class"] in ("node-leaf", "torus") else "switch")
        graph.add_node(z, role="server" if row["link_class"] == "torus" else "switch")
        if graph.has_edge(a, z):
            graph[a][z]["links"] += 1
        else:
            graph.add_edge(a, z, links=1)
    return graph


def _simai_graph(p) -> nx.Graph:
    """The SimAI file read as a graph: GPUs contracted into their servers, NVLink lines left out, each edge with its
    capacity [Gb/s]."""
    f = read_simai(export_text(p, "simai"))
    gpn, gpus = p.resolved.gpus_per_node, p.resolved.gpus
    graph = nx.Graph()
    for src, dst, rate, *_rest in f["links"]:
        if f["node_type"][dst] == 2:
            continue
        a, b = (f"server{x // gpn}" if x < gpus else x for x in (src, dst))
        for v in (a, b):
            graph.add_node(v, role="server" if isinstance(v, str) else "switch")
        if graph.has_edge(a, b):
            graph[a][b]["capacity_gbps"] += gbps(rate)
        else:
            graph.add_edge(a, b, capacity_gbps=gbps(rate))
    return graph


@pytest.mark.parametrize("name", ["graphml", "drawio", "ibsim", "simai", "cabling"])
def test_every_graph_export_of_a_dragonfly_is_the_index_graph(name):
    from core.figures.topology import topology_graph

    p = plan(DRAGONFLY)
    want = fabric_graph(p, servers="each")
    if name == "graphml":
        assert _same(nx.Graph(nx.read_graphml(io.StringIO(export_text(p, "graphml")))), want)
    elif name == "drawio":  # servers grouped past 16 nodes: the drawing is the index graph with them grouped
        drawn, _labels = _drawio_graph(export_text(p, "drawio"))
        whole, aggregated = topology_graph(p)
        assert not aggregated and nx.is_isomorphic(drawn, whole, edge_match=lambda a, b: a["links"] == b["links"])
        assert _same(whole, fabric_graph(p, servers="grouped", planes=1))
    elif name == "ibsim":
        assert _same(_graph_of_links(read_ibnetdiscover(export_text(p, "ibsim").encode())), want)
    elif name == "simai":
        assert _same(_simai_graph(p), want, "capacity_gbps")
    else:
        found = _cabling_graph(p)
        assert _same(found, want)
        assert sum(d["links"] for _a, _b, d in found.edges(data=True)) == sum(p.summary()["links"].values())


@pytest.mark.parametrize("name", ["graphml", "drawio", "cabling", "netbox-cables"])
def test_every_graph_export_of_a_torus_is_the_index_graph(name):
    p = plan(TORUS)
    want = fabric_graph(p, servers="each")
    if name == "graphml":
        found = nx.Graph(nx.read_graphml(io.StringIO(export_text(p, "graphml"))))
    elif name == "drawio":
        found, _labels = _drawio_graph(export_text(p, "drawio"))
        nx.set_node_attributes(found, "server", "role")
    elif name == "cabling":
        found = _cabling_graph(p)
    else:
        found = nx.Graph()
        for row in csv.DictReader(io.StringIO(export_text(p, "netbox-cables"))):
            if row["description"].split()[0] == "compute":
                a, b = row["side_a_device"], row["side_b_device"]
                found.add_node(a, role="server")
                found.add_node(b, role="server")
                found.add_edge(a, b, links=found.get_edge_data(a, b, {"links": 0})["links"] + 1)
    assert found.number_of_nodes() == 24 and _same(found, want)
    assert nx.is_isomorphic(found, nx.grid_graph(dim=[2, 3, 4], periodic=True))


# ------------------------------------------------------------------------------------------ the second NVLink level
def _level2_graph(p) -> nx.Graph:
    """The index's graph of the second NVLink level: first-level trays and level-2 units, edges counting cables."""
    graph = nx.Graph()
    for _kind, a, _a_cage, z, _z_cage in level2_links(p.resolved):
        graph.add_node(a, role="tray")
        graph.add_node(z, role="level2")
        graph.add_edge(a, z, links=graph.get_edge_data(a, z, {"links": 0})["links"] + 1)
    return graph


def test_the_cabling_plan_and_netbox_hold_the_second_nvlink_levels_graph():
    p = plan(NVL)
    want = _level2_graph(p)
    cabled = _cabling_graph(p, network="nvlink", classes=frozenset())
    netbox = nx.Graph()
    for row in csv.DictReader(io.StringIO(export_text(p, "netbox-cables"))):
        if row["description"].startswith("nvlink "):
            a, b = row["side_a_device"], row["side_b_device"]
            netbox.add_edge(a, b, links=netbox.get_edge_data(a, b, {"links": 0})["links"] + 1)
    for found in (cabled, netbox):
        assert nx.is_isomorphic(found, want, edge_match=lambda a, b: a["links"] == b["links"])
    assert want.number_of_edges() and sum(d["links"] for *_e, d in want.edges(data=True)) == \
        scaleup_of(p.resolved).totals()["level2_cables"]


@pytest.mark.parametrize("design", [NVL, Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576),
                                    Design(gpu="H100", gpus=256, nvlink_domain_gpus=256)],
                         ids=["nvl36x4", "nvl576", "hgx-256"])
def test_the_second_levels_cables_are_balanced_and_its_bisection_is_the_max_flow(design):
    """Every first-level domain sends the same cables to each level-2 unit of its domain (give or take one), and the
    max-flow between two halves of a domain's first-level domains, through the units, carries
    ``ScaleUp.level2_gbytes_per_gpu`` [GB/s, one direction] for each GPU of a half."""
    p = plan(design)
    up = scaleup_of(p.resolved)
    graph = _level2_graph(p)
    domain = next(up.domains())
    units = [v for v, d in graph.nodes(data=True) if d["role"] == "level2" and v.startswith(f"nvl{domain.index}.")]
    assert len(units) == domain.level2_switches
    first = [domain.first_node + r * up.level1_nodes for r in range(domain.racks)]
    rack_of = {}
    for _kind, a, _cage, _z, _zc in level2_links(p.resolved):
        node = int(a.removeprefix("nvsw").removeprefix("node"))
        rack_of[a] = max(f for f in first if f <= node) if node >= first[0] else None
    for unit in units:
        per_rack = Counter(rack_of[t] for t in graph[unit] for _ in range(graph[unit][t]["links"]))
        assert max(per_rack.values()) - min(per_rack.values()) <= 1, unit
    cable_gbytes = up.level2.links_per_cable * up.link_gbytes
    flow = nx.DiGraph()
    for a, z, d in graph.edges(data=True):
        if z in units or a in units:
            flow.add_edge(a, z, capacity=d["links"] * cable_gbytes)
            flow.add_edge(z, a, capacity=d["links"] * cable_gbytes)
    half = set(first[:len(first) // 2])
    for tray, rack in rack_of.items():
        if rack in first:
            flow.add_edge("S", tray) if rack in half else flow.add_edge(tray, "T")
    gpus_in_half = len(half) * up.level1_gpus
    assert nx.maximum_flow_value(flow, "S", "T") / gpus_in_half == pytest.approx(
        up.level2.uplinks_per_gpu * up.link_gbytes)
    stated = min(up.level1_gbytes_per_gpu, up.level2.uplinks_per_gpu * up.link_gbytes)
    assert up.level2_gbytes_per_gpu == pytest.approx(stated)
