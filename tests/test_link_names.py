"""The link-load analysis's hottest links under the exports' names (core.formats.linknames): every device a hottest
link names is a device of the cabling plan export, and the parallel cable's number is 1-based."""

from __future__ import annotations

import pytest

from core.analysis.loadpods import design_link_load
from core.design import Design
from core.formats.linknames import link_names, scheme_of
from core.formats.podnetbox import plan_cabling_rows
from core.plan import plan


@pytest.fixture(scope="module", params=[Design(gpu="H100", nodes=64, pods="B200:32:800"),
                                        Design(gpu="H100", nodes=64, oversubscription=2)], ids=["pods", "one"])
def case(request):
    p = plan(request.param)
    result = design_link_load(p, "ring", "random")
    return p, [h["link"] for h in result.hot_links]


def test_the_hottest_links_name_the_cabling_plans_devices(case):
    p, links = case
    devices = {d for row in plan_cabling_rows(p, None) for d in (row.a_device, row.z_device)}
    names = link_names(p, links)
    assert links and len(names) == len(links)
    for link, name in zip(links, names):
        ends = name.split(" -> ")
        assert len(ends) == 2 and all(end.split(" ")[0] in devices for end in ends), (link, name)
        assert "." not in name and "p0" not in name  # no wiring ids left


def test_the_names_of_a_design_with_pods():
    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    names = link_names(p, ["pod2.node3.nic0 -> pod2.p0.leaf1", "pod1.p0.leaf10 -> spine2#2", "odd -> spine99"])
    assert names == ["pod2-gpu004 nic1 -> pod2-leaf002", "pod1-leaf011 -> spine003 #3", "odd -> spine99"]
    scheme = scheme_of({"np": "h", "sp": "sw-", "nd": 2}, p)
    assert link_names(p, ["pod2.node3.nic0 -> pod2.p0.leaf1"], scheme) == ["pod2-h04 nic1 -> pod2-sw-leaf02"]
    assert scheme_of({"np": "1bad", "sp": "", "nd": 3}, p) is None and scheme_of(None, p) is None
