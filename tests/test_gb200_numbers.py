"""A GB200 design with NVLink domains of 144 GPUs (four NVL36 racks under a second NVLink level: a shipped NVL72
rack's switch trays have no free port) says the same numbers on every surface: the second level per domain and in
all, the compute fabric's capex with the NVLink parts named, the global batch's rounding. Numbers by hand: 144 nodes
x 4 GPUs = 576 GPUs = 4 domains of 144; 18 level-2 NVLinks per GPU, 4 per cable, 144 ports per switch tray (2 chips
x 72, nvidia.com NVLink page: "144 NVLink ports ... 14.4TB/s"), two optical modules and a fibre per cable."""

from __future__ import annotations

import json

import pytest

from core.cli import main as cli_main
from core.design import Design
from core.fabric import domainlevels
from core.figures.keynumbers import key_numbers
from core.figures.scaleup import scaleup_figure
from core.i18n import usd
from core.perf.jobform import batch_note
from core.plan import plan

GB200 = Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)
DOMAINS, DOMAIN_GPUS, PER_GPU, PER_CABLE, PORTS = 4, 144, 18, 4, 144
LINKS = DOMAIN_GPUS * PER_GPU  # 2,592 level-2 NVLinks in one domain
CABLES = LINKS // PER_CABLE  # 648 cables in one domain
UNITS = LINKS // PORTS  # 18 switch trays in one domain


@pytest.fixture(scope="module")
def gb200():
    return plan(GB200)


def test_level2_words_say_per_domain_and_in_all(gb200):
    levels = domainlevels.levels_summary(gb200.resolved)
    assert (levels["level2_switches"], levels["level2_links"], levels["level2_cables"]) == (UNITS, LINKS, CABLES)
    assert levels["level2_switches_total"] == DOMAINS * UNITS and levels["level2_cables_total"] == DOMAINS * CABLES
    text = domainlevels.level2_words(levels, DOMAIN_GPUS)
    assert text == ("each domain of 144 GPUs: 18 switch units, 2,592 links in 648 cables of 4 links; "
                    "all 4 domains: 72 switch units, 2,592 cables")


def test_caption_cli_and_bill_agree_on_the_second_level(gb200, capsys):
    words = domainlevels.level2_words(domainlevels.levels_summary(gb200.resolved), DOMAIN_GPUS)
    spec = scaleup_figure(gb200).to_plotly_json()
    caption = " ".join(a.get("text", "") for a in spec["layout"].get("annotations", [])).replace("<br>", " ")
    assert " ".join(words.split()) in " ".join(caption.split())
    assert cli_main(["plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144"]) in (0, None)
    assert words in capsys.readouterr().out
    rows = {r.catalog_id: r.quantity for r in gb200.bom if "NVLink level 2" in r.item}
    assert rows == {"NVLINK5-SWITCH-TRAY": DOMAINS * UNITS, "NVLINK5-FIBER": DOMAINS * CABLES,
                    "NVLINK5-OSFP-MODULE": 2 * DOMAINS * CABLES}  # the bill counts the totals


def test_compute_fabric_capex_names_the_nvlink_level_2_parts(gb200, capsys):
    nvlink = sum(r.extended_price_usd for r in gb200.bom if "NVLink level 2" in r.item)
    assert nvlink > 0
    assert gb200.cost.scaleup_capex_usd == pytest.approx(nvlink)
    fabric = sum(r.extended_price_usd for r in gb200.bom if r.network == "compute"
                 and r.category in ("NIC", "switch", "transceiver", "cable") and not r.management)  # UFM links not
    assert gb200.cost.network_capex_usd == pytest.approx(fabric)  # the figure itself is unchanged
    card = next(k for k in key_numbers(gb200.summary()) if k.key == "capex_fabric")
    assert card.label == "Capex, compute fabric and NVLink level 2"
    assert usd(fabric - nvlink) in card.help and usd(nvlink) in card.help
    assert cli_main(["plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144"]) in (0, None)
    assert f"(of which NVLink level 2 {usd(nvlink)})" in capsys.readouterr().out  # the card's money
    assert cli_main(["plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144", "--format",
                     "json"]) in (0, None)
    assert json.loads(capsys.readouterr().out)["cost"]["scaleup_capex_usd"] == pytest.approx(nvlink, abs=0.01)


def test_the_fabric_share_names_the_nvlink_level_2_as_the_capex_card_does(gb200):
    from core.figures.keynumbers import cost_key_numbers

    share = next(k for k in cost_key_numbers(gb200) if k.key == "network_share")
    assert share.label == "Compute fabric and NVLink level 2 share of capex" and "second NVLink level" in share.help
    assert share.value == f"{gb200.cost.network_share:.1%}"
    flat = next(k for k in cost_key_numbers(plan(Design(gpu="H100", nodes=64))) if k.key == "network_share")
    assert flat.label == "Compute fabric share of capex"


