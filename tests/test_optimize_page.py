"""The optimizer's web view (pages/7_Optimize.py) and what it shows: the search from a link, the cheapest
design and its link, the Pareto chart whose points carry their candidate, switch families with what ruled
them out (checked against a brute-force count over the candidates), the link round trip, bad link values,
an infeasible search, Chinese."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlparse

import pytest
from hypothesis import given, settings
from streamlit.testing.v1 import AppTest
from hypothesis import strategies as st

from core.analysis.optimize import Constraints, Grid, candidate_designs, design_label, families, optimize
from core.design import Design
from core.errors import InputError
from core.figures.optimize import family_rows, front_rows, pareto_figure
from core.units import alike, bandwidth
from core.formats import optimizelink, sharelink
from core.i18n import language, usd
from core.text import NO_BREAK
from core.plan import plan
from tests import pagetest
from tests.test_i18n import english_leaks, page_text, rerun

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
PAGE = "../pages/7_Optimize.py"
SMALL_GRID = Grid(oversubscription=(1.0, 2.0), planes=(1,), plane_modes=("per-port",))


@pytest.fixture(scope="module")
def search():
    return optimize("H100", 256, Constraints(max_oversubscription=1.5), SMALL_GRID, workers=1)


def test_families_cover_every_candidate_and_name_the_ruling_reason(search):
    rows = families(search.candidates)
    assert sum(r.considered for r in rows) == search.considered
    assert sum(r.feasible for r in rows) == search.feasible
    for r in rows:
        members = [c for c in search.candidates
                   if (c.design.fabric, c.design.leaf_switch, c.design.topology) == (r.fabric, r.switch, r.topology)]
        assert len(members) == r.considered
        feasible = [c for c in members if c.feasible]
        if feasible:
            assert r.cheapest.capex_usd == min(c.capex_usd for c in feasible if c.costed) and r.reason == ""
            assert all(c.capex_floor_usd > r.cheapest.capex_usd for c in feasible if c.pruned)  # dearer by its floor
        else:  # the reason that rejected most of the family, counted by hand
            counts = {}
            for c in members:
                counts[c.reason] = counts.get(c.reason, 0) + 1
            assert r.ruled_out == max(counts.values()) and r.cheapest is None and r.reason


def test_families_list_feasible_ones_cheapest_first(search):
    rows = families(search.candidates)
    capex = [r.cheapest.capex_usd for r in rows if r.cheapest]
    assert capex == sorted(capex) and rows[0].cheapest.capex_usd == search.best.capex_usd
    seen_infeasible = False
    for r in rows:
        seen_infeasible |= r.cheapest is None
        assert not (seen_infeasible and r.cheapest is not None)


def test_family_names_use_the_languages_comma(search):
    assert all(", " in r["family"] for r in family_rows(search))
    with language("zh"):
        names = [r["family"] for r in family_rows(search)]
    assert names and all("，" in n and ", " not in n for n in names)  # 以太网 TH5，仅轨道, as the design labels


def test_design_labels_name_the_fabric_as_the_families_do(search):
    """Design labels and the explanation said ``ethernet TH5`` / ``the best infiniband design`` beside the families'
    ``Ethernet TH5``: the fabric's name, not its id."""
    labels = [design_label(c) for c in search.candidates]
    assert labels and all(label.split(",")[0].endswith(("InfiniBand", "Ethernet RoCE")) for label in labels)
    assert not any(word in line for line in search.explanation for word in ("infiniband", "ethernet"))
    with language("zh"):
        assert all(("InfiniBand" in design_label(c).split("，")[0] or "以太网" in design_label(c).split("，")[0])
                   for c in search.candidates)


