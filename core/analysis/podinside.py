"""Failures inside one pod of a design with pods: a NIC, a rack's power or one of its feeds, a scale-up part of a
node or rack (an NVSwitch chip, a switch tray, a level-2 NVLink switch), named under the pod's prefix
(``pod2.node5.nic2``, ``pod1.rack3``, ``pod2.rack3.feeda``, ``pod1.node5.nvswitch1``: ``core.fabric.podwiring``).

What lies below the switches is each pod's own, as the whole fabric's single points take it
(``core.analysis.podspof``): each such failure is the failure what-if of its pod's own plan
(``core.analysis.failure.what_if`` of ``MixedPlan.plans``), its GPUs cut off and degraded the pod's. A spec naming a
switch, a link bundle or a plane is not one of these: the whole-fabric what-if (``core.analysis.podwhatif``) takes
the pods' switches and bundles.
"""

from __future__ import annotations

import re

from core.analysis.pods import MixedPlan, mixed_wiring
from core.errors import InputError

INSIDE_TIERS = frozenset({"nic", "rack", "feed", "nvswitch", "tray", "nvlink2"})
"""Failure tiers (``core.analysis.failure.spec.TIERS``) below the switches: each pod's own."""


def inside_spec(mixed: MixedPlan, spec: str) -> tuple[int, str] | None:
    """``(pod position, the pod's own spec)`` of a failure inside one pod (module docstring: ``pod2.node5.nic2`` ->
    ``(1, "node5.nic2")``); None for another spec or an element the pod does not have."""
    from core.analysis.failure import resolve_failures

    found = mixed_wiring(mixed, three_tiers=True, planes=True).parse(str(spec).strip().lower())
    if found is None or ":" in found[1]:  # a tier and a count is not one pod's element
        return None
    try:
        resolved = resolve_failures(mixed.plans[found[0]], [found[1]])
    except InputError:
        return None
    return found if resolved and all(tier in INSIDE_TIERS for tier, _key, _chosen in resolved) else None


def inside_what_if(mixed: MixedPlan, specs, naming=None) -> list[tuple[int, object]]:
    """``(pod number, its FailureResult)`` of the failures inside each pod among ``specs`` (the others left out), pod
    by pod: the what-if of the pod's own plan (module docstring), its notes naming elements as the pods' exports do
    under the naming scheme ``naming`` (None: the default names; each pod's ``pod_scheme``)."""
    from core.fabric.naming import pod_scheme

    from core.analysis.failure import what_if

    by_pod: dict[int, list[str]] = {}
    for spec in specs:
        found = inside_spec(mixed, spec)
        if found is not None and found[1] not in by_pod.setdefault(found[0], []):
            by_pod[found[0]].append(found[1])
    schemes = [pod_scheme(naming, pod.index + 1) for pod in mixed.fabric.pods]
    return [(mixed.fabric.pods[i].index + 1,
             _pod_notes(mixed, i, what_if(mixed.plans[i], own, naming=schemes[i]), naming, schemes[i]))
            for i, own in sorted(by_pod.items())]


def _pod_notes(mixed: MixedPlan, i: int, result, naming=None, scheme=None):
    """``result`` (the what-if of the pod at position ``i`` alone) with each element its notes name as the pod alone's
    exports would (``R01-01 feedA``) named as the design's exports do (``R05-01 feedA``: the hall's rack, the pod's
    prefix; ``core.analysis.failure.podnames``)."""
    from core.analysis.failure.names import ElementNames
    from core.analysis.failure.podnames import PodElementNames

    alone, whole = ElementNames(mixed.plans[i], scheme), PodElementNames(mixed, naming)
    prefix = mixed_wiring(mixed, three_tiers=True, planes=True).prefix(i)
    notes = list(result.notes)
    for item in (item for item in result.failed if item.get("redundant")):  # the notes name a redundant feed
        old, new = alone.name(item["element"]), whole.name(prefix + item["element"])
        said = re.compile(re.escape(old) + r"(?![0-9A-Za-z])")  # R01-01 feedA, not R01-01 feedAB; any language
        notes = [said.sub(new, note) if old != item["element"] else note for note in notes]
    return result.model_copy(update={"notes": tuple(notes)})
