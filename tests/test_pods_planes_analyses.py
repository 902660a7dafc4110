"""Pods on several planes (tests/test_pods_planes.py's designs): the whole-fabric failure what-if, availability,
link load and as-built check read every plane; hand counts, and the what-if against networkx on the whole fabric's
graph (core.fabric.podgraph) as tests/test_pods_three_analyses.py checks three tiers."""

from __future__ import annotations

import networkx as nx
import pytest

from core.analysis.failure import what_if
from core.analysis.pods import mixed_plan
from core.analysis.podwhatif import is_whole_element, pod_elements, pods_what_if, split_failures, whole_choices
from core.errors import InputError
from tests.podflow import into_top, upward
from tests.test_pods_planes import PORT, RAIL, _whole


@pytest.fixture(scope="module")
def port():
    return mixed_plan(PORT)


@pytest.fixture(scope="module")
def rail():
    return mixed_plan(RAIL)


def _up(losses) -> list[tuple[float, int, int]]:
    return [(x.spine_gbps, x.gpus_cut_off, x.nodes_degraded) for x in losses]


def test_per_port_what_if_by_hand(port):
    """PORT per plane: pod 1 (64 H100, 8 x 400G) has 8 leaves of 64 uplinks, 8 to each of the 8 shared spines; pod 2
    (32 B200) 8 leaves of 32 uplinks, 4 to each spine. Into the shared spines, both planes: pod 1 2 x 8 x 64 x 400 =
    409,600; pod 2 2 x 8 x 32 x 400 = 204,800."""
    assert [(p.leaves, p.uplinks_per_leaf, p.links_per_leaf_spine_pair) for p in port.fabric.pods] == [
        (8, 64, 8), (8, 32, 4)] and port.fabric.spines == 8
    assert [(x.spine_gbps, x.healthy_spine_gbps) for x in pods_what_if(port, [])] == [
        (409_600, 409_600), (204_800, 204_800)]
    # one shared spine of plane 1: each pod loses 1 / (2 x 8) of its bandwidth up (pod 1 8 leaves x 8 x 400 =
    # 25,600; pod 2 8 x 4 x 400 = 12,800), nothing cut off or degraded
    assert _up(pods_what_if(port, ["p1.spine0"])) == [(409_600 - 25_600, 0, 0), (204_800 - 12_800, 0, 0)]
    # every shared spine of plane 1: half of it, no GPU cut off (plane 0 joins every pod)
    assert _up(pods_what_if(port, [f"p1.spine{j}" for j in range(8)])) == [(204_800, 0, 0), (102_400, 0, 0)]
    # every shared spine of both planes: the pods are apart, pod 2's 256 GPUs (the smaller part) cut off
    both = [f"p{q}.spine{j}" for q in range(2) for j in range(8)]
    assert _up(pods_what_if(port, both)) == [(0, 0, 0), (0, 256, 0)]
    # pod 1's leaf 0 of plane 1 (rail 0 of its one leaf group of 64 servers): 64 servers degraded, injection and
    # bandwidth up 64 x 400 = 25,600 less
    leaf = pods_what_if(port, ["pod1.p1.leaf0"])[0]
    assert (leaf.nodes_degraded, leaf.gpus_cut_off, leaf.injection_gbps, leaf.spine_gbps) == (
        64, 0, 409_600 - 25_600, 409_600 - 25_600)
    # every leaf of pod 1 in plane 1: degraded, not cut off (plane 0 still reaches them); in both planes: cut off
    half = pods_what_if(port, [f"pod1.p1.leaf{k}" for k in range(8)])[0]
    assert (half.nodes_degraded, half.gpus_cut_off, half.injection_gbps) == (64, 0, 204_800)
    every = pods_what_if(port, [f"pod1.p{q}.leaf{k}" for q in range(2) for k in range(8)])[0]
    assert (every.nodes_cut_off, every.gpus_cut_off, every.nodes_degraded) == (64, 512, 0)
    # a bundle of plane 1 (8 cables of 400) and one cable of it
    assert pods_what_if(port, ["pod1.p1.leaf0-p1.spine3"])[0].spine_gbps == 409_600 - 3_200
    assert pods_what_if(port, ["pod2.p1.leaf0-p1.spine3#3"])[1].spine_gbps == 204_800 - 400


