"""Bench: ``roceops verify routing`` on inventory/fabric.yaml (32 switches, 64 hosts, 1,024 cables) end to end.

Goal (issue 17): under 60 s and under 3 GiB RSS in total on 2 cores. Prints the time per phase and the
peak of the summed RSS of this process and every FRR daemon of the run (sampled every 0.2 s; kernel
memory for namespaces, veths and routes is not RSS and not counted). Needs root and FRR.
Run: sudo python bench/verify_routing.py [FABRIC] [--sample N] [--all]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import rss_of

from roceops.model.intent import FabricIntent
from roceops.topology.expand import expand
from roceops.verify.engine import VerifyOptions, preflight, verify_routing

REPO = Path(__file__).resolve().parents[1]


def _ours(pid: str) -> bool:
    try:
        return b"/tmp/roceops-rv" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


class RssSampler(threading.Thread):
    """Peak of (this process + the run's FRR daemons) RSS, in MiB."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0.0
        self.daemons_at_peak = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.2):
            pids = [p for p in os.listdir("/proc") if p.isdigit() and _ours(p)]
            total = rss_of(os.getpid())
            for p in pids:
                try:
                    total += rss_of(int(p))
                except OSError:
                    continue
            if total > self.peak:
                self.peak, self.daemons_at_peak = total, len(pids)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("fabric", nargs="?", default=str(REPO / "inventory" / "fabric.yaml"))
    ap.add_argument("--sample", type=int, default=4)
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    preflight()
    sampler = RssSampler()
    sampler.start()
    t0 = time.monotonic()
    fab = expand(FabricIntent.model_validate(yaml.safe_load(Path(args.fabric).read_text())))
    load_s = time.monotonic() - t0
    result = verify_routing(fab, VerifyOptions(sample=args.sample, all_pairs=args.all))
    total_s = time.monotonic() - t0
    sampler.stop.set()
    sampler.join()
    c = result.counts
    print(f"{result.fabric}: {c['switches']} switches, {c['hosts']} hosts, {c['cables']} cables, "
          f"{c['established']}/{c['sessions']} sessions, {c['pings']} pings, {c['link_probes']} link probes, "
          f"static ARP {bool(c.get('static_arp'))}")
    print(f"{'phase':<14}{'s':>8}")
    print(f"{'load+expand':<14}{load_s:>8.2f}")
    for phase, seconds in result.phases.items():
        print(f"{phase:<14}{seconds:>8.2f}")
    print(f"{'total':<14}{total_s:>8.2f}")
    print(f"peak RSS (python + {sampler.daemons_at_peak} FRR daemons): {sampler.peak:.0f} MiB")
    print(f"findings: {len(result.findings)}, exit {result.exit_code}")


if __name__ == "__main__":
    main()
