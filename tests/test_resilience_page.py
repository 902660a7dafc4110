"""AppTest of the Resilience page (pages/6_Resilience.py) inside the app: failures by the form and from the link
(``rs_fail`` round trip), bad ``rs_`` values warned, the SPOF table, availability, spares, overload & imbalance,
both languages on every section; and the link codec (core.formats.resiliencelink)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from core.formats import resiliencelink as rl
from tests import pagetest
from tests.i18n_check import chinese_leaks
from tests.test_i18n import english_leaks, page_text, rerun

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
PAGE = "../pages/6_Resilience.py"
DESIGN = {"n": "64", "sw": "QM9700"}
TOR = {"n": "16", "t": "tor", "npr": "2", "os": "3"}


open_page = pagetest.opener(PAGE)  # the app opened from a link, then this page (tests/pagetest.py)


def link(at: AppTest) -> dict:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in ((k, at.query_params[k]) for k in at.query_params)}


def share(at: AppTest) -> str:
    return at.sidebar.code[0].value


def test_failures_from_the_link_show_the_failed_design_and_stay_in_the_link():
    at = open_page({**DESIGN, "rs_fail": "p0.spine3,leaf:1"})
    assert at.multiselect(key="rs_w_failed").value == ["p0.spine3", "leaf:1"]
    labels = {m.label: m.value for m in at.metric}
    assert labels["GPUs degraded"] == "32" and labels["Bisection (1 dir)"].endswith(" TB/s")  # the link's unit
    assert len(at.get("plotly_chart")) == 2  # the topology with crosses and healthy vs failed
    frame = at.dataframe[0].value
    assert "healthy" in frame.columns and "failed" in frame.columns
    assert link(at)["rs_fail"] == "spine004,leaf:1"  # an old link's id written as the chip names it (left48)
    assert "/resilience?" in share(at) and "rs_fail=spine004%2Cleaf%3A1" in share(at)


def test_the_form_fails_a_tier_count_and_names_and_restores_them():
    at = open_page(DESIGN)
    assert at.info and "Nothing has failed" in at.info[0].value
    at.selectbox(key="rs_w_tier").set_value("spine")
    at.number_input(key="rs_w_count").set_value(2)
    at.button(key="rs_w_add_count").click()
    rerun(at)
    assert link(at)["rs_fail"] == "spine:2"
    chosen = next(c.value for c in at.caption if c.value.startswith("Chosen where it hurts most"))
    assert chosen == "Chosen where it hurts most: 2 x spine (spine001, spine002)"  # the exports' names (leftnames)
    at.text_input(key="rs_w_names").set_value("p0.leaf1, NODE5.NIC2")
    at.button(key="rs_w_add_names").click()
    rerun(at)
    assert link(at)["rs_fail"] == "spine:2,leaf002,gpu006 nic3"
    at.text_input(key="rs_w_names").set_value("p7.spine0")  # no plane 7: an error, the rest stays
    at.button(key="rs_w_add_names").click()
    rerun(at)
    assert at.error and "unknown element" in at.error[0].value
    assert link(at)["rs_fail"] == "spine:2,leaf002,gpu006 nic3"
    at.button(key="rs_w_clear").click()
    rerun(at)
    assert "rs_fail" not in link(at)


def _captions(at) -> str:
    """The page's captions as read (Markdown escapes undone): a typed hot link's element is written under its chip."""
    return " ".join(c.value for c in at.caption).replace("\\", "")


def test_a_hot_link_pasted_into_the_names_fails_that_cable():
    """The Overload & imbalance section's hottest link (the exports' names, 1-based) typed into the element names:
    its cable under the what-if's ids; a name that is no link is refused, escaped, and the rest applies."""
    at = open_page(DESIGN)
    at.text_input(key="rs_w_names").set_value("leaf002 -> spine003 #1, gpu006 nic3 -> leaf003, leaf999 -> x, "
                                              "leaf002 -> spine003 #9")
    at.button(key="rs_w_add_names").click()
    rerun(at)
    assert link(at)["rs_fail"] == "leaf002 -> spine003 #1,gpu006 nic3 -> leaf003"  # as typed (rs_fail's docstring)
    assert at.multiselect(key="rs_w_failed").options == [  # chips as typed, the element under them in brackets
        "leaf002 -> spine003 #1", "gpu006 nic3 -> leaf003"]
    assert "leaf002 -> spine003 #1 (p0.leaf1-spine2#0); gpu006 nic3 -> leaf003 (node5.nic2)" in _captions(at)
    assert at.error and "leaf999" in at.error[0].value and "is not a link of this design" in at.error[0].value
    shown = at.error[1].value.replace("\\", "")  # a cable past the bundle: as typed, in the names' numbering
    assert "leaf002 -> spine003 #9" in shown and "the bundle has 4 cables, #1 to #4" in shown and "p0." not in shown
    pods = open_page({**DESIGN, "pods": "B200:32:800"})  # pods: a cable of pod 2's leaf on the whole fabric, a NIC
    pods.text_input(key="rs_w_inside_names").set_value("spine002 #2 -> pod2-leaf001, pod2-gpu004 nic1 -> pod2-leaf001")
    pods.button(key="rs_w_inside_add").click()
    rerun(pods)
    assert not pods.error and not pods.exception
    assert link(pods)["rs_fail"].split(",") == ["spine002 #2 -> pod2-leaf001", "pod2-gpu004 nic1 -> pod2-leaf001"]
    assert "pod2.p0.leaf0-spine1#1" in pods.multiselect(key="rs_w_pods_failed").value


