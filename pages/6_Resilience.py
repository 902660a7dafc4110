"""Resilience: failure what-if (a form, or clicks on the diagram), single points of failure, availability over
time, spares in the BOM, and overload & imbalance of a traffic pattern (thin: session store ->
core.analysis -> core.figures.resilience). Every setting is in the share link (``rs_`` keys,
core.formats.resiliencelink)."""

from __future__ import annotations

import functools
import json

import streamlit as st

from core import i18n
from core.analysis import availability as avail
from core.analysis import failure, load, sparing
from core.analysis.failure.examples import element_examples
from core.analysis.failure.names import arrowed
from core.analysis.failure.podnames import PodElementNames
from core.analysis.failure.spec import engine_specs, export_namer, failure_namer
from core.analysis.podinside import inside_spec, inside_what_if
from core.analysis.spof import headline as spof_headline
from core.analysis.podload import pods_core_load, pods_spine_load
from core.analysis.podwhatif import (
    count_notes, is_whole_element, link_failures, loss_rows, pod1_counts, pods_what_if, split_failures,
    standalone_hidden_note, whatif_wiring, whole_choices, whole_picks,
)
from core.analysis.whole import design_mixed, whole_plan  # a design with pods: its totals in the size caption
from core.spares import policy_words
from core.errors import FabricPlannerError, InputError
from core.fabric.families import failure_names, global_groups, node_to_node, require_clos, require_model, words
from core import units, vocab
from core.figures import resilience as figs
from core.figures.keynumbers import KeyNumber, cards_html, size_caption
from core.figures import is_aggregated
from core.units import from_gbytes, from_tbits
from core.formats import resiliencelink as rl
from core.formats.linknames import canonical_failures, link_names, read_failures, scheme_of, typed_failures
from core.formats.podslurm import mixed_of
from core.i18n import N_, _, after_full_width
from webui import charts, jobstate, jobwork, pagestate, safe, state, tablefit, tables
from webui import resilience_cache as cache
from webui.cached import naming_json

STORE = "fp_rs"  # the page's settings (resiliencelink keys -> values), kept while other pages show
PAGE_PATH = "resilience"  # app.py registers the page under this url_path
W = "rs_w_"  # widget key prefix
# the sections that analyse every pod of a design with pods under the shared spines (the rest: pod 1 alone)
WHOLE_FABRIC_TABS = ("Single points of failure", "Availability", "Spares", "Overload & imbalance")
CHART = "fp_rs_chart"  # counter: a new chart (and selection) after every click
NOTICE = "fp_rs_notice"
RENAMED = "fp_rs_renamed"  # the note on the names read as the exports name them now (a Dragonfly's leaf001), said once
SP_EDITED = "fp_rs_sp_edited"  # sparing rules set on this page (the others start from the design's policy)
CONFIG = {"displaylogo": False}
NAMED = "fp_rs_named"  # {element id: its export name} of the chips drawn last: one label per chip between runs
TYPED = "fp_rs_typed"  # {element: (the hot link typed for it, the naming it was read under)}: shown and linked as typed
PODS_EXTRA = "fp_rs_pods_extra"  # a design with pods: another pod's leaves lost on the whole fabric only
COUNTED = "fp_rs_counted"  # a design with pods: [(note, whole-fabric ids)] of the link's tiers and counts
INSIDE_COLUMNS = [1.7, 2.5, 1]  # a design with pods: failures inside one pod, its pod, its elements, the button


# This session's settings in the link (webui.pagestate)
LINK = pagestate.PageLink(STORE, rl.decode, lambda key: bool(rl.prefix_of(key)))


def _store() -> dict:
    """This session's settings; read from the link at the session's first run of this page."""
    return LINK.values(lambda values, _params: dict(values))


def _settings_json() -> str | None:
    """The Performance page's job settings (webui.jobstate), as the cache key of the step time."""
    settings = st.session_state.get(jobstate.STORE)
    return json.dumps(settings, sort_keys=True, default=list) if settings else None


HELP_NAMES = {key: f"`{value}`" for key, value in dict(
    node="gpu009", nic="gpu006 nic3", pair="gpu001 -> gpu002", cable="#2", switch="leaf004, spine002, p2-spine002",
    plane="plane 2", bundle="leaf004 -> spine002", chip="gpu006 nvswitch2", rack_chip="nvl004-nvsw4 nvswitch2",
    tray="nvl004-nvsw3", rack="R02-05", feed="R02-05 feedA", ids="p0.leaf3, node5.nic2, rack3",
    global_bundle="spine001 -> spine021", router="leaf004", router_bundle="leaf001 -> leaf063").items()}
"""Example names of the element names' help (``core.analysis.failure.names``: as the exports print them), code spans."""


# --- callbacks ---------------------------------------------------------------------------------------
def _add(specs: list[str]) -> None:
    store = st.session_state[STORE]
    cur = st.session_state.get("fp_current")
    merged = list(store["fail"])
    scheme = scheme_of(st.session_state.get(state.NAMING_STORE), cur.plan)  # as the hottest links are named
    specs, st.session_state[RENAMED] = canonical_failures(cur.plan, specs, scheme)  # leaf001 -> router001, said
    pairs, problems = read_failures(cur.plan, specs, scheme)  # a hot link (leaf002 -> spine003 #1): its cable or NIC
    _remember_typed(pairs)
    specs = [spec for _typed, spec in pairs]
    mixed = mixed_of(cur.plan)
    if mixed is not None:  # a design with pods: the pods' exports' names (spine001, pod2-leaf002) or the CLI's ids
        pods = PodElementNames(mixed, scheme)  # (spine0, pod2.p0.leaf1) drive both what-ifs
        specs, whole = split_failures(mixed, [pods.parse(spec) or spec for spec in specs])
        st.session_state[PODS_EXTRA] = list(dict.fromkeys([*st.session_state.get(PODS_EXTRA, []), *whole]))
    names = export_namer(cur.plan, scheme)  # the exports' names (leaf004, gpu006 nic3, R02-05) kept as their ids
    for spec in specs:
        spec = spec.strip().lower()
        if spec and names is not None and not spec.partition(":")[2].strip().isdigit():
            spec = engine_specs(cur.plan, [spec], scheme)[0]
        spec = _canonical(spec)
        if not spec or spec in merged:
            continue
        if len(merged) >= rl.MAX_FAILED:
            problems.append(_("At most {count} elements can fail at once.").format(count=rl.MAX_FAILED))
            break
        try:
            failure.resolve_failures(cur.plan, [*merged, spec], scheme)
        except InputError as exc:
            problems.append(str(exc))
            continue
        merged.append(spec)
    store["fail"] = tuple(merged)
    if problems:
        st.session_state[NOTICE] = problems


def _check_failures(plan, store: dict) -> tuple[tuple[str, ...], list[str]]:
    """Keep the failed elements ``plan`` has and one warning per other (``rl.check_failures``); a design with pods
    splits them as the CLI reads them (``rl.check_pod_failures``), the whole-fabric-only ones in ``PODS_EXTRA``. A hot
    link the link kept as typed is read back as its element first (``rl.read_hot_links``), and shown as typed."""
    typed_problems = []
    scheme = _scheme(plan)  # the link's naming: its names are the chips' and the warnings' (sw-leaf001)
    if any("->" in spec for spec in store["fail"]):
        pairs, typed_problems = rl.read_hot_links(plan, store["fail"], scheme)
        names = failure_namer(plan, scheme)  # a bundle the link names as the chips do (leaf004 -> spine002): no hot link
        _remember_typed([(text, spec) for text, spec in pairs
                         if names is None or text.lower() != names.name(spec).lower()])
        store["fail"] = tuple(dict.fromkeys(spec for _typed, spec in pairs))
    mixed = mixed_of(plan)
    if mixed is None:
        good, problems = rl.check_failures(plan, store["fail"], scheme)
    else:
        counted = []  # a tier and a count: pod 1's elements on the whole fabric, as the CLI (said in _pods_whole_fabric)
        for spec in (s for s in store["fail"] if s.partition(":")[2].strip().isdigit()):
            try:
                counted += pod1_counts(mixed, [spec], scheme)
            except InputError:
                pass  # said by check_pod_failures
        if counted:
            st.session_state[COUNTED] = list(zip(count_notes(mixed, counted, scheme), (c for _s, c in counted)))
        good, whole, problems = rl.check_pod_failures(plan, mixed, store["fail"], scheme)
        if whole:
            ss = st.session_state
            ss[PODS_EXTRA] = list(dict.fromkeys([*ss.get(PODS_EXTRA, []), *whole]))
    store["fail"] = good = tuple(_canonical(spec) for spec in good)
    return good, typed_problems + problems


