"""Fabric sizing: leaf, spine and core (super-spine) switches of a folded-Clos fabric.

One algorithm, closed form, no per-GPU loops (planning 131,072 GPUs costs the
same as 64). Terms:

* **plane**: an independent copy of the fabric; every NIC has one port in each.
  All counts below are per plane unless a name ends in ``_total``.
* **group** (scalable unit, SU): the nodes one set of leaves serves. In a
  rail-optimized fabric an SU holds as many nodes as a leaf has down ports and
  one leaf per rail (NIC *i* of every node goes to leaf *i*). In a top-of-rack
  fabric a group is the nodes of one leaf (one rack, or part of one when the
  rack has more NIC ports than the leaf has down ports).
* **pod**: in three tiers, the groups whose leaves share one set of spines.

Balance rules (so ECMP spreads evenly and nothing exceeds the radix):

* every leaf has the same number of uplinks ``u`` and the same number of links
  ``u / S`` to each of the ``S`` spines it connects to (``S`` divides ``u``);
* every spine has the same number of uplinks ``u2``; spine *j* of every pod
  connects to core group *j* of ``C`` switches with ``u2 / C`` links to each;
* no switch uses more ports than its radix ``k`` at the chosen port speed.

Among the balanced choices the fewest switches win (then the fewest links).
This reproduces the k-ary fat tree (k^2/2 hosts in two tiers, k^3/4 hosts with
5k^2/4 switches in three) and NVIDIA's DGX SuperPOD compute-fabric tables.

Languages: ``FabricPlan.explanation``, ``SwitchGroup.description`` and ``DesignError`` texts are
in the language of the request (``core.i18n``); ``SwitchGroup.role`` (``leaf``, ``spine``,
``core``) is a key, shown with ``_(ROLE_LABELS[role])``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, NamedTuple, NoReturn

from pydantic import BaseModel, ConfigDict

from core.design import ResolvedDesign
from core.errors import DesignError, FabricPlannerError
from core.fabric.families import family as topology_family
from core import plurals
from core.i18n import N_, _, ngettext
from core.memo import FrozenDict, copied, same_fields, stage, view

Role = Literal["leaf", "spine", "core"]
ROLE_LABELS = {"leaf": N_("leaf"), "spine": N_("spine"), "core": N_("core")}
"""Switch role -> its name, English marked for translation: ``_(ROLE_LABELS[role])``."""


class SwitchGroup(BaseModel):
    """Switches of one role that are cabled alike (ports per switch, per plane)."""

    model_config = ConfigDict(frozen=True)
    __eq__ = same_fields  # compared on each hit of a stage whose key holds a plan (``core.memo.same_fields``)

    role: Role
    count: int
    down_ports_used: int
    up_ports_used: int
    radix: int
    description: str
    switch_id: str = ""
    """Catalog id of the model (each tier may have its own)."""
    down_speed_gbps: int = 0
    up_speed_gbps: int = 0
    """Port speeds down and up, per direction [Gb/s] (0 = not recorded)."""
    up_port_cost: float = 1.0
    """Ports at the down speed one uplink takes (2 when an 800G uplink port would break out to 2 x 400G)."""
    reserved: bool = False
    """Installed for growth (``grow_to``) but not yet populated."""

    @property
    def ports_used(self) -> int:
        return self.down_ports_used + self.up_ports_used

    @property
    def port_units_used(self) -> float:
        """Ports used counted at the down speed (what ``radix`` counts)."""
        return self.down_ports_used + self.up_port_cost * self.up_ports_used

    @property
    def ports_free(self) -> int:
        return self.radix - math.ceil(self.port_units_used - 1e-9)


class FabricPlan(BaseModel):
    """The sized fabric. Counts are per plane unless the name ends in ``_total``."""

    model_config = ConfigDict(frozen=True)
    __eq__ = same_fields  # compared on each hit of a stage whose key holds it (``core.memo.same_fields``)

    tiers: int
    planes: int
    topology: str
    radix: int
    port_speed_gbps: int
    leaf_down_ports_max: int
    nodes_per_group: int
    leaves_per_group: int
    group_count: int
    groups_per_pod: int
    pod_count: int
    leaf_count: int
    leaf_uplinks: int
    spines_per_pod: int
    spine_count: int
    links_per_leaf_spine_pair: int
    spine_uplinks: int
    core_groups: int
    cores_per_group: int
    core_count: int
    links_per_spine_core_pair: int
    partial_pod_spine_uplinks: int
    """Uplinks of each spine in a partial last pod (0 when every pod is full): only as many as its
    leaves can fill at the spine oversubscription, rounded up to a multiple of the core group size."""
    node_leaf_links: int
    leaf_spine_links: int
    spine_core_links: int
    switch_groups: tuple[SwitchGroup, ...]
    explanation: tuple[str, ...]
    islands: int = 1
    """Independent fabrics per plane (rail-only rails, per-rail planes); counts above add them up, while
    group, pod and per-switch shape fields describe one island."""
    uplink_speed_gbps: int = 0
    """Leaf uplink, spine and core port speed [Gb/s] (0 = ``port_speed_gbps``)."""
    spine_radix: int = 0
    core_radix: int = 0
    """Spine and core ports at the uplink speed (0 = ``radix``)."""
    grow_to_nodes: int = 0
    """Final node count the upper layers are sized for (0 = the nodes planned)."""
    max_nodes_without_recabling: int = 0
    """Nodes the installed spines and cores can take with the leaves' uplink pattern unchanged (per plane,
    the design's rails per node)."""
    family: str = "clos"
    """Topology family (``core.fabric.families``): ``clos`` (the folded Clos above) or ``dragonfly``, whose pods
    are Dragonfly+ groups joined by global links between their spines (``core.fabric.dragonfly``)."""
    global_ratio: float = 0.0
    """Dragonfly+: a group's global bandwidth over its injection bandwidth, as asked (0 for a Clos)."""
    global_ports_per_spine: int = 0
    """Dragonfly+: global ports of each spine (``h``)."""
    global_pair_links: int = 0
    """Dragonfly+: global links between each pair of groups."""
    global_links: int = 0
    """Dragonfly+: global links in all (spine to spine, between groups)."""
    torus_dims: tuple[int, ...] = ()
    """Torus (``core.fabric.torus``): the dimensions ``k_1 .. k_n`` (the nodes are its vertices)."""
    torus_width: int = 0
    """Torus: parallel links between two neighbouring nodes (NIC ports per neighbour)."""
    torus_cube: int = 0
    """Torus: edge of the cubes joined by optical circuit switches (0: no OCS)."""
    torus_links: int = 0
    """Torus: links in all, node to node (its ``node_leaf_links`` are 0: no leaf)."""

    def __hash__(self) -> int:
        """Of the tiers, link counts and explanation (equal plans hash alike; equality compares every field): a plan
        is in the keys of the engine's cached stages (``core.memo.stage``), and hashing every field, each switch
        group's, took 14 µs."""
        return hash((self.tiers, self.radix, self.node_leaf_links, self.leaf_spine_links, self.spine_core_links,
                     self.explanation))

    @property
    def partial_last_pod(self) -> bool:
        return self.partial_pod_spine_uplinks > 0

    def spine_uplinks_in_pod(self, pod: int) -> int:
        """Uplinks of each spine of pod ``pod`` (0-based)."""
        if self.partial_last_pod and pod == self.pod_count - 1:
            return self.partial_pod_spine_uplinks
        return self.spine_uplinks

    def spine_core_pair_links(self, pod: int) -> int:
        """Links between a spine of pod ``pod`` and each core of its group."""
        return self.spine_uplinks_in_pod(pod) // self.cores_per_group if self.cores_per_group else 0

    @property
    def switch_count(self) -> int:
        return self.leaf_count + self.spine_count + self.core_count

    @property
    def leaf_count_total(self) -> int:
        return self.leaf_count * self.planes

    @property
    def spine_count_total(self) -> int:
        return self.spine_count * self.planes

    @property
    def core_count_total(self) -> int:
        return self.core_count * self.planes

    @property
    def switch_count_total(self) -> int:
        return self.switch_count * self.planes


