"""The fabric's wiring index (core.fabric.wiring) against the sizing's counts, the cabling plan and the graph."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from core.design import Design
from core.fabric.topology import fabric_graph
from core.fabric.wiring import Wiring
from core.physical.cabling import compute_links
from core.plan import plan
from tools.equivalence import GRID, PHYSICAL_GRID


@pytest.mark.parametrize("name", sorted(GRID))
def test_links_are_the_sized_counts_and_the_cabling_plans_ends(name):
    result = plan(Design(**GRID[name]))
    wiring, f = Wiring.of(result), result.fabric
    links = [link for p, i in wiring.plane_islands() for link in wiring.links(p, i)]
    by_class = {kind: sum(1 for link in links if link.kind == kind) for kind in wiring.link_classes}
    assert by_class.get("node-leaf", 0) == f.node_leaf_links * f.planes
    assert by_class.get("leaf-spine", 0) == f.leaf_spine_links * f.planes
    assert by_class.get("spine-core", 0) == f.spine_core_links * f.planes
    cabled = [(kind, a, z, speed) for kind, a, _pa, z, _pz, speed in compute_links(result)]
    assert [(link.kind, link.a, link.b, link.speed_gbps) for link in links] == cabled
    down = {(link.b, link.b_port) for link in links}
    up = {(link.a, link.a_port) for link in links if link.kind != "node-leaf"}
    assert len(down) + len(up) == 2 * len(links) - by_class["node-leaf"]  # no switch port ordinal used twice


@pytest.mark.parametrize("name", sorted(GRID))
def test_bundles_are_the_graphs_edges(name):
    result = plan(Design(**GRID[name]))
    wiring = Wiring.of(result)
    graph = fabric_graph(result)
    bundles = [b for p, i in wiring.plane_islands() for b in wiring.bundles(p, i)]
    assert {frozenset((b.a, b.b)): b.count for b in bundles} == {frozenset((a, b)): d["links"]
                                                                  for a, b, d in graph.edges(data=True)}
    assert set(wiring.all_switch_ids()) | {wiring.node_id(n) for n in range(wiring.nodes)} == set(graph.nodes)
    for vertex in wiring.all_switch_ids():
        role, plane, island, k = wiring.parse(vertex)
        assert wiring.switch_id(role, k, plane, island) == vertex and graph.nodes[vertex]["role"] == role


def test_parse_refuses_what_is_not_a_switch_id():
    assert Wiring.parse("node3") is None and Wiring.parse("p0.leaf") is None and Wiring.parse("leaf3") is None
    assert Wiring.parse("p1.i2.core10") == ("core", 1, 2, 10)


def test_same_pattern_same_wiring_object():
    a = plan(Design(gpu="H100", nodes=64, switch="QM9700"))
    b = plan(Design(gpu="H100", nodes=64, switch="QM9700", oversubscription=1.0))
    assert Wiring.of(a) is Wiring.of(b)


@pytest.mark.parametrize("name", sorted(GRID))
def test_bundle_arrays_and_groups_are_the_bundles(name):
    wiring = Wiring.of(plan(Design(**GRID[name])))
    prefix = wiring.prefix(0, 0)
    for kind in wiring.link_classes:
        a_role, a, b_role, b, count = wiring.bundle_arrays(kind)
        a_ids = [wiring.node_id(k) if a_role == "node" else f"{prefix}{a_role}{k}" for k in a.tolist()]
        arrays = [(kind, x, f"{prefix}{b_role}{z}", c) for x, z, c in zip(a_ids, b.tolist(), count.tolist())]
        bundles = [(u.kind, u.a, u.b, u.count) for u in wiring.bundles() if u.kind == kind]
        if kind == "node-leaf":  # rail by rail: every node's first leaf, then every node's second...
            bundles = [bundles[n * (len(bundles) // wiring.nodes) + r]
                       for r in range(len(bundles) // wiring.nodes) for n in range(wiring.nodes)]
        assert arrays == bundles
    served = {}
    for bundle in wiring.bundles():
        if bundle.kind == "node-leaf":
            served.setdefault(wiring.group_of_node(int(bundle.a[4:])), []).append(bundle.b)
    for g in range(max(1, wiring.groups)):
        nodes = wiring.nodes_of_group(g)
        assert all(wiring.group_of_node(n) == g for n in nodes) and len(nodes) == wiring.group_nodes(g)
        assert sorted({f"{prefix}leaf{k}" for k in wiring.leaves_of_group(g)}) == sorted(set(served.get(g, [])))
    assert sum(len(wiring.nodes_of_group(g)) for g in range(max(1, wiring.groups))) == wiring.nodes

PATTERNED = {**GRID, **{name: PHYSICAL_GRID[name] for name in ("Dragonfly+ 1024", "classic Dragonfly 1024",
                                                                  "torus 64")}}


@pytest.mark.parametrize("name", sorted(PATTERNED))
def test_the_link_pattern_keeps_every_bundle_and_measures_the_same_lengths(name):
    """``Wiring.pattern`` (what the cable lengths are keyed by, ``core.physical.lengths.arranged_link_lengths``,
    where the family's wiring class has its own) has the wiring's link classes, planes and islands, bundles as
    arrays and repeating groups, so the lengths measured with it are the wiring's (a Dragonfly+'s global links
    too; a classic Dragonfly's and a torus's wiring measured as it is); two speeds of one design share one
    pattern."""
    import dataclasses

    import numpy as np

    from core.memo import uncached
    from core.physical.layout import arrange
    from core.physical.lengths import _END_PREFIXES, LinkEnds, _binned, _link_arrays, arranged_link_lengths
    from core.physical.racks import load_racks

    result = plan(Design(**PATTERNED[name]))
    wiring = Wiring.of(result)
    arrangement = arrange(result.resolved, result.fabric, result.networks)
    places = arrangement.places(_END_PREFIXES)
    with uncached():
        keyed = arranged_link_lengths(result.resolved, result.fabric, arrangement)
    assert keyed == _binned(_link_arrays(wiring, LinkEnds(places), load_racks().routing, places)) and keyed
    if getattr(type(wiring), "pattern", None) is None:
        return
    pattern = wiring.pattern()
    assert pattern.link_classes == wiring.link_classes and pattern.plane_islands() == wiring.plane_islands()
    for kind in wiring.link_classes:
        for x, y in zip(pattern.bundle_arrays(kind), wiring.bundle_arrays(kind), strict=True):
            assert x == y if isinstance(x, str) else np.array_equal(x, y)
        blocks, found = wiring.group_blocks(kind), pattern.group_blocks(kind)
        assert (blocks is None) == (found is None) and (blocks is None or blocks[:3] == found[:3])
        pairs, paired = wiring.pair_blocks(kind), pattern.pair_blocks(kind)  # the links between groups: the same
        assert (pairs is None) == (paired is None) and (pairs is None or (
            pairs[:3] == paired[:3] and all(np.array_equal(x, y) for x, y in zip(pairs[3:], paired[3:], strict=True))))
    clos = getattr(wiring, "clos", wiring)
    faster = dataclasses.replace(clos, port_gbps=2 * clos.port_gbps + 1, up_gbps=3 * clos.up_gbps + 1,
                                 leaf_uplinks=clos.leaf_uplinks + 1)
    assert faster != clos and faster.pattern() == clos.pattern() and hash(faster.pattern()) == hash(clos.pattern())


# --- one truth for device ids: no copy of the id rule outside core.fabric.wiring ---------------------------------
ID_RULE = re.compile(r"""
      p\{[^}]*\}\.                   # a plane prefix built by hand: f"p{plane}.", f"p{p}.i{i}."
    | \.i\{                          # an island part: ".i{island}."
    | [}.](?:leaf|spine|core)\{      # a switch id glued from its parts: f"{p}leaf{k}", f"p0.leaf{k}"
    | ^[rbuf]*["']node\{             # a server id: f"node{n}"
    | p\(?\\d\+\)?\\\.               # a regex reading a plane prefix: p(\d+)\. or p\d+\.
    | node(?:\(\\d\+\)|\\d\+)[|)$]     # a regex reading a whole server id: node(\d+)| or node\d+)
""", re.VERBOSE)
"""What a copy of the device-id rule (``Wiring.prefix``, ``switch_id``, ``node_id``, ``parse``) looks like in code."""
ROOT = Path(__file__).resolve().parent.parent
ID_RULE_OWNERS = {ROOT / "core/fabric/wiring.py", ROOT / "core/fabric/sizing.py", ROOT / "core/fabric/dragonfly.py"}
"""The modules that may spell device ids: the wiring itself and the topology families' wirings."""
ID_RULE_CHECKED = sorted(set((ROOT / "core").rglob("*.py")) - ID_RULE_OWNERS)
"""Every other file of core spells device ids only through ``core.fabric.wiring``."""


def _id_rule_copies(source: str) -> list[tuple[int, str]]:
    """``(line, literal)`` of each string or f-string of ``source`` that spells the device-id rule (docstrings and
    comments aside)."""
    tree = ast.parse(source)
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            inner.add(id(node.value))  # a docstring
        elif isinstance(node, ast.JoinedStr):
            inner.update(id(part) for part in node.values)
    literals = [node for node in ast.walk(tree) if id(node) not in inner and (
        isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str))]
    return [(node.lineno, text) for node in literals
            if ID_RULE.search(text := ast.get_source_segment(source, node) or "")]


