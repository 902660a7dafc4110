"""Monitoring checklist (core/analysis/monitoring.py, assets/catalog/monitoring.toml)."""

from __future__ import annotations

import tomllib

from core.analysis.monitoring import COUNTERS, MONITORING_FILE, THRESHOLDS, WHY, all_checks, checklist, checklist_table
from core.design import Design
from core.i18n import language
from core.plan import plan


def ids(rows):
    return {r["id"] for r in rows}


def test_infiniband_design_gets_ib_counters_and_no_roce_ones():
    rows = checklist(plan(Design(gpus=1024, fabric="infiniband")))
    assert {"ib_symbol_errors", "ib_link_down", "ib_xmit_wait", "optics_ddm"} <= ids(rows)
    assert not any(r["fabric"] == "ethernet" for r in rows)
    assert "eth_pfc_pause" not in ids(rows)


def test_roce_design_gets_pfc_and_ecn():
    rows = checklist(plan(Design(gpus=1024, fabric="ethernet")))
    assert {"eth_pfc_pause", "eth_ecn_cnp", "eth_roce_retrans", "eth_link_down", "optics_ddm"} <= ids(rows)
    assert not any(r["fabric"] == "infiniband" for r in rows)


def test_only_the_tiers_the_design_has():
    one = plan(Design(gpus=64))
    assert one.fabric.tiers == 1
    for r in checklist(one):
        assert set(r["tiers"]) <= {"gpu", "node", "leaf"}
    three = plan(Design(gpus=16_384))
    assert three.fabric.tiers == 3
    assert any("core" in r["tiers"] for r in checklist(three))
    # a switch-only counter is absent when its tiers are absent: PortXmitWait is on switches only
    assert all(r["tiers"] != [] for r in checklist(one))


def test_every_row_is_sourced_and_translatable():
    data = tomllib.loads(MONITORING_FILE.read_text())
    assert len(data["check"]) == len(all_checks())
    for check in all_checks():
        assert check.source, check.id
        assert check.threshold in THRESHOLDS, check.threshold
        assert check.why_id in WHY, check.why_id
        words = [w for w in check.counter.replace(",", " ").replace(";", " ").split() if w.isalpha() and w.islower()
                 and "_" not in w]
        assert check.counter in COUNTERS or not words, (check.counter, words)  # plain words must be translatable


def test_checklist_in_chinese():
    p = plan(Design(gpus=1024, fabric="ethernet"))
    english = checklist_table(checklist(p))
    with language("zh"):
        chinese = checklist_table(checklist(p))
    assert chinese != english
    assert "np_cnp_sent" in chinese  # counter names stay as the tools print them
    assert "flapping" not in chinese and "PFC watchdog:" not in chinese


def test_gpu_rows_are_the_accelerators_makers():
    """Each design gets the GPU counters of its accelerator's maker's tool (DCGM only on NVIDIA), and every maker
    in the catalog has GPU rows."""
    from core.catalog import load_catalog

    makers = {s.vendor for s in load_catalog().systems}
    by_maker = {c.vendor for c in all_checks() if "gpu" in c.tiers}
    assert makers <= by_maker, makers - by_maker
    for gpu, prefix in (("H100", "DCGM_FI_"), ("MI300X", "gpu_ecc_"), ("Gaudi3", "habanalabs_"),
                        ("Atlas-800T-A2", "npu_chip_")):
        rows = [r for r in checklist(plan(Design(gpu=gpu, gpus=512, fabric="ethernet"))) if r["tiers"] == ["gpu"]]
        assert rows and all(r["counter"].startswith(prefix) or r["counter"].startswith(("pcie_", "habanalabs_"))
                            for r in rows), (gpu, [r["counter"] for r in rows])
        assert gpu == "H100" or not any("DCGM" in r["counter"] for r in rows)


def test_cloud_transport_lists_its_adapters_and_not_the_providers_switches():
    """On AWS EFA: the EFA rows on the node, no RoCE (PFC, ECN) rows, no switch tier, no optics; a RoCE design of
    the same shape keeps them."""
    from core.presets import find_preset

    design = find_preset("aws-p5-efa").design
    rows = checklist(plan(design))
    assert {"efa_path_events", "efa_drops"} <= ids(rows)
    assert not ({"eth_pfc_pause", "eth_ecn_cnp", "optics_ddm"} & ids(rows))
    assert all(set(r["tiers"]) <= {"gpu", "node"} for r in rows)
    roce = checklist(plan(design.model_copy(update={"nic": None, "nics_per_node": None, "port_speed_gbps": 400})))
    assert {"eth_pfc_pause", "optics_ddm"} <= ids(roce) and not ({"efa_path_events"} & ids(roce))
