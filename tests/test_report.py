"""The review pack (core/formats/report.py, python -m core report, the Compare page's control).

Without a browser: every section is in the HTML, the BOM's totals are ``Plan.cost``'s, the file is
self-contained (Plotly embedded once, nothing loaded from elsewhere), user text is escaped, the training
job is the one the Compare page computes for the design, Chinese shows no English, the CLI's exit codes.
In headless Chromium (``e2e``): the HTML makes no network request and logs no console error and draws
every chart; the PDF renders to PNG pages (pypdfium2) in the expected page range, in both languages; the
Compare page builds the pack on a click.
"""

from __future__ import annotations

import re
from html import escape, unescape
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.design import Design
from core.formats import report
from core.i18n import language, usd
from core.plan import plan
from core.text import html_text as report_text
from tests.conftest import run_cli
from tests.i18n_check import CJK, english_leaks, html_text

SMALL = Design(gpu="H100", nodes=4)
LARGE = Design(gpu="H100", gpus=16384, tiers="3")
LINK = "http://localhost:8501/?v=1&n=4"
DESIGN_SECTIONS = ("title", "key-numbers", "topology", "bandwidth", "cost", "bom", "performance", "resilience",
                   "assumptions", "sources")


def sections(html: str) -> list[str]:
    return re.findall(r'data-section="([^"]+)"', html)


def visible(html: str, own: bool = False) -> str:
    """The report's text a reader sees: scripts (Plotly, the figures' JSON) and quoted citations taken out;
    ``own``: only the report's own words (the engine's notes, explanations, BOM items and whys taken out too)."""
    body = re.sub(r"<script\b.*?</script>", " ", html, flags=re.S)
    body = re.sub(r"<style\b.*?</style>", " ", body, flags=re.S)
    body = re.sub(r'<td class="[^"]*\b(?:quoted|id)\b[^"]*">.*?</td>', " ", body, flags=re.S)  # as published
    body = re.sub(r"https?:\u200d?//[^\s<\"']+", " ", body)  # links (in a text, core.text.LINK_BREAK after the colon)
    if own:
        body = re.sub(r'<td class="[^"]*\b(?:why|engine)\b[^"]*">.*?</td>', " ", body, flags=re.S)
        body = re.sub(r'<ul class="fp-list engine">.*?</ul>', " ", body, flags=re.S)
        body = re.sub(r'<div class="fp-card[^"]*"[^>]*title="[^"]*"', "<div", body)  # card tooltips: core.figures'
    return html_text(body)


@pytest.fixture(scope="module")
def small_html() -> str:
    return report.design_report_html(plan(SMALL), name="Lab pod", share_link=LINK)


@pytest.fixture(scope="module")
def large_html() -> str:
    return report.design_report_html(plan(LARGE), name="Big cluster", share_link=LINK)


# --- content ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["small_html", "large_html"])
def test_every_section_is_there_in_order(which, request):
    found = sections(request.getfixturevalue(which))
    assert [s for s in found if s in DESIGN_SECTIONS] == list(DESIGN_SECTIONS)
    p = plan(SMALL if which == "small_html" else LARGE)
    if getattr(p, "networks", None) is not None:  # helper NET's networks, when they are in the plan
        assert "networks" in found
    if getattr(p, "layout", None) is not None:  # helper PHYS's racks
        assert "physical" in found


@pytest.mark.parametrize("design", [SMALL, LARGE, Design(gpu="GB200-NVL72", nodes=72),
                                    Design(gpu="H100", nodes=64, fabric="ethernet", topology="top-of-rack")])
def test_bom_totals_are_the_plans_cost(design):
    p = plan(design)
    html = report.design_report_html(p, name="x", share_link=LINK)
    (total_usd,) = re.findall(r'data-total-usd="([^"]+)"', html)
    (total_w,) = re.findall(r'data-total-w="([^"]+)"', html)
    assert float(total_usd) == pytest.approx(p.cost.capex_usd, abs=0.01)
    assert float(total_w) / 1000 == pytest.approx(p.cost.it_kw, abs=0.01)
    # one table row per BOM row (plus group, subtotal and total rows), and each network's subtotal is its rows' sum
    table = html[html.index('data-bom="all"'):]
    table = table[:table.index("</table>")]
    assert table.count("<tr class=\"\">") == len(p.bom)
    for network, subtotal in re.findall(r'data-network="([^"]+)" data-subtotal-usd="([^"]+)"', table):
        rows = [r for r in p.bom if getattr(r, "network", "compute") == network]
        assert float(subtotal) == pytest.approx(sum(r.extended_price_usd for r in rows), abs=0.01)
    assert escape(usd(p.cost.capex_usd)) in table  # the formatted total is shown (the one format: $1.23 M)


