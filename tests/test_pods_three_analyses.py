"""The analyses of pods on three tiers on the whole fabric (each pod's leaves and own spines under the shared
cores): the failure what-if (core.analysis.podcorewhatif), the uniform load over the cores (core.analysis.podload),
the availability (core.analysis.podavail) and the as-built check (core.formats.podverify), counted by hand and
against networkx on the whole fabric's graph (core.fabric.podgraph)."""

from __future__ import annotations

import networkx as nx
import pytest

from core.analysis.podavail import METHOD_THREE, method_note, pods_availability
from core.analysis.podcorewhatif import min_cut
from core.analysis.podload import pods_core_load
from core.analysis.pods import mixed_links, mixed_plan, mixed_wiring
from core.analysis.podwhatif import is_whole_element, loss_rows, pod_elements, pods_what_if, whole_choices
from core.design import Design
from core.errors import InputError
from core.fabric.podgraph import pods_fabric_graph
from core.formats.asbuilt import FoundEnd, FoundLink
from core.formats.podverify import verify_pods
from tests.podflow import into_top

MIXED = Design(gpu="H100", nodes=64, pods="B200:32:800", tiers=3)
SMALL = Design(gpu="H100", nodes=8, pods="B200:8:800", tiers=3)


@pytest.fixture(scope="module")
def mixed():
    return mixed_plan(MIXED)


@pytest.fixture(scope="module")
def small():
    return mixed_plan(SMALL)


def _up(loss) -> tuple[float, float]:
    return loss.spine_gbps, loss.healthy_spine_gbps


def test_what_if_counts_by_hand(mixed):
    """MIXED (tests/test_pods_three.py's counts): pod 1 has 16 leaves, 16 own spines of U = 32 core uplinks at 400G,
    16 to each of the 2 cores of its group; pod 2 has 8 leaves, 4 own spines of U = 64 at 800G, 32 to each core;
    G = 4 groups of C = 2 cores (group g: core 2g and 2g + 1; own spine k in group k mod 4)."""
    healthy = pods_what_if(mixed, [])
    # into the cores: pod 1 16 x 32 x 400 = 204,800 = its servers' 64 x 8 x 400; pod 2 4 x 64 x 800 = 204,800
    assert [_up(x) for x in healthy] == [(204_800, 204_800), (204_800, 204_800)]
    # core0 (group 0): pod 1's spines 0, 4, 8, 12 lose 16 cables each, 4 x 16 x 400 = 25,600; pod 2's spine 0 loses
    # 32 x 800 = 25,600
    assert [x.spine_gbps for x in pods_what_if(mixed, ["core0"])] == [204_800 - 25_600, 204_800 - 25_600]
    # every core lost: the pods are apart, pod 1's 512 GPUs the larger part, pod 2's 32 x 8 = 256 GPUs cut off
    apart = pods_what_if(mixed, [f"core{k}" for k in range(8)])
    assert [(x.gpus_cut_off, x.spine_gbps) for x in apart] == [(0, 0), (256, 0)]
    # one of pod 2's 4 spines: 204,800 x 3 / 4 = 153,600; nothing cut off
    one = pods_what_if(mixed, ["pod2.p0.spine0"])
    assert [(x.gpus_cut_off, x.spine_gbps) for x in one] == [(0, 204_800), (0, 153_600)]
    # every spine of pod 2: its GPUs are apart from the larger part
    assert pods_what_if(mixed, [f"pod2.p0.spine{k}" for k in range(4)])[1].gpus_cut_off == 256
    # a spine-core bundle (32 x 800 = 25,600), one cable of it (800)
    assert pods_what_if(mixed, ["pod2.p0.spine0-core1"])[1].spine_gbps == 204_800 - 25_600
    assert pods_what_if(mixed, ["pod2.p0.spine0-core1#31"])[1].spine_gbps == 204_800 - 800
    # a leaf of pod 1: its leaf group's 32 servers lose one of 8 NICs: degraded, injection 204,800 - 32 x 400
    leaf = pods_what_if(mixed, ["pod1.p0.leaf0"])[0]
    assert (leaf.nodes_degraded, leaf.injection_gbps, leaf.spine_gbps) == (32, 204_800 - 12_800, 204_800 - 12_800)
    # one leaf-spine cable of pod 1's leaf 0 (2 per pair): its 32 servers send 32 x 400 = 12,800 into 32 uplinks of
    # 400: one lost, 400 less
    assert pods_what_if(mixed, ["pod1.p0.leaf0-spine0#1"])[0].spine_gbps == 204_800 - 400


