"""The product speaks the design's own words: a design whose scale-up domain is not NVLink (Ascend HCCS, AMD
Infinity Fabric, Gaudi's RoCE ports) never reads "NVLink", "NVSwitch" or "DCGM" in the plan command, the review
pack or the Designer, in English or Chinese, while an NVIDIA design still does; Ascend accelerators are counted as
NPUs; exports name what they write for the design; one rounding of a share and one ratio format."""

from __future__ import annotations

import contextlib
import html
import io
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from core.catalog import load_catalog
from core.design import Design
from core.formats import sharelink
from core.formats.exports import exports
from core.i18n import language
from core.plan import plan
from core.scaleup import accelerator_noun, domain_word, link_word
from tests.pagetest import ENTRY

NVIDIA_WORDS = re.compile(r"NVLink|NVSwitch|DCGM")
DESIGNS = {
    "ascend": Design(gpu="Atlas-800T-A2", nodes=8, fabric="ethernet", switch="H3C-S9827-64EP"),
    "amd": Design(gpu="MI355X", nodes=8, fabric="ethernet"),
    "gaudi": Design(gpu="Gaudi3", nodes=8, fabric="ethernet"),
}
DGX = Design(gpu="H100", nodes=8)
LANGS = ("en", "zh")
CASES = [(name, lang) for name in DESIGNS for lang in LANGS]


def _cli(*argv: str) -> str:
    from core.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def _plan_text(design: Design, lang: str, tmp_path) -> str:
    path = tmp_path / "design.json"
    path.write_text(design.to_json())
    return _cli("--lang", lang, "plan", "--design", str(path))


def _report_text(design: Design, lang: str) -> str:
    from core.formats.report import design_report_html

    with language(lang):
        markup = design_report_html(plan(design), name="words", share_link="", unit="GB/s")
    return html.unescape(re.sub(r"<[^>]+>", " ", markup))


def _texts(node):
    """Every element's protobuf text under an AppTest node: labels, help, values, chart specs."""
    proto = getattr(node, "proto", None)
    if proto is not None:
        yield str(proto)
    for child in getattr(node, "children", {}).values():
        yield from _texts(child)


def _designer_text(design: Design, lang: str, tab: str) -> str:
    at = AppTest.from_file(ENTRY, default_timeout=240)
    at.query_params.update({**sharelink.encode(design), "lang": lang, "tab": tab})
    at.run()
    assert not at.exception, at.exception
    return "\n".join(_texts(at._tree))


@pytest.mark.parametrize("name, lang", CASES)
def test_plan_command_names_the_designs_scale_up(name, lang, tmp_path):
    design = DESIGNS[name]
    text = _plan_text(design, lang, tmp_path)
    assert not NVIDIA_WORDS.search(text), NVIDIA_WORDS.search(text)
    system = load_catalog().system(design.gpu)
    assert system.scaleup_name in text
    with language(lang):
        noun = accelerator_noun(system, plural=True)
    assert (noun in text.splitlines()[0]) and (("NPU" in noun) == (name == "ascend"))


@pytest.mark.parametrize("lang", LANGS)
def test_an_nvidia_design_still_says_nvlink(lang, tmp_path):
    assert "NVLink" in _plan_text(DGX, lang, tmp_path)
    assert "NVLink" in _report_text(DGX, lang)
    assert "NVLink" in _designer_text(DGX, lang, "Bandwidth")
    hand_off = _designer_text(DGX, lang, "Hand-off")
    assert "DCGM" not in hand_off and "dcgm_exporter" in hand_off and "NVLink" in hand_off


@pytest.mark.parametrize("name, lang", CASES)
def test_review_pack_names_the_designs_scale_up(name, lang):
    text = _report_text(DESIGNS[name], lang)
    assert not NVIDIA_WORDS.search(text), text[max(0, NVIDIA_WORDS.search(text).start() - 200):][:400]
    assert load_catalog().system(DESIGNS[name].gpu).scaleup_name in text


@pytest.mark.parametrize("name, lang", CASES)
@pytest.mark.parametrize("tab", ["Topology", "Bandwidth", "Hand-off"])
def test_designer_names_the_designs_scale_up(name, lang, tab):
    text = _designer_text(DESIGNS[name], lang, tab)
    found = NVIDIA_WORDS.search(text)
    assert not found, text[max(0, found.start() - 200):][:400]
    if tab == "Hand-off":  # an Ethernet design is offered no InfiniBand tool, and the exports say what they hold
        assert "ibsim" not in text and "ibnetdiscover" not in text
        assert "node_exporter" in text


