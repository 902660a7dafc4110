"""Babel extractor for the hardware catalog (``babel.cfg``): every ``notes`` text becomes a message, and the
published designs' (``presets.toml``) ``title`` and each of their ``differences``.

Product names, part numbers and the ``source`` / ``price_source`` / ``power_source`` citations are
not extracted: they are quoted as published. The app translates a note with ``core.i18n._(note)``.
"""

from __future__ import annotations

import tomllib
from typing import Any, Iterator

FIELDS = ("notes", "title", "differences")


def _walk(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in FIELDS and isinstance(item, str) and item.strip():
                yield item
            elif key in FIELDS and isinstance(item, list) and all(isinstance(text, str) for text in item):
                yield from (text for text in item if text.strip())
            else:
                yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def extract_notes(fileobj, keywords, comment_tags, options) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel extraction method: ``(lineno, funcname, message, comments)`` for each note."""
    text = fileobj.read().decode("utf-8")
    lines = text.splitlines()
    for note in _walk(tomllib.loads(text)):
        first = note.split("\n")[0][:60]
        lineno = next((n for n, line in enumerate(lines, 1) if first and first in line), 0)
        yield lineno, None, note, ["catalog note"]
