"""The EOS device's state: running-config and startup-config trees, configuration sessions with commit
timers and the physical ports. The bottom layer of the simulated switch: show, counters, routing and the CLI
build on it."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from roceops.lab.devices.eos.tree import EOS_VERSION, Node, factory_config, hostname_of, running_config_text
from roceops.lab.personality import DeviceState, lab_release
from roceops.lab.physical import Physical
from roceops.util.sorting import natural_key


@dataclass(eq=False)
class ConfigSession:
    name: str
    config: Node | None  # the session's candidate config while pending
    user: str
    terminal: str
    state: str = "pending"  # pending | pendingCommitTimer | completed
    rollback: Node | None = None  # running-config before a timed commit
    deadline: float | None = None


class EosStateCore(DeviceState):
    """One simulated EOS switch's configuration and ports, shared by all its SSH sessions."""

    def __init__(self, name: str, platform: str, extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, platform, extra)
        self.extra.pop("preload_files", None)  # applied by the device layer; not kept in memory
        ports = [dict(p) for p in self.extra.get("ports") or []]
        hwsku = self.extra.get("hwsku")
        # show version modelName: the fabric's hwsku when it names one
        self.model = str(hwsku if hwsku and hwsku != "generic" else self.extra.get("model") or "DCS-7060DX5-64S")
        self.release = lab_release(self.extra.get("nos_version"), EOS_VERSION, ".0F")
        self.physical = Physical(name, ports, self.extra.get("lossless") or (3,))
        self.port_names = frozenset(p["name"] for p in ports)
        self.ports_sorted = sorted(self.port_names, key=natural_key)
        self.running: Node = factory_config(self.ports_sorted, str(self.extra.get("hostname") or name),
                                            self.extra.get("mgmt_ip"))
        self.startup: Node | None = None  # rendered on demand (``show startup-config``)
        self.sessions: dict[str, ConfigSession] = {}
        self.next_deadline: float | None = None  # earliest pending commit timer
        self.completed: ConfigSession | None = None
        self.clock = time.monotonic
        self.booted = time.time()
        self.terminals = 0
        self.auto_sessions = 0

    # ---- configuration

    @property
    def hostname(self) -> str:
        return hostname_of(self.running)

    def running_text(self, command: str = "show running-config") -> str:
        return running_config_text(self.running, self.hostname, self.model, command)

    def clean_config(self) -> Node:
        return factory_config(self.ports_sorted)

    def tick(self) -> None:
        """Revert every timed commit whose timer ran out (called before each command)."""
        if self.next_deadline is None or self.clock() < self.next_deadline:
            return
        now = self.clock()
        for sess in sorted(self.sessions.values(), key=lambda s: s.deadline or 0.0, reverse=True):
            if sess.state == "pendingCommitTimer" and sess.deadline is not None and sess.deadline <= now:
                assert sess.rollback is not None
                self.running = sess.rollback
                del self.sessions[sess.name]
        self._reschedule()

    def _reschedule(self) -> None:
        deadlines = [s.deadline for s in self.sessions.values() if s.deadline is not None]
        self.next_deadline = min(deadlines) if deadlines else None

    def commit(self, sess: ConfigSession, timer_s: int | None) -> None:
        assert sess.config is not None
        before, self.running, sess.config = self.running, sess.config, None
        if timer_s:
            sess.state, sess.rollback, sess.deadline = "pendingCommitTimer", before, self.clock() + timer_s
            self._reschedule()
        else:
            self._complete(sess)

    def confirm(self, sess: ConfigSession) -> None:
        self._complete(sess)

    def abort(self, sess: ConfigSession) -> None:
        if sess.state == "pendingCommitTimer" and sess.rollback is not None:
            self.running = sess.rollback
        self.sessions.pop(sess.name, None)
        self._reschedule()

    def _complete(self, sess: ConfigSession) -> None:
        sess.state, sess.rollback, sess.deadline, sess.config = "completed", None, None, None
        self.sessions.pop(sess.name, None)
        self.completed = sess
        self._reschedule()

    def save(self) -> None:
        self.startup = self.running  # shared until running-config is edited in place (see own_running)

    def own_running(self) -> Node:
        """running-config for an in-place edit (configure terminal): stop sharing it with startup-config first.

        Commits replace the tree instead of editing it, so only this path needs the copy.
        """
        if self.startup is self.running:
            self.running = self.running.copy()
        return self.running

    def _interface(self, port: str) -> Node:
        node = self.running.children.get(f"interface {port}")
        assert isinstance(node, Node)
        return node

    def _no_drop(self, port: str) -> list[int]:
        return sorted(int(k.split()[-1]) for k in self._interface(port).children
                      if k.startswith("priority-flow-control priority ")
                      and str(self._interface(port).children[k]).endswith("no-drop"))


class CliView(Protocol):
    """What the show layer reads from a CLI session (implemented by the dispatcher's EosCli)."""

    @property
    def state(self) -> EosStateCore: ...

    @property
    def target(self) -> str | None: ...

    def invalid(self, raw: str, token: int) -> str: ...
