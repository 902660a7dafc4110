"""Ranges: one rule (``core.units.span``: ``{low} to {high}``, Chinese ``{low} 至 {high}``), one formatter per kind
(``money_range``, ``number_range``, ``percent_range``), read by every range a user sees: the Resilience page's
spares card, the Cost & power tab's range card, the cost chart's hover, the review pack, the CLI's ``catalog`` and
``train``, and the values a link setting accepts. A grep keeps hand-made ranges out of the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core import units
from core.i18n import language

ROOT = Path(__file__).resolve().parent.parent
SCANNED = sorted({*(ROOT / "core").rglob("*.py"), *(ROOT / "pages").glob("*.py"), *(ROOT / "webui").glob("*.py")})
HAND_MADE = [
    (re.compile(r"""["'][^"'\n]*\{low\} to \{high\}"""), "a message's own {low} to {high}"),
    (re.compile(r"""\{[^{}\n]*low[^{}\n]*\}\s*[-–]\s*\{[^{}\n]*high[^{}\n]*\}"""), "{low}-{high} or {low} – {high}"),
    (re.compile(r"""usd\([^)]*\)\}?\s*[-–]\s*\{?usd\("""), "two amounts joined by a dash"),
    (re.compile(r"""\{number\([^)]*\)\}\s*[-–]\s*\{number\("""), "two numbers joined by a dash"),
    (re.compile(r"""\{[\w.]+:g\}-\{[\w.]+:g\} m"""), "a length bin's name (units.length_bin_name)"),
]
"""Ranges written by hand: a template's own ``{low} to {high}`` (in a sentence too: "from {range}" takes the one
rule's), two ends joined by a hyphen or a dash."""


def hand_made_ranges(source: str) -> list[str]:
    return [f"{why}: {line.strip()}" for line in source.splitlines() for rule, why in HAND_MADE if rule.search(line)]


def test_the_grep_finds_hand_made_ranges():
    assert hand_made_ranges('x = _("Range {low} to {high} (catalog price ranges)")')
    assert hand_made_ranges('x = f"{usd(cost.capex_usd_low)} – {usd(cost.capex_usd_high)}"')
    assert hand_made_ranges('span = f"{number(m.low_m, 1)}–{number(m.high_m, 1)}"')
    assert hand_made_ranges('lambda: _("{low} to {high}").format(low=0, high="1,000,000")')
    assert hand_made_ranges('return f"{self.low_m:g}-{self.high_m:g} m"')
    assert hand_made_ranges('_("a whole number from {low} to {high}")')  # a bound in a sentence too
    assert hand_made_ranges("""f"{code} {entry['low']:g}-{entry['high']:g}" for code in codes""")
    assert not hand_made_ranges('_("a whole number from {range}").format(range=span(low, high))')


def test_no_hand_made_ranges():
    found = [f"{path.relative_to(ROOT)}: {hit}" for path in SCANNED if path.name != "units.py"
             for hit in hand_made_ranges(path.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang, word", [("en", " to "), ("zh", " 至 ")])
def test_every_kind_of_range_is_the_one_rule(lang, word):
    with language(lang):
        assert units.number_range(1, 3650) == f"1{word}3,650"
        assert units.percent_range(-0.12, 0.042, signed=True) == f"-12%{word}+4.2%"
        assert units.money_range(1.55e6, 2.84e6) == {"en": "$1.55 M to $2.84 M", "zh": "155万美元 至 284万美元"}[lang]
        assert units.money_range(49_983, 1_234_567, exact=True).endswith(word + ("$1,234,567" if lang == "en"
                                                                                 else "1,234,567美元"))


@pytest.mark.parametrize("lang, word", [("en", " to "), ("zh", " 至 ")])
def test_a_link_settings_accepted_values_say_their_range_as_every_range(lang, word):
    """The links' accepted values read "1 到 3,650" in Chinese where every other range reads 至."""
    from core.formats import resiliencelink
    from core.formats.joblink import _range

    with language(lang):
        lead = next(p for p in resiliencelink.RS.params if p.key == "lead")
        assert lead.describe() == f"1{word}3,650"
        assert _range(0.001, 1000, "{range} (trillions)")().startswith(f"0.001{word}1,000")


@pytest.mark.parametrize("lang, word", [("en", " to "), ("zh", " 至 ")])
def test_the_capex_range_card_and_the_training_error_band_use_the_range(lang, word):
    from core.design import Design
    from core.figures.keynumbers import cost_key_numbers
    from core.perf.training_calibration import error_band, error_band_sentence
    from core.plan import plan

    p = plan(Design())
    with language(lang):
        card = next(k for k in cost_key_numbers(p) if k.key == "capex_range")
        assert card.value == units.money_range(p.cost.capex_usd_low, p.cost.capex_usd_high)
        low, high, _runs, _scope = error_band("Hopper", "bf16", False)
        assert units.percent_range(low, high, signed=True) in error_band_sentence("Hopper", "bf16", False)
