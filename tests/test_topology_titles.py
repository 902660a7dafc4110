"""The topology diagrams' titles use their chart's width: the Designer's (three fifths of the page) and the
Resilience page's (the whole width) wrap the title at their own line length, not a half-page chart's, and the
subtitle's two sentences end with a stop (the review pack re-wraps the title into one line)."""

from __future__ import annotations

import re

import pytest

from core.design import Design
from core.figures.resilience import failure_topology_figure
from core.figures.style import TITLE_CHARS, TITLE_CHARS_THREE_FIFTHS, TITLE_CHARS_WIDE, text_width
from core.figures.topology import topology_figure
from core.i18n import language
from core.plan import plan
from core.figures.style import full_title


@pytest.fixture(scope="module")
def mixed():
    return plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))


def _title_lines(fig) -> list[str]:
    return [line for line in full_title(fig.layout.title).split("<br>") if not line.startswith("<sup>")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_designers_topology_title_takes_two_lines_at_most(mixed, lang):
    with language(lang):
        lines = _title_lines(topology_figure(mixed))
    assert len(lines) <= 2 and all(text_width(line) <= TITLE_CHARS_THREE_FIFTHS for line in lines), lines
    assert any(text_width(line) > TITLE_CHARS for line in lines)  # wider than a half-page chart's


def test_the_resilience_diagram_title_uses_the_whole_width(mixed):
    lines = _title_lines(failure_topology_figure(mixed, set()))
    assert len(lines) == 1 and text_width(lines[0]) <= TITLE_CHARS_WIDE


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_subtitles_sentences_end_with_a_stop(mixed, lang):
    from core.formats.report import _rewrap_title
    from core.i18n import _

    with language(lang):
        layout = topology_figure(mixed).to_plotly_json()["layout"]
        rails = _("Leaf and link colour = rail: {rails}")[:6]  # the second sentence's start
    _rewrap_title(layout)
    text = re.sub(r"<[^>]+>", " ", full_title(layout["title"]))
    before = text[:text.index(rails)].rstrip()
    assert before.endswith((".", "。")), before[-30:]
