"""Every pod in the simulator and monitoring exports of a design with pods: the ibsim net file (simulated by the real
ibsim and discovered by the real ibnetdiscover), the SimAI topology, the ASTRA-sim network and the Prometheus rules
hold every pod's devices and the shared spines, as the whole fabric's wiring (core.fabric.podwiring) and graph
(core.fabric.podgraph) have them."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest

from core.analysis.pods import mixed_plan, mixed_wiring
from core.design import Design
from core.fabric.podgraph import pods_fabric_graph
from core.formats.exports import export_text, exports, pod_coverage
from core.formats.ibnetdiscover import read_ibnetdiscover
from core.plan import plan
from tests.ibsimtools import needed_tools
from tests.test_verify_ibsim import _discover

TWO = Design(gpu="H100", nodes=64, pods="B200:32:400")
"""An H100 pod of 512 GPUs and a B200 pod of 256 under one spine layer (as tests/test_pods_exports.py)."""
SPEEDS = Design(gpu="H100", nodes=32, switch="QM8700", port_speed_gbps=200, pods="A100:16:100")
"""An H100 pod at HDR (200 Gb/s) and an A100 pod at 100 Gb/s, whose uplinks take half an HDR spine port each:
rates Debian's ibsim enables, one pod's differing from the other's."""


def _whole(design: Design, servers: str = "each") -> nx.Graph:
    """core.fabric.podgraph's graph of ``design``."""
    mixed = mixed_plan(design)
    return pods_fabric_graph(mixed_wiring(mixed), tuple(p.fabric.radix for p in mixed.plans),
                             tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), servers)


def _graph_of_links(links) -> nx.Graph:
    """The device graph of found links (an HCA is its host): each edge with its link count and speeds [Gb/s]."""
    graph = nx.Graph()
    for link in links:
        a, b = link.a.device, link.b.device
        for end in (link.a, link.b):
            graph.add_node(end.device, role="server" if end.hca else "switch")
        if graph.has_edge(a, b):
            graph[a][b]["links"] += 1
            graph[a][b]["speeds"].add(link.speed_gbps)
        else:
            graph.add_edge(a, b, links=1, speeds={link.speed_gbps})
    return graph


def _same_shape(found: nx.Graph, whole: nx.Graph) -> bool:
    return nx.is_isomorphic(found, whole, node_match=lambda a, b: (a["role"] == "server") == (b["role"] == "server"),
                            edge_match=lambda a, b: a["links"] == b["links"])


# --- ibsim --------------------------------------------------------------------------------------------------------

def test_ibsim_file_is_the_whole_fabric_graph():
    text = export_text(plan(TWO), "ibsim")
    found = _graph_of_links(read_ibnetdiscover(text.encode()))
    assert _same_shape(found, _whole(TWO))
    assert "pod2-gpu032 mlx5_7" in text and '"spine016"' in text and "B200" in text.splitlines()[1]
    headers = re.findall(r'^Switch\t(\d+) "([^"]+)"', text, re.M)
    assert len(headers) == 16 + 8 + mixed_plan(TWO).fabric.spines and headers[0][1] == "pod1-leaf001"


def test_ibsim_ports_are_the_cabling_plans_and_each_once():
    """Every device port in the file is used once, and a leaf-spine cable joins the leaf and spine the cabling plan
    (core.analysis.pods.mixed_links) joins, lane by lane."""
    from core.analysis.pods import mixed_links

    text = export_text(plan(SPEEDS), "ibsim")
    links = read_ibnetdiscover(text.encode())
    ends = Counter((end.device, end.port) for link in links for end in (link.a, link.b))
    assert max(ends.values()) == 1
    from core.formats.podexports import PodNames

    mixed = mixed_plan(SPEEDS)
    planned = Counter((a, z) for kind, a, _pa, z, _pz, _s in mixed_links(mixed) if kind == "leaf-spine")
    wiring, names = mixed_wiring(mixed), PodNames(mixed, None)
    ids = {names.device(wiring.spine_id(j)): wiring.spine_id(j) for j in range(mixed.fabric.spines)}
    ids.update((names.device(wiring.leaf_id(i, k)), wiring.leaf_id(i, k))
               for i, own in enumerate(wiring.wirings) for k in range(own.leaves))
    got = Counter((ids[link.a.device], ids[link.b.device]) for link in links
                  if link.a.device in ids and link.b.device in ids)
    assert got == planned
    speeds = {(pod, link.speed_gbps) for link in links for pod in ("pod1", "pod2")
              if f'"{pod}-' in f'"{link.a.device}' or f'"{pod}-' in f'"{link.b.device}'}
    assert speeds == {("pod1", 200.0), ("pod2", 100.0)}


