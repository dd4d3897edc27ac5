"""FabricIntent: the one short document a network engineer writes."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from roceops.model.health import HealthPolicy
from roceops.model.load_balancing import LoadBalancingPolicy, SwitchLoadBalancing
from roceops.model.monitoring import MonitoringPolicy
from roceops.model.names import (
    HOSTNAME,
    LABEL,
    NETDEV,
    NIC_KEYS,
    NODE_KEYS,
    RDMA_DEV,
    TIER_KEYS,
    TOKEN,
    check_port_pattern,
    check_template,
)
from roceops.model.qos import DcqcnPolicy, EcnPolicy, PfcWatchdog, QosPolicy
from roceops.model.types import (
    CableLength,
    HostPlatform,
    Mtu,
    Platform,
    RoceMtu,
    Speed,
    StrictModel,
    SwitchPlatform,
    whole_number,
)

Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")]


class PortNaming(StrictModel):
    """How a platform names front-panel ports: ``pattern`` with ``{n}`` = start + index * step."""

    pattern: str
    start: Annotated[int, Field(ge=0)] = 0
    step: Annotated[int, Field(ge=1)] = 1

    @field_validator("pattern")
    @classmethod
    def _has_placeholder(cls, v: str) -> str:
        if "{n}" not in v:
            raise ValueError("port pattern needs a {n} placeholder, e.g. 'Ethernet{n}'")
        check_port_pattern(v)
        return v

    def name(self, index: int) -> str:
        return self.pattern.replace("{n}", str(self.start + index * self.step))


def default_port_naming(platform: str) -> PortNaming:
    """The platform's own port naming (its registry entry), for tiers that do not set one."""
    from roceops import registry  # at call time: the rooms import this module

    naming = registry.get(platform).port_naming
    if naming is None:
        raise ValueError(f"platform {platform!r} has no switch port naming")
    return naming


def _default_host_platform() -> str:
    from roceops import registry

    return registry.default_host()


class SwitchModel(StrictModel):
    """A switch hardware model: how many ports of which speed, and optionally the SKU it is.

    ``hwsku`` names a hardware catalogue entry (``roceops hardware list``): ports, lanes, speeds,
    breakouts, buffers and limits then come from the vendor's files, and lint checks ``radix``,
    ``port_speed``, ``breakout`` and the MTU and lossless classes against it. Without ``hwsku`` the
    model is custom (Cumulus/EOS only: SONiC needs the SKU's port map). ``host_breakout`` gives a leaf
    two port speeds: host ports on cages broken out in one of the SKU's platform.json modes, uplinks on
    whole cages at ``port_speed`` (an 800G leaf serving 400G NICs).
    """

    radix: Annotated[int, Field(ge=4, le=1024, description="ports at port_speed (the first ones of the SKU)")]
    port_speed: Speed
    buffer_bytes: Annotated[int, Field(gt=0)] = 160 * 1024 * 1024
    max_lossless_classes: Annotated[int, Field(ge=1, le=8)] = 2
    hwsku: str | None = Field(default=None, description="hardware catalogue entry, e.g. Mellanox-SN5600-O128")
    breakout: str | None = Field(default=None, pattern=r"^[1-8]x\d+G$",
                                 description="breakout the ports need, e.g. 2x400G; checked against the SKU")
    host_breakout: str | None = Field(
        default=None, pattern=r"^[1-8]x\d+G$",
        description="leaf models with hwsku: host-facing ports are the first cages broken out in this platform.json "
                    "mode (e.g. 2x400G), uplinks the next cages at port_speed; radix counts cages")

    @field_validator("hwsku")
    @classmethod
    def _safe_hwsku(cls, v: str | None) -> str | None:
        return v if v is None else TOKEN.check(v)


class TierIntent(StrictModel):
    """One switch tier (leaf, spine or core)."""

    model: Name
    platform: SwitchPlatform
    port_naming: PortNaming | None = None
    oversubscription: Annotated[float, Field(ge=1.0, le=16.0)] = Field(
        default=1.0, description="downlink:uplink bandwidth ratio (1.0 = non-blocking)"
    )
    count: Annotated[int, Field(ge=1)] | None = Field(
        default=None, description="explicit switch count per plane (spine/core); computed when absent"
    )
    name: str | None = Field(default=None, description="name template, e.g. 'leaf-su{su}-r{rail}'")
    nos_version: str | None = Field(
        default=None,
        description="NOS release the tier runs (e.g. '202411', '5.14', '4.32'): templates pick release-specific "
                    "syntax from it and deploy refuses a device reporting another release; applies to switches "
                    "still on the tier's platform")

    @field_validator("nos_version")
    @classmethod
    def _safe_version(cls, v: str | None) -> str | None:
        return v if v is None else TOKEN.check(v)


