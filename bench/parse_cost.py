"""Bench: CPU per device and platform of what an audit does, without SSH in the way.

Each device of a configured lab fabric is served in-process by its lab personality through a stand-in
for a Netmiko connection; the driver's ``collect`` runs against it, then ``observe`` + ``operational``.
Prints, per platform, milliseconds per device spent in the personality (the lab's side), in the
driver's reading, and in parsing.

Run: python bench/parse_cost.py [SUS]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import lab_fabric

from roceops.device.oper import for_intent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.inprocess import InProcessConnection
from roceops.lab.personality import SessionInfo, get_personality
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.topology.expand import expand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=4)
    args = ap.parse_args()
    fabric = expand(lab_fabric(args.sus))
    totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for spec in lab_specs(fabric, configured=True):
        intent = plan(fabric, spec.name)
        personality = get_personality(spec.platform)
        state = personality.state_factory(spec.name, spec.platform, spec.extra)
        conn = InProcessConnection(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
        driver = get_driver(spec.platform)
        t0 = time.process_time()
        outputs = driver.collect(conn, intent)
        t1 = time.process_time()
        driver.observe(outputs)
        for_intent(driver.operational(outputs), intent)
        t2 = time.process_time()
        row = totals[spec.platform]
        row[0] += 1
        row[1] += conn.server_s
        row[2] += t1 - t0 - conn.server_s
        row[3] += t2 - t1
    print(f"{args.sus} SUs, ms of CPU per device (single process)")
    for platform, (n, server, read, parse) in sorted(totals.items()):
        print(f"{platform:11s} {int(n):4d} devices: lab personality {server / n * 1000:6.1f}  "
              f"driver reads {read / n * 1000:5.1f}  observe+operational {parse / n * 1000:6.1f}")


if __name__ == "__main__":
    main()
