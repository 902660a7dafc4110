"""The oversubscription what-if labels a ratio the design does not reach with the ratio it builds: a design whose
scalable units cap a leaf's down ports builds 2.67:1 for both 3:1 and 4:1, and the 4:1 row says it is the 3:1
design (the Designer's table and the review pack's, en and zh)."""

from __future__ import annotations

import pytest

from core.analysis.whatif import oversubscription_sweep, sweep_display_table
from core.design import Design
from core.i18n import language

MIXED = Design(gpu="H100", nodes=64, pods="B200:32:800")
"""Pod 1 (64 H100 nodes in 32-node scalable units) is what the Bandwidth tab sweeps."""


def test_rows_that_build_the_same_design_say_so():
    frame = oversubscription_sweep(MIXED).set_index("oversubscription")
    assert frame.loc[3.0, "effective_oversubscription"] == frame.loc[4.0, "effective_oversubscription"]
    assert frame.loc[3.0, "note"] == "the leaves build 2.67:1 (whole ports and scalable units)"
    assert frame.loc[4.0, "note"] == "same design as 3:1: the leaves build 2.67:1"
    assert frame.loc[8.0, "note"] == "same design as 6:1: the leaves build 4:1"
    assert frame.loc[1.0, "note"] == frame.loc[2.0, "note"] == ""
    table = sweep_display_table(oversubscription_sweep(MIXED), "GB/s")
    assert table["leaf oversubscription"].tolist()[:5] == ["1:1", "1.5:1 → 1.33:1", "2:1", "3:1 → 2.67:1", "4:1 → 2.67:1"]
    # beside the ratio cell, the table's note says only what the cell does not: short enough to be read whole
    assert table["note"].tolist()[:5] == ["", "whole ports and scalable units", "", "whole ports and scalable units",
                                          "same design as 3:1"]


def test_a_design_that_reaches_its_ratios_has_no_note():
    frame = oversubscription_sweep(Design(gpu="H100", gpus=16384))
    assert set(frame["note"]) == {""}  # 2.98:1 for 3:1 is whole ports, not another design


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pack_says_it_too(lang):
    from core.formats.report import design_report_html
    from core.plan import plan

    with language(lang):
        html = design_report_html(plan(MIXED), name="Mixed", share_link="")
        expected = sweep_display_table(oversubscription_sweep(MIXED), "GB/s").iloc[4, -1]  # the note
    assert "4:1 → 2.67:1" in html and expected in html and ("与 3:1 的设计相同" in html) == (lang == "zh")
    assert expected == {"en": "same design as 3:1", "zh": "与 3:1 的设计相同"}[lang]
