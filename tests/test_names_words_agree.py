"""Names and words that agree (left47): every failure view names an element as the exports do, under the design's
own naming (its prefixes); a level-2 NVLink domain by its export name and the first-level domains it spans; the
drawing's view in its family's words; a design with pods counts its pod's level-2 NVLink units as one design does."""

from __future__ import annotations

import re

import pytest

from core.cli import main
from core.design import Design
from core.errors import InputError
from core.fabric.naming import NamingScheme
from core.plan import plan

PODS = ["--nodes", "64", "--pods", "B300:32:800"]
CUSTOM = NamingScheme(node_prefix="n", switch_prefix="sw-")
CUSTOM_FLAGS = ["--node-prefix", "n", "--switch-prefix", "sw-"]


def _cli(capsys, *argv) -> str:
    main([*argv])
    captured = capsys.readouterr()
    return captured.out + captured.err


# --- 2: an unknown name of a design with pods suggests export names ------------------------------------------------
@pytest.mark.parametrize("typed", ["R05-99", "R05-01 feedC"])
def test_an_unknown_name_inside_a_pod_suggests_the_pods_export_names(capsys, typed):
    """Not pod 1's ids (p0.spine1, node0.nic1) nor the whole fabric's (pod2.p0.leaf0): names the command takes."""
    text = _cli(capsys, "failure", *PODS, "--fail", typed)
    said = text.split("like ", 1)[1]
    assert "pod2-leaf001, spine001, pod2-gpu006 nic3, R05-02 feedA" in said, text
    assert not re.search(r"\bp0\.|\bnode\d|pod\d\.", said), text
    for example in ("pod2-leaf001", "spine001", "pod2-gpu006 nic3", "R05-02 feedA"):  # each one the command takes
        assert "failed: " + example in _cli(capsys, "failure", *PODS, "--fail", example)


def test_an_unknown_name_under_a_custom_prefix_suggests_that_prefix(capsys):
    text = _cli(capsys, "failure", *PODS, *CUSTOM_FLAGS, "--fail", "R05-99")
    assert "pod2-sw-leaf001, sw-spine001, pod2-n006 nic3" in text, text
    text = _cli(capsys, "failure", "--nodes", "64", *CUSTOM_FLAGS, "--fail", "R05-99")
    assert "sw-spine002" in text and "n001 nic2" in text and "gpu0" not in text, text


# --- 3: the level-2 NVLink note names its domain as the exports do -------------------------------------------------
def test_the_level2_note_names_the_domain_and_its_racks_one_based():
    """GB200 NVL72 at 576 GPUs in NVLink domains of 144 (4 first-level domains of 36 each): the second domain's unit 1
    is nvd002-l2sw01 (its name in NetBox and the cabling plan); the note names nvd002 and its first-level domains
    nvl005 to nvl008 (the Slurm block export's), not "NVLink domain 1"."""
    from core.analysis.failure import what_if

    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    note = next(n for n in what_if(p, ["nvd002-l2sw01"]).notes if "level-2" in n)
    assert note.startswith("NVLink domain nvd002 (nvl005 to nvl008) lost 1 of its 18 level-2"), note
    lost = next(n for n in what_if(p, ["domain0.l2switch0"]).notes if "level-2" in n)
    assert lost.startswith("NVLink domain nvd001 (nvl001 to nvl004) lost"), lost
    custom = next(n for n in what_if(p, ["sw-nvd001-l2sw01"], naming=CUSTOM).notes if "level-2" in n)
    assert custom.startswith("NVLink domain sw-nvd001 (sw-nvl001 to sw-nvl004)"), custom


def test_the_level2_note_in_chinese_names_the_same_domain():
    from core.analysis.failure import what_if
    from core.i18n import language

    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    with language("zh"):
        note = next(n for n in what_if(p, ["nvlink2:1"]).notes if "nvd" in n)
    assert "nvd001" in note and "nvl001" in note and "nvl004" in note and "域 0" not in note, note


