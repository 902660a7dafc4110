"""The review pack: one design (or a comparison) as a self-contained HTML report, and the same as a PDF.

``design_report_html(plan, *, name, share_link, job=None, cover=None, resilience=None, compare_link="")``
returns one HTML file that needs nothing else to open: Plotly's JavaScript is embedded once
(``plotly.offline.get_plotlyjs()``), there are no external fonts, style sheets or images, so opening it makes
no network request at all. Sections, in order (printed: after the contents page they follow on, a title never
alone at the foot of a page):

1. cover: the title (``name``, the design's name; empty: ``design_title``, words from the design, never the
   file slug), the design in one line, customer, prepared by, date of issue, version and edition (``Cover``:
   free text, escaped, cut at ``COVER_TEXT_CHARS``), the share link and an executive summary (what the
   design is, costs, achieves, its main risks);
2. key numbers (``core.figures.keynumbers``, the Designer's cards) and the cost cards;
3. topology and scale-up diagrams (``core.figures.topology``, ``core.figures.scaleup``) and how the
   fabric was sized (the engine's explanation, switch groups);
4. bandwidth (``core.figures.bandwidth``: per-GPU hierarchy, capacity per tier, the oversubscription
   what-if);
5. cost and power (``core.figures.cost``) and the bill of materials with the part's name and where it sits apart
   (``core.figures.billitems.item_and_where``, as the Designer's bill and the workbook), ``why`` and a totals row (its
   totals are ``Plan.cost``'s: the BOM is the one the costs are summed from);
6. networks (storage, in-band, out-of-band) when the plan has ``networks`` and physical (racks) when it
   has ``layout``: written against the contracts of those packages, shown only when present; then the growth
   stages when the design has ``stages`` or ``grow_to`` beyond its nodes: per step the GPUs, what is bought
   (capex, switches, cables, transceivers) and which cables move, the rows of ``core.analysis.stages.stage_rows``
   (the Racks & cabling tab's and the CLI's engine);
7. performance: all-reduce and all-to-all busbw at a few sizes (``core.perf.jobform.collective_rows``,
   NCCL's stock algorithms) and the Performance page's training job (``job``: the page's settings,
   ``core.formats.joblink`` keys; None = the page's defaults with model, tp, pp and global batch fitted
   to the design exactly as the Performance and Compare pages fit them, ``core.analysis.compare.job_settings``);
8. resilience: single points of failure (``core.analysis.spof``) and the availability the Resilience page
   shows under its settings (``resilience``: ``core.formats.resiliencelink`` values; the same function,
   ``resiliencelink.availability_of``: trials, seed, job size, failure rates; a design with pods: the whole
   fabric's, every pod, ``core.formats.podreport``);
9. the failure scenario, when ``resilience["fail"]`` names failed elements: the Resilience page's what-if
   (``core.figures.resilience.what_if_rows``, the diagram with the failures marked);
10. the comparison, when ``compare_link`` is given: a link to the Compare page's comparison;
11. assumptions: the price and power bases, overrides and the plan's notes;
12. sources: every catalog entry the BOM uses; the ``customer`` edition (``EDITIONS``) cites its vendor documents
    (a reseller's or a blog's page only where the catalog grades none a vendor's), date, price with its range and
    the price's basis with its date, never the shop or blog it was read in (``core.formats.citation``), the
    ``internal`` edition the catalog's ``source`` and ``price_source`` notes as recorded.

``design_report_pdf`` prints the same sections in headless Chromium (Playwright, ``/usr/bin/chromium``) to
A4: the charts drawn once as SVG by plotly.js (the printed page has no script), the title and the page number
of the total in every footer, a contents page with each section's page number, table headers repeated on
every page; Chinese needs the Noto CJK fonts (``make fonts``). The process keeps one Chromium with plotly.js
loaded (``_Printer``). Chromium missing -> ``InputError`` saying how to install it. ``design_report_files``
makes the HTML and the PDF from one computation (the app's job). ``comparison_report_html`` / ``_pdf`` /
``_files`` do the same for a ``core.analysis.compare.Comparison``: the side-by-side numbers with deltas, the
BOM difference, the grouped charts and one short section per design.

Every label is in the language of the request (``core.i18n.current()``); the HTML's ``lang`` follows it.
Charts are drawn ``CHART_WIDTH_PX`` wide, what an A4 page holds inside its margins, so the screen and the
printout look the same. Everything shown is escaped by ``core.text.html_text`` (names and links come from
users): shown as typed, and no bare URL in a text becomes a link, not even in a PDF viewer.
"""

from __future__ import annotations

import atexit
import json
import math
import multiprocessing.util
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from html import escape as escape_url
from pathlib import Path
from typing import Mapping
from urllib.parse import unquote

from core import plurals, scaleup, units, vocab
from core.errors import FabricPlannerError, InputError
from core.fabric import domainlevels
from core.fabric.families import leaf_whatif, leaf_whatif_note, words
from core.i18n import (HTML_LANG, N_, _, after_full_width, babel_locale, current, embedded, in_currency,
                       money_note, ngettext, number, sentences, usd)
from core.spares import policy_words
from core.networks import network_name
from core.formats.networkwords import sizing_explanation, sizing_headline, sizing_tables
from core.formats.sharelink import PUBLIC_URL_ENV, public_base_url  # noqa: F401 - the pack's and CLI's
from core.text import html_text
from core.perf.constants import library_label
from core.perf.placement import sharp_used

CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium; Playwright cannot download its own browser on these machines."""
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic")
PAGE_MARGIN_MM = 12
CHART_WIDTH_PX = 700
"""A4 is 210 mm wide; less two 12 mm margins that is 186 mm = 703 CSS px (96 px per inch)."""
COLLECTIVE_OPS = ("all-reduce", "all-to-all")
REPORT_SIZES = (2**20, 64 * 2**20, 2**30, 16 * 2**30)
"""Message sizes [bytes] of the collectives table: 1 MiB, 64 MiB, 1 GiB, 16 GiB."""
SWEEP_MAX_GPUS = 32_768
"""Above this many GPUs the oversubscription what-if (seven more plans) is left out of the report."""
NETWORK_ORDER = ("compute", "storage", "inband", "oob")
"""BOM ``network`` keys in the order the report shows them."""
MAX_ROWS_LISTED = 40
"""Rack rows listed one by one; the rest are counted."""
MAX_SPOF_ROWS = 12
"""Single points of failure listed by name; the rest are counted per tier."""
RENDER_TIMEOUT_MS = 60_000
"""Longest wait for Chromium to draw every chart before printing."""
EDITIONS = ("customer", "internal")
"""Editions of the design's pack: ``customer`` (the default) cites each catalog entry as publisher and document
(``core.formats.citation``) with its price's range and basis; ``internal`` shows the catalog's research notes as
recorded."""
COVER_TEXT_CHARS = 80
"""Longest customer, author or version text on the cover [characters]; a longer one is cut and ends with "…"."""


def cover_text(text: object) -> str:
    """Free text of the cover as shown: one line, without control or format characters (a right-to-left
    override would reorder what people read; right-to-left letters stay), at most ``COVER_TEXT_CHARS``
    characters. Shown escaped, never interpreted."""
    from core.text import visible

    value = " ".join(visible("" if text is None else text).split())
    return value if len(value) <= COVER_TEXT_CHARS else value[:COVER_TEXT_CHARS - 1].rstrip() + "…"


@dataclass(frozen=True)
class Cover:
    """What the cover of a design's pack says beyond the design: for whom, by whom, which version, which edition
    (``EDITIONS``). The texts are cleaned by ``cover_text``; an unknown edition is an ``InputError``."""

    customer: str = ""
    author: str = ""
    version: str = ""
    edition: str = "customer"

    def __post_init__(self) -> None:
        for name in ("customer", "author", "version"):
            object.__setattr__(self, name, cover_text(getattr(self, name)))
        if self.edition not in EDITIONS:
            raise InputError(_("the edition must be one of {choices}, got {value}").format(
                choices=", ".join(EDITIONS), value=cover_text(self.edition)[:20]))


# --- building blocks -------------------------------------------------------------------------------------
@dataclass
class _Doc:
    """Sections and figures of one report, turned into one HTML file by ``render``."""

    title: str
    static: bool = False
    unit: str = "GB/s"
    """Bandwidth unit of every card, chart and table ("GB/s" or "Gb/s", the user's ``ui_bw``)."""
    sections: list[tuple[str, str, str]] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)

    def figure(self, fig, height: int | None = None, width: int = CHART_WIDTH_PX) -> str:
        """A placeholder div for ``fig`` (a Plotly figure), drawn by the report's script."""
        import plotly.io as pio

        ident = f"fp-fig-{len(self.figures)}"
        spec = json.loads(pio.to_json(fig, validate=False))
        layout = spec.setdefault("layout", {})
        layout["template"] = _white_template()  # white paper, light grid: prints as it shows
        layout["width"] = width
        for key, axis in layout.items():  # tick labels (tier names) get room of their own
            if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
                axis.setdefault("automargin", True)
        if height is not None:
            layout["height"] = height
        _rewrap_title(layout)
        h = int(layout.get("height") or 450)
        placeholder = f'<div class="fp-chart" id="{ident}" style="width:{width}px;height:{h}px"></div>'
        self.figures.append({"id": ident, "data": spec.get("data", []), "layout": layout, "height": h,
                             "placeholder": placeholder})
        return placeholder

    def section(self, ident: str, title: str, body: str) -> None:
        self.sections.append((ident, title, body))

    def render(self, title_page: str, charts: list[str] | None = None) -> str:
        """The report as one HTML file: ``title_page``, the table of contents, the sections. Without ``charts``
        Plotly draws every figure in the reader's browser (plotly.js embedded once); with ``charts`` (one SVG
        per figure as Plotly drew it, ``_chart_images``) the figures are those drawings and the file has no
        script at all (the printed form)."""
        from core.figures.keynumbers import CARDS_CSS

        body = [title_page, self.contents()]
        for ident, title, html in self.sections:
            if charts is not None:
                for fig, svg in zip(self.figures, charts):  # inline: an <img> of it loses the text's link breaks
                    html = html.replace(fig["placeholder"], fig["placeholder"].replace("></div>", f">{svg}</div>"))
            body.append(f'<section class="fp-section" id="{html_text(ident)}" data-section="{html_text(ident)}">'
                        f"<h2>{html_text(title)}</h2>{html}</section>")
        scripts = (self._scripts() if charts is None
                   else "<script>window.fpRendered=true;document.body.setAttribute('data-rendered','1');</script>")
        return (
            "<!DOCTYPE html>\n"
            f'<html lang="{HTML_LANG.get(current(), "en")}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html_text(self.title)}</title>"
            f"<style>{CARDS_CSS}\n{_CSS}</style></head><body>"
            + "".join(body) + scripts + "</body></html>\n"
        )

    def contents(self) -> str:
        """The table of contents: every section's title linked to it (the PDF gets each one's page number,
        ``_number_contents``)."""
        items = "".join(f'<li><a href="#{html_text(ident)}">{html_text(title)}</a></li>'
                        for ident, title, _body in self.sections)
        heading = html_text(_("Contents"))
        return f'<nav class="fp-toc" data-section="contents"><h2>{heading}</h2><ol>{items}</ol></nav>'

    def _scripts(self) -> str:
        """plotly.js and the script that draws every figure into its placeholder."""
        from plotly.offline import get_plotlyjs

        config = {"displaylogo": False, "responsive": False, "staticPlot": self.static,
                  "modeBarButtonsToRemove": ["sendDataToCloud"], "showLink": False}
        # no "<" at all in the script element (JSON reads \u003c as "<"): "</script>" or "<!--" in a text cannot end
        # it or change how the HTML parser reads it
        figures = json.dumps([{k: f[k] for k in ("id", "data", "layout")} for f in self.figures],
                             separators=(",", ":")).replace("<", "\\u003c")
        script = (
            "(function(){var figs=JSON.parse(document.getElementById('fp-figures').textContent);"
            f"var config={json.dumps(config)};"
            "var done=function(){document.body.setAttribute('data-rendered','1');window.fpRendered=true;};"
            "Promise.all(figs.map(function(f){return Plotly.newPlot(f.id,f.data,f.layout,config);}))"
            ".then(done,function(e){console.error(e);done();});})();"
        )
        return (f'<script type="application/json" id="fp-figures">{figures}</script>'
                f"<script>{get_plotlyjs()}</script><script>{script}</script>")


