"""``python -m core stages --stages 128,256``: what each growth stage of a design buys and which cables move.

With ``--pods`` (``core.analysis.pods``) the stages are the pods' (``SYSTEM:NODES@STAGE``): each step adds the pods
of its stage under the shared spine layer (``--pods-final 1``: installed for the final stage from the start).

Plans the design at its ``--nodes`` and at each node count of ``--stages`` (a design option; then ``--grow-to``
when it is beyond them; ``core.analysis.stages``) and prints,
per step, the capex added, the switches added and removed, and the compute fabric's cables kept, added,
re-terminated (one end moved), changed in speed and removed; ``--format json`` lists the re-terminated cables
(the first 1,000 a step, ``moves_listed``; counts are complete) as ``csv`` names them, ``csv`` writes one row per
re-terminated cable as the stages' cabling plans name it (``core.formats.stagecabling.named_moves``: cable IDs,
racks, names under ``--node-prefix``, ``--switch-prefix``, ``--min-digits``); a cut list is said in the table and on
stderr (``core.analysis.stages.cut_note``), and each stage's racks are those of its own layout (``RACKS_NOTE``).
``--grow-to`` alone (or a ``--design`` file's ``grow_to``) is one stage.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys

from core.cli.common import add_design_options, add_format_option, design_from_args, row, to_json
from core.cli.export import add_naming_options, naming_from_args
from core.i18n import DEFAULT_LANGUAGE, _, language, usd


def register(subparsers) -> None:
    """Add the ``stages`` sub-command."""
    parser = subparsers.add_parser(
        "stages", help=_("what each growth stage buys and which cables move"),
        description=_("Plan the design at its nodes and at each later stage, and say per step what is bought "
                      "(capex, switches) and which compute-fabric cables are kept, added, re-terminated (one end "
                      "moved), changed in speed or removed. With --grow-to the upper layers are installed for the "
                      "final size from the start."))
    add_design_options(parser)
    # what the command is about, at most one of the two: the stages as node counts (the last may be --grow-to, or
    # --grow-to alone; or those of a --design file), or pods added at later stages; none: growth says the way out
    either = parser.add_mutually_exclusive_group()
    either._group_actions += [a for a in parser._actions if a.dest in ("stages", "pods")]
    add_format_option(parser, ("table", "json", "csv"),
                      _("table: readable summary; json: every count and the re-terminated cables (first 1,000); "
                        "csv: one row per re-terminated cable, named as the cabling plan names it (cable ID, racks)"))
    add_naming_options(parser.add_argument_group(_("device names (as the exports name them)")))
    parser.set_defaults(handler=run)


def _table(deltas) -> str:
    from core.analysis.stages import STAGES_SCOPE, cut_note, moved_by_class, step_text

    lines = []
    for d in deltas:
        if d.pods:  # the pods' nodes are of different systems: each pod's own (step_text)
            lines.append(_("{step} nodes ({tiers_before} -> {tiers_after} tiers): +{capex}").format(
                step=step_text(d), tiers_before=d.tiers[0], tiers_after=d.tiers[1], capex=usd(d.capex_usd)))
        else:
            lines.append(_("{before} -> {after} nodes ({tiers_before} -> {tiers_after} tiers): +{capex}").format(
                before=f"{d.from_nodes:,}", after=f"{d.to_nodes:,}", tiers_before=d.tiers[0],
                tiers_after=d.tiers[1], capex=usd(d.capex_usd)))
        lines.append(row(_("switches"), _("{added} added, {removed} removed").format(
            added=f"{d.switches_added:,}", removed=f"{d.switches_removed:,}")))
        lines.append(row(_("cables"), _("{kept} kept, {added} added, {moved} re-terminated, {speed} change speed, "
                                        "{removed} removed").format(
            kept=f"{d.cables_kept:,}", added=f"{d.cables_added:,}", moved=f"{d.cables_moved:,}",
            speed=f"{d.cables_speed_changed:,}", removed=f"{d.cables_removed:,}")))
        for name, count in moved_by_class(d):
            lines.append(row(f"  {name}", _("{count} re-terminated").format(count=f"{count:,}")))
    note = cut_note(deltas)
    if note:  # the json and csv lists are cut: say so where the counts are
        lines.append(note + " " + _("(json, csv)"))
    lines.append(_("Re-terminations follow the planner's port assignment at each stage; a hand-made assignment "
                   "may move fewer cables."))
    lines.append(_(STAGES_SCOPE))
    return "\n".join(lines) + "\n"


def _csv(moves) -> str:
    from core.formats.stagecabling import MOVE_COLUMNS

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(MOVE_COLUMNS)
    writer.writerows(moves)
    return out.getvalue()


def run(args: argparse.Namespace) -> str:
    from core.analysis.stages import cut_note, growth

    naming_from_args(args)  # a bad prefix is said before the work
    design = design_from_args(args)
    deltas = growth(design)
    if args.format in ("json", "csv"):
        from core.formats.stagecabling import named_moves
        from core.plan import plan

        with language(DEFAULT_LANGUAGE):  # the steps' words, as the cabling plan's: English in every --lang
            moves = named_moves(design, deltas, naming_from_args(args, plan(design)))
        note = cut_note(deltas)
        if note:  # a cut list says so: on stderr beside the CSV (its rows stay rows), in the JSON as a field
            print(note, file=sys.stderr)
        if args.format == "csv":
            return _csv(moves)
        out, first = [], 0
        for d in deltas:  # each step's moves as the cabling plans name them (named_moves keeps the steps' order)
            out.append({**d.model_dump(exclude={"moves"}), "recabled": d.recabled, "moves_listed": len(d.moves),
                        "moves": [m._asdict() for m in moves[first:first + len(d.moves)]]})
            first += len(d.moves)
        return to_json(out) + "\n"
    if design.pods:
        from core.analysis.pods import added_pods

        return "".join(row(_("stage {stage} adds").format(stage=stage), words) + "\n"
                       for stage, words in added_pods(design)) + _table(deltas)
    return _table(deltas)
