"""The run journal: an embedded SQLite file recording every deploy, rollback and audit.

Default location ``.roceops/journal.sqlite`` under the working directory (``--journal`` or
``ROCEOPS_JOURNAL`` to change it). Backups are stored verbatim so ``roceops rollback RUN``
can restore them; nothing secret is ever written here.

Write-ahead: before the first change is sent to a device its row says ``applying`` with the backup
(:meth:`Journal.about_to_apply`); its outcome replaces it when the device is done. Every statement is its
own transaction with ``synchronous=FULL``, so a row is on disk before the call returns. A run that never
finished (killed) is ``interrupted``, and its ``applying`` rows are the devices that may have changed.
"""

from __future__ import annotations

import getpass
import json
import os
import socket
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roceops.util.safe_write import kind_of

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
# columns added after the first release: (table, column, declaration), added to older journals on open
MIGRATIONS = (("runs", "pid", "INTEGER"), ("runs", "device_count", "INTEGER"), ("runs", "host", "TEXT"))
APPLYING = "applying"  # a device row written before its first change is sent
MAY_HAVE_CHANGED = (APPLYING, "changed", "rolled_back", "failed", "timeout")


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
    args: dict[str, Any]
    pid: int | None
    device_count: int | None
    host: str | None = None  # where the run's process ran: its pid means something only there

    @property
    def elsewhere(self) -> bool:
        return self.host is not None and self.host != socket.gethostname()

    @property
    def interrupted(self) -> bool:
        """Never finished and its process is gone (killed), or stopped by a signal."""
        if self.finished is not None:
            return self.result == "interrupted"
        return not self.elsewhere and (self.pid is None or not _alive(self.pid))

    @property
    def state(self) -> str:
        if self.finished is None:
            if self.elsewhere:
                return f"unfinished (ran on {self.host})"
            return "interrupted" if self.interrupted else "running"
        return self.result or "?"

    @property
    def mode(self) -> str:
        """``commit`` or ``dry run`` for runs that can write, ``read`` for the others (audits)."""
        if self.kind in ("deploy", "rollback"):
            return "commit" if self.args.get("commit") else "dry run"
        return "read"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


RUN_COLUMNS = ("id, kind, user, started, finished, fabric, fabric_sha256, result, exit_code, args, pid, device_count, "
               "host")


def _run(row: tuple[Any, ...]) -> RunRow:
    try:
        args = json.loads(row[9] or "{}")
    except ValueError:
        args = {}
    return RunRow(id=row[0], kind=row[1], user=row[2], started=row[3], finished=row[4], fabric=row[5],
                  fabric_sha256=row[6], result=row[7], exit_code=row[8], args=args if isinstance(args, dict) else {},
                  pid=row[10], device_count=row[11], host=row[12])


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


def _mode(path: Path) -> int | None:
    try:
        return path.stat().st_mode
    except OSError:
        return None


class JournalError(Exception):
    """The journal file cannot be opened or is not a roceops journal (bad input: exit 3 at the CLI)."""


class Journal:
    """Thread-safe (one lock around the connection): a deploy's device threads record their own rows."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if (mode := _mode(path)) is not None and not stat.S_ISREG(mode):  # a FIFO or device is never opened
            raise JournalError(f"cannot open the journal {path}: not a regular file (it is {kind_of(mode)})")
        if path.is_file() and path.stat().st_size and path.read_bytes()[:16] != SQLITE_HEADER:
            raise JournalError(f"{path} is not a roceops journal (not an SQLite file); nothing was written to it")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"cannot open the journal {path}: {exc}") from None
        self._lock = threading.Lock()
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")  # each commit is fsync'd: write-ahead means on disk
            self.db.executescript(SCHEMA)
            for table, column, decl in MIGRATIONS:
                have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
                if column not in have:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")
            self.db.execute("SELECT id, kind, user, started, fabric, fabric_sha256, result, exit_code FROM runs "
                            "LIMIT 0")
        except sqlite3.Error as exc:
            self.db.close()
            raise JournalError(f"{path} is not a roceops journal (an SQLite file with its tables): {exc}") from None

    def close(self) -> None:
        self.db.close()

    def _execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return list(self.db.execute(sql, params))

    def start_run(self, kind: str, fabric: str, fabric_sha256: str, args: dict[str, Any] | None = None,
                  device_count: int | None = None) -> str:
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
        self._execute(
            "INSERT INTO runs (id, kind, user, started, fabric, fabric_sha256, args, pid, device_count, host) "
            "VALUES (?,?,?,?,?,?,?,?,?,?)",
            (run_id, kind, getpass.getuser(), time.time(), fabric, fabric_sha256, json.dumps(args or {}),
             os.getpid(), device_count, socket.gethostname()),
        )
        return run_id

    def finish_run(self, run_id: str, result: str, exit_code: int) -> None:
        self._execute("UPDATE runs SET finished=?, result=?, exit_code=? WHERE id=?",
                      (time.time(), result, exit_code, run_id))

    def about_to_apply(self, run_id: str, device: str, platform: str, backup_format: str, backup: str,
                       diff: str | None = None) -> None:
        """The write-ahead record: ``device`` is about to be changed; ``backup`` restores it."""
        self.record_device(run_id, device, platform, APPLYING, backup_format=backup_format, backup=backup,
                           diff=diff, started=time.time())

    def record_device(self, run_id: str, device: str, platform: str, status: str, *, backup_format: str | None = None,
                      backup: str | None = None, diff: str | None = None, error: str | None = None,
                      started: float | None = None) -> None:
        self._execute(
            "INSERT OR REPLACE INTO device_results VALUES (?,?,?,?,?,?,?,?,?,?)",
            (run_id, device, platform, status, backup_format, backup, diff, error, started, time.time()),
        )

    def runs(self, limit: int = 20, kind: str | None = None) -> list[RunRow]:
        sql = f"SELECT {RUN_COLUMNS} FROM runs"
        params: tuple[Any, ...] = ()
        if kind:
            sql += " WHERE kind=?"
            params = (kind,)
        sql += " ORDER BY started DESC LIMIT ?"
        return [_run(row) for row in self._execute(sql, (*params, limit))]

    def run(self, run_id: str) -> RunRow | None:
        rows = self._execute(f"SELECT {RUN_COLUMNS} FROM runs WHERE id=?", (run_id,))
        return _run(rows[0]) if rows else None

    def last_run(self, kind: str, fabric: str | None = None) -> RunRow | None:
        sql = f"SELECT {RUN_COLUMNS} FROM runs WHERE kind=?" + (" AND fabric=?" if fabric else "") + \
              " ORDER BY started DESC LIMIT 1"
        rows = self._execute(sql, (kind, fabric) if fabric else (kind,))
        return _run(rows[0]) if rows else None

    def devices(self, run_id: str) -> list[DeviceRow]:
        rows = self._execute(
            "SELECT run_id, device, platform, status, backup_format, backup, diff, error FROM device_results "
            "WHERE run_id=? ORDER BY device", (run_id,))
        return [DeviceRow(*r) for r in rows]

    def may_have_changed(self, run_id: str) -> list[str]:
        """Devices of ``run_id`` a change was (or was about to be) sent to, that a rollback would restore."""
        return [r.device for r in self.devices(run_id) if r.status in MAY_HAVE_CHANGED and r.backup is not None]


@contextmanager
def open_journal(path: Path | None = None) -> Iterator[Journal]:
    j = Journal(journal_path(path))
    try:
        yield j
    finally:
        j.close()
