"""The scale-up domain as data: switch-based (NVSwitch, Huawei UB switches) or a direct mesh (AMD xGMI,
Gaudi 3 RoCE ports, Huawei HCCS), its bandwidth and the checks a design's domain must pass.

Bandwidths are GB/s (1e9 bytes/s); ``_bidir`` is both directions summed, ``_per_direction`` one.
The words here (``KIND_LABELS``) are English marked with ``N_()``: show them with ``_(label)``.

Mesh domains: AMD Infinity Fabric (xGMI) boards link each of 8 GPUs to the 7 others with one link each; Gaudi 3
boards give each of 8 cards 21 of its 24 200 GbE ports, 3 to each peer; Huawei's Atlas 800T A2
links 8 Ascend 910B with HCCS the same way. Unlike a switch domain, where any peer is reachable at
the whole per-GPU bandwidth, a mesh gives:

* to **one** peer: the links to that peer (``links / (domain - 1)`` of them);
* to **all** peers at once: the sum over the peers a communicator holds (a tensor-parallel group
  of 4 on an 8-GPU mesh uses 3 of the 7 links);
* to a **ring**: one link set per hop. A collective library runs several rings at once (NCCL/RCCL
  channels, HCCL's ring over the mesh); the rings can use every outgoing link only if the
  complete directed graph on the ``k`` ranks splits into ``k - 1`` arc-disjoint directed
  Hamiltonian cycles, which holds for every ``k`` except 4 and 6 (Tillson, "A Hamiltonian
  decomposition of K*_2m, 2m >= 8", J. Combin. Theory B 29 (1980) 68-74; Bermond and Faber 1976
  for the exceptions), where at most ``k - 2`` fit. RCCL ships such ring sets for 8-GPU xGMI
  boards (``src/graph/rome_models.cc``); HCCL's "Mesh" algorithm sends to all peers at once
  (CANN HCCL documentation, "集合通信算法": Mesh, Ring, RHD, PairWise, Star).

The mesh functions' bandwidths are GB/s per direction, per accelerator.
"""

from __future__ import annotations

import re

from core.catalog import Catalog, System
from core.errors import DesignError, InputError
from core.i18n import N_, _, number, pgettext
from core import units

KIND_LABELS = {"switch": N_("switch-based"), "mesh": N_("direct mesh")}
"""``System.scaleup_kind`` -> its words, marked for translation: ``_(KIND_LABELS[kind])``."""


def scaleup_bandwidth(catalog: Catalog, system: System, generation: int | None) -> tuple[int, float]:
    """The NVLink generation a design runs and its scale-up bandwidth per GPU [GB/s, bidirectional].

    ``generation`` is the design's choice (None: the system's own). An older NVLink generation keeps the
    system's link count up to that generation's most links. A system whose domain is not NVLink
    (``nvlink_generation`` 0) runs its own links only.

    Raises
    ------
    InputError
        An NVLink generation asked of a system whose scale-up domain is not NVLink, or unknown.
    """
    chosen = generation or system.nvlink_generation
    if chosen == system.nvlink_generation:
        return chosen, system.nvlink_gbytes_per_gpu_bidir
    if not system.nvlink_generation:
        raise InputError(_("{system} has no NVLink: its scale-up domain is {name}; leave the NVLink generation "
                           "empty").format(system=system.id, name=system.scaleup_name))
    table = catalog.nvlink_generation(chosen)
    links = min(system.nvlink_links_per_gpu or table.max_links_per_gpu, table.max_links_per_gpu)
    return chosen, links * table.link_gbytes_bidir


def check_domain(system: System, domain: int) -> None:
    """Check that a scale-up domain of ``domain`` accelerators can be wired with ``system``'s links.

    A mesh needs at least one link from every accelerator to every peer (``domain - 1 <= links``) and
    its wires stay on the board, so it holds at most the system's own domain; a switch domain is limited by
    the switch chips (scaled, ``System.nvswitch_chips_for``), not here.

    Raises
    ------
    DesignError
        A mesh domain larger than its links allow, with the ways out.
    """
    if not system.is_mesh or domain <= system.nvlink_domain_gpus:
        return
    raise DesignError(
        _("A {name} mesh of {domain} accelerators needs {needed} links from each to its peers, but {system} has "
          "{links}: a direct mesh holds at most {most}.").format(
            name=system.scaleup_name, domain=domain, needed=domain - 1, system=system.id,
            links=system.nvlink_links_per_gpu, most=system.nvlink_domain_gpus),
        _("Use a scale-up domain of {most}, or a system with switch chips in its domain.").format(
            most=system.nvlink_domain_gpus))


