"""One design, one story: the command line, the pages and the review pack say the same about a design.

* The default training job is declared once (``core.perf.training.DEFAULT_*``, ``default_split``): ``python -m core
  train``, the Performance page and the review pack give the same split, days, MFU and cost.
* The storage and management networks buy the compute fabric maker's switches (or a generic class entry) and say
  so; UFM only on InfiniBand; Base Command Manager only on NVIDIA systems; coded optics in another maker's switch
  say so.
* The serving precision defaults to one the accelerator has (``auto``); a precision error names the option.
* A cloud design is labelled by its transport; its provider's links and switches are not counted as failing, nor
  offered without saying they are the stand-in; no storage or management rack is drawn.
* The review pack writes every money figure in its currency.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core import vocab
from core.design import Design, parse_design
from core.i18n import language, money_context, usd
from core.plan import plan
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
PERF_PAGE = str(ROOT / "pages" / "3_Performance.py")
H3C = dict(gpu="Atlas-800T-A2", gpus=2048, fabric="ethernet", switch="H3C-S9827-64EP")
H3C_ARGS = ["--gpu", "Atlas-800T-A2", "--gpus", "2048", "--fabric", "ethernet", "--switch", "H3C-S9827-64EP"]
CARD = re.compile(r'data-testid="stMetricLabel">(.*?)</div><div class="fp-value" data-testid="stMetricValue">(.*?)'
                  r'</div>')


def _cards(at) -> dict[str, str]:
    return {html.unescape(k): html.unescape(v) for m in at.markdown for k, v in CARD.findall(str(m.value))}


# --- the default training job ---------------------------------------------------------------------------------
def test_cli_train_page_and_pack_run_the_same_default_job(capsys):
    """The H3C Ascend design of the audit: one job, one answer on every surface."""
    from core.formats.report import report_job_settings
    from core.perf import jobform

    code, out, err = run_cli(capsys, "train", *H3C_ARGS, "--format", "json")
    assert code == 0, err
    cli = json.loads(out)
    p = plan(parse_design(H3C))
    settings = report_job_settings(p)  # the pack's job: the Performance page's defaults fitted to the design
    e = jobform.estimate_under(p, jobform.job_from_settings(p, settings), settings)
    assert (settings["tp"], settings["pp"], settings["gbs"]) == (cli["parallelism"]["tp"], cli["parallelism"]["pp"],
                                                                  cli["global_batch"])
    assert e.step_time_s == pytest.approx(cli["step_time_s"], abs=1e-4)
    assert e.days_to_train == pytest.approx(cli["days_to_train"], rel=1e-3)
    assert e.mfu == pytest.approx(cli["mfu"], abs=1e-4)
    assert e.cost_usd == pytest.approx(cli["cost_usd"], rel=1e-3)

    at = AppTest.from_file(PERF_PAGE, default_timeout=120)
    for key, value in {"v": "1", "g": H3C["gpu"], "ng": str(H3C["gpus"]), "f": "eth", "sw": H3C["switch"]}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception and not at.error, [x.value for x in at.error]
    assert (at.number_input(key="perf_w_tp").value, at.number_input(key="perf_w_pp").value,
            at.number_input(key="perf_w_gbs").value) == (cli["parallelism"]["tp"], cli["parallelism"]["pp"],
                                                         cli["global_batch"])
    cards = _cards(at)
    assert cards["Days to train"] == f"{cli['days_to_train']:,.1f}"
    assert cards["MFU"] == f"{cli['mfu']:.1%}"


def test_the_job_defaults_are_declared_once():
    from core.formats.joblink import DEFAULTS
    from core.perf import training

    assert (DEFAULTS["model"], DEFAULTS["seq"], DEFAULTS["gbs"], DEFAULTS["tp"], DEFAULTS["pp"]) == (
        training.DEFAULT_MODEL, training.DEFAULT_SEQ_LEN, training.DEFAULT_GLOBAL_BATCH, training.DEFAULT_TP,
        training.DEFAULT_PP)
    assert training.TrainingJob.model_fields["global_batch"].default == training.DEFAULT_GLOBAL_BATCH


# --- storage and management networks -------------------------------------------------------------------------
def _rows(p, network: str, category: str):
    return [r for r in p.bom if r.network == network and r.category == category]


def test_another_makers_fabric_buys_its_own_or_generic_storage_and_management_switches():
    p = plan(parse_design(H3C))
    storage = _rows(p, "storage", "switch")
    assert storage and all("H3C S9827-64EP" in r.item and "made by H3C" in r.why for r in storage)
    for network, model in (("inband", "MGMT-64X100G"), ("oob", "OOB-48X1G")):
        rows = _rows(p, network, "switch")
        assert rows and all(r.catalog_id == model and "generic class entry" in r.why for r in rows), rows
    heads = [r for r in _rows(p, "inband", "appliance") if "head" in r.item.lower()]
    assert heads and all("Base Command" not in r.item and r.catalog_id == "HEAD-NODE-GENERIC" for r in heads)
    text = " ".join(p.networks.storage.explanation + p.networks.oob.explanation)
    assert "UFM" not in text and not any("UFM" in r.why + r.item for r in p.bom)
    coded = [r for r in p.bom if r.network == "compute" and r.category == "transceiver" and r.end == "switch"]
    assert coded and all("NVIDIA's part number" in r.why and "H3C switch" in r.why for r in coded)


def test_an_nvidia_infiniband_design_keeps_the_reference_architectures_choices():
    p = plan(Design(nodes=128))
    assert {r.catalog_id for r in _rows(p, "inband", "switch")} == {"SN4600C"}
    assert {r.catalog_id for r in _rows(p, "oob", "switch")} == {"SN2201"}
    assert {r.catalog_id for r in _rows(p, "storage", "switch")} == {"QM9700"}
    assert any(r.catalog_id == "HEAD-NODE" for r in _rows(p, "inband", "appliance"))
    assert any("UFM" in s for s in p.networks.storage.explanation)
    assert not any("part number" in r.why for r in p.bom)


def test_the_new_catalog_entries_are_sourced_and_marked():
    from core.catalog import load_catalog

    catalog = load_catalog()
    for entry in (catalog.switch("MGMT-64X100G"), catalog.switch("OOB-48X1G"),
                  catalog.appliance("HEAD-NODE-GENERIC")):
        assert entry.vendor == "Generic" and entry.price_basis == "estimate" and entry.as_of
        assert entry.price_low_usd <= entry.price_usd <= entry.price_high_usd
        assert "[A]" in entry.price_source or "unsourced" in entry.price_source
        assert entry.source


# --- serving precision -----------------------------------------------------------------------------------------
def test_serve_defaults_to_a_precision_the_accelerator_has(capsys):
    code, out, err = run_cli(capsys, "serve", *H3C_ARGS, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["precision"] == "bf16"  # Ascend 910B has no FP8 matrix units


def test_a_precision_the_accelerator_lacks_names_the_option_not_the_design(capsys):
    code, out, err = run_cli(capsys, "serve", *H3C_ARGS, "--precision", "fp8")
    assert code == 2 and not out
    assert "--precision" in err and "matrix units" in err and "bf16" in err
    assert "cannot build" not in err and "Tensor" not in err and "tensor" not in err


def test_inference_page_opens_on_ascend_with_its_precision():
    app = AppTest.from_file(str(ROOT / "tests" / "apptest_entry.py"), default_timeout=180)
    for key, value in {"v": "1", "g": H3C["gpu"], "ng": str(H3C["gpus"]), "f": "eth", "sw": H3C["switch"]}.items():
        app.query_params[key] = value
    app.run().switch_page("../pages/8_Inference.py").run()
    assert not app.exception and not app.error, [x.value for x in app.error]
    box = app.selectbox(key="inf_w_prec")
    assert box.value == "auto" and box.format_func("auto") == "auto (BF16)"


# --- a cloud design --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cloud():
    from core.presets import find_preset

    return plan(find_preset("aws-p5-efa").design)


def test_a_cloud_design_is_labelled_by_its_transport(cloud, capsys):
    r = cloud.resolved
    assert vocab.fabric_label(r.fabric, r.nic.transport) == "AWS EFA"
    assert vocab.fabric_label("ethernet") == vocab.FABRIC.label("ethernet")
    code, out, _err = run_cli(capsys, "plan", "--preset", "aws-p5-efa")
    assert code == 0 and "AWS EFA 100G" in out.splitlines()[0] and "RoCE" not in out.splitlines()[0]
    links = next(line for line in out.splitlines() if line.startswith("links"))
    assert "cloud provider's" in links


def test_a_cloud_designs_links_card_is_the_providers(cloud):
    from core.figures.keynumbers import key_numbers

    links = next(k for k in key_numbers(cloud.summary(), "GB/s") if k.key == "links")
    assert links.value == "provider's" and "stand-in" in links.help


def test_availability_leaves_out_the_providers_links_and_switches(cloud):
    from core.analysis.availability import availability

    a = availability(cloud, trials=200)
    assert a.elements["switch"] == 0 and a.elements["link"] == 0
    assert a.expected_down["switch"] == 0 and a.expected_down["link"] == 0
    assert a.notes and "cloud provider's" in a.notes[0]
    bought = availability(plan(Design(nodes=64, fabric="ethernet")), trials=200)
    assert bought.elements["switch"] > 0 and not bought.notes


def test_what_if_on_a_cloud_design_says_the_switches_are_the_stand_in(cloud):
    from core.analysis.failure import what_if

    result = what_if(cloud, ["leaf:1"])
    assert any("stand-in" in note for note in result.notes)
    assert not any("stand-in" in n for n in what_if(plan(Design(nodes=64)), ["leaf:1"]).notes)


def test_a_cloud_design_draws_no_storage_or_management_rack(cloud):
    racks = cloud.summary()["racks"]
    assert racks["storage"] == 0 and racks["management"] == 0
    assert any("cloud provider's" in note for note in cloud.layout.notes)


def test_the_comparison_with_a_bought_fabric_is_a_what_if(cloud):
    from core.perf.jobform import bought_what_if

    label, sentence = bought_what_if(cloud, "Ethernet RoCE 2:1")
    assert label.startswith("what-if") and "AWS EFA" in sentence
    assert bought_what_if(plan(Design(nodes=8)), "Ethernet RoCE 2:1") == ("Ethernet RoCE 2:1", "")


# --- money in the review pack ---------------------------------------------------------------------------------
def test_the_packs_assumptions_write_the_electricity_price_in_its_currency():
    from core.formats import report

    p = plan(Design(nodes=4))
    with language("zh"), money_context("CNY"):
        document = report.design_report_html(p, name="Lab", share_link="http://localhost:8501/?v=1&n=4")
        price = usd(p.design.electricity_usd_per_kwh, cents=True)
    assert "USD/kWh" not in document and "美元/kWh" not in document
    assert f"{price}/kWh" in document and price.endswith("元")


def test_the_designer_names_a_cloud_designs_transport_and_its_links_the_providers():
    app = AppTest.from_file(str(ROOT / "tests" / "apptest_entry.py"), default_timeout=180)
    app.query_params["preset"] = "aws-p5-efa"
    app.run()
    assert not app.exception
    captions = " ".join(str(c.value) for c in app.caption)
    assert "AWS EFA" in captions and "RoCE" not in captions
    assert _cards(app)["Links"] == "provider's"


def test_the_resilience_page_says_a_cloud_designs_switches_are_the_stand_in():
    app = AppTest.from_file(str(ROOT / "tests" / "apptest_entry.py"), default_timeout=180)
    app.query_params["preset"] = "aws-p5-efa"
    app.run().switch_page("../pages/6_Resilience.py").run()
    assert not app.exception
    assert any("Clos the collective model counts hops on" in str(i.value).replace("\\", "") for i in app.info)
