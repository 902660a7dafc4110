"""The failure what-if of a Dragonfly+ (``core.analysis.failure.dragonflywhatif``, closed form; the graph what-if,
``core.analysis.failure.graphwhatif``, is its reference) against brute force written here:
networkx reachability on the fabric graph with the failed elements taken out by hand, the global links across the
cut, Valiant paths through a third group, a group without spines, every spec form, bad names, the CLI."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from core.analysis.failure import resolve_failures, tiers_for, what_if
from core.analysis.failure import graphwhatif
from core.design import Design
from core.errors import InputError
from core.fabric.topology import fabric_graph
from core.plan import plan

FOUR = Design(gpu="H100", nodes=256, topology="dragonfly", switch="QM9700", group_leaves=16)
"""4 groups of 2 SUs (16 leaves, 16 spines each), 32 nodes per SU, one plane."""
TWO = Design(gpu="H100", nodes=128, topology="dragonfly", switch="QM9700", group_leaves=16)
"""2 groups."""


@pytest.fixture(scope="module")
def four():
    return plan(FOUR)


@pytest.fixture(scope="module")
def two():
    return plan(TWO)


def _brute_cut_off(p, switches=(), edges=(), nics=()) -> int:
    """Nodes outside the connected part holding the most nodes, by networkx reachability on the fabric graph
    without ``switches``, the bundles ``edges`` and the NIC ports ``nics`` ((node index, rail): its leaf's edge)."""
    g = fabric_graph(p, servers="each")
    g.remove_nodes_from(switches)
    g.remove_edges_from(edges)
    for n, r in nics:
        g.remove_edges_from([(f"node{n}", leaf) for leaf in list(g.adj[f"node{n}"]) if g.nodes[leaf]["rail"] == r])
    servers = {v for v, d in g.nodes(data=True) if d["role"] == "server"}
    best = max(nx.connected_components(g), key=lambda c: len(c & servers))
    return len(servers - best)


def _globals(p, a_group: int, b_group: int) -> list[tuple[str, str, int]]:
    """Global bundles ``(spine, spine, cables)`` of plane 0 between two groups."""
    g = fabric_graph(p, servers="none")
    return [(a, b, e["links"]) for a, b, e in g.edges(data=True)
            if g.nodes[a]["role"] == g.nodes[b]["role"] == "spine"
            and {g.nodes[a]["pod"], g.nodes[b]["pod"]} == {a_group, b_group}]


def _spines_of_group(p, group: int) -> list[str]:
    s = p.fabric.spines_per_pod
    return [f"p0.spine{k}" for k in range(group * s, (group + 1) * s)]


@pytest.mark.parametrize("specs, switches, nics", [
    (["p0.spine3"], ["p0.spine3"], []),
    (["leaf:3"], ["p0.leaf0", "p0.leaf1", "p0.leaf2"], []),
    (["nic:8"], [], [(0, r) for r in range(8)]),
    (["node7.nic1", "p0.leaf9"], ["p0.leaf9"], [(7, 1)]),
    (["spine:16"], [f"p0.spine{k}" for k in range(16)], []),
    (["spine:20"], [f"p0.spine{k}" for k in range(20)], []),
])
def test_cut_off_matches_reachability(four, specs, switches, nics):
    result = what_if(four, specs)
    cut = _brute_cut_off(four, switches=switches, nics=nics)
    assert result.nodes_disconnected == cut
    assert result.gpus_disconnected == cut * four.resolved.gpus_per_node
    assert [f["element"] for f in result.failed] == [*switches] or nics


def test_lost_global_bundle_across_the_cut_lowers_the_bisection_by_its_share(four):
    healthy = four.bandwidth.bisection_tbits_one_direction
    a, b, cables = _globals(four, 0, 2)[0]  # groups 0 and 2: the halves are groups {0, 1} and {2, 3}
    result = what_if(four, [f"{a}-{b.split('.')[-1]}"])
    across = 2 * 2 * four.fabric.global_pair_links  # links between the halves
    assert result.healthy_bisection_tbits_one_direction == pytest.approx(healthy)
    assert result.bisection_tbits_one_direction == pytest.approx(healthy * (1 - cables / across))
    assert result.gpus_disconnected == 0 and result.gpus_degraded == 0
    assert result.stages_tbits["global"]["remaining"] == pytest.approx(healthy * (1 - cables / across))
    inside = _globals(four, 0, 1)[0]  # within one half: the bisection keeps its value
    same = what_if(four, [f"{inside[0]}-{inside[1].split('.')[-1]}"])
    assert same.bisection_tbits_one_direction == pytest.approx(healthy)


def test_one_cable_of_a_global_bundle(four):
    a, b, cables = _globals(four, 0, 2)[0]
    name = f"{a}-{b.split('.')[-1]}#0"
    result = what_if(four, [name])
    across = 2 * 2 * four.fabric.global_pair_links
    assert result.bisection_tbits_one_direction == pytest.approx(
        four.bandwidth.bisection_tbits_one_direction * (1 - 1 / across))
    assert [f["element"] for f in result.failed] == [name]


def test_every_global_bundle_between_two_groups_lost_keeps_them_connected_via_a_third(four):
    names = [f"{a}-{b.split('.')[-1]}" for a, b, _c in _globals(four, 0, 1)]
    result = what_if(four, names)
    edges = [(a, b) for a, b, _c in _globals(four, 0, 1)]
    assert _brute_cut_off(four, edges=edges) == 0  # Valiant: through group 2 or 3
    assert result.gpus_disconnected == 0
    by_count = what_if(four, [f"global:{len(names)}"])  # the first pair of groups' bundles first
    assert {f["element"] for f in by_count.failed} == set(names)
    assert by_count.gpus_disconnected == 0


def test_two_groups_without_their_global_links_split(two):
    names = [f"{a}-{b.split('.')[-1]}" for a, b, _c in _globals(two, 0, 1)]
    result = what_if(two, names)
    assert result.nodes_disconnected == two.resolved.nodes // 2 == _brute_cut_off(
        two, edges=[(a, b) for a, b, _c in _globals(two, 0, 1)])
    assert result.bisection_tbits_one_direction == pytest.approx(0.0)