def _canonical(spec: str) -> str:
    """A failure spec as the what-if writes its element (``rack3.feedA``; the link and the form lower-case it), so the
    chips' widget reads back the same value under its export-name label."""
    return spec[:-1] + spec[-1].upper() if spec.endswith((".feeda", ".feedb")) else spec


def _link_values(plan, store: dict) -> dict:
    """The settings the share link writes: the failed elements by the exports' names under the link's naming, as the
    chips show them and the CLI reads them (``rl.named_failures``: ``leaf004``, ``sw-leaf004``; a design with pods
    the whole fabric's, ``link_failures``: ``spine001``, ``pod2-leaf002``), the whole-fabric-only ones too; a hot link
    typed under the naming the link holds is written as typed (``rl.read_hot_links`` reads it back), so a reopened
    link shows it."""
    mixed = mixed_of(plan)
    failed = store["fail"]
    if mixed is not None:
        whole, inside = whole_picks(mixed, (), st.session_state.get(PODS_EXTRA, []))  # as the what-if reads them
        failed = link_failures(mixed, store["fail"], whole + inside)
    typed, naming = st.session_state.get(TYPED, {}), _naming_key()
    return {**store, "fail": rl.named_failures(plan, [  # the exports' names (leaf004, pod2-leaf002), as the chips
        typed[spec][0] if typed.get(spec, ("", ""))[1] == naming and rl.keeps_typed(typed[spec][0]) else spec
        for spec in failed], _scheme(plan))}


def _naming_key() -> str:
    """The exports' naming this session's link holds (``state.NAMING_STORE``) and the language (a family's own
    words), as text: a hot link typed under them reads back to the same element."""
    return json.dumps([st.session_state.get(state.NAMING_STORE) or {}, i18n.locale()], sort_keys=True)


def _on_add_count() -> None:
    ss = st.session_state
    _add([f"{ss[W + 'tier']}:{int(ss[W + 'count'])}"])


def _on_add_names() -> None:
    ss = st.session_state
    _add(str(ss.get(W + "names") or "").split(","))
    ss[W + "names"] = ""


def _on_failed_edit() -> None:
    st.session_state[STORE]["fail"] = tuple(st.session_state[W + "failed"])


def _on_clear() -> None:
    st.session_state[STORE]["fail"] = ()
    st.session_state[PODS_EXTRA] = []
    st.session_state[COUNTED] = []


def _on_click(chart_key: str) -> None:
    """A click on the diagram fails the clicked switch, or restores it when it has failed."""
    ss = st.session_state
    event = ss.get(chart_key) or {}
    points = (event.get("selection") or {}).get("points") or []
    for point in points:
        vertex = point.get("customdata")
        if isinstance(vertex, list):
            vertex = vertex[0] if vertex else None
        if not isinstance(vertex, str) or vertex.startswith(("servers", "node")):
            continue
        store = ss[STORE]
        ss[CHART] = ss.get(CHART, 0) + 1  # a fresh chart: the next click on the same switch toggles it back
        if vertex in store["fail"]:
            store["fail"] = tuple(v for v in store["fail"] if v != vertex)
            return
        cur = ss.get("fp_current")
        try:
            failure.resolve_failures(cur.plan, [*store["fail"], vertex])
        except InputError:
            ss[NOTICE] = [words(cur.plan.fabric.family, "failure:bundle", N_(
                "{name} is a bundle of switches in this aggregated view; name one switch in the form (e.g. {example}) "
                "or give a tier and a count.")).format(name=vertex, example=element_examples(cur.plan, None)[0])]
            return
        store["fail"] = (*store["fail"], vertex)
        return


def _on_value(name: str) -> None:
    st.session_state[STORE][name] = st.session_state[W + name]


def _on_rule(key: str) -> None:
    ss = st.session_state
    text = str(ss.get(W + "sp_" + key) or "")
    try:
        ss[STORE]["sp_" + key] = rl.RS.params[[p.key for p in rl.RS.params].index("sp_" + key)].parse(text)
        ss[SP_EDITED] = {*ss.get(SP_EDITED, ()), key}  # set here: no longer the design's rule (_spares_section)
    except ValueError:
        ss[NOTICE + "_sp"] = _("Sparing rule {value} is not a percentage (2%) or N+k (N+1); the previous rule "
                               "applies.").format(value=safe.md(text[:40]))
        ss[W + "sp_" + key] = ss[STORE]["sp_" + key]


def _on_rate(name: str, field: str) -> None:
    ss = st.session_state
    value = float(ss[W + f"{field}_{name}"])
    default = getattr(avail.default_rates()[name], field)
    rates = {(n, f): v for n, f, v in ss[STORE]["rate"]}
    if abs(value - default) <= 1e-12:
        rates.pop((name, field), None)
    else:
        rates[(name, field)] = value
    ss[STORE]["rate"] = tuple((n, f, v) for (n, f), v in sorted(rates.items()))


def _remember_typed(pairs) -> None:
    """The names typed for the elements they failed (``TYPED``): a hot link's chip is shown as typed
    (``_spec_label``), its element under the chips (``_typed_caption``)."""
    typed, naming = st.session_state.setdefault(TYPED, {}), _naming_key()
    typed.update({spec: (text, naming) for text, spec in pairs if text.lower() != spec})


def _spec_label(spec: str, short: bool = False) -> str:
    """A failure spec as a chip shows it: ``spine:2`` in words (its tier translated; ``short``: without "where it
    hurts most"); a name typed as typed, a hot link as Overload & imbalance lists it (``leaf 124 -> spine 101``),
    never with its element, whose name ``_typed_caption`` writes under the chips (typed, the two read 40 to 70
    characters: a Dragonfly+ global link's or a pod's NIC chip ran out of its box at 1,024 px); other names as the
    exports name them (``export_namer``: ``leaf004``, ``gpu006 nic3``; a design with pods: its ids)."""
    if spec in st.session_state.get(TYPED, {}):
        return st.session_state[TYPED][spec][0]
    tier, sep, rest = spec.partition(":")
    tier = failure.TIER_ALIASES.get(tier, tier)
    if sep and rest.isdigit() and tier in failure.TIER_LABELS:
        cur = st.session_state.get("fp_current")  # the tier in its family's words (a classic Dragonfly's router)
        planned = cur.plan if cur is not None else None
        return (_("{count} x {tier}") if short else _("{count} x {tier} (where it hurts most)")).format(
            count=rest, tier=failure.tier_label(tier, planned.resolved.system if planned else None,
                                                planned.fabric.family if planned else None))
    name = rest if sep else spec
    name = name[:-1] + name[-1].upper() if name.endswith((".feeda", ".feedb")) else name  # rack3.feedA
    return st.session_state.get(NAMED, {}).get(spec, name)  # as the exports name it (leaf004, gpu006 nic3)


def _pod_label(names, spec: str) -> str:
    """A design with pods: a chip's label, a whole-fabric id as the pods' exports name it (``names``:
    ``core.analysis.failure.podnames.PodElementNames``: ``pod2-leaf002``, ``R05-01 feedA``); a hot link as typed."""
    if spec in st.session_state.get(TYPED, {}) or names is None:
        return _spec_label(spec)
    return arrowed(names.name(spec))


def _scheme(plan):
    """The exports' naming scheme the link holds (the Designer's hand-off naming, ``nm_`` keys) checked against
    ``plan``; None: the default names."""
    return scheme_of(st.session_state.get(state.NAMING_STORE), plan)


