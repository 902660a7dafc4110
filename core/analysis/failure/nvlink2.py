"""What losing level-2 NVLink switches does to a two-level NVLink domain (``core.fabric.domainlevels``), in words.

Model: a first-level domain's level-2 links spread evenly over its domain's level-2 switch units, so losing ``k`` of
``S`` units leaves every GPU of that domain ``(S - k) / S`` of its level-2 bandwidth toward the other first-level
domains (traffic inside a rack does not touch the second level); losing all ``S`` splits the domain into its
first-level domains, which then reach each other over the scale-out network only. Assumed: the NVLink fabric
manager reroutes over the surviving level-2 switches (NVIDIA published no failure behaviour of the second level).

The what-if's degraded copy of the design carries the worst domain's level-2 bandwidth left
(``whatif.degraded_plan``), so the collectives and the training step whose ranks span first-level domains run at it
(``core.perf.placement.spans_level2``); ``step_note`` says which of the job's collectives do.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from core.fabric.domainlevels import scaleup_of
from core.i18n import _
from core.plan import Plan
from core.units import percent


def domain_words(plan: Plan, domain, scheme=None) -> str:
    """A two-level NVLink domain (``domainlevels.Domain``) as the exports name it, with the first-level domains it
    spans, 1-based (``nvd001 (nvl001 to nvl004)``: its level-2 units' names begin so, the Slurm block export names
    its first-level domains so; ``scheme``: a ``core.fabric.naming.NamingScheme``, None: the default names)."""
    from core.analysis.failure.names import ElementNames
    from core.fabric.domainlevels import level2_domain_name

    names = ElementNames(plan, scheme)
    first = domain.first_node // max(1, plan.resolved.nvlink_level1_nodes)
    return _("{domain} ({first} to {last})").format(
        domain=level2_domain_name(domain.index, plan.resolved, names.scheme), first=names.domain(first),
        last=names.domain(first + domain.racks - 1))


@dataclass(frozen=True)
class Level2Loss:
    """What lost level-2 NVLink switch units leave (``level2_loss``), per GPU, one direction [GB/s]."""

    gpus: int
    """GPUs of the NVLink domains that lost level-2 units (their bandwidth to other racks of the domain fell)."""
    healthy_gbytes: float
    """A GPU's healthy bandwidth to other racks of its domain (``ScaleUp.level2_gbytes_per_gpu``)."""
    worst_gbytes: float
    """The worst such domain's bandwidth left per GPU to its other racks (0: split into its racks)."""
    both_gpus: int = 0
    """GPUs among ``gpus`` whose first-level domain lost switch chips too (counted once with the first level's)."""
    racks: frozenset = frozenset()
    """The first-level domains (rack indices, as ``connectivity.Analysis`` numbers them) of those NVLink domains."""


def _lost_domains(plan: Plan, elements):
    """(domain, level-2 units lost, bandwidth left per GPU to its other racks [GB/s, one direction]) per NVLink
    domain that lost level-2 units among ``elements``: ``(S - k) / S`` of the healthy level-2 bandwidth (module
    docstring), 0 when all ``S`` are lost."""
    lost = Counter(key[0] for tier, key, _chosen in elements if tier == "nvlink2")
    if not lost:
        return []
    up = scaleup_of(plan.resolved)
    units = {d.index: d for d in up.domains() if d.index in lost}
    return [(units[index], count,
             up.level2_gbytes_per_gpu * max(0, units[index].level2_switches - count) / units[index].level2_switches)
            for index, count in sorted(lost.items())]


