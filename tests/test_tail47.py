"""Small contradictions left by session 47's fixes (tail47): one rule per thing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_a_counted_noun_of_core_plurals_has_no_second_copy():
    """``core.plurals.nodes`` is the node plural; the Performance caption (jobform) and the topology figure's server
    labels kept their own ``ngettext("{count} node", ...)`` (and the torus title its links, the Optimize words their
    tiers and switches): one noun, one message, one count format."""
    words = re.findall(r'ngettext\(("[^"]+")', (ROOT / "core" / "plurals.py").read_text(encoding="utf-8"))
    assert '"{count} node"' in words
    copies = [f"{path.relative_to(ROOT)}: {word}" for path in sorted([*ROOT.glob("core/**/*.py"), *ROOT.glob("pages/*.py")])
              if path.name != "plurals.py" for word in words
              if f"ngettext({word}" in path.read_text(encoding="utf-8")]
    assert not copies, copies


def test_the_floor_plans_dots_read_the_power_rule():
    """H100, 64 nodes: the management rack draws 9.896 kW; its dot read "10" (``i18n.number``, a whole kW) where its
    hover, the elevation and every card read the power rule's three figures, "9.90"; the network rack 5.976 kW
    "5.98" (was "6"), a compute rack 40.8 kW "40.8" (was "41")."""
    from core.design import Design
    from core.figures.racks import floor_plan_figure
    from core.plan import plan

    layout = plan(Design(gpu="H100", nodes=64)).layout
    text = {t.name: set(t.text) for t in floor_plan_figure(layout).data}
    assert {r.kind for r in layout.racks if round(r.kw, 3) == 9.896} == {"management"}
    assert text["management"] == {"9.90"} and text["network"] == {"5.98"} and text["compute"] == {"40.8"}, text


def test_the_optimize_fronts_facility_power_column_reads_the_power_rule():
    """The Pareto front's "Facility power [kW]" column wrote ``i18n.number`` (1,195.8 kW "1,196" but 43.05 kW "43"
    where the cards read "43.0 kW"): it writes ``units.kw``, the power rule's number for a column headed [kW]."""
    from core import units

    assert units.kw(43.05) == "43.0" and units.kw(1195.8) == "1,196" and units.kw(9.896) == "9.90"
    source = (ROOT / "pages" / "7_Optimize.py").read_text(encoding="utf-8")
    cell = source.split('_("Facility power [kW]"):', 1)[1].split("}", 1)[0]
    assert cell.strip().startswith("units.kw("), cell


def _bandwidth_section(html: str) -> str:
    return html.split('id="bandwidth"', 1)[1].split("<section", 1)[0]


def test_a_two_tier_clos_has_no_pods_to_cross_in_its_bandwidth_readout():
    """H100, 64 nodes, two tiers: leaf, spine, leaf is its longest path (3 switches); there is no tier between pods,
    so the Designer's Bandwidth tab and the review pack said "cross pod 3" of pods it does not have. It now says
    "farthest pair 3" (the torus readout's words for its longest path), chosen by ``has_pods``, the rule the
    collectives caption reads; 16,384 GPUs in three tiers keep "cross pod 5" (leaf, spine, core, spine, leaf)."""
    from core.analysis.whole import whole_plan
    from core.design import Design
    from core.figures.bandwidth import bandwidth_readout, clos_readout
    from core.formats import report
    from core.i18n import language
    from core.plan import plan

    two, three = plan(Design(gpu="H100", nodes=64)), plan(Design(gpu="H100", gpus=16384))
    assert (two.fabric.tiers, two.bandwidth.hops_cross_pod, three.fabric.tiers, three.bandwidth.hops_cross_pod) == (
        2, 3, 3, 5)

    def readout(p, key):
        whole = whole_plan(p)
        default, longest = clos_readout(key, p)
        return bandwidth_readout(p.fabric.family, p.resolved.system, whole.bandwidth, "GB/s", key, default,
                                 longest=longest)

    for key in ("readout:bandwidth", "report:readout:bandwidth"):
        assert "cross rail 3, farthest pair 3" in readout(two, key) and "pod" not in readout(two, key)
        assert "cross pod 5" in readout(three, key)
    with language("zh"):
        assert "最远的一对 3" in readout(two, "readout:bandwidth") and "Pod" not in readout(two, "readout:bandwidth")
    html = _bandwidth_section(report.design_report_html(two, name="t", share_link="https://example.org/?v=1"))
    assert "farthest pair 3" in html and "cross pod" not in html
    designer = (ROOT / "pages" / "1_Designer.py").read_text(encoding="utf-8")
    assert 'clos_readout("readout:bandwidth", plan)' in designer
    mixed = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))  # a design's pods: leaf, shared spine, leaf
    assert "cross pod 3" in readout(mixed, "report:readout:bandwidth")


