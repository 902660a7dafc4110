"""The scale-out fabric of a resolved design: sizing, graphs and bandwidth.

``sizing`` sizes the leaf, spine and core (super-spine) switches of a folded Clos in closed form
(``size_fabric`` -> ``FabricPlan``); ``topology`` builds the switch-level and aggregated NetworkX
graphs of a plan; ``bandwidth`` derives per-GPU, per-tier and bisection bandwidth from the sizing; ``wiring``
indexes the fabric as wired. ``families`` names the topology families beyond the folded Clos, each one module
that sizes and wires it (``dragonfly``: Dragonfly+).

May import: the ground floor (``core.catalog``, ``core.design``, ``core.errors``) only; never
``core.cost``, ``core.plan``, ``core.perf`` or anything above.
"""
