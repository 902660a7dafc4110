"""Figures and tables of inference serving (``core.perf.serving``): where a token's time goes, per design.

``time_figure`` stacks each design's time per output token (compute, HBM, NVLink, fabric, overhead: the
decode step's ``breakdown``) above its time to first token (queueing, prefill, KV-cache transfer, first decode
step); ``comparison_rows`` is the same deployment's numbers per design. Labels in the current language; design labels are escaped for Plotly (``style.plain``).
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from core import plurals
from core.figures.style import RAIL_COLOURS, base_layout, plain
from core.i18n import N_, _, in_currency, ngettext, usd
from core.perf.serving import pool_name
from core.perf.serving_search import describe
from core.scaleup import in_noun
from core.units import UNBOUNDED as UNBOUNDED_WORD, alike, milliseconds, number, percent
from core.vocab import COMPUTE_FABRIC_WORDS, compute_fabric

STEP_PARTS = {"compute": N_("compute"), "hbm": N_("HBM"), "nvlink": N_("NVLink"),
              "fabric": COMPUTE_FABRIC_WORDS[False]["word"], "overhead": N_("overhead")}
"""``StepTime.breakdown()`` keys -> their names (the fabric's part: the compute fabric, ``core.vocab.compute_fabric``'s
name, as the fabric-load table and the what-if name it)."""
TTFT_PARTS = {"queue": N_("queueing"), "prefill": N_("prefill"), "kv_transfer": N_("KV-cache transfer"),
              "first_decode": N_("first decode step")}
"""``ServingEstimate.ttft_parts`` keys -> their names."""
COLOURS = {"compute": "#5d6d7e", "hbm": "#d35400", "nvlink": "#117a65", "fabric": "#2e86c1", "overhead": "#bdc3c7",
           "queue": "#c39bd3", "prefill": "#7d3c98", "kv_transfer": "#2874a6", "first_decode": RAIL_COLOURS[8]}
"""Each part's colour; the first decode step olive, apart from the scale-up teals (in light teal it read as NVLink)."""


def _bars(labels: list[str], parts: dict[str, list[float]], names: dict[str, str], axes: tuple[str, str],
          splits: list[str]) -> list:
    """One stacked horizontal bar per design on ``axes`` (x, y): each part's milliseconds; the hover names the
    design's split (``splits``, one per label: ``serving_search.describe``)."""
    traces = []
    for key, values in parts.items():
        if not any(values):
            continue
        name = _(names[key])
        traces.append(go.Bar(y=labels, x=values, orientation="h", name=name, marker_color=_colour(key, names),
                             legendgroup=axes[0], xaxis=axes[0], yaxis=axes[1], customdata=splits,
                             hovertemplate=plain(name) + ": %{x:.3g} ms<br>%{customdata}<extra>%{y}</extra>"))
    return traces


SCALEUP_COLOURS = ("#117a65", "#76d7c4", "#0e6655")
"""Colours of the scale-up part, one per link name in the figure (the first is ``COLOURS["nvlink"]``)."""


def _colour(key: str, names: dict[str, str]) -> str:
    """A part's colour: ``COLOURS``, or for a scale-up part ``nvlink:<name>`` the next of ``SCALEUP_COLOURS``
    in the order the names come (``names``' keys)."""
    if key in COLOURS:
        return COLOURS[key]
    scaleup = [k for k in names if k.startswith("nvlink:")]
    return SCALEUP_COLOURS[scaleup.index(key) % len(SCALEUP_COLOURS)]


def _drawn_ms(seconds: float) -> float:
    """A part's time as its bar draws it [ms]: an unbounded part (the load exceeds a pool) is left out (0), the
    hatched bar of ``_unbounded`` runs on from the parts drawn."""
    return seconds * 1e3 if math.isfinite(seconds) else 0.0


