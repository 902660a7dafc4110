"""``python -m core load``: a traffic pattern placed on the cluster, the load on every tier, the hottest links
and the spread of per-GPU bandwidth under adaptive routing and static ECMP (``core.analysis.load``).

JSON (``--format json``, English): ``LoadResult.to_json()``: ``pattern``, ``placement``, ``job_gpus``,
``group``, ``routing``, ``nic_gbps_per_gpu``, ``gpus_on_fabric``, ``flows``, ``tiers[]`` (``tier``, ``direction``,
``links``, ``link_gbps``, ``ar_max`` / ``ecmp_max`` utilisation, ``ecmp_max_flows`` ...), ``per_gpu_gbps``
(``adaptive`` and ``ecmp``: ``min``, ``median``, ``max``, ``mean``), ``hot_links[]``, ``mix[]``, ``notes``, ``method``.
A design with pods (``--pods``): every pod under the shared spines (``core.analysis.loadpods``, as the Resilience
page): each of ``tiers[]`` is one pod's links (``pod``, 1-based, and ``system``; ``link_gbps`` the pod's speed), the
hottest links carry the wiring's ids (``pod2.p0.leaf1 -> spine0#1``) and ``pods[]`` gives each pod's
``gpus_on_fabric``, ``nic_gbps_per_gpu`` and per-GPU ``adaptive`` and ``ecmp`` spread.
"""

from __future__ import annotations

import argparse

from core.cli.bwunit import add_units_option, bandwidth_unit
from core.cli.common import (MAX_SEED, SPLIT_HELP, add_design_options, add_format_option, design_from_args,
                             positive_int, row, seed, split_job, to_json)
from core.i18n import _
from core.units import bandwidth, percent


def register(subparsers) -> None:
    """Add the ``load`` sub-command."""
    from core.analysis.load import GLOBAL_ROUTINGS, PATTERNS, PLACEMENTS

    parser = subparsers.add_parser(
        "load", help=_("load on every link and per-GPU bandwidth spread for a traffic pattern"),
        description=_("Place a traffic pattern on the cluster and show the load on every tier, the hottest links, "
                      "flows per link under static ECMP against adaptive routing, and the spread of per-GPU "
                      "achievable bandwidth (one direction, in --units). A design with pods: every pod under the "
                      "shared spines, each pod's links at its own speeds."))
    add_design_options(parser)
    g = parser.add_argument_group(_("traffic"))
    g.add_argument("--pattern", type=str.lower, default="ring", choices=PATTERNS,
                   help=_("traffic pattern (default ring)"))
    g.add_argument("--placement", type=str.lower, default="rail", choices=PLACEMENTS,
                   help=_("rank placement: node (each GPU on its own NIC), rail (rail-aligned, PXN) or random "
                          "(random nodes, rail-aligned); default rail"))
    g.add_argument("--job-gpus", type=positive_int, metavar="N", help=_("GPUs of the job (default: every GPU)"))
    g.add_argument("--group", type=positive_int, metavar="N",
                   help=_("GPUs per communicator: data-parallel group (ring, tree), expert-parallel group "
                          "(alltoall, default 8), pipeline stages (pp, default 4), GPUs of a group that sends to the "
                          "next (adversarial, default a Dragonfly group or pod, else a scalable unit)"))
    g.add_argument("--stride", type=positive_int, metavar="N",
                   help=_("GPUs between members of a communicator (default: GPUs per node)"))
    g.add_argument("--seed", type=seed, default=0,
                   help=_("random seed, 0 to {most} (default 0)").format(most=f"{MAX_SEED:,}"))
    g.add_argument("--global-routing", type=str.lower, default="minimal", choices=GLOBAL_ROUTINGS,
                   help=_("routing between the groups of a Dragonfly+ or a Dragonfly: minimal (direct global links) "
                          "or valiant (through an intermediate group) (default minimal)"))
    j = parser.add_argument_group(_("training job (pattern job)"))
    j.add_argument("--model", type=str.lower, default="llama3-70b", help=_("model preset (default llama3-70b)"))
    for name in ("tp", "pp"):
        j.add_argument(f"--{name}", type=positive_int, help=_(SPLIT_HELP).format(name=name.upper()))
    j.add_argument("--ep", type=positive_int,
                   help=_("EP degree (default 1; for a mixture-of-experts model the fastest that fits, searched with "
                          "the split)"))
    add_format_option(parser)
    add_units_option(parser)
    parser.set_defaults(handler=run)


