"""Availability over time: elements down, the fraction of time a job of N GPUs can run, expected bandwidth.

Method (stated in every result's ``method``):

* Each element of a class fails as a Poisson process at ``afr`` per year and is repaired in
  ``mttr_hours`` (``assets/catalog/reliability.toml``); at a random instant it is down with the
  steady-state probability ``q = r / (1 + r)``, ``r = afr x mttr / 8760`` (alternating renewal),
  independently of every other element.
* Expected elements down per class: ``count x q`` (closed form, exact under that model).
* Failures expected in a window (``expected_failures``): ``count x afr x hours / 8760``.
* The job fraction and the bandwidth: a seeded Monte Carlo over snapshots of the fabric (numpy).
  Per trial every node, its NICs and node-leaf links, every leaf, spine and core and every
  leaf-spine and spine-core link is up or down. Node ``i`` of group ``g`` (an SU, or a rack in
  top-of-rack designs) has its ``k`` node-leaf links on the ``L`` leaves of its group (link ``j`` on
  leaf ``j mod L``); leaf uplink ``u`` goes to spine ``u mod S`` of its pod; spine uplink ``u`` to
  core ``u mod C`` of the spine's core group. A node is *usable* when it is up and every one of its
  links reaches a live leaf (a node with a lost rail is drained: NCCL would reroute through
  PXN, but the job restarts without it); it is *cut off* when it is down or none of its links
  reaches a live leaf. A job of N GPUs runs in a trial when ``usable nodes x GPUs per node >= N``.
  Bandwidth: the healthy share of each switch tier's links (link up, both ends up), the
  bisection scaled by the smallest share (an aggregate-capacity estimate, not a max-flow).
* A Dragonfly+ (``core.fabric.dragonfly``): its groups are the pods (leaf uplink ``u`` to spine ``u mod S`` of
  its group, no cores) and its global links a tier of their own, read from the wiring
  (``DragonflyWiring.global_spines``): a global link is up when it and the spines at both ends are; the smallest
  share includes theirs (a lost spine takes its group's leaf links and its global links).
* A Dragonfly (``core.fabric.classic_dragonfly``): no spine; its routers are the leaves, and its local links (every
  two routers of a group) and global links (routers of two groups) are two tiers of their own, read from the
  wiring (``bundle_arrays``): a link is up when it and the routers at both ends are; the smallest share includes
  both (a lost router takes its nodes' links on its rail, its local and its global links).
* Spare nodes: the 99th percentile of unusable nodes over the trials (``spare_nodes_for_99pct``): hold
  that many back and a job on the rest runs 99% of the time.
* Closed form where one exists: with no shared element failing (leaf, spine, core rates zero),
  usable nodes are Binomial(nodes, p), ``p = (1-q_node)(1-q_nic)^k(1-q_link)^k``, and the job
  fraction is its tail ``P(X >= ceil(N / gpus_per_node))`` (``job_fraction_closed_form``); the tests
  compare the Monte Carlo with it.

Not modelled: correlated failures (a power feed, a firmware bug hitting many switches at once),
planned maintenance, the time a job needs to restart after a failure (that is goodput, not
availability), and the several islands of rail-only / per-rail-plane designs beyond their counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from pydantic import BaseModel, ConfigDict

from core import plurals
from core.errors import InputError
from core.fabric.families import node_to_node, require_model
from core.fabric.sizing import FabricPlan
from core.fabric.wiring import Wiring
from core.i18n import N_, _
from core.spares import reliability_table

HOURS_PER_YEAR = 8760.0
CLASSES = ("gpu_node", "nic", "link", "switch")
"""Element classes the availability model fails (transceiver and cable are parts of a link)."""
METHOD = ("steady-state Poisson failures with repair (q = r/(1+r), r = afr x mttr / 8760), independent "
          "elements; expected down elements in closed form; job fraction and bandwidth by a seeded Monte "
          "Carlo over nodes, NICs, links and switches (binomial closed form when no shared switch fails)")
GLOBAL_METHOD = ("; Dragonfly+: groups as pods, global links a tier of their own (up when the link and both end "
                 "spines are)")
TORUS_METHOD = ("; torus: node to node, no switch; a link works when it, the NIC ports at both ends and both nodes "
                "are up; a node is usable with its own ports and cables whole (a lost neighbour is routed around)")
ROUTER_METHOD = ("; Dragonfly: routers as leaves, local and global links two tiers of their own (up when the link and "
                 "both end routers are)")


class ClassRate(BaseModel):
    """One element class's failure rate and repair time."""

    model_config = ConfigDict(frozen=True)

    afr: float
    """Failures per element per year."""
    mttr_hours: float
    source: str = ""
    grade: str = ""

    @property
    def mtbf_hours(self) -> float:
        return math.inf if self.afr <= 0 else HOURS_PER_YEAR / self.afr

    @property
    def unavailability(self) -> float:
        """Steady-state probability the element is down at a random instant."""
        r = self.afr * self.mttr_hours / HOURS_PER_YEAR
        return r / (1.0 + r)


