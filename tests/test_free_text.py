"""Free text is text: a hostile corpus of names (HTML Plotly reads, markdown, hover-template fields, LaTeX, bare
URLs, very long and invisible characters) fed through every surface a name reaches. Each surface has one escaper:
Plotly ``core.figures.style.plain``, markdown ``webui.safe.md``, HTML ``core.text.html_text``; this module checks
what reaches the reader, not the escapers' code: every string of every figure (titles, axes, traces' names, text,
hover texts and templates, annotations, legend), the review pack's markup and its charts, the Compare page opened
from a hostile link. (The browser check is tests/test_e2e_free_text.py.)"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import quote, urlsplit

import pytest

from core.analysis import compare as cmp
from core.design import MAX_NAME_CHARS, Design, clean_name
from core.figures import compare as compare_figures
from core.figures.style import plain
from core.formats import comparelink, report
from core.plan import plan
from core.text import LINK_BREAK, html_text, unlinked, visible
from tests import pagetest
from webui.safe import md

HOSTILE = [
    '<a href="https://ev.il/x">Log in</a>',
    '<span style="font-size:60px">BIG</span>',
    "<script>alert(1)</script>",
    '<a href="javascript:alert(1)">JS</a>',
    "https://ev.il/x",
    "see www.ev.il or me@ev.il",
    "[click](https://ev.il) ![p](/probe)",
    "**bold** _it_ `code` :red[boo]",
    "GPU %{x} %{customdata[1]} %{y:$,.0f}",
    "$E=mc^2$ and $$x$$",
    "<b>B</b><br><i>I</i><sup>S</sup>",
    "&lt;b&gt; &amp; &#60;b&#62;",
    "long " + "x" * 300 + " https://ev.il/long",
    "名字 مرحبا %{x}",
]
"""Names a user can type or a link can carry (a design's name, a comparison's column names)."""
INVISIBLE = "\u202eevil\u202c zero\u200bwidth\u2066x\u2069"
"""Control and format characters: a right-to-left override reorders what people read."""

FORBIDDEN = ("<a ", "<a>", '<span style="font-size', "<script", "<b>B", "<br><i>", "<i>I", "<sup>S", "GPU %{x}",
             "%{customdata[1]} %{", "$E=mc", "$$x$$")
"""Raw pieces of the corpus that must never reach a figure: a tag Plotly reads, a template field it evaluates, a
formula MathJax would typeset."""
TEMPLATE = re.compile(r"%{([^\s%{}:]*)([:|\|][^}]*)?}")
"""Plotly's template field (plotly.js ``TEMPLATE_STRING_REGEX``)."""
AUTOLINK = re.compile(r"(?i)(?:https?://|www\.)[-.\w]|[-.\w+]+@[-\w]+\.", re.ASCII)
"""What GFM's autolinker (and a PDF viewer) turns into a link."""
ENTITY = re.compile(r"&(#\d+|#x[\da-fA-F]+|[a-z]+);")


def plotly_shows(text: str) -> str:
    """What Plotly draws for ``text`` (plotly.js ``svg_text_utils``): tags split off first, then entities
    resolved; fails if ``text`` holds a tag."""
    parts = re.split(r"(<[^<>]*>)", text)
    assert not any(p.startswith("<") and p.endswith(">") for p in parts), text
    import html

    return ENTITY.sub(lambda m: html.unescape(m.group(0)), text)


