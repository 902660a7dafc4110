"""The core tier of the link load over pods on three tiers (``core.fabric.podcore``): every pod's own spines' uplinks
to the shared cores, for ``core.analysis.loadpods`` (its module docstring: the patterns, the demand, the leaf tiers).

* **Planes**: per-port planes compute plane 0 (``core.analysis.loadpods``); per-rail planes compute every plane
  together, each pod's own spines and the cores island by island (a flow stays in its plane: the leaves at both ends
  are in the receiver's plane), so every count below is per plane.
* **Links**: own spine ``j`` of pod ``p`` has ``U_p`` uplinks at the pod's uplink speed [Gb/s per direction],
  ``U_p / C`` to each of the ``C`` cores of its group ``j mod G`` (``PodsWiring.cores_of_spine``; uplink ``x`` to
  the group's core ``x // (U_p / C)``). Spine-core link ids are the wiring's (``pod2.p0.spine0 -> core1#0``).
* **Paths**: a flow between two leaves of one pod turns at one of the pod's spines (the leaf tiers only); a flow
  between pods climbs a spine of its pod, a core of that spine's group and a spine of the destination pod in the
  same group (``j' mod G = j mod G``), then the destination leaf's link from that spine.
* **Adaptive routing** spreads each leaf's upward traffic evenly over its uplinks, so each of a pod's ``N_p`` spines
  gets ``1/N_p`` of the traffic leaving the pod and spreads it evenly over its ``U_p`` core uplinks: a link's load is
  the pod's traffic to the other pods over ``N_p x U_p``, and down, the other pods' traffic into the pod over
  ``N_q x U_q`` (the core layer passes it: every core has a port for every uplink).
* **Static ECMP** hashes each flow between pods onto one of its spine's core uplinks (so one core), one spine of the
  destination pod in the group and one of that spine's parallel links from the core (seeded).
"""

from __future__ import annotations

import numpy as np

from core.analysis.load import _kappa


def spine_arrays(fab) -> None:
    """Set on ``fab`` (a ``core.analysis.loadpods._Fabric`` of pods on three tiers) the arrays of every pod's own
    spines, pod by pod and in a pod island by island (per-rail planes: each plane's own spines; else one island):
    ``spine_pod``, ``spine_local`` (``island x own spines + j``), ``spine_U`` (core uplinks), ``spine_cpair`` (links to
    each core of its group), ``spine_link0`` (its first core uplink's id), ``spine_key`` (its pod and island, ``pod x
    islands + island``), ``core_link_cap`` [Gb/s] per core uplink, ``pod_spine0`` (each pod's first spine) and
    ``pod_core_links`` (where each pod's core uplinks start, and one past the last pod's)."""
    pods = fab.mixed.fabric.pods
    own = np.array([pod.own_spines for pod in pods])
    counts = own * fab.islands
    fab.pod_spine0 = np.concatenate([[0], np.cumsum(counts)[:-1]])
    fab.spine_pod = np.repeat(np.arange(len(pods)), counts)
    fab.spine_local = np.arange(counts.sum()) - fab.pod_spine0[fab.spine_pod]
    fab.spine_key = fab.spine_pod * fab.islands + fab.spine_local // own[fab.spine_pod]
    fab.spine_U = np.repeat([pod.spine_uplinks for pod in pods], counts)
    fab.spine_cpair = np.repeat([pod.links_per_spine_core_pair for pod in pods], counts)
    fab.spine_link0 = np.concatenate([[0], np.cumsum(fab.spine_U)[:-1]])
    fab.core_link_cap = np.repeat(np.repeat([float(pod.uplink_speed_gbps) for pod in pods], counts), fab.spine_U)
    fab.pod_core_links = np.concatenate([[0], np.cumsum(counts * [pod.spine_uplinks for pod in pods])])


def core_name(fab, direction: str, idx: int) -> str:
    """Name of spine-core link ``idx`` in ``direction`` with the wiring's ids (module docstring)."""
    w = fab.wiring
    spine = int(np.searchsorted(fab.spine_link0, idx, side="right") - 1)
    pod, pair = int(fab.spine_pod[spine]), int(fab.spine_cpair[spine])
    island, j = divmod(int(fab.spine_local[spine]), fab.mixed.fabric.pods[pod].own_spines)
    c, q = divmod(int(idx - fab.spine_link0[spine]), pair)
    a = w.own_spine_id(pod, j, island)
    # per-port planes: plane 0's (p0.core1); per-rail: the island's plane's (p0.i1.core1)
    b = w.shared_core_id(w.cores_of_spine(j)[c], island) + (f"#{q}" if pair > 1 else "")
    return f"{a} -> {b}" if direction == "up" else f"{b} -> {a}"


