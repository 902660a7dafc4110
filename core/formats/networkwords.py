"""An other network's sizing (storage, in-band or out-of-band management, ``Plan.networks``) for people: its
headline, its switches, devices and links as tables, and its explanation, in the current language. The review
pack's networks section and the workbook's network sheets both show these (one rule, two media)."""

from __future__ import annotations

from dataclasses import dataclass

from core import plurals, units, vocab
from core.i18n import _


@dataclass(frozen=True)
class SizingTable:
    """One table of a network's sizing: headers, rows (counts as whole numbers, text as text) and the kind of
    each column: ``count`` (a whole number), ``text``, ``id`` (a catalog id, as published) or ``why`` (words)."""
    headers: list[str]
    rows: list[list]
    kinds: tuple[str, ...]


def sizing_headline(key: str, sizing) -> str:
    """``InfiniBand 400G, 1 tier, oversubscription 1:1``: the fabric (a management network is plain Ethernet, not
    RoCE), its port speed [Gb/s], tiers and oversubscription."""
    fabric = getattr(sizing, "fabric", "")
    return _("{fabric} {speed}G, {tiers}, oversubscription {ratio}").format(
        fabric=vocab.FABRIC.label(fabric) if key == "storage" else vocab.FABRIC.word(fabric),
        speed=getattr(sizing, "port_speed_gbps", ""), tiers=plurals.tiers(getattr(sizing, "tiers", 1)),
        ratio=units.ratio(float(getattr(sizing, "oversubscription", 1.0))))


def sizing_tables(sizing) -> list[SizingTable]:
    """The switches (model, count, ports used down and up, radix, cabling), the devices (model, count, what it
    is) and the link groups (count, speed [Gb/s per port], cable, what they connect) of ``sizing``; a table
    without rows is left out."""
    tables = [
        SizingTable([_("switch"), _("count"), _("down ports"), _("up ports"), _("radix"), _("cabling")],
                    [[sw.model, sw.count, sw.down_ports_used, sw.up_ports_used, sw.radix, sw.description]
                     for sw in getattr(sizing, "switches", ())],
                    ("id", "count", "count", "count", "count", "why")),
        SizingTable([_("device"), _("count"), _("what it is")],
                    [[d.model, d.count, d.description] for d in getattr(sizing, "devices", ())], ("id", "count", "why")),
        SizingTable([_("links"), _("speed"), _("cable"), _("what they connect")],
                    [[x.count, f"{x.speed_gbps}G", x.cable, x.description] for x in getattr(sizing, "links", ())],
                    ("count", "text", "id", "why")),
    ]
    return [table for table in tables if table.rows]


def sizing_explanation(sizing) -> list[str]:
    """How the network was sized, a sentence per item (the engine's words)."""
    return list(getattr(sizing, "explanation", ()))
