"""fabric planner engine: pure Python, typed pydantic models in, typed results out, no UI imports.

Layers, lowest first (a module imports only its own layer and those below; tests/test_layout.py
checks it): the ground floor ``errors``, ``catalog``, ``design``; ``fabric/`` (sizing, graphs,
bandwidth); ``cost`` (BOM, cost, power); ``plan`` (the pipeline); ``perf/`` (collectives,
training); ``analysis/`` (what-if sweeps, later comparison, optimizer, failures); ``figures/``
(pure Plotly figures and key-number texts); ``formats/`` (share links, design files, exports);
``cli/`` (one module per sub-command). See docs/architecture.md.
"""
