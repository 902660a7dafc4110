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

    step = {"en": "training step", "zh": "训练步时"}[lang]
    code, out, _err = run_cli(capsys, "--lang", lang, "failure", "--topology", "torus", "--gpus", "512",
                              "--fail", "node:1")
    assert code == 0 and "16.460" not in out and step not in out
    code, out, _err = run_cli(capsys, "--lang", lang, "failure", "--topology", "torus", "--gpus", "512",
                              "--fail", "link:1", "--model", "llama3-70b")
    assert code == 0 and "17.007" in out and "16.460" in out and step in out
