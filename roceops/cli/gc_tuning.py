"""The one place that tunes Python's cyclic garbage collector for a run (library code never does).

Measured in bench/RESULTS.md (the shard_gc.py run and the render and audit history tables).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Young objects of a run (device outputs, parsed state, SSH messages) die young: collect the young generation
# far less often. Processes forked during the run (audit shards, render workers) inherit the setting.
RUN_GC_THRESHOLDS = (20_000, 20, 10)


@contextmanager
def run_gc(*, acyclic: bool = False, collect: bool = True) -> Iterator[None]:
    """For one CLI run over a fabric: what exists now (the expanded fabric, planned intents) is frozen out of
    the cyclic GC's walks, then young collections are rare; with ``acyclic`` (expanding, planning and rendering
    leave no reference cycles: tests/render/test_render_properties.py) there are none until the block ends.
    Settings are restored afterwards. ``collect=False`` skips the full collection before freezing, for a caller
    that made only acyclic objects since the last one (it would find nothing, after walking all of them)."""
    thresholds, enabled = gc.get_threshold(), gc.isenabled()
    if collect:
        gc.collect()
    gc.freeze()
    gc.set_threshold(*RUN_GC_THRESHOLDS)
    if acyclic:
        gc.disable()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if enabled:
            gc.enable()
