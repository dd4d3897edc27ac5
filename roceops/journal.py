"""The run journal: an embedded SQLite file recording every deploy, rollback and audit.

Default location ``.roceops/journal.sqlite`` under the working directory (``--journal`` or
``ROCEOPS_JOURNAL`` to change it). Backups are stored verbatim so ``roceops rollback RUN``
can restore them; nothing secret is ever written here.
"""

from __future__ import annotations

import getpass
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(".roceops/journal.sqlite")

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, user TEXT NOT NULL, started REAL NOT NULL, finished REAL,
  fabric TEXT NOT NULL, fabric_sha256 TEXT NOT NULL, args TEXT NOT NULL DEFAULT '{}', result TEXT,
  exit_code INTEGER
);
CREATE TABLE IF NOT EXISTS device_results (
  run_id TEXT NOT NULL REFERENCES runs(id), device TEXT NOT NULL, platform TEXT NOT NULL,
  status TEXT NOT NULL, backup_format TEXT, backup TEXT, diff TEXT, error TEXT,
  started REAL, finished REAL, PRIMARY KEY (run_id, device)
);
CREATE TABLE IF NOT EXISTS findings (
  fabric TEXT NOT NULL, device TEXT NOT NULL, check_id TEXT NOT NULL, path TEXT NOT NULL,
  severity TEXT NOT NULL, expected TEXT, observed TEXT, message TEXT,
  first_seen REAL NOT NULL, last_seen REAL NOT NULL, first_run TEXT NOT NULL, last_run TEXT NOT NULL,
  resolved_run TEXT, resolved_at REAL,
  PRIMARY KEY (fabric, device, check_id, path)
);
CREATE INDEX IF NOT EXISTS runs_started ON runs(started);
"""


def journal_path(explicit: Path | None = None) -> Path:
    if explicit is not None:
        return explicit
    env = os.environ.get("ROCEOPS_JOURNAL")
    return Path(env) if env else DEFAULT_PATH


@dataclass(frozen=True)
class RunRow:
    id: str
    kind: str
    user: str
    started: float
    finished: float | None
    fabric: str
    fabric_sha256: str
    result: str | None
    exit_code: int | None


@dataclass(frozen=True)
class DeviceRow:
    run_id: str
    device: str
    platform: str
    status: str
    backup_format: str | None
    backup: str | None
    diff: str | None
    error: str | None


SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite 3 database (sqlite.org/fileformat.html)


class JournalError(Exception):
    """The journal file cannot be opened or is not a roceops journal (bad input: exit 3 at the CLI)."""


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        if path.is_file() and path.stat().st_size and path.read_bytes()[:16] != SQLITE_HEADER:
            raise JournalError(f"{path} is not a roceops journal (not an SQLite file); nothing was written to it")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"cannot open the journal {path}: {exc}") from None
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
            self.db.execute("SELECT id, kind, user, started, fabric, fabric_sha256, result, exit_code FROM runs "
                            "LIMIT 0")
        except sqlite3.Error as exc:
            self.db.close()
            raise JournalError(f"{path} is not a roceops journal (an SQLite file with its tables): {exc}") from None

    def close(self) -> None:
        self.db.close()

    def start_run(self, kind: str, fabric: str, fabric_sha256: str, args: dict[str, Any] | None = None) -> str:
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
        self.db.execute(
            "INSERT INTO runs (id, kind, user, started, fabric, fabric_sha256, args) VALUES (?,?,?,?,?,?,?)",
            (run_id, kind, getpass.getuser(), time.time(), fabric, fabric_sha256, json.dumps(args or {})),
        )
        return run_id

    def finish_run(self, run_id: str, result: str, exit_code: int) -> None:
        self.db.execute("UPDATE runs SET finished=?, result=?, exit_code=? WHERE id=?",
                        (time.time(), result, exit_code, run_id))

    def record_device(self, run_id: str, device: str, platform: str, status: str, *, backup_format: str | None = None,
                      backup: str | None = None, diff: str | None = None, error: str | None = None,
                      started: float | None = None) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO device_results VALUES (?,?,?,?,?,?,?,?,?,?)",
            (run_id, device, platform, status, backup_format, backup, diff, error, started, time.time()),
        )

    def runs(self, limit: int = 20, kind: str | None = None) -> list[RunRow]:
        sql = "SELECT id, kind, user, started, finished, fabric, fabric_sha256, result, exit_code FROM runs"
        params: tuple[Any, ...] = ()
        if kind:
            sql += " WHERE kind=?"
            params = (kind,)
        sql += " ORDER BY started DESC LIMIT ?"
        return [RunRow(*row) for row in self.db.execute(sql, (*params, limit))]

    def run(self, run_id: str) -> RunRow | None:
        row = self.db.execute(
            "SELECT id, kind, user, started, finished, fabric, fabric_sha256, result, exit_code FROM runs WHERE id=?",
            (run_id,)).fetchone()
        return RunRow(*row) if row else None

    def last_run(self, kind: str, fabric: str | None = None) -> RunRow | None:
        sql = "SELECT id, kind, user, started, finished, fabric, fabric_sha256, result, exit_code FROM runs " \
              "WHERE kind=?" + (" AND fabric=?" if fabric else "") + " ORDER BY started DESC LIMIT 1"
        row = self.db.execute(sql, (kind, fabric) if fabric else (kind,)).fetchone()
        return RunRow(*row) if row else None

    def devices(self, run_id: str) -> list[DeviceRow]:
        rows = self.db.execute(
            "SELECT run_id, device, platform, status, backup_format, backup, diff, error FROM device_results "
            "WHERE run_id=? ORDER BY device", (run_id,))
        return [DeviceRow(*r) for r in rows]


@contextmanager
def open_journal(path: Path | None = None) -> Iterator[Journal]:
    j = Journal(journal_path(path))
    try:
        yield j
    finally:
        j.close()
