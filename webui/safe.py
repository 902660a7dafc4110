"""Showing text that may carry user input: escaped for Streamlit's markdown, never interpreted.

Streamlit renders ``st.warning``, ``st.error``, ``st.info``, ``st.caption`` and ``st.markdown`` as
markdown (links, images, ``$math$``, ``:colour[...]`` directives, emoji shortcodes). A share-link
value such as ``[expired - click here](//example.org) ![p](/probe)`` must appear as those
characters, not as a link or an image the browser fetches. ``md`` backslash-escapes every ASCII
punctuation character (CommonMark allows escaping any of them), so the text shows verbatim;
``message`` does that for an engine exception's message and suggestion.

Escaping alone does not stop GFM's autolink literals: the renderer (remark-gfm) finds bare
``https://...``, ``www.`` and e-mail addresses in the text after the escapes are resolved, and so do
HTML entities (``&#58;`` is a colon by then). ``md`` therefore breaks them with
``core.text.unlinked`` (an invisible zero width joiner; the reader sees the same characters; checked in headless
Chromium: tests/test_e2e_hardening.py).
"""

from __future__ import annotations

import re

from core.text import LINK_BREAK, unbroken, unlinked

__all__ = ["LINK_BREAK", "MAX_SHOWN", "md", "message"]

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
MAX_SHOWN = 2000
"""Longest text shown from any one message (engine messages already truncate echoed values)."""


def md(text: object) -> str:
    """``text`` escaped so markdown shows it literally (newlines kept as line breaks), its amounts never split
    across lines (``core.text.unbroken``: ``7.51亿美`` / ``元``, ``100`` / ``GB/s``)."""
    value = str(text)
    if len(value) > MAX_SHOWN:
        value = value[: MAX_SHOWN - 3] + "..."
    value = unbroken(unlinked(value))
    return _PUNCT.sub(r"\\\1", value).replace("\n", "  \n")


def bold_lead(lead: str, text: str) -> str:
    """``lead`` in bold, then ``text``, joined as the language joins sentences (``core.i18n.sentences``: a space
    after English, none after a full-width ``。`` or ``：``). A full-width mark stays outside the bold: CommonMark
    does not close ``**`` between such a mark and a CJK character (``**可行的做法：**用`` shows its asterisks)."""
    from core.i18n import ends_full_width, sentences

    joined = sentences(lead, text)[len(lead):]
    return (f"**{lead[:-1]}**{lead[-1]}" if ends_full_width(lead) else f"**{lead}**") + joined


def with_way_out(text: str, suggestion: str) -> str:
    """``text`` (escaped) and, when there is one, what would work (``suggestion``, escaped) below it, as every page
    shows an engine error (``bold_lead``)."""
    from core.i18n import _

    return f"{text}\n\n" + bold_lead(_("What would work:"), suggestion) if suggestion else text


def error_text(exc: BaseException) -> str:
    """An engine error as every page shows it: its message, escaped, and its way out below (``with_way_out``)."""
    return with_way_out(*message(exc))


def message(exc: BaseException) -> tuple[str, str]:
    """(message, suggestion) of an engine error, both escaped."""
    text = getattr(exc, "message", None) or str(exc)
    return md(text), md(getattr(exc, "suggestion", "") or "")
