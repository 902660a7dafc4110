"""The design: what the user asks for, as a frozen, validated pydantic model.

A ``Design`` holds only the user's choices; ``None`` means "take the default
from the catalog" (e.g. the GPU system's NIC count). ``resolve_design`` turns
it into a ``ResolvedDesign`` where every value is concrete and checked against
the catalog.

Numbers are strict: a whole-number field takes an ``int`` only and a number field
an ``int`` or ``float`` (never ``True``, never ``"4"``), so a design file's
``{"nodes": true}`` is an error rather than 1 node. Price overrides are
0 to ``MAX_PRICE_OVERRIDE_USD`` per unit and power overrides 0 to
``MAX_POWER_OVERRIDE_W`` per unit, so every result stays finite; their ids are
checked against the catalog and canonicalised by ``resolve_design`` (one rule for
design files, CLI flags and share links).

Languages: field values (``topology``, ``fabric``, ``tiers``, ``cable_media``) are ids and stay
English; ``core.vocab`` names every id set for display (``vocab.FABRIC.label(fabric)``). Error
messages and ``ResolvedDesign.notes`` are in the language of the request (``core.i18n``), so
anything that caches a resolved design keys it by ``core.i18n.current()`` too (``core.plan`` does).
"""

from __future__ import annotations

import functools
import json
import math
import re
import typing
from dataclasses import dataclass, field as dataclass_field
from typing import Annotated, Any, Callable, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from core import hostlink, scaleup, vocab
from core.catalog import Catalog, DesignPriceBasis, Nic, Switch, System, load_catalog
from core.errors import DesignError, GpuLimitError, InputError, shown
from core.i18n import N_, _, ngettext
from core.memo import FrozenDict, view
from core.units import span
from core.spares import canonical_setting
from core.text import hidden, visible

Topology = Literal[vocab.TOPOLOGY.ids]
"""``Design.topology``: the ids of ``core.vocab.TOPOLOGY`` (a new topology family adds its term there)."""
PlaneMode = Literal["per-port", "per-rail"]
FabricKind = Literal["infiniband", "ethernet"]
Tiers = Literal["auto", 1, 2, 3]
CableMedia = Literal["auto", "copper", "aoc", "optics", "smf"]
StorageFabric = Literal["auto", "infiniband", "ethernet", "none"]
"""``Design.storage``: the storage fabric's kind (``auto`` = the compute fabric's) or none."""

MAX_GPUS = 1_000_000
"""Most GPUs of a design: the one size limit. A node count's limit follows from it (``most_nodes``), checked
with the GPUs per node where they are known (``gpu_limit_problem``: link, sidebar, design file, CLI)."""
MAX_NICS_PER_NODE = 32
"""Most scale-out NICs per node (an AWS p5.48xlarge has 32 EFA interfaces)."""
MAX_NAME_CHARS = 80
"""Longest design name [characters]."""
MAX_DESIGN_FILE_BYTES = 1_000_000
"""Largest design file (and design JSON text) read: 1 MB; a design is a few hundred bytes."""
MAX_JSON_DEPTH = 20
"""Deepest nesting of arrays and objects a design JSON may have (a design needs 2)."""
DESIGN_FILE_VERSION = 1
"""Format version of a design file (the ``version`` key of ``Design.to_json``): an integer, raised only when
a file's meaning changes (a field renamed or read differently). Version 1 holds every ``Design`` field,
defaults included (``null`` = the catalog's default for the chosen system, resolved when planned).
Files without ``version`` (exports before version 1, hand-written files) are read as version 1; a
newer version than this is refused with a message (``design_file_fields``)."""
VERSION_FIELD = "version"
MAX_PRICE_OVERRIDE_USD = 1e9
"""Largest price override [USD per unit]."""
MAX_POWER_OVERRIDE_W = 1e7
"""Largest power override [W per unit]."""
OVERRIDE_LIMITS = {"USD": MAX_PRICE_OVERRIDE_USD, "W": MAX_POWER_OVERRIDE_W}
"""Largest override per unit (``"USD"`` for prices, ``"W"`` for power)."""



def most_nodes(gpus_per_node: int, rack_nodes: int = 1) -> int:
    """The most nodes of ``gpus_per_node`` GPUs a design may have (``MAX_GPUS`` GPUs in all), in whole NVLink racks
    of ``rack_nodes`` nodes (a count of nodes is rounded up to them)."""
    return MAX_GPUS // (max(1, gpus_per_node) * max(1, rack_nodes)) * max(1, rack_nodes)


def gpu_limit_problem(nodes: int, gpus_per_node: int, rack_nodes: int = 1) -> tuple[str, str] | None:
    """Why ``nodes`` nodes of ``gpus_per_node`` GPUs, rounded up to whole NVLink racks of ``rack_nodes`` nodes, are
    too many (more than ``MAX_GPUS`` GPUs) and the way out, the largest node count that fits (``most_nodes``):
    ``("1,000,000 nodes of 8 GPUs are 8,000,000 GPUs, over the limit of 1,000,000 GPUs", "plan at most 125,000 nodes
    (1,000,000 GPUs)")``; None when they fit."""
    rack_nodes = max(1, rack_nodes)
    whole = -(-nodes // rack_nodes) * rack_nodes
    gpus = whole * gpus_per_node
    if gpus <= MAX_GPUS:
        return None
    fit = most_nodes(gpus_per_node, rack_nodes)
    values = dict(nodes=f"{nodes:,}", whole=f"{whole:,}", rack=rack_nodes, gpn=gpus_per_node, gpus=f"{gpus:,}",
                  most=f"{MAX_GPUS:,}")
    problem = (ngettext("{nodes} nodes of {gpn} GPU are {gpus} GPUs, over the limit of {most} GPUs",
                        "{nodes} nodes of {gpn} GPUs are {gpus} GPUs, over the limit of {most} GPUs",
                        gpus_per_node) if whole == nodes else
               ngettext("{nodes} nodes ({whole} in racks of {rack}) of {gpn} GPU are {gpus} GPUs, over the limit of "
                        "{most} GPUs",
                        "{nodes} nodes ({whole} in racks of {rack}) of {gpn} GPUs are {gpus} GPUs, over the limit of "
                        "{most} GPUs", gpus_per_node))
    return (problem.format(**values),
            _("plan at most {nodes} nodes ({gpus} GPUs)").format(nodes=f"{fit:,}", gpus=f"{fit * gpus_per_node:,}"))


def fabric_word(fabric: str) -> str:
    """The fabric id as running text in the current language (``infiniband`` / ``InfiniBand``)."""
    return vocab.FABRIC.word(fabric)


_SPACE_BETWEEN_HAN = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])")


def tidy_spaces(text: str) -> str:
    """``text`` without the spaces a placeholder left between two Chinese characters: a message writes
    a space on each side of ``{fabric}`` for ``InfiniBand``, none when the word is Chinese (English unchanged)."""
    return _SPACE_BETWEEN_HAN.sub("", text)


def or_list(items: list[str]) -> str:
    """``a, b or c`` in the current language (Chinese joins with its enumeration comma and word for "or")."""
    items = [str(item) for item in items]
    if len(items) <= 1:
        return "".join(items)
    return _("{choices} or {last}").format(choices=_(", ").join(items[:-1]), last=items[-1])


Number = StrictFloat
"""A JSON number: an int or a float (strict floats take ints), never a bool or text."""


def check_override(key: str, value: float, unit: str) -> float:
    """The one bound on an override value: finite, 0 to ``OVERRIDE_LIMITS[unit]`` per unit.

    Raises ``InputError`` saying the bound; ``key`` is shown truncated.
    """
    high = OVERRIDE_LIMITS[unit]
    if not (math.isfinite(value) and 0 <= value <= high):
        raise InputError(_("{key} must be a number >= 0 and at most {limit} {unit} per unit (got {value})").format(
            key=shown(key) if len(key) > 40 else key, limit=f"{high:,.0f}", unit=unit, value=_number_text(value)))
    return float(value)


def canonical_overrides(overrides: dict[str, float], catalog: Catalog, unit: str) -> dict[str, float]:
    """``overrides`` keyed by canonical catalog id; ``InputError`` names an unknown id or one given twice."""
    price = unit == "USD"
    result: dict[str, float] = {}
    for key, value in overrides.items():
        entry_id = catalog.canonical_id(key)
        if entry_id is None:
            message = (_("price override {key} is not a catalog id (python -m core catalog lists them)") if price
                       else _("power override {key} is not a catalog id (python -m core catalog lists them)"))
            raise InputError(message.format(key=shown(key)))
        if entry_id in result:
            message = (_("price override for {id} is given twice (as {key} and another name)") if price
                       else _("power override for {id} is given twice (as {key} and another name)"))
            raise InputError(message.format(id=entry_id, key=shown(key)))
        result[entry_id] = check_override(entry_id, value, unit)
    return result


def check_name(text: str) -> str:
    """A design name as kept: one line (runs of spaces, tabs and newlines become one space, none at the ends),
    not empty, at most ``MAX_NAME_CHARS`` characters, no control or format characters (a right-to-left
    override would reorder what people read). Raises ``InputError`` saying which rule it breaks."""
    value = " ".join(text.split())
    if not value:
        raise InputError(_("must not be empty"))
    if len(value) > MAX_NAME_CHARS:
        raise InputError(_("at most {limit} characters, got {count}").format(limit=MAX_NAME_CHARS,
                                                                          count=f"{len(value):,}"))
    if any(hidden(c) for c in value):
        raise InputError(_("must be text without control or format characters"))
    return value


def clean_name(text: str | None) -> str:
    """A design name where it cannot be refused (a comparison column's name in a link, a name field): the rules
    of ``check_name`` applied instead of checked (control and format characters dropped, one line, cut at
    ``MAX_NAME_CHARS``); ``""`` for none."""
    return " ".join(visible(text or "").split())[:MAX_NAME_CHARS].rstrip()


MAX_STAGES = 16
"""Most later growth stages a design lists (``Design.stages``)."""


def check_stages(value: Any) -> str | None:
    """Growth stages as kept: node counts, rising, comma-separated without spaces (``"128,256"``); a list of
    whole numbers or text such as ``"128, 256"`` (full-width commas too) reads the same; empty is None.
    Raises ``InputError`` saying which rule it breaks."""
    if value is None:
        return None
    parts = value if isinstance(value, (list, tuple)) else str(value).replace("\uff0c", ",").split(",")
    texts = [str(part).strip().replace("_", "") for part in parts if str(part).strip()]
    if not texts:
        return None
    if not all(text.isascii() and text.isdigit() for text in texts):
        raise InputError(_("expected node counts separated by commas, such as 128,256"))
    counts = [int(text) for text in texts]
    if len(counts) > MAX_STAGES or any(c < 1 or c > MAX_GPUS for c in counts):
        raise InputError(_("at most {limit} stages of 1 to {most} nodes each").format(
            limit=MAX_STAGES, most=f"{MAX_GPUS:,}"))
    if any(b <= a for a, b in zip(counts, counts[1:])):
        raise InputError(_("stages must rise: each node count above the one before"))
    return ",".join(str(c) for c in counts)


MAX_PODS = 16
"""Most extra pods a design lists (``Design.pods``), besides its own system and nodes (the first pod): a design
has at most ``MAX_PODS + 1`` pods in all."""
MAX_POD_GBPS = 100_000
"""Fastest port speed a pod may name [Gb/s] (``Design.pods``' ``:GBPS``)."""
_POD_ITEM = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*):(\d+)(?::(\d+))?(?:@(\d+))?")


