"""Topology families beyond the folded Clos: which module sizes and wires each one.

A family is one module of ``core.fabric`` with ``FAMILY`` (its id, also its ``Design.topology`` value and
``FabricPlan.family``) and these functions:

* ``size(resolved) -> FabricPlan`` (closed form, ``DesignError`` with ways out);
* ``wiring(fabric, nodes, nics)``: an object with ``core.fabric.wiring.Wiring``'s interface;
* ``bisection_gbits(resolved, fabric, injection, leaf_up)`` and ``hop_counts(wiring)``;
* ``summary(fabric, bandwidth)``: its entry of ``Plan.summary()``;
* ``ways_out(design)``: its candidate design changes for ``core.plan.ways_out``;
* ``GRAPH_MODELS``: the analyses that work on its wiring's graph (``"spof"``, ``"availability"``, ``"load"``);
  the others say they do not model it (``require_model``);
* optionally ``capacities_gbits(resolved, fabric)``: its stages' capacities when it has no leaves (the torus;
  ``core.fabric.bandwidth.tier_capacities_gbits`` asks for it).

``core.fabric.sizing.size_fabric``, ``core.fabric.wiring.wiring_of``, ``core.fabric.bandwidth`` and ``core.plan``
dispatch here; the folded Clos (``clos``: rail-optimized, top-of-rack, rail-only) is theirs. A new family adds
its module, one line in ``FAMILIES``, its ``core.vocab.TOPOLOGY`` term, its sizing inputs in ``core.design``
and its tests.
"""

from __future__ import annotations

import importlib
from types import ModuleType

CLOS = "clos"
FAMILIES = {"dragonfly": "core.fabric.dragonfly", "torus": "core.fabric.torus"}
"""Family id -> module."""


def family(name: str) -> ModuleType | None:
    """The module of family ``name`` (a ``Design.topology`` or ``FabricPlan.family``); None for the folded Clos."""
    path = FAMILIES.get(name)
    return importlib.import_module(path) if path else None


def require_model(fabric, model: str, what: str) -> None:
    """Raise ``InputError`` (as ``require_clos``) when ``fabric``'s family is not a folded Clos and does not list
    ``model`` (``"spof"``, ``"availability"``, ``"load"``) in its ``GRAPH_MODELS``: ``what`` is the analysis in
    words."""
    module = family(fabric.family)
    if module is None or model in module.GRAPH_MODELS:
        return
    require_clos(fabric, what)


def require_clos(fabric, what: str) -> None:
    """Raise ``InputError`` when ``fabric`` (a ``FabricPlan``) is not a folded Clos: ``what`` (an analysis, in words)
    is a closed form of the Clos's tiers and would be wrong on another family's links."""
    if fabric.family == CLOS:
        return
    from core import vocab  # ground floor: vocabularies
    from core.errors import InputError
    from core.i18n import _

    if fabric.family == "torus":
        raise InputError(_("{what}: closed forms of the folded Clos (leaf, spine and core tiers) that do not model a "
                           "torus yet (its nodes joined node to node). Run the failure what-if on it, or take the "
                           "topology (GraphML export) to a graph tool.").format(what=what))
    raise InputError(_("{what}: closed forms of the folded Clos (leaf, spine and core tiers) that do not model "
                       "{family} yet (its global links between groups). Compare with the same design as "
                       "rail-optimized, or take the topology (GraphML export) to a graph tool.").format(
        what=what, family=vocab.TOPOLOGY.label(fabric.family)))
