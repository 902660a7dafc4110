"""Collective libraries other than NCCL (RCCL, HCCL, Gaudi's HCCL): golden tests against published
measurements held out from the constants, the algorithm sets, and the "not validated" badge.

Held out (CALIBRATION):

* 8x MI300X all-reduce, rccl-tests out-of-place busbw (AMD ROCm blog "Understanding RCCL Bandwidth and xGMI
  Performance on AMD Instinct MI300X", 2025-03-02, RCCL 2.22.3). The constants came from RCCL's own tuning
  tables (ROCm/rccl src/graph/tuning.cc) and the xGMI link efficiency from the same blog's TransferBench run
  (slowest link 45.21 of 64 GB/s), not from this curve.
* 8x Gaudi 3 all-reduce at 256 MB (docs.habana.ai "Collectives Performance", hccl_demo); the scale-up
  efficiency came from the same page's all-gather point (CONSISTENCY below).

Known gap (pinned): MI300X at 1 MB, the model is about half the measured busbw. RCCL on MI300X runs small
all-reduces through its MSCCL/one-shot kernels (rome_model_66 sets mscclEnabled=1), which the ring/tree
latencies of tuning.cc do not describe.

Consistency, not held out: 2 nodes of MI350X (ROCm/rocm-systems#9406, 2026-07-28, a newer RCCL with LL128 on
gfx950): it decided that the model keeps NCCL's network step latencies instead of RCCL's tuner NET row (320 us
per ring step, which put this run at a quarter of its rate), so it only bounds the multi-node model loosely
(within 25%; +7% to +21% now). Multi-node RCCL stays "not validated".

Systems: the tests use the catalog's non-NVIDIA systems when they exist (ids MI300X, Gaudi3 with the right
library), else a test-local system built from the H100 entry with ``model_copy(update=...)``, so they run
before and after the accelerators are in the catalog.
"""

from __future__ import annotations

import pytest

from core.catalog import load_catalog
from core.design import Design
from core.errors import DesignError
from core.perf.collectives import collective, sweep, validation_badge
from core.perf.constants import load_constants
from core.plan import plan

MI300X_ALLREDUCE = [  # (bytes, busbw GB/s), ROCm blog, out-of-place
    (16777216, 197.26), (67108864, 273.66), (268435456, 305.62), (1073741824, 314.72),
    (8589934592, 317.96), (17179869184, 318.98)]
GAUDI3_ALLREDUCE_256MB = 512.96
GAUDI3_ALLGATHER_128MB = 509.19


def _local(system_id: str, library: str, bidir: float, port_speed: int = 400):
    """A test-local 8-accelerator system of ``library`` with ``bidir`` GB/s of scale-up per GPU (both
    directions), from the H100 entry; the catalog's own entry when it exists with that library."""
    catalog = load_catalog()
    try:
        existing = catalog.system(system_id)
        if existing.collective_library == library:
            return catalog, existing.id
    except Exception:  # noqa: BLE001 - not in the catalog yet
        pass
    base = catalog.system("H100")
    local = base.model_copy(update=dict(
        id=f"TEST-{system_id}", aliases=(), gpu_name=system_id, architecture="test", vendor="test",
        collective_library=library, nvlink_links_per_gpu=7, nvlink_gbytes_per_gpu_bidir=bidir,
        nvswitch_chips_per_domain=0, nvswitch_generation=0, default_fabric="ethernet", default_nic="POLLARA-400",
        default_port_speed_gbps=port_speed, node_ports_per_transceiver=1))
    return catalog.model_copy(update={"systems": catalog.systems + (local,)}), local.id


@pytest.fixture(scope="module")
def mi300x():
    return _local("MI300X", "rccl", 896.0)  # 7 xGMI links x 64 GB/s per direction (AMD)


@pytest.fixture(scope="module")
def gaudi3():
    return _local("Gaudi3", "hccl-gaudi", 1050.0)  # 21 x 200 GbE = 525 GB/s per direction


@pytest.fixture(scope="module")
def ascend():
    return _local("Ascend-910B", "hccl", 392.0, port_speed=200)


def _busbw(catalog, system, op, size, gpus=8):
    p = plan(Design(gpu=system, gpus=gpus), catalog)
    s = sweep(p, op, [size])
    t, algorithm, protocol = s.best()
    return float(s.busbw(t)[0]), str(algorithm[0]), s


