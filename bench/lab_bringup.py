"""Bench (issue 26): a fresh lab of each example fabric (every device in its vendor-default state) takes
`deploy --commit --bringup`, then `audit`; prints the times, the outcome counts and the findings.

A fabric passes when every device is `changed` (deploy exit 0) and the audit has 0 findings (exit 0).
Run: python bench/lab_bringup.py [inventory/fabric.yaml ...] [--workers N] [--port P] [--base 127.x.y.z]
(no file: every example under inventory/)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import check_lab_address, lab_options, rss_of

from roceops.api import expand, load
from roceops.audit.engine import AuditOptions, run_audit
from roceops.deploy.engine import DeployOptions, deploy
from roceops.journal import Journal
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import start_lab, stop_lab

REPO = Path(__file__).resolve().parents[1]


def run(path: Path, workers: int, port: int, base: str) -> bool:
    """Deploy and audit one fabric in a fresh lab; True when it deployed and audited clean."""
    fabric = expand(load(path))
    firmware = fabric.intent.node.firmware  # a fabric that manages NIC firmware is deployed with --firmware
    names = [d.name for d in fabric.devices()]
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "lab"
        t0 = time.perf_counter()
        started = start_lab(lab_specs(fabric), state, port=port, base_address=base, timeout=300)
        t1 = time.perf_counter()
        journal = Journal(Path(tmp) / "journal.sqlite")
        try:
            run_id = journal.start_run("deploy", fabric.intent.name, "bench", {})
            options = DeployOptions(commit=True, bringup=True, firmware=firmware, workers=workers, lab_dir=state,
                                    quiet=True, timeout_s=300, max_fail=len(names))
            report = deploy(fabric, names, options, journal, run_id)
            t2 = time.perf_counter()
            audit = run_audit(fabric, names, AuditOptions(lab_dir=state, quiet=True, timeout_s=120))
            t3 = time.perf_counter()
            statuses = Counter(o.status for o in report.outcomes.values())
            paths = Counter(f"{o.platform}:{o.path}" for o in report.outcomes.values() if o.path)
            command = "deploy --commit --bringup" + (" --firmware" if firmware else "")
            print(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: {len(names)} devices; "
                  f"lab start {t1 - t0:.1f} s, {command} {t2 - t1:.1f} s (exit {report.exit_code}, "
                  f"{dict(statuses)}, paths {dict(paths)}), audit {t3 - t2:.1f} s (exit {audit.exit_code}, "
                  f"{len(audit.findings)} findings); lab RSS {rss_of(started.pid):.0f} MiB")
            for name, o in sorted(report.outcomes.items()):
                if o.status != "changed":
                    print(f"  {name}: {o.status}: {(o.error or '')[:300]}")
            for check, n in Counter(f"{f.check} {f.path}" for f in audit.findings).most_common(12):
                print(f"  {n} x {check}")
            return report.exit_code == 0 and audit.exit_code == 0 and not audit.findings
        finally:
            journal.close()
            stop_lab(state)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("fabrics", nargs="*", type=Path)
    ap.add_argument("--workers", type=int, default=32)
    lab_options(ap, "127.63.0.1")
    args = ap.parse_args()
    check_lab_address(args.base, args.port)
    fabrics = args.fabrics or sorted((REPO / "inventory").glob("*.yaml"))
    ok = [run(p.resolve(), args.workers, args.port, args.base) for p in fabrics]
    sys.exit(0 if all(ok) else 1)


if __name__ == "__main__":
    main()
