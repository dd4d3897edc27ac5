"""JSON reporter: the run's own fields and its results, one document."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from roceops.report.result import Result, Run


def as_dict(results: Sequence[Result], run: Run) -> dict[str, Any]:
    doc: dict[str, Any] = {"fabric": run.fabric, "devices": len(run.devices), "seconds": round(run.seconds, 3),
                           "exit_code": run.exit_code}
    doc.update(run.document)
    doc[run.results_key] = [r.model_dump(mode="json") for r in results]
    return doc


def to_json(results: Sequence[Result], run: Run) -> str:
    return json.dumps(as_dict(results, run), indent=2) + "\n"
