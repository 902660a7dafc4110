"""Input rules shared by the link, the design file, the sidebar and the CLI (review 44): one GPU limit, said in the
user's terms with a way out that builds; a link key given twice is said, not silently taken."""

from __future__ import annotations

import pytest

from core.design import MAX_GPUS, Design, gpu_limit_problem, most_nodes
from core.errors import DesignError
from core.formats import sharelink
from core.plan import plan


def test_most_nodes_is_the_gpu_limit_in_whole_racks():
    assert most_nodes(8) == 125_000 and most_nodes(1) == MAX_GPUS
    assert most_nodes(4, 18) == 249_984  # 13,888 NVL72 racks of 18 trays of 4 GPUs: 999,936 GPUs
    assert gpu_limit_problem(125_000, 8) is None and gpu_limit_problem(125_001, 8) is not None
    assert gpu_limit_problem(249_984, 4, 18) is None and gpu_limit_problem(249_985, 4, 18) is not None


def test_a_link_over_the_gpu_limit_is_refused_at_the_field_in_gpus():
    design, warnings = sharelink.decode({"v": "1", "n": "1000000"})
    assert design.nodes == Design().nodes
    assert warnings == ["Link parameter 'n' (Nodes) = '1000000' was ignored: 1,000,000 nodes of 8 GPUs are "
                        "8,000,000 GPUs, over the limit of 1,000,000 GPUs. Accepted: 1 to 125,000 nodes of 8 GPUs."]
    assert len(warnings[0]) <= sharelink.MAX_WARNING_CHARS  # shown whole (capped_warnings)
    assert sharelink.decode({"v": "1", "n": "125000"}) == (Design(nodes=125_000), [])
    _design, warnings = sharelink.decode({"v": "1", "n": "250000", "g": "GB200-NVL72"})
    assert "250,000 nodes (250,002 in racks of 18) of 4 GPUs" in warnings[0] and "1 to 249,984 nodes" in warnings[0]
    assert len(warnings[0]) <= sharelink.MAX_WARNING_CHARS


@pytest.mark.parametrize("design", [Design(nodes=1_000_000), Design(gpus=MAX_GPUS, gpus_per_node=7)])
def test_a_design_over_the_gpu_limit_says_it_in_gpus_with_a_way_out_that_builds(design):
    with pytest.raises(DesignError) as info:
        plan(design)
    assert "GPUs, over the limit of 1,000,000 GPUs." in info.value.message
    ((phrase, changes),) = info.value.fixes
    assert phrase.startswith("plan at most") and phrase[1:] in str(info.value)
    fixed = plan(design.model_copy(update=changes))
    assert fixed.resolved.gpus <= MAX_GPUS


