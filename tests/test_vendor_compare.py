"""An NVIDIA and an AMD design side by side (core.analysis.compare), and the done-when scenario of the
Chinese pre-sales engineer: a 2,048-card Ascend 910B cluster on H3C or Huawei switches, with a review pack in
CNY.

The AMD system is the catalog's MI355X when it is there with RCCL, else a test-local one built from the B200
entry (``model_copy``): same node shape, RCCL, 8-GPU xGMI mesh at AMD's published 153.6 GB/s per link and
7 links [A: stand-in numbers until the catalog has the system]. The Ascend scenario needs the catalog's
Ascend 910B system and is skipped, saying so, while it is absent.
"""

from __future__ import annotations

import pytest

from core.analysis import compare as cmp
from core.catalog import load_catalog
from core.design import Design
from core.formats.joblink import DEFAULTS
from core.perf.collectives import sweep
from core.plan import plan

JOB = dict(DEFAULTS)
ASCEND_IDS = ("Ascend-910B", "ATLAS-800T-A2", "910B")


def _amd_catalog():
    catalog = load_catalog()
    for system in catalog.systems:
        if system.collective_library == "rccl" and "355" in system.id:
            return catalog, system.id
    base = catalog.system("B200")
    local = base.model_copy(update=dict(
        id="TEST-MI355X", aliases=(), gpu_name="MI355X", vendor="AMD", collective_library="rccl",
        nvlink_links_per_gpu=7, nvlink_gbytes_per_gpu_bidir=2 * 7 * 76.8, nvswitch_chips_per_domain=0,
        nvswitch_generation=0, default_fabric="ethernet", default_nic="POLLARA-400", default_port_speed_gbps=400,
        node_ports_per_transceiver=1))
    return catalog.model_copy(update={"systems": catalog.systems + (local,)}), local.id


def test_nvidia_and_amd_side_by_side():
    catalog, amd = _amd_catalog()
    designs = [("B200", Design(gpu="B200", gpus=1024, fabric="ethernet")),
               ("MI355X", Design(gpu=amd, gpus=1024, fabric="ethernet", switch="ARISTA-7060X6-64PE"))]
    result = cmp.compare(designs, 0, JOB, (2**20, 2**30), planner=lambda d: plan(d, catalog))
    b200, mi = result.columns
    assert b200.error is None and mi.error is None, (b200.error, mi.error)
    key = cmp.busbw_key(2**30)
    assert b200.values[key] > 0 and mi.values[key] > 0
    # a column is its single design: RCCL's prediction for the AMD column, NCCL's for the B200
    alone = sweep(mi.plan, "all-reduce", [2**30])
    t, algorithm, _p = alone.best()
    assert alone.library == "rccl" and mi.values[key] == pytest.approx(float(alone.busbw(t)[0]), rel=1e-6)
    assert set(alone.curves) <= {"ring", "tree"}
    assert mi.plan.resolved.tier_switches["leaf"].vendor == "Arista"
    changes = cmp.bom_changes([b200.plan, mi.plan])
    assert any(c.catalog_id == "ARISTA-7060X6-64PE" for c in changes)
    assert any(c.catalog_id == amd for c in changes)


def _ascend_id() -> str | None:
    catalog = load_catalog()
    for key in ASCEND_IDS:
        try:
            system = catalog.system(key)
        except Exception:  # noqa: BLE001 - not in the catalog yet
            continue
        if system.collective_library == "hccl" and system.nvlink_domain_gpus <= 16:
            return system.id
    return None


@pytest.mark.parametrize("switch", ["H3C-S9827-64EP", "HUAWEI-CE-XH9330"])
def test_ascend_910b_2048_cards_on_chinese_switches_review_pack_in_cny(switch):
    """Done when: plan 2,048 Ascend 910B cards on H3C or Huawei switches and hand over a review pack in CNY."""
    system = _ascend_id()
    if system is None:
        pytest.skip("no Ascend 910B server (HCCL) in the catalog yet: ids tried " + ", ".join(ASCEND_IDS))
    from core.formats.report import design_report_html
    from core.i18n import language, money_context

    p = plan(Design(gpu=system, gpus=2048, fabric="ethernet", switch=switch))
    r = p.resolved
    assert r.gpus == 2048 and r.switch.id == switch and r.fabric == "ethernet"
    s = sweep(p, "all-reduce", [2**30])
    assert s.library == "hccl" and not s.validated
    with language("zh"), money_context("CNY"):
        html = design_report_html(p, name="Ascend 910B x 2048", share_link="")
    assert "¥" in html or "CNY" in html
    assert "未验证" in html  # the not-validated badge next to the collectives
    assert switch in html


def test_report_badge_and_library_for_a_test_local_hccl_system():
    """The report names the collective library and shows the not-validated badge, in Chinese and CNY (a
    test-local HCCL system from the H100 entry, so it runs before the Ascend systems are in the catalog)."""
    from core.formats.report import design_report_html
    from core.i18n import language, money_context

    catalog = load_catalog()
    local = catalog.system("H100").model_copy(update=dict(
        id="TEST-NPU", aliases=(), vendor="Huawei", collective_library="hccl", nvswitch_chips_per_domain=0,
        nvswitch_generation=0, default_fabric="ethernet", default_nic="POLLARA-400", default_port_speed_gbps=200,
        node_ports_per_transceiver=1))
    catalog = catalog.model_copy(update={"systems": catalog.systems + (local,)})
    p = plan(Design(gpu="TEST-NPU", gpus=256, fabric="ethernet", switch="H3C-S9827-64EP"), catalog)
    with language("zh"), money_context("CNY"):
        html = design_report_html(p, name="NPU", share_link="")
    assert "集合通信库：HCCL" in html and "未验证" in html and "H3C-S9827-64EP" in html
    assert "¥" in html or "CNY" in html
