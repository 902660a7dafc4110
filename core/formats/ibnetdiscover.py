"""Read ``ibnetdiscover`` output (InfiniBand) into found links, bounded and hostile-safe.

Grammar (``ibnetdiscover(8)`` of linux-rdma's infiniband-diags, and the output Debian's infiniband-diags 44 prints
under ``ibsim-run``; the ibsim net file of ``core.formats.ibsim`` is the same grammar without the comments):

* a record header ``Switch <ports> "<nodeid>"`` or ``Ca <ports> "<nodeid>"`` (``Hca`` in ibsim files, ``Rt`` a
  router), then ``# "<node description>"`` and, on switches, ``base port 0 lid <lid> lmc <lmc>``; the lines
  before it (``switchguid=0x...``, ``caguid=0x...``) give the node GUID; a node id ``S-<guid>`` / ``H-<guid>`` too;
* a port line ``[<port>]`` (``[<port>](<port guid>)`` on a CA) ``"<remote nodeid>"[<remote port>]``, then
  ``# "<remote description>" lid <lid> <width>x<speed>`` (``4xNDR``).

A link shows from both its ends; each is kept once. Devices are named by their description: a managed switch's
``MF0;leaf01:MQM9700/U1`` is ``leaf01``; a CA's ``dgx-a01 mlx5_3`` is host ``dgx-a01``, HCA ``mlx5_3`` (taken as NIC
3, 0-based: that ``mlx5_<k>`` enumerates in rail order is an assumption a mapping file corrects; ``nic<k>`` is
NIC ``k``). Speed per direction [Gb/s] is width x the lane rate (``LANE_GBPS``).

Bounds: ``MAX_BYTES`` (64 MB, an ibnetdiscover file of about 65,000 GPUs), ``core.formats.asbuilt``'s line, name
and link limits; anything else is one ``InputError``.
"""

from __future__ import annotations

import re

from core.errors import InputError, shown
from core.formats.asbuilt import FoundEnd, FoundLink, bounded_lines, check_count, checked_name, decoded
from core.i18n import _
from core.physical.cabling import node_port

MAX_BYTES = 64 * 1024 * 1024
"""Largest ibnetdiscover file read [bytes]."""
LANE_GBPS = {"SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.0, "FDR": 14.0, "EDR": 25.0, "HDR": 50.0,
             "NDR": 100.0, "XDR": 200.0}
"""Data rate of one lane [Gb/s per direction] by InfiniBand speed name (4xNDR = 400 Gb/s)."""
_HEADER = re.compile(r'^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]*)"(.*)$')
_PORT = re.compile(r'^\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-F]+)\))?\s*"([^"]*)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?(.*)$')
_GUID_LINE = re.compile(r"^(?:switchguid|caguid|rtguid)=0x([0-9a-fA-F]+)")
_ID_GUID = re.compile(r"^[SHR]-([0-9a-fA-F]{16})$")
_DESC = re.compile(r'#\s*(?:lid \d+ lmc \d+\s*)?"([^"]*)"')
_RATE = re.compile(r"\b(\d+)x([A-Z]+\d*)\s*$")
_MANAGED = re.compile(r"^MF0;([^:]+):")


def _name_of(description: str) -> tuple[str, str]:
    """``(device, HCA)`` of a node description (module docstring)."""
    managed = _MANAGED.match(description)
    if managed:
        return managed[1], ""
    parts = description.split()
    if len(parts) == 2 and re.fullmatch(r"(?:mlx\d+_\d+|nic\d+|hca-?\d+|ibp\S+)", parts[1], re.IGNORECASE):
        return parts[0], parts[1]
    return description, ""


def hca_port(hca: str, port: int) -> str:
    """The NIC port of ``port`` (1-based, its plane) of HCA ``hca``: ``nic<k + 1>/port<port>`` for ``mlx5_<k>`` or
    ``nic<k>`` (0-based), ``?/port<port>`` when the HCA's name does not say which NIC."""
    found = re.fullmatch(r"(?:mlx\d+_|nic)(\d+)", hca, re.IGNORECASE)
    return node_port(int(found[1]), port - 1) if found else f"?/port{port}"


