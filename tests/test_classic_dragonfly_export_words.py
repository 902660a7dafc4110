"""A classic Dragonfly's exports call its routers routers (review48 #13): NetBox's role, the draw.io boxes and the
Slurm tree's comment, in English and Chinese; a folded Clos and a Dragonfly+ keep their leaves."""

from __future__ import annotations

import csv
import io

from core.design import Design
from core.formats.exports import export_text
from core.i18n import language
from core.plan import plan

DFC = Design(gpu="H100", gpus=4096, topology="classic-dragonfly")
DFP = Design(gpu="H100", gpus=4096, topology="dragonfly")
CLOS = Design(gpu="H100", nodes=64)


def _roles(p) -> dict[str, int]:
    rows = list(csv.DictReader(io.StringIO(export_text(p, "netbox-devices"))))
    out: dict[str, int] = {}
    for r in rows:
        out[r["role"]] = out.get(r["role"], 0) + 1
    return out


def test_netbox_roles():
    p = plan(DFC)
    roles = _roles(p)  # every router: 8 groups x 32 routers
    assert roles.get("Router") == p.fabric.leaf_count == 256 and "Leaf switch" not in roles
    assert _roles(plan(CLOS)).get("Leaf switch") == plan(CLOS).fabric.leaf_count
    assert _roles(plan(DFP)).get("Leaf switch") == plan(DFP).fabric.leaf_count


def test_drawio_and_slurm_words():
    p = plan(DFC)
    drawio = export_text(p, "drawio")
    assert "rail 1: 4 routers" in drawio and " leaves" not in drawio
    slurm = export_text(p, "slurm")
    assert "the rail\n# routers of one scalable unit" in slurm and "rail leaves" not in slurm.replace("\n# ", " ")
    plus = export_text(plan(DFP), "slurm")
    assert "the rail\n# leaves of one scalable unit" in plus
    with language("zh"):
        assert " leaves" not in export_text(p, "drawio")
