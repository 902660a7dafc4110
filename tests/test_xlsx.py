"""The review workbook (core.formats.xlsx): sheets, number formats, frozen header, autofilter, totals that
equal plan.cost, a complete design sheet, both languages, and a golden design read back from the file."""

from __future__ import annotations

import io
from datetime import datetime, timezone

import openpyxl
import pytest

from core.design import Design
from core.units import excel_money_format
from core.figures import compare as compare_figs
from core.figures.keynumbers import key_numbers
from core.formats import xlsx
from core.i18n import _, language
from core.networks import NETWORK_WORDS, network_name
from core.plan import plan

from i18n_check import english_leaks


def book_of(design: Design, lang: str = "en", **kwargs) -> openpyxl.Workbook:
    with language(lang):
        data = xlsx.design_xlsx(plan(design), **kwargs)
    assert data[:2] == b"PK"  # a zip container, as every XLSX
    return openpyxl.load_workbook(io.BytesIO(data))


def rows(ws) -> list[tuple]:
    return [r for r in ws.iter_rows(values_only=True)]


def labelled(ws, column: int = 2) -> dict:
    """Summary sheet: label in column A -> value in ``column``."""
    return {r[0]: r[column - 1] for r in rows(ws) if r and isinstance(r[0], str)}


@pytest.fixture(scope="module")
def en_book():
    return book_of(Design(gpus=2048, oversubscription=2.0, price_overrides={"QM9700": 25000.0}),
                   name="Customer A, hall 2", share_link="https://planner.example/?v=1&n=256",
                   when=datetime(2026, 3, 4, 5, 6, tzinfo=timezone.utc))


def test_sheets_and_summary_head(en_book):
    assert en_book.sheetnames[:3] == ["Summary", "Bill of materials", "Design"]
    ws = en_book["Summary"]
    assert ws["A1"].value == "Customer A, hall 2" and ws["A1"].font.bold
    head = labelled(ws)
    assert head["Date"] == "2026-03-04 05:06 UTC"
    assert head["Share link"] == "https://planner.example/?v=1&n=256"
    assert ws["B3"].hyperlink.target == "https://planner.example/?v=1&n=256"


def test_bom_sheet_formats_header_filter_and_totals_equal_the_plan(en_book):
    p = plan(Design(gpus=2048, oversubscription=2.0, price_overrides={"QM9700": 25000.0}))
    ws = en_book["Bill of materials"]
    data = rows(ws)
    header = list(data[0])
    assert header[0] == "category" and {"item", "where", "qty", "total USD", "why (how the count was derived)"} <= set(
        header)
    assert header.index("item") < header.index("where") < header.index("qty") < header.index("total USD")
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref == f"A1:{openpyxl.utils.get_column_letter(len(header))}{len(p.bom) + 1}"
    body, total = data[1:-1], data[-1]
    assert len(body) == len(p.bom) and total[0] == "Total"
    col = {h: i for i, h in enumerate(header)}
    assert total[col["total USD"]] == pytest.approx(p.cost.capex_usd)
    assert total[col["total USD (low)"]] == pytest.approx(p.cost.capex_usd_low)
    assert total[col["total USD (high)"]] == pytest.approx(p.cost.capex_usd_high)
    assert total[col["total W"]] == pytest.approx(p.cost.it_kw * 1000)
    # the rows themselves add up to the totals (the totals row is not a separate claim)
    assert sum(r[col["total USD"]] for r in body) == pytest.approx(p.cost.capex_usd)
    assert sum(r[col["qty"]] for r in body) == total[col["qty"]] == sum(r.quantity for r in p.bom)
    # number formats: dollars, watts, whole numbers with thousands separators
    second = 2
    money = xlsx.number_format(xlsx.USD)
    assert ws.cell(second, col["unit USD"] + 1).number_format == money == excel_money_format("en")
    assert ws.cell(second, col["total W"] + 1).number_format == xlsx.WATTS
    assert ws.cell(second, col["qty"] + 1).number_format == "#,##0"
    assert ws.cell(len(data), col["total USD"] + 1).number_format == money
    assert isinstance(ws.cell(second, col["qty"] + 1).value, int)
    # widths: the long text columns are wide, the numbers narrow
    letter = lambda name: openpyxl.utils.get_column_letter(col[name] + 1)  # noqa: E731
    assert ws.column_dimensions[letter("item")].width >= 40 and ws.column_dimensions[letter("qty")].width <= 12
    why = ws.cell(second, col["why (how the count was derived)"] + 1)
    assert why.alignment.wrap_text and ws.column_dimensions[why.column_letter].width >= 60
    assert "QM9700" in {r[col["catalog id"]] for r in body}
    assert {r[col["price basis"]] for r in body if r[col["catalog id"]] == "QM9700"} == {"override"}


