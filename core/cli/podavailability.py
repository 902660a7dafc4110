"""``python -m core availability`` of a design with pods: the whole fabric's availability
(``core.analysis.podavail.pods_availability``, as the Resilience page shows it), per pod and in total.

JSON: ``availability`` is a ``core.analysis.podavail.PodsAvailability`` (``method``, ``trials``, ``seed``,
``job_gpus``, ``gpus``, ``expected_gpus_available``, ``job_run_fraction``, ``job_run_fraction_stderr``,
``elements`` and ``pods[]`` with ``pod``, ``system``, ``gpus``, ``expected_gpus_available``,
``expected_gpus_cut_off``, ``all_available_fraction``); ``spares`` and ``monitoring`` as without pods.
"""

from __future__ import annotations

from core.cli.common import display_width, pad, row
from core.i18n import _, number, usd
from core.units import percent


def pods_result(mixed, args, rates):
    """``pods_availability`` of the mixed design ``mixed`` under the command's ``--job-gpus``, ``--trials`` and
    ``--seed`` and the failure ``rates`` (``core.analysis.availability.ClassRate`` by class)."""
    from core.analysis.podavail import pods_availability

    return pods_availability(mixed, job_gpus=args.job_gpus, trials=args.trials, seed=args.seed, rates=rates)


def pods_lines(avail, spares) -> list[str]:
    """The text lines of the whole fabric's availability ``avail`` (a ``PodsAvailability``) and the spares
    ``spares`` (a ``core.analysis.sparing.Spares``; money in USD): the totals, one block per pod with the Resilience
    page's columns, the method."""
    from core.analysis.podavail import method_note

    lines = [
        row(_("job"), _("on {job} of {total} GPUs: can run {fraction} of the time ({trials} trials, seed {seed})").format(
            job=f"{avail.job_gpus:,}", total=f"{avail.gpus:,}", fraction=percent(avail.job_run_fraction),
            trials=f"{avail.trials:,}", seed=avail.seed)),
        row(_("GPUs usable (expected)"), number(avail.expected_gpus_available, 1))]
    names = (_("GPUs"), _("GPUs usable (expected)"), _("GPUs cut off (expected)"), _("Every GPU usable"))
    width = max(display_width(name) for name in names) + 2
    for p in avail.pods:
        lines.append(_("pod {pod}").format(pod=p.pod) + f" ({p.system})")
        values = (number(p.gpus), number(p.expected_gpus_available, 1), number(p.expected_gpus_cut_off, 1),
                  percent(p.all_available_fraction))
        lines += ["  " + pad(name, width) + value for name, value in zip(names, values)]
    lines += [
        row(_("spares"), _("{count} spare rows, {spend}; capex with spares {capex}").format(
            count=len(spares.rows), spend=usd(spares.spares_capex_usd),
            capex=usd(spares.capex_with_spares_usd))),
        _(method_note(avail)).replace("`", ""),
        ""]
    return lines