@pytest.mark.parametrize("design, group", [(FOUR, 0), (FOUR, 3), (TWO, 1)])
def test_a_group_without_spines_is_cut_off(design, group):
    p = plan(design)
    spines = _spines_of_group(p, group)
    result = what_if(p, spines)
    nodes_in_group = p.resolved.nodes // p.fabric.pod_count
    assert result.nodes_disconnected == nodes_in_group == _brute_cut_off(p, switches=spines)
    assert result.nodes_disconnected <= p.resolved.nodes - nodes_in_group  # the smaller side


def test_lost_leaf_degrades_through_pxn(four):
    result = what_if(four, ["leaf:1"])
    nodes_on_leaf = four.fabric.nodes_per_group
    assert result.gpus_disconnected == 0
    assert result.gpus_degraded == result.gpus_via_pxn == nodes_on_leaf  # one GPU per NIC, one plane
    assert result.busbw_gbytes < result.healthy_busbw_gbytes
    assert result.stages_tbits["injection"]["remaining"] < result.stages_tbits["injection"]["healthy"]


def test_spine_loss_unbalances_the_leaves_ecmp(four):
    result = what_if(four, ["p0.spine0"])
    spines = four.fabric.spines_per_pod
    leaves = four.fabric.groups_per_pod * four.fabric.leaves_per_group
    assert result.ecmp_unbalanced == ({"tier": "leaf", "switches": leaves, "healthy_paths": spines,
                                       "remaining_paths": spines - 1, "unit": "switches"},)
    assert "closed form" in result.busbw_method and any("maximum flow" in n for n in result.notes)
    assert "networkx" in graphwhatif.what_if_graph(four, ["p0.spine0"]).busbw_method  # the reference


@pytest.mark.parametrize("spec, tier, element", [
    ("p0.leaf3", "leaf", "p0.leaf3"), ("leaf3", "leaf", "p0.leaf3"), ("leaf:p0.leaf3", "leaf", "p0.leaf3"),
    ("tor:leaf3", "leaf", "p0.leaf3"), ("p0.spine5", "spine", "p0.spine5"), ("spine:spine5", "spine", "p0.spine5"),
    ("p0", "plane", "p0"), ("plane:p0", "plane", "p0"), ("node5.nic2", "nic", "node5.nic2"),
    ("nic:node5.nic2", "nic", "node5.nic2"), ("p0.leaf3-spine1", "link", "p0.leaf3-spine1"),
    ("link:p0.leaf3-spine1#1", "link", "p0.leaf3-spine1#1"), ("bundle:leaf3-spine1", "link", "p0.leaf3-spine1"),
    ("p0.spine0-spine20", "global", "p0.spine0-spine20"), ("P0.SPINE20-SPINE0", "global", "p0.spine0-spine20"),
    ("global:p0.spine0-spine20#1", "global", "p0.spine0-spine20#1"),
])
def test_every_spec_form_parses(four, spec, tier, element):
    result = what_if(four, [spec])
    assert [(f["tier"], f["element"], f["chosen"]) for f in result.failed] == [(tier, element, False)]


@pytest.mark.parametrize("spec, first", [
    ("leaf:2", ["p0.leaf0", "p0.leaf1"]), ("spine:2", ["p0.spine0", "p0.spine1"]), ("plane:1", ["p0"]),
    ("nic:2", ["node0.nic0", "node0.nic1"]), ("link:2", ["p0.leaf0-spine0", "p0.leaf0-spine1"]),
    ("global:2", ["p0.spine0-spine20", "p0.spine1-spine21"]),
])
def test_counts_choose_in_index_order(four, spec, first):
    elements = resolve_failures(four, [spec])
    assert all(chosen for _t, _k, chosen in elements)
    assert [graphwhatif._element(t, k) for t, k, _c in elements] == first


