"""Staged growth in the cabling plan's words: the re-terminated cables named as the exports name them, and the
cabling plan's stage column.

``core.analysis.stages`` compares the stages' compute-fabric cables by engine id (``p0.leaf0``), which stay the
same from stage to stage. What people read are the cabling plan's names (``leaf001``, ``sw-spine02``, a pod's
``pod1-leaf001``), cable IDs (``C000515``) and racks. Each stage's cabling plan lists its compute cables in the
order ``core.analysis.stages.stage_cables`` does (``core.physical.cabling.compute_links``; with pods
``core.analysis.pods.mixed_links``), so a cable's position there is its row among the plan's compute rows (its UFM
cables aside): one naming rule, the cabling plan's own (``core.fabric.naming``).

The cabling plan of a design that grows gets a ``stage`` column (``STAGE_COLUMN``):

* a design without pods: its plan is the one built now (stage 0); after its rows come, per later stage ``k``, the
  compute-fabric cables stage ``k`` lays or re-terminates (added, one end moved, or a new speed) as that stage's
  cabling plan names them, with ``k``; their cable IDs are that plan's with the stage before them (``s1-C001027``,
  ``staged_ids``), so no two cables of the file share an ID, and a cable a later stage keeps keeps the ID of the
  stage that laid it;
* a design with pods: its plan is the final stage's (every pod); each compute-fabric cable has the stage from
  which it stays as it is (0: laid now and never moved), the other networks' cables an empty stage.

Racks: each stage's plan lays out its hall afresh (``core.plan``), so a rack name (``R01-05``) means a place in that
stage's layout: the same switch may stand in another rack at a later stage. A move's rack of the end that stays and
rack before are the stage before's, its rack after the stage after's (``RACKS_NOTE``); keeping the earlier stages'
racks in the later layouts is not built.
"""

from __future__ import annotations

from typing import Iterator, NamedTuple

from core.analysis.stages import StageDelta, growth_plans, has_stages, new_cables, stage_cables, step_text
from core.design import Design
from core.errors import FabricPlannerError
from core.fabric.naming import NamingScheme
from core.fabric.pods import pod_stages
from core.formats.podnetbox import mixed_cabling_rows
from core.formats.podslurm import mixed_of
from core.i18n import N_
from core.physical.cabling import CableRow, cabling_rows
from core.plan import Plan

RACKS_NOTE = N_("Each stage's racks are those of its own layout (the hall is laid out afresh at each stage, so a "
                "switch may stand in another rack later): the rack of the end that stays and the rack before are "
                "the stage before's, the rack after the stage after's.")
"""The limitation of the moves' racks (module docstring), said wherever they are shown."""

STAGE_COLUMN = "stage"
"""The cabling plan's last column when the design grows (module docstring)."""

MOVE_COLUMNS = ("step", "cable_id", "kept_end", "before", "after", "new_cable_id", "kept_rack", "before_rack",
                "after_rack", "link_class")
"""Columns of a re-terminated cable (``NamedMove``), in order (the ``stages`` CSV, the Racks & cabling tab): what to
unplug and re-plug first, the columns a narrow window still shows."""


class NamedMove(NamedTuple):
    """One re-terminated cable as the cabling plans name it (``device port``, the exports' names); fields in
    ``MOVE_COLUMNS`` order."""

    step: str
    """The growth step (``core.analysis.stages.step_text``)."""
    cable_id: str
    """The cable's ID in the staged cabling plan (``staged_ids``: the stage that laid it)."""
    kept_end: str
    """The end that stays: ``device port``."""
    before: str
    """The other end before the step."""
    after: str
    """The other end after the step; with pods, a switch of another model under the same name says both models
    (``spine001 1/1/1 (QM9700)`` before, ``(Q3400)`` after)."""
    new_cable_id: str
    """The cable's ID after the step in the staged cabling plan (without pods ``s1-C001027``, ``staged_ids``; with
    pods the stage after's own plan)."""
    kept_rack: str
    before_rack: str
    after_rack: str
    link_class: str


def compute_rows(p, naming: NamingScheme | None = None) -> Iterator[CableRow]:
    """The compute-fabric cables of one stage's plan (a ``Plan``, with pods a ``MixedPlan``) as its cabling plan
    writes them, its UFM cables aside: in ``core.analysis.stages.stage_cables`` order."""
    rows = cabling_rows(p, naming) if isinstance(p, Plan) else mixed_cabling_rows(p, naming)
    return (r for r in rows if r.network == "compute" and r.link_class != "ufm-leaf")


def _rows_at(p, positions: set[int], naming: NamingScheme | None) -> dict[int, CableRow]:
    """The compute rows of stage plan ``p`` at ``positions`` (``compute_rows`` order)."""
    found: dict[int, CableRow] = {}
    last = max(positions, default=-1)
    for index, row in enumerate(compute_rows(p, naming)):
        if index > last:
            break
        if index in positions:
            found[index] = row
    return found


