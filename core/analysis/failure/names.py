"""The exports' names of the failure what-if's elements, both ways (every family without pods).

The failure-spec language names an element by the wiring's 0-based ids (``p0.leaf3``, ``node5.nic2``,
``p0.leaf3-spine1#2``, ``rack3.feedA``). The exports (Slurm, NetBox, the cabling plan, GraphML, draw.io) name the
same devices by ``core.fabric.naming.Namer`` (``leaf004``, ``gpu006``, ``p2-spine01``, ``r2-leaf001``: 1-based,
padded), their racks by the layout (``R02-04``, ``core.physical``), an NVLink domain by the Slurm block export's
``nvl001`` and its trays and level-2 units by ``core.fabric.domainlevels.level2_device_name`` (``nvl001-nvsw2``,
``nvd001-l2sw007``). An element is named from its devices' export names, its own part 1-based after a space, as the
load analysis's hot links name a server's NIC (``core.formats.linknames``); a chip of a domain of several nodes is
named within the switch tray that holds it (``Shape.chips_of_tray``: ``rack1.nvswitch4``, the fifth chip, is the
first of tray 3), so a chip and its tray read as one device's parts::

    p0.leaf3               -> leaf004                 node5.nic2        -> gpu006 nic3
    p1                     -> plane 2                 node5.nvswitch1   -> gpu006 nvswitch2
    p0.leaf3-spine1        -> leaf004 -> spine002     node5.mesh3-6     -> gpu006 mesh4-7
    p0.leaf3-spine1#2      -> leaf004 -> spine002 #3  rack1.nvswitch4   -> nvl002-nvsw3 nvswitch1
    p0.spine3-spine17      -> spine004 -> spine018    nvl1.nvswitch-tray2 -> nvl002-nvsw3
    node5-node6#1          -> gpu006 -> gpu007 #2     domain0.l2switch5 -> nvd001-l2sw006
    rack3                  -> R02-05                  rack3.feedA       -> R02-05 feedA

A failure rack (``Shape``'s: ``nodes_per_rack`` consecutive nodes) takes its layout rack's name when that rack holds
exactly those nodes; otherwise (a top-of-rack design whose layout splits a ToR's nodes over two racks) it keeps its
id, which ``name`` then returns unchanged. ``parse`` reads every name ``name`` writes back to the id (case-insensitive;
None for a text that is no export name: an id passes through the spec language as before).
"""

from __future__ import annotations

import re
from functools import cached_property

from core.fabric.naming import Namer
from core.fabric.wiring import Wiring

_PART = re.compile(r"^(?P<device>\S+)\s+(?P<part>nic|nvswitch|mesh|feed)\s*(?P<a>\d{1,9}|[ab])(?:-(?P<b>\d{1,9}))?$",
                   re.IGNORECASE)
"""An export name's part after a space: ``gpu006 nic3``, ``gpu006 mesh4-7``, ``R02-05 feedA``."""
_ID_PART = re.compile(r"^(?P<device>[a-z]+\d+)\.(?P<part>nic|nvswitch|mesh|feed)(?P<a>\d+|[ab])(?:-(?P<b>\d+))?$")
"""The same part in an element id: ``node5.nic2``, ``rack3.feedA`` (lower-cased)."""
_PLANE = re.compile(r"^plane\s*(\d{1,9})$", re.IGNORECASE)
_LINK = re.compile(r"^(?P<a>\S+)\s*->\s*(?P<b>[^\s#]+)(?:\s*#\s*(?P<cable>\d{1,9}))?$")
_TRAY = re.compile(r"^(rack|nvl)(\d+)\.nvswitch-tray(\d+)$")
_LEVEL2 = re.compile(r"^domain(\d+)\.l2switch(\d+)$")
_LEVEL2_CABLE = "-domain"
"""What joins a level-2 NVLink cable's two ends as the SPOF analysis names it: a first-level tray (``_TRAY``) or
server (``Wiring.node_id``), then the level-2 unit it reaches (``_LEVEL2``): ``rack0.nvswitch-tray0-domain0.l2switch0``."""
_DOMAIN_EXPORT = re.compile(r"^(?:nvl)(\d{1,9})(?:-nvsw(\d{1,9}))?$", re.IGNORECASE)
_LEVEL2_EXPORT = re.compile(r"^nvd(\d{1,9})-l2sw(\d{1,9})$", re.IGNORECASE)


