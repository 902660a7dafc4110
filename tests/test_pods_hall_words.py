"""The hall of a design with pods in words: the Racks tab's and the review pack's Rows card and level-2 NVLink caption
say where the hall (core.physical.podlayout) stands each rack, not a single fabric's central rows."""

from __future__ import annotations

import re
from html import escape as html_escape

import pytest

from core.analysis.whole import design_mixed
from core.design import Design
from core.figures.keynumbers import rack_key_numbers
from core.figures.podracks import NVLINK_NOTE, hall_key_numbers
from core.formats.podreport import pods_nvlink_html
from core.i18n import language as speaking

SINGLE_ROWS = "spine, core and management racks in the middle"
"""The single fabric's Rows card words (``rack_key_numbers``): wrong for a hall of pods."""


@pytest.fixture(scope="module")
def halls():
    """An H100 pod and a B200 pod (one NVLink level each); a GB200-NVL72 pod with two NVLink levels and a B200 pod
    added at stage 1."""
    return (design_mixed(Design(gpu="H100", nodes=64, pods="B200:32:800")),
            design_mixed(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144, pods="B200:32:800@1")))


def _rows_card(mixed) -> str:
    return next(n.help for n in hall_key_numbers(mixed) if n.key == "rows")


def test_the_rows_card_counts_the_halls_rows(halls):
    for mixed in halls:
        tags = mixed.hall.pods_of_rows
        words = _rows_card(mixed)
        assert SINGLE_ROWS in next(n.help for n in rack_key_numbers(mixed.plans[0]) if n.key == "rows")
        assert SINGLE_ROWS not in words
        spines, pods = sum(1 for t in tags if not t), sum(1 for t in tags if t)
        assert spines == len({r.row for r in mixed.hall.layout.racks if any(s.kind == "spine" for s in r.slots)})
        assert words.startswith(f"{pods} rows of the pods, pod by pod")
        assert words.endswith(f"; {spines} row{'s' * (spines > 1)} of shared spines in the middle")


def test_the_rows_card_names_the_pods_central_racks(halls):
    plain, gb200 = halls
    assert "central rows of management, storage racks" in _rows_card(plain)
    assert "central rows of management, storage, level-2 NVLink racks" in _rows_card(gb200)
    level2 = {r.row for r in gb200.hall.layout.racks if any(s.kind == "nvlink2" for s in r.slots)}
    assert level2 and all(gb200.hall.pods_of_rows[row] == (0,) for row in level2)  # pod 1's own rows
    with speaking("zh"):
        assert "管理、存储、第二级 NVLink" in _rows_card(gb200)


def test_the_packs_level2_caption_is_the_halls(halls):
    plain, gb200 = halls
    assert pods_nvlink_html(plain) == ""
    html = pods_nvlink_html(gb200)
    assert html_escape(NVLINK_NOTE) in html and "pod 2 not listed" in html
    assert not re.search(r"the central rows \(an assumption", html)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_nodes_per_rack_card_names_the_rack_presets_in_words(halls, lang):
    """Each pod's rack preset by the sidebar's name for it (``core.physical.racks.PRESET_LABELS``), never its
    catalog id, in the hall's card as in a single fabric's."""
    from core.physical.racks import PRESET_LABELS, preset_label

    mixed = halls[0]
    with speaking(lang):
        words = next(n.help for n in hall_key_numbers(mixed) if n.key == "nodes_per_rack")
        single = next(n.help for n in rack_key_numbers(mixed.plans[0]) if n.key == "nodes_per_rack")
        names = [preset_label(p.layout.preset) for p in mixed.plans]
    assert not any(f"({key})" in words or f"（{key}）" in words or key in single for key in PRESET_LABELS)
    assert all(name in words for name in names) and names[0] in single