def _export_name(plan):
    """The exports' name of an element id of ``plan`` (``export_namer`` under the link's naming), or the id (a
    design with pods)."""
    names = export_namer(plan, _scheme(plan))
    return (lambda element: element) if names is None else names.name


def _typed_caption(specs) -> None:
    """Under the chips of ``specs``: each hot link as typed with the element it fails in brackets
    (``typed_failures``: ``leaf 124 -> spine 101 (p0.leaf123-spine100)``), the full name its chip leaves out, in a
    caption that wraps at any width."""
    typed = st.session_state.get(TYPED, {})
    pairs = [(typed[spec][0], spec) for spec in specs if spec in typed and "->" in typed[spec][0]]
    if pairs:
        st.caption(safe.md(_("Hot links and the elements they fail: {links}").format(
            links="; ".join(typed_failures(pairs, [])))))


def _delta(gbits: float, unit: str) -> str | None:
    """A bandwidth's change [Gb/s] as text in ``unit``; None (no arrow) when it is below 0.01 Gb/s."""
    return None if abs(gbits) < 0.01 else units.signed_bandwidth(gbits, unit)


# --- sections ----------------------------------------------------------------------------------------------
def _clos_only(plan, what: str, model: str | None = None) -> bool:
    """Say that ``what`` (an analysis, in words) does not model ``plan``'s topology family, when it is not a folded
    Clos (``core.fabric.families.require_clos``) or, with ``model``, a family whose graph ``model`` reads
    (``require_model``); True when said."""
    try:
        if model:
            require_model(plan.fabric, model, what)
        else:
            require_clos(plan.fabric, what)
    except InputError as exc:
        st.info(safe.md(str(exc)))
        return True
    return False


