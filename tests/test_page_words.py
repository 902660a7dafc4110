"""Words on the pages that name what the design holds (AppTest): the sidebar's system choice on an Ascend design
says NPU, as the design's cards and drawing do."""

from __future__ import annotations

import pytest

from tests import pagetest

ASCEND = {"g": "Atlas-800T-A2", "n": "8", "f": "eth", "sw": "H3C-S9827-64EP"}


@pytest.mark.parametrize("lang, label", [("en", "NPU model"), ("zh", "NPU 型号")])
def test_the_system_choice_of_an_ascend_design_says_npu(lang, label):
    at = pagetest.open_page("../pages/1_Designer.py", {**ASCEND, "lang": lang})
    assert not at.exception
    assert at.sidebar.selectbox(key="w_gpu").label == label
    h100 = pagetest.open_page("../pages/1_Designer.py", {"n": "8", "lang": lang})
    assert h100.sidebar.selectbox(key="w_gpu").label == label.replace("NPU", "GPU")
