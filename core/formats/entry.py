"""How people type values: whole numbers in either script, and the units a cluster size is entered in.

``parse_whole`` reads ``"1024"``, ``"1,024"``, ``"1 024"``, ``"1e3"`` and full-width ``"１０２４"``
(Unicode NFKC folds full-width digits, commas and spaces), and refuses anything that is not a
whole number in range with a short message naming the range. ``SIZE_UNITS`` are the units a cluster
is sized in: nodes, GPUs, or racks (whole NVLink domains such as NVL72 racks); ``nodes_for`` and
``count_in`` convert, always to whole nodes and whole racks (the design stores nodes).
"""

from __future__ import annotations

import math
import re
import unicodedata

from core.errors import InputError, shown
from core.i18n import _, ngettext, number
from core.units import number_range

SIZE_UNITS = ("nodes", "GPUs", "racks")
_THOUSANDS = re.compile(r"^[+]?\d{1,3}([, ]\d{3})+$")
_PLAIN = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?$")


def normalize(text: str) -> str:
    """Full-width digits, signs, commas, colons and spaces folded to ASCII (NFKC), trimmed."""
    return unicodedata.normalize("NFKC", str(text)).replace("\u3000", " ").strip()


def number_text(text: str) -> str:
    """Typed number text as Python reads it: NFKC-folded (full-width digits, ``：`` and ``，``), trimmed, and
    thousands separators dropped where unambiguous (``20,000`` and ``1 024``, not ``1,5``)."""
    raw = normalize(text)
    return raw.replace(",", "").replace(" ", "") if _THOUSANDS.match(raw) else raw


def parse_whole(text: str, low: int, high: int, what: str | None = None) -> int:
    """A whole number in ``[low, high]`` from typed text; ``InputError`` says what is accepted.

    ``what`` names the value at the start of the message, in the current language (the caller
    translates it: ``_("the GPU count")``); default "value".

    Accepted: digits with optional thousands separators (``1,024`` or ``1 024``), or a plain
    decimal/exponent form that is exactly whole (``1e3``, ``2048.0``).
    """
    what = _("value") if what is None else what
    raw = normalize(text)
    if len(raw) > 40:
        raise InputError(_("{what} {value} is not a whole number from {range}").format(
            what=what, value=shown(raw), range=number_range(low, high)))
    body = number_text(raw)
    value = float(body) if _PLAIN.match(body) else math.nan
    if not math.isfinite(value) or value != int(value):
        raise InputError(_("{what} {value} is not a whole number; enter {range}").format(
            what=what, value=shown(raw), range=number_range(low, high)))
    number = int(value)
    if not low <= number <= high:
        raise InputError(_("{what} {number} is out of range; enter {range}").format(
            what=what, number=f"{number:,}", range=number_range(low, high)))
    return number


def nodes_for(count: int, unit: str, gpus_per_node: int, nodes_per_rack_domain: int) -> int:
    """Nodes for ``count`` ``unit`` (GPUs round up to whole nodes; a rack is one NVLink domain)."""
    if unit == "nodes":
        return int(count)
    if unit == "GPUs":
        return math.ceil(count / gpus_per_node)
    if unit == "racks":
        return int(count) * max(1, nodes_per_rack_domain)
    raise InputError(_("unknown size unit {unit}; known: {units}").format(unit=shown(unit), units=", ".join(SIZE_UNITS)))


def count_in(nodes: int, unit: str, gpus_per_node: int, nodes_per_rack_domain: int) -> int:
    """``nodes`` expressed in ``unit`` (racks round up: a partial NVLink rack is bought whole)."""
    if unit == "nodes":
        return int(nodes)
    if unit == "GPUs":
        return int(nodes) * gpus_per_node
    if unit == "racks":
        return math.ceil(nodes / max(1, nodes_per_rack_domain))
    raise InputError(_("unknown size unit {unit}; known: {units}").format(unit=shown(unit), units=", ".join(SIZE_UNITS)))


def rounded_note(gpus: int, gpus_per_node: int) -> str | None:
    """What a GPU count that is no whole number of nodes becomes, said by the sidebar (typed or a link's ``ng``) and
    the ``plan`` command (``--gpus``) alike, any family (a torus's 999,999 GPUs are 125,000 nodes of 8):
    ``999,999 GPUs rounded up to 125,000 whole nodes (1,000,000 GPUs).``; None for whole nodes."""
    nodes = math.ceil(gpus / gpus_per_node)
    if nodes * gpus_per_node == gpus:
        return None
    return ngettext("{gpus} GPUs rounded up to {nodes} whole node ({total} GPUs).",
                    "{gpus} GPUs rounded up to {nodes} whole nodes ({total} GPUs).", nodes).format(
        gpus=number(gpus), nodes=number(nodes), total=number(nodes * gpus_per_node))