def _failure_section(cur, store: dict, key: str, lang: str) -> None:
    clos = failure_names(cur.plan.fabric.family) == "tiers"
    torus = node_to_node(cur.plan.fabric.family)
    family = cur.plan.fabric.family
    if is_aggregated(cur.plan, every_pod=False):  # a click names a bundle: the form only
        caption = (_("Fail switches, link bundles, scale-up switches, planes, NICs, racks or their power feeds by the "
                     "form, and compare with the healthy design. The healthy design is never changed.") if clos else
                   words(family, "failure:caption:form", N_(
                       "Fail switches, leaf and global link bundles, planes or NICs by the form, and compare with the "
                       "healthy design. The healthy design is never changed.")))
    else:
        caption = (_("Fail switches, link bundles, scale-up switches, planes, NICs, racks or their power feeds by the "
                     "form, or switches by clicking them in the diagram (click again to restore one), and compare "
                     "with the healthy design. The healthy design is never changed.") if clos else
                   words(family, "failure:caption", N_(
                       "Fail switches, leaf and global link bundles, planes or NICs by the form, or switches by "
                       "clicking them in the diagram (click again to restore one), and compare with the healthy "
                       "design. The healthy design is never changed.")))
    st.caption(_("Fail nodes, NICs or the link bundles between neighbours of the torus by the form, and compare with "
                 "the healthy design. The healthy design is never changed.") if torus else caption)
    stand_in = failure.stand_in_note(cur.plan)
    if stand_in:  # a cloud design: the switches offered are the collective model's stand-in, not the provider's
        st.info(safe.md(stand_in))
    # two rows: five controls in one cut the buttons' words at 1,024 px ("Fail th...")
    c1, c2, c3 = st.columns([2.2, 1, 1], vertical_alignment="bottom")
    c4, c5 = st.columns([3.2, 1], vertical_alignment="bottom")
    tiers = list(failure.tiers_for(cur.plan))
    if st.session_state.get(W + "tier") not in tiers:
        st.session_state[W + "tier"] = tiers[0]
    c1.selectbox(words(family, "failure:tier", N_("Tier")), tiers, key=W + "tier", format_func=lambda t: words(
        cur.plan.fabric.family, f"tier:{t}", None) or failure.tier_label(t, cur.plan.resolved.system),  # routers
                 help=words(family, "failure:tier:help", N_("A tier and a count fail that many elements of the tier, "
                                                             "chosen where they hurt most.")))
    c2.number_input(_("Count"), min_value=1, max_value=failure.MAX_FAILURES, step=1, key=W + "count")
    c3.button(_("Fail"), key=W + "add_count", on_click=_on_add_count, width="stretch")
    c4.text_input(_("Element names"), key=W + "names", max_chars=400,
                  placeholder=", ".join(element_examples(cur.plan, mixed_of(cur.plan), naming=_scheme(cur.plan))),
                  help=i18n.sentences(_("Comma-separated, as the exports name them: a node ({node}), a NIC of a node ({nic}) or the "
                          "link bundle between two neighbours ({pair}; {cable} for one cable of it).").format(
                      **HELP_NAMES) if torus else
                  _("Comma-separated, as the exports (Slurm, NetBox, cabling plan) name them: a switch ({switch}), a "
                    "plane ({plane}), a NIC of a node ({nic}), a link bundle ({bundle}; {cable} for one cable), an "
                    "NVSwitch chip of a node ({chip}) or of an NVL72 rack ({rack_chip}), an NVLink switch tray "
                    "({tray}), a rack ({rack}: its power lost) or one of its power feeds ({feed}). The engine's ids "
                    "({ids}) work too.").format(**HELP_NAMES) if clos else
                  words(cur.plan.fabric.family, "failure:help", N_(
                      "Comma-separated, as the exports name them: a switch ({switch}), a plane ({plane}), a NIC of a "
                      "node ({nic}), a leaf's link bundle ({bundle}) or a global link bundle between spines of two "
                      "groups ({global_bundle}); {cable} for one cable of a bundle. The engine's ids ({ids}) work "
                      "too.")).format(**HELP_NAMES), "" if torus else words(
                  family, "failure:hot", N_("A hot link as Overload & imbalance lists it (leaf002 -> spine003 #1) "
                                            "fails that cable, or the server's NIC."))))
    c5.button(_("Fail these"), key=W + "add_names", on_click=_on_add_names, width="stretch")
    for problem in st.session_state.pop(NOTICE, None) or []:
        st.error(safe.md(problem))
    if renamed := st.session_state.pop(RENAMED, ""):
        st.info(safe.md(renamed))

    failed = tuple(store["fail"])
    names = export_namer(cur.plan, _scheme(cur.plan))  # the chips' labels, fixed here: the widget reads them back
    st.session_state[NAMED] = {} if names is None else {
        spec: arrowed(names.name(spec)) for spec in failed if not spec.partition(":")[2].strip().isdigit()}
    st.session_state[W + "failed"] = list(failed)
    f1, f2 = st.columns([4, 1.4], vertical_alignment="bottom")  # [5, 1] cut "Restore all" at 1,024 px
    f1.multiselect(_("Failed elements"), list(failed), key=W + "failed", on_change=_on_failed_edit,
                   format_func=_spec_label, wrap=True,  # in a column the chips scrolled out of sight on one row
                   placeholder=_("Nothing failed yet"), help=_("Remove an element to restore it."))
    f2.button(_("Restore all"), key=W + "clear", on_click=_on_clear, disabled=not failed, width="stretch")
    _typed_caption(failed)

    settings_json = _settings_json()
    result = None
    if failed:
        scheme = _scheme(cur.plan)  # the notes name elements as the exports do under the link's naming
        finished, result = cache.what_if(key, failed, settings_json, scheme.model_dump_json() if scheme else "")
        if not finished:
            return
        counts = [(_spec_label(spec, short=True), spec) for spec in failed
                  if spec.partition(":")[2].strip().isdigit()]  # spine:2
        if counts:  # each tier and count as it was asked (2 x spine), the elements it chose in brackets
            st.caption(_("Chosen where it hurts most: {elements}").format(
                elements=", ".join(typed_failures(counts, result.failed, most=20, name=_export_name(cur.plan)))))
        m1, m2, m3, m4 = st.columns(4)
        m1.metric(_("GPUs cut off"), i18n.number(result.gpus_disconnected),
                  help=_("{nodes} nodes outside the part of the fabric holding the most nodes").format(
                      nodes=i18n.number(result.nodes_disconnected)))
        own = words(cur.plan.fabric.family, "failure:degraded:help", None)  # a torus: its rings' rule
        m2.metric(_("GPUs degraded"), i18n.number(result.degraded_gpus),
                  help=own or (_("GPUs of connected nodes whose NIC lost a port; {pxn} of them lost every port and "
                                 "reach the fabric over NVLink through another rail's NIC (PXN)").format(
                      pxn=i18n.number(result.gpus_via_pxn)) if not result.gpus_nvlink_degraded
                      else failure.degraded_words(result.gpus_degraded, result.gpus_via_pxn,
                                                  result.gpus_nvlink_degraded, result.degraded_gpus,
                                                  cur.plan.resolved.system)))
        unit = cur.unit
        m3.metric(_("Bisection (1 dir)"), units.bandwidth(from_tbits(result.bisection_tbits_one_direction), unit),
                  help=_("One direction; healthy {healthy}").format(
                      healthy=units.bandwidth(from_tbits(result.healthy_bisection_tbits_one_direction), unit)),
                  delta=_delta(from_tbits(result.bisection_tbits_one_direction
                                          - result.healthy_bisection_tbits_one_direction), unit))
        if result.busbw_gbytes is not None and result.healthy_busbw_gbytes:
            m4.metric(_("All-reduce busbw"), units.bandwidth(from_gbytes(result.busbw_gbytes), unit),
                      delta=_delta(from_gbytes(result.busbw_gbytes - result.healthy_busbw_gbytes), unit),
                      help=_("busbw of 1 GiB on the connected GPUs; healthy {healthy}").format(
                          healthy=units.bandwidth(from_gbytes(result.healthy_busbw_gbytes), unit)))
    # the drawing, then the bars under it: side by side the bars' title and labels were cut at 1,024 px
    area = st.container()
    with area:
        fig, _vertices, aggregated = cache.topology(key, failed, cur.unit, lang, result,
                                                    naming_json(cur.plan))  # the devices as the exports name them
        chart_key = f"rs_topology_{st.session_state.get(CHART, 0)}"
        charts.chart(fig, "full", key=chart_key, on_select=functools.partial(_on_click, chart_key),
                        selection_mode=("points",), config={**CONFIG, "scrollZoom": True})
        click = None if aggregated else words(cur.plan.fabric.family, "failure:click", N_(
            "Click a leaf, spine or core switch to fail it; click it again to restore it."))  # None: no switch
        st.caption(i18n.sentences(_("Red crosses mark failed elements."), (
            words(cur.plan.fabric.family, "failure:aggregated", N_(
                "This view is aggregated: a click names a bundle of switches, so fail single switches by the form."))
            if aggregated else click or "")))
    if result is None:  # a click offered only where one fails a switch (not aggregated, the family has switches)
        area.info(words(cur.plan.fabric.family, "failure:empty:form", N_(  # a torus: no tiers, its own words
            "Nothing has failed: pick a tier and a count, or name elements.")) if click is None else
                  words(cur.plan.fabric.family, "failure:empty", N_(
                      "Nothing has failed: pick a tier and a count, name elements, or click a switch.")))
        return
    with area:
        charts.chart(cache.healthy_vs_failed(key, failed, settings_json, lang, cur.unit, result,
                                                    cur.plan.resolved.system), "full", key="rs_bars",
                        config=CONFIG)

    unit = cur.unit
    rows = figs.what_if_rows(result, unit, cur.plan.resolved.system)  # as the review pack's failure scenario
    st.dataframe({_("number"): [r[0] for r in rows], _("healthy"): [r[1] for r in rows],
                  _("failed"): [r[2] for r in rows]}, hide_index=True, width="stretch",
                 height=cache.table_height(len(rows)))
    if result.nvlink_level2_of:  # the NVLink row is the second level's figure: which, and the first level's beside
        from core.analysis.failure.nvlink2 import level2_scope

        st.caption(_("NVLink per GPU, level 2: {scope}.").format(scope=level2_scope(
            result.nvlink_level2_of, cur.plan.resolved.gpus_per_node,
            units.bandwidth(from_gbytes(result.nvlink_inside_gbytes_per_gpu_one_direction), unit))))
    # full width, as the table above: beside the ECMP groups its stage names and bandwidths were cut off at 1024 px
    stages = cache.stage_table(result, unit)
    st.markdown("##### " + _("Remaining bisection per stage"))
    st.dataframe(stages, hide_index=True, width="stretch", height=cache.table_height(len(stages)))
    st.caption(_("The damaged half of the worst balanced cut, one direction."))
    if not node_to_node(cur.plan.fabric.family):  # ECMP hashes over a switch's uplinks: a torus has no switches
        st.markdown("##### " + _("Unbalanced ECMP groups"))
        if result.ecmp_unbalanced:
            for g in result.ecmp_unbalanced:
                st.markdown("- " + (i18n.ngettext(
                    "{switches} {tier} switch hashes over {remaining} of {healthy} uplink cables",
                    "{switches} {tier} switches hash over {remaining} of {healthy} uplink cables",
                    g["switches"]) if g.get("unit") == "links" else i18n.ngettext(
                    "{switches} {tier} switch hashes over {remaining} of {healthy} uplink paths",
                    "{switches} {tier} switches hash over {remaining} of {healthy} uplink paths",
                    g["switches"])).format(switches=i18n.number(g["switches"]), tier=_(failure.TIER_LABELS[g["tier"]]),
                                          remaining=g["remaining_paths"], healthy=g["healthy_paths"]))
        else:
            st.caption(_("No switch lost only some of its uplink paths."))
    for note in result.notes:
        st.info(safe.md(note))
    method = failure.method_of(cur.plan)
    st.caption(_("Method: closed form over the fabric's symmetry, checked against `networkx` reachability and "
                 "max-flow on small designs; busbw and step time from the collective and training models on a "
                 "degraded copy of the design.") if method == "tiers" else
               _("Method: closed form over the topology's groups (the groups no failure touches as one block), "
                 "checked against the what-if on the topology's graph (`networkx`) over small and medium designs: "
                 "the GPUs cut off, a maximum flow between the halves of the groups for the bisection; busbw and step "
                 "time from the collective and training models on a degraded copy of the design.")
               if method == "groups" else
               words(cur.plan.fabric.family, "failure:method", N_(  # a torus: the slabs of its bisection cut
                   "Method: on the topology's graph (`networkx`): connected components for the GPUs cut off, a "
                   "maximum flow between the halves of the groups for the bisection; busbw and step time from the "
                   "collective and training models on a degraded copy of the design.")))


def _on_pods_failed(mixed) -> None:
    """The whole-fabric picks into the page's one failure list (the link's ``rs_fail``): a shared spine or pod 1's
    leaf under pod 1's own name (``PodsWiring.alone_of_whole``); another pod's leaf is kept for the whole fabric
    only."""
    ss = st.session_state
    wiring = whatif_wiring(mixed)
    picked = list(ss.get(W + "pods_failed") or [])
    alone = [wiring.alone_of_whole(e) for e in picked]
    store = ss[STORE]
    kept = [spec for spec in store["fail"] if wiring.whole_of_alone(spec) is None]  # a NIC, a rack...: not here
    inside = [e for e in ss.get(PODS_EXTRA, []) if inside_spec(mixed, e)]  # the failures inside a pod stay
    store["fail"] = ()
    _add(kept + [a for a in alone if a is not None])
    ss[PODS_EXTRA] = [e for e, a in zip(picked, alone) if a is None] + inside


