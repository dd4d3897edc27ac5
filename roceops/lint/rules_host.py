"""Host and MTU rules (domain §5.2-5.4, §9.6).

Hosts differ only in addresses, so host rules plan one host per distinct
resolved settings (``LintContext.host_groups``), never every host.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from roceops.device.intent import NicIntent
from roceops.lint.common import L2_OVERHEAD, ROCE_OVERHEAD, setting_source, some
from roceops.lint.model import Hit, LintContext, rule
from roceops.topology.fabric import Host


@rule("MTU001", "error", f"host MTU + {L2_OVERHEAD} B (Ethernet header + FCS) above the switch MTU",
      "raise mtu.switch (9216 is the usual jumbo maximum) or lower mtu.host")
def host_mtu_fits_switch(ctx: LintContext) -> Iterator[Hit]:
    mtu = ctx.intent.mtu
    if mtu.host + L2_OVERHEAD > mtu.switch:
        yield Hit("mtu.host", f"host MTU {mtu.host} + {L2_OVERHEAD} B of Ethernet header and FCS = "
                              f"{mtu.host + L2_OVERHEAD} does not fit switch MTU {mtu.switch}")


@rule("MTU002", "error", f"RoCE MTU + {ROCE_OVERHEAD} B (Eth/IPv4/UDP/BTH/ICRC) above the host MTU",
      "raise mtu.host (9000 is common) or lower mtu.roce")
def roce_mtu_fits_host(ctx: LintContext) -> Iterator[Hit]:
    mtu = ctx.intent.mtu
    if mtu.roce + ROCE_OVERHEAD > mtu.host:
        yield Hit("mtu.roce", f"RoCE MTU {mtu.roce} + {ROCE_OVERHEAD} B of RoCEv2 headers = "
                              f"{mtu.roce + ROCE_OVERHEAD} does not fit host MTU {mtu.host}: the NIC falls back to a "
                              "smaller RoCE MTU")


def _host_reps(ctx: LintContext) -> Iterator[tuple[list[Host], NicIntent]]:
    """One planned NIC per group of identically configured hosts."""
    for group in ctx.host_groups:
        nics = ctx.host_plan(group[0].name).nics
        if nics:
            yield group, next(iter(nics.values()))


@rule("MTU003", "error", "a per-device/group MTU override breaks host MTU + 18 <= switch MTU",
      "make the override keep every switch MTU >= every host MTU + 18", needs_fabric=True)
def override_switch_mtu(ctx: LintContext) -> Iterator[Hit]:
    assert ctx.fabric is not None
    intent = ctx.intent
    hits: dict[str, list[str]] = defaultdict(list)
    need: dict[str, int] = {}
    for hosts, nic in _host_reps(ctx):
        host_src = setting_source(intent, hosts[0], "mtu", "mtu.host")
        for sw in ctx.fabric.switches:
            if sw.settings.mtu >= nic.mtu + L2_OVERHEAD:
                continue
            sw_src = setting_source(intent, sw, "mtu", "mtu.switch")
            if sw_src == "mtu.switch" and host_src == "mtu.host":
                continue  # MTU001
            path = sw_src if sw_src.startswith("overrides.") else host_src
            hits[path].append(f"{sw.name} {sw.settings.mtu} < {hosts[0].name} {nic.mtu}+{L2_OVERHEAD}")
            need[path] = max(need.get(path, 0), nic.mtu + L2_OVERHEAD)
    for path, pairs in hits.items():
        yield Hit(path, f"{len(pairs)} switch/host MTU pairs do not fit (need >= {need[path]}): {some(pairs, 2)}")


@rule("MTU004", "error", "a per-device/group MTU override makes a host MTU too small for RoCE MTU + 58",
      "keep host MTU overrides >= mtu.roce + 58", needs_fabric=True)
def override_host_mtu(ctx: LintContext) -> Iterator[Hit]:
    roce = ctx.intent.mtu.roce
    for hosts, nic in _host_reps(ctx):
        src = setting_source(ctx.intent, hosts[0], "mtu", "mtu.host")
        if src.startswith("overrides.") and nic.mtu < roce + ROCE_OVERHEAD:
            yield Hit(src, f"{some([h.name for h in hosts])}: MTU {nic.mtu} is below RoCE MTU {roce} + "
                           f"{ROCE_OVERHEAD} B of headers")


@rule("HOST001", "error", "RoCE traffic (RDMA-CM ToS) does not land on a PFC priority on the NIC",
      "set qos.roce_tos to a lossless DSCP << 2 | 2 (26 -> 106), or give the lossless class its DSCP",
      needs_fabric=True)
def roce_tos_lossless(ctx: LintContext) -> Iterator[Hit]:
    policy = ctx.intent.qos
    if not policy.lossless_classes:
        return
    for _hosts, nic in _host_reps(ctx):
        dscp = nic.roce_tos >> 2
        prio = nic.dscp_to_priority.get(dscp, 0)
        if prio not in nic.pfc_priorities:
            where = "qos.roce_tos" if policy.roce_tos is not None else "qos.traffic_classes"
            yield Hit(where, f"RoCE ToS {nic.roce_tos} is DSCP {dscp} -> priority {prio}, which is not a PFC "
                             f"priority ({', '.join(map(str, nic.pfc_priorities))}): RDMA would run lossy")
            return


@rule("HOST002", "warning", "RoCE ToS ECN bits are Not-ECT or CE (switches cannot mark / every packet looks marked)",
      "end qos.roce_tos with ECT(0): DSCP << 2 | 2", needs_fabric=True)
def roce_tos_ecn(ctx: LintContext) -> Iterator[Hit]:
    policy = ctx.intent.qos
    if policy.roce_tos is None:
        return
    for _hosts, nic in _host_reps(ctx):
        ecn = nic.roce_tos & 0b11
        if ecn in (0b00, 0b11):
            what = "Not-ECT: switches drop instead of marking" if ecn == 0 else "CE: every packet reads as congested"
            yield Hit("qos.roce_tos", f"RoCE ToS {nic.roce_tos} has ECN bits {ecn:02b} ({what})")
            return