def check_pods(value: Any) -> str | None:
    """Extra pods as kept: ``SYSTEM:NODES[:GBPS][@STAGE]`` items comma-separated without spaces
    (``"B200:32:800@1"``): the GPU system, its nodes, its NIC and leaf port speed [Gb/s per direction] (default the
    system's) and the growth stage that adds it (default 0: built now). The system is kept as the catalog spells it
    when the catalog has it (an unknown one is the sizing's ``DesignError``, ``core.fabric.pods``); spaces and
    full-width commas are dropped; empty is None. Raises ``InputError`` saying which rule it breaks."""
    if value is None:
        return None
    parts = value if isinstance(value, (list, tuple)) else str(value).replace("\uff0c", ",").split(",")
    texts = ["".join(str(part).split()) for part in parts if str(part).strip()]
    if not texts:
        return None
    example = "B200:32:800@1"
    items = [_POD_ITEM.fullmatch(text) for text in texts]
    if not all(items):
        raise InputError(_("expected extra pods as SYSTEM:NODES[:GBPS][@STAGE] separated by commas, such as "
                           "{example}").format(example=example))
    if len(items) > MAX_PODS:  # the design's own system and nodes are the first pod, not counted here
        raise InputError(_("{count} extra pods are too many: a design has at most {limit} extra pods besides its "
                           "own system and nodes (the first pod), {total} pods in all").format(
            count=len(items), limit=MAX_PODS, total=MAX_PODS + 1))
    catalog, kept = load_catalog(), []
    for match in items:
        system, nodes, speed, stage = match.groups()
        if not 1 <= int(nodes) <= MAX_GPUS or (speed and not 1 <= int(speed) <= MAX_POD_GBPS) \
                or (stage and int(stage) > MAX_STAGES):
            raise InputError(_("a pod has 1 to {most} nodes, a port speed of 1 to {speed} Gb/s and a stage of 0 to "
                               "{stages}").format(most=f"{MAX_GPUS:,}", speed=f"{MAX_POD_GBPS:,}", stages=MAX_STAGES))
        try:
            system = catalog.system(system).id
        except ValueError:
            pass  # named in the sizing's DesignError, with the systems it knows
        kept.append(f"{system}:{int(nodes)}" + (f":{int(speed)}" if speed else "")
                    + (f"@{int(stage)}" if stage and int(stage) else ""))
    return ",".join(kept)


MAX_TORUS_DIMS = 3
"""Most dimensions of a torus (``Design.torus_dims``: a ring, 2D or 3D)."""


def check_dims(value: Any) -> str | None:
    """Torus dimensions as kept: ``"16x16x16"`` (1 to ``MAX_TORUS_DIMS`` whole numbers of at least 1; ``x``,
    ``X``, ``*``, ``,`` or the multiplication sign between them, or a list); empty is None. A dimension of 1 or a
    product other than the nodes is the sizing's ``DesignError`` (``core.fabric.torus``), with ways out.
    Raises ``InputError`` saying which rule it breaks."""
    if value is None:
        return None
    text = value if isinstance(value, (list, tuple)) else re.split(r"[xX*,\u00d7]", str(value).replace(" ", ""))
    parts = [str(part).strip() for part in text]
    if parts == [""]:
        return None
    if not all(p.isascii() and p.isdigit() for p in parts) or not 1 <= len(parts) <= MAX_TORUS_DIMS:
        raise InputError(_("expected 1 to {most} torus dimensions such as {example}").format(
            most=MAX_TORUS_DIMS, example="16x16x16"))
    dims = [int(p) for p in parts]
    if min(dims) < 1 or math.prod(dims) > MAX_GPUS:
        raise InputError(_("torus dimensions are whole numbers of at least 1 whose product is at most {most}").format(
            most=f"{MAX_GPUS:,}"))
    return "x".join(str(k) for k in dims)


CALIBRATION_BOUNDS = {"net": (0.2, 2.0), "nvlink": (0.2, 2.0), "lat": (-20.0, 10_000.0)}
"""Bounds of a calibration's parameters: the scale-out and NVLink bandwidth factors [x the catalog's efficiency]
and the latency added to every collective [us] (``core.perf.calibration`` fits within them)."""


@dataclass(frozen=True)
class Calibration:
    """Collective-model corrections fitted to one cluster's measurements (``core.perf.calibration``).

    net : float      Factor on the catalog's NIC (scale-out) efficiency [x]; the product is capped at 1.
    nvlink : float   Factor on the catalog's NVLink efficiency [x]; the product is capped at 1.
    lat : float      Latency added to every collective's fixed cost [us] (negative: faster than the model).
    name : str       What it was fitted to, as people call it (shown wherever it is applied).
    """

    net: float = 1.0
    nvlink: float = 1.0
    lat: float = 0.0
    name: str = ""

    def text(self) -> str:
        """The canonical text (link, CLI, design file): ``net=0.92,nvlink=1,lat=3.5,name=Pod A``."""
        return f"net={self.net:.6g},nvlink={self.nvlink:.6g},lat={self.lat:.6g}" + (
            f",name={self.name}" if self.name else "")


def parse_calibration(text: str) -> Calibration:
    """A calibration from its text: ``net=F,nvlink=F,lat=US`` in any order, each optional, then optionally
    ``name=TEXT`` last (the rest of the text, commas included). ``InputError`` names the rule broken."""
    body, _sep, name = str(text).partition("name=")
    values: dict[str, float] = {}
    for item in (part.strip() for part in body.split(",")):
        if not item:
            continue
        key, eq, number = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in CALIBRATION_BOUNDS or key in values:
            raise InputError(_("expected net=FACTOR,nvlink=FACTOR,lat=MICROSECONDS[,name=TEXT], e.g. {example}").format(
                example="net=0.92,nvlink=1,lat=3.5,name=Pod A"))
        try:
            value = float(number)
        except ValueError:
            value = float("nan")
        low, high = CALIBRATION_BOUNDS[key]
        if not low <= value <= high:
            raise InputError(_("{key} must be a number from {range}").format(key=key,
                                                                            range=span(f"{low:g}", f"{high:g}")))
        values[key] = value
    return Calibration(**values, name=clean_name(name))


def check_calibration(value: Any) -> str | None:
    """A calibration as kept: its canonical text (``Calibration.text``); empty is None."""
    if value is None or not str(value).strip():
        return None
    return parse_calibration(str(value)).text()


MAX_DOMAIN_GPUS = 576
"""Largest NVLink domain a design states [GPUs] (NVIDIA's NVL576, ``assets/catalog/scaleup.toml``)."""
MAX_DOMAIN_LIST = 64
"""Most NVLink domains ``Design.nvlink_domains`` lists (``SIZExCOUNT`` counts as ``COUNT``)."""


def check_domains(value: Any) -> str | None:
    """Mixed NVLink domain sizes as kept: ``SIZE`` or ``SIZExCOUNT`` items in GPUs, comma-separated without
    spaces (``"576x2,72"``); a list of sizes or text such as ``"576 x 2, 72"`` (full-width commas, ``X`` and
    ``*`` too) reads the same; empty is None. Raises ``InputError`` saying which rule it breaks."""
    if value is None:
        return None
    parts = value if isinstance(value, (list, tuple)) else str(value).replace("\uff0c", ",").split(",")
    items = []
    for part in parts:
        text = "".join(str(part).split()).lower().replace("*", "x").replace("_", "")
        if not text:
            continue
        size, _x, count = text.partition("x")
        if not (size.isascii() and size.isdigit() and (not _x or (count.isascii() and count.isdigit()))):
            raise InputError(_("expected NVLink domain sizes in GPUs separated by commas, each optionally times a "
                               "count, such as {example}").format(example="576x2,72"))
        items.append((int(size), int(count) if _x else 1))
    if not items:
        return None
    if any(not 1 <= size <= MAX_DOMAIN_GPUS or count < 1 for size, count in items) \
            or sum(count for _size, count in items) > MAX_DOMAIN_LIST:
        raise InputError(_("at most {limit} NVLink domains of 1 to {most} GPUs each").format(
            limit=MAX_DOMAIN_LIST, most=MAX_DOMAIN_GPUS))
    return ",".join(f"{size}x{count}" if count > 1 else str(size) for size, count in items)


def domain_list(text: str | None) -> tuple[int, ...]:
    """The sizes of ``Design.nvlink_domains`` (``check_domains``'s text), one per domain, in order [GPUs]."""
    sizes: list[int] = []
    for item in (text or "").split(","):
        if item:
            size, _x, count = item.partition("x")
            sizes += [int(size)] * (int(count) if count else 1)
    return tuple(sizes)


def _reported(check: Callable[[Any], Any], value: Any) -> Any:
    """``check(value)``, its ``InputError`` raised as the ``ValueError`` a pydantic validator reports."""
    try:
        return check(value)
    except InputError as exc:
        raise ValueError(str(exc)) from None


def stage_nodes(design: "Design") -> tuple[int, ...]:
    """The node counts of ``design``'s later growth stages (``Design.stages``), rising; empty without stages."""
    return tuple(int(text) for text in design.stages.split(",")) if design.stages else ()


def _check_stages(design: "Design", nodes: int, nodes_per_domain: int) -> None:
    """Growth stages above the nodes built now, within ``grow_to`` and in whole NVLink racks (``DesignError``)."""
    counts = stage_nodes(design)
    if counts and counts[0] <= nodes:
        raise DesignError(
            _("The first growth stage ({stage} nodes) is not above the {nodes} nodes planned now.").format(
                stage=f"{counts[0]:,}", nodes=f"{nodes:,}"),
            _("List only stages above {nodes} nodes.").format(nodes=f"{nodes:,}"))
    if counts and design.grow_to is not None and counts[-1] > design.grow_to:
        raise DesignError(
            _("The last growth stage ({stage} nodes) is beyond grow_to ({grow_to} nodes).").format(
                stage=f"{counts[-1]:,}", grow_to=f"{design.grow_to:,}"),
            _("Set grow_to to at least {stage}, or end the stages at {grow_to}.").format(
                stage=f"{counts[-1]:,}", grow_to=f"{design.grow_to:,}"))
    partial = [c for c in counts if nodes_per_domain > 1 and c % nodes_per_domain]
    if partial:
        raise DesignError(
            _("Growth stage {stage} nodes is not a whole number of NVLink racks of {rack_nodes} nodes.").format(
                stage=f"{partial[0]:,}", rack_nodes=nodes_per_domain),
            _("Use multiples of {rack_nodes} nodes.").format(rack_nodes=nodes_per_domain))


def _number_text(value: Any) -> str:
    """A number as users write it: ``0.0`` -> ``0``, ``1000000`` -> ``1,000,000``, ``0.5`` -> ``0.5``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return shown(value)
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, int):
        text = f"{value:,}" if value.bit_length() < 160 else shown(value)
    else:
        text = f"{int(value):,}" if value.is_integer() and abs(value) < 1e16 else f"{value:g}"
    return text if len(text) <= 40 else text[:37] + "..."


SYSTEM_DEFAULT = "system default"
"""``Surface.widget_none``: the sidebar shows the GPU system's own value when the field is ``None``."""
AUTO = "auto"
"""``Surface.widget_none`` default: the sidebar's select value meaning "the catalog default" (``None``)."""
FIELD_KINDS = ("value", "ratio", "system", "switch", "nic", "nvlink", "speed", "rack_preset", "overrides", "spares",
               "text", "stages", "calibration", "domains", "dims", "pods")
"""``Surface.kind``: how a field's text is read where it is typed (link, CLI) beyond its type and bounds:
``value`` a plain number or text; ``ratio`` a down:up ratio (``3`` or ``3:1``); ``system``, ``switch``, ``nic`` a
catalog model id; ``nvlink`` a catalog NVLink generation; ``speed`` a port speed some catalog switch runs;
``rack_preset`` a rack preset id; ``overrides`` catalog id: number pairs in ``unit``; ``spares`` a sparing
policy (``core.spares``); ``text`` free text people type (a name: one line, shown escaped everywhere); ``stages``
rising node counts (``check_stages``); ``dims`` torus dimensions (``check_dims``); ``calibration`` a fitted
collective-model correction (``check_calibration``); ``domains`` NVLink domain sizes (``check_domains``); ``pods``
extra pods of other GPU systems (``check_pods``). A field
with a ``vocab`` takes that vocabulary's ids."""
CLI_GROUPS = ("design", "advanced", "networks")
"""``Surface.group``: the CLI help group of a design option."""


