"""A classic Dragonfly's exports call its routers routers (review48 #13): NetBox's role, the draw.io boxes and the
Slurm tree's comment, in English and Chinese; a folded Clos and a Dragonfly+ keep their leaves."""

from __future__ import annotations

import csv
import io
import re

from core.design import Design
from core.formats.exports import export_text
from core.i18n import language
from core.plan import plan

DFC = Design(gpu="H100", gpus=4096, topology="classic-dragonfly")
DFP = Design(gpu="H100", gpus=4096, topology="dragonfly")
CLOS = Design(gpu="H100", nodes=64)


def _roles(p) -> dict[str, int]:
    rows = list(csv.DictReader(io.StringIO(export_text(p, "netbox-devices"))))
    out: dict[str, int] = {}
    for r in rows:
        out[r["role"]] = out.get(r["role"], 0) + 1
    return out


def test_netbox_roles():
    p = plan(DFC)
    roles = _roles(p)  # every router: 8 groups x 32 routers
    assert roles.get("Router") == p.fabric.leaf_count == 256 and "Leaf switch" not in roles
    assert _roles(plan(CLOS)).get("Leaf switch") == plan(CLOS).fabric.leaf_count
    assert _roles(plan(DFP)).get("Leaf switch") == plan(DFP).fabric.leaf_count


def test_drawio_and_slurm_words():
    p = plan(DFC)
    drawio = export_text(p, "drawio")
    assert "rail 1: 4 routers" in drawio and " leaves" not in drawio
    slurm = export_text(p, "slurm")
    assert "the rail\n# routers of one scalable unit" in slurm and "rail leaves" not in slurm.replace("\n# ", " ")
    plus = export_text(plan(DFP), "slurm")
    assert "the rail\n# leaves of one scalable unit" in plus
    with language("zh"):
        assert " leaves" not in export_text(p, "drawio")


def test_routers_are_named_routers_everywhere_and_old_names_still_open(capsys):
    """review49 #8: the routers were leaf001 in NetBox, the cabling, GraphML (role leaf), Slurm (leaf[001-008]) and
    the failure notes; now their family's export word names them (router001, role router), the failure names'
    parser takes both (an old link's leaf001 still opens), and a folded Clos and a Dragonfly+ keep leaf001."""
    from conftest import run_cli

    p = plan(DFC)
    def compute_leaves(text: str) -> bool:  # a compute switch named leaf (the storage network's keep theirs)
        return re.search(r"(^|[,\s])leaf[0-9]", text, re.MULTILINE) is not None  # not an engine id (p0.leaf0)

    devices = export_text(p, "netbox-devices")
    assert "\nrouter001,Router," in devices and not compute_leaves(devices)
    assert "router001" in export_text(p, "cabling") and not compute_leaves(export_text(p, "cabling"))
    graphml = export_text(p, "graphml")
    assert ">router<" in graphml and ">leaf<" not in graphml and "router001" in graphml
    slurm = export_text(p, "slurm")
    assert "router[001-008]" in slurm and "leaf[" not in slurm
    assert compute_leaves(export_text(plan(DFP), "netbox-devices"))
    assert compute_leaves(export_text(plan(CLOS), "netbox-devices"))
    code, out, _err = run_cli(capsys, "failure", "--topology", "classic-dragonfly", "--gpus", "4096",
                              "--fail", "router:1")
    assert code == 0 and "router001" in out and "leaf001" not in out
    for name in ("leaf001", "router001"):  # an old link's name, and the one the exports now write
        code, out, _err = run_cli(capsys, "failure", "--topology", "classic-dragonfly", "--gpus", "4096",
                                  "--fail", name)
        assert code == 0 and "cut off" in out


def test_performance_counts_scalable_units_and_routers_crossed():
    """The Performance page's layout sentence counts a classic Dragonfly's scalable units (a router per rail) and
    the routers its farthest path crosses, its family's words (``COUNTED``), not a Clos's "leaf groups" or
    "switch hops" ("32 router groups ... (3 switch hops)"); a Dragonfly+ (leaves and spines) and a torus (links) keep
    theirs."""
    from tests import pagetest
    from tests.test_i18n import page_text

    opened = pagetest.opener("../pages/3_Performance.py")
    text = page_text(opened({"t": "dfc", "ng": "4096"}))
    assert "32 scalable units, 8 Dragonfly groups; farthest path: global links (3 routers crossed)" in text, text
    assert "router groups" not in text and "leaf groups" not in text and "switch hop" not in text
    assert "16 leaf groups, 4 Dragonfly+ groups; farthest path: global links (4 switch hops)" in page_text(
        opened({"t": "df", "ng": "4096"}))
    assert "farthest path: torus links (6 link hops)" in page_text(opened({"t": "tr", "ng": "512"}))


