"""A hot link of the load analysis pasted into the failure what-if (``core.formats.linknames.failure_element``): every
hottest link the analysis names, under the exports' names or the analysis's own ids, is an element the what-if
takes, and it is exactly that link: the cable of its bundle between the same two switches (the bundle when the
analysis gives no cable), or the server's NIC. The expected element is built here from the analysis's id by hand."""

from __future__ import annotations

import re

import pytest

from conftest import run_cli
from core.analysis.failure import resolve_failures, what_if
from core.analysis.loadpods import design_link_load
from core.analysis.podinside import inside_spec
from core.analysis.podwhatif import is_whole_element, pods_what_if
from core.analysis.whole import design_mixed
from core.design import Design
from core.errors import InputError
from core.formats.linknames import failure_element, failure_specs, link_names, read_failures, scheme_of
from core.formats.linknames import typed_failures
from core.plan import plan

DESIGNS = {
    "clos-2": Design(gpu="H100", nodes=64),
    "clos-3": Design(gpu="H100", gpus=16384, tiers="3"),
    "pods": Design(gpu="H100", nodes=64, pods="B200:32:800"),
    "pods-3": Design(gpu="H100", nodes=64, pods="B200:32:800", tiers="3"),
    "dragonfly+": Design(gpu="H100", gpus=4096, topology="dragonfly"),
    "classic-dragonfly": Design(gpu="H100", gpus=1024, topology="classic-dragonfly"),  # leaf041 -> leaf009 (names2)
}
_SWITCH = re.compile(r"^(?P<id>(?:pod\d+\.)?(?:p0\.)?(?P<role>leaf|spine|core)(?P<k>\d+))(?:#(?P<cable>\d+))?$")
_ROLES = ("leaf", "spine", "core")


def _expected(link: str) -> str:
    """The what-if's element of the analysis's link id ``link``, by hand: a server's NIC, or the bundle named by its
    lower switch (leaf below spine below core; of two spines the lower-numbered) then its upper switch's role and
    number, the cable the analysis gives after ``#``."""
    ends = link.split(" -> ")
    nic = [end for end in ends if ".nic" in end]
    if nic:
        return nic[0]
    parsed = [_SWITCH.match(end) for end in ends]
    assert all(parsed), link
    low, high = sorted(parsed, key=lambda m: (_ROLES.index(m["role"]), int(m["k"])))
    cable = low["cable"] or high["cable"]
    return f"{low['id']}-{high['role']}{high['k']}" + (f"#{cable}" if cable is not None else "")


@pytest.fixture(scope="module", params=list(DESIGNS), ids=list(DESIGNS))
def hot(request):
    """``(plan, [(analysis id, export name)])`` of every hottest link of three patterns on the design."""
    p = plan(DESIGNS[request.param])
    links = []
    for pattern in ("ring", "alltoall", "uniform"):
        result = design_link_load(p, pattern, "random")
        ids = [h["link"] for h in result.hot_links]
        links += [pair for pair in zip(ids, link_names(p, ids)) if pair not in links]
    return request.param, p, links


def test_every_hot_link_is_an_element_of_the_what_if(hot):
    name, p, links = hot
    assert len(links) >= 10
    mixed = design_mixed(p.design) if p.design.pods else None
    kinds = set()
    for link, shown_name in links:
        element = failure_element(p, shown_name)
        assert element == _expected(link) == failure_element(p, link), (link, shown_name)
        if mixed is None:
            (tier, key, chosen), = resolve_failures(p, [element])
            assert tier in ("nic", "link", "global") and not chosen
            kinds.add(tier)
        else:
            assert is_whole_element(mixed, element) or inside_spec(mixed, element) is not None, element
            kinds.add("nic" if ".nic" in element else "link")
    assert "link" in kinds or "global" in kinds, name  # switch-to-switch links were tried, not only NICs


