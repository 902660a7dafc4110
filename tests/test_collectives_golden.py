"""Golden calibration: predicted nccl-tests bus bandwidth vs published measurements, within 15%.

busbw follows NVIDIA/nccl-tests doc/PERFORMANCE.md
(https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md): all-reduce
busbw = algbw x 2(n-1)/n, reduce-scatter (n-1)/n, with algbw = S / t.

"NCCL" below means the sweep's default: the algorithms stock NCCL chooses from without the
SHARP plugin (ring, tree, NVLS / NVLS-tree, PAT; ``core.perf.algorithms.NCCL_DEFAULT``); the
model's extra "hierarchical" and the opt-in "sharp" are excluded, so the comparison is like
for like.

Two kinds of case, kept apart:

* ``CALIBRATION``: held out. No constant was fitted to these measurements, nor to
  another copy of the same measurement at the same size. They test the model.
* ``CONSISTENCY``: the same measurement (or a copy of it: the Azure ND H100 v5 curve
  matches the NVIDIA/dgxc-benchmarking curve to 0.3%) that a constant in
  assets/catalog/collectives.toml was set from: NVLink 3/4 efficiency from the
  maintainer's ~230 GB/s (A100, NVIDIA/nccl-tests#149) and ~370 GB/s (H100, #212); the
  Simple-protocol fill from the 8x H100 reduce-scatter table (NVIDIA/nccl#1047); the NVLS
  fill from the dgxc-benchmarking H100 curve at 64 MB-8 GB (H200 has the same NVLink 4
  and NVSwitch 3, so its 8 GB point is in this group too); the NVLS efficiency of large
  NVLink domains from the full NVL72 rack at 8 GB (coreweave/nccl-tests#43; its 4 GB point is
  the same plateau); the RoCE NIC efficiency from 4 nodes of H100 over RoCE at ~320 GB/s
  (NVIDIA/nccl#1221); and the NVLS-tree extra NVLink transfer, checked against 2 nodes of
  H100 over NDR at 470 GB/s (NVIDIA/nccl-tests#309). They only check that the model still
  reproduces its own inputs; passing them is not evidence of accuracy.

Multi-node and large-NVLink-domain cases added for issue 11 (held out unless listed above):
2 and 4 nodes of H100 over InfiniBand, 2 nodes over RoCE, 2 nodes of B200, 8 GB200 GPUs over
multi-node NVLink, one 8x B200 node, and the NVL72 rack at 512 MB-2 GB (same run as the 8 GB
fit, but they test the size dependence, i.e. the NVLS fill's sqrt(k/8) growth, which was not
fitted to them). RoCE at 4 nodes has no held-out source: only the point the RoCE efficiency
came from. GB200 racks joined over InfiniBand (20 NVL72 racks, coreweave/nccl-tests#48) are
a known gap, pinned below.

Known gaps (outside 15%, pinned by ``test_known_gaps_stay_bounded`` so they cannot grow
unnoticed): single-node all-reduce at small and medium sizes. The model now applies NCCL's
LL cap (tuning.cc llMaxBws: 87.7 GB/s Ampere, 141 Hopper, 282 Blackwell), which shrank the
gap (A100 1 MB +64% -> +41%, H200 1 MB +39% -> +24%, GB200 4 GPUs 1 MB +32% -> +24%), but
the measured LL/LL128 rates stay below NCCL's own tuning model at 1-64 MB, which the model
follows: A100 16 MB +50%, 64 MB +18%; H100 64 KB +24%; GB200 (4 GPUs) 16 MB +16%. Across 20
NVL72 racks over InfiniBand the measured curve has a ~5 ms fixed cost (busbw 151 GB/s at
512 MB rising to 346 at 4 GB, coreweave/nccl-tests#48) the model does not have: +134% at
4 GB, +223% at 1 GB. The measured curve is that of a ring (asymptote ~440 GB/s busbw, a
~4.5 ms fixed cost = 2 x 1,439 ring steps): NVLS-tree beyond 2 nodes was slow on Blackwell
before NCCL 2.30.3 (NVIDIA/nccl#2035, "a known issue", fixed in v2.30.3), and the model
predicts NCCL 2.30's NVLS-tree; its ring alone is +20% (1 GB) to +28% (4 GB) there. H100 NVLS at 64 MB is -13% (inside the tolerance).
"""

