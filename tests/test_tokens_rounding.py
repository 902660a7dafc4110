"""Tokens/s is rounded once, by ``core.i18n.number``, on the CLI and on the Performance card alike."""
from core.cli import main
from core.figures.keynumbers import training_key_numbers
from core.perf.training import TrainingEstimate

ASCEND = ["--gpu", "Atlas-800T-A2", "--gpus", "2048", "--fabric", "ethernet", "--switch", "H3C-S9827-64EP"]
NEAR_HALF = 814_319.49
"""A rate that rounds to 814,319 once but to 814,320 when first rounded to one decimal (814,319.5)."""


def test_cli_train_and_card_round_tokens_per_s_once(capsys, monkeypatch):
    monkeypatch.setattr(TrainingEstimate, "tokens_per_s", property(lambda self: NEAR_HALF))
    seen = []
    real = TrainingEstimate.summary

    def summary(self):
        seen.append(self)
        return real(self)

    monkeypatch.setattr(TrainingEstimate, "summary", summary)
    assert main(["train", *ASCEND, "--tp", "8", "--pp", "1"]) == 0
    out = capsys.readouterr().out
    card = next(k for k in training_key_numbers(seen[-1]) if k.key == "tokens_per_s")
    assert "814,319 tokens/s" in out
    assert card.value == "814,319"
