"""One design, one printed value: the CLI's table prints a number exactly as the page's card (``core.figures.keynumbers``,
which the pages and the review pack render) and the review pack print it, through the one formatter of its kind:
MFU and shares by ``core.units.percent`` (of the unrounded value), days by ``core.units.days``, latencies by
``core.units.milliseconds``, money by ``core.i18n.usd`` (compact; whole dollars only in the catalog's price book).
"""

from __future__ import annotations

import contextlib
import io
import re
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import cli_json

from core import units
from core.cli import main
from core.design import Design
from core.figures.keynumbers import key_numbers, training_key_numbers
from core.formats.report import report_job_settings
from core.i18n import language, money_context, usd
from core.perf import jobform
from core.plan import plan, shown_share

ROOT = Path(__file__).resolve().parent.parent
TORUS = ("--topology", "torus", "--gpus", "512")


def cli_text(*argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def card(numbers, key: str) -> str:
    return next(k.value for k in numbers if k.key == key)


@lru_cache(maxsize=None)
def torus_training():
    """The Performance page's default job on the torus (512 GPUs), its cards, and the CLI's ``train`` table."""
    p = plan(Design(topology="torus", gpus=512))
    settings = report_job_settings(p)
    estimate = jobform.estimate_under(p, jobform.job_from_settings(p, settings), settings)
    return p, estimate, training_key_numbers(estimate), cli_text("train", *TORUS, "--format", "table")


def test_mfu_communication_and_days_as_the_performance_cards():
    """review44 1.4 and 2.4: the CLI printed MFU 48.4% (a value rounded to 0.4845, then rounded again) where the card
    says 48.5%, and days to one decimal (22.7) where the card writes three significant figures."""
    _p, estimate, cards, text = torus_training()
    assert card(cards, "mfu") == units.percent(estimate.mfu)
    assert f"MFU {card(cards, 'mfu')}," in text
    assert f"communication {card(cards, 'comm')} of the step" in text
    assert card(cards, "days") == units.days(estimate.days_to_train)
    assert f": {card(cards, 'days')} days, {card(cards, 'cost')} (" in text


def test_days_in_the_review_pack_as_the_card():
    from core.formats.report import design_report_html

    p, estimate, cards, _text = torus_training()
    markup = design_report_html(p, name="torus", share_link="")
    assert f"takes {card(cards, 'days')} days." in markup


@pytest.mark.parametrize("value, text", [(330.24, "330"), (8.2649, "8.26"), (2.9412, "2.94"), (22.74, "22.7")])
def test_days_format(value, text):
    assert units.days(value) == text


@pytest.mark.parametrize("value, text", [(0.534, "+0.534"), (-12.44, "-12.4"), (0.0, "0"), (130.6, "+131")])
def test_a_difference_of_days_in_the_one_format(value, text):
    """The two-fabric caption's and the other placement's difference wrote ``+0.53`` (``:+,.2f``) beside days in
    the one format: a difference is that format with its sign."""
    assert units.days(value, signed=True) == text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_share_of_capex_one_format(lang):
    """review44 1.5: the pack's summary said 6.62% where key numbers, the Designer card and the CLI said 6.6%."""
    from core.formats.report import design_report_html

    p = plan(Design())
    s = p.summary()
    share = units.percent(shown_share(p.cost.network_share))
    with language(lang):
        capex_help = next(k.help for k in key_numbers(s) if k.key == "capex")
        fabric_help = next(k.help for k in key_numbers(s) if k.key == "capex_fabric")
        markup = design_report_html(p, name="default", share_link="")
    # $148,664 of $2.18 M (review45 1.4: the UFM appliances' links are not billed; bomfix: the 16 node-side modules
    # are the flat-top MMA4Z00-NS-FLT at $1,249, +$5,920: it was 6.57%)
    assert share == "6.82%"
    assert share in capex_help and share in fabric_help
    assert re.search(rf"\b{re.escape(share)}", markup)
    assert "6.8%" not in markup
    text = cli_text("--lang", lang, "plan", "--format", "table")
    assert share in text and "6.8%" not in text


def test_share_of_capex_on_compare_and_the_two_fabrics_table():
    """The Compare table's share row and the Performance page's "Two fabrics" table wrote 6.6% (``:.1%``)."""
    from core.analysis.compare import metrics
    from core.figures.compare import format_value

    p = plan(Design())
    share = units.percent(shown_share(p.cost.network_share))
    metric = next(m for m in metrics() if m.key == "network_share")
    assert format_value(p.summary()["cost"]["network_share"], metric.kind) == share
    settings = report_job_settings(p)
    estimate = jobform.estimate_under(p, jobform.job_from_settings(p, settings), settings)
    row = jobform.comparison_rows([("this", estimate, p)])[0]
    assert share in row.values()
    assert units.percent(estimate.comm_fraction) in row.values()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_capex_as_the_designer_card(lang):
    """review44 2.10 and 3: the CLI printed whole dollars ("$2,172,757", "45,922,374美元") where the Designer card
    prints the compact money ("$2.17 M", "4,592万美元"); one rule: compact wherever a headline amount is shown."""
    s = plan(Design()).summary()
    with language(lang):
        capex = card(key_numbers(s), "capex")
    assert capex == (usd(s["cost"]["capex_usd"]) if lang == "en" else "217.9万美元")  # $2,178,698
    line = next(l for l in cli_text("--lang", lang, "plan", "--format", "table").splitlines() if capex in l)
    assert not re.search(r"\d{1,3}(,\d{3}){2,}", line), line  # no whole-dollar millions on the line


def test_cli_whole_dollars_only_in_the_price_book():
    """Whole dollars (``usd(..., exact=True)``) only where the CLI lists catalog prices (``catalog``); every other
    CLI amount is the compact money the pages show."""
    users = sorted(str(f.relative_to(ROOT)) for f in (ROOT / "core").rglob("*.py")
                   if "exact=True" in f.read_text() and f.name != "i18n.py")
    assert users == ["core/cli/catalog.py"], users


@lru_cache(maxsize=None)
def torus_serving(currency: str = "USD"):
    args = ("serve", *TORUS)
    with money_context(currency):
        return cli_json(*args, "--format", "json"), cli_text(*args, "--currency", currency, "--format", "table")


def test_serve_cost_and_latency_as_the_inference_cards():
    """review44 2.5: "cost 0.435 USD per million output tokens", "TTFT 1,984.0 ms" where the Inference cards show
    "$0.44" and "1,984 ms"."""
    s, text = torus_serving()
    assert f"TTFT          {units.milliseconds(s['ttft_s'])} (" in text
    assert f"TPOT          {units.milliseconds(s['tpot_s'])} (" in text
    cost = usd(s["usd_per_million_output_tokens"], cents=True)
    assert f"cost          {cost} per million output tokens" in text
    assert (units.milliseconds(s["ttft_s"]), cost) == ("1,984 ms", "$0.44")
    assert "USD" not in text and "1,984.0" not in text


def test_serve_cost_in_the_chosen_currency():
    s, text = torus_serving("EUR")
    with money_context("EUR"):
        cost = usd(s["usd_per_million_output_tokens"], cents=True)
    assert cost.startswith("€")
    assert f"cost          {cost} per million output tokens" in text


def test_collective_names_its_bound_and_level_as_the_page():
    """review44 3: "busbw 360 GB/s (bottleneck link line rate 400 GB/s)" where 400 GB/s is a domain's eight NICs
    together; "fabric level leaf" where the page says "farthest path: leaf"."""
    text = cli_text("collective")
    assert "bottleneck link line rate" not in text and "fabric level" not in text
    assert "(4 NVLink domains of 8, 4 nodes, farthest path: leaf)" in text
    assert re.search(r"busbw +360 GB/s \(bound: the NVLink domain's NIC egress 400 GB/s, 8 x 50 GB/s per direction\)",
                     text)
    one = cli_text("collective", "--gpus", "8")
    assert "(bound: one GPU's NVLink line rate 450 GB/s per direction)" in one
    assert "(1 NVLink domain of 8, 1 node, farthest path: NVLink)" in one  # not "1 nodes"
    assert "farthest path: global links)" in cli_text("collective", "--topology", "dragonfly", "--gpus", "4096")


def test_collective_bound_is_the_egress_it_names():
    """The named parts multiply to the bound: NICs x one GPU's NIC line rate (8 x 50 GB/s = 400 GB/s)."""
    r = cli_json("collective", "--format", "json")
    assert r["bottleneck_nics"] == 8
    assert r["bottleneck_line_gbytes"] == pytest.approx(8 * 50.0)
    gb200 = cli_json("collective", "--gpu", "GB200-NVL72", "--gpus", "73", "--format", "json")
    assert gb200["bottleneck_nics"] == 1 and gb200["bottleneck_line_gbytes"] == pytest.approx(50.0)


def test_availability_says_degraded_as_the_resilience_page():
    text = cli_text("availability", "--trials", "200")
    line = next(l for l in text.splitlines() if l.startswith("GPUs"))
    assert "degraded" in line and "lost rail" not in line


def test_bisection_hover_reads_as_the_card():
    """review44 2.10 and review45 2.8: the Bisection card says 800 GB/s; the capacity chart's bar label and hover
    say it so too (``units.bandwidth``), its axis in the unit of the largest bar (TB/s beside 1.6 TB/s)."""
    from core.fabric.bandwidth import tier_capacities_gbits
    from core.figures.bandwidth import tier_capacity_figure

    p = plan(Design())
    tile = card(key_numbers(p.summary()), "bisection")
    fig = tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric))
    assert tile == "800 GB/s" and fig.data[0].text[-1] == tile and fig.layout.yaxis.title.text == "TB/s"
    assert fig.data[0].customdata[-1] == tile


