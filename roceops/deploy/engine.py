"""Deploy orchestration: render (pure) -> waves on Nornir -> per-device transactions -> journal.

Canary wave first, then batches; after each wave, more than ``max_fail`` failed devices
stop the rollout and roll back every device the failing wave changed. Devices in later
waves are reported as not touched.

A stop request (SIGINT/SIGTERM, :class:`~roceops.deploy.control.RunControl`) or the run's deadline
starts no further device (``not_started``); devices in flight finish or roll back. Each device is
journalled write-ahead (``applying`` with its backup before the first change) and its outcome is
recorded as soon as it is done, not at the end of its wave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nornir.core.task import Result, Task

from roceops.deploy.control import DeviceClock, RunControl, signal_exit_code
from roceops.deploy.device import DeviceOutcome, deploy_device, restore_device
from roceops.deploy.rollout import Rollout, plan_rollout
from roceops.device.change import RenderedDevice, Snapshot
from roceops.device.intent import Intent
from roceops.journal import Journal
from roceops.nornir_glue.runner import Progress, TaskConnector, make_nornir
from roceops.plan import plan
from roceops.platforms.base import get_driver, get_platform
from roceops.platforms.templating import render_device
from roceops.topology.fabric import Fabric

FAILED = ("rolled_back", "failed", "facts_mismatch", "backup_refused", "needs_bringup")
NOT_DONE = ("unreachable", "timeout")  # exit 2: the device could not be worked on within its deadline


@dataclass(frozen=True)
class DeployOptions:
    commit: bool = False
    canary: int = 0
    batch: str | None = None
    max_fail: int = 0
    confirm_timeout_s: int = 300
    workers: int = 32
    timeout_s: float = 60.0  # one device's whole deploy (login, backup, transaction, verify, confirm)
    lab_dir: Path | None = None
    quiet: bool = False
    deadline_s: float | None = None  # the whole run: no device starts after it, none runs past it
    firmware: bool = False  # also apply persistent NIC firmware settings (they need a reboot)
    persist: bool = True  # install the files that make host settings survive a reboot
    bringup: bool = False  # allow the platform's bring-up path (full config load + restart) where day-2 cannot


def deployable(rendered: RenderedDevice, opts: DeployOptions) -> RenderedDevice:
    """``rendered`` with the platform's optional outputs marked to skip: firmware unless asked for, the
    persistence files when ``persist`` is off."""
    platform = get_platform(rendered.platform)
    skip = [*([] if opts.firmware else platform.firmware_outputs),
            *([] if opts.persist else platform.persisted_outputs)]
    return replace(rendered, skip=tuple(skip)) if skip else rendered


@dataclass
class DeployReport:
    run_id: str
    commit: bool
    rollout: Rollout
    outcomes: dict[str, DeviceOutcome] = field(default_factory=dict)
    stopped_after_wave: int | None = None
    signal: int | None = None  # the signal that interrupted the run

    def by_status(self, *statuses: str) -> list[str]:
        return [n for n, o in self.outcomes.items() if o.status in statuses]

    @property
    def exit_code(self) -> int:
        if (code := signal_exit_code(self.signal)) is not None:
            return code
        if self.by_status(*NOT_DONE, "not_started"):
            return 2
        if self.by_status(*FAILED) or any(o.mode_findings for o in self.outcomes.values()):
            return 1  # facts.mode: done, but a mode only a restart brings is not in effect
        return 0


def _line(name: str, outcome: Any) -> str:
    if isinstance(outcome, DeviceOutcome):
        tail = f" ({outcome.error})" if outcome.error else ""
        return f"{name}: {outcome.status}{tail}"
    return f"{name}: error"


def _result(task: Task, outcome: DeviceOutcome) -> Result:
    return Result(host=task.host, result=outcome, changed=outcome.status == "changed",
                  failed=outcome.status in (*FAILED, *NOT_DONE), diff=outcome.diff)


def _outcome_of(name: str, platform: str, multi: Any) -> DeviceOutcome:
    value = multi[0].result if multi else None
    if isinstance(value, DeviceOutcome):
        return value
    exc = getattr(multi, "exception", None) or (multi[0].exception if multi else None)
    return DeviceOutcome(device=name, platform=platform, status="failed", error=f"internal error: {exc!r}"[:400])


def _closing(task: Task, work: Callable[[Task], DeviceOutcome]) -> Result:
    """One device's work, then its session closed (not left idle until the whole wave is done)."""
    try:
        return _result(task, work(task))
    finally:
        TaskConnector(task).close()