@pytest.mark.parametrize("spec, fragment", [
    ("p0.leaf99", "unknown element"), ("p1.leaf0", "unknown element"), ("p0.core0", "unknown element"),
    ("rack3", "unknown element"), ("node5.nvswitch1", "unknown element"), ("node999.nic0", "unknown element"),
    ("p0.spine0-spine1", "not cabled"), ("p0.leaf0-spine20", "not cabled"), ("p0.leaf0-spine0#99", "cables, #0"),
    ("global:p0.leaf3-spine1", "unknown element"), ("core:1", "unknown tier"), ("global:9999", "cannot fail"),
    ("leaf:0", "at least 1"), ("p0.leaf0<b>", "unknown element"),
])
def test_bad_names_are_refused(four, spec, fragment):
    with pytest.raises(InputError, match=fragment):
        resolve_failures(four, [spec])


def test_bad_name_is_shown_like_the_clos_ones(four):
    from core.errors import shown

    long = "x" * 300 + "<b>"
    with pytest.raises(InputError) as exc:
        what_if(four, [long])
    assert str(exc.value).startswith(f"unknown element {shown(long)};") and "global:2" in str(exc.value)
    assert long not in str(exc.value)


def test_tiers_and_the_size_limit(four, monkeypatch):
    assert tiers_for(four) == ("leaf", "spine", "plane", "nic", "link", "global")
    one_group = plan(Design(gpu="H100", nodes=64, topology="dragonfly", switch="QM9700", group_leaves=16))
    assert "global" not in tiers_for(one_group)
    assert what_if(one_group, ["leaf:1"]).gpus_degraded > 0  # one group: the halves of its nodes
    with pytest.raises(InputError, match="name at least one"):
        what_if(four, [])
    monkeypatch.setattr(graphwhatif, "MAX_GPUS", 1024)  # the graph reference refuses; what_if is closed form
    with pytest.raises(InputError, match="rail-optimized"):
        graphwhatif.what_if_graph(four, ["leaf:1"])
    assert what_if(four, ["leaf:1"]).gpus_degraded > 0


def test_healthy_flow_matches_the_sized_bisection(four, two):
    for p in (four, two):
        net = graphwhatif._Net.of(p)
        flow = graphwhatif._flow(net.graph, graphwhatif._halves(net))
        assert flow / 1000 == pytest.approx(p.bandwidth.bisection_tbits_one_direction)


def test_cli_failure_on_a_dragonfly(capsys):
    from core.cli import main

    args = ["failure", "--gpu", "H100", "--nodes", "256", "--switch", "QM9700", "--topology", "dragonfly",
            "--group-leaves", "16", "--fail", "global:3"]
    assert main(args + ["--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["failed"]) == 3 and out["gpus_disconnected"] == 0
    assert "global" in out["stages_tbits_one_direction"]
    assert main(["--lang", "zh"] + args) == 0
    assert "全局链路" in capsys.readouterr().out
    assert main(args[:-2] + ["--fail", "rack3"]) == 2


def test_the_resilience_link_keeps_dragonfly_names(four):
    from core.formats import resiliencelink as rl

    assert rl.parse_failures("global:3, p0.spine0-spine20#1") == ("global:3", "p0.spine0-spine20#1")
    good, warnings = rl.check_failures(four, ["global:3", "p0.spine0-spine20", "rack3", "p0.leaf3-spine1"])
    assert good == ("global:3", "p0.spine0-spine20", "p0.leaf3-spine1")
    assert len(warnings) == 1 and "rack3" in warnings[0]
    clos = plan(Design(gpu="H100", nodes=64, switch="QM9700"))
    assert rl.check_failures(clos, ["global:1"])[0] == ()  # no global links in a folded Clos


def test_lost_global_links_slow_the_all_to_all_between_groups():
    """The degraded copy's spine down:up ratio (a spine's surviving global links) is the collectives' share between
    groups: losing global bundles lowers the all-to-all busbw, though no GPU is cut off."""
    from core.analysis.failure import what_if
    from core.design import Design
    from core.plan import plan

    p = plan(Design(gpu="H100", nodes=1024, topology="dragonfly", switch="QM9700", group_leaves=16))
    few, many = what_if(p, ["global:10"]), what_if(p, ["global:60"])
    assert few.gpus_disconnected == many.gpus_disconnected == 0
    assert many.alltoall_busbw_gbytes < few.alltoall_busbw_gbytes < few.healthy_alltoall_busbw_gbytes
