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