@dataclass(frozen=True)
class Surface:
    """Where a ``Design`` field shows up, declared once beside the field (``Annotated[type, Surface(...)]``).

    The share-link codec (``core.formats.sharelink``), the CLI's design options (``core.cli.common``), the
    design table of the XLSX and the review pack (``core.formats.xlsx.design_rows``) and the sidebar's value
    sync (``webui.state``) are generated from these declarations; ``FIELDS`` lists them by field.

    link
        Share-link key (version 1 keys are frozen: never rename one).
    flag
        CLI option, e.g. ``--gpu``.
    label
        The setting's name (sidebar, XLSX, report, link warnings), English marked ``N_``.
    help
        CLI help, marked ``N_``; ``{name}`` placeholders are filled from ``help_args``.
    unit
        Unit of the value where it has one (``Gb/s``, ``USD``, ``W``).
    vocab
        The ``core.vocab.Vocabulary`` of its ids (a choice), else ``None``.
    kind
        How its text is read (``FIELD_KINDS``).
    metavar, cli
        CLI metavar; ``cli`` names a parser of ``core.cli.common`` replacing the one derived from the type.
    group
        CLI help group (``CLI_GROUPS``).
    widget, widget_none
        The sidebar widget's key (without its ``w_`` prefix; ``None``: not a sidebar widget) and what the
        widget holds when the field is ``None`` (``AUTO``, ``0``, ``None`` or ``SYSTEM_DEFAULT``).
    translated
        ``False`` for a label that is the same in every language (``PUE``).
    """

    link: str
    flag: str
    label: str
    help: str
    unit: str | None = None
    vocab: vocab.Vocabulary | None = None
    kind: str = "value"
    metavar: str | None = None
    cli: str | None = None
    group: str = "design"
    widget: str | None = None
    widget_none: Any = AUTO
    translated: bool = True
    help_args: dict = dataclass_field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in FIELD_KINDS or self.group not in CLI_GROUPS:
            raise ValueError(f"Surface {self.link}: kind {self.kind!r} or group {self.group!r} is not declared")

    def title(self) -> str:
        """The label in the current language."""
        return _(self.label) if self.translated else self.label

    def help_text(self) -> str:
        """The CLI help in the current language."""
        return _(self.help).format(**self.help_args) if self.help_args else _(self.help)

    def value_label(self, value: Any) -> str:
        """A value of this field as the settings show it: a vocabulary's label, a number with its unit."""
        if self.vocab is not None and value in self.vocab:
            return self.vocab.label(value)
        if self.unit and self.kind == "speed" and isinstance(value, int):
            return f"{value} {self.unit}"
        return str(value)


