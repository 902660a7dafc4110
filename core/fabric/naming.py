"""Device names for hand-offs: one naming scheme for Slurm, NetBox, the cabling plan, GraphML and draw.io.

The engine's graph (``core.fabric.topology.fabric_graph``) names vertices by 0-based internal ids:
``node{n}`` for servers and ``p{plane}.{tier}{k}`` (``p{plane}.i{island}.{tier}{k}`` when a plane holds
several islands: rail-only rails, per-rail planes) for switches. Exports show names people type into
schedulers and inventories instead: 1-based, zero-padded, with a user-set prefix::

    node0            -> gpu001            (node_prefix "gpu", 3 digits for up to 999 nodes)
    p0.leaf0         -> leaf001           (one plane)
    p1.spine3        -> p2-spine04        (two or more planes: "p<plane>-" in front)
    p0.i2.leaf5      -> p1-r3-leaf06      (islands: "r<island>-" after the plane)

Padding is the digits of the largest index of that kind (at least ``min_digits``), so names sort
the same as strings and as numbers. ``NamingScheme`` is what the user sets (CLI flags, the
Designer's export options).
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from core.errors import InputError
from core.i18n import _

_PREFIX = r"^[A-Za-z][A-Za-z0-9_-]{0,15}$|^$"
_VERTEX = re.compile(r"^(?:node(\d+)|p(\d+)\.(?:i(\d+)\.)?(leaf|spine|core)(\d+))$")


class NamingScheme(BaseModel):
    """How exported devices are named.

    node_prefix : str   Prefix of server host names (``gpu`` -> ``gpu001``); letters, digits, ``-``, ``_``.
    switch_prefix : str Prefix put before every switch name (``""`` -> ``leaf001``, ``sw-`` -> ``sw-leaf001``).
    min_digits : int    Least zero padding of the index (the largest index may need more).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    node_prefix: str = Field(default="gpu", pattern=_PREFIX, min_length=1)
    switch_prefix: str = Field(default="", pattern=_PREFIX)
    min_digits: int = Field(default=3, ge=1, le=8)

    def digits(self, count: int) -> int:
        """Zero padding for ``count`` devices of one kind (indices 1 .. count)."""
        return max(self.min_digits, len(str(max(1, count))))


def parse_vertex(vertex: str) -> tuple[str, int, int, int]:
    """``(role, plane, island, index)`` of an engine vertex id, all 0-based (plane and island 0 for servers)."""
    match = _VERTEX.match(vertex)
    if not match:
        raise InputError(_("unknown device {name}").format(name=vertex[:60]))
    node, plane, island, tier, index = match.groups()
    if node is not None:
        return "server", 0, 0, int(node)
    return tier, int(plane), int(island or 0), int(index)


class Namer:
    """Names the devices of one planned design under a ``NamingScheme``.

    counts : dict   Devices per role in one plane and island (``{"server": nodes, "leaf": ..., ...}``),
                    used for the padding.
    planes : int    Planes of the design; ``islands`` islands per plane.
    """

    def __init__(self, scheme: NamingScheme, counts: dict[str, int], planes: int = 1, islands: int = 1):
        self.scheme = scheme
        self.planes = planes
        self.islands = islands
        self._digits = {role: scheme.digits(count) for role, count in counts.items()}

    @classmethod
    def of(cls, plan, scheme: NamingScheme | None = None) -> "Namer":
        """The namer of a ``core.plan.Plan`` (counts per plane and island, as ``fabric_graph`` names them)."""
        fabric, islands = plan.fabric, plan.fabric.islands
        counts = {"server": plan.resolved.nodes, "leaf": fabric.leaf_count // islands,
                  "spine": fabric.spine_count // islands, "core": fabric.core_count // islands}
        return cls(scheme or NamingScheme(), counts, fabric.planes, islands)

    def node(self, index: int) -> str:
        """Host name of server ``index`` (0-based)."""
        return f"{self.scheme.node_prefix}{index + 1:0{self._digits.get('server', 3)}d}"

    def switch(self, tier: str, index: int, plane: int = 0, island: int = 0) -> str:
        """Name of switch ``index`` (0-based) of ``tier`` in ``plane`` and ``island`` (0-based)."""
        where = ""
        if self.planes > 1:
            where += f"p{plane + 1}-"
        if self.islands > 1:
            where += f"r{island + 1}-"
        digits = self._digits.get(tier, self.scheme.min_digits)
        return f"{self.scheme.switch_prefix}{where}{tier}{index + 1:0{digits}d}"

    def vertex(self, vertex: str) -> str:
        """Name of an engine vertex id (``node12``, ``p0.leaf3``, ``p1.i0.spine2``)."""
        role, plane, island, index = parse_vertex(vertex)
        if role == "server":
            return self.node(index)
        return self.switch(role, index, plane, island)
