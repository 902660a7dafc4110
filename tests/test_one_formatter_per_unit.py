"""Numbers the CLI and the figures formatted by hand where ``core.units`` has the one formatter of their unit: each now
reads as that formatter writes it (days, percent, seconds of a step, lengths, tokens/s per GPU), so the same number
reads the same on the page, its hover and the CLI."""

from __future__ import annotations

import pytest

from core import units
from core.design import Design
from core.i18n import language
from core.plan import plan
from tests.conftest import run_cli


def test_the_what_ifs_days_in_the_days_format():
    """Resilience's what-if table wrote days ``:,.1f`` (330.4) where the Performance card writes 330."""
    from core.analysis.failure import what_if
    from core.figures.resilience import what_if_rows

    p = plan(Design(nodes=4))
    result = what_if(p, ["leaf:1"]).model_copy(update={
        "healthy_step_time_s": 2.0, "step_time_s": 2.5, "healthy_days_to_train": 330.43, "days_to_train": 8.2649})
    rows = {r[0]: r[1:] for r in what_if_rows(result)}
    assert rows["days to train"] == ("330", "8.26") == (units.days(330.43), units.days(8.2649))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hovers_take_the_one_percent_and_days_formats(lang):
    """The scaling chart's hover wrote ``%{y:.1f}%`` (d3) beside the cards' ``units.percent``; the Optimize front's
    days ``%{y:,.1f} days`` beside ``units.days``; the By-network bars ``%{x:.1f}%`` beside their own labels."""
    from core.analysis.optimize import Candidate
    from core.figures.optimize import _shown
    from core.figures.perf import scaling_figure

    with language(lang):
        fig = scaling_figure([{"gpus": 8, "scaling_efficiency": 1.0, "tokens_per_s": 12345.6, "comm_fraction": 0.0544},
                              {"gpus": 1024, "scaling_efficiency": 0.9173, "tokens_per_s": 1.4e6,
                               "comm_fraction": 0.123}])
        efficiency, share = fig.data
        assert list(efficiency.customdata[1]) == ["1,024", units.percent(0.9173), "1,400,000"]
        assert list(share.customdata[1]) == ["1,024", "12.3%"] and "%{customdata[1]}" in share.hovertemplate
        assert ":.1f" not in efficiency.hovertemplate + share.hovertemplate
        c = Candidate(index=0, design=Design(), days=330.43)
        assert units.days(330.43) in _shown(c, "days", "GB/s") and "330.4" not in _shown(c, "days", "GB/s")


def test_the_network_shares_hover_as_their_labels():
    from core.figures.cost import networks_figure

    fig = networks_figure(plan(Design(nodes=4)))
    for bar in (t for t in fig.data if t.customdata is not None):
        assert "%{customdata[2]}" in bar.hovertemplate
        assert [c[2] for c in bar.customdata][0].endswith("%")


def test_serve_writes_tokens_per_gpu_as_the_card(capsys):
    """``serve`` wrote tokens/s per GPU ``:,.0f`` (12) where the Inference card writes three figures (12.3)."""
    import json

    code, out, _err = run_cli(capsys, "serve", "--rate", "0.2", "--format", "json")
    s = json.loads(out)
    code, text, _err = run_cli(capsys, "serve", "--rate", "0.2")
    assert code == 0 and s["decode"]["output_tokens_per_s_per_gpu"] < 100  # where the two formats differ
    assert f"{units.number(s['decode']['output_tokens_per_s_per_gpu'])} output tokens/s per GPU" in text
    assert f"{units.number(s['prefill']['input_tokens_per_s_per_gpu'])} input tokens/s per GPU" in text
