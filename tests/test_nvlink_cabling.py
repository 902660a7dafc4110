"""The second NVLink level in the rack layout and the cabling plan (core.fabric.domainlevels.level2_links,
core.physical.layout, core.physical.cabling), and NVL36x2's direct rack-to-rack cabling.

Sources: NVIDIA Multi-Node NVLink Systems tuning guide, "Understanding Your Grace-Blackwell Systems"
(https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/system.html): "The GB200 architecture
supports 36x2 and 72x1 configurations"; an NVL36x2 rack holds "9x 2RU Compute trays" and "9x 1RU NVL36 NVLink Switch
trays" whose "NVLink Switch ASICs + OSFPs are liquid cooled" (no switch beyond the racks' own). DGX H100 NVLink
Switch System: 18 NVLink Switches of 32 OSFP cages for 32 DGX H100 (scaleup.toml's sources).
"""

from __future__ import annotations

import io
from collections import Counter

import pytest

from core.design import Design
from core.fabric.domainlevels import scaleup_of
from core.figures.racks import rack_elevation_figure
from core.formats.cabling import write_csv
from core.formats.netbox import cables, devices
from core.physical.cabling import cable_count, cabling_rows
from core.plan import plan

NVL576_OF_NVL36 = Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576, nvlink_rack_gpus=36)
NVL36X2 = Design(gpu="GB200-NVL72", gpus=144, nvlink_domain_gpus=72, nvlink_rack_gpus=36)
H100_256 = Design(gpu="H100", gpus=512, nvlink_domain_gpus=256)


def _bom(p, word: str) -> int:
    return sum(row.quantity for row in p.bom if "NVLink level 2" in row.item and row.category == word)


@pytest.mark.parametrize("design", [NVL576_OF_NVL36, NVL36X2, H100_256,
                                    Design(gpu="GB200-NVL72", gpus=1296, nvlink_domains="576,72x2",
                                           nvlink_rack_gpus=36)])
def test_the_cabling_plan_has_every_level2_cable_the_bom_buys_with_both_ends_placed(design):
    p = plan(design)
    rows = list(cabling_rows(p))
    nvlink = [row for row in rows if row.network == "nvlink"]
    assert len(nvlink) == _bom(p, "cable") > 0 and len(rows) == cable_count(p)
    assert all(row.a_rack and row.z_rack and row.a_u and row.z_u and row.length_m for row in nvlink)
    assert {row.cable_part for row in nvlink} == {next(r.catalog_id for r in p.bom
                                                       if r.category == "cable" and "NVLink level 2" in r.item)}
    # every level-2 unit the BOM buys is in a rack, and each carries as many cables as it has cages at most
    units = Counter(row.z_device for row in nvlink if row.link_class == "nvlink-l2")
    assert len(units) == _bom(p, "switch")
    spec = scaleup_of(p.resolved).level2
    assert max(units.values(), default=0) <= spec.switch.ports // spec.links_per_cable
    ports = Counter((row.z_device, row.z_port) for row in nvlink)
    ports += Counter((row.a_device, row.a_port) for row in nvlink)
    assert max(ports.values()) == 1  # no port holds two cables


def test_sixteen_nvl36_racks_reach_their_level2_units_from_their_switch_trays():
    p = plan(NVL576_OF_NVL36)
    nvlink = [row for row in cabling_rows(p) if row.network == "nvlink"]
    assert {row.link_class for row in nvlink} == {"nvlink-l2"}
    first = nvlink[0]
    assert (first.a_device, first.a_port, first.z_device, first.z_port) == ("nvl001-nvsw1", "osfp1", "nvd001-l2sw001",
                                                                            "osfp1")
    assert first.speed_gbps == 1600  # 4 NVLink 5 links of 50 GB/s per direction
    # 36 GPUs x 18 NVLinks / 4 per cable = 162 cables per rack, 18 per switch tray
    per_tray = Counter(row.a_device for row in nvlink)
    assert set(per_tray.values()) == {18} and len(per_tray) == 32 * 9
    layout = p.layout
    tray = layout.position("nvsw0")
    node = layout.position("node0")
    assert tray.rack == node.rack and tray.height_u == 1  # the trays stand in their rack, between its compute trays
    assert layout.position("nvl0.l2sw0").rack not in {r.name for r in layout.racks if r.kind == "compute"}
    # 2 domains x 576 GPUs x 18 uplinks / 144 ports per tray = 2 x 72 level-2 trays
    assert sum(s.count for r in layout.racks for s in r.slots if s.kind == "nvlink2") == 144
    assert (first.media, first.cable_part, first.a_transceiver, first.z_transceiver) == (
        "smf", "NVLINK5-FIBER", "NVLINK5-OSFP-MODULE", "NVLINK5-OSFP-MODULE")  # two modules and a fibre
    kinds = {trace.legendgroup for trace in rack_elevation_figure(layout).data}
    assert {"nvswitch", "nvlink2"} <= kinds


