"""Caches bounded in bytes: a least-recently-used cache whose entries each have a size, and which drops the
least recently used entries while their total exceeds its budget.

``functools.lru_cache`` bounds the number of entries, and an entry of a 131,072-GPU design weighs a hundred
times one of 1,024 GPUs, so a count says nothing about memory. Here each entry's size [bytes] comes from a
``sizeof`` function given with the cache: measured, or an upper bound checked by a test (the plan cache's,
``core.plan.plan_bytes``, by ``tests/test_memo.py`` against ``tracemalloc``).

Thread-safe: the value is made outside the lock (two threads asking the same new key may both make it; the
second result is kept), so one slow entry never blocks other keys.

The engine's stages are cached by one mechanism, ``stage``: a decorator that caches a pure function in a
``BoundedCache`` keyed by the arguments it receives, nothing else, so a key cannot drift from what the function
reads. Its arguments are frozen, hashable values (numbers, strings, tuples, frozen pydantic models, and
``view``s: small frozen objects holding only the attributes a stage reads of a larger one, under the same names,
so the stage reads them unchanged and an attribute outside the view raises ``AttributeError`` instead of being
read unkeyed). Anything else a stage depends on (the language of its sentences) is an argument too. Every such
cache is listed in ``STAGES`` (``tests/test_memo.py`` checks each against its uncached function).
"""

from __future__ import annotations

import collections
import contextlib
import contextvars
import dataclasses
import functools
import operator
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
from pydantic import BaseModel

from core.i18n import current as current_language
from core.i18n import language as speaking
from core.processes import env_int


_MISSING = object()
"""``BoundedCache.hit``'s answer for a key it does not hold."""


class BoundedCache:
    """Least recently used first out, by total size.

    Parameters
    ----------
    max_bytes : int
        Budget [bytes] for the sizes of the entries kept; an entry larger than the budget is not kept.
    sizeof : callable
        ``sizeof(value) -> int``, the entry's size [bytes].
    max_entries : int
        Also at most this many entries (an entry's size may be tiny).
    key_sizeof : callable, optional
        ``key_sizeof(key) -> int``, the key's own size [bytes], counted in the entry's when a key may hold more
        than its value (a view of a plan); None: keys are small beside their values and not counted.
    """

    def __init__(self, max_bytes: int, sizeof: Callable[[Any], int], max_entries: int = 1 << 16,
                 key_sizeof: Callable[[Any], int] | None = None):
        self.max_bytes, self.sizeof, self.max_entries = int(max_bytes), sizeof, int(max_entries)
        self.key_sizeof = key_sizeof
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.bytes = 0
        self.hits = self.misses = 0

    def get(self, key: Hashable, make: Callable[..., Any], *args) -> Any:
        """The value of ``key``, made by ``make(*args)`` (and kept, within the budget) when it is not cached."""
        value = self.hit(key)
        return self.fill(key, make(*args)) if value is _MISSING else value

    def hit(self, key: Hashable) -> Any:
        """The value of ``key``, now the most recently used, or ``_MISSING`` (counted as a miss) when it is not
        cached."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry[0]
            self.misses += 1
        return _MISSING

    def fill(self, key: Hashable, value: Any) -> Any:
        """Keep ``value`` as ``key``'s (within the budget, dropping the least recently used) and return it."""
        size = max(0, int(self.sizeof(value)) + (int(self.key_sizeof(key)) if self.key_sizeof is not None else 0))
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if size <= self.max_bytes:
                self._entries[key] = (value, size)
                self.bytes += size
                while self.bytes > self.max_bytes or len(self._entries) > self.max_entries:
                    _key, (_value, dropped) = self._entries.popitem(last=False)
                    self.bytes -= dropped
        return value

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every entry, and count hits and misses from zero."""
        with self._lock:
            self._entries.clear()
            self.bytes = 0
            self.hits = self.misses = 0

    def info(self) -> dict:
        """Entries, bytes kept, the budget, hits and misses."""
        return {"entries": len(self._entries), "bytes": self.bytes, "max_bytes": self.max_bytes, "hits": self.hits,
                "misses": self.misses}


def bounded(max_bytes: int, sizeof: Callable[[Any], int], max_entries: int = 1 << 16):
    """Decorator: cache a function of hashable positional arguments in a ``BoundedCache`` (``fn.cache``)."""
    def wrap(fn):
        cache = BoundedCache(max_bytes, sizeof, max_entries)

        @functools.wraps(fn)
        def cached(*args):
            return cache.get(args, fn, *args)

        cached.cache = cache
        cached.cache_clear = cache.clear
        return cached

    return wrap


STAGE_CACHE_BYTES = env_int("FP_STAGE_CACHE_MB", 256, 0, 1 << 20) << 20
"""The unit of the engine's stage caches' budgets [bytes] (``FP_STAGE_CACHE_MB``, default 256 MB): each stage keeps
at most ``share`` x this (``stage(share=...)``: each holds at least one search's working set of a 131,072-GPU grid, or
of the optimizer's default grid where a repeated search should find it). The shares add up to more than one:
``STAGE_SHARES_MOST`` bounds their sum (``tests/test_memo.py``), so the stage caches of one process hold at most
``STAGE_SHARES_MOST`` x this (461 MB at the default), besides the plan cache (``core.plan.PLAN_CACHE_BYTES``)."""

STAGE_SHARES_MOST = 1.8
"""The most the stages' shares of ``STAGE_CACHE_BYTES`` may add up to (1.66 in all now: the optimizer's sizings
(0.15), rack arrangements (0.12) and their drafts (0.04) are kept for a whole search)."""

STAGES: list = []
"""Every function cached by ``stage`` (``tests/test_memo.py`` checks them all)."""

_BYPASS: contextvars.ContextVar[bool] = contextvars.ContextVar("fp_stage_bypass", default=False)
_BYPASSING = [0]
"""``uncached()`` blocks open in any thread: while none is, a stage reads its cache without asking ``_BYPASS``."""
_BYPASSING_LOCK = threading.Lock()


def spoken(language: str):
    """A context speaking ``language`` (``core.i18n.language``), or none when it is already spoken: a stage whose
    sentences depend on its ``language`` argument runs in it."""
    return contextlib.nullcontext() if language == current_language() else speaking(language)


@contextlib.contextmanager
def uncached():
    """Within the block the stages run their functions afresh, neither reading nor filling their caches (a test's
    reference computation)."""
    token = _BYPASS.set(True)
    with _BYPASSING_LOCK:
        _BYPASSING[0] += 1
    try:
        yield
    finally:
        _BYPASS.reset(token)
        with _BYPASSING_LOCK:
            _BYPASSING[0] -= 1


def bypassed() -> bool:
    """Whether the stages run afresh here (within ``uncached``): a stage asked again computes again, so a caller
    holding a stage's answer may read it rather than ask (``core.physical.lengths.placed_lengths``)."""
    return bool(_BYPASSING[0]) and _BYPASS.get()


