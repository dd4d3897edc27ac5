"""Non-regular files for tests, made only inside the test's own temporary folder (never the machine's /dev).

Device nodes need root (``os.mknod``); without it the caller skips. A tiny tmpfs (root) gives real ENOSPC and EROFS.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

# Linux "mem" major 1: minor 3 behaves as null, 5 as zero, 7 as full (the kernel's devices.txt)
NULL, ZERO, FULL = os.makedev(1, 3), os.makedev(1, 5), os.makedev(1, 7)


def is_root() -> bool:
    return os.geteuid() == 0


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def char_device(path: Path, device: int = FULL) -> Path:
    """A character device node at ``path`` (root only: skips otherwise)."""
    if not is_root():
        pytest.skip("creating a device node (mknod) needs root")
    os.mknod(path, 0o600 | stat.S_IFCHR, device)
    return path


@contextlib.contextmanager
def unix_socket(path: Path) -> Iterator[Path]:
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        yield path
    finally:
        sock.close()


@contextlib.contextmanager
def tiny_tmpfs(mountpoint: Path, size: str = "16k", read_only: bool = False) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``mountpoint`` for the block, unmounted after (root only: skips otherwise)."""
    if not is_root():
        pytest.skip("mounting a tmpfs needs root")
    mountpoint.mkdir(parents=True, exist_ok=True)
    options = f"size={size}" + (",ro" if read_only else "")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mountpoint)],
                          capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", str(mountpoint)], check=True, timeout=30)


def kind(path: Path) -> str:
    """What is at ``path`` now (without following a link): regular, link, fifo, chr, dir, sock or missing."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    for test, name in ((stat.S_ISREG, "regular"), (stat.S_ISLNK, "link"), (stat.S_ISFIFO, "fifo"),
                       (stat.S_ISCHR, "chr"), (stat.S_ISDIR, "dir"), (stat.S_ISSOCK, "sock")):
        if test(mode):
            return name
    return "other"
