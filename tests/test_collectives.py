"""Unit and property tests of the collective model (core/collectives.py)."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.collectives import (
    IN_NETWORK, OPS, bottleneck_line_gbytes, bus_factor, collective, links, load_constants,
    parse_size, place, size_sweep, sweep,
)
from core.design import Design
from core.errors import DesignError, InputError
from core.plan import plan

H100_1K = plan(Design(gpu="H100", gpus=1024))
DESIGNS = [
    Design(gpu="H100", nodes=1), Design(gpu="A100", nodes=4), Design(gpu="H100", gpus=1024),
    Design(gpu="H100", gpus=512, fabric="ethernet", oversubscription=2.0),
    Design(gpu="GB200-NVL72", gpus=288), Design(gpu="V100", nodes=8), Design(gpu="H800", nodes=16),
    Design(gpu="B200", gpus=256, topology="top-of-rack", oversubscription=3.0),
]
PLANS = [plan(d) for d in DESIGNS]


def test_bus_factors_follow_nccl_tests():
    assert bus_factor("all-reduce", 8) == pytest.approx(1.75)
    assert bus_factor("reduce-scatter", 8) == pytest.approx(0.875)
    assert bus_factor("all-gather", 4) == pytest.approx(0.75)
    assert bus_factor("all-to-all", 2) == pytest.approx(0.5)
    assert bus_factor("broadcast", 64) == 1.0


@pytest.mark.parametrize("text,expected", [("8", 8), ("1GiB", 2**30), ("1GB", 10**9), ("512MiB", 512 * 2**20),
                                           ("64K", 65536), ("1.5 MB", 1_500_000), ("4KiB", 4096), ("2kb", 2000)])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "1XB", "-5", "0", "GiB", "1e999GB"])
def test_parse_size_rejects(text):
    with pytest.raises(InputError):
        parse_size(text)


def test_algbw_and_busbw_definitions():
    result = collective(H100_1K, "all-reduce", "1GiB")
    assert result["algbw_gbytes"] == pytest.approx(2**30 / (result["time_us"] * 1e-6) / 1e9, rel=1e-3)
    assert result["busbw_gbytes"] == pytest.approx(result["algbw_gbytes"] * 2 * 1023 / 1024, rel=1e-3)
    assert set(result) >= {"op", "algorithm", "bytes", "time_us", "algbw_gbytes", "busbw_gbytes"}


def test_fastest_is_minimum_of_algorithms():
    s = sweep(H100_1K, "all-reduce", size_sweep())
    t, a, _ = s.best()
    stack = np.vstack([c.time_us for c in s.curves.values()])
    assert np.allclose(t, stack.min(axis=0))
    assert set(a) <= set(s.curves)


def test_hardware_gates_algorithms():
    a100 = sweep(plan(Design(gpu="A100", nodes=4)), "all-reduce", [2**30])
    assert "nvls" not in a100.curves  # NVSwitch gen 2: no multimem reductions
    assert "sharp" in a100.curves  # QM8700 has SHARPv2
    roce = sweep(plan(Design(gpu="H100", nodes=4, fabric="ethernet")), "all-reduce", [2**30])
    assert "sharp" not in roce.curves and "nvls" in roce.curves
    single = sweep(plan(Design(gpu="H100", nodes=1)), "all-reduce", [2**30])
    assert "sharp" not in single.curves and "hierarchical" not in single.curves
    assert set(sweep(H100_1K, "all-to-all", [2**20]).curves) == {"direct"}
    assert set(sweep(H100_1K, "broadcast", [2**20]).curves) == {"ring"}


def test_placement_spans_fabric_levels():
    p = H100_1K  # 128 DGX H100 -> 4 scalable units of 32 nodes
    assert place(p, 8).level == "nvlink"
    assert place(p, 256).level == "leaf" and place(p, 256).hops == 1
    assert place(p, 1024).level == "spine" and place(p, 1024).groups == 4
    dp = place(p, 64, stride=8)
    assert dp.ranks_per_domain == 1 and dp.domains == 64 and dp.nodes == 64
    with pytest.raises(DesignError):
        place(p, 2048)
    with pytest.raises(InputError):
        place(p, 1)


def test_oversubscription_slows_all_to_all_but_not_ring():
    # 512 DGX H100 on SN5600 at 400G: several scalable units, most all-to-all traffic leaves its leaf
    base = plan(Design(gpu="H100", gpus=4096, fabric="ethernet"))
    over = plan(Design(gpu="H100", gpus=4096, fabric="ethernet", oversubscription=2.0))
    a2a = [sweep(x, "all-to-all", [2**30]).best()[0][0] for x in (base, over)]
    ring = [sweep(x, "all-reduce", [2**30], algorithms=("ring",)).best()[0][0] for x in (base, over)]
    assert a2a[1] > 1.4 * a2a[0]
    assert ring[1] == pytest.approx(ring[0], rel=0.01)


def test_infiniband_beats_roce_at_equal_topology():
    ib = collective(plan(Design(gpu="H100", gpus=256)), "all-reduce", "1GiB", algorithm="ring")
    roce = collective(plan(Design(gpu="H100", gpus=256, fabric="ethernet")), "all-reduce", "1GiB", algorithm="ring")
    assert roce["time_us"] > ib["time_us"]


def test_constants_carry_sources():
    c = load_constants()
    for entry in (*c.protocol, *c.nvlink, *c.nvls, *c.fabric, *c.sharp, *c.reference):
        assert entry.source.strip()
    assert c.sharp_version("qm9700") == "SHARPv3" and c.sharp_version("SN5600") is None


def test_unknown_op_and_algorithm():
    with pytest.raises(InputError):
        sweep(H100_1K, "all-sum", [8])
    with pytest.raises(InputError):
        collective(H100_1K, "all-reduce", "1GiB", algorithm="magic")
    with pytest.raises(InputError):
        collective(plan(Design(gpu="A100", nodes=1)), "all-reduce", "1GiB", algorithm="nvls")


# ---- properties --------------------------------------------------------------------------------
plans = st.sampled_from(PLANS)
ops = st.sampled_from(OPS)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=plans, op=ops, frac=st.floats(0.0, 1.0), a=st.floats(0, 34), b=st.floats(0, 34))
def test_time_grows_with_message_size(p, op, frac, a, b):
    n = max(2, int(2 + frac * (p.resolved.gpus - 2)))
    small, large = sorted((2.0**a, 2.0**b))
    s = sweep(p, op, [small, large], gpus=n)
    for curve in s.curves.values():
        assert curve.time_us[1] >= curve.time_us[0] - 1e-9
    t, _, _ = s.best()
    assert t[1] >= t[0] - 1e-9


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=plans, op=ops, frac=st.floats(0.0, 1.0), e=st.floats(3, 34))
def test_busbw_below_bottleneck_line_rate(p, op, frac, e):
    """Point-to-point algorithms never beat the bottleneck link's line rate.

    Exceptions, by construction (see core/collectives.py docstring): nvls and sharp reduce in the
    switch; hierarchical sends only 2(m-1)/m of the array between m domains (bound line x m/(m-1));
    direct all-to-all moves part of the array over NVLink (bound NIC line x (n-1)/(n-d)).
    """
    n = max(2, int(2 + frac * (p.resolved.gpus - 2)))
    s = sweep(p, op, [2.0**e], gpus=n)
    pl = s.placement
    line = bottleneck_line_gbytes(p, pl)
    lk = links(p)
    for name, curve in s.curves.items():
        busbw = float(s.busbw(curve.time_us)[0])
        if name in IN_NETWORK:
            continue
        if name == "hierarchical":
            bound = min(lk.nvlink_line, pl.ranks_per_domain * lk.nic_per_gpu_line) * pl.domains / (pl.domains - 1)
        elif name == "direct" and pl.domains > 1:
            d = pl.ranks_per_domain
            bound = lk.nic_per_gpu_line * (n - 1) / (n - d) * (1 + 1e-9)
        elif name == "direct":
            bound = lk.nvlink_line
        else:
            bound = line
        assert busbw <= bound * (1 + 1e-9), f"{name} {op} n={n}: {busbw} > {bound}"


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=plans, f1=st.floats(0.0, 1.0), f2=st.floats(0.0, 1.0), e=st.floats(10, 34))
def test_more_gpus_never_beat_the_bandwidth_bound(p, f1, f2, e):
    """Ideal ring all-reduce: t >= 2(n-1)/n * S / B_line, and adding GPUs never makes it faster."""
    total = p.resolved.gpus
    n1, n2 = sorted((max(2, int(2 + f1 * (total - 2))), max(2, int(2 + f2 * (total - 2)))))
    size = 2.0**e
    times = []
    for n in (n1, n2):
        s = sweep(p, "all-reduce", [size], gpus=n, algorithms=("ring",))
        t = float(s.curves["ring"].time_us[0])
        bound_us = 2 * (n - 1) / n * size / (bottleneck_line_gbytes(p, s.placement) * 1e3)
        assert t >= bound_us
        times.append(t)
    assert times[1] >= times[0] * (1 - 1e-9)


def test_sweep_is_vectorised_and_fast():
    import time

    sizes = size_sweep(8, 16 * 2**30, 64)
    sweep(H100_1K, "all-reduce", sizes)
    start = time.perf_counter()
    for _ in range(10):
        sweep(H100_1K, "all-reduce", sizes)
    assert (time.perf_counter() - start) / 10 < 0.05
    assert math.isclose(sizes[0], 8) and math.isclose(sizes[-1], 16 * 2**30)