def figure_strings(node, path: str = ""):
    """Every (path, string) of a figure's JSON."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from figure_strings(value, f"{path}.{key}")
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            yield from figure_strings(value, f"{path}[{i}]")
    elif isinstance(node, str):
        yield path, node


def assert_figure_is_text(spec: dict, own_templates: bool = True) -> int:
    """No string of the figure ``spec`` (its JSON: data and layout; the template is Plotly's own) holds a raw
    piece of the corpus or a link an autolinker finds. Returns how many strings were checked."""
    checked = 0
    for path, text in figure_strings({"data": spec.get("data"), "layout": {
            k: v for k, v in (spec.get("layout") or {}).items() if k != "template"}}):
        checked += 1
        for piece in FORBIDDEN:
            assert piece not in text, (path, text)
        assert not AUTOLINK.search(text), (path, text)
        assert "\u202e" not in text, (path, text)
    return checked


# --- the escapers, one per surface ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", HOSTILE)
def test_plotly_shows_the_name_as_typed_and_evaluates_nothing(name):
    text = plain(name)
    assert plotly_shows(text).replace(LINK_BREAK, "") == name  # the same characters, no tag
    assert not TEMPLATE.search(text)  # no field of a hover or text template
    assert "$" not in text  # nothing MathJax would typeset
    assert not AUTOLINK.search(text)  # nor a PDF viewer link (the review pack prints the charts)


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_shows_the_name_as_typed_and_links_nothing(name):
    shown = re.sub(r"\\(.)", r"\1", md(name))  # what the renderer sees after the escapes
    assert shown.replace(LINK_BREAK, "") == name
    assert not AUTOLINK.search(shown)
    assert not re.search(r"(?<!\\)[<\[*_`$:]", md(name).replace(LINK_BREAK, ""))  # every markup character escaped


@pytest.mark.parametrize("name", HOSTILE)
def test_html_shows_the_name_as_typed_and_links_nothing(name):
    import html

    text = html_text(name)
    assert "<" not in text and ">" not in text and '"' not in text
    assert html.unescape(text).replace(LINK_BREAK, "") == name
    assert not AUTOLINK.search(html.unescape(text))


def test_invisible_characters_never_stay_in_a_name():
    with pytest.raises(Exception) as caught:  # the design's own name: refused with the rule it breaks
        Design(name=INVISIBLE)
    assert "control or format" in str(caught.value)
    assert visible(INVISIBLE) == "evil zerowidthx"
    assert clean_name(INVISIBLE) == "evil zerowidthx"  # a column's name: cleaned (a link never fails)
    comparison, _warnings = comparelink.decode({"c1_name": INVISIBLE, "c1_ng": "8"})
    assert comparison.entries[0].name == "evil zerowidthx"
    assert unlinked("a://b") == "a:" + LINK_BREAK + "//b"


# --- figures -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hostile_comparison():
    names = [clean_name(n) if i else n for i, n in enumerate(HOSTILE)]  # first one uncut (very long ok)
    designs = [Design(gpu="H100", nodes=8), Design(gpu="H100", nodes=16), Design(gpu="H100", nodes=16,
               fabric="ethernet"), Design(gpu="H100", nodes=32)]
    groups = [names[i:i + 4] for i in range(0, len(names), 4)]
    return [cmp.compare(list(zip(group, designs)), sizes=(2**20,)) for group in groups]


def test_compare_figures_carry_no_markup_template_or_link(hostile_comparison):
    checked = 0
    for comparison in hostile_comparison:
        for build in (compare_figures.cost_figure, compare_figures.bandwidth_figure, compare_figures.days_figure):
            checked += assert_figure_is_text(json.loads(build(comparison).to_json()))
    assert checked > 100


def test_compare_hover_templates_evaluate_only_their_own_fields(hostile_comparison):
    for comparison in hostile_comparison:
        fig = compare_figures.bandwidth_figure(comparison)
        for trace in fig.data:  # the design's name is the hover's <extra>: shown, never a field
            assert {m.group(1) for m in TEMPLATE.finditer(trace.hovertemplate)} == {"customdata[0]", "customdata[1]"}
            assert trace.name in trace.hovertemplate


def _designer_figures(p):
    from core.analysis.whatif import oversubscription_sweep
    from core.fabric.bandwidth import tier_capacities_gbits
    from core.figures import (bandwidth_hierarchy_figure, capex_figure, oversubscription_figure, power_figure,
                              scaleup_figure, tier_capacity_figure, topology_figure)
    from core.figures.cost import networks_figure, price_sensitivity_figure
    from core.figures.racks import floor_plan_figure, lengths_figure, rack_elevation_figure
    return [topology_figure(p), scaleup_figure(p), bandwidth_hierarchy_figure(p),
            tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric)),
            oversubscription_figure(oversubscription_sweep(p.design), p.design.oversubscription),
            capex_figure(p), power_figure(p), price_sensitivity_figure(p), networks_figure(p),
            floor_plan_figure(p.layout), rack_elevation_figure(p.layout), lengths_figure(p.lengths, p.media)]


@pytest.mark.parametrize("name", [HOSTILE[0], HOSTILE[1], HOSTILE[8], HOSTILE[4]])
def test_designer_figures_of_a_hostily_named_design_carry_no_markup(name):
    p = plan(Design(gpu="H100", nodes=16, name=name))
    for fig in _designer_figures(p):
        assert_figure_is_text(json.loads(fig.to_json()))


# --- the review pack -----------------------------------------------------------------------------------------
LINK = "https://planner.example/compare?v=1&c1_name=" + quote(HOSTILE[0])


class _Markup(HTMLParser):
    """Start tags with their attributes, the text outside scripts and styles, and the figures' JSON."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.figures = ""
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = (dict(attrs).get("id") or tag) if tag in ("script", "style") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "fp-figures":
            self.figures += data
        elif self._in is None:
            self.text.append(data)


def assert_report_is_text(document: str) -> None:
    markup = _Markup()
    markup.feed(document)
    tags = {tag for tag, _attrs in markup.tags}
    assert not tags & {"span", "img", "iframe", "object", "embed", "form", "b", "i", "sup", "br"}, tags
    assert [t for t, _a in markup.tags].count("script") == 3  # the figures' JSON, Plotly, the drawing script
    for tag, attrs in markup.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)
        if tag == "a" and not attrs["href"].startswith("#"):  # the contents' links to the sections stay inside
            assert urlsplit(attrs["href"]).netloc == "planner.example", attrs  # only the share link is a link
    links = {attrs["href"] for tag, attrs in markup.tags if tag == "a"}
    for text in markup.text:  # the share link's text is its address exactly (copied, it works)
        assert text in links or not AUTOLINK.search(text), text  # no other bare URL a PDF viewer would link
        assert "\u202e" not in text
    assert "<" not in markup.figures  # nothing in the JSON can end the script element
    figures = json.loads(markup.figures)
    assert figures
    for fig in figures:
        assert_figure_is_text(fig)


