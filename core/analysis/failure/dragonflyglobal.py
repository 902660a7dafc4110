"""The global bundles of a Dragonfly (Dragonfly+ or classic) counted from its circulant rule, without its graph
(``core.analysis.failure``).

Both families join groups ``a < b`` (offset ``d = b - a``) on ``lam`` links ``c = 0 .. lam-1``: port
``(d - 1) lam + c`` of ``a`` to port ``(g - d - 1) lam + c`` of ``b`` (``core.fabric.dragonfly.DragonflyWiring.
global_ends``, ``core.fabric.classic_dragonfly.DragonflyWiring.global_ends``), port ``q`` of a group on its switch
``q mod n`` (``n`` its switches with global ports: a Dragonfly+'s ``s`` spines; a classic Dragonfly's routers, fewer
in a partial last group), ``g`` groups. Seen from either end, port ``q`` of a group reaches the group
``d = q // lam + 1`` further on (mod ``g``) at its port ``(g - d - 1) lam + q mod lam``. These functions read that
rule; ``tests/test_failure_dragonfly_closed.py`` checks them against both wirings' ``bundles``.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from core.fabric.wiring import Wiring


def end_role(w) -> str:
    """The role of the switches at a global link's ends: ``spine`` (Dragonfly+) or ``leaf`` (a classic Dragonfly's
    routers)."""
    return "leaf" if "local" in w.link_classes else "spine"


def _geometry(w) -> tuple[int, int, int, int]:
    """``(groups, lam, switches per group, switches of the last group)`` of wiring ``w``."""
    if end_role(w) == "leaf":
        a = w.routers_per_group
        return w.pods, w.global_pair_links, a, w.clos.leaves - (w.pods - 1) * a
    return w.pods, w.global_pair_links, w.spines_per_pod, w.spines_per_pod


def pair_bundles(w, a: int, b: int) -> list[tuple[int, int, int]]:
    """``(switch of a, switch of b, links)`` of the global bundles between groups ``a < b`` (indices within a plane),
    in the wiring's ``bundles`` order."""
    groups, lam, n, last = _geometry(w)
    return [(a * n + x, b * n + y, k) for (x, y), k in
            _offset_bundles(groups, lam, n, last if b == groups - 1 else n, b - a)]


@lru_cache(maxsize=4096)
def _offset_bundles(groups: int, lam: int, na: int, nb: int, d: int) -> tuple:
    """``((local switch of the lower group, of the upper), links)`` of two groups ``d`` apart with ``na`` and ``nb``
    switches."""
    out: Counter = Counter()
    for c in range(lam):
        out[((d - 1) * lam + c) % na, ((groups - d - 1) * lam + c) % nb] += 1
    return tuple(out.items())


def global_bundle_count(w) -> int:
    """Global bundles of one plane (distinct switch pairs joined by global links)."""
    groups, lam, n, last = _geometry(w)
    return sum((groups - d - 1) * len(_offset_bundles(groups, lam, n, n, d))
               + len(_offset_bundles(groups, lam, n, last, d)) for d in range(1, groups))


def spine_links(w, j: int) -> dict[int, int]:
    """``{far switch: links}`` of the global links of switch ``j`` (a spine, or a classic router; an index within a
    plane)."""
    return dict(_spine_links(*_geometry(w), j))


@lru_cache(maxsize=65536)
def _spine_links(groups: int, lam: int, n: int, last: int, j: int) -> tuple:
    a, local = divmod(j, n)

    def size(group):
        return last if group == groups - 1 else n

    out: Counter = Counter()
    for q in range(local, (groups - 1) * lam, size(a)):
        d, c = divmod(q, lam)
        d += 1
        far = (a + d) % groups
        out[far * n + ((groups - d - 1) * lam + c) % size(far)] += 1
    return tuple(out.items())


def bundle_links(w, a: str, b: str) -> int:
    """Cables between switches ``a`` and ``b`` (device ids of one plane) of a Dragonfly+: a leaf and a spine of its
    group, or two spines of different groups (their global bundle); 0 if they are not cabled to each other."""
    pa, pb = Wiring.parse(a), Wiring.parse(b)
    if pa is None or pb is None or pa[1] != pb[1] or pb[0] != "spine":
        return 0
    if pa[0] == "leaf":
        return w.pair_links if pb[3] in w.spines_of_leaf(pa[3]) else 0
    if pa[0] != "spine" or pa[3] == pb[3]:
        return 0
    return spine_links(w, pa[3]).get(pb[3], 0)
