"""The design file: a ``Design`` as JSON, as ``python -m core plan --design FILE`` and the Designer read it.

A design file is UTF-8 JSON of at most ``MAX_DESIGN_FILE_BYTES`` (1 MB), nested at most
``core.design.MAX_JSON_DEPTH`` deep. It is read with one ``read(limit + 1)``, so ``/dev/zero`` or a
10 GB file costs 1 MB, and every problem is one ``InputError`` line with the input shown truncated.

Format (``Design.to_json``, version ``core.design.DESIGN_FILE_VERSION`` = 1)::

    {"version": 1, "cable_media": "auto", ..., "gpu": "H100", "gpus": 2048, "nodes": null, ...}

``version`` is an integer; every other key is a ``Design`` field, all of them written (defaults
included; ``null`` = the catalog's default for the system). Files without ``version`` (older
exports, hand-written files with only some fields) are read as version 1; a newer version is refused.
A field added to ``Design`` later is simply absent from older files and takes its default there (e.g.
``spares``: ``"off"``, no spare rows), so the version stays 1.
An uploaded file (the Designer) and a file on disk (the CLI) go through ``design_from_bytes``.
"""

from __future__ import annotations

from pathlib import Path

from core.design import MAX_DESIGN_FILE_BYTES, Design, design_file_fields, load_design_json, parse_design
from core.errors import InputError, os_reason, shown
from core.i18n import _

__all__ = ["MAX_DESIGN_FILE_BYTES", "design_from_bytes", "read_design_file"]

def read_design_file(path: str | Path) -> Design:
    """Read and validate a design JSON file; ``InputError`` says what is wrong in one line."""
    name = shown(str(path))
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_DESIGN_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(_("cannot read design file {name}: {reason}").format(name=name, reason=os_reason(exc))) from None
    except ValueError:  # e.g. a NUL character in the path
        raise InputError(_("cannot read design file {name}: not a valid file name").format(name=name)) from None
    return design_from_bytes(data, name)


def design_from_bytes(data: bytes, name: str) -> Design:
    """A design file's bytes (at most ``MAX_DESIGN_FILE_BYTES``) -> ``Design``; ``InputError`` in one line.

    ``name`` is how messages name the file, already shortened for display (``core.errors.shown``).
    """
    if len(data) > MAX_DESIGN_FILE_BYTES:
        raise InputError(_("design file {name} is larger than 1 MB ({bytes} bytes), the most a design file may be")
                         .format(name=name, bytes=f"{MAX_DESIGN_FILE_BYTES:,}"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(_("design file {name} is not UTF-8 text (byte 0x{byte} at offset {offset})").format(
            name=name, byte=f"{data[exc.start]:02x}", offset=f"{exc.start:,}")) from None
    return parse_design(design_file_fields(load_design_json(text)))
