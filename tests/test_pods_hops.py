"""Hops between pods (``MixedFabric.cross_pod_hops``) against shortest paths in the pods' graph (networkx), in the
whole plan's bandwidth and the CLI's JSON, on two and three tiers."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from core.analysis.pods import mixed_wiring
from core.analysis.whole import whole_plan, whole_summary
from core.cli import main as cli_main
from core.design import Design
from core.fabric.podgraph import pods_fabric_graph
from core.plan import plan


def _switches_crossed(mixed) -> set[int]:
    """Switches on a shortest path between a server of every pod and a server of every other pod."""
    graph = pods_fabric_graph(mixed_wiring(mixed, three_tiers=True), tuple(p.fabric.radix for p in mixed.plans),
                              (1.0,) * len(mixed.plans), "grouped")
    servers = {}
    for v, data in graph.nodes(data=True):
        if data["role"] == "server":
            servers.setdefault(data["pod_index"], v)
    out = set()
    for a in servers:
        for b in servers:
            if a < b:
                path = nx.shortest_path(graph, servers[a], servers[b])
                out.add(sum(graph.nodes[v]["role"] != "server" for v in path))
    return out


@pytest.mark.parametrize("tiers, hops", [(2, 3), (3, 5)])
def test_cross_pod_hops_are_the_graph_shortest_paths(tiers, hops, capsys):
    design = Design(gpu="H100", nodes=64, pods="B200:32:800", tiers=tiers)
    whole = whole_plan(plan(design))
    assert whole.mixed.fabric.tiers == tiers
    assert _switches_crossed(whole.mixed) == {hops}
    assert whole.bandwidth.hops_cross_pod == hops == whole_summary(plan(design))["bandwidth"]["hops_cross_pod"]
    cli_main(["plan", "--nodes", "64", "--pods", "B200:32:800", "--tiers", str(tiers), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["bandwidth"]["hops_cross_pod"] == hops
