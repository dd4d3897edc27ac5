"""Drift history in the journal: first seen / last seen, and new / persisting / resolved since the last audit."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from roceops.audit.findings import UNREACHABLE_CHECKS
from roceops.journal import Journal
from roceops.report.result import Result


@dataclass(frozen=True)
class Resolved:
    device: str
    path: str
    check: str
    first_seen: float


def record(journal: Journal, fabric: str, run_id: str, audited: list[str], findings: list[Result]) -> list[Resolved]:
    """Mark each finding new or persisting (in place) and return what was open before and is gone now.

    Devices that could not be audited keep their open findings untouched: silence is not resolution.
    """
    now = time.time()
    db = journal.db
    unreachable = {f.device for f in findings if f.check in UNREACHABLE_CHECKS}
    current = {(f.device, f.check, f.path): f for f in findings}
    db.execute("BEGIN")
    try:
        for (device, check, path), f in current.items():
            row = db.execute("SELECT resolved_run FROM findings WHERE fabric=? AND device=? AND check_id=? AND path=?",
                             (fabric, device, check, path)).fetchone()
            severity = "warning" if f.status == "warn" else "error"  # the journal's column keeps its two words
            values = (severity, json.dumps(f.expected, default=str), json.dumps(f.observed, default=str), f.message)
            if row is not None and row[0] is None:
                f.seen = "persisting"
                db.execute("UPDATE findings SET last_seen=?, last_run=?, severity=?, expected=?, observed=?, message=? "
                           "WHERE fabric=? AND device=? AND check_id=? AND path=?",
                           (now, run_id, *values, fabric, device, check, path))
            else:
                f.seen = "new"
                db.execute("INSERT OR REPLACE INTO findings (fabric, device, check_id, path, severity, expected, "
                           "observed, message, first_seen, last_seen, first_run, last_run, resolved_run, resolved_at) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,NULL,NULL)",
                           (fabric, device, check, path, *values, now, now, run_id, run_id))
        resolved: list[Resolved] = []
        scope = [d for d in audited if d not in unreachable]
        for i in range(0, len(scope), 500):
            chunk = scope[i:i + 500]
            marks = ",".join("?" * len(chunk))
            rows = db.execute(f"SELECT device, check_id, path, first_seen FROM findings WHERE fabric=? AND "
                              f"resolved_run IS NULL AND device IN ({marks})", (fabric, *chunk)).fetchall()
            for device, check, path, first_seen in rows:
                if (device, check, path) not in current:
                    resolved.append(Resolved(device=device, path=path, check=check, first_seen=first_seen))
                    db.execute("UPDATE findings SET resolved_run=?, resolved_at=? WHERE fabric=? AND device=? AND "
                               "check_id=? AND path=?", (run_id, now, fabric, device, check, path))
        db.execute("COMMIT")
    except Exception:
        db.execute("ROLLBACK")
        raise
    return resolved