def run_wave(fabric: Fabric, names: list[str], opts: DeployOptions, label: str,
             work: Callable[[Task], DeviceOutcome]) -> dict[str, DeviceOutcome]:
    nr = make_nornir(fabric, names, lab_dir=opts.lab_dir, workers=opts.workers, timeout_s=opts.timeout_s,
                     login="netmiko")  # connect_host: Netmiko's session preparation, keys read once
    try:
        with Progress(label, len(names), _line, quiet=opts.quiet) as progress:
            results = nr.with_processors([progress]).run(task=lambda t: _closing(t, work), on_failed=True)
    finally:
        nr.close_connections(on_good=True, on_failed=True)
    return {n: _outcome_of(n, fabric.device(n).platform, results[n]) for n in names}


def _bounded(control: RunControl, opts: DeployOptions, task: Task,
             work: Callable[[DeviceClock], DeviceOutcome]) -> DeviceOutcome:
    """One device's work under its own clock, unless the run refuses new devices (``not_started``)."""
    if refusal := control.refusal():
        return DeviceOutcome(device=task.host.name, platform=task.host.data["roceops_platform"],
                             status="not_started", error=refusal)
    clock = control.clock(opts.timeout_s)
    try:
        return work(clock)
    finally:
        if clock.expired:  # no logout dialogue with a device that is already past its deadline
            clock.cut()
        control.release(clock)


def _write_ahead(journal: Journal, run_id: str) -> Callable[[DeviceOutcome], None]:
    def record(o: DeviceOutcome) -> None:
        assert o.backup is not None
        journal.about_to_apply(run_id, o.device, o.platform, o.backup.format, o.backup.text, o.diff or None)
    return record


def deploy(fabric: Fabric, names: list[str], opts: DeployOptions, journal: Journal, run_id: str,
           control: RunControl | None = None) -> DeployReport:
    if not names:
        raise ValueError("the selection is empty: nothing to deploy")
    control = control or RunControl(opts.deadline_s)
    devices = [fabric.device(n) for n in names]
    intents = {d.name: plan(fabric, d.name) for d in devices}
    rendered = {n: deployable(render_device(i), opts) for n, i in intents.items()}
    rollout = plan_rollout(devices, canary=opts.canary, batch=opts.batch)
    report = DeployReport(run_id=run_id, commit=opts.commit, rollout=rollout)
    txn = f"roceops-{run_id}"

    write_ahead = _write_ahead(journal, run_id)
    recorded: set[str] = set()

    def work(task: Task) -> DeviceOutcome:
        name = task.host.name

        def push(clock: DeviceClock) -> DeviceOutcome:
            return deploy_device(get_driver(task.host.data["roceops_platform"]), TaskConnector(task, clock.attach),
                                 rendered[name], intents[name], commit=opts.commit, txn=txn,
                                 confirm_timeout_s=opts.confirm_timeout_s, clock=clock, before_apply=write_ahead,
                                 bringup=opts.bringup)

        outcome = _bounded(control, opts, task, push)
        _journal(journal, run_id, outcome)
        recorded.add(name)
        return outcome

    for index, wave in enumerate(rollout.waves):
        if control.refusal():
            break
        label = "canary" if rollout.canary and index == 0 else f"batch {index + (0 if rollout.canary else 1)}"
        outcomes = run_wave(fabric, wave, opts, label, work)
        report.outcomes.update(outcomes)
        for o in outcomes.values():
            if o.device not in recorded:  # the task itself failed (an internal error): still journalled
                _journal(journal, run_id, o)
        failed = [n for n, o in outcomes.items() if o.status in (*FAILED, *NOT_DONE)]
        if opts.commit and len(failed) > opts.max_fail and not control.stopped:
            _roll_back_wave(fabric, opts, journal, run_id, report, outcomes)
            report.stopped_after_wave = index
            break
    report.signal = control.signal
    for n in names:
        if n not in report.outcomes:
            refusal = control.refusal()
            report.outcomes[n] = DeviceOutcome(device=n, platform=fabric.device(n).platform,
                                               status="not_started" if refusal else "not_touched", error=refusal)
            if refusal:
                _journal(journal, run_id, report.outcomes[n])
    return report


