"""What a platform provides, and the registry that maps platform names to them.

A platform is a "room": everything about one NOS lives under
``roceops/platforms/<name>/`` and ``templates/<name>/``. Each room's package
exposes ``PLATFORM``, an object satisfying :class:`Platform`. Adding a NOS
means adding a room and one line in ``PLATFORM_MODULES``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from roceops.plan.model import HostIntent, SwitchIntent

Intent = SwitchIntent | HostIntent


@dataclass(frozen=True)
class RenderOutput:
    """One rendered file: ``template`` (under templates/<platform>/) becomes ``filename``.

    ``postprocess`` turns the template's text into the final file (for example
    parse-and-canonicalise JSON so output is byte-identical run to run).
    """

    filename: str
    template: str
    postprocess: Callable[[str], str] | None = None


@dataclass(frozen=True)
class NetmikoSettings:
    """Connection quirks as data: the netmiko device_type and extra ConnectHandler arguments.

    ``session_lines`` are what Netmiko's session preparation for ``device_type`` sends after the prompt (EOS:
    terminal width and paging); read-only runs log in with :mod:`roceops.platforms.login`, which sends them
    too.
    """

    device_type: str
    extras: Mapping[str, Any] = field(default_factory=dict)
    session_lines: tuple[str, ...] = ()


class Platform(Protocol):
    name: str
    device_kind: Literal["switch", "host"]
    outputs: tuple[RenderOutput, ...]
    netmiko: NetmikoSettings

    def render_context(self, device: Any) -> dict[str, Any]:
        """Template variables for one device (the DeviceIntent plus platform-specific derived names)."""
        ...


PLATFORM_MODULES: dict[str, str] = {
    "sonic": "roceops.platforms.sonic",
    "cumulus": "roceops.platforms.cumulus",
    "eos": "roceops.platforms.eos",
    "linux_mlx5": "roceops.platforms.linux_mlx5",
}


class UnknownPlatform(KeyError):
    pass


def get_platform(name: str) -> Platform:
    try:
        module = importlib.import_module(PLATFORM_MODULES[name])
    except KeyError:
        raise UnknownPlatform(f"unknown platform {name!r}; known: {', '.join(sorted(PLATFORM_MODULES))}") from None
    return module.PLATFORM  # type: ignore[no-any-return]


def get_driver(name: str) -> Any:
    """The room's ``DRIVER`` (see roceops.platforms.driver.Driver)."""
    try:
        module = importlib.import_module(PLATFORM_MODULES[name])
    except KeyError:
        raise UnknownPlatform(f"unknown platform {name!r}; known: {', '.join(sorted(PLATFORM_MODULES))}") from None
    return module.DRIVER
