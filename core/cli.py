"""Command line: ``python -m core plan|catalog``.

Exit codes: 0 success, 2 bad input (unknown model, bad number, unknown
option), 3 a design that cannot be built (the message says what would work).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

from core.catalog import load_catalog
from core.design import Design, parse_design
from core.errors import DesignError, InputError

EXIT_INPUT = 2
EXIT_DESIGN = 3


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one line and exit code 2."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised via CLI tests
        raise InputError(message)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _ratio(text: str) -> float:
    try:
        value = float(text.split(":")[0]) / float(text.split(":")[1]) if ":" in text else float(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"expected a ratio like 2 or 2:1, got {text!r}") from None
    if not value >= 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (down:up), got {text}")
    return value


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def add_design_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that takes a design."""
    g = parser.add_argument_group("design (defaults come from the GPU system in the catalog)")
    g.add_argument("--design", metavar="FILE.json", help="read the design from a JSON file; options below override it")
    g.add_argument("--gpu", help="GPU/system model, case-insensitive (e.g. h100, B200, GB200-NVL72)")
    g.add_argument("--nodes", type=_positive_int, help="number of nodes (servers, or NVL72 compute trays)")
    g.add_argument("--gpus", type=_positive_int, help="total GPU count; sets nodes = ceil(gpus / gpus-per-node)")
    g.add_argument("--gpus-per-node", type=_positive_int, help="GPUs per node")
    g.add_argument("--nvlink-gen", type=_positive_int, help="NVLink generation (1-5)")
    g.add_argument("--nvlink-domain", type=_positive_int, help="GPUs per NVLink domain (8 for HGX, 72 for NVL72)")
    g.add_argument("--fabric", type=str.lower, choices=["infiniband", "ethernet"], help="scale-out fabric")
    g.add_argument("--port-speed", type=_positive_int, metavar="GBPS",
                   help="NIC and switch port speed, per direction [Gb/s], e.g. 400")
    g.add_argument("--nics-per-node", type=_positive_int, help="scale-out NICs per node (rails)")
    g.add_argument("--planes", type=_positive_int, help="independent parallel fabrics; each NIC has a port in each")
    g.add_argument("--switch", help="fabric switch model, case-insensitive (e.g. QM9700, Q3400, SN5600)")
    g.add_argument("--topology", type=str.lower, choices=["rail-optimized", "top-of-rack"], help="leaf wiring")
    g.add_argument("--nodes-per-rack", type=_positive_int, help="nodes per rack")
    g.add_argument("--oversubscription", type=_ratio, metavar="RATIO",
                   help="leaf down:up ratio, >= 1 (e.g. 1, 2 or 3:1)")
    g.add_argument("--spine-oversubscription", type=_ratio, metavar="RATIO",
                   help="spine down:up ratio in three tiers, >= 1")
    g.add_argument("--tiers", type=str.lower, choices=["auto", "1", "2", "3"], help="switch tiers (default auto)")
    g.add_argument("--cable-media", type=str.lower, choices=["auto", "copper", "aoc", "optics"],
                   help="cable media policy (auto: copper in rack, optics elsewhere)")
    g.add_argument("--pue", type=_number, help="power usage effectiveness, >= 1 (default 1.3)")
    g.add_argument("--electricity-price", type=_number, metavar="USD_PER_KWH", help="electricity price [USD/kWh]")
    g.add_argument("--tco-years", type=_number, metavar="YEARS", help="years of operation for TCO [years]")
    g.add_argument("--price", action="append", default=[], metavar="ID=USD",
                   help="override a catalog unit price [USD], e.g. --price QM9700=30000 (repeatable)")
    g.add_argument("--power", action="append", default=[], metavar="ID=W",
                   help="override a catalog unit power [W] (repeatable)")


_OPTION_FIELDS = {
    "gpu": "gpu", "nodes": "nodes", "gpus": "gpus", "gpus_per_node": "gpus_per_node",
    "nvlink_gen": "nvlink_generation", "nvlink_domain": "nvlink_domain_gpus", "fabric": "fabric",
    "port_speed": "port_speed_gbps", "nics_per_node": "nics_per_node", "planes": "planes", "switch": "switch",
    "topology": "topology", "nodes_per_rack": "nodes_per_rack", "oversubscription": "oversubscription",
    "spine_oversubscription": "spine_oversubscription", "tiers": "tiers", "cable_media": "cable_media",
    "pue": "pue", "electricity_price": "electricity_usd_per_kwh", "tco_years": "tco_years",
}


def _overrides(pairs: list[str], what: str) -> dict[str, float]:
    """``--price``/``--power`` ID=NUMBER pairs, read by the share-link codec's override parser."""
    from core.sharelink import ParamError, parse_overrides

    for pair in pairs:
        if "=" not in pair:
            raise InputError(f"--{what} takes ID=NUMBER, got {pair!r}")
    try:
        return parse_overrides(",".join(pairs), unit="USD" if what == "price" else "W")
    except ParamError as exc:
        raise InputError(f"--{what}: {exc}") from None


