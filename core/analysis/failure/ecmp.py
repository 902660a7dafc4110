"""ECMP of a failed design: upward groups that lost next hops (``core.analysis.failure``, "ECMP").
"""

from __future__ import annotations

from core.analysis.failure.shape import Shape
from core.analysis.failure.switches import _Fabric


def _ecmp(shape: Shape, fab: _Fabric):
    """Upward ECMP groups that lost some next hops; the worst live leaf's and spine's uplink share left.

    A pod's leaves lost next hops when some (not all) of the pod's spines died, a core group's spines when some of
    its cores died (the failed state has no spines or cores where the fabric has none)."""
    s, dead = shape, fab.dead
    rows: dict = {}
    leaf_frac = spine_frac = 1.0
    for (p, i, pod), n_dead in fab.dead_spines_per_pod.items():
        per = fab.pod_spines
        if p in dead.planes or n_dead >= per:
            continue
        live = sum(1 for k in s.leaves_of_pod(pod) if fab.leaf_alive(p, i, k))
        key = ("leaf", per, per - n_dead)
        rows[key] = rows.get(key, 0) + live
        leaf_frac = min(leaf_frac, (per - n_dead) / per)
    for (p, i, j), n_dead in fab.dead_cores_per_group.items():
        if p in dead.planes or n_dead >= s.cores_per_group:
            continue
        live = sum(1 for pod in range(s.pods) if fab.spine_alive(p, i, pod * s.spines_per_pod + j))
        key = ("spine", s.cores_per_group, s.cores_per_group - n_dead)
        rows[key] = rows.get(key, 0) + live
        spine_frac = min(spine_frac, (s.cores_per_group - n_dead) / s.cores_per_group)
    out = [{"tier": t, "switches": n, "healthy_paths": h, "remaining_paths": r, "unit": "switches"}
           for (t, h, r), n in sorted(rows.items()) if n]
    # lost cables of uplink bundles: the switch hashes over fewer links
    links: dict = {}
    for p, i, k in fab.leaf_lost:
        if not fab.leaf_alive(p, i, k):
            continue
        healthy, live = len(s.spines_of_leaf(k)) * s.pair_links, fab.live_uplinks(p, i, k)
        if 0 < live < healthy:
            links[("leaf", healthy, live)] = links.get(("leaf", healthy, live), 0) + 1
            leaf_frac = min(leaf_frac, live / healthy)
    for p, i, k in fab.spine_up_lost:
        if not fab.spine_alive(p, i, k):
            continue
        healthy = s.core_pair_links(k) * len(s.cores_of_spine(k))
        live = fab.live_spine_uplinks(p, i, k)
        if 0 < live < healthy:
            links[("spine", healthy, live)] = links.get(("spine", healthy, live), 0) + 1
            spine_frac = min(spine_frac, live / healthy)
    out += [{"tier": t, "switches": n, "healthy_paths": h, "remaining_paths": r, "unit": "links"}
            for (t, h, r), n in sorted(links.items())]
    return out, leaf_frac, spine_frac
