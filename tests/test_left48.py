"""left48: the Resilience link's failed elements by every name ``python -m core failure --fail`` reads (up to four
words), written by the exports' names (old links with engine ids still restore); a tier and a count on a design with
pods fails pod 1's elements on the whole fabric in the CLI and on the page (one rule:
``core.analysis.podwhatif.pod1_counts``), with the same figures."""

from __future__ import annotations

from core.design import Design
from core.formats import resiliencelink as rl
from core.plan import plan
from tests.test_resilience_page import DESIGN, link, open_page


def _cli(capsys, *args) -> str:
    from conftest import run_cli

    code, out, _err = run_cli(capsys, "failure", "--nodes", "64", "--switch", "QM9700", *args, "--units", "gbyte")
    assert code == 0, out + _err
    return out


def test_names_of_three_words_the_cli_reads_work_in_the_link_with_the_cli_s_figures(capsys):
    at = open_page({**DESIGN, "rs_fail": "gpu006 nic 3,R02-01 feed A"})
    assert not at.warning, [w.value for w in at.warning]
    assert at.multiselect(key="rs_w_failed").value == ["node5.nic2", "rack0.feedA"]
    metrics = {m.label: m.value for m in at.metric}
    out = _cli(capsys, "--fail", "gpu006 nic 3", "--fail", "R02-01 feed A")
    assert metrics["GPUs degraded"] == "1" and "1 GPU lost a NIC port (1 over PXN" in out
    assert metrics["Bisection (1 dir)"] == "12.8 TB/s" and "12.8 TB/s of 12.8 TB/s" in out  # a NIC port: no bisection
    assert link(at)["rs_fail"] == "gpu006 nic3,R02-01 feedA"  # written as the chips name them


def test_the_link_writes_the_exports_names_and_reopens_to_the_same_elements(capsys):
    at = open_page(DESIGN)
    at.text_input(key="rs_w_names").set_value("p0.leaf1, node5.nic2, leaf002 -> spine003 #1")
    at.button(key="rs_w_add_names").click()
    at.run(timeout=120)
    assert link(at)["rs_fail"] == "leaf002,gpu006 nic3,leaf002 -> spine003 #1"
    again = open_page(link(at))
    assert not again.warning, [w.value for w in again.warning]
    assert again.multiselect(key="rs_w_failed").value == ["p0.leaf1", "node5.nic2", "p0.leaf1-spine2#0"]
    assert {m.label: m.value for m in again.metric} == {m.label: m.value for m in at.metric}
    out = _cli(capsys, *[a for n in link(at)["rs_fail"].split(",") for a in ("--fail", n)])
    metrics = {m.label: m.value for m in again.metric}  # the leaf's 32 servers' port, and gpu006's on another rail
    assert "33 GPUs lost a NIC port" in out and metrics["GPUs degraded"] == "33"
    assert "11.2 TB/s of 12.8 TB/s" in out and metrics["Bisection (1 dir)"] == "11.2 TB/s"
    named = open_page({**DESIGN, "nm_np": "n", "nm_sp": "sw-", "rs_fail": "p0.leaf1,node5.nic2"})  # old ids: restored
    assert not named.warning and named.multiselect(key="rs_w_failed").value == ["p0.leaf1", "node5.nic2"]
    assert link(named)["rs_fail"] == "sw-leaf002,n006 nic3"  # the custom naming's names
    stale = open_page({**DESIGN, "rs_fail": "p0.leaf1,p0.leaf999,<i>x</i>"})  # stale or bad: a short escaped warning
    warned = "\n".join(w.value for w in stale.warning)
    assert "p0.leaf999" in warned.replace("\\", "") and "<i>" not in warned.replace("\\<i\\>", "")
    assert stale.multiselect(key="rs_w_failed").value == ["p0.leaf1"] and link(stale)["rs_fail"] == "leaf002"


