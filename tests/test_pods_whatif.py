"""The failure what-if of a design with pods on the whole fabric (core.analysis.podwhatif) against networkx on the
whole fabric's graph (core.fabric.podgraph, every server a vertex): GPUs cut off and max-flow into the spines."""

from __future__ import annotations

import networkx as nx
import pytest

from core.analysis.pods import mixed_plan, mixed_wiring
from core.analysis.podwhatif import pod_elements, pods_what_if
from core.design import Design
from core.errors import InputError
from core.fabric.podgraph import pods_fabric_graph

TWO = Design(gpu="H100", nodes=64, pods="B200:32:400")
"""An H100 pod of 512 GPUs and a B200 pod of 256 under one spine layer (as tests/test_pods_views.py)."""
TOR = Design(gpu="H100", nodes=64, topology="top-of-rack", pods="B200:32:400")


def _graph(mixed):
    return pods_fabric_graph(mixed_wiring(mixed), tuple(p.fabric.radix for p in mixed.plans),
                             tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), "each")


def _expected(mixed, failed, cables=()):
    """Per pod: (GPUs cut off, max-flow from its servers into the live spines [Gb/s]) by networkx; ``cables``: leaf-
    spine cables lost as ``(leaf, spine)`` (one cable's capacity off the pair's edge each)."""
    graph = _graph(mixed)
    graph.remove_nodes_from(failed)
    for leaf, spine in cables:
        pod = mixed.fabric.pods[graph.nodes[leaf]["pod_index"]]
        graph.edges[leaf, spine]["capacity_gbps"] -= pod.uplink_speed_gbps
    gpn = [p.resolved.gpus_per_node for p in mixed.plans]

    def gpus(vertices):
        return sum(gpn[graph.nodes[v]["pod_index"]] for v in vertices if graph.nodes[v]["role"] == "server")

    kept = max(nx.connected_components(graph), key=gpus)
    flow = nx.DiGraph()
    for a, b, d in graph.edges(data=True):
        flow.add_edge(a, b, capacity=d["capacity_gbps"])
        flow.add_edge(b, a, capacity=d["capacity_gbps"])
    spines = [v for v, d in graph.nodes(data=True) if d["role"] == "spine"]
    for s in spines:
        flow.add_edge(s, "sink")
    out = []
    for i in range(len(mixed.plans)):
        servers = [v for v, d in graph.nodes(data=True) if d["role"] == "server" and d["pod_index"] == i]
        cut = sum(gpn[i] for v in servers if v not in kept)
        source = flow.copy()
        for v in servers:
            source.add_edge("source", v)
        value = nx.maximum_flow_value(source, "source", "sink") if spines else 0
        out.append((cut, value))
    return out


@pytest.mark.parametrize("design", [TWO, TOR], ids=["rail-optimized", "top-of-rack"])
@pytest.mark.parametrize("failed", [[], ["spine0"], ["pod2.p0.leaf1"], ["spine0", "pod2.p0.leaf1", "pod1.p0.leaf3"],
                                    "every spine", "pod 2's leaves"])
def test_the_whole_fabric_what_if_is_networkx(design, failed):
    mixed = mixed_plan(design)
    elements = pod_elements(mixed)
    if failed == "every spine":
        failed = [e for e in elements if e.startswith("spine")]
    elif failed == "pod 2's leaves":
        failed = [e for e in elements if e.startswith("pod2.")]
    assert set(failed) <= set(elements)
    losses = pods_what_if(mixed, failed)
    assert [(loss.gpus_cut_off, loss.spine_gbps) for loss in losses] == _expected(mixed, failed)
    assert [loss.pod for loss in losses] == [1, 2]
    if not failed:
        assert all(loss.spine_gbps == loss.healthy_spine_gbps > 0 and not loss.gpus_cut_off for loss in losses)


