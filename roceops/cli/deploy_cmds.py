"""deploy, history, rollback."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import typer

from roceops.cli.common import (
    Exit,
    FabricOption,
    LimitOption,
    check_connection_settings,
    console,
    fail,
    load_fabric_or_exit,
    parse_duration,
    path_value,
    print_json,
)
from roceops.cli.fabric_cmds import TableOrJson, selected
from roceops.cli.hints import run_command
from roceops.cli.lab_target import check_lab_serves, fabric_for
from roceops.journal import Journal, RunRow, open_journal
from roceops.lab.paths import lab_dir_option
from roceops.locking import LockHeld, fabric_lock

if TYPE_CHECKING:  # imported where used (CLI start-up time: tests/cli/test_startup_imports.py)
    from roceops.deploy.engine import DeployReport


def parse_batch(text: str) -> str:
    """``--batch``: a device count or a percentage (usage error, exit 3, otherwise)."""
    from roceops.deploy.rollout import batch_size

    try:
        batch_size(100, text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    return text


JournalOption = typer.Option(None, "--journal", help="journal SQLite file (default .roceops/journal.sqlite)",
                             parser=path_value)
LabOption = typer.Option(False, "--lab", help="target the running lab instead of management addresses")
StateDir = Path(".roceops")


def _duration(text: str | float) -> float:
    """``--deadline``: a duration as ``health --deadline`` takes it (``90s``, ``10m``, ``300``)."""
    return parse_duration(text)


def deploy(
    ctx: typer.Context,
    fabric: Path = FabricOption,
    limit: str | None = LimitOption,
    lab: bool = LabOption,
    commit: bool = typer.Option(False, "--commit", help="apply (the default is a dry run that changes nothing)"),
    canary: int = typer.Option(0, "--canary", min=0, help="devices in the first wave (one per platform first)"),
    batch: str | None = typer.Option(None, "--batch", help="wave size after the canary: N or N%",
                                     parser=parse_batch),
    max_fail: int = typer.Option(0, "--max-fail", min=0, help="failures a wave may have before the rollout stops"),
    confirm_timeout: int = typer.Option(300, "--confirm-timeout", min=1,
                                        help="seconds before an unconfirmed commit reverts"),
    timeout: float = typer.Option(60.0, "--timeout", min=1.0,
                                  help="seconds one device's whole deploy may take; past it: rolled back, timeout"),
    deadline: float | None = typer.Option(None, "--deadline", parser=_duration, metavar="DURATION",
                                          help="how long the whole run may take (300, 90s, 10m): no device "
                                               "starts after it, none runs past it"),
    workers: int = typer.Option(32, "--workers", min=1, help="devices worked on in parallel"),
    show_diff: bool = typer.Option(True, "--diff/--no-diff", help="print each device's diff"),
    firmware: bool = typer.Option(False, "--firmware", help="also set the hosts' NIC firmware (mlxconfig) defaults; "
                                  "they take effect at the next reboot"),
    persist: bool = typer.Option(True, "--persist/--no-persist", help="install the hosts' boot-time files "
                                 "(netplan, unit, sysctl, NCCL); --no-persist sets runtime values only"),
    bringup: bool = typer.Option(False, "--bringup", help="allow the platform's bring-up path (full config load and "
                                 "service restarts) for devices whose change the in-place transaction would refuse"),
    fmt: TableOrJson = typer.Option(TableOrJson.table, "--format"),
    journal: Path | None = JournalOption,
) -> None:
    """Push rendered configuration safely: backup, diff, platform transaction, verify, confirm.

    A dry run says per device which path its change needs (day-2 in place, or bring-up, naming the refused
    operations); --commit takes bring-up only with --bringup, else that device stops (exit 1), nothing sent.

    Dry run by default. Ctrl-C/SIGTERM start no new device and let those in flight finish or roll back
    (exit 130/143). Example: roceops deploy --lab --commit --canary 2 --batch 25%
    """
    from roceops.deploy.control import RunControl, stop_on_signals
    from roceops.deploy.engine import DeployOptions
    from roceops.deploy.engine import deploy as run_deploy
    from roceops.deploy.report import as_json, print_report
    from roceops.lint import lint

    loaded = load_fabric_or_exit(fabric_for(ctx, fabric, lab))
    check_connection_settings()
    report_lint = lint(loaded.source.intent, loaded.fabric)
    if not report_lint.ok:
        fail(f"{len(report_lint.errors)} lint errors; see "
             f"`{run_command(ctx, 'validate', fabric=loaded.source.file, carry=('fabric',))}`")
    names = [d.name for d in selected(loaded.fabric, limit)]
    opts = DeployOptions(commit=commit, canary=canary, batch=batch, max_fail=max_fail,
                         confirm_timeout_s=confirm_timeout, workers=workers, timeout_s=timeout,
                         lab_dir=lab_dir_option(lab), quiet=fmt is TableOrJson.json, deadline_s=deadline,
                         firmware=firmware, persist=persist, bringup=bringup)
    name = loaded.fabric.intent.name
    control = RunControl(deadline)
    try:
        with fabric_lock(StateDir, name, "deploy"), open_journal(journal) as j, stop_on_signals(control):
            check_lab_serves(loaded, names, lab)  # before any connection, and before the run is journalled
            run_id = j.start_run("deploy", name, loaded.source.source_hash,
                                 {"limit": limit, "commit": commit, "canary": canary, "batch": batch, "lab": lab,
                                  "firmware": firmware, "persist": persist, "bringup": bringup},
                                 device_count=len(names))
            try:
                report = run_deploy(loaded.fabric, names, opts, j, run_id, control)
            except ValueError as exc:
                j.finish_run(run_id, "bad input", int(Exit.BAD_INPUT))
                fail(str(exc))
            j.finish_run(run_id, _result_word(report), report.exit_code)
    except LockHeld as exc:
        fail(str(exc), Exit.BAD_INPUT)
    if fmt is TableOrJson.json:
        print_json(as_json(report))
    else:
        print_report(console, report, show_diff)
    raise typer.Exit(report.exit_code)


class _HistoryRow(TypedDict):
    id: str
    kind: str
    mode: str
    user: str
    started: str
    fabric: str
    result: str | None
    exit: int | None
    devices: int
    may_have_changed: list[str]


def _result_word(report: DeployReport) -> str:
    if report.signal:
        return "interrupted"
    return {0: "ok", 1: "failed devices rolled back", 2: "unreachable or timed-out devices"}.get(
        report.exit_code, "error")


def _history_row(j: Journal, r: RunRow) -> _HistoryRow:
    rows = j.devices(r.id)
    changed = j.may_have_changed(r.id) if r.interrupted else []
    return {"id": r.id, "kind": r.kind, "mode": r.mode, "user": r.user,
            "started": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(r.started)), "fabric": r.fabric,
            "result": r.state, "exit": r.exit_code,
            "devices": r.device_count if r.device_count is not None else len(rows), "may_have_changed": changed}


def history(
    ctx: typer.Context,
    limit: int = typer.Option(20, "--last", min=1, help="how many runs"),
    journal: Path | None = JournalOption,
    fmt: TableOrJson = typer.Option(TableOrJson.table, "--format"),
) -> None:
    """List recorded runs (deploys, rollbacks, audits) from the journal.

    A run that never finished (killed) is `interrupted`, with the devices that may have changed;
    `roceops rollback RUN --commit` restores them. Example: roceops history --last 5
    """
    from roceops.report import tables

    with open_journal(journal) as j:
        rows = [_history_row(j, r) for r in j.runs(limit)]
    if fmt is TableOrJson.json:
        print_json(rows)
        return
    table = tables.table("run", "kind", "mode", "user", "started", "fabric", "devices", "result", "exit")
    for r in rows:
        table.add_row(r["id"], r["kind"], r["mode"], r["user"], r["started"], r["fabric"], str(r["devices"]),
                      str(r["result"]), "-" if r["exit"] is None else str(r["exit"]))  # killed: no exit status
    console.print(table)
    for r in rows:
        if r["may_have_changed"]:
            console.print(f"run {r['id']} was interrupted; may have changed: {', '.join(r['may_have_changed'])}; "
                          f"restore them with `{run_command(ctx, 'rollback', r['id'], '--commit', carry=('journal',))}`"
                          " (add -f/--lab as for the deploy)", markup=False)


def rollback(
    ctx: typer.Context,
    run_id: str = typer.Argument(..., help="run id from `roceops history` (or 'last')"),
    fabric: Path = FabricOption,
    lab: bool = LabOption,
    commit: bool = typer.Option(False, "--commit", help="apply (default: show what would be restored)"),
    timeout: float = typer.Option(60.0, "--timeout", min=1.0, help="seconds one device's restore may take"),
    fmt: TableOrJson = typer.Option(TableOrJson.table, "--format"),
    journal: Path | None = JournalOption,
) -> None:
    """Restore the pre-change backups a deploy run recorded (also of a run that was interrupted or killed).

    Example: roceops rollback last --lab --commit
    """
    from roceops.deploy.control import RunControl, stop_on_signals
    from roceops.deploy.engine import DeployOptions, rollback_run
    from roceops.deploy.report import as_json, print_report

    loaded = load_fabric_or_exit(fabric_for(ctx, fabric, lab))
    check_connection_settings()
    name = loaded.fabric.intent.name
    opts = DeployOptions(commit=commit, timeout_s=timeout, lab_dir=lab_dir_option(lab),
                         quiet=fmt is TableOrJson.json)
    control = RunControl()
    try:
        with fabric_lock(StateDir, name, "deploy"), open_journal(journal) as j, stop_on_signals(control):
            source = j.last_run("deploy", name) if run_id == "last" else j.run(run_id)
            if source is None:
                what = f"no deploy of fabric {name!r} ({loaded.source.file})" if run_id == "last" else \
                    f"no run {run_id!r}"
                fail(f"{what} in the journal; see `{run_command(ctx, 'history', carry=('journal',))}`"
                     + ("" if lab or run_id != "last" else " (a lab deploy? add --lab)"))
            targets = j.may_have_changed(source.id)
            if not targets:
                fail(f"run {source.id} changed no device: nothing to roll back")
            check_lab_serves(loaded, targets, lab)
            new_id = j.start_run("rollback", name, loaded.source.source_hash, {"of": source.id, "commit": commit},
                                 device_count=len(targets))
            report = rollback_run(loaded.fabric, j, source.id, opts, new_id, control=control)
            j.finish_run(new_id, _result_word(report), report.exit_code)
    except LockHeld as exc:
        fail(str(exc), Exit.BAD_INPUT)
    if fmt is TableOrJson.json:
        print_json(as_json(report))
    else:
        print_report(console, report, show_diff=True)
    raise typer.Exit(report.exit_code)
