"""Staged growth: what each stage of a growing cluster buys, and which cables of the compute fabric move.

A design grows in stages: it is built at ``nodes`` and later extended to larger node counts (``Design.stages``,
then ``grow_to`` when it is beyond them). Each
stage is planned as the same design at that node count (with ``grow_to`` kept, the upper layers are installed for
the final size from the start, so a stage adds scalable units without touching what is cabled; without it, each
stage is sized for itself and a new tier or a wider spine layer re-terminates cables). Between two consecutive
stages:

* **bought**: the BOM items whose quantity rises (``core.analysis.compare.bom_changes``, every network), of which
  the compute fabric's transceivers (``fabric_transceivers_bought``: the Transceivers card's scope), and the capex
  of the stage (later capex less earlier capex, the whole cluster) [USD];
* **cables** of the compute fabric (``core.physical.cabling.compute_links``, every plane), each identified by its
  two ends (device id and port name):
  - *kept*: the same two ends at the same speed;
  - *re-terminated* (moved): one end stays on its port, the other end moves to another device or port (the cable
    and its optics can be reused; someone must unplug and re-plug it);
  - *speed changed*: the same two ends at another speed (new optics, or a port mode change);
  - *added* / *removed*: cables with neither end kept;
* **switches** added and removed (by device id, ``core.fabric.wiring``: the compute fabric's): a switch that exists
  in both stages keeps its id; removed switches mean the fabric was re-sized (a smaller spine layer of a new shape).

Switches, cables and transceivers are the compute fabric's, the capex the whole cluster's: every form of the table
says so (``STAGES_SCOPE``).

The comparison streams the earlier stage's cables into a dict keyed by end (O(cables) memory: about 400,000
cables at 131,072 GPUs).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from collections.abc import Sequence

from core.analysis.compare import bom_changes
from core.cost import BomRow
from core.design import Design, stage_nodes
from core.errors import InputError
from core.fabric.pods import pod_stages
from core.fabric.wiring import Wiring
from core.i18n import N_, _, sentences
from core.physical.cabling import compute_links
from core.plan import Plan, plan
from core.units import number

MAX_LISTED = 1_000
"""Most re-terminated cables a ``StageDelta`` lists one by one (the counts are always complete)."""


class Move(BaseModel):
    """One re-terminated cable: the end that stays and the other end before and after."""

    model_config = ConfigDict(frozen=True)

    kind: str
    """Link class (``node-leaf``, ``leaf-spine``, ``spine-core``)."""
    kept: str
    """The end that stays: ``device port`` (engine ids; the exports' names: ``core.formats.stagecabling.named_moves``)."""
    before: str
    after: str
    before_index: int
    """Position of the cable among the compute-fabric cables of the stage before (``stage_cables`` order, which is
    the order of the compute cables of that stage's cabling plan)."""
    after_index: int
    """Position of the re-terminated cable among the compute-fabric cables of the stage after."""
    kept_a_before: bool
    """Whether the end that stays is the cable's A end (the lower tier's) before the step."""
    kept_a_after: bool
    """Whether it is the A end after the step."""


class Bought(BaseModel):
    """A BOM item a stage buys more of (quantity and extended price [USD] of the increase)."""

    model_config = ConfigDict(frozen=True)

    category: str
    item: str
    catalog_id: str
    quantity: int
    usd: float


class PodStep(BaseModel):
    """One pod of a design with pods at a growth step: its number (1-based), system and nodes before and after (0
    before: the step adds it). A pod's nodes are its system's (a GB200 NVL72 pod's compute trays, a B200 pod's
    servers), so the pods' nodes are never added up."""

    model_config = ConfigDict(frozen=True)

    pod: int
    system: str
    from_nodes: int
    to_nodes: int


class StageDelta(BaseModel):
    """What going from ``from_nodes`` to ``to_nodes`` buys and recables (module docstring)."""

    model_config = ConfigDict(frozen=True)

    from_nodes: int
    to_nodes: int
    from_gpus: int
    to_gpus: int
    capex_usd: float
    """Capex of the later stage less the earlier's [USD] (the whole cluster, every network)."""
    bought: tuple[Bought, ...]
    """The BOM items that rise, every network's."""
    transceivers_bought: int
    """Transceivers of the compute fabric the stage buys (``fabric_transceivers_bought``)."""
    switches_added: int
    switches_removed: int
    cables_kept: int
    cables_added: int
    cables_removed: int
    cables_moved: int
    """Re-terminated: one end kept, the other moved."""
    cables_speed_changed: int
    moved_by_kind: dict[str, int]
    moves: tuple[Move, ...]
    """The first ``MAX_LISTED`` re-terminated cables."""
    tiers: tuple[int, int]
    """Switch tiers before and after, as every surface counts them (``Plan.switch_tiers``: a torus 0, a classic
    Dragonfly 1)."""
    pods: tuple[PodStep, ...] = ()
    """A design with pods: every pod after the step (``from_nodes`` and ``to_nodes`` are then the pods' nodes
    added up, of different systems: ``step_text`` says the step per pod)."""

    @property
    def recabled(self) -> int:
        """Cables someone must unplug: re-terminated, speed-changed and removed."""
        return self.cables_moved + self.cables_speed_changed + self.cables_removed


def fabric_transceivers_bought(before: Sequence[BomRow], after: Sequence[BomRow]) -> int:
    """Transceivers of the compute fabric that going from bill ``before`` to bill ``after`` buys: the rise of each
    of its ``transceiver`` rows (by catalog id, item and end; spares included), as the Transceivers card counts
    them (a second NVLink level's modules in, the storage, in-band and out-of-band networks' and the compute
    network's management links' out: ``BomRow.network``, ``BomRow.management``)."""
    counts: dict[tuple[str, str, str], list[int]] = {}
    for side, bom in enumerate((before, after)):
        for row in bom:
            if row.category == "transceiver" and row.network == "compute" and not row.management:
                counts.setdefault((row.catalog_id, row.item, row.end), [0, 0])[side] += row.quantity
    return sum(max(0, had_after - had) for had, had_after in counts.values())


STAGES_SCOPE = N_("Switches, cables and transceivers: the compute fabric's, a second NVLink level's switch units, "
                  "cables and modules included (not the storage, in-band or out-of-band networks'); capex added: the "
                  "whole cluster's.")
"""What every form of the growth table says of its columns' scope (``stages_note``, the ``stages`` command, the
XLSX sheet)."""


CUT_NOTE = N_("Listed: the first {listed} of {total} re-terminated cables (at most {limit} a step); the counts are "
             "complete.")
"""What every list of the re-terminated cables says when ``MAX_LISTED`` cut it (``cut_note``)."""


def cut_note(deltas: list[StageDelta]) -> str | None:
    """``CUT_NOTE`` in the current language when a step re-terminates more cables than it lists, else None."""
    listed, total = sum(len(d.moves) for d in deltas), sum(d.cables_moved for d in deltas)
    return None if listed == total else _(CUT_NOTE).format(listed=number(listed), total=number(total),
                                                             limit=number(MAX_LISTED))


def stage_counts(design: Design) -> tuple[int, ...]:
    """Node counts of the later stages of ``design``: its ``stages``, then ``grow_to`` when it is beyond them."""
    counts = stage_nodes(design)
    final = design.grow_to
    return (*counts, final) if final and (not counts or final > counts[-1]) and final > plan(design).resolved.nodes \
        else counts


def stage_designs(design: Design) -> list[Design]:
    """The design at each stage: ``design`` itself (the stages and ``grow_to`` checked by planning it), then at
    each node count of ``stage_counts`` (``grow_to`` kept, so the upper layers stay those of the final size)."""
    plan(design)
    counts = stage_counts(design)
    if not counts:
        raise InputError(_("No growth stages: give the later stages' node counts (stages), or grow_to."))
    return [design, *(design.model_copy(update={"nodes": c, "gpus": None, "stages": None}) for c in counts)]


def _cables(p: Plan) -> dict[tuple[tuple[str, str], tuple[str, str]], tuple[str, int]]:
    """Every compute-fabric cable of ``p``: (A end, Z end) -> (link class, speed [Gb/s])."""
    return {((a, pa), (z, pz)): (kind, speed) for kind, a, pa, z, pz, speed in compute_links(p)}


def cable_delta(before: dict, after: dict) -> dict:
    """Counts and moves between two cable sets, each (A end, Z end) -> (link class, speed [Gb/s]) (module
    docstring); the ``StageDelta`` fields they give."""
    ends_after: dict[tuple[str, str], tuple] = {}
    at_after: dict[tuple, int] = {}
    for index, cable in enumerate(after):
        ends_after[cable[0]] = cable
        ends_after[cable[1]] = cable
        at_after[cable] = index
    kept = speed = moved = removed = 0
    matched: set = set()
    moves: list[Move] = []
    by_kind: dict[str, int] = {}
    for index, (cable, (kind, gbps)) in enumerate(before.items()):
        if cable in after:
            matched.add(cable)
            kept += after[cable][1] == gbps
            speed += after[cable][1] != gbps
            continue
        other = next((ends_after[end] for end in cable if end in ends_after and ends_after[end] not in before), None)
        if other is None or other in matched:
            removed += 1
            continue
        matched.add(other)
        moved += 1
        by_kind[kind] = by_kind.get(kind, 0) + 1
        if len(moves) < MAX_LISTED:
            stay = cable[0] if cable[0] in other else cable[1]
            old = cable[1] if stay == cable[0] else cable[0]
            new = other[1] if stay == other[0] else other[0]
            moves.append(Move(kind=kind, kept=" ".join(stay), before=" ".join(old), after=" ".join(new),
                              before_index=index, after_index=at_after[other], kept_a_before=stay == cable[0],
                              kept_a_after=stay == other[0]))
    return dict(cables_kept=kept, cables_speed_changed=speed, cables_moved=moved, cables_removed=removed,
                cables_added=len(after) - len(matched), moved_by_kind=by_kind, moves=tuple(moves))


def counted(before, after, switches_before: set[str], switches_after: set[str], cables: dict) -> dict:
    """The ``StageDelta`` counts of a step from stage plan ``before`` to ``after`` (each a ``Plan`` or, with pods, a
    ``core.analysis.pods.MixedPlan``: both have ``level2_switches`` and ``level2_cables``), from their scale-out
    switches' ids and ``cable_delta``'s counts of their scale-out ``cables``: a second NVLink level's switch units
    and cables added (a domain's own, kept while it stands, so a step adds or removes whole domains'), as the
    Switches and Links cards count them."""
    level2 = after.level2_switches - before.level2_switches
    had, has = before.level2_cables, after.level2_cables
    return {**cables, "switches_added": len(switches_after - switches_before) + max(0, level2),
            "switches_removed": len(switches_before - switches_after) + max(0, -level2),
            "cables_kept": cables["cables_kept"] + min(had, has),
            "cables_added": cables["cables_added"] + max(0, has - had),
            "cables_removed": cables["cables_removed"] + max(0, had - has)}


def stage_delta(before: Plan, after: Plan) -> StageDelta:
    """What growing from plan ``before`` to plan ``after`` buys and recables (module docstring); the switches and
    cables a second NVLink level's units included (``counted``), as the Switches and Links cards and the
    transceivers bought count them."""
    bought = tuple(Bought(category=c.category, item=c.item, catalog_id=c.catalog_id,
                          quantity=c.quantity_change(1, 0), usd=c.usd_change(1, 0))
                   for c in bom_changes([before, after]) if c.quantity_change(1, 0) > 0)
    return StageDelta(
        from_nodes=before.resolved.nodes, to_nodes=after.resolved.nodes, from_gpus=before.resolved.gpus,
        to_gpus=after.resolved.gpus,
        capex_usd=after.cost.capex_usd - before.cost.capex_usd, bought=bought,
        transceivers_bought=fabric_transceivers_bought(before.bom, after.bom),
        tiers=(before.switch_tiers, after.switch_tiers),
        **counted(before, after, set(Wiring.of(before).all_switch_ids()), set(Wiring.of(after).all_switch_ids()),
                  cable_delta(_cables(before), _cables(after))))


def growth_plans(design: Design) -> list:
    """The plan of ``design`` at each of its stages, first the design as built (``stage_designs``; a design with
    ``pods``: a ``core.analysis.pods.MixedPlan`` per pod stage)."""
    if design.pods:
        from core.analysis.pods import pod_plans  # it builds on this module

        return pod_plans(design)
    return [plan(d) for d in stage_designs(design)]


def stage_cables(p) -> dict:
    """The compute-fabric cables of one stage's plan (a ``Plan`` or, with pods, a ``MixedPlan``): (A end, Z end) ->
    (link class, speed [Gb/s]), in the order of the stage's cabling plan's compute cables."""
    if isinstance(p, Plan):
        return _cables(p)
    from core.analysis.pods import mixed_cables

    return mixed_cables(p)


def new_cables(before, after) -> set[int]:
    """Positions (``stage_cables`` order) of the cables of stage plan ``after`` that stage plan ``before`` does
    not have at the same two ends and speed: added, re-terminated and speed-changed (what the stage cables)."""
    had = stage_cables(before)
    return {index for index, (cable, value) in enumerate(stage_cables(after).items()) if had.get(cable) != value}


def growth(design: Design) -> list[StageDelta]:
    """The deltas of growing ``design`` through its stages (``stage_counts``; a design with ``pods``: its pods'
    stages, ``core.analysis.pods``), one per step."""
    if design.pods:
        from core.analysis.pods import pod_growth  # it builds on this module

        return pod_growth(design)
    plans = growth_plans(design)
    return [stage_delta(a, b) for a, b in zip(plans, plans[1:])]


STAGE_COLUMNS = {  # what is moved and bought first: the columns a narrow window still shows
    "step": (N_("Step [nodes]"), "text"), "moved": (N_("Re-terminated"), "count"),
    "capex": (N_("Capex added"), "usd"), "gpus": (N_("GPUs after"), "count"),
    "switches": (N_("Switches added"), "count"), "cables": (N_("Cables added"), "count"),
    "transceivers": (N_("Transceivers bought"), "count"), "kept": (N_("Cables kept"), "count"),
    "speed": (N_("Speed changed"), "count"), "removed": (N_("Removed"), "count"), "tiers": (N_("Tiers"), "text"),
}
"""Columns of the growth-stage table (the Racks & cabling tab, the review pack, the XLSX): id -> (header, kind);
kind ``count`` a whole number, ``usd`` money [USD], ``text`` as written."""


def stage_headers() -> dict[str, str]:
    """``STAGE_COLUMNS`` id -> header in the current language."""
    return {column: _(header) for column, (header, _kind) in STAGE_COLUMNS.items()}


def step_text(d: StageDelta) -> str:
    """A growth step in the current language: ``64 → 128`` [nodes]; with pods each pod's own, by its number and
    system (``pod 1 GB200-NVL72 144, pod 2 B200 0 → 32``: a pod's nodes are its system's, never added up)."""
    if not d.pods:
        return f"{d.from_nodes:,} → {d.to_nodes:,}"
    return ", ".join(_("pod {pod}").format(pod=p.pod) + f" {p.system} " + (
        f"{p.to_nodes:,}" if p.from_nodes == p.to_nodes else f"{p.from_nodes:,} → {p.to_nodes:,}") for p in d.pods)


def stage_rows(deltas: list[StageDelta]) -> list[dict]:
    """One row per growth step: ``STAGE_COLUMNS`` id -> value (counts as int, capex added as float [USD], the
    step (``step_text``) and the tiers as text ``64 → 128``); every shown form of the stages reads these rows."""
    return [{
        "step": step_text(d), "moved": d.cables_moved, "capex": d.capex_usd,
        "gpus": d.to_gpus, "switches": d.switches_added, "cables": d.cables_added,
        "transceivers": d.transceivers_bought, "kept": d.cables_kept, "speed": d.cables_speed_changed,
        "removed": d.cables_removed, "tiers": f"{d.tiers[0]} → {d.tiers[1]}",
    } for d in deltas]


def moved_by_class(delta: StageDelta) -> list[tuple[str, int]]:
    """(link class in the current language (``core.cost.LINK_CLASS_LABELS``), cables re-terminated) of one step,
    per link class (classes by key)."""
    from core.cost import LINK_CLASS_LABELS

    return [(_(LINK_CLASS_LABELS.get(kind, kind)), count) for kind, count in sorted(delta.moved_by_kind.items())]


def moved_rows(deltas: list[StageDelta]) -> list[tuple[str, str, int]]:
    """(step (``step_text``: ``64 → 128`` [nodes]), link class in the current language, cables re-terminated) per
    step and link class (``moved_by_class``)."""
    return [(step_text(d), name, count) for d in deltas for name, count in moved_by_class(d)]


STAGES_NOTE = N_("Each stage is this design at that size; with a final size set (Grow to [nodes]), the spines, cores "
                  "and leaf uplinks are installed for it from the start. Re-terminated: one end stays, the other moves to "
                  "another port (the planner's port assignment at each stage; a hand-made one may move fewer).")
"""What a growth table of a design without pods shows (the Racks & cabling tab's and the review pack's words)."""

POD_STAGES_NOTE = N_("Each stage holds every pod added by it under the shared spines (every pod, not pod 1 alone). "
                     "Re-terminated: one end stays, the other moves to another port; with the spines sized for the "
                     "final stage no cable moves.")
"""What a growth table of a design with pods shows (the Racks & cabling tab's and the review pack's words)."""

POD_STAGES_ONLY = N_("A design with pods grows by its pods' stages (SYSTEM:NODES@STAGE, such as {example}): every "
                     "pod is built now, and grow to and growth stages in nodes apply to no pod.")
"""Why a design with pods all built at once shows no growth table (``{example}``: a pod added at stage 1)."""


def stages_note(design: Design) -> str | None:
    """The words over ``design``'s growth table in the current language (``STAGES_NOTE``, with pods
    ``POD_STAGES_NOTE``; then the columns' scope, ``STAGES_SCOPE``); None for a design with pods all built at once
    (``POD_STAGES_ONLY`` says why)."""
    if design.pods and len(pod_stages(design)) < 2:
        return None
    return sentences(_(POD_STAGES_NOTE if design.pods else STAGES_NOTE), _(STAGES_SCOPE))


def has_stages(design: Design, nodes: int) -> bool:
    """Whether ``design`` (planned at ``nodes``) grows: it has ``stages``, ``grow_to`` beyond ``nodes``, or pods
    added at later stages."""
    return bool(design.stages) or bool(design.grow_to and design.grow_to > nodes) \
        or bool(design.pods and len(pod_stages(design)) > 1)
