"""Deploy's choice of path per device: the platform's in-place transaction (day-2) or its bring-up path.

The room decides (its driver's ``route``, from its change engine's rules as data); this module only asks it and
words the stop when bring-up was not allowed (``deploy --commit`` without ``--bringup``).
"""

from __future__ import annotations

from typing import Any

from roceops.device.change import Change, DeviceFacts, Snapshot
from roceops.device.intent import Intent
from roceops.platforms.change_path import ChangePath


def choose_path(driver: Any, current: Snapshot, change: Change, intent: Intent,
                facts: DeviceFacts | None) -> ChangePath | None:
    """The room's verdict on ``change`` (None: the platform has no such rules; its transaction takes it all)."""
    route = getattr(driver, "route", None)
    if route is None or change.empty:
        return None
    path: ChangePath = route(current, change, intent, facts)
    return path


def with_stale_modes(path: ChangePath | None, stale: tuple[str, ...]) -> ChangePath | None:
    """A device that runs other modes than its config asks needs the bring-up path even for an empty diff."""
    if not stale:
        return path
    return ChangePath("bringup", (*(path.reasons if path is not None else ()), *(f"not in effect: {m}" for m in stale)))


def needs_bringup(path: ChangePath) -> str:
    return f"{path.describe()}; nothing sent: re-run with --bringup to take the bring-up path"
