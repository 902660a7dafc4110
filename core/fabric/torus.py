"""Torus: the nodes as the vertices of a k-ary n-cube with wraparound, joined node to node (a topology family).

Sources: Dally, Towles, *Principles and Practices of Interconnection Networks* (2004), ch. 5 (tori: channel
bisection ``2 k^(n-1)`` for even ``k``, diameter ``n floor(k/2)``, average distance ``n k / 4`` for even
``k``); Jouppi et al., "TPU v4: An Optically Reconfigurable Supercomputer for Machine Learning with Hardware
Support for Embeddings", ISCA 2023 (4,096 chips as 64 cubes of 4x4x4 whose faces meet in 48 optical circuit
switches, 6,144 optical links; slices of whole cubes rewired into tori). The twisted tori of that paper are not
modelled (every wraparound link here joins the two ends of its own ring).

Terms:

* **dimensions** ``k_1 .. k_n`` (``Design.torus_dims``, ``FabricPlan.torus_dims``; ``n`` at most 3): the nodes
  are the ``N = k_1 ... k_n`` vertices; node ``v`` has coordinates ``(c_1 .. c_n)``, ``0 <= c_i < k_i``.
* **ring** of dimension ``i``: the ``k_i`` nodes that differ only in ``c_i``, each joined to ``c_i +- 1 mod k_i``.
  A dimension of 2 joins its two nodes once (one neighbour, not two).
* **width** ``w``: parallel links between two neighbours, each a NIC port at each end: the node's NICs (one
  port each: one plane) shared evenly over its ``ports_per_vertex(dims)`` neighbours (``floor``; the rest unused).
  Every link runs at the port speed, per direction.
* **folded order**: node ``v`` sits at rack position ``v``, and along every dimension the ring's positions are
  racked ``0, k-1, 1, k-2, 2, ...`` (``position_of_slot``): every link spans at most two places of its
  dimension, the wraparound as short as the others (a folded torus, Dally and Towles 5.4). Cable lengths come
  from that placement (``core.physical``).
* **OCS cubes** (``Design.torus_cube`` ``c``): cubes of ``c^n`` nodes; links inside a cube are electrical, a
  cube's face links go to optical circuit switches, one switch per face position per dimension and link of the
  width (``n c^(n-1) w`` switches, ``2 N / c`` ports each per width... see ``ocs_switches``), as TPU v4.

Device ids are the servers' (``node<n>``); a torus has no switch. Link class ``torus``; its ordinals are NIC
ports: ``(dimension slot) x w + lane`` where a dimension's + neighbour is slot ``2i`` and its - neighbour
``2i + 1`` (a dimension of 2 has only its + slot).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, NamedTuple

import numpy as np

from core.design import ResolvedDesign, check_dims
from core import plurals
from core.errors import DesignError
from core.fabric.sizing import FabricPlan, _speeds
from core.fabric.wiring import Bundle, Link, Wiring
from core.i18n import N_, _, ngettext

FAMILY = "torus"
GRAPH_MODELS: tuple[str, ...] = ()
CLOSED_MODELS = ("spof", "availability", "load")
"""Analyses that model it in closed form over its rings, not on a switch graph (``core.fabric.families.require_model``;
``core.analysis.torusspof``, ``core.analysis.availability``'s node-to-node links, ``core.analysis.torusload``)."""
BOM_MODELS = ("spares",)
"""Analyses read from its bill row by row (``core.fabric.families.require_model``): the spares, one row per NIC, and
optics and cables of its neighbour links per length (no fabric switch), each row's own rule (N+1 per model and tier,
a share of the installed count)."""
WORDS = {"view:each": N_("Every node drawn; no switches: nodes joined node to node"),  # the drawing's subtitle and
         "view:grouped": N_("Every node drawn; no switches: nodes joined node to node"),  # the draw.io title: no
         # switches, no servers grouped (core.figures.topology.view_words, core.figures.torus)
         "input:tiers:off": N_("No effect on a torus: its nodes are joined node to node, without switch tiers."),
         # the sidebar's switch-model boxes: shown disabled, their entry saying there is none
         "input:switch:off": N_("No effect on a torus: its nodes are joined node to node, without switches."),
         "input:switch:none": N_("none (no switches)"),
         "failure:click": None,  # no switch to click: the Resilience page's drawing fails nothing by a click
         "readout:bandwidth": N_("**Bisection ratio** {total} = half the injection over the bisection ({half} / "
                                 "{bisection}, one direction: when every GPU sends to the other half, the cut carries "
                                 "half of all injection), so a GPU that injects {injection} gets {share} across it; no "
                                 "switches: the torus's dimensions set it · **hops** (links crossed, minimal routing) "
                                 "to a neighbour {same_rail}, farthest pair {cross_pod} · **{link} : scale-out** "
                                 "{ratio} per GPU (one direction)"),
         "report:readout:bandwidth": N_("Bisection ratio {total} = half the injection over the bisection ({half} / "
                                        "{bisection}, one direction: when every GPU sends to the other half, the cut "
                                        "carries half of all injection), so a GPU that injects {injection} gets "
                                        "{share} across it; no switches: the torus's dimensions set it. Links crossed "
                                        "(minimal routing): to a neighbour {same_rail}, farthest pair {cross_pod}; "
                                        "{link} to scale-out {ratio} per GPU (one direction)."),
         "card:leaf": None, "card:spine": None, "card:core": None,  # no switch tier: no switch card
         # the link load's heatmap blocks and method caption (core.analysis.torusload): its dimensions, no uplinks
         "load:blocks": N_("block: layers of the torus's last dimension, left to right"),
         "load:caption": N_("Loads are offered traffic over capacity with every GPU sending at its share of its "
                            "node's cabled ports, routed dimension by dimension over the rings. Adaptive routing "
                            "spreads a bundle's traffic evenly over its links and splits a half-way-round connection "
                            "both ways; static ECMP hashes every flow onto one way and one link of each bundle "
                            "(seeded); a flow gets the smallest share along its path."),
         # the Inference page's fabric-load table (core.figures.serving.load_columns): its one link class, each NIC
         # port a link to a neighbour, and no uplinks (no switch): no uplink columns, its caption in its terms
         "load:nic": N_("Torus links (NIC ports)"), "load:leaf_uplinks": None, "load:spine_uplinks": None,
         "load:table:caption": N_("Per GPU, one direction: expert dispatch and combine, tensor-parallel and pipeline "
                                  "traffic that leaves the {domain}, and the KV-cache transfer; as a share of the "
                                  "NIC's line rate, each NIC port a torus link to a neighbouring node (no switches, "
                                  "no uplinks). Traffic to a farther node also "
                                  "crosses the links of the nodes between, which this share does not add: the "
                                  "Resilience page's Overload & imbalance tab routes it over the rings."),
         "cli:switches": N_("none: nodes joined node to node"),  # the plan CLI's switches row
         # the Optimize answer's traffic caveats (core.analysis.optimize): every NIC of a node on the one torus, so
         # no rails to join and a pipeline stage boundary inside a node leaves none (no such traffic named)
         "optimize:pipeline": None,
         "optimize:traffic:note": N_("If the job has expert-parallel all-to-all, note that {limits}."),
         "optimize:traffic:able": N_("The cheapest design that meets every constraint and is non-blocking (bisection "
                                     "ratio 1:1): {design}, {capex} (+{more})."),
         "optimize:traffic:none": N_("No design the search kept meets every constraint and is non-blocking (bisection "
                                     "ratio 1:1)."),
         # the transceivers card's help and the plan CLI's transceivers row: no switch side, what they are
         "transceivers": N_("{node_side} in the nodes' cages, at both ends of the optical node-to-node links (no "
                            "switches)"),
         "report:what": N_("What it is: {size}, joined node to node by a {topology} of {fabric} links (no "
                           "switches) at {speed} per GPU (one direction), {planes}."),  # the pack's summary: no tiers
         "report:risk:oversubscribed": N_("the bisection ratio is {ratio}, so traffic across the torus's cut can slow "
                                          "down"),  # no leaves
         # the Resilience page's method caption (core.analysis.failure.toruswhatif): no groups, the cut's two slabs
         "failure:method": N_("Method: on the torus's node graph (`networkx`): connected components for the GPUs "
                              "cut off; for the bisection, the live links across the worst balanced cut into two "
                              "slabs (every ring of a narrowest cut's dimension cut twice, at every place along the "
                              "rings); busbw and step time from the collective and training models on a degraded "
                              "copy of the design."),
         # the what-if card's "GPUs degraded" help: its rings' rule (TorusWiring.degraded_nodes), as the single
         # points' rows count them, not the folded Clos's NIC ports
         "failure:degraded:help": N_("GPUs of connected nodes on a ring that lost a link or a node: that ring runs on "
                                     "fewer links or as a line, so the ring collectives along it run slower for all "
                                     "its GPUs, not only at the failure's ends (as the Single points of failure tab "
                                     "counts them)"),
         "failure:tier": N_("Element"),  # the Resilience form: no tiers, its nodes, NICs and neighbour bundles
         "failure:tier:help": N_("An element kind and a count fail that many elements of that kind, chosen where "
                                 "they hurt most."),
         "failure:empty:form": N_("Nothing has failed: pick an element kind and a count, or name elements."),
         "card:links:help": N_("torus {torus}, node to node{all_planes}"),  # only its own class: no Clos zeros
         "cli:headline": N_("{gpus} x {model} {noun} in {nodes}; {fabric} {speed}G, {topology}, node to node "
                            "without switches, {planes}"),
         # the Performance page's routing and placement sentences (core.perf.jobform): no leaf groups to leave or to
         # spread ranks over; the model places a job as a block of the torus under either placement
         "perf:routing:topo": N_("Routing: {routing}; ranks packed in torus order, so ring traffic runs between "
                                 "neighbouring nodes on each dimension's links and all-to-all is bounded by the cut of "
                                 "the job's block of the torus."),
         "perf:routing:scatter": N_("Routing: {routing}; on a torus the model keeps ranks packed in torus order under "
                                    "either placement (nodes joined node to node, no switch groups to scatter them "
                                    "over): ring traffic runs between neighbouring nodes on each dimension's links and "
                                    "all-to-all is bounded by the cut of the job's block."),
         "perf:placement:topo": N_("Placement packed on a torus: the job's nodes take a block of the torus in order, "
                                   "so ring traffic runs between neighbouring nodes and all-to-all crosses the cut "
                                   "of the block."),
         "perf:placement:scatter": N_("Placement spread on a torus: the model keeps the job's nodes packed, a block "
                                      "of the torus in order (nodes joined node to node, no switch groups to scatter "
                                      "them over); both placements give the same estimate."),
         # the Hand-off tab's Slurm labels and the block file's basis: no switches, its logical groups of nodes
         "slurm:tree": N_("Slurm topology.conf (tree plugin): logical switches (a torus has none: each stands for a "
                          "group of nodes joined node to node) and nodes"),
         "slurm:block": N_("Slurm topology.conf (block plugin): one block per layer of the torus's last dimension, a "
                           "logical group of nodes joined node to node (no switches; the {domain} is one node)"),
         # the file's comment, machine-readable: written in English (core.formats.slurm), so not a catalog message
         "slurm:block:basis": ("the {scaleup} domain is one node, so one block per layer of the torus's last "
                               "dimension: a logical group of nodes joined node to node by the rings of the other "
                               "dimensions (the logical Slurm switch of the tree form; a torus has no switches)"),
         "perf:placement:help": N_("On a torus the model places a job's nodes packed, a block of the torus in order, "
                                   "under either setting: its nodes are joined node to node, with no switch groups "
                                   "to scatter them over.")}
"""This family's words where a surface's own are a folded Clos's (``core.fabric.families.words``): the sidebar's
tiers input is shown disabled with this as its help (the tiers asked never change its sizing); the Designer's and
the report's bandwidth readout say the bisection ratio and what it is of (half the injection over the bisection, the
tier chart's bars; per GPU its injection over its share of the cut, the per-GPU chart's) and the links crossed, not
the leaves' and spines' oversubscription and the switches crossed; no key-number card of a switch tier; the plan
command's headline names no switch tier and no switch model, its switches row no switch tier, its
bandwidth row says the bisection ratio and what it is of (``core.cli.plan``); the Resilience page offers no click
on its drawing (``failure:click``); the transceivers card and the plan command's transceivers row say where its
modules sit, at the node-to-node links' ends, not a switch side of 0 (``transceivers``); the Performance page's
routing and placement sentences and the placement setting's help speak of the torus's blocks, not of leaf groups
(``perf:routing:*``, ``perf:placement:*``); the Slurm exports' labels and the block file's basis say its blocks and
logical switches are groups of nodes, not leaf switches (``slurm:*``)."""
COUNTED = {
    # the failure CLI's "degraded" row: its rings' rule (TorusWiring.degraded_nodes), as the card's help says it
    "failure:degraded": lambda n: ngettext("{gpus} GPU on a ring that lost a link or a node, its ring collectives "
                                           "slower", "{gpus} GPUs on rings that lost a link or a node, their ring "
                                           "collectives slower", n).format(gpus=f"{n:,}"),
}
"""This family's counted words where a surface's own are a folded Clos's (``core.fabric.families.counted``)."""
DESIGN_FIELDS = ("torus_dims", "torus_cube")
"""``Design`` fields only a torus reads (``core.fabric.families.unused_fields``: set on another topology, they are
said to be ignored)."""
IGNORED_FIELDS = ("switch", "leaf_switch", "spine_switch", "core_switch", "oversubscription",
                  "spine_oversubscription", "tiers")
"""The folded Clos's fields a torus does not read (``core.fabric.families.ignored_fields``; a search holds them,
``unsearched_fields``): no switch, so no switch model, leaf or spine oversubscription or tier count; set, they are
said to be ignored (the CLI, the Designer, a sweep), and ``core.design.resolve_design`` does not read the switch models
(the storage and management networks take the fabric's default switch's vendor, as with no switch given)."""
IGNORED_WHY = N_("it has no switches or switch tiers (its nodes are joined node to node)")
"""Why it ignores its ``IGNORED_FIELDS`` (``core.fabric.families.ignored_said``), no leaves to oversubscribe among them:
the leaf-oversubscription what-if would re-plan the same torus at every step (``core.fabric.families.leaf_whatif``)."""
FIXED_FIELDS = ("uplink_speed_gbps", "planes", "plane_mode")
"""``Design`` fields a search takes at the base design's values (``core.fabric.families.unsearched_fields``): no
uplinks (no switch), and one plane with every NIC (``size`` refuses others)."""
FAILURE_NAMES = "node-to-node"
"""Its failure elements are named by ``core.analysis.failure.toruswhatif`` (nodes, NICs, bundles between two
neighbours; ``core.fabric.families.failure_names``)."""
"""Its single points, availability and link load are closed forms of its own (``CLOSED_MODELS``); its failure what-if
runs on its graph (``core.analysis.failure.toruswhatif``)."""
ROLES: tuple[str, ...] = ()
LINK_CLASSES = ("torus",)
LINK_CLASS_ENDS = {"torus": "node"}
"""Its link class joins two nodes' NIC cages, no switch (``core.physical.media.family_node_classes``): its optics
and cables are chosen by the NICs at both ends, never by a switch field the torus does not read."""
UNMODELLED = N_("{what}: closed forms of the folded Clos (leaf, spine and core tiers) that do not model a torus yet "
                "(its nodes joined node to node). Run the failure what-if on it, or take the topology (GraphML "
                "export) to a graph tool.")
"""What an analysis that does not model a torus says (``core.fabric.families.require_clos``)."""
OCS_PORTS = 136
"""Ports of one optical circuit switch (Palomar: 136 x 136, 128 used in TPU v4; Jouppi et al. 2023, sec. 2)."""


# ------------------------------------------------------------------------------------------ closed forms
def parse(text: str | None) -> tuple[int, ...]:
    """The dimensions of ``Design.torus_dims`` text (``"16x16x16"`` -> ``(16, 16, 16)``); empty for None."""
    kept = check_dims(text)
    return tuple(int(k) for k in kept.split("x")) if kept else ()


def vertices(dims: tuple[int, ...]) -> int:
    """Vertices ``N = k_1 ... k_n``."""
    return math.prod(dims)


def ports_per_vertex(dims: tuple[int, ...]) -> int:
    """Neighbours of every vertex: 2 per dimension, 1 for a dimension of 2 (``2n`` when every ``k_i > 2``)."""
    return sum(2 if k > 2 else 1 for k in dims)


def dimension_links(dims: tuple[int, ...]) -> tuple[int, ...]:
    """Neighbour pairs (links of width 1) along each dimension: ``N`` per dimension, ``N/2`` for a dimension of 2."""
    n = vertices(dims)
    return tuple(n if k > 2 else n // 2 for k in dims)


def bisection_links(dims: tuple[int, ...]) -> int:
    """Neighbour pairs crossing the narrowest cut of the vertices into halves of ``floor(N/2)`` and ``ceil(N/2)``.

    Cutting every ring of dimension ``i`` twice splits the torus into two slabs: ``2 N / k_i`` pairs
    (``N / k_i`` for ``k_i = 2``), Dally and Towles' ``2 k^(n-1)`` for a k-ary n-cube. An odd ``k_i`` leaves the
    slabs one layer of ``N / k_i`` vertices apart; that middle layer (a torus of the other dimensions) is split
    in its own halves, adding its own bisection: ``2 N / k_i + bisection(others)`` (a ring of odd ``k``: 2). The
    least over the dimensions. The tests check it against a brute-force minimum bisection on small tori and
    against networkx max-flow between the two halves.
    """
    return min(_cut_costs(dims)) if dims else 0


def _cut_costs(dims: tuple[int, ...]) -> list[int]:
    """Links across the balanced cut through the rings of each dimension (``bisection_links``)."""
    n = vertices(dims)
    return [n // k * (2 if k > 2 else 1) + (bisection_links(dims[:i] + dims[i + 1:]) if k % 2 else 0)
            for i, k in enumerate(dims)]


def cut_dimensions(dims: tuple[int, ...]) -> tuple[int, ...]:
    """The dimensions whose rings a narrowest bisection cuts (``bisection_links``): every one of equal cost, so a
    lost link of any of them lies across a narrowest cut (a cube's three)."""
    costs = _cut_costs(dims)
    return tuple(i for i, c in enumerate(costs) if c == min(costs))


def cut_dimension(dims: tuple[int, ...]) -> int:
    """The first of ``cut_dimensions``: the dimension whose slab boundary counted failures are taken across first."""
    return cut_dimensions(dims)[0]


def diameter(dims: tuple[int, ...]) -> int:
    """Most links between two vertices (minimal routing): ``sum floor(k_i / 2)``."""
    return sum(k // 2 for k in dims)


def average_hops(dims: tuple[int, ...]) -> float:
    """Mean links between two distinct vertices: ``N / (N - 1) sum floor(k_i^2 / 4) / k_i`` (a ring's mean
    distance over all ``k`` destinations is ``floor(k^2/4) / k``; distances add over dimensions); 0 for one."""
    n = vertices(dims)
    if n < 2:
        return 0.0
    return n / (n - 1) * sum((k * k // 4) / k for k in dims)


def position_of_slot(slot, k: int):
    """Ring position racked at place ``slot`` of a dimension of ``k`` (folded order ``0, k-1, 1, k-2, ...``);
    works on numpy arrays."""
    return np.where(np.asarray(slot) % 2 == 0, np.asarray(slot) // 2, k - (np.asarray(slot) + 1) // 2)


def slot_of_position(position, k: int):
    """Inverse of ``position_of_slot``; works on numpy arrays."""
    p = np.asarray(position)
    return np.where(2 * p < k, 2 * p, 2 * (k - p) - 1)


class Ocs(NamedTuple):
    """Optical circuit switching of a torus of cubes (``ocs_plan``)."""

    cube: int
    """Edge ``c`` of a cube (``c^n`` nodes)."""
    cubes: int
    optical_links: int
    """Links that leave a cube (its faces' links), each through one switch: ``n N w / c``."""
    switches: int
    """Optical circuit switches: ``n c^(n-1) w x ceil(2 cubes / OCS_PORTS)``."""
    ports_used: int
    """Switch ports used, two per optical link."""


def ocs_plan(dims: tuple[int, ...], cube: int, width: int) -> Ocs:
    """The optical circuit switching of ``dims`` in cubes of edge ``cube`` with links of ``width``.

    Every face position of every dimension (``c^(n-1)`` per dimension) and lane has its own switch, joining that
    position's + and - faces of every cube (``2 cubes`` ports, TPU v4: 64 cubes on 128 of 136 ports); more
    cubes than half a switch's ports take several. A link leaves a cube at each of its ``N / c`` face
    crossings per dimension (the wraparound of a dimension of one cube too: it goes through a switch, so
    slices can be rewired)."""
    n, dims_n = vertices(dims), len(dims)
    cubes = n // cube ** dims_n
    optical = dims_n * n // cube * width
    per_position = math.ceil(2 * cubes / OCS_PORTS)
    return Ocs(cube, cubes, optical, dims_n * cube ** (dims_n - 1) * width * per_position, 2 * optical)


def allreduce_phases(dims: tuple[int, ...], width: int, link_gbps: float, size_bytes: float,
                     latency_s: float = 0.0) -> tuple[float, ...]:
    """``allreduce_seconds`` per dimension (its reduce-scatter and all-gather) [s]."""
    phases, share = [], float(size_bytes)
    for k in dims:
        ways = 2 if k > 2 else 1
        step_bytes = share * (k - 1) / k
        phases.append(2 * (step_bytes * 8 / (ways * width * link_gbps * 1e9) + (k - 1) * latency_s))
        share /= k
    return tuple(phases)


def job_block(dims: tuple[int, ...], nodes: int) -> tuple[tuple[int, ...], bool]:
    """The block a job of ``nodes`` consecutive nodes (folded order) spans: its lengths along the dimensions it
    fills (whole dimensions first, then the part of the next, rounded up), and whether every ring of it is whole
    (a part of a ring is a line: its ring collectives run one way, half the bandwidth)."""
    lengths, rest = [], max(1, nodes)
    for k in dims:
        if rest <= 1:
            break
        lengths.append(min(k, rest))
        if rest < k:
            return tuple(lengths), False
        rest = -(-rest // k)
    return tuple(lengths), True


def node_shares(dims: tuple[int, ...], width: int, link_gbps: float, nics: int, nodes: int) -> dict[str, float]:
    """Share of a node's NIC bandwidth (``nics x link_gbps``) the collectives of a job of ``nodes`` nodes keep on a
    torus: ``ring`` (all-reduce as rings per dimension, ``allreduce_seconds``: its bus bandwidth per node over the
    NIC bandwidth; half on a block whose last dimension is a part of a ring) and ``uniform`` (all-to-all,
    ``alltoall_seconds`` of the block, twice as long on a part ring). 1 for one node."""
    block, whole = job_block(dims, nodes)
    n = vertices(block)
    if n < 2:
        return {"ring": 1.0, "uniform": 1.0}
    size = float(2 ** 30)
    nic_bytes = nics * link_gbps * 1e9 / 8
    ring = 2 * (n - 1) / n * size / allreduce_seconds(block, width, link_gbps, size) / nic_bytes
    uniform = size * (n - 1) / n / alltoall_seconds(block, width, link_gbps, size) / nic_bytes
    factor = 1.0 if whole else 0.5
    return {"ring": min(1.0, ring * factor), "uniform": min(1.0, uniform * factor)}


def allreduce_seconds(dims: tuple[int, ...], width: int, link_gbps: float, size_bytes: float,
                      latency_s: float = 0.0) -> float:
    """All-reduce of ``size_bytes`` per vertex as NCCL-like rings, one dimension at a time [s].

    Reduce-scatter along dimension 1 (every ring of it at once), then dimension 2 on the ``1/k_1`` share each
    vertex holds, ... then all-gather back in reverse. Each ring runs both ways (half the data each), at the
    dimension's ``w x link_gbps`` per direction [Gb/s] (one neighbour of a dimension of 2: one way).
    Bytes each vertex sends: ``2 S (1 - 1/N)`` in all, as one flat ring; ``latency_s`` per ring step."""
    return sum(allreduce_phases(dims, width, link_gbps, size_bytes, latency_s))


def alltoall_seconds(dims: tuple[int, ...], width: int, link_gbps: float, size_bytes: float) -> float:
    """All-to-all of ``size_bytes`` per vertex (``S/N`` to every vertex), minimal routing, evenly spread [s]:
    the most of three bounds: the bisection (``S N / 4`` bytes each way over ``bisection_links x w`` links),
    the links (every byte crosses ``average_hops`` links of the ``2 x links x w`` directed ones) and a vertex's
    own ports."""
    n = vertices(dims)
    if n < 2:
        return 0.0
    bits = size_bytes * 8
    link = width * link_gbps * 1e9
    cut = (n // 2) * (n - n // 2) * bits / n / (bisection_links(dims) * link)
    channels = n * bits * (n - 1) / n * average_hops(dims) / (2 * sum(dimension_links(dims)) * link)
    ports = bits * (n - 1) / n / (ports_per_vertex(dims) * link)
    return max(cut, channels, ports)


class LinkLoss(NamedTuple):
    """What one lost link of dimension ``dimension`` does (``link_lost``)."""

    dimension: int
    reroute_hops: int
    """Links between its two ends after the loss: the long way round its ring (``k - 1``), or 3 through a
    neighbouring ring when another dimension has one; 0 when the two nodes are cut apart."""
    ring_slowdown: float
    """Time factor of the ring collectives along its ring: ``w / (w - 1)`` with links left in the bundle, 2 when
    the ring is broken (it runs as a line, one way per link pair)."""
    bisection_links: int
    """Links across the narrowest cut afterwards: one fewer when the lost link's dimension is one of the narrowest
    cut's (``cut_dimensions``; the balanced cut through its ring at the lost link)."""


def link_lost(dims: tuple[int, ...], width: int, dimension: int) -> LinkLoss:
    """One lost link of a ring of ``dimension`` (0-based): the reroute, the ring's slowdown, the bisection.
    The lost link is taken across a narrowest cut when its dimension is one of theirs (the worst case)."""
    k = dims[dimension]
    others = any(j != dimension for j in range(len(dims)))
    if width > 1:
        hops = 1
    elif others:
        hops = min(3, k - 1) if k > 2 else 3
    else:
        hops = k - 1 if k > 2 else 0
    slowdown = width / (width - 1) if width > 1 else 2.0
    cut = bisection_links(dims) * width
    crossed = dimension in cut_dimensions(dims)
    return LinkLoss(dimension, hops, slowdown, cut - (1 if crossed else 0))


# ------------------------------------------------------------------------------------------------- sizing
def default_dims(nodes: int) -> tuple[int, ...]:
    """The most balanced shape of ``nodes`` vertices with every dimension at least 2: 3D if one exists, else 2D,
    else a ring (the fewest links across the widest dimension; ``()`` for fewer than 2)."""
    for n in (3, 2, 1):
        shape = balanced(nodes, n)
        if shape:
            return shape
    return ()


@lru_cache(maxsize=1024)
def balanced(nodes: int, n: int) -> tuple[int, ...]:
    """The ``n`` dimensions (each at least 2, largest first) of product ``nodes`` with the smallest largest
    dimension, then the smallest second; ``()`` if none."""
    if n == 1:
        return (nodes,) if nodes >= 2 else ()
    best = ()
    for first in range(math.ceil(nodes ** (1 / n) - 1e-9), nodes // 2 ** (n - 1) + 1):
        if nodes % first:
            continue
        rest = balanced(nodes // first, n - 1)
        if rest and rest[0] <= first:
            candidate = (first, *rest)
            if not best or candidate < best:
                best = candidate
            break
    return best


def width_of(resolved: ResolvedDesign, dims: tuple[int, ...]) -> int:
    """Links between two neighbours: the node's NICs (one port each, one plane) over its neighbours, rounded
    down."""
    return resolved.nics_per_node // ports_per_vertex(dims)


def size(resolved: ResolvedDesign) -> FabricPlan:
    """Size the torus of ``resolved`` (module docstring; the node ports shared evenly over the neighbours).

    Raises
    ------
    DesignError
        A dimension under 2, dimensions whose product is not the nodes, fewer NIC ports than neighbours, a cube
        edge that does not divide every dimension, per-rail planes, or growth asked (a growth target or stages:
        one rule).
    """
    design = resolved.design
    dims = parse(design.torus_dims) or default_dims(resolved.nodes)
    _check(resolved, dims)
    width = width_of(resolved, dims)
    links = sum(dimension_links(dims)) * width
    cube = design.torus_cube or 0
    why = [ngettext("Torus {dims}: {nodes} nodes, each joined to its {ports} neighbours by {width} link of {speed} "
                    "Gb/s: {links} links in all, node to node, no switches.",
                    "Torus {dims}: {nodes} nodes, each joined to its {ports} neighbours by {width} links of {speed}"
                    " Gb/s: {links} links in all, node to node, no switches.",
                    width).format(
        dims=_dims_text(dims), nodes=f"{resolved.nodes:,}", ports=ports_per_vertex(dims), width=width,
        speed=resolved.port_speed_gbps, links=f"{links:,}"),
        _("Nodes are racked in folded order along every dimension (0, k-1, 1, k-2, ...): every link, the "
          "wraparound too, spans at most two places of its dimension.")]
    if cube:
        ocs = ocs_plan(dims, cube, width)
        why.append(_("{cubes} cubes of {cube}^{n} nodes; the {optical} links that leave a cube run through "
                     "{switches} optical circuit switches ({ports} ports each).").format(
            cubes=f"{ocs.cubes:,}", cube=cube, n=len(dims), optical=f"{ocs.optical_links:,}",
            switches=f"{ocs.switches:,}", ports=OCS_PORTS))
    unused = resolved.nics_per_node - width * ports_per_vertex(dims)
    if unused:
        why.append(ngettext("{unused} NIC port of each node stays unused (not a multiple of its {ports} neighbours).",
                            "{unused} NIC ports of each node stay unused (not a multiple of its {ports} neighbours).",
                            unused).format(unused=unused, ports=ports_per_vertex(dims)))
    return FabricPlan(
        tiers=1, planes=1, topology=resolved.topology, radix=resolved.switch_ports,
        port_speed_gbps=resolved.port_speed_gbps, leaf_down_ports_max=0, nodes_per_group=resolved.nodes,
        leaves_per_group=0, group_count=1, groups_per_pod=1, pod_count=1, leaf_count=0, leaf_uplinks=0,
        spines_per_pod=0, spine_count=0, links_per_leaf_spine_pair=0, spine_uplinks=0, core_groups=0,
        cores_per_group=0, core_count=0, links_per_spine_core_pair=0, partial_pod_spine_uplinks=0,
        node_leaf_links=0, leaf_spine_links=0, spine_core_links=0,
        switch_groups=(), explanation=tuple(why), family=FAMILY, torus_dims=dims, torus_width=width,
        torus_cube=cube, torus_links=links, max_nodes_without_recabling=resolved.nodes, **_speeds(resolved))


def _dims_text(dims: tuple[int, ...]) -> str:
    """``16x16x16``."""
    return "x".join(str(k) for k in dims)


def _check(resolved: ResolvedDesign, dims: tuple[int, ...]) -> None:
    """Raise the ``DesignError`` of dimensions the nodes, NIC ports or cube edge do not fit (ways out re-plan)."""
    nodes, design = resolved.nodes, resolved.design
    if resolved.islands > 1:
        raise DesignError(_("a torus is built with every NIC in every plane, not per-rail planes."),
                          _("Give every NIC a port in every plane."))
    if resolved.planes > 1:
        raise DesignError(_("a torus takes one port of each NIC (one plane), not {planes} planes.").format(
            planes=resolved.planes), _("Use one plane."))
    if resolved.grow_to or design.stages:  # one rule for a growth target and stages (review48 #11)
        raise DesignError(_("growth (a growth target or stages) is not planned for a torus yet: a larger torus "
                            "rewires every ring."),
                          _("Drop the growth target and the stages, and plan each size as a torus of its own."))
    if not dims or min(dims) < 2:
        raise DesignError(_("a torus needs at least 2 nodes, and the design has {nodes}.").format(
            nodes=plurals.nodes(nodes)) if nodes < 2 else _(
            "every torus dimension needs at least 2 nodes (dimensions {dims} for {nodes}).").format(
            dims=_dims_text(dims) or "-", nodes=plurals.nodes(nodes)),
                          _("Use dimensions of at least 2, such as {dims}.").format(
                              dims=_dims_text(default_dims(nodes)) or "2x2"))
    if vertices(dims) != nodes:
        raise DesignError(_("torus dimensions {dims} hold {vertices} nodes, not the {nodes} planned.").format(
            dims=_dims_text(dims), vertices=f"{vertices(dims):,}", nodes=f"{nodes:,}"),
            _("Use dimensions whose product is {nodes}, or plan {vertices} nodes.").format(
                nodes=f"{nodes:,}", vertices=f"{vertices(dims):,}"))
    ports = resolved.nics_per_node
    if ports < ports_per_vertex(dims):
        raise DesignError(ngettext("a node of a {n}-dimensional torus has {needed} neighbours but {ports} NIC port.",
                                   "a node of a {n}-dimensional torus has {needed} neighbours but {ports} NIC ports.",
                                   ports)
                          .format(n=len(dims), needed=ports_per_vertex(dims), ports=ports),
                          _("Use fewer dimensions, or more NIC ports per node."))
    cube = design.torus_cube
    if cube and any(k % cube for k in dims):
        raise DesignError(_("OCS cubes of edge {cube} do not divide the torus dimensions {dims}.").format(
            cube=cube, dims=_dims_text(dims)), _("Use a cube edge that divides every dimension, or no OCS."))


# ------------------------------------------------------------------------------------------------- wiring
@dataclass(frozen=True)
class TorusWiring:
    """How one sized torus is wired: ``Wiring``'s interface for the consumers (ids, links, bundles, bundle
    arrays), ``family`` ``torus``, no switch roles, link class ``torus`` between two nodes' NIC ports."""

    dims: tuple[int, ...]
    width: int
    nodes: int
    port_gbps: int
    cube: int = 0

    family = FAMILY
    spines_with_pods = False
    roles = ROLES
    link_classes = LINK_CLASSES
    tiers = 1
    planes = 1
    islands = 1
    parse = staticmethod(Wiring.parse)
    parse_node = staticmethod(Wiring.parse_node)
    node_id = staticmethod(Wiring.node_id)

    @property
    def up_gbps(self) -> int:
        """Speed of every link, per direction [Gb/s]."""
        return self.port_gbps

    def prefix(self, plane: int = 0, island: int = 0) -> str:
        """Switch id prefix (``Wiring.prefix``; a torus has no switch, so nothing carries it)."""
        return Wiring.prefix(self, plane, island)

    def plane_islands(self) -> list[tuple[int, int]]:
        """One plane, one island: the planes' ports are the links' width."""
        return [(0, 0)]

    def count(self, role: str) -> int:
        """No switches."""
        return 0

    def switch_ids(self, role: str) -> Iterator[str]:
        """No switches."""
        return iter(())

    def all_switch_ids(self) -> Iterator[str]:
        """No switches."""
        return iter(())

    def devices(self, role: str, plane: int = 0, island: int = 0) -> Iterator:
        """No switches."""
        return iter(())

    @staticmethod
    def class_ends(kind: str) -> tuple[tuple[str, str], tuple[str, str]]:
        """A torus link joins two nodes' NIC (up) ports."""
        return ("node", "up"), ("node", "up")

    def spine_up_ports(self, fabric: FabricPlan) -> int:
        """No spines."""
        return 0

    # groups: the layers of the last dimension (the rack layout keeps a layer's racks together) -----------------
    tor = False
    """Not top-of-rack (no leaf at all)."""

    @property
    def groups(self) -> int:
        """Layers of the last dimension (``k_n``)."""
        return self.dims[-1]

    @property
    def nodes_per_group(self) -> int:
        """Nodes of one layer (``N / k_n``)."""
        return self.nodes // self.dims[-1]

    def group_of_node(self, n: int) -> int:
        """Layer of node ``n``."""
        return n // self.nodes_per_group

    def nodes_of_group(self, g: int) -> range:
        """The nodes of layer ``g`` (consecutive: the last dimension varies slowest)."""
        return range(g * self.nodes_per_group, (g + 1) * self.nodes_per_group)

    def leaves_of_group(self, g: int) -> list[int]:
        """No leaves."""
        return []

    # coordinates --------------------------------------------------------------------------------------------
    def coords(self, node):
        """Torus coordinates of node index ``node`` (folded order; an int or an array) as a tuple per dimension."""
        out, rest = [], np.asarray(node)
        for k in self.dims:
            rest, slot = np.divmod(rest, k)
            out.append(position_of_slot(slot, k))
        return tuple(out)

    def node_at(self, coords) -> np.ndarray:
        """Node index of torus coordinates (one per dimension; ints or arrays)."""
        index, stride = 0, 1
        for k, c in zip(self.dims, coords):
            index = index + slot_of_position(np.asarray(c) % k, k) * stride
            stride *= k
        return index

    def degraded_nodes(self, links, lost=()) -> np.ndarray:
        """The nodes a failure degrades, sorted: every node, the ``lost`` ones aside, of a ring that lost a cable
        (``links``: ``(dimension, one of its two nodes)`` of each lost cable) or a node (``lost``: its ring of every
        dimension). That ring runs on fewer links, or as a line, so the ring collectives along it run slower for
        all its nodes, not only at the lost cable's ends: the one definition of a degraded GPU on a torus (the
        failure what-if's count, ``core.analysis.failure.toruswhatif``; the single points' rows,
        ``core.analysis.torusspof``; the what-if card's help, ``WORDS["failure:degraded:help"]``)."""
        every = np.arange(self.nodes)
        lost = np.asarray(sorted(set(lost)), dtype=np.int64)
        cut = [(int(i), int(n)) for i, n in links]
        hit = np.zeros(self.nodes, dtype=bool)
        stride = 1
        for i, k in enumerate(self.dims):
            ring = every - (every // stride) % k * stride  # a ring's id: its node of slot 0 along dimension i
            ends = np.asarray([n for d, n in cut if d == i], dtype=np.int64)
            hit |= np.isin(ring, ring[np.concatenate([ends, lost])])
            stride *= k
        hit[lost] = False
        return np.flatnonzero(hit)

    def neighbour(self, node: int, dimension: int, step: int) -> int:
        """The node ``step`` (+1 or -1) along ``dimension`` from ``node``."""
        coords = list(self.coords(node))
        coords[dimension] = coords[dimension] + step
        return int(self.node_at(coords))

    def pair_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every neighbour pair once: ``(dimension, node a, node b)`` arrays, ``b`` the + neighbour of ``a``
        (a dimension of 2 only from its position 0), dimension by dimension, ``a`` rising."""
        every = np.arange(self.nodes)
        coords = self.coords(every)
        dims, firsts, seconds = [], [], []
        for i, k in enumerate(self.dims):
            a = every if k > 2 else every[coords[i] == 0]
            moved = [c[a] for c in coords]
            moved[i] = moved[i] + 1
            dims.append(np.full(len(a), i))
            firsts.append(a)
            seconds.append(self.node_at(moved))
        return np.concatenate(dims), np.concatenate(firsts), np.concatenate(seconds)

    def port(self, dimension: int, step: int, lane: int) -> int:
        """NIC port ordinal of ``lane`` toward the ``step`` (+1/-1) neighbour along ``dimension``."""
        slot = sum(2 if k > 2 else 1 for k in self.dims[:dimension]) + (0 if step > 0 or self.dims[dimension] == 2
                                                                          else 1)
        return slot * self.width + lane

    # links ------------------------------------------------------------------------------------------------
    def links(self, plane: int = 0, island: int = 0) -> Iterator[Link]:
        """Every cable: neighbour pair by pair (``pair_arrays``), lane by lane; the + end's port is its + slot."""
        new, speed, lanes = tuple.__new__, self.port_gbps, range(self.width)
        plus = [[self.port(i, 1, lane) for lane in lanes] for i in range(len(self.dims))]
        minus = [[self.port(i, -1, lane) for lane in lanes] for i in range(len(self.dims))]
        names = [self.node_id(n) for n in range(self.nodes)]
        for i, a, b in zip(*(x.tolist() for x in self.pair_arrays())):
            up, down = plus[i], minus[i]
            if a < b:
                first, second = names[a], names[b]
                for lane in lanes:
                    yield new(Link, ("torus", first, up[lane], second, down[lane], speed))
            else:
                first, second = names[b], names[a]
                for lane in lanes:
                    yield new(Link, ("torus", first, down[lane], second, up[lane], speed))

    def bundles(self, plane: int = 0, island: int = 0) -> Iterator[Bundle]:
        """One bundle of ``width`` links per neighbour pair (``pair_arrays`` order)."""
        _dims, a, b = self.pair_arrays()
        node = self.node_id
        for x, y in zip(a.tolist(), b.tolist()):
            first, second = (x, y) if x < y else (y, x)
            yield Bundle("torus", node(first), node(second), self.width, self.port_gbps)

    def bundle_arrays(self, kind: str) -> tuple[str, np.ndarray, str, np.ndarray, np.ndarray]:
        """``Wiring.bundle_arrays`` of class ``torus``: node to node, ``width`` links each."""
        _dims, a, b = self.pair_arrays()
        return "node", np.minimum(a, b), "node", np.maximum(a, b), np.full(len(a), self.width, dtype=np.int64)


def wiring(fabric: FabricPlan, nodes: int, nics: int) -> TorusWiring:
    """The torus wiring of ``fabric`` (``core.fabric.families``)."""
    return TorusWiring(dims=fabric.torus_dims, width=fabric.torus_width, nodes=nodes, port_gbps=fabric.port_speed_gbps,
                       cube=fabric.torus_cube)


# ---------------------------------------------------------------------------------- bandwidth, hops, summary
def capacities_gbits(resolved: ResolvedDesign, fabric: FabricPlan) -> dict[str, float]:
    """``core.fabric.bandwidth.tier_capacities_gbits`` of a torus: the injection, every node's used NIC ports
    (two per link) at the port speed, one direction [Gb/s]; no tier above."""
    return {"injection": 2 * fabric.torus_links * fabric.port_speed_gbps}


def cabled_ports(fabric: FabricPlan) -> int:
    """NIC ports of each node its links use (``core.fabric.families.cabled_nics``): ``width`` to each of its
    ``ports_per_vertex`` neighbours; the node's other ports stay unused (``size`` says how many)."""
    return fabric.torus_width * ports_per_vertex(fabric.torus_dims)


def bisection_gbits(resolved: ResolvedDesign, fabric: FabricPlan, injection_gbits: float,
                    leaf_up_gbits: float) -> float:
    """Bisection bandwidth, one direction [Gb/s]: ``bisection_links x width`` links at the port speed."""
    return bisection_links(fabric.torus_dims) * fabric.torus_width * fabric.port_speed_gbps


def span_hops(dims: tuple[int, ...], nodes: int) -> int:
    """Links between the farthest two of the first ``nodes`` nodes (folded order: the first dimension fastest, each
    ring's slots an arc around position 0), minimal routing on the whole torus. An arc of ``s`` positions of a ring
    of ``k`` spans ``min(s - 1, k // 2)``; once a job fills the first dimension's ring, any two distinct rows of the
    dimensions above have one whole (at most the last row is partial), so the first adds its ``k // 2``. The
    whole torus: its ``diameter``; the tests check it against networkx shortest paths."""
    nodes = min(max(1, nodes), vertices(dims))
    if not dims or nodes <= 1:
        return 0
    k = dims[0]
    if nodes <= k:
        return min(nodes - 1, k // 2)
    return k // 2 + span_hops(dims[1:], -(-nodes // k))


def job_hops(fabric: FabricPlan, nodes: int) -> int:
    """``core.fabric.families.job_hops``: links between a job's farthest nodes (``span_hops``)."""
    return span_hops(fabric.torus_dims, nodes)


class Hops(NamedTuple):
    """Links a packet crosses between two nodes (minimal routing; a torus has no switch, every node forwards)."""

    same_leaf: int
    """A neighbour: 1."""
    same_group: int
    """The farthest pair: the diameter."""
    other_group: int
    valiant: int


HOP_NAMES = {"same_rail": "neighbour", "same_rail_other_su": "farthest", "cross_rail": "farthest",
             "cross_pod": "farthest"}
"""The plan JSON's hop counts (``core.fabric.families.PLAN_HOPS``) by what they count here (``hop_counts``: links to
a neighbour, links between the farthest nodes, the diameter): ``core.fabric.families.hops_key``."""


def hop_counts(wiring: TorusWiring) -> Hops:
    """Hop counts of a torus (``Hops``): neighbours 1, the farthest pair the diameter."""
    far = diameter(wiring.dims)
    return Hops(1, far, far, 0)


def summary(fabric: FabricPlan, bandwidth) -> dict:
    """``Plan.summary()``'s ``torus`` entry: shape, links, bisection, hops, the OCS and the collectives' model
    (all-reduce and all-to-all of 1 GiB per node, in seconds and bus bandwidth [GB/s])."""
    dims, width, speed = fabric.torus_dims, fabric.torus_width, fabric.port_speed_gbps
    n = vertices(dims)
    size_bytes = 2 ** 30
    allreduce = allreduce_seconds(dims, width, speed, size_bytes)
    out = {"dims": list(dims), "width": width, "link_gbps": speed, "ports_per_node": ports_per_vertex(dims) * width,
           "links": sum(dimension_links(dims)) * width,
           "links_per_dimension": [x * width for x in dimension_links(dims)],
           "bisection_links": bisection_links(dims) * width, "diameter_hops": diameter(dims),
           "average_hops": round(average_hops(dims), 4), "layout": "folded",
           "allreduce_1GiB_s": round(allreduce, 6),
           "allreduce_busbw_gbytes": round(2 * (n - 1) / n * size_bytes / allreduce / 1e9, 3) if allreduce else 0.0,
           "alltoall_1GiB_s": round(alltoall_seconds(dims, width, speed, size_bytes), 6),
           "collectives": "rings per dimension, both ways; reduce-scatter then all-gather dimension by dimension",
           "twisted": False}
    if fabric.torus_cube:
        ocs = ocs_plan(dims, fabric.torus_cube, width)
        out["ocs"] = {"cube": ocs.cube, "cubes": ocs.cubes, "optical_links": ocs.optical_links,
                      "switches": ocs.switches, "ports_used": ocs.ports_used, "ports_per_switch": OCS_PORTS}
    return {"torus": out}


def tier_words(fabric: FabricPlan, counts: bool = False) -> str:
    """No switch tiers (``core.fabric.families.tier_words``: the plan CLI's headline): node to node."""
    return _("node to node, no switches")


def ways_out(design) -> list[tuple[str, dict]]:
    """Candidate changes for ``core.plan.ways_out``: the balanced 3D, 2D and ring shapes of the nodes, the nodes
    of the dimensions asked, no OCS cube. Each is re-planned there; only those that build are offered. The nodes are
    the resolved design's (``_planned_nodes``), so a design sized in GPUs gets the same ways out as in nodes."""
    out = []
    nodes = _planned_nodes(design)
    dims = parse(design.torus_dims)
    if nodes:
        for n in (3, 2, 1):
            shape = balanced(nodes, n)
            if shape and shape != dims:
                out.append((_("use torus dimensions {dims}").format(dims=_dims_text(shape)),
                            {"torus_dims": _dims_text(shape)}))
    if dims and min(dims) >= 2 and vertices(dims) != nodes:
        out.append((_("plan {nodes} nodes").format(nodes=f"{vertices(dims):,}"),
                    {"nodes": vertices(dims), "gpus": None}))
    if design.torus_cube is not None:
        out.append((_("drop the OCS cubes"), {"torus_cube": None}))
    return out


def _planned_nodes(design) -> int | None:
    """The nodes ``design`` plans, sized in nodes or in GPUs (``core.design.resolve_design``'s count); its
    ``nodes`` field when it does not resolve (then no balanced shape is offered for a count it does not have)."""
    from core.errors import FabricPlannerError

    try:
        from core.design import resolve_design

        return resolve_design(design).nodes
    except FabricPlannerError:
        return design.nodes
