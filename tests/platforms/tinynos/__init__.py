"""TinyNOS: a made-up switch platform that proves a room is all a platform needs.

The room is this package (PLATFORM, its driver), ``templates/`` and its simulated device (``device.py``);
tests/platforms/test_extra_platform.py registers it with :func:`roceops.registry.register` (an installed
platform would use the ``roceops.platforms`` entry-point group instead) and runs validate, render, lab and
audit on it. Its "config" is a JSON document of the hostname and each port's MTU and PFC priorities.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from roceops.model.intent import PortNaming
from roceops.platforms.base import NetmikoSettings, Platform, PlatformCode, RenderOutput
from tinynos.driver import DRIVER, SHOW_CONFIG


def render_context(device: Any) -> dict[str, Any]:
    return {"hostname": device.name,
            "ports": [{"name": p.name, "mtu": p.mtu, "pfc": p.pfc_priorities} for p in device.ports.values()]}


def _canonical(text: str) -> str:
    return json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"


PLATFORM = Platform(
    name="tinynos",
    title="TinyNOS",
    kind="switch",
    outputs=(RenderOutput(filename="config.json", template="main.j2"),),
    netmiko=NetmikoSettings(device_type="linux"),
    code=PlatformCode(context=render_context, driver=DRIVER, postprocess={"config.json": _canonical}),
    lab_device="tinynos.device",
    port_naming=PortNaming(pattern="port{n}", start=1, step=1),
    show_commands=(SHOW_CONFIG,),
    failure_patterns=(re.compile(r"^error: .*$", re.M),),
    templates=Path(__file__).parent / "templates",
    vocabulary=("tinynos",),
)
