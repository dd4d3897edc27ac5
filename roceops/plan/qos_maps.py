"""Policy -> QoS maps shared by switches and NICs (pure functions of the QosPolicy)."""

from __future__ import annotations

from roceops.model.qos import QosPolicy, TrafficClassPolicy


def class_for_dscp(policy: QosPolicy) -> dict[int, TrafficClassPolicy | None]:
    """Every DSCP 0-63 -> the class that owns it (the default class, or None, for the rest)."""
    default = policy.default_class
    owner: dict[int, TrafficClassPolicy | None] = dict.fromkeys(range(64), default)
    for tc in policy.traffic_classes:
        for d in tc.dscp:
            owner[d] = tc
    return owner


def dscp_to_tc(policy: QosPolicy) -> dict[int, int]:
    return {d: (c.tc if c else 0) for d, c in class_for_dscp(policy).items()}


def dscp_to_priority(policy: QosPolicy) -> dict[int, int]:
    return {d: (c.priority if c else 0) for d, c in class_for_dscp(policy).items()}


def tc_to_queue(policy: QosPolicy) -> dict[int, int]:
    out = {tc: tc for tc in range(8)}
    for c in policy.traffic_classes:
        out[c.tc] = c.queue_id
    return out


def tc_to_pg(policy: QosPolicy) -> dict[int, int]:
    """Lossless TCs get their own PG (= TC) so headroom applies; everything else shares PG 0."""
    out = dict.fromkeys(range(8), 0)
    for c in policy.lossless_classes:
        out[c.tc] = c.tc
    return out


def pfc_priority_to_queue(policy: QosPolicy) -> dict[int, int]:
    out = {p: p for p in range(8)}
    for c in policy.lossless_classes:
        out[c.priority] = c.queue_id
    return out


def lossless_priorities(policy: QosPolicy) -> list[int]:
    return sorted({c.priority for c in policy.lossless_classes})


def lossless_pgs(policy: QosPolicy) -> list[int]:
    return sorted({c.tc for c in policy.lossless_classes})


def ets_bandwidth(policy: QosPolicy) -> tuple[dict[int, int], list[int]]:
    """NIC ETS per TC (= priority): DWRR weights scaled to percentages summing to 100; strict TCs listed."""
    strict = sorted({c.priority for c in policy.traffic_classes if c.scheduling.mode == "strict"})
    weights = {c.priority: c.scheduling.weight or 0 for c in policy.traffic_classes
               if c.scheduling.mode == "dwrr"}
    bw = dict.fromkeys(range(8), 0)
    total = sum(weights.values())
    if total:
        shares = {p: w * 100 // total for p, w in weights.items()}
        remainder = 100 - sum(shares.values())
        for p in sorted(shares, key=lambda p: (-weights[p], p))[:remainder]:
            shares[p] += 1
        bw.update(shares)
    return bw, strict


def roce_tos(policy: QosPolicy) -> int:
    """RDMA-CM ToS: the first lossless DSCP shifted left, with ECT(0) so switches can mark CE."""
    if policy.roce_tos is not None:
        return policy.roce_tos
    lossless = policy.lossless_classes
    if not lossless or not lossless[0].dscp:
        return 0
    return lossless[0].dscp[0] << 2 | 0b10
