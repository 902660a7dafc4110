"""The CLI's human output calls an Ascend design's chips NPUs (``core.cli.common.said``), in either language."""
import pytest

from core.cli import main

ASCEND = ["--gpu", "Atlas-800T-A2", "--gpus", "2048", "--fabric", "ethernet", "--switch", "H3C-S9827-64EP"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_and_collective_say_npu_on_ascend(capsys, lang):
    assert main(["--lang", lang, "plan", *ASCEND]) == 0
    assert main(["--lang", lang, "collective", *ASCEND]) == 0
    out = capsys.readouterr().out
    assert "GPU" not in out
    assert "NPU" in out


def test_a_gpu_design_keeps_gpu(capsys):
    assert main(["plan", "--gpu", "H100", "--gpus", "64"]) == 0
    out = capsys.readouterr().out
    assert "per GPU" in out and "NPU" not in out
