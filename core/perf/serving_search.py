"""Searching serving deployments: the largest load within the latency targets, the balanced pools, the cheapest split.

Kept apart from the model (``core.perf.serving``), as calculon keeps its search apart: every answer
here is a deployment the model estimated, and every number a search returns is that estimate's.

* ``max_rate``: the largest request rate [requests/s] whose estimate meets the workload's TTFT and
  TPOT targets (bisection: latency grows with load), bounded by the pools' capacity.
* ``balanced_ratio``: the prefill:decode node ratio at which both pools sustain the same request rate.
* ``search``: per pool, every split that fits (tp, attention dp, ep, pp and the redundant experts that
  make ep divide the expert slots) is rated once by the model's own pool functions (a prefill pool's
  requests/s per GPU at full load, a decode pool's at the TPOT target); the best few per pool are
  paired, their node counts sized (the fewest nodes that serve a given rate, found by bisection on
  estimates; or, without a rate, the whole cluster split at the balanced ratio and moved a step at a
  time while the cost per token falls), and each is estimated. With a rate the fewest GPUs wins (then
  the lowest cost per million output tokens); without, the lowest cost per million output tokens at
  the deployment's ``max_rate``. When nothing meets the targets the result says why, with ways out
  that were estimated and meet them.
* ``what_if_frontend``: the same deployment without the scale-out fabric (each instance inside one
  NVLink domain, KV cache over the front-end network) and what that changes.

Units: request rates [requests/s], times [s] unless a name says ms, cost [USD per million output tokens].
"""

from __future__ import annotations

import math
from decimal import ROUND_FLOOR, Decimal
from dataclasses import dataclass, field

from core.errors import DesignError, TargetError
from core.i18n import N_, _, current, ngettext, usd
from core.perf.serving import (
    Deployment,
    weight_precision,
    PoolSplit,
    ServingEstimate,
    Workload,
    capacity,
    check_pool,
    prefill_latency,
    prefill_pool,
    decode_context,
    decode_step,
    estimate,
    max_batch,
    meets_targets,
    parse_deployment,
    served_estimate,
    usable_hbm_bytes,
    weights_per_gpu_bytes,
)
from core.perf.serving_constants import load_serving_constants
from core.perf.training import ModelSpec
from core.plan import Plan
from core.units import milliseconds

PIPELINE_DEGREES = (1, 2)
"""Pipeline stages the search tries (serving rarely pipelines further: every stage adds a step's latency)."""
EP_SPREAD = 8
"""The search tries expert-parallel degrees from the ranks of a stage down to ranks / EP_SPREAD (expert tensor
parallelism beyond 8-way only adds all-reduces)."""
SPLITS_PER_POOL = 3
"""Best splits per pool the search pairs and sizes."""
PAIRS = 4
"""Prefill x decode pairs (and aggregated splits) the search sizes with estimates."""
SATURATION_MARGIN = 1e-6
"""``max_rate`` without latency targets stops this share below the rate where a pool saturates."""
RATE_TOLERANCE = 1e-3
"""Relative precision of ``max_rate`` [share of the rate]."""
SEARCH_TOLERANCE = 1e-2
"""Relative precision of the rates the search compares deployments at (faster; the winner is re-estimated)."""
MOVES = 3
"""Steps the search moves the prefill:decode split of the cluster while the cost per token falls."""
LIMIT = 20
"""Candidates a search keeps, best first."""
RULE_RATE = N_("fewest GPUs that serve the rate within the targets, then the lowest cost per million output tokens")
RULE_MAX = N_("lowest cost per million output tokens at the largest rate within the targets")
"""The rules a search ranks by (English in ``SearchResult.rule``; ``_()`` them to show)."""


def rate_text(rate: float) -> str:
    """A request rate for people: whole requests/s from 100, else three significant digits, rounded down
    (``shown_rate``: a largest load within the targets is never shown above itself)."""
    shown = shown_rate(rate)
    return f"{shown:,.0f}" if shown >= 100 else f"{shown:.3g}"


def shown_rate(rate: float) -> float:
    """``rate`` [requests/s] rounded down to the digits ``rate_text`` shows (whole requests/s from 100, else three
    significant digits): the load the CLI and the Inference page estimate when they choose it (``shown_load``), so the
    number shown, given back as ``--rate``, is that very load and gives the same split and times everywhere (the
    page's bars of other designs compared at 42.7955 requests/s, shown 42.8, picked a split that 42.8 does not
    meet). Rounding down keeps a largest rate within the targets."""
    if not math.isfinite(rate) or rate <= 0:
        return rate
    exponent = 0 if rate >= 100 else math.floor(math.log10(rate)) - 2
    return float(Decimal(repr(rate)).quantize(Decimal(1).scaleb(exponent), rounding=ROUND_FLOOR))


# --------------------------------------------------------------------------------------
# Load
# --------------------------------------------------------------------------------------
def with_rate(dep: Deployment, rate: float | None) -> Deployment:
    """``dep`` at ``rate`` requests/s (open loop; any concurrency dropped), or at its default load for ``None``."""
    return dep.model_copy(update={"workload": dep.workload.model_copy(update={"rate": rate, "concurrency": None})})


def shown_load(plan: Plan, dep: Deployment) -> Deployment:
    """``dep`` at the load it is shown at (the CLI, the Inference page): its workload's rate or concurrency when it
    gives one; else the largest rate within its targets (``max_rate``), or with no target the default utilisation
    (``serving.toml [memory]``) of its ``capacity``, rounded down to the digits shown (``shown_rate``). Unchanged
    when no rate meets the targets (the estimate then says so at the default load)."""
    w = dep.workload
    if w.rate is not None or w.concurrency is not None:
        return dep
    top = max_rate(plan, dep)
    if top is None:
        return dep
    targets = w.ttft_ms is not None or w.tpot_ms is not None
    return with_rate(dep, shown_rate(top * (1.0 if targets else load_serving_constants().memory.default_utilisation)))


def _bisect_rate(meets, lo: float, hi: float, tolerance: float) -> float:
    """Largest rate in ``[lo, hi)`` for which ``meets`` holds, ``meets(lo)`` true and ``meets(hi)`` false, to
    ``tolerance`` of the rate (geometric steps while the bracket spans more than 4x, then halving) [requests/s]."""
    while hi - lo > tolerance * lo:
        mid = math.sqrt(lo * hi) if hi > 4 * lo else (lo + hi) / 2
        lo, hi = (mid, hi) if meets(mid) else (lo, mid)
    return lo