ERROR_BYTES = 4096
"""Size bound [bytes] of a kept error (its message and suggestion)."""


def text_bytes(texts) -> int:
    """An upper bound of the memory of some strings [bytes] (two bytes a character, as Chinese text takes, and the
    object)."""
    return sum(80 + 2 * len(t) for t in texts)


class _Raised:
    """An error a stage raised, kept as its value (``stage(errors=...)``): asked again, it raises again."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error


class _Key(tuple):
    """A stage's key (the arguments' tuple, ``stage``) whose hash is computed once: a ``BoundedCache`` looks a key up
    twice a hit (found, then moved to the end) and three times a miss (its hit, then its fill's replace and keep), and
    a tuple's hash is not kept. A first plan's keys (the networks' devices and links, the lengths and media bins:
    frozen models, hashed field by field) took 0.12-0.29 ms of look-ups at 64-131,072 GPUs, 0.07-0.14 ms hashed
    once. Equal to, and hashed as, the tuple it holds: ``hashed``, set where it is made (a tuple made in C and an
    attribute set, a third of a microsecond a call, where a constructor of its own took twice that); a kept key holds
    it, about 0.23 kB more an entry."""

    def __hash__(self) -> int:
        return self.hashed


def stage(share: float, sizeof: Callable[[Any], int], errors: tuple = (), max_entries: int = 1 << 16,
          key_sizeof: Callable[[Any], int] | None = None):
    """Decorator: cache a pure function by its arguments in a ``BoundedCache`` of ``share`` of
    ``STAGE_CACHE_BYTES``.

    The key is the positional arguments and the keyword arguments by name, exactly as given: they must be
    hashable, and frozen (a mutable argument changed after the call would leave a stale entry), and the function
    must read nothing else that can change (pass the language as an argument). ``errors``: exception classes
    that are a result too (kept and raised again, with a fresh traceback) rather than passed through uncached.
    ``sizeof``: a cheap upper bound of a value's size [bytes] (``tests/test_memo.py`` checks it against
    ``deep_sizeof``); a kept error counts ``ERROR_BYTES``. The wrapper has ``cache`` (its ``BoundedCache``),
    ``cache_clear()`` and ``__wrapped__`` (the uncached function).

    Parameters
    ----------
    share : float
        Share of ``STAGE_CACHE_BYTES`` this cache may keep.
    sizeof : callable
        ``sizeof(value) -> int`` [bytes], an upper bound.
    errors : tuple of exception classes
        Errors kept as results.
    max_entries : int
        Also at most this many entries.
    key_sizeof : callable, optional
        ``key_sizeof(key) -> int`` [bytes], an upper bound of a key's size (the positional arguments' tuple),
        counted in its entry's (``BoundedCache``); for a stage whose arguments may weigh more than its answer.
    """
    def size(value) -> int:
        return ERROR_BYTES if isinstance(value, _Raised) else sizeof(value)

    def wrap(fn):
        cache = BoundedCache(int(STAGE_CACHE_BYTES * share), size, max_entries, key_sizeof)

        def make(args, kwargs):
            try:
                return fn(*args, **kwargs)
            except errors as exc:
                return _Raised(exc)

        hit, fill, bypassing = cache.hit, cache.fill, _BYPASSING

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            if bypassing[0] and _BYPASS.get():
                return fn(*args, **kwargs)
            held = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            key = _Key(held)
            key.hashed = hash(held)
            value = hit(key)
            if value is _MISSING:
                value = fill(key, make(args, kwargs))
            if isinstance(value, _Raised):
                raise value.error.with_traceback(None)
            return value

        cached.cache = cache
        cached.cache_clear = cache.clear
        STAGES.append(cached)
        return cached

    return wrap


def view(name: str, fields: str, fold: Callable[[Any], Any] | None = None, **nested) -> type:
    """A named tuple (frozen, hashable) of the attributes ``fields`` (space-separated names) of some larger object, and of
    the ``nested`` ones: a view of that attribute (``design=view(...)``) or a function making it frozen
    (``price_overrides=FrozenDict``); built by ``View.of(obj)``.

    A stage given a view in place of the object reads it unchanged (the same attribute names), and reading an
    attribute the view lacks raises ``AttributeError``: what the stage reads and what its cache key holds are the
    same by construction. Equal views (field by field) are equal keys, so objects that differ only in what the
    stage does not read share one entry.

    ``fold``: a function of the view built (as the view, or as a larger view's part) returning the view the stage
    reads, where values that decide nothing together read as one (``core.perf.commview.BusbwResolved``: a
    switch's ASIC and a NIC's id only where they pair); it must answer every rule the stage applies as the object
    does."""
    names = tuple(fields.split())
    # a named tuple: its equality and hash are the tuple's (C, no Python call per key comparison)
    cls = collections.namedtuple(name, [*names, *nested], module=sys._getframe(1).f_globals.get("__name__", __name__))
    cls._paths = names + tuple(f"{attr}.{path}" if hasattr(sub, "_paths") else attr
                               for attr, sub in nested.items() for path in getattr(sub, "_paths", (None,)))
    make_tuple = tuple.__new__
    if len(names) > 1:
        flat = operator.attrgetter(*names)
    elif names:
        flat = (lambda obj, get=operator.attrgetter(*names): (get(obj),))
    else:
        flat = (lambda obj: ())
    inner = tuple((attr, getattr(sub, "of", sub)) for attr, sub in nested.items())
    every = (operator.attrgetter(*cls._paths) if len(cls._paths) > 1 else
             (lambda obj, get=operator.attrgetter(*cls._paths[:1]): (get(obj),)))
    parts = []  # how the values ``every`` reads in one call become this view: (start, end, nested view or converter)
    start = len(names)
    for attr, sub in nested.items():
        count = len(getattr(sub, "_paths", (None,)))
        parts.append((start, start + count, sub if hasattr(sub, "_paths") else None, getattr(sub, "of", sub)))
        start += count

    def slow(obj):
        return make_tuple(cls, (*flat(obj), *[None if (value := getattr(obj, attr)) is None else make(value)
                                              for attr, make in inner]))

    views = tuple(sub for sub in nested.values() if hasattr(sub, "_paths"))
    top = None
    if nested and len(views) == len(nested):
        top = (operator.attrgetter(*names, *nested) if len(names) + len(nested) > 1 else
               (lambda obj, get=operator.attrgetter(*names, *nested): (get(obj),)))
    # every nested attribute a view: an object holding those views already (a larger view) gives them as they are

    def of(obj):
        if not inner:
            return make_tuple(cls, flat(obj))
        if top is not None:
            try:
                values = top(obj)
            except AttributeError:
                values = None
            if values is not None and all(type(v) is sub for v, sub in zip(values[len(names):], views)):
                return make_tuple(cls, values)
        try:  # every attribute in one call, the nested views built from their slices
            values = every(obj)
        except AttributeError:  # a nested object is None (or lacks an attribute: the slow path says which)
            return slow(obj)
        return make_tuple(cls, (*values[:len(names)], *[
            sub._from(values[a:b]) if sub is not None else (None if values[a] is None else make(values[a]))
            for a, b, sub, make in parts]))

    def from_values(values):
        """This view from the values of its ``_paths`` in order."""
        if not parts:
            return make_tuple(cls, values)
        return make_tuple(cls, (*values[:len(names)], *[
            sub._from(values[a:b]) if sub is not None else (None if values[a] is None else make(values[a]))
            for a, b, sub, make in parts]))

    if fold is not None:
        def folded(make):
            return lambda arg: fold(make(arg))

        of, from_values = folded(of), folded(from_values)
    cls._from = staticmethod(from_values)

    cls.of = staticmethod(of)
    cls.__doc__ = f"The attributes {', '.join(names + tuple(nested))} of a larger object (``core.memo.view``)."
    return cls


_set_attribute = object.__setattr__


def copied(model: BaseModel, update: dict) -> BaseModel:
    """``model.model_copy(update=update)`` (a shallow copy, ``update``'s fields set unvalidated and counted as set)
    in two thirds of its time (1.1 µs for a ``Design``, 1.6 µs), for the engine's hot paths (the optimizer copies tens of thousands of designs, resolved
    designs and fabric plans in a search). A model with extra fields or private attributes takes ``model_copy``."""
    if model.__pydantic_extra__ is not None or getattr(model, "__pydantic_private__", None) is not None:
        return model.model_copy(update=update)
    cls = type(model)
    new = cls.__new__(cls)
    _set_attribute(new, "__dict__", {**model.__dict__, **update})
    _set_attribute(new, "__pydantic_extra__", None)
    _set_attribute(new, "__pydantic_fields_set__", model.__pydantic_fields_set__ | update.keys())
    _set_attribute(new, "__pydantic_private__", None)
    return new


def same_fields(self: BaseModel, other: Any) -> bool:
    """``BaseModel.__eq__`` of a frozen model without extra fields, private attributes or cached properties (its
    ``__dict__`` its fields alone): the same type and the same field values, compared as one dict, in two fifths
    of pydantic's time. A model in a stage's key is compared on each hit (twice: ``BoundedCache.hit`` finds it and
    moves it to the end), field by field when the caller's is an equal copy (``core.fabric.sizing.FabricPlan``,
    its ``SwitchGroup``s); ``tests/test_memo.py`` checks it against pydantic's."""
    if self is other:
        return True
    if not isinstance(other, BaseModel):
        return NotImplemented
    return type(other) is type(self) and self.__dict__ == other.__dict__


