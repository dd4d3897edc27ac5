"""Bench: the switches' ``expected`` (EOS, SONiC, Cumulus) of this checkout against the previous code (4b5d62a, kept
as the reference in tests/platforms/test_switch_expected_once.py and tests/platforms/sonic/test_sonic_expected_once.py)
in one process, turn about: CPU ms per switch, the min of ``timeit.repeat`` over every switch of the platform.

Run: python bench/switch_expected_ab.py [SUS] [--repeat 7]
"""

from __future__ import annotations

import argparse
import sys
import time
import timeit
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests"), str(ROOT / "tests" / "platforms"),
                    str(ROOT / "tests" / "platforms" / "sonic")]
    from common import lab_fabric
    from test_sonic_expected_once import previous_expected
    from test_switch_expected_once import previous_cumulus, previous_eos

    from roceops.lab.fabric_specs import lab_specs
    from roceops.plan import plan
    from roceops.platforms.base import get_driver
    from roceops.topology.expand import expand

    fabric = expand(lab_fabric(args.sus))
    previous: dict[str, Any] = {"eos": previous_eos, "sonic": previous_expected, "cumulus": previous_cumulus}
    for platform, old in previous.items():
        intents = [plan(fabric, s.name) for s in lab_specs(fabric, configured=True) if s.platform == platform]
        new = get_driver(platform).expected
        best = {"previous": float("inf"), "now": float("inf")}
        for _ in range(2):  # turn about, so a burst of load slows both
            for label, f in (("previous", old), ("now", new)):
                t = min(timeit.repeat(lambda f=f, intents=intents: [f(i) for i in intents], number=3,
                                      repeat=args.repeat, timer=time.process_time))
                best[label] = min(best[label], t / 3 / len(intents) * 1000)
        print(f"{platform:8} previous {best['previous']:.3f}  now {best['now']:.3f} ms per switch "
              f"({len(intents)} switches)")


if __name__ == "__main__":
    main()
