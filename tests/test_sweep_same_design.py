"""A sweep says which points build the same design as an earlier one (core.analysis.sweep ``SweepPoint.same_as``):
leaf oversubscription on a one-tier fabric changes nothing, and the Sweep page's table and caption say so."""

from __future__ import annotations

import csv
import io
import json

import pytest

from core.analysis import sweep as sw
from core.design import Design
from core.figures.sweep import repeats_caption, same_note
from core.i18n import language
from tests import pagetest


def _sweep(base: Design, setting: str, values: tuple) -> sw.SweepResult:
    return sw.sweep(sw.SweepSpec(base=base, x=sw.Axis(setting=setting, values=values)))


def test_a_one_tier_fabric_builds_one_design_at_every_leaf_ratio():
    result = _sweep(Design(gpu="H100", gpus=32), "oversubscription", (1, 1.5, 2, 3))
    assert [p.same_as for p in result.points] == [None, 0, 0, 0] and result.repeats == 3
    with language("en"):
        assert same_note(result, result.points[2]) == "same design as 1: the setting changes nothing here"
        assert same_note(result, result.points[0]) == ""
        assert repeats_caption(result).startswith("3 points build the same design")


def test_points_that_build_other_designs_are_their_own():
    result = _sweep(Design(gpu="H100", gpus=1024), "oversubscription", (1, 1.5, 2, 3))
    assert result.repeats == 0 and len({p.value for p in result.points}) == 4
    tiers = _sweep(Design(gpu="H100", gpus=1024), "tiers", ("auto", "2", "3"))
    assert [p.same_as for p in tiers.points] == [None, 0, None]  # auto plans two tiers here


def test_the_sweep_page_notes_the_repeated_design():
    at = pagetest.opener("../pages/5_Sweep.py")({"n": "4"})  # 32 GPUs under one leaf
    frame = at.dataframe[0].value
    assert list(frame["note"]) == ["", *["same design as 1: the setting changes nothing here"] * 3]
    assert list(frame.columns).index("note") == 2  # beside the value, in view at 1,024 px (the reasons after it)
    assert any("3 points build the same design as an earlier one" in c.value for c in at.caption)
    wide = pagetest.opener("../pages/5_Sweep.py")({"n": "128"})
    assert "note" not in wide.dataframe[0].value.columns  # no repeated design, no note column


def test_the_reasons_column_only_when_a_point_cannot_be_built():
    at = pagetest.opener("../pages/5_Sweep.py")({"n": "4"})  # every leaf ratio builds on one leaf
    assert "Why there is no value" not in at.dataframe[0].value.columns


def test_the_chart_title_spaces_a_latin_setting_name_in_chinese_only_beside_latin_letters():
    """zh: ``每 GPU 资本支出 [美元]随 Dragonfly 全局比的变化`` (a space between 随 and a Latin word, none before a
    Chinese one), through ``core.i18n.embedded``; en unchanged."""
    from core.figures.sweep import title

    dragonfly = _sweep(Design(gpu="H100", gpus=4096, topology="dragonfly"), "global_ratio", (1,))
    leaf = _sweep(Design(gpu="H100", gpus=1024), "oversubscription", (1,))
    with language("zh"):
        assert "随 Dragonfly 全局比的变化" in title(dragonfly)
        assert "随叶层" in title(leaf)
    with language("en"):
        assert title(dragonfly) == "Capex per GPU [USD] against Dragonfly global ratio"


def test_the_sweep_command_notes_the_repeated_design_as_the_page_does(capsys):
    """``python -m core sweep``'s table says which points repeat an earlier design (the page's note column and
    caption, ``same_note`` / ``repeats_caption``), in both languages."""
    from tests.conftest import run_cli

    args = ("sweep", "--gpus", "32", "--set", "oversubscription=1,1.5,2,3")
    code, out, _err = run_cli(capsys, *args)
    assert code == 0
    assert out.count("(same design as 1: the setting changes nothing here)") == 3
    assert "3 points build the same design as an earlier one" in out
    code, out, _err = run_cli(capsys, "--lang", "zh", *args)
    with language("zh"):
        note = same_note(_sweep(Design(gpu="H100", gpus=32), "oversubscription", (1, 1.5)),
                         _sweep(Design(gpu="H100", gpus=32), "oversubscription", (1, 1.5)).points[1])
    assert code == 0 and out.count(note) == 3 and f"（{note}）" in out  # full-width brackets after CJK text


