"""Prometheus alert rules for a planned design: the monitoring checklist as a rules file operators load.

Export (``core.formats.exports``): ``prometheus``, a Prometheus rule file (YAML, the format ``promtool check
rules`` reads: https://prometheus.io/docs/prometheus/latest/configuration/alerting_rules/) with one group per
place counters are read (``gpu``, ``node``, ``switch``) and one alert per rule of ``core.analysis.monitoring``
whose tiers the design has. Each rule's PromQL comes from ``assets/catalog/monitoring.toml`` with ``SCOPE``
replaced by its exporter's label matcher of the design's devices of those tiers: the regular expression of
their names under the user's naming scheme (``core.fabric.naming.Namer.pattern``), so an alert fires for the
planned servers and switches (``gpu001``, ``p2-leaf006``) and not for other devices the same Prometheus
watches. Labels: ``severity``, ``check`` (the checklist row's id), ``tier``; annotations: ``summary`` (counter
and threshold), ``description`` (why, and how the rule reads the counter), ``source``; in English whatever
the request's language, as every export (``core.formats.exports.FILE_LANGUAGE``). Rows (or tiers of a row) that no
open-source exporter publishes are listed in the header as not covered, with the counter to read from the vendor's
tools instead.

A design with pods (``core.analysis.pods``) is watched whole: each rule matches every pod's servers and leaves
under the pod's names (``pod2-gpu001``, ``pod2-leaf001``: ``core.formats.podslurm.pod_scheme``) where the rule
applies to the pod (its GPU maker, its NICs) and the shared spines (``spine001``), as every other export names
them (``members``).

Strings are written as JSON strings, which YAML reads as double-quoted scalars, so no name or text can break
the file. The output is deterministic (no date), so two exports of one design are the same bytes.
"""

from __future__ import annotations

import json
import re
from typing import Callable, NamedTuple, TextIO

from core import vocab
from core.analysis.monitoring import WHY, Rule, Scope, all_checks, exporters
from core.fabric.families import export_word
from core.fabric.naming import Namer, NamingScheme
from core.fabric.wiring import Wiring
from core.formats.exports import Export, in_file_language
from core.i18n import N_, _, as_sentence, sentences

KINDS = {"gpu": "gpu", "node": "node", "leaf": "switch", "spine": "switch", "core": "switch"}
"""Rule group of each tier: where the counter is read."""
ROLE_OF = {"gpu": "server", "node": "server", "leaf": "leaf", "spine": "spine", "core": "core"}
"""Whose names a tier's devices carry (a GPU and a node NIC are named by their server)."""
SEVERE = frozenset({"gpu_xid", "gpu_row_remap", "ib_link_down", "eth_link_down"})
"""Checks whose alert is ``critical`` (the job on the device fails or stalls); the others are ``warning``."""


def _text(value: str) -> str:
    """A YAML scalar: the JSON string of ``value`` (a double-quoted YAML scalar, any character escaped)."""
    return json.dumps(value, ensure_ascii=False)


def _tiers(plan, tiers: tuple[str, ...]) -> list[str]:
    """``tiers`` (checklist tier ids) as the ``tier`` label and the header say them: each in the family's export word
    (a classic Dragonfly's ``router``, as its switch names and NetBox role say)."""
    return [export_word(plan.fabric.family, tier, tier) for tier in tiers]


def _alert_name(check_id: str, kind: str) -> str:
    """``IbSymbolErrorsSwitch`` for check ``ib_symbol_errors`` read on switches; ``GpuXid`` for ``gpu_xid``."""
    parts = check_id.split("_")
    return "".join(part.capitalize() for part in parts + ([kind] if parts[0] != kind else []))


def _scope(rule: Rule, patterns: set[str]) -> str:
    """The exporter's label matcher of the devices whose names match one of ``patterns`` (regular expressions)."""
    names = sorted(patterns)
    regex = names[0] if len(names) == 1 else "(" + "|".join(names) + ")"
    return exporters()[rule.exporter].scope.replace("NAMES", regex.replace("\\", "\\\\"))