def summary(system: System, domain: int, gbytes_per_gpu_bidir: float) -> dict:
    """The domain's kind and its bandwidths for ``Plan.summary()`` (keys English, values data).

    ``link_gbytes_per_direction`` [GB/s] is one link; ``peer_gbytes_per_direction`` what one accelerator
    sends to one peer; ``all_peers_gbytes_per_direction`` to all its peers at once (the per-GPU figure).
    """
    links = max(1, system.nvlink_links_per_gpu)
    link = gbytes_per_gpu_bidir / 2 / links
    per_direction = gbytes_per_gpu_bidir / 2
    words = {"scaleup_named_domain": system.scaleup_named_domain, "accelerator_noun": system.accelerator_noun}
    if system.is_mesh:  # the links to each peer are wired on the board for the system's own domain
        peer = peer_gbytes(link, links, system.nvlink_domain_gpus)
        return {"kind": "mesh", "name": system.scaleup_name, "vendor": system.vendor, **words,
                "collective_library": system.collective_library,
                "links_per_peer": links_per_peer(links, system.nvlink_domain_gpus), "link_gbytes_per_direction": link,
                "peer_gbytes_per_direction": peer,
                "all_peers_gbytes_per_direction": all_peers_gbytes(peer, domain)}
    return {"kind": "switch", "name": system.scaleup_name, "vendor": system.vendor, **words,
            "collective_library": system.collective_library, "links_per_peer": None,
            "link_gbytes_per_direction": link, "peer_gbytes_per_direction": per_direction,
            "all_peers_gbytes_per_direction": per_direction}


def links_per_peer(links: int, domain: int) -> int:
    """Links from one accelerator to each peer in a mesh of ``domain`` accelerators with ``links``
    scale-up links each (0 when the domain has no peers)."""
    return links // (domain - 1) if domain > 1 else 0


def peer_gbytes(link_gbytes: float, links: int, domain: int) -> float:
    """Bandwidth from one accelerator to one peer [GB/s, one direction]: its links to that peer
    times one link's ``link_gbytes`` [GB/s, one direction]."""
    return links_per_peer(links, domain) * link_gbytes


def all_peers_gbytes(peer: float, ranks: int) -> float:
    """Bandwidth from one accelerator to all ``ranks - 1`` peers at once [GB/s, one direction]:
    the sum of the per-peer bandwidths ``peer`` [GB/s, one direction]."""
    return max(0, ranks - 1) * peer


def ring_count(ranks: int) -> int:
    """Arc-disjoint directed rings through all ``ranks`` members of a complete mesh: ``ranks - 1``
    (every outgoing link busy) except 4 and 6 ranks, where ``ranks - 2`` (Tillson 1980)."""
    if ranks <= 1:
        return 0
    return ranks - 2 if ranks in (4, 6) else ranks - 1


def ring_gbytes(peer: float, ranks: int) -> float:
    """Bandwidth one accelerator drives into rings over a mesh of ``ranks`` [GB/s, one direction]:
    one peer's bandwidth ``peer`` [GB/s, one direction] per ring, as many rings as fit."""
    return ring_count(ranks) * peer


def describe(nvl: dict, library: str, unit: str = "GB/s") -> str:
    """One sentence on a plan's scale-up domain from ``Plan.nvlink_summary()`` (``nvl``): its name and kind,
    links, switch chips, bandwidth to one peer and to all peers (one direction, in ``unit``: "GB/s" or "Gb/s",
    ``core.units.bandwidth``) and the collective library, in the current language. ``library``: the library's own name (``core.perf.constants.library_label``
    of ``nvl["collective_library"]``, a proper name the same in every language)."""
    values = dict(name=nvl["name"], kind=_(KIND_LABELS[nvl["kind"]]), gpus=number(nvl["domain_gpus"]),
                  links=number(nvl["links_per_gpu"]), chips=number(nvl["nvswitch_chips"]),
                  peer=units.bandwidth(units.from_gbytes(nvl["peer_gbytes_per_direction"]), unit),
                  all=units.bandwidth(units.from_gbytes(nvl["all_peers_gbytes_per_direction"]), unit),
                  library=library)
    if nvl["kind"] == "mesh":
        return _("{name}, {kind} of {gpus} accelerators, {links} links each, {per} to each peer: {peer} "
                 "to one peer and {all} to all peers at once (one direction); collectives by {library}.").format(
            per=number(nvl["links_per_peer"]), **values)
    if nvl.get("levels", 1) == 2:  # a GPU's links reach its first-level domain's chips, not the whole domain's
        return _("{name}, {kind} domain of {gpus} accelerators in two levels, {links} links each into the "
                 "{level1} switch chips of its first-level domain ({chips} in the whole domain with the second "
                 "level's): {all} to any peer (one direction); collectives by {library}.").format(
            level1=number(nvl["level1_chips"]), **values)
    return _("{name}, {kind} domain of {gpus} accelerators, {links} links each into {chips} switch chips: "
             "{all} to any peer (one direction); collectives by {library}.").format(**values)



