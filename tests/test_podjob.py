"""The Performance page's "Two fabrics, same job" on a design with pods compares like with like
(core.analysis.podjob): both runs on the same pod, each charged its GPUs' share of its own whole design's TCO
(core.plan.tco_share_usd_per_s over Plan.cost_basis), the same share for every GPU of every pod."""

from __future__ import annotations

import pytest

from core.analysis import podjob
from core.analysis.whole import whole_plan
from core.design import Design
from core.formats.joblink import COMPARE_FABRICS, DEFAULTS
from core.perf import jobform
from core.plan import SECONDS_PER_TCO_YEAR, cost_basis, plan
from tests import pagetest

MIXED = Design(gpu="H100", nodes=64, pods="B200:32:800")
"""64 H100 nodes and 32 B200 nodes at 800G under shared spines."""


def _per_gpu_second(p) -> float:
    """What one GPU of ``p`` is charged per second [USD per second], from its cost basis."""
    cost, gpus = cost_basis(p)
    return cost.tco_usd / (cost.tco_years * SECONDS_PER_TCO_YEAR) / gpus


def test_every_pod_pays_the_same_share_per_gpu_the_whole_designs():
    whole = plan(MIXED)
    shares = {pod: _per_gpu_second(podjob.on_pod(whole, pod)) for pod in (1, 2)}
    assert shares[1] == pytest.approx(shares[2])
    assert shares[1] == pytest.approx(_per_gpu_second(whole_plan(whole)))


@pytest.mark.parametrize("choice", ["eth2", "ib2"])
def test_the_fabric_comparison_is_the_whole_design_changed_on_the_same_pod(choice):
    whole = plan(MIXED)
    for pod in (1, 2):
        here = podjob.on_pod(whole, pod)
        alt = podjob.fabric_alternative(whole, COMPARE_FABRICS[choice][1], pod)
        assert alt.resolved.system.id == here.resolved.system.id  # the same pod's system
        changed = whole_plan(plan(jobform.alternative_design(MIXED, COMPARE_FABRICS[choice][1], "infiniband")))
        assert cost_basis(alt)[1] == cost_basis(changed)[1] == cost_basis(here)[1]  # every pod's GPUs
        assert cost_basis(alt)[0].tco_usd == pytest.approx(changed.cost.tco_usd)  # not pod 1 alone
        assert cost_basis(alt)[0].tco_usd > alt.cost.tco_usd


def test_the_comparison_table_and_cost_are_the_whole_designs_and_say_so():
    whole = plan(MIXED)
    here_plan = podjob.on_pod(whole, 1)
    alt_plan = podjob.fabric_alternative(whole, COMPARE_FABRICS["eth2"][1], 1)
    settings = dict(DEFAULTS)
    job = jobform.job_from_settings(here_plan, settings)
    here, other = (jobform.estimate_under(p, job, settings) for p in (here_plan, alt_plan))
    rows = jobform.comparison_rows([("a", here, here_plan), ("b", other, alt_plan)])
    for row, p in zip(rows, (here_plan, alt_plan)):
        assert row["cluster capex [USD]"] == cost_basis(p)[0].capex_usd  # unrounded: the money format rounds once
    seconds = here.days_to_train * 86400
    assert here.cost_usd == pytest.approx(_per_gpu_second(here_plan) * here.gpus * seconds, rel=1e-6)
    assert "pod 1" in podjob.comparison_basis(whole, alt_plan, 1)


def test_a_design_without_pods_compares_whole_clusters_without_words():
    single = plan(Design(gpu="H100", nodes=64))
    alt = podjob.fabric_alternative(single, COMPARE_FABRICS["eth2"][1], 1)
    assert cost_basis(alt)[1] == alt.resolved.gpus == single.resolved.gpus
    assert podjob.comparison_basis(single, alt, 1) == ""


def test_the_performance_page_compares_like_with_like_on_a_design_with_pods():
    at = pagetest.open_page("../pages/3_Performance.py", {"v": "1", "n": "64", "pods": "B200:32:800"})
    captions = " ".join(c.value for c in at.caption)
    assert "Like with like" in captions and "pod 1" in captions


def test_the_tco_card_says_the_rate_every_pods_job_pays():
    """The Cost & power tab's TCO card (Designer and review pack) names the one rate per GPU-hour a job on any pod
    is charged on the Performance page."""
    from core.figures.keynumbers import cost_key_numbers
    from core.i18n import usd

    whole = plan(MIXED)
    card = next(k for k in cost_key_numbers(whole_plan(whole)) if k.key == "tco")
    for pod in (1, 2):
        assert usd(_per_gpu_second(podjob.on_pod(whole, pod)) * 3600, cents=True) in card.help



@pytest.mark.parametrize("lang, cost", [("zh", "38.93万美元"), ("en", "$389,350")])
def test_the_two_fabrics_table_rounds_money_once_as_the_card(lang, cost):
    """The run's cost of 389,349.6 USD: the page's card writes ``38.93万美元``; the table wrote ``38.94万美元``, its
    cost rounded to whole dollars before the money format rounded it again. One rounding, the money format's."""
    from types import SimpleNamespace

    from core.i18n import _, language, usd
    from webui import tables

    here_plan = plan(Design(gpu="H100", nodes=64))
    settings = dict(DEFAULTS)
    e = jobform.estimate_under(here_plan, jobform.job_from_settings(here_plan, settings), settings)
    e = SimpleNamespace(**{k: getattr(e, k) for k in ("step_time_s", "tokens_per_s", "comm_fraction",
                                                       "days_to_train")}, cost_usd=389_349.6)
    with language(lang):
        name = _(jobform.RUN_COST_USD)
        shown = tables.money(jobform.comparison_rows([("a", e, here_plan)]), [name])[name][0]
        assert shown == usd(e.cost_usd) == cost
