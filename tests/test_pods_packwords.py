"""The review pack of a design with pods agrees with its own key numbers: the oversubscription what-if is pod 1's
and says so, the sizing describes the shared spine layer, the executive summary's job names its pod."""

from __future__ import annotations

import html as html_text
import re

import pytest

from core.design import Design
from core.formats import report
from core.plan import plan


@pytest.fixture(scope="module")
def pack():
    """The mixed design of the review (H100 x 64 nodes + B200 x 32 nodes at 800G): its pack's visible text."""
    html = report.design_report_html(plan(Design(gpu="H100", nodes=64, pods="B200:32:800")), name="", share_link="")
    return html_text.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_the_what_if_is_labelled_as_pod_ones(pack):
    assert "Oversubscription of pod 1" in pack and "What if the leaves were oversubscribed" not in pack
    assert "cross pod 3" in pack  # leaf, shared spine, leaf


def test_the_sizing_describes_the_shared_spines(pack):
    sizing = pack.split("How the fabric was sized", 1)[1][:3000]
    assert "64 of 64 ports" not in sizing  # pod 1's own spines, which are not built
    assert "8 Q3400 at 800G, 96 of 144 ports used on each" in sizing
    assert re.search(r"shared: spine 8 96 0 48 144 shared by 2 pods", sizing)


def test_the_summary_says_the_job_runs_on_pod_one(pack):
    summary = pack.split("What it achieves", 1)[1][:400]
    assert "runs on pod 1's 512 GPUs and takes" in summary