def test_networks_summary_matches_the_plan(small_html):
    p = plan(SMALL)
    if getattr(p, "networks", None) is None:
        pytest.skip("Plan.networks has not landed")
    section = small_html[small_html.index('data-section="networks"'):]
    section = section[:section.index("</section>")]
    for key, values in p.summary()["networks"].items():
        assert escape(usd(values['capex_usd'])) in section, key


def test_catalog_entries_with_sources():
    """The internal edition shows each entry's sources as the catalog records them."""
    from core.catalog import load_catalog

    p = plan(SMALL)
    html = report.design_report_html(p, name="Lab pod", share_link=LINK, cover=report.Cover(edition="internal"))
    entries = {e.id: e for _kind, e in load_catalog().all_entries()}
    section = html[html.index('data-section="sources"'):]
    for ident in {r.catalog_id for r in p.bom} | {p.resolved.system.id}:
        if ident in entries:
            assert report_text(entries[ident].source) in section, ident  # the report's escaper: shown, not linked
            assert entries[ident].as_of in section, ident


def test_self_contained_plotly_once_no_external_reference(small_html):
    from plotly.offline import get_plotlyjs

    assert small_html.count(get_plotlyjs()[:400]) == 1
    assert small_html.count("<script>") == 2  # Plotly, then the figures' drawing
    tags = re.findall(r"<(?:script|link|img|iframe|source|video|audio|object|embed)\b[^>]*>",
                      re.sub(r"<script>.*?</script>", "<script>", small_html, flags=re.S))
    assert not [t for t in tags if re.search(r"\b(?:src|href)\s*=", t)]
    styles = "".join(re.findall(r"<style>(.*?)</style>", small_html, flags=re.S))
    assert "@import" not in styles and "url(" not in styles and "@font-face" not in styles
    figures = re.search(r'<script type="application/json" id="fp-figures">(.*?)</script>', small_html, re.S)
    import json

    specs = json.loads(figures.group(1))
    assert len(specs) == small_html.count('class="fp-chart"') >= 8
    assert all(f["data"] for f in specs)  # no empty chart


def test_training_estimate_is_the_compare_pages():
    """The job the report estimates is the Compare page's for the same design (the Performance page's defaults,
    model / tp / pp / global batch fitted), so the days shown agree with that page."""
    from core.analysis import compare as cmp
    from core.formats.joblink import DEFAULTS
    from core.perf import jobform

    p = plan(LARGE)
    column = cmp.compare([("x", LARGE)], settings=DEFAULTS, fit=set(jobform.FITTED), defaults=DEFAULTS).columns[0]
    settings = report.report_job_settings(p)
    assert settings == column.job
    days = jobform.estimate_under(p, jobform.job_from_settings(p, settings), settings).days_to_train
    assert days == pytest.approx(column.values["days_to_train"])
    html = report.design_report_html(p, name="x", share_link=LINK)
    assert f"{days:,.1f}" in html
    own = report.report_job_settings(p, {**settings, "model": "llama3-8b", "tp": 1, "pp": 1})
    assert own["model"] == "llama3-8b" and own["tp"] == 1  # a given job is kept, not refitted


def test_a_job_that_does_not_fit_is_said_not_raised():
    p = plan(SMALL)
    html = report.design_report_html(p, name="x", share_link=LINK, job={"model": "llama3-405b", "tp": 64, "pp": 128,
                                                                        "gbs": 512})
    assert "performance" in sections(html) and "Training job:" in html


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(min_size=1, max_size=60), link=st.text(max_size=80))
def test_names_and_links_are_escaped(name, link):
    html = _title_only(name, link)
    # escaped text never makes markup: the same elements and attributes as with a plain name and link
    assert _markup(html) == _markup(_title_only("x", link))
    # and a link is a link or plain text, never more
    assert _markup(html) in (_markup(_title_only("x", "")), _markup(_title_only("x", "https://example.org/?v=1")),
                             _markup(_title_only("x", "not a link")))
    assert 'href="javascript' not in html.lower()


