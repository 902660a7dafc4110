"""The growth-stages table counts a second NVLink level's units as the Switches and Links cards and its own
Transceivers bought column do (``core.analysis.stages.stage_delta``): a GB200-NVL72 design of 144-GPU domains
(``?v=1&g=GB200-NVL72&n=144&nvd=144``) grown to 288 and 576 nodes buys each new domain's level-2 switch units and
cables, and the table's switches and cables after a step add up to the later stage's cards."""

from __future__ import annotations

import pytest

from core.analysis.stages import STAGES_SCOPE, growth, growth_plans, stage_rows
from core.design import Design
from core.i18n import _, language

DESIGN = Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144, stages=(288, 576))


@pytest.fixture(scope="module")
def grown():
    return growth_plans(DESIGN), growth(DESIGN)


def test_every_step_counts_the_level2_units(grown):
    plans, deltas = grown
    assert [p.level2_switches for p in plans] == [72, 144, 288]
    for before, after, d in zip(plans, plans[1:], deltas):
        cards = [p.summary() for p in (before, after)]
        switches = [c["switches"]["total"] for c in cards]
        assert switches[0] + d.switches_added - d.switches_removed == switches[1]  # the Switches card's total
        links = [sum(c["links"].values()) for c in cards]
        assert d.cables_kept + d.cables_moved + d.cables_speed_changed + d.cables_removed == links[0]  # every cable
        assert d.cables_kept + d.cables_moved + d.cables_speed_changed + d.cables_added == links[1]  # the Links card
    first = stage_rows(deltas)[0]
    assert first["switches"] == 33 + 72 and first["cables"] == 1_106 + 2_592


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_table_says_what_its_columns_count(lang, capsys):
    from conftest import run_cli

    with language(lang):
        said = _(STAGES_SCOPE)
    code, out, _err = run_cli(capsys, "stages", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144",
                              "--stages", "288,576", "--lang", lang)
    assert code == 0 and said in out and (lang != "en" or "a second NVLink level's switch units" in said)


def test_a_pod_designs_steps_count_its_second_nvlink_level():
    """A design with pods whose first pod has a second NVLink level (GB200-NVL72 in 144-GPU domains, a second pod
    added at stage 1: ``?v=1&g=GB200-NVL72&n=36&nvd=144&pods=GB200-NVL72:36@1``): its growth step left the pod's
    level-2 cables out of the cables kept (680 where the Links card says 1,328); now its switches and cables add up
    to the cards before and after the step, as a design's without pods (``stages.counted``)."""
    from core.analysis.whole import whole_summary
    from core.plan import plan

    design = Design(gpu="GB200-NVL72", nodes=36, nvlink_domain_gpus=144, pods="GB200-NVL72:36@1")
    (d,) = growth(design)
    before, after = (whole_summary(plan(x)) for x in (design.model_copy(update={"pods": None}), design))
    assert before["switches"]["nvlink_level2"] == after["switches"]["nvlink_level2"] == 18
    assert before["switches"]["total"] + d.switches_added - d.switches_removed == after["switches"]["total"]
    links = [sum(s["links"].values()) for s in (before, after)]
    assert d.cables_kept + d.cables_moved + d.cables_speed_changed + d.cables_removed == links[0]
    assert d.cables_kept + d.cables_moved + d.cables_speed_changed + d.cables_added == links[1] == 1_328
    assert stage_rows([d])[0]["kept"] == d.cables_kept >= 648  # the level-2 cables stay where they are
