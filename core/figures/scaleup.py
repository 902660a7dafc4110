"""One NVLink domain (HGX node or NVL72 rack): GPUs, NVSwitch chips and their links."""

from __future__ import annotations

import math
from collections import defaultdict

import plotly.graph_objects as go

from core.catalog import load_catalog
from core.scaleup import KIND_LABELS, all_peers_gbytes, in_noun, links_per_peer
from core.fabric.families import cabled_nics
from core.units import bandwidth as format_bandwidth
from core.figures.style import TIER_COLOURS, FigureSpec, base_layout, line_width, scatter, wrap_text
from core.figures.scaleup_levels import DRAWING_Y, fit_height, two_level_figure
from core import plurals
from core.i18n import _, ngettext


# nvidia-smi topo -m of a DGX-1V: NVLink count between GPU pairs (hybrid cube-mesh, 6 links per GPU).
DGX1_CUBE_MESH = {
    (0, 1): 1, (0, 2): 1, (0, 3): 2, (0, 4): 2, (1, 2): 2, (1, 3): 1, (1, 5): 2, (2, 3): 2, (2, 6): 1,
    (3, 7): 1, (4, 5): 1, (4, 6): 1, (4, 7): 2, (5, 6): 2, (5, 7): 1, (6, 7): 2,
}


CROWDED_LINES = 0.5
"""The link lines' width factor with more than four GPUs (or trays) on top: at a 1,024 px window an HGX board's 32
lines of 3.5 to 6 px merged into one block; the width still tells a GPU's 5 links to a chip from its 4."""


def nvlink_links_per_gpu(plan) -> int:
    """Scale-up links per GPU: for NVLink, bidir bandwidth / the chosen generation's per-link bidir bandwidth;
    otherwise the system's own link count."""
    r = plan.resolved
    if not r.nvlink_generation:
        return r.system.nvlink_links_per_gpu
    generation = load_catalog().nvlink_generation(r.nvlink_generation)
    return max(0, round(r.nvlink_gbytes_per_gpu_bidir / generation.link_gbytes_bidir))


def _link_gbytes_bidir(plan) -> float:
    """One scale-up link, both directions summed [GB/s]."""
    r = plan.resolved
    if r.nvlink_generation:
        return load_catalog().nvlink_generation(r.nvlink_generation).link_gbytes_bidir
    return 2 * r.system.scaleup_link_gbytes_per_direction


