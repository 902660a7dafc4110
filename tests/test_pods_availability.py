"""Availability of a design with pods over the whole fabric (core.analysis.podavail) against an exact enumeration
of every state of the shared spines and the pods' leaves on a tiny two-pod design, each state's GPUs cut off read
from networkx on the whole fabric's graph (core.fabric.podgraph)."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from core.analysis.availability import ClassRate, default_rates
from core.analysis.podavail import pods_availability
from core.analysis.pods import mixed_plan, mixed_wiring
from core.analysis.podwhatif import pod_elements
from core.design import Design
from core.errors import InputError
from core.fabric.podgraph import pods_fabric_graph

TINY = Design(gpu="H100", nodes=8, topology="top-of-rack", pods="B200:4:400")
"""Two top-of-rack pods (8 H100 and 4 B200 servers) under two shared spines: five switches, 32 states."""


def _rates(node_afr: float, switch_afr: float) -> dict[str, ClassRate]:
    rates = default_rates()
    rates["gpu_node"] = ClassRate(afr=node_afr, mttr_hours=876.0)
    rates["switch"] = ClassRate(afr=switch_afr, mttr_hours=876.0)
    return rates


def _connected_nodes(mixed, failed) -> list[int]:
    """Per pod, the servers in the part of the graph holding the most GPUs once ``failed`` is removed."""
    graph = pods_fabric_graph(mixed_wiring(mixed), tuple(p.fabric.radix for p in mixed.plans),
                              tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), "each")
    graph.remove_nodes_from(failed)
    gpn = [p.resolved.gpus_per_node for p in mixed.plans]

    def gpus(vertices):
        return sum(gpn[graph.nodes[v]["pod_index"]] for v in vertices if graph.nodes[v]["role"] == "server")

    kept = max(nx.connected_components(graph), key=gpus)
    return [sum(1 for v in kept if graph.nodes[v]["role"] == "server" and graph.nodes[v]["pod_index"] == i)
            for i in range(len(mixed.plans))]


def _exact(mixed, rates):
    """Per pod: expected GPUs available and the probability every GPU is, summed over every switch state."""
    q_node, q_switch = rates["gpu_node"].unavailability, rates["switch"].unavailability
    elements = pod_elements(mixed)
    gpn = [p.resolved.gpus_per_node for p in mixed.plans]
    nodes = [p.nodes for p in mixed.fabric.pods]
    expected, whole = [0.0] * len(gpn), [0.0] * len(gpn)
    for state in itertools.product((False, True), repeat=len(elements)):
        p = 1.0
        for lost in state:
            p *= q_switch if lost else 1 - q_switch
        connected = _connected_nodes(mixed, [e for e, lost in zip(elements, state) if lost])
        for i in range(len(gpn)):
            expected[i] += p * connected[i] * (1 - q_node) * gpn[i]
            whole[i] += p * (1 - q_node) ** nodes[i] if connected[i] == nodes[i] else 0.0
    return expected, whole


def test_the_pods_availability_is_the_enumeration():
    mixed = mixed_plan(TINY)
    rates = _rates(node_afr=1.0, switch_afr=2.5)  # q about 0.09 and 0.2: many states drawn
    trials = 20_000
    result = pods_availability(mixed, trials=trials, seed=1, rates=rates)
    expected, whole = _exact(mixed, rates)
    assert [p.pod for p in result.pods] == [1, 2]
    assert result.elements == {"gpu_node": 12, "switch": 5}
    for pod, mean, p_whole in zip(result.pods, expected, whole):
        spread = pod.gpus / trials ** 0.5  # a loose bound on the standard error of the mean [GPUs]
        assert abs(pod.expected_gpus_available - mean) < 4 * spread
        assert abs(pod.all_available_fraction - p_whole) < 4 * (0.25 / trials) ** 0.5
        assert mean < pod.gpus
    assert result.expected_gpus_available == pytest.approx(sum(p.expected_gpus_available for p in result.pods))


def test_the_pods_availability_with_nothing_failing_keeps_every_gpu_and_refuses_bad_input():
    mixed = mixed_plan(TINY)
    result = pods_availability(mixed, trials=50, rates=_rates(0.0, 0.0))
    assert result.job_run_fraction == 1.0 and result.expected_gpus_available == result.gpus == 8 * 8 + 4 * 8
    assert all(p.all_available_fraction == 1.0 and p.expected_gpus_cut_off == 0.0 for p in result.pods)
    every_switch = pods_availability(mixed, trials=50, rates=_rates(0.0, 1e9))  # every switch always down
    assert every_switch.expected_gpus_available == pytest.approx(0.0, abs=1e-6)
    assert every_switch.job_run_fraction == 0.0
    with pytest.raises(InputError):
        pods_availability(mixed, job_gpus=10_000)
    with pytest.raises(InputError):
        pods_availability(mixed, trials=0)
