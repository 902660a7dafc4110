"""Slurm topology files of a planned design: ``topology.conf`` (tree or block plugin) and ``topology.yaml``.

Exports (``core.formats.exports``):

``slurm``       ``topology.conf`` for ``TopologyPlugin=topology/tree`` (``SwitchName=... Switches=...`` and
                ``SwitchName=... Nodes=...`` lines, host lists compressed as ``gpu[001-032]``).
``slurm-block`` ``topology.conf`` for ``TopologyPlugin=topology/block`` (``BlockName=... Nodes=...`` lines and
                one ``BlockSizes=`` line).
``slurm-yaml``  ``topology.yaml`` (Slurm 25.05 and later) with both: a ``tree`` topology (the cluster default)
                and a ``block`` topology.

Grammar, as documented by SchedMD: topology.conf(5) (https://slurm.schedmd.com/topology.conf.html, sections
"topology/tree" and "topology/block") and topology.yaml(5) (https://slurm.schedmd.com/topology.yaml.html,
"Block definitions", "Tree definitions" and its EXAMPLE). A switch name is at most 64 characters; host lists
use Slurm's hostlist expressions; "Successive BlockSizes must be a power of two larger than the prior values"
and "each block must have at least the planning base block size count of nodes".

How the fabric maps onto Slurm's single tree
--------------------------------------------
Slurm's tree plugin needs a tree: every node under exactly one leaf switch, every switch under at most one
parent (topology.conf(5): "each line defining a switch name and its children"; NVIDIA's topograph, which
writes topology.conf from discovered fabrics, models "A switch can have at most one parent switch. A node can
be attached to at most one switch", github.com/NVIDIA/topograph docs/modeling.md). A rail-optimized fabric is
not a tree: each node has one NIC on each of the rail leaves of its scalable unit (SU), and each leaf has
uplinks to every spine. So the export describes *locality*, which is what the scheduler uses it for:

* the rail leaves of one SU (all nodes of the SU reach each other in one hop on every rail) are one Slurm
  leaf switch, named ``su001``...; a top-of-rack fabric's leaf (one per rack or leaf group) keeps its own
  name (``leaf001``) when the group has one leaf;
* two tiers: one top switch (``spines``) stands for all spines of the plane, since every leaf reaches every
  spine;
* three tiers: one switch per pod (``pod001``...) stands for the pod's spines, and one top switch
  (``cores``) for the core tier;
* Dragonfly+: one switch per group (``group001``...) stands for the group's spines, and one top switch
  (``global``) for the global links that join every pair of groups;
* one tier: one switch (the plane's only switch) holds every node;
* planes are identical copies of one fabric (every node has a port in each), so the tree is the one of
  plane 1; islands (rail-only rails, per-rail planes) are identical too and joined only through the nodes'
  NVLink, so the tree is the one of island 1. Slurm has no notion of either; a job placed well in one plane
  is placed well in all.

The file's leading comment lists which real switches each Slurm switch stands for (names from
``core.fabric.naming``), so an operator can map it back.

Blocks
------
The block plugin is for NVLink domains (topology.conf(5): "lower-latency connections between smaller
blocks of nodes"): a GB200 NVL72 rack of 18 compute trays is one block of 18 nodes. When the design's NVLink
domain is a single node (HGX/DGX 8-GPU servers), a block of one node says nothing, so the base block is the
next locality level instead: the SU (the nodes under one Slurm leaf switch above). ``BlockSizes`` lists the
base block size in nodes and its power-of-two multiples up to the cluster (the sizes of the aggregated blocks
Slurm forms from contiguous base blocks), at most ``MAX_BLOCK_LEVELS`` of them. When the last SU is partial,
the base size is the smallest block's node count, so every block holds at least the base size.

Machine-readable: written in English whatever the request's language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, TextIO

from core import vocab
from core.errors import InputError
from core.fabric.families import export_word, words
from core.fabric.naming import Namer, NamingScheme
from core.fabric.wiring import Wiring
from core.formats.exports import Export
from core.i18n import DEFAULT_LANGUAGE, N_, _, language

MAX_BLOCK_LEVELS = 16
"""Most entries of ``BlockSizes`` written (base block and its doublings)."""
MAX_SWITCH_NAME = 64
"""Longest switch name Slurm accepts (topology.conf(5), SwitchName)."""

_TRAILING_DIGITS = re.compile(r"^(.*?)(\d+)$")
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


# --- host lists --------------------------------------------------------------------------------
def compress_hostlist(names: Iterable[str]) -> str:
    """Slurm hostlist expression of ``names``: ``gpu001 .. gpu032, gpu040`` -> ``gpu[001-032,040]``.

    Names are grouped by the text before their trailing digits and by zero padding: numbers written with a
    leading zero (``007``) form ranges of that width; numbers without (``7``, ``12``) join a padded group of
    their own length if there is one, else one unpadded group (``s[0-2,4-8,12]``), so a range never expands
    to other names. Groups are written in order, joined by commas; a name without trailing digits as it
    is; duplicates are dropped. The inverse is ``expand_hostlist``.
    """
    found: list[tuple[str, str]] = []
    plain: set[str] = set()
    for name in names:
        match = _TRAILING_DIGITS.match(name)
        if match is None:
            plain.add(name)
        else:
            found.append((match.group(1), match.group(2)))
    padded = {(prefix, len(digits)) for prefix, digits in found if len(digits) > 1 and digits[0] == "0"}
    groups: dict[tuple[str, int], set[int]] = {}
    for prefix, digits in found:
        width = len(digits) if (prefix, len(digits)) in padded else 0  # 0: unpadded
        groups.setdefault((prefix, width), set()).add(int(digits))
    parts = sorted(plain)
    for (prefix, width), numbers in sorted(groups.items()):
        ordered = sorted(numbers)
        if len(ordered) == 1:
            parts.append(f"{prefix}{ordered[0]:0{width}d}" if width else f"{prefix}{ordered[0]}")
            continue
        ranges = []
        start = previous = ordered[0]
        for number in ordered[1:] + [None]:
            if number is not None and number == previous + 1:
                previous = number
                continue
            first, last = (f"{start:0{width}d}", f"{previous:0{width}d}") if width else (str(start), str(previous))
            ranges.append(first if start == previous else f"{first}-{last}")
            if number is not None:
                start = previous = number
        parts.append(f"{prefix}[{','.join(ranges)}]")
    return ",".join(parts)


def expand_hostlist(expression: str) -> list[str]:
    """The names of a hostlist expression with at most one bracket per name (``gpu[001-003,007],leaf1``).

    Zero padding follows each range's first number (Slurm's rule). Raises ``InputError`` on a malformed
    expression.
    """
    names: list[str] = []
    for item in _split_top_level(expression):
        if "[" not in item:
            if not item or "]" in item:
                raise InputError(_("malformed host list {value}").format(value=expression[:60]))
            names.append(item)
            continue
        prefix, _bracket, rest = item.partition("[")
        body, _close, suffix = rest.partition("]")
        if not _close or "[" in body or "[" in suffix or "]" in suffix:
            raise InputError(_("malformed host list {value}").format(value=expression[:60]))
        for part in body.split(","):
            match = _RANGE.match(part)
            if match is None:
                raise InputError(_("malformed host list {value}").format(value=expression[:60]))
            first, last = match.group(1), match.group(2) or match.group(1)
            width = len(first)
            if int(last) < int(first):
                raise InputError(_("malformed host list {value}").format(value=expression[:60]))
            names.extend(f"{prefix}{n:0{width}d}{suffix}" for n in range(int(first), int(last) + 1))
    return names


def _split_top_level(expression: str) -> list[str]:
    """Split at commas outside brackets."""
    items, depth, current = [], 0, []
    for char in expression:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    items.append("".join(current))
    return items


def _range_list(names: list[str]) -> str:
    """``names`` (consecutive names of one kind) as a hostlist expression."""
    return compress_hostlist(names)


# --- the tree ----------------------------------------------------------------------------------
@dataclass
class SlurmSwitch:
    """One switch of the Slurm tree: a name, the real switches it stands for, and its children."""

    name: str
    stands_for: str
    """Hostlist of the real switches (``leaf[001-008]``) or a description."""
    switches: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    """Node names (for leaf-level switches)."""


@dataclass
class SlurmTree:
    """The tree Slurm sees, leaves first (Slurm reads children before parents either way)."""

    switches: list[SlurmSwitch]
    notes: list[str]
    mapping: str = ("Slurm's tree plugin needs a tree; the rail-optimized / multi-plane fabric is mapped onto it by\n"
                    "locality: the rail leaves of one scalable unit (SU) are one Slurm switch, all spines of a\n"
                    "two-tier plane (or of one pod, in three tiers) one switch above them, the core tier the top.")
    """How the fabric is mapped onto the tree, one comment line per line (a torus has no switches: its own)."""


def _plane_note(plan) -> list[str]:
    fabric = plan.fabric
    notes = []
    if fabric.planes > 1:
        notes.append(f"The fabric has {fabric.planes} identical planes; this is plane 1 (every node has a port "
                     f"in each plane, so placement is the same in all).")
    if fabric.islands > 1:
        notes.append(f"Each plane has {fabric.islands} identical islands (rails or per-rail planes) joined only "
                     f"through the nodes; this is island 1.")
    return notes


def slurm_tree(plan, naming: NamingScheme | None = None) -> SlurmTree:
    """The Slurm tree of ``plan``: one leaf switch per SU / leaf group, pod switches, one top switch.

    See the module docstring for the mapping. Switch names take ``naming.switch_prefix``; node names follow
    ``core.fabric.naming.Namer``.
    """
    from core.formats.podslurm import mixed_of, mixed_tree  # a design with pods: every pod's switches

    mixed = mixed_of(plan)
    if mixed is not None:
        return mixed_tree(mixed, naming)
    namer = Namer.of(plan, naming)
    scheme = namer.scheme
    wiring = Wiring.of(plan)
    notes = _plane_note(plan)

    def real(tier: str, indices: Iterable[int]) -> str:
        return compress_hostlist(namer.switch(tier, i) for i in indices)

    if "torus" in wiring.link_classes:
        return SlurmTree(_torus_layers(plan, namer, wiring), notes, TORUS_MAPPING)
    if wiring.tiers == 1:
        leaf = namer.switch("leaf", wiring.leaf_of(0, 0))
        return SlurmTree([SlurmSwitch(leaf, leaf, nodes=[namer.node(n) for n in range(wiring.nodes)])], notes)

    switches: list[SlurmSwitch] = []
    pods: dict[int, tuple[int, list[str]]] = {}  # pod -> (its first group, its Slurm leaf switches)
    digits = scheme.digits(wiring.groups)
    rails = "leaves" if plan.fabric.topology == "top-of-rack" else "rails"
    for group in range(wiring.groups):
        members = [namer.node(n) for n in wiring.nodes_of_group(group)]
        if not members:
            continue
        leaves = sorted({wiring.leaf_of(group, lr) for lr in range(wiring.rails)})
        if len(leaves) == 1:
            name = stands = namer.switch("leaf", leaves[0])
        else:
            name = namer.logical("su", group, digits)
            stands = f"{real('leaf', leaves)} ({len(leaves)} {rails} of SU {group + 1})"
        switches.append(SlurmSwitch(name, stands, nodes=members))
        pods.setdefault(wiring.pod_of_group(group), (group, []))[1].append(name)

    grouped = "global" in wiring.link_classes  # Dragonfly+: its groups are the pods, the global links the top
    if wiring.tiers == 2 and not grouped:
        switches.append(SlurmSwitch(namer.logical("spines"), real("spine", range(wiring.count("spine")))
                                    + " (every leaf reaches every spine)", switches=pods[0][1]))
        return SlurmTree(switches, notes)

    pod_digits = scheme.digits(wiring.pods)
    pod_names: list[str] = []
    word, what = ("group", wiring.group_name) if grouped else ("pod", "pod")
    for pod, (first_group, members) in sorted(pods.items()):
        name = namer.logical(word, pod, pod_digits)
        spines = wiring.spines_of_leaf(wiring.leaf_of(first_group, 0))
        stands = (f"{real('spine', spines)} (spines of {what} {pod + 1})" if spines else  # a Dragonfly: its routers
                  f"{real('leaf', wiring.leaves_of_pod(pod))} (routers of {what} {pod + 1})")
        switches.append(SlurmSwitch(name, stands, switches=members))
        pod_names.append(name)
    if grouped:
        top = SlurmSwitch(namer.logical("global"), f"the {plan.fabric.global_links:,} global links between the groups",
                          switches=pod_names)
    else:
        top = SlurmSwitch(namer.logical("cores"), real("core", range(wiring.count("core"))) + " (core tier)",
                          switches=pod_names)
    switches.append(top)
    if not grouped:
        return SlurmTree(switches, notes)
    family = plan.fabric.family
    return SlurmTree(switches, notes, GROUPS_MAPPING.format(
        above="the spines" if wiring.count("spine") else "the routers", family=vocab.TOPOLOGY.label(family),
        leaves=export_word(family, "leaves", "leaves")))


GROUPS_MAPPING = ("Slurm's tree plugin needs a tree; the {family} fabric is mapped onto it by locality: the rail\n"
                  "{leaves} of one scalable unit (SU) are one Slurm switch, {above} of one group one switch above\n"
                  "them, and one top switch stands for the global links between the groups.")
"""The tree's comment of a family whose groups are joined by global links (a Dragonfly's)."""


TORUS_MAPPING = ("Slurm's tree plugin needs a tree; a torus has no switches, so its nodes are mapped onto one by\n"
                 "locality: the nodes of one layer of its last dimension (joined node to node by the rings of the\n"
                 "other dimensions) are one logical Slurm switch, and one top switch stands for the last\n"
                 "dimension's rings that join the layers. No Slurm switch is a real switch.")
"""The torus tree's comment (``_torus_layers``)."""


