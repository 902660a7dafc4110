"""The exports of pods on three tiers (core.fabric.podcore): the cabling plan, NetBox, ibsim (simulated by the real
ibsim and discovered by the real ibnetdiscover), SimAI and ASTRA-sim hold every pod's leaves and own spines and the
shared cores, wired as core.fabric.podwiring wires them; the hall (core.physical.podlayout) places the shared cores
in its middle rows and the first pod's extra out-of-band switches in the shared racks."""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest

from core.analysis.pods import mixed_links, mixed_plan, mixed_wiring
from core.design import Design
from core.formats.exports import export_text, exports
from core.formats.ibnetdiscover import read_ibnetdiscover
from core.plan import plan
from tests.ibsimtools import needed_tools
from tests.test_pods_sims import _graph_of_links
from tests.test_verify_ibsim import _discover
from tests.podflow import index_graph, is_the_index_graph

MIXED = Design(gpu="H100", nodes=64, pods="B200:32:800", tiers=3)
"""64 DGX H100 and 32 DGX B200 at 800G on three tiers: 16 + 8 leaves, 16 + 4 own spines, 8 Q3400 cores in 4
groups of 2 (tests/test_pods_three.py): 768 links per class."""
SPEEDS = Design(gpu="H100", nodes=32, switch="QM8700", port_speed_gbps=200, pods="A100:16:100", tiers=3)
"""An H100 pod at HDR and an A100 pod at 100 Gb/s on three tiers: 20 + 4 own spines, 16 QM8700 cores; pod 2's
spine uplinks take half a core port each (2 lanes), rates Debian's ibsim brings up as planned."""


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


_whole = index_graph  # the index graph (tests/podflow.py)
_is_the_index_graph = is_the_index_graph


# --- the hall -----------------------------------------------------------------------------------------------------

def test_the_hall_keeps_each_pods_spines_and_stands_the_shared_cores_in_the_middle():
    mixed = mixed_plan(MIXED)
    hall, wiring = mixed.hall, mixed_wiring(mixed, three_tiers=True)
    kinds = Counter(s.kind for rack in hall.layout.racks for s in rack.slots for _k in range(s.count))
    assert kinds["spine"] == 16 + 4 and kinds["core"] == 8  # own spines kept, the pods' own cores gone
    rows = {hall.layout.position(wiring.core_id(k)).row for k in range(8)}
    assert all(hall.pods_of_rows[r] == () for r in rows)
    assert {hall.layout.position(wiring.own_spine_id(1, k)).row for k in range(4)} <= {
        r for r, pods in enumerate(hall.pods_of_rows) if pods == (1,)}
    by_class = [{x.link_class: x.links for x in classes} for classes in mixed.lengths]
    assert by_class == [{"node-leaf": 512, "leaf-spine": 512, "spine-core": 512},
                        {"node-leaf": 256, "leaf-spine": 256, "spine-core": 256}]
    # the bill's spine-core cables are the hall's: one row per length bin of each pod (the media it counts)
    for media, classes in zip(mixed.media, mixed.lengths):
        core = next(x for x in classes if x.link_class == "spine-core")
        assert [(m.label(), m.links) for m in media if m.link_class == "spine-core"] == [
            (b.label(), b.links) for b in core.bins]


def test_extra_out_of_band_switches_stand_in_the_shared_racks():
    """32 shared spines need a third out-of-band switch on pod 1 of 24 nodes (tests/test_pods_management.py): it
    stands in the shared rows' racks, above the spines, within the rack's U and power; NetBox places it there."""
    from core.analysis.podmgmt import extra_oob_switches
    from core.formats.netbox import devices
    from core.formats.podnetbox import mixed_devices

    mixed = mixed_plan(Design(nodes=24, pods="B200:128"))
    prefix, first, count = extra_oob_switches(mixed)
    assert count == 1
    hall = mixed.hall.layout
    place = hall.position(f"pod1.{prefix}{first}")
    rack = hall.rack(place.rack)
    assert mixed.hall.pods_of_rows[rack.row] == ()
    assert rack.u_used <= rack.u_total and rack.kw <= rack.kw_limit
    spines_top = max(s.top_u for s in rack.slots if s.kind == "spine")
    assert place.u > spines_top
    row = next(d for d in mixed_devices(mixed, None, "site", devices) if d[9] == f"pod1.{prefix}{first}")
    assert (row[6], row[7]) == (place.rack, str(place.u))