def _job(args, plan):
    """The job pattern's training job on ``plan`` at the split ``train`` takes (``split_job``)."""
    from core.perf.training import model_preset, parse_job

    job = parse_job(dict(model=model_preset(args.model), gpus=args.job_gpus))
    return split_job(plan, job, tp=args.tp, pp=args.pp, ep=args.ep)


def render_table(out: dict, family: str | None = None, names: list[str] | None = None, unit: str = "GB/s") -> str:
    """The human summary of ``LoadResult.to_json()`` in the current language, tiers and switches in the words of
    ``family`` (a ``FabricPlan.family``; None: a folded Clos's); ``names``: the hottest links' names
    (``core.formats.linknames.link_names``; default ``link_name`` of their ids); bandwidths in ``unit`` ("GB/s"
    or "Gb/s", ``--units``; ``core.units.bandwidth``)."""
    def _gbps(gbits: float) -> str:
        return bandwidth(gbits, unit)

    from core.analysis.load import DIRECTION_LABELS, PATTERN_LABELS, PLACEMENT_LABELS, tier_label
    from core.figures.topology import link_name

    lines = [_("{pattern}, {placement}: {gpus} GPUs, group {group}; {flows} flows ({per} per connection)").format(
        pattern=_(PATTERN_LABELS[out["pattern"]]), placement=_(PLACEMENT_LABELS[out["placement"]]),
        gpus=f"{out['job_gpus']:,}", group=f"{out['group']:,}", flows=f"{out['flows']:,}",
        per=out["flows_per_connection"])]
    for t in out["tiers"]:
        lines.append(row(_pod_label(t) + f"{tier_label(t['tier'], family)} {_(DIRECTION_LABELS[t['direction']])}", _(
            "max load {ar} adaptive, {ecmp} ECMP; ECMP up to {flows} flows per link; {over} of {links} "
            "links overloaded (ECMP)").format(ar=percent(t["ar_max"]), ecmp=percent(t["ecmp_max"]), flows=f"{t['ecmp_max_flows']:,}",
                                               over=f"{t['ecmp_overloaded']:,}", links=f"{t['links']:,}")))
    spreads = [("", out["per_gpu_gbps"], out["nic_gbps_per_gpu"])] + [
        (_pod_label(p), p, p["nic_gbps_per_gpu"]) for p in out.get("pods", ())]
    for pod, spread, line in spreads:
        for key, label in (("adaptive", _("adaptive routing")), ("ecmp", _("static ECMP"))):
            s = spread[key]
            if s is None:
                continue
            lines.append(row(pod + label, _("per GPU min {min}, median {median}, max {max} of {line} (one "
                                            "direction)").format(min=_gbps(s["min"]), median=_gbps(s["median"]),
                                                                 max=_gbps(s["max"]), line=_gbps(line))))
    if out["hot_links"]:
        lines.append(_("hottest links (ECMP):"))
        for k, h in enumerate(out["hot_links"][:5]):
            lines.append(row("  " + (names[k] if names else link_name(family, h["link"])), _("{ecmp} with {flows} flows (adaptive {ar})").format(
                ecmp=percent(h["ecmp_util"]), flows=f"{h['ecmp_flows']:,}", ar=percent(h["ar_util"]))))
    lines.extend(out["notes"])
    return "\n".join(lines) + "\n"


def _pod_label(item: dict) -> str:
    """``pod 2 (B200) `` for a pod's row or spread (``pod`` and ``system``), empty for the whole result's."""
    return (_("pod {pod}").format(pod=item["pod"]) + f" ({item['system']}) ") if "pod" in item else ""


def run(args: argparse.Namespace) -> str:
    from core.analysis.loadpods import design_job_plan, design_link_load
    from core.plan import plan

    p = plan(design_from_args(args))
    job = _job(args, design_job_plan(p)) if args.pattern == "job" else None  # with pods: every pod's GPUs
    result = design_link_load(p, args.pattern, args.placement, job_gpus=args.job_gpus, group=args.group,
                              stride=args.stride, seed=args.seed, job=job, global_routing=args.global_routing)
    data = result.to_json()
    if args.format == "json":
        return to_json(data) + "\n"
    from core.formats.linknames import link_names

    return render_table(data, p.fabric.family, link_names(p, [h["link"] for h in data["hot_links"][:5]]),
                        bandwidth_unit(args))
