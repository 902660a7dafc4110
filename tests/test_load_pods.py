"""Overload and imbalance over every pod of a design with pods (core.analysis.loadpods) against explicit routing.

Brute force: every connection of the model's pattern is routed on the whole fabric's graph
(``core.fabric.podgraph.pods_fabric_graph``): from its NIC (each pod's own ``Wiring.links``: which leaf a NIC is
cabled to) to its leaf, over every shortest path between the two leaves through the shared spines, its demand
split evenly over the paths (adaptive routing), into the destination NIC; pods on three tiers: through a pod's own
spines and, between pods, a shared core (every shortest path climbs to the cores and comes down). The per-edge sums must equal the
model's adaptive loads summed over a bundle's parallel links, at the edge's own speed; static ECMP must put every
flow on a graph edge and carry the same totals.
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx
import numpy as np
import pytest

from core.analysis.load import link_load, link_load_arrays
from core.analysis.loadpods import design_link_load, pods_link_load, pods_link_load_arrays
from core.analysis.pods import mixed_plan, mixed_wiring
from core.design import Design
from core.errors import DesignError, InputError
from core.fabric.podgraph import pods_fabric_graph
from core.fabric.wiring import Wiring
from core.plan import plan

SMALL = {
    "rail-optimized H100 + B200 at 800": Design(gpu="H100", nodes=64, pods="B200:32:800"),
    "top-of-rack H100 + B200": Design(gpu="H100", nodes=8, topology="top-of-rack", pods="B200:4:400"),
    "H100 + GB200 NVL72 (4 GPUs a server, NVLink over 18)": Design(gpu="H100", nodes=16, pods="GB200:36"),
    "H100 + B200 on three tiers (own spines, shared cores)": Design(gpu="H100", nodes=64, pods="B200:32:800", tiers=3),
    "top-of-rack H100 + B200 on three tiers": Design(gpu="H100", nodes=8, topology="top-of-rack", pods="B200:4:400",
                                                     tiers=3),
}
CASES = [("uniform", "node", None), ("uniform", "random", None), ("ring", "rail", None), ("ring", "random", None),
         ("alltoall", "node", "all"), ("alltoall", "rail", "all"), ("alltoall", "random", None), ("pp", "rail", None), ("tree", "node", None)]


@pytest.fixture(scope="module", params=list(SMALL))
def mixed(request):
    return mixed_plan(SMALL[request.param])


def _ports(mixed) -> list[tuple[str, str]]:
    """Global NIC port -> (its id ``pod2.node3.nic1``, the leaf it is cabled to), from each pod's own cables."""
    wiring = mixed_wiring(mixed, three_tiers=True)
    out = []
    for i, own in enumerate(wiring.wirings):
        leaf_of = {(link.a, link.a_port): link.b for link in own.links() if link.kind == "node-leaf"}
        for n in range(own.nodes):
            for nic in range(mixed.plans[i].resolved.nics_per_node):
                out.append((wiring.local_id(i, f"node{n}.nic{nic}"), wiring.local_id(i, leaf_of[(f"node{n}", nic)])))
    return out


def _brute(mixed, arrays) -> dict:
    """Directed edge -> demand [Gb/s], split evenly over the shortest leaf-to-leaf paths of the whole graph."""
    graph = pods_fabric_graph(mixed_wiring(mixed, three_tiers=True), (1,) * len(mixed.plans), (1.0,) * len(mixed.plans), "none")
    ports = _ports(mixed)
    loads, by_leaves = defaultdict(float), defaultdict(float)
    for ps, pd, dem in zip(*(a.tolist() for a in arrays["pairs"])):
        (nic_s, a), (nic_d, b) = ports[ps], ports[pd]
        loads[(nic_s, a)] += dem
        loads[(b, nic_d)] += dem
        if a != b:
            by_leaves[(a, b)] += dem
    for (a, b), dem in by_leaves.items():
        paths = list(nx.all_shortest_paths(graph, a, b))
        between = mixed_wiring(mixed, three_tiers=True).parse(a)[0] != mixed_wiring(mixed, three_tiers=True).parse(b)[0]
        # leaf, a shared spine, leaf; on three tiers between pods leaf, spine, core, spine, leaf
        assert all(len(path) == (5 if between and mixed.fabric.tiers == 3 else 3) for path in paths)
        for path in paths:
            for x, y in zip(path, path[1:]):
                loads[(x, y)] += dem / len(paths)
    return loads