def test_a_reopened_link_shows_the_hot_links_as_typed():
    """The share link keeps a typed hot link as typed (``rs_fail``), so the link opened again shows what the user
    typed, its element in brackets, and fails the same elements; under another naming (the link's ``nm_np``/``nm_sp``/
    ``nd``) the names are the exports' of that naming; a hot link the design does not have is warned, the rest
    applies."""
    at = open_page(DESIGN)
    at.text_input(key="rs_w_names").set_value("spine003 -> leaf002 #1, p0.spine1, gpu006 nic3 -> leaf003")
    at.button(key="rs_w_add_names").click()
    rerun(at)
    typed = ["spine003 -> leaf002 #1", "spine002", "gpu006 nic3 -> leaf003"]  # an id's chip: its export name
    assert at.multiselect(key="rs_w_failed").options == typed
    brackets = "spine003 -> leaf002 #1 (p0.leaf1-spine2#0); gpu006 nic3 -> leaf003 (node5.nic2)"
    assert brackets in _captions(at)
    again = open_page(link(at))
    assert not again.warning, [w.value for w in again.warning]
    assert again.multiselect(key="rs_w_failed").options == typed and brackets in _captions(again)  # not the ids
    assert again.multiselect(key="rs_w_failed").value == ["p0.leaf1-spine2#0", "p0.spine1", "node5.nic2"]
    assert link(again)["rs_fail"] == link(at)["rs_fail"] == "spine003 -> leaf002 #1,spine002,gpu006 nic3 -> leaf003"
    assert {m.label: m.value for m in again.metric} == {m.label: m.value for m in at.metric}
    named = open_page({**DESIGN, "nm_np": "srv", "nm_sp": "ib-", "rs_fail": "ib-spine003 -> ib-leaf002 #1,Leaf002 -> x"})
    assert named.multiselect(key="rs_w_failed").options == ["ib-spine003 -> ib-leaf002 #1"]
    assert "ib-spine003 -> ib-leaf002 #1 (p0.leaf1-spine2#0)" in _captions(named)
    warned = "\n".join(w.value for w in named.warning).replace("\\", "")
    assert "Leaf002 -> x" in warned and "is not a link of this design" in warned
    pods = open_page({**DESIGN, "pods": "B200:32:800", "rs_fail": "spine002 #2 -> pod2-leaf001,"
                                                                  "pod2-gpu004 nic1 -> pod2-leaf001"})
    assert "pod2.p0.leaf0-spine1#1" in pods.multiselect(key="rs_w_pods_failed").value
    assert "spine002 #2 -> pod2-leaf001" in pods.multiselect(key="rs_w_pods_failed").options
    assert pods.multiselect(key="rs_w_inside_failed").options == ["pod2-gpu004 nic1 -> pod2-leaf001"]
    assert "spine002 #2 -> pod2-leaf001 (pod2.p0.leaf0-spine1#1)" in _captions(pods)
    assert "pod2-gpu004 nic1 -> pod2-leaf001 (pod2.node3.nic0)" in _captions(pods)
    assert link(pods)["rs_fail"].split(",") == ["spine002 #2 -> pod2-leaf001", "pod2-gpu004 nic1 -> pod2-leaf001"]


