"""The Compare page names a design as the Designer does (``core.figures.subtitle.design_subtitle``): a design with
pods by the whole design (every pod's GPUs, speeds and switches), in its column's subtitle and in the sidebar."""

from __future__ import annotations

from core.analysis.whole import whole_plan
import pytest

from core.design import Design
from core.figures.subtitle import design_line, design_subtitle
from core.plan import plan
from tests import pagetest

MIXED = {"n": "64", "pods": "B200:32:800"}


def _captions(at) -> list[str]:
    return [str(c.value).replace("\\", "") for c in [*at.caption, *at.sidebar.caption]]


def test_a_design_with_pods_is_named_by_the_whole_design():
    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    words = design_subtitle(p)
    assert words == design_subtitle(whole_plan(p))
    assert words.startswith("768 GPUs in 2 pods (H100 + B200, 96 nodes) · InfiniBand 400 / 800G")
    assert "switch QM9700 + Q3400 leaves, Q3400 spines" in words


def test_the_compare_page_names_the_design_as_the_designer():
    designer = pagetest.opener("../pages/1_Designer.py")(MIXED)
    subtitle = next(c for c in _captions(designer) if c.startswith("768 GPUs in 2 pods"))
    at = pagetest.opener("../pages/4_Compare.py")({**MIXED, "c1_name": "mixed", "c1_n": "64", "c1_pods": "B200:32:800"})
    assert not at.exception and not at.error
    captions = _captions(at)
    assert subtitle.startswith(design_subtitle(plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))))
    assert any(c == design_line(plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))) for c in captions)
    assert any(c.startswith("The Designer's design: 768 GPUs in 2 pods") for c in captions)
    assert not any("512 x H100 in 64 nodes" in c for c in captions)


def test_no_space_after_a_full_width_bracket_in_chinese():
    """zh wrote "…96 个节点） · InfiniBand" and "Q3400（脊） · 网卡": the template's space before the dot followed
    the size's (and a switch's) full-width bracket (``core.i18n.after_full_width``); English keeps its spaces."""
    from core.i18n import language

    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    english = design_subtitle(p)
    with language("zh"):
        words = design_subtitle(p)
    assert "）·" in words and "） " not in words, words
    assert english.startswith("768 GPUs in 2 pods (H100 + B200, 96 nodes) · InfiniBand")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_names_each_designs_price_basis_as_the_designer(lang):
    """Compare showed two designs that differ only in price basis by the same line (B's capex 30% higher): each
    column says its price basis in the Designer's words (``design_line``), in English and Chinese."""
    from core.i18n import language

    at = pagetest.opener("../pages/4_Compare.py")({"lang": lang, "c1_name": "A", "c2_name": "B", "c2_pb": "list"})
    assert not at.exception and not at.error
    captions = _captions(at)
    with language(lang):
        street, listed = design_line(plan(Design())), design_line(plan(Design(price_basis="list")))
    assert street != listed and street in captions and listed in captions
    designer = pagetest.opener("../pages/1_Designer.py")({"lang": lang, "pb": "list"})
    assert listed in _captions(designer)
