"""Dragonfly+ groups placed apart in the rack layout (``core.physical.layout``): each group's SU rows together with
a row of its own spines after them, no row holding two groups, and the global links' lengths and media following
(longer than inside a group; optics where copper no longer reaches)."""

from __future__ import annotations

import pytest

from core.design import Design
from core.fabric.wiring import Wiring
from core.physical.lengths import link_arrays
from core.plan import plan

FOUR = Design(gpu="H100", nodes=256, topology="dragonfly", switch="QM9700", group_leaves=16)
"""4 groups of 2 SUs, 16 spines each."""


@pytest.fixture(scope="module")
def four():
    return plan(FOUR)


def test_each_group_has_rows_of_its_own_with_its_spines_after_its_sus(four):
    w, layout = Wiring.of(four), four.layout
    rows_of = []
    for pod in range(w.pods):
        nodes = [n for su in range(pod * w.groups_per_pod, (pod + 1) * w.groups_per_pod) for n in w.nodes_of_group(su)]
        node_rows = {layout.position(Wiring.node_id(n)).row for n in nodes}
        spine_rows = {layout.position(w.switch_id("spine", k, 0)).row for k in w.spines_of_pod(pod)}
        leaf_rows = {layout.position(w.switch_id("leaf", k, 0)).row for k in w.leaves_of_pod(pod)}
        assert leaf_rows <= node_rows and max(node_rows) < min(spine_rows)
        rows = node_rows | spine_rows
        assert rows == set(range(min(rows), max(rows) + 1))  # together, nothing between
        rows_of.append(rows)
    for a in range(len(rows_of)):
        for b in range(a + 1, len(rows_of)):
            assert not rows_of[a] & rows_of[b]


def test_global_links_are_longer_than_inside_a_group_and_choose_optics(four):
    arrays = link_arrays(four.resolved, four.fabric, four.layout)
    glob, inside = arrays["global"][0], arrays["node-leaf"][0]
    assert glob.mean() > inside.mean() and glob.min() > 5.0  # rows apart: beyond an active copper cable's 5 m
    items = [r.item for r in four.bom if "(global" in r.item]
    assert items and not any("copper" in i.lower() for i in items)


def test_the_folded_clos_keeps_its_central_rows():
    p = plan(Design(gpu="H100", nodes=256, switch="QM9700"))
    w = Wiring.of(p)
    spine_rows = {p.layout.position(w.switch_id("spine", k, 0)).row for k in range(w.spines)}
    node_rows = {p.layout.position(Wiring.node_id(n)).row for n in range(w.nodes)}
    assert min(node_rows) < min(spine_rows) and max(spine_rows) < max(node_rows)  # in the middle of the SU rows