@lru_cache(maxsize=1)
def _white_template() -> dict:
    """Plotly's ``plotly_white`` template as JSON (built once: a template object costs 0.1 s to validate)."""
    import plotly.io as pio

    import plotly.graph_objects as go

    return json.loads(pio.to_json(go.Figure(layout={"template": "plotly_white"}), validate=False))["layout"]["template"]


TITLE_CHARS_WIDE = 84
"""Title line length [Latin characters] of a chart as wide as the page (the app's are half as wide)."""


def _rewrap_title(layout: dict) -> None:
    """A title the figure wrapped for half a page, wrapped again for the whole width; its top margin follows."""
    import re

    from core.figures.style import _wide, full_title, title_dict, title_margin, wrap_title

    title = layout.get("title")
    text = full_title(title) if isinstance(title, dict) else None
    if not text:
        return
    old = text.split("<br>")
    merged: list[list[str]] = []
    for line in old:
        sup = line.startswith("<sup>") and line.endswith("</sup>")
        inner = line[5:-6] if sup else line
        if merged and merged[-1][0] == sup and inner:
            prev = merged[-1][1]
            glue = "" if (prev and _wide(prev[-1])) or _wide(inner[0]) else " "
            merged[-1][1] = prev + glue + inner
        else:
            merged.append([sup, inner])
    joined = "<br>".join(f"<sup>{t}</sup>" if sup else t for sup, t in merged)
    wrapped, lines = wrap_title(re.sub(r"\s{2,}", " ", joined), TITLE_CHARS_WIDE)
    title.pop("subtitle", None)
    title.update(title_dict(wrapped))  # the title's lines, its subtitle's again as Plotly's subtitle
    margin = layout.setdefault("margin", {})
    if "t" in margin:
        margin["t"] = max(title_margin(lines), margin["t"] - title_margin(len(old)) + title_margin(lines))


_FONTS = ('Inter, "Segoe UI", Helvetica, Arial, "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", '
          '"PingFang SC", "Microsoft YaHei", sans-serif')
_CSS = f"""
@page {{ size: A4; margin: {PAGE_MARGIN_MM}mm {PAGE_MARGIN_MM}mm {PAGE_MARGIN_MM + 4}mm; }}
html {{ -webkit-print-color-adjust: exact; print-color-adjust: exact; }}
body {{ font-family: {_FONTS}; color: #1b2631; max-width: {CHART_WIDTH_PX + 20}px; margin: 0 auto;
  padding: 0 10px; font-size: 13px; line-height: 1.45; }}
h1 {{ font-size: 28px; margin: 0 0 0.4em; }}
h2 {{ font-size: 20px; border-bottom: 2px solid #2e86c1; padding-bottom: 4px; margin: 0.6em 0 0.5em; }}
h3 {{ font-size: 15px; margin: 1em 0 0.4em; break-after: avoid; page-break-after: avoid; }}
.fp-title {{ padding: 48px 0 24px; display: flex; flex-direction: column; justify-content: center; }}
.fp-title .fp-sub {{ font-size: 16px; color: #34495e; margin: 0.2em 0; }}
.fp-title .fp-link {{ font-size: 11px; word-break: break-all; margin-top: 1.5em; }}
.fp-title .fp-meta {{ color: #566573; margin-top: 2em; font-size: 12px; }}
.fp-toc {{ break-before: page; page-break-before: always; padding-top: 4px; }}
.fp-toc ol {{ padding-left: 24px; font-size: 15px; line-height: 2; }}
.fp-toc li a {{ color: #1b2631; text-decoration: none; }}
.fp-section {{ padding-top: 4px; margin-top: 28px; }}
.fp-toc + .fp-section {{ break-before: page; page-break-before: always; margin-top: 0; }}
h2 {{ break-after: avoid; page-break-after: avoid; }}
.fp-chart {{ margin: 6px 0 10px; break-inside: avoid; page-break-inside: avoid; }}
.fp-chart svg {{ display: block; }}
table {{ border-collapse: collapse; width: 100%; margin: 6px 0 12px; font-size: 11px; }}
thead {{ display: table-header-group; }}
tr {{ break-inside: avoid; page-break-inside: avoid; }}
th, td {{ border: 1px solid #d5d8dc; padding: 3px 5px; vertical-align: top; text-align: left; }}
th {{ background: #eaf2f8; word-break: keep-all; overflow-wrap: normal; }}
td:first-child {{ word-break: keep-all; min-width: 4em; }}
td.num, th.num {{ text-align: right; white-space: nowrap; }}
td.term {{ word-break: keep-all; white-space: nowrap; }}
td.id {{ word-break: normal; overflow-wrap: normal; font-size: 10px; }}
td.engine:not(.term) {{ min-width: 9em; }}
tr.fp-total td {{ font-weight: 700; background: #f4f6f7; }}
tr.fp-subtotal td {{ font-weight: 600; background: #fbfcfc; }}
tr.fp-group td {{ font-weight: 700; background: #d6eaf8; break-after: avoid; page-break-after: avoid; }}
td.why {{ font-size: 10px; color: #34495e; overflow-wrap: anywhere; word-break: normal; min-width: 12em; }}
td.date {{ white-space: nowrap; }}
table.fp-dense {{ font-size: 10px; }} table.fp-dense td.why {{ font-size: 9px; min-width: 14em; }}
table.fp-dense td {{ padding: 2px 4px; }} table.fp-bom td.engine:not(.term) {{ min-width: 15em; }}
table.fp-bom td.engine.place {{ min-width: 6em; }}
td.better {{ color: #1e8449; font-weight: 600; }} td.worse {{ color: #c0392b; font-weight: 600; }}
.fp-note {{ color: #566573; font-size: 11.5px; break-inside: avoid; }}
ul.fp-list {{ margin: 4px 0 10px; padding-left: 20px; }} ul.fp-list li {{ margin: 2px 0; }}
a {{ color: #1f618d; }}
.fp-cards {{ grid-template-columns: repeat(4, 1fr); }} .fp-card {{ cursor: default; break-inside: avoid; }}
@media print {{ body {{ max-width: none; padding: 0; }} a {{ text-decoration: none; }}
  .fp-title {{ min-height: 240mm; padding: 0; }} }}
"""


def _table(headers: list[str], rows: list[list], numeric: set[int] = frozenset(), classes: dict[int, str] = None,
           total: list | None = None, row_classes: list[list[str | None]] | None = None, total_attrs: str = "",
           table_class: str = "") -> str:
    """An escaped HTML table; ``numeric`` column indexes are right-aligned; ``total`` a bold last row; ``classes``
    per column: ``term`` short words kept on one line, ``why`` and ``quoted`` long text in small type, ``id``
    catalog ids; ``table_class`` the table's own class (``fp-dense``: smaller type for long tables)."""
    classes = classes or {}

    def cell(tag: str, i: int, value, extra: str | None = None) -> str:
        names = [n for n in (("num" if i in numeric else None), classes.get(i), extra) if n]
        attr = f' class="{" ".join(names)}"' if names else ""
        return f"<{tag}{attr}>{html_text(str(value))}</{tag}>"

    head = "".join(cell("th", i, in_currency(h)) for i, h in enumerate(headers))  # money headers: the shown currency
    body = []
    for r, values in enumerate(rows):
        extras = row_classes[r] if row_classes else [None] * len(values)
        body.append("<tr>" + "".join(cell("td", i, v, extras[i]) for i, v in enumerate(values)) + "</tr>")
    if total is not None:
        body.append(f'<tr class="fp-total"{total_attrs}>' + "".join(cell("td", i, v) for i, v in enumerate(total))
                    + "</tr>")
    attr = f' class="{table_class}"' if table_class else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _frame_table(rows: list[dict], numeric_columns: tuple[str, ...] = ()) -> str:
    """A table of row dicts (the keys are the headers, already in the request's language)."""
    if not rows:
        return ""
    headers = list(rows[0])
    numeric = {i for i, h in enumerate(headers) if h in numeric_columns or all(
        isinstance(r.get(h), (int, float)) and not isinstance(r.get(h), bool) for r in rows)}
    kinds = {_("catalog id"): "id", _("category"): "engine term", _("item"): "engine", _("why"): "why"}  # engine words
    classes = {i: kinds[h] for i, h in enumerate(headers) if h in kinds}
    return _table(headers, [[_plain(r.get(h, "")) for h in headers] for r in rows], numeric, classes)


def _plain(value) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, (int, float)):
        return units.cell(value)
    return str(value)


def _list(items, own: bool = False) -> str:
    """A bullet list; ``own`` = this module's text, else the engine's (notes, explanations: class ``engine``)."""
    items = [i for i in items if i]
    kind = "fp-list" if own else "fp-list engine"
    return f'<ul class="{kind}">' + "".join(f"<li>{html_text(str(i))}</li>" for i in items) + "</ul>" if items else ""


def _h3(text: str) -> str:
    return f"<h3>{html_text(text)}</h3>"


def _p(text: str, note: bool = False) -> str:
    return f'<p class="fp-note">{html_text(text)}</p>' if note else f"<p>{html_text(text)}</p>"


def _link(url: str) -> str:
    """A link only for http(s) addresses (a ``javascript:`` link in a name must not become one). The link's text is
    its address exactly (no ``core.text.LINK_BREAK``: copying it gives a working address); it wraps by the
    ``.fp-link`` rule (``word-break: break-all``) in the HTML and in the printed PDF."""
    if url.startswith(("http://", "https://")):
        return f'<a href="{escape_url(url, quote=True)}">{escape_url(url, quote=True)}</a>'
    return html_text(url)


def _date(when: datetime | None) -> str:
    from babel.dates import format_date

    when = when or datetime.now(timezone.utc)
    return format_date(when.date(), format="long", locale=babel_locale())


def _title_page(title: str, subtitle: list[str], share_link: str, when: datetime | None, kind: str,
                cover: Cover | None = None, summary: list[str] = (), edition: bool = True) -> str:
    """The first page: title, the cover's details (customer, prepared by, date of issue, version and, with
    ``edition``, the edition), the share link and the executive summary."""
    subs = "".join(f'<p class="fp-sub">{html_text(s)}</p>' for s in subtitle)
    label = html_text(_("Share link:"))
    link = f'<p class="fp-link"><strong>{label}</strong> {_link(share_link)}</p>' if share_link else ""
    details = ""
    if cover is not None:
        editions = {"customer": _("customer edition"), "internal": _("internal edition")}
        rows = [("customer", _("Customer:"), cover.customer), ("author", _("Prepared by:"), cover.author),
                ("date", _("Date of issue:"), _date(when)), ("version", _("Version:"), cover.version),
                ("edition", _("Edition:"), editions[cover.edition] if edition else "")]
        details = "".join(f'<p class="fp-sub" data-cover="{key}"><strong>{html_text(label)}</strong> '
                          f'<bdi>{html_text(value)}</bdi></p>' for key, label, value in rows if value)
    brief = (_h3(_("Executive summary")) + "".join(_p(s) for s in summary)) if summary else ""
    meta = _("{kind}, generated by fabric planner on {date}. Prices are estimates from the catalog's price book; "
             "every number is the engine's.").format(kind=kind, date=_date(when))
    return (f'<section class="fp-title" data-section="title"><h1>{html_text(title)}</h1>{subs}{details}{link}'
            f'{brief}<p class="fp-meta">{html_text(meta)}</p></section>')


