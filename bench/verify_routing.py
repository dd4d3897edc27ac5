"""Bench: ``roceops verify routing`` end to end, on a fabric file (default inventory/fabric.yaml) or on the
SuperPOD-style fabric of ``--sus N`` SUs (bench/common.superpod), in ``--mode full`` or ``--mode by-class``.

Goals: inventory/fabric.yaml under 60 s and 3 GiB (issue 17); 64 SUs under 10 min and 16 GiB (issue 32).
Prints the time per phase and the peak of the summed RSS (and PSS, which shares the FRR libraries' pages
fairly) of this process and every FRR daemon of the run, sampled every second; kernel memory for
namespaces, veths and routes is not RSS: the drop of the machine's MemAvailable is printed too (it includes
whatever else runs on the machine). Needs root and FRR. It starts no server outside its own namespaces
(bgpd listens only inside them; names carry a random run id), so it takes no --port or address base.
Run: sudo .venv/bin/python bench/verify_routing.py [FABRIC | --sus N] [--mode full|by-class] [--sample N] [--all]
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

from common import rss_of, superpod

from roceops.model.intent import FabricIntent
from roceops.topology.expand import expand
from roceops.verify.engine import VerifyOptions, preflight, verify_routing

REPO = Path(__file__).resolve().parents[1]


def _ours(pid: str) -> bool:
    """A daemon of this run: our child (``ip netns exec`` execs it) with our run directory in its command line;
    another run on the machine (a test, another user) is not counted."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        return ppid == os.getpid() and b"/tmp/roceops-rv" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError, IndexError):
        return False


def _pss_of(pid: int) -> float:
    with open(f"/proc/{pid}/smaps_rollup") as fh:
        for line in fh:
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _mem_available() -> float:
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return 0.0


class RssSampler(threading.Thread):
    """Peaks of (this process + the run's FRR daemons) RSS and PSS, and of the MemAvailable drop, in MiB."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0.0
        self.peak_pss = 0.0
        self.daemons_at_peak = 0
        self.available0 = _mem_available()
        self.peak_drop = 0.0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(1.0):
            pids = [p for p in os.listdir("/proc") if p.isdigit() and _ours(p)]
            total, pss = rss_of(os.getpid()), _pss_of(os.getpid())
            for p in pids:
                try:
                    total += rss_of(int(p))
                    pss += _pss_of(int(p))
                except OSError:
                    continue
            self.peak_pss = max(self.peak_pss, pss)
            self.peak_drop = max(self.peak_drop, self.available0 - _mem_available())
            if total > self.peak:
                self.peak, self.daemons_at_peak = total, len(pids)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("fabric", nargs="?", default=str(REPO / "inventory" / "fabric.yaml"))
    ap.add_argument("--sus", type=int, help="bench/common.superpod(N) instead of a fabric file")
    ap.add_argument("--mode", choices=("full", "by-class"), default="full")
    ap.add_argument("--deadline", type=float, default=60.0, help="seconds allowed for BGP convergence")
    ap.add_argument("--sample", type=int, default=4)
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    preflight()
    sampler = RssSampler()
    sampler.start()
    t0 = time.monotonic()
    intent = (superpod(args.sus) if args.sus else
              FabricIntent.model_validate(yaml.safe_load(Path(args.fabric).read_text())))
    fab = expand(intent)
    load_s = time.monotonic() - t0
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    result = verify_routing(fab, VerifyOptions(sample=args.sample, all_pairs=args.all, deadline_s=args.deadline,
                                               by_class=args.mode == "by-class"))
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
    if "verified_direct" in c:
        print(f"verified: direct {c['verified_direct']}, by class {c['verified_by_class']}")
    print(f"peak RSS (python + {sampler.daemons_at_peak} FRR daemons): {sampler.peak:.0f} MiB; "
          f"peak PSS {sampler.peak_pss:.0f} MiB; peak MemAvailable drop {sampler.peak_drop:.0f} MiB")
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"findings: {len(result.findings)}, exit {result.exit_code}")


if __name__ == "__main__":
    main()
