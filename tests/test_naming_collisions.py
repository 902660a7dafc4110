"""Names that cannot collide: under any naming settings, every export either is refused by the one check
(``core.fabric.naming.naming_scheme``) or names every device once.

``--node-prefix leaf`` wrote NetBox device files with 8, 32 or 128 duplicate names. Here hypothesis draws
prefixes (random ones and ones built from the names the exports use) over a few small designs (1, 2 and 3
tiers, two planes, with and without the storage and management networks), and each export of the registry
(``core.formats.exports``) is parsed for its device names: NetBox devices (unique, case-insensitively, as
NetBox compares), the Slurm topologies' switch, block and node names, GraphML node ids, draw.io cells, and the
devices and ports of the cabling plan and NetBox's interfaces and cables (as many distinct as under the default
names: two devices merged into one name would make fewer).
"""

from __future__ import annotations

import csv
import functools
import io
import re

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.errors import DesignError, InputError
from core.design import Design
from core.fabric.naming import NAME_LIMITS, NamingError, NamingScheme, naming_scheme
from core.formats.exports import export_text, exports
from core.formats.slurm import expand_hostlist
from core.plan import plan

DESIGNS = {
    "1 tier": Design(gpus=32, storage="none", management=False),
    "2 tiers": Design(gpus=256),
    "3 tiers": Design(gpus=1024, tiers=3, storage="none"),
    "2 planes": Design(gpus=64, planes=2, plane_mode="per-rail", management=False),
}
WORDS = ["gpu", "leaf", "spine", "core", "su", "pod", "nvl", "block", "spines", "cores", "pdu", "mgmt", "ufm",
         "head", "nfs", "storage", "array", "inband", "oob", "switch", "p1", "p2", "r1", "r2", "sw", "x", "Leaf"]
SEPARATORS = ["", "-", "_"]


@functools.cache
def _plan(name: str):
    return plan(DESIGNS[name])


@functools.cache
def _default(name: str, export: str) -> tuple[int, ...]:
    return _counts(export, _text(name, export, NamingScheme()))


def _text(name: str, export: str, scheme: NamingScheme) -> str | None:
    try:
        return export_text(_plan(name), export, scheme)
    except NamingError:
        raise
    except Exception as exc:  # an export that cannot express this design (e.g. SimAI of fewer NICs than GPUs)
        if isinstance(exc, (DesignError, InputError)):  # NotHandledError too (a design that builds)
            return None
        raise


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _slurm_names(text: str) -> list[str]:
    """Switch and block names, then the distinct node names, of a topology.conf or topology.yaml."""
    names, nodes = [], set()
    if text.lstrip().startswith("#") and "topology:" in text:
        for entry in yaml.safe_load(text):
            for switch in (entry.get("tree") or {}).get("switches", []):
                names.append(switch["switch"])
                nodes.update(expand_hostlist(switch.get("nodes", "")) if switch.get("nodes") else ())
            for block in (entry.get("block") or {}).get("blocks", []):
                names.append(block["block"])
                nodes.update(expand_hostlist(block.get("nodes", "")) if block.get("nodes") else ())
        return names + sorted(nodes)
    for line in text.splitlines():
        fields = dict(item.split("=", 1) for item in line.split() if "=" in item and not line.startswith("#"))
        for key in ("SwitchName", "BlockName"):
            if key in fields:
                names.append(fields[key])
        if "Nodes" in fields:
            nodes.update(expand_hostlist(fields["Nodes"]))
    return names + sorted(nodes)


def _names(export: str, text: str) -> list[str] | None:
    """The names that must all differ (one per device), or None where the format has no such list."""
    if export == "netbox-devices":
        return [row["name"] for row in _csv(text)]
    if export.startswith("slurm"):
        return _slurm_names(text)
    if export == "graphml":
        return re.findall(r'<node id="([^"]+)"', text)
    if export == "ibsim":  # one record per switch and per HCA ("gpu006 mlx5_2")
        return re.findall(r'^(?:Switch|Hca)\t\d+ "([^"]*)"', text, flags=re.M)
    return None


