"""The hardware catalog's notes in Chinese: every note translated, facts carried over unchanged.

A note (``notes`` in ``assets/catalog/*.toml``, extracted by ``tools/babel_toml.py`` with the
auto-comment ``catalog note``) is a list of facts: numbers, URLs, issue citations and grade tags.
Its Chinese text must hold every one of them as written in the English.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from core.i18n import _, language
from tools.babel_toml import _walk
from tests.i18n_check import PO

ROOT = Path(__file__).resolve().parent.parent
URL = re.compile(r"https?://[^\s)（）'\"“”，。；]+")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
CITATION = re.compile(r"[\w.-]+/[\w.-]+#\d+")           # NVIDIA/nccl-tests#290
GRADE = re.compile(r"\[(?:S|P|D|P via S)\]")              # source grade tags
CJK = re.compile(r"[\u4e00-\u9fff]")


def numbers(text: str) -> Counter:
    """Number tokens of ``text`` (URLs removed first, they are compared whole)."""
    return Counter(NUMBER.findall(URL.sub(" ", text)))


def _notes() -> list:
    with PO.open("rb") as handle:
        catalog = read_po(handle)
    return [m for m in catalog if m.id and "catalog note" in m.auto_comments]


NOTES = _notes()


def _id(message) -> str:
    return message.id[:40]


def test_catalog_has_notes():
    # the extractor ran: the catalog's notes are messages (about 48 when this was written)
    assert len(NOTES) >= 40


def test_every_toml_note_is_a_catalog_note():
    ids = {m.id for m in NOTES}
    for path in sorted((ROOT / "assets" / "catalog").glob("*.toml")):
        for note in _walk(tomllib.loads(path.read_text(encoding="utf-8"))):
            assert note in ids, f"{path.name}: note not in messages.po (run make i18n): {note[:60]}"


@pytest.mark.parametrize("message", NOTES, ids=_id)
def test_note_translated_with_every_fact(message):
    zh = message.string
    assert zh and zh.strip(), "untranslated catalog note"
    assert zh != message.id and CJK.search(zh), "msgstr is not Chinese"
    for url in URL.findall(message.id):
        assert url in URL.findall(zh), f"URL {url} missing or altered"
    missing = numbers(message.id) - numbers(zh)
    assert not missing, f"numbers missing or changed: {sorted(missing)}"
    for pattern in (CITATION, GRADE):
        for token in pattern.findall(message.id):
            assert token in zh, f"{token} missing"
    assert "fuzzy" not in message.flags


def test_helpers_can_fail():
    assert numbers("64 x 400G = 25.6 Tb/s") - numbers("64 x 400G = 25 Tb/s") == Counter({"25.6": 1})
    assert numbers("see https://a.b/800g200 (1,024)") == Counter({"1,024": 1})
    assert URL.findall("（https://docs.nvidia.com/x ）") == ["https://docs.nvidia.com/x"]


def test_notes_shown_in_chinese_at_runtime():
    # the compiled catalog serves them: a note from the TOML comes back in Chinese, English unchanged
    note = NOTES[0]
    with language("zh"):
        assert _(note.id) == note.string
    with language("en"):
        assert _(note.id) == note.id
