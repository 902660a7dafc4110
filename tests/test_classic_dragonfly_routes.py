"""Minimal routing inside a Dragonfly group (``core.fabric.classic_dragonfly``; the link load's routes,
``core.analysis.loadlocal``) against networkx shortest paths on the wired graph.

Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008: the ``a`` routers of
a group are joined all to all (``a - 1`` local channels each), so a minimal route between two routers of one group
is the one local channel between them, 1 router-to-router hop (2 switches); between groups at most local, global,
local, 3 hops (4 switches); at most ``a h + 1`` groups.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.analysis.loadlocal import Local
from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import DesignError
from core.fabric import classic_dragonfly as cdf
from core.fabric.sizing import size_fabric
from core.fabric.wiring import wiring_of


def _wired(rails: int, p: int, a: int, nodes: int):
    design = Design(gpu="H100", gpus_per_node=rails, nics_per_node=rails, nodes=nodes, topology="classic-dragonfly",
                    switch="QM9700", su_nodes=p, group_leaves=a)
    f = size_fabric(resolve_design(design, load_catalog()))
    return f, wiring_of(f, nodes, rails)


def _router_graph(w) -> nx.Graph:
    g = nx.Graph()
    for b in w.bundles(0):
        if b.kind != "node-leaf":
            g.add_edge(b.a, b.b)
    return g


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rails=st.sampled_from([1, 2, 4]), p=st.integers(1, 4), sus=st.integers(1, 3), groups=st.integers(1, 5),
       short=st.integers(0, 3))
def test_minimal_route_inside_a_group_is_the_networkx_shortest_path(rails, p, sus, groups, short):
    a = rails * sus
    nodes = max(1, p * sus * groups - short)  # the last scalable unit, and so the last group, may be short
    try:
        f, w = _wired(rails, p, a, nodes)
    except DesignError:
        return  # a group its routers' ports cannot join all to all with the global ports it needs
    g = _router_graph(w)
    routers = [w.clos.switch_id("leaf", k) for k in range(w.clos.leaves)]
    g.add_nodes_from(routers)
    local = Local(w, None, None, 1.0, 1.0)
    for group in range(w.pods):
        members = np.array(w.routers_of_group(group))
        x, y = (v.ravel() for v in np.meshgrid(members, members))
        x, y = x[x != y], y[x != y]
        links, _up = local._ids(x, y)
        # the route the load model takes between two routers of a group is the local link joining them ...
        assert (np.minimum(local.first[links], local.second[links]) == np.minimum(x, y)).all()
        assert (np.maximum(local.first[links], local.second[links]) == np.maximum(x, y)).all()
        # ... one router-to-router hop, the shortest path on the wired graph (Kim et al.: one local channel)
        assert all(nx.shortest_path_length(g, routers[i], routers[j]) == 1 for i, j in zip(x.tolist(), y.tolist()))
    # switches a packet crosses inside a group: the two routers (one router alone: 1)
    assert cdf.hop_counts(w).same_group == (2 if len(w.routers_of_group(0)) > 1 else 1)
