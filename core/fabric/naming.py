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
Designer's export options, the link's ``nm_`` keys).

Settings are checked as a whole by ``check_names`` (every surface calls it, and ``Namer.of`` too, so no
export is written under a scheme it refuses): a prefix starts with a letter and holds at most 16 letters,
digits, ``-`` or ``_`` (nothing Slurm's host lists read as syntax: no spaces, ``[``, ``]``, ``,``); no two
devices may get the same name, compared as NetBox compares them (case-insensitively) across servers,
switches, the Slurm exports' group switches and blocks, and the other networks' devices; no name may be
longer than a target takes (``NAME_LIMITS``).
"""

from __future__ import annotations

import re
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field

from core.errors import InputError, shown
from core.fabric.wiring import ROLES, Wiring, plane_prefix
from core.i18n import N_, _

PREFIX = r"[A-Za-z][A-Za-z0-9_-]{0,15}"
"""A name prefix: a letter, then at most 15 letters, digits, ``-`` or ``_`` (the switch prefix may also be empty)."""
_PREFIX = rf"^{PREFIX}$|^$"


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


NAME_LIMITS = {"Slurm": 63, "NetBox": 64}
"""Longest device name each target takes [characters]: NetBox's ``Device.name`` is a 64-character field;
Slurm's node names are host names (63 characters, one RFC 1123 label; Slurm's own name buffer,
``MAX_SLURM_NAME``, is 64 bytes with its terminating NUL)."""

LOGICAL_STEMS = ("su", "pod", "group", "nvl", "sud", "block", "spines", "cores", "global")
"""Names the Slurm exports give the switches and blocks they stand for (``Namer.logical``): numbered
(``su001``, ``pod01``, ``group01`` (a Dragonfly+ group), ``nvl001``, ``sud001`` (a scale-up domain other than
NVLink: Infinity Fabric, UB), ``block001``) and single (``SINGLE_STEMS``), after the switch prefix."""
SINGLE_STEMS = ("spines", "cores", "global")
"""The logical stems that name one switch (no number)."""

_SWITCH_HEADS = (".leaf", ".spine", ".switch")
_SETTING_WORDS = {"node_prefix": N_("node name prefix"), "switch_prefix": N_("switch name prefix"),
                  "min_digits": N_("name digits")}
"""What each setting is called in messages (the link's ``nm_`` keys say the same words)."""


class NamingError(InputError):
    """Naming settings refused by ``check_names``; ``field`` is the setting at fault (``node_prefix``,
    ``switch_prefix`` or ``min_digits``)."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


def setting_word(field: str) -> str:
    """The name of a naming setting in messages, in the current language (``node name prefix``)."""
    return _(_SETTING_WORDS[field])


def other_stem(scheme: NamingScheme, head: str) -> str:
    """Name stem of a device of the other networks by its id's head: ``storage.leaf`` -> ``storage-leaf``
    (switches get the scheme's switch prefix: ``sw-storage-leaf``), ``mgmt.ufm`` -> ``mgmt-ufm``."""
    switch = any(head.endswith(role) for role in _SWITCH_HEADS)
    return f"{scheme.switch_prefix if switch else ''}{head.replace('.', '-')}"


def device_groups(plan) -> list:
    """The device groups of ``plan.networks`` (the compute devices, then each network's switches and devices);
    each has ``id_prefix`` and ``first + count`` ids."""
    networks = getattr(plan, "networks", None)
    if networks is None:
        return []
    return [*networks.compute_devices, *(g for n in networks.sized() for g in (*n.switches, *n.devices))]


def pod_scheme(scheme: NamingScheme | None, pod: int) -> NamingScheme:
    """The naming scheme of pod number ``pod`` (1-based) of a design with pods: ``scheme``'s prefixes after
    ``pod<n>-`` (the pods' Slurm, NetBox and cabling exports, ``core.formats.podslurm``)."""
    scheme = scheme or NamingScheme()
    return scheme.model_copy(update={"node_prefix": f"pod{pod}-{scheme.node_prefix}",
                                     "switch_prefix": f"pod{pod}-{scheme.switch_prefix}"})


def naming_scheme(node_prefix: str = "gpu", switch_prefix: str = "", min_digits: int = 3,
                  plan=None) -> NamingScheme:
    """The scheme of these settings, checked as a whole (``check_names``); ``NamingError`` names the setting
    at fault and why, in the current language. Every surface builds its scheme here: CLI, link, Hand-off tab."""
    for field, value in (("node_prefix", node_prefix), ("switch_prefix", switch_prefix)):
        if not isinstance(value, str) or not re.fullmatch(_PREFIX, value) or (field == "node_prefix" and not value):
            raise NamingError(_("{setting} {value}: a prefix starts with a letter, then at most 15 more letters, "
                                "digits, - or _ (no spaces, commas or brackets: Slurm reads them as host-list "
                                "syntax)").format(setting=setting_word(field), value=shown(value)), field)
    if isinstance(min_digits, bool) or not isinstance(min_digits, int) or not 1 <= min_digits <= 8:
        raise NamingError(_("{setting} must be a whole number from 1 to 8, got {value}").format(
            setting=setting_word("min_digits"), value=shown(min_digits)), "min_digits")
    scheme = NamingScheme(node_prefix=node_prefix, switch_prefix=switch_prefix, min_digits=min_digits)
    check_names(scheme, plan)
    return scheme


def _stripped(stem: str) -> str:
    """``stem`` without its trailing digits, folded as NetBox compares names (``Leaf1`` -> ``leaf``)."""
    return stem.rstrip("0123456789").casefold()


def _families(scheme: NamingScheme, plan) -> list[tuple[str, str, bool, str, str]]:
    """(kind, stem, numbered, setting, example) of every kind of name a design gets: servers, switches (of every
    plane and island the plan has; without a plan, of any), the Slurm exports' group switches and blocks, the
    other networks' devices (with a plan). A numbered kind is its stem and a padded number."""
    if plan is not None:
        namers = [Namer.of(plan, scheme, checked=False)]
    else:  # every way a switch name can start: no plane or island, a plane, an island, both
        planes, islands = int(_bound("planes")), int(_bound("nics_per_node"))
        namers = [Namer(scheme, {}, p, i) for p in (1, planes) for i in (1, islands)]
    out = [("server", scheme.node_prefix, True, "node_prefix", namers[0].node(0))]
    for namer in namers:
        for tier in ROLES:
            for plane in range(namer.planes):
                for island in range(namer.islands):
                    name = namer.switch(tier, 0, plane, island)
                    stem = name.rstrip("0123456789")
                    out.append((f"switch {stem}", stem, True, "switch_prefix", name))
    for stem in LOGICAL_STEMS:
        numbered = stem not in SINGLE_STEMS
        out.append((f"slurm {stem}", f"{scheme.switch_prefix}{stem}", numbered, "switch_prefix",
                    namers[0].logical(stem, 0 if numbered else None, scheme.min_digits)))
    for head in sorted({g.id_prefix for g in device_groups(plan)} if plan is not None else ()):
        stem = other_stem(scheme, head)
        switch = any(head.endswith(role) for role in _SWITCH_HEADS)
        out.append((f"other {head}", stem, True, "switch_prefix" if switch else "node_prefix",
                    f"{stem}{1:0{scheme.min_digits}d}"))
    return out


def _bound(field: str) -> float:
    from core.design import field_bounds

    return field_bounds(field)[1]


def check_names(scheme: NamingScheme, plan=None) -> None:
    """Refuse a naming scheme under which two devices would share a name or a name is too long for a target.

    Two kinds of names may collide when their stems without trailing digits are equal, compared
    case-insensitively (NetBox's unique device name ignores case; ``gpu1`` + ``001`` could equal ``gpu`` +
    ``1001``), so such a scheme is refused even if this design's counts keep them apart. With ``plan`` (a
    ``core.plan.Plan``) its planes, islands, other networks and device counts are used; without, every plane
    and island a design may have (the other networks' names are then checked once a plan is given).
    ``NamingError`` (an ``InputError``) names the setting at fault, the names that collide and what to do.
    """
    seen: dict[tuple[str, bool], tuple[str, str, str]] = {}
    for kind, stem, numbered, field, example in _families(scheme, plan):
        key = (_stripped(stem) if numbered else stem.casefold(), numbered)
        if key in seen and seen[key][0] != kind:
            _kind, other_field, other = seen[key]
            blamed = "node_prefix" if "node_prefix" in (field, other_field) else field
            raise NamingError(_("{setting} {value} names two kinds of devices alike ({first} and {second}); "
                                "every device needs its own name (NetBox refuses a second device of the same "
                                "name, Slurm merges them): choose another prefix").format(
                setting=setting_word(blamed), value=shown(getattr(scheme, blamed)), first=other, second=example),
                blamed)
        seen.setdefault(key, (kind, field, example))
    if plan is not None:
        longest = max(_longest_names(scheme, plan), key=len)
        target, limit = min(NAME_LIMITS.items(), key=lambda item: item[1])
        if len(longest) > limit:
            raise NamingError(_("names would be up to {length} characters ({name}), more than {target} takes "
                                "({limit}): choose shorter prefixes or fewer digits").format(
                length=len(longest), name=shown(longest), target=target, limit=limit), "min_digits")


def _longest_names(scheme: NamingScheme, plan) -> Iterable[str]:
    """The longest name of each kind in ``plan`` (the last of each kind: the most digits)."""
    namer = Namer.of(plan, scheme, checked=False)
    wiring = Wiring.of(plan)
    yield namer.node(wiring.nodes - 1)
    for role in wiring.roles:
        if wiring.count(role):
            yield namer.switch(role, wiring.count(role) - 1, wiring.planes - 1, wiring.islands - 1)
    for group in device_groups(plan):
        stem = other_stem(scheme, group.id_prefix)
        yield f"{stem}{group.first + group.count:0{scheme.digits(group.first + group.count)}d}"


def parse_vertex(vertex: str) -> tuple[str, int, int, int]:
    """``(role, plane, island, index)`` of an engine vertex id, all 0-based (plane and island 0 for servers)."""
    switch = Wiring.parse(vertex)
    if switch is not None:
        return switch
    node = Wiring.parse_node(vertex)
    if node is None:
        raise InputError(_("unknown device {name}").format(name=vertex[:60]))
    return "server", 0, 0, node


class Namer:
    """Names the devices of one planned design under a ``NamingScheme``.

    counts : dict   Devices per role in one plane and island (``{"server": nodes, "leaf": ..., ...}``),
                    used for the padding.
    planes : int    Planes of the design; ``islands`` islands per plane.
    stems : dict    A switch role's word in names where it is not the role (a classic Dragonfly's ``leaf`` ->
                    ``router``: its family's export word, ``core.fabric.families.export_word``).
    """

    def __init__(self, scheme: NamingScheme, counts: dict[str, int], planes: int = 1, islands: int = 1,
                 stems: dict[str, str] | None = None):
        self.scheme = scheme
        self.planes = planes
        self.islands = islands
        self._digits = {role: scheme.digits(count) for role, count in counts.items()}
        self._stems = stems or {}

    @classmethod
    def of(cls, plan, scheme: NamingScheme | None = None, checked: bool = True) -> "Namer":
        """The namer of a ``core.plan.Plan`` (counts per plane and island, as ``fabric_graph`` names them).

        The scheme is checked against the plan first (``check_names``: no two devices share a name, no name is
        too long), so no export is written under a scheme that would merge two devices."""
        scheme = scheme or NamingScheme()
        if checked and scheme != NamingScheme():
            check_names(scheme, plan)
        from core.fabric.families import export_word

        wiring = Wiring.of(plan)
        counts = {"server": wiring.nodes, **{role: wiring.count(role) for role in wiring.roles}}
        stems = {role: export_word(wiring.family, role, role) for role in wiring.roles}
        return cls(scheme, counts, wiring.planes, wiring.islands, stems)

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
        return f"{self.scheme.switch_prefix}{where}{self._stems.get(tier, tier)}{index + 1:0{digits}d}"

    def pattern(self, role: str) -> str:
        """A regular expression (RE2 and Python, matched whole) of every name ``node`` or ``switch`` gives role
        ``role`` (``server`` or a switch tier) in any plane and island: ``gpu[0-9]{3,}``, ``p[0-9]+-leaf[0-9]{2,}``."""
        digits = self._digits.get(role, self.scheme.min_digits)
        if role == "server":
            return f"{re.escape(self.scheme.node_prefix)}[0-9]{{{digits},}}"
        where = ("p[0-9]+-" if self.planes > 1 else "") + ("r[0-9]+-" if self.islands > 1 else "")
        return f"{re.escape(self.scheme.switch_prefix)}{where}{re.escape(self._stems.get(role, role))}[0-9]{{{digits},}}"

    def logical(self, stem: str, index: int | None = None, digits: int = 0) -> str:
        """Name of a switch or block the Slurm exports make up (``LOGICAL_STEMS``): ``su`` + ``index`` (0-based)
        padded to ``digits`` (``su001``), or ``spines`` alone; after the switch prefix."""
        assert stem in LOGICAL_STEMS, stem
        number = "" if index is None else f"{index + 1:0{max(digits, 1)}d}"
        return f"{self.scheme.switch_prefix}{stem}{number}"

    def parse(self, name: str) -> str | None:
        """The engine vertex id of a switch name ``switch`` gives (``leaf001`` -> ``p0.leaf0``, ``p2-spine01`` ->
        ``p1.spine0``): the exports' rule read backwards, its digits at least the role's padding (``pattern``), its
        numbers 1-based; a role's stem or the role itself (a classic Dragonfly's ``router001`` and, in older links,
        ``leaf001``); None for another name (an engine id such as ``p0.leaf3`` or ``leaf3`` included)."""
        where = ("p([0-9]+)-" if self.planes > 1 else "()") + ("r([0-9]+)-" if self.islands > 1 else "()")
        for role, digits in self._digits.items():
            if role == "server":
                continue
            words = "|".join(re.escape(w) for w in dict.fromkeys((self._stems.get(role, role), role)))
            found = re.fullmatch(f"{re.escape(self.scheme.switch_prefix)}{where}(?:{words})([0-9]{{{digits},}})",
                                 name.strip(), re.IGNORECASE)
            if found is None:
                continue
            plane, island, index = (int(g or 1) - 1 for g in found.groups())
            if min(plane, island, index) < 0 or plane >= self.planes or island >= self.islands:
                return None
            return f"{plane_prefix(plane, island, self.islands)}{role}{index}"  # the wiring's id rule
        return None

    def canonical(self, text: str) -> str:
        """``text`` (a typed failure, a hot link) with each switch name ``parse`` reads under a role word its stem
        has replaced (a classic Dragonfly's older ``leaf001``) written as ``switch`` writes it (``router001``), after
        a tier word too (``leaf:leaf001`` -> ``leaf:router001``); the other words as typed."""
        old = {role: stem for role, stem in self._stems.items() if stem != role}

        def renamed(found: re.Match) -> str:
            tier, colon, name = found[0].rpartition(":")
            vertex = self.parse(name)
            role = parse_vertex(vertex)[0] if vertex is not None else None
            if role not in old or old[role].lower() in name.lower():
                return found[0]
            return tier + colon + self.vertex(vertex)

        return re.sub(r"[^\s>#]+(?<!-)", renamed, text) if old else text

    def parse_node(self, name: str) -> str | None:
        """The engine vertex id of a server name ``node`` gives (``gpu006`` -> ``node5``): its digits at least the
        servers' padding, 1-based; None for another name."""
        digits = self._digits.get("server", 3)
        found = re.fullmatch(f"{re.escape(self.scheme.node_prefix)}([0-9]{{{digits},}})", name.strip(), re.IGNORECASE)
        if found is None or int(found[1]) < 1:
            return None
        return Wiring.node_id(int(found[1]) - 1)

    def vertex(self, vertex: str) -> str:
        """Name of an engine vertex id (``node12``, ``p0.leaf3``, ``p1.i0.spine2``)."""
        role, plane, island, index = parse_vertex(vertex)
        if role == "server":
            return self.node(index)
        return self.switch(role, index, plane, island)
