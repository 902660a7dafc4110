"""The Slurm topology of a design with pods (``core.analysis.pods``): every pod's switches, nodes and blocks.

Each pod is exported as ``core.formats.slurm`` exports it alone (its plan: ``MixedPlan.plans``), under names of
its own so no two pods share one: the pod's nodes take the node prefix ``pod<n>-<node prefix>`` and its switches
the switch prefix ``pod<n>-<switch prefix>`` (``pod2-gpu001``, ``pod2-su001``). The tree keeps each pod's
leaf-level switches and puts them all under one top switch (``spines``) standing for the shared spine layer,
which every leaf of every pod reaches (``core.fabric.podwiring``); pods on three tiers keep each pod's leaf-level
switches and its own spines' switch, all under one top switch (``cores``) for the shared core layer. The blocks are every pod's blocks; the base
block size is the smallest block's node count, so every block holds at least the base size (topology.conf(5)),
and ``BlockSizes`` doubles it up to the cluster.

Machine-readable: written in English whatever the request's language.
"""

from __future__ import annotations

from dataclasses import replace

from core.analysis.pods import MixedPlan
from core.analysis.whole import design_mixed
from core.errors import FabricPlannerError
from core.fabric.naming import Namer, NamingScheme, pod_scheme  # pod_scheme: its home is the naming


def mixed_of(plan) -> MixedPlan | None:
    """The mixed plan of ``plan``'s design with pods; None without pods or when they cannot be planned together
    (the export then describes pod 1, as the pages say the error)."""
    try:
        return design_mixed(plan.design)
    except FabricPlannerError:
        return None


def mixed_tree(mixed: MixedPlan, naming: NamingScheme | None):
    """The Slurm tree of ``mixed``: each pod's leaf-level switches (its own tree without its top) under one top
    switch for the shared spines (module docstring); pods on three tiers: each pod's leaf-level switches and its
    own spines' switch, under one top switch for the shared cores."""
    from core.formats.slurm import SlurmSwitch, SlurmTree, slurm_tree

    f = mixed.fabric
    switches, leaves, notes = [], [], []
    for pod, p in zip(f.pods, mixed.plans):
        own = slurm_tree(p, pod_scheme(naming, pod.index + 1))
        below = [s for s in own.switches if s.nodes]
        if f.tiers == 3:  # its leaves and its own spines' switch; its own top (cores) is the shared core layer
            below = [s if s.nodes else replace(s, stands_for=s.stands_for.replace(
                "(spines of pod 1)", f"(the own spines of pod {pod.index + 1})")) for s in own.switches[:-1]]
            leaves += [s.name for s in below if not s.nodes]
        else:
            leaves += [s.name for s in below]
        switches += below
        notes += [f"pod {pod.index + 1} ({pod.system}): {note}" for note in own.notes]
    if f.tiers == 3:
        switches.append(SlurmSwitch(Namer.of(mixed.plans[0], naming).logical("cores"),
                                    f"the {f.cores_total} shared {f.core_switch} cores of the {len(f.pods)} pods "
                                    "(every "
                                    f"pod's spines reach every core group)", switches=leaves))
        notes.append(f"{len(f.pods)} pods, each with its own spines, under one core layer; each pod's names start "
                     "pod<n>- (" + ", ".join(f"pod {pod.index + 1}: {pod.system} x {pod.nodes:,} nodes"
                                             for pod in f.pods) + ").")
        return SlurmTree(switches, notes)
    top = Namer.of(mixed.plans[0], naming).logical("spines")
    switches.append(SlurmSwitch(top, f"the {f.spines_total} shared {f.spine_switch} spines of the {len(f.pods)} pods "
                                     f"(every leaf of every pod reaches every spine)", switches=leaves))
    notes.append(f"{len(f.pods)} pods under one spine layer; each pod's names start pod<n>- (" + ", ".join(
        f"pod {pod.index + 1}: {pod.system} x {pod.nodes:,} nodes" for pod in f.pods) + ").")
    return SlurmTree(switches, notes)


def mixed_blocks(mixed: MixedPlan, naming: NamingScheme | None, max_levels: int):
    """The blocks of ``mixed``: every pod's blocks, ``BlockSizes`` from the smallest block (at most ``max_levels``
    entries; module docstring)."""
    from core.formats.slurm import SlurmBlocks, slurm_blocks

    blocks, bases = [], []
    for pod, p in zip(mixed.fabric.pods, mixed.plans):
        own = slurm_blocks(p, pod_scheme(naming, pod.index + 1))
        blocks += own.blocks
        bases.append(f"pod {pod.index + 1} ({pod.system}): {own.basis}")
    base = min(len(members) for _name, members in blocks)
    sizes = [base]
    while len(sizes) < max_levels and sizes[-1] * 2 <= base * len(blocks):
        sizes.append(sizes[-1] * 2)
    return SlurmBlocks(blocks, sizes, "; ".join(bases))


def mixed_header(mixed: MixedPlan) -> str:
    """The design line of an export's header comment for ``mixed``: GPUs, nodes, pods and the shared spines (the
    shared cores of pods on three tiers)."""
    f = mixed.fabric
    pods = ", ".join(f"pod {pod.index + 1} {pod.system} x {pod.nodes:,} nodes at {pod.port_speed_gbps}G"
                     for pod in f.pods)
    planes = f" in {f.planes} identical {f.plane_mode} planes ({f.leaves:,} leaves per plane)" if f.planes > 1 else ""
    if f.tiers == 3:
        return (f"# Design: {f.gpus:,} GPUs in {f.nodes:,} nodes; {len(f.pods)} pods, each with its own spines, under "
                f"one core layer ({pods}); {f.cores_total} x {f.core_switch} shared cores{planes}.\n")
    return (f"# Design: {f.gpus:,} GPUs in {f.nodes:,} nodes; {len(f.pods)} pods under one spine layer ({pods}); "
            f"{f.spines_total} x {f.spine_switch} shared spines{planes}.\n")
