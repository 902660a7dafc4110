"""The Resilience page's Overload & imbalance tab of a design with pods fits its window: the tier table has one
fabric's columns (the pod named in the tier cell, as the heatmap's rows) under short headers, and the heatmap's and
histogram's titles are a title and a subtitle that each fit one line of a half-page chart at 1,024 px, so neither
breaks mid-phrase at a wider window."""

from __future__ import annotations

import re

import pytest

from core.analysis import load
from core.analysis.loadpods import design_link_load
from core.design import Design
from core.figures.resilience import bandwidth_histogram_figure, load_heatmap_figure
from core.figures.style import TITLE_CHARS, text_width
from core.i18n import language
from core.plan import plan
from webui.resilience_cache import TIER_LOADS, tier_columns, tier_table
from core.figures.style import SUBTITLE_WIDTH, full_title


@pytest.fixture(scope="module")
def results():
    pods, one = plan(Design(gpu="H100", nodes=64, pods="B200:32:800")), plan(Design(gpu="H100", nodes=64))
    return (design_link_load(pods, "ring", "rail"), pods.fabric.family), (load.link_load(one, "ring", "rail"),
                                                                          one.fabric.family)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pods_tier_table_has_one_fabrics_columns(results, lang):
    (pods, family), (one, _family) = results
    with language(lang):
        frame, alone = tier_table(pods, "GB/s", family), tier_table(one, "GB/s", family)
        config = tier_columns()
    assert list(frame.columns) == list(alone.columns)
    assert frame.iloc[0, 0].startswith("pod 1 " if lang == "en" else "Pod 1 ")
    assert {str(frame.iloc[-1, 0]).split(" ")[1]} == {"2"}  # the last rows are pod 2's
    loads = list(frame.columns[-len(TIER_LOADS):])
    assert all(text_width(c) <= 16 for c in loads), loads  # "most flows on a link, ECMP" scrolled at 1,280 px
    assert all(config[c].get("help") for c in loads)  # the full words in the header's tooltip


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_load_charts_titles_fit_one_line_each(results, lang):
    (pods, family), _one = results
    with language(lang):
        figures = [load_heatmap_figure(pods, r, family=family) for r in ("ecmp", "ar")]
        figures.append(bandwidth_histogram_figure(pods))
    for fig in figures:  # one title line; the subtitle, in its readable size (SUBTITLE_SIZE), in one or two
        lines = full_title(fig.layout.title).split("<br>")
        assert 2 <= len(lines) <= 3 and all(line.startswith("<sup>") for line in lines[1:]), lines
        assert text_width(lines[0]) <= TITLE_CHARS
        assert all(text_width(re.sub(r"</?sup>", "", line)) <= TITLE_CHARS * SUBTITLE_WIDTH for line in lines[1:])
    subtitle = figures[-1].layout.title.subtitle.text.replace("<br>", " ")
    assert "50 GB/s / 100 GB/s" in subtitle  # both pods' line rates, each number with its unit
