"""Spares of a classic Dragonfly (``t=dfc``) and a torus (``t=tr``) counted by hand, row by row, from the catalog's
sparing policy (``assets/catalog/reliability.toml`` ``[sparing.*]``: switch N+1 per model and tier, transceiver 2%,
cable 1%, NIC 1%, a share rounded up per BOM row, ``core.spares.spare_count``) and the plan's own counts; the same
spare rows on the CLI (``plan --spares default``, ``availability``) and the Resilience page's Spares tab. Both families
declare the analysis (``BOM_MODELS = ("spares",)``); Dragonfly+'s hand count is in ``tests/test_family_words.py``."""

from __future__ import annotations

import math

import pytest

from core.analysis.sparing import with_spares
from core.design import Design
from core.plan import plan

DFC = Design(topology="classic-dragonfly", gpus=4096)
TORUS = Design(topology="torus", gpus=512)


def _compute(spares) -> list[tuple[str, str, int, int, float]]:
    """The compute fabric's spare rows: (category, catalog id, installed, spares, spare money [USD])."""
    return [(r.row.category, r.row.catalog_id, r.installed, r.row.quantity, r.row.extended_price_usd)
            for r in spares.rows if r.row.network == "compute"]


@pytest.fixture(scope="module")
def dfc():
    return plan(DFC)


@pytest.fixture(scope="module")
def torus():
    return plan(TORUS)


def test_classic_dragonfly_spares_by_hand(dfc):
    """4,096 H100 GPUs, 512 DGX nodes of 8 NICs at 400G on 64-port QM9700 routers: ``p = 16`` nodes a router, ``a =
    32`` routers a group (one per rail of 4 SUs), 31 local ports and 17 left for global links; 4,096 / 16 = 256
    routers in 8 groups. Local links: 8 groups x C(32, 2) = 8 x 496 = 3,968. Global links: each of the 28 group pairs
    joined by 74 (a group's 7 x 74 = 518 global ports over 32 routers: 6 routers with 17, 26 with 16), 28 x 74 =
    2,072; 48 routers hold 17 global ports, 208 hold 16.

    Installed and spared, the compute fabric row by row (N+1 per model and tier; ceil(installed x share)):

    * NIC: 512 x 8 = 4,096 at 1% -> ceil(40.96) = 41.
    * routers: one row, one tier, 256 QM9700 -> N+1 = 1 (a Dragonfly has no spine or core tier).
    * node-router optics: switch side 256 x ceil(16 / 2) = 2,048 twin-port modules, node side 512 x ceil(8 / 2) =
      2,048, each at 2% -> ceil(40.96) = 41 + 41; node-router cables 4,096 at 1% -> 41.
    * global optics: 48 x ceil(17 / 2) + 208 x ceil(16 / 2) = 432 + 1,664 = 2,096 modules, split by reach into
      2,084 multimode and 12 single-mode rows -> ceil(41.68) = 42 and ceil(0.24) = 1 (a share is rounded up per row);
      global cables 2,072 in five length rows 180 / 814 / 720 / 346 / 12 -> 2 + 9 + 8 + 4 + 1 = 24.
    * local links 3,968 = 896 in-rack DAC + 1,176 + 1,896 fibre -> 9 + 12 + 19 = 40 cables; their optics, 3,172
      modules -> ceil(63.44) = 64 (the DAC links need none).
    * the compute fabric's UFM pair: 4 cables -> 1, 4 QSFP56 transceivers -> 1.

    Money: 41 x $2,188 + $43,000 + (41 + 42 + 64) x $879 + 41 x $1,249 (the node side's flat-top module) + $1,119
    + (41 + 2 + 9 + 8 + 4 + 12 + 19 + 1) x $50 + $60 + 9 x $150 + $250 = $320,709."""
    f = dfc.fabric
    routers = [g for g in f.switch_groups if g.role == "leaf"]
    assert sum(g.count for g in routers) == 256 and f.pod_count == 8
    assert f.global_links == 28 * 74 == 2072
    rows = _compute(with_spares(dfc))
    installed = [(cat, cid, n, k) for cat, cid, n, k, _usd in rows]
    assert installed == [
        ("NIC", "CX7", 4096, 41), ("switch", "QM9700", 256, 1),
        ("transceiver", "OSFP-800G-2xSR4", 2048, 41), ("transceiver", "OSFP-800G-2xSR4-FLT", 2048, 41),
        ("cable", "FIBER-MMF-OM4-MPO12", 4096, 41),
        ("transceiver", "OSFP-800G-2xSR4", 2084, 42), ("transceiver", "OSFP-800G-2xDR4", 12, 1),
        ("cable", "FIBER-MMF-OM4-MPO12", 180, 2), ("cable", "FIBER-MMF-OM4-MPO12", 814, 9),
        ("cable", "FIBER-MMF-OM4-MPO12", 720, 8), ("cable", "FIBER-MMF-OM4-MPO12", 346, 4),
        ("cable", "FIBER-SMF-MPO12", 12, 1), ("cable", "DAC-400G", 896, 9),
        ("transceiver", "OSFP-800G-2xSR4", 3172, 64), ("cable", "FIBER-MMF-OM4-MPO12", 1176, 12),
        ("cable", "FIBER-MMF-OM4-MPO12", 1896, 19), ("cable", "FIBER-MMF-OM4-MPO12", 4, 1),
        ("transceiver", "QSFP56-200G-SR4", 4, 1)]
    # the plan's counts the docstring derives: global optics 2,096, global cables 2,072, local cables 3,968
    assert 2084 + 12 == 48 * math.ceil(17 / 2) + 208 * math.ceil(16 / 2)
    assert 180 + 814 + 720 + 346 + 12 == f.global_links
    assert 896 + 1176 + 1896 == 8 * math.comb(32, 2)
    assert sum(usd for *_rest, usd in rows) == pytest.approx(320_709)


