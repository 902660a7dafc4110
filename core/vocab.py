"""Vocabularies: every set of ids a design field takes, declared once with its words.

A ``Vocabulary`` holds, for each id (the value a ``Design`` field stores, language-neutral):

``code``
    its share-link code (version 1 links are frozen: never change a code, add aliases instead);
``label``
    its name where a setting is chosen or listed (sidebar, XLSX, report, compare), English marked
    ``N_`` and translated when shown (``Vocabulary.label(id)``);
``word``
    its name in running text (messages, explanations: lower case in English, but a technology's name keeps its
    capitals: ``InfiniBand``, ``Ethernet``), also marked;
``aliases``
    other spellings a link or a CLI flag may use for it (case-insensitive).

Every page, export, report and the CLI reads these tables; nothing else spells the ids' names.
``core.design`` attaches a vocabulary to each field that takes one (``core.design.FIELDS``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from core.i18n import N_, _


@dataclass(frozen=True)
class Term:
    """One id of a vocabulary (see the module docstring)."""

    id: Any
    code: str
    label: str
    word: str
    aliases: tuple[str, ...] = ()
    translated: bool = True
    """``False`` for product names (``InfiniBand``), shown as they are in every language."""


@dataclass(frozen=True)
class Vocabulary:
    """An ordered set of ``Term`` (the first is the default where a field has one)."""

    name: str
    terms: tuple[Term, ...]
    _by_id: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id.update({term.id: term for term in self.terms})

    def __iter__(self) -> Iterator[Term]:
        return iter(self.terms)

    def __contains__(self, value: Any) -> bool:
        return value in self._by_id

    @property
    def ids(self) -> tuple:
        """Every id, in order."""
        return tuple(term.id for term in self.terms)

    @property
    def codes(self) -> tuple[str, ...]:
        """Every link code, in order."""
        return tuple(term.code for term in self.terms)

    def term(self, value: Any) -> Term:
        return self._by_id[value]

    def code(self, value: Any) -> str:
        """The link code of ``value``."""
        return self._by_id[value].code

    def from_code(self, code: str) -> Any:
        """The id of a link code or alias (case-insensitive); ``KeyError`` when none."""
        wanted = code.strip().casefold()
        for term in self.terms:
            if wanted == term.code.casefold() or wanted in (a.casefold() for a in term.aliases):
                return term.id
        raise KeyError(code)

    def label(self, value: Any) -> str:
        """The name of ``value`` where a setting is shown, in the current language (the value itself if unknown)."""
        term = self._by_id.get(value)
        if term is None:
            return str(value)
        return _(term.label) if term.translated else term.label

    def word(self, value: Any) -> str:
        """The name of ``value`` in running text, in the current language (the value itself if unknown)."""
        term = self._by_id.get(value)
        if term is None:
            return str(value)
        return _(term.word) if term.translated else term.word

    def labels(self) -> dict:
        """id -> label in the current language."""
        return {term.id: self.label(term.id) for term in self.terms}


FABRIC = Vocabulary("fabric", (
    Term("infiniband", "ib", N_("InfiniBand"), N_("InfiniBand"), ("infiniband",)),
    Term("ethernet", "eth", N_("Ethernet RoCE"), N_("Ethernet"), ("ethernet", "ethernet-roce", "roce")),
))
"""``Design.fabric``: the scale-out fabric's kind; its words are the technologies' names, capitalised in running
text as everywhere (``no InfiniBand NIC ...``, ``an Ethernet switch``), never the ids."""

TRANSPORT = Vocabulary("transport", (
    Term("efa", "efa", "AWS EFA", "AWS EFA", ("efa",), translated=False),
    Term("tcpx", "tcpx", "GPUDirect-TCPX", "GPUDirect-TCPX", ("tcpx", "gpudirect-tcpx"), translated=False),
    Term("tcpxo", "tcpxo", "GPUDirect-TCPXO", "GPUDirect-TCPXO", ("tcpxo", "gpudirect-tcpxo"), translated=False),
))
"""``core.catalog.CloudTransport``: a cloud provider's GPU network transport (a NIC's ``transport``), by its
published name."""


def fabric_label(fabric: str, transport: str | None = None) -> str:
    """The compute fabric's name for display: on a cloud instance's adapters (``Nic.transport``) the transport's
    (``AWS EFA``: SRD, not RoCE; ``GPUDirect-TCPX``), else the fabric kind's (``FABRIC.label``)."""
    return TRANSPORT.label(transport) if transport else FABRIC.label(fabric)