def test_busbw_box_speaks_the_sidebars_unit_and_the_link_stays_in_gbytes():
    at = open_page({"ng": "64", "ui_bw": "gbit", "opt_bus": "50"})
    box = at.number_input(key="opt_w_bus_bits")
    assert box.label == "Min. all-reduce busbw [Gb/s]" and box.value == 400.0
    box.set_value(800.0)
    at.number_input(key="opt_w_usd").set_value(1000.0)  # a quick search: nothing fits the budget
    at.multiselect(key="opt_w_sw").set_value(["QM9700"])
    next(b for b in at.button if b.label == "Search").click()
    rerun(at)
    assert "opt_bus=100" in at.sidebar.code[0].value  # 800 Gb/s = 100 GB/s in the link
    at = open_page({"ng": "64", "opt_bus": "50"})
    assert at.number_input(key="opt_w_bus").label == "Min. all-reduce busbw [GB/s]"
    assert at.number_input(key="opt_w_bus").value == 50.0


def test_pareto_points_carry_their_candidates(search):
    fig = pareto_figure(search)
    front = next(t for t in fig.data if t.mode == "lines+markers")
    by_index = {c.index: c for c in search.candidates}
    for x, y, (index, _label, capex, busbw) in zip(front.x, front.y, front.customdata):
        assert by_index[index].capex_usd == x and by_index[index].busbw_gbytes == y
        assert capex == usd(x) and busbw == bandwidth(y * 8, "GB/s")  # hover: the one money and bandwidth format
    assert [r["index"] for r in front_rows(search)] == [c.index for c in search.pareto]
    star = fig.data[-1]
    assert star.customdata[0][0] == search.best.index


def test_an_infeasible_search_keeps_its_candidates_when_not_strict():
    result = optimize("H100", 256, Constraints(budget_usd=1.0), SMALL_GRID, workers=1, strict=False)
    assert result.best is None and result.pareto == [] and result.candidates
    assert "budget" in result.explanation[0]
    rows = family_rows(result)
    assert rows and all(r["cheapest"] == "" and "budget" in r["ruled_out_by"] for r in rows)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 100_000), os=st.sampled_from([0.0, 1.0, 1.5, 3.0]), fab=st.sampled_from(["any", "ethernet"]),
       sw=st.lists(st.sampled_from(["QM9700", "SN5600", "TH5"]), unique=True, max_size=2),
       model=st.sampled_from(["", "llama3-70b"]), days=st.sampled_from([0.0, 12.5]))
def test_link_round_trip(n, os, fab, sw, model, days):
    values = {**optimizelink.DEFAULTS, "os": os, "fab": fab, "sw": tuple(sw), "model": model, "days": days,
              "bisr": os, "obj": "compute" if n % 2 else "cluster", "run": "1"}
    decoded, warnings = optimizelink.decode(optimizelink.encode(values))
    assert warnings == [] and decoded == values
    c = optimizelink.constraints(decoded)
    assert c.max_oversubscription == (os or None) and c.fabric == fab and c.max_bisection_ratio == (os or None)
    assert (c.job is None) == (model == "") and (c.max_days == (days or None) if model else c.max_days is None)


def test_bad_link_values_are_warned_and_fall_back():
    values, warnings = optimizelink.decode({"opt_hops": "-3", "opt_sw": "QM9700,NOPE<script>", "opt_fab": "x",
                                            "opt_zz": "1", "opt_obj": "gpus"})
    assert values["hops"] == optimizelink.DEFAULTS["hops"] and values["sw"] == () and values["fab"] == "any"
    assert values["obj"] == "cluster"
    assert len(warnings) == 5 and any("opt_zz" in w for w in warnings)


open_page = pagetest.opener(PAGE)  # the app opened from a link, then this page (tests/pagetest.py)


def unescaped(text: str) -> str:
    """A markdown cell's text as the reader sees it: without its escapes (``webui.safe.md``) and the invisible joiners
    that keep an amount on one line (``core.text.unbroken``)."""
    return re.sub(r"\\(.)", r"\1", str(text)).replace(NO_BREAK, "")


LINK = {"ng": "256", "opt_os": "1.5", "opt_fab": "infiniband", "opt_sw": "QM9700,Q3400", "opt_run": "1"}


