"""A few of the names every export gives a design's devices, for the page that sets the naming scheme.

A design without pods: its first and last server and its first leaf (``gpu001``, ``gpu064``, ``leaf001``). A
design with pods: the names its exports use (``core.formats.podslurm.pod_scheme``, ``core.formats.podnetbox``):
pod 1's first server, the last pod's last server, pod 1's first leaf and the first shared spine
(``pod1-gpu001``, ``pod2-gpu032``, ``pod1-leaf001``, ``spine001``).
"""

from __future__ import annotations

from core.fabric.naming import Namer, NamingScheme
from core.formats.podnetbox import spine_names
from core.formats.podslurm import mixed_of, pod_scheme


def name_examples(plan, scheme: NamingScheme | None) -> list[str]:
    """Example device names of ``plan``'s whole design under ``scheme`` (module docstring): servers, a leaf and,
    with pods, a shared spine."""
    mixed = mixed_of(plan) if getattr(plan.design, "pods", None) else None
    if mixed is None:
        namer = Namer.of(plan, scheme)
        return [namer.node(0), namer.node(plan.resolved.nodes - 1), namer.switch("leaf", 0)]
    first = Namer.of(mixed.plans[0], pod_scheme(scheme, 1))
    count = len(mixed.plans)
    last = Namer.of(mixed.plans[-1], pod_scheme(scheme, count))
    return [first.node(0), last.node(mixed.plans[-1].resolved.nodes - 1), first.switch("leaf", 0),
            *spine_names(mixed, scheme)[:1]]
