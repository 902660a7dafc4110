"""Optimizer benchmark: the searches of the optimizer's speed targets, and opening the winner on the Designer.

Run: ``make bench`` (or ``python benchmarks/bench_optimize.py [--runs N] [--only default,large,open,bench]``).
Targets on a 2-core machine (medians of repeated runs, each candidate decided exactly: costed, or decided by
its bounds, ``core.analysis.optimize._decide``):

* ``default``: ``python -m core optimize --gpu H100 --gpus 16384``'s search, the default grid (17,516 candidates:
  16,308 Clos and 1,208 Dragonfly+, which takes no per-rail planes since opt48; 18,120 before), no constraint: within
  1 s;
* ``large``: the default grid with every catalog NIC (105,908 candidates since opt48, 109,560 before: per-tier
  switch mixes, port and uplink speeds, 8 NICs, 1-2 planes per-port and per-rail, 4 topologies with Dragonfly+,
  tiers 1-3, 4 oversubscriptions; 98,604 before Dragonfly+ joined the grid): within 5 s;
* ``open``: opening the default search's winner on the Designer (AppTest of the Designer with the winner's link,
  as the Optimize page's button opens it, cold: its plan not cached): within 1 s;
* ``bench``: the earlier workload (11,448 candidates, 5 switches, 5 NICs, busbw >= 350 GB/s): within 2 s.

The machine is shared, so the load average is printed with each figure, and the best run next to the median.
Measurements and their history: ``docs/performance.md``.

Measured (2026-12-05, 13:10-13:30 UTC, load average 27-31 on 2 cores: nine sessions' tests and browsers), the
``default`` search bounded and costing every candidate (``bounded=False``) in the same minutes: 26.0 s and 31.5 s
of CPU over all processes (0.83x), the same optimum, front (28 designs), feasible count (5,778) and rejections;
1,133 feasible candidates decided by their floors, 4,645 costed or rejected on a plan instead of 5,778. Wall
296-299 s for both at that load. At 13:55 UTC, load average 4-6, alternately: bounded 18.0-23.6 s wall, 18.9-20.3 s
CPU; every candidate costed 19.1-29.2 s wall, 23.4-25.6 s CPU (0.80x the CPU). The same search
before bounds, at load average 0.4-2.4 (12:47 UTC): 16.5 s wall, 22 s CPU. The 1 s target needs the physical
layer skipped for most candidates: the floors leave out the compute links' cables and optics (about 5% of capex
at 16,384 GPUs, more than the spread between the designs of a switch family), so they prune a fifth.

Then (2026-12-05, 16:05-16:40 UTC, load average 9-16 on 2 cores from other sessions' tests; the grid is now 18,120
candidates with Dragonfly+): a floor on the compute links' cables and transceivers from the rack geometry
(``core.cost.links_floor``: no passive copper between racks, the cable reaches few node-leaf links can stay within,
the module shares counted as the bill counts them) takes the floor's median gap to the capex from 3.4% to 1.1%,
and the workers share their costed candidates as pruning witnesses. The previous revision and this one alternately
(``optimize("H100", 16384)``, two workers): previous 24.3 and 21.9 s CPU over all processes (5,171 costed or
rejected on a plan), this one 12.1 and 10.9 s CPU (1,160-1,231 costed; 5,151-5,222 decided by their bounds), the
same optimum, front (28) and feasible count (6,382); wall 103 and 37 s vs 47 and 16 s at that load.
``--only default``: median 40.0 s, best 31.4 s of 3 runs, 10.8 s CPU at load average 9.2 (MISS); ``--only large``
(109,560 candidates now): one run, 168 s wall, 28.6 s CPU at load 11.9, 2,065 costed, 47,981 decided by their bounds
(MISS; the revision before not measured). In one process
(``workers=1``) 1,080 are costed. Where one process's time goes now (cProfile): the checks before the floors 58%
(fabric sizing 18%, the collective sweeps 14%, the floors 12% of which the links floor 7%, the other networks 7%,
the tier closed form 4%), the 1,080 candidates' physical layer and bill 36% (cable lengths 15%, the rack arrangement
14%). The 1 s target (about 2 s of CPU on two cores) needs both halves cut about five-fold: the checks before the
floors shared or vectorised across candidates of one shape (7,074 sizings and 6,383 sweeps now, one per
candidate that reaches them) and a floor within a few tenths of a percent of the capex (what remains is mostly 400G and 800G
links that a 5 m or 3 m copper cable could reach from a leaf's near racks: only the layout says how many do).

Then (2026-12-05, 19:25-19:40 UTC, load average 7-10 on 2 cores from other sessions; the revision before (main) and
this one alternately): the checks before the floors share more work between candidates. The busbw of one message
size without building the sweep (``core.perf.collectives.busbw_at``: the sweep's number to the bit, no frame
arrays); sizing skips leaf down-port counts whose closed-form score floor cannot beat the best so far
(``core.fabric.sizing._score_floor``: 85,291 scored counts down to 58,715); the storage fabric and the in-band
network sized once per fabric shape and each network's priced rows cached by what they read (the out-of-band
network alone reads the fabric's switch count, which made 1,656 distinct other-network sizings); the closed-form
tier check from its least and most down-port count (177,386 ``max_nodes`` calls down to 10,056). ``--only default``:
before median 44.1 s, best 33.6-40.6 s, 13.4-15.3 s CPU; after median 33.6 s, best 32.1-32.5 s, 12.3-12.6 s CPU
over all processes (0.85x the CPU; the wall is the load's). ``--only large``: before 195 s wall, 61.7 s CPU at load
10.2; after 104 s wall, 45.8 s CPU at load 6.7 (0.74x the CPU). Same optimum, front (34; 33 large), feasible count
(6,382; 50,046) and rejections. One process (``workers=1``, 19:41-19:46 UTC, load 9.5-9.8): before 14.7 s CPU, after 11.9 s (0.81x), both costing 1,049 and pruning 5,333. Both targets still MISS by a wide margin. What remains, one process: the costed
candidates' physical layer and bill about 40% (the rack arrangement and cable lengths, ``core.physical``: its own
session is making them closed form), fabric sizing about 20% (the leaf down-port scoring: the 5,868 island sizings of
one process have 2,499 distinct numeric inputs (node count, rails, radixes, speeds, ratios, tiers): switch models
whose radixes match score the same counts again; sharing it needs the score computed from numbers alone, without
the switch objects its error messages name), the busbw's placement, links and contention about 15%,
the floors about 13%, pydantic copies and row objects about 8%. An exact floor (the capex itself) would cost about
110 candidates instead of about 1,050: the floor's gap is all in the compute links' media, which only the layout
decides.

Then (2026-12-05, 19:50-20:08 UTC, load average 4-10 on 2 cores from other sessions; main and this revision
alternately): sizing chooses an island's leaf down-port count from its numbers alone
(``core.fabric.sizing._best_leaf_down``, a stage keyed by the ``IslandNumbers`` view: no switch, NIC or GPU model;
a step that cannot be built raises a nameless ``_Unfit`` inside the choice, and the sizing of the design itself
raises the named error), so the 5,868 island sizings of one process make 2,499 choices (3,369 cache hits).
``--only large --runs 1``: before 154 s wall, 51.8 s CPU at load 8.9; after 121 s wall, 40.1 s CPU at load 9.9
(0.78x the CPU; one run each). One process (``workers=1``), the default grid: before 9.1-10.9 s CPU, after
8.3-11.9 s (six runs each; no difference above the load's noise), of which ``size_fabric`` 1.32-1.38 s before and
0.94-1.15 s after. Same sizings (54,266 large), costed candidates (2,119 large), feasible counts and front. Both
targets still MISS. What remains is as the paragraph above says, sizing now about a tenth of one process: the
winning count's full sizing (its switch groups and explanation, 5,780 of them, keyed by the models' names it
states) and the copies of per-rail islands and grown fabrics.

Then (2026-12-05, 20:28-20:31 UTC, load average 9.4-11.1 on 2 cores from other sessions; main and this revision
alternately, one process, ``workers=1``): the all-reduce busbw is one computation per ``BusbwPlan`` view of the
candidate's plan (``core.analysis.perfview``: the calibration, the resolved design's performance fields, the fabric's
structure with its group and pod counts, the tiers' oversubscription) and per routing/placement assumption, NCCL
release and language (``core.analysis.optimize._all_reduce_busbw``): 6,383 busbw checks make 2,877 computations
(the fabric structure alone has 1,889 distinct views; switch models of one structure share). Before 11.05, 11.55,
11.11 s CPU; after 10.81, 10.90, 10.39 s (about 0.95x); again at 20:40 UTC, load 3.2-4.1, with the view built
without ``Plan.model_construct``: before 8.13, 8.32, 8.51 s, after 7.77, 8.20, 8.07 s (about 0.96x). Same optimum,
front (34), feasible count (6,382) and costed candidates (1,049). Both targets still MISS. What remains, one
process: the costed candidates' physical layer and bill about 40%, the floors about 13% (``links_floor`` 1.55 s of
19.9 s under cProfile, 6,383 calls, not yet shared), pydantic copies about 8%, sizing about a tenth, the busbw's
2,877 placements, links and contention (a numbers-only view, shared across NIC and switch models, would need the
SHARP version and the Spectrum-X pairing read from numbers rather than from the switch and NIC ids).

Then (2026-12-05, 21:58-22:22 UTC, load average 6-15 on 2 cores from other sessions; 3b07de6 and this revision
alternately): the floors' rows without their sentences or pydantic validation (``core.cost._FloorRow``), the other
networks' rows summed per category, network and spare flag in a stage keyed by the same views
(``core.cost.summed_network_rows``: 1,628 entries for 6,383 floors, so a floor sums about 13 rows, not about
28), the topology families' declared link classes gathered once (``core.fabric.families.declared``, asked 17,613
times per search). One process (``workers=1``), five runs each alternately: 3b07de6 8.5-10.7 s CPU (median 9.6 s),
this revision 8.5-9.5 s (median 8.9 s; pair ratios 0.89-1.05, median 0.90); the floors 1.22 s instead of 1.50 s
in the same minutes. ``--only default --runs 3``, two rounds alternately: 3b07de6 10.6-10.7 s CPU over all processes
(median 20.2-29.1 s wall), this revision 10.1-10.8 s (median 12.8-24.5 s wall): no difference above the load's
noise. ``--only large --runs 1``: 3b07de6 41.4 s CPU (112 s wall, load 11.6), this revision 39.8 s CPU (85 s wall,
load 10.8; 0.96x). Same optimum, front (34; 33 large), feasible counts (6,382; 50,046) and, in one process, costed
candidates (1,049). Both targets still MISS by a wide margin: about 9 s of CPU for a 1 s wall on two cores.

Where one process's time goes now (CPU time measured around each stage, load 10): the costed candidates' detail
38% (their physical layer 33%: ``core.physical``'s arrangement and cable lengths, another session's), fabric
sizing 14%, the floors 12% (the compute links' floor, ``links_floor``, 7%), the all-reduce busbw 10%, the other
networks' sizing and pricing (one per distinct switch count: the out-of-band network reads it) about 9%, the
resolution 4%. Why the floors cannot yet prune more: the 1,050 candidates costed are those whose capex floor is
below their switch family's cheapest capex (546: ``families`` names each family's cheapest, so it must be exact)
or below a no-slower costed candidate's (383); with the exact capex as the floor about 110 would be. The gap is
the compute links' media (median 1.4%, 90th percentile 3.5% of the capex): the floor prices every link between
racks at the shortest between-rack length, where copper reaches (an active copper cable: 3 m at 800G, 5 m at
400G), while most leaf-spine and spine-core links run 10-70 m on optics. A count of the links that can stay
within copper reach from the rack geometry alone does not bound it: a 52U network rack may hold 25-50 switches by
its units, so the racks within 5 m of a spine could hold more leaves than the spine has ports; only the
arrangement (spines in a few central racks, most leaf racks rows away) says how few are near.

Then (2026-12-05, 22:27-22:36 UTC, load average 6-9): the busbw shared across NIC models. ``BusbwPlan`` held the NIC
as a catalog entry, so the large grid's 8 NICs made 23,556 busbw computations of 50,046 checks in one process
(``_curves`` only 2,455 distinct); it now holds the NIC as the busbw reads it (``core.perf.commview.BusbwNic``:
its cloud transport, and its id only for a Spectrum-X SuperNIC, whose pairing with a Spectrum-4 switch sets the
routing class): 12,236 computations, the same busbw (``tests/test_optimize_speed.py`` compares it with ``busbw_at``
on each candidate's own plan over four grids and three routing, placement and NCCL assumptions). One process, the
large grid: 29.3 s CPU at load 7 (32.7 s before this change at load 9, one run each). ``--only large --runs 1``,
two rounds alternately with 3b07de6 (both changes of this session): 38.3 and 40.9 s CPU over all processes vs 40.9
and 44.5 s (about 0.93x; wall 57-70 s vs 52-75 s, the load's); the same optimum, front (33), feasible count (50,046)
and costed candidates (2,116-2,119 with two workers). The default grid has one NIC per fabric and speed: no change
there. The switch could be shared likewise (its id reads only as the SHARP release on InfiniBand, its ASIC only for
Spectrum-X), but the SHARP release comes from the design's calibrated constants, so that view needs them.

Then (2026-12-06, 04:10-04:33 UTC, load average 9.5-15 on 2 cores from other sessions; 4dd9f8a and this revision
alternately, one process, ``workers=1``, CPU time): a tighter floor before the refined one. The compute links' floor
(``core.cost.links_floor``) prices each class per cable reach a link may pass, with the links that can stay within
that reach counted from the rack geometry alone (``core.cost._devices_within``): a folded Clos's leaf-spine links
and a Dragonfly+'s leaf-spine and global links leave their row (leaves in the SU rows, spines in the central rows
or their group's own row), spine-core links their rack, and a top-of-rack leaf reaches only the nodes of its own
rack within the in-rack run a cable allows. At 16,384 H100 the refined floors (rack arrangement and length bins)
run for 633 candidates instead of 1,064 and 163 are costed instead of 171: 4dd9f8a 10.34, 9.59, 9.18 s CPU, this
revision 7.76, 7.78, 6.95 s (pair ratios 0.75-0.81; an earlier round with the Clos and top-of-rack counts only, 684
refined: 9.26, 9.41, 9.12 s vs 8.04, 7.76, 7.88 s, 0.82-0.87). The large grid, one run each (that earlier round's
code): 35.8 s vs 32.9 s CPU (0.92x; 1,702 refined floors down to 1,011, 154 costed down to 147). Same optimum, front,
feasible counts (6,382; 50,046) and rejections. Both targets still MISS. Where one process's time goes now
(cProfile on the CPU clock): the checks before the floors about 69% (sizing 21%, the first floors 20% of which the
links floor 14%, the busbw 11%, the resolution 6%), the refined floors about 24% (the rack arrangement and length
bins 16%: ``core.physical``), costing the 163 candidates about 3%. What would cut more: at 400G a 5 m copper cable
reaches the racks across an aisle, so the geometry cannot rule out most leaf-spine links there (only the
arrangement, which puts the spines rows away, does); and the checks before the floors, one candidate at a time, are
now most of the time (per-candidate objects and cache look-ups; batching them per fabric shape is the next step).

Then (2026-12-06, 06:36-07:12 UTC, load average 8-11 on 2 cores; 35883ee and this revision alternately, one process,
each search in a fresh process): the first floor in two steps, the counts without the compute links and the links
(``core.cost.links_cost_floor``) added only to a candidate the floor without them does not decide (4,259 of 6,383),
and a family whose resolution raised refused once. Default grid: cold 5.40 s CPU median vs 5.67 s (0.95x), a second
search in the same process 3.19 s vs 3.47 s (0.92x); large grid 21.1-23.2 s vs 25.9-27.7 s (0.81-0.84x: its
floors were a quarter of it). Same answers. Both still MISS: no stage is above a quarter of the time now, and the
inputs of the per-candidate steps are distinct (7,015 distinct first floors of 7,016, 5,867 island sizings of
5,868), so sharing by argument has no more to give; what could is the island sizing keyed by numbers alone (2,575
distinct) with the switch names put into its groups and explanation afterwards, and the rack arrangement of the
633 refined floors (``core.physical``, a quarter of a cold search).

Then (2026-12-06, 10:24-10:41 UTC, load average 17-29 on 2 cores; 4f50e3f and this revision alternately, one
process, each pair a fresh process): ``core.plan.as_built``'s rounds arrange without measuring cable lengths
(``core.physical.lengths.arranged_racks``; the 714 refined floors measure their final arrangement only, not all
1,436 arrangements of the rounds), and catalog entries, the rack catalog and fabric plans hash by a few fields in
the stages' keys. Default grid: cold 6.76 s CPU median vs 8.03 s (0.84x), warm 4.06 s vs 4.44 s (0.91x); large
grid 24.4 s vs 26.2 s (0.93x). Same answers (summary JSON and every candidate's reason compared). Both still MISS,
by about 5x: the refined floors (rack arrangement, its networks' rounds, length bins) are still the largest stage,
then sizing, the first floors and busbw, each a per-candidate Python call. The next step is the one the rows above
name: the counts, the first floors and the refined floors' inputs as arrays per fabric shape (sizing's leaf
down-port choice and the priced rows are linear in the counts), with only the survivors planned one by one.

Then (2026-12-06, 21:40-21:51 UTC, load average 14-21 on 2 cores from other sessions; 775d4ee and this revision
alternately, one process, each pair a fresh process): the checks before the floors (busbw47). ``BusbwPlan`` held the
switch as a catalog entry, so switch models of one structure made their own busbw; it now holds the switch as the
collectives read it (``core.perf.commview.BusbwSwitch``: its id only where a SHARP entry names it, its ASIC and the
NIC's id only where they pair as Spectrum-X, ``core.perf.congestion.spectrum_x``, folded once per view by
``core.memo.view(fold=)``): 2,717 busbw computations of 6,383 checks instead of 3,668 (B300: 5,418 of 9,527
instead of 5,423, its ConnectX-8 pairing with the Spectrum-4 switches as Spectrum-X). The folded Clos sizing is keyed
with stand-in port speeds too (``core.fabric.sizing._ANY_DOWN``, ``_ANY_UP``): 1,867 sizings instead of 2,499. Fabric
plans and switch groups in stage keys compare by their fields' dict (``core.memo.same_fields``, 6.7 us for a
three-tier plan against pydantic's 16.5 us): pydantic ``__eq__`` 124k calls in a warm search down to 38k. Default
grid: cold 8.94, 9.56, 10.23 s CPU vs 9.34, 10.40, 10.46 s (0.92-0.98x), warm 3.98-4.25 s vs 3.59-4.22 s (the same
within the load's noise; cProfile of a warm search 11.6 s vs 11.7 s). ``--only default --runs 3``, two pairs
alternately (22:00-22:04 UTC, load average 6-9): median 9.78 and 16.48 s wall, 8.92 and 9.29 s CPU, against 30.10
and 19.15 s, 10.88 and 9.48 s CPU (the wall the load's). Same answers: the summary, explanation and every
candidate's reason, floors, capex, busbw, tiers, hops and switches compared for H100 and B300 on the default grid
and H100 on the large grid (109,560 candidates). Both targets still MISS: the busbw computations left are distinct
(fabric and bandwidth views: 1,889 and 385), and the sizings left are the island's leaf down-port choices
(``_best_leaf_down``, 1,867 distinct ``IslandNumbers``), which were already shared by numbers alone.

Then (2026-12-07, 00:02-01:10 UTC, load average 9-22 on 2 cores from other sessions; 102dc75 and this revision
alternately, one process, cold): fewer refinements (refine48). Of the 773 candidates whose floor the rack arrangement
raised before costing, 600 were then pruned; the raise was 96% compute links (node-leaf 44%, leaf-spine 35%) and 3%
the other networks' PDUs. Reordering the queue cannot save one (every possible witness costs less than a candidate's
counts' floor, so it is costed first); only a tighter counts' floor can. Node-leaf links within a cable reach are now
counted SU by SU (``core.cost._node_links_within``: a node's leaves stand in its SU's leaf block on its own row) and
the first floor's other networks are priced for the fewest racks the layout may build (``core.cost.least_racks``):
671 refinements instead of 773, 163 costed instead of 173 (B300: 142 instead of 159), the same answers (summary,
explanation and every candidate's fields but the floors and the capex of the 10 (17) candidates pruned now, none a
family's cheapest). Cold CPU 7.58, 8.51, 8.12 s against 7.29, 7.33, 8.56 s at load 9-22 (the noise is larger than the
0.5 s the refinements and network sizings save, measured per stage); two more pairs at load 4.0-4.4 (01:03 UTC):
5.16 and 5.42 s against 5.50 and 5.88 s (0.92-0.94x). ``--only default --runs 3``: median 58.1 s wall,
best 38.6 s, 8.15 s CPU over all processes at load average 14.3: MISS, as is ``large`` (not measured). What a
further cut needs: the leaf-spine links' share of short reaches, which only the central rows' placement bounds.

Then (2026-12-07, 01:05-01:24 UTC, load average 3.8-5.6; 2a3d738 and this revision alternately, one process,
cold): the leaf-spine links' floor (refine48b). A folded Clos's spines stand in central rows and racks fill from U1,
so a leaf-spine link within a cable's reach joins a spine row to a row near it (``core.cost._rows_within``: lines a
pitch apart, columns a row span apart) and climbs at least the leaf's and spine's empty units above them
(``core.physical.layout.lowest_climb_u``); the leaves of a row are at most ``su_row_leaves`` and the spine rows
``central_role_rows`` (``core.cost._central_leaf_links``). On a reach too short to cross rows, a spine-core link
joins a core to one of the spine racks next to the first core rack (``_spine_core_links``). Refinements 671 -> 425
(B300: 794 -> 480), costed 163 (B300: 142 -> 141, the one pruned now not its family's cheapest), the same answers
(summary, explanation and every candidate's fields but its floors). Cold CPU 4.69, 4.59, 4.21 s against 5.20, 4.94,
5.06 s (about 0.9x). ``--only default --runs 3`` (two workers): median 6.46 s, best 6.04 s, 5.46 s CPU over all
processes at load average 4.6: MISS. The layouts measured put no leaf-spine link under 8 m at 16,384 GPUs, and an
oracle that counts none of them within 8 m decides no more candidates than this bound: what is left of the gap is
the node-leaf links, the spine-core links on longer reaches (an oracle counting none within 8 m: 381) and the
Dragonfly+'s global links (403).

Then (2026-12-07, 03:31-03:45 UTC, load average 4.7-7.5 on 2 cores from other sessions; 075395f1 and this revision
alternately): a refined candidate's bill reuses the as-built networks and arrangement its refinement made
(``_Detail.built``) instead of running ``as_built``'s rounds again (decide49). One process, H100: 7.18, 7.47, 7.60 s
CPU against 7.77, 8.02, 7.67 s (``detail`` 0.15-0.16 s against 0.22-0.26 s for its 164 bills), the same 425
refinements, 4,615 links' floors and 163 costed. ``--only default --runs 3``, two rounds: median 18.9 and 13.2 s wall,
8.41 and 8.26 s CPU over all processes, against 16.7 and 15.0 s, 9.23 and 8.66 s (the wall the load's): MISS. Large
grid, two workers, one run each: 27.5 s CPU, 161.5 s wall (load 9.8) against 29.8 s, 171.0 s (load 7.4), the same
105,908 candidates decided alike (208 costed, 49,838 pruned). In one process the cheapest-floor-first order is
already the least work for these floors (when a candidate is popped every cheaper feasible one has been decided);
what is left is the floors' gap (the node-leaf links' media two thirds of it) and the cold physical layer of the 425
refined.

Then (2026-12-07, 06:38-07:12 UTC, load average 7-17 on 2 cores from other helpers; the baseline b800f6b0 and this
revision alternately): a pending candidate's floors are raised by its node-leaf links' length bins read from its SUs
alone before its rack arrangement (``_Evaluator.su_bins``, decide50: the bins every arrangement of it gives,
``core.physical.lengths.su_node_leaf_lengths``). One process, H100: 206 refinements instead of 425 (425 SU reads,
0.29-0.49 s), ``_decide`` 1.98, 2.57, 3.21, 2.36, 2.28 s CPU (median 2.36 s) against 2.96, 2.96, 3.09, 2.94, 2.26 s
(median 2.96 s); the whole search 5.51, 6.56, 8.49, 6.30, 5.38 s (median 6.30 s) against 6.51, 7.20, 7.54, 7.51, 5.30
s (median 7.20 s; the load's noise). B300: 273 refinements instead of 480, ``_decide`` 2.39 s against 3.14 s. Two
workers (three pairs): 253 refinements instead of 511, 5.58-7.06 s CPU over all processes (median 6.04 s) against
6.43-6.86 s (median 6.55 s), wall 12.3-17.3 s against 15.2-16.4 s; ``--only default --runs 3`` once each: median
20.68 s wall, 6.61 s CPU against 18.46 s, 6.43 s (no gain above this load's noise): MISS. Large grid, two workers,
one run each: 39.5 s wall, 22.25 s CPU against 52.5 s, 22.57 s (load 8.6-9.4): MISS. The same optimum, front,
feasible count and rejections (H100, B300, large).

Then (2026-12-07, 09:05 UTC, load average 3.7-5.2 on 2 cores from other helpers; the baseline 0df71b50, no engine change: chain51 counted what a bound before sizing would decide and found it needs 70-90% of a candidate's switches, links and other networks to decide a few hundred to half the pruned candidates):
``--only default --runs 3`` median 15.39 s wall, best 14.83 s, 6.55 s CPU over all processes: MISS; one process 3.67 s CPU at load 0.65.
Then (2026-12-07, 09:36-10:02 UTC, load average 9-15 on 2 cores from other helpers; the baseline 0df71b50 and this
revision alternately): the per-candidate pieces (curve51). The collective curves are keyed by what the algorithms
read of the placement (``core.perf.collectives.CurvePlacement``) and hold the uniform share only where an algorithm
spreads its traffic: 447 curve computations instead of 1,151 for the same 2,717 busbw computations (B300: 804
instead of 2,595); sizing's leaf down-port choice compares each group shape once
(``core.fabric.sizing._best_leaf_down``: 10,610 scorings instead of 16,907, the same 1,867 choices). One process, H100:
4.57-5.70 s CPU (median 4.86 s) against 4.76-5.75 s (median 5.09 s), eight pairs, seven faster; B300 7.62 s against
7.80 s. ``--only default --runs 3``, two pairs: median 42.17 and 7.84 s wall, 5.86 and 5.33 s CPU over all processes
(load 14.2; 5.3 at 10:11 UTC) against 25.41 and 9.18 s, 6.25 and 5.72 s (load 8.9; 5.5): MISS. ``--only large``, one run each: 93.67 s wall, 20.90 s CPU (load 12.8)
against 139.53 s, 25.17 s (load 15.4): MISS. The same optimum, front, feasible count and rejections (H100, B300,
large).

Then (2026-12-07, 09:46-09:53 UTC, load average 12-14 on 2 cores from other helpers' tests; the baseline 0df71b50
and large51 alternately): ``--only large --runs 1`` 101.5 s and 94.0 s wall, 22.59 and 20.63 s CPU over all
processes (baseline) against 124.6 s and 90.9 s, 23.35 and 21.95 s: MISS (5 s); the same 105,908 candidates decided
alike (50,614 sizings, 208 costed, 49,838 pruned, 50,046 feasible, 9 on the front). large51 builds the designs
before the workers start in 0.75x the CPU (``candidate_designs``: 0.71-0.82 s against 0.97-1.03 s at load 9-11),
too little to show at this load. Counted (one process, 18.8 s CPU at load 11.5): 50,614 sizings, 12,193 busbw
computations, 10,044 resolutions, 12,038 links' floors, 192 refinements, 142 bills; the checks before the floors are
80% of the CPU and grow with the NICs (7.8x the default grid's sizings), the decisions after them do not.

Then (2026-12-07, 10:27-10:44 UTC, load average 1.3-5.4 on 2 cores from other helpers; the baseline c46eae99 and
nic51 alternately): NIC models of one port speed whose hosts feed them all share a busbw computation
(``core.perf.commview.BusbwResolved`` reads the host link as none where it caps nothing): the large grid's 12,193
busbw computations are 7,680, the default grids' unchanged. One process, large grid: 12.86-13.24 s CPU (median
13.12 s) against 12.89-15.24 s (median 13.37 s), four pairs. ``--only large --runs 1``, one pair: 21.67 s wall,
16.14 s CPU over all processes (load 5.4) against 27.60 s, 16.39 s (load 4.8): MISS (5 s). The same 105,908
candidates decided alike (one process: every candidate's reason, capex, busbw, floor and pruned flag hashed alike).

Then (2026-12-07, 12:30-13:05 UTC, load average 16-31 on 2 cores from other helpers; the baseline 15195585 and len52
alternately): the cable lengths' bins of every class in one pass, a role's device heights read once a plan
(``core.physical.lengths._classes_binned``, ``LinkEnds.heights_all``). One process, H100: 4.92-4.97 s CPU (median
4.94 s) against 4.82-5.58 s (median 5.00 s), three pairs: noise (the refinements' lengths, 0.32-0.39 s for 208,
take the node-leaf bins from the merged pass now instead of the SU reads' cache). ``--only default --runs 3``, one
pair: median 82.67 s wall, 6.08 s CPU over all processes (load 29.6) against 77.62 s, 6.10 s (load 28.9): MISS
(1 s). The same optimum, front, feasible, costed and pruned counts and every candidate's hashes (H100, B300, large).
Then (2026-12-07, 12:33-13:25 UTC, load average 15-38 on 2 cores from other helpers' tests; the baseline 15195585
and floor52 alternately): the cost floors leaner with every number the same (``core.cost``: the floors' totals
summed as ``summarize_cost`` sums them without its summary, ``FloorTotals``; what a links' floor reads of a design's
view once per view, ``links_units_of``). One process, H100: the four floors 1.40 s CPU against 1.76 s (medians of
three pairs: ``links_cost_floor`` 0.63 s against 0.83 s, ``cost_floor`` 0.28 s against 0.43 s,
``network_floor_rows_of`` 0.50 s against 0.51 s), the search 4.95 s against 5.34 s (five pairs; B300 6.37 s
against 6.86 s). ``--only default --runs 3``, two pairs: median 64.03 and 43.80 s wall, 5.42 and 5.84 s CPU
over all processes (load 20.9, 20.8) against 48.02 and 33.25 s, 5.76 and 5.79 s (load 16.6, 15.6), no difference
above this load's noise: MISS (1 s). At 13:38 UTC, load average 1.9-3.0, once each: median 4.81 s wall, 4.62 s CPU
over all processes against 6.27 s, 4.67 s: MISS (1 s); the four floors 0.90 s CPU against 1.05-1.12 s (two pairs).
The same answers (H100, B300 and the large grid: every candidate's verdict, floor and capex hashed alike).
Then (2026-12-07, 12:29-13:14 UTC, load average 17-35 on 2 cores from other helpers; the baseline 15195585 and
size52 alternately): sizing and bandwidth per candidate leaner (one counting step for the leaf down-port scores and
the plan, ``_balanced_uplinks`` in closed form, ``compute_bandwidth`` reading the family once, Dragonfly+'s counts in
closed form). ``_Evaluator.size``'s own calls replayed: 0.83-0.86x the CPU (H100 0.673 s vs 0.576 s, B300 0.93 s vs
0.77 s). ``--only default --runs 3``, one run each: median 42.31 s wall, 6.08 s CPU over all processes against
40.61 s, 6.24 s (load 19.5-24; the load's noise): MISS (1 s). The same 17,516 candidates decided alike (one process:
every candidate hashed alike, H100 and B300).
Then (2026-12-07, 15:31-16:14 UTC, load average 15-31 on 2 cores from other helpers; the baseline a218f7fa and lean53
alternately): two stages that cost more than they saved in a search removed (the resolution by the design's fields,
1 hit in 1,662, and the leaf down-port choice, 121 in 1,988: ``core.fabric.sizing._best_leaf_down`` is no longer
cached). The 1,661 resolutions replayed: 0.135 s CPU with the stage against 0.050 s without (load 26). One process's
per-step split, two pairs (load 26-30): ``resolve`` 0.33-0.35 s against 0.18 s, the search 5.98 and 6.46 s against 5.77
and 5.52 s CPU. ``--only default --runs 3``, two pairs: median 44.25 and 33.87 s wall, 7.11 and 5.97 s CPU over all
processes (load 29.3, 25.0) against 38.08 and 31.44 s, 5.88 and 6.01 s (load 25.9, 23.5): MISS (1 s). The same
answers (H100 and B300: every candidate hashed alike).

Earlier history of the ``bench`` workload:

Measured (2026-12-01, the same minutes, load average 0.9-1.5 on 2 cores, 3 runs each twice): before the
physical layer's speed-up best 5.12-5.23 s, median 5.22-5.30 s, 9.4-9.8 s CPU over all processes; after
it (same code otherwise) best 3.23-3.31 s, median 3.35-3.52 s, 6.0-6.1 s CPU (1.5x wall, 1.6x CPU), every
candidate's numbers unchanged (``tests/test_optimize.py``). The 2 s target is still missed: of the CPU
left about a fifth each goes to fabric sizing (``core.fabric.sizing``, 880 sizings), the collective sweeps
(``core.perf``, 1,649) and the cable lengths (146 distinct of 259 layouts), a tenth to the bills of
materials (735), and 6% to catalog look-ups by id (``Catalog._find`` scans every entry).

Then (2026-12-01, 18:25 UTC, load average 1.6-1.8, before/after alternately, 3 runs each three times): catalog
look-ups by an id/alias index, the losing leaf down-port candidates of a sizing compared by (tiers, switches)
without their groups and explanation, the uplink balancing memoised, the other networks' BOM rows shared per
networks object: before best 3.12-3.15 s, median 3.14-3.27 s, 5.7-5.8 s CPU; after best 2.31-2.44 s, median
2.33-2.48 s, 4.3-4.6 s CPU (1.3x), every candidate's numbers, every plan and sizing unchanged. Still above 2 s.
Of one process's time under cProfile (7.9 s) the physical layer takes 37% (cable lengths 17%, the rack
arrangement 10%, the other networks 6%, media 4%), the collective sweeps 19% (1,649 distinct), fabric sizing 13%,
the BOM 9%; the two workers are busy 2.1 s each of the 2.3-2.5 s wall (pool start and the parent's 0.15 s the rest).

Then (2026-12-01, 19:10-20:05 UTC, the previous revision and this one alternately, 3 runs each, load average
0.9-1.9 on a host whose speed varied by a quarter within the hour): memos keyed by what each step reads (the
other networks, resolutions shared across tiers and ratios, the collective curves by sweep context, the
compute-link BOM rows by media, the cable lengths by the arrangement's structure before its positions), pure
number functions memoised, link ends looked up per device, length bins counted without sorting, the cost summary
in one pass, the collector paused during a search, chunks handed to whichever worker is free. Previous revision
best 2.49-2.96 s, median 2.54-3.20 s; this one best 1.58-2.06 s, median 1.59-2.06 s in the same minutes (ratio
0.63-0.79), and best 1.55-1.67 s, median 1.56-1.72 s, 2.9-3.1 s CPU over all processes at load average 1.0
(20:05). Every candidate of nine searches (this one and eight others: small grids, Ethernet, per-rail planes,
GB200, budgets) unchanged, to the bit. Where the time goes now, one worker's 1.5 s: the physical layer 45%
(cable length arrays and bins 18%, the rack arrangement 7%, media 5%), the collective sweeps 13%, fabric sizing
9%, the BOM 8%; the parent's serial part (grid, families, fork, gathering, re-planning the winner) 0.15 s.
PASS needs the median within 2 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.analysis.optimize import Constraints, Grid, optimize  # noqa: E402
from core.memo import STAGES  # noqa: E402
from core.plan import plan  # noqa: E402
from core.perf.collectives import collective  # noqa: E402

GPUS = 16_384
TARGET_CANDIDATES = 10_000
TARGET_SECONDS = 2.0
GRID = Grid(switches=("QM9700", "Q3400", "SN5600", "TH5", "TH6"), nics=("CX7", "BF3", "BF3-DPU", "CX8", "CX9"),
            uplinks=("same",), oversubscription=(1.0, 1.5, 2.0, 3.0))
CONSTRAINTS = Constraints(min_busbw_gbytes=350.0)
DEFAULT_SECONDS = 1.0
LARGE_SECONDS = 5.0
OPEN_SECONDS = 1.0
LARGE = Grid(nics=("CX5", "CX6", "CX7", "CX8", "BF3", "BF3-DPU", "CX7-2P", "CX9"))
"""The default grid with every catalog NIC: 109,560 candidates at 16,384 H100 (98,604 before Dragonfly+ joined)."""


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the forked workers)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _search(name: str, grid: Grid, constraints: Constraints, target: float, runs: int):
    """Median, best and CPU of ``runs`` searches at 16,384 H100 on ``grid``; prints them; (passed, last result)."""
    times, cpus = [], []
    result = None
    for _ in range(runs):
        for cached in STAGES:  # each run a first search: nothing the previous run's parent cached carries over
            cached.cache_clear()
        start, cpu = time.perf_counter(), _cpu()
        result = optimize("H100", GPUS, constraints, grid)
        times.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    assert result is not None
    median = statistics.median(times)
    print(f"{name}: {result.considered:,} candidates ({result.sizings:,} sizings, {result.costed:,} laid out and "
          f"costed, {result.pruned:,} decided by their bounds, {result.feasible:,} feasible, "
          f"{len(result.pareto)} on the front)")
    print(f"  median {median:.2f} s, best {min(times):.2f} s of {runs} runs; CPU {min(cpus):.2f} s over all "
          f"processes; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    ok = median <= target
    print(("  PASS" if ok else "  MISS") + f": target {target:g} s (median)")
    return ok, result


def _open_on_designer(design, runs: int) -> bool:
    """AppTest of the Designer with ``design``'s link (``core.formats.sharelink``, as the Optimize page's button),
    a fresh app each run with the plan cache and every stage cache cleared (``core.memo.STAGES``: the app's search
    runs in worker processes, so the page's own process holds none of its work): the seconds until the page has
    run, and the CPU seconds of this process meanwhile (the script's thread and AppTest's own; on a loaded machine
    the wall clock is mostly waiting). The first run pays the page's imports and is counted like the others."""
    from streamlit.testing.v1 import AppTest

    import streamlit as st

    from core.formats import sharelink
    from core.memo import STAGES
    from core.plan import _plan_cached_key

    entry = str(Path(__file__).resolve().parent.parent / "tests" / "apptest_entry.py")
    times, cpus = [], []
    for _ in range(runs):
        _plan_cached_key.cache_clear()
        for cached_stage in STAGES:
            cached_stage.cache_clear()
        st.cache_data.clear()
        st.cache_resource.clear()
        at = AppTest.from_file(entry, default_timeout=120)
        at.query_params.update(sharelink.encode(design))
        start, cpu = time.perf_counter(), time.process_time()
        at.run()
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        if at.exception:
            raise RuntimeError(at.exception[0].message)
    median = statistics.median(times)
    print(f"open the winner on the Designer: median {median:.2f} s, best {min(times):.2f} s of {runs} runs; "
          f"CPU median {statistics.median(cpus):.2f} s, first run {cpus[0]:.2f} s; "
          f"load average {os.getloadavg()[0]:.1f}")
    ok = median <= OPEN_SECONDS
    print(("  PASS" if ok else "  MISS") + f": target {OPEN_SECONDS:g} s (median)")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="default,large,open,bench")
    args = parser.parse_args(argv)
    only = set(args.only.split(","))
    optimize("H100", 64, CONSTRAINTS, Grid(switches=("QM9700",)), workers=1)  # imports and catalog warm
    ok = True
    winner = None
    if "default" in only or "open" in only:
        passed, result = _search("default grid, no constraint", Grid(), Constraints(), DEFAULT_SECONDS, args.runs)
        ok &= passed
        winner = result.best.design
        p = plan(winner)
        busbw = collective(p, "all-reduce", 1 << 30)["busbw_gbytes"]
        print(f"  winner re-planned: capex {p.cost.capex_usd:,.0f} USD, busbw {busbw:.1f} GB/s")
    if "large" in only:
        ok &= _search("large grid (every NIC), no constraint", LARGE, Constraints(), LARGE_SECONDS, args.runs)[0]
    if "open" in only and winner is not None:
        ok &= _open_on_designer(winner, args.runs)
    if "bench" in only:
        passed, result = _search("earlier workload (busbw >= 350 GB/s)", GRID, CONSTRAINTS, TARGET_SECONDS, args.runs)
        ok &= passed and result.considered >= TARGET_CANDIDATES
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
