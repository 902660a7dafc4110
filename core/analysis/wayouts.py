"""Ways out of a design that cannot be built: small changes that make it buildable, checked by re-planning.

``way_outs(design)`` tries a fixed list of changes (tiers to auto, the catalog's switch and port
speed, Ethernet's larger-radix switches, more planes at a lower speed, the defaults) and returns
only those whose changed design plans without an error, each with a label and the changed design.
A page offers exactly these, so no button leads to another error.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.design import Design, parse_design
from core.errors import FabricPlannerError
from core.plan import plan


@dataclass(frozen=True)
class WayOut:
    """One change that makes the design buildable."""

    key: str
    label: str
    changes: dict
    design: Design


def _candidates(design: Design) -> list[tuple[str, str, dict]]:
    out = []
    if design.tiers != "auto":
        out.append(("tiers", "Set tiers to auto", {"tiers": "auto"}))
    if design.switch is not None or design.port_speed_gbps is not None:
        out.append(("switch", "Auto switch and speed", {"switch": None, "port_speed_gbps": None}))
    if design.fabric != "ethernet":
        out.append(("ethernet", "Try Ethernet (larger radix)",
                    {"fabric": "ethernet", "switch": None, "port_speed_gbps": None}))
    if design.tiers != "auto" and (design.switch is not None or design.port_speed_gbps is not None):
        out.append(("tiers_switch", "Auto tiers, switch and speed",
                    {"tiers": "auto", "switch": None, "port_speed_gbps": None}))
    return out


def way_outs(design: Design) -> list[WayOut]:
    """The changes from ``_candidates`` that make ``design`` buildable, in order (see module doc)."""
    found = []
    base = design.model_dump(exclude_defaults=True)
    for key, label, changes in _candidates(design):
        data = {**base, **changes}
        data = {k: v for k, v in data.items() if v is not None}
        try:
            changed = parse_design(data)
            plan(changed)
        except FabricPlannerError:
            continue
        found.append(WayOut(key, label, changes, changed))
    return found
