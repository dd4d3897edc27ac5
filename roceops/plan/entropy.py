"""Entropy planning: how a collective's RoCE flows land on a leaf's ECMP uplinks, and how many QPs
per connection (NCCL_IB_QPS_PER_CONNECTION) keep the worst uplink under a target load.

Model (docs/entropy.md): rails are independent (rail-optimised), so each (rail, plane) is a ring or
tree over the job's nodes. A connection whose peer sits on another leaf leaves through the uplinks;
it is split into ``qps`` equal flows (NCCL round-robins messages over its QPs), each hashed
uniformly and independently onto one of the leaf's uplinks (an ideal hash; the UDP source port
differs per QP). The chance that some uplink carries ``>= k`` flows is the exact balls-into-bins
value of :mod:`roceops.plan.balls_bins`. Pure, no I/O.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from typing import Any

from roceops.model.load_balancing import EntropyScenario
from roceops.plan.balls_bins import p_max_at_least, quantile_max
from roceops.topology.fabric import Fabric

QP_CANDIDATES = (1, 2, 4, 8, 16)
QP_MAX = 128  # the intent's upper bound for qps_per_connection
TREE_OUT_DEGREE = 2  # reduce phase: each rank sends to its parent in each of NCCL's two trees


@dataclass(frozen=True)
class LeafTraffic:
    """One leaf of one (rail, plane): its ECMP uplinks and the job's connections that leave it."""

    leaf: str
    rail: int
    plane: int
    uplinks: int
    uplink_speed: int  # Mb/s
    connections: int  # connections (x channels) from this leaf's NICs to NICs on other leaves


@dataclass(frozen=True)
class QpRow:
    """The worst leaf's uplinks at one QP count."""

    qps: int
    flows: int  # connections x qps: what the hash sees
    flows_per_uplink: float  # expected
    load_percent: float  # expected uplink utilisation
    p_collision: float  # some uplink carries >= 2 connections' worth (>= 2 x qps flows)
    p_over_target: float  # some uplink carries >= target_load connections' worth
    worst_load: float  # connections' worth on the fullest uplink, not exceeded with 1 - max_collision_probability
    worst_percent: float  # the same as utilisation of that uplink


@dataclass(frozen=True)
class EntropyPlan:
    scenario: EntropyScenario
    nodes: int
    fabric_qps: int
    leaves: list[LeafTraffic]
    worst: LeafTraffic | None
    connection_mbps: float
    rows: list[QpRow]
    recommended_qps: int | None

    @property
    def fabric_row(self) -> QpRow | None:
        return next((r for r in self.rows if r.qps == self.fabric_qps), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario.model_dump(mode="json"), "nodes": self.nodes, "fabric_qps": self.fabric_qps,
            "connection_mbps": self.connection_mbps, "worst_leaf": asdict(self.worst) if self.worst else None,
            "leaf_groups": [{"uplinks": u, "connections": c, "leaves": n}
                            for (u, c), n in sorted(leaf_groups(self.leaves).items())],
            "rows": [asdict(r) for r in self.rows], "recommended_qps": self.recommended_qps,
        }


def leaf_groups(leaves: list[LeafTraffic]) -> Counter[tuple[int, int]]:
    """(uplinks, connections) -> how many leaves look like that."""
    return Counter((lt.uplinks, lt.connections) for lt in leaves)


def btree_parent(rank: int, nranks: int) -> int | None:
    """Parent of ``rank`` in NCCL's binary tree rooted at 0 (NVIDIA/nccl src/graph/trees.cc, ncclGetBtree):
    clear the lowest set bit and set the next one up, or only clear it when that is out of range.

    >>> [btree_parent(r, 14) for r in (1, 2, 3, 4, 8, 12, 13)]
    [2, 4, 2, 8, 0, 8, 12]
    """
    if rank == 0:
        return None
    bit = rank & -rank
    up = (rank ^ bit) | (bit << 1)
    return up if up < nranks else rank ^ bit


def dtree_parents(rank: int, nranks: int) -> list[int]:
    """Parents of ``rank`` in NCCL's two trees: the second is the first mirrored (even nranks) or
    shifted by one rank (odd nranks), as in trees.cc ncclGetDtree."""
    parents = []
    first = btree_parent(rank, nranks)
    if first is not None:
        parents.append(first)
    if nranks % 2:
        second = btree_parent((rank - 1) % nranks, nranks)
        if second is not None:
            parents.append((second + 1) % nranks)
    else:
        second = btree_parent(nranks - 1 - rank, nranks)
        if second is not None:
            parents.append(nranks - 1 - second)
    return parents


def _peers(rank: int, nranks: int, algorithm: str) -> list[int]:
    if algorithm == "ring":
        return [(rank + 1) % nranks] if nranks > 1 else []
    return dtree_parents(rank, nranks)


