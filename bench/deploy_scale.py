"""Bench: deploy --commit to 520 lab devices (9 SUs, fresh and unconfigured); prints wall and per-device time.

Run: python bench/deploy_scale.py [SUS] [--workers N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import check_lab_address, lab_fabric, lab_options, rss_of

from roceops.deploy.engine import DeployOptions, deploy
from roceops.journal import Journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import start_lab, stop_lab
from roceops.topology.expand import expand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=9)
    ap.add_argument("--nodes", type=int, default=32)
    ap.add_argument("--workers", type=int, default=32)
    lab_options(ap, "127.62.0.1")
    args = ap.parse_args()
    check_lab_address(args.base, args.port)
    fabric = expand(lab_fabric(args.sus, nodes_per_su=args.nodes))
    names = [d.name for d in fabric.devices()]
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "lab"
        started = start_lab(lab_specs(fabric), state, port=args.port, base_address=args.base)
        journal = Journal(Path(tmp) / "journal.sqlite")
        try:
            run_id = journal.start_run("deploy", fabric.intent.name, "bench", {})
            t0 = time.perf_counter()
            report = deploy(fabric, names, DeployOptions(commit=True, workers=args.workers, lab_dir=state,
                                                         quiet=True, timeout_s=120, max_fail=len(names)),
                            journal, run_id)
            wall = time.perf_counter() - t0
            per = [o.seconds for o in report.outcomes.values()]
            counts: dict[str, int] = {}
            for o in report.outcomes.values():
                counts[o.status] = counts.get(o.status, 0) + 1
            print(f"{len(names)} devices: deploy --commit in {wall:.1f} s ({len(names) / wall:.1f} devices/s); "
                  f"per device median {statistics.median(per):.2f} s, p95 {sorted(per)[int(len(per) * .95)]:.2f} s; "
                  f"{counts}; lab RSS {rss_of(started.pid):.0f} MiB")
            errors: dict[str, int] = {}
            for o in report.outcomes.values():
                if o.error:
                    key = f"{o.platform}: {o.error[:90]}"
                    errors[key] = errors.get(key, 0) + 1
            for key, n in sorted(errors.items(), key=lambda kv: -kv[1])[:8]:
                print(f"  {n} x {key}")
        finally:
            journal.close()
            stop_lab(state)


if __name__ == "__main__":
    main()
