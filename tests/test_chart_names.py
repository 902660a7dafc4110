"""One device-name rule for what people see: the Designer's charts (topology labels and hovers, rack elevations'
hovers) name devices as the exports and the single points of failure do (``ElementNames.device_name``: ``gpu002``,
``leaf001``, ``storage-array001``), under the hand-off naming; the floor plan's hover says nodes as nodes and each
model once per rack."""

from __future__ import annotations

import pytest

from core.analysis.failure.spec import export_namer
from core.design import Design
from core.fabric.naming import NamingScheme
from core.figures.racks import floor_plan_figure, rack_devices, rack_elevation_figure
from core.figures.topology import topology_figure
from core.i18n import language
from core.plan import plan


def _hovers(fig) -> list[str]:
    return [h for t in fig.data if t.hovertext is not None for h in t.hovertext]


def test_topology_labels_and_hovers_name_servers_and_switches_as_the_exports():
    """4 nodes: the labels read gpu001 .. gpu004 (they read "node 1"), the hovers gpu002 and leaf001; a hand-off
    naming (dgx, sw-) names them as its exports do."""
    p = plan(Design(nodes=4))
    fig = topology_figure(p)
    servers = next(t for t in fig.data if t.name and t.name.startswith("Servers"))
    assert list(servers.text) == ["gpu001", "gpu002", "gpu003", "gpu004"]
    assert servers.hovertext[1].startswith("<b>gpu002</b><br>1 node x 8 GPUs = 8 H100")
    assert any(h.startswith("gpu002 - leaf001<br>") for h in _hovers(fig))
    named = topology_figure(p, naming=NamingScheme(node_prefix="dgx", switch_prefix="sw-"))
    assert any(h.startswith("dgx002 - sw-leaf001<br>") for h in _hovers(named))
    # the single points of failure name the same server the same way
    assert "gpu002" in export_namer(p).name("node1")


def test_rack_elevation_hovers_name_devices_as_the_exports():
    """The elevations' hovers said the engine's ids (node1 for the second node, p0.leaf0, storage.array0)."""
    p = plan(Design(nodes=4))
    fig = rack_elevation_figure(p.layout, name=export_namer(p).device_name)
    names = {h.split("<br>")[0] for h in _hovers(fig)}
    assert {"gpu001", "gpu002", "gpu004", "leaf001", "storage-array001", "storage-leaf001", "mgmt-ufm001"} <= names
    assert not any(n.startswith(("node", "p0.", "storage.", "mgmt.")) for n in names)


@pytest.mark.parametrize("lang, nodes", [("en", "4 nodes of 8 x H100"), ("zh", "4 个节点，每节点 8 × H100")])
def test_floor_plan_hover_says_nodes_as_nodes(lang, nodes):
    """The compute rack's hover said "4 x H100" for 4 nodes (32 GPUs, as every description says them)."""
    p = plan(Design(nodes=4))
    with language(lang):
        fig = floor_plan_figure(p.layout, gpus_per_node={p.resolved.system.id: p.resolved.gpus_per_node})
    assert any(nodes in h for h in _hovers(fig))
    assert not any("4 x H100" in h for h in _hovers(fig))


def test_floor_plan_hover_sums_a_model_once_per_rack():
    """A Dragonfly+ rack of leaves and spines of one model said "20 x QM9700, 13 x QM9700": once, summed."""
    p = plan(Design(topology="dragonfly", gpus=2048))
    for rack in p.layout.racks:
        said = rack_devices(rack, {"H100": 8})
        models = [part.split(" x ")[-1] for part in said.split(", ")]
        assert len(models) == len(set(models)), said
        for model in set(s.model for s in rack.slots if s.kind not in ("node", "nvl72")):
            assert f"{sum(s.count for s in rack.slots if s.model == model):,} x {model}" in said


def test_the_clicked_switchs_label_is_the_hovers_name():
    """The Designer names the clicked switch under the chart as its hover does (``leaf001``), not ``leaf 1``."""
    from webui import cached

    key = Design(gpus=1024).model_dump_json()
    assert cached.vertex_label(key, "p0.leaf0", "en") == "leaf001"
    assert cached.vertex_label(key, "p0.spine3", "zh") == "spine004"


def test_a_design_with_pods_draws_its_switches_by_the_pods_exports_names():
    """Pods drawn whole: a pod's leaf as the pods' exports name it (``pod1-leaf001``), a shared spine ``spine001``
    (``PodElementNames.device_name``); pod 1 drawn alone keeps its family's words (its exports name the whole)."""
    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    hovers = _hovers(topology_figure(p))
    assert any(h.startswith("<b>pod1-leaf001</b>") for h in hovers)
    assert any(h.startswith("<b>spine001</b>") for h in hovers)
    assert any(h.startswith("servers of group 1 - leaf 1<br>") for h in _hovers(topology_figure(p, every_pod=False)))
