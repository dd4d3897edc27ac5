"""The intent as a deployed host shows it, in the ObservedHost model ``observe`` returns (the driver's
``expected``)."""

from __future__ import annotations

import hashlib
from typing import Any

from roceops.device.intent import HostIntent
from roceops.device.observed import ObservedHost
from roceops.platforms.linux_mlx5.persisted import persisted_files
from roceops.platforms.linux_mlx5.render import INSTALL_TARGETS, PERSISTED


def shown_sysctls(sysctls: dict[str, str]) -> dict[str, str]:
    """Sysctl values as ``sysctl`` prints them back: fields separated by single blanks."""
    return {k: " ".join(str(v).split()) for k, v in sysctls.items()}


def expected(intent: HostIntent) -> ObservedHost:
    """The intent as the host shows it: each NIC holding exactly its address, its routes in :func:`route_key`
    order, sysctl values with single blanks between fields, and the sha256 of every persistence file as
    rendered from this intent (what ``deploy --commit`` installs).

    The intent's plain data with these changes made in it, validated once as an ObservedHost (the result equals
    :func:`~roceops.device.observed.as_observed` followed by a copy of each changed model with its changes:
    tests/platforms/linux_mlx5/test_linux_mlx5_expected_once.py)."""
    rendered = persisted_files(intent, PERSISTED)  # the exact bytes, rendered once per class of hosts
    files: dict[str, str | None] = {INSTALL_TARGETS[n].path: hashlib.sha256(rendered[n].encode()).hexdigest()
                                    for n in PERSISTED}
    data = intent.model_dump()
    for name, nic in data["nics"].items():
        nic["addresses"] = [intent.nics[name].address]
        nic["routes"] = sorted(nic["routes"], key=_route_key)
    data["sysctls"] = shown_sysctls(intent.sysctls)
    data["boot"]["files"] = files
    return ObservedHost.model_validate(data)


def _route_key(route: dict[str, Any]) -> tuple[bool, int, str, str]:
    """:func:`route_key` of a route's plain data."""
    return route["table"] is not None, route["table"] or 0, route["to"] or "", route["via"] or ""
