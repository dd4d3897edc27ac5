"""Bench: the CPU seconds of one whole `roceops render` of a fabric in ONE process (workers=1), split into start-up +
load + expand and render + write. Steadier than wall time on a shared machine: no worker processes competing
with the other engineers' runs for the two cores, and every device's planning, rendering and writing is counted.

Run: python bench/render_cpu.py FABRIC.yaml OUT_DIR   (OUT_DIR rendered before: the existing-folder case)
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

START = time.process_time()
from roceops.cli.main import app  # noqa: E402, F401  # what the CLI imports at start-up


def main() -> None:
    from roceops.cli.common import load_fabric_or_exit
    from roceops.render.build import render_build

    loaded = load_fabric_or_exit(Path(sys.argv[1]))
    loaded_at = time.process_time()
    gc.collect()
    gc.freeze()
    gc.disable()  # as the CLI's run_gc(acyclic=True) does around rendering
    began = time.process_time()
    render_build(loaded.fabric, list(loaded.fabric.devices()), Path(sys.argv[2]), loaded.source.source_hash,
                 workers=1)
    done = time.process_time()
    print(f"imports+load+expand {loaded_at - START:.2f}  render+write {done - began:.2f}  "
          f"total {done - START - (began - loaded_at):.2f} CPU s")


if __name__ == "__main__":
    main()
