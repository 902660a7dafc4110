"""AppTest of the Designer's "Racks & cabling" tab in both languages, small and huge designs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


def run(params: dict) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update(params)
    return at.run()


@pytest.mark.parametrize("lang, title", [("en", "Floor plan"), ("zh", "机房平面图")])
def test_racks_tab_draws_floor_plan_elevations_and_lengths(lang, title):
    at = run({"tab": "Racks & cabling", "lang": lang, "n": "127"})
    assert not at.exception and not at.error
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert any(title in spec["layout"]["title"]["text"] for spec in specs)
    assert len(specs) >= 3  # floor plan, rack elevations, cable lengths
    assert at.dataframe  # media per link class and length bin
    links = "Links" if lang == "en" else "链路"  # 2,048 links with a separator, as on every page
    assert json.loads(at.dataframe[0].proto.columns or "{}")[links]["type_config"]["format"] == "localized"
    cards = " ".join(str(m.value) for m in at.markdown)
    assert ("Floor area" if lang == "en" else "占地面积") in cards


def test_racks_tab_at_131072_gpus_stays_grouped():
    at = run({"tab": "Racks & cabling", "g": "B300", "ng": "131072"})
    assert not at.exception and not at.error
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    floor = next(s for s in specs if "Floor plan" in s["layout"]["title"]["text"])
    points = sum(len(t.get("x", [])) for t in floor["data"])
    assert points <= 14 * 20  # bundled rows, never one marker per rack of 4,613
    elevation = next(s for s in specs if "Rack elevations" in s["layout"]["title"]["text"])
    assert len(elevation["layout"]["xaxis"]["ticktext"]) <= 8