def _order(leaf_nodes: dict[str, list[int]], placement: str, nodes: int) -> list[str]:
    """Leaf of each rank, for a job of ``nodes`` nodes placed packed or spread over the leaves."""
    leaves = list(leaf_nodes)
    if placement == "packed":
        ranks = [leaf for leaf in leaves for _ in leaf_nodes[leaf]]
    else:
        depth = max(len(v) for v in leaf_nodes.values())
        ranks = [leaf for slot in range(depth) for leaf in leaves if slot < len(leaf_nodes[leaf])]
    return ranks[:nodes]


def leaf_traffic(fabric: Fabric, scenario: EntropyScenario) -> tuple[int, list[LeafTraffic]]:
    """(job size, per-leaf traffic) for every (rail, plane) of the fabric."""
    by_rail: dict[tuple[int, int], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for host in sorted(fabric.hosts, key=lambda h: h.node):
        for nic in host.nics:
            by_rail[(nic.rail, nic.plane)][nic.leaf].append(host.node)
    total = len(fabric.hosts)
    nodes = min(scenario.nodes or total, total)
    out: list[LeafTraffic] = []
    for (rail, plane), leaf_nodes in sorted(by_rail.items()):
        rank_leaf = _order(leaf_nodes, scenario.placement, nodes)
        leaving: Counter[str] = Counter()
        for rank, leaf in enumerate(rank_leaf):
            leaving[leaf] += sum(rank_leaf[p] != leaf for p in _peers(rank, len(rank_leaf), scenario.algorithm))
        for leaf in leaf_nodes:
            ups = [link for link in fabric.links_of(leaf) if link.tier == "leaf-spine" and link.a.device == leaf]
            if not ups:
                continue
            out.append(LeafTraffic(leaf=leaf, rail=rail, plane=plane, uplinks=len(ups),
                                   uplink_speed=ups[0].speed, connections=leaving[leaf] * scenario.channels))
    return nodes, out


def qp_row(worst: LeafTraffic, qps: int, scenario: EntropyScenario, connection_mbps: float) -> QpRow:
    flows, bins = worst.connections * qps, worst.uplinks
    worst_flows = quantile_max(flows, bins, scenario.max_collision_probability) if flows else 0
    return QpRow(
        qps=qps, flows=flows, flows_per_uplink=flows / bins,
        load_percent=100.0 * worst.connections * connection_mbps / (bins * worst.uplink_speed),
        p_collision=collision_probability(worst, qps),
        p_over_target=p_max_at_least(flows, bins, math.ceil(scenario.target_load * qps)) if flows else 0.0,
        worst_load=worst_flows / qps,
        worst_percent=100.0 * worst_flows / qps * connection_mbps / worst.uplink_speed,
    )


def recommend_qps(worst: LeafTraffic, scenario: EntropyScenario) -> int | None:
    """Smallest QP count whose chance of an uplink at ``target_load`` connections' worth is under the limit."""
    for qps in range(1, QP_MAX + 1):
        k = math.ceil(scenario.target_load * qps)
        if p_max_at_least(worst.connections * qps, worst.uplinks, k) <= scenario.max_collision_probability:
            return qps
    return None


def worst_leaf(fabric: Fabric, scenario: EntropyScenario) -> tuple[int, list[LeafTraffic], LeafTraffic | None]:
    """(job size, every leaf's traffic, the leaf with most connections per uplink or None)."""
    nodes, leaves = leaf_traffic(fabric, scenario)
    worst = max(leaves, key=lambda lt: (lt.connections / lt.uplinks, lt.connections), default=None)
    return nodes, leaves, worst


def collision_probability(worst: LeafTraffic, qps: int) -> float:
    """P(some uplink of ``worst`` carries >= 2 connections' worth) with ``qps`` flows per connection."""
    return p_max_at_least(worst.connections * qps, worst.uplinks, 2 * qps) if worst.connections else 0.0


def plan_entropy(fabric: Fabric, scenario: EntropyScenario | None = None, qps: int | None = None) -> EntropyPlan:
    """The entropy plan of ``fabric`` for ``scenario`` (default: the fabric's own), judging ``qps``
    (default: the fabric's qps_per_connection)."""
    lb = fabric.intent.load_balancing
    scenario = scenario or lb.entropy
    fabric_qps = qps or lb.qps_per_connection
    nodes, leaves, worst = worst_leaf(fabric, scenario)
    out_degree = 1 if scenario.algorithm == "ring" else TREE_OUT_DEGREE
    connection_mbps = fabric.intent.node.nic_speed / (scenario.channels * out_degree)
    if worst is None or worst.connections == 0:
        return EntropyPlan(scenario, nodes, fabric_qps, leaves, worst, connection_mbps, [], None)
    recommended = recommend_qps(worst, scenario)
    candidates = sorted({*QP_CANDIDATES, fabric_qps, *([recommended] if recommended else [])})
    rows = [qp_row(worst, q, scenario, connection_mbps) for q in candidates]
    return EntropyPlan(scenario, nodes, fabric_qps, leaves, worst, connection_mbps, rows, recommended)