# --- one design ------------------------------------------------------------------------------------------
def _summary(plan) -> dict:
    """``plan.summary()`` (a design with pods: its totals, ``core.analysis.whole.whole_summary``; under 1 ms at
    131,072 GPUs, the mixed plan being cached by its design)."""
    from core.analysis.whole import whole_summary

    return whole_summary(plan)


def report_job_settings(plan, job: Mapping | None = None) -> dict:
    """The Performance page's job on ``plan``: ``job``'s settings over the page's defaults
    (``core.formats.joblink.DEFAULTS``); the model, tp, pp and global batch not in ``job`` are fitted to the
    design as the Performance page fits them (``core.analysis.compare.job_settings``)."""
    from core.analysis.compare import job_settings
    from core.formats.joblink import DEFAULTS
    from core.perf.jobform import FITTED

    given = dict(job or {})
    settings = {**DEFAULTS, **given}
    return job_settings(plan, settings, {k for k in FITTED if k not in given}, DEFAULTS)


def _words(plan) -> str:
    """The design in words: ``core.designwords.plan_words``; a design with pods: every pod's
    (``core.formats.podreport.pods_words``)."""
    from core.designwords import plan_words
    from core.formats.podreport import pods_words

    return (pods_words(plan) if plan.design.pods else None) or plan_words(plan)


def _design_line(plan) -> str:
    """The design's size and the design in words (``_words``); a design with pods: the whole design's size."""
    from core.analysis.whole import whole_plan
    from core.figures.keynumbers import size_caption

    return after_full_width(_("{size} · {design}").format(size=size_caption(whole_plan(plan)), design=_words(plan)))


def design_title(plan) -> str:
    """The pack's title when the design has no name (``Design.name``), in words from the design (``_words``):
    ``1,024 x H100 cluster: 2-tier QM9700 InfiniBand, rail-optimized, ...`` (English writes "x", as the
    headlines do; zh "×" throughout); a design with pods: every pod's GPUs and systems (``768 x H100 + B200
    cluster: ...``)."""
    s = _summary(plan)
    return _("{gpus} x {gpu} cluster: {design}").format(gpus=number(s["gpus"]), gpu=s["gpu_model"],
                                                        design=_words(plan))


def _executive_summary(plan, unit: str, facts: Mapping) -> list[str]:
    """Four sentences from the design: what it is, what it costs, what it achieves, its main risks. ``facts``:
    what the sections computed (``estimate``: the training job's, ``spof``, ``availability``, ``scenario``)."""
    from core import units
    from core.analysis.whole import ratio_words, whole_plan
    from core.figures.keynumbers import per_pod_value, size_caption
    from core.plan import shown_share

    whole = whole_plan(plan)  # a design with pods: its totals and the slowest pod's per-GPU bandwidths
    r, s, cost = plan.resolved, _summary(plan), whole.cost
    bw = plan.bandwidth if whole is plan else whole.bandwidth.model_copy(update={
        k: s["bandwidth"][k] for k in ("scaleout_gbits_per_gpu", "bisection_tbits_one_direction", "oversubscription")})
    family = plan.fabric.family  # a torus: no tiers, no leaves, its bisection ratio (its WORDS)
    out = [words(family, "report:what", N_("What it is: {size}, on a {tiers}-tier {fabric} {topology} fabric at "
                                          "{speed} per GPU (one direction), {planes}.")).format(
        size=size_caption(whole), tiers=s["tiers"], fabric=vocab.fabric_label(r.fabric, r.nic.transport),
        topology=vocab.TOPOLOGY.word(r.topology),
        speed=per_pod_value(s["bandwidth"].get("scaleout_gbits_per_gpu_pods"), 1, bw.scaleout_gbits_per_gpu, unit),
        planes=plurals.planes(s["planes"]))]  # the speed and the figures below as the key numbers write them
    out.append(_("What it costs: {capex} of capex at {basis} prices (range {range}), {per_gpu} per GPU, "
                 "{share} of it on the {fabric}; {it_power} of IT power; {tco} over {years} years with energy.").format(
        fabric=embedded(vocab.compute_fabric("word", bool(cost.scaleup_capex_usd))), capex=usd(cost.capex_usd), basis=vocab.PRICE_BASES.label(cost.price_basis),
        range=units.money_range(cost.capex_usd_low, cost.capex_usd_high), per_gpu=usd(s["cost"]["capex_per_gpu_usd"]),
        share=units.percent(shown_share(s["cost"]["network_share"])), it_power=units.power(cost.it_kw),
        tco=usd(s["cost"]["tco_usd"]),
        years=f"{cost.tco_years:g}"))
    achieves = _("What it achieves: bisection {bisection} (one direction), bisection ratio {ratio}, half the injection "
                 "over the bisection.").format(  # the ratio as the CLI, the cards and the title name it
        bisection=units.bandwidth(units.from_tbits(bw.bisection_tbits_one_direction), unit), ratio=ratio_words(plan))
    estimate = facts.get("estimate")
    if estimate is not None and getattr(estimate, "days_to_train", None):
        pod = facts.get("pod") if whole is not plan else None  # pods planned together: the job runs on one
        job = (_("The training job of the Performance page takes {days} days.") if not pod else _(
            "The training job of the Performance page runs on pod {pod}'s {gpus} GPUs and takes {days} days.")
        ).format(days=units.days(estimate.days_to_train), pod=pod,
                 gpus=number(whole.mixed.fabric.pods[pod - 1].gpus) if pod else "")
        achieves = sentences(achieves, job)  # no space after a Chinese sentence
    out.append(achieves)
    out.append(_("Main risks: {risks}.").format(risks=_("; ").join(_risks(plan, facts))))
    return out


def _risks(plan, facts: Mapping) -> list[str]:
    """The design's main risks in words: single points of failure, oversubscription, power per rack, availability
    and the Resilience page's failure scenario."""
    risks = []
    spof = facts.get("spof")
    if spof is not None:
        risks.append(ngettext("{count} single point of failure", "{count} single points of failure",
                              spof.count).format(count=number(spof.count)) if spof.count
                     else _("no single point of failure"))
    risks.append(_oversubscription_risk(plan))
    racks = _summary(plan).get("racks") or {}
    if isinstance(racks, Mapping) and racks.get("max_kw_per_rack"):
        limit = racks.get("power_limit_kw")
        risks.append((_("up to {kw} kW in one rack (limit {limit} kW)") if limit else _("up to {kw} kW in one rack"))
                     .format(kw=units.kw(racks["max_kw_per_rack"]), limit=units.kw(limit or 0)))
    a = facts.get("availability")
    if a is not None:
        risks.append(availability_risk(a, plan.resolved.gpus))
    scenario = facts.get("scenario")
    if scenario is not None:
        risks.append(_("the failure scenario cuts off {gpus} GPUs").format(gpus=number(scenario.gpus_disconnected)))
    return risks


def _oversubscription_risk(plan) -> str:
    """The risks' oversubscription words, with the bisection ratio the rest of the pack says (``ratio_words``: a
    design with pods its whole ratio, the faster pods' NICs counted, and its slower half's where the two differ, so
    "1.33:1" is never followed by "no oversubscription"), and where the taper sits: the leaves when a leaf is
    oversubscribed (any pod's), else the family's cut (``report:risk:oversubscribed``: a Dragonfly's global links
    between groups, a torus's cut; a folded Clos, or pods under shared spines, the bisection)."""
    from core.analysis.whole import ratio_words

    b = _summary(plan)["bandwidth"]
    if b["oversubscription"] <= 1.001:
        return _("no oversubscription")
    leaves = b.get("leaf_oversubscription_pods") or [plan.bandwidth.leaf_oversubscription]
    return (_("the bisection ratio is {ratio}, so traffic across leaves can slow down") if max(leaves) > 1.001 else
            words(plan.fabric.family, "report:risk:oversubscribed", N_(
                "the fabric's bisection ratio is {ratio}, so traffic across the bisection can slow down"))
            ).format(ratio=ratio_words(plan))


ALMOST_NEVER = 0.005
"""A job that runs less than this share of the time [fraction] "almost never" runs (it would show as 0.00%)."""


def availability_risk(a, gpus: int) -> str:
    """The Main risks line of a job's availability (``core.analysis.availability``), carrying the Availability
    table's answer when the job runs less than 99% of the time: the spare nodes to hold back for 99%.

    Parameters
    ----------
    a : the job's availability (``job_gpus``, ``job_run_fraction`` [fraction], ``spare_nodes_for_99pct`` [nodes];
        a design with pods' ``core.analysis.podavail.PodsAvailability`` has no spare nodes: none are said).
    gpus : the design's GPUs [count]; a job on all of them is said so.
    """
    share, spares = a.job_run_fraction, getattr(a, "spare_nodes_for_99pct", 0)
    values = dict(gpus=number(a.job_gpus), share=units.percent(share), count=number(spares))
    if share >= 0.99 or not spares:
        return _("a job on {gpus} GPUs can run {share} of the time").format(**values)
    if share >= ALMOST_NEVER:
        return ngettext("a job on {gpus} GPUs can run {share} of the time (hold back {count} spare node for 99%)",
                        "a job on {gpus} GPUs can run {share} of the time (hold back {count} spare nodes for 99%)",
                        spares).format(**values)
    if a.job_gpus == gpus:
        return ngettext("a job on all {gpus} GPUs almost never runs (hold back {count} spare node for 99%)",
                        "a job on all {gpus} GPUs almost never runs (hold back {count} spare nodes for 99%)",
                        spares).format(**values)
    return ngettext("a job on {gpus} GPUs almost never runs (hold back {count} spare node for 99%)",
                    "a job on {gpus} GPUs almost never runs (hold back {count} spare nodes for 99%)",
                    spares).format(**values)


def _key_numbers(doc: _Doc, plan) -> None:
    from core.figures.keynumbers import cards_html, cost_key_numbers, key_numbers

    from core.analysis.whole import whole_plan

    numbers, costs = key_numbers(_summary(plan), doc.unit), cost_key_numbers(whole_plan(plan))
    body = cards_html(numbers) + _h3(_("Cost and power")) + cards_html(costs)
    shown = {k.key for k in numbers}  # a number on both rows of cards (capex per GPU) is explained once
    rows = [[k.label, k.value, k.help] for k in numbers + [k for k in costs if k.key not in shown]]
    body += (_h3(_("What each number means"))
             + _table([_("number"), _("value"), _("meaning")], rows, {1}, {2: "why"}))
    doc.section("key-numbers", _("Key numbers"), body)


def _topology(doc: _Doc, plan) -> None:
    from core.cost import role_words
    from core.figures.scaleup import scaleup_figure
    from core.figures.topology import count_drawn_elements, is_aggregated, topology_figure

    fig = topology_figure(plan, unit=doc.unit, height=620)
    aggregated = is_aggregated(plan)
    note = (_("Aggregated view by scalable unit, pod and rail: {count} drawn elements.") if aggregated
            else _("Every switch and node drawn: {count} elements.")).format(count=number(count_drawn_elements(fig)))
    body = doc.figure(fig, 620) + _p(note, note=True) + doc.figure(scaleup_figure(plan, unit=doc.unit, height=560), 560)
    body += _p(scaleup.describe(plan.nvlink_summary(), library_label(plan.resolved.system.collective_library),
                                  doc.unit))
    from core.formats.podreport import pods_sizing

    lines, rows = pods_sizing(plan, doc.unit) or (plan.fabric.explanation, [
        [role_words(g.role, plan.fabric.family), number(g.count), number(g.down_ports_used), number(g.up_ports_used),
         number(g.ports_free), number(g.radix), g.description] for g in plan.fabric.switch_groups])
    body += _h3(_("How the fabric was sized")) + _list(lines)
    headers = [_("role"), _("switches per plane"), _("down ports"), _("up ports"), _("free ports"), _("radix"),
               _("cabling")]
    body += _table(headers, rows, {1, 2, 3, 4, 5}, {6: "why"})
    doc.section("topology", _("Topology"), body)