# --- cabling plan and NetBox --------------------------------------------------------------------------------------

def test_the_cabling_plan_cables_every_port_once_and_the_spine_core_links_of_the_wiring():
    mixed = mixed_plan(MIXED)
    rows = _rows(export_text(plan(MIXED), "cabling"))
    ends = Counter((r[side + "_device"], r[side + "_port"]) for r in rows for side in ("a", "z") if r[side + "_port"])
    assert max(ends.values()) == 1  # every port cabled once
    compute = Counter(r["link_class"] for r in rows if r["network"] == "compute")
    assert {c: compute[c] for c in ("node-leaf", "leaf-spine", "spine-core")} == {
        "node-leaf": 768, "leaf-spine": 768, "spine-core": 768}
    core_rows = [r for r in rows if r["link_class"] == "spine-core"]
    assert Counter(r["z_device"] for r in core_rows) == {f"core{k:03d}": 96 for k in range(1, 9)}  # 96 of 144
    assert not any(re.match(r"pod\d-core", r["a_device"] + " " + r["z_device"]) for r in rows)  # own cores gone
    planned = [(a, z) for kind, a, _ap, z, _zp, _s in mixed_links(mixed) if kind == "spine-core"]
    names = {f"pod{i + 1}.p0.spine{k}": f"pod{i + 1}-spine{k + 1:03d}" for i in range(2) for k in range(16)}
    assert [(r["a_device"], r["z_device"]) for r in core_rows] == [
        (names[a], f"core{int(z[4:]) + 1:03d}") for a, z in planned]
    assert all(r["length_m"] and float(r["length_m"]) > 0 and r["a_rack"] != r["z_rack"] for r in core_rows)
    graph = nx.Graph()  # the compute cables as a device graph: the index graph, device by device
    for r in rows:
        if r["network"] == "compute" and r["link_class"] in ("node-leaf", "leaf-spine", "spine-core"):
            a, z = r["a_device"], r["z_device"]
            links = graph[a][z]["links"] + 1 if graph.has_edge(a, z) else 1
            graph.add_edge(a, z, links=links)
    assert _is_the_index_graph(graph, MIXED)


def test_the_cores_management_is_the_bills():
    from tests.test_pods_management import MANAGEMENT, _bill_links

    from core.formats.podnetbox import mixed_cabling_rows

    mixed = mixed_plan(MIXED)
    rows = list(mixed_cabling_rows(mixed, None))
    for kind in MANAGEMENT:
        assert sum(1 for r in rows if r.link_class == kind) == _bill_links(mixed, kind), kind
    managed = {r.a_device for r in rows if r.link_class == "switch-mgmt"}
    assert {f"core{k:03d}" for k in range(1, 9)} <= managed


def test_netbox_holds_every_pods_spines_and_the_shared_cores_in_the_hall():
    p, mixed = plan(MIXED), mixed_plan(MIXED)
    devices = _rows(export_text(p, "netbox-devices"))
    names = [r["name"] for r in devices]
    assert len(names) == len(set(names))
    roles = Counter(r["role"] for r in devices)
    assert (roles["Leaf switch"], roles["Spine switch"], roles["Core switch"], roles["GPU server"]) == (24, 20, 8, 96)
    hall = {rack.name: rack for rack in mixed.hall.layout.racks}
    compute = [r for r in devices if r["role"] in ("GPU server", "Leaf switch", "Spine switch", "Core switch")]
    assert all(r["rack"] in hall and r["position"] and r["face"] == "front" for r in compute)
    placed = [(r["rack"], r["position"]) for r in devices if r["rack"] and r["position"]]
    assert len(placed) == len(set(placed))
    core_rows = {hall[r["rack"]].row for r in devices if r["role"] == "Core switch"}
    assert all(mixed.hall.pods_of_rows[row] == () for row in core_rows)
    cables = _rows(export_text(p, "netbox-cables"))
    interfaces = {(i["device"], i["name"]) for i in _rows(export_text(p, "netbox-interfaces"))}
    ends = [(c["side_a_device"], c["side_a_name"]) for c in cables] + [
        (c["side_b_device"], c["side_b_name"]) for c in cables]
    assert len(ends) == len(set(ends)) and set(ends) <= interfaces and {d for d, _n in ends} <= set(names)
    assert sum(1 for c in cables if "spine-core" in c["description"]) == 768
    # NetBox's import forms (tests/test_netbox.py, netbox v4.6.8): required fields filled, choices NetBox has
    from tests.test_netbox import (NETBOX_CABLE_REQUIRED, NETBOX_CABLE_TYPES, NETBOX_DEVICE_REQUIRED,
                                   NETBOX_DEVICE_STATUS, NETBOX_FACES, NETBOX_INTERFACE_TYPES)

    assert all(r[f] for r in devices for f in NETBOX_DEVICE_REQUIRED)
    assert {r["status"] for r in devices} <= NETBOX_DEVICE_STATUS
    assert {r["face"] for r in devices} <= NETBOX_FACES | {""}
    assert all(c[f] for c in cables for f in NETBOX_CABLE_REQUIRED)
    assert {c["type"] for c in cables} <= NETBOX_CABLE_TYPES | {""}
    assert {i["type"] for i in _rows(export_text(p, "netbox-interfaces"))} <= NETBOX_INTERFACE_TYPES


