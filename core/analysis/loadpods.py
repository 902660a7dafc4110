"""Overload and imbalance over every pod of a design with pods: a traffic pattern placed on the whole fabric (every
pod's servers and leaves under the shared spine layer, ``core.fabric.podwiring``), the load on every link at each
pod's own speeds, and the spread of per-GPU achievable bandwidth under adaptive routing and static ECMP.

``pods_link_load(mixed, pattern, placement, ...)`` returns a ``PodsLoadResult`` (a ``core.analysis.load.LoadResult``
with a row per pod and tier, and each pod's per-GPU spread); ``design_link_load(plan, ...)`` is the one entry for
a design with or without pods (the Resilience page and ``python -m core load``). The patterns, the demand and the
share rule are ``core.analysis.load``'s (its module docstring); what the pods change:

* **Ranks** count every GPU of every pod, pod 1's first (``PodsWiring`` order): a job of every GPU spreads over
  the pods, a ring or a data-parallel group crosses them, an all-to-all of a group as large as the job joins
  every GPU. ``node`` and ``rail`` fill the nodes in order, ``random`` draws the job's nodes among every pod's.
  The patterns' default stride is the GPUs every pod's node holds (their greatest common divisor: tensor parallel
  inside every node). ``job`` is the Performance page's training job over every pod's GPUs: its step is estimated
  on ``job_plan`` (pod 1's system with every pod's GPUs: the step's traffic, each collective's group and bytes, is
  set by the model, the parallelism and the GPU count, the estimate's timing by pod 1's system), and each of its
  collectives is placed over every pod (a collective inside one pod's NVLink domain loads no link, whichever pod).
* **NVLink**: pairs inside one NVLink domain of a pod load no fabric link; domains never span pods.
* **Demand**: every GPU with fabric peers offers its own pod's NIC line rate (``NICs x port speed / GPUs per
  node``, one plane) [Gb/s per direction].
* **Rails**: rail-aligned (PXN) a flow leaves on the NIC of the receiver's rail when both servers are in one pod
  (their rails are the same leaves); between pods no leaf is shared, so it leaves on its own NIC.
* **Links**: a pod's node-leaf links at its port speed; each leaf of pod ``p`` has ``u_p`` uplinks at the pod's
  uplink speed, ``u_p / N`` to each of the ``N`` shared spines (``PodLeaves.links_per_leaf_spine_pair``; uplink
  ``k`` to spine ``k // (u_p / N)``). Every pair of leaves, in one pod or two, is two hops apart through any
  spine: adaptive routing spreads a leaf's upward traffic evenly over its uplinks and the traffic into a leaf
  evenly over its links from the spines; static ECMP hashes each flow onto one uplink of its leaf (so one spine)
  and one of the destination leaf's parallel links from that spine (seeded).

**Planes** (``MixedFabric.planes``): as ``core.analysis.load`` takes a single fabric's. Per-port planes
are identical copies: plane 0 is computed, each GPU offering its plane's share of its line rate (``NICs x port speed /
GPUs per node`` of one port), the others carry the same, and a GPU's achievable bandwidth and line rate are every
plane's (``planes`` times). Per-rail planes (rail islands) are computed together, NIC ``i`` in plane ``i mod planes``
(the leaves island by island, ids ``pod2.p0.i1.leaf3``, ``p0.i1.spine0``); there is no path between planes, so a
flow leaves on its server's NIC in the receiver's plane (the next NICs of its own rail group: PXN) whatever the
placement; on three tiers each pod's own spines and the cores are island by island too (``p0.i1.spine2``,
``p0.i1.core1``).

Pods on three tiers (``core.fabric.podcore``): each leaf's ``u_p`` uplinks go to its pod's own spines, and a flow
between pods climbs a spine of its pod, a core and a spine of the other pod (``core.analysis.loadpodcore``: the
spine-core rows, their adaptive and ECMP loads).

Link ids are the wiring's (``pod2.node3.nic1 -> pod2.p0.leaf1``, ``pod2.p0.leaf1 -> spine0#1``: parallel link 1 of
the bundle). Cost: arrays of one entry per flow (numpy), no graph; ``tests/test_load_pods.py`` checks the loads
against an explicit routing over every connection on ``core.fabric.podgraph.pods_fabric_graph``.
"""

