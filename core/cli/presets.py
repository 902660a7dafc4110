"""``python -m core presets``: the published designs to start from, with their sources and the numbers they
reproduce (``core.presets``); ``--check`` plans each and shows the engine's number beside the published one."""

from __future__ import annotations

import argparse

from core.cli.common import add_format_option, to_json
from core.i18n import _, number
from core.presets import Preset, load_presets, reproduced


def register(subparsers) -> None:
    """Add the ``presets`` sub-command."""
    parser = subparsers.add_parser(
        "presets", help=_("list the published designs to start from"),
        description=_("List the published designs (DGX SuperPOD, DeepSeek, Meta, Alibaba, ByteDance, ...) with their "
                      "sources and the numbers they reproduce; any command that takes a design starts from one with "
                      "--preset ID."))
    add_format_option(parser)
    parser.add_argument("--check", action="store_true",
                        help=_("plan every published design and show the engine's number beside each published one"))
    parser.set_defaults(handler=run)


def _value(value: float) -> str:
    """A published or planned number as the table shows it (whole numbers without decimals)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _("none") if value is None else str(value)
    return number(value, 0 if float(value).is_integer() else 2)


def _entry(preset: Preset, check: bool) -> dict:
    """One preset as JSON (English, as in the file): id, title, notes, differences, source, design fields, numbers."""
    rows = reproduced(preset, _summary(preset)) if check else [(n, None, None) for n in preset.published]
    numbers = []
    for published, engine, ok in rows:
        item = published.model_dump()
        if check:
            item.update(engine=engine, reproduced=ok)
        numbers.append(item)
    return {"id": preset.id, "title": preset.title, "notes": preset.notes, "differences": list(preset.differences),
            "source": preset.source.model_dump(), "design": preset.fields, "published": numbers}


def _summary(preset: Preset) -> dict:
    from core.plan import plan

    return plan(preset.design).summary()


def _lines(entry: dict, preset: Preset) -> list[str]:
    """The table's lines for one preset, in the current language (sources quoted as published)."""
    source = entry["source"]
    lines = [f"{entry['id']}: {_(entry['title'])}", "  " + _(entry["notes"]),
             "  " + _("source: {publisher}, {document}; {where}{date}; {url}").format(
                 publisher=source["publisher"], document=source["document"], where=source["where"],
                 date=f", {source['date']}" if source["date"] else "", url=source["url"])]
    for published, item in zip(preset.published, entry["published"]):
        text = f"{published.label()} {_value(published.value)}"
        if published.derived:
            text += " " + _("(derived)")
        if "engine" in item:
            text += " " + (_("(engine {value}: reproduced)") if item["reproduced"] else
                           _("(engine {value}: NOT reproduced)")).format(value=_value(item["engine"]))
        lines.append("  - " + text + f"  [{published.where}]")
    lines += ["  " + _("differs: {text}").format(text=_(text)) for text in entry["differences"]]
    lines.append("  python -m core plan --preset " + entry["id"])
    return lines


def run(args: argparse.Namespace) -> str:
    presets = load_presets()
    entries = [_entry(preset, args.check) for preset in presets]
    if args.format == "json":
        return to_json(entries) + "\n"
    lines: list[str] = []
    for entry, preset in zip(entries, presets):
        lines += [*_lines(entry, preset), ""]
    return "\n".join(lines)
