"""Link load on a Dragonfly+ (``core.analysis.load``): the global links' loads against explicit routing written
here on the networkx graph (minimal: a pair of groups' traffic spread over the global edges between them; Valiant:
through every other group alike), conservation under static ECMP, and Valiant's doubling."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from core.analysis.load import link_load, link_load_arrays
from core.design import Design
from core.errors import InputError
from core.fabric.topology import fabric_graph
from core.fabric.wiring import Wiring
from core.plan import plan

FOUR = Design(gpu="H100", nodes=128, topology="dragonfly", switch="QM9700", group_leaves=8)
"""4 groups of one SU (32 nodes, 8 leaves), one plane."""


@pytest.fixture(scope="module")
def four():
    return plan(FOUR)


def _explicit(p, arrays, valiant: bool) -> dict[tuple[str, str], float]:
    """``(spine a, spine b) -> load a->b`` [Gb/s] on every global link, each pair of groups' traffic (valiant:
    split over every intermediate group) spread evenly over the global edges between them on the graph."""
    g = fabric_graph(p)
    group = {v: d["pod"] for v, d in g.nodes(data=True) if d["role"] == "spine"}
    between: dict[tuple[int, int], list[tuple[str, str]]] = {}
    for a, b, e in g.edges(data=True):
        if g.nodes[a]["role"] == g.nodes[b]["role"] == "spine":
            for x, y in ((a, b), (b, a)):
                between.setdefault((group[x], group[y]), []).extend([(x, y)] * e["links"])
    w = Wiring.of(p)
    port_s, port_d, demand = arrays["pairs"]
    nics = p.resolved.nics_per_node
    groups = w.pods
    load: dict[tuple[str, str], float] = {}
    for ps, pd_, dem in zip(port_s.tolist(), port_d.tolist(), demand.tolist()):
        gs, gd = (w.pod_of_group(w.group_of_node(port // nics)) for port in (ps, pd_))
        if gs == gd:
            continue
        legs = [[(gs, gd)]] if not valiant else [[(gs, c), (c, gd)] for c in range(groups) if c not in (gs, gd)]
        for path in legs:
            for x, y in path:
                for link in between[x, y]:
                    load[link] = load.get(link, 0.0) + dem / len(legs) / len(between[x, y])
    return load


def _model(arrays) -> dict[tuple[str, str], float]:
    """``(spine a, spine b) -> load a->b`` [Gb/s] of the model's global rows under adaptive routing (the parallel
    links of a bundle summed)."""
    out: dict[tuple[str, str], float] = {}
    for direction in ("up", "down"):
        ar = arrays[("global", direction)][0]
        for i, value in enumerate(ar.tolist()):
            a, b = arrays["names"]("global", direction, i).split(" -> ")
            out[a, b] = out.get((a, b), 0.0) + value
    return out


@pytest.mark.parametrize(("pattern", "routing"), list(itertools.product(("uniform", "ring", "pp"),
                                                                         ("minimal", "valiant"))))
def test_adaptive_routing_equals_explicit_routing(four, pattern, routing):
    r, arrays = link_load_arrays(four, pattern, "rail", seed=2, global_routing=routing)
    explicit = _explicit(four, arrays, routing == "valiant")
    model = _model(arrays)
    for link in set(explicit) | set(model):
        assert math.isclose(model.get(link, 0.0), explicit.get(link, 0.0), rel_tol=1e-9, abs_tol=1e-6), link
    assert any(t.tier == "global" for t in r.tiers) and routing in r.method
    assert any("Valiant" in n for n in r.notes)


def test_valiant_doubles_the_global_load_and_ecmp_conserves_it(four):
    rows = {}
    for routing in ("minimal", "valiant"):
        r, arrays = link_load_arrays(four, "uniform", "rail", seed=5, global_routing=routing)
        rows[routing] = {t.direction: t for t in r.tiers if t.tier == "global"}
        total = [sum(arrays[("global", d)][i].sum() for d in ("up", "down")) for i in (0, 1, 2)]
        assert math.isclose(total[0], total[1], rel_tol=1e-9)  # every flow on exactly one link per leg
        assert total[2] > 0
    for direction in ("up", "down"):
        assert math.isclose(rows["valiant"][direction].offered_gbps, 2 * rows["minimal"][direction].offered_gbps,
                            rel_tol=0.05)


def test_bad_routing_and_clos_are_unchanged(four):
    with pytest.raises(InputError, match="routing between groups"):
        link_load(four, "ring", global_routing="random")
    clos = link_load(plan(Design(gpu="H100", nodes=128)), "uniform", "rail", seed=1)
    assert all(t.tier != "global" for t in clos.tiers) and "Dragonfly" not in clos.method
    assert np.isfinite(clos.ar.mean)


def test_heatmap_blocks_of_the_global_links_are_the_groups_sent_from(four):
    r = link_load(four, "uniform", "rail", seed=1)
    for direction, sender, silent in (("up", 0, 3), ("down", 3, 0)):  # up: from the lower group of a pair
        cells = {b["first"]: b for b in r.blocks if b["tier"] == "global" and b["direction"] == direction}
        assert sorted(cells) == [0, 1, 2, 3]
        assert cells[sender]["ar_max"] > 0 and cells[silent]["ar_max"] == 0
