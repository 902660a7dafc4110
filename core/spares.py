"""Spares as rows of the bill of materials: the design's sparing policy (``Design.spares``).

A sparing policy maps a BOM category (``switch``, ``transceiver``, ``cable``, ``NIC``) to a rule:
``"2%"`` (spares = ceil(installed x 2 / 100), per BOM row) or ``"N+1"`` (one spare per row, i.e. per
model per tier). The catalog's defaults are in ``assets/catalog/reliability.toml`` (``[sparing.*]``,
graded [A]: no operator publishes a policy).

``Design.spares`` is the setting: ``"off"`` (no spares, the default), ``"default"`` (the catalog
policy) or a policy text ``"switch=N+1,transceiver=2%,cable=1%,NIC=1%"`` (categories it does not
name take the catalog default; ``0`` spares none). ``canonical_setting`` checks and normalises it
(the Design validator, share link, design file and CLI all go through it).

``spare_rows(rows, setting)`` returns one spare row per installed row of a spared category (the
installed row's category, catalog id, network, end and unit prices; ``spare=True``; no power: a spare
sits on a shelf; ``item`` the installed item with ", spare" in its place; ``why`` the rule in words).
``core.cost.build_bom`` appends them after the installed rows, so ``Plan.bom`` and ``Plan.cost`` (and
the optimizer, which calls ``build_bom`` itself) include them. ``core.analysis.sparing`` adds the
Poisson coverage of each spare row on top.

Layer: beside ``core.catalog`` (it reads a catalog file; it imports only ``core.errors`` and
``core.i18n``), so ``core.design`` can validate the setting with it. Rows are duck-typed pydantic
``core.cost.BomRow`` (``model_copy``), which is defined a layer above.
"""

from __future__ import annotations

import math
import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from core.errors import InputError, shown
from core.i18n import N_, _, current

RELIABILITY_FILE = Path(__file__).resolve().parents[1] / "assets" / "catalog" / "reliability.toml"
SPARED_CATEGORIES = ("switch", "transceiver", "cable", "NIC")
"""BOM categories a policy spares, in the order a policy text is written."""
CATEGORY_WORDS = {"switch": N_("switch"), "transceiver": N_("transceiver"), "cable": N_("cable"), "NIC": N_("NIC")}
"""A spared category in texts (the BOM's category names, ``core.cost.CATEGORY_LABELS``), marked for translation."""
OFF = "off"
DEFAULT = "default"
MAX_SETTING_CHARS = 200


@lru_cache(maxsize=1)
def reliability_table() -> dict:
    """``reliability.toml`` as read (``[reliability.*]`` rates, ``[sparing.*]`` defaults)."""
    with RELIABILITY_FILE.open("rb") as handle:
        return tomllib.load(handle)


def rule_text(kind: str, value: float) -> str:
    """A parsed rule as text: ``("percent", 2.0)`` -> ``"2%"``, ``("n_plus_k", 1)`` -> ``"N+1"``."""
    return f"{value:g}%" if kind == "percent" else f"N+{int(value)}"


def default_policy() -> dict[str, str]:
    """The catalog's sparing policy, as rule texts (``"2%"``, ``"N+1"``), by category."""
    return {category: rule_text(entry["kind"], entry["value"])
            for category, entry in reliability_table()["sparing"].items()}


def parse_rule(category: str, text: str) -> tuple[str, float]:
    """``"2%"`` -> ("percent", 2.0); ``"N+1"`` -> ("n_plus_k", 1); ``"0"`` -> ("percent", 0)."""
    value = str(text).strip().upper().replace(" ", "")
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)%?", value):
        number = float(m.group(1))
        if number <= 100:
            return "percent", number
    elif m := re.fullmatch(r"N\+(\d{1,4})", value):
        return "n_plus_k", float(m.group(1))
    raise InputError(_("sparing for {category}: {value} is not a percentage (2%) or N+k (N+1)").format(
        category=category, value=str(text)[:40]))


def _category(name: str) -> str:
    found = {c.casefold(): c for c in SPARED_CATEGORIES}.get(str(name).strip().casefold())
    if found is None:
        raise InputError(_("no sparing for {category}; spares exist for {categories}").format(
            category=str(name)[:40], categories=", ".join(SPARED_CATEGORIES)))
    return found


def parse_policy(policy: dict[str, str] | None) -> dict[str, tuple[str, float]]:
    """A policy dict (defaults filled in) to parsed rules; unknown categories refused."""
    merged = default_policy()
    for category, rule in (policy or {}).items():
        if category not in SPARED_CATEGORIES:
            _category(category)  # raises, naming the categories
        merged[category] = rule
    return {category: parse_rule(category, rule) for category, rule in merged.items()}


def policy_of_text(text: str) -> dict[str, str]:
    """``"switch=N+1, nic:1%"`` -> ``{"switch": "N+1", "NIC": "1%"}`` (rules normalised, categories any
    case, ``=`` or ``:``, items split by ``,`` or ``;``); ``InputError`` names the first bad item."""
    policy: dict[str, str] = {}
    for item in (part.strip() for part in re.split(r"[,;]", str(text))):
        if not item:
            continue
        name, found, rule = item.replace(":", "=").partition("=")
        if not found:
            raise InputError(_("sparing item {item} wants NAME=VALUE: a category and its rule, e.g. {example}")
                             .format(item=shown(item, 40), example="switch=N+1"))
        category = _category(name)
        if category in policy:
            raise InputError(_("sparing policy names {category} twice").format(category=category))
        policy[category] = rule_text(*parse_rule(category, rule))
    if not policy:
        raise InputError(_("the sparing policy names no category; give off, default or e.g. {example}").format(
            example="switch=N+1,transceiver=2%"))
    return policy