# --- 4: the drawing's view in its family's words -------------------------------------------------------------------
@pytest.mark.parametrize("fields, said, unsaid", [
    (dict(gpu="H100", gpus=512, topology="torus"), "Every node drawn; no switches: nodes joined node to node",
     ("switch drawn", "scalable unit", "leaf")),
    (dict(gpu="H100", gpus=4096, topology="dragonfly"), "bundled by Dragonfly+ group and rail", ("block",)),
    (dict(gpu="H100", gpus=1024, topology="classic-dragonfly"), "routers and servers bundled by group", ("block",)),
    (dict(gpu="H100", gpus=256, topology="classic-dragonfly"), "Every router drawn; servers grouped per scalable unit",
     ("switch", "/ leaf")),
])
def test_the_drawio_title_and_the_figures_subtitle_use_the_familys_words(fields, said, unsaid):
    from core.figures.topology import topology_figure
    from core.formats.exports import export_text

    p = plan(Design(**fields))
    drawio = export_text(p, "drawio")
    title = re.search(r'id="title" value="([^"]*)"', drawio)[1].split("&lt;br&gt;")[-1]
    subtitle = topology_figure(p).layout.title.subtitle.text
    assert said in title and said in " ".join(subtitle.replace("<br>", " ").split()), (title, subtitle)
    assert not any(word in title.lower() for word in unsaid), title


def test_the_graphml_says_no_grouped_servers_where_it_draws_every_node(monkeypatch):
    """A torus's graph has every node whatever its size: its ``aggregated`` note says "no", not "servers grouped per
    scalable unit" (forced past the limit here)."""
    from core.formats import graphml
    from core.formats.exports import export_text

    monkeypatch.setattr(graphml, "MAX_ELEMENTS", 10)
    torus = export_text(plan(Design(gpu="H100", gpus=512, topology="torus")), "graphml")
    clos = export_text(plan(Design(gpu="H100", gpus=512)), "graphml")
    assert "servers grouped per scalable unit" not in torus and "servers grouped per scalable unit" in clos


# --- 5: a pod's two-level NVLink domain in the pods' switch summary ------------------------------------------------
def test_a_pods_level2_nvlink_units_are_counted_as_one_design_counts_them(capsys):
    """Pod 1 is GB200 NVL72 in a 144-GPU domain (36 nodes, 4 first-level domains of 36 GPUs): 18 level-2 switch
    units, as the design planned alone counts them (2,592 links over 144-port units = 18); the pods' switch total
    holds them as the single design's does: 16 leaves + 8 shared spines + 18 = 42."""
    from core.analysis.whole import whole_summary

    alone = plan(Design(gpu="GB200-NVL72", nodes=36, nvlink_domain_gpus=144)).summary()["switches"]
    assert alone["nvlink_level2"] == 18 and alone["total"] == alone["leaf"] + alone["spine"] + 18
    s = whole_summary(plan(Design(gpu="GB200-NVL72", nodes=36, nvlink_domain_gpus=144, pods="H100:32")))["switches"]
    assert (s["leaf"], s["spine"], s["nvlink_level2"], s["total"]) == (16, 8, 18, 42)
    text = _cli(capsys, "plan", "--gpu", "GB200-NVL72", "--nodes", "36", "--nvlink-domain", "144", "--pods", "H100:32")
    assert "total 42, of which NVLink level 2 18 (its switch units)" in text, text


# --- 6: custom prefixes in every failure view ----------------------------------------------------------------------
def test_the_failure_command_reads_and_says_a_custom_prefix(capsys):
    text = _cli(capsys, "failure", "--nodes", "64", *CUSTOM_FLAGS, "--fail", "sw-leaf003", "--fail", "n006 nic3",
                "--fail", "sw-leaf001 -> sw-spine002")
    assert text.startswith("failed: sw-leaf003, n006 nic3, sw-leaf001 -> sw-spine002"), text
    text = _cli(capsys, "failure", *PODS, *CUSTOM_FLAGS, "--fail", "sw-spine001", "--fail", "pod2-sw-leaf002",
                "--fail", "pod2-n006 nic3")
    assert text.startswith("failed: sw-spine001, pod2-sw-leaf002, pod2-n006 nic3"), text
    with pytest.raises(InputError):  # the default names are not this design's names
        from core.analysis.failure import resolve_failures

        resolve_failures(plan(Design(nodes=64)), ["n006 nic3"])