import pytest

from core.perf.collectives import sweep
from core.design import Design
from core.plan import plan

pytestmark = pytest.mark.golden

NCCL = None  # the sweep's default: stock NCCL (core.perf.algorithms.NCCL_DEFAULT)
TOLERANCE = 0.15
KiB, MiB, GiB = 2**10, 2**20, 2**30

AZURE_A100 = ("Azure/AI-benchmarking-guide Azure_Results/ND_A100_v4_results.md (commit 3bb66cac): "
              "8x A100-SXM4-80GB, NCCL 2.18.5, all_reduce_perf in-place busbw")
AZURE_H100 = ("Azure/AI-benchmarking-guide 'Azure Results/ND_H100_v5_results.md' (commit f350e7e6): "
              "8x H100 80GB HBM3, NCCL 2.18.5, all_reduce_perf busbw (NVLS)")
AZURE_H200 = ("Azure/AI-benchmarking-guide Azure_Results/ND_H200_v5_results.md (commit 7f20e5fa): "
              "8x H200, NCCL 2.20.5, busbw (NVLS)")
AZURE_GB200 = ("Azure/AI-benchmarking-guide Azure_Results/ND_GB200_v6_results.md (commit 2a370be6): "
               "4x GB200 in one host, NCCL 2.25.1, busbw (Ring)")
DGXC_NCCL = ("NVIDIA/dgxc-benchmarking nccl/README.md (commit 46e42015): DGX H100 8 ranks, all_reduce_perf "
             "out-of-place")

COREWEAVE_NVL72 = ("coreweave/nccl-tests#43 (NavarrePratt, 2025-02-20): full GB200 NVL72 rack, 72 ranks over "
                   "multi-node NVLink, all_reduce_perf out-of-place busbw")
CONSISTENCY_IDS = {"a100-ring-8G", "a100-ring-4G-user", "h100-nvls-64M", "h100-nvls-256M", "h100-nvls-1G",
                   "h100-nvls-8G", "h100-ring-4G", "h100-nvls-4G", "h100-ring-rs-8G", "h200-nvls-8G",
                   "nvl72-rack-8G", "nvl72-rack-4G", "h100-roce-4nodes", "h100-ndr-2nodes-309"}
