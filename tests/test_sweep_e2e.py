"""The Sweep page in real headless Chromium: change the swept setting, see the engine's numbers and a gap with
its reason, copy the share link into a fresh context and see the same chart; the Chinese page too."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from core.design import Design
from core.plan import plan
from tests.conftest import ARTIFACTS
from tests.test_e2e_browser import settle
from tests.test_e2e_compare import cells, charts, share_link

pytestmark = pytest.mark.e2e


def query(url: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def test_sweep_link_reopens_the_same_chart_in_a_fresh_context(server, browser):
    first = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = first.new_page()
    try:
        page.goto(f"{server}/sweep?n=64")
        settle(page)
        box = page.get_by_role("textbox", name="Values")
        box.fill("1, 2, 3")
        box.press("Enter")
        settle(page)
        drawn = charts(page)
        line = drawn[0][0]
        assert line[1] == [1, 2, 3]
        want = [plan(Design(gpu="H100", nodes=64, oversubscription=o)).summary()["cost"]["capex_per_gpu_usd"]
                for o in (1.0, 2.0, 3.0)]
        assert line[2] == pytest.approx(want)
        link = share_link(page)
        assert urlsplit(link).path.endswith("/sweep") and query(link)["sw_xv"] == "1,2,3"
        page.screenshot(path=str(ARTIFACTS / "e2e-sweep.png"), full_page=True)
    finally:
        first.close()

    fresh = browser.new_context(viewport={"width": 1280, "height": 1000})
    other = fresh.new_page()
    try:
        other.goto(link)
        settle(other)
        assert charts(other) == drawn
    finally:
        fresh.close()


def test_infeasible_points_are_gaps_with_reasons(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{server}/sweep?n=64&sw_x=tiers&sw_xv=1,2,3&sw_m=switches_total")
        settle(page)
        traces = charts(page)[0]
        assert traces[0][2][0] is None  # no bar at 1 tier
        assert traces[1][1] == ["1"]  # ... but a cross with the reason on hover
        table = cells(page)[0]
        assert any("tier" in c for c in table)
    finally:
        context.close()


def test_chinese_sweep_page(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(f"{server}/sweep?n=64&lang=zh&sw_x=fabric")
        settle(page)
        main = page.inner_text("[data-testid='stMain']")
        assert "参数扫描" in main and "以太网" in main
        page.screenshot(path=str(ARTIFACTS / "e2e-sweep-zh.png"), full_page=True)
    finally:
        context.close()
