"""Bench: what logging in and out costs, before any command runs, on ~1,000 lab devices.

Opens and closes one session per device, no commands: raw Paramiko (connect + interactive shell), a
Netmiko ``ConnectHandler`` (which adds its session preparation: prompt discovery, buffer clearing, and its
logout on disconnect), and the quick login audit and health use (Netmiko's connection, roceops' session
preparation, closed without the logout dialogue).
Prints wall time and CPU per device for the client (this process) and the lab. This is the floor under
``bench/audit_scale.py``'s bare loop and audit on the same machine.

Run: python bench/login_cost.py [SUS] [--workers 64]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paramiko
from common import cpu_seconds, lab_fabric
from netmiko import ConnectHandler

from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import read_overlay, start_lab, stop_lab
from roceops.nornir_glue.runner import skip_logout
from roceops.platforms.base import get_platform
from roceops.platforms.login import open_session
from roceops.topology.expand import expand


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=18)
    ap.add_argument("--workers", type=int, default=64)
    args = ap.parse_args()
    fabric = expand(lab_fabric(args.sus))
    names = [d.name for d in fabric.devices()]
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "lab"
        started = start_lab(lab_specs(fabric, names), state, base_address="127.62.0.1")
        overlay = read_overlay(state)
        try:
            def netmiko_login(name: str) -> None:
                o, platform = overlay[name], get_platform(fabric.device(name).platform)
                conn = ConnectHandler(device_type=platform.netmiko.device_type, host=o["host"], port=o["port"],
                                      username=o["username"], use_keys=True, key_file=o["key_file"],
                                      allow_agent=False, **platform.netmiko.extras)
                conn.disconnect()

            def paramiko_login(name: str) -> None:
                o = overlay[name]
                client = paramiko.SSHClient()
                client.set_missing_host_key_policy(paramiko.AutoAddPolicy())  # the lab's own throwaway keys
                client.connect(o["host"], port=o["port"], username=o["username"], key_filename=o["key_file"],
                               allow_agent=False, look_for_keys=False)
                client.invoke_shell().close()
                client.close()

            def quick_login(name: str) -> None:  # what audit and health do (roceops.platforms.login)
                o, platform = overlay[name], get_platform(fabric.device(name).platform)
                conn = ConnectHandler(device_type=platform.netmiko.device_type, host=o["host"], port=o["port"],
                                      username=o["username"], use_keys=True, key_file=o["key_file"],
                                      allow_agent=False, auto_connect=False, **platform.netmiko.extras)
                open_session(conn, platform.netmiko, timeout=30)
                skip_logout(conn)
                conn.disconnect()

            runs: list[tuple[str, Callable[[str], None]]] = [("paramiko connect + shell", paramiko_login),
                                                              ("netmiko ConnectHandler", netmiko_login),
                                                              ("roceops quick login (audit, health)", quick_login)]
            for label, login in runs:
                c0, l0, t0 = cpu_seconds(), cpu_seconds(started.pid), time.perf_counter()
                with ThreadPoolExecutor(args.workers) as pool:
                    list(pool.map(login, names))
                wall = time.perf_counter() - t0
                print(f"{label}: {len(names)} devices in {wall:.1f} s; CPU per device: client "
                      f"{1000 * (cpu_seconds() - c0) / len(names):.1f} ms, "
                      f"lab {1000 * (cpu_seconds(started.pid) - l0) / len(names):.1f} ms")
        finally:
            stop_lab(state)


if __name__ == "__main__":
    main()