def speed_of(rate: str) -> tuple[float | None, str]:
    """``(speed per direction [Gb/s], width)`` of ``4xNDR``; ``(None, "")`` when not an InfiniBand rate."""
    found = _RATE.search(rate)
    if not found or found[2] not in LANE_GBPS:
        return None, ""
    return int(found[1]) * LANE_GBPS[found[2]], f"{found[1]}x"


def read_ibnetdiscover(data: bytes) -> list[FoundLink]:
    """The links of an ``ibnetdiscover`` output or ibsim net file (module docstring), each once."""
    what = _("ibnetdiscover file")
    text = decoded(data, what, MAX_BYTES)
    nodes: dict[str, tuple[str, str, str, bool]] = {}  # node id -> (device, HCA, GUID, is a switch)
    remote_desc: dict[str, str] = {}
    ports: list[tuple[str, int, str, int, str, int]] = []  # (node id, port, remote id, remote port, rate, line)
    current, guid, headers = None, "", 0
    for number, line in bounded_lines(text, what):
        line = line.strip()
        if not line:  # records end at a blank line: a port line needs a header above it
            current = None
            continue
        if line.startswith("#"):
            continue
        where = _("line {line}").format(line=f"{number:,}")
        found = _GUID_LINE.match(line)
        if found:
            guid = found[1].lower()
            continue
        header = _HEADER.match(line)
        if header:
            headers += 1
            node_id = checked_name(header[3], what, where)
            desc = _DESC.search(header[4])
            device, hca = _name_of(checked_name(desc[1], what, where) if desc else node_id)
            id_guid = _ID_GUID.match(node_id)
            nodes[node_id] = (device, hca, guid or (id_guid[1].lower() if id_guid else ""), header[1] == "Switch")
            current, guid = node_id, ""
            continue
        port = _PORT.match(line)
        if port and current is not None:
            remote = checked_name(port[3], what, where)
            desc = _DESC.search(port[6])
            if desc and remote not in remote_desc:
                remote_desc[remote] = checked_name(desc[1], what, where)
            ports.append((current, int(port[1]), remote, int(port[4]), port[6], number))
            continue
        if current is None and headers == 0 and "=" in line:  # vendid=, devid=, sysimgguid= before a header
            continue
        if "=" in line and not line.startswith("["):
            continue
        raise InputError(_("{where} of the {what} is not ibnetdiscover output: {text}").format(
            where=where, what=what, text=shown(line)))
    if not nodes:
        raise InputError(_("the {what} holds no Switch or Ca record: is it ibnetdiscover output?").format(what=what))
    return _links(nodes, remote_desc, ports, what)


def _links(nodes: dict, remote_desc: dict, ports: list, what: str) -> list[FoundLink]:
    """Each port pair once, as ``FoundLink``s (ends named as the module docstring says)."""
    def end(node_id: str, port: int) -> FoundEnd:
        known = nodes.get(node_id)
        if known is None:
            device, hca = _name_of(remote_desc.get(node_id, node_id))
            id_guid = _ID_GUID.match(node_id)
            known = (device, hca, id_guid[1].lower() if id_guid else "", node_id.startswith("S-"))
        device, hca, guid, switch = known
        return FoundEnd(device, str(port) if switch or not hca else hca_port(hca, port), guid, hca)

    seen: set = set()
    links: list[FoundLink] = []
    for node_id, port, remote, remote_port, rate, number in ports:
        key = (node_id, port, remote, remote_port) if (node_id, port) <= (remote, remote_port) else \
            (remote, remote_port, node_id, port)
        if key in seen:
            continue
        seen.add(key)
        speed, width = speed_of(rate)
        links.append(FoundLink(end(node_id, port), end(remote, remote_port), speed, width, number))
        check_count(links, what)
    return links
