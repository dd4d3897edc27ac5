"""Split devices over N workers by a stable hash of their names (``--shard I/N``): the same name lands in the same
shard on every machine and in every run (no Python ``hash()`` randomisation), and every device in exactly one."""

from __future__ import annotations

import hashlib
import re

_SPEC = re.compile(r"^(\d+)/(\d+)$")


class ShardError(ValueError):
    """A ``--shard`` value that is not ``I/N`` with 0 <= I < N."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"1/4"`` -> ``(1, 4)``.

    >>> parse_shard("0/2")
    (0, 2)
    >>> parse_shard("2/2")
    Traceback (most recent call last):
    ...
    roceops.util.shard.ShardError: --shard 2/2: the index must be 0..1 (I/N, 0-based)
    """
    found = _SPEC.match(text.strip())
    if not found:
        raise ShardError(f"--shard {text!r}: expected I/N, e.g. 0/4")
    index, count = int(found.group(1)), int(found.group(2))
    if count < 1 or index >= count:
        raise ShardError(f"--shard {text}: the index must be 0..{max(count - 1, 0)} (I/N, 0-based)")
    return index, count


def shard_of(name: str, count: int) -> int:
    """The shard (0..count-1) that owns device ``name``.

    >>> shard_of("leaf-su1-r1", 1)
    0
    >>> shard_of("leaf-su1-r1", 4) == shard_of("leaf-su1-r1", 4)
    True
    """
    digest = hashlib.sha256(name.encode()).digest()
    return int.from_bytes(digest[:8], "big") % count
