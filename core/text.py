"""Free text is text: what a user typed or a link gave (a design's name, a comparison's column names, an echoed
value) is shown as the same characters on every surface, never read as markup or turned into a link.

Each surface has one escaper, built on the rules here: Streamlit's markdown ``webui.safe.md``, Plotly's text
``core.figures.style.plain``, HTML (the review pack, its PDF, the key-number cards) ``html_text``.

Escaping alone does not stop autolinking: GFM's renderer (remark-gfm) finds bare ``https://...``, ``www.`` and
e-mail addresses after the escapes are resolved, and so do PDF viewers in a printed page's text. ``unlinked``
puts an invisible ZERO WIDTH JOINER (U+200D) after the colon of ``://``, after the ``@`` of an e-mail address and
between ``www`` and its dot: the reader sees the same characters, and none of the three patterns matches. (The WORD JOINER U+2060 does as
much in a browser, but Chromium leaves it out of a printed PDF's text, where pdfium, the viewer of Chrome, then
links the address again; the zero width joiner stays in the PDF's text: tests/test_free_text.py.)

Control and format characters (a right-to-left override reorders what people read, a zero-width space hides
a difference between two names) are never part of a name: ``core.design.check_name`` refuses them,
``visible`` drops them where a value is cleaned instead of refused (a comparison's column name).
"""

from __future__ import annotations

import html
import re
import unicodedata

LINK_BREAK = "\u200d"
"""ZERO WIDTH JOINER: invisible, no line break; splits an autolink pattern without changing what is shown, in a
browser and in a printed PDF's text."""
_AUTOLINK = re.compile(r"(?<=:)(?=//)|(?<=@)(?=[\w-]+\.[\w-])|(?i:(?<=www)(?=\.))")
"""Where an autolinker would start: after ``:`` of ``://``, after the ``@`` of an e-mail address (a domain with a
dot follows: GFM and PDF viewers link no other, so ``B200:32:800@1`` stays as typed and copies as typed), between
``www`` and ``.``."""
HIDDEN_CATEGORIES = ("Cc", "Cf", "Cs", "Co")
"""Unicode categories never kept in a name: control, format (bidi overrides, zero-width), surrogate, private use."""


UNIT_WORD = re.compile(r"(?:[kMGTP]?[Bb]/s|[KMGT]iB|[kMGT]?B|[kM]?W|kWh|MWh|M)(?![A-Za-z])")
"""A unit after a number and a space (``GB/s``, ``kW``, ``GiB``; ``M`` and ``B`` of an English amount of money,
``$7.51 M``): a line never breaks between the two (``100`` / ``GB/s``)."""
MONEY_WORD = re.compile(r"[万亿]?(?:美元|欧元|元)")
"""A Chinese amount's unit right after its number (``7.51亿美元``, ``4,413万美元``, ``9,500元``;
``core.i18n.usd``): a browser breaks Chinese between any two characters, so it wrapped ``7.51亿美`` / ``元``."""
PRODUCT = re.compile(r"\d[\d,.]* [x×] \d[\d,.]*(?: [A-Za-z]+\b)?")
"""A count times a size and its noun (``2 x 72 GPUs``, ``8 x 400G``): a chart title's line never breaks inside it
(``core.figures.style.wrap_title``)."""
NO_BREAK = "\u2060"
"""WORD JOINER: invisible, no line break on either side."""
_AMOUNT = re.compile(r"(?<=\d)(?: (?=" + UNIT_WORD.pattern + r")|(" + MONEY_WORD.pattern + r"))")


def unbroken(text: object) -> str:
    """``text`` with every amount kept on one line by ``NO_BREAK``: around the space between a number and its unit
    (``UNIT_WORD``), between a Chinese amount's number and its unit (``MONEY_WORD``) and within that unit. The reader
    sees the same text (``visible`` gives it back); a browser (markdown, HTML) wraps before or after the amount, never
    inside it."""
    return _AMOUNT.sub(lambda m: NO_BREAK + NO_BREAK.join(m.group(1)) if m.group(1) else NO_BREAK + " " + NO_BREAK,
                       str(text))


def unlinked(text: object) -> str:
    """``text`` with ``LINK_BREAK`` wherever an autolinker (GFM, a PDF viewer) would start a link."""
    return _AUTOLINK.sub(LINK_BREAK, str(text))


def hidden(char: str) -> bool:
    """Whether ``char`` is a control or format character (``HIDDEN_CATEGORIES``)."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def visible(text: object) -> str:
    """``text`` without its control and format characters."""
    return "".join(c for c in str(text) if not hidden(c))


def html_text(value: object) -> str:
    """``value`` as HTML text or an attribute value (quotes escaped), shown literally and never autolinked."""
    return html.escape(unlinked(value), quote=True)
