"""What a platform provides, and the registry that maps platform names to them.

A platform is a "room": everything about one NOS lives under
``roceops/platforms/<name>/``, ``templates/<name>/`` and ``roceops/lab/devices/<name>/``. Each room's
package exposes ``PLATFORM``, a :class:`Platform`, registered in the ``roceops.platforms`` entry-point
group (see :mod:`roceops.registry` and CONTRIBUTING.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from roceops import registry
from roceops.hardware.front_panel import SkuPortNaming
from roceops.model.intent import PortNaming
from roceops.platforms.driver import Driver, TrafficDriver
from roceops.platforms.lb_support import LbSupport
from roceops.registry import UnknownPlatform


@dataclass(frozen=True)
class RenderOutput:
    """One rendered file: ``template`` (under templates/<platform>/) becomes ``filename`` (the room's
    ``PlatformCode.postprocess`` may finish its text)."""

    filename: str
    template: str


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


@dataclass(frozen=True)
class PlatformCode:
    """A room's callables, apart from its data: the render context, the driver, what finishes a rendered file,
    the RDMA traffic test of hosts, and the translations ``verify routing`` uses (None: the room has none)."""

    context: Callable[[Any], dict[str, Any]]  # template variables for one device (its DeviceIntent and more)
    driver: Driver
    # output filename -> what turns the template's text into the final file (e.g. canonical JSON, so a render is
    # byte-identical run to run); a file not named here is the template's text
    postprocess: Mapping[str, Callable[[str], str]] = field(default_factory=dict)
    traffic: TrafficDriver | None = None  # `health --traffic`: runs ib_write_bw between hosts (None: cannot)
    # a switch's rendered routing file (``Platform.routing_source``) -> FRR's bgpd.conf: (device name, text) -> text
    routing_translation: Callable[[str, str], str] | None = None
    host_routing: Callable[[str, str], Any] | None = None  # a host's routing from (netplan.yaml, sysctl.conf)
    # every output file of a device at once (file name -> text, in ``Platform.outputs`` order), exactly as the
    # templates one by one give them, e.g. once per class of hosts filled in per host; None: each template renders
    render_all: Callable[[Any], dict[str, str]] | None = None


@dataclass(frozen=True)
class Platform:
    """Everything the rest of roceops needs to know about one platform room: its data, and its callables in
    ``code`` (:class:`PlatformCode`).

    ``show_commands`` are the read-only commands its driver runs and ``failure_patterns`` the output lines
    that mean a command failed (scrapli-style platform definitions); ``lab_device`` is the module of its
    simulated device (its ``DEVICE`` is the lab personality); ``templates`` is the folder holding its
    ``main.j2`` (None: ``templates/<name>/`` shipped with roceops); ``vocabulary`` are the words (its name,
config formats, tools) that may appear in product code only inside the room.
    """

    name: str
    title: str  # how people write it: "SONiC", "Arista EOS"
    kind: Literal["switch", "host"]
    outputs: tuple[RenderOutput, ...]
    netmiko: NetmikoSettings
    code: PlatformCode
    lab_device: str
    port_naming: PortNaming | None = None  # switches: default port names when a tier does not set them
    show_commands: tuple[str, ...] = ()
    failure_patterns: tuple[re.Pattern[str], ...] = ()
    templates: Path | None = None
    pfcwd_ranges_ms: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # detection/restoration limits
    routing_source: str | None = None  # `verify routing`: the rendered file holding a switch's routing
    lab_reads_frr: bool = False  # its simulated device answers BGP from an FRR vty (`lab up --routing`)
    # releases its templates are written for (oldest, newest; leading numbers); None: not checked
    supported_releases: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    dated_releases: bool = False  # release numbers start with a YYYYMMDD build date (cut to YYYYMM)
    # its ports (lanes, aliases, indexes) and buffer pools come from the SKU's vendor files: a hwsku is required
    sku_built: bool = False
    sku_port_naming: SkuPortNaming | None = None  # how it names a hardware profile's ports; None: port_naming
    lb_support: LbSupport | None = None  # None: no load-balancing rendering (ECMP only)
    persisted_outputs: tuple[str, ...] = ()  # installed by deploy --commit, skipped with --no-persist
    # where deploy --commit installs each persisted output on the device: output -> (path, mode)
    installs: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    firmware_outputs: tuple[str, ...] = ()  # applied only by deploy --firmware (they need a reboot)
    # words only this room may use in product code (tests/platforms/test_registry.py checks the rest of roceops)
    vocabulary: tuple[str, ...] = ()
    # module of its gNMI path table for `roceops telemetry` (a GNMI object, roceops.platforms.gnmi_paths);
    # None: its counters are not streamed (imported only by the telemetry command)
    gnmi_paths: str | None = None

    @property
    def device_kind(self) -> Literal["switch", "host"]:
        return self.kind

    def render_context(self, device: Any) -> dict[str, Any]:
        """Template variables for one device (the DeviceIntent plus platform-specific derived names)."""
        return self.code.context(device)


def get_platform(name: str) -> Platform:
    platform = registry.get(name)
    assert isinstance(platform, Platform), f"{name}: the registry holds a {type(platform).__name__}"
    return platform


def get_driver(name: str) -> Driver:
    """The room's driver."""
    return get_platform(name).code.driver


__all__ = ["NetmikoSettings", "Platform", "PlatformCode", "RenderOutput", "UnknownPlatform", "get_driver",
           "get_platform"]
