"""The file reporters by format name: each turns a plain list of results and the run's metadata into text.

This is the extension point for a new format: write ``to_<format>(results, run) -> str`` in
its own module under ``roceops/report/`` and add it to :data:`REPORTERS`; a command that offers ``--format X``
looks it up here. The terminal table (:func:`roceops.report.table.print_table`) prints to a console instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from roceops.report.result import Result, Run

Reporter = Callable[[Sequence["Result"], "Run"], str]


def _deferred(module: str, name: str) -> Reporter:
    """``module.name``, imported on first call: the CLI builds its ``--format`` choices from these keys at start-up,
    which must not pay for the reporters' imports (prometheus_client, the result models)."""

    def reporter(results: Sequence[Result], run: Run) -> str:
        func: Reporter = getattr(import_module(module), name)
        return func(results, run)

    reporter.__name__ = reporter.__qualname__ = name
    return reporter


REPORTERS: dict[str, Reporter] = {
    "html": _deferred("roceops.report.html.render", "to_html"),  # draws Run.fabric_map
    "json": _deferred("roceops.report.json_doc", "to_json"),
    "junit": _deferred("roceops.report.junit", "to_junit"),
    "markdown": _deferred("roceops.report.markdown", "to_markdown"),
    "prometheus": _deferred("roceops.report.prometheus", "to_prometheus"),
}


def report(fmt: str, results: Sequence[Result], run: Run) -> str:
    """``results`` of ``run`` in format ``fmt`` (a key of :data:`REPORTERS`)."""
    return REPORTERS[fmt](results, run)
