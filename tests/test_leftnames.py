"""One name per device across the exports and the failure views (leftnames): every element a failure what-if can
fail, in every family, is named as the exports name its devices and that name fails the same element."""

from __future__ import annotations

from itertools import islice

import pytest

from conftest import run_cli

from core.analysis.failure import what_if
from core.analysis.failure.names import ElementNames
from core.analysis.failure.spec import resolve_failures, tiers_for
from core.design import Design
from core.errors import InputError
from core.fabric.families import failure_names
from core.plan import plan

FAMILIES = {
    "rail-optimized": dict(gpus=1024),
    "top-of-rack": dict(gpus=512, topology="top-of-rack"),
    "rail-only": dict(gpus=512, topology="rail-only"),
    "multi-plane": dict(gpus=1024, planes=2, plane_mode="per-rail"),
    "three-tier": dict(gpus=4096, tiers=3),
    "gb200": dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144),
    "dragonfly+": dict(gpus=4096, topology="dragonfly"),
    "classic-dragonfly": dict(gpus=1024, topology="classic-dragonfly"),
    "torus": dict(gpus=512, topology="torus"),
}


def _elements(p) -> list[str]:
    """A few element ids of every tier the failure what-if of ``p`` takes: the first two and the last of each."""
    names = failure_names(p.fabric.family)
    if names == "node-to-node":
        from core.analysis.failure import toruswhatif as t

        torus = t._Torus(p)
        keys = {"node": [(0,), (torus.wiring.nodes - 1,)], "nic": [(0, 0), (torus.wiring.nodes - 1, torus.nics - 1)],
                "link": [(0, 0), (len(torus.a) - 1, torus.width - 1)]}
        return [t._element(torus, tier, key) for tier, ks in keys.items() for key in ks]
    if names == "graph":
        from core.analysis.failure import graphwhatif as g

        net = g._Net.of(p)
        return [g._element(tier, key) for tier in g.tiers_of(p) for key in _ends(g._order(tier, net))]
    from core.analysis.failure.shape import Shape
    from core.analysis.failure.spec import _element, _worst_order

    shape = Shape.of(p)
    return [_element(tier, key, shape) for tier in tiers_for(p) for key in _ends(_worst_order(tier, shape))]


def _ends(keys) -> list:
    keys = list(islice(keys, 5000))
    return [*keys[:2], keys[-1]] if len(keys) > 2 else keys


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_element_round_trips_through_its_export_name(family):
    p = plan(Design(**FAMILIES[family]))
    names = ElementNames(p)
    elements = _elements(p)
    assert elements
    unnamed = []
    for element in elements:
        name = names.name(element)
        if name == element:
            unnamed.append(element)
            continue
        assert "." not in name.split()[0] or name[0].isupper(), (element, name)  # no id left in the name
        assert names.parse(name) == element, (element, name)
        assert names.parse(name.upper()) == element  # as NetBox compares names
        assert names.parse(name.replace("->", "\u2192")) == element  # copied from a caption (Markdown's arrow)
        assert resolve_failures(p, [name]) == resolve_failures(p, [element]), (element, name)
    # racks keep their id only where the layout splits a failure rack's nodes over two racks (top-of-rack)
    assert all(e.startswith("rack") for e in unnamed), unnamed
    if family != "top-of-rack":
        assert not unnamed


@pytest.mark.parametrize("family", ["rail-optimized", "dragonfly+", "torus"])
def test_a_what_if_under_export_names_is_the_what_if_under_ids(family):
    p = plan(Design(**FAMILIES[family]))
    names = ElementNames(p)
    ids = _elements(p)[:6]
    exported = [names.name(e) for e in ids]
    assert what_if(p, exported).to_json() == what_if(p, ids).to_json()


def test_names_are_the_names_the_exports_print(capsys):
    """The devices' names are the NetBox devices' and the cabling plan's; a NIC is the cabling plan's ``nicN`` of its
    server; a rack the layout's rack that NetBox places the servers in."""
    p = plan(Design(gpus=128))
    names = ElementNames(p)
    devices = run_cli(capsys, "export", "--gpus", "128", "--format", "netbox-devices")[1].splitlines()
    by_id = {line.split(",")[-1]: line.split(",") for line in devices[1:]}
    assert names.name("p0.leaf3") == by_id["p0.leaf3"][0] == "leaf004"
    assert names.name("node5.nic2") == "gpu006 nic3" and by_id["node5"][0] == "gpu006"
    assert names.name("rack1") == by_id["node4"][6] == by_id["node7"][6] != by_id["node8"][6]
    cabling = run_cli(capsys, "export", "--gpus", "128", "--format", "cabling")[1]
    assert ",gpu006,nic3/port1," in cabling
    assert names.name("rack1.feedB") == f"{by_id['node4'][6]} feedB"


