"""A torus's numbers agree on every surface: the NIC ports it cables (not the node's all), its readouts without
switches, its bill of NICs. Numbers by hand for the 4x4x4 torus of 64 DGX H100 (512 GPUs, 8 x 400G CX7 per node,
6 neighbours each: 6 ports cabled, 2 unused)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.cli import main as cli_main
from core.design import Design
from core.fabric import families
from core.figures.scaleup import scaleup_figure
from core.formats.report import design_report_html
from core.plan import plan
from tests.pagetest import ENTRY

TORUS = Design(gpu="H100", nodes=64, topology="torus")
CABLED, NICS, GBPS, GPUS_PER_NODE, NODES = 6, 8, 400, 8, 64


def test_scaleout_per_gpu_counts_the_cabled_ports_as_the_injection_does():
    p = plan(TORUS)
    bw = p.bandwidth
    assert families.cabled_nics(p.fabric, NICS) == CABLED
    assert bw.scaleout_gbits_per_gpu == pytest.approx(CABLED * GBPS / GPUS_PER_NODE)  # 300 Gb/s = 37.5 GB/s
    assert bw.injection_tbits_one_direction == pytest.approx(NODES * CABLED * GBPS / 1000)  # 153.6 Tb/s = 19.2 TB/s
    assert bw.injection_tbits_one_direction * 1000 / p.resolved.gpus == pytest.approx(bw.scaleout_gbits_per_gpu)
    # 4x4x4: 2 k^2 = 32 links across the bisection, 12.8 Tb/s; half the injection over it: 76.8 / 12.8 = 6:1
    assert bw.bisection_tbits_one_direction == pytest.approx(32 * GBPS / 1000)
    assert bw.oversubscription == pytest.approx(6.0)
    # every GPU of one half across the cut: the bisection over half the GPUs, 12,800 / 256 = 50 Gb/s (6.25 GB/s)
    assert bw.cross_fabric_gbits_per_gpu == pytest.approx(32 * GBPS / 256)


def test_a_clos_cables_every_nic():
    p = plan(Design(gpu="H100", nodes=64))
    assert families.cabled_nics(p.fabric, NICS) == NICS
    assert p.bandwidth.scaleout_gbits_per_gpu == pytest.approx(NICS * GBPS / GPUS_PER_NODE)


def test_bill_buys_the_nodes_nics_and_says_which_are_cabled():
    p = plan(TORUS)
    nic = next(r for r in p.bom if r.category == "NIC")
    assert nic.quantity == NODES * NICS  # a DGX H100 comes with its 8 CX7 (catalog: the SuperPOD H100 RA)
    assert "6 of each node's cabled, 2 unused" in nic.why


def test_scaleup_caption_says_how_many_nics_are_cabled():
    spec = scaleup_figure(plan(TORUS)).to_plotly_json()
    text = " ".join(a.get("text", "") for a in spec["layout"].get("annotations", []))
    assert "of which 6 cabled, 2 unused" in text.replace("<br>", " ")


def test_cli_says_the_cabled_rate_and_no_tiers(capsys):
    assert cli_main(["plan", "--topology", "torus", "--gpus", "512"]) in (0, None)
    out = capsys.readouterr().out
    assert "injection per GPU 37.5 GB/s" in out
    assert "1 tier" not in out and "node to node without switches" in out.splitlines()[0]
    assert cli_main(["plan", "--topology", "torus", "--gpus", "512", "--format", "json"]) in (0, None)
    data = json.loads(capsys.readouterr().out)
    assert data["bandwidth"]["scaleout_gbits_per_gpu"] == pytest.approx(300.0)


def test_torus_declares_no_leaf_whatif_and_the_clos_keeps_it():
    assert families.leaf_whatif("torus") is False
    assert families.leaf_whatif("clos") is True and families.leaf_whatif("dragonfly") is True


def test_report_leaves_out_the_leaf_whatif_and_says_links_crossed():
    html = design_report_html(plan(TORUS), name="", share_link="")
    assert "What if the leaves were oversubscribed" not in html
    assert "Oversubscription leaf" not in html and "switches crossed" not in html
    assert "Bisection ratio 6:1" in html and "farthest pair 6" in html


def test_designer_bandwidth_tab_has_no_leaf_whatif_on_a_torus():
    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({"v": "1", "t": "tr", "ng": "512", "tab": "Bandwidth", "lang": "en"})
    at.run()
    assert not at.exception and not at.error
    text = " ".join(m.value for m in at.markdown)
    assert "leaf 1:1" not in text and "switches crossed" not in text
    assert "**Bisection ratio** 6:1" in text and "farthest pair 6" in text
    assert len(at.dataframe) == 0  # no what-if table
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) == 2  # the bandwidth per GPU and the capacities; no what-if chart
    bars = charts[0]["data"][0]
    assert max(bars["x"] if bars.get("orientation") == "h" else bars["y"]) > 0


def test_node_modules_fill_the_twin_port_cages_as_the_copper_cables_do():
    # 192 links, 6 cabled ports per node: 384 port ends. A copper link is one link of a twin-port cable; an optical
    # link end is one port of a twin-port OSFP module (a DGX H100 carries 2 NIC ports per cage): 2 ends per module.
    p = plan(TORUS)
    torus_rows = [r for r in p.bom if "torus" in r.item]
    copper = sum(r.quantity for r in torus_rows if r.category == "cable" and "copper" in r.item)
    fibre = sum(r.quantity for r in torus_rows if r.category == "cable" and "fibre" in r.item.lower())
    modules = sum(r.quantity for r in torus_rows if r.category == "transceiver")
    assert copper + fibre == 192
    assert modules == fibre  # 2 ends per optical link, 2 ports per module
    assert 2 * copper + 2 * modules == NODES * CABLED  # every cabled port, none twice
    assert p.transceiver_counts()["node_side"] == modules


def test_bandwidth_readout_works_half_the_injection_in_core():
    """The Designer's and the review pack's torus readout: half the injection (76.8 Tb/s = 9.6 TB/s) over the
    bisection (12.8 Tb/s = 1.6 TB/s) is the 6:1 ratio, each GPU's 37.5 GB/s gets 6.25 GB/s across the cut."""
    from core.figures.bandwidth import bandwidth_readout

    p = plan(TORUS)
    text = bandwidth_readout(p.fabric.family, p.resolved.system, p.bandwidth, "GB/s", "readout:bandwidth", "")
    assert "(9.6 TB/s / 1.6 TB/s, one direction" in text
    assert "6:1" in text and "37.5 GB/s" in text and "6.25 GB/s" in text
    text = bandwidth_readout(p.fabric.family, p.resolved.system, p.bandwidth, "Gb/s", "report:readout:bandwidth", "")
    assert "(76.8 Tb/s / 12.8 Tb/s, one direction" in text
