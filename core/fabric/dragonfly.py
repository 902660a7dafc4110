"""Dragonfly+: groups of two-level fat trees whose spines are joined by global links (a topology family).

Sources: Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008 (groups of
``a`` routers with ``p`` terminals and ``h`` global links each; at most ``a*h + 1`` groups, ``a*p*(a*h + 1)``
terminals; balanced at ``a = 2p = 2h``); Shpiner, Haramaty, Eliad, Zdornov, Gafni, Zahavi, "Dragonfly+: Low
Cost Topology for Scaling Datacenters", HiPINEB 2017 (each group a Clos of leaves and spines; full bisection
inside a group with ``p = l = s = h = k/2``, ``k^2/4`` hosts per group).

Terms (counts per plane; the words of ``core.fabric.sizing`` and ``core.fabric.wiring`` keep their meaning):

* **scalable unit (SU)**, ``group`` in ``FabricPlan`` and ``Wiring``: ``nodes_per_group`` nodes and one leaf per
  rail, rail-optimized as in the folded Clos (NIC *i* of every node of the SU on leaf *i*).
* **Dragonfly+ group**, a ``pod`` in ``FabricPlan`` and ``Wiring``: ``m`` SUs (``a = m x rails`` leaves) and
  ``s`` spines; every leaf has ``x`` links to every spine of its group (``u = s x`` uplinks).
* **global port**: each spine has ``h`` ports for global links; a group has ``P = s h`` of them, numbered
  ``q = t s + j`` for port ``t`` of spine ``j`` (round robin over the spines, so their use differs by at most 1).
* **global links**: every pair of the ``g`` groups is joined by the same ``lam = floor(P / (g - 1))`` links;
  group ``G`` reaches group ``(G + d) mod g`` (offset ``d = 1 .. g-1``) on its ports ``(d - 1) lam .. d lam - 1``.
  So ``g <= P + 1`` (Kim et al.'s ``a h + 1`` with the group's ``P`` global ports).
* **global ratio** ``gamma`` (``Design.global_ratio``): a group's global bandwidth over its injection bandwidth,
  the spine's ``h = ceil(gamma * a * d * speed / (s * uplink speed))`` (``d`` leaf down ports). 1.0 is Kim
  et al.'s balance (``h = p``: a group can send all it injects out of the group, uniform random traffic runs at
  full rate under minimal routing); the bisection is then about half the injection (``bisection_gbits``).

Sizing steps (``size``): the leaf split and SU shape of the folded Clos (``leaf_down_up``,
``_group_shape`` rail-optimized); the group shape (``group_shape``: leaves per group, spines, pair links and
global ports per spine, the fewest spines for the largest group that fits the spine radix); the group count
``g = ceil(SUs / m)`` checked against ``P + 1``; the links per group pair; the switch groups.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterator, NamedTuple

import numpy as np

from core import plurals
from core.design import ResolvedDesign
from core.errors import DesignError
from core.fabric.sizing import (
    FabricPlan,
    SwitchGroup,
    _group_shape,
    _leaf_split,
    _speed_ratio,
    _speeds,
    _tier,
)
from core.fabric.wiring import Bundle, Link, Wiring, wiring_of
from core.fabric.families import group_hops_summary
from core.i18n import N_, _, ngettext, number, sentences
from core.memo import copied

FAMILY = "dragonfly"
GROUPS = True
"""Groups joined by global links (the plan's ways out offer rail-optimized, not top-of-rack, instead)."""
GRAPH_MODELS = ("spof", "availability", "load")
BOM_MODELS = ("spares",)
"""Analyses read from its bill row by row (``core.fabric.families.require_model``): the spares, one row per switch role
(leaf, spine), NIC, and optics and cables per link class (node-leaf, leaf-spine, global) and length, each row's own
rule (N+1 per model and tier, a share of the installed count)."""
RAIL_LEAVES = True
"""Its leaves are rail leaves, each SU's one per rail (``core.fabric.families.rail_leaves``: the bill's leaf row)."""
RISK_GLOBAL = N_("the bisection ratio is {ratio}, so traffic between groups, over the global links, can slow down")
"""The review pack's main risk of a Dragonfly's tapered global links (both Dragonfly families: ``WORDS``)."""
WORDS = {"card:core": None,  # leaves and spines in each group, the groups joined by global links: no core tier
         # the drawing's subtitle and the draw.io title (core.figures.topology.view_words): its blocks are its groups
         "view:grouped": N_("Every switch drawn; servers grouped per scalable unit"),
         "view:aggregated": N_("Aggregated view: switches and servers bundled by Dragonfly+ group and rail; numbers "
                               "are counts"),
         "bom:spines": N_("{groups} Dragonfly+ groups x {spines} spines{plane_note} = {total}"),  # the bill's spine row
         "load:spine_uplinks": N_("Global links"),  # the Inference page's fabric-load table: its spines' uplinks
         # the Designer's and the pack's bandwidth readouts: its groups, not pods, as the plan command counts hops
         "readout:bandwidth": N_("**Oversubscription** leaf {leaf}, spine {spine} · **bisection ratio** {total} · "
                                 "**hops** (switches crossed) same rail {same_rail}, {group_hops} · **{link} : "
                                 "scale-out** {ratio} per GPU (one direction)"),
         "report:readout:bandwidth": N_("Oversubscription leaf {leaf}, spine {spine}; bisection ratio {total}; "
                                        "switches crossed: same rail {same_rail}, {group_hops}; {link} to scale-out "
                                        "{ratio} per GPU (one direction)."),
         # the Performance page's routing sentence (core.perf.jobform): its taper can be the leaves' or the global
         # links' (the bisection ratio), not the leaves' "oversubscription" alone
         "perf:routing:topo": N_("Routing: {routing}; ranks packed in topology order, so ring and tree traffic "
                                 "leaves a leaf group or a Dragonfly+ group only between neighbouring ones, and the "
                                 "taper (the leaves' oversubscription, the global links' bisection ratio) mostly "
                                 "affects all-to-all (MoE)."),
         "perf:routing:scatter": N_("Routing: {routing}; ranks spread over the cluster's Dragonfly+ groups, so ring, "
                                    "tree and all-to-all traffic all cross the leaf uplinks and the global links "
                                    "between groups."),
         # the pack's main risks when the leaves are 1:1: the taper is the global links between groups
         "report:risk:oversubscribed": RISK_GLOBAL,
         "input:tiers:off": N_("No effect on a Dragonfly+: two tiers in every group (leaves and spines), the groups "
                               "joined by global links."),
         "note:global_share": N_(
             "{family}: traffic between groups crosses the global links under minimal routing, at the busiest "
             "spine's down ports over its global links ({ratio}, which the model applies to the global stage); "
             "Valiant (non-minimal) routing, which adaptive routers use against adversarial patterns, takes two "
             "global hops and would halve that share."),
         "note:global_share:two": N_(
             "{family}: traffic between groups crosses the global links, at the busiest spine's down ports over its "
             "global links ({ratio}, which the model applies to the global stage); with two groups Valiant "
             "(non-minimal) routing has no third group to pass through, so it takes the same one global hop and "
             "keeps that share."),
         "note:leaf_whatif": N_(
             "Why a row can beat the design here: this what-if varies the leaves only, and on a Dragonfly+ the worst "
             "balanced cut crosses the global links between groups. A group's global links spread over its {others} "
             "other groups and only those to the far half cross the cut, so the design is {ratio} end to end while "
             "its leaves are {leaf}. Oversubscribed leaves hold more nodes, which regroups the scalable units (whole "
             "units per group, one spine per leaf uplink, a spine's ports split between its leaves and its global "
             "links): the switch count moves in steps, not monotonically, and a row can match the design's cut with "
             "fewer switches while its leaves give less bandwidth inside a group, which this table does not show.")}
"""This family's words where a surface's own are a folded Clos's (``core.fabric.families.words``): the sidebar's
tiers input is shown disabled with this as its help (the tiers asked never change its sizing); the bill's spine
row says its groups (``core.cost``); the Inference page's fabric-load table calls its spine uplinks what they are, global links;
the collective's note on the global links names the busiest spine's ratio
(``core.perf.collectives``: a group's spines carry unequal global links); the leaf what-if's note (``leaf_whatif_note``) says why its rows do not rank as on a folded Clos."""
"""The analyses that work on a Dragonfly+ (``core.fabric.families.require_model``)."""
DESIGN_FIELDS = ("group_leaves", "global_ratio")
"""``Design`` fields only the Dragonflies read (its sizing: the leaves per group and the global ports of a group;
``core.fabric.families.unused_fields``: set on another topology, they are said to be ignored)."""
IGNORED_FIELDS = ("core_switch", "tiers", "spine_oversubscription")
"""The folded Clos's fields it does not read (``core.fabric.families.ignored_fields``: said to be ignored when set,
held by a search): its groups' leaves and spines are sized by the family, no core tier, each spine's ports split
between its leaves and its global links by the global ratio."""
IGNORED_WHY = N_("two switch tiers in every group (leaves and spines, no core), each spine's ports split between its "
                 "leaves and its global links by the global ratio")
"""Why it ignores its ``IGNORED_FIELDS`` (``core.fabric.families.ignored_said``)."""
FIXED_FIELDS = ("plane_mode",)
"""``Design`` fields a search takes at the base design's values besides its ``IGNORED_FIELDS``
(``core.fabric.families.unsearched_fields``): per-rail planes, which it refuses (``size``)."""
FAILURE_CLOSED_FORM = "core.analysis.failure.dragonflywhatif"
"""The module of its failure what-if in closed form over its groups, global links between spines (its
``what_if_closed``; ``core.analysis.failure.whatif`` imports it by this name), not on its graph."""
ROLES = ("leaf", "spine")
LINK_CLASSES = ("node-leaf", "leaf-spine", "global")


class GroupShape(NamedTuple):
    """One Dragonfly+ group: ``leaves`` (a), ``spines`` (s), ``pair_links`` (x, leaf to each spine),
    ``uplinks`` (u = s x per leaf) and ``global_ports`` (h per spine)."""

    leaves: int
    spines: int
    pair_links: int
    uplinks: int
    global_ports: int


@lru_cache(maxsize=4096)
def _shape_for(leaves: int, down: int, u_min: int, u_max: int, spine_radix: int, global_ratio: float,
               speed_ratio: float) -> GroupShape | None:
    """The shape of a group of ``leaves`` leaves of ``down`` down ports each, or None if none fits.

    Leaves take ``u_min .. u_max`` uplinks, ``u = s x``; each spine uses ``leaves x`` down ports and
    ``h = ceil(global_ratio * leaves * down * speed_ratio / s)`` global ports (``speed_ratio`` = leaf down speed
    over uplink speed), at most ``spine_radix`` in all. The fewest spines win, then the fewest uplinks.
    """
    best: GroupShape | None = None
    for uplinks in range(u_min, u_max + 1):
        for spines in range(1, uplinks + 1 if best is None else min(uplinks + 1, best.spines)):
            if uplinks % spines:
                continue
            pair = uplinks // spines
            ports = math.ceil(global_ratio * leaves * down * speed_ratio / spines - 1e-9)
            if leaves * pair + ports <= spine_radix:
                best = GroupShape(leaves, spines, pair, uplinks, ports)
                break
    return best


def _shape_inputs(resolved: ResolvedDesign, down: int) -> tuple:
    """``_shape_for``'s arguments after ``leaves``: leaf down ports, uplink range, spine radix, ratio, speeds."""
    design = resolved.design
    ratio = _speed_ratio(resolved)
    u_min = max(1, math.ceil(down * ratio / design.oversubscription - 1e-9))
    u_max = math.floor((resolved.switch_ports - down) / resolved.leaf_uplink_cost + 1e-9)
    return down, u_min, u_max, resolved.spine_radix, design.global_ratio, ratio


def group_shape(resolved: ResolvedDesign, down: int, rails: int, sus: int) -> GroupShape:
    """The group shape: ``Design.group_leaves`` leaves if set (a multiple of ``rails``), else the largest group of
    whole SUs (at most ``sus``, the SUs there are) that fits the spine radix. ``DesignError`` if none fits."""
    inputs = _shape_inputs(resolved, down)
    asked = resolved.design.group_leaves
    if asked is not None:
        if asked % rails:
            raise DesignError(
                _("a Dragonfly+ group of {leaves} leaves is not a whole number of scalable units of {rails} rail "
                  "leaves.").format(leaves=asked, rails=rails),
                _("Set group leaves to a multiple of {rails}.").format(rails=rails))
        shape = _shape_for(asked, *inputs)
        if shape is None:
            _group_too_large(resolved, asked, down, rails)
        return shape
    for sus_in_group in range(min(sus, resolved.spine_radix // rails), 0, -1):
        shape = _shape_for(sus_in_group * rails, *inputs)
        if shape is not None:
            return shape
    _group_too_large(resolved, rails, down, rails)


def largest_group(resolved: ResolvedDesign, down: int, rails: int) -> int:
    """Most leaves (whole SUs of ``rails``) a group of this design can have; 0 if not even one SU fits."""
    inputs = _shape_inputs(resolved, down)
    return next((m * rails for m in range(resolved.spine_radix // rails, 0, -1)
                 if _shape_for(m * rails, *inputs) is not None), 0)


def _group_too_large(resolved: ResolvedDesign, leaves: int, down: int, rails: int) -> None:
    """Raise the ``DesignError`` of a group whose spines cannot reach every leaf and carry its global links."""
    most = largest_group(resolved, down, rails)
    switch = resolved.tier_switches["spine"].id
    message = _("a Dragonfly+ group of {leaves} leaves ({down} down ports each) needs more than the {radix} ports "
                "of a {switch} spine for its leaf links and its global links at global ratio {ratio}.").format(
        leaves=leaves, down=down, radix=resolved.spine_radix, switch=switch,
        ratio=f"{resolved.design.global_ratio:g}")
    if most:  # said in the message too: core.plan replaces the suggestion with its ways out
        message = sentences(message, ngettext("At most {most} leaf fits in one group.",
                                              "At most {most} leaves fit in one group.", most).format(most=most))
        raise DesignError(message, _("Set group leaves to at most {most}.").format(most=most))
    raise DesignError(message, _("Lower the global ratio, or choose a spine switch with more ports."))


@dataclass(frozen=True)
class _Sized:
    """What the steps of ``size`` share (per plane)."""

    resolved: ResolvedDesign
    su_nodes: int
    rails: int
    sus: int
    shape: GroupShape
    groups: int

    @property
    def sus_per_group(self) -> int:
        return self.shape.leaves // self.rails

    @property
    def global_ports(self) -> int:
        """Global ports of one group (``P = s h``)."""
        return self.shape.spines * self.shape.global_ports

    @property
    def pair_links(self) -> int:
        """Global links between each pair of groups (``lam``; 0 with one group)."""
        return self.global_ports // (self.groups - 1) if self.groups > 1 else 0

    def groups_by_leaves(self) -> list[tuple[int, int]]:
        """(leaves of a group, groups of that many), the most leaves first: the full groups and a partial last
        one."""
        full, last = divmod(self.sus, self.sus_per_group)
        by_leaves = [(self.sus_per_group * self.rails, full)] if full else []
        return by_leaves + [(last * self.rails, 1)] if last else by_leaves


def size(resolved: ResolvedDesign) -> FabricPlan:
    """Size the Dragonfly+ fabric of ``resolved`` (steps in the module docstring; counts per plane).

    Raises
    ------
    DesignError
        Per-rail planes or growth asked (not built for Dragonfly+), a group the spine radix cannot hold, or more
        groups than a group has global ports plus one.
    """
    _supported(resolved)
    down_max, _up = _leaf_split(resolved)
    rail = copied(resolved, {"topology": "rail-optimized"})  # Dragonfly+ leaves are rail-optimized
    su_nodes, rails, _per_node = _group_shape(rail, down_max)
    sus = math.ceil(resolved.nodes / su_nodes)
    shape = group_shape(resolved, min(resolved.nodes, su_nodes), rails, sus)  # a lone partial SU: its own ports
    sized = _Sized(resolved, su_nodes, rails, sus, shape, math.ceil(sus / (shape.leaves // rails)))
    if sized.groups - 1 > sized.global_ports:
        _too_many_groups(sized)
    return _fabric_plan(sized)


def _supported(resolved: ResolvedDesign) -> None:
    """Refuse what this family does not build (yet): per-rail planes and growth targets."""
    if resolved.islands > 1:
        raise DesignError(_("Dragonfly+ is built with every NIC in every plane, not per-rail planes."),
                          _("Give every NIC a port in every plane."))
    if resolved.grow_to:
        raise DesignError(_("growth targets are not planned for Dragonfly+ yet (new groups change every group's "
                            "global links)."), _("Drop the growth target."))


def _too_many_groups(sized: _Sized) -> None:
    """Raise the ``DesignError`` for more groups than global ports allow (Kim et al.: at most ``a h + 1``)."""
    shape = sized.shape
    most_nodes = (sized.global_ports + 1) * sized.sus_per_group * sized.su_nodes
    raise DesignError(
        _("{groups} Dragonfly+ groups need {needed} global ports per group, one to every other group, but a group "
          "of {spines} spines x {ports} global ports has {have}: at most {most_groups} groups ({most} nodes).").format(
            groups=f"{sized.groups:,}", needed=f"{sized.groups - 1:,}", spines=shape.spines, ports=shape.global_ports,
            have=f"{sized.global_ports:,}", most_groups=f"{sized.global_ports + 1:,}", most=f"{most_nodes:,}"),
        _("Raise the global ratio, use larger groups, or plan at most {most} nodes.").format(most=f"{most_nodes:,}"))


def spine_global_links(ports: int, spines: int, used: int) -> list[int]:
    """Global links of each of ``spines`` spines when a group uses ``used`` of its ``ports`` global ports
    (round robin: port ``q`` is on spine ``q mod spines``)."""
    return [links for links, count in _spines_by_links(ports, spines, used) for _j in range(count)]


def _spines_by_links(ports: int, spines: int, used: int) -> list[tuple[int, int]]:
    """(global links of a spine, spines with that many) of ``spine_global_links``, the most links first: the first
    ``used mod spines`` spines carry one more."""
    assert used <= ports
    each, more = divmod(used, spines)
    return [(links, count) for links, count in ((each + 1, more), (each, spines - more)) if count]


def _fabric_plan(sized: _Sized) -> FabricPlan:
    """The ``FabricPlan`` of a sized Dragonfly+ (tiers 2; a pod is a Dragonfly+ group)."""
    resolved, shape, groups = sized.resolved, sized.shape, sized.groups
    leaves = sized.sus * sized.rails
    used = (groups - 1) * sized.pair_links
    global_links = sized.pair_links * groups * (groups - 1) // 2
    return FabricPlan(
        tiers=2, planes=resolved.planes, topology=resolved.topology, radix=resolved.switch_ports,
        port_speed_gbps=resolved.port_speed_gbps, leaf_down_ports_max=sized.su_nodes,
        nodes_per_group=sized.su_nodes, leaves_per_group=sized.rails, group_count=sized.sus,
        groups_per_pod=sized.sus_per_group, pod_count=groups, leaf_count=leaves, leaf_uplinks=shape.uplinks,
        spines_per_pod=shape.spines, spine_count=groups * shape.spines, links_per_leaf_spine_pair=shape.pair_links,
        spine_uplinks=0, core_groups=0, cores_per_group=0, core_count=0, links_per_spine_core_pair=0,
        partial_pod_spine_uplinks=0, node_leaf_links=resolved.nodes * sized.rails,
        leaf_spine_links=leaves * shape.uplinks, spine_core_links=0,
        switch_groups=tuple(_leaf_groups(sized) + _spine_groups(sized, used)), explanation=_explain(sized),
        family=FAMILY, global_ratio=resolved.design.global_ratio, global_ports_per_spine=shape.global_ports,
        global_pair_links=sized.pair_links, global_links=global_links,
        max_nodes_without_recabling=groups * sized.sus_per_group * sized.su_nodes, **_speeds(resolved))


def _leaf_groups(sized: _Sized) -> list[SwitchGroup]:
    """Leaves of full SUs and of a partial last SU."""
    resolved, shape = sized.resolved, sized.shape
    last = resolved.nodes - (sized.sus - 1) * sized.su_nodes
    full = sized.sus - (1 if last < sized.su_nodes else 0)
    tier = _tier(resolved, "leaf")
    out = [SwitchGroup(role="leaf", count=full * sized.rails, down_ports_used=sized.su_nodes,
                       up_ports_used=shape.uplinks, radix=resolved.switch_ports, **tier,
                       description=_("full scalable unit"))] if full else []
    if full < sized.sus:
        out.append(SwitchGroup(role="leaf", count=sized.rails, down_ports_used=last, up_ports_used=shape.uplinks,
                               radix=resolved.switch_ports, **tier,
                               description=_("partial scalable unit: {nodes} of {group_nodes} nodes").format(
                                   nodes=last, group_nodes=sized.su_nodes)))
    return out


def _spine_groups(sized: _Sized, used: int) -> list[SwitchGroup]:
    """Spines by (leaves of their group, global links): full groups and a partial last group, each with the
    spines that carry one global link more than the others first."""
    resolved, shape = sized.resolved, sized.shape
    per_spine = _spines_by_links(sized.global_ports, shape.spines, used)
    out = []
    for leaves, group_count in sized.groups_by_leaves():
        for links, spines in per_spine:
            out.append(SwitchGroup(
                role="spine", count=group_count * spines, down_ports_used=leaves * shape.pair_links,
                up_ports_used=links, radix=resolved.spine_radix, **_tier(resolved, "spine"),
                description=_("{pair} to each of {leaves} leaves of its group, {links}").format(
                    pair=plurals.links(shape.pair_links), leaves=leaves,
                    links=ngettext("{count} global link", "{count} global links", links).format(count=f"{links:,}"))))
    return out


def _explain(sized: _Sized) -> tuple[str, ...]:
    """The sizing in words, one sentence per step."""
    resolved, shape, groups = sized.resolved, sized.shape, sized.groups
    why = [_("Dragonfly+: a scalable unit is {su_nodes} nodes with one leaf per rail ({rails}): {sus} SU x "
             "{count} = {leaves} leaves.").format(su_nodes=sized.su_nodes, rails=plurals.rails(sized.rails),
                                                 count=sized.rails, sus=sized.sus, leaves=sized.sus * sized.rails),
           ngettext("A group is {sus} SU = {leaves} leaves and {spines} spines; each leaf has {uplinks} uplinks, "
                    "{pair} to each spine of its group; each spine has {down} down ports and {ports} global ports "
                    "(global ratio {ratio}).",
                    "A group is {sus} SUs = {leaves} leaves and {spines} spines; each leaf has {uplinks} uplinks, "
                    "{pair} to each spine of its group; each spine has {down} down ports and {ports} global ports "
                    "(global ratio {ratio}).",
                    sized.sus_per_group).format(sus=sized.sus_per_group, leaves=shape.leaves, spines=shape.spines,
                                  uplinks=shape.uplinks, pair=shape.pair_links, down=shape.leaves * shape.pair_links,
                                  ports=shape.global_ports, ratio=f"{resolved.design.global_ratio:g}")]
    if groups > 1:
        why.append(ngettext("ceil({sus} / {per_group}) = {groups} groups, each pair joined by {pair} global link "
                            "({links} in all); a group has {ports} global ports, so at most {most} groups.",
                            "ceil({sus} / {per_group}) = {groups} groups, each pair joined by {pair} global links "
                            "({links} in all); a group has {ports} global ports, so at most {most} groups.",
                            sized.pair_links).format(
            sus=sized.sus, per_group=sized.sus_per_group, groups=groups, pair=f"{sized.pair_links:,}",
            links=f"{sized.pair_links * groups * (groups - 1) // 2:,}", ports=number(sized.global_ports),
            most=f"{sized.global_ports + 1:,}"))
    else:
        why.append(_("One group: no global links yet (its {ports} global ports join the groups to come).").format(
            ports=number(sized.global_ports)))
    return tuple(why)


# ------------------------------------------------------------------------------------------------- wiring
def global_port_pairs(groups: int, lam: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The global ports that join every two groups ``G`` and ``G + d`` (``global_ends``' rule, both Dragonflies'):
    per distance ``d = 1 .. groups - 1`` and link ``c = 0 .. lam - 1`` of the pair, ``d``-major, ``(d, the port of
    G, the port of G + d)``: ``(d - 1) lam + c`` and ``(groups - d - 1) lam + c``."""
    d = np.repeat(np.arange(1, max(groups, 1), dtype=np.int64), lam)
    c = np.tile(np.arange(lam, dtype=np.int64), max(groups - 1, 0))
    return d, (d - 1) * lam + c, (groups - d - 1) * lam + c


@dataclass(frozen=True)
class DragonflyWiring:
    """How one sized Dragonfly+ is wired: ``Wiring``'s interface (ids, look-ups, links, bundles), ``family``
    ``dragonfly``, roles leaf and spine, link classes node-leaf, leaf-spine and global.

    ``clos`` is the index of the groups as the pods of a folded Clos without cores (node, leaf and
    leaf-spine rules are the Clos's: a Dragonfly+ group is a pod); every look-up it answers is answered here
    (attribute access falls through to it), and the global links are added.
    """

    clos: Wiring
    """The groups as the pods of a folded Clos without cores (node, leaf and leaf-spine rules are its own)."""
    global_ports: int
    """Global ports of each spine (``h``)."""
    global_pair_links: int
    """Global links between each pair of groups (``lam``)."""

    family = FAMILY
    spines_with_pods = True
    group_name = "Dragonfly+ group"
    """A group in the exports' words (Slurm)."""
    roles = ROLES
    link_classes = LINK_CLASSES
    tiers = 2

    def __getattr__(self, name: str):
        if name == "clos" or name.startswith("__"):  # not set yet (unpickling, copying): no fall-through
            raise AttributeError(name)
        return getattr(self.clos, name)

    def group_blocks(self, link_class: str):
        """``Wiring.group_blocks``: a group's leaf-spine links, every leaf of the group to every spine of it,
        ``pair_links`` each; None for the other classes."""
        clos = self.clos
        if link_class != "leaf-spine" or clos.tiers != 3:
            return None

        def pattern(na: int, nb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return np.repeat(np.arange(na), nb), np.tile(np.arange(nb), na), np.full(na * nb, clos.pair_links)

        return (clos.pods, ("leaf", clos.leaves_per_pod, clos.leaves), ("spine", clos.spines_per_pod, clos.spines),
                pattern)

    def pattern(self) -> "DragonflyWiring":
        """``Wiring.pattern``: the groups' Clos's, and the spines' global ports at zero (``global_spines`` reads the
        groups, their spines and the links per pair of groups)."""
        return replace(self, clos=self.clos.pattern(), global_ports=0)

    @property
    def group_count(self) -> int:
        """Dragonfly+ groups (the pods)."""
        return self.clos.pods

    def count(self, role: str) -> int:
        """Switches of ``role`` in one plane and island (no cores)."""
        return self.clos.count(role) if role in ROLES else 0

    def all_switch_ids(self) -> Iterator[str]:
        """Every switch id, leaves then spines."""
        for role in ROLES:
            yield from self.clos.switch_ids(role)

    def class_ends(self, kind: str) -> tuple[tuple[str, str], tuple[str, str]]:
        """Port sides of link class ``kind``: a global link joins two spines' up (global) ports."""
        return (("spine", "up"), ("spine", "up")) if kind == "global" else self.clos.class_ends(kind)

    def spine_up_ports(self, fabric: FabricPlan) -> int:
        """Up ports of every spine: its global ports (``h``)."""
        return self.global_ports

    def group_of_spine(self, k: int) -> int:
        """Dragonfly+ group of spine ``k``."""
        return k // self.clos.spines_per_pod

    def global_ends(self) -> Iterator[tuple[int, int, int, int]]:
        """``(group a, global port of a, group b, global port of b)`` of every global link, ``a < b``, pair by pair."""
        groups, lam = self.clos.pods, self.global_pair_links
        for a in range(groups):
            for b in range(a + 1, groups):
                for c in range(lam):
                    yield a, (b - a - 1) * lam + c, b, (groups - (b - a) - 1) * lam + c

    def global_spines(self) -> tuple[np.ndarray, np.ndarray]:
        """Spine indices at the two ends of every global link (``global_ends`` order), as arrays (the rule of
        ``global_ends`` and ``spine_of_port`` at once, for consumers that measure every link)."""
        groups, lam, s = self.clos.pods, self.global_pair_links, self.clos.spines_per_pod
        a, b = np.triu_indices(groups, 1)
        _d, qa, qb = global_port_pairs(groups, lam)
        k = ((b - a - 1)[:, None] * lam + np.arange(lam)).ravel()  # each link's (distance, c) in their order
        a, b = np.repeat(a, lam), np.repeat(b, lam)
        return a * s + qa[k] % s, b * s + qb[k] % s

    def pair_blocks(self, link_class: str):
        """``Wiring.pair_blocks``: the global links, spine ``qa mod s`` of group ``G`` to spine ``qb mod s`` of group
        ``G + d`` for every ``(d, qa, qb)`` of ``global_port_pairs`` and every group ``G`` below ``groups - d``
        (``global_spines``' links, counted per distance); None for the other classes."""
        groups, s = self.clos.pods, self.clos.spines_per_pod
        if link_class != "global" or self.clos.spines != groups * s:
            return None
        d, qa, qb = global_port_pairs(groups, self.global_pair_links)
        return "spine", groups, s, d, qa % s, qb % s

    def bundle_arrays(self, kind: str) -> tuple[str, np.ndarray, str, np.ndarray, np.ndarray]:
        """``Wiring.bundle_arrays``: the global links one by one (``global_spines``, one link each) for class
        ``global``, the groups' own classes from ``clos``."""
        if kind != "global":
            return self.clos.bundle_arrays(kind)
        first, second = self.global_spines()
        return "spine", first, "spine", second, np.ones(len(first), dtype=np.int64)

    def spine_of_port(self, group: int, port: int) -> tuple[int, int]:
        """``(spine, up ordinal)`` of global port ``port`` of ``group`` (port ``q`` on spine ``q mod s``)."""
        s = self.clos.spines_per_pod
        return group * s + port % s, port // s

    def global_links(self, plane: int = 0, island: int = 0) -> Iterator[Link]:
        """The global links of one plane: spine to spine, at the spines' up ordinals."""
        prefix = self.clos.prefix(plane, island)
        for a, qa, b, qb in self.global_ends():
            (sa, oa), (sb, ob) = self.spine_of_port(a, qa), self.spine_of_port(b, qb)
            yield Link("global", f"{prefix}spine{sa}", oa, f"{prefix}spine{sb}", ob, self.clos.up_gbps)

    def links(self, plane: int = 0, island: int = 0) -> Iterator[Link]:
        """Every cable of one plane: the groups' node-leaf and leaf-spine links, then the global links."""
        yield from self.clos.links(plane, island)
        yield from self.global_links(plane, island)

    def bundles(self, plane: int = 0, island: int = 0) -> Iterator[Bundle]:
        """The links of one plane bundled by device pair (global bundles group pair by group pair)."""
        yield from self.clos.bundles(plane, island)
        prefix, speed = self.clos.prefix(plane, island), self.clos.up_gbps
        pairs: Counter = Counter()
        last = None
        for a, qa, b, qb in self.global_ends():
            if (a, b) != last:
                yield from _flush(pairs, prefix, speed)
                last = (a, b)
            pairs[self.spine_of_port(a, qa)[0], self.spine_of_port(b, qb)[0]] += 1
        yield from _flush(pairs, prefix, speed)


def _flush(pairs: Counter, prefix: str, speed: int) -> Iterator[Bundle]:
    """The global bundles counted in ``pairs`` (spine pair -> links), then ``pairs`` emptied."""
    for (sa, sb), count in pairs.items():
        yield Bundle("global", f"{prefix}spine{sa}", f"{prefix}spine{sb}", count, speed)
    pairs.clear()


def wiring(fabric: FabricPlan, nodes: int, nics: int) -> DragonflyWiring:
    """The Dragonfly+ wiring of ``fabric`` with ``nodes`` servers of ``nics`` NICs (``core.fabric.families``)."""
    return DragonflyWiring(clos=wiring_of(as_clos(fabric), nodes, nics), global_ports=fabric.global_ports_per_spine,
                           global_pair_links=fabric.global_pair_links)


def as_clos(fabric: FabricPlan) -> FabricPlan:
    """``fabric`` with its groups as the pods of a three-tier folded Clos without cores: the leaf-spine pattern
    (every leaf to every spine of its pod) that ``DragonflyWiring.clos`` wires the groups by; the identity for a
    Clos."""
    if fabric.family != FAMILY:
        return fabric
    return copied(fabric, {"tiers": 3, "family": "clos"})


# ----------------------------------------------------------------------------------- plan summary, ways out
def summary(fabric: FabricPlan, bandwidth) -> dict:
    """``Plan.summary()``'s ``dragonfly`` entry: groups and their shape, global links (all planes), the global
    ratio asked and the switch hops (same group, other group, Valiant; ``core.fabric.bandwidth.Bandwidth``)."""
    return {"dragonfly": {
        "groups": fabric.pod_count, "leaves_per_group": fabric.groups_per_pod * fabric.leaves_per_group,
        "spines_per_group": fabric.spines_per_pod, "global_ports_per_spine": fabric.global_ports_per_spine,
        "global_links_per_group_pair": fabric.global_pair_links, "global_links": fabric.global_links * fabric.planes,
        "global_ratio": fabric.global_ratio, **group_hops_summary(bandwidth)}}


def ways_out(design) -> list[tuple[str, dict]]:
    """Candidate changes for ``core.plan.ways_out``: other global ratios, higher first (more global ports hold
    more groups; fewer fit larger groups). Each is re-planned there; only those that build are offered."""
    steps = sorted((r for r in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0) if r != design.global_ratio),
                   key=lambda r: (r < design.global_ratio, abs(r - design.global_ratio)))
    return [(_("set the Dragonfly+ global ratio to {ratio}").format(ratio=f"{r:g}"), {"global_ratio": r})
            for r in steps]


# ------------------------------------------------------------------------------------------- bandwidth, hops
def bisection_gbits(resolved: ResolvedDesign, fabric: FabricPlan, injection_gbits: float,
                    leaf_up_gbits: float, lost_links: int = 0) -> float:
    """Bisection bandwidth, one direction, all planes [Gb/s]: the least of half the injection, half the leaves'
    uplinks (more than one SU) and the global links between two halves of the groups,
    ``floor(g/2) ceil(g/2) lam`` links at the uplink speed, less ``lost_links`` of them (failed global links that
    cross the cut). Exact for an even number of full groups (the tests check it against a max-flow min-cut between
    the halves)."""
    groups = fabric.pod_count
    relevant = [injection_gbits / 2]
    if fabric.group_count > 1:
        relevant.append(leaf_up_gbits / 2)
    if groups > 1:
        cut = (groups // 2) * (groups - groups // 2) * fabric.global_pair_links * fabric.planes
        relevant.append(max(0, cut - lost_links) * resolved.uplink_gbps)
    return min(relevant)


class Hops(NamedTuple):
    """Switches a packet crosses between two nodes (minimal routing unless named)."""

    same_leaf: int
    same_group: int
    """Different leaves of one group: leaf, spine, leaf."""
    other_group: int
    """Minimal across groups: leaf, spine with a global link to the other group, its spine there, leaf (0 with
    one group)."""
    valiant: int
    """Non-minimal (Valiant) through an intermediate group, the worst intermediate: 5 when every group has, for
    every two others, a spine linked to both (leaf, spine, intermediate spine, spine, leaf: Shpiner et al.'s
    intermediate-spine route), else 7 (through a leaf of the intermediate group: the intermediate-leaf route);
    with two groups there is no intermediate, Valiant is minimal (``other_group``); 0 with one group (no route
    between groups: ``core.fabric.families.group_hops`` says only the hops in it)."""
    valiant_same_group: int = 0
    """Non-minimal inside a group (a classic Dragonfly's detour through a third router: 3 switches); 0 where a
    family has none (a Dragonfly+ group is a Clos: every route between its leaves already crosses a spine)."""


def hop_counts(wiring: DragonflyWiring) -> Hops:
    """Switch hop counts of a Dragonfly+ (``Hops``); the tests check them against networkx shortest paths."""
    groups = wiring.group_count
    other = 4 if groups > 1 else 0
    valiant = other if groups < 3 else (5 if _spine_between_every_pair(wiring) else 7)
    one_leaf = wiring.groups_per_pod * wiring.leaves_per_group == 1
    return Hops(1, 1 if one_leaf else 3, other, valiant)


def _spine_between_every_pair(wiring: DragonflyWiring) -> bool:
    """Whether, for every two other groups, each group has a spine with global links to both. The wiring is
    circulant (group ``I`` reaches ``I + d`` on the same ports for every ``I``), so this asks whether every
    ordered pair of distinct offsets ``(d1, d2)`` lies in the offsets of one spine (``_offsets_paired``)."""
    return _offsets_paired(wiring.group_count, wiring.global_pair_links, wiring.spines_per_pod)


@lru_cache(maxsize=4096)  # pure in its three numbers; the optimizer asks it of every Dragonfly+ candidate
def _offsets_paired(groups: int, lam: int, s: int) -> bool:
    """``_spine_between_every_pair`` of ``groups`` groups, ``lam`` global links per group pair and ``s`` spines
    per group."""
    needed = (groups - 1) * (groups - 2)
    used = (groups - 1) * lam
    q = np.arange(used)
    has = np.zeros((s, groups - 1), dtype=bool)  # spine j has offset d (global port q: spine q mod s, offset q // lam)
    has[q % s, q // lam] = True
    distinct = has.sum(axis=1)
    if int((distinct * (distinct - 1)).sum()) < needed:
        return False
    spines = np.packbits(has.T, axis=1)  # per offset d, its spines as bits
    together = (spines[:, None, :] & spines[None, :, :]).any(axis=2)  # (d1, d2): a spine has both
    np.fill_diagonal(together, True)  # every off-diagonal entry must hold
    return bool(together.all())
