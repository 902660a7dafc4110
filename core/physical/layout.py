"""Racks, rows and the hall: where every device of a design sits.

``place(resolved, fabric, networks, catalog) -> Layout``. The rules (following the DGX SuperPOD
reference architectures; constants and sources in ``assets/catalog/racks.toml``):

* **Compute racks.** A rack preset gives the power limit [kW] and height [U] (``Design.rack_preset``,
  ``rack_kw``, ``rack_units``; default the smallest preset that holds the system's default nodes per
  rack). Nodes per rack = the design's (or the system's) count, capped by ``floor(limit / node kW)``
  and ``floor(usable U / node U)`` (an explicit ``nodes_per_rack`` above that is capped, and
  ``Layout.notes`` says so); one node above the power limit is a ``DesignError``. An NVL72-class system fills one whole rack per NVLink domain (18 trays, switch
  trays and power shelves): its limit must hold the whole rack's power.
* **Scalable units in rows.** Each SU (the fabric's node group) is a block of racks: half its compute
  racks, its leaf rack(s) in the middle, the other half (the SuperPOD SU: 4 + 1 + 4 racks). Rows hold
  whole SUs up to ``hall.max_racks_per_row`` racks (an SU longer than that has a row to itself).
  Top-of-rack leaves sit in their group's first compute rack. A one-switch fabric has its switch in
  a network rack in the middle of the row.
* **Central rows.** Spine, core, management and storage racks (network rack preset) stand in rows in
  the middle of the hall, between the first and second half of the SU rows.
* **Dragonfly+ groups apart.** A Dragonfly+ (``core.fabric.dragonfly``: its groups are the wiring's pods) puts
  each group's racks together: its SUs' rows (a row never holds two groups), then a row of its own spines (every
  plane's); management and storage racks in the middle of the groups. The global links between groups are then
  long (rows apart) and their lengths and media follow (``core.physical.lengths``, ``core.physical.media``).
* **Floor.** Racks of a row side by side (their widths); rows face alternately, so the row pitch is
  rack depth + (hot + cold aisle) / 2; an end aisle at both ends of each row. Rows stand in columns
  of ``ceil(sqrt(rows x row span / pitch))`` rows, so a large hall is about square rather than one
  line of hundreds of rows (row span = longest row + 2 end aisles). Floor area [m^2] = (columns x row
  span) x (rows per column x pitch). ``Rack.x_m`` / ``y_m`` are the rack centre's coordinates.

Device ids are the wiring index's (``core.fabric.wiring.Wiring``, which also says which nodes and leaves
form each SU and which switch roles stand in the central rows): ``node12``, ``p0.leaf3``,
``p1.i0.spine2``, ``p0.core5``, and the other networks' (``core.networks``): ``storage.leaf0``,
``inband.spine0``, ``oob.switch0``, ``mgmt.head0``, ``mgmt.ufm0``, ``storage.array0``.
``Layout.position(device_id) -> Position(rack, row, u, height_u)``: the rack's name, its 0-based row,
the device's lowest U (1-based, counted from the bottom) and its height [U]. Racks are named
``R{row}-{position}``, both 1-based and zero-padded (``R01-05``). A rack holds ``slots``: runs of
identical devices stacked from ``first_u`` with consecutive ids (``prefix`` + index), so a layout of
131,072 GPUs is a few thousand racks and slots, not one object per device or per U.

**Repeating blocks.** ``arrange`` gives the ``Arrangement``: the racks of each distinct SU size once (a template
every SU of that size refers to with its first node and leaf), identical full central racks as one run
(``_Repeat``), rows as runs of them, and identical rows (whole SUs of one size, whole rows of one run of central
racks, a Dragonfly+ group's rows) held once with their copies (``core.physical.rowblocks.RowBlock``): no object per
rack, and no step per row or per SU. ``place`` returns its ``Layout``: the rack counts per
kind, the most power per rack, the rows and the hall come from the blocks (``Arrangement.counts``, ``max_kw``);
the cable lengths from their positions (``Arrangement.places``); the ``Rack`` and ``Row`` objects and the device
index are built only when read (a rack drawing, the cabling plan, an export: ``Arrangement.built``), the same in
every byte (``tests/test_physical_closed.py``, ``python -m tools.equivalence --physical``).

Power per rack counts devices at the catalog power the BOM uses (nodes at maximum, switches at
typical power without optics; pluggable optics add about 1-2% and are not counted here).
"""

from __future__ import annotations

import bisect
import math
import re
from typing import Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, PrivateAttr, model_serializer

from core.catalog import Catalog, Switch
from core.design import ResolvedDesign, ResolvedFields, resolved_of
from core.errors import DesignError, InputError
from core.fabric import domainlevels
from core.fabric.sizing import FabricPlan
from core.fabric.wiring import Wiring, wiring_of
from core.i18n import _
from core.memo import spoken, stage, text_bytes
from core.physical.racks import RackCatalog, RackPreset, load_racks
from core.physical.rowblocks import (RowBlock, central_blocks, copies, expanded, pack_sus, row_count, split,
                                     su_slice)

RackKind = Literal["compute", "network", "storage", "management"]
DeviceKind = Literal["node", "leaf", "spine", "core", "storage", "management", "nvl72", "nvswitch", "nvlink2"]

KIND_ORDER = ("compute", "network", "storage", "management")


class Slot(NamedTuple):
    """A run of ``count`` identical devices stacked from ``first_u`` up, ids ``prefix + (start .. start+count-1)``.

    (A named tuple, not a pydantic model: a layout of 131,072 GPUs holds thousands of them.)"""

    kind: str
    """node, nvl72, nvswitch (a first-level NVLink switch tray), leaf, spine, core, nvlink2 (a level-2 NVLink switch),
    storage or management."""
    model: str
    prefix: str
    start: int
    count: int
    first_u: int
    height_u: float
    watts_each: float

    @property
    def top_u(self) -> float:
        return self.first_u + self.count * self.height_u - 1

    def ids(self) -> list[str]:
        return [f"{self.prefix}{self.start + i}" for i in range(self.count)]


class Rack(NamedTuple):
    """One rack: its name, kind (compute, network, storage, management), place and what it holds."""

    name: str
    kind: str
    row: int
    """0-based row."""
    position: int
    """0-based position in its row."""
    u_total: int
    u_used: float
    kw: float
    kw_limit: float
    preset: str
    slots: tuple
    """``Slot``s, lowest first."""
    x_m: float
    """Centre of the rack along its row [m]."""
    y_m: float
    """Row line of the rack across the hall [m]."""

    def signature(self) -> tuple:
        """What makes two racks look the same in a drawing (kind, power, devices by kind and model)."""
        return (self.kind, round(self.kw, 1), tuple((s.kind, s.model, s.count, s.first_u) for s in self.slots))


class Row(BaseModel):
    model_config = ConfigDict(frozen=True)

    index: int
    kind: Literal["compute", "central"]
    racks: int
    length_m: float
    sus: tuple[int, int] = (0, 0)
    """First and last+1 scalable unit of a compute row."""


class Position(BaseModel):
    model_config = ConfigDict(frozen=True)

    rack: str
    row: int
    u: int
    height_u: float


_LAZY = ("racks", "rows", "index")
"""The ``Layout`` fields built from its ``Arrangement`` only when read (one object per rack and row)."""