def test_a_shared_spine_lost_costs_every_pod_its_share_and_a_leaf_of_pod_2_only_pod_2():
    mixed = mixed_plan(TWO)
    spines = mixed.fabric.spines
    one = pods_what_if(mixed, ["spine0"])
    for loss in one:
        assert loss.gpus_cut_off == 0 and loss.injection_gbps == loss.healthy_injection_gbps
        assert loss.spine_gbps <= loss.healthy_spine_gbps * (spines - 1) / spines + 1e-9
    pod1, pod2 = pods_what_if(mixed, ["pod2.p0.leaf1"])
    assert pod1.spine_gbps == pod1.healthy_spine_gbps and pod1.nodes_degraded == 0
    assert pod2.nodes_degraded > 0 and pod2.gpus_cut_off == 0 and pod2.injection_gbps < pod2.healthy_injection_gbps


def test_one_leaf_spine_cable_lost_is_that_cable_of_its_bundle():
    """``<bundle>#x`` is one cable of a leaf's bundle to a spine (networkx with that cable's capacity off the
    pair); every cable of the bundle is the bundle."""
    mixed = mixed_plan(TWO)
    pair = mixed.fabric.pods[1].links_per_leaf_spine_pair
    assert pair > 1
    one = pods_what_if(mixed, ["pod2.p0.leaf1-spine0#1"])
    assert [(loss.gpus_cut_off, loss.spine_gbps) for loss in one] == _expected(
        mixed, [], [("pod2.p0.leaf1", "spine0")])
    assert one[1].healthy_spine_gbps - one[1].spine_gbps == mixed.fabric.pods[1].uplink_speed_gbps
    every = pods_what_if(mixed, [f"pod2.p0.leaf1-spine0#{x}" for x in range(pair)])
    assert every == pods_what_if(mixed, ["pod2.p0.leaf1-spine0"])
    assert pods_what_if(mixed, ["pod2.p0.leaf1-spine0#0", "pod2.p0.leaf1-spine0#0"]) == pods_what_if(
        mixed, ["pod2.p0.leaf1-spine0#0"])
    with pytest.raises(InputError, match=r"one cable of it \(such as pod1-leaf001 -> spine001 #1\)"):  # export names
        pods_what_if(mixed, [f"pod2.p0.leaf1-spine0#{pair}"])


@pytest.mark.parametrize("element", ["pod9.p0.leaf0", "pod2.node3", "spine999", "pod2.p0.leaf999", ""])
def test_an_unknown_element_is_refused(element):
    with pytest.raises(InputError):
        pods_what_if(mixed_plan(TWO), [element])


def test_the_failure_command_of_a_design_with_pods_reads_the_whole_fabric(capsys):
    import json

    from conftest import run_cli

    pods = ("--gpu", "H100", "--nodes", "64", "--pods", "B200:32:400")
    code, out, _err = run_cli(capsys, "failure", *pods, "--fail", "spine0", "--fail", "pod2.p0.leaf1",
                              "--format", "json")
    assert code == 0
    data = json.loads(out)
    expected = pods_what_if(mixed_plan(TWO), ["spine0", "pod2.p0.leaf1"])
    assert data["pods"] == [loss.model_dump() for loss in expected]
    code, out, _err = run_cli(capsys, "failure", *pods, "--fail", "pod2.p0.leaf1")
    assert code == 0 and "pod 2 (B200)" in out and "Servers degraded" in out
    code, out, _err = run_cli(capsys, "failure", *pods, "--fail", "leaf:1")  # pod 1's leaf on the whole fabric (left48)
    assert code == 0 and "pod 2 (B200)" in out and "on pod 1" in out


def test_pod_one_alone_ids_map_to_the_whole_fabric_and_back():
    """The what-if of pod 1 alone names its spines ``p0.spine<j>`` and leaves ``p0.leaf<k>``: the shared spine
    ``spine<j>`` and pod 1's leaf on the whole fabric (and back); a NIC or a spine the shared layer lacks maps to
    nothing."""
    from core.analysis.podwhatif import whole_failures

    mixed = mixed_plan(TWO)
    wiring = mixed_wiring(mixed)
    last = f"p0.spine{mixed.fabric.spines}"
    assert whole_failures(mixed, ["p0.spine1", "P0.LEAF3", "node5.nic2", last]) == ["spine1", "pod1.p0.leaf3"]
    assert [wiring.alone_of_whole(e) for e in ("spine1", "pod1.p0.leaf3", "pod2.p0.leaf3")] == [
        "p0.spine1", "p0.leaf3", None]
    assert set(whole_failures(mixed, ["p0.spine0", "p0.leaf0"])) <= set(pod_elements(mixed))


