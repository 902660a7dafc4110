"""What a search under way has found so far, for whoever watches it (the Optimize page while its job runs, the
command line's progress bar): candidates decided of the total, the best design so far and the front so far.

``optimize(on_progress=callback)`` calls ``callback(SearchProgress)`` as candidates are decided (``Tracker``:
at most every ``EVERY_S`` seconds, and once at the end); the best and the front so far are those of the
candidates decided so far, by the search's own rules (``core.analysis.objectives.order``,
``core.analysis.optimize.pareto_front``), so the last report's are the answer's.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable

EVERY_S = 0.25
"""Least time between two reports [s] (the last is always sent)."""


@dataclass(frozen=True)
class SearchProgress:
    """A search's state: ``done`` of ``total`` candidates decided, ``feasible`` of them meet every constraint,
    ``best`` the best of those by the objective (a ``Candidate``, None before the first) and ``front`` the Pareto
    front of those (cheapest first); ``objective`` and ``metric`` as the search's."""

    done: int
    total: int
    feasible: int
    best: object | None
    front: tuple
    objective: str
    metric: str
    seconds: float
    """Since the search started [s]."""

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


class Tracker:
    """Keeps the best and the front of the candidates decided so far and reports them to ``callback``."""

    def __init__(self, total: int, objective: str, metric: str, callback: Callable[[SearchProgress], None] | None,
                 every_s: float = EVERY_S):
        self.total, self.objective, self.metric, self.callback = total, objective, metric, callback
        self.every_s = every_s
        self.done = self.feasible = 0
        self.best = None
        self.front: list = []
        self.started = time.perf_counter()
        self.last = -float("inf")

    def add(self, cands: Iterable) -> None:
        """Count ``cands`` as decided; report when ``every_s`` has passed since the last report, or all are."""
        if self.callback is None:
            return
        from core.analysis.objectives import order
        from core.analysis.optimize import pareto_front

        new = []
        for c in cands:
            self.done += 1
            if c.feasible:
                self.feasible += 1
                if c.costed:  # a candidate its bounds decided (pruned) is neither the best nor on the front
                    new.append(c)
        if new:
            best = min(new, key=lambda c: order(c, self.objective))
            if self.best is None or order(best, self.objective) < order(self.best, self.objective):
                self.best = best
            self.front = pareto_front([*self.front, *new], self.metric, self.objective)
        now = time.perf_counter()
        if now - self.last >= self.every_s or self.done >= self.total:
            self.last = now
            self.callback(self.snapshot())

    def snapshot(self) -> SearchProgress:
        return SearchProgress(done=self.done, total=self.total, feasible=self.feasible, best=_plain(self.best),
                              front=tuple(_plain(c) for c in self.front), objective=self.objective, metric=self.metric,
                              seconds=time.perf_counter() - self.started)


def _plain(c):
    """The candidate without its resolved design (what a report carries across processes)."""
    if c is None or getattr(c, "resolved", None) is None:
        return c
    import dataclasses

    return dataclasses.replace(c, resolved=None)
