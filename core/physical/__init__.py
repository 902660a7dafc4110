"""The cluster in the hall: racks, rows, positions, cable lengths and the media they choose, the cabling plan."""