def _markup(document: str) -> list[tuple[str, tuple[str, ...]]]:
    """The start tags of ``document`` with their attribute names, in order (text and values left out)."""
    from html.parser import HTMLParser

    found: list[tuple[str, tuple[str, ...]]] = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, tuple(name for name, _value in attrs)))

    Tags(convert_charrefs=True).feed(document)
    return found


def _title_only(name: str, link: str) -> str:
    """The title page and the document head, where the name and link go (the full report is tested above)."""
    doc = report._Doc(name)
    return doc.render(report._title_page(name, [name], link, None, "x"))


def test_hostile_name_and_link_in_the_full_report():
    html = report.design_report_html(plan(SMALL), name='<img src=x onerror="alert(1)">',
                                     share_link="javascript:alert(document.cookie)")
    assert "<img src=x" not in html and "&lt;img src=x" in html
    assert 'href="javascript' not in html


@pytest.fixture(scope="module")
def chinese_html() -> str:
    with language("zh"):
        return report.design_report_html(plan(LARGE), name="测试集群", share_link=LINK)


def test_chinese_report_labels_have_no_english(chinese_html):
    """The report's own headings, tables and sentences (the engine's texts are checked below and by their tests)."""
    assert 'lang="zh-CN"' in chinese_html
    text = visible(chinese_html, own=True)
    assert CJK.search(text) and "物料清单" in text and "单点故障" in text
    assert english_leaks(text) == []


def test_chinese_report_has_no_english_leaks(chinese_html):
    """Everything a reader sees, the engine's notes, BOM items and whys included (names and citations quoted
    as published aside)."""
    assert english_leaks(visible(chinese_html)) == []


def test_english_report_has_no_chinese(small_html):
    assert not CJK.search(visible(small_html))


def test_comparison_report_sections_and_escaping():
    from core.analysis import compare as cmp
    from core.formats.joblink import DEFAULTS
    from core.perf import jobform

    result = cmp.compare([("IB <fast>", Design(gpu="H100", nodes=64)),
                          ("RoCE", Design(gpu="H100", nodes=64, fabric="ethernet"))],
                         settings=DEFAULTS, fit=set(jobform.FITTED), defaults=DEFAULTS)
    html = report.comparison_report_html(result, name="IB vs RoCE", share_link=LINK)
    assert sections(html) == ["title", "contents", "numbers", "bom-changes", "charts", "design-1", "design-2"]
    assert "IB &lt;fast&gt;" in html and "IB <fast>" not in html.split('id="fp-figures"')[0]
    assert re.search(r'<td class="[^"]*\bbetter\b', html) and re.search(r'<td class="[^"]*\bworse\b', html)
    with language("zh"):
        zh = report.comparison_report_html(cmp.compare([("甲", Design(gpu="H100", nodes=64)),
                                                        ("乙", Design(gpu="H100", nodes=128))]),
                                           name="对比", share_link=LINK)
    assert english_leaks(visible(zh, own=True)) == []


def test_missing_chromium_is_a_clear_message(monkeypatch):
    from core.errors import InputError

    monkeypatch.setattr(report, "CHROMIUM", "/nonexistent/chromium")
    with pytest.raises(InputError, match="make chromium"):
        report.design_report_pdf(plan(SMALL), name="x", share_link=LINK)


# --- CLI -------------------------------------------------------------------------------------------------
def test_cli_html_to_stdout(capsys):
    code, out, err = run_cli(capsys, "report", "--gpu", "h100", "--nodes", "4", "--name", "Lab")
    assert code == 0 and err == ""
    assert out.startswith("<!DOCTYPE html>") and "<h1>Lab</h1>" in out
    from html import unescape
    from urllib.parse import parse_qsl, urlsplit

    from core.formats import sharelink

    (href,) = re.findall(r'class="fp-link"><strong>[^<]*</strong> <a href="([^"]+)"', out)
    url = urlsplit(unescape(href))
    assert url.netloc == "localhost:8501"
    params = dict(parse_qsl(url.query))
    assert params["lang"] == "en"
    design, warnings = sharelink.decode(params)  # the link opens this very design
    assert warnings == [] and plan(design).summary() == plan(Design(gpu="h100", nodes=4)).summary()


