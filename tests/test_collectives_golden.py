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

Every case names the NCCL release its source printed (last field; None = not stated, the model
then follows the current stock release): the model is compared with a model of the NCCL the run
used (``sweep(..., nccl_version=...)``: per-release tuning caps; NVLS-tree on Blackwell across 4+
NVLink domains left out before 2.30.3, NVIDIA/nccl#2035).

Held out (CALIBRATION), multi-node and large NVLink domains: 2 and 4 nodes of H100 over
InfiniBand (CoreWeave #92, nccl-tests#309, and a second 4-node source: Voltage Park / AI @ Georgia
Tech, NCCL 2.24.3), 2 nodes over RoCE (nccl#1221), 2 nodes of B200, 8 GB200 GPUs over multi-node
NVLink, one 8x B200 node, the NVL72 rack at 512 MB-2 GB (same run as the 8 GB fit, but they test
the size dependence, i.e. the NVLS fill's sqrt(k/8) growth, which was not fitted to them), and
GB200 over InfiniBand: three NVL4 and three NVL8 partitions in different racks (NVIDIA/nccl#1801,
NCCL 2.27.3, ring as NCCL chose it and NCCL_ALGO=TREE; they test NCCL's double binary tree by
domain count, 1.5 arrays per domain on 3, and NCCL's tuner rule that picks the ring although
the tree is faster) and two NVL72 racks at 4-16 GB (coreweave/nccl-tests README, NCCL 2.26.2).

RoCE at 4 nodes has no held-out source: the only published 4-node H100 RoCE all-reduce found
in text (NVIDIA/nccl#1221, ~320 GB/s) is the point the RoCE NIC efficiency came from, so it stays a
consistency point. Searched (issues and pages corpora): NVIDIA/nccl-tests#267 (6 H100 nodes, 8x
400G RoCE; results only as screenshots, "All numbers look good"), NVIDIA/nccl#2409 (2x8 H100
RoCE at 216-231 GB/s, reported as an unexplained NCCL-side limit, so not a reference),
NVIDIA/nccl#1403 (4 NICs per node with ECE on, unstable), the OCI blog of 2022-11-14 (A100, a
bar chart only).

Known gaps (outside 15%, pinned by ``test_known_gaps_stay_bounded`` so they cannot grow
unnoticed): single-node all-reduce at small and medium sizes. The model applies NCCL's LL cap
(tuning.cc llMaxBws: 87.7 GB/s Ampere, 141 Hopper, 282 Blackwell), but the measured LL/LL128
rates stay below NCCL's own tuning model at 1-64 MB, which the model follows: A100 1 MB +41%,
16 MB +50%, 64 MB +18%; H200 1 MB +24%; H100 64 KB +24%; GB200 (4 GPUs) 1 MB +24%, 16 MB +16%.
Two NVL72 racks at 512 MB-2 GB (+31%, +23%, +15%): the measured NVLS-tree reaches its plateau
later than the model's fill (about 0.7-1.4 ms of fixed cost against the model's 0.4 ms); no
second source to set a multi-domain NVLS fill from. Twenty NVL72 racks (coreweave/nccl-tests#48,
NCCL 2.26.2; its script, commit 5ceab10, sets NCCL_NVLS_ENABLE=0 and NCCL_NET_GDR_C2C=1): the
measured curve is a ring (``test_20_racks_fixed_cost_is_nccls_ring_latency``: its 4.4-5.4 ms
fixed cost is the ring's step latency, 2 x 1,439 steps; a tree would cost under 1 ms). With
NVLS-tree left out for 2.26.2 the model predicts the tree there (+235% at 512 MB, +148% at 1 GB,
+66% at 4 GB, +46% at 16 GB); NCCL chose the ring, and why is not settled. Read at v2.26.2-1
(f44ac759) and ruled out: the tree is not disabled across MNNVL cliques (tuning.cc:408-421
disables only NVLS-tree on one node, CollNet and multi-node NVLS; enqueue.cc:1665-1675 the
same); nNodes is 20 cliques, not 360 hosts (topo.cc:1346-1350 fuses a clique's topology,
init.cc:917-931 counts one node per fused topology; 405 GB/s at 16 GB is also above the 50 GB/s
per GPU of 4 x 400 Gb/s per host, so multi-node NVLink was on); treeCorrectionFactor stops below
512 MB (tuning.cc:538, log2(S/64) < 23). What stays: NCCL's tuner rates both from their own
graph's nChannels x bwInter (tuning.cc:250; init.cc:1010 gives both the same nChannels) with
Simple only (tuning.cc:429: LL128 needs the NIC path <= PXN, GB200's goes through the Grace CPU,
PHB by paths.cc:96-97; LL128 over C2C came in 2.27.3), so it picks the ring at 512 MB only if
the tree graph's bwInter is below about 5-30% of the ring graph's (its 14.3 ms Simple ring
latency, plateau x1.4, against the tree's 0.7 ms). Those bandwidths come from NCCL's topology
search on the fused 72-GPU topology; neither the run's topology nor its NCCL_DEBUG=TUNING table
is published, so nothing in the model was changed. The ring alone is -3% to +8% at 512 MB-1 GB and
+20% to +40% at 2-16 GB (the ring's bandwidth on 72-GPU domains, same search). H100 NVLS at
64 MB is -13% (inside the tolerance).
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
GB200_PARTITIONS = ("NVIDIA/nccl#1801 (mawi2017, 2025-08-06): GB200 NVL72, three NVL partitions on different racks "
                    "('only IB communication between them'), NCCL_NVLS_ENABLE=0, NCCL 2.27.3, all_reduce_perf 16 GiB "
                    "out-of-place busbw;")
COREWEAVE_2_RACKS = ("coreweave/nccl-tests README 'Expected Performance' > GB200 > 2 Racks (commit cb86553; 'The "
                     "following runs used NCCL 2.26.2'): 144 ranks, 2 NVL72 racks joined over InfiniBand, "
                     "all_reduce_perf out-of-place busbw")
CONSISTENCY_IDS = {"a100-ring-8G", "a100-ring-4G-user", "h100-nvls-64M", "h100-nvls-256M", "h100-nvls-1G",
                   "h100-nvls-8G", "h100-ring-4G", "h100-nvls-4G", "h100-ring-rs-8G", "h200-nvls-8G",
                   "nvl72-rack-8G", "nvl72-rack-4G", "h100-roce-4nodes", "h100-ndr-2nodes-309"}
ALL_CASES = [
    # id, design, gpus, op, bytes, algorithms, measured busbw [GB/s], source, NCCL release the run used
    # (None: not stated; the model then follows the current stock release)
    ("a100-ring-256M", Design(gpu="A100", nodes=1), 8, "all-reduce", 256 * MiB, NCCL, 213.87, AZURE_A100, "2.18.5"),
    ("a100-ring-1G", Design(gpu="A100", nodes=1), 8, "all-reduce", 1 * GiB, NCCL, 228.10, AZURE_A100, "2.18.5"),
    ("a100-ring-8G", Design(gpu="A100", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 231.58, AZURE_A100, "2.18.5"),
    ("a100-ring-4G-user", Design(gpu="A100", nodes=1), 8, "all-reduce", 4 * GiB, NCCL, 232.54,
     "NVIDIA/nccl-tests#175 (2023-10-29): single node 8x A100 all_reduce_perf -b 8 -e 4G, 232.54 GB/s", None),
    ("h100-nvls-8M", Design(gpu="H100", nodes=1), 8, "all-reduce", 8 * MiB, NCCL, 172.13, AZURE_H100, "2.18.5"),
    ("h100-nvls-16M", Design(gpu="H100", nodes=1), 8, "all-reduce", 16 * MiB, NCCL, 234.45, AZURE_H100, "2.18.5"),
    ("h100-nvls-64M", Design(gpu="H100", nodes=1), 8, "all-reduce", 64 * MiB, NCCL, 361.78, AZURE_H100, "2.18.5"),
    ("h100-nvls-256M", Design(gpu="H100", nodes=1), 8, "all-reduce", 256 * MiB, NCCL, 423.38, AZURE_H100, "2.18.5"),
    ("h100-nvls-1G", Design(gpu="H100", nodes=1), 8, "all-reduce", 1 * GiB, NCCL, 466.35, AZURE_H100, "2.18.5"),
    ("h100-nvls-8G", Design(gpu="H100", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 478.87, AZURE_H100, "2.18.5"),
    ("h100-1M-dgxc", Design(gpu="H100", nodes=1), 8, "all-reduce", 1 * MiB, NCCL, 67.04, DGXC_NCCL, None),
    ("h100-ring-4G", Design(gpu="H100", nodes=1), 8, "all-reduce", 4 * GiB, ("ring",), 367.5,
     "NVIDIA/nccl#1455 (2024-09-19): 8x H100 NCCL_ALGO=RING 'busbw is about 365-370 GBps' at 2G-4G", None),
    ("h100-nvls-4G", Design(gpu="H100", nodes=1), 8, "all-reduce", 4 * GiB, ("nvls",), 480.0,
     "NVIDIA/nccl#1455 (2024-09-19): 8x H100 NCCL_ALGO=NVLS busbw rises to 480 GBps at 8 GPUs", None),
    ("h100-ring-rs-8G", Design(gpu="H100", nodes=1), 8, "reduce-scatter", 8 * GiB, ("ring",), 362.16,
     "NVIDIA/nccl#1047 (2023-10-31): 8x H100 reduce_scatter_perf ring, 8G out-of-place busbw 362.16", None),
    ("h200-nvls-8G", Design(gpu="H200", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 479.98, AZURE_H200, "2.20.5"),
    ("h800-8G", Design(gpu="H800", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 215.0,
     "NVIDIA/nccl#1374 (2024-07-24): 8x H800 node 'reported allreduce busBW is 215 GB/s'", None),
    ("hdr-2nodes-4nic", Design(gpu="A100", nodes=2, nics_per_node=4), 16, "all-reduce", 1 * GiB, NCCL, 91.0,
     "NVIDIA/nccl-tests#100 (2022-01-17): 2x HGX A100 with 4x ConnectX-6 HDR 200 Gb/s, 'can reach 91GB/s in busbw'", None),
    ("hdr-2nodes-4nic-b", Design(gpu="A100", nodes=2, nics_per_node=4), 16, "all-reduce", 4 * GiB, NCCL, 86.0,
     "NVIDIA/nccl-tests#175 (2023-10-29): 2x (8x A100, 4x IB 200Gb) 'all-reduce between two nodes only 86GB/s'", None),
    ("hdr-3nodes-4nic", Design(gpu="A100", nodes=3, nics_per_node=4), 24, "all-reduce", 128 * MiB, NCCL, 96.0,
     "NVIDIA/nccl-tests#119 (2022-11-17): 3x (8x A100, 4x HDR) 'peak performance reaches about 96GB/s' (8 B-128M)", None),
    ("ndr-248nodes-h200", Design(gpu="H200", nodes=248), 1984, "all-reduce", 512 * MiB, NCCL, 350.0,
     "NVIDIA/nccl-tests#283 (2025-01-18): 248 nodes x 8 H200, 8 NICs each (NDR 400G CX-7 per the catalog default), "
     "512M all-reduce 'typically measuring around 350G'", None),
    # ---- small multi-node jobs (NVLS-tree / tree by node count) -------------------------
    ("h100-ndr-2nodes-coreweave", Design(gpu="H100", nodes=2), 16, "all-reduce", 8 * GiB, NCCL, 440.58,
     "coreweave/nccl-tests#92 (wimarkuske, 2026-05-26): 'H100 8-GPU x 2-node base MPIJob ... 440.58 GB/s busbw "
     "@ 8G allreduce' (CoreWeave H100: 8x 400G InfiniBand per node)", None),
    ("b200-ndr-2nodes-coreweave", Design(gpu="B200", nodes=2), 16, "all-reduce", 8 * GiB, NCCL, 690.07,
     "coreweave/nccl-tests#92 (wimarkuske, 2026-05-26): 'B200 8-GPU x 2-node base MPIJob ... 690.07 GB/s busbw "
     "@ 8G allreduce'", None),
    ("h100-roce-2nodes", Design(gpu="H100", nodes=2, fabric="ethernet"), 16, "all-reduce", 8 * GiB, NCCL, 430.0,
     "NVIDIA/nccl#1221 (qdbkppkbdq, 2024-03-13): 8x H100 + 8x 400Gb RoCE per node, NCCL 2.19.3, -b 4G -e 8G: on "
     "2 nodes NCCL_NVLS_ENABLE=1 'the bus BW will upgraded from 330GB to 430GB'", "2.19.3"),
    ("h100-ndr-4nodes", Design(gpu="H100", nodes=4), 32, "all-reduce", 8 * GiB, NCCL, 365.84,
     "NVIDIA/nccl-tests#309 (qoofyk, 2025-05-20): Dell XE9680 8x H100 + 8x CX-7 IB 400Gbps, NCCL 2.26.2: '4 nodes "
     "on 32 GPU-NIC pairs ... max busbw can get 365.84 GB/s' (size not stated; evaluated at 8 GB)", "2.26.2"),
    ("h100-ndr-2nodes-309", Design(gpu="H100", nodes=2), 16, "all-reduce", 8 * GiB, NCCL, 470.0,
     "NVIDIA/nccl-tests#309 (qoofyk, 2025-05-20): same cluster, 'each 2 nodes with 16 pairs can still get 470 GB/s' "
     "(size not stated; evaluated at 8 GB)", "2.26.2"),
    ("h100-roce-4nodes", Design(gpu="H100", nodes=4, fabric="ethernet"), 32, "all-reduce", 8 * GiB, NCCL, 320.0,
     "NVIDIA/nccl#1221 (2024-03-13): 4 nodes of 8x H100 + 8x 400Gb RoCE 'same busbw 320GB' with or without NVLS", "2.19.3"),
    # ---- large NVLink domains (NVLS on NVLink 5) -----------------------------------------
    ("gb200-mnnvl-8gpus", Design(gpu="GB200-NVL72", gpus=72), 8, "all-reduce", 8 * GiB, NCCL, 811.0,
     "lixueduan.com 'GB200 MNNVL 实测带宽提升 10 倍' (posts/ai/13-gb200-mnnvl-nccl-test): 2 GB200 compute trays "
     "(8 GPUs) of one NVL72 over MNNVL, all_reduce_perf '实测带宽 811GB/s' (peak; evaluated at 8 GB)", None),
    ("b200-node-8G", Design(gpu="B200", nodes=1), 8, "all-reduce", 8 * GiB, NCCL, 830.0,
     "NVIDIA/nccl#1807 (pzcyyj, 2025-08-13): 8x B200 in one machine, NCCL 2.27.1, all_reduce_perf 'Ours is 830+' "
     "(size not stated; evaluated at 8 GB)", "2.27.1"),
    ("nvl72-rack-512M", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 512 * MiB, NCCL, 586.06,
     COREWEAVE_NVL72, "2.26.2"),
    ("nvl72-rack-1G", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 1 * GiB, NCCL, 681.17, COREWEAVE_NVL72, "2.26.2"),
    ("nvl72-rack-2G", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 2 * GiB, NCCL, 757.78, COREWEAVE_NVL72, "2.26.2"),
    ("nvl72-rack-4G", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 4 * GiB, NCCL, 839.16, COREWEAVE_NVL72, "2.26.2"),
    ("nvl72-rack-8G", Design(gpu="GB200-NVL72", gpus=72), 72, "all-reduce", 8 * GiB, NCCL, 834.57, COREWEAVE_NVL72, "2.26.2"),
    # ---- GB200 over InfiniBand: NVL partitions (NCCL's tree by domain count) and 2 NVL72 racks -------
    # 3 partitions in 3 racks, joined only over InfiniBand, NCCL_NVLS_ENABLE=0: "ring, default" is
    # NCCL's choice between ring and tree (the model applies NCCL's tuner rule, _nccl_tree_picks),
    # "tree" is NCCL_ALGO=TREE (the double binary tree on 3 domains: the busiest sends 1.5 S)
    ("gb200-nvl4x3-ring", Design(gpu="GB200-NVL72", gpus=72, nvlink_domain_gpus=4), 12, "all-reduce", 16 * GiB,
     ("ring", "tree"), 196.72, GB200_PARTITIONS + " NVL4, 12 GPUs, 'ring, default'", "2.27.3"),
    ("gb200-nvl4x3-tree", Design(gpu="GB200-NVL72", gpus=72, nvlink_domain_gpus=4), 12, "all-reduce", 16 * GiB,
     ("tree",), 234.43, GB200_PARTITIONS + " NVL4, 12 GPUs, 'tree'", "2.27.3"),
    ("gb200-nvl8x3-ring", Design(gpu="GB200-NVL72", gpus=72, nvlink_domain_gpus=8), 24, "all-reduce", 16 * GiB,
     ("ring", "tree"), 393.66, GB200_PARTITIONS + " NVL8, 24 GPUs, 'ring, default'", "2.27.3"),
    ("gb200-nvl8x3-tree", Design(gpu="GB200-NVL72", gpus=72, nvlink_domain_gpus=8), 24, "all-reduce", 16 * GiB,
     ("tree",), 485.68, GB200_PARTITIONS + " NVL8, 24 GPUs, 'tree'", "2.27.3"),
    ("gb200-2racks-4G", Design(gpu="GB200-NVL72", gpus=144), 144, "all-reduce", 4 * GiB, NCCL, 743.09,
     COREWEAVE_2_RACKS, "2.26.2"),
    ("gb200-2racks-8G", Design(gpu="GB200-NVL72", gpus=144), 144, "all-reduce", 8 * GiB, NCCL, 793.06,
     COREWEAVE_2_RACKS, "2.26.2"),
    ("gb200-2racks-16G", Design(gpu="GB200-NVL72", gpus=144), 144, "all-reduce", 16 * GiB, NCCL, 810.41,
     COREWEAVE_2_RACKS, "2.26.2"),
    # ---- 4 nodes of H100 over InfiniBand, a second source --------------------------------------------
    ("h100-ndr-4nodes-voltagepark", Design(gpu="H100", nodes=4), 32, "all-reduce", 8 * GiB, NCCL, 330.93,
     "aigatech/vpbenchmarking README (mirror of github.com/ZiyanIshani/vpbenchmarking, AI @ Georgia Tech with "
     "Voltage Park, 2026): 4x bare-metal 8x H100 SXM5, 3.2 Tb/s InfiniBand (400 Gb/s per port), NCCL "
     "2.24.3+cuda12.6, multi-node AllReduce bus BW 330.93 GB/s (size not stated; evaluated at 8 GB)", "2.24.3"),
]
CALIBRATION = [c for c in ALL_CASES if c[0] not in CONSISTENCY_IDS]
CONSISTENCY = [c for c in ALL_CASES if c[0] in CONSISTENCY_IDS]
CASES = ALL_CASES  # every published point, for scripts that report errors


def _error(design, gpus, op, nbytes, algorithms, measured, nccl_version=None) -> tuple[float, float]:
    result = sweep(plan(design), op, [nbytes], gpus=gpus, algorithms=algorithms, nccl_version=nccl_version)
    time_us, _, _ = result.best()
    predicted = float(result.busbw(time_us)[0])
    return predicted, predicted / measured - 1


@pytest.mark.parametrize("case_id,design,gpus,op,nbytes,algorithms,measured,source,nccl", CALIBRATION,
                         ids=[c[0] for c in CALIBRATION])
def test_busbw_matches_published(case_id, design, gpus, op, nbytes, algorithms, measured, source, nccl):
    """Held-out published points (no constant was fitted to them): within 15%."""
    predicted, error = _error(design, gpus, op, nbytes, algorithms, measured, nccl)
    assert abs(error) <= TOLERANCE, f"{case_id}: predicted {predicted:.1f} vs {measured} GB/s ({error:+.1%}); {source}"


@pytest.mark.parametrize("case_id,design,gpus,op,nbytes,algorithms,measured,source,nccl", CONSISTENCY,
                         ids=[c[0] for c in CONSISTENCY])
def test_busbw_reproduces_the_points_constants_came_from(case_id, design, gpus, op, nbytes, algorithms, measured,
                                                         source, nccl):
    """Consistency check, not calibration: these measurements set a constant (see the module docstring).

    A failure means a constant or formula changed so the model no longer reproduces its own inputs.
    """
    predicted, error = _error(design, gpus, op, nbytes, algorithms, measured, nccl)
    assert abs(error) <= TOLERANCE, f"{case_id}: predicted {predicted:.1f} vs {measured} GB/s ({error:+.1%}); {source}"


COREWEAVE_20_RACKS = ("coreweave/nccl-tests#48 (NavarrePratt, 2025-04-21): 20 GB200 NVL72 racks (1,440 ranks), "
                      "racks joined over InfiniBand, all_reduce_perf out-of-place busbw")
KNOWN_GAPS = [
    # id, design, gpus, bytes, measured all-reduce busbw, error bound (today's error rounded up), source,
    # NCCL release the run used (None: not stated)
    ("a100-1M", Design(gpu="A100", nodes=1), 8, 1 * MiB, 36.22, 0.45, AZURE_A100, "2.18.5"),
    ("a100-16M", Design(gpu="A100", nodes=1), 8, 16 * MiB, 109.22, 0.55, AZURE_A100, "2.18.5"),
    ("a100-64M", Design(gpu="A100", nodes=1), 8, 64 * MiB, 166.63, 0.20, AZURE_A100, "2.18.5"),
    ("h200-1M", Design(gpu="H200", nodes=1), 8, 1 * MiB, 52.96, 0.27, AZURE_H200, "2.20.5"),
    ("h100-64K", Design(gpu="H100", nodes=1), 8, 64 * KiB, 5.87, 0.27, DGXC_NCCL, None),
    ("gb200-4gpu-1M", Design(gpu="GB200-NVL72", nodes=1), 4, 1 * MiB, 80.48, 0.27, AZURE_GB200, "2.25.1"),
    ("gb200-4gpu-16M", Design(gpu="GB200-NVL72", nodes=1), 4, 16 * MiB, 331.09, 0.18, AZURE_GB200, "2.25.1"),
    ("gb200-2racks-512M", Design(gpu="GB200-NVL72", gpus=144), 144, 512 * MiB, 493.94, 0.35, COREWEAVE_2_RACKS,
     "2.26.2"),
    ("gb200-2racks-1G", Design(gpu="GB200-NVL72", gpus=144), 144, 1 * GiB, 596.10, 0.26, COREWEAVE_2_RACKS, "2.26.2"),
    ("gb200-2racks-2G", Design(gpu="GB200-NVL72", gpus=144), 144, 2 * GiB, 680.30, 0.18, COREWEAVE_2_RACKS, "2.26.2"),
    ("gb200-20racks-512M", Design(gpu="GB200-NVL72", gpus=1440), 1440, 512 * MiB, 150.95, 2.40, COREWEAVE_20_RACKS,
     "2.26.2"),
    ("gb200-20racks-1G", Design(gpu="GB200-NVL72", gpus=1440), 1440, 1 * GiB, 218.85, 1.50, COREWEAVE_20_RACKS,
     "2.26.2"),
    ("gb200-20racks-4G", Design(gpu="GB200-NVL72", gpus=1440), 1440, 4 * GiB, 346.38, 0.70, COREWEAVE_20_RACKS,
     "2.26.2"),
    ("gb200-20racks-16G", Design(gpu="GB200-NVL72", gpus=1440), 1440, 16 * GiB, 405.74, 0.50, COREWEAVE_20_RACKS,
     "2.26.2"),
]


@pytest.mark.parametrize("case_id,design,gpus,nbytes,measured,bound,source,nccl", KNOWN_GAPS,
                         ids=[g[0] for g in KNOWN_GAPS])
def test_known_gaps_stay_bounded(case_id, design, gpus, nbytes, measured, bound, source, nccl):
    """Points outside 15% today (see the module docstring for why): the gap must not grow."""
    predicted, error = _error(design, gpus, "all-reduce", nbytes, NCCL, measured, nccl)
    assert abs(error) <= bound, f"{case_id}: predicted {predicted:.1f} vs {measured} GB/s ({error:+.1%}); {source}"


COREWEAVE_20_RACKS_CURVE = [  # bytes, out-of-place time [us] (coreweave/nccl-tests#48 and README, NCCL 2.26.2)
    (512 * MiB, 7108.4), (1 * GiB, 9805.7), (2 * GiB, 14980.0), (4 * GiB, 24782.0), (8 * GiB, 45004.0),
    (16 * GiB, 84625.0)]


def test_20_racks_fixed_cost_is_nccls_ring_latency():
    """The 20-rack curve's fixed cost is the ring's step latency of NCCL's own model (tuning.cc).

    Straight lines through neighbouring points of the measured time put the fixed cost at 4.4 ms
    (512 MB-1 GB) to 5.4 ms (8-16 GB): the LL128 ring's baseLat + (nsteps - 2(nNodes-1)) x 1.9 us
    + 2(nNodes-1) x 4.0 us for 2 x 1,439 steps is 5.6 ms; a tree (2 x (71 x 1.25 + log2(20) x 8.5)
    us) or NVLS-tree would cost well under 1 ms. (NCCL 2.26.2 itself keeps LL128 off on this path,
    tuning.cc:429, NIC behind the Grace CPU = PHB; its own Simple ring latency is 10.2 ms, so the
    real per-step cost is below NCCL's Simple figure and near its LL128 one: the model's ring uses
    the latter.) So the run used a ring, and the ring alone, with
    NCCL 2.26.2 (NVLS-tree left out, NVIDIA/nccl#2035), is within 15% at 512 MB-1 GB; its larger
    error above (+20% at 2 GB to +40% at 16 GB) is the ring's bandwidth on 72-GPU domains, whose
    channel search the model does not reproduce (pinned in KNOWN_GAPS through NCCL's choice).
    """
    (s0, t0), (s1, t1) = COREWEAVE_20_RACKS_CURVE[0], COREWEAVE_20_RACKS_CURVE[1]
    measured_fixed_us = t0 - s0 * (t1 - t0) / (s1 - s0)
    (s4, t4), (s5, t5) = COREWEAVE_20_RACKS_CURVE[4], COREWEAVE_20_RACKS_CURVE[5]
    measured_fixed_late_us = t4 - s4 * (t5 - t4) / (s5 - s4)
    result = sweep(plan(Design(gpu="GB200-NVL72", gpus=1440)), "all-reduce", [s0, s1], gpus=1440,
                   algorithms=("ring",), nccl_version="2.26.2")
    m0, m1 = (float(t) for t in result.curves["ring"].time_us)
    model_fixed_us = m0 - s0 * (m1 - m0) / (s1 - s0)  # same construction on the model's ring
    assert 4000 < measured_fixed_us < measured_fixed_late_us < 5500
    assert measured_fixed_us * 0.9 <= model_fixed_us <= measured_fixed_late_us * 1.1, model_fixed_us
    tree = sweep(plan(Design(gpu="GB200-NVL72", gpus=1440)), "all-reduce", [8.0], gpus=1440, algorithms=("tree",),
                 nccl_version="2.26.2")
    assert float(tree.curves["tree"].time_us[0]) < 0.2 * measured_fixed_us
    ring = sweep(plan(Design(gpu="GB200-NVL72", gpus=1440)), "all-reduce", [s for s, _ in COREWEAVE_20_RACKS_CURVE],
                 gpus=1440, algorithms=("ring",), nccl_version="2.26.2")
    measured = [s / (t * 1e-6) / 1e9 * 2 * 1439 / 1440 for s, t in COREWEAVE_20_RACKS_CURVE]
    errors = [p / m - 1 for p, m in zip(ring.busbw(ring.curves["ring"].time_us), measured)]
    assert all(abs(e) <= TOLERANCE for e in errors[:2]), errors
    assert all(e <= 0.45 for e in errors), errors  # the remaining ring gap, pinned


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
