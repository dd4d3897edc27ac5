"""Lab scale benchmark: start N echo devices, report start time and RSS, then SSH to each.

    python bench/lab_scale.py [--devices 1000] [--workers 50] [--port 2222] [--base 127.10.0.1]

Every Netmiko session (device_type ``linux``) runs two commands whose output is checked.
The lab runs detached in a temporary state dir and is stopped at the end.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from netmiko import ConnectHandler

from roceops.lab.runtime import read_overlay, start_lab, stop_lab
from roceops.lab.sshserver import LabDeviceSpec


def rss_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) of ``pid`` in MiB, from /proc."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def port_free(base: str, port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((base, port))
        except OSError:
            return False
    return True


def session(name: str, ep: dict[str, Any]) -> float:
    t0 = time.monotonic()
    conn = ConnectHandler(
        device_type="linux",
        host=ep["host"],
        port=ep["port"],
        username=ep["username"],
        use_keys=True,
        key_file=ep["key_file"],
        allow_agent=False,
        conn_timeout=30,
    )
    try:
        if conn.send_command("hostname") != name:
            raise AssertionError(f"{name}: wrong hostname")
        if conn.send_command(f"echo hi {name}") != f"hi {name}":
            raise AssertionError(f"{name}: wrong echo")
    finally:
        conn.disconnect()
    return time.monotonic() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=50)
    parser.add_argument("--port", type=int, default=2222)
    parser.add_argument("--base", default="127.10.0.1")
    args = parser.parse_args()
    if not port_free(args.base, args.port):
        print(f"{args.base}:{args.port} is busy; pass --port/--base", file=sys.stderr)
        return 2

    specs = [LabDeviceSpec(name=f"dev{i:04d}", platform="echo") for i in range(args.devices)]
    with tempfile.TemporaryDirectory(prefix="roceops-bench-") as tmp:
        state_dir = Path(tmp) / "lab"
        started = start_lab(specs, state_dir, args.port, detach=True, base_address=args.base)
        try:
            rss, peak = rss_mb(started.pid)
            print(f"start: {args.devices} devices listening in {started.seconds:.2f} s (pid {started.pid})")
            print(f"rss after start: {rss:.1f} MiB (peak {peak:.1f} MiB)")
            overlay = read_overlay(state_dir)
            t0 = time.monotonic()
            with ThreadPoolExecutor(max_workers=args.workers) as pool:
                per_session = list(pool.map(lambda name: session(name, overlay[name]), overlay))
            wall = time.monotonic() - t0
            per_session.sort()
            rss, peak = rss_mb(started.pid)
            print(
                f"sessions: {len(per_session)} netmiko sessions x 2 commands, {args.workers} workers: "
                f"{wall:.1f} s wall ({len(per_session) / wall:.1f} sessions/s), "
                f"per session median {per_session[len(per_session) // 2]:.2f} s, max {per_session[-1]:.2f} s"
            )
            print(f"rss after sessions: {rss:.1f} MiB (peak {peak:.1f} MiB)")
        finally:
            stop_lab(state_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