@pytest.mark.parametrize("size,measured", MI300X_ALLREDUCE)
def test_rccl_mi300x_allreduce_within_15_percent(mi300x, size, measured):
    catalog, system = mi300x
    predicted, algorithm, s = _busbw(catalog, system, "all-reduce", size)
    assert s.library == "rccl" and s.validated
    assert abs(predicted / measured - 1) <= 0.15, (size, predicted, measured, algorithm)


def test_rccl_small_message_gap_stays_bounded(mi300x):
    catalog, system = mi300x
    predicted, _a, _s = _busbw(catalog, system, "all-reduce", 1048576)
    assert 0.35 <= predicted / 66.93 <= 0.75  # MSCCL path not modelled: the model is about half


MI350X_2NODE_ALLREDUCE = [(33554432, 156.35), (67108864, 190.33), (134217728, 249.40)]  # busbw GB/s, "After"


@pytest.mark.parametrize("size,measured", MI350X_2NODE_ALLREDUCE)
def test_rccl_two_nodes_consistency(size, measured):
    """2 x 8 MI350X over 8 x 400G per node (the 400G NIC of AMD's racks): loosely bounded, see the docstring."""
    catalog = load_catalog()
    system = next((s.id for s in catalog.systems if s.collective_library == "rccl" and "355" in s.id), None)
    if system is None:
        catalog, system = _local("MI355X", "rccl", 1075.2)  # 7 links x 76.8 GB/s per direction
    p = plan(Design(gpu=system, gpus=16, fabric="ethernet", nic="POLLARA-400", port_speed_gbps=400), catalog)
    s = sweep(p, "all-reduce", [size])
    t, _a, _p = s.best()
    assert not s.validated
    assert abs(float(s.busbw(t)[0]) / measured - 1) <= 0.25, (size, float(s.busbw(t)[0]), measured)


def test_gaudi3_allreduce_held_out_within_15_percent(gaudi3):
    catalog, system = gaudi3
    predicted, algorithm, s = _busbw(catalog, system, "all-reduce", 268435456)
    assert algorithm == "mesh" and s.validated
    assert abs(predicted / GAUDI3_ALLREDUCE_256MB - 1) <= 0.15, predicted


def test_gaudi3_allgather_consistency(gaudi3):
    """The point the scale-up efficiency was set from (a consistency check, not evidence)."""
    catalog, system = gaudi3
    predicted, _a, _s = _busbw(catalog, system, "all-gather", 134217728)
    assert abs(predicted / GAUDI3_ALLGATHER_128MB - 1) <= 0.15, predicted


def test_rccl_uses_its_own_set_and_protocols(mi300x):
    catalog, system = mi300x
    p = plan(Design(gpu=system, gpus=16), catalog)
    s = sweep(p, "all-reduce", [2**20, 2**30])
    assert set(s.curves) <= {"ring", "tree"}
    assert {str(x) for c in s.curves.values() for x in c.protocol} <= {"LL", "Simple"}  # LL128 off on MI300X
    assert not s.validated  # multi-node RCCL: no published curve
    with pytest.raises(DesignError):
        collective(p, "all-reduce", "1G", algorithm="nvls")


def test_hccl_set_and_badge(ascend):
    catalog, system = ascend
    one = sweep(plan(Design(gpu=system, gpus=8), catalog), "all-reduce", [2**30])
    assert set(one.curves) == {"mesh"} and not one.validated
    many = sweep(plan(Design(gpu=system, gpus=48), catalog), "all-reduce", [2**20, 2**30])
    assert set(many.curves) == {"hccl-ring", "rhd", "nhr"}
    badge = validation_badge([one, many])
    assert badge and "HCCL" in badge
    h100 = sweep(plan(Design(gpu="H100", gpus=8)), "all-reduce", [2**30])
    assert validation_badge(h100) is None


