"""Single points of failure of a torus (``core.fabric.torus``): closed forms over its rings, no switch.

``core.analysis.spof.single_points`` sends a plan whose family joins its nodes node to node
(``core.fabric.families.node_to_node``) here. A torus has no switch: what fails is a node (its GPUs and the
forwarding its rings run through), a NIC port (the one link it carries) and a link between two neighbours (a cable
of a bundle of ``w``, the torus's width). Every link lies in one ring, that of its dimension, and carries both ways
of it.

Closed forms (``L = w x neighbours`` links per node, ``core.fabric.torus.ports_per_vertex``):

* **Single points**: a torus of ``L >= 2`` links per node stays connected after any one link, NIC or node is lost
  (a k-ary n-cube's edge connectivity is ``L``: every node keeps ``L - 1`` links; its vertex connectivity is at least
  2 for any ring of 3 or more nodes), so the only single points are a rack's only power feed and, for ``L = 1``
  (two nodes joined by one link), that link and the NIC at each end (one node cut off, the other keeps the larger
  part). A rack's feed takes its rack's nodes, and the nodes they part from the larger rest: none while the rack
  holds fewer nodes than the torus's vertex connectivity (``connectivity``: Špacapan's formula for Cartesian
  products), else counted on the node graph (``cut_off``: a ring's rack of two nodes at positions 1 and ``k - 2``
  of the folded order parts it). ``tests/test_spof_torus.py`` checks it against networkx's articulation points and bridges
  of the node graph, and each blast radius against the failure what-if.
* **Degrading** (one row per class, never silently left out):
  - a link of dimension ``i`` (one row per dimension): with ``w >= 2`` its bundle keeps ``(w - 1) / w``, without a
    parallel link its ring runs as a line, one way per link pair: the ring collectives along that ring (its
    ``k_i`` nodes) at ``1 / slowdown`` (``core.fabric.torus.link_lost``); a link of any of the narrowest cut's
    dimensions (``cut_dimensions``: all three of a cube's) lowers the bisection to ``(B w - 1) / (B w)``
    (``B = bisection_links``): the balanced cut through its ring at that link; the other dimensions' keep it;
  - a NIC port carrying a link: that link lost (the cut dimension's, the worst);
  - a node: its own GPUs, and its ``rings`` rings (one per dimension) broken into lines for their other nodes.
  Each row's GPUs affected are those the failure what-if counts as degraded for its example
  (``core.fabric.torus.TorusWiring.degraded_nodes``: every node of a ring that lost a cable or a node).
"""

from __future__ import annotations

from core.analysis.failure import Shape
from core.fabric import torus
from core.fabric.wiring import Wiring, wiring_of
from core.i18n import N_, _

TORUS_NOTE = N_("A torus has no switch: the elements that fail are its nodes, their NIC ports and the links between "
                "neighbours, each link in the ring of its dimension and carrying both ways of it. With two or more "
                "links per node no one link, port or node cuts another node off; found in closed form over the "
                "rings (checked against the node graph on small tori).")
EFFECT_LABELS = {
    "ring_link": N_("breaks its ring of {gpus} GPUs into a line: the ring collectives along it run at {share} and "
                    "the bisection at {bisection} at worst; cuts off no GPU"),
    "ring_link:bisection_kept": N_("breaks its ring of {gpus} GPUs into a line: the ring collectives along it run "
                                   "at {share}; does not lower the bisection; cuts off no GPU"),
    "ring_lane": N_("lowers the links between its two nodes to {share}: the ring collectives along its ring of "
                    "{gpus} GPUs run at {share} and the bisection at {bisection} at worst; cuts off no GPU"),
    "ring_lane:bisection_kept": N_("lowers the links between its two nodes to {share}: the ring collectives along "
                                   "its ring of {gpus} GPUs run at {share}; does not lower the bisection; cuts off "
                                   "no GPU"),
    "torus_nic": N_("takes the link on its port: the ring collectives along that link's ring of {gpus} GPUs run at "
                    "{share} and the bisection at {bisection} at worst; cuts off no GPU"),
    "torus_node": N_("takes its own GPUs and breaks the rings through it into lines: their other {gpus} GPUs run "
                     "ring collectives at {share}; cuts off no other GPU"),
}
"""What one loss of a torus's class does (``core.analysis.spof.EFFECT_LABELS`` reads them)."""
REMEDY = N_("more NIC ports per node, so each neighbour is joined by two links or more")
"""The remedy of a torus's single link (``core.analysis.spof.REMEDY_LABELS``' ``torus_width``)."""


