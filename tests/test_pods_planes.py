"""Pods on several planes (core.fabric.pods: the one-plane rule, identical copies): sized per plane, wired with plane
ids (core.fabric.podwiring), billed for every plane (shared spines, optics, out-of-band ports), the bandwidth per
GPU every plane's, the hall holding every plane's shared switches, and the exports holding every plane, checked
against hand counts and the index graph."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter

import networkx as nx
import pytest

from core.analysis.pods import mixed_links, mixed_plan, mixed_wiring, pods_lines, pods_summary
from core.analysis.whole import whole_summary
from core.cli import main as cli_main
from core.design import Design
from core.errors import DesignError
from core.fabric.pods import size_pods
from core.formats.exports import export_text
from core.formats.ibnetdiscover import read_ibnetdiscover
from core.plan import plan
from tests.test_pods_sims import _graph_of_links
from tests.podflow import index_graph, is_the_index_graph

ONE = Design(gpu="H100", nodes=64, fabric="ethernet", nic="CX8", port_speed_gbps=400, pods="B200:32:400")
"""64 DGX H100 and 32 DGX B200, 8 x 400GbE NIC ports each, one plane: 8 + 8 SN5600 leaves (64 and 32 uplinks each),
8 shared spines; 512 + 256 node-leaf and 512 + 256 leaf-spine links."""
PORT = ONE.model_copy(update={"planes": 2})
"""The same on two per-port planes (ConnectX-8 runs 2 x 400GbE: every NIC has a port in each plane)."""
RAIL = Design(gpu="H100", nodes=64, pods="B200:32:800", planes=2, plane_mode="per-rail")
"""The two-tier B200 pods design on two per-rail planes (NIC i in plane i mod 2): each plane holds 4 of the 8 rails."""


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _compute_rows(design: Design, kind: str) -> int:
    return sum(r.quantity for r in mixed_plan(design).bom
               if r.network == "compute" and r.category == "switch" and r.item.endswith(f"({kind})"))


# --- sizing and bill: hand counts -----------------------------------------------------------------------------------

def test_per_port_planes_are_copies_of_one_plane_at_the_hosts_bandwidth():
    one, two = size_pods(ONE), size_pods(PORT)
    assert (two.planes, two.plane_mode) == (2, "per-port")
    # per plane exactly the one-plane sizing
    assert (two.spines, two.leaves, two.spine_ports_used) == (one.spines, one.leaves, one.spine_ports_used)
    assert (two.spines, two.leaves, two.spine_ports_used) == (8, 16, 96)
    assert [(p.leaves, p.uplinks_per_leaf) for p in two.pods] == [(8, 64), (8, 32)]
    assert (two.spines_total, two.switches_total) == (16, 48)
    # 8 NICs x 2 planes x 400G would be 800 Gb/s per GPU, but DGX H100 and B200 feed each NIC over PCIe Gen5 x16:
    # 400 Gb/s per NIC (core.hostlink), so the second plane adds paths, not bandwidth: 8 x 400 / 8 as one plane
    assert [p.gbps_per_gpu for p in one.pods] == [400.0, 400.0]
    assert [p.gbps_per_gpu for p in two.pods] == [400.0, 400.0]
    assert two.bisection_gbps == one.bisection_gbps == 768 / 2 * 400


def test_per_port_bill_buys_every_planes_switches_links_and_optics():
    one, two = mixed_plan(ONE), mixed_plan(PORT)
    assert (_compute_rows(ONE, "leaf"), _compute_rows(ONE, "spine")) == (16, 8)
    assert (_compute_rows(PORT, "leaf"), _compute_rows(PORT, "spine")) == (32, 16)

    def cables(m, kind):
        return sum(r.quantity for r in m.bom
                   if r.network == "compute" and r.category == "cable" and f"({kind}, " in r.item)

    def modules(m, end):
        return sum(r.quantity for r in m.bom if r.category == "transceiver" and f"({end}, leaf-spine)" in r.item)

    # 2 planes x (64 x 8 + 32 x 8) node-leaf links; 2 x (8 x 64 + 8 x 32) leaf-spine links
    assert (cables(one, "node-leaf"), cables(one, "leaf-spine")) == (768, 768)
    assert (cables(two, "node-leaf"), cables(two, "leaf-spine")) == (1536, 1536)
    # twin-port 800G modules at both ends of the leaf-spine links: one per 2 links, every plane's
    assert modules(two, "leaf end") == modules(two, "shared spine end") == 2 * modules(one, "shared spine end") == 768
    spine_row = next(r for r in two.bom if r.category == "switch" and r.item.endswith("(spine)"))
    assert spine_row.why.startswith("2 identical planes, each: 8 spines shared by 2 pods")


def test_out_of_band_takes_every_planes_shared_spines():
    def switch_ports(design):
        return sum(link.count for n in __import__("core.analysis.podmgmt", fromlist=["x"]).mixed_networks(
            mixed_plan(design)) if n is not None and n.oob is not None for link in n.oob.links
            if link.kind == "switch-mgmt")

    # every compute switch of the second plane adds one management port: 16 leaves + 8 spines
    assert switch_ports(PORT) - switch_ports(ONE) == 24


def test_whole_design_totals_and_summary_lines():
    s = whole_summary(plan(PORT))
    assert s["switches"] == {"leaf": 32, "spine": 16, "core": 0, "total": 48}
    assert s["links"]["node_leaf"] == s["links"]["leaf_spine"] == 1536
    assert s["bandwidth"]["scaleout_gbits_per_gpu"] == 400.0  # 2 x 400GbE over one PCIe Gen5 x16 (core.hostlink)
    assert s["bandwidth"]["bisection_tbits_one_direction"] == 153.6 and s["bandwidth"]["oversubscription"] == 1.0
    lines = dict(pods_lines(pods_summary(mixed_plan(PORT)), "Gb/s"))
    assert "2 identical planes (per-port)" in lines["planes"] and "48 compute fabric switches" in lines["mixed total"]


def test_per_rail_planes_split_the_rails_with_the_same_totals_and_bandwidth():
    one, rail = size_pods(RAIL.model_copy(update={"planes": 1, "plane_mode": "per-port"})), size_pods(RAIL)
    assert (rail.planes, rail.plane_mode) == (2, "per-rail")
    # each plane: 4 of the 8 rails, so half the leaves; 4 + 4 rail leaves of pod 1's 2 SUs, 4 of pod 2's 1 SU
    assert [p.leaves for p in rail.pods] == [8, 4] and [p.leaves for p in one.pods] == [16, 8]
    assert (rail.spines, rail.spines_total, rail.leaves * rail.planes) == (4, 8, one.leaves)
    assert [p.gbps_per_gpu for p in rail.pods] == [p.gbps_per_gpu for p in one.pods] == [400.0, 400.0]  # B200's CX8 800G: Gen5 host, 400
    assert rail.bisection_gbps == one.bisection_gbps
    assert (_compute_rows(RAIL, "leaf"), _compute_rows(RAIL, "spine")) == (24, 8)


def test_three_tiers_on_planes_buy_every_planes_cores():
    three = PORT.model_copy(update={"tiers": 3})
    f = size_pods(three)
    assert (f.tiers, f.planes, f.cores, f.cores_total) == (3, 2, 8, 16)
    assert _compute_rows(three, "core") == 16 and _compute_rows(three, "spine") == 2 * f.own_spines


# --- wiring, hall, exports ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("design", [PORT, RAIL], ids=["per-port", "per-rail"])
def test_wiring_names_every_plane_and_cables_every_port_once(design):
    mixed = mixed_plan(design)
    wiring = mixed_wiring(mixed, planes=True)
    shared = list(wiring.shared_ids())
    assert len(shared) == len(set(shared)) == mixed.fabric.spines_total
    want = {"per-port": ["p0.spine0", "p1.spine0"], "per-rail": ["p0.i0.spine0", "p0.i1.spine0"]}[design.plane_mode]
    assert [shared[0], shared[mixed.fabric.spines]] == want
    links = list(mixed_links(mixed))
    counts = Counter(kind for kind, *_rest in links)
    per_plane = 768 if design is PORT else 384
    assert counts == {"node-leaf": 2 * per_plane, "leaf-spine": 2 * per_plane}
    ends = Counter((device, port) for _k, a, pa, z, pz, _s in links for device, port in ((a, pa), (z, pz)))
    assert max(ends.values()) == 1
    # every shared spine stands in the hall's shared rows
    hall = mixed.hall
    rows = {hall.layout.position(device).row for device in shared}
    assert all(hall.pods_of_rows[row] == () for row in rows)


_whole = index_graph  # the index graph (tests/podflow.py)
_is_the_index_graph = is_the_index_graph


@pytest.mark.parametrize("design", [PORT, RAIL], ids=["per-port", "per-rail"])
def test_the_cabling_csv_is_the_index_graph_each_port_once(design):
    rows = _rows(export_text(plan(design), "cabling"))
    ends = Counter((r[side + "_device"], r[side + "_port"]) for r in rows for side in ("a", "z") if r[side + "_port"])
    assert max(ends.values()) == 1
    graph = nx.Graph()
    for r in rows:
        if r["network"] == "compute" and r["link_class"] in ("node-leaf", "leaf-spine"):
            a, z = r["a_device"], r["z_device"]
            graph.add_edge(a, z, links=graph[a][z]["links"] + 1 if graph.has_edge(a, z) else 1)
    assert _is_the_index_graph(graph, design)
    spines = {r["z_device"] for r in rows if r["link_class"] == "leaf-spine" and r["network"] == "compute"}
    assert len(spines) == mixed_plan(design).fabric.spines_total
    if design is PORT:
        assert {"p1-spine001", "p2-spine001"} <= spines


def test_ibsim_file_is_the_index_graph_each_port_once():
    text = export_text(plan(RAIL), "ibsim")
    links = read_ibnetdiscover(text.encode())
    assert _is_the_index_graph(_graph_of_links(links), RAIL)
    ends = Counter((end.device, end.port) for link in links for end in (link.a, link.b))
    assert max(ends.values()) == 1
    f = mixed_plan(RAIL).fabric
    assert len(re.findall(r"^Switch\t", text, re.M)) == f.switches_total == 32


@pytest.mark.parametrize("design", [PORT, RAIL], ids=["per-port", "per-rail"])
def test_netbox_holds_every_planes_switches_in_the_hall(design):
    p, mixed = plan(design), mixed_plan(design)
    devices = _rows(export_text(p, "netbox-devices"))
    names = [r["name"] for r in devices]
    assert len(names) == len(set(names))
    roles = Counter(r["role"] for r in devices)
    f = mixed.fabric
    assert (roles["Leaf switch"], roles["Spine switch"]) == (f.leaves * f.planes, f.spines_total)
    placed = [(r["rack"], r["position"]) for r in devices if r["rack"] and r["position"]]
    assert len(placed) == len(set(placed))
    cables = _rows(export_text(p, "netbox-cables"))
    interfaces = {(i["device"], i["name"]) for i in _rows(export_text(p, "netbox-interfaces"))}
    ends = [(c["side_a_device"], c["side_a_name"]) for c in cables] + [
        (c["side_b_device"], c["side_b_name"]) for c in cables]
    assert len(ends) == len(set(ends)) and set(ends) <= interfaces


def test_graphml_holds_every_plane():
    text = export_text(plan(PORT), "graphml")
    graph = nx.read_graphml(io.StringIO(text))
    assert graph.number_of_nodes() == _whole(PORT).number_of_nodes() == 96 + 2 * (16 + 8)
    assert {data.get("plane") for _v, data in graph.nodes(data=True) if data.get("role") == "spine"} == {1, 2}


def test_the_topology_draws_plane_one_of_two():
    from core.figures.topology import topology_figure

    title = topology_figure(plan(PORT)).layout.title.text.replace("<br>", " ")
    assert "8 shared spines per plane; plane 1 of 2 identical planes drawn" in title


def test_cli_plans_pods_on_planes(capsys):
    assert cli_main(["plan", "--gpu", "H100", "--nodes", "64", "--pods", "B200:32:800", "--planes", "2",
                     "--plane-mode", "per-rail"]) == 0
    out = capsys.readouterr().out
    assert "2 identical planes (per-rail)" in out


def test_a_one_plane_view_refuses_pods_on_planes():
    with pytest.raises(DesignError) as info:
        mixed_wiring(mixed_plan(RAIL))
    assert "several planes" in info.value.message and "Set planes to 1" in info.value.suggestion


def test_single_points_of_pods_on_planes_are_the_whole_fabrics():
    from core.analysis.podspof import fabric_cuts, pods_single_points

    tor = ONE.model_copy(update={"topology": "top-of-rack"})
    one, two = mixed_plan(tor), mixed_plan(tor.model_copy(update={"planes": 2}))
    # one plane: every top-of-rack leaf cuts off its rack's nodes (4 nodes x 8 GPUs); each of 16 + 8 leaves
    cuts = fabric_cuts(one)
    assert len(cuts) == one.fabric.leaves == 24 and {(tier, lost) for tier, _e, lost in cuts} == {("leaf", 32)}
    # two per-port planes: every node is on a leaf in each plane, so no single leaf or spine cuts a GPU off
    assert fabric_cuts(two) == []
    link = [d for d in pods_single_points(two).degrading if d.tier == "link"]
    assert [d.count for d in link] == [2 * 16 * 8, 2 * 8 * 8]  # every plane's 16 and 8 leaves x 8 shared spines
    assert link[0].example == "pod1.p0.leaf0-p0.spine0"


def test_three_tiers_on_per_rail_planes_split_every_class_and_cable_each_port_once():
    three = RAIL.model_copy(update={"tiers": 3})
    one = three.model_copy(update={"planes": 1, "plane_mode": "per-port"})
    f, f1 = size_pods(three), size_pods(one)
    # each plane holds half the rails: half the leaves, own spines and cores; the same totals and bandwidth
    assert (f.leaves, f.own_spines, f.cores) == (12, 10, 4) and (f1.leaves, f1.own_spines, f1.cores) == (24, 20, 8)
    assert [p.gbps_per_gpu for p in f.pods] == [p.gbps_per_gpu for p in f1.pods] == [400.0, 400.0]  # B200's CX8 800G: Gen5 host, 400
    assert Counter(kind for kind, *_rest in mixed_links(mixed_plan(three))) == {
        "node-leaf": 768, "leaf-spine": 768, "spine-core": 768}
    text = export_text(plan(three), "ibsim")
    links = read_ibnetdiscover(text.encode())
    assert max(Counter((end.device, end.port) for link in links for end in (link.a, link.b)).values()) == 1
    assert _is_the_index_graph(_graph_of_links(links), three)


@pytest.mark.parametrize("design", [PORT, RAIL], ids=["per-port", "per-rail"])
def test_simai_file_is_the_index_graph_each_nic_once(design):
    """The SimAI topology of pods on planes (GPUs contracted into their servers, NVLink lines left out) is the index
    graph edge by edge at its capacities, every plane's switches in it; on per-rail planes each NIC has one line, to
    its plane's leaf (NIC i in plane i mod 2), per-port planes one in each plane."""
    from core.formats.podsims import simai_switch_ids
    from tests.test_pods_sims import simai_equals_whole

    got, f = simai_equals_whole(design, _whole)
    mixed = mixed_plan(design)
    assert len(f["switches"]) == mixed.fabric.switches_total
    nic = Counter(src for src, dst, *_ in f["links"] if f["node_type"][src] == 0 and f["node_type"][dst] == 1)
    assert set(nic.values()) == {1 if design is RAIL else 2} and len(nic) == mixed.fabric.gpus
    if design is RAIL:  # GPU 1 of the first server (NIC 1): plane 1's leaf of its rail
        leaf = {dst for src, dst, *_ in f["links"] if src == 1 and f["node_type"][dst] == 1}
        name = {v: k for k, v in simai_switch_ids(mixed).items()}
        assert [name[x] for x in leaf] == ["pod1.p0.i1.leaf0"]
