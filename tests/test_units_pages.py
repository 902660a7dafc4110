"""AppTest: the bandwidth unit chosen once (the link's ``ui_bw``) is the unit of the Designer, Compare and
Resilience pages (the Designer showed TB/s, Compare Tb/s next to GB/s, Resilience Tb/s)."""

from __future__ import annotations

import re

import pytest

from tests import pagetest
from tests.test_i18n import page_text

DESIGNER = "../pages/1_Designer.py"
COMPARE = "../pages/4_Compare.py"
RESILIENCE = "../pages/6_Resilience.py"
DESIGN = {"n": "64", "sw": "QM9700"}
PAGES = [
    (DESIGNER, {**DESIGN, "tab": "Bandwidth"}),
    (COMPARE, {**DESIGN, "c1_name": "IB", "c1_n": "64", "c2_name": "RoCE", "c2_n": "64", "c2_f": "eth"}),
    (RESILIENCE, {**DESIGN, "rs_fail": "p0.spine3,leaf:1"}),
]
BYTES = re.compile(r"\d\s*[GTP]B/s")
BITS = re.compile(r"\d\s*[GTP]b/s")
PORT_SPEED = re.compile(r"^(auto \()?\d+ Gb/s\)?$|NICs that run \d+ Gb/s", re.M)
"""The sidebar's port-speed choices: a port type is named by its line rate (400 Gb/s) in either unit."""


def visible(at) -> str:
    """``page_text`` and every cell of every table (``page_text`` reads object columns only, and pandas 3 holds
    text as ``str``)."""
    cells = [str(v) for frame in (d.value for d in at.dataframe) for v in frame.astype(str).to_numpy().ravel()]
    return page_text(at) + "\n" + "\n".join(cells)


@pytest.mark.parametrize("page, params", PAGES, ids=["designer", "compare", "resilience"])
def test_ui_bw_gbit_shows_bits_everywhere_on_the_page(page, params):
    text = visible(pagetest.open_page(page, {**params, "ui_bw": "gbit", "lang": "en"}))
    assert not BYTES.findall(text), sorted(set(re.findall(r".{0,40}\d\s*[GTP]B/s.{0,10}", text)))[:8]
    assert re.search(r"\d\s*[TP]b/s", text)  # the bisection, scaled by the same rule as everything else


@pytest.mark.parametrize("page, params", PAGES, ids=["designer", "compare", "resilience"])
def test_ui_bw_gbyte_shows_bytes_everywhere_on_the_page(page, params):
    text = PORT_SPEED.sub(" ", visible(pagetest.open_page(page, {**params, "ui_bw": "gbyte", "lang": "en"})))
    assert not BITS.findall(text), sorted(set(re.findall(r".{0,40}\d\s*[GTP]b/s.{0,10}", text)))[:8]
    assert re.search(r"\d\s*TB/s", text)


def test_the_unit_switch_is_on_the_compare_pages_sidebar_too():
    """Compare draws its own short sidebar; the one unit switch is in it, and flipping it re-words the page."""
    at = pagetest.open_page(COMPARE, {**PAGES[1][1], "lang": "en"})
    assert BYTES.search(visible(at)) and not BITS.search(PORT_SPEED.sub(" ", visible(at)))
    at.sidebar.toggle(key="w_bits").set_value(True).run()
    assert not at.exception
    text = visible(at)
    assert not BYTES.findall(text) and re.search(r"\d\s*[TP]b/s", text)
