"""The Designer's pods box is one builder on two tiers and three (AppTest): the same table fields (the port speed
included), the shared layer, the bound across pods and the mixed totals as the CLI says them; the Bandwidth tab's
hops between pods are the whole fabric's."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.pagetest import ENTRY


def _designer(tiers: int, tab: str) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({"n": "64", "pods": "B200:32:800", "ti": str(tiers), "tab": tab, "lang": "en"})
    return at.run()


@pytest.mark.parametrize("tiers, shared", [(2, "Shared spines"), (3, "Shared cores")])
def test_pods_box_is_the_same_on_two_and_three_tiers(tiers, shared):
    at = _designer(tiers, "Topology")
    assert not at.exception and not at.error
    frame = at.dataframe[0].value  # a column per pod, a row per field
    fields = list(frame.iloc[:, 0])
    assert "Port speed" in fields and list(frame.iloc[fields.index("Port speed"), 1:]) == ["400G", "800G"]
    lines = [str(m.value).replace("\\", "") for m in at.markdown]
    assert any(line.startswith(f"**{shared}**: ") for line in lines)
    assert any(line.startswith("**Across pods**: ") for line in lines)
    total = next(line for line in lines if line.startswith("**Mixed total**: "))
    assert re.search(r"768 GPUs, [\d,]+ compute fabric switches, capex .+, IT power", total)


@pytest.mark.parametrize("tiers, hops", [(2, 3), (3, 5)])
def test_bandwidth_tab_hops_between_pods(tiers, hops):
    at = _designer(tiers, "Bandwidth")
    assert not at.exception and not at.error
    assert any(f"cross pod {hops} " in str(m.value) for m in at.markdown)
