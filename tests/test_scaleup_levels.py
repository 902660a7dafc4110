"""NVLink domains of two levels (core.fabric.domainlevels): published counts, Slurm blocks, collectives, bad input.

Sources of the golden numbers:

* DGX H100 NVLink Switch System: "clusters with up to 256 connected NVIDIA H100 Tensor Core GPUs and 57.6 TB/s of
  all-to-all bandwidth" (NVIDIA Technical Blog, "Upgrading Multi-GPU Interconnectivity with the Third-Generation
  NVIDIA NVSwitch", 2022); 18 NVLink Switches for 32 DGX H100, 72 NVLinks (18 OSFP cages of 4) out of each node
  (NVIDIA Hot Chips 34 NVSwitch talk: "OSFP support (4 NVLinks per cage)").
* GB200 NVL576: "scaling up to 576 GPUs", "all-to-all GPU communication at full NVLink speed within a single rack
  and between racks", "The NVIDIA NVLink Switch features 144 NVLink ports with a non-blocking switching capacity of
  14.4TB/s" (nvidia.com NVLink page: one 2-chip tray, 72 ports per chip); each GPU's 18 NVL5 links go one to each of
  a rack's 18 switch chips (GB200 SuperPOD RA network fabrics), so an NVL72 rack has no free port and NVL576 is 16
  NVL36 racks, 288 first-level chips and 144 second-level chips (SemiAnalysis, GB200 Hardware Architecture). The
  level-2 switch count is not published by NVIDIA: derived from those ports (assets/catalog/scaleup.toml says so).
* Slurm blocks: topology.conf(5) "topology/block" (BlockName, BlockSizes; "Successive BlockSizes must be a power
  of two larger than the prior values"); NVIDIA topograph's inference for accelerator sub-domains,
  "blockSizes = [maxSubDomainSize, aggregateSize]", example largest sub-domain 9, largest domain 135 -> [9, 144]
  (https://docs.nvidia.com/topograph/v1.0.0/engines/slurm).
"""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings, strategies as st

from core.design import Design, check_domains, domain_list
from core.errors import DesignError, InputError
from core.fabric.naming import NamingScheme
from core.fabric.domainlevels import level2_table, scaleup_of
from core.figures import scaleup_figure
from core.formats import sharelink
from core.formats.slurm import slurm_blocks, write_block_conf
from core.perf.collectives import collective, sweep
from core.perf.placement import bottleneck_line_gbytes, place
from core.plan import plan

GiB = 2**30


def test_dgx_h100_nvlink_switch_system_matches_what_nvidia_published():
    p = plan(Design(gpu="H100", gpus=256, nvlink_domain_gpus=256))
    up = scaleup_of(p.resolved)
    domain = up.domain_size(256)
    assert (domain.racks, domain.level2_switches) == (32, 18)  # 32 DGX H100, 18 NVLink Switches
    assert domain.level2_cables == 32 * 18  # 18 OSFP cages of 4 NVLinks per node
    assert up.level2_gbytes_per_gpu * 256 / 1000 == pytest.approx(57.6)  # TB/s all-to-all, one direction
    assert up.taper == pytest.approx(0.5)  # 72 of the node's 144 NVLinks leave it
    summary = p.nvlink_summary()
    assert summary["levels"] == 2 and summary["level2_switches"] == 18 and summary["domain_sizes"] == [[256, 1]]


def test_gb200_nvl576_is_sixteen_nvl36_racks_at_full_nvlink_speed():
    p = plan(Design(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=576))
    up = scaleup_of(p.resolved)
    assert (up.level1_gpus, up.domain_gpus, up.domain_size(576).racks) == (36, 576, 16)  # NVL36 by default
    assert up.level2_gbytes_per_gpu == up.level1_gbytes_per_gpu == 900  # "full NVLink speed ... between racks"
    # hand count: 576 GPUs x 18 uplinks = 10,368 / 144 ports per tray = 72 trays of 2 chips = 144 chips
    assert up.totals()["level2_links"] == 10_368
    assert up.totals()["level2_switches"] == 72 and up.totals()["level2_chips"] == 144
    assert up.totals()["level2_cables"] == 10_368 // 4  # 4 NVLinks per cable
    assert p.nvlink_summary()["nvswitch_chips"] == 16 * 18 + 144  # SemiAnalysis: 288 first-level + 144 second-level
    assert max(entry.max_domain_gpus for entry in level2_table()) == 576
    assert p.resolved.nodes_per_rack == 9  # a rack holds one NVL36 (9 compute trays), not the whole domain


