"""Link load on a torus (``core.fabric.torus``): a traffic pattern routed over its rings, dimension by dimension.

``core.analysis.load.link_load`` sends a plan whose family joins its nodes node to node
(``core.fabric.families.node_to_node``) here; the result is the same ``LoadResult``, its tiers the torus's
dimensions (``dim1`` .. ``dim3``), each in its two ways round the ring (``plus``: from position ``p`` to ``p + 1``,
``minus`` back).

Model (the pattern's pairs, weights and flows per connection as ``core.analysis.load._pairs`` makes them; ranks fill
nodes in order, or the job's nodes drawn at random; pairs inside one scale-up domain load no link):

* **Demand**: each GPU with fabric peers offers its share of its node's cabled ports at line rate
  (``w x neighbours x port / GPUs per node``), split over its connections by weight (as the Clos model does).
* **Routing**: dimension-order minimal routing, dimension 1 first; along each ring the shorter way round, ``delta``
  positions (``delta = (to - from) mod k``; the ``+`` way when ``delta < k/2``). A tie (``delta = k/2``, even ``k``):
  adaptive routing splits the connection half each way; static ECMP hashes each flow onto one way (seeded).
  Adaptive routing spreads a bundle's load evenly over its ``w`` links; static ECMP hashes each flow onto one
  link of every bundle it crosses.
* A link offered ``D`` against capacity ``C`` (the port speed, one direction) passes ``min(1, C / D)`` of every
  flow on it (no switch: no adaptive-routing efficiency below 1); a flow gets the smallest share along its path.

So a ring all-reduce placed in torus order loads each neighbour link once (ring traffic per dimension), and a uniform
all-to-all is bounded by the bisection's ``2 N / k`` links per cut (``core.fabric.torus.bisection_links``), the
closed forms ``tests/test_load_torus.py`` checks against.
"""

from __future__ import annotations

import math

import numpy as np

from core.i18n import N_, _

TIER_LABELS = {"dim1": N_("dimension 1"), "dim2": N_("dimension 2"), "dim3": N_("dimension 3")}
"""A torus's load tiers, its dimensions (``core.analysis.load.TIER_LABELS`` reads them)."""
DIRECTION_LABELS = {"plus": N_("+ direction"), "minus": N_("− direction")}
"""The two ways round a ring (``core.analysis.load.DIRECTION_LABELS`` reads them)."""
NOTE = N_("Torus: dimension-order minimal routing (dimension 1 first), each ring the shorter way round; half way "
          "round, adaptive routing splits a connection both ways and static ECMP hashes each flow onto one, and onto "
          "one link of each bundle it crosses. The NIC ports are the links' ends, so the placement (by node or "
          "rail-aligned) changes nothing; an all-to-all is bounded by the {bisection} links of the bisection's cut. "
          "A ring in rank order sends all of a node's GPUs' rings over the same links to the next node; the torus's "
          "own collectives (rings per dimension, on the Performance page) use every link.")
METHOD = ("saturated offered load (each GPU with fabric peers offers its share of its node's cabled ports at line "
          "rate); torus: dimension-order minimal routing, ties split (adaptive) or hashed (static ECMP, seeded, a link "
          "of each bundle per flow); a link passes min(1, C / D) of its flows; a flow gets the smallest share on its "
          "path")


def _walks(w, node_s, node_d, plus_tie):
    """Every hop of every connection: ``(connection, directed bundle)`` arrays, the bundle ``(dimension x N + lower
    node) x 2 + way`` (the lower node: the end at position ``p`` of a link between ``p`` and ``p + 1``; way 0 plus,
    1 minus); ``plus_tie`` per connection and dimension: a tie goes the plus way."""
    n = w.nodes
    coords = [np.array(c) for c in w.coords(node_s)]
    target = w.coords(node_d)
    conns, bundles = [], []
    index = np.arange(len(node_s))
    for i, k in enumerate(w.dims):
        delta = (target[i] - coords[i]) % k
        if k == 2:
            plus = coords[i] == 0
        else:
            plus = (delta < k - delta) | ((2 * delta == k) & plus_tie[:, i])
        steps = np.where(plus, delta, (k - delta) % k)
        for s in range(int(steps.max(initial=0))):
            on = steps > s
            at = [c[on] for c in coords]
            lower = at[i] if k == 2 else np.where(plus[on], at[i], at[i] - 1)
            at_lower = list(at)
            at_lower[i] = (np.zeros_like(lower) if k == 2 else lower) % k
            node = w.node_at(at_lower)
            conns.append(index[on])
            bundles.append(((i * n + node) * 2 + (~plus[on]).astype(np.int64)))
            coords[i][on] = (coords[i][on] + np.where(plus[on], 1, -1)) % k
    if not conns:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(conns), np.concatenate(bundles)