def test_per_rail_what_if_by_hand(rail):
    """RAIL per plane (NICs 0, 2, 4, 6 in plane 0, 1, 3, 5, 7 in plane 1): pod 1 (64 H100, 400G) 8 leaves (2 leaf
    groups x 4 rails) of 32 uplinks, 8 to each of the 4 shared spines; pod 2 (32 B200, 800G) 4 leaves of 32 uplinks
    at 800G, 8 to each spine. Into the shared spines, both planes: pod 1 2 x 8 x 32 x 400 = 204,800; pod 2
    2 x 4 x 32 x 800 = 204,800."""
    assert [(p.leaves, p.uplinks_per_leaf, p.links_per_leaf_spine_pair) for p in rail.fabric.pods] == [
        (8, 32, 8), (4, 32, 8)] and rail.fabric.spines == 4
    assert [(x.spine_gbps, x.healthy_spine_gbps) for x in pods_what_if(rail, [])] == [
        (204_800, 204_800), (204_800, 204_800)]
    # one shared spine of plane 1 costs 1 / (2 x 4): 25,600 of each pod (8 x 8 x 400; 4 x 8 x 800)
    assert _up(pods_what_if(rail, ["p0.i1.spine0"])) == [(179_200, 0, 0), (179_200, 0, 0)]
    assert _up(pods_what_if(rail, [f"p0.i1.spine{j}" for j in range(4)])) == [(102_400, 0, 0), (102_400, 0, 0)]
    # every leaf of pod 2 in plane 1 (its rails 1, 3, 5, 7): degraded, its other rails reach plane 0 (a server is
    # cut off when none of its rails reaches the fabric, as core.analysis.failure counts a lost plane: PXN)
    lost = pods_what_if(rail, [f"pod2.p0.i1.leaf{k}" for k in range(4)])[1]
    assert (lost.nodes_degraded, lost.gpus_cut_off, lost.injection_gbps, lost.spine_gbps) == (32, 0, 102_400, 102_400)


@pytest.mark.parametrize("name", ["port", "rail"])
def test_pod_one_leaves_match_the_single_fabric_what_if(name, port, rail):
    """Leaves of pod 1 lost on every plane: the GPUs cut off and the servers degraded are those the single-fabric
    what-if (core.analysis.failure) gives pod 1 planned alone, which reads planes its own way."""
    m = port if name == "port" else rail
    own = m.plans[0]
    ids = [e for e in pod_elements(m) if e.startswith("pod1.")]
    for picked in (ids[:1], ids[::3], ids[: len(ids) // 2], ids):
        alone = what_if(own, [e.removeprefix("pod1.") for e in picked])
        loss = pods_what_if(m, picked)[0]
        assert loss.gpus_cut_off == alone.gpus_disconnected, picked


def test_elements_and_unknown_ids(port, rail):
    assert len(pod_elements(port)) == 2 * 8 + 2 * (8 + 8)  # shared spines and leaves of both planes
    assert len(whole_choices(port)) == len(pod_elements(port)) + 2 * (8 + 8) * 8
    assert pod_elements(rail)[:5] == ["p0.i0.spine0", "p0.i0.spine1", "p0.i0.spine2", "p0.i0.spine3",
                                      "p0.i1.spine0"]
    for bad in ("spine0", "p2.spine0", "pod1.p1.leaf0-p0.spine0", "pod1.p2.leaf0", "pod1.p1.leaf8"):
        assert not is_whole_element(port, bad), bad
        with pytest.raises(InputError, match="p2-spine001"):  # plane 2 as the exports name it
            pods_what_if(port, [bad])
    # pod 1's shared spine of plane 1 is the same id alone and on the whole fabric; another pod's leaf whole only
    assert split_failures(port, ["p1.spine2", "pod1.p1.leaf3", "pod2.p1.leaf3"]) == (
        ["p1.spine2", "p1.leaf3"], ["pod2.p1.leaf3"])


def _graph_numbers(design, m, failed: list[str]) -> list[tuple[float, int]]:
    """Per pod: the max-flow from its servers into the live shared spines over the graph's upward arcs (every
    plane), and its GPUs outside the connected part holding the most GPUs (networkx)."""
    graph = _whole(design)
    switches = {e for e in failed if "-" not in e}
    lost: dict = {}
    for e in failed:
        if "-" in e:
            bundle, _mark, cable = e.partition("#")
            lower, _dash, upper = bundle.rpartition("-")
            lost[lower, upper] = lost.get((lower, upper), 0) + (1 if cable else graph.edges[lower, upper]["links"])
    up = upward(graph, switches, lost, {"server": 0, "leaf": 1, "spine": 2})
    return into_top(up, m.plans, "spine")


SCENARIOS = {
    "port": [["p1.spine0"], [f"p1.spine{j}" for j in range(8)], ["p0.spine1", "pod2.p1.leaf2", "pod1.p0.leaf3"],
             [f"p{q}.spine{j}" for q in range(2) for j in range(8)],
             ["pod1.p1.leaf0-p1.spine3", "pod2.p0.leaf1-p0.spine0#2", "p0.spine5"],
             [f"pod2.p{q}.leaf{k}" for q in range(2) for k in range(8)]],
    "rail": [["p0.i1.spine0"], ["p0.i0.spine1", "pod2.p0.i1.leaf0"], [f"p0.i1.spine{j}" for j in range(4)],
             ["pod1.p0.i0.leaf1-p0.i0.spine2", "pod2.p0.i1.leaf3-p0.i1.spine0#5"],
             [f"pod1.p0.i{q}.leaf{k}" for q in range(2) for k in range(4)]],
}


@pytest.mark.parametrize("name,index", [(n, i) for n, items in SCENARIOS.items() for i in range(len(items))])
def test_what_if_is_the_graphs_max_flow_and_components(name, index, port, rail):
    """Into the shared spines is the max-flow from the pod's servers into the live spines of every plane, and the
    GPUs cut off those outside the graph's part holding the most GPUs."""
    design, m = (PORT, port) if name == "port" else (RAIL, rail)
    failed = SCENARIOS[name][index]
    losses = pods_what_if(m, failed)
    assert [(pytest.approx(x.spine_gbps), x.gpus_cut_off) for x in losses] == _graph_numbers(design, m, failed)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resilience_page_fails_a_shared_spine_of_plane_one(lang):
    """The Resilience page of pods on two planes: a link naming plane 1's shared spine fails it on the whole fabric
    (each pod's bandwidth up less 1 / (2 x spines)); the link keeps the name; availability draws every plane."""
    from tests import pagetest

    link = {"n": "64", "f": "ethernet", "nm": "CX8", "ps": "400", "pods": "B200:32:400", "pl": "2", "lang": lang,
            "rs_tab": "Failure what-if", "rs_fail": "p1.spine0"}  # PORT
    at = pagetest.open_page("../pages/6_Resilience.py", link)
    assert not at.exception and not at.error
    assert at.multiselect(key="rs_w_pods_failed").value == ["p1.spine0"]
    # into the shared spines, failed / healthy [TB/s]: 409,600 - 25,600 of 409,600 Gb/s; 204,800 - 12,800
    lost = at.dataframe[0].value
    assert [str(lost.iloc[3, 1]), str(lost.iloc[3, 2])] == ["48 / 51.2", "24 / 25.6"]
    assert "p2-spine001" in str(at.query_params.get("rs_fail"))  # the exports' name (left48)
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Availability", "rs_fail": ""})
    assert not at.exception and not at.error
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Overload & imbalance", "rs_fail": "",
                                                         "rs_pat": "uniform"})
    assert not at.exception and not at.error
    assert len(at.dataframe[1].value) == 8  # 2 pods x (node-leaf, leaf-spine) x (up, down)


