"""The optimizer: the cheapest design on a stated grid that meets every constraint, and the Pareto front.

``optimize(gpu, gpus, constraints, grid, base=design)`` starts every candidate from ``base`` (the web app passes
the sidebar's design: every field the grid does not set is kept, ``base_design``) and enumerates every
combination of the engine's choices on
``grid`` (fabric, leaf switch, spine/core switch, port speed, uplink speed i.e. breakout, NIC,
planes and plane mode, topology, tiers, leaf oversubscription), plans each buildable one with the
engine's own stages (``resolve_design``, ``size_fabric``, ``compute_bandwidth``, ``build_bom``,
``summarize_cost``: the same functions ``core.plan.plan`` runs, so every number is the full plan's),
checks the constraints and returns the cheapest feasible design (capex at the design's price basis, of the
whole cluster or of the compute fabric alone as ``objective`` says, ``OBJECTIVES``; ties: fewer switches, then
grid order), the Pareto front of capex against performance (all-reduce
busbw [GB/s] at ``constraints.busbw_size``, higher better; or days to train the job, lower better),
``considered`` (grid candidates), ``feasible``, ``rejected`` (count per reason: the first constraint
a candidate fails in ``CONSTRAINT_ORDER``, or the engine's ``DesignError``/``InputError`` message)
and ``seconds``.

Exactness: nothing is approximated. Speed comes from structure that does not change any number:

* a resolution serves every design that differs only in tiers or oversubscription (resolving reads
  neither, ``_UNRESOLVED``), its errors counted without sizing (a family whose resolution raised gives its
  explicit-tier designs that reason without resolving them again);
* design-only checks (tiers above ``max_tiers`` asked explicitly) need no plan; plan-level checks run
  in stage order (tiers after sizing; oversubscription, bisection and hops after bandwidth; budget
  and power after the bill of materials), and the collective (the most expensive step after
  planning) and the training estimate run only for candidates that passed every plan-level check;
* the engine's stages are cached by their arguments (``core.memo.stage``; a stage that reads part of a larger
  object takes a view of that part, ``core.memo.view``, so its key is what it reads): the collective
  algorithms' curves (``core.perf.collectives``: candidates that place the ranks alike share them), the other
  networks and their priced rows (``core.networks.sized_networks``, ``core.cost.network_rows_of``), the cable
  lengths of the rack arrangement (``core.physical.layout.arrange``, the racks of one SU size once, no rack
  objects built; ``core.physical.lengths.placed_link_lengths``: candidates whose racks stand in the same places
  share them) and the media per length bin (``core.physical.media.chosen_media``);
* bounds before detail (``bounded``): each candidate's capex floor (``core.cost.cost_floor``: its counts priced,
  at the unit rows its run's resolution prices once, ``core.cost.floor_units``, and the compute links at the least
  their media can cost from the rack geometry alone, ``core.cost.links_floor``;
  when only ``_decide`` reads it, the other networks at their least, ``core.cost.network_floor_rows``, their PDUs
  those of the fewest racks the layout may build, ``core.cost.least_racks``, and the
  links added only to a candidate the floor without them does not decide, ``_Evaluator.link``: two in three)
  orders the costing, and a feasible candidate that a costed one dominates by it is decided without its physical
  layer and bill (``_decide``; the workers of a parallel search share their costed candidates, ``_Witnesses``);
  one that floor does not decide has it raised first by its node-leaf links' length bins read from its SUs alone
  (``_Evaluator.su_bins``: the bins every arrangement of it gives, without arranging its racks), then by its rack
  arrangement's length bins (``_Evaluator.refine``: each bin at the least its media may cost, within a few percent
  of the bill's links, and may draw, ``core.analysis.linkpower``) before it is costed. The floor is the
  objective's (``floor_of``: capex, compute fabric capex, TCO or cost per GPU-hour; with days or the cost per token
  as the objective, the front's capex and that performance). Under a budget or power limit nothing is pruned (a
  pruned candidate must be feasible), but one the raised floors put over the limit is ruled out without its bill
  (``_Evaluator.refused``);
* the collector is paused for a search (``_collector_paused``): it builds tens of thousands of short-lived
  objects and no cycles;
* large grids are split over the machine's cores (``workers``) in chunks handed to whichever worker is
  free, each worker running the same code and sending back tuples of numbers.

``tests/test_memo.py`` checks every cached stage against its uncached function, and ``tests/test_optimize.py``
checks every costed candidate against a fresh ``core.plan.plan`` and sweep of its design (caches cleared), to the
cent and bit for bit.

The winner is re-planned through ``core.plan.plan`` and re-checked before it is returned
(``OptimizeResult.best_plan``), so the optimizer never returns what the full plan would reject.

Performance metric of the front: busbw of all-reduce over every GPU of the design at
``busbw_size`` bytes (stock NCCL algorithms, ``core.perf.collectives.sweep``), GB/s one direction;
with a job (``constraints.job``) the metric is days to train at the job's fastest split on each design
(``core.analysis.jobsplit``: the split search of ``python -m core train``, cached by what it reads), run only for
candidates that met every other constraint checked before the floor (it reads no bill, so the bounds decide job
candidates by their days as they decide the others by busbw). With a serving target the serving search reads no
bill either (``core.analysis.servingstep.served_before_bill``): without a budget or power limit (and with a job, for a
candidate whose split meets the job's limits) it runs before
the physical layer (``_Evaluator.early_serving``), a candidate it cannot serve or whose cost per token at its floor TCO
exceeds the limit is ruled out there, and the bounds decide the others by that floor's cost per token
(``_best_performance``); ruled-out candidates the explanation may name are costed after (``_served_floored``).

Languages: reasons and the explanation are in the language of the request (``core.i18n``); the
result's keys and ids are English.
"""

from __future__ import annotations

import bisect
import gc
import heapq
import itertools
import json
import math
import operator
import os
import time
from contextlib import contextmanager
from dataclasses import astuple, dataclass, field
from types import SimpleNamespace
from typing import Iterable, NamedTuple

from core import plurals, units, vocab
from core.catalog import Catalog, load_catalog
from core.cost import (FloorUnits, Pricing, build_bom, cost_floor, floor_units, in_compute_fabric, least_racks,
                       links_binned_raise,
                       links_cost_floor, network_floor_rows, network_floor_rows_of,
                       priced_network_rows, summarize_cost)
from core.design import Design, field_bounds, offered_port_speeds, resolve_design, tidy_spaces
from core import progress
from core.analysis import jobsplit
from core.analysis.linkpower import links_power_floor
# the objective, what the best design minimises, is declared in core.analysis.objectives (its names re-exported)
from core.analysis.objectives import OBJECTIVES, OBJECTIVE_WORDS, capex_of, objective_word  # noqa: F401
from core.analysis.objectives import MONEY, PER_UNIT, cost_axis, floor_of, objective_text, places
from core.analysis.objectives import check_objective as _check_objective
from core.analysis.objectives import order as _order
from core.processes import die_with_parent, usable_cpus
from core.errors import DesignError, FabricPlannerError, InputError, shown
from core.fabric import domainlevels
from core.fabric.bandwidth import compute_bandwidth
from core.fabric.families import FAMILIES, node_to_node, unsearched_fields, words
from core.fabric.sizing import size_fabric
from core.physical.lengths import arranged_link_lengths, su_node_leaf_lengths
from core.physical.media import select_media
from core.i18n import N_, _, current, join, ngettext, number, pgettext, usd
from core.i18n import language as speaking
from core.perf.sizes import format_size
from core.plan import Plan, as_built, plan
from core.analysis.perfview import BusbwPlan
from core.perf.commview import BusbwResolved, PerfBandwidth, PerfCalibration, PerfFabric
from core.networks import NetworkInputs
from core.memo import copied, spoken, stage
from core.perf import congestion
from core.perf.collectives import busbw_at, nccl_release, nccl_release_now

GIB = 1 << 30
FABRICS = ("infiniband", "ethernet")
FAMILY_TOPOLOGIES = tuple(FAMILIES)
"""Topologies sized by a topology family of their own (``core.fabric.families``: Dragonfly+), not by tiers."""
DEFAULT_TOPOLOGIES = ("rail-optimized", "top-of-rack", "rail-only", "dragonfly")
"""Topologies of the default grid (the Optimize page's, the CLI's ``--topologies``): the folded Clos ones and
Dragonfly+ (tried once per shape; a shape it cannot build, per-rail planes say, is ruled out by the engine's
reason)."""


def default_topologies(topology: str | None = None) -> tuple[str, ...]:
    """The topologies a search from a design of ``topology`` tries unless told: ``DEFAULT_TOPOLOGIES`` and the
    design's own (a torus, a classic Dragonfly), as every page works on the sidebar's design."""
    return tuple(dict.fromkeys((*DEFAULT_TOPOLOGIES, *([topology] if topology else []))))


DEFAULT_OVERSUBSCRIPTION = (1.0, 1.5, 2.0, 3.0)
"""Leaf down:up ratios of the default grid."""
PARALLEL_FROM = 400
"""Candidates from which the search is split over worker processes."""

CONSTRAINT_ORDER = ("min_planes", "max_tiers", "max_oversubscription", "max_bisection_ratio",
                    "min_bisection_gbytes_per_gpu", "max_hops",
                    "min_busbw_gbytes", "budget_usd", "max_power_kw", "max_step_s", "max_days", "serving_target",
                    "max_usd_per_million_tokens")
"""Order in which constraints are checked; a rejected candidate is counted under the first it fails."""

CONSTRAINT_WORDS = {
    "fabric": N_("fabric allowed"),
    "switches": N_("switch models allowed"),
    "min_planes": N_("required planes"),
    "max_tiers": N_("maximum tiers"),
    "max_oversubscription": N_("maximum oversubscription"),
    "max_bisection_ratio": N_("maximum bisection ratio"),
    "min_bisection_gbytes_per_gpu": N_("minimum bisection per GPU (bisection / all GPUs)"),
    "max_hops": N_("maximum switch hops"),
    "budget_usd": N_("budget"),
    "max_power_kw": N_("maximum power"),
    "min_busbw_gbytes": N_("minimum all-reduce busbw"),
    "max_step_s": N_("maximum step time"),
    "max_days": N_("maximum days to train"),
    "serving_target": N_("serving load within TTFT and TPOT"),
    "max_usd_per_million_tokens": N_("maximum cost per million output tokens"),
}
"""Constraint key -> its name in messages, marked for translation."""


def constraint_word(key: str) -> str:
    return _(CONSTRAINT_WORDS[key]) if key in CONSTRAINT_WORDS else key


@dataclass(frozen=True)
class Constraints:
    """What the design must meet; ``None`` = no limit.

    Units: ``max_bisection_ratio`` the bisection ratio, dimensionless, ``Bandwidth.bisection_ratio``
    (``core.fabric.bandwidth.bisection_ratio``: half of all GPUs' injection bandwidth over the bisection
    bandwidth, both one direction; 1.0 reads 1:1 = non-blocking, 2.0 reads 2:1, a GPU gets half its NIC rate
    across the worst balanced cut); ``min_bisection_gbytes_per_gpu`` the older constraint, kept so old links and
    scripts mean what they meant: GB/s per GPU one direction as bisection / all GPUs (the comparison's
    ``bisection_gbytes_per_gpu``, which reads half the NIC rate for a non-blocking fabric); ``min_busbw_gbytes`` GB/s (nccl-tests busbw) of
    all-reduce over every GPU at ``busbw_size`` bytes; ``max_power_kw`` facility power with PUE [kW];
    ``budget_usd`` capex [USD] at the design's price basis; ``max_step_s`` [s] and ``max_days`` [days]
    for ``job`` (a ``core.perf.training.TrainingJob``); ``max_hops`` the most switches any path crosses (a family
    without switches, a torus, crosses none: ``Candidate.switch_hops``).
    ``serving`` (a ``core.perf.serving.Deployment``: its model, mode, precisions and workload; the splits are
    searched) asks that the design serve the workload's request rate within its TTFT and TPOT targets
    (``core.perf.serving_search.search``), at most ``max_usd_per_million_tokens`` [USD per million output
    tokens] (the deployment's share of the design's TCO).
    ``fabric`` is ``any``, ``infiniband`` or ``ethernet``; ``switches`` the models allowed at every tier.
    """

    fabric: str = "any"
    switches: tuple[str, ...] | None = None
    max_oversubscription: float | None = None
    min_bisection_gbytes_per_gpu: float | None = None
    max_bisection_ratio: float | None = None
    max_hops: int | None = None
    min_busbw_gbytes: float | None = None
    busbw_size: int = GIB
    max_tiers: int | None = None
    max_power_kw: float | None = None
    budget_usd: float | None = None
    job: object | None = None
    max_step_s: float | None = None
    max_days: float | None = None
    serving: object | None = None
    max_usd_per_million_tokens: float | None = None
    min_planes: int | None = None
    """Fewest network planes (redundancy: a design of ``n`` planes keeps running on ``n - 1`` when a plane's
    switch fails); the grid then also tries this plane count."""

    def tightened(self, **changes) -> "Constraints":
        data = {k: getattr(self, k) for k in self.__dataclass_fields__}
        data.update(changes)
        return Constraints(**data)


@dataclass(frozen=True)
class Grid:
    """The search space. ``None`` = every catalog value that applies.

    ``uplinks``: ``"same"`` runs leaf uplinks at the port speed; ``"faster"`` at the next faster speed
    the leaf also offers (a breakout: e.g. 800G uplinks, 2 x 400G toward NICs). ``mixed_tiers``: the
    spine/core model may differ from the leaf (every fabric switch of the uplink speed), else one model.
    """

    fabrics: tuple[str, ...] = FABRICS
    switches: tuple[str, ...] | None = None
    port_speeds: tuple[int, ...] | None = None
    uplinks: tuple[str, ...] = ("same", "faster")
    nics: tuple[str, ...] | None = None
    """NIC models to try; ``None``: the engine's default NIC for the system, fabric and port speed."""
    planes: tuple[int, ...] = (1, 2)
    plane_modes: tuple[str, ...] = ("per-port", "per-rail")
    topologies: tuple[str, ...] = DEFAULT_TOPOLOGIES
    tiers: tuple[int, ...] = (1, 2, 3)
    oversubscription: tuple[float, ...] = DEFAULT_OVERSUBSCRIPTION
    mixed_tiers: bool = True


