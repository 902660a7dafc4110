"""Published designs to start from (``assets/catalog/presets.toml``), validated.

A ``Preset`` is a design as its publisher describes it (DGX SuperPOD, DeepSeek's multi-plane fat tree, Meta's
RoCE cluster, ...): its ``design`` (a ``core.design.Design``; the fields the preset sets are
``Preset.fields``), its ``source`` (publisher, document, table or figure, date, URL), the numbers the source
prints that the engine reproduces (``published``: a path of the plan summary, ``METRICS``, and the value) and,
in words, where the engine's design is not exactly the publisher's (``differences``). ``tests/
test_golden_presets.py`` plans every preset and compares each published number, so the data is the test.

Where a preset is used: the CLI's ``--preset ID`` (``core.cli.common``: the preset's fields, then ``--design``,
then the options given), the share link's ``preset`` key (``core.formats.sharelink``: the preset's fields, then
the link's own keys), the sidebar's gallery (``webui.gallery``) and ``python -m core presets``.

Languages: ``title``, ``notes`` and ``differences`` are English in the file and in the message catalog
(``tools/babel_toml.py``): show them with ``_(text)``. Sources are quoted as published. ``METRICS`` labels
are marked ``N_``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.catalog import CATALOG_DIR, read_toml
from core.design import Design
from core.errors import InputError, shown
from core.i18n import N_, _

PRESETS_FILE = CATALOG_DIR / "presets.toml"

METRICS: dict[str, str] = {
    "gpus": N_("GPUs"),
    "tiers": N_("Switch tiers"),
    "scalable_units": N_("Scalable units"),
    "pods": N_("Pods"),
    "islands": N_("Independent fabrics (planes or rails)"),
    "planes": N_("Planes"),
    "switches.leaf": N_("Leaf switches"),
    "switches.spine": N_("Spine switches"),
    "switches.core": N_("Core switches"),
    "switches.total": N_("Compute fabric switches"),
    "links.node_leaf": N_("Node-leaf links"),
    "links.leaf_spine": N_("Leaf-spine links"),
    "links.spine_core": N_("Spine-core links"),
    "networks.compute.links": N_("Compute fabric links (with UFM)"),
    "networks.storage.switches": N_("Storage fabric switches"),
    "networks.inband.switches": N_("In-band management switches"),
    "networks.oob.switches": N_("Out-of-band management switches"),
    "transceivers.switch_side": N_("Switch-side transceivers"),
    "transceivers.node_side": N_("Node-side transceivers"),
    "bandwidth.oversubscription": N_("Oversubscription (down:up)"),
    "bandwidth.scaleout_gbits_per_gpu": N_("Scale-out bandwidth per GPU [Gb/s per direction]"),
    "racks.compute": N_("Compute racks"),
    "nvlink.domain_gpus": N_("NVLink domain [GPUs]"),
}
"""A published number's ``metric``: a path into ``Plan.summary()`` (dots between keys) -> its label, marked ``N_``."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(_Strict):
    """Where a preset is published: quoted as published, never translated."""

    publisher: str = Field(min_length=1)
    document: str = Field(min_length=1)
    where: str = Field(min_length=1, description="The table, figure or section the numbers are printed in.")
    date: str = Field(default="", pattern=r"^(\d{4}-\d{2}(-\d{2})?)?$", description="ISO date, as precise as known.")
    url: str = Field(pattern=r"^https://")


class Published(_Strict):
    """One number the source prints (or, ``derived``, that follows from its figures) and the engine reproduces."""

    metric: str
    value: int | float
    where: str = Field(min_length=1)
    derived: bool = False
    tolerance: float = Field(default=0.0, ge=0.0, lt=0.1, description="Relative difference allowed (0: exact).")

    @field_validator("metric")
    @classmethod
    def _known_metric(cls, metric: str) -> str:
        if metric not in METRICS:
            raise ValueError(f"metric {metric!r} is not one of core.presets.METRICS")
        return metric

    def label(self) -> str:
        """The metric's name in the current language."""
        return _(METRICS[self.metric])

    def matches(self, engine: Any) -> bool:
        """Whether the engine's value reproduces this number (within ``tolerance``, relative)."""
        if isinstance(engine, bool) or not isinstance(engine, (int, float)) or not math.isfinite(engine):
            return False
        return abs(engine - self.value) <= self.tolerance * abs(self.value)


class Preset(_Strict):
    """A published design: the ``Design``, its source, the numbers it reproduces and how it differs."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    title: str = Field(min_length=1)
    notes: str = Field(min_length=1)
    differences: tuple[str, ...] = ()
    source: Source
    design: Design
    published: tuple[Published, ...] = Field(min_length=1)

    @property
    def fields(self) -> dict[str, Any]:
        """The design fields the preset sets (every other field takes its default)."""
        return {field: getattr(self.design, field) for field in sorted(self.design.model_fields_set)}


def metric_value(summary: dict, metric: str) -> Any:
    """The value at ``metric`` (keys joined by dots) of a plan summary, ``None`` where the path ends early."""
    value: Any = summary
    for key in metric.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def reproduced(preset: Preset, summary: dict) -> list[tuple[Published, Any, bool]]:
    """Each published number of ``preset``, the engine's value from ``summary`` (``Plan.summary()``) and
    whether it matches."""
    rows = []
    for number in preset.published:
        engine = metric_value(summary, number.metric)
        rows.append((number, engine, number.matches(engine)))
    return rows


def load_presets_from(path: Path) -> tuple[Preset, ...]:
    """Read and validate a presets file; ``InputError`` names the file and the problem (ids must be unique)."""
    data = read_toml(path, N_("catalog file"))
    try:
        presets = tuple(Preset.model_validate(entry) for entry in data.get("preset", []))
    except (ValidationError, TypeError) as exc:
        raise InputError(_("catalog under {directory} is invalid: {error}").format(
            directory=path.parent, error=exc)) from exc
    ids = [p.id for p in presets]
    if len(ids) != len(set(ids)):
        raise InputError(_("catalog under {directory} is invalid: {error}").format(
            directory=path.parent, error=f"{path.name}: a preset id is given twice"))
    return presets


@lru_cache(maxsize=1)
def load_presets() -> tuple[Preset, ...]:
    """The bundled published designs, in the file's order (cached, immutable)."""
    return load_presets_from(PRESETS_FILE)


def preset_ids() -> tuple[str, ...]:
    """Every preset's id, in the file's order."""
    return tuple(p.id for p in load_presets())


def find_preset(key: str) -> Preset:
    """The preset named ``key`` (case-insensitive, spaces at the ends ignored); ``InputError`` naming the known
    ids, ``key`` shown truncated and quoted."""
    wanted = key.strip().lower()
    for preset in load_presets():
        if preset.id == wanted:
            return preset
    raise InputError(_("{key} is not a published design; known: {known}").format(
        key=shown(key, 40), known=", ".join(preset_ids())))
