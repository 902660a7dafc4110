"""The design state of a browser session: sidebar controls <-> Design <-> URL query string.

Rules (the URL is the only state that matters across sessions):

* At the first run of a session the URL is the truth: ``core.sharelink.decode``
  reads it, every control is set from the decoded design, and warnings for
  ignored values are kept to show.
* On every later run the controls are the truth; the design is built from
  them and the query string is rewritten to ``core.sharelink.encode(design)``
  (design keys and this module's ``ui_`` keys only; other pages' ``perf_*``
  keys and bound widget keys are left alone).

Pages read ``current()``; all arithmetic is in ``core``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

import streamlit as st
from streamlit.errors import StreamlitAPIException

from core import i18n, units
from core.formats import inferencelink, optimizelink, sharelink
from core.formats.entry import SIZE_UNITS, count_in, nodes_for, parse_whole, rounded_note
from core.formats.joblink import JOB
from core.formats.uilink import UI, display_params
from core import vocab
from core.catalog import grouped_by_vendor, load_catalog, vendor_label
from core.design import FIELDS as DESIGN_FIELDS
from core.design import MAX_NAME_CHARS, MAX_NICS_PER_NODE, SYSTEM_DEFAULT, Surface, field_type
from core.design import (
    MAX_GPUS, Design, ResolvedDesign, first_level_size, most_nodes, nvlink_domain_size, offered_port_speeds,
    parse_design, resolve_design,
)
from core.errors import DesignError, InputError, shown
from core.fabric import naming
from core.fabric.families import ignored_input, oversubscription_input, tier_words, unused_fields, words
from core.figures.keynumbers import size_caption
from core.i18n import LANGUAGES, N_, _
from core.networks.policy import policy
from core.physical.racks import load_racks, preset_label
from core.analysis.whole import first_pod, one_fabric_only, plan_with_pods
from core.plan import Plan
from core.scaleup import in_noun, link_word
from webui import gallery, inferencestate, jobstate, pagestate, safe
from webui.pods import pod_widgets

CATALOG = load_catalog()
RACKS = load_racks()
SYSTEMS = {s.id: s for s in CATALOG.systems}
NODE_STEPS = sorted({*range(1, 17), *[b * m for b in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
                                                        32768, 65536) for m in (1, 1.5) if b * m == int(b * m)],
                     2 ** 17, 2 ** 18, 500_000, 1_000_000})
NODE_STEPS = [int(n) for n in NODE_STEPS]
GPN_STEPS = [1, 2, 4, 8, 16, 32, 72]
OVERSUB_STEPS = [1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0, 16.0]
LEAF_OVERSUB_STEPS = [0.5, *OVERSUB_STEPS]
"""The leaf's down:up may go below 1 (more uplink than downlink, as Meta provisions ToRs)."""
# the UI's own link keys (a sharelink extension, so decode() leaves them alone): core.formats.uilink
CURRENCY_WIDGET, RATE_WIDGET = "w_cur", "w_fx"  # widget keys (K + ...: kept over a language switch)


def money_from_link(params: dict) -> tuple[tuple[str, float], list[str]]:
    """(currency, rate per US dollar) of the link's ``ui_cur`` and ``ui_fx``, and the warning about a rate its
    currency does not take (``core.i18n.check_rate``: the published rate is used instead). A currency the app does
    not know is ``UI.decode``'s warning (US dollars are shown), and its rate is then not warned about again."""
    values = UI.decode(params)[0]
    code, rate = values["cur"], values["fx"]
    try:
        return (code, i18n.check_rate(code, rate)), []
    except ValueError:
        published = i18n.check_rate(code, None)
        if "ui_cur" in params and UI.decode({"ui_cur": sharelink._text(params["ui_cur"])})[1]:  # refused
            return (code, published), []
        entry, raw = i18n.currencies()[code], params.get("ui_fx")
        raw = raw[-1] if isinstance(raw, (list, tuple)) and raw else raw  # the last value counts
        return (code, published), [_(
            "Link parameter 'ui_fx' (exchange rate) = {value} was ignored: {code} takes a rate from {range} "
            "per US dollar; {published} is used.").format(value=shown(str(raw), 20), code=code,
                                                         range=units.span(f"{entry['low']:g}", f"{entry['high']:g}"),
                                                         published=f"{published:g}")]


def _on_currency_change() -> None:
    """A currency was chosen: its rate starts at the published one."""
    code = st.session_state.get(CURRENCY_WIDGET)
    if code in i18n.currencies():
        st.session_state[RATE_WIDGET] = i18n.check_rate(code, None)


def currency_controls(sb) -> None:
    """The one currency setting, in every sidebar: the currency and (but for US dollars) its rate per US dollar,
    stated with its source and date; sets this run's money (``core.i18n.set_currency``) for every page."""
    ss = st.session_state
    codes = list(i18n.currencies())
    if ss.get(CURRENCY_WIDGET) not in codes:
        ss[CURRENCY_WIDGET] = i18n.DEFAULT_CURRENCY
    code = sb.selectbox(_("Currency"), codes, key=CURRENCY_WIDGET, on_change=_on_currency_change,
                        format_func=lambda c: _(i18n.CURRENCY_NAMES.get(c, c)),
                        help=_("Every money figure is shown in this currency; the catalog's prices are in US "
                               "dollars and are converted at the rate below."))
    rate = None
    if code != i18n.DEFAULT_CURRENCY:
        entry = i18n.currencies()[code]
        try:
            i18n.check_rate(code, ss.get(RATE_WIDGET))
        except ValueError:
            ss[RATE_WIDGET] = i18n.check_rate(code, None)
        rate = sb.number_input(_("Exchange rate [{code} per USD]").format(code=code), float(entry["low"]),
                               float(entry["high"]), step=0.01, format="%.5f", key=RATE_WIDGET,
                               help=_("The published rate is {rate} ({source}, {date}); set your own here.").format(
                                   rate=f"{entry['rate']:g}", source=_(i18n.RATE_SOURCES[entry["source"]]),
                                   date=entry["date"]))
    i18n.set_currency(code, rate)
    if code != i18n.DEFAULT_CURRENCY:
        sb.caption(safe.md(i18n.money_note()))


def unit_toggle(sb) -> None:
    """The one bandwidth-unit switch, in every sidebar (the Designer's and Compare's); ``bandwidth_unit`` reads it."""
    sb.toggle(_("Bandwidth in Gb/s (bits)"), key=K + "bits",
              help=_("Off: GB/s (bytes). Network speeds are per direction."))


def bandwidth_unit() -> str:
    """The bandwidth unit every page shows ("GB/s" or "Gb/s"): the sidebar's toggle once the session has one,
    else the link's ``ui_bw`` (a page run on its own)."""
    ss = st.session_state
    if K + "bits" in ss:
        return "Gb/s" if ss[K + "bits"] else "GB/s"
    return "Gb/s" if UI.decode(st.query_params.to_dict())[0]["bw"] == "gbit" else "GB/s"


def _parse_prefix(text: str) -> str:
    """A device-name prefix of the link (``core.fabric.naming``: a letter, then letters, digits, - or _)."""
    value = text.strip()
    if not re.fullmatch(NAME_PREFIX, value):
        raise sharelink.ParamError(_("not a name prefix"))
    return value


def _parse_digits(text: str) -> int:
    if not text.strip().isdigit() or not 1 <= int(text.strip()) <= 8:
        raise sharelink.ParamError(_("not a whole number from 1 to 8"))
    return int(text.strip())


def _prefix_words() -> str:
    return _("a letter, then up to 15 letters, digits, - or _")


NAME_PREFIX = naming.PREFIX
"""What ``core.fabric.naming.NamingScheme`` accepts as a prefix (the switch prefix may also be empty)."""
# the export naming scheme in the link (Designer's hand-off options; defaults = NamingScheme())
NAMING = sharelink.register_extension("nm_", [
    sharelink.Param("np", N_("node name prefix"), _parse_prefix, str, "gpu", _prefix_words),
    sharelink.Param("sp", N_("switch name prefix"), lambda t: "" if not t.strip() else _parse_prefix(t), str, "",
                    _prefix_words),
    sharelink.Param("nd", N_("name digits"), _parse_digits, str, 3, "1-8"),
])
NAMING_STORE = "fp_naming"  # the naming scheme's link values, kept while other pages show


def naming_from_link(params: dict) -> tuple[dict, list[str]]:
    """The link's naming values (``nm_`` keys) and its warnings: each value read by its parser, then the settings
    checked as a whole (``core.fabric.naming.naming_scheme``); settings refused as a whole give way to the default
    naming, and the warning says which values were dropped and why."""
    values, warnings = NAMING.decode(params)
    try:
        naming.naming_scheme(values["np"], values["sp"], int(values["nd"]))
    except naming.NamingError as exc:
        defaults = {p.key: p.default for p in NAMING.params}
        dropped = ", ".join(f"nm_{key}={shown(str(values[key]), 20)}" for key in defaults
                            if values[key] != defaults[key])
        warnings.append(_("Link parameters {values} were not used, so the exports use the default names "
                          "({example}, ...): {problem}.").format(values=dropped, problem=exc,
                                                      example=f"{defaults['np']}{1:0{defaults['nd']}d}"))
        values = defaults
    return values, warnings

