"""Comparison of designs (core.analysis.compare), its link codec (core.formats.comparelink) and its figures.

No new model or constant is introduced here: every number of a column is a single-design number of the
engine (``Plan.summary()``, ``core.perf.collectives.sweep``, ``core.perf.training.estimate``), whose
golden tests live with them (test_golden_superpod.py, test_collectives_golden.py, test_training_golden.py).
What these tests pin is that the comparison adds nothing: a column equals its single design, a delta is
the difference of two single-design numbers, the BOM differences sum to the capex difference, and a
comparison link round-trips exactly.
"""

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import units
from core.analysis import compare as cmp
from core.design import MAX_NAME_CHARS, Design, clean_name
from core.figures import compare as figs
from core.formats import comparelink, sharelink
from core.formats.joblink import DEFAULTS
from core.i18n import _, language
from core.perf import jobform
from core.perf.collectives import sweep
from core.plan import plan
from tests.test_sharelink import designs

IB = Design(nodes=64)
ROCE = Design(nodes=64, fabric="ethernet")
IB_2TO1 = Design(nodes=64, oversubscription=2.0)
BIG = Design(nodes=512, fabric="ethernet")
JOB = dict(DEFAULTS)


@pytest.fixture(scope="module")
def four():
    return cmp.compare([("IB", IB), ("RoCE", ROCE), ("IB 2:1", IB_2TO1), ("big", BIG)], 0, JOB, (2**20, 2**30))


def test_each_column_equals_its_single_design(four):
    for column in four.columns:
        p = plan(column.design)
        assert column.error is None and column.notes == []
        assert {k: column.values[k] for k in cmp.key_values(p.summary())} == cmp.key_values(p.summary())
        s = sweep(p, "all-reduce", [2**20, 2**30], gpus=p.resolved.gpus)
        t, _a, _p = s.best()
        assert column.values[cmp.busbw_key(2**30)] == pytest.approx(float(s.busbw(t)[1]), rel=1e-12)
        e = jobform.estimate_under(p, jobform.job_from_settings(p, JOB), JOB)
        assert column.values["days_to_train"] == e.days_to_train
        assert column.values["run_cost_usd"] == e.cost_usd
        assert column.values["capex_usd"] == p.summary()["cost"]["capex_usd"]


def test_deltas_are_differences_of_single_design_numbers(four):
    deltas = four.deltas()
    base = plan(IB)
    base_values = cmp.key_values(base.summary())
    for i, column in enumerate(four.columns):
        single = cmp.key_values(plan(column.design).summary())
        assert set(single) - set(deltas[i]) == {"switches_nvlink_level2"}  # no compared design has a level 2
        for key, value in single.items():
            if key not in deltas[i]:
                continue
            d = deltas[i][key]
            if i == 0:
                assert d is None
                continue
            assert d.absolute == pytest.approx(value - base_values[key], abs=1e-9)
            if base_values[key]:
                assert d.percent == pytest.approx((value - base_values[key]) / base_values[key] * 100)
            else:
                assert d.percent is None


def test_direction_is_data_and_verdicts_follow_it(four):
    by_key = {m.key: m for m in four.rows}
    assert by_key["capex_usd"].better == cmp.LOWER and by_key["days_to_train"].better == cmp.LOWER
    assert by_key[cmp.busbw_key(2**30)].better == cmp.HIGHER and by_key["bisection_tbits"].better == cmp.HIGHER
    assert by_key["gpus"].better is None
    deltas = four.deltas()
    # 2:1 at the leaf: fewer spines (cheaper: better) and half the bisection (worse)
    assert deltas[2]["capex_usd"].verdict == "better" and deltas[2]["bisection_tbits"].verdict == "worse"
    assert deltas[2]["oversubscription"].verdict == "worse"
    assert deltas[3]["gpus"].verdict == "neutral"  # bigger, neither better nor worse
    assert deltas[1]["gpus"].verdict == "same"
    assert cmp.delta(2, 1, cmp.HIGHER).verdict == "better" and cmp.delta(2, 1, cmp.LOWER).verdict == "worse"
    assert cmp.delta(0, 0, cmp.LOWER).percent is None


def test_baseline_choice_flips_the_signs(four):
    other = cmp.compare([(c.name, c.design) for c in four.columns], 1, JOB, four.sizes)
    assert other.deltas()[0]["capex_usd"].absolute == pytest.approx(-four.deltas()[1]["capex_usd"].absolute)
    assert cmp.compare([("a", IB)], 7).baseline == 0  # cut into range


