"""Read an input file only when it is a regular file of bounded size: a FIFO, device node, socket or folder given as
``-f`` (or reached through a symlink, like a link to /dev/zero) is refused at once, without opening it for a
blocking read, and a file larger than the limit is refused before any of it is read."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from roceops.util.safe_write import kind_of

MAX_INPUT_BYTES = 16 * 1024 * 1024  # a fabric or playbook is a few kB; 16 MiB is far beyond any real one


class ReadRefused(Exception):
    """``str()`` is the reason alone (callers add the path in their own message format)."""


def read_regular(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path`` (symlinks followed), or ReadRefused: not a regular file, larger than ``limit``, or
    any OS error (its strerror)."""
    try:
        _check(os.stat(path), limit)  # before opening: a device node is never opened at all
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)  # O_NONBLOCK: opening a FIFO never waits
    except OSError as exc:
        raise ReadRefused(exc.strerror or str(exc)) from None
    try:
        _check(os.fstat(fd), limit)  # what was opened, in case the path changed in between
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > limit:  # grew while being read
                raise ReadRefused(f"more than the {limit // (1024 * 1024)} MiB an input may be")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise ReadRefused(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def _check(info: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise ReadRefused(f"not a regular file (it is {kind_of(info.st_mode)})")
    if info.st_size > limit:
        raise ReadRefused(f"{info.st_size:,} bytes, more than the {limit // (1024 * 1024)} MiB an input may be")