def _bandwidth(doc: _Doc, plan) -> None:
    from core.analysis.whatif import oversubscription_sweep, sweep_display_table
    from core.fabric.bandwidth import tier_capacities_gbits
    from core.figures.bandwidth import bandwidth_hierarchy_figure, bandwidth_readout, clos_readout
    from core.figures.bandwidth import oversubscription_figure
    from core.figures.bandwidth import tier_capacity_figure
    from core.analysis.whole import ratio_words, whole_plan
    from core.figures.keynumbers import whatif_capex_note

    bw = whole_plan(plan).bandwidth  # a design with pods: pod 1's, with the hops between pods and the whole design's
    # bisection ratio end to end (core.analysis.whole.ratio_words, the slower half's named), as the CLI says it
    body = doc.figure(bandwidth_hierarchy_figure(plan, unit=doc.unit), 380)
    capacities = tier_capacities_gbits(plan.resolved, plan.fabric)
    body += doc.figure(tier_capacity_figure(plan, capacities, unit=doc.unit), 360)
    readout, longest = clos_readout("report:readout:bandwidth", plan)  # "cross pod" with pods, else "farthest pair"
    body += _p(bandwidth_readout(plan.fabric.family, plan.resolved.system, bw, doc.unit, "report:readout:bandwidth",
                                 readout, total=ratio_words(plan), longest=longest))
    if not leaf_whatif(plan.fabric.family):  # no leaves to oversubscribe (a torus)
        doc.section("bandwidth", _("Bandwidth"), body)
        return
    if plan.resolved.gpus > SWEEP_MAX_GPUS:
        body += _p(_("The oversubscription what-if is left out above {gpus} GPUs (it plans the design seven more "
                     "times); the Designer's Bandwidth tab shows it.").format(gpus=number(SWEEP_MAX_GPUS)), note=True)
        doc.section("bandwidth", _("Bandwidth"), body)
        return
    try:
        sweep = oversubscription_sweep(plan.design)
        body += _h3(_("Oversubscription of pod 1") if plan.design.pods else _("What if the leaves were oversubscribed"))
        body += doc.figure(oversubscription_figure(sweep, plan.design.oversubscription, unit=doc.unit), 380)
        table = sweep_display_table(sweep, doc.unit)
        body += _frame_table(table.to_dict("records"))
        notes = (leaf_whatif_note(plan),  # a family whose rows rank otherwise (a Dragonfly+'s global cut)
                 whatif_capex_note(plan))  # NVLink level 2 in the capex
        body += "".join(_p(note, note=True) for note in notes if note)
    except FabricPlannerError:  # a what-if the engine cannot plan is left out, the rest stays
        pass
    doc.section("bandwidth", _("Bandwidth"), body)


def _bill_money(rows, sums: list[float]) -> tuple[dict, dict]:
    """The bill's two money columns as text, each with its decimals picked once over the column
    (``core.units.money_column``): (unit price [USD] -> text, amount [USD] -> text), the amounts the rows' extended
    prices and ``sums`` (the subtotals and the total under them)."""
    prices, amounts = [r.unit_price_usd for r in rows], [r.extended_price_usd for r in rows] + sums
    return dict(zip(prices, units.money_column(prices))), dict(zip(amounts, units.money_column(amounts)))


def _bom_rows(rows, pods: bool = False, money: tuple[dict, dict] | None = None) -> tuple[list[list], float, float, int]:
    """The cells of ``rows`` (``_bom_headers``' columns: the part's published name and where it sits apart, as the
    Designer's bill and the workbook split them, ``item_and_where``; ``pods``: with whose devices each row buys, after
    where; ``money``: the money columns' texts, ``_bill_money``, default those of ``rows`` alone) and their totals
    [USD, W, count]."""
    from core.figures.billitems import item_and_where
    from core.figures.cost import category_name
    from core.spares import pod_label

    prices, amounts = money or _bill_money(rows, [])
    out, usd_total, w_total, count = [], 0.0, 0.0, 0
    for r in rows:
        out.append([category_name(r.category), *item_and_where(r.item, r.catalog_id),
                    *([pod_label(r.pod)] if pods else []), number(r.quantity), prices[r.unit_price_usd],
                    amounts[r.extended_price_usd], number(r.extended_power_w), r.why, r.catalog_id])
        usd_total += r.extended_price_usd
        w_total += r.extended_power_w
        count += r.quantity
    return out, usd_total, w_total, count


_BOM_COLUMNS = {"category": "engine term", "item": "engine", "where": "engine place", "pod": "", "quantity": "num",
                "unit_price_usd": "num", "extended_price_usd": "num", "extended_power_w": "num", "why": "why",
                "catalog_id": "id"}
"""The pack's bill columns (``core.figures.billitems.BOM_HEADERS`` ids, ``pod`` only in a design with pods) -> their
cells' class: the engine's words (``core.cost``: category, the part's name, where it sits (``place``: narrower than
the name), why), numbers, ids."""


def _bom_columns(pods: bool = False) -> list[str]:
    return [column for column in _BOM_COLUMNS if pods or column != "pod"]


def _bom_headers(pods: bool = False) -> list[str]:
    from core.figures.billitems import bom_headers

    headers = bom_headers()
    return [in_currency(headers[column]) for column in _bom_columns(pods)]


def _bom_line(pods: bool, **cells) -> list:
    """A subtotal's or total's cells (by column id; the others blank)."""
    return [cells.get(column, "") for column in _bom_columns(pods)]


def _bom_table(bom) -> str:
    """The bill of materials as one table: rows grouped by network (compute fabric first) with a subtotal per
    network when there is more than one, and the total (``Plan.cost``'s capex and IT power) in the last row."""
    groups: dict[str, list] = {}
    for row in bom:
        groups.setdefault(getattr(row, "network", "compute") or "compute", []).append(row)
    order = [k for k in NETWORK_ORDER if k in groups] + [k for k in groups if k not in NETWORK_ORDER]
    pods = any(row.pod is not None for row in bom)  # a design with pods: whose devices each row buys, a column
    headers = _bom_headers(pods)
    kinds = [_BOM_COLUMNS[column] for column in _bom_columns(pods)]

    def tr(values: list, cls: str = "", attrs: str = "") -> str:
        cells = "".join(f'<td class="{kind}">{html_text(str(v))}</td>' for kind, v in zip(kinds, values))
        return f'<tr class="{cls}"{attrs}>{cells}</tr>'

    sums = [sum(r.extended_price_usd for r in groups[key]) for key in order]
    money = _bill_money(bom, [*sums, sum(sums)])  # a column's decimals picked once, its subtotals and total too
    body, total_usd, total_w = [], 0.0, 0.0
    for key in order:
        rows, usd_sum, w_sum, _count = _bom_rows(groups[key], pods, money)
        total_usd += usd_sum
        total_w += w_sum
        if len(order) > 1:
            body.append(f'<tr class="fp-group" data-network="{html_text(key)}"><td colspan="{len(headers)}">'
                        f"{html_text(network_name(key, 'bill'))}</td></tr>")
        body += [tr(r) for r in rows]
        if len(order) > 1:
            body.append(tr(_bom_line(pods, category=_("Subtotal"), item=network_name(key, "bill"),
                                     extended_price_usd=money[1][usd_sum], extended_power_w=number(w_sum)),
                           "fp-subtotal", f' data-network="{html_text(key)}" data-subtotal-usd="{usd_sum:.2f}"'))
    body.append(tr(_bom_line(pods, category=_("Total"), extended_price_usd=money[1][total_usd],
                             extended_power_w=number(total_w)),
                   "fp-total", f' data-total-usd="{total_usd:.2f}" data-total-w="{total_w:.2f}"'))
    head = "".join(f'<th class="{"num" if kind == "num" else ""}">{html_text(h)}</th>' for kind, h in zip(kinds, headers))
    return f'<table class="fp-bom fp-dense" data-bom="all"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _cost(doc: _Doc, plan) -> None:
    from core.analysis.whole import whole_plan
    from core.figures.cost import capex_figure, power_figure, price_sensitivity_figure

    plan = whole_plan(plan)  # a design with pods: the mixed bill
    body = doc.figure(capex_figure(plan), 360) + doc.figure(power_figure(plan), 360)
    body += doc.figure(price_sensitivity_figure(plan), 360)
    doc.section("cost", _("Cost and power"), body)
    body = _p(_("Part names are the catalog's, quoted as published. Capex {capex}, at {basis} prices (range {range}); "
                "IT power {power}.").format(
        capex=usd(plan.cost.capex_usd), basis=vocab.PRICE_BASES.label(plan.cost.price_basis),
        range=units.money_range(plan.cost.capex_usd_low, plan.cost.capex_usd_high), power=units.power(plan.cost.it_kw)), note=True)
    if plan.cost.spares_capex_usd:  # Design.spares: spare rows follow each network's installed rows
        body += _p(_("Capex includes {usd} of spares (sparing policy {policy}): their rows follow the installed "
                     "ones, each with its rule in its why, at no power (on a shelf).").format(
            usd=usd(plan.cost.spares_capex_usd),
            policy=policy_words(plan.design.spares)), note=True)
    body += _bom_table(plan.bom)
    if plan.reserved_bom:
        money = _bill_money(plan.reserved_bom, [sum(r.extended_price_usd for r in plan.reserved_bom)])
        rrows, rusd, rw, _c = _bom_rows(plan.reserved_bom, money=money)
        body += _h3(_("Reserved for growth"))
        body += _p(_("Not in the totals above: what growing to {nodes} nodes still buys, {usd}.").format(
            nodes=number(plan.design.grow_to), usd=usd(plan.reserved_network_capex_usd)), note=True)
        classes = {i: kind for i, kind in enumerate(_BOM_COLUMNS[c] for c in _bom_columns()) if kind != "num"}
        numeric = {i for i, c in enumerate(_bom_columns()) if _BOM_COLUMNS[c] == "num"}
        body += _table(_bom_headers(), rrows, numeric, classes,
                       _bom_line(False, category=_("Total"), extended_price_usd=money[1][rusd], extended_power_w=number(rw)),
                       table_class="fp-bom fp-dense")
    doc.section("bom", _("Bill of materials"), body)


def _networks(doc: _Doc, plan) -> None:
    """Storage, in-band and out-of-band networks (``Plan.networks``, ``Plan.summary()["networks"]``), when present;
    a design with pods: the totals and every pod's own (``core.formats.podreport.pods_networks``)."""
    from core.figures.cost import networks_note
    from core.formats.podreport import pods_networks

    networks = getattr(plan, "networks", None)
    if networks is None:
        return
    summary = _summary(plan).get("networks") or {}
    shown = [(key, summary[key]) for key in NETWORK_ORDER if isinstance(summary.get(key), Mapping)]
    capex = units.money_column([s.get("capex_usd", 0.0) for _key, s in shown])  # the column's decimals picked once
    rows = [[network_name(key, "bill"), number(s.get("switches", 0)), number(s.get("links", 0)),
             number(s.get("transceivers", 0)), amount, units.kw(s.get("power_kw", 0.0))]
            for (key, s), amount in zip(shown, capex)]
    body = _table([_("network"), _("switches"), _("links"), _("transceivers"), in_currency(_("capex USD")), _("power kW")], rows,
                  {1, 2, 3, 4, 5}) if rows else ""
    body += _p(networks_note(plan), note=True) if rows and networks_note(plan) else ""
    body += "".join(_network_details(sizings, word) for word, sizings in pods_networks(plan, networks))
    doc.section("networks", _("Storage and management networks"), body or _p(_("No other networks sized."), True))


def _network_details(networks, word: str = "") -> str:
    """Per network of ``networks`` (``Plan.networks``) its fabric, switches, devices, links and explanation as HTML;
    ``word``: the pod they belong to (``pod 2``), before each heading."""
    body = ""
    for key in NETWORK_ORDER[1:]:
        sizing = getattr(networks, key, None)
        if sizing is None:
            continue
        body += _h3(_("{pod}: {network}").format(pod=word, network=network_name(key, "bill")) if word
                    else network_name(key, "bill"))
        body += _p(sizing_headline(key, sizing))
        for table in sizing_tables(sizing):
            rows = [[number(v) if kind == "count" else v for v, kind in zip(row, table.kinds)] for row in table.rows]
            body += _table(table.headers, rows, {i for i, kind in enumerate(table.kinds) if kind == "count"},
                           {i: kind for i, kind in enumerate(table.kinds) if kind in ("id", "why")})
        body += _list(sizing_explanation(sizing))
    return body