TAB_KEY = "tab"  # the Designer's open tab in the link: its English name (tab=Bandwidth) in every language
TAB_STORE = "fp_tab"  # the open tab's English name, kept while other pages show
TAB_WIDGET = "fp_tab_widget"  # the tabs' own state: the label in this run's language
DESIGNER_TABS = (N_("Topology"), N_("Bandwidth"), N_("Cost & power"), N_("Racks & cabling"), N_("Hand-off"))  # first = default (never in the link)
LANG_KEY = "lang"  # the language in every link: lang=en|zh (core.formats.sharelink leaves it to us)
LANG_WIDGET = "w_lang"
DESIGNER_PATH = ""  # the Designer is the default page: its url_path is empty
COMPARE_PATH = "compare"  # the Compare page: its comparison keys join the link there
COMPARE_LINK = "fp_cmp_link"  # set by pages/4_Compare.py each run
RESILIENCE_PATH = "resilience"  # the Resilience page: its rs_ keys join the link there
RESILIENCE_LINK = "fp_rs_link"  # set by pages/6_Resilience.py each run (core.formats.resiliencelink)
FIELD_STORES = {field: f"fp_{field}" for field, surface in DESIGN_FIELDS.items() if surface.widget is None}
"""Session keys of the design fields that are no sidebar widget (spares: the Designer's Cost & power tab;
calibration: the Performance page's calibration): links, files and those pages set them, the sidebar reads them."""
SPARES_STORE = FIELD_STORES["spares"]
AUTO = "auto"  # select value meaning "the catalog default" (None in the Design)

K = "w_"  # widget key prefix


@dataclass
class Current:
    design: Design | None
    plan: Plan | None
    error: Exception | None
    warnings: list[str]
    unit: str  # "GB/s" or "Gb/s"


# --- helpers ---------------------------------------------------------------------------------
def offered_speeds(fabric: str) -> list[int]:
    """Port speeds the engine can build on ``fabric`` (``core.design.offered_port_speeds``)."""
    return offered_port_speeds(CATALOG, fabric)


def engine_defaults(gpu: str, gpus_per_node: int, fabric: str, speed: int | None) -> ResolvedDesign | None:
    """What the engine resolves for these choices with speed (if None) and switch left to it.

    The sidebar's "auto (...)" labels come from here, so they name what the plan uses.
    None if the engine cannot resolve the combination (the plan's error says why).
    """
    system = SYSTEMS[gpu]
    try:
        # 72 nodes: a whole number of NVLink racks for every system, so no rounding note
        return resolve_design(Design(gpu=gpu, nodes=72, fabric=fabric, port_speed_gbps=speed,
                                     gpus_per_node=None if gpus_per_node == system.gpus_per_node else gpus_per_node),
                              CATALOG)
    except (DesignError, InputError):
        return None


def _system_label(system_id: str) -> str:
    """Short enough for the sidebar: ``H100 · 8 GPUs/node``, ``GB200-NVL72 · 72 GPUs/rack``."""
    system = SYSTEMS[system_id]
    if system.vendor != "NVIDIA":  # grouped by vendor: the catalog lists each vendor's systems together
        return f"{system.vendor} · {system.id}"
    if system.nvlink_domain_gpus > system.gpus_per_node:
        rack = system.nvlink_domain_gpus
        if system_id == st.session_state.get(K + "gpu"):  # the chosen one: the racks the plan builds (36 GPUs in the
            gpn, per_rack = _size_shape(system)  # NVL36 racks of a 144-GPU domain); the id the link's (other_rack)
            rack = per_rack * gpn if per_rack > 1 else rack
        return _("{system} · {count} GPUs/rack").format(system=system.id, count=rack)
    return _("{system} · {count} GPUs/node").format(system=system.id, count=system.gpus_per_node)


def _with(options: list, value) -> list:
    """Options with ``value`` inserted in order (so a link's exact value stays selectable)."""
    if value is None or value in options:
        return list(options)
    return sorted([*options, value])


SYSTEM_DEFAULTS = {"gpus_per_node": lambda system: system.gpus_per_node,
                   "fabric": lambda system: system.default_fabric}
"""Fields whose sidebar widget shows the GPU system's own value when the design leaves them to it
(``Surface.widget_none == SYSTEM_DEFAULT``)."""


def _fabric_word(fabric: str, nic_id: str | None) -> str:
    """A Fabric option's name: with a cloud instance's adapter chosen (``Nic.transport``) the provider's transport
    for the fabric that adapter runs on (``AWS EFA``, not ``Ethernet RoCE``; ``core.vocab.fabric_label``)."""
    nic = next((n for n in CATALOG.nics if n.id == nic_id), None) if nic_id not in (None, AUTO) else None
    return vocab.fabric_label(fabric, nic.transport if nic is not None and fabric in nic.fabrics else None)


def _label(field: str) -> str:
    """A design field's setting name, as declared (``core.design.FIELDS``), in the current language."""
    return DESIGN_FIELDS[field].title()


def _widget_value(field: str, surface: Surface, value, system):
    """What a field's sidebar widget holds for ``value`` (its declaration says how ``None`` is shown)."""
    if value is None:
        return SYSTEM_DEFAULTS[field](system) if surface.widget_none == SYSTEM_DEFAULT else surface.widget_none
    if surface.kind in ("system", "switch", "nic"):
        return getattr(CATALOG, surface.kind)(value).id
    if surface.kind == "overrides":
        return sharelink.format_overrides(value).replace(",", ", ")
    return float(value) if field_type(field) is float else value


def _set_widgets(design: Design, ss=None) -> None:
    """Put every control in the state that reproduces ``design``: each field's widget from its declaration
    (``core.design.FIELDS``); the size is the nodes widget whichever of nodes and GPUs the design gives.
    ``ss``: the session state (default ``st.session_state``; tests pass a dict)."""
    system = CATALOG.system(design.gpu)
    ss = st.session_state if ss is None else ss
    for field, surface in DESIGN_FIELDS.items():
        if surface.widget is not None and field not in ("nodes", "gpus"):
            ss[K + surface.widget] = _widget_value(field, surface, getattr(design, field), system)
    gpn = ss[K + DESIGN_FIELDS["gpus_per_node"].widget]
    ss[K + "nodes"] = math.ceil(design.gpus / gpn) if design.gpus is not None else design.nodes
    if design.gpus is not None and rounded_note(design.gpus, gpn):  # a link's ng=999999: said, as typed
        ss["_fp_size_problem"] = rounded_note(design.gpus, gpn)
    for field, key in FIELD_STORES.items():  # not sidebar widgets: the pages that set them read these
        ss[key] = getattr(design, field)


def _design_data(ss, system, speed: int) -> tuple[dict, list[str]]:
    """The ``Design`` fields the sidebar's widgets hold (the reverse of ``_set_widgets``), and a warning per bad
    override item. ``speed`` is the port speed in use (an uplink at that speed is no separate choice)."""
    data, problems = {}, []
    for field, surface in DESIGN_FIELDS.items():
        if surface.widget is None or field == "gpus":
            continue
        value = ss.get(K + surface.widget)
        if surface.kind == "overrides":
            # the good items apply; each bad one is a warning (one bad item no longer drops the list)
            value, item_warnings = sharelink.parse_overrides_lenient(value or "", CATALOG, surface.unit)
            problems += item_warnings
        elif surface.widget_none == SYSTEM_DEFAULT:
            value = None if value == SYSTEM_DEFAULTS[field](system) else value
        elif value == surface.widget_none or (value == AUTO and (surface.vocab is None or AUTO not in surface.vocab)):
            value = None
        elif field_type(field) is float:
            value = float(value)
        elif field_type(field) is int and not isinstance(value, bool):
            value = int(value)
        data[field] = value
    if data.get("uplink_speed_gbps") == speed:
        data["uplink_speed_gbps"] = None
    for field, key in FIELD_STORES.items():
        data[field] = ss.get(key, Design.model_fields[field].default)
    return data, problems


def _on_gpu_change() -> None:
    """A new GPU model: take its defaults for the choices that depend on the system."""
    system = SYSTEMS[st.session_state[K + "gpu"]]
    ss = st.session_state
    ss[K + "gpn"] = system.gpus_per_node
    ss[K + "fabric"] = system.default_fabric
    for key in ("nvl", "nvd", "nvr", "speed", "switch", "nics", "npr"):
        ss[K + key] = AUTO
    ss[K + "nvm"] = ""
    gpn, per_rack = _size_shape(system)
    units = _size_units(system)
    if ss.get(K + "unit") not in units or (per_rack > 1 and ss.get(K + "unit") == "nodes"):
        ss[K + "unit"] = "racks" if per_rack > 1 else "nodes"
    if per_rack > 1:  # NVL72 racks come whole: the sidebar shows what the plan builds
        ss[K + "nodes"] = nodes_for(count_in(int(ss.get(K + "nodes") or 1), "racks", gpn, per_rack), "racks",
                                    gpn, per_rack)


def apply_design(design: Design) -> list[str]:
    """Put ``design`` (an uploaded design file) into the sidebar's controls the way a share link is applied:
    through the link codec (``encode`` then ``decode``, so every value is checked as a link's is) and
    ``_set_widgets``. Returns the codec's warnings (values it could not apply); the old link's
    warnings are dropped (they were about the link, not this design)."""
    params = sharelink.encode(design)
    decoded, warnings = sharelink.decode(params, CATALOG)
    _set_widgets(decoded)
    st.session_state["_fp_link"] = params
    st.session_state["_fp_warnings"] = []
    return warnings