def test_rhd_pays_for_a_non_power_of_two(ascend):
    """H-D_R on 6 servers moves an extra part; NHR does not: at large sizes RHD is slower on 6, not on 8."""
    catalog, system = ascend
    six = sweep(plan(Design(gpu=system, gpus=48), catalog), "all-reduce", [2**32])
    eight = sweep(plan(Design(gpu=system, gpus=64), catalog), "all-reduce", [2**32])
    assert six.curves["rhd"].time_us[0] > six.curves["nhr"].time_us[0] * 1.2
    assert eight.curves["rhd"].time_us[0] == pytest.approx(eight.curves["nhr"].time_us[0], rel=0.05)


def test_mesh_all_reduce_is_two_phases_of_the_aggregate_link(gaudi3):
    """Mesh: each phase moves (d-1)/d of the array per rank over all its links at once, so at large sizes
    all-reduce busbw -> the aggregate scale-up rate and all-reduce takes twice all-gather's transfer."""
    catalog, system = gaudi3
    p = plan(Design(gpu=system, gpus=8), catalog)
    ar = sweep(p, "all-reduce", [2**34]).curves["mesh"].time_us[0]
    ag = sweep(p, "all-gather", [2**34]).curves["mesh"].time_us[0]
    assert ar == pytest.approx(2 * ag, rel=0.01)


def test_every_library_names_known_algorithms():
    from core.perf.algorithms import REGISTRY, library_default

    c = load_constants()
    assert {lib.name for lib in c.library} >= {"nccl", "rccl", "hccl", "hccl-gaudi"}
    for lib in c.library:
        assert set(library_default(lib)) <= set(REGISTRY), lib.name


@pytest.mark.parametrize("system", [s for s in load_catalog().systems if s.collective_library != "nccl"],
                         ids=lambda s: s.id)
def test_catalog_non_nccl_systems_predict_every_collective(system):
    """Every non-NVIDIA system of the catalog (present after the accelerators are merged) runs every collective
    on one domain and across two, and meets its published points from 256 MB on within 15%."""
    c = load_constants()
    c.library_entry(system.collective_library)  # a library the constants know
    for gpus in (system.nvlink_domain_gpus, 2 * system.nvlink_domain_gpus):
        p = plan(Design(gpu=system.id, gpus=gpus))
        for op in ("all-reduce", "reduce-scatter", "all-gather", "all-to-all"):
            result = collective(p, op, "256M")
            assert result["collective_library"] == system.collective_library and result["busbw_gbytes"] > 0
    for ref in c.references(system.id, system.nvlink_domain_gpus, "all-reduce"):
        p = plan(Design(gpu=system.id, gpus=ref.gpus))
        for size, busbw in ref.points:
            if size >= 2**28:
                s = sweep(p, "all-reduce", [size])
                t, _a, _p = s.best()
                assert abs(float(s.busbw(t)[0]) / busbw - 1) <= 0.15, (system.id, size)


def _page(**params):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "pages" / "3_Performance.py"),
                           default_timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def _badges(at) -> list[str]:
    return [str(m.value) for m in at.markdown if "badge[" in str(m.value)]


def test_performance_page_has_no_badge_for_nccl():
    at = _page(n="16")
    assert not at.exception and not any("not validated" in b for b in _badges(at))


@pytest.mark.parametrize("system", [s for s in load_catalog().systems if s.collective_library == "hccl"],
                         ids=lambda s: s.id)
def test_performance_page_badges_an_unvalidated_library(system):
    """Every HCCL system of the catalog (present after the accelerators are merged): the page shows the badge."""
    at = _page(g=system.id, ng=str(2 * system.nvlink_domain_gpus))
    assert not at.exception
    assert any("not validated" in b for b in _badges(at)), _badges(at)



def _cli_text(*argv: str) -> str:
    from core.cli import build_parser
    from core.cli.collective import run

    return run(build_parser().parse_args(["collective", "--op", "all-reduce", "--size", "1G", *argv]))


def test_cli_text_names_nccl_for_nvidia():
    text = _cli_text("--gpu", "H100", "--gpus", "16")
    assert "NCCL" in text and "not validated" not in text


@pytest.mark.parametrize("system", [s for s in load_catalog().systems if s.collective_library == "hccl"],
                         ids=lambda s: s.id)
def test_cli_text_names_the_library_and_says_not_validated(system):
    text = _cli_text("--gpu", system.id, "--gpus", str(system.nvlink_domain_gpus))
    assert "HCCL" in text and "not validated" in text
