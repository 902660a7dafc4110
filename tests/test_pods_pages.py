"""Mixed pods on the Designer (AppTest): the pods section from a link, the sidebar's "add a pod" form, the growth
stages of the pods on the Racks & cabling tab, a bad pod said with a message; both languages."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.pagetest import ENTRY

LINK = {"n": "64", "pods": "B200:32:800@1"}


def _designer(tab: str = "Topology", lang: str = "en", link: dict = LINK) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({**link, "tab": tab, "lang": lang})
    return at.run()


@pytest.mark.parametrize("lang, words", [("en", "Shared spines: 8 Q3400"), ("zh", "Q3400")])
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
    assert any("Shared spines: 8 Q3400" in str(m.value).replace("\\", "") for m in at.markdown)


def test_growth_stages_of_the_pods_on_the_cabling_tab():
    at = _designer("Racks & cabling", link={**LINK, "pfin": "1"})
    assert not at.exception and not at.error
    assert any("64 → 96" in str(frame.value.to_dict()) for frame in at.dataframe)


def test_a_bad_pod_is_a_message_with_a_way_out():
    at = _designer(link={"n": "64", "pods": "B200:32,X100:8"})
    assert not at.exception
    assert any("X100" in str(w.value) for w in at.warning)
    at.button(key="pods_fix_0").click().run()  # drop pod 3
    assert not at.exception and not at.warning
    assert at.text_input(key="w_pods").value == "B200:32"
