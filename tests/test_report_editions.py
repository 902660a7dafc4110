"""The review pack for a customer (core/formats/report.py, core/formats/citation.py, python -m core report).

Editions: the customer edition (the default) carries no research notes (stored copies, spreadsheet links,
evidence grades, "unsourced"), cites documents and gives each price its basis and range; the internal edition
shows the notes. The cover: the design's name or a title in words (never the file slug), customer, author,
date of issue, version (free text: escaped, cut, never interpreted) and an executive summary. The session's
Resilience settings: its failure scenario is in the pack and the availability is the app's own figure. The
share link starts with the configured public address (CLI flag, environment variable, webui's share_url).
"""

from __future__ import annotations

from core import units
import re
from html import escape, unescape
from html.parser import HTMLParser

import pytest

from core.design import Design
from core.formats import citation, report
from core.i18n import _, language, usd
from core.plan import plan
from tests.conftest import run_cli
from tests.i18n_check import CJK, english_leaks, html_text

LINK = "https://planner.example.com/?v=1"
DESIGNS = [Design(gpu="H100", nodes=16), Design(gpu="H100", gpus=16384, tiers="3"), Design(gpu="GB200-NVL72", nodes=72),
           Design(gpu="H100", nodes=64, fabric="ethernet", topology="top-of-rack")]
PRICE_BASIS = re.compile(r"^(?:street|list|hyperscale): [^,]+, (?:20\d\d-\d\d(?:-\d\d)?|20\d\d Q[1-4])$")
"""A customer's price basis: the catalog's basis in words and the price's date, never the shop or blog."""
RESEARCH_TRAIL = ("stored copy", "copy id", "docs.google", "spreadsheet", "unsourced", "research compilation",
                  "[S]", "[P]", "[D]", "shared/reference", "hardware-facts", "our reading")


def _without_plotly(document: str) -> str:
    from plotly.offline import get_plotlyjs

    return document.replace(get_plotlyjs(), "")


def _section(document: str, ident: str) -> str:
    start = document.index(">", document.index(f'data-section="{ident}"')) + 1
    return document[start:document.index("</section>", start)]