def _roll_back_wave(fabric: Fabric, opts: DeployOptions, journal: Journal, run_id: str, report: DeployReport,
                    outcomes: dict[str, DeviceOutcome]) -> None:
    """The wave failed past --max-fail: restore the devices it did change.

    Each undo has its own ``--timeout`` but ignores the run's deadline and stop requests (leaving a device
    changed is worse than finishing late). Its journal row stays the deploy's, with the original backup,
    so a run killed during the undo is still restored by ``rollback RUN``."""
    changed = {n: o for n, o in outcomes.items() if o.status == "changed" and o.backup is not None}
    if not changed:
        return
    txn = f"roceops-{run_id}-undo"
    undo_control = RunControl()

    def work(task: Task) -> DeviceOutcome:
        o = changed[task.host.name]
        assert o.backup is not None
        backup = o.backup
        return _bounded(undo_control, opts, task, lambda clock: restore_device(
            get_driver(o.platform), TaskConnector(task, clock.attach), o.device, o.platform, backup, commit=True,
            txn=txn, confirm_timeout_s=opts.confirm_timeout_s, clock=clock, intent=_intent_of(fabric, o.device)))

    for name, undo in run_wave(fabric, list(changed), opts, "roll back wave", work).items():
        original = changed[name]
        if undo.status in ("changed", "unchanged"):
            original.status = "rolled_back"
            original.error = "rolled back: the wave exceeded --max-fail"
        else:
            original.status = "failed"
            original.error = f"wave roll-back failed: {undo.error}"
        report.outcomes[name] = original
        _journal(journal, run_id, original)


def _intent_of(fabric: Fabric, name: str) -> Intent | None:
    """The device's intent, for the platform's choice of restore path (None: the fabric no longer has it)."""
    try:
        return plan(fabric, name)
    except (KeyError, ValueError):
        return None


def _journal(journal: Journal, run_id: str, o: DeviceOutcome) -> None:
    journal.record_device(run_id, o.device, o.platform, o.status,
                          backup_format=o.backup.format if o.backup else None,
                          backup=o.backup.text if o.backup else None, diff=o.diff or None, error=o.error)


def rollback_run(fabric: Fabric, journal: Journal, source_run: str, opts: DeployOptions, run_id: str,
                 names: list[str] | None = None, control: RunControl | None = None) -> DeployReport:
    """Restore the backups a previous run took, for the devices it changed (or ``names``): under the same
    deadlines, stop requests and write-ahead journal as a deploy."""
    control = control or RunControl(opts.deadline_s)
    write_ahead = _write_ahead(journal, run_id)
    recorded: set[str] = set()
    changed = set(journal.may_have_changed(source_run))  # an interrupted run's `applying` devices included
    rows = {r.device: r for r in journal.devices(source_run) if r.device in changed}
    if names is not None:
        rows = {n: r for n, r in rows.items() if n in names}
    targets = [n for n in (d.name for d in fabric.devices()) if n in rows]
    report = DeployReport(run_id=run_id, commit=opts.commit, rollout=Rollout(canary=[], batches=[targets]))
    txn = f"roceops-{run_id}"

    def work(task: Task) -> DeviceOutcome:
        row = rows[task.host.name]
        backup = Snapshot(format=row.backup_format, text=row.backup)  # type: ignore[arg-type]
        outcome = _bounded(control, opts, task, lambda clock: restore_device(
            get_driver(row.platform), TaskConnector(task, clock.attach), row.device, row.platform, backup,
            commit=opts.commit, txn=txn, confirm_timeout_s=opts.confirm_timeout_s, clock=clock,
            before_apply=write_ahead, intent=_intent_of(fabric, row.device)))
        _journal(journal, run_id, outcome)
        recorded.add(row.device)
        return outcome

    if targets:
        report.outcomes = run_wave(fabric, targets, opts, "rollback", work)
        for o in report.outcomes.values():
            if o.device not in recorded:  # the task itself failed (an internal error): still journalled
                _journal(journal, run_id, o)
    report.signal = control.signal
    return report
