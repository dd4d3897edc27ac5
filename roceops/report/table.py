"""Terminal table reporter: one row per result in the run's columns, then the run's summary lines."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from roceops.report import tables
from roceops.report.cells import cell
from roceops.report.result import Result, Run

# columns whose values can be long (a list of BGP neighbours): wrapped at tables.CAPPED_WIDTH, even when piped
LONG_COLUMNS = ("expected", "observed", "fix", "message")


def print_table(console: Console, results: Sequence[Result], run: Run) -> None:
    if results:
        table = tables.table(*(c.header for c in run.columns), title=run.title or None, capped=LONG_COLUMNS)
        for r in results:
            table.add_row(*(cell(r, c) for c in run.columns))
        console.print(table)
    for line in run.summary:
        console.print(line)
