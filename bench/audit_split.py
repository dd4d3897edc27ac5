"""Bench: where an audit's CPU per device goes, per platform and part, without SSH: commands read and their size,
then plan(), the driver's expected(), observe (the config: drift), operational (ports, counters, LLDP, BGP,
neighbour tables), facts and modes, and the checks. Each device's outputs are read in-process from its lab
personality (as parse_cost.py), then each part is timed on its own, single-threaded (second pass).

``--other WORKTREE`` runs the same on another checkout (its own .venv and bench/parse_cost.py; the round-1 code,
a1e960d, has no facts/modes part) with this checkout's lab fabric, for a side-by-side table.

Run: python bench/audit_split.py [SUS] [--other WORKTREE]
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

KEYS = ("plan()", "expected", "observe", "operational", "facts+modes", "check")


def measure(fabric_json: str) -> None:
    """Print the table for the checkout whose roceops this interpreter imports (run from its root)."""
    sys.path.insert(0, str(Path.cwd() / "bench"))
    from parse_cost import InProcessConnection

    import roceops.audit.device as dev
    from roceops.audit.checks import device_findings, end_facts
    from roceops.lab.fabric_specs import lab_specs
    from roceops.lab.personality import SessionInfo, get_personality
    from roceops.model.intent import FabricIntent
    from roceops.plan import plan
    from roceops.platforms.base import get_driver
    from roceops.topology.expand import expand

    fabric = expand(FabricIntent.model_validate(json.loads(fabric_json)))
    new = hasattr(dev, "for_intent")  # the round-1 code's observe/operational take the intent
    outs: dict[str, tuple[str, dict[str, str]]] = {}
    for spec in lab_specs(fabric, configured=True):
        personality = get_personality(spec.platform)
        state = personality.state_factory(spec.name, spec.platform, spec.extra)
        conn = InProcessConnection(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
        outs[spec.name] = (spec.platform, get_driver(spec.platform).collect(conn, plan(fabric, spec.name)))
    gc.collect()
    gc.freeze()
    clock = time.process_time
    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for rep in range(2):  # the first pass fills the caches
        for name, (platform, outputs) in outs.items():
            d: Any = get_driver(platform)
            t0 = clock()
            intent = plan(fabric, name)
            t1 = clock()
            d.expected(intent)
            t2 = clock()
            if new:
                d.observe(outputs)
                t3 = clock()
                dev.for_intent(d.operational(outputs), intent)
                t4 = clock()
                d.facts(outputs)
                d.mode_problems(outputs, intent)
            else:
                d.observe(outputs, intent)
                t3 = clock()
                d.operational(outputs, intent)
                t4 = clock()
            t5 = clock()
            obs = dev.plan_observation(fabric, name)
            obs.outputs = dict(outputs)
            dev.parse_observation(obs)
            t6 = clock()
            try:
                device_findings(fabric, obs, ())
            except TypeError:  # the round-1 signature
                device_findings(fabric, obs)  # type: ignore[call-arg]
            end_facts(fabric, obs)
            t7 = clock()
            if rep:
                r = rows[platform]
                r["n"] += 1
                r["cmds"] += len(outputs)
                r["kb"] += sum(map(len, outputs.values())) / 1024
                for key, dt in zip(KEYS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t7 - t6), strict=True):
                    r[key] += dt
    print("per device:  commands  KB  " + "  ".join(KEYS) + "  (ms of CPU)")
    total: dict[str, float] = defaultdict(float)
    for platform, r in sorted(rows.items()):
        n = r["n"]
        print(f"{platform:11s} {int(n):4d}: {r['cmds'] / n:5.1f} {r['kb'] / n:6.1f}  "
              + "  ".join(f"{r[k] / n * 1000:6.2f}" for k in KEYS) + f"  = {sum(r[k] for k in KEYS) / n * 1000:6.2f}")
        for k in KEYS:
            total[k] += r[k]
    count = sum(r["n"] for r in rows.values())
    print(f"all {int(count)}: " + "  ".join(f"{k} {total[k] / count * 1000:.2f}" for k in KEYS)
          + f"  total {sum(total.values()) / count * 1000:.2f} ms/device")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=4)
    ap.add_argument("--other", type=Path, help="another checkout (with its own .venv) to measure the same way")
    ap.add_argument("--fabric-json", help=argparse.SUPPRESS)  # set when this file runs inside the other checkout
    args = ap.parse_args()
    if args.fabric_json:
        measure(args.fabric_json)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import lab_fabric

    fabric_json = lab_fabric(args.sus).model_dump_json(exclude_unset=True)
    if args.other:
        print(f"--- {args.other}")
        subprocess.run([str(args.other / ".venv" / "bin" / "python"), str(Path(__file__).resolve()),
                        "--fabric-json", fabric_json], cwd=args.other, check=True)
    print(f"--- {Path(__file__).resolve().parents[1]}")
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--fabric-json", fabric_json],
                   cwd=Path(__file__).resolve().parents[1], check=True)


if __name__ == "__main__":
    main()
