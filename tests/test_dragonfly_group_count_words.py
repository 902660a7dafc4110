"""A classic Dragonfly's summary rows say what is true for its number of groups: one group has no global links (no
routing or worst-case row); two groups send each to the other, the only one, and Valiant routing has no third group
to pass through, so the worst-case row gives one figure for both routings (``core.fabric.classic_dragonfly.
global_loads``) and never "every group to the next"; three groups or more keep Kim et al.'s adversarial pattern."""

from __future__ import annotations

import pytest

from core.design import Design
from core.fabric import classic_dragonfly as cdf
from core.i18n import _, language
from core.plan import plan


def _rows(nodes: int) -> dict[str, str]:
    return dict(cdf.summary_rows(plan(Design(gpu="H100", nodes=nodes, topology="classic-dragonfly")).summary()))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_worst_case_row_follows_the_group_count(lang):
    with language(lang):
        two, four = _rows(128), _rows(256)
        worst = _("Dragonfly worst case")
        assert two[worst].count("%") == 1, two[worst]  # one figure: Valiant is the minimal route
        assert four[worst].count("%") == 2 and four[worst] != two[worst]
        if lang == "en":
            assert "each of the two groups to the other" in two[worst]
            assert "every group to the next" in four[worst]
        one = _rows(16)
        assert worst not in one and _("Dragonfly routing") not in one


def test_a_short_last_group_is_said():
    """The SUs fill a classic Dragonfly's groups in turn, so the last may hold fewer routers than the others: the
    groups row says how many (96 nodes: 48 routers, a group of 32 and one of 16); full groups say nothing more."""
    from core.fabric.classic_dragonfly import summary_rows

    for nodes, last in ((96, 16), (160, 16)):
        text = summary_rows(plan(Design(topology="classic-dragonfly", nodes=nodes)).summary())[0][1]
        assert text.endswith(f"; the last group has {last} routers"), text
    text = summary_rows(plan(Design(topology="classic-dragonfly", nodes=512)).summary())[0][1]
    assert "last group" not in text, text
