"""Single points of failure: every element whose loss alone cuts a GPU off or splits the cluster.

``single_points(plan)`` returns a ``SpofResult``: each element (named as in
``core.fabric.topology.fabric_graph``; see ``core.analysis.failure``) whose single failure leaves GPUs
outside the component holding the most nodes (``core.analysis.failure.analyse``), with the blast
radius (GPUs cut off) and a remedy priced from the catalog.

Method: elements that are cabled alike fail alike (every plane, island, rail and full scalable unit is
a copy of the others), so one representative per class is failed: a leaf of the first and of a partial
last group, a spine of the first and of a partial last pod, a core, a NIC of the first and of the last
node. The verdict and blast radius of the representative hold for its whole class, which is then
listed element by element. Cost: a handful of closed-form what-ifs, whatever the cluster size
(``tests/test_spof.py`` checks every element of small designs one by one against networkx).

Remedies, each with its capex from the catalog prices of the design's BOM (``price_basis``):

* a leaf / top-of-rack switch, a one-tier fabric's switch, a single-port NIC: one more plane
  (dual-ToR: each NIC's second port to a second switch, as Alibaba HPN does), priced by re-planning the
  design with ``planes + 1`` (with a NIC that has the ports when the design's has not): the difference
  in the compute fabric's capex (``CostSummary.network_capex_usd``);
* a spine or core that is alone in its set: N+1, one more switch of the tier per plane with the links
  to it, priced as the tier's switch plus the links at the design's per-link cost of that stage.

* a rack's only power feed (a preset with ``power_feeds = 1``): a second feed with N+N supplies; no price in
  the catalog (``remedy_capex_usd`` None).

Link bundles: a cable is a single point only when its bundle is one cable (``links_per_leaf_spine_pair`` 1)
and its loss cuts GPUs off; such cables are listed like switches (``tier`` ``link``).

Elements that degrade without cutting a GPU off are listed apart, one row per class, in ``degrading``
(never silently left out): an NVL72 rack's switch trays and chips (every GPU keeps the other chips' links:
``(18 - 2) / 18`` of its NVLink bandwidth per tray; NMX Adaptive Bandwidth mode assumed), a leaf's uplink
bundle of several cables, a rack's feed when it has two (N+N: nothing lost), and an HGX baseboard's NVSwitch
chip, whose loss leaves the node unusable (Fabric Manager's default ``NVSWITCH_FAILURE_MODE=0``): a
node-internal single point like its GPUs, listed there and not among the fabric's single points.

On a cloud instance's adapters (``Nic.transport``: EFA, GPUDirect-TCPX/TCPXO) the compute fabric, the racks and their
power are the provider's: the sized Clos only stands in for the hops a collective crosses (as in the BOM, which buys
none of it), so its elements are not listed and ``PROVIDER_NOTE`` says so; what is inside each instance (NVSwitch
chips, trays, mesh links) is still analysed.

Not modelled (``NOT_MODELLED``, also in ``notes``): single NVLink links and cables inside a node or an NVL72
rack, switch power supplies and fans, the room's power and cooling beyond a rack's feeds, and the storage and
management networks.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from collections import Counter

from core.analysis.failure import Shape, _element, analyse
from core.analysis.spof_graph import cut_points
from core.analysis.torusspof import EFFECT_LABELS as TORUS_EFFECTS, REMEDY as TORUS_REMEDY
from core import scaleup
from core.errors import FabricPlannerError
from core.fabric.domainlevels import scaleup_of
from core.fabric.families import bisection_share_without, family, graph_model, node_to_node, require_model
from core.fabric.wiring import Wiring
from core.i18n import N_, _
from core.i18n import language as speaking
from core.plan import Plan, plan as make_plan
from core.units import percent

REMEDY_LABELS = {
    "plane": N_("one more plane (dual-ToR: a second NIC port to a second switch)"),
    "n_plus_1": N_("N+1: one more {tier} switch per plane with its links"),
    "feed": N_("a second power feed with N+N supplies"),
    "n_plus_1_group": N_("one more spine in every group, every plane, with its leaf links"),
    "global": N_("a higher global ratio: more global links between every two groups"),
    "torus_width": TORUS_REMEDY,
}
GRAPH_REMEDIES = {"leaf": "plane", "nic": "plane", "link": "plane", "spine": "n_plus_1_group", "global": "global"}
"""Remedy of a single point of another family than the folded Clos, by tier."""
GRAPH_NOTE = N_("Found as the cut vertices and one-cable bridges of the topology's graph (the global links between "
                "groups included): every element whose loss alone leaves GPUs outside the part holding the most "
                "nodes. A global bundle's loss lowers the bisection (listed as degrading) unless it is the only "
                "path between two groups.")
NOT_MODELLED = N_("Not modelled: single NVLink links and the cables inside a node or an NVL72 rack, switch power "
                  "supplies and fans, the room's power and cooling beyond a rack's two feeds, and the storage and "
                  "management networks. Elements that only lower bandwidth are listed apart as degrading.")
MESH_NOT_MODELLED = N_("Not modelled: the cables inside a node, switch power supplies and fans, the room's power and "
                       "cooling beyond a rack's two feeds, and the storage and management networks. Elements that "
                       "only lower bandwidth, such as one {link} mesh link, are listed apart as degrading.")
"""``NOT_MODELLED`` of a direct-mesh domain, whose single links are modelled (the ``meshlink`` class)."""
SCALEUP_NOT_MODELLED = N_("Not modelled: single {link} links and the cables inside a node or a scale-up rack, switch "
                          "power supplies and fans, the room's power and cooling beyond a rack's two feeds, and the "
                          "storage and management networks. Elements that only lower bandwidth are listed apart as "
                          "degrading.")
"""``NOT_MODELLED`` of a switch domain that is not NVLink (Huawei's Unified Bus)."""
PROVIDER_NOTE = N_("The compute fabric, the racks and their power are the cloud provider's ({transport}): their "
                   "failures are not analysed here (the provider's redundancy is not published); only the parts "
                   "inside each instance are.")
INSTANCE_TIERS = frozenset({"nvswitch", "tray", "meshlink"})
"""Tiers of the elements inside a cloud instance (``PROVIDER_NOTE``)."""
EFFECT_LABELS = {
    "nvlink_bandwidth": N_("lowers the NVLink bandwidth of its domain's {gpus} GPUs to {share}; cuts off no GPU"),
    "scaleup_bandwidth": N_("lowers the scale-up bandwidth of its domain's {gpus} GPUs to {share}; cuts off no GPU"),
    "mesh_link": N_("lowers the scale-up bandwidth of its {gpus} GPUs to {share}; cuts off no GPU"),
    "level2_bandwidth": N_("lowers the NVLink bandwidth of its domain's {gpus} GPUs to the domain's other racks to "
                           "{share}; cuts off no GPU"),
    "level2_cable": N_("lowers the level-2 NVLink bandwidth of the {gpus} GPUs of its first-level domain to {share}; "
                       "cuts off no GPU"),
    "node_unusable": N_("leaves its node's {gpus} GPUs unusable (Fabric Manager's default): part of the node, "
                        "like its GPUs"),
    "uplink_capacity": N_("lowers its leaf's uplinks to {share}; cuts off no GPU"),
    "none": N_("redundant: the rack's other feed carries it; nothing lost"),
    "global_capacity": N_("lowers the direct global links between its two groups ({gpus} GPUs) to {share} and the "
                          "bisection to {bisection} at worst; cuts off no GPU"),
    "global_capacity:bisection_kept": N_("lowers the direct global links between its two groups ({gpus} GPUs) to "
                                         "{share} and does not lower the bisection; cuts off no GPU"),
    "local_capacity": N_("lowers the local links of its two routers ({gpus} GPUs) to {share}: their traffic to each "
                         "other takes a third router of the group; cuts off no GPU"),
    **TORUS_EFFECTS,
}


class SpofElement(BaseModel):
    model_config = ConfigDict(frozen=True)

    element: str
    tier: str
    gpus_lost: int
    remedy: str
    """Remedy key (``REMEDY_LABELS``): ``plane``, ``n_plus_1`` or ``feed``; on a Dragonfly+ also ``n_plus_1_group``
    (a spine more per group) and ``global`` (a higher global ratio)."""
    remedy_capex_usd: float | None
    """Compute fabric capex the remedy adds [USD] (None: no buildable variant found)."""


class Degrading(BaseModel):
    """A class of elements whose single loss degrades bandwidth (or only its node) without cutting a GPU off."""

    model_config = ConfigDict(frozen=True)

    tier: str
    example: str
    """The first element of the class, e.g. ``rack0.nvswitch-tray0``."""
    count: int
    """Elements in the class."""
    effect: str
    """Key of ``EFFECT_LABELS``: ``nvlink_bandwidth`` (``scaleup_bandwidth`` for a switch domain that is not
    NVLink, ``mesh_link`` for one direct-mesh link), ``node_unusable``, ``uplink_capacity`` or ``none``."""
    gpus_affected: int
    """GPUs whose bandwidth (or node) one such loss touches."""
    share_left: float
    """Bandwidth share the affected GPUs keep (NVLink per GPU, the leaf's uplinks, or the two groups' direct global
    links); 0 for a lost node."""
    bisection_share_left: float | None = Field(default=None, exclude=True)
    """Share of the bisection left at worst (a global bundle that crosses the cut), None when not lowered (left out of
    ``model_dump``, so a Clos result dumps as before; ``SpofResult.to_json`` writes it when set)."""


class SpofResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    elements: tuple[SpofElement, ...]
    notes: tuple[str, ...] = ()
    degrading: tuple[Degrading, ...] = ()

    @property
    def count(self) -> int:
        return len(self.elements)

    def to_json(self) -> dict:
        return {"count": self.count,
                "elements": [{"element": e.element, "tier": e.tier, "gpus_lost": e.gpus_lost, "remedy": e.remedy,
                              "remedy_capex_usd": None if e.remedy_capex_usd is None else round(e.remedy_capex_usd, 2)}
                             for e in self.elements],
                "degrading": [{"tier": d.tier, "example": d.example, "count": d.count, "effect": d.effect,
                               "gpus_affected": d.gpus_affected, "share_left": round(d.share_left, 6)}
                              | ({} if d.bisection_share_left is None
                                 else {"bisection_share_left": round(d.bisection_share_left, 6)})
                              for d in self.degrading],
                "notes": list(self.notes)}


def headline(count: int, shown: str | None = None) -> str:
    """The single points' one line, as the Resilience page, the review pack and the spof command say it: none, or
    ``count`` of them and what each does; ``shown``: the count as written (the page's bold), else with separators."""
    from core.i18n import ngettext

    if not count:
        return _(NONE_TEXT)
    return ngettext("{count} single point of failure: the loss of any one of these elements cuts GPUs off.",
                    "{count} single points of failure: the loss of any one of these elements cuts GPUs off.",
                    count).format(count=shown or f"{count:,}")


def _classes(shape: Shape):
    """``(tier, representative key, members)`` where ``members()`` yields every key of the class."""
    pis = shape.pis()
    groups = shape.groups  # one group of every node with one tier
    lrs = range(shape.leaves_per_group)  # one leaf per group top-of-rack and with one tier
    last_partial = shape.group_nodes(groups - 1) < shape.nodes_per_group
    full = range(groups - 1) if last_partial else range(groups)
    partial = range(groups - 1, groups) if last_partial else range(0)
    for kind in (full, partial):
        if kind:
            yield ("leaf", (0, 0, shape.leaf_of(kind[0], 0)),
                   lambda kind=kind: ((p, i, shape.leaf_of(g, lr)) for g in kind for lr in lrs for p, i in pis))
    if shape.tiers == 2:
        yield ("spine", (0, 0, 0), lambda: ((p, i, k) for p, i in pis for k in range(shape.spines)))
    if shape.tiers == 3:
        spp = shape.spines_per_pod
        last_full = shape.group_nodes(groups - 1) == shape.nodes_per_group and groups % shape.groups_per_pod == 0
        kinds = [list(range(shape.pods))] if last_full else [list(range(shape.pods - 1)), [shape.pods - 1]]
        for pods in kinds:
            if pods:
                yield ("spine", (0, 0, pods[0] * spp),
                       lambda pods=pods: ((p, i, pod * spp + j) for pod in pods for j in range(spp) for p, i in pis))
        yield ("core", (0, 0, 0), lambda: ((p, i, k) for p, i in pis for k in range(shape.cores)))
    npg = shape.nodes_per_group
    full_nodes = range(0, len(full) * npg)
    yield ("nic", (0, 0), lambda: ((n, r) for n in full_nodes for r in range(shape.nics)))
    if last_partial:
        yield ("nic", (shape.nodes - 1, 0),
               lambda: ((n, r) for n in range(len(full) * npg, shape.nodes) for r in range(shape.nics)))
    # one-cable bundles: alike per leaf class (first / partial last group), then spine-core per pod class
    if shape.pair_links == 1:  # (none with one tier)
        for kind in (full, partial):
            if kind:
                k0 = shape.leaf_of(kind[0], 0)
                yield ("link", ("ls", 0, 0, k0, shape.spines_of_leaf(k0)[0], None),
                       lambda kind=kind: (("ls", p, i, shape.leaf_of(g, lr), sp, None) for g in kind for lr in lrs
                                          for p, i in pis for sp in shape.spines_of_leaf(shape.leaf_of(g, lr))))
    for pod, pair in enumerate(shape.spine_core_pairs):  # (none below three tiers)
        if pair == 1:
            sp0 = shape.spines_of_pod(pod)[0]
            yield ("link", ("sc", 0, 0, sp0, shape.cores_of_spine(sp0)[0], None),
                   lambda pod=pod: (("sc", p, i, sp, c, None) for sp in shape.spines_of_pod(pod) for p, i in pis
                                    for c in shape.cores_of_spine(sp)))
    if shape.feeds == 1:
        yield ("feed", (0, 0), lambda: ((r, 0) for r in range(shape.racks)))


def _plane_remedy_capex(plan: Plan) -> float | None:
    """Network capex one more plane adds [USD], re-planned (with a NIC that has the ports if needed)."""
    from core.catalog import load_catalog

    design = plan.design
    base = plan.cost.network_capex_usd
    variants = [{"planes": design.planes + 1}]
    catalog = load_catalog()
    for nic in catalog.nics:
        if nic.id != plan.resolved.nic.id and nic.transport is None:  # a cloud adapter is not bought
            variants.append({"planes": design.planes + 1, "nic": nic.id})
    for update in variants:
        try:
            other = make_plan(design.model_copy(update=update))
        except FabricPlannerError:
            continue
        return other.cost.network_capex_usd - base
    return None


def _n_plus_1_capex(plan: Plan, tier: str, shape: Shape) -> float | None:
    """One more ``tier`` switch per plane and island with the links it takes [USD], from the design's BOM."""
    stage = "leaf-spine" if tier == "spine" else "spine-core"
    with speaking("en"):  # BOM item texts name the role and the stage in English here
        english = make_plan(plan.design)
    switch = [r for r in english.bom if r.category == "switch" and r.item.endswith(f"({tier})")]
    links_total = english.fabric.leaf_spine_links if tier == "spine" else english.fabric.spine_core_links
    links_total *= english.fabric.planes
    parts = sum(r.extended_price_usd for r in english.bom
                if r.category in ("transceiver", "cable") and f"{stage})" in r.item)
    if not switch or not links_total:
        return None
    per_link = parts / links_total
    if tier == "spine":
        links = shape.leaves_per_pod * shape.pair_links  # a spine's down links
    else:
        links = shape.pods * (shape.spine_uplinks[0] // max(1, shape.cores_per_group))
    return (switch[0].unit_price_usd + links * per_link) * shape.planes * shape.islands


def single_points(plan: Plan) -> SpofResult:
    """Every single point of failure of ``plan`` with its blast radius and a priced remedy (module docstring); on a
    cloud instance's adapters only the parts inside each instance (``PROVIDER_NOTE``); a design with pods: the
    whole fabric (``core.analysis.podspof``)."""
    require_model(plan.fabric, "spof", _("The single-point-of-failure analysis"))
    if plan.design.pods:  # every pod under the shared spines (core.analysis.podspof)
        from core.analysis.podspof import pods_single_points
        from core.analysis.whole import design_mixed

        try:
            mixed = design_mixed(plan.design)
        except FabricPlannerError:
            mixed = None
        if mixed is not None:
            return pods_single_points(mixed)
    if node_to_node(plan.fabric.family):  # no switch: closed forms over its rings (core.analysis.torusspof)
        return _provider_scope(plan, _single_points_torus(plan))
    if graph_model(plan.fabric.family, "spof"):
        return _provider_scope(plan, _single_points_graph(plan))
    return _provider_scope(plan, _single_points_clos(plan))


def _provider_scope(plan: Plan, result: SpofResult) -> SpofResult:
    """``result`` as is for a fabric that is bought; on a cloud instance's adapters (``Nic.transport``) without the
    provider's elements (any tier outside ``INSTANCE_TIERS``) and with ``PROVIDER_NOTE`` first."""
    transport = plan.resolved.nic.transport
    if not transport:
        return result
    from core import vocab  # ground floor: vocabularies

    note = _(PROVIDER_NOTE).format(transport=vocab.TRANSPORT.label(transport))
    return SpofResult(elements=tuple(e for e in result.elements if e.tier in INSTANCE_TIERS),
                      notes=(note, *result.notes),
                      degrading=tuple(d for d in result.degrading if d.tier in INSTANCE_TIERS))


def _single_points_clos(plan: Plan) -> SpofResult:
    """``single_points`` of a folded Clos: one representative per class of elements cabled alike."""
    shape = Shape.of(plan)
    out: list[SpofElement] = []
    costs: dict = {}
    for tier, key, members in _classes(shape):
        a = analyse(plan, [(tier, key, False)])
        if a.nodes_disconnected == 0:
            continue
        remedy = "n_plus_1" if tier in ("spine", "core") else ("feed" if tier == "feed" else "plane")
        if (remedy, tier) not in costs:
            costs[(remedy, tier)] = (_n_plus_1_capex(plan, tier, shape) if remedy == "n_plus_1"
                                     else None if remedy == "feed" else _plane_remedy_capex(plan))
        lost = a.nodes_disconnected * shape.gpus_per_node
        for member in members():
            out.append(SpofElement(element=_element(tier, member, shape), tier=tier, gpus_lost=lost, remedy=remedy,
                                   remedy_capex_usd=costs[(remedy, tier)]))
    return SpofResult(elements=tuple(out), notes=(not_modelled(plan),), degrading=_degrading(plan, shape))


def _single_points_graph(plan: Plan) -> SpofResult:
    """``single_points`` of another topology family than the folded Clos (Dragonfly+): its cut vertices and bridges
    (``core.analysis.spof_graph``), a rack's only feed, and the degrading classes with its global bundles."""
    shape = Shape.build(plan)
    gpn = shape.gpus_per_node
    out: list[SpofElement] = []
    costs: dict = {}
    cuts = cut_points(plan)
    for cut in cuts:
        remedy = GRAPH_REMEDIES[cut.tier]
        if remedy not in costs:
            costs[remedy] = (_n_plus_1_group_capex(plan) if remedy == "n_plus_1_group" else
                             _global_remedy_capex(plan) if remedy == "global" else _plane_remedy_capex(plan))
        out.append(SpofElement(element=_graph_element(cut.tier, cut.key), tier=cut.tier,
                               gpus_lost=cut.nodes_lost * gpn, remedy=remedy, remedy_capex_usd=costs[remedy]))
    if shape.feeds == 1:
        for r in range(shape.racks):
            nodes = min(shape.nodes_per_rack, shape.nodes - r * shape.nodes_per_rack)
            out.append(SpofElement(element=_element("feed", (r, 0), shape), tier="feed", gpus_lost=nodes * gpn,
                                   remedy="feed", remedy_capex_usd=None))
    degrading = _degrading(plan, shape) + _local_degrading(shape, cuts) + _global_degrading(plan, shape, cuts)
    return SpofResult(elements=tuple(out), notes=(not_modelled(plan), _(GRAPH_NOTE)), degrading=degrading)


def _single_points_torus(plan: Plan) -> SpofResult:
    """``single_points`` of a family that joins its nodes node to node (a torus): ``core.analysis.torusspof``'s closed
    forms, with the scale-up domain's and the feeds' degrading rows of every family (``_degrading``)."""
    from core.analysis.torusspof import single_points_torus

    shape = Shape.build(plan)
    points, degrading, notes = single_points_torus(plan, _degrading(plan, shape),
                                                   lambda rack: _element("feed", (rack, 0), shape))
    capex = None  # more NIC ports per node: no variant of the same system to price it by
    return SpofResult(elements=tuple(SpofElement(element=e, tier=t, gpus_lost=g, remedy=remedy, remedy_capex_usd=capex)
                                     for e, t, g, remedy in points),
                      notes=(not_modelled(plan), *notes), degrading=degrading)


def not_modelled(plan: Plan) -> str:
    """What the analysis leaves out for ``plan``'s scale-up domain, in the current language: single NVLink links
    (``NOT_MODELLED``), single links of another switch domain, or, for a direct mesh, whose links are modelled, only
    the rest."""
    system = plan.resolved.system
    if system.is_mesh:
        return _(MESH_NOT_MODELLED).format(link=scaleup.link_word(system))
    if system.nvlink_generation:
        return _(NOT_MODELLED)
    return _(SCALEUP_NOT_MODELLED).format(link=scaleup.link_word(system))


def _n_plus_1_group_capex(plan: Plan) -> float | None:
    """One more spine in every Dragonfly+ group of every plane with its leaf links [USD], from the design's BOM
    (its global ports left unused)."""
    fabric = plan.fabric
    with speaking("en"):  # BOM item texts name the role and the stage in English here
        english = make_plan(plan.design)
    switch = [r for r in english.bom if r.category == "switch" and r.item.endswith("(spine)")]
    links_total = english.fabric.leaf_spine_links * english.fabric.planes
    parts = sum(r.extended_price_usd for r in english.bom
                if r.category in ("transceiver", "cable") and "leaf-spine)" in r.item)
    if not switch or not links_total:
        return None
    leaves = fabric.groups_per_pod * fabric.leaves_per_group
    per_group = switch[0].unit_price_usd + leaves * fabric.links_per_leaf_spine_pair * parts / links_total
    return per_group * fabric.pod_count * fabric.planes


def _global_remedy_capex(plan: Plan) -> float | None:
    """Network capex [USD] of the first higher global ratio that builds (more global links between every two
    groups), re-planned; None when none does."""
    ratio = plan.design.global_ratio
    for change in (c for _label, c in family(plan.fabric.family).ways_out(plan.design) if c["global_ratio"] > ratio):
        try:
            other = make_plan(plan.design.model_copy(update=change))
        except FabricPlannerError:
            continue
        if other.fabric.global_pair_links > plan.fabric.global_pair_links:
            return other.cost.network_capex_usd - plan.cost.network_capex_usd
    return None


def _graph_element(tier: str, key: tuple) -> str:
    """An element's name as the graph what-if takes it (``core.analysis.failure.graphwhatif``)."""
    if tier == "nic":
        return f"{Wiring.node_id(key[0])}.nic{key[1]}"
    if tier in ("link", "global"):
        return f"{key[0]}-{key[1].split('.')[-1]}"
    return key[0]


def _global_degrading(plan: Plan, shape: Shape, cuts) -> tuple[Degrading, ...]:
    """A global bundle's loss (a Dragonfly+'s between spines, a Dragonfly's between routers): its two groups' direct
    links and the bisection lowered, no GPU cut off (bundles among the single points ``cuts``,
    ``core.analysis.spof_graph.Cut``, are listed as such, not here)."""
    w = shape.wiring
    if "global" not in w.link_classes:
        return ()
    role, a, _rb, b, _count = w.bundle_arrays("global")
    if not len(a):
        return ()
    pairs = Counter(zip(a.tolist(), b.tolist()))
    (sa, sb), worst = max(pairs.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
    ida, idb = w.switch_id(role, sa, 0), w.switch_id(role, sb, 0)
    if any(c.tier == "global" and c.key[:2] == (ida, idb) for c in cuts):
        return ()
    lam = plan.fabric.global_pair_links
    group_gpus = sum(w.group_nodes(su) for su in range(w.groups_per_pod)) * shape.gpus_per_node
    return (Degrading(tier="global", example=f"{ida}-{idb.split('.')[-1]}", count=len(pairs) * w.planes,
                      effect="global_capacity", gpus_affected=2 * group_gpus, share_left=(lam - worst) / lam,
                      bisection_share_left=bisection_share_without(plan.resolved, plan.fabric, worst)),)


def _local_degrading(shape: Shape, cuts) -> tuple[Degrading, ...]:
    """A local link's loss (a Dragonfly's, one cable between two routers of a group, ``a - 1`` on each): the two
    routers keep ``(a - 2) / (a - 1)`` of their local links and reach each other through a third router, no GPU cut
    off (a local link among the single points ``cuts``, a group of two routers, is listed as such, not here)."""
    w = shape.wiring
    if "local" not in w.link_classes:
        return ()
    role, a, _rb, b, _count = w.bundle_arrays("local")
    per_router = len(w.leaves_of_pod(0)) - 1
    if not len(a) or per_router < 2:
        return ()
    ida, idb = w.switch_id(role, int(a[0]), 0), w.switch_id(role, int(b[0]), 0)
    if any(c.tier == "link" and c.key[:2] == (ida, idb) for c in cuts):
        return ()
    gpus = 2 * w.group_nodes(0) * shape.gpus_per_node // w.leaves_per_group  # a rail's router: 1 / rails
    return (Degrading(tier="link", example=f"{ida}-{idb.split('.')[-1]}", count=len(a) * w.planes * w.islands,
                      effect="local_capacity", gpus_affected=gpus, share_left=(per_router - 1) / per_router),)


def _level2_degrading(plan: Plan, shape: Shape) -> tuple[Degrading, ...]:
    """A level-2 NVLink switch unit's loss (a two-level NVLink domain, ``core.fabric.domainlevels``), by the failure
    what-if's rule (``core.analysis.failure.nvlink2.level2_loss``): its domain's GPUs keep ``(S - 1) / S`` of their
    bandwidth to the domain's other racks, ``S`` the domain's units; the example is a unit of the domain with the
    fewest (the worst loss), the count every unit of the cluster."""
    if not sum(shape.level2):
        return ()
    from core.analysis.failure.nvlink2 import level2_loss

    worst = min((i for i, units in enumerate(shape.level2) if units), key=lambda i: shape.level2[i])
    loss = level2_loss(plan, [("nvlink2", (worst, 0), False)])
    unit = Degrading(tier="nvlink2", example=_element("nvlink2", (worst, 0), shape), count=sum(shape.level2),
                     effect="level2_bandwidth", gpus_affected=loss.gpus,
                     share_left=loss.worst_gbytes / loss.healthy_gbytes)
    return unit, *_level2_cable(plan, shape, worst)


def _level2_cable(plan: Plan, shape: Shape, worst: int) -> tuple[Degrading, ...]:
    """A level-2 NVLink cable's loss, by the same spreading assumption (``core.analysis.failure.nvlink2``): its
    first-level domain's GPUs keep ``(L - c) / L`` of their level-2 links, ``c`` the NVLinks of one cable
    (``Level2.links_per_cable``), ``L`` the first-level domain's level-2 links, in the domain with the fewest units
    (``worst``); the example is a cable from the first switch tray (node) of its first rack to its first unit
    (``tray-unit``), the count every level-2 cable to a level-2 switch (a pair cabled rack to rack has no unit)."""
    up = scaleup_of(plan.resolved)
    domains = [d for d in up.domains() if d.level2_switches]
    domain = next(d for d in domains if d.index == worst)
    links = domain.level2_links // domain.racks
    if links <= up.level2.links_per_cable:
        return ()
    rack = domain.first_node // up.level1_nodes
    lower = _element("tray", (rack, 0), shape) if shape.trays else Wiring.node_id(domain.first_node)
    return (Degrading(tier="nvlink2-cable", example=f"{lower}-{_element('nvlink2', (worst, 0), shape)}",
                      count=sum(d.level2_cables for d in domains), effect="level2_cable",
                      gpus_affected=up.level1_gpus, share_left=1 - up.level2.links_per_cable / links),)


def _degrading(plan: Plan, shape: Shape) -> tuple[Degrading, ...]:
    """Classes of elements whose single loss cuts no GPU off but lowers bandwidth (or takes only its node)."""
    out = []
    lowers = "nvlink_bandwidth" if plan.resolved.system.nvlink_generation else "scaleup_bandwidth"
    if shape.nvl_chips and shape.nodes_per_domain > 1:
        # a first-level tray or chip slows its first-level domain's GPUs (``connectivity.analyse``: with two levels
        # a rack's, not the whole domain's)
        domain_gpus = shape.domain_gpus(0)  # the failure what-if's count: the first-level domain's (a rack's) GPUs
        if shape.trays:
            lost = sum(shape.chip_links(c) for c in shape.chips_of_tray(0))
            out.append(Degrading(tier="tray", example=_element("tray", (0, 0), shape), count=shape.domains * shape.trays,
                                 effect=lowers, gpus_affected=domain_gpus,
                                 share_left=1 - lost / max(1, shape.nvl_links)))
        worst = max(range(shape.nvl_chips), key=shape.chip_links)
        out.append(Degrading(tier="nvswitch", example=_element("nvswitch", (0, worst), shape),
                             count=shape.domains * shape.nvl_chips, effect=lowers, gpus_affected=domain_gpus,
                             share_left=1 - shape.chip_links(worst) / max(1, shape.nvl_links)))
    elif shape.nvl_chips:
        out.append(Degrading(tier="nvswitch", example=_element("nvswitch", (0, 0), shape),
                             count=shape.nodes * shape.nvl_chips, effect="node_unusable",
                             gpus_affected=shape.gpus_per_node, share_left=0.0))
    out.extend(_level2_degrading(plan, shape))
    if shape.mesh_per_peer:  # a direct-mesh link: its two GPUs lose the links to each other
        out.append(Degrading(tier="meshlink", example=_element("meshlink", (0, 0, 1), shape),
                             count=shape.nodes * shape.mesh_gpus * (shape.mesh_gpus - 1) // 2,
                             effect="mesh_link", gpus_affected=2,
                             share_left=1 - shape.mesh_per_peer / max(1, shape.nvl_links)))
    if "leaf-spine" in shape.link_classes:
        # closed form: a leaf with several spines keeps the others when a whole bundle goes; a leaf with one spine
        # keeps (cables - 1) / cables of it when one cable goes (the whole bundle would cut it off)
        leaf = shape.leaf_of(0, 0)
        per = len(shape.spines_of_leaf(leaf))
        bundles = shape.planes * shape.islands * shape.leaves * per
        gpus = shape.group_nodes(0) * shape.gpus_per_node // shape.leaves_per_group  # a rail's leaf: 1 / rails
        if per > 1:
            out.append(Degrading(tier="link", example=_element("link", ("ls", 0, 0, leaf, 0, None), shape),
                                 count=bundles, effect="uplink_capacity", gpus_affected=gpus,
                                 share_left=(per - 1) / per))
        elif shape.pair_links > 1:
            out.append(Degrading(tier="link", example=_element("link", ("ls", 0, 0, leaf, 0, 0), shape),
                                 count=bundles * shape.pair_links, effect="uplink_capacity", gpus_affected=gpus,
                                 share_left=(shape.pair_links - 1) / shape.pair_links))
    if shape.feeds >= 2:
        out.append(Degrading(tier="feed", example=_element("feed", (0, 0), shape), count=shape.racks * shape.feeds,
                             effect="none", gpus_affected=0, share_left=1.0))
    return tuple(out)


NODE_INTERNAL = frozenset({"node_unusable"})
"""Effects of a ``Degrading`` class that take its own node (an HGX baseboard's NVSwitch chip): a single point inside
the node, like its GPUs, not a degrading one and not the fabric's; listed under their own heading
(``degrading_sections``), so no list says "cuts off no GPU" above a loss that leaves a node's GPUs unusable."""
SECTION_HEADINGS = (N_("Degrading, not single points (one loss cuts off no GPU):"),
                    N_("Single points inside a node, not the fabric's (one loss takes only its own node, like one of "
                       "its GPUs):"))
"""The CLI's headings of ``degrading_sections``: the classes that only lower bandwidth, then the node-internal ones."""
NONE_TEXT = N_("No single point of failure outside a node: no one element of the fabric, the racks or their power "
               "cuts off a GPU.")
"""What the CLI, the Resilience page and the report say when ``single_points`` lists none (a node's own parts, like
its GPUs, are not the fabric's single points: ``NODE_INTERNAL``)."""
SECTION_LINES = (N_("Degrading, not a single point: {example} ({tier}, {count} like it) {effect}."),
                 N_("A single point inside a node, not the fabric's: {example} ({tier}, {count} like it) {effect}."))
"""The Resilience page's sentence per class, in the same words as ``SECTION_HEADINGS``."""


def degrading_sections(result: SpofResult) -> list[tuple[int, tuple[Degrading, ...]]]:
    """``result.degrading`` split by ``NODE_INTERNAL``: ``(section, rows)``, section 0 degrading (no GPU cut off),
    1 inside a node (its node lost); empty sections left out. ``SECTION_HEADINGS`` and ``SECTION_LINES`` word
    them, one rule for the CLI and the Resilience page."""
    sections = [tuple(d for d in result.degrading if (d.effect in NODE_INTERNAL) == bool(i)) for i in (0, 1)]
    return [(i, rows) for i, rows in enumerate(sections) if rows]


def degrading_label(row: Degrading) -> str:
    """What one loss of the class does, in the current language."""
    share = percent(row.share_left)
    kept = row.bisection_share_left is not None and row.bisection_share_left >= 1.0
    key = row.effect + (":bisection_kept" if kept and row.effect + ":bisection_kept" in EFFECT_LABELS else "")
    bisection = "" if row.bisection_share_left is None else percent(row.bisection_share_left)
    return _(EFFECT_LABELS[key]).format(gpus=f"{row.gpus_affected:,}", share=share, bisection=bisection)


def remedy_label(element: SpofElement) -> str:
    """The remedy in words, in the current language."""
    from core.fabric.sizing import ROLE_LABELS

    if element.remedy == "n_plus_1":
        return _(REMEDY_LABELS["n_plus_1"]).format(tier=_(ROLE_LABELS[element.tier]))
    return _(REMEDY_LABELS.get(element.remedy, REMEDY_LABELS["plane"]))
