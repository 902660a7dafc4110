"""Charts and tables of an optimizer search (``core.analysis.optimize.OptimizeResult``): every feasible
design as capex against performance, the Pareto front joined by a line, the cheapest design marked;
the front and the switch families as rows. Pure Plotly; text in the current language.

A point's ``customdata`` is ``[candidate index, label]``: the page maps a clicked point back to its
candidate (``result.candidates[index]``) and opens that design.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from core.analysis.objectives import PER_UNIT, cost_axis, money_text, objective_word
from core.analysis.optimize import (
    Candidate,
    OptimizeResult,
    capex_of,
    design_label,
    families,
)
from core import units, vocab
from core.cost import holds_level2
from core.designwords import switch_family
from core.fabric.families import switch_tiers
from core.figures.style import base_layout
from core.i18n import _, fx_rate, in_currency, usd

MAX_CLOUD = 4000
"""Most feasible non-front designs drawn as the grey cloud (the cheapest first); the front is always drawn."""


def metric_title(metric: str, unit: str = "GB/s") -> str:
    """The performance axis (``core.analysis.optimize.PERFORMANCE``): all-reduce busbw [in ``unit``, always G],
    days to train, or the serving cost per million output tokens [USD]."""
    if metric == "busbw_gbytes":
        return _("All-reduce busbw [{unit}]").format(unit=units.scale(0.0, unit, prefix=False)[1])
    return _("Days to train") if metric == "days" else in_currency(_("Cost per million output tokens [USD]"))


def metric_value(c: Candidate, metric: str, unit: str = "GB/s") -> float:
    """Busbw in ``unit`` (G prefix), days, or the cost per million output tokens in the session's currency (US
    dollars times ``core.i18n.fx_rate()``, as ``metric_title`` names it)."""
    if metric == "busbw_gbytes":
        return units.from_gbytes(c.busbw_gbytes) / units.scale(0.0, unit, prefix=False)[0]
    return c.days if metric == "days" else c.usd_per_mtok * fx_rate()


def _hover(objective: str = "cluster") -> str:
    money = _("capex") if cost_axis(objective) in ("cluster", "compute") else objective_word(cost_axis(objective))
    return "%{customdata[1]}<br>" + money + " %{customdata[2]}<br>%{customdata[3]}<extra></extra>"


def _shown(c: Candidate, metric: str, unit: str) -> str:
    """The hover's performance value: busbw in ``unit``, the cost per million output tokens or the days to train (as
    the days' one format writes them, ``core.units.days``)."""
    if metric == "busbw_gbytes" and c.busbw_gbytes == c.busbw_gbytes:
        return units.bandwidth(units.from_gbytes(c.busbw_gbytes), unit)
    if metric == "usd_per_mtok":
        return _("{usd} per million output tokens").format(usd=usd(c.usd_per_mtok, cents=True))
    return _("{days} days").format(days=units.days(c.days)) if metric == "days" and c.days == c.days else ""


def capex_title(objective: str, cands=()) -> str:
    """The money axis / column (``core.analysis.objectives.cost_axis`` of ``OptimizeResult.objective``): the whole
    cluster's capex, the compute fabric's (as the Designer names it: with NVLink level 2 when any of the shown
    candidates ``cands`` holds that level's parts, ``core.cost.holds_level2``), the TCO or the cost per GPU-hour."""
    titles = {"compute": vocab.compute_fabric("capex_usd", holds_level2(cands)), "tco": _("Total cost of ownership [USD]"),
              "gpu_hour": _("Cost per GPU-hour [USD]")}
    return in_currency(titles.get(cost_axis(objective), _("Capex, whole cluster [USD]")))


def _trace(cands: list[Candidate], metric: str, objective: str = "cluster", unit: str = "GB/s",
           **style) -> go.Scatter:
    return go.Scatter(x=[capex_of(c, objective) for c in cands], y=[metric_value(c, metric, unit) for c in cands],
                      customdata=[[c.index, design_label(c), money_text(c, objective), _shown(c, metric, unit)]
                                  for c in cands], hovertemplate=_hover(objective), **style)


FIT_MARGIN = 0.06
"""Share of the data's span added at each end of a front chart's axis, so the largest markers (the star) fit."""


def fitted_range(values: list[float], zero: bool = False) -> list[float]:
    """An axis range holding every finite value of ``values`` with ``FIT_MARGIN`` of their span (or of the value,
    when all are equal) at each end, in the values' unit; from 0 when ``zero`` and no value is negative, and then up
    to a round tick above the top value (1, 2 or 5 times a power of ten, a fifth of the range or less), so the
    highest points sit under a labelled gridline, not above the last one."""
    finite = [v for v in values if v == v and abs(v) != math.inf]
    if not finite:
        return [0.0, 1.0]
    low, high = min(finite), max(finite)
    from_zero = zero and low >= 0
    if from_zero:
        low = 0.0
    pad = (high - low) * FIT_MARGIN or abs(high) * FIT_MARGIN or 1.0
    top = high + pad
    if from_zero and top > 0:
        power = 10 ** math.floor(math.log10(top / 5))
        step = next(m * power for m in (1, 2, 5, 10) if m * power >= top / 5)
        top = math.ceil(top / step - 1e-9) * step
    return [0.0 if from_zero else low - pad, top]


