"""podchip47c: a Dragonfly+ declares its switch tiers (leaf and spine, no core: ``card:core`` None), so Compare of a
Dragonfly+ with a classic Dragonfly has no "Core switches" row (neither has a core), the cards no core card; beside a
three-tier Clos the row stays. Inside-pod failures on the Resilience page: never dropped without a word."""

from __future__ import annotations

from core.design import Design


def test_dragonfly_plus_has_leaf_and_spine_only():
    from core.fabric.families import switch_label
    from core.figures.keynumbers import switch_cards

    assert switch_label("dragonfly", "leaf") == "Leaf switches"
    assert switch_label("dragonfly", "spine") == "Spine switches"
    assert switch_label("dragonfly", "core") is None
    assert [t for t, _ in switch_cards("dragonfly")] == ["leaf", "spine"]
    assert switch_label("rail-optimized", "core") == "Core switches"  # a folded Clos keeps its core


def test_compare_dragonfly_plus_with_classic_has_no_core_row():
    from core.analysis.compare import compare, metric_label

    dfp = Design(topology="dragonfly", gpus=4096)
    dfc = Design(topology="classic-dragonfly", gpus=4096)
    both = compare([("dfp", dfp), ("dfc", dfc)])
    labels = {m.key: metric_label(m, both.level2, both.families) for m in both.rows}
    assert "switches_core" not in labels, labels
    assert labels["switches_leaf"] == "Leaf switches / Routers"
    assert labels["switches_spine"] == "Spine switches"  # the Dragonfly+'s spines are still compared
    clos = Design(gpus=4096, tiers=3)
    three = compare([("dfp", dfp), ("clos", clos)])
    assert "switches_core" in {m.key for m in three.rows}  # a Clos with a core: the row stays


def test_cli_compare_dragonfly_plus_with_classic_has_no_core_row(tmp_path):
    import contextlib
    import io
    import json

    from core.cli import main

    paths = []
    for name, topology in (("dfp", "dragonfly"), ("dfc", "classic-dragonfly")):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps({"topology": topology, "gpus": 4096}), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--lang", "en", "compare", *map(str, paths)]) == 0
    text = out.getvalue()
    assert "Core switches" not in text and "Spine switches" in text and "Leaf switches / Routers" in text, text


MIXED_LINK = {"v": "1", "n": "64", "pods": "B300:32:800"}
INSIDE = ("pod1-gpu006 nic3", "R05-02", "R05-02 feedA", "pod2-gpu006 nic3")


def test_link_keeps_a_pods_two_word_export_names():
    """The link read ``pod1-gpu006 nic3`` and ``R05-02 feedA`` (names as the pods' exports print them, with a space)
    as "not an element name": they were dropped, while the CLI's ``failure`` fails them inside their pod."""
    from core.formats import resiliencelink as rl

    values, warnings = rl.decode({"rs_fail": ",".join(INSIDE)})
    assert values["fail"] == ("pod1-gpu006 nic3", "r05-02", "r05-02 feeda", "pod2-gpu006 nic3") and not warnings
    values, warnings = rl.decode({"rs_fail": "gpu006 nic3,gpu006 nic 3,leaf 1 2 3 4"})  # up to four words, as the
    assert values["fail"] == ("gpu006 nic3", "gpu006 nic 3") and len(warnings) == 1  # CLI reads (left48); five: said
    assert "leaf 1 2 3 4" in warnings[0]


def test_check_pod_failures_sends_the_inside_ones_to_their_pod():
    from core.figures.topology import mixed_of
    from core.formats.resiliencelink import check_pod_failures, decode
    from core.plan import plan

    p = plan(Design(gpu="H100", nodes=64, pods="B300:32:800"))
    specs = decode({"rs_fail": ",".join(INSIDE)})[0]["fail"]
    good, whole, problems = check_pod_failures(p, mixed_of(p), specs)
    assert good == () and problems == []
    assert whole == ["pod1.node5.nic2", "pod2.rack1", "pod2.rack1.feeda", "pod2.node5.nic2"]


def test_resilience_page_fails_a_linked_pods_inside_elements_as_the_cli():
    """The page shows the link's elements inside the pods in "Failed inside the pods", each pod's own what-if (as
    ``python -m core failure`` prints ``pod N, inside: ...``), and no warning drops them."""
    from core.analysis.podinside import inside_what_if
    from core.figures.topology import mixed_of
    from core.plan import plan
    from tests.pagetest import open_page

    at = open_page("../pages/6_Resilience.py", {**MIXED_LINK, "rs_fail": ",".join(INSIDE)}, timeout=300)
    chips = at.multiselect(key="rs_w_inside_failed")
    assert list(chips.options) == list(INSIDE)
    assert chips.value == ["pod1.node5.nic2", "pod2.rack1", "pod2.rack1.feeda", "pod2.node5.nic2"]
    assert not [w.value for w in at.warning if "rs\\_fail" in w.value or "rs_fail" in w.value]
    p = plan(Design(gpu="H100", nodes=64, pods="B300:32:800"))
    results = dict(inside_what_if(mixed_of(p), chips.value))
    assert results[1].gpus_degraded == 1 and results[2].gpus_disconnected == 32  # a NIC; a rack of 4 B300 nodes
    table = "".join(str(t.value) for t in at.table) + "".join(str(d.value) for d in at.dataframe)
    assert "32 of 256" in table, table[:600]
