"""Every chart declares where it is drawn (webui.charts.chart) and its title wraps for that slot at 1,024 px
(core.figures.style.SLOT_CHARS): a full-width chart never wraps at the half-width rule."""

import json
import re
from pathlib import Path

import plotly.graph_objects as go
from streamlit.testing.v1 import AppTest

from core.figures.style import SLOT_CHARS, TITLE_CHARS, base_layout, fit_title, full_title, text_width

ROOT = Path(__file__).resolve().parent.parent
ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


def _titles(at) -> dict[str, str]:
    """Each chart's key -> its whole title text as drawn (``full_title``)."""
    return {c.proto.id: full_title(json.loads(c.proto.spec)["layout"]["title"]) for c in at.get("plotly_chart")}


def test_every_chart_is_drawn_through_the_slot_helper():
    calls = []
    for path in [*ROOT.glob("pages/*.py"), *ROOT.glob("webui/*.py")]:
        if path.name == "charts.py":
            continue
        calls += [f"{path.name}: {line.strip()}" for line in path.read_text().splitlines()
                  if re.search(r"\.plotly_chart\(", line) and not line.lstrip().startswith("#")]
    assert calls == []  # draw with webui.charts.chart(fig, slot, ...)
    uses = sum(len(re.findall(r"charts\.chart\(", p.read_text())) for p in [*ROOT.glob("pages/*.py"),
                                                                              *ROOT.glob("webui/*.py")])
    assert uses >= 25


def test_fit_title_is_what_the_builder_gives_for_that_slot():
    title = "A long enough title that wraps at the half-page width of a chart<br><sup>a subtitle line under it</sup>"
    for built, drawn in [("half", "full"), ("full", "half"), ("three_fifths", "two_fifths"), ("half", "half")]:
        fig = base_layout(go.Figure(), title, 400, slot=built).to_dict()["layout"]
        want = base_layout(go.Figure(), title, 400, slot=drawn).to_dict()["layout"]
        got = fit_title(fig, drawn)
        assert full_title(got["title"]) == full_title(want["title"])
        assert (got["height"], got["margin"]["t"]) == (want["height"], want["margin"]["t"])
        assert got["title"].get("subtitle", {}).get("font") == want["title"]["subtitle"]["font"]
        assert full_title(fit_title(fig, "full")["title"]).startswith(title.split("<br>")[0] + "<br><sup>")
    assert fit_title({"title": {"text": "no kept title"}}, "full") == {"title": {"text": "no kept title"}}


def test_performance_full_width_titles_do_not_wrap_at_the_half_rule():
    at = AppTest.from_file(str(ROOT / "pages" / "3_Performance.py"), default_timeout=90)
    at.query_params["n"] = "4"  # 32 GPUs
    at.run()
    assert not at.exception
    busbw = next(t for t in _titles(at).values() if t.startswith("Bus bandwidth vs message size"))
    assert busbw == "Bus bandwidth vs message size: all-reduce on 32 GPUs"
    assert text_width(busbw) > TITLE_CHARS  # the half-width rule would wrap it


def test_designer_cost_tab_slots():
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update({"n": "128", "tab": "Cost & power"})
    at.run()
    assert not at.exception
    titles = {key: text for ident, text in _titles(at).items()
              for key in ("capex_chart", "power_chart", "networks_chart", "sensitivity_chart") if key in ident}
    assert len(titles) == 4
    for key, text in titles.items():
        slot = "half" if key in ("capex_chart", "power_chart") else "full"
        lines = [re.sub(r"</?sup>", "", line) for line in text.split("<br>")]
        assert all(text_width(line) <= SLOT_CHARS[slot] * 1.2 for line in lines), (key, text)
    networks = titles["networks_chart"].split("<br>")[0]  # one line at full width, two at the half rule
    assert text_width(networks) > TITLE_CHARS, networks