def _pods_whole_fabric(cur, store: dict) -> None:
    """A design with pods: lose shared spines and pods' leaves (pods on three tiers: shared cores, pods' spines and
    leaves) on the whole fabric and show what each pod loses (``core.analysis.podwhatif``); the page's only failure
    what-if of the pods' switches (pod 1 alone has spines or cores the design does not buy:
    ``standalone_hidden_note``)."""
    try:
        mixed = design_mixed(cur.plan.design)
    except FabricPlannerError:
        return
    three = mixed.fabric.tiers == 3
    st.markdown("##### " + (_("Every pod's spines under the shared cores") if three else
                            _("Every pod under the shared spines")))
    options = whole_choices(mixed)
    picked, inside = whole_picks(mixed, store["fail"], st.session_state.get(PODS_EXTRA, []))  # as the review pack
    options += [e for e in picked if e not in set(options)]  # a hot link's cable, pasted below
    st.session_state[W + "pods_failed"] = picked
    label = functools.partial(_pod_label, PodElementNames(mixed, _scheme(cur.plan)))  # the pods' exports' names
    st.multiselect(_("Shared cores, pods' spines and leaves to lose") if three else
                   _("Shared spines and pods' leaves to lose"), options, key=W + "pods_failed", format_func=label,
                   on_change=_on_pods_failed, args=(mixed,), placeholder=_("none: the healthy fabric"), wrap=True)
    _typed_caption(picked)
    st.caption(_("GPUs cut off: servers whose every leaf is lost (without cores, or a pod without spines, those "
                 "outside the part holding the most GPUs). Into the shared cores: the most a pod's servers can send "
                 "through its live leaves and spines into the live cores (a max-flow), which traffic between pods "
                 "crosses. Bandwidths: failed / healthy, one direction.") if three else
               _("GPUs cut off: servers whose every leaf is lost (without spines, those outside the scalable unit "
                 "holding the most GPUs). Into the shared spines: the most a pod's servers can send into the live "
                 "spines (a max-flow), which traffic between pods crosses. Bandwidths: failed / healthy, one "
                 "direction."))
    tables.show_turned(loss_rows(pods_what_if(mixed, picked), cur.unit, cores=three), _("Pod"))  # 1,024 px
    failed = {*picked, *inside}
    for note, elements in st.session_state.get(COUNTED, []):  # the link's leaf:1, while its elements stay failed
        if elements and failed.issuperset(elements):
            st.info(safe.md(note))
    st.info(safe.md(standalone_hidden_note(mixed, cur.plan)))
    _pods_inside(mixed)


def _on_inside_add(mixed) -> None:
    """The form's names, under the chosen pod's prefix, into the failures inside the pods (``PODS_EXTRA``); a name
    that is not a NIC, rack, power feed or scale-up part of the pod is said."""
    ss = st.session_state
    pod = int(ss.get(W + "inside_pod") or 1)
    extra = list(ss.get(PODS_EXTRA, []))
    cur = ss.get("fp_current")
    scheme = scheme_of(ss.get(state.NAMING_STORE), cur.plan)  # as the hottest links are named
    pairs, problems = read_failures(cur.plan, str(ss.get(W + "inside_names") or "").split(","), scheme)
    _remember_typed(pairs)
    names = PodElementNames(mixed, scheme)
    for typed, name in pairs:
        spec = names.parse(typed) or f"pod{pod}.{name}"  # as the pods' exports name it (pod2-gpu006 nic3, R05-01)
        if "->" in typed:  # a hot link (pod2-gpu004 nic1 -> pod2-leaf002): its NIC under its pod, or its cable
            spec = name
            if is_whole_element(mixed, spec):  # a cable of a bundle: lost on the whole fabric
                extra += [spec] if spec not in extra else []
                continue
        if not name or spec in extra:
            continue
        if inside_spec(mixed, spec) is None:
            problems.append(_("{name} is not a NIC, rack, power feed or scale-up part of pod {pod}; its switches and "
                              "their bundles fail above.").format(name=safe.md(name[:40]), pod=pod))
        else:
            extra.append(spec)
    ss[PODS_EXTRA], ss[W + "inside_names"] = extra, ""
    if problems:
        ss[NOTICE] = problems


def _on_inside_edit(mixed) -> None:
    ss = st.session_state
    kept = set(ss.get(W + "inside_failed") or [])
    ss[PODS_EXTRA] = [e for e in ss.get(PODS_EXTRA, []) if not inside_spec(mixed, e) or e in kept]


def _pods_inside(mixed) -> None:
    """A design with pods: failures inside one pod (a NIC, a rack or its power feed, a scale-up part), each its pod's
    own what-if (``core.analysis.podinside``), in the link's failed elements under the pod's prefix."""
    ss = st.session_state
    st.markdown("##### " + _("Inside one pod: NICs, racks and scale-up"))
    numbers = {p.index + 1: p.system for p in mixed.fabric.pods}
    c1, c2, c3 = st.columns(INSIDE_COLUMNS, vertical_alignment="bottom")  # "Pod 1 (H100)" whole at 1,024 px
    c1.selectbox(_("Pod"), list(numbers), key=W + "inside_pod",
                 format_func=lambda n: _("pod {pod}").format(pod=n) + f" ({numbers[n]})")
    names = PodElementNames(mixed, _scheme(ss["fp_current"].plan))
    examples = [names.name(e) for e in ("pod1.node5.nic2", "pod1.rack1", "pod1.rack1.feedA", "pod1.node5.nvswitch1")
                if inside_spec(mixed, e)]  # as the pods' exports name them (pod1-gpu006 nic3, R02-03, ...)
    c2.text_input(_("Its elements"), key=W + "inside_names", max_chars=400,
                  placeholder=tablefit.fitting_examples(examples, tablefit.share_px(INSIDE_COLUMNS, 1)),
                  help=i18n.sentences(_("Comma-separated, as the pods' exports (NetBox, cabling plan, Slurm) name them: a NIC of a "
                         "node ({nic}), a rack ({rack}: its power lost) or one of its power feeds ({feed}), an "
                         "NVSwitch chip of a node ({chip}) or of an NVL72 rack ({rack_chip}), an NVLink switch tray "
                         "({tray}). The ids of the pod chosen ({ids}) work too.").format(**{key: f"`{value}`" for key, value in dict(
                      nic="pod2-gpu006 nic3", rack="R05-02", feed="R05-02 feedA", chip="pod2-gpu006 nvswitch2",
                      rack_chip="pod2-nvl004-nvsw4 nvswitch2", tray="pod2-nvl004-nvsw3",
                      ids="node5.nic2, rack3, rack3.feedA").items()}), _(
                      "A hot link as Overload & imbalance lists it fails its NIC here, or its cable on the whole "
                      "fabric above.")))
    c3.button(_("Fail these"), key=W + "inside_add", on_click=_on_inside_add, args=(mixed,), width="stretch")
    for problem in ss.pop(NOTICE, None) or []:
        st.error(safe.md(problem))
    inside = [e for e in ss.get(PODS_EXTRA, []) if inside_spec(mixed, e)]
    if not inside:
        return
    ss[W + "inside_failed"] = inside
    st.multiselect(_("Failed inside the pods"), inside, key=W + "inside_failed", on_change=_on_inside_edit,
                   args=(mixed,), format_func=functools.partial(_pod_label, names),
                   help=_("Remove an element to restore it."), wrap=True)
    _typed_caption(inside)
    gpus = {p.index + 1: p.gpus for p in mixed.fabric.pods}
    rows, notes = [], []
    for pod, result in inside_what_if(mixed, inside):
        rows.append({_("Pod"): _("pod {pod}").format(pod=pod) + f" ({numbers[pod]})",
                     _("GPUs cut off"): _("{lost} of {gpus}").format(lost=i18n.number(result.gpus_disconnected),
                                                                    gpus=i18n.number(gpus[pod])),
                     _("GPUs degraded"): i18n.number(result.degraded_gpus)})
        notes += [_("{label}: {note}").format(label=_("pod {pod}").format(pod=pod), note=note) for note in result.notes]
    tables.show_turned(rows, _("Pod"))
    for note in notes:
        st.caption(safe.md(note))
    st.caption(_("Each pod's own what-if (the pod's plan alone: below its leaves nothing is shared); the table of "
                 "every pod above does not add these."))


def _pods_spine_load(cur) -> None:
    """A design with pods: uniform traffic over the shared spines, per pod (pods on three tiers: over each pod's
    spines and the shared cores; ``core.analysis.podload``)."""
    try:
        mixed = design_mixed(cur.plan.design)
    except FabricPlannerError:
        return
    three = mixed.fabric.tiers == 3
    with st.expander(_("Uniform traffic over the pods' spines and the shared cores, every pod (expected values)")
                     if three else _("Uniform traffic over the shared spines, every pod (expected values)")):
        _pods_spine_table(cur, mixed)
        if three:
            _pods_core_table(cur, mixed)


