"""``python -m core plan``: size a design and print its summary, JSON or bill of materials."""

from __future__ import annotations

import argparse
import io
import json

from core.cli.common import add_design_options, design_from_args, to_json


def register(subparsers) -> None:
    """Add the ``plan`` sub-command."""
    parser = subparsers.add_parser("plan", help="plan a cluster design", description="Plan a cluster design.")
    add_design_options(parser)
    parser.add_argument("--format", choices=["json", "table", "csv"], default="table",
                        help="json: summary + BOM; table: readable summary; csv: the bill of materials")
    parser.set_defaults(handler=run)


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


def run(args: argparse.Namespace) -> str:
    from core.plan import plan

    design = design_from_args(args)
    result = plan(design)
    if args.format == "csv":
        return result.bom_frame().to_csv(index=False)
    summary = result.summary()
    if args.format == "json":
        summary["design"] = json.loads(design.model_dump_json(exclude_defaults=True))
        summary["bom"] = json.loads(result.bom_frame().to_json(orient="records"))
        return to_json(summary)
    return _render_table(summary)
