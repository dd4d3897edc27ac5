"""SONiC device facts (pure): NOS release and HwSKU from ``show version``, ports from CONFIG_DB ``PORT``.

``show version`` prints ``SONiC Software Version: SONiC.<release>...``, ``Platform:`` and ``HwSKU:`` lines
(sonic-utilities ``show/main.py`` ``version``; HwSKU read from CONFIG_DB ``DEVICE_METADATA|localhost``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.device.change import DeviceFacts
from roceops.platforms.sonic.parsers_control import show_version

VERSION_COMMAND = "show version"


def parse_facts(version_text: str, config_db: Mapping[str, Any]) -> DeviceFacts:
    """``show version`` text and the running CONFIG_DB -> facts (``SONiC.202411.1-abc`` -> ``202411.1-abc``)."""
    version = show_version(version_text)
    release = version.get("SONiC Software Version") or None
    if release is not None:
        release = release.removeprefix("SONiC.")
    meta = (config_db.get("DEVICE_METADATA") or {}).get("localhost") or {}
    hwsku = version.get("HwSKU") or meta.get("hwsku") or None
    ports = config_db.get("PORT")
    return DeviceFacts(nos_version=release, hardware=hwsku,
                       ports=frozenset(ports) if isinstance(ports, Mapping) else None)