def test_other_placement_sentence_writes_days_as_the_card():
    """The Performance page's "With the other placement" sentence wrote 22.71 days beside the card's 22.7."""
    p, _estimate, _cards, _text = torus_training()
    settings = report_job_settings(p)
    text = jobform.placement_contrast([("A", p), ("B", p)], jobform.job_from_settings(p, settings), settings)
    shown = re.findall(r"\b[AB] ([\d,.]+) days", text)
    assert len(shown) == 2 and all(units.days(float(d.replace(",", ""))) == d for d in shown), text
    assert all(len(d.replace(",", "").replace(".", "").lstrip("0")) <= 3 for d in shown), text


def test_other_placement_sentence_in_chinese_has_no_space_after_a_full_width_bracket():
    """zh wrote "本设计（InfiniBand，6:1） 22.7 天": the template's space before the days followed the label's
    full-width bracket. Each label now takes its days with 为 (no space after a bracket)."""
    from core.i18n import language

    p, _estimate, _cards, _text = torus_training()
    settings = report_job_settings(p)
    with language("zh"):
        text = jobform.placement_contrast([("本设计（InfiniBand，6:1）", p), ("Ethernet RoCE（1:1）", p)],
                                          jobform.job_from_settings(p, settings), settings)
    assert text and "） " not in text and "本设计（InfiniBand，6:1）为 " in text and "相差" in text, text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_trains_step_memory_and_communication_as_the_performance_page(lang):
    """``train`` wrote its step, compute, bubble and exposed seconds with three decimals (239.478 s under a card of
    239 s), memory and the communication table's numbers in f-strings of its own: now the page's formatters, the
    step card's and the chart's (``units.number``), the memory caption's (``units.gibibytes``) and the
    communication table's (``units.cell``), so the same job reads the same on both."""
    from core.figures.perf import step_figure

    p = plan(Design(topology="torus", gpus=512))
    settings = report_job_settings(p)
    with language(lang):
        estimate = jobform.estimate_under(p, jobform.job_from_settings(p, settings), settings)
        cards = training_key_numbers(estimate)
        text = cli_text("--lang", lang, "train", *TORUS, "--format", "table")
        caption = jobform.memory_caption(estimate, "Llama 3 70B", settings)
        figure = step_figure({"here": estimate})
    step = card(cards, "step_time")
    assert step == f"{units.number(estimate.step_time_s)} s"
    (line,) = [x for x in text.splitlines() if step in x and units.number(estimate.compute_s) in x]
    for part in (estimate.bubble_s, estimate.exposed_comm_s):
        assert units.number(part) in line
    for gib in estimate.memory_gb.values():
        assert f" {units.gibibytes(gib)}" in caption and f" {units.gibibytes(gib)}" in text
    for row in jobform.communication_rows(estimate):
        volume, seconds = (units.cell(v) for v in list(row.values())[4:6])
        assert any(f" {volume} GB " in x and f" {seconds} s" in x for x in text.splitlines())
    bars = [t for t in figure.data if t.type == "bar"]
    assert [t.customdata[0] for t in bars] == [units.number(t.x[0]) for t in bars]
    assert bars[0].customdata[0] == units.number(estimate.compute_s)
