"""What every sub-command shares: the argparse parser class, number parsers, design options.

Every parser here raises ``argparse.ArgumentTypeError`` (argparse turns it into one line and exit
code 2); ``design_from_args`` builds the ``Design`` from ``--design FILE`` and the flags. Every
message echoes user input through ``core.errors.shown`` (at most 40 characters), and the parser's
own messages (unknown option, invalid choice) are cut the same way.
"""

from __future__ import annotations

import argparse
import json
import math
import re

from core.catalog import load_catalog
from core.design import MAX_DESIGN_FILE_BYTES, MAX_POWER_OVERRIDE_W, MAX_PRICE_OVERRIDE_USD, Design, parse_design
from core.errors import SHOWN_LIMIT, InputError, shown
from core.formats.entry import normalize, number_text
from core.formats.design_file import read_design_file
from core.perf.sizes import parse_size

EXIT_INPUT = 2
EXIT_DESIGN = 3
MAX_ERROR_CHARS = 300
"""Longest error line the CLI prints."""

_LONG_WORD = re.compile(r"\S{%d,}" % (SHOWN_LIMIT + 11))  # longer than a shown() value with its quotes


def one_line(message: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``message`` on one line, every word that echoes over 40 characters cut, at most ``limit`` characters.

    For text argparse writes itself (``ambiguous option: --p=...``), which may quote user input whole.
    """
    text = " ".join(message.split())
    text = _LONG_WORD.sub(lambda m: m.group()[:SHOWN_LIMIT] + "...", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one short line and exit code 2."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised via CLI tests
        raise InputError(one_line(message))

    def _check_value(self, action, value) -> None:
        # argparse's own message quotes the value whole
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(action, f"invalid choice: {shown(value)} (choose from {choices})")

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {shown(' '.join(extras))}")
        return parsed


def positive_int(text: str) -> int:
    text = number_text(text)  # 1,024 and full-width digits read too
    try:
        value = int(text)
    except ValueError:
        if text.strip().isdigit():  # more digits than Python reads (4,300)
            raise argparse.ArgumentTypeError(f"{shown(text)} is far too large") from None
        raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {shown(value)}")
    return value


def ratio(text: str) -> float:
    """``X`` or ``X:Y`` (down:up) with positive finite numbers, at least 1 (e.g. ``2``, ``3:1``, ``２：１``)."""
    parts = normalize(text).split(":")
    try:
        numbers = [float(part) for part in parts] if len(parts) <= 2 else None
    except ValueError:
        numbers = None
    if numbers is None or not all(math.isfinite(n) and n > 0 for n in numbers):
        raise argparse.ArgumentTypeError(
            f"expected a ratio X or X:Y of positive numbers, like 2 or 3:1, got {shown(text)}")
    value = numbers[0] / numbers[1] if len(numbers) == 2 else numbers[0]
    if not (math.isfinite(value) and value >= 1):
        raise argparse.ArgumentTypeError(f"must be at least 1 (down:up), got {shown(text)}")
    return value


def number(text: str) -> float:
    try:
        value = float(number_text(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {shown(text)}")
    return value


def model_name(text: str) -> str:
    """A catalog model id as typed; an empty or blank value is an error (it would silently mean auto)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a catalog model, got an empty value "
                                         "(leave the option out for the default)")
    return text


