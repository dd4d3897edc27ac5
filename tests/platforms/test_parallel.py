"""The forked helpers: fork_map keeps order; forked_shards streams what shard processes send, and says which
shard ended without finishing."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from roceops.parallel import ShardEnded, fork_map, forked_shards


def test_fork_map_keeps_input_order_across_workers() -> None:
    items = list(range(500))
    assert fork_map(lambda x: x * x, items, min_items=10, workers=2) == [x * x for x in items]


def test_forked_shards_inherit_state_and_send_from_threads() -> None:
    table = {n: f"device-{n}" for n in range(200)}  # inherited by the fork, never pickled

    def work(k: int, send: Callable[[Any], None]) -> None:
        mine = [n for n in table if n % 3 == k]
        threads = [threading.Thread(target=lambda s=s: [send((n, table[n], os.getpid())) for n in mine[s::4]])
                   for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    got = list(forked_shards(work, 3))
    assert sorted(n for _, (n, _, _) in got) == sorted(table)
    assert all(n % 3 == k and name == table[n] for k, (n, name, _) in got)
    pids = {pid for _, (_, _, pid) in got}
    assert len(pids) == 3 and os.getpid() not in pids


def test_a_shard_that_raises_or_dies_is_reported_and_the_others_finish() -> None:
    def work(k: int, send: Callable[[Any], None]) -> None:
        send(f"first from {k}")
        if k == 1:
            raise ValueError("parser bug")
        if k == 2:
            os._exit(7)  # killed without a word
        send(f"second from {k}")

    got = list(forked_shards(work, 3))
    items = sorted(item for _, item in got if isinstance(item, str))
    assert items == ["first from 0", "first from 1", "first from 2", "second from 0"]
    ended = {k: item for k, item in got if isinstance(item, ShardEnded)}
    assert set(ended) == {1, 2}
    assert ended[1].error == "ValueError: parser bug" and ended[1].exitcode == 1
    assert ended[2].exitcode == 7 and ended[2].error == ""
