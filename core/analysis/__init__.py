"""Questions asked of many plans at once: what-if sweeps today; comparison, optimizer and failures as they come.

``whatif`` re-plans a design over a range of one setting (leaf oversubscription) and tabulates it.

May import: the ground floor, ``core.fabric``, ``core.cost``, ``core.plan`` and ``core.perf``;
never ``core.figures``, ``core.formats`` or ``core.cli``.
"""
