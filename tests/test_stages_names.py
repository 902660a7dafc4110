"""Staged growth in the cabling plan's words (core.formats.stagecabling): the re-terminated cables named, with cable
IDs and racks, as each stage's cabling plan names them; the cabling plan's stage column; the stages command with
grow_to alone."""

from __future__ import annotations

import csv
import io
import json

from core.analysis.pods import mixed_plan
from core.analysis.stages import MAX_LISTED, cut_note, growth, growth_plans
from core.cli import main as cli_main
from core.design import Design
from core.fabric.naming import NamingScheme
from core.formats.cabling import write_csv
from core.formats.podnetbox import mixed_cabling_rows
from core.formats.stagecabling import MOVE_COLUMNS, NamedMove, named_moves, staged_rows
from core.physical.cabling import CABLE_COLUMNS, CableRow, cabling_rows
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
    rows = list(staged_rows(plans[0], cabling_rows(plans[0], naming), plans, naming))
    staged, laid = _by_id(CableRow(*r[:-1]) for r in rows), {r[0]: r[-1] for r in rows}
    steps = {"64 → 128": 0, "128 → 256": 1}
    racks_kept = 0
    for m in moves:  # the IDs are the staged cabling plan's (stage column): a stage's new cables s1-, s2-
        old, new = staged[m.cable_id], staged[m.new_cable_id]
        assert {m.kept_end, m.before} == {e[1] for e in _ends(old)} and m.before != m.after
        assert {m.kept_end, m.after} == {e[1] for e in _ends(new)} and laid[m.new_cable_id] == steps[m.step] + 1
        assert (m.after_rack, m.after) in _ends(new)  # the stage after's racks, the row's own stage
        if laid[m.cable_id] == steps[m.step]:  # laid by the stage before: its racks are the row's
            racks_kept += 1
            assert {(m.kept_rack, m.kept_end), (m.before_rack, m.before)} == _ends(old)
        assert m.kept_end.startswith("sw-leaf") and m.before.startswith("sw-spine") and m.after.startswith("sw-spine")
        assert "." not in m.kept_end + m.before + m.after and old.link_class == new.link_class == m.link_class
    # all but one: C000514, laid at stage 0 and re-terminated at 128 -> 256, whose racks are stage 1's layout
    # (leaf001 in R01-05, spine001 in R02-01) while its row is stage 0's (R02-05, R01-01): RACKS_NOTE (rev48b 5)
    assert racks_kept == len(moves) - 1 == 1_509
    odd = next(m for m in moves if m.step == "128 → 256" and laid[m.cable_id] == 0)
    assert (odd.cable_id, odd.kept_rack, odd.before_rack) == ("C000514", "R01-05", "R02-01")
    assert {e[0] for e in _ends(staged["C000514"])} == {"R02-05", "R01-01"}
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


def test_a_cut_list_of_moves_says_first_n_of_m_everywhere(capsys):
    """rev48b 3: 64 -> 128 -> 256 nodes re-terminates 510 then 1,023 leaf-spine cables (the review's counts); a
    step lists at most 1,000, so 1,510 of 1,533 are listed and the table, the CSV (stderr) and the JSON say so."""
    deltas = growth(GROWN)
    assert MAX_LISTED == 1_000
    assert [d.cables_moved for d in deltas] == [510, 1_023] and [len(d.moves) for d in deltas] == [510, 1_000]
    note = "Listed: the first 1,510 of 1,533 re-terminated cables (at most 1,000 a step); the counts are complete."
    assert cut_note(deltas) == note and cut_note(deltas[:1]) is None
    args = ["stages", "--gpu", "H100", "--nodes", "64", "--switch", "QM9700", "--stages", "128,256"]
    assert cli_main([*args, "--format", "csv"]) == 0
    out = capsys.readouterr()
    assert len(out.out.splitlines()) == 1 + 1_510 and note in out.err
    assert cli_main(args) == 0 and note in capsys.readouterr().out
    assert cli_main([*args, "--format", "json"]) == 0
    assert [x["moves_listed"] for x in json.loads(capsys.readouterr().out)] == [510, 1_000]
    assert cli_main(["stages", "--gpu", "H100", "--nodes", "64", "--switch", "QM9700", "--stages", "128",
                     "--format", "csv"]) == 0
    assert capsys.readouterr().err == ""


def test_staged_cabling_plan_gives_each_cable_its_own_id():
    """rev48b 4: the plan with a stage column held C001027 three times; now each of its 6,267 rows (stage 0's
    1,662, then 1,024 added + 510 re-terminated, then 2,048 added + 1,023 re-terminated) has its own ID, a later
    stage's with its stage before (s1-, s2-), and the moves' IDs are rows of that file with the moves' ends."""
    rows = _csv(plan(GROWN))
    ids = [r["cable_id"] for r in rows]
    assert len(ids) == len(set(ids)) == 1_662 + 1_534 + 3_071
    assert [sum(r["stage"] == s for r in rows) for s in "012"] == [1_662, 1_024 + 510, 2_048 + 1_023]
    assert all(r["cable_id"].startswith(f"s{r['stage']}-C") for r in rows if r["stage"] != "0")
    by_id = {r["cable_id"]: r for r in rows}
    for m in named_moves(GROWN, growth(GROWN)):
        old, new = by_id[m.cable_id], by_id[m.new_cable_id]
        assert {m.kept_end, m.before} == {f"{old['a_device']} {old['a_port']}", f"{old['z_device']} {old['z_port']}"}
        assert {m.kept_end, m.after} == {f"{new['a_device']} {new['a_port']}", f"{new['z_device']} {new['z_port']}"}
    first = named_moves(GROWN, growth(GROWN))[0]  # the review's cable: laid at stage 0, re-laid at stage 1
    assert (first.cable_id, first.new_cable_id) == ("C000515", "s1-C001027")


def test_pod_spines_of_another_model_under_the_same_name_say_both_models():
    """rev48b 6: pod 1's 64 H100 (512 leaf uplinks, 8 NICs a node) under QM9700 spines, then a B300 pod under
    Q3400 spines of the same names: all 512 re-terminated rows name both models; B300 pods keep the model and
    name none."""
    design = Design(gpu="H100", nodes=64, pods="B300:32:800@1")
    moves = named_moves(design, growth(design))
    assert len(moves) == 512
    assert all(m.before.endswith(" (QM9700)") and m.after.endswith(" (Q3400)") for m in moves)
    assert (moves[0].before, moves[0].after) == ("spine001 1/1/1 (QM9700)", "spine001 1/1/1 (Q3400)")
    same = Design(gpu="B300", nodes=64, pods="B300:32:800@1")
    assert not any("(" in m.before + m.after for m in named_moves(same, growth(same)))
