"""Second review (rev47b) findings 8, 11, 12: one power format in the pack, the torus failure note's step,
zh words beside this session's strings."""

from __future__ import annotations

import re

import pytest

from core import units
from core.design import Design
from core.figures.keynumbers import key_numbers
from core.formats import report
from core.i18n import language
from core.plan import plan
from core.text import html_text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_packs_cost_note_writes_it_power_as_the_card_does(lang):
    """Dragonfly+ 4,096 GPUs: IT power 5,790.7 kW is "5.79 MW" on the card; the Cost and power note said "5,791 kW"."""
    p = plan(Design(gpu="H100", gpus=4096, topology="dragonfly"))
    with language(lang):
        card = next(k.value for k in key_numbers(report._summary(p)) if k.key == "it_power")
        doc = report._Doc(title="t")
        report._cost(doc, p)
        text = html_text(doc.sections[-1][2])
    assert card == units.power(p.cost.it_kw) == "5.79 MW"
    assert card in text
    assert units.kw(p.cost.it_kw) + " kW" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_torus_failure_note_names_the_training_step_only_when_it_prints_one(capsys, lang):
    """Torus of 512 H100s: without --model no step row, so the note says busbw alone; with llama3-70b and a link
    failed, the step row (16.460 -> 17.007 s, as the Performance page) and the note's "training step" are both there."""
    from tests.conftest import run_cli

    step = {"en": "training step", "zh": "训练单步耗时"}[lang]  # zh: the glossary's 单步耗时 (test_zh_glossary)
    code, out, _err = run_cli(capsys, "--lang", lang, "failure", "--topology", "torus", "--gpus", "512",
                              "--fail", "node:1")
    assert code == 0 and "16.460" not in out and step not in out
    code, out, _err = run_cli(capsys, "--lang", lang, "failure", "--topology", "torus", "--gpus", "512",
                              "--fail", "link:1", "--model", "llama3-70b")
    assert code == 0 and "17.007" in out and "16.460" in out and step in out


@pytest.mark.parametrize("design", [dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144), dict(gpu="H100", nodes=64)],
                         ids=["gb200-two-level", "h100"])
def test_the_chinese_cards_put_a_space_between_a_latin_word_and_chinese(design):
    """rev47b #12: the GB200 switch cards' hover read "2 层及第二级 NVLink共 110 台交换机" (and "…NVLink中没有核心交换机层"):
    the tier words end in a Latin word, so the total comes first and the tiers in brackets after it."""
    s = plan(Design(**design)).summary()
    with language("zh"):
        numbers = key_numbers(s)
    glued = [(k.key, m.group()) for k in numbers for text in (k.label, k.value, k.help)
             for m in re.finditer(r"[A-Za-z][\u4e00-\u9fff]", text)]
    assert not glued
    helps = {k.key: k.help for k in numbers}
    if design["gpu"] == "GB200-NVL72":
        assert "共 110 台交换机（2 层及第二级 NVLink）" in helps["switches_leaf"]


def test_a_gb200_sizing_line_counts_scalable_units_in_chinese_as_the_dragonflies_do(capsys):
    """rev47b #12: "6 个 SU × 4 = 24 台叶交换机" beside the Dragonfly's "16 个可扩展单元 × 8" (the glossary's 可扩展单元)."""
    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, "--lang", "zh", "plan", "--gpu", "GB200-NVL72", "--nodes", "144",
                              "--nvlink-domain", "144")
    assert code == 0 and "6 个可扩展单元 × 4 = 24 台叶交换机" in out and "个 SU" not in out
