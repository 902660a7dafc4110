"""End to end in headless Chromium: on the Resilience page a click on a spine in the diagram fails it (the failed
result shows, the link carries ``rs_fail``), a second click restores it; screenshots in both languages."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.test_e2e_browser import metric_values, query, settle

pytestmark = pytest.mark.e2e

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


def _marker(page, prefix: str, index: int) -> tuple[float, float]:
    """Page coordinates of point ``index`` of the first trace named ``prefix...`` of the page's first chart."""
    return tuple(page.evaluate("""([prefix, index]) => {
        const gd = document.querySelector('.js-plotly-plot');
        const trace = gd._fullData.find(t => (t.name || '').startsWith(prefix));
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        const box = gd.getBoundingClientRect();
        return [box.left + xa._offset + xa.l2p(trace.x[index]), box.top + ya._offset + ya.l2p(trace.y[index])];
    }""", [prefix, index]))


def _click_spine(page, index: int) -> None:
    chart = page.locator(".js-plotly-plot").first
    chart.scroll_into_view_if_needed()
    settle(page)
    x, y = _marker(page, "Spine", index)
    page.mouse.move(x, y)
    time.sleep(0.3)
    page.mouse.click(x, y)


def _wait(page, predicate, timeout: float = 30) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        page.wait_for_timeout(200)  # not time.sleep: Playwright handles the page's events (URL changes) meanwhile
    raise AssertionError("timed out")


def test_clicking_a_spine_fails_it_and_clicking_again_restores_it(server, page):
    page.goto(server + "/resilience?v=1&n=128")
    settle(page, 90)
    assert page.get_by_text("Nothing has failed").count() == 1
    _click_spine(page, 1)
    _wait(page, lambda: query(page).get("rs_fail") == "spine002", 90)  # the exports' name (left48)
    assert query(page).get("rs_fail") == "spine002"
    settle(page, 90)
    shown = metric_values(page)
    assert shown["GPUs cut off"] == "0" and shown["Bisection (1 dir)"].endswith(" TB/s")
    names = page.evaluate("() => document.querySelector('.js-plotly-plot')._fullData.map(t => t.name)")
    assert "failed (1)" in names
    assert "rs_fail=spine002" in page.locator("[data-testid='stSidebar'] [data-testid='stCode']").inner_text()
    page.screenshot(path=str(ARTIFACTS / "e2e-resilience-failed.png"), full_page=True)
    _click_spine(page, 1)
    _wait(page, lambda: "rs_fail" not in query(page), 90)
    settle(page, 90)
    assert page.get_by_text("Nothing has failed").count() == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resilience_sections_render(server, page, lang):
    for tab in ("Single points of failure", "Overload & imbalance"):
        page.goto(server + f"/resilience?v=1&n=128&lang={lang}&rs_tab={tab.replace(' ', '+').replace('&', '%26')}")
        settle(page, 90)
        assert page.locator("[data-testid='stException']").count() == 0
        page.screenshot(path=str(ARTIFACTS / f"e2e-resilience-{lang}-{tab.split()[0].lower()}.png"), full_page=True)
