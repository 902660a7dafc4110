"""The cross-surface check (tests/test_cross_surface.py) once in real headless Chromium: two designs opened by
their links on the Designer and on Compare show the same capex and bisection texts as the engine's reference,
and the sidebar's Switch-model box names the switch the plan uses."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.conftest import ARTIFACTS
from tests.test_cross_surface import CASES, params, reference
from tests.test_e2e_browser import settle
from tests.test_e2e_compare import cells

pytestmark = pytest.mark.e2e

CHOSEN = ("per-rail-planes", "chinese")


def card(page, key: str) -> str:
    return page.locator(f".fp-card[data-key='{key}'] .fp-value").first.inner_text().strip()


@pytest.mark.parametrize("case_id", CHOSEN)
def test_designer_and_compare_show_the_same_capex_and_bisection(server, page, case_id):
    from core.analysis.compare import metric_label, metrics
    from core.i18n import language

    case = next(c for c in CASES if c.id == case_id)
    ref = reference(case_id)
    query = urlencode(params(case))

    page.goto(f"{server}/?{query}")
    settle(page)
    designer = {k: card(page, k) for k in ("capex", "capex_fabric", "bisection")}
    assert designer == {k: ref.text[k] for k in designer}
    boxes = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox'] input")
    shown_boxes = [boxes.nth(i).input_value() for i in range(boxes.count())]
    assert ref.switch_box in shown_boxes, shown_boxes  # the Switch-model box (left to the engine: "auto (...)")

    page.goto(f"{server}/compare?{query}")
    settle(page)
    grid = cells(page)[0]
    with language(case.lang):
        label = {m.key: metric_label(m) for m in metrics()}
    shown = {key: grid[grid.index(label[metric]) + 1]
             for key, metric in (("capex", "capex_usd"), ("capex_fabric", "network_capex_usd"),
                                 ("bisection", "bisection_tbits"))}
    assert shown == designer
    page.screenshot(path=str(ARTIFACTS / f"e2e-cross-surface-{case_id}.png"), full_page=True)
