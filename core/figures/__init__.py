"""Pure Plotly figures and key-number texts of a planned design: no Streamlit, testable without a server.

The pages and (later) the review report draw with these. One module per view:
``topology`` (spine-leaf / fat-tree diagram), ``scaleup`` (one NVLink domain), ``bandwidth``
(per-GPU hierarchy, capacity per tier, oversubscription what-if), ``cost`` (capex and power),
``perf`` (collectives, training step, scaling, two fabrics), ``keynumbers`` (the formatted key
numbers), ``units`` (the one bandwidth format and the money axes) and ``style`` (fonts and colours).
Bandwidths arrive in Gb/s from the engine and are shown in the unit the caller asks for ("Gb/s" or
"GB/s", the user's ``ui_bw``); money is ``core.i18n.usd``.

May import: the ground floor, ``core.fabric``, ``core.cost``, ``core.plan``, ``core.perf`` and
``core.analysis``; never ``core.formats``, ``core.cli``, ``webui``, ``pages`` or Streamlit.
"""

from core.figures.bandwidth import (
    bandwidth_hierarchy_figure,
    oversubscription_figure,
    tier_capacity_figure,
)
from core.figures.cost import capex_figure, power_figure
from core.figures.scaleup import DGX1_CUBE_MESH, nvlink_links_per_gpu, nvswitch_spread_text, scaleup_figure
from core.figures.topology import (
    DRAW_BUDGET,
    FULL_GRAPH_LIMIT,
    count_drawn_elements,
    full_graph_elements,
    is_aggregated,
    topology_figure,
    topology_graph,
    vertex_name,
)

__all__ = [
    "DGX1_CUBE_MESH", "DRAW_BUDGET", "FULL_GRAPH_LIMIT", "bandwidth_hierarchy_figure",
    "capex_figure", "count_drawn_elements", "full_graph_elements", "is_aggregated", "nvlink_links_per_gpu",
    "nvswitch_spread_text", "oversubscription_figure", "power_figure", "scaleup_figure", "tier_capacity_figure",
    "topology_figure", "topology_graph", "vertex_name",
]