def test_resilience_names_routers_and_opens_old_links():
    from tests import pagetest
    from tests.test_i18n import page_text

    open_page = pagetest.opener("../pages/6_Resilience.py")
    at = open_page({"t": "dfc", "ng": "4096", "rs_fail": "leaf:1"})
    assert not at.exception
    assert "Chosen where it hurts most: 1 x router (router001)" in page_text(at)
    old = open_page({"t": "dfc", "ng": "4096", "rs_fail": "leaf001"})  # a link written when the exports said leaf
    assert not old.exception and not old.error


def test_drawio_rows_and_prometheus_tiers_say_router():
    """The draw.io rows are labelled as the app's diagram labels them (a classic Dragonfly's "Routers", not "Leaf"),
    and the Prometheus rules' ``tier`` label and header name the routers as their switch names do (router, not
    leaf); a folded Clos keeps its Leaf row and leaf tier."""
    p = plan(DFC)
    drawio = export_text(p, "drawio")
    assert 'id="row-leaf" value="Routers"' in drawio and 'value="Leaf"' not in drawio
    assert 'id="row-leaf" value="Leaf"' in export_text(plan(CLOS), "drawio")
    rules = export_text(p, "prometheus")
    assert 'tier: "router"' in rules and "(node, router)" in rules
    assert '"leaf' not in rules and "leaf)" not in rules
    assert 'tier: "leaf' in export_text(plan(CLOS), "prometheus")


def test_astra_sim_names_routers_groups_and_global_links():
    """The ASTRA-sim export of a classic Dragonfly named its dimensions and oversubscriptions as a folded Clos's
    (leaf level, spine level, core level "pods joined by the cores"); now its family's export words (routers, a
    group's local links, the global links: ``classic_dragonfly.oversubscriptions``' two stages), and a Dragonfly+
    and a folded Clos keep their leaves and spines."""
    text = export_text(plan(DFC), "astra-sim")
    comments = "\n".join(line for line in text.splitlines() if not line.startswith("# design:"))
    assert re.search(r"\b(leaf|leaves|spines?|cores?)\b", comments) is None, comments
    assert "router level (GPUs under one router set)" in text and "groups joined by the global links" in text
    assert "# oversubscription: local links 1:1, global links 1:1" in text
    for other in (DFP, CLOS):
        assert "leaf level (GPUs under one leaf set)" in export_text(plan(other), "astra-sim")
    assert "# oversubscription: leaf 1:1, spine" in export_text(plan(DFP), "astra-sim")


def test_an_old_router_name_typed_reads_back_as_the_exports_name_it_said_once(capsys):
    """A hot link typed with the routers' older names (leaf001 -> leaf002, gpu001 nic1 -> leaf001) still fails its
    element, but the product shows it as the exports name it now (router001 -> router002, ``core.fabric.naming.
    Namer.canonical``) and says once what it renamed; a folded Clos's and a Dragonfly+'s leaves stay as typed."""
    from conftest import run_cli

    from core.formats.linknames import canonical_failures, read_failures

    p = plan(DFC)
    texts, note = canonical_failures(p, ["leaf001 -> leaf002", "router001 -> router002 #1", "gpu001 nic1 -> leaf001",
                                         "leaf:2", "p0.leaf0-leaf1"])
    assert texts == ["router001 -> router002", "router001 -> router002 #1", "gpu001 nic1 -> router001", "leaf:2",
                     "p0.leaf0-leaf1"]
    assert note.count("; ") == 1 and "leaf001 -> leaf002 as router001 -> router002" in note
    pairs, problems = read_failures(p, texts)
    assert not problems and [spec for _t, spec in pairs][:3] == ["p0.leaf0-leaf1", "p0.leaf0-leaf1#0", "node0.nic0"]
    for other in (DFP, CLOS):
        assert canonical_failures(plan(other), ["leaf001 -> spine002", "LEAF001"]) == (
            ["leaf001 -> spine002", "LEAF001"], "")
    for lang in ("en", "zh"):
        code, out, _err = run_cli(capsys, "failure", "--topology", "classic-dragonfly", "--gpus", "4096",
                                  "--fail", "leaf001 -> leaf002", "--lang", lang)
        assert code == 0 and re.search(r"router001 -> router002[ （(]+p0.leaf0-leaf1", out)
        assert out.count("leaf001 -> leaf002") == 1  # said once, in the note