def test_summary_totals_by_category_and_key_numbers(en_book):
    p = plan(Design(gpus=2048, oversubscription=2.0, price_overrides={"QM9700": 25000.0}))
    data = rows(en_book["Summary"])
    start = next(i for i, r in enumerate(data) if r[0] == "Totals by category")
    header = data[start + 1]
    assert header[:3] == ("category", "qty", "capex USD")
    table = {}
    for r in data[start + 2:]:
        if r[0] is None:
            break
        table[r[0]] = r
    assert {"compute", "NIC", "switch", "transceiver", "cable", "Total"} <= set(table)
    assert table["Total"][2] == pytest.approx(p.cost.capex_usd)
    assert table["Total"][3] == pytest.approx(p.cost.capex_usd_low)
    assert table["Total"][4] == pytest.approx(p.cost.capex_usd_high)
    assert sum(r[2] for k, r in table.items() if k != "Total") == pytest.approx(p.cost.capex_usd)
    assert table["compute"][2] == pytest.approx(sum(r.extended_price_usd for r in p.bom if r.category == "compute"))
    numbers = labelled(en_book["Summary"])
    s = p.summary()
    assert numbers["GPUs"] == 2048 and numbers["Leaf switches"] == s["switches"]["leaf"]
    assert numbers["Capex, whole cluster"] == pytest.approx(p.cost.capex_usd)
    assert numbers["Capex, low end of the price ranges"] == pytest.approx(p.cost.capex_usd_low)
    assert numbers["Capex, high end of the price ranges"] == pytest.approx(p.cost.capex_usd_high)
    assert numbers["IT power"] == pytest.approx(p.cost.it_kw)
    assert numbers["Facility power (PUE 1.3)"] == pytest.approx(p.cost.facility_kw)
    assert numbers["Bisection ratio (1:1 = non-blocking)"] == f"{s['bandwidth']['oversubscription']:.3g}:1" == "1.92:1"
    ws = en_book["Summary"]
    capex_row = next(c.row for c in ws["A"] if c.value == "Capex, whole cluster")
    assert ws.cell(capex_row, 2).number_format == excel_money_format("en")


def test_design_sheet_lists_every_field_with_defaults(en_book):
    ws = en_book["Design"]
    data = rows(ws)
    assert data[0] == ("setting", "value", "JSON key") and ws.freeze_panes == "A2"
    keys = [r[2] for r in data[1:]]
    assert keys == list(Design.model_fields)  # every field, in the model's order, defaults included
    by_key = {r[2]: r for r in data[1:]}
    assert by_key["gpus"][1] == 2048 and by_key["nodes"][1] == "from GPUs (256)"
    assert by_key["oversubscription"][1] == 2 and by_key["pue"][1] == 1.3  # defaults are written too
    assert by_key["switch"][1] == "auto (QM9700)"  # what the engine picked
    assert by_key["topology"][1] == "Rail-optimized" and by_key["price_overrides"][1] == "QM9700: 25000"
    assert by_key["grow_to"][1] == "no growth"
    # readable labels, not JSON text
    assert by_key["gpu"][0] == "GPU model" and not any(str(r[1]).startswith("{") for r in data[1:])
    unlabelled = [r[2] for r in data[1:] if r[0] == r[2] or not r[0]]  # labels come from core.design.FIELDS
    assert not unlabelled, f"Design fields shown by their JSON key: {unlabelled}"


