"""One name rule for an NVLink switch tray and its chips: the single points' lines (the Resilience page, the ``spof``
CLI) named the tray "nvl001-nvsw1" and its chip "nvl001 nvswitch1" side by side, two names for one device. A chip
of a domain of several nodes is named within its tray (``core.analysis.failure.names``: "nvl001-nvsw1 nvswitch2"),
read back to its id, on one pod as on a design with pods."""

from __future__ import annotations

import pytest

from conftest import run_cli
from core.analysis.failure.names import ElementNames
from core.analysis.failure.podnames import PodElementNames
from core.analysis.whole import design_mixed
from core.design import Design
from core.plan import plan


@pytest.mark.parametrize("design", [dict(gpu="GB200-NVL72", nodes=36),
                                    dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)])
def test_a_chip_is_named_within_its_tray_both_ways(design):
    names = ElementNames(plan(Design(**design)))
    said = {chip: names.name(f"rack1.nvswitch{chip}") for chip in range(18)}
    assert said[0] == "nvl002-nvsw1 nvswitch1" and said[1] == "nvl002-nvsw1 nvswitch2"
    assert said[7] == "nvl002-nvsw4 nvswitch2" and said[17] == "nvl002-nvsw9 nvswitch2"
    assert all(name.startswith(names.name(f"rack1.nvswitch-tray{chip // 2}") + " ") for chip, name in said.items())
    assert all(names.parse(name) == f"rack1.nvswitch{chip}" for chip, name in said.items())
    assert names.parse(said[7].upper()) == "rack1.nvswitch7"
    assert names.parse("nvl002-nvsw4 nvswitch3") is None  # a tray holds two chips
    assert names.parse("nvl002 nvswitch8") is None  # the old name, a domain's chip with no tray: one name


def test_a_pods_chip_is_named_within_its_tray():
    mixed = design_mixed(Design(nodes=64, pods="GB200-NVL72:36"))
    names = PodElementNames(mixed)
    assert names.name("pod2.rack0.nvswitch3") == "pod2-nvl001-nvsw2 nvswitch2"
    assert names.parse("pod2-nvl001-nvsw2 nvswitch2") == "pod2.rack0.nvswitch3"


@pytest.mark.parametrize("argv", [["--gpu", "GB200-NVL72", "--nodes", "36"],
                                  ["--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144"]])
def test_spofs_tray_and_chip_lines_name_one_device(capsys, argv):
    code, out, err = run_cli(capsys, "spof", *argv)
    assert code == 0, err
    (tray,) = [line for line in out.splitlines() if "(rack0.nvswitch-tray0)" in line]
    (chip,) = [line for line in out.splitlines() if "(rack0.nvswitch0)" in line]
    assert tray.startswith("nvl001-nvsw1 (") and chip.startswith("nvl001-nvsw1 nvswitch1 (")
    assert "nvl001 nvswitch" not in out
