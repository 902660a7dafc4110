"""``python -m core catalog``: list the hardware catalog."""

from __future__ import annotations

import argparse

from core.catalog import load_catalog
from core.cli.common import to_json


def register(subparsers) -> None:
    """Add the ``catalog`` sub-command."""
    parser = subparsers.add_parser("catalog", help="list the hardware catalog", description="List the catalog.")
    parser.add_argument("--format", choices=["json", "table"], default="table")
    parser.add_argument("--kind", choices=["systems", "nics", "switches", "transceivers", "cables", "nvlink"])
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> str:
    catalog = load_catalog()
    kinds = [args.kind] if args.kind else ["nvlink", "systems", "nics", "switches", "transceivers", "cables"]
    data = {kind: [e.model_dump(mode="json") for e in getattr(catalog, kind)] for kind in kinds}
    if args.format == "json":
        return to_json(data)
    lines = []
    for kind, entries in data.items():
        lines.append(f"[{kind}]")
        for e in entries:
            key = e.get("id", e.get("generation"))
            label = e.get("name", e.get("architecture", ""))
            extra = ""
            if "price_usd" in e:
                extra = f"  ${e['price_usd']:,.0f} ({e['price_basis']}), {e['power_w']:g} W"
            elif "node_price_usd" in e:
                extra = f"  ${e['node_price_usd']:,.0f}/node ({e['price_basis']}), {e['node_power_w']:g} W/node"
            lines.append(f"  {key}: {label}{extra}")
    return "\n".join(lines) + "\n"