def test_chinese_workbook_speaks_chinese_and_keeps_numbers():
    design = Design(nodes=64)
    en, zh = book_of(design, "en"), book_of(design, "zh")
    with language("zh"):
        names = [_("Summary"), _("Bill of materials"), _("Design")]
    assert zh.sheetnames[:3] == names == ["摘要", "物料清单", "设计"]
    en_bom, zh_bom = rows(en.worksheets[1]), rows(zh.worksheets[1])
    with language("zh"):
        qty_zh = _("qty")
    en_qty, zh_qty = en_bom[0].index("qty"), zh_bom[0].index(qty_zh)
    assert [r[en_qty] for r in en_bom[1:]] == [r[zh_qty] for r in zh_bom[1:]]  # quantities
    assert [r[-1] for r in en_bom[1:-1]] == [r[-1] for r in zh_bom[1:-1]]  # catalog ids
    summary = " ".join(str(c) for r in rows(zh.worksheets[0])[4:] for c in r[:1] if isinstance(c, str))
    assert not english_leaks(summary), english_leaks(summary)
    design_labels = " ".join(r[0] for r in rows(zh.worksheets[2])[1:])
    assert not english_leaks(design_labels), english_leaks(design_labels)
    headers = " ".join(str(c) for c in zh_bom[0])
    assert not english_leaks(headers), english_leaks(headers)


def test_text_that_looks_like_a_formula_stays_text():
    """A name or link starting with '=' is written as text (never a formula a spreadsheet would run)."""
    book = book_of(Design(nodes=8), name='=HYPERLINK("http://evil.example","x")',
                   share_link="=1+1")
    ws = book["Summary"]
    assert ws["A1"].data_type == "s" and ws["A1"].value.startswith("=HYPERLINK")
    assert ws["B3"].data_type == "s" and ws["B3"].hyperlink is None


def test_golden_superpod_h100_4su_from_the_workbook():
    """NVIDIA DGX SuperPOD with DGX H100, RA-11333-001 V11, Table 4 "Compute fabric component count",
    4 SU / 127 nodes: 32 leaf and 16 spine QM9700 switches and 1,024 spine-leaf cables (the engine's
    node-leaf links are the RA's 1,020 cables less its 4 UFM links). Read back from the XLSX Summary.
    https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/"""
    book = book_of(Design(gpu="H100", nodes=127, switch="QM9700", port_speed_gbps=400, fabric="infiniband"))
    numbers = labelled(book["Summary"])
    units = labelled(book["Summary"], column=3)
    assert numbers["GPUs"] == 1016 and numbers["Nodes"] == 127
    assert numbers["Leaf switches"] == 32 and numbers["Spine switches"] == 16 and numbers["Core switches"] == 0
    assert numbers["Switches in total (compute fabric)"] == 48 and units["Leaf switches"] == "QM9700"
    assert numbers["Links"] == 1016 + 1024
    bom = rows(book["Bill of materials"])
    col = {h: i for i, h in enumerate(bom[0])}
    on_fabric = [r for r in bom[1:-1] if "network" not in col or r[col["network"]] == network_name("compute", "bill")]
    assert sum(r[col["qty"]] for r in on_fabric if r[col["catalog id"]] == "QM9700") == 48


class _Sizing:
    """A stand-in for a core.networks sizing (the real ones are pydantic models: model_dump)."""

    def model_dump(self, mode="json"):
        return {"switches": {"leaf": 2}, "links": [{"speed_gbps": 200, "count": 64}]}


class _Networks:
    storage = _Sizing()
    inband = None
    oob = _Sizing()


def test_other_networks_get_a_sheet_each_when_the_plan_has_them():
    p = plan(Design(nodes=16))
    if getattr(p, "networks", None) is None:  # until core.networks lands in Plan: a stand-in
        p = p.model_copy()
        object.__setattr__(p, "networks", _Networks())
    with language("en"):
        book = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(p)))
    extra = book.sheetnames[3:]
    assert "Storage fabric" in extra and "Out-of-band management" in extra
    ws = book["Storage fabric"]
    assert ws["A1"].value == "Storage fabric"
    values = [r for r in rows(ws) if r and r[0] is not None]
    assert any(r[0] == _("Sizing") for r in values)


