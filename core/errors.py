"""Exceptions raised by the engine.

``InputError``   bad input: unknown model, out-of-range value (CLI exit code 2).
``DesignError``  a well-formed design that cannot be built (CLI exit code 3);
                 its message says why and what would work.
``NotHandledError`` (a ``DesignError``) a design that can be built but one view, export or analysis
                 does not handle (CLI exit code 4, "not available for this design"); it says why
                 and what would work.

``shown(value)`` is how every message echoes user input: repr-like, at most 40 characters of the
input and ``...``, so a 100 kB value never reaches a terminal or a web page whole.

Messages are in the language of the request (``core.i18n``): the raiser translates them when it
raises, so ``str(exc)`` is what the person reads; a ``DesignError``'s ``fixes`` phrases are
substrings of its ``suggestion`` in either language (``core.plan.plan`` joins them).
"""

from __future__ import annotations

import errno
import re
import reprlib

from core.i18n import DEFAULT_LANGUAGE, N_, _, current

SHOWN_LIMIT = 40
"""Most characters of user input any message echoes."""

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist, _REPR.maxtuple, _REPR.maxset = 2, 2, 3, 3, 3
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = SHOWN_LIMIT


def shown(value: object, limit: int = SHOWN_LIMIT) -> str:
    """``value`` as repr-like text echoing at most ``limit`` characters of it, cut with ``...``.

    ``shown("abc") == "'abc'"``; a longer string keeps its first ``limit`` characters:
    ``'abcd...'``. Safe for anything user input can hold: a 100 kB string, an integer of 5,000
    digits (whose ``repr`` raises), a list nested 100,000 deep.
    """
    if isinstance(value, str):
        text = repr(value[:limit])  # never build the repr of the whole string
        return text if len(value) <= limit else text[:-1] + "..." + text[-1]
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 4 * limit:
        return _("<a number of about {digits} digits>").format(digits=f"{int(value.bit_length() * 0.30103):,}")
    try:
        text = _REPR.repr(value)
    except (ValueError, RecursionError, TypeError):  # pragma: no cover - defensive
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + "..."


_OS_REASONS = {
    errno.ENOENT: N_("No such file or directory"), errno.EACCES: N_("Permission denied"),
    errno.EISDIR: N_("Is a directory"), errno.ENOTDIR: N_("Not a directory"),
    errno.ENAMETOOLONG: N_("File name too long"), errno.ELOOP: N_("Too many levels of symbolic links"),
    errno.EPERM: N_("Operation not permitted"), errno.EIO: N_("Input/output error"),
    errno.ENOSPC: N_("No space left on device"), errno.EPIPE: N_("Broken pipe"),
    errno.EROFS: N_("Read-only file system"), errno.EFBIG: N_("File too large"),
    errno.EDQUOT: N_("Disk quota exceeded"),
}
"""Why a file cannot be read or written, in words other languages translate (English: the system's own text)."""


def os_reason(exc: OSError) -> str:
    """Why ``exc`` happened, in the current language (English: the system's own text, ``strerror``)."""
    if current() != DEFAULT_LANGUAGE and exc.errno in _OS_REASONS:
        return _(_OS_REASONS[exc.errno])
    return exc.strerror or type(exc).__name__


_AFTER_CHINESE_STOP = re.compile("(?<=[\u3002\uff01\uff1f\uff1b]) ")
"""A space after a Chinese full stop (the message and suggestion of a Chinese ``DesignError`` join without it)."""


def joined(message: str, suggestion: str) -> str:
    """An error's message and what would work instead as one text: a space between, none after a Chinese full
    stop (``str`` of a ``DesignError``)."""
    return _AFTER_CHINESE_STOP.sub("", f"{message} {suggestion}".strip())


class FabricPlannerError(Exception):
    """Base class of every error the engine raises on purpose."""


class InputError(FabricPlannerError, ValueError):
    """Input that is malformed or names something unknown."""


class DesignError(FabricPlannerError):
    """A design that cannot be built as asked.

    Parameters
    ----------
    message : str
        What is wrong, in one sentence.
    suggestion : str
        What would work instead (e.g. "set tiers to auto").
    fixes : tuple of (phrase, changes)
        The ways out the suggestion names, as data: ``phrase`` is the part of ``suggestion`` that
        says it, ``changes`` the ``Design`` fields that make it so (``{"tiers": "auto"}``). Only
        changes that were checked to give a buildable design are listed (``core.plan`` checks).
    """

    def __init__(self, message: str, suggestion: str = "",
                 fixes: tuple[tuple[str, dict], ...] = ()) -> None:
        self.message = message
        self.suggestion = suggestion
        self.fixes = tuple(fixes)
        super().__init__(joined(message, suggestion))


class GpuLimitError(DesignError):
    """A design over the planner's GPU limit (``core.design.gpu_limit_problem``), its way out the most nodes within
    the limit (``nodes``). ``core.plan.plan`` keeps that way out first and adds, in sentences of their own, what
    else stops a design of that many nodes (a switch's three-tier limit) and its checked ways out."""

    def __init__(self, message: str, suggestion: str, nodes: int) -> None:
        super().__init__(message, suggestion)
        self.nodes = nodes


class NotHandledError(DesignError):
    """A design that can be built (the plan and bill work) but that one view, export or analysis does not handle
    (pods on several planes in a page that reads one, a fabric a simulator's format cannot express): the message
    says what does not handle it, the suggestion what would work. Pages show it as any ``DesignError``; the CLI
    says "not available for this design" and exits 4, not "cannot build this design" (3)."""


class TargetError(DesignError):
    """A design that can be built whose deployment misses its targets (no serving split meets the TTFT, TPOT or
    rate asked): the message says what misses, the suggestion the ways out. The CLI says "the deployment misses
    its targets", not "cannot build this design", and exits 3 as for any ``DesignError``."""


class SettingError(DesignError):
    """A setting the design cannot run, not the design itself: a precision its accelerator has no matrix units
    for. ``field`` names the setting (``precision``) so a caller can point at its own input (the command line's
    ``--precision``, a page's box) and say the fix (``suggestion``)."""

    def __init__(self, field: str, message: str, suggestion: str = "") -> None:
        self.field = field
        super().__init__(message, suggestion)