def test_more_than_four_designs_is_refused():
    with pytest.raises(ValueError):
        cmp.compare([("x", IB)] * 5)
    with pytest.raises(ValueError):
        comparelink.encode(comparelink.Comparison([comparelink.Entry("x", IB)] * 5))


def test_a_design_that_cannot_be_built_is_a_column_with_its_reason():
    bad = Design(nodes=100000, tiers=1)
    result = cmp.compare([("ok", IB), ("bad", bad)], 0, JOB)
    assert result.columns[1].plan is None and result.columns[1].error
    assert result.deltas()[1]["capex_usd"] is None
    rows, verdicts = figs.comparison_rows(result)
    assert rows[0]["2. bad"] == "-"
    assert figs.bom_rows(result)  # every item of the good design "removed" in the bad column


def test_a_job_that_does_not_fit_leaves_its_rows_out_with_a_note():
    result = cmp.compare([("small", Design(nodes=2)), ("ok", IB)], 1, {**JOB, "tp": 64})
    assert "days_to_train" not in result.columns[0].values and result.columns[0].notes
    assert result.deltas()[0]["days_to_train"] is None


def test_bom_differences_sum_to_the_capex_difference(four):
    plans = [c.plan for c in four.columns]
    changes = cmp.bom_changes(plans, 0)
    assert changes
    for i in range(1, 4):
        total = sum(ch.usd_change(i, 0) for ch in changes)
        assert total == pytest.approx(plans[i].cost.capex_usd - plans[0].cost.capex_usd, rel=1e-9, abs=1e-6)
        for ch in changes:  # quantities are the BOM's own
            own = sum(r.quantity for r in plans[i].bom if (r.category, r.catalog_id, r.item, r.end) ==
                      (ch.category, ch.catalog_id, ch.item, ch.end))
            assert ch.quantities[i] == own
    ib_vs_roce = {ch.catalog_id for ch in cmp.bom_changes(plans[:2])}
    assert {"QM9700", "SN5600"} <= ib_vs_roce  # the switches change and say so
    assert all(ch.why for ch in changes)


def test_category_capex_sums_to_capex(four):
    for column in four.columns:
        assert sum(cmp.category_capex(column.plan).values()) == pytest.approx(column.plan.cost.capex_usd)


# --- the link -------------------------------------------------------------------------------------------
def _entries(draw_designs):
    return [comparelink.Entry(f"design {i}", d) for i, d in enumerate(draw_designs)]


@settings(max_examples=80, deadline=None)
@given(st.lists(designs(), min_size=1, max_size=4),
       st.lists(st.text(min_size=1, max_size=60), min_size=4, max_size=4),
       st.integers(0, 3),
       st.lists(st.sampled_from([2**16, 2**20, 2**24, 2**30, 2**34]), min_size=1, max_size=4, unique=True))
def test_a_comparison_link_round_trips_exactly(ds, names, baseline, sizes):
    names = [clean_name(n) or "x" for n in names]
    comparison = comparelink.Comparison([comparelink.Entry(n, d) for n, d in zip(names, ds)],
                                        baseline % len(ds), tuple(sizes))
    params = comparelink.encode(comparison)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in params.items())
    assert all(comparelink.prefix_of(k) for k in params)
    assert sharelink.decode(params)[1] == []  # a comparison link is no trouble to the design codec
    decoded, warnings = comparelink.decode(params)
    assert warnings == []
    assert decoded == comparison
    assert comparelink.encode(decoded) == params


def test_the_link_holds_names_baseline_and_sizes():
    params = comparelink.encode(comparelink.Comparison(
        [comparelink.Entry("IB", IB), comparelink.Entry("RoCE", ROCE)], 1, (2**30,)))
    assert params == {"c1_name": "IB", "c1_n": "64", "c2_name": "RoCE", "c2_n": "64", "c2_f": "eth",
                      "cmp_base": "2", "cmp_sz": "1GiB"}
    assert comparelink.encode(comparelink.Comparison([comparelink.Entry("d", Design())])) == {"c1_name": "d"}


