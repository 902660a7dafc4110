"""What losing level-2 NVLink switches does to a two-level NVLink domain (``core.fabric.domainlevels``), in words.

Model: a first-level domain's level-2 links spread evenly over its domain's level-2 switch units, so losing ``k`` of
``S`` units leaves every GPU of that domain ``(S - k) / S`` of its level-2 bandwidth toward the other first-level
domains (traffic inside a rack does not touch the second level); losing all ``S`` splits the domain into its
first-level domains, which then reach each other over the scale-out network only. Assumed: the NVLink fabric
manager reroutes over the surviving level-2 switches (NVIDIA published no failure behaviour of the second level).
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
    return Level2Loss(sum(d.gpus for d, _count, _left in domains), up.level2_gbytes_per_gpu,
                      min(left for _d, _count, left in domains), both)


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
        notes.append(_("NVLink domain {domain} lost {lost} of its {units} level-2 NVLink switches: its {gpus} GPUs "
                       "keep {share} of their bandwidth to other racks of the domain, {gbytes} of {healthy} GB/s per "
                       "GPU per direction (assumed: the fabric manager spreads traffic over the surviving "
                       "switches).").format(
            domain=named, lost=count, units=domain.level2_switches, gpus=f"{domain.gpus:,}", share=percent(share),
            gbytes=f"{gbytes:,.0f}", healthy=f"{up.level2_gbytes_per_gpu:,.0f}"))
    return notes
