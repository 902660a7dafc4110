"""The last screenshot review's wording and layout findings, each checked where it is made: the accelerator's own
noun (NPU on Ascend) through ``core.scaleup.in_noun``, the collective library's own benchmark, the Performance
page's SHARP switch, compared fabric and control rows, the Inference page's precision column and turned tables,
each row's own scale-up word in the token-time chart, NVL36 racks named as such, a cloud adapter's transport in the
sidebar, the Optimize page's costlier-design sentence, wide Chinese card values and the NVLink drawing's boxes."""

from __future__ import annotations

import math
import re

from core.analysis.optimize import Candidate
from core.analysis.optimizewords import why_costlier
from core.catalog import load_catalog
from core.design import Design
from core.figures.keynumbers import CARD_REM, CARDS_CSS, KeyNumber, cards_html, key_numbers, serving_key_numbers, size_caption
from core.figures.perf import busbw_figure
from core.figures.racks import rack_elevation_figure
from core.figures.scaleup import scaleup_figure
from core.figures.serving import comparison_rows, fabric_load_rows, time_figure
from core.formats import inferencelink
from core.formats.joblink import default_comparison
from core.i18n import language
from core.perf.collectives import size_sweep, sweep
from core.perf.constants import test_tool as tool_of
from core.perf.servingform import estimate_on
from core.plan import plan
from core.scaleup import in_noun, other_rack
from tests.pagetest import open_page
from webui.tables import turned
from core.figures.style import full_title

ASCEND = dict(gpu="Atlas-800T-A2", nodes=4, fabric="ethernet")
GPU_WORD = "GPU"


def _says_gpu(text: str) -> bool:
    """``text`` names the GPU noun as a word (not inside a name such as GPUDirect)."""
    return bool(in_noun(text, {"accelerator_noun": "NPU"}) != text)


# --- the noun ---------------------------------------------------------------------------------------------------
def test_the_noun_is_the_catalogs_in_either_language_and_only_as_a_word():
    npu = load_catalog().system("Atlas-800T-A2")
    assert npu.accelerator_noun == "NPU"
    assert in_noun("Injection/GPU (1 dir)", npu) == "Injection/NPU (1 dir)"
    assert in_noun("as a share of a GPU's uplinks", npu) == "as a share of an NPU's uplinks"
    assert in_noun("每 GPU 资本支出", npu) == "每 NPU 资本支出"
    assert in_noun("GPUDirect RDMA on 8 GPUs", npu) == "GPUDirect RDMA on 8 NPUs"
    assert in_noun("8 GPUs", load_catalog().system("H100")) == "8 GPUs" and in_noun("8 GPUs", None) == "8 GPUs"


def test_an_ascend_designs_cards_say_npu_in_both_languages():
    summary = plan(Design(**ASCEND)).summary()
    for lang in ("en", "zh"):
        with language(lang):
            numbers = key_numbers(summary)
        assert not [n.label for n in numbers if _says_gpu(n.label)], lang
        assert any("NPU" in n.label for n in numbers if n.key in ("scaleout", "capex_per_gpu"))
    with language("en"):
        labels = {n.key: n.label for n in key_numbers(summary)}
    assert labels["gpus"] == "NPUs" and labels["scaleout"] == "Injection/NPU (1 dir)"
    assert {n.key: n.label for n in key_numbers(plan(Design(nodes=4)).summary())}["scaleout"] == "Injection/GPU (1 dir)"


def test_an_ascend_serving_estimate_says_npu_on_its_cards_and_table_headers():
    p = plan(Design(**ASCEND))
    e = estimate_on(p, inferencelink.DEFAULTS)
    system = p.resolved.system
    with language("en"):
        cards = [n.label for n in serving_key_numbers(e, system)]
        load = list(fabric_load_rows(e, "GB/s", system)[0])
        compared = list(comparison_rows([("a", e)], system)[0])
    assert "Output tokens/s per NPU in decode" in cards and "Fabric traffic per NPU" in load
    assert "Output tokens/s per NPU in decode" in compared
    assert "Output tokens/s per GPU in decode" in [n.label for n in serving_key_numbers(e)]  # None: GPUs


