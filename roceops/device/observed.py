"""Observed…: what a device shows of its configuration, in the DeviceIntent's shape with every field optional.

A platform's parsers build these from device output alone (they never see the intent); the platform driver's
``expected(intent)`` builds the same classes from the intent, as that platform represents it. Audit is then
``compare(expected, observed)``, model against model.

Conventions:

- a field the parser could not see is left *unset* (not in ``model_fields_set``): "not observable on this
  platform", never compared; a field set to ``None`` was looked for and is absent on the device;
- enumerations are plain ``str``: a device may show a value the intent cannot hold (``"wrr"``), which is
  drift to report, not a parse error;
- where a device keeps a device-wide intent setting per port (SONiC binds QoS maps and queues per port, EOS
  configures queues per interface) the port carries its own copy (``ObservedSwitchPort.queues``, ...), so a
  departure on one port is reported at that port.

>>> from roceops.device.intent import QueueIntent
>>> as_observed(QueueIntent(scheduler="dwrr", weight=50), ObservedQueue).weight
50
>>> sorted(ObservedQueue.model_validate({"scheduler": "wrr"}).model_fields_set)
['scheduler']
"""

from __future__ import annotations

from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

_OPEN = "roceops_open_map"


class _O(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def open_map(description: str) -> Any:
    """A map the device holds more of than roceops manages (front-panel ports, netdevs, sysctls): entries the
    expected side does not name are the device's own, not drift."""
    return Field(default=None, description=description, json_schema_extra={_OPEN: True})


@cache
def open_fields(cls: type[BaseModel]) -> frozenset[str]:
    """The names of ``cls``'s open maps (:func:`open_map`)."""
    return frozenset(name for name, f in cls.model_fields.items()
                     if isinstance(f.json_schema_extra, dict) and f.json_schema_extra.get(_OPEN))


# ------------------------------------------------------------------------------------------------- switch


class ObservedEcn(_O):
    min_bytes: int | None = None
    max_bytes: int | None = None
    probability: int | None = None


class ObservedQueue(_O):
    scheduler: str | None = None
    weight: int | None = None
    lossless: bool | None = None
    ecn: ObservedEcn | None = None
    traffic_class: str | None = None


class ObservedBufferPool(_O):
    name: str | None = None
    type: str | None = None
    mode: str | None = None
    size: int | None = None
    xoff: int | None = None


class ObservedBufferProfile(_O):
    name: str | None = None
    pool: str | None = None
    size: int | None = None
    xon: int | None = None
    xoff: int | None = None
    xon_offset: int | None = None
    dynamic_th: int | None = None
    static_th: int | None = None


class ObservedPfcWatchdog(_O):
    enabled: bool | None = None
    detect_ms: int | None = None
    restore_ms: int | None = None
    poll_ms: int | None = None
    action: str | None = None


class ObservedQos(_O):
    trust: str | None = None
    dscp_to_tc: dict[int, int] | None = None
    tc_to_queue: dict[int, int] | None = None
    tc_to_pg: dict[int, int] | None = None
    pfc_priority_to_queue: dict[int, int] | None = None
    lossless_priorities: list[int] | None = None
    cnp_priority: int | None = None
    queues: dict[int, ObservedQueue] | None = None
    buffer_model: str | None = None
    pools: list[ObservedBufferPool] | None = None
    profiles: list[ObservedBufferProfile] | None = None
    lossy_queue_profile: str | None = None
    pfc_watchdog: ObservedPfcWatchdog | None = None


class ObservedHeadroom(_O):
    profile: str | None = None
    xon: int | None = None
    xoff: int | None = None
    size: int | None = None


class ObservedSwitchPort(_O):
    name: str | None = None
    speed: int | None = None
    mtu: int | None = None
    admin_up: bool | None = None
    description: str | None = None
    role: str | None = None
    address: str | None = None
    peer_device: str | None = None
    peer_port: str | None = None
    cable_length: int | None = None
    pfc_priorities: list[int] | None = None
    pfc_watchdog: bool | None = None
    headroom: dict[int, ObservedHeadroom] | None = None
    lanes: list[int] | None = None
    alias: str | None = None
    index: int | None = None
    ingress_profiles: list[str] | None = None
    egress_profiles: list[str] | None = None
    # device-wide in the intent, per port on some devices (see the module docstring)
    trust: str | None = None
    dscp_to_tc: dict[int, int] | None = None
    tc_to_queue: dict[int, int] | None = None
    tc_to_pg: dict[int, int] | None = None
    pfc_priority_to_queue: dict[int, int] | None = None
    queues: dict[int, ObservedQueue] | None = None
    watchdog: ObservedPfcWatchdog | None = Field(default=None, description="the port's own watchdog timers/action")
    adaptive_routing: bool | None = Field(default=None, description="adaptive routing on the port (the device-wide "
                                          "load_balancing.mode adaptive, where the device enables it per port)")


class ObservedBgpNeighbor(_O):
    ip: str | None = None
    remote_asn: int | None = None
    port: str | None = None
    description: str | None = None


class ObservedBgp(_O):
    asn: int | None = None
    router_id: str | None = None
    neighbors: list[ObservedBgpNeighbor] | None = None
    networks: list[str] | None = None


class ObservedLoadBalancing(_O):
    mode: str | None = None
    hash_fields: list[str] | None = None
    hash_seed: int | None = None


class ObservedSwitch(_O):
    kind: str | None = None
    name: str | None = None
    platform: str | None = None
    role: str | None = None
    model: str | None = None
    hwsku: str | None = None
    nos_version: str | None = None
    mgmt_ip: str | None = None
    loopback: str | None = None
    qos: ObservedQos | None = None
    ports: dict[str, ObservedSwitchPort] | None = open_map("front-panel port -> its settings")
    bgp: ObservedBgp | None = None
    breakouts: dict[str, int] | None = open_map("cage -> ports it is split into")
    load_balancing: ObservedLoadBalancing | None = None


# ------------------------------------------------------------------------------------------------- host


class ObservedDcqcn(_O):
    np_enabled: list[int] | None = None
    rp_enabled: list[int] | None = None
    np: dict[str, int] | None = open_map("roce_np sysfs file -> value")
    rp: dict[str, int] | None = open_map("roce_rp sysfs file -> value")


class ObservedRoute(_O):
    to: str | None = None
    via: str | None = None
    table: int | None = None


class ObservedNic(_O):
    netdev: str | None = None
    rdma_dev: str | None = None
    rail: int | None = None
    plane: int | None = None
    speed: int | None = None
    mtu: int | None = None
    address: str | None = None
    gateway: str | None = None
    table: int | None = None
    leaf: str | None = None
    leaf_port: str | None = None
    trust: str | None = None
    pfc_priorities: list[int] | None = None
    dscp_to_priority: dict[int, int] | None = None
    prio_tc: dict[int, int] | None = None
    tc_bandwidth: dict[int, int] | None = None
    strict_tcs: list[int] | None = None
    dcqcn: ObservedDcqcn | None = None
    cnp_dscp: int | None = None
    cnp_priority: int | None = None
    roce_tos: int | None = None
    roce_mode: str | None = None
    routes: list[ObservedRoute] | None = None
    addresses: list[str] | None = Field(default=None, description="every IPv4 address/len on the netdev")
    # observed only (no intent counterpart): a BlueField's operation mode, "dpu" or "nic" (audit/health nic.mode)
    mode: str | None = None


class ObservedNccl(_O):
    ib_hca: list[str] | None = None
    ib_hca_exact: bool | None = None
    ib_tc: int | None = None
    roce_version: int | None = None
    addr_family: str | None = None
    addr_range: str | None = None
    gid_index: int | None = None
    qps_per_connection: int | None = None
    split_data_on_qps: int | None = None
    socket_ifname: str | None = None
    cross_nic: int | None = None
    fifo_tc: int | None = None


class ObservedFirmware(_O):
    nic_model: str | None = None
    devices: dict[str, dict[str, int]] | None = open_map("rdma_dev -> mlxconfig parameter -> value")


class ObservedBoot(_O):
    files: dict[str, str | None] | None = Field(default=None, description="installed path -> sha256 (None: absent)")
    unit: str | None = None
    unit_enabled: str | None = None
    unit_result: str | None = None


class ObservedGid(_O):
    """One row of ``show_gids``: what the health checks read to find a NIC's RoCEv2 IPv4 GID."""

    dev: str
    port: int | None = None
    index: int | None = None
    gid: str
    ipv4: str | None = None
    version: str | None = None
    netdev: str | None = None


class ObservedHost(_O):
    kind: str | None = None
    name: str | None = None
    platform: str | None = None
    model: str | None = None
    mgmt_ip: str | None = None
    roce_mtu: int | None = None
    nics: dict[str, ObservedNic] | None = open_map("netdev -> its settings")
    sysctls: dict[str, str] | None = open_map("sysctl -> value")
    nccl: ObservedNccl | None = None
    firmware: ObservedFirmware | None = None
    boot: ObservedBoot | None = None
    # observed only (no intent counterpart): what the health checks read
    gids: list[ObservedGid] | None = None
    tools: dict[str, bool] | None = Field(default=None, description="test tool -> installed (ib_write_bw)")


Observed = ObservedSwitch | ObservedHost
_T = TypeVar("_T", bound=BaseModel)


def as_observed(intent: BaseModel, cls: type[_T]) -> _T:
    """The intent (or a part of it) as the Observed class ``cls``: every field set, as a device would show it."""
    # through a dump: validating plain data is the cheaper path (``from_attributes`` looks every field up)
    return cls.model_validate(intent.model_dump())
