"""The classic Dragonfly family (``core.fabric.classic_dragonfly``), as HPE Slingshot builds it.

Golden sources:

* Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008: ``a`` routers per
  group, ``p`` terminals and ``h`` global links per router; at most ``a h + 1`` groups and ``a p (a h + 1)``
  terminals; balanced at ``a = 2p = 2h``; minimal routes local-global-local (3 router-to-router hops).
* HPE Slingshot's Rosetta switch (64 ports): 32 switches per group, each with 16 endpoint (L0), 31 intra-group
  (L1) and 17 global (L2) ports, at most 545 groups of 512 endpoints (G. Lockwood, "Slingshot",
  https://glennklockwood.com/garden/slingshot; the same page also quotes 278,528 endpoints, which is 544 groups:
  Kim et al.'s formula gives 545 x 512 = 279,040, which we test).
* Frontier (OLCF): each Cray EX4000 cabinet is a Dragonfly group of 128 nodes with 4 NICs each and 32 64-port
  switches (16 endpoint ports, 31 intra-group, up to 16 global used); 74 compute groups, 4 links between every
  two groups; injection 512 x 200G = 102.4 Tb/s and global 4 x 73 x 200G = 58.4 Tb/s per group, a blocking
  factor of 1.753 (G. Lockwood, "Frontier", https://glennklockwood.com/garden/systems/frontier; 128 nodes per
  cabinet: OLCF Frontier User Guide, https://docs.olcf.ornl.gov/systems/frontier_user_guide.html). The
  published node count, 9,408, is 64 fewer than 74 x 128: we size 74 full groups.
"""

from __future__ import annotations

import ast
import json
import itertools
import re
from pathlib import Path

import networkx as nx
import pytest

from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import DesignError
from core.fabric import classic_dragonfly as cdf
from core.fabric.families import CLOS, FAMILIES, family
from core.fabric.sizing import size_fabric
from core.fabric.wiring import Wiring, wiring_of
from core.plan import plan

ROOT = Path(__file__).resolve().parents[1]


def _design(nodes: int, rails: int = 1, **changes) -> Design:
    return Design(gpu="H100", gpus_per_node=rails, nics_per_node=rails, nodes=nodes, topology="classic-dragonfly",
                  switch="QM9700", **changes)


def _fabric(design: Design):
    return size_fabric(resolve_design(design, load_catalog()))


# ------------------------------------------------------------------------------------------------- golden
def test_rosetta_balanced_router_is_kim_et_al_16_31_17():
    f = _fabric(_design(4096))
    assert (f.nodes_per_group, f.groups_per_pod * f.leaves_per_group, f.global_ports_per_spine) == (16, 32, 17)
    assert f.nodes_per_group + 31 + 17 == 64  # every port of a 64-port router used: p + (a - 1) + h


def test_largest_system_is_a_p_times_a_h_plus_1():
    a, p, h = 32, 16, 17
    most = a * p * (a * h + 1)
    assert most == 279_040 and a * h + 1 == 545
    f = _fabric(_design(most))
    assert f.pod_count == 545 and f.global_pair_links == 1 and f.leaf_count == 545 * 32
    with pytest.raises(DesignError) as raised:
        _fabric(_design(most + 1))
    assert "279,040" in str(raised.value)


def test_frontier_counts():
    frontier = _design(74 * 128, rails=4, su_nodes=16, group_leaves=32, global_ratio=4 * 73 / 512,
                       port_speed_gbps=400)
    f = _fabric(frontier)
    assert f.pod_count == 74 and f.leaf_count == 74 * 32 and f.global_pair_links == 4
    assert f.global_links == 4 * 74 * 73 // 2
    per_group_injection = 32 * f.nodes_per_group  # endpoint ports
    assert per_group_injection == 512
    assert per_group_injection / (73 * f.global_pair_links) == pytest.approx(1.753, abs=5e-4)  # blocking factor
    w = wiring_of(f, 74 * 128, 4)
    assert sum(1 for b in w.bundles() if b.kind == "local") == 74 * 32 * 31 // 2


# ------------------------------------------------------------------------------------------ wiring properties
SMALL = [  # rails, nodes per router, routers per group, groups
    (1, 4, 4, 3), (2, 3, 4, 4), (2, 2, 6, 5), (4, 2, 4, 2), (1, 3, 5, 1), (2, 4, 4, 6),
]