def test_the_busbw_chart_names_the_npus_and_the_librarys_own_benchmark():
    p = plan(Design(**ASCEND))
    fig = busbw_figure([sweep(p, "all-reduce", size_sweep(8, 2**20, 4), gpus=32)], system=p.resolved.system)
    assert "on 32 NPUs" in full_title(fig.layout.title) and "hccl_test" in fig.layout.xaxis.title.text
    assert [tool_of(n) for n in ("nccl", "rccl", "hccl")] == ["nccl-tests", "rccl-tests", "hccl_test"]
    h100 = plan(Design(nodes=4))
    fig = busbw_figure([sweep(h100, "all-reduce", size_sweep(8, 2**20, 4), gpus=32)], system=h100.resolved.system)
    assert "on 32 GPUs" in full_title(fig.layout.title) and "nccl-tests" in fig.layout.xaxis.title.text


# --- the Performance page -----------------------------------------------------------------------------------------
def _row_of(at, key: str) -> list[float]:
    """The column weights of the row (an ``st.columns`` block) holding widget ``key``."""
    def keys(node, out):
        for child in node.children.values():
            if getattr(child, "key", None):
                out.append(child.key)
            if hasattr(child, "children"):
                keys(child, out)
        return out

    def rows(node, out):
        for child in node.children.values():
            if hasattr(child, "children"):
                if child.children and all(type(c).__name__ == "Column" for c in child.children.values()):
                    out.append(child)
                rows(child, out)
        return out

    row = next(r for r in rows(at.main, []) if key in keys(r, []))
    return [c.weight for c in row.children.values()]


def test_performance_on_ascend_speaks_hccl_and_npus_without_sharp_and_compares_with_infiniband():
    at = open_page("../pages/3_Performance.py", {"v": "1", "g": "Atlas-800T-A2", "n": "4", "f": "eth"})
    assert not at.error
    assert "Calibrate on your measurements (hccl_test)" in [e.label for e in at.expander]
    assert "InfiniBand SHARP" not in [t.label for t in at.toggle]  # no SHARP on Ethernet: not shown
    assert at.selectbox(key="perf_w_cmp").value == "ib1"  # the other transport, not Ethernet again
    assert at.number_input(key="perf_w_jg").label == "NPUs in the communicator (0 = all)"
    assert at.number_input(key="perf_w_tg").label == "NPUs"
    # the training controls in rows of at most three, so "Compare with" and "CP exchange" fit at 1,024 px
    assert len(_row_of(at, "perf_w_cmp")) <= 3 and len(_row_of(at, "perf_w_cpc")) <= 3
    assert "auto (1; 2 if sharded)" in at.selectbox(key="perf_w_zero").options


def test_performance_on_infiniband_keeps_sharp_and_compares_with_ethernet():
    at = open_page("../pages/3_Performance.py", {"v": "1", "n": "4", "f": "ib"})
    assert "InfiniBand SHARP" in [t.label for t in at.toggle]
    assert at.selectbox(key="perf_w_cmp").value == "eth2" == default_comparison("infiniband")
    assert "Calibrate on your measurements (nccl-tests)" in [e.label for e in at.expander]


# --- the Inference page -------------------------------------------------------------------------------------------
def test_inference_precision_has_a_column_of_its_own_and_tables_are_turned():
    at = open_page("../pages/8_Inference.py", {"v": "1", "g": "Atlas-800T-A2", "n": "4", "f": "eth"})
    assert not at.error
    assert len(_row_of(at, "inf_w_prec")) == 4  # model, mode, precision, KV cache: not two in one column
    split = at.dataframe[0].value
    assert list(split.columns) == ["Pool", "prefill", "decode"] and "NPUs" in list(split["Pool"])
    # the what-if table's two rows are this design's: its noun; the last table mixes systems: GPUs
    assert any("Output tokens/s per NPU in decode" in list(d.value["Design"])
               for d in at.dataframe[:-1] if "Design" in d.value)
    assert "Output tokens/s per GPU in decode" in list(at.dataframe[-1].value["Design"])
    # four designs do not fit beside the field names at 1,024 px: the page says the table scrolls
    assert len(at.dataframe[-1].value.columns) > 4
    assert any("In a narrow window the table scrolls sideways to its last columns." in c.value for c in at.caption)