def single_points_torus(plan, degrading_common: tuple, feed_name) -> tuple[list[tuple[str, str, int, str]], tuple,
                                                                          tuple[str, ...]]:
    """The single points ``(element, tier, GPUs lost, remedy)``, the degrading rows (``degrading_common``, the scale-up
    domain's and the feeds' from ``core.analysis.spof``, then the torus's) and the notes of ``plan``'s torus;
    ``feed_name(rack)`` names a rack's only feed as the failure specs do."""
    from core.analysis.spof import Degrading  # it dispatches here

    fabric, r = plan.fabric, plan.resolved
    dims, width = fabric.torus_dims, fabric.torus_width
    w = wiring_of(fabric, r.nodes, r.nics_per_node)
    shape = Shape.build(plan)
    gpn = r.gpus_per_node
    per_node = width * torus.ports_per_vertex(dims)
    out: list[tuple[str, str, int, str]] = []
    kind, first, second = w.pair_arrays()
    if per_node == 1:  # two nodes, one link: it, and the NIC at each end, part them (one node outside the larger part)
        a, b = int(first[0]), int(second[0])
        out.append((f"{Wiring.node_id(min(a, b))}-{Wiring.node_id(max(a, b))}", "link", gpn, "torus_width"))
        for n in sorted((a, b)):
            out.append((f"{Wiring.node_id(n)}.nic0", "nic", gpn, "torus_width"))
    if shape.feeds == 1:
        kappa = connectivity(dims)
        for rack in range(shape.racks):
            start = rack * shape.nodes_per_rack
            nodes = min(shape.nodes_per_rack, shape.nodes - start)
            lost = nodes if nodes < kappa else nodes + cut_off(w, start, nodes)
            out.append((feed_name(rack), "feed", lost * gpn, "feed"))
    rows = list(degrading_common)
    if per_node > 1:
        healthy = torus.bisection_links(dims) * width
        cut = torus.cut_dimension(dims)
        for i in range(len(dims)):
            loss = torus.link_lost(dims, width, i)
            j = int((kind == i).argmax())
            a, b = sorted((int(first[j]), int(second[j])))
            example = f"{Wiring.node_id(a)}-{Wiring.node_id(b)}" + ("#0" if width > 1 else "")
            effect = "ring_lane" if width > 1 else "ring_link"
            rows.append(Degrading(tier="link", example=example, count=torus.dimension_links(dims)[i] * width,
                                  effect=effect, gpus_affected=len(w.degraded_nodes([(i, a)])) * gpn,
                                  share_left=1 / loss.ring_slowdown,
                                  bisection_share_left=loss.bisection_links / healthy))
        worst = torus.link_lost(dims, width, cut)
        port = w.port(cut, 1, 0)  # a port of the cut dimension's link: the example is the worst it says
        rows.append(Degrading(tier="nic", example=f"{Wiring.node_id(0)}.nic{port}", count=r.nodes * per_node,
                              effect="torus_nic", gpus_affected=len(w.degraded_nodes([(cut, 0)])) * gpn,
                              share_left=1 / worst.ring_slowdown,
                              bisection_share_left=worst.bisection_links / healthy))
        rows.append(Degrading(tier="node", example=Wiring.node_id(0), count=r.nodes, effect="torus_node",
                              gpus_affected=len(w.degraded_nodes((), [0])) * gpn, share_left=0.5))
    return out, tuple(rows), (_(TORUS_NOTE),)


def connectivity(dims: tuple[int, ...]) -> int:
    """Vertex connectivity of the torus ``dims``: the fewest nodes whose loss parts the others. A ring of ``k >= 3``
    nodes is 2-connected with degree 2, a dimension of 2 is an edge (1, 1); a Cartesian product ``G x H`` has
    ``min(k(G) |H|, k(H) |G|, d(G) + d(H))`` (S. Špacapan, "Connectivity of Cartesian products of graphs", Applied
    Mathematics Letters 21, 2008; ``d`` the least degree). ``tests/test_spof_torus.py`` checks it against
    networkx's ``node_connectivity``."""
    kappa, degree, size = 0, 0, 1
    for k in dims:
        ring_kappa = ring_degree = 2 if k > 2 else 1
        kappa = ring_kappa if size == 1 else min(kappa * k, ring_kappa * size, degree + ring_degree)
        degree += ring_degree
        size *= k
    return kappa


def cut_off(w, start: int, count: int) -> int:
    """Nodes outside the largest part of the torus of wiring ``w`` (``TorusWiring``) once its nodes ``start`` ..
    ``start + count - 1`` (a rack's) are lost: connected parts by label propagation over the live neighbour pairs
    (at most the diameter's rounds)."""
    import numpy as np

    _dims, a, b = w.pair_arrays()
    alive = np.ones(w.nodes, dtype=bool)
    alive[start:start + count] = False
    keep = alive[a] & alive[b]
    a, b = a[keep], b[keep]
    labels = np.arange(w.nodes)
    while True:
        low = np.minimum(labels[a], labels[b])
        new = labels.copy()
        np.minimum.at(new, a, low)
        np.minimum.at(new, b, low)
        new = new[new]  # pointer jumping: a label's own label
        if np.array_equal(new, labels):
            break
        labels = new
    sizes = np.bincount(labels[alive], minlength=w.nodes)
    return int(alive.sum() - sizes.max()) if alive.any() else 0
