"""``python -m core catalog``: list the hardware catalog."""

from __future__ import annotations

import argparse

from core import vocab
from core.catalog import load_catalog
from core.cli.common import add_format_option, to_json
from core.i18n import DEFAULT_LANGUAGE, N_, _, current, usd
from core.units import money_range

KINDS = ("systems", "nics", "switches", "transceivers", "cables", "nvlink")
KIND_TITLES = {"systems": N_("GPU systems"), "nics": N_("NICs"), "switches": N_("Switches"),
               "transceivers": N_("Transceivers"), "cables": N_("Cables"), "nvlink": N_("NVLink generations")}
"""Section headings of the table in other languages (English keeps the ``--kind`` value, as always)."""


def register(subparsers) -> None:
    """Add the ``catalog`` sub-command."""
    parser = subparsers.add_parser("catalog", help=_("list the hardware catalog"),
                                   description=_("List the catalog."))
    add_format_option(parser)
    parser.add_argument("--kind", choices=list(KINDS), help=_("list only this kind of part (default: all)"))
    parser.set_defaults(handler=run)


def _heading(kind: str) -> str:
    return kind if current() == DEFAULT_LANGUAGE else _(KIND_TITLES[kind])


def run(args: argparse.Namespace) -> str:
    catalog = load_catalog()
    kinds = [args.kind] if args.kind else ["nvlink", "systems", "nics", "switches", "transceivers", "cables"]
    data = {kind: [e.model_dump(mode="json") for e in getattr(catalog, kind)] for kind in kinds}
    if args.format == "json":
        return to_json(data)
    lines = []
    for kind, entries in data.items():
        lines.append(f"[{_heading(kind)}]")
        for e in entries:
            key = e.get("id", e.get("generation"))
            label = e.get("name", e.get("architecture", ""))  # product names stay as the catalog writes them
            extra = ""
            if "price_usd" in e:
                extra = "  " + _("{price} ({basis}; {range}), {power} W").format(
                    price=usd(e["price_usd"], exact=True), basis=vocab.PRICE_BASES.label(e["price_basis"]), power=f"{e['power_w']:g}",
                    range=money_range(e["price_low_usd"], e["price_high_usd"], exact=True))
            elif "node_price_usd" in e:
                extra = "  " + _("{price}/node ({basis}; {range}), {power} W/node").format(
                    price=usd(e["node_price_usd"], exact=True), basis=vocab.PRICE_BASES.label(e["price_basis"]),
                    power=f"{e['node_power_w']:g}", range=money_range(e["node_price_low_usd"], e["node_price_high_usd"],
                                                                      exact=True))
            lines.append(f"  {key}: {label}{extra}")
    return "\n".join(lines) + "\n"
