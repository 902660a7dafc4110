"""Free text is text, in real headless Chromium: the Compare page opened from a link whose column names are HTML,
hover-template fields, bare URLs and a right-to-left override shows every name as typed, with no link to the
foreign host anywhere (Streamlit's markdown, Plotly's SVG), no style taken from a name, and a hover box that shows a
name's ``%{...}`` as typed instead of evaluating it. (The surface-by-surface checks: tests/test_free_text.py.)"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from test_e2e_browser import settle

pytestmark = pytest.mark.e2e

NAMES = ['<a href="https://ev.il/x">Log in</a>', "%{y} https://ev.il/y", '<span style="font-size:60px">B</span>',
         "\u202e[a](https://ev.il) www.ev.il"]


def test_compare_link_with_hostile_names_shows_text_only(server, page):
    params = {"v": "1", "lang": "en"}
    for i, name in enumerate(NAMES):
        params.update({f"c{i + 1}_name": name, f"c{i + 1}_ng": str(8 * (i + 1))})
    page.goto(f"{server}/compare?{urlencode(params)}")
    settle(page, timeout=120)
    page.locator(".js-plotly-plot").nth(2).wait_for(timeout=90_000)  # cost, days, then bandwidth
    page.wait_for_timeout(1000)  # the charts drawn
    # no link to the foreign host anywhere: HTML anchors and Plotly's SVG <a xlink:href>
    assert page.locator(f"a[*|href*='ev.il']:not([href^='{server}'])").count() == 0
    assert page.locator(".js-plotly-plot [style*='60px']").count() == 0  # no style from a name
    text = page.locator("body").inner_text().replace("\u200d", "")
    assert 'Log in</a>' in text and "\u202e" not in text  # shown as typed; no override reorders it
    charts = page.locator(".js-plotly-plot")
    assert charts.first.locator("text", has_text="Log in</a>").count() > 0  # the chart draws the name as text
    # the bandwidth chart's hover box names the design: its "%{y}" is shown, not evaluated
    bars = charts.nth(2).locator(".trace.bars").nth(1).locator(".point path")
    bars.first.hover(force=True)
    hover = charts.nth(2).locator(".hoverlayer")
    hover.locator("text").first.wait_for(timeout=10_000)
    shown = " ".join(hover.locator("text").all_text_contents()).replace("\u200d", "")
    assert "%{y} https://ev.il/y" in shown, shown