TOPOLOGY = Vocabulary("topology", (
    Term("rail-optimized", "rail", N_("Rail-optimized"), N_("rail-optimized"), ("rail-optimized",)),
    Term("top-of-rack", "tor", N_("Top-of-rack"), N_("top-of-rack"), ("top-of-rack",)),
    Term("rail-only", "ro", N_("Rail-only"), N_("rail-only"), ("rail-only",)),
    Term("dragonfly", "df", "Dragonfly+", "Dragonfly+", ("dragonfly", "dragonfly+", "dfp"), translated=False),
    Term("torus", "tr", N_("Torus"), N_("torus"), ("torus", "k-ary-n-cube")),
    Term("classic-dragonfly", "dfc", "Dragonfly", "Dragonfly", ("classic-dragonfly", "slingshot"), translated=False),
))
"""``Design.topology``: how nodes are wired to leaves, and the topology family (``dragonfly``: Dragonfly+ groups
joined by global links, ``core.fabric.dragonfly``; ``torus``: nodes joined node to node in a k-ary n-cube,
``core.fabric.torus``; the others are folded Clos fabrics)."""

NODE_TO_NODE = ("torus",)
"""The ``TOPOLOGY`` families that join their nodes node to node, without switches (their own drawing, failure
model, placement and words; ``core.fabric.families.node_to_node``)."""

PLANE_MODE = Vocabulary("plane_mode", (
    Term("per-port", "port", N_("Per port"), N_("per-port"), ("per-port",)),
    Term("per-rail", "rail", N_("Per rail"), N_("per-rail"), ("per-rail",)),
))
"""``Design.plane_mode``: how NICs map to planes (short labels: the sidebar's help says what each means)."""

TIERS = Vocabulary("tiers", (
    Term("auto", "auto", N_("auto"), N_("auto")),
    Term(1, "1", "1", "1", translated=False),
    Term(2, "2", "2", "2", translated=False),
    Term(3, "3", "3", "3", translated=False),
))
"""``Design.tiers``: switch tiers, ``auto`` = the fewest that fit."""

CABLE_MEDIA = Vocabulary("cable_media", (
    Term("auto", "auto", N_("auto"), N_("auto")),
    Term("copper", "copper", N_("copper"), N_("copper")),
    Term("aoc", "aoc", N_("active optical (AOC)"), N_("aoc")),
    Term("optics", "optics", N_("optics"), N_("optics")),
    Term("smf", "smf", N_("single-mode optics"), N_("single-mode")),
))
"""``Design.cable_media``: the media preference by link length (``core.physical.media``)."""

PRICE_BASIS = Vocabulary("price_basis", (
    Term("street", "street", N_("street"), N_("street")),
    Term("list", "list", N_("list"), N_("list")),
    Term("hyperscale", "hyperscale", N_("hyperscale"), N_("hyperscale")),
))
"""``Design.price_basis``: which point of each catalog price range a design is priced at."""

PRICE_BASES = Vocabulary("price_bases", (
    *PRICE_BASIS.terms,
    Term("estimate", "estimate", N_("estimate"), N_("estimate")),
    Term("override", "override", N_("override"), N_("override")),
))
"""A price's basis as a BOM row or a catalog entry carries it: a design's ``PRICE_BASIS``, a catalog
``estimate`` (no published price), or a user's ``override``."""

