"""The as-built check of a design with pods against the real tools: the whole fabric's ibsim net file
(``core.formats.podibsim``), Debian's ``ibsim`` simulating it and the real ``ibnetdiscover`` discovering it; the
check (``core.formats.podverify``) compares it with every pod and the shared spines. Skipped without the tools
outside CI, as ``tests/test_verify_ibsim.py``."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from core.formats.podverify import verify_pods
from core.analysis.whole import design_mixed
from core.design import Design
from core.formats.ibnetdiscover import read_ibnetdiscover
from core.formats.podibsim import write_mixed_ibsim
from tests.ibsimtools import needed_tools
from tests.test_verify_ibsim import _discover, _records, _set, _write

DESIGN = Design(gpu="H100", nodes=64, pods="B200:32:800")
"""64 DGX H100 and 32 DGX B200 at 800G under 8 shared spines: 1,536 links."""


def _net(tmp_path: Path) -> tuple:
    tools = needed_tools()
    mixed = design_mixed(DESIGN)
    buffer = io.StringIO()
    write_mixed_ibsim(mixed, buffer)
    text = buffer.getvalue()
    return tools, mixed, text, re.search(r"# run: (.*)", text)[1]


@pytest.mark.slow
def test_a_healthy_whole_fabric_verifies_clean(tmp_path: Path):
    tools, mixed, text, command = _net(tmp_path)
    net = tmp_path / "net"
    net.write_text(text)
    found = read_ibnetdiscover(_discover(net, command, tools, tmp_path).encode())
    out = verify_pods(mixed, found, skip_speed=True)  # Debian's ibsim brings NDR and XDR links up at its default
    assert out["coverage"]["planned_links"] == out["coverage"]["matched_links"] == len(found) == 1536
    assert not out["missing"] and not out["extra"] and not out["miswired"] and not out["fixes"]
    assert out["impact"]["gpus_cut_off"] == 0 and out["impact"]["spine_gbps_lost"] == 0


@pytest.mark.slow
def test_a_removed_cable_and_spine_are_reported_with_the_wirings_names(tmp_path: Path):
    """Pod 2's leaf 2 loses its first cable to spine001, and spine008 is taken out: 1 + 24 x 4 cables missing (pod
    1's 16 leaves and pod 2's 8, 4 cables each to every spine), each named by the wiring's ids and the exports'
    names, priced on the whole fabric."""
    tools, mixed, text, command = _net(tmp_path)
    records = _records(text)
    leaf = next(h for h in records if h.endswith('"pod2-leaf002"'))
    line = next(x for x in records[leaf] if '"spine001"' in x)
    port, spine_port = re.match(r'\[(\d+)\]\t"spine001"\[(\d+)\]', line).groups()
    _set(records, "pod2-leaf002", int(port), None)
    _set(records, "spine001", int(spine_port), None)
    del records[next(h for h in records if h.endswith('"spine008"'))]
    for header, lines in records.items():
        records[header] = [x for x in lines if '"spine008"' not in x]
    net = tmp_path / "net"
    _write(records, net)
    found = read_ibnetdiscover(_discover(net, command, tools, tmp_path).encode())
    out = verify_pods(mixed, found, skip_speed=True)
    assert not out["extra"] and not out["miswired"]
    missing = [(f["planned"]["a"], f["planned"]["b"], f["planned"]["a_name"], f["planned"]["b_name"],
                f["planned"]["pod"]) for f in out["missing"]]
    assert len(missing) == 1 + 24 * 4
    assert ("pod2.p0.leaf1", "spine0", "pod2-leaf002", "spine001", 2) in missing
    assert sum(1 for m in missing if m[1] == "spine7" and m[3] == "spine008") == 96
    assert {m[4] for m in missing if m[1] == "spine7"} == {1, 2}
    assert out["coverage"]["matched_links"] == 1536 - 97
    one = next(f for f in out["missing"] if f["planned"]["b"] == "spine0")
    assert one["failure_spec"].startswith("pod2.p0.leaf1-spine0#") and one["impact"]["gpus_cut_off"] == 0
    assert 0 < one["impact"]["spine_gbps_lost"] < out["impact"]["spine_gbps_lost"]
    busiest = out["impact"]["busiest_link"]
    assert busiest["tier"] == "leaf_spine" and busiest["utilisation"] > busiest["healthy_utilisation"]
    assert out["fixes"][0]["spine_gbps_back"] > 0
    assert out["summary"]["per_leaf"]["pod2-leaf002"] == 1 + 4 and out["summary"]["per_rack"]