@dataclass
class Candidate:
    """One evaluated design: its metrics when buildable, the reason when not."""

    index: int
    design: Design
    reason: str = ""
    """Empty when feasible; else a constraint key (``CONSTRAINT_ORDER``) or the engine's message."""
    capex_usd: float = math.nan
    network_capex_usd: float = math.nan
    scaleup_capex_usd: float = 0.0
    """A second NVLink level's parts in ``network_capex_usd`` [USD] (``CostSummary.scaleup_capex_usd``)."""
    switches: int = 0
    tiers: int = 0
    facility_kw: float = math.nan
    oversubscription: float = math.nan
    bisection_gbytes_per_gpu: float = math.nan
    bisection_ratio: float = math.nan
    hops: int = 0
    islands: int = 1
    """Independent fabrics per plane (``Bandwidth.islands``: the rails of rail-only, per-rail planes), joined only
    through the nodes (NVLink, PXN)."""
    busbw_gbytes: float = math.nan
    step_s: float = math.nan
    days: float = math.nan
    usd_per_mtok: float = math.nan
    """Cost per million output tokens of the cheapest deployment serving ``Constraints.serving`` [USD]."""
    serving_gpus: int = 0
    """GPUs that deployment uses."""
    tco_usd: float = math.nan
    """Total cost of ownership [USD] (``CostSummary.tco_usd``: capex and the energy of the design's TCO years)."""
    split: tuple = ()
    """With a training job: the fastest split found on this design (``core.analysis.jobsplit.Split``'s fields:
    tp, pp, ep, dp, global batch, step time [s], days), the one its days are of."""
    network_by_category: dict = field(default_factory=dict)
    """The compute fabric's capex by bill category [USD] (``core.cost.in_compute_fabric``'s rows: NICs, switches,
    transceivers, cables; not the storage or management networks', nor the UFM's links): they add up to
    ``network_capex_usd``, so ``why_costlier``'s "spends more on" and the capex outside the fabric do not overlap."""
    failed: tuple[str, ...] = ()
    """Every plan-level constraint it fails (those checked before its first failure and that one)."""
    capex_floor_usd: float = math.nan
    """Lower bound on ``capex_usd`` without a layout (``core.cost.cost_floor``) [USD]."""
    network_floor_usd: float = math.nan
    """Lower bound on ``network_capex_usd`` (``core.cost.cost_floor``) [USD]."""
    power_floor_kw: float = math.nan
    """Lower bound on ``facility_kw`` (``core.cost.cost_floor``) [kW]."""
    tco_floor_usd: float = math.nan
    """Lower bound on ``tco_usd`` (``core.cost.cost_floor``) [USD]."""
    usd_per_mtok_floor: float = math.nan
    """With a serving target, searched before the bill (``_Evaluator.early_serving``): a lower bound on
    ``usd_per_mtok`` (its deployment at ``tco_floor_usd``) [USD per million output tokens]."""
    pruned: bool = False
    """Decided by its bounds: it met every constraint checked before the physical layer, and a costed candidate of
    its switch family (and of its traffic class) is cheaper than its capex floor with at least its performance,
    so it is neither the optimum, on the front, nor any family's cheapest (``_prune``); its capex and power were
    not computed."""
    resolved: object = field(default=None, repr=False, compare=False)
    """The resolved design while the family is evaluated (``_evaluate_family``), else None."""
    pending: object = field(default=None, repr=False, compare=False)
    """What ``_Evaluator.detail`` reads while the candidate waits for it (``evaluate(detail=False)``), else None."""

    @property
    def feasible(self) -> bool:
        return not self.reason

    @property
    def costed(self) -> bool:
        """Feasible with its capex and power known (not ``pruned``): what the optimum, the front and each
        family's cheapest are chosen from."""
        return not self.reason and not self.pruned

    @property
    def planes(self) -> int:
        return self.design.planes

    @property
    def switch_hops(self) -> int | None:
        """The most switches a path crosses (``hops``), what ``Constraints.max_hops`` limits; None on a family
        without switches (``core.fabric.families.node_to_node``: a torus, whose ``hops`` are links between nodes, a
        row of their own in Compare, ``core.analysis.compare.HOPS_KEYS``)."""
        return None if node_to_node(self.design.topology) else self.hops

    def metrics(self) -> dict:
        """The JSON's numbers of this candidate; its most hops under the key that says what they count
        (``core.analysis.compare.HOPS_KEYS``: ``hops_max`` the switches crossed, a torus's ``hops_node_max`` the
        links crossed between nodes)."""
        from core.analysis.compare import HOPS_KEYS

        return {"capex_usd": round(self.capex_usd, 2), "network_capex_usd": round(self.network_capex_usd, 2),
                "switches": self.switches, "tiers": self.tiers, "facility_kw": round(self.facility_kw, 3),
                "oversubscription": round(self.oversubscription, 4),
                "bisection_gbytes_per_gpu": round(self.bisection_gbytes_per_gpu, 4),
                "bisection_ratio": round(self.bisection_ratio, 4),
                HOPS_KEYS[self.switch_hops is None]: self.hops,
                "busbw_gbytes": None if math.isnan(self.busbw_gbytes) else round(self.busbw_gbytes, 3),
                "step_time_s": None if math.isnan(self.step_s) else round(self.step_s, 4),
                "days_to_train": None if math.isnan(self.days) else round(self.days, 3),
                "usd_per_million_output_tokens": None if math.isnan(self.usd_per_mtok) else round(self.usd_per_mtok, 4),
                "serving_gpus": self.serving_gpus or None,
                "tco_usd": None if math.isnan(self.tco_usd) else round(self.tco_usd, 2),
                "split": dict(zip(("tp", "pp", "ep", "dp", "global_batch"), self.split[:5])) if self.split else None}


@dataclass
class OptimizeResult:
    best: Candidate | None
    best_plan: Plan | None
    pareto: list[Candidate]
    considered: int
    feasible: int
    rejected: dict[str, int]
    seconds: float
    costed: int
    """Candidates laid out and costed in full (racks, cables and the bill of materials: capex and power known),
    feasible or ruled out after; the rest were ruled out before, cannot be built or were decided by their bounds
    (``pruned``; which ones varies with the workers' timing)."""
    sizings: int
    """Fabric sizings run (``size_fabric``; candidates that differ only in the NIC model share one)."""
    metric: str
    """A ``PERFORMANCE`` key: the front's performance axis."""
    explanation: list[str]
    other_family: Candidate | None = None
    """The cheapest feasible design of the other fabric family (InfiniBand vs Ethernet)."""
    candidates: list[Candidate] = field(default_factory=list, repr=False)
    objective: str = "cluster"
    """What ``best`` minimises and the front's capex axis is (``OBJECTIVES``)."""
    constraints: Constraints | None = field(default=None, repr=False)
    """The constraints searched under (what ``explained`` words the choice against)."""
    pruned: int = 0
    """Feasible candidates decided by their bounds without being costed (``Candidate.pruned``)."""

    def explained(self, unit: str = "GB/s") -> list[str]:
        """``explanation`` with bandwidth in ``unit`` (``GB/s`` or ``Gb/s``, the user's choice; the search
        itself is unit-free, so a cached result is worded again rather than searched again)."""
        if self.best is None or self.constraints is None:
            return list(self.explanation)
        return explain(self.best, self.other_family, self.candidates, self.constraints, self.metric,
                       self.objective, unit, self.best_plan)

    def summary(self) -> dict:
        """JSON-ready: ``best.design`` (a design JSON), ``best.summary`` (the plan summary), ``pareto[]``,
        ``considered``, ``feasible``, ``rejected``, ``seconds``."""
        best = None
        if self.best is not None and self.best_plan is not None:
            best = {"design": json.loads(self.best.design.to_json()), "summary": self.best_plan.summary(),
                    "metrics": self.best.metrics(), "explanation": self.explanation}
        return {
            "best": best,
            "pareto": [{"design": json.loads(c.design.to_json()), "metrics": c.metrics()} for c in self.pareto],
            "metric": self.metric, "objective": self.objective,
            "considered": self.considered, "costed": self.costed, "sizings": self.sizings, "pruned": self.pruned,
            "feasible": self.feasible,
            "rejected": dict(sorted(self.rejected.items(), key=lambda kv: (-kv[1], kv[0]))),
            "seconds": round(self.seconds, 3),
        }


# --- the grid -----------------------------------------------------------------------------------

def _fabrics(constraints: Constraints, grid: Grid) -> list[str]:
    if constraints.fabric not in ("any", *FABRICS):
        raise InputError(_("fabric must be any, infiniband or ethernet (got {value})").format(
            value=constraints.fabric))
    return [f for f in grid.fabrics if constraints.fabric in ("any", f)]


def _allowed_switches(catalog: Catalog, constraints: Constraints, grid: Grid) -> set[str]:
    """The switch models a search tries: those both ``constraints.switches`` and ``grid.switches`` allow; when
    neither names any, the catalog's switches in the default grid (``Switch.default_grid``: a maker's build of a
    chip the grid already has joins when asked by model or maker)."""
    allowed = None
    for names in (constraints.switches, grid.switches):
        if names is None:
            continue
        ids = set()
        for name in names:
            ids.add(catalog.switch(name).id)  # InputError for an unknown model
        allowed = ids if allowed is None else allowed & ids
    return allowed if allowed is not None else {s.id for s in catalog.switches if s.default_grid}


def base_design(gpu: str, gpus: int, base: Design | None = None, catalog: Catalog | None = None) -> Design:
    """The design every candidate starts from: ``base`` (e.g. the web app's sidebar design) with its GPU model
    ``gpu`` and ``gpus`` GPUs, and the fields the search sets (``GRID_FIELDS``, and ``switch``, which the per-tier
    models replace) back at their defaults; every other field (GPUs per node, NVLink domain, nodes per rack, spine
    oversubscription, cable media, prices, power, storage, management, spares, growth, ...) is ``base``'s.
    Without ``base``: ``Design(gpu=gpu, gpus=gpus)``."""
    catalog = catalog or load_catalog()
    system = catalog.system(gpu)
    if base is None:
        return Design(gpu=system.id, gpus=gpus)
    if base.gpu != system.id:
        raise InputError(_("the base design's GPU ({base}) is not the GPU searched ({gpu})").format(
            base=base.gpu, gpu=system.id))
    defaults = Design.model_fields
    searched = {name: defaults[name].get_default(call_default_factory=True) for name in (*GRID_FIELDS, "switch")}
    data = {**base.model_dump(), **searched, "nodes": None, "gpus": gpus}
    return Design(**data)


def candidate_designs(gpu: str, gpus: int, constraints: Constraints, grid: Grid | None = None,
                      catalog: Catalog | None = None, base: Design | None = None) -> list[Design]:
    """Every design of ``grid`` for ``gpus`` x ``gpu`` that the constraints' fabric and switch lists
    allow, in a fixed order (the brute-force reference and the optimizer use this same list); each is
    ``base_design(gpu, gpus, base)`` with the grid's fields set. A family's design (a Dragonfly, a torus) takes the
    fields it does not search (``core.fabric.families.unsearched_fields``: a torus's switch models, uplinks, tiers,
    leaf ratio and planes) at the base's values, once: a torus once per fabric, port speed and NIC."""
    grid = grid or Grid()
    catalog = catalog or load_catalog()
    system = catalog.system(gpu)
    allowed = _allowed_switches(catalog, constraints, grid)
    most_planes = int(field_bounds("planes")[1])
    if constraints.min_planes is not None and not 1 <= constraints.min_planes <= most_planes:
        raise InputError(_("fewest planes must be from 1 to {most} (a design has at most {most} planes), got {value}")
                         .format(most=most_planes, value=shown(constraints.min_planes)))
    plane_counts = tuple(sorted({*grid.planes, constraints.min_planes})) if constraints.min_planes else grid.planes
    out: list[Design] = []
    base = base_design(system.id, gpus, base, catalog)
    base_data = base.model_dump()
    checked: set[tuple] = set()
    inner_checked = False
    inner: list[tuple[dict, tuple[str, ...]]] = []  # the innermost loops' fields (``_inner_fields``), once checked
    tried: set[tuple] = set()  # a family's designs with its unsearched fields at the base's values, each once

    def check(**fields) -> None:
        """Run each field's validators once per distinct value (they read no other field)."""
        for key, value in fields.items():
            if (key, value) not in checked:
                Design(**{**base_data, key: value})
                checked.add((key, value))

    for fabric in _fabrics(constraints, grid):
        switches = [s for s in catalog.fabric_switches(fabric) if s.id in allowed]
        speeds = [s for s in offered_port_speeds(catalog, fabric) if grid.port_speeds is None or s in grid.port_speeds]
        nics = [None] if grid.nics is None else \
            [n for n in catalog.nics if fabric in n.fabrics and n.id in {catalog.nic(x).id for x in grid.nics}]
        for speed in speeds:
            for leaf in switches:
                if not leaf.ports_at(speed):
                    continue
                uplinks = []
                for mode in grid.uplinks:
                    if mode == "same":
                        uplinks.append(None)
                    else:
                        faster = sorted(m.speed_gbps for m in leaf.port_modes if m.speed_gbps > speed)
                        if faster:
                            uplinks.append(faster[0])
                for uplink in uplinks:
                    up_speed = uplink or speed
                    uppers = [s for s in switches if s.ports_at(up_speed)] if grid.mixed_tiers else \
                        ([leaf] if leaf.ports_at(up_speed) else [])
                    for upper in uppers:
                        for nic in nics:
                            if nic is not None and speed not in nic.speeds_on(fabric):
                                continue
                            outer = dict(fabric=fabric, port_speed_gbps=speed, nic=nic.id if nic else None,
                                         leaf_switch=leaf.id, spine_switch=upper.id, core_switch=upper.id,
                                         uplink_speed_gbps=uplink)
                            check(**outer)
                            if not inner_checked:  # the innermost loops' values, once, when designs take them
                                for planes in plane_counts:
                                    check(planes=planes)
                                for mode in grid.plane_modes:
                                    check(plane_mode=mode)
                                for topology in grid.topologies:
                                    check(topology=topology)
                                for tiers in grid.tiers:
                                    check(tiers=tiers)
                                for over in grid.oversubscription:
                                    check(oversubscription=float(over))
                                inner = _inner_fields(plane_counts, grid, base_data)
                                inner_checked = True
                            # the base with these fields (validated by ``check``: no re-validation of the 100,000
                            # designs of a large grid), then each inner combination set on it
                            start = copied(base, outer)
                            for fields, unread in inner:
                                if unread:  # a family: the fields it does not search at the base's values, once
                                    key = tuple({**outer, **fields}.values())
                                    if key in tried:
                                        continue
                                    tried.add(key)
                                out.append(copied(start, fields))
    return out