def reset_design() -> None:
    _set_widgets(Design())
    st.session_state[K + "nodes"] = Design().nodes


def set_widget(key: str, value) -> None:
    """Callback helper for "way out" buttons."""
    st.session_state[K + key] = value


def _link_warnings(params: dict) -> list[str]:
    """Every warning the link ``params`` gives, in the current language (nothing is applied)."""
    dropped = sharelink.dropped_link_warning(params)
    warnings = ([dropped] if dropped else []) + sharelink.decode(params, CATALOG, ignore=(TAB_KEY, LANG_KEY))[1]
    problem = st.session_state.get("_fp_lang_problem")
    if problem is not None:
        warnings.append(_("Link parameter 'lang' (language) = {value} is not a language this app speaks; the page "
                          "is shown in {language}. Accepted: en, zh.").format(
                              value=shown(problem, 20), language=LANGUAGES[i18n.current()]))
    tab = params.get(TAB_KEY)
    if tab is not None and tab_id(tab if isinstance(tab, str) else str(tab[-1] if tab else "")) is None:
        warnings.append(_("Link parameter 'tab' (Designer tab) = {value} is not a tab; the first tab is shown. "
                          "Accepted: {tabs}.").format(value=shown(tab if isinstance(tab, str) else str(tab), 20),
                                                      tabs=", ".join(DESIGNER_TABS)))
    return (warnings + UI.decode(params)[1] + money_from_link(params)[1] + JOB.decode(params)[1]
            + naming_from_link(params)[1])


URL_STORE = "_fp_url"
"""The link this session last wrote to the address bar (``sync_url``)."""


