"""Sweep and Optimize on a design with pods: they vary one fabric, so they refuse; the refusal names a way out that
plans and builds, the first pod alone with every other setting kept (``core.analysis.whole.first_pod``): a button on
the pages (a link to the same page, its settings kept) and ``--pods ""`` on the CLI, in both languages."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlparse

import pytest

from core.analysis.whole import first_pod, one_fabric_only
from core.design import Design
from core.formats import sharelink
from core.i18n import _, language
from core.plan import plan
from tests import pagetest
from tests.conftest import run_cli
from webui import safe

LINK = {"n": "64", "pods": "B300:32:800", "rkw": "40"}
MIXED = Design(gpu="H100", nodes=64, pods="B300:32:800", rack_kw=40)


def test_the_first_pod_alone_keeps_every_other_setting_and_builds():
    alone = first_pod(MIXED)
    assert alone.pods is None and alone == Design(gpu="H100", nodes=64, rack_kw=40)
    assert plan(alone).resolved.nodes == 64


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_refusal_names_the_first_pod_and_the_surfaces_way_out(lang):
    with language(lang):
        for tool in ("sweep", "optimize"):
            page, cli = one_fabric_only(MIXED, tool), one_fabric_only(MIXED, tool, "cli")
            assert "H100" in page and "64" in page and "H100" in cli
            assert _("the button below opens it on this page") in page and '--pods ""' in cli
        assert one_fabric_only(Design(gpu="H100", gpus=512, pods="B300:32:800"), "optimize").count("512") == 1
    assert one_fabric_only(Design(gpu="H100", nodes=64), "sweep", "cli") is None


@pytest.mark.parametrize("page, path, own", [("../pages/5_Sweep.py", "sweep", {"sw_x": "nodes", "sw_xv": "32,64"}),
                                             ("../pages/7_Optimize.py", "optimize", {"opt_os": "2"})])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pages_button_opens_the_first_pod_alone_there(page, path, own, lang):
    """The refusal was a sentence only ("Clear the pods ..."); its button now opens the same page on the first pod
    alone, the page's own settings and the language kept, and there the page works."""
    open_page = pagetest.opener(page)
    at = open_page({**LINK, **own, "lang": lang})
    assert not at.exception
    (button,) = at.get("link_button")
    url = urlparse(button.proto.url)
    query = dict(parse_qsl(url.query))
    assert url.path.rstrip("/").endswith(path) and "pods" not in query and query["lang"] == lang
    assert {k: str(v) for k, v in sharelink.encode(first_pod(MIXED)).items()}.items() <= query.items()
    assert own.items() <= query.items()
    there = open_page(query)
    with language(lang):
        refusal = safe.md(one_fabric_only(MIXED, path))  # as the page writes it
    assert not there.exception and any(refusal == str(i.value) for i in at.info)
    assert not any(refusal == str(i.value) for i in there.info)


def test_the_sweep_commands_way_out_runs(capsys, tmp_path):
    path = tmp_path / "pods.json"
    path.write_text(MIXED.model_dump_json(exclude_defaults=True), encoding="utf-8")
    code, out, err = run_cli(capsys, "sweep", "--design", str(path), "--set", "oversubscription=1,2")
    assert code != 0 and '--pods ""' in out + err
    code, out, err = run_cli(capsys, "sweep", "--design", str(path), "--pods", "", "--set", "oversubscription=1,2")
    assert code == 0 and "2 of 2 points can be built" in out
