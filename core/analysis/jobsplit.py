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
    """The fastest split of ``job`` on ``plan`` (``choose_split``; the expert-parallel degree searched for a
    mixture-of-experts model), cached by ``training_key``. Raises the search's ``DesignError`` when no split fits."""
    from core.errors import FabricPlannerError
    from core.perf.training import choose_split

    key = training_key(plan, job)
    found = _CACHE.get(key)
    if found is None:
        try:
            best = choose_split(plan, job, search_ep=job.model.is_moe).best
            e = best.estimate
            found = Split(best.tp, best.pp, best.ep, e.dp, best.global_batch, e.step_time_s, e.days_to_train)
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


def applied(job, split: Split):
    """``job`` with ``split``'s sizes (what the Performance page and ``python -m core train`` estimate)."""
    return job.model_copy(update={"tp": split.tp, "pp": split.pp, "ep": split.ep, "dp": None,
                                  "global_batch": split.global_batch})
