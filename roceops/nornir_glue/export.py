"""Write Nornir SimpleInventory files (hosts.yaml, groups.yaml, defaults.yaml) for people who want plain files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from roceops.platforms.base import get_platform
from roceops.topology.fabric import Fabric
from roceops.util.safe_write import make_folder, write_file


def simple_inventory(fabric: Fabric) -> dict[str, dict[str, Any]]:
    hosts: dict[str, Any] = {}
    groups: dict[str, Any] = {}
    for dev in fabric.devices():
        data: dict[str, Any] = {"role": dev.role, "roceops_platform": dev.platform, "fabric": fabric.intent.name}
        for key in ("su", "rail", "plane", "pod", "asn"):
            value = getattr(dev, key, None)
            if value is not None:
                data[key] = value
        hosts[dev.name] = {
            "hostname": dev.mgmt_ip,
            "platform": get_platform(dev.platform).netmiko.device_type,
            "groups": list(dev.groups),
            "data": data,
        }
        for g in dev.groups:
            groups.setdefault(g, {"data": {}})
    defaults = {"data": {"credentials": "from ROCEOPS_USERNAME / ROCEOPS_PASSWORD / ROCEOPS_SSH_KEY or the agent"}}
    return {"hosts.yaml": hosts, "groups.yaml": dict(sorted(groups.items())), "defaults.yaml": defaults}


def export(fabric: Fabric, out_dir: Path) -> list[Path]:
    make_folder(out_dir)
    written = []
    for name, body in simple_inventory(fabric).items():
        path = out_dir / name
        write_file(path, yaml.safe_dump(body, sort_keys=False, default_flow_style=False))
        written.append(path)
    return written
