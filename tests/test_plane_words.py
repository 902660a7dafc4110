"""Words of designs on several planes or islands (per-rail planes, rail-only rails) say every plane's count where
the number is every plane's: the bill's switch rows, the CLI's islands line, the drawings' captions and labels."""

from __future__ import annotations

import math
import re

import pytest

from core.design import Design
from core.plan import plan


def _product(why: str) -> int:
    """The product of a bill row's ``A SU x B rails x C planes`` words (the numbers joined by `` x ``)."""
    head = why.split(":")[0].split("=")[0]
    return math.prod(int(n.replace(",", "")) for n in re.findall(r"(\d[\d,]*) (?:SU|rails|planes|pods|spines|"
                                                                 r"core groups|cores)\b", head))


@pytest.mark.parametrize("extra, rows", [
    ({"planes": 2, "plane_mode": "per-rail"}, {"leaf": (16, "2 SU x 4 rails x 2 planes = 16")}),
    ({"planes": 2, "plane_mode": "per-rail", "nodes": 512, "tiers": 3},
     {"leaf": (128, "16 SU x 4 rails x 2 planes = 128"), "spine": (128, "2 pods x 32 spines x 2 planes = 128"),
      "core": (64, None)}),
    ({"planes": 2, "plane_mode": "per-rail", "topology": "top-of-rack"},
     {"leaf": (32, "ceil(64 nodes / 4 per leaf) x 2 planes = 32")}),
    ({"planes": 2, "plane_mode": "per-rail", "nodes": 16}, {"leaf": (2, "1 switch per plane holds all 64 NIC "
                                                                      "ports: 1 x 2 planes = 2")}),
    ({"topology": "rail-only"}, {"leaf": (8, "1 switch per rail holds all 64 NIC ports of its rail: 1 x 8 rails = 8")}),
])
def test_bill_switch_rows_count_every_plane(extra, rows):
    """Hand counts: per-rail 2 planes of 64 H100 nodes = 2 SU x 4 rails in each plane = 16 leaves (the review's
    F11: the row said "2 SU x 4 rails" = 8 beside 16); a one-tier rail-only fabric buys one switch per rail (8 x 64
    ports for 64 nodes x 8 NICs), not one."""
    p = plan(Design(**{"gpu": "H100", "nodes": 64, **extra}))
    got = {r.item.rsplit("(", 1)[1].rstrip(")"): (r.quantity, r.why) for r in p.bom
           if r.category == "switch" and r.network == "compute"}
    for role, (quantity, why) in rows.items():
        assert got[role][0] == quantity, got
        if why is not None:
            assert got[role][1] == why, got[role]
        if "ceil" not in got[role][1] and "holds" not in got[role][1]:
            assert _product(got[role][1]) == quantity, got[role]


def test_pods_per_rail_bill_rows_count_every_plane(capsys):
    """Pods on per-rail planes: each pod's leaf row says its planes (QM9700 16 = 2 SU x 4 rails x 2 planes,
    Q3400 8 = 1 SU x 4 rails x 2 planes)."""
    from conftest import run_cli
    code, out, _err = run_cli(capsys, "plan", "--nodes", "64", "--pods", "B200:32:800", "--planes", "2",
                              "--plane-mode", "per-rail", "--format", "csv")
    assert code in (0, None)
    leaves = [line for line in out.splitlines() if "(leaf)" in line and line.startswith("switch,")]
    assert any(",16," in x and "2 SU x 4 rails x 2 planes" in x for x in leaves), leaves
    assert any(",8," in x and "1 SU x 4 rails x 2 planes" in x for x in leaves), leaves


def test_cli_islands_line_of_per_rail_planes_counts_fabrics_in_all(capsys):
    """Per-rail planes: each plane is one fabric, so 2 planes are 2 fabrics in all (the review's F21: "2 independent
    fabrics per plane"); rail-only's rails are still islands of each plane."""
    from conftest import run_cli
    _code, out, _err = run_cli(capsys, "plan", "--nodes", "64", "--planes", "2", "--plane-mode", "per-rail")
    line = next(x for x in out.splitlines() if x.startswith("islands"))
    assert "2 independent fabrics in all, one per plane (per-rail planes)" in line, line
    _code, out, _err = run_cli(capsys, "plan", "--nodes", "64", "--topology", "rail-only")
    line = next(x for x in out.splitlines() if x.startswith("islands"))
    assert "8 independent fabrics per plane (rail-only)" in line, line


