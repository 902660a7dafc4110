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