@pytest.mark.slow
def test_page_runs_the_linked_search_and_links_the_cheapest_design():
    at = open_page(LINK)
    best = optimize("H100", 256, Constraints(fabric="infiniband", switches=("QM9700", "Q3400"),
                                             max_oversubscription=1.5), workers=1)
    assert any("Cheapest design" in s.value for s in at.success)
    counts = f"{best.considered:,} candidates: {best.feasible:,} meet every constraint"  # the same on every run
    assert any(c.value.startswith(counts) and "planned" not in c.value for c in at.caption)
    assert at.get("link_button"), "no Open-in-Designer link"
    assert len(at.get("plotly_chart")) == 1
    front, fams = at.table[0].value, at.table[1].value  # static tables: their cells wrap at every width
    assert unescaped(front["Capex, whole cluster [USD]"].iloc[0]) == usd(best.best.capex_usd)
    assert len(front) == len(best.pareto)
    assert sum(int(n.replace(",", "")) for n in fams["Candidates"]) == best.considered
    assert all(power == f"{round(c.facility_kw):,}" for power, c in zip(front["Facility power [kW]"], best.pareto))
    busbw = [c.busbw_gbytes for c in best.pareto]  # the designs side by side: one rule (units.alike), whole
    assert list(front["All-reduce busbw [GB/s]"]) == alike(busbw)  # numbers from 100 GB/s, as the answer's words
    if min(busbw) >= 100:
        said = unescaped(" ".join(m.value for m in [*at.markdown, *at.success]))
        assert front["All-reduce busbw [GB/s]"].iloc[0] + " GB/s" in said
    link = at.sidebar.code[0].value
    assert "/optimize?" in link and "n=32" in link and "opt_fab=infiniband" in link and "opt_run=1" in link


@pytest.mark.slow
def test_page_form_search_and_infeasible_message():
    at = open_page({"n": "32"})  # a Designer design of 32 nodes: the search plans its 256 GPUs
    assert any("256 x H100 in 32 nodes" in m.value for m in at.markdown) and not at.table
    at.number_input(key="opt_w_usd").set_value(1000.0)
    at.multiselect(key="opt_w_sw").set_value(["QM9700"])  # a small search: one switch model
    submit = next(b for b in at.button if b.label == "Search")
    submit.click()
    rerun(at)
    assert at.error and "budget" in at.error[0].value
    assert len(at.table) >= 1  # the families still show what ruled them out
    assert "opt_usd=1000" in at.sidebar.code[0].value


@pytest.mark.slow
def test_page_in_chinese_has_no_english_leaks():
    at = open_page({**LINK, "lang": "zh"})
    assert not at.exception
    assert not english_leaks(page_text(at)), english_leaks(page_text(at))


@pytest.mark.slow
def test_page_sizes_from_a_budget_and_asks_for_one_when_missing():
    at = open_page({"opt_mode": "envelope", "opt_usd": "9000000", "opt_fab": "infiniband", "opt_sw": "QM9700",
                    "opt_os": "1", "opt_run": "1"})
    from core.analysis.optimize import largest_within

    expected = largest_within("H100", Constraints(fabric="infiniband", switches=("QM9700",), max_oversubscription=1.0,
                                                  budget_usd=9e6), workers=1)
    assert any(f"**{expected.gpus:,}** H100" in i.value for i in at.info)
    front = at.table[0].value
    assert unescaped(front["Capex, whole cluster [USD]"].iloc[0]) == usd(expected.result.pareto[0].capex_usd)
    at = open_page({"opt_mode": "envelope", "opt_run": "1"})
    assert at.error and "budget" in at.error[0].value


REPRO = {"v": "1", "lang": "en", "opt_n": "16384", "g": "B300", "opt_bus": "400", "opt_run": "1"}
"""An old link with the page's own GPU count and the sidebar's GPU (B300)."""