def _title(plan, domain: int, gpn: int) -> str:
    """The figure's first title line: the domain's technology (NVLink generation, or its name and kind) and size."""
    r = plan.resolved
    if r.nvlink_generation:
        if domain > gpn:
            return _("Scale-up: NVLink {generation} domain of {gpus} GPUs ({nodes} x {gpus_per_node})").format(
                generation=r.nvlink_generation, gpus=domain, nodes=domain // gpn, gpus_per_node=gpn)
        return _("Scale-up: NVLink {generation} domain of {gpus} GPUs").format(
            generation=r.nvlink_generation, gpus=domain)
    kind = _(KIND_LABELS[r.system.scaleup_kind])
    if domain > gpn:
        return _("Scale-up: {name} domain of {gpus} accelerators ({nodes} x {gpus_per_node}, {kind})").format(
            name=r.system.scaleup_name, gpus=domain, nodes=domain // gpn, gpus_per_node=gpn, kind=kind)
    return _("Scale-up: {name} domain of {gpus} accelerators ({kind})").format(
        name=r.system.scaleup_name, gpus=domain, kind=kind)


def _mesh(fig: FigureSpec, plan, domain: int, links: int, link_bidir: float, unit: str) -> go.Figure:
    """A direct-mesh domain (``core.scaleup``): accelerators on a circle, every pair joined by its links;
    ``link_bidir`` [GB/s per link, bidirectional] shown in ``unit``."""
    r = plan.resolved
    per = links_per_peer(links, r.system.nvlink_domain_gpus)  # the board's wiring, whatever the domain
    peer = per * link_bidir / 2
    angle = [math.pi / 2 - 2 * math.pi * i / domain for i in range(domain)]
    pos = {i: (0.5 + 0.42 * math.cos(a), 0.5 + 0.42 * math.sin(a)) for i, a in enumerate(angle)}
    pairs = [(a, b) for a in range(domain) for b in range(a + 1, domain)]
    xs, ys = [], []
    for a, b in pairs:
        xs += [pos[a][0], pos[b][0], None]
        ys += [pos[a][1], pos[b][1], None]
    fig.add_trace(scatter(x=xs, y=ys, mode="lines", line=dict(width=1.0 + per, color=TIER_COLOURS["spine"]),
                          opacity=0.7, hoverinfo="skip"))
    fig.add_trace(scatter(
        x=[(pos[a][0] + pos[b][0]) / 2 for a, b in pairs], y=[(pos[a][1] + pos[b][1]) / 2 for a, b in pairs],
        mode="markers", marker=dict(size=8, color="rgba(0,0,0,0)"), hoverinfo="text",
        hovertext=[in_noun(ngettext("GPU {a} - GPU {b}: {count} link = {bandwidth} bidir",
                                    "GPU {a} - GPU {b}: {count} links = {bandwidth} bidir", per).format(
            a=a, b=b, count=per, bandwidth=format_bandwidth(per * link_bidir * 8, unit)), r.system)
            for a, b in pairs]))
    fig.add_trace(scatter(
        x=[p[0] for p in pos.values()], y=[p[1] for p in pos.values()], mode="markers+text",
        text=[f"{i}" for i in pos], textposition="middle center", textfont=dict(size=10),
        marker=dict(size=24 if domain <= 8 else 16, symbol="square", color="#d5dbdb",
                    line=dict(color=TIER_COLOURS["server"], width=2)),
        hovertext=[in_noun(_("GPU {n}: {links} {name} links, {per} to each peer").format(
            n=i, links=links, name=r.system.scaleup_name, per=per), r.system) for i in pos], hoverinfo="text"))
    detail = ngettext("Direct mesh, no switch chips: {per} link to each of {peers} peers; to one peer {peer}, to "
                      "all peers at once {all} (per direction)",
                      "Direct mesh, no switch chips: {per} links to each of {peers} peers; to one peer {peer}, to "
                      "all peers at once {all} (per direction)",
                      per).format(
        per=per, peers=domain - 1, peer=format_bandwidth(peer * 8, unit),
        all=format_bandwidth(all_peers_gbytes(peer, domain) * 8, unit))
    detail += "<br>" + _scaleout_line(plan, per_tray=False)
    note = wrap_text(detail, 36)
    fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=-0.02, showarrow=False, xanchor="left",
                       yanchor="top", align="left", font=dict(size=11))
    fig.update_layout(yaxis=dict(visible=False, range=[0.0, 1.0], scaleanchor="x"),
                      xaxis=dict(visible=False, range=[0.0, 1.0]),
                      margin=dict(l=10, r=10, t=fig.margin_top + 10, b=24 + 15 * (note.count('<br>') + 1)))
    return fig.figure()


def _scaleout_line(plan, per_tray: bool) -> str:
    """The caption's scale-out line: the node's (or tray's, with ``per_tray``) NICs at the port speed [Gb/s per
    direction], and how many of them the fabric cables when some stay unused (``core.fabric.families.cabled_nics``:
    a torus)."""
    r = plan.resolved
    planes = plan.planes  # the design's planes (per-rail planes: the fabric's islands)
    scaleout = dict(nics=r.nics_per_node, nic=r.nic.id, speed=r.port_speed_gbps, planes=plurals.planes(planes),
                    each=r.nics_per_node // planes)
    if r.plane_mode == "per-rail" and planes > 1:  # each NIC in one plane
        each = scaleout["each"]  # 8 NICs in 8 planes: one NIC in each
        line = (ngettext("Scale-out: {nics} x {nic} at {speed}G per tray ({planes}, {each} NIC in each)",
                         "Scale-out: {nics} x {nic} at {speed}G per tray ({planes}, {each} NICs in each)", each)
                if per_tray else
                ngettext("Scale-out: {nics} x {nic} at {speed}G per node ({planes}, {each} NIC in each)",
                         "Scale-out: {nics} x {nic} at {speed}G per node ({planes}, {each} NICs in each)", each))
    else:
        line = (_("Scale-out: {nics} x {nic} at {speed}G per tray ({planes})") if per_tray
                else _("Scale-out: {nics} x {nic} at {speed}G per node ({planes})"))
    line = line.format(**scaleout)
    cabled = cabled_nics(plan.fabric, r.nics_per_node)
    if cabled < r.nics_per_node:
        line += " " + _("of which {cabled} cabled, {unused} unused").format(
            cabled=cabled, unused=r.nics_per_node - cabled)
    return line


def nvswitch_spread_text(links: int, per_chip: list[int]) -> str:
    """How a GPU's NVLink links spread over the NVSwitch chips, in words."""
    chips = len(per_chip)
    if len(set(per_chip)) == 1:
        if per_chip[0] == 1:
            return _("{links} links per GPU, one to each of {chips} NVSwitch chips").format(links=links, chips=chips)
        return _("{links} links per GPU, {each} to each of {chips} NVSwitch chips").format(
            links=links, each=per_chip[0], chips=chips)
    return _("{links} links per GPU spread over {chips} NVSwitch chips ({spread})").format(
        links=links, chips=chips, spread="+".join(map(str, per_chip)))


def _direct_links(fig: FigureSpec, domain: int, gpn: int, links: int, link_bidir: float, unit: str) -> go.Figure:
    """A domain without NVSwitch: GPU-GPU links (the DGX-1V hybrid cube-mesh, else schematic all-to-all),
    ``link_bidir`` [GB/s per link, bidirectional] shown in ``unit``."""
    n = domain
    if n == 8 and gpn == 8:
        pairs = DGX1_CUBE_MESH
        note = _("hybrid cube-mesh, no NVSwitch (DGX-1V as {command} shows it)").format(
            command="nvidia-smi topo -m")
    else:
        per = max(1, links // max(1, n - 1))
        pairs = {(i, j): per for i in range(n) for j in range(i + 1, n)}
        note = _("direct GPU-GPU links, schematic")
    pos = {i: ((i % 4) / 3 if n >= 4 else i / max(1, n - 1), 1.0 if i < 4 else 0.0) for i in range(n)}
    for (a, b), count in pairs.items():
        fig.add_trace(scatter(x=[pos[a][0], pos[b][0]], y=[pos[a][1], pos[b][1]], mode="lines",
                                 line=dict(width=1.5 + 2 * count, color=TIER_COLOURS["spine"]), opacity=0.7,
                                 hoverinfo="skip"))
    fig.add_trace(scatter(
        x=[(pos[a][0] + pos[b][0]) / 2 for a, b in pairs], y=[(pos[a][1] + pos[b][1]) / 2 for a, b in pairs],
        mode="markers", marker=dict(size=10, color="rgba(0,0,0,0)"), hoverinfo="text",
        hovertext=[ngettext("GPU {a} - GPU {b}: {count} link = {bandwidth} bidir",
                            "GPU {a} - GPU {b}: {count} links = {bandwidth} bidir", c).format(
            a=a, b=b, count=c, bandwidth=format_bandwidth(c * link_bidir * 8, unit))
            for (a, b), c in pairs.items()]))
    fig.add_trace(scatter(x=[p[0] for p in pos.values()], y=[p[1] for p in pos.values()],
                             mode="markers+text", text=[f"GPU {i}" for i in pos], textposition="middle center",
                             marker=dict(size=44, symbol="square", color="#d5dbdb",
                                         line=dict(color=TIER_COLOURS["server"], width=2)),
                             hovertext=[_("GPU {n}: {links} NVLink links").format(n=i, links=links) for i in pos],
                             hoverinfo="text"))
    fig.add_annotation(text=note, xref="paper", yref="paper", x=0, y=-0.02, showarrow=False, xanchor="left")
    fig.update_layout(yaxis=dict(visible=False, range=[-0.4, 1.4]), xaxis=dict(visible=False,
                                                                               range=[-0.2, 1.2]))
    return fig.figure()


def scaleup_figure(plan, unit: str = "GB/s", height: int | None = None) -> go.Figure:
    """One NVLink domain: GPUs (or compute trays), NVSwitch chips (or switch trays) and link counts; ``height`` [px],
    None: a switched domain's drawing
    ``core.figures.scaleup_levels.DRAWING_PX`` tall with its title and caption (``fit_height``), else 560.

    The domain is ``resolved.nvlink_domain_gpus`` GPUs; NVSwitch chips come
    from the system (scaled when the domain differs from the system's); each
    GPU's ``L`` links spread evenly over the ``C`` chips (``L // C`` each,
    the first ``L % C`` chips one more). Systems without NVSwitch draw
    direct GPU-GPU links (the DGX-1V cube-mesh as ``nvidia-smi topo`` shows it). A domain of two NVLink levels
    is ``core.figures.scaleup_levels.two_level_figure``.
    """
    r = plan.resolved
    if r.nvlink_rack_gpus:  # two NVLink levels (core.fabric.domainlevels)
        return two_level_figure(plan, unit, height)
    system = r.system
    link_bidir = _link_gbytes_bidir(plan)
    domain, gpn = r.nvlink_domain_gpus, r.gpus_per_node
    links = nvlink_links_per_gpu(plan)
    chips = system.nvswitch_chips_for(domain)
    fig = FigureSpec()
    title = _title(plan, domain, gpn)
    title += "<br><sup>" + in_noun(_("{links} links per GPU x {link} bidir = {total} per GPU (bidir)").format(
        links=links, link=format_bandwidth(link_bidir * 8, unit),
        total=format_bandwidth(r.nvlink_gbytes_per_gpu_bidir * 8, unit)), system) + "</sup>"
    base_layout(fig, title, height or 560, slot="two_fifths")
    title_top = fig.margin_top
    fig.update_layout(xaxis=dict(visible=False), yaxis=dict(visible=False), showlegend=False, hovermode="closest")

    if domain <= 1 or links == 0:
        xs = [i / max(1, gpn - 1) for i in range(gpn)]
        fig.add_trace(scatter(x=xs, y=[1] * gpn, mode="markers+text", text=[f"GPU {i}" for i in range(gpn)],
                                 textposition="top center", marker=dict(size=26, symbol="square",
                                                                        color=TIER_COLOURS["server"])))
        fig.add_annotation(text=_("No NVLink domain: GPUs talk through the NICs"), x=0.5, y=0.6, showarrow=False)
        return fig.figure()

    if system.is_mesh:
        return _mesh(fig, plan, domain, links, link_bidir, unit)
    if not chips:  # direct links
        return _direct_links(fig, domain, gpn, links, link_bidir, unit)

    # NVSwitch: GPUs (or trays) on top, chips (or switch trays) below
    per_pair = [links // chips + (1 if c < links % chips else 0) for c in range(chips)]
    gpu_units = domain if domain <= 16 else domain // gpn
    gpus_per_unit = domain // gpu_units
    chips_per_unit = 1 if chips <= 8 else 2
    tiers = chips > links  # more chips than a GPU has links: switch tiers (the GPUs reach the first)
    if tiers:  # one group of chips per GPU link (CloudMatrix 384: 14 groups of 32 unified-bus chips)
        chips_per_unit = math.ceil(chips / links)
        per_pair = [1 if c % chips_per_unit == 0 else 0 for c in range(chips)]
        rack_gpus = gpn * max(1, r.nodes_per_rack)
        if domain > rack_gpus and domain % rack_gpus == 0:  # its compute racks on top (CloudMatrix 384: 12)
            gpu_units, gpus_per_unit = domain // rack_gpus, rack_gpus
    chip_units = math.ceil(chips / chips_per_unit)
    nvswitch = bool(r.nvlink_generation)

    def unit_name(u: int) -> str:  # u counts from 0, the name from 1
        if gpus_per_unit > gpn:
            return _("compute rack {n}").format(n=u + 1)
        return f"GPU {u + 1}" if gpus_per_unit == 1 else _("tray {n}").format(n=u + 1)

    def switch_name(s: int) -> str:
        if not nvswitch:
            return (_("switch chip {n}") if chips_per_unit == 1 else _("switch group {n}")).format(n=s + 1)
        return (_("NVSwitch chip {n}") if chips_per_unit == 1 else _("NVSwitch tray {n}")).format(n=s + 1)

    top = {u: (u / max(1, gpu_units - 1), 1.0) for u in range(gpu_units)}
    bottom = {s: ((s + 0.5) / chip_units if chip_units > 1 else 0.5, 0.0) for s in range(chip_units)}
    max_count = gpus_per_unit * chips_per_unit * max(per_pair)
    segments: dict[float, list] = defaultdict(list)
    mids = []
    for u in range(gpu_units):
        for s in range(chip_units):
            chip_ids = range(s * chips_per_unit, min(chips, (s + 1) * chips_per_unit))
            count = gpus_per_unit * sum(per_pair[c] for c in chip_ids)
            if count == 0:
                continue
            dense = gpu_units * chip_units > 64  # e.g. NVL72: 18 trays x 9 switch trays, every pair linked
            width = 1.0 if dense else line_width(count, max_count) * (CROWDED_LINES if gpu_units > 4 else 1.0)
            segments[width].append((top[u], bottom[s]))
            hover = ngettext("{a} - {b}: {count} link = {bandwidth} bidir",
                             "{a} - {b}: {count} links = {bandwidth} bidir", count).format(
                a=unit_name(u), b=switch_name(s), count=count, bandwidth=format_bandwidth(count * link_bidir * 8, unit))
            mids.append(((top[u][0] + bottom[s][0]) / 2, 0.5, hover))
    opacity = 0.8 if gpu_units <= 4 else 0.6 if gpu_units * chip_units <= 64 else 0.45
    for width, segs in segments.items():
        xs, ys = [], []
        for (x0, y0), (x1, y1) in segs:
            xs += [x0, x1, None]
            ys += [y0, y1, None]
        fig.add_trace(scatter(x=xs, y=ys, mode="lines", line=dict(width=width, color=TIER_COLOURS["spine"]),
                                 opacity=opacity, hoverinfo="skip"))
    fig.add_trace(scatter(x=[m[0] for m in mids], y=[m[1] for m in mids], mode="markers",
                             marker=dict(size=8, color="rgba(0,0,0,0)"), hovertext=[m[2] for m in mids],
                             hoverinfo="text"))
    # marker sizes are pixels: at 1,024 px the drawing is about 200 px wide, 8 boxes 27 px apart (40 px overlapped,
    # 22 px touched)
    size_top = 40 if gpu_units <= 4 else 16
    fig.add_trace(scatter(
        x=[p[0] for p in top.values()], y=[1.0] * gpu_units, mode="markers+text",
        # GPU index or tray number (the hover names it); of 18 trays every third, so the numbers never touch
        text=[(f"{u}" if gpus_per_unit == 1 else f"{u + 1}") if gpu_units <= 9 or u % 3 == 0 or u == gpu_units - 1
              else "" for u in top] if gpu_units <= 18 else None,
        textposition="middle center" if gpu_units <= 8 else "top center", textfont=dict(size=10),
        marker=dict(size=size_top, symbol="square", color="#d5dbdb", line=dict(color=TIER_COLOURS["server"], width=2)),
        hovertext=[ngettext("{unit}: {gpus} GPU x {links} {link} links", "{unit}: {gpus} GPUs x {links} {link} links",
                            gpus_per_unit).format(
            unit=unit_name(u), gpus=gpus_per_unit, links=links, link=r.system.scaleup_name) for u in top],
        hoverinfo="text"))
    fig.add_trace(scatter(
        x=[p[0] for p in bottom.values()], y=[0.0] * chip_units, mode="markers+text",
        # the unit's number only, whatever the domain (the hover names each, the caption says what they are): pods of
        # two domains read "NVSwitch 1" beside "1"
        text=[f"{s + 1}" for s in bottom],
        textposition="bottom center", textfont=dict(size=10),
        marker=dict(size=30 if chip_units <= 8 else 20, symbol="diamond", color=TIER_COLOURS["spine"]),
        hovertext=[ngettext("{switch} (gen {generation}; {chips} chip)", "{switch} (gen {generation}; {chips} chips)",
                            chips_per_unit).format(
            switch=switch_name(s), generation=system.nvswitch_generation, chips=chips_per_unit) for s in bottom],
        hoverinfo="text"))
    detail = nvswitch_spread_text(links, per_pair)
    if tiers:
        detail = _("{links} links per accelerator into {chips} {name} switch chips in more than one tier (each node's "
                   "own and {racks} switch racks)").format(
            links=links, chips=chips, name=system.scaleup_name, racks=system.scaleup_switch_racks)
    if gpus_per_unit > gpn:
        detail += "<br>" + _("Top: {racks} compute racks of {gpus} accelerators; bottom: {groups} groups of {chips} "
                             "switch chips").format(racks=gpu_units, gpus=gpus_per_unit, groups=chip_units,
                                                    chips=chips_per_unit)
    elif gpus_per_unit > 1 and not nvswitch:
        detail += "<br>" + _("Top: {trays} nodes of {gpus} accelerators; bottom: {groups} groups of {chips} switch "
                             "chips").format(trays=gpu_units, gpus=gpus_per_unit, groups=chip_units,
                                             chips=chips_per_unit)
    if gpus_per_unit > 1 and nvswitch:
        per_tray = gpus_per_unit * sum(per_pair[:chips_per_unit])
        detail += "<br>" + _("Top: {trays} compute trays of {gpus} GPUs; bottom: {switch_trays} NVSwitch trays of "
                             "{chips} chips").format(trays=gpu_units, gpus=gpus_per_unit, switch_trays=chip_units,
                                                     chips=chips_per_unit)
        detail += "<br>" + _("Each line: {links} links between a compute tray and a switch tray").format(links=per_tray)
    # the node's NICs: the rails into the scale-out fabric
    detail += "<br>" + _scaleout_line(plan, per_tray=gpus_per_unit != 1)
    note = wrap_text(detail, 36)
    fig.add_annotation(text=note,
                       xref="paper", yref="paper", x=0, y=-0.02, showarrow=False, xanchor="left", yanchor="top",
                       align="left", font=dict(size=11))
    fig.update_layout(yaxis=dict(visible=False, range=DRAWING_Y), xaxis=dict(visible=False, range=[-0.08, 1.08]))
    fit_height(fig, title_top, note, height)
    return fig.figure()


