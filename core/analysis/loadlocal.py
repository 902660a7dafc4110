"""Link load on the local links of a Dragonfly (``core.fabric.classic_dragonfly``): routers of a group joined all to
all, one local link between every two (``core.analysis.load`` sends a wiring with a ``local`` link class here).

Routes (per direction; ``core.analysis.load``'s load model: offered demand [Gb/s] per connection, one plane):

* **inside a group**: the local link between the two routers (minimal; Kim et al.'s one local hop);
* **across groups, minimal**: a local link from the source router to the router holding the global link to the
  destination group (none when it is the source router), the global link, a local link from the router at its far
  end to the destination router (none when it is that router); adaptive routing spreads a connection evenly over
  the ``lam`` global links of its group pair, so over their routers' local links; static ECMP takes the global
  link its flow was hashed onto (``core.analysis.load._Global.ecmp``) and so its local links;
* **across groups, Valiant**: local, global to an intermediate group ``C``, local in ``C`` (from the router where
  the first global link lands to the router holding the second), global, local; adaptive routing spreads it over
  every ``C`` alike (``g - 2`` of them) and every link of each pair.

A connection's share under adaptive routing is the smallest ``min(1, e C / D)`` over the local links its split can
take (the worst of its source router's links toward the pair's global links, of the destination router's from
them and, Valiant, the most loaded local link of any intermediate group: conservative). Under ECMP it is the
smallest along its one path. The local link ``i`` joins routers ``first[i] < second[i]`` (the wiring's
``bundle_arrays("local")`` order); direction ``up`` is from ``first`` to ``second``.

Cost: arrays of one entry per connection, per (global link, router of its group) pair (``4 g (g - 1) lam a / 2``)
and, Valiant, a batched product of ``g`` matrices of ``g x a`` (the intermediate groups' transit); no graph.
``tests/test_classic_dragonfly_analyses.py`` checks the loads against an explicit routing of every connection;
``tests/test_classic_dragonfly_routes.py`` the route inside a group against networkx shortest paths.
"""

from __future__ import annotations

import numpy as np

from core.analysis.load import _kappa as kappa


