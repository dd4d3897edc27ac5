"""Bench: an audit's CPU per EOS switch, part by part (expected, observe, operational, check), without SSH: the
EOS rows of audit_split.py, each part timed alone over every EOS switch of the lab fabric and the best of
``--repeat`` passes kept (the machine is shared: the best pass is the least disturbed one).

``--other WORKTREE`` runs the same on another checkout (its own .venv), alternating with this one ``--rounds``
times, for a side-by-side comparison in one window.

Run: python bench/eos_audit_parts.py [SUS] [--other WORKTREE] [--rounds N] [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PARTS = ("expected", "observe", "operational", "check")


def measure(fabric_json: str, repeat: int) -> dict[str, float]:
    """ms of CPU per EOS switch for each part, in the checkout this interpreter imports."""
    from common import lab_outputs

    from roceops.audit.checks import device_findings, end_facts
    from roceops.audit.device import Observation, parse_observation
    from roceops.device.oper import for_intent
    from roceops.model.intent import FabricIntent
    from roceops.plan import plan
    from roceops.platforms.base import get_driver
    from roceops.topology.expand import expand

    fabric = expand(FabricIntent.model_validate(json.loads(fabric_json)))
    driver: Any = get_driver("eos")
    devices = [(name, plan(fabric, name), outputs) for name, (_, outputs) in lab_outputs(fabric, ("eos",)).items()]
    gc.collect()
    gc.freeze()
    clock = time.process_time
    best = dict.fromkeys(PARTS, float("inf"))
    for _ in range(repeat + 1):  # the first pass fills the caches
        spent = dict.fromkeys(PARTS, 0.0)
        for name, intent, outputs in devices:
            t0 = clock()
            expected = driver.expected(intent)
            t1 = clock()
            driver.observe(outputs)
            t2 = clock()
            for_intent(driver.operational(outputs), intent)
            t3 = clock()
            obs = Observation(device=name, platform="eos", intent=intent, expected=expected)
            obs.outputs = dict(outputs)
            parse_observation(obs)
            t4 = clock()
            device_findings(fabric, obs, ())
            end_facts(fabric, obs)
            t5 = clock()
            for part, dt in zip(PARTS, (t1 - t0, t2 - t1, t3 - t2, t5 - t4), strict=True):
                spent[part] += dt
        for part in PARTS:
            best[part] = min(best[part], spent[part] / len(devices) * 1000)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=4)
    ap.add_argument("--other", type=Path, help="another checkout (with its own .venv) to measure alternately")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--fabric-json", help=argparse.SUPPRESS)  # set when this file runs inside a checkout
    args = ap.parse_args()
    if args.fabric_json:
        print(json.dumps(measure(args.fabric_json, args.repeat)))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import lab_fabric

    fabric_json = lab_fabric(args.sus).model_dump_json(exclude_unset=True)
    here = Path(__file__).resolve().parents[1]
    checkouts = [(args.other, args.other / ".venv" / "bin" / "python")] if args.other else []
    checkouts.append((here, Path(sys.executable)))
    print("ms of CPU per EOS switch (best of", args.repeat, "passes): " + "  ".join(PARTS) + "  = total")
    for rnd in range(args.rounds):
        for root, python in checkouts:
            out = subprocess.run([str(python), str(Path(__file__).resolve()), "--fabric-json", fabric_json,
                                  "--repeat", str(args.repeat)], cwd=root, check=True, capture_output=True,
                                 text=True).stdout
            best = json.loads(out.splitlines()[-1])
            print(f"round {rnd + 1} {root!s:24s} " + "  ".join(f"{best[p]:6.3f}" for p in PARTS)
                  + f"  = {sum(best.values()):6.3f}", flush=True)


if __name__ == "__main__":
    main()