def test_a_144_gpu_domain_has_18_level2_trays_by_hand_count():
    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))  # 576 GPUs, 4 domains of 4 NVL36 racks
    up = scaleup_of(p.resolved)
    domain = up.domain_size(144)
    assert (domain.racks, domain.level2_links, domain.level2_switches, domain.level2_cables) == (4, 2592, 18, 648)
    assert up.totals()["level2_switches"] == 4 * 18  # 2,592 uplinks / 144 ports, per domain
    bill = {row.catalog_id + ":" + row.category: row.quantity for row in p.bom if "NVLINK" in row.catalog_id}
    # 16 NVL36 racks x 9 trays = 144, less the 144 nodes x 9/18 = 72 the node price holds
    assert bill == {"NVLINK5-SWITCH-TRAY:switch": 72, "NVLINK5-SWITCH-TRAY:compute": 72,
                    "NVLINK5-OSFP-MODULE:transceiver": 2 * 2592, "NVLINK5-FIBER:cable": 2592}


def test_a_first_level_of_shipped_nvl72_racks_has_no_free_port_and_is_refused_with_ways_out_that_build():
    design = Design(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=144, nvlink_rack_gpus=72)
    with pytest.raises(DesignError) as caught:
        plan(design)
    assert "leaving 0 for the 1,296 uplinks" in caught.value.message and caught.value.fixes
    changes = [c for _phrase, c in caught.value.fixes]
    assert {"nvlink_rack_gpus": 36} in changes
    for change in changes:
        plan(Design(**{**design.model_dump(exclude_defaults=True), **change}))


def test_sixteen_nvl36_racks_export_blocksizes_9_144():
    p = plan(Design(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=576, nvlink_rack_gpus=36))
    blocks = slurm_blocks(p)
    assert blocks.sizes == [9, 144]
    assert len(blocks.blocks) == 16 and all(len(nodes) == 9 for _name, nodes in blocks.blocks)
    out = io.StringIO()
    write_block_conf(p, out, NamingScheme())
    assert "BlockSizes=9,144\n" in out.getvalue()


def test_nvl36_blocks_and_a_partial_or_mixed_cluster_aggregate_to_the_largest_domain():
    # a two-level GB200 domain is made of NVL36 racks (9 compute trays): topograph's [9, 144]
    assert slurm_blocks(plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576))).sizes == [9, 144]
    mixed = plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domains="576,144x2"))
    assert mixed.nvlink_summary()["domain_sizes"] == [[576, 1], [144, 2], [72, 4]]  # the rest: NVL36x2 pairs
    assert mixed.nvlink_summary()["direct_pairs"] == 4
    assert slurm_blocks(mixed).sizes == [9, 144]
    assert scaleup_of(mixed.resolved).domain_of_node(150) == 1 and scaleup_of(mixed.resolved).domain_of_node(287) == 6
    one_level = plan(Design(gpu="GB200-NVL72", gpus=576))
    assert slurm_blocks(one_level).sizes[:2] == [18, 36]  # unchanged: a block per NVL72 and its doublings


def test_bom_counts_the_second_level_and_says_why():
    p = plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576))
    rows = [row for row in p.bom if row.catalog_id in ("NVLINK5-SWITCH-TRAY", "NVLINK5-OSFP-MODULE", "NVLINK5-FIBER")]
    totals = scaleup_of(p.resolved).totals()
    assert [(row.category, row.quantity) for row in rows] == [
        ("switch", totals["level2_switches"]), ("compute", 32 * 9 - 288 // 2),  # NVL36 trays beyond the node price
        ("transceiver", 2 * totals["level2_cables"]), ("cable", totals["level2_cables"])]
    assert all(row.why and row.price_basis == "estimate" for row in rows)
    flat = plan(Design(gpu="GB200-NVL72", gpus=1152))
    assert not [row for row in flat.bom if "NVLINK" in row.catalog_id]


@settings(max_examples=25, deadline=None)
@given(racks=st.sampled_from([1, 2, 4, 8]), bigger=st.sampled_from([2, 4, 8]), job=st.sampled_from([72, 144, 288, 576]))
def test_a_bigger_domain_never_lowers_in_domain_bandwidth(racks, bigger, job):
    small, large = racks * 72, max(racks, bigger) * 72
    plans = [plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=d)) for d in (small, large)]
    lines = [bottleneck_line_gbytes(p, place(p, job)) for p in plans]
    assert lines[1] >= lines[0]


