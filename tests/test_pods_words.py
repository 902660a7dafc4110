"""Words of a design with pods: who bounds a collective across pods (only a slower pod, ``pods_alike``), and the
pods box's label colons (full-width in Chinese, ``{label}: {note}``)."""
from __future__ import annotations

from core.analysis.pods import bound_words, mixed_plan, pods_lines, pods_summary
from core.design import Design
from core.i18n import language

ALIKE = Design(gpu="H100", nodes=64, fabric="ethernet", port_speed_gbps=400, planes=2, nic="CX8", pods="B200:32:400")
UNLIKE = Design(gpu="H100", nodes=64, pods="B300:32:800")  # B300: CX8 on PCIe Gen6 carries 800G (core.hostlink)


def test_the_slowest_pod_is_named_only_when_one_is_slower():
    alike, unlike = pods_summary(mixed_plan(ALIKE)), pods_summary(mixed_plan(UNLIKE))
    # per-port 2 planes x 400G per H100 and per B200 (8 NICs each), each NIC on PCIe Gen5 x16 (core.hostlink):
    # 400 Gb/s per NIC, 50 GB/s per GPU in both pods
    assert alike["pods_alike"] and {p["gbps_per_gpu"] for p in alike["pods"]} == {400}
    assert not unlike["pods_alike"] and unlike["slowest_pod"] == 1  # H100 400G < B300 800G
    across = dict(pods_lines(alike))["across pods"]
    assert "the slowest" not in across and "every pod has the same rate" in across
    assert "(pod 1, the slowest, bounds it)" in dict(pods_lines(unlike))["across pods"]
    three = pods_summary(mixed_plan(UNLIKE.model_copy(update={"tiers": 3})))
    assert bound_words(three) == "pod 1, the slowest, bounds it"
    with language("zh"):
        assert bound_words(alike) == "各 Pod 速率相同"


def test_compare_injection_row_gives_every_pod_as_the_designer_card():
    """Compare's injection row of a design with pods: every pod's per-GPU injection in pod order, equal values
    once, as the Designer's card (H100 8 x 400G = 50 GB/s, B300 8 x 800G = 100 GB/s per GPU, one direction)."""
    from core.analysis.compare import compare
    from core.figures.compare import comparison_rows
    from core.figures.keynumbers import key_numbers
    from core.analysis.whole import whole_plan
    from core.plan import plan

    comparison = compare([("pods", UNLIKE), ("one", Design(gpu="H100", nodes=64))])
    rows, _verdicts = comparison_rows(comparison)
    row = next(r for r in rows if r["metric"] == "Injection per GPU, one direction")
    card = {k.key: k for k in key_numbers(whole_plan(plan(UNLIKE)).summary())}["scaleout"].value
    assert row["1. pods"] == card == "50 GB/s / 100 GB/s" and row["2. one"] == "50 GB/s"
