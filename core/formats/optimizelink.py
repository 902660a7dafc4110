"""The Optimize page's search in a share link: the ``opt_`` extension of the share-link codec.

The page plans the sidebar's design (its GPU model, size and every field the search does not set; the
design's own share-link keys carry them). Keys are short and stable: ``opt_fab`` fabric allowed,
``opt_sw`` switch models allowed (comma-separated, empty = all), ``opt_ven`` switch makers allowed
(comma-separated catalog vendors, empty = any; it narrows ``opt_sw``: ``allowed_switches``), ``opt_obj`` the
objective (``cluster``: whole-cluster capex, the default; ``compute``: compute-fabric capex; ``tco``; ``gpu_hour``:
cost per GPU-hour; ``days``: days to train, with ``opt_model``; ``usd_per_mtok``: cost per million output tokens,
with ``opt_srate``: ``core.analysis.objectives.OBJECTIVES``),
and one key per constraint, ``0`` or absent meaning no limit: ``opt_os`` largest end-to-end oversubscription,
``opt_bisr`` largest bisection ratio (half of all GPUs' injection over the bisection, 1 = 1:1 = non-blocking),
``opt_bis`` the older least bisection per GPU (bisection / all GPUs [GB/s, one direction]; still applied as
given, the page no longer offers it), ``opt_hops`` most switch hops, ``opt_bus`` least all-reduce busbw
[GB/s] at ``opt_bsz`` bytes, ``opt_tiers`` most tiers, ``opt_kw`` most facility power [kW],
``opt_usd`` budget [USD, whole cluster], ``opt_model`` a training preset (the front then plots days to train),
``opt_days`` most days, ``opt_tok`` tokens to train [trillions], ``opt_pl`` fewest planes
(redundancy); ``opt_mode=envelope`` finds the most GPUs within the budget or power instead of using
the
sidebar's size; ``opt_run=1`` runs the search when the link opens.

Old links: ``opt_gpu`` (the page's own GPU model) and ``opt_n`` (its GPU count), from before the page planned the
sidebar's design, are moved onto the sidebar's keys ``g`` and ``ng`` when the link does not set them itself, and
ignored otherwise (``sidebar_params``, which the web app runs on every link before decoding it; the page says
which, once). ``SEARCH.decode(params)`` gives every value and one warning per bad value;
``constraints(values)`` turns them into ``core.analysis.optimize.Constraints``.
"""

from __future__ import annotations

from typing import Any, Mapping

from core.analysis.objectives import OBJECTIVES
from core.analysis.optimize import Constraints, Grid, default_topologies
from core import vocab
from core.catalog import load_catalog
from core.errors import InputError, shown
from core.formats import sharelink
from core.i18n import N_, _
from core.units import span
from core.perf.sizes import format_size, parse_size
from core.perf.training import PRESETS, parse_job

GIB = 1 << 30
FABRIC_CHOICES = ("any", "infiniband", "ethernet")
OBJECTIVE_CHOICES = OBJECTIVES
LEGACY_SIDEBAR_KEYS = {"opt_gpu": ("g",), "opt_n": ("ng", "n")}
"""Old keys of the page's own GPU model and count -> the sidebar's keys that replace them (the first is where the
value moves; any of them set in the link means the link's sidebar wins)."""


