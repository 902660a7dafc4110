"""``python -m core verify``: check the as-built compute fabric against the design's cabling plan and price every
fault (``core.analysis.verify``).

The as-built fabric is one file: ``--ibnetdiscover FILE`` (InfiniBand: ``ibnetdiscover`` output, or an ibsim net
file), ``--lldp FILE`` (Ethernet: each host's ``lldpctl -f json`` under its name) or ``--netbox-cables FILE`` (the
NetBox cables CSV ``export --format netbox-cables`` writes, as edited by the site). ``--mapping FILE`` maps found
names or GUIDs to the plan's devices where they differ. ``--format json`` (English, for scripts), ``csv`` (one row
per fault) or ``table`` (a summary in the ``--lang`` language). A design with pods (``--pods``) is checked against
the whole fabric, every pod under the shared spines (``core.formats.podverify``).
"""

from __future__ import annotations

import argparse

from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.common import add_design_options, add_format_option, design_from_args, row, to_json
from core.cli.export import add_naming_options, naming_from_args
from core.errors import InputError, os_reason, shown
from core.i18n import _
from core.units import bandwidth, from_gbytes, from_tbits, percent

SHOWN_FAULTS = 40
"""Faults the table lists (every fault is in the JSON and CSV)."""
def register(subparsers) -> None:
    """Add the ``verify`` sub-command."""
    parser = subparsers.add_parser(
        "verify", help=_("check the as-built fabric (ibnetdiscover, LLDP, NetBox cables) against the plan"),
        description=_("Compare the fabric as built with the design's cabling plan: matched, missing, extra and "
                      "miswired links, each fault priced (GPUs cut off or degraded, bisection, all-reduce and "
                      "all-to-all busbw) and a fix order."))
    add_design_options(parser)
    g = parser.add_argument_group(_("as built"))
    source = g.add_mutually_exclusive_group(required=True)
    source.add_argument("--ibnetdiscover", metavar="FILE", help=_("ibnetdiscover output (InfiniBand), at most 64 MB"))
    source.add_argument("--lldp", metavar="FILE",
                        help=_("LLDP neighbours: a JSON object of each host's lldpctl -f json output under its "
                               "name, at most 32 MB"))
    source.add_argument("--netbox-cables", metavar="FILE",
                        help=_("a NetBox cables CSV as export --format netbox-cables writes it, at most 64 MB"))
    g.add_argument("--mapping", metavar="FILE",
                   help=_("CSV of found name or GUID, planned device (or '<device> nic<k>'), one pair a line"))
    g.add_argument("--skip-speed", action="store_true",
                   help=_("do not compare link speeds (a simulator reports its own default speed)"))
    add_naming_options(g)
    add_format_option(parser, ("json", "table", "csv"),
                      _("table: readable summary (in the --lang language); json: everything, machine-readable; "
                        "csv: one row per fault"))
    add_units_option(parser)
    parser.set_defaults(handler=run)


