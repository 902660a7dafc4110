"""The what-if without the compute fabric does not pay for the fabric (``cluster_tco_and_power``)."""
import pytest

from core.formats.sharelink import decode
from core.perf.serving import cluster_tco_and_power
from core.plan import plan as make_plan


def test_without_the_fabric_tco_and_power_drop_by_the_fabrics():
    design, _ = decode({"v": "1", "g": "Atlas-800T-A2", "ng": "2048", "f": "eth", "sw": "H3C-S9827-64EP"})
    p = make_plan(design)
    tco, kw = cluster_tco_and_power(p)
    less_tco, less_kw = cluster_tco_and_power(p, "frontend")
    assert (tco, kw) == (p.cost.tco_usd, p.cost.facility_kw)
    assert less_kw == pytest.approx(kw - p.cost.network_kw * p.cost.pue)
    assert tco - less_tco > p.cost.compute_fabric_capex_usd > 0