def down_up_split(radix: int, oversubscription: float) -> tuple[int, int]:
    """Largest down-port count and its up-port count for a down:up ratio.

    Parameters
    ----------
    radix : int
        Switch ports at the chosen speed.
    oversubscription : float
        Down:up ratio, >= 1.

    Returns
    -------
    (down, up) : tuple of int
        ``down = floor(radix * o / (o + 1))`` and ``up = ceil(down / o)``, so
        ``down + up <= radix`` and ``down / up`` is as close to ``o`` as whole
        ports allow without exceeding it.
    """
    down = math.floor(radix * oversubscription / (oversubscription + 1) + 1e-9)
    up = math.ceil(down / oversubscription - 1e-9)
    while down + up > radix:  # guard against rounding at odd radixes
        down -= 1
        up = math.ceil(down / oversubscription - 1e-9)
    return down, up


def leaf_down_up(radix: int, oversubscription: float, speed_ratio: float = 1.0, up_cost: float = 1.0
                 ) -> tuple[int, int]:
    """``down_up_split`` with uplinks at another speed: the most down ports ``d`` with
    ``d + up_cost * u <= radix`` where ``u = ceil(d * speed_ratio / oversubscription)`` uplinks keep the
    down:up *bandwidth* ratio at most ``oversubscription`` (``speed_ratio`` = down speed / up speed).

    >>> leaf_down_up(128, 1.0, 0.5, 2.0)   # SN5600: 128 x 400G down, 800G uplinks (two 400G ports each)
    (64, 32)
    """
    if speed_ratio == 1.0 and up_cost == 1.0:
        return down_up_split(radix, oversubscription)
    down = math.floor(radix * oversubscription / (oversubscription + up_cost * speed_ratio) + 1e-9)
    up = math.ceil(down * speed_ratio / oversubscription - 1e-9)
    while down > 0 and down + up_cost * up > radix + 1e-9:
        down -= 1
        up = math.ceil(down * speed_ratio / oversubscription - 1e-9)
    return down, up


