"""The plan command's headline of a torus names no switch tier and no switch model (a torus joins its nodes node to
node): its family's declared words (``core.fabric.families.words``, ``cli:headline``); a folded Clos keeps its own."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli


@pytest.mark.parametrize("lang,says", [("en", "node to node without switches"), ("zh", "节点直连")])
def test_the_torus_headline_has_no_switch(capsys, lang, says):
    code, out, _err = run_cli(capsys, "--lang", lang, "plan", "--gpu", "H100", "--gpus", "512", "--topology", "torus")
    assert code == 0
    headline = out.splitlines()[0]
    assert says in headline and "QM9700" not in headline
    assert "switch QM9700" not in headline and "tier" not in headline and "交换机 QM9700" not in headline


def test_a_clos_headline_keeps_its_tiers_and_switch(capsys):
    code, out, _err = run_cli(capsys, "plan", "--gpu", "H100", "--gpus", "512")
    assert code == 0
    assert out.splitlines()[0].endswith("2 tiers, 1 plane, switch QM9700")
