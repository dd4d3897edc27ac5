"""The fabric's intended topology as schedulers read it: Slurm's ``topology.conf`` (tree plugin) and the node labels
of NVIDIA Topograph, plus reading a ``topology.conf`` back to compare it with the plan. Pure: no I/O.

Slurm ``topology.conf`` (https://slurm.schedmd.com/topology.conf.html, Debian's 22.05 man page topology.conf(5)):
one line per switch, ``SwitchName=<name>`` with its children as ``Nodes=<hostlist>`` (a leaf) or
``Switches=<hostlist>`` (a parent); keys are case-insensitive, ``#`` starts a comment, hostlist expressions are
Slurm's (``gpu[001-032]``). What roceops writes:

- one ``SwitchName=<leaf> Nodes=...`` per leaf, listing exactly the hosts cabled to it in the plan. On a
  rail-optimized fabric a host is cabled to one leaf per rail, so it appears under several leaves: slurmctld 22.05
  accepts that and logs ``WARNING: Multiple leaf switches contain nodes`` (seen on this project's test machine);
  the tree plugin then sees each rail's leaf as a way between the nodes, which is what the cabling is;
- one ``SwitchName=<spine> Switches=...`` per spine (and per core) listing the switches cabled below it;
- one ``SwitchName=<fabric>-plane<p> Switches=...`` per plane over that plane's top tier, so every node is reachable
  from one switch per plane (a fabric with one plane gets one root). A rail-only fabric has no switch above its
  leaves and gets no root: Slurm then keeps each job under one leaf, as the cabling does.

Kubernetes labels follow Topograph's schema (NVIDIA/topograph pkg/topology/topology.go and
docs/reference/node-labels.md at commit e2b625071e327ee5c3bb119d8a31289a818c30fc): ``fabric.topograph.run/tier-N``,
tier 0 the switch closest to the node, one value per key; values longer than 63 characters are replaced by the
FNV-64a hash as ``x`` + its hex digits (pkg/engines/k8s/labeler.go ``checkLabel``). A label holds one value, so a
node cabled to several leaves is labelled with the leaf of its first NIC (lowest plane and rail); on a
rail-optimized SU every node of the SU shares the same leaves, so that leaf names the SU's leaf group. Tier 1 is
the node's spine group (the pod in a 3-tier fabric, else the plane), tier 2 the core plane of a 3-tier fabric.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import hostlist

from roceops.topology.fabric import Fabric, Host, Switch

TIER_LABEL = "fabric.topograph.run/tier-"  # NVIDIA/topograph pkg/topology/topology.go KeyFabricTierPrefix
LABEL_VALUE_MAX = 63  # Kubernetes label value limit; Topograph hashes longer values (node-labels.md)
_FNV64_OFFSET, _FNV64_PRIME = 0xCBF29CE484222325, 0x100000001B3


def leaf_nodes(fabric: Fabric) -> dict[str, list[str]]:
    """Leaf -> the hosts cabled to it, in fabric order (every leaf, also one with no host yet)."""
    out: dict[str, list[str]] = {s.name: [] for s in fabric.switches if s.role == "leaf"}
    for host in fabric.hosts:
        for leaf in dict.fromkeys(nic.leaf for nic in host.nics):
            out[leaf].append(host.name)
    return out


def child_switches(fabric: Fabric) -> dict[str, list[str]]:
    """Spine/core -> the switches cabled below it (leaf-spine and spine-core cables), in fabric order."""
    out: dict[str, list[str]] = {s.name: [] for s in fabric.switches if s.role != "leaf"}
    for link in fabric.links:
        if link.tier != "host-leaf" and link.a.device not in out[link.b.device]:
            out[link.b.device].append(link.a.device)
    return out


def plane_roots(fabric: Fabric) -> dict[str, list[str]]:
    """``<fabric>-plane<p>`` -> the top tier's switches of plane p; none for a rail-only fabric."""
    if fabric.tiers < 2:
        return {}
    top = "core" if fabric.tiers == 3 else "spine"
    out: dict[str, list[str]] = {}
    for s in fabric.switches:
        if s.role == top:
            out.setdefault(f"{fabric.intent.name}-plane{s.plane}", []).append(s.name)
    return out


def slurm_topology_conf(fabric: Fabric) -> str:
    """``topology.conf`` for Slurm's tree plugin (the module docstring says what each line holds)."""
    compressed: dict[tuple[str, ...], str] = {}  # a rail-optimized SU's leaves share one node list: compress once

    def hosts(names: list[str]) -> str:
        key = tuple(names)
        if key not in compressed:
            compressed[key] = hostlist.collect_hostlist(names)
        return compressed[key]

    lines = [f"# topology.conf for Slurm's topology/tree plugin, written by roceops from fabric "
             f"{fabric.intent.name!r} (the plan, not discovery)"]
    for leaf, nodes in leaf_nodes(fabric).items():
        if nodes:  # Slurm refuses a leaf switch without children
            lines.append(f"SwitchName={leaf} Nodes={hosts(nodes)}")
    for parents in (child_switches(fabric), plane_roots(fabric)):
        for name, children in parents.items():
            if children:
                lines.append(f"SwitchName={name} Switches={hosts(children)}")
    return "\n".join(lines) + "\n"


