"""Torus, Dragonfly+ and GB200 NVL36 designs described in their own family's words and capabilities (review44 1.6,
2.1, 2.2, 2.3), each number counted by hand."""

from __future__ import annotations

import pytest

from core.design import Design
from core.plan import plan

DF = Design(topology="dragonfly", gpus=4096)


@pytest.fixture(scope="module")
def df():
    return plan(DF)


def test_dragonfly_collective_note_names_the_busiest_spines_ratio(df):
    """4,096 H100 GPUs: 4 groups of 32 leaves x 32 down ports (1,024 NIC ports a group) and 32 spines; a group's
    1,024 global ports carry 3 x 341 = 1,023 links, so 31 spines hold 32 global links and one holds 31. The
    busiest spine is 32 down ports over 31 global links = 1.03:1 (the model's global stage); the group as a whole
    is 1,024 over 1,023 = 1.001:1, so the note must not call 1.03 the groups' ratio."""
    from core.perf.collectives import sweep

    assert df.fabric.global_pair_links == 341 and df.fabric.pod_count == 4
    spines = [g for g in df.fabric.switch_groups if g.role == "spine"]
    assert max(g.down_ports_used / g.up_ports_used for g in spines) == pytest.approx(32 / 31)
    assert df.bandwidth.spine_oversubscription == pytest.approx(32 / 31)
    notes = " ".join(sweep(df, "all-reduce", [2**30]).notes)
    assert "busiest spine's down ports over its global links (1.03:1" in notes
    assert "groups' injection" not in notes



def test_dragonfly_spares_count_each_device_role_by_hand(df):
    """The sparing reads the bill row by row, and a Dragonfly+ bill has a row per device role: 128 leaves (16 SU x
    8 rails) and 128 spines (4 groups x 32), N+1 each = 1 + 1; 4,096 NICs at 1% = ceil(40.96) = 41; the global
    links' switch-side optics 124 spines x 16 cages + 4 spines x ceil(31 / 2) = 2,048 at 2% = ceil(40.96) = 41; the
    global cables 682 + 1,023 + 341 = 2,046 links (4 groups x 1,023 ports / 2)."""
    from core.analysis.sparing import with_spares
    from core.fabric.families import require_model

    require_model(df.fabric, "spares", "spares")  # its family declares it: no refusal
    rows = with_spares(df).rows
    fabric_switches = [(r.installed, r.row.quantity) for r in rows if r.row.category == "switch"
                       and r.row.catalog_id == df.resolved.switch.id][:2]  # the leaf row, the spine row
    assert fabric_switches == [(128, 1), (128, 1)] and "1 per model and tier" in rows[1].row.why
    assert [(r.installed, r.row.quantity) for r in rows if r.row.category == "NIC"] == [(4096, 41)]
    bom = [r for r in df.bom if r.category in ("transceiver", "cable")]
    spared = {(r.category, r.why): (s.installed, s.row.quantity) for r, s in zip(bom, [s for s in rows if
              s.row.category in ("transceiver", "cable")])}
    global_optics = [v for (cat, why), v in spared.items() if why.startswith("switch side, global")]
    assert global_optics == [(2048, 41)]
    global_cables = sum(v[0] for (cat, why), v in spared.items() if cat == "cable" and "global links" in why)
    assert global_cables == 2046 == df.fabric.global_links


def _without_spares(monkeypatch):
    """The Dragonfly+ module without its spares capability: what a family whose bill the sparing cannot read gets."""
    import core.fabric.dragonfly as module

    monkeypatch.setattr(module, "BOM_MODELS", ())


def test_one_capability_decides_the_cli_spares(capsys, monkeypatch):
    from tests.conftest import run_cli

    argv = ("availability", "--topology", "dragonfly", "--gpus", "4096", "--trials", "50")
    code, out, _err = run_cli(capsys, *argv)
    assert code == 0 and "43 spare rows, $616,965" in out  # (41 node-side spares at the flat-top $1,249: +41 x $370)
    _without_spares(monkeypatch)
    code, out, _err = run_cli(capsys, *argv)
    assert code == 0 and "spare rows" not in out
    assert "The spares analysis: closed forms of the folded Clos" in out


def test_one_capability_decides_the_page_spares(monkeypatch):
    from tests.pagetest import open_page

    link = {"ng": "4096", "t": "df", "rs_tab": "Spares"}
    at = open_page("../pages/6_Resilience.py", link, timeout=180)
    assert not at.error and not at.info and at.dataframe
    _without_spares(monkeypatch)
    at = open_page("../pages/6_Resilience.py", link, timeout=180)
    assert any("closed forms of the folded Clos" in str(i.value).replace("\\", "") for i in at.info)


def test_oversubscription_whatif_spaces_its_ratio_ticks(df):
    """The what-if's ratios 1, 1.5, 2, 3, 4, 6 and 8: on a linear axis 1:1 and 1.5:1 are 0.5 / 7 = 7% of the axis
    apart and touched at 1,024 px; on a log axis log(1.5) / log(8) = 19.5% (the closest pair, 6:1 and 8:1, is
    log(8 / 6) / log(8) = 13.8%)."""
    import math

    from core.analysis.whatif import oversubscription_sweep
    from core.figures import oversubscription_figure

    fig = oversubscription_figure(oversubscription_sweep(DF), 1.0)
    ticks = list(fig.layout.xaxis.tickvals)
    assert ticks == [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0]
    assert fig.layout.xaxis.type == "log"
    closest = min(math.log(b / a) for a, b in zip(ticks, ticks[1:])) / math.log(ticks[-1] / ticks[0])
    assert closest == pytest.approx(math.log(8 / 6) / math.log(8)) and closest > 0.13


