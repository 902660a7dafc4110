"""The same training job on two designs with pods, compared like with like: each run on the same pod of its own
design (``core.analysis.whole.pod_plan``), each charged its GPUs' share of its whole design's TCO
(``core.plan.tco_share_usd_per_s`` over ``Plan.cost_basis``: every GPU of every pod pays the same share), for the
Performance page's "Two fabrics, same job" and its comparison with a pasted share link."""

from __future__ import annotations

from typing import Mapping

from core.analysis.whole import PodPlan, pod_count, pod_plan
from core.i18n import _
from core.perf.jobform import alternative_plan
from core.plan import Plan, plan as make_plan


def on_pod(p: Plan, pod: int) -> Plan:
    """The plan a job on pod ``pod`` (1-based; out of range: pod 1) of ``p``'s design runs on: ``p`` itself
    without pods, else that pod planned alone and charged its share of ``p``'s whole design (``pod_plan``).
    Raises what ``pod_plan`` raises."""
    return pod_plan(p, pod)[0] if pod_count(p.design) > 1 else p


def fabric_alternative(whole: Plan, changes: Mapping, pod: int) -> Plan:
    """The job's plan on ``whole``'s design with another fabric (``changes``: ``core.formats.joblink``
    ``COMPARE_FABRICS``; every pod's switch and speed re-chosen), on the same pod ``pod`` as the job: the whole
    design changed, then its pod (``on_pod``), so its cost is a share of the whole changed design, as the job's is
    of the whole design. Raises ``FabricPlannerError`` when the changed design does not plan."""
    return on_pod(alternative_plan(whole.design, changes, whole.resolved.fabric), pod)


def linked_alternative(design, pod: int) -> Plan:
    """The job's plan on a pasted share link's ``design`` (a ``Design``): with pods, its pod ``pod`` (out of range:
    its pod 1), charged its share of that whole design. Raises ``FabricPlannerError`` when it does not plan."""
    return on_pod(make_plan(design), pod)


def comparison_basis(whole: Plan, other: Plan, pod: int) -> str:
    """One sentence saying what the comparison of a job on ``whole``'s design (pod ``pod`` when it has pods) with
    the same job on ``other`` (a plan from ``fabric_alternative`` or ``linked_alternative``) compares; empty
    when neither design has pods (whole cluster against whole cluster needs no words)."""
    if pod_count(whole.design) < 2 and not isinstance(other, PodPlan):
        return ""
    return _("Like with like: the job runs on pod {pod} here and on the same pod of the compared design (its pod 1 "
             "when it has fewer pods); each run pays its GPUs' share of its whole design's TCO, the same share for "
             "every GPU of every pod (the whole TCO over all its GPUs, shared spines included). Cluster capex and "
             "network share are each whole design's.").format(pod=pod if 1 <= pod <= pod_count(whole.design) else 1)
