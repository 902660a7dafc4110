"""Failure what-if: fail switches, planes or NICs of a planned design and compare with the healthy one.

``what_if(plan, failures)`` takes a ``core.plan.Plan`` and failure specs and returns a
``FailureResult``; the plan is never changed (frozen models; a degraded *copy* feeds the
collective and training models). Element names are those of ``core.fabric.topology.fabric_graph``:

* ``p0.leaf3``, ``p0.spine1``, ``p0.core2`` (``p<plane>.i<island>.leaf3`` with islands: rail-only,
  per-rail planes); ``leaf3`` alone means plane 0 (island 0); ``su2-rail4`` is the rail-4 leaf of
  scalable unit 2 (both 1-based, plane 0) in rail-optimized fabrics; a top-of-rack leaf is its rack's ToR;
* ``p1``: a whole plane;
* ``node5.nic2``: NIC 2 of node 5 (all its ports, one per plane);
* ``rack3``: rack 3 (0-based) without power: its nodes and, top-of-rack, its ToR switches;
* ``rack3.feedA`` / ``rack3.feedB``: one power feed of rack 3. The rack presets take two feeds with N+N
  supplies (``[[power_feed]]`` in ``assets/catalog/racks.toml``, sourced or an assumption), so one feed lost
  loses nothing (the result says "redundant"); both feeds are ``rack3``; a one-feed preset loses the rack;
* ``p0.leaf3-spine1`` / ``p0.spine2-core5``: the bundle of parallel links between a leaf and a spine, or a
  spine and a core (``#2``: cable 2 of the bundle, 0-based, alone);
* ``node5.nvswitch1``: NVSwitch chip 1 of node 5's HGX baseboard; ``rack3.nvswitch7`` and
  ``rack3.nvswitch-tray2``: chip 7 and switch tray 2 (its chips) of the NVLink domain of several nodes in
  rack 3 (an NVL72: 9 trays of 2 chips; ``nvl3.`` instead of ``rack3.`` when a rack holds several domains);
* ``node5.mesh3-6``: the direct links between GPUs 3 and 6 of node 5's scale-up mesh (AMD xGMI, Gaudi 3,
  Ascend HCCS; ``core.scaleup``): the worst GPU keeps its surviving links' share of its scale-up bandwidth.

A spec is ``tier:count`` (``spine:2``: that many elements of the tier, chosen where they hurt most:
a leaf group's leaves before the next group's, so nodes are cut off soonest; a pod's spines before the
next pod's; a core group's cores before the next; a node's NICs before the next node's; one leaf's
uplink bundles before the next leaf's; one NVLink domain's switch chips (or trays) before the next,
except on HGX baseboards, where each chip takes its node; a rack's feeds before the next rack's; named in
``FailureResult.failed``) or ``tier:name`` / ``name``. Tiers: ``leaf`` (alias ``tor``), ``spine``,
``core``, ``plane``, ``nic``, ``rack``, ``link``, ``nvswitch``, ``tray``, ``feed``, ``meshlink`` (aliases
``xgmi``, ``hccs``; one node's links of GPU 0 first).

NVLink switches (sources in ``NVSWITCH_SOURCES``):

* **HGX / DGX baseboard** (one node per NVLink domain): NVIDIA Fabric Manager's default
  ``NVSWITCH_FAILURE_MODE=0`` "aborts and leaves the system uninitialized, and all CUDA application launches
  will fail" when an NVSwitch fails; only HGX A100 has a degraded mode (its peer disabled too, "5/6" of the
  bandwidth), and several failures fall back to mode 0. So a lost chip takes its node's GPUs out: they count
  as cut off.
* **Multi-node domain** (NVL72): every GPU has one link to each switch chip (GB200 SuperPOD RA), so a GPU keeps
  ``(links - links on the lost chips) / links`` of its NVLink bandwidth, ``(18 - k) / 18`` with ``k`` of 18
  chips lost; a tray is 2 chips. Assumed: the NVLink partition runs in NMX's Adaptive Bandwidth resiliency
  mode ("all of the GPUs will be able to communicate with one-another in a degraded bandwidth capacity"; in
  Full Bandwidth mode "a loss of a switch" makes the partition unhealthy), and NCCL keeps NVLS on the
  remaining chips at the same share (not documented). With every chip lost the domain's nodes no longer
  forward to each other over NVLink. The collectives and the step time run at the slowest domain's pace: the
  degraded copy's NVLink bandwidth per GPU is the worst connected domain's.

Method (closed form over the fabric's symmetry; no per-GPU or per-link loop, so it costs the same at
131,072 GPUs as at 64; ``tests/test_failure.py`` checks it against networkx reachability and max-flow):

* **Cut off**: switch components per plane (and island) are found at pod / leaf granularity (a leaf
  reaches its plane's spines while one of them lives; pods join through core groups with a live core
  and live spine j in both); nodes (and NVLink domains of several nodes, which forward over NVLink)
  join the components their live ports reach. GPUs outside the component holding the most nodes are
  cut off.
* **Degraded**: a GPU of a connected node whose NIC lost a port (a dead NIC, leaf, plane, or a leaf cut
  off from the rest). When the NIC lost every port, NCCL forwards the GPU's traffic over NVLink to a NIC
  on another rail (PXN: "inter-node communication using a non-local NIC, using NVLink and an intermediate
  GPU", NCCL environment-variable docs, ``NCCL_PXN_DISABLE``, on by default since NCCL 2.12):
  ``gpus_via_pxn``. Nodes of one multi-node NVLink domain (NVL72 trays) are assumed to forward to each
  other the same way, so a tray without a live NIC is degraded, not cut off, while its rack reaches the
  fabric.
* **Bisection** (one direction): per stage (NIC injection, leaf uplinks, spine uplinks) and per plane,
  the worst balanced cut puts every failed leaf, NIC and (with several pods) spine on one side; failed
  spines of a two-tier fabric and failed cores sit above the cut and reduce both sides. The bisection
  is the sum over planes of each plane's smallest stage, as ``core.fabric.bandwidth.bisection_gbits``
  (exact when the failures fit in one half, as the max-flow tests check).
* **busbw**: ``core.perf.collectives.collective`` all-reduce and all-to-all of ``BUSBW_BYTES`` on the connected GPUs of a
  degraded copy of the plan whose NIC rate is the slowest connected node's surviving share (a collective
  runs at the pace of its slowest rank; PXN moves a lost rail's share onto another NIC) and whose leaf
  and spine oversubscription are the worst live switch's.
* **Step time**: ``core.perf.training.estimate`` of the job on the same degraded copy.
* **ECMP**: a live switch whose uplinks lost some (not all) of their next hops while others of its tier
  kept all of theirs: its flows hash onto fewer paths (upward groups, ``unit`` ``switches``); a live switch
  that lost cables of its uplink bundles hashes over fewer links (``unit`` ``links``).
* **Link bundles**: a whole bundle lost takes that next hop from the leaf (or spine); the leaf's component
  is found by a union over the plane's spines and cores, with the untouched leaves of a pod (and the
  untouched spines of a core group) as one block each, so the cost stays per pod, not per link. A lost
  cable lowers the leaf's (spine's) live uplinks, hence its stage of the bisection and the degraded copy's
  oversubscription.

The package, one module per concept (``from core.analysis.failure import X`` works for every name below):

* ``power``: rack power feeds (``racks.toml [[power_feed]]``);
* ``shape``: the fabric's shape (``Shape``: its ``core.fabric.wiring.Wiring``, read through, plus NVLink trays and
  chips, racks and feeds) and bundle sizes;
* ``spec``: the failure-spec language: element names, ``tier:count`` specs, the worst order a count fails in;
* ``dead``: the failed state (``Dead``: which switches, NICs, cables, chips and racks are lost);
* ``switches``: switch components of a failed plane (``_Fabric``), at pod / leaf granularity;
* ``connectivity``: nodes and NVLink domains joined to those components, cut off and degraded GPUs (``analyse``);
* ``bisection``: the bisection per stage and plane; ``ecmp``: upward ECMP groups that lost next hops;
* ``whatif``: ``what_if`` and its ``FailureResult`` (the degraded copy, busbw, step time);
* ``graphwhatif``: the what-if of another topology family than the folded Clos (Dragonfly+: its global links as the
  tier ``global``; the classic Dragonfly), computed on its graph with networkx, up to ``graphwhatif.MAX_GPUS``;
  ``what_if``, ``resolve_failures`` and ``tiers_for`` send such a plan there, but for a family whose module declares
  ``FAILURE_CLOSED_FORM``;
* ``dragonflywhatif``: the Dragonfly+'s what-if in closed form over its groups (the groups no failure touches as one
  block; the bisection a maximum flow on the switches' network as wired, ``maxflow``, SciPy's Dinic; ``dragonflyglobal``: its global bundles
  from the circulant rule), the same ``FailureResult`` as ``graphwhatif``'s (the tests compare them over a grid),
  at any size.
"""

