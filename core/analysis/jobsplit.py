"""The training job's split, searched with the fabric: the optimizer's days to train of a candidate are those of
the job's fastest tensor/pipeline split on it (``core.perf.training.choose_split``, the split search of
``python -m core train``; a mixture-of-experts model's expert-parallel degree searched too), so "the cheapest
design on which Llama 3 70B trains in 10 days" is one question.

A split search runs a few dozen step estimates; candidates that differ only in what the estimate does not read
(prices, optics, cable lengths) share one: the search is a function of what the estimates read of a plan but its
price (``core.analysis.perfview.unpriced``), the job and the language of its errors, cached by those arguments
(``core.memo.stage``). ``tests/test_optimize_search.py`` checks the candidates' answers against fresh searches of
their own plans.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.analysis.perfview import PerfPlan, unpriced
from core.errors import FabricPlannerError
from core.i18n import current
from core.memo import spoken, stage, view
from core.perf.commview import PerfBandwidth, PerfFabric
from core.perf import congestion
from core.perf.collectives import nccl_release, nccl_release_now

CACHE_ENTRIES = 20_000
"""Split searches kept (each a few hundred bytes)."""


@dataclass(frozen=True)
class Split:
    """The fastest split of a job on a design: tensor, pipeline, expert and data parallel sizes, the global batch
    [sequences], step time [s] and days to train."""

    tp: int
    pp: int
    ep: int
    dp: int
    global_batch: int
    step_s: float
    days: float

    def words(self) -> str:
        """``tp 8 x pp 4 x dp 512`` (``x ep 8`` too when experts are split)."""
        parts = [f"tp {self.tp}", f"pp {self.pp}", *([f"ep {self.ep}"] if self.ep > 1 else []),
                 f"dp {self.dp:,}"]
        return " × ".join(parts)

    def summary(self) -> dict:
        return {"tp": self.tp, "pp": self.pp, "ep": self.ep, "dp": self.dp, "global_batch": self.global_batch,
                "step_time_s": round(self.step_s, 4), "days_to_train": round(self.days, 3)}


def fastest(plan, job) -> Split:
    """The fastest split of ``job`` on ``plan`` (``choose_split``'s answer: the expert-parallel degree searched for a
    mixture-of-experts model), cached by what the estimates read of ``plan`` but its price (``fastest_split``).
    Raises the search's ``DesignError`` when no split fits."""
    return fastest_split(unpriced(plan), job, congestion.current(), nccl_release_now(), current())


def _split_bytes(found) -> int:
    """Upper bound of the memory of a ``Split`` [bytes] (measured at about 300 B; ``tests/test_memo.py``)."""
    return 512


@stage(0.02, _split_bytes, errors=(FabricPlannerError,), max_entries=CACHE_ENTRIES)
def fastest_split(plan: PerfPlan, job, assumed: congestion.Assumptions, release: str | None,
                  language: str) -> Split:
    """The fastest split of ``job`` on ``plan`` (what the estimates read of a plan, ``core.analysis.perfview``)
    under the routing and placement ``assumed`` and NCCL ``release`` (None: the catalog's default), its errors in
    ``language`` (all arguments, so the cache key holds them).

    Bounds before detail: which splits fit, and each one's compute and pipeline bubble (a lower bound of its step
    time: the exposed communication only adds), do not depend on the fabric, so they come from one full split
    search per system, size and job on the fastest network (``split_bounds`` of ``bounds_view``); on each design
    the splits are estimated in the order of that bound, and the rest skipped once the bound passes the fastest
    step found (ties as ``choose_split`` breaks them: the step to a microsecond, then the smaller tp x pp, then the
    smaller ep)."""
    with congestion.assumptions(assumed.routing, assumed.placement), nccl_release(release), spoken(language):
        return _fastest(plan, job)


_FLAT = PerfFabric(family="clos", global_links=0, group_count=1, groups_per_pod=1, leaf_down_ports_max=1,
                   nodes_per_group=1, pod_count=1, port_speed_gbps=0, tiers=1, torus_dims=(), torus_width=0,
                   switch_groups=())
