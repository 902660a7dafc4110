"""What the page AppTests share: a page of the app opened from a link, inside the whole app (``apptest_entry.py``
runs ``app.py``: navigation, sidebar, share box), the way a browser opens it: one run of the app with that page
selected from the start, as a browser's first request for ``/catalog?...`` is."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from streamlit.testing.v1 import AppTest

from tests.test_i18n import rerun

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))

_PAGES: dict = {}
"""The app's pages as its ``st.navigation`` registers them (page hash → page info), learned once per test process
from one run of the app (``registered_pages``)."""


def registered_pages() -> dict:
    """The pages ``app.py``'s ``st.navigation`` registers, from one run of the app with an empty link (the first
    call in a test process; later calls reuse it). AppTest finds a page by the hash of its ``url_path``, which it
    only learns from a run; a page's registration does not depend on the link or the session."""
    if not _PAGES:
        at = AppTest.from_file(ENTRY, default_timeout=120).run()
        assert not at.exception, at.exception
        _PAGES.update(at._registered_pages)  # what AppTest keeps after a run to resolve switch_page (no public reader)
    return _PAGES


def select(at: AppTest, page: str) -> AppTest:
    """``at`` (not yet run) with ``page`` (relative to the entry, e.g. ``"../pages/4_Compare.py"``) selected for its
    first run: what a browser asks for when it opens that page's link."""
    at._registered_pages = dict(registered_pages())
    return at.switch_page(page)


def open_page(page: str, params: dict, timeout: float = 120) -> AppTest:
    """The app opened with the link ``params`` on ``page`` (relative to the entry, e.g. ``"../pages/4_Compare.py"``):
    one run of ``app.py`` (navigation, sidebar, share box) that runs that page; fails the test on an uncaught
    exception."""
    at = AppTest.from_file(ENTRY, default_timeout=timeout)
    at.query_params.update(params)
    rerun(select(at, page))
    assert not at.exception, at.exception
    return at


def opener(page: str) -> Callable[[dict], AppTest]:
    """``open_page`` for one page: ``open_page = pagetest.opener(PAGE)`` in that page's test file."""
    return lambda params: open_page(page, params)