def add_design_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that takes a design."""
    g = parser.add_argument_group("design (defaults come from the GPU system in the catalog)")
    g.add_argument("--design", metavar="FILE.json",
                   help=f"read the design from a JSON file of at most 1 MB ({MAX_DESIGN_FILE_BYTES:,} bytes); "
                        "options below override it")
    g.add_argument("--gpu", type=model_name, help="GPU/system model, case-insensitive (e.g. h100, B200, GB200-NVL72)")
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
    g.add_argument("--switch", type=model_name, help="fabric switch model, case-insensitive (e.g. QM9700, Q3400, SN5600)")
    g.add_argument("--topology", type=str.lower, choices=["rail-optimized", "top-of-rack"], help="leaf wiring")
    g.add_argument("--nodes-per-rack", type=positive_int, help="nodes per rack")
    g.add_argument("--oversubscription", type=ratio, metavar="RATIO",
                   help="leaf down:up ratio X or X:Y, >= 1 (e.g. 1, 2 or 3:1)")
    g.add_argument("--spine-oversubscription", type=ratio, metavar="RATIO",
                   help="spine down:up ratio in three tiers, X or X:Y, >= 1")
    g.add_argument("--tiers", type=str.lower, choices=["auto", "1", "2", "3"], help="switch tiers (default auto)")
    g.add_argument("--cable-media", type=str.lower, choices=["auto", "copper", "aoc", "optics"],
                   help="cable media policy (auto: copper in rack, optics elsewhere)")
    g.add_argument("--pue", type=number, help="power usage effectiveness, >= 1 (default 1.3)")
    g.add_argument("--electricity-price", type=number, metavar="USD_PER_KWH", help="electricity price [USD/kWh]")
    g.add_argument("--tco-years", type=number, metavar="YEARS", help="years of operation for TCO [years]")
    g.add_argument("--price", action="append", default=[], metavar="ID=USD",
                   help=f"override a catalog unit price [USD], 0 to {MAX_PRICE_OVERRIDE_USD:,.0f} USD per unit, "
                        "e.g. --price QM9700=30000 (repeatable)")
    g.add_argument("--power", action="append", default=[], metavar="ID=W",
                   help=f"override a catalog unit power [W], 0 to {MAX_POWER_OVERRIDE_W:,.0f} W per unit "
                        "(repeatable)")


_OPTION_FIELDS = {
    "gpu": "gpu", "nodes": "nodes", "gpus": "gpus", "gpus_per_node": "gpus_per_node",
    "nvlink_gen": "nvlink_generation", "nvlink_domain": "nvlink_domain_gpus", "fabric": "fabric",
    "port_speed": "port_speed_gbps", "nics_per_node": "nics_per_node", "planes": "planes", "switch": "switch",
    "topology": "topology", "nodes_per_rack": "nodes_per_rack", "oversubscription": "oversubscription",
    "spine_oversubscription": "spine_oversubscription", "tiers": "tiers", "cable_media": "cable_media",
    "pue": "pue", "electricity_price": "electricity_usd_per_kwh", "tco_years": "tco_years",
}


def _overrides(pairs: list[str], what: str) -> dict[str, float]:
    """``--price``/``--power`` ID=NUMBER pairs, each read by the share-link codec's override parser."""
    from core.formats.sharelink import ParamError, parse_overrides

    result: dict[str, float] = {}
    for pair in pairs:
        if "=" not in pair and ":" not in pair:
            raise InputError(f"--{what} takes ID=NUMBER, got {shown(pair)}")
        try:
            result.update(parse_overrides(pair, unit="USD" if what == "price" else "W"))
        except ParamError as exc:
            raise InputError(f"--{what}: {exc}") from None
    return result


def design_from_args(args: argparse.Namespace) -> Design:
    """Build the design from ``--design FILE`` and the options that override it."""
    data: dict = {}
    if args.design:
        data = read_design_file(args.design).model_dump(exclude_defaults=True)
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
    if len(text.strip()) > 24:  # no size is that long ("1.5GiB", "1073741824")
        raise argparse.ArgumentTypeError(
            f"cannot read size {shown(text)}; use a number with B, KiB, MiB, GiB, KB, MB or GB (e.g. 1GiB)")
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
        raise argparse.ArgumentTypeError(f"expected a token count like 1T or 15e12, got {shown(text)}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"token count must be positive and finite, got {shown(text)}")
    return value


def fraction(text: str) -> float:
    try:
        value = float(number_text(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {shown(text)}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {shown(text)}")
    return value


def to_json(data) -> str:
    """JSON output of every sub-command: non-finite numbers are a bug, never printed as Infinity or NaN."""
    return json.dumps(data, indent=2, allow_nan=False)


def cluster_note(requested: int | None, cluster: int, used: int) -> str:
    """Say when the cluster differs from the GPUs the job uses (e.g. rounded up to whole nodes)."""
    if requested is not None and cluster != requested and used == requested:
        return f"; the cluster has {cluster:,} GPUs ({requested:,} rounded up to whole nodes)"
    if cluster != used:
        return f"; the cluster has {cluster:,} GPUs"
    return ""
