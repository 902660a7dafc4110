"""The diagram of a torus (``core.fabric.torus``): a 2D torus as a grid with its wraparound links as arcs, a 3D
torus as its layers side by side (each layer a 2D grid of dimensions 1 and 2 with its own wraparound arcs; the
third dimension's links drawn for the top row of each layer, as arcs over the layers, the last layer's back to the
first as the highest arc).

Drawn from the wiring's coordinates (``TorusWiring.coords``), not its graph: at most ``MAX_SIDE`` positions of
each of the first two dimensions (``MAX_SIDE_3D`` in 3D) and ``MAX_LAYERS`` layers are drawn, the title says so
when the torus is larger (the drawing stays within ``core.figures.topology.DRAW_BUDGET`` at any size).
"""

from __future__ import annotations

import numpy as np

from core import plurals
from core.fabric.families import words
from core.fabric.torus import bisection_links, diameter, dimension_links
from core.fabric.wiring import wiring_of
from core.figures.style import TIER_COLOURS, FigureSpec, base_layout, scatter, sep
from core.i18n import N_, _

MAX_SIDE = 16
"""Most positions of dimensions 1 and 2 drawn (``MAX_SIDE_3D`` with a third dimension)."""
MAX_SIDE_3D = 8
MAX_LAYERS = 4
"""Most layers of dimension 3 drawn."""
DIMENSION_COLOURS = ("#2e86c1", "#117a65", "#7d3c98")
DIMENSION_NAMES = (N_("dimension 1 (x)"), N_("dimension 2 (y)"), N_("dimension 3 (z), top rows"))
LAYER_GAP = 2.0
"""Room between two layers side by side [grid steps]."""


def _point(c: tuple[int, int, int], columns: int) -> tuple[float, float]:
    """Drawing position of torus coordinates ``(x, y, z)``: layer ``z`` to the right of layer ``z - 1``, row
    ``y`` downwards (``columns``: positions of dimension 1 drawn)."""
    x, y, z = c
    return x + z * (columns - 1 + LAYER_GAP), -y


def _arc(a: tuple[float, float], b: tuple[float, float], bulge: tuple[float, float], steps: int = 7):
    """Points of a quadratic curve from ``a`` to ``b`` pulled toward ``bulge`` (a wraparound link)."""
    t = np.linspace(0, 1, steps)
    xs = (1 - t) ** 2 * a[0] + 2 * (1 - t) * t * bulge[0] + t ** 2 * b[0]
    ys = (1 - t) ** 2 * a[1] + 2 * (1 - t) * t * bulge[1] + t ** 2 * b[1]
    return xs.tolist(), ys.tolist()


def _segments(dims: tuple[int, ...], shown: tuple[int, int, int]) -> dict[tuple[int, bool], tuple[list, list]]:
    """Links among the drawn positions by (dimension, wraparound): x and y lists with ``None`` between links."""
    kx, ky, kz = (list(dims) + [1, 1])[:3]
    sx, sy, sz = shown
    out: dict[tuple[int, bool], tuple[list, list]] = {}

    def add(key, xs, ys):
        got = out.setdefault(key, ([], []))
        got[0].extend(xs + [None])
        got[1].extend(ys + [None])

    def link(dim: int, here: tuple, there: tuple, wrap: bool) -> None:
        a, b = _point(here, sx), _point(there, sx)
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        if dim == 2:  # over the layers: higher for the wraparound
            add((dim, wrap), *_arc(a, b, (mid[0], 1.2 + (0.9 if wrap else 0.0) + 0.15 * here[0])))
        elif wrap:  # beside the grid: a row's arc above it, a column's to its right
            add((dim, wrap), *_arc(a, b, (mid[0], mid[1] + 0.45) if dim == 0 else (mid[0] + 0.7, mid[1])))
        else:
            add((dim, wrap), [a[0], b[0]], [a[1], b[1]])

    for z in range(sz):
        for y in range(sy):
            for x in range(sx):
                here = (x, y, z)
                for dim, (k, s) in enumerate(((kx, sx), (ky, sy), (kz, sz))):
                    if dim == 2 and y:  # the third dimension for the top row only
                        continue
                    c = here[dim]
                    there = list(here)
                    if c + 1 < min(k, s):  # the next position, drawn
                        there[dim] += 1
                        link(dim, here, tuple(there), False)
                    elif c == k - 1 and k > 2 and s == k:  # the wraparound back to position 0
                        there[dim] = 0
                        link(dim, here, tuple(there), True)
    return out