class Member(NamedTuple):
    """Devices the rules watch under one scope: a design's, or one pod's of a design with pods."""

    scope: Scope
    pattern: Callable[[str], str]
    """``pattern(role) -> str``: the regular expression of the names of the devices of ``role`` (``server``, a
    switch tier)."""


def members(plan, naming: NamingScheme | None = None) -> list[Member]:
    """The devices ``plan``'s rules watch: its own (``core.fabric.naming.Namer.pattern`` under ``naming``), or for
    a design with pods each pod's servers and leaves under the pod's names (``core.formats.podslurm.pod_scheme``)
    with its own scope (its GPU maker, NICs), and the shared spines (``core.formats.podnetbox.spine_names``); pods
    on three tiers: each pod's own spines under the pod's names too, and the shared cores under the design's."""
    from core.formats.podslurm import mixed_of, pod_scheme

    mixed = mixed_of(plan)
    if mixed is None:
        return [Member(Scope.of(plan, Wiring.of(plan).tiers), Namer.of(plan, naming).pattern)]
    tiers = mixed.fabric.tiers  # three: each pod's own spines under the shared cores (core.fabric.podcore)
    shared = "core" if tiers == 3 else "spine"
    top = Namer.of(mixed.plans[0], naming).pattern(shared)
    found = []
    for pod, p in zip(mixed.fabric.pods, mixed.plans):
        namer = Namer.of(p, pod_scheme(naming, pod.index + 1))
        found.append(Member(Scope.of(p, tiers),
                            lambda role, namer=namer: top if role == shared else namer.pattern(role)))
    return found


def _scope_label(rule: Rule) -> str:
    """The label that names the device in the exporter's series (``instance``, ``switch``, ``Hostname``)."""
    return re.match(r"\w+", exporters()[rule.exporter].scope).group(0)


def alerts(plan, naming: NamingScheme | None = None) -> list[dict]:
    """Every alert rule of ``plan``: dicts with ``group`` (``gpu``, ``node``, ``switch``), ``alert``, ``expr``,
    ``labels`` and ``annotations`` (in the current language), in checklist order; a rule matches the devices of
    every ``members`` entry it applies to."""
    watched = members(plan, naming)
    out = []
    for check in all_checks():
        for rule in check.rules:
            where = [(member, member.scope.where(check, rule.tiers)) for member in watched]
            tiers = tuple(t for t in rule.tiers if any(t in found for _m, found in where))
            if not tiers:
                continue
            patterns = {member.pattern(ROLE_OF[t]) for member, found in where for t in found}
            kind = KINDS[tiers[0]]
            device = "{{ $labels." + _scope_label(rule) + " }}"
            why = sentences(_(WHY[check.why_id]), as_sentence(_(rule.note)) if rule.note else "")
            out.append({
                "group": kind, "alert": _alert_name(check.id, kind),
                "expr": rule.expr.replace("SCOPE", _scope(rule, patterns)),
                "labels": {"severity": "critical" if check.id in SEVERE else "warning", "check": check.id,
                           "tier": ",".join(_tiers(plan, tiers))},
                "annotations": {"summary": _("{counter} on {device}: {threshold}").format(
                    counter=check.counter, device=device, threshold=_(check.threshold)),
                    "description": why, "source": f"{check.source}; {exporters()[rule.exporter].name}"}})
    return out


def uncovered(plan) -> list[tuple[str, tuple[str, ...], str]]:
    """Checklist rows of ``plan`` (id, tiers, counter) on tiers that no rule covers (on any pod's devices)."""
    scopes = [member.scope for member in members(plan)]
    out = []
    for check in all_checks():
        covered = {t for rule in check.rules for t in rule.tiers}
        present = {t for scope in scopes for t in scope.where(check, check.tiers)}
        left = tuple(t for t in check.tiers if t in present and t not in covered)
        if left:
            out.append((check.id, left, check.counter))
    return out


