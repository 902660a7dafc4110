"""End to end in real headless Chromium: share links, a slider move, a bad link, screenshots of each tab.

Starts ``streamlit run app.py`` on a free port; screenshots go to test-artifacts/ (gitignored).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from core.figures.keynumbers import key_numbers

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


def settle(page, timeout=45):
    """Wait until Streamlit has finished running and the page stopped changing (a job's progress bar,
    ``webui.jobs``, counts as running: the page redraws itself when the job ends)."""
    page.wait_for_selector("h1", timeout=timeout * 1000)
    deadline = time.time() + timeout
    quiet_since = None
    while time.time() < deadline:
        running = page.locator("[data-testid='stStatusWidget']").count() > 0 or \
            page.locator("[data-stale='true']").count() > 0 or \
            page.locator("[data-testid='stSkeleton']").count() > 0 or \
            page.locator("[data-testid='stProgress']").count() > 0
        if running:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.time()
        elif time.time() - quiet_since > 0.8:
            return
        time.sleep(0.1)
    raise AssertionError("the app did not settle")


def metric_values(page) -> dict[str, str]:
    labels = page.locator("[data-testid='stMetricLabel']").all_inner_texts()
    values = page.locator("[data-testid='stMetricValue']").all_inner_texts()
    return {label.strip(): value.strip() for label, value in zip(labels, values)}


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}


def cli_summary(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "core", "plan", *args, "--format", "json"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_share_link_shows_the_cli_numbers(server, page):
    link = "?v=1&g=B300&n=300&f=eth&ps=400&sw=TH5&pl=2&os=1.5&ui_bw=gbit"
    summary = cli_summary("--gpu", "B300", "--nodes", "300", "--fabric", "ethernet", "--port-speed", "400",
                          "--switch", "TH5", "--planes", "2", "--oversubscription", "1.5")
    page.goto(server + "/" + link)
    settle(page)
    shown = metric_values(page)
    expected = {k.label: k.value for k in key_numbers(summary, "Gb/s")}
    assert shown == expected
    assert shown["GPUs"] == f"{summary['gpus']:,}" == "2,400"
    assert query(page) == {**{k: v[-1] for k, v in parse_qs(link[1:]).items()}, "lang": "en"}  # the exact link
    copy_box = page.locator("[data-testid='stSidebar'] [data-testid='stCode']").inner_text()
    assert "sw=TH5" in copy_box and copy_box.startswith(server)
    page.screenshot(path=str(ARTIFACTS / "e2e-share-link.png"), full_page=True)
    # the same link on the catalog page keeps the design
    page.goto(server + "/catalog" + link)
    settle(page)
    assert query(page)["g"] == "B300" and query(page)["n"] == "300"
    page.screenshot(path=str(ARTIFACTS / "e2e-catalog.png"), full_page=True)


def test_slider_move_changes_url_and_numbers(server, page):
    page.goto(server + "/?n=128")
    settle(page)
    before = metric_values(page)
    assert before["GPUs"] == "1,024"
    thumb = page.locator("[data-testid='stSidebar'] [data-testid='stSlider'] input[type='range']").first
    thumb.focus()
    page.keyboard.press("ArrowRight")
    deadline = time.time() + 20
    while time.time() < deadline and query(page).get("n") == "128":
        time.sleep(0.1)
    settle(page)
    n = int(query(page)["n"])
    assert n > 128
    after = metric_values(page)
    assert after["GPUs"] == f"{n * 8:,}"
    assert after["Capex, whole cluster"] != before["Capex, whole cluster"]


def test_bad_link_shows_a_warning(server, page):
    page.goto(server + "/?n=lots&g=H100&os=0.2&t=tor")
    settle(page)
    warning = page.locator("[data-testid='stAlert']").first.inner_text()
    assert "'n' (Nodes)" in warning and "whole number from 1" in warning
    assert "'os' (Oversubscription (leaf down:up))" in warning
    assert metric_values(page)["GPUs"] == "32"  # the rest of the link applied (2 planes, default size)
    assert query(page) == {"v": "1", "t": "tor", "lang": "en"}
    page.screenshot(path=str(ARTIFACTS / "e2e-bad-link.png"), full_page=True)


@pytest.mark.parametrize("tab", ["Topology", "Bandwidth", "Cost & power"])
def test_tab_screenshots(server, page, tab):
    page.goto(server + "/?n=128")
    settle(page)
    page.get_by_role("tab", name=tab).click()
    settle(page)
    assert page.locator(".js-plotly-plot").count() >= 2
    if tab != "Topology":
        assert query(page)["tab"] == tab
    page.screenshot(path=str(ARTIFACTS / f"e2e-tab-{tab.split()[0].lower()}.png"), full_page=True)


def _marker_pixel(page, trace_prefix: str, index: int) -> tuple[float, float]:
    """Page coordinates of point ``index`` of the first trace named ``trace_prefix...`` in the topology chart."""
    return tuple(page.evaluate("""([prefix, index]) => {
        const gd = document.querySelector('.js-plotly-plot');
        const trace = gd._fullData.find(t => (t.name || '').startsWith(prefix));
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        const box = gd.getBoundingClientRect();
        return [box.left + xa._offset + xa.l2p(trace.x[index]), box.top + ya._offset + ya.l2p(trace.y[index])];
    }""", [trace_prefix, index]))


def test_clicking_a_switch_highlights_its_links(server, page):
    page.goto(server + "/?v=1&n=128")
    settle(page)
    chart = page.locator(".js-plotly-plot").first
    chart.scroll_into_view_if_needed()
    settle(page)
    x, y = _marker_pixel(page, "Spine", 0)
    page.mouse.move(x, y)
    time.sleep(0.3)
    page.mouse.click(x, y)
    page.wait_for_selector("text=Highlighted:", timeout=30_000)
    settle(page)
    caption = page.get_by_text("Highlighted:").inner_text()
    assert "spine001" in caption  # the exports' name, as the drawing's hover says it
    names = page.evaluate("() => document.querySelector('.js-plotly-plot')._fullData.map(t => t.name)")
    assert "selected links" in names
    page.screenshot(path=str(ARTIFACTS / "e2e-click-highlight.png"), full_page=True)
    page.get_by_role("button", name="Clear highlight").click()
    settle(page)
    assert page.get_by_text("Highlighted:").count() == 0
