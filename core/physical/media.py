"""Media by reach: the cable (or transceiver pair and fibre) a link of a given length takes.

Policy (``Design.cable_media``), each a preference order tried until one reaches the length:

=========  ==========================================================================
``auto``   passive copper (DAC) -> active copper (ACC/AEC/LACC) -> multimode optics -> single-mode optics
``copper`` the same order as ``auto`` (kept so old links and files keep working)
``aoc``    DAC -> ACC -> active optical cable -> multimode optics -> single-mode optics
``optics`` multimode optics -> single-mode optics (no copper, no AOC)
``smf``    single-mode optics only
=========  ==========================================================================

A cable (DAC, ACC, AOC) is taken when the catalog has one of that kind for the fabric and speed
whose ``reach_m`` covers the length (cheapest first). Optics: the switch-end module of the cage
family with exactly the cage's ports at the speed (``pick_transceiver``), of that media, whose
``reach_m`` covers the length (cheapest, then shortest reach). A length nothing covers is a
``DesignError`` saying so, with a way out.
"""

from __future__ import annotations

from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from core.catalog import Cable, Catalog, Transceiver, form_factor_family
from core.design import ResolvedDesign, fabric_word, tidy_spaces
from core.errors import DesignError
from core.i18n import N_, _
from core.memo import FrozenDict, stage, view
from core.units import length_bin_name
from core.networks.media import fibre_for  # noqa: F401 - one fibre rule for every network; core.cost uses it from here

MediaKind = str
POLICIES: dict[str, tuple[str, ...]] = {
    "auto": ("dac", "acc", "mmf", "smf"),
    "copper": ("dac", "acc", "mmf", "smf"),
    "aoc": ("dac", "acc", "aoc", "mmf", "smf"),
    "optics": ("mmf", "smf"),
    "smf": ("smf",),
}
"""``Design.cable_media`` -> media kinds in preference order."""
CABLE_KINDS = ("dac", "acc", "aoc")
"""The media kinds that are a cable (no module, no fibre cord)."""
KIND_LABELS = {"dac": N_("passive copper (DAC)"), "acc": N_("active copper"), "aoc": N_("active optical cable"),
               "mmf": N_("multimode optics"), "smf": N_("single-mode optics")}
"""Media kind -> its name in texts, marked for translation."""

NVLINK_CLASS_LABELS = {"nvlink-l2": N_("rack (or node) to level-2 NVLink switch"),
                       "nvlink-direct": N_("rack to rack (NVL36x2, no level-2 switch)")}
"""The level-2 NVLink cables' link classes (``core.physical.cabling.nvlink_summary``) in words (the Racks & cabling
tab's table and the review pack's)."""


class MediaChoice(NamedTuple):
    """What one link takes: a cable, or a switch-end transceiver (and fibre) of ``kind``."""

    kind: str
    cable: Cable | None = None
    module: Transceiver | None = None

    @property
    def reach_m(self) -> float:
        return (self.cable or self.module).reach_m  # type: ignore[union-attr]


def cable_menu(catalog: Catalog, fabric: str, speed_gbps: int, kinds: tuple[str, ...], cage: str = ""
               ) -> tuple[list[Cable], list[Cable]]:
    """The cables a link may take at any length, in catalog order (``cheapest_cable`` picks by a length): those of
    ``kinds`` for ``fabric`` at ``speed_gbps`` [Gb/s per port], and none faster. ``cage`` (a cage family, a
    node-to-node link's NIC cage at both ends): only cables whose plugs fit it (``cable_fits``), and the faster ones
    that fit, taken when none of the speed reaches (run slower, as ``transceiver_options`` runs an OSFP module below
    its top speed): no QSFP28 DAC in an OSFP cage."""
    at_speed = [c for c in catalog.cables if c.kind in kinds and fabric in c.fabrics and c.speed_gbps == speed_gbps
                and (not cage or cable_fits(c, cage))]
    if not cage:
        return at_speed, []
    return at_speed, [c for c in catalog.cables if c.kind in kinds and fabric in c.fabrics
                      and c.speed_gbps > speed_gbps and cable_fits(c, cage)]