def test_comparison_review_pack_carries_no_foreign_link_or_markup(hostile_comparison):
    for comparison in hostile_comparison:
        document = report.comparison_report_html(comparison, name=HOSTILE[4] + " " + HOSTILE[1], share_link=LINK)
        assert_report_is_text(document)
        assert html_text(comparison.columns[0].name) in document  # the names are shown, as typed


@pytest.mark.parametrize("name", [HOSTILE[0], HOSTILE[4], HOSTILE[5], HOSTILE[8]])
def test_design_review_pack_carries_no_foreign_link_or_markup(name):
    p = plan(Design(gpu="H100", nodes=16, name=name))
    document = report.design_report_html(p, name=p.design.name, share_link=LINK)
    assert_report_is_text(document)
    assert f"<h1>{html_text(name)}</h1>" in document


def test_a_javascript_share_link_is_never_a_link():
    markup = _Markup()
    markup.feed(report.design_report_html(plan(Design(gpu="H100", nodes=4)), name="x",
                                          share_link="javascript:alert(1)"))
    assert not [attrs for tag, attrs in markup.tags if tag == "a" and not attrs["href"].startswith("#")]
    assert any("javascript:alert(1)" in t for t in markup.text)  # shown as text


def _pdf_links(pdf: bytes) -> tuple[list[str], list[str]]:
    """(addresses a PDF viewer links in the pages' text, the link annotations' targets), as pdfium (the viewer of
    Chrome) finds them."""
    import ctypes

    pdfium = pytest.importorskip("pypdfium2")
    raw = pytest.importorskip("pypdfium2.raw")
    detected = []
    for page in pdfium.PdfDocument(pdf):
        links = raw.FPDFLink_LoadWebLinks(page.get_textpage())
        for k in range(raw.FPDFLink_CountWebLinks(links)):
            size = raw.FPDFLink_GetURL(links, k, None, 0)
            buffer = (ctypes.c_ushort * size)()
            raw.FPDFLink_GetURL(links, k, buffer, size)
            detected.append(bytes(buffer).decode("utf-16-le").rstrip("\x00"))
        raw.FPDFLink_CloseWebLinks(links)
    return detected, [m.decode() for m in re.findall(rb"/URI ?\(([^)]*)\)", pdf)]


