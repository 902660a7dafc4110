"""Everything that turns a design into text and back: the share-link codec, the design file, exports.

``sharelink`` encodes a design as short URL query parameters and decodes a link back, with a
warning for every value it could not apply; ``design_file`` reads and writes the design JSON that
``python -m core plan --design`` and the Designer accept; every export format (BOM tables today;
report, Slurm, NetBox, GraphML ... as they come) is its own module, as networkx's ``readwrite``.

May import: everything in ``core`` below ``core.cli`` (the ground floor, ``core.fabric``,
``core.cost``, ``core.plan``, ``core.perf``, ``core.analysis``, ``core.figures``); never
``core.cli``, ``webui``, ``pages`` or Streamlit.
"""
