"""Money in a table column (``core.units.money_column``): Chinese amounts in 万 and 亿 share the column's decimals
("4.630万美元" beside "4.617万美元", not "4.63万美元"), as an English column keeps its trailing zeros; an amount
alone is ``usd``'s. Read by the Designer's bill and the other money tables (``webui.tables.money``), Compare's money
rows across the designs, the review pack's bill, networks and remedy tables."""

from __future__ import annotations

import re

import pytest

from core.i18n import language, money_context, usd
from core.units import money_column

AMOUNT = re.compile(r"([\d,]+)(?:\.(\d+))?([万亿])")


def decimals(texts: list[str]) -> set[tuple[str, int, int]]:
    """Per size of amount among ``texts`` in 万 or 亿 (its unit and whole digits) the decimals written: one
    entry per size when a column shares its decimals."""
    found = [AMOUNT.search(t) for t in texts]
    return {(m.group(3), len(m.group(1).replace(",", "")), len(m.group(2) or "")) for m in found if m}


def shared(texts: list[str]) -> bool:
    sizes = [size[:2] for size in decimals(texts)]
    return len(sizes) == len(set(sizes))


def test_a_chinese_column_shares_its_decimals_and_an_english_one_is_usds():
    values = [46_300, 46_170, 5_118_000, 1_800, 112_000_000, None]
    with language("zh"):
        assert money_column(values) == ["4.630万美元", "4.617万美元", "511.8万美元", "1,800美元", "1.12亿美元", "-"]
        assert money_column([3.9689e7, 3.34043e6, 788_520, 50_224]) == [  # never more than its own figures
            "3,969万美元", "334.0万美元", "78.85万美元", "5.022万美元"]
        assert money_column([46_000, 50_000]) == ["4.6万美元", "5.0万美元"]
        assert usd(46_300) == "4.63万美元"  # alone: as ever
        assert money_column([40_000, 50_000]) == ["4万美元", "5万美元"]  # none needs a decimal
        with money_context("CNY", 7.0):
            assert money_column([10_000, 10_010]) == ["7.000万元", "7.007万元"]
    with language("en"):
        assert money_column(values) == [usd(v) for v in values]


def test_the_designers_bill_and_the_review_packs_bill_share_a_columns_decimals():
    import pandas as pd

    from core.design import Design
    from core.formats.report import design_report_html
    from core.plan import plan
    from webui.tables import money

    p = plan(Design(nodes=64, storage="ethernet"))
    with language("zh"):
        frame = money(pd.DataFrame({"a": [r.extended_price_usd for r in p.bom]}), ["a"])
        assert shared(list(frame["a"])), list(frame["a"])
        html = design_report_html(p, name="x", share_link="http://x")
    bill = re.search(r'<table class="fp-bom fp-dense" data-bom="all">.*?</table>', html, re.S).group(0)
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", bill, re.S)
    cells = [[c for c in re.findall(r'<td class="num">([^<]*)</td>', row) if "美元" in c] for row in rows]
    amounts = [found[-1] for found in cells if found]  # the amount column (after the unit price)
    assert shared(amounts) and len(amounts) > 10, amounts


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compares_money_rows_share_their_decimals_across_the_designs(lang):
    from core.analysis.compare import compare
    from core.design import Design
    from core.figures.compare import comparison_rows

    designs = [("a", Design(nodes=64)), ("b", Design(nodes=66)), ("c", Design(nodes=64, fabric="ethernet"))]
    with language(lang):
        comparison = compare(designs)
        rows, _verdicts = comparison_rows(comparison)
    heads = ["1. a", "2. b", "3. c"]  # the designs, not their deltas
    money = [[row[h] for h in heads] for row in rows if any("美元" in row[h] or "$" in row[h] for h in heads)]
    assert money
    if lang == "zh":
        assert all(shared(cells) for cells in money), money


def test_optimizes_family_and_front_tables_share_a_columns_decimals():
    """The per-family table read "333万美元" under "332.8万美元"."""
    from core.analysis.optimize import Constraints, Grid, optimize
    from core.figures.optimize import family_rows, front_rows

    result = optimize("H100", 64, Constraints(), Grid(), workers=1)
    with language("zh"):
        cheapest = [r["cheapest"] for r in family_rows(result) if r["cheapest"]]
        front = [r["capex"] for r in front_rows(result)]
    assert len(cheapest) > 3 and shared(cheapest) and shared(front), (cheapest, front)


def test_the_sweeps_money_column_is_the_one_column_rule():
    """The sweep's table (the page and ``python -m core sweep``) writes an amount's points as one column."""
    from core.analysis.sweep import Axis, SweepSpec, sweep
    from core.design import Design
    from core.figures.sweep import value_column

    result = sweep(SweepSpec(base=Design(gpu="H100", gpus=512), x=Axis(setting="oversubscription", values=(1.0, 2.0, 4.0)),
                             metric="capex_per_gpu_usd"))
    with language("zh"):
        assert value_column(result) == money_column([p.value for p in result.points])
        assert all("万美元" in text for text in value_column(result))