from __future__ import annotations

import math
from functools import reduce

import numpy as np

from core.analysis import load as single
from core.analysis.load import (HIST_BINS, METHOD, LoadResult, TierLoad, _check, _job_pairs, _job_size, _kappa,
                                _pairs, _tier_row, bin_blocks, pxn_note)
from core.analysis.pods import MixedPlan, mixed_wiring
from core.errors import InputError
from core.fabric.podwiring import PodsWiring
from core.i18n import _
from core.perf import congestion
from core.plan import Plan


class PodTierLoad(TierLoad):
    """One pod's links of one tier and direction (``TierLoad``; ``link_gbps`` the pod's own speed)."""

    pod: int
    """The pod's number (1-based)."""
    system: str


class PodsLoadResult(LoadResult):
    """``LoadResult`` over every pod: ``tiers`` are ``PodTierLoad`` rows (pod by pod), ``blocks`` carry ``pod`` (its
    number), ``nic_gbps_per_gpu`` is the fastest pod's line rate, and ``pods`` each pod's spread."""

    pods: tuple[dict, ...] = ()
    """Per pod: ``{"pod", "system", "gpus_on_fabric", "nic_gbps_per_gpu", "adaptive", "ecmp"}`` (the last two: per-GPU
    ``min``, ``median``, ``max``, ``mean`` [Gb/s, one direction], None when none of its GPUs use the fabric)."""

    def to_json(self) -> dict:
        """``LoadResult.to_json`` with ``pods`` (rates rounded as there)."""
        def rounded(value):
            return {k: rounded(v) for k, v in value.items()} if isinstance(value, dict) else (
                round(value, 4) if isinstance(value, float) else value)
        return {**super().to_json(), "pods": [rounded(p) for p in self.pods]}