def _pods_spine_table(cur, mixed) -> None:
    """The table and caption of ``_pods_spine_load``."""
    st.dataframe([{_("Pod"): _("pod {pod}").format(pod=p.pod) + f" ({p.system})",
                   _("Up, busiest leaf (1 dir)"): units.bandwidth(p.up_gbps, cur.unit),
                   _("Down, busiest leaf (1 dir)"): units.bandwidth(p.down_gbps, cur.unit),
                   _("Leaf uplinks (1 dir)"): units.bandwidth(p.capacity_gbps, cur.unit),
                   _("Utilization"): units.percent(p.utilization)} for p in pods_spine_load(mixed)],
                 hide_index=True, width="stretch")
    st.caption(_("Every GPU sends at line rate, spread evenly over every other GPU of every pod; traffic leaving "
                 "its scalable unit crosses its leaves' uplinks to the shared spines, spread evenly (adaptive "
                 "routing, expected values). A pod of faster servers sends more into a slower pod than it gets "
                 "back.") if mixed.fabric.tiers != 3 else
               _("Every GPU sends at line rate, spread evenly over every other GPU of every pod; traffic leaving "
                 "its scalable unit crosses its leaves' uplinks to its pod's spines, spread evenly (adaptive "
                 "routing, expected values). A pod of faster servers sends more into a slower pod than it gets "
                 "back."))


def _pods_core_table(cur, mixed) -> None:
    """Pods on three tiers: each pod's spines' core uplinks under the uniform traffic (``pods_core_load``)."""
    st.dataframe([{_("Pod"): _("pod {pod}").format(pod=p.pod) + f" ({p.system})",
                   _("Up, each spine (1 dir)"): units.bandwidth(p.up_gbps, cur.unit),
                   _("Down, each spine (1 dir)"): units.bandwidth(p.down_gbps, cur.unit),
                   _("Spine uplinks to the cores (1 dir)"): units.bandwidth(p.capacity_gbps, cur.unit),
                   _("Utilization"): units.percent(p.utilization)} for p in pods_core_load(mixed)],
                 hide_index=True, width="stretch")
    st.caption(_("Traffic between pods climbs each pod's spines, spread evenly over them and over each spine's "
                 "uplinks to the cores of its group, and comes down the other pod's spines the same way."))


def _spof_section(cur, key: str, lang: str) -> None:
    finished, result = cache.outcome("spof", jobwork.single_points, key)
    if not finished:
        return
    scheme = _scheme(cur.plan)  # the exports' names under the link's naming (pods: the whole fabric's)
    names = failure_namer(cur.plan, scheme)
    table, notes = cache.spof_table(key, lang, result, cur.plan.resolved.system, cur.plan.fabric.family, names,
                                    scheme.model_dump_json() if scheme else "")
    if table.empty:
        st.success(spof_headline(0))
    else:
        st.markdown(spof_headline(len(table), f"**{i18n.number(len(table))}**"))  # the review pack's line
        st.dataframe(tables.money(table, [_("remedy capex [USD]")]), hide_index=True, width="stretch",
                     height=cache.table_height(len(table)), column_config={
            _("GPUs lost"): st.column_config.NumberColumn(format="localized"),
            _("remedy capex [USD]"): tables.money_column(_("remedy capex [USD]")),
            _("remedy"): st.column_config.TextColumn(width="large")})
    st.caption(_("Every element whose loss alone cuts GPUs off or splits the cluster, with the GPUs lost and a "
                 "remedy priced from the catalog (the {fabric} capex it adds).").format(fabric=vocab.compute_fabric()))
    for note in notes:
        st.caption(safe.md(note))


def _availability_section(cur, store: dict, key: str, lang: str) -> None:
    plan = cur.plan
    mixed = design_mixed(plan.design) if plan.design.pods else None
    gpus = sum(p.gpus for p in mixed.fabric.pods) if mixed is not None else plan.resolved.gpus
    ss = st.session_state
    ss[W + "jg"] = min(int(store["jg"]), gpus)
    c1, c2 = st.columns([1, 2])
    c1.number_input(_("GPUs the job needs (0 = all)"), min_value=0, max_value=gpus, step=plan.resolved.gpus_per_node,
                    key=W + "jg", on_change=_on_value, args=("jg",),
                    help=_("The job runs while at least this many GPUs are healthy and reachable."))
    trials = cache.trials_for(gpus)
    c2.caption(_("Monte Carlo over the fabric graph, {trials} trials, seed 0; failure rates from the catalog, "
                 "editable below.").format(trials=i18n.number(trials)))
    defaults = avail.default_rates()
    shown_rates = avail.rates_with(rl.rate_overrides(store["rate"]))  # a link's rate moves with its parts'
    with st.expander(_("Failure rates"), expanded=False):
        for name in avail.CLASSES + tuple(c for c in defaults if c not in avail.CLASSES):
            rate = defaults[name]
            r1, r2, r3 = st.columns([1, 1, 3])
            for col, field, label, step in ((r1, "afr", _("{name}: failures per year").format(name=cache.class_label(name)), 0.001),
                                             (r2, "mttr_hours", _("{name}: repair [h]").format(
                                                 name=cache.class_label(name)), 1.0)):
                ss[W + f"{field}_{name}"] = float(getattr(shown_rates[name], field))
                col.number_input(label, min_value=0.0, max_value=1e6, step=step, format="%.3g" if field == "afr"
                                 else "%.1f", key=W + f"{field}_{name}", on_change=_on_rate, args=(name, field))
            default = _("{afr} failures per year, repaired in {mttr} h by default").format(
                afr=units.number(rate.afr), mttr=f"{rate.mttr_hours:g}")
            r3.caption(i18n.sentences(i18n.as_sentence(default), _(
                "A link is its two transceivers and its cable: changing their rates changes the link's, unless the "
                "link's own rate is changed.")) if name == "link" else default)
    if mixed is not None:
        _pods_availability(cur, store, key)
        return
    finished, result = cache.availability(key, int(store["jg"]), tuple(store["rate"]), gpus)
    if not finished:
        return
    m = st.columns(4)
    _job_can_run(m[0], result)
    m[1].metric(_("GPUs usable (expected)"), i18n.number(result.expected_gpus_usable, 1))  # as the pack's table
    m[2].metric(_("Expected bandwidth"), units.percent(result.expected_bandwidth_share),
                help=_("Expected share of the fabric's uplink bandwidth alive; bisection {now} of {healthy} "
                       "(one direction)").format(
                    now=units.bandwidth(from_tbits(result.expected_bisection_tbits_one_direction), cur.unit),
                    healthy=units.bandwidth(from_tbits(result.healthy_bisection_tbits_one_direction), cur.unit)))
    m[3].metric(_("Interruptions per day"), units.number(result.interruptions_per_day),
                help=_("Failures per day over every element of the cluster"))
    rows = [{_("element class"): cache.class_label(name), _("elements"): result.elements.get(name, 0),
             _("expected down"): avail.expected_down_text(result, name),  # significant figures, as the CLI
             _("failures per year"): units.number(result.rates[name]["afr"]), _("repair [h]"): result.rates[name]["mttr_hours"],
             _("unavailability"): units.percent(result.rates[name]["unavailability"])} for name in result.expected_down]
    st.dataframe(rows, hide_index=True, width="stretch", column_config={
        _("elements"): st.column_config.NumberColumn(format="localized"),  # 4,096 links, as on every page
        _("expected down"): st.column_config.TextColumn(alignment="right")})  # a number's text: as the numbers
    for note in result.notes:  # what is left out: a cloud provider's links and switches, a second NVLink level
        st.caption(safe.md(note))
    st.caption(_("Expected GPUs cut off {cut:,.1f}, degraded {deg:,.1f}; nodes to hold back so the job runs 99% of "
                 "the time: {spare}.").format(cut=result.expected_gpus_cut_off, deg=result.expected_gpus_degraded,
                                              spare=i18n.number(result.spare_nodes_for_99pct)))
    st.caption(_("Method: each element is down with its steady-state probability `q = r / (1 + r)`, `r = AFR x MTTR / "
                 "8760`, independently; the expected elements down in closed form; the job's run fraction and the "
                 "bandwidth by a seeded Monte Carlo over nodes, NICs, links and switches (the Binomial closed form "
                 "when no shared switch can fail). Rates and their sources: the catalog's failure rates, in the "
                 "table above."))


