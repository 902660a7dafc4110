"""Read LLDP neighbours (``lldpctl -f json``, lldpd's JSON) of the fabric's switches and hosts into found links.

lldpctl prints the neighbours seen by the host it runs on and never names that host, so the file holds one output
per host, under the host's name: a JSON object ``{"leaf001": <lldpctl -f json>, "gpu001": ...}`` (collected, for
example, with ``for h in $HOSTS; do ...; done`` or an Ansible fact gather). Both of lldpctl's JSON forms are read
(lldpd's ``tests/integration/test_lldpcli.py``, lldpd/lldpd):

* ``-f json``: ``{"lldp": {"interface": {"eth0": {"chassis": {"<system name>": {...}}, "port": {"id": {"type":
  "ifname", "value": "swp5"}, "descr": "..."}}}}}``; with several interfaces ``"interface"`` is a list of
  one-key objects;
* ``-f json0`` (every value a list): ``{"lldp": [{"interface": [{"name": "eth0", "chassis": [{"name": [{"value":
  ...}]}], "port": [{"id": [{"type": ..., "value": ...}], "descr": [{"value": ...}]}]}]}]}``.

A link is the local (host, interface) and the neighbour's (system name, port): the port id when its type is
``ifname`` or ``local``, else the port description. A link seen from both ends is kept once. LLDP reports no link
speed here. Bounds: ``MAX_BYTES`` (32 MB), JSON nested no deeper than Python's parser takes, ``core.formats.asbuilt``'s name
and link limits; anything else is one ``InputError``.
"""

from __future__ import annotations

import json

from core.errors import InputError, shown
from core.formats.asbuilt import FoundEnd, FoundLink, check_count, checked_name, decoded
from core.i18n import _

MAX_BYTES = 32 * 1024 * 1024
"""Largest LLDP JSON file read [bytes]."""


def _value(item) -> object:
    """The value of an lldpctl field in either form: ``"x"``, ``{"value": "x"}``, ``[{"value": "x"}]``."""
    while isinstance(item, list):
        item = item[0] if item else None
    if isinstance(item, dict) and "value" in item:
        return _value(item["value"])
    return item


def _interfaces(output) -> list[tuple[str, dict]]:
    """``(local interface, entry)`` of one host's lldpctl output, either form."""
    lldp = output.get("lldp") if isinstance(output, dict) else None
    if isinstance(lldp, list):  # json0
        lldp = lldp[0] if lldp and isinstance(lldp[0], dict) else {}
    if not isinstance(lldp, dict):
        return []
    interfaces = lldp.get("interface", {})
    items: list[tuple[str, dict]] = []
    for item in interfaces if isinstance(interfaces, list) else [interfaces]:
        if not isinstance(item, dict):
            continue
        if "name" in item and isinstance(item.get("chassis"), (list, dict)):  # json0 entry
            items.append((_value(item["name"]), item))
        else:
            items.extend((name, entry) for name, entry in item.items() if isinstance(entry, dict))
    return items


def _neighbour(entry: dict) -> tuple[object, object]:
    """``(system name, port)`` of an interface entry's neighbour, either form."""
    chassis, port = entry.get("chassis"), entry.get("port")
    if isinstance(chassis, list):  # json0
        chassis = chassis[0] if chassis and isinstance(chassis[0], dict) else {}
        name = _value(chassis.get("name"))
    elif isinstance(chassis, dict):
        named = [key for key, value in chassis.items() if isinstance(value, dict) and key != "id"]
        name = named[0] if named else _value(chassis.get("name"))
    else:
        name = None
    if isinstance(port, list):
        port = port[0] if port and isinstance(port[0], dict) else {}
    if not isinstance(port, dict):
        return name, None
    port_id = port.get("id")
    port_id = port_id[0] if isinstance(port_id, list) and port_id else port_id
    kind = _value(port_id.get("type")) if isinstance(port_id, dict) else None
    value = _value(port_id) if kind in ("ifname", "local") else _value(port.get("descr"))
    return name, value


def read_lldp(data: bytes) -> list[FoundLink]:
    """The links of an LLDP JSON file (module docstring), each once."""
    what = _("LLDP JSON file")
    text = decoded(data, what, MAX_BYTES)
    try:
        hosts = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(_("the {what} is not JSON: {reason}").format(what=what, reason=shown(str(exc), 80))) from None
    if not isinstance(hosts, dict) or not hosts:
        raise InputError(_("the {what} must be a JSON object of each host's lldpctl -f json output under the host's "
                           "name").format(what=what))
    if "lldp" in hosts:
        raise InputError(_("the {what} is one lldpctl output without its host's name; put each host's output under "
                           "its name: {example}").format(what=what, example='{"leaf001": {"lldp": ...}}'))
    seen: set = set()
    links: list[FoundLink] = []
    for record, (host, output) in enumerate(hosts.items(), 1):
        where = _("host {name}").format(name=shown(host))
        local = checked_name(host, what, where)
        for interface, entry in _interfaces(output):
            name, port = _neighbour(entry)
            if name is None or port is None or interface is None:
                continue
            a = FoundEnd(local, checked_name(interface, what, where), "", checked_name(interface, what, where))
            remote = checked_name(name, what, where)
            b = FoundEnd(remote, checked_name(port, what, where), "", checked_name(port, what, where))
            key = frozenset(((a.device.casefold(), a.port), (b.device.casefold(), b.port)))
            if key not in seen:
                seen.add(key)
                links.append(FoundLink(a, b, None, "", record))
                check_count(links, what)
    if not links:
        raise InputError(_("the {what} holds no LLDP neighbour: is it lldpctl -f json output?").format(what=what))
    return links