class Design(BaseModel):
    """A cluster design as the user states it.

    Parameters
    ----------
    gpu : str
        GPU/system model id from the catalog (case-insensitive), e.g. ``"H100"``.
    nodes : int, optional
        Number of nodes (servers, or NVL72 compute trays). Set this or ``gpus``.
    gpus : int, optional
        Total GPU count; sets ``nodes = ceil(gpus / gpus_per_node)``.
    gpus_per_node : int, optional
        GPUs per node; default from the system.
    nvlink_generation : int, optional
        NVLink generation; default from the GPU.
    nvlink_domain_gpus : int, optional
        GPUs in one NVLink domain (8 for HGX, 72 for NVL72); default from the system.
    nvlink_rack_gpus : int, optional
        GPUs of one first-level NVLink domain (a rack's or node's own NVSwitches, 36 for NVL36 racks); a larger
        NVLink domain joins several through a second NVSwitch level (``core.fabric.domainlevels``); default the
        system's own domain.
    nvlink_domains : str, optional
        Mixed NVLink domain sizes [GPUs] from the first rack on (``"576x2,72"``, ``check_domains``), each a whole
        number of first-level domains; the racks after them form domains of ``nvlink_domain_gpus``.
    fabric : {"infiniband", "ethernet"}, optional
        Scale-out fabric; default from the system.
    port_speed_gbps : int, optional
        NIC and switch port speed, per direction [Gb/s].
    nics_per_node : int, optional
        Scale-out NICs per node, i.e. rails.
    planes : int
        Independent parallel fabrics. ``plane_mode="per-port"``: every NIC has one port in each plane
        (two planes of a dual-port NIC = dual-homed to two ToRs, Alibaba HPN-style);
        ``"per-rail"``: NIC *i* belongs to plane ``i mod planes`` only (DeepSeek MPFT).
    plane_mode : {"per-port", "per-rail"}
        How NICs map to planes (see ``planes``).
    nic : str, optional
        NIC model id (e.g. ``"CX7"``, ``"BF3-DPU"``); default: the system's, or the one that runs the
        port speed. Its ports bound the planes.
    switch : str, optional
        Fabric switch model id for every tier; default: the catalog's first switch of the
        fabric that offers the port speed (catalog order is preference order).
    leaf_switch, spine_switch, core_switch : str, optional
        Switch model of one tier, overriding ``switch`` there (e.g. a chassis at the spine).
    uplink_speed_gbps : int, optional
        Speed of leaf uplinks and of spine and core ports, per direction [Gb/s]; default the port speed.
        Leaves then run NIC-facing ports at ``port_speed_gbps`` (a breakout) and uplinks at this speed.
    topology : {"rail-optimized", "top-of-rack", "rail-only", "dragonfly", "torus"}
        Rail-optimized: NIC *i* of every node in a scalable unit goes to leaf *i*.
        Top-of-rack: all NICs of a node go to its rack's leaf.
        Rail-only (Wang et al. 2023): each rail is its own fabric with no spine shared between rails;
        traffic between rails crosses NVLink inside the node.
        Dragonfly+ (``dragonfly``; Shpiner et al. 2017): groups of rail-optimized leaves and spines, every
        leaf to every spine of its group, the groups' spines joined by global links (``core.fabric.dragonfly``).
        Torus (``torus``): the nodes are the vertices of a k-ary n-cube with wraparound, joined node to node by
        their NIC ports, no switches (``core.fabric.torus``).
    torus_dims : str, optional
        Torus: the dimensions ``"16x16x16"`` (1 to 3, product = the nodes; ``check_dims``); default the most
        balanced 3D (else 2D, else ring) shape of the nodes.
    torus_cube : int, optional
        Torus: the edge of the cubes joined by optical circuit switches (4: TPU v4's 4x4x4 cubes); every
        dimension a multiple of it; None: every link electrical or optical by its length, no OCS.
    group_leaves : int, optional
        Dragonfly+ (``topology="dragonfly"``): leaves per group, a multiple of the rails; default the largest
        group the spine radix holds with its global links.
    global_ratio : float
        Dragonfly+: a group's global bandwidth over its injection bandwidth (> 0, default 1, Kim et al.'s
        balance: a group can send all it injects to other groups).
    su_nodes : int, optional
        Nodes per scalable unit (rail-optimized, rail-only) or at most per leaf (top-of-rack); default
        as many as a leaf has down ports.
    pod_sus : int, optional
        Scalable units (or top-of-rack leaves) per pod in three tiers; default as many as a spine reaches.
    grow_to : int, optional
        Final node count the spine and core layers and every leaf's uplinks are sized for; only
        ``nodes`` are populated now.
    stages : str, optional
        Later build stages [nodes], rising and comma-separated (``"128,256"``; ``check_stages``), each above
        ``nodes`` and at most ``grow_to`` when set: ``core.analysis.stages`` says what each buys and which
        cables move. It changes no number of the plan itself.
    pods : str, optional
        Extra pods under the same spine layer (``"B200:32:800@1"``, ``check_pods``): each a GPU system, its nodes,
        its NIC and leaf port speed and the growth stage that adds it; the design's own system and nodes are the
        first pod. ``core.fabric.pods`` states the sizing rule; ``core.analysis.pods`` plans the mixed fabric.
    pods_final : bool
        With ``pods`` added at later stages: install the spine layer for the final stage from the start (no
        leaf-spine cable moves when a stage is added); off: each stage's spine layer is sized for itself.
    nodes_per_rack : int, optional
        Nodes per rack; default from the system.
    oversubscription : float
        Leaf down:up bandwidth ratio (>= 0.25; 1 is non-blocking, below 1 more uplink than downlink).
    spine_oversubscription : float
        Spine down:up ratio in three-tier fabrics (>= 1).
    tiers : {"auto", 1, 2, 3}
        Switch tiers; ``auto`` picks the fewest that fit.
    cable_media : {"auto", "copper", "aoc", "optics", "smf"}
        Media by each link's length (``core.physical.media``): ``auto`` and ``copper`` take passive
        copper up to its reach, then active copper, then multimode, then single-mode optics; ``aoc``
        puts active optical cables before multimode optics; ``optics`` never copper; ``smf`` single-mode
        optics for every link.
    rack_preset : str, optional
        Compute rack preset id of ``assets/catalog/racks.toml`` (``air-15``, ``superpod-41``,
        ``dense-60``, ``nvl72-liquid``); default: the smallest that holds the system's default nodes per rack.
    rack_kw : float, optional
        Rack power limit [kW per rack], replacing the preset's.
    rack_units : int, optional
        Compute rack height [U], replacing the preset's.
    storage : {"auto", "infiniband", "ethernet", "none"}
        Storage fabric (``core.networks``): ``auto`` = the compute fabric's kind, ``none`` = no storage
        network. Default follows the DGX SuperPOD RA (a separate InfiniBand storage fabric).
    storage_ports_per_node : int, optional
        Storage fabric ports per node; default the RA's 2 per DGX (0 = no storage ports).
    storage_port_speed_gbps : int, optional
        Storage port speed, per direction [Gb/s]; default 400 (the RA's NDR), at most the compute port speed.
    storage_systems : int, optional
        Storage systems (appliances) on the storage fabric; default sized from the storage bandwidth per node.
    storage_oversubscription : float, optional
        Node-facing storage leaf down:up ratio (>= 1); default the RA's 4:3.
    management : bool
        Size the in-band and out-of-band management networks and the management nodes (default on,
        as in the RA).
    pue : float
        Power usage effectiveness (facility power / IT power, >= 1).
    electricity_usd_per_kwh : float
        Electricity price [USD/kWh].
    tco_years : float
        Years of operation for the total cost of ownership [years].
    price_overrides : dict of str to float
        Catalog id -> unit price [USD], replacing the catalog estimate.
    power_overrides : dict of str to float
        Catalog id -> unit power [W].
    price_basis : {"street", "list", "hyperscale"}
        Which point of each catalog price range the design is priced at: street = typical, list = high,
        hyperscale = low (``core.catalog.PRICE_POINT``); capex also carries the full low-high range.
    name : str, optional
        The design's name (free text, one line, at most ``MAX_NAME_CHARS`` characters; spaces at the ends
        dropped): the review pack's title. It changes no number.
    calibration : str, optional
        Collective-model corrections fitted to the cluster's own nccl-tests measurements, as text
        (``Calibration.text``: ``net=0.92,nvlink=1,lat=3.5,name=Pod A``): every collective, training and
        serving estimate of the design uses them (``core.perf.calibration``). It changes no count or cost.
    spares : str
        Sparing policy (``core.spares``): ``"off"`` (default: no spare rows), ``"default"`` (the
        catalog's, ``reliability.toml [sparing.*]``) or ``"switch=N+1,transceiver=2%,cable=1%,NIC=1%"``
        (percent of the installed count rounded up, or N+k per model and tier; categories not named
        take the catalog default). Spare rows are in the BOM and capex, at no power.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    def __hash__(self) -> int:
        """Of the fields a search varies (equal designs hash alike; equality compares every field): cached stages
        take designs as arguments (``core.memo.stage``), and some fields (the overrides) are dicts."""
        return hash((self.gpu, self.gpus, self.nodes, self.fabric, self.switch, self.leaf_switch, self.spine_switch,
                     self.core_switch, self.nic, self.port_speed_gbps, self.uplink_speed_gbps, self.planes,
                     self.plane_mode, self.topology, self.tiers, self.oversubscription))

    gpu: Annotated[str, Surface(
        "g", "--gpu", N_("GPU model"), N_("GPU/system model, case-insensitive (e.g. {examples})"), kind="system",
        help_args={"examples": "h100, B200, GB200-NVL72"}, widget="gpu")] = "H100"
    nodes: Annotated[StrictInt | None, Surface(
        "n", "--nodes", N_("Nodes"), N_("number of nodes (servers, or NVL72 compute trays)"),
        widget="nodes")] = Field(default=None, ge=1, le=MAX_GPUS)
    gpus: Annotated[StrictInt | None, Surface(
        "ng", "--gpus", N_("GPUs"), N_("total GPU count; sets nodes = ceil(gpus / gpus-per-node)"),
        widget="nodes")] = Field(default=None, ge=1, le=MAX_GPUS)
    gpus_per_node: Annotated[StrictInt | None, Surface(
        "gpn", "--gpus-per-node", N_("GPUs per node"), N_("GPUs per node"), widget="gpn",
        widget_none=SYSTEM_DEFAULT)] = Field(default=None, ge=1, le=72)
    nvlink_generation: Annotated[StrictInt | None, Surface(
        "nvl", "--nvlink-gen", N_("NVLink generation"), N_("NVLink generation (1-5)"), kind="nvlink",
        widget="nvl")] = Field(default=None, ge=1, le=6)
    nvlink_domain_gpus: Annotated[StrictInt | None, Surface(
        "nvd", "--nvlink-domain", N_("NVLink domain [GPUs]"), N_("GPUs per NVLink domain (8 for HGX, 72 for NVL72)"),
        widget="nvd")] = Field(default=None, ge=1, le=MAX_DOMAIN_GPUS)
    nvlink_rack_gpus: Annotated[StrictInt | None, Surface(
        "nvr", "--nvlink-rack", N_("First NVLink level [GPUs]"),
        N_("GPUs under one rack's (or node's) own NVSwitches, e.g. 36 for NVL36 racks; an NVLink domain larger than "
           "this joins several through a second NVSwitch level (default: the system's own domain)"),
        group="advanced", widget="nvr")] = Field(default=None, ge=1, le=MAX_DOMAIN_GPUS)
    nvlink_domains: Annotated[str | None, Surface(
        "nvm", "--nvlink-domains", N_("Mixed NVLink domains [GPUs]"),
        N_("NVLink domain sizes from the first rack on, each optionally times a count (e.g. {example}), each a whole "
           "number of first-level domains; the racks after them form domains of the NVLink domain size"),
        kind="domains", metavar="GPUS[xN],...", group="advanced", widget="nvm", widget_none="",
        help_args={"example": "576x2,72"})] = None
    fabric: Annotated[FabricKind | None, Surface(
        "f", "--fabric", N_("Fabric"), N_("scale-out fabric"), vocab=vocab.FABRIC, widget="fabric",
        widget_none=SYSTEM_DEFAULT)] = None
    port_speed_gbps: Annotated[StrictInt | None, Surface(
        "ps", "--port-speed", N_("Port speed"), N_("NIC and switch port speed, per direction [Gb/s], e.g. 400"),
        unit="Gb/s", kind="speed", metavar="GBPS", widget="speed")] = Field(default=None, gt=0, le=100_000)
    nics_per_node: Annotated[StrictInt | None, Surface(
        "nic", "--nics-per-node", N_("NICs per node (rails)"), N_("scale-out NICs per node (rails)"),
        widget="nics")] = Field(default=None, ge=1, le=MAX_NICS_PER_NODE)
    planes: Annotated[StrictInt, Surface(
        "pl", "--planes", N_("Planes"), N_("independent parallel fabrics; each NIC has a port in each"),
        widget="planes")] = Field(default=1, ge=1, le=8)
    switch: Annotated[str | None, Surface(
        "sw", "--switch", N_("Switch model"), N_("fabric switch model, case-insensitive (e.g. {examples})"),
        kind="switch", help_args={"examples": "QM9700, Q3400, SN5600"}, widget="switch")] = None
    topology: Annotated[Topology, Surface(
        "t", "--topology", N_("Topology"),
        N_("leaf wiring (rail-only: each rail its own fabric, no spine between rails; dragonfly: Dragonfly+ groups of "
           "rail leaves and spines joined by global links; torus: nodes joined node to node in a k-ary n-cube)"), vocab=vocab.TOPOLOGY,
        widget="topology")] = "rail-optimized"
    nodes_per_rack: Annotated[StrictInt | None, Surface(
        "npr", "--nodes-per-rack", N_("Nodes per rack"), N_("nodes per rack"),
        widget="npr")] = Field(default=None, ge=1, le=72)
    oversubscription: Annotated[float, Surface(
        "os", "--oversubscription", N_("Oversubscription (leaf down:up)"),
        N_("leaf down:up bandwidth ratio X or X:Y, >= 0.25 (e.g. 1, 2, 3:1, or 1:2 for more uplink than downlink)"),
        kind="ratio", metavar="RATIO", widget="oversub")] = Field(
        default=1.0, ge=0.25, le=16.0, strict=True, allow_inf_nan=False)
    spine_oversubscription: Annotated[float, Surface(
        "sos", "--spine-oversubscription", N_("Spine oversubscription (3 tiers)"),
        N_("spine down:up ratio in three tiers, X or X:Y, >= 1"), kind="ratio", metavar="RATIO",
        widget="spine_oversub")] = Field(default=1.0, ge=1.0, le=16.0, strict=True, allow_inf_nan=False)
    tiers: Annotated[Tiers, Surface(
        "ti", "--tiers", N_("Tiers"), N_("switch tiers (default auto)"), vocab=vocab.TIERS,
        widget="tiers")] = "auto"
    cable_media: Annotated[CableMedia, Surface(
        "cm", "--cable-media", N_("Cable media"),
        N_("cable media by each link's length (auto: copper where it reaches, then multimode, then single-mode "
           "optics; aoc: active optical cables before multimode; optics: no copper; smf: single-mode only)"),
        vocab=vocab.CABLE_MEDIA, widget="media")] = "auto"
    pue: Annotated[float, Surface(
        "pue", "--pue", "PUE", N_("power usage effectiveness (default 1.3)"), translated=False,
        widget="pue")] = Field(default=1.3, ge=1.0, le=3.0, strict=True, allow_inf_nan=False)
    electricity_usd_per_kwh: Annotated[float, Surface(
        "kwh", "--electricity-price", N_("Electricity [USD/kWh]"), N_("electricity price [USD/kWh]"),
        metavar="USD_PER_KWH", widget="kwh")] = Field(default=0.10, ge=0.0, le=2.0, strict=True, allow_inf_nan=False)
    tco_years: Annotated[float, Surface(
        "yrs", "--tco-years", N_("TCO years"), N_("years of operation for TCO [years]"), metavar="YEARS",
        widget="years")] = Field(default=5.0, gt=0.0, le=30.0, strict=True, allow_inf_nan=False)
    price_overrides: Annotated[dict[str, Number], Surface(
        "px", "--price", N_("Price overrides [USD]"),
        N_("override a catalog unit price [USD], 0 to {limit} USD per unit, e.g. {example} (repeatable)"),
        kind="overrides", unit="USD", metavar="ID=USD", widget="px",
        help_args={"limit": f"{MAX_PRICE_OVERRIDE_USD:,.0f}", "example": "--price QM9700=30000"})] = Field(
        default_factory=dict)
    power_overrides: Annotated[dict[str, Number], Surface(
        "pw", "--power", N_("Power overrides [W]"),
        N_("override a catalog unit power [W], 0 to {limit} W per unit (repeatable)"), kind="overrides", unit="W",
        metavar="ID=W", widget="pw", help_args={"limit": f"{MAX_POWER_OVERRIDE_W:,.0f}"})] = Field(
        default_factory=dict)
    nic: Annotated[str | None, Surface(
        "nm", "--nic", N_("NIC model"), N_("NIC model, case-insensitive (e.g. {examples}); its ports bound the planes"),
        kind="nic", group="advanced", help_args={"examples": "CX7, CX8, BF3-DPU"}, widget="nic_model")] = None
    leaf_switch: Annotated[str | None, Surface(
        "lsw", "--leaf-switch", N_("Leaf switch"), N_("leaf switch model (default: --switch)"), kind="switch",
        group="advanced", widget="leaf_switch")] = None
    spine_switch: Annotated[str | None, Surface(
        "ssw", "--spine-switch", N_("Spine switch"), N_("spine switch model (default: --switch or the leaf)"),
        kind="switch", group="advanced", widget="spine_switch")] = None
    core_switch: Annotated[str | None, Surface(
        "csw", "--core-switch", N_("Core switch"), N_("core switch model (default: --switch or the leaf)"),
        kind="switch", group="advanced", widget="core_switch")] = None
    uplink_speed_gbps: Annotated[StrictInt | None, Surface(
        "us", "--uplink-speed", N_("Uplink speed"),
        N_("leaf uplink, spine and core port speed, per direction [Gb/s], e.g. 800 (default: --port-speed)"),
        unit="Gb/s", kind="speed", metavar="GBPS", group="advanced", widget="uplink")] = Field(
        default=None, gt=0, le=100_000)
    plane_mode: Annotated[PlaneMode, Surface(
        "pm", "--plane-mode", N_("Plane mode"),
        N_("per-port: each NIC has a port in every plane; per-rail: NIC i in plane i only, each plane its own fabric"),
        vocab=vocab.PLANE_MODE, group="advanced", widget="plane_mode")] = "per-port"
    su_nodes: Annotated[StrictInt | None, Surface(
        "su", "--su-nodes", N_("Nodes per scalable unit"),
        N_("nodes per scalable unit [nodes] (default: as many as a leaf has down ports)"), metavar="NODES",
        group="advanced", widget="su", widget_none=0)] = Field(default=None, ge=1, le=MAX_GPUS)
    pod_sus: Annotated[StrictInt | None, Surface(
        "pod", "--pod-sus", N_("Scalable units per pod"),
        N_("scalable units per pod in three tiers [SUs] (default: as many as a spine reaches)"), metavar="SUS",
        group="advanced", widget="pod", widget_none=0)] = Field(default=None, ge=1, le=4096)
    grow_to: Annotated[StrictInt | None, Surface(
        "gt", "--grow-to", N_("Grow to [nodes]"),
        N_("final size [nodes]: spines, cores and leaf uplinks are sized for it, only --nodes are populated"),
        metavar="NODES", group="advanced", widget="grow", widget_none=0)] = Field(default=None, ge=1, le=MAX_GPUS)
    stages: Annotated[str | None, Surface(
        "stg", "--stages", N_("Growth stages [nodes]"),
        N_("later build stages, rising node counts separated by commas (e.g. {example}): what each stage buys and "
           "which cables move (Racks & cabling tab, the stages command); the last may be grow_to"), kind="stages",
        metavar="NODES,...", group="advanced", widget="stages", widget_none="",
        help_args={"example": "128,256"})] = None
    pods: Annotated[str | None, Surface(
        "pods", "--pods", N_("Extra pods"),
        N_("pods of other GPU systems under the same spine layer, SYSTEM:NODES[:GBPS][@STAGE] separated by commas "
           "(e.g. {example}): the system, its nodes, its NIC and leaf port speed [Gb/s] and the growth stage that "
           "adds it (0: now); the design's own system and nodes are the first pod"), kind="pods",
        metavar="SYSTEM:NODES[:GBPS][@STAGE],...", group="advanced", widget="pods", widget_none="",
        help_args={"example": "B200:32:800@1"})] = None
    pods_final: Annotated[bool, Surface(
        "pfin", "--pods-final", N_("Spine layer for the final stage"),
        N_("with pods added at later stages: install the spine layer for the final stage from the start, so adding "
           "a stage moves no cable: 1 or 0 (default)"), vocab=vocab.ON_OFF, metavar="1|0", group="advanced",
        widget="pods_final")] = False
    group_leaves: Annotated[StrictInt | None, Surface(
        "dfg", "--group-leaves", N_("Leaves per Dragonfly+ group"),
        N_("Dragonfly+ leaves per group [leaves], a multiple of the rails (default: the largest group the spine "
           "radix holds)"), metavar="LEAVES", group="advanced", widget="df_group", widget_none=0)] = Field(
        default=None, ge=1, le=4096)
    global_ratio: Annotated[float, Surface(
        "dgr", "--global-ratio", N_("Dragonfly+ global ratio"),
        N_("Dragonfly+ global bandwidth of a group over its injection bandwidth (default 1: a group can send all "
           "it injects to other groups)"), metavar="RATIO", group="advanced", widget="df_global")] = Field(
        default=1.0, gt=0.0, le=4.0, strict=True, allow_inf_nan=False)
    torus_dims: Annotated[str | None, Surface(
        "tdim", "--torus-dims", N_("Torus dimensions"),
        N_("torus dimensions, 1 to 3 whole numbers whose product is the nodes (e.g. {example}; default: the most "
           "balanced 3D shape of the nodes)"), kind="dims", metavar="KxKxK", group="advanced", widget="torus_dims",
        widget_none="", help_args={"example": "16x16x16"})] = None
    torus_cube: Annotated[StrictInt | None, Surface(
        "tcube", "--torus-cube", N_("Torus OCS cube edge"),
        N_("edge of the torus cubes joined by optical circuit switches (4: TPU v4's 4x4x4), dividing every "
           "dimension (default: no OCS)"), metavar="EDGE", group="advanced", widget="torus_cube",
        widget_none=0)] = Field(default=None, ge=2, le=64)
    price_basis: Annotated[DesignPriceBasis, Surface(
        "pb", "--price-basis", N_("Price basis"),
        N_("which catalog price to use: street (typical, default), list (high end of each range) or hyperscale "
           "(low end) [USD]; JSON also gives capex_usd_low/high"), vocab=vocab.PRICE_BASIS,
        widget="pb")] = "street"
    rack_preset: Annotated[str | None, Surface(
        "rp", "--rack-preset", N_("Rack preset"),
        N_("compute rack preset (air-15, superpod-41, dense-60, nvl72-liquid; default: the smallest that holds the "
           "system's default rack)"), kind="rack_preset", metavar="PRESET", widget="rp")] = Field(
        default=None, min_length=1, max_length=40)
    rack_kw: Annotated[float | None, Surface(
        "rkw", "--rack-kw", N_("Rack power limit [kW]"), N_("rack power limit [kW per rack] (default: the preset's)"),
        metavar="KW", cli="positive_float", widget="rkw", widget_none=None)] = Field(
        default=None, gt=0.0, le=1000.0, strict=True, allow_inf_nan=False)
    rack_units: Annotated[StrictInt | None, Surface(
        "ru", "--rack-units", N_("Rack height [U]"), N_("compute rack height [U] (default: the preset's)"),
        metavar="U", widget="ru")] = Field(default=None, ge=8, le=60)
    storage: Annotated[StorageFabric, Surface(
        "st", "--storage", N_("Storage network"),
        N_("storage fabric: auto (the compute fabric's kind, default), infiniband, ethernet or none"),
        vocab=vocab.STORAGE, group="networks", widget="storage")] = "auto"
    storage_ports_per_node: Annotated[StrictInt | None, Surface(
        "spn", "--storage-ports-per-node", N_("Storage ports per node"),
        N_("storage ports per node (default 2, as a DGX; 0 = no storage network)"), metavar="PORTS",
        group="networks", widget="spn")] = Field(default=None, ge=0, le=16)
    storage_port_speed_gbps: Annotated[StrictInt | None, Surface(
        "sps", "--storage-port-speed", N_("Storage port speed"),
        N_("storage port speed, per direction [Gb/s] (default 400, at most the compute port speed)"), unit="Gb/s",
        kind="speed", metavar="GBPS", group="networks", widget="sps")] = Field(default=None, gt=0, le=100_000)
    storage_systems: Annotated[StrictInt | None, Surface(
        "sts", "--storage-systems", N_("Storage systems"),
        N_("storage systems on the storage fabric (default: sized from 150 Gb/s per node)"), metavar="COUNT",
        group="networks", widget="sts", widget_none=None)] = Field(default=None, ge=0, le=100_000)
    storage_oversubscription: Annotated[float | None, Surface(
        "sto", "--storage-oversubscription", N_("Storage oversubscription"),
        N_("node-facing storage leaf down:up ratio, >= 1 (default 4:3)"), kind="ratio", metavar="RATIO",
        group="networks", widget="sto")] = Field(default=None, ge=1.0, le=16.0, strict=True, allow_inf_nan=False)
    management: Annotated[bool, Surface(
        "mg", "--management", N_("Management networks"),
        N_("size the in-band and out-of-band management networks and management nodes: 1 (default) or 0"),
        vocab=vocab.ON_OFF, metavar="1|0", group="networks", widget="mg")] = True
    spares: Annotated[str, Surface(
        "sp", "--spares", N_("Spares"),
        N_("spare parts in the BOM and capex (no power): none ({off}, the default), the catalog's sparing policy "
           "({default}), or a rule per category such as {example} (a percentage of the installed count rounded up, "
           "or N+k per model and tier; categories not named take the catalog's rule; repeatable)"),
        kind="spares", metavar="POLICY", widget=None,
        help_args={"off": "--spares=off", "default": "--spares=default",
                   "example": "--spares=switch=N+1,transceiver=2%%"})] = "off"
    calibration: Annotated[str | None, Surface(
        "cal", "--calibration", N_("Calibration"),
        N_("collective-model corrections fitted to this cluster's nccl-tests measurements (python -m core calibrate "
           "prints them): {example}; every page, estimate and the review pack use them, labelled"),
        kind="calibration", metavar="SPEC", group="advanced", widget=None,
        help_args={"example": "--calibration=net=0.92,nvlink=1,lat=3.5"})] = None
    name: Annotated[str | None, Surface(
        "name", "--name", N_("Design name"),
        N_("a name for the design, at most {limit} characters of text (the review pack's title)"), kind="text",
        metavar="TEXT", widget="name", widget_none="", help_args={"limit": MAX_NAME_CHARS})] = Field(
        default=None)

    @field_validator("price_overrides", "power_overrides")
    @classmethod
    def _bounded(cls, value: dict[str, float], info) -> dict[str, float]:
        unit = "USD" if info.field_name == "price_overrides" else "W"
        for key, number in value.items():
            if not key.strip():
                raise ValueError(_("an override needs a catalog id, not an empty name"))
            try:
                check_override(key, number, unit)
            except InputError as exc:
                raise ValueError(str(exc)) from None
        return {key: float(number) for key, number in value.items()}

    @field_validator("spares", mode="before")
    @classmethod
    def _spares_setting(cls, value):
        return _reported(canonical_setting, value)

    @field_validator("gpu", "switch", "nic", "leaf_switch", "spine_switch", "core_switch")
    @classmethod
    def _names_a_model(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError(_("must name a catalog model, not be empty"))
        return value

    @field_validator("stages", "nvlink_domains", "torus_dims", "calibration", "pods", mode="before")
    @classmethod
    def _checked_text(cls, value, info):
        """A text field in its canonical form, by its check (rising stages, NVLink domain sizes, torus dimensions,
        a calibration)."""
        check = {"stages": check_stages, "nvlink_domains": check_domains, "torus_dims": check_dims,
                 "calibration": check_calibration, "pods": check_pods}[info.field_name]
        return _reported(check, value)

    @field_validator("name", mode="before")
    @classmethod
    def _one_line_of_text(cls, value):
        return _reported(check_name, value) if isinstance(value, str) else value

    @field_validator("tiers", mode="before")
    @classmethod
    def _tiers_from_text(cls, value):
        if isinstance(value, bool):
            raise ValueError(_("must be auto, 1, 2 or 3, not a boolean"))
        if isinstance(value, str) and value.strip() in ("1", "2", "3"):  # the CLI's --tiers is text
            return int(value)
        return value

    @model_validator(mode="after")
    def _size_given(self) -> "Design":
        if self.nodes is not None and self.gpus is not None:
            raise ValueError(_("give nodes or gpus, not both"))
        if self.nodes is None and self.gpus is None:
            object.__setattr__(self, "nodes", 4)
        return self

    # --- JSON round trip ------------------------------------------------------
    def to_json(self) -> str:
        """The design file: every field, defaults included, and the format ``version`` first
        (``DESIGN_FILE_VERSION``), so the file means the same when a default changes."""
        fields = self.model_dump(mode="json")
        return json.dumps({VERSION_FIELD: DESIGN_FILE_VERSION, **dict(sorted(fields.items()))}, indent=2)

    @classmethod
    def from_json(cls, text: str) -> "Design":
        """Parse a design file (with or without ``version``); raise ``InputError`` with a readable one-line message."""
        return parse_design(design_file_fields(load_design_json(text)))


def _surfaces() -> dict[str, Surface]:
    """Every ``Design`` field's ``Surface``, in field order; refuses a field without one, or two fields that share
    a link key, a CLI flag or a sidebar widget (checked at import, so such a field cannot ship)."""
    found: dict[str, Surface] = {}
    for name, info in Design.model_fields.items():
        surfaces = [meta for meta in info.metadata if isinstance(meta, Surface)]
        if len(surfaces) != 1:
            raise TypeError(f"Design.{name} must declare exactly one Surface (link key, flag, label, ...)")
        found[name] = surfaces[0]
    for attribute in ("link", "flag"):
        values = [getattr(surface, attribute) for surface in found.values()]
        if len(values) != len(set(values)):
            raise TypeError(f"two Design fields share a Surface.{attribute}: {sorted(values)}")
    return found


FIELDS: dict[str, Surface] = _surfaces()
"""``Design`` field -> its ``Surface`` (link key, CLI flag, label, help, unit, vocabulary, sidebar widget)."""


@functools.cache
def field_bounds(field: str) -> tuple[float | None, float | None, bool, bool]:
    """(low, high, low_open, high_open) of a ``Design`` field's numeric bounds (``None`` = unbounded)."""
    return _model_bounds(Design, field)


