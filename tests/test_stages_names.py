"""Staged growth in the cabling plan's words (core.formats.stagecabling): the re-terminated cables named, with cable
IDs and racks, as each stage's cabling plan names them; the cabling plan's stage column; the stages command with
grow_to alone."""

from __future__ import annotations

import csv
import io
import json

from core.analysis.pods import mixed_plan
from core.analysis.stages import growth, growth_plans
from core.cli import main as cli_main
from core.design import Design
from core.fabric.naming import NamingScheme
from core.formats.cabling import write_csv
from core.formats.podnetbox import mixed_cabling_rows
from core.formats.stagecabling import MOVE_COLUMNS, NamedMove, named_moves
from core.physical.cabling import CABLE_COLUMNS, cabling_rows
from core.plan import plan

GROWN = Design(gpu="H100", nodes=64, switch="QM9700", stages=[128, 256])


def _by_id(rows) -> dict:
    return {r.cable_id: r for r in rows}


def _ends(row) -> set[tuple[str, str, str]]:
    return {(row.a_rack, f"{row.a_device} {row.a_port}"), (row.z_rack, f"{row.z_device} {row.z_port}")}


def test_moves_are_the_cabling_plans_cables_by_id_name_and_rack():
    """Every re-terminated cable, looked up by its cable ID in the stage before's cabling plan, has the end that
    stays and the old end with their racks; by its new ID in the stage after's, the end that stays and the new
    end. A custom switch prefix names them (no engine id)."""
    assert NamedMove._fields == MOVE_COLUMNS
    naming = NamingScheme(switch_prefix="sw-")
    deltas = growth(GROWN)
    moves = named_moves(GROWN, deltas, naming)
    assert len(moves) == sum(len(d.moves) for d in deltas) == min(deltas[0].cables_moved, 1000) + min(
        deltas[1].cables_moved, 1000) > 0
    plans = growth_plans(GROWN)
    stage_rows = [_by_id(cabling_rows(p, naming)) for p in plans]
    steps = {"64 → 128": 0, "128 → 256": 1}
    for m in moves:
        step = steps[m.step]
        old, new = stage_rows[step][m.cable_id], stage_rows[step + 1][m.new_cable_id]
        assert {(m.kept_rack, m.kept_end), (m.before_rack, m.before)} == {tuple(e[:2]) for e in _ends(old)}
        assert {(m.kept_rack, m.kept_end), (m.after_rack, m.after)} <= _ends(new) | {(m.kept_rack, m.kept_end)}
        assert (m.after_rack, m.after) in _ends(new) and m.before != m.after
        assert m.kept_end.startswith("sw-leaf") and m.before.startswith("sw-spine") and m.after.startswith("sw-spine")
        assert "." not in m.kept_end + m.before + m.after and old.link_class == new.link_class == m.link_class
    # the review's cable: leaf001 1/18/1 on spine001 1/2/1 in the 64-node plan, R02-05 to R01-01
    first = named_moves(GROWN, deltas)[0]
    assert (first.cable_id, first.kept_rack, first.kept_end, first.before_rack, first.before) == (
        "C000515", "R02-05", "leaf001 1/18/1", "R01-01", "spine001 1/2/1")


def test_pod_moves_name_the_pods_leaves_and_the_shared_spines():
    design = Design(gpu="B300", nodes=64, pods="B300:32:800@1")
    deltas = growth(design)
    moves = named_moves(design, deltas)
    assert len(moves) == len(deltas[0].moves) > 0
    before = _by_id(mixed_cabling_rows(mixed_plan(design, 0), None))
    after = _by_id(mixed_cabling_rows(mixed_plan(design, 1), None))
    for m in moves:
        assert {(m.kept_rack, m.kept_end), (m.before_rack, m.before)} == _ends(before[m.cable_id])
        assert (m.after_rack, m.after) in _ends(after[m.new_cable_id])
        assert m.kept_end.startswith("pod1-leaf") and ":" not in m.before + m.after and "pod1." not in m.kept_end


def _csv(p) -> list[dict]:
    out = io.StringIO()
    write_csv(p, out)
    return list(csv.DictReader(io.StringIO(out.getvalue())))


def test_cabling_plan_has_a_stage_column_when_the_design_grows():
    """Without pods: the 64-node plan's cables at stage 0 (all of them, as without stages), then per later stage
    the cables it adds, re-terminates or changes in speed: added + re-terminated + speed changed of that step."""
    rows = _csv(plan(GROWN))
    assert list(rows[0]) == [*CABLE_COLUMNS, "stage"]
    deltas = growth(GROWN)
    count = {s: sum(1 for r in rows if r["stage"] == s) for s in ("0", "1", "2")}
    assert count["0"] == sum(1 for _ in cabling_rows(plan(GROWN))) and len(rows) == sum(count.values())
    for stage, d in enumerate(deltas, start=1):
        assert count[str(stage)] == d.cables_added + d.cables_moved + d.cables_speed_changed > 0
    assert list(_csv(plan(Design(gpu="H100", nodes=64, switch="QM9700")))[0]) == list(CABLE_COLUMNS)


def test_pods_cabling_plan_stage_is_when_each_compute_cable_was_last_laid():
    """With pods the plan is the final stage's: its compute cables kept from stage 0 say 0, those the step lays or
    re-terminates say 1; the other networks' cables say nothing."""
    design = Design(gpu="B300", nodes=64, pods="B300:32:800@1")
    rows = _csv(plan(design))
    d = growth(design)[0]
    compute = [r for r in rows if r["network"] == "compute" and r["link_class"] != "ufm-leaf"]
    assert sum(r["stage"] == "0" for r in compute) == d.cables_kept
    assert sum(r["stage"] == "1" for r in compute) == d.cables_added + d.cables_moved + d.cables_speed_changed
    assert all(r["stage"] == "" for r in rows if r not in compute)


def test_stages_command_takes_grow_to_alone_and_a_design_file(tmp_path, capsys):
    assert cli_main(["stages", "--gpu", "H100", "--nodes", "64", "--grow-to", "256", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(x["from_nodes"], x["to_nodes"]) for x in data] == [(64, 256)]
    path = tmp_path / "gt.json"
    path.write_text(Design(gpu="H100", nodes=64, grow_to=256).model_dump_json())
    assert cli_main(["stages", "--design", str(path), "--format", "json"]) == 0
    assert [(x["from_nodes"], x["to_nodes"]) for x in json.loads(capsys.readouterr().out)] == [(64, 256)]


def test_stages_json_names_the_moves_as_the_csv(capsys):
    assert cli_main(["stages", "--gpu", "H100", "--nodes", "64", "--switch", "QM9700", "--stages", "128,256",
                     "--format", "json", "--switch-prefix", "sw-"]) == 0
    data = json.loads(capsys.readouterr().out)
    deltas = growth(GROWN)
    assert [len(x["moves"]) for x in data] == [len(d.moves) for d in deltas]
    assert data[0]["moves"][0] == named_moves(GROWN, deltas, NamingScheme(switch_prefix="sw-"))[0]._asdict()
    assert data[0]["moves"][0]["kept_end"] == "sw-leaf001 1/18/1" and data[1]["moves"][0]["step"] == "128 → 256"