# --- ibsim --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("design", [MIXED, SPEEDS], ids=["800G", "HDR+EDR"])
def test_ibsim_file_is_the_index_graph_each_port_once(design):
    text = export_text(plan(design), "ibsim")
    links = read_ibnetdiscover(text.encode())
    assert _is_the_index_graph(_graph_of_links(links), design)
    ends = Counter((end.device, end.port) for link in links for end in (link.a, link.b))
    assert max(ends.values()) == 1
    f = mixed_plan(design).fabric
    headers = re.findall(r'^Switch\t(\d+) "([^"]+)"', text, re.M)
    assert len(headers) == f.leaves + sum(p.own_spines for p in f.pods) + f.cores
    assert headers[0][1] == "pod1-leaf001" and headers[-1][1] == f"core{f.cores:03d}"


@pytest.mark.slow
def test_ibsim_simulates_pods_on_three_tiers_and_ibnetdiscover_finds_them_at_their_speeds(tmp_path: Path):
    """The real ibsim simulates the net file and the real ibnetdiscover discovers the index graph, each pod's links
    up at its own rate (4xHDR, 4xEDR): every pod's NICs, leaf uplinks and spine uplinks."""
    tools = needed_tools()
    text = export_text(plan(SPEEDS), "ibsim")
    net = tmp_path / "net"
    net.write_text(text)
    command = re.search(r"^# run: (.*)$", text, re.M)[1]
    links = read_ibnetdiscover(_discover(net, command, tools, tmp_path).encode())
    assert _is_the_index_graph(_graph_of_links(links), SPEEDS)
    rates = Counter((link.a.device.split("-")[0] if link.a.device.startswith("pod") else link.b.device.split("-")[0],
                     link.speed_gbps, link.width) for link in links)
    first, second = mixed_plan(SPEEDS).fabric.pods
    assert rates == {
        ("pod1", 200.0, "4x"): first.gpus + first.uplinks + first.own_spines * first.spine_uplinks,
        ("pod2", 100.0, "4x"): second.gpus + second.uplinks + second.own_spines * second.spine_uplinks}


# --- SimAI and ASTRA-sim ------------------------------------------------------------------------------------------