ALL_CASES = [
    # id, design, gpus, op, bytes, algorithms, measured busbw [GB/s], source
    ("a100-ring-256M", Design(gpu="A100", nodes=1), 8, "all-reduce", 256 * MiB, NCCL, 213.87, AZURE_A100),
    ("a100-ring-1G", Design(gpu="A100", nodes=1), 8, "all-reduce", 1 * GiB, NCCL, 228.10, AZURE_A100),
    ("a100-ring-8G", Design(gpu="A100", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 231.58, AZURE_A100),
    ("a100-ring-4G-user", Design(gpu="A100", nodes=1), 8, "all-reduce", 4 * GiB, NCCL, 232.54,
     "NVIDIA/nccl-tests#175 (2023-10-29): single node 8x A100 all_reduce_perf -b 8 -e 4G, 232.54 GB/s"),
    ("h100-nvls-8M", Design(gpu="H100", nodes=1), 8, "all-reduce", 8 * MiB, NCCL, 172.13, AZURE_H100),
    ("h100-nvls-16M", Design(gpu="H100", nodes=1), 8, "all-reduce", 16 * MiB, NCCL, 234.45, AZURE_H100),
    ("h100-nvls-64M", Design(gpu="H100", nodes=1), 8, "all-reduce", 64 * MiB, NCCL, 361.78, AZURE_H100),
    ("h100-nvls-256M", Design(gpu="H100", nodes=1), 8, "all-reduce", 256 * MiB, NCCL, 423.38, AZURE_H100),
    ("h100-nvls-1G", Design(gpu="H100", nodes=1), 8, "all-reduce", 1 * GiB, NCCL, 466.35, AZURE_H100),
    ("h100-nvls-8G", Design(gpu="H100", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 478.87, AZURE_H100),
    ("h100-1M-dgxc", Design(gpu="H100", nodes=1), 8, "all-reduce", 1 * MiB, NCCL, 67.04, DGXC_NCCL),
    ("h100-ring-4G", Design(gpu="H100", nodes=1), 8, "all-reduce", 4 * GiB, ("ring",), 367.5,
     "NVIDIA/nccl#1455 (2024-09-19): 8x H100 NCCL_ALGO=RING 'busbw is about 365-370 GBps' at 2G-4G"),
    ("h100-nvls-4G", Design(gpu="H100", nodes=1), 8, "all-reduce", 4 * GiB, ("nvls",), 480.0,
     "NVIDIA/nccl#1455 (2024-09-19): 8x H100 NCCL_ALGO=NVLS busbw rises to 480 GBps at 8 GPUs"),
    ("h100-ring-rs-8G", Design(gpu="H100", nodes=1), 8, "reduce-scatter", 8 * GiB, ("ring",), 362.16,
     "NVIDIA/nccl#1047 (2023-10-31): 8x H100 reduce_scatter_perf ring, 8G out-of-place busbw 362.16"),
    ("h200-nvls-8G", Design(gpu="H200", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 479.98, AZURE_H200),
    ("h800-8G", Design(gpu="H800", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 215.0,
     "NVIDIA/nccl#1374 (2024-07-24): 8x H800 node 'reported allreduce busBW is 215 GB/s'"),
    ("hdr-2nodes-4nic", Design(gpu="A100", nodes=2, nics_per_node=4), 16, "all-reduce", 1 * GiB, NCCL, 91.0,
     "NVIDIA/nccl-tests#100 (2022-01-17): 2x HGX A100 with 4x ConnectX-6 HDR 200 Gb/s, 'can reach 91GB/s in busbw'"),
    ("hdr-2nodes-4nic-b", Design(gpu="A100", nodes=2, nics_per_node=4), 16, "all-reduce", 4 * GiB, NCCL, 86.0,
     "NVIDIA/nccl-tests#175 (2023-10-29): 2x (8x A100, 4x IB 200Gb) 'all-reduce between two nodes only 86GB/s'"),
    ("hdr-3nodes-4nic", Design(gpu="A100", nodes=3, nics_per_node=4), 24, "all-reduce", 128 * MiB, NCCL, 96.0,
     "NVIDIA/nccl-tests#119 (2022-11-17): 3x (8x A100, 4x HDR) 'peak performance reaches about 96GB/s' (8 B-128M)"),
    ("ndr-248nodes-h200", Design(gpu="H200", nodes=248), 1984, "all-reduce", 512 * MiB, NCCL, 350.0,
     "NVIDIA/nccl-tests#283 (2025-01-18): 248 nodes x 8 H200, 8 NICs each (NDR 400G CX-7 per the catalog default), "
     "512M all-reduce 'typically measuring around 350G'"),
    # ---- issue 11: small multi-node jobs (NVLS-tree / tree by node count) -------------------------
    ("h100-ndr-2nodes-coreweave", Design(gpu="H100", nodes=2), 16, "all-reduce", 8 * GiB, NCCL, 440.58,
     "coreweave/nccl-tests#92 (wimarkuske, 2026-05-26): 'H100 8-GPU x 2-node base MPIJob ... 440.58 GB/s busbw "
     "@ 8G allreduce' (CoreWeave H100: 8x 400G InfiniBand per node)"),
    ("b200-ndr-2nodes-coreweave", Design(gpu="B200", nodes=2), 16, "all-reduce", 8 * GiB, NCCL, 690.07,
     "coreweave/nccl-tests#92 (wimarkuske, 2026-05-26): 'B200 8-GPU x 2-node base MPIJob ... 690.07 GB/s busbw "
     "@ 8G allreduce'"),
    ("h100-roce-2nodes", Design(gpu="H100", nodes=2, fabric="ethernet"), 16, "all-reduce", 8 * GiB, NCCL, 430.0,
     "NVIDIA/nccl#1221 (qdbkppkbdq, 2024-03-13): 8x H100 + 8x 400Gb RoCE per node, NCCL 2.19.3, -b 4G -e 8G: on "
     "2 nodes NCCL_NVLS_ENABLE=1 'the bus BW will upgraded from 330GB to 430GB'"),
    ("h100-ndr-4nodes", Design(gpu="H100", nodes=4), 32, "all-reduce", 8 * GiB, NCCL, 365.84,
     "NVIDIA/nccl-tests#309 (qoofyk, 2025-05-20): Dell XE9680 8x H100 + 8x CX-7 IB 400Gbps, NCCL 2.26.2: '4 nodes "
     "on 32 GPU-NIC pairs ... max busbw can get 365.84 GB/s' (size not stated; evaluated at 8 GB)"),
    ("h100-ndr-2nodes-309", Design(gpu="H100", nodes=2), 16, "all-reduce", 8 * GiB, NCCL, 470.0,
     "NVIDIA/nccl-tests#309 (qoofyk, 2025-05-20): same cluster, 'each 2 nodes with 16 pairs can still get 470 GB/s' "
     "(size not stated; evaluated at 8 GB)"),
    ("h100-roce-4nodes", Design(gpu="H100", nodes=4, fabric="ethernet"), 32, "all-reduce", 8 * GiB, NCCL, 320.0,
     "NVIDIA/nccl#1221 (2024-03-13): 4 nodes of 8x H100 + 8x 400Gb RoCE 'same busbw 320GB' with or without NVLS"),
    # ---- issue 11: large NVLink domains (NVLS on NVLink 5) -----------------------------------------
    ("gb200-mnnvl-8gpus", Design(gpu="GB200-NVL72", gpus=72), 8, "all-reduce", 8 * GiB, NCCL, 811.0,
     "lixueduan.com 'GB200 MNNVL 实测带宽提升 10 倍' (posts/ai/13-gb200-mnnvl-nccl-test): 2 GB200 compute trays "
     "(8 GPUs) of one NVL72 over MNNVL, all_reduce_perf '实测带宽 811GB/s' (peak; evaluated at 8 GB)"),
    ("b200-node-8G", Design(gpu="B200", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 830.0,
     "NVIDIA/nccl#1807 (pzcyyj, 2025-08-13): 8x B200 in one machine, NCCL 2.27.1, all_reduce_perf 'Ours is 830+' "
     "(size not stated; evaluated at 8 GB)"),
    ("nvl72-rack-512M", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 512 * MiB, NCCL, 586.06,
     COREWEAVE_NVL72),
    ("nvl72-rack-1G", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 1 * GiB, NCCL, 681.17, COREWEAVE_NVL72),
    ("nvl72-rack-2G", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 2 * GiB, NCCL, 757.78, COREWEAVE_NVL72),
    ("nvl72-rack-4G", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 4 * GiB, NCCL, 839.16, COREWEAVE_NVL72),
    ("nvl72-rack-8G", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 8 * GiB, NCCL, 834.57, COREWEAVE_NVL72),
]
CALIBRATION = [c for c in ALL_CASES if c[0] not in CONSISTENCY_IDS]
CONSISTENCY = [c for c in ALL_CASES if c[0] in CONSISTENCY_IDS]
CASES = ALL_CASES  # every published point, for scripts that report errors


def _error(design, gpus, op, nbytes, algorithms, measured) -> tuple[float, float]:
    result = sweep(plan(design), op, [nbytes], gpus=gpus, algorithms=algorithms)
    time_us, _, _ = result.best()
    predicted = float(result.busbw(time_us)[0])
    return predicted, predicted / measured - 1


@pytest.mark.parametrize("case_id,design,gpus,op,nbytes,algorithms,measured,source", CALIBRATION,
                         ids=[c[0] for c in CALIBRATION])
def test_busbw_matches_published(case_id, design, gpus, op, nbytes, algorithms, measured, source):
    """Held-out published points (no constant was fitted to them): within 15%."""
    predicted, error = _error(design, gpus, op, nbytes, algorithms, measured)
    assert abs(error) <= TOLERANCE, f"{case_id}: predicted {predicted:.1f} vs {measured} GB/s ({error:+.1%}); {source}"


@pytest.mark.parametrize("case_id,design,gpus,op,nbytes,algorithms,measured,source", CONSISTENCY,
                         ids=[c[0] for c in CONSISTENCY])
def test_busbw_reproduces_the_points_constants_came_from(case_id, design, gpus, op, nbytes, algorithms, measured,
                                                         source):
    """Consistency check, not calibration: these measurements set a constant (see the module docstring).

    A failure means a constant or formula changed so the model no longer reproduces its own inputs.
    """
    predicted, error = _error(design, gpus, op, nbytes, algorithms, measured)
    assert abs(error) <= TOLERANCE, f"{case_id}: predicted {predicted:.1f} vs {measured} GB/s ({error:+.1%}); {source}"


COREWEAVE_20_RACKS = ("coreweave/nccl-tests#48 (NavarrePratt, 2025-04-21): 20 GB200 NVL72 racks (1,440 ranks), "
                      "racks joined over InfiniBand, all_reduce_perf out-of-place busbw")
KNOWN_GAPS = [
    # id, design, gpus, bytes, measured all-reduce busbw, error bound (today's error rounded up), source
    ("a100-1M", Design(gpu="A100", nodes=1), 8, 1 * MiB, 36.22, 0.45, AZURE_A100),
    ("a100-16M", Design(gpu="A100", nodes=1), 8, 16 * MiB, 109.22, 0.55, AZURE_A100),
    ("a100-64M", Design(gpu="A100", nodes=1), 8, 64 * MiB, 166.63, 0.20, AZURE_A100),
    ("h200-1M", Design(gpu="H200", nodes=1), 8, 1 * MiB, 52.96, 0.27, AZURE_H200),
    ("h100-64K", Design(gpu="H100", nodes=1), 8, 64 * KiB, 5.87, 0.27, DGXC_NCCL),
    ("gb200-4gpu-1M", Design(gpu="GB200-NVL72", nodes=1), 4, 1 * MiB, 80.48, 0.27, AZURE_GB200),
    ("gb200-4gpu-16M", Design(gpu="GB200-NVL72", nodes=1), 4, 16 * MiB, 331.09, 0.18, AZURE_GB200),
    ("gb200-20racks-1G", Design(gpu="GB200-NVL72", gpus=1440), 1440, 1 * GiB, 218.85, 2.40, COREWEAVE_20_RACKS),
    ("gb200-20racks-4G", Design(gpu="GB200-NVL72", gpus=1440), 1440, 4 * GiB, 346.38, 1.45, COREWEAVE_20_RACKS),
]


@pytest.mark.parametrize("case_id,design,gpus,nbytes,measured,bound,source", KNOWN_GAPS,
                         ids=[g[0] for g in KNOWN_GAPS])
def test_known_gaps_stay_bounded(case_id, design, gpus, nbytes, measured, bound, source):
    """Points outside 15% today (per-channel protocol caps not modelled): the gap must not grow."""
    predicted, error = _error(design, gpus, "all-reduce", nbytes, NCCL, measured)
    assert abs(error) <= bound, f"{case_id}: predicted {predicted:.1f} vs {measured} GB/s ({error:+.1%}); {source}"


def test_small_message_latency_h100():
    """8-byte all-reduce on one DGX H100 took 13.67 us (NVIDIA/dgxc-benchmarking nccl/README.md, commit 46e42015)."""
    result = sweep(plan(Design(gpu="H100", nodes=1)), "all-reduce", [8], gpus=8, algorithms=NCCL)
    time_us, algorithm, _ = result.best()
    assert abs(float(time_us[0]) / 13.67 - 1) <= TOLERANCE
    assert algorithm[0] == "ring"  # NCCL uses ring LL for tiny messages (NVIDIA/nccl-tests#309)


def test_nvls_is_chosen_for_large_messages_on_hopper():
    """NVIDIA/nccl-tests#309: on one H100 node '2MB~16GB uses Algo NVLS proto SIMPLE'."""
    result = sweep(plan(Design(gpu="H100", nodes=1)), "all-reduce", [256 * MiB, 8 * GiB], gpus=8, algorithms=NCCL)
    _, algorithm, protocol = result.best()
    assert list(algorithm) == ["nvls", "nvls"] and list(protocol) == ["Simple", "Simple"]