def test_nvl36x2_is_two_racks_cabled_to_each_other_with_no_level2_switch():
    p = plan(NVL36X2)
    up = scaleup_of(p.resolved)
    pair = up.domain_size(72)
    assert pair.direct and pair.level2_switches == 0
    assert pair.level2_cables == 162  # 36 GPUs x 18 NVLinks / 4 per cable, each cable joining the two racks
    assert _bom(p, "switch") == 0 and _bom(p, "cable") == 2 * 162
    assert up.level2_gbytes_per_gpu == up.level1_gbytes_per_gpu  # full NVLink speed between the two racks
    nvlink = [row for row in cabling_rows(p) if row.network == "nvlink"]
    assert {row.link_class for row in nvlink} == {"nvlink-direct"}
    assert all(row.a_rack != row.z_rack and row.a_port == row.z_port for row in nvlink)
    assert "nvlink2" not in __import__("core.analysis.failure.spec", fromlist=["tiers_for"]).tiers_for(p)
    assert not [row for row in devices(p) if row[1] == "NVLink level-2 switch"]
    # a pair of NVL72 racks is not NVL36x2: its trays have no external cages, so it keeps level-2 switches
    assert not scaleup_of(plan(Design(gpu="GB200-NVL72", gpus=144, nvlink_domain_gpus=144)).resolved).domain_size(
        144).direct


def test_the_csv_and_netbox_exports_carry_the_nvlink_cables_and_their_devices():
    p = plan(H100_256)
    out = io.StringIO()
    write_csv(p, out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 + cable_count(p) and sum(",nvlink,nvlink-l2," in line for line in lines) == 1152
    names = {row[0] for row in devices(p)}
    ends = {(row[0], row[3]) for row in cables(p) if row[-1].startswith("nvlink")}
    assert ends and all(a in names and z in names for a, z in ends)


def test_one_level_designs_have_no_nvlink_cables():
    p = plan(Design(gpu="GB200-NVL72", gpus=576))
    assert not [row for row in cabling_rows(p) if row.network == "nvlink"]
    assert not [s for r in p.layout.racks for s in r.slots if s.kind in ("nvswitch", "nvlink2")]


def test_the_scale_up_view_draws_an_nvl36x2_pair_without_level2_switches():
    from core.figures import scaleup_figure
    from core.i18n import language

    fig = scaleup_figure(plan(NVL36X2))
    text = " ".join(a.text for a in fig.layout.annotations).replace("<br>", " ")
    assert "no level-2 NVLink switch" in text
    assert not [t for t in fig.data if t.marker and t.marker.symbol == "diamond" and t.x]  # no switch drawn
    with language("zh"):
        mixed = scaleup_figure(plan(Design(gpu="GB200-NVL72", gpus=1296, nvlink_domains="576,72x2",
                                           nvlink_rack_gpus=36)))
    note = " ".join(a.text for a in mixed.layout.annotations).replace("<br>", "")
    assert "1 x 576、2 x 72 和 8 x 72" in note  # the language's list separator


def test_the_elevation_legend_stands_under_the_rack_names():
    fig = rack_elevation_figure(plan(NVL576_OF_NVL36).layout)
    assert fig.layout.legend.yanchor == "top" and fig.layout.legend.y < -0.1  # grows downwards, under the names
    names = len(fig.layout.xaxis.ticktext)
    powers = [a.text for a in fig.layout.annotations]
    assert len(powers) == names and all(("<br>" in text) == (names > 5) for text in powers)


def test_the_cli_plan_says_an_nvl36x2_pair_has_no_level2_switch(capsys):
    from core.cli import main

    assert main(["plan", "--gpu", "GB200-NVL72", "--gpus", "144", "--nvlink-domain", "72", "--nvlink-rack", "36"]) == 0
    out = capsys.readouterr().out
    assert "0 switch units, 324 cables" in out and "2 pairs of racks cabled to each other" in out
