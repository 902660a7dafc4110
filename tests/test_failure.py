"""Failure what-if (core.analysis.failure) against brute force on the networkx switch graph.

Brute force: ``core.fabric.topology.fabric_graph(plan, servers="each")`` with the failed switches
removed and a failed NIC's port taken off its node-leaf edge, nodes of one NVLink domain joined;
GPUs outside the component holding the most nodes are cut off; a GPU is degraded when its NIC has a
port whose leaf is gone or outside that component; the bisection is the networkx max flow between the
two halves of the nodes (failures placed in the first half, the worst side for them).
"""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.failure import Shape, resolve_failures, what_if
from core.design import Design
from core.errors import InputError
from core.fabric.topology import fabric_graph
from core.plan import plan

SMALL = {
    "2-tier rail-optimized, 2 SUs": dict(gpu="H100", nodes=64, switch="QM9700"),
    "2-tier 2:1, 2 SUs": dict(gpu="H100", nodes=84, switch="QM9700", oversubscription=2.0),
    "top-of-rack 3:1": dict(gpu="H100", nodes=16, topology="top-of-rack", nodes_per_rack=2, oversubscription=3.0),
    "3-tier ToR, 1 GPU nodes": dict(gpu="H100", nodes=32, gpus_per_node=1, nics_per_node=1, topology="top-of-rack",
                                    nodes_per_rack=4, switch="QM8700", port_speed_gbps=200, tiers=3),
    "one SU": dict(gpu="H100", nodes=32, switch="QM9700"),
    # dual-ToR (Alibaba HPN-style): a dual-port NIC with one port to each of a rack's two ToRs
    "dual-plane ToR": dict(gpu="H100", nodes=16, topology="top-of-rack", nodes_per_rack=2, planes=2, nic="CX7-2P",
                           port_speed_gbps=200, fabric="ethernet", switch="TH5", tiers=2),
    "one switch": dict(gpu="H100", nodes=2),
}


