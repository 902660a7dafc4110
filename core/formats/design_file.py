"""The design file: a ``Design`` as JSON, as ``python -m core plan --design FILE`` and the Designer read it."""

from __future__ import annotations

from pathlib import Path

from core.design import Design
from core.errors import InputError


def read_design_file(path: str | Path) -> Design:
    """Read and validate a design JSON file; ``InputError`` says what is wrong in one line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read design file {path}: {exc.strerror}") from exc
    return Design.from_json(text)


def write_design_file(design: Design) -> str:
    """The design as the JSON text a design file holds (fields that differ from the defaults)."""
    return design.to_json()
