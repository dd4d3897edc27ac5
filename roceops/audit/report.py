"""An audit's results and run metadata for the reporters (:mod:`roceops.report`), one function per format.

Each reads only the AuditResult and the resolved list from history; the formats themselves are the shared
reporters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from roceops.audit.engine import AuditResult
from roceops.audit.history import Resolved
from roceops.report import json_doc, junit, markdown, prometheus, table
from roceops.report.result import Run, columns

COMMAND = "audit"
COLUMNS = columns(("status", "seen"), ("device", "device"), ("check", "check"), ("path", "path"),
                  ("expected", "expected"), ("observed", "observed"), ("fix", "fix"))


def run_of(result: AuditResult, resolved: Sequence[Resolved] = (), last_success: float | None = None) -> Run:
    """What the reporters know of this audit besides its findings."""
    counts = Counter(f.seen for f in result.findings)
    verdict = ("no drift" if result.exit_code == 0 else
               "drift found" if result.exit_code == 1 else f"{len(result.unreachable)} devices not audited")
    return Run(
        command=COMMAND, fabric=result.fabric, devices=result.devices,
        groups={a.device: a.platform for a in result.audits}, seconds=result.seconds, exit_code=result.exit_code,
        title=f"audit of {result.fabric}", columns=COLUMNS,
        headline=f"{len(result.devices)} devices, {len(result.findings)} findings, {len(resolved)} resolved, "
                 f"exit {result.exit_code}",
        summary=[f"resolved: {r.device} {r.path or r.check}" for r in resolved]
        + [f"{result.fabric}: {verdict}; {len(result.devices)} devices in {result.seconds:.1f}s; "
           f"{counts['new']} new, {counts['persisting']} persisting, {len(resolved)} resolved"],
        sections={"Resolved": [f"- {r.device} `{r.path or r.check}`" for r in resolved]},
        results_key="findings",
        document={"unreachable": result.unreachable,
                  "resolved": [{"device": r.device, "path": r.path, "check": r.check} for r in resolved]},
        last_success=last_success,
    )


def as_dict(result: AuditResult, resolved: list[Resolved]) -> dict[str, Any]:
    return json_doc.as_dict(result.findings, run_of(result, resolved))


def to_json(result: AuditResult, resolved: list[Resolved]) -> str:
    return json_doc.to_json(result.findings, run_of(result, resolved))


def print_table(console: Console, result: AuditResult, resolved: list[Resolved]) -> None:
    table.print_table(console, result.findings, run_of(result, resolved))


def to_markdown(result: AuditResult, resolved: list[Resolved]) -> str:
    return markdown.to_markdown(result.findings, run_of(result, resolved))


def to_junit(result: AuditResult) -> str:
    """One testcase per device; drift is a <failure>, a device not audited an <error>."""
    return junit.to_junit(result.findings, run_of(result))


def previous_success(path: Path) -> float | None:
    """The last-success timestamp already in a textfile, carried over when this audit was incomplete."""
    return prometheus.previous_success(path, COMMAND)


def to_prometheus(result: AuditResult, last_success: float | None = None) -> str:
    return prometheus.to_prometheus(result.findings, run_of(result, last_success=last_success))