def test_every_sheet_name_fits_excel():
    for lang in ("en", "zh"):
        with language(lang):
            for sheet in xlsx.SHEET_NAMES.values():
                assert len(_(sheet)) <= 31
            for network in NETWORK_WORDS:
                assert len(xlsx.sheet_name(network_name(network))) <= 31
    assert xlsx.sheet_name("a/b[c]:d*e?f\\g") == "a b c  d e f g"


# review47 #4 and #12 (torusx47): the Summary says every pod's speeds, and no switch model for a fabric without switches
def _whole_book(design: Design, lang: str) -> openpyxl.Workbook:
    from core.analysis.whole import whole_plan

    with language(lang):  # as the Designer's download (webui.cached.bom_xlsx): the whole design
        return openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(whole_plan(plan(design)))))


def _key_numbers(book: openpyxl.Workbook, column: int = 2) -> dict:
    """The Summary's key numbers: label -> value in ``column``, the first row of a label (zh "网络" names a later
    table's row too)."""
    out: dict = {}
    for r in rows(book.worksheets[0]):
        if r and isinstance(r[0], str):
            out.setdefault(r[0], r[column - 1])
    return out


@pytest.mark.parametrize("lang, fabric, nvlink, injection", [
    ("en", "Fabric", "NVLink per GPU (both directions)", "Injection per GPU (one direction)"),
    ("zh", "网络", "每 GPU NVLink 带宽（双向）", "每 GPU 注入带宽（单向）"),
])
def test_summary_of_mixed_pods_gives_every_pods_speeds(lang, fabric, nvlink, injection):
    """64 H100 nodes at 400G and 32 B300 nodes at 800G: 400/8 = 50 and 800/8 = 100 GB/s per GPU, NVLink 4's 18 x 50
    = 900 GB/s and NVLink 5's 1.8 TB/s per GPU both directions; the cards and ``plan`` say both, so does the workbook
    (it gave pod 1's alone)."""
    from core.analysis.whole import whole_summary
    from core.figures.keynumbers import per_pod_value

    design = Design(gpu="H100", nodes=64, pods="B300:32:800")
    numbers = _key_numbers(_whole_book(design, lang))
    assert numbers[fabric] == "InfiniBand 400 / 800G"
    assert numbers[nvlink] == "900 GB/s / 1.8 TB/s" and numbers[injection] == "50 GB/s / 100 GB/s"
    bw = whole_summary(plan(design))["bandwidth"]  # the cards' and the plan command's one formatter
    assert numbers[injection] == per_pod_value(bw["scaleout_gbits_per_gpu_pods"], 1, 0, "GB/s")
    alike = _key_numbers(_whole_book(Design(gpu="H100", nodes=64, pods="H100:32:400"), lang))
    assert alike[fabric] == "InfiniBand 400G" and alike[injection] == 50  # pods alike: one number


@pytest.mark.parametrize("lang, total, words", [
    ("en", "Switches in total (compute fabric)", "node to node, no switches"),
    ("zh", "交换机总数（计算网络）", "节点直连，无交换机"),
])
def test_summary_of_a_torus_names_no_switch_model(lang, total, words):
    """A 4x4x4 torus has no switch: no leaf, spine or core row (the Designer shows no switch card either), and the
    total says why, as ``plan`` does; no switch model anywhere in the key numbers (it said "Leaf switches 0 QM9700")."""
    book = _whole_book(Design(gpu="H100", nodes=64, topology="torus", torus_dims="4x4x4"), lang)
    numbers, models = _key_numbers(book), _key_numbers(book, column=3)
    assert numbers[total] == 0 and models[total] == words
    assert not {"Leaf switches", "Spine switches", "Core switches", "叶交换机", "脊交换机", "核心交换机"} & set(numbers)
    assert "QM9700" not in {str(v) for v in models.values()}