def _physical(doc: _Doc, plan) -> None:
    """Racks, rows, cable lengths and media (``Plan.layout``, ``Plan.lengths``, ``Plan.media``), when present; a
    design with pods: the whole hall (``core.formats.podreport.pods_physical_html``)."""
    layout = getattr(plan, "layout", None)
    if layout is None:
        return
    if plan.design.pods:
        from core.formats.podreport import pods_physical_html

        body = pods_physical_html(plan)
        if body:
            doc.section("physical", _("Racks and cabling"), body)
            return
    racks = plan.racks_summary() if hasattr(plan, "racks_summary") else (_summary(plan).get("racks") or {})
    body = racks_html(layout, racks)
    body += lengths_html([("", x) for x in getattr(plan, "lengths", ()) or ()],
                         [("", m) for m in getattr(plan, "media", ()) or ()], plan.fabric.family)
    body += _list(getattr(layout, "notes", ()) or ())
    doc.section("physical", _("Racks and cabling"), body or _p(_("No rack layout."), True))


def racks_html(layout, racks: Mapping, tags: Mapping[int, str] | None = None) -> str:
    """The racks table of ``racks`` (``Layout.summary``) and the rows of ``layout``, as HTML; ``tags``: 0-based row
    -> whose racks stand in it, after the row's kind (a hall of pods)."""
    body = ""
    if isinstance(racks, Mapping) and racks:
        rows = [[_("compute racks"), number(racks.get("compute", 0))],
                [_("network racks"), number(racks.get("network", 0))],
                [_("storage racks"), number(racks.get("storage", 0))],
                [_("management racks"), number(racks.get("management", 0))],
                [_("racks in total"), number(racks.get("total", 0))],
                [_("rows"), number(racks.get("rows", 0))],
                [_("most power in one rack [kW]"), units.kw(racks.get("max_kw_per_rack", 0.0))]]
        if racks.get("power_limit_kw"):
            rows.append([_("power limit per rack [kW]"), units.kw(racks["power_limit_kw"])])
        if racks.get("floor_area_m2"):
            rows.append([_("floor area [m²]"), number(racks["floor_area_m2"], 1)])
        body += _table([_("racks"), _("count")], rows, {1})
    kinds = {"compute": _("compute"), "network": _("network"), "storage": _("storage"), "management": _("management")}
    listed = list(getattr(layout, "racks", ()) or ())
    row_list = list(getattr(layout, "rows", ()) or ())
    if row_list and listed:
        by_row: dict[int, dict] = {}
        for rack in listed:
            entry = by_row.setdefault(getattr(rack, "row", 0), {"kw": 0.0, **{k: 0 for k in kinds}})
            entry["kw"] += float(getattr(rack, "kw", 0.0) or 0.0)
            if getattr(rack, "kind", "") in kinds:
                entry[rack.kind] += 1
        row_kinds = {"compute": _("compute row"), "central": _("central row (network and storage)")}
        rows = []
        for row in row_list[:MAX_ROWS_LISTED]:
            e = by_row.get(row.index, {"kw": 0.0, **{k: 0 for k in kinds}})
            kind = row_kinds.get(row.kind, row.kind)
            if tags and tags.get(row.index):
                kind = _("{kind} ({whose})").format(kind=kind, whose=tags[row.index])
            rows.append([number(row.index + 1), kind, number(row.racks),
                         number(e["compute"]), number(e["network"]), number(e["storage"] + e["management"]),
                         number(row.length_m, 1), number(e["kw"], 1)])
        body += _h3(_("Rows"))
        body += _table([_("row"), _("kind"), _("racks"), _("compute"), _("network"), _("storage and management"),
                        _("length [m]"), _("kW")], rows, {0, 2, 3, 4, 5, 6, 7})
        if len(row_list) > MAX_ROWS_LISTED:
            body += _p(_("... and {count} more rows (the cabling plan and NetBox exports list every rack).").format(
                count=number(len(row_list) - MAX_ROWS_LISTED)), note=True)
    return body


def lengths_html(lengths: list[tuple], media: list[tuple], family: str | None = None) -> str:
    """The cable lengths and media-by-length tables of ``(pod word or "", LinkLengths)`` and ``(pod word or "",
    MediaBin)`` pairs (a first "pod" column when any pod word is given), as HTML; a media kind in the words of
    ``core.physical.media.KIND_LABELS``, as the Racks tab names it; a link class in ``family``'s words
    (``core.cost.link_class_words``)."""
    from core.cost import link_class_words
    from core.physical.media import KIND_LABELS

    def cls(link_class: str) -> str:
        return link_class_words(link_class, family)

    pods = any(word for word, _x in (*lengths, *media))
    head = [_("Pod")] if pods else []
    body = ""
    if lengths:
        rows = [[word] * pods + [cls(x.link_class), number(x.links), number(x.mean_m, 1), number(x.max_m, 1),
                                 number(x.total_m)] for word, x in lengths]
        body += _h3(_("Cable lengths"))
        body += _table(head + [_("link class"), _("links"), _("mean [m]"), _("longest [m]"), _("total [m]")], rows,
                       {c + pods for c in (1, 2, 3, 4)})
    if media:
        rows = []
        for word, m in media:
            parts = [x for x in (m.cable_id, m.switch_module_id, m.node_module_id, getattr(m, "fibre_id", "")) if x]
            span = (units.span(units.metres(m.low_m), units.metres(m.high_m)) if math.isfinite(m.high_m)
                    else f"≥ {number(m.low_m, 1)}")
            rows.append([word] * pods + [cls(m.link_class), span, number(m.links), units.metres(m.max_m, m.high_m),
                                         _(KIND_LABELS[m.kind]), ", ".join(dict.fromkeys(parts))])
        body += _h3(_("Media by length"))
        body += _table(head + [_("link class"), _("length [m]"), _("links"), _("longest [m]"), _("media"),
                               _("parts")], rows, {2 + pods, 3 + pods}, {5 + pods: "id"})
    return body


def _growth(doc: _Doc, plan) -> None:
    """Growth stages (``Design.stages``, ``grow_to``), when the design has them: per step what is bought and which
    cables move (``core.analysis.stages``: ``growth``, ``stage_rows``, as the Racks & cabling tab and the CLI)."""
    from core.analysis.stages import (POD_STAGES_ONLY, STAGE_COLUMNS, growth, has_stages, moved_rows, stage_headers,
                                      stage_rows, stages_note)

    if not has_stages(plan.design, plan.resolved.nodes):
        return
    title = _("Growth stages")
    note = stages_note(plan.design)  # a design with pods: its pods' stages
    if note is None:
        doc.section("growth", title, _p(_(POD_STAGES_ONLY).format(example="B200:32@1"), note=True))
        return
    try:
        deltas = growth(plan.design)
    except FabricPlannerError as exc:
        doc.section("growth", title, _p(str(exc), note=True))
        return
    kinds = [kind for _header, kind in STAGE_COLUMNS.values()]
    shown = {"count": number, "usd": usd, "text": str}
    rows = [[shown[kind](value) for kind, value in zip(kinds, row.values())] for row in stage_rows(deltas)]
    body = _p(note, note=True)
    body += _table(list(stage_headers().values()), rows, {i for i, k in enumerate(kinds) if k != "text"},
                   {0: "term", len(kinds) - 1: "term"}, table_class="fp-dense")
    moved = [[step, name, number(count)] for step, name, count in moved_rows(deltas)]
    if moved:
        body += _h3(_("Re-terminated cables by link class"))
        body += _table([_("Step [nodes]"), _("link class"), _("Re-terminated")], moved, {2}, {0: "term", 1: "term"})
    doc.section("growth", title, body)


def _pods(doc: _Doc, plan) -> None:
    """Mixed pods under one spine layer (``Design.pods``), when the design has them: the lines of
    ``core.analysis.pods.pods_lines``, as ``python -m core plan`` prints them."""
    from core.analysis.podcoreplan import three_tiers_note
    from core.analysis.pods import mixed_plan, pods_lines, pods_summary, pods_title

    if not plan.design.pods:
        return
    try:
        summary = pods_summary(mixed_plan(plan.design))
    except FabricPlannerError as exc:
        doc.section("pods", pods_title(None), _p(str(exc), note=True))
        return
    title = pods_title(summary)
    lines = pods_lines(summary, doc.unit)
    body = _p(_("The numbers above are the whole design's: every pod's nodes and leaves, the shared spines and "
                "the mixed bill. Each pod has its own leaves sized for its nodes and NIC speed; the spine layer is "
                "shared and sized for the sum of their uplinks.") if "cores" not in summary else three_tiers_note(),
              note=True)
    doc.section("pods", title, body + _table([_("part of the fabric"), _("sizing")], [list(line) for line in lines],
                                                 classes={0: "term"}))


def job_pod(plan, job: Mapping | None) -> int:
    """The pod (1-based) the Performance page's training job ``job`` (its settings) runs on in ``plan``'s design
    with pods: its ``pod`` setting, pod 1 when out of range (as ``core.analysis.whole.pod_plan``)."""
    from core.analysis.whole import pod_count

    pod = int((job or {}).get("pod", 1))
    return pod if 1 <= pod <= pod_count(plan.design) else 1


def _performance(doc: _Doc, plan, job: Mapping | None):
    """The collectives and the Performance page's training job (``job``: its settings); returns the job's estimate
    (None when the job does not fit)."""
    from core.figures.keynumbers import cards_html, training_key_numbers
    from core.figures.perf import busbw_figure, collective_table_rows, step_figure
    from core.perf import congestion, jobform
    from core.perf.collectives import size_sweep, sweep, validation_badge

    pod_words, pod = None, 1
    if plan.design.pods:  # the job runs on one pod, as on the Performance page (core.analysis.whole.pod_plan)
        from core.analysis.whole import pod_plan

        pod = job_pod(plan, job)
        try:
            plan, pod_words = pod_plan(plan, pod, doc.unit)
        except FabricPlannerError:
            pass  # the Mixed pods section says why
    settings = report_job_settings(plan, job)
    r = plan.resolved
    sharp = sharp_used(plan, str(settings.get("sharp", "0")) == "1")  # only where switches reduce
    library = library_label(r.system.collective_library)
    model = _("{library}-style latency-bandwidth model on every {noun} of the design ({gpus} {nouns}), {library}'s "
              "stock algorithm choice{sharp}; routing: {routing}.") if not pod_words else _(
        "{library}-style latency-bandwidth model on every {noun} of pod {pod} ({gpus} {nouns}), {library}'s stock "
        "algorithm choice{sharp}; routing: {routing}.")
    body = (_p(pod_words, note=True) if pod_words else "") + _p(model.format(
        library=library, noun=scaleup.accelerator_noun(r.system), gpus=number(r.gpus), pod=pod,
        nouns=scaleup.accelerator_noun(r.system, plural=True),
        sharp=_(", InfiniBand SHARP on") if sharp else "", routing=_routing(plan, settings)), note=True)
    if r.system.collective_library != "nccl":
        body += _p(_("Collective library: {library}, the system's own; its algorithms replace NCCL's.").format(
            library=library), note=True)
    try:
        with congestion.assumptions(settings.get("rt", "auto"), settings.get("pl", "topo")):
            rows = jobform.collective_rows(plan, COLLECTIVE_OPS, r.gpus, REPORT_SIZES, sharp=sharp)
            curves = [sweep(plan, "all-reduce", size_sweep(8, 16 * 2**30, 48), gpus=r.gpus,
                            **jobform.sharp_option(sharp))]
        badge = validation_badge(curves)
        body += _h3(_("Collectives")) + (_p(badge) if badge else "") + doc.figure(
            busbw_figure(curves, show_all_algorithms=False, height=420, system=r.system), 420)
        body += _frame_table(collective_table_rows(rows, doc.unit))  # as the Performance page writes it
    except FabricPlannerError as exc:
        body += _p(_("Collectives: {problem}").format(problem=str(exc)))
    body += _h3(_("Training step"))
    estimate = None
    try:
        training = jobform.job_from_settings(plan, settings)
        estimate = jobform.estimate_under(plan, training, settings)
    except FabricPlannerError as exc:
        body += _p(_("Training job: {problem}").format(problem=str(exc)))
    else:
        job = _("The Performance page's job: {model}, {gpus} GPUs, {split}, global batch {gbs}, sequence {seq}, "
                "{precision}, {tokens} T tokens.").format(
            model=training.model.name, gpus=number(training.gpus),
            split=jobform.split_words(tp=settings["tp"], pp=settings["pp"], cp=settings["cp"]),
            gbs=number(int(settings["gbs"])), seq=number(int(settings["seq"])), precision=settings["prec"],
            tokens=f"{float(settings['tok']):g}")
        body += _p(sentences(job, jobform.batch_note(plan, settings)), note=True)  # why 1,026, as the page says
        body += cards_html(training_key_numbers(estimate))
        body += doc.figure(step_figure({jobform.fabric_label(plan): estimate}, height=260), 260)
        body += _frame_table(jobform.communication_rows(estimate, plan.resolved.system))
        body += _p(jobform.memory_caption(estimate, training.model.name, settings), note=True)
    doc.section("performance", _("Performance"), body)
    return estimate


