"""Bench: expand + validate (lint) fabrics of 16, 64 and 128 SUs; prints time and peak memory.

Goal (issue 2): 64 SUs (16,384 GPUs) in under 5 s on a 2-core machine.
Run: python bench/expand_validate.py [SUS ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import max_rss_mib, superpod

from roceops.cli.gc_tuning import run_gc
from roceops.lint import lint
from roceops.topology.expand import expand


def main(sizes: list[int]) -> None:
    print(f"{'SUs':>4} {'GPUs':>7} {'switches':>8} {'links':>7} {'expand s':>9} {'lint s':>7} {'total s':>8} "
          f"{'findings':>8} {'max RSS MiB':>11}")
    for sus in sizes:
        intent = superpod(sus)
        t0 = time.perf_counter()
        with run_gc(acyclic=True):  # as the CLI expands (roceops/cli/common.py load_fabric_or_exit)
            fabric = expand(intent)
        t1 = time.perf_counter()
        with run_gc():  # lint expands again on its own: measured as `roceops validate` runs it
            report = lint(intent)
        t2 = time.perf_counter()
        print(f"{sus:>4} {sus * 256:>7} {len(fabric.switches):>8} {len(fabric.links):>7} {t1 - t0:>9.2f} "
              f"{t2 - t1:>7.2f} {t2 - t0:>8.2f} {len(report.findings):>8} {max_rss_mib():>11.0f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [16, 64, 128])
