"""``python -m core collective``: predict one NCCL collective on the design."""

from __future__ import annotations

import argparse

from core.cli.common import (
    add_design_options,
    add_format_option,
    cluster_note,
    design_from_args,
    said,
    positive_int,
    row,
    separator,
    size,
    to_json,
)
from core.cli.bwunit import add_units_option, bandwidth_unit
from core.fabric.families import words as family_words
from core.i18n import N_, _, ngettext
from core.perf.algorithms import algorithm_label, fastest_label
from core.perf.collectives import ALGORITHMS, OPS, collective
from core.perf.placement import level_label, sharp_absent
from core.perf.constants import library_label
from core.perf.sizes import format_size, parse_size
from core.design import tidy_spaces
from core.scaleup import domain_word, link_word
from core import plurals, units
from core.units import bandwidth, from_gbytes, microseconds


def register(subparsers) -> None:
    """Add the ``collective`` sub-command."""
    col = subparsers.add_parser(
        "collective", help=_("predict an NCCL collective on the design"),
        description=_("Predict time, algbw and busbw (nccl-tests definitions) of one collective on the design."))
    add_design_options(col)
    g = col.add_argument_group(_("collective"))
    g.add_argument("--op", type=str.lower, choices=OPS, default="all-reduce",
                   help=_("collective (default all-reduce)"))
    g.add_argument("--size", type=size, default=parse_size("1GiB"), metavar="SIZE",
                   help=_("message size: B, KiB, MiB, GiB (binary) or KB, MB, GB (decimal); default 1GiB"))
    g.add_argument("--job-gpus", type=positive_int, metavar="N",
                   help=_("GPUs in the communicator (default: --gpus as given, else every GPU of the design)"))
    g.add_argument("--algorithm", type=str.lower, choices=ALGORITHMS,
                   help=_("force one algorithm (default: the fastest of those stock NCCL uses)"))
    g.add_argument("--sharp", action="store_true",
                   help=_("also consider InfiniBand SHARP in-network reduction (NCCL CollNet); it needs the "
                          "SHARP plugin, NCCL_COLLNET_ENABLE=1 and Quantum HDR or later switches, so it is off "
                          "by default"))
    add_nccl_version_option(g)
    add_congestion_options(g)
    add_format_option(col)
    add_units_option(col)
    col.set_defaults(handler=run)


def add_nccl_version_option(group) -> None:
    """``--nccl-version X.Y.Z`` (collective and train)."""
    group.add_argument("--nccl-version", metavar="X.Y.Z",
                       help=_("the NCCL release to model, as NCCL prints it (e.g. 2.26.2; default: the current stock "
                              "release); releases differ in their tuning caps and, before 2.30.3, in NVLS-tree on "
                              "Blackwell across 4 or more NVLink domains"))


def add_congestion_options(group) -> None:
    """``--routing`` and ``--placement``: the congestion assumptions (``core.perf.congestion``), as the
    Performance page's Routing and Rank placement settings."""
    from core.perf.congestion import PLACEMENTS, ROUTINGS

    group.add_argument("--routing", type=str.lower, choices=ROUTINGS, default="auto",
                       help=_("routing class: auto (from the design: InfiniBand adaptive routing, Spectrum-X adaptive "
                              "routing, or RoCE with static ECMP), ib-ar, spectrum-x, ecmp (default auto)"))
    group.add_argument("--placement", type=str.lower, choices=PLACEMENTS, default="topo",
                       help=_("rank placement: topo (packed in topology order) or scatter (spread over the leaf "
                              "groups) (default topo)"))


def congestion_of(args: argparse.Namespace):
    """The ``core.perf.congestion.assumptions`` block of ``--routing`` and ``--placement``."""
    from core.perf.congestion import assumptions

    return assumptions(args.routing, args.placement)


_BOUND_WORDS = {
    "leaf": N_("the leaf uplinks ({ratio} oversubscription) leave a node {share} of its NIC bandwidth"),
    "spine": N_("the spine uplinks ({ratio} oversubscription) leave a node {share} of its NIC bandwidth"),
    "global": N_("the global links between groups leave a node {share} of its NIC bandwidth"),
    "torus-rings": N_("the torus rings per dimension leave a node {share} of its cabled NIC ports' bandwidth"),
    "torus-cut": N_("the torus links and bisection of the job's block leave a node {share} of its cabled NIC "
                    "ports' bandwidth"),
}
"""What keeps a node's share of its NICs (``core.perf.placement.fabric_bound``'s levels) in words; a family's own
where it declares them (its ``WORDS``' ``bound:<level>``: a classic Dragonfly's local links between routers)."""


