"""The monitoring checklist as Prometheus alert rules (core/formats/prometheus.py), checked by the real promtool:
``promtool check rules`` reads every file, and ``promtool test rules`` feeds series named as the exporters name
them and checks that an alert fires for the design's devices, and only for them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from core.analysis.monitoring import RULE_NOTES, all_checks, checklist, exporters
from core.design import Design
from core.fabric.naming import Namer, NamingScheme
from core.formats import prometheus
from core.formats.exports import export_text
from core.i18n import language
from core.plan import plan

DESIGNS = {
    "ib-2tier": Design(gpu="H100", gpus=1024),
    "ib-3tier": Design(gpu="H100", gpus=16_384),
    "roce-2planes": Design(gpu="B300", nodes=300, fabric="ethernet", port_speed_gbps=400, switch="TH5", planes=2),
    "per-rail-islands": Design(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"),
    "nvl72": Design(gpu="GB200-NVL72", gpus=1152),
}


def _promtool() -> str:
    found = shutil.which("promtool")
    if not found:
        pytest.skip("promtool not installed (make promtool)")
    return found


def _rules(tmp_path: Path, name: str, design: Design, naming: NamingScheme | None = None, lang: str = "en") -> Path:
    with language(lang):
        text = export_text(plan(design), "prometheus", naming)
    path = tmp_path / f"{name}.yml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", DESIGNS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_promtool_reads_every_rules_file(tmp_path, name, lang):
    path = _rules(tmp_path, name, DESIGNS[name], lang=lang)
    out = subprocess.run([_promtool(), "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    groups = yaml.safe_load(path.read_text(encoding="utf-8"))["groups"]
    rules = [r for g in groups for r in g["rules"]]
    assert f"SUCCESS: {len(rules)} rules found" in out.stdout
    assert len({r["alert"] for r in rules}) == len(rules)  # one name per alert


def test_every_checklist_row_is_a_rule_or_said_to_be_uncovered():
    for design in DESIGNS.values():
        p = plan(design)
        rows = checklist(p)
        alerts = prometheus.alerts(p)
        gaps = {check_id: tiers for check_id, tiers, _counter in prometheus.uncovered(p)}
        for row in rows:
            covered = {t for a in alerts if a["labels"]["check"] == row["id"] for t in a["labels"]["tier"].split(",")}
            assert set(row["tiers"]) == covered | set(gaps.get(row["id"], ())), row["id"]
        text = export_text(p, "prometheus")
        for check_id in gaps:
            assert f"#   - {check_id} (" in text


def test_rules_data_is_complete():
    for check in all_checks():
        for rule in check.rules:
            assert rule.exporter in exporters()
            assert set(rule.tiers) <= set(check.tiers), check.id
            assert rule.expr.count("SCOPE") >= 1 and (not rule.note or rule.note in RULE_NOTES), check.id


def _names(design: Design, naming: NamingScheme | None = None) -> dict[str, str]:
    namer = Namer.of(plan(design), naming)
    return {"node": namer.node(0), "leaf": namer.switch("leaf", 1, 0, 0), "spine": namer.switch("spine", 0, 0, 0)}


def expected(alert: dict, labels: dict, device: str) -> dict:
    """What promtool must see of ``alert`` firing on ``device``: its labels plus the series', its summary with the
    device's name in place of the label template."""
    summary = re.sub(r"\{\{ \$labels\.\w+ \}\}", device, alert["annotations"]["summary"])
    return {"exp_labels": {**alert["labels"], **labels},
            "exp_annotations": {**alert["annotations"], "summary": summary}}


