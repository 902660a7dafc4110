"""A design with pods says the same totals everywhere (core.analysis.whole): the summary's totals are the mixed
plan's, a design without pods is byte for byte its plan's summary, the CLI's plan and compare, the review pack, the
Designer's cards and the Compare page (AppTest), the pod a job runs on, and the tools that vary one fabric."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from core.analysis.pods import mixed_plan
from core.analysis.whole import one_fabric_only, pod_plan, whole_plan, whole_summary
from core.cli import main as cli_main
from core.design import Design
from core.figures.keynumbers import key_numbers
from core.i18n import language, usd
from core.plan import plan
from tests import pagetest

MIXED = Design(gpu="H100", nodes=64, pods="B200:32:800")
"""64 H100 nodes at 400G and 32 B200 nodes at 800G, both built now: 24 leaves, 8 shared Q3400 spines."""
LINK = {"n": "64", "pods": "B200:32:800"}


def _expected(design: Design) -> dict:
    """The mixed plan's totals, straight from its bill and fabric."""
    m = mixed_plan(design)
    rows = m.bom
    return {"gpus": m.fabric.gpus, "nodes": m.fabric.nodes, "switches": m.fabric.switches, "leaves": m.fabric.leaves,
            "spines": m.fabric.spines, "capex": m.capex_usd, "kw": m.power_kw,
            "low": sum(r.quantity * (r.unit_price_usd if r.unit_price_low_usd is None else r.unit_price_low_usd)
                       for r in rows),
            "high": sum(r.quantity * (r.unit_price_usd if r.unit_price_high_usd is None else r.unit_price_high_usd)
                        for r in rows),
            "bisection_tbits": m.fabric.bisection_gbps / 1000}


@pytest.mark.parametrize("design", [
    Design(gpu="H100", nodes=64), Design(gpu="B200", nodes=300, fabric="ethernet"),
    Design(gpu="H100", nodes=200, oversubscription=2.0, grow_to=400), Design(gpu="GB200-NVL72", gpus=576),
])
def test_a_design_without_pods_is_its_plan_byte_for_byte(design):
    p = plan(design)
    assert whole_plan(p) is p
    assert json.dumps(whole_summary(p), sort_keys=True) == json.dumps(p.summary(), sort_keys=True)


def test_the_whole_summary_is_the_mixed_plans_totals():
    s, e = whole_summary(plan(MIXED)), _expected(MIXED)
    assert (s["gpus"], s["nodes"]) == (e["gpus"], e["nodes"]) == (768, 96)
    assert s["switches"] == {"leaf": e["leaves"], "spine": e["spines"], "core": 0, "total": e["switches"]}
    assert s["switches"] == {"leaf": 24, "spine": 8, "core": 0, "total": 32}
    assert s["links"]["node_leaf"] == 64 * 8 + 32 * 8 and s["links"]["leaf_spine"] == 24 * 32
    assert s["cost"]["capex_usd"] == pytest.approx(e["capex"], abs=0.01)
    assert s["cost"]["capex_usd_low"] == pytest.approx(e["low"], abs=0.01) and e["low"] < e["capex"]
    assert s["cost"]["capex_usd_high"] == pytest.approx(e["high"], abs=0.01) and e["high"] > e["capex"]
    assert s["cost"]["capex_per_gpu_usd"] == pytest.approx(e["capex"] / 768, abs=0.01)
    assert s["power"]["it_kw"] == pytest.approx(e["kw"], abs=0.001)
    assert s["bandwidth"]["bisection_tbits_one_direction"] == pytest.approx(e["bisection_tbits"])
    assert s["bandwidth"]["scaleout_gbits_per_gpu"] == 400  # the slowest pod's (H100 at 400G)
    assert s["transceivers"]["switch_side"] + s["transceivers"]["node_side"] == sum(
        r.quantity for r in mixed_plan(MIXED).bom
        if r.category == "transceiver" and r.network == "compute" and r.end and not r.spare)
    assert s["mixed_pods"]["slowest_pod"] == 1 and s["gpu_model"] == "H100 + B200"
    cards = {k.key: k for k in key_numbers(s)}
    assert cards["gpus"].value == "768" and cards["switches_spine"].value == "8"
    assert cards["capex"].value == usd(e["capex"]) and "pod 2: 32 nodes of B200" in cards["gpus"].help


