"""Availability of a design with pods over the whole fabric: every pod's servers and leaves and the shared spines
(pods on three tiers: every pod's own spines and the shared cores) fail and are repaired (``core.analysis.availability``'s steady-state model and rates), what each pod keeps.

Method: each element is down at a random instant with its class's steady-state probability ``q`` (``gpu_node`` for
a server, ``switch`` for a pod's leaf, a shared spine, a pod's own spine and a shared core), independently. A seeded Monte Carlo draws, per trial, the
lost leaves of every pod and the lost shared spines (or cores and own spines); what each pod loses in that state is the whole-fabric what-if's
one rule (``core.analysis.podwhatif.pods_what_if``: servers whose every leaf is lost are cut off, and without any
spine the GPUs outside the scalable unit holding the most GPUs), evaluated once per distinct state. Of each pod's
servers still connected, the number down is drawn as Binomial(connected, ``q_node``) (servers fail independently of
the switches). A pod's GPUs available = (connected servers - servers down) x GPUs per server.

Not drawn here: NICs and links (the single-pod model draws them; per pod they would add a per-server factor) and
the bandwidth share.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict

from core.analysis.availability import ClassRate, MonteCarloRun, checked_run, default_rates
from core.analysis.pods import MixedPlan
from core.analysis.podwhatif import pod_elements, pods_what_if
from core.i18n import N_

METHOD = ("steady-state Poisson failures with repair per element (q = r/(1+r)), independent; a seeded Monte Carlo "
          "over every pod's servers and leaves and the shared spines; per sampled state, what each pod loses by the "
          "whole-fabric what-if's rule; servers down drawn among the connected ones")
METHOD_NOTE = N_("Method: every pod's servers and leaves and the shared spines are each down with their steady-state "
                 "probability `q = r / (1 + r)`, `r = AFR x MTTR / 8760`, independently; a seeded Monte Carlo over "
                 "them, each state's GPUs cut off by the whole-fabric failure what-if's rule, servers down drawn "
                 "among those still connected. NICs and links are not drawn here.")
"""The method in words (to translate with ``_()``), as the Resilience page, the command line and the review pack say
it."""
METHOD_THREE = ("steady-state Poisson failures with repair per element (q = r/(1+r)), independent; a seeded Monte "
                "Carlo over every pod's servers, leaves and own spines and the shared cores; per sampled state, what "
                "each pod loses by the whole-fabric what-if's rule; servers down drawn among the connected ones")
METHOD_NOTE_THREE = N_("Method: every pod's servers, leaves and own spines and the shared cores are each down with "
                       "their steady-state probability `q = r / (1 + r)`, `r = AFR x MTTR / 8760`, independently; a "
                       "seeded Monte Carlo over them, each state's GPUs cut off by the whole-fabric failure what-if's "
                       "rule, servers down drawn among those still connected. NICs and links are not drawn here.")
"""``METHOD`` and ``METHOD_NOTE`` for pods on three tiers (``core.fabric.podcore``)."""


def method_note(result: "PodsAvailability") -> str:
    """The method in words of ``result`` (``METHOD_NOTE``, or ``METHOD_NOTE_THREE`` for pods on three tiers), to
    translate with ``_()``."""
    return METHOD_NOTE_THREE if result.method == METHOD_THREE else METHOD_NOTE


class PodAvailability(BaseModel):
    """One pod's result of ``pods_availability``: GPUs (counts) expected available and the fraction of trials the
    whole pod was available."""

    model_config = ConfigDict(frozen=True)

    pod: int
    """The pod's number (1-based)."""
    system: str
    gpus: int
    expected_gpus_available: float
    expected_gpus_cut_off: float
    """Expected GPUs of servers that are up but cut off (every leaf lost, or apart without spines)."""
    all_available_fraction: float
    """Fraction of trials in which every GPU of the pod was available."""


class PodsAvailability(MonteCarloRun):
    """Result of ``pods_availability``: per pod and the whole fabric."""

    pods: tuple[PodAvailability, ...]
    gpus: int
    expected_gpus_available: float
    job_run_fraction: float
    """Fraction of trials with at least ``job_gpus`` GPUs available over all pods (a job may span pods)."""
    job_run_fraction_stderr: float
    elements: dict[str, int]
    """Elements drawn per class: servers (``gpu_node``) and switches (every pod's leaves and the shared spines; on three
    tiers every pod's leaves and own spines and the shared cores)."""


def pods_availability(mixed: MixedPlan, job_gpus: int | None = None, trials: int = 1000, seed: int = 0,
                      rates: dict[str, ClassRate] | None = None) -> PodsAvailability:
    """Monte Carlo availability of the mixed design ``mixed`` over the whole fabric (module docstring); a job of
    ``job_gpus`` GPUs (all by default) runs in a trial when that many GPUs are available over all pods."""
    rates = rates or default_rates()
    q_node, q_switch = rates["gpu_node"].unavailability, rates["switch"].unavailability
    gpn = [p.resolved.gpus_per_node for p in mixed.plans]
    nodes = [p.nodes for p in mixed.fabric.pods]
    total = sum(n * g for n, g in zip(nodes, gpn))
    job_gpus = checked_run(trials, job_gpus, total)
    rng = np.random.default_rng(seed)
    switches = pod_elements(mixed)  # the shared spines (cores, own spines) and every pod's leaves, each at q_switch
    seen: dict[tuple[str, ...], list[int]] = {}  # nodes cut off per pod of each distinct state drawn
    available = np.zeros((trials, len(nodes)))
    cut_off = np.zeros((trials, len(nodes)))
    for t in range(trials):
        state = tuple(element for element, lost in zip(switches, rng.random(len(switches)) < q_switch) if lost)
        if state not in seen:
            seen[state] = [loss.nodes_cut_off for loss in pods_what_if(mixed, list(state))]
        connected = np.array(nodes) - np.array(seen[state])
        down = rng.binomial(connected, q_node)
        available[t] = (connected - down) * gpn
        cut_off[t] = np.array(seen[state]) * gpn * (1 - q_node)  # cut-off servers that are up, in expectation
    totals = available.sum(axis=1)
    fraction = float((totals >= job_gpus).mean())
    per_pod = tuple(PodAvailability(pod=p.index + 1, system=p.system, gpus=n * g,
                                    expected_gpus_available=float(available[:, i].mean()),
                                    expected_gpus_cut_off=float(cut_off[:, i].mean()),
                                    all_available_fraction=float((available[:, i] >= n * g).mean()))
                    for i, (p, n, g) in enumerate(zip(mixed.fabric.pods, nodes, gpn)))
    return PodsAvailability(
        method=METHOD_THREE if mixed.fabric.tiers == 3 else METHOD, trials=trials, seed=seed, job_gpus=job_gpus, pods=per_pod, gpus=total,
        expected_gpus_available=float(totals.mean()), job_run_fraction=fraction,
        job_run_fraction_stderr=math.sqrt(max(fraction * (1 - fraction), 1e-12) / trials),
        elements={"gpu_node": sum(nodes),
                  "switch": len(switches)})