def _counts(export: str, text: str | None) -> tuple[int, ...]:
    """Distinct devices (and device ports) a format names: fewer than under the default names means a merge."""
    if text is None:
        return ()
    if export == "drawio":
        return (len(set(re.findall(r'<mxCell id="v\d+" value="([^"]*)"', text))),)
    if export == "prometheus":  # devices are named by a pattern per role, so the count is the alerts'
        return (text.count("- alert:"),)
    if export == "netbox-interfaces":
        rows = _csv(text)
        return len({r["device"].casefold() for r in rows}), len({(r["device"].casefold(), r["name"]) for r in rows})
    if export == "netbox-cables":
        rows = _csv(text)
        ends = {(r[f"side_{s}_device"].casefold(), r[f"side_{s}_name"]) for r in rows for s in "ab"}
        return len({d for d, _p in ends}), len(ends)
    if export == "cabling":
        rows = _csv(text)
        ends = {(r[f"{s}_device"].casefold(), r[f"{s}_port"]) for r in rows for s in "az"}
        return len({d for d, _p in ends}), len(ends)
    names = _names(export, text)
    return (len({n.casefold() for n in names}),) if names is not None else (len(text),)


prefixes = st.one_of(
    st.sampled_from(WORDS),
    st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,6}", fullmatch=True),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).flatmap(
        lambda words: st.sampled_from(SEPARATORS).map(lambda sep: sep.join(words))),
    st.builds(lambda w, d: f"{w}{d}", st.sampled_from(WORDS), st.sampled_from(["", "1", "0", "9", "-", "_"])),
    st.text(alphabet="ab -[],_9", max_size=5),
)


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(node=prefixes, switch=st.one_of(st.just(""), prefixes), digits=st.integers(1, 4),
       design=st.sampled_from(sorted(DESIGNS)))
@example(node="leaf", switch="", digits=3, design="2 tiers")  # the reported collision (NetBox devices)
@example(node="LEAF", switch="", digits=2, design="1 tier")  # NetBox compares names case-insensitively
@example(node="su", switch="", digits=3, design="2 tiers")  # Slurm's group switches
@example(node="pdu", switch="", digits=3, design="2 tiers")  # the management network's devices
@example(node="sw-spine", switch="sw-", digits=3, design="3 tiers")
@example(node="leaf1", switch="", digits=3, design="1 tier")  # leaf1 + 001 vs leaf + 1001: refused as a whole
def test_every_export_is_refused_or_names_every_device_once(node, switch, digits, design):
    try:
        scheme = naming_scheme(node, switch, digits, _plan(design))
    except NamingError:
        return  # refused as a whole, with a message naming the setting
    for export in exports():
        text = _text(design, export, scheme)
        if text is None:
            continue
        names = _names(export, text)
        if names is not None:
            folded = [n.casefold() for n in names]
            assert len(set(folded)) == len(folded), (export, scheme, sorted(n for n in set(folded)
                                                                            if folded.count(n) > 1)[:5])
            assert max(map(len, names)) <= min(NAME_LIMITS.values())
        assert _counts(export, text) == _default(design, export), (export, scheme)


@pytest.mark.parametrize("design", ["1 tier", "2 tiers", "3 tiers"])
def test_the_reported_prefix_is_refused_and_the_netbox_file_had_duplicates(design):
    """``--node-prefix leaf``: without the check the NetBox devices file names servers like the leaf switches.
    (Per-rail planes name their leaves ``r1-leaf001``: there ``leaf`` is a prefix like any other.)"""
    with pytest.raises(NamingError) as refused:
        naming_scheme("leaf", "", 3, _plan(design))
    assert refused.value.field == "node_prefix" and "leaf" in str(refused.value)
    unchecked = NamingScheme(node_prefix="leaf")
    from core.formats.netbox import devices
    from core.fabric import naming

    real = naming.check_names
    try:
        naming.check_names = lambda scheme, plan=None: None  # what the exports did before the check
        names = [row[0] for row in devices(_plan(design), unchecked)]
    finally:
        naming.check_names = real
    assert len(names) > len(set(names))  # the duplicates the check now prevents
    with pytest.raises(NamingError):
        export_text(_plan(design), "netbox-devices", unchecked)  # and no export writes them


def test_names_too_long_for_a_target_are_refused(monkeypatch):
    from core.fabric import naming

    monkeypatch.setitem(naming.NAME_LIMITS, "Slurm", 8)
    with pytest.raises(NamingError) as refused:
        naming_scheme("gpu", "sw-", 3, _plan("2 tiers"))
    assert "Slurm" in str(refused.value) and "8" in str(refused.value)