def _inner_fields(plane_counts: tuple[int, ...], grid: Grid, base_data: dict) -> list[tuple[dict, tuple[str, ...]]]:
    """``candidate_designs``' innermost combinations (planes, plane mode, topology, tiers, oversubscription, in
    grid order) as the fields each sets, with a family's unsearched fields (``unsearched_fields``) at the base's
    values, and those names (none for the folded Clos)."""
    out = []
    unsearched: dict[str, tuple[str, ...]] = {}  # topology -> the fields its family does not search
    for planes, mode, topology, tiers, over in itertools.product(
            plane_counts, grid.plane_modes, grid.topologies, grid.tiers, grid.oversubscription):
        if planes == 1 and mode == "per-rail":
            continue  # the same fabric as per-port with one plane
        fields = dict(planes=planes, plane_mode=mode, topology=topology, tiers=tiers, oversubscription=float(over))
        unread = unsearched.get(topology)
        if unread is None:
            unread = unsearched[topology] = unsearched_fields(topology)
        fields.update((name, base_data[name]) for name in unread)
        out.append((fields, unread))
    return out


# --- evaluating one candidate -------------------------------------------------------------------

def _limit(value: float, limit: float | None, most: bool) -> bool:
    """Whether ``value`` meets ``limit`` (a maximum when ``most``); no limit, or no value (a torus's switch hops,
    ``Candidate.switch_hops``), always meets."""
    if limit is None or value is None:
        return True
    return value <= limit * (1 + 1e-9) if most else value >= limit * (1 - 1e-9)


def _searched_split_job(p: Plan, job):
    """``job`` at its fastest split on ``p`` (``core.analysis.jobsplit.fastest``, the split the search's days are
    of); raises its ``DesignError`` when no split fits."""
    return jobsplit.applied(job, jobsplit.fastest(p, job))


@dataclass
class _Detail:
    """A candidate's state between its bounds and its detail: the resolved design, fabric plan, bandwidth and the
    constraints it failed so far (``full`` evaluations)."""

    resolved: object
    fabric: object
    bandwidth: object
    failed: list
    split: object = None
    """With a training job and bounds that may decide it: the job's fastest split (or the error its search raised),
    searched before the floor (``_Evaluator.early_split``) and checked in ``detail`` where it was always checked."""
    linked: bool = True
    """Whether the floors count the compute links (``core.cost.links_floor``); when only ``_decide`` reads them,
    ``evaluate`` leaves them out (``cost_floor(links=False)``: a lower floor, the same for every other count) and
    ``_decide`` adds them (``_Evaluator.link``) only to a candidate that floor does not decide."""
    su_binned: bool = False
    """Whether ``_Evaluator.su_bins`` looked at the candidate's SUs (its node-leaf links per length bin before any
    arrangement)."""
    lengths: object = None
    """Once ``_Evaluator.refine`` ran: the rack arrangement's link lengths (``physical_of`` reuses them), or the
    error arranging raised (``detail`` raises it again where it always did)."""
    built: object = None
    """Once ``_Evaluator.refine`` arranged the racks: ``core.plan.as_built``'s answer (``physical_of`` reuses it)."""


REFINE_MARGIN = 0.05
"""Under a budget or power limit, a pending candidate whose counts' floor is within this share below the limit has
its floors raised by its length bins before its bill (``_Evaluator.refused``); speed only, never the answer."""


class _Evaluator:
    """Evaluates candidates (one per process). The stages it runs are cached by their arguments
    (``core.memo.stage``): the resolution, the collectives' curves, the other networks and their rows, the cable
    lengths and media, so candidates that differ only in what a stage does not read share its result."""

    def __init__(self, constraints: Constraints, catalog: Catalog, bounded: bool = True):
        self.c = constraints
        self.catalog = catalog
        self.bounded = bounded
        """Decide the budget and power by the cost floors (``core.cost.cost_floor``) before the physical layer."""
        self.sizings = 0
        """Fabric sizings run (``size_fabric``)."""

    def size(self, resolved):
        """(fabric plan, bandwidth) of ``resolved`` (``size_fabric``, ``compute_bandwidth``). The plan has no words (its
        explanation and switch groups' descriptions: nothing here reads them, and the winner is planned again in
        full, ``OptimizeResult.best_plan``); a folded Clos's is cached by what sizing reads, the planes apart
        (``core.fabric.sizing._sized_clos``)."""
        self.sizings += 1
        fabric = size_fabric(resolved, words=False)
        return fabric, compute_bandwidth(resolved, fabric)

    def physical_of(self, resolved, fabric, lengths=None, built=None) -> dict:
        """``build_bom``'s networks, media and other networks' rows for ``resolved``: the rack arrangement gives the
        layout's cable lengths without building its racks (every class of the fabric's wiring: a Dragonfly+'s
        global links too); ``lengths`` and ``built``: those lengths and ``as_built``'s answer when known
        (``refine``)."""
        networks, arrangement, racks = built or as_built(resolved, fabric, self.catalog)  # the plan's, PDUs as built
        lengths = lengths or arranged_link_lengths(resolved, fabric, arrangement)
        return {"networks": networks, "media": select_media(self.catalog, resolved, lengths),
                "other_rows": priced_network_rows(resolved, fabric, self.catalog, racks)}

    def resolve(self, design: Design):
        """``resolve_design`` of ``design``, uncached: a search resolves each run of designs that differ only in what
        resolving does not read once (``_evaluate_families``), so a cache keyed by the design's fields found one
        resolution in 1,662 of a default search and cost more than resolving (the key, the ``Design`` built back
        from it, the copy with the design put back: 0.14 s against 0.05 s for the 1,661 runs)."""
        return resolve_design(design, self.catalog)

    def evaluate(self, index: int, design: Design, full: bool = False, keep: bool = False,
                 resolved=None, detail: bool = True, run: "_Run | None" = None) -> Candidate:
        """The candidate's metrics and its first failing constraint (``full``: every metric and failure;
        ``keep``: the resolved design stays on the candidate; ``resolved``: its resolved design, or the
        ``FabricPlannerError`` resolving it raised; ``run``: what the candidates of its run read alike, ``_Run``).
        With ``detail=False`` it stops after the bounds (``cost_floor``) of a candidate no check before them
        rejected, leaving ``Candidate.pending`` for ``detail``."""
        c = self.c
        cand = Candidate(index, design)
        if c.min_planes is not None and design.planes < c.min_planes:
            cand.reason, cand.failed = "min_planes", ("min_planes",)
            return cand
        if self.asks_fewer_tiers(design) and not full:
            cand.reason, cand.failed = "max_tiers", ("max_tiers",)
            return cand
        try:
            if isinstance(resolved, FabricPlannerError):
                raise resolved.with_traceback(None)
            resolved = resolved or self.resolve(design)
            if keep:
                cand.resolved = resolved
            fabric, bandwidth = self.size(resolved)
        except FabricPlannerError as exc:
            cand.reason = _reason(exc)
            return cand
        cand.tiers = fabric.tiers
        failed: list[str] = []
        if not _limit(fabric.tiers, c.max_tiers, True):
            failed.append("max_tiers")
            if not full:
                return _rejected(cand, failed)
        cand.oversubscription = bandwidth.oversubscription
        cand.bisection_gbytes_per_gpu = bandwidth.bisection_tbits_one_direction * 1000 / 8 / resolved.gpus
        cand.bisection_ratio = bandwidth.bisection_ratio
        cand.hops = max(bandwidth.hops_same_rail, bandwidth.hops_same_rail_other_su, bandwidth.hops_cross_rail,
                        bandwidth.hops_cross_pod)
        cand.switches = fabric.switch_count_total + (  # a second NVLink level's units, as the Designer counts them
            domainlevels.scaleup_of(resolved).totals()["level2_switches"] if resolved.nvlink_rack_gpus else 0)
        cand.islands = bandwidth.islands
        for key, value, most in (("max_oversubscription", cand.oversubscription, True),
                                 ("max_bisection_ratio", cand.bisection_ratio, True),
                                 ("min_bisection_gbytes_per_gpu", cand.bisection_gbytes_per_gpu, False),
                                 ("max_hops", cand.switch_hops, True)):
            if not _limit(value, getattr(c, key), most):
                failed.append(key)
                if not full:
                    return _rejected(cand, failed)
        run = run or _Run.of(resolved, self.catalog)
        try:
            cand.busbw_gbytes = self._busbw(resolved, fabric, bandwidth, run)
        except FabricPlannerError as exc:
            cand.reason = _reason(exc)
            return cand
        if not _limit(cand.busbw_gbytes, c.min_busbw_gbytes, False):
            failed.append("min_busbw_gbytes")
            if not full:
                return _rejected(cand, failed)
        first = self.bounded and not full and self._floored_later()
        counted = first and c.serving is None  # only ``_decide`` reads the floor: the links' floor when it must
        if self.bounded and not full:
            try:  # the other networks raise as when the physical layer sizes them (``physical_of``)
                floor = cost_floor(resolved, fabric, self.catalog,
                                   network_floor_rows_of(run.network, run.pricing, fabric, self.catalog, least=first,
                                                         racks=run.racks),
                                   links=not counted, units=run.units)
            except FabricPlannerError as exc:
                cand.reason = _reason(exc)
                return cand
            cand.capex_floor_usd, cand.network_floor_usd = floor.capex_usd, floor.network_capex_usd
            cand.power_floor_kw, cand.tco_floor_usd = floor.facility_kw, floor.tco_usd
            if not _limit(floor.capex_usd, c.budget_usd, True):  # capex >= its floor: over budget whatever the cables
                return _rejected(cand, failed + ["budget_usd"])
            if c.budget_usd is None and not _limit(floor.facility_kw, c.max_power_kw, True):
                return _rejected(cand, failed + ["max_power_kw"])
            split = self.early_split(cand, resolved, fabric, bandwidth, full)
            early = self.early_serving(cand, resolved, fabric, bandwidth, floor, split)
            if early:
                return _rejected(cand, failed + early)
        else:
            split = None
        state = _Detail(resolved, fabric, bandwidth, failed, split, linked=not counted)
        if not detail:
            cand.pending = state
            return cand
        return self.detail(cand, state, full)

    def asks_fewer_tiers(self, design: Design) -> bool:
        """Whether ``design`` asks explicitly for more tiers than ``max_tiers`` (ruled out before it is planned)."""
        c = self.c
        return c.max_tiers is not None and isinstance(design.tiers, int) and design.tiers > c.max_tiers

    def _floored_later(self) -> bool:
        """Whether no check in ``evaluate`` reads the floor (no budget, no power limit, no serving search before the
        bill: ``early_serving``), so only ``_decide`` does, which raises it before costing (``refine``): ``evaluate``
        then takes the other networks at their least (``network_floor_rows``: one sizing per fabric shape rather than
        per switch count)."""
        c = self.c
        return c.budget_usd is None and c.max_power_kw is None and (c.serving is None or c.job is not None)

    def refine(self, cand: Candidate, state: "_Detail") -> None:
        """Raise a pending candidate's floors (``Candidate.capex_floor_usd``, ``network_floor_usd``,
        ``power_floor_kw``, ``tco_floor_usd``) to ``cost_floor``'s with the compute links priced per length bin of
        its rack arrangement (``arrange``, the lengths ``detail`` bills them by, kept on ``state``) and their power
        at its floor (``core.analysis.linkpower.links_power_floor``), the other networks exact (``evaluate``'s floor
        may take them at their least, ``_floored_later``), and with them ``usd_per_mtok_floor``
        (``core.analysis.servingstep.per_million``: proportional to the TCO); unchanged when arranging raises."""
        resolved, fabric = state.resolved, state.fabric
        try:
            state.built = _networks, arrangement, racks = as_built(resolved, fabric, self.catalog)
            state.lengths = arranged_link_lengths(resolved, fabric, arrangement)
            floor = cost_floor(resolved, fabric, self.catalog, network_floor_rows(
                resolved, fabric, self.catalog, racks=racks or (0, 0)),
                               state.lengths, links_power_floor(resolved, fabric, self.catalog, state.lengths))
        except FabricPlannerError as exc:
            state.lengths = exc
            return
        _raise_floors(cand, floor)

    def link(self, cand: Candidate, state: "_Detail") -> None:
        """Raise the floors of a pending candidate whose floor left its compute links out (``_Detail.linked``) by
        what they add (``core.cost.links_cost_floor``: ``core.cost.links_floor`` from the rack geometry), to
        ``cost_floor``'s with them."""
        state.linked = True
        try:  # raises as ``evaluate``'s floor with the links would have (the candidate ruled out by it)
            links = links_cost_floor(state.resolved, state.fabric, self.catalog)
        except FabricPlannerError as exc:
            cand.pending, cand.reason = None, _reason(exc)
            return
        _add_floors(cand, links.capex_usd, links.network_capex_usd, links.facility_kw, links.tco_usd)

    def su_bins(self, cand: Candidate, state: "_Detail") -> bool:
        """Raise the floors of a pending candidate whose floor counts its compute links (``link``) by its node-leaf
        links priced per length bin of its SUs (``core.physical.lengths.su_node_leaf_lengths``: the bins every rack
        arrangement of it gives, read without arranging; ``core.cost.links_cost_floor`` with them) where that is
        above their price from the rack geometry; whether it raised them (not when the SUs are not read per
        template or reading them raises: ``refine`` arranges the racks then)."""
        state.su_binned = True
        resolved, fabric = state.resolved, state.fabric
        try:
            sus = su_node_leaf_lengths(resolved, fabric)
            if sus is None:
                return False
            more = links_binned_raise(resolved, fabric, self.catalog, (sus,))
        except FabricPlannerError:
            return False
        _add_floors(cand, more.capex_usd, more.network_capex_usd, more.facility_kw, more.tco_usd)
        return more.capex_usd > 0

    def refused(self, cand: Candidate, state: "_Detail") -> bool:
        """Under a budget or power limit: raise a pending candidate's floors (``refine``) and rule it out without
        its bill when they exceed the limit the bill would find it over first (``CONSTRAINT_ORDER``: the budget,
        then the power, whose floor decides it only without a budget); whether it did. Only a candidate whose counts'
        floors are within ``REFINE_MARGIN`` of the limit is refined here (the length bins raise them by a few
        tenths of a percent: the others would be billed anyway, and ``detail`` arranges them once)."""
        c = self.c
        near = 1 - REFINE_MARGIN
        if not (c.budget_usd is not None and cand.capex_floor_usd > c.budget_usd * near or
                c.budget_usd is None and c.max_power_kw is not None and cand.power_floor_kw > c.max_power_kw * near):
            return False
        self.refine(cand, state)
        if not _limit(cand.capex_floor_usd, c.budget_usd, True):
            key = "budget_usd"
        elif c.budget_usd is None and not _limit(cand.power_floor_kw, c.max_power_kw, True):
            key = "max_power_kw"
        else:
            return False
        cand.pending = None
        _rejected(cand, list(state.failed) + [key])
        return True

    def detail(self, cand: Candidate, state: "_Detail", full: bool = False) -> Candidate:
        """The stages after the bounds (``evaluate`` with ``detail=False`` left ``state``): the physical layer, the
        bill of materials and its cost, then the budget, power, training and serving constraints."""
        c = self.c
        resolved, fabric, bandwidth = state.resolved, state.fabric, state.bandwidth
        failed = list(state.failed)
        cand.pending = None
        try:  # the rack layout raises for a device no rack holds (as planning the design does)
            if isinstance(state.lengths, FabricPlannerError):
                raise state.lengths
            bom = build_bom(resolved, fabric, self.catalog,
                            **self.physical_of(resolved, fabric, state.lengths, state.built))
        except FabricPlannerError as exc:
            cand.reason = _reason(exc)
            return cand
        cost = summarize_cost(resolved, bom)
        cand.capex_usd, cand.network_capex_usd, cand.facility_kw = cost.capex_usd, cost.network_capex_usd, cost.facility_kw
        cand.tco_usd, cand.scaleup_capex_usd = cost.tco_usd, cost.scaleup_capex_usd
        by_category: dict[str, float] = {}
        for row in bom:  # the compute fabric's rows: the boundary of network_capex_usd and the cards
            if in_compute_fabric(row):
                by_category[row.category] = by_category.get(row.category, 0.0) + row.extended_price_usd
        cand.network_by_category = by_category
        for key, value in (("budget_usd", cand.capex_usd), ("max_power_kw", cand.facility_kw)):
            if not _limit(value, getattr(c, key), True):
                failed.append(key)
                if not full:
                    return _rejected(cand, failed)
        if c.job is not None:  # the job's fastest split on this design (core.analysis.jobsplit)
            split = state.split
            if split is None:
                split = self.split_of(resolved, fabric, bandwidth)
            if isinstance(split, FabricPlannerError):
                cand.reason = _reason(split)
                return cand
            cand.step_s, cand.days, cand.split = split.step_s, split.days, astuple(split)
            for key, value in (("max_step_s", cand.step_s), ("max_days", cand.days)):
                if not _limit(value, getattr(c, key), True):
                    failed.append(key)
                    if not full:
                        return _rejected(cand, failed)
        if c.serving is not None:
            p = Plan(resolved=resolved, fabric=fabric, bandwidth=bandwidth, bom=bom, cost=cost)
            for key in self._serve(cand, p):
                failed.append(key)
                if not full:
                    return _rejected(cand, failed)
        if failed:
            return _rejected(cand, failed)
        return cand

    def split_of(self, resolved, fabric, bandwidth):
        """The job's fastest split on the design (``core.analysis.jobsplit.fastest``: it reads no bill of materials,
        cost or other network, so a plan of the sized fabric gives it), or the ``FabricPlannerError`` it raised."""
        try:
            return jobsplit.fastest(SimpleNamespace(resolved=resolved, fabric=fabric, bandwidth=bandwidth,
                                                    design=resolved.design, networks=None, cost=None), self.c.job)
        except FabricPlannerError as exc:
            return exc

    def early_split(self, cand: Candidate, resolved, fabric, bandwidth, full: bool):
        """With a training job, when the bounds may decide the candidate (``_decide``: no budget or power limit):
        the job's split before the floor, its step time and days set on ``cand``; else None (``detail`` searches it
        after the bill, as it checks it)."""
        c = self.c
        if c.job is None or full or not self.bounded or c.budget_usd is not None or c.max_power_kw is not None:
            return None
        split = self.split_of(resolved, fabric, bandwidth)
        if not isinstance(split, FabricPlannerError):
            cand.step_s, cand.days, cand.split = split.step_s, split.days, astuple(split)
        return split

    def early_serving(self, cand: Candidate, resolved, fabric, bandwidth, floor, split=None) -> list[str]:
        """With a serving target and no check between the floor and it that reads the bill (no budget or power
        limit; with a training job, whose checks come first in ``CONSTRAINT_ORDER``, its ``split`` found before the
        bill, ``early_split``, and within the step time and days limits): the serving search before the bill
        (``core.analysis.servingstep.served_before_bill``, the cached search ``detail`` prices again), and the
        serving constraint it fails whatever the bill: ``serving_target`` (no deployment serves the target) or
        ``max_usd_per_million_tokens`` (the deployment at the floor TCO ``floor.tco_usd``, with a relative
        millionth off for the sums' rounding, already costs more); sets ``Candidate.usd_per_mtok_floor``."""
        from core.analysis.servingstep import per_million, served_before_bill

        c = self.c
        if c.serving is None or c.budget_usd is not None or c.max_power_kw is not None:
            return []
        if c.job is not None and (split is None or isinstance(split, FabricPlannerError) or not (
                _limit(split.step_s, c.max_step_s, True) and _limit(split.days, c.max_days, True))):
            return []  # the job's checks come first: ``detail`` decides them, after the bill
        found = served_before_bill(resolved, fabric, bandwidth, c.serving)
        if found is None:
            return ["serving_target"]
        cand.serving_gpus = found[0]
        cand.usd_per_mtok_floor = per_million(found, floor.tco_usd, floor.tco_years, resolved.gpus) * (1 - 1e-6)
        return [] if _limit(cand.usd_per_mtok_floor, c.max_usd_per_million_tokens, True) else [
            "max_usd_per_million_tokens"]

    def _serve(self, cand: Candidate, p: Plan) -> list[str]:
        """Size the cheapest deployment of ``Constraints.serving`` on ``p`` and price it at ``p``'s TCO
        (``core.analysis.servingstep.price``: the search is cached by what it reads of the plan but its price);
        the serving constraints it fails (``serving_target``: none serves the rate within the targets)."""
        from core.analysis.servingstep import price

        found = price(p, self.c.serving)
        if found is None:
            return ["serving_target"]
        cand.serving_gpus, cand.usd_per_mtok = found
        return [] if _limit(cand.usd_per_mtok, self.c.max_usd_per_million_tokens, True) else [
            "max_usd_per_million_tokens"]

    def _busbw(self, resolved, fabric, bandwidth, run: "_Run | None" = None) -> float:
        """All-reduce busbw over every GPU [GB/s] (``core.perf.collectives.busbw_at``: the sweep's number at one
        size); the sweep reads no bill of materials, so it runs before the BOM is built, on the ``BusbwPlan`` view of
        the plan's design, resolution, fabric and bandwidth (``_all_reduce_busbw``: one computation per view; the
        design's and resolution's parts ``run``'s when given)."""
        if run is None:
            run = _Run.of(resolved, self.catalog)
        plan = BusbwPlan(run.calibration, run.busbw, PerfFabric.of(fabric), PerfBandwidth.of(bandwidth))
        return _all_reduce_busbw(plan, self.c.busbw_size, congestion.current(), nccl_release_now(), current())


