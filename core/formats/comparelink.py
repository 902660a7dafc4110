"""A comparison of up to four designs in one share link, and back.

Each column is a design encoded by ``core.formats.sharelink.encode`` with its keys prefixed
``c1_`` ... ``c4_`` (without the version key ``v``, which the link has once), plus ``cN_name``
(always written, so a column with the default design still shows). The comparison's own settings are
the ``cmp_`` extension: ``cmp_base`` the baseline column (1-based, default 1) and ``cmp_sz`` the
all-reduce sizes (``1MiB,1GiB`` by default). The training job is the Performance page's ``perf_``
keys (``core.formats.joblink``), so a comparison link opens the same job on the Performance page.

``decode(params)`` never raises on user input: a bad value inside a column is that column's warning
(``sharelink.decode``'s, prefixed with the column), keys of a fifth column and beyond are one warning,
a name longer than ``core.design.MAX_NAME_CHARS`` characters is cut (with a warning). A column's name is its
design's name (``Design.name``, whose link key ``cN_name`` is): renaming the column renames the design. ``decode(encode(c)) == c`` for
every comparison ``encode`` accepts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence
from urllib.parse import parse_qsl, urlsplit

from core.analysis.compare import DEFAULT_SIZES, MAX_DESIGNS, MAX_SIZES
from core.catalog import Catalog
from core.design import FIELDS as DESIGN_FIELDS
from core.design import MAX_NAME_CHARS, Design, clean_name
from core.errors import InputError
from core.formats import sharelink
from core.i18n import N_, _, ngettext
from core.units import number_range
from core.perf.sizes import format_size, parse_size

MAX_LINK = 4000
"""Longest pasted share link [characters]."""
NAME_KEY = DESIGN_FIELDS["name"].link
_COLUMN_KEY = re.compile(r"c(\d{1,6})_(.*)", re.S)


def prefix(index: int) -> str:
    """The link prefix of column ``index`` (0-based): ``c1_`` for the first."""
    return f"c{index + 1}_"


def prefix_of(key: str) -> bool:
    """Whether ``key`` belongs to a comparison link (a column's ``cN_`` key or a ``cmp_`` setting)."""
    return bool(_COLUMN_KEY.fullmatch(str(key))) or str(key).startswith("cmp_")


def has_columns(params: Mapping) -> bool:
    """Whether ``params`` hold at least one comparison column (``cN_`` keys)."""
    return any(_COLUMN_KEY.fullmatch(str(k)) for k in params)


def _parse_sizes(text: str) -> tuple[int, ...]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items or len(items) > MAX_SIZES:
        raise sharelink.ParamError(_("not a list of one to {count} sizes").format(count=MAX_SIZES))
    try:
        return tuple(dict.fromkeys(parse_size(t) for t in items))
    except InputError as exc:
        raise sharelink.ParamError(str(exc)) from None


def _format_sizes(sizes: Sequence[int]) -> str:
    return ",".join(format_size(s).replace(" ", "") for s in sizes)


SETTINGS = sharelink.register_extension("cmp_", [
    sharelink.Param("base", N_("baseline column"), sharelink.parse_int(1, MAX_DESIGNS), str, 1,
                    lambda: number_range(1, MAX_DESIGNS)),
    sharelink.Param("sz", N_("all-reduce sizes"), _parse_sizes, _format_sizes, DEFAULT_SIZES,
                    lambda: _("one to {count} sizes, comma-separated (e.g. 1MiB,1GiB)").format(count=MAX_SIZES)),
])


@dataclass
class Entry:
    """One column: a name and a design, named as the column is (its ``Design.name`` is the column's name)."""

    name: str
    design: Design

    def __post_init__(self) -> None:
        self.design = self.design.model_copy(update={"name": clean_name(self.name) or None})


@dataclass
class Comparison:
    entries: list[Entry] = field(default_factory=list)
    baseline: int = 0
    """0-based index of the baseline column."""
    sizes: tuple[int, ...] = DEFAULT_SIZES


def design_params(design: Design) -> dict[str, str]:
    """A design's own link keys (``sharelink.encode`` less the version key)."""
    return {k: v for k, v in sharelink.encode(design).items() if k != sharelink.VERSION_KEY}


def encode(comparison: Comparison) -> dict[str, str]:
    """The comparison as URL parameters (``ValueError`` for more than ``MAX_DESIGNS`` designs)."""
    if len(comparison.entries) > MAX_DESIGNS:
        raise ValueError(f"at most {MAX_DESIGNS} designs")
    out: dict[str, str] = {}
    for i, entry in enumerate(comparison.entries):
        out[prefix(i) + NAME_KEY] = clean_name(entry.name)
        out.update({prefix(i) + k: v for k, v in design_params(entry.design).items()})
    base = comparison.baseline + 1 if 0 <= comparison.baseline < len(comparison.entries) else 1
    out.update(SETTINGS.encode({"base": base, "sz": tuple(comparison.sizes)}))
    return out


def default_name(index: int) -> str:
    return _("Design {number}").format(number=index + 1)


def decode(params: Mapping[str, str | list[str]], catalog: Catalog | None = None) -> tuple[Comparison, list[str]]:
    """Read a comparison from URL parameters; never raises on user input. Returns (comparison, warnings)."""
    columns: dict[int, dict[str, str | list[str]]] = {}
    extra: set[int] = set()
    for key, raw in params.items():
        match = _COLUMN_KEY.fullmatch(str(key))
        if not match:
            continue
        number = int(match.group(1))
        if not 1 <= number <= MAX_DESIGNS:
            extra.add(number)
            continue
        columns.setdefault(number, {})[match.group(2)] = raw
    warnings: list[str] = []
    if extra:
        warnings.append(ngettext("The link holds more than {count} designs; column {columns} was ignored (a "
                                 "comparison shows at most {count}).",
                                 "The link holds more than {count} designs; columns {columns} were ignored (a "
                                 "comparison shows at most {count}).", len(extra)).format(
            count=MAX_DESIGNS, columns=", ".join(str(n) for n in sorted(extra)[:5])))
    entries = []
    for number in sorted(columns):
        values = columns[number]
        raw_name = values.pop(NAME_KEY, None)
        name = sharelink._text(raw_name) if raw_name is not None else ""
        label = clean_name(name) or default_name(len(entries))
        if len(" ".join(name.split())) > MAX_NAME_CHARS:
            warnings.append(_("Design {number}: its name was cut to {limit} characters.").format(
                number=number, limit=MAX_NAME_CHARS))
        design, problems = sharelink.decode(values, catalog)
        warnings.extend(_("Design {number} ({name}): {warning}").format(number=number, name=label, warning=w)
                        for w in problems)
        entries.append(Entry(label, design))
    settings, problems = SETTINGS.decode(params)
    warnings.extend(problems)
    baseline = settings["base"] - 1
    if entries and baseline >= len(entries):
        warnings.append(_("Link parameter 'cmp_base' (baseline column) = {value} names no design of the link; the "
                          "first design is the baseline.").format(value=settings["base"]))
        baseline = 0
    return Comparison(entries, baseline if entries else 0, tuple(settings["sz"])), warnings


def parse_link(text: str) -> dict[str, str | list[str]]:
    """The query parameters of a pasted share link (a whole URL or its query string); a key given more than once
    holds the list of its values.

    ``InputError`` when it is empty, too long or holds no parameters."""
    value = (text or "").strip()
    if not value:
        raise InputError(_("Paste a share link of a design."))
    if len(value) > MAX_LINK:
        raise InputError(_("The link is longer than {limit} characters.").format(limit=f"{MAX_LINK:,}"))
    query = urlsplit(value).query if "?" in value else value.lstrip("?#")
    params: dict[str, str | list[str]] = {}
    for key, item in parse_qsl(query, keep_blank_values=True, max_num_fields=sharelink.MAX_LINK_PARAMS + 1):
        before = params.get(key)  # a key given twice keeps every value: the codec says which one counted
        params[key] = item if before is None else [*([before] if isinstance(before, str) else before), item]
    if not params or "=" not in value:
        raise InputError(_("This is not a share link: it has no parameters (copy it from the Share box)."))
    return params


def design_from_link(text: str, catalog: Catalog | None = None) -> tuple[Design, list[str]]:
    """The design of a pasted share link and its warnings (``sharelink.decode``); the link's other keys
    (``perf_``, ``ui_``, ``lang``, a comparison's ``cN_``) are skipped. ``InputError`` as ``parse_link``."""
    params = parse_link(text)
    return sharelink.decode(params, catalog, ignore=("tab",))
