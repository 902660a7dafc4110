"""AppTest of the sidebar's "Advanced fabric" section: a link with the new keys restores the
widgets and the URL is stable; a widget change reaches the design."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from core.design import Design
from core.formats import sharelink

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


def app(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update(params or {})
    return at.run()


def test_link_with_field_fabric_keys_restores_the_sidebar():
    design = Design(gpu="H100", nodes=64, fabric="ethernet", switch="SN5600", port_speed_gbps=400,
                    uplink_speed_gbps=800, nic="BF3", plane_mode="per-rail", planes=2, su_nodes=16, grow_to=128,
                    spine_switch="TH5")
    params = {k: v for k, v in sharelink.encode(design).items()}
    at = app(params)
    assert not at.exception and not at.error and not at.warning
    assert at.session_state["fp_current"].design == design
    assert at.selectbox(key="w_uplink").value == 800 and at.selectbox(key="w_plane_mode").value == "per-rail"
    assert at.number_input(key="w_su").value == 16 and at.number_input(key="w_grow").value == 128
    plan = at.session_state["fp_current"].plan
    assert plan.fabric.grow_to_nodes == 128 and plan.resolved.tier_switches["spine"].id == "TH5"


def test_advanced_fabric_widgets_change_the_design():
    at = app({"n": "64"})
    at.number_input(key="w_su").set_value(16).run()
    at.selectbox(key="w_topology").set_value("rail-only").run()
    assert not at.exception
    design = at.session_state["fp_current"].design
    assert design.su_nodes == 16 and design.topology == "rail-only"
    assert dict(at.query_params)["su"] == "16" and dict(at.query_params)["t"] == "ro"
