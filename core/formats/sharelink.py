"""Share links: a ``Design`` as a short, stable URL query string, and back.

``encode(design) -> dict[str, str]`` writes only the values that differ from
the defaults, plus the version key ``v=1``. ``decode(params) -> (design,
warnings)`` reads such a mapping back; it never raises on user input: every
unknown, malformed or out-of-range value becomes one warning that names the
parameter and what it accepts, and the rest of the link still applies.
``decode(encode(d)) == d`` for every valid design whose model ids are the
catalog's canonical ids (aliases are canonicalised on decode).

Hygiene: a link with more than ``MAX_LINK_PARAMS`` parameters, or a key given
more than once (a list value; the last value counts, as in Streamlit), gets a
warning saying so; each unknown key gets one short warning (the key shown cut to
20 characters). Every decoder returns all its warnings, each short and built in
time linear in the link; what users see of them goes through one rule,
``capped_warnings``: at most ``MAX_WARNING_LINES`` lines, each cut to
``MAX_WARNING_CHARS`` characters, then "and N more". Override lists (``px``, ``pw``) are read leniently
(``parse_overrides_lenient``): the good items apply and each bad item gets its
own warning. Whether a switch fits is judged at the port speed the engine will
run (``core.design.resolve_nic_and_speed``), so every link the sidebar offers
reopens as the same design.

Keys (version 1; never rename a key, add new ones instead): ``v`` (link version, 1) and one key per
``Design`` field, declared with the field (``core.design.Surface.link``; ``FIELDS`` maps key -> field,
``python -m core plan --help`` and ``docs/cli.md`` list the fields). Choice values are their vocabulary's
codes (``core.vocab``: ``f=ib|eth``, ``t=rail|tor|ro``, ``pm=port|rail``, ``st=auto|ib|eth|none``,
``mg=on|off``); numbers are written in their shortest exact form; ``px``/``pw`` are ``ID:number`` lists;
``sp`` is a sparing policy (``core.spares``). ``tests/test_design_fields.py`` freezes the version 1 keys.

``preset`` (``PRESET_KEY``) names a published design (``core.presets``): ``decode`` reads it as that design's
own keys (``encode(preset.design)``) under the link's explicit keys, which override them (``?preset=deepseek-mpft
&n=1024``); ``n`` or ``ng`` in the link replaces the preset's size. A name that is no preset is one warning and
the rest of the link applies (the default design when there is no rest). ``encode`` never writes it: a link holds
the whole design.

``lang`` (``LANG_KEY``, the page language ``zh`` | ``en``) belongs to the web UI: ``decode`` skips
it silently whatever its value, ``encode`` never writes it (the web UI adds it to every link).

Languages: warnings are worded in the language of the request (``core.i18n``) when ``decode``
runs; a ``Param``'s ``name`` is English marked ``N_`` and translated when shown, its ``accepted``
may be a function that words it then.

Extensions (other pages' own keys)
----------------------------------
Keys that contain an underscore are reserved for extensions: ``decode`` never
reads them and never warns about them. A page that wants its own state in the
link registers a prefix and its parameters once, at import time::

    from core.formats import sharelink
    PERF = sharelink.register_extension("perf_", [
        sharelink.Param("model", N_("model"), sharelink.parse_choice(("llama-70b", "gpt-3")),
                        str, "llama-70b", "llama-70b, gpt-3"),
        sharelink.Param("mbs", N_("micro-batch size"), sharelink.parse_int(1, 1024), str, 1,
                        lambda: units.number_range(1, 1024)),
    ])
    query = {**sharelink.encode(design), **PERF.encode({"model": "gpt-3", "mbs": 1})}
    # -> {..., "perf_model": "gpt-3"}  (mbs is the default, so it is left out)
    values, warnings = PERF.decode(st.query_params.to_dict())
    # values == {"model": "gpt-3", "mbs": 1}; warnings name e.g. "perf_mbs"

``Extension.encode``/``decode`` follow the same rules as the design codec
(defaults omitted, one warning per bad value naming the full key).
``sharelink.extension(prefix)`` returns a registered extension; registering a
prefix again replaces it (safe on Streamlit reruns).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlencode
from typing import Any, Callable, Iterable, Mapping, Sequence

from pydantic import ValidationError

from core.catalog import Catalog, load_catalog
from core.formats.entry import number_text
from core.presets import find_preset, preset_ids
from core import vocab
from core.design import FIELDS as DESIGN_FIELDS
from core.design import (
    MAX_NAME_CHARS,
    MAX_PODS,
    OVERRIDE_LIMITS,
    Design,
    Surface,
    check_calibration,
    check_name,
    check_domains,
    check_dims,
    check_pods,
    check_stages,
    check_override,
    describe_validation_error,
    field_bounds,
    field_type,
    first_level_size,
    gpu_limit_problem,
    most_nodes,
    nvlink_domain_size,
    offered_port_speeds,
    or_list,
    resolve_nic_and_speed,
)
from core.errors import InputError, shown
from core.fabric.pods import pod_specs
from core.physical.racks import load_racks
from core.i18n import N_, _, ngettext
from core.units import span
from core.spares import canonical_setting


PUBLIC_URL_ENV = "FP_PUBLIC_URL"
"""Environment variable holding the app's public address (e.g. https://planner.example.com/): the base of the
share links the app shows and the review pack prints, from the app and from the CLI."""


def public_base_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The app's public address from ``PUBLIC_URL_ENV`` (None when unset or not an http(s) address without a query:
    the caller then uses its own default)."""
    import os
    from urllib.parse import urlsplit

    value = (os.environ if environ is None else environ).get(PUBLIC_URL_ENV, "").strip()
    parts = urlsplit(value)
    if parts.scheme in ("http", "https") and parts.netloc and not parts.query and not parts.fragment:
        return value.rstrip("/") + "/"
    return None


