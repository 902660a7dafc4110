"""Sentences a page joins are joined by the one rule (``core.i18n.sentences``): a space after an English sentence,
none after a Chinese full stop. The Resilience page's failure caption read ``红色叉号标出故障元素。 此视图为聚合视图``
and the Compare page's caption, the pods' elements help and the sidebar's switch help joined the same way."""

from __future__ import annotations

import dataclasses
import re

import pytest

from core.analysis.stages import stages_note
from core.design import Design
from core.i18n import language
from core.perf.training_calibration import error_band_sentence
from core.plan import plan
from tests import pagetest
from tests.test_i18n import page_text

SPACED = re.compile(r"。 ")


@pytest.mark.parametrize("page, link", [
    ("../pages/6_Resilience.py", {"ng": "4096", "t": "df"}),  # the aggregated view's caption
    ("../pages/6_Resilience.py", {"n": "64", "pods": "B300:32:800"}),  # the pods' elements help
    ("../pages/4_Compare.py", {"n": "64"}),
])
def test_no_space_after_a_chinese_full_stop(page, link):
    at = pagetest.open_page(page, {**link, "lang": "zh"})
    text = page_text(at)
    assert not SPACED.findall(text), [text[max(0, m.start() - 30):m.end() + 30] for m in SPACED.finditer(text)]


# --- the engine's notes: the growth table's note (``core.analysis.stages.stages_note``), the training estimate's
# error band (``core.perf.training_calibration.error_band_sentence``), the storage and management networks' reasons
# (``core.networks.storage``, ``core.networks.management``: a count's sentence, then whose switch it is) were joined
# by hand with " " and read "。 其" in Chinese


def _strings(value):
    """Every string inside ``value`` (pydantic models, dataclasses, dicts and sequences)."""
    if isinstance(value, str):
        yield value
        return
    if hasattr(value, "model_dump"):
        value = value.model_dump()
    elif dataclasses.is_dataclass(value):
        value = dataclasses.asdict(value)
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    for item in items:
        yield from _strings(item)


def _notes(lang: str) -> list[str]:
    with language(lang):
        p = plan(Design(gpus=4096, fabric="ethernet", storage="ethernet"))
        return [stages_note(Design(nodes=64, stages=(128,))), error_band_sentence("CDNA 3", "bf16", False),
                *_strings(p.networks), *(row.why for row in p.bom)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sentences_are_joined_as_their_language_writes_them(lang):
    notes = _notes(lang)
    if lang == "zh":
        assert not [t for t in notes if "。 " in t]
        assert sum("。S" in t for t in notes) >= 3  # the storage and management reasons: "... 端口。SN5600 由 ..."
    else:
        assert not [t for t in notes if re.search(r"\.[A-Z]", t)]
        assert sum(". SN" in t for t in notes) >= 3
    assert notes[0] and notes[1]  # the growth note and the error band, each with two sentences


def test_the_re_terminated_cables_caption_joins_its_sentences():
    """The Racks & cabling tab's re-terminated cables (a design grown 64 -> 128 nodes): its caption's three sentences
    were joined with " " (``webui.physical_tab``), "……两端所在机柜。 每个阶段的机柜……" in Chinese."""
    at = pagetest.open_page("../pages/1_Designer.py", {"n": "64", "stg": "128", "tab": "Racks & cabling", "lang": "zh"})
    assert not at.exception
    (caption,) = [c.value for c in at.caption if "布线计划" in c.value and "机柜" in c.value and "阶段" in c.value]
    assert "。" in caption and not SPACED.findall(caption), caption