def default_rates() -> dict[str, ClassRate]:
    """The catalog's rates per element class (``reliability.toml``)."""
    return {name: ClassRate(afr=e["afr"], mttr_hours=e["mttr_hours"], source=e["source"], grade=e["grade"])
            for name, e in reliability_table()["reliability"].items()}


LINK_PARTS = {"transceiver": 2, "cable": 1}
"""What one link is made of (``reliability.toml``: "One link = its two transceivers and its cable"): a link fails
when any part does, so its rate is the sum of its parts' rates (``link_afr``)."""


def link_afr(rates: dict[str, ClassRate]) -> float:
    """A link's failure rate [per year] from its parts' rates: 2 x transceiver + 1 x cable (the catalog's parts,
    40% and 20% of the HPN link rate, add up to its 0.00684 per year)."""
    return sum(count * rates[part].afr for part, count in LINK_PARTS.items())


def rates_with(overrides: dict[str, dict] | None = None) -> dict[str, ClassRate]:
    """Default rates with ``{"switch": {"afr": 0.08}, ...}`` applied; unknown classes or bad values refused.

    A changed transceiver or cable rate moves the link's rate with it (``link_afr``: a link is its parts), unless the
    link's own rate is given, which then stands as given (the parts' rates still size their spares)."""
    rates = default_rates()
    for name, change in (overrides or {}).items():
        if name not in rates:
            raise InputError(_("unknown element class {name}; use one of {classes}").format(
                name=str(name)[:40], classes=", ".join(sorted(rates))))
        for key, value in change.items():
            if key not in ("afr", "mttr_hours") or not isinstance(value, (int, float)) or value < 0 \
                    or not math.isfinite(value):
                raise InputError(_("{name}: {key} must be a number of at least 0").format(
                    name=name, key=str(key)[:40]))
        rates[name] = rates[name].model_copy(update=change)
    overrides = overrides or {}
    if "afr" not in overrides.get("link", {}) and any("afr" in overrides.get(part, {}) for part in LINK_PARTS):
        rates["link"] = rates["link"].model_copy(update={"afr": link_afr(rates)})
    return rates


class Shape(BaseModel):
    """The fabric as the availability model sees it (one plane's structure, counts over all planes)."""

    model_config = ConfigDict(frozen=True)

    nodes: int
    gpus_per_node: int
    links_per_node: int
    """Node-leaf links per node (all planes)."""
    nodes_per_group: int
    leaves_per_group: int
    """Leaves a group's nodes attach to (all planes)."""
    groups: int
    leaf_uplinks: int
    spines_per_pod: int
    groups_per_pod: int
    spines: int
    spine_uplinks: int
    cores_per_group: int
    cores: int
    bisection_tbits_one_direction: float = 0.0
    global_links: tuple[tuple[int, int], ...] = ()
    """Switches at the two ends of every global link: spines of a Dragonfly+ (the model's spine numbers: a group's
    spines of every plane side by side), routers of a Dragonfly, which has no spine (the model's leaf numbers); empty
    for the folded Clos."""
    local_links: tuple[tuple[int, int], ...] = ()
    """Routers (the model's leaf numbers) at the two ends of every local link of a Dragonfly (two routers of a
    group); empty for the others."""
    torus_links: tuple[tuple[int, int, int, int], ...] = ()
    """A torus's node-to-node links (``core.fabric.torus``): ``(node a, its port, node b, its port)``, the port one of
    the node's ``links_per_node`` cabled NIC ports; empty for a fabric with switches."""

    @property
    def leaves(self) -> int:
        return self.groups * self.leaves_per_group