class Tiers(StrictModel):
    leaf: TierIntent
    spine: TierIntent
    core: TierIntent | None = None

    @model_validator(mode="after")
    def _safe_names(self) -> Tiers:
        for role, keys in TIER_KEYS.items():
            tier = getattr(self, role)
            if tier is not None and tier.name is not None:
                try:
                    check_template(tier.name, keys, HOSTNAME)
                except ValueError as exc:
                    raise ValueError(f"tiers.{role}.name {exc}") from None
        return self


class NcclPolicy(StrictModel):
    """NCCL settings written to every node's /etc/nccl.conf; unset: derived from the fabric."""

    ib_tc: Annotated[int, Field(ge=0, le=255)] | None = Field(
        default=None, description="NCCL_IB_TC (ToS byte); default: the RoCE class's qos roce ToS")
    gid_index: Annotated[int, Field(ge=0, le=255)] | None = Field(
        default=None, description="NCCL_IB_GID_INDEX; default: RoCEv2 IPv4 auto-selection")
    ib_hca: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$")]] | None = Field(
        default=None, description="NCCL_IB_HCA devices; default: the rail RDMA devices in rail order")
    cross_nic: Literal[0, 1, 2] | None = Field(
        default=None, description="NCCL_CROSS_NIC; default: 0 on rail_only fabrics, else 2 (NCCL's default)")
    fifo_class: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")] | None = Field(
        default=None, description="qos traffic class whose DSCP NCCL_IB_FIFO_TC carries (NCCL >= 2.22.3); "
                                  "default: NCCL_IB_TC's class, as NCCL does with the variable unset")


class NodeProfile(StrictModel):
    """Every GPU node in the fabric is alike."""

    model: str = "generic-8gpu"
    gpus: Annotated[int, Field(ge=1, le=72)] = 8
    rails: Annotated[int, Field(ge=1, le=16, description="backend NICs per node = rails")] = 8
    nic_model: str = "ConnectX-7"
    nic_speed: Speed = 400_000
    platform: HostPlatform = Field(default_factory=_default_host_platform)
    netdev: str = Field(default="eth{port}", description="netdev pattern: {port} (0-based), {nic}, {rail}, {plane}")
    rdma_dev: str = Field(default="mlx5_{port}", description="RDMA device pattern, same keys as netdev")
    name: str = Field(default="gpu{node:03d}", description="node name pattern, {node} counts from 1")
    firmware: bool = Field(default=False, description="manage the NICs' persistent mlxconfig RoCE settings")
    frontend_netdev: Annotated[str, Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}$")] | None = Field(
        default=None, description="front-end (TCP) interface NCCL bootstraps over: NCCL_SOCKET_IFNAME")
    nccl: NcclPolicy = Field(default_factory=NcclPolicy)

    @field_validator("name")
    @classmethod
    def _safe_name(cls, v: str) -> str:
        check_template(v, NODE_KEYS, HOSTNAME)
        return v

    @field_validator("model", "nic_model")
    @classmethod
    def _safe_label(cls, v: str) -> str:
        return LABEL.check(v)

    @field_validator("netdev")
    @classmethod
    def _safe_netdev(cls, v: str) -> str:
        check_template(v, NIC_KEYS, NETDEV)
        return v

    @field_validator("rdma_dev")
    @classmethod
    def _safe_rdma_dev(cls, v: str) -> str:
        check_template(v, NIC_KEYS, RDMA_DEV)
        return v


class ScalableUnits(StrictModel):
    count: Annotated[int, Field(ge=1, le=512)]
    nodes_per_su: Annotated[int, Field(ge=1, le=1024)]
    target_count: Annotated[int, Field(ge=1, le=512)] | None = Field(
        default=None, description="size spines/cores for this many SUs so SUs can be added later"
    )

    @model_validator(mode="after")
    def _target_not_below_count(self) -> ScalableUnits:
        if self.target_count is not None and self.target_count < self.count:
            raise ValueError(f"target_count ({self.target_count}) is below count ({self.count})")
        return self

    @property
    def sized_for(self) -> int:
        return self.target_count or self.count


def _network(v: str) -> str:
    try:
        network = ipaddress.ip_network(v, strict=True)
    except ValueError as exc:
        raise ValueError(f"{v!r} is not a network in CIDR form (host bits must be zero): {exc}") from exc
    if network.version != 4:
        raise ValueError(f"{v!r} is an IPv6 network: roceops addresses the fabric from IPv4 pools only")
    return str(network)


Network = Annotated[str, Field(description="IPv4 network in CIDR form")]