def _step_parts(labels: list[str], steps: list[dict], links: dict[str, str]) -> dict[str, list[float]]:
    """The time-per-output-token parts [ms] per design (``StepTime.breakdown()`` keys; ``_drawn_ms``), the scale-up
    part split into one ``nvlink:<name>`` part per link name (``links``: label -> name; NVLink where left out)."""
    words = [links.get(label) or "NVLink" for label in labels]
    parts: dict[str, list[float]] = {}
    for key in STEP_PARTS:
        if key != "nvlink":
            parts[key] = [_drawn_ms(s[key]) for s in steps]
            continue
        for word in dict.fromkeys(words):
            parts["nvlink:" + word] = [_drawn_ms(s[key]) if w == word else 0.0 for s, w in zip(steps, words)]
    return parts


def _totals(labels: list[str], totals: list[float], parts: dict[str, list[float]],
            axes: tuple[str, str]) -> tuple[go.Scatter, float]:
    """The total at each bar's end, right of it, and the largest bar end [ms]; an unbounded total's bar ends at the
    parts drawn (``parts`` [ms]) with no text: its hatched bar says "unbounded" (``_unbounded``)."""
    ends = [t if math.isfinite(t) else sum(part[i] for part in parts.values()) for i, t in enumerate(totals)]
    text = ["  " + milliseconds(t / 1e3) if math.isfinite(t) else "" for t in totals]
    return go.Scatter(y=labels, x=ends, mode="text", text=text, textposition="middle right", showlegend=False,
                      hoverinfo="skip", xaxis=axes[0], yaxis=axes[1]), max([e for e in ends if e > 0] or [1.0])


UNBOUNDED = N_("unbounded: the load exceeds what it serves")
"""The legend name of an unbounded bar's hatched remainder (``_unbounded``)."""
UNBOUNDED_COLOUR = "#922b21"
"""The hatched remainder's line and its word's colour."""


def _unbounded(labels: list[str], totals: list[float], ends: list[float], right: float,
               axes: tuple[str, str], legend: bool = True) -> tuple[list, list[dict]]:
    """For each unbounded total, a hatched bar from the parts drawn (``ends`` [ms]) to the panel's right edge
    (``right`` [ms]), so an unbounded time reads as the longest bar, never as the shortest, and the word "unbounded"
    on a white box in its middle (at least 0.3 of 1.3 of the panel wide: the word fits, never cut at the edge nor
    drawn over the hatch); (traces, annotations), none when every total is finite. Both panels' hatched bars are one
    legend entry (``legend``: this panel's is that entry; the other panel's bars share its group, so a click on it
    hides both)."""
    x = [0.0 if math.isfinite(t) else max(right - e, 0.0) for t, e in zip(totals, ends)]
    if not any(x):
        return [], []
    words = [dict(text=f"<b>{_(UNBOUNDED_WORD)}</b>", x=e + w / 2, y=label, xref=axes[0], yref=axes[1],
                  showarrow=False, bgcolor="#ffffff", borderpad=2, font=dict(color=UNBOUNDED_COLOUR))
             for label, e, w in zip(labels, ends, x) if w]
    name = _(UNBOUNDED)
    return [go.Bar(y=labels, x=x, orientation="h", name=name, legendgroup="unbounded", showlegend=legend,
                   xaxis=axes[0], yaxis=axes[1],
                   marker=dict(color="rgba(0,0,0,0)", line=dict(color=UNBOUNDED_COLOUR, width=1),
                               pattern=dict(shape="/", fgcolor="rgba(146,43,33,0.3)", bgcolor="#ffffff", size=10)),
                   hovertemplate=plain(name) + "<extra>%{y}</extra>")], words


def _scaled(ends) -> bool:
    """Whether a panel's axis has a scale to show: some bar drawn (``ends``: each bar's end [ms], ``_totals``'); every
    bar unbounded with nothing drawn, its range is ``_totals``' 1 ms stand-in and its ticks (0 to 1.2 ms under bars
    of no time) would read as a time."""
    return any(e > 0 for e in ends)