class Local:
    """The local links of one plane of a Dragonfly: loads and shares for the connections ``f``
    (``core.analysis.load._Flows``, indexed) under the group routing of ``glob`` (``core.analysis.load._Global``, or
    None with one group); ``cap`` [Gb/s] and ``eff`` the links' capacity and adaptive efficiency."""

    def __init__(self, w, f, glob, cap: float, eff: float):
        _role, self.first, _r, self.second, _c = w.bundle_arrays("local")
        self.n, self.f, self.glob, self.cap, self.eff = len(self.first), f, glob, cap, eff
        self.a = len(w.leaves_of_pod(0))  # routers of a full group (group G's: G a .. G a + a - 1)
        self.routers, self.groups = w.leaves, w.pods
        self.lid = np.full((self.routers, self.a), -1, dtype=np.int64)  # router, other's place in its group -> link
        ids = np.arange(self.n)
        self.lid[self.first, self.second % self.a] = ids
        self.lid[self.second, self.first % self.a] = ids

    def _ids(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Local link of each hop ``x[i] -> y[i]`` (two routers of one group, ``x != y``) and whether it runs up."""
        return self.lid.ravel()[x * self.a + y - (y // self.a) * self.a], x < y

    def _kappa(self, loads, x, y) -> np.ndarray:
        """Share each hop ``x -> y`` passes on ``loads`` (``min(1, e C / D)``)."""
        ids, up = self._ids(x, y)
        return kappa(np.where(up, loads[0][ids], loads[1][ids]), self.cap, self.eff)

    # ---------------------------------------------------------------------------- adaptive routing
    def _ends(self) -> np.ndarray:
        """``E[G, H, j]``: global links between groups ``G`` and ``H`` on router ``j`` of ``G`` (g x g x a)."""
        g, a, (first, second), ga, gb = self.groups, self.a, self.glob.ends, self.glob.a, self.glob.b
        e = np.zeros((g, g, a))
        np.add.at(e, (ga, gb, first % a), 1.0)
        np.add.at(e, (gb, ga, second % a), 1.0)
        return e

    def _by_group(self, out: np.ndarray, into: np.ndarray, e: np.ndarray) -> np.ndarray:
        """Loads [Gb/s] of the hops to and from the global links: ``M[G, y, x]`` on the local link from router
        ``y`` to router ``x`` of group ``G`` (places in the group), from ``out`` (router x destination group) spread
        over the pair's links (``out E / lam``, the source side) and ``into`` (source group x router) from them
        (``E^T into / lam``, the destination side)."""
        g, a, lam = self.groups, self.a, max(1, self.glob.lam)
        padded = np.zeros((g * a, g))
        padded[:self.routers] = out
        source = np.matmul(padded.reshape(g, a, g), e)
        padded = np.zeros((g, g * a))
        padded[:, :self.routers] = into
        dest = np.matmul(np.transpose(e, (0, 2, 1)), np.transpose(padded.reshape(g, g, a), (1, 0, 2)))
        return (source + dest) / lam

    def _transit(self, group_demand: np.ndarray, e: np.ndarray) -> np.ndarray:
        """Valiant transit through each intermediate group ``C``: ``M[C, y, x]`` [Gb/s] from a router where a global
        link lands to a router holding another (``E_C^T D E_C / ((g - 2) lam^2)``, ``E_C = E[C]``; ``D`` the group
        pairs' demand)."""
        g, a, lam = self.groups, self.a, max(1, self.glob.lam)
        spread = (group_demand @ np.transpose(e, (1, 0, 2)).reshape(g, g * a)).reshape(g, g, a)  # one product: D E_C
        return np.matmul(np.transpose(e, (0, 2, 1)), np.transpose(spread, (1, 0, 2))) / ((g - 2) * lam * lam)

    def adaptive(self, ar_share: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Adaptive routing: the per-link loads up and down [Gb/s]; ``ar_share`` lowered in place (module
        docstring)."""
        f, g, a = self.f, self.groups, self.a
        m = np.zeros((g, a, a))  # load of the hop from place y to place x of group G
        inside = np.flatnonzero(f.cross & ~f.cross_pod)
        s, d = f.leaf_s[inside], f.leaf_d[inside]
        np.add.at(m, (s // a, s % a, d % a), f.demand[inside])
        transit = None
        if self.glob is not None and len(self.glob.x):
            x, e = self.glob.x, self._ends()
            out, into = np.zeros((self.routers, g)), np.zeros((g, self.routers))
            np.add.at(out, (f.leaf_s[x], f.pod_d[x]), f.demand[x])
            np.add.at(into, (f.pod_s[x], f.leaf_d[x]), f.demand[x])
            if self.glob.valiant:  # a router's traffic to B goes via every C alike: toward C, what is not for C
                demand = np.zeros((g, g))
                np.add.at(demand, (f.pod_s[x], f.pod_d[x]), f.demand[x])
                out = (out.sum(axis=1)[:, None] - out) / (g - 2)
                into = (into.sum(axis=0)[None, :] - into) / (g - 2)
                own = np.arange(self.routers)
                out[own, own // a] = 0.0  # never through its own group
                into[own // a, own] = 0.0
                transit = self._transit(demand, e)
                m += transit
            m += self._by_group(out, into, e)
        m[:, np.arange(a), np.arange(a)] = 0.0
        k = kappa(m, self.cap, self.eff)
        ar_share[inside] = np.minimum(ar_share[inside], k[s // a, s % a, d % a])
        if transit is not None or (self.glob is not None and len(self.glob.x)):
            self._inter_share(ar_share, k, transit)
        first, second = self.first, self.second
        group, i, j = first // a, first % a, second % a
        return m[group, i, j], m[group, j, i]

    def _inter_share(self, ar_share: np.ndarray, k: np.ndarray, transit) -> None:
        """Lower ``ar_share`` of the connections between groups to the worst local link their split can take
        (``k[G, y, x]``: the share the hop from place ``y`` to ``x`` of group ``G`` passes)."""
        f, x, a, lam = self.f, self.glob.x, self.a, max(1, self.glob.lam)
        s, d, ga, gb = f.leaf_s[x], f.leaf_d[x], f.pod_s[x], f.pod_d[x]
        if self.glob.valiant:  # any intermediate group: toward (from) any global link, any group's transit
            share = np.minimum(k.min(axis=2)[ga, s % a], k.min(axis=1)[gb, d % a])
            by_group = np.where(transit > 0, k, 1.0).min(axis=(1, 2))
            share = np.minimum(share, _worst_other(by_group, ga, gb))
        else:  # the pair's lam links: from the source router to each one's end, from the other end to the target
            first, second = self.glob.ends
            link = self.glob._pair(ga, gb)[:, None] * lam + np.arange(lam)[None, :]
            up = (ga < gb)[:, None]
            leave, land = np.where(up, first[link], second[link]), np.where(up, second[link], first[link])
            share = np.minimum(k[ga[:, None], (s % a)[:, None], leave % a],
                               k[gb[:, None], land % a, (d % a)[:, None]]).min(axis=1)
        ar_share[x] = np.minimum(ar_share[x], share)

    # ---------------------------------------------------------------------------- static ECMP
    def ecmp(self, fl: np.ndarray, fdem: np.ndarray, ecmp_share: np.ndarray) -> dict:
        """Static ECMP: every crossing flow ``fl`` (a connection index per flow, ``fdem`` its demand [Gb/s]) on the
        local links of its one path (the global links ``glob.ecmp`` hashed it onto); ``ecmp_share`` lowered in
        place. Returns ``direction -> (load [Gb/s], flows)`` per link."""
        f = self.f
        s, d = f.leaf_s[fl], f.leaf_d[fl]
        inside = np.flatnonzero(~f.cross_pod[fl])
        hops = [(s[inside], d[inside], inside)]
        if self.glob is not None and self.glob.chosen:
            sel, ends = self.glob.sel, self.glob.ends
            current = s[sel]
            for link, up in self.glob.chosen:  # leave by the link's router on this side, land on the other's
                leave, land = np.where(up, ends[0][link], ends[1][link]), np.where(up, ends[1][link], ends[0][link])
                hops.append((current, leave, sel))
                current = land
            hops.append((current, d[sel], sel))
        hops = [(x[x != y], y[x != y], flow[x != y]) for x, y, flow in hops]
        loads = {"up": (np.zeros(self.n), np.zeros(self.n, dtype=np.int64)),
                 "down": (np.zeros(self.n), np.zeros(self.n, dtype=np.int64))}
        for x, y, flow in hops:
            ids, up = self._ids(x, y)
            for direction, on in (("up", up), ("down", ~up)):
                load, flows = loads[direction]
                load += np.bincount(ids[on], weights=fdem[flow][on], minlength=self.n)
                flows += np.bincount(ids[on], minlength=self.n)
        pair = (loads["up"][0], loads["down"][0])
        for x, y, flow in hops:
            np.minimum.at(ecmp_share, flow, self._kappa(pair, x, y))
        return loads


def _worst_other(by_group: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per connection from group ``a`` to ``b``, the least of ``by_group`` over the other groups (its three smallest
    values suffice: at most two are ``a`` or ``b``)."""
    order = np.argsort(by_group, kind="stable")[:3]
    out = np.ones(len(a))
    done = np.zeros(len(a), dtype=bool)
    for c in order.tolist():
        take = ~done & (a != c) & (b != c)
        out[take] = by_group[c]
        done |= take
    return out