@settings(max_examples=25, deadline=None)
@given(racks=st.integers(1, 40), more=st.integers(0, 40), domain=st.sampled_from([144, 288, 576]))
def test_level2_counts_are_monotone_in_cluster_size(racks, more, domain):
    totals = [scaleup_of(plan(Design(gpu="GB200-NVL72", gpus=72 * n, nvlink_domain_gpus=domain)).resolved).totals()
              for n in (racks, racks + more)]
    for key in ("level2_switches", "level2_links", "level2_cables", "domains"):
        assert totals[1][key] >= totals[0][key]


def test_collectives_across_the_second_level_use_its_bandwidth_and_leave_nvls_out():
    nvl576 = plan(Design(gpu="H100", gpus=256, nvlink_domain_gpus=256))
    across = sweep(nvl576, "all-reduce", [GiB], gpus=256)
    assert "nvls" not in across.curves and any("second NVSwitch level" in note for note in across.notes)
    with pytest.raises(DesignError, match="not modelled"):
        collective(nvl576, "all-reduce", GiB, gpus=256, algorithm="nvls")
    inside = sweep(nvl576, "all-reduce", [GiB], gpus=8)
    flat = sweep(plan(Design(gpu="H100", gpus=256)), "all-reduce", [GiB], gpus=8)
    assert inside.curves.keys() == flat.curves.keys()  # a node's ranks never cross the second level
    assert float(inside.curves["nvls"].time_us[0]) == pytest.approx(float(flat.curves["nvls"].time_us[0]))
    assert bottleneck_line_gbytes(nvl576, place(nvl576, 256)) == pytest.approx(225)  # 9 links x 25 GB/s


def test_a_domain_not_a_whole_number_of_racks_is_a_design_error_with_ways_out_that_build():
    with pytest.raises(DesignError) as caught:
        plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=500))
    assert "not a whole number" in caught.value.message and caught.value.fixes
    for _phrase, changes in caught.value.fixes:
        plan(Design(**{**Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=500).model_dump(
            exclude_defaults=True), **changes}))


def test_other_bad_domains_are_refused_with_reasons():
    with pytest.raises(DesignError, match="no published second NVLink level"):
        plan(Design(gpu="B200", gpus=256, nvlink_domain_gpus=64))
    with pytest.raises(DesignError, match="more than the"):
        plan(Design(gpu="GB200-NVL72", gpus=576, nvlink_domains="576x2"))
    with pytest.raises(DesignError, match="not a whole number"):
        plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domains="576,100"))
    for bad in ("576y2", "abc", "0", "577", ",".join(["72"] * 65)):
        with pytest.raises(InputError):
            check_domains(bad)


def test_mixed_sizes_read_the_same_from_every_spelling_and_round_trip_through_the_link():
    assert check_domains(" 576 X 2， 72 ") == check_domains(["576x2", 72]) == "576x2,72"
    assert domain_list("576x2,72") == (576, 576, 72)
    design = Design(gpu="GB200-NVL72", gpus=1296, nvlink_domains="576x2,72", nvlink_rack_gpus=36)
    decoded, warnings = sharelink.decode(sharelink.encode(design))
    assert (decoded, warnings) == (design, [])
    decoded, warnings = sharelink.decode({"g": "GB200-NVL72", "nvm": "576y"})
    assert decoded.nvlink_domains is None and warnings  # a bad value: dropped with a warning


def test_the_scale_up_view_draws_both_levels():
    fig = scaleup_figure(plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576)))
    assert "two levels" in fig.layout.title.text
    hovers = " ".join(" ".join(trace.hovertext or ()) for trace in fig.data if trace.hovertext is not None)
    assert "Level-2 NVLink switch 72" in hovers and "First-level domain 16" in hovers


