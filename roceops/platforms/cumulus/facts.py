"""Cumulus (NVUE) device facts (pure): release and platform from ``nv show system -o json``, ports from
``nv show interface -o json``.

``nv show system`` prints ``build  Cumulus Linux 5.5.0`` (NVUE reference Show-Commands/System.md @ 01cf148);
newer releases add ``product-release`` and ``platform``. Which string ``platform`` holds on a real switch
is unconfirmed: compare it only with a fabric ``hwsku`` written from a real switch's output.
"""

from __future__ import annotations

import re

from roceops.device.change import DeviceFacts
from roceops.platforms.cumulus.commands import INTERFACES_JSON as INTERFACES_COMMAND
from roceops.platforms.cumulus.commands import SYSTEM_JSON as SYSTEM_COMMAND
from roceops.platforms.cumulus.parsers import interfaces_json, parse_system_json

__all__ = ["INTERFACES_COMMAND", "SYSTEM_COMMAND", "parse_facts"]
_BUILD = re.compile(r"(\d+(?:\.\d+)+)")


def parse_facts(system_json: str, interfaces: str) -> DeviceFacts:
    system = parse_system_json(system_json)
    release = system.get("product-release") or None
    if release is None and (m := _BUILD.search(str(system.get("build") or ""))):
        release = m.group(1)  # "Cumulus Linux 5.14.0" -> "5.14.0"
    ports = frozenset(name for name in interfaces_json(interfaces) if name.startswith("swp"))
    return DeviceFacts(nos_version=str(release) if release else None, hardware=system.get("platform") or None,
                       ports=ports)