def test_turned_tables_put_each_item_in_a_column():
    frame = turned([{"Pod": 1, "Nodes": 64, "Batch": 260.1}, {"Pod": 2, "Nodes": 1024, "Batch": 16384.0}], "Pod")
    assert list(frame.columns) == ["Pod", "1", "2"]
    assert frame.values.tolist() == [["Nodes", "64", "1,024"], ["Batch", "260.1", "16,384"]]


def test_each_design_in_the_token_chart_keeps_its_own_scale_up_word():
    e = estimate_on(plan(Design(**ASCEND)), inferencelink.DEFAULTS)
    fig = time_figure({"ascend": e, "h100": e}, scaleup_links={"ascend": "HCCS", "h100": "NVLink"})
    bars = {t.name: list(t.x) for t in fig.data if t.type == "bar" and t.name in ("HCCS", "NVLink")}
    assert set(bars) == {"HCCS", "NVLink"}  # one legend entry each, not HCCS on the H100 row
    assert bars["HCCS"][1] == 0 and bars["NVLink"][0] == 0 and bars["HCCS"][0] == bars["NVLink"][1] > 0
    colours = {t.name: t.marker.color for t in fig.data if t.name in ("HCCS", "NVLink")}
    assert colours["HCCS"] != colours["NVLink"]


# --- NVL36 racks, cloud transport, Optimize, cards, drawings ------------------------------------------------------
def test_nvl36_racks_are_called_so():
    system = load_catalog().system("GB200-NVL72")
    assert other_rack(system, 36) == "NVL36" and other_rack(system, 72) is None
    assert other_rack(load_catalog().system("H100"), 8) is None
    p = plan(Design(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=576, nvlink_rack_gpus=36))
    with language("en"):
        assert ("576 GPUs in 16 NVL36 racks of GB200-NVL72 trays (144 compute trays of 4 GPUs), joined by a second "
                "NVLink level into 1 domain of 576 GPUs") == size_caption(p)
        fig = rack_elevation_figure(p.layout)
    assert "NVL72 compute tray" not in {t.name for t in fig.data}
    ticks = fig.layout.xaxis.ticktext
    if len(ticks) > 5:  # many racks: three level lines, none slanted and dropped at 1,024 px
        assert fig.layout.xaxis.tickangle == 0 and all(t.count("<br>") == 2 for t in ticks)


def test_the_sidebar_names_nvl36_racks_and_a_cloud_adapters_transport():
    at = open_page("../pages/1_Designer.py", {"v": "1", "g": "GB200-NVL72", "ng": "144", "nvd": "144", "nvr": "36"})
    assert any(s.label.startswith("Racks (GB200-NVL72: 9 trays each)") for s in at.sidebar.select_slider)
    at = open_page("../pages/1_Designer.py", {"v": "1", "g": "H100", "n": "8", "f": "eth", "nm": "EFA-P5",
                                               "nic": "32", "ps": "100"})
    fabric = at.sidebar.selectbox(key="w_fabric")
    assert fabric.options == ["InfiniBand", "AWS EFA"]  # EFA runs on the Ethernet option: SRD, not RoCE


def test_the_optimize_sentence_names_the_costlier_design_and_what_it_pays_for():
    best = Candidate(0, Design(fabric="ethernet"), capex_usd=100.0, network_capex_usd=10.0, switches=8, tiers=2)
    best.network_by_category = {"switch": 5.0}
    other = Candidate(1, Design(fabric="infiniband"), capex_usd=120.0, network_capex_usd=12.0, switches=8, tiers=2)
    other.network_by_category = {"switch": 6.0}
    with language("en"):
        text = why_costlier(best, other)
    assert text.startswith("the InfiniBand design spends $18 more outside the compute fabric")
    assert "compute nodes" not in text and "storage and management networks" in text