def test_a_torus_what_if_shows_no_ecmp_switch_groups():
    """512 GPUs of torus, one node failed: the Resilience page said "Unbalanced ECMP groups" / "No switch lost only
    some of its uplink paths." of a fabric with no switches; a family without switches (``node_to_node``) has no
    such section, and a Clos keeps it."""
    from tests import pagetest

    torus = pagetest.open_page("../pages/6_Resilience.py", {"t": "tr", "ng": "512", "rs_fail": "node:1"})
    headings = " ".join(str(m.value) for m in torus.markdown)
    captions = " ".join(str(c.value) for c in torus.caption)
    assert "Remaining bisection per stage" in headings  # the what-if ran
    assert "ECMP" not in headings and "uplink paths" not in captions
    clos = pagetest.open_page("../pages/6_Resilience.py", {"n": "64", "rs_fail": "spine:1"})
    assert "Unbalanced ECMP groups" in " ".join(str(m.value) for m in clos.markdown)


def test_a_level_2_nvlink_switch_fails_by_count_from_the_link_the_form_and_the_cli(capsys):
    """GB200 NVL72, 144 nodes in 144-GPU NVLink domains (two racks each, joined by 18 level-2 NVLink switch units,
    ``core.fabric.domainlevels``): ``rs_fail=nvlink2:1`` was refused by the link ("not an element name or a tier")
    though the page's tier select offers the tier and ``failure --fail nvlink2:1`` runs; the CLI help did not list
    it. Hand count: each GPU's 18 NVLink 5 links (900 GB/s per direction) reach the other rack over the 18 units, so
    one unit lost leaves 17/18: 850 of 900 GB/s, 94.4%, for the 144 GPUs of that domain; no GPU is cut off."""
    from core.analysis.failure import count_tiers, spec_words
    from core.formats import resiliencelink as rl
    from tests import pagetest
    from tests.conftest import run_cli

    assert "nvlink2" in count_tiers() and {"node", "global", "router", "tor"} <= set(spec_words())
    assert rl.decode({"rs_fail": "nvlink2:1,node:2,router:1"})[1] == []
    assert rl.decode({"rs_fail": "xyz:1"})[1]  # a word no family declares is still refused
    assert 900 * 17 / 18 == 850 and f"{17 / 18:.1%}" == "94.4%"
    at = pagetest.open_page("../pages/6_Resilience.py", {"g": "GB200-NVL72", "n": "144", "nvd": "144",
                                                         "rs_fail": "nvlink2:1"})
    assert not at.warning, [w.value for w in at.warning]
    assert "level-2 NVLink switch" in at.selectbox(key="rs_w_tier").options  # the tier select offers it
    notes = " ".join(str(i.value) for i in at.info).replace("\\", "").replace("\u2060", "").replace("\u00a0", " ")
    assert "lost 1 of its 18 level-2 NVLink switches" in notes and "94.4%" in notes, notes
    assert "850 of 900 GB/s per GPU per direction" in notes
    from core.cli import main

    with pytest.raises(SystemExit):
        main(["failure", "--help"])
    assert "nvlink2:1" in " ".join(capsys.readouterr().out.split())
    code, out, _err = run_cli(capsys, "failure", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144",
                              "--fail", "nvlink2:1")
    assert code == 0 and "cut off       0 of 576 GPUs" in out and "850 of 900 GB/s" in out


def test_the_level_2_note_in_chinese(capsys):
    """The same hand count in Chinese (``failure --lang zh``): 18 units, 1 lost, 850 / 900 GB/s, 94.4%."""
    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, "--lang", "zh", "failure", "--gpu", "GB200-NVL72", "--nodes", "144",
                              "--nvlink-domain", "144", "--fail", "nvlink2:1")
    line = " ".join(out.split())
    assert code == 0 and "失去其 18 台第二级 NVLink 交换机中的 1 台" in line, line
    assert "94.4%" in line and "850 / 900 GB/s" in line