def cheapest_cable(menu: tuple[list[Cable], list[Cable]], distance_m: float) -> Cable | None:
    """The cable of ``menu`` (``cable_menu``'s) a link of ``distance_m`` [m] takes: the cheapest (then shortest
    reach) of the speed's cables reaching it, else of the slowest faster ones reaching it, else None."""
    at_speed, faster = menu
    options = _reaching(at_speed, distance_m)
    if not options and faster:
        reaching = _reaching(faster, distance_m)
        options = [c for c in reaching if c.speed_gbps == min(f.speed_gbps for f in reaching)]
    return min(options, key=lambda c: (c.price_usd, c.reach_m)) if options else None


def _reaching(entries, distance_m: float) -> list:
    """The cables or modules of ``entries`` whose reach covers ``distance_m`` [m], in their order."""
    return [e for e in entries if e.reach_m >= distance_m]


def cable_fits(cable: Cable, cage: str) -> bool:
    """Whether ``cable``'s plugs fit a cage of family ``cage``: a cable of no stated form factor stands for
    plugs of several and fits; a QSFP plug fits any QSFP cage (QSFP28 in QSFP112, the family is backward
    compatible), an OSFP plug only an OSFP cage."""
    plug = form_factor_family(cable.form_factor)
    return not plug or not cage or plug == cage or (plug.startswith("QSFP") and cage.startswith("QSFP"))


def cable_options(catalog: Catalog, fabric: str, speed_gbps: int, kinds: tuple[str, ...], distance_m: float
                  ) -> list[Cable]:
    """The cables of ``kinds`` for ``fabric`` at ``speed_gbps`` [Gb/s per port] reaching ``distance_m`` [m], any plug
    (``cable_menu``'s of the speed; ``core.cost``'s link floor prices the cheapest of them)."""
    return _reaching(cable_menu(catalog, fabric, speed_gbps, kinds)[0], distance_m)


def pick_transceiver(
    catalog: Catalog, resolved: ResolvedDesign, end: str, ports: int, distance_m: float, media: str | None = None,
    cage: str = "", strict: bool = False,
) -> Transceiver | None:
    """Cheapest transceiver for ``end`` carrying ``ports`` links at the design's speed.

    Preference: a module with exactly ``ports`` logical ports at the design's speed made for this
    end; then the same made for the other end (a DGX's twin-port cage takes the switch's twin-port
    module); then any module of equal total bandwidth. A module of the ``cage`` family (OSFP,
    QSFP56, ...) is preferred, even one run below its top speed. Within that, ``media`` (smf/mmf)
    is kept when given, and the reach must cover ``distance_m`` [m]. ``strict``: None when no
    module of ``media`` reaches; otherwise the longest-reach module is used when nothing reaches.
    Raises ``DesignError`` when the catalog has no module at all for the speed.
    """
    return module_by_reach(module_menu(catalog, resolved, end, ports, media, cage, strict), distance_m, strict)


def module_menu(catalog: Catalog, at, end: str, ports: int, media: str | None = None, cage: str = "",
                strict: bool = False) -> list[Transceiver]:
    """The modules ``pick_transceiver`` chooses among at any length (``transceiver_options`` at ``at``'s fabric and
    port speed [Gb/s]; ``module_by_reach`` picks by a length); raises its ``DesignError`` when the catalog has no
    module at all for the speed."""
    options = transceiver_options(catalog, at.fabric, at.port_speed_gbps, end, ports, media, cage, strict)
    if options is not None:
        return options
    speed = at.port_speed_gbps
    message = (_("the catalog has no {fabric} transceiver for {ports}x{speed}G at the switch end") if end == "switch"
               else _("the catalog has no {fabric} transceiver for {ports}x{speed}G at the node end"))
    raise DesignError(
        tidy_spaces(message.format(fabric=fabric_word(at.fabric), ports=ports, speed=speed)),
        _("Add one to assets/catalog/optics.toml or choose another port speed."),
    )


def module_by_reach(options: list[Transceiver], distance_m: float, strict: bool = False) -> Transceiver | None:
    """``pick_transceiver``'s choice among its ``transceiver_options`` for a link of ``distance_m`` [m]: the
    cheapest (then shortest reach) that reaches; when none does, None if ``strict`` (or no options), else the
    longest reach (then cheapest)."""
    reaching = _reaching(options, distance_m)
    if reaching:
        return min(reaching, key=lambda t: (t.price_usd, t.reach_m))
    if strict or not options:
        return None
    return max(options, key=lambda t: (t.reach_m, -t.price_usd))