def test_cli_plan_prints_the_totals():
    e = _expected(MIXED)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["plan", "--nodes", "64", "--pods", "B200:32:800", "--format", "json"]) == 0
    s = json.loads(out.getvalue())
    assert s["gpus"] == 768 and s["switches"]["total"] == 32
    assert s["cost"]["capex_usd"] == pytest.approx(e["capex"], abs=0.01)
    assert sum(r["extended_price_usd"] for r in s["bom"]) == pytest.approx(e["capex"], abs=0.01)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["plan", "--nodes", "64", "--pods", "B200:32:800"]) == 0
    text = out.getvalue()
    assert text.startswith("768 x H100 + B200 GPUs in 96 nodes")
    assert "leaf 24  spine 8  core 0  total 32" in text and usd(e["capex"]) in text
    assert "the totals above are the whole design's" in text
    # every pod's words where the summary's own fields are pod 1's: switches, speeds, NVLink, scale-up
    assert "400 / 800G" in text and "switch QM9700 + Q3400 leaves, Q3400 spines" in text
    assert "NVLink 900 GB/s / 1.8 TB/s per GPU" in text and "core QM9700" not in text
    assert "pod 1: NVLink" in text and "pod 2: NVLink" in text and "900 GB/s to any peer" in text


def test_cli_compare_compares_by_totals(tmp_path):
    (tmp_path / "a.json").write_text('{"gpu": "H100", "nodes": 64}')
    (tmp_path / "b.json").write_text('{"gpu": "H100", "nodes": 64, "pods": "B200:32:800"}')
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--format", "json"]) == 0
    values = json.loads(out.getvalue())["columns"][1]["values"]
    assert values["gpus"] == 768 and values["switches_total"] == 32
    assert values["capex_usd"] == pytest.approx(_expected(MIXED)["capex"], abs=0.01)
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 0
    table = out.getvalue()
    assert "GPUs" in table and "768" in table and usd(_expected(MIXED)["capex"]) in table
    assert "an all-reduce of 1 GiB across every pod" in table


def test_the_review_pack_shows_the_totals():
    from core.formats.report import design_report_html

    e = _expected(MIXED)
    html = design_report_html(plan(MIXED), name="Mixed", share_link="")
    keys = html[html.index('data-section="key-numbers"'):html.index('data-section="topology"')]
    assert 'data-key="gpus"' in keys and ">768<" in keys and f">{usd(e['capex'])}<" in keys
    bom = html[html.index('data-section="bom"'):]
    assert usd(e["capex"]) in bom
    assert "768 GPUs in 2 pods (H100 + B200, 96 nodes)" in html
    performance = html[html.index('data-section="performance"'):]
    assert "The job runs on pod 1: H100, 64 nodes, 512 GPUs" in performance
    on2 = design_report_html(plan(MIXED), name="Mixed", share_link="", job={"pod": 2})
    assert "The job runs on pod 2: B200, 32 nodes, 256 GPUs" in on2


def test_a_job_runs_on_the_chosen_pod():
    p = plan(Design(gpu="H100", nodes=64, pods="B300:32:800"))  # B300's Gen6 host feeds 800G: a faster pod
    assert pod_plan(plan(Design(gpu="H100", nodes=64)), 2)[1] is None
    on2, words = pod_plan(p, 2)
    assert on2.resolved.system.id == "B300" and on2.resolved.nodes == 32
    assert "pod 2: B300, 32 nodes, 256 GPUs" in words and "slowest pod's rate (pod 1)" in words
    assert pod_plan(p, 9)[0].resolved.system.id == "H100"  # out of range: the first pod
    alike = pod_plan(plan(Design(gpu="H100", nodes=64, pods="H100:32:400")), 2)[1]  # 400G H100 twice: one rate
    assert "Every pod has the same rate across pods" in alike and "slowest" not in alike


@pytest.mark.parametrize("lang, word", [("en", "The sweep varies one fabric"), ("zh", "2")])
def test_tools_that_vary_one_fabric_say_so(lang, word):
    with language(lang):
        assert word in one_fabric_only(MIXED, "sweep") and one_fabric_only(MIXED, "optimize")
    assert one_fabric_only(Design(gpu="H100", nodes=64), "sweep") is None


def _cards(at) -> dict[str, str]:
    """The key-number cards of a page: data-key -> shown value."""
    import re

    html = "".join(str(m.value) for m in at.markdown if "fp-cards" in str(m.value))
    return dict(re.findall(r'data-key="([^"]+)"[^>]*>.*?data-testid="stMetricValue">([^<]*)<', html))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_designer_cards_are_the_mixed_totals(lang):
    at = pagetest.opener("../pages/1_Designer.py")({**LINK, "tab": "Cost & power", "lang": lang})
    assert not at.exception and not at.error
    e = _expected(MIXED)
    cards = _cards(at)
    with language(lang):
        assert cards["gpus"] == "768" and cards["switches_leaf"] == "24" and cards["switches_spine"] == "8"
        assert cards["capex"] == usd(e["capex"]) and cards["capex_range"].startswith(usd(e["low"]))


