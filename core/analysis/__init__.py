"""Questions asked of many plans at once, or of one plan under failure.

``whatif`` re-plans a design over a range of one setting (leaf oversubscription) and tabulates it.
``compare`` lines up to four designs with deltas against a baseline and the BOM difference.
``optimize`` searches a stated grid of the engine's choices for the cheapest design meeting constraints.
``failure`` (what-if), ``spof`` (single points of failure), ``availability`` (failure rates over time),
``sparing`` (spare rows for the BOM) and ``monitoring`` (counters to watch) are the resilience questions.
(Ways out of an unbuildable design are found by ``core.plan.ways_out`` and carried by ``DesignError.fixes``.)

May import: the ground floor, ``core.fabric``, ``core.cost``, ``core.plan`` and ``core.perf``;
never ``core.figures``, ``core.formats`` or ``core.cli``.
"""
