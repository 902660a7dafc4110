"""The Optimize page's words: the Pareto front keeps no design a cheaper one matches at the precision shown (busbw
to 0.1 GB/s; the rule said on the page), and the headline states the answer's per-GPU scale-out bandwidth and
oversubscription against the sidebar design's."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from core.analysis.optimize import pareto_front
from core.analysis.optimizewords import bandwidth_against, front_rule
from core.design import Design
from core.i18n import language
from core.plan import plan


def _cand(index: int, capex: float, busbw: float) -> SimpleNamespace:
    return SimpleNamespace(index=index, costed=True, capex_usd=capex, switches=60, busbw_gbytes=busbw)


def test_a_costlier_design_showing_the_same_busbw_is_not_on_the_front():
    cands = [_cand(0, 751e6, 78.61), _cand(1, 752e6, 78.63), _cand(2, 753e6, 78.64), _cand(3, 754e6, 78.66),
             _cand(4, 760e6, 154.4), _cand(5, 761e6, 154.42), _cand(6, 762e6, 10.0)]
    front = pareto_front(cands, "busbw_gbytes")
    assert [c.index for c in front] == [0, 3, 4]  # 78.6, 78.7 (shown apart), 154.4
    shown = [f"{c.busbw_gbytes:.1f}" for c in front]
    assert len(set(shown)) == len(shown)


def test_days_tie_at_a_tenth():
    cands = [SimpleNamespace(index=i, costed=True, capex_usd=1e6 * (i + 1), switches=1, days=d)
             for i, d in enumerate((10.04, 10.01, 9.9, 9.94))]
    assert [c.index for c in pareto_front(cands, "days")] == [0, 2]


@pytest.mark.parametrize("lang,words", [
    ("en", "Each design on the front performs better than every cheaper one at 0.1 GB/s of all-reduce bus bandwidth"),
    ("zh", "前沿上的每个设计在 all-reduce 总线带宽 0.1 GB/s 的精度下")])
def test_the_rule_is_said(lang, words):
    with language(lang):
        assert front_rule("busbw_gbytes").startswith(words)


@pytest.mark.parametrize("lang,words", [("en", "at 0.8 Gb/s of all-reduce bus bandwidth"),
                                        ("zh", "all-reduce 总线带宽 0.8 Gb/s 的精度下")])
def test_the_rules_step_is_in_the_unit_asked_for(lang, words):
    """The front's 0.1 GB/s step (``FRONT_STEP``) is 0.8 Gb/s in bits."""
    with language(lang):
        assert words in front_rule("busbw_gbytes", "Gb/s") and "GB/s" not in front_rule("busbw_gbytes", "Gb/s")


def test_the_headline_compares_the_answers_bandwidth_with_the_sidebars():
    sidebar = plan(Design(gpu="H100", nodes=64))
    answer = plan(Design(gpu="H100", nodes=64, fabric="ethernet", port_speed_gbps=100, oversubscription=3.0))
    words = bandwidth_against(answer, sidebar, "GB/s")
    assert words.startswith("Per GPU it has 12.5 GB/s of scale-out bandwidth (one direction), 25% of the sidebar "
                            "design's 50 GB/s.")
    assert "Bisection ratio: 1:1 " in words  # one 64-port 100G switch: no cut crosses an uplink and "(the sidebar design's: 1:1)" in words
    assert "100 Gb/s" in bandwidth_against(answer, sidebar, "Gb/s") and "400 Gb/s" in bandwidth_against(
        answer, sidebar, "Gb/s")
    assert "the same as the sidebar design's" in bandwidth_against(sidebar, sidebar, "GB/s")
    assert bandwidth_against(answer, None, "GB/s") == ""
    with language("zh"):
        assert "为侧边栏设计 50 GB/s 的 25%" in bandwidth_against(answer, sidebar, "GB/s")


def test_the_cli_front_says_what_separates_rows_at_one_shown_price(capsys):
    """review45 2.9: `optimize --gpus 256` listed "$11.9 M ... 100G ports" and "$11.9 M ... 200G ports": two rows at
    one shown price. A second column gives each row's capex above the front's cheapest in the money format, whole
    dollars below $1 M (the JSON's capex differences)."""
    import json
    import re

    from core.i18n import usd
    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, "optimize", "--gpus", "256", "--format", "json")
    assert code == 0
    front = [c["metrics"]["capex_usd"] for c in json.loads(out)["pareto"]]
    code, out, _err = run_cli(capsys, "optimize", "--gpus", "256", "--format", "table")
    assert code == 0 and "costs more than the cheapest" in out
    rows = out.split("costs more than the cheapest on the front.\n", 1)[1].split("rejected", 1)[0].splitlines()
    shown = [re.split(r"\s{2,}", r.strip())[:2] for r in rows if r.strip()]
    assert len(shown) == len(front) >= 2
    assert shown[0][1] == "-" and [s[1] for s in shown[1:]] == [usd(c - front[0], signed=True) for c in front[1:]]
    prices = [s[0] for s in shown]
    tied = [i for i in range(1, len(prices)) if prices[i] == prices[i - 1]]
    assert all(shown[i][1] != shown[i - 1][1] for i in tied)
