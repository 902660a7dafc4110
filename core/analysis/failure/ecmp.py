"""ECMP of a failed design: upward groups that lost next hops (``core.analysis.failure``, "ECMP").
"""

from __future__ import annotations

from core.analysis.failure.shape import Shape
from core.analysis.failure.switches import _Fabric


def _ecmp(shape: Shape, fab: _Fabric):
    """Upward ECMP groups that lost some next hops; the worst live leaf's and spine's uplink share left."""
    s, dead = shape, fab.dead
    rows: dict = {}
    leaf_frac = spine_frac = 1.0
    if s.tiers >= 2:
        per = s.spines_per_pod if s.tiers == 3 else s.spines
        if s.tiers == 2:
            for (p, i), n_dead in fab.dead_spines_per_pi.items():
                if p in dead.planes or n_dead >= per:
                    continue
                live = s.leaves - sum(1 for q, j, _k in dead.leaves if (q, j) == (p, i))
                key = ("leaf", per, per - n_dead)
                rows[key] = rows.get(key, 0) + live
                leaf_frac = min(leaf_frac, (per - n_dead) / per)
        else:
            for (p, i, pod), n_dead in fab.dead_spines_per_pod.items():
                if p in dead.planes or n_dead >= per:
                    continue
                live = sum(1 for g in range(pod * s.groups_per_pod, min(s.groups, (pod + 1) * s.groups_per_pod))
                           for lr in range(s.leaves_per_group) if fab.leaf_alive(p, i, s.leaf_of(g, lr)))
                key = ("leaf", per, per - n_dead)
                rows[key] = rows.get(key, 0) + live
                leaf_frac = min(leaf_frac, (per - n_dead) / per)
    if s.tiers == 3:
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
    if s.tiers >= 2:
        per = s.spines_per_pod if s.tiers == 3 else s.spines
        for p, i, k in fab.leaf_lost:
            if not fab.leaf_alive(p, i, k):
                continue
            healthy, live = per * s.pair_links, fab.live_uplinks(p, i, k)
            if 0 < live < healthy:
                links[("leaf", healthy, live)] = links.get(("leaf", healthy, live), 0) + 1
                leaf_frac = min(leaf_frac, live / healthy)
    if s.tiers == 3:
        for p, i, k in fab.spine_up_lost:
            if not fab.spine_alive(p, i, k):
                continue
            healthy = s.spine_core_pairs[s.pod_of_spine(k)] * s.cores_per_group
            live = fab.live_spine_uplinks(p, i, k)
            if 0 < live < healthy:
                links[("spine", healthy, live)] = links.get(("spine", healthy, live), 0) + 1
                spine_frac = min(spine_frac, live / healthy)
    out += [{"tier": t, "switches": n, "healthy_paths": h, "remaining_paths": r, "unit": "links"}
            for (t, h, r), n in sorted(links.items())]
    return out, leaf_frac, spine_frac