VERSION = "1"
VERSION_KEY = "v"
LANG_KEY = "lang"
PRESET_KEY = "preset"
"""A published design's id (``core.presets``): its fields under the link's own keys."""
"""The page language (``zh`` | ``en``): the web UI reads and writes it; ``decode`` skips it silently
and ``encode`` never writes it."""
MAX_LINK_PARAMS = 1000
"""More parameters than this in one link gets a warning (a design link has at most 23). Streamlit itself drops a
query string of more than 1,000 parameters or 512 KiB (``streamlit.runtime.state.query_params``), so a link the
app makes is refused longer than that (``check_link_size``)."""
MAX_LINK_CHARS = 512 * 1024
"""Longest query string Streamlit reads [characters]; a longer one reaches the app empty."""
DROPPED_KEY = "fp_dropped"
"""Put in place of a query string Streamlit dropped for its size (``webui.serve``): ``PARAMS:CHARS`` of the link
the browser had, so the app can say why it shows the default design (``dropped_link_warning``)."""
MAX_WARNING_LINES = 5
"""Warnings of one link (or one upload) shown one by one; the rest are counted in one more line."""
MAX_WARNING_CHARS = 200
"""Longest warning line shown [characters]; a longer one is cut with an ellipsis."""
MAX_OVERRIDE_ITEMS = 200
"""Most items an override list is read for (the catalog has about 70 ids); the rest are ignored with a warning."""
MAX_ITEM_WARNINGS = 10
"""Bad override items warned about one by one; the rest are counted in one more warning."""



class ParamError(ValueError):
    """A value that a parameter does not accept; the message says what it accepts."""


# --- value formatting and parsing ---------------------------------------------------------
def format_number(value: float | int) -> str:
    """Shortest text that parses back to exactly ``value`` (``2.0`` -> ``"2"``)."""
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def parse_int(low: int, high: int) -> Callable[[str], int]:
    """A parser for whole numbers in ``[low, high]``."""

    def parse(text: str) -> int:
        try:
            value = int(number_text(text))  # 1,024 and full-width digits read too
        except ValueError:
            raise ParamError(_("not a whole number")) from None
        if not low <= value <= high:
            raise ParamError(_("out of range"))
        return value

    return parse


def parse_float(low: float, high: float, *, low_open: bool = False) -> Callable[[str], float]:
    """A parser for finite numbers in ``[low, high]`` (``(low, high]`` if ``low_open``)."""
    def parse(text: str) -> float:
        try:
            value = float(number_text(text.replace(" ", "+")))  # '+' in '1e+16' may arrive as a space
        except ValueError:
            raise ParamError(_("not a number")) from None
        if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
            raise ParamError(_("out of range"))
        return value

    return parse


