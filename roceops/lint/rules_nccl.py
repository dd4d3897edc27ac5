"""NCCL rules: the traffic NCCL sends must ride the lossless class on the NIC and on its leaf, over exactly the
rail NICs (NCCL#2383: GPU-initiated RDMA on priority 0 because NCCL_IB_TC defaulted to 0)."""

from __future__ import annotations

from collections.abc import Iterator

from roceops.lint.common import some
from roceops.lint.model import Hit, LintContext, rule
from roceops.plan.nccl_classes import fifo_problems


@rule("NCCL001", "error", "NCCL_IB_TC does not map to a PFC (lossless) priority on the NIC or its leaf port",
      "leave node.nccl.ib_tc unset (the RoCE class's ToS) or set it to a lossless DSCP << 2 | 2", needs_fabric=True)
def nccl_tc_lossless(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    for group in ctx.host_groups:
        host = ctx.host_plan(group[0].name)
        dscp = host.nccl.ib_tc >> 2
        nic0 = next(iter(host.nics.values()), None)
        if nic0 is None or host.nccl.ib_tc == nic0.roce_tos or dscp == ctx.intent.qos.cnp.dscp:
            continue  # the RoCE ToS itself: HOST001; the CNP DSCP: NCCL003
        bad = []
        for nic in sorted(host.nics.values(), key=lambda n: n.rail):
            prio = nic.dscp_to_priority.get(dscp, 0)
            if prio not in nic.pfc_priorities:
                bad.append(f"{host.name}:{nic.netdev} priority {prio}")
                continue
            leaf = ctx.switch_plan(nic.leaf)
            port = leaf.ports.get(nic.leaf_port)
            if port is not None and prio not in port.pfc_priorities:
                bad.append(f"{nic.leaf}:{nic.leaf_port} priority {prio}")
        if bad:
            yield Hit("node.nccl.ib_tc", f"NCCL_IB_TC {host.nccl.ib_tc} is DSCP {dscp}, not lossless on "
                                     f"{some(bad, 3)}: NCCL traffic would run without PFC")
            return


@rule("NCCL002", "error", "NCCL_IB_HCA does not list exactly the rail NICs of the node",
      "leave node.nccl.ib_hca unset, or list every rail RDMA device once", needs_fabric=True)
def nccl_hca_rails(ctx: LintContext) -> Iterator[Hit]:
    for group in ctx.host_groups:
        host = ctx.host_plan(group[0].name)
        rails = sorted(n.rdma_dev for n in group[0].nics)  # the cabled rail NICs (NAME001 checks their names)
        listed = host.nccl.ib_hca
        if sorted(listed) != rails:
            missing = sorted(set(rails) - set(listed))
            extra = sorted(set(listed) - set(rails))
            yield Hit("node.nccl.ib_hca", f"{host.name}: NCCL_IB_HCA {','.join(listed)} vs rail NICs "
                                          f"{','.join(rails)} (missing: {missing or '-'}, not a rail: {extra or '-'})")
            return


@rule("NCCL003", "error", "NCCL_IB_TC uses the CNP DSCP: data would share the congestion-notification class",
      "give NCCL the RoCE class's DSCP, never qos.cnp.dscp", needs_fabric=True)
def nccl_tc_not_cnp(ctx: LintContext) -> Iterator[Hit]:
    for group in ctx.host_groups:
        host = ctx.host_plan(group[0].name)
        if host.nccl.ib_tc >> 2 == ctx.intent.qos.cnp.dscp:
            where = "node.nccl.ib_tc" if ctx.intent.node.nccl.ib_tc is not None else "qos.roce_tos"
            yield Hit(where, f"NCCL_IB_TC {host.nccl.ib_tc} is DSCP {ctx.intent.qos.cnp.dscp}, the CNP "
                                     "class: CNPs and NCCL data would share one queue")
            return


@rule("NCCL004", "error", "NCCL_CROSS_NIC lets NCCL cross rails on a rail-only fabric",
      "leave node.nccl.cross_nic unset (0 on rail_only fabrics) or set it to 0", needs_fabric=True)
def nccl_cross_nic_rails(ctx: LintContext) -> Iterator[Hit]:
    # NCCL docs env.html#nccl-cross-nic: 0 keeps each ring/tree on one NIC "to avoid crossing network rails";
    # 1 and 2 may pick different NICs, whose traffic has no path between the rails of a rail-only fabric
    if not ctx.intent.rail_only:
        return
    for group in ctx.host_groups:
        host = ctx.host_plan(group[0].name)
        if host.nccl.cross_nic != 0:
            yield Hit("node.nccl.cross_nic", f"NCCL_CROSS_NIC {host.nccl.cross_nic} on a rail_only fabric: NCCL "
                                             "may connect NIC i to NIC j and no spine joins the rails")
            return


@rule("NCCL005", "error", "NCCL_IB_FIFO_TC is not a lossless or strict class on the NIC and its leaf, or is the "
      "CNP class", "name a lossless or strict-priority class other than the CNP class in node.nccl.fifo_class",
      needs_fabric=True)
def nccl_fifo_class(ctx: LintContext) -> Iterator[Hit]:
    if ctx.intent.node.nccl.fifo_class is None:
        return  # FIFO_TC = NCCL_IB_TC: NCCL001/NCCL003 judge that class
    for group in ctx.host_groups:
        host = ctx.host_plan(group[0].name)
        if host.nccl.fifo_tc is None:
            continue
        leaves = {n.leaf: ctx.switch_plan(n.leaf) for n in host.nics.values()}
        bad = fifo_problems(host.nccl.fifo_tc, host, leaves)
        if bad:
            yield Hit("node.nccl.fifo_class", f"NCCL_IB_FIFO_TC {host.nccl.fifo_tc} on {host.name}: {some(bad, 3)}: "
                                              "CTS messages could be dropped or starved")
            return
