"""The torus has no leaf groups: the Performance page's routing and placement sentences and the placement setting's
help are its own (``core.fabric.torus.WORDS``' ``perf:*``, read through ``core.fabric.families.words``), while a
folded Clos keeps its leaf groups."""

from __future__ import annotations

import re

import pytest

from core.design import Design
from core.perf import congestion, jobform
from core.perf.collectives import size_sweep, sweep
from core.plan import plan
from tests.pagetest import open_page
from tests.test_i18n import page_text, rerun

LINK = {"n": "64", "t": "tr", "tdim": "4x4x4", "tcube": "4"}
LEAF_GROUPS = re.compile(r"leaf groups?", re.I)


@pytest.mark.parametrize("placement", congestion.PLACEMENTS)
def test_the_torus_routing_and_placement_sentences_name_no_leaf_group(placement):
    torus, clos = plan(Design(gpu="B300", gpus=512, topology="torus")), plan(Design(gpu="B300", gpus=512))
    for p, own in ((torus, True), (clos, False)):
        with congestion.assumptions("auto", placement):
            sweeps = [sweep(p, "all-reduce", size_sweep(8, 2**20, 4))]
        routing = jobform.placement_notes(sweeps, 512, "B300", [], "adaptive", placement, family=p.fabric.family)[1]
        assert routing.startswith("Routing: adaptive; ")
        assert bool(LEAF_GROUPS.search(routing)) is not own and ("torus" in routing) is own, routing
    notes = jobform.congestion_notes([("torus", torus), ("Clos", clos)], {"pl": placement})
    torus_notes = [n for n in notes if "on a torus" in n]
    assert len(torus_notes) == 1 and not LEAF_GROUPS.search(torus_notes[0])  # the torus's own sentence
    assert any(LEAF_GROUPS.search(n) for n in notes)  # and the Clos's, once each
    alone = jobform.congestion_notes([("torus", torus), ("torus 2", torus)], {"pl": placement})
    assert not any(LEAF_GROUPS.search(n) for n in alone) and sum("on a torus" in n for n in alone) == 1


def test_the_performance_page_of_a_torus_says_no_leaf_group():
    at = open_page("../pages/3_Performance.py", LINK)
    for placement in congestion.PLACEMENTS:
        at.selectbox(key="perf_w_pl").set_value(placement)
        rerun(at)
        assert not at.exception
        text = page_text(at)
        assert "torus in order" in text and not LEAF_GROUPS.search(text), LEAF_GROUPS.findall(text)
