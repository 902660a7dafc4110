"""What the as-built fabric readers share: found links, the bounds every reader keeps, the name mapping file.

A reader (``core.formats.ibnetdiscover``, ``core.formats.lldp``, ``core.formats.netbox.read_cables``) turns a
file into ``FoundLink`` records: two ``FoundEnd`` (a device as the tool names it, its port, the node GUID when
the tool gives one) and the link's speed when the tool reports it. ``core.analysis.verify`` maps them onto the
plan. Every reader is bounded and hostile-safe: at most its ``MAX_*_BYTES``, lines of at most ``MAX_LINE_CHARS``,
names of at most ``MAX_NAME_CHARS`` printable characters, at most ``MAX_LINKS`` links; anything else is one
``InputError`` whose echo of the input is cut (``core.errors.shown``), never a traceback.

Port of a found end, as ``core.analysis.verify`` resolves it:

* digits (``"33"``): an InfiniBand port number (``ibnetdiscover``);
* a switch port name of the cabling plan (``1/17/1``, ``swp5``, ``Ethernet3/1``);
* a server's NIC port ``nic<k>/port<p>`` (1-based, the cabling plan's names), or ``?/port<p>`` when the tool does
  not say which NIC (the NIC is then found from the planned link on the switch end).

The mapping file (``read_mapping``): CSV or plain text, one ``found,planned`` pair a line (``#`` comments): a
found name, an HCA's description (``dgx-a01 mlx5_3``) or a node GUID (``0x...``) on the left; a device of the plan
(its id ``p0.leaf3`` / ``node5`` or its exported name ``leaf004`` / ``gpu006``), or for an HCA the NIC port stem
``<device> nic<k>`` (1-based), on the right.
"""

from __future__ import annotations

import csv
import io
import re
from typing import NamedTuple

from core.errors import InputError, shown
from core.i18n import _

MAX_LINE_CHARS = 8_192
"""Longest line a text reader takes [characters]."""
MAX_NAME_CHARS = 256
"""Longest device or port name [characters]."""
MAX_LINKS = 2_000_000
"""Most links one file may describe (a 131,072-GPU plan has about 400,000)."""
MAX_MAPPING_BYTES = 8 * 1024 * 1024
"""Largest mapping file [bytes]."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class FoundEnd(NamedTuple):
    """One end of a found link: ``device`` as the tool names it, ``port`` (module docstring), ``guid`` (node GUID,
    lower-case hex without ``0x``; empty when unknown), ``hca`` (an HCA's device part, ``mlx5_3``; empty)."""

    device: str
    port: str
    guid: str = ""
    hca: str = ""


class FoundLink(NamedTuple):
    """A link of the as-built fabric: its two ends, speed per direction [Gb/s] and width (``4x``) when reported,
    and the line (or record) of the file it came from (1-based)."""

    a: FoundEnd
    b: FoundEnd
    speed_gbps: float | None
    width: str
    line: int


def decoded(data: bytes, what: str, limit: int) -> str:
    """``data`` as text: at most ``limit`` bytes of UTF-8; ``InputError`` naming ``what`` otherwise."""
    if len(data) > limit:
        raise InputError(_("the {what} is larger than {limit} MB ({size} bytes), the most this check reads").format(
            what=what, limit=f"{limit / 1024 / 1024:g}", size=f"{len(data):,}"))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(_("the {what} is not UTF-8 text (byte 0x{byte} at offset {offset})").format(
            what=what, byte=f"{data[exc.start]:02x}", offset=f"{exc.start:,}")) from None


def bounded_lines(text: str, what: str):
    """``(line number, line)`` of ``text``; ``InputError`` at the first line longer than ``MAX_LINE_CHARS``."""
    for number, line in enumerate(text.splitlines(), 1):
        if len(line) > MAX_LINE_CHARS:
            raise InputError(_("line {line} of the {what} is longer than {limit} characters: {text}").format(
                line=f"{number:,}", what=what, limit=f"{MAX_LINE_CHARS:,}", text=shown(line)))
        yield number, line


def checked_name(value: object, what: str, where: str) -> str:
    """``value`` as a device or port name: a string of at most ``MAX_NAME_CHARS`` characters without control
    characters (no newlines); ``InputError`` naming ``where`` (a line, a record) otherwise."""
    if not isinstance(value, str):
        raise InputError(_("{where} of the {what}: a name must be text, got {value}").format(
            where=where, what=what, value=shown(value)))
    name = value.strip()
    if len(name) > MAX_NAME_CHARS or _CONTROL.search(name):
        raise InputError(_("{where} of the {what}: the name {name} is longer than {limit} characters or holds "
                           "control characters").format(where=where, what=what, name=shown(name),
                                                        limit=MAX_NAME_CHARS))
    return name


def check_count(links: list, what: str) -> None:
    """``InputError`` when a file describes more than ``MAX_LINKS`` links."""
    if len(links) > MAX_LINKS:
        raise InputError(_("the {what} describes more than {limit} links, more than any plan this tool sizes")
                         .format(what=what, limit=f"{MAX_LINKS:,}"))


def read_mapping(data: bytes) -> dict[str, str]:
    """The mapping file (module docstring) as ``{found (case-folded): planned}``; ``InputError`` for a line that is
    not two names."""
    what = _("mapping file")
    text = decoded(data, what, MAX_MAPPING_BYTES)
    out: dict[str, str] = {}
    for number, line in bounded_lines(text, what):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = next(csv.reader(io.StringIO(line)))
        where = _("line {line}").format(line=f"{number:,}")
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise InputError(_("{where} of the {what} is not two names separated by a comma: {text}").format(
                where=where, what=what, text=shown(line)))
        found, planned = (checked_name(f, what, where) for f in fields)
        if found.casefold() in ("found", "discovered") and number == 1:
            continue  # a header
        out[found.casefold()] = planned
    return out