def test_elements_choices_and_unknown_ids(mixed):
    elements, choices = pod_elements(mixed), whole_choices(mixed)
    # 8 cores, 16 + 4 own spines, 16 + 8 leaves
    assert len(elements) == 8 + 20 + 24 and elements[0] == "core0" and elements[8] == "pod1.p0.spine0"
    # and 16 x 16 + 8 x 4 leaf-spine bundles, 20 spines x 2 cores of their group
    assert len(choices) == len(elements) + 16 * 16 + 8 * 4 + 20 * 2
    assert "pod2.p0.spine1-core3" in choices and "pod2.p0.spine1-core0" not in choices
    for bad in ("spine0", "core8", "pod2.p0.spine4", "pod2.p0.spine1-core0", "pod2.p0.spine0-core1#32",
                "pod1.p0.leaf0-spine16"):
        assert not is_whole_element(mixed, bad), bad
        with pytest.raises(InputError, match="core"):
            pods_what_if(mixed, [bad])
    assert all(is_whole_element(mixed, e) for e in choices[::7])


def test_rows_name_the_cores(mixed):
    row = loss_rows(pods_what_if(mixed, ["core0"]), "Gb/s", cores=True)[0]
    assert any(k.startswith("Into shared cores") for k in row)


def test_min_cut_by_hand():
    # two leaves of 10 into two spines (3 per pair) of 4 and 1 up: t = 0: 5; t = 1: 1 + 3 + 3 = 7; t = 2: 10 + 10 =
    # 20 -> 5
    assert min_cut([10, 10], [4, 1], 3) == 5
    # the leaves bound: 2 + 2 = 4 < 8 + 8
    assert min_cut([2, 2], [8, 8], 5) == 4


def _flow_graph(mixed, failed_switches: set, lost_cables: dict) -> nx.DiGraph:
    """The whole fabric's graph (networkx, one vertex per server) as upward arcs (server -> leaf -> spine -> core,
    the up*/down* routing) with capacities [Gb/s], the failed switches removed and each bundle's lost cables taken
    off its capacity."""
    wiring = mixed_wiring(mixed, three_tiers=True)
    graph = pods_fabric_graph(wiring, tuple(p.fabric.radix for p in mixed.plans),
                              tuple(p.resolved.leaf_uplink_cost for p in mixed.plans), servers="each")
    rank = {"server": 0, "leaf": 1, "spine": 2, "core": 3}
    up = nx.DiGraph()
    for u, v, data in graph.edges(data=True):
        if u in failed_switches or v in failed_switches:
            continue
        lo, hi = sorted((u, v), key=lambda x: rank[graph.nodes[x]["role"]])
        lost = lost_cables.get((lo, hi), 0)
        cap = data["capacity_gbps"] * (data["links"] - lost) / data["links"]
        if cap > 0:
            up.add_edge(lo, hi, capacity=cap)
    for v, data in graph.nodes(data=True):
        up.add_node(v, **data)
    return up


def _graph_numbers(mixed, failed: list[str]) -> list[tuple[float, int]]:
    """Per pod: the max-flow from its servers into the live cores, and its GPUs outside the connected part holding
    the most GPUs (networkx)."""
    wiring = mixed_wiring(mixed, three_tiers=True)
    switches = {e for e in failed if "-" not in e}
    cables: dict = {}
    for e in failed:
        if "-" in e:
            bundle, _mark, cable = e.partition("#")
            lower, _dash, upper = bundle.rpartition("-")
            found = wiring.parse(lower)
            upper = upper if upper.startswith("core") else wiring.prefix(found[0]) + "p0." + upper
            pod = mixed.fabric.pods[found[0]]
            whole = pod.links_per_spine_core_pair if upper.startswith("core") else pod.links_per_leaf_spine_pair
            cables[lower, upper] = cables.get((lower, upper), 0) + (1 if cable else whole)
    up = _flow_graph(mixed, switches, cables)
    return into_top(up, mixed.plans, "core")