STORAGE = Vocabulary("storage", (
    Term("auto", "auto", N_("auto (as the compute fabric)"), N_("auto")),
    Term("infiniband", "ib", N_("InfiniBand"), N_("InfiniBand"), ("infiniband",)),
    Term("ethernet", "eth", N_("Ethernet"), N_("Ethernet"), ("ethernet",)),
    Term("none", "none", N_("none"), N_("none")),
))
"""``Design.storage``: the storage fabric's kind, or none."""

ON_OFF = Vocabulary("on_off", (
    Term(True, "on", N_("on"), N_("on")),
    Term(False, "off", N_("off"), N_("off")),
))
"""A yes/no setting (``Design.management``)."""

VOCABULARIES = {v.name: v for v in (FABRIC, TRANSPORT, TOPOLOGY, PLANE_MODE, TIERS, CABLE_MEDIA, PRICE_BASIS, PRICE_BASES,
                                     STORAGE, ON_OFF)}
"""Every vocabulary by name."""


COMPUTE_FABRIC_WORDS = {
    False: {"word": N_("compute fabric"), "capex": N_("Capex, compute fabric"),
            "capex_usd": N_("Capex, compute fabric [USD]"), "share": N_("Compute fabric share of capex")},
    True: {"word": N_("compute fabric and NVLink level 2"), "capex": N_("Capex, compute fabric and NVLink level 2"),
           "capex_usd": N_("Capex, compute fabric and NVLink level 2 [USD]"),
           "share": N_("Compute fabric and NVLink level 2 share of capex")},
}
"""The compute fabric's money and power (``CostSummary.network_capex_usd``, ``network_share``, ``network_kw``) by
whether they hold a second NVLink level's parts (``scaleup_capex_usd`` > 0): ``word`` in running text, ``capex``
and ``share`` as a card's or a table row's label (``capex_usd`` a table row's with its unit, for ``in_currency``). Every surface (cards, CLI, Compare, sweep, charts, the review
pack) names these numbers through ``compute_fabric``; nothing else calls them "network"."""


def compute_fabric(kind: str = "word", level2: bool = False) -> str:
    """The compute fabric's name in the current language: ``kind`` "word", "capex", "capex_usd" or "share"
    (``COMPUTE_FABRIC_WORDS``), ``level2`` when its figures hold a second NVLink level's parts."""
    return _(COMPUTE_FABRIC_WORDS[bool(level2)][kind])


CAPEX_PER_GPU = N_("Capex per GPU")
"""The capex per GPU's name (``CostSummary.capex_per_gpu_usd``): the key numbers' and the Cost & power tab's card, the
workbook's Summary row (its unit in a column beside) and, with its unit (``CAPEX_PER_GPU_USD``), Compare's and the
sweep's metric: one quantity, one name."""
CAPEX_PER_GPU_USD = N_("Capex per GPU [USD]")
"""``CAPEX_PER_GPU`` with its unit, as a table's row or a chart's axis names it (``in_currency`` names the currency)."""

INJECTION_WORDS = {"label": N_("Injection/GPU (1 dir)"), "name": N_("Injection per GPU"),
                   "word": N_("injection per GPU"), "metric": N_("Injection per GPU, one direction"),
                   "row": N_("Injection per GPU (one direction)")}
"""A GPU's scale-out NIC bandwidth, one direction, all planes (``bandwidth.scaleout_gbits_per_gpu``): ``label`` the
Designer's card, ``name`` where a text begins with it (the card's help), ``word`` in running text (``python -m core
plan``'s bandwidth row), ``metric`` Compare's and the sweep's metric, ``row`` the workbook's Fabric row (beside
"NVLink per GPU (both directions)"): one name on every surface, through ``injection``."""


def injection(kind: str = "word") -> str:
    """The injection bandwidth's name in the current language: ``kind`` "label", "name" or "word"
    (``INJECTION_WORDS``)."""
    return _(INJECTION_WORDS[kind])