def test_cli_fails_plane_one(capsys):
    """``python -m core failure`` on PORT: every shared spine of plane 1 halves each pod's bandwidth up, no GPU cut
    off."""
    import json

    from tests.conftest import run_cli

    fails = [x for j in range(8) for x in ("--fail", f"p1.spine{j}")]
    code, out, _err = run_cli(capsys, "--lang", "en", "failure", "--gpu", "H100", "--nodes", "64", "--fabric",
                              "ethernet", "--nic", "CX8", "--port-speed", "400", "--pods", "B200:32:400",
                              "--planes", "2", *fails, "--format", "json")
    data = json.loads(out)
    assert code == 0, out
    assert [(p["spine_gbps"], p["healthy_spine_gbps"], p["gpus_cut_off"]) for p in data["pods"]] == [
        (204_800, 409_600, 0), (102_400, 204_800, 0)]


def test_availability_draws_every_planes_switches(port):
    """Every plane's shared spines and leaves are drawn (2 x 8 + 2 x (8 + 8) = 48 switches). With switches down half
    the time (q = r / (1 + r) = 1/2: AFR x MTTR = 8,760 hours) and servers never, a pod's one leaf group of servers
    is cut off when all its 16 leaves of both planes are down: pod 1 (512 GPUs) and pod 2 (256) expect
    768 x 2^-16 cut off that way (0.0117), plus pod 2 cut off when every shared spine of both planes is down (2^-16
    too) or the pods fall apart; on one plane (8 leaves) 768 x 2^-8 = 3 at least."""
    from core.analysis.availability import ClassRate, default_rates
    from core.analysis.podavail import pods_availability
    from tests.test_pods_planes import ONE

    rates = {**default_rates(), "switch": ClassRate(afr=1.0, mttr_hours=8760.0),
             "gpu_node": ClassRate(afr=0.0, mttr_hours=1.0)}
    two = pods_availability(port, trials=2000, seed=1, rates=rates)
    assert two.elements == {"gpu_node": 96, "switch": 48}
    one = pods_availability(mixed_plan(ONE), trials=2000, seed=1, rates=rates)
    assert one.elements == {"gpu_node": 96, "switch": 24}
    cut_two = sum(p.expected_gpus_cut_off for p in two.pods)
    cut_one = sum(p.expected_gpus_cut_off for p in one.pods)
    assert cut_two < 1 < 3 <= cut_one, (cut_two, cut_one)