def format_policy(policy: dict[str, str]) -> str:
    """A policy as the text ``policy_of_text`` reads, categories in ``SPARED_CATEGORIES`` order."""
    return ",".join(f"{c}={policy[c]}" for c in SPARED_CATEGORIES if c in policy)


def canonical_setting(text: Any) -> str:
    """``Design.spares`` checked and normalised: ``"off"``, ``"default"`` or a policy text in canonical
    order and form (``"switch=N+1,transceiver=2%"``). Raises ``InputError`` on anything else."""
    if not isinstance(text, str):
        raise InputError(_("spares must be off, default or a policy such as {example}, not {value}").format(
            example="switch=N+1,transceiver=2%", value=shown(text, 40)))
    value = text.strip()
    if len(value) > MAX_SETTING_CHARS:
        raise InputError(_("the sparing policy is longer than {count} characters").format(count=MAX_SETTING_CHARS))
    if value.casefold() in (OFF, "none", ""):
        return OFF
    if value.casefold() in (DEFAULT, "catalog", "on"):
        return DEFAULT
    return format_policy(policy_of_text(value))


def policy_words(setting: str) -> str:
    """A ``Design.spares`` value for people, in the current language: ``off``, ``the catalog's policy`` or
    ``switch N+2, NIC 1%`` (categories translated, the others at the catalog's rule left out)."""
    policy = setting_policy(canonical_setting(setting))
    if policy is None:
        return _("off")
    if not policy:
        return _("the catalog's policy")
    return ("、" if current() == "zh" else ", ").join(f"{_(CATEGORY_WORDS[c])} {rule}" for c, rule in policy.items())


def setting_policy(setting: str) -> dict[str, str] | None:
    """The policy of a canonical ``Design.spares`` value: None when off, ``{}`` (the catalog's) for
    ``default``, else the categories it names (the rest take the catalog default in ``parse_policy``)."""
    if setting == OFF:
        return None
    if setting == DEFAULT:
        return {}
    return policy_of_text(setting)


def spare_count(kind: str, value: float, installed: int) -> int:
    """Spares of one row: ceil(installed x value / 100) for a percentage, ``value`` for N+k (0 when none installed)."""
    if installed <= 0:
        return 0
    if kind == "percent":
        return math.ceil(installed * value / 100 - 1e-9)
    return int(value)


def spare_item(item: str, name: str = "") -> str:
    """The item of a spare row: the installed ``item`` is the catalog ``name`` then its place in brackets
    (``core.cost``), so ``"QM9700 (leaf)"`` -> ``"QM9700 (leaf, spare)"`` and ``"X"`` -> ``"X (spare)"``;
    an item that does not start with ``name`` becomes ``"<item> (spare)"``."""
    rest = item[len(name):].strip() if name and item.startswith(name) else None
    if rest and rest[:1] in "(（" and rest[-1:] in ")）":
        return _("{name} ({place}, spare)").format(name=name, place=rest[1:-1].strip())
    return _("{name} (spare)").format(name=name if rest == "" else item)


def pod_label(pod: int | None) -> str:
    """Whose devices a row of a design with pods' bill buys or spares (``core.cost.BomRow.pod``), in the current
    language: ``pod 2``, or ``shared`` for the shared layer (the shared spines, or cores on three tiers)."""
    return _("shared") if pod is None else _("pod {pod}").format(pod=pod)


def spare_pairs(rows: Sequence, policy: dict[str, str] | None,
                names: Mapping[str, str] | None = None) -> list[tuple[Any, Any, str]]:
    """``(installed row, spare row, rule text)`` for every installed row ``policy`` spares (``parse_policy``:
    the categories it does not name take the catalog default). Spare rows among ``rows`` are skipped.
    ``names``: catalog id -> catalog name, to word the spare's item (``spare_item``)."""
    names = names or {}
    rules = parse_policy(policy)
    out = []
    for row in rows:
        if getattr(row, "spare", False) or row.category not in rules:
            continue
        kind, value = rules[row.category]
        quantity = spare_count(kind, value, row.quantity)
        if quantity <= 0:
            continue
        rule = rule_text(kind, value)
        if kind == "percent":
            why = _("spares: {rule} of {installed} installed, rounded up (sparing policy)").format(
                rule=rule, installed=f"{row.quantity:,}")
        else:
            why = _("spares: {count} per model and tier ({rule}) for {installed} installed (sparing policy)").format(
                count=quantity, rule=rule, installed=f"{row.quantity:,}")
        spare = row.model_copy(update={"quantity": quantity, "unit_power_w": 0.0, "why": why,
                                       "item": spare_item(row.item, names.get(row.catalog_id, "")),
                                       "spare": True})
        out.append((row, spare, rule))
    return out


def spare_rows(rows: Sequence, setting: str, names: Mapping[str, str] | Callable[[], Mapping[str, str]]) -> tuple:
    """The spare rows of installed ``rows`` under the ``Design.spares`` setting (none when off); ``names``
    as in ``spare_pairs``, or a function giving them (called only when the setting is on)."""
    policy = setting_policy(canonical_setting(setting))
    if policy is None:
        return ()
    return tuple(spare for _installed, spare, _rule in spare_pairs(rows, policy, names() if callable(names) else names))