def _rows(markup: str) -> list[list[str]]:
    return [[unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, re.S)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", markup, re.S)]


# --- editions --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("design", DESIGNS, ids=["16-nodes", "16k-3-tier", "gb200", "ethernet-tor"])
def test_customer_edition_has_no_research_notes_and_internal_has_them(design):
    p = plan(design)
    customer = _without_plotly(report.design_report_html(p, name="", share_link=LINK))
    for word in RESEARCH_TRAIL:
        assert word not in customer and (word.startswith("[") or word.lower() not in customer.lower()), word
    internal = _without_plotly(report.design_report_html(p, name="", share_link=LINK,
                                                         cover=report.Cover(edition="internal")))
    assert any(word in internal for word in RESEARCH_TRAIL)  # the same catalog entries, notes shown
    rows = _rows(_section(customer, "sources"))
    assert rows[0] == ["name", "catalog id", "source", "as of", "price", "price basis"]
    for row in rows[1:]:
        assert " ".join(row).count("estimate") <= 1, row  # said once, as the price's basis
        if row[4]:
            assert re.match(r"^\$[\d,]+ \(range \$[\d,]+ to \$[\d,]+\)$", row[4]), row
            assert row[5] == "estimate" or PRICE_BASIS.match(row[5]), row
        assert row[2], row  # documents, or "assumption"


def test_citations_keep_the_document_and_drop_the_trail():
    assert citation.citation("Mellanox MSB7890 user manual (easymanua copy, cited in shared/reference/hardware-facts.md"
                             " 2.1): 36 QSFP28 ports, 'each lane of a 4X port runs' [P]") == "Mellanox MSB7890 user manual"
    cited = citation.citation("tech-talk-cto 'H100 Freakonomics' cost sheet (docs.google.com/spreadsheets/d/1Ft3Rbe, "
                              "prices as of Aug 2024): '64 Port 400Gbps Infiniband Switch, is assumed to $36k' [S]; "
                              "low = the FS.com-channel $36k [D]")
    assert cited == "tech-talk-cto 'H100 Freakonomics' cost sheet"
    assert citation.citation("NVIDIA SN5600 figures: stored copy id 68932069375 [S]") == ""
    assert citation.citation("H100 RA (RA-11333-001 V11) Table 8: 4 '100 Gbps QSFP CWDM4' [P]") == \
        "H100 RA (RA-11333-001 V11) Table 8"

    class Entry:
        price_basis = "estimate"
        price_source = "estimate, unsourced: third-party 100G SR4 modules commonly $50-150. Range: unsourced band."
        source = "1U: stored copy id 60417448018 [S]"

    assert citation.price_basis_text(Entry()) == "estimate" and citation.source_citation(Entry()) == "assumption"
    with language("zh"):
        assert citation.price_basis_text(Entry()) == _("estimate") != "estimate"


QM9700_SOURCE = ("https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces ('Each OSFP port consists of 2 logical "
                 "InfiniBand ports', Class 8 17 W OSFP) [P]; 51.2 Tb/s aggregate, 66.5 Bpps: itctshop.com [S]; 128x "
                 "NDR200: yobitel.com [S] and MMS4X00-NS400 doc (NDR200 via 1:2 splitter) [P]; 1U, 32 OSFP: Canopy "
                 "Wave docs copy 62049619398 [S]")


def test_a_customer_reads_the_vendors_documents_not_the_shops_beside_them():
    """The pack cited "docs.nvidia.com; itctshop.com; yobitel.com and MMS4X00-NS400 doc" for the QM9700: the
    catalog grades the shops [S] and the vendor's pages [P]; the customer reads the vendor's. Where the catalog
    grades nothing a vendor's document, the secondary ones stay (they are all there is)."""
    assert citation.citation(QM9700_SOURCE, primary=True) == "docs.nvidia.com; MMS4X00-NS400 doc (NDR200 via 1:2 splitter)"
    assert "itctshop.com" in citation.citation(QM9700_SOURCE)  # the internal reading keeps every one
    only_shops = "40x QSFP56 200G: mellanoxnetwork.com reseller pages [S]; 1U: Acme datasheet copy [S]"
    assert citation.citation(only_shops, primary=True) == citation.citation(only_shops) != ""


def test_a_customer_reads_each_price_as_its_basis_and_date_never_its_shop():
    """Every priced entry of the catalog: the customer's price column names the basis in the catalog's words and
    the price's date (the one its source states, else the entry's check), never the reseller, blog or sheet it was
    read in (the pack printed "fs.com", "tech-talk-cto 'H100 Freakonomics' cost sheet", "deltacomputer")."""
    from core.catalog import PRICE_BASIS_MEANINGS, load_catalog

    seen = set()
    for _kind, entry in load_catalog().all_entries():
        if not getattr(entry, "price_source", ""):
            continue
        text = citation.price_basis_text(entry)
        if text == "estimate":
            assert citation.price_is_estimate(entry) or entry.price_basis == "estimate", entry.id
            continue
        seen.add(entry.price_basis)
        assert PRICE_BASIS.match(text), (entry.id, text)
        assert text.startswith(f"{entry.price_basis}: {PRICE_BASIS_MEANINGS[entry.price_basis]}, "), (entry.id, text)
        shop = citation.citation(entry.price_source, most=1)
        assert shop and shop not in text, (entry.id, text)
    assert seen >= {"street", "list"}

    class Entry:
        price_basis, as_of = "street", "2026-12-01"
        price_source = "DGX H100 reseller list EUR 306,404 ~ $329,580 (deltacomputer, 2023-12) via Epoch AI [S]"
    assert citation.price_basis_text(Entry()) == "street: a reseller or reported purchase price, 2023-12"
    Entry.price_source = "'H100 Freakonomics' cost sheet (prices as of Aug 2024): 'assumed to $36k' [S]"
    assert citation.price_basis_text(Entry()) == "street: a reseller or reported purchase price, 2024-08"
    Entry.price_source = "Acme reseller listing, no date given [S]"
    assert citation.price_basis_text(Entry()) == "street: a reseller or reported purchase price, 2026-12-01"


def test_unknown_edition_is_refused():
    with pytest.raises(Exception, match="customer, internal"):
        report.Cover(edition="<script>")


# --- the cover -------------------------------------------------------------------------------------------
def test_title_is_the_designs_name_or_words_never_the_slug():
    from core.formats.filenames import design_slug

    p = plan(Design(gpu="H100", gpus=1024))
    document = report.design_report_html(p, name="", share_link=LINK)
    (title,) = re.findall(r"<h1>(.*?)</h1>", document)
    assert unescape(title) == ("1,024 x H100 cluster: 2-tier QM9700 InfiniBand, rail-optimized, non-blocking, 400G "
                              "ports, NIC CX7, 1 plane") == report.design_title(p)
    assert design_slug(p) not in title
    named = plan(Design(gpu="H100", gpus=1024, name="Frankfurt training pod"))
    assert "<h1>Frankfurt training pod</h1>" in report.design_report_html(named, name=named.design.name,
                                                                          share_link=LINK)
    with language("zh"):
        assert CJK.search(report.design_title(p))


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


HOSTILE = {"customer": "<b>ACME</b> <script>alert(1)</script>", "author": "مرحبا بالعالم \u202e evil",
           "version": "v" + "9" * 500}


def test_cover_fields_are_escaped_cut_and_never_interpreted():
    from datetime import datetime, timezone

    p = plan(Design(gpu="H100", nodes=16))
    document = report.design_report_html(p, name="", share_link=LINK, cover=report.Cover(**HOSTILE),
                                         generated=datetime(2026, 3, 1, tzinfo=timezone.utc))
    parser = _Tags()
    parser.feed(document)
    assert "b" not in parser.tags and parser.tags.count("script") == 3  # figures' JSON, Plotly, the drawing script
    cover = _section(document, "title")
    shown = {key: unescape(re.sub(r"<[^>]+>", "", value)) for key, value in
             re.findall(r'data-cover="([a-z]+)"><strong>[^<]*</strong> <bdi>(.*?)</bdi>', cover)}
    assert shown["customer"] == HOSTILE["customer"]  # as typed, escaped
    assert escape(HOSTILE["customer"]) in cover
    assert shown["author"] == "مرحبا بالعالم evil"  # right-to-left letters kept, the override dropped
    assert len(shown["version"]) == report.COVER_TEXT_CHARS and shown["version"].endswith("…")
    assert shown["date"] == "March 1, 2026" and shown["edition"] == "customer edition"


def test_executive_summary_says_what_it_is_costs_achieves_and_risks():
    p = plan(Design(gpu="H100", gpus=1024))
    cover = _section(report.design_report_html(p, name="", share_link=LINK), "title")
    text = html_text(cover)
    assert "Executive summary" in text
    for start in ("What it is:", "What it costs:", "What it achieves:", "Main risks:"):
        assert start in text
    assert escape(usd(p.cost.capex_usd)) in cover and "single point" in text and "kW in one rack" in text


def test_cover_in_chinese_has_no_english():
    p = plan(Design(gpu="H100", gpus=1024))
    with language("zh"):
        cover = _section(report.design_report_html(p, name="", share_link=LINK,
                                                   cover=report.Cover(customer="客户甲", version="v1")), "title")
        labels = [_("Customer:"), _("Date of issue:"), _("Executive summary")]
    text = html_text(re.sub(r'<p class="fp-link">.*?</p>', "", cover, flags=re.S))
    assert all(label in text for label in labels)
    assert english_leaks(text) == []


# --- the session's resilience settings -------------------------------------------------------------------
def test_failure_scenario_is_the_resilience_pages():
    from core.analysis.failure import what_if
    from core.figures.resilience import what_if_rows

    p = plan(Design(gpu="H100", gpus=1024))
    document = report.design_report_html(p, name="", share_link=LINK, resilience={"fail": ("p0.spine3", "p0.leaf1")})
    section = _section(document, "failure-scenario")
    assert "spine004, leaf002" in section  # the exports' names of p0.spine3, p0.leaf1 (leftnames)
    expected = what_if(p, ["p0.spine3", "p0.leaf1"], job=None)
    rows = {r[0]: r[1:] for r in _rows(section)}
    for what, healthy, failed in what_if_rows(expected, "GB/s")[:4]:  # cut off, degraded, bisection: job-free rows
        assert rows[what] == [healthy, failed]
    assert 'data-section="failure-scenario"' not in report.design_report_html(p, name="", share_link=LINK)
    bad = report.design_report_html(p, name="", share_link=LINK, resilience={"fail": ("p9.spine99",)})
    assert "p9.spine99" in _section(bad, "failure-scenario")  # said, not raised


@pytest.mark.parametrize("values", [{}, {"jg": 512, "rate": (("switch", "afr", 0.5), ("nic", "mttr_hours", 48.0))}])
def test_availability_is_the_apps_figure(values):
    """The Resilience page shows ``webui.jobwork.availability`` of its settings; the pack shows the same."""
    from core.analysis.availability import shown_trials
    from webui import jobwork

    design = Design(gpu="H100", gpus=1024)
    app = jobwork.availability(design.model_dump_json(), values.get("jg", 0), values.get("rate", ()))
    assert app.trials == shown_trials(1024)
    section = _section(report.design_report_html(plan(design), name="", share_link=LINK, resilience=values),
                       "resilience")
    rows = {r[0]: r[1] for r in _rows(section)}
    label = ("share of time a job on every GPU can run" if app.job_gpus == 1024 else
             f"share of time a job on {app.job_gpus:,} GPUs can run")
    assert rows[label] == units.percent(app.job_run_fraction)
    assert rows["bandwidth left on average"] == units.percent(app.expected_bandwidth_share)
    assert f"{shown_trials(1024):,} trials" in html_text(section)


def test_comparison_is_referenced():
    p = plan(Design(gpu="H100", nodes=16))
    link = "https://planner.example.com/compare?c1=x"
    section = _section(report.design_report_html(p, name="", share_link=LINK, compare_link=link), "comparison")
    assert f'href="{escape(link)}"' in section


# --- the share link's address ----------------------------------------------------------------------------
def _href(document: str) -> str:
    (href,) = re.findall(r'class="fp-link"><strong>[^<]*</strong> <a href="([^"]+)"', document)
    return unescape(href)


def test_cli_base_url_env_and_default(capsys, monkeypatch):
    monkeypatch.delenv(report.PUBLIC_URL_ENV, raising=False)
    code, out, _err = run_cli(capsys, "report", "--nodes", "4", "--base-url", "https://planner.example.com/x/")
    assert code == 0 and _href(out).startswith("https://planner.example.com/x/?")
    monkeypatch.setenv(report.PUBLIC_URL_ENV, "https://fabric.example.org")
    code, out, _err = run_cli(capsys, "report", "--nodes", "4")
    assert code == 0 and _href(out).startswith("https://fabric.example.org/?")
    monkeypatch.setenv(report.PUBLIC_URL_ENV, "javascript:alert(1)")  # not an address: the default
    code, out, _err = run_cli(capsys, "report", "--nodes", "4")
    assert code == 0 and _href(out).startswith("http://localhost:8501/?")


def test_webui_share_url_uses_the_public_address(monkeypatch):
    from webui import state

    monkeypatch.setenv(report.PUBLIC_URL_ENV, "https://fabric.example.org/planner/")
    assert state.share_url(state.RESILIENCE_PATH, {"v": "1"}) == "https://fabric.example.org/planner/resilience?v=1"
    assert state.share_url(state.DESIGNER_PATH, {}) == "https://fabric.example.org/planner/"


def test_cli_cover_and_edition(capsys, monkeypatch):
    monkeypatch.delenv(report.PUBLIC_URL_ENV, raising=False)
    code, out, _err = run_cli(capsys, "report", "--nodes", "4", "--customer", "<i>ACME</i>", "--author", "Ana",
                              "--version-label", "v2", "--edition", "internal")
    assert code == 0
    assert "&lt;i&gt;ACME&lt;/i&gt;" in out and "<i>" not in out.split("<script")[0]
    assert "internal edition" in out and "unsourced" in _without_plotly(out)
    code, out, err = run_cli(capsys, "report", "--nodes", "4", "--edition", "draft")
    assert code == 2 and "draft" in err


# --- the Designer's Hand-off tab -------------------------------------------------------------------------
@pytest.mark.slow
def test_designer_pack_carries_the_sessions_job_failures_cover_and_public_address(monkeypatch):
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    from tests.test_app_pages import app

    found: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        if filename and isinstance(path_or_data, bytes):
            found[filename] = path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    monkeypatch.setenv(report.PUBLIC_URL_ENV, "https://planner.example.com/")
    at = app({"n": "16", "tab": "Hand-off", "rs_fail": "p0.spine0", "perf_tok": "2.5"})
    at.text_input(key="ho_report_customer").input("<b>ACME</b>")
    at.text_input(key="ho_report_version").input("v3")
    at.button(key="ho_report_build").click().run(timeout=240)
    assert not at.exception
    (name,) = [n for n in found if n.endswith("-report.html")]
    document = found[name].decode()
    assert _href(document).startswith("https://planner.example.com/?")
    assert "&lt;b&gt;ACME&lt;/b&gt;" in _section(document, "title") and "v3" in _section(document, "title")
    assert "spine001" in _section(document, "failure-scenario")  # the session's Resilience settings (p0.spine0)
    assert "2.5 T tokens" in html_text(_section(document, "performance"))  # the session's job
    assert "unsourced" not in _without_plotly(document)  # the customer edition by default


def test_comparison_cover_has_the_customer_and_no_edition():
    from core.analysis import compare as cmp

    result = cmp.compare([("A", Design(gpu="H100", nodes=16)), ("B", Design(gpu="H100", nodes=32))])
    document = report.comparison_report_html(result, name="A vs B", share_link=LINK,
                                             cover=report.Cover(customer="<em>ACME</em>", version="v2"))
    cover = _section(document, "title")
    assert "&lt;em&gt;ACME&lt;/em&gt;" in cover and "<em>" not in cover and "v2" in cover
    assert 'data-cover="edition"' not in cover  # a comparison cites no catalog sources


@pytest.mark.parametrize("share,spares,expected", [
    (0.0, 16, "a job on all 16,384 GPUs almost never runs (hold back 16 spare nodes for 99%)"),
    (0.63, 1, "a job on 16,384 GPUs can run 63% of the time (hold back 1 spare node for 99%)"),
    (0.995, 0, "a job on 16,384 GPUs can run 99.5% of the time"),
])
def test_main_risks_carry_the_spare_nodes_for_99_percent(share, spares, expected):
    """A job that seldom runs on every GPU is not read alone as a fabric that never runs: the risk line carries the
    Availability table's spare nodes (the same ``spare_nodes_for_99pct``)."""
    from types import SimpleNamespace

    a = SimpleNamespace(job_gpus=16384, job_run_fraction=share, spare_nodes_for_99pct=spares)
    assert report.availability_risk(a, 16384 if share == 0.0 else 20000) == expected
    with language("zh"):
        line = report.availability_risk(a, 16384)
    assert (not spares or f"{spares:,}" in line) and english_leaks(line) == []  # no spares: none said
    pods = SimpleNamespace(job_gpus=768, job_run_fraction=share)  # a design with pods' availability: no spares
    assert report.availability_risk(pods, 768).startswith("a job on 768 GPUs can run")


def test_executive_summary_writes_the_key_numbers_values():
    """A design with pods: the summary's speed, fabric share and IT power read as its key number cards do (every
    pod's injection, the share to one decimal as shown, the one power format), not ``50 GB/s``, ``18%``,
    ``1,241 kW``."""
    p = plan(Design(gpu="H100", nodes=64, pods="B300:32:800"))  # B300's Gen6 host feeds its 800G (B200's: 400G)
    document = report.design_report_html(p, name="", share_link=LINK)
    cover = html_text(_section(document, "title"))
    cards = dict(re.findall(r'data-key="([a-z_]+)"[^>]*>.*?data-testid="stMetricValue">([^<]*)<', document))
    assert cards["scaleout"] == "50 GB/s / 100 GB/s" and cards["it_power"] == "1.24 MW"
    assert cards["network_share"] == "17.3%"  # 17.1% before the node cages' flat-top optics (bomfix: 256 x $370)
    assert f"fabric at {cards['scaleout']} per GPU" in cover
    assert f"{cards['network_share']} of it on the compute fabric; {cards['it_power']} of IT power" in cover


def test_executive_summary_names_the_share_as_its_card_does():
    """A second NVLink level's parts are in the fabric share (``scaleup_capex_usd``): the summary's cost sentence
    names the share as the card that shows it (``vocab.compute_fabric``), not "the compute fabric" alone, in both
    languages."""
    from core import vocab
    from core.formats.report import _executive_summary

    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    assert p.cost.scaleup_capex_usd > 0
    for lang in ("en", "zh"):
        with language(lang):
            costs = _executive_summary(p, "GB/s", {})[1]
            word = vocab.compute_fabric("word", True)
            assert word in costs, costs
    with language("en"):
        assert "of it on the compute fabric and NVLink level 2;" in _executive_summary(p, "GB/s", {})[1]


def test_executive_summary_joins_its_sentences_as_the_language_does():
    """What it achieves and the training job's days are two sentences: one space between them in English, none
    after the Chinese full stop (``之比。“性能”页``, not ``之比。 “性能”页``)."""
    from types import SimpleNamespace

    from core.formats.report import _executive_summary

    p = plan(Design(gpu="H100", nodes=4))
    facts = {"estimate": SimpleNamespace(days_to_train=330.0)}
    with language("zh"):
        achieves = _executive_summary(p, "GB/s", facts)[2]
    assert "330" in achieves and "。 " not in achieves, achieves
    assert ". The training job" in _executive_summary(p, "GB/s", facts)[2]


def test_the_design_line_takes_no_space_after_a_full_width_bracket():
    """The cover's design line is the Designer's subtitle's shape: in Chinese no space between the size's closing
    bracket and the dot (``96 个节点）· 2 层``, as ``core.figures.subtitle`` writes it)."""
    from core.formats.report import _design_line

    with language("zh"):
        line = _design_line(plan(Design(gpu="H100", nodes=64, pods="B300:32:800")))
    assert "）· " in line and "） ·" not in line, line
