"""Mixed pods on the Designer (AppTest): the pods section from a link, the sidebar's "add a pod" form, the growth
stages of the pods on the Racks & cabling tab, a bad pod said with a message; both languages."""

from __future__ import annotations

import re

import pytest

from core.figures.style import full_title
from streamlit.testing.v1 import AppTest

from tests.pagetest import ENTRY

LINK = {"n": "64", "pods": "B200:32:800@1"}


def _designer(tab: str = "Topology", lang: str = "en", link: dict = LINK) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({**link, "tab": tab, "lang": lang})
    return at.run()


@pytest.mark.parametrize("lang, words", [("en", "Shared spines**: 8 Q3400"), ("zh", "Q3400")])
def test_pods_section_from_a_link(lang, words):
    at = _designer(lang=lang)
    assert not at.exception and not at.error
    assert any(words in str(m.value).replace("\\", "") for m in at.markdown)
    frame = at.dataframe[0].value  # a column per pod, a row per field (webui.tables.turned): model, stage, nodes, ...
    assert list(frame.iloc[0, 1:]) == ["H100", "B200"] and list(frame.iloc[4, 1:]) == ["16", "8"]
    assert at.text_input(key="w_pods").value == "B200:32:800@1"


def test_add_a_pod_from_the_sidebar():
    at = _designer(link={"n": "64"})
    at.selectbox(key="w_pod_add_system").set_value("B200")
    at.number_input(key="w_pod_add_nodes").set_value(32)
    at.selectbox(key="w_pod_add_speed").set_value(800)
    at.number_input(key="w_pod_add_stage").set_value(1)
    at.button(key="fp_pod_add").click().run()
    assert not at.exception and not at.error
    assert at.text_input(key="w_pods").value == "B200:32:800@1"
    assert any("Shared spines**: 8 Q3400" in str(m.value).replace("\\", "") for m in at.markdown)


def test_growth_stages_of_the_pods_on_the_cabling_tab():
    at = _designer("Racks & cabling", link={**LINK, "pfin": "1"})
    assert not at.exception and not at.error
    cells = " ".join(str(frame.value.to_dict()) for frame in at.dataframe)
    assert "pod 1 H100 64, pod 2 B200 0 → 32" in cells and "64 → 96" not in cells  # per pod, never added up


def test_a_bad_pod_is_a_message_with_a_way_out():
    at = _designer(link={"n": "64", "pods": "B200:32"})
    at.text_input(key="w_pods").set_value("B200:32,X100:8").run()  # typed in the sidebar: sized, then refused
    assert not at.exception
    shown = " ".join(str(e.value).replace("\\", "") for e in at.error)  # the design's error, as any design's
    assert "This design cannot be built." in shown
    assert "The extra pod X100:8: the catalog has no GPU system X100" in shown
    assert "python -m core" not in shown and "pod 3" not in shown
    at.button(key="fix_0").click().run()  # drop the extra pod X100:8
    assert not at.exception and not at.error
    assert at.text_input(key="w_pods").value == "B200:32"


BAD_PODS = {"n": "4", "pods": "B300:32:800,B300:99999:800"}
"""Pod 3 does not fit two tiers under the shared spines; the first pod alone (4 H100 nodes) builds."""


@pytest.mark.parametrize("tab", ["Topology", "Hand-off"])
def test_pods_that_cannot_be_built_are_the_designs_error_with_no_hand_off(tab):
    """The Designer shows a design whose pods fail as it shows any design that cannot be built: the error first,
    its ways out as buttons, no headline, cards or hand-off files of the first pod's design without the pods."""
    at = _designer(tab, link=BAD_PODS)
    assert not at.exception
    shown = " ".join(str(e.value).replace("\\", "") for e in at.error)
    assert "This design cannot be built." in shown and "Pod 3 (B300, 99,999 nodes) does not fit two tiers" in shown
    assert not at.get("download_button") and not at.metric  # no BOM, pack or export of the base design
    assert not any("32 x H100" in str(c.value) for c in at.caption)  # no headline of the first pod alone
    assert not any("covers every pod" in str(c.value) for c in at.caption)
    assert [b.label for b in at.button if b.key.startswith("fix_")] == [
        "Give pod 3 at most 144 nodes", "Drop pod 3", "Reset to defaults"]  # each builds (tests/test_pods_refusals)
    at.button(key="fix_0").click().run()
    assert not at.exception and not at.error
    assert at.text_input(key="w_pods").value == "B300:32:800,B300:144:800"


