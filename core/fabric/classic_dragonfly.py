"""Dragonfly (classic, as in HPE Slingshot): groups of routers joined all to all, global links between groups.

A topology family (``core.fabric.families``): this module is all there is of it (sizing, wiring, bisection,
hops, its words); every view, export and analysis reads it through the family interface.

Source: Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008: groups of
``a`` routers, each with ``p`` terminals, ``a - 1`` local links (one to every other router of its group) and
``h`` global links; at most ``a h + 1`` groups and ``a p (a h + 1)`` terminals; balanced at ``a = 2p = 2h``;
minimal routes take at most one local, one global and one local link (diameter 3 router-to-router hops),
Valiant routes (Section 4: minimal to a random intermediate group, then minimal to the destination) two global
links and up to three local ones. Inside a group a minimal route is the one local link between the two routers (1
hop, 2 switches: ``hop_counts``; the link load routes so, ``core.analysis.loadlocal``); the non-minimal detour
through a third router of the group (adaptive routing as Slingshot's) is counted in the hops (3 switches) but not
routed by the link load, and the load note says so. Uniform random traffic's throughput under minimal and Valiant
routing is ``uniform_throughput`` (Valiant's two global hops halve the global links' share).
``tests/test_classic_dragonfly_routes.py`` and ``tests/test_classic_dragonfly_valiant.py`` check the routes
against networkx shortest paths. HPE Slingshot builds it from 64-port Rosetta switches: ``p = 16``, ``a = 32``
(31 local links), ``h = 17`` (De Sensi et al., "An In-Depth Analysis of the Slingshot Interconnect", SC20).

Terms (counts per plane; ``core.fabric.wiring``'s words keep their meaning):

* **router**: a leaf (role ``leaf``); ``p`` node ports (down), ``a - 1`` local ports and ``h`` global ports (up,
  local first). No spine and no core.
* **scalable unit (SU)**, ``group`` in ``FabricPlan`` and ``Wiring``: ``p`` nodes and one router per rail
  (NIC *i* of every node of the SU on router *i*), as in a rail-optimized Clos.
* **Dragonfly group**, a ``pod`` in ``FabricPlan``: ``m`` SUs, ``a = m x rails`` routers joined all to all by
  ``local`` links.
* **global port** ``q = t a + j``: port ``t`` of router ``j`` (round robin); group ``G`` reaches group
  ``(G + d) mod g`` on its ports ``(d - 1) lam .. d lam - 1`` (``lam`` links per group pair), as Dragonfly+'s
  spines do (``core.fabric.dragonfly``).
* **global ratio** (``Design.global_ratio``): a group's global bandwidth over its injection bandwidth. A router
  needs ``h >= ceil(ratio x p x speed ratio)`` global ports and has every port left after its nodes and local
  links (Slingshot's 17 with 16 nodes and 31 local); each pair of groups is joined by
  ``lam = ceil(ratio x a p x speed ratio / (g - 1))`` links (at least 1, at most the ports allow), so a system
  cabled below its ports' capacity (Frontier: 4 links per group pair, ratio 4 x 73 / 512) is expressed.

Inputs: ``Design.su_nodes`` (``p``; default the largest ``p`` with ``a = 2p`` that fits the radix),
``Design.group_leaves`` (``a``, a multiple of the rails; default ``2p`` rounded down to whole SUs) and
``Design.global_ratio`` (default 1.0, Kim et al.'s balance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, NamedTuple

import numpy as np

from core import plurals, units
from core.design import ResolvedDesign
from core.errors import DesignError
from core.fabric.dragonfly import RISK_GLOBAL, Hops, global_port_pairs, spine_global_links
from core.fabric.families import group_hops, group_hops_summary
from core.fabric.sizing import FabricPlan, SwitchGroup, _speed_ratio, _speeds, _tier
from core.fabric.wiring import Bundle, Device, Link, Wiring, wiring_of
from core.i18n import N_, _, ngettext, sentences

FAMILY = "classic-dragonfly"
GROUPS = True
"""Groups joined by global links (the plan's ways out offer rail-optimized, not top-of-rack, instead)."""
GRAPH_MODELS = ("spof", "availability", "load")
"""The analyses that work on its wiring (``core.fabric.families.require_model``): single points (cut vertices of its
graph, local links' complete graphs folded), availability (local and global links two tiers of their own) and link
load (local links loaded by ``core.analysis.loadlocal``, minimal and Valiant)."""
BOM_MODELS = ("spares",)
"""Analyses read from its bill row by row (``core.fabric.families.require_model``): the spares, one row per router
model, NIC, and optics and cables per link class (node-router, local, global) and length, each row's own rule (N+1
per model and tier, a share of the installed count)."""
ROLES = ("leaf",)
LINK_CLASSES = ("node-leaf", "local", "global")
RAIL_LEAVES = True
"""Its routers are rail routers, each group's one per rail (``core.fabric.families.rail_leaves``: the bill's router
row)."""
SWITCH_TIERS = 1
"""Its switch tiers as a design's count says them (``core.fabric.families.switch_tiers``: the summary's and the
XLSX's "Tiers", the Optimize page's column): one router tier, as ``tier_words`` says (``FabricPlan.tiers`` is 2:
two switch hops or more)."""
DESIGN_FIELDS = ("group_leaves", "global_ratio")
"""``Design`` fields only the Dragonflies read (its sizing: the leaves per group and the global ports of a group;
``core.fabric.families.unused_fields``: set on another topology, they are said to be ignored)."""
IGNORED_FIELDS = ("tiers", "oversubscription", "spine_oversubscription", "spine_switch", "core_switch")
"""The folded Clos's fields it does not read (``core.fabric.families.ignored_fields``: said to be ignored when set,
held by a search, the sidebar's inputs off): one router tier, a router's local and global ports split by the routers
per group and the global ratio, so no leaf oversubscription, no leaf what-if (``families.leaf_whatif``) and no spine
or core model."""
IGNORED_WHY = N_("one router tier, a router's local and global ports following from the routers per group and the "
                 "global ratio")
"""Why it ignores its ``IGNORED_FIELDS`` (``core.fabric.families.ignored_said``)."""
FIXED_FIELDS = ("plane_mode",)
"""``Design`` fields a search takes at the base design's values besides its ``IGNORED_FIELDS``
(``core.fabric.families.unsearched_fields``): those it refuses away from their defaults (per-rail planes: ``size``)."""
FAILURE_CLOSED_FORM = "core.analysis.failure.classicwhatif"
"""The module of its failure what-if in closed form over its groups, global links between routers (its
``what_if_closed``; ``core.analysis.failure.whatif`` imports it by this name), not on its graph."""
LINK_CLASS_SWITCH = {"local": "leaf"}
"""Switch-to-switch classes only this family has -> the role at their ends (``core.physical.media``; at the
uplink speed)."""
LINK_CLASS_LABELS = {"local": N_("local")}
"""Words of the link classes only this family has (``core.fabric.families.link_class_label``)."""
EXPORT_WORDS = {"role:leaf": "Router", "leaf": "router", "leaves": "routers",
                "astra:leaf": "router level (GPUs under one router set)",
                "astra:spine": "group level (a group's router sets joined by its local links)",
                "astra:core": "global level (groups joined by the global links)",
                "astra:oversubscription": "local links {leaf}, global links {spine}"}
"""The exports' English words for its routers (``core.fabric.families.export_word``: NetBox's role, the Slurm tree's
comments, the ASTRA-sim dimensions and oversubscriptions: ``oversubscriptions``' two stages), untranslated as the
exports are."""
WORDS = {
    # the drawing's subtitle and the draw.io title (core.figures.topology.view_words): routers, groups
    "view:each": N_("Every router and server drawn"),
    "view:grouped": N_("Every router drawn; servers grouped per scalable unit"),
    "view:aggregated": N_("Aggregated view: routers and servers bundled by group and rail; numbers are counts"),
    "row:leaf": N_("Routers"), "row:spine": N_("Groups"),
    "legend:leaf": N_("Routers ({count} x {switch})"),
    "legend:spine": N_("Dragonfly groups ({count}): their routers' global ports"),
    "card:leaf": N_("Routers"), "card:spine": None, "card:core": None,  # no spine and no core: no card
    "cli:switches": N_("routers {leaf}  total {total}"),  # the plan CLI's switches row
    "card:links:help": N_("node-router {node_leaf}, local {local}, global {global_}{all_planes}"),
    "name:leaf": N_("router {n}"),  # a router by its number, as the drawing's hover and the hottest links name it
    "graph:rail": N_("{span} rail {rail}: {count} routers"),  # the aggregated drawing's boxes (draw.io, Topology)
    "graph:leaves": N_("{span} routers: {count} routers"),
    "tier:leaf": N_("router"),  # the Resilience page's tier list and the single points' tier column
    "tier:link": N_("local link bundle"),
    # the compute fabric's UFM rows (core.networks.management): its management links land on routers
    "ufm:link": N_("UFM-router"),
    "ufm:links": N_("UFM appliances to compute routers"),
    "ufm:end": N_("UFM side; the router side uses a spare half of a twin-port cage"),
    "ufm:why": N_("{count} UFM appliances manage the compute fabric (an HA pair), {ports} links to its routers."),
    # the Hand-off tab's Slurm block label and the block file's basis: a block is the nodes of one SU's rail routers
    "slurm:block": N_("Slurm topology.conf (block plugin): one block per scalable unit, the nodes under one SU's "
                      "routers, a Slurm switch of the tree form (the {domain} is one node)"),
    # the file's comment, machine-readable: written in English (core.formats.slurm), so not a catalog message
    "slurm:block:basis": ("the {scaleup} domain is one node, so one block per scalable unit (the nodes under one "
                          "SU's rail routers, a Slurm switch of the tree form)"),
    "load:leaf_uplinks": N_("Local links"), "load:spine_uplinks": N_("Global links"),  # the fabric-load table
    # the Performance page's routing sentence (core.perf.jobform): routers, no leaves to oversubscribe
    "perf:routing:topo": N_("Routing: {routing}; ranks packed in topology order, so ring and tree traffic leaves a "
                            "Dragonfly group only between neighbouring groups, and the global links' taper (the "
                            "bisection ratio) mostly affects all-to-all (MoE)."),
    "perf:routing:scatter": N_("Routing: {routing}; ranks spread over the cluster's Dragonfly groups, so ring, tree "
                               "and all-to-all traffic all cross the global links between groups."),
    "perf:placement:help": N_("Packed: nodes in topology order (a dedicated or topology-aware scheduler). Spread: "
                              "nodes scattered over the cluster's Dragonfly groups, as a busy shared cluster leaves "
                              "them."),
    "link:node-leaf": N_("node-router"),  # its terminal links: the bill, the lengths, the link-load tiers
    "bound:leaf": N_("the local links between a group's routers ({ratio} oversubscription) leave a node {share} of "
                     "its NIC bandwidth"),  # the collective CLI's bound at the stage above the routers' node ports
    "load:blocks": N_("block: SU or group"),  # short: a half-page chart at 1,024 px
    "load:note": N_("Inside a group the routing is minimal only: traffic between two routers of a group takes their "
                    "direct local link (rail-aligned traffic uses only those), where adaptive routing (as Slingshot's) "
                    "would detour through a third router; overloaded local links are a limit of this model."),
    "load:caption": N_("Loads are offered traffic over capacity with every GPU sending at its NIC line rate, one "
                       "plane (the others are cabled alike). Adaptive routing spreads the traffic between two groups "
                       "evenly over their global links; static ECMP hashes every flow onto one of them (seeded); a "
                       "flow gets the smallest share along its path. This is where a placement or a low global ratio "
                       "leaves GPUs idle."),
    "input:oversubscription": N_("Oversubscription (not used by this topology)"),
    "input:oversubscription:off": N_("No effect on a Dragonfly: a router's local and global ports follow from the "
                                     "routers per group and the global ratio (Advanced)."),
    "input:tiers:off": N_("No effect on a Dragonfly: one router tier, groups joined by global links."),
    "input:spine_switch:off": N_("No effect on a Dragonfly: its routers are its only switches, with no spine or core "
                                 "tier."),
    "input:core_switch:off": N_("No effect on a Dragonfly: its routers are its only switches, with no spine or core "
                                "tier."),
    "card:leaf:help": N_("{count} {switch} routers, all {planes}: one router tier, no spine and no core"),
    "input:leaf_switch": N_("Router"),  # the sidebar's leaf switch model: its routers' model
    "input:group_leaves": N_("Routers per Dragonfly group (0 = auto)"),
    "input:group_leaves:help": N_("Dragonfly: a multiple of the rails, joined all to all. auto: twice the nodes per "
                                  "router (Kim et al.'s balance), at most what the router radix holds with the global "
                                  "links (now {choice})."),
    "input:global_ratio": N_("Dragonfly global ratio"),
    "input:global_ratio:help": N_("Dragonfly: a group's global bandwidth over its injection bandwidth; it sets each "
                                  "router's global ports and the links between every two groups. 1 is Kim et al.'s "
                                  "balance."),
    "failure:help": N_("Comma-separated, as the exports name them: a router ({router}), a plane ({plane}), a NIC of a "
                       "node ({nic}) or a global link bundle between routers of two groups ({router_bundle}); {cable} "
                       "for one cable of a bundle. The engine's ids ({ids}) work too."),
    "failure:click": N_("Click a router to fail it; click it again to restore it."),
    "stage:leaf_up": N_("Router -><br>local and global"),  # the capacity chart's stage of a router's other ports
    "readout:bandwidth": N_("**Bisection ratio** {total} · **hops** (switches crossed) same rail "
                            "{same_rail}, {group_hops} · **{link} : scale-out** {ratio} per GPU (one direction)"),
    "report:risk:oversubscribed": RISK_GLOBAL,  # the pack's main risk: the global links between groups
    "report:readout:bandwidth": N_("Bisection ratio {total}; switches crossed: same rail {same_rail}, "
                                   "{group_hops}; {link} to scale-out {ratio} per GPU (one direction)."),
    "failure:note": N_("Computed in closed form over the topology's groups (the untouched groups of a plane as one "
                       "block): GPUs outside the connected part holding the most nodes are cut off; the bisection is "
                       "the healthy one scaled by the maximum flow between {cut} with the failures over the same flow "
                       "healthy; busbw and step time on a degraded copy with the slowest connected node's surviving "
                       "NIC ports ({ports}); a router has no uplinks to spines."),
    "failure:empty": N_("Nothing has failed: pick a tier and a count, name elements, or click a router."),
    "failure:caption": N_("Fail routers, local and global link bundles, planes or NICs by the form, or routers by "
                          "clicking them in the diagram (click again to restore one), and compare with the healthy "
                          "design. The healthy design is never changed."),
    "failure:caption:form": N_("Fail routers, local and global link bundles, planes or NICs by the form, and "
                               "compare with the healthy design. The healthy design is never changed."),
    "failure:aggregated": N_("This view is aggregated: a click names a bundle of routers, so fail single routers by "
                             "the form."),
    "failure:bundle": N_("{name} is a bundle of routers in this aggregated view; name one router in the form (e.g. "
                         "{example}) or give a tier and a count."),
    "failure:hot": N_("A hot link as Overload & imbalance lists it (leaf002 -> leaf003) fails that cable, or the "
                      "server's NIC."),
}
"""This family's words where a surface's own are a folded Clos's or a Dragonfly+'s (``core.fabric.families.words``):
the drawing's rows (``row:<role>``) and legend (``legend:spine``: its groups' row), the key numbers' switch cards
(``card:<role>``; None: a tier it does not have, no card; ``card:links:help``), the capacity chart's stages and the
bandwidth readouts (``stage:leaf_up``, ``readout:bandwidth``, ``report:readout:bandwidth``: groups, not pods) and the plan CLI's switches row
(``cli:switches``), the failure tiers (``tier:<tier>``: the Resilience page's list, the single points' tier column),
the Resilience page's failure words (``failure:caption``, ``failure:caption:form`` when the drawing is aggregated and
takes no click, ``failure:aggregated``, ``failure:bundle`` a click on an aggregated bundle, ``failure:hot`` a hot link
as the load analysis names a router's),
the link-load heatmap's blocks and a note on its routing (``load:blocks``, ``load:note``), its link classes
(``link:<class>``: the bill's rows, the cable lengths, the link-load tiers), the collective bound at its first stage
(``bound:leaf``: the local links, whose oversubscription ``oversubscriptions`` gives), the sidebar's sizing inputs (``input:<field>``, ``:help``; ``:off``: why an input has no effect,
shown disabled)."""
COUNTED = {
    # the Performance page's layout sentence (core.perf.jobform): an SU is a router per rail, a path crosses routers
    "perf:groups": plurals.scalable_units,
    "perf:hops": lambda n: ngettext("{count} router crossed", "{count} routers crossed", n).format(count=f"{n:,}"),
}
"""This family's counted words where a surface's own are a folded Clos's (``core.fabric.families.counted``)."""
UNMODELLED = N_("{what}: closed forms of the folded Clos (leaf, spine and core tiers) that do not model a Dragonfly "
                "yet (its routers joined all to all in a group, global links between groups). Run the failure "
                "what-if on it, or take the topology (GraphML export) to a graph tool.")
"""What an analysis that does not model this family says (``core.fabric.families.require_clos``)."""


@dataclass(frozen=True)
class _Sized:
    """What the steps of ``size`` share (per plane): ``p`` nodes per router, ``rails``, ``sus`` scalable units,
    ``a`` routers per full group, ``h`` global ports per router, ``groups``."""

    resolved: ResolvedDesign
    p: int
    rails: int
    sus: int
    a: int
    h: int
    groups: int

    @property
    def sus_per_group(self) -> int:
        """Scalable units per full group (``a / rails``)."""
        return self.a // self.rails

    def group_routers(self, group: int) -> int:
        """Routers of group ``group`` (the last may be partial)."""
        return min(self.sus_per_group, self.sus - group * self.sus_per_group) * self.rails

    @property
    def smallest_group(self) -> int:
        """Routers of the last (smallest) group."""
        return self.group_routers(self.groups - 1)

    @property
    def most_pair_links(self) -> int:
        """Most global links between each pair of groups the smallest group's global ports hold (0 with one)."""
        return self.smallest_group * self.h // (self.groups - 1) if self.groups > 1 else 0

    @property
    def pair_links(self) -> int:
        """Global links between each pair of groups (``lam``): a group's share of the global ratio,
        ``ceil(ratio x a p x speed ratio / (g - 1))``, at least 1, at most ``most_pair_links``."""
        if self.groups < 2:
            return 0
        wanted = math.ceil(self.resolved.design.global_ratio * self.a * self.p * _speed_ratio(self.resolved)
                           / (self.groups - 1) - 1e-9)
        return min(self.most_pair_links, max(1, wanted))


def _network_ports(resolved: ResolvedDesign, p: int) -> int:
    """Ports of a router at the uplink speed left after ``p`` node ports (local and global links)."""
    return math.floor((resolved.switch_ports - p) / resolved.leaf_uplink_cost + 1e-9)


def _global_needed(resolved: ResolvedDesign, p: int) -> int:
    """Global ports a router of ``p`` nodes needs at the design's global ratio (``ceil(ratio p speed ratio)``)."""
    return max(1, math.ceil(resolved.design.global_ratio * p * _speed_ratio(resolved) - 1e-9))


def _fits(resolved: ResolvedDesign, p: int, a: int) -> bool:
    """Whether a router with ``p`` nodes, ``a - 1`` local links and the global ports it needs fits its radix."""
    return a - 1 + _global_needed(resolved, p) <= _network_ports(resolved, p)


def balanced_nodes(resolved: ResolvedDesign) -> int:
    """The largest ``p`` (nodes per router) whose balanced group (``a = 2p`` routers) fits the router radix
    (Kim et al.: ``p + (2p - 1) + h <= k``, 16 on a 64-port router); at least 1."""
    return next((p for p in range(resolved.switch_ports // 2, 0, -1) if _fits(resolved, p, 2 * p)), 1)


def size(resolved: ResolvedDesign) -> FabricPlan:
    """Size the Dragonfly of ``resolved`` (module docstring; counts per plane).

    Raises
    ------
    DesignError
        Per-rail planes or growth asked, a group its routers' ports cannot join all to all with the global ports
        the ratio asks, or more groups than a group's global ports plus one (Kim et al.'s ``a h + 1``).
    """
    if resolved.islands > 1 or resolved.grow_to:
        raise DesignError(_("a Dragonfly is planned with every NIC in every plane and without growth targets."),
                          _("Give every NIC a port in every plane, and drop the growth target."))
    rails = resolved.nics_per_node
    p = min(resolved.su_nodes or balanced_nodes(resolved), resolved.nodes)
    sus = math.ceil(resolved.nodes / p)
    a = _group_routers(resolved, p, rails, sus)
    h = _network_ports(resolved, p) - (a - 1)
    sized = _Sized(resolved, p, rails, sus, a, h, math.ceil(sus / (a // rails)))
    if sized.groups > 1 and sized.most_pair_links < 1:
        most = (a * h + 1) * a // rails * p
        raise DesignError(
            _("{groups} Dragonfly groups need a global link to every other group, but the smallest group's routers "
              "have {ports} global ports: at most a·h + 1 = {most_groups} groups of {a} routers ({most} nodes).").format(
                groups=f"{sized.groups:,}", ports=f"{sized.smallest_group * h:,}", most_groups=f"{a * h + 1:,}", a=a,
                most=f"{most:,}"),
            _("Use larger groups, or plan at most {most} nodes.").format(most=f"{most:,}"))
    return _fabric_plan(sized)


def _group_routers(resolved: ResolvedDesign, p: int, rails: int, sus: int) -> int:
    """Routers per group: ``Design.group_leaves`` if set (whole SUs), else ``2p`` rounded down to whole SUs (at
    least one SU, at most the SUs there are), the largest that fits."""
    asked = resolved.design.group_leaves
    if asked is not None:
        if asked % rails:
            raise DesignError(_("a Dragonfly group of {routers} routers is not a whole number of scalable units of "
                                "{rails} routers.").format(routers=asked, rails=rails),
                              _("Set group leaves to a multiple of {rails}.").format(rails=rails))
        if _fits(resolved, p, asked):
            return asked
    else:
        for m in range(min(sus, max(1, 2 * p // rails)), 0, -1):
            if _fits(resolved, p, m * rails):
                return m * rails
    most = next((m * rails for m in range(resolved.switch_ports // rails, 0, -1) if _fits(resolved, p, m * rails)), 0)
    message = _("a Dragonfly router with {p} nodes has {ports} ports left for its local links and the {needed} global "
                "links the global ratio {ratio} asks.").format(
        p=p, ports=_network_ports(resolved, p), needed=_global_needed(resolved, p),
        ratio=f"{resolved.design.global_ratio:g}")
    if most:  # said in the message too: core.plan replaces the suggestion with its ways out
        if asked is not None:
            message = sentences(message, ngettext("At most {most} router fits in one group, not {asked}.",
                                                  "At most {most} routers fit in one group, not {asked}.",
                                                  most).format(most=most, asked=asked))
        raise DesignError(message, _("Set group leaves to at most {most}.").format(most=most))
    raise DesignError(message, _("Lower the global ratio, or give each router fewer nodes (scalable unit nodes)."))


def _fabric_plan(sized: _Sized) -> FabricPlan:
    """The ``FabricPlan`` of a sized Dragonfly (two switch hops or more: ``tiers`` 2; no spine; a pod is a group;
    ``leaf_uplinks`` the local and global ports of a router)."""
    resolved, groups = sized.resolved, sized.groups
    routers = sized.sus * sized.rails
    lam = sized.pair_links
    plan = FabricPlan(
        tiers=2, planes=resolved.planes, topology=resolved.topology, radix=resolved.switch_ports,
        port_speed_gbps=resolved.port_speed_gbps, leaf_down_ports_max=sized.p, nodes_per_group=sized.p,
        leaves_per_group=sized.rails, group_count=sized.sus, groups_per_pod=sized.sus_per_group, pod_count=groups,
        leaf_count=routers, leaf_uplinks=sized.a - 1 + sized.h, spines_per_pod=0, spine_count=0,
        links_per_leaf_spine_pair=0, spine_uplinks=0, core_groups=0, cores_per_group=0, core_count=0,
        links_per_spine_core_pair=0, partial_pod_spine_uplinks=0, node_leaf_links=resolved.nodes * sized.rails,
        leaf_spine_links=0, spine_core_links=0, switch_groups=(), explanation=_explain(sized), family=FAMILY,
        global_ratio=resolved.design.global_ratio, global_ports_per_spine=sized.h, global_pair_links=lam,
        global_links=lam * groups * (groups - 1) // 2, max_nodes_without_recabling=groups * sized.sus_per_group * sized.p,
        **_speeds(resolved))
    return plan.model_copy(update={"switch_groups": tuple(_router_groups(plan, resolved))})


def _router_kinds(fabric: FabricPlan) -> list[tuple[tuple[int, int, int], int]]:
    """Routers by ``(nodes, local links, global links)`` -> how many (in one plane), most first; the last group
    may have fewer routers, the last SU fewer nodes, and some routers one global link more (round robin)."""
    p, rails, sus = fabric.nodes_per_group, fabric.leaves_per_group, fabric.group_count
    a, h, groups = fabric.groups_per_pod * rails, fabric.global_ports_per_spine, fabric.pod_count
    used = (groups - 1) * fabric.global_pair_links
    last_nodes = fabric.node_leaf_links // rails - (sus - 1) * p
    counts: dict[tuple[int, int, int], int] = {}
    last_group = groups - 1
    for g, times in ((0, groups - 1), (last_group, 1)):  # the full groups are cabled alike: one, times how many
        if times <= 0:
            continue
        routers = min(a // rails, sus - g * (a // rails)) * rails
        last_su = g == last_group and last_nodes < p
        for j, links in enumerate(spine_global_links(routers * h, routers, used)):
            key = (last_nodes if last_su and j >= routers - rails else p, routers - 1, links)
            counts[key] = counts.get(key, 0) + times
    return sorted(counts.items(), reverse=True)


def _router_groups(fabric: FabricPlan, resolved: ResolvedDesign) -> list[SwitchGroup]:
    """Routers by kind (``_router_kinds``): down ports their nodes, up ports local plus global."""
    return [SwitchGroup(role="leaf", count=count, down_ports_used=nodes, up_ports_used=local + links,
                        radix=resolved.switch_ports, **_tier(resolved, "leaf"),
                        description=_("router: {nodes}, {local}, {links}").format(
                            nodes=ngettext("{count} node port", "{count} node ports", nodes).format(count=nodes),
                            local=ngettext("{count} local link", "{count} local links", local).format(count=local),
                            links=_global_links(links)))
            for (nodes, local, links), count in _router_kinds(fabric)]


def switch_class_ports(fabric: FabricPlan, group: SwitchGroup) -> tuple[tuple[str, int], ...]:
    """``(link class, ports)`` of one router of ``group`` (one of ``fabric.switch_groups``): its node ports, local
    and global links (``core.cost`` counts the switch-side modules per class by them)."""
    (nodes, local, links), _count = _router_kinds(fabric)[fabric.switch_groups.index(group)]
    return ("node-leaf", nodes), ("local", local), ("global", links)


def _explain(sized: _Sized) -> tuple[str, ...]:
    """The sizing in words, one sentence per step."""
    why = [_("Dragonfly: {p} nodes per router, one router per rail ({rails}) in each scalable unit: {sus} SU x "
             "{count} = {routers} routers.").format(p=sized.p, rails=plurals.rails(sized.rails), count=sized.rails,
                                                   sus=sized.sus, routers=sized.sus * sized.rails),
           _("A group is {a} routers joined all to all ({local} local links each); each router has {h} global ports "
             "(at least {needed} at global ratio {ratio}; Kim et al.'s balance is a = 2p = 2h).").format(
               a=sized.a, local=sized.a - 1, h=sized.h, needed=_global_needed(sized.resolved, sized.p),
               ratio=f"{sized.resolved.design.global_ratio:g}")]
    if sized.groups > 1:
        why.append(_("ceil({sus} / {per_group}) = {groups} groups, each pair joined by {pair} "
                     "({links} in all); at most a·h + 1 = {most} groups.").format(
            sus=sized.sus, per_group=sized.sus_per_group, groups=sized.groups, pair=_global_links(sized.pair_links),
            links=f"{sized.pair_links * sized.groups * (sized.groups - 1) // 2:,}",
            most=f"{sized.a * sized.h + 1:,}"))
    else:
        why.append(_("One group: no global links yet (its {ports} global ports join the groups to come).").format(
            ports=sized.a * sized.h))
    return tuple(why)


# ------------------------------------------------------------------------------------------------- wiring
@dataclass(frozen=True)
class DragonflyWiring:
    """How one sized Dragonfly is wired: ``Wiring``'s interface, ``family`` ``classic-dragonfly``, role leaf (the
    routers), link classes node-leaf, local and global.

    ``clos`` is the SUs as the groups of a two-tier folded Clos without spines: the node-leaf rule is its own
    (attribute access falls through to it). A router's up ordinals: ``0 .. a-2`` its local links (to the other
    routers of its group in order), then ``a - 1 + t`` its global port ``t``.
    """

    clos: Wiring
    routers_per_group: int
    """``a`` (a partial last group has fewer)."""
    global_ports: int
    """``h`` of each router."""
    global_pair_links: int
    """``lam``."""
    pods: int
    """Dragonfly groups."""

    family = FAMILY
    spines_with_pods = False
    group_name = "Dragonfly group"
    """A group in the exports' words (Slurm)."""
    roles = ROLES
    link_classes = LINK_CLASSES
    tiers = 2

    def __getattr__(self, name: str):
        """Everything else is the SUs' Clos wiring's (node-leaf rule, ids, look-ups)."""
        if name == "clos" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.clos, name)

    def group_blocks(self, link_class: str):
        """``Wiring.group_blocks``: a group's local links, every pair of its routers, one each; None for the other
        classes."""
        if link_class != "local":
            return None

        def pattern(na: int, _nb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            i, j = np.triu_indices(na, 1)
            return i, j, np.ones(len(i), dtype=np.int64)

        routers = ("leaf", self.routers_per_group, self.clos.leaves)
        return self.pods, routers, routers, pattern

    @property
    def group_count(self) -> int:
        """Dragonfly groups."""
        return self.pods

    @property
    def spines(self) -> int:
        """No spine."""
        return 0

    @property
    def spines_per_pod(self) -> int:
        """The routers of a full group (the switches that carry global links, as a Dragonfly+ group's spines)."""
        return self.routers_per_group

    def count(self, role: str) -> int:
        """Switches of ``role`` in one plane (routers are leaves; no spine, no core)."""
        return self.clos.leaves if role == "leaf" else 0

    def all_switch_ids(self) -> Iterator[str]:
        """Every router id, plane by plane."""
        yield from self.clos.switch_ids("leaf")

    def routers_of_group(self, group: int) -> range:
        """Routers (leaf indices) of Dragonfly group ``group``."""
        return range(group * self.routers_per_group, min(self.clos.leaves, (group + 1) * self.routers_per_group))

    def pod_of_leaf(self, k: int) -> int:
        """Dragonfly group of router ``k``."""
        return k // self.routers_per_group

    def pod_of_group(self, g: int) -> int:
        """Dragonfly group of scalable unit ``g``."""
        return g * self.clos.leaves_per_group // self.routers_per_group

    def devices(self, role: str, plane: int = 0, island: int = 0) -> Iterator[Device]:
        """The routers of one plane with their place (pod: their Dragonfly group)."""
        if role != "leaf":
            return
        for k in range(self.clos.leaves):
            yield Device(self.clos.switch_id("leaf", k, plane, island), role, plane, island, k, self.pod_of_leaf(k),
                         self.clos.group_of_leaf(k), self.clos.rail_of_leaf(k))

    @staticmethod
    def class_ends(kind: str) -> tuple[tuple[str, str], tuple[str, str]]:
        """Port sides of link class ``kind``: local and global links join two routers' up ports."""
        return (("node", "up"), ("leaf", "down")) if kind == "node-leaf" else (("leaf", "up"), ("leaf", "up"))

    def spine_up_ports(self, fabric: FabricPlan) -> int:
        """No spine: 0."""
        return 0

    def spines_of_leaf(self, k: int) -> range:
        """No spine: empty."""
        return range(0)

    def leaves_of_spine(self, k: int) -> range:
        """No spine: empty."""
        return range(0)

    def leaves_of_pod(self, pod: int) -> range:
        """Routers of Dragonfly group ``pod``."""
        return self.routers_of_group(pod)

    def spines_of_pod(self, pod: int) -> range:
        """No spine: empty."""
        return range(0)

    def local_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """Router indices at the two ends of every local link (group by group, ``i < j``), one ``np.triu_indices``
        per run of consecutive groups of one size (the full groups, then a last partial one): the same arrays as
        group by group, in time independent of the number of groups."""
        a = self.routers_per_group
        starts = np.arange(self.pods, dtype=np.int64) * a
        sizes = np.maximum(0, np.minimum(self.clos.leaves, starts + a) - starts)  # routers of each group
        cuts = np.flatnonzero(np.diff(sizes)) + 1
        first, second = [], []
        for run_starts, size in zip(np.split(starts, cuts), sizes[np.r_[0, cuts]].tolist()):
            i, j = np.triu_indices(size, 1)
            first.append((run_starts[:, None] + i).ravel())
            second.append((run_starts[:, None] + j).ravel())
        return np.concatenate(first), np.concatenate(second)

    def global_ends(self) -> Iterator[tuple[int, int, int, int]]:
        """``(group a, global port of a, group b, global port of b)`` of every global link, ``a < b``."""
        groups, lam = self.pods, self.global_pair_links
        for a in range(groups):
            for b in range(a + 1, groups):
                for c in range(lam):
                    yield a, (b - a - 1) * lam + c, b, (groups - (b - a) - 1) * lam + c

    def router_of_port(self, group: int, port: int) -> tuple[int, int]:
        """``(router, global port ordinal on it)`` of global port ``port`` of ``group`` (round robin)."""
        routers = self.routers_of_group(group)
        return routers.start + port % len(routers), port // len(routers)

    def global_routers(self) -> tuple[np.ndarray, np.ndarray]:
        """Router indices at the two ends of every global link (``global_ends`` order), as arrays (the rule of
        ``global_ends`` and ``router_of_port`` at once, vectorised)."""
        groups, lam, a = self.pods, self.global_pair_links, self.routers_per_group
        sizes = np.minimum(a, self.clos.leaves - np.arange(groups) * a)  # routers of each group
        first, second = np.triu_indices(groups, 1)
        _d, qa, qb = global_port_pairs(groups, lam)
        k = ((second - first - 1)[:, None] * lam + np.arange(lam)).ravel()  # each link's (distance, c)
        first, second = np.repeat(first, lam), np.repeat(second, lam)
        return first * a + qa[k] % sizes[first], second * a + qb[k] % sizes[second]

    def pair_blocks(self, link_class: str):
        """``Wiring.pair_blocks``: the global links, router ``qa mod a`` of group ``G`` to router ``qb mod a`` of
        group ``G + d`` for every ``(d, qa, qb)`` of ``global_port_pairs`` and every group ``G`` below ``groups -
        d`` (``global_routers``' links, counted per distance) when every group is full; None otherwise and for the
        other classes."""
        a = self.routers_per_group
        if link_class != "global" or self.clos.leaves != self.pods * a:
            return None
        d, qa, qb = global_port_pairs(self.pods, self.global_pair_links)
        return "leaf", self.pods, a, d, qa % a, qb % a

    def bundle_arrays(self, kind: str) -> tuple[str, np.ndarray, str, np.ndarray, np.ndarray]:
        """``Wiring.bundle_arrays``: local links one by one, global links one by one, node-leaf from ``clos``."""
        if kind == "node-leaf":
            return self.clos.bundle_arrays(kind)
        first, second = self.local_ends() if kind == "local" else self.global_routers()
        return "leaf", first, "leaf", second, np.ones(len(first), dtype=np.int64)

    def _local_ordinal(self, router: int, other: int) -> int:
        """Up ordinal of ``router``'s local link to ``other`` (same group)."""
        start = self.pod_of_leaf(router) * self.routers_per_group
        return other - start - (1 if other > router else 0)

    def _ids(self, plane: int, island: int) -> list[str]:
        """Router ids of one plane and island, by index (``Wiring.switch_id``)."""
        return [self.clos.switch_id("leaf", k, plane, island) for k in range(self.clos.leaves)]

    def links(self, plane: int = 0, island: int = 0) -> Iterator[Link]:
        """Every cable of one plane: node-leaf node by node, local links group by group, then global links."""
        ids, up = self._ids(plane, island), self.clos.up_gbps
        yield from self.clos.links(plane, island)
        for i, j in zip(*self.local_ends()):
            i, j = int(i), int(j)
            yield Link("local", ids[i], self._local_ordinal(i, j), ids[j], self._local_ordinal(j, i), up)
        for a, qa, b, qb in self.global_ends():
            (ra, oa), (rb, ob) = self.router_of_port(a, qa), self.router_of_port(b, qb)
            local_a = len(self.routers_of_group(a)) - 1
            local_b = len(self.routers_of_group(b)) - 1
            yield Link("global", ids[ra], local_a + oa, ids[rb], local_b + ob, up)

    def bundles(self, plane: int = 0, island: int = 0) -> Iterator[Bundle]:
        """The links of one plane bundled by device pair (global bundles group pair by group pair)."""
        ids, up = self._ids(plane, island), self.clos.up_gbps
        yield from self.clos.bundles(plane, island)
        for i, j in zip(*self.local_ends()):
            yield Bundle("local", ids[int(i)], ids[int(j)], 1, up)
        pairs: dict[tuple[int, int], int] = {}
        for ra, rb in zip(*self.global_routers()):
            key = (int(ra), int(rb))
            pairs[key] = pairs.get(key, 0) + 1
        for (ra, rb), count in pairs.items():
            yield Bundle("global", ids[ra], ids[rb], count, up)


def wiring(fabric: FabricPlan, nodes: int, nics: int) -> DragonflyWiring:
    """The Dragonfly wiring of ``fabric`` with ``nodes`` servers of ``nics`` NICs (``core.fabric.families``)."""
    clos = wiring_of(fabric.model_copy(update={"family": "clos", "topology": "rail-optimized"}), nodes, nics)
    return DragonflyWiring(clos=clos, routers_per_group=fabric.groups_per_pod * fabric.leaves_per_group,
                           global_ports=fabric.global_ports_per_spine, global_pair_links=fabric.global_pair_links,
                           pods=fabric.pod_count)


def _global_links(count: int) -> str:
    """``1 global link`` / ``4 global links``."""
    return ngettext("{count} global link", "{count} global links", count).format(count=f"{count:,}")


def tier_words(fabric: FabricPlan, counts: bool = False) -> str:
    """The switch tiers in words (``core.fabric.families.tier_words``): ``1 router tier, 32 groups, global links``;
    with ``counts`` the routers and global links counted (one plane), as the drawing's title says them."""
    groups = fabric.pod_count
    if not counts:
        return ngettext("1 router tier, {groups} group, global links", "1 router tier, {groups} groups, global links",
                        groups).format(groups=f"{groups:,}") if groups > 1 else _("1 router tier, one group")
    routers = ngettext("{count} router", "{count} routers", fabric.leaf_count).format(count=f"{fabric.leaf_count:,}")
    return _("1 router tier: {routers} in {groups}, {links}").format(
        routers=routers, groups=ngettext("{count} group", "{count} groups", groups).format(count=f"{groups:,}"),
        links=_global_links(fabric.global_links))


# ----------------------------------------------------------------------------------- plan summary, ways out
def link_counts(fabric: FabricPlan) -> dict[str, int]:
    """Links of the classes ``FabricPlan`` does not count (``core.fabric.families.link_counts``), all planes: the
    local links, ``r (r - 1) / 2`` in a group of ``r`` routers (the last group may be smaller)."""
    spg, rails, sus = fabric.groups_per_pod, fabric.leaves_per_group, fabric.group_count
    routers = [min(spg, sus - g * spg) * rails for g in range(fabric.pod_count)]
    return {"local": sum(r * (r - 1) // 2 for r in routers) * fabric.planes}


def summary(fabric: FabricPlan, bandwidth) -> dict:
    """``Plan.summary()``'s ``classic_dragonfly`` entry: groups, routers per group, nodes per router, global ports
    per router, global links (all planes), the switch hops (minimal and Valiant, in a group and across) and uniform
    random traffic's ideal throughput under minimal and Valiant routing (``uniform_throughput``: shares of a node
    port's line rate)."""
    throughput, loads = uniform_throughput(fabric), global_loads(fabric)
    return {"classic_dragonfly": {
        "hops_valiant_same_group": bandwidth.hops_valiant_same_group,
        "uniform_throughput_minimal": throughput.minimal, "uniform_throughput_valiant": throughput.valiant,
        "adversarial_throughput_minimal": loads.share(loads.adversarial_minimal),
        "adversarial_throughput_valiant": loads.share(loads.adversarial_valiant),
        "groups": fabric.pod_count, "routers_per_group": fabric.groups_per_pod * fabric.leaves_per_group,
        "nodes_per_router": fabric.nodes_per_group, "global_ports_per_router": fabric.global_ports_per_spine,
        "global_links_per_group_pair": fabric.global_pair_links, "global_links": fabric.global_links * fabric.planes,
        "global_ratio": fabric.global_ratio, **group_hops_summary(bandwidth)}}


def summary_rows(summary: dict) -> list[tuple[str, str]]:
    """The plan CLI's ``(label, text)`` rows of ``summary``'s entry (``core.fabric.families.summary_rows``)."""
    d = summary.get("classic_dragonfly")
    if not d:
        return []
    hops = group_hops(d["hops_same_group"], d["hops_other_group"], d["hops_valiant"])
    rows = [(_("Dragonfly groups"), _(
        "{groups} groups of {routers} routers ({p} nodes and {h} global ports each), joined all to all; {pair} "
        "per group pair, {links} in all; switch hops {hops}").format(
        groups=f"{d['groups']:,}", routers=d["routers_per_group"], p=d["nodes_per_router"],
        h=d["global_ports_per_router"], pair=_global_links(d["global_links_per_group_pair"]),
        links=f"{d['global_links']:,}", hops=hops) if d["groups"] > 1 else _(
        "one group of {routers} routers ({p} nodes each), no global links; switch hops {hops}").format(
        routers=d["routers_per_group"], p=d["nodes_per_router"], hops=hops))]
    last = summary["switches"]["leaf"] // summary["planes"] - (d["groups"] - 1) * d["routers_per_group"]
    if d["groups"] > 1 and last != d["routers_per_group"]:  # the SUs fill the groups in turn: the last may be short
        rows[0] = (rows[0][0], _("{groups}; the last group has {last} routers").format(groups=rows[0][1], last=last))
    if "uniform_throughput_minimal" in d and d["groups"] > 1:  # Valiant's global hops: none in one group
        rows.append((_("Dragonfly routing"), _routing_row(d)))
    if "adversarial_throughput_minimal" in d and d["groups"] > 1:
        rows.append((_("Dragonfly worst case"), _worst_row(d)))
    return rows


def _worst_row(d: dict) -> str:
    """The summary's worst-case row of ``d`` (a ``summary``'s ``classic_dragonfly``, two groups or more): adversarial
    traffic's throughput on the global links (``global_loads``); with two groups each group sends to the other, the
    only one, and Valiant has no third group to pass through, so the row says one figure for both routings."""
    if d["groups"] == 2:
        return _("adversarial traffic (each of the two groups to the other) at {minimal} of line rate under minimal "
                 "and Valiant routing alike (two groups: no third group for Valiant to pass through; global links "
                 "only, Kim et al. 2008)").format(minimal=units.percent(d["adversarial_throughput_minimal"]))
    return _("adversarial traffic (every group to the next) at {minimal} of line rate under minimal routing, {valiant} "
             "under Valiant (global links only, Kim et al. 2008)").format(
        minimal=units.percent(d["adversarial_throughput_minimal"]),
        valiant=units.percent(d["adversarial_throughput_valiant"]))


def _routing_row(d: dict) -> str:
    """The summary's routing row of ``d`` (a ``summary``'s ``classic_dragonfly``, two groups or more): uniform random
    traffic's throughput under minimal and Valiant routing and the detour inside a group; with two groups Valiant has
    no third group to pass through, so it is the minimal route (``hop_counts``, ``global_loads``) and the row says
    so, not Valiant's two global hops."""
    detour = d["hops_valiant_same_group"]
    if d["groups"] == 2:
        text = _("uniform random traffic at {minimal} of line rate under minimal and Valiant routing alike (two "
                 "groups: no third group for Valiant to pass through, Kim et al. 2008); a detour inside a group "
                 "crosses {detour} switches") if detour else _(
            "uniform random traffic at {minimal} of line rate under minimal and Valiant routing alike (two groups: "
            "no third group for Valiant to pass through, Kim et al. 2008); no detour inside a group (fewer than 3 "
            "routers)")
    else:
        text = _("uniform random traffic at {minimal} of line rate under minimal routing, {valiant} under Valiant "
                 "(two global hops, Kim et al. 2008); a detour inside a group crosses {detour} switches") if detour \
            else _("uniform random traffic at {minimal} of line rate under minimal routing, {valiant} under Valiant "
                   "(two global hops, Kim et al. 2008); no detour inside a group (fewer than 3 routers)")
    return text.format(minimal=units.percent(d["uniform_throughput_minimal"]),
                       valiant=units.percent(d["uniform_throughput_valiant"]), detour=detour)


def ways_out(design) -> list[tuple[str, dict]]:
    """Candidate changes for ``core.plan.ways_out``: other global ratios, lower first (fewer global ports leave
    room for larger groups; ``core.plan`` offers the engine's own group size)."""
    steps = sorted((r for r in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0) if r != design.global_ratio),
                   key=lambda r: (r > design.global_ratio, abs(r - design.global_ratio)))
    return [(_("set the Dragonfly global ratio to {ratio}").format(ratio=f"{r:g}"), {"global_ratio": r})
            for r in steps]


# ------------------------------------------------------------------------------------------- bandwidth, hops
def bisection_gbits(resolved: ResolvedDesign, fabric: FabricPlan, injection_gbits: float,
                    leaf_up_gbits: float, lost_links: int = 0) -> float:
    """Bisection bandwidth, one direction, all planes [Gb/s]: the least of half the injection, and the links
    across the cut between two halves of the groups (``floor(g/2) ceil(g/2) lam`` global links, less
    ``lost_links``) or, with one group of several SUs, between two halves of its routers
    (``floor(a/2) ceil(a/2)`` local links), at the uplink speed. Exact for an even number of full groups (the
    tests check it against a max-flow min-cut)."""
    groups, relevant = fabric.pod_count, [injection_gbits / 2]
    if groups > 1:
        cut = (groups // 2) * (groups - groups // 2) * fabric.global_pair_links
        relevant.append(max(0, cut * fabric.planes - lost_links) * resolved.uplink_gbps)
    elif fabric.group_count > 1:
        a = fabric.leaf_count
        relevant.append((a // 2) * (a - a // 2) * fabric.planes * resolved.uplink_gbps)
    return min(relevant)


def oversubscriptions(resolved: ResolvedDesign, fabric: FabricPlan) -> tuple[float, float]:
    """``Bandwidth``'s leaf and spine oversubscription for a Dragonfly (at least 1): a router's node bandwidth over
    its local links (traffic inside a group), and a full group's injection over its global links
    (``a p x speed / ((g - 1) lam x uplink speed)``; Frontier: 512 / (73 x 4) = 1.753), which the performance
    model reads as the stage above the leaves."""
    a = fabric.groups_per_pod * fabric.leaves_per_group
    injection = a * fabric.nodes_per_group * resolved.port_speed_gbps
    local = max(1.0, fabric.nodes_per_group * resolved.port_speed_gbps / max(1, (a - 1) * resolved.uplink_gbps))
    if fabric.pod_count < 2:
        return local, 1.0
    return local, max(1.0, injection / ((fabric.pod_count - 1) * fabric.global_pair_links * resolved.uplink_gbps))


def hop_counts(wiring: DragonflyWiring) -> Hops:
    """Switches a packet crosses (``core.fabric.dragonfly.Hops``): 1 on one router, 2 in a group (one local
    link), up to 4 across groups (local, global, local: Kim et al.'s diameter of 3 router-to-router hops; fewer
    when every router pair of two groups is joined); non-minimal (Valiant, Kim et al. Section 4): up to 6 between
    groups (2 global hops and up to 3 local: local, global, local, global, local; ``valiant_hops``) and 3 inside a
    group (the detour through a third router: two local hops). The tests check them against networkx shortest
    paths."""
    groups, a = wiring.pods, len(wiring.routers_of_group(0))  # the routers built: a one-node design has one
    same_group, detour = (1 if a == 1 else 2), (3 if a > 2 else 0)
    if groups < 2:
        return Hops(1, same_group, 0, 0, detour)
    other = _worst_other_group(wiring)
    return Hops(1, same_group, other, valiant_hops(wiring) or other, detour)  # two groups: Valiant is minimal


class Throughput(NamedTuple):
    """Uniform random traffic's ideal throughput (``uniform_throughput``), each a share of a node port's line rate."""

    minimal: float
    valiant: float


def uniform_throughput(fabric: FabricPlan) -> Throughput:
    """Uniform random traffic (every node port sends to every other alike, Kim et al.'s UR) on full groups of
    ``a`` routers of ``p`` ports, ``g`` groups, ``lam`` global links per pair, node ports at ``rho`` times the
    link speed: the share of its line rate each port sustains when the busiest links are full (capped at 1).

    * global links: a group pair carries ``T^2 / (P - 1)`` (``T = a p`` ports per group, ``P = g T``) over
      ``lam`` links, so ``lam (P - 1) / (T^2 rho)`` under minimal routing (one global hop); Valiant routing
      (Kim et al., Section 4: through a random intermediate group, two global hops) loads every global link twice
      as much, half that share (Kim et al.: 50% of the balanced network's capacity). Two groups: no intermediate,
      Valiant is minimal.
    * local links: at most 2 local hops per packet between groups under minimal routing (one in each group), 3
      under Valiant (the intermediate group's too), 1 inside a group, over a group's ``a (a - 1)`` local links
      (one direction): ``(a - 1) / (p rho E)`` with ``E`` the local hops per packet on average (Kim et al.'s
      balance ``a = 2p``, Section 3.1, is two local channels per global one).

    ``Throughput(1.0, 1.0)`` for a single router."""
    a, p, g, lam = fabric.groups_per_pod * fabric.leaves_per_group, fabric.nodes_per_group, fabric.pod_count, \
        fabric.global_pair_links
    rho = fabric.port_speed_gbps / (fabric.uplink_speed_gbps or fabric.port_speed_gbps)
    a = min(a, fabric.leaf_count)  # one group smaller than a full one holds the routers built
    ports_group, ports = a * p, g * a * p
    if ports < 2:
        return Throughput(1.0, 1.0)
    inside, between = (ports_group - p) / (ports - 1), (ports - ports_group) / (ports - 1)
    shares = []
    for global_hops, local_hops in ((1, 2), (2 if g > 2 else 1, 3 if g > 2 else 2)):
        share = [1.0]
        if g > 1:
            share.append(lam * (ports - 1) / (ports_group ** 2 * rho * global_hops))
        hops = inside + between * local_hops  # local hops per packet, on average at most
        if a > 1 and hops > 0:
            share.append((a - 1) / (p * rho * hops))
        shares.append(min(share))
    return Throughput(*shares)


class GlobalLoads(NamedTuple):
    """The busiest global link's offered load over its capacity (above 1: overloaded) with every node port sending
    at line rate, traffic spread ideally over the routes its routing allows (``global_loads``)."""

    uniform_minimal: float
    uniform_valiant: float
    adversarial_minimal: float
    adversarial_valiant: float

    def share(self, load: float) -> float:
        """The share of its line rate a node port gets when the busiest global link carries ``load`` (at most 1)."""
        return min(1.0, 1.0 / load) if load > 0 else 1.0


def global_loads(fabric: FabricPlan) -> GlobalLoads:
    """The global links' load under Kim et al.'s uniform and worst-case traffic (ISCA 2008, Section 4.2) on ``g``
    full groups of ``a`` routers of ``p`` node ports (``T = a p`` a group, ``P = g T``), ``lam`` global links per
    pair of groups, node ports at ``rho`` times the link speed; per link and direction, a share of its capacity:

    * uniform (every port to every other alike): a pair of groups carries ``T^2 / (P - 1)`` port rates each way,
      ``T^2 rho / ((P - 1) lam)`` per link under minimal routing; Valiant routing (through each of the ``g - 2``
      other groups alike) puts two global hops on every connection, twice that (``uniform_throughput``);
    * adversarial (every port of group ``i`` to group ``i + 1``): all ``T`` port rates of a group on the ``lam``
      links to the next one, ``T rho / lam`` under minimal routing (``lam / (a p rho)`` of line rate a port:
      ``1 / (a h)`` in Kim et al.'s balanced Dragonfly, one link a pair, ``p = h``); under Valiant the link from
      ``A`` to ``C`` (``C`` not ``A + 1``) carries ``T / (g - 2)`` of ``A``'s first legs and ``T / (g - 2)`` of the
      second legs of ``C - 1``'s traffic through ``A``: ``2 T rho / ((g - 2) lam)``, so about half the line rate in
      a large balanced Dragonfly (``(g - 2) / (2 (g - 1))``; Kim et al.: Valiant reaches about 50% under worst-case
      traffic), and twice the minimal load on 3 groups. Two groups: Valiant is minimal.

    One group: no global link, every load 0."""
    a, p, g, lam = (min(fabric.groups_per_pod * fabric.leaves_per_group, fabric.leaf_count), fabric.nodes_per_group,
                    fabric.pod_count, max(1, fabric.global_pair_links))
    if g < 2:
        return GlobalLoads(0.0, 0.0, 0.0, 0.0)
    rho = fabric.port_speed_gbps / (fabric.uplink_speed_gbps or fabric.port_speed_gbps)
    t, ports = a * p, g * a * p
    uniform = t * t * rho / ((ports - 1) * lam)
    adversarial = t * rho / lam
    if g == 2:
        return GlobalLoads(uniform, uniform, adversarial, adversarial)
    return GlobalLoads(uniform, 2 * uniform, adversarial, 2 * t * rho / ((g - 2) * lam))


def load_notes(fabric: FabricPlan, pattern: str, routing: str, worst: dict[str, float]) -> list[str]:
    """The sentence under a link-load result of uniform or adversarial traffic (``core.fabric.families.load_notes``):
    ``global_loads``' closed forms under both routings, the throughput they leave a port, and the model's busiest
    global and local links of this run (``worst``: tier -> load over capacity, adaptive routing; ``routing`` the
    run's routing between groups)."""
    if pattern not in ("uniform", "adversarial") or fabric.pod_count < 2:
        return []
    loads = global_loads(fabric)
    minimal, valiant = ((loads.uniform_minimal, loads.uniform_valiant) if pattern == "uniform"
                        else (loads.adversarial_minimal, loads.adversarial_valiant))
    run = (_("This run (Valiant routing, adaptive): global links up to {glob}, local links up to {local} of their "
             "capacity.") if routing == "valiant" else _(
        "This run (minimal routing, adaptive): global links up to {glob}, local links up to {local} of their "
        "capacity.")).format(glob=units.percent(worst.get("global", 0.0)), local=units.percent(worst.get("local", 0.0)))
    values = dict(minimal=units.percent(minimal), valiant=units.percent(valiant),
                  minimal_share=units.percent(loads.share(minimal)), valiant_share=units.percent(loads.share(valiant)))
    a = min(fabric.groups_per_pod * fabric.leaves_per_group, fabric.leaf_count)
    if fabric.pod_count == 2:  # Valiant is minimal (``global_loads``): no third group to pass through
        text = (_("Closed form (Kim et al. 2008; every port at line rate to every other alike, full groups): each "
                  "global link is offered {minimal} of its capacity under minimal and Valiant routing alike (two "
                  "groups: no third group for Valiant to pass through), so a port gets at most {minimal_share} of its "
                  "line rate; a random permutation loads them unevenly around that.") if pattern == "uniform" else _(
            "Closed form (Kim et al. 2008's worst case; every port of a group to the other group at line rate, full "
            "groups): the global links between the two groups ({links} a pair) are offered {minimal} of their "
            "capacity under minimal and Valiant routing alike (two groups: no third group for Valiant to pass "
            "through), so a port gets at most {minimal_share} of its line rate (links per pair / (a p) at equal "
            "speeds, a = {a} routers of p = {p} nodes)."))
        text = text.format(links=_global_links(fabric.global_pair_links), a=a, p=fabric.nodes_per_group, **values)
    elif pattern == "uniform":
        text = _("Closed form (Kim et al. 2008; every port at line rate to every other alike, full groups): each "
                 "global link is offered {minimal} of its capacity under minimal routing and {valiant} under Valiant "
                 "(two global hops), so a port gets at most {minimal_share} and {valiant_share} of its line rate; "
                 "a random permutation loads them unevenly around that.").format(**values)
    else:
        text = _("Closed form (Kim et al. 2008's worst case; every port of a group to the next group at line rate, "
                 "full groups): the global links from a group to the next ({links} a pair) are offered {minimal} of "
                 "their capacity under minimal routing, so a port gets at most {minimal_share} of its line rate (links per pair / "
                 "(a p) at equal speeds, a = {a} routers of p = {p} nodes; 1/(a h) with one link a pair and p = h); "
                 "Valiant routing spreads it over every other group's links at {valiant} at most ({valiant_share}; "
                 "about 50% in a large balanced Dragonfly).").format(
            links=_global_links(fabric.global_pair_links), a=a, p=fabric.nodes_per_group, **values)
    return [_("{closed_form} {this_run}").format(closed_form=text, this_run=run)]


def _pair_links(wiring: DragonflyWiring, d: int, first: int, second: int) -> np.ndarray:
    """``M[x, y]``: router ``x`` of a group of ``first`` routers has a global link to router ``y`` of the group
    ``d`` after it (of ``second`` routers), from the wiring's rule (``global_ends``, ``router_of_port``): port
    ``(d - 1) lam + c`` on one side, ``(g - d - 1) lam + c`` on the other, each on router ``port mod routers``."""
    g, lam = wiring.pods, wiring.global_pair_links
    c = np.arange(lam)
    out = np.zeros((first, second), dtype=bool)
    out[((d - 1) * lam + c) % first, ((g - d - 1) * lam + c) % second] = True
    return out


def _valiant_route(to_c: np.ndarray, to_b: np.ndarray) -> int:
    """Router-to-router hops of the longest Valiant route ``s`` (group A) -> intermediate group C -> ``d`` (group
    B), each leg minimal (``to_c``: A-C links, ``to_b``: C-B links, as ``_pair_links``): to C one global hop, after
    a local hop when ``s`` has none to C; landing on any router ``x`` of C that has a link to A; then to ``d``
    directly (1), through a local hop on either side (2: ``x`` has a link to B, or ``d`` one to C) or both (3)."""
    first = 2 if not to_c.any(axis=1).all() else 1
    landing = to_c.any(axis=0)
    x_out, d_in = to_b.any(axis=1), to_b.any(axis=0)
    if (landing & ~x_out).any() and (~d_in).any():
        return first + 3
    return first + (1 if to_b[landing].all() else 2)


def valiant_hops(wiring: DragonflyWiring) -> int:
    """Switches on the longest Valiant route between two groups (Kim et al., Section 4: minimal to a random
    intermediate group, then minimal to the destination): 2 global hops and up to 3 local ones, so at most 6
    switches, 3 when a group is one router; 0 with fewer than 3 groups (no intermediate). Exact over the
    wiring: full groups by their offsets (the wiring is circulant), and every placement of a partial last group
    among the three; it stops at the most there can be."""
    g, a = wiring.pods, len(wiring.routers_of_group(0))
    if g < 3:
        return 0
    last = len(wiring.routers_of_group(g - 1))
    most = 5 if a > 1 else 2
    worst = 0
    for d1 in range(1, g):
        for d2 in range(1, g):
            if (d1 + d2) % g == 0:
                continue
            sizes = {(a, a, a)} if last == a or g > 3 else set()  # three full groups apart by d1, d2 (g > 3)
            if last != a:  # the partial group as A, C or B
                sizes |= {(last, a, a), (a, last, a), (a, a, last)}
            for sa, sc, sb in sizes:
                worst = max(worst, _valiant_route(_pair_links(wiring, d1, sa, sc), _pair_links(wiring, d2, sc, sb)))
                if worst == most:
                    return worst + 1
    return worst + 1


def _worst_other_group(wiring: DragonflyWiring) -> int:
    """Most switches on a minimal route between two groups: 2 when the two routers are joined, 3 when one of them
    has a global link to the other group, else 4 (the wiring is circulant, so offsets between full groups
    decide)."""
    groups, lam, a = wiring.pods, wiring.global_pair_links, len(wiring.routers_of_group(0))
    ports = np.arange((groups - 1) * lam)
    router, offset = ports % a, ports // lam + 1  # port q of a group: router q mod a, toward group + offset
    has = np.zeros((a, groups), dtype=bool)
    has[router, offset] = True
    worst = 2
    for d in range(1, groups):
        if (~has[:, d]).any() and (~has[:, groups - d]).any():
            return 4
        c = np.arange(lam)
        joined = len(set(zip((((d - 1) * lam + c) % a).tolist(), (((groups - d - 1) * lam + c) % a).tolist())))
        worst = max(worst, 3 if joined < a * a else 2)
    return worst