def parse_choice(choices: Sequence[str], aliases: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """A parser for one of ``choices`` (case-insensitive), with optional aliases."""
    table = {c.casefold(): c for c in choices}
    table.update({k.casefold(): v for k, v in (aliases or {}).items()})

    def parse(text: str) -> str:
        value = table.get(text.strip().casefold())
        if value is None:
            raise ParamError(_("not one of the choices"))
        return value

    return parse


@dataclass(frozen=True)
class Param:
    """One URL parameter.

    key       URL key without the extension prefix (short, stable).
    name      what users call it, in English marked ``N_("...")``; warnings say ``key (name)`` with
              the name translated (``label()``).
    parse     text -> value; raises ``ParamError`` (or ValueError) naming what is accepted, in the
              current language.
    fmt       value -> text; ``parse(fmt(x)) == x``.
    default   value left out of the link.
    accepted  short description of the accepted values, for warnings and docs: text that needs no
              translation (ids, numbers), or a function of no arguments that words it in the
              current language (``lambda: units.number_range(1, 1024)``); ``describe()``.
    unit      the value's unit, shown after the name in warnings (``label()``), or ``None``.
    translated  ``False`` when ``name`` is the same in every language (``PUE``).
    """

    key: str
    name: str
    parse: Callable[[str], Any]
    fmt: Callable[[Any], str]
    default: Any
    accepted: str | Callable[[], str]
    unit: str | None = None
    translated: bool = True

    def label(self) -> str:
        """``name`` in the current language, with ``[unit]`` when it has one and the name does not say it."""
        name = _(self.name) if self.translated else self.name
        return f"{name} [{self.unit}]" if self.unit and "[" not in name else name

    def describe(self) -> str:
        """``accepted`` in the current language."""
        return self.accepted() if callable(self.accepted) else self.accepted


def capped_warnings(warnings: Iterable[str], lines: int = MAX_WARNING_LINES,
                    width: int = MAX_WARNING_CHARS) -> list[str]:
    """The one rule for what users see of a link's (or an upload's) warnings: the first ``lines`` warnings, each
    cut to ``width`` characters with an ellipsis, then one line "and N more warnings" (in the current language).

    Every page's link warnings, the Designer's upload messages and pasted links go through it; the cost is one
    pass over the list, whatever its length and the length of each warning.
    """
    shown_lines: list[str] = []
    more = 0
    for warning in warnings:
        if len(shown_lines) >= lines:
            more += 1
            continue
        text = str(warning)
        shown_lines.append(text if len(text) <= width else text[: width - 1].rstrip() + "\u2026")
    if more:
        shown_lines.append(ngettext("and {count} more warning", "and {count} more warnings", more).format(
            count=f"{more:,}"))
    return shown_lines


def check_link_size(params: Mapping[str, Any]) -> str | None:
    """Why a link with ``params`` would reach the app empty (Streamlit drops a query string of more than
    ``MAX_LINK_PARAMS`` parameters or ``MAX_LINK_CHARS`` characters), in the current language; ``None`` if it fits."""
    count = sum(len(v) if isinstance(v, (list, tuple)) else 1 for v in params.values())
    if count > MAX_LINK_PARAMS:
        return _("This link has {count} parameters, more than the {limit} a link may have: the app would open it "
                 "as the default design. Share fewer designs or settings.").format(
                     count=f"{count:,}", limit=f"{MAX_LINK_PARAMS:,}")
    length = len(urlencode(params, doseq=True))
    if length > MAX_LINK_CHARS:
        return _("This link is {count} characters long, more than the {limit} a link may have: the app would open "
                 "it as the default design. Share fewer designs or settings.").format(
                     count=f"{length:,}", limit=f"{MAX_LINK_CHARS:,}")
    return None


def dropped_link_warning(params: Mapping[str, Any]) -> str | None:
    """The warning for a link Streamlit dropped before the app saw it (``DROPPED_KEY``, set by ``webui.serve``),
    in the current language; ``None`` for any other link."""
    raw = params.get(DROPPED_KEY)
    if raw is None:
        return None
    count, _sep, length = _text(raw).partition(":")
    if not (count.isdigit() and length.isdigit()) or len(count) + len(length) > 20:
        return None
    return _("The link had {count} parameters and {length} characters, more than a link may have ({limit} "
             "parameters, {chars} characters): none of it was read, so the default design is shown.").format(
                 count=f"{int(count):,}", length=f"{int(length):,}", limit=f"{MAX_LINK_PARAMS:,}",
                 chars=f"{MAX_LINK_CHARS:,}")


def _warn(key: str, name: str, text: str, problem: str, accepted: str) -> str:
    """One warning; ``name``, ``problem`` and ``accepted`` already in the current language."""
    shown = text if len(text) <= 40 else text[:40] + "..."  # at most 40 characters of user text
    return _("Link parameter '{key}' ({name}) = '{value}' was ignored: {problem}. Accepted: {accepted}.").format(
        key=key, name=name, value=shown, problem=problem, accepted=accepted)


def repeated_warning(key: str, name: str, raw: Any) -> str | None:
    """The warning about a key the link gives more than once (``?n=8&n=9``): which value counted, the last (as
    ``_text`` reads it), so that nothing the user wrote is dropped unsaid; None for a key given once."""
    if not isinstance(raw, (list, tuple)) or len(raw) < 2:
        return None
    return _("Link parameter '{key}' ({name}) is given {count} times; the last value, {value}, was used.").format(
        key=key, name=name, count=len(raw), value=shown(str(raw[-1])))


@dataclass(frozen=True)
class Extension:
    """A registered set of extra parameters, all keyed ``prefix + Param.key``."""

    prefix: str
    params: tuple[Param, ...]

    def encode(self, values: Mapping[str, Any]) -> dict[str, str]:
        """``values`` (by ``Param.key``) as URL parameters; defaults and unknown keys are left out."""
        out = {}
        for p in self.params:
            if p.key in values and values[p.key] != p.default:
                out[self.prefix + p.key] = p.fmt(values[p.key])
        return out

    def decode(self, params: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
        """Every parameter's value (default when absent or bad) and one warning per bad value."""
        values = {p.key: p.default for p in self.params}
        warnings = []
        known = {self.prefix + p.key: p for p in self.params}
        names = ", ".join(sorted(known))
        for key, raw in params.items():
            if not key.startswith(self.prefix):
                continue
            if key not in known:  # the key cut to 20 characters, as the design codec says it
                warnings.append(_("Link parameter {key} is unknown and was ignored. Known: {known}.").format(
                    key=shown(key, 20), known=names))
                continue
            text = _text(raw)
            p = known[key]
            repeated = repeated_warning(key, p.label(), raw)
            if repeated:
                warnings.append(repeated)
            try:
                values[p.key] = p.parse(text)
            except ValueError as exc:
                warnings.append(_warn(key, p.label(), text, str(exc), p.describe()))
        return values, warnings


_EXTENSIONS: dict[str, Extension] = {}


def register_extension(prefix: str, params: Iterable[Param]) -> Extension:
    """Register (or replace) the parameters of one extension. ``prefix`` must end with ``_``."""
    if not prefix.endswith("_") or len(prefix) < 2:
        raise ValueError("an extension prefix ends with '_' and has a name, e.g. 'perf_'")
    ext = Extension(prefix, tuple(params))
    _EXTENSIONS[prefix] = ext
    return ext


def extension(prefix: str) -> Extension:
    """The extension registered under ``prefix`` (KeyError if none)."""
    return _EXTENSIONS[prefix]


def extensions() -> dict[str, Extension]:
    """All registered extensions by prefix."""
    return dict(_EXTENSIONS)


# --- the design codec -----------------------------------------------------------------------
def _text(raw: str | list[str] | tuple[str, ...]) -> str:
    """A query value; a repeated key counts as its last value (as browsers' URLSearchParams.get would not,
    but as Streamlit's ``st.query_params[key]`` does)."""
    if isinstance(raw, (list, tuple)):
        return str(raw[-1]) if raw else ""
    return str(raw)


# A comma is a thousands separator when a digit precedes it and exactly three digits follow it,
# then a decimal part, a separator or the end ("20,000", "1,234,567.5"); every other comma (and
# every ';') ends an item.
_ITEM_SPLIT = re.compile(r";|,(?!(?<=\d,)\d{3}(?:\.\d*)?(?![^,;\s]))")
_GROUPED = re.compile(r"[+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?")


_DECIMAL_PART = re.compile(r"[\d.]+")


def _split_items(text: str):
    """The parts of ``text`` between item separators, one at a time (the caller may stop early)."""
    start = 0
    for match in _ITEM_SPLIT.finditer(text):
        yield text[start:match.start()]
        start = match.end()
    yield text[start:]


def _override_items(text: str) -> list[str]:
    """The items of an override list, after NFKC normalisation (full-width digits, colons, commas); at most
    ``MAX_OVERRIDE_ITEMS`` + 1 (reading stops there: a longer list is refused or cut by the caller)."""
    normal = unicodedata.normalize("NFKC", text)
    items: list[list[str]] = []  # each item's comma-separated parts, joined once (never a string grown in a loop)
    for part in _split_items(normal):
        item = part.strip()
        if items and _DECIMAL_PART.fullmatch(item) and ":" not in items[-1][-1][-1:]:
            items[-1].append(item)  # "QM9700:1,5": a decimal comma, not a second item (the number is refused)
        elif item:
            if len(items) > MAX_OVERRIDE_ITEMS:
                break
            items.append([item])
    return [",".join(parts) for parts in items]


def _too_many_items() -> str:
    return _("more than the {limit} items a list may have (the catalog has fewer ids)").format(
        limit=MAX_OVERRIDE_ITEMS)


def _override_item(item: str, catalog: Catalog, unit: str) -> tuple[str, float]:
    """One ``ID:number`` (or ``ID=number``) item -> (canonical id, number); ``ParamError`` says why not."""
    sep = ":" if ":" in item else "="
    key, found, number = item.partition(sep)
    if not found:
        raise ParamError(_("item {item} is not ID:{unit}").format(item=shown(item), unit=unit))
    entry_id = catalog.canonical_id(key)
    if entry_id is None:
        raise ParamError(_("{value} is not a catalog id").format(value=shown(key.strip())))
    number = number.strip()
    if _GROUPED.fullmatch(number):
        number = number.replace(",", "")
    try:
        value = float(number_text(number).replace(" ", "+"))  # '+' in '1e+16' may arrive as a space
    except ValueError:
        if re.fullmatch(r"\d+,\d+", number):
            raise ParamError(_("{value} for {id} is not a number (use a point for decimals)").format(
                value=shown(number), id=entry_id)) from None
        raise ParamError(_("{value} for {id} is not a number").format(value=shown(number), id=entry_id)) from None
    try:
        return entry_id, check_override(entry_id, value, unit)
    except InputError as exc:
        raise ParamError(str(exc)) from None


def parse_overrides(text: str, catalog: Catalog | None = None, unit: str = "USD") -> dict[str, float]:
    """``"ID:number,ID:number"`` (``=`` also accepted) -> {canonical catalog id: number}.

    Numbers may use thousands separators (``20,000``); full-width text is normalised
    (``QM9700：２００００``). Each number is 0 to ``core.design.OVERRIDE_LIMITS[unit]`` per unit.
    Raises ``ParamError`` naming the first bad item (shown truncated); ``parse_overrides_lenient``
    applies the good items instead.
    """
    catalog = catalog or load_catalog()
    if unit not in OVERRIDE_LIMITS:
        raise ValueError(f"unit must be one of {', '.join(OVERRIDE_LIMITS)}")
    result: dict[str, float] = {}
    items = _override_items(text)
    if len(items) > MAX_OVERRIDE_ITEMS:
        raise ParamError(_too_many_items())
    for item in items:
        entry_id, value = _override_item(item, catalog, unit)
        result[entry_id] = value
    return result


def parse_overrides_lenient(
    text: str, catalog: Catalog | None = None, unit: str = "USD"
) -> tuple[dict[str, float], list[str]]:
    """Like ``parse_overrides``, but the good items apply and each bad item is one warning.

    Returns ``(overrides, warnings)``: each warning is one sentence of at most ~200 characters
    with the user's text cut to 40; after ``MAX_ITEM_WARNINGS`` bad items the rest are counted
    in one more warning.
    """
    catalog = catalog or load_catalog()
    if unit not in OVERRIDE_LIMITS:
        raise ValueError(f"unit must be one of {', '.join(OVERRIDE_LIMITS)}")
    price = unit == "USD"
    result: dict[str, float] = {}
    warnings: list[str] = []
    bad = 0
    items = _override_items(text)
    if len(items) > MAX_OVERRIDE_ITEMS:  # read the first ones only: the work stays bounded
        warnings.append(_("The list was cut: {problem}; the first {limit} were read.").format(
            problem=_too_many_items(), limit=MAX_OVERRIDE_ITEMS))
        items = items[:MAX_OVERRIDE_ITEMS]
    for item in items:
        try:
            entry_id, value = _override_item(item, catalog, unit)
        except ParamError as exc:
            bad += 1
            if bad <= MAX_ITEM_WARNINGS:
                message = (_("Price override {item} was ignored: {problem}.") if price
                           else _("Power override {item} was ignored: {problem}."))
                warnings.append(message.format(item=shown(item), problem=exc))
            continue
        result[entry_id] = value
    if bad > MAX_ITEM_WARNINGS:
        more = bad - MAX_ITEM_WARNINGS
        message = (ngettext("{count} more bad price override item was ignored.",
                            "{count} more bad price override items were ignored.", more) if price
                   else ngettext("{count} more bad power override item was ignored.",
                                 "{count} more bad power override items were ignored.", more))
        warnings.append(message.format(count=f"{more:,}"))
    return result, warnings


def format_overrides(values: Mapping[str, float]) -> str:
    """Overrides as the text ``parse_overrides`` reads (sorted by id)."""
    return ",".join(f"{key}:{format_number(values[key])}" for key in sorted(values))


def _accepted_range(field: str, whole: bool) -> Callable[[], str]:
    """What a numeric field's link value accepts, worded when shown (bounds from the field's declaration)."""
    low, high, low_open, _high_open = field_bounds(field)
    if whole:
        lo, hi = int(low), int(high if high is not None else 10**9)
        return lambda: _("a whole number from {range}").format(range=span(f"{lo:,}", f"{hi:,}"))
    limits = dict(low=format_number(low), high=format_number(high))
    if low_open:
        return lambda: _("a number above {low}, up to {high}").format(**limits)
    return lambda: _("a number from {range}").format(range=span(limits["low"], limits["high"]))


def _vocab_param(surface: Surface, default: Any) -> Param:
    """A field that takes a vocabulary's ids: read by link code or alias, written as its code."""
    words = surface.vocab

    def parse(text: str) -> Any:
        try:
            return words.from_code(text)
        except KeyError:
            raise ParamError(_("not one of the choices")) from None

    def accepted() -> str:  # "ib (InfiniBand) or eth (Ethernet RoCE)": the code, and its name where they differ
        def name(term) -> str:
            label = words.label(term.id)
            return words.word(term.id) if "(" in label else label
        return or_list([term.code if term.code == str(term.id) else
                        _("{code} ({name})").format(code=term.code, name=name(term)) for term in words])

    return Param(surface.link, surface.label, parse, words.code, default, accepted, surface.unit,
                 surface.translated)


def _design_params(catalog: Catalog) -> tuple[Param, ...]:
    """The design's link parameters, generated from each field's declaration (``core.design.FIELDS``)."""
    switches = [s.id for s in catalog.switches if s.role == "fabric"]
    speeds = sorted({m.speed_gbps for s in catalog.switches if s.role == "fabric" for m in s.port_modes})
    presets = [p.id for p in load_racks().compute_presets]
    generations = [str(g.generation) for g in catalog.nvlink]

    def model(kind: str, known: list[str] | None) -> Callable[[str], str]:
        unknown = {"system": N_("unknown system model"), "switch": N_("unknown switch model"),
                   "nic": N_("unknown NIC model")}[kind]

        def parse(text: str) -> str:
            try:
                entry = getattr(catalog, kind)(text)
            except ValueError:
                raise ParamError(_(unknown)) from None
            if known is not None and entry.id not in known:
                raise ParamError(_("{id} is not a fabric switch").format(id=entry.id))
            return entry.id
        return parse

    def chosen(values: list[str], kind: type = str) -> Callable[[str], int | str]:
        parse = parse_choice(values)
        return (lambda text: kind(parse(text))) if kind is not str else parse

    readers = {
        "system": lambda: (model("system", None), ", ".join(s.id for s in catalog.systems)),
        "switch": lambda: (model("switch", switches), ", ".join(switches)),
        "nic": lambda: (model("nic", None), ", ".join(n.id for n in catalog.nics)),
        "nvlink": lambda: (chosen(generations, int), ", ".join(generations)),
        "speed": lambda: (chosen([str(v) for v in speeds], int), ", ".join(map(str, speeds))),
        "rack_preset": lambda: (chosen(presets), ", ".join(presets)),
        "text": lambda: (_checked(check_name),
                         lambda: _("text of at most {limit} characters").format(limit=MAX_NAME_CHARS)),
        "stages": lambda: (_checked(check_stages),
                           lambda: _("rising node counts separated by commas, such as {example}").format(
                               example="128,256")),
        "domains": lambda: (_checked(check_domains), lambda: _(
            "NVLink domain sizes in GPUs separated by commas, each optionally times a count, such as {example}").format(
                example="576x2,72")),
        "pods": lambda: (_known_pods(catalog), lambda: _(
            "up to {limit} extra pods ({total} with the design's own) as SYSTEM:NODES[:GBPS][@STAGE] separated by "
            "commas, such as {example}").format(limit=MAX_PODS, total=MAX_PODS + 1, example="B200:32:800@1")),
        "dims": lambda: (_checked(check_dims), lambda: _("1 to 3 torus dimensions such as {example}").format(
            example="16x16x16")),
        "calibration": lambda: (_checked(check_calibration), lambda: _(
            "net=FACTOR,nvlink=FACTOR,lat=MICROSECONDS and optionally name=TEXT, e.g. {example}").format(
                example="net=0.92,nvlink=1,lat=3.5,name=Pod A")),
        "spares": lambda: (_checked(canonical_setting), lambda: _(
            "off, default (the catalog's policy) or CATEGORY=RULE pairs such as {example}").format(
                example="switch=N+1,transceiver=2%,cable=1%,NIC=1%")),
    }
    params = []
    for field, surface in DESIGN_FIELDS.items():
        info = Design.model_fields[field]
        default = None if info.default_factory is not None else info.default
        kind, whole = surface.kind, field_type(field) is int
        if surface.vocab is not None:
            params.append(_vocab_param(surface, default))
            continue
        if kind == "overrides":
            unit = surface.unit
            limit = "1e9" if unit == "USD" else "1e7"
            example = "QM9700:30000" if unit == "USD" else "QM9700:800"
            params.append(Param(surface.link, surface.label, lambda text, u=unit: parse_overrides(text, catalog, u),
                                format_overrides, {},
                                lambda u=unit, lim=limit, ex=example: _(
                                    "comma-separated catalog ID:{unit} pairs, 0 to {limit} {unit} each, e.g. {example}"
                                ).format(unit=u, limit=lim, example=ex), None, surface.translated))
            continue
        if kind in readers:
            parse, accepted = readers[kind]()
            params.append(Param(surface.link, surface.label, parse, _link_text, default, accepted, surface.unit,
                                surface.translated))
            continue
        low, high, low_open, _high_open = field_bounds(field)
        parse = (parse_int(int(low), int(high if high is not None else 10**9)) if whole
                 else parse_float(low, high, low_open=low_open))
        params.append(Param(surface.link, surface.label, parse, format_number, default,
                            _accepted_range(field, whole), surface.unit, surface.translated))
    return tuple(params)


def _checked(check):
    """The link parser of a text field the design checks with ``check`` (``core.design.check_name``,
    ``check_stages``, ``check_domains``, ``check_dims``, ``check_calibration``, ``core.spares.canonical_setting``):
    its canonical value, or ``ParamError`` saying why not."""

    def parse(text: str):
        try:
            return check(text)
        except InputError as exc:
            raise ParamError(str(exc)) from None

    return parse


def _known_pods(catalog: Catalog):
    """The link parser of ``Design.pods``: ``check_pods``, and every pod's GPU system in ``catalog`` (an unknown one
    is not applied, as any bad link value; a design file or the sidebar say it when the pods are sized, with a way
    out), or ``ParamError`` naming the pod as the link wrote it."""
    parse = _checked(check_pods)

    def known(text: str):
        kept = parse(text)
        for item in (kept or "").split(","):
            try:
                catalog.system(item.split(":")[0])
            except ValueError:
                raise ParamError(_("the catalog has no GPU system {system} (the extra pod {pod})").format(
                    system=shown(item.split(":")[0], 20), pod=shown(item, 40))) from None  # short and cut
        return kept

    return known


def _fabric(fabric: str) -> str:
    return vocab.FABRIC.word(fabric)


FIELDS = {surface.link: field for field, surface in DESIGN_FIELDS.items()}
"""URL key -> Design field, from each field's declaration (``core.design.FIELDS``). Stable: links in the wild
depend on it (version 1 keys are frozen)."""
KEYS = (VERSION_KEY, *FIELDS, PRESET_KEY)
"""Every key ``decode`` reads: the version, the design fields' keys and a published design's id."""


def _link_text(value: Any) -> str:
    """A value as its link text: a number in its shortest exact form, anything else as text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_number(value)
    return str(value)


def _to_url(field: str, value: Any) -> str:
    surface = DESIGN_FIELDS[field]
    if surface.vocab is not None:
        return surface.vocab.code(value)
    if surface.kind == "overrides":
        return format_overrides(value)
    return _link_text(value)


def encode(design: Design) -> dict[str, str]:
    """The design as URL parameters: ``v`` plus only the values that differ from ``Design()``.

    ``nodes`` is written whenever ``decode`` would not reproduce it by itself
    (a design given by ``gpus`` has ``nodes=None``).
    """
    base = Design()
    out = {VERSION_KEY: VERSION}
    for key, field in FIELDS.items():
        value = getattr(design, field)
        if field == "nodes":
            if value is None or (value == base.nodes and design.gpus is None):
                continue
        elif value == getattr(base, field) or value is None:
            continue
        out[key] = _to_url(field, value)
    return out


def decode(
    params: Mapping[str, str | list[str]], catalog: Catalog | None = None, ignore: Iterable[str] = ()
) -> tuple[Design, list[str]]:
    """Read a design from URL parameters; never raises on user input.

    Parameters
    ----------
    params : mapping of str to str (or list of str: the last value counts)
        The query string, e.g. ``st.query_params.to_dict()``.
    catalog : Catalog, optional
        Checks model ids and combinations (default: the bundled catalog).
    ignore : iterable of str
        Keys the caller owns (e.g. a tab key); not warned about. ``LANG_KEY`` (the page
        language, which the web UI handles) is always skipped silently.

    Returns
    -------
    (Design, list of str)
        The design with every acceptable value applied, and one warning per
        value that was ignored, naming the key, what it is and what is accepted.
        Keys containing ``_`` belong to extensions and are skipped silently.
    """
    catalog = catalog or load_catalog()
    specs = {p.key: p for p in _design_params(catalog)}
    ignored = {*ignore, LANG_KEY}
    warnings: list[str] = []
    data: dict[str, Any] = {}
    too_many = len(params) > MAX_LINK_PARAMS
    if too_many:
        warnings.append(_("The link has {count} parameters, more than the {limit} a link may have; only the "
                          "design's own keys were read.").format(count=f"{len(params):,}",
                                                                 limit=f"{MAX_LINK_PARAMS:,}"))
    known = ", ".join(KEYS)
    params = _with_preset(params, warnings)
    for key, raw in params.items():
        if key in ignored or "_" in key:
            continue
        spec = specs.get(key)
        if spec is None and key != VERSION_KEY:
            if too_many:  # said once above: only the design's own keys were read
                continue
            warnings.append(_("Link parameter {key} is unknown and was ignored. Known: {known}.").format(
                key=shown(key, 20), known=known))
            continue
        name = spec.label() if spec else _("link version")
        if isinstance(raw, (list, tuple)) and len(raw) != 1:
            if not raw:
                warnings.append(_("Link parameter '{key}' ({name}) has no value and was ignored.").format(
                    key=key, name=name))
                continue
            warnings.append(repeated_warning(key, name, raw))
        text = _text(raw)
        if key == VERSION_KEY:
            if text.strip() != VERSION:
                warnings.append(_("Link parameter 'v' (link version) = {value} is not a version this app knows; "
                                  "the link was read as version {version}. Accepted: {version}.").format(
                    value=shown(text, 20), version=VERSION))
            continue
        field = FIELDS[key]
        if DESIGN_FIELDS[field].kind == "overrides":
            values, problems = parse_overrides_lenient(text, catalog, DESIGN_FIELDS[field].unit)
            warnings.extend(_("Link parameter '{key}' ({name}): {problem} Accepted: {accepted}.").format(
                key=key, name=name, problem=problem, accepted=spec.describe()) for problem in problems)
            if values:
                data[field] = values
            continue
        try:
            value = spec.parse(text)
        except ValueError as exc:
            warnings.append(_warn(key, name, text, str(exc), spec.describe()))
            continue
        data[field] = value

    _check_combinations(data, catalog, specs, params, warnings)
    design = None
    while design is None:
        try:
            design = Design.model_validate(data)
        except ValidationError as exc:  # a rule spanning fields: drop the fields it names, keep the rest
            fields = {e["loc"][0] for e in exc.errors() if e["loc"] and e["loc"][0] in data}
            problem = describe_validation_error(exc)
            if fields:
                warnings.append(_("Link values do not fit together: {problem}; ignored {fields}.").format(
                    problem=problem, fields=", ".join(sorted(fields))))
            else:
                warnings.append(_("Link values do not fit together: {problem}; the default design is shown.")
                                .format(problem=problem))
            if not fields:
                design = Design()
            for field in fields:
                del data[field]
    return design, warnings


def _with_preset(params: Mapping[str, Any], warnings: list[str]) -> Mapping[str, Any]:
    """``params`` with its ``PRESET_KEY`` replaced by the published design's own link keys, the link's explicit
    keys over them (``n`` or ``ng`` replaces the preset's size); an unknown name adds one warning."""
    if PRESET_KEY not in params:
        return params
    rest = {key: value for key, value in params.items() if key != PRESET_KEY}
    raw, name = params[PRESET_KEY], _("published design")
    if repeated := repeated_warning(PRESET_KEY, name, raw):
        warnings.append(repeated)
    text = _text(raw)
    try:
        preset = find_preset(text)
    except InputError:
        ids = preset_ids()
        warnings.append(_warn(PRESET_KEY, name, text, _("no published design has this name"),
                              _("one of {count} ids, e.g. {example} (python -m core presets lists them)").format(
                                  count=len(ids), example=ids[0])))
        return rest
    size = (DESIGN_FIELDS["nodes"].link, DESIGN_FIELDS["gpus"].link)
    own = {key: value for key, value in encode(preset.design).items() if key != VERSION_KEY}
    if any(key in rest for key in size):
        own = {key: value for key, value in own.items() if key not in size}
    return {**own, **rest}


def _check_combinations(data: dict, catalog: Catalog, specs: dict, params: Mapping, warnings: list[str]) -> None:
    """Drop the port speed or switch when the hardware does not offer it with the other choices."""
    if data.get("nodes") is not None and data.get("gpus") is not None:
        warnings.append(_warn("n", specs["n"].label(), _text(params["n"]), _("the link also gives 'ng' (total GPUs)"),
                              _("either n or ng; ng was used")))
        del data["nodes"]
    system = catalog.system(data.get("gpu", "H100"))
    fabric = data.get("fabric") or system.default_fabric
    speeds = offered_port_speeds(catalog, fabric)
    speed = data.get("port_speed_gbps")
    if speed is not None and speed not in speeds:
        _drop_speed(data, "port_speed_gbps", fabric, speed, speeds, specs, params, warnings)
        speed = None
    pod_speeds = [s.speed_gbps for s in pod_specs(Design(pods=data.get("pods")))[1:] if s.speed_gbps is not None]
    slow = next((s for s in pod_speeds if s not in speeds), None)  # a pod's leaves and NICs: the same rule
    if slow is not None:
        _drop_speed(data, "pods", fabric, slow, speeds, specs, params, warnings)
    try:  # the speed the engine will run: B300 on Ethernet runs its ConnectX-8 at 400G, not 800G
        _nic, speed, _media = resolve_nic_and_speed(catalog, system, fabric, speed)
    except InputError:
        speed = speed or system.default_port_speed_gbps
    switch_id = data.get("switch")
    if switch_id is not None:
        fitting = [s.id for s in catalog.fabric_switches(fabric, speed)]
        if switch_id not in fitting:
            switch = catalog.switch(switch_id)
            problem = (_("{switch} is an {switch_fabric} switch, the fabric is {fabric}").format(
                switch=switch_id, switch_fabric=_fabric(switch.fabric), fabric=_fabric(fabric))
                if switch.fabric != fabric else
                _("{switch} has no {speed} Gb/s ports").format(switch=switch_id, speed=speed))
            warnings.append(_warn("sw", specs["sw"].label(), _text(params["sw"]), problem,
                                  _("with {fabric} at {speed} Gb/s: {switches}").format(
                                      fabric=_fabric(fabric), speed=speed,
                                      switches=", ".join(fitting) or _("none"))))
            del data["switch"]
    gpn = data.get("gpus_per_node") or system.gpus_per_node
    domain = data.get("nvlink_domain_gpus")
    if domain is not None and not (domain == 1 or (domain >= gpn and domain % gpn == 0)):
        warnings.append(_warn("nvd", specs["nvd"].label(), _text(params["nvd"]),
                              _("must be 1 or a multiple of GPUs per node ({gpn})").format(gpn=gpn),
                              _("1, {gpn}, {double}, ... up to 576").format(gpn=gpn, double=2 * gpn)))
        del data["nvlink_domain_gpus"]
    _check_size(data, system, specs, params, warnings)


def _drop_speed(data: dict, field: str, fabric: str, speed: int, speeds: list[int], specs: dict, params: Mapping,
                warnings: list[str]) -> None:
    """Drop ``field`` (the port speed, or the extra pods) whose ``speed`` [Gb/s] no switch and NIC pair of ``fabric``
    runs (``speeds``: ``offered_port_speeds``), saying which speeds are."""
    key = DESIGN_FIELDS[field].link
    warnings.append(_warn(key, specs[key].label(), _text(params[key]),
                          _("no {fabric} switch and NIC pair in the catalog runs at {speed} Gb/s").format(
                              fabric=_fabric(fabric), speed=speed),
                          _("with {fabric}: {speeds}").format(fabric=_fabric(fabric),
                                                              speeds=", ".join(map(str, speeds)))))
    del data[field]


def _check_size(data: dict, system, specs: dict, params: Mapping, warnings: list[str]) -> None:
    """Drop a node count whose GPUs pass the planner's limit (``core.design.gpu_limit_problem``: the nodes, rounded up
    to whole NVLink racks, times the GPUs per node), saying the largest count that fits."""
    nodes = data.get("nodes")
    if nodes is None:
        return
    gpn = data.get("gpus_per_node") or system.gpus_per_node
    domain = nvlink_domain_size(system, gpn, data.get("nvlink_domain_gpus"))
    rack = max(1, first_level_size(system, gpn, domain, data.get("nvlink_rack_gpus")) // gpn)
    problem = gpu_limit_problem(nodes, gpn, rack)
    if problem is None:
        return
    fit = most_nodes(gpn, rack)
    accepted = ngettext("1 to {fit} nodes of {gpn} GPU", "1 to {fit} nodes of {gpn} GPUs", gpn).format(
        fit=f"{fit:,}", gpn=gpn)
    warnings.append(_warn("n", specs["n"].label(), _text(params["n"]), problem[0], accepted))
    del data["nodes"]


def example_link(design: Design | None) -> str:
    """A share link's shape for an input's placeholder, with ``design``'s own keys (``encode``):
    ``https://…/?v=1&g=Atlas-800T-A2&ng=2048&…``, so that the example names the design's own system; None:
    the default design's."""
    return "https://…/?" + urlencode(encode(design if design is not None else Design()))
