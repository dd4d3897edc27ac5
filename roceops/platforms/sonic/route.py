"""SONiC: does a change go through `config apply-patch` (day-2) or the bring-up path (`config reload`)?

Bring-up is needed when GCU would refuse an operation (:mod:`roceops.platforms.sonic.gcu`: the vendor's
field-operation rules for the switch's ASIC and release), or when the change sets a mode that only takes
effect when a service starts (:data:`RESTART_MODES`): apply-patch writes CONFIG_DB and restarts nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roceops.hardware import UnknownSwitchProfile, switch_profile
from roceops.platforms.change_path import ChangePath
from roceops.platforms.sonic import gcu

# DEVICE_METADATA|localhost fields read only when a service starts:
RESTART_MODES: dict[str, str] = {
    # sonic-buildimage dockers/docker-orchagent/buffermgrd.sh: buffermgrd is started with -a (dynamic) or
    # -l pg_profile_lookup.ini (traditional) from this field, read once at its start
    "buffer_model": "buffermgrd reads it only when it starts (dockers/docker-orchagent/buffermgrd.sh)",
    # dockers/docker-fpm-frr/docker_init.sh renders frr.conf by this mode when the bgp container starts
    "docker_routing_config_mode": "the bgp container reads it only when it starts (docker-fpm-frr docker_init.sh)",
    # docker-fpm-frr supervisord.conf.common.j2 @086b03bd runs frrcfgd instead of bgpcfgd when "true"
    "frr_mgmt_framework_config": "the bgp container picks frrcfgd or bgpcfgd only when it starts "
                                 "(docker-fpm-frr supervisord.conf.common.j2)",
}
RESTART_TABLES: dict[str, str] = {
    # sonic-utilities `config interface breakout` (Dynamic Port Breakout) owns these, not apply-patch
    "BREAKOUT_CFG": "breakout changes go through `config interface breakout` or a reload",
}


def gcu_device(hwsku: str, nos_version: str | None) -> gcu.Device:
    """What GCU reads of a switch: the release from its build version, asic_type from the SKU's ASIC family."""
    try:
        family: str | None = switch_profile(hwsku).asic_family.value
    except UnknownSwitchProfile:
        family = None
    version = nos_version or ""
    return gcu.Device(gcu.release_of(version) if version else None, version, gcu.asic_type_of(family), hwsku)


def mode_changes(current: Mapping[str, Any], target: Mapping[str, Any]) -> list[str]:
    """Restart-only settings ``target`` changes, as ``field old -> new: why``."""
    out: list[str] = []
    have = (current.get("DEVICE_METADATA") or {}).get("localhost") or {}
    want = (target.get("DEVICE_METADATA") or {}).get("localhost") or {}
    for field, why in RESTART_MODES.items():
        if field in want and have.get(field) != want[field]:
            out.append(f"DEVICE_METADATA {field} {have.get(field) or '(unset)'} -> {want[field]}: {why}")
    for table, why in RESTART_TABLES.items():
        if (current.get(table) or {}) != (target.get(table) or {}):
            out.append(f"{table} changes: {why}")
    return out


def route(current: Mapping[str, Any], target: Mapping[str, Any], ops: list[dict[str, Any]], hwsku: str,
          nos_version: str | None) -> ChangePath:
    """The path of the change ``ops`` (``current`` -> ``target``) on a switch of ``hwsku`` running ``nos_version``."""
    device = gcu_device(hwsku, nos_version)
    refused = [v for v in gcu.classify_all(ops, device) if not v.accepted]
    where = gcu.source_of(device.release) if device.release else "no rules"
    asic = gcu.gcu_asic(device.release, device.asic_type, hwsku) if device.release else gcu.UNKNOWN
    reasons = [f"apply-patch ({where}, ASIC {asic}) refuses {v.line()}" for v in refused]
    reasons += mode_changes(current, target)
    return ChangePath("bringup" if reasons else "day2", tuple(reasons))
