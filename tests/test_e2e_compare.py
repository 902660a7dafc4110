"""The Compare page in real headless Chromium: build a two-design comparison, copy its share link into a fresh
browser context (no session in common) and see identical numbers, charts and names."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.conftest import ARTIFACTS
from tests.test_e2e_browser import settle

pytestmark = pytest.mark.e2e


def query(url: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def cells(page) -> list[list[str]]:
    """Every cell of each of the page's tables (Streamlit's data grid exposes them as grid cells once drawn:
    each table is scrolled into view and read when its cell count has stopped changing)."""
    tables = []
    frames = page.locator("[data-testid='stDataFrame']")
    for i in range(frames.count()):
        frame = frames.nth(i)
        frame.scroll_into_view_if_needed()
        last, texts = -1, []
        for _attempt in range(50):
            texts = [c.strip() for c in frame.locator("[role='gridcell']").all_inner_texts()]
            if texts and len(texts) == last:
                break
            last = len(texts)
            page.wait_for_timeout(100)
        tables.append(texts)
    return tables


def charts(page) -> list:
    """x and y of every trace of every Plotly chart, as the browser drew them."""
    return page.evaluate("() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
                         ".map(e => e.data.map(t => [t.name || null, t.x, t.y]))")


def share_link(page) -> str:
    return page.locator("[data-testid='stSidebar'] [data-testid='stCode']").last.inner_text().strip()


def test_a_two_design_comparison_reopens_identically_in_a_fresh_context(server, browser):
    first = browser.new_context(viewport={"width": 1600, "height": 1100})
    page = first.new_page()
    try:
        page.goto(f"{server}/compare?n=64")
        settle(page)
        page.get_by_role("textbox", name="Share link of a design").fill("http://somewhere/?v=1&n=64&f=eth&os=2")
        page.get_by_role("textbox", name="Name", exact=True).first.fill("RoCE 2:1")
        page.keyboard.press("Tab")
        settle(page)
        page.get_by_role("button", name="Add link").click()
        settle(page)
        numbers, drawn = cells(page), charts(page)
        assert "2. RoCE 2:1" in page.inner_text("[data-testid='stMain']")
        assert len(numbers) == 2 and all(numbers)  # the numbers and the BOM difference
        assert any(c.endswith("%)") for c in numbers[0])  # a delta against the baseline
        link = share_link(page)
        params = query(link)
        assert params["c1_n"] == "64" and params["c2_f"] == "eth" and params["c2_name"] == "RoCE 2:1"
        assert urlsplit(link).path.endswith("/compare")
        page.screenshot(path=str(ARTIFACTS / "e2e-compare.png"), full_page=True)
    finally:
        first.close()

    fresh = browser.new_context(viewport={"width": 1600, "height": 1100})
    other = fresh.new_page()
    try:
        other.goto(link)
        settle(other)
        assert cells(other) == numbers
        assert charts(other) == drawn
        assert query(share_link(other)) == params
    finally:
        fresh.close()


@pytest.mark.parametrize("link, kept", [
    ("?v=1&t=df&ng=4096", {"t": "df", "n": "512"}),
    ("?v=1&g=GB200-NVL72&n=144&nvd=144&pue=1.5", {"g": "GB200-NVL72", "nvd": "144", "pue": "1.5"}),
])
def test_a_visit_to_compare_leaves_the_designers_design_as_it_was(server, browser, link, kept):
    """Compare draws none of the design controls; back on the Designer they must show, and send back on the next
    rerun, the design's values, not their defaults (a visit to Compare once turned a Dragonfly+ of H100 into a
    rail-optimized V100 design at the first click after it: GPU model, topology, PUE, electricity price, TCO
    years, global ratio and the management network reset)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1100})
    page = context.new_page()
    try:
        page.goto(f"{server}/{link}")
        settle(page)
        before = query(page.url)
        assert kept.items() <= before.items()
        sidebar = page.locator("[data-testid='stSidebar']")
        sidebar.get_by_role("link", name="Compare").click()
        settle(page)
        sidebar.get_by_role("link", name="Designer").click()
        settle(page)
        sidebar.get_by_text("Bandwidth in Gb/s").click()  # any rerun: the browser sends its controls' values
        settle(page)
        after = query(page.url)
        assert after.pop("ui_bw") == "gbit"
        assert after == before
    finally:
        context.close()