def _model_bounds(model: type[BaseModel], field: str) -> tuple[float | None, float | None, bool, bool]:
    """(low, high, low_open, high_open) of a model field's numeric bounds (``None`` = unbounded)."""
    low = high = None
    low_open = high_open = False
    for meta in model.model_fields[field].metadata:
        for name in ("ge", "gt", "le", "lt"):
            bound = getattr(meta, name, None)
            if bound is None:
                continue
            if name in ("ge", "gt"):
                low, low_open = bound, name == "gt"
            else:
                high, high_open = bound, name == "lt"
    return low, high, low_open, high_open


@functools.cache
def field_type(field: str) -> type:
    """The value type of a ``Design`` field without ``None``: ``int``, ``float``, ``bool``, ``str`` or ``dict``."""
    annotation = Design.model_fields[field].annotation
    if getattr(annotation, "__origin__", None) is dict:
        return dict
    args = [a for a in getattr(annotation, "__args__", (annotation,)) if a is not type(None)]
    for kind in (bool, int, float, dict):
        if any(a is kind or getattr(a, "__origin__", None) is kind for a in args):
            return kind
    return str


class _HugeNumber:
    """A JSON integer too long to be any design value (Python refuses to read over 4,300 digits)."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return _("<a {digits}-digit number>").format(digits=f"{self.digits:,}")


_JSON_NESTING = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\[\]{}]', re.DOTALL)
"""A JSON string (to skip) or a bracket. A string token always matches from its opening quote, to its closing quote
or the end of the text (possessive, so nothing is tried twice): an unterminated string of 64,000 escaped quotes
is one pass, not one scan per quote (which made a 128 kB upload cost 47 s)."""


def _json_depth(text: str, limit: int) -> int:
    """Deepest nesting of arrays and objects in ``text`` (strings skipped), stopping past ``limit``."""
    depth = deepest = 0
    for match in _JSON_NESTING.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif token in "]}":
            depth -= 1
    return deepest


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    data: dict = {}
    for key, value in pairs:
        if key in data:
            raise InputError(_("design file gives {key} twice").format(key=shown(key)))
        data[key] = value
    return data


_JSON_PROBLEMS = {message: message for message in (
    N_("Expecting value"), N_("Expecting ',' delimiter"), N_("Expecting ':' delimiter"),
    N_("Expecting property name enclosed in double quotes"), N_("Unterminated string starting at"),
    N_("Invalid control character at"), N_("Invalid \\escape"), N_("Invalid \\uXXXX escape"), N_("Extra data"),
    N_("Illegal trailing comma before end of object"), N_("Illegal trailing comma before end of array"),
)}
"""The ``json`` module's error messages (``JSONDecodeError.msg``), marked for translation."""


def load_design_json(text: str) -> dict:
    """The JSON object of a design file, checked for size, nesting depth, huge numbers and repeated keys.

    Raises ``InputError`` (one line, input shown truncated) for anything else.
    """
    if len(text) > MAX_DESIGN_FILE_BYTES:
        raise InputError(_("design JSON is larger than 1 MB ({bytes} bytes), the most a design may be").format(
            bytes=f"{MAX_DESIGN_FILE_BYTES:,}"))
    if _json_depth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        raise InputError(_("design file is nested more than {depth} levels deep (arrays or objects inside each "
                           "other); a design needs 2").format(depth=MAX_JSON_DEPTH))
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys,
                          parse_int=lambda digits: int(digits) if len(digits) <= 40 else _HugeNumber(len(digits)))
    except InputError:
        raise
    except json.JSONDecodeError as exc:
        problem = _(_JSON_PROBLEMS[exc.msg]) if exc.msg in _JSON_PROBLEMS else exc.msg
        raise InputError(_("design file is not valid JSON: {problem} at line {line} column {column}").format(
            problem=problem, line=exc.lineno, column=exc.colno)) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(_("design file cannot be read as JSON ({error})").format(error=type(exc).__name__)) \
            from None
    if not isinstance(data, dict):
        raise InputError(_("design file must hold a JSON object, not {value}").format(value=shown(data)))
    return data


