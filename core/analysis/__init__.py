"""Questions asked of many plans at once: what-if sweeps today; comparison, optimizer and failures as they come.

``whatif`` re-plans a design over a range of one setting (leaf oversubscription) and tabulates it.
(Ways out of an unbuildable design are found by ``core.plan.ways_out`` and carried by ``DesignError.fixes``.)

May import: the ground floor, ``core.fabric``, ``core.cost``, ``core.plan`` and ``core.perf``;
never ``core.figures``, ``core.formats`` or ``core.cli``.
"""
