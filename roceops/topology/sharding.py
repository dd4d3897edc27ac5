"""Which devices shard I of N works on (``audit --shard I/N``, ``health --shard I/N``), the same in every process.

Shards must merge into exactly what one unsharded run finds. The checks across a host-leaf cable need both ends
read by the same run, so the unit of sharding is a *cabling group*: the selected devices joined by host-leaf
cables (on a rail-optimized fabric, one SU's hosts and leaves; a spine or a core is a group of its own). Groups go
to shards largest first, each to the shard with the fewest devices so far (ties: the lower shard), groups of equal
size in selection order: deterministic, balanced to within one group, and independent of anything but the
fabric, the selection and N. A fabric whose hosts are all joined into one group gets one busy shard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: `--shard`'s parser must not load the pydantic model at CLI start-up
    from roceops.topology.fabric import Fabric

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"2/16"`` -> Shard(2, 16); anything else (0, I > N, no slash) is a ValueError naming the rule.

    >>> parse_shard("2/16")
    Shard(index=2, count=16)
    >>> parse_shard("0/3")
    Traceback (most recent call last):
    ...
    ValueError: shard '0/3' must be I/N with 1 <= I <= N (1-based, e.g. $SLURM_ARRAY_TASK_ID/3)
    """
    m = _SPEC.match(text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError(f"shard {text!r} must be I/N with 1 <= I <= N (1-based, e.g. $SLURM_ARRAY_TASK_ID/3)")
    return Shard(int(m.group(1)), int(m.group(2)))


def cabling_groups(fabric: Fabric, names: list[str]) -> list[list[str]]:
    """``names`` split into groups joined by host-leaf cables between selected devices, each in selection order,
    the groups in the order of their first device."""
    position = {n: i for i, n in enumerate(names)}
    parent = list(range(len(names)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for host in fabric.hosts:
        h = position.get(host.name)
        if h is None:
            continue
        for nic in host.nics:
            leaf = position.get(nic.leaf)
            if leaf is not None:
                a, b = root(h), root(leaf)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[str]] = {}
    for i, n in enumerate(names):
        groups.setdefault(root(i), []).append(n)
    return list(groups.values())


def _assign(groups: list[list[str]], shard: Shard) -> set[str]:
    """The names of the groups ``shard`` gets: largest group first, each to the least loaded shard."""
    order = sorted(range(len(groups)), key=lambda g: -len(groups[g]))  # stable: equal sizes keep selection order
    load = [0] * shard.count
    mine: set[str] = set()
    for g in order:
        target = min(range(shard.count), key=lambda k: (load[k], k))
        load[target] += len(groups[g])
        if target == shard.index - 1:
            mine.update(groups[g])
    return mine


def shard_names(fabric: Fabric, names: list[str], shard: Shard) -> list[str]:
    """The devices of ``names`` that ``shard`` works on, in selection order (see the module docstring)."""
    mine = _assign(cabling_groups(fabric, names), shard)
    return [n for n in names if n in mine]


def shard_nodes(fabric: Fabric, nodes: list[str], shard: Shard) -> list[str]:
    """The GPU nodes of ``nodes`` that ``shard`` checks (``health --shard``): nodes cabled to the same leaves stay
    together, so each shard reads a leaf once."""
    hosts = {h.name: h for h in fabric.hosts}
    leaves = list(dict.fromkeys(nic.leaf for n in nodes if n in hosts for nic in hosts[n].nics))
    wanted = set(nodes)
    groups = [g for g in ([n for n in group if n in wanted] for group in cabling_groups(fabric, nodes + leaves)) if g]
    mine = _assign(groups, shard)
    return [n for n in nodes if n in mine]