def _routing(plan, settings: Mapping) -> str:
    from core.perf import congestion, jobform

    with congestion.assumptions(settings.get("rt", "auto"), settings.get("pl", "topo")):
        return jobform.routing_label(plan)


def _resilience(doc: _Doc, plan, resilience: Mapping | None = None, naming=None) -> tuple:
    """Single points of failure and the availability the Resilience page shows under its settings
    (``resilience``: ``core.formats.resiliencelink`` values; None = the page's defaults), elements named as the
    exports name them under ``naming`` (``failure_namer``); returns (``SpofResult`` or None, ``Availability`` or
    None)."""
    from core.analysis.failure import TIER_LABELS, tier_label
    from core.analysis.spof import headline, remedy_label, single_points

    def tier(t: str) -> str:  # as the page's table: the system's and the fabric family's words (a Dragonfly's)
        return tier_label(t, plan.resolved.system, plan.fabric.family) if t in TIER_LABELS else t

    try:
        result = single_points(plan)
    except FabricPlannerError as exc:  # a topology family the closed forms do not model: said, not guessed
        doc.section("resilience", _("Resilience"), _p(str(exc), note=True))
        return None, None
    body = _p(headline(result.count, number(result.count)))
    if result.count:
        tiers: dict[str, list] = {}
        for e in result.elements:
            tiers.setdefault(e.tier, []).append(e)
        remedies = units.money_column([es[0].remedy_capex_usd for es in tiers.values()])  # decimals picked once
        rows = [[tier(t), number(len(es)), number(max(e.gpus_lost for e in es)), remedy_label(es[0]),
                 _("cost unknown") if es[0].remedy_capex_usd is None else remedy]
                for (t, es), remedy in zip(tiers.items(), remedies)]
        body += _table([_("tier"), _("elements"), _("GPUs lost (most)"), _("remedy"), _("remedy adds ({fabric} capex)").format(fabric=vocab.compute_fabric())],
                       rows, {1, 2, 4})
        from core.analysis.failure.spec import failure_namer
        from core.figures.topology import element_name

        names = failure_namer(plan, naming)  # as the page's table: the exports' names, the id in brackets
        named = [[element_name(plan.fabric.family, e.element, names), tier(e.tier), number(e.gpus_lost)]
                 for e in result.elements[:MAX_SPOF_ROWS]]
        body += _table([_("element"), _("tier"), _("GPUs lost")], named, {2})
        if result.count > MAX_SPOF_ROWS:
            body += _p(_("... and {more} more (python -m core spof --format json lists every one).").format(
                more=number(result.count - MAX_SPOF_ROWS)), note=True)
    body += _list(result.notes)
    text, a = _availability(plan, resilience)
    doc.section("resilience", _("Resilience"), body + text)
    return result, a


def _availability(plan, resilience: Mapping | None) -> tuple[str, object]:
    """The availability section's HTML and its ``Availability`` (None when the engine cannot compute it): the
    Resilience page's figure (``resiliencelink.availability_of``: same trials, seed, job size and rates)."""
    from core.formats.resiliencelink import DEFAULTS, availability_of

    values = {**DEFAULTS, **(resilience or {})}
    if plan.design.pods:  # the whole fabric, every pod, as the Resilience page (core.formats.podreport)
        from core.formats.podreport import pods_availability_html

        return pods_availability_html(plan, values)
    try:
        a = availability_of(plan, values)
    except FabricPlannerError:
        return "", None
    body = _h3(_("Availability"))
    gpn = plan.resolved.gpus_per_node
    smaller = a.job_gpus - a.spare_nodes_for_99pct * gpn
    spared = None
    if a.spare_nodes_for_99pct and smaller >= gpn:
        try:
            spared = availability_of(plan, {**values, "jg": smaller})
        except FabricPlannerError:
            spared = None
    whole = a.job_gpus == plan.resolved.gpus
    rows = [[_("share of time a job on every GPU can run") if whole else
             _("share of time a job on {gpus} GPUs can run").format(gpus=number(a.job_gpus)),
             units.percent(a.job_run_fraction)]]
    if spared is not None:
        rows.append([_("share of time a job on {gpus} GPUs (the spare nodes held back) can run").format(
            gpus=number(smaller)), units.percent(spared.job_run_fraction)])
    rows += [
            [_("GPUs usable on average"), number(a.expected_gpus_usable, 1)],
            [_("failures per day, whole cluster"), units.number(a.interruptions_per_day)],
            [_("spare nodes for a job that runs 99% of the time"), number(a.spare_nodes_for_99pct)],
            [_("bandwidth left on average"), units.percent(a.expected_bandwidth_share)]]
    body += _table([_("measure"), _("value")], rows, {1}) + _monte_carlo_note(a.trials, values)
    for note in a.notes:  # a cloud instance's adapters: the provider's links and switches are left out
        body += _p(note, note=True)
    return body, a


def _monte_carlo_note(trials: int, values: Mapping) -> str:
    """The availability's method note: ``trials`` Monte Carlo trials and the failure-rate changes of the Resilience
    page's settings ``values``."""
    from core.formats.resiliencelink import format_rates

    rates = format_rates(values.get("rate") or ())
    return _p(_("Seeded Monte Carlo, {trials} trials, as on the Resilience page; failure rates and repair times "
                "per element class from the catalog's reliability table{overrides}.").format(
        trials=number(trials), overrides=_(", with the page's changes: {rates}").format(rates=rates) if rates
        else ""), note=True)


def _failure_scenario(doc: _Doc, plan, resilience: Mapping | None, job: Mapping | None, naming=None):
    """The Resilience page's failure what-if (its failed elements, ``resilience["fail"]``) and what it does to the
    design; nothing when nothing failed. Returns the ``FailureResult`` (None without one); a design with pods: the
    page's whole-fabric what-if (``core.formats.podreport.pods_failure_html``) and its ``PodsScenario``. Elements
    are named as the exports name them under ``naming`` (None: the default names)."""
    from core.analysis.failure import what_if
    from core.figures.resilience import failed_vertices, failure_topology_figure, what_if_rows
    from core.formats.resiliencelink import check_failures
    from core.perf import congestion, jobform

    specs = tuple((resilience or {}).get("fail") or ())
    if not specs:
        return None
    if plan.design.pods:  # the Resilience page's what-if of a design with pods: the whole fabric's
        from core.formats.podreport import pods_failure_html

        body, scenario = pods_failure_html(plan, specs, doc.unit, naming)
        if body:
            doc.section("failure-scenario", _("Failure scenario"), body)
        return scenario
    good, problems = check_failures(plan, specs)
    if not good:
        doc.section("failure-scenario", _("Failure scenario"), _list(problems))
        return None
    settings = report_job_settings(plan, job)
    try:
        with congestion.assumptions(settings.get("rt", "auto"), settings.get("pl", "topo")):
            try:
                training = jobform.job_from_settings(plan, settings)
            except FabricPlannerError:
                training = None
            result = what_if(plan, list(good), job=training, naming=naming)
    except FabricPlannerError as exc:
        doc.section("failure-scenario", _("Failure scenario"), _p(str(exc)))
        return None
    from core.analysis.failure.spec import export_namer

    names = export_namer(plan, naming)
    said = (lambda element: element) if names is None else names.name  # the exports' names (leaf004, gpu006 nic3)
    body = _p(_("Failed on the Resilience page: {elements}.").format(elements=", ".join(said(g) for g in good)))
    chosen = [said(f["element"]) for f in result.failed if f["chosen"]]
    if chosen:
        body += _p(_("Chosen where it hurts most: {elements}").format(elements=", ".join(chosen[:20])), note=True)
    body += _table([_("number"), _("healthy"), _("failed")], [list(r) for r in what_if_rows(result, doc.unit, plan.resolved.system)],
                   {1, 2})
    body += doc.figure(failure_topology_figure(plan, failed_vertices(plan, result), unit=doc.unit, height=560), 560)
    body += _list(list(result.notes) + problems)
    doc.section("failure-scenario", _("Failure scenario"), body)
    return result


def _comparison_reference(doc: _Doc, compare_link: str) -> None:
    """A pointer to the Compare page's comparison (its link), when the session has one."""
    if not compare_link:
        return
    body = _p(_("This design was compared with others on the Compare page; the comparison opens at this link "
                "(its own review pack is built there):"))
    body += f'<p class="fp-link">{_link(compare_link)}</p>'
    doc.section("comparison", _("Comparison"), body)


def _catalog_entries(plan) -> list:
    """The catalog entries the design's bill of materials uses (its system first), once each."""
    entries = {e.id: e for _kind, e in domainlevels.bill_entries()}  # the second NVLink level's parts too
    ids = [plan.resolved.system.id] + [r.catalog_id for r in plan.bom]
    return [entries[i] for i in dict.fromkeys(ids) if i in entries]


def _catalog_rows(plan) -> list[list]:
    """The internal edition's rows: each entry's source and price source as the catalog records them."""
    rows = []
    for e in _catalog_entries(plan):
        price = getattr(e, "price_source", "")
        basis = vocab.PRICE_BASES.label(getattr(e, "price_basis", "")) if getattr(e, "price_basis", "") else ""
        rows.append([e.id, e.name, e.source, e.as_of, basis, price])
    return rows


def _citation_rows(plan) -> list[list]:
    """The customer edition's rows: each entry's documents (``core.formats.citation.source_citation``: the vendor's
    where the catalog grades any so), its date, its price with its range, and the price's basis with its date
    (``price_basis_text``: never the shop or blog it was read in), or "estimate"."""
    from core.formats.citation import price_basis_text, source_citation

    rows = []
    for e in _catalog_entries(plan):
        prefix = "node_" if hasattr(e, "node_price_usd") else ""  # a system is priced per node
        price, shown = getattr(e, prefix + "price_usd", None), ""
        if price is not None:
            low, high = getattr(e, prefix + "price_low_usd", None), getattr(e, prefix + "price_high_usd", None)
            shown = usd(price) if low is None or high is None else _("{price} (range {range})").format(
                price=usd(price), range=units.money_range(low, high))
        rows.append([e.name, e.id, source_citation(e), e.as_of, shown, price_basis_text(e) if price is not None else ""])
    return rows


