"""plan() for GPU hosts: per-NIC RoCE settings, addressing and multi-rail routing."""

from __future__ import annotations

from roceops.model.intent import FabricIntent
from roceops.plan import qos_maps
from roceops.plan.model import DcqcnIntent, HostIntent, NicIntent, Route
from roceops.topology.fabric import Host, Nic


def plan_dcqcn(intent: FabricIntent, host: Host) -> DcqcnIntent:
    dcqcn = host.settings.dcqcn
    prios = qos_maps.lossless_priorities(intent.qos) if dcqcn.enabled else []
    return DcqcnIntent(np_enabled=prios, rp_enabled=prios, np=dcqcn.np.model_dump(), rp=dcqcn.rp.model_dump())


def plan_routes(nic: Nic) -> list[Route]:
    """Rail subnet through this NIC in the main table; a per-NIC table for source routing."""
    return [
        Route(to=nic.rail_subnet, via=nic.gateway),
        Route(to="0.0.0.0/0", via=nic.gateway, table=nic.table),
    ]


def plan_sysctls(host: Host) -> dict[str, str]:
    """ARP and reverse-path settings that multi-rail hosts need (one subnet per NIC)."""
    out = {
        "net.ipv4.conf.all.arp_ignore": "1",
        "net.ipv4.conf.all.arp_announce": "2",
        "net.ipv4.conf.all.rp_filter": "2",
    }
    for nic in host.nics:
        out[f"net.ipv4.conf.{nic.netdev}.arp_ignore"] = "1"
        out[f"net.ipv4.conf.{nic.netdev}.arp_announce"] = "2"
        out[f"net.ipv4.conf.{nic.netdev}.rp_filter"] = "2"
    return dict(sorted(out.items()))


def plan_nic(intent: FabricIntent, host: Host, nic: Nic) -> NicIntent:
    policy = intent.qos
    bw, strict = qos_maps.ets_bandwidth(policy)
    return NicIntent(
        netdev=nic.netdev, rdma_dev=nic.rdma_dev, rail=nic.rail, plane=nic.plane, speed=nic.speed,
        mtu=host.settings.mtu, address=nic.address, gateway=nic.gateway, table=nic.table, leaf=nic.leaf,
        leaf_port=nic.leaf_port, trust=policy.trust, pfc_priorities=qos_maps.lossless_priorities(policy),
        dscp_to_priority=qos_maps.dscp_to_priority(policy), prio_tc={p: p for p in range(8)},
        tc_bandwidth=bw, strict_tcs=strict, dcqcn=plan_dcqcn(intent, host), cnp_dscp=policy.cnp.dscp,
        cnp_priority=policy.cnp.priority, roce_tos=qos_maps.roce_tos(policy), routes=plan_routes(nic),
    )


def plan_host(intent: FabricIntent, host: Host) -> HostIntent:
    return HostIntent(
        name=host.name, platform=host.platform, model=host.model, mgmt_ip=host.mgmt_ip, roce_mtu=intent.mtu.roce,
        nics={nic.netdev: plan_nic(intent, host, nic) for nic in host.nics}, sysctls=plan_sysctls(host),
    )
