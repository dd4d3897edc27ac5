"""Which class NCCL's CTS (FIFO) messages ride: the checks lint and health share on NCCL_IB_FIFO_TC.

NCCL_IB_FIFO_TC (NCCL >= 2.22.3, NVIDIA/nccl PR#1194) moves the clear-to-send messages of NCCL's receiver-driven
transfer onto their own traffic class, so that control is not queued behind data under congestion. That only
helps if the class is never dropped and never starved: lossless (PFC) or strict priority, on the NIC and on its
leaf port. The CNP class is refused: no source says CTS messages may share the congestion notifications' queue,
and the DCQCN loop depends on CNPs not waiting behind anything.
"""

from __future__ import annotations

from roceops.device.intent import HostIntent, SwitchIntent


def fifo_problems(fifo_tc: int, host: HostIntent, leaves: dict[str, SwitchIntent]) -> list[str]:
    """Why CTS messages with ToS ``fifo_tc`` would ride a droppable or starvable class on some rail NIC or its
    leaf port (empty: lossless or strict everywhere).

    >>> from roceops.device.intent import HostIntent
    >>> fifo_problems(0, HostIntent.model_construct(nics={}), {})
    []
    """
    dscp = fifo_tc >> 2
    problems = []
    for nic in sorted(host.nics.values(), key=lambda n: n.rail):
        if dscp == nic.cnp_dscp:
            problems.append(f"{nic.netdev}: DSCP {dscp} is the CNP class")
            continue
        prio = nic.dscp_to_priority.get(dscp, 0)
        if prio not in nic.pfc_priorities and nic.prio_tc.get(prio, prio) not in nic.strict_tcs:
            problems.append(f"{nic.netdev}: DSCP {dscp} -> priority {prio}, neither lossless nor strict on the NIC")
            continue
        leaf = leaves.get(nic.leaf)
        if leaf is None or nic.leaf_port not in leaf.ports:
            continue
        tc = leaf.qos.dscp_to_tc.get(dscp, 0)
        queue = leaf.qos.queues.get(leaf.qos.tc_to_queue.get(tc, tc))
        if queue is None or not (queue.lossless or queue.scheduler == "strict"):
            problems.append(f"{nic.leaf}:{nic.leaf_port}: DSCP {dscp} -> TC {tc}, neither lossless nor strict "
                            "on the leaf")
    return problems