def test_bad_rs_values_are_warned_escaped_and_the_rest_applies():
    at = open_page({**DESIGN, "rs_fail": "p0.spine1,<b>x</b>,p9.spine0", "rs_sp_switch": "lots", "rs_zz": "1",
                    "rs_pat": "nope"})
    text = "\n".join(w.value for w in at.warning)
    assert "Resilience link" in text
    assert "rs\\_zz" in text and "rs\\_sp\\_switch" in text and "rs\\_pat" in text
    assert "\\<b\\>x\\<\\/b\\>" in text and "<b>" not in text.replace("\\<b\\>", "")  # escaped, never markup
    assert "p9.spine0" in text.replace("\\", "")
    assert at.multiselect(key="rs_w_failed").value == ["p0.spine1"]
    params = link(at)
    assert params["rs_fail"] == "spine002" and "rs_zz" not in params and "rs_sp_switch" not in params


def test_spof_table_lists_every_tor_with_its_remedy():
    at = open_page({**TOR, "rs_tab": "Single points of failure"})
    from core.analysis.spof import single_points
    from core.formats.sharelink import decode
    from core.plan import plan

    frame = at.dataframe[0].value
    engine = single_points(plan(decode(TOR)[0]))
    # the exports' names, the engine id in brackets (review 45, 2.4)
    assert [e.rsplit(" (", 1)[-1].rstrip(")") for e in frame["element"]] == [e.element for e in engine.elements]
    assert frame["element"].iloc[0] == "leaf001 (p0.leaf0)"
    leaves = frame[frame["tier"] == "leaf"]
    assert len(leaves) == 8 and (leaves["GPUs lost"] == 16).all()  # one ToR per rack of 2 nodes
    assert frame["remedy capex [USD]"].notna().all() and "dual-ToR" in leaves["remedy"].iloc[0]


def test_availability_rates_are_editable_and_in_the_link():
    at = open_page({**DESIGN, "rs_tab": "Availability"})
    before = {m.label: m.value for m in at.metric}["Job can run"]
    at.number_input(key="rs_w_afr_gpu_node").set_value(0.0)
    rerun(at)
    assert link(at)["rs_rate"] == "gpu_node.afr=0"
    after = {m.label: m.value for m in at.metric}["Job can run"]
    assert after != before
    at2 = open_page({**DESIGN, "rs_tab": "Availability", "rs_rate": "gpu_node.afr=0", "rs_jg": "256"})
    assert at2.number_input(key="rs_w_afr_gpu_node").value == 0.0
    assert at2.number_input(key="rs_w_jg").value == 256


def test_availability_counts_have_thousands_separators():
    """The availability and link-load tables wrote 4096 links, every other table and card 4,096."""
    at = open_page({**DESIGN, "rs_tab": "Availability"})
    table = next(d for d in at.dataframe if "elements" in d.value.columns)
    config = json.loads(table.proto.columns or "{}")
    assert config["elements"]["type_config"]["format"] == "localized"
    at = open_page({**DESIGN, "rs_tab": "Overload & imbalance"})
    table = next(d for d in at.dataframe if "links" in d.value.columns)
    assert json.loads(table.proto.columns or "{}")["links"]["type_config"]["format"] == "localized"


def test_spares_policy_changes_rows_and_capex_and_goes_in_the_link():
    at = open_page({**DESIGN, "rs_tab": "Spares"})
    frame = at.dataframe[0].value
    assert "why" in frame.columns and frame["why"].str.contains("sparing policy").all()
    switches = frame[frame["category"] == "switch"]["spares"].sum()
    at.text_input(key="rs_w_sp_switch").set_value("n+2")
    rerun(at)
    assert link(at)["rs_sp_switch"] == "N+2"
    frame = at.dataframe[0].value
    assert frame[frame["category"] == "switch"]["spares"].sum() == 2 * switches
    at.text_input(key="rs_w_sp_switch").set_value("many")
    rerun(at)
    assert at.error and link(at)["rs_sp_switch"] == "N+2"


def test_overload_section_pattern_in_the_link():
    at = open_page({**DESIGN, "rs_tab": "Overload & imbalance", "rs_pat": "uniform", "rs_pl": "node"})
    labels = {m.label: m.value for m in at.metric}
    assert labels["Per-GPU min, ECMP"].endswith(" GB/s")  # the unit of the link (ui_bw, GB/s by default)
    assert len(at.get("plotly_chart")) == 2 and len(at.dataframe) == 2
    at.selectbox(key="rs_w_pat").set_value("alltoall")
    rerun(at)
    assert link(at)["rs_pat"] == "alltoall" and link(at)["rs_tab"] == "Overload & imbalance"


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("tab", rl.TABS)
def test_each_section_speaks_one_language(lang, tab):
    design = TOR if tab == "Single points of failure" else DESIGN
    at = open_page({**design, "lang": lang, "rs_tab": tab, "rs_fail": "p0.leaf1,leaf:1",
                    **({"rs_pat": "uniform"} if tab.startswith("Overload") else {})})
    text = page_text(SimpleNamespace(_tree=at.main))  # the page itself (the sidebar is other helpers' work)
    assert len(text) > 200
    leaks = english_leaks(text) if lang == "zh" else chinese_leaks(text)
    assert not leaks, f"{lang} {tab} shows text of the other language: {leaks[:30]}"


