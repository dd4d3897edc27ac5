"""Work spread over one forked process per core: CPU-bound, side-effect-free maps (rendering) and shards of
I/O-bound work that also parses (the audit).

Processes are forked, so they inherit the inputs copy-on-write (a 64-SU fabric, planned state); only the
results travel back through pickling. Small jobs run in-process.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import pickle
import sys
import threading
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar, cast

T = TypeVar("T")
R = TypeVar("R")

_JOB: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


class WorkerFailed(RuntimeError):
    """A forked worker's exception that cannot travel back as itself (it does not pickle): its type and message."""


def _run_slice(bounds: tuple[int, int]) -> list[Any]:
    assert _JOB is not None
    fn, items = _JOB
    try:
        return [fn(item) for item in items[bounds[0]:bounds[1]]]
    except Exception as exc:
        raise _sendable(exc) from None


def _sendable(exc: Exception) -> Exception:
    """``exc`` if it survives pickling (the way back to the parent), else a :class:`WorkerFailed` naming it: an
    exception that fails to unpickle would break the pool, and the parent would see a traceback, not the error."""
    try:
        back = pickle.loads(pickle.dumps(exc))
    except Exception:
        return WorkerFailed(f"{type(exc).__name__}: {exc}")
    return exc if type(back) is type(exc) and str(back) == str(exc) else WorkerFailed(f"{type(exc).__name__}: {exc}")


def fork_map(fn: Callable[[T], R], items: Sequence[T], *, min_items: int = 64,
             workers: int | None = None, meanwhile: Callable[[], None] | None = None) -> list[R]:
    """``[fn(x) for x in items]``, in order; forked workers when there are enough items and cores.

    ``meanwhile`` runs in this process once the workers have started (first, when there are none); if it
    raises, the slices not yet started are cancelled and its exception propagates.
    """
    global _JOB
    cores = workers if workers is not None else (os.cpu_count() or 1)
    if cores < 2 or len(items) < min_items or "fork" not in mp.get_all_start_methods():
        if meanwhile is not None:
            meanwhile()
        return [fn(x) for x in items]
    _JOB = (fn, items)
    try:
        size = max(8, len(items) // (cores * 8))
        bounds = [(i, min(i + size, len(items))) for i in range(0, len(items), size)]
        with ProcessPoolExecutor(max_workers=cores, mp_context=mp.get_context("fork")) as pool:
            parts = pool.map(_run_slice, bounds)  # every slice submitted: the workers are forked now
            if meanwhile is not None:
                try:
                    meanwhile()
                except BaseException:
                    pool.shutdown(cancel_futures=True)
                    raise
            return [r for part in parts for r in part]
    finally:
        _JOB = None


@dataclass(frozen=True)
class ShardEnded:
    """A shard process that ended before it said it was done: it crashed, was killed, or its work raised."""

    shard: int
    exitcode: int | None
    error: str = ""


class _Done:
    """What a shard sends last when its work returned."""


def forked_shards(work: Callable[[int, Callable[[Any], None]], None], shards: int
                  ) -> Generator[tuple[int, Any], None, None]:
    """Run ``work(k, send)`` in ``shards`` forked processes and yield ``(k, item)`` for every ``send(item)``, in
    the order the items arrive; a process that ends before its ``work`` returned yields ``(k, ShardEnded)``.

    For I/O-bound work that also parses: each process has its own GIL, so the CPU spent on it is spread
    over the cores. The processes are forked before this generator yields anything, so call it before
    starting threads of your own; they inherit everything ``work`` refers to (copy-on-write) and only the
    items travel, pickled. ``send`` may be called from any thread of the shard. Closing the generator
    early kills the processes that are still running.
    """
    ctx = mp.get_context("fork")  # forked now, when this is called, not when the iterator is first read
    readers: dict[Any, tuple[int, Any]] = {}
    for k in range(shards):
        reader, writer = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_shard_main, args=(work, k, writer), daemon=True, name=f"roceops-shard-{k}")
        proc.start()
        writer.close()  # only the shard writes: its end-of-file then means the shard ended
        readers[reader] = (k, proc)
    return _arrivals(readers)


def _arrivals(readers: dict[Any, tuple[int, Any]]) -> Generator[tuple[int, Any], None, None]:
    """What the shards send, as it comes; see :func:`forked_shards`."""
    done: set[int] = set()  # shards that said how they ended
    try:
        while readers:
            for ready in mp_connection.wait(list(readers)):
                reader = cast(mp_connection.Connection, ready)  # wait() gives back what it was given
                k, proc = readers[reader]
                try:
                    item = reader.recv()
                except (EOFError, OSError):
                    del readers[reader]
                    proc.join()
                    if k not in done:
                        yield k, ShardEnded(k, proc.exitcode)
                    continue
                if isinstance(item, ShardEnded | _Done):
                    done.add(k)  # said how it ended: its end-of-file needs no second word
                    if isinstance(item, _Done):
                        continue
                yield k, item
    finally:
        for reader, (_, proc) in readers.items():
            if proc.is_alive():
                proc.kill()
            proc.join()
            reader.close()


def _shard_main(work: Callable[[int, Callable[[Any], None]], None], k: int, writer: Any) -> None:
    lock = threading.Lock()

    def send(item: Any) -> None:
        with lock:
            writer.send(item)

    try:
        work(k, send)
    except Exception as exc:  # reported to the parent, which names what this shard did not finish
        send(ShardEnded(k, 1, f"{type(exc).__name__}: {exc}"[:300]))
        sys.exit(1)  # an exit status, not a traceback on the user's terminal
    send(_Done())
    writer.close()