def design_file_fields(data: dict) -> dict:
    """The design fields of a design file's JSON object: ``version`` checked and removed.

    No ``version``: an older export or a hand-written file, read as version 1. A whole number from 1 to
    ``DESIGN_FILE_VERSION`` is read; anything else is an ``InputError`` saying which versions are read.
    """
    if VERSION_FIELD not in data:
        return data
    fields = dict(data)
    version = fields.pop(VERSION_FIELD)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise InputError(_("design file version must be a whole number (this app reads version {newest}), "
                           "not {value}").format(newest=DESIGN_FILE_VERSION, value=_number_text(version)
                                                 if not isinstance(version, str) else shown(version)))
    if version > DESIGN_FILE_VERSION:
        raise InputError(_("design file version {version} is newer than this app reads (version {newest} at most); "
                           "use a newer fabric planner, or export the design again from the app that wrote it")
                         .format(version=_number_text(version), newest=DESIGN_FILE_VERSION))
    return fields


def parse_design(data: dict) -> Design:
    """Validate a mapping into a ``Design``, turning pydantic errors into one readable ``InputError``."""
    try:
        return Design.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc)) from None


_TYPE_MESSAGES = {
    "int_type": N_("must be a whole number"),
    "int_from_float": N_("must be a whole number"),
    "float_type": N_("must be a number"),
    "finite_number": N_("must be a finite number"),
    "string_type": N_("must be text"),
    "dict_type": N_("must be an object of catalog id: number"),
    "bool_type": N_("must be true or false"),
}
_BOUND_TYPES = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")
MAX_MESSAGE_CHARS = 250


def field_range(field: str) -> str | None:
    """``must be from 1 to 3``: the bounds of ``Design`` field ``field`` in words, the one sentence its CLI help, the
    CLI's reading of the flag and the design's validation say (None: unbounded)."""
    return _field_range(Design, field)


def _field_range(model: type[BaseModel], field: str) -> str | None:
    """``must be from 1 to 16`` / ``must be above 0 and at most 30``: the bounds of a model field."""
    if field not in model.model_fields:
        return None
    low, high, low_open, high_open = _model_bounds(model, field)
    if low is None and high is None:
        return None
    lo, hi = _number_text(low) if low is not None else "", _number_text(high) if high is not None else ""
    if low is not None and high is not None:
        if not low_open and not high_open:
            return _("must be from {range}").format(range=span(lo, hi))
        message = {(True, True): _("must be above {low} and below {high}"),
                   (True, False): _("must be above {low} and at most {high}"),
                   (False, True): _("must be at least {low} and below {high}")}[low_open, high_open]
        return message.format(low=lo, high=hi)
    if low is not None:
        return _BOUND_MESSAGES["greater_than" if low_open else "greater_than_equal"]().format(bound=lo)
    return _BOUND_MESSAGES["less_than" if high_open else "less_than_equal"]().format(bound=hi)


_BOUND_MESSAGES = {
    "greater_than": lambda: _("must be above {bound}"),
    "greater_than_equal": lambda: _("must be at least {bound}"),
    "less_than": lambda: _("must be below {bound}"),
    "less_than_equal": lambda: _("must be at most {bound}"),
}


def _bound_message(error: dict) -> str:
    bound = next(iter((error.get("ctx") or {}).values()), None)
    return _BOUND_MESSAGES[error["type"]]().format(bound=_number_text(bound))


_LITERAL_CHOICES = re.compile(r", | or ")


def _literal_message(error: dict) -> str | None:
    """``must be 'a', 'b' or 'c'`` for a value outside a ``Literal`` (pydantic's ``expected`` list)."""
    expected = str((error.get("ctx") or {}).get("expected", ""))
    if not expected:
        return None
    return _("must be {choices}").format(choices=or_list(_LITERAL_CHOICES.split(expected)))


def describe_validation_error(exc: ValidationError) -> str:
    """One short line: ``field: problem (got value)`` per problem, e.g.
    ``tco_years: must be above 0 and at most 30 (got 0)``; values and names shown truncated."""
    model = Design if exc.title == Design.__name__ else None
    parts: list[str] = []
    errors = exc.errors()
    for error in errors:
        loc = [str(p) if isinstance(p, int) else (p if len(p) <= 40 else p[:37] + "...") for p in error["loc"]]
        field = ".".join(loc) or _("design")
        kind = error["type"]
        if kind in _BOUND_TYPES:
            message = (_field_range(model, error["loc"][0]) if model and len(error["loc"]) == 1 else None) \
                or _bound_message(error)
        elif kind in _TYPE_MESSAGES:
            message = _(_TYPE_MESSAGES[kind])
        elif kind == "literal_error" and _literal_message(error):
            message = _literal_message(error)
        else:
            message = error["msg"].removeprefix("Value error, ").replace("Input should be", _("must be"))
            message = message if len(message) <= 160 else message[:157] + "..."
        got = error.get("input")
        if kind == "extra_forbidden":  # a sentence of its own: 'unknown_key' is not a design field
            part = _("{field} is not a design field").format(field=shown(field))
        elif isinstance(got, dict):
            part = _("{field}: {problem}").format(field=field, problem=message)
        else:
            part = _("{field}: {problem} (got {value})").format(field=field, problem=message, value=_number_text(got))
        if parts and len(_problems([*parts, part])) > MAX_MESSAGE_CHARS:
            more = len(errors) - len(parts)
            parts.append(ngettext("and {count} more problem", "and {count} more problems", more).format(count=more))
            break
        parts.append(part)
    return _problems(parts)


def _problems(parts: list[str]) -> str:
    """Problems one after the other: ``a; b; c`` (a full-width semicolon in Chinese)."""
    return _("; ").join(parts)


