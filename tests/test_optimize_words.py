"""The optimizer's answer in words (core/analysis/optimizewords.py), on constructed results: the search's counts
say how the feasible designs were decided (never more feasible than "planned"), the costed count is this run's,
the other family's sentence adds its three numbers up and names only the counts that differ; both languages."""

from __future__ import annotations

import re

import pytest

from core.analysis.optimize import Candidate, OptimizeResult
from core.analysis.optimizewords import search_words, why_costlier
from core.design import Design
from core.i18n import language, usd
from tests.i18n_check import english_leaks


def _result(pruned: int) -> OptimizeResult:
    """The default search's counts (H100, 32 GPUs): 18,120 candidates, 11,476 feasible."""
    return OptimizeResult(best=None, best_plan=None, pareto=[], considered=18_120, feasible=11_476,
                          rejected={"a": 6_000, "b": 644}, seconds=12.0, costed=3_058, sizings=1, metric="busbw_gbytes",
                          explanation=[], pruned=pruned)


def test_the_counts_say_how_the_feasible_designs_were_decided():
    with language("en"):
        text = search_words(_result(pruned=11_476 - 3_058))
    assert text.startswith("18,120 candidates: 11,476 meet every constraint, 6,644 are ruled out")
    assert "This run laid out and costed 3,058 of the 11,476 in full" in text and "provable bounds" in text
    assert "planned" not in text
    with language("zh"):
        text = search_words(_result(pruned=11_476 - 3_058))
    assert "18,120" in text and "3,058" in text and "6,644" in text and not english_leaks(text)


def test_without_bounds_no_costed_count_is_said():
    with language("en"):
        text = search_words(_result(pruned=0))
    assert "This run" not in text and text.endswith("cannot be built.")


def _pair(best_tiers=1, other_tiers=1, best_switches=1, other_switches=1):
    """The review's pair: a RoCE design of $1,964,518 ($115,732 fabric) and an InfiniBand one $156,332 dearer whose
    compute fabric is $23,716 cheaper."""
    best = Candidate(0, Design(fabric="ethernet"), capex_usd=1_964_518.0, network_capex_usd=115_732.0,
                     switches=best_switches, tiers=best_tiers)
    best.network_by_category = {"switch": 60_000.0, "cable": 55_732.0}
    other = Candidate(1, Design(fabric="infiniband"), capex_usd=2_120_850.0, network_capex_usd=92_016.0,
                      switches=other_switches, tiers=other_tiers)
    other.network_by_category = {"switch": 50_000.0, "cable": 42_016.0}
    return best, other


def test_the_other_family_sentence_adds_up():
    best, other = _pair()
    with language("en"):
        text = why_costlier(best, other)
    assert ("the InfiniBand design spends $180,048 more outside the compute fabric" in text
            and "$23,716 less on the compute fabric itself, $156,332 more capex in all." in text)
    assert "tiers" not in text and "this design" not in text  # nothing else differs: no parenthesis
    with language("zh"):
        text, amounts = why_costlier(best, other), [usd(v) for v in (180_048, 23_716, 156_332)]
    assert all(a in text for a in amounts) and not english_leaks(text)


def test_only_the_counts_that_differ_are_named():
    best, other = _pair(other_switches=12)
    with language("en"):
        assert why_costlier(best, other).endswith(" (12 switches; this design: 1 switch).")
        best, other = _pair(other_tiers=2, other_switches=12)
        assert why_costlier(best, other).endswith(" (2 tiers and 12 switches; this design: 1 tier and 1 switch).")


def test_a_fabric_category_is_named_when_it_differs_most():
    best, other = _pair(other_tiers=2)
    other.capex_usd, other.network_capex_usd = 2_264_518.0, 415_732.0  # the same outside, $300,000 more switches
    other.network_by_category = {"switch": 360_000.0, "cable": 55_732.0}
    with language("en"):
        text = why_costlier(best, other)
    assert text == "the InfiniBand design spends $300,000 more on switches (2 tiers; this design: 1 tier)."
    with language("en"):
        assert "more outside" not in why_costlier(best, other, objective="compute")


@pytest.mark.parametrize("lang, switch, torus", [("en", "TH5 Ethernet RoCE, rail-only", "Ethernet RoCE, torus"),
                                                  ("zh", "TH5 以太网 RoCE，仅轨道", "以太网 RoCE，环面")])
def test_the_per_family_table_names_a_family_as_the_headline_does(lang, switch, torus):
    """The per-family table wrote "Ethernet RoCE TH5" where the answer's headline and the design labels write
    "2-tier TH5 Ethernet RoCE": one function names a switch family (``designwords.switch_family``), both read it."""
    from core.analysis.optimize import Constraints, Grid, design_label, optimize
    from core.figures.optimize import family_rows

    result = optimize("H100", 512, Constraints(), Grid(port_speeds=(400,), topologies=("rail-only", "torus")),
                      workers=1)
    with language(lang):
        rows = family_rows(result)
        labels = {c.index: design_label(c) for c in result.candidates}
    names = [r["family"] for r in rows]
    assert switch in names and torus in names, names
    for row in rows:  # each family's cheapest design: its label holds the family's words, in the same order
        if row["cheapest_index"] is not None and "TH" in row["family"]:
            family = re.split("[,，]", row["family"])[0]
            assert family in labels[row["cheapest_index"]], (family, labels[row["cheapest_index"]])
