"""The fabric's name in running text is the technology's name, InfiniBand or Ethernet, in every message: never the
design's id (``no infiniband NIC ...``), in the CLI, a share link's warnings and the engine's refusals alike."""

from __future__ import annotations

import pytest

from conftest import run_cli
from core import vocab
from core.formats import sharelink
from core.i18n import language


@pytest.mark.parametrize("words", [vocab.FABRIC, vocab.STORAGE])
def test_a_fabric_word_keeps_the_technologys_capitals(words):
    for fabric in ("infiniband", "ethernet"):
        word = words.word(fabric)
        assert word[0].isupper() and words.label(fabric).startswith(word), (fabric, word)


def test_cli_refusal_names_infiniband(capsys):
    code, _out, err = run_cli(capsys, "plan", "--nodes", "64", "--pods", "B300:32:801")
    # the refusal names the pod and states the problem as its own sentence (core.fabric.pods._resolved_pod)
    assert code != 0 and "B300:32:801: No InfiniBand NIC in the catalog runs at 801 Gb/s" in err
    code, _out, err = run_cli(capsys, "plan", "--fabric", "ethernet", "--switch", "QM9700")
    assert code != 0 and "QM9700 is InfiniBand, but the fabric is Ethernet" in err


def test_link_warning_names_both_fabrics():
    _design, warnings = sharelink.decode({"v": "1", "f": "eth", "sw": "QM9700"})
    assert "QM9700 is an InfiniBand switch, the fabric is Ethernet" in warnings[0]
    assert "with Ethernet at 400 Gb/s" in warnings[0]
    with language("zh"):
        _design, warnings = sharelink.decode({"v": "1", "f": "eth", "sw": "QM9700"})
    assert "InfiniBand" in warnings[0] and "以太网" in warnings[0] and "ethernet" not in warnings[0].lower()