def _history_navigation() -> bool:
    """Whether Streamlit runs this script because the browser went Back or Forward (a popstate)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(ctx is not None and getattr(ctx, "is_history_navigation", False))


def _went_back() -> bool:
    """Whether this run follows the browser's Back or Forward to a link this session did not write last: its
    design (and every page's settings) are then read from that link, as from a link just opened."""
    return (_history_navigation() and URL_STORE in st.session_state
            and st.query_params.to_dict() != st.session_state[URL_STORE])


def _init_session() -> None:
    ss = st.session_state
    if ss.get("_fp_init") and not _went_back():
        return
    if ss.get("_fp_init"):  # Back or Forward: the link it went to is read as a new session's would be
        pagestate.reread(pagestate.link_params())
        ss.pop(jobstate.STORE, None)
    # an old Optimize link's own GPU model and count become the sidebar's (the page plans the sidebar's design)
    params, st.session_state["fp_opt_legacy"] = optimizelink.sidebar_params(pagestate.link_params())
    design = sharelink.decode(params, CATALOG, ignore=(TAB_KEY, LANG_KEY))[0]
    ui_values = UI.decode(params)[0]
    jobstate.init(params)
    _set_widgets(design)
    st.session_state[K + "bits"] = ui_values["bw"] == "gbit"
    (st.session_state[CURRENCY_WIDGET], st.session_state[RATE_WIDGET]) = money_from_link(params)[0]
    st.session_state[NAMING_STORE] = naming_from_link(params)[0]
    st.session_state[TAB_STORE] = tab_id(params.get(TAB_KEY)) or DESIGNER_TABS[0]
    # the link is kept so its warnings can be said again in another language
    st.session_state["_fp_link"] = params
    st.session_state["_fp_warnings"] = _link_warnings(params)
    st.session_state["_fp_init"] = True


# --- the language -------------------------------------------------------------------------------
def browser_language() -> str:
    """The browser's language if the app speaks it (``st.context.locale``, then the
    ``Accept-Language`` header), else English."""
    try:
        locale = st.context.locale
    except Exception:  # noqa: BLE001 - no browser (AppTest, bare script run)
        locale = None
    found = i18n.from_locale(locale)
    if found is None:
        try:
            found = i18n.from_locale(st.context.headers.get("Accept-Language"))
        except Exception:  # noqa: BLE001 - no request headers outside a server
            found = None
    return found or i18n.DEFAULT_LANGUAGE


def choose_language() -> str:
    """Set this run's language and return it; call first thing in every run (before any text).

    First run of a session: ``lang=`` of the link if the app speaks it (``zh``, ``zh-CN``, ``en``...),
    else the browser's language (an unknown ``lang`` also gets a warning). Later runs: the sidebar's
    switch. On a switch the Designer's open tab and the link warnings follow into the new language.
    """
    ss = st.session_state
    if LANG_WIDGET not in ss or ss[LANG_WIDGET] not in LANGUAGES:
        asked = st.query_params.get(LANG_KEY) if "_fp_init" not in ss else None
        chosen = i18n.from_locale(asked) if asked and len(asked) <= 35 else None
        if asked is not None and chosen is None:
            ss["_fp_lang_problem"] = asked
        ss[LANG_WIDGET] = chosen or browser_language()
    language = ss[LANG_WIDGET]
    i18n.set_language(language)
    previous = ss.get("_fp_lang_shown")
    ss["_fp_lang_shown"] = language
    if previous is not None and previous != language:
        _restore_widgets()
        if ss.get("_fp_warnings"):
            ss["_fp_warnings"] = _link_warnings(ss.get("_fp_link") or {})
    return language


SNAPSHOT = "_fp_widgets"
_SNAPSHOT_PREFIXES = (K, jobstate.W)


def remember_widgets() -> None:
    """At the end of every run: the value of every control, to put back after a language switch.

    The browser sends a select box's value as its label; after a switch the labels are in the other
    language and would not match, so the switch's run restores the values the last run showed.
    """
    ss = st.session_state
    ss[SNAPSHOT] = {key: (list(value) if isinstance(value, list) else value) for key, value in ss.items()
                    if isinstance(key, str) and key.startswith(_SNAPSHOT_PREFIXES) and key != LANG_WIDGET}


def _restore_widgets() -> None:
    ss = st.session_state
    for key, value in (ss.get(SNAPSHOT) or {}).items():
        ss[key] = list(value) if isinstance(value, list) else value


def tab_id(value: str | None) -> str | None:
    """The Designer tab ``value`` names: its English name (any case) or its label in any language."""
    if not value:
        return None
    text = str(value).strip()
    for tab in DESIGNER_TABS:
        if text.casefold() == tab.casefold():
            return tab
    for code in LANGUAGES:
        with i18n.language(code):
            for tab in DESIGNER_TABS:
                if text == _(tab):
                    return tab
    return None


def designer_tabs():
    """The Designer's tabs (``st.tabs``), opened on the tab this session shows, labelled in this run's
    language; the link holds the English name, so a link is the same in both languages."""
    ss = st.session_state
    clicked = tab_id(ss.get(TAB_WIDGET))
    if clicked:
        ss[TAB_STORE] = clicked
    ss[TAB_WIDGET] = _(ss.get(TAB_STORE) or DESIGNER_TABS[0])
    return st.tabs([_(tab) for tab in DESIGNER_TABS], key=TAB_WIDGET, on_change="rerun")


def html_lang(language: str) -> None:
    """Set the page's ``<html lang>`` (screen readers, fonts, hyphenation) to ``language``.

    Streamlit serves one ``index.html`` with ``lang="en"``; a script element changes it per session.
    The value comes from ``core.i18n.HTML_LANG`` only, never from the link.
    """
    code = i18n.HTML_LANG[language]
    st.html(f"<script>document.documentElement.lang = '{code}';</script>", unsafe_allow_javascript=True,
            width=1)


def language_switch(sb) -> None:
    """The sidebar's English / 简体中文 switch (the design and every setting stay as they are)."""
    sb.radio(_("Language"), list(LANGUAGES), key=LANG_WIDGET, format_func=LANGUAGES.get, horizontal=True,
             label_visibility="collapsed")


# --- the sidebar --------------------------------------------------------------------------------
_CONTROLS_KEPT = "_fp_controls_kept"
"""Set by a run that kept the design controls' values without drawing them (``compare_sidebar``)."""


def _keep_controls(ss) -> None:
    """Write every design control's value back to itself (``K`` keys).

    Streamlit drops the state of a widget a run does not draw, so a page without the controls writes them back to
    keep them (``compare_sidebar``). The next run that draws them writes them again before drawing (``sidebar``):
    a value kept from an earlier run is not sent to the browser, whose control, dropped meanwhile, would show its
    default and send it back on the next rerun (the GPU model, the topology, PUE... swapped after a visit to
    Compare); a value written in the run that draws the control is."""
    for key in [k for k in ss if isinstance(k, str) and k.startswith(K) and k != LANG_WIDGET]:
        try:
            ss[key] = ss[key]
        except StreamlitAPIException:  # a button's state cannot be written (and needs no keeping)
            pass


def sidebar() -> Current:
    """Draw the design controls in the sidebar and return the current design and plan."""
    _init_session()
    ss = st.session_state
    sb = st.sidebar
    if ss.pop(_CONTROLS_KEPT, False):  # the last run did not draw the controls: their values to the browser again
        _keep_controls(ss)
    language_switch(sb)
    unit_toggle(sb)
    currency_controls(sb)
    sb.markdown("### " + _("Design"))
    gallery.gallery(sb, apply_design)  # before the design widgets: a preset being loaded sets their values
    sb.text_input(_label("name"), key=K + "name", max_chars=MAX_NAME_CHARS, placeholder=_("optional, e.g. Pod A"),
                  help=_("The review pack's title; in the share link and the design file. It changes no number."))
    gpu = sb.selectbox(in_noun(_label("gpu"), SYSTEMS.get(ss.get(K + "gpu"))),  # "NPU model" on an Ascend
                       list(SYSTEMS), key=K + "gpu", on_change=_on_gpu_change,
                       format_func={s: _system_label(s) for s in SYSTEMS}.__getitem__,  # worked out in this run
                       help=_("GPU and the system it ships in (HGX/DGX node or NVL72 rack) from the catalog: {list}")
                       .format(list="; ".join(f"{s.id} = {s.gpu_name}" for s in SYSTEMS.values())))
    system = SYSTEMS[gpu]
    ss[K + "nodes"] = int(ss.get(K + "nodes") or 4)
    _size_control(sb, system)
    ss[K + "gpn"] = int(ss.get(K + "gpn") or system.gpus_per_node)
    gpn = sb.select_slider(in_noun(_label("gpus_per_node"), system), options=_with(GPN_STEPS, ss[K + "gpn"]),
                           key=K + "gpn",
                           help=_("{system} ships with {count} per node.").format(system=system.id,
                                                                                  count=system.gpus_per_node))
    # the system's own generation and older ones (a what-if); a newer one only if a link asked for it
    gens = _with([g.generation for g in CATALOG.nvlink if g.generation <= system.nvlink_generation],
                 ss.get(K + "nvl") if ss.get(K + "nvl") != AUTO else None)
    own = f"NVLink {system.nvlink_generation}" if system.nvlink_generation else system.scaleup_name
    # a system whose scale-up is not NVLink has nothing to choose: the box names its links instead
    sb.selectbox(_label("nvlink_generation") if system.nvlink_generation else _("Scale-up links"), [AUTO, *gens],
                 key=K + "nvl", disabled=not system.nvlink_generation,
                       format_func=lambda g: _("auto ({choice})").format(choice=own)
                       if g == AUTO else f"NVLink {g} ({CATALOG.nvlink_generation(g).architecture})",
                       help=_("{system}'s scale-up domain is {name}, the system's own links: nothing to "
                              "choose.").format(
                           system=system.id, name=system.scaleup_name) if not system.nvlink_generation else _("{system} ships with NVLink {generation} ({bandwidth} per GPU, both directions). "
                              "An older generation models the same GPUs with slower NVLink (its per-link speed times "
                              "the links per GPU): a what-if for the scale-up share, not a product you can buy. Newer "
                              "generations are not offered: the GPU does not support them.").format(
                                  system=system.id, generation=system.nvlink_generation,
                                  bandwidth=units.bandwidth(units.from_gbytes(system.nvlink_gbytes_per_gpu_bidir),
                                                            bandwidth_unit())))
    nic_id = ss.get(K + "nic_model")  # read now: a test harness calls the format function after the run
    fabric = sb.selectbox(_label("fabric"), list(vocab.FABRIC.ids), key=K + "fabric",
                          format_func=lambda f: _fabric_word(f, nic_id))
    speeds = offered_speeds(fabric)
    if ss.get(K + "speed") not in (AUTO, *speeds):
        ss[K + "speed"] = AUTO
    auto_speed = engine_defaults(gpu, gpn, fabric, None)
    default_speed = auto_speed.port_speed_gbps if auto_speed else system.default_port_speed_gbps
    show_auto_label(K + "speed", _("auto ({choice})").format(choice=f"{default_speed} Gb/s"))
    speed = sb.selectbox(_label("port_speed_gbps"), [AUTO, *speeds], key=K + "speed",
                         format_func=lambda s: _("auto ({choice})").format(choice=f"{default_speed} Gb/s")
                         if s == AUTO else f"{s} Gb/s",
                         help=_("NIC and switch port speed per direction. Offered for {fabric} (a NIC and a switch in "
                                "the catalog both run it): {speeds}").format(
                                    fabric=vocab.FABRIC.label(fabric), speeds=", ".join(f"{s}G" for s in speeds))
                         + (f". {' '.join(auto_speed.notes)}" if auto_speed and auto_speed.notes else ""))
    effective_speed = default_speed if speed == AUTO else speed
    fitting = grouped_by_vendor(CATALOG.fabric_switches(fabric, effective_speed))  # many makers: grouped
    if ss.get(K + "switch") not in (AUTO, *[s.id for s in fitting]):
        ss[K + "switch"] = AUTO
    resolved = auto_speed if speed == AUTO else engine_defaults(gpu, gpn, fabric, speed)
    auto_switch = resolved.switch if resolved else None
    lacking = [s.id for s in CATALOG.fabric_switches(fabric) if s not in fitting]
    switch_slot = sb.empty()  # drawn below, once this run's design is planned: its "auto" names the plan's switch

    def draw_switch(labels: SwitchLabels) -> None:
        off, main = _switch_off(labels.main)  # a family without switches: shown disabled, with why
        show_auto_label(K + "switch", main)
        switch_slot.selectbox(
            _label("switch"), [AUTO, *[s.id for s in fitting]], key=K + "switch",
            format_func=lambda i: main if i == AUTO else
            f"{vendor_label(CATALOG.switch(i))} · {i}: {CATALOG.switch(i).ports_at(effective_speed)} x "
            f"{effective_speed}G", disabled=off is not None,
            help=off or i18n.sentences(_("Only switches with the chosen port speed are offered."), _(
                "Not offered at {speed}G: {switches}.").format(speed=effective_speed, switches=", ".join(lacking))
                if lacking else ""))
    sb.selectbox(_label("topology"), list(vocab.TOPOLOGY.ids), key=K + "topology",
                 format_func=vocab.TOPOLOGY.label,
                            help=_("Rail-optimized: NIC i of every node in a scalable unit goes to leaf i. "
                                   "Top-of-rack: all NICs of a node go to its rack's leaf."))
    ss[K + "oversub"] = float(ss.get(K + "oversub") or 1.0)
    oversub_label, oversub_off = oversubscription_input(ss.get(K + "topology"))
    off = {"oversubscription": oversub_off, "tiers": ignored_input(ss.get(K + "topology"), "tiers")}
    sb.select_slider(oversub_label or _label("oversubscription"),
                     # shown disabled, with why, where the family ignores it (and labelled in its words)
                               options=_with(LEAF_OVERSUB_STEPS, ss[K + "oversub"]),
                               key=K + "oversub", format_func=units.ratio,
                               disabled=off["oversubscription"] is not None, help=off["oversubscription"])
    c1, c2 = sb.columns(2)
    c1.selectbox(_label("planes"), list(range(1, 9)), key=K + "planes",
                          help=_("Independent parallel fabrics; every NIC has one port in each."))
    c2.selectbox(_label("tiers"), list(vocab.TIERS.ids), key=K + "tiers", format_func=vocab.TIERS.label,
                         help=off["tiers"] or _("auto picks the fewest that fit."), disabled=off["tiers"] is not None)

    with sb.expander(_("Advanced")):
        default_nics = system.default_nics_per_node if system.default_nics_per_node != system.gpus_per_node \
            else gpn
        st.selectbox(_label("nics_per_node"), [AUTO, *range(1, MAX_NICS_PER_NODE + 1)], key=K + "nics",
                            format_func=lambda v: _("auto ({choice})").format(choice=default_nics)
                            if v == AUTO else str(v))
        st.selectbox(_label("nodes_per_rack"), [AUTO, *range(1, 73)], key=K + "npr",
                           format_func=lambda v: _("auto ({choice})").format(choice=system.nodes_per_rack)
                           if v == AUTO else str(v))
        presets = [p.id for p in RACKS.compute_presets]
        if ss.get(K + "rp") not in (AUTO, *presets):
            ss[K + "rp"] = AUTO
        st.selectbox(
            _label("rack_preset"), [AUTO, *presets], key=K + "rp",
            format_func=lambda v: _("auto") if v == AUTO else _("{preset} ({kw} kW, {units}U)").format(
                preset=preset_label(v),
                kw=units.kw(RACKS.preset(v).power_kw), units=RACKS.preset(v).rack_units),
            help=_("Power and cooling a compute rack carries, and its height; auto takes the smallest preset "
                   "that holds the system's default rack. Sources in the hardware catalog."))
        st.number_input(_label("rack_kw"), min_value=0.5, max_value=1000.0, step=1.0, value=None,
                                  key=K + "rkw", placeholder=_("the preset's"),
                                  help=_("IT power per rack [kW]; fewer nodes go in a rack when it is lower. "
                                         "Empty: the preset's."))
        st.selectbox(_label("rack_units"), [AUTO, 42, 45, 47, 48, 51, 52, 54, 58], key=K + "ru",
                                  format_func=lambda v: _("auto") if v == AUTO else f"{v}U")
        _storage_widgets(ss)
        domains = [1, *range(gpn, 577, gpn)]
        if ss.get(K + "nvd") not in (AUTO, *domains):
            ss[K + "nvd"] = AUTO
        st.selectbox(_label("nvlink_domain_gpus") if system.nvlink_generation else _("Scale-up domain [GPUs]"),
                     [AUTO, *domains], key=K + "nvd",
                           format_func=lambda v: _("auto ({choice})").format(
                               choice=system.nvlink_domain_gpus if gpn == system.gpus_per_node else gpn)
                           if v == AUTO else str(v))
        if system.nvlink_generation:  # a second NVSwitch level and mixed sizes: NVLink domains only
            _nvlink_level_widgets(ss, system, domains[1:])
        else:
            ss[K + "nvr"], ss[K + "nvm"] = AUTO, ""
        ss[K + "spine_oversub"] = float(ss.get(K + "spine_oversub") or 1.0)
        spine_off = ignored_input(ss.get(K + "topology"), "spine_oversubscription")  # off where ignored, with why
        st.select_slider(_label("spine_oversubscription"),
                                         options=_with(OVERSUB_STEPS, ss[K + "spine_oversub"]),
                                         key=K + "spine_oversub", format_func=units.ratio,
                                         disabled=spine_off is not None, help=spine_off)
        st.selectbox(_label("cable_media"), list(vocab.CABLE_MEDIA.ids), key=K + "media", format_func=vocab.CABLE_MEDIA.label,
                             help=_("By each link's length: auto takes copper where it reaches, then multimode, "
                                    "then single-mode optics; AOC puts active optical cables before multimode; "
                                    "optics never copper; single-mode optics everywhere."))
        st.number_input(_label("pue"), min_value=1.0, max_value=3.0, step=0.05, key=K + "pue")
        st.number_input(_label("electricity_usd_per_kwh"), min_value=0.0, max_value=2.0, step=0.01, key=K + "kwh")
        st.number_input(_label("tco_years"), min_value=0.5, max_value=30.0, step=1.0, key=K + "years",
                                help=_("Years of operation the TCO covers (0.5 to 30)."))
        st.selectbox(_label("price_basis"), list(vocab.PRICE_BASIS.ids), key=K + "pb",
                          format_func=vocab.PRICE_BASIS.label,
                          help=_("Which catalog price each part is costed at: street (typical), list (the high end "
                                 "of its range) or hyperscale (the low end). Capex shows the low-high range either "
                                 "way; sources are in Catalog & assumptions."))
        st.text_input(_label("price_overrides"), key=K + "px", placeholder="QM9700:30000, CX7:1500",
                           help=_("Catalog id:unit price in USD, comma-separated (as the share link writes them; '=' "
                                  "is accepted too); ids are in Catalog & assumptions."))
        st.text_input(_label("power_overrides"), key=K + "pw", placeholder="QM9700:800",
                           help=_("Catalog id:unit power in W, comma-separated ('=' is accepted too)."))

    draw_tiers = _advanced_fabric(sb, fabric, effective_speed, resolved, system)
    recent_slot = sb.container()  # filled once this run's design is known (it is not listed as a way back)

    data, problems = _design_data(ss, system, effective_speed)
    unit = bandwidth_unit()
    warnings = list(st.session_state.get("_fp_warnings", []))
    try:
        design = parse_design({k: v for k, v in data.items() if v is not None})
    except InputError as exc:
        labels = switch_labels(None, None, auto_switch, effective_speed)
        draw_switch(labels)
        draw_tiers(labels)
        recent_designs(recent_slot)
        return Current(None, None, exc, warnings + problems, unit)
    problems = problems + unused_fields(design)  # a field its topology does not read: said, not silently lost
    for p in problems:
        sb.warning(safe.md(p))
    try:
        result, error = plan_with_pods(design), None  # with its pods: one rule (core.analysis.whole)
    except (DesignError, InputError) as exc:
        result, error = None, exc
    labels = switch_labels(design, result, auto_switch, effective_speed)
    draw_switch(labels)
    draw_tiers(labels)
    remember_design(design, result)
    recent_designs(recent_slot)
    return Current(design, result, error, warnings, unit)


RECENT_STORE = "fp_recent"
"""The designs this session showed, newest first: ``[{"params": link keys, "facts": what names it}]``."""
MAX_RECENT = 8
"""Designs the recent list keeps (the current one included)."""


def remember_design(design: Design, result: Plan | None) -> None:
    """Put ``design`` at the top of the session's recent designs (moved there when it is already listed)."""
    params = sharelink.encode(design)
    recent = [e for e in st.session_state.get(RECENT_STORE, []) if e["params"] != params]
    r = result.resolved if result is not None else None
    facts = {"name": design.name or "", "gpus": r.gpus if r else None, "system": r.system.id if r else design.gpu,
             "fabric": r.fabric if r else None, "plan_fabric": result.fabric if result else None}
    st.session_state[RECENT_STORE] = [{"params": params, "facts": facts}, *recent][:MAX_RECENT]


def recent_label(facts: dict) -> str:
    """A recent design in one line, in this run's language: its name, then its size, fabric and tiers (its fabric
    plan's ``core.fabric.families.tier_words``: a torus's none, a classic Dragonfly's router tier and groups)."""
    parts = [facts["name"]] if facts["name"] else []
    if facts["gpus"] is not None:
        parts.append(_("{gpus} x {system}").format(gpus=i18n.number(facts["gpus"]), system=facts["system"]))
        parts.append(vocab.FABRIC.label(facts["fabric"]))
        parts.append(tier_words(facts["plan_fabric"]))  # the family's words, as the Designer's caption says them
    else:
        parts.append(facts["system"])
    return " · ".join(parts)


def _on_recent(index: int) -> None:
    recent = st.session_state.get(RECENT_STORE, [])
    if index < len(recent):
        apply_design(sharelink.decode(recent[index]["params"], CATALOG)[0])


def recent_designs(slot) -> None:
    """The session's earlier designs in ``slot`` (a sidebar container), each a button that opens it again."""
    earlier = st.session_state.get(RECENT_STORE, [])[1:]
    if not earlier:
        return
    with slot.expander(_("Recent designs ({count})").format(count=len(earlier))):
        for index, entry in enumerate(earlier, start=1):
            st.button(safe.md(recent_label(entry["facts"])), key=f"fp_recent_{index}", on_click=_on_recent,
                      args=(index,), width="stretch")


AUTO_LABELS = "_fp_auto_labels"


def show_auto_label(key: str, label: str) -> None:
    """Call before drawing select box ``key`` whose ``AUTO`` entry reads ``label``. The browser shows a select
    box's value as the label it last received and Streamlit sends a value only when it changed, so after
    Fabric -> RoCE the box would still read "auto (QM9700, ...)" while the plan uses SN5600 (checked in headless
    Chromium). Writing the value back when the label changed makes Streamlit send the new one."""
    ss = st.session_state
    shown = ss.setdefault(AUTO_LABELS, {})
    if ss.get(key) == AUTO and shown.get(key) not in (None, label):
        ss[key] = AUTO
    shown[key] = label


def _switch_off(auto_label: str) -> tuple[str | None, str]:
    """(why the switch boxes are off, their "auto" entry) for the sidebar's topology: a family without switches
    declares both (its ``WORDS`` ``input:switch:off`` and ``input:switch:none``: the torus); else ``(None,
    auto_label)``."""
    topology = st.session_state.get(K + "topology")
    off = words(topology, "input:switch:off", None)
    return off, (words(topology, "input:switch:none", auto_label) if off else auto_label)


@dataclass
class SwitchLabels:
    """The "auto" entries of the switch boxes, named from this run's design (``switch_labels``)."""

    main: str
    tiers: dict[str, str | None]  # tier -> the model its "auto" plans, None if it cannot be resolved


def _resolved_auto(design: Design, result: Plan | None, fields: tuple[str, ...]) -> ResolvedDesign | None:
    """``design`` resolved with ``fields`` left to the engine: the plan's own when they already are."""
    if result is not None and all(getattr(design, f) is None for f in fields):
        return result.resolved
    try:
        return resolve_design(design.model_copy(update={f: None for f in fields}), CATALOG)
    except (DesignError, InputError):
        return None


def switch_labels(design: Design | None, result: Plan | None, fallback, speed: int) -> SwitchLabels:
    """What "auto" plans in each switch box: the switch model of this run's design with that box left to the
    engine (so the other tiers' models, the NIC and the uplink speed count), not a default design's.
    The main box names one model and its ports, or each tier's model in use when they differ;
    ``fallback`` (the system's default switch) when the design cannot be resolved."""
    resolved = _resolved_auto(design, result, ("switch",)) if design is not None else None
    if resolved is None:
        main = (_("auto ({switch}, {ports} ports)").format(switch=fallback.id, ports=fallback.ports_at(speed))
                if fallback else _("auto (none fits)"))
        return SwitchLabels(main, {t: fallback.id if fallback else None for t in ("leaf", "spine", "core")})
    tiers = result.fabric.tiers if result is not None else design.tiers if isinstance(design.tiers, int) else 3
    models = resolved.tier_switches
    if len({models[t].id for t in ("leaf", "spine", "core")[:tiers]}) == 1:
        main = _("auto ({switch}, {ports} ports)").format(switch=resolved.switch.id, ports=resolved.switch_ports)
    else:
        ids = {t: models[t].id for t in ("leaf", "spine", "core")}
        main = _("auto ({choice})").format(choice=(
            _("leaf {leaf}, spine {spine}") if tiers == 2 else _("leaf {leaf}, spine {spine}, core {core}")
        ).format(**ids))
    per_tier = {}
    for tier in ("leaf", "spine", "core"):
        tier_resolved = _resolved_auto(design, result, (f"{tier}_switch",))
        per_tier[tier] = tier_resolved.tier_switches[tier].id if tier_resolved else None
    return SwitchLabels(main, per_tier)


def compare_sidebar() -> Current:
    """The Compare page's sidebar: the language, bandwidth-unit and currency switches and the Designer's design in one
    line, not its controls.

    The Compare page edits its own columns, never this design, and its rerun with four designs was about 2x its
    target with the Designer's ~45 controls drawn (each is a message Streamlit builds on every run).
    The controls' values stay in the session for the Designer (Streamlit drops the state of a widget a run does
    not draw, so each is written back), and the design is the one the last full sidebar built; at a session's
    first run, the link's, in the form the sidebar gives it (``sidebar_form``), so the share link and "Add the
    Designer's design" are what the full sidebar would give (tests/test_compare_page.py checks both).
    """
    _init_session()
    ss = st.session_state
    sb = st.sidebar
    language_switch(sb)
    _keep_controls(ss)
    ss[_CONTROLS_KEPT] = True
    unit_toggle(sb)
    currency_controls(sb)
    unit = bandwidth_unit()
    warnings = list(ss.get("_fp_warnings", []))
    last: Current | None = ss.get("fp_current")
    if last is not None and last.design is None:  # the sidebar's input is not accepted: as the Designer left it
        return Current(None, None, last.error, warnings, unit)
    design = last.design if last is not None else sidebar_form(
        sharelink.decode(ss.get("_fp_link") or {}, CATALOG, ignore=(TAB_KEY, LANG_KEY))[0])
    try:
        result = plan_with_pods(design)
    except (DesignError, InputError) as exc:
        sb.caption(_("The Designer's design cannot be built; the Designer page says why."))
        return Current(design, None, exc, warnings, unit)
    sb.caption(_("The Designer's design: {size}. Change it on the Designer page; this page edits its own "
                 "columns.").format(size=size_caption(result)))
    return Current(design, result, None, warnings, unit)


def sidebar_form(design: Design) -> Design:
    """``design`` as the sidebar's controls give it back: nodes rather than a GPU count, and no GPUs per node or
    fabric when they are the system's own (the link ``ng=1000`` and the sidebar's ``n=125`` are one design)."""
    system = CATALOG.system(design.gpu)
    gpn = design.gpus_per_node or system.gpus_per_node
    changes = {}
    if design.gpus is not None:
        changes.update(gpus=None, nodes=math.ceil(design.gpus / gpn))
    if design.gpus_per_node == system.gpus_per_node:
        changes["gpus_per_node"] = None
    if design.fabric == system.default_fabric:
        changes["fabric"] = None
    return Design.model_validate({**design.model_dump(), **changes}) if changes else design


STORAGE_OVERSUB = (1.0, 4 / 3, 1.5, 2.0, 3.0, 4.0)


def _storage_widgets(ss) -> None:
    """Storage fabric and management networks (core.networks) in the "Advanced" expander; AUTO = the RA's.
    Their values are read with every other widget's (``_design_data``)."""
    if ss.get(K + "sto") not in (AUTO, *STORAGE_OVERSUB):
        ss[K + "sto"] = AUTO
    ss.setdefault(K + "mg", True)
    st.selectbox(_label("storage"), list(vocab.STORAGE.ids), key=K + "storage",
                           format_func=vocab.STORAGE.label,
                           help=_("A storage network of its own, sized as the DGX SuperPOD reference architecture "
                                  "(2 storage ports per node, storage systems at 1:1, node leaves near 4:3)."))
    c1, c2 = st.columns(2)
    c1.selectbox(_label("storage_ports_per_node"), [AUTO, *range(0, 9)], key=K + "spn",
                       format_func=lambda v: _("auto ({choice})").format(choice=2) if v == AUTO else str(v))
    c2.selectbox(_label("storage_port_speed_gbps"), [AUTO, 100, 200, 400, 800], key=K + "sps",
                       format_func=lambda v: _("auto") if v == AUTO else f"{v}G")
    st.number_input(_label("storage_systems"), min_value=0, max_value=100_000, step=1, value=None, key=K + "sts",
                          placeholder=_("auto ({bandwidth} per node)").format(
                              bandwidth=units.bandwidth(policy("storage_gbps_per_node"), bandwidth_unit())),
                          help=_("Storage appliances on the storage fabric (8 x 200G each); empty: sized from "
                                 "{bandwidth} per node, as in the reference architecture's 4-SU build.").format(
                              bandwidth=units.bandwidth(policy("storage_gbps_per_node"), bandwidth_unit())))
    st.selectbox(_label("storage_oversubscription"), [AUTO, *STORAGE_OVERSUB], key=K + "sto",
                       format_func=lambda v: _("auto ({choice})").format(choice="4:3") if v == AUTO
                       else ("4:3" if abs(v - 4 / 3) < 1e-9 else units.ratio(v)))
    st.toggle(_label("management"), key=K + "mg",
                           help=_("In-band (SN4600C) and out-of-band (SN2201) management networks, head nodes, "
                                  "UFM appliances and user storage, as in the reference architecture."))


def _advanced_fabric(sb, fabric: str, speed: int, resolved: ResolvedDesign | None, system):
    """The "Advanced fabric" expander: NIC, per-tier switches and uplink speed, plane mode, SU and pod size,
    growth (``AUTO`` or 0 = the engine's default; auto labels name what it picks). Their values are read with
    every other widget's (``_design_data``). Returns the function that draws the per-tier switch boxes once the
    design is planned (``SwitchLabels``)."""
    ss = st.session_state
    last = ss.get("fp_current")
    last_plan = getattr(last, "plan", None)
    with sb.expander(_("Advanced fabric")):
        nics = [n.id for n in CATALOG.nics if fabric in n.fabrics and speed in n.speeds_on(fabric)]
        if ss.get(K + "nic_model") not in (AUTO, *nics):
            ss[K + "nic_model"] = AUTO
        auto_nic = resolved.nic.id if resolved else system.default_nic
        show_auto_label(K + "nic_model", _("auto ({choice})").format(choice=auto_nic))
        st.selectbox(_label("nic"), [AUTO, *nics], key=K + "nic_model",
                           format_func=lambda n: _("auto ({choice})").format(choice=auto_nic) if n == AUTO
                           else f"{n}: {CATALOG.nic(n).logical_ports(speed, fabric)} x {speed}G",
                           help=_("NICs that run {speed} Gb/s on this fabric; a NIC's ports bound the planes.").format(
                               speed=speed))
        uplinks = sorted({m.speed_gbps for s in CATALOG.fabric_switches(fabric) for m in s.port_modes
                          if m.speed_gbps >= speed})
        if ss.get(K + "uplink") not in (AUTO, *uplinks):
            ss[K + "uplink"] = AUTO
        uplink = st.selectbox(_label("uplink_speed_gbps"), [AUTO, *uplinks], key=K + "uplink",
                              format_func=lambda v: _("auto ({choice})").format(choice=f"{speed} Gb/s") if v == AUTO
                              else f"{v} Gb/s",
                              help=_("Leaf uplinks and spine/core ports, per direction. Faster than the port speed: "
                                     "the leaf breaks its ports out toward the NICs (e.g. 2 x 400G of an 800G port)."))
        up_speed = speed if uplink == AUTO else uplink
        boxes = []
        leaf = words(ss.get(K + "topology"), "input:leaf_switch", DESIGN_FIELDS["leaf_switch"].label)  # a router
        for tier, label in (("leaf", leaf), ("spine", _label("spine_switch")), ("core", _label("core_switch"))):
            tier_speeds = (speed, up_speed) if tier == "leaf" else (up_speed,)
            fitting = [s.id for s in CATALOG.fabric_switches(fabric) if all(s.ports_at(v) for v in tier_speeds)]
            if ss.get(K + f"{tier}_switch") not in (AUTO, *fitting):
                ss[K + f"{tier}_switch"] = AUTO
            boxes.append((st.empty(), tier, label, fitting, tier_speeds[-1]))  # drawn by draw_tiers
        st.selectbox(_label("plane_mode"), list(vocab.PLANE_MODE.ids), key=K + "plane_mode",
                     format_func=vocab.PLANE_MODE.label,
                            help=_("Per port: each NIC has a port in every plane. Per rail: NIC i of every node is "
                                   "in plane i mod planes only and each plane is its own fabric (DeepSeek's "
                                   "multi-plane fat tree); traffic between planes crosses {link}.").format(
                                link=link_word(system)))
        auto_su = last_plan.fabric.nodes_per_group if last_plan is not None else None
        auto_pod = last_plan.fabric.groups_per_pod if last_plan is not None and last_plan.fabric.tiers == 3 else None
        st.number_input(_("Nodes per scalable unit (0 = auto)"), min_value=0, max_value=MAX_GPUS, step=1,
                             key=K + "su",
                             help=_("auto: as many as a leaf has down ports (now {choice}).").format(
                                 choice=auto_su if auto_su else "-"))
        st.number_input(_("Scalable units per pod (0 = auto)"), min_value=0, max_value=4096, step=1,
                              key=K + "pod",
                              help=_("Three tiers only. auto: as many as a spine reaches (now {choice}).").format(
                                  choice=auto_pod if auto_pod else "-"))
        st.number_input(_("Grow to [nodes] (0 = no growth)"), min_value=0, max_value=MAX_GPUS, step=1,
                               key=K + "grow",
                               help=_("Spines, cores and every leaf's uplinks are sized for this many nodes; only "
                                      "the nodes above are installed. The BOM lists what is reserved."))
        st.text_input(_label("stages"), key=K + "stages", placeholder=_("e.g. {example}").format(example="128,256"),
                      help=_("Later build stages, rising node counts separated by commas. The Racks & cabling tab "
                             "shows what each stage buys and which cables move."))
        pod_widgets()  # mixed pods under one spine layer (webui.pods)
        dragonfly = last_plan is not None and last_plan.fabric.global_ratio > 0  # a family of groups
        auto_group = last_plan.fabric.groups_per_pod * last_plan.fabric.leaves_per_group if dragonfly else None
        chosen = ss.get(K + "topology")  # the family's own words for its sizing inputs (a Dragonfly's routers)
        st.number_input(words(chosen, "input:group_leaves", N_("Leaves per Dragonfly+ group (0 = auto)")),
                        min_value=0, max_value=4096, step=1, key=K + "df_group",
                        help=words(chosen, "input:group_leaves:help", N_(
                            "Dragonfly+ only: a multiple of the rails. auto: the largest group the spine radix holds "
                            "with its global links (now {choice}).")).format(choice=auto_group if auto_group else "-"))
        st.number_input(words(chosen, "input:global_ratio", DESIGN_FIELDS["global_ratio"].label), min_value=0.05,
                        max_value=4.0, step=0.25, key=K + "df_global",
                        help=words(chosen, "input:global_ratio:help", N_(
                            "Dragonfly+ only: a group's global bandwidth over its injection bandwidth. 1 lets a group "
                            "send all it injects to other groups; the bisection is then about half the injection.")))
        torus = last_plan is not None and last_plan.fabric.family in vocab.NODE_TO_NODE
        st.text_input(_label("torus_dims"), key=K + "torus_dims", placeholder=_("e.g. {example}").format(
            example="16x16x16"), help=_("Torus only: 1 to 3 dimensions whose product is the nodes; empty: the most "
                                        "balanced 3D shape (now {choice}).").format(
            choice="x".join(map(str, last_plan.fabric.torus_dims)) if torus else "-"))
        st.number_input(_("Torus OCS cube edge (0 = no OCS)"), min_value=0, max_value=64, step=1, key=K + "torus_cube",
                        help=_("Torus only: cubes of this edge joined by optical circuit switches (4: TPU v4); it "
                               "divides every dimension."))

    def draw_tiers(labels: SwitchLabels) -> None:
        for slot, tier, label, fitting, v in boxes:
            auto = labels.tiers.get(tier)
            off, main = _switch_off(_("auto ({choice})").format(choice=auto) if auto else _("auto"))
            off = off or ignored_input(st.session_state.get(K + "topology"), f"{tier}_switch")  # a Dragonfly+'s core
            show_auto_label(K + f"{tier}_switch", main)
            slot.selectbox(
                label, [AUTO, *fitting], key=K + f"{tier}_switch",
                format_func=lambda i, v=v, m=main: m if i == AUTO else f"{i}: {CATALOG.switch(i).ports_at(v)} x {v}G",
                disabled=off is not None,
                help=off or _("Overrides the switch model on this tier (a chassis at the spine, say)."))

    return draw_tiers


def _nvlink_level_widgets(ss, system, sizes: list[int]) -> None:
    """The first NVLink level and the mixed NVLink domain sizes (``core.fabric.domainlevels``), under the domain."""
    if ss.get(K + "nvr") not in (AUTO, *sizes):
        ss[K + "nvr"] = AUTO
    st.selectbox(_label("nvlink_rack_gpus"), [AUTO, *sizes], key=K + "nvr",
                 format_func=lambda v: _("auto ({choice})").format(choice=system.nvlink_domain_gpus)
                 if v == AUTO else str(v),
                 help=_("GPUs under one rack's own NVSwitches (36 for NVL36 racks). An NVLink domain larger than "
                        "this joins racks through a second NVSwitch level, as NVL576 joins 8 NVL72 racks."))
    st.text_input(_label("nvlink_domains"), key=K + "nvm", placeholder=_("e.g. {example}").format(example="576x2,72"),
                  help=_("NVLink domain sizes in GPUs from the first rack on, each optionally times a count; the "
                         "racks after them form domains of the NVLink domain size."))


# --- cluster size: nodes, GPUs or racks -----------------------------------------------------------
RACK_STEPS = sorted({*range(1, 17), 18, 20, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048,
                     3072, 4096, 6144, 8192, 13888})


def _size_shape(system) -> tuple[int, int]:
    """(GPUs per node, nodes per NVLink rack) as the sidebar's current choices make them."""
    ss = st.session_state
    gpn = int(ss.get(K + "gpn") or system.gpus_per_node)
    nvd, nvr = ss.get(K + "nvd", AUTO), ss.get(K + "nvr", AUTO)
    domain = nvlink_domain_size(system, gpn, None if nvd in (AUTO, None) else int(nvd))
    level1 = first_level_size(system, gpn, domain, None if nvr in (AUTO, None) else int(nvr))  # a rack's GPUs
    return gpn, max(1, level1 // gpn) if level1 > gpn else 1


def _size_units(system) -> list[str]:
    return list(SIZE_UNITS) if _size_shape(system)[1] > 1 else [u for u in SIZE_UNITS if u != "racks"]


def _size_options(unit: str, system) -> list[int]:
    gpn, per_rack = _size_shape(system)
    most = most_nodes(gpn, per_rack)  # the planner's one size limit (core.design)
    if unit == "GPUs":
        return [n * gpn for n in NODE_STEPS if n <= most]
    if unit == "racks":
        return [r for r in RACK_STEPS if r * per_rack <= most]
    return [n for n in NODE_STEPS if n <= most]


def _on_count_change() -> None:
    ss = st.session_state
    system = SYSTEMS[ss[K + "gpu"]]
    gpn, per_rack = _size_shape(system)
    ss[K + "nodes"] = nodes_for(int(ss[K + "count"]), ss[K + "unit"], gpn, per_rack)


def _on_exact_count() -> None:
    ss = st.session_state
    system = SYSTEMS[ss[K + "gpu"]]
    gpn, per_rack = _size_shape(system)
    unit = ss[K + "unit"]
    high = count_in(most_nodes(gpn, per_rack), unit, gpn, per_rack)
    try:
        value = parse_whole(ss[K + "count_exact"], 1, high, _(COUNT_WHAT[unit]))
    except InputError as exc:
        ss["_fp_size_problem"] = _("{problem} The design keeps {nodes} nodes.").format(
            problem=exc, nodes=i18n.number(ss[K + "nodes"]))
        return
    ss[K + "nodes"] = nodes_for(value, unit, gpn, per_rack)
    if unit == "GPUs" and rounded_note(value, gpn):
        ss["_fp_size_problem"] = rounded_note(value, gpn)


def _on_unit_change() -> None:
    ss = st.session_state
    system = SYSTEMS[ss[K + "gpu"]]
    gpn, per_rack = _size_shape(system)
    if ss[K + "unit"] == "racks":  # a partial NVLink rack is bought whole
        ss[K + "nodes"] = nodes_for(count_in(ss[K + "nodes"], "racks", gpn, per_rack), "racks", gpn, per_rack)


SIZE_UNIT_LABELS = {"nodes": N_("nodes"), "GPUs": "GPUs", "racks": N_("racks")}
COUNT_WHAT = {"nodes": N_("the node count"), "GPUs": N_("the GPU count"), "racks": N_("the rack count")}
EXACT_COUNT = {"nodes": N_("Exact node count"), "GPUs": N_("Exact GPU count"), "racks": N_("Exact rack count")}


def _size_control(sb, system) -> None:
    """The cluster size in nodes, GPUs or (NVLink racks) racks: a unit choice, a slider and an exact box.

    ``ss[K + "nodes"]`` is the truth (the design stores nodes); the widgets show it in the unit.
    """
    ss = st.session_state
    units = _size_units(system)
    if ss.get(K + "unit") not in units:
        ss[K + "unit"] = "racks" if "racks" in units else "nodes"
    unit = sb.radio(_("Size in"), units, key=K + "unit", horizontal=True, on_change=_on_unit_change,
                    format_func=lambda u: in_noun(_(SIZE_UNIT_LABELS[u]), system),
                    help=_("Enter the cluster size in nodes (servers, or NVL72 compute trays of 4 GPUs), in GPUs "
                           "(rounded up to whole nodes), or in whole NVLink racks. The link stores nodes.")
                    if system.nvlink_generation else
                    _("Enter the cluster size in nodes (servers), in accelerators (rounded up to whole nodes), or "
                      "in whole racks of a scale-up domain. The link stores nodes."))
    gpn, per_rack = _size_shape(system)
    count = count_in(ss[K + "nodes"], unit, gpn, per_rack)
    ss[K + "count"] = count
    label = {"nodes": _("Nodes"), "GPUs": in_noun("GPUs", system),
             "racks": (_("Racks ({system}: {trays} trays each)") if per_rack <= system.nodes_per_rack else  # NVL72
                       _("Domains ({system}: {trays} nodes each)")).format(
                           system=system.id, trays=per_rack)}[unit]
    sb.select_slider(label, options=_with(_size_options(unit, system), count), key=K + "count",
                     format_func=i18n.number, on_change=_on_count_change,
                     help=_("Drag for common sizes; type an exact count below."))
    ss[K + "count_exact"] = f"{count}"
    exact = _(EXACT_COUNT[unit])
    sb.text_input(exact, key=K + "count_exact", on_change=_on_exact_count, label_visibility="collapsed",
                  help=_("{what}; 1,024 and full-width digits work too").format(what=exact))
    problem = ss.pop("_fp_size_problem", None)
    if problem:
        sb.warning(safe.md(problem))


def link_params(design: Design, unit: str) -> dict[str, str]:
    """Everything this app puts in the URL for ``design`` (design and ``ui_`` keys, and the language)."""
    return {**sharelink.encode(design), **display_params(unit), LANG_KEY: i18n.current()}


def canonical_params(page_path: str) -> dict[str, str]:
    """The query string of what is on screen: the design, the UI unit, the Performance and Inference settings the
    session holds, and (on the Designer) the open tab. Nothing a link carried that was not applied."""
    ss = st.session_state
    cur: Current | None = ss.get("fp_current")
    if cur is None or cur.design is None:
        params = {sharelink.VERSION_KEY: sharelink.VERSION, LANG_KEY: i18n.current()}
    else:
        params = link_params(cur.design, cur.unit)
    job = jobstate.link_values()
    if job is not None:
        params.update(JOB.encode(job))
    serving = ss.get(inferencestate.STORE)
    if serving:  # the Inference page's settings, which Compare and Sweep serve on their designs too
        params.update(inferencelink.encode(serving))
    params.update(NAMING.encode(ss.get(NAMING_STORE) or {}))
    tab = ss.get(TAB_STORE)
    if page_path == DESIGNER_PATH and tab in DESIGNER_TABS[1:]:
        params[TAB_KEY] = tab
    if page_path == COMPARE_PATH:  # the Compare page's designs, names and baseline (core.formats.comparelink)
        params.update(ss.get(COMPARE_LINK) or {})
    if page_path == RESILIENCE_PATH:  # failed elements, sparing policy, rates, load pattern (resiliencelink)
        params.update(ss.get(RESILIENCE_LINK) or {})
    params.update(ss.get(page_link_key(page_path)) or {})  # any other page's own keys (set_page_link)
    return params


def page_link_key(page_path: str) -> str:
    """Session key holding the link keys of page ``page_path`` (its own prefix, e.g. ``sw_``, ``opt_``)."""
    return f"fp_page_link_{page_path}"


def set_page_link(page_path: str, params: dict[str, str]) -> None:
    """A page's own share-link keys for this run; ``canonical_params(page_path)`` adds them to the link."""
    st.session_state[page_link_key(page_path)] = dict(params)


def sync_url(page_path: str) -> dict[str, str]:
    """Make the address bar the canonical link (``canonical_params``); returns it.

    """
    wanted = canonical_params(page_path)
    st.session_state[URL_STORE] = wanted
    qp = st.query_params
    current = qp.to_dict()
    if current == wanted:
        return wanted
    try:  # one message to the browser, however many keys the old link had (one per deleted key was quadratic)
        qp.from_dict(wanted)
        return wanted
    except StreamlitAPIException:  # a key bound to a widget of another page: Streamlit owns it
        pass
    changes = {k: v for k, v in wanted.items() if current.get(k) != v}
    if changes:
        qp.update(changes)
    for key in current:
        if key in wanted:
            continue
        try:
            del qp[key]
        except Exception:  # noqa: BLE001 - a key bound to a widget of another page: Streamlit owns it
            pass
    return wanted


def share_url(page_path: str, params: dict[str, str]) -> str:
    """The full link of page ``page_path`` with ``params``: at the server's public address when one is set
    (``core.formats.sharelink.PUBLIC_URL_ENV``, e.g. behind a proxy), else scheme and host as the browser sees them."""
    public = sharelink.public_base_url()
    parts = urlsplit(public or st.context.url or "http://localhost:8501/")
    if public:
        prefix = parts.path.rstrip("/")
    else:
        prefix = "/" + st.get_option("server.baseUrlPath").strip("/") if st.get_option("server.baseUrlPath") else ""
    path = f"{prefix}/{page_path}" if page_path else f"{prefix}/"
    return f"{parts.scheme}://{parts.netloc}{path}" + (f"?{urlencode(params)}" if params else "")


def link_with_design(page_path: str, design: Design) -> str:
    """The link of page ``page_path`` as on screen (``canonical_params``: its settings, the job's, the language) with
    ``design`` in place of the sidebar's: a page's way out that opens another design there."""
    cur: Current = st.session_state["fp_current"]
    params = {k: v for k, v in canonical_params(page_path).items() if k not in sharelink.encode(cur.design)}
    return share_url(page_path, {**params, **link_params(design, cur.unit)})


FIRST_POD_BUTTONS = {"sweep": N_("Sweep the first pod alone"), "optimize": N_("Search the first pod alone")}
"""The Sweep and Optimize pages' button to the first pod alone of a design with pods (``first_pod_way_out``)."""


def first_pod_way_out(tool: str, page_path: str) -> bool:
    """For a sidebar design with pods, what ``core.analysis.whole.one_fabric_only`` says and a button opening
    ``page_path`` on the first pod alone (``first_pod``, the page's settings kept, set before with ``set_page_link``);
    True when said (the page stops there)."""
    design = st.session_state["fp_current"].design
    refused = one_fabric_only(design, tool)
    if refused:
        st.info(safe.md(refused))
        st.link_button(_(FIRST_POD_BUTTONS[tool]), link_with_design(page_path, first_pod(design)), type="primary")
    return bool(refused)


def share_box(page_path: str) -> None:
    """Sync the URL and show the share link; called after the page ran, so it is never a change behind."""
    params = sync_url(page_path)
    st.markdown("### " + _("Share"))
    st.caption(_("The link holds the whole design and the language. Copy it with the icon at the right of the box."))
    st.code(share_url(page_path, params), language=None, wrap_lines=True)
    too_long = sharelink.check_link_size(params)  # Streamlit would drop it: say so where the link is made
    if too_long:
        st.warning(safe.md(too_long))


def show_warnings(cur: Current) -> None:
    """Link warnings (dismissable) at the top of every page."""
    if cur.warnings:
        box = st.warning("**" + _("Some values in the link were not applied; the rest of the design is shown.")
                         + "**\n\n" + pagestate.bullets(cur.warnings))
        if st.button(_("Dismiss link warnings"), key="dismiss_warnings"):
            st.session_state["_fp_warnings"] = []
            st.rerun()
        return box


_WIDGET_OF = {field: surface.widget for field, surface in DESIGN_FIELDS.items()
              if surface.widget is not None and field not in ("gpu", "gpus", "nodes")}
"""Design field -> its sidebar widget, from the declarations (a way out sets the widget; nodes are special)."""


def _apply_fix(changes: dict) -> None:
    """A way-out button: put its changes (``DesignError.fixes``) into the sidebar's controls."""
    ss = st.session_state
    for field, value in changes.items():
        if field == "nodes" and value is not None:
            nodes = int(value)
            _, per_rack = _size_shape(SYSTEMS[ss[K + "gpu"]])
            if ss.get(K + "unit") == "racks" and nodes >= per_rack:  # whole NVLink racks, at most the fix's count
                nodes -= nodes % per_rack
            ss[K + "nodes"] = nodes
        elif field in _WIDGET_OF:  # as _set_widgets puts it (None: what the declaration shows, 0, auto, empty)
            ss[K + _WIDGET_OF[field]] = _widget_value(field, DESIGN_FIELDS[field], value, CATALOG.system(ss[K + "gpu"]))


def offered_fixes(exc: BaseException | None) -> list[tuple[str, dict]]:
    """The engine's ways out of a design error (each was re-planned and builds) that the sidebar can apply."""
    fixes = getattr(exc, "fixes", ()) or ()
    return [(phrase, changes) for phrase, changes in fixes
            if all(f in _WIDGET_OF or f in ("nodes", "gpus") for f in changes)]


def show_error(cur: Current) -> None:
    """A design the engine cannot build: its message, what would work, and only buttons that get out of
    it (``DesignError.fixes``: ``core.plan`` re-planned each and it builds)."""
    message, suggestion = safe.message(cur.error)
    heading = _("This design cannot be built.") if isinstance(cur.error, DesignError) else \
        _("This input is not accepted.")
    st.error(safe.with_way_out(safe.bold_lead(heading, message), suggestion))
    st.caption(_("Change a control in the sidebar, or:"))
    fixes = offered_fixes(cur.error)
    row = st.container(horizontal=True, wrap=True)  # each button as wide as its words, wrapping to a new line
    for i, (phrase, changes) in enumerate(fixes):  # (equal columns cut a long way out at 1,024 px)
        row.button(phrase[:1].upper() + phrase[1:], on_click=_apply_fix, args=(changes,), key=f"fix_{i}")
    row.button(_("Reset to defaults"), on_click=reset_design, key="fix_reset")