def _gpus_used(estimate) -> str:
    """The GPUs a design's deployment uses of its cluster's, as the comparison table's row says them."""
    return ngettext("{used} GPU of {total} used", "{used} GPUs of {total} used", estimate.gpus).format(
        used=number(estimate.gpus), total=number(estimate.cluster_gpus))


def time_figure(estimates: dict, height: int = 420, scaleup_links: dict[str, str] | None = None,
                rate: float | None = None) -> go.Figure:
    """Per design (label -> ``ServingEstimate``): time per output token by component and time to first token by
    part [ms], as stacked horizontal bars in two panels (top and bottom); an unbounded part (the load exceeds a
    pool) is left out and a hatched bar saying "unbounded" runs on to the panel's edge (``_unbounded``).
    ``scaleup_links``: each design's scale-up link name (label ->
    ``core.scaleup.link_word`` of its system; a label left out, or None: NVLink): the scale-up part is one legend
    entry and colour per name, so an HCCS design beside H100 rows does not colour their NVLink "HCCS". Each bar's
    label and hover say the GPUs its deployment uses of the cluster's (``_gpus_used``), as the table's row does.
    ``rate``: the request rate [requests/s] every bar is served at, said under the title (None: not said)."""
    labels = [plain(label) for label in estimates]
    used = [_gpus_used(e) for e in estimates.values()]  # on each bar's label and in its hover, as the table's row
    splits = [plain(_("split: {split}").format(split=describe(e.deployment))) + "<br>" + u
              for e, u in zip(estimates.values(), used)]
    steps = [e.decode.step.breakdown() for e in estimates.values()]
    parts = _step_parts(list(estimates), steps, scaleup_links or {})
    names = {k: STEP_PARTS.get(k) or k.partition(":")[2] for k in parts}  # a link name is a proper name
    traces = _bars(labels, parts, names, ("x", "y"), splits)
    tpot_ms = [e.tpot_s * 1e3 for e in estimates.values()]
    tpot, top_tpot = _totals(labels, tpot_ms, parts, ("x", "y"))
    hatched, words = _unbounded(labels, tpot_ms, list(tpot.x), top_tpot * 1.3, ("x", "y"))
    traces += hatched
    parts = {k: [_drawn_ms(e.ttft_parts[k]) for e in estimates.values()] for k in TTFT_PARTS}
    traces += [tpot, *_bars(labels, parts, TTFT_PARTS, ("x2", "y2"), splits)]
    ttft_ms = [e.ttft_s * 1e3 for e in estimates.values()]
    ttft, top_ttft = _totals(labels, ttft_ms, parts, ("x2", "y2"))
    ttft_hatched, ttft_words = _unbounded(labels, ttft_ms, list(ttft.x), top_ttft * 1.3, ("x2", "y2"),
                                          legend=not hatched)
    traces += ttft_hatched
    fig = go.Figure(data=[*traces, ttft])
    ticks = dict(tickmode="array", tickvals=labels, ticktext=[f"{label}<br><sub>{u}</sub>" for label, u in
                                                              zip(labels, used)])
    panel = dict(font=dict(size=13), x=0.0, xanchor="left", xref="paper", yref="paper", yanchor="bottom",
                 showarrow=False)
    fig.update_layout(
        barmode="stack", hovermode="closest",
        legend=dict(orientation="h", yanchor="top", y=-0.08, x=0.0, traceorder="grouped"),
        xaxis=dict(domain=[0, 1], anchor="y", range=[0, top_tpot * 1.3], showticklabels=_scaled(tpot.x)),
        yaxis=dict(domain=[0.6, 1.0], anchor="x", autorange="reversed", **ticks),
        xaxis2=dict(domain=[0, 1], anchor="y2", range=[0, top_ttft * 1.3], showticklabels=_scaled(ttft.x)),
        yaxis2=dict(domain=[0.0, 0.4], anchor="x2", autorange="reversed", **ticks),
        annotations=[dict(text=_("Time per output token [ms]"), y=1.0, **panel),
                     dict(text=_("Time to first token [ms]"), y=0.4, **panel), *words, *ttft_words])
    title = _("Where a token's time goes")
    if rate is not None:
        title += "<br><sup>" + _("Every design at {rate} requests/s, on the GPUs under its name").format(
            rate=number(rate)) + "</sup>"
    base_layout(fig, title, height + 40 * len(labels))
    # the subtitle's line above the first panel's own title (an annotation over the plot)
    fig.update_layout(margin=dict(b=90, t=fig.layout.margin.t + (22 if rate is not None else 0)))
    return fig


