"""Figures are pure: built from the engine's plan, bounded in size, and they say what they draw."""

import json

import pytest

from core import figures, units
from core.fabric.bandwidth import tier_capacities_gbits
from core.design import Design
from core.plan import plan
from core.i18n import usd
from core.fabric.topology import fabric_graph
from core.analysis.whatif import oversubscription_sweep
from core.figures.style import full_title

SIZES = {
    "8 GPUs": Design(gpus=8),
    "2 nodes": Design(nodes=2),
    "1,024 GPUs": Design(gpus=1024),
    "top-of-rack": Design(gpus=1024, topology="top-of-rack"),
    "two planes": Design(gpu="B300", gpus=1024, fabric="ethernet", port_speed_gbps=400, planes=2),
    "NVL72": Design(gpu="GB200-NVL72", gpus=1152),
    "8,192 GPUs": Design(gpus=8192),
    "131,072 GPUs": Design(gpu="B300", gpus=131072),
    "1M GPUs": Design(gpus=1_000_000, fabric="ethernet", port_speed_gbps=200, switch="TH6"),
}


@pytest.mark.parametrize("name", SIZES)
def test_topology_is_bounded_and_complete(name):
    p = plan(SIZES[name])
    fig = figures.topology_figure(p)
    assert figures.count_drawn_elements(fig) <= figures.DRAW_BUDGET
    json.loads(fig.to_json())
    graph, aggregated = figures.topology_graph(p)
    assert aggregated == (figures.full_graph_elements(p) > figures.FULL_GRAPH_LIMIT)
    assert ("Aggregated view" in full_title(fig.layout.title)) == aggregated
    # every vertex is drawn once and carries its id for selection
    drawn = [v for t in fig.data if t.customdata is not None for v in t.customdata]
    assert sorted(drawn) == sorted(graph.nodes)
    # the drawn bundles carry every link of plane 0
    assert sum(d["links"] for _, _, d in graph.edges(data=True)) == \
        p.fabric.node_leaf_links + p.fabric.leaf_spine_links + p.fabric.spine_core_links


def test_full_graph_estimate_matches_the_graph():
    for design in (Design(gpus=1024), Design(gpus=1024, topology="top-of-rack"), Design(gpus=4096)):
        p = plan(design)
        g = fabric_graph(p, servers="grouped", planes=1)
        assert figures.full_graph_elements(p) == g.number_of_nodes() + 2 * g.number_of_edges()


def test_tiers_are_legend_groups_and_rails_have_colours():
    fig = figures.topology_figure(plan(Design(gpus=1024)))
    legend = {t.legendgroup for t in fig.data if t.showlegend is not False}
    assert legend == {"server", "leaf", "spine"}
    leaves = next(t for t in fig.data if t.legendgroup == "leaf" and t.customdata is not None)
    assert len(set(leaves.marker.color)) == 8  # 8 rails, 8 colours
    assert "rail" in full_title(fig.layout.title)


def test_selection_highlights_the_switch_links():
    p = plan(Design(gpus=1024))
    plain = figures.topology_figure(p)
    lit = figures.topology_figure(p, selected="p0.spine3")
    highlight = [t for t in lit.data if t.name == "selected links"]
    assert not [t for t in plain.data if t.name == "selected links"]
    assert len(highlight) == 1
    segments = sum(1 for x in highlight[0].x if x is None)
    assert segments == 32  # a spine links to each of the 32 leaves
    assert figures.topology_figure(p, selected="no-such-switch").to_json() == plain.to_json()


def test_hover_shows_model_ports_and_bandwidth():
    p = plan(Design(gpus=1024))
    fig = figures.topology_figure(p, unit="Gb/s")
    leaf = next(t for t in fig.data if t.legendgroup == "leaf" and t.customdata is not None)
    assert "QM9700" in leaf.hovertext[0] and "ports used 64 of 64" in leaf.hovertext[0]
    bundles = [h for t in fig.data if t.name == "spine link bundles" for h in t.hovertext]
    assert "leaf001 - spine001<br>2 links x 400G = 800 Gb/s per direction" in bundles  # as the exports name them
    agg = figures.topology_figure(plan(Design(gpu="B300", gpus=131072)), unit="GB/s")
    assert any("of 144 ports used" in h for t in agg.data if t.customdata is not None for h in t.hovertext)


