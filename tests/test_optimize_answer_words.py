"""The optimizer's answer as a user reads it (review49 #2, #3, #11): a torus's hops are links between nodes, not the
switch hops ``--max-hops`` limits (as Compare keeps them apart, ``core.analysis.compare.HOPS_KEYS``); every
constraint the winner is within ``BINDING_MARGIN`` of is named, ratios in the one ratio format; zh lists space
their numbers as the catalog does."""

from __future__ import annotations

from dataclasses import replace

from core import units
from core.analysis import compare
from core.analysis.optimize import BINDING_MARGIN, Constraints, Grid, explain, optimize
from core.analysis.optimizewords import why_costlier
from core.i18n import join, language
from core.plan import plan
from tests.conftest import run_cli


def test_a_torus_crosses_no_switch_so_max_switch_hops_does_not_rule_it_out():
    """It was "maximum switch hops ruled out 7 of the 7 candidate designs; the nearest reaches 6" (its node hops),
    while Compare shows the torus's "Most switch hops" as none and its "Most node-to-node hops" as 6."""
    with language("en"):
        result = optimize("H100", 512, Constraints(max_hops=1), Grid(topologies=("torus",)), workers=1)
    best = result.best
    assert best is not None and result.feasible == result.considered and not result.rejected.get("max_hops")
    assert best.switch_hops is None and best.hops == 6
    values = compare.key_values(plan(best.design).summary())
    assert compare.HOPS_KEYS[True] in values and compare.HOPS_KEYS[False] not in values  # Compare says the same
    said = " ".join(result.explanation)
    assert "It has no switches, so maximum switch hops does not limit it" in said and "at most 6 links" in said


def test_switched_designs_are_still_held_to_max_switch_hops(capsys):
    """Beside a torus the switched designs are ruled out by their switch hops, and the rejection says a switch
    count; a switched-only grid names the nearest switch hops."""
    with language("en"):
        mixed = optimize("H100", 512, Constraints(max_hops=1), Grid(topologies=("torus", "rail-optimized")),
                         workers=1)
    by_hops = [c for c in mixed.candidates if c.reason == "max_hops"]
    assert by_hops and all(c.design.topology == "rail-optimized" and c.switch_hops > 1 for c in by_hops)
    assert mixed.rejected["maximum switch hops"] == len(by_hops)
    assert all(c.feasible for c in mixed.candidates if c.design.topology == "torus")
    code, _out, err = run_cli(capsys, "optimize", "--gpus", "512", "--topologies", "rail-optimized", "--switches", "QM9700",
                              "--max-hops", "1")
    assert code != 0 and "maximum switch hops ruled out" in err and "the nearest reaches 3." in err


def test_every_constraint_within_the_margin_is_named_tightest_first():
    """"Binding constraint: maximum bisection ratio (this design 1.00:1, limit 1.00:1 ...)" left out a busbw floor
    0.3% below the winner's busbw; both bind, and the ratio reads 1:1 as on every page."""
    result = optimize("H100", 2048, Constraints(), Grid(switches=("QM9700",), port_speeds=(400,), planes=(1,),
                                                        topologies=("rail-optimized",), oversubscription=(1.0,)),
                      workers=1)
    best = result.best
    both = Constraints(min_busbw_gbytes=best.busbw_gbytes * (1 - BINDING_MARGIN / 4),
                       max_bisection_ratio=best.bisection_ratio, max_tiers=9)
    with language("en"):
        said = " ".join(explain(best, None, [best], both, "busbw_gbytes"))
    assert (f"Binding constraints, each within {units.percent(BINDING_MARGIN)} of its limit: maximum bisection ratio "
            f"(this design {units.ratio(best.bisection_ratio)}, limit {units.ratio(best.bisection_ratio)}) and "
            "minimum all-reduce busbw (this design") in said
    assert "1.00:1" not in said and "maximum tiers" not in said  # 9 tiers is far: not binding
    with language("en"):
        one = " ".join(explain(best, None, [best], replace(both, min_busbw_gbytes=None), "busbw_gbytes"))
    assert f"Binding constraint: maximum bisection ratio (this design {units.ratio(1.0)}, limit 1:1" in one


def test_a_bisection_ratio_limit_out_of_reach_reads_in_the_one_ratio_format(capsys):
    code, _out, err = run_cli(capsys, "optimize", "--gpus", "512", "--topologies", "torus",
                              "--max-bisection-ratio", "2")
    assert code != 0 and "the nearest reaches 3:1." in err and ".00:1" not in err


def test_zh_lists_space_their_numbers_as_the_catalog_does():
    """"2 层和134 台交换机" lacked the space the catalog writes between a Chinese word and a number."""
    with language("zh"):
        assert join(["2 层", "134 台交换机"]) == "2 层和 134 台交换机"
        assert join(["叶交换机", "脊交换机"]) == "叶交换机和脊交换机" and join(["a", "b", "c"]) == "a、b 和 c"
        result = optimize("H100", 512, Constraints(), Grid(topologies=("torus", "rail-optimized"),
                                                           switches=("QM9700", "SN5600")), workers=1)
        costed = [c for c in result.candidates if c.costed]
        best = min(costed, key=lambda c: c.capex_usd)
        other = min((c for c in costed if c.tiers != best.tiers and c.switches != best.switches
                     and c.design.fabric != best.design.fabric), key=lambda c: c.capex_usd)
        said = why_costlier(best, other)
    assert "和 " in said and "和1" not in said and "和2" not in said
