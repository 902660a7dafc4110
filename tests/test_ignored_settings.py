"""The settings a topology family ignores (``core.fabric.families.ignored_fields``, declared in each family's
``IGNORED_FIELDS``): the CLI, a sweep and the Designer read that one declaration, so a classic Dragonfly's leaf
oversubscription, tiers and spine oversubscription, and a Dragonfly+'s tiers and spine oversubscription, are said
to be ignored as a torus's are; the notice names the field by its label; the Sweep page starts from a setting the
design's topology reads (``core.analysis.sweep.default_setting``)."""

from __future__ import annotations

import re

import pytest
from conftest import run_cli

from core.analysis.sweep import default_setting
from core.design import Design
from core.fabric.families import ignored_fields, ignored_input, leaf_whatif, swept_ignored, unused_fields
from core.i18n import language
from core.plan import plan
from tests import pagetest

CASES = [("classic-dragonfly", "oversubscription", 2.0), ("classic-dragonfly", "tiers", 3),
         ("classic-dragonfly", "spine_oversubscription", 2.0), ("dragonfly", "tiers", 3),
         ("dragonfly", "spine_oversubscription", 2.0), ("torus", "oversubscription", 2.0)]


@pytest.mark.parametrize(("topology", "field", "value"), CASES)
def test_an_ignored_field_changes_nothing_and_is_said(topology, field, value):
    base = Design(gpu="H100", gpus=4096 if topology != "torus" else 512, topology=topology)
    changed = base.model_copy(update={field: value})
    assert field in ignored_fields(topology)
    assert plan(changed).summary() == plan(base).summary()  # ignored indeed: the declaration is true
    with language("en"):
        (said,) = unused_fields(changed)
        assert "has no effect on a" in said and f"({field})" not in said and said == swept_ignored(changed, field)
    with language("zh"):
        (said,) = unused_fields(changed)
        assert "has no effect" not in said and "无效" in said


def test_read_fields_are_not_said():
    assert unused_fields(Design(gpu="H100", gpus=4096, topology="dragonfly", oversubscription=2.0)) == []
    assert leaf_whatif("dragonfly") and not leaf_whatif("classic-dragonfly") and not leaf_whatif("torus")
    assert ignored_input("rail-optimized", "tiers") is None and ignored_input("dragonfly", "oversubscription") is None
    assert ignored_input("dragonfly", "spine_oversubscription") is not None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_warns_on_both_dragonflies(capsys, lang):
    code, _out, err = run_cli(capsys, "plan", "--topology", "classic-dragonfly", "--gpus", "4096",
                              "--oversubscription", "2", "--tiers", "3", "--format", "json", "--lang", lang)
    assert code == 0 and len(err.splitlines()) == 2 and "(oversubscription)" not in err
    code, _out, err = run_cli(capsys, "plan", "--topology", "dragonfly", "--gpus", "4096", "--tiers", "3",
                              "--format", "json", "--lang", lang)
    assert code == 0 and len(err.splitlines()) == 1 and "Dragonfly+" in err
    code, _out, err = run_cli(capsys, "sweep", "--topology", "classic-dragonfly", "--gpus", "4096", "--set",
                              "oversubscription=1,2", "--lang", lang)
    assert code == 0 and len(err.splitlines()) == 1 and "Dragonfly" in err


def test_sweep_starts_from_a_setting_the_topology_reads():
    assert default_setting(Design()) == "oversubscription"
    assert default_setting(Design(topology="dragonfly", gpus=4096)) == "oversubscription"
    assert default_setting(Design(topology="classic-dragonfly", gpus=4096)) == "global_ratio"
    assert default_setting(Design(topology="torus", gpus=512)) == "nodes"


def test_sweep_page_of_a_classic_dragonfly():
    open_page = pagetest.opener("../pages/5_Sweep.py")
    at = open_page({"t": "dfc", "ng": "4096"})
    assert not at.exception
    assert at.query_params.get("sw_x") in ("global_ratio", ["global_ratio"])  # not the ignored leaf ratio
    assert not any("no effect" in str(i.value) for i in at.info)
    at = open_page({"t": "dfc", "ng": "4096", "sw_x": "oversubscription", "sw_xv": "1,2"})  # asked: kept, said
    notes = [str(i.value) for i in at.info if "no effect on a Dragonfly" in str(i.value)]
    assert len(notes) == 1 and notes[0].startswith("The setting Oversubscription (leaf down:up) has")