def _model(arrays, key: int) -> tuple[dict, dict]:
    """Directed edge -> the model's load (``key`` 0 adaptive, 1 ECMP) summed over the bundle's parallel links, and
    edge -> the capacity of each of its links [Gb/s]."""
    out, speed = defaultdict(float), {}
    for (tier, direction), values in ((k, v) for k, v in arrays.items() if isinstance(k, tuple)):
        for i, load in enumerate(values[key].tolist()):
            a, b = (s.strip().split("#")[0] for s in arrays["names"](tier, direction, i).split("->"))
            speed[(a, b)] = float(values[3][i])
            if load:
                out[(a, b)] += load
    return out, speed


def _run(mixed, pattern, placement, group):
    gpus = sum(p.resolved.gpus for p in mixed.plans)
    options = {"group": gpus, "stride": 1} if group == "all" else {}
    try:
        return pods_link_load_arrays(mixed, pattern, placement, seed=3, **options)
    except InputError:
        pytest.skip("pattern does not fit this small design")


@pytest.mark.parametrize("pattern,placement,group", CASES)
def test_adaptive_loads_equal_even_split_over_the_whole_fabrics_shortest_paths(mixed, pattern, placement, group):
    result, arrays = _run(mixed, pattern, placement, group)
    assert result.flows, "no fabric traffic"
    brute = _brute(mixed, arrays)
    model, _speed = _model(arrays, 0)
    keys = {k for k, v in brute.items() if v > 1e-6} | {k for k, v in model.items() if v > 1e-6}
    shared = "core" if mixed.fabric.tiers == 3 else "spine"
    assert any(a.startswith(shared) or b.startswith(shared) for a, b in keys), "nothing crossed the shared layer"
    for key in keys:
        assert model.get(key, 0.0) == pytest.approx(brute.get(key, 0.0), rel=1e-6, abs=1e-6), key


def test_every_link_runs_at_its_pods_own_speed(mixed):
    _result, arrays = _run(mixed, "uniform", "node", None)
    graph = pods_fabric_graph(mixed_wiring(mixed, three_tiers=True), (1,) * len(mixed.plans), (1.0,) * len(mixed.plans), "each")
    _model_loads, speed = _model(arrays, 0)
    for (a, b), gbps in speed.items():
        a, b = (v.rsplit(".nic", 1)[0] for v in (a, b))  # a NIC's edge is its server's in the graph
        assert graph[a][b]["speed_gbps"] == gbps, (a, b)


@pytest.mark.parametrize("pattern,placement,group", [("uniform", "node", None), ("alltoall", "node", "all")])
def test_ecmp_flows_ride_graph_edges_and_conserve_each_pods_tier(mixed, pattern, placement, group):
    result, arrays = _run(mixed, pattern, placement, group)
    graph = pods_fabric_graph(mixed_wiring(mixed, three_tiers=True), (1,) * len(mixed.plans), (1.0,) * len(mixed.plans), "none")
    ecmp, _speed = _model(arrays, 1)
    for a, b in ecmp:
        if ".nic" not in a and ".nic" not in b:
            assert graph.has_edge(a, b), (a, b)
    for (tier, direction), (ar, e, flows, _cap) in ((k, v) for k, v in arrays.items() if isinstance(k, tuple)):
        assert e.sum() == pytest.approx(ar.sum(), rel=1e-9)
        assert (flows >= 0).all()
    for row in result.tiers:  # each pod's row is its own links
        assert row.link_gbps == float(next(p for p in mixed.fabric.pods if p.index + 1 == row.pod).port_speed_gbps
                                      if row.tier == "node_leaf" else
                                      next(p for p in mixed.fabric.pods if p.index + 1 == row.pod).uplink_speed_gbps)
    assert {row.pod for row in result.tiers} == {p.index + 1 for p in mixed.fabric.pods}


def test_one_pod_alone_is_the_single_fabrics_answer():
    """At stage 0 only pod 1 is present under a spine layer sized for it: the pods' model is link_load's."""
    alone = mixed_plan(Design(gpu="H100", nodes=64, pods="B200:32:800@1"), stage=0)
    for pattern, placement in (("ring", "rail"), ("uniform", "node"), ("alltoall", "random"), ("pp", "rail")):
        pods, a = pods_link_load_arrays(alone, pattern, placement, seed=3)
        one, b = link_load_arrays(alone.plans[0], pattern, placement, seed=3)
        assert (pods.ar, pods.ecmp, pods.flows) == (one.ar, one.ecmp, one.flows)
        for key in (k for k in b if isinstance(k, tuple)):
            assert np.allclose(a[key][0], b[key][0]) and np.allclose(a[key][1], b[key][1]), key


