"""Bench: CPU per device and platform of what ``health`` does with each device, without SSH in the way.

As bench/parse_cost.py (the audit's reads) but with health's reads: the first sample (``collect_counters`` then
``collect_rest``, or ``collect`` in trees without it, narrowed to the host-facing ports and uplinks of each leaf),
``observe`` + ``operational`` of it, then the second sample (``collect_counters``) and its ``operational``; then
the checks (``evaluate``) over every node. Each device is
served in-process by its lab personality. Prints ms of CPU per device: the lab's side, the driver's reads, the
parsing; and the checks' total. Deterministic enough to compare two trees on a loaded machine.

Run: python bench/health_parse_cost.py [SUS] [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import lab_fabric
from parse_cost import InProcessConnection

from roceops.device.intent import SwitchIntent
from roceops.device.oper import for_intent
from roceops.health.balance import uplinks
from roceops.health.catalog import Sample
from roceops.health.engine import evaluate
from roceops.health.model import Thresholds
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo, get_personality
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.topology.expand import expand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    fabric = expand(lab_fabric(args.sus))
    nodes = list(fabric.hosts)
    leaf_ports: dict[str, set[str]] = {}
    for h in nodes:
        for nic in h.nics:
            leaf_ports.setdefault(nic.leaf, set()).add(nic.leaf_port)
    names = [h.name for h in nodes] + sorted(leaf_ports)
    intents = {n: plan(fabric, n) for n in names}
    for leaf, ports in leaf_ports.items():
        leaf_intent = intents[leaf]
        assert isinstance(leaf_intent, SwitchIntent)
        ports.update(uplinks(leaf_intent))
    specs = {s.name: s for s in lab_specs(fabric, names, configured=True)}
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    checks_s = 0.0
    for _ in range(args.repeat):
        samples: dict[str, Sample] = {}
        for name in names:
            spec, intent = specs[name], intents[name]
            personality = get_personality(spec.platform)
            state = personality.state_factory(spec.name, spec.platform, spec.extra)
            conn = InProcessConnection(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
            driver = get_driver(spec.platform)
            ports = frozenset(leaf_ports[name]) if name in leaf_ports else None
            t0 = time.process_time()
            if hasattr(driver, "collect_rest"):  # as health reads it: counters, then the rest (trees before: collect)
                first = driver.collect_rest(conn, intent, driver.collect_counters(conn, intent, ports), ports)
            else:
                first = driver.collect(conn, intent, ports)
            t1 = time.process_time()
            sample = Sample(observed=driver.observe(first), first=for_intent(driver.operational(first), intent))
            t2 = time.process_time()
            second = driver.collect_counters(conn, intent, ports)
            t3 = time.process_time()
            sample.second = for_intent(driver.operational(second), intent)
            sample.window_s = 1.0
            t4 = time.process_time()
            samples[name] = sample
            row = totals[spec.platform]
            row[0] += 1
            row[1] += conn.server_s
            row[2] += (t1 - t0) + (t3 - t2) - conn.server_s
            row[3] += (t2 - t1) + (t4 - t3)
        t5 = time.process_time()
        results = evaluate(fabric, nodes, intents, samples, Thresholds())
        checks_s += time.process_time() - t5
    print(f"{args.sus} SUs ({len(nodes)} nodes, {len(leaf_ports)} leaves), ms of CPU per device and health run "
          f"(single process, mean of {args.repeat})")
    for platform, (n, server, read, parse) in sorted(totals.items()):
        print(f"{platform:11s} {int(n / args.repeat):4d} devices: lab personality {server / n * 1000:6.1f}  "
              f"driver reads {read / n * 1000:5.1f}  observe+operational x2 {parse / n * 1000:6.1f}")
    client = sum(read + parse for _, _, read, parse in totals.values()) / args.repeat
    print(f"client reads+parse {client:.2f} s per run; checks {checks_s / args.repeat:.2f} s ({len(results)} "
          "results)")


if __name__ == "__main__":
    main()