@pytest.mark.slow
def test_ibsim_simulates_every_pod_and_ibnetdiscover_finds_them_at_their_speeds(tmp_path: Path):
    """The real ibsim simulates the net file of a design with pods and the real ibnetdiscover discovers it: the
    discovered fabric is podgraph's, each pod's links up at its own rate (4xHDR, 4xEDR)."""
    tools = needed_tools()
    text = export_text(plan(SPEEDS), "ibsim")
    net = tmp_path / "net"
    net.write_text(text)
    command = re.search(r"^# run: (.*)$", text, re.M)[1]
    discovered = _discover(net, command, tools, tmp_path)
    links = read_ibnetdiscover(discovered.encode())
    found = _graph_of_links(links)
    assert _same_shape(found, _whole(SPEEDS))
    rates = Counter((link.a.device.split("-")[0] if link.a.device.startswith("pod") else link.b.device.split("-")[0],
                     link.speed_gbps, link.width) for link in links)
    mixed = mixed_plan(SPEEDS)
    first, second = mixed.fabric.pods
    assert rates == {("pod1", 200.0, "4x"): first.gpus + first.uplinks, ("pod2", 100.0, "4x"): second.gpus
                     + second.uplinks}


# --- SimAI --------------------------------------------------------------------------------------------------------