@lru_cache(maxsize=1 << 16)  # pure in its numbers; the optimizer asks the same few thousand many times
def _balanced_uplinks(
    lower_switches: int, down_used: int, oversubscription: float, radix: int, upper_down_capacity: int,
    speed_ratio: float = 1.0, up_cost: float = 1.0,
) -> tuple[int, int] | None:
    """Choose uplinks per lower switch ``u`` and upper switches ``n`` for one balanced stage.

    Each of ``lower_switches`` switches has ``down_used`` ports down and ``u``
    up, spread evenly over ``n`` upper switches (``n`` divides ``u``); each
    upper switch then uses ``lower_switches * u / n`` ports down, which must
    not exceed ``upper_down_capacity``. Returns the ``(u, n)`` with the fewest
    upper switches, then the fewest uplinks; None if nothing fits.

    Tried by ``n`` upward from the fewest upper switches the fewest uplinks ``u_min`` fill: for each ``n`` only the
    fewest uplinks it divides, ``u = ceil(u_min / n) n``, can be the answer (more only load the upper switches more);
    the first ``n`` where ``u <= u_max`` and ``lower_switches u <= n upper_down_capacity`` wins, with that ``u``.
    """
    u_min = max(1, math.ceil(down_used * speed_ratio / oversubscription - 1e-9))
    u_max = math.floor((radix - down_used) / up_cost + 1e-9)
    for upper in range(max(1, math.ceil(lower_switches * u_min / upper_down_capacity)), u_max + 1):
        uplinks = -(-u_min // upper) * upper
        if uplinks <= u_max and lower_switches * uplinks <= upper * upper_down_capacity:
            return uplinks, upper
    return None


def _speed_ratio(resolved: ResolvedDesign) -> float:
    """Leaf down speed / uplink speed (0.5 for 400G to NICs and 800G up)."""
    return resolved.leaf_speed_ratio


def _leaf_split(resolved: ResolvedDesign) -> tuple[int, int]:
    """Most leaf down ports and their uplinks at the design's oversubscription, speeds and breakout."""
    return leaf_down_up(resolved.switch_ports, resolved.design.oversubscription, _speed_ratio(resolved),
                        resolved.leaf_uplink_cost)


def _group_shape(resolved: ResolvedDesign, leaf_down_max: int) -> tuple[int, int, int]:
    """Nodes per group, leaves per group and down ports one node uses on one leaf."""
    rails = resolved.nics_per_node
    nodes_per_domain = resolved.nvlink_level1_nodes
    su_nodes = resolved.su_nodes
    if resolved.topology in ("rail-optimized", "rail-only"):
        if su_nodes is not None:
            if su_nodes > leaf_down_max:
                _refuse(resolved, lambda: DesignError(
                    _("a scalable unit of {su_nodes} nodes needs {su_nodes} down ports on each rail leaf, but a "
                      "{switch} leaf has {down} at {ratio}:1.").format(
                        su_nodes=su_nodes, switch=resolved.switch.id, down=leaf_down_max,
                        ratio=f"{resolved.design.oversubscription:g}"),
                    _("Set su_nodes to at most {down}, or oversubscribe the leaves more.").format(down=leaf_down_max)))
            return su_nodes, rails, 1
        nodes_per_group = leaf_down_max
        if nodes_per_domain > 1 and nodes_per_group >= nodes_per_domain:
            nodes_per_group -= nodes_per_group % nodes_per_domain  # keep NVLink racks whole in an SU
        return nodes_per_group, rails, 1
    fit = leaf_down_max // rails
    if su_nodes is not None:
        fit = min(fit, su_nodes)
    # leaves never straddle racks: the largest share of a rack that divides it evenly and fits a leaf
    nodes_per_leaf = max((d for d in range(1, min(fit, resolved.nodes_per_rack) + 1)
                          if resolved.nodes_per_rack % d == 0), default=0)
    if nodes_per_leaf < 1:
        _refuse(resolved, lambda: DesignError(
            _("a node has {rails} NIC ports per plane but a {switch} leaf has only {down} down ports at "
              "{ratio}:1.").format(rails=rails, switch=resolved.switch.id, down=leaf_down_max,
                                   ratio=f"{resolved.design.oversubscription:g}"),
            _("Use rail-optimized topology, fewer NICs per node, or a higher oversubscription (more down ports)."),
        ))
    return nodes_per_leaf, 1, rails


def max_nodes(resolved: ResolvedDesign, tiers: int, leaf_down: int | None = None) -> int:
    """Largest node count ``tiers`` tiers of the chosen switch can serve (per plane).

    ``leaf_down`` is the leaf down ports used per leaf (default: the most the
    oversubscription allows).
    """
    radix = resolved.switch_ports
    if leaf_down is None:
        leaf_down, _up = _leaf_split(resolved)
    nodes_per_group, leaves_per_group, ports_per_node = _group_shape(resolved, leaf_down)
    if tiers == 1:
        return radix // resolved.nics_per_node
    if tiers == 2:
        return (resolved.spine_radix // leaves_per_group) * nodes_per_group
    return resolved.core_radix * _groups_per_pod(resolved, leaves_per_group) * nodes_per_group


def _groups_per_pod(resolved: ResolvedDesign, leaves_per_group: int) -> int:
    """Scalable units (or ToR leaves) per pod: ``pod_sus`` if set and it fits, else as many as a spine reaches."""
    spine_down, _up = down_up_split(resolved.spine_radix, resolved.design.spine_oversubscription)
    most = spine_down // leaves_per_group
    if resolved.pod_sus is not None and most:
        if resolved.pod_sus > most:
            _refuse(resolved, lambda: DesignError(
                _("a pod of {pod_sus} scalable units needs {ports} spine down ports ({leaves} leaves each), but a "
                  "{switch} spine has {down} at {ratio}:1.").format(
                    pod_sus=resolved.pod_sus, ports=resolved.pod_sus * leaves_per_group, leaves=leaves_per_group,
                    switch=resolved.tier_switches["spine"].id, down=spine_down,
                    ratio=f"{resolved.design.spine_oversubscription:g}"),
                _("Set pod_sus to at most {most}, or choose a spine switch with more ports.").format(most=most)))
        return resolved.pod_sus
    return most


MAX_LEAF_DOWN_CANDIDATES = 24
"""Most leaf down-port counts ``size_fabric`` compares (keeps planning within a few ms)."""


def size_fabric(resolved: ResolvedDesign, words: bool = True) -> FabricPlan:
    """Size the scale-out fabric of ``resolved``: per island (``_size_island``), for the final size when the
    design grows (``grow_to``: ``_populated`` keeps the upper layers and the leaves' uplinks of the final
    fabric and only the present scalable units), then ``islands`` copies side by side. Another topology
    family (``core.fabric.families``) sizes its own. Without ``words`` a folded Clos's plan has no explanation and
    its switch groups no description (the optimizer's checks read only its numbers, which are the same), and, without
    growth, it is cached by what sizing reads (``_sized_clos``: the ``ClosSizing`` view, its planes keyed at 1)."""
    other = topology_family(resolved.topology)
    if other is not None:
        return other.size(resolved)
    if not words and not resolved.grow_to:  # the optimizer's: cached by what it reads, the planes and models apart
        try:
            plan = _sized_clos(_stand_in_sizing(resolved))
        except FabricPlannerError:  # its message names the models and speeds: sized again with them, to raise it
            return _size_clos(ClosSizing.of(resolved), words=False)
        return _identified(plan, resolved)
    return _size_clos(resolved, words)


def _size_clos(resolved: ResolvedDesign, words: bool = True) -> FabricPlan:
    """``size_fabric`` of a folded Clos (``resolved``: a resolved design or its ``ClosSizing``)."""
    island = resolved
    if resolved.islands > 1:
        island = (resolved._replace(nics_per_node=resolved.rails_per_island, islands=1)
                  if isinstance(resolved, ClosSizing) else
                  copied(resolved, {"nics_per_node": resolved.rails_per_island, "islands": 1}))
    if resolved.grow_to:
        final = _size_island(island.model_copy(update={"nodes": resolved.grow_to,
                                                       "gpus": resolved.grow_to * resolved.gpus_per_node}), words)
        plan = _populated(island, final, resolved.grow_to)
    else:
        plan = _size_island(island, words)
    plan = copied(plan, {"max_nodes_without_recabling": _growth_limit(island, plan)})
    if resolved.islands > 1:
        plan = _side_by_side(resolved, plan, words)
    return plan


_CLOS_RATIOS = view("ClosRatios", "oversubscription spine_oversubscription tiers")
"""What sizing a folded Clos reads of the design (``ClosSizing``'s ``design``)."""
ClosSizing = view("ClosSizing", "nodes nics_per_node islands rails_per_island grow_to planes topology gpus "
                  "gpus_per_node nvlink_level1_nodes su_nodes nodes_per_rack switch_ports spine_radix core_radix "
                  "pod_sus port_speed_gbps uplink_gbps leaf_speed_ratio leaf_uplink_cost switch",
                  design=_CLOS_RATIOS,
                  tier_switches=FrozenDict)
"""What sizing a folded Clos without words reads of a resolved design (``core.memo.view``; the error messages too):
its numbers and switch models. ``planes`` is read only to be copied into ``FabricPlan.planes``, so ``size_fabric``
keys it at 1 and sets it after (the planes of a per-port design share one sizing), and the switch models and port
speeds at stand-ins (``_ANY_SWITCH``, ``_ANY_TIERS``, ``_ANY_DOWN``, ``_ANY_UP``)."""


def _clos_bytes(plan: FabricPlan) -> int:
    """Upper bound of the memory of a fabric plan without words [bytes]: 5 kB and 0.75 kB a switch group (measured
    at most 4.8 kB besides 0.75 kB a group over the 5,561 plans of two searches, 16,384 H100 and 2,304 GB200 NVL72;
    ``tests/test_memo.py``)."""
    return 5120 + 768 * len(plan.switch_groups)


class _AnySwitch(NamedTuple):
    """A stand-in for a switch model in the ``ClosSizing`` key of ``_sized_clos``: sizing reads a model's id alone
    (its switch groups' ``switch_id``, its errors' words), its ports being the view's numbers; one per role."""

    id: str


_ANY_SWITCH = _AnySwitch("\0switch")
_ANY_TIERS = FrozenDict({role: _AnySwitch(f"\0{role}") for role in ("leaf", "spine", "core")})
"""The stand-ins ``size_fabric`` sizes with (``_sized_clos``): designs whose switch models differ but whose numbers
agree share one sizing (2,500 sizings of a default search's 4,700 ``ClosSizing``s); their groups take the models' ids
after (``SwitchGroup.switch_id``), and a sizing that raises is sized again with the models, whose ids its message
names."""

_ANY_DOWN, _ANY_UP = -1, -2
"""Stand-ins for the leaf down and the uplink port speeds [Gb/s] in the ``ClosSizing`` key of ``_sized_clos``:
sizing reads the speeds only to record them (``FabricPlan.port_speed_gbps``, ``uplink_speed_gbps``, the switch
groups' ``down_speed_gbps`` and ``up_speed_gbps``) and in its errors' words, counting ports by the view's numbers
(``switch_ports``, ``spine_radix``, ``core_radix``, ``leaf_speed_ratio``, ``leaf_uplink_cost``): designs whose speeds
differ but whose numbers agree (400G and 800G on the same 64 ports) share one sizing, the plan taking the speeds
after."""


_STAND_INS = {"planes": 1, "switch": _ANY_SWITCH, "tier_switches": _ANY_TIERS, "port_speed_gbps": _ANY_DOWN,
              "uplink_gbps": _ANY_UP}
"""The ``ClosSizing`` fields ``_sized_clos`` is keyed with at a stand-in (``size_fabric``)."""
_READ = tuple(name for name in ClosSizing._fields if name not in _STAND_INS and name != "design")
_read = operator.attrgetter(*_READ)
_AT = tuple(ClosSizing._fields.index(name) for name in _READ)
_KEY = [_STAND_INS.get(name) for name in ClosSizing._fields]
_DESIGN_AT = ClosSizing._fields.index("design")


def _stand_in_sizing(resolved: ResolvedDesign) -> ClosSizing:
    """``ClosSizing.of(resolved)`` with ``_STAND_INS``' fields at their stand-ins (the key of ``_sized_clos``), made
    without the models' ``FrozenDict``."""
    key = _KEY.copy()
    for at, value in zip(_AT, _read(resolved)):
        key[at] = value
    key[_DESIGN_AT] = _CLOS_RATIOS.of(resolved.design)
    return tuple.__new__(ClosSizing, key)


def _identified(plan: FabricPlan, resolved: ResolvedDesign) -> FabricPlan:
    """``plan`` sized with the stand-ins (``_sized_clos``) with ``resolved``'s planes, switch models' ids and port
    speeds in their places (its switch groups' ``switch_id``, ``down_speed_gbps``, ``up_speed_gbps``)."""
    tiers = resolved.tier_switches
    ids = {_ANY_SWITCH.id: resolved.switch.id, **{_ANY_TIERS[role].id: model.id for role, model in tiers.items()}}
    down, up = resolved.port_speed_gbps, resolved.uplink_gbps
    speeds = {_ANY_DOWN: down, _ANY_UP: up}
    groups = tuple(copied(g, {"switch_id": ids.get(g.switch_id, g.switch_id),
                              "down_speed_gbps": speeds.get(g.down_speed_gbps, g.down_speed_gbps),
                              "up_speed_gbps": speeds.get(g.up_speed_gbps, g.up_speed_gbps)})
                   for g in plan.switch_groups)
    return copied(plan, {"switch_groups": groups, "planes": resolved.planes,
                         "port_speed_gbps": speeds.get(plan.port_speed_gbps, plan.port_speed_gbps),
                         "uplink_speed_gbps": speeds.get(plan.uplink_speed_gbps, plan.uplink_speed_gbps)})


@stage(0.15, _clos_bytes, max_entries=1 << 14)  # a default search's 2,500 distinct sizings, 20 MB: a warm one hits
def _sized_clos(sizing: ClosSizing) -> FabricPlan:
    """``size_fabric(resolved, words=False)`` of a folded Clos without growth from its ``ClosSizing`` (its switch
    models the stand-ins ``_ANY_SWITCH``, ``_ANY_TIERS``); cached by it (``core.memo.stage``; its errors pass uncached:
    their messages are in the request's language)."""
    return _size_clos(sizing, words=False)


def _size_island(resolved: ResolvedDesign, words: bool = True) -> FabricPlan:
    """Size the scale-out fabric of ``resolved`` at the leaf down-port count ``_best_leaf_down`` chooses from the
    design's numbers (a note in the explanation when it is below the most the oversubscription allows; ``words``
    as ``size_fabric``'s).

    Raises
    ------
    DesignError
        The design needs more tiers than asked (or than three), or a node has
        more ports than a leaf; the message names the largest size that fits.
    """
    leaf_down_max, _up = _leaf_split(resolved)
    best = _size_fabric(resolved, _best_leaf_down(IslandNumbers.of(resolved)), words=words)
    if words and best.leaf_down_ports_max < leaf_down_max:
        note = _("Leaves use at most {used} of the {most} down ports {ratio}:1 allows: that balances on fewer "
                 "switches.").format(used=best.leaf_down_ports_max, most=leaf_down_max,
                                     ratio=f"{resolved.design.oversubscription:g}")
        best = best.model_copy(update={"explanation": (note, *best.explanation)})
    return best


IslandNumbers = view("IslandNumbers", "nodes nics_per_node topology nvlink_level1_nodes su_nodes nodes_per_rack "
                     "switch_ports spine_radix core_radix pod_sus leaf_speed_ratio leaf_uplink_cost",
                     design=view("IslandRatios", "oversubscription spine_oversubscription tiers"))
"""What choosing an island's leaf down-port count reads of a resolved design (``core.memo.view``): numbers alone,
no switch model and its speeds only as their ratio (``leaf_speed_ratio``), so a count that cannot be sized raises
``_Unfit`` without the words of the error the design's own sizing says."""


class _Unfit(DesignError):
    """A sizing step that cannot be built, found from ``IslandNumbers`` (which names no switch model, so the
    sizing of the design itself raises the error that says why)."""


def _refuse(resolved, error: Callable[[], DesignError]) -> NoReturn:
    """Raise ``error()``, or ``_Unfit`` when ``resolved`` is only an island's numbers (``IslandNumbers``)."""
    if isinstance(resolved, IslandNumbers):
        raise _Unfit("", "")
    raise error()


def _best_leaf_down(island: IslandNumbers) -> int:
    """The leaf down-port count the island is sized at: the most the oversubscription allows, or, when it is
    above 1:1, a few less if that gives a design with fewer switches (at 4:1 a 64-port leaf can take 51 nodes
    and 13 uplinks, but 13 uplinks only balance on 13 spines, while 48 nodes and 12 uplinks balance on 6).
    Counts run from the most down to three quarters of it; the fewest (tiers, switches) win, then the most
    down ports. Non-blocking fabrics keep the standard half-radix scalable unit. When no count can be sized,
    the most (sizing there raises the first count's error, what the design cannot do).
    Uncached: the optimizer's sizings are cached whole (``_sized_clos``), and a cache of this choice found 121
    choices in 1,988 of a default search, costing more (0.12 s) than choosing each afresh (0.10 s).

    Each count is compared by ``_score``, skipped when its closed-form floor
    (``_score_floor``) cannot beat the best so far, or when a count compared before has its group shape
    (``_group_shape``: the only thing sizing and the floor read of the count, ``_Stage``); the same choice as sizing
    each in full and keeping the first of the fewest (tiers, switches).

    Parameters
    ----------
    island : IslandNumbers
        The design's numbers (one island).

    Returns
    -------
    int
        Leaf down ports [ports per leaf, at the leaf's down speed].
    """
    leaf_down_max, _up = _leaf_split(island)
    fits_one_switch = island.nodes * island.nics_per_node <= island.switch_ports and island.design.tiers in ("auto", 1)
    if fits_one_switch or island.design.oversubscription <= 1 or island.su_nodes is not None:
        return leaf_down_max
    low = max(1, math.ceil(leaf_down_max * 0.75))
    step = max(1, math.ceil((leaf_down_max - low + 1) / MAX_LEAF_DOWN_CANDIDATES))
    best_score, best_down = None, leaf_down_max
    shapes = set()  # the group shapes compared so far
    for leaf_down in range(leaf_down_max, low - 1, -step):
        try:
            shape = _group_shape(island, leaf_down)
        except DesignError:
            continue  # sizing this count raises the same error
        if shape in shapes:
            continue  # a count of a shape compared already: the same floor and score, not strictly better
        shapes.add(shape)
        if best_score is not None and _score_floor(island, leaf_down) >= best_score:
            continue  # its score is at least its floor: not strictly better than the best so far
        try:
            score = _score(island, leaf_down)
        except DesignError:
            continue
        if best_score is None or score < best_score:
            best_score, best_down = score, leaf_down
    return best_down


def _score_floor(resolved: ResolvedDesign, leaf_down_max: int) -> tuple[int, int]:
    """A lower bound on ``_score(resolved, leaf_down_max)``'s (tiers, switches), closed form,
    lexicographically: its tiers (those ``_choose_tiers`` sets, or 4 when they would not hold the nodes: sizing
    raises) and at least its leaves, the spines their fewest uplinks need (each spine takes at most its radix, in
    three tiers its down ports at the spine oversubscription) and a core in three tiers. (0, 0) when the group
    shape raises (no bound: sizing says why). ``tests/test_optimize_speed.py`` checks it against every score."""
    try:
        nodes_per_group, leaves_per_group, ports_per_node = _group_shape(resolved, leaf_down_max)
    except DesignError:
        return 0, 0
    nodes = resolved.nodes
    leaves = math.ceil(nodes / nodes_per_group) * leaves_per_group
    if nodes <= resolved.switch_ports // resolved.nics_per_node:
        fewest = 1
    elif nodes <= (resolved.spine_radix // leaves_per_group) * nodes_per_group:
        fewest = 2
    else:
        fewest = 3
    tiers = fewest if resolved.design.tiers == "auto" else int(resolved.design.tiers)
    if tiers < fewest:
        return 4, 0  # the tiers asked hold too few nodes: sizing raises
    if tiers == 1:
        return 1, 1
    uplinks = max(1, math.ceil(min(nodes, nodes_per_group) * ports_per_node * _speed_ratio(resolved)
                               / resolved.design.oversubscription - 1e-9))
    if tiers == 2:
        return 2, leaves + math.ceil(leaves * uplinks / resolved.spine_radix)
    spine_down, _up = down_up_split(resolved.spine_radix, resolved.design.spine_oversubscription)
    return 3, leaves + (math.ceil(leaves * uplinks / spine_down) + 1 if spine_down > 0 else 0)


@dataclass(slots=True)
class _Stage:
    """What the steps of one sizing share: the design's shape at one leaf down-port budget, and the
    explanation and switch groups collected so far (per plane)."""

    resolved: ResolvedDesign
    leaf_down_max: int
    nodes_per_group: int
    leaves_per_group: int
    ports_per_node_per_leaf: int
    group_count: int
    tiers: int = 0
    why: list[str] = field(default_factory=list)
    words: bool = True
    """Whether the sizing says why: its explanation and its switch groups' descriptions; without (``size_fabric(...,
    words=False)``) both are empty and every number is the same."""

    def note(self, sentence: Callable[[], str]) -> None:
        """Add ``sentence()`` to the explanation (made only when the sizing has words)."""
        if self.words:
            self.why.append(sentence())

    def said(self, text: Callable[[], str]) -> str:
        """A switch group's description ``text()``, or "" without words."""
        return text() if self.words else ""

    @property
    def design(self):
        return self.resolved.design

    @property
    def radix(self) -> int:
        return self.resolved.switch_ports

    @property
    def leaf_count(self) -> int:
        return self.group_count * self.leaves_per_group

    @property
    def endpoints(self) -> int:
        return self.resolved.nodes * self.resolved.nics_per_node

    @property
    def leaf_down_used(self) -> int:
        """Down ports each leaf of a full group uses (the only group's, if there is one)."""
        return min(self.resolved.nodes, self.nodes_per_group) * self.ports_per_node_per_leaf

    @property
    def last_group_nodes(self) -> int:
        return self.resolved.nodes - (self.group_count - 1) * self.nodes_per_group

    @property
    def rail(self) -> bool:
        """Groups are scalable units (rail-optimized), else top-of-rack leaves."""
        return self.resolved.topology in ("rail-optimized", "rail-only")


@dataclass
class _Upper:
    """Spine and core layers of a sizing (all zero in one tier)."""

    leaf_uplinks: int = 0
    spines_per_pod: int = 0
    spine_count: int = 0
    pair_links: int = 0
    spine_uplinks: int = 0
    core_groups: int = 0
    cores_per_group: int = 0
    core_count: int = 0
    spine_core_pair: int = 0
    pod_count: int = 1
    groups_per_pod: int = 0
    partial_uplinks: int = 0
    spine_core_links: int = 0
    groups: list[SwitchGroup] = field(default_factory=list)


def _stage_of(resolved: ResolvedDesign, leaf_down_max: int, words: bool) -> _Stage:
    """The ``_Stage`` of ``resolved`` with leaves using at most ``leaf_down_max`` down ports (its group shape,
    ``_group_shape``, which raises for a node with more ports than such a leaf)."""
    nodes_per_group, leaves_per_group, ports_per_node = _group_shape(resolved, leaf_down_max)
    return _Stage(resolved, leaf_down_max, nodes_per_group, leaves_per_group, ports_per_node,
                  group_count=math.ceil(resolved.nodes / nodes_per_group), words=words)


class _Counts(NamedTuple):
    """The numbers one sizing balances above the leaves (per plane, one island; ``_counted``): what
    ``_best_leaf_down`` compares (``tiers``, ``switches``) and ``_size_fabric`` builds its plan on."""

    tiers: int
    switches: int
    """Leaves, spines and cores."""
    leaf_uplinks: int = 0
    spines_per_pod: int = 0
    groups_per_pod: int = 0
    pod_count: int = 1
    spine_uplinks: int = 0
    cores_per_group: int = 0


def _counted(stage: _Stage) -> _Counts:
    """The tiers (``_choose_tiers``), then each leaf's uplinks balanced over the fewest spines (all the leaves in two
    tiers, a pod's in three) and, in three tiers, the spines' uplinks over the fewest cores of each core group
    (``_balanced_uplinks``); raises the sizing's errors."""
    resolved, design = stage.resolved, stage.design
    per_pod = _choose_tiers(stage)
    tiers = stage.tiers
    if tiers == 1:
        return _Counts(1, 1)
    leaf_count = stage.leaf_count
    if tiers == 2:
        lower, capacity = leaf_count, resolved.spine_radix
    else:
        per_pod = min(per_pod, stage.group_count)
        lower = per_pod * stage.leaves_per_group
        capacity, _up = down_up_split(resolved.spine_radix, design.spine_oversubscription)
    choice = _balanced_uplinks(lower, stage.leaf_down_used, design.oversubscription, stage.radix, capacity,
                               _speed_ratio(resolved), resolved.leaf_uplink_cost)
    if choice is None:
        _no_uplinks(stage)
    leaf_uplinks, spines = choice
    if tiers == 2:
        return _Counts(2, leaf_count + spines, leaf_uplinks, spines)
    pods = math.ceil(stage.group_count / per_pod)
    core = _balanced_uplinks(pods, lower * (leaf_uplinks // spines), design.spine_oversubscription,
                             resolved.spine_radix, resolved.core_radix)
    assert core is not None, "three-tier feasibility was checked against max_nodes"
    spine_uplinks, cores_per_group = core
    return _Counts(3, leaf_count + spines * pods + spines * cores_per_group, leaf_uplinks, spines, per_pod, pods,
                   spine_uplinks, cores_per_group)


def _score(resolved: ResolvedDesign, leaf_down_max: int) -> tuple[int, int]:
    """(tiers, switches) of the fabric ``_size_fabric(resolved, leaf_down_max)`` sizes, what ``_best_leaf_down``
    compares, raising the same errors (``_counted``, without building the plan)."""
    counts = _counted(_stage_of(resolved, leaf_down_max, words=False))
    return counts.tiers, counts.switches


def _size_fabric(resolved: ResolvedDesign, leaf_down_max: int, words: bool = True) -> FabricPlan:
    """Size the fabric with leaves using at most ``leaf_down_max`` down ports (``words`` as ``size_fabric``'s).

    Steps: group shape (``_stage_of``), tier count and the balanced counts (``_counted``), leaves
    (``_explain_leaves``), then spines (``_two_tier_spines``) or pods, spines and cores
    (``_three_tier_pods``, whose partial last pod is ``_partial_pod``), and finally the
    full and partial leaf groups (``_leaf_groups``).
    """
    stage = _stage_of(resolved, leaf_down_max, words)
    counts = _counted(stage)
    if counts.tiers == 1:
        return _one_tier(stage)
    if stage.words:
        _explain_leaves(stage)
    upper = _two_tier_spines(stage, counts) if counts.tiers == 2 else _three_tier_pods(stage, counts)
    groups = _leaf_groups(stage, upper.leaf_uplinks) + upper.groups
    return FabricPlan(
        tiers=stage.tiers, planes=resolved.planes, topology=resolved.topology, radix=stage.radix,
        port_speed_gbps=resolved.port_speed_gbps, leaf_down_ports_max=leaf_down_max,
        nodes_per_group=stage.nodes_per_group, leaves_per_group=stage.leaves_per_group, group_count=stage.group_count,
        groups_per_pod=upper.groups_per_pod or stage.group_count, pod_count=upper.pod_count,
        leaf_count=stage.leaf_count, leaf_uplinks=upper.leaf_uplinks, spines_per_pod=upper.spines_per_pod,
        spine_count=upper.spine_count, links_per_leaf_spine_pair=upper.pair_links,
        spine_uplinks=upper.spine_uplinks, core_groups=upper.core_groups, cores_per_group=upper.cores_per_group,
        core_count=upper.core_count, links_per_spine_core_pair=upper.spine_core_pair,
        partial_pod_spine_uplinks=upper.partial_uplinks, node_leaf_links=stage.endpoints,
        leaf_spine_links=stage.leaf_count * upper.leaf_uplinks, spine_core_links=upper.spine_core_links,
        switch_groups=tuple(groups), explanation=tuple(stage.why), **_speeds(resolved),
    )


def _speeds(resolved: ResolvedDesign) -> dict:
    return {"uplink_speed_gbps": resolved.uplink_gbps, "spine_radix": resolved.spine_radix,
            "core_radix": resolved.core_radix}


def _choose_tiers(stage: _Stage) -> int:
    """Set ``stage.tiers``: the fewest that hold the nodes (auto) or the ones asked for, else a ``DesignError``.
    Returns the groups a pod holds at most (``_groups_per_pod``, which raises for a ``pod_sus`` no spine reaches,
    whatever the tiers).

    ``core.plan.plan`` replaces the suggestion of these errors with ways out it checked by re-planning.
    """
    resolved, design = stage.resolved, stage.design
    nodes = resolved.nodes
    per_pod = _groups_per_pod(resolved, stage.leaves_per_group)
    # max_nodes(resolved, t, stage.leaf_down_max) at index t = 1, 2, 3, from the group shape the stage already has
    limit = (0, stage.radix // resolved.nics_per_node,
             (resolved.spine_radix // stage.leaves_per_group) * stage.nodes_per_group,
             resolved.core_radix * per_pod * stage.nodes_per_group)
    needed = 1 if nodes <= limit[1] else 2 if nodes <= limit[2] else 3 if nodes <= limit[3] else None

    def sized() -> dict:  # the values of the error messages (built only for one)
        models = list(dict.fromkeys(s.id for s in resolved.tier_switches.values()))  # leaf / spine / core when they differ
        return {"nodes": f"{nodes:,}", "gpus": f"{resolved.gpus:,}", "switch": " / ".join(models),
                "speed": resolved.port_speed_gbps}

    if design.tiers == "auto":
        tiers = needed
        if tiers is None and limit[3] == 0:
            _too_many_rails(stage, 3, limit)
        if tiers is None:
            _refuse(resolved, lambda: DesignError(
                _("{nodes} nodes ({gpus} GPUs) need more than three tiers of {switch} at {speed} Gb/s; three tiers "
                  "hold at most {most} nodes ({most_gpus} GPUs) per plane.").format(
                    most=f"{limit[3]:,}", most_gpus=f"{limit[3] * resolved.gpus_per_node:,}", **sized()),
                _("Plan at most {most} nodes.").format(most=f"{limit[3]:,}"),
            ))
    else:
        tiers = int(design.tiers)
        if nodes > limit[tiers]:
            if limit[tiers] == 0:
                _too_many_rails(stage, tiers, limit)
            _refuse(resolved, lambda: DesignError(
                ngettext("{tiers} tier of {switch} at {speed} Gb/s holds at most {most} nodes ({most_gpus} GPUs); "
                         "this design has {nodes} nodes ({gpus} GPUs).",
                         "{tiers} tiers of {switch} at {speed} Gb/s hold at most {most} nodes ({most_gpus} GPUs); "
                         "this design has {nodes} nodes ({gpus} GPUs).", tiers).format(
                    tiers=tiers, most=f"{limit[tiers]:,}", most_gpus=f"{limit[tiers] * resolved.gpus_per_node:,}",
                    **sized()),
                _("Set tiers to auto or {tiers}.").format(tiers=needed) if needed
                else _("Plan at most {most} nodes.").format(most=f"{limit[tiers]:,}"),
            ))
        if tiers > needed:
            stage.note(lambda: _("Tiers set to {tiers} although {needed} would do; the extra tier adds switches and "
                                 "hops (room to grow to {most} nodes).").format(tiers=tiers, needed=needed,
                                                                                 most=f"{limit[tiers]:,}"))
    stage.tiers = tiers
    return per_pod


def _too_many_rails(stage: _Stage, tiers: int, limit: tuple[int, ...]) -> NoReturn:
    """Raise the ``DesignError`` for a node whose NIC ports (rails) exceed what one switch reaches, so
    ``tiers`` tiers hold no node at all (rather than "hold at most 0 nodes")."""
    resolved = stage.resolved
    _refuse(resolved, lambda: _rails_error(stage, tiers, limit))


def _rails_error(stage: _Stage, tiers: int, limit: tuple[int, ...]) -> DesignError:
    """``_too_many_rails``'s error."""
    resolved = stage.resolved
    rails, radix, switch, speed = resolved.nics_per_node, stage.radix, resolved.switch.id, resolved.port_speed_gbps
    spine_down, _up = down_up_split(resolved.spine_radix, stage.design.spine_oversubscription)
    other = max((t for t in (1, 2, 3) if t != tiers and limit[t]), default=0)
    values = {"rails": rails, "switch": switch, "radix": radix, "speed": speed, "spine_down": spine_down,
              "ratio": f"{stage.design.spine_oversubscription:g}", "leaves": stage.leaves_per_group,
              "other": other, "most": f"{limit[other]:,}" if other else "0"}
    if tiers == 1 or rails > radix:
        fit = radix
        if other:
            message = ngettext(
                "a node has {rails} NIC ports per plane (rails), but one {switch} has only {radix} ports at {speed} "
                "Gb/s; {other} tier holds at most {most} nodes.",
                "a node has {rails} NIC ports per plane (rails), but one {switch} has only {radix} ports at {speed} "
                "Gb/s; {other} tiers hold at most {most} nodes.", other)
        else:
            message = _("a node has {rails} NIC ports per plane (rails), but one {switch} has only {radix} ports at "
                        "{speed} Gb/s.")
    else:
        fit = spine_down
        if other:
            message = ngettext(
                "a node has {rails} NIC ports per plane (rails), but in three tiers a spine has only {spine_down} "
                "down ports at {ratio}:1 (of {radix} at {speed} Gb/s) and must reach all {leaves} rail leaves of a "
                "scalable unit; {other} tier holds at most {most} nodes.",
                "a node has {rails} NIC ports per plane (rails), but in three tiers a spine has only {spine_down} "
                "down ports at {ratio}:1 (of {radix} at {speed} Gb/s) and must reach all {leaves} rail leaves of a "
                "scalable unit; {other} tiers hold at most {most} nodes.", other)
        else:
            message = _("a node has {rails} NIC ports per plane (rails), but in three tiers a spine has only "
                        "{spine_down} down ports at {ratio}:1 (of {radix} at {speed} Gb/s) and must reach all "
                        "{leaves} rail leaves of a scalable unit.")
    return DesignError(
        message.format(**values),
        _("Use at most {most} NICs per node.").format(most=min(fit, 16)),
    )


def _one_tier(stage: _Stage) -> FabricPlan:
    """Every NIC port on one switch."""
    resolved, radix, endpoints = stage.resolved, stage.radix, stage.endpoints
    nodes, rails, speed = resolved.nodes, resolved.nics_per_node, resolved.port_speed_gbps
    group = SwitchGroup(role="leaf", count=1, down_ports_used=endpoints, up_ports_used=0, radix=radix,
                        switch_id=resolved.switch.id, down_speed_gbps=speed, up_speed_gbps=resolved.uplink_gbps,
                        up_port_cost=resolved.leaf_uplink_cost, description=stage.said(
                            lambda: _("single switch: {nodes} nodes x {rails} NICs").format(nodes=nodes, rails=rails)))
    stage.note(lambda: _("{ports} NIC ports fit one {switch} ({radix} x {speed}G): one tier.").format(
        ports=endpoints, switch=resolved.switch.id, radix=radix, speed=speed))
    return FabricPlan(
        tiers=1, planes=resolved.planes, topology=resolved.topology, radix=radix, port_speed_gbps=speed,
        leaf_down_ports_max=radix, nodes_per_group=nodes, leaves_per_group=1, group_count=1,
        groups_per_pod=1, pod_count=1, leaf_count=1, leaf_uplinks=0, spines_per_pod=0, spine_count=0,
        links_per_leaf_spine_pair=0, spine_uplinks=0, core_groups=0, cores_per_group=0, core_count=0,
        links_per_spine_core_pair=0, partial_pod_spine_uplinks=0, node_leaf_links=endpoints,
        leaf_spine_links=0, spine_core_links=0, switch_groups=(group,), explanation=tuple(stage.why),
        **_speeds(resolved),
    )


def _explain_leaves(stage: _Stage) -> None:
    """Say how the nodes fill scalable units or top-of-rack leaves."""
    resolved, design = stage.resolved, stage.design
    rails, nodes = resolved.nics_per_node, resolved.nodes
    if stage.rail and resolved.topology == "rail-only":  # sized per rail: each rail's own fabric, one leaf an SU
        stage.note(lambda: ngettext(
            "Each rail's fabric: a scalable unit is {su_nodes} nodes on one leaf (one leaf down port each at "
            "{ratio}:1): {sus} SU = {leaves} leaf per rail.",
            "Each rail's fabric: a scalable unit is {su_nodes} nodes on one leaf (one leaf down port each at "
            "{ratio}:1): {sus} SU = {leaves} leaves per rail.", stage.leaf_count
        ).format(su_nodes=stage.nodes_per_group, ratio=f"{design.oversubscription:g}", sus=stage.group_count,
                 leaves=stage.leaf_count))
    elif stage.rail:
        stage.note(lambda: _(
            "Rail-optimized: a scalable unit is {su_nodes} nodes (one leaf down port each at {ratio}:1), with one "
            "leaf per rail ({rails}): {sus} SU x {count} = {leaves} leaves."
        ).format(su_nodes=stage.nodes_per_group, ratio=f"{design.oversubscription:g}", rails=plurals.rails(rails),
                 count=rails, sus=stage.group_count, leaves=stage.leaf_count))
    else:
        per_rack = resolved.nodes_per_rack // stage.nodes_per_group
        values = {"leaf_nodes": stage.nodes_per_group, "rails": rails, "ports": stage.nodes_per_group * rails,
                  "per_rack": per_rack, "rack_nodes": resolved.nodes_per_rack, "nodes": nodes,
                  "leaves": stage.leaf_count}
        if per_rack > 1:
            message = _("Top-of-rack: each leaf serves {leaf_nodes} nodes x {rails} NICs = {ports} down ports "
                        "({per_rack} leaves per rack of {rack_nodes} nodes): ceil({nodes} / {leaf_nodes}) = "
                        "{leaves} leaves.")
        else:
            message = _("Top-of-rack: each leaf serves {leaf_nodes} nodes x {rails} NICs = {ports} down ports: "
                        "ceil({nodes} / {leaf_nodes}) = {leaves} leaves.")
        stage.note(lambda: message.format(**values))


def _two_tier_spines(stage: _Stage, counts: _Counts) -> _Upper:
    """Every leaf's uplinks over the fewest spines (two tiers; ``counts``: ``_counted``'s)."""
    resolved, leaf_count = stage.resolved, stage.leaf_count
    radix = resolved.spine_radix
    leaf_uplinks, spine_count = counts.leaf_uplinks, counts.spines_per_pod
    pair_links = leaf_uplinks // spine_count
    spine_down = leaf_count * pair_links
    stage.note(lambda: _(
        "Each leaf has {uplinks} uplinks, {pair} to each of {spines} spines; each spine uses {leaves} leaves x "
        "{pair} = {down} of {radix} ports."
    ).format(uplinks=leaf_uplinks, pair=pair_links, spines=spine_count, leaves=leaf_count, down=spine_down,
             radix=radix))
    spines = SwitchGroup(role="spine", count=spine_count, down_ports_used=spine_down, up_ports_used=0, radix=radix,
                         **_tier(resolved, "spine"), description=stage.said(lambda: _(
                             "{pair} to each of {leaves} leaves").format(pair=plurals.links(pair_links), leaves=leaf_count)))
    return _Upper(leaf_uplinks=leaf_uplinks, spines_per_pod=spine_count, spine_count=spine_count,
                  pair_links=pair_links, groups=[spines])


def _three_tier_pods(stage: _Stage, counts: _Counts) -> _Upper:
    """Pods of groups under their own spines, spine j of every pod to core group j (three tiers; ``counts``:
    ``_counted``'s)."""
    resolved = stage.resolved
    radix = resolved.spine_radix
    up = _Upper(leaf_uplinks=counts.leaf_uplinks, spines_per_pod=counts.spines_per_pod,
                groups_per_pod=counts.groups_per_pod, pod_count=counts.pod_count, spine_uplinks=counts.spine_uplinks,
                cores_per_group=counts.cores_per_group)
    leaves_per_pod = up.groups_per_pod * stage.leaves_per_group
    up.pair_links = up.leaf_uplinks // up.spines_per_pod
    up.spine_count = up.spines_per_pod * up.pod_count
    spine_down = leaves_per_pod * up.pair_links
    up.core_groups = up.spines_per_pod
    up.core_count = up.core_groups * up.cores_per_group
    up.spine_core_pair = up.spine_uplinks // up.cores_per_group

    def pod() -> str:  # made only when the sizing has words (``_Stage.note``)
        return (_("A pod is {units} = {leaves} leaves and {spines} spines; ceil({all_groups} / "
                  "{groups}) = {pods} pods.") if stage.rail else
                ngettext("A pod is {groups} top-of-rack leaf = {leaves} leaves and {spines} spines; ceil({all_groups} "
                         "/ {groups}) = {pods} pods.",
                         "A pod is {groups} top-of-rack leaves = {leaves} leaves and {spines} spines; ceil("
                         "{all_groups} / {groups}) = {pods} pods.",
                         up.groups_per_pod)).format(
            groups=up.groups_per_pod, units=plurals.scalable_units(up.groups_per_pod), leaves=leaves_per_pod,
            spines=up.spines_per_pod, all_groups=stage.group_count, pods=up.pod_count)

    stage.note(pod)
    stage.note(lambda: _(
        "Each leaf has {uplinks} uplinks, {pair} to each spine of its pod; each spine has {down} down and {up} up."
    ).format(uplinks=up.leaf_uplinks, pair=up.pair_links, down=spine_down, up=up.spine_uplinks))
    last_pod_groups = stage.group_count - (up.pod_count - 1) * up.groups_per_pod
    full_pods = up.pod_count - (1 if last_pod_groups < up.groups_per_pod else 0)
    core_down = full_pods * up.spine_core_pair
    up.spine_core_links = full_pods * up.spines_per_pod * up.spine_uplinks
    stage.note(lambda: _(
        "Spine j of every pod connects to core group j: {core_groups} groups x {per_group} cores = {cores} cores, "
        "{pair} per spine-core pair."
    ).format(core_groups=up.core_groups, per_group=up.cores_per_group, cores=up.core_count,
             pair=plurals.links(up.spine_core_pair)))
    if full_pods:
        up.groups.append(
            SwitchGroup(role="spine", count=full_pods * up.spines_per_pod, down_ports_used=spine_down,
                        up_ports_used=up.spine_uplinks, radix=radix, **_tier(resolved, "spine"),
                        description=stage.said(lambda: _("{pair} to each of {leaves} leaves in its pod").format(
                            pair=plurals.links(up.pair_links), leaves=leaves_per_pod)))
        )
    if full_pods < up.pod_count:
        core_down += _partial_pod(stage, up, last_pod_groups)
    up.groups.append(
        SwitchGroup(role="core", count=up.core_count, down_ports_used=core_down, up_ports_used=0,
                    radix=resolved.core_radix, **_tier(resolved, "core"), description=stage.said(
                        lambda: _("links to spine j of each of {pods} pods").format(pods=up.pod_count)))
    )
    stage.note(lambda: _("Each core uses {down} of {radix} ports.").format(down=core_down,
                                                                           radix=resolved.core_radix))
    return up


def _partial_pod(stage: _Stage, up: _Upper, last_pod_groups: int) -> int:
    """Spines of a partial last pod: only as many uplinks as its leaves fill at the spine oversubscription,
    rounded up to whole core groups. Returns the core ports they use on each core."""
    partial_down = last_pod_groups * stage.leaves_per_group * up.pair_links
    needed = max(1, math.ceil(partial_down / stage.design.spine_oversubscription - 1e-9))
    up.partial_uplinks = min(up.spine_uplinks, up.cores_per_group * math.ceil(needed / up.cores_per_group))
    up.spine_core_links += up.spines_per_pod * up.partial_uplinks
    up.groups.append(
        SwitchGroup(role="spine", count=up.spines_per_pod, down_ports_used=partial_down,
                    up_ports_used=up.partial_uplinks, radix=stage.resolved.spine_radix,
                    **_tier(stage.resolved, "spine"),
                    description=stage.said(lambda: (
                        _("partial pod: {groups} of {per_pod} scalable units") if stage.rail
                        else _("partial pod: {groups} of {per_pod} top-of-rack leafs")).format(
                        groups=last_pod_groups, per_pod=up.groups_per_pod)))
    )
    stage.note(lambda: (
        _("The last pod holds {groups} of {per_pod} scalable units: its spines have {down} down and {up} up "
          "({per_core} per core).") if stage.rail else
        _("The last pod holds {groups} of {per_pod} top-of-rack leafs: its spines have {down} down and {up} up "
          "({per_core} per core).")).format(groups=last_pod_groups, per_pod=up.groups_per_pod, down=partial_down,
                                            up=up.partial_uplinks, per_core=up.partial_uplinks // up.cores_per_group))
    return up.partial_uplinks // up.cores_per_group


def _leaf_groups(stage: _Stage, leaf_uplinks: int) -> list[SwitchGroup]:
    """Leaves of full groups, and those of a partial last group."""
    last_leaf_down = stage.last_group_nodes * stage.ports_per_node_per_leaf
    leaf_count = stage.leaf_count
    full_leaves = leaf_count - (stage.leaves_per_group if last_leaf_down < stage.leaf_down_used else 0)
    groups = [
        SwitchGroup(role="leaf", count=full_leaves, down_ports_used=stage.leaf_down_used, up_ports_used=leaf_uplinks,
                    radix=stage.radix, **_tier(stage.resolved, "leaf"),
                    description=stage.said(lambda: _("full scalable unit") if stage.rail else _("full top-of-rack leaf")))
    ] if full_leaves else []
    if full_leaves < leaf_count:
        groups.append(
            SwitchGroup(role="leaf", count=leaf_count - full_leaves, down_ports_used=last_leaf_down,
                        up_ports_used=leaf_uplinks, radix=stage.radix, **_tier(stage.resolved, "leaf"),
                        description=stage.said(lambda: (
                            _("partial scalable unit: {nodes} of {group_nodes} nodes") if stage.rail
                            else _("partial top-of-rack leaf: {nodes} of {group_nodes} nodes")).format(
                            nodes=stage.last_group_nodes, group_nodes=stage.nodes_per_group)))
        )
    return groups


def _tier(resolved: ResolvedDesign, role: str) -> dict:
    """The ``SwitchGroup`` fields of one tier's model and port speeds."""
    down = resolved.port_speed_gbps if role == "leaf" else resolved.uplink_gbps
    return {"switch_id": resolved.tier_switches[role].id, "down_speed_gbps": down,
            "up_speed_gbps": resolved.uplink_gbps,
            "up_port_cost": resolved.leaf_uplink_cost if role == "leaf" else 1.0}


def _no_uplinks(stage: _Stage) -> NoReturn:
    """Raise the ``DesignError`` for leaves whose free ports cannot carry the uplinks the ratio asks for
    (a down:up below 1 on a leaf with too few ports left)."""
    resolved = stage.resolved
    _refuse(resolved, lambda: DesignError(
        _("a {switch} leaf with {down} down ports has no room for the uplinks {ratio}:1 asks for at {speed} Gb/s "
          "({radix} ports at {down_speed} Gb/s).").format(
            switch=resolved.switch.id, down=stage.leaf_down_used, ratio=f"{stage.design.oversubscription:g}",
            speed=resolved.uplink_gbps, radix=stage.radix, down_speed=resolved.port_speed_gbps),
        _("Set su_nodes lower, or raise the oversubscription.")))


def _growth_limit(resolved: ResolvedDesign, plan: FabricPlan) -> int:
    """Nodes the installed spine and core layers serve with the leaves' uplinks unchanged (one island)."""
    if plan.tiers == 1:
        return plan.radix // max(1, resolved.nics_per_node)
    if plan.tiers == 2:
        leaves = plan.spine_radix // max(1, plan.links_per_leaf_spine_pair)
        return (leaves // plan.leaves_per_group) * plan.nodes_per_group
    pods = plan.core_radix // max(1, plan.links_per_spine_core_pair)
    return pods * plan.groups_per_pod * plan.nodes_per_group


_ISLAND_COUNTS = ("leaf_count", "spine_count", "core_count", "node_leaf_links", "leaf_spine_links",
                  "spine_core_links")


def _side_by_side(resolved: ResolvedDesign, plan: FabricPlan, words: bool = True) -> FabricPlan:
    """``resolved.islands`` copies of the one-island ``plan``: counts multiplied, shapes kept (``words`` as
    ``size_fabric``'s)."""
    islands = resolved.islands
    groups = tuple(copied(g, {"count": g.count * islands}) for g in plan.switch_groups)
    update = {key: getattr(plan, key) * islands for key in _ISLAND_COUNTS}
    if not words:
        return copied(plan, {**update, "switch_groups": groups, "islands": islands})
    why = (_("Rail-only: each of the {islands} rails is its own fabric (no spine between rails); traffic "
             "between rails crosses {link} inside the node.") if resolved.topology == "rail-only" else
           ngettext("Per-rail planes: NIC i of every node is in plane i mod {islands} only; each of the {islands} "
                    "planes is its own fabric with {rails} rail; traffic between planes crosses {link} or the host.",
                    "Per-rail planes: NIC i of every node is in plane i mod {islands} only; each of the {islands} "
                    "planes is its own fabric with {rails} rails; traffic between planes crosses {link} or the "
                    "host.",
                    resolved.rails_per_island)
           ).format(islands=islands, rails=resolved.rails_per_island, link=resolved.system.scaleup_name)
    return copied(plan, {**update, "switch_groups": groups, "islands": islands,
                         "explanation": (why, *plan.explanation)})


def _populated(resolved: ResolvedDesign, final: FabricPlan, final_nodes: int) -> FabricPlan:
    """The fabric of ``final`` (sized for ``grow_to`` nodes) with only ``resolved.nodes`` populated: every
    spine and core of the pods in use is installed with all its uplinks, every present leaf has all its
    uplinks; the scalable units and pods still to come are reserved (``SwitchGroup.reserved``)."""
    nodes = resolved.nodes
    npg, lpg = final.nodes_per_group, final.leaves_per_group
    ppn = max(1, resolved.nics_per_node // lpg)
    groups_now = math.ceil(nodes / npg)
    leaves_now = groups_now * lpg
    last_nodes = nodes - (groups_now - 1) * npg
    full_down = npg * ppn
    base = [g for g in final.switch_groups if g.role == "leaf"][0]
    out: list[SwitchGroup] = []
    full_leaves = leaves_now - (lpg if last_nodes < npg else 0)
    if full_leaves:
        out.append(base.model_copy(update={"count": full_leaves, "down_ports_used": full_down}))
    if full_leaves < leaves_now:
        out.append(base.model_copy(update={
            "count": lpg, "down_ports_used": last_nodes * ppn,
            "description": _("partial scalable unit: {nodes} of {group_nodes} nodes").format(
                nodes=last_nodes, group_nodes=npg)}))
    reserved_leaves = final.leaf_count - leaves_now
    if reserved_leaves:
        out.append(base.model_copy(update={"count": reserved_leaves, "down_ports_used": 0, "up_ports_used": 0,
                                           "reserved": True, "description": _("reserved for growth")}))
    pair = final.links_per_leaf_spine_pair
    spine_count = final.spine_count
    spine_core_links = 0
    if final.tiers == 2:
        spine = [g for g in final.switch_groups if g.role == "spine"][0]
        out.append(spine.model_copy(update={"down_ports_used": leaves_now * pair}))
    elif final.tiers == 3:
        pods_now = math.ceil(groups_now / final.groups_per_pod)
        spine = [g for g in final.switch_groups if g.role == "spine"][0]
        core = [g for g in final.switch_groups if g.role == "core"][0]
        core_down = 0
        for pod in range(pods_now):
            pod_groups = min(final.groups_per_pod, groups_now - pod * final.groups_per_pod)
            uplinks = final.spine_uplinks_in_pod(pod)
            out.append(spine.model_copy(update={"count": final.spines_per_pod, "down_ports_used": pod_groups * lpg * pair,
                                                "up_ports_used": uplinks}))
            spine_core_links += final.spines_per_pod * uplinks
            core_down += final.spine_core_pair_links(pod)
        spine_count = pods_now * final.spines_per_pod
        if final.spine_count > spine_count:
            out.append(spine.model_copy(update={"count": final.spine_count - spine_count, "down_ports_used": 0,
                                                "up_ports_used": 0, "reserved": True,
                                                "description": _("reserved for growth")}))
        out.append(core.model_copy(update={"down_ports_used": core_down}))
    why = ngettext("Sized for growth to {final} nodes ({final_groups} scalable units): spines, cores and every "
                   "leaf's uplinks are installed for the final size; {nodes} nodes in {groups} scalable unit are "
                   "populated now.",
                   "Sized for growth to {final} nodes ({final_groups} scalable units): spines, cores and every "
                   "leaf's uplinks are installed for the final size; {nodes} nodes in {groups} scalable units are "
                   "populated now.",
                   groups_now
            ).format(final=f"{final_nodes:,}", final_groups=final.group_count, nodes=f"{nodes:,}",
                     groups=groups_now)
    return final.model_copy(update={
        "group_count": groups_now, "leaf_count": leaves_now, "spine_count": spine_count,
        "pod_count": math.ceil(groups_now / final.groups_per_pod) if final.tiers == 3 else 1,
        "partial_pod_spine_uplinks": final.partial_pod_spine_uplinks if final.tiers == 3 and
        math.ceil(groups_now / final.groups_per_pod) == final.pod_count else 0,
        "node_leaf_links": nodes * ppn * lpg, "leaf_spine_links": leaves_now * final.leaf_uplinks,
        "spine_core_links": spine_core_links, "switch_groups": tuple(out),
        "grow_to_nodes": final_nodes, "explanation": (why, *final.explanation)})