@pytest.mark.slow
def test_old_link_plans_the_sidebars_gpu_and_names_it():
    at = open_page(REPRO)
    # the sidebar and the page plan one design: 16,384 B300 (the old opt_n moved onto the sidebar's size)
    assert not [w for w in at.get("selectbox") if w.label == "GPU model" and w.key and w.key.startswith("opt_")]
    assert any("16,384 x B300 in 2,048 nodes" in m.value.replace("\\", "") for m in at.markdown)
    success = unescaped(at.success[0].value)
    assert "16,384 x B300 in 2,048 nodes" in success, success
    base = plan(Design(gpu="B300", gpus=16384))
    expected = optimize("B300", 16384, Constraints(min_busbw_gbytes=400), workers=1, base=base.design)
    assert unescaped(at.table[0].value["Capex, whole cluster [USD]"].iloc[0]) == usd(expected.best.capex_usd)
    h100 = optimize("H100", 16384, Constraints(min_busbw_gbytes=300), workers=1)  # H100's PCIe Gen5 host: ~363 at most
    assert expected.best.capex_usd > h100.best.capex_usd * 1.1  # what the old page planned: the H100 price
    notes = [unescaped(w.value) for w in at.warning]
    assert any("'opt_n'" in n and "now the sidebar's GPU count" in n for n in notes), notes
    assert "ng=16384" in at.sidebar.code[0].value or "n=2048" in at.sidebar.code[0].value
    assert "opt_n" not in at.sidebar.code[0].value


def test_old_link_keys_move_to_the_sidebar_or_are_ignored():
    moved, legacy = optimizelink.sidebar_params({"opt_gpu": "B300", "opt_n": "512", "opt_os": "2"})
    assert moved == {"g": "B300", "ng": "512", "opt_os": "2"}
    assert legacy == {"opt_gpu": ("B300", "moved"), "opt_n": ("512", "moved")}
    kept, legacy = optimizelink.sidebar_params({"opt_gpu": "H100", "g": "B300", "opt_n": "512", "n": "8"})
    assert kept == {"g": "B300", "n": "8"} and {fate for _v, fate in legacy.values()} == {"ignored"}
    assert optimizelink.decode({"opt_gpu": "H100", "opt_n": "5"}) == (optimizelink.DEFAULTS, [])


def test_sidebar_fields_the_search_does_not_set_are_kept():
    sidebar = Design(gpu="B300", nodes=8, gpus_per_node=4, pue=1.5, price_basis="list", switch="QM9700",
                     tiers=3, oversubscription=2.0, management=False)
    designs = candidate_designs("B300", 32, Constraints(), SMALL_GRID, base=sidebar)
    assert designs and all(d.gpus == 32 and d.nodes is None and d.gpus_per_node == 4 and d.pue == 1.5
                           and d.price_basis == "list" and d.management is False and d.switch is None
                           for d in designs)
    # searched: the sidebar's own value is not used (a Dragonfly+ has no tier count to search: auto)
    assert {d.tiers for d in designs if d.topology != "dragonfly"} == set(SMALL_GRID.tiers)
    assert {d.tiers for d in designs if d.topology == "dragonfly"} <= {"auto"}
    with pytest.raises(InputError):
        candidate_designs("H100", 32, Constraints(), SMALL_GRID, base=sidebar)


def test_a_search_from_a_sidebar_design_prices_the_sidebars_fields():
    sidebar = Design(gpu="H100", nodes=32, price_basis="list", management=False, storage="none")
    result = optimize("H100", 256, Constraints(switches=("QM9700",)), SMALL_GRID, workers=1, base=sidebar)
    default = optimize("H100", 256, Constraints(switches=("QM9700",)), SMALL_GRID, workers=1)
    best = result.best.design
    assert best.price_basis == "list" and best.management is False and best.storage == "none"
    assert result.best.capex_usd == pytest.approx(plan(best).cost.capex_usd)
    assert result.best.capex_usd != pytest.approx(default.best.capex_usd)


