"""The Resilience page's settings in a share link: the ``rs_`` extension of the share-link codec.

Keys (short and stable; only values that differ from the defaults are written):

* ``rs_fail``: the failed elements, comma-separated: written by the exports' names under the link's naming, as the
  page's chips show them and ``python -m core failure --fail`` reads them (``named_failures``: ``spine004``,
  ``leaf:2``, ``plane 2``, ``gpu006 nic3``, ``R02-04``, ``leaf004 -> spine002 #3``, ``nvl002-nvsw3``, ``sw-leaf001``,
  ``pod2-leaf002``); read as any name the CLI reads (up to four words: ``gpu006 nic 3``) or a failure spec of
  ``core.analysis.failure`` (``p0.spine3``, ``node5.nic2``, ``rack3.feeda``, ``p0.leaf3-spine1#2``: links written
  before), at most ``MAX_FAILED`` items; a hot link the user typed (``leaf002 -> spine003 #1``, as Overload & imbalance names it,
  ``python -m core failure --fail`` reads it too) is kept as typed in place of its element, so a reopened link
  shows what was typed (``read_hot_links`` reads it back under the design's names);
* ``rs_sp_switch``, ``rs_sp_transceiver``, ``rs_sp_cable``, ``rs_sp_nic``: the sparing rule of a BOM
  category (``2%`` or ``N+1``; defaults from ``reliability.toml``, ``core.analysis.sparing.default_policy``);
* ``rs_rate``: failure-rate overrides, ``switch.afr=0.08,nic.mttr=4`` (afr failures per year, mttr hours);
* ``rs_jg``: GPUs of the job the availability is computed for (0: every GPU);
* ``rs_lead``: restock lead time of the spares [days];
* ``rs_pat``, ``rs_pl``, ``rs_grp``: traffic pattern, rank placement and group size of the load model
  (``core.analysis.load``; group 0: the pattern's default); ``rs_gr``: its routing between the groups
  of a Dragonfly+ or a Dragonfly (``minimal`` or ``valiant``);
* ``rs_tab``: the open section (its English name).

``decode(params)`` never raises on user input: every bad value is one warning (escaped, at most 40
characters of what was typed) and the default applies. ``check_failures(plan, specs)`` checks the failed
elements against a design: an element the design does not have is a warning and is dropped, the rest apply.
``decode(encode(v)) == v`` for every value ``decode`` returns.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Mapping

from core.errors import InputError, shown
from core.formats import sharelink
from core.i18n import N_, _
from core.units import number_range

PREFIX = "rs_"
MAX_FAILED = 64
"""Most failed elements the link keeps."""
TABS = (N_("Failure what-if"), N_("Single points of failure"), N_("Availability"), N_("Spares"),
        N_("Overload & imbalance"))
"""The page's sections (English; the first is the default, never written)."""
SPARE_KEYS = {"switch": "switch", "transceiver": "transceiver", "cable": "cable", "nic": "NIC"}
"""Link key suffix -> BOM category of ``core.analysis.sparing``."""
_HOT = re.compile(r"^[A-Za-z0-9_.# -]{1,40}->[A-Za-z0-9_.# -]{1,40}$")
"""A hot link as typed (``leaf002 -> spine003 #1``, ``pod2-gpu004 nic1 -> pod2-leaf001``, ``p0.leaf1 -> p0.spine2#0``,
a Dragonfly's ``router 2 -> router 3``): export names (``core.fabric.naming.PREFIX``), NICs and cables, one ``->``."""
_RATE_CLASSES = ("gpu_node", "nic", "link", "switch", "transceiver", "cable")