def test_gb200_with_a_144_gpu_domain_names_its_nvl36_racks_and_counts_a_gpus_chips(capsys):
    """576 GB200 GPUs in a 144-GPU NVLink domain are 16 NVL36 racks (36 GPUs, 9 compute trays each: an NVL72 rack has
    no free port for the second level). A GPU's 18 NVLink 5 links reach its own rack's 9 switch trays x 2 chips = 18
    chips; the domain's 108 are 4 racks x 18 + 18 level-2 switch units x 2 chips. One NVL72 rack: 18 chips, one
    level."""
    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, "plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144")
    assert code == 0
    assert out.splitlines()[0].startswith("576 x GB200-NVL72 GPUs in 144 nodes;")  # the link's system (other_rack)
    assert ("18 links each into the 18 switch chips of its first-level domain (108 in the whole domain with the "
            "second level's)") in out
    assert "into 108 switch chips" not in out
    code, out, _err = run_cli(capsys, "plan", "--gpu", "GB200-NVL72", "--nodes", "18")
    assert out.splitlines()[0].startswith("72 x GB200-NVL72 GPUs in 18 nodes;")
    assert "18 links each into 18 switch chips:" in out


def test_gb200_sidebar_names_the_links_system_with_the_racks_it_builds():
    from tests.pagetest import open_page

    at = open_page("../pages/3_Performance.py", {"g": "GB200-NVL72", "n": "144", "nvd": "144"}, timeout=180)
    options = at.selectbox(key="w_gpu").options
    assert "GB200-NVL72 · 36 GPUs/rack" in options and not any("NVL36" in o for o in options)
    assert "GB300-NVL72 · 72 GPUs/rack" in options  # the others: the catalog's racks


TORUS = Design(topology="torus", gpus=512)
TORUS_LINK = {"t": "tr", "ng": "512"}


def _text(html: str) -> str:
    import html as htmllib
    import re

    body = re.sub(r"<style.*?</style>|<script.*?</script>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", htmllib.unescape(re.sub(r"<[^>]+>", " ", body)))


def test_torus_pack_says_its_bisection_ratio_not_tiers_and_leaves():
    """A 4x4x4 torus of 64 nodes, 6 of 8 NIC ports cabled at 400G: half the injection 64 x 6 x 400 / 2 = 76.8 Tb/s
    over a cut of 2 x 4 x 4 = 32 links x 400 = 12.8 Tb/s: bisection ratio 6:1; 4 x 4 x 4 x 6 / 2 = 192 links."""
    from core.formats.report import design_report_html

    p = plan(TORUS)
    assert p.bandwidth.oversubscription == pytest.approx(64 * 6 * 400 / 2 / (32 * 400))
    text = _text(design_report_html(p, name="", share_link=""))
    assert "joined node to node by a torus of InfiniBand links (no switches)" in text and "-tier" not in text
    assert "bisection ratio 6:1, half the injection over the bisection." in text
    assert "the bisection ratio is 6:1, so traffic across the torus's cut can slow down" in text
    assert "across leaves" not in text and "node-leaf 0" not in text
    assert "Links 192 torus 192, node to node" in text


def test_torus_slurm_export_says_what_it_maps():
    import io

    from core.fabric.naming import NamingScheme
    from core.formats.slurm import write_tree_conf

    out = io.StringIO()
    write_tree_conf(plan(TORUS), out, NamingScheme())
    head = out.getvalue().splitlines()[:6]
    # the Designer's subtitle (core.figures.subtitle): the torus in its own words, no switch model
    assert "torus, node to node without switches" in head[1] and "QM9700" not in head[1]
    assert "1 tier" not in head[1] and not any("rail-optimized / multi-plane" in line for line in head)
    assert "a torus has no switches" in head[2]


def test_torus_performance_page_shows_its_own_ratio_and_no_switch_options():
    from tests.pagetest import open_page

    at = open_page("../pages/3_Performance.py", TORUS_LINK, timeout=180)
    captions = " ".join(str(c.value) for c in at.caption)
    assert "· bisection ratio 6:1 ·" in captions and "oversubscription 6:1" not in captions
    assert not [t for t in at.toggle if t.label == "InfiniBand SHARP"]  # no switch to reduce in
    compare = at.selectbox(key="perf_w_cmp")
    assert compare.options == ["Ethernet RoCE", "InfiniBand", "another design (share link)"]
    assert compare.value == "eth1"
    clos = open_page("../pages/3_Performance.py", {"ng": "512"}, timeout=180)  # a folded Clos keeps them all
    assert [t for t in clos.toggle if t.label == "InfiniBand SHARP"]
    assert "Ethernet RoCE 2:1" in clos.selectbox(key="perf_w_cmp").options


def test_torus_resilience_form_speaks_of_elements_not_tiers():
    from tests.pagetest import open_page

    at = open_page("../pages/6_Resilience.py", TORUS_LINK, timeout=180)
    assert any("pick an element kind and a count" in str(i.value) for i in at.info)
    assert not any("pick a tier" in str(i.value) for i in at.info)
    assert at.selectbox(key="rs_w_tier").label == "Element"


def test_torus_collectives_have_no_sharp():
    """SHARP reduces in InfiniBand switches; a torus has none, so asking for it adds no curve, and naming it is
    refused (the Performance page shows no SHARP toggle on it)."""
    from core.errors import DesignError
    from core.perf.collectives import collective, sharp_available, sweep

    p = plan(TORUS)
    assert not sharp_available(p)
    assert "sharp" not in sweep(p, "all-reduce", [2**30], sharp=True).curves
    with pytest.raises(DesignError, match="needs switches"):
        collective(p, "all-reduce", 2**30, algorithm="sharp")
    assert "sharp" in sweep(plan(Design(gpus=512)), "all-reduce", [2**30], sharp=True).curves  # a Clos keeps it
