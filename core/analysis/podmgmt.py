"""The out-of-band management of a design with pods' shared spine layer: its switches' management ports and its
racks' PDUs.

Each pod planned alone (``core.analysis.pods``) sizes its out-of-band network for its own spines and racks; the
mixed design has no such spines but the shared ones, in racks of their own (``core.physical.podlayout``). So on
the whole design:

* each pod's ``switch-mgmt`` links lose its own spines' (one management port per switch);
* the first pod's out-of-band network takes the shared spines' management ports (one each) and the shared spine
  racks' PDUs (``pdus_per_other_rack`` per rack, ``core.networks.policy``), cabled to the ports its own spines
  freed and then to its switches' free ports (``core.formats.podnetbox``).

The mixed bill (``core.analysis.pods.mixed_plan``) counts these links and the cabling plan and NetBox exports
draw them, so both give the same number of management cables. The out-of-band switches are not re-sized: the
first pod's switches take the shared layer's ports among their free ones (an approximation when they have too
few).
"""

from __future__ import annotations

from core.fabric.podwiring import PodsWiring
from core.fabric.wiring import Wiring
from core.networks.policy import ipolicy

SPINE_PREFIX = PodsWiring.spine_id(0).rstrip("0123456789")
"""Id prefix of the shared spines in the hall (``spine``: ``spine0``, ``spine1`` ...)."""
PDU_PREFIX = "pdu"
"""Id prefix of the shared spine racks' PDUs (``pdu0`` ...; named ``pdu001`` in the exports, no pod prefix)."""


def shared_racks(layout) -> list[str]:
    """Names of the racks of the hall ``layout`` holding shared spines, in hall order."""
    return [r.name for r in layout.racks if any(s.prefix == SPINE_PREFIX for s in r.slots)]


def shared_pdus(layout) -> int:
    """Rack PDUs of the shared spine racks of the hall ``layout`` (``pdus_per_other_rack`` each)."""
    return len(shared_racks(layout)) * ipolicy("pdus_per_other_rack")


def with_shared_management(plan, networks, first: bool, spines: int, pdus: int, own: int | None = None):
    """``networks`` (``core.networks.ClusterNetworks`` of the pod ``plan`` planned alone) as the mixed design has
    them (module docstring): ``switch-mgmt`` without the pod's ``own`` switches the shared layer replaces (default
    its own spines; pods on three tiers: its own cores) and, for the ``first`` pod, with the ``spines`` shared
    switches' ports and the ``pdus`` shared racks' PDUs (``pdu-mgmt``); unchanged without an out-of-band network."""
    if networks is None or networks.oob is None:
        return networks
    own = Wiring.of(plan).spines if own is None else own
    links = []
    for link in networks.oob.links:
        count = link.count
        if link.kind == "switch-mgmt":
            count = max(0, count - own) + (spines if first else 0)
        elif link.kind == "pdu-mgmt" and first:
            count += pdus
        links.append(link.model_copy(update={"count": count}) if count != link.count else link)
    return networks.model_copy(update={"oob": networks.oob.model_copy(update={"links": tuple(links)})})
