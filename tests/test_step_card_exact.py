"""The Performance card writes a step time to three significant figures ("6 s") above the two-fabric table's three
decimals ("6.003"), the one rule of ``core.units.seconds``: a step alone is rounded as every card, a step beside
another to the millisecond. The card's help gives the table's form, so a reader tells they are one number."""

from __future__ import annotations

import pytest

from core.design import Design
from core.figures.keynumbers import training_key_numbers
from core.formats.joblink import DEFAULTS
from core.i18n import language
from core.perf import jobform
from core.plan import plan
from core import units


@pytest.mark.parametrize("lang, words", [("en", " s to the millisecond"), ("zh", "精确到毫秒为 ")])
def test_the_step_cards_help_says_the_tables_step(lang, words):
    p = plan(Design(nodes=64))
    job = jobform.job_from_settings(p, DEFAULTS)
    e = jobform.estimate_under(p, job, DEFAULTS)
    with language(lang):
        (card,) = [k for k in training_key_numbers(e) if k.key == "step_time"]
        (row,) = jobform.comparison_rows([("a", e, p)])
    exact = units.seconds(e.step_time_s)
    assert exact in row.values()  # the table's step ...
    assert card.value == f"{units.number(e.step_time_s)} s" and card.value != exact + " s"
    assert exact + words in card.help or words + exact in card.help  # ... in the card's help