def label_value(text: str) -> str:
    """A label value as Topograph writes it: as is up to 63 characters, else ``x`` + FNV-64a in hex.

    >>> label_value("leaf-su1-r1")
    'leaf-su1-r1'
    >>> label_value("a" * 64)
    'xdb007849f35ebbe5'
    """
    if len(text) <= LABEL_VALUE_MAX:
        return text
    h = _FNV64_OFFSET
    for byte in text.encode():
        h = ((h ^ byte) * _FNV64_PRIME) & 0xFFFFFFFFFFFFFFFF
    return f"x{h:x}"  # Go's fmt "x%x" of fnv.New64a (pkg/engines/k8s/labeler.go checkLabel)


def _tiers(fabric: Fabric, host: Host) -> list[str]:
    nic = min(host.nics, key=lambda n: (n.plane, n.rail))
    leaf = fabric.device(nic.leaf)
    tiers = [leaf.name]
    if fabric.tiers >= 2:
        pod = leaf.pod if isinstance(leaf, Switch) else None
        tiers.append(f"{fabric.intent.name}-pod{pod}" if fabric.tiers == 3 and pod is not None
                     else f"{fabric.intent.name}-plane{nic.plane}")
    if fabric.tiers == 3:
        tiers.append(f"{fabric.intent.name}-plane{nic.plane}")
    return tiers


def k8s_labels(fabric: Fabric) -> dict[str, dict[str, str]]:
    """Node -> its Topograph fabric-tier labels (tier 0 closest to the node)."""
    return {h.name: {f"{TIER_LABEL}{i}": label_value(v) for i, v in enumerate(_tiers(fabric, h))}
            for h in fabric.hosts if h.nics}


@dataclass
class SlurmTopology:
    """A parsed ``topology.conf``: each switch's nodes and child switches, and where each line was."""

    nodes: dict[str, list[str]] = field(default_factory=dict)
    switches: dict[str, list[str]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def placement(self) -> dict[str, list[str]]:
        """Node -> the switches whose ``Nodes=`` list it, in file order."""
        out: dict[str, list[str]] = {}
        for switch, nodes in self.nodes.items():
            for node in nodes:
                out.setdefault(node, []).append(switch)
        return out


class TopologyConfError(ValueError):
    """A ``topology.conf`` line roceops cannot read; the message names the line."""


_PAIR = re.compile(r"(\w+)=(\S+)")


def parse_topology_conf(text: str, source: str = "topology.conf") -> SlurmTopology:
    """Read the tree plugin's lines (``SwitchName=... Nodes=... Switches=... LinkSpeed=...``); keys are
    case-insensitive and ``#`` starts a comment, as in topology.conf(5)."""
    out = SlurmTopology()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        pairs = {k.lower(): v for k, v in _PAIR.findall(line)}
        name = pairs.get("switchname")
        if name is None:
            raise TopologyConfError(f"{source}:{number}: no SwitchName= on this line: {raw.strip()!r}")
        try:
            out.nodes[name] = hostlist.expand_hostlist(pairs["nodes"]) if "nodes" in pairs else []
            out.switches[name] = hostlist.expand_hostlist(pairs["switches"]) if "switches" in pairs else []
        except hostlist.BadHostlist as exc:
            raise TopologyConfError(f"{source}:{number}: bad host list: {exc}") from None
        out.lines[name] = number
    return out


@dataclass(frozen=True)
class Misplaced:
    """A planned node the scheduler's file places under other leaves than the cabling plan."""

    node: str
    planned: list[str]
    found: list[str]


def misplaced_nodes(fabric: Fabric, conf: SlurmTopology, nodes: list[str] | None = None) -> list[Misplaced]:
    """Planned hosts (``nodes``: only these) whose leaves in ``conf`` are not exactly the leaves they are cabled
    to; a host missing from the file is misplaced under no switch. Nodes the fabric does not plan (CPU nodes,
    login nodes) are not judged."""
    planned: dict[str, list[str]] = {}
    for leaf, hosts in leaf_nodes(fabric).items():
        for h in hosts:
            planned.setdefault(h, []).append(leaf)
    found = conf.placement()
    wanted = set(nodes) if nodes is not None else None
    return [Misplaced(node=h, planned=sorted(leaves), found=sorted(found.get(h, [])))
            for h, leaves in planned.items()
            if (wanted is None or h in wanted) and sorted(leaves) != sorted(found.get(h, []))]