def test_the_level2_modules_are_transceivers_on_every_surface(gb200, capsys):
    modules = sum(r.quantity for r in gb200.bom if r.category == "transceiver" and "NVLink level 2" in r.item)
    assert modules == 2 * DOMAINS * CABLES  # two 1.6T OSFP modules per 4-NVLink cable
    scaleout = sum(r.quantity for r in gb200.bom if r.category == "transceiver" and "NVLink" not in r.item
                   and r.network == "compute" and r.end and not r.spare)
    counts = gb200.transceiver_counts()
    assert counts["switch_side"] + counts["node_side"] == scaleout + modules
    card = next(k for k in key_numbers(gb200.summary()) if k.key == "transceivers")
    assert card.value == f"{scaleout + modules:,}" and f"of which NVLink level 2 {modules:,}" in card.help
    assert cli_main(["plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144"]) in (0, None)
    assert f"node side {counts['node_side']:,}; of which NVLink level 2 {modules:,}" in capsys.readouterr().out
    compute = gb200.networks_summary()["compute"]  # By network: the compute network's transceivers hold them
    assert compute["transceivers"] == sum(r.quantity for r in gb200.bom if r.category == "transceiver"
                                          and r.network == "compute" and not r.spare) >= scaleout + modules
    fibres = [r for r in gb200.bom if r.category == "cable" and "NVLink level 2" in r.item]
    assert [r.catalog_id for r in fibres] == ["NVLINK5-FIBER"] and fibres[0].unit_power_w == 0


def test_links_and_transceivers_cards_count_the_level2_alike(gb200, capsys):
    """One scope for both cards (review46 finding 3): the Transceivers card holds the 5,184 level-2 modules, so the
    Links card holds their 2,592 cables: 576 node-leaf + 672 leaf-spine + 2,592 = 3,840 links, each card saying the
    level-2 part; the By network table's compute row adds the UFM appliances' 4 to both; Compare reads the same."""
    from core.analysis.compare import key_values

    s = gb200.summary()
    assert s["links"] == {"node_leaf": 576, "leaf_spine": 672, "spine_core": 0, "nvlink_level2": DOMAINS * CABLES}
    cables = next(r for r in gb200.bom if r.category == "cable" and "NVLink level 2" in r.item).quantity
    assert cables == DOMAINS * CABLES == 2592
    cards = {k.key: k for k in key_numbers(s)}
    assert cards["links"].value == "3,840" and "; NVLink level 2 2,592 (its optical cables, included)" in cards["links"].help
    assert cards["transceivers"].value == "6,732" and "of which NVLink level 2 5,184" in cards["transceivers"].help
    for card in ("links", "transceivers"):  # the UFM appliances' 4 stay outside both cards, inside By network
        assert "not counted: the UFM appliances' 4" in cards[card].help
    compute = s["networks"]["compute"]
    assert (compute["links"], compute["transceivers"]) == (3840 + 4, 6732 + 4)
    assert (key_values(s)["links"], key_values(s)["transceivers"]) == (3840, 6732)
    assert cli_main(["plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144"]) in (0, None)
    assert "spine-core 0; NVLink level 2 2,592 (its optical cables, included)" in capsys.readouterr().out
    one = plan(Design(gpu="H100", nodes=64)).summary()  # one level: nothing added
    assert "nvlink_level2" not in one["links"] and "NVLink level 2" not in next(
        k for k in key_numbers(one) if k.key == "links").help


def test_a_design_with_one_nvlink_level_keeps_the_plain_card():
    p = plan(Design(gpu="H100", nodes=64))
    assert p.cost.scaleup_capex_usd == 0
    card = next(k for k in key_numbers(p.summary()) if k.key == "capex_fabric")
    assert card.label == "Capex, compute fabric"


def test_batch_note_states_the_rounding_of_the_default_global_batch(gb200):
    # 576 GPUs / (tp 8 x pp 4 x cp 1) = dp 18; 1,024 / 18 = 56.9, so 57 x 18 = 1,026
    settings = {"gbs": 1026, "mbs": 1, "tp": 8, "pp": 4, "cp": 1, "tg": 0}
    assert batch_note(gb200, settings) == (
        "Global batch 1,026 = 57 x micro-batch 1 x dp 18: the default 1,024 is not a multiple of micro-batch x "
        "data-parallel size (18), so it is rounded up to the next one.")
    assert batch_note(gb200, {**settings, "gbs": 1008}) == ""  # the user's own multiple: nothing to say
    assert batch_note(gb200, {**settings, "gbs": 1024, "tp": 4, "pp": 9}) == ""  # dp 16 divides 1,024