def job_plan(mixed: MixedPlan) -> Plan:
    """The plan the ``job`` pattern sizes a training job over every pod of ``mixed`` on (module docstring): pod 1's
    design at the nodes of its system that hold every pod's GPUs (``ceil(GPUs / GPUs per node of pod 1)``)."""
    from core.plan import plan as plan_of

    first = mixed.plans[0]
    nodes = -(-mixed.fabric.gpus // first.resolved.gpus_per_node)
    if nodes == first.resolved.nodes:
        return first
    return plan_of(first.design.model_copy(update={"nodes": nodes, "gpus": None, "stages": None, "grow_to": None}))


def whole_job(job, gpus: int):
    """``(job, note or None)``: a training job over every pod's ``gpus`` (its own GPUs if set, at most the most
    GPUs up to ``gpus`` its tp x pp x cp divides) with its global batch [sequences] a multiple of micro-batch x dp
    there (the nearest, within the job's limits), as the step estimate needs; the note says the batch the traffic
    is estimated with when it changed."""
    from core.perf.training import MAX_GLOBAL_BATCH

    if job is None:
        return job, None
    model_parallel = job.tp * job.pp * job.cp
    if job.gpus and job.gpus > gpus and gpus >= model_parallel:
        job = job.model_copy(update={"gpus": gpus // model_parallel * model_parallel, "dp": None})
    dp = job.dp or max(1, (job.gpus or gpus) // (job.tp * job.pp * job.cp))
    step = job.micro_batch * dp
    if job.global_batch % step == 0:
        return job, None
    batch = max(step, round(job.global_batch / step) * step)
    batch = batch if batch <= MAX_GLOBAL_BATCH else max(step, MAX_GLOBAL_BATCH // step * step)
    note = _("The job's global batch of {batch} is not a multiple of micro-batch x dp = {step} on every pod's GPUs: "
             "its traffic is estimated with a global batch of {new}.").format(batch=f"{job.global_batch:,}",
                                                                              step=f"{step:,}", new=f"{batch:,}")
    return job.model_copy(update={"global_batch": batch}), note


def design_job_plan(plan: Plan) -> Plan:
    """The plan a training job of the ``job`` pattern on ``plan``'s design is sized on: ``plan`` without pods, with
    pods ``job_plan`` of its mixed plan (every pod's GPUs), so a job's GPUs default to every pod's."""
    if not plan.design.pods:
        return plan
    from core.analysis.whole import design_mixed

    return job_plan(design_mixed(plan.design))


def design_link_load(plan: Plan, pattern: str = "ring", placement: str = "rail", **options) -> LoadResult:
    """The link load of ``plan``'s design: over every pod when it has pods (``pods_link_load`` of its mixed plan,
    ``core.analysis.whole.design_mixed``), else ``core.analysis.load.link_load`` (``options`` as theirs;
    ``global_routing`` is a Dragonfly's and is not passed to pods)."""
    if not plan.design.pods:
        return single.link_load(plan, pattern, placement, **options)
    from core.analysis.whole import design_mixed

    options.pop("global_routing", None)
    return pods_link_load(design_mixed(plan.design), pattern, placement, **options)


class _Fabric:
    """Index arrays of the whole fabric's one plane (module docstring). Per server (global, pod by pod): ``node_pod``,
    ``node_gpn``, ``node_nics``, ``node_gpu0`` / ``node_port0`` (its first GPU and NIC port), ``node_dom`` (its
    NVLink domain), ``node_local`` (its index in its pod). Per GPU: ``gpu_node``, ``gpu_local``, ``gpu_line`` (its
    pod's NIC line rate [Gb/s]). Per NIC port: ``port_leaf``, ``port_cap`` [Gb/s]. Per leaf: ``leaf_pod``,
    ``leaf_local``, ``leaf_island`` (its island: plane of per-rail planes), ``leaf_U`` (uplinks), ``leaf_pair`` (links to each spine), ``leaf_link0`` (its first uplink's
    id), ``leaf_cap`` [Gb/s]. Per pod: ``pod_ports``, ``pod_links`` (where its NIC ports and its leaves' uplinks
    start, and one past the last pod's)."""

    def __init__(self, mixed: MixedPlan):
        self.wiring: PodsWiring = mixed_wiring(mixed, three_tiers=True, planes=True)
        self.mixed = mixed
        own = self.wiring.wirings[0]
        self.islands, self.copies = own.islands, own.planes  # per-rail planes: islands; per-port: copies
        node, gpu, port, leaf = [], [], [], []
        doms = leaves = 0
        for i, (p, w, pod) in enumerate(zip(mixed.plans, self.wiring.wirings, mixed.fabric.pods)):
            r = p.resolved
            gpn, nics, n = r.gpus_per_node, r.nics_per_node, w.nodes
            local = np.arange(n)
            node.append((np.full(n, i), np.full(n, gpn), np.full(n, nics), local,
                         doms + local // max(1, r.nvlink_level1_nodes)))
            doms += -(-n // max(1, r.nvlink_level1_nodes))
            gpu.append(np.full(n * gpn, nics * r.port_speed_gbps / gpn))
            nic = np.tile(np.arange(nics), n)  # NIC i: local rail i // islands of island i mod islands
            groups = w.group_of_node(np.repeat(local, nics))
            at = leaves + (nic % w.islands) * w.leaves + np.asarray(w.leaf_of(groups, nic // w.islands))
            port.append((at, np.full(n * nics, float(r.port_speed_gbps))))
            count = w.islands * w.leaves  # leaves island by island
            leaves += count
            leaf.append((np.full(count, i), np.arange(count), np.full(count, pod.uplinks_per_leaf),
                         np.full(count, pod.links_per_leaf_spine_pair),
                         np.full(count, float(pod.uplink_speed_gbps))))
        self.node_pod, self.node_gpn, self.node_nics, self.node_local, self.node_dom = (
            np.concatenate(a) for a in zip(*node))
        self.gpu_line = np.concatenate(gpu)
        self.port_leaf, self.port_cap = (np.concatenate(a) for a in zip(*port))
        self.leaf_pod, self.leaf_local, self.leaf_U, self.leaf_pair, self.leaf_cap = (
            np.concatenate(a) for a in zip(*leaf))
        self.leaf_island = self.leaf_local // np.array([w.leaves for w in self.wiring.wirings])[self.leaf_pod]
        self.node_gpu0 = np.concatenate([[0], np.cumsum(self.node_gpn)[:-1]])
        self.node_port0 = np.concatenate([[0], np.cumsum(self.node_nics)[:-1]])
        self.gpu_node = np.repeat(np.arange(len(self.node_pod)), self.node_gpn)
        self.gpu_local = np.arange(len(self.gpu_node)) - self.node_gpu0[self.gpu_node]
        self.leaf_link0 = np.concatenate([[0], np.cumsum(self.leaf_U)[:-1]])
        self.link_cap = np.repeat(self.leaf_cap, self.leaf_U)
        pods = len(mixed.plans)
        self.pod_ports, self.pod_links = (np.searchsorted(of, np.arange(pods + 1)) for of in (
            np.repeat(self.node_pod, self.node_nics), np.repeat(self.leaf_pod, self.leaf_U)))
        if self.wiring.three_tiers:  # every pod's own spines and their core uplinks
            from core.analysis.loadpodcore import spine_arrays

            spine_arrays(self)

    @property
    def gpus(self) -> int:
        return len(self.gpu_node)

    def default_gpn(self) -> int:
        """GPUs every pod's node holds: the greatest common divisor of the pods' GPUs per node."""
        return reduce(math.gcd, (p.resolved.gpus_per_node for p in self.mixed.plans))

    def leaf_of(self, leaf: int) -> tuple[int, int]:
        """``(leaf in its pod's island, island)`` of global leaf ``leaf`` (the island is the plane ``q`` of
        per-rail planes; 0 otherwise)."""
        island, k = divmod(int(self.leaf_local[leaf]), self.wiring.wirings[int(self.leaf_pod[leaf])].leaves)
        return k, island

    def link(self, tier: str, direction: str, idx: int) -> str:
        """Name of link ``idx`` of ``tier`` (node-leaf: by NIC port; leaf-spine: by leaf and uplink; spine-core: by
        own spine and uplink, ``core.analysis.loadpodcore``) in ``direction``, with the wiring's ids (module
        docstring)."""
        w = self.wiring
        if tier == "spine_core":
            from core.analysis.loadpodcore import core_name

            return core_name(self, direction, idx)
        if tier == "node_leaf":
            node = int(np.searchsorted(self.node_port0, idx, side="right") - 1)
            pod = int(self.node_pod[node])
            a = f"{w.node_id(pod, int(self.node_local[node]))}.nic{idx - self.node_port0[node]}"
            b = w.leaf_id(pod, *self.leaf_of(int(self.port_leaf[idx])))
        else:
            leaf = int(np.searchsorted(self.leaf_link0, idx, side="right") - 1)
            pod, pair = int(self.leaf_pod[leaf]), int(self.leaf_pair[leaf])
            spine, q = divmod(int(idx - self.leaf_link0[leaf]), pair)
            k, island = self.leaf_of(leaf)
            a = w.leaf_id(pod, k, island)
            b = (w.own_spine_id(pod, spine, island) if w.three_tiers else w.shared_spine_id(spine, island)) + (
                f"#{q}" if pair > 1 else "")
        return f"{a} -> {b}" if direction == "up" else f"{b} -> {a}"


class _PodFlows:
    """The fabric connections of the whole fabric (``core.analysis.load._Flows`` over every pod): ranks placed on
    GPUs, the NIC ports and leaves a connection leaves and arrives by, its demand [Gb/s, one plane]."""

    def __init__(self, fab: _Fabric, src, dst, weight, n: int, placement: str, rng):
        if placement == "random":  # the job's nodes drawn among every pod's, filled in the drawn order
            perm = rng.permutation(len(fab.node_pod))
            counts = fab.node_gpn[perm]
            starts = np.repeat(fab.node_gpu0[perm] - np.cumsum(counts) + counts, counts)
            gpu_of = (starts + np.arange(counts.sum()))[:n]
        else:
            gpu_of = np.arange(n)
        gs, gd = gpu_of[src], gpu_of[dst]
        ns, nd = fab.gpu_node[gs], fab.gpu_node[gd]
        keep = fab.node_dom[ns] != fab.node_dom[nd]
        gs, gd, ns, nd, weight = gs[keep], gd[keep], ns[keep], nd[keep], weight[keep]
        nic_s = (fab.gpu_local[gs] * fab.node_nics[ns]) // fab.node_gpn[ns]
        nic_d = (fab.gpu_local[gd] * fab.node_nics[nd]) // fab.node_gpn[nd]
        self.rail_aligned = placement != "node" or fab.islands > 1
        aligned = self.rail_aligned & (fab.node_pod[ns] == fab.node_pod[nd])
        own = nic_s - nic_s % fab.islands + nic_d % fab.islands  # per-rail planes: its NIC in the receiver's plane
        self.port_s = fab.node_port0[ns] + np.where(aligned, nic_d, own)
        self.port_d = fab.node_port0[nd] + nic_d
        self.leaf_s, self.leaf_d = fab.port_leaf[self.port_s], fab.port_leaf[self.port_d]
        self.cross = self.leaf_s != self.leaf_d
        self.between = self.cross & (fab.leaf_pod[self.leaf_s] != fab.leaf_pod[self.leaf_d])  # across the cores
        self.gpu_s = gs
        self.wsum = np.bincount(gs, weights=weight, minlength=fab.gpus)
        self.demand = fab.gpu_line[gs] * weight / np.maximum(self.wsum[gs], 1e-300)


def _routing(fab: _Fabric, f: _PodFlows, per_conn: int, rng, eff: float) -> dict:
    """Adaptive routing and static ECMP over the NIC links and the leaf-spine links (module docstring): per
    connection ``ar_share``; per crossing flow ``fl`` (its connection), ``fdem`` [Gb/s] and ``ecmp_share``; per
    link ``(tier, direction) -> (AR load, ECMP load, ECMP flows, capacity)`` [Gb/s]."""
    n_ports, n_leaves, n_links = len(fab.port_cap), len(fab.leaf_U), len(fab.link_cap)
    inj = np.bincount(f.port_s, weights=f.demand, minlength=n_ports)
    ej = np.bincount(f.port_d, weights=f.demand, minlength=n_ports)
    ar_share = np.minimum(_kappa(inj[f.port_s], fab.port_cap[f.port_s]), _kappa(ej[f.port_d], fab.port_cap[f.port_d]))
    x = f.cross
    U = np.maximum(fab.leaf_U, 1)
    up_tot = np.bincount(f.leaf_s[x], weights=f.demand[x], minlength=n_leaves)
    down_tot = np.bincount(f.leaf_d[x], weights=f.demand[x], minlength=n_leaves)
    ls, ld = f.leaf_s[x], f.leaf_d[x]
    ar_share[x] = np.minimum(ar_share[x], np.minimum(_kappa(up_tot[ls] / U[ls], fab.leaf_cap[ls], eff),
                                                     _kappa(down_tot[ld] / U[ld], fab.leaf_cap[ld], eff)))
    three = fab.wiring.three_tiers
    if three:  # between pods: their spines' core uplinks (core.analysis.loadpodcore)
        from core.analysis import loadpodcore

        totals = loadpodcore.ar_share(fab, f, ar_share, eff)
    fl = np.repeat(np.flatnonzero(x), per_conn)
    fdem = f.demand[fl] / per_conn
    ls, ld = f.leaf_s[fl], f.leaf_d[fl]
    u = rng.integers(0, U[ls])
    spine = u // fab.leaf_pair[ls]
    paths = loadpodcore.ecmp_paths(fab, f, fl, spine, rng) if three else (spine,)
    ids = {"up": fab.leaf_link0[ls] + u,
           "down": fab.leaf_link0[ld] + paths[0] * fab.leaf_pair[ld] + rng.integers(0, fab.leaf_pair[ld])}
    ecmp_share = ar_share[fl]  # never better than adaptive routing (congestion.tier_share)
    port_flows = {d: np.bincount(p, minlength=n_ports) * per_conn for d, p in (("up", f.port_s), ("down", f.port_d))}
    links = {("node_leaf", "up"): (inj, inj, port_flows["up"], fab.port_cap),
             ("node_leaf", "down"): (ej, ej, port_flows["down"], fab.port_cap)}
    for direction, tot in (("up", up_tot), ("down", down_tot)):
        load = np.bincount(ids[direction], weights=fdem, minlength=n_links)
        ecmp_share = np.minimum(ecmp_share, _kappa(load[ids[direction]], fab.link_cap[ids[direction]], eff))
        links[("leaf_spine", direction)] = (np.repeat(tot / U, fab.leaf_U), load,
                                            np.bincount(ids[direction], minlength=n_links), fab.link_cap)
    if three:
        core, ecmp_share = loadpodcore.core_links(fab, fdem, paths, totals, ecmp_share, eff)
        links.update(core)
    return {"ar_share": ar_share, "fl": fl, "fdem": fdem, "ecmp_share": ecmp_share, "links": links}


def _per_pod(fab: _Fabric, links: dict) -> tuple[list, list]:
    """Per pod and tier: the rows (``PodTierLoad``) and the heatmap blocks (the pod's leaf groups; ``pod``: its
    number, 1-based) from the per-link ``links`` of ``_routing``."""
    rows, blocks = [], []
    for i, pod in enumerate(fab.mixed.fabric.pods):
        w = fab.wiring.wirings[i]
        number = pod.index + 1
        for (tier, direction), (ar, ecmp, flows, cap) in links.items():
            offsets = {"node_leaf": fab.pod_ports, "leaf_spine": fab.pod_links,
                       "spine_core": getattr(fab, "pod_core_links", None)}[tier]
            part = slice(int(offsets[i]), int(offsets[i + 1]))
            speed = float(pod.port_speed_gbps if tier == "node_leaf" else pod.uplink_speed_gbps)
            row = _tier_row(tier, direction, part.stop - part.start, speed, ecmp[part].sum(), ar[part], ecmp[part],
                            flows[part])
            rows.append(PodTierLoad(**row.model_dump(), pod=number, system=pod.system))
            units = w.groups
            if tier == "node_leaf":  # the leaf group of the port's server, of the uplink's leaf; the pod's spine
                unit = w.group_of_node(np.arange(part.stop - part.start) // fab.mixed.plans[i].resolved.nics_per_node)
            elif tier == "leaf_spine":
                unit = w.group_of_leaf(np.repeat(np.arange(w.islands * w.leaves) % w.leaves, pod.uplinks_per_leaf))
            else:
                unit = np.tile(np.repeat(np.arange(pod.own_spines), pod.spine_uplinks), w.islands)  # island by island
                units = pod.own_spines
            blocks += [{**b, "pod": number} for b in bin_blocks(tier, direction, unit, units, ecmp[part] / cap[part],
                                                                 ar[part] / cap[part])]
    return rows, blocks


def _pod_spreads(fab: _Fabric, active, ar_gpu, ecmp_gpu) -> tuple[dict, ...]:
    """Per pod: its GPUs on the fabric, NIC line rate per GPU [Gb/s] and the per-GPU spread under adaptive routing
    and ECMP [Gb/s, one direction] (``PodsLoadResult.pods``)."""
    out = []
    pod_of_gpu = fab.node_pod[fab.gpu_node]
    for i, (pod, p) in enumerate(zip(fab.mixed.fabric.pods, fab.mixed.plans)):
        mine = active & (pod_of_gpu == i)
        line = p.resolved.nics_per_node * p.resolved.port_speed_gbps / p.resolved.gpus_per_node * fab.copies
        spreads = {name: single._spread(v[mine]).model_dump() if mine.any() else None
                   for name, v in (("adaptive", ar_gpu), ("ecmp", ecmp_gpu))}
        out.append({"pod": pod.index + 1, "system": pod.system, "gpus_on_fabric": int(mine.sum()),
                    "nic_gbps_per_gpu": line, **spreads})
    return tuple(out)


def pods_link_load(mixed: MixedPlan, pattern: str = "ring", placement: str = "rail", *, job_gpus: int | None = None,
                   group: int | None = None, stride: int | None = None, seed: int = 0, job=None) -> PodsLoadResult:
    """The load of ``pattern`` placed by ``placement`` over every pod of ``mixed`` (module docstring; the arguments
    and errors of ``core.analysis.load.link_load``: ``job_gpus`` up to every pod's GPUs)."""
    return _pods_link_load(mixed, pattern, placement, job_gpus=job_gpus, group=group, stride=stride, seed=seed,
                           job=job)


def pods_link_load_arrays(mixed: MixedPlan, pattern: str = "ring", placement: str = "rail",
                          **options) -> tuple[PodsLoadResult, dict]:
    """``pods_link_load`` and the per-link arrays behind it (for checks): ``(tier, direction) -> (AR load, ECMP
    load, ECMP flows, capacity)`` per link [Gb/s], ``"pairs"`` -> ``(port_s, port_d, demand)`` per connection
    (global NIC ports), ``"names"`` -> ``(tier, direction, index) -> link id`` and ``"ports"`` -> ``index -> (pod
    position, server in the pod, NIC)``."""
    arrays: dict = {}
    return _pods_link_load(mixed, pattern, placement, arrays=arrays, **options), arrays


def _pods_link_load(mixed: MixedPlan, pattern: str, placement: str, *, job_gpus: int | None = None,
                    group: int | None = None, stride: int | None = None, seed: int = 0, job=None,
                    arrays: dict | None = None) -> PodsLoadResult:
    """``pods_link_load``; ``arrays``, when given, receives what ``pods_link_load_arrays`` returns."""
    _check(pattern, placement)
    fab = _Fabric(mixed)
    first = mixed.plans[0]
    n = _job_size(first, pattern, job_gpus, fab.gpus)
    rng = np.random.default_rng(seed)
    batch_note = None
    if pattern == "job":  # estimated over every pod's GPUs (module docstring)
        job, batch_note = whole_job(job, fab.gpus)
        src, dst, weight, per_conn, grp, mix = _job_pairs(job_plan(mixed), n, rng, job, every_level=True)
        n = int(max(src.max(initial=0), dst.max(initial=0)) + 1)
    else:
        src, dst, weight, per_conn, grp, mix = _pairs(first, pattern, n, group, stride, rng, job, fab.default_gpn())
    f = _PodFlows(fab, src, dst, weight, n, placement, rng)
    notes = [_("Every pod under the shared spines: ranks fill pod 1's GPUs first, then each next pod's; each GPU "
               "offers its own pod's NIC line rate, and each pod's links run at its own speeds. Between pods no leaf "
               "is shared: a flow leaves on its own NIC whatever the placement.") if not fab.wiring.three_tiers else
             _("Every pod's own spines under the shared cores: ranks fill pod 1's GPUs first, then each next pod's; "
               "each GPU offers its own pod's NIC line rate, and each pod's links run at its own speeds. A flow "
               "between pods climbs a spine of its pod, a core and a spine of the other pod; no leaf is shared: it "
               "leaves on its own NIC whatever the placement.")]
    if fab.islands > 1:  # per-rail planes (core.analysis.load's rule for rail islands)
        notes.append(_("Per-rail planes have no path between planes: a flow leaves on its server's NIC in the "
                       "receiver's plane (PXN) whatever the placement."))
    if pattern == "job":
        notes.append(_("The training job runs on {gpus} GPUs of every pod's {total}, ranks filling pod 1 first: its "
                       "collectives' groups and bytes are estimated with pod 1's system at every pod's GPUs (the model "
                       "and parallelism set them), and each pod's links carry them at its own speeds.").format(
            gpus=f"{n:,}", total=f"{fab.gpus:,}"))
        notes += [batch_note] if batch_note else []
    line = float(fab.gpu_line.max()) * fab.copies  # every plane's (per-port planes: the copies not computed)
    if not len(f.gpu_s):
        empty = single._empty(first, pattern, placement, n, grp, seed, line, per_conn, mix, notes)
        return PodsLoadResult(**dict(empty))
    flows_total = len(f.gpu_s) * per_conn
    if flows_total > single.MAX_FLOWS:
        raise InputError(_("{flows} flows are more than the {limit} this model samples; use a smaller job or group")
                         .format(flows=f"{flows_total:,}", limit=f"{single.MAX_FLOWS:,}"))
    eff = congestion.load_constants().adaptive_efficiency
    routed = _routing(fab, f, per_conn, rng, eff)
    ar_share, fl, links = routed["ar_share"], routed["fl"], routed["links"]
    ar_gpu = np.bincount(f.gpu_s, weights=f.demand * ar_share, minlength=fab.gpus) * fab.copies  # every plane's
    local = ~f.cross
    ecmp_gpu = (np.bincount(f.gpu_s[local], weights=(f.demand * ar_share)[local], minlength=fab.gpus)
                + np.bincount(f.gpu_s[fl], weights=routed["fdem"] * routed["ecmp_share"], minlength=fab.gpus)
                ) * fab.copies
    active = f.wsum > 0
    rows, blocks = _per_pod(fab, links)
    if (ar_gpu[active] < fab.gpu_line[active] * fab.copies * (1 - 1e-9)).any() and all(t.ar_max <= 1 + 1e-9 for t in rows):
        notes.append(single._efficiency_note(eff))
    if len({float(x) for x in fab.gpu_line}) > 1 and any(
            t.ar_max > 1 + 1e-9 for t in rows if (t.tier, t.direction) == ("node_leaf", "down")):
        notes.append(_("A GPU of a faster pod sends at its own line rate into a slower pod's NIC, which takes only "
                       "its own: those NIC links are overloaded and their senders slowed to the slower pod's rate (a "
                       "collective across pods runs at the slowest pod's rate)."))
    inj, _ar, _flows, cap = links[("node_leaf", "up")]
    if f.rail_aligned and (inj > cap * (1 + 1e-9)).any():
        notes.append(pxn_note())
    if arrays is not None:
        arrays.update(links)
        arrays["pairs"] = (f.port_s, f.port_d, f.demand)
        arrays["names"] = fab.link
    hot = single._hot_links(fab, [(t, d, e, a, fw, c) for (t, d), (a, e, fw, c) in links.items()])
    edges = np.linspace(0.0, line, HIST_BINS + 1)
    ar_v, ecmp_v = ar_gpu[active], ecmp_gpu[active]
    hist = {"edges": [round(float(x), 3) for x in edges],
            "ar": np.histogram(np.clip(ar_v, 0, line), bins=edges)[0].tolist(),
            "ecmp": np.histogram(np.clip(ecmp_v, 0, line), bins=edges)[0].tolist()}
    return PodsLoadResult(
        pattern=pattern, placement=placement, job_gpus=n, group=int(grp), seed=seed,
        routing=congestion.fabric_class(first.resolved), nic_gbps_per_gpu=line, gpus_on_fabric=int(active.sum()),
        flows=int(flows_total), flows_per_connection=int(per_conn), tiers=tuple(rows), ar=single._spread(ar_v),
        ecmp=single._spread(ecmp_v), hot_links=hot, blocks=tuple(blocks), histogram=hist, mix=mix,
        notes=tuple(notes), method=METHOD + ("; every pod's own spines under the shared cores" if fab.wiring.three_tiers
                                             else "; every pod under the shared spines")
        + ", each pod's links at its own speeds",
        pods=_pod_spreads(fab, active, ar_gpu, ecmp_gpu))
