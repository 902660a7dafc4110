"""The headline numbers as display text, from ``Plan.summary()`` (what ``python -m core plan --format json`` prints).

Building them from the summary dict means the web page and a test reading
the CLI's JSON produce the same text for the same design.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

BANDWIDTH_UNITS = ("GB/s", "Gb/s")


@dataclass(frozen=True)
class KeyNumber:
    key: str
    label: str
    value: str
    help: str


def format_bandwidth(gbits_per_s: float, unit: str = "Gb/s") -> str:
    """A bandwidth given in Gb/s, shown in ``unit`` ("Gb/s" or "GB/s") with a T/P prefix when large."""
    if unit not in BANDWIDTH_UNITS:
        raise ValueError(f"unit must be one of {BANDWIDTH_UNITS}")
    value = gbits_per_s / 8 if unit == "GB/s" else gbits_per_s
    letter = unit[1]  # "B" or "b"
    for scale, prefix in ((1e6, "P"), (1e3, "T")):
        if abs(value) >= scale:
            return f"{_num(value / scale)} {prefix}{letter}/s"
    return f"{_num(value)} G{letter}/s"


def _num(value: float) -> str:
    """Three significant figures at most below 100, whole numbers with separators above."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    text = f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}"
    return text[:-2] if text.endswith(".0") else text


def format_usd(usd: float) -> str:
    """``$1.23 M`` style for large amounts, ``$45,600`` below a million."""
    if abs(usd) >= 1e9:
        return f"${usd / 1e9:,.2f} B"
    if abs(usd) >= 1e6:
        return f"${usd / 1e6:,.2f} M"
    return f"${usd:,.0f}"


def format_power(kw: float) -> str:
    """kW below 1 MW, MW above."""
    return f"{_num(kw / 1000)} MW" if kw >= 1000 else f"{_num(kw)} kW"


def key_numbers(summary: dict, unit: str = "GB/s") -> list[KeyNumber]:
    """The metrics: GPUs, switches per tier (leaf, spine, core), links, transceivers, bisection,
    per-GPU scale-up and scale-out bandwidth, capex, capex per GPU, IT power (12 numbers)."""
    sw = summary["switches"]
    links = summary["links"]
    xcvr = summary["transceivers"]
    bw = summary["bandwidth"]
    cost = summary["cost"]
    power = summary["power"]
    nvlink_gbits = bw["nvlink_gbytes_per_gpu_bidir"] * 8
    return [
        KeyNumber("gpus", "GPUs", f"{summary['gpus']:,}",
                  f"{summary['nodes']:,} nodes x {summary['gpus_per_node']} {summary['gpu_model']} GPUs"),
        *[KeyNumber(f"switches_{t}", f"{t.capitalize()} switches", f"{sw[t]:,}",
                    f"{sw[t]:,} {summary['switch_model']} {t} switches, all {summary['planes']} plane(s); "
                    f"{sw['total']:,} switches in {summary['tiers']} tier(s)") for t in ("leaf", "spine", "core")],
        KeyNumber("links", "Links", f"{sum(links.values()):,}",
                  f"node-leaf {links['node_leaf']:,}, leaf-spine {links['leaf_spine']:,}, "
                  f"spine-core {links['spine_core']:,} (all planes)"),
        KeyNumber("transceivers", "Transceivers", f"{xcvr['switch_side'] + xcvr['node_side']:,}",
                  f"switch side {xcvr['switch_side']:,}, node side {xcvr['node_side']:,}"),
        KeyNumber("bisection", "Bisection (1 dir)", format_bandwidth(bw["bisection_tbits_one_direction"] * 1000, unit),
                  "worst balanced cut of the nodes, one direction"),
        KeyNumber("scaleup", "NVLink/GPU (bidir)", format_bandwidth(nvlink_gbits, unit),
                  f"Scale-up: NVLink per GPU, both directions summed ({bw['nvlink_gbytes_per_gpu_bidir']:g} GB/s bidir)"),
        KeyNumber("scaleout", "NIC/GPU (1 dir)", format_bandwidth(bw["scaleout_gbits_per_gpu"], unit),
                  f"Scale-out: NIC bandwidth per GPU, one direction, all planes ({bw['scaleout_gbits_per_gpu']:g} Gb/s); "
                  f"oversubscription {bw['oversubscription']:g}:1"),
        KeyNumber("capex", "Capex", format_usd(cost["capex_usd"]),
                  f"${cost['capex_usd']:,.0f}; network ${cost['network_capex_usd']:,.0f} "
                  f"({cost['network_share']:.1%}); catalog estimates unless overridden"),
        KeyNumber("capex_per_gpu", "Capex / GPU", format_usd(cost["capex_per_gpu_usd"]),
                  f"${cost['capex_per_gpu_usd']:,.0f} per GPU"),
        KeyNumber("it_power", "IT power", format_power(power["it_kw"]),
                  f"{power['it_kw']:,.1f} kW IT (network {power['network_kw']:,.1f} kW); facility "
                  f"{power['facility_kw']:,.1f} kW at PUE {power['pue']:g}"),
    ]