def _header(plan, rules: list[dict], out: TextIO) -> None:
    from core.formats.podslurm import mixed_of

    used = sorted({exporters()[r.exporter].name for c in all_checks() for r in c.rules
                   if any(a["labels"]["check"] == c.id for a in rules)})
    mixed = mixed_of(plan)
    gpus = plan.resolved.gpus if mixed is None else mixed.fabric.gpus
    out.write("# " + _("Prometheus alert rules of the monitoring checklist, written by fabric planner for a design "
                       "of {gpus} GPUs ({fabric}).").format(gpus=f"{gpus:,}", fabric=vocab.fabric_label(
                           plan.resolved.fabric, plan.resolved.nic.transport))
              + "\n# " + _("Check with: promtool check rules FILE. The rules read these exporters:") + "\n")
    for name in used:
        out.write(f"#   - {name}\n")
    out.write("# " + _("Devices are matched by the design's names (the naming scheme of the other exports); scrape "
                       "them under those host names.") + "\n")
    if mixed is not None:
        out.write("# " + _("A design with pods: the rules match every pod's servers and leaves (names pod1-, pod2-, "
                           "...: {pods}) and the shared spines.").format(pods=", ".join(
                               f"pod {pod.index + 1} {pod.system}" for pod in mixed.fabric.pods)) + "\n")
    gaps = uncovered(plan)
    if gaps:
        out.write("# " + _("Not covered (no rule is written for these counters: read them with the tool the "
                           "checklist names, UFM or the switch vendor's telemetry):") + "\n")
        for check_id, tiers, counter in gaps:
            out.write(f"#   - {check_id} ({', '.join(_tiers(plan, tiers))}): {counter}\n")


def write(plan, out: TextIO, naming: NamingScheme | None = None) -> None:
    """Write the rule file of ``plan`` to ``out`` (text, YAML), devices named under ``naming``, its words in English
    whatever the request's language (``core.formats.exports.FILE_LANGUAGE``)."""
    with in_file_language():
        rules = alerts(plan, naming)
        _header(plan, rules, out)
    out.write("groups:\n")
    for group in ("gpu", "node", "switch"):
        grouped = [r for r in rules if r["group"] == group]
        if not grouped:
            continue
        out.write(f"  - name: {_text('fabric-planner-' + group)}\n    rules:\n")
        for r in grouped:
            out.write(f"      - alert: {_text(r['alert'])}\n        expr: {_text(r['expr'])}\n        labels:\n")
            out.writelines(f"          {k}: {_text(v)}\n" for k, v in r["labels"].items())
            out.write("        annotations:\n")
            out.writelines(f"          {k}: {_text(v)}\n" for k, v in r["annotations"].items())


def used_exporters(plan) -> list[str]:
    """The exporters (``assets/catalog/monitoring.toml`` keys: ``node_exporter``, ``dcgm_exporter``, ...) whose
    rules ``write`` writes for ``plan``, sorted."""
    scopes = [member.scope for member in members(plan)]
    return sorted({rule.exporter for check in all_checks() for rule in check.rules
                   if any(scope.where(check, rule.tiers) for scope in scopes)})


def describe(plan) -> str:
    """The export's label for ``plan``: the exporters its rules read, in the current language."""
    return _("Prometheus alert rules of the monitoring checklist ({exporters}), with the design's device "
             "names").format(exporters=", ".join(used_exporters(plan)))


EXPORTS = (Export(name="prometheus", write=write, suffix=".yml", mime="application/yaml",
                  label=N_("Prometheus alert rules of the monitoring checklist (DCGM, node, InfiniBand switch and "
                           "SNMP exporters), with the design's device names"), describe=describe, every_pod=True),)
"""The rules file among the export formats (``python -m core export --format prometheus``, the Hand-off tab)."""