def test_a_link_key_given_twice_is_said_on_the_page_not_silently_taken():
    """``?v=1&n=8&n=9`` plans 9 nodes and says that the last value counted (a design file with a key twice is
    refused: the link cannot refuse, so it warns; nothing the user entered is silently lost)."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).with_name("apptest_entry.py")), default_timeout=120)
    at.query_params.update({"v": "1", "n": ["8", "9"], "ui_bw": ["gbit", "gbyte"], "lang": "en"})
    at.run()
    assert not at.exception
    from tests.test_app_pages import shown

    text = shown(" ".join(w.value for w in at.warning))
    assert "Link parameter 'n' (Nodes) is given 2 times; the last value, '9', was used." in text
    assert "Link parameter 'ui_bw'" in text and "is given 2 times; the last value, 'gbyte', was used." in text
    assert at.session_state["fp_current"].design.nodes == 9


def test_a_pasted_link_with_a_key_twice_says_which_value_counted():
    from core.formats import comparelink

    design, warnings = comparelink.design_from_link("https://x/?v=1&n=8&n=9")
    assert design.nodes == 9
    assert warnings == ["Link parameter 'n' (Nodes) is given 2 times; the last value, '9', was used."]


def _optimize_args(*flags: str):
    from core.cli import build_parser

    return build_parser().parse_args(["optimize", *flags])


@pytest.mark.parametrize(("flags", "expected"), [
    ((), ("H100", 32)),  # the default design's 4 nodes of 8, as plan and the web page take it
    (("--nodes", "16"), ("H100", 128)),
    (("--gpu", "GB200-NVL72"), ("GB200-NVL72", 72)),  # 4 trays come as one whole NVL72 rack: 18 x 4
    (("--gpus", "512"), ("H100", 512)),
    (("--budget-usd", "1e7"), ("H100", None)),  # the most GPUs that fit are searched
])
def test_optimize_takes_the_designs_size_when_gpus_is_not_given(flags, expected):
    from core.cli.optimize import _searched_size

    assert _searched_size(_optimize_args(*flags)) == (*expected, None)  # no design file: no base design


def test_optimize_takes_a_design_files_size_and_nodes_over_it(tmp_path):
    from core.cli.optimize import _searched_size

    path = tmp_path / "d.json"
    path.write_text(Design(gpu="B200", nodes=8).to_json())
    assert _searched_size(_optimize_args("--design", str(path)))[:2] == ("B200", 64)
    assert _searched_size(_optimize_args("--design", str(path), "--nodes", "2"))[:2] == ("B200", 16)
    assert _searched_size(_optimize_args("--design", str(path)))[2] == Design(gpu="B200", nodes=8)  # the search's base


def test_optimize_without_a_size_answers(capsys):
    from core.cli import main

    code = main(["optimize", "--fabric", "infiniband", "--switches", "QM9700", "--oversubscription-grid", "1",
                 "--topologies", "rail-optimized", "--single-model", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "32 x H100 in 4 nodes" in out


@pytest.mark.parametrize("typed", ["-1", "1e9", "0"])
def test_fx_rate_echoes_what_was_typed(capsys, typed):
    from core.cli import main

    assert main(["plan", "--fx-rate", typed]) == 2
    err = capsys.readouterr().err
    assert f"--fx-rate '{typed}' is not a rate of USD" in err, err


@pytest.mark.parametrize("fmt", ["astra-sim", "slurm"])
@pytest.mark.parametrize("design", [Design(nodes=64), Design(nodes=64, fabric="ethernet"),
                                    Design(gpu="GB200-NVL72", nodes=36)])
def test_export_headers_name_the_design_in_the_designers_words(fmt, design):
    """The design line of the ASTRA-sim and Slurm headers is the Designer's subtitle (``InfiniBand``, ``Ethernet
    RoCE``), not engine ids (``infiniband``)."""
    from core.figures.subtitle import design_subtitle
    from core.formats.exports import export_text

    built = plan(design)
    header = [line for line in export_text(built, fmt).splitlines() if line.lower().startswith("# design:")]
    assert len(header) == 1 and design_subtitle(built) in header[0]
    assert "infiniband" not in header[0] and "ethernet" not in header[0]


SHARE = "http://localhost:8501/?v=1&n=64&pods=B200%3A32%3A800&name=" + "a" * 120


def test_the_packs_share_link_copies_as_a_working_address():
    """The visible share link is its address exactly, no invisible U+200D (copied from the HTML it works); it
    wraps by CSS (``.fp-link``: ``word-break: break-all``)."""
    from core.formats import report

    document = report.design_report_html(plan(Design(nodes=4)), name="x", share_link=SHARE)
    escaped = SHARE.replace("&", "&amp;")
    assert f'<a href="{escaped}">{escaped}</a>' in document
    assert "\u200d" not in document.split('class="fp-link"')[1].split("</p>")[0]
    assert ".fp-title .fp-link {" in document and "word-break: break-all" in document


def test_the_pdf_packs_share_link_text_is_the_address():
    from core.formats import report

    if report.chromium_problem():
        pytest.skip("no Chromium to print the PDF")
    pdfium = pytest.importorskip("pypdfium2")
    pdf = report.design_report_pdf(plan(Design(nodes=4)), name="x", share_link=SHARE)
    first = pdfium.PdfDocument(pdf)[0].get_textpage().get_text_range()
    assert "\u200d" not in first
    assert SHARE in "".join(first.split())  # the same characters, wrapped over lines


def test_a_pod_example_is_shown_as_typed():
    """The pods' error example ``B200:32:800@1`` and ``SYSTEM:NODES[:GBPS][@STAGE`` carry no U+200D (no e-mail
    address follows the ``@``: nothing to unlink), so they copy as typed."""
    from core.text import html_text, unlinked

    for text in ("B200:32:800@1", "SYSTEM:NODES[:GBPS][@STAGE"):
        assert unlinked(text) == text and "\u200d" not in html_text(text)
    assert unlinked("me@ev.il") == "me@\u200dev.il"  # an e-mail address is still never linked


def test_the_oversubscription_what_if_speaks_users_words():
    """The Bandwidth tab's what-if says what each point is, not how the code got it ("re-planned by the engine")."""
    from core.analysis.whatif import oversubscription_sweep
    from core.figures.bandwidth import oversubscription_figure
    from webui.tablefit import SWEEP_SHORT

    fig = oversubscription_figure(oversubscription_sweep(Design(nodes=64)), 1.0)
    title = fig.layout.title.text.replace("<br>", " ")
    assert "engine" not in title and "this design planned at each ratio" in title
    assert not any("engine" in (words or "") for _short, words in SWEEP_SHORT.values())


def test_the_gpu_limit_says_its_own_way_out_first_then_the_switch_limit():
    """review45 4.3: `plan --nodes 1000000` said "over the limit of 1,000,000 GPUs. Plan at most 8,192 nodes (65,536
    GPUs).": the three-tier QM9700 limit as the GPU limit's way out. Now the GPU limit's own (125,000 nodes of 8 GPUs
    = 1,000,000 GPUs, as the link check's "Accepted: 1 to 125,000 nodes"), then the switch limit in its own
    sentences (three tiers of the 64-port QM9700 hold 64 x 32 x 32 = 65,536 ports a plane: 8,192 nodes of 8 rails)."""
    with pytest.raises(DesignError) as info:
        plan(Design(nodes=1_000_000))
    text = str(info.value)
    first = "over the limit of 1,000,000 GPUs. Plan at most 125,000 nodes (1,000,000 GPUs). "
    assert first in text
    rest = text.split(first, 1)[1]
    assert rest.startswith("125,000 nodes (1,000,000 GPUs) need more than three tiers of QM9700")
    assert rest.endswith("Plan at most 8,192 nodes (65,536 GPUs).")
    ((phrase, changes),) = info.value.fixes
    assert phrase[1:] in text and changes["nodes"] == 8_192
    assert plan(Design(nodes=1_000_000).model_copy(update=changes)).resolved.gpus == 65_536