def test_compare_page_compares_a_design_with_pods_by_its_totals():
    at = pagetest.opener("../pages/4_Compare.py")({"n": "64", "c1_name": "one", "c1_n": "64", "c2_name": "mixed",
                                                   "c2_n": "64", "c2_pods": "B200:32:800"})
    assert not at.exception and not at.error
    frame = at.dataframe[0].value
    row = frame[frame["metric"] == "GPUs"].iloc[0]
    assert str(row["2. mixed"]).replace(",", "") == "768"
    capex = frame[frame["metric"] == "Capex, whole cluster [USD]"].iloc[0]
    assert capex["2. mixed"] == usd(_expected(MIXED)["capex"])
    assert any("across every pod" in str(c.value).replace("\\", "") for c in at.caption)


def test_sweep_and_optimize_pages_say_they_vary_one_fabric():
    for page, words in (("../pages/5_Sweep.py", "The sweep varies one fabric"),
                        ("../pages/7_Optimize.py", "The optimizer searches one fabric")):
        at = pagetest.opener(page)(LINK)
        assert not at.exception and any(words in str(i.value) for i in at.info)


def test_performance_page_picks_the_pod():
    at = pagetest.opener("../pages/3_Performance.py")({**LINK, "perf_pod": "2"})
    assert not at.exception
    assert at.selectbox(key="perf_w_pod").value == 2
    captions = [str(c.value).replace("\\", "") for c in at.caption]
    assert any("The job runs on pod 2: B200, 32 nodes" in c for c in captions)
    assert any(c.startswith("256 x B200 in 32 nodes") for c in captions)  # the estimates' system: pod 2's


def test_the_review_workbook_holds_the_totals():
    import openpyxl

    from core.formats.xlsx import design_xlsx

    book = openpyxl.load_workbook(io.BytesIO(design_xlsx(whole_plan(plan(MIXED)))))
    rows = {row[0]: row[1] for row in book.worksheets[0].iter_rows(values_only=True) if row and row[0]}
    assert rows["GPUs"] == 768 and rows["Spine switches"] == 8
    assert rows["Capex, whole cluster"] == pytest.approx(_expected(MIXED)["capex"], abs=1)


@pytest.mark.parametrize("lang, words, job", [("en", "The deployment runs on pod 1: H100, 64 nodes", "The job"),
                                               ("zh", "部署运行在 Pod 1 上：H100，64 个节点", "作业")])
def test_inference_page_runs_on_the_chosen_pod(lang, words, job):
    """The Inference page names what runs on the pod as it does everywhere: the deployment, not a job."""
    at = pagetest.opener("../pages/8_Inference.py")({**LINK, "lang": lang})
    assert not at.exception
    assert at.selectbox(key="perf_w_pod").value == 1
    captions = [str(c.value).replace("\\", "") for c in at.caption]
    assert any(words in c for c in captions) and not any(job in c for c in captions)
    assert job not in at.selectbox(key="perf_w_pod").help


@pytest.mark.parametrize("workload, words", [("job", "The job runs on pod 2"),
                                             ("deployment", "The deployment runs on pod 2")])
def test_pod_words_name_the_workload(workload, words):
    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    text = pod_plan(p, 2, workload=workload)[1]
    assert text.startswith(words + ": B200, 32 nodes, 256 GPUs; the estimates use its system, NICs and leaves. Every ")
    with language("zh"):
        assert pod_plan(p, 2, workload=workload)[1].startswith(
            {"job": "作业", "deployment": "部署"}[workload] + "运行在 Pod 2 上：B200，32 个节点，256 个 GPU；估算使用该 Pod")


@pytest.mark.parametrize("args", [["--pods", "B200:32:800"], ["--pods", "B200:32:800", "--tiers", "3"], []])
def test_cli_plan_json_bill_is_the_whole_designs(args):
    """The top-level ``bom`` is the bill the capex sums (every pod's rows and the shared layer's), its rows' ``pod``
    the Designer's pod column (1-based, ``shared``); a single fabric's rows have no ``pod``; the bill is not repeated
    under ``mixed_pods``; the CSV has the same ``pod`` column."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["plan", "--nodes", "64", *args, "--format", "json"]) == 0
    s = json.loads(out.getvalue())
    assert sum(r["extended_price_usd"] for r in s["bom"]) == pytest.approx(s["cost"]["capex_usd"], abs=0.01)
    pods = {r.get("pod", "absent") for r in s["bom"]}
    assert pods == ({1, 2, "shared"} if args else {"absent"})
    assert "bom" not in s.get("mixed_pods", {})
    if args:
        computes = {r["pod"]: r["quantity"] for r in s["bom"] if r["category"] == "compute" and not r["spare"]}
        assert computes == {1: 64, 2: 32}
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["plan", "--nodes", "64", *args, "--format", "csv"]) == 0
    head, first = out.getvalue().splitlines()[:2]
    assert head.endswith(",spare,management,pod") == bool(args) and (first.endswith(",shared") == bool(args))