def test_a_pods_errors_and_notes_say_a_custom_prefix(capsys):
    """The whole fabric's unknown-element error and the notes of a pod's own what-if (a redundant feed of the hall's
    rack) under the design's naming, as its chips are."""
    text = _cli(capsys, "failure", *PODS, *CUSTOM_FLAGS, "--fail", "pod2-gpu999")
    assert "(such as sw-spine001)" in text and "(such as pod1-sw-leaf001)" in text, text
    text = _cli(capsys, "failure", *PODS, *CUSTOM_FLAGS, "--fail", "pod2-n006 nic3", "--fail", "R05-02 feedA")
    assert "failed: pod2-n006 nic3, R05-02 feedA" in text and "R05-02 feedA: redundant" in text, text


def test_the_spof_command_says_a_custom_prefix(capsys):
    text = _cli(capsys, "spof", "--nodes", "64", "--topology", "top-of-rack", *CUSTOM_FLAGS)
    assert "sw-leaf001 (p0.leaf0) leaf: 32 GPUs lost" in text, text
    text = _cli(capsys, "spof", *PODS, "--topology", "top-of-rack", *CUSTOM_FLAGS)
    assert "pod1-sw-leaf001 (pod1.p0.leaf0) leaf" in text, text


def test_the_review_pack_names_elements_under_the_designs_naming():
    from html import unescape

    from core.formats.report import design_report_html

    def section(html: str, ident: str) -> str:
        html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
        start = html.index(">", html.index(f'data-section="{ident}"')) + 1
        return " ".join(unescape(re.sub(r"<[^>]+>", " ", html[start:html.index("</section>", start)])).split())

    tor = plan(Design(nodes=64, topology="top-of-rack"))
    html = design_report_html(tor, name="", share_link="", resilience={"fail": ("p0.leaf1", "node5.nic2")},
                              naming=CUSTOM)
    assert "sw-leaf001 (p0.leaf0)" in section(html, "resilience")
    assert "Failed on the Resilience page: sw-leaf002, n006 nic3." in section(html, "failure-scenario")
    pods = plan(Design(nodes=64, pods="B300:32:800"))
    html = design_report_html(pods, name="", share_link="", naming=CUSTOM,
                              resilience={"fail": ("spine0", "pod2.p0.leaf1", "pod2.node5.nic2")})
    assert "Failed on the Resilience page: sw-spine001, pod2-sw-leaf002, pod2-n006 nic3." in section(
        html, "failure-scenario")


def test_the_resilience_page_shows_and_takes_the_links_naming():
    """The link's hand-off naming (nm_ keys): the chips and the single points under it, and a name typed under it
    failed."""
    from tests import pagetest

    link = {"n": "64", "t": "tor", "nm_np": "n", "nm_sp": "sw-", "lang": "en"}
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Single points of failure"}, timeout=180)
    frame = at.dataframe[0].value
    assert "sw-leaf001 (p0.leaf0)" in list(frame.iloc[:, 0]), frame.head()
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Failure what-if", "rs_fail": "p0.leaf1"},
                            timeout=180)
    assert at.multiselect(key="rs_w_failed").options == ["sw-leaf002"]  # the chip's label
    assert "sw-" in at.text_input(key="rs_w_names").placeholder
    at.text_input(key="rs_w_names").input("sw-leaf004, n006 nic3")
    at.button(key="rs_w_add_names").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert list(at.multiselect(key="rs_w_failed").value) == ["p0.leaf1", "p0.leaf3", "node5.nic2"]