def test_the_resolved_element_is_that_cable_clos():
    """Clos, two tiers, by hand: leaf002 -> spine003 #1 is leaf 1's bundle to spine 2, cable 0; failing it loses one
    400 Gb/s cable: 0.4 Tb/s of bisection, leaf 1 hashes over 31 of its 32 uplink cables."""
    p = plan(DESIGNS["clos-2"])
    assert failure_element(p, "leaf002 -> spine003 #1") == failure_element(p, "spine003 #1 -> leaf002") == \
        "p0.leaf1-spine2#0"
    assert resolve_failures(p, ["p0.leaf1-spine2#0"]) == [("link", ("ls", 0, 0, 1, 2, 0), False)]
    out = what_if(p, failure_specs(p, ["leaf002 -> spine003 #1"])).to_json()
    assert out["healthy"]["bisection_tbits_one_direction"] - out["bisection_tbits_one_direction"] == pytest.approx(0.4)
    assert out["ecmp_unbalanced"] == [{"tier": "leaf", "switches": 1, "healthy_paths": 32, "remaining_paths": 31,
                                       "unit": "links"}]
    assert failure_element(p, "gpu006 nic3 -> leaf003") == "node5.nic2"


def test_the_resolved_element_is_that_cable_pods():
    """Pods: spine002 #2 -> pod2-leaf001 is one 800 Gb/s cable of pod 2's leaf 0 to shared spine 1: pod 2 loses
    800 Gb/s into the shared spines, the other pod nothing."""
    p = plan(DESIGNS["pods"])
    mixed = design_mixed(p.design)
    element = failure_element(p, "spine002 #2 -> pod2-leaf001")
    assert element == "pod2.p0.leaf0-spine1#1"
    loss = {x.pod: x.healthy_spine_gbps - x.spine_gbps for x in pods_what_if(mixed, [element])}
    assert loss == {1: 0, 2: 800}
    assert failure_element(p, "pod2-gpu004 nic1 -> pod2-leaf001") == "pod2.node3.nic0"
    assert inside_spec(mixed, "pod2.node3.nic0") == (1, "node3.nic0")


def test_a_custom_naming_scheme_reads_back():
    p = plan(DESIGNS["pods"])
    scheme = scheme_of({"np": "h", "sp": "sw-", "nd": 2}, p)
    name, = link_names(p, ["pod2.node3.nic0 -> pod2.p0.leaf0"], scheme)
    assert failure_element(p, name, scheme) == "pod2.node3.nic0"


@pytest.mark.parametrize("text", ["leaf999 -> spine001 #1", "leaf002 -> spine003 #0", "gpu001 nic0 -> leaf001",
                                  "leaf002 -> ", "a -> b -> c", "gpu001 nic1 -> gpu002 nic1", "x" * 5000 + " -> y"])
def test_a_bad_name_is_refused_short_and_escaped(text):
    p = plan(DESIGNS["clos-2"])
    with pytest.raises(InputError) as err:
        failure_element(p, text)
    message = str(err.value)
    assert "not a link of this design" in message and len(message) < 300 and "\n" not in message


def test_two_switches_no_bundle_joins_are_refused_by_the_what_if():
    p = plan(DESIGNS["clos-2"])
    with pytest.raises(InputError):
        resolve_failures(p, failure_specs(p, ["leaf001 -> leaf002"]))


def test_the_command_line_takes_a_hot_link(capsys):
    code, out, err = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--fail", "leaf002 -> spine003 #1",
                             "--fail", "p0.leaf1 -> p0.spine2#1")
    assert code == 0 and out.startswith("failed: leaf002 -> spine003 #1 (p0.leaf1-spine2#0), p0.leaf1 -> p0.spine2#1 "
                                        "(p0.leaf1-spine2#1)\n"), out + err  # as typed, the element in brackets
    code, out, err = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--pods", "B200:32:800",
                             "--fail", "spine002 #2 -> pod2-leaf001")
    assert code == 0 and out.startswith("failed: spine002 #2 -> pod2-leaf001 (pod2.p0.leaf0-spine1#1)\n"), out + err
    code, out, err = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--fail", "leaf002 -> nowhere")
    assert code == 2 and "not a link of this design" in err and len(err.strip().splitlines()) == 1


