"""Switch components of a failed design (``core.analysis.failure``, "Cut off" and "Link bundles").

``_Fabric`` answers, per leaf, which switch component it belongs to, at pod / leaf granularity: a leaf
reaches its plane's spines while one of them lives; pods join through core groups with a live core and
live spine j in both; lost bundles are joined by a union over the plane's spines and cores.
"""

from __future__ import annotations

from core.analysis.failure.dead import Dead
from core.analysis.failure.shape import Shape, _pair_links


class _Union:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        parent = self.parent
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


class _Fabric:
    """Switch-level state of a failed design, answered per leaf at pod / leaf granularity."""

    def __init__(self, shape: Shape, dead: Dead):
        self.shape, self.dead, w = shape, dead, shape.wiring
        self.pod_spines = len(w.spines_of_pod(0))
        """Spines of a pod (every pod has as many; every spine with two tiers, none with one)."""
        self.has_cores = "core" in w.roles
        self.dead_spines_per_pod: dict = {}  # (p, i, pod) -> count (pod 0 with two tiers: every spine)
        for p, i, k in dead.spines:
            pod = shape.pod_of_spine(k)
            self.dead_spines_per_pod[(p, i, pod)] = self.dead_spines_per_pod.get((p, i, pod), 0) + 1
        self.dead_cores_per_group: dict = {}
        for p, i, k in dead.cores:
            j = k // max(1, shape.cores_per_group)
            self.dead_cores_per_group[(p, i, j)] = self.dead_cores_per_group.get((p, i, j), 0) + 1
        self.pod_root: dict = {}  # (p, i) -> {pod: root} for touched planes in three tiers
        if self.has_cores:
            touched = {(p, i) for p, i, _k in dead.spines} | {(p, i) for p, i, _k in dead.cores}
            for pi in touched:
                self.pod_root[pi] = self._pod_components(*pi)
        # link bundles: cables lost per leaf (to which spine) and per spine (to which core, from which leaf)
        self.leaf_lost: dict = {}  # (p, i, leaf) -> [(spine, cables lost)]
        self.spine_down_lost: dict = {}  # (p, i, spine) -> [(leaf, cables lost)]
        self.spine_up_lost: dict = {}  # (p, i, spine) -> [(core, cables lost)]
        self.cut_leaf_spine: set = set()  # (p, i, leaf, spine) whose whole bundle is lost
        self.cut_spine_core: set = set()
        for (p, i, a, b), cables in dead.bundles.items():
            self.leaf_lost.setdefault((p, i, a), []).append((b, len(cables)))
            self.spine_down_lost.setdefault((p, i, b), []).append((a, len(cables)))
            if len(cables) >= shape.pair_links:
                self.cut_leaf_spine.add((p, i, a, b))
        for (p, i, a, b), cables in dead.core_bundles.items():
            self.spine_up_lost.setdefault((p, i, a), []).append((b, len(cables)))
            if len(cables) >= _pair_links(shape, "sc", a):
                self.cut_spine_core.add((p, i, a, b))
        self.bundle_root: dict = {}  # (p, i) -> {("L", pod) | ("k", leaf): root} where whole bundles are lost
        for pi in {(p, i) for p, i, _a, _b in self.cut_leaf_spine} | {(p, i) for p, i, _a, _b in self.cut_spine_core}:
            if pi[0] not in dead.planes:
                self.bundle_root[pi] = self._bundle_components(*pi)

    def leaf_alive(self, p: int, i: int, k: int) -> bool:
        return p not in self.dead.planes and (p, i, k) not in self.dead.leaves

    def spine_alive(self, p, i, k) -> bool:
        return p not in self.dead.planes and (p, i, k) not in self.dead.spines

    def live_uplinks(self, p: int, i: int, k: int) -> int:
        """Uplinks of leaf ``k`` to live spines (the leaf itself assumed alive)."""
        s = self.shape
        pod = s.pod_of_leaf(k)
        per = self.pod_spines  # none with one tier: no uplinks
        dead = self.dead_spines_per_pod.get((p, i, pod), 0)
        lost = sum(n for sp, n in self.leaf_lost.get((p, i, k), ()) if self.spine_alive(p, i, sp))
        return (per - dead) * s.pair_links - lost

    def live_spine_uplinks(self, p: int, i: int, k: int) -> int:
        """Cables of spine ``k`` to live cores of its group (the spine itself assumed alive)."""
        s = self.shape
        pair = s.core_pair_links(k)
        alive = [c for c in s.cores_of_spine(k) if (p, i, c) not in self.dead.cores]
        lost = sum(n for c, n in self.spine_up_lost.get((p, i, k), ()) if (p, i, c) not in self.dead.cores)
        return len(alive) * pair - lost

    def _bundle_components(self, p: int, i: int) -> dict:
        """Switch components of a plane that lost whole bundles (module docstring: blocks per pod / core group)."""
        s, dead = self.shape, self.dead
        union = _Union()
        cut_leaves: dict = {}
        for pp, ii, a, b in self.cut_leaf_spine:
            if (pp, ii) == (p, i):
                cut_leaves.setdefault(a, set()).add(b)
        dead_here = {k for pp, ii, k in dead.leaves if (pp, ii) == (p, i)}
        out: dict = {}
        for pod in range(s.pods):
            spines = [sp for sp in s.spines_of_pod(pod) if self.spine_alive(p, i, sp)]
            leaves = len(s.leaves_of_pod(pod))
            mine = {k for k in cut_leaves if s.pod_of_leaf(k) == pod}
            dead_pod = {k for k in dead_here if s.pod_of_leaf(k) == pod}
            if leaves - len(mine | dead_pod) > 0 and spines:
                for sp in spines:
                    union.union(("L", pod), ("s", sp))
                out[("L", pod)] = ("L", pod)
            for k in mine - dead_pod:
                union.find(("k", k))
                for sp in spines:
                    if sp not in cut_leaves[k]:
                        union.union(("k", k), ("s", sp))
                out[("k", k)] = ("k", k)
        if self.has_cores:
            cut_spines: dict = {}
            for pp, ii, a, b in self.cut_spine_core:
                if (pp, ii) == (p, i):
                    cut_spines.setdefault(a, set()).add(b)
            for j in range(s.spines_per_pod):
                cores = [c for c in s.cores_of_spine(j) if (p, i, c) not in dead.cores]  # core group j
                if not cores:
                    continue
                live = [pod * s.spines_per_pod + j for pod in range(s.pods)
                        if self.spine_alive(p, i, pod * s.spines_per_pod + j)]
                untouched = [sp for sp in live if sp not in cut_spines]
                if untouched:
                    for c in cores:
                        union.union(("C", j), ("c", c))
                    for sp in untouched:
                        union.union(("C", j), ("s", sp))
                for sp in live:
                    for c in cores:
                        if sp in cut_spines and c not in cut_spines[sp]:
                            union.union(("s", sp), ("c", c))
        return {key: union.find(key) for key in out}

    def _pod_components(self, p: int, i: int) -> dict:
        s = self.shape
        union = _Union()
        for pod in range(s.pods):
            union.find(pod)
        for j in range(s.spines_per_pod):
            if self.dead_cores_per_group.get((p, i, j), 0) >= s.cores_per_group:
                continue
            alive_pods = [pod for pod in range(s.pods) if (p, i, pod * s.spines_per_pod + j) not in self.dead.spines]
            for pod in alive_pods[1:]:
                union.union(alive_pods[0], pod)
        return {pod: union.find(pod) for pod in range(s.pods)}

    def label(self, p: int, i: int, k: int):
        """The switch component leaf ``k`` of plane ``p``, island ``i`` belongs to (None: leaf dead)."""
        if not self.leaf_alive(p, i, k):
            return None
        if not self.pod_spines:  # one tier: one switch per plane and island
            return ("f", p, i)
        pod = self.shape.wiring.pod_of_leaf(k)
        if self.dead_spines_per_pod.get((p, i, pod), 0) >= self.pod_spines:
            return ("l", p, i, k)
        bundles = self.bundle_root.get((p, i))
        if bundles is not None:
            root = bundles.get(("k", k)) or bundles.get(("L", pod))
            return ("b", p, i, root) if root is not None else ("l", p, i, k)
        if not self.has_cores:
            return ("f", p, i)
        roots = self.pod_root.get((p, i))
        return ("f", p, i, roots[pod] if roots else 0)