def transceiver_options(catalog: Catalog, fabric: str, speed: int, end: str, ports: int, media: str | None = None,
                        cage: str = "", strict: bool = False) -> list[Transceiver] | None:
    """The modules ``pick_transceiver`` chooses among for ``fabric`` at ``speed`` [Gb/s per port] before their
    reach (its preference tiers, cage family and ``media``), or None when the catalog has none for the speed
    (``pick_transceiver`` then raises); ``core.cost``'s link floor prices the cheapest of them."""
    usable = [t for t in catalog.transceivers if fabric in t.fabrics]
    exact = [t for t in usable if t.logical_ports == ports and t.port_speed_gbps == speed]
    tiers = [
        [t for t in exact if t.end in (end, "any")],
        exact,
        [t for t in usable if t.end in (end, "any") and t.logical_ports * t.port_speed_gbps == ports * speed],
        [t for t in usable if t.end in (end, "any") and t.port_speed_gbps == speed],
    ]
    options = next((tier for tier in tiers if tier), [])
    if cage:
        # keep the module that fits the cage: an OSFP NIC takes an OSFP module, run at a lower
        # speed if need be (a 400G OSFP runs NDR200), rather than a QSFP56 of the exact speed
        fitting = [t for t in options if form_factor_family(t.form_factor) == cage]
        if not fitting:
            fitting = [t for t in usable if form_factor_family(t.form_factor) == cage
                       and t.end in (end, "any") and t.logical_ports == ports and t.port_speed_gbps >= speed]
            fitting = [t for t in fitting if t.port_speed_gbps == min(f.port_speed_gbps for f in fitting)]
        options = fitting or options
    if not options:
        return None
    if strict:
        return [t for t in options if t.media == media]
    if media and any(t.media == media for t in options):
        return [t for t in options if t.media == media]
    return options


def choose_media(catalog: Catalog, resolved: ResolvedDesign, length_m: float, policy: str, *, cage_ports: int,
                 cage: str, link_class: str = "", end: str = "switch") -> MediaChoice:
    """The first media of ``policy`` whose reach covers ``length_m`` [m] at ``resolved``'s port speed.

    ``cage_ports`` and ``cage`` describe the module's end (links per cage, cage family): a switch's, or with
    ``end`` ``"node"`` a node's NIC cage (a node-to-node link's, both ends alike). Raises ``DesignError`` when
    nothing in the catalog reaches. ``MediaMenu.choose`` of one length.
    """
    return MediaMenu(catalog, resolved, policy, cage_ports, cage, end).choose(length_m, link_class)


class MediaMenu:
    """``choose_media`` of one link end (``resolved``'s fabric and port speed, ``policy``, ``cage_ports`` links per
    ``cage``, ``end``) at any length: each media kind's cables (``cable_menu``) or modules (``module_menu``) found
    once, when a length first reaches that kind, then chosen among by each length (``cheapest_cable``,
    ``module_by_reach``): a link class's bins read the catalog once, not once a bin."""

    def __init__(self, catalog: Catalog, resolved, policy: str, cage_ports: int, cage: str, end: str = "switch"):
        self.catalog, self.at, self.policy = catalog, resolved, policy
        self.cage_ports, self.cage, self.end = cage_ports, cage, end
        self.kinds: dict[str, tuple | list] = {}

    def _menu(self, kind: str):
        """``kind``'s cables (``cable_menu``) or modules (``module_menu``) at this end, found once."""
        if kind not in self.kinds:
            at, end = self.at, self.end
            if kind in CABLE_KINDS:
                self.kinds[kind] = cable_menu(self.catalog, at.fabric, at.port_speed_gbps, (kind,),
                                              self.cage if end == "node" else "")
            else:
                self.kinds[kind] = module_menu(self.catalog, at, end, self.cage_ports, kind, self.cage, strict=True)
        return self.kinds[kind]

    def choose(self, length_m: float, link_class: str = "") -> MediaChoice:
        """The first media of the policy whose reach covers ``length_m`` [m] (``choose_media``)."""
        for kind in POLICIES.get(self.policy, POLICIES["auto"]):
            if kind in CABLE_KINDS:
                cable = cheapest_cable(self._menu(kind), length_m)
                if cable is not None:
                    return MediaChoice(kind=kind, cable=cable)
            else:
                module = module_by_reach(self._menu(kind), length_m, strict=True)
                if module is not None:
                    return MediaChoice(kind=kind, module=module)
        at, policy = self.at, self.policy
        raise DesignError(
            tidy_spaces(_("No {fabric} media in the catalog reaches {length} m at {speed}G ({link_class} link, cable "
                          "media {policy}).").format(fabric=fabric_word(at.fabric), length=f"{length_m:,.1f}",
                                                     speed=at.port_speed_gbps, link_class=link_class,
                                                     policy=policy)),
            _("Set cable media to auto (single-mode optics reach furthest), add a longer-reach transceiver to "
              "assets/catalog/optics.toml, or use fewer racks per row."))


