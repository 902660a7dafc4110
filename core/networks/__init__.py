"""The cluster's other networks, sized like the compute fabric: storage, in-band and out-of-band management.

May import: ``core.fabric`` and the ground floor (``catalog``, ``design``, ``errors``, ``i18n``).
"""
