"""How far a long computation has got, for whoever watches it (the app's job runner shows it as a bar).

The engine calls ``report(done, total)`` at natural steps (the optimizer per switch family, a sweep per point);
it costs nothing when no one listens. A listener installs itself with ``reporting(callback)`` for a block;
``callback(fraction)`` gets 0..1. Nested steps (a budget search runs several optimizer searches) narrow the
range with ``span(start, stop)``: a report inside counts within that part of the whole. What a computation has
found so far (beyond a fraction) goes to ``publish(state)``, heard inside ``publishing(callback)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_listener: ContextVar[tuple[Callable[[float], None], float, float] | None] = ContextVar("fp_progress", default=None)


def report(done: float, total: float) -> None:
    """``done`` of ``total`` steps of the current computation (or of its current ``span``) are done."""
    listening = _listener.get()
    if listening is None or total <= 0:
        return
    callback, start, stop = listening
    callback(start + (stop - start) * min(1.0, max(0.0, done / total)))


@contextmanager
def reporting(callback: Callable[[float], None]) -> Iterator[None]:
    """Send the block's progress (0..1) to ``callback``."""
    token = _listener.set((callback, 0.0, 1.0))
    try:
        yield
    finally:
        _listener.reset(token)


@contextmanager
def span(start: float, stop: float) -> Iterator[None]:
    """Reports inside the block cover ``start``..``stop`` (fractions of the current range)."""
    listening = _listener.get()
    if listening is None:
        yield
        return
    callback, low, high = listening
    token = _listener.set((callback, low + (high - low) * start, low + (high - low) * stop))
    try:
        yield
    finally:
        _listener.reset(token)


_publisher: ContextVar[Callable[[object], None] | None] = ContextVar("fp_progress_detail", default=None)


def publish(state: object) -> None:
    """What the current computation has found so far (e.g. an optimizer search's
    ``core.analysis.searchwatch.SearchProgress``), for whoever watches it; nothing when no one does. A
    computation's progress callback (``optimize(on_progress=publish)``)."""
    listening = _publisher.get()
    if listening is not None:
        listening(state)


@contextmanager
def publishing(callback: Callable[[object], None]) -> Iterator[None]:
    """Send the block's ``publish`` calls to ``callback`` (the app's job runner sends them to the page)."""
    token = _publisher.set(callback)
    try:
        yield
    finally:
        _publisher.reset(token)
