"""The engine's explanations in Chinese, for the designs a review opened with ``?lang=zh``: the default design, the
GB200 design of a two-level NVLink domain, a torus and a Dragonfly+, each from its share link.

Where the Designer's bill tab, the BOM CSV, the workbook and the review pack show the engine's own words, none is
English (``tests.i18n_check.english_leaks``: part names as published, catalog ids, units and abbreviations are
allowed) and a count's formula is written as the Chinese catalog writes it: ``×`` and ``⌈…⌉``, not ``x`` and
``ceil(…)``, a list with ``、``, not ``, ``. Checked: the bill's where and why columns (``core.formats.xlsx.bom_table``,
the one table those surfaces show), the other networks' explanations (``core.networks``: storage, in-band,
out-of-band, and ``core.formats.networkwords`` as the pack and the workbook show them), and the workbook's bill and
network sheets. The English texts are the engine's (``tools.equivalence`` fingerprints them)."""

from __future__ import annotations

import io
import re

import openpyxl
import pytest

from core.catalog import load_catalog
from core.fabric.domainlevels import bill_entries
from core.formats import sharelink, xlsx
from core.figures import billitems
from core.formats.networkwords import sizing_explanation, sizing_headline, sizing_tables
from core.i18n import _, language
from core.plan import plan
from tests.i18n_check import english_leaks

LINKS = {
    "default": {"v": "1"},
    "GB200 two-level NVLink": {"v": "1", "g": "GB200-NVL72", "n": "144", "nvd": "144"},
    "torus": {"v": "1", "t": "tr", "ng": "512"},
    "Dragonfly+": {"v": "1", "t": "df", "ng": "4096"},
}
IDS = sorted({entry.id for _kind, entry in bill_entries()}, key=len, reverse=True)
NAMES = {entry.name for _kind, entry in bill_entries()}
ENGLISH_FORMULA = re.compile(r"ceil\(|[\d)⌉] x [\d(⌈]|\bm [\d,]+, \d")
"""A count written the English way in a Chinese text: ``ceil(``, ``4 x ⌈…⌉``, ``5-10 m 124, 10-20 m 436``."""
HAN = re.compile(r"[\u4e00-\u9fff]")


def _designed(name: str):
    design, warnings = sharelink.decode(LINKS[name])
    assert not warnings, warnings
    with language("zh"):
        return plan(design)


def _without_ids(text: str) -> str:
    for catalog_id in IDS:  # the catalog's ids, as published (``OSFP-800G-2xSR4``, ``UFM-APPLIANCE``)
        text = text.replace(catalog_id, " ")
    return text


def _english(texts) -> list[tuple[str, list[str]]]:
    """The texts that say something in English, each with what: its English words, or ``formula``."""
    found = []
    for text in (str(t) for t in texts if t):
        leaks = english_leaks(_without_ids(text))
        if HAN.search(text) and ENGLISH_FORMULA.search(text):
            leaks.append("formula")
        if leaks:
            found.append((text, leaks))
    return found


@pytest.fixture(scope="module", params=list(LINKS))
def zh_plan(request):
    return _designed(request.param)


def test_the_bills_where_and_why_are_chinese(zh_plan):
    with language("zh"):
        table = xlsx.bom_table(zh_plan, ranges=True)
    assert len(table) > 10 and table["why"].map(HAN.search).all()
    assert not _english(table["where"]) and not _english(table["why"]), _english([*table["where"], *table["why"]])


def test_the_other_networks_explanations_are_chinese(zh_plan):
    networks = zh_plan.networks
    sized = list(networks.sized())
    assert len(sized) == 3  # storage, in-band and out-of-band on every design here
    with language("zh"):
        texts = list(networks.explanation)
        for key in ("storage", "inband", "oob"):
            sizing = getattr(networks, key)
            texts += [sizing_headline(key, sizing), *sizing_explanation(sizing)]
            texts += [row[c] for table in sizing_tables(sizing) for row in table.rows
                      for c, kind in enumerate(table.kinds) if kind == "why"]
    assert len(texts) > 15
    assert not _english(texts), _english(texts)


def test_the_workbooks_explanation_cells_are_chinese(zh_plan):
    with language("zh"):
        book = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(zh_plan)))
        headers = {_(billitems.BOM_HEADERS["where"]), _(billitems.BOM_HEADERS["why"])}
    bill = list(book[book.sheetnames[1]].iter_rows(values_only=True))
    explained = [i for i, header in enumerate(bill[0]) if header in headers]
    assert len(explained) == 2
    cells = [row[i] for row in bill[1:] for i in explained]
    for sheet in book.sheetnames[3:]:  # the other networks' sheets (after the summary, bill and design sheets)
        cells += [value for row in book[sheet].iter_rows(values_only=True) for value in row
                  if isinstance(value, str) and value not in NAMES]  # the parts' names, quoted as published
    assert len(cells) > 50
    assert not _english(cells), _english(cells)


def test_a_level2_switch_count_reads_in_chinese_as_in_english():
    """GB200 with 144-GPU NVLink domains: the level-2 switch units' why ends on the same sum in both languages,
    each domain size's ``count x ceil(links / ports)`` as ``count × ⌈links / ports⌉``."""
    design, _warnings = sharelink.decode(LINKS["GB200 two-level NVLink"])
    rows = {}
    for lang in ("en", "zh"):
        with language(lang):
            table = xlsx.bom_table(plan(design))
        rows[lang] = table[table["catalog_id"] == "NVLINK5-SWITCH-TRAY"]["why"].tolist()
    assert any(why.endswith(": 4 x ceil(2,592 / 144) = 72") for why in rows["en"]), rows["en"]
    assert any(why.endswith("：4 × ⌈2,592 / 144⌉ = 72") for why in rows["zh"]), rows["zh"]


def test_links_by_length_are_listed_as_chinese_lists_them():
    """The switch-side transceiver rows count their links by length: ``5-10 m 124, 10-20 m 436`` in English,
    ``5-10 m 124 条、10-20 m 436 条`` in Chinese."""
    design, _warnings = sharelink.decode(LINKS["Dragonfly+"])
    with language("zh"):
        why = xlsx.bom_table(plan(design))["why"]
    listed = [w for w in why if "按长度：" in w]
    assert listed and all(re.search(r"按长度：[\d-]+ m [\d,]+ 条(、[\d-]+ m [\d,]+ 条)*", w) for w in listed), listed
    assert any("条、" in w for w in listed)


def test_a_cloud_instances_workbook_has_its_networks_sizing_without_bill_rows():
    """On a cloud instance's adapters the storage and management networks are the provider's: the workbook still
    has their sheets (their sizing, as the review pack shows it) and no bill rows of theirs."""
    from core.presets import load_presets

    design = next(p.design for p in load_presets() if p.id == "aws-p5-efa")
    assert load_catalog().nic(design.nic).transport
    for lang in ("en", "zh"):
        with language(lang):
            p = plan(design)
            book = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(p)))
            sizing = _("Sizing")
        assert {r.network for r in p.bom} == {"compute"} and len(book.sheetnames) == 6
        for sheet in book.sheetnames[3:]:
            assert any(row[0] == sizing for row in book[sheet].iter_rows(values_only=True))