def test_a_ring_across_pods_is_bounded_by_the_slower_pods_nic():
    """Hand count: 8 rings over every GPU (GPU t of each of the 96 servers, pod 1's 64 H100 servers first) close
    from the last B200 server (800 Gb/s a GPU) to the first H100 server: each GPU receives its predecessor alone,
    at the sender's line rate, so the 8 NIC links into pod1.node0 are offered 800 Gb/s against 400 (200%), those 8
    B200 senders get 400, and every other link runs at most at its line rate."""
    mixed = mixed_plan(SMALL["rail-optimized H100 + B200 at 800"])
    result = pods_link_load(mixed, "ring", "rail")
    down = {row.pod: row for row in result.tiers if row.tier == "node_leaf" and row.direction == "down"}
    assert down[1].ar_max == pytest.approx(2.0) and down[1].ar_overloaded == 8
    assert down[2].ar_max == pytest.approx(1.0) and down[2].ar_overloaded == 0
    b200 = result.pods[1]
    assert (b200["system"], b200["nic_gbps_per_gpu"], b200["adaptive"]["min"]) == ("B200", 800.0, 400.0)
    assert result.pods[0]["adaptive"]["min"] == pytest.approx(400.0)
    assert sum(p["gpus_on_fabric"] for p in result.pods) == result.gpus_on_fabric == 64 * 8 + 32 * 8
    assert {h["link"].split(" -> ")[1] for h in result.hot_links if h["ecmp_util"] > 1} == {
        f"pod1.node0.nic{t}" for t in range(8)}
    assert sum(g["adaptive"]["min"] < g["nic_gbps_per_gpu"] for g in result.pods) == 1
    assert any("faster pod" in note for note in result.notes)
    same_speed = pods_link_load(mixed_plan(SMALL["top-of-rack H100 + B200"]), "ring", "rail")  # both 400 Gb/s a GPU
    assert not any("faster pod" in note for note in same_speed.notes)


def test_names_are_the_wirings_ids():
    mixed = mixed_plan(SMALL["rail-optimized H100 + B200 at 800"])
    wiring = mixed_wiring(mixed, three_tiers=True)
    result = pods_link_load(mixed, "uniform", "node", seed=1)
    spine_links = [h["link"] for h in result.hot_links if h["tier"] == "leaf_spine"]
    assert spine_links
    for link in spine_links:
        a, b = (s.split("#")[0] for s in link.split(" -> "))
        leaf, spine = (a, b) if a.startswith("pod") else (b, a)
        assert wiring.parse_link(f"{leaf}-{spine}") is not None, link


def test_every_pod_in_the_heatmap_and_the_json():
    mixed = mixed_plan(SMALL["rail-optimized H100 + B200 at 800"])
    result = pods_link_load(mixed, "alltoall", "random")
    for row in result.tiers:
        cells = [b for b in result.blocks if (b["pod"], b["tier"], b["direction"]) == (row.pod, row.tier,
                                                                                      row.direction)]
        assert cells and max(c["ecmp_max"] for c in cells) == pytest.approx(row.ecmp_max, abs=1e-4)
    out = result.to_json()
    assert [p["system"] for p in out["pods"]] == ["H100", "B200"]
    assert {(t["pod"], t["system"]) for t in out["tiers"]} == {(1, "H100"), (2, "B200")}


def test_the_design_entry_reads_the_pods_or_the_single_fabric():
    design = SMALL["top-of-rack H100 + B200"]
    p = plan(design)
    assert design_link_load(p, "uniform", "node") == pods_link_load(mixed_plan(design), "uniform", "node")
    alone = plan(Design(gpu="H100", nodes=8, topology="top-of-rack"))
    assert design_link_load(alone, "ring", "rail") == link_load(alone, "ring", "rail")
    with pytest.raises(DesignError):
        design_link_load(p, "ring", "rail", job_gpus=8 * 8 + 4 * 8 + 8)
    assert design_link_load(p, "ring", "rail", job_gpus=8 * 8 + 4 * 8).job_gpus == 96


