"""Bench: where `roceops render`'s time goes, phase by phase, with the calls the CLI makes (lint overlapped with
the forked workers, which render and write). Prints each phase's CPU seconds in the parent, the workers' total,
and a wall-clock timeline from the interpreter's start (serial part until the workers fork, then the rest).

Run: python bench/render_phases.py FABRIC.yaml OUT_DIR   (e.g. a 64-SU fabric from bench/common.py superpod(64))
"""

from __future__ import annotations

import inspect
import os
import resource
import sys
import time
from pathlib import Path

_STARTED = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])  # clock ticks after boot
_PROCESS_START = time.time() - (time.clock_gettime(time.CLOCK_BOOTTIME) - _STARTED / os.sysconf("SC_CLK_TCK"))
from roceops.cli.main import app  # noqa: E402, F401  # what the CLI imports at start-up


def _at() -> float:
    """Wall seconds since this process started (its start time in /proc, as the CLI's would be)."""
    return time.time() - _PROCESS_START


def main() -> None:
    imported = _at()
    c = time.process_time()
    from roceops.cli.common import load_fabric_or_exit
    from roceops.cli.gc_tuning import run_gc
    from roceops.render.build import render_build

    loaded = load_fabric_or_exit(Path(sys.argv[1]))
    c2 = time.process_time()
    expanded = _at()
    print(f"load+expand: {c2 - c:.2f} CPU s")
    lint_cpu: list[float] = []
    forked: list[float] = []

    def linted() -> bool:  # as the CLI's: called once the workers have forked, lint imported only then
        forked.append(_at())
        from roceops.lint import lint

        t = time.process_time()
        ok = lint(loaded.source.intent, loaded.fabric).ok
        lint_cpu.append(time.process_time() - t)
        return ok

    wall = time.perf_counter()
    # as the CLI: no collection first where run_gc can skip it (older trees collect, as their CLI did)
    skip = {"collect": False} if "collect" in inspect.signature(run_gc).parameters else {}
    with run_gc(acyclic=True, **skip):
        render_build(loaded.fabric, list(loaded.fabric.devices()), Path(sys.argv[2]), "x", check=linted)
    c3 = time.process_time()
    print(f"render_build in the parent (path checks, template warm-up, lint, results, manifest): {c3 - c2:.2f} "
          f"CPU s, of which lint {lint_cpu[0]:.2f} (overlapped with the workers); {time.perf_counter() - wall:.2f} s")
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"workers: {child.ru_utime + child.ru_stime:.2f} CPU s in total")
    print(f"timeline (wall s from process start): imports done {imported:.2f}, fabric expanded {expanded:.2f}, "
          f"workers forked {forked[0]:.2f}, all written {_at():.2f}")


if __name__ == "__main__":
    main()
