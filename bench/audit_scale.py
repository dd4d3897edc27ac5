"""Bench: audit ~1,000 lab devices, beside a bare loop that only opens a Netmiko session per device and
runs the same commands. Prints wall time, devices/s and where the time goes.

Goal (issue 6): 1,000 devices in under 20 s on a 2-core machine, within 1.5x of the bare loop.
Run: python bench/audit_scale.py [SUS] [--workers N] [--skip-bare] [--repeat N] [--known-hosts]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import check_lab_address, children_cpu_seconds, cpu_seconds, lab_fabric, lab_options, rss_of
from netmiko import ConnectHandler

from roceops.audit.engine import AuditOptions, run_audit
from roceops.cli.gc_tuning import run_gc
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import read_overlay, start_lab, stop_lab
from roceops.plan import plan
from roceops.platforms.base import get_driver, get_platform
from roceops.topology.expand import expand


def bare_loop(fabric, names: list[str], state: Path, workers: int) -> tuple[float, int]:
    overlay = read_overlay(state)
    intents = {n: plan(fabric, n) for n in names}

    def one(name: str) -> int:
        try:
            return collect_one(name)
        except Exception:  # counted, like the audit's device.* findings
            return -1

    def collect_one(name: str) -> int:
        o, intent = overlay[name], intents[name]
        platform = get_platform(intent.platform)
        conn = ConnectHandler(device_type=platform.netmiko.device_type, host=o["host"], port=o["port"],
                              username=o["username"], use_keys=True, key_file=o["key_file"], allow_agent=False,
                              **platform.netmiko.extras)
        try:
            return len(get_driver(intent.platform).collect(conn, intent))
        finally:
            conn.disconnect()

    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        failed = sum(1 for n in pool.map(one, names) if n < 0)
    return time.perf_counter() - t0, failed


def audit_once(fabric, names: list[str], state: Path, workers: int) -> dict[str, float]:
    """One roceops audit of ``names``: prints its line and where the time goes; its wall and client CPU."""
    cpu1, kids0 = cpu_seconds(), children_cpu_seconds()
    t0 = time.perf_counter()
    with run_gc():
        result = run_audit(fabric, names, AuditOptions(workers=workers, lab_dir=state, quiet=True, timeout_s=60))
    audit_s = time.perf_counter() - t0
    parent, shards = cpu_seconds() - cpu1, children_cpu_seconds() - kids0
    print(f"roceops audit: {audit_s:.1f} s, {len(names) / audit_s:.0f} devices/s, "
          f"{len(result.findings)} findings, exit {result.exit_code}, {result.shards} shards; CPU s: "
          f"client {parent:.1f} + shard processes {shards:.1f}")
    for f in result.findings[:5]:
        print(f"  finding: {f.check} {f.device}: {f.message[:100]}")
    print("  where the time goes (wall s; sum.*: summed over devices; cpu.*: CPU s of the devices' "
          "threads, the rest of the shards' CPU is Paramiko's transport threads and Nornir): "
          + ", ".join(f"{k} {v:.2f}" for k, v in result.phases.items()))
    return {"wall": audit_s, "cpu": parent + shards}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=18)
    ap.add_argument("--workers", type=int, default=64, help="as roceops audit's default")
    ap.add_argument("--skip-bare", action="store_true", help="only the roceops audit")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run the pair (bare loop, then audit) N times on the same lab; prints every run and the "
                         "medians (the bare loop's own time varies tens of percent within minutes on a shared "
                         "machine, so one ratio says little)")
    ap.add_argument("--known-hosts", action="store_true",
                    help="the audit checks host keys against the lab's known_hosts (ROCEOPS_KNOWN_HOSTS)")
    lab_options(ap, "127.61.0.1")
    args = ap.parse_args()
    check_lab_address(args.base, args.port)
    with run_gc(acyclic=True):  # as the CLI runs it
        fabric = expand(lab_fabric(args.sus))
    names = [d.name for d in fabric.devices()]
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "lab"
        started = start_lab(lab_specs(fabric, configured=True), state, port=args.port, base_address=args.base)
        print(f"{len(names)} devices, lab up in {started.seconds:.1f} s ({rss_of(started.pid):.0f} MiB)")
        if args.known_hosts:
            os.environ["ROCEOPS_KNOWN_HOSTS"] = str(state / "known_hosts")
        ratios: list[float] = []
        per_device: list[float] = []
        try:
            for run in range(max(1, args.repeat)):
                if args.repeat > 1:
                    print(f"-- run {run + 1} of {args.repeat}")
                # the bare loop runs first, so the lab's first-contact costs are not charged to roceops
                cpu0, lab0 = cpu_seconds(), cpu_seconds(started.pid)
                bare_s, failed = (1.0, 0) if args.skip_bare else bare_loop(fabric, names, state, args.workers)
                cpu1, lab1 = cpu_seconds(), cpu_seconds(started.pid)
                if not args.skip_bare:
                    print(f"bare netmiko loop, same commands: {bare_s:.1f} s ({len(names) / bare_s:.0f} devices/s), "
                          f"{failed} devices failed; CPU s: client {cpu1 - cpu0:.1f}, lab {lab1 - lab0:.1f}")
                audit = audit_once(fabric, names, state, args.workers)
                print(f"  lab CPU s during the audit: {cpu_seconds(started.pid) - lab1:.1f}; client CPU per device "
                      f"{audit['cpu'] / len(names) * 1000:.2f} ms")
                per_device.append(audit["cpu"] / len(names) * 1000)
                if not args.skip_bare:
                    ratios.append(audit["wall"] / bare_s)
                    print(f"ratio audit / bare loop: {ratios[-1]:.2f}x")
            if args.repeat > 1:
                print(f"median of {args.repeat} runs: client CPU per device {statistics.median(per_device):.2f} ms"
                      + (f", ratio audit / bare loop {statistics.median(ratios):.2f}x (runs: "
                         + ", ".join(f"{r:.2f}" for r in ratios) + ")" if ratios else ""))
            print(f"lab RSS {rss_of(started.pid):.0f} MiB")
        finally:
            stop_lab(state)


if __name__ == "__main__":
    main()
