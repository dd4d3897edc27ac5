"""Bench: the audit's CPU per device of another checkout (the round-1 code, a1e960d) beside this one's, on the same
lab fabric. Each checkout runs its own ``bench/audit_scale.py`` in its own venv, with this checkout's lab fabric
(``bench/common.lab_fabric``) given to both, one after the other (``--repeat`` alternates them). Prints each run's
output and, per device: the client's CPU (shard processes + parent) and the devices' threads' plan, read, parse and
check CPU.

Run: python bench/audit_round1.py OTHER_WORKTREE [SUS] [--repeat N] [--skip-bare]
(OTHER_WORKTREE: e.g. ``git worktree add --detach /tmp/r1 a1e960d`` with its own .venv, bytecode compiled)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import lab_fabric

HERE = Path(__file__).resolve().parents[1]
# run inside the checkout measured: its own audit_scale, with the lab fabric handed over as JSON
WRAPPER = """
import json, sys
sys.path.insert(0, "bench")
import audit_scale
from roceops.model.intent import FabricIntent
fabric = json.loads(sys.argv[1])
audit_scale.lab_fabric = lambda sus: FabricIntent.model_validate(fabric)
sys.argv = ["audit_scale.py", *sys.argv[2:]]
audit_scale.main()
"""
_CLIENT = re.compile(r"CPU s: client ([\d.]+) \+ shard processes ([\d.]+)")
_PHASE = re.compile(r"cpu\.(plan|read|parse|check) ([\d.]+)")
_DEVICES = re.compile(r"^(\d+) devices, lab up")


def run(checkout: Path, fabric_json: str, sus: int, extra: list[str]) -> dict[str, float]:
    cmd = [str(checkout / ".venv" / "bin" / "python"), "-c", WRAPPER, fabric_json, str(sus), *extra]
    done = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    print(f"--- {checkout} (exit {done.returncode})")
    print("\n".join(lines))
    if done.returncode:
        print(done.stderr[-2000:])
        raise SystemExit(f"{checkout}: the bench failed")
    text = done.stdout
    devices = next(int(m.group(1)) for ln in lines if (m := _DEVICES.match(ln)))
    client = _CLIENT.search(text)
    assert client is not None, "no CPU line in the bench's output"
    out = {"devices": devices, "client": float(client.group(1)) + float(client.group(2))}
    out.update({k: float(v) for k, v in _PHASE.findall(text)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("other", type=Path, help="the other checkout (with its own .venv)")
    ap.add_argument("sus", nargs="?", type=int, default=18)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--skip-bare", action="store_true", help="only the audits (no bare Netmiko loop)")
    args = ap.parse_args()
    fabric_json = lab_fabric(args.sus).model_dump_json(exclude_unset=True)
    extra = ["--skip-bare"] if args.skip_bare else []
    rows: list[tuple[str, dict[str, float]]] = []
    for _ in range(args.repeat):
        rows.append(("other", run(args.other.resolve(), fabric_json, args.sus, extra)))
        rows.append(("this", run(HERE, fabric_json, args.sus, [*extra, "--base", "127.62.0.1"])))
    print("\nms of CPU per device: client (shards + parent), and the devices' threads per phase")
    for label, r in rows:
        n = r["devices"]
        phases = "  ".join(f"{k} {r.get(k, 0.0) / n * 1000:5.2f}" for k in ("plan", "read", "parse", "check"))
        print(f"{label:5s} {int(n)} devices: client {r['client'] / n * 1000:6.2f}  {phases}")


if __name__ == "__main__":
    main()