class _Run(NamedTuple):
    """What the candidates of one run (``_evaluate_families``: designs that differ only in ``_UNRESOLVED`` fields,
    one resolution) read alike, made once per run: the ``BusbwPlan``'s design and resolution parts, and the views the
    other networks' floor rows read (``core.cost.network_floor_rows_of``); the design fields of these views are none
    of ``_UNRESOLVED`` (``tests/test_optimize_speed.py``)."""

    calibration: PerfCalibration
    busbw: BusbwResolved
    network: NetworkInputs
    pricing: Pricing
    racks: tuple[int, int]
    """The fewest racks the layout may build (``core.cost.least_racks``): the first floor's other networks' PDUs."""
    units: FloorUnits
    """The floor's rows that read no fabric plan (``core.cost.floor_units``: nodes, NICs, a switch of each tier's
    model, the second NVLink level), which each candidate's floor prices by its counts (``cost_floor``)."""

    @classmethod
    def of(cls, resolved, catalog: Catalog) -> "_Run":
        return cls(PerfCalibration.of(resolved.design), BusbwResolved.of(resolved), NetworkInputs.of(resolved),
                   Pricing.of(resolved), least_racks(resolved), floor_units(resolved, catalog))


def _add_floors(cand: Candidate, capex: float, network: float, kw: float, tco: float) -> None:
    """Add to ``cand``'s floors what a part of the bill adds at least (``capex`` and ``network`` [USD], ``kw`` [kW],
    ``tco`` [USD]), and with its TCO ``usd_per_mtok_floor`` (``core.analysis.servingstep.per_million``: proportional
    to the TCO)."""
    cand.capex_floor_usd += capex
    cand.network_floor_usd += network
    cand.power_floor_kw += kw
    if tco > 0:
        if cand.usd_per_mtok_floor > 0:
            cand.usd_per_mtok_floor *= (cand.tco_floor_usd + tco) / cand.tco_floor_usd
        cand.tco_floor_usd += tco


def _raise_floors(cand: Candidate, floor) -> None:
    """Raise ``cand``'s floors to ``floor``'s (a ``core.cost.cost_floor``) where they are higher, and with its TCO
    floor ``usd_per_mtok_floor`` (``core.analysis.servingstep.per_million``: proportional to the TCO)."""
    cand.capex_floor_usd = max(cand.capex_floor_usd, floor.capex_usd)
    cand.network_floor_usd = max(cand.network_floor_usd, floor.network_capex_usd)
    cand.power_floor_kw = max(cand.power_floor_kw, floor.facility_kw)
    if floor.tco_usd > cand.tco_floor_usd:  # the cost per token at the floor TCO is proportional to it
        if cand.usd_per_mtok_floor > 0:
            cand.usd_per_mtok_floor *= floor.tco_usd / cand.tco_floor_usd
        cand.tco_floor_usd = floor.tco_usd


def _busbw_bytes(busbw: float) -> int:
    """Upper bound of the memory of one busbw [bytes] (``tests/test_memo.py``)."""
    return 32


@stage(0.01, _busbw_bytes, errors=(FabricPlannerError,))
def _all_reduce_busbw(plan: BusbwPlan, size: int, assumed: congestion.Assumptions, release: str | None,
                      language: str) -> float:
    """All-reduce busbw over every GPU of ``plan`` [GB/s, one direction] at ``size`` bytes
    (``core.perf.collectives.busbw_at``), under the routing and placement ``assumed``, NCCL ``release`` (None: the
    catalog's default) and its errors in ``language``. Cached by these arguments (``core.memo.stage``): candidates
    whose plans read alike (``BusbwPlan``) share one computation."""
    with congestion.assumptions(assumed.routing, assumed.placement), nccl_release(release), spoken(language):
        return busbw_at(plan, "all-reduce", size)


def _rejected(cand: Candidate, failed: list[str]) -> Candidate:
    cand.failed = tuple(failed)
    cand.reason = failed[0]
    return cand


def _reason(exc: FabricPlannerError) -> str:
    message = exc.message if isinstance(exc, DesignError) else str(exc)
    return " ".join(message.split())[:200]


# --- the search ---------------------------------------------------------------------------------

GRID_FIELDS = ("fabric", "port_speed_gbps", "nic", "leaf_switch", "spine_switch", "core_switch", "uplink_speed_gbps",
               "planes", "plane_mode", "topology", "tiers", "oversubscription")
"""The design fields ``candidate_designs`` varies; every other field is the same for all candidates."""


def _fields_key(design: Design, skip: tuple[str, ...]) -> tuple:
    """The grid fields of ``design`` but ``skip`` (the other fields are equal across one search)."""
    getter = _GETTERS.get(skip)
    if getter is None:
        getter = _GETTERS[skip] = operator.itemgetter(*(k for k in GRID_FIELDS if k not in skip))
    return getter(design.__dict__)


_GETTERS: dict[tuple[str, ...], operator.itemgetter] = {}
"""``_fields_key``'s field getters by the fields it skips (more than one field is always left, so a tuple)."""


_UNRESOLVED = ("tiers", "oversubscription")
"""Grid fields ``resolve_design`` does not read (``tests/test_optimize.py`` checks it over a grid)."""


def _family_key(design: Design) -> tuple:
    return _fields_key(design, ("tiers",))


def _families(designs: list[Design]) -> list[list[int]]:
    """Indices of ``designs`` grouped by everything but ``tiers`` (grid order kept inside a group), families
    that differ only in the NIC model, plane count or oversubscription next to each other (they share the stages
    that do not read them), those of one NIC model and plane count in a run (``_evaluate_families``: one resolution
    serves each run)."""
    groups: dict[str, list[int]] = {}
    for i, d in enumerate(designs):
        groups.setdefault(_family_key(d), []).append(i)
    order: dict[tuple, int] = {}
    for group in groups.values():
        order.setdefault(_shared_key(designs[group[0]]), len(order))
    return sorted(groups.values(), key=lambda g: order[_shared_key(designs[g[0]])])


