"""Tables as the pages show them (webui/tables.py): a money column is as wide as its widest value."""

from __future__ import annotations

from core.i18n import language, usd
from webui.tables import CHAR_PX, MAX_FIT_PX, fitting_width, money_column


def test_a_money_column_fits_its_widest_value_even_far_down():
    values = [usd(1_200.0)] * 30 + [usd(79_891_412.0, exact=True)]  # the grid measures the first rows only
    assert fitting_width(values) > fitting_width(values[:30]) + 4 * CHAR_PX
    assert fitting_width(values) >= len(values[-1]) * CHAR_PX
    assert money_column("total USD", values)["width"] == fitting_width(values, "total USD")
    assert fitting_width(["x" * 500]) == MAX_FIT_PX


def test_chinese_money_counts_wide_characters_twice():
    with language("zh"):
        wide = usd(79_891_412.0)
    assert "万" in wide or "亿" in wide
    assert fitting_width([wide]) > fitting_width([wide.replace("万", "").replace("亿", "").replace("美元", "")])


def test_a_table_wider_than_the_page_at_1024_px_says_it_scrolls():
    """Nine columns of cable lengths and media ran off a 1,024 px page without a hint; three short ones fit."""
    import pandas as pd

    from webui.tables import PAGE_PX_AT_1024, scrolls_at_1024

    narrow = pd.DataFrame({"Link class": ["leaf to spine"], "Links": [2048], "Longest [m]": [31.5]})
    assert not scrolls_at_1024(narrow)
    wide = pd.DataFrame({f"Column {i}": ["a value of some length"] for i in range(9)})
    assert scrolls_at_1024(wide)
    assert sum(fitting_width(wide[c], c) for c in wide.columns) > PAGE_PX_AT_1024


def test_a_turned_table_of_two_long_named_items_says_it_scrolls():
    """The Inference page's "Without the compute fabric" table, two designs of long names beside long field names,
    ran off a 1,024 px page without a hint (the caption came only past three items); two short pods still fit."""
    from webui.tables import show_turned

    class Page:
        def __init__(self):
            self.captions = []

        def dataframe(self, *args, **kwargs):
            pass

        def caption(self, text, **kwargs):
            self.captions.append(text)

    rows = [{"Design": name, "Cost per million output tokens": "$0.73", "Output tokens/s per GPU": 1337}
            for name in ("with the compute fabric", "without: front-end network only")]
    wide, narrow = Page(), Page()
    show_turned(rows, "Design", wide)
    show_turned([{"Pod": 1, "Nodes": 64}, {"Pod": 2, "Nodes": 1024}], "Pod", narrow)
    assert wide.captions and not narrow.captions


def test_the_chinese_by_network_table_of_a_pods_design_fits_at_1024_px():
    """The Designer's By network table in Chinese (five columns of 万美元 amounts) fits a 1,024 px page (measured:
    the grid drew it without a scrollbar) and says nothing about scrolling: a CJK character is one em of the grid's
    14 px font, not two Latin characters (17 px), which summed its columns to 580 px and showed the caption."""
    from core.figures.cost import networks_rows
    from core.formats import sharelink
    from core.plan import plan
    from webui.tables import WIDE_CHAR_PX, scrolls_at_1024, text_px, turned

    assert text_px("带外管理") == 4 * WIDE_CHAR_PX == 56
    design = sharelink.decode({"v": "1", "n": "64", "pods": "B200:32:800"})[0]
    with language("zh"):
        frame = turned(networks_rows(plan(design)), "网络")
    assert len(frame.columns) == 5 and not scrolls_at_1024(frame)


def test_a_money_header_is_measured_about_as_the_grid_draws_it():
    """``cluster capex [USD]`` is 112 px of text in the grid's font (measured at a 1,600 px window); counted as 19
    digits (161 px) the two-fabric table's two money columns took 130 px too many and cut its last header,
    ``network share``, at 1,600 px. Its value and the header's capitals still fit."""
    from webui.tables import CELL_PADDING_PX, text_px

    assert 112 <= text_px("cluster capex [USD]") <= 135
    assert fitting_width(["$43.7 M"], "cluster capex [USD]") <= 135 + CELL_PADDING_PX
    assert text_px("$403,967") >= 64  # digits as wide as drawn (64 px), never cut
