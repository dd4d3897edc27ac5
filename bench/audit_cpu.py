"""Bench: the audit's own CPU (plan, parse, check) without SSH in the way.

Every device's outputs are read once, in-process, from its lab personality (as ``parse_cost.py`` does). Then
``roceops.audit.device.audit_device`` runs for every device on worker threads, as one audit shard runs it, with
the device read replaced by a wait of ``--io-ms`` (the device's answer time) and the stored outputs. Prints the
process's CPU seconds for all devices, per device and per phase (the devices' threads), best of ``--repeat``.
The SSH side (Paramiko, the lab) is what ``audit_scale.py`` adds; on a loaded machine this part is steadier.

Run: python bench/audit_cpu.py [SUS] [--workers 32] [--io-ms 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import lab_fabric
from parse_cost import InProcessConnection

import roceops.audit.device as device
from roceops.cli.gc_tuning import run_gc
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.personality import SessionInfo, get_personality
from roceops.plan import plan
from roceops.platforms.base import get_driver
from roceops.topology.expand import expand


def outputs_of(fabric: Any) -> dict[str, dict[str, str]]:
    out = {}
    for spec in lab_specs(fabric, configured=True):
        personality = get_personality(spec.platform)
        state = personality.state_factory(spec.name, spec.platform, spec.extra)
        conn = InProcessConnection(personality.session_factory(state, SessionInfo(username="admin", pty=True)))
        out[spec.name] = get_driver(spec.platform).collect(conn, plan(fabric, spec.name))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=18)
    ap.add_argument("--workers", type=int, default=32, help="threads, as one of two shards of a 64-worker audit")
    ap.add_argument("--io-ms", type=float, default=20.0, help="how long reading a device waits")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with run_gc(acyclic=True):  # as the CLI expands
        fabric = expand(lab_fabric(args.sus))
    _ = fabric.by_name, fabric.links_by_device
    t0 = time.process_time()
    outputs = outputs_of(fabric)
    print(f"{len(outputs)} devices' outputs read in-process ({time.process_time() - t0:.1f} CPU s)")

    def read(task: Any, obs: Any) -> None:  # the device read: a wait, then the stored outputs
        time.sleep(args.io_ms / 1000)
        obs.outputs = dict(outputs[obs.device])

    device.collect_device = read  # type: ignore[assignment]
    tasks = [SimpleNamespace(host=SimpleNamespace(name=n, data={})) for n in outputs]
    best: tuple[float, dict[str, float], int] | None = None
    for _ in range(args.repeat):
        with run_gc():  # as the CLI runs an audit
            c0 = time.process_time()
            with ThreadPoolExecutor(args.workers) as pool:
                audits = list(pool.map(lambda t: device.audit_device(t, fabric), tasks))  # type: ignore[arg-type]
            cpu = time.process_time() - c0
        phases = {k: sum(a.cpu.get(k, 0.0) for a in audits) for k in ("plan", "parse", "check")}
        failed = sum(1 for a in audits if a.findings)
        print(f"  CPU {cpu:.2f} s ({cpu / len(audits) * 1000:.2f} ms/device); threads: "
              + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()) + f"; devices with findings: {failed}")
        if best is None or cpu < best[0]:
            best = (cpu, phases, failed)
    assert best is not None
    print(f"best of {args.repeat}: {best[0]:.2f} CPU s, {best[0] / len(tasks) * 1000:.2f} ms/device")


if __name__ == "__main__":
    main()