def read_file(path: str, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of ``path`` (the reader refuses more); ``InputError`` when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read(limit + 1)
    except OSError as exc:
        raise InputError(_("cannot read {file}: {reason}").format(file=shown(path), reason=os_reason(exc))) from None
    except ValueError:
        raise InputError(_("cannot read {file}: not a valid file name").format(file=shown(path))) from None


def found_links(args: argparse.Namespace) -> list:
    """The found links of the one as-built file the flags name."""
    from core.formats import ibnetdiscover, lldp, netbox

    if args.ibnetdiscover:
        return ibnetdiscover.read_ibnetdiscover(read_file(args.ibnetdiscover, ibnetdiscover.MAX_BYTES))
    if args.lldp:
        return lldp.read_lldp(read_file(args.lldp, lldp.MAX_BYTES))
    return netbox.read_cables(read_file(args.netbox_cables, netbox.MAX_CABLES_BYTES))


def _end(value: str) -> str:
    """A found name for the table: cut and quoted when long (it came from a file)."""
    return value if len(value) <= 40 and value.isprintable() else shown(value)


def _fault_line(fault: dict) -> str:
    from core.analysis.verify import KINDS

    planned, found = fault["planned"], fault["found"]
    text = _(KINDS[fault["kind"]])
    if planned:
        text += ": " + _("planned {a} {a_port} - {b} {b_port}").format(
            a=planned["a_name"], a_port=planned["a_port"], b=planned["b_name"], b_port=planned["b_port"])
    if found:
        text += "; " + _("found {a} {a_port} - {b} {b_port}").format(
            a=_end(found["a"]), a_port=_end(found["a_port"]), b=_end(found["b"]), b_port=_end(found["b_port"]))
    return text


def render_table(out: dict, unit: str = "GB/s") -> str:
    """The human summary of ``core.analysis.verify.verify``'s data in the current language, bandwidths in ``unit``
    ("GB/s" or "Gb/s", ``--units``; ``core.units.bandwidth``)."""
    from core.analysis.verify import ACTION_LABELS

    cov = out["coverage"]
    lines = [row(_("matched"), _("{matched} of {planned} planned links ({share})").format(
        matched=f"{cov['matched_links']:,}", planned=f"{cov['planned_links']:,}", share=percent(cov["matched_share"]))),
        row(_("found"), _("{found} links, {unknown} devices not in the plan").format(
            found=f"{cov['found_links']:,}", unknown=f"{cov['unknown_devices']:,}")),
        row(_("faults"), _("{missing} missing, {extra} extra, {miswired} miswired").format(
            missing=f"{len(out['missing']):,}", extra=f"{len(out['extra']):,}",
            miswired=f"{len(out['miswired']):,}"))]
    impact = out["impact"]
    if "spine_gbps_lost" in impact:  # a design with pods: the whole fabric (core.formats.podverify)
        lines.append(row(_("all together"), _("{cut} GPUs cut off, {degraded} degraded, {lost} into the shared "
                                              "spines lost (per direction)").format(
            cut=f"{impact['gpus_cut_off']:,}", degraded=f"{impact['gpus_degraded']:,}",
            lost=bandwidth(impact["spine_gbps_lost"], unit))))
    elif impact.get("healthy"):
        healthy = impact["healthy"]
        lines.append(row(_("all together"), _("{cut} GPUs cut off, {degraded} degraded, {bisection} of "
                                              "bisection lost (one direction)").format(
            cut=f"{impact['gpus_cut_off']:,}", degraded=f"{impact['gpus_degraded']:,}",
            bisection=bandwidth(from_tbits(impact["bisection_lost_tbits"]), unit))))
        for key, label in (("allreduce_busbw_gbytes", _("all-reduce 1 GiB")),
                           ("alltoall_busbw_gbytes", _("all-to-all 1 GiB"))):
            if healthy.get(key) is not None:
                now = impact.get(key)
                lines.append(row("", _("{what}: {now} (healthy {healthy})").format(
                    what=label, now="-" if now is None else bandwidth(from_gbytes(now), unit),
                    healthy=bandwidth(from_gbytes(healthy[key]), unit))))
    busiest = impact.get("busiest_link")
    if busiest:
        from core.analysis.load import TIER_LABELS

        tier = _(TIER_LABELS[busiest["tier"]])
        if busiest.get("pod"):
            tier = _("pod {pod}: {tier}").format(pod=busiest["pod"], tier=tier)
        lines.append(row("", _("busiest link left: {tier} at {now} of its capacity (healthy {healthy}), "
                               "ring all-reduce").format(tier=tier, now=percent(busiest["utilisation"]),
                                                         healthy=percent(busiest["healthy_utilisation"]))))
    faults = {f["id"]: f for f in (*out["missing"], *out["extra"], *out["miswired"])}
    if out["fixes"]:
        lines.append(_("Fix order (most bandwidth back first):"))
    for fix in out["fixes"][:SHOWN_FAULTS]:
        action, fault = _(ACTION_LABELS[fix["action"]]), _fault_line(faults[fix["fault"]])
        if "spine_gbps_back" in fix:
            text = _("{action}: {fault} (+{gbps} into the shared spines, {gpus} GPUs back)").format(
                action=action, fault=fault, gbps=bandwidth(fix["spine_gbps_back"], unit),
                gpus=f"{fix['gpus_reconnected']:,}")
        else:
            text = _("{action}: {fault} (+{busbw} all-reduce busbw, {gpus} GPUs back)").format(
                action=action, fault=fault, busbw=bandwidth(from_gbytes(fix["allreduce_busbw_back_gbytes"]), unit),
                gpus=f"{fix['gpus_reconnected']:,}")
        lines.append(f"{fix['rank']:>4}. " + text)
    if len(out["fixes"]) > SHOWN_FAULTS:
        lines.append(_("... and {more} more (--format json or csv lists every fault)").format(
            more=f"{len(out['fixes']) - SHOWN_FAULTS:,}"))
    summary = out["summary"]
    for key, label in (("per_rack", _("per rack")), ("per_leaf", _("per leaf")), ("per_rail", _("per rail"))):
        if summary[key]:
            shown_items = list(summary[key].items())[:12]
            lines.append(row(label, ", ".join(f"{name} {count}" for name, count in shown_items)
                             + (" ..." if len(summary[key]) > 12 else "")))
    return "\n".join(lines + out["notes"]) + "\n"


def run(args: argparse.Namespace) -> str:
    """Plan the design, read the as-built file and print the check."""
    from core.analysis.verify import verify
    from core.formats.asbuilt import MAX_MAPPING_BYTES, read_mapping
    from core.plan import plan

    naming_from_args(args)
    design = design_from_args(args)
    result = plan(design)
    naming = naming_from_args(args, result)
    mapping = read_mapping(read_file(args.mapping, MAX_MAPPING_BYTES)) if args.mapping else {}
    if design.pods:  # the whole fabric: every pod under the shared spines
        from core.formats.podverify import verify_pods
        from core.analysis.whole import design_mixed

        out = verify_pods(design_mixed(design), found_links(args), mapping, naming, skip_speed=args.skip_speed)
    else:
        from core.formats.slurm import node_groups

        out = verify(result, found_links(args), mapping, naming, skip_speed=args.skip_speed,
                     slurm=node_groups(result, naming))
    if args.format == "json":
        return to_json(out) + "\n"
    if args.format == "csv":
        from core.analysis.verify import faults_csv

        return faults_csv(out)
    return render_table(out, bandwidth_unit(args))
