"""Stopping and bounding a run: Ctrl-C/SIGTERM, the run's ``--deadline`` and each device's deadline.

A stop request (a signal) or the run deadline stops new work at once: a device that has not started is
``not_started``, one that has taken its backup but sent nothing yet is ``interrupted``; a device inside its
transaction finishes it or rolls back. Each device's whole deploy (login, backup, transaction, verify,
confirm) runs under its own deadline, :class:`DeviceClock`, which every read on its connection honours
(:func:`roceops.platforms.channel.read_timeout`).
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from roceops.platforms.channel import DEADLINE_ATTR, DeadlineExceeded

ROLLBACK_GRACE_S = 30.0  # past its deadline, a device without a commit timer gets this long to roll back
MIN_ANSWER_S = 0.5  # Netmiko's read timeout is never set below this (it would not even read a prompt)
WATCH_PERIOD_S = 0.1  # how often the watchdog looks for devices past their deadline


class RunControl:
    """What every device of a run checks before it starts: a stop request or a run deadline that passed."""

    def __init__(self, deadline_s: float | None = None) -> None:
        self.run_deadline = time.monotonic() + deadline_s if deadline_s else None
        self.signal: int | None = None
        self._stop = threading.Event()
        self._clocks: set[DeviceClock] = set()
        self._lock = threading.Lock()
        self._watchdog: threading.Thread | None = None

    def request_stop(self, signum: int) -> None:
        """Stop starting devices; the first signal is the one the run exits with (128 + it)."""
        if self.signal is None:
            self.signal = signum
        self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def refusal(self) -> str | None:
        """Why a device must not start now, or None."""
        if self.stopped:
            return f"not started: the run was interrupted ({signal.Signals(self.signal or 2).name})"
        if self.run_deadline is not None and time.monotonic() >= self.run_deadline:
            return "not started: the run's --deadline passed"
        return None

    def clock(self, timeout_s: float) -> DeviceClock:
        """A device's clock: ``timeout_s`` from now, never past the run deadline."""
        at = time.monotonic() + timeout_s
        if self.run_deadline is not None:
            at = min(at, self.run_deadline)
        clock = DeviceClock(at, self, answer_s=timeout_s)
        with self._lock:
            self._clocks.add(clock)
            if self._watchdog is None:
                self._watchdog = threading.Thread(target=self._watch, name="roceops-deadlines", daemon=True)
                self._watchdog.start()
        return clock

    def release(self, clock: DeviceClock) -> None:
        with self._lock:
            self._clocks.discard(clock)

    def _watch(self) -> None:
        """Cut the sessions of devices past their deadline (see :meth:`DeviceClock.cut`); ends when no device
        is being worked on (the next clock starts it again)."""
        while True:
            time.sleep(WATCH_PERIOD_S)
            with self._lock:
                if not self._clocks:
                    self._watchdog = None
                    return
                due = [c for c in self._clocks if c.due()]
            for clock in due:
                clock.cut()


class DeviceClock:
    """One device's deadline, set on each connection it opens (and refreshed on Netmiko's own read timeout)."""

    def __init__(self, at: float, control: RunControl | None = None, answer_s: float = 60.0) -> None:
        self.at = at
        self.answer_s = answer_s  # the longest any one answer may take (the run's --timeout)
        self.control = control
        self.in_grace = False  # the deadline passed and the device is being rolled back
        self.restores_itself = False  # a change is out under a commit timer that ends by ``at``
        self.in_transaction = False
        self.was_cut = False
        self._conns: list[Any] = []

    def remaining(self) -> float:
        return self.at - time.monotonic()

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    @property
    def stop_requested(self) -> bool:
        return self.control is not None and self.control.stopped

    def attach(self, conn: Any) -> None:
        """Bound every read on ``conn`` by this deadline: roceops' reads through ``roceops_deadline``,
        Netmiko's (login, session preparation, enable) through its ``read_timeout_override`` and
        connection timeouts."""
        setattr(conn, DEADLINE_ATTR, self.at)
        left = max(self.remaining(), MIN_ANSWER_S)
        conn.read_timeout_override = min(self.answer_s, left)
        for name in ("conn_timeout", "auth_timeout", "banner_timeout"):
            value = getattr(conn, name, None)
            if isinstance(value, int | float) and value > left:
                setattr(conn, name, left)
        if conn not in self._conns:
            self._conns.append(conn)

    def refresh(self) -> None:
        """Shorten Netmiko's read timeout of every open connection to the time left."""
        for conn in self._conns:
            self.attach(conn)

    def due(self) -> bool:
        """Past the deadline, and cutting the session cannot leave the device half-changed: before the
        transaction, under a commit timer, or at the end of the rollback grace. (Inside a transaction without
        a timer, roceops' own reads end at the deadline and the backup is restored in the grace period.)"""
        cuttable = not self.in_transaction or self.restores_itself or self.in_grace
        return not self.was_cut and cuttable and self.expired

    def cut(self) -> None:
        """End every session of this device now: Netmiko's own read loops (login, session preparation) do not
        notice a closed channel, so its ``read_channel`` raises from now on, and the transport is closed."""
        self.was_cut = True
        for conn in self._conns:
            conn.read_channel = _dead_channel
            conn.write_channel = _dead_channel
            remote: Any = getattr(conn, "remote_conn", None)
            transport = remote.get_transport() if hasattr(remote, "get_transport") else None
            for closable in (transport, getattr(conn, "sock", None)):
                try:
                    if closable is not None:
                        closable.close()
                except Exception:  # already closed
                    pass

    def extend_for_rollback(self) -> None:
        """The deadline passed inside a transaction on a platform without a commit timer: a bounded grace to
        restore the backup (``ROLLBACK_GRACE_S``)."""
        self.at = time.monotonic() + ROLLBACK_GRACE_S
        self.in_grace = True
        self.refresh()


@contextmanager
def stop_on_signals(control: RunControl) -> Iterator[None]:
    """Turn SIGINT and SIGTERM into a stop request of ``control`` while the block runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        first = not control.stopped
        control.request_stop(signum)
        if first:
            sys.stderr.write(f"\n{signal.Signals(signum).name}: starting no new device; devices in flight finish "
                             "or roll back in their transaction\n")
        else:  # a second Ctrl-C does not abandon devices mid-transaction
            sys.stderr.write("already stopping: waiting for the devices in flight to finish or roll back\n")
        sys.stderr.flush()

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


def _dead_channel(*args: Any, **kwargs: Any) -> str:
    raise DeadlineExceeded("the device's deadline passed: its session was closed")


def signal_exit_code(signum: int | None) -> int | None:
    """The shell's convention: 128 + the signal number (130 for SIGINT, 143 for SIGTERM)."""
    return 128 + signum if signum else None