class ResolvedDesign(BaseModel):
    """A design with every default filled in from the catalog and checked."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    design: Design
    system: System
    nic: Nic
    switch: Switch
    nodes: int
    gpus: int
    gpus_per_node: int
    nvlink_generation: int
    nvlink_domain_gpus: int
    nvlink_gbytes_per_gpu_bidir: float
    fabric: FabricKind
    port_speed_gbps: int
    nics_per_node: int
    planes: int
    switch_ports: int
    topology: Topology
    host_gbits_per_nic: int = 0
    """What the host's PCIe link feeds one NIC, one direction [Gb/s] (``core.hostlink.host_gbits``); 0 = not
    limited. Every bandwidth reads ``core.hostlink.fed_nic_gbits``: ``min(port speed x ports in use, this)``."""
    nodes_per_rack: int
    leaf_switch: Switch | None = None
    """Leaf model (the same as ``switch``); None only in resolved designs built by hand."""
    spine_switch: Switch | None = None
    core_switch: Switch | None = None
    uplink_speed_gbps: int = 0
    """Leaf uplinks and spine/core ports, per direction [Gb/s]; 0 = ``port_speed_gbps``."""
    leaf_uplink_cost: float = 1.0
    """Leaf ports at ``port_speed_gbps`` one uplink at ``uplink_speed_gbps`` takes (2 when an 800G port
    carries one uplink but breaks out to 2 x 400G toward NICs)."""
    spine_ports: int = 0
    """Spine ports at the uplink speed; 0 = ``switch_ports``."""
    core_ports: int = 0
    """Core ports at the uplink speed; 0 = ``switch_ports``."""
    nvlink_rack_gpus: int = 0
    """GPUs of one first-level NVLink domain (a rack's or node's own NVSwitches); 0 = the whole NVLink domain
    (one level). Below ``nvlink_domain_gpus``, a second NVSwitch level joins them (``core.fabric.domainlevels``)."""
    nvlink_level2_gbytes_per_gpu: float = 0.0
    """A GPU's bandwidth to other first-level domains of its NVLink domain [GB/s, one direction]; 0 = as built
    (``core.fabric.domainlevels.ScaleUp.level2_gbytes_per_gpu``). Set only on a failure what-if's degraded copy:
    what the worst domain's surviving level-2 NVLink switches leave (``core.analysis.failure.nvlink2``)."""
    nvlink_domain_sizes: tuple[int, ...] = ()
    """``Design.nvlink_domains``: the sizes of the first NVLink domains [GPUs]; the rest are
    ``nvlink_domain_gpus`` (the largest of all)."""
    plane_mode: str = "per-port"
    islands: int = 1
    """Independent fabrics per plane: the rails of rail-only, the planes of per-rail plane mode (then
    ``planes`` is 1 and each island is one plane of its own)."""
    su_nodes: int | None = None
    pod_sus: int | None = None
    grow_to: int | None = None
    notes: tuple[str, ...] = ()
    """Adjustments made while resolving (rounded node counts, speed limits), in words."""
    price_overrides: dict[str, float] = {}
    """``design.price_overrides`` keyed by canonical catalog id [USD per unit]."""
    power_overrides: dict[str, float] = {}
    """``design.power_overrides`` keyed by canonical catalog id [W per unit]."""

    @property
    def nvlink_level1_gpus(self) -> int:
        """GPUs of one first-level NVLink domain: one rack of an NVL72 (72), one HGX node (8); the whole domain
        when it has one level."""
        return self.nvlink_rack_gpus or self.nvlink_domain_gpus

    @property
    def nvlink_level1_nodes(self) -> int:
        """Nodes of one first-level NVLink domain (an NVLink rack's compute trays); 1 when it is one node."""
        return max(1, self.nvlink_level1_gpus // self.gpus_per_node)

    @property
    def rails(self) -> int:
        return self.nics_per_node

    @property
    def rails_per_island(self) -> int:
        """Rails (NICs per node) one island's leaves serve: all of them unless the plane is split."""
        return self.nics_per_node // self.islands

    @property
    def uplink_gbps(self) -> int:
        """Leaf uplink, spine and core port speed, per direction [Gb/s]."""
        return self.uplink_speed_gbps or self.port_speed_gbps

    @property
    def leaf_speed_ratio(self) -> float:
        """Leaf down speed / uplink speed (0.5 for 400G to the NICs and 800G up): what splitting a leaf's ports reads
        of the two speeds (``core.fabric.sizing._speed_ratio``)."""
        return self.port_speed_gbps / self.uplink_gbps

    @property
    def spine_radix(self) -> int:
        return self.spine_ports or self.switch_ports

    @property
    def core_radix(self) -> int:
        return self.core_ports or self.switch_ports

    @property
    def tier_switches(self) -> dict[str, Switch]:
        """Switch model of each tier (``leaf``, ``spine``, ``core``)."""
        return {"leaf": self.leaf_switch or self.switch, "spine": self.spine_switch or self.switch,
                "core": self.core_switch or self.switch}

    @property
    def endpoints_per_plane(self) -> int:
        """NIC ports attached to one plane (one per NIC per node)."""
        return self.nodes * self.nics_per_node


def offered_port_speeds(catalog: Catalog, fabric: str) -> list[int]:
    """Port speeds [Gb/s] the engine can build on ``fabric``, ascending.

    A speed is offered when some NIC runs it on that fabric (``Nic.speeds_on``:
    ConnectX-8 runs 800G on InfiniBand but 2 x 400GbE on Ethernet) and some
    fabric switch of that fabric has a port mode at it. The web UI's port-speed
    list and the share-link check (``core.sharelink``) both use this rule.
    """
    switch_speeds = {m.speed_gbps for s in catalog.fabric_switches(fabric) for m in s.port_modes}
    nic_speeds = {sp for n in catalog.nics if fabric in n.fabrics for sp in n.speeds_on(fabric)}
    return sorted(switch_speeds & nic_speeds)


def default_switch(catalog: Catalog, fabric: str, speed_gbps: int, nic: Nic | None = None) -> Switch:
    """The default fabric switch for ``fabric`` at ``speed_gbps`` [Gb/s].

    On InfiniBand, prefers the switch of the NIC's generation (same top
    speed: ConnectX-6 and QM8700 at 200G, ConnectX-7 and QM9700 at 400G,
    ConnectX-8 and Q3400 at 800G; an EDR HCA does not link with an HDR100
    port). Otherwise catalog order: the catalog lists switches in the order a
    vendor reference design would pick them (SN5600 split to 2 x 400GbE is
    NVIDIA's Spectrum-X choice for 400G GPUs).
    """
    candidates = catalog.fabric_switches(fabric, speed_gbps)
    if not candidates:
        speeds = sorted({m.speed_gbps for s in catalog.fabric_switches(fabric) for m in s.port_modes})
        raise InputError(tidy_spaces(_("no {fabric} switch in the catalog offers {speed} Gb/s ports; offered speeds: "
                                       "{speeds}").format(fabric=fabric_word(fabric), speed=speed_gbps,
                                                          speeds=", ".join(f"{s}" for s in speeds))))
    if nic is not None and fabric == "infiniband":  # IB signalling ties HCA and switch generations
        top = max(nic.port_speeds_gbps)
        same_generation = [s for s in candidates if max(s.speeds_gbps) == top]
        if same_generation:
            return same_generation[0]
    return candidates[0]


def design_nics_per_node(design: Design, system: System) -> int:
    """NICs per node (rails) of ``design``: as asked, else the system's; one per GPU is kept when
    only GPUs per node changes (an H100 node of 4 GPUs gets 4 NICs)."""
    if design.nics_per_node:
        return design.nics_per_node
    if design.gpus_per_node and system.default_nics_per_node == system.gpus_per_node:
        return design.gpus_per_node
    return system.default_nics_per_node


def resolve_nic_and_speed(
    catalog: Catalog, system: System, fabric: str, requested_speed: int | None
) -> tuple[Nic, int, list[str]]:
    """The NIC and port speed [Gb/s] a design of ``system`` runs on ``fabric``, and notes saying why.

    The one rule for the engine (``resolve_design``) and the share-link check
    (``core.formats.sharelink``), so a link names the switch the engine plans. The system's NIC
    is kept when it runs on ``fabric`` (else the fastest NIC that does). With no
    ``requested_speed`` the system's default speed is used, lowered to the NIC's fastest on
    ``fabric`` when the NIC does not run it there (ConnectX-8 runs 800G on InfiniBand but
    2 x 400GbE on Ethernet, so B300 on Ethernet runs at 400G). A requested speed the NIC does
    not run picks the slowest-generation, cheapest NIC that does.

    Raises
    ------
    InputError
        No NIC of ``fabric`` in the catalog runs ``requested_speed``.
    """
    notes: list[str] = []
    nic = catalog.nic(system.default_nic)
    bought = [n for n in catalog.nics if n.transport is None]  # a cloud instance's adapter only when named
    if fabric not in nic.fabrics:
        fitting = [n for n in bought if fabric in n.fabrics]
        nic = max(fitting, key=lambda n: max(n.speeds_on(fabric)))
    port_speed = requested_speed or system.default_port_speed_gbps
    if requested_speed is None and port_speed not in nic.speeds_on(fabric):
        port_speed = max(nic.speeds_on(fabric))
        notes.append(tidy_spaces(_(
            "{nic} runs at most {speed} Gb/s per port on {fabric}; {system}'s {system_speed} Gb/s needs "
            "{planes} planes at {speed} Gb/s."
        ).format(nic=nic.id, speed=port_speed, fabric=fabric_word(fabric), system=system.id,
                 system_speed=system.default_port_speed_gbps, planes=system.default_port_speed_gbps // port_speed)))
    if port_speed not in nic.speeds_on(fabric):
        fitting = [n for n in bought if fabric in n.fabrics and port_speed in n.speeds_on(fabric)]
        if not fitting:
            speeds = sorted({s for n in bought if fabric in n.fabrics for s in n.speeds_on(fabric)})
            raise InputError(tidy_spaces(_("no {fabric} NIC in the catalog runs at {speed} Gb/s; offered: {speeds}")
                                         .format(fabric=fabric_word(fabric), speed=port_speed,
                                                 speeds=", ".join(map(str, speeds)))))
        nic = min(fitting, key=lambda n: (max(n.speeds_on(fabric)), n.price_usd))
    return nic, port_speed, notes


def chosen_nic_and_speed(
    catalog: Catalog, system: System, fabric: str, nic_id: str, requested_speed: int | None
) -> tuple[Nic, int, list[str]]:
    """The NIC the design names and its port speed [Gb/s]: the requested speed, else the system's, else the
    NIC's fastest on ``fabric`` (with a note). ``InputError`` if the NIC is not of ``fabric`` or does not run
    the requested speed there."""
    nic = catalog.nic(nic_id)
    speeds = nic.speeds_on(fabric)
    if fabric not in nic.fabrics:
        raise InputError(tidy_spaces(_("NIC {nic} does not run on {fabric}").format(
            nic=nic.id, fabric=fabric_word(fabric))))
    notes: list[str] = []
    if requested_speed is not None:
        if requested_speed not in speeds:
            raise InputError(tidy_spaces(_("NIC {nic} does not run {speed} Gb/s on {fabric}; it runs {speeds}").format(
                nic=nic.id, speed=requested_speed, fabric=fabric_word(fabric), speeds=", ".join(map(str, speeds)))))
        return nic, requested_speed, notes
    speed = system.default_port_speed_gbps
    if speed not in speeds:
        speed = max(speeds)
        notes.append(tidy_spaces(_("{nic} runs at most {speed} Gb/s per port on {fabric}; the ports run at {speed} "
                                   "Gb/s.").format(nic=nic.id, speed=speed, fabric=fabric_word(fabric))))
    return nic, speed, notes


def provider_fabric_note(transport: str) -> str:
    """What a design on a cloud instance's adapters (``Nic.transport``) plans: the provider's fabric, not bought."""
    return _("The networks are the cloud provider's ({transport}): they are not bought, so the BOM and capex hold "
             "only the compute nodes (priced as bought servers; cloud rent is not modelled). The compute fabric's "
             "switch tiers are sized as a stand-in Clos of the chosen switch only to count the hops a collective "
             "crosses; the transport's own constants set the collective model.").format(
        transport=vocab.TRANSPORT.label(transport))


def tier_switch(catalog: Catalog, switch_id: str, fabric: str, speed_gbps: int, tier: str) -> Switch:
    """The switch ``switch_id`` checked for one tier: of ``fabric``, a fabric switch, with a port mode at
    ``speed_gbps`` [Gb/s] (``InputError`` for the first two, ``DesignError`` naming its modes for the last)."""
    switch = catalog.switch(switch_id)
    if switch.fabric != fabric:
        raise InputError(tidy_spaces(_("switch {switch} is {switch_fabric}, but the fabric is {fabric}").format(
            switch=switch.id, switch_fabric=fabric_word(switch.fabric), fabric=fabric_word(fabric))))
    if switch.role != "fabric":
        raise InputError(_("switch {switch} is a management switch, not a fabric switch").format(switch=switch.id))
    if switch.ports_at(speed_gbps) is None:
        raise DesignError(
            _("the {tier} switch {switch} has no {speed} Gb/s port mode (no such breakout); it offers "
              "{modes}.").format(tier=_(TIER_WORDS[tier]), switch=switch.id, speed=speed_gbps,
                                 modes=", ".join(f"{m.ports}x{m.speed_gbps}G" for m in switch.port_modes)),
            _("Run that tier at {speeds} Gb/s, or choose a {tier} switch with {speed} Gb/s ports.").format(
                speeds=or_list([str(m.speed_gbps) for m in switch.port_modes]), tier=_(TIER_WORDS[tier]),
                speed=speed_gbps),
        )
    return switch


TIER_WORDS = {"leaf": N_("leaf"), "spine": N_("spine"), "core": N_("core")}


SWITCH_FIELDS = ("switch", "leaf_switch", "spine_switch", "core_switch")
"""The ``Design`` fields that choose the compute fabric's switch models."""


def _switch_fields(design: Design) -> Design:
    """``design`` as the switch models are read from it: on a topology without switches
    (``core.vocab.NODE_TO_NODE``: a torus, whose family declares these fields ignored,
    ``core.fabric.families.ignored_fields``) with none set, so a model given there changes nothing (the default
    switch, as with none given, only names the storage and management networks' vendor)."""
    if design.topology not in vocab.NODE_TO_NODE or not any(getattr(design, f) for f in SWITCH_FIELDS):
        return design
    return design.model_copy(update=dict.fromkeys(SWITCH_FIELDS))


def _resolve_tiers(catalog: Catalog, design: Design, fabric: str, port_speed: int, leaf: Switch,
                   leaf_ports: int) -> dict:
    """Spine and core models, the uplink speed and each tier's port count at it (``ResolvedDesign`` fields)."""
    uplink = design.uplink_speed_gbps or port_speed
    shorthand = design.switch if not design.leaf_switch else None
    if design.uplink_speed_gbps is not None:
        if leaf.ports_at(uplink) is None:
            tier_switch(catalog, leaf.id, fabric, uplink, "leaf")  # raises: the leaf has no uplink mode
    chosen: dict[str, Switch] = {}
    for tier, asked in (("spine", design.spine_switch), ("core", design.core_switch)):
        if asked:
            chosen[tier] = tier_switch(catalog, asked, fabric, uplink, tier)
        elif shorthand or leaf.ports_at(uplink):
            chosen[tier] = tier_switch(catalog, shorthand or leaf.id, fabric, uplink, tier)
        else:
            chosen[tier] = default_switch(catalog, fabric, uplink)
    leaf_up_ports = leaf.ports_at(uplink) or leaf_ports
    return {
        "leaf_switch": leaf, "spine_switch": chosen["spine"], "core_switch": chosen["core"],
        "uplink_speed_gbps": uplink if uplink != port_speed else 0,
        "leaf_uplink_cost": leaf_ports / leaf_up_ports,
        "spine_ports": chosen["spine"].ports_at(uplink) or 0,
        "core_ports": chosen["core"].ports_at(uplink) or 0,
    }


def _islands_and_planes(design: Design, nic: Nic, nics_per_node: int) -> tuple[int, int]:
    """(independent fabrics per plane, planes): rail-only makes each rail an island; per-rail plane mode puts
    NIC *i* in plane ``i mod planes``, so a plane holds ``nics / planes`` rails and is its own island."""
    if design.plane_mode == "per-rail":
        if design.planes > nics_per_node or nics_per_node % design.planes:
            raise DesignError(
                _("per-rail planes put NIC i of every node in plane i mod {planes}, so the {nics} NICs per node "
                  "must fill {planes} planes evenly.").format(planes=design.planes, nics=nics_per_node),
                _("Use {choices} planes, or plane mode per-port.").format(
                    choices=or_list([str(p) for p in range(1, min(nics_per_node, 8) + 1) if nics_per_node % p == 0])),
            )
        if design.topology == "rail-only":
            return nics_per_node, 1
        return design.planes, 1
    if design.topology == "rail-only":
        return nics_per_node, design.planes
    return 1, design.planes


def nvlink_domain_size(system: System, gpus_per_node: int | None, requested: int | None) -> int:
    """GPUs in one NVLink domain: ``requested`` if given, else the system's own domain while the node keeps
    the system's GPU count, else one node (a changed node is its own NVLink domain)."""
    if requested:
        return requested
    return system.nvlink_domain_gpus if gpus_per_node in (None, system.gpus_per_node) else gpus_per_node


def first_level_size(system: System, gpus_per_node: int | None, domain: int, requested: int | None) -> int:
    """GPUs of one first-level NVLink domain (a rack's or node's own NVSwitches) in an NVLink domain of ``domain``
    GPUs: ``requested`` (at most the domain), else the system's own domain when ``domain`` is larger and the node
    keeps the system's GPU count (``System.nvlink_two_level_rack_gpus`` if set: GB200's NVL36 rack, whose switches
    have free ports for the second level), else the whole domain (one level)."""
    if requested:
        return min(requested, domain)
    if domain > system.nvlink_domain_gpus and gpus_per_node in (None, system.gpus_per_node):
        return system.nvlink_two_level_rack_gpus or system.nvlink_domain_gpus
    return domain


def _nvlink_levels(design: Design, system: System, gpus_per_node: int) -> tuple[int, int, tuple[int, ...]]:
    """(the largest NVLink domain, its first level, the listed mixed sizes) [GPUs] of ``design``, each in whole
    nodes (``InputError``) and every domain in whole first-level domains (``DesignError``)."""
    mixed = domain_list(design.nvlink_domains)
    base = nvlink_domain_size(system, design.gpus_per_node, design.nvlink_domain_gpus)
    domain = max((base, *mixed))
    level1 = first_level_size(system, design.gpus_per_node, domain, design.nvlink_rack_gpus)
    for size in {domain, level1}:
        if size < gpus_per_node and size != 1:
            raise InputError(_("nvlink_domain_gpus ({domain}) must be 1 or at least gpus_per_node ({gpus_per_node})")
                             .format(domain=size, gpus_per_node=gpus_per_node))
        if size > gpus_per_node and size % gpus_per_node:
            raise InputError(_("nvlink_domain_gpus ({domain}) must be a multiple of gpus_per_node ({gpus_per_node})")
                             .format(domain=size, gpus_per_node=gpus_per_node))
    _check_whole_racks((base, *mixed), level1)
    return domain, level1, mixed


def _check_whole_racks(sizes: tuple[int, ...], level1: int) -> None:
    """Every NVLink domain size [GPUs] a whole number of first-level domains of ``level1`` GPUs (``DesignError``
    with the nearest sizes that are)."""
    for size in sizes:
        if level1 > 1 and size % level1:
            below, above = size // level1 * level1, -(-size // level1) * level1
            raise DesignError(
                _("An NVLink domain of {size} GPUs is not a whole number of first-level NVLink domains (racks) of "
                  "{level1} GPUs.").format(size=size, level1=level1),
                _("Use {above} GPUs ({racks} racks){below}, or a first NVLink level that divides {size}.").format(
                    above=above, racks=above // level1, size=size,
                    below=_(" or {below} GPUs").format(below=below) if below else ""))


_DICT_FIELDS = tuple(name for name, f in Design.model_fields.items() if typing.get_origin(f.annotation) is dict)
DesignFields = view("DesignFields", " ".join(name for name in Design.model_fields if name not in _DICT_FIELDS),
                    **{name: FrozenDict for name in _DICT_FIELDS})
"""Every field of a ``Design`` as a frozen value (``core.memo.view``; the dicts as ``FrozenDict``s): a cache key that
compares as a tuple."""

_RESOLVED_DICTS = ("price_overrides", "power_overrides")
ResolvedFields = view("ResolvedFields", " ".join(name for name in ResolvedDesign.model_fields
                                                 if name != "design" and name not in _RESOLVED_DICTS),
                      design=DesignFields, **{name: FrozenDict for name in _RESOLVED_DICTS})
"""Every field of a ``ResolvedDesign`` as a frozen value (``core.memo.view``: its design's ``DesignFields``, the
overrides as ``FrozenDict``s): a cache key of a stage that reads a resolved design whole, which ``resolved_of``
builds back."""


def resolved_of(fields: ResolvedFields) -> ResolvedDesign:
    """The resolved design of ``fields`` (``ResolvedFields.of(resolved)``): every field the same, its properties
    read as the original's."""
    values = fields._asdict()
    values["design"] = Design.model_construct(**fields.design._asdict())
    return ResolvedDesign.model_construct(**values)


def _domains_and_nodes(design: Design, system, gpus_per_node: int, nodes: int, notes: list[str]):
    """``resolve_design``'s NVLink domain step: the domain and first-level sizes and listed domains
    (``_nvlink_levels``), checked; ``nodes`` rounded up to whole domains (the note appended to ``notes``); the GPUs,
    checked against ``MAX_GPUS`` (``gpu_limit_problem``, before the rounding) and the listed domains. Returns
    (domain, level1, mixed, nodes, gpus)."""
    domain, level1, mixed = _nvlink_levels(design, system, gpus_per_node)
    scaleup.check_domain(system, domain)
    nodes_per_domain = max(1, level1 // gpus_per_node)
    too_many = gpu_limit_problem(nodes, gpus_per_node, nodes_per_domain)
    if too_many is not None:
        raise GpuLimitError(_("{problem}.").format(problem=too_many[0]),
                            _("{ways_out}.").format(ways_out=too_many[1][0].upper() + too_many[1][1:]),
                            most_nodes(gpus_per_node, nodes_per_domain))
    if nodes % nodes_per_domain:
        whole = math.ceil(nodes / nodes_per_domain) * nodes_per_domain
        notes.append((_(
            "{nodes} nodes rounded up to {whole}: an NVLink domain of {domain} GPUs comes as a whole rack "
            "of {rack_nodes} nodes (NVLink switch trays, power shelves).") if system.nvlink_generation else _(
            "{nodes} nodes rounded up to {whole}: a {name} domain of {domain} accelerators comes whole, "
            "{rack_nodes} nodes with its switches.")
        ).format(nodes=nodes, whole=whole, domain=domain, rack_nodes=nodes_per_domain, name=system.scaleup_name))
        nodes = whole
    gpus = nodes * gpus_per_node
    if sum(mixed) > gpus:
        raise DesignError(
            _("The listed NVLink domains hold {listed} GPUs, more than the {gpus} GPUs planned.").format(
                listed=f"{sum(mixed):,}", gpus=f"{gpus:,}"),
            _("List fewer domains, or plan at least {gpus} GPUs.").format(gpus=f"{sum(mixed):,}"))
    return domain, level1, mixed, nodes, gpus


def resolve_design(design: Design, catalog: Catalog | None = None) -> ResolvedDesign:
    """Fill every default from the catalog and check that the pieces fit together.

    Raises
    ------
    InputError
        An unknown model, an override of an id the catalog does not have, or a
        combination the hardware does not offer (e.g. a switch without the chosen port speed).
    DesignError
        A combination that cannot be built (e.g. more planes than the NIC has ports).
    """
    catalog = catalog or load_catalog()
    system = catalog.system(design.gpu)
    price_overrides = canonical_overrides(design.price_overrides, catalog, "USD")
    power_overrides = canonical_overrides(design.power_overrides, catalog, "W")
    notes: list[str] = []
    gpus_per_node = design.gpus_per_node or system.gpus_per_node
    if design.gpus is not None:
        nodes = math.ceil(design.gpus / gpus_per_node)
    else:
        nodes = design.nodes  # set by the validator
    assert nodes is not None

    nvlink_generation, nvlink_bidir = scaleup.scaleup_bandwidth(catalog, system, design.nvlink_generation)
    domain, level1, mixed, nodes, gpus = _domains_and_nodes(design, system, gpus_per_node, nodes, notes)
    nodes_per_domain = max(1, level1 // gpus_per_node)

    fabric = design.fabric or system.default_fabric
    if design.nic:
        nic, port_speed, speed_notes = chosen_nic_and_speed(catalog, system, fabric, design.nic, design.port_speed_gbps)
    else:
        nic, port_speed, speed_notes = resolve_nic_and_speed(catalog, system, fabric, design.port_speed_gbps)
    notes.extend(speed_notes)
    if nic.transport is not None:
        notes.append(provider_fabric_note(nic.transport))

    asked = _switch_fields(design)  # a family without switches reads none of their models
    if asked.leaf_switch:
        switch = tier_switch(catalog, asked.leaf_switch, fabric, port_speed, "leaf")
    elif asked.switch:
        switch = catalog.switch(asked.switch)
        if switch.fabric != fabric:
            raise InputError(tidy_spaces(_("switch {switch} is {switch_fabric}, but the fabric is {fabric}").format(
                switch=switch.id, switch_fabric=fabric_word(switch.fabric), fabric=fabric_word(fabric))))
        if switch.role != "fabric":
            raise InputError(_("switch {switch} is a management switch, not a fabric switch").format(switch=switch.id))
        if switch.ports_at(port_speed) is None:
            raise InputError(_("switch {switch} has no {speed} Gb/s port mode; it offers {modes}").format(
                switch=switch.id, speed=port_speed,
                modes=", ".join(f"{m.ports}x{m.speed_gbps}G" for m in switch.port_modes)))
    else:
        switch = default_switch(catalog, fabric, port_speed, nic)
        uplink = design.uplink_speed_gbps
        if uplink and not switch.ports_at(uplink):  # a default leaf that also runs the uplink speed
            both = [s for s in catalog.fabric_switches(fabric, port_speed) if s.ports_at(uplink)]
            switch = both[0] if both else switch
    switch_ports = switch.ports_at(port_speed)
    assert switch_ports is not None

    nics_per_node = design_nics_per_node(design, system)
    nodes_per_rack = design.nodes_per_rack or system.nodes_per_rack
    if nodes_per_domain > 1 and design.nodes_per_rack is None and (
            (nodes_per_rack % nodes_per_domain and nodes_per_domain % nodes_per_rack)  # CloudMatrix 384: 12 racks
            or design.nvlink_rack_gpus or level1 < domain):  # NVL36 racks: 9 trays each
        nodes_per_rack = nodes_per_domain

    tiers = _resolve_tiers(catalog, asked, fabric, port_speed, switch, switch_ports)
    if design.plane_mode == "per-rail" and design.planes == 1:  # NIC i in plane i mod 1: not planes at all
        raise DesignError(
            _("Plane mode per-rail with 1 plane puts every NIC in the same plane: one ordinary fabric, not "
              "separate planes."),
            _("Use {nics} planes (one per NIC), or plane mode per-port.").format(nics=min(nics_per_node, 8)))
    islands, planes = _islands_and_planes(design, nic, nics_per_node)
    if design.grow_to is not None and design.grow_to < nodes:
        raise DesignError(
            _("grow_to ({grow_to} nodes) is below the {nodes} nodes planned now.").format(
                grow_to=f"{design.grow_to:,}", nodes=f"{nodes:,}"),
            _("Set grow_to to at least {nodes}, or leave it empty.").format(nodes=f"{nodes:,}"))
    if design.grow_to is not None and design.grow_to > nodes and nodes_per_domain > 1 \
            and design.grow_to % nodes_per_domain:
        raise DesignError(
            _("grow_to ({grow_to} nodes) is not a whole number of NVLink racks of {rack_nodes} nodes.").format(
                grow_to=f"{design.grow_to:,}", rack_nodes=nodes_per_domain),
            _("Set grow_to to {whole}.").format(
                whole=f"{math.ceil(design.grow_to / nodes_per_domain) * nodes_per_domain:,}"))

    _check_stages(design, nodes, nodes_per_domain)

    host_cap = hostlink.host_cap_note(catalog, system, nic, fabric, port_speed, planes)
    if host_cap:
        notes.append(host_cap)
    ports_per_nic = nic.logical_ports(port_speed, fabric)
    if design.plane_mode == "per-rail":
        pass  # each NIC uses one port, in its own plane (checked by _islands_and_planes)
    elif design.planes > ports_per_nic:
        raise DesignError(
            ngettext("{nic} has {ports} port at {speed} Gb/s, so each rail reaches at most {ports} plane, not "
                     "{planes} (a per-port plane takes a port of every NIC).",
                     "{nic} has {ports} ports at {speed} Gb/s, so each rail reaches at most {ports} planes, not "
                     "{planes} (a per-port plane takes a port of every NIC).",
                     ports_per_nic).format(nic=nic.id, ports=ports_per_nic, speed=port_speed, planes=design.planes),
            _("Choose per-rail planes, fewer planes, or a NIC and port speed with more ports (ConnectX-8 runs "
              "2 x 400GbE on Ethernet)."),
        )

    return ResolvedDesign(
        design=design,
        system=system,
        nic=nic,
        switch=switch,
        nodes=nodes,
        gpus=gpus,
        gpus_per_node=gpus_per_node,
        nvlink_generation=nvlink_generation,
        nvlink_domain_gpus=domain,
        nvlink_rack_gpus=level1 if level1 < domain else 0,
        nvlink_domain_sizes=mixed,
        nvlink_gbytes_per_gpu_bidir=nvlink_bidir,
        fabric=fabric,
        port_speed_gbps=port_speed,
        nics_per_node=nics_per_node,
        planes=planes,
        switch_ports=switch_ports,
        host_gbits_per_nic=hostlink.host_gbits(system, nic),
        topology=design.topology,
        nodes_per_rack=nodes_per_rack,
        **tiers,
        plane_mode=design.plane_mode,
        islands=islands,
        su_nodes=design.su_nodes,
        pod_sus=design.pod_sus,
        grow_to=design.grow_to if design.grow_to and design.grow_to > nodes else None,
        notes=tuple(notes),
        price_overrides=price_overrides,
        power_overrides=power_overrides,
    )