@pytest.mark.parametrize("family", ["rail-optimized", "dragonfly+", "torus", "classic-dragonfly", "gb200"])
def test_the_cli_fails_an_export_name_as_its_id(family, capsys):
    p = plan(Design(**FAMILIES[family]))
    names = ElementNames(p)
    element = _elements(p)[1]
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in FAMILIES[family].items() if k != "nvlink_domain_gpus"]
    if "nvlink_domain_gpus" in FAMILIES[family]:
        flags.append(f"--nvlink-domain={FAMILIES[family]['nvlink_domain_gpus']}")
    by_name = run_cli(capsys, "failure", *flags, "--fail", names.name(element), "--format", "json")[1]
    by_id = run_cli(capsys, "failure", *flags, "--fail", element, "--format", "json")[1]
    assert by_name == by_id


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_an_unknown_name_is_refused_with_export_names_that_parse(family):
    p = plan(Design(**FAMILIES[family]))
    names = ElementNames(p)
    with pytest.raises(InputError) as caught:
        resolve_failures(p, ["bogus\nname" + "x" * 300])
    message = str(caught.value)
    from core.errors import shown

    assert len(message) < 400 and "\n" not in message and shown("bogus\nname" + "x" * 300) in message, message
    from core.analysis.failure.examples import element_examples

    for example in element_examples(p):
        assert names.parse(example) is not None, example
        assert example in message or family in ("torus",), (example, message)


@pytest.mark.parametrize("query, typed, ids", [
    ({"n": "64", "sw": "QM9700"}, "leaf002, gpu006 nic3, leaf004 -> spine002 #2, R02-04 feedA",
     ["p0.leaf1", "node5.nic2", "p0.leaf3-spine1#1", "rack3.feedA"]),
    ({"t": "df", "ng": "4096"}, "spine002, spine002 -> spine044, gpu001 nic2", ["p0.spine1", "p0.spine1-spine43", "node0.nic1"]),
])
def test_the_resilience_page_fails_export_names_as_their_ids(query, typed, ids):
    """Typed as the exports print them, the elements fail as their ids would: the same result, the link holds the ids,
    the chips say the exports' names (AppTest)."""
    from tests import pagetest

    open_page = pagetest.opener("../pages/6_Resilience.py")
    at = open_page(query)
    assert not at.exception
    at.text_input(key="rs_w_names").set_value(typed)
    at.button(key="rs_w_add_names").click()
    from tests.test_i18n import rerun

    rerun(at)
    assert not at.error, [e.value for e in at.error]
    failed = at.multiselect(key="rs_w_failed")
    assert failed.value == ids
    names = ElementNames(plan(Design(**({"nodes": 64, "switch": "QM9700"} if "n" in query else
                                        {"gpus": 4096, "topology": "dragonfly"}))))
    assert failed.options == [names.name(i) for i in ids] == [t.strip() for t in typed.split(",")]
    by_ids = open_page({**query, "rs_fail": ",".join(ids)})
    assert {m.label: m.value for m in by_ids.metric} == {m.label: m.value for m in at.metric}
    at.text_input(key="rs_w_names").set_value("leaf999x")
    at.button(key="rs_w_add_names").click()
    rerun(at)
    message = at.error[0].value.replace("\\", "")
    assert "unknown element 'leaf999x'" in message and "p0." not in message and "gpu001 nic2" in message


def test_a_rack_is_named_by_the_layout_only_when_it_holds_exactly_that_racks_nodes():
    """Top-of-rack at 2,048 GPUs: a ToR's 4 nodes (the failure model's rack) lie in two layout racks (R01-01 holds the
    ToR and 3 nodes, R01-02 the 4th), so no layout name is that rack: it keeps its id; rail-optimized racks are one
    layout rack each (NetBox's rack column of their nodes)."""
    from core.physical.cabling import position_of

    tor = plan(Design(gpus=2048, topology="top-of-rack"))
    names = ElementNames(tor)
    where = {position_of(tor.layout, f"node{n}")[0] for n in range(4)}
    assert len(where) == 2 and names.name("rack0") == "rack0" and names.name("rack0.feedA") == "rack0.feedA"
    assert all(names.parse(rack) is None for rack in where)
    rail = plan(Design(gpus=1024))
    names = ElementNames(rail)
    assert names.name("rack2") == position_of(rail.layout, "node8")[0] == position_of(rail.layout, "node11")[0]
    assert names.parse(names.name("rack2").lower()) == "rack2"


@pytest.mark.parametrize("family", ["torus", "dragonfly+", "classic-dragonfly"])
def test_the_cli_fails_another_familys_bundle_by_its_export_name(family, capsys):
    """A bundle named as the exports name its ends (``gpu001 -> gpu002 #1``, ``spine002 -> spine044``) goes through
    the hot-link reader of ``--fail`` and fails what its id fails."""
    p = plan(Design(**FAMILIES[family]))
    names = ElementNames(p)
    element = next(e for e in _elements(p) if "-" in e and not e.startswith("p0.leaf0-spine"))
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in FAMILIES[family].items()]
    by_name = run_cli(capsys, "failure", *flags, "--fail", names.name(element), "--format", "json")
    by_id = run_cli(capsys, "failure", *flags, "--fail", element, "--format", "json")
    assert by_name[0] == 0 and by_name[1] == by_id[1], (element, names.name(element), by_name[2])
