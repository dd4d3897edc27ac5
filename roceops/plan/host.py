"""plan() for GPU hosts: per-NIC RoCE settings, addressing and multi-rail routing."""

from __future__ import annotations

from typing import Any

from roceops.device.intent import DcqcnIntent, FirmwareIntent, HostIntent, NcclIntent, NicIntent, Route
from roceops.hardware.nics import LINK_TYPE_ETH, nic_profile
from roceops.model.intent import FabricIntent
from roceops.plan import qos_maps
from roceops.plan.speed_profiles import speed_profile
from roceops.plan.trusted import trusted
from roceops.topology.fabric import Host, Nic


def plan_dcqcn(intent: FabricIntent, host: Host) -> DcqcnIntent:
    """DCQCN parameters: the model's ConnectX defaults, then the NIC speed's profile
    (roceops.plan.speed_profiles), then whatever the fabric (or an override) sets explicitly."""
    dcqcn = host.settings.dcqcn
    prios = qos_maps.lossless_priorities(intent.qos) if dcqcn.enabled else []
    profile = speed_profile(intent.node.nic_speed)
    rp = {**dcqcn.rp.model_dump(), **{k: v for k, v in profile.rp.items() if k not in dcqcn.rp.model_fields_set}}
    np = {**dcqcn.np.model_dump(), **{k: v for k, v in profile.np.items() if k not in dcqcn.np.model_fields_set}}
    return DcqcnIntent(np_enabled=prios, rp_enabled=prios, np=np, rp=rp)


