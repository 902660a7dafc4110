"""The four wiring capabilities on every page: a Dragonfly+, a torus, two NVLink levels and mixed pods (the links the
review opens) on each of the app's eight pages: no exception, no error, and in the texts the page itself writes no
word of the other language (``tests/test_i18n_pages.leaks``; what a reader types, such as a failure spec between
backquotes, stays as typed; so do a formula's ``ceil(`` and ``floor(``, as the catalog's Chinese keeps them). Each
pair runs once, in English or Chinese by turns, so every page is seen in both languages and every family in both
(32 runs, not 64: the families' own page tests open most pairs in English too). The families' own page tests check
what each page says of them; this grid checks that none is left out (the Dragonfly+'s Performance page in
Chinese said "spine" in a sentence; before it, the Catalog page was opened with none of them, Optimize not with a
torus, and Sweep and Inference not with two NVLink levels)."""

from __future__ import annotations

import re

import pytest

from tests.pagetest import open_page
from tests.test_i18n_pages import leaks, page_texts

DESIGNS = {
    "dragonfly+": {"v": "1", "t": "df", "ng": "4096"},
    "torus": {"v": "1", "t": "tr", "ng": "512"},
    "nvlink-2-levels": {"v": "1", "g": "GB200-NVL72", "n": "144", "nvd": "144"},
    "pods": {"v": "1", "n": "64", "pods": "B300:32:800"},
}
PAGES = ["../pages/1_Designer.py", "../pages/2_Catalog.py", "../pages/3_Performance.py", "../pages/4_Compare.py",
         "../pages/5_Sweep.py", "../pages/6_Resilience.py", "../pages/7_Optimize.py", "../pages/8_Inference.py"]


CASES = [(design, page, ("zh", "en")[(i + j) % 2]) for i, design in enumerate(DESIGNS) for j, page in enumerate(PAGES)]


@pytest.mark.parametrize("design, page, lang", CASES,
                         ids=[f"{d}-{p.rsplit('/', 1)[1].removesuffix('.py')}-{lang}" for d, p, lang in CASES])
def test_every_page_works_on_every_family(design, page, lang):
    at = open_page(page, {**DESIGNS[design], "lang": lang}, timeout=240)
    assert not at.error, [e.value for e in at.error]
    assert not leaks([re.sub(r"`[^`]*`|\b(?:ceil|floor)\(", " ", text) for text in page_texts(at)], lang)


def test_the_grid_sees_every_page_and_every_family_in_both_languages():
    for key in (0, 1):
        for item in {case[key] for case in CASES}:
            assert {case[2] for case in CASES if case[key] == item} == {"en", "zh"}, item
