"""Bandwidth charts: per-GPU hierarchy, capacity per tier, and the oversubscription what-if."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from core import units
from core.figures.style import CATEGORY_COLOURS, HIGHLIGHT, TIER_COLOURS, base_layout, sep
from core.fabric.bandwidth import cross_rail_text
from core.fabric.families import group_hops, words as family_words
from core.i18n import N_, _, in_currency, usd


def _scaled(values: list[float], unit: str, prefix: bool = True) -> tuple[list[float], list[str], str]:
    """Values in Gb/s -> (axis values, bar labels, unit label): the axis in the one unit its largest value picks (G
    only if not ``prefix``), each bar's label as a card writes it (``units.bandwidth``: 800 GB/s beside 1.6 TB/s;
    without ``prefix`` all in G, as the axis)."""
    divisor, label = units.scale(max(values, default=0), unit, prefix)
    texts = [units.bandwidth(v, unit) if prefix else f"{units.bandwidth_in(v, divisor)} {label}" for v in values]
    return [v / divisor for v in values], texts, label


CLOS_READOUTS = {
    "readout:bandwidth": N_(
        "**Oversubscription** leaf {leaf}, spine {spine} · **bisection ratio** {total} · **hops** (switches crossed) "
        "same rail {same_rail}, cross rail {cross_rail}, {longest} {cross_pod} · **{link} : scale-out** {ratio} per "
        "GPU (one direction)"),
    "report:readout:bandwidth": N_(
        "Oversubscription leaf {leaf}, spine {spine}; bisection ratio {total}; switches crossed: same rail "
        "{same_rail}, cross rail {cross_rail}, {longest} {cross_pod}; {link} to scale-out {ratio} per GPU (one "
        "direction).")}
"""A folded Clos's bandwidth readout (the Designer's ``readout:bandwidth``, the review pack's
``report:readout:bandwidth``); ``{longest}`` is its longest path's words (``CLOS_LONGEST``)."""
ONE_TIER_READOUTS = {
    "readout:bandwidth": N_(
        "**Oversubscription** none (one switch tier, no uplinks) · **bisection ratio** {total} · **hops** (switches "
        "crossed) same rail {same_rail}, cross rail {cross_rail}, {longest} {cross_pod} · **{link} : scale-out** "
        "{ratio} per GPU (one direction)"),
    "report:readout:bandwidth": N_(
        "Oversubscription none (one switch tier, no uplinks); bisection ratio {total}; switches crossed: same rail "
        "{same_rail}, cross rail {cross_rail}, {longest} {cross_pod}; {link} to scale-out {ratio} per GPU (one "
        "direction).")}
"""``CLOS_READOUTS`` of a one-tier Clos: no spine to name, no uplinks to taper."""
CLOS_LONGEST = (N_("cross pod"), N_("farthest pair"))
"""The words of a folded Clos's longest path in its readout: (a tier between pods, none)."""


def clos_readout(key: str, plan) -> tuple[str, str]:
    """A folded Clos's readout for ``key`` (``CLOS_READOUTS``: its msgid, ``bandwidth_readout``'s ``default``) of
    ``plan`` and its longest path's words (``CLOS_LONGEST``, translated: ``bandwidth_readout``'s ``longest``): "cross
    pod" where it has pods to cross, a design's pods (``Design.pods``: leaf, shared spine, leaf on two tiers) or a tier
    between pods (``core.perf.placement.has_pods``: the cores of three tiers, the rule the collectives caption
    reads), else "farthest pair": a plain one- or two-tier Clos has no pods. A one-tier Clos's words name no spine
    (``ONE_TIER_READOUTS``)."""
    from core.perf.placement import has_pods

    with_pods, without = CLOS_LONGEST
    readout = (ONE_TIER_READOUTS if plan.fabric.tiers == 1 else CLOS_READOUTS)[key]  # one tier: no spine
    return readout, _(with_pods if plan.design.pods or has_pods(plan.fabric) else without)