def _sources(doc: _Doc, plan, edition: str) -> None:
    """Every catalog entry the BOM uses with where its numbers come from: clean citations (customer edition) or
    the catalog's research notes (internal edition)."""
    if edition == "internal":
        body = _p(_("Every catalog entry this design's bill of materials uses, with where its numbers come from and "
                    "when they were checked (assets/catalog/*.toml; the Catalog & assumptions page lists the whole "
                    "catalog). Internal edition: the catalog's research notes as recorded."), note=True)
        body += _table([_("catalog id"), _("name"), _("source"), _("as of"), _("price basis"), _("price source")],
                       _catalog_rows(plan), classes={0: "id", 1: "quoted", 2: "why quoted", 3: "date",
                                                     5: "why quoted"}, table_class="fp-dense")
    else:
        body = _p(_("Every part this design's bill of materials uses: the vendor documents its figures come from and "
                    "when they were checked, its price with its range, and the price's basis (street, list or "
                    "hyperscale, as the Catalog & assumptions page defines them) with the date of the price. A part "
                    "with no public source says so: its figures are an assumption, its price an estimate."), note=True)
        body += _table([_("name"), _("catalog id"), _("source"), _("as of"), _("price"), _("price basis")],
                       _citation_rows(plan), classes={0: "quoted", 1: "id", 2: "why quoted", 3: "date", 5: "why quoted"},
                       table_class="fp-dense")
    doc.section("sources", _("Sources"), body)


def _assumptions(doc: _Doc, plan, edition: str = "customer") -> None:
    """The price and power bases, the money note, a second NVLink level's assumptions (the catalog's notes in the
    internal edition, told from its figures in the customer's: ``core.fabric.domainlevels``) and the plan's notes."""
    levels = (domainlevels.assumption_lines if edition == "internal" else domainlevels.customer_assumption_lines)
    body = _list(own=True, items=[
        _("Prices: the catalog's price book at the design's price basis ({basis}: street = typical, list = high, "
          "hyperscale = low) unless overridden; the low and high capex put every price at its range's end.").format(
            basis=vocab.PRICE_BASES.label(plan.cost.price_basis)),
        _("Power: nodes at their maximum power, network parts at typical power; energy assumes that draw around the "
          "clock (an upper bound), PUE {pue}, {price}/kWh, TCO over {years} years (capex + energy; staff, space, "
          "maintenance and financing not included).").format(
            pue=f"{plan.cost.pue:g}", price=usd(plan.design.electricity_usd_per_kwh, cents=True),
            years=f"{plan.cost.tco_years:g}"),
        _("Collectives and training: constants and sources in the catalog's collective and training constants; "
          "failure rates in its reliability table."),
        money_note(),
        *levels(plan.resolved),  # two NVLink levels
    ])
    overrides = {**plan.resolved.price_overrides}
    if overrides:
        body += _p(_("Price overrides: {items}.").format(items=", ".join(f"{k} = {usd(v)}" for k, v in overrides.items())))
    notes = list(plan.resolved.notes)
    if notes:
        body += _h3(_("Notes on this design")) + _list(notes)
    doc.section("assumptions", _("Assumptions and price basis"), body)


def _design_parts(plan, *, name: str, share_link: str, job: Mapping | None = None, generated: datetime | None = None,
                  unit: str = "GB/s", cover: Cover | None = None, resilience: Mapping | None = None,
                  compare_link: str = "", naming=None) -> tuple[_Doc, str]:
    """The sections of one design's report and its cover, computed once for both the HTML and the PDF (the
    options as ``design_report_html`` takes them); ``core.progress`` hears of each section done."""
    from core import progress

    cover = cover or Cover()
    title = cover_text(name) or design_title(plan)
    doc = _Doc(_("{name}: design review").format(name=title), unit=unit)
    facts: dict = {}

    def performance(d, p):
        facts["estimate"] = _performance(d, p, job)
        facts["pod"] = job_pod(p, job) if p.design.pods else None

    def resilience_section(d, p):
        facts["spof"], facts["availability"] = _resilience(d, p, resilience, naming)

    def scenario(d, p):
        facts["scenario"] = _failure_scenario(d, p, resilience, job, naming)

    steps = (_key_numbers, _topology, _bandwidth, _cost, _networks, _physical, _pods, _growth, performance,
             resilience_section,
             scenario, lambda d, p: _comparison_reference(d, compare_link), lambda d, p: _assumptions(d, p, cover.edition),
             lambda d, p: _sources(d, p, cover.edition))
    for i, step in enumerate(steps):
        step(doc, plan)
        progress.report(i + 1, len(steps))
    return doc, _title_page(title, [_design_line(plan)], share_link, generated, _("Design review"), cover,
                            _executive_summary(plan, unit, facts))


def design_report_html(plan, *, name: str, share_link: str, job: Mapping | None = None,
                       generated: datetime | None = None, unit: str = "GB/s", cover: Cover | None = None,
                       resilience: Mapping | None = None, compare_link: str = "", naming=None) -> str:
    """The review pack of one design as one self-contained HTML file (module docstring); ``generated`` is the
    date of issue on the cover (now, UTC, by default); bandwidth in ``unit`` ("GB/s" or "Gb/s"); ``name`` the
    title (empty: ``design_title``); ``cover`` customer, author, version and edition (``Cover``: the customer
    edition by default); ``job`` the Performance page's settings; ``resilience`` the Resilience page's
    (``core.formats.resiliencelink`` values: failed elements, job size, failure rates); ``compare_link`` the
    Compare page's link when the session has a comparison; ``naming`` the exports' naming scheme the failure views
    name elements by (a ``core.fabric.naming.NamingScheme``; None: the default names)."""
    doc, title_page = _design_parts(plan, name=name, share_link=share_link, job=job, generated=generated, unit=unit,
                                    cover=cover, resilience=resilience, compare_link=compare_link, naming=naming)
    return doc.render(title_page)


def design_report_pdf(plan, *, name: str, share_link: str, job: Mapping | None = None,
                      generated: datetime | None = None, unit: str = "GB/s", cover: Cover | None = None,
                      resilience: Mapping | None = None, compare_link: str = "", naming=None) -> bytes:
    """The review pack of one design as an A4 PDF: the same content with the charts as drawn SVG, printed by
    Chromium, page numbers in the footer and in the table of contents."""
    _warm_printer()
    doc, title_page = _design_parts(plan, name=name, share_link=share_link, job=job, generated=generated, unit=unit,
                                    cover=cover, resilience=resilience, compare_link=compare_link, naming=naming)
    return _pdf(doc, title_page)


def design_report_files(plan, **options) -> tuple[str, bytes | None, str]:
    """The HTML and the PDF of one design's review pack from one computation of its sections: (HTML, PDF or
    None, why there is no PDF: Chromium missing or failing). ``options``: ``design_report_html``'s keywords.
    ``core.progress`` hears of the sections (the first 60 %), the charts and the printing."""
    return _files(_design_parts, plan, options)


def _files(parts, subject, options: Mapping) -> tuple[str, bytes | None, str]:
    """``parts(subject, **options)`` (a doc and its title page) rendered as HTML and printed as a PDF."""
    from core import progress

    _warm_printer()
    with progress.span(0.0, 0.6):
        doc, title_page = parts(subject, **options)
    html = doc.render(title_page)
    try:
        with progress.span(0.6, 1.0):
            return html, _pdf(doc, title_page), ""
    except (InputError, OSError, RuntimeError) as exc:  # no Chromium here: the HTML still works
        return html, None, str(exc)


def _pdf(doc: _Doc, title_page: str) -> bytes:
    """``doc`` printed: its charts drawn as SVG first (the printed page then needs no script)."""
    from core import progress

    charts = _chart_images(doc.figures)
    progress.report(1, 2)
    pdf = html_to_pdf(doc.render(title_page, charts), footer=doc.title)
    progress.report(2, 2)
    return pdf


# --- a comparison ----------------------------------------------------------------------------------------
def _comparison_parts(comparison, *, name: str, share_link: str, generated: datetime | None = None,
                      unit: str = "GB/s", cover: Cover | None = None) -> tuple[_Doc, str]:
    from core.figures import compare as figs
    from core.figures.keynumbers import cards_html, key_numbers

    title = name.strip() or _("Design comparison")
    doc = _Doc(_("{name}: design comparison").format(name=title), unit=unit)
    rows, verdicts = figs.comparison_rows(comparison, unit)
    if rows:
        headers = list(rows[0])
        cells = [[r[h] for h in headers] for r in rows]
        marks = [[v.get(h) if v.get(h) in ("better", "worse") else None for h in headers] for v in verdicts]
        body = _p(_("Deltas are against the baseline, {name}; green is better, red worse.").format(
            name=figs.design_header(comparison.baseline, comparison.columns[comparison.baseline].name)), note=True)
        body += _table(headers, cells, set(range(2, len(headers))), row_classes=marks) + _p(money_note(), note=True)
    else:
        body = ""
    doc.section("numbers", _("Numbers"), body)
    bom = figs.bom_rows(comparison) if len(comparison.columns) > 1 else []
    doc.section("bom-changes", _("Bill of materials: what changes"),
                _frame_table(bom) if bom else _p(_("The designs have the same bill of materials.")))
    charts = (doc.figure(figs.cost_figure(comparison), 380)
              + doc.figure(figs.bandwidth_figure(comparison, unit=unit), 400))
    if any("days_to_train" in c.values for c in comparison.columns):
        charts += doc.figure(figs.days_figure(comparison), 340)
    doc.section("charts", _("Charts"), charts)
    for i, column in enumerate(comparison.columns):
        head = figs.design_header(i, column.name)
        if column.plan is None:
            body = _p(_("This design cannot be built: {problem}").format(problem=column.error or ""))
        else:
            body = _p(_design_line(column.plan)) + cards_html(key_numbers(_summary(column.plan), unit))
            if column.job is not None and "days_to_train" in column.values:
                from core.perf.jobform import job_caption

                body += _p(job_caption(column.job, column.plan), note=True)
            body += _list(list(column.plan.resolved.notes) + column.all_notes(unit))
            body += _h3(_("How the fabric was sized")) + _list(column.plan.fabric.explanation)
        doc.section(f"design-{i + 1}", head, body)
    subtitle = [ngettext("{count} design side by side", "{count} designs side by side", len(comparison.columns)).format(
        count=len(comparison.columns))] + [figs.design_header(i, c.name) for i, c in enumerate(comparison.columns)]
    return doc, _title_page(title, subtitle, share_link, generated, _("Design comparison"), cover or Cover(),
                            edition=False)


def comparison_report_html(comparison, *, name: str, share_link: str, generated: datetime | None = None,
                           unit: str = "GB/s", cover: Cover | None = None) -> str:
    """A comparison (``core.analysis.compare.Comparison``, as the Compare page builds it) as one self-contained
    HTML file: the numbers with deltas, the BOM difference, the grouped charts, one short section per design;
    bandwidth in ``unit`` ("GB/s" or "Gb/s"); ``cover`` the customer, author and version on its cover (it has no
    catalog sources, so its edition is not shown)."""
    doc, title_page = _comparison_parts(comparison, name=name, share_link=share_link, generated=generated, unit=unit,
                                        cover=cover)
    return doc.render(title_page)


def comparison_report_pdf(comparison, *, name: str, share_link: str, generated: datetime | None = None,
                          unit: str = "GB/s", cover: Cover | None = None) -> bytes:
    """``comparison_report_html`` as an A4 PDF with static charts, printed by Chromium."""
    _warm_printer()
    doc, title_page = _comparison_parts(comparison, name=name, share_link=share_link, generated=generated, unit=unit,
                                        cover=cover)
    return _pdf(doc, title_page)


def comparison_report_files(comparison, **options) -> tuple[str, bytes | None, str]:
    """``comparison_report_html`` and ``_pdf`` from one computation: (HTML, PDF or None, why there is no PDF);
    ``options``: ``comparison_report_html``'s keywords."""
    return _files(_comparison_parts, comparison, options)


