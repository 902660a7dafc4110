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