def _pools(dep) -> tuple:
    """A deployment's mode and pools' splits: what makes two estimates at one rate one deployment."""
    return dep.mode, dep.prefill, dep.decode


def compared_note(here, mine, rate: float, system=None) -> str:
    """The sentence read between the cards and the comparison of designs when this design's own bar (``mine``,
    ``webui.inference.Served.mine``'s "this design": served at ``rate`` [requests/s] as every design is, on the
    fewest GPUs that meet the targets) is another deployment than the cards' (``here``: the whole design at the
    split that costs least per token): both deployments' GPUs and times, so 43.4 ms below beside a 39.8 ms card
    says why, in ``system``'s accelerator noun (``core.scaleup.in_noun``); empty when the two are one deployment
    (the same pools and splits: the same numbers), or ``mine`` raised."""
    if isinstance(mine, Exception) or _pools(here.deployment) == _pools(mine.deployment):
        return ""
    return in_noun(_("The cards above are this design's deployment on {gpus} of its {total} GPUs: {ttft} to the first "
             "token, {tpot} per output token. Below, every design serves the same {rate} requests/s on the fewest "
             "GPUs that meet the targets, this design too: on {used} of its {total} GPUs, with the split its row "
             "names, it takes {used_ttft} to the first token and {used_tpot} per output token.").format(
        gpus=number(here.gpus), total=number(here.cluster_gpus), ttft=milliseconds(here.ttft_s),
        tpot=milliseconds(here.tpot_s), rate=number(rate), used=number(mine.gpus),
        used_ttft=milliseconds(mine.ttft_s), used_tpot=milliseconds(mine.tpot_s)), system)


TABLE_COLUMNS = (N_("Design"), N_("Prefill split"), N_("Decode split"), N_("GPUs used"), N_("TTFT [ms]"),
                 N_("TPOT [ms]"), N_("Output tokens/s per GPU in decode"), N_("Cost per million output tokens [USD]"),
                 N_("Energy per output token [J]"), N_("Meets the targets"))
"""The comparison table's headers (English, marked; shown translated); the splits first, where the grid measures
a column's width (its first rows), so the longest texts are not cut."""


def _pool_words(split) -> str:
    """A pool's split as a table cell: its nodes and the degrees above 1 (``2 nodes, tp 4 pp 2``; ``1 node, tp 1``),
    redundant experts when there are any; the hover's ``serving_search.describe`` names every degree."""
    degrees = [f"{name} {getattr(split, name)}" for name in ("tp", "dp", "ep", "pp") if getattr(split, name) > 1]
    text = plurals.nodes(split.nodes)
    text = _("{nodes}, {degrees}").format(nodes=text, degrees=" ".join(degrees or ["tp 1"]))
    if split.redundant_experts:
        text += _(" ({n} redundant experts)").format(n=split.redundant_experts)
    return text


AGGREGATED_SPLIT = N_("Serving pool split")
"""The comparison table's one split row when every design is served aggregated (one pool, ``pool_label``'s
serving pool), in place of ``TABLE_COLUMNS``' prefill and decode rows."""