def test_a_long_chinese_card_value_widens_every_card_of_its_block():
    """Every card one column, the columns as wide as the widest value needs: no double-width card leaves a hole
    in its row (Chinese capex at 1,280 px, both pods' NVLink at 1,024 px), every row as tall as the tallest."""
    short = cards_html([KeyNumber("x", "GPU 数", "512", ""), KeyNumber("y", "IT", "52.9 kW", "")])
    html = cards_html([KeyNumber("leaf", "叶交换机", "云服务商提供", ""), KeyNumber("x", "GPU 数", "512", "")])
    width = lambda block: float(re.search(r"--fp-card: ([0-9.]+)rem", block)[1])
    assert width(short) == CARD_REM and width(html) > CARD_REM + 1.5  # 12 columns of Chinese, not 10 digits
    assert "span" not in CARDS_CSS and "grid-auto-rows: 1fr" in CARDS_CSS
    mixed = cards_html([KeyNumber("nvlink", "NVLink/GPU", "900 GB/s / 1.8 TB/s", ""), KeyNumber("x", "GPU", "768", "")])
    assert width(mixed) == width(html) and 'fp-wrap" data-key="nvlink"' in mixed  # a wider value wraps instead
    assert mixed.count("fp-wrap") == 1


def test_eight_gpu_boxes_of_the_nvlink_drawing_leave_room_between_them():
    fig = scaleup_figure(plan(Design(nodes=4)))
    boxes = next(t for t in fig.data if getattr(t.marker, "symbol", None) == "square")
    assert len(boxes.x) == 8 and boxes.marker.size <= 16  # 27 px apart at a 1,024 px window: room between them
    assert not math.isnan(boxes.marker.size)
    widths = [t.line.width for t in fig.data if t.mode == "lines"]
    assert widths and max(widths) <= 3  # 32 lines of up to 6 px merged into one block at 1,024 px


def test_the_ascend_mesh_drawing_counts_npus():
    fig = scaleup_figure(plan(Design(**ASCEND)))
    assert "links per NPU" in full_title(fig.layout.title) and "per GPU" not in full_title(fig.layout.title)
    assert any("NPU 0 - NPU 1" in str(t.hovertext) for t in fig.data)


def test_another_system_keeps_the_designs_fabric_and_its_switch():
    from webui.inference import alternative_design

    ascend = Design(gpu="Atlas-800T-A2", gpus=2048, switch="H3C-S9827-64EP")  # fabric: the system's own, Ethernet
    assert ascend.fabric is None and plan(ascend).resolved.fabric == "ethernet"
    nvl72 = plan(alternative_design(ascend, "nvl72", "ethernet", 2048))  # was InfiniBand under an Ethernet switch
    assert nvl72.resolved.fabric == "ethernet" and nvl72.resolved.gpus >= 2048  # whole racks


def test_the_size_says_which_domains_a_second_nvlink_level_joins_racks_into():
    """The size caption (Designer subtitle, Sweep's base sentence, the pack) names the NVLink domains a second level
    makes, on racks and on HGX nodes alike; one level says nothing more."""
    two = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    with language("en"):
        assert size_caption(two).endswith(", joined by a second NVLink level into 4 domains of 144 GPUs")
        assert size_caption(plan(Design(gpu="H100", gpus=256, nvlink_domain_gpus=256))) == (
            "256 x H100 in 32 nodes, joined by a second NVLink level into 1 domain of 256 GPUs")
        assert size_caption(plan(Design(gpu="GB200-NVL72", gpus=576))) == (
            "576 GPUs in 8 GB200-NVL72 racks (144 compute trays of 4 GPUs)")
        assert "NVLink" not in size_caption(plan(Design(gpu="H100", gpus=64)))
    with language("zh"):
        assert size_caption(two).endswith("），经第二级 NVLink 连成 4 个 NVLink 域，每个 144 个 GPU")
