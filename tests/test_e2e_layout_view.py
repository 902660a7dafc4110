"""Layout in real headless Chromium at the widths people use: a radio option whose words wrap keeps its circle on
its first line (app.py ``RADIO_CSS``), and key-number cards sit in even rows, every card one column as wide and as
tall as the others (``core.figures.keynumbers.cards_html``)."""

from __future__ import annotations

import pytest

from tests.test_e2e_browser import settle

pytestmark = pytest.mark.e2e


def _open(browser, server, path, width):
    context = browser.new_context(viewport={"width": width, "height": 1200})
    page = context.new_page()
    page.goto(f"{server}/{path}")
    settle(page, 90)
    return context, page


def test_a_wrapped_radio_option_has_its_circle_on_its_first_line(server, browser):
    context, page = _open(browser, server, "optimize?v=1&ng=16384&lang=en", 1280)
    try:
        options = page.locator('[role="radiogroup"][aria-label="Size by"] [data-testid="stRadioOption"]').all()
        assert len(options) == 2
        lines = []
        for option in options:
            row = option.locator(":scope > div").first
            circle = row.locator(":scope > div").first.bounding_box()
            text = row.locator('[data-testid="stMarkdownContainer"]')
            box = text.bounding_box()
            line = float(text.evaluate("e => getComputedStyle(e.querySelector('p')).lineHeight")[:-2])
            lines.append(round(box["height"] / line))
            middle = circle["y"] + circle["height"] / 2
            assert box["y"] <= middle <= box["y"] + line, (circle, box, line)  # beside the first line
        assert max(lines) >= 2  # the check had a wrapped option to look at
    finally:
        context.close()


@pytest.mark.parametrize("path, width", [("?v=1&lang=zh", 1280), ("?v=1&n=64&pods=B200%3A32%3A800&lang=en", 1024),
                                         ("?v=1&lang=en", 1024)])
def test_key_number_cards_sit_in_even_rows(server, browser, path, width):
    context, page = _open(browser, server, path, width)
    try:
        boxes = [c.bounding_box() for c in page.locator(".fp-cards").first.locator(".fp-card").all()]
        assert len(boxes) >= 10
        assert max(b["width"] for b in boxes) - min(b["width"] for b in boxes) < 1  # no double-width card
        assert max(b["height"] for b in boxes) - min(b["height"] for b in boxes) < 1  # rows as tall as each other
        rows: dict[int, int] = {}
        for b in boxes:
            rows[round(b["y"])] = rows.get(round(b["y"]), 0) + 1
        counts = [rows[y] for y in sorted(rows)]
        assert len(set(counts[:-1])) <= 1 and counts[-1] <= counts[0], counts  # only the last row may be short
    finally:
        context.close()