# --- link load: one plane computed as core.analysis.load does (per-port planes), every island (per-rail) -----------
def test_per_port_link_load_is_one_planes_with_every_planes_bandwidth():
    """core.analysis.load's rule for planes: each GPU's line rate splits evenly over the planes, one plane is
    computed (the others cabled alike carry the same) and a GPU's bandwidth sums its planes. PORT's plane is ONE's
    fabric at ONE's per-GPU rate (8 x 400 / 8 per plane), so every link's load is ONE's and every GPU gets twice."""
    from core.analysis.loadpods import pods_link_load
    from tests.test_pods_planes import ONE

    for pattern in ("uniform", "ring", "alltoall"):
        one, two = (pods_link_load(mixed_plan(d), pattern, "rail", seed=2) for d in (ONE, PORT))
        assert [(t.pod, t.tier, t.direction, t.links, t.ar_max, t.ecmp_max) for t in two.tiers] == [
            (t.pod, t.tier, t.direction, t.links, t.ar_max, t.ecmp_max) for t in one.tiers]
        assert (two.nic_gbps_per_gpu, two.ar.mean, two.ecmp.min) == (
            2 * one.nic_gbps_per_gpu, pytest.approx(2 * one.ar.mean), pytest.approx(2 * one.ecmp.min))
        assert [p["nic_gbps_per_gpu"] for p in two.pods] == [800, 800]


def _ports(m, wiring) -> list[tuple[str, str]]:
    """Global NIC port -> (its id, the leaf it is cabled to in the plane computed: every island of per-rail planes,
    plane 0 of per-port planes), from each pod's own cables."""
    out = []
    for i, own in enumerate(wiring.wirings):
        leaf_of = {(link.a, link.a_port): link.b for island in range(own.islands)
                   for link in own.links(0, island) if link.kind == "node-leaf"}
        for n in range(own.nodes):
            for nic in range(m.plans[i].resolved.nics_per_node):
                out.append((wiring.local_id(i, f"node{n}.nic{nic}"), wiring.local_id(i, leaf_of[(f"node{n}", nic)])))
    return out


@pytest.mark.parametrize("design", [PORT, RAIL], ids=["per-port", "per-rail"])
@pytest.mark.parametrize("pattern,placement", [("uniform", "node"), ("ring", "rail"), ("alltoall", "random")])
def test_link_load_is_the_even_split_over_the_graphs_shortest_paths(design, pattern, placement):
    """Adaptive loads against an explicit routing on the whole fabric's graph (every plane, networkx): each
    connection from its NIC's leaf to the receiver's leaf, split evenly over the graph's shortest paths (one shared
    spine, in the plane of both leaves: a flow never changes plane); as tests/test_load_pods.py checks one plane."""
    _even_split_cross_check(design, pattern, placement)


def _even_split_cross_check(design, pattern, placement):
    """The model's adaptive load on every link (summed over a bundle's parallel links) equals each connection's
    demand split evenly over the whole fabric graph's shortest paths from its NIC's leaf to the receiver's leaf
    (three tiers: leaf, own spine, core, own spine, leaf between pods), both leaves in one plane."""
    from collections import defaultdict

    from core.analysis.loadpods import pods_link_load_arrays
    from core.analysis.pods import mixed_wiring
    from core.fabric.podgraph import pods_fabric_graph

    m = mixed_plan(design)
    wiring = mixed_wiring(m, three_tiers=True, planes=True)
    graph = pods_fabric_graph(wiring, (1,) * 2, (1.0,) * 2, "none")
    _result, arrays = pods_link_load_arrays(m, pattern, placement, seed=3)
    ports = _ports(m, wiring)
    brute, by_leaves = defaultdict(float), defaultdict(float)
    for ps, pd, dem in zip(*(a.tolist() for a in arrays["pairs"])):
        (nic_s, a), (nic_d, b) = ports[ps], ports[pd]
        assert wiring.plane_of_device(a) == wiring.plane_of_device(b)  # per-rail: the receiver's plane (PXN)
        brute[(nic_s, a)] += dem
        brute[(b, nic_d)] += dem
        if a != b:
            by_leaves[(a, b)] += dem
    for (a, b), dem in by_leaves.items():
        paths = list(nx.all_shortest_paths(graph, a, b))
        between = wiring.parse(a)[0] != wiring.parse(b)[0]
        assert all(len(path) == (5 if between and m.fabric.tiers == 3 else 3) for path in paths)
        assert all(wiring.plane_of_device(x) == wiring.plane_of_device(a) for path in paths for x in path)
        for path in paths:
            for x, y in zip(path, path[1:]):
                brute[(x, y)] += dem / len(paths)
    model = defaultdict(float)
    for (tier, direction), values in ((k, v) for k, v in arrays.items() if isinstance(k, tuple)):
        for i, load in enumerate(values[0].tolist()):
            if load:
                x, y = (s.strip().split("#")[0] for s in arrays["names"](tier, direction, i).split("->"))
                model[(x, y)] += load
    keys = {k for k, v in brute.items() if v > 1e-6} | {k for k, v in model.items() if v > 1e-6}
    assert any("spine" in a or "spine" in b for a, b in keys)
    assert m.fabric.tiers == 2 or any(".core" in a or ".core" in b for a, b in keys), "nothing crossed the cores"
    for key in keys:
        assert model.get(key, 0.0) == pytest.approx(brute.get(key, 0.0), rel=1e-6, abs=1e-6), key


