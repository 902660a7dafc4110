"""A design with pods says the same on the command line, in the review pack and on the Resilience page: the whole
fabric's availability (core.analysis.podavail) and single points (core.analysis.podspof)."""

from __future__ import annotations

import re

from core import units
import json

from core.analysis import availability as avail
from core.analysis.podavail import pods_availability
from core.analysis.podspof import pods_single_points
from core.analysis.whole import design_mixed
from core.cli import main
from core.design import Design
from core.formats.report import design_report_html
from core.formats.resiliencelink import DEFAULTS, pods_availability_of
from core.plan import plan

TWO = Design(gpu="H100", nodes=64, pods="B200:32:400")
"""An H100 pod of 512 GPUs and a B200 pod of 256 under one spine layer (as tests/test_pods_views.py)."""
ARGS = ["--gpu", "H100", "--nodes", "64", "--pods", "B200:32:400"]


def _cli(capsys, *argv) -> str:
    main([*argv])
    return capsys.readouterr().out


def test_the_availability_command_is_the_pages_whole_fabric(capsys):
    mixed = design_mixed(TWO)
    trials = avail.shown_trials(768)
    page = pods_availability_of(mixed, DEFAULTS)  # what the Resilience page shows
    out = json.loads(_cli(capsys, "availability", *ARGS, "--trials", str(trials), "--seed", "0", "--format", "json"))
    assert out["availability"] == json.loads(page.model_dump_json())
    assert [p["system"] for p in out["availability"]["pods"]] == ["H100", "B200"]
    assert out["availability"]["gpus"] == 768
    other = pods_availability(mixed, job_gpus=700, trials=300, seed=7)
    out = json.loads(_cli(capsys, "availability", *ARGS, "--job-gpus", "700", "--trials", "300", "--seed", "7",
                          "--format", "json"))
    assert out["availability"]["job_run_fraction"] == other.job_run_fraction
    assert out["availability"]["pods"][1]["expected_gpus_available"] == other.pods[1].expected_gpus_available
    text = _cli(capsys, "availability", *ARGS, "--trials", "300", "--seed", "7")
    assert "pod 1 (H100)" in text and "pod 2 (B200)" in text
    assert f"{other.pods[1].expected_gpus_available:,.1f}" in text and "of 768 GPUs" in text


def test_the_spof_command_reads_the_whole_fabric(capsys):
    shared = pods_single_points(design_mixed(TWO))
    out = json.loads(_cli(capsys, "spof", *ARGS, "--format", "json"))
    assert out == json.loads(json.dumps(shared.to_json()))
    assert any("shared spines" in note for note in out["notes"])


def test_the_review_pack_holds_every_pods_availability():
    p = plan(TWO)
    html = design_report_html(p, name="pods", share_link="", resilience={"fail": ("p0.leaf0",)})
    page = pods_availability_of(design_mixed(TWO), DEFAULTS)
    assert "pod 1 (H100)" in html and "pod 2 (B200)" in html
    assert f"{page.pods[1].expected_gpus_available:,.1f}" in html
    assert units.percent(page.job_run_fraction) in html
    assert "shared spines" in html  # the single points' whole-fabric note
    # the scenario on the whole fabric, as the Resilience page shows it: pod 1's leaf 0 as the pods' exports and the
    # page's chips name it (core.analysis.failure.podnames), not its whole-fabric id pod1.p0.leaf0
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert "Failed on the Resilience page: pod1-leaf001." in text and "Every pod under the shared spines" in text


def test_the_failure_command_says_whose_fabric_it_fails(capsys):
    from core.analysis.podwhatif import pods_what_if

    out = json.loads(_cli(capsys, "failure", *ARGS, "--fail", "spine0", "--fail", "pod2.p0.leaf1", "--format", "json"))
    losses = pods_what_if(design_mixed(TWO), ["spine0", "pod2.p0.leaf1"])
    assert out["pods"] == [json.loads(json.dumps(loss.model_dump())) for loss in losses]
    out = json.loads(_cli(capsys, "failure", *ARGS, "--fail", "p0.leaf0", "--format", "json"))
    assert out["gpus"] == 512 and "pod 1's fabric" in out["notes"][0]
    assert "pod 1's fabric" not in _cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--fail", "p0.leaf0")


def test_the_review_packs_racks_are_the_whole_hall():
    """The racks section holds the whole hall: the Racks tab's cards (``hall_key_numbers``), the hall's racks and
    every pod's cable lengths, not pod 1's racks alone."""
    from core.figures.podracks import hall_key_numbers

    p = plan(TWO)
    mixed = design_mixed(TWO)
    html = design_report_html(p, name="pods", share_link="")
    racks = html[html.index('data-section="physical"'):]
    racks = racks[:racks.index("data-section=", 30)]
    for card in hall_key_numbers(mixed):
        assert f"<td>{card.label}</td>" in racks and card.value in racks
    total = mixed.hall.layout.summary()["total"]
    assert total > p.layout.summary()["total"] and f'<td class="num">{total:,}</td>' in racks
    assert "pod 1" in racks and "pod 2" in racks and "shared spines" in racks
    pod2 = mixed.lengths[1][0]
    assert f"{pod2.total_m:,.0f}" in racks