def test_cli_html_to_a_file_in_chinese(capsys, tmp_path):
    target = tmp_path / "review.html"
    code, out, err = run_cli(capsys, "--lang", "zh", "report", "--gpu", "h100", "--nodes", "4", "-o", str(target),
                             "--link-base", "https://planner.example.com/")
    assert code == 0 and "已写入" in out
    html = target.read_text(encoding="utf-8")
    assert 'lang="zh-CN"' in html and "https://planner.example.com/?v=1" in html and "lang=zh" in html


@pytest.mark.parametrize("args, words", [
    (["--format", "docx"], "invalid choice"),
    (["--name", "x" * 81], "80"),
    (["--name", "   "], "empty"),
    (["--link-base", "javascript:alert(1)"], "http"),
    (["--output", "/nonexistent-dir/x.html"], "cannot write"),
    (["--gpu", "h999"], "h999"),
])
def test_cli_bad_input_exits_2(capsys, args, words):
    code, out, err = run_cli(capsys, "report", "--nodes", "4", *(["--gpu", "h100"] if "--gpu" not in args else []),
                             *args)
    assert code == 2 and out == "" and words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_cli_design_that_cannot_be_built_exits_3(capsys):
    code, _out, err = run_cli(capsys, "report", "--gpu", "h100", "--nodes", "100000", "--tiers", "1")
    assert code == 3 and "cannot build" in err


def test_cli_pdf_to_a_terminal_is_refused(capsys, monkeypatch):
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    code, out, err = run_cli(capsys, "report", "--gpu", "h100", "--nodes", "4", "--format", "pdf")
    assert code == 2 and "--output" in err