def test_hot_links_of_planes_get_the_exports_names():
    """A hot link of plane 1 under the exports' names (core.formats.podexports.PodNames: plane 2, 1-based)."""
    from core.formats.linknames import link_names
    from core.plan import plan

    assert link_names(plan(PORT), ["pod2.p1.leaf1 -> p1.spine0#1", "pod1.node3.nic2 -> pod1.p0.leaf2"]) == [
        "pod2-p2-leaf002 -> p2-spine001 #2", "pod1-gpu004 nic3 -> pod1-p1-leaf003"]
    assert link_names(plan(RAIL), ["pod2.p0.i1.leaf1 -> p0.i1.spine0#1"]) == ["pod2-r2-leaf002 -> r2-spine001 #2"]


# --- as-built check -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("design", [PORT, RAIL], ids=["per-port", "per-rail"])
def test_verify_accepts_every_plane_and_names_a_cable_into_the_wrong_plane(design):
    """Every plane's planned cables are matched; plane 1's first leaf-spine cable moved onto a shared spine of plane
    0 is ``wrong-plane``, and the cable after it lost is one cable of its plane-1 bundle (pod 1's uplink speed
    into the shared spines lost)."""
    from core.analysis.pods import mixed_links
    from core.formats.asbuilt import FoundEnd, FoundLink
    from core.formats.podverify import verify_pods

    m = mixed_plan(design)
    links = list(mixed_links(m))
    found = [FoundLink(FoundEnd(a, pa), FoundEnd(b, pb), float(s), "", i + 1)
             for i, (_k, a, pa, b, pb, s) in enumerate(links)]
    clean = verify_pods(m, found)
    assert clean["coverage"]["matched_links"] == clean["coverage"]["planned_links"] == len(links)
    assert not clean["missing"] and not clean["miswired"] and not clean["extra"]
    plane0 = "p0.spine0" if design is PORT else "p0.i0.spine0"
    first = next(i for i, link in enumerate(links) if link[0] == "leaf-spine" and link[3] != plane0
                 and link[3].endswith("spine0") and link[1].startswith("pod1."))
    _kind, a, pa, b, _pb, speed = links[first]
    wrong = list(found)
    wrong[first] = FoundLink(FoundEnd(a, pa), FoundEnd(plane0, "1/64/2"), float(speed), "", 0)
    out = verify_pods(m, [x for i, x in enumerate(wrong) if i != first + 1])
    assert sorted(f["kind"] for f in out["missing"] + out["miswired"]) == ["missing", "wrong-plane"]
    lost = links[first + 1]
    assert [f["failure_spec"] for f in out["missing"]] == [f"{lost[1]}-{lost[3]}#1"]
    assert out["missing"][0]["planned"]["plane"] == 1
    # the moved cable and the lost one: two of the bundle's 400G cables
    assert out["impact"]["spine_gbps_lost"] == 2 * speed