@pytest.mark.parametrize("path", ID_RULE_CHECKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_device_ids_are_spelled_only_by_the_wiring(path):
    found = _id_rule_copies(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)} spells device ids itself (use core.fabric.wiring.Wiring): {found}"


def test_the_id_rule_check_catches_a_copy():
    """The checker finds each way the rule was copied before the wiring existed, and no look-alike."""
    copies = ['p = f"p{plane}." if islands == 1 else f"p{plane}.i{island}."\n',
              'vertex = f"{p}leaf{k}"\n', 'x = f"p0.i{i}.leaf{first + r}"\n', 'n = f"node{n}"\n',
              '_VERTEX = re.compile(r"^(?:node(\\d+)|p(\\d+)\\.(?:i(\\d+)\\.)?(leaf|spine|core)(\\d+))$")\n',
              '_ID = re.compile(r"^(?:node\\d+|p\\d+\\.(?:i\\d+\\.)?(?:leaf|spine|core)\\d+)$")\n']
    for line in copies:
        assert _id_rule_copies(line), line
    alike = ['"""Ids ``p{plane}.leaf{k}`` and ``node{n}``."""\n', 'where = f"p{plane + 1}-"\n',
             'leaf = f"leaf{bundle}.{r}"\n', 'nic = re.compile(r"^node(\\d+)\\.nic\\d+$")\n', 'x = f"servers{g}"\n']
    for line in alike:
        assert not _id_rule_copies(line), line


