"""One name per element for a design with pods (names2): the whole-fabric failure elements, the failures inside a
pod and the single points are named as the pods' exports (NetBox, cabling plan, Slurm) name their devices, and that
name fails the same element; the what-if's notes say the exports' names."""

from __future__ import annotations

import re

import pytest

from conftest import run_cli

from core.analysis.failure.podnames import PodElementNames
from core.analysis.podinside import inside_spec
from core.analysis.podwhatif import is_whole_element, whole_choices
from core.analysis.whole import design_mixed
from core.design import Design

PODS = {"two tiers": dict(nodes=64, pods="B300:32:800"), "three tiers": dict(nodes=64, pods="B300:32:800", tiers=3),
        "nvl72": dict(nodes=64, pods="GB200-NVL72:36")}
INSIDE = ["pod2.node5.nic2", "pod1.rack0", "pod1.rack0.feedA", "pod2.rack1.feedB", "pod2.node0.nvswitch0",
          "pod2.rack0.nvswitch3", "pod2.rack0.nvswitch-tray2"]


def _elements(mixed) -> list[str]:
    choices = whole_choices(mixed)
    bundles = [e for e in choices if "-" in e]
    return [*choices[:3], *choices[-3:], *bundles[:2], bundles[0] + "#1", bundles[-1] + "#0",
            *(e for e in INSIDE if inside_spec(mixed, e) is not None)]


@pytest.mark.parametrize("case", sorted(PODS))
def test_every_pod_element_round_trips_through_its_export_name(case):
    mixed = design_mixed(Design(**PODS[case]))
    names = PodElementNames(mixed)
    elements = _elements(mixed)
    assert len(elements) > 10
    for element in elements:
        assert is_whole_element(mixed, element) or inside_spec(mixed, element) is not None, element
        name = names.name(element)
        assert name != element and "." not in name.split()[0], (element, name)  # no id left in the name
        assert names.parse(name) == element, (element, name)
        assert names.parse(name.upper()) == element
        assert names.parse(name.replace("->", "\u2192")) == element


def test_pod_names_are_the_pods_netbox_names(capsys):
    """A device's name is the pods' NetBox device's (its description is the whole fabric's id); a rack the hall rack
    NetBox places the pod's servers in."""
    flags = ["--gpus", "64", "--pods", "B300:32:800"]
    devices = run_cli(capsys, "export", *flags, "--format", "netbox-devices")[1].splitlines()
    by_id = {line.split(",")[-1]: line.split(",") for line in devices[1:]}
    names = PodElementNames(design_mixed(Design(**PODS["two tiers"])))
    for device in ("spine0", "spine3", "pod1.p0.leaf0", "pod2.p0.leaf7", "pod2.node5"):
        assert names.device(device) == by_id[device][0], device
    assert names.name("pod2.p0.leaf1") == "pod2-leaf002" and names.name("spine0") == "spine001"
    assert names.name("pod2.node5.nic2") == "pod2-gpu006 nic3"
    assert names.name("pod2.rack1") == by_id["pod2.node4"][6] == by_id["pod2.node7"][6] == "R05-02"
    assert names.name("pod2.rack1.feedA") == "R05-02 feedA"
    assert names.name("pod2.p0.leaf1-spine2#0") == "pod2-leaf002 -> spine003 #1"
    cabling = run_cli(capsys, "export", *flags, "--format", "cabling")[1]
    assert ",pod2-gpu006,nic3/" in cabling


def test_the_cli_fails_pod_export_names_as_their_ids(capsys):
    flags = ["--gpus", "64", "--pods", "B300:32:800", "--format", "json"]
    by_name = run_cli(capsys, "failure", *flags, "--fail", "spine001", "--fail", "pod2-leaf002", "--fail",
                      "R05-01 feedA", "--fail", "pod2-gpu006 nic3", "--fail", "pod1-leaf001 -> spine002 #2")
    by_id = run_cli(capsys, "failure", *flags, "--fail", "spine0", "--fail", "pod2.p0.leaf1", "--fail",
                    "pod2.rack0.feedA", "--fail", "pod2.node5.nic2", "--fail", "pod1.p0.leaf0-spine1#1")
    assert by_name[0] == 0 and by_name[1] == by_id[1], by_name[2]
    text = run_cli(capsys, "failure", "--gpus", "64", "--pods", "B300:32:800", "--fail", "pod2.p0.leaf1",
                   "--fail", "R05-01 feedA")[1]
    assert "failed: pod2.p0.leaf1 (pod2-leaf002), R05-01 feedA\n" in text
    assert "  R05-01 feedA: redundant" in text and "rack0.feedA" not in text  # the note by the hall's rack
    zh = run_cli(capsys, "--lang", "zh", "failure", "--gpus", "64", "--pods", "B300:32:800", "--fail", "R05-01 feedA")[1]
    assert "R05-01 feedA" in zh.splitlines()[-1] and "R02-01" not in zh  # in every language (its colon is "：")


