"""Small wording slips of the pods review: the core model of pods on two tiers, counted nouns in the storage
sizing, a thousands separator in the Dragonfly's sizing, no space between two Chinese words in the CLI's money
range, and the Performance caption's quotes and sizes in the chart's units."""

from __future__ import annotations

from types import SimpleNamespace

from core.analysis.whole import whole_summary
from core.cli import main as cli_main
from core.design import Design
from core.figures.keynumbers import key_numbers
from core.perf import jobform
from core.perf.collectives import sweep
from core.plan import plan


def test_pods_on_two_tiers_core_model_is_the_spines_and_the_card_says_no_core_layer():
    summary = whole_summary(plan(Design(gpu="H100", nodes=64, pods="B200:32:800")))
    assert summary["switch_models"]["core"] == "Q3400" == summary["switch_models"]["spine"]
    core = next(k for k in key_numbers(summary, "GB/s") if k.key == "switches_core")
    assert core.help.startswith("none: no core layer in 2 tiers")  # no layer, no model to name (review F16)


def test_storage_sizing_counts_one_leaf_and_one_spine_in_the_singular():
    words = plan(Design(gpu="B200", nodes=32, port_speed_gbps=800)).networks.explanation
    assert any(line.startswith("1 storage leaf at 1:1") for line in words)
    assert any(line.startswith("1 spine: ") for line in words)
    assert not any(line.startswith(("1 storage leaves", "1 spines")) for line in words)
    many = plan(Design(gpu="H100", nodes=64)).networks.explanation
    assert any(" spines: " in line for line in many) and any(" storage leaves at 1:1" in line for line in many)


def test_dragonfly_global_ports_have_a_thousands_separator(capsys):
    cli_main(["plan", "--topology", "dragonfly", "--gpus", "32768"])
    out = capsys.readouterr().out
    assert "a group has 1,024 global ports" in out


def test_chinese_cli_money_range_is_the_cards(capsys):
    """``plan``'s range of amounts is the capex card's (``core.units.money_range``: "美元 至 ", a space on each side
    of 至 as after any amount), not joined by the CLI's space tidying ("美元至 ")."""
    cli_main(["--lang", "zh", "plan", "--gpus", "512"])
    out = capsys.readouterr().out
    assert "美元 至 " in out and "美元至" not in out


def test_performance_caption_says_its_quotes_are_in_bytes_and_sizes_in_binary_units():
    p = plan(Design(gpu="H100", nodes=4))
    sweeps = [sweep(p, "all-reduce", [2**20, 2**30], gpus=32)]
    refs = [SimpleNamespace(label="8x H100", source="nccl-tests, max busbw 365.84 GB/s")]
    bits = " ".join(jobform.placement_notes(sweeps, 32, "H100", refs, unit="Gb/s"))
    assert "quoted as published, in GB/s" in bits and "64 KiB and 64 MiB" in bits and "64 KB" not in bits
    assert "quoted as published" not in " ".join(jobform.placement_notes(sweeps, 32, "H100", refs))