def _splits(dep, aggregated: bool) -> list[str]:
    """The prefill and decode pools' splits (``_pool_words``); ``aggregated`` (every design's one pool): that split
    alone."""
    decode = _pool_words(dep.decode)
    return [decode] if aggregated else [decode if dep.mode == "aggregated" else _pool_words(dep.prefill), decode]


def comparison_rows(results: list[tuple[str, object]], system=None) -> list[dict]:
    """One row per design: (label, ``ServingEstimate`` or the error it raised), as display text in the current
    language (the GPUs the deployment uses of the cluster's; ms, tokens/s and J set side by side across the designs, ``core.units.alike``; the cost as
    ``usd``; the split the design is served with as ``_splits``: one ``AGGREGATED_SPLIT`` row when every design is
    served aggregated, not the one pool twice as prefill and decode); a design that raised shows "-" (its
    message is the caller's to show, with its suggestion). ``system``: the designs' one system, whose accelerator
    noun the headers say (``core.scaleup.in_noun``; None: designs of several systems, GPUs)."""
    served = [e for _label, e in results if not isinstance(e, Exception)]
    aggregated = bool(served) and all(e.deployment.mode == "aggregated" for e in served)  # one pool: one split row
    columns = (TABLE_COLUMNS[0], AGGREGATED_SPLIT, *TABLE_COLUMNS[3:]) if aggregated else TABLE_COLUMNS
    headers = [in_currency(in_noun(_(c), system)) for c in columns]
    measures = [(e.ttft_s * 1e3, e.tpot_s * 1e3, e.output_tokens_per_s_per_gpu, e.joules_per_output_token)
                for e in served]
    shown = iter(zip(*[alike(list(row)) for row in zip(*measures)]))  # a row across the designs, set side by side
    rows = []
    for label, e in results:
        if isinstance(e, Exception):
            values = [label, *["-"] * (len(columns) - 1)]
        else:
            used = _("{used} of {total}").format(used=number(e.gpus), total=number(e.cluster_gpus))
            ttft, tpot, tokens, joules = next(shown)
            values = [label, *_splits(e.deployment, aggregated), used, ttft, tpot, tokens,
                      usd(e.usd_per_million_output_tokens, cents=True), joules, _("yes") if e.meets_slo else _("no")]
        rows.append(dict(zip(headers, values)))
    return rows


LOAD_COLUMNS = (N_("Pool"), N_("Fabric traffic per GPU"), N_("NIC"), N_("Leaf uplinks"), N_("Spine uplinks"))
"""Headers of the fabric-load table (English, marked)."""
LOAD_TIERS = ("nic", "leaf_uplinks", "spine_uplinks")
"""The loads of ``core.perf.serving.fabric_load`` the table's last three columns show (``LOAD_COLUMNS[2:]``)."""
LOAD_CAPTION = N_("Per GPU, one direction: expert dispatch and combine, tensor-parallel and pipeline traffic that "
                  "leaves the {domain}, and the KV-cache transfer; as a share of the NIC's line rate and of a GPU's "
                  "share of the links in the columns {leaf} and {spine}, as built (a taper above the NIC lowers that "
                  "share).")
"""The fabric-load table's caption where its family declares none of its own (``load:table:caption``)."""


NO_TIER = "—"
"""A tier's load where the fabric has no such tier (``fabric_load``'s None): a dash, not 0.0%."""


def _share(load: float | None) -> str:
    """A load as a percentage (``0.0%``), or ``NO_TIER`` for a tier the fabric does not have."""
    return NO_TIER if load is None else percent(load)


def fabric_load_note(estimate_, family: str | None = None) -> str:
    """The fabric-load table's note on its dashes: which tiers the fabric lacks (empty when it has every one of the
    columns ``load_columns`` shows for family ``family``)."""
    missing = any(load[tier] is None for load in estimate_.fabric_load.values() for tier in load_columns(family))
    return _("A dash: the fabric has no such uplinks (a two-tier Clos has no spine uplinks, one tier no leaf "
             "uplinks), so nothing loads them.") if missing else ""


