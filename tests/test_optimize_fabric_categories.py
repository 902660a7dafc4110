"""The optimizer's "spends more on" breakdown (``Candidate.network_by_category``) has the compute fabric's boundary
(leftperf 4): the rows ``core.cost.in_compute_fabric`` takes, as the cards and ``network_capex_usd`` do, so the
categories add up to the compute fabric's capex and leave the storage and management networks and the UFM's
links to the capex outside it."""

import pytest

from core.analysis.optimize import Constraints, _Evaluator
from core.catalog import load_catalog
from core.cost import NETWORK_CATEGORIES, in_compute_fabric
from core.design import Design
from core.plan import plan


@pytest.mark.parametrize("fabric", ["infiniband", "ethernet"])
def test_categories_add_up_to_the_compute_fabric_capex(fabric):
    design = Design(gpu="H100", gpus=1024, fabric=fabric)
    cand = _Evaluator(Constraints(), load_catalog()).evaluate(0, design)
    assert cand.feasible, cand.reason
    bill = plan(design).bom
    by_hand: dict[str, float] = {}
    for row in bill:
        if row.category in NETWORK_CATEGORIES and row.network == "compute" and not row.management:
            by_hand[row.category] = by_hand.get(row.category, 0.0) + row.quantity * row.unit_price_usd
    assert cand.network_by_category == pytest.approx(by_hand, rel=1e-12)
    assert sum(cand.network_by_category.values()) == pytest.approx(cand.network_capex_usd, rel=1e-12)
    every_network = sum(r.extended_price_usd for r in bill if r.category in NETWORK_CATEGORIES)
    assert every_network > cand.network_capex_usd * 1.01  # storage, in-band and the UFM's links: not the fabric's
    if fabric == "infiniband":  # the UFM appliances' cables and optics sit in the compute network, as management
        ufm = [r for r in bill if r.network == "compute" and r.management and r.category in ("cable", "transceiver")]
        assert ufm and not any(in_compute_fabric(r) for r in ufm)
