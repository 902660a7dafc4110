"""Optics for the storage fabric's links: the catalog module at each end and the fibre between.

The rule is the compute fabric's (``core.cost``): the cheapest module of the port speed made for that
end, of the cage's family (OSFP, QSFP112, ...) where one exists, multimode first (the H100 RA: "All
networking components are multi-mode fiber", Appendix A), reach at least ``DISTANCE_M``; one fibre
cord of the module's media and connector per link. Ethernet management links use the cables the RA
names (AOC, passive copper, Cat5e), chosen in ``core.networks.management``.
"""

from __future__ import annotations

from core.catalog import Catalog, Cable, Transceiver, form_factor_family
from core.errors import DesignError
from core.i18n import _

DISTANCE_M = 30.0
"""Planning run length of a storage link [m] (within the RA's multimode reach; lengths by position are
``core.physical``'s)."""


def module(catalog: Catalog, fabric: str, speed_gbps: int, ports: int, end: str, cage: str = "") -> Transceiver:
    """Cheapest transceiver carrying ``ports`` links at ``speed_gbps`` [Gb/s] for ``end`` (switch/node)."""
    usable = [t for t in catalog.transceivers if fabric in t.fabrics and t.port_speed_gbps == speed_gbps
              and t.logical_ports == ports and t.end in (end, "any")]
    if not usable:  # a node cage takes the switch's module (DGX twin-port cages) and vice versa
        usable = [t for t in catalog.transceivers if fabric in t.fabrics and t.port_speed_gbps == speed_gbps
                  and t.logical_ports == ports]
    if not usable:
        raise DesignError(
            _("the catalog has no {fabric} transceiver for {ports}x{speed}G for the storage fabric").format(
                fabric=fabric, ports=ports, speed=speed_gbps),
            _("Add one to assets/catalog/optics.toml or choose another storage port speed."))
    family = form_factor_family(cage)
    fitting = [t for t in usable if family and form_factor_family(t.form_factor) == family]
    options = fitting or usable
    multimode = [t for t in options if t.media == "mmf" and t.reach_m >= DISTANCE_M]
    reaching = multimode or [t for t in options if t.reach_m >= DISTANCE_M] or options
    return min(reaching, key=lambda t: (t.price_usd, t.reach_m, t.id))


def fibre_for(catalog: Catalog, transceiver: Transceiver, distance_m: float) -> Cable:
    """Cheapest fibre cord of the module's media and connector that reaches ``distance_m`` [m] (the longest
    there is when none does); every network's optical links take their cords here."""
    options = [c for c in catalog.cables if c.kind == "fiber" and c.media == transceiver.media
               and c.connector == transceiver.connector]
    if not options:
        raise DesignError(
            _("the catalog has no {media} {connector} fibre cord for {transceiver}").format(
                media=transceiver.media.upper(), connector=transceiver.connector.upper(), transceiver=transceiver.id),
            _("Add one to assets/catalog/optics.toml."))
    reaching = [c for c in options if c.reach_m >= distance_m] or options
    return min(reaching, key=lambda c: (c.price_usd, c.id))


def fibre(catalog: Catalog, transceiver: Transceiver) -> Cable:
    """Cheapest fibre cord of the module's media and connector that reaches ``DISTANCE_M``."""
    return fibre_for(catalog, transceiver, DISTANCE_M)
