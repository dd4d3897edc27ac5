"""One operation per fabric at a time: an advisory ``flock`` that the kernel drops if the holder dies.

The lock file holds who has it (user, host, pid, since, what), so a second run fails fast
with a message naming the holder.
"""

from __future__ import annotations

import fcntl
import getpass
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class LockHeld(RuntimeError):
    """Another run holds the lock; the message says who."""


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return "another process"
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.get("since", 0)))
    who = f"{info.get('user', '?')}@{info.get('host', '?')} pid {info.get('pid', '?')}"
    return f"{who} ({info.get('what', '?')}, since {since})"


@contextmanager
def fabric_lock(state_dir: Path, fabric: str, what: str) -> Iterator[Path]:
    """Hold ``<state_dir>/locks/<fabric>.<what>.lock`` for the duration of the block, or raise LockHeld."""
    locks = state_dir / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    path = locks / f"{fabric}.{what}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LockHeld(f"a {what} of fabric {fabric!r} is already running: held by {_holder(path)}") from None
        info = {"user": getpass.getuser(), "host": socket.gethostname(), "pid": os.getpid(), "since": time.time(),
                "what": what}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(info).encode())
        try:
            yield path
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