def test_a_pods_tier_and_count_fails_pod_one_s_leaf_on_the_page_as_the_cli(capsys):
    pods = {**DESIGN, "pods": "B300:32:800"}
    at = open_page({**pods, "rs_fail": "leaf:1"})
    assert not at.warning, [w.value for w in at.warning]
    assert at.multiselect(key="rs_w_pods_failed").value == ["pod1.p0.leaf0"]
    assert any("leaf:1 fails pod1-leaf001 on pod 1" in i.value.replace("\\", "") for i in at.info)
    table = at.dataframe[0].value.to_dict("list")
    # by hand: pod 1 is 64 H100 servers on 16 rail leaves of 32 ports; one leaf: 32 servers lose a 400 Gb/s port,
    # 32 x 400 Gb/s = 1.6 TB/s of 512 x 400 Gb/s = 25.6 TB/s
    assert table["pod 1 (H100)"] == ["0 of 512", "32", "24 / 25.6", "24 / 25.6"]
    assert table["pod 2 (B300)"] == ["0 of 256", "0", "25.6 / 25.6", "25.6 / 25.6"]
    out = _cli(capsys, "--pods", "B300:32:800", "--fail", "leaf:1")
    assert "failed: leaf:1 (pod1-leaf001 *)" in out and "leaf:1 fails pod1-leaf001 on pod 1" in out
    assert "Servers degraded                  32" in out and "24 / 25.6" in out
    assert link(at)["rs_fail"] == "pod1-leaf001"
    named = open_page({**pods, "nm_sp": "sw-", "rs_fail": "pod2.p0.leaf1,spine0,pod2.node5.nic2"})  # old ids
    assert not named.warning, [w.value for w in named.warning]
    assert link(named)["rs_fail"].split(",") == ["sw-spine001", "pod2-sw-leaf002", "pod2-gpu006 nic3"]


def test_the_link_s_names_read_back_to_the_same_elements_in_every_family():
    from core.analysis.failure.examples import element_examples
    from core.analysis.failure.spec import engine_specs

    for design in (Design(nodes=64, switch="QM9700"), Design(topology="dragonfly", gpus=1024),
                   Design(topology="torus", gpus=512), Design(topology="classic-dragonfly", gpus=1024)):
        planned = plan(design)
        ids = engine_specs(planned, element_examples(planned, None))
        values, warnings = rl.decode({"rs_fail": ",".join(rl.named_failures(planned, ids))})
        pairs, problems = rl.read_hot_links(planned, values["fail"])
        good, more = rl.check_failures(planned, [spec for _typed, spec in pairs])
        assert not warnings + problems + more and list(good) == ids


def test_pods_that_cannot_be_planned_together_are_named_as_their_exports():
    from core.analysis.failure import what_if
    from core.cli.failure import _pod1_alone
    from core.fabric.naming import naming_scheme

    design = Design(nodes=64, pods="B300:32:800")
    result = what_if(plan(design), ["leaf:1"])
    for naming, spine, leaf, nic in ((None, "spine001", "pod2-leaf002", "pod1-gpu006 nic3"),
                                     (naming_scheme("n", "sw-"), "sw-spine001", "pod2-sw-leaf002", "pod1-n006 nic3")):
        shown, name = _pod1_alone(design, None, result, naming)
        assert f"({spine}, {leaf})" in shown.notes[0] and "p0." not in shown.notes[0]
        assert name("node5.nic2") == nic


def test_a_pods_names_of_three_words_fail_inside_their_pod_in_the_link_and_the_cli(capsys):
    from core.analysis.whole import design_mixed

    design = Design(nodes=64, switch="QM9700", pods="B300:32:800")
    values, warnings = rl.decode({"rs_fail": "pod2-gpu006 nic 3,R05-02 feed A"})
    assert not warnings
    assert rl.check_pod_failures(plan(design), design_mixed(design), values["fail"]) == (
        (), ["pod2.node5.nic2", "pod2.rack1.feeda"], [])
    out = _cli(capsys, "--pods", "B300:32:800", "--fail", "pod2-gpu006 nic 3", "--fail", "R05-02 feed A")
    assert "pod 2, inside: 0 GPUs cut off, 1 degraded" in out
    at = open_page({**DESIGN, "pods": "B300:32:800", "rs_fail": "pod2-gpu006 nic 3,R05-02 feed A"})
    assert not at.warning, [w.value for w in at.warning]
    table = at.dataframe[-1].value.to_dict("list")
    assert table["pod 2 (B300)"] == ["0 of 256", "1"]  # GPUs cut off, degraded: as the CLI
