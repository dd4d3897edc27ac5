"""Bench: plan + render every device of a 64-SU fabric (1,280 switches + 2,048 hosts).

Goal (issue 3): under 10 s on a 2-core machine. Prints devices/s, total time and peak memory.
Run: python bench/render_all.py [SUS] [--write DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import max_rss_mib, superpod

from roceops.cli.gc_tuning import run_gc
from roceops.render.build import render_devices, write_build
from roceops.topology.expand import expand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=64)
    ap.add_argument("--write", type=Path, help="also write the build folder here")
    args = ap.parse_args()
    with run_gc(acyclic=True):  # as the CLI runs it
        fabric = expand(superpod(args.sus))
    devices = list(fabric.devices())
    t0 = time.perf_counter()
    with run_gc(acyclic=True):
        rendered = render_devices(fabric, devices)
    t1 = time.perf_counter()
    files = sum(len(r.files) for r in rendered)
    size = sum(len(t) for r in rendered for t in r.files.values())
    print(f"{args.sus} SUs: {len(devices)} devices, {files} files, {size / 2**20:.1f} MiB of config")
    print(f"plan+render: {t1 - t0:.2f} s, {len(devices) / (t1 - t0):.0f} devices/s, max RSS {max_rss_mib():.0f} MiB")
    if args.write:
        t2, c2 = time.perf_counter(), time.process_time()
        result = write_build(args.write, fabric.intent.name, "bench", rendered)
        print(f"write: {time.perf_counter() - t2:.2f} s, {time.process_time() - c2:.2f} CPU-s "
              f"({result.written} written, {result.unchanged} unchanged)")


if __name__ == "__main__":
    main()