def pareto_figure(result: OptimizeResult, height: int = 460, unit: str = "GB/s") -> go.Figure:
    """Capex [USD] against the search's performance metric for every feasible design; the front as a line."""
    fig = go.Figure()
    front_ids = {c.index for c in result.pareto}
    # a design with a front point's very numbers is left out of the cloud: drawn under the front point, it took
    # the click meant for it, and the page opened that other design
    on_front = {(capex_of(c, result.objective), metric_value(c, result.metric, unit)) for c in result.pareto}
    cloud = sorted((c for c in result.candidates if c.costed and c.index not in front_ids
                    and not math.isnan(metric_value(c, result.metric, unit))
                    and (capex_of(c, result.objective), metric_value(c, result.metric, unit)) not in on_front),
                   key=lambda c: capex_of(c, result.objective))[:MAX_CLOUD]
    if cloud:
        fig.add_trace(_trace(cloud, result.metric, result.objective, unit, mode="markers",
                             name=_("Other designs that meet every constraint"),
                             marker=dict(size=6, color="rgba(120,120,120,0.35)")))
    if result.pareto:
        fig.add_trace(_trace(result.pareto, result.metric, result.objective, unit, mode="lines+markers",
                             name=_("Pareto front"),
                             line=dict(color="#2e86c1", width=2, shape="hv"), marker=dict(size=10, color="#2e86c1")))
    if result.best is not None:
        fig.add_trace(_trace([result.best], result.metric, result.objective, unit, mode="markers",
                             name=_("Cheapest design"),
                             marker=dict(size=16, color="#d35400", symbol="star", line=dict(width=1, color="#fff"))))
    money = cost_axis(result.objective)
    title = _("Capex against performance: click a point to open its design") if money in ("cluster", "compute") else \
        _("{money} against performance: click a point to open its design").format(
            money=objective_word(money)[:1].upper() + objective_word(money)[1:])
    base_layout(fig, title, height, slot="full")
    shown = cloud + list(result.pareto) + ([result.best] if result.best is not None else [])
    xs = [capex_of(c, result.objective) for c in shown]
    x_range = fitted_range(xs)
    xaxis = units.money_axis(x_range[1], x_range[0], range=x_range,
                             title=_("{title} (estimates)").format(title=capex_title(result.objective, shown)))
    if cost_axis(result.objective) in PER_UNIT:  # a price per GPU-hour: its ticks with cents
        xaxis["ticktext"] = [usd(v, cents=True) for v in xaxis["tickvals"]]
    fig.update_layout(xaxis=xaxis,
                      yaxis=dict(title=metric_title(result.metric, unit),
                                 range=fitted_range([metric_value(c, result.metric, unit) for c in shown],
                                                    zero=result.metric == "busbw_gbytes")),
                      legend=dict(orientation="h", y=-0.18), clickmode="event+select")
    return fig


def money_cells(candidates: list, objective: str) -> list[str]:
    """The candidates' values on the front's money axis (``capex_of``) as a table column: its decimals picked once
    (``core.units.money_column``); with cents (a cost per GPU-hour) each as ``money_text`` writes it."""
    if cost_axis(objective) in PER_UNIT:
        return [money_text(c, objective) for c in candidates]
    return units.money_column([capex_of(c, objective) for c in candidates])


def front_rows(result: OptimizeResult, unit: str = "GB/s") -> list[dict]:
    """The Pareto front as table rows (cheapest first): design, capex (text, a column's: ``money_cells``, and US
    dollars), performance (``metric_value``; ``performance_usd`` the cost per million output tokens in US dollars,
    NaN without a serving target), tiers, switches, power [kW]."""
    rows = []
    for c, capex in zip(result.pareto, money_cells(result.pareto, result.objective)):
        rows.append({"index": c.index, "design": design_label(c), "capex": capex,
                     "capex_usd": capex_of(c, result.objective), "cluster_capex_usd": c.capex_usd,
                     "performance": metric_value(c, result.metric, unit), "performance_usd": c.usd_per_mtok,
                     "tiers": switch_tiers(c.design.topology, c.tiers),  # the summary's count (a torus: 0)
                     "switches": c.switches, "power_kw": c.facility_kw,
                     "oversubscription": c.oversubscription})
    return rows


def family_rows(result: OptimizeResult) -> list[dict]:
    """One row per switch family (fabric, leaf switch, topology): its cheapest design that meets every
    constraint, or what ruled the family out."""
    rows, found = [], families(result.candidates, result.objective)
    cheapest = iter(money_cells([f.cheapest for f in found if f.cheapest], result.objective))
    for f in found:
        rows.append({  # zh: a full-width comma, as in design labels; a torus: no switch model
            "family": _("{family}, {topology}").format(family=switch_family(f.switch, vocab.FABRIC.label(f.fabric)),
                                                       topology=vocab.TOPOLOGY.word(f.topology)),
            "considered": f.considered, "feasible": f.feasible,
            "cheapest": next(cheapest) if f.cheapest else "",  # a column's decimals
            "cheapest_index": f.cheapest.index if f.cheapest else None,
            "ruled_out_by": "" if f.cheapest else _("{reason} ({count} of {total})").format(
                reason=f.reason, count=f"{f.ruled_out:,}", total=f"{f.considered:,}"),
        })
    return rows


def rejected_rows(result: OptimizeResult) -> list[dict]:
    """Candidates rejected per reason, most first (constraint words or the engine's message)."""
    return [{"reason": reason, "candidates": count}
            for reason, count in sorted(result.rejected.items(), key=lambda kv: (-kv[1], kv[0]))]
