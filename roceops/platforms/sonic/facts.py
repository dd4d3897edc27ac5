"""SONiC device facts (pure): NOS release and HwSKU from ``show version``, ports from CONFIG_DB ``PORT``.

``show version`` prints ``SONiC Software Version: SONiC.<release>...``, ``Platform:`` and ``HwSKU:`` lines
(sonic-utilities ``show/main.py`` ``version``; HwSKU read from CONFIG_DB ``DEVICE_METADATA|localhost``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.platforms.driver import DeviceFacts
from roceops.platforms.releases import release_numbers
from roceops.platforms.sonic.parsers import show_version

VERSION_COMMAND = "show version"


def release_key(version: str) -> tuple[int, ...]:
    """Release numbers of a SONiC version; dated builds (YYYYMMDD) read as their YYYYMM branch.

    >>> release_key("202411.1-lab"), release_key("20230531.22"), release_key("master.123")
    ((202411, 1), (202305, 22), ())
    """
    key = release_numbers(version)
    return (key[0] // 100, *key[1:]) if key and key[0] > 999_999 else key


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
