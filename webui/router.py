"""The page a link asks for, whatever the case of its path.

Streamlit matches a page's URL path case-sensitively and runs the default page (the Designer) for a path it does
not know, so ``/Performance?v=1&...`` silently opened the Designer. ``follow_case`` opens the page whose path
differs only in case, with the link's query; a path no page has keeps the Designer and says so.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core.i18n import _
from webui import safe


def asked_path() -> str:
    """The page path the browser asked for (``Performance`` of ``/Performance?...``; empty for ``/``)."""
    ctx = get_script_run_ctx()
    manager = getattr(ctx, "pages_manager", None)
    return str(getattr(manager, "intended_page_name", "") or "").strip("/")


def page_for(path: str, url_paths: list[str]) -> str | None:
    """The URL path among ``url_paths`` that ``path`` names whatever its case; None when none does."""
    wanted = path.strip("/").casefold()
    return next((p for p in url_paths if p and p.casefold() == wanted), None)


def follow_case(page, pages: list) -> None:
    """Run on every page: a link to ``/Performance`` opens ``/performance`` with its query; a path no page has
    (``/nowhere``) leaves the Designer, which ``st.navigation`` fell back to, with a warning naming the path."""
    asked = asked_path()
    if not asked or asked == page.url_path:
        return
    match = page_for(asked, [p.url_path for p in pages])
    if match is not None and match != page.url_path:
        st.switch_page(next(p for p in pages if p.url_path == match), query_params=st.query_params.to_dict())
    if match is None:
        st.warning(safe.md(_("No page is at /{path}; the Designer is shown. Pages: {pages}.").format(
            path=asked[:40], pages=", ".join("/" + p.url_path for p in pages if p.url_path))))
