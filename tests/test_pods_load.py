"""Uniform traffic over the shared spines of a design with pods (core.analysis.podload) against a sum over every
pair of servers of the whole fabric's wiring (core.fabric.podwiring bundles): each pair's flow split evenly over
the sender's leaves and onto the receiver's leaves."""

from __future__ import annotations

from collections import defaultdict

import pytest

from core.analysis.podload import pods_spine_load
from core.analysis.pods import mixed_plan, mixed_wiring
from core.design import Design


def _by_pairs(mixed):
    """Per pod: (busiest leaf's load up, down [Gb/s]) and one leaf's uplink capacity, from the bundles."""
    wiring = mixed_wiring(mixed)
    gpn = {wiring.prefix(i): p.resolved.gpus_per_node for i, p in enumerate(mixed.plans)}
    leaves, capacity, up_capacity = defaultdict(set), defaultdict(float), defaultdict(float)
    for kind, a, b, count, speed in wiring.bundles():
        if kind == "node-leaf":
            leaves[a].add(b)
            capacity[a] += count * speed
        else:
            up_capacity[a] += count * speed
    pod_of = {node: node.split(".")[0] + "." for node in leaves}
    gpus = sum(gpn[pod_of[node]] for node in leaves)
    up, down = defaultdict(float), defaultdict(float)
    for s in leaves:
        rate = capacity[s] / gpn[pod_of[s]]  # per GPU
        for d in leaves:
            if d == s or leaves[d] == leaves[s]:
                continue
            flow = gpn[pod_of[s]] * gpn[pod_of[d]] * rate / (gpus - 1)
            for leaf in leaves[s]:
                up[leaf] += flow / len(leaves[s])
            for leaf in leaves[d]:
                down[leaf] += flow / len(leaves[d])
    out = []
    for i in range(len(mixed.plans)):
        mine = [leaf for leaf in up_capacity if leaf.startswith(wiring.prefix(i))]
        out.append((max(up[leaf] for leaf in mine), max(down[leaf] for leaf in mine), up_capacity[mine[0]]))
    return out


@pytest.mark.parametrize("design", [Design(gpu="H100", nodes=64, pods="B200:32:800"),
                                    Design(gpu="H100", nodes=8, topology="top-of-rack", pods="B200:4:400")],
                         ids=["rail-optimized", "top-of-rack"])
def test_uniform_load_over_the_shared_spines_is_the_pairs_sum(design):
    mixed = mixed_plan(design)
    loads = pods_spine_load(mixed)
    assert [load.pod for load in loads] == [1, 2]
    for load, (up, down, capacity) in zip(loads, _by_pairs(mixed)):
        assert load.up_gbps == pytest.approx(up)
        assert load.down_gbps == pytest.approx(down)
        assert load.capacity_gbps == pytest.approx(capacity)
        assert load.utilization == pytest.approx(max(up, down) / capacity)


def test_a_faster_pod_loads_the_slower_pods_way_down():
    """An H100 pod at 400 Gb/s and a B200 pod at 800: the B200 pod sends more into the H100 pod than it receives."""
    loads = pods_spine_load(mixed_plan(Design(gpu="H100", nodes=64, pods="B200:32:800")))
    assert loads[0].down_gbps > loads[0].up_gbps and loads[1].up_gbps > loads[1].down_gbps