@pytest.mark.parametrize("gpu", ["H100", "B200"])
def test_scaleup_caption_names_the_designs_planes(gpu):
    """The scale-up drawing's caption of a per-rail 2-plane design says 2 planes of 4 NICs (the review's F2: "(1
    plane)"); a one-plane design still says 1 plane."""
    from core.figures import scaleup_figure
    rail = scaleup_figure(plan(Design(gpu=gpu, nodes=64, planes=2, plane_mode="per-rail")))
    text = " ".join(a.text for a in rail.layout.annotations).replace("<br>", " ")
    assert "per node (2 planes, 4 NICs in each)" in text, text
    one = scaleup_figure(plan(Design(gpu=gpu, nodes=64)))
    assert "per node (1 plane)" in " ".join(a.text for a in one.layout.annotations).replace("<br>", " ")


def _figure_text(fig) -> str:
    return fig.to_json().replace("\\u002f", "/").replace("\\u003cbr\\u003e", " ")


def test_per_rail_drawing_names_rails_by_the_nics_the_cabling_plan_wires():
    """Per-rail 2 planes: plane 1's rails carry NICs 1, 3, 5, 7 (``cabling``: gpu001 nic1/nic3/nic5/nic7 ->
    r1-leaf001..004), plane 2's NICs 2, 4, 6, 8; the drawing's colour key and leaf hover say so (the review's F23:
    "rail: 1 2 3 4"). With pods, plane 1 alone is drawn: 1, 3, 5, 7."""
    from core.figures import topology_figure
    text = _figure_text(topology_figure(plan(Design(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"))))
    text = text.replace("\\u00a0", " ")  # a no-break space glues "plane 1 / 2" and a dot to its NICs (one line)
    assert "the NIC it carries in planes 1 / 2:" in text and "&#9679;</span> 7 / 8" in text.replace("\\u003c", "<").\
        replace("\\u003e", ">"), text[:3000]
    assert "plane 1, NIC 3 of every node" in text and "plane 2, NIC 4 of every node" in text
    pods = _figure_text(topology_figure(plan(Design(gpu="H100", nodes=64, pods="B200:32:800", planes=2,
                                                    plane_mode="per-rail")))).replace("\\u003c", "<").\
        replace("\\u003e", ">").replace("\\u00a0", " ")
    assert "the NIC it carries in plane 1" in pods and "&#9679;</span> 7</sup>" in pods
    one = _figure_text(topology_figure(plan(Design(gpu="H100", nodes=64))))
    assert "colour = rail:" in one and "NIC it carries" not in one


def test_one_plane_words_say_no_plane_count(capsys):
    """One plane: no "plane 1 of 1" in the drawing's title, no "(all planes)" on the classic Dragonfly links row;
    Kim et al.'s bound reads "a·h + 1" (the review's F5). Per-rail planes, all drawn, say so."""
    from conftest import run_cli
    from core.figures import topology_figure
    assert topology_figure(plan(Design(gpu="H100", nodes=64))).layout.title.text.startswith("Scale-out fabric: 2 tiers")
    rail = topology_figure(plan(Design(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"))).layout.title.text
    assert rail.startswith("Scale-out fabric, all 2 planes: 2 tiers"), rail
    _code, out, _err = run_cli(capsys, "plan", "--topology", "classic-dragonfly", "--gpus", "4096")
    links = next(x for x in out.splitlines() if x.startswith("links"))
    assert links.endswith("global 2,072"), links
    assert "at most a·h + 1 = 545 groups" in out


def test_one_plane_clos_links_exports_say_no_plane_count():
    """One plane: the Links card adds no "(all planes)", the draw.io title no "plane 1 of 1", and the draw.io and
    Slurm headers count tiers and planes in words ("2 tiers", "1 plane"), never "(s)"; two planes say both."""
    import io

    from core.fabric.naming import naming_scheme
    from core.figures import keynumbers as kn
    from core.formats.drawio import write_drawio
    from core.formats.slurm import write_tree_conf

    def texts(p):
        card = {k.key: k for k in kn.key_numbers(p.summary())}["links"].help
        drawio, slurm = io.StringIO(), io.StringIO()
        write_drawio(p, drawio, naming_scheme())
        write_tree_conf(p, slurm, naming_scheme())
        return card, drawio.getvalue(), slurm.getvalue()

    card, drawio, slurm = texts(plan(Design(gpu="H100", nodes=64)))
    assert card.startswith("node-leaf 512, leaf-spine 512, spine-core 0") and "all planes" not in card, card
    assert "rail-optimized, 2 tiers&lt;br&gt;" in drawio and "plane 1 of" not in drawio and "(s)" not in drawio
    assert "rail-optimized · 2 tiers · 1 plane · switch QM9700" in slurm and "(s)" not in slurm
    card, drawio, slurm = texts(plan(Design(gpu="H100", nodes=64, planes=2, nic="BF3-DPU")))  # 2 ports a NIC
    assert "(all planes)" in card and "2 tiers: plane 1 of 2" in drawio and "2 tiers · 2 planes" in slurm


def test_per_rail_colour_key_never_breaks_inside_a_plane_or_a_rail():
    """The per-rail colour key wrapped at any width (the Designer at 1,024 px): "1 / 2" and each dot with its NICs
    stay on one line (glued by no-break spaces), in both languages."""
    from core.figures.style import wrap_title
    from core.figures.topology import _subtitle
    from core.i18n import language

    for lang in ("en", "zh"):
        with language(lang):
            sub = _subtitle("Every switch drawn", 4, planes=2)
        for width in range(20, 90, 3):
            lines = wrap_title(sub[4:], width)[0].replace("\u00a0", " ").split("<br>")
            assert not any(line.replace("</sup>", "").rstrip().endswith(("/", "&#9679;</span>"))
                           for line in lines), (lang, width, lines)
            assert sum(line.count("1 / 2") for line in lines) == 2, (lang, width, lines)  # planes and rail 1


def test_per_rail_planes_count_the_nics_in_each():
    """8 CX7 per node over 8 per-rail planes: one NIC in each (not "1 NICs"); over 2 planes four."""
    from core.figures.scaleup import _scaleout_line
    one = plan(Design(gpu="H100", nodes=64, topology="rail-only", planes=8, plane_mode="per-rail"))
    assert _scaleout_line(one, False) == "Scale-out: 8 x CX7 at 400G per node (8 planes, 1 NIC in each)"
    four = plan(Design(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"))
    assert _scaleout_line(four, False) == "Scale-out: 8 x CX7 at 400G per node (2 planes, 4 NICs in each)"


def test_no_core_layer_no_core_model_and_ratios_without_units():
    """A two-tier design's core card says there is no core layer (the review's F16: "0 Q3400 core switches, all 2
    planes"); a one-plane torus's capacity chart does not say "all planes"; the NVLink : scale-out ratio has no
    unit ("bits")."""
    from core.fabric.bandwidth import tier_capacities_gbits
    from core.fabric.families import words
    from core.figures import keynumbers as kn, tier_capacity_figure
    rail = plan(Design(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"))
    cards = {k.key: k for k in kn.key_numbers(rail.summary())}
    assert cards["switches_core"].value == "0"
    assert cards["switches_core"].help == "none: no core layer in 2 tiers; 24 switches in all", cards["switches_core"]
    assert cards["switches_spine"].help.startswith("8 QM9700 spine switches, all 2 planes")
    torus = plan(Design(topology="torus", gpus=512))
    title = tier_capacity_figure(torus, tier_capacities_gbits(torus.resolved, torus.fabric)).layout.title.text
    assert "all planes" not in title and title.startswith("Capacity per tier, one direction"), title
    title = tier_capacity_figure(rail, tier_capacities_gbits(rail.resolved, rail.fabric)).layout.title.text
    assert title.startswith("Capacity per tier, all planes"), title
    for key in ("readout:bandwidth", "report:readout:bandwidth"):
        assert "bits" not in words("torus", key, ""), key