def test_front_chart_axes_hold_every_point_with_a_margin(search):
    """The front's points sat on or beyond the chart's edge: each axis range now holds every drawn point (the
    cloud, the front and the star) with ``FIT_MARGIN`` of the span to spare (the performance axis from 0)."""
    from core.figures.optimize import FIT_MARGIN, fitted_range

    fig = pareto_figure(search)
    xs = [x for t in fig.data for x in t.x]
    ys = [y for t in fig.data for y in t.y]
    (x0, x1), (y0, y1) = fig.layout.xaxis.range, fig.layout.yaxis.range
    span = max(xs) - min(xs)
    assert x0 <= min(xs) - FIT_MARGIN * span * 0.99 and x1 >= max(xs) + FIT_MARGIN * span * 0.99
    assert y0 == 0.0 and y1 >= max(ys) * (1 + FIT_MARGIN * 0.99)
    assert fitted_range([5.0, 5.0]) == [5.0 - 0.3, 5.0 + 0.3] and fitted_range([]) == [0.0, 1.0]
    # from zero, up to a round tick above the top value: the highest points sit under a labelled gridline
    assert fitted_range([2.0, float("nan"), 4.0], zero=True) == [0.0, 5.0]
    assert fitted_range([186.3, 466.2], zero=True) == [0.0, 500]
    assert fitted_range([186.3, 499.0], zero=True) == [0.0, 600]  # 499 + 6% of the span is past 500


@pytest.mark.slow
def test_page_words_the_winner_warns_for_the_jobs_traffic_and_links_each_front_row():
    """A mixture-of-experts job: the page says the winner in words, whether a constraint binds, warns when the
    winner's rails are separate fabrics or its leaves oversubscribed, and each front row links its design with a
    whole "open in Designer" (a link column with display text); money in the one money format."""
    at = open_page({"ng": "256", "opt_fab": "infiniband", "opt_sw": "QM9700", "opt_model": "mixtral-8x7b",
                    "opt_run": "1"})
    result = optimize("H100", 256, optimizelink.constraints({**optimizelink.DEFAULTS, "fab": "infiniband",
                                                             "sw": ("QM9700",), "model": "mixtral-8x7b"}), workers=1)
    success = unescaped(at.success[0].value)  # markdown escapes (webui.safe.md) aside
    assert design_label(result.best) in success and usd(result.best.capex_usd) in success
    said = unescaped(" ".join(m.value for m in at.markdown))
    assert "No constraint binds" in said or "Binding constraint" in said
    islands, ratio = result.best.islands, result.best.design.oversubscription
    assert ("Warning: the training job has expert-parallel all-to-all" in said) == (islands > 1 or ratio > 1)
    front = at.table[0].value
    for cell, cand in zip(front["Design"], result.pareto):  # each row's design words link its own design
        words, link = re.fullmatch(r"\[(.*)\]\((.*)\)", cell).groups()
        assert unescaped(words) == design_label(cand)  # whole, never cut
        query = dict(parse_qsl(urlparse(link).query))
        assert {k: str(v) for k, v in sharelink.encode(cand.design).items()}.items() <= query.items()
    assert [unescaped(c) for c in front["Capex, whole cluster [USD]"]] == [usd(c.capex_usd) for c in result.pareto]


def test_the_topologies_tried_come_from_the_link_and_reach_the_search():
    """``opt_top`` (the form's *Topologies tried*) narrows the grid the search runs: a torus-only search plans
    only tori; a bad topology is a warning and the default grid."""
    values, warnings = optimizelink.decode({"opt_top": "torus,Dragonfly"})
    assert values["top"] == ("torus", "dragonfly") and not warnings
    assert optimizelink.grid(values).topologies == ("torus", "dragonfly")
    assert optimizelink.grid(optimizelink.DEFAULTS) == Grid()
    assert optimizelink.grid(values, "rail-only").topologies == ("torus", "dragonfly")  # asked: the asked alone
    values, warnings = optimizelink.decode({"opt_top": "hypercube"})
    assert values["top"] == () and warnings and "hypercube" in warnings[0]
    at = open_page({"ng": "64", "opt_top": "torus", "opt_run": "1"})
    assert at.multiselect(key="opt_w_top").value == ["torus"]
    success = unescaped(" ".join(s.value for s in at.success))
    assert "torus" in success and "node to node without switches" in success, success