def sidebar_params(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
    """``params`` with the old ``opt_gpu``/``opt_n`` moved onto the sidebar's ``g``/``ng`` (when the link sets none
    of the sidebar keys that replace them) or dropped (when it does), and what became of each: ``{old key:
    (its value, "moved" | "ignored")}``. The values are checked where they land (the design codec warns about a
    bad ``g`` or ``ng``)."""
    out = dict(params)
    legacy: dict[str, tuple[str, str]] = {}
    for old, new in LEGACY_SIDEBAR_KEYS.items():
        if old not in out:
            continue
        raw = out.pop(old)
        value = raw if isinstance(raw, str) else str(raw[-1] if raw else "")
        if any(k in out for k in new):
            legacy[old] = (value, "ignored")
        else:
            out[new[0]] = value
            legacy[old] = (value, "moved")
    return out, legacy


def legacy_notes(legacy: Mapping[str, tuple[str, str]], gpu: str, size: str) -> list[str]:
    """What ``sidebar_params`` did with an old link's keys, in the current language (``gpu`` and ``size``: the
    sidebar design's GPU model and size, as the page names them)."""
    notes = []
    for old, (value, fate) in legacy.items():
        what = _("GPU model") if old == "opt_gpu" else _("GPU count")
        if fate == "moved":
            notes.append(_("Link parameter '{key}' = {value} (the Optimize page's own {what}, from before the page "
                           "planned the sidebar's design) is now the sidebar's {what}: the page plans {size}.").format(
                               key=old, value=shown(value, 40), what=what, size=size))
        else:
            notes.append(_("Link parameter '{key}' = {value} (the Optimize page's own {what}, from before the page "
                           "planned the sidebar's design) is ignored: the link also sets the sidebar's, and the page "
                           "plans the sidebar's design, {size}.").format(
                               key=old, value=shown(value, 40), what=what, size=size))
    return notes


def _switches() -> list[str]:
    return [s.id for s in load_catalog().switches]


def _parse_known(text: str, known: list[str], refused) -> tuple[str, ...]:
    """Comma-separated ``text`` -> the values of ``known`` it names (any case; spelled as ``known`` spells them, each
    once, in order); ``ParamError(refused(item))`` for an item not known (its first 40 characters)."""
    folded = {v.lower(): v for v in known}
    values = []
    for item in (v.strip() for v in text.split(",")):
        if not item:
            continue
        if item.lower() not in folded:
            raise sharelink.ParamError(refused(item[:40]))
        values.append(folded[item.lower()])
    return tuple(dict.fromkeys(values))


def parse_switches(text: str) -> tuple[str, ...]:
    """``"QM9700,SN5600"`` -> the models, each a catalog switch (case as the catalog spells it)."""
    return _parse_known(text, _switches(), lambda item: _("{model} is not a catalog switch").format(model=item))


def parse_topologies(text: str) -> tuple[str, ...]:
    """``"rail-optimized,torus"`` -> the topologies the search tries (``core.vocab.TOPOLOGY`` ids; empty: the
    optimizer's default topologies for the design, ``core.analysis.optimize.default_topologies``)."""
    return _parse_known(text, list(vocab.TOPOLOGY.ids), lambda item: _(
        "{topology} is not a topology; topologies: {known}").format(topology=item, known=", ".join(vocab.TOPOLOGY.ids)))


def grid(values: Mapping[str, Any], topology: str | None = None) -> Grid:
    """The search grid of decoded settings: the default grid with the topologies asked (``top``), if any, else the
    default topologies of a design of ``topology`` (the sidebar's: ``default_topologies``)."""
    return Grid(topologies=tuple(values["top"]) if values.get("top") else default_topologies(topology))


def _vendors() -> list[str]:
    return list(dict.fromkeys(s.vendor for s in load_catalog().switches if s.role == "fabric" and s.vendor))


def parse_vendors(text: str) -> tuple[str, ...]:
    """``"h3c,Huawei"`` -> the switch makers, each one of the catalog's (spelled as the catalog spells it)."""
    return _parse_known(text, _vendors(), lambda item: _(
        "{vendor} is not a switch maker of the catalog; makers: {known}").format(vendor=item,
                                                                              known=", ".join(_vendors())))


def allowed_switches(switches: tuple[str, ...] | None, vendors: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The switch models a search may use: ``switches`` (None = every fabric switch) made by one of ``vendors``
    (None or empty = any maker); ``InputError`` when none is left."""
    if not vendors:
        return switches
    catalog = load_catalog()
    pool = switches or tuple(s.id for s in catalog.switches if s.role == "fabric")
    wanted = {v.casefold() for v in vendors}
    kept = tuple(m for m in pool if catalog.switch(m).vendor.casefold() in wanted)
    if not kept:
        raise InputError(_("no allowed switch is made by {vendors}; makers of the catalog's switches: {known}").format(
            vendors=", ".join(shown(v) for v in vendors), known=", ".join(_vendors())))
    return kept


def _parse_size(text: str) -> int:
    try:
        value = parse_size(text)
    except (ValueError, TypeError) as exc:
        raise sharelink.ParamError(str(exc)) from None
    if not 1 <= value <= 64 * GIB:
        raise sharelink.ParamError(_("not between 1 B and 64 GiB"))
    return value


def _limit(key: str, name: str, high: float, whole: bool = False) -> sharelink.Param:
    parse = sharelink.parse_int(0, int(high)) if whole else sharelink.parse_float(0.0, high)
    return sharelink.Param(key, name, parse, str if whole else sharelink.format_number, 0,
                           lambda: span(_("0 (no limit)"), f"{high:,.0f}"))


P = sharelink.Param
SEARCH = sharelink.register_extension("opt_", [
    P("fab", N_("fabric allowed"), sharelink.parse_choice(FABRIC_CHOICES), str, "any", ", ".join(FABRIC_CHOICES)),
    P("sw", N_("switch models allowed"), parse_switches, ",".join, (),
      lambda: _("comma-separated catalog switches: {models}").format(models=", ".join(_switches()))),
    P("top", N_("topologies tried"), parse_topologies, ",".join, (),
      lambda: _("comma-separated topologies: {topologies}").format(topologies=", ".join(vocab.TOPOLOGY.ids))),
    P("ven", N_("switch makers allowed"), parse_vendors, ",".join, (),
      lambda: _("comma-separated switch makers: {makers}").format(makers=", ".join(_vendors()))),
    _limit("os", N_("maximum oversubscription"), 16.0),
    _limit("bis", N_("minimum bisection per GPU (bisection / all GPUs)"), 10_000.0),
    _limit("bisr", N_("maximum bisection ratio"), 16.0),
    _limit("hops", N_("maximum switch hops"), 9, whole=True),
    _limit("bus", N_("minimum all-reduce busbw"), 10_000.0),
    P("bsz", N_("busbw message size"), _parse_size, format_size, GIB, "1 B to 64 GiB"),
    _limit("tiers", N_("maximum tiers"), 3, whole=True),
    _limit("pl", N_("required planes"), 8, whole=True),
    P("mode", N_("size by"), sharelink.parse_choice(["gpus", "envelope"]), str, "gpus", "gpus, envelope"),
    _limit("kw", N_("maximum power"), 10_000_000.0),
    _limit("usd", N_("budget"), 1e13),
    P("model", N_("training model"), sharelink.parse_choice(["", *PRESETS]), str, "",
      lambda: _("empty (no job) or one of {models}").format(models=", ".join(PRESETS))),
    _limit("days", N_("maximum days to train"), 100_000.0),
    P("tok", N_("tokens to train [T]"), sharelink.parse_float(0.001, 1000.0), sharelink.format_number, 1.0,
      "0.001 to 1000"),
    _limit("srate", N_("serving rate [requests/s]"), 1e7),
    _limit("susd", N_("maximum cost per million output tokens"), 1e6),
    P("obj", N_("objective"), sharelink.parse_choice(list(OBJECTIVE_CHOICES)), str, "cluster",
      ", ".join(OBJECTIVE_CHOICES)),
    P("run", N_("run the search"), sharelink.parse_choice(["1", "0"]), str, "0", "1, 0"),
])
DEFAULTS = {p.key: p.default for p in SEARCH.params}


def decode(params: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Every search setting (defaults where absent or bad) and one warning per bad value (the old ``opt_gpu`` and
    ``opt_n`` are left to ``sidebar_params``)."""
    return SEARCH.decode({k: v for k, v in params.items() if k not in LEGACY_SIDEBAR_KEYS})


def encode(values: Mapping[str, Any]) -> dict[str, str]:
    """The settings that differ from the defaults, as link parameters."""
    return SEARCH.encode(values)


def constraints(values: Mapping[str, Any], serving: Mapping[str, Any] | None = None) -> Constraints:
    """The engine's ``Constraints`` of decoded settings (0 = no limit); with a serving rate (``srate``), the
    Inference page's settings ``serving`` (``core.formats.inferencelink`` values, its defaults when None) at that
    rate are the serving target."""
    def limit(key):
        value = values.get(key, 0)
        return value if value else None

    job = parse_job({"model": values["model"], "tokens_to_train": values.get("tok", 1.0) * 1e12}) \
        if values.get("model") else None
    switches = allowed_switches(tuple(values.get("sw") or ()) or None, tuple(values.get("ven") or ()) or None)
    return Constraints(fabric=values.get("fab", "any"), switches=switches,
                       max_oversubscription=limit("os"), min_bisection_gbytes_per_gpu=limit("bis"),
                       max_bisection_ratio=limit("bisr"),
                       max_hops=limit("hops"), min_busbw_gbytes=limit("bus"), busbw_size=values.get("bsz", GIB),
                       max_tiers=limit("tiers"), max_power_kw=limit("kw"), budget_usd=limit("usd"), job=job,
                       max_days=limit("days") if job is not None else None, min_planes=limit("pl"),
                       **_serving_target(values, serving))


def _serving_target(values: Mapping[str, Any], serving: Mapping[str, Any] | None) -> dict:
    """``Constraints.serving`` and its cost ceiling for a serving rate (none without one)."""
    if not values.get("srate"):
        return {}
    from core.formats.inferencelink import DEFAULTS as SERVING_DEFAULTS
    from core.perf.servingform import base_deployment

    base = base_deployment({**SERVING_DEFAULTS, **(serving or {}), "load": "rate", "rate": values["srate"]})
    return {"serving": base, "max_usd_per_million_tokens": values.get("susd") or None}
