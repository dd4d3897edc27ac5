"""CLI start-up: `roceops --version` and `roceops --help` against a bare `python -c pass` (issue 32: <= 0.3 s CPU).

Runs each command N times in a child process and prints the best and median wall and CPU (user + system of the
child) seconds. Compile the bytecode first (`python -m compileall -q roceops`): machines that set
PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every source on every start.

    python bench/startup.py [--runs 15] [--roceops .venv/bin/roceops]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _run_once(argv: list[str]) -> tuple[float, float]:
    """(wall s, CPU s of the child) for one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   env={**os.environ, "COLUMNS": "100"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--roceops", default=str(Path(sys.executable).with_name("roceops")),
                        help="the roceops script to time (default: the one beside this python)")
    args = parser.parse_args()
    cases = {"python -c pass": [sys.executable, "-c", "pass"],
             "roceops --version": [args.roceops, "--version"],
             "roceops --help": [args.roceops, "--help"]}
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(args.runs):  # interleaved, so machine drift hits every case alike
        for name, argv in cases.items():
            samples[name].append(_run_once(argv))
    print(f"{args.runs} runs each, load average {os.getloadavg()[0]:.2f} at the end")
    print(f"{'':20} {'wall best':>9} {'wall med':>9} {'CPU best':>9} {'CPU med':>9}")
    for name, runs in samples.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"{name:20} {min(walls):9.3f} {statistics.median(walls):9.3f} {min(cpus):9.3f} "
              f"{statistics.median(cpus):9.3f}")


if __name__ == "__main__":
    main()
