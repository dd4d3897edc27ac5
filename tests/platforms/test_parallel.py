"""The forked helpers: fork_map keeps order; ForkedWorkers runs work submitted from threads in other processes."""

from __future__ import annotations

import os
import threading

from roceops.parallel import ForkedWorkers, fork_map


def test_fork_map_keeps_input_order_across_workers() -> None:
    items = list(range(500))
    assert fork_map(lambda x: x * x, items, min_items=10, workers=2) == [x * x for x in items]


def test_forked_workers_inherit_state_and_take_items_from_threads() -> None:
    table = {n: f"device-{n}" for n in range(200)}  # inherited by the fork, never pickled
    results: dict[int, tuple[str, int]] = {}
    with ForkedWorkers(lambda n: (table[n], os.getpid()), workers=2) as workers:
        def feed(start: int) -> None:
            for n in range(start, 200, 4):
                results[n] = workers.submit(n).result()

        threads = [threading.Thread(target=feed, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert {n: name for n, (name, _) in results.items()} == table
    assert os.getpid() not in {pid for _, pid in results.values()}