@pytest.mark.parametrize("name", ["8 GPUs", "NVL72", "131,072 GPUs"])
def test_scaleup_counts_links(name):
    p = plan(SIZES[name])
    fig = figures.scaleup_figure(p)
    assert figures.count_drawn_elements(fig) <= figures.DRAW_BUDGET
    links = figures.nvlink_links_per_gpu(p)
    assert links == 18
    assert f"{links} links per GPU" in full_title(fig.layout.title)
    if name == "NVL72":
        assert "72 GPUs" in full_title(fig.layout.title) and "18 compute trays" not in full_title(fig.layout.title)
        texts = " ".join(h for t in fig.data if t.hovertext is not None for h in t.hovertext)
        assert "tray 18" in texts and "NVSwitch tray 9" in texts


def test_scaleup_without_nvswitch_uses_cube_mesh():
    fig = figures.scaleup_figure(plan(Design(gpu="V100", nodes=2)))
    assert "cube-mesh" in fig.layout.annotations[0].text
    per_gpu = {g: 0 for g in range(8)}
    for (a, b), count in figures.DGX1_CUBE_MESH.items():
        per_gpu[a] += count
        per_gpu[b] += count
    assert set(per_gpu.values()) == {6}


def test_bandwidth_and_cost_figures_use_engine_numbers():
    p = plan(Design(gpus=1024, oversubscription=2.0))
    h = figures.bandwidth_hierarchy_figure(p, unit="Gb/s")
    assert list(h.data[0].x)[::-1] == [p.bandwidth.nvlink_gbytes_per_gpu_per_direction * 8,
                                      p.bandwidth.scaleout_gbits_per_gpu, p.bandwidth.cross_fabric_gbits_per_gpu]
    caps = tier_capacities_gbits(p.resolved, p.fabric)
    t = figures.tier_capacity_figure(p, caps, unit="Gb/s")
    assert list(t.data[0].y) == pytest.approx([v / 1000 for v in caps.values()] +
                                              [p.bandwidth.bisection_tbits_one_direction])
    capex = figures.capex_figure(p)
    assert sum(capex.data[0].y) == pytest.approx(p.cost.capex_usd)
    power = figures.power_figure(p)
    per_kw = {"kW": 1, "MW": 1000}[power.layout.yaxis.title.text]  # one unit, chosen by the tallest bar
    assert sum(power.data[0].y) * per_kw == pytest.approx(p.cost.facility_kw)


def test_oversubscription_sweep_replans():
    sweep = oversubscription_sweep(Design(gpus=1024, oversubscription=1.25))
    assert 1.25 in list(sweep["oversubscription"])
    ok = sweep[sweep["feasible"]]
    cross = list(ok["cross_fabric_gbits_per_gpu"])
    assert cross == sorted(cross, reverse=True) and cross[0] == 400
    for _, row in ok.iterrows():
        p = plan(Design(gpus=1024, oversubscription=row["oversubscription"]))
        assert row["cross_fabric_gbits_per_gpu"] == p.bandwidth.cross_fabric_gbits_per_gpu
    fig = figures.oversubscription_figure(sweep, 1.25)
    assert any(t.name == "this design" for t in fig.data)
    bad = oversubscription_sweep(Design(gpus=8192, tiers=2))
    assert not bad["feasible"].any() and "tiers" in bad["note"].iloc[0]


def _server_trace(fig):
    return next(t for t in fig.data if t.name and t.name.startswith("Servers"))


