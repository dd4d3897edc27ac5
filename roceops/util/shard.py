"""Which collector owns a device when ``roceops telemetry --shard I/N`` splits the fabric: a stable hash of the
device name, the same on every machine and in every run (no Python ``hash()`` randomisation), every device in
exactly one shard. Unlike audit/health's cabling-group shards (roceops/topology/sharding.py, whose ``I/N`` syntax
the telemetry command shares), a device keeps its collector when others join or leave the selection, which a
long-running collector needs; its counters need no cable's other end in the same process."""

from __future__ import annotations

import hashlib


def shard_of(name: str, count: int) -> int:
    """The shard (1..count) that owns device ``name``.

    >>> shard_of("leaf-su1-r1", 1)
    1
    >>> shard_of("leaf-su1-r1", 4) == shard_of("leaf-su1-r1", 4)
    True
    """
    digest = hashlib.sha256(name.encode()).digest()
    return int.from_bytes(digest[:8], "big") % count + 1
