"""Rack power feeds of a failure what-if (``racks.toml [[power_feed]]``; ``core.analysis.failure``).

The rack presets take two feeds with N+N supplies, so one feed lost loses nothing; a one-feed preset loses
the rack with its feed.
"""

from __future__ import annotations

from functools import lru_cache

from core.errors import InputError, shown
from core.i18n import N_, _
from core.plan import Plan


@lru_cache(maxsize=1)
def _feed_table() -> dict:
    from core.catalog import CATALOG_DIR, read_toml

    rows = read_toml(CATALOG_DIR / "racks.toml", N_("catalog file")).get("power_feed", [])
    out = {}
    for row in rows:
        if not (row.get("source") and row.get("as_of")) or int(row.get("power_feeds", 0)) not in (1, 2):
            raise InputError(_("racks.toml: power_feed {preset} needs power_feeds 1 or 2, a source and as_of").format(
                preset=shown(str(row.get("preset")))))
        out[str(row["preset"])] = (int(row["power_feeds"]), str(row.get("psu_redundancy", "")))
    return out


def _feeds_for(preset: str) -> tuple[int, str]:
    """``(power feeds, supply redundancy)`` of a rack preset; two feeds N+N when the table has no row."""
    return _feed_table().get(preset, (2, "N+N"))


def rack_power_feeds(plan: Plan) -> tuple[int, str]:
    """Power feeds of the design's compute racks and how their supplies share them."""
    if plan.layout is not None:
        preset = plan.layout.preset
    else:
        from core.physical.layout import choose_preset

        preset = choose_preset(plan.resolved).id
    return _feeds_for(preset)