def design_from_args(args: argparse.Namespace) -> Design:
    """Build the design from ``--design FILE`` and the options that override it."""
    data: dict = {}
    if args.design:
        try:
            text = Path(args.design).read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot read design file {args.design}: {exc.strerror}") from exc
        data = json.loads(Design.from_json(text).model_dump_json(exclude_defaults=True))
    for option, field in _OPTION_FIELDS.items():
        value = getattr(args, option)
        if value is not None:
            data[field] = value
    if args.nodes is not None and args.gpus is not None:
        raise InputError("give --nodes or --gpus, not both")
    if args.nodes is not None:
        data.pop("gpus", None)
    if args.gpus is not None:
        data.pop("nodes", None)
    if args.price:
        data["price_overrides"] = {**data.get("price_overrides", {}), **_overrides(args.price, "price")}
    if args.power:
        data["power_overrides"] = {**data.get("power_overrides", {}), **_overrides(args.power, "power")}
    design = parse_design(data)
    load_catalog().system(design.gpu)  # unknown model -> InputError now, not later
    return design


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m core",
        description="fabric planner: size GPU cluster networks, count every part, estimate cost and power.",
        epilog="Units: network speeds in Gb/s per direction; NVLink in GB/s (bidir = both directions summed); "
               "prices in USD are estimates from assets/catalog unless overridden.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    plan_parser = sub.add_parser("plan", help="plan a cluster design", description="Plan a cluster design.")
    add_design_options(plan_parser)
    plan_parser.add_argument("--format", choices=["json", "table", "csv"], default="table",
                             help="json: summary + BOM; table: readable summary; csv: the bill of materials")
    cat_parser = sub.add_parser("catalog", help="list the hardware catalog", description="List the catalog.")
    cat_parser.add_argument("--format", choices=["json", "table"], default="table")
    cat_parser.add_argument("--kind", choices=["systems", "nics", "switches", "transceivers", "cables", "nvlink"])
    from core.cli_perf import register  # collective and train sub-commands (imports core.cli)

    register(sub)
    return parser


def _render_table(summary: dict) -> str:
    out = io.StringIO()
    w = out.write
    w(f"{summary['gpus']:,} x {summary['gpu_model']} GPUs in {summary['nodes']:,} nodes; "
      f"{summary['fabric']} {summary['port_speed_gbps']}G, {summary['topology']}, {summary['tiers']} tier(s), "
      f"{summary['planes']} plane(s), switch {summary['switch_model']}\n")
    s = summary["switches"]
    w(f"switches      leaf {s['leaf']:,}  spine {s['spine']:,}  core {s['core']:,}  total {s['total']:,}\n")
    li = summary["links"]
    w(f"links         node-leaf {li['node_leaf']:,}  leaf-spine {li['leaf_spine']:,}  "
      f"spine-core {li['spine_core']:,}\n")
    t = summary["transceivers"]
    w(f"transceivers  switch side {t['switch_side']:,}  node side {t['node_side']:,}\n")
    b = summary["bandwidth"]
    w(f"bandwidth     NVLink {b['nvlink_gbytes_per_gpu_bidir']:g} GB/s per GPU (bidir); scale-out "
      f"{b['scaleout_gbits_per_gpu']:g} Gb/s per GPU (per direction); bisection "
      f"{b['bisection_tbits_one_direction']:,.1f} Tb/s (one direction); oversubscription "
      f"{b['oversubscription']:g}:1\n")
    c = summary["cost"]
    p = summary["power"]
    w(f"cost          capex ${c['capex_usd']:,.0f} (${c['capex_per_gpu_usd']:,.0f} per GPU; network "
      f"${c['network_capex_usd']:,.0f} = {c['network_share']:.1%}) - estimates\n")
    w(f"power         IT {p['it_kw']:,.1f} kW (network {p['network_kw']:,.1f} kW), facility "
      f"{p['facility_kw']:,.1f} kW at PUE {p['pue']:g}\n")
    for line in summary["explanation"]:
        w(f"  - {line}\n")
    return out.getvalue()


def _cmd_plan(args: argparse.Namespace) -> str:
    from core.plan import plan

    design = design_from_args(args)
    result = plan(design)
    if args.format == "csv":
        return result.bom_frame().to_csv(index=False)
    summary = result.summary()
    if args.format == "json":
        summary["design"] = json.loads(design.model_dump_json(exclude_defaults=True))
        summary["bom"] = json.loads(result.bom_frame().to_json(orient="records"))
        return json.dumps(summary, indent=2)
    return _render_table(summary)


def _cmd_catalog(args: argparse.Namespace) -> str:
    catalog = load_catalog()
    kinds = [args.kind] if args.kind else ["nvlink", "systems", "nics", "switches", "transceivers", "cables"]
    data = {kind: [e.model_dump(mode="json") for e in getattr(catalog, kind)] for kind in kinds}
    if args.format == "json":
        return json.dumps(data, indent=2)
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        handler = {"plan": _cmd_plan, "catalog": _cmd_catalog}.get(args.command) or args.handler
        sys.stdout.write(handler(args))
        return 0
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except DesignError as exc:
        print(f"cannot build this design: {exc}", file=sys.stderr)
        return EXIT_DESIGN
