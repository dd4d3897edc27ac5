"""Bench: the cyclic GC's work inside the audit's shard processes, with Python's default thresholds and with
``roceops.cli.gc_tuning.RUN_GC_THRESHOLDS`` (which forked shards inherit from the CLI run).

Audits the configured 1,008-device lab once per setting (after one warm-up audit) and prints, per shard,
the CPU seconds its threads spent in collections (a ``gc.callbacks`` timer), how many collections of each
generation ran, and the shard's peak RSS.

Run: python bench/shard_gc.py [SUS]
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import check_lab_address, children_cpu_seconds, lab_fabric, lab_options

import roceops.audit.engine as engine
import roceops.cli.gc_tuning as gc_tuning
from roceops.audit.engine import AuditOptions, run_audit
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import start_lab, stop_lab
from roceops.topology.expand import expand

_audit_shard = engine.audit_shard


def _timed_shard(*args: Any, **kwargs: Any) -> None:
    """engine.audit_shard, reporting this shard's GC work when it ends (runs in the shard process)."""
    spent = {"start": 0.0, "total": 0.0}
    runs = [0, 0, 0]

    def timer(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            spent["start"] = time.thread_time()
        else:
            spent["total"] += time.thread_time() - spent["start"]
            runs[info["generation"]] += 1

    gc.callbacks.append(timer)
    try:
        _audit_shard(*args, **kwargs)
    finally:
        gc.callbacks.remove(timer)
        print(f"  shard, thresholds {gc.get_threshold()}: {spent['total']:.2f} CPU-s in collections, per "
              f"generation {runs}, max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=18)
    lab_options(ap, "127.72.0.1")
    args = ap.parse_args()
    check_lab_address(args.base, args.port)
    fabric = expand(lab_fabric(args.sus))
    names = [d.name for d in fabric.devices()]
    settings = {"Python's default": gc.get_threshold(), "RUN_GC_THRESHOLDS": gc_tuning.RUN_GC_THRESHOLDS}
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "lab"
        start_lab(lab_specs(fabric, configured=True), state, port=args.port, base_address=args.base)
        try:
            run_audit(fabric, names, AuditOptions(lab_dir=state, quiet=True, timeout_s=60))  # warm the lab up
            engine.audit_shard = _timed_shard  # the shards are forked from here: they run the timed version
            for label, thresholds in settings.items():
                gc_tuning.RUN_GC_THRESHOLDS = thresholds
                print(f"{label} {thresholds}:", flush=True)
                k0, t0 = children_cpu_seconds(), time.perf_counter()
                with gc_tuning.run_gc():
                    result = run_audit(fabric, names, AuditOptions(lab_dir=state, quiet=True, timeout_s=60))
                print(f"  audit {time.perf_counter() - t0:.1f} s, {len(result.findings)} findings, shard processes "
                      f"{children_cpu_seconds() - k0:.1f} CPU-s", flush=True)
        finally:
            stop_lab(state)


if __name__ == "__main__":
    main()