def test_the_sweep_command_lines_up_its_values_when_a_label_is_wide(capsys):
    """A grid's labels (``1 / 以太网 RoCE``, 15 terminal columns) are wider than a row's usual label width: every
    value still starts in one column."""
    from core.cli.common import display_width
    from tests.conftest import run_cli

    for lang in ("en", "zh"):
        code, out, _err = run_cli(capsys, "--lang", lang, "sweep", "--gpus", "1024", "--set", "oversubscription=1,3",
                                  "--set2", "fabric=infiniband,ethernet")
        rows = [line for line in out.splitlines() if " / " in line and not line.endswith((".", "。"))]  # not the base sentence
        assert code == 0 and len(rows) == 4
        starts = {display_width(line[:len(line) - len(line.split("  ")[-1].split(" ")[-1])]) for line in rows}
        assert len(starts) == 1, rows


def test_a_heatmaps_colour_bar_shows_numbers_within_its_cells_values():
    """The colour bar spans its cells' values ($64,099 to $76,682 per GPU here): its ticks must fall inside that
    span (they ran from $0 in steps of $20,000, and the bar showed no number at all)."""
    from core.figures.sweep import figure

    result = sw.sweep(sw.SweepSpec(base=Design(gpu="B300", nodes=2048),
                                   x=sw.Axis(setting="oversubscription", values=(1, 1.5, 2, 3)),
                                   y=sw.Axis(setting="fabric", values=("infiniband", "ethernet"))))
    for lang in ("en", "zh"):
        with language(lang):
            heat = figure(result).data[0]
        values = [v for row in heat.z for v in row if v is not None]
        inside = [(t, text) for t, text in zip(heat.colorbar.tickvals, heat.colorbar.ticktext)
                  if min(values) <= t <= max(values)]
        assert len(inside) >= 2, (lang, heat.colorbar.tickvals, min(values), max(values))


def test_a_point_whose_metric_has_no_value_is_built_not_unbuildable(capsys):
    """A Clos has no node-to-node hops: its points are built, only the metric has no value there. The chart, the
    table and the command said "cannot be built" and "0 of 2 points can be built"; now "no value", and the count
    says they are built. A point whose design fails still "cannot be built"."""
    from core.figures.sweep import count_sentence, figure, gap_word
    from tests.conftest import run_cli

    result = sw.sweep(sw.SweepSpec(base=Design(gpu="H100", gpus=256), x=sw.Axis(setting="gpus", values=(256, 1024)),
                                   metric="hops_node_max"))
    assert all(p.planned and p.value is None for p in result.points) and result.buildable == 2
    with language("en"):
        assert gap_word(result.points[0]) == "no value"
        assert count_sentence(result).startswith("2 of 2 points can be built. 2 of them have no value")
        assert figure(result).data[1].name == "no value"
    code, out, _err = run_cli(capsys, "sweep", "--gpus", "256", "--set", "gpus=256,1024", "--metric", "hops_node_max")
    assert code == 0 and "cannot be built" not in out and out.count("no value: ") == 2
    code, out, _err = run_cli(capsys, "sweep", "--nodes", "64", "--set", "tiers=1,2")
    assert "cannot be built: " in out and "1 of 2 points can be built." in out


