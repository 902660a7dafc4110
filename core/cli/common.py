"""What every sub-command shares: the argparse parser class, number parsers, design options.

Every parser here raises ``argparse.ArgumentTypeError`` (argparse turns it into one line and exit
code 2); ``design_from_args`` builds the ``Design`` from ``--design FILE`` and the flags.
"""

from __future__ import annotations

import argparse
import json
import math

from core.catalog import load_catalog
from core.design import Design, parse_design
from core.errors import InputError
from core.formats.design_file import read_design_file
from core.perf.sizes import parse_size

EXIT_INPUT = 2
EXIT_DESIGN = 3


class Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one line and exit code 2."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised via CLI tests
        raise InputError(message)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def ratio(text: str) -> float:
    try:
        value = float(text.split(":")[0]) / float(text.split(":")[1]) if ":" in text else float(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"expected a ratio like 2 or 2:1, got {text!r}") from None
    if not value >= 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (down:up), got {text}")
    return value


def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value != value or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def add_design_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that takes a design."""
    g = parser.add_argument_group("design (defaults come from the GPU system in the catalog)")
    g.add_argument("--design", metavar="FILE.json", help="read the design from a JSON file; options below override it")
    g.add_argument("--gpu", help="GPU/system model, case-insensitive (e.g. h100, B200, GB200-NVL72)")
    g.add_argument("--nodes", type=positive_int, help="number of nodes (servers, or NVL72 compute trays)")
    g.add_argument("--gpus", type=positive_int, help="total GPU count; sets nodes = ceil(gpus / gpus-per-node)")
    g.add_argument("--gpus-per-node", type=positive_int, help="GPUs per node")
    g.add_argument("--nvlink-gen", type=positive_int, help="NVLink generation (1-5)")
    g.add_argument("--nvlink-domain", type=positive_int, help="GPUs per NVLink domain (8 for HGX, 72 for NVL72)")
    g.add_argument("--fabric", type=str.lower, choices=["infiniband", "ethernet"], help="scale-out fabric")
    g.add_argument("--port-speed", type=positive_int, metavar="GBPS",
                   help="NIC and switch port speed, per direction [Gb/s], e.g. 400")
    g.add_argument("--nics-per-node", type=positive_int, help="scale-out NICs per node (rails)")
    g.add_argument("--planes", type=positive_int, help="independent parallel fabrics; each NIC has a port in each")
    g.add_argument("--switch", help="fabric switch model, case-insensitive (e.g. QM9700, Q3400, SN5600)")
    g.add_argument("--topology", type=str.lower, choices=["rail-optimized", "top-of-rack"], help="leaf wiring")
    g.add_argument("--nodes-per-rack", type=positive_int, help="nodes per rack")
    g.add_argument("--oversubscription", type=ratio, metavar="RATIO",
                   help="leaf down:up ratio, >= 1 (e.g. 1, 2 or 3:1)")
    g.add_argument("--spine-oversubscription", type=ratio, metavar="RATIO",
                   help="spine down:up ratio in three tiers, >= 1")
    g.add_argument("--tiers", type=str.lower, choices=["auto", "1", "2", "3"], help="switch tiers (default auto)")
    g.add_argument("--cable-media", type=str.lower, choices=["auto", "copper", "aoc", "optics"],
                   help="cable media policy (auto: copper in rack, optics elsewhere)")
    g.add_argument("--pue", type=number, help="power usage effectiveness, >= 1 (default 1.3)")
    g.add_argument("--electricity-price", type=number, metavar="USD_PER_KWH", help="electricity price [USD/kWh]")
    g.add_argument("--tco-years", type=number, metavar="YEARS", help="years of operation for TCO [years]")
    g.add_argument("--price", action="append", default=[], metavar="ID=USD",
                   help="override a catalog unit price [USD], e.g. --price QM9700=30000 (repeatable)")
    g.add_argument("--power", action="append", default=[], metavar="ID=W",
                   help="override a catalog unit power [W] (repeatable)")


_OPTION_FIELDS = {
    "gpu": "gpu", "nodes": "nodes", "gpus": "gpus", "gpus_per_node": "gpus_per_node",
    "nvlink_gen": "nvlink_generation", "nvlink_domain": "nvlink_domain_gpus", "fabric": "fabric",
    "port_speed": "port_speed_gbps", "nics_per_node": "nics_per_node", "planes": "planes", "switch": "switch",
    "topology": "topology", "nodes_per_rack": "nodes_per_rack", "oversubscription": "oversubscription",
    "spine_oversubscription": "spine_oversubscription", "tiers": "tiers", "cable_media": "cable_media",
    "pue": "pue", "electricity_price": "electricity_usd_per_kwh", "tco_years": "tco_years",
}


def _overrides(pairs: list[str], what: str) -> dict[str, float]:
    """``--price``/``--power`` ID=NUMBER pairs, read by the share-link codec's override parser."""
    from core.formats.sharelink import ParamError, parse_overrides

    for pair in pairs:
        if "=" not in pair:
            raise InputError(f"--{what} takes ID=NUMBER, got {pair!r}")
    try:
        return parse_overrides(",".join(pairs), unit="USD" if what == "price" else "W")
    except ParamError as exc:
        raise InputError(f"--{what}: {exc}") from None


def design_from_args(args: argparse.Namespace) -> Design:
    """Build the design from ``--design FILE`` and the options that override it."""
    data: dict = {}
    if args.design:
        data = json.loads(read_design_file(args.design).model_dump_json(exclude_defaults=True))
    for option, field in _OPTION_FIELDS.items():
        value = getattr(args, option)
        if value is not None:
            data[field] = value
    if args.nodes is not None and args.gpus is not None:
        raise InputError("give --nodes or --gpus, not both")
    if args.nodes is not None:
        data.pop("gpus", None)
    if args.gpus is not None:
        data.pop("nodes", None)
    if args.price:
        data["price_overrides"] = {**data.get("price_overrides", {}), **_overrides(args.price, "price")}
    if args.power:
        data["power_overrides"] = {**data.get("power_overrides", {}), **_overrides(args.power, "power")}
    design = parse_design(data)
    load_catalog().system(design.gpu)  # unknown model -> InputError now, not later
    return design



def size(text: str) -> int:
    try:
        return parse_size(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def tokens(text: str) -> float:
    """``1T``, ``15e12``, ``300B`` (decimal: K, M, B/G, T)."""
    scale = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
    body = text.strip()
    factor = 1.0
    if body and body[-1].casefold() in scale:
        factor, body = scale[body[-1].casefold()], body[:-1]
    try:
        value = float(body) * factor
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a token count like 1T or 15e12, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"token count must be positive, got {text!r}")
    return value


def fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {text}")
    return value



def cluster_note(requested: int | None, cluster: int, used: int) -> str:
    """Say when the cluster differs from the GPUs the job uses (e.g. rounded up to whole nodes)."""
    if requested is not None and cluster != requested and used == requested:
        return f"; the cluster has {cluster:,} GPUs ({requested:,} rounded up to whole nodes)"
    if cluster != used:
        return f"; the cluster has {cluster:,} GPUs"
    return ""