def _small(rails, p, a, groups, **changes):
    design = _design(rails and p * (a // rails) * groups, rails=rails, su_nodes=p, group_leaves=a, **changes)
    f = _fabric(design)
    return f, wiring_of(f, design.nodes, rails)


def _graph(w) -> nx.Graph:
    g = nx.Graph()
    for b in w.bundles(0):
        if g.has_edge(b.a, b.b):
            g[b.a][b.b]["capacity"] += b.count
        else:
            g.add_edge(b.a, b.b, capacity=b.count)
    return g


@pytest.mark.parametrize("shape", SMALL)
def test_ports_within_radix_links_counted_and_ordinals_unique(shape):
    f, w = _small(*shape)
    ends, per_router = set(), {}
    counts = {"node-leaf": 0, "local": 0, "global": 0}
    for link in w.links(0):
        counts[link.kind] += 1
        for device, side, ordinal in ((link.a, "a", link.a_port), (link.b, "b", link.b_port)):
            role = "node" if device.startswith("node") else "router"
            key = (device, "down" if role == "router" and link.kind == "node-leaf" else "up", ordinal)
            assert key not in ends, key
            ends.add(key)
            if role == "router":
                per_router[device] = per_router.get(device, 0) + 1
    assert max(per_router.values()) <= f.radix
    routers = [len(w.routers_of_group(g)) for g in range(f.pod_count)]
    assert counts["local"] == sum(r * (r - 1) // 2 for r in routers)
    assert counts["global"] == f.global_links == f.global_pair_links * f.pod_count * (f.pod_count - 1) // 2
    assert counts["node-leaf"] == f.node_leaf_links
    ups = [v for (d, side, _o), v in zip(ends, itertools.repeat(1)) if side == "up" and not d.startswith("node")]
    assert len(ups) == 2 * (counts["local"] + counts["global"])
    assert sum(g.count for g in f.switch_groups) == f.leaf_count
    assert all(g.down_ports_used + g.up_ports_used <= f.radix for g in f.switch_groups)


@pytest.mark.parametrize("shape", SMALL)
def test_hop_counts_are_networkx_shortest_paths(shape):
    f, w = _small(*shape)
    g = _graph(w)
    routers = [v for v in g if not v.startswith("node")]
    dist = dict(nx.all_pairs_shortest_path_length(g.subgraph(routers)))
    same, other = 1, 0
    for x, y in itertools.combinations(routers, 2):
        gx, gy = w.pod_of_leaf(Wiring.parse(x)[3]), w.pod_of_leaf(Wiring.parse(y)[3])
        if gx == gy:
            same = max(same, dist[x][y] + 1)
        else:
            other = max(other, dist[x][y] + 1)
    hops = cdf.hop_counts(w)
    assert (hops.same_group, hops.other_group) == (same, other)
    assert hops.other_group <= 4  # Kim et al.: at most local, global, local (3 router-to-router hops)


@pytest.mark.parametrize("shape", [s for s in SMALL if s[3] % 2 == 0])
def test_bisection_is_the_min_cut_between_halves_of_the_groups(shape):
    f, w = _small(*shape)
    resolved = resolve_design(_design(f.node_leaf_links // f.leaves_per_group, rails=f.leaves_per_group,
                                      su_nodes=f.nodes_per_group, group_leaves=shape[2]), load_catalog())
    g = _graph(w)
    half = f.pod_count // 2
    source = [v for v in g if v.startswith("p0.") and w.pod_of_leaf(Wiring.parse(v)[3]) < half]
    sink = [v for v in g if v.startswith("p0.") and w.pod_of_leaf(Wiring.parse(v)[3]) >= half]
    for v in source:
        g.add_edge("S", v, capacity=10**9)
    for v in sink:
        g.add_edge(v, "T", capacity=10**9)
    cut = nx.minimum_cut_value(g, "S", "T")
    injection = f.node_leaf_links * resolved.port_speed_gbps
    expected = cdf.bisection_gbits(resolved, f, injection, 0.0)
    assert min(injection / 2, cut * resolved.uplink_gbps) == pytest.approx(expected)


def test_counts_never_fall_as_nodes_grow():
    last = None
    for nodes in range(16, 2048, 61):
        f = _fabric(_design(nodes, rails=2))
        counts = (f.leaf_count, f.global_links, f.pod_count)
        if last is not None:
            assert counts[0] >= last[0] and counts[2] >= last[2]
        last = counts


# ------------------------------------------------------------------------------------- errors and ways out
def test_group_not_whole_scalable_units_is_a_design_error():
    with pytest.raises(DesignError, match="not a whole number of scalable units of 4 routers") as raised:
        plan(_design(256, rails=4, group_leaves=6))
    assert "size the Dragonfly groups" in str(raised.value)  # core.plan's way out, in words both Dragonflies fit
    assert "Dragonfly+" not in str(raised.value)


def test_group_too_large_names_the_largest():
    design = _design(4096, rails=4, group_leaves=64)
    with pytest.raises(DesignError, match="48 ports left for its local links and the 16 global links") as raised:
        plan(design)
    assert "At most 32 routers fit in one group, not 64." in raised.value.message  # the plan's ways out replace
    for _phrase, changes in raised.value.fixes:                                      # the sizing's suggestion
        plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))
    with pytest.raises(DesignError, match="Set group leaves to at most 32"):
        _fabric(_design(4096, rails=4, group_leaves=64))


def test_per_rail_planes_are_refused_and_a_spine_switch_ignored():
    """Per-rail planes are refused; a spine or core model is one of the family's ``IGNORED_FIELDS`` (no spine or
    core tier): said to be ignored, the plan the same (the summary's ``switch_models`` echo it, as a Dragonfly+'s
    ignored core model)."""
    from core.fabric.families import unused_fields

    with pytest.raises(DesignError, match="every NIC in every plane"):
        plan(_design(256, rails=4, planes=2, plane_mode="per-rail"))
    base = Design(gpu="H100", gpus_per_node=4, nics_per_node=4, nodes=256, topology="classic-dragonfly",
                  fabric="ethernet", switch="TH5", port_speed_gbps=400)
    for field in ("spine_switch", "core_switch"):
        asked = base.model_copy(update={field: "SN5600"})
        (said,) = unused_fields(asked)
        assert "has no effect on a Dragonfly" in said
        a, b = plan(asked), plan(base)
        assert [r.model_dump() for r in a.bom] == [r.model_dump() for r in b.bom]
        assert {k: v for k, v in a.summary().items() if k != "switch_models"} == \
            {k: v for k, v in b.summary().items() if k != "switch_models"}


# --------------------------------------------------------------------------- every view, export and analysis
@pytest.fixture(scope="module")
def slingshot():
    return plan(_design(512, rails=4))


def test_plan_bom_has_routers_local_and_global_links(slingshot):
    f = slingshot.fabric
    switches = [r for r in slingshot.bom if r.category == "switch" and r.network == "compute"]
    assert sum(r.quantity for r in switches) == f.leaf_count
    items = " ".join(r.item for r in slingshot.bom if r.network == "compute")
    assert "(local," in items and "(global," in items
    lengths = {m.link_class for m in slingshot.media}
    assert {"node-leaf", "local", "global"} <= lengths
    assert slingshot.summary()["classic_dragonfly"]["groups"] == f.pod_count


def test_every_export_writes_it(slingshot):
    from core.formats.exports import export_text, exports

    for name in exports():
        assert export_text(slingshot, name), name
    slurm = export_text(slingshot, "slurm")
    assert "routers of Dragonfly group 1" in slurm and "SwitchName=global" in slurm


def test_topology_figure_and_failure_what_if(slingshot):
    from core.analysis.failure.whatif import what_if
    from core.figures.topology import topology_figure

    assert topology_figure(slingshot).data
    result = what_if(slingshot, ["global:2"])
    assert result.gpus_disconnected == 0 and len(result.failed) == 2
    router = what_if(slingshot, ["p0.leaf0"])  # its 16 nodes keep their other 3 rails
    assert router.gpus_disconnected == 0 and router.gpus_degraded == slingshot.fabric.nodes_per_group  # GPU i: NIC i


def test_cli_plans_it(capsys):
    from core.cli import main

    main(["plan", "--gpus", "2048", "--gpu", "H100", "--topology", "classic-dragonfly", "--switch", "QM9700"])
    out = capsys.readouterr().out
    # 4 groups of 32 routers, 171 links per pair: every router reaches every group, so the longest Valiant route
    # is global, global, local (4 switches; tests/test_classic_dragonfly_valiant.py checks it on networkx)
    assert "Dragonfly groups" in out and "Valiant up to 4" in out
    assert "Dragonfly routing" in out and "under Valiant" in out and "crosses 3 switches" in out


def test_share_link_and_design_file_round_trip():
    from core.formats import sharelink

    design = _design(512, rails=4, group_leaves=16, global_ratio=0.5)
    params = sharelink.encode(design)
    assert params["t"] == "dfc" and params["dfg"] == "16"
    decoded, warnings = sharelink.decode(params)
    assert decoded == design and not warnings
    assert Design.from_json(design.to_json()) == design


# ------------------------------------------------------------------------- no family id outside core/fabric
FAMILY_IDS = (*FAMILIES, CLOS)
"""Every ``FabricPlan.family`` value: the families' ids and the folded Clos's (``CLOS``, ``"clos"``)."""
_SUBJECT = re.compile(r"(family|topology)$")
KNOWN_CLOS_COMPARISONS: dict[str, int] = {}
"""Comparisons with the folded Clos's id (``family != CLOS``) written before the rule caught them, by file: none
left, all moved behind the families' declarations (``core.fabric.families``: ``failure_names``, ``clos_tiers``,
``graph_model``, ``global_groups``, ``rail_leaves``, ``node_to_node``, ``words``). It may only stay empty."""


def family_comparisons(source: str) -> list[int]:
    """Lines of ``source`` that compare with a topology family id: ``x == "torus"``, ``x.family != "dragonfly"``,
    ``x.topology in ("top-of-rack", "dragonfly")`` (a family's behaviour belongs in its module)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        names = {s.attr if isinstance(s, ast.Attribute) else s.id for s in sides
                 if isinstance(s, (ast.Attribute, ast.Name))}
        constants = {c.value for s in sides for c in ([s] if isinstance(s, ast.Constant) else
                                                      getattr(s, "elts", [])) if isinstance(c, ast.Constant)}
        equality = any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops)
        if "CLOS" in names:  # core.fabric.families.CLOS, the folded Clos's id by its name
            constants.add(CLOS)
        if constants & set(FAMILY_IDS) and (equality or any(_SUBJECT.search(n) for n in names)):
            lines.append(node.lineno)
    return lines


def test_family_comparisons_finds_what_it_should():
    assert family_comparisons('if plan.fabric.family == "torus":\n    pass') == [1]
    assert family_comparisons('x = 1\nok = d.topology in ("top-of-rack", "dragonfly")') == [2]
    assert family_comparisons('if kind != "classic-dragonfly": pass') == [1]
    assert family_comparisons('if design.topology == "rail-optimized": pass') == []
    assert family_comparisons('if c in ("node-leaf", "torus"): pass') == []  # a link class, not a family
    assert family_comparisons("x = 1\nif plan.fabric.family == CLOS: pass") == [2]
    assert family_comparisons('if w.family != families.CLOS: pass') == [1]
    assert family_comparisons('if wiring.family != "clos": pass') == [1]
    assert family_comparisons('if kind == CLOS_TIERS: pass') == []


def test_no_module_outside_the_fabric_package_compares_with_a_family_id():
    paths = [*(ROOT / "core").rglob("*.py"), *(ROOT / "pages").rglob("*.py"), *(ROOT / "webui").rglob("*.py"),
             ROOT / "app.py"]
    found = {}
    for path in paths:
        if (ROOT / "core" / "fabric") in path.parents:
            continue
        lines = family_comparisons(path.read_text(encoding="utf-8"))
        name = path.relative_to(ROOT).as_posix()
        if len(lines) > KNOWN_CLOS_COMPARISONS.get(name, 0):
            found[name] = lines
    assert not found, found


# ----------------------------------------------------------------------- the files a new family touches
FAMILY_FILES = {"core/fabric/classic_dragonfly.py", "core/vocab.py"}
"""The code outside the tests that names the classic Dragonfly (its id, its module or the module its
``FAILURE_CLOSED_FORM`` names): its module and its vocabulary term. With its tests (``tests/test_classic_dragonfly*.py``),
its Chinese words (``messages.po``) and its closed-form failure what-if (``core/analysis/failure/classicwhatif.py``,
optional) that is every file it adds or edits (docs/architecture.md, "How to add a topology family")."""


def names_family(source: str, family_id: str, stems: set[str]) -> bool:
    """Whether ``source``'s code (not its docstrings) names family ``family_id``: a string equal to it, or an import or
    a dotted string naming a module stem of ``stems``."""
    tree = ast.parse(source)
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if node.value == family_id or stems & set(node.value.split(".")):
                return True
        if isinstance(node, ast.ImportFrom) and node.module and stems & set(node.module.split(".")):
            return True
        if isinstance(node, ast.alias) and stems & set(node.name.split(".")):
            return True
    return False


def test_names_family_finds_what_it_should():
    stems = {"classic_dragonfly", "classicwhatif"}
    assert names_family('if t == "classic-dragonfly": pass', "classic-dragonfly", stems)
    assert names_family("from core.analysis.failure.classicwhatif import what_if_closed", "classic-dragonfly", stems)
    assert not names_family('"""core.fabric.classic_dragonfly: a docstring"""\nx = "dragonfly"', "classic-dragonfly",
                            stems)


def test_the_family_touches_only_its_module_and_its_term():
    module = family("classic-dragonfly")
    stems = {module.__name__.rsplit(".", 1)[1], module.FAILURE_CLOSED_FORM.rsplit(".", 1)[1]}
    paths = [*(ROOT / "core").rglob("*.py"), *(ROOT / "pages").rglob("*.py"), *(ROOT / "webui").rglob("*.py"),
             *ROOT.glob("*.py")]
    found = {str(p.relative_to(ROOT)) for p in paths
             if names_family(p.read_text(encoding="utf-8"), "classic-dragonfly", stems)}
    assert found == FAMILY_FILES


# ------------------------------------------------------------------------------------------------ the pages
@pytest.mark.parametrize("nodes, group, legend", [
    ("48", "8", {"Local links in a group", "Global links between groups"}),  # 3 groups of 8 routers
    ("16", "0", {"Local links in a group"}),  # one group: no global links (its links card read a missing class)
])
def test_a_small_design_is_drawn_router_by_router(nodes, group, legend):
    from streamlit.testing.v1 import AppTest

    from tests.pagetest import ENTRY

    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({"n": nodes, "t": "dfc", "sw": "QM9700", "dfg": group, "tab": "Topology"})
    at.run()
    assert not at.exception and not at.error
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    drawn = {t.get("name") for t in spec["data"] if t.get("showlegend", True)}
    assert legend <= drawn and "(aggregated)" not in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("tab", ["Topology", "Bandwidth", "Cost & power", "Racks & cabling", "Hand-off"])
def test_designer_renders_it(tab):
    from streamlit.testing.v1 import AppTest

    from tests.pagetest import ENTRY

    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({"n": "256", "t": "dfc", "sw": "QM9700", "tab": tab})
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="w_topology").value == "classic-dragonfly"
    if tab == "Topology":
        spec = json.loads(at.get("plotly_chart")[0].proto.spec)
        legend = {t.get("name") for t in spec["data"] if t.get("showlegend", True)}
        # 128 routers, 2,048 node links, 1,984 local and 1,026 global: aggregated by groups as Dragonfly+ is (the full
        # drawing's local links: test_a_small_design_is_drawn_router_by_router)
        assert "Global links between groups" in legend and "Dragonfly groups (4): their routers' global ports" in legend
        assert "(aggregated)" in " ".join(c.value for c in at.caption)
        assert any(name.startswith("Routers (") for name in legend)
        title = spec["layout"]["title"]["text"].replace("<br>", " ")
        assert "1 router tier: 128 routers in 4 groups" in title and "tiers" not in title and "leaves" not in title
        assert spec["layout"]["yaxis"]["ticktext"][:2] == ["Servers", "Routers"]  # (groups: a row when aggregated)
        caption = " ".join(c.value for c in at.caption)
        assert "1 router tier, 4 groups, global links" in caption and "tier(s)" not in caption
        labels = {at.number_input(key=f"w_{k}").label for k in ("df_group", "df_global")}
        assert labels == {"Routers per Dragonfly group (0 = auto)", "Dragonfly global ratio"}  # not Dragonfly+'s
        assert at.selectbox(key="w_leaf_switch").label == "Router"  # its routers' model, not "Leaf switch"


@pytest.mark.parametrize("topology, said", [("dfc", "路由器"), ("df", "叶交换机")])
def test_the_sidebar_names_the_routers_model_in_the_familys_word(topology, said):
    """A classic Dragonfly's sidebar labelled its routers' model "Leaf switch"; its family's word names it
    (``WORDS`` ``input:leaf_switch``), and a Dragonfly+ keeps its leaf switch."""
    from tests.pagetest import open_page

    at = open_page("../pages/1_Designer.py", {"ng": "4096", "t": topology, "lang": "zh"}, timeout=180)
    assert not at.exception and at.selectbox(key="w_leaf_switch").label == said


@pytest.mark.parametrize("page", ["../pages/3_Performance.py", "../pages/4_Compare.py", "../pages/6_Resilience.py"])
def test_other_pages_work_on_it(page):
    from tests.pagetest import open_page

    at = open_page(page, {"n": "256", "t": "dfc", "sw": "QM9700"}, timeout=180)
    assert not at.exception and not at.error