def test_cli_pdf_without_chromium_exits_2(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(report, "CHROMIUM", "/nonexistent/chromium")
    code, _out, err = run_cli(capsys, "report", "--gpu", "h100", "--nodes", "4", "--format", "pdf",
                              "-o", str(tmp_path / "x.pdf"))
    assert code == 2 and "make chromium" in err and not (tmp_path / "x.pdf").exists()


# --- layout ----------------------------------------------------------------------------------------------
def test_every_table_repeats_its_header_and_short_terms_stay_whole(small_html):
    tables = small_html.count("<table")
    assert tables >= 10 and small_html.count("<thead>") == tables  # a header row to repeat on every printed page
    css = re.search(r"<style>(.*?)</style>", small_html, re.S).group(1)
    assert re.search(r"thead \{ display: table-header-group", css)
    assert re.search(r"\btr \{ break-inside: avoid", css)
    for rule in (r"\bth \{[^}]*word-break: keep-all", r"td\.term \{[^}]*word-break: keep-all[^}]*nowrap"):
        assert re.search(rule, css), rule  # a Chinese category is not broken one character a line
    bom = re.search(r'<table class="fp-bom fp-dense" data-bom="all">.*?</table>', small_html, re.S).group(0)
    rows = re.findall(r'<tr class="">(.*?)</tr>', bom)
    assert rows and all(r.startswith('<td class="engine term">') for r in rows)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bill_splits_item_and_where_as_the_workbook(lang):
    """The pack's bill, cell by cell: the part's published name and where it sits in two columns, as the Designer's
    bill and the workbook split them (``billitems.item_and_where``), never glued ("... (leaf)"), en and zh."""
    from core.formats.xlsx import bom_headers, bom_table

    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    with language(lang):
        html = report.design_report_html(p, name="", share_link="")
        book = bom_table(p)
        headers = bom_headers()
    table = html[html.index('data-bom="all"'):]
    table = table[:table.index("</table>")]
    heads = [unescape(h) for h in re.findall(r"<th[^>]*>([^<]*)</th>", table)]
    assert heads[:3] == [headers["category"], headers["item"], headers["where"]]
    rows = [[unescape(c) for c in re.findall(r"<td[^>]*>([^<]*)</td>", row)]
            for row in re.findall(r'<tr class="">(.*?)</tr>', table)]
    assert [row[1:3] for row in rows] == [[i, w] for i, w in zip(book["item"], book["where"])]
    assert any(row[2] == "NVLink level 2" for row in rows) or lang == "zh"
    assert not any(row[1].endswith(")") and f"({row[2]})" in row[1] for row in rows if row[2])


def test_contents_link_every_section_in_order(small_html):
    nav = re.search(r'<nav class="fp-toc".*?</nav>', small_html, re.S).group(0)
    targets = re.findall(r'href="#([^"]+)"', nav)
    assert targets == [s for s in sections(small_html) if s not in ("title", "contents")]
    assert re.findall(r'href="#([^"]+)"', small_html) == targets  # no other link inside the pack
    assert all(f'<section class="fp-section" id="{t}"' in small_html for t in targets)


def test_html_and_pdf_from_one_computation_report_progress(monkeypatch):
    from core import progress

    monkeypatch.setattr(report, "CHROMIUM", "/nonexistent/chromium")  # the HTML only: no browser needed
    seen: list[float] = []
    with progress.reporting(seen.append):
        html, pdf, problem = report.design_report_files(plan(SMALL), name="Lab pod", share_link=LINK)
    assert pdf is None and "make chromium" in problem
    assert sections(html) == sections(report.design_report_html(plan(SMALL), name="Lab pod", share_link=LINK))
    assert len(seen) >= len(DESIGN_SECTIONS) - 1 and seen == sorted(seen) and seen[-1] == pytest.approx(0.6)


# --- in headless Chromium --------------------------------------------------------------------------------
def _pages_png(pdf: bytes, out_prefix: Path) -> tuple[list, str]:
    pdfium = pytest.importorskip("pypdfium2")
    doc = pdfium.PdfDocument(pdf)
    images = []
    for i in range(len(doc)):
        image = doc[i].render(scale=1.0).to_pil()
        image.save(f"{out_prefix}-p{i + 1}.png")
        images.append(image)
    text = "".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    return images, text


@pytest.mark.e2e
@pytest.mark.parametrize("which", ["small_html", "large_html"])
def test_html_opens_offline_without_errors_and_draws_every_chart(which, request, browser, tmp_path):
    html = request.getfixturevalue(which)
    path = tmp_path / "report.html"
    path.write_text(html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 900, "height": 1200})
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_function("window.fpRendered === true", timeout=60_000)
    charts = page.locator(".fp-chart").count()
    drawn = page.locator(".fp-chart .main-svg").count()
    from tests.conftest import ARTIFACTS

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"report-{which}.png"))
    page.close()
    assert [u for u in requests if u != path.as_uri()] == []
    assert errors == []
    assert charts >= 8 and drawn >= charts  # every chart has its SVG (a chart may have several layers)


