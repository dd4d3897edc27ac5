"""Bench: a ConnectX host's audit CPU per part (plan(), expected, observe, operational, check), in-process and
single-threaded, as bench/audit_split.py's linux_mlx5 row, but every host timed part by part in several passes and
each part's fastest pass kept, so a loaded machine's spikes fall out; ``--other WORKTREE`` times the same outputs
(read once from this checkout's lab) with another checkout's code (its own .venv), in turns with this one.

Run: python bench/host_split.py [SUS] [--passes N] [--rounds N] [--other WORKTREE]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PARTS = ("plan()", "expected", "observe", "operational", "check")


def read_outputs(sus: int, path: Path) -> None:
    """Every host's ``collect`` outputs from the in-process lab of ``lab_fabric(sus)``, pickled to ``path``."""
    from common import lab_fabric, lab_outputs

    from roceops.topology.expand import expand

    fabric = expand(lab_fabric(sus))
    outs = {name: outputs for name, (_, outputs) in lab_outputs(fabric, ("linux_mlx5",)).items()}
    path.write_bytes(pickle.dumps((sus, outs)))


def measure(path: Path, passes: int) -> None:
    """Print one line: the fastest pass's ms of CPU per host, per part, with this checkout's code."""
    from common import lab_fabric

    import roceops.audit.device as dev
    from roceops.audit.checks import device_findings, end_facts
    from roceops.plan import plan
    from roceops.platforms.base import get_driver
    from roceops.topology.expand import expand

    sus, outs = pickle.loads(path.read_bytes())
    fabric = expand(lab_fabric(sus))
    driver: Any = get_driver("linux_mlx5")
    observations = {}
    for name, outputs in outs.items():
        obs = dev.plan_observation(fabric, name)
        obs.outputs = dict(outputs)
        dev.parse_observation(obs)
        observations[name] = obs

    clock = time.process_time
    gc.collect()
    gc.freeze()
    best = dict.fromkeys(PARTS, float("inf"))
    for _ in range(passes):  # each host's parts in turn, as an audit runs them (caches shared between parts count)
        spent = dict.fromkeys(PARTS, 0.0)
        for name, outputs in outs.items():
            t0 = clock()
            intent = plan(fabric, name)
            t1 = clock()
            driver.expected(intent)
            t2 = clock()
            driver.observe(outputs)
            t3 = clock()
            dev.for_intent(driver.operational(outputs), intent)
            t4 = clock()
            device_findings(fabric, observations[name], ())
            end_facts(fabric, observations[name])
            t5 = clock()
            for part, dt in zip(PARTS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4), strict=True):
                spent[part] += dt
        best = {part: min(best[part], spent[part]) for part in PARTS}
    n = len(outs)
    print("  ".join(f"{best[p] / n * 1000:7.3f}" for p in PARTS) + f"  = {sum(best.values()) / n * 1000:6.3f}"
          f"   ({n} hosts, {Path.cwd()})", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=2)
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2, help="turns of this checkout and the other")
    ap.add_argument("--other", type=Path, help="another checkout (with its own .venv) to time in turns")
    ap.add_argument("--outputs", type=Path, help=argparse.SUPPRESS)  # set when a checkout times a pickled read
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    if args.outputs:
        measure(args.outputs, args.passes)
        return
    here = Path(__file__).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "outputs.pickle"
        read_outputs(args.sus, path)
        print("ms of CPU per host, fastest of", args.passes, "passes:  " + "  ".join(PARTS))
        for _ in range(args.rounds):
            for root in ([args.other] if args.other else []) + [here.parents[1]]:
                python = root / ".venv" / "bin" / "python" if root != here.parents[1] else Path(sys.executable)
                subprocess.run([str(python), str(here), "--outputs", str(path), "--passes", str(args.passes)],
                               cwd=root, check=True)


if __name__ == "__main__":
    main()