class FrozenDict(dict):
    """A dict that cannot change, hashable by its items: a mapping among a stage's arguments (``view``)."""

    __slots__ = ("_hash",)

    def __hash__(self) -> int:  # type: ignore[override]
        """Of its items, computed once (a key is hashed at each look-up; a stage's once a call, ``_Key``)."""
        try:
            return self._hash
        except AttributeError:
            found = self._hash = hash(frozenset(self.items()))
            return found

    def __reduce__(self):
        return FrozenDict, (dict(self),)

    def _frozen(self, *args, **kwargs):
        raise TypeError("a FrozenDict cannot change")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _frozen  # type: ignore


def deep_sizeof(value, shared: tuple[type, ...] = ()) -> int:
    """The memory ``value`` holds [bytes]: ``sys.getsizeof`` of it and of everything it refers to (containers, numpy
    arrays' data, pydantic models' and dataclasses' fields), each object counted once, but for instances of
    ``shared`` (objects the rest of the process holds anyway, such as catalog entries). Slow (a Python loop over
    every object): a stage's ``sizeof`` is a cheap bound that ``tests/test_memo.py`` checks against it."""
    seen: set[int] = set()
    stack = [value]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or obj is None or isinstance(obj, (bool, type, *shared)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, np.ndarray):
            total += obj.nbytes if obj.base is None else 0
            if obj.dtype == object:
                stack.extend(obj.ravel().tolist())
        elif isinstance(obj, (str, bytes, int, float, complex)):
            continue
        elif isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, BaseModel):
            stack.append(obj.__dict__)
        elif dataclasses.is_dataclass(obj):
            stack.extend(getattr(obj, f.name) for f in dataclasses.fields(obj) if hasattr(obj, f.name))
        elif isinstance(obj, BaseException):
            stack.extend(obj.args)
            stack.append(obj.__dict__)
        elif hasattr(obj, "__dict__"):
            stack.append(obj.__dict__)
    return total