def ar_share(fab, f, share, eff: float):
    """``share`` (per connection) bounded, for the connections between pods, by their source pod's core uplinks up and
    their destination pod's down under adaptive routing (module docstring; per-rail planes: the pod's own spines of
    the flow's plane, island by island); with the per-spine totals ``(up, down)`` [Gb/s] of the traffic between pods
    (``eff``: the adaptive routing's efficiency)."""
    pods, islands, x = fab.mixed.fabric.pods, fab.islands, f.between
    key_s = fab.leaf_pod[f.leaf_s[x]] * islands + fab.leaf_island[f.leaf_s[x]]  # pod and island (plane)
    key_d = fab.leaf_pod[f.leaf_d[x]] * islands + fab.leaf_island[f.leaf_d[x]]
    out = np.bincount(key_s, weights=f.demand[x], minlength=len(pods) * islands)
    into = np.bincount(key_d, weights=f.demand[x], minlength=len(pods) * islands)
    spines = np.repeat([pod.own_spines for pod in pods], islands)
    links = spines * np.repeat([pod.spine_uplinks for pod in pods], islands)
    speed = np.repeat([float(pod.uplink_speed_gbps) for pod in pods], islands)
    share[x] = np.minimum(share[x], np.minimum(_kappa(out[key_s] / links[key_s], speed[key_s], eff),
                                               _kappa(into[key_d] / links[key_d], speed[key_d], eff)))
    return (out / spines)[fab.spine_key], (into / spines)[fab.spine_key]


def ecmp_paths(fab, f, fl, spine, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per crossing flow ``fl`` (its connection) whose source leaf's hashed uplink reaches own spine ``spine``
    (local): ``(destination spine, local, for the leaf's link down; core uplink id up; core link id down)``, the core
    ids -1 for a flow inside one pod (module docstring; seeded draws from ``rng``)."""
    ls, ld = f.leaf_s[fl], f.leaf_d[fl]
    pod_s, pod_d = fab.leaf_pod[ls], fab.leaf_pod[ld]
    between = pod_s != pod_d
    own = np.array([pod.own_spines for pod in fab.mixed.fabric.pods])
    island = fab.leaf_island[ls]  # both leaves' (a flow never changes plane)
    gs = fab.pod_spine0[pod_s] + island * own[pod_s] + spine
    x = rng.integers(0, fab.spine_U[gs])
    c = x // fab.spine_cpair[gs]  # the core, in the spine's group
    groups = fab.mixed.fabric.core_groups
    per_group = np.array([pod.own_spines // groups for pod in fab.mixed.fabric.pods])[pod_d]
    spine_d = np.where(between, spine % groups + groups * rng.integers(0, per_group), spine)
    gd = fab.pod_spine0[pod_d] + island * own[pod_d] + spine_d
    down = fab.spine_link0[gd] + c * fab.spine_cpair[gd] + rng.integers(0, fab.spine_cpair[gd])
    return spine_d, np.where(between, fab.spine_link0[gs] + x, -1), np.where(between, down, -1)


def core_links(fab, fdem, paths, totals, share, eff: float):
    """The spine-core rows of ``_routing``'s ``links`` (``(tier, direction) -> (AR load, ECMP load, ECMP flows,
    capacity)`` per link [Gb/s]) from the ECMP ``paths`` (``ecmp_paths``' core ids) and the AR per-spine ``totals``
    (``ar_share``'s), ``eff`` the adaptive routing's efficiency; returns them and ``share`` (per crossing flow) bounded by the ECMP core links' shares."""
    n = len(fab.core_link_cap)
    links = {}
    for direction, ids, tot in (("up", paths[1], totals[0]), ("down", paths[2], totals[1])):
        on = ids >= 0
        load = np.bincount(ids[on], weights=fdem[on], minlength=n)
        share[on] = np.minimum(share[on], _kappa(load[ids[on]], fab.core_link_cap[ids[on]], eff))
        links[("spine_core", direction)] = (np.repeat(tot / fab.spine_U, fab.spine_U), load,
                                            np.bincount(ids[on], minlength=n), fab.core_link_cap)
    return links, share
