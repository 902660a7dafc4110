"""Single points by brute force on the full networkx graph (every switch, one-cable switch-to-switch bundle and
NIC failed alone), shared by the single-points tests of the folded Clos, Dragonfly+ and the classic Dragonfly."""

from __future__ import annotations

import re

import networkx as nx

from core.fabric.topology import fabric_graph
from core.fabric.wiring import Wiring


def cut_off(g: nx.Graph) -> int:
    """Servers outside the connected part holding the most servers."""
    counts = [sum(1 for v in c if g.nodes[v]["role"] == "server") for c in nx.connected_components(g)]
    return sum(counts) - max(counts)


def brute(p) -> dict[str, int]:
    """Element name -> nodes cut off, every switch (a Dragonfly's routers are its leaves), one-cable
    switch-to-switch bundle and NIC failed alone; a bundle is named from its leaf end, then by number."""
    h = fabric_graph(p, servers="each")
    w = Wiring.of(p)
    out = {}
    for v, role in h.nodes(data="role"):
        if role != "server":
            g = h.copy()
            g.remove_node(v)
            out[v] = cut_off(g)
    for a, b, e in h.edges(data=True):
        roles = h.nodes[a]["role"], h.nodes[b]["role"]
        if "server" not in roles and e["links"] == 1:
            g = h.copy()
            g.remove_edge(a, b)
            lo, hi = sorted((a, b), key=lambda s: (h.nodes[s]["role"] != "leaf", int(re.search(r"\d+$", s)[0])))
            out[f"{lo}-{hi.split('.')[-1]}"] = cut_off(g)
    for n in range(w.nodes):
        for r in range(w.rails):
            g = h.copy()
            leaf = w.leaf_of(w.group_of_node(n), r)
            g.remove_edges_from((Wiring.node_id(n), w.switch_id("leaf", leaf, q)) for q in range(w.planes))
            out[f"{Wiring.node_id(n)}.nic{r}"] = cut_off(g)
    return {k: v for k, v in out.items() if v}
