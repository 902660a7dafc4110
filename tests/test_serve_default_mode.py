"""``serve`` takes the Inference page's default mode (``inferencelink.DEFAULTS``), and a TPOT without a
compute-bound part says compute is hidden under HBM."""
from core.cli import main
from core.formats.inferencelink import DEFAULTS

ASCEND = ["--gpu", "Atlas-800T-A2", "--gpus", "2048", "--fabric", "ethernet", "--switch", "H3C-S9827-64EP"]


def test_serve_default_mode_is_the_pages(capsys):
    assert main(["serve", *ASCEND]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert f": {DEFAULTS['mode']}," in head


def test_aggregated_tpot_does_not_say_compute_zero(capsys):
    assert main(["serve", *ASCEND, "--mode", "aggregated"]) == 0
    tpot = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("TPOT"))
    assert "compute 0.0" not in tpot and "compute hidden under HBM" in tpot
