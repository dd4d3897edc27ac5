"""Rendered host files as the commands a boot (or ``netplan apply`` / ``sysctl --system``) amounts to.

The lab's own reading of the files: it shares no code with the product's renderer or driver, so a
product bug in either shows up as a lab difference instead of being mirrored.
"""

from __future__ import annotations

import shlex
from typing import Any

import yaml

# the safe loader on LibYAML's parser when PyYAML was built with its bindings (github.com/yaml/pyyaml README,
# "Installation": the fast LibYAML-based parser); every host of a configured lab reads its netplan file at start
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def netplan_commands(text: str) -> list[str]:
    """``network.ethernets`` of a netplan file as the ``ip`` commands ``netplan apply`` amounts to.

    >>> netplan_commands("network:\\n  ethernets:\\n    eth0:\\n      mtu: 9000\\n      addresses: [10.0.0.1/31]\\n")
    ['ip link set dev eth0 mtu 9000', 'ip addr replace 10.0.0.1/31 dev eth0']
    """
    data: Any = yaml.load(text, Loader=_LOADER) or {}
    ethernets = (data.get("network") or {}).get("ethernets") or {}
    commands: list[str] = []
    for netdev, conf in ethernets.items():
        if conf.get("mtu"):
            commands.append(f"ip link set dev {netdev} mtu {conf['mtu']}")
        commands += [f"ip addr replace {address} dev {netdev}" for address in conf.get("addresses") or []]
        for route in conf.get("routes") or []:
            table = f" table {route['table']}" if route.get("table") is not None else ""
            to = "default" if str(route["to"]) in ("default", "0.0.0.0/0") else route["to"]
            commands.append(f"ip route replace {to} via {route['via']} dev {netdev}{table}")
        commands += [f"ip rule add from {rule['from']} table {rule['table']}"
                     for rule in conf.get("routing-policy") or []]
    return commands


def script_commands(text: str) -> list[str]:
    """A setup script's command lines: no blank lines, comments or ``set`` shell options.

    >>> script_commands("#!/bin/bash\\nset -euo pipefail\\n\\nmlnx_qos -i eth0 --trust dscp\\n")
    ['mlnx_qos -i eth0 --trust dscp']
    """
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#") and not line.startswith("set ")]


def sysctl_conf_commands(text: str) -> list[str]:
    """``key = value`` lines of a sysctl.d file as ``sysctl -w`` commands (``#``/``;`` lines are comments).

    >>> sysctl_conf_commands("# roceops\\nnet.ipv4.tcp_ecn = 1\\n")
    ['sysctl -w net.ipv4.tcp_ecn=1']
    """
    commands: list[str] = []
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith(("#", ";")):
            commands.append(f"sysctl -w {shlex.quote(f'{key.strip()}={value.strip()}')}")
    return commands