_RANGE = re.compile(r"^'(?P<name>.+)': the bundle has (?P<count>\d+) cables?, #(?P<first>\d+) to #(?P<last>\d+)$")


def test_a_cable_past_the_bundle_is_refused_as_typed():
    """Clos, two tiers, by hand: a leaf's 32 uplinks over 8 spines are 4 cables a pair, #1 to #4 as the load
    analysis names them (#0 to #3 under the analysis's ids); #9 is refused under the name typed, not the what-if's
    0-based id. Dragonfly+ 4,096 GPUs: one cable a leaf-spine pair, the singular."""
    p = plan(DESIGNS["clos-2"])
    assert (p.fabric.leaf_uplinks, p.fabric.spine_count, p.fabric.links_per_leaf_spine_pair) == (32, 8, 4)
    refused = {"leaf002 -> spine003 #9": "'leaf002 -> spine003 #9': the bundle has 4 cables, #1 to #4",
               "leaf002 -> spine003 #5": "'leaf002 -> spine003 #5': the bundle has 4 cables, #1 to #4",
               "spine003 #5 -> leaf002": "'spine003 #5 -> leaf002': the bundle has 4 cables, #1 to #4",
               "p0.leaf1 -> p0.spine2#4": "'p0.leaf1 -> p0.spine2#4': the bundle has 4 cables, #0 to #3"}
    for text, message in refused.items():
        with pytest.raises(InputError) as err:
            failure_element(p, text)
        assert str(err.value) == message
        with pytest.raises(InputError) as err:
            failure_specs(p, ["spine:1", text])
        assert str(err.value) == message
    assert failure_element(p, "leaf002 -> spine003 #4") == failure_element(p, "p0.leaf1 -> p0.spine2#3") == \
        "p0.leaf1-spine2#3"
    with pytest.raises(InputError) as err:  # a long or odd name: cut and escaped, one short line
        failure_element(p, "leaf002 -> spine003 #" + "9" * 5000 + "\n")
    assert len(str(err.value)) < 300 and "\n" not in str(err.value)
    with pytest.raises(InputError) as err:
        failure_element(p, "leaf002 -> spine003 #999999999")
    assert str(err.value) == "'leaf002 -> spine003 #999999999': the bundle has 4 cables, #1 to #4"
    dragonfly = plan(DESIGNS["dragonfly+"])
    with pytest.raises(InputError) as err:
        failure_element(dragonfly, "leaf 1 -> spine 1#9")
    assert str(err.value) == "'leaf 1 -> spine 1#9': the bundle has 1 cable, #0 to #0"


def test_every_hot_link_cable_range_is_the_what_ifs(hot):
    """Each hot link named with a cable: a cable past its bundle is refused under the name as typed, with the range
    in its numbering; the last cable of that range is the what-if's last (the next, as the what-if's id, refused)."""
    name, p, links = hot
    mixed = design_mixed(p.design) if p.design.pods else None
    cabled = [(link, shown_name) for link, shown_name in links if "#" in shown_name]
    if name == "clos-2":
        assert cabled
    for link, shown_name in cabled:
        typed = re.sub(r"#\d+", "#999", shown_name)
        with pytest.raises(InputError) as err:
            failure_element(p, typed)
        found = _RANGE.match(str(err.value))
        assert found and found["name"] == typed, str(err.value)
        count, first, last = int(found["count"]), int(found["first"]), int(found["last"])
        assert first == (0 if name == "dragonfly+" else 1) and last == count - 1 + first
        element = failure_element(p, re.sub(r"#\d+", f"#{last}", shown_name))
        assert element == _expected(re.sub(r"#\d+", f"#{count - 1}", link))
        past = element.rsplit("#", 1)[0] + f"#{count}"
        if mixed is None:
            resolve_failures(p, [element])
            with pytest.raises(InputError):
                resolve_failures(p, [past])
        else:
            assert is_whole_element(mixed, element) or inside_spec(mixed, element) is not None
            assert not is_whole_element(mixed, past)