def _unit_test(tmp_path: Path, rules: Path, series: list[dict], alerts: list[dict]) -> subprocess.CompletedProcess:
    spec = {"rule_files": [str(rules)], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": series, "alert_rule_test": alerts}]}
    path = tmp_path / "test.yml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    return subprocess.run([_promtool(), "test", "rules", str(path)], capture_output=True, text=True, timeout=60)


def test_alerts_fire_for_the_designs_devices_only(tmp_path):
    """Series as the exporters publish them: the planned GPU host and leaf alert, a device outside the design
    (a storage host, another cluster's switch) does not."""
    design = DESIGNS["ib-2tier"]
    rules = _rules(tmp_path, "ib", design)
    names = _names(design)
    texts = {a["alert"]: a for a in prometheus.alerts(plan(design))}
    series = [
        {"series": f'DCGM_FI_DEV_XID_ERRORS{{Hostname="{names["node"]}",gpu="3"}}', "values": "0 0 79 79"},
        {"series": 'DCGM_FI_DEV_XID_ERRORS{Hostname="storage01",gpu="0"}', "values": "0 0 79 79"},
        {"series": f'infiniband_switch_info{{guid="0x1",switch="{names["leaf"]}"}}', "values": "1x70"},
        {"series": 'infiniband_switch_info{guid="0x2",switch="other-leaf01"}', "values": "1x70"},
        {"series": 'infiniband_switch_port_symbol_error_total{guid="0x1",port="7"}', "values": "0+1x70"},
        {"series": 'infiniband_switch_port_symbol_error_total{guid="0x2",port="7"}', "values": "0+1x70"},
        {"series": f'node_infiniband_link_downed_total{{instance="{names["node"]}:9100",device="mlx5_0",port="1"}}',
         "values": "0 0 1 1 1"},
    ]
    xid, sym, down = texts["GpuXid"], texts["IbSymbolErrorsSwitch"], texts["IbLinkDownNode"]

    alerts = [
        {"eval_time": "3m", "alertname": "GpuXid",
         "exp_alerts": [expected(xid, {"Hostname": names["node"], "gpu": "3"}, names["node"])]},
        {"eval_time": "30m", "alertname": "IbSymbolErrorsSwitch",
         "exp_alerts": [expected(sym, {"guid": "0x1", "port": "7", "switch": names["leaf"]}, names["leaf"])]},
        {"eval_time": "4m", "alertname": "IbLinkDownNode",
         "exp_alerts": [expected(down, {"instance": f'{names["node"]}:9100', "device": "mlx5_0", "port": "1"},
                                 f'{names["node"]}:9100')]},
    ]
    out = _unit_test(tmp_path, rules, series, alerts)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_naming_scheme_and_planes_scope_the_rules(tmp_path):
    """RoCE on two planes under a custom scheme: the plane-2 leaf and the renamed host alert; the default names
    (another cluster planned with defaults) do not."""
    design = DESIGNS["roce-2planes"]
    scheme = NamingScheme(node_prefix="b300-", switch_prefix="sw-")
    rules = _rules(tmp_path, "roce", design, scheme)
    namer = Namer.of(plan(design), scheme)
    host, leaf = namer.node(11), namer.switch("leaf", 3, 1, 0)
    assert leaf.startswith("sw-p2-leaf")
    series = [
        {"series": f'ifOperStatus{{instance="{leaf}",ifName="Ethernet8"}}', "values": "1 1 2 1 1"},
        {"series": 'ifOperStatus{instance="leaf004",ifName="Ethernet8"}', "values": "1 1 2 1 1"},
        {"series": f'node_ethtool_link_down_events_phy{{instance="{host}.dc1:9100",device="eth2"}}', "values": "0 0 1 1"},
        {"series": 'node_ethtool_link_down_events_phy{instance="gpu012:9100",device="eth2"}', "values": "0 0 1 1"},
    ]
    texts = {a["alert"]: a for a in prometheus.alerts(plan(design), scheme)}
    switch, node = texts["EthLinkDownSwitch"], texts["EthLinkDownNode"]
    alerts = [
        {"eval_time": "4m", "alertname": "EthLinkDownSwitch",
         "exp_alerts": [expected(switch, {"instance": leaf, "ifName": "Ethernet8"}, leaf)]},
        {"eval_time": "3m", "alertname": "EthLinkDownNode",
         "exp_alerts": [expected(node, {"instance": f"{host}.dc1:9100", "device": "eth2"}, f"{host}.dc1:9100")]},
    ]
    out = _unit_test(tmp_path, rules, series, alerts)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_file_is_deterministic_and_english_in_every_language():
    """The rules are a file machines read: English from the Chinese page as from the CLI in any ``--lang``
    (``core.formats.exports.FILE_LANGUAGE``, as draw.io and ASTRA-sim); they followed the page's language."""
    p = plan(DESIGNS["ib-2tier"])
    english = export_text(p, "prometheus")
    assert english == export_text(p, "prometheus")
    with language("zh"):
        assert export_text(p, "prometheus") == english and "DCGM_FI_DEV_XID_ERRORS" in english
    assert yaml.safe_load(english)["groups"] and not re.search("[\u4e00-\u9fff]", english)


def test_non_nvidia_and_cloud_designs_write_no_dcgm_rule(tmp_path):
    """An MI300X design's file has no DCGM rule (its GPU rows are AMD's, listed as not covered) and passes promtool;
    an AWS EFA design writes no switch rule (the switches are the provider's)."""
    from core.presets import find_preset

    amd = Design(gpu="MI300X", gpus=512, fabric="ethernet")
    text = export_text(plan(amd), "prometheus")
    assert "DCGM_FI" not in text and "amd_ecc_uncorrectable (gpu)" in text
    path = tmp_path / "amd.yml"
    path.write_text(text)
    subprocess.run([_promtool(), "check", "rules", str(path)], check=True, capture_output=True)
    cloud = prometheus.alerts(plan(find_preset("aws-p5-efa").design))
    assert cloud and {a["group"] for a in cloud} <= {"gpu", "node"}


@pytest.mark.parametrize("lang, joined", [("en", "bandwidth down. These two fields"), ("zh", "带宽。这两个字段")])
def test_a_rules_note_is_a_sentence_of_the_description(lang, joined):
    """A rule's note follows the check's reason as a sentence of its own: capitalised and ended (``... down. These
    two fields ... enable them.``), joined as every caption joins sentences (``core.i18n.sentences``: no space after
    a Chinese full stop); it read ``... down. these two fields ... enable them``."""
    with language(lang):
        rules = prometheus.alerts(plan(DESIGNS["ib-2tier"]))
    nvlink = next(r for r in rules if r["labels"]["check"] == "gpu_nvlink_errors")["annotations"]["description"]
    assert joined in nvlink and nvlink.endswith(("enable them.", "。"))
    noted = [r["annotations"]["description"] for r in rules]
    assert all(not re.search(r"\. [a-z]|。 ", text) for text in noted)