SCENARIOS = {
    "small": [[], ["core0"], ["pod2.p0.spine0"], ["pod1.p0.spine1"], ["pod1.p0.spine0-core0"],
              ["pod1.p0.spine0-core0#0", "pod1.p0.leaf0-spine1#0"], ["pod1.p0.leaf0", "pod1.p0.spine0"],
              ["pod2.p0.leaf3-spine0"]],
    "mixed": [["core0", "core3"], ["pod1.p0.spine0", "pod2.p0.spine0-core1"], ["pod1.p0.leaf0-spine0", "core1"],
              ["pod1.p0.leaf3-spine2#0", "pod1.p0.leaf3-spine2#1", "pod1.p0.leaf3-spine5#0", "pod1.p0.spine2-core4"],
              [f"core{k}" for k in range(0, 8, 2)], ["pod2.p0.leaf0", "pod2.p0.spine3"]],
}


@pytest.mark.parametrize("name,index", [(n, i) for n, items in SCENARIOS.items() for i in range(len(items))])
def test_what_if_is_the_graphs_max_flow_and_components(name, index, small, mixed):
    """Into the cores is the max-flow from the pod's servers to the live cores over the graph's upward arcs after
    the failures, and the GPUs cut off are those outside the graph's part holding the most GPUs. SMALL: H100 x 8 (1
    leaf group, 8 leaves, 4 spines) and B200 x 8 (1 spine), G = gcd(4, 1) = 1 group of 1 core."""
    m = small if name == "small" else mixed
    failed = SCENARIOS[name][index]
    losses = pods_what_if(m, failed)
    assert [(pytest.approx(x.spine_gbps), x.gpus_cut_off) for x in losses] == _graph_numbers(m, failed)


def test_small_core_loss_by_hand(small):
    """SMALL's one core joins the pods: its loss cuts the smaller pod off (64 B200 GPUs; pod 1 has 64 H100 GPUs too,
    the first of equals kept), and pod 2's one spine likewise."""
    lost = pods_what_if(small, ["core0"])
    assert sum(x.gpus_cut_off for x in lost) == 64 and all(x.spine_gbps == 0 for x in lost)
    assert pods_what_if(small, ["pod2.p0.spine0"])[1].spine_gbps == 0


def test_uniform_core_load_by_hand(mixed):
    """Pod 1: 512 GPUs at 400 Gb/s, pod 2: 256 at 800 (768 GPUs). Pod 1 sends 512 x 400 x 256 / 767 to pod 2 over
    its 16 spines; pod 2 sends 256 x 800 x 512 / 767 to pod 1 over its 4 spines."""
    h100, b200 = pods_core_load(mixed)
    assert h100.up_gbps == pytest.approx(512 * 400 * 256 / 767 / 16)
    assert h100.down_gbps == pytest.approx(256 * 800 * 512 / 767 / 16)
    assert b200.up_gbps == pytest.approx(256 * 800 * 512 / 767 / 4)
    assert (h100.capacity_gbps, b200.capacity_gbps) == (32 * 400, 64 * 800)
    assert pods_core_load(mixed_plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))) == []


def test_availability_draws_the_cores_and_own_spines(mixed):
    result = pods_availability(mixed, trials=50)
    assert result.elements == {"gpu_node": 96, "switch": 8 + 20 + 24} and result.method == METHOD_THREE
    assert "cores" in method_note(result)
    assert 0 < result.expected_gpus_available <= 768


