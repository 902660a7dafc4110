"""Element geometry of a failure what-if: the fabric's shape, one plane and island (``core.analysis.failure``).

``Shape`` holds the fabric's ``core.fabric.wiring.Wiring`` (device ids, leaves, spines, cores, groups, pods, a
leaf's group and spines, a spine's cores: read through, never re-derived here) and what only the failure model
needs: NICs and GPUs per node, NVLink chips and trays, racks and their power feeds; it answers an NVLink
domain's name and GPUs and a chip's links per GPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from core.analysis.failure.power import rack_power_feeds
from core.fabric.families import require_clos
from core.fabric.domainlevels import level1_chips, scaleup_of
from core.fabric.wiring import Wiring
from core.i18n import _
from core.plan import Plan
from core.scaleup import links_per_peer

NVSWITCH_SOURCES = (
    "NVIDIA Fabric Manager User Guide, 'NVSwitch Failure', bare metal: NVSWITCH_FAILURE_MODE=0 'FM aborts and "
    "leaves the system uninitialized, and all CUDA application launches will fail with a cudaErrorSystemNotReady "
    "status'; =1 (DGX/HGX A100 only) 'the NVSwitch will be disabled with its peer NVSwitch. This will reduce the "
    "available bandwidth to 5/6' (https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html)",
    "GB200 SuperPOD RA network fabrics: 18 compute trays, 9 NVLink switch trays of 2 NVLink switch chips, each "
    "GPU's 18 links one to each chip (https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-"
    "infrastructure-gb200/latest/network-fabrics.html), as systems.toml cites",
    "NMX Manager documentation, Partition Health: Adaptive Bandwidth mode 'all of the GPUs will be able to "
    "communicate with one-another in a degraded bandwidth capacity'; Full Bandwidth mode: 'a loss of a switch' "
    "makes the partition UNHEALTHY (https://docs.nvidia.com/networking/display/nmxmv8511000/partition+health)",
)
"""Where the NVSwitch failure rules come from (module docstring)."""
NVL_TRAYS = 9
"""NVLink switch trays of a multi-node domain whose chip count is a multiple of 9: GB200/GB300 NVL72 (18 chips,
2 per tray, GB200 SuperPOD RA) and Vera Rubin NVL72 (36 chips, 4 per tray, nvlink.toml's stored copies);
any other multi-node domain is taken as one chip per tray."""


WIRED = ("tiers", "planes", "islands", "rails", "nodes", "tor", "groups", "nodes_per_group", "leaves_per_group",
         "groups_per_pod", "pods", "spines_per_pod", "cores_per_group", "leaves", "spines", "cores", "pair_links",
         "spine_uplinks", "spine_core_pairs", "leaf_uplinks", "port_gbps", "up_gbps", "roles", "link_classes",
         "prefix", "switch_id", "count", "group_nodes", "group_of_node", "leaf_of", "node_port", "group_of_leaf",
         "pod_of_group", "pod_of_leaf", "pod_of_spine", "leaf_down_ports", "leaves_per_pod", "spines_of_leaf",
         "leaves_of_spine", "cores_of_spine", "core_pair_links", "links_per_node_leaf", "spines_of_pod",
         "leaves_of_pod", "plane_islands")
"""Names ``Shape`` answers from its ``core.fabric.wiring.Wiring`` (counts per plane and island, device ids, which
leaf serves a rail, spines of a leaf, cores of a spine)."""


@dataclass(frozen=True)
class Shape:
    """The fabric's wiring (``wiring``; the names of ``WIRED`` read through to it, ``shape.leaf_of`` is
    ``shape.wiring.leaf_of``) and what only the failure model needs: NICs and GPUs per node, NVLink domains, chips
    and trays, racks and their power feeds."""

    wiring: Wiring
    nics: int
    gpus_per_node: int
    nodes_per_domain: int
    nodes_per_rack: int
    nvl_chips: int = 0
    """NVSwitch chips per NVLink domain (0: no NVSwitch)."""
    nvl_links: int = 0
    """NVLink links per GPU."""
    feeds: int = 2
    """Power feeds per compute rack (``[[power_feed]]`` of racks.toml)."""
    scaleup_name: str = "NVLink"
    """The scale-up technology's name (``System.scaleup_name``)."""
    mesh_per_peer: int = 0
    """Links from a GPU to each peer of a direct-mesh domain of one node (``core.scaleup``); 0: not a mesh."""
    mesh_size: int = 0
    """GPUs of one node's direct-mesh domain (0: not a mesh)."""
    level2: tuple[int, ...] = ()
    """Level-2 NVLink switch units of each NVLink domain, in order, when the domains have two levels
    (``core.fabric.domainlevels``; the ``nvl_chips`` are then one first-level domain's)."""

    @staticmethod
    def of(plan: Plan) -> "Shape":
        """The shape of ``plan`` (a ``core.plan.Plan``): its ``Wiring`` and its NVLink domains and racks (a folded
        Clos: ``InputError`` for another topology family, ``core.fabric.families.require_clos``)."""
        require_clos(plan.fabric, _("The failure, single-point-of-failure and link-load analyses"))
        return Shape.build(plan)

    @staticmethod
    def build(plan: Plan) -> "Shape":
        """``of`` for any topology family: its wiring's interface answers ``WIRED`` (a Dragonfly+'s groups as pods),
        for the models that read only the nodes, NICs, NVLink domains, racks and a leaf's uplinks
        (``core.analysis.spof``'s degrading elements)."""
        r = plan.resolved
        nvl = plan.nvlink_summary() if r.nvlink_domain_gpus > 1 else {"nvswitch_chips": 0, "links_per_gpu": 0}
        return Shape(
            wiring=Wiring.of(plan), nics=r.nics_per_node, gpus_per_node=r.gpus_per_node,
            nodes_per_domain=r.nvlink_level1_nodes, nodes_per_rack=max(1, r.nodes_per_rack),
            nvl_chips=(level1_chips(r) if r.nvlink_rack_gpus
                       else int(nvl["nvswitch_chips"] or 0)), nvl_links=int(nvl["links_per_gpu"] or 0),
            feeds=rack_power_feeds(plan)[0],
            scaleup_name=r.system.scaleup_name,
            mesh_per_peer=links_per_peer(int(nvl["links_per_gpu"] or 0), r.system.nvlink_domain_gpus)
            if r.system.is_mesh and 1 < r.nvlink_domain_gpus <= r.gpus_per_node else 0,
            mesh_size=r.nvlink_domain_gpus if r.system.is_mesh else 0,
            level2=tuple(d.level2_switches for d in scaleup_of(r).domains()) if r.nvlink_rack_gpus else (),
        )

    def pis(self) -> list[tuple[int, int]]:
        """Every ``(plane, island)``, planes outer (``Wiring.plane_islands``)."""
        return self.wiring.plane_islands()

    @property
    def racks(self) -> int:
        return -(-self.nodes // self.nodes_per_rack)

    # NVLink domains ------------------------------------------------------------------
    @property
    def domains(self) -> int:
        return -(-self.nodes // self.nodes_per_domain)

    @property
    def trays(self) -> int:
        """NVLink switch trays per multi-node domain (0 on HGX baseboards)."""
        if self.nodes_per_domain == 1 or not self.nvl_chips:
            return 0
        return NVL_TRAYS if self.nvl_chips % NVL_TRAYS == 0 else self.nvl_chips

    def chips_of_tray(self, t: int) -> range:
        per = self.nvl_chips // max(1, self.trays)
        return range(t * per, (t + 1) * per)

    def chip_links(self, c: int) -> int:
        """Links of one GPU to chip ``c``: ``links // chips`` each, the remainder on the outer chips first
        (0, last, 1, ...), so the HGX H100 baseboard's 18 links over 4 chips are 5 / 4 / 4 / 5 (Fabric Manager User
        Guide: "four NVLinks that connect to two of the NVSwitches, and five NVLinks that connect to the remaining
        two"; which two is not stated), HGX A100 2 to each of 6, HGX B200 9 to each of 2, NVL72 1 to each of 18."""
        chips, links = self.nvl_chips, self.nvl_links
        base, extra = divmod(links, chips)
        outer = list(dict.fromkeys(x for pair in zip(range(chips), reversed(range(chips))) for x in pair))
        return base + (1 if c in outer[:extra] else 0)

    def domain_name(self, d: int) -> str:
        if self.nodes_per_domain == 1:
            return Wiring.node_id(d)
        return f"rack{d}" if self.nodes_per_rack == self.nodes_per_domain else f"nvl{d}"

    @property
    def mesh_gpus(self) -> int:
        """GPUs of one node's direct-mesh domain (0: not a mesh)."""
        return self.mesh_size if self.mesh_per_peer else 0

    def domain_gpus(self, d: int) -> int:
        return (min(self.nodes, (d + 1) * self.nodes_per_domain) - d * self.nodes_per_domain) * self.gpus_per_node


for _name in WIRED:  # read-through properties (a C attrgetter each: as quick as a field in the closed-form loops)
    setattr(Shape, _name, property(attrgetter(f"wiring.{_name}"), doc=f"``Wiring.{_name}`` of ``wiring``."))
del _name


def _pair_links(shape: Shape, kind: str, a: int) -> int:
    """Cables of one bundle: leaf-spine (``kind`` ``ls``), or spine ``a``-core."""
    return shape.pair_links if kind == "ls" else shape.wiring.core_pair_links(a)
