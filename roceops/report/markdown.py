"""Markdown reporter: a heading, the run's headline, one table row per result, then the run's extra sections."""

from __future__ import annotations

from collections.abc import Sequence

from roceops.report.cells import cell
from roceops.report.result import Result, Run


def to_markdown(results: Sequence[Result], run: Run) -> str:
    lines = [f"# roceops {run.command}: {run.fabric}", "", run.headline, ""]
    if results:
        lines += ["| " + " | ".join(c.header for c in run.columns) + " |",
                  "|" + "---|" * len(run.columns)]
        for r in results:
            lines.append("| " + " | ".join(cell(r, c).replace("|", "\\|") for c in run.columns) + " |")
    for heading, bullets in run.sections.items():
        if bullets:
            lines += ["", f"## {heading}", "", *bullets]
    return "\n".join(lines) + "\n"