def test_failure_what_if_of_level2_switches_thins_or_splits_the_domain():
    from core.analysis.failure import what_if
    from core.analysis.failure.spec import tiers_for

    p = plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576))
    assert "nvlink2" in tiers_for(p) and "nvlink2" not in tiers_for(plan(Design(gpu="GB200-NVL72", gpus=1152)))
    some = what_if(p, ["nvlink2:3"])
    assert [f["element"] for f in some.failed] == ["domain0.l2switch0", "domain0.l2switch1", "domain0.l2switch2"]
    assert some.gpus_disconnected == 0 and any("862 of 900 GB/s" in note for note in some.notes)  # 69/72 left
    every = what_if(p, ["nvlink2:72"])
    assert any("splits into its 16 first-level domains" in note for note in every.notes)
    with pytest.raises(InputError, match="level-2 NVLink switch"):
        what_if(p, ["domain2.l2switch0"])


def test_netbox_and_graphml_carry_the_second_level():
    from core.formats.graphml import graphml_graph
    from core.formats.netbox import devices

    p = plan(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576))
    level2 = [row for row in devices(p) if row[1] == "NVLink level-2 switch"]
    assert len(level2) == 144 and level2[0][0] == "nvd001-l2sw001" and level2[-1][0] == "nvd002-l2sw072"
    assert level2[0][-1] == "nvl0.l2sw0" and all(row[6] for row in level2)  # the engine id; placed in a rack
    assert graphml_graph(p).graph["nvlink_level2_switches"] == 144
    flat = plan(Design(gpu="GB200-NVL72", gpus=1152))
    assert "nvlink_level1_gpus" not in graphml_graph(flat).graph
    assert not [row for row in devices(flat) if row[1] == "NVLink level-2 switch"]


def test_the_cli_plans_two_levels_and_refuses_a_partial_rack(capsys):
    from core.cli import main

    assert main(["plan", "--gpu", "H100", "--gpus", "512", "--nvlink-domain", "256"]) == 0
    out = capsys.readouterr().out
    assert "32 x 8 GPUs per domain; level 2, each domain of 256 GPUs: 18 switch units" in out
    assert "all 2 domains: 36 switch units" in out and "taper 2:1" in out
    assert main(["plan", "--gpu", "GB200-NVL72", "--gpus", "1152", "--nvlink-domains", "576,100"]) != 0
    assert "not a whole number" in capsys.readouterr().err


def test_resilience_says_the_nvlink_domain_and_counts_the_nvl36_racks_chips():
    from core.analysis.spof import degrading_label, single_points

    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))  # 16 NVL36 racks in 4 domains of 144
    rows = {d.tier: d for d in single_points(p).degrading}
    # hand count: 16 racks x 9 trays, 16 x 18 chips; a GPU has 1 link to each of its rack's 18 chips
    assert (rows["tray"].count, rows["nvswitch"].count) == (144, 288)
    assert rows["nvswitch"].share_left == pytest.approx(17 / 18) and rows["tray"].share_left == pytest.approx(16 / 18)
    # a tray slows its own rack's 36 GPUs, the count the failure what-if gives for it (l2fix48c; was the domain's 144)
    assert "its domain's 36 GPUs" in degrading_label(rows["tray"])
    flat = {d.tier: d for d in single_points(plan(Design(gpu="GB200-NVL72", nodes=36))).degrading}
    assert "its domain's 72 GPUs" in degrading_label(flat["tray"])  # one level: the rack is the domain


def test_the_default_two_level_rack_is_the_largest_first_level_whose_ports_fit():
    from core.catalog import load_catalog
    from core.fabric.domainlevels import level1_fit, level2_for

    for system_id in ("GB200-NVL72", "GB300-NVL72"):
        system = load_catalog().system(system_id)
        spec = level2_for(system)
        # 9 trays x 144 ports = 1,296 = 36 GPUs x (18 links inside + 18 up); 72 GPUs x 18 = 1,296 leaves none
        assert (spec.level1_trays, spec.level1_tray_ports, spec.switch.ports, spec.switch.chips) == (9, 144, 144, 2)
        assert system.nvlink_two_level_rack_gpus == level1_fit(spec, system, system.gpus_per_node) == 36
    h100 = load_catalog().system("H100")
    assert level1_fit(level2_for(h100), h100, 8) == 0  # a node's own cages: not checked