# ----------------------------------------------------------------------------------- per link class and bin


class MediaBin(BaseModel):
    """The media of one length bin of one link class (see ``core.physical.lengths.LengthBin``)."""

    model_config = ConfigDict(frozen=True)

    link_class: str
    low_m: float
    high_m: float
    links: int
    max_m: float
    mean_m: float
    route: str
    kind: str
    """dac, acc, aoc, mmf or smf."""
    cable_id: str = ""
    """Catalog id of the DAC/ACC/AOC cable; empty for optics."""
    switch_module_id: str = ""
    """Switch-end transceiver (both ends of a switch-switch link); empty for a cable."""
    node_module_id: str = ""
    """Node-end transceiver of an optical node-leaf link."""
    fibre_id: str = ""
    """Fibre cord of an optical link."""
    reach_m: float = 0.0
    """Reach of the chosen media [m] (covers ``max_m``)."""

    def label(self) -> str:
        """The bin's name (``core.units.length_bin_name``)."""
        return length_bin_name(self.low_m, self.high_m)


def family_link_switches() -> dict[str, str]:
    """Link class -> the switch role at its ends, for the switch-to-switch classes only a topology family has
    (its module's ``LINK_CLASS_SWITCH``, ``core.fabric.families``; at the uplink speed)."""
    from core.fabric.families import declared  # the families are above this module's callers

    return declared("LINK_CLASS_SWITCH")


LinkSpeed = view("LinkSpeed", "fabric port_speed_gbps")
"""A link class's fabric and port speed [Gb/s]: all ``MediaMenu``, ``pick_transceiver`` and ``choose_media`` read
of a design."""


def family_node_classes() -> frozenset[str]:
    """Link classes whose two ends are both nodes' NIC cages, no switch (a torus's ``torus``: its family module's
    ``LINK_CLASS_ENDS``, ``core.fabric.families``): their media are chosen by the NICs' cages at both ends."""
    from core.fabric.families import declared  # the families are above this module's callers

    return frozenset(c for c, ends in declared("LINK_CLASS_ENDS").items() if ends == "node")


def class_speeds(resolved: ResolvedDesign) -> dict[str, LinkSpeed]:
    """Link class -> its fabric and port speed (``LinkSpeed``; uplinks at the uplink speed)."""
    down, up = LinkSpeed(resolved.fabric, resolved.port_speed_gbps), LinkSpeed(resolved.fabric, resolved.uplink_gbps)
    return {"node-leaf": down, "leaf-spine": up, "spine-core": up, "global": up, "torus": down,
            **{c: up for c in family_link_switches()}}


def class_switches(resolved: ResolvedDesign) -> dict:
    """Link class -> the switch model at its switch end (the upper tier for uplinks); none for a class joining two
    nodes (``family_node_classes``: a torus link has no switch end, its media are the NICs' cages')."""
    return {"node-leaf": resolved.switch, "leaf-spine": resolved.tier_switches["spine"],
            "spine-core": resolved.tier_switches["core"], "global": resolved.tier_switches["spine"],
            **{c: resolved.tier_switches[role] for c, role in family_link_switches().items()}}


MediaDesign = view("MediaDesign", "cable_media")
MediaSystem = view("MediaSystem", "node_ports_per_transceiver")
MediaNic = view("MediaNic", "cage_type")
MediaInputs = view("MediaInputs", "fabric port_speed_gbps uplink_gbps planes switch", design=MediaDesign,
                   system=MediaSystem, nic=MediaNic, tier_switches=FrozenDict)
