"""Availability of a Dragonfly+ (``core.analysis.availability``): the global links read from the wiring, the
Monte Carlo against a brute-force enumeration of every switch state of small designs (job fraction and expected
bandwidth share in closed sums), and the global links' share lowering the bandwidth."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from core.analysis.availability import ClassRate, availability, default_rates, element_counts, shape_of, wiring
from core.design import Design
from core.fabric.topology import fabric_graph
from core.plan import plan

SMALL = [Design(gpu="H100", topology="dragonfly", switch="QM9700", nodes=150, group_leaves=1, nics_per_node=1,
                global_ratio=1.0, oversubscription=8.0),
         Design(gpu="H100", topology="dragonfly", switch="QM9700", nodes=100, group_leaves=1, nics_per_node=1,
                global_ratio=0.25, oversubscription=8.0)]
"""3 groups of one leaf and one spine (84 global links), 2 groups (14): few enough switches to enumerate."""


def _switch_only(q: float) -> dict[str, ClassRate]:
    """Rates where only switches fail, down with probability ``q``."""
    rates = default_rates()
    zero = {"afr": 0.0, "mttr_hours": 1.0}
    r = q / (1 - q)  # q = r / (1 + r)
    return {**{k: rates[k].model_copy(update=zero) for k in ("gpu_node", "nic", "link")},
            "switch": rates["switch"].model_copy(update={"afr": r * 8760.0, "mttr_hours": 1.0})}


def _brute(shape, q: float, need_nodes: int) -> tuple[float, float, float]:
    """(P(usable nodes >= need_nodes), E[bandwidth share], its standard deviation) over every switch state."""
    link_leaf, up_spine, _core = wiring(shape)
    ends = np.asarray(shape.global_links).T
    leaves, spines = shape.leaves, shape.spines
    p_run = e_share = e_sq = 0.0
    for state in itertools.product((False, True), repeat=leaves + spines):
        down = np.array(state)
        leaf_down, spine_down = down[:leaves], down[leaves:]
        weight = q ** down.sum() * (1 - q) ** (len(down) - down.sum())
        usable = (~leaf_down[link_leaf]).all(axis=1).sum()
        ls = (~leaf_down[:, None] & ~spine_down[up_spine]).mean()
        glob = (~spine_down[ends[0]] & ~spine_down[ends[1]]).mean()
        share = min(ls, glob)
        p_run += weight * (usable >= need_nodes)
        e_share += weight * share
        e_sq += weight * share * share
    return p_run, e_share, math.sqrt(max(0.0, e_sq - e_share ** 2))


@pytest.mark.parametrize("design", SMALL, ids=("3groups", "2groups"))
def test_global_links_are_the_graphs(design):
    p = plan(design)
    shape = shape_of(p)
    g = fabric_graph(p)
    spine_edges = sum(e["links"] for a, b, e in g.edges(data=True)
                      if g.nodes[a]["role"] == g.nodes[b]["role"] == "spine")
    assert len(shape.global_links) == spine_edges == p.fabric.global_links * p.fabric.planes
    s = shape.spines_per_pod
    assert all(a // s != b // s for a, b in shape.global_links)  # between groups, never inside one
    assert element_counts(shape)["link"] == (shape.nodes * shape.links_per_node + shape.leaves * shape.leaf_uplinks
                                             + len(shape.global_links))


@pytest.mark.parametrize("design", SMALL, ids=("3groups", "2groups"))
def test_monte_carlo_equals_brute_force(design):
    p = plan(design)
    shape = shape_of(p)
    q, trials = 0.2, 20_000
    need = shape.nodes - shape.nodes_per_group  # one leaf may be down
    exact_run, exact_share, sd = _brute(shape, q, need)
    a = availability(p, job_gpus=need * shape.gpus_per_node, trials=trials, seed=3, rates=_switch_only(q))
    assert abs(a.job_run_fraction - exact_run) <= 4 * math.sqrt(exact_run * (1 - exact_run) / trials)
    assert abs(a.expected_bandwidth_share - exact_share) <= 4 * sd / math.sqrt(trials) + 1e-9
    assert "global links" in a.method


def test_global_links_lower_the_share():
    """With only links failing, the share is the smallest tier's: the global links' too."""
    p = plan(SMALL[0])
    shape = shape_of(p)
    rates = default_rates()
    zero = {"afr": 0.0, "mttr_hours": 1.0}
    only_links = {**{k: rates[k].model_copy(update=zero) for k in ("gpu_node", "nic", "switch")},
                  "link": rates["link"].model_copy(update={"afr": 0.25 / 0.75 * 8760.0, "mttr_hours": 1.0})}
    with_global = availability(shape, trials=2000, seed=1, rates=only_links).expected_bandwidth_share
    without = availability(shape.model_copy(update={"global_links": ()}), trials=2000, seed=1,
                           rates=only_links).expected_bandwidth_share
    assert with_global < without
