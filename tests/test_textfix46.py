"""Wording fixes of review46: each rule said once and the same way wherever it shows (CLI help, errors, exports,
the pages' texts)."""

from __future__ import annotations

import pytest
from conftest import run_cli

from core.cli import build_parser


def test_top_level_help_says_inputs_in_gbit_and_outputs_in_gbyte():
    """The epilog named every network speed Gb/s while the readable outputs default to GB/s: it now says which
    flags take Gb/s (the fields declared in Gb/s) and that outputs are GB/s unless --units gbit."""
    from core.design import FIELDS

    text = " ".join(build_parser().format_help().split())
    assert "network speeds in Gb/s" not in text
    assert "GB/s (bytes) by default" in text and "--units gbit" in text
    for surface in FIELDS.values():
        if surface.unit == "Gb/s":
            assert surface.flag in text


def test_slurm_block_label_says_the_block_the_file_writes():
    """The Hand-off tab's label said 'one block per NVLink domain' for HGX designs, whose file has one block per
    scalable unit; the label now follows the file's own rule."""
    from core.design import Design
    from core.formats import slurm
    from core.plan import plan

    hgx = plan(Design(topology="dragonfly", gpus=4096))
    blocks = slurm.slurm_blocks(hgx)
    assert len(blocks.blocks) == 16 and blocks.sizes[0] == 32  # 512 nodes, 32 per SU
    assert "scalable unit" in slurm._block_label(hgx) and "per NVLink domain" not in slurm._block_label(hgx)
    nvl72 = plan(Design(gpu="GB200-NVL72", nodes=72))
    assert slurm._block_label(nvl72).endswith("one block per NVLink domain")


def test_slurm_block_sizes_comment_says_how_far_they_go():
    """GB200 two-level (144-GPU domains on 576 GPUs): BlockSizes=9,36 stops at the domain's block; the comment
    said 'up to the cluster' (144 nodes)."""
    import io

    from core.design import Design
    from core.fabric.naming import NamingScheme
    from core.formats import slurm
    from core.plan import plan

    out = io.StringIO()
    slurm.write_block_conf(plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)), out, NamingScheme())
    text = out.getvalue()
    assert "BlockSizes=9,36\n" in text
    assert "up to the cluster" not in text and "holds the largest NVLink domain (36 nodes)" in text
    out = io.StringIO()
    slurm.write_block_conf(plan(Design(topology="dragonfly", gpus=4096)), out, NamingScheme())
    assert "BlockSizes=32,64,128,256,512\n" in out.getvalue() and "up to the cluster." in out.getvalue()


def test_pue_and_tco_years_ranges_said_once(capsys):
    """PUE and TCO years: the help, the flag's reading and the design's validation say the same range, the one
    declared on the field (was '>= 1' in the help, '>= 0' for nan and 'from 1 to 3' from the engine)."""
    from core.design import field_range, parse_design
    from core.errors import InputError

    assert field_range("pue") == "must be from 1 to 3"
    assert field_range("tco_years") == "must be above 0 and at most 30"
    helptext = " ".join(build_parser()._subparsers._group_actions[0].choices["plan"].format_help().split())
    for field, flag, bad in (("pue", "--pue", ("nan", "0.5", "4", "-1")), ("tco_years", "--tco-years",
                                                                          ("nan", "0", "31", "inf"))):
        words = field_range(field)
        assert words in helptext.split(flag, 2)[2][:200]  # the option's own help line
        for value in bad:
            code, out, err = run_cli(capsys, "plan", flag, value)
            assert code == 2 and f"{flag}: {words} (got '{value}')" in err, err
        with pytest.raises(InputError, match=words):
            parse_design({field: 0.5 if field == "pue" else 0.0})
    assert ">= 1" not in helptext.split("--pue", 2)[2][:120]