def test_comparison_pdf_links_nothing_but_the_share_link():
    if report.chromium_problem():
        pytest.skip("no Chromium to print the PDF")
    comparison = cmp.compare([(HOSTILE[0], Design(gpu="H100", nodes=8)), (HOSTILE[5], Design(gpu="H100", nodes=16))],
                             sizes=(2**20,))
    detected, annotations = _pdf_links(report.comparison_report_pdf(comparison, name=HOSTILE[4], share_link=LINK))
    # no address in the printed text becomes a link in the viewer (the old pack: 27) but the share link's own
    # (its text is its address, so that copying it gives a working link; wrapped, the viewer may link a first part)
    assert all(LINK.startswith(found) and urlsplit(found).netloc == "planner.example" for found in detected), detected
    assert annotations and all(urlsplit(a).netloc == "planner.example" for a in annotations)


def test_xlsx_keeps_the_name_as_text():
    from io import BytesIO

    from openpyxl import load_workbook

    from core.formats.xlsx import design_xlsx

    name = '=HYPERLINK("https://ev.il/x","Log in")'
    book = load_workbook(BytesIO(design_xlsx(plan(Design(gpu="H100", nodes=4)), name=name, share_link=LINK)))
    cell = book.worksheets[0].cell(1, 1)
    assert cell.value == name and cell.data_type == "s"  # text, not a formula
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for c in row:
                assert c.hyperlink is None or urlsplit(c.hyperlink.target).netloc == "planner.example"


# --- the Compare page opened from a hostile link -----------------------------------------------------------
PAGE_NAMES = ['<a href="https://ev.il/x">Log in</a>', '<span style="font-size:60px">B</span>',
              "https://ev.il/x %{x} $x$", "\u202e[a](https://ev.il) www.ev.il"]


def _elements(node):
    yield node
    for child in (getattr(node, "children", None) or {}).values():
        yield from _elements(child)


def test_compare_page_from_a_hostile_link_shows_text_only():
    params = {"v": "1", "lang": "en"}
    for i, name in enumerate(PAGE_NAMES):
        params.update({f"c{i + 1}_name": name, f"c{i + 1}_ng": "8"})
    at = pagetest.open_page("../pages/4_Compare.py", params)
    markdown = [str(e.value) for kind in ("markdown", "caption", "warning", "error", "info", "success")
                for e in getattr(at, kind)]
    headers = [m for m in markdown if "ev" in m.replace("\\", "")]
    assert len(headers) >= len(PAGE_NAMES), markdown  # every column's header is shown ...
    for text in markdown:
        if 'class="fp-cards"' in text or text.startswith("<style>"):
            continue  # HTML the app writes itself (escaped in core)
        seen = re.sub(r"\\(.)", r"\1", text)
        assert not AUTOLINK.search(seen), text  # ... and none is a live link
        assert not re.search(r"(?<!\\)[<\[]", text.replace(LINK_BREAK, "")), text  # nor raw HTML or a link
        assert "\u202e" not in text
    charts = [e for e in _elements(at._tree) if getattr(e, "type", None) == "plotly_chart"]
    assert len(charts) == 3  # capex, bandwidth, days
    for chart in charts:
        spec = json.loads(chart.proto.spec)
        assert assert_figure_is_text(spec) > 20
        drawn = [t for trace in spec["data"] for t in [*trace.get("x", []), trace.get("name")] if isinstance(t, str)]
        assert plain(clean_name(PAGE_NAMES[0])) in drawn  # the name is drawn, as typed