@pytest.mark.parametrize("design,labels", [
    (Design(nodes=4), ["gpu001", "gpu002", "gpu003", "gpu004"]),  # as the exports and the single points name them
    (Design(nodes=16), [str(i) for i in range(1, 17)]),
    (Design(nodes=16, topology="top-of-rack"), [str(i) for i in range(1, 17)]),
    (Design(nodes=127), ["SU 1<br>32 nodes", "SU 2<br>32 nodes", "SU 3<br>32 nodes", "SU 4<br>31 nodes"]),
])
def test_every_server_or_group_has_its_own_place_and_name(design, labels):
    fig = figures.topology_figure(plan(design))
    servers = _server_trace(fig)
    xs = list(servers.x)
    assert len(set(round(x, 6) for x in xs)) == len(xs)  # no two drawn at one point
    assert sorted(xs) == xs  # in order along the row
    assert list(servers.text) == labels
    lo, hi = fig.layout.xaxis.range
    assert lo < min(xs) and max(xs) < hi


def test_aggregated_server_groups_are_spread_and_labelled():
    fig = figures.topology_figure(plan(Design(gpu="B300", gpus=131072)))
    servers = _server_trace(fig)
    assert len(set(servers.x)) == len(servers.x) > 1
    labels = [t.removeprefix("<br><br>") for t in servers.text]  # odd labels sit a row lower
    if len(labels) <= 7:  # few groups: the span and the count; many: the count (the span is in the hover)
        assert all(t.startswith("pods ") and t.split("<br>")[1].replace(",", "").isdigit() for t in labels)
    else:
        assert all(t.replace(",", "").isdigit() for t in labels)
    assert all("pod" in h for h in servers.hovertext)
    assert any(t.startswith("<br><br>") for t in servers.text) == (5 < len(labels) <= 7)


def test_one_tier_leaf_carries_every_rail():
    fig = figures.topology_figure(plan(Design(nodes=4)))
    leaf = next(t for t in fig.data if t.name and t.name.startswith("Leaf"))
    assert "all 8 rails" in leaf.hovertext[0] and "rail 1" not in leaf.hovertext[0]


def test_nvl72_scaleup_is_thin_lines_with_a_per_tray_note():
    fig = figures.scaleup_figure(plan(Design(gpu="GB200-NVL72", gpus=72)))
    lines = [t for t in fig.data if t.mode == "lines"]
    assert lines and all(t.line.width <= 1.0 for t in lines)
    note = fig.layout.annotations[0].text.replace("<br>", " ")  # wrapped to fit a narrow column
    assert "18 links per GPU, one to each of 18 NVSwitch chips" in note
    assert "Each line: 8 links between a compute tray and a switch tray" in note


def test_titles_and_notes_wrap_to_fit_a_narrow_column():
    from core.figures.style import TITLE_CHARS, TITLE_CHARS_THREE_FIFTHS, wrap_title

    fig = figures.topology_figure(plan(Design(gpu="GB200-NVL72", nodes=1800)))  # three fifths of the page
    import re
    for line in full_title(fig.layout.title).split("<br>"):
        visible = re.sub(r"&#?\w+;", "x", re.sub(r"</?sup>", "", line))
        visible = re.sub(r"<[^>]+>", "", visible)
        assert len(visible) <= TITLE_CHARS_THREE_FIFTHS * 1.35, line
    text, lines = wrap_title("a " * 60)
    assert lines == len(text.split("<br>")) >= 3 and all(len(x) <= TITLE_CHARS for x in text.split("<br>"))
    scale = figures.scaleup_figure(plan(Design(gpu="GB200-NVL72", nodes=18)))
    assert all(len(x) <= 36 for x in scale.layout.annotations[0].text.split("<br>"))
    assert scale.layout.margin.t >= 30 + 22 * (full_title(scale.layout.title).count("<br>") + 1)


def test_hgx_scaleup_says_how_links_spread():
    fig = figures.scaleup_figure(plan(Design(gpus=8)))
    assert "18 links per GPU spread over 4 NVSwitch chips (5+5+4+4)" in fig.layout.annotations[0].text.replace("<br>", " ")