"""What choosing the media reads of a resolved design (``core.memo.view``)."""


def _media_bytes(bins: tuple) -> int:
    """Upper bound of the memory of some media bins [bytes]: 1.5 kB a bin (measured at 0.9 kB; ``tests/test_memo.py``)."""
    return 1536 * (1 + len(bins))


def select_media(catalog: Catalog, resolved: ResolvedDesign, lengths) -> tuple[MediaBin, ...]:
    """Media of every length bin of every link class (``lengths``: ``core.physical.lengths.LinkLengths``s).

    A bin takes the first media of ``Design.cable_media``'s order whose reach covers the bin's
    longest link. Optical node-leaf bins also name the node-end module (the NIC's cage family, the
    switch module's media). A class joining two nodes (``family_node_classes``: a torus's) has its media chosen by
    the NICs' cages at both ends, no switch read: its node module at both ends (``switch_module_id`` and
    ``node_module_id`` the same). Cached by what it reads (``chosen_media``).
    """
    return chosen_media(catalog, MediaInputs.of(resolved), tuple(lengths))


@stage(0.2, _media_bytes)
def chosen_media(catalog: Catalog, resolved: MediaInputs, lengths: tuple) -> tuple[MediaBin, ...]:
    """``select_media`` of the view of a resolved design (``MediaInputs``), cached by these arguments
    (``core.memo.stage``; the bins hold no sentence, so no language)."""
    policy = resolved.design.cable_media
    speeds, switches = class_speeds(resolved), class_switches(resolved)
    out: list[MediaBin] = []
    system, nic = resolved.system, resolved.nic
    per_xcvr = max(system.node_ports_per_transceiver, resolved.planes)  # a NIC's cage carries all its planes
    node_cage = form_factor_family(nic.cage_type)
    node_classes = family_node_classes()
    menus: dict[tuple, MediaMenu] = {}  # one per end: classes of one speed and switch share it
    node_modules: dict[str, list[Transceiver]] = {}  # the node-leaf links' node-end modules per media
    for lengths_of in lengths:
        c = lengths_of.link_class
        at = speeds[c]
        if c in node_classes:  # node to node: the NICs' cages at both ends choose
            end, cage_ports, cage = "node", per_xcvr, node_cage
        else:
            end, cage_ports = "switch", switches[c].ports_per_cage(at.port_speed_gbps)
            cage = form_factor_family(switches[c].cage_type)
        menu = menus.get((at, end, cage_ports, cage))
        if menu is None:
            menu = menus[at, end, cage_ports, cage] = MediaMenu(catalog, at, policy, cage_ports, cage, end)
        for b in lengths_of.bins:
            choice = menu.choose(b.max_m, c)
            fields = dict(link_class=c, low_m=b.low_m, high_m=b.high_m, links=b.links, max_m=b.max_m,
                          mean_m=b.mean_m, route=b.route, kind=choice.kind, reach_m=choice.reach_m)
            if choice.cable is not None:
                out.append(MediaBin(**fields, cable_id=choice.cable.id))
                continue
            module = choice.module
            node_id = module.id if end == "node" else ""
            if c == "node-leaf":
                if module.media not in node_modules:
                    node_modules[module.media] = module_menu(catalog, resolved, "node", per_xcvr, module.media,
                                                             node_cage)
                node_id = module_by_reach(node_modules[module.media], b.max_m).id
            fibre = fibre_for(catalog, module, b.max_m)
            out.append(MediaBin(**fields, switch_module_id=module.id, node_module_id=node_id, fibre_id=fibre.id))
    return tuple(out)


def media_for(bins: tuple[MediaBin, ...], link_class: str, length_m: float) -> MediaBin | None:
    """The media bin of ``link_class`` that a link of ``length_m`` [m] falls in (the cabling plan's lookup)."""
    for b in bins:
        if b.link_class == link_class and (b.low_m < length_m <= b.high_m or (b.low_m == 0 and length_m <= b.high_m)):
            return b
    candidates = [b for b in bins if b.link_class == link_class and b.reach_m >= length_m]
    return min(candidates, key=lambda b: b.reach_m) if candidates else None
