"""Bench: health of 128 nodes (1,024 NICs) and their 32 leaves on the lab, 5 s window.

Goal (issue 7): under 20 s on a 2-core machine.
Run: python bench/health_scale.py [--window 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import check_lab_address, lab_fabric, lab_options, rss_of

from roceops.cli.gc_tuning import run_gc
from roceops.health.engine import HealthOptions, run_health
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import start_lab, stop_lab
from roceops.topology.expand import expand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--window", type=float, default=5.0)
    ap.add_argument("--deadline", type=float, default=60.0)
    lab_options(ap, "127.63.0.1")
    args = ap.parse_args()
    check_lab_address(args.base, args.port)
    with run_gc(acyclic=True):  # as the CLI runs it
        fabric = expand(lab_fabric(4))  # 4 SUs x 32 nodes x 8 rails = 128 nodes, 1,024 NICs, 32 leaves
    nodes = [h.name for h in fabric.hosts]
    leaves = sorted({n.leaf for h in fabric.hosts for n in h.nics})
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "lab"
        started = start_lab(lab_specs(fabric, nodes + leaves, configured=True), state, port=args.port,
                            base_address=args.base)
        try:
            t0 = time.perf_counter()
            with run_gc():
                report = run_health(fabric, nodes, HealthOptions(window_s=args.window, deadline_s=args.deadline,
                                                                 lab_dir=state))
            wall = time.perf_counter() - t0
            counts: dict[str, int] = {}
            for v in report.verdicts:
                counts[v.status] = counts.get(v.status, 0) + 1
            print(f"{len(nodes)} nodes, {sum(len(h.nics) for h in fabric.hosts)} NICs, {len(leaves)} leaves: "
                  f"health in {wall:.1f} s with a {args.window:g} s window; verdicts {counts}; "
                  f"{len(report.results)} results; lab RSS {rss_of(started.pid):.0f} MiB")
            print("  where the time goes: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.phases.items()))
        finally:
            stop_lab(state)


if __name__ == "__main__":
    main()
