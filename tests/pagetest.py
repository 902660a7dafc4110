"""What the page AppTests share: a page of the app opened from a link, inside the whole app (``apptest_entry.py``
runs ``app.py``: navigation, sidebar, share box), the way a browser opens it."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from streamlit.testing.v1 import AppTest

from tests.test_i18n import rerun

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


def open_page(page: str, params: dict, timeout: float = 120) -> AppTest:
    """The app opened with the link ``params``, then switched to ``page`` (relative to the entry, e.g.
    ``"../pages/4_Compare.py"``; AppTest finds a page by its ``url_path`` only after a first run) and run in the
    link's language; fails the test on an uncaught exception."""
    at = AppTest.from_file(ENTRY, default_timeout=timeout)
    at.query_params.update(params)
    at.run()
    at.switch_page(page)
    rerun(at)
    assert not at.exception, at.exception
    return at


def opener(page: str) -> Callable[[dict], AppTest]:
    """``open_page`` for one page: ``open_page = pagetest.opener(PAGE)`` in that page's test file."""
    return lambda params: open_page(page, params)
