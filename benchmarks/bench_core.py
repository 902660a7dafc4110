"""Engine benchmark: median plan time and aggregated-graph time at 64 to 131,072 GPUs.

Run: ``make bench`` (or ``python benchmarks/bench_core.py``). Targets on a 2-core machine:
planning within 20 ms at every size, flat in size (131,072 GPUs within 1.3x of 64 GPUs), the aggregated graph
within 100 ms. Planning bypasses the engine's result cache (each call plans from scratch): ``plan ms`` with the
stage caches the engine keeps between plans (``core.memo.stage``: the resolved design, the other networks, the
cable lengths by rack places, the media...), ``cold ms`` without them (``core.memo.uncached``: every stage
computed afresh, the physical layer's cable lengths included). ``x64`` is a design's plan time over its
64-GPU plan time. The racks of a plan are built only when read (``core.physical.layout.Layout``): planning
counts them from the arrangement's blocks, and measures the cable lengths per repeating block and kind of link
(``core.physical.lengths.placed_link_lengths``: node-leaf once per SU template, a Dragonfly's links inside its groups
once per class of groups alike, a Clos's leaf-spine per pair of rack cells, the other classes counted per class of
rack pairs and pair of port heights); the rack arrangement's rows are repeating blocks
(``core.physical.rowblocks.RowBlock``: no step per row or per SU). The stages that read the resolved design whole
are cached by its fields (``core.design.ResolvedFields``): the sizing and bandwidth (``core.plan.sized_fabric``), the
rack arrangement with its cable lengths (``core.physical.lengths.arranged_lengths``) and the bill's compute link rows
(``core.cost.priced_link_rows``). MET (docs/performance.md, CPU time, 2026-12-06, load average 11-13): warm
0.23-0.51 / 0.25-0.67 ms at 64 / 131,072 GPUs, 0.95-1.33x (round medians 1.03-1.25x; 35883ee before it 1.20-2.94x);
in this benchmark's wall clock HPN 1.5x (three tiers and a growth reserve: more bill rows than at 64 GPUs).
Cold is not flat: 2.4-6.5x, 6.4-27.0 ms at 131,072 GPUs (docs/performance.md, CPU time, 2026-12-06, load average 21-23;
4f50e3f before it 4.1-19.2x, 12.3-108 ms), since ``core.plan.as_built``'s rounds arrange the racks only
(``core.physical.lengths.arranged_racks``) and the lengths are measured once a plan; still growing: the one integer pass
over the spine-core, the islands' and the Dragonflies' global links (``_compacted``), the other networks sized and the
racks arranged once per round (a cold plan's placing reads the last round's arrangement,
``core.physical.lengths.placed_lengths``: 2.4-4.2x, 11.0-26.1 ms at 131,072 GPUs at load average 16-18, 2026-12-06,
main e1905cd 2.3-4.0x in the same minutes: within that load's noise).

2026-12-06 (flat47): a folded Clos's leaf-spine links with islands (rail-only, per-rail planes) and its spine-core
links are counted per piece of a range, not link by link (``core.fabric.wiring.Wiring.bundle_ranges``,
``core.physical.lengths._ranged``: the same counts, so the same numbers). Cold at 131,072 GPUs, the ranges on against
off alternately in one process (CPU, load average 12-17): rail-only 22.4 vs 24.6 ms (0.91x), B300 XDR 13.7 vs 14.9
(0.92x), 2 planes 0.95x, the others 0.97-1.01x; 131,072 over 64 GPUs 2.9-4.2x. MISS (1.3x): the (class of rack pairs,
kind of link) entries of every switch-to-switch class still grow with the hall, and the Dragonflies' global links are
one pass (docs/performance.md).

2026-12-07 (bins48): both Dragonflies' global links are counted per distance between two groups and pair of group
places when the groups stand alike, not link by link (``core.fabric.wiring.Wiring.pair_blocks``,
``core.physical.lengths._pair_blocks``: one pass over the pairs of groups, 32,640 for the classic Dragonfly's 65,280
links at 131,072 GPUs; the same lengths, so the same numbers). Cold at 131,072 GPUs, on against off alternately in one
process (CPU, medians of 7, 5 rounds, load average 12-20): Dragonfly+ 8.9 vs 13.3 ms (0.67x), classic Dragonfly 11.3
vs 19.2 ms (0.59x); counted by pairs past 4,096 links only (``_FEW_LINKS``): no slower at 1,024-4,096 GPUs
(0.95-1.01x). Six rounds alternately with 102dc75 (CPU, medians of 9, load average 9-17), 64 / 131,072 GPUs (medians
of the rounds): Dragonfly+ 4.2 / 9.5 ms, 1.9-2.5x (102dc75 3.9 / 13.8 ms, 3.0-3.7x), classic Dragonfly 4.2 / 10.5 ms,
2.1-2.7x (3.9 / 18.1 ms, 3.7-5.3x); the eight folded Clos designs unchanged within the noise, 2.6-5.0x. MISS
(1.3x): a Clos's (class of rack pairs, kind of link) entries still grow with the hall, and a bin's mean is the exact
sum of each kind's own rounded float length, which a closed form over rows does not give bit for bit
(docs/performance.md).
2026-12-07 (round48): one sizing's in-band/out-of-band fixed point runs on counts in closed form (each network built
once; 0 of 648 and 0 of 868 outputs differ). A large design's ``as_built`` takes an extra round (the first sizing
counts the PDUs of the estimated racks, 258 at 131,072 H100 on SN5600; the layout builds 607; the out-of-band switches
grow 822 -> 837, adding a management rack). Counting the later rounds' racks without arranging them was 5-15% cheaper
cold but only helps when the caches are bypassed (done always, warm plans at 131,072 GPUs 0.5 -> 0.85 ms): not kept.
MISS (1.3x cold).
2026-12-07 (phys49): the in-band/out-of-band fixed point on counts again (round48's, lost in its trim), the storage
fabric's two-tier search capped at ``radix`` node leaves (its ``lru_cache`` hides it from this benchmark's repeated
plans, not from a first plan), a bin's longest by ``np.maximum.reduceat`` (``core.physical.lengths._bin_max``). Two
worker processes (075395f1 and phys49) asked in turn, 7 rounds, CPU medians of 21, load average 6.4-6.9: cold at
131,072 GPUs 0.92-1.00x the baseline (7.1-16.7 ms), at 64 GPUs 0.80-1.02x (2.5-4.8 ms), so 131,072 over 64 GPUs
1.8-3.9x (baseline 1.7-3.7x; again at load 5: 0.90-1.01x, 1.9-4.4x); every output the same (``tools.equivalence`` 0 of
648, ``--physical`` 0 of 868). MISS (1.3x cold): a Clos's (class of rack pairs, kind) entries, the racks' places and
``as_built``'s extra round still grow.
2026-12-07 (lens50): a bin's mean length, the mean of all and the total from one float sum per class where a proven
error bound shows it rounds as the exact sum (``core.physical.lengths._decided_means``; the exact sums only for a
mean on a rounding boundary): the same figures (``tools.equivalence`` 0 of 648, ``--physical`` 0 of 868), which a
closed form over the rack rows can keep too. ``bin_lengths`` of a plan at 131,072 GPUs 0.26-0.74 ms vs 0.37-1.20 ms
(CPU, three rounds alternately with b800f6b0, load average 8-12); cold at 131,072 GPUs 8.4-22.6 ms vs 8.3-25.7 ms,
1.9-5.1x over 64 GPUs (1.7-4.4x): within that load's noise. MISS (1.3x cold): the Clos tables' classes and their
cells still grow with the hall (the closed form over the rows is not written).
2026-12-07 (arr50): ``as_built``'s rounds count the racks (``core.plan.rack_counts``: the arrangement's drafts,
``core.physical.layout.drafted_racks``, plus the other networks' device racks) and arrange them once, with the last
round's devices (was twice at 131,072 GPUs, three times for rail-only). Two worker processes (b800f6b0 and arr50) in
turn, 8 rounds, CPU medians of 15, load average 7-9: cold at 131,072 GPUs 0.93-1.00x the baseline (7.6-17.6 ms), at
64 GPUs 0.91-1.09x (2.5-4.8 ms), so 131,072 over 64 GPUs 2.2-4.2x (baseline 2.1-4.3x); first plans at 131,072 GPUs
0.88-1.01x; warm no slower (0.77-1.05x); every output the same (``tools.equivalence`` 0 of 648, ``--physical`` 0 of
868). MISS (1.3x cold): the other networks are still sized three times at 131,072 GPUs (against two at 64), and the
Clos's (class of rack pairs, kind) entries and the racks' places still grow.
2026-12-07 (rows51): a Clos's leaf-spine lengths in closed form over runs of racks at regular pitch (143-612 segments
at 131,072 GPUs instead of 1,792-10,605 entries, every figure the same) tried and not kept: its own work is flat
(about 1 ms a class) but as costly as the per-kind pass at 131,072 GPUs; cold plans on against off 1.05-1.12x at
16,384 GPUs and 1.01-1.10x at 131,072, first plans 0.96-1.08x (CPU, one process, load average 4-6). MISS (1.3x cold).
2026-12-07 (built51): ``as_built``'s rounds are one stage (``core.plan.built_networks``) and each round sizes only the
in-band and out-of-band networks (``core.networks.networks_for``) from the racks-independent part made once
(``network_parts``); the racks counted from the drafts' counts taken once. Two worker processes (0df71b50 and built51)
in turn, CPU, load average 9.6-14.1: ``as_built`` at 131,072 GPUs cold 0.70-0.89x the baseline (1.4-2.5 ms), first
plans 0.86-0.97x; whole cold plans (6 rounds, medians of 9) at 131,072 GPUs 0.92-1.00x, at 64 GPUs 0.89-1.01x, so
131,072 over 64 GPUs 2.0-3.8x (baseline 2.0-3.9x); first plans 0.94-1.06x (noise); warm plans 0.53-0.76x at 131,072
GPUs (0.29-0.68 ms), 131,072 over 64 GPUs 1.08-1.42x (baseline 1.17-1.65x); every output the same
(``tools.equivalence`` 0 of 648, ``--physical`` 0 of 868). MISS (1.3x cold): the rounds (three out-of-band sizings
and two device counts at 131,072 GPUs), the Clos's (class of rack pairs, kind) entries and the racks' places
(``RackPlaces.arrays``) still grow.
2026-12-07 (bill51): the media of a plan's bins are found once per link end and kind, not once a bin
(``core.physical.media.MediaMenu``), and the bill's link rows make a class's words once (``core.cost.link_rows``).
Two worker processes (wt-base51 and bill51) in turn, CPU: ``select_media`` at 131,072 GPUs 0.38-0.59x (0.11-0.20 ms
vs 0.21-0.40), the link rows 0.70-0.86x (3 rounds, medians of 21, load average 12); whole cold plans at 131,072 GPUs
0.91-1.03x (7.8-18.9 ms), 131,072 over 64 GPUs 2.0-3.4x (baseline 1.9-3.4x), first plans 0.94-1.08x (7 rounds, medians
of 9, load average 10-13: the 0.1-0.3 ms saved is within that noise), warm 0.80-1.01x (0.48-0.83 ms; 131,072 over 64
GPUs 1.0-1.8x, baseline 1.2-1.8x, at load 10); every output the same (``tools.equivalence`` 0 of 648, ``--physical`` 0 of 868).
MISS (1.3x cold): the bill and media still grow with their bins and rows (about 22 us a bin), the lengths and
``as_built`` as before.
2026-12-07 (bom52): a stage's key is hashed once a call (``core.memo._Key``; was three times a miss, twice a hit):
one first plan's look-ups 117-290 -> 66-140 us, warm plans at 131,072 GPUs 0.86-1.02x (0.27-0.59 ms; 131,072 over 64
GPUs 1.06-1.35x, baseline 0.99-1.52x; CPU, alternately, load average 14-16). Where cold plans grow (64 / 131,072
GPUs, load 12-13): the lengths (B300 XDR 0.86 -> 4.73 ms, rail-only 2.43 -> 9.62, HPN 2.51 -> 12.12 and its growth
reserve's plan 2.99 -> 9.94), ``as_built`` +0.5 to +1.4 ms, media and bill +0.3 to +0.8 ms (bounded: at most 13 bins,
nothing per plane, rail or pod). MISS (1.3x cold).
2026-12-07 (built52): the other networks' central racks per kind (``core.physical.layout.kind_racks``, a stage: the
storage racks filled once a plan, not once per ``as_built`` round), an empty rack's room asked once and a full rack's
never again (``_fill``), the network policies' whole numbers made once (``core.networks.policy.ipolicy``). Two worker
processes (wt-base52 and built52) in turn, CPU, load average 12-36: ``as_built`` at 131,072 GPUs first plans
0.95-1.01x, cold 0.96-1.01x (1.5-2.9 ms); whole cold plans (6 rounds, medians of 9) at 131,072 GPUs 0.94-1.04x
(7.8-18.6 ms), 131,072 over 64 GPUs 1.7-3.3x (baseline 1.8-3.5x); first plans 0.85-0.99x; warm unchanged (noise);
every output the same (``tools.equivalence`` 0 of 648, ``--physical`` 0 of 868). MISS (1.3x cold): ``as_built``'s
third round, the drafts' central racks and ``RackPlaces.arrays`` (numpy over every rack and node slot) still grow.

2026-12-07 (len52): a role's device heights read once a plan (``core.physical.lengths.LinkEnds.heights_all``) and
every link class's bins, node-leaf included, in one pass (``_classes_binned``). Two worker processes, the baseline
15195585 and len52 in turn, CPU medians of 25 (5 rounds, load average 17-26): cold at 131,072 GPUs 0.92-1.01x
(7.3-18.1 ms), at 64 GPUs 0.94-1.03x, 131,072 over 64 GPUs 1.77-3.10x (baseline 1.78-3.30x); first plans at 131,072
GPUs 0.90-1.02x; warm plans unchanged (no lengths measured; 0.64-1.29x at load 25, noise). Every output the same
(``tools.equivalence`` 0 of 648, ``--physical`` 0 of 868). MISS (1.3x cold): ``RackPlaces.arrays`` (440 calls, 1.3 ms
at 131,072 GPUs), ``_cell_pairs`` and ``_ranged`` (1-1.5 ms a class), the bins' pydantic objects, ``as_built``.
2026-12-07 (flat53): no change kept; measured on this revision (the baseline a218f7fa), one process, CPU medians of 7,
load average 19-23: cold 4.2-7.9 / 8.7-21.0 ms at 64 / 131,072 GPUs, 1.66-3.45x (2 planes 2.99x, H800 per-rail 3.45x,
rail-only 2.92x); first plans 1.72-3.13x. Tried and dropped, each exact: the heights slot by slot (``LinkEnds``: no
faster, 0.81-1.15x the time), one search for every plane's devices (at most 0.05 ms), the slot tables in one sort
(slower), ``_ranged``'s table as one cumulative sum (slower). One plane or island measured and scaled would change the
numbers: the copies do not stand alike (2 planes' leaf-spine 8,384 vs 7,729 entries; rail-only's 8 islands
4,875-6,041, none alike). MISS (1.3x cold): per-element numpy over the counted entries, the range pieces and the
Dragonflies' group pairs (docs/performance.md).
2026-12-07 (flat54): rail-only's and the per-rail planes' ranges (``core.physical.lengths._ranged``) count their
pieces' rows (class of rack pairs, A height) in one hashing pass, the classes from one whole number per rack pair made
in place (``_pair_keys``, shared with ``_pair_classes``), and their table of links per B height as whole numbers
(``np.add.at``, one running sum over every row at once: each row's differences add up to 0) instead of a float
cumulative sum per row; every figure the same (``tools.equivalence`` 0 of 648, ``--physical`` 0 of 868). Cold at
131,072 GPUs, the baseline's functions and these swapped plan by plan in one process (CPU, medians of 41 and 61 pairs,
load average 15-16): rail-only 0.90x and 0.93x (17.6 vs 19.6 ms), H800 per-rail 0.98-1.00x, 2 planes 0.97-0.99x, B300
XDR 0.99-1.05x (64 GPUs, nothing changed: 0.95-1.07x), at load 4.8 rail-only 0.92x (9.80 vs 10.69 ms); two worker
processes (wt-base54, flat54) in turn, medians of 9, load 12-17: 0.75-1.13x (the baseline against itself 0.99-1.08x),
131,072 over 64 GPUs 1.78-3.18x (baseline 1.76-3.55x); first and warm plans within the noise. MISS (1.3x cold):
``_ranged`` is still per piece (11,920 and 15,936 pieces for rail-only, every leaf-spine piece its own rack pair), and
the heights, the rack places and ``as_built`` grow as before.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import load_catalog  # noqa: E402
from core.design import Design  # noqa: E402
from core.memo import uncached  # noqa: E402
from core.plan import _plan  # noqa: E402  (uncached planning)
from core.fabric.topology import aggregated_graph  # noqa: E402

SIZES = [64, 1_024, 16_384, 131_072]
CONFIGS = {
    "H100 RoCE 400G SN5600 (128 ports)": lambda gpus: Design(
        gpu="H100", gpus=gpus, fabric="ethernet", switch="SN5600", port_speed_gbps=400),
    "B300 XDR Q3400": lambda gpus: Design(gpu="B300", gpus=gpus, switch="Q3400"),
    "H100 RoCE 200G TH6 3:1 (leaf search)": lambda gpus: Design(
        gpu="H100", gpus=gpus, fabric="ethernet", switch="TH6", port_speed_gbps=200, oversubscription=3),
    "B300 Spectrum-X 2 planes": lambda gpus: Design(gpu="B300", gpus=gpus, fabric="ethernet", switch="SN5600",
                                                    port_speed_gbps=400, planes=2),
    # field fabrics, every new option
    "H100 400G down/800G up, SN5600 + 7800R4": lambda gpus: Design(
        gpu="H100", gpus=gpus, fabric="ethernet", leaf_switch="SN5600", spine_switch="ARISTA-7800R4-576",
        core_switch="ARISTA-7800R4-576", port_speed_gbps=400, uplink_speed_gbps=800, nic="BF3"),
    "H800 MPFT per-rail 8 planes": lambda gpus: Design(gpu="H800", gpus=gpus, switch="QM9700",
                                                       plane_mode="per-rail", planes=8),
    "H100 rail-only, 1:2 leaves, su 16, pod 16": lambda gpus: Design(
        gpu="H100", gpus=gpus, topology="rail-only", oversubscription=0.5, su_nodes=16, pod_sus=16, tiers=3),
    "HPN dual-ToR 200/400G, grow x2": lambda gpus: Design(
        gpu="H100", gpus=gpus, fabric="ethernet", switch="TH5", nic="CX7-2P", port_speed_gbps=200,
        uplink_speed_gbps=400, planes=2, grow_to=gpus // 4, spine_oversubscription=15.0),
    # topology families (core.fabric.families)
    "H100 Dragonfly+ QM9700": lambda gpus: Design(gpu="H100", gpus=gpus, switch="QM9700", topology="dragonfly"),
    "H100 Dragonfly (Slingshot-style) QM9700": lambda gpus: Design(gpu="H100", gpus=gpus, switch="QM9700",
                                                                   topology="classic-dragonfly"),
}


def median_ms(func, repeat: int = 30) -> float:
    func()  # warm-up
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def cold_plan(design, catalog):
    """``_plan`` with every stage computed afresh (``core.memo.uncached``)."""
    with uncached():
        return _plan(design, catalog)


def main() -> None:
    catalog = load_catalog()
    print(f"{'design':<44} {'GPUs':>8} {'tiers':>5} {'switches':>9} {'plan ms':>8} {'x64':>5} {'cold ms':>8} "
          f"{'agg graph ms':>12} {'agg elems':>9}")
    worst_plan = worst_graph = worst_ratio = 0.0
    for name, make in CONFIGS.items():
        first = None
        for gpus in SIZES:
            design = make(gpus)
            result = _plan(design, catalog)
            plan_ms = median_ms(lambda: _plan(design, catalog))
            cold_ms = median_ms(lambda: cold_plan(design, catalog), repeat=7)
            graph_ms = median_ms(lambda: aggregated_graph(result), repeat=15)
            graph = aggregated_graph(result)
            elements = graph.number_of_nodes() + graph.number_of_edges()
            first = first or plan_ms
            worst_plan, worst_graph = max(worst_plan, plan_ms), max(worst_graph, graph_ms)
            worst_ratio = max(worst_ratio, plan_ms / first)
            print(f"{name:<44} {gpus:>8,} {result.fabric.tiers:>5} {result.fabric.switch_count_total:>9,} "
                  f"{plan_ms:>8.2f} {plan_ms / first:>5.1f} {cold_ms:>8.2f} {graph_ms:>12.2f} {elements:>9}")
    print(f"\nworst plan {worst_plan:.2f} ms (target 20 ms); worst plan over its 64-GPU plan {worst_ratio:.1f}x "
          f"(target 1.3x); worst aggregated graph {worst_graph:.2f} ms (target 100 ms); "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
