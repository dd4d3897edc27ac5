"""Device facts before every push: a switch whose NOS release, hardware or ports contradict its intent is
stopped before anything is sent (``facts.mismatch``).

The supported ranges are the releases roceops' templates are written and tested for (project policy, see
docs/platforms.md "Device facts"); a device outside them could accept different syntax.
"""

from __future__ import annotations

import re
from typing import Any

from roceops import registry
from roceops.device.change import DeviceFacts, Snapshot
from roceops.device.intent import Intent, SwitchIntent

_TOKEN = re.compile(r"[.\-]")
_LEADING_DIGITS = re.compile(r"\d+")


def release_key(platform: str, version: str) -> tuple[int, ...]:
    """Leading release numbers: ``4.32.2F`` -> (4, 32, 2); SONiC ``20230531.22`` -> (202305, 22).

    >>> release_key("eos", "4.32.2F"), release_key("sonic", "202411.1-lab"), release_key("sonic", "20230531.22")
    ((4, 32, 2), (202411, 1), (202305, 22))
    """
    key: list[int] = []
    for token in _TOKEN.split(version):
        m = _LEADING_DIGITS.match(token)
        if m is None:
            break
        key.append(int(m.group()))
        if m.end() < len(token):  # "2F": a train letter ends the release numbers
            break
    if registry.get(platform).dated_releases and key and key[0] > 999_999:  # YYYYMMDD build -> YYYYMM branch
        key[0] //= 100
    return tuple(key)


def unsupported_release(platform: str, version: str) -> str | None:
    """``"LOW to HIGH"`` when ``version`` is outside the platform's supported releases, else None. The one check of
    the range, used by deploy's facts check and by lint (NOS001), so both agree."""
    bounds = registry.get(platform).supported_releases
    key = release_key(platform, version)
    if bounds and not (bounds[0] <= key[:len(bounds[0])] and key[:len(bounds[1])] <= bounds[1]):
        low, high = (".".join(map(str, b)) for b in bounds)
        return f"{low} to {high}"
    return None


def _matches(wanted: str, reported: str) -> bool:
    """``5.14`` matches ``5.14.0`` and ``5.14.1``, not ``5.15.0``: the fabric's components are a prefix."""
    want, got = _TOKEN.split(wanted.lower()), _TOKEN.split(reported.lower())
    return got[:len(want)] == want


def mismatches(facts: DeviceFacts, intent: SwitchIntent) -> list[str]:
    """What the device reports that contradicts its intent (empty: it is the device the fabric describes)."""
    out: list[str] = []
    if intent.hwsku and facts.hardware is None:
        out.append(f"hardware: fabric says {intent.hwsku!r}, the device reports no hardware identity")
    elif intent.hwsku and facts.hardware != intent.hwsku:
        out.append(f"hardware: fabric says {intent.hwsku!r}, device reports {facts.hardware!r}")
    version = facts.nos_version
    if version is None:
        out.append("NOS release: the device reports none")
    else:
        if intent.nos_version and not _matches(intent.nos_version, version):
            out.append(f"NOS release: fabric says {intent.nos_version!r}, device runs {version!r}")
        if supported := unsupported_release(intent.platform, version):
            out.append(f"NOS release {version!r} is outside the supported range {supported}")
    if facts.ports is None:
        out.append("ports: the device's port list could not be read")
    else:
        missing = sorted(set(intent.ports) - facts.ports)
        if missing:
            more = f" (+{len(missing) - 5} more)" if len(missing) > 5 else ""
            out.append(f"ports missing on the device: {', '.join(missing[:5])}{more}")
    return out


def read_device_facts(driver: Any, conn: Any, current: Snapshot, intent: Intent) -> DeviceFacts | None:
    """The device's facts (I/O through its driver); None for hosts and drivers without ``read_facts``."""
    read = getattr(driver, "read_facts", None)
    if read is None or not isinstance(intent, SwitchIntent):
        return None
    facts: DeviceFacts = read(conn, current)
    return facts


def facts_problems(driver: Any, conn: Any, current: Snapshot, intent: Intent) -> list[str]:
    """Read the device's facts (I/O through its driver) and compare them with ``intent``.

    Hosts and drivers without ``read_facts`` have no NOS facts to check: nothing to report.
    """
    facts = read_device_facts(driver, conn, current, intent)
    if facts is None or not isinstance(intent, SwitchIntent):
        return []
    return mismatches(facts, intent)


def mode_problems(driver: Any, conn: Any, intent: Intent) -> list[str]:
    """NICs whose operation mode keeps host-side settings from taking effect (a BlueField in DPU mode), read
    through the driver's ``nic_mode_problems``; empty for drivers without that read (``nic.mode``)."""
    read = getattr(driver, "nic_mode_problems", None)
    return [] if read is None else list(read(conn, intent))