# --- printing --------------------------------------------------------------------------------------------
def chromium_problem() -> str | None:
    """Why a PDF cannot be printed here (None when it can): Playwright or Chromium missing."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return _("The PDF needs the Python package playwright (pip install -r requirements.txt); the HTML report "
                 "works without it.")
    if not Path(CHROMIUM).exists():
        return _("The PDF is printed by Chromium, which is not installed at {path}: run make chromium (or apt-get "
                 "install chromium); the HTML report works without it.").format(path=CHROMIUM)
    return None


def html_to_pdf(html: str, *, footer: str = "") -> bytes:
    """Print ``html`` (a report from this module) to an A4 PDF in headless Chromium, once its charts are drawn;
    every page gets ``footer`` (a title, plain text) and its number of the total in its bottom margin, and a
    table of contents (``nav.fp-toc``) gets each section's page number.

    ``InputError`` when Playwright or Chromium is missing (``chromium_problem``) or Chromium fails. The browser is
    the process's one (``_Printer``), started on first use and kept."""
    problem = chromium_problem()
    if problem:
        raise InputError(problem)
    return _call_printer("print", html, footer)


def _chart_images(figures: list[dict]) -> list[str]:
    """Each figure of ``_Doc.figures`` drawn by Plotly as SVG markup (``Plotly.toImage``: its text escaped as XML),
    in the process's chart page where plotly.js is loaded once (``_Printer``). ``InputError`` as
    ``html_to_pdf``."""
    problem = chromium_problem()
    if problem:
        raise InputError(problem)
    return _call_printer("charts", figures) if figures else []


_DRAW_CHARTS = """async (figs) => { const out = [];
  for (const f of figs) { out.push(await Plotly.toImage({data: f.data, layout: f.layout, config: {staticPlot: true}},
                                                    {format: 'svg', width: f.width, height: f.height})); }
  return out; }"""
FOOTER_STYLE = "font-size:8px;color:#566573;width:100%;margin:0 12mm;display:flex;justify-content:space-between;"
FOOTER_FONTS = '"Noto Sans CJK SC", "Noto Sans SC", sans-serif'


def _draw_charts(printer: "_Printer", figures: list[dict]) -> list[str]:
    page = printer.chart_page()
    figs = [{"data": f["data"], "layout": f["layout"], "width": f["layout"]["width"], "height": f["height"]}
            for f in figures]
    return [unquote(url.split(",", 1)[1]) for url in page.evaluate(_DRAW_CHARTS, figs)]


def _print_page(printer: "_Printer", html: str, footer: str) -> bytes:
    """The printer thread's part of ``html_to_pdf``: load, wait for the charts, print, number the contents."""
    page = printer.context().new_page()
    try:
        page.set_content(html, wait_until="load", timeout=RENDER_TIMEOUT_MS)
        page.wait_for_function("window.fpRendered === true", timeout=RENDER_TIMEOUT_MS)
        page.emulate_media(media="print")
        template = (f'<div style=\'{FOOTER_STYLE}font-family:{FOOTER_FONTS}\'><span>{html_text(footer)}</span>'
                    '<span><span class="pageNumber"></span> / <span class="totalPages"></span></span></div>')
        options = {"format": "A4", "print_background": True, "prefer_css_page_size": True,
                   "display_header_footer": True, "header_template": "<div></div>", "footer_template": template}
        return _number_contents(page.pdf(**options))
    finally:
        page.close()


CONTENTS_NUMBER_PT = 11.25
"""Type size of the contents' page numbers [pt]: the contents' 15 px."""
CONTENTS_RGB = (27, 38, 49)
"""Colour of the contents' page numbers: the text's #1b2631."""


def _number_contents(pdf: bytes) -> bytes:
    """``pdf`` with each contents line's page number at the right margin, in the line of its link: the first page
    with links to places inside the document is the contents (the pack links nowhere else inside itself), and
    Chromium gives each link its target's page. Numbered after printing, since only then are the pages known
    (Chromium has no CSS ``target-counter``); a PDF without such links comes back as it was."""
    import ctypes
    import io

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    doc = pdfium.PdfDocument(pdf)
    try:
        for index in range(len(doc)):
            page, lines = doc[index], []
            at, link = ctypes.c_int(0), raw.FPDF_LINK()
            while raw.FPDFLink_Enumerate(page.raw, ctypes.byref(at), ctypes.byref(link)):
                dest, rect = raw.FPDFLink_GetDest(doc.raw, link), raw.FS_RECTF()
                if dest and raw.FPDFLink_GetAnnotRect(link, ctypes.byref(rect)):
                    lines.append((rect.bottom, rect.top, raw.FPDFDest_GetDestPageIndex(doc.raw, dest) + 1))
            if not lines:
                continue
            right = page.get_width() - PAGE_MARGIN_MM / 25.4 * 72
            for bottom, top, target in lines:
                text = raw.FPDFPageObj_NewTextObj(doc.raw, b"Helvetica", ctypes.c_float(CONTENTS_NUMBER_PT))
                utf16 = (str(target) + "\0").encode("utf-16-le")
                raw.FPDFText_SetText(text, ctypes.cast(ctypes.create_string_buffer(utf16, len(utf16)),
                                                       ctypes.POINTER(raw.FPDF_WCHAR)))
                raw.FPDFPageObj_SetFillColor(text, *CONTENTS_RGB, 255)
                box = [ctypes.c_float() for _i in range(4)]
                raw.FPDFPageObj_GetBounds(text, *(ctypes.byref(b) for b in box))
                raw.FPDFPageObj_Transform(text, 1, 0, 0, 1, right - (box[2].value - box[0].value),
                                          bottom + (top - bottom) * 0.27)
                raw.FPDFPage_InsertObject(page.raw, text)
            raw.FPDFPage_GenerateContent(page.raw)
            out = io.BytesIO()
            doc.save(out)
            return out.getvalue()
        return pdf
    finally:
        doc.close()


class _Printer:
    """The process's headless Chromium, started on first use and kept (a launch and loading plotly.js take about
    a second each): one thread of its own owns it, since Playwright's sync API is bound to the thread that
    started it and refuses a thread with a running asyncio loop. Calls are served one at a time; a failed call
    closes the browser, and the next starts a new one. The thread ends with the process (``close`` at exit)."""

    def __init__(self) -> None:
        import threading

        self._lock = threading.Lock()
        self._thread = None
        self._queue = None
        self._pw = self._browser = self._context = self._charts = None

    def call(self, fn, *args):
        """``fn(self, *args)`` on the printer's thread; its value, or ``InputError`` when Chromium fails."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            return self._submit(fn, *args).result()
        except PlaywrightError as exc:
            raise InputError(_("Chromium could not print the PDF: {problem}").format(
                problem=" ".join(str(exc).split())[:200])) from None

    def warm(self) -> None:
        """Start the browser and load plotly.js now, not waiting for it (a report computes its sections meanwhile);
        nothing when Chromium is missing."""
        if chromium_problem() is None:
            self._submit(_Printer.chart_page)

    def _submit(self, fn, *args):
        """``fn(self, *args)`` queued for the printer's thread (started when needed): its ``Future``."""
        import queue
        import threading
        from concurrent.futures import Future

        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._queue = queue.Queue()
                self._thread = threading.Thread(target=self._loop, args=(self._queue,), name="fp-printer", daemon=True)
                self._thread.start()
            future: Future = Future()
            self._queue.put((fn, args, future))
        return future

    def context(self):
        """The browser's one context (no request leaves it but ``data:`` and ``about:``), started when needed."""
        from playwright.sync_api import sync_playwright

        if self._browser is None or not self._browser.is_connected():
            self._stop()
            self._pw = sync_playwright().start()
            self._browser = self._pw.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
            self._context = self._browser.new_context()
            self._context.route("**/*", lambda route: route.abort() if not route.request.url.startswith(
                ("data:", "about:")) else route.continue_())
        return self._context

    def chart_page(self):
        """A page with plotly.js loaded, kept for drawing charts (``_draw_charts``)."""
        from plotly.offline import get_plotlyjs

        context = self.context()
        if self._charts is None or self._charts.is_closed():
            self._charts = context.new_page()
            self._charts.set_content(f'<!DOCTYPE html><html><head><meta charset="utf-8"><style>body {{ font-family: '
                                     f'{_FONTS}; }}</style></head><body><script>{get_plotlyjs()}</script></body></html>',
                                     wait_until="load", timeout=RENDER_TIMEOUT_MS)
        return self._charts

    def _loop(self, jobs) -> None:
        while True:
            item = jobs.get()
            if item is None:
                break
            fn, args, future = item
            try:
                future.set_result(fn(self, *args))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
                self._stop()
                future.set_exception(exc)
        self._stop()

    def _stop(self) -> None:
        for close in (getattr(self._browser, "close", None), getattr(self._pw, "stop", None)):
            try:
                if close is not None:
                    close()
            except Exception:  # noqa: BLE001 - a browser already gone
                pass
        self._pw = self._browser = self._context = self._charts = None

    def close(self, timeout: float = RENDER_TIMEOUT_MS / 1000) -> None:
        """End the thread and the browser (at the process's exit), waiting for a call under way: a daemon thread
        still inside Playwright when the interpreter finalizes can crash it."""
        with self._lock:
            thread, jobs = self._thread, self._queue
            self._thread = None
        if thread is not None and thread.is_alive():
            jobs.put(None)
            thread.join(timeout)


_PRINTER = _Printer()
atexit.register(_PRINTER.close)
# a multiprocessing child (the app's job workers) ends with os._exit, after multiprocessing's own exit hooks only
multiprocessing.util.Finalize(None, _PRINTER.close, exitpriority=10)


# --- one printer for many processes ----------------------------------------------------------------------
PRINT_SERVICES = {"print": _print_page, "charts": _draw_charts}
"""What the shared printer does for other processes: print a page, draw charts (``serve_printer``)."""
_SERVICE: list = []
"""The shared printer this process uses: ``[(address, authkey)]``, or empty to use its own Chromium."""


def use_print_service(address: str | None, authkey: bytes = b"") -> None:
    """Print through the shared printer at ``address`` (a Unix socket ``serve_printer`` listens on) instead of this
    process's own Chromium; None: this process's own. The app's job workers are new processes: without it each
    pack paid a Chromium launch and plotly.js's load (about 5 s on 2 cores) however warm the last one was."""
    _SERVICE[:] = [(address, authkey)] if address else []


def _call_printer(service: str, *args):
    """``PRINT_SERVICES[service](printer, *args)`` on the shared printer if one is set and answers, else here."""
    if _SERVICE:
        from multiprocessing.connection import Client

        address, authkey = _SERVICE[0]
        try:
            with Client(address, family="AF_UNIX", authkey=authkey) as conn:
                conn.send((service, args))
                status, value = conn.recv()
        except (OSError, EOFError):  # the printer is gone: print here
            _SERVICE.clear()
        else:
            if status == "error":
                raise InputError(value)
            return value
    return _PRINTER.call(PRINT_SERVICES[service], *args)


def _warm_printer() -> None:
    """Start this process's Chromium now, unless it prints through the shared printer (which is warm)."""
    if not _SERVICE:
        _PRINTER.warm()


def serve_printer(address: str, authkey: bytes) -> None:
    """Serve ``PRINT_SERVICES`` on the Unix socket ``address`` (clients authenticate with ``authkey``), one request
    at a time, with this process's Chromium kept warm; runs until the process ends."""
    from multiprocessing.connection import Listener

    _PRINTER.warm()
    with Listener(address, family="AF_UNIX", authkey=authkey) as listener:
        while True:
            try:
                conn = listener.accept()
            except (OSError, EOFError):  # a client that failed authentication or left
                continue
            with conn:
                try:
                    service, args = conn.recv()
                    reply = ("ok", _PRINTER.call(PRINT_SERVICES[service], *args))
                except InputError as exc:
                    reply = ("error", str(exc))
                except (OSError, EOFError, KeyError, ValueError, TypeError):
                    continue
                try:
                    conn.send(reply)
                except (OSError, EOFError):
                    pass