def _torus_layers(plan, namer: Namer, wiring) -> list[SlurmSwitch]:
    """A torus (``core.fabric.torus``) as a tree: one logical switch per layer of its last dimension (the nodes
    joined by the rings of the other dimensions, consecutive in the folded order) under one top switch standing
    for the last dimension's rings; the block plugin's blocks are then these layers."""
    digits = namer.scheme.digits(wiring.groups)
    dims = "x".join(str(k) for k in wiring.dims)
    layers = [SlurmSwitch(namer.logical("group", g, digits), f"layer {g + 1} of the {dims} torus (no switch: "
                          f"nodes joined node to node)", nodes=[namer.node(n) for n in wiring.nodes_of_group(g)])
              for g in range(wiring.groups)]
    top = SlurmSwitch(namer.logical("global"), f"the rings of the torus's last dimension ({wiring.dims[-1]} layers)",
                      switches=[layer.name for layer in layers])
    return [*layers, top]


# --- blocks ------------------------------------------------------------------------------------
def _two_level_blocks(plan, namer: Namer, rack_nodes: int) -> "SlurmBlocks":
    """Blocks of a two-level NVLink domain (``core.fabric.domainlevels``): one base block per first-level domain (rack)
    and ``BlockSizes`` of two levels as NVIDIA's topograph infers them: the first-level domain's nodes and the
    smallest power-of-two multiple of it that holds the largest NVLink domain (``[9, 144]`` for 16 NVL36 racks)."""
    resolved = plan.resolved
    nodes = resolved.nodes
    count = -(-nodes // rack_nodes)
    digits = namer.scheme.digits(count)
    blocks = [(namer.logical("nvl", b, digits),
               [namer.node(n) for n in range(b * rack_nodes, min(nodes, (b + 1) * rack_nodes))])
              for b in range(count)]
    largest = max(1, resolved.nvlink_domain_gpus // resolved.gpus_per_node)
    aggregate = rack_nodes
    while aggregate < largest:
        aggregate *= 2
    sizes = [rack_nodes] + ([aggregate] if aggregate > rack_nodes else [])
    basis = (f"one base block per first-level NVLink domain of {resolved.nvlink_level1_gpus} GPUs ({rack_nodes} "
             f"nodes); the second level joins up to {largest} nodes ({resolved.nvlink_domain_gpus} GPUs) into one "
             f"NVLink domain, so the aggregated block is {aggregate} nodes, the smallest power-of-two multiple of "
             f"the base that holds it (NVIDIA topograph's rule); domains of a power-of-two number of racks align "
             f"with Slurm's aggregated blocks, others may share one with the next domain")
    reach = "up to the cluster" if sizes[-1] >= nodes else (
        f"up to the aggregated block that holds the largest NVLink domain ({sizes[-1]} nodes), not the cluster "
        f"(NVIDIA topograph's rule)")
    return SlurmBlocks(blocks, sizes, basis, reach)


def _domain_nodes(resolved) -> int:
    """Nodes of one (first-level) scale-up domain of ``resolved``."""
    return max(1, resolved.nvlink_level1_gpus // max(1, resolved.gpus_per_node))


def _domain_blocks(resolved) -> bool:
    """Whether the base block of ``resolved`` is its scale-up domain (it spans several nodes, or a second NVLink
    level joins racks), else the SU of the tree form (``slurm_blocks``; the export's label, ``_block_label``)."""
    return bool(resolved.nvlink_rack_gpus) or _domain_nodes(resolved) > 1


@dataclass
class SlurmBlocks:
    """Blocks of the block plugin: names with their nodes, the ``BlockSizes`` list and what a block is."""

    blocks: list[tuple[str, list[str]]]
    sizes: list[int]
    basis: str
    reach: str = "up to the cluster"
    """How far ``sizes`` go (the file's comment): the cluster, or the largest NVLink domain of a two-level one."""


def slurm_blocks(plan, naming: NamingScheme | None = None) -> SlurmBlocks:
    """Base blocks of ``plan``: NVLink domains spanning several nodes, else the SUs of the tree (a design with
    pods: every pod's, ``core.formats.podslurm``)."""
    from core.formats.podslurm import mixed_blocks, mixed_of

    mixed = mixed_of(plan)
    if mixed is not None:
        return mixed_blocks(mixed, naming, MAX_BLOCK_LEVELS)
    namer = Namer.of(plan, naming)
    resolved = plan.resolved
    nodes = resolved.nodes
    per_domain = _domain_nodes(resolved)
    if resolved.nvlink_rack_gpus:
        return _two_level_blocks(plan, namer, per_domain)
    scaleup = resolved.system.scaleup_name  # the scale-up link's own name (NVLink, Infinity Fabric, UB, ...)
    if _domain_blocks(resolved):
        count = -(-nodes // per_domain)
        digits = namer.scheme.digits(count)
        prefix = "nvl" if scaleup == "NVLink" else "sud"
        blocks = [(namer.logical(prefix, b, digits),
                   [namer.node(n) for n in range(b * per_domain, min(nodes, (b + 1) * per_domain))])
                  for b in range(count)]
        basis = (f"one block per {scaleup} domain of {resolved.nvlink_domain_gpus} GPUs "
                 f"({per_domain} nodes of {resolved.gpus_per_node} GPUs)")
    else:
        tree = slurm_tree(plan, naming)
        leaves = [s for s in tree.switches if s.nodes]
        blocks = [(namer.logical("block", i, namer.scheme.digits(len(leaves))), s.nodes) for i, s in enumerate(leaves)]
        basis = words(plan.fabric.family, "slurm:block:basis",  # a torus: its logical groups (its WORDS)
                      "the {scaleup} domain is one node, so one block per scalable unit / leaf group (the nodes "
                      "under one leaf switch of the tree form)").format(scaleup=scaleup)
    base = min(len(members) for _name, members in blocks)
    sizes = [base]
    while len(sizes) < MAX_BLOCK_LEVELS and sizes[-1] * 2 <= base * len(blocks):
        sizes.append(sizes[-1] * 2)
    return SlurmBlocks(blocks, sizes, basis)


# --- writers -----------------------------------------------------------------------------------
def _header(plan, out: TextIO, title: str, plugin: str) -> None:
    from core.figures.subtitle import design_subtitle
    from core.formats.podslurm import mixed_header, mixed_of

    out.write(f"# Slurm {title} written by fabric planner ({plugin}).\n")
    mixed = mixed_of(plan)
    if mixed is not None:
        out.write(mixed_header(mixed))
        return
    out.write(f"# Design: {design_subtitle(plan)}.\n")  # the Designer's words (its subtitle)


def _tree_comment(tree: SlurmTree, out: TextIO) -> None:
    out.write("".join(f"# {line}\n" for line in tree.mapping.splitlines()))
    for note in tree.notes:
        out.write(f"# {note}\n")
    out.write("# Slurm switch = real switches it stands for:\n")
    for switch in tree.switches:
        out.write(f"#   {switch.name} = {switch.stands_for}\n")


def write_tree_conf(plan, out: TextIO, naming: NamingScheme) -> None:
    """``topology.conf`` for ``topology/tree``."""
    with language(DEFAULT_LANGUAGE):
        tree = slurm_tree(plan, naming)
        _header(plan, out, "topology.conf", "TopologyPlugin=topology/tree")
        _tree_comment(tree, out)
        for switch in tree.switches:
            if switch.nodes:
                out.write(f"SwitchName={switch.name} Nodes={_range_list(switch.nodes)}\n")
            else:
                out.write(f"SwitchName={switch.name} Switches={_range_list(switch.switches)}\n")


def write_block_conf(plan, out: TextIO, naming: NamingScheme) -> None:
    """``topology.conf`` for ``topology/block``."""
    with language(DEFAULT_LANGUAGE):
        blocks = slurm_blocks(plan, naming)
        _header(plan, out, "topology.conf", "TopologyPlugin=topology/block")
        out.write(f"# Blocks: {blocks.basis}.\n")
        out.write(f"# BlockSizes: the base block ({blocks.sizes[0]} nodes) and the aggregated blocks Slurm may form\n"
                  f"# from contiguous base blocks (each a power of two larger), {blocks.reach}.\n")
        for name, members in blocks.blocks:
            out.write(f"BlockName={name} Nodes={_range_list(members)}\n")
        out.write(f"BlockSizes={','.join(str(s) for s in blocks.sizes)}\n")


def write_yaml(plan, out: TextIO, naming: NamingScheme) -> None:
    """``topology.yaml`` with a ``tree`` topology (cluster default) and a ``block`` topology."""
    with language(DEFAULT_LANGUAGE):
        tree = slurm_tree(plan, naming)
        blocks = slurm_blocks(plan, naming)
        _header(plan, out, "topology.yaml", "Slurm 25.05+; topology.conf is ignored when this file exists")
        _tree_comment(tree, out)
        out.write(f"# Blocks: {blocks.basis}.\n")
        out.write("- topology: tree\n  cluster_default: true\n  tree:\n    switches:\n")
        for switch in tree.switches:
            out.write(f"    - switch: {switch.name}\n")
            if switch.nodes:
                out.write(f"      nodes: {_yaml_scalar(_range_list(switch.nodes))}\n")
            else:
                out.write(f"      children: {_yaml_scalar(_range_list(switch.switches))}\n")
        out.write("- topology: block\n  cluster_default: false\n  block:\n    block_sizes:\n")
        for size in blocks.sizes:
            out.write(f"      - {size}\n")
        out.write("    blocks:\n")
        for name, members in blocks.blocks:
            out.write(f"    - block: {name}\n      nodes: {_yaml_scalar(_range_list(members))}\n")


def _yaml_scalar(text: str) -> str:
    """A host list as a YAML scalar: quoted, since ``[`` would start a flow sequence."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def tree_lines(text: str) -> Iterator[tuple[str, str, list[str]]]:
    """``(switch, "Nodes"|"Switches", names)`` of each line of a tree ``topology.conf`` (tests, checks)."""
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"SwitchName=(\S+) (Nodes|Switches)=(\S+)", line)
        if match is None:
            raise InputError(_("not a topology/tree line: {value}").format(value=line[:60]))
        yield match.group(1), match.group(2), expand_hostlist(match.group(3))


def _block_label(plan) -> str:
    """The block export's label for ``plan``: its scale-up domains (``core.scaleup.domain_word``) as blocks."""
    from core.design import tidy_spaces
    from core.scaleup import domain_word

    from core.formats.podslurm import mixed_of

    domain = domain_word(plan.resolved.system)
    if mixed_of(plan) is not None:  # each pod's own rule (core.formats.podslurm.mixed_blocks)
        return _("Slurm topology.conf (block plugin): per pod, one block per {domain} of several nodes, else per "
                 "scalable unit").format(domain=domain)
    if _domain_blocks(plan.resolved):
        return tidy_spaces(_("Slurm topology.conf (block plugin): one block per {domain}").format(domain=domain))
    return tidy_spaces(words(plan.fabric.family, "slurm:block", N_(  # a torus, a classic Dragonfly: their WORDS
        "Slurm topology.conf (block plugin): one block per scalable unit, the nodes under one leaf switch of the tree "
        "form (the {domain} is one node)")).format(domain=domain))  # no space beside a Chinese domain word


def _tree_label(plan) -> str:
    """The tree export's label for ``plan``: switches and nodes, in its family's words where its Slurm switches stand
    for no real switch (a torus's logical groups of nodes)."""
    return words(plan.fabric.family, "slurm:tree", N_("Slurm topology.conf (tree plugin): switches and nodes"))


EXPORTS = (
    Export("slurm", write_tree_conf, ".conf", "text/plain",
           N_("Slurm topology.conf (tree plugin): switches and nodes"), describe=_tree_label, every_pod=True),
    Export("slurm-block", write_block_conf, ".conf", "text/plain",
           N_("Slurm topology.conf (block plugin): NVLink domains as blocks"), describe=_block_label,
           every_pod=True),
    Export("slurm-yaml", write_yaml, ".yaml", "application/yaml",
           N_("Slurm topology.yaml: tree and block topologies"), every_pod=True),
)


def node_groups(plan, naming: NamingScheme | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """``(node name -> its leaf-level switch of the Slurm tree, node name -> its block)``, for naming what a fault
    touches (``core.analysis.verify``); a map is empty where the design has no tree or no blocks."""
    switch_of: dict[str, str] = {}
    block_of: dict[str, str] = {}
    try:
        for switch in slurm_tree(plan, naming).switches:
            switch_of.update(dict.fromkeys(switch.nodes, switch.name))
        for name, nodes in slurm_blocks(plan, naming).blocks:
            block_of.update(dict.fromkeys(nodes, name))
    except (InputError, ValueError):
        pass
    return switch_of, block_of
