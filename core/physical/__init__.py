"""The cluster in the hall: racks, rows, positions, cable lengths and the media they choose, the cabling plan.

May import: ``core.networks``, ``core.fabric`` and the ground floor (``catalog``, ``design``, ``errors``, ``i18n``).
"""
