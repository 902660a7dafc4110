"""Racks and the hall: a rack-elevation drawing, a floor plan and a cable-length chart (Plotly, pure).

Readable at any size by grouping: the elevation draws each distinct rack once (same kind, power and
devices) with how many racks look like it ("x 2,048"); the floor plan draws runs of identical rows
once ("rows 3-120, x 118"), at most ``MAX_ROWS`` lines and ``MAX_RACK_TYPES`` elevations.
Colours are by device and rack kind; a rack's power shows as its marker's text and in the hover.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from core.figures.style import base_layout
from core.i18n import N_, _, ngettext
from core.units import kw
from core.physical.layout import NODE_KINDS, Layout, Rack

MAX_RACK_TYPES = 8
"""Most distinct racks the elevation draws side by side."""
MAX_ROWS = 14
"""Most row lines the floor plan draws (identical rows bundled first, then the rest summarised)."""
DEVICE_COLOURS = {"node": "#5d6d7e", "nvl72": "#34495e", "leaf": "#2e86c1", "spine": "#117a65", "core": "#7d3c98",
                  "nvswitch": "#48c9b0", "nvlink2": "#af7ac5", "storage": "#d35400", "management": "#b7950b"}
RACK_COLOURS = {"compute": "#5d6d7e", "network": "#2e86c1", "storage": "#d35400", "management": "#b7950b"}
DEVICE_LABELS = {"node": N_("node"), "nvl72": N_("compute tray"), "leaf": N_("leaf switch"),
                 "spine": N_("spine switch"), "core": N_("core switch"), "nvswitch": N_("NVLink switch tray"),
                 "nvlink2": N_("level-2 NVLink switch"), "storage": N_("storage"),
                 "management": N_("management")}
"""Device kind (a key) -> its name, marked for translation."""
RACK_LABELS = {"compute": N_("compute"), "network": N_("network"), "storage": N_("storage"),
               "management": N_("management")}
"""Rack kind (a key) -> its name, marked for translation."""


def _kw(value: float) -> str:
    return kw(value)


def rack_types(layout: Layout) -> list[tuple[Rack, int]]:
    """Distinct racks (the first of each kind of content) with how many racks share it, most common first
    within each rack kind (compute, network, storage, management)."""
    seen: dict[tuple, list] = {}
    for rack in layout.racks:
        key = rack.signature()
        if key in seen:
            seen[key][1] += 1
        else:
            seen[key] = [rack, 1]
    order = {"compute": 0, "network": 1, "storage": 2, "management": 3}
    return sorted(((r, n) for r, n in seen.values()), key=lambda item: (order[item[0].kind], -item[1]))


STAGGER_ABOVE = 8
"""More rack types than this side by side: every other one's name drawn two lines lower and its power a line
higher (1,024 px)."""


def rack_elevation_figure(layout: Layout, most: int = MAX_RACK_TYPES, name=None) -> go.Figure:
    """Each distinct rack U by U (bottom = U1), devices coloured by kind, at most ``most`` of them side by side (a
    hall of pods has more kinds of racks); hover: each device's name, model, kW. ``name``: a device id (``node1``,
    ``p0.leaf0``) -> the name people see (``core.analysis.failure.names.ElementNames.device_name``: ``gpu002``,
    ``leaf001``, as the exports and the single points name it); None: the ids."""
    name = name or str
    fig = go.Figure()
    types = rack_types(layout)
    shown = types[:most]
    columns = []
    legend_done: set[str] = set()
    for x, (rack, count) in enumerate(shown):
        # more than five racks: three short lines, level, so a 1,024 px page does not slant them and drop one
        # more than eight: every other rack's name two lines lower (its kind beside nothing) and its power higher,
        # so long words ("management") and neighbouring kW figures do not run into each other at 1,024 px
        staggered = len(shown) > STAGGER_ABOVE and x % 2 == 1
        columns.append(("<br><br>" if staggered else "") + (
            _("{rack}<br>{kind}<br>x {count}") if len(shown) > 5 else _("{rack}<br>{kind}, x {count}"))
                       .format(rack=rack.name, kind=_(RACK_LABELS[rack.kind]), count=f"{count:,}"))
        for slot in rack.slots:
            bases = [slot.first_u - 1 + i * slot.height_u for i in range(slot.count)]
            hover = [_("{names}<br>{model}, {kind}<br>U{u}, {height}U, {kw} kW").format(
                names=name(f"{slot.prefix}{slot.start + i}"), model=slot.model, kind=_(DEVICE_LABELS[slot.kind]),
                u=int(slot.first_u + i * slot.height_u), height=f"{slot.height_u:g}", kw=_kw(slot.watts_each / 1000))
                for i in range(slot.count)]
            fig.add_trace(go.Bar(
                x=[x] * slot.count, y=[slot.height_u] * slot.count, base=bases, width=0.7,
                marker=dict(color=DEVICE_COLOURS[slot.kind], line=dict(color="white", width=1)),
                name=_(DEVICE_LABELS[slot.kind]), legendgroup=slot.kind, showlegend=slot.kind not in legend_done,
                hovertext=hover, hoverinfo="text"))
            legend_done.add(slot.kind)
        # the empty frame of the rack and its power
        fig.add_shape(type="rect", x0=x - 0.4, x1=x + 0.4, y0=0, y1=rack.u_total, line=dict(color="#95a5a6", width=1))
        power = _("{kw} / {limit} kW").format(kw=_kw(rack.kw), limit=_kw(rack.kw_limit))
        if len(shown) > 5:  # in two lines, so neighbouring racks' figures do not run into each other
            power = power.replace(" / ", "<br>/ ", 1)
        fig.add_annotation(x=x, y=rack.u_total, yshift=(12 if len(shown) <= 5 else 18) + (30 if staggered else 0),
                           showarrow=False, text=power, font=dict(size=11))
    more = len(types) - len(shown)
    title = _("Rack elevations: {types} distinct racks of {racks}").format(types=f"{len(types):,}",
                                                                           racks=f"{len(layout.racks):,}")
    if more > 0:
        title += "<br><sup>" + _("{more} more rack types not drawn").format(more=more) + "</sup>"
    fig = base_layout(fig, title, 460, slot="full")
    top = max((r.u_total for r, _n in shown), default=48)
    # the legend under the two-line rack names, growing downwards (with NVLink trays and level-2 switches it takes
    # two lines, which drawn upwards from below covered the names), lower where a narrow page slants many names
    fig.update_layout(barmode="overlay", bargap=0.3, showlegend=True,
                      legend=dict(orientation="h", yanchor="top", x=0, y=-0.16 if len(shown) <= 5 else (
                          -0.46 if len(shown) > STAGGER_ABOVE else -0.3)),
                      xaxis=dict(tickmode="array", tickvals=list(range(len(shown))), ticktext=columns, tickangle=0,
                                 tickfont=dict(size=11 if len(shown) > 5 else 12),
                                 range=[-0.6, max(len(shown), 3) - 0.4]),
                      yaxis=dict(title=_("rack unit [U]"), dtick=4, range=[
                          0, top + (3 if len(shown) <= 5 else (13 if len(shown) > STAGGER_ABOVE else 7))],
                                 gridcolor="#ecf0f1"))
    return fig


def _row_groups(layout: Layout) -> list[tuple[int, int]]:
    """Runs of consecutive identical rows: (first row, last row), 0-based."""
    groups: list[tuple[int, int]] = []
    signature = None
    for row in layout.rows:
        key = (row.kind, row.racks, _row_signature(layout, row.index))
        if groups and key == signature:
            groups[-1] = (groups[-1][0], row.index)
        else:
            groups.append((row.index, row.index))
            signature = key
    return groups


def _row_signature(layout: Layout, row: int) -> tuple:
    starts = _row_starts(layout)
    return tuple(r.signature() for r in layout.racks[starts[row]:starts[row + 1]])


def _row_starts(layout: Layout) -> list[int]:
    starts = [0]
    for row in layout.rows:
        starts.append(starts[-1] + row.racks)
    return starts


def floor_plan_figure(layout: Layout, row_tags: dict[int, str] | None = None,
                      gpus_per_node: dict[str, int] | None = None) -> go.Figure:
    """Rows of racks seen from above, coloured by kind, each rack's kW as text; identical rows bundled; ``row_tags``:
    0-based row -> a word after its label (a hall of pods: whose rows they are); hover: the rack's devices
    (``rack_devices``: nodes as nodes, with ``gpus_per_node``: system id -> GPUs per node)."""
    fig = go.Figure()
    groups = _row_groups(layout)
    drawn = groups[:MAX_ROWS]
    starts = _row_starts(layout)
    labels = []
    by_kind: dict[str, dict[str, list]] = {}
    for line, (first, last) in enumerate(drawn):
        racks = layout.racks[starts[first]:starts[first + 1]]
        n = last - first + 1
        labels.append((_("Row {row}").format(row=first + 1) if n == 1 else
                       _("Rows {first}-{last} (x {count})").format(first=first + 1, last=last + 1, count=n))
                      + (" · " + row_tags[first] if row_tags and row_tags.get(first) else ""))
        for rack in racks:
            d = by_kind.setdefault(rack.kind, {"x": [], "y": [], "text": [], "hover": [], "fill": []})
            d["x"].append(rack.position + 1)
            d["y"].append(line)
            d["text"].append(_kw(rack.kw))  # the power rule: three figures ("40.8", "5.98") fit the dot
            d["fill"].append(min(1.0, rack.kw / rack.kw_limit) if rack.kw_limit else 0)
            devices = rack_devices(rack, gpus_per_node or {}) or _("empty")
            d["hover"].append(_("{rack} ({kind}){also}<br>{kw} of {limit} kW, {used} of {units}U<br>{devices}").format(
                rack=rack.name, kind=_(RACK_LABELS[rack.kind]),
                also="" if n == 1 else " " + _("(the same in {count} rows)").format(count=n),
                kw=_kw(rack.kw), limit=_kw(rack.kw_limit), used=f"{rack.u_used:g}", units=rack.u_total,
                devices=devices))
    for kind in ("compute", "network", "storage", "management"):
        if kind not in by_kind:
            continue
        d = by_kind[kind]
        fig.add_trace(go.Scatter(
            x=d["x"], y=d["y"], mode="markers+text", text=d["text"], textposition="middle center",
            textfont=dict(size=9, color="white"), hovertext=d["hover"], hoverinfo="text",
            marker=dict(symbol="square", size=22, color=RACK_COLOURS[kind],
                        opacity=[0.45 + 0.55 * f for f in d["fill"]], line=dict(color="white", width=1)),
            name=_(RACK_LABELS[kind])))
    hidden = sum(last - first + 1 for first, last in groups[MAX_ROWS:])
    counts = layout.counts()
    title = _("Floor plan: {racks} racks in {rows} rows, {area} m² (kW per rack on each rack)").format(
        racks=f"{counts['total']:,}", rows=f"{len(layout.rows):,}", area=f"{layout.floor_area_m2:,.0f}")
    if hidden:
        title += "<br><sup>" + _("{rows} more rows not drawn").format(rows=f"{hidden:,}") + "</sup>"
    longest = max((r.racks for r in layout.rows), default=1)
    fig = base_layout(fig, title, 120 + 34 * len(drawn), slot="full")
    fig.update_layout(
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=1, xanchor="right"),
        xaxis=dict(title=_("position in row"), range=[0.3, longest + 0.7], dtick=1 if longest <= 24 else 5,
                   showgrid=False, zeroline=False),
        yaxis=dict(tickmode="array", tickvals=list(range(len(drawn))), ticktext=labels, autorange="reversed",
                   showgrid=False, zeroline=False))
    return fig


def rack_devices(rack: Rack, gpus_per_node: dict[str, int]) -> str:
    """A rack's devices in words, each model once with its count summed over the rack's slots (a Dragonfly+ rack's
    leaves and spines of one model: ``33 x QM9700``); nodes said as nodes, their GPUs as every description says
    them (``4 nodes of 8 x H100``; ``gpus_per_node``: system id -> GPUs per node, a model not in it: ``4 nodes of
    H100``)."""
    counts: dict[tuple[bool, str], int] = {}
    for slot in rack.slots:
        key = (slot.kind in NODE_KINDS, slot.model)
        counts[key] = counts.get(key, 0) + slot.count
    out = []
    for (node, model), count in counts.items():
        if not node:
            out.append(f"{count:,} x {model}")
            continue
        gpus = gpus_per_node.get(model)
        out.append((ngettext("{count} node of {gpus} x {model}", "{count} nodes of {gpus} x {model}", count)
                    if gpus else ngettext("{count} node of {model}", "{count} nodes of {model}", count)).format(
            count=f"{count:,}", gpus=gpus, model=model))
    return ", ".join(out)


def lengths_figure(lengths, media=(), family: str | None = None) -> go.Figure:
    """Links per length bin and link class (stacked bars), hover: the media each bin takes; the classes in
    ``family``'s words (``core.cost.link_class_words``)."""
    return series_lengths_figure([("", item, media) for item in lengths], family)


