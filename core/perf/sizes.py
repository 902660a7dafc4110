"""Message sizes: parse ``"1GiB"``-style text, format bytes as nccl-tests prints them, log-spaced sweeps.

Units: bytes. ``K``, ``M``, ``G`` alone are binary (as in nccl-tests); ``KB``, ``MB``, ``GB`` decimal.
"""

from __future__ import annotations

import math
import re

import numpy as np

from core.errors import InputError, shown
from core.i18n import _

_UNITS = {
    "": 1, "b": 1,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
}


MAX_SIZE_BYTES = 2**40
"""Largest message accepted (1 TiB): far beyond any GPU's memory, so larger is a typo."""


def parse_size(text: str | int | float) -> int:
    """Bytes from ``"1GiB"``, ``"512MB"``, ``"64K"``, ``"8"`` (K/M/G alone are binary, as in nccl-tests).

    Raises ``InputError`` for anything else: a size that is not positive, not a whole
    number of bytes (``1.5`` B; ``1.5KiB`` = 1536 B is fine) or above 1 TiB.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        match = re.fullmatch(r"\s*([+-]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*", str(text))
        if not match or match.group(2).casefold() not in _UNITS:
            raise InputError(_(
                "cannot read size {text}; use a number with B, KiB, MiB, GiB, KB, MB or GB (e.g. 1GiB)"
            ).format(text=shown(text)))
        value = float(match.group(1)) * _UNITS[match.group(2).casefold()]
    if not math.isfinite(value) or value > MAX_SIZE_BYTES:
        raise InputError(_("size {text} is above the 1 TiB limit; messages are at most a GPU's memory").format(
            text=shown(text)))
    if value <= 0:
        raise InputError(_("size must be positive, got {text}").format(text=shown(text)))
    if abs(value - round(value)) > 1e-6 * max(1.0, value):
        raise InputError(_("size {text} is {value} bytes; a message is a whole number of bytes").format(
            text=shown(text), value=f"{value:g}"))
    return int(round(value))


def format_size(nbytes: float) -> str:
    """``1073741824`` -> ``"1 GiB"`` (binary units, as nccl-tests prints them)."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            value = nbytes / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{nbytes:.0f} B"


def size_sweep(start: float = 8, stop: float = 16 * 2**30, points: int = 64) -> np.ndarray:
    """``points`` message sizes [bytes], log-spaced from ``start`` to ``stop`` inclusive."""
    if points < 2 or start < 1 or stop <= start:
        raise InputError(_("a sweep needs at least 2 points and 1 <= start < stop"))
    return np.geomspace(start, stop, points)
