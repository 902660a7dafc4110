"""Spares of a design with pods say whose devices they cover (``core.cost.BomRow.pod``, ``core.spares.pod_label``):
each pod's rows carry its number, the shared layer (spines, or cores on three tiers) none ("shared"); the shared
layer is spared too when ``Design.spares`` is on; hand counts of H100 x 64 nodes + B200 x 32 nodes at 800G."""

from __future__ import annotations

import pytest

from core.analysis.sparing import with_spares
from core.analysis.whole import whole_plan
from core.design import Design
from core.i18n import language
from core.plan import plan
from core.spares import pod_label

PODS = "B200:32:800"


@pytest.fixture(scope="module", params=["2", "3"], ids=["two-tiers", "three-tiers"])
def pods(request):
    return plan(Design(gpu="H100", nodes=64, pods=PODS, tiers=request.param))


def test_each_spare_row_names_its_pod(pods):
    """The catalog policy (NIC 1%, switch N+1): pod 1's 64 x 8 = 512 CX7 NICs -> ceil(5.12) = 6 spares, pod 2's
    32 x 8 = 256 CX8 -> ceil(2.56) = 3; the 8 shared switches' N+1 spare is the shared layer's."""
    spares = with_spares(pods, {})
    nics = {r.row.pod: (r.installed, r.row.quantity) for r in spares.rows if r.row.category == "NIC"}
    assert nics == {1: (512, 6), 2: (256, 3)}
    shared = [r for r in spares.rows if r.row.pod is None]
    assert [(r.row.category, r.installed, r.row.quantity) for r in shared] == [("switch", 8, 1)]
    assert {row["pod"] for row in spares.to_json()["rows"]} == {None, 1, 2}


def test_the_bill_with_spares_on_spares_the_shared_layer(pods):
    """Design.spares on: the mixed bill holds the shared switches' spare (N+1: 1 of 8), right after them, and the
    capex counts it; every spare row keeps its installed row's pod."""
    on = whole_plan(plan(pods.design.model_copy(update={"spares": "default"})))
    shared, spare = on.bom[0], on.bom[1]
    assert (shared.pod, shared.spare, shared.quantity) == (None, False, 8)
    assert (spare.pod, spare.spare, spare.quantity, spare.catalog_id) == (None, True, 1, shared.catalog_id)
    assert sum(r.extended_price_usd for r in on.bom if r.spare) == pytest.approx(on.cost.spares_capex_usd)
    off = with_spares(pods, {}).rows
    assert sorted((r.row.pod or 0, r.row.catalog_id, r.row.quantity) for r in off) == sorted(
        (r.pod or 0, r.catalog_id, r.quantity) for r in on.bom if r.spare)  # the page's spares = the bill's


def test_the_labels():
    assert pod_label(None) == "shared" and pod_label(2) == "pod 2"
    with language("zh"):
        assert pod_label(2) == "Pod 2"


def test_a_design_without_pods_has_no_pod():
    assert all(r.row.pod is None for r in with_spares(plan(Design(gpu="H100", nodes=64)), {}).rows)
