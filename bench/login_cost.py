"""Bench: what logging in and out costs, before any command runs, on ~1,000 lab devices.

Opens and closes one session per device, no commands: raw Paramiko (connect + interactive shell), a
Netmiko ``ConnectHandler`` (which adds its session preparation: prompt discovery, buffer clearing, and its
logout on disconnect), and the quick login audit and health use (Netmiko's connection, roceops' session
preparation, closed without the logout dialogue). Prints wall time and CPU per device for the client (this
process) and the lab. This is the floor under ``bench/audit_scale.py``'s bare loop and audit.

Then, one login at a time (latency rather than CPU): the quick login with Nagle's algorithm on (as
Paramiko leaves its own sockets) and off (``roceops.platforms.login.tcp_socket``); and what reading the
lab's known_hosts (one entry per device) costs with Paramiko's ``HostKeys`` (as Netmiko does for every
strict connection) and with ``roceops.platforms.ssh_keys.read_known_hosts`` (once per process).

Run: python bench/login_cost.py [SUS] [--workers 64] [--sequential 100]
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import paramiko
from common import check_lab_address, cpu_seconds, lab_fabric, lab_options
from netmiko import ConnectHandler

import roceops.platforms.login as login
from roceops.lab.fabric_specs import lab_specs
from roceops.lab.runtime import read_overlay, start_lab, stop_lab
from roceops.nornir_glue.runner import skip_logout
from roceops.platforms.base import get_platform
from roceops.platforms.ssh_keys import read_known_hosts
from roceops.topology.expand import expand


def _nagle_socket(host: str, port: int, timeout: float) -> socket.socket:
    return socket.create_connection((host, port), timeout=timeout)  # as Paramiko opens its own


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sus", nargs="?", type=int, default=18)
    ap.add_argument("--workers", type=int, default=64)
    ap.add_argument("--sequential", type=int, default=100, help="logins one at a time, per Nagle setting")
    lab_options(ap, "127.62.0.1")
    args = ap.parse_args()
    check_lab_address(args.base, args.port)
    fabric = expand(lab_fabric(args.sus))
    names = [d.name for d in fabric.devices()]
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "lab"
        started = start_lab(lab_specs(fabric, names), state, port=args.port, base_address=args.base)
        overlay = read_overlay(state)

        def netmiko_conn(name: str, **extra: Any) -> Any:
            o, platform = overlay[name], get_platform(fabric.device(name).platform)
            return ConnectHandler(device_type=platform.netmiko.device_type, host=o["host"], port=o["port"],
                                  username=o["username"], use_keys=True, key_file=o["key_file"], allow_agent=False,
                                  **platform.netmiko.extras, **extra)

        def netmiko_login(name: str) -> None:
            netmiko_conn(name).disconnect()

        def quick_login(name: str) -> None:  # what audit and health do (roceops.platforms.login)
            conn = netmiko_conn(name, auto_connect=False)
            login.open_session(conn, get_platform(fabric.device(name).platform).netmiko, timeout=30)
            skip_logout(conn)
            conn.disconnect()

        def paramiko_login(name: str) -> None:
            o = overlay[name]
            client = paramiko.SSHClient()
            client.set_missing_host_key_policy(paramiko.AutoAddPolicy())  # the lab's own throwaway keys
            client.connect(o["host"], port=o["port"], username=o["username"], key_filename=o["key_file"],
                           allow_agent=False, look_for_keys=False)
            client.invoke_shell().close()
            client.close()

        try:
            runs: list[tuple[str, Callable[[str], None]]] = [("paramiko connect + shell", paramiko_login),
                                                              ("netmiko ConnectHandler", netmiko_login),
                                                              ("roceops quick login (audit, health)", quick_login)]
            for label, one in runs:
                c0, l0, t0 = cpu_seconds(), cpu_seconds(started.pid), time.perf_counter()
                with ThreadPoolExecutor(args.workers) as pool:
                    list(pool.map(one, names))
                wall = time.perf_counter() - t0
                print(f"{label}: {len(names)} devices in {wall:.1f} s; CPU per device: client "
                      f"{1000 * (cpu_seconds() - c0) / len(names):.1f} ms, "
                      f"lab {1000 * (cpu_seconds(started.pid) - l0) / len(names):.1f} ms")
            few = names[:args.sequential]
            for label, make_socket in (("Nagle on", _nagle_socket), ("Nagle off", login.tcp_socket)):
                login.tcp_socket = make_socket
                c0, l0, t0 = cpu_seconds(), cpu_seconds(started.pid), time.perf_counter()
                for name in few:
                    quick_login(name)
                wall = time.perf_counter() - t0
                print(f"quick login one at a time, {label}: {1000 * wall / len(few):.1f} ms per login; CPU per "
                      f"login: client {1000 * (cpu_seconds() - c0) / len(few):.1f} ms, "
                      f"lab {1000 * (cpu_seconds(started.pid) - l0) / len(few):.1f} ms")
            known = state / "known_hosts"
            t0 = time.perf_counter()
            paramiko.HostKeys(str(known))
            t1 = time.perf_counter()
            read_known_hosts(known.read_text())
            t2 = time.perf_counter()
            print(f"known_hosts of {len(names)} entries: Paramiko HostKeys {1000 * (t1 - t0):.0f} ms (per strict "
                  f"Netmiko connection), roceops index {1000 * (t2 - t1):.1f} ms (once per process)")
        finally:
            stop_lab(state)


if __name__ == "__main__":
    main()
