"""The host link caps what a NIC carries (core.hostlink): hand counts, published NVIDIA configurations, and a
property over the catalog that no design reports per-GPU scale-out above its host's PCIe link."""

from __future__ import annotations

import pytest

from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import FabricPlannerError
from core.fabric.bandwidth import compute_bandwidth
from core.fabric.families import cabled_nics
from core.fabric.sizing import size_fabric
from core.hostlink import fed_nic_gbits, host_gbits, pcie_gbits
from core.perf.placement import links
from core.plan import plan


def _bw(**fields):
    resolved = resolve_design(Design(**fields))
    return resolved, compute_bandwidth(resolved, size_fabric(resolved))


def test_pcie_rates_by_hand():
    # PCI-SIG: Gen5 32 GT/s x 16 lanes x 128/130; Gen6 64 GT/s x 16 x 242/256 (FLIT); Gen4 16 GT/s; Gen3 8 GT/s
    assert pcie_gbits(5, 16) == pytest.approx(32 * 16 * 128 / 130) == pytest.approx(504.12, abs=0.01)
    assert pcie_gbits(6, 16) == pytest.approx(968.0)
    assert pcie_gbits(4, 16) == pytest.approx(252.06, abs=0.01)
    assert pcie_gbits(3, 16) == pytest.approx(126.03, abs=0.01)


def test_host_link_steps_down_to_a_line_rate():
    cat = load_catalog()
    cx7, cx8 = cat.nic("CX7"), cat.nic("CX8")
    assert host_gbits(cat.system("H100"), cx8) == 400  # Gen5 x16: 504 Gb/s encoded feeds 400G, not 800G
    assert host_gbits(cat.system("H100"), cx7) == 400
    assert host_gbits(cat.system("B300"), cx8) == 800  # Gen6 x16: 968 Gb/s
    assert host_gbits(cat.system("GB300"), cx8) == 800
    assert host_gbits(cat.system("A100"), cat.nic("CX6")) == 200  # Gen4 x16
    assert host_gbits(cat.system("Gaudi3"), cat.nic("Gaudi3-RoCE")) == 0  # ports on the accelerator: not limited
    # Socket Direct: a host giving the CX-8 two Gen5 x16 links (x32) feeds 800G (DOCA 2.9.0_CX8 notes)
    two_x16 = cat.system("H100").model_copy(update={"nic_pcie_lanes": 32})
    assert host_gbits(two_x16, cx8) == 800
    assert host_gbits(two_x16, cx7) == 400  # a CX-7 single-port card takes one x16


def test_h100_with_cx8_at_800g_carries_400g_per_gpu():
    resolved, bw = _bw(gpu="H100", nodes=64, port_speed_gbps=800, switch="Q3400", topology="rail-only")
    assert resolved.nic.id == "CX8" and resolved.port_speed_gbps == 800  # the bill keeps the 800G ports
    assert resolved.host_gbits_per_nic == 400
    assert bw.scaleout_gbits_per_gpu == 400  # 8 NICs x min(800, 400) / 8 GPUs
    assert bw.scaleout_gbits_per_gpu / 8 == 50  # GB/s per direction
    assert bw.injection_tbits_one_direction == pytest.approx(512 * 0.4)  # 512 NICs x 400 Gb/s
    note = " ".join(resolved.notes)
    assert "PCIe Gen5 x16" in note and "400 Gb/s" in note and "BF3" in note  # the cap and a cheaper NIC
    p = plan(Design(gpu="H100", nodes=64, port_speed_gbps=800, switch="Q3400", topology="rail-only"))
    assert links(p).nic_per_gpu_line == pytest.approx(50.0)  # the collectives' NIC line [GB/s]


def test_h100_cx8_on_ethernet_two_planes_share_the_host_link():
    resolved, bw = _bw(gpu="H100", nodes=32, fabric="ethernet", nic="CX8", port_speed_gbps=400, planes=2)
    assert resolved.planes == 2 and resolved.host_gbits_per_nic == 400
    assert fed_nic_gbits(resolved) == 400  # 2 x 400GbE over one Gen5 x16
    assert bw.scaleout_gbits_per_gpu == 400


