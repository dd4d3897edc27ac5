"""Node-level health checks of a GPU host (once per node, not per link): NCCL's config file against intent and
against the lossless class, a RoCEv2 GID for every rail address, and the boot unit (the optional traffic test
is :mod:`roceops.health.traffic`).

They read the node's observed sample only (``boot``/``nccl``/``gids`` from the linux_mlx5 driver) and the
planned intents of the node and its leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.device.observed import ObservedHost
from roceops.health.catalog import Sample
from roceops.health.model import ResultStatus
from roceops.plan.nccl_classes import fifo_problems
from roceops.report.result import Result
from roceops.util.rdma import ipv4_gid

NCCL_FIELDS = ("ib_hca", "ib_hca_exact", "ib_tc", "gid_index", "roce_version", "addr_family", "qps_per_connection",
               "split_data_on_qps", "socket_ifname", "cross_nic", "fifo_tc")


@dataclass
class NodeContext:
    node: str
    intent: HostIntent
    sample: Sample
    leaves: dict[str, SwitchIntent]

    @property
    def observed(self) -> ObservedHost:
        observed = self.sample.observed
        return observed if isinstance(observed, ObservedHost) else ObservedHost()


def _result(ctx: NodeContext, check: str, item: str, ok: bool | None, expected: Any, observed: Any,
            message: str, status: ResultStatus | None = None) -> Result:
    state: ResultStatus = status or ("unknown" if ok is None else "ok" if ok else "fail")
    return Result(device=ctx.node, check=check, path=item, status=state, expected=expected, observed=observed,
                       message=message)


def tc_problems(ib_tc: int | None, host: HostIntent, leaves: dict[str, SwitchIntent]) -> list[str]:
    """Why NCCL traffic with ToS ``ib_tc`` would not ride a lossless priority on every rail NIC and its leaf port
    (empty: it does). NCCL_IB_TC unset means ToS 0 (NCCL#2383)."""
    dscp = (ib_tc or 0) >> 2
    problems = []
    for nic in sorted(host.nics.values(), key=lambda n: n.rail):
        prio = nic.dscp_to_priority.get(dscp, 0)
        if prio not in nic.pfc_priorities:
            problems.append(f"{nic.netdev}: DSCP {dscp} -> priority {prio}, which has no PFC on the NIC "
                            f"(lossless: {nic.pfc_priorities})")
            continue
        leaf = leaves.get(nic.leaf)
        port = leaf.ports.get(nic.leaf_port) if leaf else None
        if leaf is not None and port is not None:
            tc = leaf.qos.dscp_to_tc.get(dscp, 0)
            queue = leaf.qos.queues.get(leaf.qos.tc_to_queue.get(tc, tc))
            if prio not in port.pfc_priorities or queue is None or not queue.lossless:
                problems.append(f"{nic.leaf}:{nic.leaf_port}: DSCP {dscp} -> TC {tc}, not a lossless PFC "
                                f"priority there")
    if any(dscp == nic.cnp_dscp for nic in host.nics.values()):
        problems.append(f"DSCP {dscp} is the CNP class, not NCCL's")
    return problems


def nccl_check(ctx: NodeContext) -> list[Result]:
    seen = ctx.observed.nccl
    if seen is None:
        return [_result(ctx, "nccl.config", ctx.node, None, "intent", None, ctx.sample.error or "nccl.conf not read")]
    want = ctx.intent.nccl.model_dump()
    bad = {f: getattr(seen, f) for f in NCCL_FIELDS if getattr(seen, f) != want[f]}
    problems = tc_problems(seen.ib_tc, ctx.intent, ctx.leaves)
    if seen.fifo_tc is not None and seen.fifo_tc != seen.ib_tc:  # else CTS ride NCCL_IB_TC's class, judged above
        problems += [f"NCCL_IB_FIFO_TC: {p}" for p in fifo_problems(seen.fifo_tc, ctx.intent, ctx.leaves)]
    if not bad and not problems:
        return [_result(ctx, "nccl.config", ctx.node, True, "intent", "intent", "")]
    detail = [f"{f}={v!r} (want {want[f]!r})" for f, v in bad.items()] + problems
    return [_result(ctx, "nccl.config", ctx.node, False, {f: want[f] for f in bad} or "lossless NCCL_IB_TC",
                    bad or problems, "/etc/nccl.conf: " + "; ".join(detail))]


def gid_check(ctx: NodeContext) -> list[Result]:
    rows = ctx.observed.gids
    out = []
    for nic in sorted(ctx.intent.nics.values(), key=lambda n: n.rail):
        item = f"{ctx.node}:{nic.rdma_dev}"
        ip = nic.address.split("/")[0]
        if rows is None:
            out.append(_result(ctx, "nic.gid", item, None, f"RoCE v2 GID for {ip}", None,
                               ctx.sample.error or "GID table not read (show_gids missing?)"))
            continue
        gid = ipv4_gid(ip)
        found = [r for r in rows if r.dev == nic.rdma_dev and r.gid == gid and r.version == "v2"]
        out.append(_result(ctx, "nic.gid", item, bool(found), f"RoCE v2 GID for {ip}",
                           f"index {found[0].index}" if found else "none",
                           "" if found else f"{nic.rdma_dev} has no RoCE v2 GID for its rail address {ip}: "
                                            "NCCL cannot pick the rail GID"))
    return out


def unit_check(ctx: NodeContext) -> list[Result]:
    boot = ctx.observed.boot
    unit = ctx.intent.boot.unit
    if boot is None:
        return [_result(ctx, "boot.unit", unit, None, "enabled, last run ok", None, ctx.sample.error or "not read")]
    enabled, result = boot.unit_enabled, boot.unit_result
    ok = enabled == "enabled" and result == "success"
    return [_result(ctx, "boot.unit", unit, ok, "enabled, last run ok", f"{enabled or 'not installed'}, {result}",
                    "" if ok else f"{unit} is {enabled or 'not installed'} (last run: {result}): the NIC settings "
                                  "will not come back after a reboot")]


def nic_mode_check(ctx: NodeContext) -> list[Result]:
    """A BlueField in DPU mode fails (host-side RoCE settings do not take effect there); a mode that could not be
    read (no MFT, no root) is a warning, never a drain: ConnectX hosts without MFT stay ok."""
    out = []
    for nic in sorted(ctx.intent.nics.values(), key=lambda n: n.rail):
        seen = (ctx.observed.nics or {}).get(nic.netdev)
        mode = seen.mode if seen is not None else None
        item = f"{ctx.node}:{nic.rdma_dev}"
        if mode is None:
            out.append(_result(ctx, "nic.mode", item, None, "nic", None, "operation mode not read (mlxconfig)",
                               status="warn"))
        else:
            out.append(_result(ctx, "nic.mode", item, mode == "nic", "nic", mode,
                               "" if mode == "nic" else f"{nic.rdma_dev} is a BlueField in DPU mode: trust, PFC, "
                                                        "DCQCN and RoCE ToS set from the host do not take effect"))
    return out


def node_checks(ctx: NodeContext) -> list[Result]:
    return [*nccl_check(ctx), *gid_check(ctx), *unit_check(ctx), *nic_mode_check(ctx)]