def test_every_single_point_named_is_taken_by_the_what_if():
    """The single points and degrading examples of a design with pods use one naming (``PodsWiring`` ids): the
    shared fabric's leaves, spines and bundles are failed on the whole fabric; a pod's own parts carry its prefix
    and pod 1's are failed by its own what-if."""
    from core.analysis import failure
    from core.analysis.podspof import SWITCH_TIERS, pods_single_points
    from core.analysis.podwhatif import is_whole_element

    mixed = mixed_plan(TOR)
    wiring = mixed_wiring(mixed)
    spof = pods_single_points(mixed)
    named = [(e.tier, e.element) for e in spof.elements] + [(d.tier, d.example) for d in spof.degrading]
    assert any(tier == "link" for tier, _e in named) and any(tier == "leaf" for tier, _e in named)
    for tier, element in named:
        assert " " not in element and ":" not in element, element
        if tier in SWITCH_TIERS:
            assert is_whole_element(mixed, element), element
            assert pods_what_if(mixed, [element])
        else:
            assert wiring.parse(element) is not None, element
            if element.startswith("pod1."):
                failure.resolve_failures(mixed.plans[0], [wiring.alone_of_whole(element)])


def test_one_selection_splits_as_the_cli_reads_it_and_back():
    """The page's failure selection of a design with pods: the CLI's whole-fabric names go to pod 1's what-if where
    pod 1 alone has them, to the whole fabric only where not, and the share link gives them back as the CLI's."""
    from core.analysis.podwhatif import link_failures, split_failures

    mixed = mixed_plan(TWO)
    alone, whole = split_failures(mixed, ["spine0", "pod2.p0.leaf1", "pod1.p0.leaf3", "node5.nic2", " P0.Spine1 "])
    assert alone == ["p0.spine0", "p0.leaf3", "node5.nic2", "p0.spine1"]
    assert whole == ["pod2.p0.leaf1"]
    back = link_failures(mixed, alone, whole)
    assert back == ("spine0", "pod1.p0.leaf3", "node5.nic2", "spine1", "pod2.p0.leaf1")
    assert split_failures(mixed, back) == (alone, whole)


def test_the_failure_command_names_pod_one_s_chosen_element_as_the_pods_exports_do(capsys):
    """rev47b #3: ``failure --pods ... --fail leaf:1`` fails one of pod 1's leaves; the element it chose and the note's
    examples are named as the pods' exports name them under ``--switch-prefix`` (``pod1-sw-leaf001``,
    ``sw-spine001``), never by pod 1 alone's id (``p0.leaf0``) or the default names; the name read back fails the same
    leaf on the whole fabric."""
    from conftest import run_cli

    pods = ("--nodes", "64", "--pods", "B300:32:800")
    code, out, _err = run_cli(capsys, "failure", *pods, "--fail", "leaf:1")
    assert code == 0 and "failed: leaf:1 (pod1-leaf001 *)" in out and "p0.leaf0" not in out
    assert "leaf:1 fails pod1-leaf001 on pod 1" in out  # left48: on the whole fabric, the pod said
    named = ("--node-prefix", "n", "--switch-prefix", "sw-")
    code, out, _err = run_cli(capsys, "failure", *pods, "--fail", "leaf:1", *named)
    assert code == 0 and "failed: leaf:1 (pod1-sw-leaf001 *)" in out and "leaf:1 fails pod1-sw-leaf001 on pod 1" in out
    assert "24 / 25.6" in out  # by hand: the leaf's 32 GPU ports x 400 Gb/s = 1.6 TB/s of pod 1's 25.6 TB/s less
    code, out, _err = run_cli(capsys, "failure", *pods, "--fail", "pod1-sw-leaf001", *named)
    assert code == 0 and "pod 1 (H100)" in out