def test_verify_accepts_the_planned_links_and_prices_a_lost_core_cable(mixed):
    links = list(mixed_links(mixed))
    found = [FoundLink(FoundEnd(a, pa), FoundEnd(b, pb), float(s), "", i + 1)
             for i, (_k, a, pa, b, pb, s) in enumerate(links)]
    clean = verify_pods(mixed, found)
    assert clean["coverage"]["matched_links"] == clean["coverage"]["planned_links"] == len(links)
    assert not clean["missing"] and not clean["miswired"] and "shared cores" in clean["notes"][0]
    core = next(i for i, link in enumerate(links) if link[0] == "spine-core")
    kind, a, pa, _b, _pb, speed = links[core + 1]
    wrong = list(found)
    wrong[core + 1] = FoundLink(FoundEnd(a, pa), FoundEnd("core7", "1/90/1"), float(speed), "", 0)
    out = verify_pods(mixed, [x for i, x in enumerate(wrong) if i != core])
    kinds = sorted(f["kind"] for f in out["missing"] + out["miswired"])
    assert kinds == ["missing", "wrong-core"]
    # pod 1's spine 0 loses two of its 16 cables to core 0 (400G each): 800 into the cores
    assert [f["failure_spec"] for f in out["missing"]] == ["pod1.p0.spine0-core0#0"]
    assert out["impact"]["spine_gbps_lost"] == 800 and out["impact"]["busiest_link"]["tier"] == "spine_core"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resilience_page_fails_cores_and_pods_spines(lang):
    """The Resilience page of pods on three tiers: a link naming a core and a pod's spine (the CLI's names) fails
    them on the whole fabric; the table says into the shared cores; pod 1 alone is not drawn (its own cores are not
    bought), and the link keeps both names."""
    from tests import pagetest

    link = {"n": "64", "pods": "B200:32:800", "ti": "3", "lang": lang, "rs_tab": "Failure what-if",
            "rs_fail": "core0,pod2.p0.spine0"}
    at = pagetest.open_page("../pages/6_Resilience.py", link)
    assert not at.exception and not at.error
    assert not any("pod2.p0.spine0" in str(w.value) or "core0" in str(w.value) for w in at.warning)
    assert at.multiselect(key="rs_w_pods_failed").value == ["core0", "pod2.p0.spine0"]
    # turned: a column per pod; pod 2 lost its spine 0 (a quarter: 153,600 of 204,800 Gb/s), which held its cables
    # to core0 (group 0): 19.2 of 25.6 TB/s; pod 1 lost core0's 25,600 Gb/s: 22.4 of 25.6 TB/s
    lost = at.dataframe[0].value
    assert str(lost.iloc[3, 2]) == "19.2 / 25.6" and str(lost.iloc[3, 1]) == "22.4 / 25.6"
    assert not any(m.key == "rs_w_failed" for m in at.multiselect)
    params = {k: at.query_params[k] for k in at.query_params}
    assert "core001,pod2-spine001" in str(params.get("rs_fail"))  # the exports' names (left48)
    if lang == "en":
        assert "Into shared cores" in lost.to_string()
        assert any("own cores" in str(i.value) for i in at.info)


def test_resilience_page_availability_and_load_of_pods_on_three_tiers():
    from tests import pagetest

    link = {"n": "64", "pods": "B200:32:800", "ti": "3", "lang": "en"}
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Availability"})
    assert not at.exception and not at.error
    assert any("shared cores are each down" in str(c.value) for c in at.caption)
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Overload & imbalance",
                                                         "rs_pat": "uniform"})
    assert not at.exception and not at.error
    tiers = at.dataframe[1].value
    assert len(tiers) == 12  # 2 pods x (node-leaf, leaf-spine, spine-core) x (up, down)
    core = at.dataframe[-1].value  # each pod's spines' core uplinks
    assert len(core) == 2 and any("cores" in str(c) for c in core.columns)


def test_failures_inside_a_pod_are_its_own_what_if():
    """``pod2.node5.nic2`` is pod 2's NIC (its plan alone: one of 8 NICs, 1 GPU degraded); ``pod1.rack3`` pod 1's
    rack of 4 H100 servers (32 GPUs cut off); a pod's switch or a shared spine is not inside a pod."""
    from core.analysis.podinside import inside_spec, inside_what_if
    from core.analysis.podwhatif import link_failures, split_failures

    mixed = mixed_plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    assert inside_spec(mixed, "pod2.node5.nic2") == (1, "node5.nic2")
    assert inside_spec(mixed, "pod2.rack1.feedA") == (1, "rack1.feeda")
    for other in ("pod2.p0.leaf1", "spine0", "pod3.node1.nic0", "pod2.node99.nic0", "pod1.nic:2", "node5.nic2"):
        assert inside_spec(mixed, other) is None, other
    results = dict(inside_what_if(mixed, ["pod2.node5.nic2", "pod1.rack3", "spine0"]))
    assert (results[1].gpus_disconnected, results[2].gpus_disconnected, results[2].gpus_degraded) == (32, 0, 1)
    alone, whole = split_failures(mixed, ["p0.spine0", "pod2.node5.nic2"])
    assert (alone, whole) == (["p0.spine0"], ["pod2.node5.nic2"])
    assert link_failures(mixed, alone, whole) == ("spine0", "pod2.node5.nic2")