def _shared_key(design: Design) -> tuple:
    """Designs with the same key may share stages (only the NIC model, plane count, tiers and oversubscription
    differ)."""
    return _fields_key(design, ("tiers", "nic", "planes", "oversubscription"))


def _too_few_tiers(resolved, tiers: int) -> bool:
    """Closed form: ``tiers`` explicit tiers cannot hold the nodes at any leaf down-port count the sizing
    may try (every count from three quarters of the most the oversubscription allows up to it, a superset
    of ``size_fabric``'s candidates), so sizing would raise. Conservative: any doubt (a count whose group shape
    raises) returns False. The nodes a count holds (``max_nodes``) never fall as the count grows, and a count
    whose group shape raises makes every smaller one raise, so the least and the most count decide it
    (``tests/test_optimize_speed.py`` checks it against every count)."""
    from core.fabric.sizing import _leaf_split, max_nodes

    island = resolved
    if resolved.islands > 1:
        island = copied(resolved, {"nics_per_node": resolved.rails_per_island, "islands": 1})
    try:
        most, _up = _leaf_split(island)
        low = max(1, math.ceil(most * 0.75))
        max_nodes(island, tiers, low)  # raises when any count does
        return island.nodes > max_nodes(island, tiers, most)
    except FabricPlannerError:
        return False


def _evaluate_families(evaluator: "_Evaluator", designs: list[Design], groups: Iterable[list[int]],
                       detail: bool = True) -> Iterable[list[Candidate]]:
    """Each family of ``groups`` evaluated (``_evaluate_family``), in order, resolving once per run of families that
    differ only in the grid fields resolving does not read (``_UNRESOLVED``: the oversubscription, next to each
    other in ``_families``' order): one resolution serves them all, or the error it raised."""
    key = resolution = run = None
    for group in groups:
        first = designs[group[0]]
        if (unresolved := _fields_key(first, _UNRESOLVED)) != key:
            key = unresolved
            try:
                resolution = evaluator.resolve(first)
                run = _Run.of(resolution, evaluator.catalog)
            except FabricPlannerError as exc:
                resolution, run = exc, None
        yield _evaluate_family(evaluator, designs, group, detail, resolution, run)


def _evaluate_family(evaluator: "_Evaluator", designs: list[Design], indices: list[int],
                     detail: bool = True, resolution=None, run: _Run | None = None) -> list[Candidate]:
    """Evaluate one family (designs that differ only in ``tiers``), sizing as few as is exact; ``resolution``: the
    resolved design of a design that differs from them only in ``_UNRESOLVED`` fields or the ``FabricPlannerError``
    resolving it raised, or None (resolved here); ``run``: its ``_Run`` (with ``resolution``).

    The family is first planned with ``tiers="auto"``, which picks the fewest tiers ``t0`` that fit. An
    explicit ``t0`` sizes the same fabric (``size_fabric`` tries the same leaf down-port counts and keeps
    the same best; the only difference, the one-switch shortcut, applies to both when ``t0`` is 1 or the
    nodes do not fit one switch), so it takes the auto plan's metrics. Fewer tiers are rejected by the
    closed-form ``_too_few_tiers`` when it is sure, else sized. More tiers are always sized. With ``detail=False``
    candidates stop after their bounds (``_Evaluator.evaluate``); a copy of the auto plan shares its state."""
    explicit = [i for i in indices if isinstance(designs[i].tiers, int)]
    out: list[Candidate] = []
    auto = None

    def as_resolved(d: Design):  # resolving reads no tiers or oversubscription: the run's resolution with ``d``
        if resolution is None or isinstance(resolution, FabricPlannerError):
            return resolution
        return copied(resolution, {"design": d})

    if len(explicit) > 1:
        design = copied(designs[explicit[0]], {"tiers": "auto"})
        auto = evaluator.evaluate(-1, design, keep=True, resolved=as_resolved(design), detail=detail, run=run)
    for i in indices:
        d = designs[i]
        if auto is not None and auto.resolved is None and auto.reason and not auto.failed and \
                isinstance(d.tiers, int) and not evaluator.asks_fewer_tiers(d):
            out.append(Candidate(i, d, reason=auto.reason))  # resolving raised: it reads no tiers, so it raises alike
            continue
        if auto is None or auto.resolved is None or not isinstance(d.tiers, int):
            out.append(evaluator.evaluate(i, d, resolved=as_resolved(d), detail=detail, run=run))
            continue
        resolved = auto.resolved
        if auto.tiers == 0:  # auto did not size: each explicit tier count on its own, with the family's resolution
            out.append(evaluator.evaluate(i, d, resolved=copied(resolved, {"design": d}), detail=detail,
                                          run=run))
            continue
        one_switch = resolved.nodes * resolved.rails_per_island <= resolved.switch_ports
        if d.tiers == auto.tiers and (auto.tiers == 1 or not one_switch):
            # every field the auto plan's (shared, as it was), then its own index and design: ``copy.copy``'s
            # shallow copy in a quarter of its time
            copy = object.__new__(Candidate)
            copy.__dict__.update(auto.__dict__, index=i, design=d, resolved=None)
            out.append(copy)
        elif d.tiers < auto.tiers and _too_few_tiers(resolved, d.tiers):
            out.append(Candidate(i, d, reason=_("{tiers} cannot hold these nodes (closed form); {needed} "
                                                "needed").format(tiers=plurals.tiers(d.tiers),
                                                                 needed=plurals.tiers(auto.tiers))))
        else:  # resolving does not read tiers: the family's resolution serves with this design
            out.append(evaluator.evaluate(i, d, resolved=copied(resolved, {"design": d}), detail=detail,
                                          run=run))
    return out


_FORKED: list[Design] = []
"""The designs of the search under way, inherited by forked workers (nothing is serialised to them)."""


_WORKER: dict = {}
"""A worker's evaluator for the search under way (search token -> evaluator): the chunks one worker takes share
its memos."""


def _evaluate_chunk(args) -> list[Candidate]:
    groups, constraints, language, search, objective = args
    with speaking(language):
        evaluator = _WORKER.get(search)
        if evaluator is None:
            _WORKER.clear()
            evaluator = _WORKER[search] = _Evaluator(constraints, load_catalog(), bounded=search[-1])
        sized = evaluator.sizings
        designs = _FORKED
        out = []
        for decided in _evaluate_families(evaluator, designs, groups, detail=False):
            out += decided
        _decide(evaluator, out, objective, witnesses=_SHARED.get(search))
        # the parent has the designs; send back only the numbers, as tuples (a fifth of the pickling)
        return [_sent(cand) for cand in out], evaluator.sizings - sized


def _switch_family(c: Candidate) -> tuple[str, str, str]:
    """The switch family of ``families``: fabric, leaf switch model, topology."""
    d = c.design
    return (d.fabric or "", d.leaf_switch or d.switch or "", d.topology)


def _decide(evaluator: "_Evaluator", cands: list[Candidate], objective: str, tracker=None, witnesses=None) -> None:
    """Detail every candidate ``cands`` left pending (``Candidate.pending``), cheapest floor first, except
    those its bounds decide (``Candidate.pruned``): when the front's performance is known before the floor, or
    bounded there (all-reduce busbw, a training job's days, or a serving target's cost per million output tokens,
    at most at the floor TCO: ``_decidable``, ``_best_performance``), a pending candidate is pruned when, among the
    candidates costed so far and feasible (by this process, or by any worker of a parallel search: ``_Witnesses``),
    one of its switch family (``families``) comes before it in the objective's order (``_order``) whatever its
    bill (so it is not that family's cheapest, nor its fabric's), one that carries all traffic
    (``_serves_all_traffic``) does too when it does (so it is not the traffic warning's cheapest), and one costs
    less on the front's money axis (``cost_axis``) with at least its performance (busbw, or at most its days or its
    cost per token's floor: so it is neither the optimum nor on the front, ``pareto_front``). Only without a budget
    or power limit, the constraints checked on the cost: a pruned candidate is then feasible (it passed every check
    before the floor), as costing it would find (``_prunes``). Money compared in the objective's ``places`` less
    one unit (a sum's rounding never puts a tie out of order), from the candidate's floor (``floor_of``: capex,
    compute fabric capex, TCO or cost per GPU-hour of ``core.cost.cost_floor``, never above the bill's). For the
    money objectives a family's earlier candidate is a cheaper one; for days or the cost per token (the front's
    performance) a cheaper one with at least the performance. ``tracker`` is told of each candidate as it is
    decided; ``witnesses``: the parallel search's shared array (``_Witnesses``), else None. A candidate its
    counts' floor does not decide has its floors raised by its compute links' floor (``_Evaluator.link``), then by
    its SUs' node-leaf length bins (``_Evaluator.su_bins``), then by its rack arrangement's length bins
    (``_Evaluator.refine``), going back in the queue at each raised floor before it is costed; under a budget or
    power limit, one the raised floors put over it is ruled out without its bill (``_Evaluator.refused``)."""
    pending = [c for c in cands if c.pending is not None]
    limits = evaluator.c
    told_tracker = tracker.add if tracker is not None else (lambda _cands: None)
    decided = iter(range(1, len(pending) + 1))

    def told(cands) -> None:  # the tracker, and the second half of the progress (the first: the checks)
        told_tracker(cands)
        progress.report(len(pending) + next(decided), 2 * len(pending))

    if not pending:
        progress.report(1, 1)
    metric = performance_metric(limits)
    if not evaluator.bounded or not _prunes(limits, metric, objective):
        limited = evaluator.bounded and (limits.budget_usd is not None or limits.max_power_kw is not None)
        for c in pending:  # a pruned candidate must be feasible (nothing after the floor to check)
            if not (limited and evaluator.refused(c, c.pending)):
                evaluator.detail(c, c.pending)
            told((c,))
        return
    axis = cost_axis(objective)
    digits = places(axis)
    unit = 10.0 ** -digits
    at = lambda c: (round(floor_of(c, axis), digits), c.index)  # noqa: E731
    queue = [(*at(c), c) for c in pending]
    heapq.heapify(queue)
    by_family: dict[tuple, _Front] = {}
    known = _Witnesses(witnesses)
    alone = -math.inf if objective in MONEY else None  # a family's earlier candidate: any cheaper one
    while queue:
        at_floor, _index, c = heapq.heappop(queue)  # its floor as it was pushed (``at``: unchanged since)
        floor = at_floor - unit
        best = _best_performance(c, metric) if _decidable(c, limits, metric) else None
        family = by_family.get(_switch_family(c))
        if best is not None and family is not None and family.faster_below(floor, best if alone is None else alone):
            known.update()
            if (not _serves_all_traffic(c) or known.serving.faster_below(floor, best if alone is None else alone)) \
                    and known.faster_below(floor, best):
                c.pruned, c.pending = True, None
                told((c,))
                continue
        if not c.pending.linked:  # not pruned by its counts' floor without links: with them, back in the queue
            evaluator.link(c, c.pending)
            if c.pending is None:  # ruled out by its links' floor's error
                told((c,))
            else:
                heapq.heappush(queue, (*at(c), c))
            continue
        if not c.pending.su_binned and evaluator.su_bins(c, c.pending):  # its SUs' node-leaf bins: back in the queue
            heapq.heappush(queue, (*at(c), c))
            continue
        if c.pending.lengths is None:  # not pruned by its counts' floor: its lengths' floor, back in the queue
            evaluator.refine(c, c.pending)
            heapq.heappush(queue, (*at(c), c))
            continue
        evaluator.detail(c, c.pending)
        told((c,))
        if not c.feasible:
            continue
        cost, performance = round(capex_of(c, objective), digits), _performance(c, metric)
        by_family.setdefault(_switch_family(c), _Front()).add(cost, performance)
        known.add(cost, performance, _serves_all_traffic(c))


def _prunes(limits: Constraints, metric: str, objective: str) -> bool:
    """Whether ``_decide`` may decide candidates by their bounds: no budget or power limit (a pruned candidate must
    be feasible whatever its bill), and the objective is money (its floor is ``floor_of``'s) or the front's
    performance itself (days to train with a job, the cost per million output tokens with a serving target)."""
    return limits.budget_usd is None and limits.max_power_kw is None and metric in PERFORMANCE and \
        (objective in MONEY or objective == metric)


def _best_performance(c: Candidate, metric: str) -> float:
    """The most performance the pending ``c`` may have (higher is better, ``_performance``): its own, or with a
    serving target, the cost per million output tokens at its floor TCO (``Candidate.usd_per_mtok_floor``)."""
    return -c.usd_per_mtok_floor if metric == "usd_per_mtok" else _performance(c, metric)


def _decidable(c: Candidate, limits: Constraints, metric: str) -> bool:
    """Whether the bounds may decide the pending ``c``: it is feasible whatever its bill (``_decide``'s conditions),
    so with a training job (the front's days, searched before the floor: ``_Evaluator.early_split``) its split was
    found and meets the step time and days limits, which ``detail`` would check after the bill."""
    if metric == "usd_per_mtok":  # served whatever the bill (``_Evaluator.early_serving``), and no limit on its cost
        return not math.isnan(c.usd_per_mtok_floor) and limits.max_usd_per_million_tokens is None
    if metric != "days":
        return True
    return not math.isnan(c.days) and _limit(c.step_s, limits.max_step_s, True) and _limit(c.days, limits.max_days, True)


_SHARED: dict = {}
"""The parallel search under way's witnesses shared by its forked workers (search token -> a
``multiprocessing.Array``, ``_Witnesses``), set by the parent before the fork."""


class _Front:
    """Costed feasible candidates as (money, performance) pairs: money [the objective's money axis, rounded to its
    ``places``] ascending with the most performance (higher better, ``_performance``) at or below each."""

    def __init__(self):
        self.costs: list[float] = []
        self.fastest: list[float] = []  # fastest[i]: the most performance of costs[: i + 1]

    def faster_below(self, floor: float, performance: float) -> bool:
        """Whether one costs less than ``floor`` and has at least ``performance``."""
        below = bisect.bisect_left(self.costs, floor)
        return bool(below) and self.fastest[below - 1] >= performance

    def add(self, cost: float, performance: float) -> None:
        """Take one."""
        costs, fastest = self.costs, self.fastest
        at = bisect.bisect_right(costs, cost)
        costs.insert(at, cost)
        fastest.insert(at, max(performance, fastest[at - 1] if at else -math.inf))
        for i in range(at + 1, len(fastest)):
            if fastest[i] >= fastest[at]:
                break
            fastest[i] = fastest[at]


