"""Published counts and figures of the non-NVIDIA systems, and the mesh scale-up model's properties.

Golden numbers (each test names its source, as ``assets/catalog/systems.toml`` cites it):

* CloudMatrix 384: 384 Ascend 910C NPUs in 48 nodes of 8; 16 racks = 12 compute racks + 4 communication
  (unified-bus) racks; 392 GB/s unified-bus bandwidth per NPU, one direction (Zuo et al., "Serving Large Language
  Models on Huawei CloudMatrix384", arXiv 2506.12708, 2025).
* Gaudi 3: 24 x 200 GbE per card, 21 scale-up (3 to each of the 7 peers) and 3 scale-out; 525 GB/s scale-up and
  75 GB/s scale-out per card, one direction (Intel Gaudi documentation, "Intel Gaudi Network Configuration").
* MI300X: each GPU linked to its 7 peers, 64 GB/s per link per direction (AMD ROCm blog "Understanding RCCL
  Bandwidth and xGMI Performance on AMD Instinct MI300X", 2025-03-02); 7 x 64 = 448 GB/s to all peers.
* Atlas 800T A3 SuperPoD server: eight HiAM modules of two Ascend processors (dies) joined by HCCS, 1-16
  processors per job (Huawei MindCluster 7.3.0 scheduling guide, dl_affinity_0040); each 910C package two dies,
  each an HCCL rank (CANN HCCL user guide, hcclug_000066); package and bus figures as CloudMatrix 384's node.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import scaleup
from core.catalog import load_catalog
from core.design import Design
from core.errors import DesignError, InputError
from core.plan import plan

CATALOG = load_catalog()
VENDORS = {"MI300X": "AMD", "MI325X": "AMD", "MI355X": "AMD", "Gaudi3": "Intel", "Atlas-800T-A2": "Huawei",
           "CloudMatrix384": "Huawei", "Atlas-800T-A3": "Huawei"}


def test_cloudmatrix384_npus_and_racks():
    """arXiv 2506.12708: 384 NPUs, 48 nodes of 8, 12 compute racks and 4 communication racks."""
    cm = CATALOG.system("CloudMatrix384")
    assert cm.nvlink_domain_gpus == 384 and cm.gpus_per_node == 8
    assert cm.scaleup_kind == "switch" and cm.scaleup_name == "Unified Bus" and cm.scaleup_switch_racks == 4
    assert cm.nvlink_gbytes_per_gpu_per_direction == 392
    p = plan(Design(gpu="CloudMatrix384", gpus=384))
    assert p.resolved.nodes == 48 and p.resolved.gpus == 384
    assert p.racks_summary()["compute"] == 12
    nvl = p.nvlink_summary()
    assert nvl["domain_gpus"] == 384 and nvl["switch_racks"] == 4
    assert nvl["all_peers_gbytes_per_direction"] == nvl["peer_gbytes_per_direction"] == 392


def test_cloudmatrix384_rounds_to_whole_supernodes():
    """A domain of 48 nodes comes whole: 50 nodes round up to two supernodes (96 nodes, 24 compute racks)."""
    p = plan(Design(gpu="CM384", nodes=50))
    assert p.resolved.nodes == 96 and p.racks_summary()["compute"] == 24 and p.nvlink_summary()["switch_racks"] == 8


def test_atlas_800t_a3_is_one_cloudmatrix_node_on_its_own():
    """MindCluster dl_affinity_0040 / CANN hcclug_000066: 8 HiAM modules x 2 dies = 16 devices, HCCS inside the
    node; arXiv 2506.12708: the same 910C package and 392 GB/s per NPU, one direction, as CloudMatrix 384."""
    a3, cm = CATALOG.system("Atlas-800T-A3"), CATALOG.system("CloudMatrix384")
    assert a3.gpus_per_node == a3.nvlink_domain_gpus == 8 and a3.scaleup_name == "HCCS"
    assert a3.gpus_per_node * 2 == 16  # dies = HCCL ranks per node
    for field in ("gpu_name", "architecture", "hbm_gbytes", "hbm_tbytes_per_s", "dense_bf16_tflops",
                  "nvlink_gbytes_per_gpu_bidir", "nvlink_links_per_gpu", "default_nic"):
        assert getattr(a3, field) == getattr(cm, field), field
    assert cm.nvswitch_chips_per_domain - 112 == 48 * a3.nvswitch_chips_per_domain  # 336 on-board L1 chips
    assert a3.scaleup_switch_racks == 0 and "ASSUMPTION" in a3.power_source and "ESTIMATE" in a3.price_source
    p = plan(Design(gpu="Atlas-800T-A3", gpus=2048, fabric="ethernet", switch="HUAWEI-CE-XH9330"))
    nvl = p.nvlink_summary()
    assert p.resolved.nodes == 256 and nvl["domain_gpus"] == 8 and nvl["peer_gbytes_per_direction"] == 392
    assert p.resolved.nic.vendor == "Huawei" and p.resolved.port_speed_gbps == 400


def test_gaudi3_ports():
    """Intel Gaudi Network Configuration: 24 ports, 21 scale-up (3 per peer) and 3 scale-out, 200 Gb/s each."""
    g = CATALOG.system("Gaudi3")
    nic = CATALOG.nic(g.default_nic)
    scaleout_per_card = g.default_nics_per_node * nic.ports // g.gpus_per_node
    assert g.nvlink_links_per_gpu == 21 and scaleout_per_card == 3
    assert g.nvlink_links_per_gpu + scaleout_per_card == 24
    assert g.scaleup_kind == "mesh" and g.default_port_speed_gbps == 200
    assert g.scaleup_link_gbytes_per_direction == 200 / 8
    assert scaleup.links_per_peer(g.nvlink_links_per_gpu, g.nvlink_domain_gpus) == 3
    assert g.nvlink_gbytes_per_gpu_per_direction == 525  # 21 x 25 GB/s
    assert nic.price_usd == nic.power_w == 0  # the ports are on the card: no separate NIC to buy
    p = plan(Design(gpu="Gaudi3", nodes=4))
    assert p.bandwidth.scaleout_gbits_per_gpu == 600  # 3 x 200 Gb/s = 75 GB/s per card, one direction
    assert not [row for row in p.bom if row.category == "nic" and row.unit_price_usd > 0]


def test_mi300x_xgmi():
    """ROCm blog 2025-03-02: 7 peers, fully connected, 64 GB/s per link per direction; 448 GB/s to all peers."""
    m = CATALOG.system("MI300X")
    assert m.scaleup_kind == "mesh" and m.nvlink_links_per_gpu == 7 and m.nvswitch_chips_per_domain == 0
    assert m.scaleup_link_gbytes_per_direction == 64
    nvl = plan(Design(gpu="MI300X", nodes=2)).nvlink_summary()
    assert nvl["links_per_peer"] == 1 and nvl["peer_gbytes_per_direction"] == 64
    assert nvl["all_peers_gbytes_per_direction"] == 448 and nvl["generation"] == 0


@pytest.mark.parametrize("system_id", sorted(VENDORS))
def test_new_systems_plan_and_carry_their_vendor(system_id):
    """Every new system plans through the catalog (the link, design file and CLI take the same path)."""
    s = CATALOG.system(system_id)
    assert s.vendor == VENDORS[system_id] and s.collective_library in ("rccl", "hccl", "hccl-gaudi")
    assert s.source and s.as_of and s.price_source and s.power_source
    p = plan(Design(gpu=system_id, nodes=s.nvlink_domain_gpus // s.gpus_per_node))
    assert p.cost.capex_usd > 0 and p.nvlink_summary()["vendor"] == s.vendor


def test_nvidia_entries_keep_the_defaults():
    for s in CATALOG.systems:
        if s.vendor == "NVIDIA":
            assert (s.collective_library, s.scaleup_kind, s.scaleup_name) == ("nccl", "switch", "NVLink")
            assert s.nvlink_generation >= 1


def test_mesh_domain_larger_than_its_links_is_a_design_error():
    with pytest.raises(DesignError) as caught:
        plan(Design(gpu="MI300X", nodes=4, nvlink_domain_gpus=16))
    assert "7" in caught.value.message and caught.value.fixes
    assert ("use the system's own scale-up domain", {"nvlink_domain_gpus": None}) in caught.value.fixes


def test_nvlink_generation_on_a_non_nvlink_system_is_refused():
    with pytest.raises(InputError, match="Infinity Fabric"):
        plan(Design(gpu="MI300X", nodes=4, nvlink_generation=4))


def test_mesh_collectives_use_only_the_links_to_the_communicator():
    """A tensor-parallel group of 4 on an 8-GPU mesh has 3 of its 7 links; a ring over 4 ranks fits 2 rings."""
    from core.perf.collectives import collective

    p = plan(Design(gpu="MI300X", nodes=2))
    full = collective(p, "all-reduce", 2**30, gpus=8)["busbw_gbytes"]
    four = collective(p, "all-reduce", 2**30, gpus=4)["busbw_gbytes"]
    assert four < full * 3 / 7 + 1e-9
    assert full <= 448 * 0.75 + 1e-6  # the line rate times AMD's usable share


def test_mesh_link_failure_what_if_and_spof():
    from core.analysis.failure import what_if
    from core.analysis.spof import single_points

    p = plan(Design(gpu="MI300X", nodes=4))
    r = what_if(p, ["node1.mesh2-5"])
    assert r.nvlink_gbytes_per_gpu_one_direction == pytest.approx(448 * 6 / 7)
    assert r.gpus_nvlink_degraded == 2 and r.gpus_disconnected == 0
    assert r.domain_busbw_gbytes < r.healthy_domain_busbw_gbytes
    two = what_if(p, ["meshlink:2"])  # the worst two: both of one GPU's
    assert two.nvlink_gbytes_per_gpu_one_direction == pytest.approx(448 * 5 / 7)
    with pytest.raises(InputError):
        what_if(p, ["node1.mesh2-9"])
    mesh = [d for d in single_points(p).degrading if d.tier == "meshlink"]
    assert mesh and mesh[0].count == 4 * 28 and mesh[0].share_left == pytest.approx(6 / 7)


def test_scaleup_figure_draws_a_mesh_as_a_mesh():
    from core.figures.scaleup import scaleup_figure

    fig = scaleup_figure(plan(Design(gpu="MI300X", nodes=1)))
    lines = fig.data[0]
    assert sum(x is None for x in lines.x) == 28  # every pair of 8 GPUs, no switch chips
    assert "Infinity Fabric" in fig.layout.title.text


@settings(max_examples=60, deadline=None)
@given(domain=st.integers(2, 16), per=st.integers(1, 4), link=st.floats(1, 200))
def test_mesh_per_peer_is_the_links_and_all_peers_the_sum(domain, per, link):
    links = per * (domain - 1)
    peer = scaleup.peer_gbytes(link, links, domain)
    assert peer == pytest.approx(per * link)
    assert scaleup.all_peers_gbytes(peer, domain) == pytest.approx(links * link)
    rings = scaleup.ring_count(domain)
    assert rings <= domain - 1 and scaleup.ring_gbytes(peer, domain) <= scaleup.all_peers_gbytes(peer, domain) + 1e-9
    assert rings == (domain - 2 if domain in (4, 6) else domain - 1)


@settings(max_examples=30, deadline=None)
@given(ranks=st.integers(2, 8))
def test_mesh_summary_matches_the_model(ranks):
    s = CATALOG.system("Gaudi3")
    nvl = scaleup.summary(s, s.nvlink_domain_gpus, s.nvlink_gbytes_per_gpu_bidir)
    assert nvl["peer_gbytes_per_direction"] == 3 * 25
    assert math.isclose(nvl["all_peers_gbytes_per_direction"], 7 * nvl["peer_gbytes_per_direction"])
    assert scaleup.all_peers_gbytes(nvl["peer_gbytes_per_direction"], ranks) == 75 * (ranks - 1)


@pytest.mark.parametrize("system_id", ["MI355X", "Atlas-800T-A2", "CloudMatrix384"])
def test_link_design_file_and_cli_take_the_new_systems(system_id, capsys):
    """The share link, the design file and the CLI read the new systems through the catalog, like any other."""
    import json

    from conftest import run_cli
    from core.formats import sharelink
    from core.formats.design_file import design_from_bytes

    design = Design(gpu=system_id, nodes=48)
    back, warnings = sharelink.decode(sharelink.encode(design))
    assert back == design and not warnings
    assert design_from_bytes(design.model_dump_json(exclude_defaults=True).encode(), "d.json") == design
    code, out, _err = run_cli(capsys, "plan", "--gpu", system_id, "--nodes", "48", "--format", "json")
    assert code == 0
    summary = json.loads(out)
    assert summary["nvlink"]["name"] == CATALOG.system(system_id).scaleup_name
    assert summary["nvlink"]["kind"] == CATALOG.system(system_id).scaleup_kind