class Layout(BaseModel):
    """Where every device sits; see the module docstring for the rules.

    ``place`` gives a layout whose racks, rows and device index (``_LAZY``) are built from its ``Arrangement`` on
    first read, so a plan that only counts racks, reads the hall or the power per rack (``counts``,
    ``max_kw_per_rack``, ``summary``) or the cable lengths (``core.physical.lengths``, from the arrangement's
    ``RackPlaces``) builds no object per rack; a drawing, the cabling plan or an export builds them when it reads
    them. Equality and serialisation (``model_dump``, ``model_dump_json``, a plan's) build them first (the same values
    either way)."""

    model_config = ConfigDict(frozen=True)

    preset: str
    power_limit_kw: float
    rack_units: int
    nodes_per_rack: int
    node_kw: float
    racks: tuple[Rack, ...]
    rows: tuple[Row, ...]
    row_pitch_m: float
    floor_area_m2: float
    hall_length_m: float
    hall_width_m: float
    notes: tuple[str, ...] = ()
    index: dict = {}
    """device prefix -> (sorted starts, slot refs (rack index, slot index)); built by ``place``."""
    _arrangement: object = PrivateAttr(default=None)
    """The ``Arrangement`` the lazy fields are built from (``None`` once built, or for a layout built whole)."""

    def __getattr__(self, item: str):
        if item in _LAZY:
            arrangement = (self.__pydantic_private__ or {}).get("_arrangement")
            if arrangement is not None:
                built = dict(zip(_LAZY, arrangement.built()))
                values = {**self.__dict__, **built}  # in field order, as a layout built whole holds them
                object.__setattr__(self, "__dict__", {name: values[name] for name in type(self).model_fields
                                                      if name in values})
                object.__setattr__(self, "__pydantic_fields_set__", self.__pydantic_fields_set__ | set(_LAZY))
                self.__pydantic_private__["_arrangement"] = None
                return self.__dict__[item]
        return super().__getattr__(item)

    def _whole(self) -> "Layout":
        """This layout with its lazy fields built (``_LAZY``)."""
        for item in _LAZY:
            getattr(self, item)
        return self

    @model_serializer(mode="wrap")
    def _serialize(self, handler):
        """Serialise the whole layout (its racks, rows and index built first), alone or within a plan."""
        return handler(self._whole())

    def __eq__(self, other) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in type(self).model_fields)

    __hash__ = None  # a layout holds a dict (its index): not hashable, as before

    def __repr_args__(self):
        return super(Layout, self._whole()).__repr_args__()

    @property
    def arrangement(self) -> "Arrangement | None":
        """The ``Arrangement`` this layout's racks are still to be built from (``None`` once they are built)."""
        return (self.__pydantic_private__ or {}).get("_arrangement")

    @property
    def row_count(self) -> int:
        """Rows of the hall (``len(rows)``, without building them)."""
        arrangement = self.arrangement
        return arrangement.row_count if arrangement is not None else len(self.rows)

    def counts(self) -> dict[str, int]:
        """Racks by kind (compute, network, storage, management) and ``total`` (from the arrangement's SU blocks
        when the racks are not built: ``Arrangement.counts``)."""
        arrangement = self.arrangement
        if arrangement is not None:
            return arrangement.counts()
        out = {kind: 0 for kind in KIND_ORDER}
        for rack in self.racks:
            out[rack.kind] += 1
        out["total"] = len(self.racks)
        return out

    @property
    def worst_rack(self) -> Rack:
        """The rack closest to its power limit (ties: the first)."""
        return max(self.racks, key=lambda r: (r.kw / r.kw_limit, -self.racks.index(r) if len(self.racks) < 50 else 0))

    @property
    def max_kw_per_rack(self) -> float:
        """The most power one rack draws [kW] (``Arrangement.max_kw`` when the racks are not built)."""
        arrangement = self.arrangement
        if arrangement is not None:
            return arrangement.max_kw()
        return max((r.kw for r in self.racks), default=0.0)

    def summary(self) -> dict:
        """``{compute, network, storage, management, total, max_kw_per_rack, rows, floor_area_m2}`` (JSON-ready)."""
        counts = self.counts()
        return {**counts, "max_kw_per_rack": round(self.max_kw_per_rack, 3), "rows": self.row_count,
                "floor_area_m2": round(self.floor_area_m2, 1), "power_limit_kw": self.power_limit_kw,
                "rack_preset": self.preset, "nodes_per_rack": self.nodes_per_rack}

    def slot_of(self, device_id: str) -> tuple[Rack, Slot, int]:
        """(rack, slot, offset in slot) of ``device_id``; ``InputError`` for an id the layout does not hold."""
        match = _ID.match(device_id)
        if match:
            prefix, number = match.group(1), int(match.group(2))
            entry = self.index.get(prefix)
            if entry:
                starts, refs = entry
                k = bisect.bisect_right(starts, number) - 1
                if k >= 0:
                    rack_i, slot_i = refs[k]
                    rack = self.racks[rack_i]
                    slot = rack.slots[slot_i]
                    if number < slot.start + slot.count:
                        return rack, slot, number - slot.start
        raise InputError(_("unknown device {name}").format(name=device_id[:60]))

    def position(self, device_id: str) -> Position:
        """Rack name, 0-based row, lowest U (1-based) and height [U] of ``device_id``."""
        rack, slot, offset = self.slot_of(device_id)
        return Position(rack=rack.name, row=rack.row, u=int(slot.first_u + offset * slot.height_u),
                        height_u=slot.height_u)

    def rack(self, name: str) -> Rack:
        for rack in self.racks:
            if rack.name == name:
                return rack
        raise InputError(_("unknown rack {name}").format(name=name[:40]))


_ID = re.compile(r"^(.*?)(\d+)$")


# ----------------------------------------------------------------------------------- helpers


def _watts(resolved: ResolvedDesign, entry_id: str, value: float) -> float:
    return resolved.power_overrides.get(entry_id, value)


def _nodes_per_domain(resolved: ResolvedDesign) -> int:
    """Nodes of one scale-up domain rack: whole first-level domains (NVL72: 18; NVL36 racks of a two-level
    domain: 9), or one of the whole racks of a system whose own domain spans several (CloudMatrix 384: 4 of 48
    nodes, 12 racks)."""
    per_domain = resolved.nvlink_level1_nodes
    system, per_rack = resolved.system, resolved.nodes_per_rack
    if system.nvlink_domain_gpus // system.gpus_per_node > system.nodes_per_rack and per_domain % per_rack == 0:
        return per_rack
    return per_domain


def _kw(value: float) -> str:
    from core.units import kw

    return kw(value)


def choose_preset(resolved: ResolvedDesign, racks: RackCatalog | None = None) -> RackPreset:
    """The design's compute rack preset: ``rack_preset``, else the smallest holding the default rack."""
    racks = racks or load_racks()
    design = resolved.design
    preset_id = getattr(design, "rack_preset", None)
    if preset_id:
        return racks.preset(preset_id)
    system = resolved.system
    node_kw = _watts(resolved, system.id, system.node_power_w) / 1000
    per_domain = _nodes_per_domain(resolved)
    wanted = per_domain if per_domain > 1 else resolved.nodes_per_rack
    need_kw = wanted * node_kw
    for preset in racks.compute_presets:
        if preset.power_kw + 1e-9 >= need_kw and (per_domain > 1 or preset.usable_u >= wanted * system.node_rack_units):
            return preset
    return racks.compute_presets[-1]


def how_many(capacity: float, each: float, most: int) -> int:
    """Whole items of size ``each`` that fit in ``capacity`` (same unit), at most ``most``: an item of
    no (or next to no) size, such as a 0 W power override, fits ``most`` times."""
    if each <= 0 or capacity / each >= most:
        return most
    return math.floor(capacity / each + 1e-9)


def compute_rack_fit(resolved: ResolvedDesign, racks: RackCatalog | None = None) -> tuple[RackPreset, float, int, int]:
    """(preset, power limit [kW], rack height [U], nodes per rack) of the compute racks.

    Raises ``DesignError`` when one node (or one NVL72 rack) draws more than the limit, or when an
    explicit ``nodes_per_rack`` exceeds what the power limit and rack units allow.
    """
    racks = racks or load_racks()
    design = resolved.design
    preset = choose_preset(resolved, racks)
    limit = getattr(design, "rack_kw", None) or preset.power_kw
    units = getattr(design, "rack_units", None) or preset.rack_units
    usable = max(1, units - min(preset.reserved_u, units - 1))
    system = resolved.system
    node_kw = _watts(resolved, system.id, system.node_power_w) / 1000
    per_domain = _nodes_per_domain(resolved)
    liquid = max(racks.compute_presets, key=lambda p: p.power_kw)
    if per_domain > 1:
        rack_kw = per_domain * node_kw
        liquid = next((p for p in racks.compute_presets if p.power_kw + 1e-9 >= rack_kw), liquid)
        if rack_kw > limit + 1e-9:
            raise DesignError(
                _("One {system} rack draws {rack_kw} kW, above the {limit} kW rack power limit.").format(
                    system=system.id, rack_kw=_kw(rack_kw), limit=_kw(limit)),
                _("Use the {preset} rack preset ({kw} kW) or raise the rack power limit.").format(
                    preset=liquid.id, kw=_kw(liquid.power_kw)))
        return preset, limit, units, per_domain
    by_power = how_many(limit, node_kw, 10**6)  # a 0 W power override: power never limits the rack
    by_units = math.floor(usable / system.node_rack_units + 1e-9)
    if by_power < 1:
        raise DesignError(
            _("One {system} node draws {node_kw} kW, above the {limit} kW rack power limit.").format(
                system=system.id, node_kw=_kw(node_kw), limit=_kw(limit)),
            _("Use a rack preset of at least {need} kW (e.g. {preset}) or raise the rack power limit.").format(
                need=_kw(node_kw), preset=next(p.id for p in racks.compute_presets if p.power_kw >= node_kw)
                if any(p.power_kw >= node_kw for p in racks.compute_presets) else liquid.id))
    if by_units < 1:
        raise DesignError(
            _("A {system} node is {node_u}U high; a {units}U rack has {usable}U for devices.").format(
                system=system.id, node_u=f"{system.node_rack_units:g}", units=units, usable=usable),
            _("Use taller racks (rack units) or another rack preset."))
    fits = min(by_power, by_units)
    return preset, limit, units, min(resolved.nodes_per_rack, fits)


# ----------------------------------------------------------------------------------- network devices


class NetDevice(BaseModel):
    """Devices of another network to place: ``count`` of them, ids ``prefix + 0..count-1``."""

    model_config = ConfigDict(frozen=True)

    prefix: str
    count: int
    height_u: float
    watts_each: float
    kind: Literal["storage", "management"]
    model: str = ""
    per_rack: bool = False
    """One in every rack (an out-of-band switch): placed in each rack's reserved top U, not in a central rack."""


def network_devices(networks) -> list[NetDevice]:
    """The devices of ``core.networks`` sizings to place (empty for ``None``).

    Reads ``networks.devices()`` when the sizing provides it (a list of ``NetDevice`` or of dicts
    with the same fields); otherwise nothing is placed for the other networks.
    """
    if networks is None:
        return []
    devices = getattr(networks, "devices", None)
    if not callable(devices):
        return []
    out = []
    for item in devices():
        out.append(item if isinstance(item, NetDevice) else NetDevice(**dict(item)))
    return out


# ----------------------------------------------------------------------------------- place


