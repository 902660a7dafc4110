"""Torus, Dragonfly+ and GB200 NVL36 designs described in their own family's words and capabilities (review44 1.6,
2.1, 2.2, 2.3), each number counted by hand."""

from __future__ import annotations

import pytest

from core.design import Design
from core.plan import plan

DF = Design(topology="dragonfly", gpus=4096)


@pytest.fixture(scope="module")
def df():
    return plan(DF)


def test_dragonfly_collective_note_names_the_busiest_spines_ratio(df):
    """4,096 H100 GPUs: 4 groups of 32 leaves x 32 down ports (1,024 NIC ports a group) and 32 spines; a group's
    1,024 global ports carry 3 x 341 = 1,023 links, so 31 spines hold 32 global links and one holds 31. The
    busiest spine is 32 down ports over 31 global links = 1.03:1 (the model's global stage); the group as a whole
    is 1,024 over 1,023 = 1.001:1, so the note must not call 1.03 the groups' ratio."""
    from core.perf.collectives import sweep

    assert df.fabric.global_pair_links == 341 and df.fabric.pod_count == 4
    spines = [g for g in df.fabric.switch_groups if g.role == "spine"]
    assert max(g.down_ports_used / g.up_ports_used for g in spines) == pytest.approx(32 / 31)
    assert df.bandwidth.spine_oversubscription == pytest.approx(32 / 31)
    notes = " ".join(sweep(df, "all-reduce", [2**30]).notes)
    assert "busiest spine's down ports over its global links (1.03:1" in notes
    assert "groups' injection" not in notes
