"""Bench: the audit's CPU per device for some platforms only (default SONiC and Cumulus switches), per part as
``audit_split.py`` splits it, the best of several passes: a pass that another process's burst slowed is not the
figure. With ``--other WORKTREE`` (its own .venv) the two checkouts run turn about, ``--rounds`` times each, on this
checkout's lab fabric, so a loaded machine slows both alike.

Run: python bench/switch_parts.py [SUS] [--platforms sonic,cumulus] [--passes 5] [--rounds 2] [--other WORKTREE]
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

KEYS = ("plan()", "expected", "observe", "operational", "facts+modes", "check")


def measure(fabric_json: str, platforms: list[str], passes: int) -> None:
    """Print one row per platform for the checkout whose roceops this interpreter imports (run from its root)."""
    from common import lab_outputs

    import roceops.audit.device as dev
    from roceops.audit.checks import device_findings, end_facts
    from roceops.model.intent import FabricIntent
    from roceops.plan import plan
    from roceops.platforms.base import get_driver
    from roceops.topology.expand import expand

    fabric = expand(FabricIntent.model_validate(json.loads(fabric_json)))
    outs = lab_outputs(fabric, platforms)
    gc.collect()
    gc.freeze()
    clock = time.process_time
    best: dict[str, dict[str, float]] = {}
    for rep in range(passes + 1):  # the first pass fills the caches
        rows: dict[str, dict[str, float]] = {}
        for name, (platform, outputs) in outs.items():
            d: Any = get_driver(platform)
            t0 = clock()
            intent = plan(fabric, name)
            t1 = clock()
            d.expected(intent)
            t2 = clock()
            d.observe(outputs)
            t3 = clock()
            dev.for_intent(d.operational(outputs), intent)
            t4 = clock()
            d.facts(outputs)
            d.mode_problems(outputs, intent)
            t5 = clock()
            obs = dev.plan_observation(fabric, name)
            obs.outputs = dict(outputs)
            dev.parse_observation(obs)
            t6 = clock()
            device_findings(fabric, obs, ())
            end_facts(fabric, obs)
            t7 = clock()
            r = rows.setdefault(platform, dict.fromkeys(("n", *KEYS), 0.0))
            r["n"] += 1
            for key, dt in zip(KEYS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t7 - t6), strict=True):
                r[key] += dt
        if rep:
            for platform, r in rows.items():
                b = best.setdefault(platform, dict.fromkeys(KEYS, float("inf")))
                for key in KEYS:
                    b[key] = min(b[key], r[key] / r["n"] * 1000)
    for platform, b in sorted(best.items()):
        print(f"{platform:8s} " + "  ".join(f"{k} {b[k]:5.2f}" for k in KEYS) + f"  = {sum(b.values()):6.2f} ms"
              f"  (best of {passes}, {sum(1 for p, _ in outs.values() if p == platform)} devices)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=4)
    ap.add_argument("--platforms", default="sonic,cumulus")
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2, help="turns of each checkout with --other")
    ap.add_argument("--other", type=Path, help="another checkout (with its own .venv) to measure the same way")
    ap.add_argument("--fabric-json", help=argparse.SUPPRESS)  # set when this file runs inside a checkout
    args = ap.parse_args()
    platforms = args.platforms.split(",")
    if args.fabric_json:
        measure(args.fabric_json, platforms, args.passes)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import lab_fabric

    fabric_json = lab_fabric(args.sus).model_dump_json(exclude_unset=True)
    here = Path(__file__).resolve().parents[1]
    runs = [(here, Path(sys.executable))]
    if args.other:
        runs.insert(0, (args.other, args.other / ".venv" / "bin" / "python"))
    for _ in range(args.rounds if args.other else 1):
        for root, python in runs:
            print(f"--- {root}", flush=True)
            subprocess.run([str(python), str(Path(__file__).resolve()), "--fabric-json", fabric_json,
                            "--platforms", args.platforms, "--passes", str(args.passes)], cwd=root, check=True)


if __name__ == "__main__":
    main()
