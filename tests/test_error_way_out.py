"""An engine error's way out shows as every page shows it (``webui.safe.with_way_out``): labelled "What would work:",
below the message; in Chinese no ASCII space after a full-width colon or full stop, and the bold closed before the
full-width mark (CommonMark keeps ``**`` open between ``：`` and a CJK character: visible asterisks)."""

from __future__ import annotations

import re

import pytest

from core.analysis.compare import Column
from core.design import Design
from core.errors import DesignError
from tests.pagetest import open_page

FAILING = {"v": "1", "n": "512", "ti": "1"}  # one tier of QM9700 holds 8 nodes: a DesignError with ways out
PAGES = ("../pages/1_Designer.py", "../pages/6_Resilience.py", "../pages/4_Compare.py")


@pytest.mark.parametrize("page", PAGES)
def test_the_way_out_is_labelled_and_joined_as_the_language_joins(page):
    zh = open_page(page, {**FAILING, "lang": "zh"}).error[0].value
    assert "\n\n**可行的做法**：将层数设为自动" in zh, zh
    assert not re.search(r"[：。；] ", zh), zh  # no ASCII space after a full-width mark
    assert not re.search(r"\*\*[：。]\*\*|[：。]\*\*(?=[^\s])", zh), zh  # bold closed before the mark, not after
    en = open_page(page, FAILING).error[0].value
    assert "\n\n**What would work:** Set tiers to auto" in en, en


def test_a_compare_column_keeps_the_errors_message_and_way_out_apart():
    column = Column("a", Design())
    column.error_message, column.way_out = "Too big.", "Use fewer nodes."
    assert column.error == str(DesignError("Too big.", "Use fewer nodes."))
    column.error_message, column.way_out = "太大。", "减少节点。"
    assert column.error == str(DesignError("太大。", "减少节点。")) == "太大。减少节点。"