def torus_figure(plan, height: int = 560):
    """The torus of ``plan`` drawn as a grid (2D) or stacked layers (3D), links coloured by dimension, the
    wraparound links as arcs (dashed); every node a marker with its coordinates on hover."""
    f = plan.fabric
    dims = f.torus_dims
    wiring = wiring_of(f, plan.resolved.nodes, plan.resolved.nics_per_node)
    full = (list(dims) + [1, 1])[:3]
    side = MAX_SIDE_3D if len(dims) == 3 else MAX_SIDE
    shown = (min(full[0], side), min(full[1], side), min(full[2], MAX_LAYERS))
    fig = FigureSpec()
    for (dim, wrap), (xs, ys) in sorted(_segments(dims, shown).items()):
        name = _(DIMENSION_NAMES[dim])
        if wrap:  # zh without a space after the dimension's bracket: 第 1 维（x）环回
            name = _("{dimension} wraparound").format(dimension=name)
        fig.add_trace(scatter(x=xs, y=ys, mode="lines", hoverinfo="skip", name=name, legendgroup=f"d{dim}",
                              line=dict(color=DIMENSION_COLOURS[dim], width=2, dash="dot" if wrap else "solid")))
    xs, ys, hovers = [], [], []
    order = {}
    every = np.arange(wiring.nodes)
    coords = wiring.coords(every)
    for n in every.tolist():
        c = tuple(int(coords[i][n]) for i in range(len(dims))) + (0,) * (3 - len(dims))
        if c[0] < shown[0] and c[1] < shown[1] and c[2] < shown[2]:
            order[c] = n
    for c in sorted(order, key=lambda c: (c[2], c[1], c[0])):
        x, y = _point(c, shown[0])
        xs.append(x)
        ys.append(y)
        hovers.append(_("{node}: coordinates ({coords})").format(
            node=wiring.node_id(order[c]), coords=", ".join(str(v) for v in c[:len(dims)])))
    fig.add_trace(scatter(x=xs, y=ys, mode="markers", hovertext=hovers, hoverinfo="text", name=_("Servers"),
                          marker=dict(size=11 if len(xs) <= 256 else 7, color=TIER_COLOURS["server"],
                                      symbol="square", line=dict(width=1, color="white"))))
    links = sum(dimension_links(dims)) * f.torus_width
    parts = [_("torus {dims}").format(dims="x".join(map(str, dims))),
             plurals.links(links),
             _("bisection {links} links").format(links=f"{bisection_links(dims) * f.torus_width:,}"),
             _("diameter {hops} hops").format(hops=diameter(dims))]
    title = _("Scale-out fabric: {parts}").format(parts=sep().join(parts))
    drawn = "x".join(str(s) for s in shown[:len(dims)])
    sub = (words(f.family, "view:each", None) if tuple(shown[:len(dims)]) == tuple(dims)  # as the draw.io title
           else _("Showing {drawn} of {dims} positions; no switches: nodes joined node to node").format(
               drawn=drawn, dims="x".join(map(str, dims))))
    title += f"<br><sup>{sub}</sup>"
    base_layout(fig, title, height)
    fig.update_layout(
        showlegend=True,
        legend=dict(orientation="h", x=0, xanchor="left", y=-0.01, yanchor="top", font=dict(size=12)),
        xaxis=dict(visible=False), yaxis=dict(visible=False),
        hovermode="closest", dragmode="pan", margin=dict(l=10, r=10, t=fig.margin_top + 10, b=50))
    return fig.figure()
