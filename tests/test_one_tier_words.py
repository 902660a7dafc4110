"""A one-tier Clos's bandwidth readout (the Designer's and the review pack's) names no spine: it has none."""

from __future__ import annotations

import pytest

from core.design import Design
from core.figures.bandwidth import bandwidth_readout, clos_readout
from core.i18n import language
from core.plan import plan

WORDS = {"en": ("spine", "none (one switch tier, no uplinks)"), "zh": ("脊交换机", "无（单层交换机，无上行链路）")}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("key", ["readout:bandwidth", "report:readout:bandwidth"])
@pytest.mark.parametrize("tiers", [1, 2])
def test_the_readout_names_the_tiers_the_design_has(tiers, key, lang):
    p = plan(Design(nodes=8 if tiers == 1 else 64, tiers=tiers))
    assert p.fabric.tiers == tiers
    with language(lang):
        readout, longest = clos_readout(key, p)
        text = bandwidth_readout(p.fabric.family, p.resolved.system, p.bandwidth, "GB/s", key, readout,
                                 longest=longest)
    spine, none = WORDS[lang]
    assert (spine in text, none in text) == ((False, True) if tiers == 1 else (True, False)), text