def _busbw_words(result: dict, planned, unit: str) -> str:
    """The busbw and what bounds it, named for what it is: across domains the fabric level whose share the model
    applied (``result["fabric_bound"]``: leaf or spine uplinks after oversubscription, global links, the torus's
    rings or cut) on the emptiest domain's NIC egress (its GPUs' NICs together, ``8 x 50 GB/s``), or that egress
    itself when nothing beyond the NICs takes a share; inside one domain (or where NVLink is narrower) one GPU's
    scale-up line rate."""
    system = planned.resolved.system
    value, line = result["busbw_gbytes"], result["bottleneck_line_gbytes"]
    nics = result["bottleneck_nics"]
    if not nics:
        return _("{value} (bound: one GPU's {link} line rate {line} per direction)").format(
            value=bandwidth(from_gbytes(value), unit), link=link_word(system), line=bandwidth(from_gbytes(line), unit))
    egress = _("the {scaleup}'s NIC egress {line}, {count} x {per} per direction").format(
        scaleup=domain_word(system), line=bandwidth(from_gbytes(line), unit), count=nics,
        per=bandwidth(from_gbytes(line / nics), unit))
    bound = result.get("fabric_bound") or {}
    level, share = bound.get("level", "nic"), bound.get("share", 1.0)
    if level not in _BOUND_WORDS:
        return tidy_spaces(_("{value} (bound: {egress})").format(value=bandwidth(from_gbytes(value), unit),
                                                                 egress=egress))
    bw = planned.bandwidth
    ratio = units.ratio(max(1.0, bw.spine_oversubscription if level == "spine" else bw.leaf_oversubscription))
    if result["algorithm"] == "direct":  # all-to-all: each GPU sends on its own NIC, busbw is per GPU
        line = line / nics
        egress = _("each GPU's NIC {per} per direction").format(per=bandwidth(from_gbytes(line), unit))
    return tidy_spaces(_("{value} (bound: {what}, {kept} of {egress})").format(
        value=bandwidth(from_gbytes(value), unit),
        what=family_words(planned.fabric.family, f"bound:{level}", _BOUND_WORDS[level]).format(
            ratio=ratio, share=units.percent(share)),
        kept=bandwidth(from_gbytes(line * share), unit), egress=egress))


def run(args: argparse.Namespace) -> str:
    from core.plan import plan

    design = design_from_args(args)
    requested = args.job_gpus or design.gpus
    with congestion_of(args):
        planned = plan(design)
        system = planned.resolved.system
        result = collective(planned, args.op, args.size, gpus=requested, algorithm=args.algorithm,
                            sharp=args.sharp, nccl_version=args.nccl_version)
    notes = result.pop("notes", [])
    result["assumptions"] = {"routing": args.routing, "placement": args.placement}
    if args.format == "json":
        return to_json(result) + "\n"
    p, unit = result["placement"], bandwidth_unit(args)
    last = p["gpus_in_last_nvlink_domain"]
    values = dict(op=result["op"], size=format_size(result["bytes"]), gpus=f"{result['gpus']:,}",
                  domains=f"{p['nvlink_domains']:,}", per_domain=p["gpus_per_nvlink_domain"], last=last,
                  nodes=plurals.nodes(p["nodes"]),
                  level=level_label(p["fabric_level"], system),
                  scaleup=domain_word(system))
    if last != p["gpus_per_nvlink_domain"]:
        head = ngettext("{op} of {size} on {gpus} GPUs ({domains} {scaleup} of {per_domain}, the last with {last}, "
                        "{nodes}, farthest path: {level})",
                        "{op} of {size} on {gpus} GPUs ({domains} {scaleup}s of {per_domain}, the last with {last}, "
                        "{nodes}, farthest path: {level})", p["nvlink_domains"]).format(**values)
    else:
        head = ngettext("{op} of {size} on {gpus} GPUs ({domains} {scaleup} of {per_domain}, {nodes}, "
                        "farthest path: {level})",
                        "{op} of {size} on {gpus} GPUs ({domains} {scaleup}s of {per_domain}, {nodes}, "
                        "farthest path: {level})", p["nvlink_domains"]).format(**values)
    head = said(tidy_spaces(head))  # no space beside a Chinese domain word; the design's accelerator noun
    fastest = fastest_label(result["algorithm"], result["protocol"], system.collective_library)
    if result["in_network"]:
        fastest += "  - " + _("in-network reduction: busbw is not a link speed")
    lines = [
        head + cluster_note(design.gpus, result["cluster_gpus"], result["gpus"]),
        row(_("fastest"), fastest),
        row(_("time"), microseconds(result["time_us"])),
        row(_("algbw"), bandwidth(from_gbytes(result["algbw_gbytes"]), unit)),
        row(_("busbw"), _busbw_words(result, planned, unit)),
        row(_("all algorithms"), separator().join(
            f"{algorithm_label(k)} {microseconds(v)}" for k, v in result["algorithms_time_us"].items())),
    ]
    if result["collective_library"] == "nccl":
        lines.append(row("NCCL", result["nccl_version"]))
    else:  # another library's algorithms: name it, and say when no published measurement backs it
        lines.append(row(_("collective library"), library_label(result["collective_library"])))
        if not result["validated"]:
            lines.append(row(_("not validated"), _("no published measurement of this library on this placement")))
    lines.extend(row(_("note"), note) for note in notes)
    if result["sharp"]:
        lines.append(row(_("SHARP"), _("considered (needs the SHARP plugin and NCCL_COLLNET_ENABLE=1)")))
    elif result["sharp_available"]:
        lines.append(row(_("SHARP"), _("not considered: stock NCCL; --sharp adds it (needs the SHARP plugin and "
                                       "NCCL_COLLNET_ENABLE=1)")))
    elif absent := sharp_absent(planned):  # the fabric's switches do not reduce (core.perf.placement.sharp_case)
        lines.append(row(_("SHARP"), _("none. {reason}").format(reason=absent)))
    return "\n".join(lines) + "\n"
