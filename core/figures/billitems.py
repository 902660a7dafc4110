"""A bill row's item text for people: the engine writes the catalog name and where the row sits in one text
(``NVIDIA Quantum-2 QM9700 ... (leaf)``, ``... (switch side, node-leaf)``, ``... (NVLink level 2)``); the Designer's
bill, the workbook and Compare's bill difference show the part's published name and where it sits apart."""

from __future__ import annotations

import re
from functools import lru_cache

from core.fabric import domainlevels
from core.i18n import N_, _

_END_WORDS = re.compile(r"(,\s*)?\b(?:XDR |NDR )?(?:switch|NIC) end\b")


def bom_item_name(name: str) -> str:
    """A catalog name without its "switch end" / "NIC end" words: the BOM's ``where`` column says which
    end a row is for (a module sold for the switch end can sit in a node's twin-port cage)."""
    text = _END_WORDS.sub("", name)
    text = re.sub(r"\(\s*,\s*", "(", text)
    text = re.sub(r"\(\s*\)", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


@lru_cache(maxsize=1)
def catalog_names() -> dict[str, str]:
    """Catalog id -> published name of every part a bill can hold (``core.fabric.domainlevels.bill_entries``: the
    catalog's and the second NVLink level's switch units, modules and fibres)."""
    return {e.id: e.name for _kind, e in domainlevels.bill_entries()}


def item_and_where(item: str, catalog_id: str) -> tuple[str, str]:
    """``(name, where)`` of a bill row's engine text: the part's name as published (without its end words) and
    where the row sits (``leaf``, ``switch side, node-leaf``, ``NVLink level 2``); the text whole and "" when it
    does not start with its part's name."""
    name = catalog_names().get(catalog_id, "")
    where = item[len(name):].strip() if name and item.startswith(name) else ""
    if not where:
        return item, ""
    return bom_item_name(name), (where[1:-1].strip() if where[:1] in "(（" and where[-1:] in ")）" else where)


BOM_HEADERS = {
    "category": N_("category"), "item": N_("item"), "where": N_("where"), "pod": N_("pod"), "quantity": N_("qty"),
    "unit_price_usd": N_("unit USD"), "extended_price_usd": N_("total USD"), "unit_power_w": N_("unit W"),
    "extended_power_w": N_("total W"), "why": N_("why (how the count was derived)"),
    "price_basis": N_("price basis"), "catalog_id": N_("catalog id"),
    "extended_price_low_usd": N_("total USD (low)"), "extended_price_high_usd": N_("total USD (high)"),
    "network": N_("network"),
}
"""BOM column id -> its header for people (marked; ``bom_headers()`` translates): the Designer's bill, the workbook
(``core.formats.xlsx``) and the review pack's bill."""


def bom_headers() -> dict[str, str]:
    """BOM column id -> header in the current language."""
    return {column: _(header) for column, header in BOM_HEADERS.items()}
