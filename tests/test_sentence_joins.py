"""Sentences a page joins are joined by the one rule (``core.i18n.sentences``): a space after an English sentence,
none after a Chinese full stop. The Resilience page's failure caption read ``红色叉号标出故障元素。 此视图为聚合视图``
and the Compare page's caption, the pods' elements help and the sidebar's switch help joined the same way."""

from __future__ import annotations

import re

import pytest

from tests import pagetest
from tests.test_i18n import page_text

SPACED = re.compile(r"。 ")


@pytest.mark.parametrize("page, link", [
    ("../pages/6_Resilience.py", {"ng": "4096", "t": "df"}),  # the aggregated view's caption
    ("../pages/6_Resilience.py", {"n": "64", "pods": "B300:32:800"}),  # the pods' elements help
    ("../pages/4_Compare.py", {"n": "64"}),
])
def test_no_space_after_a_chinese_full_stop(page, link):
    at = pagetest.open_page(page, {**link, "lang": "zh"})
    text = page_text(at)
    assert not SPACED.findall(text), [text[max(0, m.start() - 30):m.end() + 30] for m in SPACED.finditer(text)]