def _job_can_run(col, result) -> None:
    """The availability's first card: the share of time the job's GPUs are healthy and reachable (a design's or
    every pod's result)."""
    col.metric(_("Job can run"), units.percent(result.job_run_fraction),
               help=_("Fraction of time at least {gpus} GPUs are healthy and reachable (± {err})").format(
                   gpus=i18n.number(result.job_gpus), err=units.percent(result.job_run_fraction_stderr)))


def _pods_availability(cur, store: dict, key: str) -> None:
    """A design with pods: the availability over the whole fabric, per pod and in total
    (``core.analysis.podavail``)."""
    finished, result = cache.pods_availability(key, int(store["jg"]), tuple(store["rate"]))
    if not finished:
        return
    m = st.columns(3)
    _job_can_run(m[0], result)
    m[1].metric(_("GPUs usable (expected)"), i18n.number(result.expected_gpus_available, 1))
    m[2].metric(_("GPUs"), i18n.number(result.gpus))
    st.dataframe([{_("Pod"): _("pod {pod}").format(pod=p.pod) + f" ({p.system})", _("GPUs"): i18n.number(p.gpus),
                   _("GPUs usable (expected)"): i18n.number(p.expected_gpus_available, 1),
                   _("GPUs cut off (expected)"): i18n.number(p.expected_gpus_cut_off, 1),
                   _("Every GPU usable"): units.percent(p.all_available_fraction)} for p in result.pods],
                 hide_index=True, width="stretch")
    from core.analysis.podavail import method_note

    st.caption(_(method_note(result)))


def _spares_section(cur, store: dict, key: str, lang: str) -> None:
    ss = st.session_state
    st.caption(_("A sparing policy per BOM category: a percentage of the installed count (rounded up) or N+k (k per "
                 "model and tier). Defaults from the catalog's sparing policy."))
    # the design's own policy (Design.spares, the Designer's Cost & power tab) is the starting point: a rule not
    # set on this page and left at the catalog default by the rs_sp_ keys takes the design's
    design_rules = sparing.design_policy(cur.plan)
    edited = ss.get(SP_EDITED, set())
    if design_rules:
        st.caption(_("Starting point: the design's sparing policy ({policy}), set on the Designer's Cost & power "
                     "tab, whose spares are already in the design's capex; a rule changed here applies on this "
                     "page only.").format(policy=policy_words(cur.design.spares)))
    effective = {}
    for key_, category in rl.SPARE_KEYS.items():
        rule = store["sp_" + key_]
        own = key_ in edited or rule != rl.DEFAULTS["sp_" + key_]
        effective[key_] = design_rules[category] if design_rules and not own else rule
    cols = st.columns(5)
    labels = {"switch": _("Switches"), "transceiver": _("Transceivers"), "cable": _("Cables"), "nic": _("NICs")}
    for col, key_ in zip(cols, rl.SPARE_KEYS):
        ss[W + "sp_" + key_] = effective[key_]
        col.text_input(labels[key_], key=W + "sp_" + key_, max_chars=12, on_change=_on_rule, args=(key_,),
                       help=_("e.g. 2% or N+1"))
    ss[W + "lead"] = int(store["lead"])
    cols[4].number_input(_("Restock lead time [days]"), min_value=1, max_value=3650, step=1, key=W + "lead",
                         on_change=_on_value, args=("lead",))
    problem = ss.pop(NOTICE + "_sp", None)
    if problem:
        st.error(problem)
    policy = tuple(sorted(rl.policy({**store, **{"sp_" + k: v for k, v in effective.items()}}).items()))
    result, table = cache.spares(key, policy, int(store["lead"]), tuple(store["rate"]), lang)
    # the Designer's wrapping cards: a metric column cut "42.13万美元" to "42.13万..." at 1,024 px
    st.markdown(cards_html([
        KeyNumber("capex_without_spares", _("Capex without spares"), i18n.usd(result.capex_usd), ""),
        KeyNumber("spares", _("Spares"), i18n.usd(result.spares_capex_usd), ""),
        KeyNumber("capex_with_spares", _("Capex with spares"), i18n.usd(result.capex_with_spares_usd),
                  _("Range {range} (catalog price ranges)").format(range=units.money_range(
                      result.capex_with_spares_usd_low, result.capex_with_spares_usd_high)))]),
        unsafe_allow_html=True)
    st.dataframe(tables.money(table, [_("unit price [USD]"), _("spares price [USD]")]), hide_index=True,
                 width="stretch", height=cache.table_height(len(table)), column_config={
        _("item"): st.column_config.TextColumn(width="medium"),
        _("installed"): st.column_config.NumberColumn(format="localized"),
        _("spares"): st.column_config.NumberColumn(format="localized"),
        _("unit price [USD]"): tables.money_column(_("unit price [USD]")),
        _("spares price [USD]"): tables.money_column(_("spares price [USD]")),
        _("coverage in lead time"): st.column_config.TextColumn(alignment="right", help=_(
            "Poisson probability that the failures during the lead time do not exceed the spares")),
        _("why"): st.column_config.TextColumn(width="large")})