def test_designer_greys_out_what_the_family_ignores():
    """The sidebar's inputs off are the family's ``IGNORED_FIELDS`` (``ignored_input``): a Dragonfly+'s tiers, spine
    oversubscription and core switch; a classic Dragonfly's leaf oversubscription too."""
    open_page = pagetest.opener("../pages/1_Designer.py")
    for topology, off in (("df", {"Tiers", "Spine oversubscription (3 tiers)", "Core switch"}),
                          ("dfc", {"Tiers", "Spine oversubscription (3 tiers)", "Oversubscription (not used by this "
                                                                             "topology)", "Spine switch",
                                   "Core switch"})):
        at = open_page({"t": topology, "ng": "4096"})
        assert not at.exception
        widgets = [*at.sidebar.select_slider, *at.sidebar.selectbox]
        disabled = {w.label for w in widgets if w.disabled}
        assert off <= disabled, (topology, disabled)
        assert "Oversubscription (leaf down:up)" not in disabled
        if topology == "dfc":  # greyed out with the family's reason
            helps = {w.label: w.help for w in at.sidebar.selectbox if w.label in ("Spine switch", "Core switch")}
            assert all("routers are its only switches" in h for h in helps.values()) and len(helps) == 2, helps


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_field_of_another_family_is_named_by_its_label(capsys, lang):
    """A setting only other families read (a Dragonfly's global ratio on a torus, a torus's dimensions on a folded
    Clos) is named by its declared label (``core.design.FIELDS``), as ``ignored_said`` names the ignored ones: never
    the engine's ``global_ratio``."""
    from core.design import FIELDS

    for design, field in ((Design(gpu="H100", gpus=512, topology="torus", global_ratio=0.5), "global_ratio"),
                          (Design(gpu="H100", nodes=64, torus_dims="4x4x4"), "torus_dims")):
        with language(lang):
            (said,) = unused_fields(design)
            # "The setting {label} is used only by ...": the declared label, whatever its number
            assert FIELDS[field].title() in said and field not in said, said
    code, _out, err = run_cli(capsys, "plan", "--topology", "torus", "--gpus", "512", "--global-ratio", "0.5",
                              "--format", "json", "--lang", lang)
    assert code == 0 and "global_ratio" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("design", [Design(gpu="H100", gpus=4096, topology="classic-dragonfly", tiers=3),
                                    Design(gpu="H100", gpus=512, topology="torus", oversubscription=2.0)])
def test_an_ignored_field_is_the_subject_for_any_label(design):
    """"Tiers has no effect on a Dragonfly" took a plural label for a singular subject: the sentence names the field
    as "The setting {label}", the style of the other-family sentence, in both languages (zh 设置项层数对 Dragonfly
    无效, the topology spaced as a Latin word in Chinese, no space before 对)."""
    from core.design import FIELDS

    field = "tiers" if design.topology != "torus" else "oversubscription"
    with language("en"):
        (said,) = unused_fields(design)
        assert said.startswith(f"The setting {FIELDS[field].title()} has no effect on a "), said
    with language("zh"):
        (said,) = unused_fields(design)
        assert said.startswith("设置项" + FIELDS[field].title()) and " 对" not in said, said
        assert "对 Dragonfly 无效" in said if design.topology != "torus" else "对环面无效" in said


def test_the_families_of_another_setting_are_spaced_in_chinese():
    """The other-family sentence names its families twice, once before a full-width comma, and the design's topology:
    each sits between Chinese words in the translation, spaced as a Latin word set in Chinese
    (``core.i18n.embedded``): it read "仅用于Dragonfly+ 或 Dragonfly拓扑" and "本设计为Dragonfly+，"."""
    torus = Design(gpu="H100", gpus=512, topology="torus", global_ratio=0.5)
    dragonfly = Design(gpu="H100", gpus=4096, topology="dragonfly", torus_dims="8x8x8")
    with language("zh"):
        (on_torus,), (on_dragonfly,) = unused_fields(torus), unused_fields(dragonfly)
    assert "仅用于 Dragonfly+ 或 Dragonfly 拓扑" in on_torus and "改用 Dragonfly+ 或 Dragonfly 拓扑，" in on_torus
    assert "本设计为环面拓扑" in on_torus and "本设计为 Dragonfly+ 拓扑" in on_dragonfly
    assert not re.search(r"[\u4e00-\u9fff][A-Za-z]|[A-Za-z+][\u4e00-\u9fff]|[A-Za-z+] [，；（）]", on_torus + on_dragonfly)
    with language("en"):
        (said,) = unused_fields(torus)
    assert "used only by the Dragonfly+ or Dragonfly topology; this design is Torus" in said
