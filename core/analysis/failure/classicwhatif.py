"""The failure what-if of a classic Dragonfly in closed form over its groups (``core.analysis.failure``).

The Dragonfly+'s closed form (``core.analysis.failure.dragonflywhatif``: its rules, terms and units) with routers
in the spines' place: a router (role ``leaf``) has its nodes, a local link to every other router of its group and
global links round robin over its group's routers (``core.fabric.classic_dragonfly``; the last group may have fewer
routers). So a touched group's live routers are joined by their live local links (all to all, less the local bundles
failed: ``p0.leaf0-leaf1``, one cable each); a live router joins ``U`` (the untouched groups) through a global link to an untouched group,
and a live router of another touched group through a bundle with a live cable. Bisection: the maximum flow between
the halves of the groups on the routers' network as wired (``dragonflywhatif._network``: every router fed at its
nodes' links [Gb/s], its local and global links at the uplink speed each). A router has no spine: its uplink and spine shares are 1 and it has no ECMP group, as on the
graph (``graphwhatif``, the reference, which ``tests/test_failure_dragonfly_closed.py`` compares over a grid).
"""

from __future__ import annotations

from collections import Counter


from core.analysis.failure.dragonflyglobal import spine_links
from core.analysis.failure.dragonflywhatif import (HEALTHY_WIRING, HealthyPlan, _connectivity, _Failed, _healthy_bytes,
                                                   _Model, _notes, bisection)
from core.analysis.failure.graphwhatif import _Net, resolve, result
from core.analysis.failure.switches import _Union
from core.analysis.failure.whatif import FailureResult, _nothing_failed
from core.memo import stage, view


class _Classic(_Model):
    """A classic Dragonfly's geometry and failures: ``_Model`` with routers at the global links' ends."""

    @staticmethod
    def _spines_per_group(w) -> int:
        return w.routers_per_group

    def group_of_switch(self, k: int) -> int:
        """Group of the router ``k`` at a global link's end."""
        return k // self.s

    def local_live(self, p: int, k: int, j: int) -> int:
        """Live cables of the local bundle between routers ``k`` and ``j`` of a group (both live)."""
        from core.analysis.failure.graphwhatif import LOCAL_CABLES

        return LOCAL_CABLES - (self.lost(p, "r", k, j, LOCAL_CABLES) if self.f.cables else 0)

    def router_globals(self, p: int, k: int) -> list[tuple[int, int, int]]:
        """``(far router, healthy cables, live cables)`` of router ``k``'s global bundles."""
        out = self._spine_globals.get((p, k))
        if out is None:
            out = []
            for far, links in spine_links(self.w, k).items():
                live = 0
                if self.leaf_live(p, k) and self.leaf_live(p, far):
                    live = links - (self.lost(p, "g", k, far, links) if self.f.cables else 0)
                out.append((far, links, live))
            self._spine_globals[p, k] = out
        return out


def _components(m: _Classic, p: int):
    """Switch components of plane ``p``: ``(union, root of the main part)``; vertices ``("l", router)`` of touched
    groups and ``"U"``; ties as ``dragonflywhatif._components``."""
    union = _Union()
    ports: Counter = Counter()
    first: dict = {}
    verts = []
    if m.untouched:
        verts.append(("U", sum(m.group_node_count(g) for g in m.untouched) * m.rails, m.leaves(m.untouched[0])[0]))
        union.find("U")
    for g in m.touched:
        live = [k for k in m.leaves(g) if m.leaf_live(p, k)]
        for i, k in enumerate(live):
            verts.append((("l", k), m.leaf_feeds(p, k)[2], k))
            for j in live[i + 1:]:  # local links: all to all, less the local bundles lost
                if m.local_live(p, k, j):
                    union.union(("l", k), ("l", j))
            for far, _links, n in m.router_globals(p, k):
                if n:
                    union.union(("l", k), "U" if m.group_of_switch(far) not in m.touched_set else ("l", far))
    for v, count, key in verts:
        root = union.find(v)
        ports[root] += count
        first[root] = min(first.get(root, key), key)
    main = max(ports, key=lambda r: (ports[r], -first[r])) if ports else None
    return union, main


def _stages(m: _Classic) -> dict:
    """``{stage: remaining [Gb/s]}``: the smaller half's NIC injection, the routers' uplinks to spines (none: 0, as
    on the graph), the global links across the halves."""
    inj = [0.0, 0.0]
    across = 0.0
    for p in range(m.planes):
        if p in m.f.planes:
            continue
        for g in m.untouched:
            inj[0 if m.first_half(g) else 1] += m.group_node_count(g) * m.rails * m.node_gbps
        lost_across = 0
        for g in m.touched:
            for k in m.leaves(g):
                a, b, _n = m.leaf_feeds(p, k)
                inj[0] += a
                inj[1] += b
                for far, links, live in m.router_globals(p, k):
                    fg = m.group_of_switch(far)
                    if m.first_half(g) != m.first_half(fg) and (fg not in m.touched_set or k < far):
                        lost_across += links - live
        if m.groups > 1:
            across += (m.first * (m.groups - m.first) * m.lam - lost_across) * m.up
    stages = {"injection": min(inj), "leaf_up": 0.0}
    if m.groups > 1:
        stages["global"] = across
    return stages


ClassicNet = view("ClassicNet", "", wiring=view("ClassicWiring", HEALTHY_WIRING + " routers_per_group",
                                                clos=view("ClassicClos", "leaves")), plan=HealthyPlan)
"""What ``healthy_measures`` reads of a classic Dragonfly's ``_Net`` (``core.memo.view``): the Dragonfly+'s
``HEALTHY_WIRING``, the routers of a full group and the routers in all (the last group's share)."""


@stage(0.001, _healthy_bytes, max_entries=256)
def healthy_measures(net: ClassicNet) -> dict:
    """``_stages`` of the healthy classic Dragonfly ``net`` (a ``ClassicNet`` view: cached by what it reads)."""
    return _stages(_Classic(net, _Failed()))


def what_if_closed(plan, failures, job=None) -> FailureResult:
    """``what_if`` of a classic Dragonfly in closed form over its groups (module docstring)."""
    net = _Net.of(plan)
    if not failures:
        raise _nothing_failed(net.wiring.switch_id("leaf", 0))
    elements = resolve(plan, failures, net)
    m = _Classic(net, _Failed.of(elements))
    c, _parts = _connectivity(m, _components)
    shares = (c["port_fraction"], 1.0, 1.0)
    healthy_stages, stages = healthy_measures(ClassicNet.of(net)), _stages(m)
    failed, healthy = bisection(plan, net.wiring, m.f)
    method = ("closed form over the Dragonfly groups; core.perf all-reduce (and all-to-all) of 1 GiB on the "
              f"connected GPUs; NIC rate scaled to the slowest connected node's surviving ports ({shares[0]:.3f}); "
              "bisection: max-flow between the halves on the routers' network as wired, failed / healthy")
    both = {k: (healthy_stages[k], stages[k]) for k in stages}
    return result(plan, elements, c, shares, (failed, healthy, both), [], _notes(m, c, shares, plan.fabric.family),
                  method, job)
