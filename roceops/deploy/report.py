"""Deploy summaries: a table for people, JSON for machines. Reads only the DeployReport."""

from __future__ import annotations

import signal
from collections import Counter
from typing import Any

from rich.console import Console

from roceops.deploy.device import DeviceOutcome, Status
from roceops.deploy.engine import DeployReport
from roceops.platforms.change_path import ChangePath
from roceops.report import tables

ORDER: list[Status] = ["changed", "would_change", "unchanged", "rolled_back", "backup_refused", "failed",
                       "facts_mismatch", "needs_bringup", "unreachable", "timeout", "interrupted", "not_started",
                       "not_touched"]
STYLE: dict[Status, str] = {"changed": "green", "would_change": "yellow", "unchanged": "dim",
                            "rolled_back": "bold red", "failed": "bold red", "facts_mismatch": "bold red",
                            "backup_refused": "bold red", "needs_bringup": "bold red",
                            "unreachable": "red", "timeout": "red", "interrupted": "yellow", "not_started": "dim",
                            "not_touched": "dim"}


def as_json(report: DeployReport) -> dict[str, Any]:
    counts = Counter(o.status for o in report.outcomes.values())
    return {
        "run_id": report.run_id,
        "mode": "commit" if report.commit else "dry-run",
        "exit_code": report.exit_code,
        "stopped_after_wave": report.stopped_after_wave,
        "interrupted_by": signal.Signals(report.signal).name if report.signal else None,
        "waves": report.rollout.waves,
        "counts": {k: counts[k] for k in ORDER if counts[k]},
        "devices": [
            {"device": o.device, "platform": o.platform, "status": o.status, "changes": o.summary,
             "seconds": o.seconds, "error": o.error, "diff": o.diff, "reboot_required": o.reboot_required,
             "path": o.path, "path_reasons": list(o.path_reasons),
             "findings": [{"check": "facts.mode", "message": m} for m in o.mode_findings]}
            for o in report.outcomes.values()
        ],
    }


def path_detail(o: DeviceOutcome) -> str:
    """A dry run's word on the path: day-2, or bring-up with the refused operations and restart-only modes."""
    if o.path is None:
        return ""
    return ChangePath(o.path, o.path_reasons).describe()  # type: ignore[arg-type]  # path is day2|bringup


def print_report(console: Console, report: DeployReport, show_diff: bool) -> None:
    if show_diff:
        for o in report.outcomes.values():
            if o.diff and o.status in ("would_change", "changed", "rolled_back", "failed"):
                console.rule(f"{o.device} ({o.platform})")
                console.print(o.diff, markup=False, highlight=False)
    table = tables.table("device", "platform", "status", "changes", "seconds", "detail",
                  title=f"run {report.run_id} ({'commit' if report.commit else 'dry-run'})")
    for o in report.outcomes.values():
        changes = ", ".join(f"{k} {v}" for k, v in o.summary.items() if v) or "-"
        table.add_row(o.device, o.platform, tables.styled(o.status, STYLE[o.status]), changes, f"{o.seconds:.1f}",
                      o.error or path_detail(o))
    for o in report.outcomes.values():
        for m in o.mode_findings:
            console.print(tables.styled(f"facts.mode {o.device}: {m}", "bold red"))
    console.print(table)
    counts = Counter(o.status for o in report.outcomes.values())
    console.print("summary: " + ", ".join(f"{counts[k]} {k}" for k in ORDER if counts[k]))
    reboot = [o.device for o in report.outcomes.values()
              if o.reboot_required and o.status in ("changed", "would_change")]
    if reboot:
        console.print(tables.styled(f"reboot required for the new firmware settings to take effect: "
                                    f"{', '.join(reboot)}", "bold yellow"))
    if report.stopped_after_wave is not None:
        console.print(tables.styled(f"rollout stopped after wave {report.stopped_after_wave + 1}: "
                                    "too many failures (--max-fail); that wave was rolled back", "bold red"))
    if report.signal:
        console.print(tables.styled(f"interrupted by {signal.Signals(report.signal).name}: no device was started "
                                    f"after it; devices in flight finished or rolled back (exit {report.exit_code})",
                                    "bold red"))
