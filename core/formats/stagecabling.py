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
  cabling plan names them (its own cable IDs), with ``k``;
* a design with pods: its plan is the final stage's (every pod); each compute-fabric cable has the stage from
  which it stays as it is (0: laid now and never moved), the other networks' cables an empty stage.
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
from core.physical.cabling import CableRow, cabling_rows
from core.plan import Plan

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
    """The cable's ID in the cabling plan of the stage before."""
    kept_end: str
    """The end that stays: ``device port``."""
    before: str
    """The other end before the step."""
    after: str
    """The other end after the step."""
    new_cable_id: str
    """The cable's ID in the cabling plan of the stage after (each stage's plan numbers its own cables)."""
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


def named_moves(design: Design, deltas: list[StageDelta], naming: NamingScheme | None = None) -> list[NamedMove]:
    """The re-terminated cables of ``deltas`` (``core.analysis.stages.growth(design)``) named, with cable IDs and
    racks, as each stage's cabling plan gives them."""
    if not any(d.moves for d in deltas):
        return []
    plans = growth_plans(design)
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
            out.append(NamedMove(step_text(d), old.cable_id, kept, before, after, new.cable_id, kept_rack,
                                 before_rack, after_rack, m.kind))
    return out


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
        yield from ((*row, stage) for index, row in enumerate(compute_rows(after, naming)) if index in new)
