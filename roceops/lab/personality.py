"""The interface platform personalities implement for the SSH lab.

A *personality* makes a simulated device answer like one platform (SONiC, Cumulus NVUE,
Arista EOS, a ConnectX Linux host, ...). It is two classes and one ``DEVICE`` object::

    from roceops.lab.personality import CloseSession, DeviceState, Personality, Reply, Session

    class MyState(DeviceState):            # one per device, shared by all its sessions
        def __init__(self, name, platform, extra):
            super().__init__(name, platform, extra)
            self.hostname = extra.get("hostname", name)

    class MySession(Session):              # one per SSH shell / exec request
        def prompt(self) -> str:
            return f"{self.state.hostname}# "

        def handle(self, line: str) -> str | Reply:
            if line == "exit":
                raise CloseSession("logout")
            return f"you said {line}"

    DEVICE = Personality(MyState, MySession)

The platform registry (:mod:`roceops.registry`) names each platform's simulated-device module
(``Platform.lab_device``, e.g. ``roceops.lab.devices.sonic``); :func:`get_personality` imports it
on first use and serves its ``DEVICE``.

Rules for :meth:`Session.handle`: it runs inside the single asyncio event loop that serves
every device, so it must be synchronous and fast (no I/O, no ``time.sleep``). To simulate a
slow command return ``Reply(text, delay_ms=...)``; the server waits without blocking others.
Line endings in returned text may be ``\\n``; the server converts them for the PTY and adds a
final newline before the prompt when missing.

This module has no third-party dependencies, so personalities can be unit-tested without SSH.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "TRANSPORT_FAULTS",
    "CloseSession",
    "DeviceState",
    "Faults",
    "LabError",
    "Personality",
    "Reply",
    "Session",
    "SessionInfo",
    "UnknownFault",
    "available_platforms",
    "canonical_fault_name",
    "device_module",
    "get_personality",
    "use_device_modules",
]


class LabError(Exception):
    """A lab problem with a one-line, user-facing message (never contains secrets)."""


class UnknownFault(LabError):
    """Raised by :meth:`DeviceState.apply_fault` for a fault name the device does not know."""


class CloseSession(Exception):
    """Raise from :meth:`Session.handle` to end the SSH session (e.g. ``exit`` at top level).

    ``output`` is written (followed by a newline) before the channel closes.
    """

    def __init__(self, output: str = "", exit_status: int = 0) -> None:
        super().__init__(output)
        self.output = output
        self.exit_status = exit_status


@dataclass(frozen=True, slots=True)
class Reply:
    """Rich return value of :meth:`Session.handle` (a plain ``str`` is also accepted).

    ``delay_ms`` makes the server wait before writing the output (without blocking other
    sessions); ``exit_status`` is reported to exec-mode clients (``ssh host cmd``).
    """

    text: str = ""
    delay_ms: int = 0
    exit_status: int = 0


#: Fault names handled by :class:`DeviceState` itself (canonical spelling) and their parameters.
TRANSPORT_FAULTS: dict[str, tuple[str, ...]] = {
    "refuse": (),  # TCP reset at accept, before the SSH banner
    "slow": ("ms",),  # delay before every response (prompt, command output, exec result)
    "auth_reject": (),  # every authentication attempt fails
    # answer `after` more command lines, then reset on the next one; or (`on`) reset on the first command line
    # that starts with `on`, whatever came before (a fixed point in a sequence whose length may vary)
    "drop": ("after", "on"),
}
_ALIASES = {"slow_ms": "slow", "drop_after": "drop", "refused": "refuse", "reject_auth": "auth_reject"}
_PARAM_ALIASES = {"slow_ms": "ms", "drop_after": "after"}


FACTS_FAULT = "facts"  # a switch reporting other facts than the fabric's: params hwsku, version
FACTS_PARAMS = frozenset({"hwsku", "version"})


def reported_fact(state: DeviceState, key: str, default: str) -> str:
    """What a switch reports as its ``hwsku`` or ``version``: the ``facts`` fault's value, else ``default``."""
    value = state.faults.extra.get(FACTS_FAULT, {}).get(key)
    return default if value is None else str(value)


def lab_release(fabric: object, default: str, suffix: str) -> str:
    """The release a lab switch runs: its default when that is the fabric's release (``4.32`` -> ``4.32.2F``),
    else the fabric's release plus ``suffix`` (``4.30`` -> ``4.30`` + ``.0F``); no fabric release: the default."""
    wanted = str(fabric or "")
    if not wanted or default.startswith(wanted + ".") or default == wanted:
        return default
    return wanted if wanted.count(".") >= 2 else wanted + suffix


def canonical_fault_name(name: str) -> str:
    """``Auth-Reject`` -> ``auth_reject``; also maps the field-style aliases (``slow_ms``)."""
    key = name.strip().lower().replace("-", "_")
    return _ALIASES.get(key, key)