def _side(row: CableRow, end: str, a_side: bool) -> tuple[str, str]:
    """(rack, ``device port``) of one end of ``row``; ``end`` is the engine's ``device port``, whose port the
    row's must be (the stage's cables and its cabling plan in one order, module docstring)."""
    device, port, rack = (row.a_device, row.a_port, row.a_rack) if a_side else (row.z_device, row.z_port, row.z_rack)
    if end.rsplit(" ", 1)[1] != port:
        raise FabricPlannerError(f"stage cables and cabling plan disagree at {row.cable_id}: {end} is not {port}")
    return rack or "", f"{device} {port}"


def _model(end: str) -> str:
    """The switch model of an engine end of a design with pods (``spine0:Q3400 1/1/1`` -> ``Q3400``; ""
    without one: ``core.analysis.pods.mixed_cables``)."""
    device = end.rsplit(" ", 1)[0]
    return device.split(":", 1)[1] if ":" in device else ""


def named_moves(design: Design, deltas: list[StageDelta], naming: NamingScheme | None = None) -> list[NamedMove]:
    """The re-terminated cables of ``deltas`` (``core.analysis.stages.growth(design)``) named, with cable IDs and
    racks, as each stage's cabling plan gives them (IDs without pods: the staged plan's, ``staged_ids``)."""
    if not any(d.moves for d in deltas):
        return []
    plans = growth_plans(design)
    ids = None if design.pods else staged_ids(plans, naming)
    wanted: dict[int, set[int]] = {}
    for step, d in enumerate(deltas):
        wanted.setdefault(step, set()).update(m.before_index for m in d.moves)
        wanted.setdefault(step + 1, set()).update(m.after_index for m in d.moves)
    rows = {stage: _rows_at(plans[stage], positions, naming) for stage, positions in wanted.items() if positions}
    out = []
    for step, d in enumerate(deltas):
        for m in d.moves:
            old, new = rows[step][m.before_index], rows[step + 1][m.after_index]
            kept_rack, kept = _side(old, m.kept, m.kept_a_before)
            before_rack, before = _side(old, m.before, not m.kept_a_before)
            after_rack, after = _side(new, m.after, not m.kept_a_after)
            was, now = _model(m.before), _model(m.after)
            if was != now and before.rsplit(" ", 1)[0] == after.rsplit(" ", 1)[0]:  # a new box, the same name
                before, after = f"{before} ({was})", f"{after} ({now})"
            old_id, new_id = (old.cable_id, new.cable_id) if ids is None else (
                ids[step][m.before_index], ids[step + 1][m.after_index])
            out.append(NamedMove(step_text(d), old_id, kept, before, after, new_id, kept_rack,
                                 before_rack, after_rack, m.kind))
    return out


def staged_ids(plans: list, naming: NamingScheme | None = None) -> list[list[str]]:
    """Per stage plan of a design without pods, the staged cabling plan's ID of each compute cable
    (``stage_cables`` order): stage 0's own; at a later stage ``k`` the cables it lays or re-terminates
    (``new_cables``) get that plan's ID with ``s{k}-`` before it, the cables it keeps the ID they had."""
    ids = [[r.cable_id for r in compute_rows(plans[0], naming)]]
    for stage, (before, after) in enumerate(zip(plans, plans[1:]), start=1):
        had = {cable: ids[-1][i] for i, cable in enumerate(stage_cables(before))}
        new = new_cables(before, after)
        ids.append([f"s{stage}-{row.cable_id}" if i in new else had[cable]
                    for i, (row, cable) in enumerate(zip(compute_rows(after, naming), stage_cables(after)))])
    return ids


def staged_plans(plan) -> list | None:
    """The plans of ``plan``'s design at each growth stage (``core.analysis.stages.growth_plans``), None when it
    does not grow."""
    design = plan.design
    if design.pods and mixed_of(plan) is None:  # pods that cannot be planned together: the plan is pod 1's
        return None
    grows = len(pod_stages(design)) > 1 if design.pods else has_stages(design, plan.resolved.nodes)
    return growth_plans(design) if grows else None


def _stages_from(plans: list) -> list[int]:
    """Per compute cable of the last stage plan (``stage_cables`` order): the first stage from which it stays as
    it is (the same ends at the same speed at every later stage)."""
    last = list(stage_cables(plans[-1]).items())
    stage = [len(plans) - 1] * len(last)
    alive = list(range(len(last)))
    for k in range(len(plans) - 2, -1, -1):
        cables = stage_cables(plans[k])
        alive = [i for i in alive if cables.get(last[i][0]) == last[i][1]]
        for i in alive:
            stage[i] = k
    return stage


def staged_rows(plan, rows: Iterator[CableRow], plans: list,
                naming: NamingScheme | None = None) -> Iterator[tuple]:
    """The cabling plan ``rows`` of ``plan`` with a stage each, then (without pods) what later stages cable
    (module docstring)."""
    if plan.design.pods:
        stages, position = _stages_from(plans), 0
        for row in rows:
            if row.network == "compute" and row.link_class != "ufm-leaf":
                yield (*row, stages[position])
                position += 1
            else:
                yield (*row, None)
        return
    yield from ((*row, 0) for row in rows)
    for stage, (before, after) in enumerate(zip(plans, plans[1:]), start=1):
        new = new_cables(before, after)
        yield from ((*row._replace(cable_id=f"s{stage}-{row.cable_id}"), stage)
                    for index, row in enumerate(compute_rows(after, naming)) if index in new)
