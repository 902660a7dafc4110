"""Full-width brackets after Chinese text, one rule: the translations write ``架顶（ToR）``, but the zh Optimize form
listed the cable media "有源光缆 (AOC)" (a translation), and code that put brackets together itself wrote "分层 (LL)"
(the fastest algorithm with its protocol) and "+53.39万美元 (+2.2%)" (Compare's change with its share). Code puts
them together by ``core.i18n.bracketed``; every translation keeps the rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from core.i18n import bracketed, language

PO = Path(__file__).resolve().parent.parent / "assets" / "locales" / "zh" / "LC_MESSAGES" / "messages.po"
HALF_AFTER_HAN = re.compile(r"[\u3400-\u9fff] ?\((?!\{)")


def test_no_translation_puts_half_width_brackets_after_chinese():
    with PO.open("rb") as handle:
        catalog = read_po(handle)
    found = [(m.id, s) for m in catalog if m.id
             for s in (m.string if isinstance(m.string, (list, tuple)) else [m.string]) if HALF_AFTER_HAN.search(s or "")]
    assert not found, found


@pytest.mark.parametrize("lang, text, inside, said", [
    ("zh", "分层", "LL", "分层（LL）"), ("zh", "+53.39万美元", "+2.2%", "+53.39万美元（+2.2%）"),
    ("zh", "ring", "LL", "ring (LL)"), ("en", "hierarchical", "LL", "hierarchical (LL)")])
def test_code_brackets_follow_the_translations(lang, text, inside, said):
    with language(lang):
        assert bracketed(text, inside) == said


def test_the_fastest_algorithm_and_compares_change_read_so_in_chinese():
    from types import SimpleNamespace

    from core.figures.compare import format_delta
    from core.perf.algorithms import fastest_label

    change = SimpleNamespace(verdict="worse", pods=None, absolute=533_900.0, percent=2.2)
    with language("zh"):
        assert fastest_label("hierarchical", "LL", "nccl") == "分层（LL）"
        assert fastest_label("ring", "LL", "nccl") == "ring (LL)"
        assert format_delta(change, "usd") == "+53.39万美元（+2.2%）"
    with language("en"):
        assert format_delta(change, "usd") == "+$533,900 (+2.2%)"
