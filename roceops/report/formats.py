"""The file reporters by format name: each turns a plain list of results and the run's metadata into text.

This is the extension point for a new format (an HTML report, say): write ``to_<format>(results, run) -> str`` in
its own module under ``roceops/report/`` and add it to :data:`REPORTERS`; a command that offers ``--format X``
looks it up here. The terminal table (:func:`roceops.report.table.print_table`) prints to a console instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from roceops.report.json_doc import to_json
from roceops.report.junit import to_junit
from roceops.report.markdown import to_markdown
from roceops.report.prometheus import to_prometheus
from roceops.report.result import Result, Run

Reporter = Callable[[Sequence[Result], Run], str]

REPORTERS: dict[str, Reporter] = {
    "json": to_json,
    "junit": to_junit,
    "markdown": to_markdown,
    "prometheus": to_prometheus,
}


def report(fmt: str, results: Sequence[Result], run: Run) -> str:
    """``results`` of ``run`` in format ``fmt`` (a key of :data:`REPORTERS`)."""
    return REPORTERS[fmt](results, run)