@pytest.mark.parametrize("page, said", [
    ("../pages/3_Performance.py", "Pod 3 (B300, 99,999 nodes)"), ("../pages/6_Resilience.py", "Pod 3 (B300"),
    ("../pages/8_Inference.py", "cannot be built")])
def test_other_pages_refuse_pods_that_cannot_be_built(page, said):
    from tests import pagetest

    at = pagetest.open_page(page, BAD_PODS)
    assert not at.exception
    shown = " ".join(str(e.value).replace("\\", "") for e in [*at.error, *at.info])
    assert said in shown and not at.get("download_button")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_topology_bandwidth_and_racks_show_every_pod(lang):
    """The Topology tab draws every pod (no note that it shows pod 1) and a scale-up drawing per pod; the Bandwidth
    tab has a section per pod; the Racks & cabling tab draws the whole hall: rows tagged with their pod and the
    shared spines, a bar per pod and link class in the cable lengths, the media table pod by pod."""
    link = {"n": "64", "pods": "B200:32:800"}
    at = _designer("Topology", lang, link)
    assert not at.exception and not at.error and not at.info
    charts = at.get("plotly_chart")
    assert len(charts) == 3  # the fabric and two scale-up drawings
    headings = [m.value for m in at.markdown if "B200" in m.value and "800G" in m.value]
    assert headings
    at = _designer("Bandwidth", lang, link)
    assert not at.exception and not at.error
    sections = [m.value for m in at.markdown if m.value.startswith("#### ") and ("H100" in m.value
                                                                                 or "B200" in m.value)]
    assert len(sections) == 2, sections
    at = _designer("Racks & cabling", lang, link)
    assert not at.exception and not at.error
    specs = [chart.proto.spec for chart in at.get("plotly_chart")]
    assert len(specs) == 3  # the hall's floor plan, rack elevations and cable lengths
    floor, _elevation, lengths = specs
    for n in (1, 2):
        assert re.search(rf"[Pp]od {n}\b", floor) and re.search(rf"[Pp]od {n}: ", lengths)
    assert floor.count("R03-01") >= 1  # the shared spines' rack in the middle row
    frame = next(f.value for f in at.dataframe if len(f.value.columns) == 10)
    assert len(set(frame.iloc[:, 0])) == 2  # the media of both pods


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resilience_single_points_cover_every_pod(lang):
    """The Resilience page's single points and availability are the whole fabric's (a top-of-rack leaf of pod 2
    among the single points, both pods in the availability, both pods' links in the link load)."""
    from tests import pagetest

    link = {"n": "16", "t": "tor", "pods": "B200:8", "lang": lang}
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Single points of failure"})
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert any(str(cell).startswith("pod2-leaf") for cell in table.iloc[:, 0])  # pod 2's leaf, by its export name
    assert not any("H100" in str(i.value) for i in at.info)  # no "pod 1 alone" note here
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Availability"})
    assert not at.exception and not at.error
    assert not any("H100" in str(i.value) for i in at.info)  # the availability covers every pod too
    pods = at.dataframe[0].value
    assert len(pods) == 2 and "H100" in str(pods.iloc[0, 0]) and "B200" in str(pods.iloc[1, 0])
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Spares"})
    assert not at.exception and not at.error
    assert not any("H100" in str(i.value) for i in at.info)  # the spares count every pod's switches and NICs
    from core.analysis.sparing import with_spares
    from core.design import Design
    from core.plan import plan

    whole = with_spares(plan(Design(nodes=16, topology="top-of-rack", pods="B200:8")))
    alone = with_spares(plan(Design(nodes=16, topology="top-of-rack")))
    assert len(at.dataframe[0].value) == len(whole.rows) > len(alone.rows)
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Overload & imbalance", "rs_pat": "uniform"})
    assert not at.exception and not at.error
    assert not any("H100" in str(i.value) for i in at.info)  # the link load covers every pod: no "pod 1 alone"
    spread, tiers, *_rest, spine_load = (d.value for d in at.dataframe)
    assert [c.lower() for c in spread.columns[1:]] == ["pod 1 (h100)", "pod 2 (b200)"]  # a column per pod
    assert len(tiers) == 8 and {str(c).split(" ")[1] for c in tiers.iloc[:, 0]} == {"1", "2"}  # a row per pod, tier
    assert len(spine_load) == 2 and "B200" in str(spine_load.iloc[1, 0])  # the expected uniform load, per pod


