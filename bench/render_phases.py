"""Bench: where `roceops render`'s time goes, phase by phase, with the calls the CLI makes (lint overlapped with
the forked workers, which render and write). Prints each phase's CPU seconds in the parent and the workers' total.

Run: python bench/render_phases.py FABRIC.yaml OUT_DIR   (e.g. a 64-SU fabric from bench/common.py superpod(64))
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

from roceops.cli.main import app  # noqa: F401  # what the CLI imports at start-up


def main() -> None:
    c = time.process_time()
    from roceops.cli.common import load_fabric_or_exit
    from roceops.cli.gc_tuning import run_gc
    from roceops.lint import lint
    from roceops.render.build import render_build

    loaded = load_fabric_or_exit(Path(sys.argv[1]))
    c2 = time.process_time()
    print(f"load+expand: {c2 - c:.2f} CPU s")
    lint_cpu: list[float] = []

    def linted() -> bool:
        t = time.process_time()
        ok = lint(loaded.source.intent, loaded.fabric).ok
        lint_cpu.append(time.process_time() - t)
        return ok

    wall = time.perf_counter()
    with run_gc(acyclic=True):
        render_build(loaded.fabric, list(loaded.fabric.devices()), Path(sys.argv[2]), "x", check=linted)
    c3 = time.process_time()
    print(f"render_build in the parent (path checks, template warm-up, lint, results, manifest): {c3 - c2:.2f} "
          f"CPU s, of which lint {lint_cpu[0]:.2f} (overlapped with the workers); {time.perf_counter() - wall:.2f} s")
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"workers: {child.ru_utime + child.ru_stime:.2f} CPU s in total")


if __name__ == "__main__":
    main()
