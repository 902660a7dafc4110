"""A load the CLI and the Inference page choose is the load they show (leftperf 7): the page compared other designs at
42.7955 requests/s (this design's largest within the targets), showed 42.8, and its Ethernet RoCE bar picked prefill
tp 1 pp 1 where ``python -m core serve --rate 42.8`` on that design picks pp 2 (42.8 is past what tp 1 pp 1 meets).
The chosen load is rounded down to the digits shown (``serving_search.shown_rate``), so the number read off either
surface, given back as ``--rate``, gives the same split."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli as run
from core.design import Design
from core.formats import inferencelink as link
from core.perf.serving_search import rate_text, shown_rate
from core.plan import plan


@pytest.mark.parametrize("rate, shown, text", [
    (42.79552776089853, 42.7, "42.7"),  # rounded down, never shown above the largest load that meets the targets
    (42.8, 42.8, "42.8"),               # a rate given as shown stays itself
    (0.012345, 0.0123, "0.0123"),
    (99.96, 99.9, "99.9"),
    (1234.9, 1234.0, "1,234"),          # whole requests/s from 100
    (5.0, 5.0, "5"),
])
def test_shown_rate_by_hand(rate, shown, text):
    assert shown_rate(rate) == shown and rate_text(rate) == text
    assert float(rate_text(rate).replace(",", "")) == shown_rate(rate)  # the text read back is the load


def test_the_pages_bars_and_the_cli_at_the_shown_rate_pick_the_same_split(capsys):
    from webui.inference import ALTERNATIVES, serve

    design = Design()  # 4 x DGX H100 on InfiniBand: the page's default, with its default workload
    served = serve(design, plan(design), dict(link.DEFAULTS))
    here = served.here
    assert here.rate == shown_rate(here.rate) == served.max_rate == 42.7  # the load shown is the load estimated
    roce = dict(served.others)[ALTERNATIVES["h100roce"][0]]
    assert roce.rate == here.rate
    code, out, err = run(capsys, "serve", "--gpu", "H100", "--gpus", "32", "--fabric", "ethernet",
                         "--oversubscription", "1", "--rate", rate_text(here.rate), "--format", "json")
    assert code == 0, err
    cli = json.loads(out)
    assert cli["rate_per_s"] == roce.rate
    for pool in ("prefill", "decode"):
        split = getattr(roce.deployment, pool)
        assert cli[pool]["nodes"] == split.nodes
        assert cli[pool]["split"] == {"tp": split.tp, "dp": split.dp, "ep": split.ep, "pp": split.pp}
    assert cli["prefill"]["split"]["pp"] == 1  # tp 1 pp 1 meets 42.7 requests/s on RoCE, as the bar says