class _RackDraft:
    __slots__ = ("kind", "preset", "u_total", "usable", "kw_limit", "slots", "u_next", "kw", "width")

    def __init__(self, kind: str, preset: RackPreset, u_total: int, kw_limit: float):
        self.kind = kind
        self.preset = preset
        self.u_total = u_total
        self.usable = u_total - min(preset.reserved_u, u_total - 1)
        self.kw_limit = kw_limit
        self.slots: list[Slot] = []
        self.u_next = 1
        self.kw = 0.0
        self.width = preset.width_mm / 1000

    def room(self, height_u: float, watts: float) -> int:
        """How many more devices of this height and power fit."""
        by_u = how_many(self.usable - (self.u_next - 1), height_u, 10**9)
        by_kw = how_many((self.kw_limit - self.kw) * 1000, watts, 10**9)
        return max(0, min(by_u, by_kw))

    def __eq__(self, other) -> bool:
        """Equal drafts: the same rack, slots, units used and power (a cached stage's value compared afresh)."""
        if not isinstance(other, _RackDraft):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # a draft changes while it is filled

    def like(self, start: int) -> "_RackDraft":
        """A new rack holding what this one does, its one slot's devices numbered from ``start`` (the next of a run
        of identical racks: the same numbers as filling an empty rack alike, without its steps)."""
        twin = _RackDraft.__new__(_RackDraft)
        twin.kind, twin.preset, twin.u_total, twin.usable = self.kind, self.preset, self.u_total, self.usable
        twin.kw_limit, twin.u_next, twin.kw, twin.width = self.kw_limit, self.u_next, self.kw, self.width
        kind, model, prefix, _start, *rest = self.slots[0]
        twin.slots = [Slot(kind, model, prefix, start, *rest)]
        return twin

    def copy(self) -> "_RackDraft":
        """A rack holding what this one does, filled on without changing this one."""
        twin = _RackDraft.__new__(_RackDraft)
        for name in self.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.slots = list(self.slots)
        return twin

    def add(self, kind, model, prefix, start, count, height_u, watts):
        if count <= 0:
            return
        self.slots.append(Slot(kind, model, prefix, start, count, int(self.u_next), height_u, watts))
        self.u_next += count * height_u
        self.kw += count * watts / 1000


class _Repeat(NamedTuple):
    """``times`` racks like ``draft`` side by side, the k-th one's devices numbered ``k * step`` after the first's
    (a run of identical full racks, ``_fill``)."""

    draft: _RackDraft
    times: int
    step: int


def _fill(racks_out: list, new_rack, kind, model, prefix, start, count, height_u, watts, repeat: bool = False):
    """Put ``count`` devices into the open rack of ``racks_out`` and new ones as needed.

    Every new rack is the same empty rack: once one that took as many as an empty rack holds is full, the next
    ones are filled whole without asking each for its room (the same racks, in the same order); with ``repeat``
    all but the last of them are one ``_Repeat`` (the last, the open rack, stays a rack of its own). An empty rack's
    room is asked once, and a full rack's never again."""
    empty = 0  # devices a new rack takes
    filled = None  # the last new rack, when it took ``empty`` devices
    full = None  # the last rack, when it is known to be full (a full rack's like, or that rack)
    while count > 0:
        rack = racks_out[-1] if racks_out else None
        room = rack.room(height_u, watts) if rack is not None and rack is not full else 0
        if room <= 0 and rack is not None and rack is filled:  # a whole new rack is full: so is each next one
            whole = count // empty
            if repeat and whole > 1:
                racks_out.append(_Repeat(filled.like(start), whole - 1, empty))
                start += (whole - 1) * empty
                count -= (whole - 1) * empty
            while count >= empty:
                racks_out.append(filled.like(start))
                start += empty
                count -= empty
            filled, full = None, racks_out[-1]
            continue
        new = room <= 0
        if new:
            rack = new_rack()
            racks_out.append(rack)
            room = empty = empty or rack.room(height_u, watts)  # every new rack is the same empty rack
            if room <= 0:
                raise DesignError(
                    _("A {model} ({height}U, {kw} kW) does not fit in an empty {preset} rack.").format(
                        model=model, height=f"{height_u:g}", kw=_kw(watts / 1000), preset=rack.preset.id),
                    _("Use taller racks (rack units) or raise the rack power limit."))
        take = min(room, count)
        rack.add(kind, model, prefix, start, take, height_u, watts)
        filled = rack if new and take == empty else None
        start += take
        count -= take


def _switch(resolved: ResolvedDesign, tier: str) -> Switch:
    return resolved.tier_switches[tier]


def place(resolved: ResolvedDesign, fabric: FabricPlan, networks=None, catalog: Catalog | None = None,
          racks: RackCatalog | None = None) -> Layout:
    """Lay the design out in racks, rows and a hall (rules in the module docstring)."""
    return arrange(resolved, fabric, networks, racks).layout()


def devices_to_place(resolved: ResolvedDesign, networks) -> list[NetDevice]:
    """The other networks' devices to place (``network_devices``): none on a cloud instance's adapters (the storage
    and management networks are the provider's, not bought, as in the BOM)."""
    return [] if resolved.nic.transport else network_devices(networks)


