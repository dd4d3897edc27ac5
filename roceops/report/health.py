"""Health reporters: verdict table, JSON, and the drain file a prolog hands to the scheduler."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from roceops.health.engine import HealthReport
from roceops.report import tables


def as_dict(report: HealthReport, run: dict[str, Any] | None = None) -> dict[str, Any]:
    """``run``: the run's identity (fabric, file hash, run id, shard: :mod:`roceops.report.shards`), added as is."""
    return {
        "nodes": len(report.nodes),
        "devices": report.devices,
        "seconds": round(report.seconds, 3),
        "exit_code": report.exit_code,
        "verdicts": [v.model_dump(mode="json") for v in report.verdicts],
        "results": [r.model_dump(mode="json") for r in report.results if r.status != "ok"],
        "checked": len(report.results),
        **(run or {}),
    }


def to_json(report: HealthReport, run: dict[str, Any] | None = None) -> str:
    return json.dumps(as_dict(report, run), indent=2) + "\n"


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
    counts = {s: sum(1 for v in report.verdicts if v.status == s) for s in ("ok", "drain", "unknown")}
    console.print(f"{counts['ok']} ok, {counts['drain']} to drain, {counts['unknown']} unknown; "
                  f"{report.devices} devices in {report.seconds:.1f}s")
