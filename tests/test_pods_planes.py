"""Pods on several planes are refused, with ways out that size: one plane at planes times the NIC port speed (the
same bandwidth per GPU) when that sizes, else one plane; per-rail planes: one plane (each NIC was in one plane)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main as cli_main
from core.design import Design
from core.errors import DesignError
from core.fabric.pods import size_pods
from core.plan import plan

# two planes of dual-port 100G NICs: 8 NICs x 2 planes x 100G / 8 GPUs = 200 Gb/s per GPU, per direction
TWO_PLANES = Design(gpu="H100", nodes=16, nic="CX7-2P", port_speed_gbps=100, planes=2, pods="H100:8:100")


def _refusal(design: Design) -> DesignError:
    with pytest.raises(DesignError) as info:
        size_pods(design)
    assert "2 planes" in info.value.message and "one plane" in info.value.message
    return info.value


def test_two_planes_offer_one_plane_at_twice_the_speed_with_the_same_bandwidth():
    error = _refusal(TWO_PLANES)
    (same, faster), (_less, one), (_drop, drop) = error.fixes
    assert faster == {"planes": 1, "plane_mode": "per-port", "port_speed_gbps": 200, "pods": "H100:8:200"}
    assert "200G" in same and "the same bandwidth per GPU" in error.suggestion
    fixed = size_pods(TWO_PLANES.model_copy(update=faster))
    # 8 NICs x 200G / 8 GPUs = 200 Gb/s per GPU, as 8 x 2 x 100G / 8 in two planes
    assert [pod.gbps_per_gpu for pod in fixed.pods] == [200.0, 200.0]
    assert size_pods(TWO_PLANES.model_copy(update=one)).pods[0].gbps_per_gpu == 100.0  # half of it
    assert drop == {"pods": None}


def test_twice_the_speed_is_not_offered_when_it_does_not_size():
    # 64 + 32 nodes at 200G need more QM8700 spine ports than a balanced layer holds: only one plane at 100G
    error = _refusal(TWO_PLANES.model_copy(update={"nodes": 64, "pods": "H100:32:100"}))
    assert [changes for _phrase, changes in error.fixes] == [{"planes": 1, "plane_mode": "per-port"},
                                                             {"pods": None}]
    assert "1/2 of the bandwidth per GPU" in error.suggestion and "200G" not in error.suggestion


def test_per_rail_planes_offer_one_plane_with_the_same_bandwidth():
    design = Design(gpu="H100", nodes=64, pods="B200:8", planes=2, plane_mode="per-rail")
    error = _refusal(design)
    assert error.fixes[0][1] == {"planes": 1, "plane_mode": "per-port"}
    assert "the same bandwidth per GPU" in error.suggestion
    # per-rail: NIC i in plane i mod 2 only, 8 x 400G / 8 = 400 Gb/s per GPU either way
    assert size_pods(design.model_copy(update=error.fixes[0][1])).pods[0].gbps_per_gpu == 400.0


def test_cli_refuses_with_the_way_out(capsys):
    assert cli_main(["plan", "--gpu", "H100", "--nodes", "16", "--nic", "CX7-2P", "--port-speed", "100",
                     "--planes", "2", "--pods", "H100:8:100"]) == 3
    out = capsys.readouterr()
    assert "Set planes to 1 with 200G NIC ports" in out.out + out.err


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabric=st.sampled_from(["infiniband", "ethernet"]), nodes=st.integers(2, 40), extra=st.integers(1, 24))
def test_every_way_out_sizes_and_the_faster_one_keeps_the_bandwidth(fabric, nodes, extra):
    speed = 100
    design = Design(gpu="H100", nodes=nodes, fabric=fabric, nic="CX7-2P", port_speed_gbps=speed, planes=2,
                    pods=f"H100:{extra}:{speed}")
    error = _refusal(design)
    for phrase, changes in error.fixes:
        changed = design.model_copy(update=changes)
        if changed.pods is None:
            plan(changed)
            continue
        fabric = size_pods(changed)
        if changes.get("port_speed_gbps"):  # 8 NICs x 2 planes x speed / 8 GPUs, now in one plane
            assert "the same bandwidth per GPU" in error.suggestion and f"{2 * speed}G" in phrase
            assert all(pod.gbps_per_gpu <= 2 * speed for pod in fabric.pods)
            assert all(pod.gbps_per_gpu == 2 * speed for pod in fabric.pods if pod.oversubscription <= 1)
