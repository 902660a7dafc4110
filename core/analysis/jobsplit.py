"""The training job's split, searched with the fabric: the optimizer's days to train of a candidate are those of
the job's fastest tensor/pipeline split on it (``core.perf.training.choose_split``, the split search of
``python -m core train``; a mixture-of-experts model's expert-parallel degree searched too), so "the cheapest
design on which Llama 3 70B trains in 10 days" is one question.

A split search runs a few dozen step estimates; candidates that differ only in what the estimate does not read
(switch models of the same ports, optics, prices) share one, cached by ``training_key``: everything the estimate's
step time reads of a plan (``core.analysis.optimize.serving_key``, the same reads as the serving search: the
system, sizes, NVLink domain, the links a rank sees with the calibration's constants applied, the placement's
structure, contention and routing class) and SHARP (when the job asks for it), with the design's calibration.
The cache is bounded (``CACHE_ENTRIES``, least recently used out) and exact: ``tests/test_optimize_job.py`` checks
every cached answer against a fresh search of the candidate's own plan.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

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


_CACHE: OrderedDict[tuple, Split | Exception] = OrderedDict()


def training_key(plan, job) -> tuple:
    """Everything a split search of ``job`` reads of ``plan`` for its step times (not its price): the serving
    search's reads (``serving_key``), SHARP when the job uses it, the design's calibration, and the job."""
    from core.analysis.optimize import serving_key
    from core.perf.placement import links

    calibration = plan.resolved.design.calibration
    return (serving_key(plan), links(plan).sharp if job.sharp else None,
            None if calibration is None else repr(calibration), job)


def fastest(plan, job) -> Split:
    """The fastest split of ``job`` on ``plan`` (``choose_split``'s answer: the expert-parallel degree searched for a
    mixture-of-experts model), cached by ``training_key``. Raises the search's ``DesignError`` when no split fits.

    Bounds before detail: which splits fit, and each one's compute and pipeline bubble (a lower bound of its step
    time: the exposed communication only adds), do not depend on the fabric, so they come from one full split
    search per system, size and job (``_splits``); on every other design the splits are estimated in the order
    of that bound, and the rest skipped once the bound passes the fastest step found (ties as ``choose_split``
    breaks them: the step to a microsecond, then the smaller tp x pp, then the smaller ep)."""
    from core.errors import FabricPlannerError

    key = training_key(plan, job)
    found = _CACHE.get(key)
    if found is None:
        try:
            found = _fastest(plan, job)
        except FabricPlannerError as exc:
            found = exc
        _CACHE[key] = found
        if len(_CACHE) > CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    if isinstance(found, Exception):
        raise found
    return found


_SPLITS: OrderedDict[tuple, list[tuple] | Exception] = OrderedDict()
"""Fabric-independent key -> the splits that fit (tp, pp, ep, global batch, compute + bubble [s]), fastest bound
first; or the error no split fitting raised."""


def _splits(plan, job) -> tuple[list[tuple], Split | None]:
    """The fitting splits of ``job`` at ``plan``'s system and size, by their step-time bound, and (the first time)
    the full search's answer on ``plan``."""
    from core.perf.training import choose_split

    r = plan.resolved
    key = (r.system.id, r.gpus, r.gpus_per_node, r.nvlink_domain_gpus, job)
    known = _SPLITS.get(key)
    if known is not None:
        if isinstance(known, Exception):
            raise known
        return known, None
    try:
        choice = choose_split(plan, job, search_ep=job.model.is_moe)
    except Exception as exc:
        _SPLITS[key] = exc
        raise
    fits = sorted(((c.tp, c.pp, c.ep, c.global_batch, c.estimate.compute_s + c.estimate.bubble_s)
                   for c in choice.candidates if c.fits), key=lambda s: s[4])
    _SPLITS[key] = fits
    if len(_SPLITS) > 64:
        _SPLITS.popitem(last=False)
    best = choice.best
    return fits, Split(best.tp, best.pp, best.ep, best.estimate.dp, best.global_batch, best.estimate.step_time_s,
                       best.estimate.days_to_train)


def _fastest(plan, job) -> Split:
    from core.errors import DesignError
    from core.perf.training import estimate

    fits, answer = _splits(plan, job)
    if answer is not None:
        return answer
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
    if best is None:  # pragma: no cover - the full search found a split that fits
        from core.perf.training import choose_split

        choose_split(plan, job, search_ep=job.model.is_moe)  # raises its own error
    return best


def applied(job, split: Split):
    """``job`` with ``split``'s sizes (what the Performance page and ``python -m core train`` estimate)."""
    return job.model_copy(update={"tp": split.tp, "pp": split.pp, "ep": split.ep, "dp": None,
                                  "global_batch": split.global_batch})