from __future__ import annotations

from core.analysis.failure.bisection import STAGE_LABELS, STAGES, _bisection
from core.analysis.failure.connectivity import Analysis, _gpu_nics, _node_ports, _Unit, _units, analyse
from core.analysis.failure.dead import Dead, _dead_of, _rack_down
from core.analysis.failure.ecmp import _ecmp
from core.analysis.failure.power import _feed_table, _feeds_for, rack_power_feeds
from core.analysis.failure.shape import NVL_TRAYS, NVSWITCH_SOURCES, Shape, _pair_links
from core.analysis.failure.spec import (
    MAX_FAILURES, TIER_ALIASES, TIER_LABELS, TIERS, tier_label, _element, _no_nvswitch, _parse_bundle, _tier_size, _unknown,
    _worst_order, count_tiers, parse_name, resolve_failures, spec_words, tiers_for,
)
from core.analysis.failure.switches import _Fabric, _Union
from core.analysis.failure.whatif import (
    BUSBW_BYTES, FailureResult, _busbw, _r, _scaleup_notes, _step, degraded_plan, degraded_words, method_of,
    stand_in_note, what_if,
)

__all__ = ["FailureResult", "NVSWITCH_SOURCES", "Shape", "TIERS", "analyse", "count_tiers", "degraded_plan",
           "degraded_words",
           "method_of", "parse_name", "spec_words", "rack_power_feeds", "resolve_failures", "stand_in_note", "tier_label", "tiers_for", "what_if"]
