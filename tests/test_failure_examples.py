"""The Resilience form's example element names come from the design's own wiring (core.analysis.failure.examples):
every example is an element the what-if takes, and none names a tier or an index the design does not have."""

from __future__ import annotations

import re

import pytest

from core.analysis.failure import resolve_failures
from core.analysis.failure.examples import EXAMPLES, element_examples
from core.analysis.podwhatif import is_whole_element
from core.analysis.whole import design_mixed
from core.design import Design
from core.plan import plan
from tests import pagetest

DESIGNS = [
    dict(gpu="H100", gpus=32),
    dict(gpu="H100", gpus=16384),
    dict(gpu="H100", gpus=1024, topology="top-of-rack"),
    dict(gpu="H100", gpus=1024, topology="rail-only"),
    dict(gpu="H100", gpus=512, topology="torus"),
    dict(gpu="H100", gpus=4096, topology="dragonfly"),
    dict(gpu="H100", gpus=1024, topology="classic-dragonfly"),
    dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144),
]


@pytest.mark.parametrize("fields", DESIGNS, ids=lambda f: "-".join(str(v) for v in f.values()))
def test_every_example_is_an_element_of_the_design(fields):
    p = plan(Design(**fields))
    names = element_examples(p)
    assert 2 <= len(names) <= EXAMPLES and len(set(names)) == len(names)
    for name in names:
        resolve_failures(p, [name])  # raises InputError for an element the design does not have
    nodes = [int(n) for name in names for n in re.findall(r"gpu(\d+)", name)]  # the exports' names (leftnames)
    assert all(1 <= n <= p.resolved.nodes for n in nodes)


def test_a_one_leaf_design_names_no_spine_and_only_its_nodes():
    p = plan(Design(gpu="H100", gpus=32))  # one leaf, 4 nodes, HGX boards, one rack
    names = element_examples(p)
    assert not any("spine" in n or "core" in n for n in names)
    assert names[0] == "leaf001" and any(" nvswitch" in n for n in names) and any(" feed" in n for n in names)


def test_pods_lead_with_another_pods_leaf_as_the_whole_fabric_names_it():
    """As the pods' exports name them (not the whole fabric's ids pod2.p0.leaf0, spine0: every failure view says
    the export names), each read back to an element one of the two what-ifs takes."""
    from core.analysis.failure.podnames import PodElementNames
    from core.analysis.podinside import inside_spec

    design = Design(gpu="H100", nodes=64, pods="B200:32:800")
    mixed = design_mixed(design)
    names = element_examples(plan(design), mixed)
    assert names[:2] == ["pod2-leaf001", "spine001"] and names == element_examples(plan(design))
    ids = [PodElementNames(mixed).parse(name) for name in names]
    assert ids[:2] == ["pod2.p0.leaf0", "spine0"] and all(is_whole_element(mixed, e) for e in ids[:2])
    assert all(inside_spec(mixed, e) for e in ids[2:]) and any(" nic" in n for n in names[2:]), names


def test_the_resilience_form_shows_the_designs_examples():
    at = pagetest.opener("../pages/6_Resilience.py")({"n": "4", "g": "H100"})
    box = at.text_input(key="rs_w_names")
    assert box.placeholder == ", ".join(element_examples(plan(Design(gpu="H100", nodes=4))))
    assert "spine" not in box.placeholder and "node5" not in box.placeholder


@pytest.mark.parametrize("tiers", ["2", "3"])
def test_pods_examples_are_all_whole_fabric_names_on_two_and_three_tiers(tiers):
    design = Design(gpu="H100", nodes=64, pods="B200:32:800", tiers=tiers)
    mixed = design_mixed(design)
    names = element_examples(plan(design), mixed)  # three tiers raised a DesignError here
    from core.analysis.failure.podnames import PodElementNames
    from core.analysis.podinside import inside_spec

    ids = [PodElementNames(mixed).parse(n) for n in names]  # the pods' exports' names, read back
    assert len(ids) >= 2 and all(is_whole_element(mixed, e) or inside_spec(mixed, e) for e in ids), names
    assert ("core001" in names) == (tiers == "3") and ("spine001" in names) == (tiers == "2")
