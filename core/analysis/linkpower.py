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

from core.catalog import Catalog, form_factor_family
from core.cost import class_links, switch_module_counts
from core.design import ResolvedDesign
from core.fabric.sizing import FabricPlan
from core.fabric.wiring import wiring_of
from core.physical.lengths import LinkLengths
from core.physical.media import POLICIES, cable_options, class_speeds, class_switches, transceiver_options


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
    watts = lambda entry: resolved.power_overrides.get(entry.id, entry.power_w)  # noqa: E731
    total = 0.0
    for c, links in classes:
        speed, switch = speeds[c].port_speed_gbps, switches[c]
        kinds = POLICIES.get(resolved.design.cable_media, POLICIES["auto"])
        modules_m = min(b.max_m for b in binned[c].bins)
        optical = []  # per optical kind with a module reaching: (module, fibre, node module) least power [W]
        for kind in kinds:
            if kind in ("dac", "acc", "aoc"):
                continue
            modules = [watts(t) for t in transceiver_options(catalog, resolved.fabric, speed, "switch",
                                                             switch.ports_per_cage(speed), kind,
                                                             form_factor_family(switch.cage_type), strict=True) or ()
                       if t.reach_m >= modules_m]
            if not modules:
                continue
            fibre = min((watts(x) for x in catalog.cables if x.kind == "fiber" and x.media == kind), default=0.0)
            node = 0.0
            if c == "node-leaf":
                at_node = transceiver_options(catalog, resolved.fabric, resolved.port_speed_gbps, "node", per_xcvr,
                                              kind, form_factor_family(resolved.nic.cage_type)) or ()
                node = min((watts(t) for t in at_node), default=0.0)
            optical.append((min(modules), fibre, node))
        # the optical bins may mix kinds: each part at its least over the kinds (the bill's modules are shared out)
        per_optical = (min(o[1] for o in optical) + counts[c] / links * min(o[0] for o in optical)
                       + (node_modules / links * min(o[2] for o in optical) if c == "node-leaf" else 0.0)) \
            if optical else math.inf
        for b in binned[c].bins:
            cables = [watts(x) for kind in kinds if kind in ("dac", "acc", "aoc")
                      for x in cable_options(catalog, resolved.fabric, speed, (kind,), b.max_m)]
            least = min(min(cables, default=math.inf), per_optical)
            total += b.links * (least if math.isfinite(least) else 0.0)
    return total
