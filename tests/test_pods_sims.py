"""Every pod in the simulator and monitoring exports of a design with pods: the ibsim net file (simulated by the real
ibsim and discovered by the real ibnetdiscover), the SimAI topology, the ASTRA-sim network and the Prometheus rules
hold every pod's devices and the shared spines, as the whole fabric's wiring (core.fabric.podwiring) and graph
(core.fabric.podgraph) have them."""

from __future__ import annotations

import os
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
from tests.test_verify_ibsim import _discover, _tools

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
    planned = Counter((a, z) for kind, a, _pa, z, _pz, _s in mixed_links(mixed_plan(SPEEDS)) if kind == "leaf-spine")
    got = Counter()
    for link in links:
        leaf, spine = sorted((link.a.device, link.b.device))
        if spine.startswith("spine"):  # pod2-leaf003 - spine001: pod2.p0.leaf2 - spine0
            pod, number = leaf.split("-leaf")
            got[f"{pod}.p0.leaf{int(number) - 1}", f"spine{int(spine[5:]) - 1}"] += 1
    assert got == planned
    speeds = {(pod, link.speed_gbps) for link in links for pod in ("pod1", "pod2")
              if f'"{pod}-' in f'"{link.a.device}' or f'"{pod}-' in f'"{link.b.device}'}
    assert speeds == {("pod1", 200.0), ("pod2", 100.0)}


@pytest.mark.slow
def test_ibsim_simulates_every_pod_and_ibnetdiscover_finds_them_at_their_speeds(tmp_path: Path):
    """The real ibsim simulates the net file of a design with pods and the real ibnetdiscover discovers it: the
    discovered fabric is podgraph's, each pod's links up at its own rate (4xHDR, 4xEDR)."""
    tools = _tools()
    if tools is None:
        if os.environ.get("CI"):
            pytest.fail("ibsim/ibnetdiscover missing: `make ibsim` installs ibsim-utils and infiniband-diags")
        pytest.skip("ibsim-utils / infiniband-diags not installed (make ibsim)")
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