def _brute(result, elements, flow=True):
    shape = Shape.of(result)
    graph = fabric_graph(result, servers="each")
    dead_nics = {}
    feeds, chips, expanded = {}, {}, []
    for tier, key, c in elements:  # feeds: both lost = the rack; HGX NVSwitch chip: the node (Fabric Manager)
        if tier == "feed":
            feeds.setdefault(key[0], set()).add(key[1])
            if len(feeds[key[0]]) == shape.feeds:
                expanded.append(("rack", (key[0],), c))
        elif tier in ("nvswitch", "tray") and shape.nodes_per_domain == 1:
            expanded.append(("nic-all", (key[0],), c))
        elif tier in ("nvswitch", "tray"):
            chips.setdefault(key[0], set()).update([key[1]] if tier == "nvswitch" else shape.chips_of_tray(key[1]))
        else:
            expanded.append((tier, key, c))
    for tier, key, _c in expanded:
        if tier == "link":  # take the bundle's lost cables off the edge; the edge goes with the last cable
            kind, p, i, a, b, cable = key
            pre = shape.prefix(p, i)
            u, v = (f"{pre}leaf{a}", f"{pre}spine{b}") if kind == "ls" else (f"{pre}spine{a}", f"{pre}core{b}")
            if graph.has_edge(u, v):
                e = graph[u][v]
                lost = 1 if cable is not None else e["links"]
                e["capacity_gbps"] -= lost * e["capacity_gbps"] / e["links"]
                e["links"] -= lost
                if e["links"] <= 0:
                    graph.remove_edge(u, v)
        elif tier == "nic-all":
            dead_nics.setdefault(key[0], set()).update(range(shape.nics))
        elif tier in ("leaf", "spine", "core"):
            graph.remove_nodes_from([f"{shape.prefix(key[0], key[1])}{tier}{key[2]}"])
        elif tier == "plane":
            graph.remove_nodes_from([v for v, d in list(graph.nodes(data=True)) if d.get("plane") == key[0]])
        elif tier == "rack":  # the rack's nodes lose every port; top-of-rack, the switches they hang off go too
            nodes = range(key[0] * shape.nodes_per_rack, min(shape.nodes, (key[0] + 1) * shape.nodes_per_rack))
            tors = {leaf for n in nodes for leaf in graph[f"node{n}"]} if shape.tor and shape.tiers > 1 else set()
            for n in nodes:
                dead_nics.setdefault(n, set()).update(range(shape.nics))
                graph.remove_edges_from(list(graph.edges(f"node{n}")))
            graph.remove_nodes_from(tors)
        else:
            dead_nics.setdefault(key[0], set()).add(key[1])
    npg = shape.nodes_per_group if shape.tiers > 1 else shape.nodes

    def port_leaf(n, nic, p):
        i, lr = nic % shape.islands, nic // shape.islands
        return f"{shape.prefix(p, i)}leaf{shape.leaf_of(n // npg if shape.tiers > 1 else 0, lr)}"

    for n, nics in dead_nics.items():
        for nic in nics:
            for p in range(shape.planes):
                leaf = port_leaf(n, nic, p)
                if graph.has_edge(f"node{n}", leaf):
                    e = graph[f"node{n}"][leaf]
                    e["links"] -= 1
                    e["capacity_gbps"] -= shape.port_gbps
                    if e["links"] == 0:
                        graph.remove_edge(f"node{n}", leaf)
    reach = graph.copy()
    d = shape.nodes_per_domain
    for first in range(0, shape.nodes, d):
        if len(chips.get(first // d, ())) >= max(1, shape.nvl_chips):
            continue  # every NVLink switch chip of the domain lost: its nodes no longer forward to each other
        for n in range(first + 1, min(shape.nodes, first + d)):
            reach.add_edge(f"node{first}", f"node{n}")
    components = [c for c in nx.connected_components(reach) if any(not v.startswith("node") for v in c)]
    main = max(components, key=lambda c: sum(1 for v in c if v.startswith("node"))) if components else set()
    cut_off = shape.nodes - sum(1 for v in main if v.startswith("node"))
    degraded = 0
    gpn, nics = shape.gpus_per_node, shape.nics
    for n in range(shape.nodes):
        if f"node{n}" not in main:
            continue
        for g in range(gpn):
            own = range(g * nics // gpn, max(g * nics // gpn + 1, (g + 1) * nics // gpn))
            bad = any(nic in dead_nics.get(n, ()) or port_leaf(n, nic, p) not in main
                      for nic in own for p in range(shape.planes))
            degraded += bad
    if not flow:
        return cut_off * gpn, degraded, None
    flow = nx.DiGraph()
    for u, v, data in graph.edges(data=True):
        flow.add_edge(u, v, capacity=data["capacity_gbps"])
        flow.add_edge(v, u, capacity=data["capacity_gbps"])
    for n in range(shape.nodes):
        flow.add_node(f"node{n}")
        if n < shape.nodes // 2:
            flow.add_edge("SRC", f"node{n}")
        else:
            flow.add_edge(f"node{n}", "DST")
    bisection = nx.maximum_flow_value(flow, "SRC", "DST")
    return cut_off * gpn, degraded, bisection


CASES = [
    ("2-tier rail-optimized, 2 SUs", ["spine:1"]),
    ("2-tier rail-optimized, 2 SUs", ["spine:3"]),
    ("2-tier rail-optimized, 2 SUs", ["leaf:1"]),
    ("2-tier rail-optimized, 2 SUs", ["leaf:3", "spine:2"]),
    ("2-tier rail-optimized, 2 SUs", ["nic:1"]),
    ("2-tier rail-optimized, 2 SUs", ["node0.nic2", "node1.nic2", "p0.leaf5"]),
    ("2-tier rail-optimized, 2 SUs", ["nic:8"]),
    ("2-tier rail-optimized, 2 SUs", ["leaf:8"]),
    ("2-tier rail-optimized, 2 SUs", ["spine:8"]),
    ("2-tier 2:1, 2 SUs", ["spine:1"]),
    ("2-tier 2:1, 2 SUs", ["leaf:2", "nic:3"]),
    ("top-of-rack 3:1", ["leaf:1"]),
    ("top-of-rack 3:1", ["spine:1"]),
    ("top-of-rack 3:1", ["nic:2"]),
    ("3-tier ToR, 1 GPU nodes", ["leaf:1"]),
    ("3-tier ToR, 1 GPU nodes", ["spine:1"]),
    ("3-tier ToR, 1 GPU nodes", ["core:1"]),
    ("3-tier ToR, 1 GPU nodes", ["spine:2", "core:1"]),
    ("one SU", ["leaf:1"]),
    ("one SU", ["nic:3"]),
    ("one SU", ["spine:1"]),
    ("dual-plane ToR", ["leaf:1"]),
    ("dual-plane ToR", ["leaf:2"]),
    ("dual-plane ToR", ["plane:1"]),
    ("dual-plane ToR", ["p1", "nic:1"]),
    ("top-of-rack 3:1", ["rack:1"]),
    ("top-of-rack 3:1", ["rack3", "spine:1"]),
    ("2-tier rail-optimized, 2 SUs", ["rack:2"]),
    ("dual-plane ToR", ["rack:1", "leaf:2"]),
    ("one switch", ["nic:1"]),
    ("one switch", ["leaf:1"]),
]


@pytest.mark.parametrize("name,failures", CASES, ids=[f"{n}-{'+'.join(f)}" for n, f in CASES])
def test_matches_brute_force(name, failures):
    result = plan(Design(**SMALL[name]))
    out = what_if(result, failures)
    cut_off, degraded, bisection = _brute(result, resolve_failures(result, failures))
    assert out.gpus_disconnected == cut_off
    assert out.gpus_degraded == degraded
    assert out.bisection_tbits_one_direction * 1000 == pytest.approx(bisection)
    assert out.healthy_bisection_tbits_one_direction == pytest.approx(result.bandwidth.bisection_tbits_one_direction)


@pytest.mark.parametrize("failures", [["leaf:1"], ["nic:4"], ["leaf:4"], ["spine:1"], ["node3.nic0", "node20.nic1"],
                                      ["leaf:2", "spine:1", "nic:5"]])
def test_nvl72_trays_forward_over_nvlink(failures):
    """GB200 NVL72 (2 racks of 18 compute trays, 4 NICs each): a tray whose NICs are all lost still reaches
    the fabric through the other trays of its NVLink domain (degraded, PXN); the rack's rail leaves all lost
    cut the rack off. Brute force joins the trays of a rack."""
    result = plan(Design(gpu="GB200-NVL72", nodes=36))
    out = what_if(result, failures)
    cut_off, degraded, bisection = _brute(result, resolve_failures(result, failures))
    assert (out.gpus_disconnected, out.gpus_degraded) == (cut_off, degraded)
    assert out.bisection_tbits_one_direction * 1000 == pytest.approx(bisection)


@pytest.mark.parametrize("failures", [["leaf:1"], ["spine:1"], ["p0.leaf8"], ["node35.nic0"], ["p0.leaf9", "spine:3"]])
def test_partial_scalable_unit_is_conservative(failures):
    """A partial last SU (40 nodes = 32 + 8): counts are exact; the bisection, like the healthy analytic one
    (core.fabric.bandwidth.bisection_gbits), never exceeds the max flow across the node-order halving."""
    result = plan(Design(gpu="H100", nodes=40, switch="QM9700"))
    out = what_if(result, failures)
    cut_off, degraded, bisection = _brute(result, resolve_failures(result, failures))
    assert (out.gpus_disconnected, out.gpus_degraded) == (cut_off, degraded)
    assert out.bisection_tbits_one_direction * 1000 <= bisection + 1e-6


def test_three_tier_pods_cut_off_and_rejoin():
    """Three tiers, several pods: failing every spine of pod 0 cuts its nodes off (one NIC each); failing one
    core group's cores leaves ECMP groups short but nobody cut off. Brute force agrees."""
    result = plan(Design(gpu="H100", nodes=160, gpus_per_node=1, nics_per_node=1, topology="top-of-rack",
                         nodes_per_rack=4, switch="QM8700", port_speed_gbps=200, tiers=3))
    shape = Shape.of(result)
    assert shape.pods > 1
    for failures in (["spine:%d" % shape.spines_per_pod], ["core:%d" % shape.cores_per_group], ["spine:1"],
                     ["leaf:1", "core:1"]):
        out = what_if(result, failures)
        cut_off, degraded, bisection = _brute(result, resolve_failures(result, failures))
        assert (out.gpus_disconnected, out.gpus_degraded) == (cut_off, degraded), failures
        assert out.bisection_tbits_one_direction * 1000 == pytest.approx(bisection), failures
    assert what_if(result, [f"spine:{shape.spines_per_pod}"]).gpus_disconnected == \
        shape.groups_per_pod * shape.nodes_per_group


def test_lost_rail_is_degraded_via_pxn_not_cut_off():
    """Rail-optimized: a rail leaf lost leaves its 32 nodes' GPU on that rail reaching the fabric over NVLink
    through another rail's NIC (PXN); the result says so."""
    out = what_if(plan(Design(gpu="H100", nodes=64, switch="QM9700")), ["su1-rail3"])
    assert out.failed[0]["element"] == "p0.leaf2"
    assert (out.gpus_disconnected, out.gpus_degraded, out.gpus_via_pxn) == (0, 32, 32)
    assert any("PXN" in note for note in out.notes)
    assert out.busbw_gbytes < out.healthy_busbw_gbytes


def test_one_tor_per_rack_cuts_the_rack_off_and_dual_tor_does_not():
    single = what_if(plan(Design(**SMALL["top-of-rack 3:1"])), ["tor:1"])
    assert single.gpus_disconnected == 2 * 8  # the rack's 2 nodes
    dual = what_if(plan(Design(**SMALL["dual-plane ToR"])), ["leaf:1"])
    assert dual.gpus_disconnected == 0 and dual.gpus_degraded == 16
    both = what_if(plan(Design(**SMALL["dual-plane ToR"])), ["leaf:2"])
    assert [f["element"] for f in both.failed] == ["p0.leaf0", "p1.leaf0"]  # the same rack's two ToRs
    assert both.gpus_disconnected == 16


def test_spine_failure_ecmp_and_step_time():
    from core.perf.training import model_preset, parse_job

    result = plan(Design(gpu="H100", nodes=64, switch="QM9700"))
    job = parse_job(dict(model=model_preset("llama3-8b"), tp=8, gpus=256))
    out = what_if(result, ["spine:2"], job=job)
    assert out.ecmp_unbalanced == ({"tier": "leaf", "switches": 16, "healthy_paths": 8, "remaining_paths": 6,
                                    "unit": "switches"},)
    assert out.step_time_s >= out.healthy_step_time_s > 0
    from core.perf.training import estimate
    assert out.healthy_days_to_train == pytest.approx(estimate(result, job).days_to_train)
    # the same steps at the failed step time: days scale with the step
    assert out.days_to_train == pytest.approx(out.healthy_days_to_train * out.step_time_s / out.healthy_step_time_s)
    assert out.to_json()["days_to_train"] == pytest.approx(out.days_to_train, rel=1e-3)
    assert out.stages_tbits["leaf_up"]["remaining"] == pytest.approx(102.4 * 6 / 8)
    # 6 of 8 spines lost: leaves at 4:1, half of the all-to-all leaves its SU -> the uplinks carry 1/2 of it
    worse = what_if(result, ["spine:6"])
    assert worse.alltoall_busbw_gbytes < 0.75 * worse.healthy_alltoall_busbw_gbytes
    assert worse.busbw_gbytes <= worse.healthy_busbw_gbytes


def test_healthy_plan_never_changes():
    result = plan(Design(gpu="H100", nodes=64, switch="QM9700"))
    before = result.model_dump_json()
    what_if(result, ["leaf:3", "spine:2", "nic:5"])
    assert result.model_dump_json() == before


@pytest.mark.parametrize("failures,fragment", [
    (["leaf:p0.leaf99"], "unknown element"),
    (["sprine:1"], "unknown tier"),
    (["spine:9"], "cannot fail 9"),
    (["p3"], "unknown element"),
    (["node64.nic0"], "unknown element"),
    (["leaf:0"], "at least 1"),
    ([], "at least one"),
])
def test_bad_specs_are_input_errors(failures, fragment):
    with pytest.raises(InputError, match=fragment):
        what_if(plan(Design(gpu="H100", nodes=64, switch="QM9700")), failures)


_design = st.sampled_from(["2-tier rail-optimized, 2 SUs", "top-of-rack 3:1", "3-tier ToR, 1 GPU nodes",
                           "dual-plane ToR", "2-tier 2:1, 2 SUs"])
_spec = st.tuples(st.sampled_from(["leaf", "spine", "core", "nic", "plane", "rack"]), st.integers(1, 3))


@settings(max_examples=60, deadline=None)
@given(_design, st.lists(_spec, min_size=1, max_size=3), _spec)
def test_failing_more_never_helps(name, specs, extra):
    """Adding failures never raises the bisection (or any stage) nor lowers the GPUs cut off."""
    result = plan(Design(**SMALL[name]))
    shape = Shape.of(result)

    def ok(spec):
        tier, count = spec
        return tier not in ("core",) or shape.tiers == 3

    base = [f"{t}:{c}" for t, c in specs if ok((t, c))]
    if not base or not ok(extra):
        return
    try:
        smaller = what_if(result, base)
        larger = what_if(result, base + [f"{extra[0]}:{extra[1]}"])
    except InputError:
        return
    assert larger.bisection_tbits_one_direction <= smaller.bisection_tbits_one_direction + 1e-9
    for stage, values in larger.stages_tbits.items():
        assert values["remaining"] <= smaller.stages_tbits[stage]["remaining"] + 1e-9
    assert larger.gpus_disconnected >= smaller.gpus_disconnected


def test_cli_failure_json_and_table(capsys):
    import json

    from core.cli import main

    args = ["failure", "--gpu", "H100", "--nodes", "64", "--switch", "QM9700", "--fail", "spine:2", "--fail",
            "leaf:1", "--fail", "leaf:p0.leaf9"]
    assert main(args + ["--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("failed", "gpus_disconnected", "gpus_degraded", "bisection_tbits_one_direction", "busbw_gbytes",
                "step_time_s"):
        assert key in out
    assert out["healthy"]["bisection_tbits_one_direction"] == pytest.approx(102.4)
    assert [f["element"] for f in out["failed"]] == ["p0.leaf9", "p0.spine0", "p0.spine1", "p0.leaf0"]
    assert main(["--lang", "zh"] + args + ["--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == out  # machine output is the same in every language
    assert main(["--lang", "zh"] + args + ["--model", "llama3-8b", "--job-gpus", "256"]) == 0
    text = capsys.readouterr().out
    assert "断开" in text and "对分带宽" in text and "cut off" not in text
    assert main(args[:-2] + ["--fail", "leaf:nosuch"]) == 2
    assert "unknown element 'nosuch'" in capsys.readouterr().err
    assert main(args[:-2] + ["--fail", "spine:99"]) == 2


def test_cli_spof_json(capsys):
    import json

    from core.cli import main

    base = ["spof", "--gpu", "H100", "--nodes", "16", "--topology", "top-of-rack", "--nodes-per-rack", "2",
            "--oversubscription", "3"]
    assert main(base + ["--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == len(out["elements"]) == 9
    assert set(out["elements"][0]) >= {"element", "tier", "gpus_lost", "remedy"}
    assert main(["--lang", "zh"] + base) == 0
    assert "单点故障" in capsys.readouterr().out
