"""Free text is text: what a user typed or a link gave (a design's name, a comparison's column names, an echoed
value) is shown as the same characters on every surface, never read as markup or turned into a link.

Each surface has one escaper, built on the rules here: Streamlit's markdown ``webui.safe.md``, Plotly's text
``core.figures.style.plain``, HTML (the review pack, its PDF, the key-number cards) ``html_text``.

Escaping alone does not stop autolinking: GFM's renderer (remark-gfm) finds bare ``https://...``, ``www.`` and
e-mail addresses after the escapes are resolved, and so do PDF viewers in a printed page's text. ``unlinked``
puts an invisible WORD JOINER (U+2060) after the colon of ``://``, after ``@`` and between ``www`` and its dot:
the reader sees the same characters, and none of the three patterns matches.

Control and format characters (a right-to-left override reorders what people read, a zero-width space hides
a difference between two names) are never part of a name: ``core.design.check_name`` refuses them,
``visible`` drops them where a value is cleaned instead of refused (a comparison's column name).
"""

from __future__ import annotations

import html
import re
import unicodedata

WORD_JOINER = "\u2060"
"""Invisible, zero width, no line break: splits an autolink pattern without changing what is shown."""
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=@)|(?i:(?<=www)(?=\.))")
"""Where an autolinker would start: after ``:`` of ``://``, after ``@``, between ``www`` and ``.``."""
HIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Co")
"""Unicode categories never kept in a name: control, format (bidi overrides, zero-width), surrogate, private use."""


def unlinked(text: object) -> str:
    """``text`` with a word joiner wherever an autolinker (GFM, a PDF viewer) would start a link."""
    return _AUTOLINK.sub(WORD_JOINER, str(text))


def hidden(char: str) -> bool:
    """Whether ``char`` is a control or format character (``HIDDEN_CATEGORIES``)."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def visible(text: object) -> str:
    """``text`` without its control and format characters."""
    return "".join(c for c in str(text) if not hidden(c))


def html_text(value: object) -> str:
    """``value`` as HTML text or an attribute value (quotes escaped), shown literally and never autolinked."""
    return html.escape(unlinked(value), quote=True)