def test_b300_with_cx8_at_800g_unchanged():
    resolved, bw = _bw(gpu="B300", nodes=64)
    assert (resolved.nic.id, resolved.port_speed_gbps, resolved.host_gbits_per_nic) == ("CX8", 800, 800)
    assert bw.scaleout_gbits_per_gpu == 800
    assert not any("PCIe" in n for n in resolved.notes)


@pytest.mark.parametrize("gpu, nic, speed, per_gpu", [
    ("H100", "CX7", 400, 400),  # DGX H100: 8 x ConnectX-7 400G, one per GPU (DGX SuperPOD H100 RA)
    ("H200", "CX7", 400, 400),  # DGX H200: the same network as DGX H100
    ("B200", "CX7", 400, 400),  # DGX B200: 8 x ConnectX-7 400G (DGX B200 datasheet)
    ("B300", "CX8", 800, 800),  # DGX/HGX B300: 8 x ConnectX-8 800G (DGX B300 SuperPOD)
    ("GB300", "CX8", 800, 800),  # GB300 NVL72: 800 Gb/s per GPU over Quantum-X800
    ("GB200", "CX7", 400, 400),  # GB200 NVL72 compute tray: 4 x ConnectX-7 400G for 4 GPUs
])
def test_published_nvidia_configurations_are_not_capped(gpu, nic, speed, per_gpu):
    resolved, bw = _bw(gpu=gpu, nodes=72 if gpu.startswith("GB") else 32)
    assert (resolved.nic.id, resolved.port_speed_gbps) == (nic, speed)
    assert bw.scaleout_gbits_per_gpu == per_gpu
    assert not any("PCIe" in n for n in resolved.notes)


def _designs():
    cat = load_catalog()
    for system in cat.systems:
        for nic in cat.nics:
            if nic.transport is not None:
                continue
            for fabric in nic.fabrics:
                for speed in nic.speeds_on(fabric):
                    yield system.id, nic.id, fabric, speed


