"""The platform registry: every platform room, found through the ``roceops.platforms`` entry-point group.

Each entry point names a room's ``PLATFORM`` object (:class:`roceops.platforms.base.Platform`); platform names,
their kinds, default port naming and lint groupings are all read from here. Tests add a platform with
:func:`register` (and remove it with :func:`unregister`). Nothing is imported until a platform is asked for, so
models can validate platform names against the registry without import cycles.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any, Protocol

GROUP = "roceops.platforms"


class Platform(Protocol):
    """What the registry and its model-level users read of a :class:`roceops.platforms.base.Platform` (the
    registry imports nothing of roceops, so the models and the lab may use it)."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def lab_device(self) -> str: ...
    @property
    def port_naming(self) -> Any: ...
    @property
    def pfcwd_ranges_ms(self) -> Mapping[str, tuple[int, int]]: ...
    @property
    def sku_port_naming(self) -> Any: ...
    @property
    def supported_releases(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None: ...
    @property
    def dated_releases(self) -> bool: ...
    @property
    def sku_built(self) -> bool: ...  # builds buffers/ports from the SKU's files (SONiC)

_lock = threading.Lock()
_loaded: dict[str, Platform] | None = None
_extra: dict[str, Platform] = {}


class UnknownPlatform(KeyError):
    """A platform name no room provides; ``str()`` names the known ones."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown platform"


def _entry_point_platforms() -> dict[str, Platform]:
    global _loaded
    if _loaded is not None:
        return _loaded
    with _lock:
        if _loaded is None:
            found: dict[str, Platform] = {}
            for ep in entry_points(group=GROUP):
                platform = ep.load()
                if platform.name != ep.name:
                    raise RuntimeError(f"entry point {ep.name!r} of {GROUP} loads platform {platform.name!r}")
                found[ep.name] = platform
            if not found:
                raise RuntimeError(f"no platforms registered in the {GROUP!r} entry-point group: reinstall roceops "
                                   "(pip install -e .) so its entry points are recorded")
            _loaded = found
        return _loaded


def platforms() -> dict[str, Platform]:
    """Every registered platform by name (entry points, then test registrations)."""
    loaded = _entry_point_platforms()
    return {**loaded, **_extra} if _extra else loaded


def names(kind: str | None = None) -> list[str]:
    """Platform names, sorted; only those of ``kind`` ("switch" / "host") when given."""
    return sorted(n for n, p in platforms().items() if kind is None or p.kind == kind)


def kind_of(name: str) -> str | None:
    """"switch" / "host" for a registered platform, None for an unknown name."""
    platform = _extra.get(name) or _entry_point_platforms().get(name)  # models validate every device's platform
    return None if platform is None else platform.kind


def default_host() -> str:
    """The host platform a fabric gets when it names none: the first registered by entry point."""
    hosts = sorted(n for n, p in _entry_point_platforms().items() if p.kind == "host")
    if not hosts:
        raise RuntimeError(f"no host platform in the {GROUP!r} entry-point group")
    return hosts[0]


def get(name: str) -> Platform:
    try:
        return platforms()[name]
    except KeyError:
        raise UnknownPlatform(f"unknown platform {name!r}; known: {', '.join(names())}") from None


def register(platform: Platform) -> None:
    """Add (or replace) a platform outside the entry points: the hook tests use for an extra platform."""
    _extra[platform.name] = platform


def unregister(name: str) -> None:
    _extra.pop(name, None)
