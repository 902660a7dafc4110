"""Rack presets, hall rules and cable-routing constants (``assets/catalog/racks.toml``), validated.

``load_racks()`` returns ``RackCatalog``: ``presets`` (compute and network racks: power limit [kW],
rack units [U], U reserved for PDUs and the management switch, footprint [mm]), ``hall`` (row length
in racks, aisles [mm]) and ``routing`` (U height [mm], tray height [m], slack). Every entry carries
``source`` and ``as_of``; assumptions say so in their source.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.catalog import CATALOG_DIR, read_toml
from core.errors import InputError
from core.i18n import N_, _

NETWORK_PRESET = "network-52"
"""The preset every non-compute rack (network, management, storage) uses."""

PRESET_LABELS = {"air-15": N_("air-cooled"), "superpod-41": N_("SuperPOD air-cooled"),
                 "dense-60": N_("high-density air-cooled"), "nvl72-liquid": N_("liquid-cooled NVL72"),
                 "liquid-230": N_("liquid-cooled, Vera Rubin class")}
"""Compute rack presets (``assets/catalog/racks.toml`` ids) in words, as the sidebar, cards and review pack name them."""


def preset_label(preset_id: str) -> str:
    """A compute rack preset's name in the current language (``PRESET_LABELS``; an unknown id as given)."""
    return _(PRESET_LABELS[preset_id]) if preset_id in PRESET_LABELS else preset_id


class _Sourced(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = Field(min_length=1)
    as_of: str = Field(min_length=1)
    notes: str = ""


class RackPreset(_Sourced):
    """One rack type: what it can power and cool, and its size."""

    id: str = Field(min_length=1)
    name: str
    cooling: Literal["air", "liquid"]
    power_kw: float = Field(gt=0, le=1000, description="IT power the rack carries [kW].")
    rack_units: int = Field(ge=1, le=60, description="Rack height [U].")
    reserved_u: int = Field(ge=0, le=20, description="U kept for PDUs and the rack's management switch [U].")
    width_mm: float = Field(gt=0)
    depth_mm: float = Field(gt=0)

    @property
    def usable_u(self) -> int:
        """Rack units devices may take [U]."""
        return self.rack_units - self.reserved_u


class HallRules(_Sourced):
    max_racks_per_row: int = Field(ge=2, le=200)
    hot_aisle_mm: float = Field(gt=0)
    cold_aisle_mm: float = Field(gt=0)
    end_aisle_mm: float = Field(ge=0)


class Routing(_Sourced):
    u_mm: float = Field(gt=0)
    tray_above_rack_m: float = Field(ge=0)
    in_rack_m: float = Field(ge=0)
    slack_fraction: float = Field(ge=0, le=1)
    slack_end_m: float = Field(ge=0)


class RackCatalog(BaseModel):
    model_config = ConfigDict(frozen=True)

    presets: tuple[RackPreset, ...]
    hall: HallRules
    routing: Routing

    def __hash__(self) -> int:
        """Of the preset ids (equal catalogs hash alike; equality compares every field): the rack catalog is in the
        keys of the engine's cached stages (``core.memo.stage``), and hashing every preset's fields took 26 µs."""
        return hash(tuple(p.id for p in self.presets))

    def preset(self, key: str) -> RackPreset:
        """The preset named ``key`` (case-insensitive); ``InputError`` naming the known ones."""
        for preset in self.presets:
            if preset.id.lower() == key.strip().lower():
                return preset
        raise InputError(_("unknown rack preset {key}; known: {known}").format(
            key=key[:40], known=", ".join(p.id for p in self.compute_presets)))

    @property
    def compute_presets(self) -> tuple[RackPreset, ...]:
        """Presets for compute racks, by power limit (the network rack left out)."""
        return tuple(sorted((p for p in self.presets if p.id != NETWORK_PRESET), key=lambda p: p.power_kw))

    @property
    def network(self) -> RackPreset:
        return self.preset(NETWORK_PRESET)


def load_racks_from(path: Path) -> RackCatalog:
    data = read_toml(path, N_("catalog file"))
    try:
        return RackCatalog(presets=tuple(RackPreset(**r) for r in data.get("rack", [])),
                           hall=HallRules(**data.get("hall", {})), routing=Routing(**data.get("routing", {})))
    except (ValidationError, TypeError) as exc:
        raise InputError(_("catalog under {directory} is invalid: {error}").format(
            directory=path.parent, error=exc)) from exc


@lru_cache(maxsize=1)
def load_racks() -> RackCatalog:
    """The bundled rack presets and hall rules (cached, immutable)."""
    return load_racks_from(CATALOG_DIR / "racks.toml")