def _field(source: System | dict, attribute: str, key: str):
    """``attribute`` of a ``System``, or ``key`` of its ``summary`` (``Plan.nvlink_summary()``)."""
    return source[key] if isinstance(source, dict) else getattr(source, attribute)


def link_word(source: System | dict) -> str:
    """The scale-up link's name as the catalog declares it (``System.scaleup_name``): NVLink only for NVLink
    systems, else HCCS, Unified Bus, Infinity Fabric (xGMI), RoCE (Gaudi). ``source``: the system or its
    ``Plan.nvlink_summary()``."""
    return _field(source, "scaleup_name", "name")


def domain_word(source: System | dict) -> str:
    """The scale-up domain's name in the request's language: "NVLink domain", "HCCS domain", or "scale-up
    domain" when the catalog does not name domains after the technology (``System.scaleup_named_domain``).
    ``source``: the system or its ``Plan.nvlink_summary()``."""
    if _field(source, "scaleup_named_domain", "scaleup_named_domain"):
        return _("{name} domain").format(name=link_word(source))
    return _("scale-up domain")


def other_words(system: System | None) -> tuple[str, str] | None:
    """(link, domain) words of ``system``'s scale-up when it is not NVLink (``link_word``, ``domain_word``); None
    for an NVLink system or none given, whose sentences name NVLink themselves."""
    if system is None or system.nvlink_generation:
        return None
    return link_word(system), domain_word(system)


def accelerator_noun(source: System | dict | None, plural: bool = False) -> str:
    """What the accelerator is called where its count is said ("GPU", "NPU" for Ascend; "GPUs" with ``plural``),
    in the request's language (``System.accelerator_noun``). ``source``: the system or its
    ``Plan.nvlink_summary()``; None: a GPU."""
    npu = source is not None and (source.get("accelerator_noun") if isinstance(source, dict)
                                  else source.accelerator_noun) == "NPU"
    if plural:
        return pgettext("accelerators counted", "NPUs") if npu else pgettext("accelerators counted", "GPUs")
    return _("NPU") if npu else _("GPU")


def other_rack(system: System, level1_gpus: int) -> str | None:
    """The name of the racks the plan builds when they are not the catalog's own (``gpus_per_node x
    nodes_per_rack``), by their GPUs in NVIDIA's spelling: "NVL36" for GB200-NVL72's trays in the NVL36 racks of an
    NVL576-style two-level domain (the one place that spells a rack by its size); None for
    the catalog's rack, a domain within one node or a non-NVLink system. One name rule: the system keeps its
    catalog id on every surface (the link's ``g``, the headlines, the sidebar, JSON ``gpu_model``, the bill), and
    the racks are said by their size beside it ("16 NVL36 racks of GB200-NVL72 trays"; the bill's node row says
    its trays sit in NVL36 racks, priced as the catalog's NVL72 rack's)."""
    if not system.nvlink_generation or level1_gpus <= system.gpus_per_node \
            or level1_gpus == system.gpus_per_node * system.nodes_per_rack:  # a node's domain, or the catalog's rack
        return None
    return f"NVL{level1_gpus}"


_GPU_WORD = re.compile(r"(?<![A-Za-z])GPU(?=(?:s|'s)?(?![A-Za-z]))")
"""The noun "GPU" as a word ("GPU", "GPUs", "GPU's", "每 GPU"), not inside a name ("GPUDirect")."""
_VOWEL_SOUND = "AEFHILMNORSX"
"""Capitals whose spoken name starts with a vowel: an acronym starting with one takes "an" ("an NPU")."""


def in_noun(text: str, source: System | dict | None) -> str:
    """``text`` (a translated label, title or column header that counts or divides by the accelerator) with the
    noun "GPU" said as ``source``'s own (``System.accelerator_noun``: "NPU" for Ascend), in either language: the
    catalogs write the noun itself in the Chinese text too. ``source``: the system, its ``Plan.nvlink_summary()``
    or None (a GPU: ``text`` unchanged). Only for words about ``source``'s chips: a sentence naming another
    system's GPU keeps its own words."""
    noun = source.get("accelerator_noun") if isinstance(source, dict) else getattr(source, "accelerator_noun", None)
    if not noun or noun == "GPU":
        return text
    text = _GPU_WORD.sub(noun, text)
    if noun[0] in _VOWEL_SOUND:  # "a GPU" -> "an NPU"
        text = re.sub(r"(?<![A-Za-z])([Aa]) (?=" + re.escape(noun) + ")", r"\1n ", text)
    return text
