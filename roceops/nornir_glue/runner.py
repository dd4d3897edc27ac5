"""Run roceops work on Nornir: a Nornir object for a device subset, a connector, progress as a Processor."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nornir.core import Nornir
from nornir.core.configuration import Config
from nornir.core.inventory import Host
from nornir.core.task import AggregatedResult, MultiResult, Task
from nornir.plugins.runners import ThreadedRunner

from roceops.nornir_glue.inventory import Login, NotInLab, build_inventory, is_loopback
from roceops.platforms.base import get_platform
from roceops.platforms.channel import read_timeout
from roceops.platforms.login import open_netmiko_session, open_session
from roceops.topology.fabric import Fabric

CONNECTION = "netmiko"
QUICK_LOGIN_TIMEOUT_S = 20.0  # for the prompt after login, unless the run sets read_timeout_override


def make_nornir(fabric: Fabric, names: list[str], *, lab_dir: Path | None, workers: int,
                timeout_s: float | None = None, login: Login | None = None) -> Nornir:
    """A Nornir over exactly ``names`` (fabric order), with per-command timeouts applied to every host.

    ``login`` (see ``build_inventory``): None, ``host.get_connection`` connects as Netmiko does; "netmiko"
    (deploy) or "quick" (read-only runs, :func:`roceops.platforms.login.open_session`): connections are
    opened by :func:`connect_host`.
    """
    inventory = build_inventory(fabric, None, lab_dir, only=set(names), login=login)
    if timeout_s is not None:
        for host in inventory.hosts.values():
            extras = host.connection_options["netmiko"].extras
            assert extras is not None
            extras.setdefault("conn_timeout", min(timeout_s, 10))
            extras.setdefault("auth_timeout", timeout_s)
            extras.setdefault("banner_timeout", timeout_s)
            extras["read_timeout_override"] = timeout_s
    return Nornir(inventory=inventory, config=Config(), runner=ThreadedRunner(num_workers=max(1, workers)))


def connect_host(host: Host, config: Config, on_open: Callable[[Any], None] | None = None) -> Any:
    """The host's Netmiko connection, opened if need be. Hosts from ``build_inventory(login=...)`` are made
    without connecting; they are connected here, with roceops' quick session preparation ("quick") or
    Netmiko's own ("netmiko"), reading key files and known_hosts once per process."""
    if host.data.get("roceops_lab") and not is_loopback(str(host.hostname)):  # last guard: --lab is loopback only
        raise NotInLab(f"{host.name}: a --lab run refuses to connect to {host.hostname!r} (outside 127.0.0.0/8)")
    conn = host.get_connection(CONNECTION, config)
    if getattr(conn, "remote_conn", None) is None:  # made with auto_connect=False
        if on_open is not None:  # e.g. a deploy's device deadline, before the login starts
            on_open(conn)
        if host.data.get("roceops_login") == "quick":
            platform = get_platform(host.data["roceops_platform"])
            open_session(conn, platform.netmiko, read_timeout(conn, QUICK_LOGIN_TIMEOUT_S))
        else:
            open_netmiko_session(conn)
    return conn


class TaskConnector:
    """Connector over a Nornir host's netmiko connection (open lazily; reopen after a dropped session)."""

    def __init__(self, task: Task, on_open: Callable[[Any], None] | None = None) -> None:
        self.task = task
        self.on_open = on_open  # called with each connection before it logs in (a device clock's attach)

    def connect(self) -> Any:
        return connect_host(self.task.host, self.task.nornir.config, self.on_open)

    def reconnect(self) -> Any:
        self.close()
        return self.connect()

    def close(self, logout: bool = True) -> None:
        """Close the session if one is open. Each device's task closes its own as soon as it is done: an idle
        Paramiko transport wakes ten times a second, so a thousand left open slow the whole run down.

        ``logout=False`` is for read-only runs (audit, health): the SSH channel is closed without Netmiko's
        logout dialogue (ask whether the shell is in config mode, leave it, type ``exit``: one more polled
        round trip per device). Nothing was changed, so there is nothing to leave; the device ends the
        session when the channel closes, as it does for any dropped client.
        """
        host: Host = self.task.host
        if CONNECTION not in host.connections:
            return
        if not logout:
            skip_logout(host.connections[CONNECTION].connection)
        try:
            host.close_connection(CONNECTION)
        except Exception:  # already dead
            host.connections.pop(CONNECTION, None)


def _no_logout(*args: Any, **kwargs: Any) -> None:
    return None


def skip_logout(conn: Any) -> None:
    """Make this Netmiko connection's ``disconnect`` close the channel without its ``cleanup`` (the logout
    dialogue); the rest of ``disconnect`` (closing Paramiko, the session log, Netmiko's secrets filter) runs."""
    if conn is not None and hasattr(conn, "cleanup"):
        conn.cleanup = _no_logout


class Progress:
    """Nornir Processor reporting each finished host: a rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, label: str, total: int, line: Callable[[str, Any], str], quiet: bool = False) -> None:
        self.label, self.total, self.line, self.quiet = label, total, line, quiet
        self.done = 0
        self._lock = threading.Lock()
        self._bar: Any = None
        self._task_id: Any = None
        if not quiet and sys.stderr.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), transient=True)
            self._task_id = self._bar.add_task(label, total=total)

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    # Nornir Processor interface
    def task_started(self, task: Task) -> None: ...

    def task_completed(self, task: Task, result: AggregatedResult) -> None: ...

    def task_instance_started(self, task: Task, host: Host) -> None: ...

    def subtask_instance_started(self, task: Task, host: Host) -> None: ...

    def subtask_instance_completed(self, task: Task, host: Host, result: MultiResult) -> None: ...

    def task_instance_completed(self, task: Task, host: Host, result: MultiResult) -> None:
        self.advance(host.name, result[0].result if result else None)

    def advance(self, name: str, value: Any) -> None:
        """One more device done (``value`` is what ``line`` describes); callable from any thread."""
        with self._lock:
            self.done += 1
            done = self.done
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.update(self._task_id, advance=1)
        else:
            sys.stderr.write(f"[{done}/{self.total}] {self.line(name, value)}\n")
            sys.stderr.flush()