def shape_of(plan) -> Shape:
    """The shape of a ``core.plan.Plan`` for the model: the counts of its ``core.fabric.wiring.Wiring`` over every
    plane and island (groups and pods as one plane's; a full pod's spine uplinks from the sizing).

    Approximate for a partial last pod of three tiers: every spine has a full pod's uplinks (the last pod's spines
    have fewer, ``FabricPlan.spine_uplinks_in_pod``), so its spines count a few more links, each a little less
    likely to matter."""
    require_model(plan.fabric, "availability", _("The availability model"))
    if node_to_node(plan.fabric.family):
        return _torus_shape(plan)
    w = Wiring.of(plan)
    copies = w.planes * w.islands
    per_group = max(1, min(w.nodes_per_group, w.nodes))
    spines = w.spines * copies
    grouped = "global" in w.link_classes  # groups joined by global links: their pods
    return Shape(
        nodes=w.nodes, gpus_per_node=plan.resolved.gpus_per_node, links_per_node=w.rails * copies,
        nodes_per_group=per_group, leaves_per_group=w.leaves_per_group * copies, groups=w.groups,
        leaf_uplinks=w.leaf_uplinks if spines else 0, spines_per_pod=max(1, spines // w.pods) if spines else 0,
        groups_per_pod=w.groups_per_pod if "core" in w.roles or grouped else max(1, w.groups), spines=spines,
        spine_uplinks=plan.fabric.spine_uplinks if "core" in w.roles else 0,
        cores_per_group=max(1, w.cores_per_group) if "core" in w.roles else 0, cores=w.cores * copies,
        bisection_tbits_one_direction=plan.bandwidth.bisection_tbits_one_direction,
        global_links=_switch_links(w, "global", copies) if grouped else (),
        local_links=_switch_links(w, "local", copies) if "local" in w.link_classes else (),
    )


def _torus_shape(plan) -> Shape:
    """``shape_of`` a torus: its nodes, each with its cabled NIC ports (``links_per_node``, one link each), and its
    links by their two ends (``torus_links``); no switch."""
    from core.fabric.wiring import wiring_of

    r = plan.resolved
    w = wiring_of(plan.fabric, r.nodes, r.nics_per_node)
    dims, a, b = w.pair_arrays()
    ends = []
    for lane in range(w.width):
        plus = np.array([w.port(i, 1, lane) for i in range(len(w.dims))])[dims]
        minus = np.array([w.port(i, -1, lane) for i in range(len(w.dims))])[dims]
        ends += zip(a.tolist(), plus.tolist(), b.tolist(), minus.tolist())
    return Shape(nodes=w.nodes, gpus_per_node=r.gpus_per_node, links_per_node=w.width * len(set(
        p for e in ends for p in (e[1], e[3]))), nodes_per_group=w.nodes, leaves_per_group=0, groups=1,
        leaf_uplinks=0, spines_per_pod=0, groups_per_pod=1, spines=0, spine_uplinks=0, cores_per_group=0, cores=0,
        bisection_tbits_one_direction=plan.bandwidth.bisection_tbits_one_direction, torus_links=tuple(ends))


def _switch_links(w, kind: str, copies: int) -> tuple[tuple[int, int], ...]:
    """Both end switches of every link of class ``kind`` (between two switches of one role: a Dragonfly+'s global
    links between spines, a Dragonfly's local and global links between routers) in every plane and island of wiring
    ``w``, in the model's numbering: spine ``j`` of group ``G`` in copy ``p`` is ``G s P + p s + j`` (``s`` spines
    per group, ``P`` copies), leaf ``r`` of scalable unit ``g`` is ``g R P + p R + r`` (``R`` leaves per unit)."""
    role, first, _role, second, count = w.bundle_arrays(kind)
    per = w.spines_per_pod if role == "spine" else w.leaves_per_group
    ends = []
    for k in (np.repeat(first, count), np.repeat(second, count)):
        unit, j = np.divmod(k, per)
        ends.append(unit * per * copies + j)
    out: list[tuple[int, int]] = []
    for p in range(copies):
        out += zip((ends[0] + p * per).tolist(), (ends[1] + p * per).tolist())
    return tuple(out)


def element_counts(shape: Shape) -> dict[str, int]:
    """Elements per class the model fails."""
    if shape.torus_links:  # node to node: a NIC port at each end of every link, no switch
        return {"gpu_node": shape.nodes, "nic": shape.nodes * shape.links_per_node, "link": len(shape.torus_links),
                "switch": 0}
    return {
        "gpu_node": shape.nodes,
        "nic": shape.nodes * shape.links_per_node,
        "link": shape.nodes * shape.links_per_node + shape.leaves * shape.leaf_uplinks
        + shape.spines * shape.spine_uplinks + len(shape.global_links) + len(shape.local_links),
        "switch": shape.leaves + shape.spines + shape.cores,
    }


def expected_failures(shape: Shape, hours: float, rates: dict[str, ClassRate] | None = None) -> dict[str, float]:
    """Failures expected per class in ``hours`` of operation (Poisson mean ``count x afr x hours / 8760``)."""
    rates = rates or default_rates()
    return {name: count * rates[name].afr * hours / HOURS_PER_YEAR for name, count in element_counts(shape).items()}


def job_fraction_closed_form(shape: Shape, job_gpus: int, rates: dict[str, ClassRate]) -> float:
    """P(usable nodes >= the job's nodes) when only node-local elements fail (Binomial tail)."""
    k = shape.links_per_node
    p = (1 - rates["gpu_node"].unavailability) * ((1 - rates["nic"].unavailability)
                                                  * (1 - rates["link"].unavailability)) ** k
    need = math.ceil(job_gpus / shape.gpus_per_node)
    return binomial_tail(shape.nodes, p, need)


def binomial_tail(n: int, p: float, at_least: int) -> float:
    """P(X >= at_least) for X ~ Binomial(n, p), summed in log space (exact to float rounding)."""
    if at_least <= 0:
        return 1.0
    if at_least > n:
        return 0.0
    if p >= 1.0:
        return 1.0
    if p <= 0.0:
        return 0.0
    lp, lq = math.log(p), math.log1p(-p)
    logs = [math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(n - x + 1) + x * lp + (n - x) * lq
            for x in range(at_least, n + 1)]
    top = max(logs)
    return min(1.0, math.exp(top) * math.fsum(math.exp(v - top) for v in logs))


class MonteCarloRun(BaseModel):
    """What every availability result states of its Monte Carlo run (``Availability``, and a design with pods'
    ``core.analysis.podavail.PodsAvailability``): the method's words, the trials, the seed and the job's GPUs."""

    model_config = ConfigDict(frozen=True)

    method: str
    trials: int
    seed: int
    job_gpus: int


def checked_run(trials, job_gpus: int | None, total_gpus: int) -> int:
    """The job's GPUs of a Monte Carlo availability run over a cluster of ``total_gpus`` GPUs (all of them when
    ``job_gpus`` is None), after checking ``trials`` (a whole number from 1 to 100,000) and the job (1 to
    ``total_gpus`` GPUs); ``InputError`` saying which is out of range."""
    job_gpus = total_gpus if job_gpus is None else job_gpus
    if not isinstance(trials, int) or not 1 <= trials <= 100_000:
        raise InputError(_("trials must be a whole number from 1 to 100000"))
    if not isinstance(job_gpus, int) or not 1 <= job_gpus <= total_gpus:
        raise InputError(_("a job of {job} GPUs does not fit this cluster of {total} GPUs").format(
            job=job_gpus, total=total_gpus))
    return job_gpus


def expected_down_text(avail: "Availability", name: str) -> str:
    """Elements of class ``name`` down on average (``Availability.expected_down``) as the Resilience page's column
    and ``python -m core availability``'s row write it: ``core.units.number``'s three significant figures (0.000253
    NICs, 0.00000279 switches: above zero reads above zero, where three decimals wrote 0.000); "-" where the design
    counts none (a torus's switches, a cloud provider's links and switches), as Compare shows a count a design does
    not have."""
    from core import units

    return units.number(avail.expected_down[name]) if avail.elements.get(name) else "-"


class Availability(MonteCarloRun):
    """Result of ``availability``; JSON-ready via ``to_json``."""

    elements: dict[str, int]
    expected_down: dict[str, float]
    """Closed form ``count x q`` per class."""
    mean_down_sampled: dict[str, float]
    """Monte Carlo mean of nodes and switches down (a check on ``expected_down``)."""
    job_run_fraction: float
    job_run_fraction_stderr: float
    job_run_fraction_closed_form: float | None
    """The Binomial value when no shared element (switch) can fail, else None."""
    expected_gpus_usable: float
    interruptions_per_day: float
    """Failures per day over every element of the cluster (all classes): what interrupts a job spanning it."""
    spare_nodes_for_99pct: int
    """Nodes to hold back so a job on the rest can run 99% of the time: the 99th percentile of unusable
    nodes over the trials (Monte Carlo; Binomial quantile when only node-local elements fail)."""
    expected_gpus_cut_off: float
    expected_gpus_degraded: float
    expected_bandwidth_share: float
    expected_bisection_tbits_one_direction: float
    healthy_bisection_tbits_one_direction: float
    rates: dict[str, dict]
    notes: tuple[str, ...] = ()
    """What the result leaves out, in sentences (on a cloud instance's adapters: the provider's links and
    switches, ``PROVIDER_CLASSES``)."""

    def to_json(self) -> dict:
        return self.model_dump(mode="json")


def wiring(shape: Shape) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Index arrays of the model's fabric: the leaf of each node-leaf link ``(nodes, k)``, the spine of each
    leaf uplink ``(leaves, leaf_uplinks)`` and the core of each spine uplink ``(spines, spine_uplinks)``
    (None without that tier). The same wiring as ``core.fabric.topology.fabric_graph`` (tests compare them).

    Not ``core.fabric.wiring.Wiring``'s numbering: the model's ``Shape`` puts every plane's and island's leaves of a
    group side by side (one fabric of all planes), can be built without a plan, and this index layout fixes which
    seeded draw falls on which element, so renumbering would change every Monte Carlo result."""
    n, k, L, G = shape.nodes, shape.links_per_node, shape.leaves_per_group, shape.groups
    node_group = np.minimum(np.arange(n) // shape.nodes_per_group, G - 1)
    link_leaf = node_group[:, None] * L + (np.arange(k) % L)[None, :]
    up_spine = up_core = None
    if shape.spines:
        pods = max(1, shape.spines // shape.spines_per_pod)
        leaf_pod = np.minimum(np.arange(shape.leaves) // (shape.groups_per_pod * L), pods - 1)
        up_spine = leaf_pod[:, None] * shape.spines_per_pod + (np.arange(shape.leaf_uplinks) % shape.spines_per_pod)[None, :]
        up_spine = np.minimum(up_spine, shape.spines - 1)
    if shape.cores:
        core_groups = max(1, shape.cores // shape.cores_per_group)
        spine_cgroup = np.arange(shape.spines) % shape.spines_per_pod % core_groups
        up_core = spine_cgroup[:, None] * shape.cores_per_group + (np.arange(shape.spine_uplinks)
                                                                   % shape.cores_per_group)[None, :]
    return link_leaf, up_spine, up_core


def _down(rng: np.random.Generator, shape: tuple[int, ...], q: float) -> np.ndarray:
    if q <= 0:
        return np.zeros(shape, dtype=bool)
    return rng.random(shape, dtype=np.float32) < q


SHOWN_TRIALS, SHOWN_TRIALS_LARGE, LARGE_GPUS = 1000, 200, 32_768
"""Monte Carlo trials of the availability every surface shows (the Resilience page, the review pack; seed 0):
fewer past ``LARGE_GPUS`` GPUs, so the page stays quick."""


def shown_trials(gpus: int) -> int:
    """The trials of the availability the app and the review pack show for a design of ``gpus`` GPUs."""
    return SHOWN_TRIALS if gpus <= LARGE_GPUS else SHOWN_TRIALS_LARGE


@dataclass(frozen=True)
class _Trials:
    """What ``availability`` draws, whatever the job's size: usable nodes per trial and the sums over the trials."""

    usable_counts: np.ndarray
    usable_sum: float
    cut_sum: float
    degraded_sum: float
    share_sum: float
    down_sum: dict[str, float]


@lru_cache(maxsize=4)
def _simulate(shape: Shape, trials: int, seed: int, unavailability: tuple[float, ...]) -> _Trials:
    """The seeded Monte Carlo trials of ``shape`` with the per-class unavailability ``unavailability`` (in
    ``CLASSES`` order), kept for the last few shapes: the job's size only decides which trials it runs in, so a
    second job on the same cluster (the review pack's spare-node row) reads the same draws."""
    q = dict(zip(CLASSES, unavailability))
    rng = np.random.default_rng(seed)
    if shape.torus_links:
        return _simulate_torus(shape, trials, rng, q)
    n, k = shape.nodes, shape.links_per_node
    link_leaf, up_spine, up_core = wiring(shape)
    ends = np.asarray(shape.global_links, dtype=np.int64).reshape(-1, 2).T
    local_ends = np.asarray(shape.local_links, dtype=np.int64).reshape(-1, 2).T
    lu, su = shape.leaf_uplinks, shape.spine_uplinks
    chunk = max(1, min(trials, 2_000_000 // max(1, n * k + shape.leaves * lu + shape.spines * su
                                                + len(shape.global_links) + len(shape.local_links))))

    def draw(t: int) -> tuple:
        node_down = _down(rng, (t, n), q["gpu_node"])
        path_down = _down(rng, (t, n, k), q["nic"]) | _down(rng, (t, n, k), q["link"])
        leaf_down = _down(rng, (t, shape.leaves), q["switch"])
        lost = path_down | leaf_down[:, link_leaf]
        any_lost, all_lost = lost.any(axis=2), lost.all(axis=2)
        usable = ~node_down & ~any_lost
        cut = node_down | all_lost
        down = {"gpu_node": node_down.sum(), "nic": 0, "link": 0, "switch": leaf_down.sum()}
        share = np.ones(t)
        if shape.spines:
            spine_down = _down(rng, (t, shape.spines), q["switch"])
            ls_down = _down(rng, (t, shape.leaves, lu), q["link"])
            ls_ok = ~ls_down & ~leaf_down[:, :, None] & ~spine_down[:, up_spine]
            share = np.minimum(share, ls_ok.mean(axis=(1, 2)))
            down["switch"] = down["switch"] + spine_down.sum()
            down["link"] += ls_down.sum()
            if shape.cores:
                core_down = _down(rng, (t, shape.cores), q["switch"])
                sc_down = _down(rng, (t, shape.spines, su), q["link"])
                sc_ok = ~sc_down & ~spine_down[:, :, None] & ~core_down[:, up_core]
                share = np.minimum(share, sc_ok.mean(axis=(1, 2)))
                down["switch"] = down["switch"] + core_down.sum()
                down["link"] += sc_down.sum()
            if shape.global_links:
                share = np.minimum(share, _global_share(rng, spine_down, ends, q["link"], down))
        elif shape.local_links or shape.global_links:  # routers joined to each other: local and global tiers
            for router_ends in (local_ends, ends):
                if router_ends.shape[1]:
                    share = np.minimum(share, _global_share(rng, leaf_down, router_ends, q["link"], down))
        else:  # one tier: a node's bandwidth share is its live links
            share = np.minimum(share, 1.0 - lost.mean(axis=(1, 2)))
        return usable, cut, ~cut & any_lost, share, down

    return _accumulated(trials, chunk, draw)


