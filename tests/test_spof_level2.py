"""SPOF lists the second NVLink level's switch units among the degrading classes (review48 #10), by the failure
what-if's rule (core.analysis.failure.nvlink2.level2_loss)."""

from __future__ import annotations

from core.analysis.failure import what_if
from core.analysis.spof import degrading_label, single_points
from core.design import Design
from core.plan import plan


def test_gb200_nvl576_class_level2_units_degrade_by_hand_count():
    """GB200 NVL72 trays (4 GPUs), 144 trays = 576 GPUs in NVLink domains of 144 GPUs: 4 domains. A GPU has 18
    level-2 NVLinks (catalog ``uplinks_per_gpu``), a level-2 unit 144 NVLink ports: 144 x 18 / 144 = 18 units a
    domain, 4 x 18 = 72 in all. One unit lost: its domain's 144 GPUs keep 17/18 = 94.4% of their bandwidth to the
    domain's other racks, 850 of 900 GB/s per GPU (18 x 50 GB/s), the failure what-if's ``nvlink2:1``."""
    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    rows = [d for d in single_points(p).degrading if d.tier == "nvlink2"]
    assert len(rows) == 1
    d = rows[0]
    assert (d.count, d.gpus_affected, d.effect) == (72, 144, "level2_bandwidth")
    assert abs(d.share_left - 17 / 18) < 1e-9
    assert "144 GPUs" in degrading_label(d) and "94.4%" in degrading_label(d)
    # a level-2 cable (4 NVLinks, catalog ``links_per_cable``) of a first-level NVL36 domain: 36 x 18 = 648 level-2
    # links, 648 / 4 = 162 cables a rack, 576 / 36 = 16 racks: 2,592 cables; one lost leaves 644 / 648
    (cable,) = [d for d in single_points(p).degrading if d.tier == "nvlink2-cable"]
    assert (cable.count, cable.gpus_affected, cable.effect) == (16 * 162, 36, "level2_cable") == (2592, 36,
                                                                                                   "level2_cable")
    assert abs(cable.share_left - 644 / 648) < 1e-9 and "99.4%" in degrading_label(cable)
    text = "\n".join(what_if(p, ["nvlink2:1"]).notes)
    assert "850 of 900 GB/s" in text and "94.4%" in text


def test_one_level_nvlink_has_no_level2_class():
    p = plan(Design(gpu="GB200-NVL72", nodes=18))
    assert not [d for d in single_points(p).degrading if d.tier in ("nvlink2", "nvlink2-cable")]
