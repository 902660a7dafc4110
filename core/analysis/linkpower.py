"""A lower bound on the power of a design's compute links (cables and transceivers) from its rack arrangement's
length bins, before their media are chosen: what ``core.cost.cost_floor`` (``links_power_w``) adds to its power floor,
so the optimizer's power limit and TCO floors (``core.analysis.optimize._Evaluator.refine``) count the links' optics.

``core.cost.link_rows`` bills each link class per length bin: a bin whose media is a cable takes one cable per link
(the cheapest cable ``Design.cable_media`` allows reaching the bin's longest link, ``core.physical.media``), and the
optical bins share the class's switch-side modules (``core.cost.switch_module_counts``: ``ceil(modules x optical
links / links)`` of them) and, node-leaf, the node-side modules (``nodes x ceil(NIC ports / ports per module)``,
shared alike), with a fibre cord per link. So each link of a bin draws at least the least of: the least power of a
cable of an allowed kind reaching the bin's longest link, and the least an optical link draws (the least power of a
fibre cord of an allowed optical kind, and its shares of the switch-side and node-side modules at the least power of
a module of that kind reaching the shortest bin's longest link, as ``core.cost._binned_floor`` prices them). Every
unit power is at least 0 (``Design.power_overrides`` included), so the sum is at most the bill's.
"""

from __future__ import annotations

import math
from functools import lru_cache, partial

from core.catalog import Catalog, form_factor_family, load_catalog
from core.cost import class_links, switch_module_counts
from core.design import ResolvedDesign
from core.fabric.sizing import FabricPlan
from core.fabric.wiring import wiring_of
from core.physical.lengths import LinkLengths
from core.physical.media import (CABLE_KINDS, POLICIES, cable_options, class_speeds, class_switches,
                                 transceiver_options)


def links_power_floor(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog,
                      lengths: tuple[LinkLengths, ...] | None) -> float:
    """A lower bound on the compute links' cables and transceivers' power in ``build_bom`` [W, IT power before PUE]:
    per switch link class the layout's ``lengths`` bin (``core.physical.lengths.arranged_link_lengths``), each bin's
    links at the least power their media may draw (the least of its cables' and of an optical link's, whose parts, the fibre cord and its shares of the modules,
    each at their least over the optical kinds allowed, as the bill may mix them); 0 for a class they do not bin, node-to-node
    links (a torus's) and without ``lengths``."""
    if not lengths:
        return 0.0
    binned = {x.link_class: x for x in lengths}
    wiring = wiring_of(fabric, resolved.nodes, resolved.nics_per_node)
    classes = [(c, n) for c, n in class_links(fabric, wiring)
               if wiring.class_ends(c)[1][0] != "node" and n > 0 and c in binned and binned[c].links == n
               and binned[c].bins]
    if not classes:
        return 0.0
    speeds, switches = class_speeds(resolved), class_switches(resolved)
    counts, _terms = switch_module_counts(resolved, fabric, wiring=wiring, at=speeds)
    per_xcvr = max(resolved.system.node_ports_per_transceiver, resolved.planes)
    node_modules = resolved.nodes * math.ceil(resolved.nics_per_node * resolved.planes / per_xcvr)
    overrides = tuple(sorted(resolved.power_overrides.items()))
    policy, fabric_kind = resolved.design.cable_media, resolved.fabric
    node = (resolved.port_speed_gbps, per_xcvr, form_factor_family(resolved.nic.cage_type))
    bundled = catalog is load_catalog()  # immutable: its units' least powers cached
    optical_of = _bundled_optical_watts if bundled else partial(_optical_watts, catalog)
    cable_of = _bundled_cable_watts if bundled else partial(_cable_watts, catalog)
    total = 0.0
    for c, links in classes:
        speed, switch = speeds[c].port_speed_gbps, switches[c]
        modules_m = min(b.max_m for b in binned[c].bins)
        optical = optical_of(fabric_kind, speed, switch.ports_per_cage(speed), form_factor_family(switch.cage_type),
                             policy, modules_m, node if c == "node-leaf" else None, overrides)
        # the optical bins may mix kinds: each part at its least over the kinds (the bill's modules are shared out)
        per_optical = (min(o[1] for o in optical) + counts[c] / links * min(o[0] for o in optical)
                       + (node_modules / links * min(o[2] for o in optical) if c == "node-leaf" else 0.0)) \
            if optical else math.inf
        for b in binned[c].bins:
            least = min(cable_of(fabric_kind, speed, policy, b.max_m, overrides), per_optical)
            total += b.links * (least if math.isfinite(least) else 0.0)
    return total


def _optical_watts(catalog: Catalog, fabric: str, speed: int, cage_ports: int, cage: str, policy: str,
                   modules_m: float, node: tuple | None, overrides: tuple) -> tuple[tuple[float, float, float], ...]:
    """Per optical kind ``policy`` (``Design.cable_media``) allows that has a switch-side module for ``cage_ports``
    links per ``cage`` at ``speed`` [Gb/s per port] reaching ``modules_m`` [m] (``transceiver_options``, strict on
    the media as ``choose_media``): the least power [W] of such a module, of a fibre cord of the kind and, with
    ``node`` (port speed [Gb/s], ports per module, the NIC's cage family), of a node-side module of the kind (0
    without), each unit's power as ``overrides`` (``Design.power_overrides``' sorted items) set it."""
    powers = dict(overrides)
    watts = lambda entry: powers.get(entry.id, entry.power_w)  # noqa: E731
    optical = []
    for kind in POLICIES.get(policy, POLICIES["auto"]):
        if kind in CABLE_KINDS:
            continue
        modules = [watts(t) for t in transceiver_options(catalog, fabric, speed, "switch", cage_ports, kind, cage,
                                                         strict=True) or () if t.reach_m >= modules_m]
        if not modules:
            continue
        fibre = min((watts(x) for x in catalog.cables if x.kind == "fiber" and x.media == kind), default=0.0)
        at_node = 0.0
        if node is not None:
            node_speed, per_xcvr, node_cage = node
            found = transceiver_options(catalog, fabric, node_speed, "node", per_xcvr, kind, node_cage) or ()
            at_node = min((watts(t) for t in found), default=0.0)
        optical.append((min(modules), fibre, at_node))
    return tuple(optical)


def _cable_watts(catalog: Catalog, fabric: str, speed: int, policy: str, length_m: float, overrides: tuple) -> float:
    """The least power [W] of a cable of a kind ``policy`` allows for ``fabric`` at ``speed`` [Gb/s per port]
    reaching ``length_m`` [m] (``cable_options``; its power as ``overrides`` set it), or infinity when none."""
    powers = dict(overrides)
    return min((powers.get(x.id, x.power_w) for kind in POLICIES.get(policy, POLICIES["auto"]) if kind in CABLE_KINDS
                for x in cable_options(catalog, fabric, speed, (kind,), length_m)), default=math.inf)


@lru_cache(maxsize=4096)
def _bundled_optical_watts(*key) -> tuple[tuple[float, float, float], ...]:
    """``_optical_watts`` of the bundled catalog (``core.catalog.load_catalog``: immutable), by its arguments."""
    return _optical_watts(load_catalog(), *key)


@lru_cache(maxsize=4096)
def _bundled_cable_watts(*key) -> float:
    """``_cable_watts`` of the bundled catalog (``core.catalog.load_catalog``: immutable), by its arguments."""
    return _cable_watts(load_catalog(), *key)