def test_no_design_reports_scaleout_above_its_host_link():
    """Property: over every catalogued system x NIC x fabric x speed that resolves, the per-GPU scale-out is at most
    the NICs' host links (and equal to what the host and the wire both allow)."""
    cat = load_catalog()
    checked = capped = 0
    for gpu, nic, fabric, speed in _designs():
        system = cat.system(gpu)
        nodes = max(2, system.nvlink_domain_gpus // system.gpus_per_node)
        try:
            resolved = resolve_design(Design(gpu=gpu, nodes=nodes, nic=nic, fabric=fabric, port_speed_gbps=speed))
            fabric_plan = size_fabric(resolved)
        except FabricPlannerError:
            continue
        bw = compute_bandwidth(resolved, fabric_plan)
        nics = cabled_nics(fabric_plan, resolved.nics_per_node)
        host = host_gbits(system, cat.nic(nic))
        wire = resolved.port_speed_gbps * resolved.planes
        if host:
            assert bw.scaleout_gbits_per_gpu <= nics * host / resolved.gpus_per_node + 1e-9, (gpu, nic, speed)
        assert bw.scaleout_gbits_per_gpu == pytest.approx(nics * min(wire, host or wire) / resolved.gpus_per_node)
        checked += 1
        capped += bool(host and wire > host)
    assert checked > 100 and capped > 5  # the property ran over many designs, some of them capped


def test_the_optimizers_split_bounds_stay_upper_bounds():
    """The training split bounds read a network at least as fast as any fabric's (``jobsplit.bounds_view``): its NIC is
    not capped by a host, so a cap (which only lowers a design's bandwidth) leaves it an upper bound."""
    from core.analysis.jobsplit import bounds_view
    from core.analysis.perfview import unpriced

    p = plan(Design(gpu="H100", nodes=64, port_speed_gbps=800, switch="Q3400"))
    bound = bounds_view(unpriced(p)).resolved
    assert bound.host_gbits_per_nic == 0
    assert fed_nic_gbits(bound) * bound.nics_per_node >= fed_nic_gbits(p.resolved) * p.resolved.nics_per_node
    assert fed_nic_gbits(p.resolved) == 400 < p.resolved.port_speed_gbps * p.resolved.planes


AGREE = [  # (plane mode, planes, fabric, port speed): CX8's 1 x 800G IB, 2 x 400GbE per-port planes, per-rail
    ("per-port", 1, "infiniband", 800), ("per-port", 2, "ethernet", 400),  # planes of 8 NICs at 800G
    ("per-rail", 2, "infiniband", 800), ("per-rail", 4, "infiniband", 800)]
"""The plane modes and counts the agreement below covers (a CX8 has at most 2 ports: per-port planes stop at 2)."""
FED_PER_GPU = {"H100": 400, "B300": 800}
"""Hand count, one direction [Gb/s]: 8 CX8 for 8 GPUs, each NIC fed ``min(port speed x ports in use, host)``;
H100's PCIe Gen5 x16 feeds 400 (capped: 800G of wire), B300's Gen6 x16 800 (not capped)."""


def _simai_per_gpu(text: str, gpus: int) -> dict[int, float]:
    """The SimAI file's GPU-to-leaf lines summed per GPU [Gb/s, one direction] (NVLink lines left out)."""
    from tests.test_export_sim import gbps, read_simai

    f = read_simai(text)
    per_gpu: dict[int, float] = {}
    for src, dst, rate, *_ in f["links"]:
        if src < gpus and f["node_type"][dst] == 1:
            per_gpu[src] = per_gpu.get(src, 0.0) + gbps(rate)
    return per_gpu


@pytest.mark.parametrize("mode, planes, fabric, speed", AGREE, ids=lambda v: str(v))
@pytest.mark.parametrize("system", sorted(FED_PER_GPU))
def test_bandwidth_pods_and_simai_agree_on_what_a_port_carries(system, mode, planes, fabric, speed):
    """One per-port rule (``core.hostlink.fed_cabled_port_gbits``): the bandwidth module (the design's and each pod's
    plane as the pods size it), the pods' rates and both SimAI writers give each GPU the hand count."""
    from core.analysis.pods import mixed_plan
    from core.fabric.bandwidth import tier_capacities_gbits
    from core.fabric.pods import _sized_alone, pod_plans
    from core.formats.exports import export_text

    want = FED_PER_GPU[system]
    fields = dict(gpu=system, nodes=32, nic="CX8", fabric=fabric, port_speed_gbps=speed, planes=planes,
                  plane_mode=mode)
    p = plan(Design(**fields))
    assert p.bandwidth.scaleout_gbits_per_gpu == want
    assert tier_capacities_gbits(p.resolved, p.fabric)["injection"] / p.resolved.gpus == want
    assert set(_simai_per_gpu(export_text(p, "simai"), p.resolved.gpus).values()) == {want}

    other = "B300" if system == "H100" else "H100"
    design = Design(**fields, pods=f"{other}:32:{speed}")
    wants = [want, FED_PER_GPU[other]]
    alone = pod_plans(design, None, load_catalog(), lambda d, i, r: (r, _sized_alone(d, i, r)))
    for index, (view, fabric_alone) in alone.plans.items():  # one plane of each pod (core.fabric.pods.plane_of)
        assert tier_capacities_gbits(view, fabric_alone)["injection"] / view.gpus == wants[index], index
    mixed = mixed_plan(design)
    assert [pod.gbps_per_gpu for pod in mixed.fabric.pods] == wants
    assert [q.bandwidth.scaleout_gbits_per_gpu for q in mixed.plans] == wants
    lines = _simai_per_gpu(export_text(plan(design), "simai"), mixed.fabric.gpus)
    first = mixed.plans[0].resolved.gpus
    assert {rate for gpu, rate in lines.items() if gpu < first} == {wants[0]}
    assert {rate for gpu, rate in lines.items() if gpu >= first} == {wants[1]}
