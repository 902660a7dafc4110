"""The Resilience page's chips of failed elements: a hot link typed as Overload & imbalance lists it is a chip of
what was typed alone, the chips wrap onto more rows, and the element each hot link fails is written under them.

At 1,024 px a typed Dragonfly+ link's chip read "spine 79 -> spine 121 (p0.spine78-spine120)" and the next chips
scrolled out of sight on one row ("leaf 124" faded at the box's edge); a pod's NIC chip "pod1-leaf001 ->
pod1-gpu001 nic1 (pod1.node0.nic0)" filled its box.
"""

from __future__ import annotations

from tests.pagetest import open_page

PAGE = "../pages/6_Resilience.py"
TYPED = ("leaf 2 -> spine 17", "leaf 2 -> spine 9", "leaf 28 -> spine 26")
ELEMENTS = ("p0.leaf1-spine16", "p0.leaf1-spine8", "p0.leaf27-spine25")


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_typed_hot_links_are_short_wrapping_chips_with_their_elements_below():
    at = open_page(PAGE, {"v": "1", "t": "df", "ng": "1024", "rs_fail": ",".join(TYPED)}, timeout=180)
    chips = at.multiselect(key="rs_w_failed")
    assert chips.proto.wrap, "the failed elements' chips stay on one row and scroll out of sight"
    assert list(chips.options) == list(TYPED)  # as typed, no element in brackets
    captions = _captions(at)
    for typed, element in zip(TYPED, ELEMENTS):
        assert f"{typed} ({element})" in captions.replace("\\", ""), (typed, captions[:400])


def test_a_pods_typed_nic_is_a_short_chip_with_its_element_below():
    at = open_page(PAGE, {"v": "1", "n": "64", "pods": "B300:32:800", "rs_fail": "pod1-leaf001 -> pod1-gpu001 nic1"},
                   timeout=180)
    chips = at.multiselect(key="rs_w_inside_failed")
    assert chips.proto.wrap and list(chips.options) == ["pod1-leaf001 -> pod1-gpu001 nic1"]
    assert "pod1-leaf001 -> pod1-gpu001 nic1 (pod1.node0.nic0)" in _captions(at).replace("\\", "")
    assert at.multiselect(key="rs_w_pods_failed").proto.wrap