SHADES = {"node-leaf": ("#2e86c1", "#85c1e9", "#1b4f72", "#5dade2"),
          "leaf-spine": ("#117a65", "#76d7c4", "#0b5345", "#48c9b0"),
          "spine-core": ("#7d3c98", "#c39bd3", "#4a235a", "#a569bd")}
"""Link class -> its bar colours, one per series of that class (a pod's), the first for a design's own."""


def series_lengths_figure(series, family: str | None = None) -> go.Figure:
    """Links per length bin (stacked bars), a bar per series ``(name, LinkLengths, media bins)``: one link class of
    one fabric, named ``name`` before its class (a pod: ``pod 2: leaf-spine``; empty: the class alone); hover: the
    media each bin takes (``media``: ``core.physical.media.MediaBin``s of that fabric); the classes in ``family``'s
    words (``core.cost.link_class_words``: a classic Dragonfly's node-router links)."""
    from core.cost import link_class_words
    from core.physical.media import KIND_LABELS

    fig = go.Figure()
    labels: list[str] = []
    for _name, item, _media in series:
        for b in item.bins:
            if b.label() not in labels:
                labels.append(b.label())
    order = sorted(labels, key=lambda t: _bin_low(t))
    seen: dict[str, int] = {}
    for name, item, media in series:
        kinds = {(m.link_class, m.low_m): m for m in media}
        by_label = {b.label(): b for b in item.bins}
        ys, hover = [], []
        for label in order:
            b = by_label.get(label)
            ys.append(b.links if b else 0)
            m = kinds.get((item.link_class, b.low_m)) if b else None
            what = (m.cable_id or m.switch_module_id) if m else ""
            hover.append("" if not b else _("{links} {link_class} links, {span}, longest {longest} m: {media} {what}")
                         .format(links=f"{b.links:,}", link_class=link_class_words(item.link_class, family), span=label,
                                 longest=f"{b.max_m:g}", media=_(KIND_LABELS[m.kind]) if m else "", what=what))
        shades = SHADES.get(item.link_class, ("#95a5a6",))
        shade = shades[seen.get(item.link_class, 0) % len(shades)]
        seen[item.link_class] = seen.get(item.link_class, 0) + 1
        label = link_class_words(item.link_class, family)
        fig.add_trace(go.Bar(x=order, y=ys, name=f"{name}: {label}" if name else label, marker_color=shade,
                             hovertext=hover, hoverinfo="text"))
    fig = base_layout(fig, _("Cable lengths by link class (slack included)"), 320 + 22 * (len(series) > 2),
                      slot="full")  # the legend under the axis: at 1,024 px several series wrap to two lines
    fig.update_layout(barmode="stack", legend=dict(orientation="h", yanchor="top", y=-0.22, x=0, xanchor="left"),
                      xaxis=dict(title=_("length [m]"), type="category"), yaxis=dict(title=_("links")))
    return fig


def _bin_low(label: str) -> float:
    text = label.replace("<=", "").replace(">", "").replace("m", "").strip()
    first = text.split("-")[0].strip()
    try:
        value = float(first)
    except ValueError:
        return math.inf
    return value + (1e6 if label.startswith(">") else 0) - (1e6 if label.startswith("<=") else 0)