def plan_routes(nic: Nic) -> list[Route]:
    """Rail subnet through this NIC in the main table; a per-NIC table for source routing."""
    return [  # from the validated fabric: not validated again (roceops/plan/trusted.py)
        trusted(Route, to=nic.rail_subnet, via=nic.gateway),
        trusted(Route, to="0.0.0.0/0", via=nic.gateway, table=nic.table),
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


def nic_policy(intent: FabricIntent, host: Host) -> dict[str, Any]:
    """The NicIntent fields that follow from the fabric's QoS policy and the host's settings alone,
    i.e. the same for every NIC of the host (plan_host computes them once)."""
    policy = intent.qos
    bw, strict = qos_maps.ets_bandwidth(policy)
    return {
        "mtu": host.settings.mtu, "trust": policy.trust, "pfc_priorities": qos_maps.lossless_priorities(policy),
        "dscp_to_priority": qos_maps.dscp_to_priority(policy), "prio_tc": {p: p for p in range(8)},
        "tc_bandwidth": bw, "strict_tcs": strict, "dcqcn": plan_dcqcn(intent, host), "cnp_dscp": policy.cnp.dscp,
        "cnp_priority": policy.cnp.priority, "roce_tos": qos_maps.roce_tos(policy),
    }


def plan_nic(intent: FabricIntent, host: Host, nic: Nic, policy: dict[str, Any] | None = None) -> NicIntent:
    """``policy``: :func:`nic_policy` of this intent and host, when the caller already has it.

    Built from the validated fabric and :func:`nic_policy`'s values without validating them again
    (roceops/plan/trusted.py); each NIC gets its own copies of the policy's lists and dicts."""
    shared = policy if policy is not None else nic_policy(intent, host)
    return trusted(
        NicIntent, netdev=nic.netdev, rdma_dev=nic.rdma_dev, rail=nic.rail, plane=nic.plane, speed=nic.speed,
        address=nic.address, gateway=nic.gateway, table=nic.table, leaf=nic.leaf, leaf_port=nic.leaf_port,
        routes=plan_routes(nic), **{k: v.copy() if isinstance(v, list | dict) else v for k, v in shared.items()},
    )


def qps_per_connection(intent: FabricIntent) -> int:
    """QPs per NCCL connection: the fabric's entropy setting ``load_balancing.qps_per_connection`` (default 1,
    NCCL's own; ``roceops plan entropy`` recommends one)."""
    return intent.load_balancing.qps_per_connection


def plan_nccl(intent: FabricIntent, host: Host) -> NcclIntent:
    """NCCL on the rail NICs: exact HCA names in rail order, the RoCE class's ToS byte as NCCL_IB_TC (the same
    value RDMA-CM gets), RoCEv2 IPv4 GID auto-selection restricted to the host address pool."""
    qps = qps_per_connection(intent)
    rails = sorted(host.nics, key=lambda n: (n.rail, n.plane, n.netdev))
    policy = intent.node.nccl
    return NcclIntent(
        ib_hca=list(policy.ib_hca) if policy.ib_hca is not None else [n.rdma_dev for n in rails],
        ib_tc=policy.ib_tc if policy.ib_tc is not None else qos_maps.roce_tos(intent.qos), roce_version=2,
        addr_family="AF_INET", addr_range=intent.addressing.hosts, gid_index=policy.gid_index,
        qps_per_connection=qps, split_data_on_qps=1 if qps > 1 else 0, socket_ifname=intent.node.frontend_netdev,
        cross_nic=cross_nic(intent), fifo_tc=fifo_tc(intent),
    )


def cross_nic(intent: FabricIntent) -> int:
    """NCCL_CROSS_NIC: the fabric's ``node.nccl.cross_nic``, else 0 on a rail-only fabric (no spine joins the
    rails: "0: Always use the same NIC for the same ring/tree, to avoid crossing network rails. Suited for
    networks with per NIC switches (rails), with a slow inter-rail connection") and NCCL's default 2 ("Try to
    use the same NIC for the same ring/tree, but still allow for the use of different NICs if it would result
    in a better performance") where spines join the rails
    (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-cross-nic)."""
    policy = intent.node.nccl.cross_nic
    if policy is not None:
        return policy
    return 0 if intent.rail_only else 2


def fifo_tc(intent: FabricIntent) -> int:
    """NCCL_IB_FIFO_TC (NCCL >= 2.22.3, NVIDIA/nccl PR#1194): the ToS byte of the QP that carries the CTS
    (FIFO) messages. With the variable unset NCCL sends them with the data's traffic class (NCCL_IB_FIFO_TC
    default -1: src/transport/net_ib/connect.cc, NVIDIA/nccl@5067397), so without ``node.nccl.fifo_class``
    roceops writes NCCL_IB_TC's value and changes nothing; a named class gives its first DSCP << 2, with
    ECT(0) on a lossless class as :func:`qos_maps.roce_tos` does."""
    name = intent.node.nccl.fifo_class
    if name is None:
        policy = intent.node.nccl
        return policy.ib_tc if policy.ib_tc is not None else qos_maps.roce_tos(intent.qos)
    cls = intent.qos.class_named(name)
    dscp = cls.dscp[0] if cls.dscp else 0
    return dscp << 2 | (0b10 if cls.lossless else 0)


def plan_firmware(intent: FabricIntent, host: Host) -> FirmwareIntent | None:
    """mlxconfig RoCE defaults per rail NIC (port 1 of each PCI function) when the fabric manages firmware:
    Ethernet link, DCQCN on the lossless priorities (the mask must agree with sysfs roce_rp/enable, ConnectX-7
    firmware 28.45 known issue 4394475), the CNP DSCP and priority the switches expect."""
    if not intent.node.firmware:
        return None
    profile = nic_profile(intent.node.nic_model)
    prios = qos_maps.lossless_priorities(intent.qos) if host.settings.dcqcn.enabled else []
    values = {"LINK_TYPE": LINK_TYPE_ETH, "ROCE_CC_PRIO_MASK": sum(1 << p for p in prios),
              "CNP_DSCP": intent.qos.cnp.dscp, "CNP_802P_PRIO": intent.qos.cnp.priority}
    params = {f"{key}_P1": values[key] for key in profile.firmware_keys}
    return FirmwareIntent(nic_model=profile.model, devices={n.rdma_dev: dict(params) for n in host.nics})


def plan_host(intent: FabricIntent, host: Host) -> HostIntent:
    # Once per host: each NicIntent gets its own copies of the lists and dicts; the frozen DcqcnIntent is
    # shared by the host's NICs.
    policy = nic_policy(intent, host)
    return HostIntent(
        name=host.name, platform=host.platform, model=host.model, mgmt_ip=host.mgmt_ip, roce_mtu=intent.mtu.roce,
        nics={nic.netdev: plan_nic(intent, host, nic, policy) for nic in host.nics}, sysctls=plan_sysctls(host),
        nccl=plan_nccl(intent, host), firmware=plan_firmware(intent, host),
    )
