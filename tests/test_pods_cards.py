"""The per-GPU bandwidth cards of a design with pods follow one convention: every pod's value in pod order (the
scale-up card and the injection card alike), and the CLI's bandwidth line says the same."""

from __future__ import annotations

import pytest

from core.analysis.whole import whole_summary
from core.cli import main as cli_main
from core.design import Design
from core.figures.keynumbers import key_numbers
from core.plan import plan


@pytest.mark.parametrize("tiers", [2, 3])
def test_scaleup_and_injection_cards_show_every_pod(tiers, capsys):
    # pod 1: H100, NVLink 900 GB/s both directions, 8 x 400G per 8 GPUs = 50 GB/s; pod 2: B300, 1.8 TB/s, 100 GB/s
    # (B300's CX8 on PCIe Gen6 carries its 800G; a B200's Gen5 host would feed 400, core.hostlink)
    summary = whole_summary(plan(Design(gpu="H100", nodes=64, pods="B300:32:800", tiers=tiers)))
    cards = {k.key: k for k in key_numbers(summary, "GB/s")}
    assert cards["scaleup"].value == "900 GB/s / 1.8 TB/s"
    assert cards["scaleout"].value == "50 GB/s / 100 GB/s"
    assert "pod 1, the slowest" in cards["gpus"].help
    cli_main(["plan", "--nodes", "64", "--pods", "B300:32:800", "--tiers", str(tiers)])
    assert "injection per GPU 50 GB/s / 100 GB/s" in capsys.readouterr().out


def test_a_design_without_pods_has_one_value():
    cards = {k.key: k for k in key_numbers(whole_summary(plan(Design(gpu="H100", nodes=4))), "GB/s")}
    assert cards["scaleout"].value == "50 GB/s" and " / " not in cards["scaleup"].value
