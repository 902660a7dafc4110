"""The sidebar's switch boxes name the switch the plan of this run uses. After
Fabric -> RoCE they read SN5600 (not the InfiniBand default), and a design with per-tier switches (the optimizer's
winners set them) reads the leaf model it plans, each tier's when they differ, not a default design's."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.design import Design
from core.plan import plan

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


def app(params: dict) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update({"v": "1", "lang": "en", **params})
    return at.run()


def auto_labels(at) -> tuple[str, dict[str, str]]:
    """The "auto" entry of the Switch model box and of each tier's box, as the page draws them."""
    return (at.selectbox(key="w_switch").options[0],
            {t: at.selectbox(key=f"w_{t}_switch").options[0] for t in ("leaf", "spine", "core")})


def test_after_fabric_roce_every_switch_box_names_the_planned_switch():
    at = app({})
    at.selectbox(key="w_fabric").set_value("ethernet").run()  # one run: no stale label from the previous design
    assert not at.exception and not at.error
    resolved = plan(Design(nodes=4, fabric="ethernet")).resolved
    assert resolved.switch.id == "SN5600"
    main, tiers = auto_labels(at)
    assert main == f"auto (SN5600, {resolved.switch_ports} ports)"
    assert tiers == {t: "auto (SN5600)" for t in tiers}
    assert "switch SN5600" in at.caption[0].value


def test_a_link_with_a_leaf_switch_names_it_in_the_switch_box():
    at = app({"n": "512", "f": "eth", "lsw": "TH5"})  # the switch box is left to the engine
    assert not at.exception and not at.error
    resolved = plan(Design(nodes=512, fabric="ethernet", leaf_switch="TH5")).resolved
    main, tiers = auto_labels(at)
    assert main == f"auto (TH5, {resolved.switch_ports} ports)" and "switch TH5" in at.caption[0].value
    assert at.selectbox(key="w_leaf_switch").value == "TH5"
    assert tiers["leaf"] == "auto (SN5600)"  # what the leaf box's auto would plan: the fabric's default
    assert tiers["spine"] == tiers["core"] == "auto (TH5)"  # the upper tiers follow the leaf


def test_per_tier_switches_that_differ_are_each_named():
    at = app({"n": "2048", "f": "eth", "lsw": "SN5600", "ssw": "TH5", "us": "800"})
    assert not at.exception and not at.error
    models = plan(Design(nodes=2048, fabric="ethernet", leaf_switch="SN5600", spine_switch="TH5",
                         uplink_speed_gbps=800)).summary()["switch_models"]
    main, tiers = auto_labels(at)
    assert main == "auto (leaf {leaf}, spine {spine}, core {core})".format(**models)
    assert tiers["core"] == f"auto ({models['core']})"


def test_switch_box_labels_in_chinese():
    at = app({"lang": "zh", "f": "eth"})
    assert not at.exception
    assert "SN5600" in at.selectbox(key="w_switch").options[0]


def test_the_optimizers_winning_design_reads_its_own_switch():
    """The cheapest design of ``python -m core optimize --gpus 16384`` (every tier TH5 at 100G, 200G uplinks),
    opened by its link as the Optimize page's "open in Design" does."""
    from core.formats import sharelink

    design = Design(gpus=16384, fabric="ethernet", leaf_switch="TH5", spine_switch="TH5", core_switch="TH5",
                    port_speed_gbps=100, uplink_speed_gbps=200, oversubscription=3.0, tiers=2)
    at = app(sharelink.encode(design))
    assert not at.exception and not at.error
    resolved = plan(design).resolved
    main, tiers = auto_labels(at)
    assert "switch TH5" in at.caption[0].value
    assert main == f"auto (TH5, {resolved.switch_ports} ports)"