@pytest.mark.parametrize("unit", ["GB/s", "Gb/s"])
@pytest.mark.parametrize("design", [Design(nodes=4), Design(gpu="B300", gpus=131072)])
def test_capacity_axis_and_bar_labels_share_one_unit(design, unit):
    """The axis takes one unit, picked by its largest bar; the hierarchy's bars (NVLink beside a NIC) say theirs in
    it, the capacity chart's each as a card writes it (``units.bandwidth``: 800 GB/s beside 1.6 TB/s, review 45
    2.8)."""
    p = plan(design)
    caps = tier_capacities_gbits(p.resolved, p.fabric)
    for fig in (figures.tier_capacity_figure(p, caps, unit=unit), figures.bandwidth_hierarchy_figure(p, unit=unit)):
        bar = fig.data[0]
        label = full_title(fig.layout.title).split("[")[-1].rstrip("]")
        assert label[1:] == unit[1:] and label[0] in "GTP"
        values = bar.y if bar.orientation != "h" else bar.x
        if bar.orientation == "h":
            for value, text in zip(values, bar.text):
                assert text.endswith(" " + label)
                assert abs(float(text.split()[0].replace(",", "")) - value) <= 0.06 * value + 0.01
        else:
            gbits = [*caps.values(), p.bandwidth.bisection_tbits_one_direction * 1000]
            assert list(bar.text) == [units.bandwidth(v, unit) for v in gbits]
            assert units.scale(max(gbits), unit)[1] == label


def test_oversubscription_usd_axis_is_formatted():
    d = Design(nodes=64)
    fig = figures.oversubscription_figure(oversubscription_sweep(d), 1.0)
    axis = fig.layout.yaxis2
    assert axis.tickprefix is None and axis.tickformat is None  # Plotly's d3 format writes "$1.00G"
    assert list(axis.ticktext) == [usd(v, trim=True) for v in axis.tickvals] and len(axis.tickvals) >= 3


@pytest.mark.parametrize("design", [Design(nodes=4), Design(nodes=127), Design(gpu="GB200-NVL72", nodes=180),
                                    Design(gpu="V100", nodes=2)])
def test_dict_built_figures_equal_validated_ones(design):
    """FigureSpec skips Plotly's validation for speed: the same figure through go.Figure must give the same JSON."""
    import plotly.graph_objects as go
    import plotly.io as pio

    p = plan(design)
    for fig in (figures.topology_figure(p, selected="spine:0"), figures.scaleup_figure(p)):
        validated = go.Figure(fig.to_dict())  # raises on any invalid property
        assert json.loads(pio.to_json(validated, validate=False)) == json.loads(pio.to_json(fig, validate=False))


def test_wrap_title_keeps_a_bare_less_than_sign():
    from core.figures.style import wrap_title

    assert wrap_title("a < b")[0] == "a < b"
    text, lines = wrap_title("latency < 1 us and bandwidth > 2 and more words here to wrap", 20)
    assert lines > 1 and "<" in text and ">" in text


def test_step_totals_side_by_side_read_alike():
    """The training step chart's totals: two fabrics side by side read with one count of decimals ("6.00 s" above
    "6.01 s"; GB200 two-level NVLink read "6 s" above "6.01 s"); a bar alone reads as its step card ("6 s")."""
    from types import SimpleNamespace

    from core.figures.perf import step_figure

    def step(seconds):
        return SimpleNamespace(comm=[], compute_s=seconds, bubble_s=0.0, step_time_s=seconds)

    def totals(fig):
        return [t.strip() for trace in fig.data if trace.type == "scatter" for t in trace.text]

    assert totals(step_figure({"this design": step(6.0), "Ethernet RoCE": step(6.0123)})) == ["6.00 s", "6.01 s"]
    assert totals(step_figure({"this design": step(6.0)})) == [f"{units.number(6.0)} s"] == ["6 s"]