def test_a_job_on_pod_1_alone_leaves_the_other_pods_idle():
    mixed = mixed_plan(SMALL["rail-optimized H100 + B200 at 800"])
    result = pods_link_load(mixed, "ring", "node", job_gpus=64 * 8)
    assert result.pods[1]["gpus_on_fabric"] == 0 and result.pods[1]["adaptive"] is None
    assert all(row.ar_max == 0 for row in result.tiers if row.pod == 2)


def test_a_group_of_every_gpu_is_spaced_one_gpu_apart():
    """Without a stride, a ring or all-to-all group of every GPU (the page's group size, which has no stride) runs
    over every GPU of every pod, as with stride 1."""
    mixed = mixed_plan(SMALL["top-of-rack H100 + B200"])
    gpus = 8 * 8 + 4 * 8
    for pattern, on_fabric in (("alltoall", gpus), ("ring", 8 + 4)):  # a ring leaves a server from its last GPU
        every = pods_link_load(mixed, pattern, "node", group=gpus)
        assert every == pods_link_load(mixed, pattern, "node", group=gpus, stride=1)
        assert every.group == gpus and every.gpus_on_fabric == on_fabric


def test_the_command_line_gives_the_pages_answer(capsys):
    """``python -m core load --pods``: the JSON is the whole fabric's result (the page's ``design_link_load`` with
    seed 0), the table a row per pod and tier and each pod's spread."""
    import json

    from core.cli import main

    args = ["load", "--gpu", "H100", "--nodes", "64", "--pods", "B200:32:800", "--pattern", "uniform",
            "--placement", "random"]
    assert main([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    page = design_link_load(plan(SMALL["rail-optimized H100 + B200 at 800"]), "uniform", "random", seed=0)
    assert data == json.loads(json.dumps(page.to_json()))
    assert [p["system"] for p in data["pods"]] == ["H100", "B200"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text.count("pod 2 (B200) ") == 4 + 2 and "spine" in text  # 4 tier rows, 2 spreads; a spine link hot


def test_the_training_job_is_sized_on_every_pods_gpus(capsys):
    """The ``job`` pattern's training job runs over every pod's GPUs (not pod 1's alone): the command's default job
    takes all 768 GPUs of the H100 and B200 pods (at tp 8 pp 1 here), both pods' GPUs use the fabric, and the note says how it was
    sized (pod 1's system at every pod's GPUs); its global batch is train's, a multiple of micro-batch x dp."""
    import json

    from core.analysis.loadpods import design_job_plan
    from tests.conftest import run_cli

    design = SMALL["rail-optimized H100 + B200 at 800"]
    sizing = design_job_plan(plan(design))
    assert sizing.resolved.gpus == 768 and sizing.resolved.system.id == plan(design).resolved.system.id
    code, out, _err = run_cli(capsys, "--lang", "en", "load", "--gpu", "H100", "--nodes", "64", "--pods",
                              "B200:32:800", "--pattern", "job", "--tp", "8", "--pp", "1", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["job_gpus"] == 768
    assert [p["gpus_on_fabric"] > 0 for p in data["pods"]] == [True, True]
    assert any("768 GPUs of every pod's 768" in note for note in data["notes"])
    # the command's job takes train's global batch: 1,024 rounded up to 1,056, a multiple of dp = 96, so no note
    assert not any("is not a multiple of micro-batch x dp" in note for note in data["notes"])
    assert not any("sized on pod 1's system" in note for note in data["notes"])


def test_a_collective_in_pod_1s_nvlink_domain_still_crosses_a_smaller_pods_fabric():
    """GB200 NVL144 domains beside B200 servers: the job's data-parallel ring stays mostly inside pod 1's NVLink
    domains but crosses the B200 pod's leaves: pod 2's GPUs use the fabric (a ring's hop between servers: half of
    them with two replicas of tp 4 in a server)."""
    design = Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144, pods="B200:32:800")
    from core.analysis.loadpods import design_job_plan
    from core.perf.training import model_preset, parse_job

    job = parse_job(dict(model=model_preset("llama3-70b"), tp=4, pp=1, ep=1,
                         gpus=design_job_plan(plan(design)).resolved.gpus))
    result = design_link_load(plan(design), "job", "rail", job=job)
    assert result.job_gpus == 144 * 4 + 32 * 8
    assert result.pods[1]["gpus_on_fabric"] == 32 * 8 // 2 and 0 < result.pods[0]["gpus_on_fabric"] < 144 * 4 // 2