def level2_loss(plan: Plan, elements) -> Level2Loss | None:
    """The GPUs whose bandwidth to other racks fell and the worst domain's bandwidth left (``Level2Loss``) when
    ``elements`` lose level-2 NVLink switch units, else None; the same rule as ``level2_notes``."""
    domains = _lost_domains(plan, elements)
    if not domains:
        return None
    up = scaleup_of(plan.resolved)
    hit = {d.index for d, _count, _left in domains}
    racks = {key[0] for tier, key, _chosen in elements if tier in ("tray", "nvswitch")} if up.level1_nodes > 1 else ()
    both = sum(up.level1_gpus for rack in racks if up.domain_of_node(rack * up.level1_nodes) in hit)
    first = {d.first_node // up.level1_nodes + k for d, _count, _left in domains for k in range(d.racks)}
    return Level2Loss(sum(d.gpus for d, _count, _left in domains), up.level2_gbytes_per_gpu,
                      min(left for _d, _count, left in domains), both, frozenset(first))


def level2_notes(plan: Plan, elements, scheme=None) -> list[str]:
    """One note per NVLink domain that lost level-2 NVLink switch units among ``elements`` (resolved failure
    elements ``(tier, key, chosen)``; tier ``nvlink2`` keys are ``(domain, unit)``), with its bandwidth left per GPU
    [GB/s, one direction]; each domain named as the exports name it (``domain_words`` under ``scheme``)."""
    domains = _lost_domains(plan, elements)
    if not domains:
        return []
    up = scaleup_of(plan.resolved)
    notes = []
    for domain, count, gbytes in domains:
        named = domain_words(plan, domain, scheme)
        left = domain.level2_switches - count
        if left <= 0:
            notes.append(_("NVLink domain {domain} lost all {units} level-2 NVLink switches: it splits into its {racks} "
                           "first-level domains of {level1} GPUs, which reach each other over the scale-out network "
                           "only.").format(domain=named, units=domain.level2_switches, racks=domain.racks,
                                           level1=up.level1_gpus))
            continue
        share = left / domain.level2_switches
        text = (_("NVLink domain {domain} lost {lost} of its {units} level-2 NVLink switches: its {gpus} GPUs keep "
                  "{share} of their bandwidth to other racks of the domain, {gbytes} of {healthy} GB/s per GPU per "
                  "direction (assumed: the fabric manager spreads traffic over the surviving switches).")
                if up.level1_gpus > up.gpus_per_node else  # first-level domains of one node (HGX): nodes
                _("NVLink domain {domain} lost {lost} of its {units} level-2 NVLink switches: its {gpus} GPUs keep "
                  "{share} of their bandwidth to other nodes of the domain, {gbytes} of {healthy} GB/s per GPU per "
                  "direction (assumed: the fabric manager spreads traffic over the surviving switches)."))
        notes.append(text.format(
            domain=named, lost=count, units=domain.level2_switches, gpus=f"{domain.gpus:,}", share=percent(share),
            gbytes=f"{gbytes:,.0f}", healthy=f"{up.level2_gbytes_per_gpu:,.0f}"))
    return notes


# the GPU distance between a parallelism's consecutive ranks (``core.perf.training``'s communicators), by
# ``CommPart.kind``; the point-to-point sends (pipeline, ring attention) are timed on the first level
_STRIDES = {"TP": lambda job: 1, "CP": lambda job: job.tp, "EP": lambda job: job.tp * job.cp,
            "DP": lambda job: job.tp, "DP (experts)": lambda job: job.ep}
_SENDS = ("send/recv", "send/recv (ring attention)")  # ``CommPart.collective`` of the point-to-point parts


def crossing_parts(plan: Plan, run) -> tuple[list[str], list[str]]:
    """(kinds, kinds) of the training estimate ``run``'s collectives (``CommPart.kind``: TP, CP, EP, DP, DP
    (experts)) on ``plan`` whose ranks span racks of a two-level NVLink domain, so they cross its second level
    (``core.perf.placement.spans_level2``, the rule the collective model applies), and of those that stay inside
    one rack. A point-to-point part (pipeline, ring attention) is in neither: it is timed on the first level."""
    from core.perf.placement import place, spans_level2

    crossing, inside = [], []
    for part in run.comm:
        if part.kind not in _STRIDES or part.collective in _SENDS or part.group_size < 2:
            continue
        spans = spans_level2(plan, place(plan, part.group_size, _STRIDES[part.kind](run.job)))
        (crossing if spans else inside).append(part.kind)
    return crossing, inside


def step_note(plan: Plan, run, loss: Level2Loss, over_network: bool = False) -> str:
    """Which collectives of the failed training step ``run`` (a ``TrainingEstimate`` on the degraded copy of
    ``plan``) cross the second NVLink level and so run at the bandwidth ``loss`` leaves (``crossing_parts``), and
    which stay inside a first-level domain (a rack, or a node), in words; the pipeline's and ring attention's sends
    said to be timed on the first level when the job has them. ``over_network``: the step is the split copy's (the
    scale-out network is faster than the little level-2 bandwidth left: ``whatif._copies``)."""
    from core.i18n import join
    from core.perf.training import parallelism_label

    crossing, inside = crossing_parts(plan, run)
    racks = plan.resolved.nvlink_level1_gpus > plan.resolved.gpus_per_node
    where, one = (_("racks"), _("rack")) if racks else (_("nodes"), _("node"))
    words = []
    if crossing and loss.worst_gbytes > 0 and over_network:
        words.append(_("Training step: the {parts} groups span {where} of an NVLink domain; the {gbytes} of {healthy} "
                       "GB/s per GPU per direction left on its second NVLink level is slower for them than the "
                       "scale-out network, so their traffic between {where} is timed over the scale-out network (the "
                       "better of the two, as if the domain had split).").format(
            parts=join([parallelism_label(k) for k in crossing]), where=where, gbytes=f"{loss.worst_gbytes:,.0f}",
            healthy=f"{loss.healthy_gbytes:,.0f}"))
    elif crossing and loss.worst_gbytes > 0:
        words.append(_("Training step: the {parts} groups span {where} of an NVLink domain, so their traffic "
                       "between {where} crosses the second NVLink level, which has {gbytes} of {healthy} GB/s per "
                       "GPU per direction left.").format(
            parts=join([parallelism_label(k) for k in crossing]), where=where, gbytes=f"{loss.worst_gbytes:,.0f}",
            healthy=f"{loss.healthy_gbytes:,.0f}"))
    elif crossing:
        words.append(_("Training step: the {parts} groups span {where} of an NVLink domain that lost its second "
                       "NVLink level, so their traffic between {where} goes over the scale-out network.").format(
            parts=join([parallelism_label(k) for k in crossing]), where=where))
    if inside:
        words.append(_("The {parts} groups stay inside one {one} (first NVLink level): the level-2 loss does not "
                       "slow them.").format(parts=join([parallelism_label(k) for k in inside]), one=one))
    if any(part.collective in _SENDS for part in run.comm):
        words.append(_("Pipeline and ring-attention sends are timed on the first NVLink level."))
    return " ".join(words)


def level2_scope(level1_gpus: int, gpus_per_node: int, inside: str) -> str:
    """What a what-if's NVLink figures are once a level-2 loss sets them (``FailureResult.nvlink_level2_of``): a
    GPU's bandwidth to the other first-level domains of its NVLink domain (racks, or nodes when a first-level domain
    of ``level1_gpus`` is one node of ``gpus_per_node``), not the ``inside`` figure (a bandwidth, formatted) within
    its own, in words the CLI's line and the page's caption under the table share (``level2_row``: the table's row)."""
    if level1_gpus > gpus_per_node:
        return _("to other racks of its domain, over the second NVLink level ({inside} inside a rack)").format(
            inside=inside)
    return _("to other nodes of its domain, over the second NVLink level ({inside} inside a node)").format(
        inside=inside)


def level2_row(chart: bool = False) -> str:
    """The failure table's NVLink row once a level-2 loss sets its figures (``level2_scope`` says what they are, under
    the table), short enough for the table's first column at 1,024 px; ``chart``: the bar chart's label (no
    direction: a share)."""
    return _("NVLink per GPU, level 2, worst domain") if chart else _(
        "NVLink per GPU, level 2, worst domain, one direction")