def test_the_words_come_from_the_catalog():
    catalog = load_catalog()
    ascend, amd, gaudi, h100 = (catalog.system(s) for s in ("Atlas-800T-A2", "MI355X", "Gaudi3", "H100"))
    with language("en"):
        assert [link_word(s) for s in (ascend, amd, h100)] == ["HCCS", "Infinity Fabric (xGMI)", "NVLink"]
        assert [domain_word(s) for s in (ascend, amd, gaudi, h100)] == [
            "HCCS domain", "scale-up domain", "scale-up domain", "NVLink domain"]
        assert (accelerator_noun(ascend), accelerator_noun(h100, plural=True)) == ("NPU", "GPUs")
    with language("zh"):
        assert (domain_word(ascend), domain_word(amd), accelerator_noun(ascend, plural=True)) == (
            "HCCS 域", "纵向扩展域", "NPU")
    # a system declares NVLink only with an NVLink generation
    for system in catalog.systems:
        assert (system.scaleup_name == "NVLink") == (system.nvlink_generation > 0), system.id


def test_spof_and_training_words_on_a_mesh():
    from core.analysis.spof import degrading_label, single_points
    from core.perf.placement import level_label

    p = plan(DESIGNS["ascend"])
    with language("en"):
        result = single_points(p)
        mesh = next(d for d in result.degrading if d.tier == "meshlink")
        assert degrading_label(mesh).startswith("lowers the scale-up bandwidth of its 2 GPUs")
        assert "single" not in result.notes[0] and "HCCS mesh link" in result.notes[0]
        assert level_label("nvlink", p.resolved.system) == "HCCS" and level_label("nvlink") == "nvlink"
    with language("en"):
        assert "single NVLink links" in single_points(plan(DGX)).notes[0]
    from core.analysis.failure import what_if
    from core.figures.resilience import what_if_rows

    with language("zh"):
        rows = [r[0] for r in what_if_rows(what_if(p, ["meshlink:2"]), "GB/s", p.resolved.system)]
    assert "HCCS 带宽降低的 GPU" in rows and "单个 HCCS 域内 all-reduce 总线带宽，1 GiB" in rows
    assert not any(NVIDIA_WORDS.search(r) for r in rows)


def test_exports_declare_where_they_apply():
    ethernet, infiniband = plan(DESIGNS["ascend"]), plan(DGX)
    registry = exports()
    assert not registry["ibsim"].fits(ethernet) and registry["ibsim"].fits(infiniband)
    with language("en"):
        block = registry["slurm-block"].label_for(ethernet)  # the vendor's domain word; blocks as the file writes them
        assert "HCCS domain" in block and "NVLink" not in block
        prometheus = registry["prometheus"].label_for(ethernet)
        assert "DCGM" not in prometheus and "node_exporter" in prometheus
        assert "dcgm_exporter" in registry["prometheus"].label_for(infiniband)


def test_one_rounding_of_the_network_share_and_one_ratio_format():
    from core import units
    from core.figures.keynumbers import cost_key_numbers, key_numbers

    p = plan(Design(gpu="Atlas-800T-A2", gpus=2048, fabric="ethernet", switch="H3C-S9827-64EP"))
    with language("en"):
        share = next(k for k in cost_key_numbers(p) if k.key == "network_share").value
        capex = next(k for k in key_numbers(p.summary(), "GB/s") if k.key == "capex").help
    assert f"({share})" in capex
    assert json.loads(json.dumps(p.summary()["cost"]))["network_share"] == round(p.cost.network_share, 4)
    assert units.ratio(4 / 3) == "1.33:1" and units.ratio(2) == "2:1"


def test_the_collectives_table_writes_times_in_the_one_microsecond_format():
    from core.figures.perf import collective_table_rows
    from core import units
    from core.i18n import _
    from core.perf.jobform import COLLECTIVE_COLUMNS, collective_rows

    p = plan(DESIGNS["ascend"])
    with language("en"):
        rows = collective_rows(p, ["all-reduce"], p.resolved.gpus, [2**34])
        shown = collective_table_rows(rows, "GB/s")[0][_("time")]
        value = rows[0][_(COLLECTIVE_COLUMNS[3])]
        assert value >= 1000 and shown == units.microseconds(value) and "," in shown and shown.endswith(" µs")


def test_failure_tiers_of_a_unified_bus_domain_are_not_nvlink_words(capsys):
    """CloudMatrix 384's switch chips and trays are its Unified Bus's, in the spof command and the tier words; a
    DGX GB200 NVL72 keeps NVIDIA's."""
    from core.analysis.failure import tier_label
    from core.catalog import load_catalog
    from tests.conftest import run_cli

    catalog = load_catalog()
    cm, nvl = catalog.system("CloudMatrix384"), catalog.system("GB200-NVL72")
    assert "NV" not in tier_label("nvswitch", cm) and "NV" not in tier_label("tray", cm)
    assert tier_label("nvswitch", nvl) == "NVSwitch chip" and tier_label("tray") == "NVLink switch tray"
    code, out, _err = run_cli(capsys, "--lang", "en", "spof", "--gpu", "CloudMatrix384", "--nodes", "96")
    assert code == 0 and "NVSwitch" not in out and "NVLink switch" not in out
