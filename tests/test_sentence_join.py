"""Sentences in running text (``core.i18n.sentences``): a space after an English sentence, none after a Chinese
one; the Inference page's captions join theirs with it (``。其成本``, not ``。 其成本``)."""

from __future__ import annotations

from pathlib import Path

from core.i18n import sentences


def test_sentences_join_per_language():
    assert sentences("One.", "", "Two.") == "One. Two."
    assert sentences("无扩展网络。", "其成本不含计算网络。") == "无扩展网络。其成本不含计算网络。"
    assert sentences("占比（单向）", "短横线") == "占比（单向）短横线"
    assert sentences() == "" and sentences("Only.") == "Only."


def test_the_inference_page_joins_no_sentence_with_a_space():
    page = (Path(__file__).resolve().parent.parent / "pages" / "8_Inference.py").read_text(encoding="utf-8")
    assert '+ " " +' not in page and '" ".join(' not in page and '**: {' not in page


def test_an_errors_way_out_is_joined_as_the_language_joins_sentences():
    """Every page shows an engine error's way out one way (``webui.safe.with_way_out``): the bold label, then the
    suggestion; a space after the English colon, none after the Chinese full-width one."""
    from core.i18n import language
    from webui.safe import with_way_out

    assert with_way_out("No.", "") == "No."
    with language("en"):
        assert with_way_out("No.", "Use 2.") == "No.\n\n**What would work:** Use 2."
    with language("zh"):  # the colon outside the bold: CommonMark does not close ** between ： and 用
        assert with_way_out("不行。", "用 2。") == "不行。\n\n**可行的做法**：用 2。"
