"""The intent as a deployed host shows it, in the ObservedHost model ``observe`` returns (the driver's
``expected``)."""

from __future__ import annotations

import hashlib

from roceops.device.intent import HostIntent
from roceops.device.observed import ObservedBoot, ObservedHost, as_observed
from roceops.platforms.linux_mlx5.observe import route_key
from roceops.platforms.linux_mlx5.persisted import persisted_files
from roceops.platforms.linux_mlx5.render import INSTALL_TARGETS, PERSISTED


def shown_sysctls(sysctls: dict[str, str]) -> dict[str, str]:
    """Sysctl values as ``sysctl`` prints them back: fields separated by single blanks."""
    return {k: " ".join(str(v).split()) for k, v in sysctls.items()}


def expected(intent: HostIntent) -> ObservedHost:
    """The intent as the host shows it: each NIC holding exactly its address, its routes in :func:`route_key`
    order, sysctl values with single blanks between fields, and the sha256 of every persistence file as
    rendered from this intent (what ``deploy --commit`` installs)."""
    rendered = persisted_files(intent, PERSISTED)  # the exact bytes, rendered once per class of hosts
    files: dict[str, str | None] = {INSTALL_TARGETS[n].path: hashlib.sha256(rendered[n].encode()).hexdigest()
                                    for n in PERSISTED}
    host = as_observed(intent, ObservedHost)
    nics = {name: nic.model_copy(update={"addresses": [intent.nics[name].address],
                                         "routes": sorted(nic.routes or [], key=route_key)})
            for name, nic in (host.nics or {}).items()}
    shown_boot = (host.boot or ObservedBoot()).model_copy(update={"files": files})
    return host.model_copy(update={"nics": nics, "sysctls": shown_sysctls(intent.sysctls), "boot": shown_boot})
