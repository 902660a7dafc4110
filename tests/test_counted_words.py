"""Counted nouns in the words a user reads (``core.plurals``, ``core.i18n.ngettext``): ``1 link``, ``1 switch``,
``1 compute rack``, ``column 5 was ignored``, never ``1 links`` or ``tier(s)``."""

from __future__ import annotations

from core.design import Design
from core.figures.keynumbers import key_numbers
from core.formats import comparelink
from core.i18n import language
from core.plan import plan


def test_one_leaf_one_link_one_rack_read_in_the_singular():
    p = plan(Design(gpu="H100", nodes=1))  # one leaf, one node: one BMC link, one compute rack
    cards = {k.key: k for k in key_numbers(p.summary())}
    assert cards["switches_leaf"].help == "1 QM9700 leaf switch, all 1 plane; 1 switch in 1 tier"
    assert cards["switches_spine"].help == "none: no spine layer in 1 tier; 1 switch in all"
    bmc = [r for r in p.bom if r.category == "cable" and r.network == "oob" and "BMC" in r.why]
    assert [r.why for r in bmc] == ["1 link: node BMC ports"]
    assert "(1 compute rack x 3 + 3 other racks x 2, estimated)" in p.networks.oob.explanation[0]
    big = {k.key: k for k in key_numbers(plan(Design(gpu="H100", gpus=1024)).summary())}
    assert big["switches_spine"].help.startswith("16 QM9700 spine switches, all 1 plane;")
    assert big["switches_spine"].help.endswith("48 switches in 2 tiers")


def test_a_fifth_column_is_one_column():
    one = comparelink.decode({"v": "1", "c1_n": "4", "c5_n": "8"})[1]
    assert "column 5 was ignored" in " ".join(one)
    two = comparelink.decode({"v": "1", "c1_n": "4", "c5_n": "8", "c7_n": "8"})[1]
    assert "columns 5, 7 were ignored" in " ".join(two)


def test_counted_words_in_chinese():
    from core import plurals

    with language("zh"):
        assert plurals.switches(1) == "1 台交换机"


def test_a_comparison_columns_job_groups_its_global_batch():
    from core.design import Design
    from core.formats.joblink import DEFAULTS
    from core.perf.jobform import job_caption
    from core.plan import plan

    text = job_caption({**DEFAULTS, "model": "llama3-70b", "tp": 8, "pp": 4, "gbs": 1024}, plan(Design()))
    assert text.endswith("tp 8 x pp 4, global batch 1,024"), text


def test_the_cli_nvlink_levels_line_joins_clauses_in_the_language(capsys):
    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, "--lang", "zh", "plan", "--gpu", "GB200-NVL72", "--nodes", "144",
                              "--nvlink-domain", "144")
    line = next(line for line in out.splitlines() if "全部 4 个域" in line)
    assert code == 0 and "; " not in line and "）；全部 4 个域" in line, line


def test_a_dense_models_second_count_is_named_for_what_it_is():
    """Llama 3 70B is dense: 70.6B parameters, 69.5B without its input embedding (128,256 x 8,192 = 1.05B, a
    token reads one row of it), not "69.5B active"; DeepSeek-V3 is a mixture of experts: "active"."""
    from core.perf.jobform import parameters_words
    from core.perf.training import PRESETS

    llama = PRESETS["llama3-70b"]
    assert llama.total_params - llama.active_params == 128_256 * 8_192
    assert parameters_words(llama) == "70.6B parameters (69.5B without the input embedding)"
    assert parameters_words(PRESETS["deepseek-v3"]).endswith("B active)")
    assert parameters_words(PRESETS["gpt3-175b"]) == "174.6B parameters"  # tied: one count


def test_cross_rail_hops_follow_one_rule():
    """Hand count, H100 (8 rails), 64 nodes, two tiers: one plane, rail 0 to rail 1 crosses leaf, spine, leaf (3,
    no PXN: a switch path joins the rails); per-rail planes of 4 rails each: rails 0 and 1 share a plane, so the
    same 3 (before: 1); a plane per rail (one tier): no switch path joins two rails, PXN forwards over NVLink to
    the GPU on the other rail, whose rail leaf is 1 switch, and the readout says so."""
    from core.fabric.bandwidth import cross_rail_text

    one = plan(Design(gpu="H100", nodes=64)).bandwidth
    halves = plan(Design(gpu="H100", nodes=64, plane_mode="per-rail", planes=2)).bandwidth
    rails = plan(Design(gpu="H100", nodes=64, plane_mode="per-rail", planes=8)).bandwidth
    assert (one.hops_same_rail, one.hops_cross_rail, cross_rail_text(one)) == (1, 3, "3")
    assert (halves.hops_same_rail, halves.hops_cross_rail, cross_rail_text(halves)) == (1, 3, "3")
    assert (rails.hops_same_rail, rails.hops_cross_rail, cross_rail_text(rails)) == (1, 1, "1 (with PXN)")