# --- the link codec ------------------------------------------------------------------------------------
_item = st.sampled_from(["p0.spine3", "leaf:2", "p1", "node5.nic2", "rack3", "su1-rail3", "spine:1", "core:1",
                         "leaf002 -> spine003 #1", "Srv006 nic3 -> IB-leaf003", "router 2 -> router 3"])


@settings(max_examples=80, deadline=None)
@given(st.lists(_item, max_size=6, unique=True), st.sampled_from(["2%", "N+1", "0%", "N+3", "7.5%"]),
       st.sampled_from(rl.TABS), st.integers(0, 4096),
       st.lists(st.tuples(st.sampled_from(["switch", "nic", "link"]), st.sampled_from(["afr", "mttr_hours"]),
                          st.floats(0, 100, allow_nan=False).map(lambda x: round(x, 3))), max_size=3))
def test_link_round_trip(fail, rule, tab, jg, rates):
    values = dict(rl.DEFAULTS, fail=tuple(fail), sp_cable=rule, tab=tab, jg=jg,
                  rate=tuple(sorted({(n, f): v for n, f, v in rates}.items())))
    values["rate"] = tuple((n, f, v) for (n, f), v in values["rate"])
    decoded, warnings = rl.decode(rl.encode(values))
    assert not warnings
    assert decoded == values


def test_a_hot_link_is_kept_as_typed_and_checked_as_every_item():
    """``rs_fail`` keeps a hot link as typed (its case: export names may be upper case), the rest lower case; a hot
    link of other characters or two arrows is one warning, the rest applies."""
    values, warnings = rl.decode({"rs_fail": "P0.Spine1, IB-leaf002 -> spine003 #1 ,<b>a</b> -> x,a -> b -> c,"
                                             "叶交换机 4 -> 脊交换机 2"})
    assert values["fail"] == ("p0.spine1", "IB-leaf002 -> spine003 #1")
    assert len(warnings) == 3 and all("is not an element name" in w for w in warnings)
    assert "'<b>a</b> -> x'" in warnings[0]  # echoed quoted (core.errors.shown); the page escapes it (safe.md)
    assert rl.keeps_typed("gpu006 nic3 -> leaf003") and not rl.keeps_typed("叶交换机 4 -> 脊交换机 2")


def test_decode_never_raises_and_bounds_what_it_echoes():
    values, warnings = rl.decode({"rs_fail": "x" * 5000, "rs_" + "k" * 300: "1", "rs_rate": "gpu.afr=-1",
                                  "rs_lead": "0", "rs_tab": "nowhere"})
    assert values == {**rl.DEFAULTS}
    assert len(warnings) == 5 and all(len(w) < 400 for w in warnings)


@pytest.mark.parametrize("design, click", [({"t": "tr", "ng": "512"}, None), (DESIGN, "click a switch")])
def test_the_empty_state_offers_a_click_only_where_one_fails_a_switch(design, click):
    """A torus has no switch to click (its family declares no ``failure:click``): the empty state names the form
    only; a drawn Clos offers the click."""
    at = open_page(design)
    text = at.info[0].value
    assert "Nothing has failed" in text
    assert (click in text) if click else ("click" not in text)
    oversub = at.select_slider(key="w_oversub")
    assert oversub.disabled == (click is None)  # the torus greys the leaf oversubscription, as a classic Dragonfly


def test_an_aggregated_classic_dragonfly_speaks_of_routers_and_the_form():
    """4,096 GPUs of classic Dragonfly: the drawing is aggregated, so no caption offers a click; its words are its
    family's (routers, a hot link between routers), never a spine's."""
    at = open_page({"t": "dfc", "ng": "4096"})
    captions = " ".join(c.value for c in at.caption)
    assert "Fail routers, local and global link bundles, planes or NICs by the form, and compare" in captions
    assert "clicking" not in captions and "spine" not in captions
    assert "a click names a bundle of routers, so fail single routers by the form" in captions
    help_text = at.text_input(key="rs_w_names").help
    assert "(leaf002 -> leaf003)" in help_text and "spine" not in help_text


