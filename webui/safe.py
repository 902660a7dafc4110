"""Showing text that may carry user input: escaped for Streamlit's markdown, never interpreted.

Streamlit renders ``st.warning``, ``st.error``, ``st.info``, ``st.caption`` and ``st.markdown`` as
markdown (links, images, ``$math$``, ``:colour[...]`` directives, emoji shortcodes). A share-link
value such as ``[expired - click here](//example.org) ![p](/probe)`` must appear as those
characters, not as a link or an image the browser fetches. ``md`` backslash-escapes every ASCII
punctuation character (CommonMark allows escaping any of them), so the text shows verbatim;
``message`` does that for an engine exception's message and suggestion.

Escaping alone does not stop GFM's autolink literals: the renderer (remark-gfm) finds bare
``https://...``, ``www.`` and e-mail addresses in the text after the escapes are resolved, and so do
HTML entities (``&#58;`` is a colon by then). ``md`` therefore puts an invisible WORD JOINER
(U+2060) after the colon of ``://``, after ``@`` and between ``www`` and its dot: the reader sees
the same characters, and none of the three patterns matches (checked in headless Chromium:
tests/test_e2e_hardening.py).
"""

from __future__ import annotations

import re

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
WORD_JOINER = "\u2060"
"""Invisible, zero width, no line break: splits an autolink pattern without changing what is shown."""
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=@)|(?i:(?<=www)(?=\.))")
"""Where GFM would start an autolink literal: after ``:`` of ``://``, after ``@``, between ``www`` and ``.``."""
MAX_SHOWN = 2000
"""Longest text shown from any one message (engine messages already truncate echoed values)."""


def md(text: object) -> str:
    """``text`` escaped so markdown shows it literally (newlines kept as line breaks)."""
    value = str(text)
    if len(value) > MAX_SHOWN:
        value = value[: MAX_SHOWN - 3] + "..."
    value = _AUTOLINK.sub(WORD_JOINER, value)
    return _PUNCT.sub(r"\\\1", value).replace("\n", "  \n")


def message(exc: BaseException) -> tuple[str, str]:
    """(message, suggestion) of an engine error, both escaped."""
    text = getattr(exc, "message", None) or str(exc)
    return md(text), md(getattr(exc, "suggestion", "") or "")