class Addressing(StrictModel):
    loopbacks: Network = "10.0.0.0/20"
    p2p: Network = Field(default="10.1.0.0/16", description="/31s for switch-to-switch links")
    hosts: Network = Field(default="10.128.0.0/12", description="split into one subnet per rail and plane")
    management: Network = Field(default="192.168.0.0/16", description="one address per device for SSH")

    @field_validator("loopbacks", "p2p", "hosts", "management")
    @classmethod
    def _cidr(cls, v: str) -> str:
        return _network(v)


class AsnScheme(StrictModel):
    """RFC 7938 eBGP: one ASN per leaf, one per spine group, one per plane's core tier."""

    leaf_base: Annotated[int, Field(ge=1, le=4_294_967_294)] = 4_200_000_000
    spine_base: Annotated[int, Field(ge=1, le=4_294_967_294)] = 4_200_100_000
    core_base: Annotated[int, Field(ge=1, le=4_294_967_294)] = 4_200_200_000


class MtuPolicy(StrictModel):
    switch: Mtu = 9216
    host: Mtu = 9000
    roce: RoceMtu = 4096


class CableLengths(StrictModel):
    """Metres per tier; the defaults are rows of every shipped SONiC SKU's pg_profile_lookup.ini (lint HDRM003)."""

    host_leaf: CableLength = 5
    leaf_spine: CableLength = 40
    spine_core: CableLength = 300


class Settings(StrictModel):
    """Settings that can be overridden per group of devices or per device."""

    mtu: Mtu | None = None
    cable_length: CableLength | None = None
    pfc_watchdog: PfcWatchdog | None = None
    dcqcn: DcqcnPolicy | None = None
    ecn: dict[str, EcnPolicy] | None = Field(default=None, description="per traffic-class name")
    platform: Platform | None = None
    nos_version: str | None = None
    load_balancing: SwitchLoadBalancing | None = Field(default=None, description="switch hashing/mode for this group")

    @field_validator("nos_version")
    @classmethod
    def _safe_version(cls, v: str | None) -> str | None:
        return v if v is None else TOKEN.check(v)


class Overrides(StrictModel):
    """Group keys: role (leaf), plane (plane1), SU (su2), rail (rail3), or any name from ``groups``."""

    groups: dict[str, Settings] = Field(default_factory=dict)
    devices: dict[str, Settings] = Field(default_factory=dict)


class FabricIntent(StrictModel):
    """The whole RoCEv2 backend fabric, as written in fabric.yaml."""

    name: Name
    planes: Annotated[Literal[1, 2, 4], BeforeValidator(whole_number)] = Field(
        default=1, description="parallel fabric planes; every rail position has one NIC port per plane"
    )
    rail_only: bool = Field(default=False, description="no spine tier: each rail is its own domain")
    node: NodeProfile = Field(default_factory=NodeProfile)
    scalable_units: ScalableUnits
    switch_models: dict[Name, SwitchModel]
    tiers: Tiers
    addressing: Addressing = Field(default_factory=Addressing)
    asn: AsnScheme = Field(default_factory=AsnScheme)
    mtu: MtuPolicy = Field(default_factory=MtuPolicy)
    cable_lengths: CableLengths = Field(default_factory=CableLengths)
    qos: QosPolicy = Field(default_factory=QosPolicy)
    load_balancing: LoadBalancingPolicy = Field(default_factory=LoadBalancingPolicy)
    monitoring: MonitoringPolicy = Field(default_factory=MonitoringPolicy)
    health: HealthPolicy = Field(default_factory=HealthPolicy)
    overrides: Overrides = Field(default_factory=Overrides)
    kind: Literal["roceops/fabric/v1"] = "roceops/fabric/v1"

    @model_validator(mode="after")
    def _models_exist(self) -> FabricIntent:
        for tier_name in ("leaf", "spine", "core"):
            tier = getattr(self.tiers, tier_name)
            if tier is not None and tier.model not in self.switch_models:
                known = ", ".join(sorted(self.switch_models)) or "none"
                raise ValueError(
                    f"tiers.{tier_name}.model {tier.model!r} is not in switch_models (known: {known})"
                )
        return self

    @model_validator(mode="after")
    def _fifo_class_exists(self) -> FabricIntent:
        fifo = self.node.nccl.fifo_class
        if fifo is not None and fifo not in {tc.name for tc in self.qos.traffic_classes}:
            known = ", ".join(tc.name for tc in self.qos.traffic_classes)
            raise ValueError(f"node.nccl.fifo_class {fifo!r} is not a qos traffic class (known: {known})")
        return self

    def port_naming(self, tier: TierIntent) -> PortNaming:
        return tier.port_naming or default_port_naming(tier.platform)