def test_more_than_four_designs_in_a_link_are_warned_and_four_kept():
    params = {f"c{i}_n": str(8 * i) for i in range(1, 7)}
    comparison, warnings = comparelink.decode(params)
    assert [e.design.nodes for e in comparison.entries] == [8, 16, 24, 32]
    assert len(warnings) == 1 and "5, 6" in warnings[0] and "4" in warnings[0]


def test_bad_column_values_are_warned_by_column_and_the_rest_applies():
    comparison, warnings = comparelink.decode({"c1_name": "ok", "c1_n": "64", "c2_name": "broken", "c2_n": "banana",
                                               "c2_f": "eth", "c3_g": "H999", "cmp_base": "9", "cmp_sz": "lots"})
    assert [e.name for e in comparison.entries] == ["ok", "broken", "Design 3"]
    assert comparison.entries[1].design.fabric == "ethernet" and comparison.entries[1].design.nodes == Design().nodes
    text = " ".join(warnings)
    assert "Design 2 (broken)" in text and "'n'" in text and "Design 3" in text and "H999" in text
    assert "cmp_base" in text and "cmp_sz" in text
    assert comparison.baseline == 0 and comparison.sizes == cmp.DEFAULT_SIZES


def test_long_names_are_cut_with_a_warning():
    comparison, warnings = comparelink.decode({"c1_name": "x" * 500})
    assert comparison.entries[0].name == "x" * MAX_NAME_CHARS and len(warnings) == 1


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["c1_n", "c1_name", "c2_f", "c4_sw", "c9_n", "c12345_g", "cmp_base",
                                        "cmp_sz", "c2_", "c3_px", "n", "c1_c2_n"]),
                       st.one_of(st.text(max_size=50), st.lists(st.text(max_size=10), max_size=3)), max_size=8))
def test_decode_never_raises(params):
    comparison, warnings = comparelink.decode(params)
    assert len(comparison.entries) <= cmp.MAX_DESIGNS and all(isinstance(w, str) for w in warnings)
    assert all(len(e.name) <= MAX_NAME_CHARS for e in comparison.entries)


@pytest.mark.parametrize("text, problem", [("", "Paste"), ("hello", "not a share link"), ("x" * 5000, "longer")])
def test_bad_pasted_links_are_input_errors(text, problem):
    from core.errors import InputError
    with pytest.raises(InputError, match=problem):
        comparelink.design_from_link(text)


def test_a_pasted_link_reads_the_design_and_skips_other_keys():
    design, warnings = comparelink.design_from_link("https://x.example/performance?v=1&n=128&f=eth&perf_tp=4"
                                                    "&lang=zh&tab=Bandwidth&ui_bw=gbit&c1_n=3")
    assert design == Design(nodes=128, fabric="ethernet") and warnings == []
    assert comparelink.design_from_link("?g=H999&n=8")[1]  # a bad value inside is a warning, not an error


# --- figures and the table --------------------------------------------------------------------------------
def test_figures_group_by_design(four):
    cost = figs.cost_figure(four)
    # 6 categories: compute, NIC, switch, transceiver, cable and the networks' appliances (core.networks)
    assert len(cost.data) == 6 and list(cost.data[0].x) == ["IB", "RoCE", "IB 2:1", "big"]
    for trace, column in zip(figs.bandwidth_figure(four).data, four.columns):
        assert trace.name == column.name
        assert trace.y[0] == pytest.approx(column.values["scaleout_gbits_per_gpu"] / 8)
    days = figs.days_figure(four)
    assert list(days.data[0].y) == [c.values["days_to_train"] for c in four.columns]
    stacked = [sum(t.y[i] for t in cost.data) for i in range(4)]
    assert stacked == pytest.approx([c.plan.cost.capex_usd for c in four.columns])


def test_a_design_with_pods_draws_every_pods_injection_labelled():
    """64 H100 (8 x 400G per node: 400 Gb/s = 50 GB/s per GPU) and 32 B300 (8 x 800G on PCIe Gen6: 100 GB/s per
    GPU): a bar for each pod, named after it, beside a one-pod design's single bar."""
    both = cmp.compare([("pods", Design(gpu="H100", nodes=64, pods="B300:32:800")), ("IB", IB)], 0, None, (2**30,))
    pods, one = figs.bandwidth_figure(both).data
    assert [x.replace("<br>", " ") for x in pods.x[:2]] == ["Injection, pod 1 (H100)", "Injection, pod 2 (B300)"]
    assert list(pods.y[:2]) == pytest.approx([50.0, 100.0])
    assert one.x[0].replace("<br>", " ") == "Injection per GPU" and one.y[0] == pytest.approx(50.0)


