"""SONiC BREAKOUT_CFG (from the SKU's platform.json modes) and SWITCH_HASH (from the fabric's load balancing).

* ``BREAKOUT_CFG|<cage>`` ``brkout_mode``: one entry per front-panel cage a used port sits in, keyed by the
  platform.json interface name, the mode a platform.json mode name (sonic-breakout_cfg.yang; sonic-cfggen writes
  the same table from hwsku.json's default_brkout_mode: sonic-buildimage src/sonic-config-engine/portconfig.py
  ``get_breakout_mode`` @ 086b03bd, in ../shared/oracles/sonic-cfggen/vendor). The mode is the cage's mode with as
  many ports as the plan splits the cage into (``SwitchIntent.breakouts``, 1 when unsplit) at the ports' speed,
  the SKU's default mode first when it fits.
* ``SWITCH_HASH|GLOBAL`` ``ecmp_hash``: the fabric's hash fields in its order (sonic-hash.yang, leaf-list of
  ``stypes:hash-field``; :data:`HASH_FIELDS` maps roceops' names to its enum). Rendered only when the fabric sets
  hash fields (None keeps the image's default). No seed: that YANG set has no seed leaf (lint LB003 says so).
"""

from __future__ import annotations

from typing import Any

from roceops.device.intent import SwitchIntent
from roceops.hardware import Cage, UnknownSwitchProfile, switch_profile
from roceops.model.load_balancing import HashField

# roceops hash field -> sonic-types.yang hash-field enum (../shared/sonic-yang/sonic-types.yang)
HASH_FIELDS: dict[HashField, str] = {"src_ip": "SRC_IP", "dst_ip": "DST_IP", "ip_protocol": "IP_PROTOCOL",
                                     "l4_src_port": "L4_SRC_PORT", "l4_dst_port": "L4_DST_PORT"}


class BreakoutError(ValueError):
    """The SKU's platform.json has no mode for how the plan uses a cage (the message names cage and SKU)."""


def _mode(cage: Cage, ports: int, speed: int, hwsku: str) -> str:
    fits = [m.name for m in cage.breakout_modes if m.ports == ports and speed in m.speeds]
    if not fits:
        raise BreakoutError(f"{hwsku}: platform.json has no breakout mode of cage {cage.name} with {ports} port(s) "
                            f"at {speed // 1000}G (modes: {', '.join(m.name for m in cage.breakout_modes)})")
    return cage.default_breakout if cage.default_breakout in fits else fits[0]


def breakout_cfg(device: SwitchIntent) -> list[dict[str, str]]:
    """``[{"port": cage, "mode": platform.json mode}]`` for the cages the device's ports use (none without a SKU)."""
    if device.hwsku is None:
        return []
    try:
        profile = switch_profile(device.hwsku)
    except UnknownSwitchProfile:
        return []
    by_lane = {lane: cage for cage in profile.cages for lane in cage.lanes}
    speeds: dict[str, int] = {}
    cages: dict[str, Cage] = {}
    for port in device.ports.values():
        cage = by_lane.get(port.lanes[0]) if port.lanes else None
        if cage is not None:
            cages[cage.name] = cage
            speeds.setdefault(cage.name, port.speed)
    return [{"port": name, "mode": _mode(cage, device.breakouts.get(name, 1), speeds[name], device.hwsku)}
            for name, cage in sorted(cages.items(), key=lambda kv: kv[1].index)]


def switch_hash(device: SwitchIntent) -> dict[str, Any] | None:
    """``{"ecmp_hash": [...]}`` for SWITCH_HASH|GLOBAL, or None when the fabric keeps the device default."""
    fields = device.load_balancing.hash_fields
    if fields is None:
        return None
    return {"ecmp_hash": [HASH_FIELDS[f] for f in fields if f in HASH_FIELDS]}
