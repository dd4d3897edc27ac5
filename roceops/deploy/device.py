"""One device's deploy or restore: backup -> diff -> transaction -> verify -> confirm, or roll back.

No Nornir and no config building here: the caller passes the rendered files, the intent
and a ``Connector``; the platform ``Driver`` does the talking. Every outcome leaves the
device either at its new intended state (confirmed and read back) or exactly at its
backup (read back and compared), and says which. Under a ``DeviceClock`` the whole of it is
bounded: past the deadline the outcome is ``timeout`` (see :func:`run_transaction`); a stop
request seen before the first change leaves the device ``interrupted``, untouched.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from roceops.deploy.control import DeviceClock
from roceops.deploy.paths import choose_path, needs_bringup, with_stale_modes
from roceops.device.change import BackupRefused, Change, DeviceFacts, DriverError, RenderedDevice, Snapshot
from roceops.device.compare import Drift
from roceops.device.facts import mismatches
from roceops.device.intent import Intent, SwitchIntent
from roceops.platforms.driver import Driver
from roceops.platforms.login import AUTH_FAILED, is_auth_failure
from roceops.redact import reason
from roceops.util.picklable import PicklableError

Status = Literal["unchanged", "would_change", "changed", "rolled_back", "failed", "unreachable", "not_touched",
                 "timeout", "interrupted", "not_started", "facts_mismatch", "backup_refused", "needs_bringup"]


class Connector(Protocol):
    def connect(self) -> Any: ...

    def reconnect(self) -> Any: ...


class VerifyFailed(PicklableError, DriverError):
    def __init__(self, drift: list[Drift]) -> None:
        first = "; ".join(f"{d.path}: expected {d.expected!r}, observed {d.observed!r}" for d in drift[:3])
        more = f" (+{len(drift) - 3} more)" if len(drift) > 3 else ""
        super().__init__(f"read-back differs from intent: {first}{more}")
        self.drift = drift


@dataclass
class DeviceOutcome:
    device: str
    platform: str
    status: Status = "not_touched"
    backup: Snapshot | None = None
    diff: str = ""
    summary: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    reboot_required: bool = False  # the change includes settings that take effect at the next boot (firmware)
    path: str | None = None  # "day2" / "bringup" where the platform knows its change engine's rules
    path_reasons: tuple[str, ...] = ()  # why bring-up: refused operations, restart-only modes
    mode_findings: tuple[str, ...] = ()  # facts.mode: modes the config asks that the device does not run


def _error(exc: BaseException) -> str:
    if is_auth_failure(exc):
        return AUTH_FAILED
    return f"{type(exc).__name__}: {reason(exc)}"[:400]


def verify_intent(driver: Driver, intent: Intent, rendered: RenderedDevice | None = None) -> Callable[[Any], None]:
    """Read the device back and compare with intent; parts the deploy of ``rendered`` does not set (the
    driver's ``unverified``) are left out."""
    skip = set(driver.unverified(rendered)) if rendered is not None else set()

    def check(conn: Any) -> None:
        drift = driver.verify(conn, intent, skip)
        if drift:
            raise VerifyFailed(drift)
    return check


def verify_snapshot(driver: Driver, target: Snapshot) -> Callable[[Any], None]:
    def check(conn: Any) -> None:
        now = driver.read_config(conn)
        if now.text.strip() != target.text.strip():
            raise DriverError("read-back after restore differs from the backup")
    return check


def _restore(driver: Driver, connector: Connector, conn: Any, txn: str, backup: Snapshot) -> Any:
    """Abort the open transaction (reconnecting if the session died) and prove the device is at ``backup``."""
    try:
        driver.abort(conn, txn, backup)
    except Exception:  # the session may be gone (dropped mid-push): try once more on a fresh one
        conn = connector.reconnect()
        driver.abort(conn, txn, backup)
    verify_snapshot(driver, backup)(conn)
    return conn


def run_transaction(driver: Driver, connector: Connector, outcome: DeviceOutcome, conn: Any, change: Change,
                    txn: str, confirm_timeout_s: int, verify: Callable[[Any], None],
                    clock: DeviceClock | None = None, apply: Callable[..., None] | None = None) -> None:
    """Apply ``change`` inside the platform transaction, verify, confirm; on any failure restore the backup.

    Past the device's deadline (``clock``) the outcome is ``timeout``: on a platform with a commit timer
    (set to end by the deadline) the unconfirmed change reverts by itself; otherwise the backup is restored
    within ``ROLLBACK_GRACE_S``.
    """
    assert outcome.backup is not None
    timer = driver.commit_timer
    if clock is not None:
        clock.in_transaction, clock.restores_itself = True, timer
        if timer:  # the device reverts by itself no later than our deadline
            confirm_timeout_s = max(1, min(confirm_timeout_s, int(clock.remaining())))
    confirming = False
    try:
        (apply or driver.apply)(conn, change, txn, confirm_timeout_s)
        verify(conn)
        confirming = True
        driver.confirm(conn, txn)
        outcome.status = "changed"
    except BackupRefused as exc:  # the platform refused its checkpoint before the change was sent: nothing to undo
        outcome.status, outcome.error = "backup_refused", f"{_error(exc)}; nothing was applied"
    except Exception as exc:
        outcome.error = _error(exc)
        if clock is not None and clock.expired and timer:
            outcome.status, outcome.error = "timeout", _left_to_timer(outcome.error, confirm_timeout_s, confirming)
            return
        if clock is not None and clock.expired:
            clock.extend_for_rollback()
        _roll_back(driver, connector, outcome, conn, txn, clock)


def _left_to_timer(error: str, timer_s: int, confirming: bool) -> str:
    if confirming:  # the confirm may or may not have reached the device
        return (f"deadline passed while confirming ({error}): the change is either confirmed or reverted by the "
                f"device's {timer_s} s commit timer; audit the device (its backup is in the journal)")
    return (f"deadline passed in the transaction ({error}); not confirmed: a change left pending reverts by the "
            f"device's commit timer ({timer_s} s), one not yet committed never went live")


def _roll_back(driver: Driver, connector: Connector, outcome: DeviceOutcome, conn: Any, txn: str,
               clock: DeviceClock | None) -> None:
    """Restore the backup after a failed transaction: ``rolled_back``, ``timeout`` when the deadline caused
    it, ``failed`` when even the restore failed."""
    assert outcome.backup is not None
    try:
        _restore(driver, connector, conn, txn, outcome.backup)
    except Exception as rollback_exc:
        outcome.status = "failed"
        outcome.error = f"{outcome.error}; ROLLBACK FAILED, device may be half-configured: {_error(rollback_exc)}"
        return
    if clock is not None and clock.in_grace:
        outcome.status = "timeout"
        outcome.error = f"deadline passed in the transaction ({outcome.error}); rolled back to the backup"
    else:
        outcome.status = "rolled_back"


def _mode_problems(driver: Driver, conn: Any, intent: Intent, current: Snapshot | None = None) -> tuple[str, ...]:
    """Modes the device's config asks that it does not run (a room's ``read_mode_problems``; () without one)."""
    return tuple(driver.read_mode_problems(conn, intent, current))


def _check_modes(driver: Driver, conn: Any, intent: Intent, outcome: DeviceOutcome) -> None:
    """After either path: the modes the device runs, as ``facts.mode`` findings; never fatal to the run."""
    try:
        outcome.mode_findings = _mode_problems(driver, conn, intent)
    except Exception as exc:  # the change is done and confirmed; say what could not be read
        outcome.mode_findings = (f"modes in effect could not be read: {_error(exc)}",)


def _bringup_apply(driver: Driver, backup: Snapshot) -> Callable[..., None]:
    """The platform's bring-up in place of ``apply`` (full config from ``backup`` + the change, then reload)."""
    def apply(conn: Any, change: Change, txn: str, confirm_timeout_s: int) -> None:
        driver.bringup(conn, backup, change, txn)  # type: ignore[attr-defined]  # rooms with a route() have it
    return apply


def deploy_device(driver: Driver, connector: Connector, rendered: RenderedDevice, intent: Intent, *,
                  commit: bool, txn: str, confirm_timeout_s: int = 300, clock: DeviceClock | None = None,
                  before_apply: Callable[[DeviceOutcome], None] | None = None, bringup: bool = False) -> DeviceOutcome:
    """``before_apply`` runs once the backup is taken and before the first change is sent (the journal's
    write-ahead record); a stop request seen before that point leaves the device ``interrupted``, untouched.

    A change the platform's in-place engine would refuse (:mod:`roceops.deploy.paths`) is committed through its
    bring-up path only with ``bringup``; otherwise the device stops as ``needs_bringup`` with nothing sent."""
    outcome = DeviceOutcome(device=rendered.name, platform=rendered.platform)
    start = time.monotonic()
    try:
        try:
            conn = connector.connect()
            outcome.backup = driver.read_config(conn)
            facts = read_device_facts(driver, conn, outcome.backup, intent)
            problems = mismatches(facts, intent) if facts is not None and isinstance(intent, SwitchIntent) else []
            modes = driver.nic_mode_problems(conn, intent)
        except Exception as exc:
            timed_out = clock is not None and clock.expired
            outcome.status, outcome.error = ("timeout" if timed_out else "unreachable"), _error(exc)
            return outcome
        if problems:  # another device than the fabric describes: nothing is planned or sent
            outcome.status, outcome.error = "facts_mismatch", "facts.mismatch: " + "; ".join(problems)
            return outcome
        if modes:  # a BlueField in DPU mode: what would be sent would not take effect, so nothing is sent
            outcome.status, outcome.error = "facts_mismatch", "nic.mode: " + "; ".join(modes)
            return outcome
        change = driver.diff(outcome.backup, rendered, intent)
        outcome.diff, outcome.summary = change.diff, dict(change.summary)
        outcome.reboot_required = bool(change.summary.get("reboot_required"))
        try:  # modes a restart must bring, whatever the diff (unreadable: judged after the push)
            stale = _mode_problems(driver, conn, intent, outcome.backup)
        except Exception:
            stale = ()
        if change.empty and not stale:
            outcome.status = "unchanged"
            return outcome
        path = with_stale_modes(choose_path(driver, outcome.backup, change, intent, facts), stale)
        if path is not None:
            outcome.path, outcome.path_reasons = path.path, path.reasons
        if clock is not None:
            clock.refresh()
        if not commit:
            outcome.status = "would_change"
            return outcome
        if path is not None and path.path == "bringup" and not bringup:
            outcome.status, outcome.error = "needs_bringup", needs_bringup(path)
            return outcome
        if clock is not None and (clock.stop_requested or clock.expired):
            outcome.status = "interrupted" if clock.stop_requested else "timeout"
            outcome.error = "stopped before any change was sent; the device is at its backup"
            return outcome
        if before_apply is not None:
            before_apply(outcome)
        run_transaction(driver, connector, outcome, conn, change, txn, confirm_timeout_s,
                        verify_intent(driver, intent, rendered), clock,
                        apply=_bringup_apply(driver, outcome.backup) if outcome.path == "bringup" else None)
        if outcome.status == "changed":
            _check_modes(driver, conn, intent, outcome)
        return outcome
    finally:
        outcome.seconds = round(time.monotonic() - start, 3)


def restore_device(driver: Driver, connector: Connector, device: str, platform: str, backup: Snapshot, *,
                   commit: bool, txn: str, confirm_timeout_s: int = 300, clock: DeviceClock | None = None,
                   before_apply: Callable[[DeviceOutcome], None] | None = None,
                   intent: Intent | None = None) -> DeviceOutcome:
    """Bring a device back to a journal backup (``roceops rollback``), with the same safety net and deadline.

    ``outcome.backup`` is the configuration found before the restore (what ``before_apply`` journals)."""
    outcome = DeviceOutcome(device=device, platform=platform)
    start = time.monotonic()
    try:
        try:
            conn = connector.connect()
            current = driver.read_config(conn)
            change = driver.restore(current, backup)
            # a restore the in-place engine refuses (undoing a bring-up) takes the bring-up path: the
            # operator asked for exactly this backup, and the outcome says which path it took
            path = (choose_path(driver, current, change, intent, read_device_facts(driver, conn, current, intent))
                    if intent is not None else None)
        except Exception as exc:
            timed_out = clock is not None and clock.expired
            outcome.status, outcome.error = ("timeout" if timed_out else "unreachable"), _error(exc)
            return outcome
        outcome.backup = current
        if path is not None:
            outcome.path, outcome.path_reasons = path.path, path.reasons
        outcome.diff, outcome.summary = change.diff, dict(change.summary)
        if change.empty:
            outcome.status = "unchanged"
        elif not commit:
            outcome.status = "would_change"
        elif clock is not None and (clock.stop_requested or clock.expired):
            outcome.status = "interrupted" if clock.stop_requested else "timeout"
            outcome.error = "stopped before any change was sent; the device is as it was found"
        else:
            if before_apply is not None:
                before_apply(outcome)
            run_transaction(driver, connector, outcome, conn, change, txn, confirm_timeout_s,
                            verify_snapshot(driver, backup), clock,
                            apply=_bringup_apply(driver, current) if outcome.path == "bringup" else None)
        return outcome
    finally:
        outcome.seconds = round(time.monotonic() - start, 3)


def read_device_facts(driver: Driver, conn: Any, current: Snapshot, intent: Intent) -> DeviceFacts | None:
    """The device's facts (I/O through its driver); None for hosts (no NOS facts)."""
    return driver.read_facts(conn, current) if isinstance(intent, SwitchIntent) else None


def facts_problems(driver: Driver, conn: Any, current: Snapshot, intent: Intent) -> list[str]:
    """Read the device's facts (I/O through its driver) and compare them with ``intent``; a host (no NOS facts)
    has nothing to report."""
    facts = read_device_facts(driver, conn, current, intent)
    return [] if facts is None or not isinstance(intent, SwitchIntent) else mismatches(facts, intent)