def test_the_command_heads_its_table_with_the_charts_title(capsys):
    """zh: "随 GPU 数的变化" (a space before a Latin setting name, ``core.i18n.embedded``), as the chart's title;
    the command wrote "随GPU 数"."""
    from core.figures.sweep import title
    from tests.conftest import run_cli

    result = _sweep(Design(gpu="H100", gpus=256), "gpus", (256,))
    for lang in ("en", "zh"):
        code, out, _err = run_cli(capsys, "--lang", lang, "sweep", "--gpus", "256", "--set", "gpus=256")
        with language(lang):
            assert code == 0 and out.splitlines()[0] == title(result)
    assert "随 GPU 数" in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_sweep_files_say_which_points_repeat_and_which_were_built(capsys, lang):
    """``sweep``'s CSV and JSON (and the page's download, the same ``download_rows``) carry ``planned``, ``same_as``
    and the page's note (in English, as the CLI's machine formats are), as the page's table says them; the table names the design every point starts from, as the
    page's caption does."""
    from core.figures.sweep import base_sentence
    from core.plan import plan
    from tests.conftest import run_cli

    args = ("--lang", lang, "sweep", "--gpus", "32", "--set", "oversubscription=1,1.5")
    result = _sweep(Design(gpu="H100", gpus=32), "oversubscription", (1, 1.5))
    note = same_note(result, result.points[1])  # machine formats are in English, as their reasons
    with language(lang):
        base = base_sentence(result, plan(Design(gpu="H100", gpus=32)), "cli")
    code, out, _err = run_cli(capsys, *args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [(r["planned"], r["same_as"], r["note"]) for r in rows] == [("True", "", ""),
                                                                                   ("True", "0", note)]
    code, out, _err = run_cli(capsys, *args, "--format", "json")
    points = json.loads(out)["points"]
    assert [(p["planned"], p["same_as"], p["note"]) for p in points] == [(True, None, ""), (True, 0, note)]
    code, out, _err = run_cli(capsys, *args)
    assert base in out and {"en": "32 x H100 in 4 nodes", "zh": "32 × H100"}[lang] in base
    code, out, _err = run_cli(capsys, "sweep", "--nodes", "64", "--set", "tiers=1,2", "--format", "json")
    assert [p["planned"] for p in json.loads(out)["points"]] == [False, True]  # one tier cannot hold 512 ports


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_sweep_without_any_value_says_there_is_nothing_to_draw(lang):
    """Every point without a value: the chart says so in the plot, no empty -1 to 1 axis and no legend entry for a
    line that is not there; the crosses keep their reasons on hover. A heatmap says it too, without a colour bar."""
    from core.figures.sweep import NOTHING_TO_DRAW, figure
    from core.i18n import _

    result = sw.sweep(sw.SweepSpec(base=Design(gpu="H100", gpus=256), x=sw.Axis(setting="gpus", values=(256, 1024)),
                                   metric="hops_node_max"))
    grid = sw.sweep(sw.SweepSpec(base=Design(gpu="H100", gpus=256), x=sw.Axis(setting="gpus", values=(256, 1024)),
                                 y=sw.Axis(setting="tiers", values=("2", "3")), metric="hops_node_max"))
    with language(lang):
        fig, heat, said = figure(result), figure(grid), _(NOTHING_TO_DRAW)
    def words(figure_):  # the annotation unwrapped (a line break is a space in English, nothing in Chinese)
        return [a.text.replace("<br>", " " if lang == "en" else "") for a in figure_.layout.annotations]

    assert said in words(fig) and said in words(heat)
    assert fig.data[0].showlegend is False and fig.data[1].name and tuple(fig.layout.yaxis.range) == (0, 1)
    assert heat.data[0].showscale is False
    full = figure(_sweep(Design(gpu="H100", gpus=32), "oversubscription", (1, 1.5)))
    assert not full.layout.annotations or said not in [a.text for a in full.layout.annotations]


def test_the_sweep_tables_reasons_wrap_within_the_window():
    """At a 1,024 px window the reason column took the rest of the row and ran past the window's edge, cut: it now
    wraps in what the columns before it leave of the main area, its rows tall enough for the longest reason."""
    import pandas as pd

    from webui import tablefit, tables

    at = pagetest.opener("../pages/5_Sweep.py")({"n": "64", "sw_x": "tiers", "sw_xv": "1,2,3",
                                                 "sw_m": "switches_total"})
    frame = at.dataframe[0].value
    reason = "Why there is no value"
    config, row_px = tablefit.sweep_points_columns(pd.DataFrame(frame), reason)
    width = config[reason]["width"]
    before = tablefit.leading_px(frame, {}, [c for c in frame.columns if c != reason])
    assert before + width <= tablefit.MAIN_PX
    longest = max(tables.text_px(t) for t in frame[reason])
    assert longest > width - tables.CELL_PADDING_PX  # one line would be cut ...
    lines = (row_px - tablefit.ROW_PAD_PX) // tablefit.LINE_PX
    assert lines * (width - tables.CELL_PADDING_PX) >= longest  # ... wrapped, it reads whole
    assert at.dataframe[0].proto.row_height == row_px
