"""The sidebar's Tiers input is shown disabled, with why, exactly where the topology's family never reads it: each
family that sizes alike at every tiers value says so in ``WORDS["input:tiers:off"]`` (``webui.state`` disables the
input on that text), and a family whose tiers count keeps the input."""

from __future__ import annotations

import pytest

from core import vocab
from core.design import Design
from core.errors import DesignError
from core.fabric.families import words
from core.i18n import language
from core.plan import plan


def _sizing(topology: str, tiers) -> tuple | str:
    """What the plan of a 4,096-GPU H100 design on QM9700 switches counts at ``tiers``: (tiers, leaves, spines,
    cores), or the error's class when that tiers value does not fit."""
    try:
        f = plan(Design(gpu="H100", gpus=4096, switch="QM9700", topology=topology, tiers=tiers)).fabric
    except DesignError as error:
        return type(error).__name__
    return f.tiers, f.leaf_count, f.spine_count, f.core_count


@pytest.mark.parametrize("topology", vocab.TOPOLOGY.ids)
def test_tiers_input_is_off_exactly_where_tiers_change_nothing(topology):
    ignored = len({_sizing(topology, tiers) for tiers in ("auto", 1, 2, 3)}) == 1
    for lang in ("en", "zh"):
        with language(lang):
            off = words(topology, "input:tiers:off", None)
        assert (off is not None) == ignored, (topology, lang, off)
