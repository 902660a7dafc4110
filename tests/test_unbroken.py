"""An amount never splits across lines: in a browser (``core.text.unbroken``) and in a figure's wrapped text
(``core.figures.style``)."""

from __future__ import annotations

import re

import pytest

from core.figures.style import wrap_text
from core.i18n import language, usd
from core.text import NO_BREAK, unbroken, visible
from core.units import bandwidth
from webui.safe import md


def test_unbroken_joins_every_amount_and_shows_the_same_text():
    with language("zh"):
        money = usd(751_000_000)
    text = f"整个集群资本支出 {money}，双向 {bandwidth(800, 'GB/s')}，$7.51 M，{usd(9_500)} 12 nodes"
    glued = unbroken(text)
    assert visible(glued) == text  # only invisible joiners added
    assert "7.51" + NO_BREAK + "亿" + NO_BREAK + "美" + NO_BREAK + "元" in glued  # 7.51亿美 / 元 was a line end
    assert "100" + NO_BREAK + " " + NO_BREAK + "GB/s" in glued  # 100 / GB/s
    assert "7.51" + NO_BREAK + " " + NO_BREAK + "M" in glued
    assert "12 nodes" in glued  # a count and its noun may break as any words


def test_markdown_text_keeps_its_amounts_whole():
    """``webui.safe.md`` (every engine sentence a page shows as markdown: the Optimize page's verdict lines)."""
    with language("zh"):
        shown = md(f"资本支出 {usd(751_000_000)}。")
    assert re.sub(r"\\(.)", r"\1", shown).replace(NO_BREAK, "") == "资本支出 7.51亿美元。"
    assert "亿" + NO_BREAK + "美" + NO_BREAK + "元" in shown


@pytest.mark.parametrize("width", range(18, 40))
def test_a_figure_line_never_ends_inside_an_amount(width):
    """The scale-up subtitle in Chinese broke "双向 100" / "GB/s"; a Chinese amount of money broke "亿美" / "元"."""
    for text in ("每个 GPU 18 条链路 × 双向 100 GB/s = 每个 GPU 双向 1.8 TB/s",
                 "整个集群资本支出合计为 7.51亿美元，是最便宜的设计"):
        lines = wrap_text(text, width).split("<br>")
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for before, after in zip(lines, lines[1:]):
            assert not (before[-1:].isdigit() and re.match(r"[kMGT]?B/s|[万亿美元]", after)), (before, after)
            assert not (before.endswith(("亿", "万", "美", "亿美")) and after[:1] in "美元"), (before, after)
