"""The growth stages' re-terminated cables by link class say each class in the language of the output (the CLI's
table and the review pack read ``core.analysis.stages.moved_by_class``), never the class key."""

from __future__ import annotations

from conftest import run_cli

from core.analysis.stages import growth, moved_by_class, moved_rows
from core.design import Design
from core.i18n import language


def test_the_cli_table_names_the_link_class_in_the_language(capsys):
    for lang, word in (("en", "  leaf-spine "), ("zh", "  叶-脊 ")):
        code, out, _err = run_cli(capsys, "stages", "--nodes", "64", "--stages", "256", "--format", "table",
                                  "--lang", lang)
        assert code == 0 and word in out, out
        assert lang == "en" or "leaf-spine" not in out, out


def test_moved_rows_and_the_step_agree():
    deltas = growth(Design(nodes=64, stages=[256]))
    with language("zh"):
        assert moved_by_class(deltas[0]) == [("叶-脊", 511)]
        assert [row[1:] for row in moved_rows(deltas)] == [("叶-脊", 511)]