def test_handoff_says_which_exports_cover_every_pod():
    at = _designer("Hand-off", "en", {"n": "64", "pods": "B200:32:800"})
    assert not at.exception and not at.error
    said = [str(c.value) for c in at.caption if "covers every pod" in str(c.value)]
    assert said and "describe pod 1" not in said[0]  # every format fitting the design covers every pod
    assert any("H100+B200" in str(c.value) for c in at.caption)  # SimAI's description says its GPU type token
    names = next(str(c.value) for c in at.caption if "Names in every export" in str(c.value))
    assert "`pod1-gpu001`, `pod2-gpu032`, `pod1-leaf001`, `spine001`" in names  # the whole design's, not pod 1's
    assert "fabric-h100-b200-768-ib" in " ".join(str(c.value) for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resilience_what_if_loses_a_shared_spine_on_every_pod(lang):
    from tests import pagetest

    link = {"n": "16", "t": "tor", "pods": "B200:8", "lang": lang}
    at = pagetest.open_page("../pages/6_Resilience.py", {**link, "rs_tab": "Failure what-if"})
    assert not at.exception and not at.error
    healthy = at.dataframe[0].value  # turned: a column per pod
    assert len(healthy.columns) == 3 and "B200" in str(healthy.columns[2])
    assert any(m.key == "rs_w_pods_failed" for m in at.multiselect)
    at.multiselect(key="rs_w_pods_failed").set_value(["spine0", "pod2.p0.leaf0"])
    pagetest.rerun(at)
    assert not at.exception and not at.error
    failed = at.dataframe[0].value
    assert list(failed.iloc[2]) != list(healthy.iloc[2])  # pod 2's injection drops with its leaf
    assert list(failed.iloc[3]) != list(healthy.iloc[3])  # every pod's way into the spines drops
    assert not any(m.key == "rs_w_failed" for m in at.multiselect)  # no what-if of pod 1 alone (spines not bought)
    assert at.multiselect(key="rs_w_pods_failed").value == ["spine0", "pod2.p0.leaf0"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resilience_one_selection_drives_pod_one_and_the_whole_fabric(lang):
    """A shared spine failed in pod 1's what-if (the link's ``rs_fail``) is failed on the whole fabric too, and the
    page says why it draws no what-if of pod 1 alone: its own spines (QM9700) are not the shared ones (Q3400)."""
    from tests import pagetest

    link = {"n": "64", "pods": "B200:32:800", "lang": lang, "rs_tab": "Failure what-if", "rs_fail": "p0.spine0"}
    at = pagetest.open_page("../pages/6_Resilience.py", link)
    assert not at.exception and not at.error
    assert at.multiselect(key="rs_w_pods_failed").value == ["spine0"]
    lost = at.dataframe[0].value
    now, *_rest, healthy = re.findall(r"[\d.,]+", str(lost.iloc[3, 1]))  # "{now} of {healthy}" (zh: its order)
    assert now != healthy  # pod 1's way into the spines is below its healthy value
    assert any("Q3400" in str(i.value) and "QM9700" in str(i.value) for i in at.info)
    assert not any(m.key == "rs_w_failed" for m in at.multiselect)  # nor its diagram
    if lang == "en":
        assert any("does not draw or fail pod 1 as if alone" in str(i.value) for i in at.info)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resilience_reads_the_clis_names_into_one_selection(lang):
    """A link naming failures as ``python -m core failure`` does (``spine0`` a shared spine, ``pod2.p0.leaf1``
    pod 2's leaf) fails both on the whole fabric and the shared spine in pod 1's what-if too; nothing is warned
    unknown, and the link keeps both names."""
    from tests import pagetest

    link = {"n": "64", "pods": "B200:32:800", "lang": lang, "rs_tab": "Failure what-if",
            "rs_fail": "spine0,pod2.p0.leaf1"}
    at = pagetest.open_page("../pages/6_Resilience.py", link)
    assert not at.exception and not at.error
    assert not any("pod2.p0.leaf1" in str(w.value) for w in at.warning)
    assert at.multiselect(key="rs_w_pods_failed").value == ["spine0", "pod2.p0.leaf1"]
    assert not any(m.key == "rs_w_failed" for m in at.multiselect)
    lost = at.dataframe[0].value  # turned: a column per pod
    assert str(lost.iloc[1, 2]).split()[0] != "0"  # pod 2's servers on the lost leaf are degraded
    params = {k: at.query_params[k] for k in at.query_params}
    assert "spine001,pod2-leaf002" in str(params.get("rs_fail"))  # the exports' names (left48)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bandwidth_tab_says_how_the_pods_bisections_relate_to_the_card(lang):
    """The Bandwidth tab of a design with pods says the card's bisection (the worst balanced cut: the slowest half
    of the GPUs at their pods' rates) and each pod's own, which do not add up to it."""
    from core.analysis.whole import design_mixed
    from core.design import Design

    # pod 2: B300, whose CX8 on PCIe Gen6 carries 800G (a B200's Gen5 host would feed 400: core.hostlink)
    at = _designer("Bandwidth", lang, {"n": "64", "pods": "B300:32:800"})
    assert not at.exception and not at.error
    mixed = design_mixed(Design(nodes=64, pods="B300:32:800"))
    assert mixed.fabric.bisection_gbps == 153_600  # 384 of pod 1's GPUs at 400 Gb/s
    said = [str(c.value) for c in at.caption if "19.2" in str(c.value) and str(c.value).count("12.8") == 2]
    assert said and "384" in said[0]


def test_bisection_is_the_slowest_half_of_the_gpus_at_their_own_rates():
    """A small slow pod does not bound the whole bisection at its rate: the slowest half of the GPUs, each at its
    pod's rate; the bisection ratio of 1:1 leaves is 1:1."""
    from core.analysis.whole import design_mixed, whole_summary
    from core.design import Design
    from core.plan import plan

    design = Design(gpu="B200", nodes=64, pods="H100:8:400")  # 512 B200 GPUs at 800G and 64 H100 GPUs at 400G
    f = design_mixed(design).fabric
    slow, fast = sorted(f.pods, key=lambda p: p.gbps_per_gpu)
    assert f.bisection_gbps == slow.gpus * slow.gbps_per_gpu + (f.gpus / 2 - slow.gpus) * fast.gbps_per_gpu
    assert whole_summary(plan(design))["bandwidth"]["oversubscription"] == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_handoff_files_are_named_after_the_whole_design(lang):
    """The Hand-off tab names the files after the whole design with pods: every pod's system and all 768 GPUs."""
    at = _designer("Hand-off", lang, {"n": "64", "pods": "B200:32:800"})
    assert not at.exception and not at.error
    named = " ".join(str(c.value) for c in at.caption)
    assert "fabric-h100-b200-768-ib" in named and "fabric-h100-512-ib" not in named


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_designer_subtitle_names_every_pods_switches_nics_and_speeds(lang):
    """The Designer's subtitle of a design with pods names every pod's leaves, the shared spines, every NIC and
    every port speed, not pod 1's alone."""
    at = _designer("Topology", lang, {"n": "64", "pods": "B200:32:800"})
    assert not at.exception and not at.error
    subtitle = next(str(c.value) for c in at.caption if "QM9700" in str(c.value))
    assert "QM9700 + Q3400" in subtitle and "400 / 800G" in subtitle


def test_scaleup_card_says_every_pods_nvlink():
    """The scale-up card of a design with pods gives every pod's NVLink per GPU (H100 900 GB/s, B200 1.8 TB/s)."""
    from core.analysis.whole import whole_summary
    from core.design import Design
    from core.figures.keynumbers import key_numbers
    from core.plan import plan

    card = next(k for k in key_numbers(whole_summary(plan(Design(nodes=64, pods="B200:32:800"))), "GB/s")
                if k.key == "scaleup")
    assert card.value == "900 GB/s / 1.8 TB/s" and card.value in card.help


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_resilience_link_load_routes_a_ring_over_every_pod(lang):
    """The share link of a design with pods: a ring over every GPU closes from the B200 pod into the H100 pod, so
    the hottest links are the first H100 server's NIC links (named as the exports name them), the heatmap has each pod's rows and
    the histogram names both pods' line rates."""
    import json

    from tests import pagetest

    link = {"n": "64", "pods": "B200:32:800", "lang": lang, "rs_tab": "Overload & imbalance", "rs_pat": "ring"}
    at = pagetest.open_page("../pages/6_Resilience.py", link)
    assert not at.exception and not at.error
    hot = next(d.value for d in at.dataframe if "pod1-gpu001 nic1" in " ".join(map(str, d.value.iloc[:, 0])))
    assert all(str(name).startswith("pod1-leaf") for name in hot.iloc[:, 0][:8])  # the exports' names
    heat, hist = (json.loads(chart.proto.spec) for chart in at.get("plotly_chart"))
    rows = heat["data"][0]["y"]
    assert len(rows) == 8 and sum(str(r).startswith(("pod 1", "Pod 1")) for r in rows) == 4
    title = " ".join(re.sub(r"<[^>]+>", " ", full_title(hist["layout"]["title"])).split())  # wrapped lines joined
    assert "50 GB/s / 100 GB/s" in title  # 400 and 800 Gb/s a GPU, in the page's default unit


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_whole_fabric_what_if_table_fits_a_1024_px_page(lang):
    """The Resilience page's table of what every pod loses (a column per pod) ran off the right edge at 1,024 px
    in Chinese ("25.6 TB/s（正常时 25.6 TB/s）" in each cell): failed / healthy, the unit in the row's name."""
    from core.analysis.podwhatif import loss_rows, pods_what_if
    from core.analysis.whole import design_mixed
    from core.design import Design
    from core.i18n import language
    from webui import tables

    mixed = design_mixed(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    with language(lang):
        rows = loss_rows(pods_what_if(mixed, ["spine0"]), "GB/s")
        frame = tables.turned(rows, next(iter(rows[0])))
    assert not tables.scrolls_at_1024(frame), frame.to_string()
    assert list(frame.iloc[-1, 1:]) == ["22.4 / 25.6"] * 2  # one of eight spines: 7/8 of the way in
    assert "[TB/s" in frame.iloc[-1, 0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_racks_tab_nvlink_and_growth_cover_every_pod(lang):
    """The level-2 NVLink cables are listed per pod, measured in the hall, the pods with one NVLink level named;
    growth is the pods' stages: a grow_to with every pod built now is said to apply to no pod, not a warning."""
    from core.analysis.whole import design_mixed
    from core.design import Design
    from core.i18n import _, language
    from core.physical.podlayout import pods_nvlink_summary

    at = _designer("Racks & cabling", lang, {"g": "GB200-NVL72", "ng": "1152", "nvd": "576", "pods": "B200:32:800"})
    assert not at.exception and not at.error and not at.warning
    with language(lang):
        pod = _("Pod")
        mixed = design_mixed(Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576, pods="B200:32:800"))
    frame = next(d.value for d in at.dataframe if len(d.value.columns) == 7 and pod in d.value.columns)
    (_i, row), = pods_nvlink_summary(mixed)
    assert frame.iloc[0, 2] == row["cables"] == 5184 and frame.iloc[0, 3] == row["longest_m"]
    with language(lang):
        others = _("pod {pod}").format(pod=2)
    assert any(others in c.value and "NVLink" in c.value for c in at.caption)
    at = _designer("Racks & cabling", lang, {"n": "64", "pods": "B200:32:800", "gt": "128"})
    assert not at.exception and not at.error and not at.warning
    assert any("B200:32@1" in i.value.replace("\\", "").replace("\u200d", "") for i in at.info)
    at = _designer("Racks & cabling", lang, {**LINK, "pfin": "on"})
    assert not at.exception and not at.warning
    step = "pod 1 H100 64, pod 2 B200 0 → 32" if lang == "en" else "Pod 1 H100 64, Pod 2 B200 0 → 32"
    assert any(step in str(frame.value.to_dict()) for frame in at.dataframe)
    words = "every pod, not pod 1 alone" if lang == "en" else "每个 Pod"
    assert any(words in c.value for c in at.caption)


def test_a_link_with_an_unknown_pod_system_is_not_applied():
    """``?v=1&pods=ZZZ:32``: the link's pods are not applied, under the heading every bad link value gets, naming
    the pod as the link wrote it (review44 section 3)."""
    at = _designer(link={"pods": "ZZZ:32"})
    assert not at.exception
    text = " ".join(str(w.value).replace("\\", "") for w in at.warning)
    assert "Some values in the link were not applied" in text
    assert "the catalog has no GPU system 'ZZZ' (the extra pod 'ZZZ:32')" in text
    assert "python -m core" not in text and "pod 2" not in text
    assert at.text_input(key="w_pods").value == ""


def test_a_link_with_a_pod_speed_no_nic_runs_is_not_applied():
    """``?v=1&n=64&pods=B300:32:801``: the link's pods are warned about and not applied, as a bad ``ps`` (the one
    speed rule, ``core.design.offered_port_speeds``); the link used to be applied and the page refused the design."""
    at = _designer(link={"n": "64", "pods": "B300:32:801"})
    assert not at.exception and not at.error
    text = " ".join(str(w.value).replace("\\", "") for w in at.warning)
    assert "'pods' (Extra pods) = 'B300:32:801' was ignored: no InfiniBand switch and NIC pair" in text
    assert at.text_input(key="w_pods").value == ""
