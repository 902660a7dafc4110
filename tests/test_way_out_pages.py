"""The Performance and Inference pages show a design that cannot be built as the Designer does (leftperf 5): the
error and its way-out buttons (``webui.state.show_error``, the one renderer); a click applies the way out to the
sidebar and the page shows the planned design."""

from __future__ import annotations

import pytest

from tests.pagetest import open_page

FAILING = {"v": "1", "n": "512", "ti": "1"}  # one tier of QM9700 holds 8 nodes: a DesignError with ways out


def _fixes(at) -> list[str]:
    return [b.label for b in at.button if b.key and b.key.startswith("fix_")]


@pytest.mark.parametrize("page, planned", [
    ("../pages/3_Performance.py", "Collectives"),
    ("../pages/8_Inference.py", "KV-cache transfer"),
])
def test_a_way_out_button_plans_the_design(page, planned):
    designer = _fixes(open_page("../pages/1_Designer.py", FAILING))
    at = open_page(page, FAILING)
    shown = " ".join(str(e.value).replace("\\", "") for e in at.error)
    assert "This design cannot be built." in shown and "What would work:" in shown
    assert _fixes(at) == designer == ["Set tiers to auto", "Plan at most 8 nodes (64 GPUs)", "Reset to defaults"]
    assert planned not in [s.value for s in at.subheader]
    at.button(key="fix_0").click().run()  # set tiers to auto
    assert not at.exception and not at.error
    assert at.selectbox(key="w_tiers").value == "auto"
    assert planned in [s.value for s in at.subheader]  # the page's results of the planned design