def test_spof_names_the_pods_elements_as_the_exports_do(capsys):
    text = run_cli(capsys, "spof", "--gpus", "64", "--pods", "B300:32:800")[1]
    assert "R05-01 feedA (pod2.rack0.feedA)" in text and "pod2-leaf001 -> spine001 (pod2.p0.leaf0-spine0)" in text
    assert "pod2-gpu001 nvswitch1 (pod2.node0.nvswitch0)" in text


def test_a_redundant_feeds_note_says_its_export_name():
    from core.analysis.failure import what_if
    from core.analysis.failure.names import ElementNames
    from core.plan import plan

    p = plan(Design(gpus=128))
    result = what_if(p, ["rack2.feedB"])
    name = ElementNames(p).name("rack2.feedB")
    assert name != "rack2.feedB" and any(note.startswith(f"{name}: redundant") for note in result.notes)
    assert not any("rack2.feedB" in note for note in result.notes)


@pytest.mark.parametrize("design, spec, said, ids", [
    (dict(gpu="H100", nodes=64, switch="QM9700"), "node0.nvswitch4", "chips gpu001 nvswitch1 to gpu001 nvswitch4",
     "node0.nvswitch3"),
    (dict(gpu="GB200-NVL72", nodes=36), "rack2.nvswitch0",
     "chips nvl001-nvsw1 nvswitch1 to nvl001-nvsw9 nvswitch2 and trays nvl001-nvsw1 to nvl001-nvsw9", "rack0.nvswitch"),
    (dict(gpu="MI300X", nodes=16), "node0.mesh0-9", "a direct mesh of GPUs 1 to 8, its mesh links are named like "
     "gpu001 mesh1-2", "node0.mesh0-1"),
    (dict(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576), "domain2.l2switch0", "like nvd001-l2sw001",
     "domain0.l2switch0"),
])
def test_detail_errors_name_elements_as_the_exports_do(design, spec, said, ids):
    from core.analysis.failure import what_if
    from core.errors import InputError
    from core.plan import plan

    with pytest.raises(InputError) as caught:
        what_if(plan(Design(**design)), [spec])
    assert said in str(caught.value) and ids not in str(caught.value), str(caught.value)


def test_the_one_feed_error_names_the_rack_as_the_exports_do(monkeypatch):
    from core.analysis import failure
    from core.analysis.failure import what_if
    from core.analysis.failure.names import ElementNames
    from core.errors import InputError
    from core.plan import plan

    monkeypatch.setattr(failure.power, "_feeds_for", lambda preset: (1, "N"))
    p = plan(Design(gpus=128))
    with pytest.raises(InputError) as caught:
        what_if(p, ["rack3.feedB"])
    name = ElementNames(p).name("rack3.feedA")
    assert str(caught.value).endswith(f"one power feed, {name}") and name.endswith(" feedA") and "rack3" not in name


def test_a_classic_dragonflys_local_bundle_fails_by_the_name_spof_prints(capsys):
    """spof lists a local bundle (``router001 -> router002 (p0.leaf0-leaf1; router 1 - router 2)``); that name, its
    name before routers were named routers (``leaf001 -> leaf002``) and its id fail the bundle: no GPU cut off, as spof says; a bundle inside a group is the tier ``link`` (local)."""
    import re

    flags = ["--gpus", "1024", "--topology", "classic-dragonfly"]
    text = run_cli(capsys, "spof", *flags)[1]
    line = next(line for line in text.splitlines() if "local link bundle" in line)
    name, element = re.match(r"^(.+?) \(([^;]+);", line).groups()
    assert (name, element) == ("router001 -> router002", "p0.leaf0-leaf1")
    by_name = run_cli(capsys, "failure", *flags, "--fail", name, "--format", "json")
    by_old = run_cli(capsys, "failure", *flags, "--fail", "leaf001 -> leaf002", "--format", "json")
    by_id = run_cli(capsys, "failure", *flags, "--fail", element, "--format", "json")
    assert by_name[0] == 0 and by_name[1] == by_id[1] == by_old[1], by_name[2]
    import json

    out = json.loads(by_id[1])
    assert out["gpus_disconnected"] == 0 and out["failed"][0]["tier"] == "link"
    from core.analysis.failure.spec import tiers_for
    from core.plan import plan

    assert "link" in tiers_for(plan(Design(gpus=1024, topology="classic-dragonfly")))