# jobcli47: a classic Dragonfly's "Tiers" is the one router tier its own words say (core.fabric.families.switch_tiers)
@pytest.mark.parametrize("lang, tiers", [("en", "Tiers"), ("zh", "层数")])
def test_summary_of_a_classic_dragonfly_says_one_router_tier(lang, tiers):
    """1,024 H100s as a classic Dragonfly: each group's routers are one tier (node, local and global ports on the same
    router; "1 router tier, ... groups, global links"); the Summary said "Tiers 2" (``FabricPlan.tiers``: two switch
    hops or more). The Optimize column and the plan's summary count the same."""
    from core.fabric.families import switch_tiers, tier_words

    design = Design(gpu="H100", gpus=1024, topology="classic-dragonfly")
    p = plan(design)
    with language("en"):
        assert tier_words(p.fabric).startswith("1 router tier")
    assert p.fabric.tiers == 2 and switch_tiers(p.fabric.family, p.fabric.tiers) == p.summary()["tiers"] == 1
    assert switch_tiers(design.topology, p.fabric.tiers) == 1  # the Optimize page's column (by topology)
    assert _key_numbers(_whole_book(design, lang))[tiers] == 1


def test_capex_per_gpu_has_one_name_on_the_cards_the_workbook_and_compare():
    """The capex per GPU is one number: the key numbers' card and the Cost & power tab's card carry one label, and
    the workbook's row reads as Compare's (``Capex per GPU``, its unit in the unit column); the Cost tab and the
    workbook called it "Cost per GPU"."""
    from core.analysis.compare import metrics
    from core.figures.keynumbers import cost_key_numbers, key_numbers
    from core.formats.xlsx import key_number_rows
    from core.i18n import _, language

    p = plan(Design(gpu="H100", nodes=4))
    for lang in ("en", "zh"):
        with language(lang):
            top = next(k for k in key_numbers(p.summary()) if k.key == "capex_per_gpu")
            tab = next(k for k in cost_key_numbers(p) if k.key == "capex_per_gpu")
            assert top.label == tab.label and top.value == tab.value
            compare = next(_(m.label) for m in metrics() if m.key == "capex_per_gpu_usd")
            rows = [row for row in key_number_rows(p) if row[1] == p.summary()["cost"]["capex_per_gpu_usd"]]
            assert [row[0] for row in rows] == [compare.split(" [")[0]], (rows, compare)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_workbooks_capex_is_named_as_the_capex_card(lang):
    """The workbook's capex row has the capex card's label (the pages' "Capex, whole cluster"), its price basis a row
    of its own, in both languages."""
    from core.figures.keynumbers import key_numbers

    p = plan(Design(gpus=256))
    numbers = labelled(book_of(Design(gpus=256), lang).worksheets[0])
    with language(lang):
        card = next(k for k in key_numbers(p.summary()) if k.key == "capex")
        basis = _("street")
    assert numbers[card.label] == pytest.approx(p.cost.capex_usd)
    assert numbers[_("Price basis") if lang == "en" else "价格依据"] == basis
    assert not any("street prices" in str(label) or "街头" in str(label) for label in numbers)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_network_sheet_is_its_bill_as_the_bom_sheet_and_its_sizing_in_words(lang):
    """A storage or management network's sheet: its rows as the BOM sheet writes them (the item, and where it sits
    in the where column, not glued to the item; the price ranges) and its sizing as the review pack shows it: no
    engine keys (``switches[0].id_prefix``, ``port_speed_gbps``) and the headers in the workbook's language."""
    from core.formats.networkwords import sizing_headline

    p = plan(Design(nodes=16))
    with language(lang):
        book = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(p)))
        bom = rows(book[book.sheetnames[1]])
        ws = book[xlsx.sheet_name(network_name("storage").capitalize())]
        sheet = rows(ws)
        headline, words = sizing_headline("storage", p.networks.storage), _("down ports")
        storage = network_name("storage", "bill")
    header = bom[0]  # category, network, item, where, ...: this sheet's header is the same but the network
    assert sheet[2] == header[:1] + header[2:]
    mine = [r[:1] + r[2:] for r in bom[1:-1] if r[1] == storage]
    assert mine and sheet[3:3 + len(mine)] == mine and all(r[2] for r in mine)  # each where said, in its column
    text = [str(v) for r in sheet[3 + len(mine):] for v in r if v is not None]
    assert headline in text and words in text
    assert not [t for t in text if "[0]" in t or "_gbps" in t or t.startswith("switches.")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_bill_row_says_where_it_sits_with_two_nvlink_levels(lang):
    """GB200 with a two-level NVLink domain: the second level's switch units, modules and fibres and the extra
    first-level trays are named as published, their level in the where column (they read "... (NVLink level 2)"
    in the item with an empty where: their names are in ``scaleup.toml``, not the catalog's parts)."""
    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    with language(lang):
        table = xlsx.bom_table(p)
    assert all(table["where"]), table[table["where"] == ""][["item", "catalog_id"]].to_dict("records")
    level2 = table[table["catalog_id"].str.startswith("NVLINK5-")]
    assert len(level2) == 4 and level2["where"].str.contains("NVLink").all()
    assert not level2["item"].str.contains("NVLink level|NVLink）|级", regex=True).any()


def excel_text(value: float, fmt: str) -> str:
    """How Excel shows ``value`` in a number format of conditional sections (``[>=0.1]0.0%;...;0.000%``) whose
    patterns are ``#,##0``, ``0.0``, ``0.00%`` and the like: the first section whose condition holds, else the
    last."""
    for section in fmt.split(";"):
        if section.startswith("[>="):
            bound, pattern = section[3:].split("]", 1)
            if value < float(bound):
                continue
        else:
            pattern = section
        shown = value * 100 if pattern.endswith("%") else value
        places = len(pattern.rstrip("%").partition(".")[2])
        return f"{shown:{',' if ',' in pattern else ''}.{places}f}" + ("%" if pattern.endswith("%") else "")
    raise AssertionError(fmt)


@pytest.mark.parametrize("design", [Design(), Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)])
def test_the_summarys_share_and_power_read_as_the_pages_write_them(design):
    """The pack's network share "6.82%" read "6.8%" in the workbook, GB200's IT power "1,264" kW in Compare's kW row
    "1,263.6": a share cell reads as ``units.percent``, a kW cell as ``units.kw`` (the card's figures in kW)."""
    from core import units

    p = plan(design)
    ws = book_of(design)["Summary"]
    cells = {c.value: ws.cell(c.row, 2) for c in ws["A"] if isinstance(c.value, str)}
    share = next(cell for label, cell in cells.items() if "share of capex" in label)
    assert excel_text(share.value, share.number_format) == units.percent(p.cost.network_share)
    for label, kw in (("IT power", p.cost.it_kw), ("Network power", p.cost.network_kw)):
        assert excel_text(cells[label].value, cells[label].number_format) == units.kw(kw), label
    # Compare's kW row (designs side by side in one unit, kW) reads as the workbook; the card alone takes its own
    # unit (1.26 MW): the same three figures, the documented rule for a number alone
    assert compare_figs.format_value(p.cost.it_kw, "kw") == units.kw(p.cost.it_kw)
    card = next(k for k in key_numbers(p.summary()) if k.key == "it_power")
    assert card.value == units.power(p.cost.it_kw)


@pytest.mark.parametrize("lang, unused", [("en", "not used by this topology"), ("zh", "此拓扑不使用")])
def test_the_design_sheet_says_which_settings_the_topology_does_not_read(lang, unused):
    """The Design sheet gave "Dragonfly+ global ratio 1" on a rail-optimized design where the unused group size
    said "auto": a field the family does not read (``core.fabric.families.reads``) says so, its value kept when
    set; a Dragonfly+ design shows its own."""
    from core.fabric.families import reads

    def values(design):
        with language(lang):
            return {key: value for _label, value, key in xlsx.design_rows(plan(design))}

    rail = values(Design(global_ratio=2.0))
    assert rail["global_ratio"] == ("2 (not used by this topology)" if lang == "en" else "2（此拓扑不使用）")
    assert rail["group_leaves"] == rail["torus_dims"] == unused
    assert all((value == unused or str(value).endswith(("(" + unused + ")", "（" + unused + "）")))
               == (not reads("rail-optimized", key)) for key, value in rail.items())
    dragonfly = values(Design(topology="dragonfly", gpus=4096))
    assert dragonfly["global_ratio"] == 1.0 and dragonfly["torus_dims"] == unused