def _simulate_torus(shape: Shape, trials: int, rng: np.random.Generator, q: dict) -> _Trials:
    """``_simulate`` of a torus (``Shape.torus_links``): per trial every node, its cabled NIC ports and every link up
    or down. A link works when it, the NIC ports at both ends and both nodes are up. A node is usable when it is up
    and every one of its links works but for a neighbour being down (its own ports and cables whole: a lost port or
    cable drains it, as a lost rail does on a fabric with switches; a lost neighbour is routed around); it is cut off
    when it is down or none of its links works. Bandwidth: the share of links working."""
    n, k = shape.nodes, shape.links_per_node
    ends = np.asarray(shape.torus_links, dtype=np.int64).reshape(-1, 4)
    m = len(ends)
    node_link = np.zeros((n, k), dtype=np.int64)  # the link on every node's port
    node_link[ends[:, 0], ends[:, 1]] = np.arange(m)
    node_link[ends[:, 2], ends[:, 3]] = np.arange(m)
    far = np.zeros((n, k), dtype=np.int64)  # the NIC port (node x k + port) at the link's other end
    far[ends[:, 0], ends[:, 1]] = ends[:, 2] * k + ends[:, 3]
    far[ends[:, 2], ends[:, 3]] = ends[:, 0] * k + ends[:, 1]
    chunk = max(1, min(trials, 2_000_000 // max(1, 3 * n * k + m)))

    def draw(t: int) -> tuple:
        node_down = _down(rng, (t, n), q["gpu_node"])
        nic_down = _down(rng, (t, n * k), q["nic"])
        cable_down = _down(rng, (t, m), q["link"])
        link_ok = (~cable_down & ~node_down[:, ends[:, 0]] & ~node_down[:, ends[:, 2]]
                   & ~nic_down[:, ends[:, 0] * k + ends[:, 1]] & ~nic_down[:, ends[:, 2] * k + ends[:, 3]])
        own_lost = (nic_down.reshape(t, n, k) | cable_down[:, node_link] | nic_down[:, far]).any(axis=2)
        works = link_ok[:, node_link]
        usable = ~node_down & ~own_lost
        cut = node_down | ~works.any(axis=2)
        return (usable, cut, ~cut & ~works.all(axis=2), link_ok.mean(axis=1),
                {"gpu_node": node_down.sum(), "nic": nic_down.sum(), "link": cable_down.sum()})

    return _accumulated(trials, chunk, draw)


def _accumulated(trials: int, chunk: int, draw) -> _Trials:
    """``trials`` Monte Carlo trials drawn ``chunk`` at a time by ``draw(t)`` (``t`` trials: per trial and node
    whether it is usable, cut off and degraded, per trial the bandwidth share, and the elements drawn down per
    class), summed into a ``_Trials``."""
    usable_counts = []
    usable_sum = cut_sum = degraded_sum = share_sum = 0.0
    down_sum = dict.fromkeys(CLASSES, 0.0)
    done = 0
    while done < trials:
        t = min(chunk, trials - done)
        usable, cut, degraded, share, down = draw(t)
        n_usable = usable.sum(axis=1)
        usable_counts.append(n_usable)
        usable_sum += n_usable.sum()
        cut_sum += cut.sum()
        degraded_sum += degraded.sum()
        share_sum += share.sum()
        for name, value in down.items():
            down_sum[name] += float(value)
        done += t
    counts = np.concatenate(usable_counts)
    counts.setflags(write=False)
    return _Trials(counts, usable_sum, cut_sum, degraded_sum, share_sum, down_sum)


def _global_share(rng: np.random.Generator, spine_down: np.ndarray, ends: np.ndarray, q_link: float,
                  down: dict) -> np.ndarray:
    """Per trial, the share of links between switches (global links, a Dragonfly's local links) up with both end
    switches up (``spine_down``: the switches the ends index, trials x switches; ``ends``: 2 x links); the links
    drawn down are added to ``down["link"]``."""
    link_down = _down(rng, (spine_down.shape[0], ends.shape[1]), q_link)
    down["link"] += link_down.sum()
    return (~link_down & ~spine_down[:, ends[0]] & ~spine_down[:, ends[1]]).mean(axis=1)


PROVIDER_CLASSES = ("link", "switch")
"""Element classes that are the cloud provider's on a cloud instance's adapters (``Nic.transport``): the stand-in
Clos's links and switches, which the availability model leaves out (as ``core.analysis.spof`` leaves out their
single points, ``spof.PROVIDER_NOTE``); the nodes and their NICs (the instances' adapters) stay."""


def _provider_scope(plan_or_shape, rates: dict[str, ClassRate]) -> tuple[dict[str, ClassRate], tuple[str, ...]]:
    """``rates`` with the provider's classes (``PROVIDER_CLASSES``) never failing, and the note that says so, on a
    cloud instance's adapters; ``rates`` as given and no note for a fabric that is bought (or a bare ``Shape``)."""
    transport = getattr(getattr(getattr(plan_or_shape, "resolved", None), "nic", None), "transport", None)
    if not transport:
        return rates, ()
    from core import vocab
    from core.analysis.spof import PROVIDER_NOTE

    kept = {name: (rate.model_copy(update={"afr": 0.0}) if name in PROVIDER_CLASSES else rate)
            for name, rate in rates.items()}
    return kept, (_(PROVIDER_NOTE).format(transport=vocab.TRANSPORT.label(transport)),)


LEVEL2_NOTE = N_("Not modelled: the second NVLink level's {switches} and {links} (the catalog has no failure rates of "
                 "their own); the links and switches counted above are the scale-out fabric's.")
"""The availability's note on a design whose NVLink domain spans racks: its level-2 switch units and cables
(``core.fabric.domainlevels``, counted on the Designer's cards: its cables among the links) are not among the element classes."""


def _level2_notes(plan_or_shape) -> tuple[str, ...]:
    """``LEVEL2_NOTE`` with its counts for a plan whose NVLink domain has a second level; none otherwise (or for a
    bare ``Shape``)."""
    from core.fabric.domainlevels import scaleup_of

    resolved = getattr(plan_or_shape, "resolved", None)
    totals = scaleup_of(resolved).totals() if resolved is not None and resolved.nvlink_rack_gpus else {}
    if not totals.get("level2_switches"):
        return ()
    return (_(LEVEL2_NOTE).format(switches=plurals.switches(totals["level2_switches"]),
                                  links=plurals.links(totals["level2_cables"])),)


def availability(plan_or_shape, job_gpus: int | None = None, trials: int = 1000, seed: int = 0,
                 rates: dict[str, ClassRate] | None = None) -> Availability:
    """Monte Carlo availability of a design (a ``Plan`` or a ``Shape``); see the module docstring. On a cloud
    instance's adapters the provider's links and switches are left out (``PROVIDER_CLASSES``, ``notes``)."""
    shape = plan_or_shape if isinstance(plan_or_shape, Shape) else shape_of(plan_or_shape)
    rates, notes = _provider_scope(plan_or_shape, rates or default_rates())
    total_gpus = shape.nodes * shape.gpus_per_node
    job_gpus = checked_run(trials, job_gpus, total_gpus)
    q = {name: rates[name].unavailability for name in CLASSES}
    n, gpn = shape.nodes, shape.gpus_per_node
    sim = _simulate(shape, trials, seed, tuple(q[name] for name in CLASSES))
    usable_counts = sim.usable_counts
    usable_sum, cut_sum, degraded_sum, share_sum, down_sum = (sim.usable_sum, sim.cut_sum, sim.degraded_sum,
                                                               sim.share_sum, sim.down_sum)
    ran = usable_counts >= math.ceil(job_gpus / gpn)
    unusable = n - usable_counts
    spare_nodes = int(np.sort(unusable)[min(trials - 1, math.ceil(0.99 * trials) - 1)])
    fraction = float(ran.mean())
    counts = element_counts(shape)
    if notes:
        counts = {name: 0 if name in PROVIDER_CLASSES else count for name, count in counts.items()}
    # a torus's links and the NIC ports at their far ends are shared by two nodes: Binomial only with nodes failing
    shared_zero = q["switch"] == 0 and (not shape.torus_links or q["link"] == q["nic"] == 0)
    return Availability(
        method=METHOD + (ROUTER_METHOD if shape.local_links else GLOBAL_METHOD if shape.global_links else
                         TORUS_METHOD if shape.torus_links else ""),
        trials=trials, seed=seed, job_gpus=job_gpus, elements=counts,
        expected_down={name: counts[name] * q[name] for name in CLASSES},
        mean_down_sampled={name: down_sum[name] / trials for name in ("gpu_node", "switch")},
        job_run_fraction=fraction,
        job_run_fraction_stderr=math.sqrt(max(fraction * (1 - fraction), 1e-12) / trials),
        job_run_fraction_closed_form=job_fraction_closed_form(shape, job_gpus, rates) if shared_zero else None,
        expected_gpus_usable=usable_sum / trials * gpn,
        spare_nodes_for_99pct=spare_nodes,
        interruptions_per_day=sum(expected_failures(shape, 24.0, rates).values()),
        expected_gpus_cut_off=cut_sum / trials * gpn,
        expected_gpus_degraded=degraded_sum / trials * gpn,
        expected_bandwidth_share=share_sum / trials,
        expected_bisection_tbits_one_direction=share_sum / trials * shape.bisection_tbits_one_direction,
        healthy_bisection_tbits_one_direction=shape.bisection_tbits_one_direction,
        rates={name: {"afr": rates[name].afr, "mttr_hours": rates[name].mttr_hours,
                      "unavailability": q[name], "grade": rates[name].grade} for name in CLASSES},
        notes=notes + _level2_notes(plan_or_shape),
    )
