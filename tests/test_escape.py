"""An echoed value never becomes a link. Streamlit's markdown (GFM) turns bare URLs,
``www.`` and e-mail addresses into links even when every punctuation character is escaped, and Plotly reads
``<a href>`` in a trace name; ``webui.safe.md`` and ``core.figures.style.plain`` show them as text.
(The browser check is tests/test_e2e_hardening.py::test_bare_urls_and_html_names_from_a_link_are_never_links.)"""

from __future__ import annotations

import re

import pytest

from core.analysis import compare as cmp
from core.design import Design
from core.figures import compare as figs
from core.figures.style import plain
from tests import pagetest
from webui.safe import LINK_BREAK, md

URLS = ["https://evil.example/login", "HTTP://evil.example", "www.evil.example/x", "WWW.evil.example",
        "a@b.example", "mailto:a@b.example", "see https://x.example and www.y.example or c.d@e.example"]

# GFM's autolink literals (remark-gfm / mdast-util-gfm-autolink-literal), on the text after escapes are resolved
AUTOLINK = re.compile(r"(?i)(?:https?://|www\.)[-.\w]|[-.\w+]+@[-\w]+\.", re.ASCII)


def seen(markdown: str) -> str:
    """The text the renderer's autolinker scans: backslash escapes resolved (core.text.LINK_BREAK stays)."""
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize("value", URLS)
def test_md_breaks_every_autolink_and_shows_the_same_characters(value):
    assert AUTOLINK.search(value)  # the pattern finds the raw value ...
    shown = seen(md(value))
    assert not AUTOLINK.search(shown)  # ... and nothing in what md hands the renderer
    assert shown.replace(LINK_BREAK, "") == value  # the reader sees the same characters


def test_md_leaves_ordinary_text_alone():
    assert md("nodes: 64 @ 400G") == "nodes\\: 64 \\@ 400G"  # no e-mail address: nothing to unlink
    assert md("B200:32:800@1") == "B200\\:32\\:800\\@1"  # a pod as typed, copied as typed
    assert md("me@ev.il") == "me\\@" + LINK_BREAK + "ev\\.il"  # an e-mail address is not linked
    assert md("plain words 1.5") == "plain words 1\\.5"


def test_plain_escapes_plotly_html():
    assert plain('<a href="https://ev.il/x">Log in</a> & <b>') == \
        '&lt;a href="https:' + LINK_BREAK + '//ev.il/x"&gt;Log in&lt;/a&gt; &amp; &lt;b&gt;'
    assert plain("IB 2:1") == "IB 2:1"


def test_compare_figures_show_user_names_as_text():
    name = '<a href="https://ev.il/x">Log in</a><br><span style="color:red">x</span>'
    comparison = cmp.compare([(name, Design(nodes=8)), ("B & C", Design(nodes=16))], sizes=(2**20,))
    figures = [figs.cost_figure(comparison), figs.bandwidth_figure(comparison), figs.days_figure(comparison)]
    for fig in figures:
        text = fig.to_json()
        assert "<a href" not in text and "<span" not in text and "<br><span" not in text
    assert list(figures[0].data[0].x) == [plain(name), "B &amp; C"]
    assert figures[1].data[0].name == plain(name)
    assert "&lt;a href" in figures[1].data[0].hovertemplate


def _shown_markdown(at) -> list[str]:
    out = []
    for kind in ("warning", "error", "info", "caption", "markdown", "success"):
        out += [str(e.value) for e in getattr(at, kind)]
    return out


@pytest.mark.parametrize("page, params, echoed", [
    ("../pages/1_Designer.py", {"n": "https://evil.example/login"}, "https://evil.example/login"),
    ("../pages/1_Designer.py", {"tab": "https://x.example"}, "https://x.example"),
    ("../pages/1_Designer.py", {"g": "a@b.example"}, "a@b.example"),
    ("../pages/1_Designer.py", {"sw": "www.evil.example"}, "www.evil.example"),
    ("../pages/5_Sweep.py", {"sw_m": "https://evil.example/m"}, "https://evil.example/m"),
    ("../pages/6_Resilience.py", {"rs_tab": "https://evil.example/r"}, "https://evil.example/r"),
    ("../pages/4_Compare.py", {"c1_ng": "64", "c1_n": "a@b.example"}, "a@b.example"),
    ("../pages/8_Inference.py", {"inf_model": "https://evil.example/i"}, "https://evil.example/i"),
])
def test_echoed_link_values_are_shown_but_never_autolinked(page, params, echoed):
    at = pagetest.open_page(page, {"v": "1", "lang": "en", **params})
    texts = [seen(t) for t in _shown_markdown(at)]
    assert any(echoed in t.replace(LINK_BREAK, "") for t in texts), texts  # the value is shown ...
    for text in texts:
        if 'class="fp-cards"' in text or text.startswith("<style>"):
            continue  # HTML the app writes itself (escaped in core), no user text
        assert not AUTOLINK.search(text), text  # ... and never as a link
