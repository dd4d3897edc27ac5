"""What the collector samples: one Target per selected device, with its address, the place labels every series of
it carries (device, tier, su, rail) and what it needs to label queues lossless. Built from the fabric (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from roceops.device.intent import SwitchIntent
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.topology.fabric import Fabric, Host, Switch
from roceops.topology.sharding import Shard
from roceops.util.shard import shard_of


@dataclass(frozen=True)
class Target:
    name: str
    platform: str
    via: Literal["gnmi", "ssh"]
    host: str
    port: int | None  # gNMI port (switches); None: the platform's default
    place: tuple[str, str, str, str]  # device, tier, su, rail ("" where the device has none)
    lossless_priorities: frozenset[int] = frozenset()
    lossless_queues: frozenset[int] = frozenset()
    nic_rails: Mapping[str, str] = field(default_factory=dict)  # host: netdev -> its rail


def _text(value: int | None) -> str:
    return "" if value is None else str(value)


def _switch(fabric: Fabric, sw: Switch, host: str, port: int | None) -> Target:
    intent = plan(fabric, sw.name)
    assert isinstance(intent, SwitchIntent)
    qos = intent.qos
    queues = frozenset(qos.pfc_priority_to_queue.get(p, qos.tc_to_queue.get(p, p)) for p in qos.lossless_priorities)
    return Target(sw.name, sw.platform, "gnmi", host, port, (sw.name, sw.role, _text(sw.su), _text(sw.rail)),
                  frozenset(qos.lossless_priorities), queues)


def _host(fabric: Fabric, h: Host, address: str) -> Target:
    lossless = frozenset(tc.priority for tc in fabric.intent.qos.lossless_classes)
    return Target(h.name, h.platform, "ssh", address, None, (h.name, "host", str(h.su), ""),
                  lossless_priorities=lossless, nic_rails={n.netdev: str(n.rail) for n in h.nics})


def build_targets(fabric: Fabric, devices: Iterable[Switch | Host], overlay: Mapping[str, Mapping[str, Any]] | None,
                  shard: Shard | None = None) -> tuple[list[Target], list[str]]:
    """(targets, skipped): the devices of this shard the collector can sample, and why the others are not.

    ``overlay`` (``--lab``): the lab's endpoints, device -> {host, gnmi_port}; else management addresses and the
    room's default gNMI port. A switch whose room has no gNMI path table is skipped with the reason.
    """
    targets: list[Target] = []
    skipped: list[str] = []
    for dev in devices:
        if shard is not None and shard_of(dev.name, shard.count) != shard.index:
            continue
        where = (overlay or {}).get(dev.name)
        if overlay is not None and where is None:
            skipped.append(f"{dev.name}: not served by the lab")
            continue
        address = str(where["host"]) if where else dev.mgmt_ip.split("/")[0]
        if isinstance(dev, Host):
            targets.append(_host(fabric, dev, address))
            continue
        if get_platform(dev.platform).gnmi_paths is None:
            skipped.append(f"{dev.name}: {get_platform(dev.platform).title} has no gNMI path table in roceops "
                           "(docs/platforms.md, Telemetry)")
            continue
        port = where.get("gnmi_port") if where else None
        if overlay is not None and port is None:
            skipped.append(f"{dev.name}: the lab serves no gNMI for it")
            continue
        targets.append(_switch(fabric, dev, address, int(port) if port is not None else None))
    return targets, skipped