def test_table_has_every_row_and_verdicts_for_deltas(four):
    rows, verdicts = figs.comparison_rows(four)
    # every row but the node-to-node hops and the NVLink level 2 switch units, which no design of these four has
    # (no torus, no second NVLink level)
    assert len(rows) == len(four.rows) == len(cmp.metrics((2**20, 2**30))) - 2
    assert {"hops_node_max", "switches_nvlink_level2"}.isdisjoint(m.key for m in four.rows)
    capex = next(r for r in rows if r["metric"] == "Capex, whole cluster [USD]")
    assert capex["1. IB"].startswith("$") and "%" in capex["3. vs baseline"]
    v = next(v for r, v in zip(rows, verdicts) if r["metric"] == "Capex, whole cluster [USD]")
    assert v["3. vs baseline"] == "better" and v["1. IB"] is None
    with language("zh"):
        rows_zh, _v = figs.comparison_rows(four)
        # the metric's group is 分组, not the communicator's group size (组大小, the same English word)
        assert list(rows_zh[0])[:2] == ["分组", "指标"] and rows_zh[0]["分组"] == "设计"
    assert not math.isnan(four.columns[0].values["scaleout_gbits_per_gpu"])
    # bandwidth in the one unit the user chose, never "bisection per GPU" (it reads as 2:1 when non-blocking)
    assert not any("Bisection per GPU" in r["metric"] for r in rows)
    for unit, letter in (("GB/s", "B"), ("Gb/s", "b")):
        shown, _v = figs.comparison_rows(four, unit)
        for metric in ("Bisection, one direction", "Injection per GPU, one direction", "All-reduce busbw at 1 GiB"):
            row = next(r for r in shown if r["metric"] == metric)
            assert re.fullmatch(rf"[\d.,]+ [GTP]{letter}/s", row["1. IB"]), (metric, row["1. IB"])
    ratio = next(r for r in rows if r["metric"] == "Bisection ratio (1:1 = non-blocking)")
    assert ratio["1. IB"].endswith(":1")


def test_quick_edits_change_only_their_field_and_a_new_fabric_rechooses_its_switch():
    d = Design(nodes=64, switch="QM9700", port_speed_gbps=400, oversubscription=2.0)
    e = cmp.edited(d, {"fabric": "ethernet"}, "infiniband")
    assert e.fabric == "ethernet" and e.switch is None and e.port_speed_gbps is None and e.oversubscription == 2.0
    assert plan(e).resolved.switch.fabric == "ethernet"
    assert cmp.edited(Design(gpus=1000), {"nodes": 16}, "infiniband") == Design(nodes=16)
    assert cmp.edited(d, {"oversubscription": 3.0}, "infiniband") == d.model_copy(update={"oversubscription": 3.0})
    with pytest.raises(ValueError):
        cmp.edited(d, {"tiers": 1}, "infiniband")


