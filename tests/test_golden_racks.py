"""Golden tests: racks and rack power against NVIDIA's published DGX SuperPOD reference architectures.

Nothing here was fitted to these numbers: the rack presets' limits come from the catalog
(``assets/catalog/racks.toml``), node power from ``systems.toml``, and the layout rules from
``core.physical.layout``'s docstring; these tests only compare what the engine lays out with what the
documents state.

Sources
-------
[H100-RA] NVIDIA DGX SuperPOD: Next Generation Scalable Infrastructure for AI Leadership, Reference
    Architecture featuring DGX H100 systems, RA-11333-001 V11, 2023-09-22. Table 7 "Major components of
    the 4 SU, 127-node DGX SuperPOD": Racks 38 (Legrand NVIDPD13), Nodes 127 (DGX H100), 4 UFM
    appliances, 5 management servers (mirror: https://cidian.kuaisou.com/dgx-superpod-reference-architecture-dgx-h100).
    Rack layout: four DGX H100 per rack, '>40 kW' per rack in the example layout.
[SU-layout] "Each SU contains 32 DGX H100 servers distributed across 8 racks ... The server racks are
    organized in groups of four, positioned on the left and right sides of the Leaf switch rack"
    (http://www.shke.com.cn/?p=7546, describing the RA's SU figure).
[DGX-H100] DGX H100 user guide: 10.2 kW maximum per system.
[B300-RA] DGX SuperPOD RA with DGX B300 (XDR): 'four DGX B300 fit within a single rack. The rack-level
    power consumption per rack is ~56kW'; an SU of 72 nodes
    (https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html).
[GB200-RA] DGX SuperPOD RA with DGX GB200: an SU is 8 DGX GB200 rack systems; 'Each SU requires a
    Thermal Design Power (TDP) of 1.2 Megawatts'
    (https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-gb200/latest/dgx-superpod-architecture.html).
"""

from __future__ import annotations

import pytest

from core.design import Design
from core.physical.layout import NetDevice, place
from core.plan import plan


@pytest.fixture(scope="module")
def superpod_h100():
    return plan(Design(gpu="H100", nodes=127, switch="QM9700"))


def test_h100_four_su_four_dgx_per_rack_at_40_8_kw(superpod_h100):
    layout = superpod_h100.layout
    assert layout.nodes_per_rack == 4  # [H100-RA]: four DGX H100 per rack
    compute = [r for r in layout.racks if r.kind == "compute"]
    full = [r for r in compute if sum(s.count for s in r.slots) == 4]
    assert len(compute) == 32  # 127 DGX: 31 racks of 4 and one of 3
    assert len(full) == 31
    assert {round(r.kw, 1) for r in full} == {40.8}  # 4 x 10.2 kW [DGX-H100]; '>40 kW' [H100-RA]
    assert layout.max_kw_per_rack > 40.0


def test_h100_su_is_eight_compute_racks_around_its_leaf_rack(superpod_h100):
    layout = superpod_h100.layout
    for su in range(4):
        racks = {layout.position(f"node{n}").rack for n in range(32 * su, min(127, 32 * su + 32))}
        assert len(racks) == 8  # [SU-layout]: 32 DGX in 8 racks
        leaf_racks = {layout.position(f"p0.leaf{8 * su + r}").rack for r in range(8)}
        assert len(leaf_racks) == 1  # the SU's 8 leaves in one rack [SU-layout]
        leaf = layout.rack(next(iter(leaf_racks)))
        row = sorted((r for r in layout.racks if r.row == leaf.row), key=lambda r: r.position)
        block = [r for r in row if r.name in racks or r.name == leaf.name]
        kinds = [r.kind for r in block]
        assert kinds == ["compute"] * 4 + ["network"] + ["compute"] * 4  # four left, four right of the leaf rack


def test_h100_four_su_racks_match_table_7(superpod_h100):
    """Table 7: 38 racks. The compute fabric gives 32 compute + 4 SU leaf racks + 1 spine rack (16
    QM9700); the 38th is the management rack (UFM appliances, management servers) of the other
    networks, placed here from Table 7's appliance counts (1U each: an assumption, the table gives no
    heights)."""
    layout = superpod_h100.layout
    counts = layout.counts()
    assert (counts["compute"], counts["network"]) == (32, 5)

    class Table7:
        def devices(self):
            return [NetDevice(prefix="mgmt.ufm", count=4, height_u=1, watts_each=600, kind="management"),
                    NetDevice(prefix="mgmt.head", count=5, height_u=1, watts_each=800, kind="management")]

    resolved, fabric = superpod_h100.resolved, superpod_h100.fabric
    with_management = place(resolved, fabric, Table7())
    assert with_management.counts()["total"] == 38


def test_b300_xdr_four_per_rack_near_56_kw():
    p = plan(Design(gpu="B300", nodes=72))
    layout = p.layout
    assert layout.nodes_per_rack == 4  # [B300-RA]: four DGX B300 per rack
    assert layout.counts()["compute"] == 18  # one SU of 72 nodes
    full = [r for r in layout.racks if r.kind == "compute" and sum(s.count for s in r.slots) == 4]
    assert all(abs(r.kw - 56) / 56 < 0.05 for r in full)  # ~56 kW [B300-RA] (4 x 14.5 kW = 58 kW here)


def test_gb200_nvl72_su_eight_racks_within_the_su_tdp():
    p = plan(Design(gpu="GB200-NVL72", gpus=576))
    layout = p.layout
    compute = [r for r in layout.racks if r.kind == "compute"]
    assert len(compute) == 8  # [GB200-RA]: an SU is 8 DGX GB200 racks
    assert all(r.kw_limit >= r.kw >= 110 for r in compute)  # ~120 kW per NVL72 rack (catalog)
    assert sum(r.kw for r in compute) <= 1200  # SU TDP 1.2 MW [GB200-RA], networking and storage included
    assert all(r.u_used == r.u_total for r in compute)  # an NVL72 fills its rack
