"""JSON reporter: the run's own fields and its results, one document (README "Report formats" lists its keys;
tests/report/test_json_schema.py pins them)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from roceops.report.result import Result, Run

# the document's shape: bumped when a key is renamed or removed or changes meaning (new keys keep it)
SCHEMA = "roceops.report/1"


def as_dict(results: Sequence[Result], run: Run) -> dict[str, Any]:
    doc: dict[str, Any] = {"schema": SCHEMA, "command": run.command, "fabric": run.fabric,
                           "devices": len(run.devices), "seconds": round(run.seconds, 3), "exit_code": run.exit_code}
    doc.update(run.document)
    doc[run.results_key] = [r.model_dump(mode="json") for r in results]
    return doc


def to_json(results: Sequence[Result], run: Run) -> str:
    return json.dumps(as_dict(results, run), indent=2) + "\n"
