"""plan(fabric, device) -> DeviceIntent: per-device vendor-neutral configuration. No I/O."""

from __future__ import annotations

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.plan.host import plan_host
from roceops.plan.switch import plan_switch
from roceops.topology.fabric import Fabric, Host


def plan(fabric: Fabric, device: str) -> SwitchIntent | HostIntent:
    dev = fabric.device(device)
    if isinstance(dev, Host):
        return plan_host(fabric.intent, dev)
    return plan_switch(fabric, dev)


__all__ = ["plan"]