# --- every consumer on a topology family beyond the Clos (Dragonfly+) -------------------------------------------
DRAGONFLY = dict(gpu="H100", nodes=256, topology="dragonfly", switch="QM9700", group_leaves=16)


def test_dragonfly_is_cabled_port_by_port_with_its_global_links():
    from collections import Counter

    result = plan(Design(**DRAGONFLY))
    f = result.fabric
    kinds, ends = Counter(), Counter()
    for kind, a, a_port, z, z_port, _speed in compute_links(result):
        kinds[kind] += 1
        ends[z, z_port] += 1
        if kind != "node-leaf":
            ends[a, a_port] += 1
    assert kinds == {"node-leaf": f.node_leaf_links, "leaf-spine": f.leaf_spine_links, "global": f.global_links}
    assert max(ends.values()) == 1  # no switch port cabled twice (global links on the spines' up ports)


def test_dragonfly_graphs_exports_the_failure_what_if_and_the_analyses_that_say_they_do_not_model_it():
    from core.analysis.availability import availability
    from core.analysis.failure import what_if
    from core.analysis.spof import single_points
    from core.errors import InputError
    from core.fabric.topology import aggregated_graph
    from core.formats.exports import export_text, exports
    from core.formats.report import design_report_html

    result = plan(Design(**DRAGONFLY))
    graph = fabric_graph(result)
    spine_spine = sum(d["links"] for a, b, d in graph.edges(data=True)
                      if graph.nodes[a]["role"] == graph.nodes[b]["role"] == "spine")
    assert spine_spine == result.fabric.global_links
    drawn = aggregated_graph(result)
    assert sum(d["links"] for a, b, d in drawn.edges(data=True) if a.startswith("spines") and b.startswith("spines")) \
        + sum(d.get("global_inside", 0) for _v, d in drawn.nodes(data=True)) == result.fabric.global_links
    for name in exports():
        assert export_text(result, name)
    assert what_if(result, ["spine:1"]).gpus_disconnected == 0  # on the graph (tests/test_failure_dragonfly.py)
    assert single_points(result).count == 0  # on the graph (tests/test_spof_graph.py)
    assert availability(result, trials=10).elements["link"] > result.fabric.global_links  # tests/test_availability_dragonfly.py
    assert "global link bundle" in design_report_html(result, name="x", share_link="https://x.example/")