def size_caption(plan) -> str:
    """How big the cluster is, in words a buyer uses: ``1,016 x H100 in 127 nodes``, or for NVLink
    racks ``576 GPUs in 8 GB200-NVL72 racks (144 compute trays of 4 GPUs)``."""
    r = plan.resolved
    nodes_per_domain = r.nvlink_domain_gpus // r.gpus_per_node if r.nvlink_domain_gpus > r.gpus_per_node else 1
    if nodes_per_domain > 1:
        racks = -(-r.nodes // nodes_per_domain)
        return (f"{r.gpus:,} GPUs in {racks:,} {r.system.id} rack{'s' if racks != 1 else ''} "
                f"({r.nodes:,} compute trays of {r.gpus_per_node} GPUs)")
    return f"{r.gpus:,} x {r.system.id} in {r.nodes:,} node{'s' if r.nodes != 1 else ''}"


def cards_html(numbers: list[KeyNumber]) -> str:
    """Key numbers as one HTML block of cards (a CSS grid that wraps to the page width; see app.py).

    Drawn as markdown HTML rather than one widget per number so the cards appear with the page's
    first text, before the browser has loaded the code for charts and inputs. Labels, values and
    help texts are HTML-escaped; ``data-testid`` names match Streamlit's metric cards so browser
    tests and tools find them the same way.
    """
    cards = "".join(
        f'<div class="fp-card" data-key="{escape(n.key)}" title="{escape(n.help)}">'
        f'<div class="fp-label" data-testid="stMetricLabel">{escape(n.label)}</div>'
        f'<div class="fp-value" data-testid="stMetricValue">{escape(n.value)}</div></div>'
        for n in numbers)
    return f'<div class="fp-cards">{cards}</div>'


CARDS_CSS = (
    ".fp-cards {display: grid; grid-template-columns: repeat(auto-fill, minmax(8.2rem, 1fr)); gap: 0.6rem; "
    "margin: 0.25rem 0 0.75rem;} "
    ".fp-card {border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; padding: 0.55rem 0.75rem; "
    "cursor: help; min-width: 0;} "
    ".fp-label {font-size: 0.85rem; line-height: 1.25; color: rgba(49, 51, 63, 0.8); overflow-wrap: break-word;} "
    ".fp-value {font-size: 1.35rem; line-height: 1.4; white-space: nowrap; padding-top: 0.15rem;}"
)
"""The cards' style, one rule set for the app and (later) the report."""


def training_key_numbers(estimate_) -> list[KeyNumber]:
    """A ``core.perf.training.TrainingEstimate``'s headline numbers as key-number cards (see ``cards_html``)."""
    e = estimate_
    return [
        KeyNumber("step_time", "Step time", f"{e.step_time_s:.2f} s", "seconds per optimizer step"),
        KeyNumber("tokens_per_s", "Tokens/s", f"{e.tokens_per_s:,.0f}", "tokens trained per second, whole job"),
        KeyNumber("mfu", "MFU", f"{e.mfu:.1%}", "model FLOPs / (GPUs x dense peak x time)"),
        KeyNumber("comm", "Communicating", f"{e.comm_fraction:.1%}",
                  "share of the step spent in communication that compute does not hide"),
        KeyNumber("days", "Days to train", f"{e.days_to_train:,.1f}",
                  f"{e.job.tokens_to_train:.3g} tokens at this throughput"),
        KeyNumber("cost", "Cost of the run", f"${e.cost_usd / 1e6:,.2f}M",
                  "share of the cluster's TCO per day (catalog price estimates) x days"),
    ]


def cost_key_numbers(plan) -> list[KeyNumber]:
    """The Cost & power tab's cards: cost per GPU, network share, energy, TCO, racks."""
    cost = plan.cost
    return [
        KeyNumber("capex_per_gpu", "Cost per GPU", format_usd(cost.capex_per_gpu_usd), "capex / GPUs (estimates)"),
        KeyNumber("network_share", "Network share of capex", f"{cost.network_share:.1%}",
                  "NICs, switches, transceivers and cables as a share of capex"),
        KeyNumber("energy", "Energy per year", format_usd(cost.energy_usd_per_year),
                  f"facility {cost.facility_kw:,.0f} kW x 8,760 h x ${plan.design.electricity_usd_per_kwh:g}/kWh"),
        KeyNumber("tco", f"TCO ({cost.tco_years:g} years)", format_usd(cost.tco_usd),
                  "capex + years x energy; staff, space, maintenance and financing not included"),
        KeyNumber("racks", "Compute racks", f"{cost.racks_compute:,}", "racks of compute nodes"),
    ]