@pytest.mark.parametrize("tiers", [{"ti": "3"}, {}])
def test_resilience_page_fails_a_nic_inside_a_pod(tiers):
    """A link naming pod 2's NIC (``rs_fail=pod2.node5.nic2``) shows it failed inside pod 2, no warning, and the
    link keeps it; the form adds pod 1's rack (pods on three tiers or two)."""
    from tests import pagetest

    link = {"n": "64", "pods": "B200:32:800", **tiers, "lang": "en", "rs_tab": "Failure what-if",
            "rs_fail": "pod2.node5.nic2"}
    at = pagetest.open_page("../pages/6_Resilience.py", link)
    assert not at.exception and not at.error and not at.warning
    assert at.multiselect(key="rs_w_inside_failed").value == ["pod2.node5.nic2"]
    at.selectbox(key="rs_w_inside_pod").set_value(1)
    at.text_input(key="rs_w_inside_names").set_value("rack3, p0.leaf0")
    at.button(key="rs_w_inside_add").click()
    pagetest.rerun(at)
    assert not at.exception
    assert at.multiselect(key="rs_w_inside_failed").value == ["pod2.node5.nic2", "pod1.rack3"]
    assert any("is not a NIC" in str(e.value) for e in at.error)
    table = at.dataframe[-1].value.to_string()
    assert "32 of 512" in table and "256" in table
    params = {k: at.query_params[k] for k in at.query_params}
    assert "pod2-gpu006 nic3,R02-04" in str(params.get("rs_fail"))  # the exports' names (left48)


def test_cli_fails_cores_and_a_nic_inside_a_pod(capsys):
    """``python -m core failure --pods`` on three tiers: core0 (25,600 Gb/s of each pod's 204,800 into the cores),
    pod 1's rack of 4 servers (32 GPUs) and pod 2's NIC (1 GPU degraded), each inside one its pod's own what-if."""
    import json

    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, "--lang", "en", "failure", "--gpu", "H100", "--nodes", "64", "--pods",
                              "B200:32:800", "--tiers", "3", "--fail", "core0", "--fail", "pod2.node5.nic2",
                              "--fail", "pod1.rack3", "--format", "json")
    data = json.loads(out)
    assert code == 0 and [p["spine_gbps"] for p in data["pods"]] == [179_200, 179_200]
    assert [(x["pod"], x["gpus_cut_off"], x["gpus_degraded"]) for x in data["inside"]] == [(1, 32, 0), (2, 0, 1)]


def test_uneven_cut_is_the_max_flow():
    """The minimum cut with short leaf-spine pairs (``uneven_cut``) against networkx's max-flow on 300 seeded
    random small layers (up to 6 leaves and 6 spines, some pairs short of some of their capacity)."""
    import random

    from core.analysis.podcorewhatif import uneven_cut

    rng = random.Random(1)
    for _trial in range(300):
        a = {k: rng.choice([0, 1, 2, 5, 8, 10]) for k in range(rng.randint(1, 6))}
        b = {j: rng.choice([0, 1, 3, 6, 12]) for j in range(rng.randint(1, 6))}
        c = rng.choice([1, 2, 3, 4])
        short = {(k, j): rng.randint(1, c) for k in a for j in b if rng.random() < 0.3}
        g = nx.DiGraph()
        g.add_edges_from(("s", ("l", k), {"capacity": x}) for k, x in a.items())
        g.add_edges_from((("l", k), ("p", j), {"capacity": c - short.get((k, j), 0)}) for k in a for j in b)
        g.add_edges_from((("p", j), "t", {"capacity": x}) for j, x in b.items())
        assert uneven_cut(a, b, c, short) == pytest.approx(nx.maximum_flow_value(g, "s", "t")), (a, b, c, short)