@dataclass(slots=True)
class Faults:
    """Faults currently injected on one device. Mutable while the lab runs.

    The transport fields are enforced by the SSH server; ``extra`` holds personality-level
    faults (name -> parameters) that personalities read in their sessions.
    """

    refuse: bool = False
    slow_ms: int = 0
    auth_reject: bool = False
    drop_after: int | None = None
    drop_on: str | None = None
    extra: dict[str, dict[str, Any]] = field(default_factory=dict)

    def active(self) -> dict[str, Any]:
        """Non-default faults only, JSON-friendly (used by the control channel's ``status``)."""
        out: dict[str, Any] = {}
        if self.refuse:
            out["refuse"] = {}
        if self.slow_ms:
            out["slow"] = {"ms": self.slow_ms}
        if self.auth_reject:
            out["auth_reject"] = {}
        if self.drop_after is not None:
            out["drop"] = {"after": self.drop_after}
        if self.drop_on is not None:
            out["drop"] = {"on": self.drop_on}
        out.update({k: dict(v) for k, v in self.extra.items()})
        return out


def _int_param(fault: str, params: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = params.get(key, default)
    if value is None:
        raise LabError(f"fault '{fault}' needs parameter '{key}'")
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise LabError(f"fault '{fault}': parameter '{key}' must be an integer >= 0")
    try:
        number = int(value)
    except ValueError:
        raise LabError(f"fault '{fault}': parameter '{key}' must be an integer >= 0") from None
    if number < 0:
        raise LabError(f"fault '{fault}': parameter '{key}' must be an integer >= 0")
    return number


class DeviceState:
    """Per-device state, shared by every session to that device. Personalities subclass it.

    The constructor signature ``(name, platform, extra)`` is the *state factory* contract:
    ``extra`` is the personality's initial data from ``LabDeviceSpec.extra``.

    Personality-level faults: list their names (lower snake_case; ``-`` in requests is read as
    ``_``) in ``PERSONALITY_FAULTS``; the default
    :meth:`apply_fault` stores their params in ``self.faults.extra[name]``. Override
    :meth:`apply_fault` (and call ``super()``) to validate params or react immediately.
    """

    PERSONALITY_FAULTS: ClassVar[frozenset[str]] = frozenset()
    #: each personality fault's parameters (``lab inject --help`` lists them from here: fault_catalogue)
    FAULT_PARAMS: ClassVar[Mapping[str, frozenset[str]]] = {}

    @classmethod
    def fault_catalogue(cls) -> dict[str, tuple[str, ...]]:
        """Every fault this device takes, with its parameters: the transport's and the personality's."""
        faults = {name: tuple(params) for name, params in TRANSPORT_FAULTS.items()}
        faults.update({name: tuple(sorted(cls.FAULT_PARAMS.get(name, ()))) for name in sorted(cls.PERSONALITY_FAULTS)})
        return faults

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.platform = platform
        self.extra: dict[str, Any] = dict(extra or {})
        self.faults = Faults()

    def known_faults(self) -> list[str]:
        return [*TRANSPORT_FAULTS, *sorted(self.PERSONALITY_FAULTS)]

    def apply_fault(self, name: str, **params: Any) -> None:
        """Inject fault ``name``; raise :class:`UnknownFault`/:class:`LabError` on bad input."""
        fault = canonical_fault_name(name)
        if fault in TRANSPORT_FAULTS:
            params = {_PARAM_ALIASES.get(k, k): v for k, v in params.items()}
            bad = sorted(set(params) - set(TRANSPORT_FAULTS[fault]))
            if bad:
                expected = ", ".join(TRANSPORT_FAULTS[fault]) or "no parameters"
                raise LabError(f"fault '{fault}' takes {expected} (got: {', '.join(bad)})")
        if fault == "refuse":
            self.faults.refuse = True
        elif fault == "slow":
            self.faults.slow_ms = _int_param(fault, params, "ms")
        elif fault == "auth_reject":
            self.faults.auth_reject = True
        elif fault == "drop" and "on" in params:
            if "after" in params or not str(params["on"]).strip():
                raise LabError("fault 'drop' takes either after= (a number of lines) or on= (a command's start)")
            self.faults.drop_on, self.faults.drop_after = str(params["on"]).strip(), None
        elif fault == "drop":
            self.faults.drop_after, self.faults.drop_on = _int_param(fault, params, "after", default=0), None
        elif fault in self.PERSONALITY_FAULTS:
            self.faults.extra[fault] = dict(params)
        else:
            raise UnknownFault(
                f"unknown fault '{name}' for device {self.name} (platform {self.platform}); "
                f"known: {', '.join(self.known_faults())}"
            )

    def clear_faults(self) -> None:
        """Remove every fault (override to also reset personality state tied to faults)."""
        self.faults = Faults()

    def consume_command(self, line: str = "") -> bool:
        """Count one command line against ``drop``; True means: drop the connection now."""
        if self.faults.drop_on is not None:
            if not line.lstrip().startswith(self.faults.drop_on):
                return False
            self.faults.drop_on = None  # one-shot, as `after`
            return True
        remaining = self.faults.drop_after
        if remaining is None:
            return False
        if remaining <= 0:
            self.faults.drop_after = None  # one-shot: the device "came back"
            return True
        self.faults.drop_after = remaining - 1
        return False


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What the server knows about an SSH session when it creates the :class:`Session`."""

    username: str
    pty: bool  # a PTY was requested (Netmiko always does); echo + prompts are on
    term_type: str | None = None
    peer: tuple[str, int] | None = None
    exec_command: str | None = None  # set for ``ssh host cmd`` requests


class Session:
    """One SSH shell or exec request on a device. Personalities subclass it.

    The constructor signature ``(state, info)`` is the *session factory* contract.
    """

    def __init__(self, state: DeviceState, info: SessionInfo) -> None:
        self.state = state
        self.info = info

    def banner(self) -> str:
        """Text written once before the first prompt of an interactive shell (MOTD)."""
        return ""

    def prompt(self) -> str:
        """The current prompt, including its trailing space if the platform prints one."""
        raise NotImplementedError

    def handle(self, line: str) -> str | Reply:
        """Output for one command line (without its line terminator). Sync and fast.

        Empty lines are passed too (personalities usually return ``""``). Raise
        :class:`CloseSession` to end the session.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Called once when the session ends, however it ends."""


StateFactory = Callable[[str, str, Mapping[str, Any]], DeviceState]
SessionFactory = Callable[[DeviceState, SessionInfo], Session]


# (state, gNMI target, path elements) -> the path's JSON value; raises LookupError for a path it does not serve
GnmiAnswer = Callable[[DeviceState, str, list[str]], Any]
# (state, target, subscription path with its keys, e.g. "a/b[k=*]/c") -> [(leaf path as (name, keys) pairs, value)]
GnmiLeaves = Callable[[DeviceState, str, str], list[tuple[list[tuple[str, dict[str, str]]], Any]]]


@dataclass(frozen=True, slots=True)
class Personality:
    """A simulated device: its package's ``DEVICE`` (one state per device, one session per SSH channel), and
    ``gnmi`` (one JSON value per subscription path) or ``gnmi_leaves`` (one update per leaf) where the device also
    serves gNMI (:mod:`roceops.lab.gnmi_server`)."""

    state_factory: StateFactory
    session_factory: SessionFactory
    gnmi: GnmiAnswer | None = None
    gnmi_leaves: GnmiLeaves | None = None  # OpenConfig-style gNMI: one update per leaf (roceops.lab.oc_gnmi)


LAB_ONLY_DEVICES = {"echo": "roceops.lab.devices.echo"}  # lab transport tests; not a platform
_loaded: dict[str, Personality] = {}


_named: dict[str, str] = {}  # platform -> device module, named by the process that started the lab


def use_device_modules(modules: Mapping[str, str]) -> None:
    """Take each platform's device module as the starting process resolved it (:func:`device_module`), so the
    lab process never loads the platform registry (which imports every platform room: ~27 MiB, ~0.3 CPU s)."""
    _named.update(modules)


def device_module(platform: str) -> str:
    """The simulated device's module of ``platform`` (LabError for a platform without one)."""
    module = _device_module(platform)
    if module is None:
        known = ", ".join(available_platforms()) or "none"
        raise LabError(f"no lab personality for platform '{platform}' (available: {known})")
    return module


def _device_module(platform: str) -> str | None:
    """The simulated device's module: the platform registry names it (``Platform.lab_device``)."""
    if platform in LAB_ONLY_DEVICES:
        return LAB_ONLY_DEVICES[platform]
    if platform in _named:
        return _named[platform]
    from roceops import registry

    return registry.get(platform).lab_device if registry.kind_of(platform) else None


def get_personality(platform: str) -> Personality:
    """The simulated device of ``platform``, imported on first use."""
    found = _loaded.get(platform)
    if found is not None:
        return found
    module = device_module(platform)
    device = importlib.import_module(module).DEVICE
    if not isinstance(device, Personality):
        raise LabError(f"{module}.DEVICE is not a roceops.lab.personality.Personality")
    _loaded[platform] = device
    return device


def available_platforms() -> list[str]:
    """Every platform with a simulated device (the registry's), plus the lab-only ones."""
    from roceops import registry

    return sorted({*registry.names(), *LAB_ONLY_DEVICES})
