"""Lab device specs from a fabric: which devices, their platform and their physical wiring.

The lab knows only the hardware (ports, speeds, cabling, NIC names, firmware): it starts
unconfigured, as a new switch does, and gets its configuration through the normal
deploy path. ``configured=True`` preloads the rendered configuration instead (``extra["preload_files"]``,
applied by the personality through the same code as a push; used by benchmarks and tests
that measure audits and health checks, not deploys).
"""

from __future__ import annotations

import contextlib
from typing import Any

from roceops import api
from roceops.hardware import UnknownSwitchProfile, switch_profile
from roceops.hardware.front_panel import front_panel_of
from roceops.lab.spec import LabDeviceSpec
from roceops.platforms.base import get_platform
from roceops.topology.fabric import Fabric, Host, Switch

NIC_FIRMWARE = "28.42.1000"
NIC_DRIVER = "mlx5_core"


def _boot_ports(sw: Switch) -> dict[str, dict[str, Any]]:
    """Cage -> the SKU port the cage is at first boot (its ``port_config``/``hwsku.json`` entry, the cage's default
    breakout), for the cages a leaf's ``host_breakout`` splits another way: what the switch runs before bring-up."""
    with contextlib.suppress(UnknownSwitchProfile):
        profile = switch_profile(sw.hwsku or "")
        return {p.cage: {"name": p.name, "lanes": list(p.lanes), "alias": p.alias, "index": p.index, "speed": p.speed}
                for p in profile.ports if p.cage is not None and p.name == p.cage}
    return {}


def _switch_extra(fabric: Fabric, sw: Switch) -> dict[str, Any]:
    # the switch's hardware: its SKU's lanes, alias and index per port (as port_config.ini gives them at boot)
    sku = {p.name: p for p in front_panel_of(sw.hwsku, sw.platform, sw.port_speed) or ()}
    model = fabric.intent.switch_models.get(sw.model)
    host_breakout = model.host_breakout if model is not None and sw.role == "leaf" else None
    children = {p.name: p for p in front_panel_of(sw.hwsku, sw.platform, sw.port_speed, host_breakout) or ()} \
        if host_breakout else {}
    boot = _boot_ports(sw) if children and sw.platform == "sonic" else {}  # what the SONiC lab boots
    ports = []
    for link in fabric.links_of(sw.name):
        local, peer = (link.a, link.b) if link.a.device == sw.name else (link.b, link.a)
        port: dict[str, Any] = {"name": local.port, "speed": link.speed, "neighbor": [peer.device, peer.port]}
        child = children.get(local.port) if isinstance(fabric.device(peer.device), Host) else None
        if (hw := child or sku.get(local.port)) is not None:
            port.update(lanes=list(hw.lanes), alias=hw.alias, index=hw.index, cage=hw.cage, breakout=hw.breakout)
        if child is not None and hw is not None and hw.cage in boot:  # split only by the bring-up
            port["boot_port"] = boot[hw.cage]
        ports.append(port)
    extra: dict[str, Any] = {"hostname": sw.name, "role": sw.role, "model": sw.model,
                             "hwsku": sw.hwsku or "generic", "nos_version": sw.settings.nos_version,
                             "mgmt_ip": sw.mgmt_ip, "ports": ports}
    # a hwsku outside the catalogue: the switch keeps the lab's generic platform
    with contextlib.suppress(UnknownSwitchProfile):
        if sw.hwsku is not None:
            profile = switch_profile(sw.hwsku)
            extra["sku_platform"] = profile.platform
            # hwsku.json's default_brkout_mode of the cages in use: sonic-cfggen writes it as BREAKOUT_CFG at first
            # boot (sonic-buildimage @ 086b03bd src/sonic-config-engine/sonic-cfggen, portconfig.py parse_breakout_mode)
            cages = {str(p.get("cage")) for p in ports if p.get("cage")} if sw.platform == "sonic" else set()
            if cages:
                extra["boot_breakout"] = {c.name: c.default_breakout for c in profile.cages
                                          if c.name in cages and c.default_breakout}
    return extra


def _host_extra(fabric: Fabric, host: Host) -> dict[str, Any]:
    nics = [{"name": n.netdev, "rdma_dev": n.rdma_dev, "speed": n.speed, "neighbor": [n.leaf, n.leaf_port],
             "firmware": NIC_FIRMWARE, "driver": NIC_DRIVER} for n in host.nics]
    return {"hostname": host.name, "mgmt_ip": host.mgmt_ip, "nics": nics, "ports": nics}


def _installed(platform: str, files: dict[str, str]) -> dict[str, list[object]]:
    """A device's persistence files where a deploy installs them (its platform's ``installs``): path -> [text,
    mode]."""
    return {path: [files[name], mode] for name, (path, mode) in get_platform(platform).installs.items()
            if name in files}


def _applied(files: dict[str, str]) -> dict[str, str]:
    """The rendered files a host's preload applies: ``roce-setup-dcb.sh`` is the alternative to ``roce-setup.sh``
    (a deploy pushes one of them), so it is left out when both are there (~25 KB less per host in the spec)."""
    if "roce-setup.sh" in files:
        return {name: text for name, text in files.items() if name != "roce-setup-dcb.sh"}
    return files


def lab_specs(fabric: Fabric, names: list[str] | None = None, configured: bool = False) -> list[LabDeviceSpec]:
    wanted = set(names) if names is not None else None
    lossless = sorted({c.priority for c in fabric.intent.qos.lossless_classes})  # the fabric's PFC priorities
    specs = []
    for dev in fabric.devices():
        if wanted is not None and dev.name not in wanted:
            continue
        extra = _switch_extra(fabric, dev) if isinstance(dev, Switch) else _host_extra(fabric, dev)
        extra["lossless"] = lossless
        if configured:  # the rendered files (through the public API), applied by the personality as if pushed
            extra["preload_files"] = api.render(api.plan(fabric, dev.name))
            if isinstance(dev, Host):
                extra["preload_install"] = _installed(dev.platform, extra["preload_files"])
                extra["preload_files"] = _applied(extra["preload_files"])
        specs.append(LabDeviceSpec(name=dev.name, platform=dev.platform, extra=extra))
    return specs
