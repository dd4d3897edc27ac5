"""CPU-bound, side-effect-free work (rendering, parsing) spread over one forked process per core.

Workers are forked, so they inherit the inputs copy-on-write (a 64-SU fabric, collected outputs);
only the results travel back through pickling. Small jobs run in-process.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_JOB: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def _run_slice(bounds: tuple[int, int]) -> list[Any]:
    assert _JOB is not None
    fn, items = _JOB
    return [fn(item) for item in items[bounds[0]:bounds[1]]]


def fork_map(fn: Callable[[T], R], items: Sequence[T], *, min_items: int = 64,
             workers: int | None = None) -> list[R]:
    """``[fn(x) for x in items]``, in order; forked workers when there are enough items and cores."""
    global _JOB
    cores = workers if workers is not None else (os.cpu_count() or 1)
    if cores < 2 or len(items) < min_items or "fork" not in mp.get_all_start_methods():
        return [fn(x) for x in items]
    _JOB = (fn, items)
    try:
        size = max(8, len(items) // (cores * 8))
        bounds = [(i, min(i + size, len(items))) for i in range(0, len(items), size)]
        with ProcessPoolExecutor(max_workers=cores, mp_context=mp.get_context("fork")) as pool:
            return [r for part in pool.map(_run_slice, bounds) for r in part]
    finally:
        _JOB = None


_WORKER: Callable[[Any], Any] | None = None


def _call_worker(item: Any) -> Any:
    assert _WORKER is not None
    return _WORKER(item)


class ForkedWorkers:
    """Forked worker processes that run ``fn`` on items submitted from any thread, as they come.

    For CPU work that can start before a long I/O phase ends (parsing each device's output while the
    others are still being read). The processes are forked in the constructor, so call it before
    starting threads: a fork inherits ``fn`` and everything it refers to (copy-on-write), and only the
    items and results travel, pickled. One instance at a time per process.
    """

    def __init__(self, fn: Callable[[T], R], workers: int | None = None) -> None:
        global _WORKER
        self.workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        _WORKER = fn
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=mp.get_context("fork"))
        list(self._pool.map(_ready_item, range(self.workers)))  # fork every worker now, while single-threaded

    def submit(self, item: T) -> Future[R]:
        return self._pool.submit(_call_worker, item)

    def close(self) -> None:
        global _WORKER
        self._pool.shutdown(wait=True, cancel_futures=True)
        _WORKER = None

    def __enter__(self) -> ForkedWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ready_item(_: int) -> int:
    return os.getpid()