# --- SimAI ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tiers", [2, 3])
def test_simai_of_per_port_planes_is_the_whole_fabric_graph(tiers):
    """PORT's SimAI file as SimAI reads it, GPUs contracted into their servers: the whole fabric's graph of both
    planes with each edge's capacity (each GPU a line to its leaf in each plane, core.formats.simai's rule);
    768 GPUs, 96 NVSwitch vertices, 2 x (16 + 8) = 48 switches, 768 x 3 + 2 x 16 x 8 = 2,560 lines. On three
    tiers (PORT3): 2 x (16 leaves + 12 own spines + 8 cores) = 72 switches, 768 x 3 + 2 x ((8 x 8 + 8 x 4)
    leaf-spine + 12 x 2 spine-core pairs) = 2,544 lines."""
    design = PORT if tiers == 2 else PORT3
    from core.analysis.pods import mixed_wiring
    from core.formats.exports import export_text
    from core.formats.podsims import simai_switch_ids
    from core.plan import plan
    from tests.test_export_sim import gbps, read_simai
    from tests.test_pods_sims import assert_simai_is

    m = mixed_plan(design)
    wiring = mixed_wiring(m, three_tiers=True, planes=True)
    f = read_simai(export_text(plan(design), "simai"))
    switches, lines = (48, 2_560) if tiers == 2 else (72, 2_544)
    assert (f["node_num"], len(f["nvswitches"]), len(f["switches"]), len(f["links"])) == (
        768 + 96 + switches, 96, switches, lines)
    vertex, first = {}, 0
    for i, p in enumerate(m.plans):
        gpn = p.resolved.gpus_per_node
        vertex.update((first + gpu, wiring.node_id(i, gpu // gpn)) for gpu in range(p.resolved.gpus))
        first += p.resolved.gpus
    vertex.update({v: k for k, v in simai_switch_ids(m).items()})
    got = nx.Graph()
    for src, dst, rate, _delay, _error in f["links"]:
        if f["node_type"][dst] != 2:  # not an NVLink line
            a, b = vertex[src], vertex[dst]
            old = got[a][b]["capacity_gbps"] if got.has_edge(a, b) else 0.0
            got.add_edge(a, b, capacity_gbps=old + gbps(rate))
    assert_simai_is(got, _whole(design), design)


def test_simai_writes_per_rail_planes_by_hand_count():
    """RAIL in SimAI's file: 768 GPUs, 96 NVSwitch vertices (one per 8-GPU server), 32 switches (per plane 8 + 4
    rail leaves of 4 rails each and 4 shared spines); lines: 768 NVLink, 768 NIC (each NIC in its one plane) and 96
    leaf-spine (12 leaves x 4 spines a plane). tests/test_pods_planes.py checks it edge by edge."""
    from core.formats.exports import export_text
    from core.plan import plan
    from tests.test_export_sim import read_simai

    f = read_simai(export_text(plan(RAIL), "simai"))
    assert (f["node_num"], len(f["nvswitches"]), len(f["switches"]), len(f["links"])) == (
        768 + 96 + 32, 96, 32, 768 + 768 + 2 * 12 * 4)


def test_the_review_packs_scenario_fails_a_shared_spine_of_plane_one():
    """The review pack's failure scenario of PORT reads plane 1's shared spine and pod 2's plane-1 leaf on the
    whole fabric (its table: pod 1 48 of 51.2 TB/s into the shared spines, as the page)."""
    from core.formats import report
    from core.plan import plan
    from tests.test_pods_pack_scenario import LINK, _section, _tables

    section = _section(report.design_report_html(plan(PORT), name="", share_link=LINK,
                                                 resilience={"fail": ("p1.spine0", "pod2.p1.leaf1")}),
                       "failure-scenario")
    rows = _tables(section)[0]
    assert rows[-1][1] == "48 / 51.2", rows
    assert "p2-spine001, pod2-p2-leaf002" in section  # as the page's chips and the pods' exports name them (plane 2)


def test_three_tiers_on_per_port_planes_link_load_is_one_planes():
    """Per-port planes on three tiers: one plane computed, every link's load ONE's on three tiers, every GPU twice its
    bandwidth; core links named by plane 0's cores."""
    from core.analysis.loadpods import pods_link_load
    from tests.test_pods_planes import ONE

    one, two = (pods_link_load(mixed_plan(d.model_copy(update={"tiers": 3})), "uniform", "rail", seed=2)
                for d in (ONE, PORT))
    assert [(t.pod, t.tier, t.direction, t.links, t.ar_max, t.ecmp_max) for t in two.tiers] == [
        (t.pod, t.tier, t.direction, t.links, t.ar_max, t.ecmp_max) for t in one.tiers]
    assert {t.tier for t in two.tiers} == {"node_leaf", "leaf_spine", "spine_core"}
    assert two.ar.mean == pytest.approx(2 * one.ar.mean)
    assert all(h["link"].count("p0.") >= 1 for h in two.hot_links if "core" in h["link"]), two.hot_links


# --- three tiers on planes ------------------------------------------------------------------------------------------
PORT3 = PORT.model_copy(update={"tiers": 3})
"""PORT on three tiers, per plane: pod 1 8 leaves under its 8 own spines, pod 2 8 leaves under 4, each spine 64 core
uplinks at 400G, 32 to each of the 2 cores of its group (G = 4 groups of 2 cores: spine k in group k mod 4)."""
RAIL3 = RAIL.model_copy(update={"tiers": 3})
"""RAIL on three tiers, per plane (island): pod 1 8 leaves under its 8 own spines (32 core uplinks at 400G each), pod 2
4 leaves under its 2 (64 at 800G), 4 cores in 2 groups of 2; every plane's own spines and cores its own."""


def test_three_tiers_on_per_rail_planes_link_load_by_hand():
    """RAIL3's ring all-reduce, rail-aligned: 8 rings (one per local GPU, NIC ``l`` in plane ``l mod 2``) over the 64
    H100 then the 32 B200 servers, each crossing the pods twice (node 63 -> node 64, node 95 -> node 0), each GPU
    sending its line rate (H100 8 x 400 / 8 = 400, B200 8 x 800 / 8 = 800 Gb/s). Per plane 4 rings: pod 1 sends 4 x
    400 = 1,600 Gb/s to pod 2 and gets 4 x 800 = 3,200 back. Adaptive routing spreads them over every own spine's
    core uplinks of the plane: pod 1 up 1,600 / (8 x 32) = 6.25 Gb/s a link (0.015625 of 400), down 3,200 / 256 =
    12.5 (0.03125); pod 2 up 3,200 / (2 x 64) = 25 (0.03125 of 800), down 1,600 / 128 = 12.5 (0.015625). Links:
    2 planes x 8 x 32 = 512 and 2 x 2 x 64 = 256; the node-leaf and leaf-spine rows are the two-tier RAIL's (the
    same flows leave on the same NICs, a leaf's upward traffic spread over its uplinks alike)."""
    from collections import defaultdict

    from core.analysis.loadpods import pods_link_load, pods_link_load_arrays

    m = mixed_plan(RAIL3)
    result, arrays = pods_link_load_arrays(m, "ring", "rail", seed=2)
    rows = {(t.pod, t.tier, t.direction): t for t in result.tiers}
    expected = {(1, "up"): (512, 6.25 / 400), (1, "down"): (512, 12.5 / 400), (2, "up"): (256, 25 / 800),
                (2, "down"): (256, 12.5 / 800)}
    for (pod, direction), (links, util) in expected.items():
        row = rows[(pod, "spine_core", direction)]
        assert (row.links, row.ar_max) == (links, pytest.approx(util)), row
    sums = defaultdict(float)  # Gb/s per (plane, direction, pod of the own spine)
    for direction in ("up", "down"):
        for i, load in enumerate(arrays[("spine_core", direction)][0].tolist()):
            name = arrays["names"]("spine_core", direction, i)
            spine, core = (name.split(" -> ") if direction == "up" else name.split(" -> ")[::-1])
            assert spine.split(".")[1:3] == core.split(".")[:2], name  # the spine's plane's core: pod1.p0.i1 / p0.i1
            sums[(core.split(".")[1], direction, spine.split(".")[0])] += load
    assert dict(sums) == pytest.approx({(q, d, pod): v for q in ("i0", "i1") for d, pod, v in (
        ("up", "pod1", 1_600), ("down", "pod1", 3_200), ("up", "pod2", 3_200), ("down", "pod2", 1_600))})
    two = pods_link_load(mixed_plan(RAIL), "ring", "rail", seed=2)
    assert [(t.pod, t.tier, t.direction, t.links, t.ar_max) for t in two.tiers] == [
        (t.pod, t.tier, t.direction, t.links, t.ar_max) for t in result.tiers if t.tier != "spine_core"]


@pytest.mark.parametrize("pattern,placement", [("uniform", "node"), ("ring", "rail"), ("alltoall", "random")])
def test_three_tiers_on_per_rail_planes_link_load_is_the_even_split_over_the_graphs_shortest_paths(pattern,
                                                                                                    placement):
    """RAIL3 (every plane computed together): adaptive loads on every link, the core tier too, equal the even split
    over the whole fabric graph's shortest paths, no flow changing plane."""
    _even_split_cross_check(RAIL3, pattern, placement)


def test_three_tiers_on_planes_what_if_by_hand():
    m = mixed_plan(PORT3)
    assert [(p.own_spines, p.spine_uplinks, p.links_per_spine_core_pair) for p in m.fabric.pods] == [
        (8, 64, 32), (4, 64, 32)] and (m.fabric.cores, m.fabric.core_groups) == (8, 4)
    # into the cores, both planes: pod 1 2 x 8 x 64 x 400 = 409,600; pod 2 2 x 4 x 64 x 400 = 204,800
    assert [(x.spine_gbps, x.healthy_spine_gbps) for x in pods_what_if(m, [])] == [
        (409_600, 409_600), (204_800, 204_800)]
    # p1.core7 (group 3): pod 1's spines 3 and 7 lose 32 cables each (2 x 32 x 400 = 25,600 = 1/16), pod 2's
    # spine 3 loses 32 (12,800 = 1/16)
    assert _up(pods_what_if(m, ["p1.core7"])) == [(409_600 - 25_600, 0, 0), (204_800 - 12_800, 0, 0)]
    # every core of plane 1: half, nothing cut off; every core of both planes: pod 2 (256 GPUs) apart
    assert _up(pods_what_if(m, [f"p1.core{k}" for k in range(8)])) == [(204_800, 0, 0), (102_400, 0, 0)]
    every = [f"p{q}.core{k}" for q in range(2) for k in range(8)]
    assert _up(pods_what_if(m, every)) == [(0, 0, 0), (0, 256, 0)]
    # a spine-core bundle of plane 1 (32 x 400 = 12,800) and one cable of it
    assert pods_what_if(m, ["pod2.p1.spine0-p1.core1"])[1].spine_gbps == 204_800 - 12_800
    assert pods_what_if(m, ["pod2.p1.spine0-p1.core1#31"])[1].spine_gbps == 204_800 - 400
    for bad in ("core0", "pod2.p1.spine0-p0.core1", "p2.core0", "pod2.p1.spine4"):
        assert not is_whole_element(m, bad), bad
        with pytest.raises(InputError, match="p2-core001"):  # plane 2 as the exports name it
            pods_what_if(m, [bad])


def _graph_numbers_three(design, m, failed: list[str]) -> list[tuple[float, int]]:
    """Per pod: the max-flow from its servers into the live cores of every plane over the graph's upward arcs, and
    its GPUs outside the connected part holding the most GPUs (networkx)."""
    from core.analysis.pods import mixed_wiring

    wiring = mixed_wiring(m, three_tiers=True, planes=True)
    graph = _whole(design)
    switches = {e for e in failed if "-" not in e}
    lost: dict = {}
    for e in failed:
        if "-" in e:
            bundle, _mark, cable = e.partition("#")
            lower, _dash, upper = bundle.rpartition("-")
            if "core" not in upper:  # a leaf's bundle names its plane's spine ``p1.spine0``: the pod's own
                upper = wiring.own_spine_id(wiring.parse(lower)[0], int(upper.rpartition("spine")[2]),
                                            wiring.plane_of_device(lower))
            lost[lower, upper] = lost.get((lower, upper), 0) + (1 if cable else graph.edges[lower, upper]["links"])
    up = upward(graph, switches, lost, {"server": 0, "leaf": 1, "spine": 2, "core": 3})
    return into_top(up, m.plans, "core")


SCENARIOS_THREE = {
    "port": [["p1.core0", "p1.core3"], ["pod1.p1.spine0", "pod2.p0.spine0-p0.core1"],
             ["pod1.p1.leaf0-p1.spine0", "p1.core1"], [f"pod2.p1.spine{k}" for k in range(4)],
             ["pod1.p1.leaf3-p1.spine2#0", "pod1.p1.leaf3-p1.spine5#1", "pod1.p1.spine2-p1.core4"],
             [f"p{q}.core{k}" for q in range(2) for k in range(0, 8, 2)]],
    "rail": [["p0.i1.core0"], ["pod1.p0.i1.spine1", "pod2.p0.i0.spine0-p0.i0.core1"],
             [f"pod2.p0.i{q}.spine{k}" for q in range(2) for k in range(2)]],
}


@pytest.mark.parametrize("name,index", [(n, i) for n, items in SCENARIOS_THREE.items() for i in range(len(items))])
def test_three_tiers_on_planes_what_if_is_the_graphs_max_flow_and_components(name, index):
    design = PORT3 if name == "port" else RAIL3
    m = mixed_plan(design)
    failed = SCENARIOS_THREE[name][index]
    losses = pods_what_if(m, failed)
    assert [(pytest.approx(x.spine_gbps), x.gpus_cut_off) for x in losses] == _graph_numbers_three(design, m, failed)


def test_resilience_page_of_three_tiers_on_planes():
    """PORT3 on the page: p1.core7 costs each pod 1/16 into the shared cores (pod 1 48 of 51.2 TB/s); the link load
    shows the spine-core rows."""
    from tests import pagetest

    link = {"n": "64", "f": "ethernet", "nm": "CX8", "ps": "400", "pods": "B200:32:400", "pl": "2", "ti": "3",
            "lang": "en", "rs_tab": "Failure what-if", "rs_fail": "p1.core7"}
    at = pagetest.open_page("../pages/6_Resilience.py", link)
    assert not at.exception and not at.error
    lost = at.dataframe[0].value
    assert [str(lost.iloc[3, 1]), str(lost.iloc[3, 2])] == ["48 / 51.2", "24 / 25.6"]
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Overload & imbalance", "rs_fail": "",
                                                         "rs_pat": "uniform"})
    assert not at.exception and not at.error
    assert len(at.dataframe[1].value) == 12  # 2 pods x (node-leaf, leaf-spine, spine-core) x (up, down)
    rail = {"n": "64", "pods": "B200:32:800", "pl": "2", "pm": "rail", "ti": "3", "lang": "en",
            "rs_tab": "Overload & imbalance", "rs_pat": "ring"}  # RAIL3: every plane computed, no refusal
    at = pagetest.open_page("../pages/6_Resilience.py", rail)
    assert not at.exception and not at.error
    assert len(at.dataframe[1].value) == 12


@pytest.mark.parametrize("design", [PORT3, RAIL3], ids=["per-port", "per-rail"])
def test_verify_of_three_tiers_on_planes(design):
    """Every plane's cables matched; plane 1's first spine-core cable moved onto a core of plane 0 is
    ``wrong-plane``, the cable after it lost is one cable of its plane-1 bundle, priced into the cores."""
    from core.analysis.pods import mixed_links
    from core.formats.asbuilt import FoundEnd, FoundLink
    from core.formats.podverify import verify_pods

    m = mixed_plan(design)
    links = list(mixed_links(m))
    found = [FoundLink(FoundEnd(a, pa), FoundEnd(b, pb), float(s), "", i + 1)
             for i, (_k, a, pa, b, pb, s) in enumerate(links)]
    clean = verify_pods(m, found)
    assert clean["coverage"]["matched_links"] == clean["coverage"]["planned_links"] == len(links)
    assert not clean["missing"] and not clean["miswired"] and not clean["extra"]
    core0 = "p0.core0" if design is PORT3 else "p0.i0.core0"
    first = next(i for i, link in enumerate(links) if link[0] == "spine-core" and not link[3].startswith(core0[:-5])
                 and link[1].startswith("pod1."))
    _kind, a, pa, b, _pb, speed = links[first]
    wrong = list(found)
    wrong[first] = FoundLink(FoundEnd(a, pa), FoundEnd(core0, "1/64/2"), float(speed), "", 0)
    out = verify_pods(m, [x for i, x in enumerate(wrong) if i != first + 1])
    assert sorted(f["kind"] for f in out["missing"] + out["miswired"]) == ["missing", "wrong-plane"]
    lost = links[first + 1]
    assert [f["failure_spec"] for f in out["missing"]] == [f"{lost[1]}-{lost[3]}#1"]
    assert out["missing"][0]["planned"]["plane"] == 1
    assert out["impact"]["spine_gbps_lost"] == 2 * speed
    busiest = out["impact"]["busiest_link"]  # the lost spine-core cable's
    assert busiest["tier"] == "spine_core"