def test_torus_has_no_tiers_and_its_hops_are_node_to_node():
    """A torus (no switches) was 'Tiers 1' and 'Most switch hops 6' on Compare and Sweep; its 6 is the diameter in
    links between nodes (4x4x4: 2 + 2 + 2)."""
    from core.analysis import compare as cmp
    from core.analysis import sweep
    from core.design import Design
    from core.errors import InputError
    from core.plan import plan

    torus = plan(Design(topology="torus", gpus=512))
    summary = torus.summary()
    assert summary["tiers"] == 0 and summary["torus"]["diameter_hops"] == 6
    values = cmp.key_values(summary)
    assert values["tiers"] == 0 and "hops_max" not in values and values["hops_node_max"] == 6
    clos = cmp.key_values(plan(Design()).summary())
    assert clos["tiers"] == 1 and "hops_node_max" not in clos
    both = cmp.compare([("clos", Design()), ("torus", Design(topology="torus", gpus=512))])
    keys = [m.key for m in both.rows]
    assert "hops_max" in keys and "hops_node_max" in keys
    only_clos = cmp.compare([("a", Design()), ("b", Design(gpus=64))])
    assert "hops_node_max" not in [m.key for m in only_clos.rows]
    assert sweep.measure(torus, "hops_node_max") == 6
    with pytest.raises(InputError, match="has none"):
        sweep.measure(torus, "hops_max")


@pytest.mark.parametrize("topology", ("torus", "rail-optimized", "dragonfly"))
def test_switch_model_input_is_off_exactly_where_the_design_has_no_switch(topology):
    """A torus planned with either switch model has no switch at all (the sidebar kept an active 'auto (QM9700, 64
    ports)'): its family declares the switch boxes off, with an entry saying there is none; switched families do not."""
    from core.design import Design
    from core.fabric.families import words
    from core.i18n import language
    from core.plan import plan

    totals = {plan(Design(gpu="H100", gpus=512, topology=topology, switch=model)).summary()["switches"]["total"]
              for model in (None, "QM9700")}
    for lang in ("en", "zh"):
        with language(lang):
            off = words(topology, "input:switch:off", None)
            none = words(topology, "input:switch:none", None)
        assert (off is not None) == (totals == {0}) == (none is not None), (topology, lang, totals)


def test_torus_sidebar_switch_boxes_disabled():
    from streamlit.testing.v1 import AppTest

    from tests.pagetest import ENTRY

    at = AppTest.from_file(ENTRY, default_timeout=240)
    at.query_params.update({"t": "tr", "ng": "512"})
    at.run()
    assert not at.exception and not at.error
    box = at.selectbox(key="w_switch")
    assert box.disabled and "No effect on a torus" in box.help
    assert "QM9700" not in box.format_func(box.value) and "no switches" in box.format_func(box.value)
    assert all(at.selectbox(key=f"w_{tier}_switch").disabled for tier in ("leaf", "spine", "core"))
    at.selectbox(key="w_topology").set_value("rail-optimized").run()
    assert not at.selectbox(key="w_switch").disabled and "QM9700" in at.selectbox(key="w_switch").format_func("auto")


def test_a_field_of_another_topology_is_said_to_be_ignored(capsys, tmp_path):
    """``{"torus_dims": "4x4x4"}`` without ``"topology": "torus"`` planned the default 4 nodes and never said the
    64-node dimensions were ignored; now the CLI warns once on stderr (the JSON on stdout unchanged) and a torus
    takes them without a word."""
    import json

    from core.design import Design
    from core.fabric.families import unused_fields

    assert unused_fields(Design(topology="torus", gpus=512, torus_dims="8x8")) == []
    assert unused_fields(Design()) == []
    (message,) = unused_fields(Design(torus_dims="4x4x4"))
    assert message.startswith("The setting Torus dimensions is used only") and "torus_dims" not in message
    assert "ignored" in message
    path = tmp_path / "h.json"
    path.write_text('{"version":1,"torus_dims":"4x4x4"}')
    code, out, err = run_cli(capsys, "plan", "--design", str(path), "--format", "json")
    assert code == 0 and json.loads(out)["nodes"] == 4
    assert err.count("warning:") == 1 and "Torus dimensions" in err
    code, out, err = run_cli(capsys, "plan", "--topology", "torus", "--torus-dims", "4x4x4", "--nodes", "64")
    assert code == 0 and "warning" not in err
