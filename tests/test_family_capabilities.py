"""The family capabilities consumers ask instead of comparing a family id (``core.fabric.families``): each reads
what the family's module declares, and the folded Clos (no module) gets its own answer."""
import pytest

from core.cli import main
from core.design import Design
from core.fabric.families import CLOS, clos_tiers, global_groups, graph_model, rail_leaves, words
from core.plan import plan


@pytest.mark.parametrize("name, tiers, spof, load, groups, rail", [
    (CLOS, True, False, False, False, False),
    ("dragonfly", False, True, True, True, True),
    ("classic-dragonfly", False, True, True, True, True),
    ("torus", False, False, False, False, False),
])
def test_each_family_answers_from_its_declarations(name, tiers, spof, load, groups, rail):
    assert clos_tiers(name) is tiers
    assert graph_model(name, "spof") is spof and graph_model(name, "load") is load
    assert global_groups(name) is groups
    assert rail_leaves(name) is rail


def test_the_bill_words_a_dragonfly_plus_spine_row_by_its_groups():
    p = plan(Design(gpu="H100", gpus=4096, switch="QM9700", topology="dragonfly"))
    rows = p.bom_frame()
    why = dict(zip(rows["item"], rows["why"]))
    # 4096 GPUs / 8 = 512 nodes = 16 SUs of 32 nodes, 8 rails each: 128 leaves; 4 groups of 32 spines
    assert why[f"{p.resolved.switch.name} (leaf)"] == "16 SU x 8 rails = 128"
    assert why[f"{p.resolved.switch.name} (spine)"] == f"{p.fabric.pod_count} Dragonfly+ groups x 32 spines = {p.fabric.pod_count * 32}"
    assert p.fabric.pod_count == 4 and words(CLOS, "bom:spines", None) is None


def test_the_torus_plan_cli_says_its_bisection_ratio(capsys):
    main(["plan", "--gpus", "512", "--gpu", "B300", "--topology", "torus"])
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("bandwidth"))
    # 4x4x4 nodes, 192 links of 800 Gb/s: injection 2 x 192 x 800 = 307.2 Tb/s, half 153.6 Tb/s; bisection 32 links
    # = 25.6 Tb/s = 3.2 TB/s: 6:1
    assert "bisection 3.2 TB/s" in row and "bisection ratio 6:1, half the injection over the bisection" in row
    assert "oversubscription" not in row


@pytest.mark.parametrize("design, method", [
    (dict(gpu="H100", nodes=64, switch="QM9700"), "tiers"),  # the Resilience page's closed form over symmetry
    (dict(gpu="H100", gpus=1024, switch="QM9700", topology="dragonfly"), "groups"),
    (dict(gpu="B300", gpus=64, topology="torus"), "graph"),
])
def test_the_failure_method_is_named_by_the_failure_names_not_a_family_id(design, method):
    from core.analysis.failure import method_of

    assert method_of(plan(Design(**design))) == method


FAMILY_DESIGNS = [dict(gpu="H100", gpus=512, switch="QM9700"), dict(gpu="H100", gpus=512, switch="QM9700", tiers=3),
                  dict(gpu="H100", gpus=1024, switch="QM9700", topology="dragonfly"),
                  dict(gpu="H100", gpus=512, switch="QM9700", topology="classic-dragonfly"),
                  dict(gpu="B300", gpus=512, topology="torus")]


def test_every_link_class_any_family_wires_is_counted_and_priced_by_the_floor():
    """Every link class a family declares (its module's ``LINK_CLASSES``, the folded Clos's) has a count in
    ``class_link_counts``, so the optimizer's links floor (``core.cost.class_links``) prices it: a new family's class
    missing there fails here, not in a search (a classic Dragonfly's ``local`` links raised ``KeyError`` there)."""
    from core.cost import class_links, links_floor
    from core.catalog import load_catalog
    from core.fabric import wiring as clos_wiring
    from core.fabric.families import FAMILIES, class_link_counts, family
    from core.fabric.wiring import wiring_of

    declared = set(clos_wiring.LINK_CLASSES)
    for name in FAMILIES:
        declared |= set(family(name).LINK_CLASSES)
    seen: set = set()
    for fields in FAMILY_DESIGNS:
        p = plan(Design(**fields))
        wiring = wiring_of(p.fabric, p.resolved.nodes, p.resolved.nics_per_node)
        assert set(class_link_counts(p.fabric)) >= set(wiring.link_classes)  # every class it wires, counted
        links = dict(class_links(p.fabric, wiring))
        # the counts are the plan's own: the summary's links, class by class
        summary = p.summary()["links"]
        assert {c: n for c, n in links.items() if n} == \
            {c: summary[c.replace("-", "_")] for c in wiring.link_classes if summary.get(c.replace("-", "_"))}
        assert links_floor(p.resolved, p.fabric, load_catalog()) >= 0
        seen |= set(wiring.link_classes)
    assert seen == declared  # the designs above wire every declared class
