"""A health run for the reporters: the verdict table, JSON, and the drain file a prolog hands to the scheduler.
JSON is the shared reporter (:mod:`roceops.report`) over the run's results; the table shows the verdict per node
(derived from the results by :func:`roceops.health.engine.verdicts`), and :func:`run_of` gives any other shared
reporter what it needs."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from roceops.health.engine import HealthReport
from roceops.report import json_doc, tables
from roceops.report.result import Run

COMMAND = "health"


def run_of(report: HealthReport) -> Run:
    """What the reporters know of this health run besides its results (a JUnit report: one testcase per node)."""
    return Run(
        command=COMMAND, fabric=report.fabric, devices=report.nodes, default_group="node",
        seconds=report.seconds, exit_code=report.exit_code,
        results_key="results",
        document={"nodes": len(report.nodes), "devices": report.devices,
                  "verdicts": [v.model_dump(mode="json") for v in report.verdicts], "checked": len(report.results)},
    )


def as_dict(report: HealthReport) -> dict[str, Any]:
    """The verdicts and every result that is not ok."""
    return json_doc.as_dict([r for r in report.results if r.status != "ok"], run_of(report))


def to_json(report: HealthReport) -> str:
    return json_doc.to_json([r for r in report.results if r.status != "ok"], run_of(report))


def drain_lines(report: HealthReport) -> str:
    """``node reason`` lines for nodes to drain (reason on one line, for scontrol ... reason=...)."""
    lines = []
    for v in report.verdicts:
        if v.status == "drain":
            reason = "; ".join(v.reasons).replace("\n", " ")
            lines.append(f"{v.node} roceops: {reason}")
    return "\n".join(lines) + ("\n" if lines else "")


def print_table(console: Console, report: HealthReport) -> None:
    table = tables.table("node", "verdict", "reasons", title=f"RoCE health of {len(report.nodes)} nodes")
    style = {"ok": "green", "drain": "bold red", "unknown": "yellow"}
    for v in report.verdicts:
        table.add_row(v.node, tables.styled(v.status, style[v.status]), "\n".join(v.reasons) or "-")
    console.print(table)
    for line in skipped_lines(report):
        console.print(line, markup=False)
    counts = {s: sum(1 for v in report.verdicts if v.status == s) for s in ("ok", "drain", "unknown")}
    console.print(f"{counts['ok']} ok, {counts['drain']} to drain, {counts['unknown']} unknown; "
                  f"{report.devices} devices in {report.seconds:.1f}s")


def skipped_lines(report: HealthReport) -> list[str]:
    """One line per check and reason it was skipped for (verdicts do not count skipped checks, so the table says
    why they were not run): ``not checked: leaf.port on 8 ports: <why>``."""
    items: dict[tuple[str, str], set[str]] = {}
    for r in report.results:
        if r.status == "skipped":
            items.setdefault((r.check, r.message), set()).add(r.path)
    return [f"not checked: {check} on {len(paths)} item{'s' if len(paths) != 1 else ''}: {why}"
            for (check, why), paths in sorted(items.items())]