def _simai_graph(design: Design) -> tuple[nx.Graph, dict]:
    """The SimAI file of ``design`` as SimAI's reader sees it, GPUs contracted into their servers (whole-fabric ids),
    NVLink lines left out; edges with their summed capacity [Gb/s]. Also the file as read."""
    from core.formats.podsims import simai_switch_ids
    from tests.test_export_sim import gbps, read_simai

    mixed = mixed_plan(design)
    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
    f = read_simai(export_text(plan(design), "simai"))
    server, first = {}, 0
    for i, p in enumerate(mixed.plans):
        gpn = p.resolved.gpus_per_node
        for gpu in range(p.resolved.gpus):
            server[first + gpu] = wiring.node_id(i, gpu // gpn)
        first += p.resolved.gpus
    server.update({v: k for k, v in simai_switch_ids(mixed).items()})
    got = nx.Graph()
    for src, dst, rate, _delay, _error in f["links"]:
        if f["node_type"][dst] == 2:
            continue
        a, b = server[src], server[dst]
        if got.has_edge(a, b):
            got[a][b]["capacity_gbps"] += gbps(rate)
        else:
            got.add_edge(a, b, capacity_gbps=gbps(rate))
    return got, f


def simai_equals_whole(design, whole=None):
    """The SimAI file of ``design`` read as a graph (``_simai_graph``), asserted equal to the whole fabric's graph
    (``whole(design)``, by default this module's ``_whole``) edge by edge, capacity included; returns (graph, the
    parsed file)."""
    got, f = _simai_graph(design)
    assert_simai_is(got, (whole or _whole)(design), design)
    return got, f


def assert_simai_is(got, want, design) -> None:
    """``got`` (a SimAI file read as a graph of servers and switches) has ``want``'s edges and capacities, a
    server's lines at what its pod's host feeds a port (``core.hostlink.fed_cabled_port_gbits``: the graph keeps
    the links' wire rate)."""
    from core.hostlink import fed_cabled_port_gbits

    assert {frozenset(e) for e in got.edges} == {frozenset(e) for e in want.edges}
    share = {f"pod{i}.": fed_cabled_port_gbits(p.resolved) / p.resolved.port_speed_gbps
             for i, p in enumerate(mixed_plan(design).plans, 1)}
    for a, b, data in want.edges(data=True):
        server = next((n for n in (a, b) if ".node" in n), None)
        fed = share[server[:server.index(".") + 1]] if server else 1.0
        assert got[a][b]["capacity_gbps"] == pytest.approx(data["capacity_gbps"] * fed), (a, b)


@pytest.mark.parametrize("design", [TWO, Design(gpu="H100", nodes=64, pods="B300:32:800")], ids=["400G", "800G"])
def test_simai_is_the_whole_fabric_graph_at_each_pods_rates(design):
    from tests.test_export_sim import gbps

    got, f = simai_equals_whole(design)
    mixed = mixed_plan(design)
    gpus = mixed.fabric.gpus
    assert f["node_num"] - len(f["nvswitches"]) - len(f["switches"]) == gpus
    assert len(f["switches"]) == mixed.fabric.leaves + mixed.fabric.spines and f["gpus_per_server"] == 8
    nvlink = Counter(gbps(rate) for src, dst, rate, *_ in f["links"] if f["node_type"][dst] == 2)
    assert nvlink == {p.bandwidth.nvlink_gbytes_per_gpu_per_direction * 8: p.resolved.gpus for p in mixed.plans}
    assert all(dst == gpus + src // 8 for src, dst, *_ in f["links"] if f["node_type"][dst] == 2)
    assert f["gpu_type"] == "H100+" + mixed.plans[1].resolved.system.id  # a name SimAI does not know: no model


def test_simai_writes_what_each_pods_host_feeds():
    """B200's PCIe Gen5 x16 feeds its CX8 400 Gb/s of the 800G port (core.hostlink): its GPU-leaf lines say 400Gbps,
    as the plan's bandwidth does, while the fabric graph keeps the 800G links' wire rate."""
    from tests.test_export_sim import gbps

    design = Design(gpu="H100", nodes=64, pods="B200:32:800")
    _got, f = _simai_graph(design)
    mixed = mixed_plan(design)
    h100 = mixed.plans[0].resolved.gpus
    nic = [(src, gbps(rate)) for src, dst, rate, *_ in f["links"] if src < mixed.fabric.gpus and f["node_type"][dst] != 2]
    assert {rate for src, rate in nic if src < h100} == {400.0} and {rate for src, rate in nic if src >= h100} == {400.0}
    assert mixed.plans[1].resolved.port_speed_gbps == 800


def test_simai_says_what_it_does_with_several_gpu_types_and_refuses_several_domain_sizes():
    from core.errors import DesignError

    label = exports()["simai"].label_for(plan(TWO))
    assert "H100+B200" in label and "no GPU type" in label
    with pytest.raises(DesignError, match="one NVLink domain size") as caught:
        export_text(plan(Design(gpu="H100", nodes=64, pods="GB200-NVL72:72")), "simai")
    assert "pod 2: 288 GPUs in domains of 72" in caught.value.message and caught.value.suggestion
    same = export_text(plan(Design(gpu="H100", nodes=64, pods="H100:32")), "simai").split("\n", 1)[0]
    assert same.split()[-1] == "H100"  # pods of one system: its type, which SimAI knows


# --- ASTRA-sim ----------------------------------------------------------------------------------------------------

def test_astra_is_the_whole_fabric_at_the_slowest_pods_bandwidth():
    from core.formats import astrasim
    from tests.test_export_sim import read_astra

    design = Design(gpu="H100", nodes=64, pods="B300:32:800")  # B300: CX8 on PCIe Gen6 carries its 800G (hostlink)
    text = export_text(plan(design), "astra-sim")
    config = read_astra(text)
    mixed = mixed_plan(design)
    assert config["npus_count"] == [8, 32, 3]  # 3 leaf sets of 256 GPUs: pod 1's two and pod 2's one
    assert config["npus_count"][0] * config["npus_count"][1] * config["npus_count"][2] == mixed.fabric.gpus
    got = [bw / astrasim.GIB_PER_GB for bw in config["bandwidth"]]
    nvlink = min(p.bandwidth.nvlink_gbytes_per_gpu_per_direction for p in mixed.plans)
    assert got == pytest.approx([nvlink, 50.0, mixed.fabric.cross_pod_gbps_per_gpu / 8])
    assert got[1] < max(p.bandwidth.scaleout_gbits_per_gpu / 8 for p in mixed.plans)  # the B300 pod's 100 GB/s
    assert "slowest pod" in text and "pod 2: 256 x B300 in 32 nodes at 800G" in text
    assert "slowest pod's bandwidth" in exports()["astra-sim"].label_for(plan(design))


def test_astra_refuses_pods_of_other_shapes_naming_them():
    from core.errors import DesignError

    with pytest.raises(DesignError, match="regular grid") as caught:
        export_text(plan(Design(gpu="H100", nodes=64, pods="GB200-NVL72:72")), "astra-sim")
    assert "pod 2: 72 GPUs under one leaf set, in NVLink domains of 72" in caught.value.message


def test_the_simulator_exports_cover_every_pod():
    whole, alone = pod_coverage(plan(TWO))
    assert {"ibsim", "simai", "astra-sim"} <= set(whole)


# --- Prometheus ---------------------------------------------------------------------------------------------------

def _matcher(expr: str, label: str) -> re.Pattern:
    """The regular expression of the first ``label=~"..."`` matcher of a PromQL expression (its string unescaped)."""
    found = re.search(label + r'=~"((?:[^"\\]|\\.)*)"', expr)
    return re.compile(re.sub(r"\\(.)", r"\1", found[1]))


def _device_names(design: Design) -> dict[str, list[str]]:
    """Every server, leaf and shared spine name of the whole fabric, as every export names them."""
    from core.formats.podexports import PodNames

    mixed = mixed_plan(design)
    wiring, names = mixed_wiring(mixed), PodNames(mixed, None)
    spines = [names.device(wiring.spine_id(j)) for j in range(mixed.fabric.spines)]
    found = {"server": [], "leaf": [], "spine": spines}
    for i, own in enumerate(wiring.wirings):
        found["server"] += [names.device(wiring.node_id(i, n)) for n in range(own.nodes)]
        found["leaf"] += [names.device(wiring.leaf_id(i, k)) for k in range(own.leaves)]
    return found


def test_prometheus_rules_match_every_pods_devices_and_no_other():
    from core.formats import prometheus

    rules = {a["alert"]: a for a in prometheus.alerts(plan(TWO))}
    names = _device_names(TWO)
    assert len(names["server"]) == 96 and "pod2-gpu032" in names["server"]
    hosts = _matcher(rules["GpuXid"]["expr"], "Hostname")
    assert all(hosts.fullmatch(name) for name in names["server"])
    switch = next(a for a in rules.values() if a["labels"]["tier"] == "leaf,spine" and "switch=~" in a["expr"])
    switches = _matcher(switch["expr"], "switch")
    assert all(switches.fullmatch(name) for name in names["leaf"] + names["spine"])
    assert not any(hosts.fullmatch(other) or switches.fullmatch(other)
                   for other in ("gpu001", "pod3-gpu001", "leaf001", "pod3-leaf001", "pod2-spine001"))


def test_promtool_checks_the_rules_and_an_alert_fires_on_pod_2_and_a_shared_spine(tmp_path):
    import subprocess

    from core.formats import prometheus
    from tests.test_export_prometheus import _promtool, _unit_test, expected

    path = tmp_path / "pods.yml"
    path.write_text(export_text(plan(TWO), "prometheus"), encoding="utf-8")
    out = subprocess.run([_promtool(), "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    texts = {a["alert"]: a for a in prometheus.alerts(plan(TWO))}
    series = [
        {"series": 'DCGM_FI_DEV_XID_ERRORS{Hostname="pod2-gpu032",gpu="3"}', "values": "0 0 79 79"},
        {"series": 'DCGM_FI_DEV_XID_ERRORS{Hostname="gpu001",gpu="0"}', "values": "0 0 79 79"},
        {"series": 'infiniband_switch_info{guid="0x1",switch="spine016"}', "values": "1x70"},
        {"series": 'infiniband_switch_info{guid="0x2",switch="leaf001"}', "values": "1x70"},
        {"series": 'infiniband_switch_port_symbol_error_total{guid="0x1",port="7"}', "values": "0+1x70"},
        {"series": 'infiniband_switch_port_symbol_error_total{guid="0x2",port="7"}', "values": "0+1x70"},
    ]
    xid, sym = texts["GpuXid"], texts["IbSymbolErrorsSwitch"]
    alerts = [
        {"eval_time": "3m", "alertname": "GpuXid",
         "exp_alerts": [expected(xid, {"Hostname": "pod2-gpu032", "gpu": "3"}, "pod2-gpu032")]},
        {"eval_time": "30m", "alertname": "IbSymbolErrorsSwitch",
         "exp_alerts": [expected(sym, {"guid": "0x1", "port": "7", "switch": "spine016"}, "spine016")]},
    ]
    out = _unit_test(tmp_path, path, series, alerts)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "pod 2 B200" in path.read_text()