def test_no_cloud_point_hides_under_a_front_point(search):
    """A design with a front point's very numbers sat under it in the cloud and took its click (the page opened
    that other design): the cloud leaves such designs out, so a click on a front point opens the front's design."""
    from core.analysis.optimize import capex_of
    from core.figures.optimize import metric_value

    ids = {c.index for c in search.pareto}
    front = {(capex_of(c, search.objective), metric_value(c, search.metric)) for c in search.pareto}
    twins = [c for c in search.candidates if c.costed and c.index not in ids
             and (capex_of(c, search.objective), metric_value(c, search.metric)) in front]
    assert twins  # the grid has designs with a front point's numbers
    fig = pareto_figure(search)
    cloud = next(t for t in fig.data if t.name == "Other designs that meet every constraint")
    assert not set(zip(cloud.x, cloud.y)) & front
    assert not {cd[0] for cd in cloud.customdata} & {c.index for c in twins}


@pytest.mark.slow
def test_the_winner_opens_on_the_designer_with_the_numbers_the_page_shows():
    """The page plans the sidebar's GPU (B200 here), and its cheapest design's link opens the Designer on that
    design: the same whole-cluster and compute-fabric capex as the page says."""
    at = open_page({**LINK, "g": "B200", "opt_sw": "QM9700", "lang": "en"})
    success = unescaped(at.success[0].value)
    assert "256 x B200" in success
    url = at.get("link_button")[0].proto.url
    params = dict(parse_qsl(urlparse(url).query))
    assert params["g"] == "B200"
    designer = AppTest.from_file(ENTRY, default_timeout=120)
    designer.query_params.update(params)
    designer.run()
    assert not designer.exception
    cards = unescaped(" ".join(str(m.value) for m in designer.markdown))
    expected = optimize("B200", 256, Constraints(fabric="infiniband", switches=("QM9700",),
                                                 max_oversubscription=1.5), workers=1)
    best = expected.best
    assert usd(best.capex_usd) in success and usd(best.capex_usd) in cards
    assert usd(best.network_capex_usd) in cards
    assert unescaped(at.table[0].value["Capex, whole cluster [USD]"].iloc[0]) == usd(best.capex_usd)


@pytest.mark.slow
def test_the_default_topologies_are_listed_with_the_languages_list_separator():
    at = open_page({"ng": "64", "lang": "zh"})
    label = at.multiselect(key="opt_w_top").label
    assert "、" in label and ", " not in label, label
    at = open_page({"ng": "64"})
    assert "rail-optimized, top-of-rack, rail-only and Dragonfly+" in at.multiselect(key="opt_w_top").label


def test_a_torus_is_one_switch_family_per_fabric_named_without_a_switch():
    """A torus has no switches: one family per fabric (it was one per leaf model, "Ethernet RoCE TH5, torus",
    "TH6, torus", ... at different prices: review48 #3), named by its fabric and topology alone."""
    result = optimize("H100", 512, Constraints(), Grid(port_speeds=(400,), topologies=("torus",)), workers=1)
    with language("en"):
        names = sorted(r["family"] for r in family_rows(result))
    assert names == ["Ethernet RoCE, torus", "InfiniBand, torus"] and result.considered == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_max_hops_field_says_a_torus_crosses_no_switch(lang, capsys):
    """The Optimize page's max-hops field and ``--max-hops`` say one help (``core.analysis.optimizewords.
    max_hops_help``): the most switches a path crosses, and that a torus crosses none, so the limit does not apply
    to it (``Candidate.switch_hops``)."""
    from core.analysis.optimizewords import max_hops_help
    from core.cli import main
    from core.i18n import as_sentence, language

    at = pagetest.opener(PAGE)({"lang": lang})
    assert not at.exception
    with language(lang):
        said = as_sentence(max_hops_help())
        (field,) = [n for n in at.number_input if n.key.endswith("hops")]
        assert field.help == said and (lang != "en" or "a torus crosses no switch" in said)
        with pytest.raises(SystemExit):
            main(["optimize", "--help", "--lang", lang])
        out = "".join(capsys.readouterr().out.split())
        assert "".join(max_hops_help().split()) in out


