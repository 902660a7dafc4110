"""The optimizer's answer in words, said once for the Optimize page and the command line: how the search counted
its candidates (``search_words``) and why the other fabric family's best design costs more (``why_costlier``).

Counts: the candidates, those that meet every constraint and those ruled out are the same on every run; how many
of the feasible ones were laid out and costed in full depends on the order the workers' costed candidates arrive
(bounds before detail, ``core.analysis.optimize``), so it is said as this run's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import plurals, units, vocab
from core.i18n import _, join, number, pgettext, sentences, usd

if TYPE_CHECKING:
    from core.analysis.optimize import Candidate, OptimizeResult


def max_hops_help() -> str:
    """What the maximum-switch-hops constraint limits (``Constraints.max_hops``), translated: the Optimize page's
    help and ``--max-hops``'s; a family without switches (a torus) crosses none, so the search does not hold it to
    the limit (``Candidate.switch_hops``)."""
    return _("most switches any path between two GPUs crosses; a torus crosses no switch (its nodes are joined node "
             "to node), so the limit does not apply to it")


def search_words(result: OptimizeResult) -> str:
    """How the search counted, in one sentence: candidates, how many meet every constraint and how many are ruled
    out (timing-independent), then, when bounds decided some, how many of the feasible ones this run laid out and
    costed in full (``OptimizeResult.pruned`` the rest; the count varies with the workers' timing)."""
    ruled_out = sum(result.rejected.values())
    text = _("{considered} candidates: {feasible} meet every constraint, {rejected} are ruled out by a constraint "
             "or cannot be built.").format(considered=number(result.considered), feasible=number(result.feasible),
                                            rejected=number(ruled_out))
    if result.pruned and result.feasible:
        text = sentences(text, _("This run laid out and costed {costed} of the {feasible} in full and decided the "
                                 "rest by provable bounds (which ones varies with the workers' timing; the answer "
                                 "does not).").format(costed=number(result.feasible - result.pruned),
                                                      feasible=number(result.feasible)))
    return text


def searched_words(result: OptimizeResult) -> str:
    """``search_words`` and how long the search took [s], in the one format of a duration in seconds
    (``core.units.number``: ``Searched in 12.3 s.``): the Optimize page's caption and ``optimize``'s "searched" row."""
    return sentences(search_words(result), _("Searched in {seconds} s.").format(seconds=units.number(result.seconds)))


def _category_word(key: str) -> str:
    """A BOM network category as ``why_costlier`` says it."""
    words = {"NIC": pgettext("spends more on", "NICs"), "switch": pgettext("spends more on", "switches"),
             "transceiver": pgettext("spends more on", "transceivers"),
             "cable": pgettext("spends more on", "cables")}
    return words.get(key, key)


def _what_differs(best: Candidate, other: Candidate) -> str:
    """`` (2 tiers, 12 switches; this design: 1 tier, 1 switch)`` with only the counts that differ; empty when
    the two designs have as many tiers and switches."""
    theirs, ours = [], []
    if other.tiers != best.tiers:
        theirs.append(plurals.tiers(other.tiers))
        ours.append(plurals.tiers(best.tiers))
    if other.switches != best.switches:
        theirs.append(plurals.switches(other.switches))
        ours.append(plurals.switches(best.switches))
    if not theirs:
        return ""
    return _(" ({theirs}; this design: {ours})").format(theirs=join(theirs), ours=join(ours))


def why_costlier(best: Candidate, other: Candidate, objective: str = "cluster") -> str:
    """Where ``other`` (the other family's best, named by its fabric) spends more than ``best``, from the two
    bills [USD, shown by ``core.i18n.usd``]: the network category whose cost differs most; when that is the capex
    outside the compute fabric (counted unless the objective is the compute fabric alone), the three numbers that
    add up, outside the fabric, the compute fabric itself (more or less) and the whole capex; then the tier and
    switch counts that differ."""
    outside = (other.capex_usd - other.network_capex_usd) - (best.capex_usd - best.network_capex_usd)
    gaps = {k: other.network_by_category.get(k, 0.0) - best.network_by_category.get(k, 0.0)
            for k in set(other.network_by_category) | set(best.network_by_category)}
    if objective != "compute":  # with the same GPU nodes: the storage and management networks and the fabric
        gaps["compute"] = outside  # managers (an InfiniBand subnet manager) that follow the fabric's choice
    key = max(gaps, key=gaps.get)
    fabric, differs = vocab.FABRIC.label(other.design.fabric), _what_differs(best, other)
    if key != "compute":
        return _("the {fabric} design spends {gap} more on {what}{differs}.").format(
            fabric=fabric, gap=usd(gaps[key]), what=_category_word(key), differs=differs)
    inside = other.network_capex_usd - best.network_capex_usd
    said = _("the {fabric} design spends {outside} more outside the compute fabric (the storage and management "
             "networks and fabric managers) and {inside} less on the compute fabric itself, {total} more capex in "
             "all{differs}.") if inside < 0 else \
        _("the {fabric} design spends {outside} more outside the compute fabric (the storage and management "
          "networks and fabric managers) and {inside} more on the compute fabric itself, {total} more capex in "
          "all{differs}.")
    return said.format(fabric=fabric, outside=usd(outside), inside=usd(abs(inside)),
                       total=usd(other.capex_usd - best.capex_usd), differs=differs)


def bandwidth_against(best, sidebar, unit: str) -> str:
    """The winner's scale-out bandwidth per GPU [``unit``, one direction] and bisection ratio (end to end) against
    the sidebar design's, in one sentence of the current language (the headline says it, so a cheaper answer that
    cuts each GPU's share of the fabric reads as that); ``best`` and ``sidebar`` are plans (``core.plan.Plan``),
    ``sidebar`` None (the sidebar has no plan) gives "". A share is of the sidebar design's per-GPU bandwidth."""
    if sidebar is None:
        return ""
    ours, theirs = best.bandwidth, sidebar.bandwidth
    share = ours.scaleout_gbits_per_gpu / theirs.scaleout_gbits_per_gpu if theirs.scaleout_gbits_per_gpu else 1.0
    same = abs(share - 1.0) < 0.005
    text = (_("Per GPU it has {ours} of scale-out bandwidth (one direction), the same as the sidebar design's.")
            if same else _("Per GPU it has {ours} of scale-out bandwidth (one direction), {share}% of the sidebar "
                           "design's {theirs}.")).format(
        ours=units.bandwidth(ours.scaleout_gbits_per_gpu, unit), theirs=units.bandwidth(theirs.scaleout_gbits_per_gpu,
                                                                                          unit),
        share=number(share * 100, 0 if share >= 0.1 else 1))
    return sentences(text, _("Bisection ratio: {ours} (the sidebar design's: {theirs}).").format(  # as pages name it
        ours=units.ratio(ours.oversubscription), theirs=units.ratio(theirs.oversubscription)))


def front_rule(metric: str, unit: str = "GB/s") -> str:
    """The front's tie rule in one sentence of the current language (``core.analysis.optimize.pareto_front``: the
    performance ``metric`` rounded to ``FRONT_STEP``; a busbw step in ``unit``, "GB/s" or "Gb/s")."""
    from core.analysis.optimize import FRONT_STEP

    step = FRONT_STEP[metric]
    if metric == "busbw_gbytes":
        precision = _("{step} of all-reduce bus bandwidth").format(step=units.bandwidth(units.from_gbytes(step), unit))
    else:
        precision = {"days": _("{step} days to train"),
                     "usd_per_mtok": _("{step} USD per million output tokens")}[metric].format(step=step)
    return _("Each design on the front performs better than every cheaper one at {precision}; a costlier design "
             "that rounds to the same value is left out.").format(precision=precision)
