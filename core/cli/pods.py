"""The mixed pods of ``python -m core plan --pods ...``: one pod per line, the shared spine layer and the totals
(``core.analysis.pods``)."""

from __future__ import annotations

from core.cli.common import row
from core.i18n import _, usd


def pods_table(summary: dict) -> str:
    """The ``plan`` table's section of a mixed design from ``core.analysis.pods.pods_summary`` (per pod: system,
    nodes, speeds [Gb/s per direction], leaves and uplinks; the shared spines; bisection [Tb/s]; capex [USD])."""
    lines = [_("Mixed pods under one spine layer (the summary above is the first pod planned alone):")]
    for pod in summary["pods"]:
        lines.append(row(_("pod {pod}").format(pod=pod["pod"]), _(
            "{system} x {nodes} nodes ({gpus} GPUs), stage {stage}: {leaves} {leaf} leaves at {speed}G, {uplinks} "
            "uplinks each at {up}G, {pair} to each spine, {share} per spine port; {rate} Gb/s per GPU; all-reduce of "
            "1 GiB on the pod {busbw} GB/s bus bandwidth").format(busbw=f"{pod['allreduce_busbw_gbytes']:g}",
            system=pod["system"], nodes=f"{pod['nodes']:,}", gpus=f"{pod['gpus']:,}", stage=pod["stage"],
            leaves=f"{pod['leaves']:,}", leaf=pod["leaf_switch"], speed=pod["port_speed_gbps"],
            uplinks=pod["uplinks_per_leaf"], up=pod["uplink_speed_gbps"], pair=pod["links_per_leaf_spine_pair"],
            share=pod["uplinks_per_spine_port"], rate=f"{pod['gbps_per_gpu']:g}")))
    s = summary["spines"]
    lines.append(row(_("shared spines"), _(
        "{count} {switch} at {speed}G, {used} of {radix} ports used on each (sized for stage {stage})").format(
        count=s["count"], switch=s["switch"], speed=s["speed_gbps"], used=s["ports_used_each"], radix=s["radix"],
        stage=summary["spine_sized_for_stage"])))
    lines.append(row(_("across pods"), _(
        "{rate} Gb/s per GPU (pod {pod}, the slowest, bounds it); bisection {bisection} Tb/s (one direction); "
        "all-reduce of 1 GiB across every pod at most {busbw} GB/s bus bandwidth").format(
        rate=f"{summary['cross_pod_gbps_per_gpu']:g}", pod=summary["slowest_pod"],
        busbw=f"{summary['cross_pod_allreduce_busbw_gbytes']:g}",
        bisection=f"{summary['bisection_tbits_one_direction']:,.1f}")))
    lines.append(row(_("mixed total"), _("{gpus} GPUs, {switches} compute fabric switches, capex {capex}, IT {kw} kW")
                     .format(gpus=f"{summary['gpus']:,}", switches=f"{summary['switches']:,}",
                             capex=usd(summary["capex_usd"], exact=True), kw=f"{summary['it_kw']:,.1f}")))
    return "\n".join(lines) + "\n"