def max_rate(plan: Plan, dep: Deployment, tolerance: float = RATE_TOLERANCE) -> float | None:
    """The largest request rate whose estimate meets the workload's TTFT and TPOT targets [requests/s].

    Latency grows with the load, so the rate is found by bisection between a negligible load and the
    pools' ``capacity``; without targets it is the capacity (``SATURATION_MARGIN`` below it, where the
    queue is still finite).

    Parameters
    ----------
    plan : Plan
    dep : Deployment
        Its workload's ``rate`` and ``concurrency`` are ignored; ``ttft_ms`` and ``tpot_ms`` are the targets.
    tolerance : float
        Relative precision of the answer: the estimate at ``(1 + tolerance)`` times it misses a target.

    Returns
    -------
    float or None
        [requests/s]; ``None`` when even a negligible load misses a target.

    Raises
    ------
    DesignError
        As ``estimate``: the deployment does not fit the plan.
    """
    top = capacity(plan, dep) * (1 - SATURATION_MARGIN)

    def meets(rate: float) -> bool:
        return meets_targets(plan, with_rate(dep, rate))

    if meets(top):
        return top
    half = top / 2
    if meets(half):
        return _bisect_rate(meets, half, top, tolerance)
    floor = top * 1e-6
    if not meets(floor):
        return None
    return _bisect_rate(meets, floor, half, tolerance)


# --------------------------------------------------------------------------------------
# One pool's split, rated
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PoolRating:
    """One split rated for one pool: requests/s per GPU and the latency it adds.

    Prefill: ``per_gpu`` at full utilisation, ``latency_s`` one request's prefill at a light load.
    Decode: ``per_gpu`` at the largest batch whose step meets the TPOT target (the full KV cache without
    one), ``latency_s`` that step; ``per_gpu`` 0 when even one sequence per rank misses the target
    (``latency_s`` then the step at one sequence: the fastest TPOT the split gives).
    """

    split: PoolSplit
    per_gpu: float
    """[requests/s per GPU]"""
    latency_s: float
    batch: float
    """Prefill: new tokens per rank and batch; decode: sequences per rank and micro-batch."""


def _rate_prefill(plan: Plan, dep: Deployment, split: PoolSplit) -> PoolRating:
    """The prefill pool's requests/s per GPU at full utilisation and one request's prefill at a light load."""
    pool = prefill_pool(plan, dep, split, 0.0, "prefill")
    _wait, own = prefill_latency(plan, dep, pool)
    return PoolRating(split, pool.capacity_tokens_per_s / pool.gpus / dep.workload.new_tokens, own, pool.batch)


def _rate_decode(plan: Plan, dep: Deployment, split: PoolSplit) -> PoolRating | None:
    """The decode pool's requests/s per GPU at the largest batch per rank whose step meets the TPOT target
    (bisection over whole sequences: the step grows with the batch); ``None`` when no sequence fits."""
    context = decode_context(dep)
    cap = max_batch(plan, dep, split, context)
    if cap < 1:
        return None
    target, pool = dep.workload.tpot_ms, dep.model_copy(update={"decode": split})

    def step(batch: float) -> float:
        return decode_step(plan, pool, batch).time_s

    batch, time = cap, step(cap)
    if target is not None and time * 1e3 > target:
        lo, fastest = 1, step(1)
        if fastest * 1e3 > target:
            return PoolRating(split, 0.0, fastest, 1)
        hi = cap
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if step(mid) * 1e3 <= target else (lo, mid)
        batch, time = lo, step(lo)
    per_gpu = split.dp * split.pp * batch / time / split.instance_gpus / dep.workload.output_tokens
    return PoolRating(split, per_gpu, time, batch)


def _step_nodes(plan: Plan, split: PoolSplit) -> int:
    """Fewest nodes a pool of ``split`` can have: whole instances on whole nodes."""
    g = plan.resolved.gpus_per_node
    return math.lcm(split.instance_gpus, g) // g


def _fits(plan: Plan, dep: Deployment, split: PoolSplit, pool: str) -> bool:
    """The pool can serve with this split (``serving.check_pool``: divisions, weights, one prompt's KV cache)."""
    try:
        check_pool(plan, dep, split, pool)
    except DesignError:
        return False
    return True


def redundant_experts(experts: int, ep: int) -> int:
    """Fewest redundant experts that make the expert slots divisible by ``ep`` (at most ``ep - 1``), as
    SGLang and DeepSeek add busy experts' copies (EPLB)."""
    return -experts % ep


def _powers_of_two(most: int) -> list[int]:
    return [2 ** i for i in range(int(math.log2(max(1, most))) + 1)]