def test_the_resilience_page_shows_an_old_router_name_as_router():
    from tests import pagetest
    from tests.test_i18n import rerun

    at = pagetest.opener("../pages/6_Resilience.py")({"t": "dfc", "ng": "4096"})
    at.text_input(key="rs_w_names").set_value("leaf001 -> leaf002")
    at.button(key="rs_w_add_names").click()
    rerun(at)
    assert not at.error, [e.value for e in at.error]
    assert at.multiselect(key="rs_w_failed").value == ["p0.leaf0-leaf1"]
    said = [i.value.replace("\\", "") for i in at.info if "router001" in i.value]
    assert len(said) == 1 and "leaf001 -> leaf002 as router001 -> router002" in said[0], said  # said once
    shown = " ".join(e.value.replace("\\", "") for e in at.caption)
    shown += " " + " ".join(at.multiselect(key="rs_w_failed").options)
    assert "router001 -> router002" in shown and "leaf001" not in shown
    rerun(at)
    assert not [i.value for i in at.info if "router001" in i.value]  # not again
def test_slurm_blocks_name_the_routers_of_the_tree_form():
    """The block file's basis and the Hand-off tab's label said "the nodes under one leaf switch of the tree form"
    of a classic Dragonfly, whose tree form's switches are its SUs' routers (``su001 = router[001-008]``); the
    Chinese label also read ``NVLink 域 仅一个节点``."""
    from core.formats.exports import exports

    p = plan(Design(topology="classic-dragonfly", gpus=4096))
    text = export_text(p, "slurm-block")
    assert "the nodes under one SU's rail routers, a Slurm switch of the tree form" in text
    assert "leaf" not in text.lower()
    assert "leaf" not in exports()["slurm-block"].label_for(p)
    with language("zh"):
        label = exports()["slurm-block"].label_for(p)
    assert "路由器" in label and "叶交换机" not in label and "域 仅" not in label


def test_the_renamed_and_failed_lists_are_joined_in_the_language(capsys):
    """The note on old router names and the ``failed:`` line list their items with the language's separators
    (``；`` and ``、`` in Chinese, ``; `` and ``, `` in English), not an English one inside Chinese text."""
    from conftest import run_cli

    from core.formats.linknames import canonical_failures

    typed = ["leaf001 -> leaf002", "leaf003"]
    with language("zh"):
        assert "router001 -> router002；leaf003" in canonical_failures(plan(DFC), typed)[1]
    assert "router001 -> router002; leaf003" in canonical_failures(plan(DFC), typed)[1]
    for lang, comma in (("en", ", "), ("zh", "、")):
        code, out, _err = run_cli(capsys, "failure", "--topology", "classic-dragonfly", "--gpus", "4096",
                                  "--fail", "leaf001 -> leaf002", "--fail", "leaf003", "--lang", lang)
        failed = out.splitlines()[0]
        assert code == 0 and f"{comma}router003" in failed and (lang == "en" or ", " not in failed), failed


def test_an_old_router_name_after_a_tier_word_reads_back_whole():
    """``leaf:leaf001`` (a tier and a name, as ``--fail`` takes them) is shown as ``leaf:router001`` with the note, as
    ``leaf001`` is; a text it cannot read is renamed whole or not at all (``link:leaf001 -> leaf002``, refused,
    was echoed as ``link:leaf001 -> router002``)."""
    from core.formats.linknames import canonical_failures

    texts, note = canonical_failures(plan(DFC), ["leaf:leaf001", "link:leaf001 -> leaf002", "leaf:2"])
    assert texts == ["leaf:router001", "link:router001 -> router002", "leaf:2"]
    assert "leaf:leaf001 as leaf:router001" in note
    assert canonical_failures(plan(CLOS), ["leaf:leaf001"]) == (["leaf:leaf001"], "")
