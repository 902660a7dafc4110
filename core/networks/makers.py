"""Whose switches and head nodes the storage and management networks buy: one rule for both networks.

A cluster's storage and management networks are bought from the maker of its compute fabric (one vendor's
operating system, support contract and management tools; an H3C RoCE fabric gets H3C storage switches, an
NVIDIA one NVIDIA's). The rule, ``network_switch``: the catalog's first switch of the wanted kind, role and
port speed made by the compute fabric's maker (``Switch.vendor`` of the plan's switch); when that maker has
none in the catalog, the first generic class entry (``vendor = "Generic"``: a white box any maker builds);
only when neither exists, the catalog's first (catalog order = preference). ``choice_note`` says which of the
three it was, for the sizing's explanation and so the BOM.

Head nodes run the system maker's cluster manager: NVIDIA's Base Command Manager on NVIDIA systems
(``HEAD_NODE``, as the DGX SuperPOD RA), a generic cluster manager on every other system
(``GENERIC_HEAD_NODE``: the same server class).

"""

from __future__ import annotations

from dataclasses import dataclass

from core.catalog import VENDOR_LABELS, Catalog, Switch
from core.i18n import _

GENERIC = "Generic"
"""``vendor`` of a catalog class entry any maker builds."""
HEAD_NODE = "HEAD-NODE"
"""Head node of an NVIDIA system: NVIDIA Base Command Manager and Slurm (DGX SuperPOD RA Table 7)."""
GENERIC_HEAD_NODE = "HEAD-NODE-GENERIC"
"""Head node of any other system: the same server class with the system maker's or an open cluster manager."""


@dataclass(frozen=True)
class SwitchChoice:
    """The switch a network buys and why: ``basis`` is ``maker`` (the compute fabric's maker has one),
    ``generic`` (a class entry) or ``first`` (neither: the catalog's first)."""

    switch: Switch
    basis: str
    maker: str
    """The compute fabric's maker (``Switch.vendor``)."""


def network_switch(options: list[Switch], maker: str) -> SwitchChoice | None:
    """Of ``options`` (in catalog order, already of the wanted kind, role and speed), the compute fabric maker's
    first, else the first generic class entry, else the first; None when there is no option."""
    if not options:
        return None
    for basis, wanted in (("maker", maker), ("generic", GENERIC)):
        for switch in options:
            if switch.vendor == wanted:
                return SwitchChoice(switch, basis, maker)
    return SwitchChoice(options[0], "first", maker)


def management_switches(catalog: Catalog, speed_gbps: int) -> list[Switch]:
    """Ethernet management-role switches offering ``speed_gbps`` [Gb/s], in catalog order."""
    return [s for s in catalog.switches
            if s.role == "management" and s.fabric == "ethernet" and s.ports_at(speed_gbps)]


def maker_label(vendor: str) -> str:
    """A maker's name in the request's language (``core.catalog.VENDOR_LABELS``; the value as written when
    unlisted)."""
    return _(VENDOR_LABELS[vendor]) if vendor in VENDOR_LABELS else vendor


def choice_note(choice: SwitchChoice) -> str:
    """One sentence: whose switch the network buys and why (the maker's name in the request's language)."""
    switch = choice.switch
    if choice.basis == "maker" and choice.maker == GENERIC:
        return _("{switch} is a generic class entry, as the compute fabric's switch is.").format(switch=switch.id)
    if choice.basis == "maker":
        return _("{switch} is made by {maker}, the compute fabric's maker.").format(
            switch=switch.id, maker=maker_label(switch.vendor))
    if choice.basis == "generic":
        return _("{switch} is a generic class entry: the catalog has no {maker} switch for this network, the "
                 "compute fabric's maker; buy that maker's model of this class.").format(
            switch=switch.id, maker=maker_label(choice.maker))
    return _("{switch} ({vendor}) is the catalog's first switch for this network: the catalog has neither a {maker} "
             "switch, the compute fabric's maker, nor a generic one.").format(
        switch=switch.id, vendor=maker_label(switch.vendor), maker=maker_label(choice.maker))


def optics_note(module, switch: Switch) -> str:
    """For a switch-end ``module`` (a ``Transceiver``) in ``switch``: when it is another maker's part number (not a
    generic class), one sentence saying it is priced as its class and that the switch takes its own maker's or a
    compatible coded module; else ""."""
    vendor = getattr(module, "vendor", GENERIC)
    if vendor in (GENERIC, switch.vendor) or switch.vendor == GENERIC:
        return ""
    return _("{module} is {vendor}'s part number, priced as its class: a {maker} switch takes {maker}'s or a "
             "compatible third-party module of the same class.").format(
        module=module.id, vendor=maker_label(vendor), maker=maker_label(switch.vendor))


def head_node_model(system_vendor: str) -> str:
    """The head node appliance of a system by ``system_vendor``: Base Command Manager only on NVIDIA systems."""
    return HEAD_NODE if system_vendor == "NVIDIA" else GENERIC_HEAD_NODE