def bandwidth_readout(family: str | None, system, bw, unit: str, key: str, default: str, total: str | None = None,
                      longest: str = "") -> str:
    """A design's bandwidth readout: the family's words for ``key`` (the Designer's ``readout:bandwidth``, the
    review pack's ``report:readout:bandwidth``; ``default`` a folded Clos's) filled with ``bw``'s numbers in ``unit``.
    Every number a family's words may name is here, worked once: a torus's bisection ratio is half the injection
    over the bisection (``half``: all NIC ports of all nodes, one direction, halved), a GPU's share of the cut.
    ``total``: the end-to-end ratio in words (``core.analysis.whole.ratio_words``: a design with pods' whole ratio and
    its slower half's), else ``bw``'s. ``longest``: a folded Clos's longest path's words (``clos_readout``)."""
    from core.scaleup import link_word

    return family_words(family, key, default).format(
        link=link_word(system), leaf=units.ratio(bw.leaf_oversubscription),
        spine=units.ratio(bw.spine_oversubscription), total=total or units.ratio(bw.oversubscription),
        same_rail=bw.hops_same_rail, cross_rail=cross_rail_text(bw), cross_pod=bw.hops_cross_pod, longest=longest,
        group_hops=group_hops(bw.hops_cross_rail, bw.hops_cross_pod, bw.hops_valiant),
        ratio=units.ratio(bw.scaleup_to_scaleout_ratio),
        injection=units.bandwidth(bw.scaleout_gbits_per_gpu, unit),
        share=units.bandwidth(bw.cross_fabric_gbits_per_gpu, unit),
        half=units.bandwidth(units.from_tbits(bw.injection_tbits_one_direction) / 2, unit),
        bisection=units.bandwidth(units.from_tbits(bw.bisection_tbits_one_direction), unit))


def bandwidth_hierarchy_figure(plan, unit: str = "GB/s") -> go.Figure:
    """Per-GPU bandwidth, one direction: the scale-up links (NVLink, HCCS, ...), scale-out NICs, and the share of
    the bisection."""
    from core.scaleup import link_word

    bw = plan.bandwidth
    rows = [
        (_("{link}<br>(scale-up)").format(link=link_word(plan.resolved.system)), bw.nvlink_gbytes_per_gpu_per_direction * 8, TIER_COLOURS["spine"]),
        (_("Scale-out<br>NICs"), bw.scaleout_gbits_per_gpu, TIER_COLOURS["leaf"]),
        (_("Cross-fabric<br>(bisection share)"), bw.cross_fabric_gbits_per_gpu, TIER_COLOURS["core"]),
    ]
    values, texts, label = _scaled([r[1] for r in rows], unit, prefix=False)  # NVLink vs a NIC: one G scale
    fig = go.Figure(go.Bar(
        y=[r[0] for r in rows][::-1], x=values[::-1], orientation="h",
        marker_color=[r[2] for r in rows][::-1], text=texts[::-1],
        textposition="auto", hovertemplate=_("%{y}: %{text} per GPU, one direction") + "<extra></extra>",
    ))
    base_layout(fig, _("Bandwidth per GPU, one direction [{unit}]").format(unit=label), 300)
    fig.update_layout(xaxis_title=label, yaxis=dict(automargin=True))  # the title says per GPU, one direction
    return fig


STAGE_NAMES = {"injection": N_("Injection<br>(all NIC ports)"), "leaf_up": N_("Leaf -><br>spine"),
               "spine_up": N_("Spine -><br>core")}
"""The fabric stages of ``core.fabric.bandwidth.tier_capacities_gbits`` as the capacity chart names them."""


def tier_capacity_figure(plan, capacities_gbits: dict[str, float], unit: str = "GB/s") -> go.Figure:
    """Capacity of each fabric stage, all planes (the title says so with several), one direction, plus the
    bisection."""
    from core.fabric.families import words  # a family's own stage words (a classic Dragonfly's routers)

    labels = [words(plan.fabric.family, f"stage:{k}", STAGE_NAMES[k]) for k in capacities_gbits] + [_("Bisection")]
    values = list(capacities_gbits.values()) + [plan.bandwidth.bisection_tbits_one_direction * 1000]
    colours = [TIER_COLOURS["server"], TIER_COLOURS["leaf"], TIER_COLOURS["spine"]][: len(capacities_gbits)] + [
        TIER_COLOURS["core"]]
    scaled, texts, tunit = _scaled(values, unit)
    fig = go.Figure(go.Bar(x=labels, y=scaled, marker_color=colours, text=texts, textposition="auto",
                           customdata=[units.bandwidth(v, unit) for v in values],  # as a card writes it (800 GB/s)
                           hovertemplate="%{x}: %{customdata}<extra></extra>"))
    title = (_("Capacity per tier, all planes, one direction [{unit}]") if plan.planes > 1 else
             _("Capacity per tier, one direction [{unit}]"))
    base_layout(fig, title.format(unit=tunit), 320)
    fig.update_layout(yaxis_title=tunit)
    return fig


