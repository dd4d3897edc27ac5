"""Bench: where a device's parsing CPU goes, per platform, without SSH and without cProfile.

cProfile inflates the many small calls of the table readers about tenfold (Cumulus: ~140 ms per device under
it, ~14 ms without), so its rankings mislead here. This collects one device of each platform from a configured
lab fabric in-process (as ``parse_cost.py``), then times ``observe``, ``operational`` and ``for_intent``
separately, and Cumulus's per-port readers with the table splitter they share.

Run: python bench/parse_split.py [SUS] [REPEATS]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import lab_fabric
from parse_cost import InProcessConnection

from roceops.device.oper import for_intent
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo, get_personality
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.platforms.cumulus import parsers as cumulus_parsers
from roceops.platforms.cumulus import parsers_ports as cumulus_ports
from roceops.topology.expand import expand


def ms(fn: Callable[[], Any], repeats: int) -> float:
    """CPU milliseconds per call of ``fn``."""
    t0 = time.process_time()
    for _ in range(repeats):
        fn()
    return (time.process_time() - t0) / repeats * 1000


def each(fn: Callable[[str], Any], texts: list[str]) -> None:
    for text in texts:
        fn(text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=2)  # Cumulus leaves are in even SUs
    ap.add_argument("repeats", nargs="?", type=int, default=40)
    args = ap.parse_args()
    fabric = expand(lab_fabric(args.sus))
    seen: set[str] = set()
    print("ms of CPU per device (one device per platform)")
    for spec in lab_specs(fabric, configured=True):
        if spec.platform in seen:
            continue
        seen.add(spec.platform)
        intent = plan(fabric, spec.name)
        personality = get_personality(spec.platform)
        state = personality.state_factory(spec.name, spec.platform, spec.extra)
        conn = InProcessConnection(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
        driver = get_driver(spec.platform)
        outputs = driver.collect(conn, intent)
        oper = driver.operational(outputs)
        print(f"{spec.platform:11s} observe {ms(partial(driver.observe, outputs), args.repeats):6.2f}  "
              f"operational {ms(partial(driver.operational, outputs), args.repeats):6.2f}  "
              f"for_intent {ms(partial(for_intent, oper, intent), args.repeats):5.2f}")
        if spec.platform != "cumulus":
            continue
        readers = {"qos roce counters": cumulus_ports.cnp_packets, "counters qos": cumulus_ports.pause_and_ecn,
                   "qos roce status": cumulus_ports.pfc_priorities}
        for suffix, reader in readers.items():
            texts = [text for command, text in outputs.items() if command.endswith(suffix)]
            whole = ms(partial(each, reader, texts), args.repeats)
            split = ms(partial(each, cumulus_parsers.table_lines, texts), args.repeats)
            print(f"  cumulus {reader.__name__:15s} {len(texts)} ports ({len(set(texts))} distinct outputs): "
                  f"{whole:5.2f}, of which table_lines {split:5.2f}")


if __name__ == "__main__":
    main()