@lru_cache(maxsize=1)
def _spec() -> re.Pattern:
    """A failed element or ``tier:count`` as the link keeps it: its tier word one the failure-spec language declares
    (``core.analysis.failure.spec_words``: ``nvlink2``, a torus's ``node``, a classic Dragonfly's ``router`` too); an
    export name of up to four words as ``python -m core failure --fail`` reads it (a NIC ``pod1-gpu006 nic3`` or
    ``gpu006 nic 3``, a feed ``r05-02 feeda`` or ``r05-02 feed a``, a chip ``gpu006 nvswitch2``) too."""
    from core.analysis.failure import spec_words

    words = "|".join(re.escape(w) for w in sorted(spec_words(), key=len, reverse=True))
    return re.compile(rf"^(?:({words}):)?([a-z0-9.\-]{{1,40}}(?: [a-z0-9.\-]{{1,20}}){{0,3}}(?: ?#\d{{1,3}})?)$")


def _item(text: str) -> str:
    """One failed element as the link keeps it: a hot link as typed (``_HOT``), anything else lower case."""
    text = " ".join(str(text).split())  # spaces as the failure names read them: one between words
    return text if "->" in text else text.lower()


def _well_formed(item: str) -> bool:
    return bool(_HOT.match(item) if "->" in item else _spec().match(item))


def keeps_typed(text: str) -> bool:
    """Whether the link can keep the hot link ``text`` as typed (``_HOT``: export names, a NIC, a cable; a family's
    words in another script are linked as their element)."""
    return bool(_HOT.match(text))


def parse_failures(text: str) -> tuple[str, ...]:
    """``"p0.spine3, leaf:2"`` -> ``("p0.spine3", "leaf:2")``: lower case (a hot link as typed), without repeats;
    checks the form only."""
    items = tuple(dict.fromkeys(_item(t) for t in str(text).split(",") if t.strip()))
    if len(items) > MAX_FAILED:
        raise sharelink.ParamError(_("more than {count} elements").format(count=MAX_FAILED))
    for item in items:
        if not _well_formed(item):
            raise sharelink.ParamError(_("{item} is not an element name or a tier and a count").format(
                item=shown(item, 20)))
    return items


def _parse_rule(category: str):
    def parse(text: str) -> str:
        from core.analysis.sparing import parse_rule

        try:
            kind, value = parse_rule(category, text)
        except InputError:
            raise sharelink.ParamError(_("not a percentage (2%) or N+k (N+1)")) from None
        return f"{value:g}%" if kind == "percent" else f"N+{int(value)}"
    return parse


