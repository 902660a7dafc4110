"""Both languages in real headless Chromium: a ``lang=zh`` share link, the browser's locale, the switch.

Screenshots of every page in Chinese go to test-artifacts/e2e-zh-*.png (a CJK font must be
installed: ``make test`` installs Debian's fonts-noto-cjk).
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.conftest import ARTIFACTS
from tests.i18n_check import chinese_leaks, english_leaks
from tests.test_e2e_browser import settle

pytestmark = pytest.mark.e2e

LINK = "?v=1&g=GB200-NVL72&n=1152&f=eth&os=2&sw=SN5600&lang=zh"
PAGES = [("", "designer"), ("catalog", "catalog"), ("performance", "performance"), ("inference", "inference")]


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}


def visible_text(page) -> str:
    """The page's visible text less the share link box (a URL), code blocks, the glossary table (both
    languages by design) and Streamlit's own "Skip to main content" link (the framework is English-only)."""
    text = page.evaluate("""() => {
        const root = document.querySelector('[data-testid="stApp"]');
        const clone = root.cloneNode(true);
        clone.querySelectorAll('[data-testid="stCode"], [data-testid="stTable"], pre, code, style, script')
            .forEach(e => e.remove());
        clone.querySelectorAll('a').forEach(e => { if (e.innerText.trim() === 'Skip to main content') e.remove(); });
        document.body.appendChild(clone); clone.style.position = 'absolute'; clone.style.left = '-99999px';
        const t = clone.innerText; clone.remove(); return t; }""")
    return re.sub(r"https?://\S+", " ", text)


@pytest.mark.parametrize("path, name", PAGES)
def test_chinese_link_opens_every_page_in_chinese(server, page, path, name):
    page.goto(f"{server}/{path}{LINK}")
    settle(page)
    # the sidebar's share box is drawn last (after the page's own work): under load the page can sit quiet for
    # settle's 0.8 s before it (CI once read the sidebar without it), so wait for the box itself
    page.wait_for_selector("[data-testid='stSidebar'] [data-testid='stCode']", timeout=45_000)
    settle(page)
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert query(page)["lang"] == "zh" and query(page)["g"] == "GB200-NVL72"
    sidebar = page.locator("[data-testid='stSidebar']").inner_text()
    assert "GPU 型号" in sidebar and "收敛比" in sidebar and "分享" in sidebar
    leaks = english_leaks(visible_text(page))
    page.screenshot(path=str(ARTIFACTS / f"e2e-zh-{name}.png"), full_page=True)
    assert not leaks, f"English on the Chinese {name} page: {leaks[:20]}"


def test_browser_locale_is_the_default(server, browser):
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    try:
        page.goto(server + "/?n=16")
        settle(page)
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        assert query(page)["lang"] == "zh"
        assert "设计" in page.locator("[data-testid='stSidebar']").inner_text()
    finally:
        context.close()


def shown_value(box) -> str:
    """A select box's label and the option it shows (an input's value or the selected text)."""
    return box.evaluate("e => e.innerText + ' ' + Array.from(e.querySelectorAll('input')).map(i => i.value)"
                        ".join(' ')")


def test_switch_keeps_the_design_and_the_switch_model(server, page):
    page.goto(server + "/?v=1&g=B200&n=64&f=eth&sw=SN5600&os=2&px=SN5600:90000&lang=en")
    settle(page)
    before = query(page)
    switch_box = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(has_text="Switch model")
    assert "SN5600" in shown_value(switch_box)
    page.locator("[data-testid='stSidebar'] label").filter(has_text="简体中文").click()
    settle(page)
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    after = query(page)
    assert after.pop("lang") == "zh" and before.pop("lang") == "en"
    assert after == before  # every design value is kept
    chinese_switch = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(has_text="交换机型号")
    assert "SN5600" in shown_value(chinese_switch)
    page.locator("[data-testid='stSidebar'] label").filter(has_text="English").click()
    settle(page)
    back = query(page)
    assert back.pop("lang") == "en" and back == before
    assert not chinese_leaks(visible_text(page))