def test_the_command_line_refuses_a_cable_past_the_bundle_as_typed(capsys):
    code, out, err = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--fail", "leaf002 -> spine003 #9")
    assert code == 2 and err.strip().splitlines() == ["error: 'leaf002 -> spine003 #9': the bundle has 4 cables, "
                                                      "#1 to #4"], err
    code, out, err = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--pods", "B200:32:800",
                             "--fail", "spine002 #5 -> pod2-leaf001")
    assert code == 2 and "'spine002 #5 -> pod2-leaf001': the bundle has 4 cables, #1 to #4" in err and "p0." not in err


@pytest.mark.parametrize("text, right", [("gpu030 nic3 -> leaf004", "leaf003"), ("gpu030 nic3 -> spine001", "leaf003"),
                                         ("node29.nic2 -> p0.leaf3", "p0.leaf2"),
                                         ("gpu030 nic3 -> leaf003", None), ("node29.nic2 -> p0.leaf2", None)])
def test_a_server_link_is_checked_against_the_wiring(text, right):
    """Two tiers, 64 nodes of 8 NICs, rail-optimised groups of 32 nodes with a leaf a rail: gpu030 (node 29) is in
    group 0, its NIC 3 (nic2) on rail 2's leaf: p0.leaf2, leaf003 under the exports' 1-based names.
    A far end the NIC is not cabled to is refused in one short line naming the leaf it is cabled to."""
    p = plan(DESIGNS["clos-2"])
    if right is None:
        assert failure_element(p, text) == "node29.nic2"
        return
    with pytest.raises(InputError) as err:
        failure_element(p, text)
    message = str(err.value)
    assert "not a link of this design" in message and message.endswith(f"cabled to {right!r}") and "\n" not in message


def test_a_pod_server_link_is_checked_against_the_wiring():
    p = plan(DESIGNS["pods"])
    assert failure_element(p, "pod2-gpu004 nic1 -> pod2-leaf001") == "pod2.node3.nic0"
    with pytest.raises(InputError) as err:
        failure_element(p, "pod2-gpu004 nic1 -> pod2-leaf002")
    assert str(err.value).endswith("cabled to 'pod2-leaf001'")


def test_one_lost_nic_port_reads_singular(capsys):
    """One NIC failed: one GPU lost a NIC port ("1 GPU", not "1 GPUs")."""
    code, out, _ = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--fail", "gpu030 nic3 -> leaf003")
    assert code == 0 and "1 GPU lost a NIC port" in out and "1 GPUs" not in out


def test_typed_failures_are_read_once_and_echoed_as_typed(capsys):
    """The page's two forms and the CLI read typed failures one way (``read_failures``): a hot link its element, a
    name lowercased, a bad link said and left out; the output echoes each as typed, the elements it failed in
    brackets: a count's chosen ones in the what-if's order, a hot link's element."""
    p = plan(DESIGNS["clos-2"])
    pairs, problems = read_failures(p, [" spine:2", "", "P0.Leaf3", "leaf002 -> spine003 #1", "leaf999 -> x"])
    assert pairs == [("spine:2", "spine:2"), ("P0.Leaf3", "p0.leaf3"), ("leaf002 -> spine003 #1", "p0.leaf1-spine2#0")]
    assert len(problems) == 1 and "leaf999" in problems[0]
    failed = what_if(p, [spec for _typed, spec in pairs]).failed
    chosen = [f["element"] for f in failed if f["chosen"]]
    assert len(chosen) == 2 and all(e.startswith("p0.spine") for e in chosen)
    assert typed_failures(pairs, failed) == [f"spine:2 ({chosen[0]}, {chosen[1]})", "P0.Leaf3",
                                             "leaf002 -> spine003 #1 (p0.leaf1-spine2#0)"]
    assert typed_failures(pairs[:1], failed, most=1) == [f"spine:2 ({chosen[0]}, ...)"]  # the page's caption: 20
    code, out, err = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--fail", "spine:1", "--fail",
                             "rack3.feedA")
    first = out.splitlines()[0]
    # the exports' names of what a count chose and of a typed id (leftnames)
    assert code == 0 and first == "failed: spine:1 (spine001 *), rack3.feedA (R02-04 feedA) (=)", out