@pytest.mark.slow
def test_the_chinese_page_joins_its_sentences_without_a_space_after_a_full_stop():
    """The page's captions, its winner's box and the planes field's help join sentences by ``core.i18n.sentences``:
    "。其" in Chinese, not "。 其" (they joined them with a space by hand)."""
    at = open_page({**LINK, "lang": "zh"})
    assert not at.exception and at.success
    (planes,) = [n for n in at.number_input if n.key.endswith("pl")]
    texts = [planes.help] + [c.value for c in at.caption] + [s.value for s in at.success]
    joined = [t for t in texts if re.search(r"[。！？] ", t)]
    assert not joined, joined
    assert "。" in planes.help


@pytest.mark.parametrize("link", [{"lang": "en"}, {"lang": "zh"}, {"lang": "en", "ui_bw": "bits"},
                                  {"lang": "zh", "ui_cur": "CNY"}])
def test_every_constraint_label_fits_its_column_at_1024_px(link):
    """The constraints' labels wrapped at a 1,024 px window, four equal columns a row: "Max. oversubscription (x:1)"
    on three lines, "预算，整个集群 [美元]" on two. Each row's columns are as wide as their labels now
    (``webui.tablefit.input_columns``): every input's label, its help icon's room included (``label_px``), fits its
    column's share of the form's width at 1,024 px (``FORM_PX``, less the gaps), so at 1,280 and 1,600 px too."""
    from webui.tablefit import COLUMN_GAP_PX, FORM_PX, label_px

    at = pagetest.open_page(PAGE, {"n": "64", **link})
    assert not at.exception
    rows, row = [], []
    for column in at.columns:  # consecutive columns whose weights add up to 1 are one row
        row.append(column)
        if abs(sum(c.weight for c in row) - 1) < 1e-6:
            rows.append(row)
            row = []
    checked = 0
    for row in rows:
        usable = FORM_PX - COLUMN_GAP_PX * (len(row) - 1)
        for column in row:
            for widget in [*column.number_input, *column.selectbox]:
                assert label_px(widget.label, bool(widget.help)) <= column.weight * usable, (widget.label, row)
                checked += 1
    assert checked >= 13  # the eight constraints, the training job's three and the serving pair
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_design_too_large_for_the_server_names_the_cli_command_for_the_same_design(monkeypatch, lang):
    """The way out reads the sidebar's whole design (its file), not --gpu and --gpus alone, which searched another
    design (e.g. without a two-level NVLink domain, other racks or prices)."""
    from dataclasses import replace

    from webui import jobs

    monkeypatch.setitem(jobs.LIMITS, "optimize", replace(jobs.LIMITS["optimize"], max_gpus=16))
    at = open_page({"v": "1", "lang": lang, "g": "GB200-NVL72", "n": "144", "nvd": "144", "opt_run": "1"})
    text = unescaped(at.error[0].value)
    assert "python -m core optimize --design design.json" in text and "--gpus" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_torus_sidebar_design_is_searched_with_its_torus(lang):
    """The sidebar's torus (``t=tr``) was left out of the default topologies, so a search of a torus design never
    tried a torus: the default topologies now hold the design's own (``default_topologies``), the label of
    *Topologies tried* names it and the caption says so."""
    from core import vocab
    from core.analysis.optimize import DEFAULT_TOPOLOGIES, default_topologies

    assert default_topologies("torus") == (*DEFAULT_TOPOLOGIES, "torus")
    assert default_topologies("rail-optimized") == DEFAULT_TOPOLOGIES == default_topologies()
    assert optimizelink.grid(optimizelink.DEFAULTS, "torus").topologies == (*DEFAULT_TOPOLOGIES, "torus")
    assert optimizelink.grid(optimizelink.DEFAULTS, "rail-optimized") == Grid()
    at = open_page({"t": "tr", "ng": "64", "lang": lang})
    with language(lang):
        assert vocab.TOPOLOGY.word("torus") in at.multiselect(key="opt_w_top").label
    said = " ".join(c.value for c in at.caption)
    assert ("the sidebar's is among those tried" if lang == "en" else "侧边栏的拓扑也在尝试之列") in said
