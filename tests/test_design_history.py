"""Named designs and where a session has been: the recent designs list, the browser's Back and Forward, and the
Compare columns named by their designs."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.design import MAX_NAME_CHARS, Design
from core.formats import comparelink, sharelink

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


def _app(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update(params or {})
    return at.run()


def _recent_buttons(at: AppTest) -> list:
    return [b for b in at.button if str(b.key or "").startswith("fp_recent_")]


def test_recent_designs_list_the_designs_left_and_open_them_again():
    at = _app({"v": "1", "g": "H100", "n": "16", "name": "Pod A"})
    assert not _recent_buttons(at)  # nothing to go back to yet: the current design is not listed
    at.select_slider(key="w_count").set_value(128).run()
    at.selectbox(key="w_fabric").set_value("ethernet").run()
    labels = [b.label for b in _recent_buttons(at)]
    assert len(labels) == 2
    assert labels[0].replace("\\", "").startswith("Pod A · 1,024 x H100 · InfiniBand")  # newest first
    assert labels[1].replace("\\", "").startswith("Pod A · 128 x H100 · InfiniBand")
    _recent_buttons(at)[1].click().run()  # back to the first design
    assert at.query_params["n"] == "16" and "f" not in at.query_params and at.query_params["name"] == "Pod A"
    assert at.select_slider(key="w_count").value == 16 or at.session_state["w_nodes"] == 16
    # the design just left is now the newest way back; a design is listed once
    labels = [b.label.replace("\\", "") for b in _recent_buttons(at)]
    assert len(labels) == 2 and "Ethernet" in labels[0] and "1,024" in labels[0]


def test_the_recent_list_is_bounded_and_follows_the_language():
    at = _app({"v": "1", "g": "H100", "n": "4"})
    for nodes in (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096):
        at.select_slider(key="w_count").set_value(nodes * 8 if False else nodes).run()
    from webui.state import MAX_RECENT

    assert len(_recent_buttons(at)) == MAX_RECENT - 1
    at.session_state["w_lang"] = "zh"
    at.run()
    assert all("InfiniBand" in b.label for b in _recent_buttons(at))
    assert all("层" in b.label for b in _recent_buttons(at))


def test_back_rereads_the_link_it_went_to(monkeypatch):
    """The browser's Back reruns the page with the link it went back to (Streamlit flags the run as history
    navigation): the sidebar shows that link's design, not the session's last one."""
    import webui.state as state

    at = _app({"v": "1", "g": "H100", "n": "16"})
    at.select_slider(key="w_count").set_value(128).run()
    assert at.query_params["n"] == "128"
    monkeypatch.setattr(state, "_history_navigation", lambda: True)
    at.query_params.clear()
    at.query_params.update({"v": "1", "g": "H100", "n": "16", "lang": "en"})
    at.run()
    assert at.query_params["n"] == "16"
    monkeypatch.setattr(state, "_history_navigation", lambda: False)
    at.run()  # an ordinary rerun keeps the design
    assert at.query_params["n"] == "16"


def test_a_compare_column_is_named_by_its_design():
    design = Design(gpu="H100", nodes=16, name="Pod A")
    comparison = comparelink.Comparison([comparelink.Entry("Pod A", design),
                                         comparelink.Entry("Design 2", Design(gpu="B200", nodes=8))])
    params = comparelink.encode(comparison)
    assert params["c1_name"] == "Pod A" and params["c2_name"] == "Design 2"
    back, warnings = comparelink.decode(params)
    assert not warnings
    assert [e.name for e in back.entries] == ["Pod A", "Design 2"]
    assert [e.design.name for e in back.entries] == ["Pod A", "Design 2"]  # the column's name is the design's
    # a renamed column renames its design: one name, not two
    renamed = comparelink.Comparison([comparelink.Entry("Pod B", design)])
    assert comparelink.decode(comparelink.encode(renamed))[0].entries[0].design.name == "Pod B"
    assert sharelink.decode({"v": "1", "g": "H100", "n": "16", "name": "Pod B"})[0] == \
        comparelink.decode(comparelink.encode(renamed))[0].entries[0].design


def test_a_column_name_is_cut_at_the_design_names_limit():
    long = "x" * (MAX_NAME_CHARS + 30)
    back, warnings = comparelink.decode({"c1_name": long, "c1_g": "H100"})
    assert back.entries[0].name == "x" * MAX_NAME_CHARS and len(warnings) == 1


def test_compare_page_names_the_sidebar_design_column_after_the_design():
    from tests.pagetest import open_page

    at = open_page("../pages/4_Compare.py", {"v": "1", "g": "H100", "n": "16", "name": "Pod A"})
    assert at.query_params["c1_name"] == "Pod A"
    assert any("Pod A" in str(m.value) for m in at.markdown)


@pytest.mark.e2e
def test_browser_back_returns_to_the_previous_design(server, page):
    from tests.test_e2e_browser import query, settle

    page.goto(server + "/?v=1&g=H100&n=16&name=Pod+A")
    settle(page)
    exact = page.get_by_label("Exact node count", exact=True)
    exact.fill("128")
    exact.press("Enter")
    settle(page)
    assert query(page)["n"] == "128"
    page.go_back()
    settle(page)
    assert query(page)["n"] == "16"
    assert exact.input_value() == "16"
    assert page.get_by_role("textbox", name="Design name").input_value() == "Pod A"
    page.go_forward()
    settle(page)
    assert query(page)["n"] == "128"