def test_failure_rates_show_three_significant_figures_and_a_part_moves_the_link():
    """review45 3.5: the rate inputs and table showed 0.0029 beside the caption's 0.00289 (format %.4f), and touching
    an input stored the rounded rate; review45 1.2: a transceiver's rate left the link's (and the availability) as
    it was. The inputs show 3 significant figures, an untouched input keeps the catalog's rate, and the link's input
    and row follow its parts (2 x transceiver + cable)."""
    at = open_page({**DESIGN, "rs_tab": "Availability"})
    nic = at.number_input(key="rs_w_afr_nic")
    assert nic.proto.format == "%.3g" and nic.value == pytest.approx(0.00289)
    table = next(d for d in at.dataframe if "failures per year" in d.value.columns).value
    rates = dict(zip(table["element class"], table["failures per year"]))
    assert "0.00289" in rates.values() and "0.00684" in rates.values() and "0.0029" not in rates.values()
    before = {m.label: m.value for m in at.metric}["Job can run"]
    at.number_input(key="rs_w_afr_transceiver").set_value(5.0)
    rerun(at)
    assert link(at)["rs_rate"] == "transceiver.afr=5"  # nothing else stored
    assert at.number_input(key="rs_w_afr_link").value == pytest.approx(10.001368)
    assert at.number_input(key="rs_w_afr_nic").value == pytest.approx(0.00289)
    assert {m.label: m.value for m in at.metric}["Job can run"] != before


def test_a_link_under_its_naming_fails_and_shows_the_names_the_page_shows():
    """rev47b #1, #9, #10: under the link's naming (``nm_sp=sw-``) the page reads the names it shows (``sw-leaf001``,
    ``pod2-sw-leaf001``) and its chip says them; a tier and a count on a design with pods fails pod 1's element as
    the CLI does (left48: it was said, not applied); the
    link's bad-item example is an export name, not an engine id."""
    named = {**DESIGN, "nm_np": "n", "nm_sp": "sw-"}
    at = open_page({**named, "rs_fail": "sw-leaf001"})
    assert not at.warning, [w.value for w in at.warning]
    failed = at.multiselect(key="rs_w_failed")
    assert failed.value == ["p0.leaf0"] and failed.options == ["sw-leaf001"]
    old = open_page({**named, "rs_fail": "leaf001"})  # a link written before: its chip in the link's names
    assert old.multiselect(key="rs_w_failed").options == ["sw-leaf001"]
    unknown = open_page({**named, "rs_fail": "sw-leaf099"})
    warned = "\n".join(w.value for w in unknown.warning).replace("\\", "")
    assert "unknown element 'sw-leaf099'" in warned and "like sw-spine002" in warned and "p0." not in warned
    pods = open_page({**named, "pods": "B300:32:800", "rs_fail": "pod2-sw-leaf001"})
    assert not pods.warning, [w.value for w in pods.warning]
    assert pods.multiselect(key="rs_w_pods_failed").value == ["pod2.p0.leaf0"]
    counted = open_page({**DESIGN, "pods": "B300:32:800", "rs_fail": "leaf:1"})  # pod 1's leaf, as the CLI (left48)
    assert not counted.warning and counted.multiselect(key="rs_w_pods_failed").value == ["pod1.p0.leaf0"]
    bad = open_page({**DESIGN, "rs_fail": "bogus:1"})  # no such tier (nvlink2:1 is one: tail47)
    warned = "\n".join(w.value for w in bad.warning).replace("\\", "")
    assert "bogus:1" in warned and "p0." not in warned and "leaf001, spine:2" in warned


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pods_element_examples_fit_their_box(lang):
    """A design with pods, failures inside one pod: the box's examples are whole names, as many as it shows at a
    1,024 px window (its four were cut mid-name at 1,280 px, "..., pod1-gpu006 nvswitc"); every kind is in its
    help."""
    from webui import tablefit, tables

    at = open_page({"v": "1", "n": "64", "pods": "B300:32:800", "lang": lang})
    box = at.text_input(key="rs_w_inside_names")
    room = tablefit.share_px([1.7, 2.5, 1], 1) - tablefit.TEXT_PADDING_PX
    assert box.placeholder.startswith("pod1-gpu006 nic3") and tables.text_px(box.placeholder) <= room, box.placeholder
    assert all(name in box.help for name in ("pod2-gpu006 nic3", "R05-02 feedA", "pod2-gpu006 nvswitch2"))
