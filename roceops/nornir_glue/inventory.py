"""Nornir inventory plugin: hosts straight from the fabric intent, no exported files needed.

    InitNornir(inventory={"plugin": "roceops.FabricInventory",
                          "options": {"fabric": "inventory/fabric.yaml"}})

Options: ``fabric`` (path), ``limit`` (a --limit expression), ``lab_dir`` (use the
running lab's connection overlay instead of management addresses).
Each host's ``data`` carries ``device`` (the expanded Switch/Host), ``fabric`` and
``roceops_platform``; :func:`device_intent` plans its DeviceIntent on demand.
"""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any, Literal

from nornir.core.inventory import (
    ConnectionOptions,
    Defaults,
    Group,
    Groups,
    Host,
    Hosts,
    Inventory,
    ParentGroups,
)

from roceops.device.intent import HostIntent, SwitchIntent
from roceops.model.loader import load
from roceops.nornir_glue.credentials import from_environment, strict_host_keys
from roceops.plan import plan
from roceops.platforms.base import get_platform
from roceops.selection import select
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric

OVERLAY_FILE = "overlay.json"


def read_overlay(lab_dir: Path) -> dict[str, dict[str, Any]]:
    path = lab_dir / OVERLAY_FILE
    if not path.exists():
        raise FileNotFoundError(f"no lab connection overlay at {path}: start the lab with `roceops lab up`")
    data: dict[str, dict[str, Any]] = json.loads(path.read_text())
    return data.get("devices", data)  # type: ignore[return-value]


class NotInLab(ValueError):
    """A run given ``--lab`` selected a device the lab does not serve, or one it serves off loopback."""


def is_loopback(address: str) -> bool:
    """``address`` is an IP literal in 127.0.0.0/8 (names are never resolved: a lab serves literals only).

    >>> is_loopback("127.40.0.3"), is_loopback("192.168.0.7"), is_loopback("localhost")
    (True, False, False)
    """
    try:
        return ipaddress.ip_address(address) in ipaddress.ip_network("127.0.0.0/8")
    except ValueError:
        return False


def lab_endpoint(overlay: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    """The lab's connection data for ``name``; never a fallback to its management address."""
    conn = overlay.get(name)
    if conn is None:
        raise NotInLab(f"the running lab does not serve {name}; refusing to connect to it")
    if not is_loopback(str(conn.get("host", ""))):
        raise NotInLab(f"the lab overlay puts {name} at {conn.get('host')!r}, outside 127.0.0.0/8")
    return conn


def register_plugins() -> None:
    """Register the netmiko connection plugin (InitNornir does this; we build Nornir objects directly)."""
    from nornir.core.plugins.connections import ConnectionPluginRegister
    from nornir_netmiko.connections import Netmiko

    if "netmiko" not in ConnectionPluginRegister.available:
        ConnectionPluginRegister.register("netmiko", Netmiko)


Login = Literal["netmiko", "quick"]


def build_inventory(fabric: Fabric, limit: str | None = None, lab_dir: Path | None = None,
                    only: set[str] | None = None, login: Login | None = None) -> Inventory:
    """Nornir hosts for the fabric's devices. ``login``: None, Netmiko connects each host itself (the plugin,
    exported inventories); otherwise roceops connects it (``runner.connect_host``) with Netmiko's session
    preparation ("netmiko", deploy) or roceops' quick one ("quick", read-only runs)."""
    register_plugins()
    creds = from_environment()
    overlay = read_overlay(lab_dir) if lab_dir else {}
    groups = Groups()
    hosts = Hosts()
    for dev in select(list(fabric.devices()), limit):
        if only is not None and dev.name not in only:
            continue
        platform = get_platform(dev.platform)
        parents = []
        for g in dev.groups:
            if g not in groups:
                groups[g] = Group(name=g)
            parents.append(groups[g])
        conn = lab_endpoint(overlay, dev.name) if lab_dir else {}
        extras = dict(platform.netmiko.extras)
        key_file = conn.get("key_file") or creds.key_file
        if key_file:
            extras.update({"use_keys": True, "key_file": key_file, "allow_agent": False})
        if creds.known_hosts:
            extras.update(strict_host_keys(creds.known_hosts))
        if login is not None:
            extras["auto_connect"] = False
        hosts[dev.name] = Host(
            name=dev.name,
            hostname=conn.get("host", dev.mgmt_ip),
            port=int(conn.get("port", 22)),
            username=conn.get("username", creds.username),
            password=creds.password,
            platform=platform.netmiko.device_type,
            groups=ParentGroups(parents),
            data={"device": dev, "fabric": fabric, "roceops_platform": dev.platform, "role": dev.role,
                  "roceops_login": login, "roceops_lab": lab_dir is not None},
            connection_options={"netmiko": ConnectionOptions(extras=extras)},
        )
    return Inventory(hosts=hosts, groups=groups, defaults=Defaults())


def device_intent(host: Host) -> SwitchIntent | HostIntent:
    """The host's DeviceIntent, planned once and cached in ``host.data``."""
    cached = host.data.get("intent")
    if cached is None:
        cached = host.data["intent"] = plan(host.data["fabric"], host.name)
    return cached  # type: ignore[no-any-return]


class FabricInventory:
    """Registered under the ``nornir.plugins.inventory`` entry point as ``roceops.FabricInventory``."""

    def __init__(self, fabric: str = "inventory/fabric.yaml", limit: str | None = None,
                 lab_dir: str | None = None) -> None:
        self.fabric_path = Path(fabric)
        self.limit = limit
        self.lab_dir = Path(lab_dir) if lab_dir else None

    def load(self) -> Inventory:
        return build_inventory(expand(load(self.fabric_path).intent), self.limit, self.lab_dir)
