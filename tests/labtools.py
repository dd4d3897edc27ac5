"""Helpers the room tests share to run a private lab in-process and log in to its devices."""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import yaml
from conftest import EXAMPLES
from netmiko import ConnectHandler

from roceops.lab.inprocess import InProcessConnection
from roceops.lab.runtime import LabThread
from roceops.model.intent import FabricIntent
from roceops.platforms.base import get_platform
from roceops.topology.expand import expand
from roceops.topology.fabric import Fabric


@cache
def lab_mini() -> Fabric:
    """The expanded ``inventory/lab-mini.yaml`` (every platform, 14 devices)."""
    return expand(FabricIntent.model_validate(yaml.safe_load(EXAMPLES["lab-mini"].read_text())))


def free_endpoint_base() -> tuple[str, int]:
    """A random 127.x.y.1 base and a port free on it (other labs may run on this host)."""
    for _ in range(50):
        base, port = f"127.{random.randint(100, 250)}.{random.randint(0, 250)}.1", random.randint(20000, 30000)
        with socket.socket() as probe:
            try:
                probe.bind((base, port))
            except OSError:
                continue
        return base, port
    raise RuntimeError("no free loopback endpoint found")


def netmiko_connect(lab: LabThread, name: str, platform: str, **extra: Any) -> Any:
    """A Netmiko session to lab device ``name`` with the platform's device type and the lab's key."""
    o = lab.overlay[name]
    netmiko = get_platform(platform).netmiko
    return ConnectHandler(device_type=netmiko.device_type, host=o["host"], port=o["port"], username=o["username"],
                          use_keys=True, key_file=o["key_file"], allow_agent=False,
                          **{**netmiko.extras, **extra})


def wait_until(check: Callable[[], bool], timeout: float = 8.0, step: float = 0.1) -> bool:
    """Poll ``check`` until it is true (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(step)
    return False


InProcess = InProcessConnection  # the tests' name for it