def parse_rates(text: str) -> tuple[tuple[str, str, float], ...]:
    """``"switch.afr=0.08,nic.mttr=4"`` -> ``(("nic", "mttr_hours", 4.0), ("switch", "afr", 0.08))`` (sorted)."""
    out: dict[tuple[str, str], float] = {}
    for item in (t.strip() for t in str(text).split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        name, _dot, field = key.strip().lower().partition(".")
        field = {"mttr": "mttr_hours"}.get(field, field)
        if not sep or name not in _RATE_CLASSES or field not in ("afr", "mttr_hours"):
            raise sharelink.ParamError(_("{item} is not CLASS.afr=NUMBER or CLASS.mttr=NUMBER").format(
                item=shown(item, 20)))
        try:
            number = float(value.strip())
        except ValueError:
            raise sharelink.ParamError(_("{item} is not CLASS.afr=NUMBER or CLASS.mttr=NUMBER").format(
                item=shown(item, 20))) from None
        if not (0 <= number <= 1e6):
            raise sharelink.ParamError(_("{item}: the number must be from 0 to 1000000").format(item=shown(item, 20)))
        out[(name, field)] = number
    return tuple((n, f, v) for (n, f), v in sorted(out.items()))


def format_rates(rates) -> str:
    return ",".join(f"{n}.{'mttr' if f == 'mttr_hours' else f}={sharelink.format_number(v)}" for n, f, v in rates)


def rate_overrides(rates) -> dict[str, dict]:
    """The link's rates as ``core.analysis.availability.rates_with`` overrides."""
    out: dict[str, dict] = {}
    for name, field, value in rates:
        out.setdefault(name, {})[field] = float(value)
    return out


AVAILABILITY_SEED = 0
"""Seed of the availability's Monte Carlo, on the Resilience page and in the review pack."""


def availability_of(plan, values: Mapping):
    """The availability the Resilience page shows for ``plan`` under its settings ``values`` (``jg``: GPUs of the
    job, 0 = every GPU; ``rate``: failure-rate overrides): ``core.analysis.availability.shown_trials`` trials,
    seed ``AVAILABILITY_SEED``. The review pack shows this same result."""
    from core.analysis import availability as avail

    job_gpus = int(values.get("jg") or 0)
    return avail.availability(plan, job_gpus=min(job_gpus, plan.resolved.gpus) or None,
                              trials=avail.shown_trials(plan.resolved.gpus), seed=AVAILABILITY_SEED,
                              rates=avail.rates_with(rate_overrides(values.get("rate") or ())))


def pods_availability_of(mixed, values: Mapping):
    """The whole-fabric availability the Resilience page shows for the mixed design ``mixed``
    (``core.analysis.podavail``) under its settings ``values`` (as ``availability_of``): every GPU of every pod by
    default, the same trials, seed and rates."""
    from core.analysis import availability as avail
    from core.analysis.podavail import pods_availability

    total = sum(p.gpus for p in mixed.fabric.pods)
    job_gpus = int(values.get("jg") or 0)
    return pods_availability(mixed, job_gpus=min(job_gpus, total) or None, trials=avail.shown_trials(total),
                             seed=AVAILABILITY_SEED, rates=avail.rates_with(rate_overrides(values.get("rate") or ())))


def _tab(text: str) -> str:
    value = str(text).strip().casefold()
    for tab in TABS:
        if value == tab.casefold():
            return tab
    raise sharelink.ParamError(_("not a section of the page"))


def _default_policy() -> dict[str, str]:
    from core.analysis.sparing import default_policy

    return default_policy()


def _params():
    from core.analysis.load import GLOBAL_ROUTINGS, PATTERNS, PLACEMENTS

    P = sharelink.Param
    policy = _default_policy()
    params = [
        P("fail", N_("failed elements"), parse_failures, ",".join, (),
          lambda: _("comma-separated element names or tier:count, e.g. {example}").format(
              example="spine004,leaf:2")),
        P("rate", N_("failure rates"), parse_rates, format_rates, (),
          lambda: _("comma-separated CLASS.afr=NUMBER or CLASS.mttr=NUMBER, classes {classes}").format(
              classes=", ".join(_RATE_CLASSES))),
        P("jg", N_("availability job GPUs (0 = all)"), sharelink.parse_int(0, 1_000_000), str, 0,
          lambda: number_range(0, 1_000_000)),
        P("lead", N_("restock lead time [days]"), sharelink.parse_int(1, 3650), str, 90,
          lambda: number_range(1, 3650)),
        P("pat", N_("traffic pattern"), sharelink.parse_choice(list(PATTERNS)), str, "ring", ", ".join(PATTERNS)),
        P("pl", N_("rank placement"), sharelink.parse_choice(list(PLACEMENTS)), str, "rail", ", ".join(PLACEMENTS)),
        P("grp", N_("group size (0 = the pattern's default)"), sharelink.parse_int(0, 1_000_000), str, 0,
          lambda: number_range(0, 1_000_000)),
        P("gr", N_("routing between Dragonfly groups"), sharelink.parse_choice(list(GLOBAL_ROUTINGS)), str,
          "minimal", ", ".join(GLOBAL_ROUTINGS)),
        P("tab", N_("Resilience section"), _tab, str, TABS[0], ", ".join(TABS)),
    ]
    for key, category in SPARE_KEYS.items():
        params.append(P("sp_" + key, N_("sparing rule"), _parse_rule(category), str, policy[category],
                        lambda: _("a percentage (2%) or N+k (N+1)")))
    return params


RS = sharelink.register_extension(PREFIX, _params())
DEFAULTS = {p.key: p.default for p in RS.params}
_KNOWN = {PREFIX + p.key for p in RS.params}


def prefix_of(key: str) -> bool:
    return str(key).startswith(PREFIX)


def decode(params: Mapping[str, str | list[str]]) -> tuple[dict, list[str]]:
    """Every ``rs_`` value (defaults where absent or bad) and one warning per bad or unknown key."""
    mine = {k: v for k, v in params.items() if prefix_of(k)}
    warnings = []
    known = ", ".join(sorted(_KNOWN))
    for key in (k for k in mine if k not in _KNOWN):  # all of them: what is shown is cut by sharelink.capped_warnings
        warnings.append(_("Link parameter {key} is unknown and was ignored. Known: {known}.").format(
            key=shown(key, 20), known=known))
    raw_fail = mine.pop(PREFIX + "fail", None)
    values, problems = RS.decode({k: v for k, v in mine.items() if k in _KNOWN})
    if raw_fail is not None:  # leniently: each bad item is one warning, the good ones apply
        items = [_item(t) for t in sharelink._text(raw_fail).split(",") if t.strip()]
        good = []
        for item in dict.fromkeys(items):
            if not _well_formed(item):
                problems.append(_("Link parameter 'rs_fail' (failed elements): {item} was ignored: it is not an "
                                  "element name or a tier and a count (e.g. {example}).").format(
                                      item=shown(item, 40), example="leaf001, spine:2"))
            elif len(good) >= MAX_FAILED:
                problems.append(_("Link parameter 'rs_fail' (failed elements) names more than {count} elements; "
                                  "the first {count} apply.").format(count=MAX_FAILED))
                break
            else:
                good.append(item)
        values["fail"] = tuple(good)
    return values, warnings + problems


def encode(values: Mapping) -> dict[str, str]:
    """The settings as URL parameters; defaults left out."""
    return RS.encode(values)


def policy(values: Mapping) -> dict[str, str]:
    """The sparing policy of ``values`` (``core.analysis.sparing`` categories -> rule)."""
    return {category: values["sp_" + key] for key, category in SPARE_KEYS.items()}


def read_hot_links(plan, items, scheme=None) -> tuple[list[tuple[str, str]], list[str]]:
    """The link's failed elements ``items`` with each hot link (kept as typed, ``_HOT``) read back as its element
    (``core.formats.linknames.failure_element`` under the exports' naming ``scheme``, as the page read it when it was
    typed): ``(as kept, element)`` of each in order, and a warning per hot link ``plan`` does not have (left out)."""
    from core.formats.linknames import failure_element

    pairs, warnings = [], []
    for item in items:
        try:
            pairs.append((item, failure_element(plan, item, scheme) if "->" in item else item))
        except InputError as exc:
            warnings.append(_("Link parameter 'rs_fail' (failed elements): {item} was ignored: {problem}").format(
                item=shown(item, 40), problem=str(exc)))
    return pairs, warnings


def named_failures(plan, specs, naming=None) -> tuple[str, ...]:
    """The failed elements ``specs`` (the what-if's ids; a design with pods: the whole fabric's,
    ``core.analysis.podwhatif.link_failures``) as the share link writes them: each element by its exports' name under
    the naming scheme ``naming`` (``core.analysis.failure.spec.failure_namer``: ``leaf004``, ``sw-leaf004``, ``gpu006
    nic3``, ``pod2-leaf002``, ``leaf004 -> spine002 #3``), the names the page shows and python -m core failure --fail
    reads; a tier and a count, a hot link as typed, and an id without a name the link can keep, as they are."""
    from core.analysis.failure.spec import failure_namer

    names = failure_namer(plan, naming)

    def named(spec: str) -> str:
        tier, sep, rest = spec.partition(":") if ":" in spec else ("", "", spec)
        if names is None or "->" in spec or not rest.strip() or rest.strip().isdigit():
            return spec
        name = f"{tier}{sep}{names.name(rest)}"
        return name if _well_formed(_item(name)) else spec
    return tuple(dict.fromkeys(named(spec) for spec in specs))


def check_failures(plan, specs, naming=None) -> tuple[tuple[str, ...], list[str]]:
    """The failure specs that ``plan`` has (in order; an element named as the exports name it under the naming
    scheme ``naming``, ``sw-leaf001``, as its id: ``core.analysis.failure.spec.engine_specs``) and one warning per
    spec it has not, or that fails more elements than the tier holds; the warning names the element and what the
    design accepts, in the names of ``naming`` (None: the default names)."""
    from core.analysis.failure import resolve_failures
    from core.analysis.failure.spec import engine_specs

    good: list[str] = []
    warnings = []
    for spec in specs:
        element = engine_specs(plan, [spec], naming)[0]
        if element == spec and naming is not None:  # a link written under the default names (leaf001): its id
            element = engine_specs(plan, [spec])[0]
        try:
            resolve_failures(plan, [*good, spec], naming)  # said as typed (sw-leaf099, not p0.leaf98)
        except InputError as exc:
            warnings.append(_("Link parameter 'rs_fail' (failed elements): {item} was ignored: {problem}").format(
                item=shown(spec, 40), problem=str(exc)))
            continue
        good.append(element)
    return tuple(good), warnings



def check_pod_failures(plan, mixed, specs, naming=None) -> tuple[tuple[str, ...], list[str], list[str]]:
    """A design with pods: ``(pod 1's specs that plan has, whole-fabric-only specs, warnings)``. An element named as
    the pods' exports name it under the naming scheme ``naming`` (``pod2-sw-leaf001``:
    ``core.analysis.failure.podnames.PodElementNames``) is read as its id first; the specs are
    split as ``python -m core failure`` reads them (``core.analysis.podwhatif.split_failures``); a pod-1 spec that
    ``plan`` (pod 1 alone) lacks but the whole fabric has (``PodsWiring.whole_of_alone``: a shared spine pod 1
    alone does not have) is failed on the whole fabric only, without a warning; a tier and a count (``leaf:1``) fails
    the elements it chooses on pod 1 on the whole fabric (``core.analysis.podwhatif.pod1_counts``, as python -m core
    failure does: ``count_notes`` says them)."""
    from core.analysis.failure.podnames import PodElementNames
    from core.analysis.failure.spec import engine_specs
    from core.analysis.podwhatif import pod1_counts, split_failures, whatif_wiring

    names = PodElementNames(mixed, naming)
    alone, whole = split_failures(mixed, [names.parse(spec) or spec for spec in specs])
    counts = [spec for spec in alone if spec.partition(":")[2].strip().isdigit()]  # leaf:1: pod 1's, as the CLI
    alone = [spec for spec in alone if spec not in counts]
    good, problems = check_failures(plan, alone, naming)
    wiring = whatif_wiring(mixed)
    kept = []
    bad = [spec for spec in alone if engine_specs(plan, [spec], naming)[0] not in good]
    for spec, problem in zip(bad, problems):  # in the warnings' order
        target = wiring.whole_of_alone(spec)
        if target is None:
            kept.append(problem)
        else:
            whole.append(target)
    for spec in counts:  # the page fails no element of pod 1 alone (standalone_hidden_note): pod 1's on the whole
        try:
            whole += [e for e in pod1_counts(mixed, [spec], naming)[0][1] if e not in whole]
        except InputError as exc:
            kept.append(_("Link parameter 'rs_fail' (failed elements): {item} was ignored: {problem}").format(
                item=shown(spec, 40), problem=str(exc)))
    return tuple(good), whole, kept


__all__ = ["AVAILABILITY_SEED", "DEFAULTS", "MAX_FAILED", "RS", "TABS", "availability_of", "check_failures", "check_pod_failures", "decode", "encode", "named_failures", "parse_failures",
           "keeps_typed", "policy", "rate_overrides", "read_hot_links"]