def test_a_pod_that_differs_is_no_equal_sign_and_power_deltas_keep_the_columns_precision():
    """review45 2.6: a pods design's injection "50 GB/s / 100 GB/s" was "=" against a 50 GB/s design (the delta of
    pod 1 alone), and IT power 1,245 [kW] had the delta "+1,191.8". 64 H100 at 50 GB/s per GPU and 32 B300 at 100
    GB/s (8 x 800G): pod 2 is +50 GB/s, pod 1 unchanged; the kW delta is written as the column is (units.kw)."""
    both = cmp.compare([("IB", Design(nodes=4)), ("pods", Design(gpu="H100", nodes=64, pods="B300:32:800"))], 0,
                       None, (2**30,))
    d = both.deltas()[1]["scaleout_gbits_per_gpu"]
    assert d.verdict == "better" and d.pods == pytest.approx((0.0, 400.0))  # Gb/s: +50 GB/s for pod 2
    rows, verdicts = figs.comparison_rows(both, "GB/s")
    injection = next(i for i, r in enumerate(rows) if r["metric"] == "Injection per GPU, one direction")
    assert rows[injection]["2. vs baseline"] == "pod 2: +50 GB/s"
    assert verdicts[injection]["2. vs baseline"] == "better"
    power = next(r for r in rows if r["metric"] == "IT power")
    it = both.deltas()[1]["it_kw"].absolute
    assert power["2. vs baseline"].startswith("+" + f"{it:,.0f}" + " kW (") and it >= 100
    # the other way round: the baseline has pods, the one-pod design loses pod 2's 50 GB/s
    back = cmp.compare([("pods", Design(gpu="H100", nodes=64, pods="B300:32:800")), ("IB", Design(nodes=4))], 0,
                       None, (2**30,))
    assert back.deltas()[1]["scaleout_gbits_per_gpu"].verdict == "worse"
    # equal pods on both sides stay "="
    same = cmp.compare([("a", Design(gpu="H100", nodes=64, pods="B300:32:800")),
                        ("b", Design(gpu="H100", nodes=64, pods="B300:32:800"))], 0, None, (2**30,))
    assert same.deltas()[1]["scaleout_gbits_per_gpu"].verdict == "same"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bill_difference_names_parts_and_where_they_sit_as_the_bill_does(lang):
    """Compare's "what changes" glued where a row sits to its part ("... (leaf)", "... (NVLink level 2)") where
    the Designer's bill and the workbook show the part as published and where it sits in a column of its own."""
    from core.formats.xlsx import bom_table

    gb200 = Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)
    with language(lang):
        result = cmp.compare([("h100", Design(nodes=4)), ("gb200", gb200)], 0)
        rows = figs.bom_rows(result)
        bills = [bom_table(plan(d)) for d in (Design(nodes=4), gb200)]
        item, where, catalog_id = (_(c) for c in cmp.BOM_DIFF_COLUMNS[1:4])
    published = {row for bill in bills for row in zip(bill["item"], bill["where"], bill["catalog_id"])}
    assert len(rows) > 10 and all(r[where] for r in rows)
    assert {(r[item], r[where], r[catalog_id]) for r in rows} <= published
    assert any(r[catalog_id] == "NVLINK5-SWITCH-TRAY" for r in rows)


def test_a_large_relative_delta_has_thousands_separators():
    """Compare's relative change reads like its absolute one: ``+20,937.5%``, not ``+20937.5%``."""
    delta = cmp.Delta(1_200_000.0, 20937.5, "worse")
    assert figs.format_delta(delta, "usd") == "+$1.20 M (+20,937.5%)"
    assert figs.format_delta(cmp.Delta(-3.0, -5.0, "better"), "count") == "-3 (-5.0%)"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_power_and_step_rows_read_as_the_cards_with_exact_deltas(four, lang):
    """Compare showed "IT power [kW] 5,791" where the Designer's card says "5.79 MW" and "Step time [s] 2.129"
    where Performance's says "2.13 s": each row across the designs in the cards' formatter (``core.units.power``'s
    kW or MW; a step's significant figures, ``units.alike``), its delta still exact."""
    from core.figures.keynumbers import key_numbers

    with language(lang):
        rows, _verdicts = figs.comparison_rows(four, "GB/s")
        power = next(r for r in rows if r[_("metric")] == _("IT power"))
        step = next(r for r in rows if r[_("metric")] == _("Step time"))
        heads = [figs.design_header(i, c.name) for i, c in enumerate(four.columns)]
        versus = [figs.delta_header(i) for i in range(4)]
        it = [c.values["it_kw"] for c in four.columns]
        steps = [c.values["step_time_s"] for c in four.columns]
        card = next(k for k in key_numbers(four.columns[3].plan.summary(), "GB/s") if k.key == "it_power")
    assert max(it) >= 1000 and power[heads[3]] == card.value and card.value.endswith(" MW")
    assert [power[head] for head in heads] == [units.power(kw) for kw in it]  # each as its Designer card
    assert [step[head] for head in heads] == [f"{t} s" for t in units.alike(steps)]
    assert step[versus[1]] == "=" or step[versus[1]].startswith(f"{steps[1] - steps[0]:+,.3f} s")
    assert power[versus[3]].startswith(f"+{units.kw(it[3] - it[0])} kW (")
    assert figs.row_cells([239.478], "seconds") == ["239 s"] and figs.row_cells([2.129], "seconds") == ["2.13 s"]
    assert figs.row_cells([5791.2, 40.8], "kw") == ["5.79 MW", "40.8 kW"]  # each as its Designer card