def test_torus_spares_by_hand(torus):
    """512 H100 GPUs, 64 DGX nodes in a 4 x 4 x 4 torus: 6 of each node's 8 NICs cabled (two per dimension), 64 x
    6 / 2 = 192 links, no switch. A torus has no fabric switch, so no switch spare row in the compute fabric (its
    storage, in-band and out-of-band networks keep theirs); its links are spared by the link rules:

    * NIC: all 512 installed (the 2 unused a node come with it) at 1% -> ceil(5.12) = 6.
    * 80 links in copper (ACC): 64 in the rack + 16 in the row at 1% -> 1 + 1.
    * 112 optical links: 96 of 5-10 m and 16 of 10-20 m; each has a module at both ends, two node ports a twin-port
      module, so 96 and 16 modules at 2% -> ceil(1.92) = 2 and ceil(0.32) = 1; their fibre cords 96 and 16 at 1%
      -> 1 + 1.

    Money: 6 x $2,188 + 2 x $250 + 3 x $1,249 (the nodes' flat-top twin-port module) + 2 x $50 = $17,475."""
    assert torus.fabric.family == "torus" and torus.fabric.switch_groups == ()
    rows = _compute(with_spares(torus))
    assert [(cat, cid, n, k) for cat, cid, n, k, _usd in rows] == [
        ("NIC", "CX7", 512, 6), ("cable", "ACC-400G", 64, 1), ("cable", "ACC-400G", 16, 1),
        ("transceiver", "OSFP-800G-2xSR4-FLT", 96, 2), ("cable", "FIBER-MMF-OM4-MPO12", 96, 1),
        ("transceiver", "OSFP-800G-2xSR4-FLT", 16, 1), ("cable", "FIBER-MMF-OM4-MPO12", 16, 1)]
    assert 64 + 16 + 96 + 16 == torus.summary()["torus"]["links"] == 64 * 6 // 2
    assert not [r for r in rows if r[0] == "switch"]  # no fabric switch: none spared
    assert sum(usd for *_rest, usd in rows) == pytest.approx(17_475)


@pytest.mark.parametrize(("topology", "gpus", "rows", "money"), [
    ("classic-dragonfly", "4096", 45, "$561,051"), ("torus", "512", 34, "$214,193")])
def test_the_cli_and_the_bill_carry_the_same_spares(capsys, topology, gpus, rows, money):
    """``plan --spares default`` puts the spare rows in the bill (the compute fabric's counted above, then the storage,
    in-band and out-of-band networks'), ``availability`` prints their count and money; the two agree with
    ``with_spares`` (45 rows, $561,051 on the classic Dragonfly; 34, $214,193 on the torus)."""
    import csv
    import io

    from tests.conftest import run_cli

    design = Design(topology=topology, gpus=int(gpus))
    spares = with_spares(plan(design))
    assert len(spares.rows) == rows and f"${spares.spares_capex_usd:,.0f}" == money
    code, out, _err = run_cli(capsys, "plan", "--topology", topology, "--gpus", gpus, "--spares", "default",
                              "--format", "csv")
    assert code == 0
    bill = [r for r in csv.DictReader(io.StringIO(out)) if r["spare"] == "True"]
    assert [(r["catalog_id"], int(r["quantity"])) for r in bill] == [(s.row.catalog_id, s.row.quantity)
                                                                     for s in spares.rows]
    code, out, _err = run_cli(capsys, "availability", "--topology", topology, "--gpus", gpus, "--trials", "20")
    assert code == 0 and f"{rows} spare rows, {money}" in out


def test_the_resilience_page_lists_the_same_spares():
    from tests.pagetest import open_page

    at = open_page("../pages/6_Resilience.py", {"ng": "512", "t": "tr", "rs_tab": "Spares"}, timeout=180)
    assert not at.exception and at.dataframe
    frame = max((d.value for d in at.dataframe), key=len)
    assert len(frame) == 34
