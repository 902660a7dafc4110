"""The Dragonfly+ leaf what-if: why a row with oversubscribed leaves can match the design's cut with fewer switches,
said on the Designer and in the report. Numbers by hand for 4,096 H100 GPUs (512 nodes x 8 x 400G) on QM9700:
at 1:1 leaves, 4 groups whose 1,024 global ports per group spread over 3 other groups (341 links per pair); a
balanced cut (2 groups | 2 groups) crosses 4 pairs = 1,364 links = 545.6 Tb/s, while half the injection is
4,096 x 400 / 2 = 819.2 Tb/s: 1.5:1 end to end whatever the leaves."""

from __future__ import annotations

import pytest

from core.analysis.whatif import oversubscription_sweep
from core.design import Design
from core.fabric.families import leaf_whatif_note
from core.formats.report import design_report_html
from core.plan import plan

DF = Design(topology="dragonfly", gpus=4096)


@pytest.fixture(scope="module")
def df():
    return plan(DF)


def test_the_designs_cut_is_the_global_links_by_hand(df):
    assert df.fabric.pod_count == 4
    bw = df.bandwidth
    assert bw.leaf_oversubscription == pytest.approx(1.0)
    assert bw.bisection_tbits_one_direction == pytest.approx(4 * 341 * 0.4)
    assert bw.oversubscription == pytest.approx(4096 * 400 / 2 / (4 * 341 * 400))  # 1.5015


def test_a_row_that_beats_the_cut_gives_up_leaf_bandwidth_inside_a_group(df):
    sweep = oversubscription_sweep(DF, values=(1.0, 1.5))
    design, other = sweep.iloc[0], sweep.iloc[1]
    assert other["cross_fabric_gbits_per_gpu"] >= design["cross_fabric_gbits_per_gpu"]
    assert other["switches"] < design["switches"]
    leaf = plan(DF.model_copy(update={"oversubscription": 1.5})).bandwidth.leaf_oversubscription
    assert leaf > df.bandwidth.leaf_oversubscription  # 38 nodes on 26 uplinks: 1.46:1 inside a group, not 1:1


def test_the_note_fills_in_the_designs_numbers(df):
    note = leaf_whatif_note(df)
    assert "its 3 other groups" in note and "the design is 1.5:1 end to end while its leaves are 1:1" in note
    assert leaf_whatif_note(plan(Design(gpu="H100", nodes=64))) == ""  # a folded Clos ranks as it reads


def test_report_and_designer_show_the_note(df):
    html = design_report_html(df, name="", share_link="")
    assert "Why a row can beat the design here" in html and "its 3 other groups" in html


def test_designer_bandwidth_tab_shows_the_note():
    from streamlit.testing.v1 import AppTest

    from tests.pagetest import ENTRY

    at = AppTest.from_file(ENTRY, default_timeout=300)
    at.query_params.update({"v": "1", "t": "df", "ng": "4096", "tab": "Bandwidth", "lang": "en"})
    at.run()
    assert not at.exception and not at.error
    captions = " ".join(c.value for c in at.caption)
    assert "Why a row can beat the design here" in captions and "its 3 other groups" in captions