def _load_section(cur, store: dict, key: str, lang: str) -> None:
    ss = st.session_state
    plan = cur.plan
    mixed = mixed_of(plan)  # a design with pods: the pattern over every pod's GPUs
    gpus = mixed.fabric.gpus if mixed is not None else plan.resolved.gpus
    store["grp"] = min(int(store["grp"]), gpus)
    for name in ("pat", "pl", "grp", "gr"):
        ss[W + name] = store[name]
    c1, c2, c3, c4 = st.columns([1.6, 1.6, 1, 1.2])
    c1.selectbox(_("Traffic pattern"), list(load.PATTERNS), key=W + "pat", on_change=_on_value, args=("pat",),
                 format_func=lambda k: _(load.PATTERN_LABELS[k]),
                 help=_("The job's mix weights each fabric collective of the Performance page's job by its bytes "
                        "per step. Adversarial: every GPU sends to the same GPU one group further (Kim et al.'s worst "
                        "case for a Dragonfly, group i to group i + 1)."))
    c2.selectbox(_("Rank placement"), list(load.PLACEMENTS), key=W + "pl", on_change=_on_value, args=("pl",),
                 format_func=lambda k: _(load.PLACEMENT_LABELS[k]),
                 help=_("By node: ranks fill nodes in order, each GPU sends on its own NIC. Rail-aligned: the same "
                        "ranks, NCCL's PXN sends on the receiver's rail. Random: the job's nodes drawn at random."))
    # the label short enough for its quarter of the row at 1,024 px ("Group size (0 = default)" took two lines and
    # pushed its box below its neighbours'); what 0 means is the help's first words
    c3.number_input(_("Group size"), min_value=0, max_value=gpus, step=1, key=W + "grp",
                    on_change=_on_value, args=("grp",),
                    help=_("0: the pattern's default. GPUs of a data-parallel group (ring, tree; default all nodes), "
                           "an expert-parallel group (all-to-all; default 8, a node apart), pipeline stages (default 4) "
                           "or the GPUs one group sends to the next (adversarial; default a Dragonfly group or pod, "
                           "else a scalable unit). A group too large to space a node apart is spaced one GPU apart: "
                           "every GPU for a ring or an all-to-all over every GPU."))
    routing = c4.radio(_("Heatmap"), ["ecmp", "ar"], key=W + "hm", horizontal=True,
                       format_func=lambda k: _(load.ROUTING_LABELS[k]))
    groups = global_groups(plan.fabric.family) and plan.fabric.pod_count > 1
    if groups:
        st.radio(_("Routing between groups"), list(load.GLOBAL_ROUTINGS), key=W + "gr", horizontal=True,
                 on_change=_on_value, args=("gr",), format_func=lambda k: _(load.GLOBAL_ROUTING_LABELS[k]),
                 help=_("Minimal: over the direct global links of each pair of groups. Valiant: through an "
                        "intermediate group, every other group alike (twice the global links, evenly spread)."))
    gr = store["gr"] if groups else "minimal"
    settings_json = _settings_json() if store["pat"] == "job" else None
    finished, result = cache.load_result(key, store["pat"], store["pl"], int(store["grp"]), settings_json, gr)
    if not finished:
        return
    if result.ar is None:
        for note in result.notes:
            st.info(safe.md(note))
        return
    line, unit = result.nic_gbps_per_gpu, cur.unit
    bw = functools.partial(units.bandwidth, unit=unit)
    m = st.columns(4)
    m[0].metric(_("Per-GPU min, adaptive"), bw(result.ar.min),
                help=_("median {median}, max {max}").format(median=bw(result.ar.median), max=bw(result.ar.max)))
    m[1].metric(_("Per-GPU min, ECMP"), bw(result.ecmp.min),
                help=_("median {median}, max {max}").format(median=bw(result.ecmp.median), max=bw(result.ecmp.max)))
    pods = getattr(result, "pods", ())  # a design with pods: each pod's line rate, its own spread below
    m[2].metric(_("Median, ECMP"), bw(result.ecmp.median),
                delta=None if pods else _delta(result.ecmp.median - line, unit),
                help=_("NIC line rate per GPU: {line} (one direction)").format(
                    line=" / ".join(bw(p["nic_gbps_per_gpu"]) for p in pods) if pods else bw(line)))
    m[3].metric(_("Flows"), i18n.number(result.flows),
                help=_("{per} per connection (NCCL channels); {gpus} GPUs use the fabric").format(
                    per=result.flows_per_connection, gpus=i18n.number(result.gpus_on_fabric)))
    heat, hist = cache.load_figures(key, store["pat"], store["pl"], int(store["grp"]), settings_json, routing, lang,
                                    unit, result, gr, cur.plan.fabric.family)
    h1, h2 = st.columns(2)
    charts.chart(heat, "half", h1, key="rs_heat", config=CONFIG)
    charts.chart(hist, "half", h2, key="rs_hist", config=CONFIG)
    if pods:
        _pods_spread(pods, bw)
    tiers = cache.tier_table(result, unit, cur.plan.fabric.family)
    tables.show_wide(tiers, hide_index=True, width="stretch", column_config=cache.tier_columns())  # scrolls: says it
    if result.hot_links:
        st.markdown("##### " + _("Hottest links (static ECMP)"))
        names = link_names(plan, [h["link"] for h in result.hot_links],
                           scheme_of(st.session_state.get(state.NAMING_STORE), plan))  # as the exports name them
        st.dataframe({_("link"): names,
                      _("load, ECMP"): [units.percent(h["ecmp_util"]) for h in result.hot_links],
                      _("flows, ECMP"): [h["ecmp_flows"] for h in result.hot_links],
                      _("load, adaptive"): [units.percent(h["ar_util"]) for h in result.hot_links]}, hide_index=True,
                     width="stretch", column_config={c: st.column_config.TextColumn(alignment="right")  # as numbers
                                                     for c in (_("load, ECMP"), _("load, adaptive"))})
        st.caption(_("Paste a link into the failure what-if's element names to fail that cable (or the server's "
                     "NIC)."))
    if result.mix:
        st.caption(_("Job mix: {parts}").format(parts=", ".join(
            f"{m_['kind']} {units.percent(m_['weight'])}" for m_ in result.mix)))
    for note in result.notes:
        st.info(safe.md(note))
    st.caption(load.method_caption(plan.fabric.family))
    if mixed is not None:
        _pods_spine_load(cur)


def _pods_spread(pods: tuple[dict, ...], bw) -> None:
    """A design with pods: per pod its GPUs on the fabric, NIC line rate and per-GPU bandwidth spread (``bw``: a
    bandwidth [Gb/s] as text in the page's unit)."""
    def cell(spread, key):
        return bw(spread[key]) if spread else "—"

    tables.show_turned([{_("Pod"): _("pod {pod}").format(pod=p["pod"]) + f" ({p['system']})",  # a column per pod:
                         _("GPUs on the fabric"): i18n.number(p["gpus_on_fabric"]),  # six across scrolled at 1,024
                         _("NIC line rate per GPU"): bw(p["nic_gbps_per_gpu"]),
                         _("Per-GPU min, adaptive"): cell(p["adaptive"], "min"),
                         _("Per-GPU min, ECMP"): cell(p["ecmp"], "min"),
                         _("Median, ECMP"): cell(p["ecmp"], "median")} for p in pods], _("Pod"))


def main() -> None:
    """The page, top to bottom; returns early (instead of st.stop) so app.py can still draw the share box."""
    st.title(_("Resilience"))
    ss = st.session_state
    cur = ss.get("fp_current")
    if cur is None:
        return
    state.show_warnings(cur)
    store = _store()
    if cur.plan is None:
        state.show_error(cur)
        state.set_page_link(PAGE_PATH, rl.encode(store))
        return
    plan = cur.plan
    key = cur.design.model_dump_json()
    lang = i18n.locale()  # the cache key: language and currency
    jobstate.init(pagestate.link_params())
    jobstate.fit(plan)
    # link warnings (said again in the language shown) and failed elements this design does not have
    good, problems = _check_failures(plan, store)
    if problems:
        ss["fp_rs_dropped"] = problems
    LINK.show_warnings(_("Some values in the Resilience link were not applied; the rest is shown."),
                       extra=ss.get("fp_rs_dropped") or [], dismiss_key=W + "dismiss",
                       on_dismiss=lambda: ss.__setitem__("fp_rs_dropped", []))

    st.caption(after_full_width(_(  # no space after a full-width bracket, as the Designer's subtitle
        "{size} · what happens when elements fail, what single element cuts GPUs off, how often a job can run, which "
        "spares to stock, and where traffic overloads links.").format(size=size_caption(whole_plan(plan)))))

    clicked = ss.get(W + "tab")
    if clicked:
        for tab in rl.TABS:
            if clicked == _(tab) or clicked == tab:
                store["tab"] = tab
    ss[W + "tab"] = _(store["tab"])
    tabs = st.tabs([_(t) for t in rl.TABS], key=W + "tab", on_change="rerun")
    # the failure what-if works on every family; single points, availability and link load on the families whose
    # module lists them (both Dragonflies: their graphs, local and global links); the spares on those whose bill
    # the sparing reads row by row (BOM_MODELS)
    sections = (lambda: _failure_section(cur, store, key, lang),
                lambda: _clos_only(plan, _("The single-point-of-failure analysis"), "spof")
                or _spof_section(cur, key, lang),
                lambda: _clos_only(plan, _("The availability model"), "availability")
                or _availability_section(cur, store, key, lang),
                lambda: _clos_only(plan, _("The spares analysis"), "spares") or _spares_section(cur, store, key, lang),
                lambda: _clos_only(plan, _("The link-load analysis"), "load") or _load_section(cur, store, key, lang))
    pod_one = (_("A design with pods: this section analyses pod 1 ({system}) alone; the single points of failure, "
                 "the availability and the spares cover every pod under the shared spines.").format(system=plan.resolved.system.id)
               if plan.design.pods else None)
    for index, (tab, draw) in enumerate(zip(tabs, sections)):
        with tab:
            if tab.open:
                if pod_one and index == 0:  # the whole fabric's what-if only: pod 1 alone has spines not bought
                    _pods_whole_fabric(cur, store)
                    continue
                if pod_one and index and rl.TABS[index] not in WHOLE_FABRIC_TABS:  # the what-if: alone_note
                    st.info(pod_one)
                draw()
    state.set_page_link(PAGE_PATH, rl.encode(_link_values(plan, store)))  # webui.state.canonical_params: the link


main()
