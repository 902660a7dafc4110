"""Performance on a planned cluster: NCCL collectives and a training step.

``constants`` reads and validates ``assets/catalog/collectives.toml`` (every constant with its
source); ``sizes`` parses and formats message sizes; ``placement`` places a communicator on the
fabric and derives the effective link bandwidths; ``algorithms`` holds one function per NCCL
algorithm (ring, tree, NVLS/NVLS-tree, SHARP, hierarchical, direct all-to-all) and the registry
the sweep iterates; ``collectives`` runs the sweep and answers one prediction; ``training``
estimates a training step, its memory, communication and days to train; ``jobform`` turns the
Performance page's and CLI's job settings into a job that fits the design.

May import: the ground floor, ``core.fabric``, ``core.cost`` and ``core.plan``; never
``core.analysis``, ``core.formats``, ``core.figures`` or ``core.cli``.
"""