def fabric_idle_note(estimate_, system=None) -> str:
    """The fabric-load table's note on a pool whose traffic is 0 (empty when every pool's is more): it sends nothing
    over the compute fabric at any load, not for want of load (an overloaded deployment runs its pools saturated):
    its instances' traffic stays in ``system``'s scale-up domain (``core.scaleup.domain_word``) and no KV cache
    crosses the fabric."""
    from core.design import tidy_spaces
    from core.scaleup import domain_word

    if all(load["gbytes_per_s_per_gpu"] for load in estimate_.fabric_load.values()):
        return ""
    return tidy_spaces(_("A pool at 0 sends nothing over the {fabric} at any load: each of its instances stays inside "
                         "one {domain} and no KV cache crosses the {fabric}.").format(
        fabric=compute_fabric(), domain=domain_word(system)))


def load_columns(family: str | None) -> dict[str, str]:
    """The fabric-load table's load columns (``LOAD_TIERS`` -> header, translated) as family ``family`` (a
    ``FabricPlan.family``; None: a Clos) names its links (``load:nic``, ``load:leaf_uplinks``,
    ``load:spine_uplinks``: a Dragonfly+'s spine uplinks are its global links, a torus's NIC ports its torus links),
    without the columns it declares None (a link class it does not wire: a torus's uplinks), the one rule its
    headers, note and caption read."""
    from core.fabric.families import words

    said = {tier: words(family, f"load:{tier}", column) for tier, column in zip(LOAD_TIERS, LOAD_COLUMNS[2:])}
    return {tier: header for tier, header in said.items() if header is not None}


def fabric_load_caption(system, family: str | None) -> str:
    """The fabric-load table's caption: what a row counts and what its shares are of, the links named as the table
    names them (``load_columns``: a Dragonfly's local and global links), in the family's words where it declares
    them (``load:table:caption``: a torus's links node to node), in ``system``'s accelerator noun
    (``core.scaleup.in_noun``) and its scale-up domain's word."""
    from core.design import tidy_spaces
    from core.fabric.families import words
    from core.scaleup import domain_word

    columns = load_columns(family)
    return in_noun(tidy_spaces(words(family, "load:table:caption", LOAD_CAPTION).format(
        domain=domain_word(system), leaf=columns.get("leaf_uplinks", ""), spine=columns.get("spine_uplinks", ""))),
        system)


def fabric_load_title() -> str:
    """The fabric-load table's title, the fabric named as the what-if names it (``core.vocab.compute_fabric``)."""
    return _("Load on the {fabric}").format(fabric=compute_fabric())


def fabric_load_rows(estimate_, unit: str = "GB/s", system=None, family: str | None = None) -> list[dict]:
    """Each pool's traffic on the compute fabric per GPU (in ``unit``, one direction) and the share it takes of
    the NIC, the leaf uplinks and the spine uplinks (``core.perf.serving.fabric_load``), as display text; headers
    in ``system``'s accelerator noun (``core.scaleup.in_noun``; None: GPUs), the links as ``family`` (a
    ``FabricPlan.family``) names them and only those it wires (``load_columns``: a Dragonfly+'s spine uplinks are
    its global links, the KV-cache card's name for the level it crosses; a torus's NIC ports its torus links)."""
    from core.units import bandwidth, from_gbytes

    columns = load_columns(family)
    headers = [in_noun(_(c), system) for c in LOAD_COLUMNS[:2]] + [in_noun(c, system) for c in columns.values()]
    rows, aggregated = [], estimate_.deployment.mode == "aggregated"
    for pool, load in estimate_.fabric_load.items():
        values = [pool_name(pool, aggregated), bandwidth(from_gbytes(load["gbytes_per_s_per_gpu"]), unit),
                  *(_share(load[tier]) for tier in columns)]
        rows.append(dict(zip(headers, values)))
    return rows