def oversubscription_figure(sweep: pd.DataFrame, current: float, unit: str = "GB/s") -> go.Figure:
    """Per-GPU cross-fabric bandwidth and the compute fabric's capex per GPU against leaf oversubscription."""
    from core.analysis.whatif import capex_fabric, capex_level2  # the capex's name as the table's and the cards'

    ok, fabric = sweep[sweep["feasible"]], capex_fabric(sweep)
    # the money axis names the fabric when its name fits the axis; with NVLink level 2 the trace's legend entry does
    money = _("per GPU [USD]") if capex_level2(sweep) else _("{fabric} per GPU [USD]").format(fabric=fabric)
    divisor, label = units.scale(max(ok["cross_fabric_gbits_per_gpu"], default=0), unit)
    fig = go.Figure()
    fig.add_trace(go.Scatter(
        x=ok["oversubscription"], y=ok["cross_fabric_gbits_per_gpu"] / divisor, mode="lines+markers",
        name=_("cross-fabric per GPU [{unit}]").format(unit=label), line=dict(color=TIER_COLOURS["leaf"], width=3),
        customdata=[units.bandwidth(v, unit) for v in ok["cross_fabric_gbits_per_gpu"]],
        text=[units.ratio(v) for v in ok["oversubscription"]],
        hovertemplate=_("%{text} -> %{customdata} per GPU") + "<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=ok["oversubscription"], y=ok["network_capex_per_gpu_usd"], mode="lines+markers", yaxis="y2",
        name=in_currency(_("{fabric} capex per GPU [USD]").format(fabric=fabric)), line=dict(color=CATEGORY_COLOURS["transceiver"], dash="dot"),
        customdata=[usd(v) for v in ok["network_capex_per_gpu_usd"]],
        text=[units.ratio(v) for v in ok["oversubscription"]],
        hovertemplate=_("%{text} -> %{customdata} {fabric} per GPU").replace("{fabric}", fabric)
        + "<extra></extra>"))
    here = ok[ok["oversubscription"] == current]
    if len(here):
        fig.add_trace(go.Scatter(x=here["oversubscription"], y=here["cross_fabric_gbits_per_gpu"] / divisor,
                                 mode="markers", marker=dict(size=16, color=HIGHLIGHT, symbol="star"),
                                 name=_("this design"), hovertemplate=_("this design") + "<extra></extra>"))
    bad = sweep[~sweep["feasible"]]
    base_layout(fig, _("Cross-fabric bandwidth per GPU vs leaf oversubscription (this design planned at each ratio)"), 340)
    fig.update_layout(
        # a log axis spaces the ratios by their factor: 1:1, 1.5:1 and 2:1 touched at 1,024 px on a linear one
        xaxis=dict(title=_("leaf oversubscription (down:up)"), type="log", tickvals=list(sweep["oversubscription"]),
                   ticktext=[units.ratio(v) for v in sweep["oversubscription"]], tickangle=0),
        yaxis=dict(title=_("{unit} per GPU, one direction").format(unit=label), rangemode="tozero"),
        yaxis2=units.money_axis(max(ok["network_capex_per_gpu_usd"], default=0) * 1.05, title=in_currency(money),
                                overlaying="y", side="right", rangemode="tozero", showgrid=False),
        legend=dict(orientation="h", y=-0.3),
    )
    if len(bad):
        fig.add_annotation(text=_("not buildable at {ratios}").format(
                               ratios=sep().join(units.ratio(v) for v in bad["oversubscription"])),
                           xref="paper", yref="paper", x=1, y=1.0, showarrow=False, xanchor="right",
                           font=dict(size=11))
    return fig