"""The network of ``bounds_view``: one tier, every node on one switch (no uplink to share)."""
BOUND_PORT_GBPS = 1 << 20
"""The port speed of ``bounds_view``'s NICs [Gb/s, per direction]: faster than any catalogued NIC."""
BoundNic = view("BoundNic", "id transport")
_NIC = BoundNic(id="", transport="")
"""The NIC of ``bounds_view``: no cloud transport, no SuperNIC."""


def bounds_view(plan: PerfPlan) -> PerfPlan:
    """``plan``'s system, sizes, NVLink domains and calibration on a network at least as fast as any fabric's: one
    Ethernet tier without oversubscription, a NIC per GPU at ``BOUND_PORT_GBPS`` (what ``split_bounds`` reads:
    which splits fit and each one's compute and bubble do not depend on the fabric, the compute hiding expert
    dispatch least on the fastest network)."""
    r = plan.resolved._replace(fabric="ethernet", nic=_NIC, nics_per_node=plan.resolved.gpus_per_node, planes=1,
                               port_speed_gbps=BOUND_PORT_GBPS, switch=None,
                               host_gbits_per_nic=0)
    return plan._replace(resolved=r, fabric=_FLAT._replace(nodes_per_group=max(1, r.nodes)),
                         bandwidth=PerfBandwidth(bisection_tbits_one_direction=math.inf, hops_cross_pod=1,
                                                 hops_same_rail=1, hops_same_rail_other_su=1,
                                                 leaf_oversubscription=1.0, spine_oversubscription=1.0),
                         networks=None)


def _bounds_bytes(found) -> int:
    """Upper bound of the memory of ``split_bounds``'s list [bytes]: 400 B a split."""
    return 256 + 400 * len(found)


@stage(0.01, _bounds_bytes, errors=(FabricPlannerError,), max_entries=256)
def split_bounds(plan: PerfPlan, job, language: str) -> tuple[tuple, ...]:
    """The splits of ``job`` that fit ``plan`` (tp, pp, ep, global batch, compute + bubble [s]), fastest bound first:
    ``choose_split``'s candidates on ``plan`` (a ``bounds_view``), its error in ``language`` when none fits."""
    from core.perf.training import choose_split

    with spoken(language):
        choice = choose_split(plan, job, search_ep=job.model.is_moe)
    return tuple(sorted(((c.tp, c.pp, c.ep, c.global_batch, c.estimate.compute_s + c.estimate.bubble_s)
                         for c in choice.candidates if c.fits), key=lambda s: s[4]))


def _fastest(plan: PerfPlan, job) -> Split:
    """The fastest of ``split_bounds``'s splits on ``plan`` (``fastest_split``)."""
    from core.errors import DesignError
    from core.perf.training import estimate

    fits = split_bounds(bounds_view(plan), job, current())
    gpus = min(job.gpus or plan.resolved.gpus, plan.resolved.gpus)
    best = best_rank = None
    for tp, pp, ep, batch, bound in fits:
        if best_rank is not None and round(bound, 6) > best_rank[0]:
            break  # every split left is slower than the fastest found, whatever its communication
        try:
            e = estimate(plan, job.model_copy(update={"tp": tp, "pp": pp, "ep": ep, "dp": None, "gpus": gpus,
                                                      "global_batch": batch}))
        except DesignError:  # pragma: no cover - a split that fits one design fits every design of the size
            continue
        rank = (round(e.step_time_s, 6), tp * pp, ep)
        if best_rank is None or rank < best_rank:
            best, best_rank = Split(tp, pp, ep, e.dp, batch, e.step_time_s, e.days_to_train), rank
    if best is None:  # pragma: no cover - a split that fits the bounds' network fits every fabric
        from core.perf.training import choose_split

        choose_split(plan, job, search_ep=job.model.is_moe)  # raises its own error
    return best


def applied(job, split: Split):
    """``job`` with ``split``'s sizes (what the Performance page and ``python -m core train`` estimate)."""
    return job.model_copy(update={"tp": split.tp, "pp": split.pp, "ep": split.ep, "dp": None,
                                  "global_batch": split.global_batch})
