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
    scrolls = "scrolls sideways" if lang == "en" else "左右滚动表格"  # nine columns: wider than a 1,024 px page
    assert any(scrolls in str(c.value) for c in at.caption)


def test_racks_tab_at_131072_gpus_stays_grouped():
    at = run({"tab": "Racks & cabling", "g": "B300", "ng": "131072"})
    assert not at.exception and not at.error
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    floor = next(s for s in specs if "Floor plan" in s["layout"]["title"]["text"])
    points = sum(len(t.get("x", [])) for t in floor["data"])
    assert points <= 14 * 20  # bundled rows, never one marker per rack of 4,613
    elevation = next(s for s in specs if "Rack elevations" in s["layout"]["title"]["text"])
    assert len(elevation["layout"]["xaxis"]["ticktext"]) <= 8


@pytest.mark.parametrize("lang, heading, moved", [("en", "Growth stages", "Re-terminated"), ("zh", "扩容阶段", "改接")])
def test_growth_stages_table_from_the_link(lang, heading, moved):
    """stg=128,256 in the link: one row per step with the cables re-terminated; the sidebar holds the stages."""
    at = run({"tab": "Racks & cabling", "lang": lang, "n": "64", "sw": "QM9700", "stg": "128,256"})
    assert not at.exception and not at.error
    assert any(heading in str(m.value) for m in at.markdown)
    frame = next(d.value for d in at.dataframe if moved in d.value.columns)
    assert len(frame) == 2 and frame[moved].tolist()[0] > 0
    assert at.text_input(key="w_stages").value == "128,256"


def test_growth_stages_within_grow_to_move_no_cable():
    at = run({"tab": "Racks & cabling", "n": "64", "sw": "QM9700", "gt": "256", "stg": "128"})
    assert not at.exception and not at.error
    frame = next(d.value for d in at.dataframe if "Re-terminated" in d.value.columns)
    assert frame["Step [nodes]"].tolist() == ["64 → 128", "128 → 256"] and frame["Re-terminated"].sum() == 0


@pytest.mark.parametrize("lang, heading, direct", [("en", "Level-2 NVLink cables", "rack to rack"),
                                                   ("zh", "第二级 NVLink 线缆", "机柜至机柜")])
def test_racks_tab_lists_the_level2_nvlink_cables(lang, heading, direct):
    """nvd=72&nvr=36: NVL36x2 pairs, cabled rack to rack; nvd=576: level-2 switches in the central racks."""
    at = run({"tab": "Racks & cabling", "lang": lang, "g": "GB200-NVL72", "ng": "144", "nvd": "72", "nvr": "36"})
    assert not at.exception and not at.error
    assert any(heading in str(m.value) for m in at.markdown)
    frame = next(d.value for d in at.dataframe if direct in " ".join(map(str, d.value.iloc[:, 0])))
    assert frame.iloc[0, 1] == 324  # 2 pairs x 162 cables, the BOM's count
    at = run({"tab": "Racks & cabling", "lang": lang, "g": "GB200-NVL72", "ng": "1152", "nvd": "576"})
    assert not at.exception and not at.error
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    elevation = next(s for s in specs if "layout" in s and any(t.get("legendgroup") == "nvlink2" for t in s["data"]))
    assert any(t.get("legendgroup") == "nvswitch" for t in elevation["data"])