def _min_share(conn, share_of_hop, m: int) -> np.ndarray:
    """Per connection the least share over its hops (1 without a hop)."""
    out = np.ones(m)
    np.minimum.at(out, conn, share_of_hop)
    return out


def torus_link_load(plan, pattern: str, placement: str, *, job_gpus=None, group=None, stride=None, seed: int = 0,
                    job=None, arrays: dict | None = None):
    """``core.analysis.load.link_load`` on a torus (module docstring); ``arrays``, when given, receives
    ``link_load_arrays``' arrays (``"pairs"``: the connections' source and destination GPUs and demand)."""
    from core.analysis import load as L  # it dispatches here
    from core.fabric import torus
    from core.fabric.wiring import wiring_of
    from core.perf import congestion

    r = plan.resolved
    w = wiring_of(plan.fabric, r.nodes, r.nics_per_node)
    gpn, n_nodes = r.gpus_per_node, w.nodes
    n = L._job_size(plan, pattern, job_gpus)
    rng = np.random.default_rng(seed)
    src, dst, weight, per_conn, grp, mix = L._pairs(plan, pattern, n, group, stride, rng, job)
    if pattern == "job":
        n = int(max(src.max(initial=0), dst.max(initial=0)) + 1)
    chosen = rng.permutation(n_nodes)[:math.ceil(n / gpn)] if placement == "random" else np.arange(math.ceil(n / gpn))
    gpu_s, gpu_d = chosen[src // gpn] * gpn + src % gpn, chosen[dst // gpn] * gpn + dst % gpn
    dom = max(1, r.nvlink_level1_nodes)
    keep = (gpu_s // gpn) // dom != (gpu_d // gpn) // dom
    gpu_s, gpu_d, weight = gpu_s[keep], gpu_d[keep], weight[keep]
    line = torus.cabled_ports(plan.fabric) * w.port_gbps / gpn  # per GPU [Gb/s, one direction]
    notes = [_(NOTE).format(bisection=f"{torus.bisection_links(w.dims) * w.width:,}")]
    m = len(gpu_s)
    if m == 0:
        return L._empty(plan, pattern, placement, n, grp, seed, line, per_conn, mix, [])
    if m * per_conn > L.MAX_FLOWS:
        raise L.InputError(_("{flows} flows are more than the {limit} this model samples; use a smaller job or "
                             "group").format(flows=f"{m * per_conn:,}", limit=f"{L.MAX_FLOWS:,}"))
    wsum = np.bincount(gpu_s, weights=weight, minlength=r.gpus)
    demand = line * weight / np.maximum(wsum[gpu_s], 1e-300)
    node_s, node_d = gpu_s // gpn, gpu_d // gpn
    dims, width, cap = w.dims, w.width, float(w.port_gbps)
    n_bundles = len(dims) * n_nodes * 2
    # adaptive: a tie split half each way, a bundle's load over its links
    ar_hops = [_walks(w, node_s, node_d, np.full((m, len(dims)), way)) for way in (True, False)]
    ar_load = sum(np.bincount(b, weights=0.5 * demand[c], minlength=n_bundles) for c, b in ar_hops) / width
    ar_share = sum(0.5 * _min_share(c, np.minimum(1.0, cap / np.maximum(ar_load[b], 1e-300)), m) for c, b in ar_hops)
    # static ECMP: each flow hashed onto one way at a tie and one link of every bundle it crosses
    flow_conn = np.repeat(np.arange(m), per_conn)
    f_conn, f_bundle = _walks(w, node_s[flow_conn], node_d[flow_conn], rng.random((len(flow_conn), len(dims))) < 0.5)
    lane = f_bundle * width + rng.integers(0, width, size=len(f_bundle))
    f_demand = demand[flow_conn] / per_conn
    e_load = np.bincount(lane, weights=f_demand[f_conn], minlength=n_bundles * width)
    e_flows = np.bincount(lane, minlength=n_bundles * width)
    e_share = _min_share(f_conn, np.minimum(1.0, cap / np.maximum(e_load[lane], 1e-300)), len(flow_conn))
    ar_gpu = np.bincount(gpu_s, weights=demand * ar_share, minlength=r.gpus)
    ecmp_gpu = np.bincount(gpu_s[flow_conn], weights=f_demand * e_share, minlength=r.gpus)
    active = wsum > 0
    rows, stages, blocks = [], [], []
    _d, lower, _b = w.pair_arrays()
    for i, k in enumerate(dims):
        nodes = lower[_d == i]  # the lower end of every link of the dimension
        for way, direction in enumerate(("plus", "minus")):
            ids = (i * n_nodes + nodes) * 2 + way
            lanes = (ids[:, None] * width + np.arange(width)[None, :]).ravel()
            ar, e, fl = np.repeat(ar_load[ids], width), e_load[lanes], e_flows[lanes]
            tier = f"dim{i + 1}"
            rows.append(L._tier_row(tier, direction, len(lanes), cap, e.sum(), ar, e, fl))
            stages.append((tier, direction, lanes, e, ar, fl))
            if arrays is not None:
                arrays[(tier, direction)] = (ar, e, fl, cap)
            blocks += L.bin_blocks(tier, direction, w.group_of_node(np.repeat(nodes, width)), w.groups, e / cap,
                                   ar / cap)
    hot = _hot(w, stages, cap)
    if arrays is not None:
        arrays["pairs"] = (gpu_s, gpu_d, demand)
    edges = np.linspace(0.0, line, L.HIST_BINS + 1)
    ar_v, ecmp_v = ar_gpu[active], ecmp_gpu[active]
    hist = {"edges": [round(float(x), 3) for x in edges],
            "ar": np.histogram(np.clip(ar_v, 0, line), bins=edges)[0].tolist(),
            "ecmp": np.histogram(np.clip(ecmp_v, 0, line), bins=edges)[0].tolist()}
    return L.LoadResult(
        pattern=pattern, placement=placement, job_gpus=n, group=int(grp), seed=seed,
        routing=congestion.fabric_class(r), nic_gbps_per_gpu=line, gpus_on_fabric=int(active.sum()),
        flows=int(m * per_conn), flows_per_connection=int(per_conn), tiers=tuple(rows), ar=L._spread(ar_v),
        ecmp=L._spread(ecmp_v), hot_links=hot, blocks=tuple(blocks), histogram=hist, mix=mix, notes=tuple(notes),
        method=METHOD)


def _hot(w, stages, cap: float) -> tuple[dict, ...]:
    """The ``HOT_LINKS`` most loaded links under static ECMP, named by their two nodes (``node3 -> node7``, ``#q`` a
    link of a bundle of several), the direction the traffic runs."""
    from core.analysis.load import HOT_LINKS

    out = []
    n = w.nodes
    for tier, direction, lanes, e, ar, flows in stages:
        top = np.argsort(-e, kind="stable")[:HOT_LINKS]
        for j in top.tolist():
            if e[j] <= 0:
                continue
            bundle, q = divmod(int(lanes[j]), w.width)
            dim_node, way = divmod(bundle, 2)
            i, node = divmod(dim_node, n)
            other = w.neighbour(node, i, 1)
            a, b = (node, other) if way == 0 else (other, node)
            name = f"{w.node_id(a)} -> {w.node_id(b)}" + (f"#{q}" if w.width > 1 else "")
            out.append({"link": name, "tier": tier, "direction": direction, "ecmp_util": float(e[j] / cap),
                        "ecmp_flows": int(flows[j]), "ar_util": float(ar[j] / cap)})
    out.sort(key=lambda h: (-h["ecmp_util"], h["link"]))
    return tuple(out[:HOT_LINKS])