class _Witnesses(_Front):
    """The costed feasible candidates ``_decide`` prunes by (a ``_Front``), and those of them carrying all traffic
    (``serving``, a ``_Front``). With ``shared`` (a ``multiprocessing.Array`` of doubles: a count, then (money,
    performance, carries all traffic) triples) every worker of a parallel search adds its costed candidates there
    and reads the others' (``update``): each is a costed feasible candidate of the same search, so a witness from
    any worker proves what one from this worker would."""

    def __init__(self, shared=None):
        super().__init__()
        self.shared = shared
        self.seen = 0
        self.serving = _Front()

    def add(self, cost: float, busbw: float, serves: bool = False, publish: bool = True) -> None:
        """Take a costed feasible candidate (and with ``publish`` share it with the other workers)."""
        if serves:
            self.serving.add(cost, busbw)
        super().add(cost, busbw)
        if publish and self.shared is not None:
            with self.shared.get_lock():
                n = int(self.shared[0])
                if 3 * n + 3 < len(self.shared):
                    self.shared[1 + 3 * n:4 + 3 * n] = [cost, busbw, float(serves)]
                    self.shared[0] = n + 1
                    if self.seen == n:  # nothing new from the others in between: this one is seen
                        self.seen = n + 1

    def update(self) -> None:
        """Take the witnesses the other workers shared since the last look."""
        if self.shared is None:
            return
        with self.shared.get_lock():
            n = int(self.shared[0])
            fresh = self.shared[1 + 3 * self.seen:1 + 3 * n]
        for k in range(0, len(fresh), 3):
            self.add(fresh[k], fresh[k + 1], bool(fresh[k + 2]), publish=False)
        self.seen = n


_SENT = tuple(name for name in Candidate.__dataclass_fields__ if name not in ("design", "resolved", "pending"))
"""The ``Candidate`` fields a worker sends back: every one but the design and the resolved design, in field
order (``index`` first, ``design`` second in the dataclass)."""
_sent = operator.attrgetter(*_SENT)
"""A candidate's ``_SENT`` fields as one tuple, in that order."""
assert _SENT[0] == "index" and tuple(Candidate.__dataclass_fields__)[1] == "design"
assert tuple(Candidate.__dataclass_fields__)[-2:] == ("resolved", "pending")


def _worker_start(parent: int) -> None:
    """A search worker's start: it dies with the parent (``core.processes.die_with_parent``) and its cyclic
    collector is off."""
    gc.disable()
    die_with_parent(parent)


CHUNKS_PER_WORKER = 12
"""Chunks of a parallel search per worker (runs of families striped over them), handed out as workers free up."""


def _evaluate_all(designs: list[Design], constraints: Constraints, catalog: Catalog, workers: int,
                  objective: str = "cluster", bounded: bool = True, tracker=None) -> tuple[list[Candidate], int]:
    """Every candidate evaluated (in grid order) and how many fabric sizings that took; ``bounded``: candidates
    decided by their bounds (``_Evaluator.bounded``, ``_decide``) are not detailed; ``tracker``
    (``core.analysis.searchwatch.Tracker``) is told of each candidate, family or chunk as it is decided."""
    groups = _families(designs)
    workers = min(workers, usable_cpus())  # never more processes than the CPUs this process may use
    if workers <= 1 or len(designs) < PARALLEL_FROM or catalog is not load_catalog():
        evaluator = _Evaluator(constraints, catalog, bounded)
        out = []
        for done, decided in enumerate(_evaluate_families(evaluator, designs, groups, detail=False), 1):
            out += decided
            progress.report(done / 2, len(groups))
            if tracker is not None:  # those the checks before the floor decided; the pending ones in _decide
                tracker.add(c for c in decided if c.pending is None)
        _decide(evaluator, out, objective, tracker)
        return sorted(out, key=lambda c: c.index), evaluator.sizings
    import multiprocessing

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:  # pragma: no cover - no fork on this platform
        return _evaluate_all(designs, constraints, catalog, 1, objective, bounded, tracker)
    search = (os.getpid(), time.perf_counter_ns(), bounded)
    jobs = [(part, constraints, current(), search, objective)
            for part in _chunks(designs, groups, workers * CHUNKS_PER_WORKER)]
    _FORKED[:] = designs
    _SHARED[search] = context.Array("d", 1 + 3 * len(designs))  # _Witnesses: the workers' costed candidates
    gc.freeze()  # the parent's objects stay out of the workers' collections (and their pages unwritten)
    try:
        with context.Pool(workers, initializer=_worker_start, initargs=(os.getpid(),)) as pool:  # for one search
            # one chunk at a time to whichever worker is free: a slow chunk (or a busy core) does not hold the rest
            out: list = [None] * len(designs)  # in grid order, with the parent's own Design objects
            parts = []
            for done, (part, count) in enumerate(pool.imap_unordered(_evaluate_chunk, jobs), 1):
                decided = [Candidate(sent[0], designs[sent[0]], *sent[1:]) for sent in part]
                for cand in decided:
                    out[cand.index] = cand
                parts.append((part, count))
                progress.report(done, len(jobs))
                if tracker is not None:
                    tracker.add(decided)
    finally:
        gc.unfreeze()
        _FORKED.clear()
        _SHARED.pop(search, None)
    assert all(c is not None for c in out), "a candidate was not evaluated"  # the families cover every design
    return out, sum(count for _part, count in parts)


def _chunks(designs: list[Design], groups: list[list[int]], chunks: int) -> list[list[list[int]]]:
    """``groups`` (``_families``) in at most ``chunks`` parts for the workers: each switch family
    (``_switch_family``: what ``_decide`` compares a candidate with) whole in one part, so runs of families that
    share sizings stay together too; the largest switch families first, each to the part with fewest designs."""
    classes: dict[tuple, list[list[int]]] = {}
    for group in groups:
        d = designs[group[0]]
        classes.setdefault((d.fabric or "", d.leaf_switch or d.switch or "", d.topology), []).append(group)
    parts: list[list[list[int]]] = [[] for _k in range(chunks)]
    sizes = [0] * chunks
    for members in sorted(classes.values(), key=lambda m: -sum(len(g) for g in m)):
        k = sizes.index(min(sizes))
        parts[k] += members
        sizes[k] += sum(len(g) for g in members)
    return [part for part in parts if part]


PERFORMANCE = {"busbw_gbytes": ("busbw_gbytes", True), "days": ("days", False), "usd_per_mtok": ("usd_per_mtok", False)}
"""The front's performance metrics: key -> (the candidate's attribute, higher is better). ``busbw_gbytes`` without
a workload, ``days`` with a training job, ``usd_per_mtok`` with a serving target (``performance_metric``)."""


def performance_metric(constraints: Constraints) -> str:
    """The front's performance axis for ``constraints``: serving cost, days to train or all-reduce busbw."""
    if constraints.serving is not None:
        return "usd_per_mtok"
    return "days" if constraints.job is not None else "busbw_gbytes"


def _performance(c: Candidate, metric: str) -> float:
    """Higher is better."""
    attr, higher = PERFORMANCE[metric]
    return getattr(c, attr) if higher else -getattr(c, attr)


FRONT_STEP = {"busbw_gbytes": 0.1, "days": 0.1, "usd_per_mtok": 0.01}
"""The front's performance resolution, as the Optimize page shows it: busbw [GB/s] and days to one decimal, the
cost per million output tokens to the cent [USD]; two values that round to the same step tie (``front_value``)."""


def front_value(c: Candidate, metric: str) -> float:
    """The candidate's performance on the front (higher is better): ``metric`` rounded to ``FRONT_STEP``, as a
    whole number of steps (infinite and NaN values as they are)."""
    value = _performance(c, metric)
    return value if not math.isfinite(value) else float(round(value / FRONT_STEP[metric]))


def pareto_front(cands: Iterable[Candidate], metric: str, objective: str = "cluster") -> list[Candidate]:
    """Feasible candidates no other beats on money (the objective's money axis, ``capex_of``: its own value, or the
    whole cluster's capex for days and the serving cost) and performance at the front's resolution
    (``front_value``: busbw equal when it rounds to the same 0.1 GB/s), cheapest first: a design joins when it
    performs a step better than every cheaper one, so no row is beaten by a cheaper row showing the same
    performance (a tie on both keeps the first in ``_order``)."""
    front: list[Candidate] = []
    best_perf = -math.inf
    for c in sorted((c for c in cands if c.costed), key=lambda c: _order(c, cost_axis(objective))):
        perf = front_value(c, metric)
        if perf > best_perf:
            front.append(c)
            best_perf = perf
    return front


def optimize(gpu: str, gpus: int, constraints: Constraints | None = None, grid: Grid | None = None,
             workers: int | None = None, catalog: Catalog | None = None, strict: bool = True,
             objective: str = "cluster", base: Design | None = None, on_progress=None,
             bounded: bool = True) -> OptimizeResult:
    """The cheapest design of ``gpus`` x ``gpu`` on ``grid`` meeting ``constraints``, and the front.

    ``objective`` (``OBJECTIVES``) is the capex "cheapest" minimises and the front's capex axis: ``cluster``
    (default, as before this parameter existed) the whole cluster's, ``compute`` the compute fabric's (its
    switches, transceivers, cables and NICs; the GPU nodes, storage and management networks left out). The
    budget constraint is always on the whole cluster's capex. ``base``: the design the candidates start from
    (``base_design``: every field the search does not set is ``base``'s; its GPU model must be ``gpu``).
    ``objective`` may also be the TCO, the cost per GPU-hour, days to train (with a job) or the serving cost per
    million output tokens (with a serving target): ``core.analysis.objectives``. ``on_progress``: called with a
    ``core.analysis.searchwatch.SearchProgress`` (candidates decided, the best and the front so far) as the
    search goes, a few times a second, and once at the end.

    ``bounded`` (default): bounds before detail. Each candidate's capex and power floors (``core.cost.cost_floor``,
    from its counts and the rack geometry) decide the budget and power before the physical layer when they alone
    exceed the limit, and a feasible candidate another costed one dominates by them is not costed (``_decide``,
    ``Candidate.pruned``): the optimum, the front, each switch family's cheapest, the rejection counts and the
    explanation are the same as with ``bounded=False``, which costs every candidate (``tests/test_optimize_bounds.py``).

    With ``strict=False`` a constraint set nothing meets returns a result with ``best`` None, an empty
    front, every candidate (for ``families``) and the ``DesignError``'s message and suggestion as the
    explanation, instead of raising.

    Raises
    ------
    InputError
        An unknown GPU or switch model, a bad fabric name, or an empty grid.
    DesignError
        No candidate meets every constraint: the message names the constraint that ruled out the most
        candidates (and how close the nearest came), the suggestion how to relax it.
    """
    with _collector_paused():
        return _optimize(gpu, gpus, constraints, grid, workers, catalog, strict,
                         _check_objective(objective, constraints or Constraints()), base, on_progress, bounded)


@contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off for one search: a search builds tens of thousands of short-lived
    objects and no cycles worth collecting, and each full collection walks every object of the process (a
    tenth of a 16,384-GPU search's serial time). Reference counting still frees everything; the collector's
    state is restored at the end (nested searches, ``largest_within``, leave it as they found it). At the end the
    objects the search left (its stages' caches) join the oldest generation at once (``gc.freeze`` then
    ``gc.unfreeze``, when nothing else is frozen), so the first collection after it does not walk them as young
    objects (half a second at 16,384 GPUs)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():  # the search's survivors (its caches) to the oldest generation, unwalked
            gc.freeze()
            gc.unfreeze()
        if was:
            gc.enable()


def _optimize(gpu: str, gpus: int, constraints: Constraints | None, grid: Grid | None, workers: int | None,
              catalog: Catalog | None, strict: bool, objective: str = "cluster",
              base: Design | None = None, on_progress=None, bounded: bool = True) -> OptimizeResult:
    from core.analysis.searchwatch import Tracker

    started = time.perf_counter()
    constraints = constraints or Constraints()
    grid = grid or Grid()
    catalog = catalog or load_catalog()
    designs = candidate_designs(gpu, gpus, constraints, grid, catalog, base)
    if not designs:
        raise InputError(_("the search grid is empty: no switch of the allowed fabric and models runs a port "
                           "speed of the grid"))
    workers = workers if workers is not None else min(2, usable_cpus())
    metric = performance_metric(constraints)
    tracker = Tracker(len(designs), objective, metric, on_progress) if on_progress is not None else None
    cands, sizings = _evaluate_all(designs, constraints, catalog, workers, objective, bounded, tracker)
    if bounded and not any(c.feasible for c in cands):  # what came nearest (and the envelope's shrinking) reads costs
        cands, sizings = _evaluate_all(designs, constraints, catalog, workers, objective, bounded=False)
    elif bounded:
        _cost_floored(cands, constraints, catalog, objective)
        _served_floored(cands, constraints, catalog, objective)
    rejected: dict[str, int] = {}
    for c in cands:
        if c.reason:
            key = constraint_word(c.reason) if c.reason in CONSTRAINT_WORDS else c.reason
            rejected[key] = rejected.get(key, 0) + 1
    feasible = [c for c in cands if c.feasible]
    costed = sum(1 for c in cands if not math.isnan(c.capex_usd))
    if not feasible:
        error = _infeasible(cands, constraints)
        if strict:
            raise error
        return OptimizeResult(best=None, best_plan=None, pareto=[], considered=len(cands), feasible=0,
                              rejected=rejected, seconds=time.perf_counter() - started, costed=costed,
                              sizings=sizings, metric=metric, explanation=[error.message, error.suggestion],
                              candidates=cands, objective=objective)
    best = min((c for c in feasible if c.costed), key=lambda c: _order(c, objective))
    best_plan = plan(best.design)
    recheck = _Evaluator(constraints, catalog).evaluate(best.index, best.design)
    if not recheck.feasible or abs(recheck.capex_usd - best_plan.cost.capex_usd) > 0.01:  # pragma: no cover
        raise AssertionError(f"optimizer winner fails on re-planning: {recheck.reason}")
    front = pareto_front(feasible, metric, objective)
    other = [c for c in feasible if c.costed and c.design.fabric != best.design.fabric]
    other_best = min(other, key=lambda c: _order(c, objective)) if other else None
    explanation = explain(best, other_best, cands, constraints, metric, objective, best_plan=best_plan)
    return OptimizeResult(best=best, best_plan=best_plan, pareto=front, considered=len(cands),
                          feasible=len(feasible), rejected=rejected, seconds=time.perf_counter() - started,
                          costed=costed, sizings=sizings, metric=metric, explanation=explanation, other_family=other_best,
                          candidates=cands, objective=objective, constraints=constraints,
                          pruned=sum(c.pruned for c in cands))


def _cost_floored(cands: list[Candidate], constraints: Constraints, catalog: Catalog, objective: str) -> None:
    """Detail the candidates that their budget or power floor alone rejected (``_Evaluator.evaluate``, ``refused``)
    and whose floor of the money objective (``floor_of``, in its ``places`` less one unit) is at most the best
    feasible candidate's: the explanation names the cheapest candidate one constraint ruled out (``_binding``; over
    the budget, one may have a lower TCO or compute fabric capex than the best), so its capex must be known; those
    above it cannot be that one. None for days or the cost per token: costed, such a candidate stops at the limit
    before its days or cost per token (``_Evaluator.detail``), so ``_order`` never puts it before the best."""
    feasible = [c for c in cands if c.costed]
    if not feasible or constraints.max_power_kw is None and constraints.budget_usd is None:
        return
    if objective not in MONEY:  # costed, it would stop at the limit with no days or cost per token: never named
        return
    digits = places(objective)
    cheapest = round(capex_of(min(feasible, key=lambda c: _order(c, objective)), objective), digits)
    evaluator = _Evaluator(constraints, catalog, bounded=False)
    for i, c in enumerate(cands):
        if c.reason in ("budget_usd", "max_power_kw") and math.isnan(c.capex_usd) and \
                round(floor_of(c, objective), digits) - 10.0 ** -digits <= cheapest:
            cands[i] = evaluator.evaluate(c.index, c.design)


def _served_floored(cands: list[Candidate], constraints: Constraints, catalog: Catalog, objective: str) -> None:
    """Detail the candidates the serving step ruled out before their bill (``_Evaluator.early_serving``) whose
    objective's value may be at most the best's (its floor: capex, compute fabric capex, TCO, cost per GPU-hour or
    per million output tokens of the floors, a cent and a relative millionth off; unknown, NaN, never is, as
    ``_order`` compares it): the explanation names the cheapest candidate one constraint ruled out (``_binding``),
    so its capex must be known as costing every candidate would know it; the rest cannot be that one."""
    from core.analysis.objectives import objective_value

    early = [i for i, c in enumerate(cands) if math.isnan(c.capex_usd) and c.reason in (
        "serving_target", "max_usd_per_million_tokens")]
    feasible = [c for c in cands if c.costed]
    if not early or not feasible:
        return
    best = objective_value(min(feasible, key=lambda c: _order(c, objective)), objective)
    evaluator = _Evaluator(constraints, catalog, bounded=False)
    for i in early:
        c = cands[i]
        floor = SimpleNamespace(capex_usd=c.capex_floor_usd, network_capex_usd=c.network_floor_usd,
                                tco_usd=c.tco_floor_usd, design=c.design, days=c.days,
                                usd_per_mtok=c.usd_per_mtok_floor)
        if objective_value(floor, objective) * (1 - 1e-6) - 0.01 <= best:
            cands[i] = evaluator.evaluate(c.index, c.design)


MAX_ENVELOPE_SEARCHES = 14
"""Most optimizer runs ``largest_within`` makes (each a full search at one GPU count)."""


@dataclass
class Envelope:
    """What ``largest_within`` found: the most GPUs whose cheapest design meets every constraint.

    ``gpus`` the largest feasible GPU count (a multiple of ``step_gpus``, the smallest buildable unit: a
    node, or an NVLink rack); ``result`` its search; ``next_gpus`` the next size up and ``next_reason``
    why it fails (the constraint that ruled its cheapest candidates out); ``searches`` optimizer runs made.
    """

    gpus: int
    step_gpus: int
    result: OptimizeResult
    next_gpus: int
    next_reason: str
    searches: int
    at_limit: bool = False
    """The budget or power buys more than the largest design allowed (``core.design`` bounds ``gpus``): ``gpus``
    is that limit, ``next_gpus`` is past it and was not searched."""

    def summary(self) -> dict:
        return {"gpus": self.gpus, "step_gpus": self.step_gpus, "next_gpus": self.next_gpus,
                "next_reason": self.next_reason, "searches": self.searches, "at_limit": self.at_limit,
                **self.result.summary()}


def largest_within(gpu: str, constraints: Constraints, grid: Grid | None = None, workers: int | None = None,
                   catalog: Catalog | None = None, objective: str = "cluster",
                   base: Design | None = None, max_gpus: int | None = None, on_progress=None) -> Envelope:
    """The most GPUs of ``gpu`` whose cheapest design meets ``constraints``, sized from a budget
    (``budget_usd``) or a power envelope (``max_power_kw``), at least one of which must be set.

    Method: an upper bound from the compute cost (or power) per GPU of the smallest design (the network
    only adds), then searches at shrinking sizes (proportional to how far the cheapest candidate misses
    the budget or power) until one is feasible, then bisection between the largest feasible and the
    smallest infeasible size, at most ``MAX_ENVELOPE_SEARCHES`` optimizer runs. It assumes the cheapest
    feasible capex and power grow with the GPU count (a larger cluster is never cheaper), which holds
    for the engine's cost model: every BOM count is non-decreasing in the node count. ``objective`` and
    ``base`` as ``optimize``'s (the size is what this search varies; ``base``'s own size is not used).
    ``max_gpus``: search no design larger than this [GPUs] (the app's limit per search; default: the design's
    own limit, 1,000,000 GPUs); an envelope that buys more returns the largest with ``at_limit``. ``on_progress``:
    each search's progress (``optimize``'s).

    Raises
    ------
    InputError
        Neither a budget nor a power envelope given.
    DesignError
        Not even the smallest unit (one node or NVLink rack) meets the constraints.
    """
    if constraints.budget_usd is None and constraints.max_power_kw is None:
        raise InputError(_("sizing from an envelope needs a budget or a maximum power"))
    catalog = catalog or load_catalog()
    _check_objective(objective, constraints)
    smallest = plan(base_design(gpu, 1, base, catalog), catalog)
    step = smallest.resolved.gpus
    # the nodes' own cost bounds the size: neither the compute fabric nor the storage and management networks
    # (core.networks, whose fixed part would make a one-node "per GPU" figure far too high)
    nodes_only = [r for r in smallest.bom if r.category == "compute"]
    compute_usd = sum(r.extended_price_usd for r in nodes_only) / step
    compute_kw = sum(r.extended_power_w for r in nodes_only) / 1000 * smallest.cost.pue / step
    bounds = []
    if constraints.budget_usd is not None and compute_usd > 0:
        bounds.append(constraints.budget_usd / compute_usd)
    if constraints.max_power_kw is not None and compute_kw > 0:
        bounds.append(constraints.max_power_kw / compute_kw)
    high = max(step, int(min(bounds) // step) * step) if bounds else step
    most = int(field_bounds("gpus")[1]) if max_gpus is None else min(int(field_bounds("gpus")[1]), max_gpus)
    largest = max(step, most // step * step)  # the design's declared limit (or the caller's): no search goes past it
    high = min(high, largest)
    searches = 0
    results: dict[int, OptimizeResult] = {}

    def run(gpus: int) -> OptimizeResult:
        nonlocal searches
        if gpus not in results:
            searches += 1
            with progress.span((searches - 1) / (MAX_ENVELOPE_SEARCHES + 1), searches / (MAX_ENVELOPE_SEARCHES + 1)):
                results[gpus] = optimize(gpu, gpus, constraints, grid, workers, catalog, strict=False,
                                         objective=objective, base=base, on_progress=on_progress)
        return results[gpus]

    feasible, infeasible = 0, high + step
    gpus = high
    while searches < MAX_ENVELOPE_SEARCHES:
        r = run(gpus)
        if r.best is not None:
            feasible = gpus
            break
        infeasible = gpus
        costed = [c for c in r.candidates if not math.isnan(c.capex_usd)]
        ratios = []
        if constraints.budget_usd is not None and costed:
            ratios.append(constraints.budget_usd / min(c.capex_usd for c in costed))
        if constraints.max_power_kw is not None and costed:
            ratios.append(constraints.max_power_kw / min(c.facility_kw for c in costed))
        shrunk = int(gpus * min(ratios) // step) * step if ratios and min(ratios) < 1 else gpus // 2 // step * step
        gpus = max(step, min(shrunk, gpus - step))
        if infeasible == step:
            break
    if not feasible:
        r = run(step)
        if r.best is None:
            raise DesignError(_("not even {gpus} {gpu} GPUs meet every constraint: {reason}").format(
                gpus=step, gpu=gpu, reason=r.explanation[0] if r.explanation else ""),
                r.explanation[1] if len(r.explanation) > 1 else _("Raise the budget or the power envelope."))
        feasible = step
    while infeasible - feasible > step and searches < MAX_ENVELOPE_SEARCHES:
        middle = (feasible + infeasible) // 2 // step * step
        if middle <= feasible:
            break
        if run(middle).best is not None:
            feasible = middle
        else:
            infeasible = middle
    best = results[feasible]
    if feasible == largest:  # the envelope holds more than the largest design: say so, search no further
        return Envelope(gpus=feasible, step_gpus=step, result=best, next_gpus=feasible + step, searches=searches,
                        next_reason=(_("a design has at most {most} GPUs; the budget or power envelope buys more, "
                                       "and the largest design is shown") if max_gpus is None else
                                     _("this search looks at designs of at most {most} GPUs; the budget or power "
                                       "envelope buys more, and the largest design is shown (the command line, "
                                       "python -m core optimize, searches up to the design limit)")).format(
                                          most=f"{most:,}"),
                        at_limit=True)
    following = results.get(feasible + step)
    if following is None and searches < MAX_ENVELOPE_SEARCHES + 1:
        following = run(feasible + step)
    reason = ""
    if following is not None and following.best is None and following.explanation:
        reason = following.explanation[0]
    return Envelope(gpus=feasible, step_gpus=step, result=best, next_gpus=feasible + step, next_reason=reason,
                    searches=searches)


@dataclass(frozen=True)
class FamilyRow:
    """One switch family of a search: a fabric, a leaf switch model and a topology.

    ``cheapest`` is its cheapest feasible candidate (None when none is feasible); ``reason`` is then what
    ruled most of its candidates out (a constraint's words or the engine's message, in the current
    language) and ``ruled_out`` how many it ruled out.
    """

    fabric: str
    switch: str
    topology: str
    considered: int
    feasible: int
    cheapest: Candidate | None
    reason: str
    ruled_out: int


def families(cands: Iterable[Candidate], objective: str = "cluster") -> list[FamilyRow]:
    """Every switch family (fabric, leaf switch, topology) of the searched candidates: feasible families
    cheapest first (by the objective's capex), then the families nothing in them met, each with the reason
    that ruled most out."""
    order = lambda c: _order(c, objective)  # noqa: E731
    groups: dict[tuple[str, str, str], list[Candidate]] = {}
    for c in cands:
        groups.setdefault(_switch_family(c), []).append(c)
    rows = []
    for (fabric, switch, topology), members in groups.items():
        feasible = [c for c in members if c.feasible]
        reasons: dict[str, int] = {}
        for c in members:
            if c.reason:
                reasons[c.reason] = reasons.get(c.reason, 0) + 1
        top = max(reasons, key=lambda k: (reasons[k], k)) if reasons and not feasible else ""
        rows.append(FamilyRow(fabric=fabric, switch=switch, topology=topology, considered=len(members),
                              feasible=len(feasible),
                              cheapest=min((c for c in feasible if c.costed), key=order) if feasible else None,
                              reason=constraint_word(top) if top else "", ruled_out=reasons.get(top, 0)))
    return sorted(rows, key=lambda r: (r.cheapest is None, order(r.cheapest) if r.cheapest else (0, 0, 0, 0),
                                       r.fabric, r.switch, r.topology))


def _infeasible(cands: list[Candidate], constraints: Constraints) -> DesignError:
    counts: dict[str, int] = {}
    for c in cands:
        if c.reason in CONSTRAINT_WORDS:
            counts[c.reason] = counts.get(c.reason, 0) + 1
    if not counts:
        first = next((c.reason for c in cands if c.reason), "")
        return DesignError(
            _("none of the {count} candidate designs can be built: {reason}").format(count=f"{len(cands):,}",
                                                                                    reason=first),
            _("Allow more fabrics or switch models, or plan another GPU count."))
    key = max(counts, key=lambda k: (counts[k], -CONSTRAINT_ORDER.index(k)))
    nearest = _nearest(cands, key)
    message = _("no design meets every constraint: {constraint} ruled out {count} of the {total} candidate "
                "designs").format(constraint=constraint_word(key), count=f"{counts[key]:,}", total=f"{len(cands):,}")
    if nearest:
        message += _("; the nearest reaches {value}").format(value=nearest)
    return DesignError(message + ".", _("Relax {constraint}, or widen the grid (fabrics, switch models).").format(
        constraint=constraint_word(key)))


_METRIC_OF = {"min_planes": ("planes", max, "count"), "max_tiers": ("tiers", min, "count"),
              "max_oversubscription": ("oversubscription", min, "ratio"),
              "min_bisection_gbytes_per_gpu": ("bisection_gbytes_per_gpu", max, "gbytes"),
              "max_bisection_ratio": ("bisection_ratio", min, "ratio"), "max_hops": ("switch_hops", min, "count"),
              "budget_usd": ("capex_usd", min, "usd"), "max_power_kw": ("facility_kw", min, "kw"),
              "min_busbw_gbytes": ("busbw_gbytes", max, "gbytes"), "max_step_s": ("step_s", min, "s"),
              "max_days": ("days", min, "days"), "max_usd_per_million_tokens": ("usd_per_mtok", min, "usd")}
"""Constraint key -> (the candidate's metric, the better of two values, how the value is shown)."""


def _metric_text(kind: str, value: float, unit: str = "GB/s") -> str:
    """A constraint's value as the explanation shows it: bandwidth [GB/s per direction in the engine] in
    ``unit`` (``core.units``), money in the one money format, the rest with their own unit."""
    if kind == "gbytes":
        return units.bandwidth(units.from_gbytes(value), unit)
    if kind == "usd":
        return usd(value)
    if kind == "kw":
        return units.power(value)  # the one power format (687 kW, 1.24 MW)
    if kind == "ratio":
        return units.ratio(value)  # the one ratio format (1:1, 1.5:1)
    return {"s": "{:.3f} s", "days": "{:.1f}"}.get(kind, "{:g}").format(value)


def _nearest(cands: list[Candidate], key: str) -> str:
    """The best value of ``key``'s metric among candidates it rejected, formatted ("" when it has none)."""
    if key not in _METRIC_OF:
        return ""
    attr, pick, kind = _METRIC_OF[key]
    values = [getattr(c, attr) for c in cands if c.reason == key and not
              (isinstance(getattr(c, attr), float) and math.isnan(getattr(c, attr)))]
    return _metric_text(kind, pick(values)) if values else ""


# --- explaining the choice ----------------------------------------------------------------------

BINDING_MARGIN = 0.10
"""A constraint binds at the winner when its value is within this share of the limit (else: "no constraint binds")."""


def design_label(c: Candidate) -> str:
    """A candidate in words (``core.designwords.design_words``, the one way a design is said): ``Two-tier QM9700
    InfiniBand, rail-optimized, 2:1 at the leaf, 400G ports, 1 plane``; a built design its bisection ratio too where
    it is not the leaf's (``core.designwords.taper_words``)."""
    from core.designwords import design_words
    from core.fabric.families import leaf_whatif, switch_tiers

    planned = not math.isnan(c.oversubscription)  # NaN: not planned, the leaf's words alone
    topology = c.design.topology  # a classic Dragonfly: one router tier, no leaf ratio (as ``Plan.switch_tiers``)
    return design_words(c.design, switch_tiers(topology, c.tiers) if c.tiers else 0,
                        total=units.ratio(c.oversubscription) if planned else None, leaves=leaf_whatif(topology))


def explain(best: Candidate, other: Candidate | None, cands: list[Candidate], constraints: Constraints,
            metric: str, objective: str = "cluster", unit: str = "GB/s", best_plan: Plan | None = None) -> list[str]:
    """Why the winner wins, in words: what it meets, which constraint binds (only within ``BINDING_MARGIN`` of its
    limit), what traffic of the job it cannot carry (``_traffic_caveats``; ``best_plan``, the winner's plan, gives
    the job's split) and the other fabric family (capex figures are the objective's, named, in US dollars shown
    by ``core.i18n.usd``; bandwidth in ``unit``, ``core.units``)."""
    from core.analysis.optimizewords import why_costlier

    feasible = f"{sum(c.feasible for c in cands):,}"
    if objective in ("cluster", "compute"):
        lines = [_("{design} ({objective}: {capex}) is the cheapest of {feasible} designs that meet every "
                   "constraint.").format(design=design_label(best), capex=usd(capex_of(best, objective)),
                                         objective=objective_word(objective, best), feasible=feasible)]
    else:
        lines = [_("{design}: {value} ({objective}), the lowest of {feasible} designs that meet every constraint.")
                 .format(design=design_label(best), objective=objective_word(objective),
                         value=objective_text(best, objective), feasible=feasible)]
    if objective != "cluster":
        lines.append(_("Whole-cluster capex {capex}.").format(capex=usd(best.capex_usd)))
    if constraints.min_busbw_gbytes is not None or metric == "busbw_gbytes":
        lines.append(_("All-reduce busbw {busbw} at {size} over {gpus} GPUs.").format(
            busbw=units.bandwidth(units.from_gbytes(best.busbw_gbytes), unit), size=format_size(constraints.busbw_size),
            gpus=f"{(best.design.gpus or 0):,}"))
    if not math.isnan(best.days):
        lines.append(_("The job trains in {days} days ({step} s per step).").format(
            days=f"{best.days:.1f}", step=f"{best.step_s:.3f}"))
    if not math.isnan(best.usd_per_mtok):
        lines.append(_("It serves the workload on {gpus} of its GPUs at {usd} per million output tokens.").format(
            gpus=f"{best.serving_gpus:,}", usd=usd(best.usd_per_mtok, cents=True)))
    lines += _binding(best, cands, constraints, objective, unit)
    lines += _traffic_caveats(best, cands, objective, constraints.job, best_plan)
    if other is not None and objective not in MONEY:
        lines.append(tidy_spaces(_("The best {fabric} design ({design}): {value} ({objective}).").format(
            fabric=vocab.FABRIC.label(other.design.fabric), design=design_label(other),
            objective=objective_word(objective), value=objective_text(other, objective))))
    elif other is not None:
        saving = capex_of(other, objective) - capex_of(best, objective)
        share = saving / capex_of(other, objective) if capex_of(other, objective) else 0.0
        lines.append(tidy_spaces(_(
            "{share} cheaper ({saving}) than the best {fabric} design ({design}); {why}").format(
            share=units.percent(share), saving=usd(saving, cents=objective in PER_UNIT),
            fabric=vocab.FABRIC.label(other.design.fabric),
            design=design_label(other), why=why_costlier(best, other, objective))))
    else:
        families = [f for f in FABRICS if f != best.design.fabric]
        reasons: dict[str, int] = {}
        for c in cands:
            if c.design.fabric in families and c.reason:
                reasons[c.reason] = reasons.get(c.reason, 0) + 1
        if reasons:
            top = max(reasons, key=reasons.get)
            lines.append(tidy_spaces(_("No {fabric} design meets every constraint; most are ruled out by: {reason}.")
                                     .format(fabric=vocab.FABRIC.label(families[0]),
                                             reason=constraint_word(top) if top in CONSTRAINT_WORDS else top)))
    return lines


def _binding(best: Candidate, cands: list[Candidate], constraints: Constraints, objective: str,
             unit: str) -> list[str]:
    """The binding constraints, every one the winner is within ``BINDING_MARGIN`` of, tightest first; else "no
    constraint binds" with the smallest margin and its constraint; a torus winner's switch hops, which the limit
    does not count; and the cheapest design ruled out by one constraint alone (what stops the search going
    cheaper), when there is one."""
    slacks = _slacks(best, constraints, unit)
    binding = [s for s in slacks if s[3] <= BINDING_MARGIN]
    lines = []
    if len(binding) == 1:
        key, value, limit, _slack = binding[0]
        lines.append(_("Binding constraint: {constraint} (this design {value}, limit {limit}: within {margin}).").format(
            constraint=constraint_word(key), value=value, limit=limit, margin=units.percent(BINDING_MARGIN)))
    elif binding:
        lines.append(_("Binding constraints, each within {margin} of its limit: {constraints}.").format(
            margin=units.percent(BINDING_MARGIN), constraints=join([
                _("{constraint} (this design {value}, limit {limit})").format(
                    constraint=constraint_word(key), value=value, limit=limit) for key, value, limit, _s in binding])))
    elif slacks:
        key, value, limit, slack = slacks[0]
        lines.append(_("No constraint binds: the cheapest design on the grid meets every limit with at least {margin} "
                       "to spare (the closest: {constraint}, this design {value}, limit {limit}).").format(
            margin=units.percent(slack), constraint=constraint_word(key), value=value, limit=limit))
    else:
        lines.append(_("No constraint binds: it is the cheapest buildable design costed on the grid."))
    if constraints.max_hops is not None and best.switch_hops is None:
        lines.append(_("It has no switches, so {constraint} does not limit it (its paths cross at most {hops} links "
                       "between nodes).").format(constraint=constraint_word("max_hops"), hops=number(best.hops)))
    single = [c for c in cands if c.reason in CONSTRAINT_WORDS and not math.isnan(c.capex_usd)
              and len(c.failed) == 1 and _order(c, objective) < _order(best, objective)]
    if single:
        nearest = min(single, key=lambda c: _order(c, objective))
        lines.append(_("The cheapest design ruled out ({design}, {capex}) fails only {constraint}.").format(
            design=design_label(nearest), capex=usd(capex_of(nearest, objective)),
            constraint=constraint_word(nearest.reason)))
    return lines


def _serves_all_traffic(c: Candidate) -> bool:
    """One fabric per plane (not rail-only, no per-rail planes: ``Candidate.islands``) and non-blocking end to end:
    its bisection ratio (``Candidate.oversubscription``, the number its label and the Optimize page's headline
    print, ``core.units.ratio``) reads 1:1, so every GPU reaches every other at its NIC rate, whatever the family
    (a 3:1 leaf, a Dragonfly's tapered global links, a torus's 6:1 cut all fail it)."""
    return c.islands <= 1 and not _tapered(c)


def _tapered(c: Candidate) -> bool:
    """Whether ``c``'s bisection ratio, as printed (``core.units.ratio``), is above 1:1."""
    return units.ratio(c.oversubscription) != units.ratio(1.0)


def job_cross_traffic(job, plan: Plan | None) -> list[str]:
    """The traffic of the training ``job`` that leaves a rail or a leaf, in words: expert-parallel all-to-all (the
    job's ``ep`` above 1, or a mixture-of-experts model, whose experts are spread over GPUs when trained at scale)
    and pipeline traffic between GPUs of different local ranks (the job's fastest split on ``plan``: a stage of
    ``gpus / pp`` GPUs that is not a whole number of nodes), in the words of ``plan``'s family
    (``core.fabric.families.words``: none where every NIC of a node is on the one fabric, a torus's, so a stage
    boundary's traffic leaves no rail); empty without a job."""
    if job is None:
        return []
    out = []
    if job.ep > 1 or (job.model.experts or 0) > 1:
        out.append(_("expert-parallel all-to-all"))
    if plan is not None:
        try:
            split = _searched_split_job(plan, job)
        except FabricPlannerError:
            split = job
        gpus, per_node = split.gpus or plan.resolved.gpus, plan.resolved.gpus_per_node
        pipeline = words(plan.resolved.topology, "optimize:pipeline", N_("pipeline stages on different rails"))
        if pipeline and split.pp > 1 and (gpus // split.pp) % per_node:
            out.append(pipeline)
    return out


def _traffic_caveats(best: Candidate, cands: list[Candidate], objective: str, job=None,
                     plan: Plan | None = None) -> list[str]:
    """What the winner cannot carry at full rate (rail-only or per-rail planes: no switch joins the rails; a
    bisection ratio above 1:1, the one the headline prints, whatever tapers it: the leaves, global links, a torus's
    cut): a warning
    when the training ``job`` has such traffic (``job_cross_traffic``), a note when there is no job, nothing when
    the job has none; with the cheapest feasible design that is neither (``_serves_all_traffic``); in the words of
    the winner's family (``core.fabric.families.words``: a torus has no rails to join)."""
    d = best.design
    limits = []
    if d.topology == "rail-only":
        limits.append(_("it is rail-only (no spine joins the rails, so traffic between rails first crosses NVLink "
                        "inside a node, PXN, and shares that node's NICs)"))
    elif best.islands > 1:
        limits.append(_("its per-rail planes are separate fabrics (no switch joins them, so traffic between planes "
                        "first crosses NVLink inside a node, PXN, and shares that node's NICs)"))
    if _tapered(best):
        limits.append(_("its bisection ratio is {ratio}, so traffic across the fabric (all-to-all, between "
                        "nodes far apart) gets as little as {share} of the injection bandwidth").format(
            ratio=units.ratio(best.oversubscription), share=units.percent(1 / best.oversubscription)))
    traffic = job_cross_traffic(job, plan)
    if not limits or (job is not None and not traffic):
        return []
    said = pgettext("between clauses", "; ").join(limits)
    if traffic:
        lines = [_("Warning: the training job has {traffic}, and {limits}.").format(
            traffic=pgettext("between traffic kinds", " and ").join(traffic), limits=said)]
    else:
        lines = [words(d.topology, "optimize:traffic:note", N_(
            "If the job has expert-parallel all-to-all or pipeline stages on different rails, note that "
            "{limits}.")).format(limits=said)]
    able = [c for c in cands if c.costed and _serves_all_traffic(c)]
    if able:
        near = min(able, key=lambda c: _order(c, objective))
        lines.append(words(d.topology, "optimize:traffic:able", N_(
            "The cheapest design that meets every constraint, joins every rail and is non-blocking (bisection "
            "ratio 1:1): {design}, {capex} (+{more}).")).format(
            design=design_label(near), capex=usd(capex_of(near, objective)),
            more=usd(capex_of(near, objective) - capex_of(best, objective))))
    else:
        lines.append(words(d.topology, "optimize:traffic:none", N_(
            "No design the search kept meets every constraint, joins every rail and is non-blocking (bisection "
            "ratio 1:1).")))
    return lines


def _slacks(best: Candidate, constraints: Constraints,
            unit: str = "GB/s") -> list[tuple[str, str, str, float]]:
    """Of the constraints set that ``best`` has a value for, least relative slack first (ties in
    ``CONSTRAINT_ORDER``): (key, its value, the limit, formatted (bandwidth in ``unit``), and the slack as a share
    of the limit)."""
    found = []
    for key in CONSTRAINT_ORDER:
        if key not in _METRIC_OF:  # serving_target is met or not: no slack to measure
            continue
        limit = getattr(constraints, key)
        attr, _pick, kind = _METRIC_OF[key]
        value = getattr(best, attr)
        if limit is None or value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        slack = abs(value - limit) / max(abs(limit), 1e-12)
        found.append((key, _metric_text(kind, value, unit), _metric_text(kind, limit, unit), slack))
    return sorted(found, key=lambda s: s[3])
