"""One page-state mechanism: link -> session store -> warnings -> canonical link, for every page.

A page with settings of its own in the link (Compare ``c1_``/``cmp_``, Sweep ``sw_``, Resilience ``rs_``,
Optimize ``opt_``) declares them once as a ``PageLink``: where this session keeps them, how its link codec
reads them and which link keys are its own. Then

* ``page.values()`` is this session's settings, read from the session's first link at the page's first run
  (the link may have been opened on another page: ``webui.state`` keeps it as ``_fp_link``); a ``first``
  callback adapts them once (e.g. start from the sidebar's design);
* ``page.show_warnings(title)`` says the link's problems in the language of this run (the codec is asked
  again, so switching language re-words them), with one "Dismiss" button; problems found later (e.g. a
  failed element this design does not have) are passed in ``extra``;
* ``webui.state.set_page_link`` / ``sync_url`` write the canonical link (the design's keys plus the page's).

No page keeps its own copy of this glue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import streamlit as st

from core.formats.sharelink import capped_warnings
from core.i18n import _
from webui import safe

LINK_STORE = "_fp_link"


def link_params() -> dict[str, Any]:
    """The address bar's parameters as the link codecs read them: a key given more than once (``?n=8&n=9``) as the
    list of its values, so that the codec says which one counted (``st.query_params.to_dict()`` keeps the last
    silently); every other key as its text."""
    qp = st.query_params
    return {key: (values if len(values) > 1 else values[0]) for key in qp for values in [qp.get_all(key)] if values}
"""The session's first link (its query parameters), kept by ``webui.state`` while other pages show."""
_PAGES: dict[str, "PageLink"] = {}
"""Every page's ``PageLink`` by store (a page registers its own when its script first runs in this process)."""


def bullets(problems: list[str]) -> str:
    """A link's (or an upload's) problems as markdown bullets, escaped, as ``sharelink.capped_warnings`` cuts them:
    a few lines, each short, then "and N more"."""
    return "\n".join(f"- {safe.md(p)}" for p in capped_warnings(problems))


@dataclass(frozen=True)
class PageLink:
    """A page's own settings in the link.

    store
        Session key of this session's values.
    decode
        The page's link codec: query parameters -> (values, warnings in the current language).
    owns
        Whether a link key is one of the page's (its prefix).
    params_key, warn_key
        Session keys of the page's link parameters (kept to word their warnings again) and of "warnings not
        dismissed"; default ``store + "_params"`` / ``store + "_warn"``.
    """

    store: str
    decode: Callable[[Mapping[str, Any]], tuple[Any, list[str]]]
    owns: Callable[[str], bool]
    params_key: str = ""
    warn_key: str = ""

    def __post_init__(self) -> None:
        _PAGES[self.store] = self

    def forget(self) -> None:
        """Drop this session's settings, so the page reads them from the session's link again."""
        for key in (self.store, self._key(self.params_key, "_params"), self._key(self.warn_key, "_warn")):
            st.session_state.pop(key, None)

    def _key(self, given: str, suffix: str) -> str:
        return given or self.store + suffix

    def values(self, first: Callable[[Any, Mapping[str, Any]], Any] | None = None) -> Any:
        """This session's settings; read from the session's first link at the page's first run.

        ``first(values, params)`` runs once then and returns what is stored (``None``: ``values`` as they are).
        """
        ss = st.session_state
        if self.store not in ss:
            params = ss.get(LINK_STORE) or link_params()
            values, warnings = self.decode(params)
            own = {key: value for key, value in params.items() if self.owns(str(key))}
            if first is not None:
                adapted = first(values, params)
                values = values if adapted is None else adapted
            ss[self.store] = values
            ss[self._key(self.params_key, "_params")] = own
            ss[self._key(self.warn_key, "_warn")] = bool(warnings)
        return ss[self.store]

    def warnings(self) -> list[str]:
        """The link's warnings about the page's own keys, in this run's language (none once dismissed)."""
        ss = st.session_state
        if not ss.get(self._key(self.warn_key, "_warn")):
            return []
        return list(self.decode(ss.get(self._key(self.params_key, "_params")) or {})[1])

    def show_warnings(self, title: str, extra: list[str] | None = None, dismiss_key: str | None = None,
                      on_dismiss: Callable[[], None] | None = None) -> None:
        """One warning box: ``title`` and a line per problem (escaped), and a button that dismisses them
        (``on_dismiss`` also forgets the ``extra`` problems the page keeps)."""
        problems = self.warnings() + list(extra or [])
        if not problems:
            return
        st.warning("**" + safe.md(title) + "**\n\n" + bullets(problems))
        if st.button(_("Dismiss link warnings"), key=dismiss_key or self.store + "_dismiss"):
            self.dismiss()
            if on_dismiss is not None:
                on_dismiss()
            st.rerun()

    def dismiss(self) -> None:
        """Forget the link's warnings for this session."""
        st.session_state[self._key(self.warn_key, "_warn")] = False


def reread(params: Mapping[str, Any]) -> None:
    """Make ``params`` the session's link again (the browser went Back or Forward to it): every page reads its
    settings from it at its next run, as from the session's first link."""
    st.session_state[LINK_STORE] = dict(params)
    for page in _PAGES.values():
        page.forget()
