"""Words of a design with pods: who bounds a collective across pods (only a slower pod, ``pods_alike``), and the
pods box's label colons (full-width in Chinese, ``{label}: {note}``)."""
from __future__ import annotations

from core.analysis.pods import bound_words, mixed_plan, pods_lines, pods_summary
from core.design import Design
from core.i18n import language

ALIKE = Design(gpu="H100", nodes=64, fabric="ethernet", port_speed_gbps=400, planes=2, nic="CX8", pods="B200:32:400")
UNLIKE = Design(gpu="H100", nodes=64, pods="B200:32:800")


def test_the_slowest_pod_is_named_only_when_one_is_slower():
    alike, unlike = pods_summary(mixed_plan(ALIKE)), pods_summary(mixed_plan(UNLIKE))
    # per-port 2 planes x 400G per H100 and per B200 (8 NICs each): 100 GB/s per GPU in both pods
    assert alike["pods_alike"] and {p["gbps_per_gpu"] for p in alike["pods"]} == {800}
    assert not unlike["pods_alike"] and unlike["slowest_pod"] == 1  # H100 400G < B200 800G
    across = dict(pods_lines(alike))["across pods"]
    assert "the slowest" not in across and "every pod has the same rate" in across
    assert "(pod 1, the slowest, bounds it)" in dict(pods_lines(unlike))["across pods"]
    three = pods_summary(mixed_plan(UNLIKE.model_copy(update={"tiers": 3})))
    assert bound_words(three) == "pod 1, the slowest, bounds it"
    with language("zh"):
        assert bound_words(alike) == "各 Pod 速率相同"