def test_performance_page_states_the_rounding():
    from tests.pagetest import open_page

    at = open_page("../pages/3_Performance.py", {"v": "1", "g": "GB200-NVL72", "n": "144", "nvd": "144",
                                                  "lang": "en"}, timeout=600)
    assert not at.error
    gbs = at.number_input(key="perf_w_gbs").value if any(n.key == "perf_w_gbs" for n in at.number_input) else None
    captions = " ".join(c.value for c in at.caption).replace("\\", "")  # the page escapes Markdown
    assert "the default 1,024 is not a multiple of micro-batch x data-parallel size" in captions
    if gbs is not None:
        assert f"Global batch {gbs:,} = " in captions


def test_whatif_note_says_the_nvlink_capex_per_gpu(gb200):
    from core.figures.keynumbers import whatif_capex_note

    # 72 level-2 trays x $60,000 + 5,184 modules x $1,740 + 2,592 fibres x $120 = $13,651,200 over 576 GPUs
    trays = next(r for r in gb200.bom if r.category == "switch" and "NVLink level 2" in r.item)
    modules = next(r for r in gb200.bom if r.category == "transceiver" and "NVLink level 2" in r.item)
    cables = next(r for r in gb200.bom if r.category == "cable" and "NVLink level 2" in r.item)
    per_gpu = sum(r.quantity * r.unit_price_usd for r in (trays, modules, cables)) / 576
    assert (trays.quantity, modules.quantity, cables.quantity) == (72, 5184, 2592)
    assert per_gpu * 576 == pytest.approx(72 * 60_000 + 5184 * 1740 + 2592 * 120)
    assert usd(per_gpu) in whatif_capex_note(gb200)
    assert whatif_capex_note(plan(Design(gpu="H100", nodes=64))) == ""


def test_designer_bandwidth_tab_says_the_nvlink_capex_under_the_whatif():
    from streamlit.testing.v1 import AppTest

    from tests.pagetest import ENTRY

    at = AppTest.from_file(ENTRY, default_timeout=600)
    at.query_params.update({"v": "1", "g": "GB200-NVL72", "n": "144", "nvd": "144", "tab": "Bandwidth", "lang": "en"})
    at.run()
    assert not at.exception and not at.error
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    assert ("The compute fabric and NVLink level 2 capex per GPU includes the second NVLink level's switch units and "
            "cables") in captions


def test_the_whatif_names_its_capex_as_the_cards_do(gb200):
    """The leaf what-if's capex per GPU holds the second NVLink level's parts: its table header, the chart's trace and
    axis name them as the capex card does (``compute fabric and NVLink level 2``), in both languages; a one-level
    design keeps ``compute fabric``."""
    from core import vocab
    from core.analysis.whatif import oversubscription_sweep, sweep_display_table
    from core.figures.bandwidth import oversubscription_figure
    from core.i18n import _, language

    sweep = oversubscription_sweep(GB200, (1.0, 2.0))
    flat = oversubscription_sweep(Design(gpu="H100", nodes=64), (1.0, 2.0))
    for lang in ("en", "zh"):
        with language(lang):
            both, alone = vocab.compute_fabric("word", True), vocab.compute_fabric("word", False)
            assert any(both in c for c in sweep_display_table(sweep, "GB/s").columns)
            fig = oversubscription_figure(sweep, 1.0)
            assert both in fig.data[1].name and fig.layout.yaxis2.title.text == _("per GPU [USD]")  # fits the axis
            columns = sweep_display_table(flat, "GB/s").columns
            assert any(alone in c for c in columns) and not any(both in c for c in columns)
            assert alone in oversubscription_figure(flat, 1.0).layout.yaxis2.title.text


def test_the_cost_cards_helps_name_and_write_their_figures_as_the_other_cards(gb200):
    """The Capex range card's help names the fabric's range as the share card names the fabric (``compute fabric and
    NVLink level 2``, not "network"); the Energy card's help writes the facility power in the one power format, as
    the IT power card's help beside it (``1.64 MW``, not ``1,643 kW``)."""
    from core import units
    from core.figures.keynumbers import cost_key_numbers, key_numbers

    cards = {k.key: k for k in cost_key_numbers(gb200)}
    span = f"{usd(gb200.cost.network_capex_usd_low)} to {usd(gb200.cost.network_capex_usd_high)}"
    assert f"; compute fabric and NVLink level 2 {span}" in cards["capex_range"].help, cards["capex_range"].help
    facility = units.power(gb200.cost.facility_kw)
    assert facility.endswith(" MW") and f"facility {facility} x 8,760 h" in cards["energy"].help, cards["energy"].help
    it = next(k for k in key_numbers(gb200.summary()) if k.key == "it_power")
    assert f"facility {facility}" in it.help
    flat = {k.key: k for k in cost_key_numbers(plan(Design(gpu="H100", nodes=4)))}
    assert "; compute fabric $" in flat["capex_range"].help and "facility 68.8 kW x 8,760 h" in flat["energy"].help
