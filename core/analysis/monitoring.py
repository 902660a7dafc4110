"""Monitoring checklist: the counters and thresholds operators watch, for the design's fabric and tiers.

Rows come from ``assets/catalog/monitoring.toml`` (counter names as the tools print them, each row
with its source and grade); ``checklist(plan)`` keeps the rows that apply to the design (``Scope``, one rule for the
checklist and the Prometheus rules): the rows of its fabric (InfiniBand or Ethernet/RoCE, plus the fabric-neutral
optics row), the GPU rows of its accelerator's maker (NVIDIA's DCGM, AMD's device metrics exporter, Intel Gaudi's
exporter, Huawei's NPU exporter: ``vendor``), and per row only the tiers the design has (node, leaf, spine when it
has two tiers, core when it has three) and the GPUs. On a cloud instance's adapters (``Nic.transport``) the switches,
optics and cables are the provider's: only the rows of that transport (``fabric = "efa"``) on the node and the GPU
rows are kept. The threshold and the "why"
are shown translated (``_()`` of the marked English below); counter names and ids are never translated.
A row may carry Prometheus alert rules (``Rule``: the exporter that publishes its counter, PromQL with ``SCOPE``
for the design's devices of a tier), which ``core.formats.prometheus`` writes with the design's device names.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from core.i18n import N_, _
from core.scaleup import accelerator_noun

MONITORING_FILE = Path(__file__).resolve().parents[2] / "assets" / "catalog" / "monitoring.toml"
TIER_LABELS = {"gpu": N_("GPU"), "node": N_("node NIC"), "leaf": N_("leaf"), "spine": N_("spine"),
               "core": N_("core")}
WHY = {
    "symbol_errors": N_("Symbol errors rise before a link fails: a dirty connector, a bad cable or a weak "
                        "transceiver; replace it before the job sees retransmissions."),
    "ber": N_("A high bit error rate means FEC is working hard; past the limit the link drops packets and slows "
              "every collective that crosses it."),
    "fec_uncorrectable": N_("An uncorrectable FEC block is a lost packet: the link is failing."),
    "link_flaps": N_("A flapping link stalls the whole synchronous job on each flap; drain the port and "
                     "replace the optic or cable."),
    "port_errors": N_("Receive errors and discards on one port point at a bad link or a congested egress; one "
                      "slow port slows the whole job."),
    "congestion_ib": N_("Time a port waits for credits: congestion or a slow receiver downstream (hot spot, "
                        "hash collisions, a stuck node)."),
    "pfc": N_("PFC pauses on RoCE keep the fabric lossless, but a pause storm from one stuck NIC can spread "
              "through the fabric; the PFC watchdog stops it."),
    "ecn": N_("ECN marks and congestion notification packets show where congestion control is slowing "
              "senders; a few NICs far above the rest mean a hot spot."),
    "roce_drops": N_("Out-of-sequence packets and ACK timeouts mean drops on a fabric meant to be lossless; "
                     "RoCE recovers with go-back-N, at a large cost in bandwidth."),
    "optics": N_("Transceivers near their temperature or optical power limits fail next; watch them before "
                 "they take a link down."),
    "xid": N_("An XID error is the driver reporting a GPU fault (a memory error, a fallen-off-the-bus GPU, an "
              "NVLink error); the job on that GPU usually fails and the node needs draining."),
    "hbm": N_("A failed row remap or new uncorrectable memory errors mean the GPU's memory is wearing out: drain "
              "the node and reset or replace the GPU before it corrupts a job."),
    "nvlink": N_("NVLink CRC and recovery errors slow every collective inside the scale-up domain; a link that "
                 "keeps erroring takes the domain's bandwidth down."),
    "pcie": N_("PCIe replays between the GPU and its host slow the GPU-NIC path (GPUDirect RDMA) that every "
               "scale-out transfer crosses; a growing count points at a riser, a slot or a retimer."),
    "amd_ecc": N_("Uncorrectable ECC errors on an AMD Instinct GPU (its HBM or another block) fail the job on it; a "
                  "count that grows means draining the node and resetting or replacing the GPU."),
    "xgmi": N_("Errors on the Infinity Fabric (xGMI) links slow every collective inside the node's mesh; a link that "
               "keeps erroring takes the bandwidth to its peer down."),
    "gaudi_ecc": N_("Memory rows with double-bit ECC errors wait for replacement at the next reset: drain the card and "
                    "reset it before it corrupts a job."),
    "gaudi_ports": N_("A Gaudi card's RoCE ports are both its scale-up links (to the other cards of its box) and its "
                      "scale-out network: a port down cuts the bandwidth to one peer or to the network, and every "
                      "collective waits for the slowest card."),
    "npu_hbm": N_("New double-bit ECC errors in the NPU's HBM mean its memory is wearing out: drain the node and "
                  "reset or replace the NPU before it corrupts a job."),
    "npu_error": N_("A non-zero error code is the NPU's driver reporting a fault (Huawei's fault catalog says which); "
                    "the job on that NPU usually fails and the node needs draining."),
    "hccs": N_("CRC errors on the HCCS links slow every collective inside the server's mesh; a link that keeps "
               "erroring takes the bandwidth to its peer down."),
    "npu_link": N_("The NPU's own RoCE port carries its scale-out traffic: a link or network status that is not up "
                   "leaves the NPU out of the job's collectives."),
    "efa_paths": N_("SRD retransmit timeouts move traffic to another path, and an impaired or unresponsive peer gets a "
                    "lower rate: a few adapters far above the rest point at a bad instance or a congested path in the "
                    "provider's network (report it to the provider)."),
    "efa_drops": N_("Dropped receives and retransmitted packets on EFA cost bandwidth; a few adapters far above the "
                    "rest point at a hot spot or a bad instance."),
}
THRESHOLDS = (
    N_("> 0 growth per hour on one port"), N_("> 0 growth per hour"), N_("> 0 growth per minute"),
    N_("> 0 per hour (flap)"), N_("> 0"), N_("> 5% of port time"),
    N_("PFC watchdog: queue paused 200 ms with no egress (default detection)"),
    N_("a steady rise on a few NICs only (hot spot); compare across the job"),
    N_("any drop on the RoCE priority"), N_("effective BER above 1e-12"),
    N_("module high-warning flag (vendor EEPROM thresholds, typically about 70 C)"),
    N_("pre-FEC BER above 1e-5, any uncorrectable codeword"),
    N_("any XID error (the value is the last XID)"), N_("a failed row remap, or any new uncorrectable remapped row"),
    N_("any port down"), N_("any error code other than 0"),
)
"""Every ``threshold`` text of monitoring.toml, marked for translation (tests check they match)."""
COUNTERS = (
    N_("link_down_events_phy (NIC); interface flap count (switch)"),
    N_("rx_corrected_bits_phy, rx_err_lane_*_phy (NIC); FEC corrected / uncorrectable codewords (switch)"),
    N_("rx_prio3_pause, tx_prio3_pause, rx_prio3_pause_duration (NIC); PFC watchdog storm events (switch)"),
    N_("egress queue drops on the lossless class; ECN marked packets per queue"),
    N_("module temperature, Rx/Tx power per lane (DDM / CMIS)"),
)
"""Counter texts of monitoring.toml that hold words besides counter names, marked for translation (the
counter names in them stay as printed; a counter text not listed here is names only, never translated)."""


RULE_NOTES = (
    N_("the host's view: the NIC was paused more than 200 ms per second over a minute (mlx5 counts pause time in "
       "microseconds); the switch's PFC watchdog events have no open exporter"),
    N_("IF-MIB counts the drops of every class; drops on the lossless class alone need the vendor's per-queue "
       "counters"),
    N_("pre-FEC bit error rate: corrected bits per second over the port's line rate"),
    N_("these two fields are commented out in the exporter's default counters file: enable them"),
)
"""Every rule ``note`` of monitoring.toml, marked for translation (tests check they match)."""


class Exporter(BaseModel):
    """A Prometheus exporter that publishes counters of the checklist."""

    model_config = ConfigDict(frozen=True)

    id: str
    name: str
    scope: str
    """Label matcher of the design's devices, ``NAMES`` standing for the regular expression of their names."""
    source: str