@pytest.mark.e2e
@pytest.mark.parametrize("lang, design, pages", [("en", SMALL, (8, 30)), ("zh", LARGE, (10, 40))])
def test_pdf_renders_to_png_pages(lang, design, pages):
    from tests.conftest import ARTIFACTS

    if not Path(report.CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium (make test installs it)")
    with language(lang):
        pdf = report.design_report_pdf(plan(design), name="集群评审" if lang == "zh" else "Cluster review",
                                       share_link=LINK)
    assert pdf.startswith(b"%PDF")
    ARTIFACTS.mkdir(exist_ok=True)
    images, text = _pages_png(pdf, ARTIFACTS / f"report-{lang}")
    assert pages[0] <= len(images) <= pages[1]
    assert images[0].size[0] == pytest.approx(595 * 1.0, abs=2)  # A4 width in points
    for image in images:  # no blank page
        low, high = image.convert("L").getextrema()
        assert low < 128 and high > 200
    assert ("集群评审" if lang == "zh" else "Cluster review") in text
    if lang == "zh":
        assert "物料清单" in text and "\ufffd" not in text


@pytest.mark.e2e
def test_comparison_pdf():
    from core.analysis import compare as cmp

    if not Path(report.CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium")
    result = cmp.compare([("A", Design(gpu="H100", nodes=16)), ("B", Design(gpu="H100", nodes=32))])
    pdf = report.comparison_report_pdf(result, name="A vs B", share_link=LINK)
    images, text = _pages_png(pdf, Path("/tmp") / "fp-report-compare")
    assert 5 <= len(images) <= 20 and "A vs B" in text


@pytest.mark.e2e
def test_compare_page_builds_the_pack_on_a_click():
    from streamlit.testing.v1 import AppTest

    if not Path(report.CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium")
    at = AppTest.from_file(str(Path(__file__).with_name("apptest_entry.py")), default_timeout=180)
    at.query_params.update({"c1_name": "IB", "c1_n": "16", "c2_name": "RoCE", "c2_n": "16", "c2_f": "eth"})
    at.run()
    at.switch_page("../pages/4_Compare.py")
    at.run()
    assert not at.exception
    assert not [b for b in at.get("download_button") if "pack" in (b.proto.id or "")]
    at.button(key="cmp_w_pack").click()
    at.run()
    assert not at.exception, at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Review pack (HTML)" in labels and "Review pack (PDF)" in labels  # the Designer's words
    at.run()  # a rerun keeps the pack (no rebuild) while the comparison is the same
    assert "Review pack (PDF)" in [b.proto.label for b in at.get("download_button")]


@pytest.mark.e2e
def test_chinese_pdf_keeps_terms_whole_numbers_its_pages_and_reuses_the_browser():
    """A 1,024-GPU pack in Chinese: the BOM's categories are whole words (not one character a line) and its first
    page holds many rows; every page says its number of the total; the contents give each section's page."""
    pdfium = pytest.importorskip("pypdfium2")
    from core.figures.cost import category_name

    if not Path(report.CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium")
    with language("zh"):
        p = plan(Design(gpu="H100", gpus=1024))
        pdf = report.design_report_pdf(p, name="集群评审", share_link=LINK)
        browser = report._PRINTER._browser
        again = report.design_report_pdf(p, name="集群评审", share_link=LINK)
        categories = {category_name(r.category) for r in p.bom}
    assert report._PRINTER._browser is browser and again.startswith(b"%PDF")  # one Chromium per process
    doc = pdfium.PdfDocument(pdf)
    texts = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    assert all(f"{i + 1} / {len(texts)}" in t for i, t in enumerate(texts))
    assert "目录" in texts[1]  # the contents page: its page numbers (right-aligned) come out before the titles
    titles = re.findall(r"^\d+\. (.+?)\r?$", texts[1], re.M)
    numbers = [int(n) for n in re.findall(r"^(\d+)\r?$", texts[1], re.M)]
    assert len(titles) == len(numbers) >= 8 and numbers == sorted(numbers) and numbers[0] == 3
    page = numbers[titles.index("物料清单")]
    assert "物料清单" in texts[page - 1]
    words = [c for c in categories if len(c) > 1]
    rows = max(sum(texts[j].count(c) for c in words) for j in range(page - 1, min(page + 1, len(texts))))
    assert words and rows >= 12  # whole words, and at least 12 rows on one page of the BOM


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_key_number_is_explained_once(lang):
    """The key numbers' table has one row per number: capex per GPU is a card of both rows (the Designer's cards
    and the Cost & power tab's), and its meaning was written twice ("$68,084 per GPU", "capex / GPUs")."""
    with language(lang):
        html = report.design_report_html(plan(SMALL), name="x", share_link=LINK)
    section = html[html.index('data-section="key-numbers"'):]
    table = section[section.index("<table"):section.index("</table>")]
    labels = [html_text(cell) for cell in re.findall(r"<tr[^>]*>\s*<td[^>]*>(.*?)</td>", table, flags=re.S)]
    assert len(labels) > 10
    assert len(labels) == len(set(labels)), [label for label in labels if labels.count(label) > 1]


def test_the_sources_hold_the_second_nvlink_levels_parts():
    """GB200 with a two-level NVLink domain: its level-2 switch units, modules and fibres (a quarter of its capex,
    priced in ``scaleup.toml``, not the catalog's parts) are in the pack's sources with their prices, in both
    editions, as every other part of the bill."""
    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    for edition in ("customer", "internal"):
        html = report.design_report_html(p, name="x", share_link=LINK, cover=report.Cover(edition=edition))
        sources = html[html.index('data-section="sources"'):]
        for part in ("NVLINK5-SWITCH-TRAY", "NVLINK5-OSFP-MODULE", "NVLINK5-FIBER"):
            assert part in sources, (edition, part)
