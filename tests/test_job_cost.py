"""A job's cost is one rule on every surface (``core.plan.tco_share_usd_per_s``): its GPUs' share of the whole
design's TCO. The same design gives the same cost of a run on the Performance page (the pod the job runs on), the
review pack and the Compare page, and the same cost per million output tokens on the Inference and Compare pages;
a design without pods keeps its numbers."""

from __future__ import annotations

import pytest

from core.analysis import compare as cmp
from core.analysis.whole import pod_plan, whole_plan
from core.design import Design
from core.formats import inferencelink, joblink
from core.i18n import usd
from core.perf import jobform
from core.perf.servingform import estimate_on
from core.plan import plan, tco_share_usd_per_s

MIXED = Design(gpu="H100", nodes=64, pods="B200:32:800")
"""64 H100 nodes at 400G and 32 B200 nodes at 800G under 8 shared spines: 768 GPUs."""
JOB = dict(joblink.DEFAULTS)
SERVING = dict(inferencelink.DEFAULTS)


def _run(p, pod: int = 1):
    """The Performance page's estimate of the default job on pod ``pod`` of ``p``'s design."""
    on, _words = pod_plan(p, pod)
    return jobform.estimate_under(on, jobform.job_from_settings(on, JOB), JOB)


def test_the_rule_is_the_gpus_share_of_the_tco_per_second():
    assert tco_share_usd_per_s(365.0 * 86400.0 * 2, 2.0, 3, 4) == pytest.approx(0.75, rel=1e-15)


@pytest.mark.parametrize("pod", [1, 2])
def test_a_job_on_one_pod_pays_its_gpus_share_of_the_whole_design(pod):
    p = plan(MIXED)
    whole = whole_plan(p).cost
    e = _run(p, pod)
    share = whole.tco_usd / (whole.tco_years * 365.0) * e.gpus / 768
    assert e.cost_usd_per_day == pytest.approx(share, rel=1e-12)
    assert e.cost_usd == pytest.approx(share * e.days_to_train, rel=1e-12)


def test_performance_compare_and_the_pack_charge_the_same_run():
    from core.formats.report import design_report_html

    e = _run(plan(MIXED))
    column = cmp.compare([("mixed", MIXED)], settings=JOB, serving=SERVING).columns[0]
    assert column.values["days_to_train"] == pytest.approx(e.days_to_train, rel=1e-12)
    assert column.values["run_cost_usd"] == pytest.approx(e.cost_usd, rel=1e-12)
    html = design_report_html(plan(MIXED), name="Mixed", share_link="", job=JOB)
    performance = html[html.index('data-section="performance"'):]
    assert usd(e.cost_usd) in performance


def test_inference_and_compare_charge_the_same_tokens():
    on, _words = pod_plan(plan(MIXED), 1)
    here = estimate_on(on, SERVING)
    column = cmp.compare([("mixed", MIXED)], serving=SERVING).columns[0]
    assert column.values["usd_per_million_tokens"] == pytest.approx(here.usd_per_million_output_tokens, rel=1e-12)
    whole = whole_plan(plan(MIXED)).cost
    per_s = whole.tco_usd / (whole.tco_years * 365.0 * 86400.0) * here.gpus / 768
    assert here.usd_per_million_output_tokens == pytest.approx(per_s / here.output_tokens_per_s * 1e6, rel=1e-12)


def test_a_design_without_pods_keeps_its_cost():
    p = plan(Design(gpu="H100", nodes=64))
    e = jobform.estimate_under(p, jobform.job_from_settings(p, JOB), JOB)
    assert e.cost_usd_per_day == pytest.approx(p.cost.tco_usd / (p.cost.tco_years * 365.0) * e.gpus / p.resolved.gpus,
                                               rel=1e-12)
    assert cmp.compare([("one", p.design)], settings=JOB).columns[0].values["run_cost_usd"] == pytest.approx(
        e.cost_usd, rel=1e-12)