class Rule(BaseModel):
    """A check's Prometheus alert rule on the devices of ``tiers``: ``expr`` is PromQL with ``SCOPE`` where the
    exporter's label matcher of those devices goes."""

    model_config = ConfigDict(frozen=True)

    exporter: str
    tiers: tuple[str, ...]
    expr: str
    note: str = ""


class Check(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    fabric: str
    """``infiniband``, ``ethernet``, a cloud transport (``efa``) or ``any``."""
    tiers: tuple[str, ...]
    vendor: str = "any"
    """The accelerator maker whose tool publishes the counter (a ``System.vendor``), or ``any``."""
    counter: str
    threshold: str
    why_id: str
    source: str
    rules: tuple[Rule, ...] = ()


@lru_cache(maxsize=1)
def _data() -> dict:
    with MONITORING_FILE.open("rb") as handle:
        return tomllib.load(handle)


@lru_cache(maxsize=1)
def all_checks() -> tuple[Check, ...]:
    """Every row of monitoring.toml, with its alert rules."""
    return tuple(Check(**{**{k: v for k, v in row.items() if k != "rule"}, "tiers": tuple(row["tiers"]),
                          "rules": tuple(Rule(**{**r, "tiers": tuple(r["tiers"])}) for r in row.get("rule", ()))})
                 for row in _data()["check"])


@lru_cache(maxsize=1)
def exporters() -> dict[str, Exporter]:
    """The exporters the rules read, by id."""
    return {key: Exporter(id=key, **value) for key, value in _data()["exporter"].items()}


def design_tiers(tiers: int) -> tuple[str, ...]:
    """Where counters are read in a design of ``tiers`` switch tiers: the GPUs, the node NICs and each tier."""
    return ("gpu", "node", "leaf", "spine", "core")[: 2 + max(1, min(3, tiers))]


class Scope(NamedTuple):
    """What of the checklist applies to one design: its fabric, cloud transport, accelerator maker and the places
    counters are read (``design_tiers``; on a cloud transport only the GPUs and the node's adapters)."""

    fabric: str
    transport: str | None
    vendor: str
    present: tuple[str, ...]

    @classmethod
    def of(cls, plan, tiers: int) -> Scope:
        """The scope of ``plan`` whose fabric has ``tiers`` switch tiers; a family that declares its switch roles
        (``ROLES``: a torus none, a classic Dragonfly its routers alone) keeps only those."""
        from core.fabric.families import family

        transport = plan.resolved.nic.transport
        roles = getattr(family(plan.fabric.family), "ROLES", None)
        present = tuple(t for t in design_tiers(tiers) if roles is None or t in ("gpu", "node") or t in roles)
        return cls(plan.resolved.fabric, transport, plan.resolved.system.vendor,
                   tuple(t for t in present if t in ("gpu", "node")) if transport else present)

    def where(self, check: Check, tiers: tuple[str, ...]) -> tuple[str, ...]:
        """The tiers of ``tiers`` (a check's or one of its rules') where ``check`` applies; () when it does not:
        another maker's GPU counter, another fabric's, or on a cloud transport a fabric-neutral row off the GPU
        (the optics are the provider's)."""
        if check.vendor not in (self.vendor, "any") or check.fabric not in (self.transport or self.fabric, "any"):
            return ()
        return tuple(t for t in tiers if t in self.present
                     and (check.fabric != "any" or not self.transport or t == "gpu"))


def checklist(plan) -> list[dict]:
    """The checklist for a plan: one dict per counter (keys English; ``threshold_text``, ``why`` and
    ``tier_labels`` in the current language)."""
    from core.fabric.families import words

    scope = Scope.of(plan, plan.fabric.tiers)
    rows = []
    for check in all_checks():
        where = scope.where(check, check.tiers)
        if not where:
            continue
        rows.append({
            "id": check.id, "fabric": check.fabric, "tiers": list(where), "counter": check.counter,
            "threshold": check.threshold, "source": check.source,
            "threshold_text": _(check.threshold),
            "counter_text": _(check.counter) if check.counter in COUNTERS else check.counter, "why": _(WHY[check.why_id]),
            "tier_labels": [accelerator_noun(plan.resolved.system) if t == "gpu" else words(  # a family's own
                plan.fabric.family, f"tier:{t}", TIER_LABELS[t]) for t in where],  # (a classic Dragonfly's router)
        })
    return rows


def checklist_table(rows: list[dict]) -> str:
    """The checklist as a plain-text table (current language; counter names as printed by the tools)."""
    head = (_("where"), _("counter"), _("alarm at"), _("why"))
    lines = [" | ".join(head), " | ".join("---" for _h in head)]
    for row in rows:
        lines.append(" | ".join((", ".join(row["tier_labels"]), row["counter_text"], row["threshold_text"], row["why"])))
    return "\n".join(lines) + "\n"
