"""End to end: the Performance page in real headless Chromium, served as ``make run`` serves it."""

import pytest

from conftest import ARTIFACTS

pytestmark = pytest.mark.e2e


def test_performance_page_in_chromium(server, browser):
    url = f"{server}/performance?v=1&n=128&perf_model=gpt3-175b&perf_tp=4&perf_pp=8&perf_seq=2048&perf_gbs=256"
    pg = browser.new_page(viewport={"width": 1500, "height": 1000})
    try:
        pg.goto(url, wait_until="domcontentloaded")
        pg.wait_for_selector("text=Bus bandwidth vs message size", timeout=60_000)
        # a deep link on a fresh server opens the page directly (webui.serve), no "Page not found"
        assert pg.get_by_role("dialog").count() == 0
        pg.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=60_000)
        pg.wait_for_selector("[data-testid='stMetricValue']", timeout=30_000)
        assert pg.locator("[data-testid='stException']").count() == 0
        assert "Traceback" not in pg.content()
        metrics = pg.locator("[data-testid='stMetricLabel']").all_inner_texts()
        assert any("Step time" in m for m in metrics)
        assert "perf_model=gpt3-175b" in pg.url
        # change a setting: the link follows
        box = pg.get_by_label("PP", exact=True)
        box.fill("16")
        box.press("Enter")
        pg.wait_for_function("window.location.search.includes('perf_pp=16')", timeout=30_000)
        pg.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=60_000)
        assert pg.locator("[data-testid='stException']").count() == 0
        ARTIFACTS.mkdir(exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / "performance_e2e.png"), full_page=True)
    finally:
        pg.close()


def test_compare_with_a_pasted_link_in_chromium(server, browser):
    """Paste a second design's share link: the comparison table shows it and the page's link keeps it."""
    url = f"{server}/performance?v=1&n=128&perf_cmp=url"
    pg = browser.new_page(viewport={"width": 1500, "height": 1000})
    try:
        pg.goto(url, wait_until="domcontentloaded")
        pg.wait_for_selector("text=Share link of the design to compare with", timeout=60_000)
        box = pg.get_by_role("textbox", name="Share link of the design to compare with")
        box.fill(f"{server}/?v=1&n=128&f=eth&os=2")
        box.press("Enter")
        pg.wait_for_function("window.location.search.includes('perf_cmpl=')", timeout=30_000)
        pg.wait_for_selector("text=Linked design", timeout=60_000)
        assert pg.locator("[data-testid='stException']").count() == 0
        assert "Traceback" not in pg.content()
    finally:
        pg.close()