def _group_runs(wiring: Wiring, su_count: int, su_runs: list, network_rack, models: dict, watts: dict) -> list:
    """The Dragonfly+ groups (the wiring's pods) as runs of groups that stand alike: ``(first SU, SUs per group,
    groups, spine racks, spine shift, spine step)``, the spine racks those of the run's first group (every plane's
    spines, ``spines_of_pod``, as ``(draft, times, step)``, filled once per number of spines and numbered ``spine
    shift`` later), the next group's spines ``spine step`` later. Groups stand alike when they are whole, their SUs
    within one run of SUs (``su_runs``) and their spines the same number, consecutive; empty for the folded Clos."""
    if not wiring.spines_with_pods:
        return []
    per = wiring.groups_per_pod
    bounds = []  # (first SU, last SU + 1) of each run of SUs
    for _key, _node, _leaf, count, _dn, _dl in su_runs:
        start = bounds[-1][1] if bounds else 0
        bounds.append((start, start + count))
    out = []
    filled: dict[int, tuple[int, list]] = {}  # spines per group -> (first spine, racks) of the first group so filled
    pod = 0
    while pod < wiring.pods:
        spines = wiring.spines_of_pod(pod)
        first, size = pod * per, min(per, su_count - pod * per)
        alike = 1
        if size == per and per > 0:
            stop = next((b for a, b in bounds if a <= first < b), first)
            alike = max(1, min(wiring.pods - pod, (stop - first) // per))
            last = wiring.spines_of_pod(pod + alike - 1)
            if len(last) != len(spines) or last.start != spines.start + (alike - 1) * len(spines):
                alike = 1  # pragma: no cover - a Dragonfly+ group's spines are consecutive, as many in each
        if len(spines) not in filled:
            racks: list = []
            for plane, island in wiring.plane_islands():
                _fill(racks, network_rack, "spine", models["spine"].id, wiring.prefix(plane, island) + "spine",
                      spines[0], len(spines), models["spine"].rack_units, watts["spine"], repeat=True)
            filled[len(spines)] = (spines[0], [_run_of(entry) for entry in racks])
        start, racks = filled[len(spines)]
        out.append((first, size, alike, racks, spines[0] - start if len(spines) else 0, len(spines)))
        pod += alike
    return out


def _run_of(entry) -> tuple:
    """``(draft, times, step)`` of a rack draft or a ``_Repeat`` of one."""
    return (entry.draft, entry.times, entry.step) if isinstance(entry, _Repeat) else (entry, 1, 0)


def _level2_racks(resolved: ResolvedDesign, network_rack) -> list[_RackDraft]:
    """Network racks of the level-2 NVLink switch units (``core.fabric.domainlevels``), domain by domain (ids
    ``nvl<d>.l2sw<k>``, ``level2_switch_ids``); none with one NVLink level. NVIDIA published no floor plan for the
    second level: standing them in the central rows is the planner's assumption (``assets/catalog/scaleup.toml``)."""
    spec = domainlevels.level2_for(resolved.system) if resolved.nvlink_rack_gpus else None
    drafts: list[_RackDraft] = []
    if spec is None:
        return drafts
    watts = _watts(resolved, spec.switch.id, spec.switch.power_w)
    for domain in domainlevels.scaleup_of(resolved).domains():
        _fill(drafts, network_rack, "nvlink2", spec.switch.id, f"nvl{domain.index}.l2sw", 0, domain.level2_switches,
              spec.switch.rack_units, watts, repeat=True)
    return drafts


def _central_racks(wiring: Wiring, network_rack, models: dict, watts: dict,
                   level2: list[_RackDraft] = ()) -> list[_RackDraft]:
    """The fabric's racks outside the SUs, in order: the switches of each role above the leaves (spines, then cores)
    of every plane and island, each role from a new rack (a Dragonfly+'s spines stand with their groups instead,
    ``_group_runs``), then the level-2 NVLink switch racks ``level2`` (``_level2_racks``); the other networks'
    devices follow them (``arrange_drafted``: ``device_racks``); ``models``: role -> catalog switch, ``watts``:
    role -> [W]."""
    central: list[_RackDraft] = []
    for role in wiring.roles[1:] if not wiring.spines_with_pods else ():
        central.extend(_role_racks(wiring, role, network_rack, models, watts))
    central.extend(level2)
    return central


def _role_racks(wiring: Wiring, role: str, network_rack, models: dict, watts: dict) -> list:
    """The central racks of the switches of ``role`` (spines or cores) of every plane and island, from a new rack
    (drafts and ``_Repeat``s; ``_central_racks``' arguments)."""
    role_racks: list[_RackDraft] = []
    for plane, island in wiring.plane_islands():
        _fill(role_racks, network_rack, role, models[role].id, wiring.prefix(plane, island) + role, 0,
              wiring.count(role), models[role].rack_units, watts[role], repeat=True)
    return role_racks


def central_role_rows(resolved: ResolvedDesign, fabric: FabricPlan, role: str, racks: RackCatalog | None = None
                      ) -> int:
    """At most how many rows hold the central racks of ``role`` (a folded Clos's spines or cores, not a
    Dragonfly+'s: ``Wiring.spines_with_pods``), 0 without them: ``_central_racks`` puts them in order, the first
    role above the leaves from the first central rack, each role from a new rack, and the central rows take at most
    ``max_racks_per_row`` racks each in that order (``core.physical.rowblocks.central_blocks``), so ``n`` racks of
    the first role fill ``ceil(n / max_row)`` rows, of a later one at most one more."""
    racks = racks or load_racks()
    wiring = wiring_of(fabric, resolved.nodes, resolved.nics_per_node)
    if wiring.spines_with_pods or role not in wiring.roles[1:]:
        return 0
    models = {r: _switch(resolved, r) for r in wiring.roles[1:]}
    watts = {r: _watts(resolved, sw.id, sw.power_w) for r, sw in models.items()}
    drafts = _role_racks(wiring, role, lambda: _network_rack(racks.network), models, watts)
    count = sum(d.times if isinstance(d, _Repeat) else 1 for d in drafts)
    max_row = racks.hall.max_racks_per_row
    return -(-count // max_row) + (0 if role == wiring.roles[1] else 1) if count else 0


def lowest_climb_u(resolved: ResolvedDesign, fabric: FabricPlan, role: str, compute_units: int,
                   racks: RackCatalog | None = None) -> float:
    """The least climb [U] from the U centre of a ``role`` switch (leaf, or a folded Clos's central spine or core)
    to the top of its rack (``core.physical.lengths``: a rack's top is its height): racks fill from U1
    (``_RackDraft``), so a rack of ``u`` [U] holding ``m`` devices ``h`` [U] high has its highest centre at
    ``(m - 1/2) h``. A central rack (``_central_racks``) and a leaf rack (``su_block``) are network racks holding at
    most their usable units of that role, a leaf rack at most its SU's leaves (``_su_runs``, every plane and
    island); top-of-rack leaves stand first in their group's compute rack (``compute_units`` [U] high), one per
    plane and island."""
    racks = racks or load_racks()
    wiring = wiring_of(fabric, resolved.nodes, resolved.nics_per_node)
    height = _switch(resolved, role).rack_units
    top, most = racks.network.rack_units, network_rack_holds(height, racks)
    if role == "leaf":
        planes = len(wiring.plane_islands())
        if wiring.tor:
            top, most = compute_units, planes
        else:
            most = min(most, max(per * planes for (_count, per), *_rest in _su_runs(wiring)))
    return max(height / 2, top - (most - 0.5) * height)


def network_rack_holds(height_u: float, racks: RackCatalog | None = None) -> int:
    """At most how many devices ``height_u`` [U] high an empty network rack holds (``_RackDraft.room`` by its
    usable units alone: power can only make it fewer)."""
    return _network_rack((racks or load_racks()).network).room(height_u, 0.0)


def su_row_leaves(wiring: Wiring, per_rack: int, max_row: int) -> int:
    """At most how many leaves (every plane and island) a row of SUs holds: rows hold whole SUs up to ``max_row``
    racks, an SU longer than that alone (``core.physical.rowblocks.pack_sus``); an SU (``_su_runs``: its nodes and
    its leaves per plane and island) takes at least its nodes' compute racks at ``per_rack`` nodes a rack, and,
    without top-of-rack leaves, a leaf rack of its own (``arrange_devices``: ``su_block``)."""
    planes = len(wiring.plane_islands())
    most = 0.0
    for (count, per), *_rest in _su_runs(wiring):
        leaves = per * planes
        racks = -(-count // max(1, per_rack)) + (0 if wiring.tor or not per else 1)
        most = max(most, leaves, leaves * max_row / max(1, racks))
    return math.floor(most)


DEVICE_KINDS = ("management", "storage")
"""The kinds of the other networks' devices in central racks, in the order their racks stand (``device_racks``)."""


def _kind_racks(kind: str, devices: tuple, network_rack) -> list:
    """The central racks of the other networks' devices ``devices`` of ``kind``, in order from a new rack (drafts
    and ``_Repeat``s)."""
    out: list = []
    for device in devices:
        _fill(out, network_rack, kind, device.model or device.prefix, device.prefix, 0, device.count, device.height_u,
              device.watts_each, repeat=True)
    return out


def _device_drafts_bytes(found: tuple) -> int:
    """Upper bound of the memory of one kind's central racks of the other networks' devices [bytes]: 1 kB and 512 B
    a draft or run (``tests/test_memo.py``)."""
    return 1024 + 512 * len(found)


def _device_key_bytes(key: tuple) -> int:
    """Upper bound of the memory of a ``kind_racks`` key [bytes]: 1 kB a device and 4 kB the rack preset
    (``tests/test_memo.py``)."""
    return 4096 + 1024 * len(key[1])


@stage(0.01, _device_drafts_bytes, key_sizeof=_device_key_bytes)
def kind_racks(kind: str, devices: tuple, preset: RackPreset) -> tuple:
    """``_kind_racks`` of the other networks' devices ``devices`` (``NetDevice``s) of ``kind`` in network racks of
    ``preset``, cached by these arguments (``core.memo.stage``): each kind's racks made once for an arrangement
    (``arrange_drafted``) and the counts of its racks (``device_rack_count``, ``core.plan.as_built``'s rounds), the
    storage racks, the same in every round, once for them all; read, never changed."""
    return tuple(_kind_racks(kind, devices, lambda: _network_rack(preset, kind)))


def device_racks(devices: tuple, preset: RackPreset) -> tuple:
    """The central racks of the other networks' devices ``devices`` (``NetDevice``s) not one per rack in network
    racks of ``preset``: each kind's (``kind_racks``), in the order of ``DEVICE_KINDS``, each kind from a new
    rack."""
    return tuple(draft for kind in DEVICE_KINDS
                 for draft in kind_racks(kind, tuple(d for d in devices if d.kind == kind and not d.per_rack),
                                         preset))


def device_rack_count(extra, racks: RackCatalog) -> int | None:
    """Racks the other networks' devices ``extra`` (``devices_to_place``) take in an arrangement
    (``arrange_devices``): its management and storage racks, the rest of its racks the same whatever ``extra``
    holds; None when a device goes one per rack (its racks then depend on the others)."""
    if any(device.per_rack for device in extra):
        return None
    return sum(draft.times if isinstance(draft, _Repeat) else 1 for draft in device_racks(tuple(extra), racks.network))


def _network_rack(preset: RackPreset, kind: str = "network") -> _RackDraft:
    """An empty network rack (``preset``, the rack catalog's network rack) holding racks of ``kind``."""
    return _RackDraft(kind, preset, preset.rack_units, preset.power_kw)


def _row_blocks(su_runs: list, templates: dict, central: list, max_row: int, groups: list) -> list[RowBlock]:
    """The rows in hall order as ``RowBlock``s (``core.physical.rowblocks``): compute rows of whole SUs (``su_runs``;
    at most ``max_row`` racks, a longer SU alone) and the central rows (``central``: rack drafts and ``_Repeat``
    runs) in the middle of the SU rows; with ``groups`` (Dragonfly+: ``_group_runs``) each group's SU rows then its
    spine rows, group by group, a run of groups alike one block, the central rows in the middle of the groups."""
    central_rows = central_blocks([_run_of(entry) for entry in central], max_row)
    if not groups:
        su_rows = pack_sus(su_runs, templates, max_row)
        before, after = split(su_rows, copies(su_rows) // 2 if central_rows else copies(su_rows))
        return before + central_rows + after
    blocks = []
    for first, size, alike, spine_racks, shift, spine_step in groups:
        group = pack_sus(su_slice(su_runs, first, first + size), templates, max_row, first)
        spine_rows = expanded(central_blocks(spine_racks, max_row, shift))
        rows = tuple(expanded(group))
        steps = ((0, 0),) * len(rows)
        if alike > 1:  # the groups of the run: within one run of SUs, their node and leaf steps that run's
            _key, _node, _leaf, _count, node_step, leaf_step = su_slice(su_runs, first, first + 1)[0]
            steps = ((size * node_step, size * leaf_step),) * len(rows)
        blocks.append(RowBlock(rows + tuple(spine_rows), alike, steps + ((spine_step, 0),) * len(spine_rows), size))
    before, after = split(blocks, copies(blocks) // 2 if central_rows else copies(blocks))
    return before + central_rows + after


def _row_racks(row: tuple) -> int:
    """Racks of a row of ``RowBlock.rows``."""
    return sum(len(drafts) * times for drafts, _n, _l, times, _dn, _dl in row[1])


def _row_width(row: tuple) -> float:
    """Length of a row of ``RowBlock.rows`` [m]: its racks' widths added rack by rack in row order (the same
    additions as the racks' x)."""
    return sum(d.width for drafts, _n, _l, times, _dn, _dl in row[1] for _t in range(times) for d in drafts)


def _runs_placed(blocks: list[RowBlock]) -> tuple[list, list, tuple]:
    """``(instances, singles, racks per row)`` of ``Arrangement``: where each run of SUs and of central racks of
    ``blocks`` starts, in rack order, and the racks of each block's rows; one step per block row and run."""
    instances: list[tuple] = []
    singles: list[tuple] = []
    per_row: list[tuple] = []
    offset = 0
    for block in blocks:
        racks = tuple(map(_row_racks, block.rows))
        span = sum(racks)  # racks of one copy of the block
        at = offset
        for (kind, runs, _sus, keys), (node_step, leaf_step) in zip(block.rows, block.steps):
            for (drafts, node, leaf, times, dn, dl), key in zip(runs, keys):
                if kind == "compute":
                    instances.append((key, at, node, leaf, times, len(drafts), dn, dl, block.times, span, node_step,
                                      leaf_step))
                else:
                    singles.append((at, drafts[0], node, times, dn, block.times, span, node_step))
                at += len(drafts) * times
        per_row.append((racks, block.times))
        offset += span * block.times
    return instances, singles, tuple(per_row)


NODE_KINDS = ("node", "nvl72")
"""Slot kinds that are compute nodes (a server, an NVLink rack's compute tray): what a compute rack's node count
and the floor plan's "nodes of" words count (``core.figures.racks.rack_devices``)."""


def _stack_nodes(computes: list, compute_rack, count: int, per_rack: int, node_u: float, node_w: float, trays: int,
                 nvl: bool, system_id: str) -> None:
    """Stack an SU's ``count`` nodes (numbered from 0) into the compute racks ``computes`` (its last rack the open
    one) and new ones from ``compute_rack()``: at most ``per_rack`` nodes of ``node_u`` [U] and ``node_w`` [W] a rack
    within its room and power; with ``trays`` (a rack-level first NVLink level's switch trays) those trays between a
    rack's halves; ``nvl``: the nodes are NVLink-rack trays (slot kind ``nvl72``) of system ``system_id``."""
    placed = 0
    while placed < count:
        if not computes or computes[-1].room(node_u, node_w) <= 0 or \
                sum(s.count for s in computes[-1].slots if s.kind in NODE_KINDS) >= per_rack:
            computes.append(compute_rack())
        rack = computes[-1]
        in_rack = sum(s.count for s in rack.slots if s.kind in NODE_KINDS)
        fresh, room = not rack.slots, rack.room(node_u, node_w)
        take = min(per_rack - in_rack, room, count - placed)
        if take <= 0:
            computes.append(compute_rack())
            continue
        if trays and not in_rack:  # a rack-level first level's NVLink switch trays, between its halves
            half = -(-take // 2)
            rack.add("nvl72", system_id, "node", placed, half, node_u, node_w)
            rack.add("nvswitch", f"{system_id} NVSwitch", "nvsw", placed, trays, 1, 0.0)  # power: the trays'
            # share is in the compute trays' (the system's node power is the rack's / its trays)
            placed, take = placed + half, take - half
        rack.add("nvl72" if nvl else "node", system_id, "node", placed, take, node_u, node_w)
        placed += take
        if fresh and not trays and take == min(per_rack, room) and (take >= per_rack or
                                                                     rack.room(node_u, node_w) <= 0):
            while count - placed >= take:  # an empty rack took what each does and is full: so is each next one
                computes.append(rack.like(placed))
                placed += take


def _su_drafts_bytes(drafts: tuple) -> int:
    """Upper bound of the memory of an SU's compute rack drafts [bytes]: 2 kB and 512 B a rack (measured at about
    120 B a rack, the rack preset and the names shared; ``tests/test_memo.py``)."""
    return 2048 + 512 * len(drafts)


@stage(0.02, _su_drafts_bytes)
def su_compute_racks(preset: RackPreset, units: int, limit: float, count: int, per_rack: int, node_u: float,
                     node_w: float, trays: int, nvl: bool, system_id: str) -> tuple[_RackDraft, ...]:
    """The compute racks of an SU of ``count`` nodes without a leaf in them (``arrange``), its first node numbered 0:
    racks of ``preset`` with ``units`` [U] usable up to ``limit`` [kW], the nodes stacked by ``_stack_nodes``;
    cached by these arguments (``core.memo.stage``: the candidates of a search whose SUs stand alike share them;
    the drafts are read, never changed, once arranged)."""
    computes: list[_RackDraft] = []
    _stack_nodes(computes, lambda: _RackDraft("compute", preset, units, limit), count, per_rack, node_u, node_w,
                 trays, nvl, system_id)
    return tuple(computes)


def _su_runs(wiring) -> list[tuple]:
    """The SUs (groups of the wiring, up to the first empty one) as runs ``(key, first node, first leaf, SUs,
    node step, leaf step)`` (``core.physical.rowblocks``), key (nodes, leaves per plane and island), first leaf 0
    without leaves. The Clos ``Wiring``'s groups (a Dragonfly's are its Clos's) in closed form, the same numbers as
    its ``nodes_of_group`` and ``leaves_of_group``: the whole SUs, then a partial one; another wiring's (a torus)
    asked group by group, runs of one key whose numbers step alike joined."""
    owner = getattr(wiring.nodes_of_group, "__self__", None)
    groups = max(1, wiring.groups)
    if type(owner) is Wiring and getattr(wiring.leaves_of_group, "__self__", None) is owner and owner.tiers > 1 \
            and owner.nodes_per_group > 0:
        per, size = owner.leaves_per_group if owner.links_per_node_leaf == 1 else 1, owner.nodes_per_group
        full = min(groups, owner.nodes // size)  # whole SUs
        step = 1 if owner.tor else owner.leaves_per_group
        out = [((size, per), 0, 0, full, size, step if per else 0)] if full else []
        rest = owner.nodes - full * size
        if full < groups and rest > 0:
            out.append(((rest, per), full * size, full * step if per else 0, 1, 0, 0))
        return out
    out: list[list] = []
    for g in range(groups):
        su_nodes, su_leaves = wiring.nodes_of_group(g), wiring.leaves_of_group(g)
        if len(su_nodes) <= 0:
            break
        key, node, leaf = (len(su_nodes), len(su_leaves)), su_nodes.start, su_leaves[0] if su_leaves else 0
        last = out[-1] if out else None
        if last is not None and last[0] == key and (last[3] == 1 or (node, leaf) == (
                last[1] + last[3] * last[4], last[2] + last[3] * last[5])):
            if last[3] == 1:
                last[4], last[5] = node - last[1], leaf - last[2]
            last[3] += 1
        else:
            out.append([key, node, leaf, 1, 0, 0])
    return [tuple(run) for run in out]


def arrange(resolved: ResolvedDesign, fabric: FabricPlan, networks=None, racks: RackCatalog | None = None
            ) -> "Arrangement":
    """The rack arrangement ``place`` turns into a ``Layout``: the racks of each distinct SU size once, the
    rows as references to them with each SU's device numbers (``Arrangement``)."""
    return arrange_devices(resolved, fabric, devices_to_place(resolved, networks), racks or load_racks())


class Drafts(NamedTuple):
    """An arrangement's racks before the other networks' devices join them and the rows are packed
    (``draft_racks``): the compute racks' preset, power limit [kW], usable units [U], nodes per rack and node power
    [W]; the SU templates (key -> rack drafts) and the runs of SUs (``_su_runs``); the fabric's central racks
    (``_central_racks``: drafts and ``_Repeat``s); a Dragonfly+'s runs of groups (``_group_runs``); the notes."""

    preset: RackPreset
    limit: float
    units: int
    per_rack: int
    node_w: float
    templates: dict
    su_runs: list
    central: tuple
    groups: list
    notes: tuple

    def counts(self) -> tuple[int, int]:
        """``(compute racks, other racks)`` these drafts build (``Arrangement.counts``, without the other networks'
        devices): each SU template's racks times its SUs, each central run's racks and each run of Dragonfly+ groups'
        spine racks times its groups."""
        sus: dict[tuple, int] = {}
        for key, _node, _leaf, count, _dn, _dl in self.su_runs:
            sus[key] = sus.get(key, 0) + count
        runs = [(draft, count) for key, count in sus.items() for draft in self.templates[key]]
        runs += [(draft, times) for draft, times, _step in map(_run_of, self.central)]
        runs += [(draft, times * alike) for _first, _size, alike, spines, *_rest in self.groups
                 for draft, times, _step in spines]
        compute = sum(times for draft, times in runs if draft.kind == "compute")
        return compute, sum(times for _draft, times in runs) - compute


def _drafts_bytes(drafts: Drafts) -> int:
    """Upper bound of the memory of an arrangement's drafts [bytes]: 4 kB (the rack preset), 256 B a template rack
    and 512 B a central run, run of SUs or of groups, and the notes (measured at 3.3-10.2 kB, at most 0.76 of this,
    over ``tools.equivalence``'s physical grid; ``tests/test_memo.py``)."""
    return (4096 + 256 * sum(map(len, drafts.templates.values()))
            + 512 * (len(drafts.central) + len(drafts.su_runs) + sum(1 + len(g[3]) for g in drafts.groups))
            + text_bytes(drafts.notes))


@stage(0.04, _drafts_bytes)
def drafted_racks(resolved: ResolvedFields, fabric: FabricPlan, racks: RackCatalog, language: str) -> Drafts:
    """``draft_racks`` of the resolved design of ``resolved`` (``core.design.resolved_of``), its notes in
    ``language``; cached by these arguments (``core.memo.stage``): an arrangement's racks before the other networks'
    devices join them, shared by the arrangements of every sizing of those networks (``core.plan.as_built``'s rounds
    count their racks from it, ``core.plan.built_networks``) and read, never changed."""
    with spoken(language):
        return draft_racks(resolved_of(resolved), fabric, racks)


def arrange_devices(resolved: ResolvedDesign, fabric: FabricPlan, extra: list, racks: RackCatalog) -> "Arrangement":
    """``arrange`` with the other networks' devices to place ``extra`` (``devices_to_place``): ``arrange_drafted``
    of the design's ``draft_racks``."""
    return arrange_drafted(draft_racks(resolved, fabric, racks), extra, racks)


def su_templates(resolved: ResolvedDesign, fabric: FabricPlan, racks: RackCatalog) -> tuple[dict, list]:
    """(templates, SU runs) of ``arrange``'s SUs, from the design and its sized fabric alone (the other networks'
    devices and the central racks never stand in an SU's racks): per SU size, (nodes, leaves per plane and island),
    the racks of one SU (``_RackDraft``s, its first node and leaf numbered 0: each SU refers to them with its own
    first node and leaf), and the runs of SUs (``_su_runs``)."""
    preset, limit, units, per_rack = compute_rack_fit(resolved, racks)
    system = resolved.system
    node_w = _watts(resolved, system.id, system.node_power_w)
    per_domain = _nodes_per_domain(resolved)
    nvl = per_domain > 1
    whole = nvl and per_domain == resolved.nvlink_domain_gpus // resolved.gpus_per_node  # the domain is one rack
    node_u = units / per_domain if whole else system.node_rack_units  # an NVL72 tray's share of its rack
    wiring = wiring_of(fabric, resolved.nodes, resolved.nics_per_node)
    leaf_sw = _switch(resolved, "leaf")
    leaf_w = _watts(resolved, leaf_sw.id, leaf_sw.power_w)
    trays = domainlevels.level1_trays(resolved)  # ids nvsw<first node + t> (domainlevels.level1_tray_id)

    def compute_rack():
        return _RackDraft("compute", preset, units, limit)

    def su_block(count: int, n_leaves: int) -> list[_RackDraft]:
        """The racks of one SU of ``count`` nodes and ``n_leaves`` leaves per plane and island."""
        computes: list[_RackDraft] = []
        if wiring.tor:
            # the group's leaves (one per plane and island) go into its first compute rack
            rack = compute_rack()
            computes.append(rack)
            for plane, island in wiring.plane_islands():
                _fill(computes, compute_rack, "leaf", leaf_sw.id, wiring.prefix(plane, island) + "leaf", 0, 1,
                      leaf_sw.rack_units, leaf_w)
        if wiring.tor:
            _stack_nodes(computes, compute_rack, count, per_rack, node_u, node_w, trays, nvl, system.id)
        else:  # an SU's compute racks without a leaf: shared by every arrangement of that rack geometry
            computes = list(su_compute_racks(preset, units, limit, count, per_rack, node_u, node_w, trays, nvl,
                                             system.id))
        leaf_racks: list[_RackDraft] = []
        if not wiring.tor:
            for plane, island in wiring.plane_islands():
                _fill(leaf_racks, lambda: _network_rack(racks.network), "leaf", leaf_sw.id,
                      wiring.prefix(plane, island) + "leaf", 0, n_leaves, leaf_sw.rack_units, leaf_w)
        left = (len(computes) + 1) // 2
        return computes[:left] + leaf_racks + computes[left:]

    # SUs of the same size have the same racks: one block per size, referred to with each SU's device numbers
    su_runs = _su_runs(wiring)  # runs of SUs: their template, first node, first leaf, SUs, steps
    return {key: su_block(*key) for key in dict.fromkeys(run[0] for run in su_runs)}, su_runs


def su_places(resolved: ResolvedDesign, fabric: FabricPlan, prefixes: tuple[str, ...], racks: RackCatalog
              ) -> "RackPlaces":
    """The ``RackPlaces`` of the SUs alone (``su_templates``: their templates, with the slots of ``prefixes``, and
    their runs, each at rack 0; no rows, no central racks): what ``core.physical.lengths`` reads of an arrangement's
    SUs per template (the node-leaf links), before any arrangement."""
    templates, su_runs = su_templates(resolved, fabric, racks)
    return RackPlaces(row_span=0.0, end_aisle=0.0, pitch=0.0, per_column=1, rows=(), singles=(),
                      instances=tuple((key, 0, node, leaf, count, len(templates[key]), dn, dl, 1, 0, 0, 0)
                                      for key, node, leaf, count, dn, dl in su_runs),
                      templates=tuple((key, tuple(_placed_rack(d, prefixes) for d in drafts))
                                      for key, drafts in templates.items()))


def draft_racks(resolved: ResolvedDesign, fabric: FabricPlan, racks: RackCatalog) -> Drafts:
    """The racks of ``arrange`` but the other networks' devices, not yet in rows (``Drafts``): the SUs'
    (``su_templates``), the fabric's central racks and a Dragonfly+'s groups."""
    preset, limit, units, per_rack = compute_rack_fit(resolved, racks)
    net_preset = racks.network
    node_w = _watts(resolved, resolved.system.id, resolved.system.node_power_w)
    nvl = _nodes_per_domain(resolved) > 1
    wiring = wiring_of(fabric, resolved.nodes, resolved.nics_per_node)
    models = {role: _switch(resolved, role) for role in ("leaf", "spine", "core")}
    watts = {role: _watts(resolved, sw.id, sw.power_w) for role, sw in models.items()}
    notes: list[str] = []
    wanted = resolved.nodes_per_rack
    if not nvl and wanted > per_rack:
        notes.append(_("{wanted} nodes per rack do not fit a {preset} rack ({limit} kW, {units}U): {fits} per rack "
                       "placed.").format(wanted=wanted, preset=preset.id, limit=_kw(limit), units=units, fits=per_rack))
    if resolved.nic.transport:  # the storage and management networks are the provider's (``devices_to_place``)
        notes.append(_("The storage and management networks are the cloud provider's: none of their racks is drawn; "
                       "the network racks hold the stand-in Clos the collective model and the cable lengths use, "
                       "which is not bought either."))

    def network_rack(kind="network"):
        return _network_rack(net_preset, kind)

    templates, su_runs = su_templates(resolved, fabric, racks)
    central = _central_racks(wiring, network_rack, models, watts, _level2_racks(resolved, network_rack))
    groups = _group_runs(wiring, sum(run[3] for run in su_runs), su_runs, network_rack, models, watts)
    return Drafts(preset=preset, limit=limit, units=units, per_rack=per_rack, node_w=node_w, templates=templates,
                  su_runs=su_runs, central=tuple(central), groups=groups, notes=tuple(notes))


def arrange_drafted(drafts: Drafts, extra: list, racks: RackCatalog) -> "Arrangement":
    """The ``Arrangement`` of ``drafts`` (``draft_racks``') with the other networks' devices
    ``extra`` (``devices_to_place``): those not one per rack in central racks after the fabric's (``device_racks``),
    the rows packed and stood in the hall. ``drafts`` is read, never changed."""
    preset, net_preset = drafts.preset, racks.network

    def network_rack(kind="network"):
        return _network_rack(net_preset, kind)

    central = [*drafts.central, *device_racks(tuple(extra), net_preset)]
    per_rack_devices = [d for d in extra if d.per_rack]
    # rows: whole SU blocks up to the row length; central rows in the middle (Dragonfly+: group by group)
    blocks = _row_blocks(drafts.su_runs, drafts.templates, central, racks.hall.max_racks_per_row, drafts.groups)
    instances, singles, per_row = _runs_placed(blocks)

    # out-of-band (per-rack) devices: one per rack in the rack's reserved top U, in rack order
    total = sum(sum(counts) * times for counts, times in per_row)
    for device in per_rack_devices:  # placed in ``Arrangement.layout``
        if device.count > total:
            if central:  # the open rack is the drafts' (or the cached device racks'): filled as a copy
                central[-1] = central[-1].copy()
            for rest in range(total, device.count):  # more than racks: stack them in a management rack
                _fill(central, lambda: network_rack("management"), device.kind, device.model or device.prefix,
                      device.prefix, rest, 1, device.height_u, device.watts_each)

    depth = max(preset.depth_mm, net_preset.depth_mm) / 1000
    pitch = depth + (racks.hall.hot_aisle_mm + racks.hall.cold_aisle_mm) / 2000
    end_aisle = racks.hall.end_aisle_mm / 1000
    # rows side by side in columns so the hall is about square: rows_per_column x pitch ~ columns x row length
    row_span = max((_row_width(row) for block in blocks for row in block.rows), default=0.0) + 2 * end_aisle
    per_column = rows_per_column(row_count(blocks), row_span, pitch)
    return Arrangement(preset=preset.id, power_limit_kw=drafts.limit, rack_units=drafts.units,
                       nodes_per_rack=drafts.per_rack, node_kw=drafts.node_w / 1000, rows=tuple(blocks),
                       racks_per_row=per_row, templates=drafts.templates, instances=instances,
                       singles=singles, per_rack=tuple(per_rack_devices), pitch=pitch,
                       end_aisle=end_aisle, row_span=row_span, per_column=per_column, notes=drafts.notes)


def rows_per_column(rows: int, row_span: float, pitch: float) -> int:
    """Rows stood side by side in one column of the hall, so the hall is about square (rows per column x ``pitch``
    ~ columns x ``row_span``): ``ceil(sqrt(rows x row_span / pitch))``, at least 1 and at most ``rows``.

    Parameters
    ----------
    rows : int
        Rows of racks in the hall.
    row_span : float
        The longest row plus both end aisles [m].
    pitch : float
        Distance between the centres of neighbouring rows [m] (rack depth plus half of both aisles).
    """
    if not rows:
        return 1
    return min(max(1, math.ceil(math.sqrt(rows * row_span / pitch))), rows)


def _slot_table(found: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One prefix's slots of ``RackPlaces.arrays`` (``found``: per group of slots its starts, racks' indices, first U
    and height [U] as arrays) as arrays (starts, rack indices, first U, height [U]) ordered by start, ties in
    ``found``'s order."""
    starts, racks_, first, height = (np.concatenate(column) if len(found) > 1 else column[0]
                                     for column in zip(*found))
    order = np.argsort(starts, kind="stable")  # by device number, as Layout.index
    return starts[order], racks_[order], first[order], height[order]


class RackPlaces(NamedTuple):
    """Where an ``Arrangement``'s racks stand and where some of its devices sit (``Arrangement.places``), as frozen
    values: the hall geometry [m] (row span, end aisle, row pitch, rows per column), the racks per row (per block of
    rows, ``RowBlock``: its rows' racks and copies), per run of SUs its template's key, first rack, node and leaf,
    SUs and their steps, copies and their steps (``Arrangement.instances``), of each template rack its height [U],
    width [m] and the slots of the devices asked for (leaf or not, prefix, first number, first U, height [U]), and
    of each run of central racks its first rack, the same of its rack, its device number shift, racks and step,
    copies and their steps; every rack is an SU's or a central one. Arrangements that differ elsewhere (device
    models, power) give equal places, and so one cable-length computation; the places of a large hall are as few
    values as its distinct blocks."""

    row_span: float
    end_aisle: float
    pitch: float
    per_column: int
    rows: tuple
    instances: tuple
    templates: tuple
    singles: tuple

    def _rack_rows(self) -> np.ndarray:
        """Racks of each row, in hall order (``rows`` expanded: one number a row, hundreds at 131,072 GPUs, listed
        at once rather than an array made per block)."""
        return np.array([racks for counts, times in self.rows for _copy in range(times) for racks in counts],
                        dtype=np.int64)

    def _su_racks(self) -> dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per SU template key: (first rack, first node, first leaf) of each of its SUs, as arrays."""
        found: dict[tuple, list] = {}
        for key, rack0, node0, leaf0, count, rack_step, dn, dl, times, rack_d, node_d, leaf_d in self.instances:
            i, t = np.arange(count, dtype=np.int64), np.arange(times, dtype=np.int64)[:, None]
            found.setdefault(key, []).append(((rack0 + i * rack_step + t * rack_d).ravel(),
                                              (node0 + i * dn + t * node_d).ravel(), (leaf0 + i * dl + t * leaf_d).ravel()))
        return {key: tuple(np.concatenate(column) for column in zip(*parts)) for key, parts in found.items()}

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """What ``core.physical.lengths`` reads of the layout, the same numbers ``Arrangement.layout()`` gives: per
        rack in rack order its centre x [m], row line y [m], height [U] and row, and for each device prefix its
        slots as arrays (starts, rack indices, first U, height [U]) ordered by start (the out-of-band devices are
        not among them). Vectorised over the racks that share a template (a template's racks at once) and the runs
        of central racks (all runs at once)."""
        templates = dict(self.templates)
        counts = self._rack_rows()
        width = np.full(int(counts.sum()), math.nan)
        height_u = width.copy()
        sus = self._su_racks()
        parts: dict[str, list] = {}  # prefix -> (starts, racks, first U, height) arrays per group of its slots
        for key, (at, node_shift, leaf_shift) in sus.items():  # the SUs of one size at once
            drafts = templates[key]
            where = (at[:, None] + np.arange(len(drafts), dtype=np.int64)).ravel()
            width[where] = np.tile(np.array([w for _u, w, _s in drafts], dtype=float), len(at))
            height_u[where] = np.tile(np.array([u for u, _w, _s in drafts], dtype=float), len(at))
            by_prefix: dict[str, list] = {}  # prefix -> its slots in the template, rack by rack: (rack, slot)
            for k, (_u, _w, slots) in enumerate(drafts):
                for slot in slots:
                    by_prefix.setdefault(slot[1], []).append((k, slot))
            for prefix, found in by_prefix.items():  # every SU's slots of the prefix, slot by slot, SU by SU
                k, leaf, start, first_u, height = (np.array(column) for column in zip(
                    *((k, s[0], s[2], s[3], s[4]) for k, s in found)))
                shift = np.where(leaf[:, None], leaf_shift[None, :], node_shift[None, :])
                parts.setdefault(prefix, []).append(((start[:, None] + shift).ravel(), (k[:, None] + at).ravel(),
                                                     np.repeat(first_u.astype(float), len(at)),
                                                     np.repeat(height.astype(float), len(at))))
        if self.singles:
            racks_at, shifts = self._central_all()
            sizes = np.array(self._single_sizes, dtype=np.int64)
            run_shift = np.array([shift for _r, _d, shift, *_rest in self.singles], dtype=np.int64)
            width[racks_at] = np.repeat(np.array([w for _r, (_u, w, _s), *_rest in self.singles], dtype=float), sizes)
            height_u[racks_at] = np.repeat(np.array([u for _r, (u, _w, _s), *_rest in self.singles], dtype=float),
                                           sizes)
            self._central_slots(parts, racks_at, shifts, sizes, run_shift)
        if np.isnan(width).any():  # pragma: no cover - arrange places every rack in an SU or centrally
            raise AssertionError("a rack is neither an SU's nor a central one")
        xs, ys, rows = self._positions(counts, width)
        return xs, ys, height_u, rows, {prefix: _slot_table(found) for prefix, found in parts.items()}

    def _central_slots(self, parts: dict, racks_at: np.ndarray, shifts: np.ndarray, sizes: np.ndarray,
                       run_shift: np.ndarray) -> None:
        """``arrays``' slots of the central racks, added to ``parts`` (prefix -> its groups of slots): of each prefix,
        every run's racks, run by run; every prefix's at once (each slot of a run repeated on the run's racks, then
        ordered by prefix, stably) rather than prefix by prefix, so the steps do not grow with the planes and
        islands (``racks_at``, ``shifts``: ``_central_all``'s; ``sizes``: racks of each run; ``run_shift``: each
        run's device number shift)."""
        entries = [(i, prefix, leaf, start, first_u, height)
                   for i, (_r, (_u, _w, slots), *_rest) in enumerate(self.singles)
                   for leaf, prefix, start, first_u, height in slots]
        if not entries:
            return
        names = {prefix: k for k, prefix in enumerate(dict.fromkeys(e[1] for e in entries))}  # first seen, first
        run, which, leaf, start = (np.array(column, dtype=np.int64) for column in zip(
            *((i, names[prefix], leaf, start) for i, prefix, leaf, start, _f, _h in entries)))
        first_u = np.array([e[4] for e in entries], dtype=float)
        height = np.array([e[5] for e in entries], dtype=float)
        first = np.cumsum(sizes) - sizes  # each run's first rack among racks_at
        n = sizes[run]
        at = np.repeat(first[run], n) + (np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n))
        moved = np.repeat(start, n) + (np.repeat(run_shift[run], n) + shifts[at])
        found = np.where(np.repeat(leaf, n) != 0, np.repeat(start, n), moved)
        of = np.repeat(which, n)
        order = np.argsort(of, kind="stable")  # prefix by prefix, each in run order
        columns = (found[order], racks_at[at[order]], np.repeat(first_u, n)[order], np.repeat(height, n)[order])
        bounds = np.cumsum(np.bincount(of, minlength=len(names))).tolist()
        for k, prefix in enumerate(names):
            low, high = bounds[k - 1] if k else 0, bounds[k]
            parts.setdefault(prefix, []).append(tuple(column[low:high] for column in columns))

    @property
    def _single_sizes(self) -> list[int]:
        """Racks of each run of central racks, every copy's (``singles``)."""
        return [times * copies for _r, _d, _s, times, _st, copies, _rd, _sd in self.singles]

    def _central_all(self) -> tuple[np.ndarray, np.ndarray]:
        """``_central`` of every run of central racks (``singles``) one after the other, all at once: (rack index,
        device number shift) of each of their racks, copy by copy within a run."""
        rack0, _rack, _shift, times, step, copies, rack_d, shift_d = (
            np.array(column, dtype=np.int64) if i not in (1, 2) else None for i, column in enumerate(zip(*self.singles)))
        sizes = times * copies
        first = np.cumsum(sizes) - sizes
        j = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(first, sizes)  # the rack's place in its run
        per = np.repeat(times, sizes)
        t, k = np.divmod(j, per)
        return (np.repeat(rack0, sizes) + k + t * np.repeat(rack_d, sizes),
                k * np.repeat(step, sizes) + t * np.repeat(shift_d, sizes))

    def _positions(self, counts: np.ndarray, width: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(centre x [m], row line y [m], row) of every rack from the racks per row ``counts`` and their widths [m],
        with the additions of ``Arrangement.built``: x0 + (running sum of the widths before it in its row) + half
        its width, the running sums row by row (``np.cumsum`` adds one by one; rows of one length at once)."""
        rows = np.repeat(np.arange(len(counts)), counts)
        columns, lines = np.divmod(rows, self.per_column)
        before = np.zeros(len(width))
        firsts = np.cumsum(counts) - counts
        for length in np.unique(counts).tolist():
            if length > 1:
                at = firsts[counts == length][:, None] + np.arange(length - 1)
                before[at + 1] = np.cumsum(width[at], axis=1)
        xs = (columns * self.row_span + self.end_aisle) + before + width / 2
        return xs, lines * self.pitch, rows


def _placed_rack(draft: "_RackDraft", prefixes: tuple[str, ...]) -> tuple:
    """A rack draft as ``RackPlaces`` holds it: its height [U], width [m] and the slots of the devices of
    ``prefixes`` (leaf or not, prefix, first number, first U, height [U])."""
    return (draft.u_total, draft.width, tuple((s.kind == "leaf", s.prefix, s.start, s.first_u, s.height_u)
                                              for s in draft.slots if s.prefix.startswith(prefixes)))


class Arrangement(NamedTuple):
    """Racks in rows before they become a ``Layout``, as repeating blocks: the rows as ``RowBlock``s
    (``core.physical.rowblocks``: rows held once with their copies; each row a list of runs, an SU template's drafts
    with its SUs' first node and leaf, the drafts shared by every SU of its size, their node and leaf slots
    numbered from 0, or a central row's drafts), and the out-of-band devices that go one per rack in rack order.
    The rack counts, the most power per rack (``counts``, ``max_kw``) and the hall come from the blocks;
    ``layout()`` gives the ``Layout`` (its racks built when read: ``built``); ``places()`` only the rack positions
    and device tables the cable lengths read (``core.physical.lengths``), without one Python object per rack or
    per row."""

    preset: str
    power_limit_kw: float
    rack_units: int
    nodes_per_rack: int
    node_kw: float
    rows: tuple
    """The rows in hall order as ``RowBlock``s."""
    racks_per_row: tuple
    """Per block, (racks of each of its rows, copies)."""
    templates: dict
    """(SU nodes, leaves per plane and island) -> the SU's drafts, its first node and leaf numbered 0."""
    instances: list
    """Per run of SUs of a block's row: (its template's key, index of its first rack, its first node, its first leaf,
    SUs, racks, node and leaf steps from one SU to the next, copies of the block, racks, node and leaf steps from one
    copy to the next), in rack order of the first copies."""
    singles: list
    """Per run of central racks of a block's row: (first rack index, draft, device number shift, racks, step,
    copies of the block, racks and device number steps from one copy to the next)."""
    per_rack: tuple
    """``NetDevice``s placed one per rack (rack i takes number i) in each rack's reserved top U."""
    pitch: float
    end_aisle: float
    row_span: float
    per_column: int
    notes: tuple

    def places(self, prefixes: tuple[str, ...]) -> "RackPlaces":
        """Where the racks stand and where the devices of ``prefixes`` sit in them (``RackPlaces``): all
        ``RackPlaces.arrays`` reads, so the cable lengths can be cached by it (``core.physical.lengths``)."""
        return RackPlaces(
            row_span=self.row_span, end_aisle=self.end_aisle, pitch=self.pitch, per_column=self.per_column,
            rows=self.racks_per_row, instances=tuple(self.instances),
            templates=tuple((key, tuple(_placed_rack(d, prefixes) for d in drafts))
                            for key, drafts in self.templates.items()),
            singles=tuple((rack_i, _placed_rack(draft, prefixes), *rest) for rack_i, draft, *rest in self.singles))

    def rack_arrays(self, prefixes: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """``RackPlaces.arrays`` of ``places(prefixes)``: the rack positions and device tables of ``prefixes``."""
        return self.places(prefixes).arrays()

    @property
    def row_count(self) -> int:
        """Rows of the hall."""
        return row_count(self.rows)

    @property
    def total_racks(self) -> int:
        """Racks of the hall."""
        return sum(sum(counts) * times for counts, times in self.racks_per_row)

    def layout(self) -> Layout:
        """The ``Layout``: its hall numbers now, its racks, rows and device index when first read (``built``)."""
        rows, pitch, per_column = self.row_count, self.pitch, self.per_column
        columns = math.ceil(rows / per_column) if rows else 1
        hall_length = columns * self.row_span
        hall_width = min(rows, per_column) * pitch
        layout = Layout.model_construct(
            preset=self.preset, power_limit_kw=self.power_limit_kw, rack_units=self.rack_units,
            nodes_per_rack=self.nodes_per_rack, node_kw=self.node_kw, row_pitch_m=pitch,
            floor_area_m2=hall_length * hall_width, hall_length_m=hall_length, hall_width_m=hall_width,
            notes=self.notes)
        for item in _LAZY:  # built on first read (Layout.__getattr__)
            layout.__dict__.pop(item, None)
        layout.__pydantic_private__["_arrangement"] = self
        return layout

    def _rack_kw(self, draft: "_RackDraft", rack_i: int, per_rack: list) -> float:
        """Power of rack ``rack_i`` made from ``draft`` [kW]: its devices' and the out-of-band devices it takes
        (``per_rack``: (device, racks that take one)), added in the order ``built`` adds them."""
        kw = draft.kw
        for device, count in per_rack:
            if rack_i < count:
                kw += device.watts_each / 1000
        return kw

    def _drafts(self):
        """(draft, first rack index of that draft) of every distinct rack draft: a template's rack at its first SU,
        each run of central racks' at its first; with the out-of-band devices (taken by the first racks) the first
        rack of a draft has its most power."""
        first: dict[tuple, int] = {}
        for key, rack_i, *_rest in self.instances:
            first.setdefault(key, rack_i)  # runs in rack order of their first copies
        for key, rack_i in first.items():
            for k, draft in enumerate(self.templates[key]):
                yield draft, rack_i + k
        yield from ((draft, rack_i) for rack_i, draft, *_rest in self.singles)

    def counts(self) -> dict[str, int]:
        """Racks by kind and ``total`` (``Layout.counts``), per SU template times its SUs plus the central racks."""
        out = {kind: 0 for kind in KIND_ORDER}
        sus: dict[tuple, int] = {}
        for key, _rack, _node, _leaf, count, _r, _dn, _dl, times, *_steps in self.instances:
            sus[key] = sus.get(key, 0) + count * times
        for key, times in sus.items():
            for draft in self.templates[key]:
                out[draft.kind] += times
        for _rack_i, draft, _shift, racks, _step, times, *_steps in self.singles:
            out[draft.kind] += racks * times
        out["total"] = sum(out[kind] for kind in KIND_ORDER)
        return out

    def max_kw(self) -> float:
        """The most power one rack draws [kW] (``Layout.max_kw_per_rack``), over the distinct racks (``_drafts``)."""
        total = self.total_racks
        per_rack = [(device, min(device.count, total)) for device in self.per_rack]
        return max((self._rack_kw(draft, rack_i, per_rack) for draft, rack_i in self._drafts()), default=0.0)

    def built(self) -> tuple[tuple[Rack, ...], tuple[Row, ...], dict]:
        """(racks, rows, device index) of the ``Layout``: one ``Rack`` per rack, one ``Row`` per row."""
        pitch, row_span, end_aisle, per_column = self.pitch, self.row_span, self.end_aisle, self.per_column
        digits_row = max(2, len(str(self.row_count)))
        digits_pos = max(2, len(str(max((n for counts, _t in self.racks_per_row for n in counts), default=1))))
        total = self.total_racks
        per_rack = [(device, min(device.count, total)) for device in self.per_rack]
        out: list[Rack] = []
        rows: list[Row] = []
        index: dict[str, list] = {}
        for row_i, (kind, runs, sus, _keys) in enumerate(expanded(self.rows)):
            column, line = divmod(row_i, per_column)
            x0 = column * row_span + end_aisle
            x = 0.0
            first_rack = len(out)
            for pos, (draft, node_shift, leaf_shift) in enumerate(
                    (d, n + t * dn, lf + t * dl) for drafts, n, lf, times, dn, dl in runs for t in range(times)
                    for d in drafts):
                rack_i = len(out)
                if node_shift or leaf_shift:
                    slots = [Slot(s.kind, s.model, s.prefix, s.start + (leaf_shift if s.kind == "leaf" else node_shift),
                                  s.count, s.first_u, s.height_u, s.watts_each) for s in draft.slots]
                else:
                    slots = list(draft.slots)
                kw = draft.kw
                for device, count in per_rack:
                    if rack_i < count:
                        slots.append(Slot(device.kind, device.model or device.prefix, device.prefix, rack_i, 1,
                                          int(draft.u_total - device.height_u + 1), device.height_u,
                                          device.watts_each))
                        kw += device.watts_each / 1000
                name = f"R{row_i + 1:0{digits_row}d}-{pos + 1:0{digits_pos}d}"
                used = sum(s.count * s.height_u for s in slots)
                rack = Rack(name, draft.kind, row_i, pos, draft.u_total, used, kw, draft.kw_limit, draft.preset.id,
                            tuple(slots), x0 + x + draft.width / 2, line * pitch)
                x += draft.width
                out.append(rack)
                for slot_i, slot in enumerate(slots):
                    index.setdefault(slot.prefix, []).append((slot.start, rack_i, slot_i))
            rows.append(Row(index=row_i, kind=kind, racks=len(out) - first_rack, length_m=x, sus=sus))
        built = {}
        for prefix, entries in index.items():
            entries.sort()
            built[prefix] = ([e[0] for e in entries], [(e[1], e[2]) for e in entries])
        return tuple(out), tuple(rows), built
