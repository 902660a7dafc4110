"""The compute network's total (its GPU nodes, NICs, switches, optics, cables and UFM appliances) is named as the
Designer's By network chart names it, "compute (nodes and fabric)", in the XLSX Summary's Networks table and in the
review pack's By network table and BOM subtotal: never "compute fabric", the name of the fabric-only capex card a
few rows above it (a $190 M row beside "Capex, compute fabric $30.2 M" at 4,096 H100)."""

from __future__ import annotations

import io
import re

from openpyxl import load_workbook

from core.design import Design
from core.figures.cost import networks_note
from core.formats import xlsx
from core.formats.report import design_report_html
from core.i18n import _, language
from core.networks import network_name
from core.plan import plan

DESIGN = Design(gpu="H100", nodes=64)


def _summary_rows(p) -> list[tuple]:
    book = load_workbook(io.BytesIO(xlsx.design_xlsx(p, name="t", share_link="")))
    return [row for row in book.worksheets[0].iter_rows(values_only=True)]


def test_xlsx_networks_table_names_the_compute_row_with_its_nodes():
    p = plan(DESIGN)
    for lang in ("en", "zh"):
        with language(lang):
            rows = _summary_rows(p)
            fabric_card = next(r for r in rows if r[0] == _("Capex, compute fabric"))
            header = next(i for i, r in enumerate(rows) if r[0] == _("network") and r[1] == _("switches"))
            compute = rows[header + 1]
            assert compute[0] == network_name("compute", "bill") != _("compute fabric"), (lang, compute)
            assert compute[4] > fabric_card[1] * 2  # the nodes' capex is in this row, not in the card's


def test_xlsx_says_what_the_compute_row_counts_beyond_the_links_row():
    """The Summary's Links row (the cards' count) and the Networks table's compute row differ by the UFM
    appliances' links; the sheet says so under the table, as the Designer and the pack do (``networks_note``)."""
    p = plan(DESIGN)
    for lang in ("en", "zh"):
        with language(lang):
            note = networks_note(p)
            assert note
            rows = _summary_rows(p)
            links = next(r for r in rows if r[0] == _("Links"))[1]
            header = next(i for i, r in enumerate(rows) if r[0] == _("network") and r[1] == _("switches"))
            assert rows[header + 1][2] != links  # the two counts differ ...
            assert any(r[0] == note for r in rows[header + 1:]), lang  # ... and the sheet says why


def test_pack_by_network_table_and_bom_subtotal_name_the_compute_row_with_its_nodes():
    p = plan(DESIGN)
    for lang in ("en", "zh"):
        with language(lang):
            page = design_report_html(p, name="", share_link="")
            name = network_name("compute", "bill")
            head = f"<th>{_('network')}</th><th class=\"num\">{_('switches')}</th>"
            table = page[page.index(head):]
            first = re.search(r"<tbody><tr><td>(.*?)</td>", table).group(1)
            assert first == name != _("compute fabric"), (lang, first)
            subtotal = re.search(r'<tr class="fp-subtotal" data-network="compute"[^>]*><td[^>]*>[^<]*</td>'
                                 r'<td[^>]*>(.*?)</td>', page).group(1)
            assert subtotal == name, (lang, subtotal)


def test_no_catalog_note_repeats_its_own_sentence():
    """The internal review pack prints the catalog's notes as recorded: a note said its price range twice
    (H100: "Range: low = HGX H100 8-GPU server $248,956 ... Range: low = HGX H100 8-GPU server $248,956 ...")."""
    from core.catalog import load_catalog

    repeated = []
    for _kind, entry in load_catalog().all_entries():
        for field in ("source", "price_source", "power_source"):
            sentences = [s.strip() for s in re.split(r"(?<=[.;])\s+", str(getattr(entry, field, "") or ""))
                         if len(s.strip()) >= 40]
            repeated += [(entry.id, field, s[:60]) for s in set(sentences) if sentences.count(s) > 1]
    assert not repeated


def _assumptions_text(p, edition: str) -> str:
    from core.formats.report import _assumptions, _Doc

    doc = _Doc(title="t")
    _assumptions(doc, p, edition)
    return " ".join(body for _key, _title, body in doc.sections)


def test_customer_pack_tells_the_second_nvlink_level_without_the_research_notes():
    """The customer edition stated the two-level NVLink assumption as the catalog's research note, its field names
    and evidence grades included ("uplinks_per_gpu = 18 [A] ... [P] ... [D] ... links_per_cable = 4 [A]"); it now
    tells it from the entry's figures, in either language, and the internal edition keeps the note."""
    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    for lang in ("en", "zh"):
        with language(lang):
            customer = _assumptions_text(p, "customer")
            internal = _assumptions_text(p, "internal")
            assert "uplinks_per_gpu" in internal and "[A]" in internal
            assert not re.search(r"\w_\w|\[[APSDM]\]", customer), lang
            assert re.search(r"\b18\b.*1:1.*\b144\b.*\b4\b", customer), (lang, customer)
    tapered = plan(Design(gpu="H100", nodes=32, nvlink_domain_gpus=256))
    assert re.search(r"\b9\b.*2:1.*\b18\b", _assumptions_text(tapered, "customer"))


def test_growth_note_names_the_designers_field_not_the_engines():
    """The growth table's note (Racks & cabling tab, review pack) said "with grow_to the spines ...", the engine's
    field id; it names the Designer's field, "Grow to [nodes]"."""
    from core.analysis.stages import stages_note

    for lang in ("en", "zh"):
        with language(lang):
            note = stages_note(Design(gpu="H100", nodes=64, stages=(128, 256)))
            assert note and not re.search(r"\w_\w", note), (lang, note)
            assert _("Grow to [nodes]") in note or lang == "zh", note