def test_a_classic_dragonflys_hot_links_are_named_as_its_exports_and_failure_views_name_them(capsys):
    """Overload & imbalance and ``python -m core load`` name a router as the exports do (``router002``, not ``router
    2``); that name, a NIC's (``gpu006 nic1 -> router001``) and the old words (``router 58``, ``leaf002``) fail the
    same element."""
    from core.analysis.failure.names import ElementNames
    from core.fabric.wiring import Wiring
    from core.formats.linknames import failure_element, link_names
    from core.plan import plan

    p = plan(Design(gpus=1024, topology="classic-dragonfly"))
    names = ElementNames(p)
    w = Wiring.of(p)
    leaf = w.switch_id("leaf", w.node_port(5, 0)[0])
    ids = ["p0.leaf1 -> p0.leaf2", "p0.leaf57 -> p0.leaf33#0", f"node5.nic{w.nic_of(0)} -> {leaf}"]
    shown = link_names(p, ids)
    assert shown[:2] == ["router002 -> router003", "router058 -> router034 #1"]
    assert shown[2] == f"{names.name(f'node5.nic{w.nic_of(0)}')} -> {names.device(leaf)}"
    assert [failure_element(p, name) for name in shown] == ["p0.leaf1-leaf2", "p0.leaf33-leaf57#0",
                                                            f"node5.nic{w.nic_of(0)}"]
    assert failure_element(p, "router 58 -> router 34#0") == "p0.leaf33-leaf57#0"  # a link written before
    assert failure_element(p, "leaf002 -> leaf003") == "p0.leaf1-leaf2"  # named before routers were routers
    text = run_cli(capsys, "load", "--gpus", "1024", "--topology", "classic-dragonfly", "--pattern", "adversarial")[1]
    hot = text.split("hottest links")[1].splitlines()[1:6]
    assert all(re.match(r"^  router\d{3} -> router\d{3} ", line) for line in hot), hot


def test_the_resilience_page_names_the_pods_elements_as_the_exports_do():
    """A design with pods on the Resilience page (AppTest): the whole-fabric chips and the chips inside a pod say the
    pods' exports' names, and the form inside a pod takes them (``R05-02 feedA``, ``pod2-gpu006 nic3``)."""
    from tests import pagetest
    from tests.test_i18n import rerun

    open_page = pagetest.opener("../pages/6_Resilience.py")
    at = open_page({"n": "64", "pods": "B300:32:800", "rs_fail": "pod2.p0.leaf1,spine0,pod2.rack0.feedA"})
    assert not at.exception
    whole = at.multiselect(key="rs_w_pods_failed")
    assert set(whole.value) == {"pod2.p0.leaf1", "spine0"}
    assert "pod2-leaf002" in whole.options and "spine001" in whole.options and "pod2.p0.leaf1" not in whole.options
    inside = at.multiselect(key="rs_w_inside_failed")
    assert inside.value == ["pod2.rack0.feeda"] and inside.options == ["R05-01 feedA"]
    at.text_input(key="rs_w_inside_names").set_value("R05-02 feedA, pod2-gpu006 nic3")
    at.button(key="rs_w_inside_add").click()
    rerun(at)
    assert not at.error, [e.value for e in at.error]
    inside = at.multiselect(key="rs_w_inside_failed")
    assert [v.lower() for v in inside.value] == ["pod2.rack0.feeda", "pod2.rack1.feeda", "pod2.node5.nic2"]
    assert inside.options == ["R05-01 feedA", "R05-02 feedA", "pod2-gpu006 nic3"]
    assert "R05-01 feedA: redundant" in " ".join(c.value for c in at.caption).replace("\\", "")


def test_a_pods_unknown_element_is_refused_as_typed_with_export_names(capsys):
    code, _out, err = run_cli(capsys, "failure", "--gpus", "64", "--pods", "B300:32:800", "--fail", "pod2-leaf099")
    assert code == 2 and "Unknown element 'pod2-leaf099': a shared spine (such as spine001), a pod's leaf (such as " \
                         "pod1-leaf001)" in err and "pod2.p0" not in err, err


def test_a_three_tier_pods_unknown_element_gives_export_names(capsys):
    code, _out, err = run_cli(capsys, "failure", "--gpus", "64", "--pods", "B300:32:800", "--tiers", "3", "--fail",
                              "pod2-leaf099")
    assert code == 2 and "Unknown element 'pod2-leaf099': a shared core (such as core001), a pod's spine (such as " \
                         "pod1-spine001)" in err and "pod1.p0" not in err, err


@pytest.mark.parametrize("case", ["PORT", "RAIL", "PORT3", "RAIL3"])
def test_every_whole_fabric_element_on_planes_round_trips(case):
    """Pods on two planes (per port, per rail; two and three tiers): every element the whole-fabric what-if takes
    and one cable of each bundle has an export name (``pod1-p2-leaf001 -> pod1-p2-spine001``, ``p2-core001``) that
    reads back to it."""
    import test_pods_planes_analyses as planes

    mixed = design_mixed(getattr(planes, case))
    names = PodElementNames(mixed)
    elements = whole_choices(mixed)
    for element in elements + [e + "#0" for e in elements if "-" in e]:
        name = names.name(element)
        assert name != element and names.parse(name) == element, (element, name)
