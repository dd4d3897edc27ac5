"""SONiC device facts (pure): NOS release and HwSKU from ``show version``, ports from CONFIG_DB ``PORT``.

``show version`` prints ``SONiC Software Version: SONiC.<release>...``, ``Platform:`` and ``HwSKU:`` lines
(sonic-utilities ``show/main.py`` ``version``; HwSKU read from CONFIG_DB ``DEVICE_METADATA|localhost``).

Ports: those in ``PORT``, plus the child ports of every cage listed in ``BREAKOUT_CFG`` in each of the cage's
``platform.json`` breakout modes (hardware catalogue), since a breakout creates them: a fresh switch boots its cages
in the SKU's default mode (sonic-cfggen writes PORT and BREAKOUT_CFG from hwsku.json), so the 2x400G children a
fabric breaks an 800G cage into exist only after the bring-up's reload.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from roceops.device.change import DeviceFacts
from roceops.hardware import SwitchProfile, UnknownSwitchProfile, switch_profile
from roceops.platforms.sonic.parsers_control import show_version

VERSION_COMMAND = "show version"
_ETHERNET = re.compile(r"^Ethernet(\d+)$")


def parse_facts(version_text: str, config_db: Mapping[str, Any]) -> DeviceFacts:
    """``show version`` text and the running CONFIG_DB -> facts (``SONiC.202411.1-abc`` -> ``202411.1-abc``)."""
    version = show_version(version_text)
    release = version.get("SONiC Software Version") or None
    if release is not None:
        release = release.removeprefix("SONiC.")
    meta = (config_db.get("DEVICE_METADATA") or {}).get("localhost") or {}
    hwsku = version.get("HwSKU") or meta.get("hwsku") or None
    ports = config_db.get("PORT")
    if not isinstance(ports, Mapping):
        return DeviceFacts(nos_version=release, hardware=hwsku, ports=None)
    cages = config_db.get("BREAKOUT_CFG")
    children = breakout_children(hwsku, cages) if hwsku and isinstance(cages, Mapping) else frozenset()
    return DeviceFacts(nos_version=release, hardware=hwsku, ports=frozenset(ports) | children)


def breakout_children(hwsku: str, cages: Mapping[str, Any]) -> frozenset[str]:
    """The ports a breakout of ``cages`` can create on ``hwsku`` (none for a SKU outside the catalogue): the k-th
    child of cage ``Ethernet<b>`` is ``Ethernet<b + k x lanes_per_port>`` (sonic-buildimage
    src/sonic-config-engine/portconfig.py ``BreakoutCfg.get_config`` @ 0ef27378, as hardware.front_panel names them).

    >>> sorted(breakout_children("Dell-Z9864f-O64", {"Ethernet8": {"brkout_mode": "1x800G"}}))[-2:]
    ['Ethernet8', 'Ethernet9']
    >>> "Ethernet12" in breakout_children("Dell-Z9864f-O64", {"Ethernet8": {}})  # 2x400G(8): Ethernet8, Ethernet12
    True
    """
    try:
        profile = switch_profile(hwsku)
    except UnknownSwitchProfile:
        return frozenset()
    names = tuple(cages)
    key = (id(profile), names)
    hit = _CHILDREN.get(key)
    if hit is not None and hit[0] is profile:  # the same profile object: the catalogue file is unchanged
        return hit[1]
    found = _children(profile, names)
    if len(_CHILDREN) >= 64:
        _CHILDREN.clear()
    _CHILDREN[key] = (profile, found)
    return found


# (id of the profile, cage names) -> (that profile, the children): every switch of a SKU lists the same cages, and
# the catalogue loads a profile once per file version (catalogue_store._load), so the object names the version
_CHILDREN: dict[tuple[int, tuple[str, ...]], tuple[SwitchProfile, frozenset[str]]] = {}


def _children(profile: SwitchProfile, cages: tuple[str, ...]) -> frozenset[str]:
    """:func:`breakout_children` of ``profile`` (uncached)."""
    out: set[str] = set()
    for name in cages:
        cage = profile.cage(name)
        base = _ETHERNET.match(name)
        if cage is None or base is None:
            continue
        out.update(f"Ethernet{int(base.group(1)) + k * m.lanes_per_port}" for m in cage.breakout_modes
                   for k in range(m.ports))
    return frozenset(out)