def test_simai_is_the_index_graph_at_each_pods_rates():
    from core.formats.podsims import simai_switch_ids
    from tests.test_export_sim import gbps, read_simai
    from tests.test_pods_sims import assert_simai_is

    mixed = mixed_plan(MIXED)
    wiring = mixed_wiring(mixed, three_tiers=True)
    f = read_simai(export_text(plan(MIXED), "simai"))
    server, first = {}, 0
    for i, p in enumerate(mixed.plans):
        for gpu in range(p.resolved.gpus):
            server[first + gpu] = wiring.node_id(i, gpu // p.resolved.gpus_per_node)
        first += p.resolved.gpus
    server.update({v: k for k, v in simai_switch_ids(mixed).items()})
    got = nx.Graph()
    for src, dst, rate, _delay, _error in f["links"]:
        if f["node_type"][dst] != 2:
            a, b = server[src], server[dst]
            capacity = got[a][b]["capacity_gbps"] if got.has_edge(a, b) else 0.0
            got.add_edge(a, b, capacity_gbps=capacity + gbps(rate))
    assert_simai_is(got, _whole(MIXED), MIXED)  # a B200 pod's 800G ports carry what its Gen5 host feeds: 400
    assert len(f["switches"]) == 24 + 20 + 8 and f["gpu_type"] == "H100+B200"
    assert "own spines and the shared cores" in exports()["simai"].label_for(plan(MIXED))


def test_astra_joins_every_pods_leaf_sets_at_the_slowest_rate_across_the_core():
    from core.formats import astrasim
    from tests.test_export_sim import read_astra

    mixed = mixed_plan(MIXED)
    text = export_text(plan(MIXED), "astra-sim")
    config = read_astra(text)
    assert config["npus_count"] == [8, 32, 3]  # pod 1's two leaf sets of 256 GPUs and pod 2's one
    got = [bw / astrasim.GIB_PER_GB for bw in config["bandwidth"]]
    assert got[-1] == pytest.approx(mixed.fabric.cross_pod_gbps_per_gpu / 8)
    assert config["latency"][-1] == pytest.approx(3 * config["latency"][1])  # a core dimension's three hops
    assert "8 shared Q3400 cores" in text and "3 tiers" in text and "core dimension" in text


REGULAR = Design(gpu="H100", nodes=64, pods="H200:64,B200:64", tiers=3)
"""Three pods of 64 nodes at 400G on three tiers, each two leaf sets (scalable units of 32 nodes) under its own
spines: one grid of NVLink domain x leaf set x pod spine level x pod."""


@pytest.mark.parametrize("design", [REGULAR, MIXED], ids=["same-leaf-sets", "other-leaf-sets"])
def test_astra_dimensions_are_the_wirings_leaf_pod_spine_and_core(design):
    """Read back, the ASTRA-sim file's dimensions are the index's (core.fabric.podwiring): every GPU's coordinates
    in the grid (NPUs numbered pod by pod, innermost first) are its NVLink domain, its leaf set under its pod's own
    spines and its pod; with pods of other leaf set counts (MIXED: 2 and 1) the outer dimension counts every pod's
    leaf sets, and the file says why."""
    from core.formats import astrasim
    from tests.test_export_sim import read_astra

    mixed = mixed_plan(design)
    wiring = mixed_wiring(mixed, three_tiers=True)
    text = export_text(plan(design), "astra-sim")
    config = read_astra(text)
    domain = mixed.plans[0].resolved.nvlink_domain_gpus
    gpn = mixed.plans[0].resolved.gpus_per_node
    per_set = {own.group_nodes(0) * gpn // domain for own in wiring.wirings}  # GPUs under a leaf set
    groups = [own.groups for own in wiring.wirings]
    assert len(per_set) == 1 and math.prod(config["npus_count"]) == mixed.fabric.gpus
    if len(set(groups)) == 1:
        assert config["npus_count"] == [domain, per_set.pop(), groups[0], len(wiring.wirings)] == [8, 32, 2, 3]
        link = config["latency"][1]
        assert config["latency"][2:] == pytest.approx([2 * link, 3 * link])  # a spine's two hops, a core's three
        got = [bw / astrasim.GIB_PER_GB for bw in config["bandwidth"]]
        slowest_spine = min(d.gbytes_per_s for p in mixed.plans for d in astrasim.dimensions(p) if d.level == "spine")
        assert got[2:] == pytest.approx([slowest_spine, mixed.fabric.cross_pod_gbps_per_gpu / 8])
        assert "dimension 3: spine level" in text and "dimension 4: core level" in text
    else:
        assert config["npus_count"] == [domain, per_set.pop(), sum(groups)] == [8, 32, 3]
        assert "other leaf set counts (pod 1: 2, pod 2: 1)" in text
    # every GPU's coordinates are the wiring's: its leaf set (and its pod) in the index
    npus, first = config["npus_count"], 0
    for i, (own, p) in enumerate(zip(wiring.wirings, mixed.plans)):
        for gpu in range(p.resolved.gpus):
            n = first + gpu
            outer = n // (npus[0] * npus[1])  # leaf set, over every pod in turn
            node = gpu // gpn
            leaf = own.node_port(node, gpu % gpn)[0]
            if len(npus) == 4:
                assert (outer // npus[2], outer % npus[2]) == (i, own.group_of_node(node))
            else:
                assert outer == sum(groups[:i]) + own.group_of_node(node)
            assert leaf in own.leaves_of_group(own.group_of_node(node))
        first += p.resolved.gpus
