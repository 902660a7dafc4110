"""The cluster's other networks, sized like the compute fabric: storage, in-band and out-of-band management."""