def _rack_index(plan, rack) -> int | None:
    """The failure rack (``Shape``'s: ``nodes_per_rack`` consecutive nodes) that layout rack ``rack`` holds exactly,
    or None (it holds no nodes, or nodes of two failure racks, or part of one)."""
    spans = sorted((s.start, s.start + s.count) for s in rack.slots  # its servers' slots (an NVL72's trays too)
                   if s.count and Wiring.parse_node(f"{s.prefix}{s.start}") is not None)
    if not spans or any(a[1] != b[0] for a, b in zip(spans, spans[1:])):
        return None
    first, end = spans[0][0], spans[-1][1]
    resolved = plan.resolved
    per = max(1, resolved.nodes_per_rack)
    k = first // per
    return k if first == k * per and end == min(resolved.nodes, first + per) else None


def rack_name(plan, k: int) -> str | None:
    """The layout's name of failure rack ``k`` of ``plan`` (module docstring), None where the layout's rack does not
    hold exactly that rack's nodes or the plan has no layout."""
    layout = getattr(plan, "layout", None)
    if layout is None or not 0 <= k < -(-plan.resolved.nodes // max(1, plan.resolved.nodes_per_rack)):
        return None
    from core.errors import InputError

    try:
        rack, _slot, _offset = layout.slot_of(Wiring.node_id(k * max(1, plan.resolved.nodes_per_rack)))
    except InputError:
        return None
    return rack.name if _rack_index(plan, rack) == k else None


def rack_of_name(plan, name: str) -> int | None:
    """The failure rack the layout's rack ``name`` (any case) is (``rack_name``'s inverse); None for another name."""
    layout = getattr(plan, "layout", None)
    if layout is None:
        return None
    folded = name.casefold()
    rack = next((r for r in layout.racks if r.name.casefold() == folded), None)
    return None if rack is None else _rack_index(plan, rack)


def arrowed(name: str) -> str:
    """An export name as a chip shows it: a link's ``->`` drawn as the arrow the page's captions draw it (their
    Markdown turns ``->`` into ``\u2192``), so a failed link reads ``gpu001 \u2192 gpu003`` in its chip and in the
    lists under it; ``ElementNames.parse`` reads either back."""
    return name.replace(" -> ", " \u2192 ")


class ElementNames:
    """The export names of one plan's failure elements (module docstring): ``name(element id)``, ``parse(name)``,
    ``shown(element id)`` (the export name with the id in brackets)."""

    def __init__(self, plan, scheme=None):
        from core.fabric.naming import NamingScheme

        self.plan = plan
        self.scheme = scheme or NamingScheme()
        self.namer = Namer.of(plan, self.scheme, checked=False)
        self.wiring = Wiring.of(plan)
        resolved = plan.resolved
        self.domains = -(-resolved.nodes // max(1, resolved.nvlink_level1_nodes))

    # --- id -> export name -------------------------------------------------------------------------------------
    def device(self, device: str) -> str | None:
        """Export name of a device id: a server, a switch, a failure rack (when the layout names it); None else."""
        if Wiring.parse(device) is not None or Wiring.parse_node(device) is not None:
            return self.namer.vertex(device)
        if device.startswith("rack") and device[4:].isdigit():
            return rack_name(self.plan, int(device[4:]))
        return None

    def device_name(self, device: str) -> str:
        """The name people see of a device id a rack holds (the charts' labels and hovers, as the exports and the
        single points name it): ``name``'s (``node1`` -> ``gpu002``, ``p0.leaf0`` -> ``leaf001``, the NVLink trays
        and level-2 switches), else the other networks' as NetBox and the cabling plan name them
        (``core.physical.cabling.other_name``: ``storage.array9`` -> ``storage-array010``); the id itself when it
        has none."""
        from core.physical.cabling import other_name

        named = self.name(device)
        if named != device:
            return named
        counts = self._network_counts
        return other_name(device, self.scheme, counts) if device.rstrip("0123456789") in counts else device

    @cached_property
    def _network_counts(self) -> dict[str, int]:
        """Devices per id prefix of the plan's other networks (``core.physical.cabling.network_device_counts``)."""
        from core.physical.cabling import network_device_counts

        return network_device_counts(self.plan)

    def domain(self, d: int) -> str:
        """The Slurm block export's name of first-level NVLink domain ``d`` (``nvl001``)."""
        return self.namer.logical("nvl", d, self.scheme.digits(self.domains))

    def name(self, element: str) -> str:
        """The export name of element id ``element`` (module docstring); the id itself when it has none."""
        text = element.strip().lower()
        if re.fullmatch(r"p\d+", text):
            return f"plane {int(text[1:]) + 1}"
        found = _TRAY.match(text)
        if found:
            return self._tray(int(found[2]), int(found[3])) or element
        lower, joined, upper = text.rpartition(_LEVEL2_CABLE)
        if joined and (_TRAY.match(lower) or Wiring.parse_node(lower) is not None) and _LEVEL2.match("domain" + upper):
            return self._level2_cable(lower, _LEVEL2.match("domain" + upper)) or element
        found = _LEVEL2.match(text)
        if found:
            from core.fabric.domainlevels import level2_device_name

            return level2_device_name(f"nvl{found[1]}.l2sw{found[2]}", self.plan.resolved, self.scheme)
        found = _ID_PART.match(text)
        if found:
            return self._part(found) or element
        stem, hash_, cable = text.partition("#")
        first, dash, second = stem.partition("-")
        if dash:
            return self._bundle(first, second, cable if hash_ else None) or element
        return self.device(text) or element

    def _tray(self, d: int, t: int) -> str | None:
        from core.fabric.domainlevels import level1_tray_id, level2_device_name

        if d >= self.domains:
            return None
        return level2_device_name(level1_tray_id(d * self.plan.resolved.nvlink_level1_nodes, t), self.plan.resolved,
                                  self.scheme)

    def _level2_cable(self, lower: str, unit) -> str | None:
        """The cabling plan's name of a level-2 NVLink cable (``core.physical.cabling.nvlink_links``, the one rule of
        its ends and ports): ``nvl001-nvsw1 osfp1 -> nvd001-l2sw001 osfp1``, its first cable between those two ends;
        None when they are not cabled."""
        from core.fabric.domainlevels import level1_tray_id
        from core.physical.cabling import nvlink_links

        tray = _TRAY.match(lower)
        if tray is not None:
            lower = level1_tray_id(int(tray[2]) * self.plan.resolved.nvlink_level1_nodes, int(tray[3]))
        upper = f"nvl{int(unit[1])}.l2sw{int(unit[2])}"
        row = next((row for row in nvlink_links(self.plan, self.scheme) if row[1] == lower and row[4] == upper), None)
        return None if row is None else f"{row[2]} {row[3]} -> {row[5]} {row[6]}"

    @cached_property
    def _chips_per_tray(self) -> int:
        """NVSwitch chips per switch tray of a domain of several nodes (``Shape.chips_of_tray``)."""
        from core.analysis.failure.shape import Shape

        return len(Shape.build(self.plan).chips_of_tray(0)) or 1

    def _part(self, found) -> str | None:
        head, part, a, b = found["device"], found["part"], found["a"], found["b"]
        if part == "nvswitch" and not head.startswith("node"):  # a multi-node domain's chip: within its tray
            index = head.lstrip("racknvl")
            tray, chip = divmod(int(a), self._chips_per_tray)
            device = self._tray(int(index), tray) if index.isdigit() else None
            return None if device is None else f"{device} nvswitch{chip + 1}"
        device = self.device(head)
        if device is None:
            return None
        if part == "feed":
            return f"{device} feed{a.upper()}"
        return f"{device} {part}{int(a) + 1}" + ("" if b is None else f"-{int(b) + 1}")

    def _bundle(self, first: str, second: str, cable: str | None) -> str | None:
        lower = self.device(first)
        parsed = Wiring.parse(first)
        if parsed is not None:
            role, plane, island, _k = parsed
            found = re.fullmatch(r"([a-z]+)(\d+)", second)
            upper = None if found is None else self.namer.switch(found[1], int(found[2]), plane, island)
        else:
            upper = self.device(second)
        if lower is None or upper is None or (cable is not None and not cable.isdigit()):
            return None
        return f"{lower} -> {upper}" + ("" if cable is None else f" #{int(cable) + 1}")

    def shown(self, element: str) -> str:
        """``name`` with the id in brackets where they differ: ``gpu006 nic3 (node5.nic2)``."""
        name = self.name(element)
        return element if name == element else f"{name} ({element})"

    # --- export name -> id -------------------------------------------------------------------------------------
    def parse_device(self, text: str) -> str | None:
        """The id of a device's export name (a switch, a server, a named rack); None for another text."""
        text = text.strip()
        found = self.namer.parse(text) or self.namer.parse_node(text)
        if found is not None:
            return found
        k = rack_of_name(self.plan, text)  # the layout's R02-05
        return None if k is None else f"rack{k}"

    def parse(self, text: str) -> str | None:
        """The element id of an export name ``name`` writes (module docstring); None for a text that is none."""
        text = " ".join(str(text).replace("\u2192", "->").split())  # a caption's Markdown draws -> as an arrow
        found = _PLANE.match(text)
        if found and 1 <= int(found[1]) <= self.wiring.planes:
            return f"p{int(found[1]) - 1}"
        found = _LINK.match(text)
        if found:
            return self._parse_bundle(found)
        found = _PART.match(text)
        if found:
            return self._parse_part(found)
        found = _LEVEL2_EXPORT.match(text.removeprefix(self.scheme.switch_prefix))
        if found and int(found[1]) >= 1 and int(found[2]) >= 1:
            return f"domain{int(found[1]) - 1}.l2switch{int(found[2]) - 1}"
        found = _DOMAIN_EXPORT.match(self._unprefixed(text))
        if found and found[2] and int(found[1]) >= 1 and int(found[2]) >= 1:
            return f"nvl{int(found[1]) - 1}.nvswitch-tray{int(found[2]) - 1}" if self._nvl_head() == "nvl" else \
                f"rack{int(found[1]) - 1}.nvswitch-tray{int(found[2]) - 1}"
        return self.parse_device(text)

    def _unprefixed(self, text: str) -> str:
        """``text`` without the scheme's switch prefix (any case), as a domain's name carries it (a pod's
        ``pod2-nvl001``: ``core.formats.podslurm.pod_scheme``)."""
        prefix = self.scheme.switch_prefix
        return text[len(prefix):] if prefix and text.lower().startswith(prefix.lower()) else text

    def _nvl_head(self) -> str:
        """How the spec language names a multi-node NVLink domain: ``rack`` when a domain is a rack, else ``nvl``."""
        r = self.plan.resolved
        return "rack" if max(1, r.nodes_per_rack) == r.nvlink_level1_nodes else "nvl"

    def _parse_part(self, found) -> str | None:
        head, part, a, b = found["device"], found["part"].lower(), found["a"].lower(), found["b"]
        if part == "feed":
            rack = self.parse_device(head)
            return None if rack is None or not rack.startswith("rack") or a not in "ab" else f"{rack}.feed{a.upper()}"
        if not a.isdigit() or int(a) < 1 or (b is not None and int(b) < 1):
            return None
        domain = _DOMAIN_EXPORT.match(self._unprefixed(head))
        if part == "nvswitch" and domain and domain[2]:  # a chip within its tray (``_part``)
            per = self._chips_per_tray
            if int(domain[1]) < 1 or int(domain[2]) < 1 or int(a) > per:
                return None
            return f"{self._nvl_head()}{int(domain[1]) - 1}.nvswitch{(int(domain[2]) - 1) * per + int(a) - 1}"
        device = self.parse_device(head)
        if device is None or Wiring.parse_node(device) is None:
            return None
        return f"{device}.{part}{int(a) - 1}" + ("" if b is None else f"-{int(b) - 1}")

    def _parse_bundle(self, found) -> str | None:
        a, b = self.parse_device(found["a"]), self.parse_device(found["b"])
        cable = found["cable"]
        if a is None or b is None or (cable is not None and int(cable) < 1):
            return None
        tail = "" if cable is None else f"#{int(cable) - 1}"
        if Wiring.parse_node(a) is not None and Wiring.parse_node(b) is not None:  # a torus's neighbours
            return f"{a}-{b}{tail}"
        x, y = Wiring.parse(a), Wiring.parse(b)
        if x is None or y is None:
            return None
        from core.fabric.wiring import ROLES

        if (ROLES.index(x[0]), x[3]) > (ROLES.index(y[0]), y[3]):  # the lower switch first, as the ids write it
            a, x, y = b, y, x
        return f"{a}-{y[0]}{y[3]}{tail}"


def element_names(plan, scheme=None) -> ElementNames | None:
    """The ``ElementNames`` of ``plan`` under ``scheme`` (a ``core.fabric.naming.NamingScheme``; None: the default
    names, which the failure what-if reads); None for a design with pods (their ids alone,
    ``core.analysis.podwhatif``)."""
    if getattr(plan.design, "pods", None):
        return None
    return ElementNames(plan, scheme)
