"""DeviceIntent: the per-device, vendor-neutral configuration.

The one shape that templates render from, parsers produce from live show
outputs (observed state), and audit compares: ``compare(expected, observed)``.
Maps are keyed by integers (DSCP, TC, priority, queue, PG); ports and NICs
by their device-local names. Sizes are bytes, speeds Mb/s, times ms/us as named.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from roceops.model.load_balancing import HashField, LoadBalancingMode
from roceops.model.types import HostPlatform, SwitchPlatform


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EcnProfile(_M):
    min_bytes: int
    max_bytes: int
    probability: int = Field(description="mark probability at max_bytes, %")


class QueueIntent(_M):
    scheduler: Literal["strict", "dwrr"]
    weight: int | None = None
    lossless: bool = False
    ecn: EcnProfile | None = None
    traffic_class: str | None = Field(default=None, description="name of the policy class (documentation)")


class BufferPool(_M):
    name: str
    type: Literal["ingress", "egress"]
    mode: Literal["static", "dynamic"]
    size: int
    xoff: int | None = Field(default=None, description="shared headroom pool size, ingress lossless only")


class BufferProfile(_M):
    name: str
    pool: str
    size: int
    xon: int | None = None
    xoff: int | None = None
    xon_offset: int | None = None
    dynamic_th: int | None = None
    static_th: int | None = None


class PfcWatchdogIntent(_M):
    enabled: bool
    detect_ms: int
    restore_ms: int
    poll_ms: int
    action: Literal["drop", "forward", "alert"]


class SwitchQos(_M):
    trust: Literal["dscp"] = "dscp"
    dscp_to_tc: dict[int, int] = Field(description="all 64 DSCPs")
    tc_to_queue: dict[int, int]
    tc_to_pg: dict[int, int]
    pfc_priority_to_queue: dict[int, int]
    lossless_priorities: list[int]
    cnp_priority: int
    queues: dict[int, QueueIntent]
    buffer_model: Literal["traditional", "dynamic"] = "traditional"
    pools: list[BufferPool]
    profiles: list[BufferProfile]
    lossy_queue_profile: str = Field(default="egress_lossy_profile", description="buffer profile of lossy queues")
    pfc_watchdog: PfcWatchdogIntent


class Headroom(_M):
    """Per lossless PG on one port, from speed, cable length, MTU and PFC response time."""

    profile: str
    xon: int
    xoff: int
    size: int


class SwitchPort(_M):
    name: str
    speed: int
    mtu: int
    admin_up: bool = True
    description: str = ""
    role: Literal["host", "fabric"]
    address: str | None = Field(default=None, description="address/31")
    peer_device: str | None = None
    peer_port: str | None = None
    cable_length: int
    pfc_priorities: list[int]
    pfc_watchdog: bool
    headroom: dict[int, Headroom] = Field(default_factory=dict, description="lossless PG -> headroom")
    lanes: list[int] = Field(default_factory=list, description="SKU lanes (hardware profile); empty: custom model")
    alias: str | None = Field(default=None, description="SKU alias, e.g. etp1a")
    index: int | None = Field(default=None, description="SKU front-panel index")
    ingress_profiles: list[str] = Field(default_factory=list, description="SKU ingress buffer profile list")
    egress_profiles: list[str] = Field(default_factory=list, description="SKU egress buffer profile list")


class BgpNeighbor(_M):
    ip: str
    remote_asn: int
    port: str
    description: str = ""


class Bgp(_M):
    asn: int
    router_id: str
    neighbors: list[BgpNeighbor]
    networks: list[str] = Field(default_factory=list, description="prefixes originated (loopback, host links)")


class LoadBalancingIntent(_M):
    """ECMP hashing and path selection on one switch; ``None`` fields keep the device default."""

    mode: LoadBalancingMode = "ecmp"
    hash_fields: list[HashField] | None = None
    hash_seed: int | None = None


class SwitchIntent(_M):
    kind: Literal["switch"] = "switch"
    name: str
    platform: SwitchPlatform
    role: Literal["leaf", "spine", "core"]
    model: str
    hwsku: str | None = None
    nos_version: str | None = None
    mgmt_ip: str
    loopback: str
    qos: SwitchQos
    ports: dict[str, SwitchPort]
    bgp: Bgp
    breakouts: dict[str, int] = Field(default_factory=dict,
                                      description="cage -> ports it is split into, for the cages the SKU splits")
    load_balancing: LoadBalancingIntent = Field(default_factory=LoadBalancingIntent)


class DcqcnIntent(_M):
    """ConnectX DCQCN: per-priority enable on the NP (receiver) and RP (sender) and their parameters."""

    np_enabled: list[int]
    rp_enabled: list[int]
    np: dict[str, int] = Field(description="roce_np sysfs file -> value")
    rp: dict[str, int] = Field(description="roce_rp sysfs file -> value")


class Route(_M):
    to: str
    via: str
    table: int | None = None


class NicIntent(_M):
    netdev: str
    rdma_dev: str
    rail: int
    plane: int
    speed: int
    mtu: int
    address: str
    gateway: str
    table: int
    leaf: str
    leaf_port: str
    trust: Literal["dscp", "pcp"] = "dscp"
    pfc_priorities: list[int]
    dscp_to_priority: dict[int, int] = Field(description="all 64 DSCPs")
    prio_tc: dict[int, int] = Field(description="priority -> ETS traffic class")
    tc_bandwidth: dict[int, int] = Field(description="ETS TC -> % (strict TCs carry 0)")
    strict_tcs: list[int]
    dcqcn: DcqcnIntent
    cnp_dscp: int
    cnp_priority: int
    roce_tos: int
    roce_mode: Literal["RoCE v2", "IB/RoCE v1"] = "RoCE v2"
    routes: list[Route]


class NcclIntent(_M):
    """What NCCL reads from /etc/nccl.conf (and the env file for job scripts), from the fabric."""

    ib_hca: list[str] = Field(description="rail RDMA devices in rail order")
    ib_hca_exact: bool = Field(default=True, description="'=' prefix: exact names, not prefixes")
    ib_tc: int = Field(description="IPv4 ToS / IPv6 traffic class byte: DSCP << 2 | ECN")
    roce_version: int = 2
    addr_family: Literal["AF_INET", "AF_INET6"] = "AF_INET"
    addr_range: str | None = Field(default=None, description="subnet holding every rail address")
    gid_index: int | None = Field(default=None, description="fixed GID index; None: NCCL's RoCEv2 auto-selection")
    qps_per_connection: int = 1
    split_data_on_qps: int = 0
    socket_ifname: str | None = None
    cross_nic: int = Field(default=2, description="NCCL_CROSS_NIC: 0 same NIC per ring/tree (rails), 2 NCCL's default")
    fifo_tc: int | None = Field(default=None, description="NCCL_IB_FIFO_TC ToS byte of the CTS (FIFO) messages")


class FirmwareIntent(_M):
    """Persistent NIC settings (mlxconfig, next boot) per RDMA device."""

    nic_model: str
    devices: dict[str, dict[str, int]] = Field(description="rdma_dev -> mlxconfig parameter -> value")


class BootIntent(_M):
    """What must be installed for the settings to survive a reboot. ``files`` (path -> sha256) is filled by
    the platform driver's ``expected()`` from the rendered files; the plan leaves it empty."""

    files: dict[str, str | None] = Field(default_factory=dict)
    unit: str = "roceops-roce.service"
    unit_enabled: str = "enabled"
    unit_result: str = "success"


class HostIntent(_M):
    kind: Literal["host"] = "host"
    name: str
    platform: HostPlatform
    model: str
    mgmt_ip: str
    roce_mtu: int
    nics: dict[str, NicIntent]
    sysctls: dict[str, str]
    nccl: NcclIntent
    firmware: FirmwareIntent | None = None
    boot: BootIntent = Field(default_factory=BootIntent)


DeviceIntent = Annotated[SwitchIntent | HostIntent, Field(discriminator="kind")]


Intent = SwitchIntent | HostIntent  # one device's intent, switch or host
