"""The design file: a ``Design`` as JSON, as ``python -m core plan --design FILE`` and the Designer read it.

A design file is UTF-8 JSON of at most ``MAX_DESIGN_FILE_BYTES`` (1 MB), nested at most
``core.design.MAX_JSON_DEPTH`` deep. It is read with one ``read(limit + 1)``, so ``/dev/zero`` or a
10 GB file costs 1 MB, and every problem is one ``InputError`` line with the input shown truncated.
"""

from __future__ import annotations

from pathlib import Path

from core.design import MAX_DESIGN_FILE_BYTES, Design, load_design_json, parse_design
from core.errors import InputError, shown

__all__ = ["MAX_DESIGN_FILE_BYTES", "read_design_file"]


def read_design_file(path: str | Path) -> Design:
    """Read and validate a design JSON file; ``InputError`` says what is wrong in one line."""
    name = shown(str(path))
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_DESIGN_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read design file {name}: {exc.strerror or type(exc).__name__}") from None
    except ValueError:  # e.g. a NUL character in the path
        raise InputError(f"cannot read design file {name}: not a valid file name") from None
    if len(data) > MAX_DESIGN_FILE_BYTES:
        raise InputError(f"design file {name} is larger than 1 MB ({MAX_DESIGN_FILE_BYTES:,} bytes), "
                         "the most a design file may be")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"design file {name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                         f"{exc.start:,})") from None
    return parse_design(load_design_json(text))
