"""The global bundles of a Dragonfly+ counted from its circulant rule, without its graph (``core.analysis.failure``).

``core.fabric.dragonfly.DragonflyWiring.global_ends`` joins groups ``a < b`` (offset ``d = b - a``) on ``lam`` links
``c = 0 .. lam-1``: port ``(d - 1) lam + c`` of ``a`` to port ``(g - d - 1) lam + c`` of ``b``, port ``q`` on spine
``q mod s`` of its group (``g`` groups, ``s`` spines per group, ``lam`` links per group pair). Seen from either end,
port ``q`` of a group reaches the group ``d = q // lam + 1`` further on (mod ``g``) at its port
``(g - d - 1) lam + q mod lam``. These functions read that rule; ``tests/test_failure_dragonfly_closed.py`` checks
them against ``DragonflyWiring.bundles``.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from core.fabric.wiring import Wiring


def _geometry(w) -> tuple[int, int, int]:
    """``(groups, lam, spines per group)`` of wiring ``w``."""
    return w.pods, w.global_pair_links, w.spines_per_pod


def pair_bundles(w, a: int, b: int) -> list[tuple[int, int, int]]:
    """``(spine of a, spine of b, links)`` of the global bundles between groups ``a < b`` (spine indices within a
    plane), in ``DragonflyWiring.bundles`` order."""
    s = w.spines_per_pod
    return [(a * s + x, b * s + y, n) for (x, y), n in _offset_bundles(*_geometry(w), b - a)]


@lru_cache(maxsize=4096)
def _offset_bundles(groups: int, lam: int, s: int, d: int) -> tuple:
    """``((local spine of the lower group, local spine of the upper), links)`` of a pair of groups ``d`` apart."""
    out: Counter = Counter()
    for c in range(lam):
        out[((d - 1) * lam + c) % s, ((groups - d - 1) * lam + c) % s] += 1
    return tuple(out.items())


def global_bundle_count(w) -> int:
    """Global bundles of one plane (distinct spine pairs joined by global links)."""
    groups = w.pods
    return sum((groups - d) * len(_offset_bundles(*_geometry(w), d)) for d in range(1, groups))


def spine_links(w, j: int) -> dict[int, int]:
    """``{far spine: links}`` of the global links of spine ``j`` (an index within a plane)."""
    return dict(_spine_links(*_geometry(w), j))


@lru_cache(maxsize=65536)
def _spine_links(groups: int, lam: int, s: int, j: int) -> tuple:
    a, local = divmod(j, s)
    out: Counter = Counter()
    for q in range(local, (groups - 1) * lam, s):
        d, c = divmod(q, lam)
        d += 1
        out[(a + d) % groups * s + ((groups - d - 1) * lam + c) % s] += 1
    return tuple(out.items())


def bundle_links(w, a: str, b: str) -> int:
    """Cables between switches ``a`` and ``b`` (device ids of one plane): a leaf and a spine of its group, or two
    spines of different groups (their global bundle); 0 if they are not cabled to each other."""
    pa, pb = Wiring.parse(a), Wiring.parse(b)
    if pa is None or pb is None or pa[1] != pb[1] or pb[0] != "spine":
        return 0
    if pa[0] == "leaf":
        return w.pair_links if pb[3] in w.spines_of_leaf(pa[3]) else 0
    if pa[0] != "spine" or pa[3] == pb[3]:
        return 0
    return spine_links(w, pa[3]).get(pb[3], 0)