def split_options(plan: Plan, model: ModelSpec, network: str = "fabric", most_nodes: int | None = None
                  ) -> list[PoolSplit]:
    """Splits a pool may use: instances of a power of two GPUs or an NVLink domain times one, up to
    ``most_nodes`` (or the plan's nodes; one NVLink domain without the fabric); tp a power of two dividing
    the heads, at most a node or an NVLink domain; pp in ``PIPELINE_DEGREES``; attention dp the rest (1 for a
    dense model: more would only be replicas); ep from the ranks of a stage down to ranks / ``EP_SPREAD``,
    at most the experts, with ``redundant_experts``. Each at its fewest nodes (``nodes`` set to them)."""
    r = plan.resolved
    domain = max(1, r.nvlink_domain_gpus)
    most = (most_nodes or r.nodes) * r.gpus_per_node
    if network == "frontend":
        most = min(most, domain)
    sizes = sorted({s for s in _powers_of_two(most)} | {domain * s for s in _powers_of_two(most // domain)})
    tps = [t for t in _powers_of_two(max(r.gpus_per_node, domain)) if model.heads % t == 0]
    out = []
    for size in sizes:
        for pp in PIPELINE_DEGREES:
            for tp in tps:
                if size % (tp * pp) or pp > model.layers:
                    continue
                dp = size // (tp * pp)
                for ep in _ep_options(model, tp * dp) if model.is_moe else ([1] if dp == 1 else []):
                    split = PoolSplit(tp=tp, dp=dp, ep=ep, pp=pp,
                                      redundant_experts=redundant_experts(model.experts, ep) if model.is_moe else 0)
                    out.append(split.model_copy(update={"nodes": _step_nodes(plan, split)}))
    return out


def _ep_options(model: ModelSpec, ranks: int) -> list[int]:
    """Expert-parallel degrees for ``ranks`` GPUs per stage: ``ranks`` and its halvings down to
    ``ranks / EP_SPREAD``, at most the model's experts."""
    options, ep = [], ranks
    while ep >= max(1, ranks // EP_SPREAD):
        if ep <= model.experts and ranks % ep == 0:
            options.append(ep)
        if ep % 2:
            break
        ep //= 2
    return options


def _rate_splits(plan: Plan, base: Deployment, most: int) -> tuple[list[PoolRating], list[PoolRating]]:
    """(prefill, decode) ratings of every split that fits within ``most`` nodes, best first: most requests/s per
    GPU (decode: those that meet the TPOT target first; then the shorter latency)."""
    prefill, decode = [], []
    for split in split_options(plan, base.model, base.network, most):
        if not _fits(plan, base, split, "decode"):
            continue
        prefill.append(_rate_prefill(plan, base, split))
        rated = _rate_decode(plan, base, split)
        if rated is not None:
            decode.append(rated)
    return _distinct(prefill), _distinct(decode)


def _distinct(ratings: list[PoolRating]) -> list[PoolRating]:
    """Best first (most requests/s per GPU, then the shorter latency), one of each set of splits the model rates
    alike (ep degrees that change nothing: the first, the widest, kept)."""
    seen, out = set(), []
    for x in sorted(ratings, key=lambda x: (-x.per_gpu, x.latency_s)):
        key = (x.split.tp, x.split.dp, x.split.pp, x.split.ep > 1, round(x.per_gpu, 9), round(x.latency_s, 12))
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


# --------------------------------------------------------------------------------------
# Candidates and the result
# --------------------------------------------------------------------------------------
@dataclass
class Candidate:
    """A deployment the search estimated: at the workload's rate, or at its ``max_rate`` without one.

    ``rate`` [requests/s] is the rate ``estimate`` was run at (``None``: no rate meets the targets; the
    estimate is then at the default load).
    """

    deployment: Deployment
    estimate: ServingEstimate
    rate: float | None

    @property
    def gpus(self) -> int:
        return self.estimate.gpus

    @property
    def meets(self) -> bool:
        return self.rate is not None and self.estimate.meets_slo

    def row(self) -> dict:
        """The candidate as one JSON-ready row: splits, GPUs, rate, latencies [s], cost [USD per million output
        tokens], whether it meets the targets."""
        d, e = self.deployment, self.estimate
        finite = lambda x: x if x is not None and math.isfinite(x) else None  # noqa: E731
        pools = {"decode": _split_row(d.decode)}
        if d.mode == "disaggregated":
            pools = {"prefill": _split_row(d.prefill), **pools}
        return {"mode": d.mode, **pools, "gpus": self.gpus, "rate_per_s": self.rate, "ttft_s": finite(e.ttft_s),
                "tpot_s": e.tpot_s, "output_tokens_per_s": e.output_tokens_per_s,
                "usd_per_million_output_tokens": finite(e.usd_per_million_output_tokens), "meets_slo": self.meets}


def _split_row(s: PoolSplit) -> dict:
    return {"nodes": s.nodes, "tp": s.tp, "dp": s.dp, "ep": s.ep, "pp": s.pp, "redundant_experts": s.redundant_experts}


def describe(dep: Deployment) -> str:
    """One line naming a deployment's pools, e.g. ``prefill 4 nodes tp 1 dp 32 ep 32 + decode 9 nodes ...``."""
    def one(name: str, s: PoolSplit) -> str:
        text = ngettext("{pool} {nodes} node tp {tp} dp {dp} ep {ep} pp {pp}",
                        "{pool} {nodes} nodes tp {tp} dp {dp} ep {ep} pp {pp}", s.nodes).format(
            pool=name, nodes=s.nodes, tp=s.tp, dp=s.dp, ep=s.ep, pp=s.pp)
        return text + (_(" ({n} redundant experts)").format(n=s.redundant_experts) if s.redundant_experts else "")

    if dep.mode == "aggregated":
        return one(_("aggregated"), dep.decode)
    return one(_("prefill"), dep.prefill) + " + " + one(_("decode"), dep.decode)


@dataclass
class SearchResult:
    """What ``search`` found: candidates best first, the rule that ranked them and, when none meets the
    targets, why (``reason``) and ways out that were estimated and meet them (``ways_out``)."""

    candidates: list[Candidate]
    rule: str
    splits_considered: dict[str, int] = field(default_factory=dict)
    reason: str | None = None
    ways_out: list[str] = field(default_factory=list)

    @property
    def best(self) -> Deployment | None:
        """The chosen deployment, ``None`` when no candidate meets the targets."""
        return self.candidates[0].deployment if self.candidates and self.candidates[0].meets else None

    @property
    def best_estimate(self) -> ServingEstimate | None:
        return self.candidates[0].estimate if self.best is not None else None

    def explain(self) -> list[dict]:
        """Every candidate as a row (``Candidate.row``) with its verdict against the chosen one."""
        rows = []
        for i, c in enumerate(self.candidates):
            row = c.row()
            if not c.meets:
                row["verdict"] = "misses the targets"
            elif i == 0:
                row["verdict"] = "chosen"
            else:
                row["verdict"] = "meets the targets; ranked lower"
            rows.append(row)
        return rows

    def summary(self) -> dict:
        """JSON-ready: the rule, the chosen candidate's row (or ``None``), how many were considered, the reason
        and the ways out."""
        return {"rule": self.rule, "chosen": self.candidates[0].row() if self.best is not None else None,
                "candidates": len(self.candidates), "splits_considered": dict(self.splits_considered),
                "reason": self.reason, "ways_out": list(self.ways_out)}


# --------------------------------------------------------------------------------------
# Sizing the pools
# --------------------------------------------------------------------------------------
@dataclass
class _Context:
    """One search's fixed inputs and what it learnt about the nodes it lacked."""

    plan: Plan
    base: Deployment
    most: int
    """Nodes the deployment may use."""
    rate: float | None
    short: int | None = None
    """Fewest nodes a pair would have needed for the rate, when more than ``most``."""

    def deployment(self, mode: str, prefill: PoolSplit, decode: PoolSplit) -> Deployment:
        return self.base.model_copy(update={"mode": mode, "prefill": prefill, "decode": decode})

    def note_short(self, nodes: int) -> None:
        self.short = nodes if self.short is None else min(self.short, nodes)


def _nodes_for(rate: float, rating: PoolRating, gpus_per_node: int, utilisation: float = 1.0) -> int:
    """Nodes (whole instances) a pool rated ``rating`` needs for ``rate`` requests/s at ``utilisation``."""
    step = rating.split.nodes
    return max(1, math.ceil(rate / (rating.per_gpu * utilisation * gpus_per_node * step) * (1 + 1e-9))) * step


def _fewest(estimated, lo: int, hi: int, step: int, top: ServingEstimate) -> tuple[int, ServingEstimate]:
    """The smallest multiple of ``step`` in ``[lo, hi]`` whose estimate meets the targets, and that estimate
    (bisection; ``top``, the estimate at ``hi``, meets them and more nodes never hurt); ``estimated(n)``: the
    estimate at ``n`` nodes, None where the load overloads them (``serving.served_estimate``)."""
    lo_k, hi_k = max(1, math.ceil(lo / step)), hi // step
    best = top
    while lo_k < hi_k:
        mid = (lo_k + hi_k) // 2
        e = estimated(mid * step)
        if e is not None and e.meets_slo:
            hi_k, best = mid, e
        else:
            lo_k = mid + 1
    return hi_k * step, best


def _pair_for_rate(ctx: _Context, pr: PoolRating, dr: PoolRating) -> Candidate | None:
    """A disaggregated pair sized for the workload's rate: the decode nodes that keep TPOT (one more instance
    while the estimate misses it), then the fewest prefill nodes that keep TTFT (bisection on estimates)."""
    g, rate = ctx.plan.resolved.gpus_per_node, ctx.rate
    nd = _nodes_for(rate, dr, g)
    np_lo = _nodes_for(rate, pr, g)
    step_p, step_d = pr.split.nodes, dr.split.nodes

    def dep(np_: int, nd_: int) -> Deployment:
        return ctx.deployment("disaggregated", pr.split.model_copy(update={"nodes": np_}),
                              dr.split.model_copy(update={"nodes": nd_}))

    for _attempt in range(3):
        hi = (ctx.most - nd) // step_p * step_p
        if hi < max(np_lo, step_p):
            ctx.note_short(np_lo + nd)
            return None
        top = estimate(ctx.plan, dep(hi, nd))
        if top.meets_slo:
            break
        if top.deployment.workload.tpot_ms is None or top.tpot_s * 1e3 <= top.deployment.workload.tpot_ms:
            return Candidate(top.deployment, top, rate)  # the most prefill this pair can have misses TTFT
        nd += step_d
    else:
        return Candidate(top.deployment, top, rate)
    np_, best = _fewest(lambda n: served_estimate(ctx.plan, dep(n, nd)), np_lo, hi, step_p, top)
    return Candidate(dep(np_, nd), best, rate)


def _aggregated_for_rate(ctx: _Context, rating: PoolRating, score: float) -> Candidate | None:
    """One aggregated split sized for the workload's rate: the fewest nodes whose estimate meets the targets
    (bisection), from the nodes its combined rating ``score`` [requests/s per GPU] suggests (not a bound: chunked
    prefill also fills compute a memory-bound decode step leaves idle, so fewer may do; the bisection starts
    from one instance then)."""
    g, step = ctx.plan.resolved.gpus_per_node, rating.split.nodes
    hi = ctx.most // step * step
    if hi < step:
        ctx.note_short(step)
        return None
    guess = min(_nodes_for(ctx.rate, PoolRating(rating.split, score, 0.0, 0.0), g), hi)

    def dep(n: int) -> Deployment:
        return ctx.deployment("aggregated", ctx.base.prefill, rating.split.model_copy(update={"nodes": n}))

    top = estimate(ctx.plan, dep(guess))
    if top.meets_slo:
        lo, hi = step, guess
    else:
        lo = guess + step
        top = estimate(ctx.plan, dep(hi)) if hi > guess else top
        if not top.meets_slo:  # short of nodes: at least those that would saturate at the rate
            ctx.note_short(max(hi + step, math.ceil(hi * ctx.rate / capacity(ctx.plan, top.deployment) / step) * step))
            return Candidate(top.deployment, top, ctx.rate)
    nodes, best = _fewest(lambda n: served_estimate(ctx.plan, dep(n)), lo, hi, step, top)
    return Candidate(dep(nodes), best, ctx.rate)


def _at_max_rate(ctx: _Context, dep: Deployment, tolerance: float = SEARCH_TOLERANCE) -> Candidate:
    """``dep`` estimated at its ``max_rate`` (at the default load when no rate meets the targets)."""
    rate = max_rate(ctx.plan, dep, tolerance)
    return Candidate(dep, estimate(ctx.plan, with_rate(dep, rate)), rate)


def _refined(ctx: _Context, c: Candidate) -> Candidate:
    """A candidate found at ``SEARCH_TOLERANCE`` re-estimated at its ``max_rate`` to ``RATE_TOLERANCE``."""
    dep = c.deployment

    def meets(rate: float) -> bool:
        return meets_targets(ctx.plan, with_rate(dep, rate))

    hi = min(c.rate * (1 + SEARCH_TOLERANCE), capacity(ctx.plan, dep) * (1 - SATURATION_MARGIN))
    if meets(hi):
        return _at_max_rate(ctx, dep, RATE_TOLERANCE)
    rate = _bisect_rate(meets, c.rate, hi, RATE_TOLERANCE)
    return Candidate(dep, estimate(ctx.plan, with_rate(dep, rate)), rate)


def _cost(c: Candidate) -> float:
    """Sort key: cost per million output tokens of a candidate that meets the targets, else infinity."""
    return c.estimate.usd_per_million_output_tokens if c.meets else math.inf


def _pair_at_share(ctx: _Context, pr: PoolRating, dr: PoolRating) -> tuple[int, Candidate | None]:
    """A disaggregated pair on all ``ctx.most`` nodes, the prefill nodes at the balanced share (the prefill pool at
    the default utilisation), estimated at its ``max_rate``: (prefill nodes, candidate or None when the pair's
    instances do not fit the nodes)."""
    step_p, step_d = pr.split.nodes, dr.split.nodes
    if step_p + step_d > ctx.most:
        ctx.note_short(step_p + step_d)
        return 0, None
    rho = load_serving_constants().memory.default_utilisation
    share = (1 / (pr.per_gpu * rho)) / (1 / (pr.per_gpu * rho) + 1 / dr.per_gpu)
    np_ = min(max(step_p, round(ctx.most * share / step_p) * step_p), (ctx.most - step_d) // step_p * step_p)
    return np_, _pair_with(ctx, pr, dr, np_)


def _pair_with(ctx: _Context, pr: PoolRating, dr: PoolRating, np_: int) -> Candidate | None:
    """The pair with ``np_`` prefill nodes and the rest of ``ctx.most`` (whole instances) decoding, at its
    ``max_rate``; None when either pool would have no instance."""
    nd = (ctx.most - np_) // dr.split.nodes * dr.split.nodes
    if np_ < pr.split.nodes or nd < dr.split.nodes:
        return None
    return _at_max_rate(ctx, ctx.deployment("disaggregated", pr.split.model_copy(update={"nodes": np_}),
                                            dr.split.model_copy(update={"nodes": nd})))


def _prefill_binds(c: Candidate) -> bool:
    """At the candidate's rate, is the prefill side (TTFT, or the prefill pool's load without targets) nearer its
    limit than the decode side (TPOT, or the decode pool's load)?"""
    e, w = c.estimate, c.deployment.workload
    if w.ttft_ms is not None and w.tpot_ms is not None:
        return e.ttft_s * 1e3 / w.ttft_ms >= e.tpot_s * 1e3 / w.tpot_ms
    if w.ttft_ms is not None or w.tpot_ms is not None:
        return w.ttft_ms is not None
    return e.prefill.utilisation >= e.decode.utilisation


def _moved(ctx: _Context, pr: PoolRating, dr: PoolRating, np_: int, best: Candidate) -> list[Candidate]:
    """The pair's node split moved one prefill instance at a time while the cost per token at ``max_rate`` falls
    (at most ``MOVES`` steps): first towards the side that binds (``_prefill_binds``), the other way only when
    that did not pay; every deployment tried."""
    tried = []
    step = pr.split.nodes if _prefill_binds(best) else -pr.split.nodes
    for direction in (step, -step):
        paid = False
        for _move in range(MOVES):
            c = _pair_with(ctx, pr, dr, np_ + direction)
            if c is None:
                break
            tried.append(c)
            if _cost(c) >= _cost(best):
                break
            np_, best, paid = np_ + direction, c, True
        if paid:
            break
    return tried


# --------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------
def _combined(pr: PoolRating, dr: PoolRating) -> float:
    """Requests/s per GPU of a prefill and a decode rating together, the prefill side at the default utilisation
    (each request spends ``1 / rate`` GPU-seconds in each pool)."""
    rho = load_serving_constants().memory.default_utilisation
    return 1 / (1 / (pr.per_gpu * rho) + 1 / dr.per_gpu)


def _pool_order(ctx: _Context, ratings: list[PoolRating], utilisation: float) -> list[PoolRating]:
    """The ratings a pool pairs from: with a rate, fewest nodes for the rate first (small instances win small
    loads), else most requests/s per GPU; ``SPLITS_PER_POOL`` of them."""
    if ctx.rate is None:
        return ratings[:SPLITS_PER_POOL]
    g = ctx.plan.resolved.gpus_per_node
    return sorted(ratings, key=lambda x: (_nodes_for(ctx.rate, x, g, utilisation), -x.per_gpu))[:SPLITS_PER_POOL]


def _disaggregated(ctx: _Context, prefill: list[PoolRating], decode: list[PoolRating]) -> list[Candidate]:
    """Pair the best prefill and decode splits (those that meet the targets on their own), the ``PAIRS`` with the
    most requests/s per GPU together sized and estimated."""
    ttft = ctx.base.workload.ttft_ms
    rho = load_serving_constants().memory.default_utilisation
    fast = [x for x in prefill if ttft is None or x.latency_s * 1e3 < ttft]
    pairs = [(p, d) for p in _pool_order(ctx, fast, rho) for d in _pool_order(ctx, [x for x in decode if x.per_gpu],
                                                                                 1.0)]
    pairs.sort(key=lambda pd: -_combined(*pd))
    if ctx.rate is not None:
        return [c for p, d in pairs[:PAIRS] if (c := _pair_for_rate(ctx, p, d)) is not None]
    sized = [(p, d, *_pair_at_share(ctx, p, d)) for p, d in pairs[:PAIRS]]
    out = [c for *_pd, c in sized if c is not None]
    if out:  # only the cheapest pair's node split is refined
        p, d, np_, best = min((x for x in sized if x[3] is not None), key=lambda x: _cost(x[3]))
        out += _moved(ctx, p, d, np_, best)
    return out


def _aggregated(ctx: _Context, prefill: list[PoolRating], decode: list[PoolRating]) -> list[Candidate]:
    """The splits rated for both phases, the ``PAIRS`` with the most requests/s per GPU sized and estimated: for
    the rate, or on all the nodes at ``max_rate``."""
    by_split = {p.split: p for p in prefill}
    both = [(by_split[d.split], d) for d in decode if d.per_gpu and d.split in by_split]
    if ctx.rate is not None:
        g = ctx.plan.resolved.gpus_per_node
        both.sort(key=lambda pd: (_nodes_for(ctx.rate, PoolRating(pd[1].split, _combined(*pd), 0, 0), g),
                                  -_combined(*pd)))
    else:
        both.sort(key=lambda pd: -_combined(*pd))
    out = []
    for p, d in both[:PAIRS]:
        if ctx.rate is not None:
            c = _aggregated_for_rate(ctx, d, _combined(p, d))
        elif d.split.nodes <= ctx.most:
            split = d.split.model_copy(update={"nodes": ctx.most // d.split.nodes * d.split.nodes})
            c = _at_max_rate(ctx, ctx.deployment("aggregated", ctx.base.prefill, split))
        else:
            ctx.note_short(d.split.nodes)
            c = None
        if c is not None:
            out.append(c)
    return out


def _rank(candidates: list[Candidate], by_rate: bool) -> list[Candidate]:
    """Best first: with a rate, those that meet the targets, fewest GPUs, then the lowest cost per million output
    tokens; without, the lowest cost at ``max_rate``."""
    if by_rate:
        return sorted(candidates, key=lambda c: (not c.meets, c.gpus, c.estimate.usd_per_million_output_tokens))
    return sorted(candidates, key=lambda c: (not c.meets, _cost(c), c.gpus))


def search(plan: Plan, model: ModelSpec | str, workload: Workload | dict, *, mode: str | None = "disaggregated",
           precision: str = "fp8", kv_precision: str = "bf16", network: str = "fabric", max_nodes: int | None = None,
           limit: int = LIMIT, ways_out: bool = True) -> SearchResult:
    """The cheapest deployment of ``model`` on ``plan`` that meets the workload's targets.

    Parameters
    ----------
    plan : Plan
    model : ModelSpec or str
        A model or a preset name (``core.perf.training.PRESETS``).
    workload : Workload or dict
        Lengths [tokens], prefix-cache hit, targets [ms] and optionally ``rate`` [requests/s]; a concurrency
        is ignored (the search sizes for a rate or for the most the deployment serves).
    mode : ``"disaggregated"``, ``"aggregated"`` or None
        None searches both.
    precision, kv_precision, network : str
        As ``Deployment``.
    max_nodes : int, optional
        Nodes the deployment may use (default: all the plan's).
    limit : int
        Candidates kept, best first.
    ways_out : bool
        When nothing meets the targets, look for changes that do (each a further search).

    Returns
    -------
    SearchResult
        With a rate, the fewest GPUs that serve it within TTFT and TPOT (then the lowest cost per million
        output tokens); without, the lowest cost per million output tokens at the deployment's ``max_rate``.

    Raises
    ------
    InputError
        A value out of range (``parse_deployment``).
    DesignError
        The GPU has no tensor cores for the precision.
    """
    wl = workload.model_dump() if isinstance(workload, Workload) else dict(workload)
    wl["concurrency"] = None
    precision = weight_precision(precision, plan.resolved.system)
    base = parse_deployment({"model": model, "precision": precision, "kv_precision": kv_precision,
                             "workload": wl, "network": network})
    r = plan.resolved
    ctx = _Context(plan, base, min(max_nodes or r.nodes, r.nodes), base.workload.rate)
    from core.perf.training import precision_peak_tflops
    precision_peak_tflops(r.system, precision)
    prefill, decode = _rate_splits(plan, base, ctx.most)
    candidates: list[Candidate] = []
    for m in ("disaggregated", "aggregated") if mode is None else (mode,):
        candidates += (_disaggregated if m == "disaggregated" else _aggregated)(ctx, prefill, decode)
    candidates = _rank(candidates, ctx.rate is not None)[:limit]
    if candidates and candidates[0].meets and ctx.rate is None:
        candidates[0] = _refined(ctx, candidates[0])
    rule = RULE_RATE if ctx.rate is not None else RULE_MAX
    result = SearchResult(candidates, rule, {"prefill": len(prefill), "decode": len(decode)})
    if result.best is None:
        result.reason = _why_not(ctx, prefill, decode, candidates)
        if ways_out:
            result.ways_out = _ways_out(ctx, prefill, decode, candidates, mode)
    return result


# --------------------------------------------------------------------------------------
# Nothing meets the targets: why, and what would
# --------------------------------------------------------------------------------------
def _why_not(ctx: _Context, prefill: list[PoolRating], decode: list[PoolRating], candidates: list[Candidate]) -> str:
    """One sentence: the first thing that keeps every deployment from the targets."""
    w, m = ctx.base.workload, ctx.base.model
    if not prefill:
        return _("{model} does not fit: no split of up to {nodes} nodes leaves HBM for its weights at {precision}.").format(
            model=m.name, nodes=f"{ctx.most:,}", precision=ctx.base.precision.upper())
    if not decode:
        return _("No split of up to {nodes} nodes keeps one sequence's KV cache of {tokens} tokens beside the "
                 "weights.").format(nodes=f"{ctx.most:,}", tokens=f"{decode_context(ctx.base):,.0f}")
    if not any(d.per_gpu for d in decode):
        return _("No split decodes within the TPOT target of {target}: the fastest step takes {fastest}.").format(
            target=milliseconds(w.tpot_ms / 1e3), fastest=milliseconds(min(d.latency_s for d in decode)))
    if w.ttft_ms is not None and all(p.latency_s * 1e3 >= w.ttft_ms for p in prefill):
        return _("No split prefills a {tokens}-token prompt within the TTFT target of {target}: the fastest takes "
                 "{fastest}.").format(tokens=f"{w.new_tokens:,.0f}", target=milliseconds(w.ttft_ms / 1e3),
                                      fastest=milliseconds(min(p.latency_s for p in prefill)))
    closest = _closest(candidates)
    if closest is not None:
        e = closest.estimate
        return _("No deployment within {most} nodes meets the targets: the closest, {deployment}, reaches TTFT {ttft} "
                 "and TPOT {tpot}.").format(most=f"{ctx.most:,}", deployment=describe(closest.deployment),
                                            ttft=milliseconds(e.ttft_s), tpot=milliseconds(e.tpot_s))
    if ctx.short is not None:
        if ctx.rate is None:
            return _("The splits that meet the targets need {need} nodes; {most} may be used.").format(
                need=f"{ctx.short:,}", most=f"{ctx.most:,}")
        return _("Serving {rate} requests/s needs at least {need} nodes; {most} may be used.").format(
            rate=rate_text(ctx.rate), need=f"{ctx.short:,}", most=f"{ctx.most:,}")
    return _("No deployment within {most} nodes meets the targets.").format(most=f"{ctx.most:,}")


def ways_out_text(ways: list[str]) -> str:
    """Ways out (``SearchResult.ways_out``), each a sentence with commas of its own, as one suggestion: joined by
    semicolons, after "Ways out (each estimated):" (empty when there are none)."""
    if not ways:
        return ""
    return _("Ways out (each estimated): {ways}.").format(ways=("；" if current() == "zh" else "; ").join(ways))


def missed_targets(result: SearchResult) -> TargetError:
    """The error a search that found nothing stands for: its reason and its estimated ways out, what ``python -m
    core serve`` prints and the Inference page shows for the same question."""
    return TargetError(result.reason or "", ways_out_text(result.ways_out)
                       or _("Relax the targets, lower the load or plan more nodes."))


def _closest(candidates: list[Candidate]) -> Candidate | None:
    """The candidate nearest its targets: the smallest ratio of a latency to its target (TTFT or TPOT, whichever
    is worse); None when every TTFT is unbounded."""
    def excess(c: Candidate) -> float:
        e, w = c.estimate, c.deployment.workload
        ratios = [e.ttft_s * 1e3 / w.ttft_ms if w.ttft_ms else 0.0, e.tpot_s * 1e3 / w.tpot_ms if w.tpot_ms else 0.0]
        return max(ratios)

    bounded = [c for c in candidates if math.isfinite(c.estimate.ttft_s)]
    return min(bounded, key=excess) if bounded else None


def _nice_ms(seconds: float) -> float:
    """A target [ms] at least ``seconds``, rounded up to two significant digits."""
    ms = seconds * 1e3
    scale = 10 ** max(0, math.floor(math.log10(ms)) - 1) if ms > 0 else 1
    return math.ceil(ms / scale) * scale


def _relaxed(ctx: _Context, prefill: list[PoolRating], decode: list[PoolRating], candidates: list[Candidate]
             ) -> dict | None:
    """Targets the pools or the closest candidate reach (only the ones that were missed, with 10% to spare), or
    None when relaxing cannot help (the load exceeds the pools)."""
    w = ctx.base.workload
    tpot, ttft = w.tpot_ms, w.ttft_ms
    if decode and not any(d.per_gpu for d in decode):
        tpot = _nice_ms(1.1 * min(d.latency_s for d in decode))
    if prefill and ttft is not None and all(p.latency_s * 1e3 >= ttft for p in prefill):
        ttft = _nice_ms(1.5 * min(p.latency_s for p in prefill) + (tpot or 0) * 1e-3)
    closest = _closest(candidates)
    if (tpot, ttft) == (w.tpot_ms, w.ttft_ms) and closest is not None:
        e = closest.estimate
        tpot = max(tpot, _nice_ms(1.1 * e.tpot_s)) if tpot is not None else None
        ttft = max(ttft, _nice_ms(1.1 * e.ttft_s)) if ttft is not None else None
    if (tpot, ttft) == (w.tpot_ms, w.ttft_ms):
        return None
    return {**w.model_dump(), "tpot_ms": tpot, "ttft_ms": ttft}


def _found(result: SearchResult) -> str:
    """``{deployment}: {gpus} GPUs at {rate} requests/s, {cost} per million output tokens`` of a search's best
    (money by the one money format, ``core.i18n.usd``, in the session's currency)."""
    e = result.best_estimate
    return _("{deployment}: {gpus} GPUs at {rate} requests/s, {cost} per million output tokens").format(
        deployment=describe(result.best), gpus=f"{e.gpus:,}", rate=rate_text(e.rate),
        cost=usd(e.usd_per_million_output_tokens, cents=True))


def _bigger_plan(plan: Plan, nodes: int) -> Plan | None:
    """The plan's design with ``nodes`` nodes, re-planned; None when that design cannot be built."""
    from core.design import Design
    from core.errors import InputError
    from core.plan import plan as make_plan

    data = plan.resolved.design.model_dump()
    data.update(nodes=nodes, gpus=None)
    try:
        return make_plan(Design.model_validate(data))
    except (DesignError, InputError, ValueError):
        return None


def _ways_out(ctx: _Context, prefill: list[PoolRating], decode: list[PoolRating], candidates: list[Candidate],
              mode: str | None) -> list[str]:
    """Changes that meet the targets, each found by a further search (so estimated): relaxed targets, a lower
    rate, more nodes, a lower precision."""
    b = ctx.base
    again = dict(mode=mode, precision=b.precision, kv_precision=b.kv_precision, network=b.network,
                 max_nodes=ctx.most, ways_out=False)
    out = []
    relaxed = _relaxed(ctx, prefill, decode, candidates)
    if relaxed is not None and (r := search(ctx.plan, b.model, relaxed, **again)).best is not None:
        out.append(_("relax the targets to TTFT {ttft} and TPOT {tpot}: {found}").format(
            ttft=milliseconds(relaxed["ttft_ms"] / 1e3) if relaxed["ttft_ms"] else "-",
            tpot=milliseconds(relaxed["tpot_ms"] / 1e3) if relaxed["tpot_ms"] else "-", found=_found(r)))
    if ctx.rate is not None and (r := search(ctx.plan, b.model, {**b.workload.model_dump(), "rate": None},
                                             **again)).best is not None:
        out.append(_("serve at most {rate} requests/s on these nodes: {found}").format(
            rate=rate_text(r.best_estimate.rate), found=_found(r)))
    out += _more_nodes(ctx, candidates, again)
    if mode == "disaggregated" and (r := search(ctx.plan, b.model, b.workload, **{**again, "mode": "aggregated"})
                                    ).best is not None:
        out.append(_("serve aggregated (one pool prefills and decodes): {found}").format(found=_found(r)))
    lower = {"bf16": "fp8", "fp8": "fp4"}.get(b.precision)
    if not prefill and lower and ctx.plan.resolved.system.peak_tflops(lower) > 0:
        r = search(ctx.plan, b.model, b.workload, **{**again, "precision": lower})
        if r.best is not None:
            out.append(_("use {precision}: {found}").format(precision=lower.upper(), found=_found(r)))
    return out


def _more_nodes(ctx: _Context, candidates: list[Candidate], again: dict) -> list[str]:
    """More nodes that meet the targets, re-planned and searched: from the nodes a pair lacked (the prefill pool
    then counted at full load), the closest candidate scaled to the rate, or twice the nodes the weights need;
    that count, then half as many again."""
    b, r = ctx.base, ctx.plan.resolved
    need = ctx.short
    if need is None and ctx.rate is not None and candidates and (top := max_rate(ctx.plan, candidates[0].deployment,
                                                                             SEARCH_TOLERANCE)):
        need = math.ceil(sum(p.nodes for p in candidates[0].deployment.pools) * ctx.rate / top)
    if need is None and not candidates:
        weights = weights_per_gpu_bytes(b, PoolSplit()) / usable_hbm_bytes(ctx.plan)
        need = 2 * math.ceil(weights / r.gpus_per_node)
    if need is None or need <= ctx.most:
        return []
    for nodes in (need, math.ceil(need * 1.5)):
        if nodes <= r.nodes:
            found = search(ctx.plan, b.model, b.workload, **{**again, "max_nodes": nodes})
            way = _("use {nodes} nodes: {found}")
        else:  # the design re-planned at that size: its deployment may use fewer of them
            bigger = _bigger_plan(ctx.plan, nodes)
            found = search(bigger, b.model, b.workload, **{**again, "max_nodes": nodes}) if bigger else None
            way = _("grow the design to {nodes} nodes: {found}")
        if found is not None and found.best is not None:
            return [way.format(nodes=f"{nodes:,}", found=_found(found))]
    return []


# --------------------------------------------------------------------------------------
# Without the scale-out fabric
# --------------------------------------------------------------------------------------
def _best_in_domain(plan: Plan, dep: Deployment, split: PoolSplit, pool: str) -> PoolSplit | None:
    """The best split for ``pool`` within one NVLink domain on ``split``'s nodes (most requests/s per GPU), or
    None when none fits."""
    options = [s for s in split_options(plan, dep.model, "frontend") if split.nodes % s.nodes == 0]
    ratings = []
    for s in options:
        s = s.model_copy(update={"nodes": split.nodes})
        if _fits(plan, dep, s, pool):
            rated = _rate_prefill(plan, dep, s) if pool == "prefill" else _rate_decode(plan, dep, s)
            if rated is not None:
                ratings.append(rated)
    if not ratings:
        return None
    return max(ratings, key=lambda x: (x.per_gpu, -x.latency_s)).split


def _difference(a: float | None, b: float | None) -> float | None:
    """``b - a`` when both are known and finite."""
    return b - a if a is not None and b is not None and math.isfinite(a) and math.isfinite(b) else None


def _frontend_deployment(plan: Plan, dep: Deployment) -> tuple[Deployment | None, list[str], str | None]:
    """``dep`` without the compute fabric: each pool whose instance leaves its NVLink domain re-split within one
    (``_best_in_domain``); (deployment or None, the pools re-split, why not)."""
    front = dep.model_copy(update={"network": "frontend"})
    names = ("decode",) if dep.mode == "aggregated" else ("prefill", "decode")
    resplit = []
    for name in names:
        split = getattr(front, name)
        if _fits(plan, front, split, name):
            continue
        new = _best_in_domain(plan, front, split, name)
        if new is None:
            from core.perf.serving import pool_label

            return None, resplit, _("{pool}: {model} does not fit one NVLink domain of {domain} GPUs at {precision}; "
                                    "without the compute fabric it cannot be served.").format(
                pool=pool_label(name, dep.mode == "aggregated"), model=dep.model.name, domain=plan.resolved.nvlink_domain_gpus,
                precision=dep.precision.upper())
        front = front.model_copy(update={name: new})
        resplit.append(name)
    return front, resplit, None


def what_if_frontend(plan: Plan, dep: Deployment) -> dict:
    """The same deployment without the scale-out fabric: expert parallelism confined to one NVLink domain (a
    pool whose instance spans domains re-split to the best split within one), the KV cache over the front-end
    network.

    Both are estimated at the same load (the workload's rate, else the fabric deployment's default load) and
    at their ``max_rate``. Returns a JSON-ready dict: ``fabric`` and ``frontend`` (``ServingEstimate.summary``,
    ``frontend`` None with a ``reason`` when the model does not fit a domain), ``resplit`` (the pools re-split),
    ``rate_per_s`` (the common load [requests/s]), ``max_rate_per_s`` of each, and ``difference`` (frontend
    minus fabric): ``ttft_s`` and ``tpot_s`` [s] at the common load, ``output_tokens_per_s`` at each one's
    ``max_rate`` [tokens/s] and ``usd_per_million_output_tokens`` there [USD].

    Raises
    ------
    DesignError
        ``dep`` itself does not fit the plan (as ``estimate``).
    """
    fabric = estimate(plan, dep)
    rate = fabric.rate
    front, resplit, reason = _frontend_deployment(plan, dep)
    out = {"fabric": fabric.summary(), "frontend": None, "resplit": resplit, "reason": reason, "rate_per_s": rate,
           "max_rate_per_s": {"fabric": max_rate(plan, dep), "frontend": None}, "difference": None}
    if front is None:
        return out
    try:
        same = estimate(plan, with_rate(front, rate))
    except DesignError as exc:
        out["reason"] = str(exc)
        return out
    top = max_rate(plan, front)
    out["frontend"], out["max_rate_per_s"]["frontend"] = same.summary(), top
    at_max = {name: estimate(plan, with_rate(d, r)) if r else None
              for name, d, r in (("fabric", dep, out["max_rate_per_s"]["fabric"]), ("frontend", front, top))}
    tokens = {k: e.output_tokens_per_s if e else None for k, e in at_max.items()}
    usd = {k: e.usd_per_million_output_tokens if e else None for k, e in at_max.items()}
    out["difference"] = {"ttft_s": _difference(fabric.ttft_s, same.ttft_s),
                         "tpot_s": _difference(fabric.tpot_s, same.tpot_s),
                         "output_tokens_per_s": _difference(tokens["fabric"], tokens["frontend"]),
                         "usd_per_million_output_tokens": _difference(usd["fabric"], usd["frontend"])}
    return out


def balanced_ratio(plan: Plan, dep: Deployment) -> float:
    """Prefill:decode node ratio at which both pools of ``dep``'s splits sustain the same request rate.

    Defined as ``(requests/s one decode node sustains) / (requests/s one prefill node sustains)``: a decode
    node at the largest batch whose step meets the TPOT target (the full KV cache without a target), a
    prefill node busy all the time (its TTFT queueing then needs some headroom on top). ``prefill_nodes =
    ratio x decode_nodes`` balances them. Node counts in ``dep`` do not matter; the mode is ignored (the
    ratio is the disaggregated one for these splits).

    Raises
    ------
    DesignError
        A split does not fit the model or the plan, or no sequence's KV cache fits (the ratio is undefined), or
        no batch meets the TPOT target.
    """
    names = ("prefill", "decode")
    for name in names:
        check_pool(plan, dep, getattr(dep, name).model_copy(update={"nodes": _step_nodes(plan, getattr(dep, name))}),
                   name)
    prefill = _rate_prefill(plan, dep, dep.prefill.model_copy(update={"nodes": _step_nodes(plan, dep.prefill)}))
    decode = _rate_decode(plan, dep, dep.decode.model_copy(update={"nodes": _step_nodes(plan, dep.decode)}))
    if decode is None or not decode.per_gpu:
        raise DesignError(_("decode pool: no batch of this split meets the TPOT target, so no ratio balances the "
                            "pools."), _("Relax the TPOT target or change the decode split."))
    return decode.per_gpu / prefill.per_gpu
