"""Element geometry of a failure what-if: the fabric's shape, one plane and island (``core.analysis.failure``).

``Shape`` holds the counts of ``FabricPlan`` the failure model reads (leaves, spines, cores, groups, pods,
NICs, NVLink chips and trays, rack feeds) and answers where an element sits: a leaf's group and spines,
a spine's cores, an NVLink domain's name and GPUs, a chip's links per GPU.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.analysis.failure.power import rack_power_feeds
from core.plan import Plan

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


@dataclass(frozen=True)
class Shape:
    tiers: int
    planes: int
    islands: int
    rails: int
    """NICs per node in one island."""
    nics: int
    nodes: int
    gpus_per_node: int
    nodes_per_domain: int
    nodes_per_rack: int
    leaves: int
    spines: int
    cores: int
    groups: int
    nodes_per_group: int
    leaves_per_group: int
    groups_per_pod: int
    pods: int
    spines_per_pod: int
    cores_per_group: int
    tor: bool
    port_gbps: float
    up_gbps: float
    leaf_uplinks: int
    pair_links: int
    spine_uplinks: tuple[int, ...]
    """Uplinks of each spine, per pod."""
    spine_core_pairs: tuple[int, ...] = ()
    """Links between a spine and each core of its group, per pod."""
    nvl_chips: int = 0
    """NVSwitch chips per NVLink domain (0: no NVSwitch)."""
    nvl_links: int = 0
    """NVLink links per GPU."""
    feeds: int = 2
    """Power feeds per compute rack (``[[power_feed]]`` of racks.toml)."""

    @staticmethod
    def of(plan: Plan) -> "Shape":
        f, r = plan.fabric, plan.resolved
        islands = f.islands
        pods = f.pod_count if f.tiers == 3 else 1
        nvl = plan.nvlink_summary() if r.nvlink_domain_gpus > 1 else {"nvswitch_chips": 0, "links_per_gpu": 0}
        return Shape(
            spine_core_pairs=tuple(f.spine_core_pair_links(p) for p in range(pods)) if f.tiers == 3 else (),
            nvl_chips=int(nvl["nvswitch_chips"] or 0), nvl_links=int(nvl["links_per_gpu"] or 0),
            feeds=rack_power_feeds(plan)[0],
            tiers=f.tiers, planes=f.planes, islands=islands, rails=r.nics_per_node // islands, nics=r.nics_per_node,
            nodes=r.nodes, gpus_per_node=r.gpus_per_node,
            nodes_per_domain=max(1, r.nvlink_domain_gpus // r.gpus_per_node), nodes_per_rack=max(1, r.nodes_per_rack),
            leaves=f.leaf_count // islands, spines=f.spine_count // islands, cores=f.core_count // islands,
            groups=f.group_count, nodes_per_group=f.nodes_per_group, leaves_per_group=f.leaves_per_group,
            groups_per_pod=max(1, f.groups_per_pod), pods=pods, spines_per_pod=f.spines_per_pod,
            cores_per_group=f.cores_per_group, tor=f.topology == "top-of-rack", port_gbps=f.port_speed_gbps,
            up_gbps=f.uplink_speed_gbps or f.port_speed_gbps, leaf_uplinks=f.leaf_uplinks,
            pair_links=f.links_per_leaf_spine_pair,
            spine_uplinks=tuple(f.spine_uplinks_in_pod(p) for p in range(pods)) if f.tiers == 3 else (),
        )

    # names ---------------------------------------------------------------------------
    def prefix(self, p: int, i: int) -> str:
        return f"p{p}." if self.islands == 1 else f"p{p}.i{i}."

    def group_nodes(self, g: int) -> int:
        if self.tiers == 1:
            return self.nodes
        return max(0, min(self.nodes_per_group, self.nodes - g * self.nodes_per_group))

    def leaf_of(self, g: int, lr: int) -> int:
        """Leaf (within a plane and island) of local rail ``lr`` of group ``g``."""
        if self.tiers == 1:
            return 0
        return g if self.tor else g * self.leaves_per_group + lr

    def group_of_leaf(self, k: int) -> int:
        return 0 if self.tiers == 1 else k // self.leaves_per_group

    def pod_of_group(self, g: int) -> int:
        return g // self.groups_per_pod if self.tiers == 3 else 0

    def leaf_down_ports(self, k: int) -> int:
        nodes = self.group_nodes(self.group_of_leaf(k))
        return nodes * (self.rails if (self.tor or self.tiers == 1) else 1)

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
            return f"node{d}"
        return f"rack{d}" if self.nodes_per_rack == self.nodes_per_domain else f"nvl{d}"

    def domain_gpus(self, d: int) -> int:
        return (min(self.nodes, (d + 1) * self.nodes_per_domain) - d * self.nodes_per_domain) * self.gpus_per_node

    def pod_of_spine(self, k: int) -> int:
        return k // self.spines_per_pod if self.tiers == 3 else 0

    def spines_of_leaf(self, k: int) -> range:
        if self.tiers == 3:
            pod = self.pod_of_group(self.group_of_leaf(k))
            return range(pod * self.spines_per_pod, (pod + 1) * self.spines_per_pod)
        return range(self.spines)

    def cores_of_spine(self, k: int) -> range:
        j = k % self.spines_per_pod
        return range(j * self.cores_per_group, (j + 1) * self.cores_per_group)

    def pis(self):
        return [(p, i) for p in range(self.planes) for i in range(self.islands)]

def _pair_links(shape: Shape, kind: str, a: int) -> int:
    """Cables of one bundle: leaf-spine, or spine ``a``-core."""
    return shape.pair_links if kind == "ls" else shape.spine_core_pairs[shape.pod_of_spine(a)]
